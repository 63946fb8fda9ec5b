"""The tools mesh-mcp ships, bound to a workspace index.

Each tool module holds ``NAME``, ``TITLE``, ``DESCRIPTION``, ``Args``, ``Result`` (its structured
result's class) and a pure ``run(args, view) -> Rendered`` (the Markdown and the ``Result`` of the
same page; ``answer`` gives the Markdown alone); this module turns them into registry entries that
open one snapshot per call. Before the first snapshot exists a call waits for it, up to
``wait_s`` (``MESH_FIRST_CALL_WAIT_S``, 3 s by default), telling the client how far the build got
(``CallContext.progress``: files parsed of total) and stopping at once when cancelled; a workspace
indexed within the bound is answered as if the index had always been there (INV-FIRST-1). A
build that cannot end within the bound (more files left than :data:`BUILD_FILES_PER_S` parses in
the time left, or a build still starting or listing files after :data:`WALK_WAIT_S`) is not waited
for: the first answer comes within a second (INV-FIRST-3). A tool with a ``scan`` waits only for
a parse expected to take at most :data:`SCAN_WAIT_S` more, its workers' start-up and query
compilations included. Past the bound a tool with a ``scan``
(``smart_search``) answers by reading the files, until :data:`FIRST_ANSWER_S` after the call came
(at least :data:`SCAN_S_MIN`), and says so; any other answers ``isError`` "still indexing" with the
files done of total. When the index cannot be
built, it says why at once; when the index was found damaged, that it is being rebuilt, at once
and without a scan (INV-INDEX-8).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from types import ModuleType
from typing import Any, Final, Protocol

from ..index.build._live import NotReady
from ..index.build._progress import TEXT_STAGE, Progress
from ..render._paging import Rendered
from . import _smart_search
from ._registry import CallContext, Registry, Tool, ToolError, ToolOutput
from ._view import View

__all__ = [
    "FIRST_CALL_WAIT_S", "IndexSource", "beyond_wait", "builtin_registry", "first_call_wait_s", "not_ready_text",
    "progress_of",
]  # fmt: skip

log = logging.getLogger("mesh.tools")

#: How long a call waits for the first snapshot before answering without it (``MESH_FIRST_CALL_WAIT_S``).
FIRST_CALL_WAIT_S: Final = 3.0
#: The longest wait the environment may ask for.
FIRST_CALL_WAIT_S_MAX: Final = 60.0
#: How often a waiting call looks at the index again (and offers progress).
POLL_S: Final = 0.1
#: Files a cold build parses per second, at best, on the machines measured (docs/performance.md:
#: 160-330 on 2 cores): a build with more files left than this covers in the wait is not waited for.
BUILD_FILES_PER_S: Final = 500
#: A build still starting, or listing the workspace's files, after this long is of a workspace too large to index
#: within the wait (a walk lists thousands of files in a tenth of a second).
WALK_WAIT_S: Final = 0.3
#: A tool that can answer without the index (a scan) waits for the first snapshot only while the parse
#: left is expected to take at most this long, its workers' start-up and query compilations
#: (``Progress.warmup_s``) included: its first answer comes within a second when the estimate holds.
SCAN_WAIT_S: Final = 0.5
#: A call answered without the index (a scan) stops reading this long after it came, so that its
#: answer (rendered and written after) reaches the client within a second...
FIRST_ANSWER_S: Final = 0.8
#: ... but reads for at least this long, however long it waited first.
SCAN_S_MIN: Final = 0.4

#: Every built-in tool only reads, and only the workspace (the specification reads the destructive and
#: idempotent hints only when ``readOnlyHint`` is false: they would cost every session bytes for nothing).
READ_ONLY: Final = {"readOnlyHint": True, "openWorldHint": False}


class IndexSource(Protocol):
    """Where the tools read: a :class:`mesh.index.LiveIndex`, or anything with its two members."""

    root: Path

    def snapshot(self) -> AbstractContextManager[Any]: ...


def _modules() -> tuple[ModuleType, ...]:
    from . import _dependents, _doc_sections, _endpoint_trace, _files, _grpc_trace, _impact, _outline
    from . import _references, _symbol

    return (
        _smart_search, _dependents, _grpc_trace, _endpoint_trace, _impact, _doc_sections,
        _outline, _symbol, _references, _files,
    )  # fmt: skip


def first_call_wait_s(environ: Mapping[str, str] | None = None) -> float:
    """The wait for the first snapshot: ``MESH_FIRST_CALL_WAIT_S`` (seconds, 0 to 60), else the default."""
    environ = os.environ if environ is None else environ
    raw = environ.get("MESH_FIRST_CALL_WAIT_S", "").strip()
    if not raw:
        return FIRST_CALL_WAIT_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= FIRST_CALL_WAIT_S_MAX:  # NaN fails too
        log.warning(
            "MESH_FIRST_CALL_WAIT_S must be 0 to %g seconds; using %g", FIRST_CALL_WAIT_S_MAX, FIRST_CALL_WAIT_S
        )
        return FIRST_CALL_WAIT_S
    return value


def builtin_registry(source: IndexSource | None = None, *, wait_s: float | None = None) -> Registry:
    """The built-in tools, reading ``source`` (without one, each answers that there is no index).

    ``wait_s``: how long a call waits for the first snapshot (None: :func:`first_call_wait_s`)."""
    wait = first_call_wait_s() if wait_s is None else wait_s
    registry = Registry()
    for module in _modules():
        registry.register(
            Tool(
                module.NAME,
                module.DESCRIPTION,
                module.Args,
                _bound(module.run, source, wait, getattr(module, "scan", None), getattr(module, "text_stage", None)),
                title=module.TITLE,
                annotations=READ_ONLY,
                output=module.Result,
            )
        )
    return registry


#: A tool's answer without an index (``smart_search``'s scan: ``scan(args, root, cancelled, *,
#: until, building)``, reading until ``until`` on ``time.monotonic``, ``building`` saying how far the
#: build got); None when the question needs one.
Scan = Callable[..., Rendered | None]


#: Whether a call can be answered from a snapshot holding the workspace's text only (a first
#: build's first stage, ``meta.stage`` ``text``): a tool module's ``text_stage(args)``; a tool
#: without one waits for the facts as for the first snapshot.
TextStage = Callable[[Any], bool]


def _bound(
    answer: Callable[[Any, View], Rendered],
    source: IndexSource | None,
    wait_s: float,
    scan: Scan | None,
    text_stage: TextStage | None = None,
) -> Callable[[Any, CallContext], ToolOutput]:
    def run(args: Any, context: CallContext) -> ToolOutput:
        if source is None:
            raise ToolError("This server has no workspace index; start it with a workspace (--workspace DIR).")
        began = deadline = None
        while True:
            try:
                with source.snapshot() as db:
                    text_only = db.execute("SELECT value FROM meta WHERE key = 'stage'").fetchone() == (TEXT_STAGE,)
                    if text_only and (text_stage is None or not text_stage(args)):
                        raise NotReady(_building(source))  # waits for the facts as for a first snapshot
                    rendered = answer(args, View(db, source.root, context.cancelled))
                    if text_only:
                        return ToolOutput(f"{text_stage_note(_building(source))}\n\n{rendered.text}",
                                          structured=rendered.result)  # fmt: skip
                    return ToolOutput(rendered.text, structured=rendered.result)
            except NotReady as exc:  # no snapshot yet, or the one read was damaged (said when the read fails)
                not_ready = exc
            if not_ready.failure or not_ready.damaged:
                break  # a failure is said now; a damaged index is said while it is rebuilt (INV-INDEX-8)
            now = time.monotonic()
            if began is None or deadline is None:
                began, deadline = now, now + wait_s
            done, total, message = progress_of(not_ready)
            context.progress(done, total, message)
            if now >= deadline or beyond_wait(not_ready, now - began, deadline - now, scans=scan is not None):
                break
            if context.cancelled.wait(min(POLL_S, deadline - now)):
                break
        if scan is not None and not not_ready.failure and not not_ready.damaged and not context.cancelled.is_set():
            until = max((began or time.monotonic()) + FIRST_ANSWER_S, time.monotonic() + SCAN_S_MIN)
            scanned = scan(args, source.root, context.cancelled, until=until, building=_doing(not_ready))
            if scanned is not None:
                return ToolOutput(scanned.text, structured=scanned.result)
        # The failure may name a file of the workspace (mesh.toml) by its absolute path.
        raise ToolError(not_ready_text(not_ready).replace(f"{source.root}{os.sep}", ""))

    return run


def _building(source: IndexSource) -> Progress:
    """How far the source's build got (a :class:`~mesh.index.LiveIndex` says; another source is
    taken to be parsing)."""
    progress = getattr(source, "progress", None)
    return progress if isinstance(progress, Progress) else Progress("parsing", 0, 0)


def text_stage_note(progress: Progress) -> str:
    """The first line of an answer read from a snapshot of the text alone (INV-INDEX-10)."""
    return (
        f"_Answered from the text index: definitions and links are still being extracted ({_doing(NotReady(progress))});"
        " definitions are not ranked first until they are._"
    )


def beyond_wait(exc: NotReady, waited_s: float, left_s: float, *, scans: bool = False) -> bool:
    """The build will not give a snapshot in the ``left_s`` seconds of the wait left: too many
    files left to parse, or a walk that has been listing files for as long as ``waited_s``
    (INV-FIRST-3). A check of a left-over index, and the writing of a parsed one, are waited for.
    ``scans``: the tool can answer by a scan, so it waits only for a parse expected to end within
    :data:`SCAN_WAIT_S`, the parse workers' start-up and query compilations still ahead
    (``Progress.warmup_s``) included."""
    progress = exc.progress
    if progress.phase in ("starting", "walking"):  # the builder loading, then listing files
        return waited_s >= WALK_WAIT_S
    if progress.phase == "parsing" and progress.total and scans:  # the workers' start-up counts (INV-FIRST-4)
        return progress.warmup_s + (progress.total - progress.done) / BUILD_FILES_PER_S > min(left_s, SCAN_WAIT_S)
    if progress.phase == "parsing" and progress.total:
        return progress.total - progress.done > BUILD_FILES_PER_S * left_s
    if progress.phase == "reading" and progress.total:  # the text stage: every file is parsed after it
        return 2 * progress.total - progress.done > BUILD_FILES_PER_S * left_s
    return False


def progress_of(exc: NotReady) -> tuple[int, int | None, str]:
    """(files parsed, of how many or None, a sentence) of a build still running, for progress."""
    progress = exc.progress
    total = progress.total or None
    done = progress.total if progress.phase in ("writing", "done") else progress.done
    return done, total, f"Indexing the workspace: {_doing(exc)}"


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
    doing = _doing(exc)
    if exc.damaged:
        return (
            f"The workspace index was damaged and is being rebuilt ({exc.damaged}): {doing}."
            " Try again in a few seconds."
        )
    return f"Still indexing the workspace: {doing}. Try again in a few seconds."


def _doing(exc: NotReady) -> str:
    progress = exc.progress
    if progress.phase == "parsing" and progress.total:
        doing = f"{progress.done:,} of {progress.total:,} files parsed"
    elif progress.phase == "reading" and progress.total:
        doing = f"{progress.done:,} of {progress.total:,} files read for search, then parsed"
    elif progress.phase in ("writing", "done"):
        doing = f"writing the index ({progress.total:,} files parsed)"
    elif progress.phase == "checking":
        doing = "checking the index left by a server that did not stop cleanly"
    else:
        doing = "listing the workspace's files"
    return doing
