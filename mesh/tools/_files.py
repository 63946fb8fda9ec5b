"""``files``: paths by glob (``**/*.proto``, ``orders/**/test_*.py``) or by a fuzzy name
(``orderservice`` finds ``OrderService.java``), with language, service and size; paths the index
left out are listed too, with why. Paged, whatever the pattern matches.

A glob without ``/`` matches a file's name anywhere (``*.proto``); with ``/`` it matches the whole
workspace-relative path, ``**`` standing for any number of folders. A pattern without glob
characters is a name: files whose name holds it come first (same name, then names starting with
it), then paths holding it, then paths holding its letters in order; case is ignored.
"""

from __future__ import annotations

import re
from typing import Final

import attrs

from ..index.query._graph import GraphError
from ..render._navigation import FileRow, FilesResult, compose_files
from ..render._paging import Rendered
from ._args import describe
from ._dependents import scope_of_text
from ._registry import ToolError
from ._view import CURSOR_CHARS_MAX, View, arguments_of, cursor_offset

__all__ = ["DESCRIPTION", "NAME", "TITLE", "Args", "Result", "answer", "choose", "glob_regex", "prefilter", "run"]

NAME: Final = "files"
TITLE: Final = "Files by glob or name"
DESCRIPTION: Final = (
    "Paths by glob (`**/*.proto`) or fuzzy name (`orderservice`), with language, service and size; "
    "files left out of the index say why."
)
Result = FilesResult
_GLOB_CHARS: Final = frozenset("*?[")


@attrs.frozen(kw_only=True)
class Args:
    pattern: str = attrs.field(metadata=describe("A glob or a name", min_length=1, max_length=500))
    scope: str | None = attrs.field(default=None, metadata=describe("A service or path prefix", max_length=1000))
    cursor: str | None = attrs.field(
        default=None, metadata=describe("Next page", max_length=CURSOR_CHARS_MAX)
    )


def answer(args: Args, view: View) -> str:
    return run(args, view).text


def text_stage(_args: Args) -> bool:
    """A snapshot of the text alone lists every file already (INV-INDEX-10)."""
    return True


def run(args: Args, view: View) -> Rendered:
    pattern = args.pattern.strip()
    if not pattern:
        raise ToolError("The pattern is empty: give a glob (`**/*.proto`) or part of a file name.")
    try:
        scope = scope_of_text(view, args.scope)
    except GraphError as exc:
        raise ToolError(str(exc)) from None
    where, params = prefilter(pattern)
    indexed = view.db.execute(
        f"SELECT path, service, language, lines, size FROM files{where.format(path='path')} ORDER BY path", params
    ).fetchall()
    skipped = view.db.execute(
        "SELECT s.path, s.reason, coalesce(d.service, ''), coalesce(d.size, 0), coalesce(d.folder, 0)"
        f" FROM skipped s LEFT JOIN skipped_detail d ON d.path = s.path{where.format(path='s.path')} ORDER BY s.path",
        params,
    ).fetchall()
    rows = [FileRow(path, service, language, lines, size, "", []) for path, service, language, lines, size in indexed]
    rows += [
        FileRow(path + ("/" if folder else ""), service, "", 0, size, reason, [])
        for path, reason, service, size, folder in skipped
    ]
    if scope is not None:
        rows = [row for row in rows if scope.holds(row.path.rstrip("/"), row.service)]
    chosen = choose(rows, pattern)
    offset = cursor_offset(args.cursor, len(chosen), tool=NAME, args=args, noun="files")
    return compose_files(pattern, chosen, arguments_of(args), tool=NAME, offset=offset)


def choose(rows: list[FileRow], pattern: str) -> list[FileRow]:
    """The rows ``pattern`` selects, in the order they are listed: by path for a glob, best first
    for a name."""
    if not _GLOB_CHARS & set(pattern):
        return _by_name(rows, pattern)
    matcher = glob_regex(pattern)
    on_name = "/" not in pattern
    chosen = [
        row
        for row in rows
        if matcher.fullmatch(row.path.rstrip("/").rsplit("/", 1)[-1] if on_name else row.path.rstrip("/"))
    ]
    chosen.sort(key=lambda row: row.path)
    return chosen


def prefilter(pattern: str) -> tuple[str, list[str]]:
    """A ``WHERE`` clause (``{path}`` to be formatted with the column) and its parameters that keep
    every path :func:`choose` may select, so that a large workspace's other files are never read
    into rows (INV-TOOL-14)."""
    if _GLOB_CHARS & set(pattern):
        return _prefilter(_literal_runs(pattern), ordered=False)
    return _prefilter([pattern.casefold()], ordered=True)


def _literal_runs(pattern: str) -> list[str]:
    """The runs of literal characters of a glob, as :func:`glob_regex` reads it: every path it
    matches holds each of them (ignoring ASCII case)."""
    runs: list[str] = []
    run: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        end = _class_end(pattern, index) if char == "[" else -1
        if char in "*?" or end >= 0:
            runs.append("".join(run))
            run = []
            # ``**/`` may stand for no folder at all: its ``/`` is not held
            index = end + 1 if end >= 0 else index + (3 if pattern.startswith("**/", index) else 1)
            continue
        run.append(char)
        index += 1
    runs.append("".join(run))
    return [run for run in runs if run]


def _prefilter(parts: list[str], *, ordered: bool) -> tuple[str, list[str]]:
    """A ``WHERE`` clause (``{path}`` to be formatted with the column) keeping every path that holds
    each of ``parts`` (``ordered``: each of its characters, in order), and then some: SQLite's
    ``LIKE`` ignores the case of ASCII letters only, so a path with a character outside ASCII is
    always kept, and a part with one narrows nothing. The pattern's own matching decides
    after; this only spares building a row for every file of a large workspace."""
    likes: list[str] = []
    for part in parts:
        if not part or not part.isascii():
            continue
        escaped = [char if char not in "%_\\" else "\\" + char for char in part]
        likes.append("%" + ("%".join(escaped) if ordered else "".join(escaped)) + "%")
    if not likes:
        return "", []
    held = " AND ".join("{path} LIKE ? ESCAPE '\\'" for _ in likes)
    # a character outside ASCII takes more than one byte in UTF-8 (a GLOB on it costs 15 times more)
    return f" WHERE (({held}) OR length({{path}}) != length(CAST({{path}} AS BLOB)))", likes


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob as a regular expression: ``**`` any folders, ``*`` and ``?`` within one name,
    ``[...]`` a class; anything else literal."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:[^/]+/)*")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = _class_end(pattern, index)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1 : end]
                negated = body.startswith("!")
                body = re.escape(body[1:] if negated else body).replace("\\-", "-")
                out.append(f"[{'^' if negated else ''}{body}]")
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    try:
        return re.compile("".join(out), re.IGNORECASE if pattern.lower() == pattern else 0)
    except re.error as exc:  # a class's range upside down (``[z-a]``)
        raise ToolError(f"The glob `{pattern}` is not valid: {exc.msg} in a `[...]` class.") from None


def _class_end(pattern: str, index: int) -> int:
    """Where the ``[...]`` class opening at ``index`` closes, or -1 when that ``[`` is a literal: a
    ``]`` right after ``[`` or ``[!`` belongs to the class, so ``[]]`` and ``[!]]`` are classes."""
    return pattern.find("]", index + (3 if pattern.startswith("[!", index) else 2))


def _by_name(rows: list[FileRow], pattern: str) -> list[FileRow]:
    wanted = pattern.casefold()
    letters = re.compile(".*?".join(re.escape(char) for char in wanted))
    ranked: list[tuple[int, int, str, FileRow]] = []
    for row in rows:
        path = row.path.rstrip("/").casefold()
        name = path.rsplit("/", 1)[-1]
        stem = name.split(".", 1)[0]
        if name == wanted or stem == wanted:
            tier = 0
        elif name.startswith(wanted):
            tier = 1
        elif wanted in name:
            tier = 2
        elif wanted in path:
            tier = 3
        elif letters.search(name.replace("_", "").replace("-", "")) or letters.search(path):
            tier = 4
        else:
            continue
        ranked.append((tier, len(path), row.path, row))
    ranked.sort(key=lambda item: item[:3])
    return [row for *_, row in ranked]
