"""Where the workspace is: the folder whose services mesh-mcp answers questions about."""

from __future__ import annotations

from pathlib import Path

__all__ = ["find_workspace"]


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
