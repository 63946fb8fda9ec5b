import atexit
import compileall
import os
import shutil
import signal
import tempfile
from pathlib import Path

from hypothesis import settings

# The suite starts over a thousand servers, daemons and parse workers as subprocesses. An
# environment that sets PYTHONDONTWRITEBYTECODE (CI's does) makes each of them compile mesh from
# source: about 0.2 s of a server's 0.5 s start. The bytecode is written once here instead, as
# `pip install .` writes it for a user's install; a child only reads it. Writes are atomic, so the
# xdist workers doing this at once is safe, and a later run finds it up to date.
for _package in ("mesh", "sim"):
    compileall.compile_dir(Path(__file__).resolve().parent.parent / _package, quiet=2)

# Every server and index the tests start (in this process or a child) caches under a folder of
# the test run's own, never in the user's ~/.cache.
_CACHE = tempfile.mkdtemp(prefix="mesh-test-cache-")
os.environ["MESH_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)

# Daemons (meshd) the tests start listen in a folder of the run's own, short enough for a socket
# path, and exit by themselves soon after their last client; any still running at the end of the
# run are stopped (their pids are in the lock files beside the sockets).
_RUNTIME = tempfile.mkdtemp(prefix="mesh-rt-", dir="/tmp")
os.environ["XDG_RUNTIME_DIR"] = _RUNTIME
os.environ.pop("MESH_SOCKET_PATH", None)
os.environ["MESH_DAEMON_IDLE_S"] = "60"


def _stop_daemons() -> None:
    for lock in Path(_RUNTIME).glob("**/*.lock"):
        try:
            os.kill(int(lock.read_text().split()[0]), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            pass
    shutil.rmtree(_RUNTIME, True)


atexit.register(_stop_daemons)

# Shared CI machines are noisy: no per-example deadline; print a reproduction blob on failure.
settings.register_profile("default", deadline=None, print_blob=True)
settings.load_profile("default")
