from hypothesis import settings

# Shared CI machines are noisy: no per-example deadline; print a reproduction blob on failure.
settings.register_profile("default", deadline=None, print_blob=True)
settings.load_profile("default")
