"""The Markdown of a text search: matches grouped by file, a page at a time, within a byte budget.

The ranked matches (definitions first, then code before tests and docs) are taken from ``offset``
while the page stays within ``page_bytes`` (at least one): a page is a prefix of the ranked list,
so the next cursor neither skips nor repeats a match. They are shown grouped by file, files in the
order of their best match, each file's lines in order.
A partial page ends with the footer of :mod:`._paging` (shown of total, busiest scopes, the call
that narrows, the call for the next page). Same matches and arguments, same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ..index.query._search import Found, Match
from ._paging import Paging, code, paging_footer

__all__ = ["PAGE_BYTES", "render_search"]

#: About what one page of results may take.
PAGE_BYTES: Final = 8 * 1024
#: A matching line longer than this is shown cut, with an ellipsis.
LINE_CHARS_MAX: Final = 200
TOOL: Final = "smart_search"


def render_search(
    found: Found,
    arguments: Mapping[str, object],
    *,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
    symbols: bool = False,
) -> str:
    """One page of ``found`` from ``offset``; ``arguments`` are the call's (for the follow-up calls).

    With ``symbols``, the matches are definitions (``mode`` ``symbol``): each line names one.
    """
    query = str(arguments.get("query", ""))
    total = len(found.matches)
    noun = "definitions" if symbols else "matches"
    files = f"{found.files} file" + ("" if found.files == 1 else "s")
    head = f"## {code(query)}: {total}{'+' if found.capped else ''} {noun} in {files}\n"
    if total == 0:
        if symbols:
            return head + "\nNo definition has this name. Try `mode` `literal` to find uses, or widen `scope`.\n"
        return head + "\nNo match. Try `mode` `regex` or a shorter query, or widen `scope`.\n"
    line_of = _symbol_line if symbols else _match_line
    # The page is a prefix of the ranked list (so the next cursor skips nothing and repeats
    # nothing), shown grouped by file in the order of each file's best match.
    used = len(head.encode())
    groups: dict[str, list[Match]] = {}
    shown = 0
    for match in found.matches[offset:]:
        cost = len(line_of(match).encode()) + (0 if match.path in groups else len(_title(match).encode()))
        if shown and used + cost > page_bytes:
            break
        groups.setdefault(match.path, []).append(match)
        used += cost
        shown += 1
    parts = [head]
    for matches in groups.values():
        parts.append(_title(matches[0]) + "".join(line_of(match) for match in sorted(matches, key=lambda m: m.line)))
    end = offset + shown
    paging = Paging(
        shown=shown,
        total=total,
        noun=noun,
        next_cursor=str(end) if end < total else None,
        capped=found.capped,
        first=offset,
    )
    footer = paging_footer(paging, tool=TOOL, arguments=arguments, paths=[m.path for m in found.matches])
    return "".join(parts) + ("\n" + footer if footer else "")


def _title(match: Match) -> str:
    about = ", ".join(part for part in (match.service, match.language, match.kind) if part)
    return f"\n{code(match.path)} ({about})\n"


def _symbol_line(match: Match) -> str:
    return f"- {match.line}: {match.definition} {code(match.text)}\n"


def _match_line(match: Match) -> str:
    text = match.text.strip()
    if len(text) > LINE_CHARS_MAX:
        text = text[: LINE_CHARS_MAX - 1] + "…"
    if match.definition:
        about = f" — defines {match.definition}"
    elif match.enclosing:
        about = f" — in {code(match.enclosing)}"
    else:
        about = ""
    return f"- {match.line}: {code(text) if text else '(blank)'}{about}\n"
