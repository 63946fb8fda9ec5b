"""The footer of an answer that shows only part of its results: counts, busiest scopes, next calls.

Every tool that pages or cuts its results ends with the same three things an agent can act on:
how many were shown of how many, the three busiest sub-scopes (first two path components) with
their counts, and concrete follow-up calls (tool name and JSON arguments): one narrowed to the
busiest scope, one for the next page. Pure and deterministic: ties are broken by name.

The same facts are kept for the structured result (:class:`Page`, from :func:`page_of`): the
footer is written from them, so the Markdown and the ``structuredContent`` of an answer cannot
disagree about what was shown.

Whatever an answer echoes goes through :func:`code` (or, for a whole error message, through
:func:`escape_controls` in the registry): control characters an argument carries (an ANSI escape,
a bidi override) are shown as ``\\uXXXX``, never written raw into the Markdown (INV-TOOL-7).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Final

import attrs

__all__ = [
    "FollowUp",
    "Page",
    "Paging",
    "Rendered",
    "ScopeCount",
    "busiest_scopes",
    "call_text",
    "code",
    "escape_controls",
    "footer_of",
    "page_of",
    "paging_footer",
    "scope_of",
]

BUSIEST: Final = 3
#: What an answer never carries raw: C0 controls but newline and tab, DEL, C1 controls, and the
#: bidi embeddings, overrides (U+202A-U+202E) and isolates (U+2066-U+2069).
_CONTROL: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@attrs.frozen
class Paging:
    #: What the answer shows, and how many there are in all (a lower bound when ``capped``).
    shown: int
    total: int
    #: The noun counted ("matches", "dependents"...).
    noun: str
    #: The cursor of the next page, None when this page is the last.
    next_cursor: str | None = None
    #: The search stopped counting at ``total``.
    capped: bool = False
    #: How many came before this page (0 on the first).
    first: int = 0


def scope_of(path: str) -> str:
    """A path's sub-scope: its first two components (``services/orders/api.py`` -> ``services/orders``)."""
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0] if len(parts) > 1 else path


def busiest_scopes(paths: Iterable[str], top: int = BUSIEST) -> list[tuple[str, int]]:
    """The ``top`` sub-scopes holding the most of ``paths``, busiest first, ties by name."""
    counts: Counter[str] = Counter()
    for path, times in Counter(paths).items():  # thousands of sites sit in far fewer files
        counts[scope_of(path)] += times
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]


def call_text(tool: str, arguments: Mapping[str, object]) -> str:
    """A follow-up call as an agent would make it: the tool name and its JSON arguments (sorted keys)."""
    encoded = json.dumps(dict(arguments), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"{code(tool)} {code(encoded)}"


def escape_controls(text: str) -> str:
    """``text`` with each control character (see ``_CONTROL``) written as ``\\uXXXX``: visible,
    inert in a terminal or a renderer, and the same escape JSON reads back (a follow-up call
    printed with one gives the argument exactly). Anything else is left as it is."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def code(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds (the delimiter is longer);
    control characters are escaped (:func:`escape_controls`)."""
    text = escape_controls(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


@attrs.frozen
class FollowUp:
    """A call an answer suggests, as an agent would make it."""

    tool: str
    arguments: dict[str, Any]


@attrs.frozen
class ScopeCount:
    """A sub-scope (a path prefix, or what the tool narrows by) and how many results it holds."""

    scope: str
    count: int


@attrs.frozen
class Page:
    """What part of the results an answer shows, and the calls for the rest (the structured footer)."""

    #: The noun counted ("matches", "dependents"...).
    noun: str
    #: How many came before this page (0 on the first), how many it shows, and how many there are.
    first: int
    shown: int
    total: int
    #: ``total`` is a lower bound: counting stopped there.
    capped: bool
    #: Whether the answer shows only part of the results (it then ends with the footer).
    partial: bool
    #: The three busiest sub-scopes of all the results, busiest first (only for a partial answer).
    busiest: list[ScopeCount]
    #: The call narrowed to the busiest sub-scope (only for a partial answer).
    narrow: FollowUp | None
    #: The cursor and the call for the next page, None on the last page.
    next_cursor: str | None
    next: FollowUp | None


@attrs.frozen
class Rendered:
    """An answer in both forms: the Markdown, and the structured result holding the same facts."""

    text: str
    result: Any


def page_of(
    paging: Paging,
    *,
    tool: str,
    arguments: Mapping[str, object],
    paths: Iterable[str],
    scope_argument: str = "scope",
    scope_counts: Iterable[tuple[str, int]] | None = None,
) -> Page:
    """The facts of :func:`paging_footer`, for the structured result. ``scope_counts`` (each
    sub-scope of ``paths`` and how many of them it holds) stands for ``paths`` when the answer
    counted its results without reading them all."""
    partial = not (
        paging.first == 0 and paging.shown >= paging.total and paging.next_cursor is None and not paging.capped
    )
    scopes: list[tuple[str, int]] = []
    if partial and scope_counts is not None:
        scopes = sorted(scope_counts, key=lambda item: (-item[1], item[0]))[:BUSIEST]
    elif partial:
        scopes = busiest_scopes(paths)
    base = {key: value for key, value in arguments.items() if key != "cursor"}
    narrow = None
    if scopes and scopes[0][0] != base.get(scope_argument):
        narrow = FollowUp(tool, {**base, scope_argument: scopes[0][0]})
    following = None
    if paging.next_cursor is not None:
        following = FollowUp(tool, {**arguments, "cursor": paging.next_cursor})
    return Page(
        noun=paging.noun,
        first=paging.first,
        shown=paging.shown,
        total=paging.total,
        capped=paging.capped,
        partial=partial,
        busiest=[ScopeCount(scope, count) for scope, count in scopes],
        narrow=narrow,
        next_cursor=paging.next_cursor,
        next=following,
    )


def paging_footer(
    paging: Paging,
    *,
    tool: str,
    arguments: Mapping[str, object],
    paths: Iterable[str],
    scope_argument: str = "scope",
) -> str:
    """The footer for a partial answer ("" when everything was shown).

    ``paths`` are the paths of all the results counted (not only those shown); ``arguments`` are
    the call's own, which the follow-up calls keep except for the scope and the cursor.
    """
    return footer_of(page_of(paging, tool=tool, arguments=arguments, paths=paths, scope_argument=scope_argument))


def footer_of(page: Page) -> str:
    """The Markdown of a :class:`Page`: "" for a whole answer."""
    if not page.partial:
        return ""
    total = f"at least {page.total}" if page.capped else str(page.total)
    if page.first and not page.shown:  # a cursor past the last page of a cut walk, with nothing deeper
        lines = ["---", f"Shown no more {page.noun}: all {total} were on the pages before."]
    elif page.first:
        lines = ["---", f"Shown {page.noun} {page.first + 1}-{page.first + page.shown} of {total}."]
    else:
        lines = ["---", f"Shown {page.shown} of {total} {page.noun}."]
    if page.busiest:
        listed = ", ".join(f"{code(item.scope)} ({item.count})" for item in page.busiest)
        lines.append(f"Busiest scopes: {listed}.")
        if page.narrow is not None:
            lines.append(f"Narrow to the busiest: {call_text(page.narrow.tool, page.narrow.arguments)}")
    if page.next is not None:
        lines.append(f"Next page: {call_text(page.next.tool, page.next.arguments)}")
    return "\n".join(lines) + "\n"
