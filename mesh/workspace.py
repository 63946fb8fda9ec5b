"""Where the workspace is: the folder whose services mesh-mcp answers questions about."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["cache_dir", "cache_root", "find_workspace", "workspace_id"]


def find_workspace(start: Path) -> Path:
    """The workspace that ``start`` belongs to, absolute and resolved.

    The nearest ancestor (``start`` included) holding ``mesh.toml``; failing that, the nearest
    holding ``.git``; failing both, ``start`` itself. ``mesh.toml`` is looked for first so that a
    service that is its own git repository, inside a declared workspace, does not hide it.
    """
    start = start.resolve()
    folders = (start, *start.parents)
    for marker in ("mesh.toml", ".git"):
        for folder in folders:
            if (folder / marker).exists():
                return folder
    return start


def workspace_id(root: Path) -> str:
    """``sha256(canonical path + version)[:16]``: names the workspace's cache folder and socket."""
    from hashlib import sha256

    from . import __version__

    return sha256(f"{root.resolve()}\0{__version__}".encode()).hexdigest()[:16]


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """Where caches live: ``$MESH_CACHE_DIR``, else ``$XDG_CACHE_HOME/mesh``, else ``~/.cache/mesh``."""
    environ = os.environ if environ is None else environ
    if environ.get("MESH_CACHE_DIR"):
        return Path(environ["MESH_CACHE_DIR"])
    if environ.get("XDG_CACHE_HOME"):
        return Path(environ["XDG_CACHE_HOME"]) / "mesh"
    return Path(environ.get("HOME") or Path.home()) / ".cache" / "mesh"


def cache_dir(root: Path, environ: Mapping[str, str] | None = None) -> Path:
    """The workspace's own cache folder (index, audit log, daemon log); not created here."""
    return cache_root(environ) / workspace_id(root)
