"""The Markdown of a text search: matches grouped by file, a page at a time, within a byte budget.

The ranked matches (definitions first, then code before tests and docs) are taken from ``offset``
while the page stays within ``page_bytes`` (at least one): a page is a prefix of the ranked list,
so the next cursor neither skips nor repeats a match. They are shown grouped by file, files in the
order of their best match, each file's lines in order.
A partial page ends with the footer of :mod:`._paging` (shown of total, busiest scopes, the call
that narrows, the call for the next page). Same matches and arguments, same bytes.

:func:`compose_search` gives the same page as a :class:`SearchResult` too (the structured result).

Every page also says what the search could not read in its scope (:class:`NotSearched`): how
many files and folders were left out of the index, by reason, a few of them, the lines generated
files would have matched, and the ``mesh.toml`` setting that lets them in. Paths left out by the
workspace's own ignore rules are listed only when nothing matched. A scope that reads two ways (a
service named like a folder) says which reading was taken and gives the call for the other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Final, Literal

import attrs

from ..index.query._search import Found, LeftOut, Match, NotSearched, Ranked
from ._paging import FollowUp, Page, Paging, Rendered, call_text, code, escape_controls, footer_of, page_of

__all__ = ["PAGE_BYTES", "ScopeReading", "SearchResult", "compose_search", "render_search"]

#: About what one page of results may take.
PAGE_BYTES: Final = 8 * 1024
#: A matching line longer than this is shown cut, with an ellipsis.
LINE_CHARS_MAX: Final = 200
TOOL: Final = "smart_search"
#: What lets each kind of left-out path into the index ("" when nothing does).
_REMEDY: Final = {
    "generated": "`include_vendored = true` in `mesh.toml` `[index]`",
    "vendored": "`include_vendored = true` in `mesh.toml` `[index]`",
    "secrets": "`include_secrets = true` in `mesh.toml` `[index]`",
    "too large": "a larger `max_file_bytes` in `mesh.toml` `[index]`",
    "ignored": "a `!pattern` line in a `.meshignore` (or fewer `ignore`/`exclude` patterns in `mesh.toml`)",
}
_NOUN: Final = {
    "generated": "generated",
    "vendored": "vendored or generated",
    "secrets": "secret-looking",
    "binary": "binary",
    "ignored": "ignored",
    "unreadable": "unreadable",
}


@attrs.frozen
class ScopeReading:
    """How a scope that reads two ways was read: as a service or as a folder, and the other reading."""

    #: The scope as given.
    scope: str
    #: "service" or "folder": the reading taken.
    taken: str
    #: The service's folder (for the service reading, or the service the other reading names).
    service_path: str
    #: The scope argument that asks for the other reading.
    other: str


@attrs.frozen
class ScopeTaken:
    """How a scope that reads two ways was read, and the call for the other reading."""

    scope: str
    taken: Literal["service", "folder"]
    service_path: str
    other: str
    other_call: FollowUp


@attrs.frozen
class GeneratedCount:
    path: str
    count: int


@attrs.frozen
class LeftOutGroup:
    """Files and folders of the scope left out of the index for one reason, as the answer lists them."""

    reason: str
    files: int
    folders: int
    #: A few of them (none for secret-looking files, never named).
    examples: list[str]
    #: For files too large: the limit they passed.
    detail: str
    #: What lets them into the index ("" when nothing does).
    remedy: str


@attrs.frozen
class LeftOutFacts:
    """What the search could not read in its scope."""

    left_out: list[LeftOutGroup]
    #: Lines of generated files left out of the index that the query matches, in how many files, the
    #: busiest of them, and how many generated files were not read (changed, or over the budget).
    generated_matches: int
    generated_files_matched: int
    generated_matched: list[GeneratedCount]
    generated_uncounted: int


@attrs.frozen
class SearchResult:
    """A page of ``smart_search``: the matches shown, ranked (definitions first), and the counts."""

    query: str
    #: ``definitions`` in symbol mode (each match defines a symbol), else ``matches``.
    noun: Literal["matches", "definitions"]
    #: Every match (``capped``: at least), and the files holding them.
    total: int
    capped: bool
    files: int
    scope_reading: ScopeTaken | None
    #: This page's matches in ranked order (a line's text as shown: stripped, cut past 200 chars).
    matches: list[Match]
    not_searched: LeftOutFacts
    page: Page
    #: With ``context``: the lines around this page's matches, windows that touch merged.
    context: list[ContextBlock] = attrs.field(factory=list)
    #: Candidate files (those the trigram index and the filters let through), and how many were
    #: not read: reading stops once the page is known (INV-SEARCH-3); then ``total`` and ``files``
    #: count what was read (``capped``), and ``estimate`` and ``estimate_files`` say about how many
    #: matches and files all the candidates hold (the rates of the files read). 0 unread: exact.
    candidates: int = 0
    unread: int = 0
    estimate: int = 0
    estimate_files: int = 0


@attrs.frozen
class ContextBlock:
    """Lines ``first``..``first + len(lines) - 1`` of ``path``, around one or more matches."""

    path: str
    first: int
    lines: list[str]
    #: The lines of the block that match.
    matched: list[int]


def render_search(
    found: Found,
    arguments: Mapping[str, object],
    *,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
    symbols: bool = False,
    not_searched: NotSearched | None = None,
    scope: ScopeReading | None = None,
) -> str:
    """One page of ``found`` from ``offset``; ``arguments`` are the call's (for the follow-up calls).

    With ``symbols``, the matches are definitions (``mode`` ``symbol``): each line names one.
    ``not_searched`` is what the search could not read in its scope; ``scope``, how a scope that
    reads two ways was read.
    """
    return compose_search(
        found,
        arguments,
        offset=offset,
        page_bytes=page_bytes,
        symbols=symbols,
        not_searched=not_searched,
        scope=scope,
    ).text


def compose_search(
    found: Found | Ranked,
    arguments: Mapping[str, object],
    *,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
    symbols: bool = False,
    not_searched: NotSearched | None = None,
    scope: ScopeReading | None = None,
    context: int = 0,
    read_lines: Callable[[str], list[str] | None] | None = None,
) -> Rendered:
    """:func:`render_search`, with the :class:`SearchResult` of the same page.

    With ``context`` (and ``read_lines``, a file's lines by path), each match comes with that many
    lines before and after it, windows of one file that touch merged into one block (``N:`` a
    matching line, ``N-`` a line around it, as ``grep -n -C`` writes them), all within the page."""
    query = str(arguments.get("query", ""))
    noun: Literal["matches", "definitions"] = "definitions" if symbols else "matches"
    lazy = found if isinstance(found, Ranked) else None
    if lazy is not None:
        lazy.at(offset)  # the first match of the page: whether there is one, and the head's counts so far
        found = lazy.found()
    head = _head(query, found, noun, scope, arguments)
    total = len(found.matches)
    left = not_searched if not_searched is not None else NotSearched()
    note = _not_searched_note(left, symbols=symbols, nothing_found=total == 0)
    line_of = _symbol_line if symbols else _match_line
    texts: dict[str, list[str] | None] = {}
    if context and read_lines is not None and not symbols:

        def lines_of(path: str) -> list[str] | None:
            if path not in texts:
                texts[path] = read_lines(path)
            return texts[path]

        def line_of(match: Match) -> str:  # the match with its window, costed whole (merging only saves)
            return _match_line(match) + _window_text(lines_of(match.path), match.line, context)
    # The page is a prefix of the ranked list (so the next cursor skips nothing and repeats
    # nothing), shown grouped by file in the order of each file's best match.
    used = len(head.encode()) + len(note.encode())
    groups: dict[str, list[Match]] = {}
    page: list[Match] = []
    for match in _from(lazy, found, offset) if total else ():
        cost = len(line_of(match).encode()) + (0 if match.path in groups else len(_title(match).encode()))
        if page and used + cost > page_bytes:
            break
        groups.setdefault(match.path, []).append(match)
        page.append(match)
        used += cost
    if lazy is not None:  # read as far as the page (and the match after it): the counts of what was read
        found = lazy.found()
        head = _head(query, found, noun, scope, arguments)
        total = len(found.matches)
    end = offset + len(page)
    paging = Paging(
        shown=len(page),
        total=total,
        noun=noun,
        next_cursor=str(end) if end < total else None,
        capped=found.capped,
        first=offset,
    )
    facts = page_of(paging, tool=TOOL, arguments=arguments, paths=[m.path for m in found.matches])
    result = SearchResult(
        query=query,
        noun=noun,
        total=total,
        capped=found.capped,
        files=found.files,
        scope_reading=None if scope is None else _scope_taken(scope, arguments),
        matches=[attrs.evolve(match, text=_shown_text(match, symbols)) for match in page],
        not_searched=_left_out_facts(left, nothing_found=total == 0),
        page=facts,
        candidates=found.candidates,
        unread=found.unread,
        estimate=found.estimate,
        estimate_files=found.estimate_files,
    )
    if total == 0:
        return Rendered(head + "\n" + _no_match(left, symbols) + (f"\n{note}" if note else ""), result)
    parts = [head]
    blocks: list[ContextBlock] = []
    for matches in groups.values():
        ordered = sorted(matches, key=lambda m: m.line)
        lines = texts.get(matches[0].path) if texts else None
        if lines is not None:
            file_blocks = _blocks(matches[0].path, lines, [m.line for m in ordered], context)
            blocks += file_blocks
            parts.append(_title(matches[0]) + "".join(_block_text(block) for block in file_blocks))
        else:
            parts.append(_title(matches[0]) + "".join(_match_line(m) if texts else line_of(m) for m in ordered))
    result = attrs.evolve(result, context=blocks)
    footer = footer_of(facts)
    return Rendered("".join(parts) + (f"\n{note}" if note else "") + ("\n" + footer if footer else ""), result)


def _head(
    query: str, found: Found, noun: str, scope: ScopeReading | None, arguments: Mapping[str, object]
) -> str:
    """The title (the counts of what was read), what was not read yet, how a two-way scope was read."""
    files = f"{found.files} file" + ("" if found.files == 1 else "s")
    head = f"## {code(query)}: {len(found.matches)}{'+' if found.capped else ''} {noun} in {files}\n"
    if found.unread:
        head += (
            f"\nAbout {found.estimate:,} {noun} in {found.estimate_files:,} files; {found.unread:,} of"
            f" {found.candidates:,} candidate files not yet read (reading stopped once this page was known,"
            " after the definitions; a later page reads further).\n"
        )
    if scope is not None:
        head += "\n" + _scope_line(scope, arguments)
    return head


def _from(lazy: Ranked | None, found: Found, offset: int) -> Iterator[Match]:
    """The ranked matches from ``offset``: those of ``found``, or read as far as they are taken."""
    if lazy is None:
        yield from found.matches[offset:]
        return
    index = offset
    while (match := lazy.at(index)) is not None:
        yield match
        index += 1


def _window_text(lines: list[str] | None, line: int, context: int) -> str:
    if lines is None:
        return ""
    first, last = max(1, line - context), min(len(lines), line + context)
    return "".join(f"{number}- {lines[number - 1]}\n" for number in range(first, last + 1))


def _blocks(path: str, lines: list[str], matched: list[int], context: int) -> list[ContextBlock]:
    """The windows of ``context`` lines around each matched line, merged where they touch."""
    spans: list[list[int]] = []
    for line in matched:
        first, last = max(1, line - context), min(len(lines), line + context)
        if spans and first <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], last)
        else:
            spans.append([first, last])
    return [
        ContextBlock(path, first, [_cut_line(lines[number - 1]) for number in range(first, last + 1)],
                     [line for line in matched if first <= line <= last])
        for first, last in spans
    ]  # fmt: skip


def _cut_line(text: str) -> str:
    return text[: LINE_CHARS_MAX - 1] + "…" if len(text) > LINE_CHARS_MAX else text


def _block_text(block: ContextBlock) -> str:
    fence = "````" if any("```" in line for line in block.lines) else "```"
    body = "".join(
        f"{number}{':' if number in block.matched else '-'} {line}\n"
        for number, line in enumerate(block.lines, start=block.first)
    )
    return f"{fence}\n{escape_controls(body)}{fence}\n"


def _scope_taken(scope: ScopeReading, arguments: Mapping[str, object]) -> ScopeTaken:
    again = {key: value for key, value in arguments.items() if key != "cursor"} | {"scope": scope.other}
    taken: Literal["service", "folder"] = "service" if scope.taken == "service" else "folder"
    return ScopeTaken(scope.scope, taken, scope.service_path, scope.other, FollowUp(TOOL, again))


def _left_out_facts(left: NotSearched, *, nothing_found: bool) -> LeftOutFacts:
    """The groups :func:`_not_searched_note` lists, and the generated files' counts."""
    groups = [
        LeftOutGroup(
            reason=item.reason,
            files=item.files,
            folders=item.folders,
            examples=[] if item.reason == "secrets" else list(item.examples),
            detail=item.detail,
            remedy=_REMEDY.get(item.reason, ""),
        )
        for item in left.left_out
        if item.reason != "ignored" or nothing_found
    ]
    return LeftOutFacts(
        left_out=groups,
        generated_matches=left.generated_matches,
        generated_files_matched=left.generated_files_matched,
        generated_matched=[GeneratedCount(path, count) for path, count in left.generated_matched],
        generated_uncounted=left.generated_uncounted,
    )


def _shown_text(match: Match, symbols: bool) -> str:
    """A match's line as the page shows it."""
    if symbols:
        return match.text
    text = match.text.strip()
    return text[: LINE_CHARS_MAX - 1] + "…" if len(text) > LINE_CHARS_MAX else text


def _scope_line(scope: ScopeReading, arguments: Mapping[str, object]) -> str:
    """Which reading of a two-way scope was taken, and the call for the other."""
    again = {key: value for key, value in arguments.items() if key != "cursor"} | {"scope": scope.other}
    other_call = call_text(TOOL, again)
    if scope.taken == "service":
        return (
            f"Scope {code(scope.scope)} read as the service {code(scope.scope)} (folder {code(scope.service_path)}),"
            f" not the folder {code(scope.other)}; to search the folder: {other_call}\n"
        )
    return (
        f"Scope {code(scope.scope)} read as the folder {code(scope.scope)}, not the service {code(scope.other)}"
        f" (folder {code(scope.service_path)}); to search the service: {other_call}\n"
    )


def _no_match(left: NotSearched, symbols: bool) -> str:
    """The sentence of an answer with no result: never a bare "no match" when generated code matches."""
    if left.generated_matches:
        files = _plural(left.generated_files_matched, "generated file")
        where = "the name occurs on" if symbols else "the query matches"
        return (
            f"Nothing in the indexed files, but {where} {_plural(left.generated_matches, 'line')} of {files}"
            f" left out of the index: {_matched(left)}{_unread(left)}. To index generated code:"
            f" {_REMEDY['generated']}.\n"
        )
    if symbols:
        return "No definition has this name. Try `mode` `literal` to find uses, or widen `scope`.\n"
    return "No match. Try `mode` `regex` or a shorter query, or widen `scope`.\n"


def _not_searched_note(left: NotSearched, *, symbols: bool, nothing_found: bool) -> str:
    """The list of what was left out in the scope ("" when nothing was): one line per reason."""
    lines = []
    for item in left.left_out:
        if item.reason == "ignored" and not nothing_found:
            continue  # the workspace's own rules: worth a word only when nothing matched
        counts = not (nothing_found and left.generated_matches)  # else the opening sentence gave them
        lines.append(f"- {_left_out_line(item, left, symbols, counts)}\n")
    if not lines:
        return ""
    return "Not searched here (left out of the index):\n" + "".join(lines)


def _left_out_line(item: LeftOut, left: NotSearched, symbols: bool, generated_counts: bool) -> str:
    counts = []
    if item.reason == "too large":
        counts.append(_plural(item.files, "file") + " " + item.detail)
    else:
        noun = _NOUN.get(item.reason, item.reason)
        if item.files:
            counts.append(f"{_plural(item.files, noun + ' file')}")
        if item.folders:
            counts.append(f"{_plural(item.folders, noun + ' folder')}")
    text = " and ".join(counts)
    if item.reason == "secrets":
        text += " (never read)"
    elif item.examples:
        shown = ", ".join(code(path) for path in item.examples)
        more = item.files + item.folders - len(item.examples)
        text += f": {shown}" + (f" and {more} more" if more > 0 else "")
    if item.reason == "generated" and generated_counts:
        text += "; " + _generated_counts(left, symbols)
    remedy = _REMEDY.get(item.reason)
    if remedy:
        text += f"; to index: {remedy}"
    elif item.reason == "binary":
        text += " (not text)"
    return text


def _generated_counts(left: NotSearched, symbols: bool) -> str:
    """What the generated files left out hold for this query."""
    where = "the name occurs on" if symbols else "the query matches"
    if left.generated_matches:
        text = f"{where} {_plural(left.generated_matches, 'line')} there: {_matched(left)}"
    else:
        text = f"{where} no line there"
    return text + _unread(left)


def _unread(left: NotSearched) -> str:
    if not left.generated_uncounted:
        return ""
    return f" ({_plural(left.generated_uncounted, 'file')} not read: changed since indexed, or over the read budget)"


def _matched(left: NotSearched) -> str:
    shown = ", ".join(f"{code(path)} ({count})" for path, count in left.generated_matched)
    more = left.generated_files_matched - len(left.generated_matched)
    return shown + (f" and {more} more" if more > 0 else "")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _title(match: Match) -> str:
    about = ", ".join(part for part in (match.service, match.language, match.kind) if part)
    return f"\n{code(match.path)} ({about})\n"


def _symbol_line(match: Match) -> str:
    return f"- {match.line}: {match.definition} {code(match.text)}\n"


def _match_line(match: Match) -> str:
    text = _shown_text(match, symbols=False)
    if match.definition:
        about = f" — defines {match.definition}"
    elif match.enclosing:
        about = f" — in {code(match.enclosing)}"
    else:
        about = ""
    return f"- {match.line}: {code(text) if text else '(blank)'}{about}\n"
