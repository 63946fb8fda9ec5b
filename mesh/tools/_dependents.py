"""``dependents``: who depends on a file, folder, module, symbol, proto entity or service.

The target is read as described in :mod:`mesh.index.query._graph` (a service name, a path, an RPC, a proto
entity or package, a module as imported, a proto short name, a symbol: the first reading that
matches). Dependents are found breadth first up to ``depth`` levels (default 2, at most 5) through
imports and gRPC, grouped by service, each with its level and the ``file:line`` of its last hop.
``scope`` (a service name or a path prefix) limits the dependents shown, not the walk: a dependent
outside the scope still leads to those inside it. "Nothing depends on X" is an answer; a target
that names nothing, or several things, is a :class:`ToolError` that lists the candidates.

Answers page at about 8 KB: ``cursor`` is the number of dependents already shown, as printed in the
footer of the previous page.

The walk is bounded (INV-TOOL-11): it goes to the next level only while it has found at most
:data:`WALK_DEPENDENTS_MAX` dependents. A cut walk answers with the levels it walked (their
dependents first, by service, level and path), a total marked "at least", and the cursor past
them; a cursor at or past that point walks every level and pages on in the same order (the
walked levels first, then the others), so following the cursors shows each dependent once.
A first level past the budget (the importers of a hub file or folder), without a ``scope``, is
read a page at a time and counted in SQL (INV-TOOL-12): the same pages, byte for byte.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any, Final

import attrs

from ..index.query._graph import (
    WALK_DEPENDENTS_MAX,
    Found,
    GraphError,
    Scope,
    Target,
    cut_order,
    find_dependents,
    first_level_page,
    resolve_scope,
    resolve_target,
)
from ..render._dependents import DependentsResult, compose_dependents
from ..render._paging import Page, Rendered
from ..render._search import PAGE_BYTES
from ._args import describe
from ._registry import ToolError
from ._view import CURSOR_CHARS_MAX, View, arguments_of, cursor_offset, workspace_path

__all__ = ["DESCRIPTION", "NAME", "PAGE_DEPENDENTS", "TITLE", "WALK_DEPENDENTS_MAX", "Args", "Result", "answer",
           "first_found", "found_total", "page_offset", "read_more", "run", "scope_of_text", "wanted_offset"]  # fmt: skip

NAME: Final = "dependents"
TITLE: Final = "Dependents of a file, module, symbol or contract"
DESCRIPTION: Final = (
    "Who depends on a file, folder, module, symbol, proto entity, RPC or service: direct and transitive "
    "(imports, references, gRPC, HTTP, messaging), by service, with file:line evidence."
)
#: The structured result (``outputSchema``): the same page as the Markdown.
Result = DependentsResult
#: Dependents read for a page of a first level too large to read whole: a line is rarely under 50
#: bytes (a page that has room for more reads four times as many again).
PAGE_DEPENDENTS: Final = PAGE_BYTES // 50


@attrs.frozen(kw_only=True)
class Args:
    target: str = attrs.field(
        metadata=describe(
            "Path, module, symbol, proto entity, RPC or service",
            min_length=1,
            max_length=1000,
        )
    )
    depth: int = attrs.field(
        default=2, metadata=describe("Hops", minimum=1, maximum=5)
    )
    scope: str | None = attrs.field(
        default=None,
        metadata=describe("Service or path prefix", max_length=1000),
    )
    cursor: str | None = attrs.field(
        default=None,
        metadata=describe("Next page", max_length=CURSOR_CHARS_MAX),
    )


def answer(args: Args, view: View) -> str:
    """The Markdown of :func:`run`."""
    return run(args, view).text


def run(args: Args, view: View) -> Rendered:
    """One page of dependents, as Markdown and as a :class:`Result`; :class:`ToolError` for failures."""
    path = workspace_path(view.root, args.target, what="target")
    size = PAGE_DEPENDENTS
    try:
        target = resolve_target(view.db, args.target, path)
        scope = scope_of_text(view, args.scope)
        while True:
            found = first_found(view.db, [target], args.depth, scope, wanted_offset(args.cursor), size,
                                budget=WALK_DEPENDENTS_MAX)  # fmt: skip
            offset = page_offset(args, found, scope, tool=NAME)
            rendered = compose_dependents(found, arguments_of(args), scope=scope, offset=offset)
            if not read_more(found, rendered.result.page):
                return rendered
            size *= 4
    except GraphError as exc:
        raise ToolError(str(exc)) from None


def first_found(
    db: sqlite3.Connection, targets: Sequence[Target], depth: int, scope: Scope | None, offset: int, size: int, *,
    budget: int,
) -> Found:
    """The dependents a page from ``offset`` needs: ``size`` of a first level past ``budget``
    (:data:`WALK_DEPENDENTS_MAX`) from ``offset`` and the counts of them all (without a scope), else
    the levels a bounded walk finds, else (a page past a cut) the whole walk in the order of the
    cut one's pages (INV-TOOL-11)."""
    found = None
    if scope is None:
        found = first_level_page(db, targets, depth, budget=budget, offset=offset, size=size)
    if found is None:
        found = find_dependents(db, targets, depth, budget=budget)
    if found.cut is not None and offset >= found_total(found, scope):  # the page is past the walked levels
        found = cut_order(find_dependents(db, targets, depth), found.cut)
    return found


def page_offset(args: Any, found: Found, scope: Scope | None, *, tool: str) -> int:
    """The offset of the page ``args.cursor`` asks for (:func:`cursor_offset`), or, for the cursor a
    cut walk's last page gave when no level past the cut holds another dependent, the end: an
    answer saying the pages before showed them all, not an error."""
    total = found_total(found, scope)
    if found.ordered_cut is not None and args.cursor and wanted_offset(args.cursor) == total:
        return total
    return cursor_offset(args.cursor, total, tool=tool, args=args, noun="dependents")


def found_total(found: Found, scope: Scope | None) -> int:
    """How many dependents ``found`` holds in ``scope`` (of a first level read a page at a time: all of its)."""
    if found.window is not None:
        return found.window.total
    return sum(1 for d in found.dependents if scope is None or scope.holds(d.path, d.service))


def read_more(found: Found, page: Page) -> bool:
    """Whether a page of a first level read a page at a time had room for more than were read."""
    return found.window is not None and page.shown >= len(found.dependents) and page.first + page.shown < page.total


def wanted_offset(cursor: str | None) -> int:
    """The offset a cursor asks for, 0 for none or one no answer printed (which
    :func:`cursor_offset` then refuses)."""
    if cursor and len(cursor) <= CURSOR_CHARS_MAX and cursor.isascii() and cursor.isdigit():
        return int(cursor)
    return 0


def scope_of_text(view: View, text: str | None) -> Scope | None:
    """The scope an argument names (None for none), or :class:`GraphError`."""
    if text is None or not text.strip():
        return None
    return resolve_scope(view.db, text, workspace_path(view.root, text, what="scope"))
