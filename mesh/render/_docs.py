"""The Markdown of ``doc_sections``: section trees, heading candidates and section text, a page at a time.

Four answers, each within a page budget (``PAGE_BYTES``, well inside the registry's 48 KB bound),
each ending, when it shows only part of what there is, with the footer of :mod:`._paging` (shown of
total, what to narrow to, the call for the next page):

- **Trees of several files** (a folder, the workspace): whole files while they fit, in path order;
  cursor ``file:N``. A file that does not fit starts the next page; one that does not fit even
  there is cut, with the call that pages through that one file. Rows are made only as far as the
  page goes. The busiest scopes are path scopes, narrowed with ``path``.
- **The tree of one file**: its sections while they fit; cursor ``section:N`` (the N-th section
  shown at that depth). The busiest are the sections with the most subsections.
- **Heading candidates**: the ranked matches while they fit; cursor ``match:N``.
- **A section's text**, as the raw Markdown of its lines (so its headings, lists and code render
  as in the doc), after a header with its breadcrumb, parent, siblings and subsections. Cursor
  ``line:N``: the page starts at line N of the file. Lines are cut only on line boundaries (a
  single line longer than a page is shown cut, once), a code fence open at the cut is closed and
  opened again, with its info string, at the top of the next page, so no page leaves a fence
  open and following the cursors shows every line of the section exactly once. Blank lines at the
  end of a section are left out. With a ``depth``, the subsections that deep are left out of the
  text and a one-line marker stands where each was.

Every id printed is a qualified id (``<path>#<section id>``): exactly what ``section_id`` takes.
Same rows and arguments, same bytes. Each ``render_*`` has a ``compose_*`` twin that gives the same
page as a :class:`DocsResult` too (the structured result).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Literal

import attrs

from ..index.query._docs_query import DocFile, DocSection, HeadingMatch, Outline
from ._paging import FollowUp, Page, Paging, Rendered, ScopeCount, call_text, code, page_of, paging_footer

__all__ = [
    "PAGE_BYTES",
    "TOOL",
    "Cursor",
    "DocsResult",
    "compose_matches",
    "compose_outline",
    "compose_section",
    "compose_tree",
    "parse_cursor",
    "render_matches",
    "render_outline",
    "render_section",
    "render_tree",
]

#: About what one page of an answer may take.
PAGE_BYTES: Final = 16 * 1024
TOOL: Final = "doc_sections"
#: How many ranked matches a section found by heading names besides itself.
OTHER_MATCHES_MAX: Final = 5
#: How many busiest sections a footer names.
BUSIEST: Final = 3

# CommonMark: up to three spaces of indent, then three or more backticks or tildes.
_FENCE: Final = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_CURSOR: Final = re.compile(r"(file|section|match|line):([0-9]{1,9})")
_HOW: Final = {"exact": "same title", "substring": "title holds it", "close": "close spelling"}

Load = Callable[[DocFile], Outline]


@attrs.frozen
class Cursor:
    """Where a page starts: ``file:N``, ``section:N``, ``match:N`` (0-based) or ``line:N`` (1-based)."""

    kind: str
    number: int

    def __str__(self) -> str:
        return f"{self.kind}:{self.number}"


def parse_cursor(text: str) -> Cursor:
    """The cursor an answer printed; ``ValueError`` for anything else."""
    match = _CURSOR.fullmatch(text.strip())
    if match is None:
        raise ValueError(text)
    return Cursor(match.group(1), int(match.group(2)))


@attrs.frozen
class SectionRow:
    """A section as an answer lists it."""

    #: The qualified id (``<path>#<section id>``): what ``section_id`` takes.
    id: str
    title: str
    #: Its level in the file's tree: 1 for a top section (whatever its ``#``).
    depth: int
    line: int
    end_line: int
    #: For a tree row: how many subsections sit deeper than the tree shows.
    deeper: int


@attrs.frozen
class DocFileShown:
    """A Markdown file of a tree answer, with the rows of its tree shown."""

    path: str
    lines: int
    #: Why the file could not be parsed ("" when it was).
    error: str
    #: The rows shown (a file alone on its page may be cut), and how many it has to the depth asked.
    sections: list[SectionRow]
    sections_total: int
    #: For a cut file: the call that pages through the rest of it.
    rest: FollowUp | None


@attrs.frozen
class HeadingCandidate:
    """A section whose title matches the heading looked for."""

    section: SectionRow
    #: The titles of the sections holding it, outermost first.
    under: list[str]
    #: How it matched, in words (``same title``, ``title holds 2 of 3 words``...).
    how: str


@attrs.frozen
class MatchRef:
    """Another section the heading matched."""

    id: str
    title: str
    how: str


@attrs.frozen
class SectionText:
    """A section's text, a page at a time, with where it sits."""

    section: SectionRow
    #: The titles of the sections holding it, outermost first.
    under: list[str]
    up: SectionRow | None
    previous: SectionRow | None
    next: SectionRow | None
    #: Its subsections as the header lists them, and how many it has.
    subsections: list[SectionRow]
    subsections_total: int
    #: Subsections left out of the text at the ``depth`` asked (each with the id to read it).
    left_out: list[SectionRow]
    #: The file's line this page starts at, and the page's text (the section's raw Markdown, lines
    #: joined by newlines; a code fence open at a cut is closed, and opened again on the next page).
    start_line: int
    text: str
    #: The line the next page starts at, None on the last page.
    continues_at: int | None
    #: Found by heading: the ranked matches (this section first, then the first few), and how many.
    matched: list[MatchRef]
    matched_total: int


@attrs.frozen
class DocsResult:
    """A page of ``doc_sections``: section trees, heading candidates, or a section's text."""

    #: ``tree`` (the files under a folder or the workspace), ``outline`` (one file's tree),
    #: ``matches`` (headings that tie) or ``section`` (a section's text).
    kind: Literal["tree", "outline", "matches", "section"]
    #: The files shown (one for an outline), and how many files the answer is about.
    files: list[DocFileShown]
    files_total: int
    #: Sections deeper than the trees show.
    hidden: int
    matches: list[HeadingCandidate]
    matches_total: int
    section: SectionText | None
    page: Page


def _row(outline: Outline, section: DocSection, deeper: int = 0) -> SectionRow:
    depth = outline.depth(section)
    return SectionRow(section.qualified, _title(section), depth, section.line, section.end_line, deeper)


def _deeper(outline: Outline, section: DocSection, depth: int) -> int:
    """How many subsections of a row sit deeper than a tree shown to ``depth`` levels."""
    return len(outline.descendants(section)) if outline.depth(section) == depth else 0


def _candidate(outline: Outline, match: HeadingMatch) -> HeadingCandidate:
    return HeadingCandidate(
        _row(outline, match.section), [_title(s) for s in outline.ancestors(match.section)], _how(match)
    )


def _docs_page(
    paging: Paging,
    arguments: Mapping[str, object],
    busiest: Sequence[tuple[DocSection, int]] = (),
    narrow: Mapping[str, object] | None = None,
    paths: Sequence[str] = (),
) -> Page:
    """The :class:`Page` of a docs answer; busiest sections (and the call narrowed to the first) when given."""
    page = page_of(paging, tool=TOOL, arguments=arguments, paths=paths, scope_argument="path")
    if not page.partial or not busiest:
        return page
    return attrs.evolve(
        page,
        busiest=[ScopeCount(section.qualified, count) for section, count in busiest],
        narrow=FollowUp(TOOL, {"section_id": busiest[0][0].qualified, **(narrow or {})}),
    )


# -- trees -------------------------------------------------------------------------------------


def render_tree(
    files: Sequence[DocFile],
    load: Load,
    *,
    arguments: Mapping[str, object],
    folder: str,
    depth: int,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
) -> str:
    """The section trees of ``files`` (those under ``folder``, "" for the workspace) from the
    ``offset``-th, to ``depth`` levels; ``load`` gives a file's outline (only pages' files are loaded)."""
    return compose_tree(
        files, load, arguments=arguments, folder=folder, depth=depth, offset=offset, page_bytes=page_bytes
    ).text


def compose_tree(
    files: Sequence[DocFile],
    load: Load,
    *,
    arguments: Mapping[str, object],
    folder: str,
    depth: int,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
) -> Rendered:
    """:func:`render_tree`, with the :class:`DocsResult` of the same page."""
    where = f" under {code(folder)}" if folder else ""
    head = (
        f"## Docs{where}: {_count(len(files), 'Markdown file')}, section trees to depth {depth}\n\n"
        "Pass an id as `section_id` for that section's text.\n"
    )
    parts = [head]
    used = len(head.encode())
    shown = 0
    hidden = 0
    shown_files: list[DocFileShown] = []
    for file in files[offset:]:
        tree = load(file)
        visible = [section for section in tree.sections if tree.depth(section) <= depth]
        title = _file_title(file, len(visible))
        room = page_bytes - used - len(title.encode())
        rows: list[str] = []
        size = 0
        for section in visible:  # rows are made only as far as the page goes
            row = _tree_row(tree, section, depth)
            if size + len(row.encode()) > room and (shown or rows):
                break
            rows.append(row)
            size += len(row.encode())
        taken = len(rows)
        rest = None
        if len(rows) < len(visible) or (shown and room < 0):
            if shown:
                break  # the whole file goes on the next page
            # Alone on its page and still too long: cut, with the call that pages through the rest.
            rest = FollowUp(TOOL, {"path": file.path, "depth": depth, "cursor": str(Cursor("section", len(rows)))})
            rows.append(f"- … {_count(len(visible) - len(rows), 'more section')}: {call_text(TOOL, rest.arguments)}\n")
        parts.append(title + "".join(rows))
        used += len(parts[-1].encode())
        hidden += len(tree.sections) - len(visible)
        shown += 1
        shown_files.append(
            DocFileShown(
                file.path,
                file.lines,
                file.error,
                [_row(tree, section, _deeper(tree, section, depth)) for section in visible[:taken]],
                len(visible),
                rest,
            )
        )
    if hidden:
        parts.append(f"\n{_count(hidden, 'deeper section')} not shown: raise `depth` (up to 6) to see them.\n")
    end = offset + shown
    paging = Paging(
        shown=shown,
        total=len(files),
        noun="files",
        next_cursor=str(Cursor("file", end)) if end < len(files) else None,
        first=offset,
    )
    paths = [file.path for file in files]
    footer = paging_footer(paging, tool=TOOL, arguments=arguments, paths=paths, scope_argument="path")
    result = DocsResult(
        kind="tree",
        files=shown_files,
        files_total=len(files),
        hidden=hidden,
        matches=[],
        matches_total=0,
        section=None,
        page=_docs_page(paging, arguments, paths=paths),
    )
    return Rendered("".join(parts) + ("\n" + footer if footer else ""), result)


def render_outline(
    outline: Outline,
    *,
    arguments: Mapping[str, object],
    depth: int | None,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
) -> str:
    """The section tree of one file, to ``depth`` levels (all for ``None``), from its ``offset``-th row."""
    return compose_outline(outline, arguments=arguments, depth=depth, offset=offset, page_bytes=page_bytes).text


def compose_outline(
    outline: Outline,
    *,
    arguments: Mapping[str, object],
    depth: int | None,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
) -> Rendered:
    """:func:`render_outline`, with the :class:`DocsResult` of the same page."""
    limit = depth or 6
    visible = [section for section in outline.sections if outline.depth(section) <= limit]
    hidden = len(outline.sections) - len(visible)
    shown_depth = f", tree to depth {depth}" if depth else ""
    head = (
        f"## {code(outline.file.path)}: {_count(len(outline.sections), 'section')}, "
        f"{_count(outline.file.lines, 'line')}{shown_depth}\n\n"
        "Pass an id as `section_id` for that section's text.\n\n"
    )
    parts = [head]
    used = len(head.encode())
    for section in visible[offset:]:  # rows are made only as far as the page goes
        row = _tree_row(outline, section, limit)
        if len(parts) > 1 and used + len(row.encode()) > page_bytes:
            break
        parts.append(row)
        used += len(row.encode())
    end = offset + len(parts) - 1
    if hidden:
        parts.append(f"\n{_count(hidden, 'deeper section')} not shown: raise `depth` (up to 6) to see them.\n")
    paging = Paging(
        shown=end - offset,
        total=len(visible),
        noun="sections",
        next_cursor=str(Cursor("section", end)) if end < len(visible) else None,
        first=offset,
    )
    busiest_lines: list[str] = []
    busiest: list[tuple[DocSection, int]] = []
    if offset or end < len(visible):
        busiest = _busiest_sections(_top_level(outline), count=lambda s: len(outline.descendants(s)))
        busiest_lines = _busiest_lines(busiest, "subsection", narrow={"depth": 1})
    footer = _footer(paging, arguments, busiest_lines)
    file = outline.file
    rows = [_row(outline, section, _deeper(outline, section, limit)) for section in visible[offset:end]]
    result = DocsResult(
        kind="outline",
        files=[DocFileShown(file.path, file.lines, file.error, rows, len(visible), None)],
        files_total=1,
        hidden=hidden,
        matches=[],
        matches_total=0,
        section=None,
        page=_docs_page(paging, arguments, busiest, {"depth": 1}),
    )
    return Rendered("".join(parts) + ("\n" + footer if footer else ""), result)


def _tree_row(outline: Outline, section: DocSection, depth: int) -> str:
    """A section's row in a tree shown to ``depth`` levels: indented by its level, with how many
    subsections sit deeper than the tree goes."""
    level = outline.depth(section)
    below = len(outline.descendants(section)) if level == depth else 0
    note = f"; {_count(below, 'subsection')} deeper" if below else ""
    return f"{'  ' * (level - 1)}- {_entry(section)}{note})\n"


def _file_title(file: DocFile, rows: int) -> str:
    if file.error:
        return f"\n{code(file.path)}: not parsed ({file.error})\n"
    if not rows:
        return f"\n{code(file.path)}: {_count(file.lines, 'line')}, no headings\n"
    return f"\n{code(file.path)}: {_count(file.lines, 'line')}\n"


def _entry(section: DocSection) -> str:
    """``Title — `id` (lines a-b`` (the caller closes the parenthesis)."""
    return f"{_title(section)} — {code(section.qualified)} (lines {section.line}-{section.end_line}"


# -- heading candidates --------------------------------------------------------------------------


def render_matches(
    matches: Sequence[HeadingMatch],
    load: Load,
    *,
    arguments: Mapping[str, object],
    heading: str,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
) -> str:
    """The ranked ``matches`` of ``heading`` from the ``offset``-th, when no one of them clearly wins."""
    return compose_matches(
        matches, load, arguments=arguments, heading=heading, offset=offset, page_bytes=page_bytes
    ).text


def compose_matches(
    matches: Sequence[HeadingMatch],
    load: Load,
    *,
    arguments: Mapping[str, object],
    heading: str,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
) -> Rendered:
    """:func:`render_matches`, with the :class:`DocsResult` of the same page."""
    best = sum(1 for match in matches if match.ties(matches[0]))
    head = (
        f"## Headings like {code(heading)}: {_count(len(matches), 'section')}\n\n"
        f"{best} match equally well ({_how(matches[0])}); none wins, so here are the candidates."
        " Pass one's id as `section_id` for its text.\n\n"
    )
    outlines: dict[str, Outline] = {}
    used = len(head.encode())
    rows = []
    candidates: list[HeadingCandidate] = []
    for match in matches[offset:]:
        if match.file.path not in outlines:
            outlines[match.file.path] = load(match.file)
        ancestors = outlines[match.file.path].ancestors(match.section)
        under = f", under {_crumbs(ancestors)}" if ancestors else ""
        row = f"- {_entry(match.section)}{under}; {_how(match)})\n"
        if rows and used + len(row.encode()) > page_bytes:
            break
        rows.append(row)
        candidates.append(_candidate(outlines[match.file.path], match))
        used += len(row.encode())
    end = offset + len(rows)
    paging = Paging(
        shown=len(rows),
        total=len(matches),
        noun="sections",
        next_cursor=str(Cursor("match", end)) if end < len(matches) else None,
        first=offset,
    )
    paths = [m.section.path for m in matches]
    footer = paging_footer(paging, tool=TOOL, arguments=arguments, paths=paths, scope_argument="path")
    result = DocsResult(
        kind="matches",
        files=[],
        files_total=len({m.section.path for m in matches}),
        hidden=0,
        matches=candidates,
        matches_total=len(matches),
        section=None,
        page=_docs_page(paging, arguments, paths=paths),
    )
    return Rendered(head + "".join(rows) + ("\n" + footer if footer else ""), result)


# -- section text --------------------------------------------------------------------------------


@attrs.frozen
class _Item:
    """One thing of a section's text: line ``number`` of the file, or the marker of a ``left_out`` subsection."""

    number: int
    left_out: DocSection | None = None


def render_section(
    outline: Outline,
    section: DocSection,
    lines: Sequence[str],
    *,
    arguments: Mapping[str, object],
    depth: int | None = None,
    start: int | None = None,
    matched: Sequence[HeadingMatch] = (),
    page_bytes: int = PAGE_BYTES,
) -> str:
    """One page of ``section``'s text (``lines`` are its file's), from line ``start`` (its first when None).

    ``depth`` leaves out the subsections that many levels down; ``matched`` (when the section was
    found by heading) is the ranked list of matches, this section first. ``ValueError`` when
    ``start`` is not a line of the section's text.
    """
    return compose_section(
        outline,
        section,
        lines,
        arguments=arguments,
        depth=depth,
        start=start,
        matched=matched,
        page_bytes=page_bytes,
    ).text


def compose_section(
    outline: Outline,
    section: DocSection,
    lines: Sequence[str],
    *,
    arguments: Mapping[str, object],
    depth: int | None = None,
    start: int | None = None,
    matched: Sequence[HeadingMatch] = (),
    page_bytes: int = PAGE_BYTES,
) -> Rendered:
    """:func:`render_section`, with the :class:`DocsResult` of the same page."""
    items = _items(outline, section, lines, depth)
    first = 0 if start is None else _position(items, start)
    fence, opened_at = _fence_before(items, first, lines)
    if first == 0:
        head = _section_head(outline, section, depth, matched, str(arguments.get("heading", "")), page_bytes)
    else:
        inside = f", inside a code block opened at line {opened_at}" if fence else ""
        head = (
            f"## {_title(section)} — {code(section.qualified)} (continued)\n\n"
            f"{code(section.path)} lines {section.line}-{section.end_line}; this page starts at line "
            f"{items[first].number}{inside}.\n\n"
        )
    body: list[str] = []
    if fence:
        body.append(lines[opened_at - 1] + "\n")
    used = len(head.encode()) + sum(len(part.encode()) for part in body)
    shown = 0
    position = first
    last_blank = True
    raw: list[str] = []
    left_out: list[SectionRow] = []
    while position < len(items):
        item = items[position]
        if item.left_out is not None:
            marker = (
                f"{'' if last_blank else chr(10)}_[{_entry(item.left_out)}) is left out at depth {depth}: "
                f"pass its id as `section_id` to read it.]_\n\n"
            )
            if shown and used + len(marker.encode()) > page_bytes:
                break
            body.append(marker)
            left_out.append(_row(outline, item.left_out))
            used += len(marker.encode())
            last_blank = True
            position += 1
            continue
        text = lines[item.number - 1]
        after = _fence_after(fence, text)
        size = len(text.encode()) + 1 + (len(after) + 1 if after else 0)
        if shown and used + size > page_bytes:
            break
        if not shown and used + size > page_bytes and len(text) > 80:
            text = _cut_line(text, max(page_bytes - used, 80 * 4))
        if fence is None and after is not None:
            opened_at = item.number
        fence = after
        body.append(text + "\n")
        raw.append(text)
        used += len(text.encode()) + 1
        last_blank = not text.strip()
        shown += 1
        position += 1
    total = sum(1 for item in items if item.left_out is None)
    before = sum(1 for item in items[:first] if item.left_out is None)
    more = position < len(items)
    if fence:
        body.append(fence + "\n")
    if more:
        inside = (
            f", inside the code block opened at line {opened_at} (closed here, opened again there)" if fence else ""
        )
        body.append(f"\n_The section continues at line {items[position].number}{inside}._\n")
    paging = Paging(
        shown=shown,
        total=total,
        noun="section lines",
        next_cursor=str(Cursor("line", items[position].number)) if more else None,
        first=before,
    )
    busiest = _busiest_sections(outline.children(section), count=lambda s: s.end_line - s.line + 1)
    footer = _footer(paging, arguments, _busiest_lines(busiest, "line", narrow={}))
    text = "".join(body).rstrip("\n") + "\n"
    ancestors = outline.ancestors(section)
    previous, following = outline.siblings(section)
    descendants = outline.descendants(section)
    listed = _subsections_listed(outline, section, page_bytes)
    shown_matches = matched[: 1 + OTHER_MATCHES_MAX]
    facts = SectionText(
        section=_row(outline, section),
        under=[_title(s) for s in ancestors],
        up=_row(outline, ancestors[-1]) if ancestors else None,
        previous=None if previous is None else _row(outline, previous),
        next=None if following is None else _row(outline, following),
        subsections=[_row(outline, sub) for sub in descendants[:listed]],
        subsections_total=len(descendants),
        left_out=left_out,
        start_line=items[first].number if items else section.line,
        text="\n".join(raw),
        continues_at=items[position].number if more else None,
        matched=[MatchRef(m.section.qualified, _title(m.section), _how(m)) for m in shown_matches],
        matched_total=len(matched),
    )
    result = DocsResult(
        kind="section",
        files=[],
        files_total=1,
        hidden=0,
        matches=[],
        matches_total=0,
        section=facts,
        page=_docs_page(paging, arguments, busiest),
    )
    return Rendered(head + text + ("\n" + footer if footer else ""), result)


def _items(outline: Outline, section: DocSection, lines: Sequence[str], depth: int | None) -> list[_Item]:
    """The lines of ``section``'s text in order, with a marker for each subsection ``depth`` leaves out."""
    last = min(section.end_line, len(lines))
    while last > section.line and not lines[last - 1].strip():
        last -= 1  # the blank lines before the next heading are nobody's text
    left_out: dict[int, DocSection] = {}
    if depth is not None:
        level = outline.depth(section) + depth
        left_out = {s.line: s for s in outline.descendants(section) if outline.depth(s) == level}
    items = []
    number = section.line
    while number <= last:
        skipped = left_out.get(number)
        if skipped is not None:
            items.append(_Item(number, skipped))
            number = skipped.end_line + 1
        else:
            items.append(_Item(number))
            number += 1
    return items


def _position(items: Sequence[_Item], start: int) -> int:
    """The index of the first item at or after line ``start``, which must lie within the text."""
    if not items or not items[0].number <= start <= items[-1].number:
        raise ValueError(start)
    return next(position for position, item in enumerate(items) if item.number >= start)


def _fence_before(items: Sequence[_Item], first: int, lines: Sequence[str]) -> tuple[str | None, int]:
    """The fence open before ``items[first]`` and the line that opened it (0 when none is open)."""
    fence: str | None = None
    opened_at = 0
    for item in items[:first]:
        if item.left_out is None:
            after = _fence_after(fence, lines[item.number - 1])
            if fence is None and after is not None:
                opened_at = item.number
            fence = after
    return fence, (opened_at if fence else 0)


def _fence_after(fence: str | None, line: str) -> str | None:
    """The fence (its marker) open after ``line``, given the one open before it."""
    match = _FENCE.fullmatch(line)
    if match is None:
        return fence
    marker, info = match.groups()
    if fence is None:
        return None if marker[0] == "`" and "`" in info else marker
    if marker[0] == fence[0] and len(marker) >= len(fence) and not info.strip():
        return None
    return fence


def _cut_line(text: str, budget: int) -> str:
    """The start of a line too long for a page, within ``budget`` bytes, never inside a UTF-8 sequence."""
    head = text.encode()[: max(budget - 40, 0)].decode("utf-8", errors="ignore")
    return f"{head} … (line cut: {len(text.encode()):,} bytes)"


def _section_head(
    outline: Outline,
    section: DocSection,
    depth: int | None,
    matched: Sequence[HeadingMatch],
    heading: str,
    page_bytes: int,
) -> str:
    ancestors = outline.ancestors(section)
    where = f", under {_crumbs(ancestors)}" if ancestors else ", a top section"
    lines = [f"## {_title(section)} — {code(section.qualified)}\n\n"]
    if matched:
        lines.append(_matched_note(matched, heading))
    lines.append(f"{code(section.path)} lines {section.line}-{section.end_line}{where}.\n")
    if ancestors:
        lines.append(f"- Up: {_entry(ancestors[-1])})\n")
    else:
        lines.append(f"- Up: the file's tree, {call_text(TOOL, {'path': section.path})}\n")
    before, after = outline.siblings(section)
    lines.append(f"- Previous: {_entry(before) + ')' if before else 'none'}\n")
    lines.append(f"- Next: {_entry(after) + ')' if after else 'none'}\n")
    descendants = outline.descendants(section)
    if not descendants:
        lines.append("- Subsections: none\n")
    else:
        lines.append("- Subsections:\n")
        top = outline.depth(section)
        listed = _subsections_listed(outline, section, page_bytes)
        lines += [f"{'  ' * (outline.depth(sub) - top)}- {_entry(sub)})\n" for sub in descendants[:listed]]
        if listed < len(descendants):
            rest = {"path": section.path}
            lines.append(f"  - … {len(descendants) - listed} more: {call_text(TOOL, rest)}\n")
    if depth is not None and descendants:
        left = sum(1 for sub in descendants if outline.depth(sub) - outline.depth(section) >= depth)
        if left:
            lines.append(f"\nText to depth {depth}: {_count(left, 'subsection')} left out.\n")
    lines.append("\n")
    return "".join(lines)


def _subsections_listed(outline: Outline, section: DocSection, page_bytes: int) -> int:
    """How many of a section's subsections its header lists (a quarter of the page at most, one at least)."""
    top = outline.depth(section)
    used = 0
    descendants = outline.descendants(section)
    for shown, sub in enumerate(descendants):
        size = len(f"{'  ' * (outline.depth(sub) - top)}- {_entry(sub)})\n".encode())
        if shown and used + size > page_bytes // 4:
            return shown
        used += size
    return len(descendants)


def _matched_note(matched: Sequence[HeadingMatch], heading: str) -> str:
    best = matched[0]
    note = f"Best match for the heading {code(heading)} ({_how(best)})"
    others = matched[1 : 1 + OTHER_MATCHES_MAX]
    if others:
        listed = ", ".join(f"{_title(m.section)} — {code(m.section.qualified)}" for m in others)
        more = len(matched) - 1 - len(others)
        note += f"; also matched: {listed}" + (f" and {more} more" if more else "")
    return note + ".\n\n"


# -- shared --------------------------------------------------------------------------------------


def _how(match: HeadingMatch) -> str:
    """How ``match`` matched, in words: ``same title``, ``title holds 2 of 3 words``..."""
    if match.how != "words":
        return _HOW[match.how]
    if match.words_matched < match.words_total:
        return f"title holds {match.words_matched} of {match.words_total} words"
    return "title holds the word" if match.words_total == 1 else "title holds every word"


def _top_level(outline: Outline) -> tuple[DocSection, ...]:
    """The first level of ``outline`` with more than one section (a lone title section is skipped)."""
    level = outline.children(None)
    while len(level) == 1 and outline.children(level[0]):
        level = outline.children(level[0])
    return level


def _busiest_sections(
    sections: Sequence[DocSection], *, count: Callable[[DocSection], int]
) -> list[tuple[DocSection, int]]:
    scored = [(section, count(section)) for section in sections]
    scored = [(section, n) for section, n in scored if n]
    return sorted(scored, key=lambda item: (-item[1], item[0].line))[:BUSIEST]


def _busiest_lines(busiest: Sequence[tuple[DocSection, int]], unit: str, *, narrow: Mapping[str, object]) -> list[str]:
    if not busiest:
        return []
    listed = ", ".join(f"{code(section.qualified)} ({_count(n, unit)})" for section, n in busiest)
    call = call_text(TOOL, {"section_id": busiest[0][0].qualified, **narrow})
    return [f"Busiest sections: {listed}.", f"Narrow to the busiest: {call}"]


def _footer(paging: Paging, arguments: Mapping[str, object], busiest: Sequence[str]) -> str:
    """``paging_footer`` with no path scopes, the busiest sections put after its count line."""
    footer = paging_footer(paging, tool=TOOL, arguments=arguments, paths=())
    if not footer:
        return ""
    lines = footer.rstrip("\n").split("\n")
    return "\n".join([*lines[:2], *busiest, *lines[2:]]) + "\n"


def _crumbs(sections: Sequence[DocSection]) -> str:
    return " › ".join(_title(section) for section in sections)


def _title(section: DocSection) -> str:
    return section.title or "(untitled)"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
