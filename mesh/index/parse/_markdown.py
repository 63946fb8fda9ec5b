"""Markdown facts: the section tree (ATX and setext headings) and the relative links to other files.

Theory of operation
-------------------
One pass over the lines with CommonMark's block rules cut down to what decides whether a line is a
heading. Passed over: front matter at the top (``---`` ... ``---``/``...``, or ``+++`` ... ``+++``),
fenced code (closed only by a fence of the same character at least as long as the opening one;
unclosed, it runs to the end), indented code (4+ columns while no paragraph is open), HTML comments
and ``<pre>``/``<script>``/``<style>``/``<textarea>`` blocks. A paragraph is tracked so that a
``===`` or ``---`` line under it turns it into a setext heading; a paragraph begun by a list item
or a block quote belongs to that container and never does (there ``---`` is a thematic break).

Heading text is reduced to what GitHub shows (code-span, emphasis, link, image and HTML markup
removed, link text kept, escapes and entities resolved); that is the title, and its GitHub-style
slug is the last part of the section id. One stack of open headings gives both the parent (the
nearest heading of a lower level) and the end (a heading closes every open one of the same or a
deeper level on the line before it; the rest end on the last line). Repeated ids get ``-2``,
``-3``...

Links are read from the lines that are not code, comments or front matter: inline ``[text](dest)``
(not images) and reference definitions ``[ref]: dest``. A destination is kept as an import, without
its ``#fragment`` or ``?query``, when it is a relative path: no scheme, not rooted (``/``, ``//``),
not a bare ``#anchor``.
"""

from __future__ import annotations

import html
import re
from typing import Final

from .._facts import FileFacts, Import, Section

__all__ = ["TITLE_CHARS_MAX", "extract", "slug"]

_ATX: Final = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_ATX_CLOSING: Final = re.compile(r"(?:^|[ \t]+)#+$")
_FENCE_OPEN: Final = re.compile(r" {0,3}(`{3,}(?=[^`]*$)|~{3,})")
_FENCE_CLOSE: Final = re.compile(r"[ \t]*(`{3,}|~{3,})[ \t]*$")
_SETEXT: Final = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")
_THEMATIC_BREAK: Final = re.compile(r" {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_LIST_ITEM: Final = re.compile(r" {0,3}(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t]|$)")
_HTML_RAW: Final = re.compile(r" {0,3}<(pre|script|style|textarea)(?:[ \t>]|$)", re.IGNORECASE)

_BACKTICKS: Final = re.compile(r"`+")
_BRACKET: Final = re.compile(r"[\[\]]")
_ESCAPED: Final = re.compile(r"\\([!-/:-@\[-`{-~])")
_PLACEHOLDER: Final = re.compile("[\ue000-\ue07f]")
_AUTOLINK: Final = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*)>")
_IMAGE: Final = re.compile(r"!\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])?")
_LINK: Final = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_TAG: Final = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_STARS: Final = re.compile(r"(\*{1,3}|~{1,2})(?=\S)(.+?)(?<=\S)\1")
_UNDERSCORES: Final = re.compile(r"(?<![A-Za-z0-9_])(_{1,3})(?=\S)(.+?)(?<=\S)\1(?![A-Za-z0-9_])")

_LINK_TARGET: Final = re.compile(r"\]\([ \t]*(?:<([^<>\n]*)>|([^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*))")
_REFERENCE: Final = re.compile(r" {0,3}\[[^\]]+\]:[ \t]*(?:<([^<>\n]*)>|(\S+))")
_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
#: what a slug drops: ``\w`` is exactly ``str.isalnum()`` plus ``_``
_SLUG_DROPPED: Final = re.compile(r"[^\w\- ]")

#: The paragraph state of a line inside a list item or block quote: never a setext heading.
_CONTAINER: Final = -1
#: Heading markup longer than this is cut before it is reduced to text (the regexes stay cheap).
TITLE_CHARS_MAX: Final = 500


def extract(source: bytes) -> FileFacts:
    """The sections and relative file links of one Markdown file. Never raises."""
    text = source.decode("utf-8", "replace").removeprefix("\ufeff")
    try:
        headings, imports, last_line = _scan(text)
        return FileFacts(language="markdown", sections=_sections(headings, last_line), imports=imports)
    except Exception as exc:  # noqa: BLE001 - a bug here must not stop the indexing of a workspace
        return FileFacts(language="markdown", error=f"internal error: {type(exc).__name__}: {exc}")


def slug(title: str) -> str:
    """GitHub's anchor for a heading's text: lower case, only letters, digits, ``-``, ``_``; spaces to ``-``."""
    return _SLUG_DROPPED.sub("", title.lower()).replace(" ", "-") or "section"


def _scan(text: str) -> tuple[list[tuple[int, int, str]], tuple[Import, ...], int]:
    """Headings as ``(line, level, raw text)``, link imports, and the number of the last line."""
    lines = text.split("\n")
    last_line = len(lines) - 1 if text.endswith("\n") else len(lines)
    if not text:
        last_line = 0
    headings: list[tuple[int, int, str]] = []
    imports: list[Import] = []
    start = _front_matter_end(lines)
    fence = ""
    html_end = ""
    in_comment = False
    #: the open paragraph's lines (a setext heading's text) and first line: 0 when none is open,
    #: _CONTAINER in a list item or block quote
    paragraph: list[str] = []
    paragraph_line = 0
    for index in range(start, len(lines)):
        number = index + 1
        line = lines[index].removesuffix("\r")
        if fence:
            closing = _FENCE_CLOSE.match(line)
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence):
                fence = ""
            continue
        if in_comment:
            in_comment = "-->" not in line
            continue
        if html_end:
            if html_end in line.lower():
                html_end = ""
            continue
        stripped = line.lstrip(" \t")
        if not stripped:
            paragraph, paragraph_line = [], 0
            continue
        leading = line[: len(line) - len(stripped)]
        indent = len(leading.expandtabs(4)) if "\t" in leading else len(leading)
        if indent >= 4:
            if paragraph_line:
                if paragraph_line != _CONTAINER:
                    paragraph.append(stripped)
                _links(line, number, imports)
            continue
        first = stripped[0]
        if first == "#" and (atx := _ATX.match(line)):
            headings.append((number, len(atx.group(1)), _atx_text(atx.group(2) or "")))
            paragraph, paragraph_line = [], 0
            _links(line, number, imports)
            continue
        if first in "`~" and (opening := _FENCE_OPEN.match(line)):
            fence = opening.group(1)
            paragraph, paragraph_line = [], 0
            continue
        if first in "=-" and paragraph_line > 0 and _SETEXT.match(line):
            headings.append((paragraph_line, 1 if first == "=" else 2, " ".join(paragraph)))
            paragraph, paragraph_line = [], 0
            continue
        if first in "*-_" and _THEMATIC_BREAK.match(line):
            paragraph, paragraph_line = [], 0
            continue
        if first == "<":
            if stripped.startswith("<!--"):
                in_comment = "-->" not in stripped[4:]
                paragraph, paragraph_line = [], 0
                continue
            if raw := _HTML_RAW.match(line):
                tag_end = f"</{raw.group(1).lower()}>"
                if tag_end not in line.lower():
                    html_end = tag_end
                paragraph, paragraph_line = [], 0
                continue
        if first == ">" or (first in "-+*0123456789" and _LIST_ITEM.match(line)):
            paragraph, paragraph_line = [], _CONTAINER
        elif paragraph_line == 0:
            paragraph, paragraph_line = [stripped.rstrip(" \t\\")], number
        elif paragraph_line != _CONTAINER:
            paragraph.append(stripped.rstrip(" \t\\"))
        _links(line, number, imports)
    return headings, tuple(imports), last_line


def _front_matter_end(lines: list[str]) -> int:
    """The index of the first line after front matter (0 when there is none)."""
    marker = lines[0].rstrip() if lines else ""
    if marker not in ("---", "+++"):
        return 0
    closers = ("---", "...") if marker == "---" else ("+++",)
    for index in range(1, len(lines)):
        if lines[index].rstrip() in closers:
            return index + 1
    return 0


def _atx_text(content: str) -> str:
    content = content.strip(" \t")
    closing = _ATX_CLOSING.search(content)
    return content[: closing.start()] if closing else content


def _links(line: str, number: int, imports: list[Import]) -> None:
    if "](" not in line and "]:" not in line:
        return
    if "`" in line:
        pieces = []
        position = 0
        for start, end, _, _ in _code_spans(line):
            pieces.extend((line[position:start], " " * (end - start)))
            position = end
        pieces.append(line[position:])
        line = "".join(pieces)
    reference = _REFERENCE.match(line)
    if reference:
        _keep(reference.group(1) if reference.group(1) is not None else reference.group(2), number, imports)
        return
    openers: dict[int, int] | None = None
    for match in _LINK_TARGET.finditer(line):
        if openers is None:
            openers = _bracket_pairs(line)
        opener = openers.get(match.start())
        if opener is None or (opener > 0 and line[opener - 1] == "!"):
            continue
        _keep(match.group(1) if match.group(1) is not None else match.group(2), number, imports)


def _bracket_pairs(line: str) -> dict[int, int]:
    """The offset of the ``[`` matching each ``]`` of a line (a ``]`` without one is left out)."""
    opened: list[int] = []
    pairs = {}
    for bracket in _BRACKET.finditer(line):
        if bracket.group() == "[":
            opened.append(bracket.start())
        elif opened:
            pairs[bracket.start()] = opened.pop()
    return pairs


def _keep(destination: str, number: int, imports: list[Import]) -> None:
    path = destination.split("#", 1)[0].split("?", 1)[0]
    if path and path[0] != "/" and not _SCHEME.match(path):
        imports.append(Import(module=path, line=number))


def _code_spans(text: str) -> list[tuple[int, int, int, int]]:
    """Code spans as ``(start, end, content start, content end)``: a backtick run closed by the next run
    of the same length (linear: one pointer per run length)."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    pointers = dict.fromkeys(by_length, 0)
    spans = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        pointer = pointers[end - start]
        while pointer < len(same) and same[pointer] <= index:
            pointer += 1
        pointers[end - start] = pointer
        if pointer == len(same):
            index += 1
            continue
        closing = runs[same[pointer]]
        spans.append((start, closing[1], end, closing[0]))
        index = same[pointer] + 1
    return spans


def _plain(markup: str) -> str:
    """The text GitHub shows for a heading's inline markup."""
    markup = markup[:TITLE_CHARS_MAX]
    if "`" not in markup:
        return _plain_inline(markup).strip()
    pieces = []
    position = 0
    for start, end, content_start, content_end in _code_spans(markup):
        pieces.append(_plain_inline(markup[position:start]))
        content = markup[content_start:content_end]
        if len(content) > 1 and content[0] == " " and content[-1] == " " and content.strip(" "):
            content = content[1:-1]
        pieces.append(content)
        position = end
    pieces.append(_plain_inline(markup[position:]))
    return "".join(pieces).strip()


def _plain_inline(markup: str) -> str:
    text = markup
    escaped = "\\" in text
    if escaped:
        text = _ESCAPED.sub(lambda m: chr(0xE000 + ord(m.group(1))), text)
    if "<" in text:
        text = _TAG.sub("", _AUTOLINK.sub(_first_group, text))
    if "[" in text:
        text = _LINK.sub(_first_group, _IMAGE.sub(_first_group, text))
    for _ in range(3):
        if "*" not in text and "~" not in text and "_" not in text:
            break
        before = text
        text = _UNDERSCORES.sub(_second_group, _STARS.sub(_second_group, text))
        if text == before:
            break
    if escaped:
        text = _PLACEHOLDER.sub(lambda m: chr(ord(m.group()) - 0xE000), text)
    return html.unescape(text) if "&" in text else text


def _first_group(match: re.Match[str]) -> str:
    return match.group(1)


def _second_group(match: re.Match[str]) -> str:
    return match.group(2)


def _sections(headings: list[tuple[int, int, str]], last_line: int) -> tuple[Section, ...]:
    ids: list[str] = []
    titles: list[str] = []
    parents: list[str] = []
    ends = [last_line] * len(headings)
    used: set[str] = set()
    #: (level, index) of the headings still open, outermost first
    stack: list[tuple[int, int]] = []
    for index, (line, level, raw) in enumerate(headings):
        while stack and stack[-1][0] >= level:
            ends[stack.pop()[1]] = line - 1
        parent = ids[stack[-1][1]] if stack else ""
        title = _plain(raw)
        base = f"{parent}/{slug(title)}" if parent else slug(title)
        section_id = base
        repeat = 1
        while section_id in used:
            repeat += 1
            section_id = f"{base}-{repeat}"
        used.add(section_id)
        ids.append(section_id)
        titles.append(title)
        parents.append(parent)
        stack.append((level, index))
    return tuple(
        Section(
            section_id=ids[i],
            title=titles[i],
            level=level,
            parent_id=parents[i],
            line=line,
            end_line=max(line, ends[i]),
        )
        for i, (line, level, _) in enumerate(headings)
    )
