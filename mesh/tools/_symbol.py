"""``symbol``: a definition by name, qualified name or ``path:line``, with its source (whole lines,
bounded), its container and siblings, and where it is referenced; other matches ranked after it.

A tool of its own rather than a mode of ``smart_search``: it answers one definition in depth (its
source and references), where a search answers many matches in breadth, and its arguments (how many
source lines) mean nothing to a search.
"""

from __future__ import annotations

from typing import Final

import attrs

from ..index.query._references import find_references, with_enclosing
from ..index.query._search import file_text, text_lines
from ..index.query._symbols import SymbolRow, find_symbols, nearest_names
from ..render._navigation import OTHERS_MAX, PREVIEW_MAX, SymbolResult, compose_symbol
from ..render._paging import Rendered, call_text, code
from ._args import describe
from ._registry import ToolError
from ._view import View, arguments_of

__all__ = ["DESCRIPTION", "NAME", "TITLE", "Args", "Result", "answer", "lines_of", "not_found", "run", "source_lines"]

NAME: Final = "symbol"
TITLE: Final = "A definition with its source"
DESCRIPTION: Final = (
    "A definition by name, qualified name (`OrderService.place`) or `path:line`: its source, container, "
    "siblings and references; other matches ranked."
)
Result = SymbolResult


@attrs.frozen(kw_only=True)
class Args:
    name: str = attrs.field(metadata=describe("Name, qualified name or path:line", min_length=1, max_length=500))
    lines: int = attrs.field(default=80, metadata=describe("Most source lines shown", minimum=1, maximum=400))


def answer(args: Args, view: View) -> str:
    return run(args, view).text


def run(args: Args, view: View) -> Rendered:
    found = find_symbols(view.db, args.name, texts=1 + OTHERS_MAX)
    if not found:
        raise ToolError(not_found(view, args.name, NAME))
    best, others = found[0], found[1:]
    source = source_lines(view, best)
    container = _container(view, best)
    siblings = _siblings(view, best)
    sites = find_references(view.db, best)
    # Resolved sites come first, so the preview is a prefix of the list: it replaces that prefix
    # (comparing sites would fail, the preview's have their enclosing definition filled in).
    shown = sum(1 for site in sites[:PREVIEW_MAX] if site.resolved) or min(PREVIEW_MAX, len(sites))
    preview = with_enclosing(view.db, sites[:shown])
    sites = [*preview, *sites[shown:]]
    codes = lines_of(view, [(site.path, site.line) for site in preview])
    return compose_symbol(
        best, source, args.lines, container, siblings, sites, codes, others, arguments_of(args),
        tool=NAME, references_tool="references",
    )  # fmt: skip


def not_found(view: View, text: str, tool: str) -> str:
    """The answer to a name nothing defines: the nearest names, and the call for the first."""
    message = f"Nothing in the index defines {code(text)}."
    if ":" in text and text.rsplit(":", 1)[-1].isdigit():
        return message + " Give a path and a line inside a definition (`outline` lists them)."
    near = nearest_names(view.db, text)
    if near:
        message += " Nearest names: " + ", ".join(code(name) for name in near)
        message += f". Try {call_text(tool, {'name': near[0]})}."
    else:
        message += " `smart_search` finds text anywhere in the code."
    return message


def source_lines(view: View, row: SymbolRow) -> list[str] | None:
    """The lines of the definition's file (None: the index keeps no text of it)."""
    found = view.db.execute("SELECT id, size, mtime_ns FROM files WHERE path = ?", (row.path,)).fetchone()
    if found is None:
        return None
    text = file_text(view.db, view.root, found[0], row.path, found[1], found[2])
    return None if text is None else text_lines(text)


def lines_of(view: View, places: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
    """The code on each ``(path, line)``, each file read once."""
    out: dict[tuple[str, int], str] = {}
    by_path: dict[str, list[int]] = {}
    for path, line in places:
        by_path.setdefault(path, []).append(line)
    for path, lines in by_path.items():
        found = view.db.execute("SELECT id, size, mtime_ns FROM files WHERE path = ?", (path,)).fetchone()
        if found is None:
            continue
        text = file_text(view.db, view.root, found[0], path, found[1], found[2])
        if text is None:
            continue
        split = text_lines(text, max(lines))
        for line in lines:
            if 0 < line <= len(split):
                out[(path, line)] = split[line - 1]
    return out


def _container(view: View, row: SymbolRow) -> SymbolRow | None:
    if not row.container:
        return None
    parent_container, _, name = row.container.rpartition(".")
    for candidate in find_symbols(view.db, row.container):
        if candidate.path == row.path and candidate.name == name and candidate.container == parent_container:
            return candidate
    return None


def _siblings(view: View, row: SymbolRow) -> list[str]:
    return [
        name
        for (name,) in view.db.execute(
            "SELECT d.name FROM defs d JOIN files f ON f.id = d.file_id WHERE f.path = ? AND d.container = ?"
            " AND NOT (d.name = ? AND d.line = ?) ORDER BY d.line, d.name",
            (row.path, row.container, row.name, row.line),
        )
    ]
