"""``doc_sections``: the section trees of the workspace's Markdown docs, or the text of chosen sections.

What it answers
---------------
- **No arguments**: the section tree of every Markdown file (``.md``, ``.markdown``: the files the
  index parsed as ``markdown``; READMEs included), by path, to ``depth`` 2 unless told otherwise.
- **``path``**: a Markdown file (its whole tree, every level unless ``depth`` says otherwise), or a
  folder (the trees of the files under it, to depth 2 by default).
- **``heading``**: sections found by title, within ``path`` when given: titles equal to it
  (ignoring case) rank first, then titles holding it (the larger the share of the title, the
  better), then titles holding each of its words in any order, apart or split ("redis cache
  setup" finds "Set up the cache (Redis)"); only when no title holds every word, titles holding
  the most of them; only when none holds any, titles difflib finds close. When one section ranks
  strictly best it wins: its text is shown, with the other matches named. When several tie, the
  answer is the ranked list of candidates with their ids.
- **``section_id``**: the text of that section (its lines, subsections included, read as of the
  snapshot), with its breadcrumb, parent, siblings and subsections, each with its id.

Ids: the index numbers sections per file (``runbook/deploying/verify-2``), so the answers print
qualified ids, ``<path>#<section id>``; that is exactly what ``section_id`` takes back. A bare id
is accepted too: within ``path`` when it is a file, else looked up in every Markdown file (under
``path`` when it is a folder), which must hold exactly one section with it.

``depth`` counts levels of the tree, not heading levels: 1 is a file's top sections, whatever
their ``#``. For a section's text it says how many levels of subsections the text goes down (1:
the section's own text only); those left out are marked where they sit, with their ids. Each
tree row says how many subsections sit deeper than it shows.

Paging: every answer stays within a page (``mesh.render._docs.PAGE_BYTES``) and prints the cursor
of the next page; a cursor is only good for the kind of answer that printed it (``file:``,
``section:``, ``match:`` or ``line:``). Failures an agent can act on are :class:`ToolError`\\s
that say what to try: a path outside the workspace or not a Markdown file or folder, an unknown
or ambiguous section id (with close ids), a heading nothing matches (with the nearest titles),
a file without headings, a cursor that does not fit, ``heading`` and ``section_id`` together.
"""

from __future__ import annotations

from typing import Final

import attrs

from ..index.query._docs_query import (
    DocFile,
    DocSection,
    Outline,
    any_file_under,
    close_paths,
    close_sections,
    files_holding,
    indexed_file,
    markdown_file,
    markdown_files,
    match_headings,
    nearest_titles,
    outline,
    scope_sections,
    section_lines,
    skipped_reason,
    split_qualified,
)
from ..render._docs import (
    Cursor,
    DocsResult,
    compose_matches,
    compose_outline,
    compose_section,
    compose_tree,
    parse_cursor,
)
from ..render._paging import Rendered, call_text, code
from ._args import describe
from ._registry import ToolError
from ._view import CURSOR_CHARS_MAX, View, arguments_of, workspace_path

__all__ = ["DESCRIPTION", "NAME", "TITLE", "Args", "Result", "answer", "run"]

NAME: Final = "doc_sections"
TITLE: Final = "Doc sections"
DESCRIPTION: Final = (
    "The section tree of Markdown docs (all, a folder or a file), or a section's text by `section_id` or "
    "`heading` (fuzzy)."
)
#: The structured result (``outputSchema``): the same page as the Markdown.
Result = DocsResult
#: How deep the trees of several files go unless ``depth`` says otherwise.
FOLDER_DEPTH: Final = 2
#: How many candidates an error lists.
SUGGESTIONS_MAX: Final = 5


@attrs.frozen(kw_only=True)
class Args:
    path: str | None = attrs.field(
        default=None,
        metadata=describe("File or folder", max_length=4096),
    )
    heading: str | None = attrs.field(
        default=None,
        metadata=describe(
            "A title, fuzzy",
            min_length=1,
            max_length=500,
        ),
    )
    section_id: str | None = attrs.field(
        default=None,
        metadata=describe("`path#id`", min_length=1, max_length=5000),
    )
    depth: int | None = attrs.field(
        default=None,
        metadata=describe(
            "Tree levels",
            minimum=1,
            maximum=6,
        ),
    )
    cursor: str | None = attrs.field(
        default=None,
        metadata=describe("Next page", min_length=1, max_length=CURSOR_CHARS_MAX),
    )


def answer(args: Args, view: View) -> str:
    """The tree or the text the arguments ask for (see the module doc); :class:`ToolError` for failures."""
    return run(args, view).text


def run(args: Args, view: View) -> Rendered:
    """:func:`answer` as Markdown and as a :class:`Result`."""
    if args.section_id is not None and args.heading is not None:
        raise ToolError(
            "Give either `section_id` (an id as printed) or `heading` (a title to look for), not both; "
            "drop `heading` to read the section with that id."
        )
    arguments = arguments_of(args)
    cursor = _cursor(args.cursor)
    path = workspace_path(view.root, args.path) if args.path is not None else ""
    if args.section_id is not None:
        found, section = _by_id(view, args.section_id, path)
        return _text(view, found, section, args, arguments, cursor)
    scope = _scope(view, path, args.path)
    if args.heading is not None:
        return _by_heading(view, scope, path, args, arguments, cursor)
    if isinstance(scope, DocFile):
        tree = _outline_with_headings(view, scope)
        rows = sum(1 for section in tree.sections if tree.depth(section) <= (args.depth or 6))
        offset = _offset(cursor, "section", rows, args.cursor)
        return compose_outline(tree, arguments=arguments, depth=args.depth, offset=offset)
    offset = _offset(cursor, "file", len(scope), args.cursor)
    return compose_tree(
        scope,
        lambda file: outline(view.db, file),
        arguments=arguments,
        folder=path,
        depth=args.depth or FOLDER_DEPTH,
        offset=offset,
    )


# -- what the call is about ---------------------------------------------------------------------


def _scope(view: View, path: str, raw: str | None) -> DocFile | tuple[DocFile, ...]:
    """The Markdown file at ``path``, or the Markdown files under it (a folder; "" is the workspace)."""
    db = view.db
    if not path:
        files = markdown_files(db)
        if not files:
            raise ToolError(
                "The index holds no Markdown files (.md, .markdown): this workspace has no docs to show. "
                "Search the code instead, or add a README."
            )
        return files
    file = markdown_file(db, path)
    if file is not None:
        return file
    known = indexed_file(db, path)
    if known is not None:
        language, kind = known
        raise ToolError(
            f"`{path}` is a {language or kind} file, not Markdown: `{NAME}` reads .md and .markdown files. "
            f"Give a Markdown file or a folder holding some{_close_paths_hint(view, path)}"
        )
    files = markdown_files(db, path)
    if files:
        return files
    base, _ = split_qualified(path)
    if base and markdown_file(db, base) is not None:
        raise ToolError(
            f"`path` takes a file or a folder; `{raw}` looks like a section id: {call_text(NAME, {'section_id': path})}"
        )
    if any_file_under(db, path):
        raise ToolError(
            f"The folder `{path}` holds no Markdown files. Give another folder, or leave `path` out for every doc"
            f"{_close_paths_hint(view, path)}"
        )
    reason = skipped_reason(db, path)
    if reason is not None:
        raise ToolError(f"`{path}` is not in the index ({reason}), so it has no sections to show.")
    raise ToolError(
        f"`{path}` is neither an indexed Markdown file nor a folder holding one{_close_paths_hint(view, path)}"
    )


def _close_paths_hint(view: View, path: str) -> str:
    close = close_paths(view.db, path, SUGGESTIONS_MAX)
    if not close:
        return f". List every doc: {call_text(NAME, {})}"
    return "; close ones: " + ", ".join(code(candidate) for candidate in close) + "."


def _outline_with_headings(view: View, file: DocFile) -> Outline:
    """The outline of ``file``, which must have sections to show."""
    if file.error:
        raise ToolError(f"`{file.path}` could not be parsed ({file.error}), so its sections are unknown.")
    tree = outline(view.db, file)
    if not tree.sections:
        raise ToolError(
            f"`{file.path}` has no headings ({file.lines} lines), so it has no sections to show; "
            "read the file itself, or list the docs around it: "
            f"{call_text(NAME, {'path': file.path.rpartition('/')[0]} if '/' in file.path else {})}"
        )
    return tree


def _by_id(view: View, text: str, path: str) -> tuple[Outline, DocSection]:
    """The section ``text`` names (qualified, or bare within ``path``), with its file's outline."""
    file_part, bare = split_qualified(text.strip())
    if file_part:
        file_path = workspace_path(view.root, file_part, what="section id's file")
        if path and file_path != path and not file_path.startswith(path + "/"):
            raise ToolError(
                f"The section id `{text}` is in `{file_path}`, which is not under `path` `{path}`; "
                "leave `path` out when you give a full id."
            )
        scope = _scope(view, file_path, file_part)
        if not isinstance(scope, DocFile):
            raise ToolError(
                f"`{file_path}` in the section id `{text}` is a folder; a section id names a Markdown file "
                f"(`path/to/file.md#id`). List the ids under it: {call_text(NAME, {'path': file_path})}"
            )
        return _in_file(view, scope, bare, text)
    scope = _scope(view, path, path)
    if isinstance(scope, DocFile):
        return _in_file(view, scope, bare, text)
    holding = files_holding(view.db, bare, path)
    if len(holding) == 1:
        return _in_file(view, holding[0], bare, text)
    where = f"under `{path}`" if path else "in the workspace"
    if holding:
        listed = ", ".join(code(f"{file.path}#{bare}") for file in holding[:SUGGESTIONS_MAX])
        more = f" and {len(holding) - SUGGESTIONS_MAX} more" if len(holding) > SUGGESTIONS_MAX else ""
        raise ToolError(
            f"{len(holding)} files {where} have a section `{bare}`: {listed}{more}. "
            "Pass the full id (`path#id`) as printed."
        )
    raise ToolError(
        f"No Markdown file {where} has a section `{bare}`.{_close_ids_hint(scope_sections(view.db, path), bare)} "
        f"List the sections: {call_text(NAME, {'path': path} if path else {})}"
    )


def _in_file(view: View, file: DocFile, bare: str, text: str) -> tuple[Outline, DocSection]:
    tree = _outline_with_headings(view, file)
    section = tree.get(bare)
    if section is None:
        raise ToolError(
            f"`{file.path}` has no section `{bare}` (asked for `{text}`).{_close_ids_hint(tree.sections, bare)} "
            f"List its sections: {call_text(NAME, {'path': file.path})}"
        )
    return tree, section


def _close_ids_hint(sections: tuple[DocSection, ...], wanted: str) -> str:
    close = close_sections(sections, wanted, SUGGESTIONS_MAX)
    if not close:
        return ""
    return " Close ones: " + ", ".join(f"{code(s.qualified)} ({s.title})" for s in close) + "."


# -- answers -------------------------------------------------------------------------------------


def _by_heading(
    view: View, scope: DocFile | tuple[DocFile, ...], path: str, args: Args, arguments: dict, cursor: Cursor | None
) -> Rendered:
    heading = args.heading or ""
    where: DocFile | str = scope if isinstance(scope, DocFile) else path
    matches = match_headings(view.db, heading, where)
    if not matches:
        near = nearest_titles(view.db, heading, where, SUGGESTIONS_MAX)
        inside = f"`{scope.path}`" if isinstance(scope, DocFile) else (f"`{where}`" if where else "the workspace")
        hint = (
            "; nearest titles: " + ", ".join(code(title) for title in near) + "."
            if near
            else ". Try a shorter part of the title."
        )
        listing = {"path": scope.path} if isinstance(scope, DocFile) else ({"path": where} if where else {})
        raise ToolError(f"No heading in {inside} matches `{heading}`{hint} List the titles: {call_text(NAME, listing)}")
    best = [match for match in matches if match.ties(matches[0])]
    if len(best) == 1 and (cursor is None or cursor.kind == "line"):
        winner = matches[0]
        tree = outline(view.db, winner.file)
        return _text(view, tree, winner.section, args, arguments, cursor, matched=matches)
    offset = _offset(cursor, "match", len(matches), args.cursor)
    return compose_matches(
        matches, lambda file: outline(view.db, file), arguments=arguments, heading=heading, offset=offset
    )


def _text(
    view: View,
    tree: Outline,
    section: DocSection,
    args: Args,
    arguments: dict,
    cursor: Cursor | None,
    matched: tuple = (),
) -> Rendered:
    lines = section_lines(view.db, view.root, tree.file)
    if lines is None:
        raise ToolError(f"The index keeps no text for `{tree.file.path}`; its section tree is all there is.")
    if cursor is not None and cursor.kind != "line":
        raise _bad_cursor(args.cursor)
    try:
        return compose_section(
            tree,
            section,
            lines,
            arguments=arguments,
            depth=args.depth,
            start=None if cursor is None else cursor.number,
            matched=matched,
        )
    except ValueError:
        raise _bad_cursor(args.cursor) from None


# -- cursors -------------------------------------------------------------------------------------


def _cursor(text: str | None) -> Cursor | None:
    if text is None:
        return None
    try:
        return parse_cursor(text)
    except ValueError:
        raise _bad_cursor(text) from None


def _offset(cursor: Cursor | None, kind: str, total: int, text: str | None) -> int:
    """The first row of the page ``cursor`` asks for, which must be a ``kind`` cursor within ``total``."""
    if cursor is None:
        return 0
    if cursor.kind != kind or not 0 <= cursor.number < total:
        raise _bad_cursor(text)
    return cursor.number


def _bad_cursor(text: str | None) -> ToolError:
    return ToolError(
        f"The cursor `{text}` does not fit this call: pass a cursor exactly as the previous answer printed it, "
        "with the same other arguments (the index may also have changed since); drop `cursor` to start over."
    )
