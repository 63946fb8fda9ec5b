"""Markdown and structured results of the navigation tools: ``outline``, ``symbol``, ``references``
and ``files``.

Each answer is one page within :data:`PAGE_BYTES` (the registry's 48 KB bound is never reached):
what does not fit is counted, and the footer (:mod:`._paging`) names the call for the next page.
A definition is written the same way everywhere: its kind, its qualified name, ``path:line-end``,
then its signature as written and the first line of its doc.
"""

from __future__ import annotations

from collections import Counter
from itertools import islice
from collections.abc import Mapping, Sequence
from typing import Final

import attrs

from ..index.query._references import RefSite
from ..index.query._symbols import FileOutline, SymbolRow
from ._paging import Page, Paging, Rendered, ScopeCount, call_text, code, footer_of, page_of

__all__ = [
    "PAGE_BYTES",
    "DefinitionFacts",
    "FileRow",
    "FilesResult",
    "OutlineResult",
    "ReferenceFacts",
    "ReferencesResult",
    "SymbolResult",
    "compose_files",
    "compose_file_outline",
    "compose_folder_outline",
    "compose_references",
    "compose_symbol",
    "definition_facts",
    "reference_line",
]

PAGE_BYTES: Final = 12 * 1024
#: How many other matches a ``symbol`` answer lists, and how many references it previews.
OTHERS_MAX: Final = 8
PREVIEW_MAX: Final = 5
#: A reference's line of code is cut to this many characters.
LINE_CHARS_MAX: Final = 160


@attrs.frozen
class DefinitionFacts:
    name: str
    kind: str
    #: ``Container.name``
    qualified: str
    path: str
    line: int
    end_line: int
    service: str
    signature: str
    doc: str
    #: Nesting depth in an outline (0: top level).
    depth: int = 0


@attrs.frozen
class ImportFacts:
    module: str
    line: int
    names: list[str]
    #: The workspace file or folder it resolves to, "" when outside the workspace.
    target: str
    target_service: str


@attrs.frozen
class FileRow:
    path: str
    service: str
    language: str
    lines: int
    size: int
    #: Why the index left it out ("" for an indexed file).
    skipped: str
    #: Top-level definitions (``kind name``), in an outline of a folder.
    definitions: list[str]


@attrs.frozen
class OutlineResult:
    path: str
    #: file or folder
    kind: str
    definitions: list[DefinitionFacts]
    imports: list[ImportFacts]
    files: list[FileRow]
    page: Page


@attrs.frozen
class ReferenceFacts:
    path: str
    line: int
    service: str
    #: call, new, type or use
    kind: str
    #: The definition around the site, "" at top level.
    enclosing: str
    #: Why it reaches the definition, or "by name".
    how: str
    resolved: bool
    code: str


@attrs.frozen
class SymbolResult:
    definition: DefinitionFacts
    #: The definition's source lines (whole lines), from ``source_line``; cut says lines were left out.
    source: str
    source_line: int
    source_cut: bool
    container: DefinitionFacts | None
    siblings: list[str]
    references_resolved: int
    references_by_name: int
    reference_services: list[ScopeCount]
    references: list[ReferenceFacts]
    #: Other definitions the name may mean, best first.
    others: list[DefinitionFacts]
    others_total: int


@attrs.frozen
class ReferencesResult:
    definition: DefinitionFacts
    resolved: int
    by_name: int
    services: list[ScopeCount]
    references: list[ReferenceFacts]
    page: Page


@attrs.frozen
class FilesResult:
    pattern: str
    total: int
    skipped: int
    files: list[FileRow]
    page: Page


def definition_facts(row: SymbolRow, depth: int = 0) -> DefinitionFacts:
    return DefinitionFacts(
        row.name, row.kind, row.qualified, row.path, row.line, row.end_line, row.service, row.signature, row.doc, depth
    )


def definition_line(row: SymbolRow | DefinitionFacts, *, with_path: bool = True, indent: str = "") -> str:
    """``- kind `Container.name` path:line-end — `signature` — doc``."""
    qualified = row.qualified if isinstance(row, SymbolRow) else row.qualified
    span = f"{row.line}-{row.end_line}" if row.end_line > row.line else str(row.line)
    where = f" {code(f'{row.path}:{span}')}" if with_path else f" lines {span}"
    text = f"{indent}- {row.kind} {code(qualified)}{where}"
    if row.signature and row.signature != f"{row.kind} {row.name}":
        text += f" — {code(row.signature)}"
    if row.doc:
        text += f" — {row.doc}"
    return text + "\n"


def _fits(parts: Sequence[str], used: int, page_bytes: int) -> tuple[int, int]:
    """How many of ``parts`` fit after ``used`` bytes, and the bytes they take (at least one)."""
    taken = 0
    for count, part in enumerate(parts):
        size = len(part.encode())
        if count and used + taken + size > page_bytes:
            return count, taken
        taken += size
    return len(parts), taken


def _finish(head: str, lines: Sequence[str], page: Page) -> str:
    footer = footer_of(page)
    return head + "".join(lines) + ("\n" + footer if footer else "")


# -- outline ---------------------------------------------------------------------------------------


def compose_file_outline(
    outline: FileOutline, depth: int, arguments: Mapping[str, object], *, tool: str, offset: int = 0,
    page_bytes: int | None = None,
) -> Rendered:  # fmt: skip
    """The definitions of one file as a tree (to ``depth`` levels), then its imports as resolved."""
    levels = _levels(outline.definitions)
    shown_defs = [(row, level) for row, level in zip(outline.definitions, levels, strict=True) if level < depth]
    hidden = len(outline.definitions) - len(shown_defs)
    facts = [definition_facts(row, level) for row, level in shown_defs]
    items = [definition_line(row, with_path=False, indent="  " * level) for row, level in shown_defs]
    items += [_import_line(row) for row in outline.imports]
    about = f"{outline.language or 'no language'}, {outline.lines} lines"
    if outline.service:
        about += f", service {code(outline.service)}"
    head = f"## Outline of {code(outline.path)}\n\n{about}; {len(outline.definitions)} definitions"
    head += f" ({hidden} below depth {depth})" if hidden else ""
    head += f", {len(outline.imports)} imports.\n"
    if outline.error:
        head += f"\nParsed with a problem: {outline.error}.\n"
    head += "\n"
    rest = items[offset:]
    count, _ = _fits(rest, len(head.encode()), page_bytes or PAGE_BYTES)
    end = offset + count
    lines = _with_headings(items, offset, end, len(shown_defs))
    paging = Paging(shown=count, total=len(items), noun="entries", next_cursor=str(end) if end < len(items) else None,
                    first=offset)  # fmt: skip
    page = page_of(paging, tool=tool, arguments=arguments, paths=[outline.path] * len(items), scope_argument="path")
    imports = [
        ImportFacts(row.module, row.line, list(row.names), row.target_path, row.target_service)
        for row in outline.imports
    ]
    result = OutlineResult(
        outline.path, "file", facts[max(0, offset) : min(end, len(facts))],
        imports[max(0, offset - len(facts)) : max(0, end - len(facts))], [], page,
    )  # fmt: skip
    if not items:
        return Rendered(head + "Nothing is defined or imported here.\n", result)
    return Rendered(_finish(head, lines, page), result)


def _with_headings(items: Sequence[str], start: int, end: int, definitions: int) -> list[str]:
    lines: list[str] = []
    for index in range(start, end):
        if index == start and index < definitions:
            lines.append("### Definitions\n\n")
        if index == max(start, definitions):
            lines.append(("\n" if lines else "") + "### Imports\n\n")
        lines.append(items[index])
    return lines


def _levels(rows: Sequence[SymbolRow]) -> list[int]:
    """The nesting level of each definition (rows in document order, outer first)."""
    levels: list[int] = []
    open_ends: list[int] = []
    for row in rows:
        while open_ends and open_ends[-1] < row.line:
            open_ends.pop()
        levels.append(len(open_ends))
        open_ends.append(row.end_line)
    return levels


def _import_line(row) -> str:
    text = f"- line {row.line}: {code(row.module)}"
    if row.names:
        text += " (" + ", ".join(row.names[:8]) + (", …" if len(row.names) > 8 else "") + ")"
    if row.target_path:
        text += f" → {code(row.target_path)}"
        if row.target_service:
            text += f" ({row.target_service})"
    return text + "\n"


def compose_folder_outline(
    folder: str, files: Sequence[tuple[str, str, str, int, list[SymbolRow]]], arguments: Mapping[str, object],
    *, tool: str, offset: int = 0, page_bytes: int | None = None,
) -> Rendered:  # fmt: skip
    """The files under a folder, each with its top-level definitions."""
    rows = [
        FileRow(path, service, language, lines, 0, "", [f"{row.kind} {row.name}" for row in tops])
        for path, service, language, lines, tops in files
    ]
    items = [_folder_item(row) for row in rows]
    defined = sum(len(tops) for *_, tops in files)
    head = f"## Outline of {code(folder or '.')}\n\n{len(rows)} files, {defined} top-level definitions.\n\n"
    count, _ = _fits(items[offset:], len(head.encode()), page_bytes or PAGE_BYTES)
    end = offset + count
    paging = Paging(shown=count, total=len(items), noun="files", next_cursor=str(end) if end < len(items) else None,
                    first=offset)  # fmt: skip
    page = page_of(paging, tool=tool, arguments=arguments, paths=[row.path for row in rows], scope_argument="path")
    result = OutlineResult(folder, "folder", [], [], rows[offset:end], page)
    if not items:
        return Rendered(head + "No indexed file is under it.\n", result)
    return Rendered(_finish(head, items[offset:end], page), result)


def _folder_item(row: FileRow) -> str:
    text = f"- {code(row.path)} ({row.language or 'text'}, {row.lines} lines)"
    if row.definitions:
        shown = row.definitions[:12]
        text += ": " + ", ".join(shown) + (f", … {len(row.definitions) - len(shown)} more" if len(row.definitions) > 12 else "")
    return text + "\n"


# -- symbol ----------------------------------------------------------------------------------------


def compose_symbol(
    best: SymbolRow, source: list[str] | None, max_lines: int, container: SymbolRow | None, siblings: Sequence[str],
    sites: Sequence[RefSite], codes: Mapping[tuple[str, int], str], others: Sequence[SymbolRow],
    arguments: Mapping[str, object], *, tool: str, references_tool: str,
) -> Rendered:  # fmt: skip
    """The best definition with its source (whole lines, at most ``max_lines``), its container and
    siblings, a preview of its references, and the other definitions the name may mean."""
    head = f"## {best.kind} {code(best.qualified)}\n\n"
    head += definition_line(best)
    if container is not None:
        head += f"\nIn {container.kind} {code(container.qualified)}"
        if siblings:
            head += " beside " + ", ".join(code(name) for name in siblings[:12])
            head += f" and {len(siblings) - 12} more" if len(siblings) > 12 else ""
        head += ".\n"
    body = ""
    cut = False
    shown_source: list[str] = []
    if source is None:
        body += "\nThe index keeps no text of this file.\n"
    else:
        wanted = best.end_line - best.line + 1
        shown_source = source[best.line - 1 : best.line - 1 + min(wanted, max_lines)]
        cut = wanted > len(shown_source)
        fence = "````" if any("```" in line for line in shown_source) else "```"
        body += f"\n{fence}{_fence_language(best.language)}\n" + "".join(line + "\n" for line in shown_source) + f"{fence}\n"
        if cut:
            more = {**arguments, "lines": min(400, wanted)}
            body += (
                f"Shown lines {best.line}-{best.line + len(shown_source) - 1} of {best.line}-{best.end_line}; "
                f"all of it: {call_text(tool, more)}\n"
            )
    resolved = [site for site in sites if site.resolved]
    by_name = len(sites) - len(resolved)
    services = Counter(site.service or "(no service)" for site in resolved)
    refs = f"\n### References\n\n{len(resolved)} resolved"
    refs += f" in {len(services)} services" if len(services) > 1 else ""
    refs += f", {by_name} more by name only" if by_name else ""
    refs += ".\n"
    preview = (resolved or list(sites))[:PREVIEW_MAX]
    refs += "".join(reference_line(site, codes.get((site.path, site.line), "")) for site in preview)
    if len(sites) > len(preview):
        refs += f"All of them: {call_text(references_tool, {'name': f'{best.path}:{best.line}'})}\n"
    tail = ""
    if others:
        tail = f"\n### Other definitions named {code(best.name)} ({len(others)})\n\n"
        tail += "".join(definition_line(row) for row in others[:OTHERS_MAX])
        tail += f"… and {len(others) - OTHERS_MAX} more.\n" if len(others) > OTHERS_MAX else ""
        tail += f"Pick one: {call_text(tool, {'name': f'{others[0].path}:{others[0].line}'})}\n"
    result = SymbolResult(
        definition=definition_facts(best),
        source="\n".join(shown_source),
        source_line=best.line,
        source_cut=cut,
        container=definition_facts(container) if container is not None else None,
        siblings=list(siblings),
        references_resolved=len(resolved),
        references_by_name=by_name,
        reference_services=[ScopeCount(name, count) for name, count in sorted(services.items(), key=lambda i: (-i[1], i[0]))],
        references=[reference_facts(site, codes.get((site.path, site.line), "")) for site in preview],
        others=[definition_facts(row) for row in others[:OTHERS_MAX]],
        others_total=len(others),
    )
    return Rendered(head + body + refs + tail, result)


_FENCES: Final = {"csharp": "csharp", "cpp": "cpp", "tsx": "tsx", "proto": "protobuf"}


def _fence_language(language: str) -> str:
    return _FENCES.get(language, language)


# -- references ------------------------------------------------------------------------------------


def reference_facts(site: RefSite, line: str) -> ReferenceFacts:
    return ReferenceFacts(site.path, site.line, site.service, site.kind, site.enclosing, site.how, site.resolved, line)


def reference_line(site: RefSite, line: str) -> str:
    where = code(f"{site.path}:{site.line}")
    inside = f" in {code(site.enclosing)}" if site.enclosing else ""
    how = "" if site.resolved else " (by name)"
    snippet = f": {code(_cut(line))}" if line else ""
    return f"- {where} {site.kind}{inside}{how}{snippet}\n"


def _cut(line: str) -> str:
    line = line.strip()
    return line if len(line) <= LINE_CHARS_MAX else line[: LINE_CHARS_MAX - 1] + "…"


def compose_references(
    target: SymbolRow, sites: Sequence[RefSite], codes: Mapping[tuple[str, int], str], others: int,
    arguments: Mapping[str, object], *, tool: str, offset: int = 0, page_bytes: int | None = None,
) -> Rendered:  # fmt: skip
    """References grouped by service: resolved ones first, then those matching by name alone."""
    resolved = sum(1 for site in sites if site.resolved)
    by_name = len(sites) - resolved
    services = Counter(site.service or "(no service)" for site in sites)
    head = f"## References of {target.kind} {code(target.qualified)}\n\n" + definition_line(target) + "\n"
    head += f"{resolved} resolved"
    head += f", {by_name} by name only (same name, the code does not say it is this one)" if by_name else ""
    head += f", in {len(services)} services" if len(services) > 1 else ""
    head += ".\n"
    if others:
        head += f"{others} other definitions share the name: `symbol` lists them.\n"
    head += "\n"
    budget = page_bytes or PAGE_BYTES
    # items are written only until the page is full: thousands of sites are counted, not rendered
    items: list[str] = []
    used = len(head.encode()) + 200
    for site in islice(sites, offset, None):
        item = reference_line(site, codes.get((site.path, site.line), ""))
        used += len(item.encode())
        if items and used > budget:
            break
        items.append(item)
    count = len(items)
    end = offset + count
    lines: list[str] = []
    group: tuple[bool, str] | None = None
    for site, item in zip(sites[offset:end], items[:count], strict=True):
        key = (site.resolved, site.service or "(no service)")
        if key != group:
            title = key[1] if key[0] else f"{key[1]}, by name"
            lines.append(("\n" if lines else "") + f"### {title}\n\n")
            group = key
        lines.append(item)
    paging = Paging(shown=count, total=len(sites), noun="references", next_cursor=str(end) if end < len(sites) else None,
                    first=offset)  # fmt: skip
    page = page_of(paging, tool=tool, arguments=arguments, paths=[site.path for site in sites])
    result = ReferencesResult(
        definition=definition_facts(target),
        resolved=resolved,
        by_name=by_name,
        services=[ScopeCount(name, count) for name, count in sorted(services.items(), key=lambda i: (-i[1], i[0]))],
        references=[reference_facts(site, codes.get((site.path, site.line), "")) for site in sites[offset:end]],
        page=page,
    )
    if not sites:
        return Rendered(head + "Nothing in the index refers to it.\n", result)
    return Rendered(_finish(head, lines, page), result)


# -- files -----------------------------------------------------------------------------------------


def compose_files(
    pattern: str, rows: Sequence[FileRow], arguments: Mapping[str, object], *, tool: str, offset: int = 0,
    page_bytes: int | None = None,
) -> Rendered:  # fmt: skip
    """Paths matching a glob or a name, with language, service and size; skipped ones say why."""
    skipped = sum(1 for row in rows if row.skipped)
    head = f"## Files matching {code(pattern)}\n\n{len(rows) - skipped} indexed"
    head += f", {skipped} left out of the index" if skipped else ""
    head += ".\n\n"
    # rendered only as far as the page goes: a glob of every file lists a page, not the workspace
    items: list[str] = []
    taken, used, limit = 0, len(head.encode()), page_bytes or PAGE_BYTES
    for row in islice(rows, offset, None):
        item = _file_item(row)
        size = len(item.encode())
        if items and used + taken + size > limit:
            break
        items.append(item)
        taken += size
    count = len(items)
    end = offset + count
    paging = Paging(shown=count, total=len(rows), noun="files", next_cursor=str(end) if end < len(rows) else None,
                    first=offset)  # fmt: skip
    page = page_of(paging, tool=tool, arguments=arguments, paths=[row.path for row in rows])
    result = FilesResult(pattern, len(rows), skipped, list(rows[offset:end]), page)
    if not rows:
        return Rendered(head + "No path matches.\n", result)
    return Rendered(_finish(head, items, page), result)


def _file_item(row: FileRow) -> str:
    if row.skipped:
        return f"- {code(row.path)} — not indexed: {row.skipped}\n"
    about = ", ".join(part for part in (row.language or "text", row.service and f"service {row.service}",
                                         _size(row.size)) if part)  # fmt: skip
    return f"- {code(row.path)} ({about})\n"


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"
