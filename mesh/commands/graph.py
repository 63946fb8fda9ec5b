"""``mesh-mcp graph [--format mermaid|json|html] [--out FILE] [DIR]``: the service graph of a workspace.

The index is built or refreshed first, as ``mesh-mcp call`` does (only changed files are parsed;
progress on stderr when it is a terminal), then the graph of one snapshot is rendered. Without
``--out`` it goes to stdout; with it, to a temporary file beside FILE that then replaces FILE, so
a reader (a browser reloading the page) never sees half a graph. Exit 0 done, 1 the index cannot
be built, 2 bad input (unknown format, a workspace or output path that cannot be used).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import TextIO

from ._common import open_index, refresh_index, workspace_of
from ..index.query._service_graph import service_graph
from ..render._graph import FORMATS, node_counts, render_graph

__all__ = ["run_graph"]

_NAME = "mesh-mcp graph"


def run_graph(directory: Path | None, fmt: str, out: Path | None, stdout: TextIO, stderr: TextIO) -> int:
    """The ``graph`` command; returns the exit code."""
    if fmt not in FORMATS:
        stderr.write(f"{_NAME}: unknown format {fmt!r}; choose one of {', '.join(FORMATS)}\n")
        return 2
    root = workspace_of(directory, "graph", stderr)
    if root is None:
        return 2
    if out is not None:
        problem = _unwritable(out)
        if problem:
            stderr.write(f"{_NAME}: cannot write {out}: {problem}\n")
            return 2
    index = open_index(root, "graph", stderr)
    if index is None:
        return 1
    try:
        code = refresh_index(index, "graph", stderr, stale="drawing the last snapshot")
        if code:
            return code
        with index.store.snapshot() as db:
            graph = service_graph(db)
    finally:
        index.close()
    text = render_graph(graph, fmt)
    if out is None:
        stdout.write(text)
        return 0
    try:
        _write_atomically(out, text)
    except OSError as exc:
        stderr.write(f"{_NAME}: cannot write {out}: {exc.strerror or exc}\n")
        return 2
    edges = len(graph.edges)
    stderr.write(f"{_NAME}: wrote {out} ({node_counts(graph)}, {edges} edge{'s' if edges != 1 else ''})\n")
    return 0


def _unwritable(out: Path) -> str:
    """Why ``out`` cannot be written ("" when it can), checked before the index is built."""
    folder = out.parent
    if out.is_dir():
        return "it is a folder"
    if not folder.is_dir():
        return f"no folder {folder}" if not folder.exists() else f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} is not writable"
    return ""


def _write_atomically(out: Path, text: str) -> None:
    """Write a temporary file in ``out``'s folder, then rename it over ``out``."""
    handle, temporary = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide a page meant to be shared
        os.replace(temporary, out)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
