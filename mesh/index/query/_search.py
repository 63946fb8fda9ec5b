"""Text search over one snapshot: the trigram index narrows, the text decides.

Theory of operation
-------------------
A query becomes a formula over folded substrings (``_trigrams.plan`` / ``plan_literal``); its FTS5
form picks the candidate files from the trigram table (a formula that says nothing, such as
``.*``, takes every file with text). Filters (service, path prefix or glob, language, kind) apply
in SQL before any text is read. Each candidate's text is read (from disk when its size and mtime
are still the snapshot's, else the snapshot's stored copy): the formula's needles (``str.find``
over the folded text) pick the lines worth matching and the compiled pattern decides,
case-sensitively or not. Reading stops after ``max_matches``.

Matches are ranked the same way every time: a line that defines a symbol the query matches comes
first, then code, protos, tests, config, docs and the rest, then path and line. The caller pages
through the ranked list.

Regular expressions run on RE2 (``google-re2``): matching is linear in the text, so no pattern can
hang a server. A pattern is checked and compiled before anything is read, and an invalid one (RE2
has no back-references or lookaround) is a :class:`SearchError` that says why. The trigram plan
reads the pattern with Python's parser, which agrees with RE2 on the common syntax; a pattern
Python cannot read, or one with a POSIX class (``[[:alpha:]]``, which Python reads differently),
is planned as "any file" (slower, never wrong). Literal queries are escaped and use ``re``.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sqlite3
import threading
import warnings
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import attrs
import re2

from ..store._trigrams import ALL, Query, fold, plan, plan_literal

__all__ = ["Found", "Match", "SearchError", "compile_query", "file_text", "search", "symbols"]

#: Rank of each kind of file: lower first.
KIND_RANK: Final = {"code": 0, "proto": 1, "test": 2, "config": 3, "docs": 4, "other": 5}
MAX_MATCHES: Final = 10_000
#: RE2's memory for one compiled pattern (a larger one is an error, not a slow search).
RE2_MEMORY_BYTES: Final = 32 << 20

#: A compiled pattern: ``re`` for literals, RE2 for regular expressions (both have ``search``).
Pattern = Any


class SearchError(ValueError):
    """The query cannot be run as given (an invalid regular expression, an empty query)."""


@attrs.frozen
class Match:
    path: str
    line: int
    #: The whole line, without its newline.
    text: str
    service: str
    language: str
    kind: str
    #: The kind of the definition on this line whose name the query matches ("" when none).
    definition: str = ""
    #: The innermost definition holding the line, as ``Container.name`` ("" at top level).
    enclosing: str = ""

    def rank(self) -> tuple:
        return (self.definition == "", KIND_RANK.get(self.kind, 9), self.path, self.line)


@attrs.frozen
class Found:
    #: Every match found, ranked (at most ``max_matches``).
    matches: tuple[Match, ...]
    #: Files that had at least one match.
    files: int
    #: Reading stopped at ``max_matches``: there may be more.
    capped: bool


def search(
    db: sqlite3.Connection,
    query: str,
    *,
    regex: bool = False,
    case_sensitive: bool = False,
    services: tuple[str, ...] = (),
    path_prefix: str = "",
    path_glob: str = "",
    language: str = "",
    kind: str = "",
    max_matches: int = MAX_MATCHES,
    root: Path | None = None,
    cancelled: threading.Event | None = None,
) -> Found:
    """Every line of the snapshot ``db`` reads that matches ``query``, ranked; see the module doc.

    With the workspace ``root``, a candidate whose size and mtime on disk are still those of the
    snapshot is read from disk (measured about 4x faster than decompressing the stored copy);
    any other is read from the snapshot's own stored text.
    """
    if not query:
        raise SearchError("the query is empty")
    pattern, formula = compile_query(query, regex=regex, case_sensitive=case_sensitive)
    needles = formula.needles()
    if needles == ():
        return Found((), 0, False)  # the formula cannot be satisfied: nothing can match
    where, params = _filters(services, path_prefix, language, kind)
    match = formula.fts5(phrases=False)
    if match is None:
        sql = f"SELECT f.id, f.path, f.service, f.language, f.kind, f.size, f.mtime_ns FROM files f WHERE 1 {where}"
    else:
        sql = (
            "SELECT f.id, f.path, f.service, f.language, f.kind, f.size, f.mtime_ns"
            " FROM text JOIN files f ON f.id = text.rowid"
            f" WHERE text MATCH ? {where}"
        )
        params = [match, *params]
    matches: list[Match] = []
    files = 0
    capped = False
    rows = db.execute(sql + " ORDER BY f.path", params).fetchall()
    for file_id, path, service, lang, file_kind, size, mtime_ns in rows:
        if cancelled is not None and cancelled.is_set():
            raise SearchError("the search was cancelled")
        if path_glob and not fnmatch.fnmatchcase(path, path_glob):
            continue
        text = file_text(db, root, file_id, path, size, mtime_ns)
        if text is None:
            continue
        found = _regex_lines(text, pattern) if regex else _lines(text, pattern, needles)
        if not found:
            continue
        files += 1
        about = _definitions(db, file_id, [number for number, _ in found], pattern)
        for number, text in found:
            kind, enclosing = about[number]
            matches.append(Match(path, number, text, service, lang, file_kind, kind, enclosing))
            if len(matches) >= max_matches:
                capped = True
                break
        if capped:
            break
    matches.sort(key=Match.rank)
    return Found(tuple(matches), files, capped)


def compile_query(query: str, *, regex: bool, case_sensitive: bool) -> tuple[Pattern, Query]:
    """The pattern that decides a line, and the trigram formula that picks candidate files."""
    if not regex:
        return re.compile(re.escape(query), 0 if case_sensitive else re.IGNORECASE), plan_literal(query)
    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = case_sensitive
    options.max_mem = RE2_MEMORY_BYTES
    options.never_nl = True  # a match never spans lines: matching the text is matching its lines
    try:
        pattern = re2.compile("(?m)" + query, options)  # ^ and $ at line boundaries, as per line
    except re2.error as exc:
        why = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise SearchError(f"invalid regular expression: {why} (RE2 syntax: no back-references or lookaround)") from None
    if "[:" in query:
        return pattern, ALL
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set" and friends: the plan does not care
            formula = plan(query, 0 if case_sensitive else re.IGNORECASE)
    except (re.error, RecursionError, OverflowError):
        formula = ALL  # RE2-only syntax (\pL, \x{...}, \z...): every file is a candidate
    return pattern, formula


def _filters(services: tuple[str, ...], path_prefix: str, language: str, kind: str) -> tuple[str, list]:
    clauses, params = [], []
    if services:
        clauses.append(f"f.service IN ({', '.join('?' * len(services))})")
        params += list(services)
    if path_prefix:
        prefix = path_prefix.strip("/")
        clauses.append("(f.path = ? OR substr(f.path, 1, ?) = ?)")
        params += [prefix, len(prefix) + 1, prefix + "/"]
    if language:
        clauses.append("f.language IN (?, ?)")
        params += [language, "tsx" if language == "typescript" else language]
    if kind:
        clauses.append("f.kind = ?")
        params.append(kind)
    return "".join(f" AND {clause}" for clause in clauses), params


def file_text(
    db: sqlite3.Connection, root: Path | None, file_id: int, path: str, size: int, mtime_ns: int
) -> str | None:
    """The text of one indexed file as of the snapshot ``db`` (the arguments are its ``files`` row).

    From disk when the file's size and mtime are still the snapshot's, else the stored copy;
    ``None`` when the snapshot keeps no text for it (binary, skipped).
    """
    if root is not None:
        try:
            with open(root / path, "rb") as handle:
                status = os.fstat(handle.fileno())
                if (status.st_size, status.st_mtime_ns) == (size, mtime_ns):
                    return handle.read().decode("utf-8", "replace")
        except OSError:
            pass
    row = db.execute("SELECT data FROM content WHERE file_id = ?", (file_id,)).fetchone()
    return None if row is None else zlib.decompress(row[0]).decode("utf-8", "replace")


def _regex_lines(text: str, pattern: Pattern) -> list[tuple[int, str]]:
    """(line number, line) of every line an RE2 pattern (multi-line, never across a newline) matches.

    One scan of the whole text in RE2 rejects a file without a match; matches are then walked
    one per line. (The wrapper's per-call cost is ~10 us, so per-line calls are the slow way.)
    A pattern that matches the empty string matches every line, and is checked line by line.
    """
    if pattern.search(text) is None:
        return []
    if pattern.search("") is not None:
        return _lines(text, pattern, None)
    starts = sorted({text.rfind("\n", 0, match.start()) + 1 for match in pattern.finditer(text)})
    return list(_numbered(text, starts))


def _numbered(text: str, starts: list[int]) -> Iterator[tuple[int, str]]:
    """(line number, line without its ending) of each line starting at an offset of ``starts`` (sorted)."""
    number, previous = 1, 0
    for start in starts:
        number += text.count("\n", previous, start)
        previous = start
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        yield number, line.removesuffix("\r")


def _lines(text: str, pattern: Pattern, needles: tuple[str, ...] | None) -> list[tuple[int, str]]:
    """(line number, line) of every line of ``text`` the pattern matches.

    With needles, only the lines holding one are looked at: each needle is found with ``str.find``
    over the folded text, jumping a line at a time, so a big file with a few hits costs a few finds.
    """
    if needles is None:
        return [(n, line.removesuffix("\r")) for n, line in enumerate(text.split("\n"), 1) if pattern.search(line)]
    folded = fold(text)
    starts: set[int] = set()
    for needle in needles:
        position = folded.find(needle)
        while position >= 0:
            starts.add(folded.rfind("\n", 0, position) + 1)
            after = folded.find("\n", position)
            if after < 0:
                break
            position = folded.find(needle, after)
    return [(number, line) for number, line in _numbered(text, sorted(starts)) if pattern.search(line)]


def _definitions(
    db: sqlite3.Connection, file_id: int, lines: list[int], pattern: Pattern
) -> dict[int, tuple[str, str]]:
    """line -> (kind of a definition on that line whose name the pattern matches, or "";
    the innermost definition holding the line and starting before it, as ``Container.name``, or "")."""
    rows = db.execute(
        "SELECT line, end_line, name, kind, container FROM defs WHERE file_id = ? ORDER BY line, end_line DESC, name",
        (file_id,),
    ).fetchall()
    about: dict[int, tuple[str, str]] = {}
    for number in lines:
        kind = enclosing = ""
        for line, end_line, name, def_kind, container in rows:
            if line > number:
                break
            if line == number and not kind and pattern.search(name):
                kind = def_kind
            if end_line >= number and line < number:
                # The last one is the innermost; one starting on this line is the line itself.
                enclosing = f"{container}.{name}" if container else name
        about[number] = (kind, enclosing)
    return about


def symbols(
    db: sqlite3.Connection,
    query: str,
    *,
    case_sensitive: bool = False,
    services: tuple[str, ...] = (),
    path_prefix: str = "",
    path_glob: str = "",
    language: str = "",
    kind: str = "",
    max_matches: int = MAX_MATCHES,
) -> Found:
    """Definitions named like ``query``: exact names first, then names starting with it, then the
    rest holding it; within each, code before tests and docs, then path and line.

    Exact and prefix lookups use the name index; the substring pass scans the definitions (once,
    only when the first two passes leave room under ``max_matches``).
    """
    if not query:
        raise SearchError("the query is empty")
    where, params = _filters(services, path_prefix, language, kind)
    folded = query.casefold()
    select = (
        "SELECT f.path, d.line, d.name, d.kind, d.container, f.service, f.language, f.kind"
        " FROM defs d JOIN files f ON f.id = d.file_id WHERE "
    )
    escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    passes = (
        ("d.name = ? COLLATE NOCASE", [query]),
        ("d.name LIKE ? ESCAPE '\\' AND d.name != ? COLLATE NOCASE", [escaped + "%", query]),
        ("d.name LIKE ? ESCAPE '\\' AND d.name NOT LIKE ? ESCAPE '\\'", ["%" + escaped + "%", escaped + "%"]),
    )
    found: list[tuple[int, tuple, Match]] = []
    seen_files: set[str] = set()
    capped = False
    for tier, (condition, values) in enumerate(passes):
        rows = db.execute(select + condition + where + " ORDER BY f.path, d.line, d.name", [*values, *params])
        for path, line, name, def_kind, container, service, lang, file_kind in rows:
            if case_sensitive and query not in name:
                continue
            if not case_sensitive and folded not in name.casefold():
                continue
            if path_glob and not fnmatch.fnmatchcase(path, path_glob):
                continue
            if len(found) >= max_matches:
                capped = True
                break
            qualified = f"{container}.{name}" if container else name
            match = Match(path, line, qualified, service, lang, file_kind, def_kind, container)
            found.append((tier, match.rank(), match))
            seen_files.add(path)
        if capped:
            break
    found.sort(key=lambda item: (item[0], item[1][1:]))
    return Found(tuple(match for _, _, match in found), len(seen_files), capped)
