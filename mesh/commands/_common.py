"""What the one-shot commands (index, call, audit, doctor, graph) share."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..workspace import find_workspace

if TYPE_CHECKING:
    from ..index import Index

__all__ = ["open_index", "refresh_index", "workspace_of"]


def workspace_of(directory: Path | None, command: str, stderr: TextIO) -> Path | None:
    """The workspace a command's optional ``DIR`` names (found from the current folder without
    one); None, after saying why on ``stderr``, when ``DIR`` is not a folder."""
    if directory is None:
        return find_workspace(Path.cwd())
    root = directory.resolve()
    if not root.is_dir():
        stderr.write(f"mesh-mcp {command}: {directory}: not a folder\n")
        return None
    return root


def open_index(root: Path, command: str, stderr: TextIO, *, workers: int | None = None) -> Index | None:
    """The index of ``root`` in its cache folder; None, after saying why, when it cannot be kept."""
    from ..index import Index, IndexUnavailable
    from ..workspace import cache_dir

    try:
        return Index(root, cache_dir(root), workers=workers)
    except IndexUnavailable as exc:
        stderr.write(f"mesh-mcp {command}: {exc}\n")
        return None


def refresh_index(index: Index, command: str, stderr: TextIO, *, stale: str) -> int:
    """Bring ``index`` up to date, progress on a terminal; 0, or the exit code of the failure.

    A broken ``mesh.toml`` is 2 (the user's input); an index that cannot be kept is 1, unless an
    earlier snapshot can still answer: then the command goes on, after saying so (``stale``: how
    it goes on, e.g. "answering from the last snapshot")."""
    from .index import ProgressBar
    from ..index import ConfigError, IndexUnavailable

    try:
        index.refresh(progress=ProgressBar(stderr) if stderr.isatty() else None)
    except ConfigError as exc:
        stderr.write(f"mesh-mcp {command}: {exc}\n")
        return 2
    except IndexUnavailable as exc:
        if index.store.generation() == 0:
            stderr.write(f"mesh-mcp {command}: {exc}\n")
            return 1
        stderr.write(f"mesh-mcp {command}: {exc}; {stale}\n")
    return 0
