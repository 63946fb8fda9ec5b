"""The tools mesh-mcp ships, bound to a workspace index.

Each tool module holds ``NAME``, ``TITLE``, ``DESCRIPTION``, ``Args``, ``Result`` (its structured
result's class) and a pure ``run(args, view) -> Rendered`` (the Markdown and the ``Result`` of the
same page; ``answer`` gives the Markdown alone); this module turns them into registry entries that
open one snapshot per call. Before the first snapshot exists every tool answers ``isError`` "still
indexing" with the files done of total; when the index cannot be built, it says why; when the
index was found damaged, that it is being rebuilt (INV-INDEX-8).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from types import ModuleType
from typing import Any, Final, Protocol

from ..index.build._live import NotReady
from ..render._paging import Rendered
from . import _smart_search
from ._registry import CallContext, Registry, Tool, ToolError, ToolOutput
from ._view import View

__all__ = ["IndexSource", "builtin_registry", "not_ready_text"]

#: Every built-in tool only reads.
READ_ONLY: Final = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}


class IndexSource(Protocol):
    """Where the tools read: a :class:`mesh.index.LiveIndex`, or anything with its two members."""

    root: Path

    def snapshot(self) -> AbstractContextManager[Any]: ...


def _modules() -> tuple[ModuleType, ...]:
    from . import _dependents, _doc_sections, _endpoint_trace, _grpc_trace, _impact

    return (_smart_search, _dependents, _grpc_trace, _endpoint_trace, _impact, _doc_sections)


def builtin_registry(source: IndexSource | None = None) -> Registry:
    """The built-in tools, reading ``source`` (without one, each answers that there is no index)."""
    registry = Registry()
    for module in _modules():
        registry.register(
            Tool(
                module.NAME,
                module.DESCRIPTION,
                module.Args,
                _bound(module.run, source),
                title=module.TITLE,
                annotations=READ_ONLY,
                output=module.Result,
            )
        )
    return registry


def _bound(
    answer: Callable[[Any, View], Rendered], source: IndexSource | None
) -> Callable[[Any, CallContext], ToolOutput]:
    def run(args: Any, context: CallContext) -> ToolOutput:
        if source is None:
            raise ToolError("This server has no workspace index; start it with a workspace (--workspace DIR).")
        try:
            with source.snapshot() as db:
                rendered = answer(args, View(db, source.root, context.cancelled))
                return ToolOutput(rendered.text, structured=rendered.result)
        except NotReady as exc:  # no snapshot yet, or the one read was damaged (said when the read fails)
            # The failure may name a file of the workspace (mesh.toml) by its absolute path.
            raise ToolError(not_ready_text(exc).replace(f"{source.root}{os.sep}", "")) from None

    return run


def not_ready_text(exc: NotReady) -> str:
    """What a tool answers before the first snapshot: progress, or why there is no index."""
    if exc.failure:
        then = (
            "the server tries again after the next change to a file in the workspace"
            if exc.retrying
            else "restart the server once that is fixed"
        )
        return f"The workspace index is not available: {exc.failure}. {then.capitalize()}."
    if exc.rebuilt:
        return f"The workspace index was damaged ({exc.damaged}); it was set aside and rebuilt. Call the tool again."
    progress = exc.progress
    if progress.phase == "parsing" and progress.total:
        doing = f"{progress.done:,} of {progress.total:,} files parsed"
    elif progress.phase in ("writing", "done"):
        doing = f"writing the index ({progress.total:,} files parsed)"
    elif progress.phase == "checking":
        doing = "checking the index left by a server that did not stop cleanly"
    else:
        doing = "listing the workspace's files"
    if exc.damaged:
        return (
            f"The workspace index was damaged and is being rebuilt ({exc.damaged}): {doing}."
            " Try again in a few seconds."
        )
    return f"Still indexing the workspace: {doing}. Try again in a few seconds."
