"""``references``: the call sites and uses of a definition across the workspace, grouped by service,
each with ``file:line``, the definition around it and its line of code. Sites the code ties to the
definition (same file, imports, ``self``/``this``, qualified access) come first; sites that only
share the name come after, marked ``by name`` (see :mod:`mesh.index.query._references`)."""

from __future__ import annotations

from typing import Final

import attrs

from ..index.query._graph import GraphError
from ..index.query._references import RefSite, find_references, with_enclosing
from ..index.query._symbols import find_symbols, split_symbol
from ..render._navigation import PAGE_BYTES, ReferencesResult, compose_references, reference_line
from ..render._paging import Rendered
from ._args import describe
from ._dependents import scope_of_text
from ._registry import ToolError
from ._symbol import lines_of, not_found
from ._view import CURSOR_CHARS_MAX, View, arguments_of, cursor_offset

__all__ = ["DESCRIPTION", "NAME", "TITLE", "Args", "Result", "answer", "run"]

NAME: Final = "references"
TITLE: Final = "References of a definition"
DESCRIPTION: Final = (
    "Call sites and uses of a function, method, class or constant across the workspace, by service; "
    "resolved first, same-name matches marked `by name`."
)
Result = ReferencesResult
#: Sites read at a time (the definition around each, its line of code) until a page is full: a
#: page shows a few dozen of thousands, and only what it shows is read.
CHUNK: Final = 32


@attrs.frozen(kw_only=True)
class Args:
    name: str = attrs.field(metadata=describe("Name, qualified name or path:line", min_length=1, max_length=500))
    scope: str | None = attrs.field(default=None, metadata=describe("A service or path prefix", max_length=1000))
    by_name: bool = attrs.field(default=True, metadata=describe("Include same-name matches"))
    cursor: str | None = attrs.field(
        default=None, metadata=describe("Next page", max_length=CURSOR_CHARS_MAX)
    )


def _bare(name: str) -> bool:
    """Whether ``name`` is a bare name: ``find_symbols`` then gives every definition of it."""
    return ":" not in name and not split_symbol(name)[1]


def answer(args: Args, view: View) -> str:
    return run(args, view).text


def run(args: Args, view: View) -> Rendered:
    found = find_symbols(view.db, args.name, texts=1)
    if not found:
        raise ToolError(not_found(view, args.name, NAME))
    target = found[0]
    try:
        scope = scope_of_text(view, args.scope)
    except GraphError as exc:
        raise ToolError(str(exc)) from None
    sites = [
        site
        for site in find_references(view.db, target, found if _bare(args.name) else None)
        if (args.by_name or site.resolved) and (scope is None or scope.holds(site.path, site.service))
    ]
    offset = cursor_offset(args.cursor, len(sites), tool=NAME, args=args, noun="references")
    codes = _fill_page(view, sites, offset)
    return compose_references(target, sites, codes, len(found) - 1, arguments_of(args), tool=NAME, offset=offset)


def _fill_page(view: View, sites: list[RefSite], offset: int) -> dict[tuple[str, int], str]:
    """Fill in the enclosing definition of the sites from ``offset`` on, a chunk at a time, and
    read their lines of code, until they fill more than a page (the renderer then measures the
    page with what it is given; no site past a full page is read)."""
    codes: dict[tuple[str, int], str] = {}
    end, taken = offset, 0
    while end < len(sites) and taken <= PAGE_BYTES:
        chunk = with_enclosing(view.db, sites[end : end + CHUNK])
        sites[end : end + len(chunk)] = chunk
        codes.update(lines_of(view, [(site.path, site.line) for site in chunk]))
        taken += sum(len(reference_line(site, codes.get((site.path, site.line), "")).encode()) for site in chunk)
        end += len(chunk)
    return codes
