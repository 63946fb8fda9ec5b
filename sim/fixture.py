"""The real tools inside the simulator: the checked-in fixture workspace, indexed once per process.

Both targets read the same index: the in-memory target opens it directly, the server over a pipe
gets ``--workspace`` and ``MESH_CACHE_DIR`` pointing at it (its live index finds the snapshot
complete and serves it at once, so no answer depends on how far a background build got).
The answers hold workspace-relative paths only, so transcripts are the same on every machine.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Final

from mesh.index import Index
from mesh.index.build._live import StaticIndex
from mesh.tools import Registry, builtin_registry
from mesh.workspace import cache_dir

from . import tools as sim_tools

__all__ = ["FIXTURE", "cache_environ", "registry", "workspace_index"]

FIXTURE: Final = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "workspace"

_lock = threading.Lock()
_cache: list[Path] = []


def cache_environ() -> dict[str, str]:
    """``MESH_CACHE_DIR`` for a server that should read the simulator's fixture index."""
    workspace_index()
    return {"MESH_CACHE_DIR": str(_cache[0])}


def workspace_index() -> Index:
    """The fixture's index, built on first use in a temporary cache removed at exit."""
    with _lock:
        if not _cache:
            folder = Path(tempfile.mkdtemp(prefix="mesh-sim-"))
            atexit.register(shutil.rmtree, folder, True)
            _cache.append(folder)
            index = Index(FIXTURE, cache_dir(FIXTURE, {"MESH_CACHE_DIR": str(folder)}), workers=1)
            summary = index.refresh()
            if summary.failures:
                raise RuntimeError(f"the fixture workspace did not index cleanly: {summary.failures}")
            _indexes.append(index)
        return _indexes[0]


_indexes: list[Index] = []


def registry() -> Registry:
    """What ``mesh-mcp mcp --workspace FIXTURE`` serves with ``MESH_TOOL_PLUGINS=sim.tools``."""
    built = builtin_registry(StaticIndex(workspace_index()))
    sim_tools.register(built)
    return built
