import atexit
import os
import shutil
import tempfile

from hypothesis import settings

# Every server and index the tests start (in this process or a child) caches under a folder of
# the test run's own, never in the user's ~/.cache.
_CACHE = tempfile.mkdtemp(prefix="mesh-test-cache-")
os.environ["MESH_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)

# Shared CI machines are noisy: no per-example deadline; print a reproduction blob on failure.
settings.register_profile("default", deadline=None, print_blob=True)
settings.load_profile("default")
