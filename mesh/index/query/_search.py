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

:func:`ranked` reads only as far as a page needs (INV-SEARCH-3). The definitions the query can
match are found first in the ``defs`` table (a name the pattern matches holds one of the formula's
needles, so ``LIKE`` over the names narrows them, names with non-ASCII characters always kept),
and the files holding one are read at once: every definition match is known before anything
else. The other candidates are then read one at a time in rank order (kind, then path), each
once, so the matches after the definitions come out already ranked: the list is known up to the
last file read, and a page asks for no more than it shows. What was not read is counted
(``Found.unread`` of ``Found.candidates``) and the total estimated from the files read.

Regular expressions run on RE2 (``google-re2``): matching is linear in the text, so no pattern can
hang a server. A pattern is checked and compiled before anything is read, and an invalid one (RE2
has no back-references or lookaround) is a :class:`SearchError` that says why. The trigram plan
reads the pattern with Python's parser, which agrees with RE2 on the common syntax; a pattern
Python cannot read, or one with a POSIX class (``[[:alpha:]]``, which Python reads differently),
is planned as "any file" (slower, never wrong). Literal queries are escaped and use ``re``.

What a search cannot have read is told by :func:`not_searched`: the paths left out of the index
in the same scope (``skipped``, with its ``skipped_detail``: the service, folder or file, stat) and
the indexed files that keep no text, counted by reason. Generated files are the one kind read at
query time, and only while unchanged since the snapshot and within a read budget, to count the
lines that would have matched; secret-looking files are counted, never read.
"""

from __future__ import annotations

import fnmatch
import json
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

from .._files import read_if_unchanged
from ..parse import language_of
from ..parse._kinds import kind_of
from ..store._trigrams import ALL, Query, fold, plan, plan_literal
from ._names import all_names, like_folded, names_folded_holding, names_like
from ._plan import trigram_keeper

__all__ = ["Found", "LeftOut", "Match", "NotSearched", "Ranked", "SearchError", "compile_query", "file_text",
           "left_out_under", "not_searched", "ranked", "search", "symbols", "text_lines"]  # fmt: skip

#: Rank of each kind of file: lower first.
KIND_RANK: Final = {"code": 0, "proto": 1, "test": 2, "config": 3, "docs": 4, "other": 5}
MAX_MATCHES: Final = 10_000
#: RE2's memory for one compiled pattern (a larger one is an error, not a slow search).
RE2_MEMORY_BYTES: Final = 32 << 20
#: Reading generated files to count their matches stops past this many files or bytes, and skips
#: a file larger than GENERATED_READ_FILE_BYTES_MAX.
GENERATED_READ_FILES_MAX: Final = 200
GENERATED_READ_BYTES_MAX: Final = 16 << 20
GENERATED_READ_FILE_BYTES_MAX: Final = 2 << 20
#: Example paths kept per reason (and files with matches kept) in :class:`NotSearched`.
EXAMPLES_MAX: Final = 3
MATCHED_MAX: Final = 5
#: Why a path was left out, as the walk and the workers say it -> the reason :class:`LeftOut` reports.
#: Paths left out for being outside the workspace or aliases of walked ones are not reported: their
#: text is searched under another path, or is not the workspace's.
_REASONS: Final = (
    ("generated", "generated"),
    ("vendored or generated folder", "vendored"),
    ("may hold secrets", "secrets"),
    ("larger than ", "too large"),
    ("binary", "binary"),
    ("ignored", "ignored"),
    ("unreadable", "unreadable"),
)
#: The order reasons are reported in.
LEFT_OUT_REASONS: Final = ("generated", "vendored", "secrets", "too large", "binary", "ignored", "unreadable")

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
    #: Reading stopped at ``max_matches``, or before the last candidate: there may be more.
    capped: bool
    #: Candidate files (those the trigram index and the filters let through), and how many of them
    #: were not read (reading stopped once the page was known): 0 when every one was read.
    candidates: int = 0
    unread: int = 0
    #: About how many matches all the candidates hold, and in how many files: the counts of the
    #: files read, and for the unread ones the same rates as in those read (exact when none is unread).
    estimate: int = 0
    estimate_files: int = 0


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
    return ranked(
        db, query, regex=regex, case_sensitive=case_sensitive, services=services, path_prefix=path_prefix,
        path_glob=path_glob, language=language, kind=kind, max_matches=max_matches, root=root, cancelled=cancelled,
    ).read_all()  # fmt: skip


def ranked(
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
) -> Ranked:
    """The ranked matches of :func:`search`, read as far as asked (:meth:`Ranked.at`): the files
    defining a symbol the query can match are read now, the other candidates when a page reaches them."""
    if not query:
        raise SearchError("the query is empty")
    pattern, formula = compile_query(query, regex=regex, case_sensitive=case_sensitive)
    needles = formula.needles()
    if needles == ():
        return Ranked(db, root, pattern, needles, regex, [], set(), max_matches, cancelled)  # nothing can match
    where, params = _filters(services, path_prefix, language, kind)
    match = formula.fts5(phrases=False, keep=trigram_keeper(db))  # the trigrams worth asking (INV-SEARCH-5)
    if match is None:
        sql = f"SELECT f.id, f.path, f.service, f.language, f.kind, f.size, f.mtime_ns FROM files f WHERE 1 {where}"
    else:
        sql = (
            "SELECT f.id, f.path, f.service, f.language, f.kind, f.size, f.mtime_ns"
            # CROSS JOIN: the text index drives. Driven by a service's or a language's files (their
            # indexes), SQLite asks the text index again for each of them: 20 s at 100,000 files.
            " FROM text CROSS JOIN files f ON f.id = text.rowid"
            f" WHERE text MATCH ? {where}"
        )
        params = [match, *params]
    rows = db.execute(sql, params).fetchall()
    if path_glob:
        rows = [row for row in rows if fnmatch.fnmatchcase(row[1], path_glob)]
    rows.sort(key=lambda row: (KIND_RANK.get(row[4], 9), row[1]))  # rank order: kind, then path
    defining = _defining_files(db, [row[0] for row in rows], pattern, needles)
    return Ranked(db, root, pattern, needles, regex, rows, defining, max_matches, cancelled)


#: Up to this many candidates, their definitions are looked at candidate by candidate (about 9 us
#: each, through ``defs_file``); past it, the names holding a needle are found through the names'
#: trigram index (:func:`~mesh.index.query._names.names_folded_holding`).
_DEFS_BY_FILE_MAX: Final = 200
#: The characters outside ASCII whose folded form is an ASCII letter (U+0130, U+0131, U+017F, U+212A).
_FOLDED_TO_ASCII: Final = tuple(chr(code) for code in (0x130, 0x131, 0x17F, 0x212A))


def _defining_files(
    db: sqlite3.Connection, ids: list[int], pattern: Pattern, needles: tuple[str, ...] | None
) -> set[int]:
    """The candidates (``ids``) defining a symbol whose name the pattern matches.

    A name the pattern matches satisfies the trigram formula, so its folded form holds one of the
    formula's needles. Few candidates: their definitions are read (``LIKE``, case-insensitive in
    ASCII, narrows them; a name with one of the few characters folding to an ASCII letter, or any
    name beyond ASCII for a needle beyond it, is kept). Many: the needles are looked for in the
    snapshot's names (:func:`~mesh.index.query._names.names_folded_holding`), and the files
    defining those that match looked up by name. Either way the pattern decides."""
    if not ids:
        return set()
    if len(ids) <= _DEFS_BY_FILE_MAX:
        condition, params = "1", []
        if needles is not None:
            ascii_needles = [needle for needle in needles if needle.isascii()]
            clauses = ["d.name LIKE ? ESCAPE '\\'"] * len(ascii_needles) + ["instr(d.name, ?)"] * len(_FOLDED_TO_ASCII)
            params = ["%" + re.sub(r"([%_\\])", r"\\\1", needle) + "%" for needle in ascii_needles]
            params += list(_FOLDED_TO_ASCII)
            if len(ascii_needles) < len(needles):
                clauses.append("length(d.name) != length(CAST(d.name AS BLOB))")
            condition = " OR ".join(clauses)
        rows = db.execute(
            "SELECT d.file_id, d.name FROM json_each(?) j CROSS JOIN defs d ON d.file_id = j.value"
            f" WHERE ({condition})",
            [json.dumps(ids), *params],
        )
        return {file_id for file_id, name in rows if pattern.search(name)}
    holding = all_names(db) if needles is None else names_folded_holding(db, needles)
    matching = [name for name in holding if pattern.search(name)]
    if not matching:
        return set()
    wanted, exact = set(ids), set(matching)
    rows = db.execute(
        "SELECT d.file_id, d.name FROM json_each(?) j CROSS JOIN defs d ON d.name = j.value COLLATE NOCASE",
        (json.dumps(matching),),
    )
    return {file_id for file_id, name in rows if name in exact and file_id in wanted}


class Ranked:
    """The matches of one search in rank order, read as far as asked.

    The files defining a symbol the query matches are read when it is made: every definition match
    ranks first, so they are all known at once (and the other matches of those files kept for their
    turn). :meth:`at` reads the other candidates one at a time in rank order (kind, then path) until
    the match asked for is known; each file is read once. Reading stops at ``max_matches``.
    """

    def __init__(
        self,
        db: sqlite3.Connection,
        root: Path | None,
        pattern: Pattern,
        needles: tuple[str, ...] | None,
        regex: bool,
        rows: list[tuple],
        defining: set[int],
        max_matches: int,
        cancelled: threading.Event | None,
    ) -> None:
        self._db, self._root, self._pattern, self._needles, self._regex = db, root, pattern, needles, regex
        self._rows = rows
        self._max = max_matches
        self._cancelled = cancelled
        self._defined: list[Match] = []
        self._kept: dict[int, list[Match]] = {}  # the other matches of the files defining something
        self._plain: list[Match] = []  # the other matches of the files passed, in rank order
        self._next = 0  # the next candidate to pass
        self._read = 0  # candidates read
        self._files = 0  # candidates read holding a match
        self._matched = 0  # matches in the candidates read
        self._capped = False
        for row in rows:
            if row[0] in defining:
                matches = self._matches_of(row)
                self._defined += [match for match in matches if match.definition]
                self._kept[row[0]] = [match for match in matches if not match.definition]
        self._defined.sort(key=Match.rank)
        if len(self._defined) >= max_matches:
            del self._defined[max_matches:]
            self._capped = True

    def _matches_of(self, row: tuple) -> list[Match]:
        if self._cancelled is not None and self._cancelled.is_set():
            raise SearchError("the search was cancelled")
        file_id, path, service, lang, file_kind, size, mtime_ns = row
        self._read += 1
        text = file_text(self._db, self._root, file_id, path, size, mtime_ns)
        if text is None:
            return []
        found = _regex_lines(text, self._pattern) if self._regex else _lines(text, self._pattern, self._needles)
        if not found:
            return []
        self._files += 1
        self._matched += len(found)
        about = _definitions(self._db, file_id, [number for number, _ in found], self._pattern)
        return [
            Match(path, number, line, service, lang, file_kind, *about[number])
            for number, line in found
        ]  # fmt: skip

    def _known(self) -> int:
        return len(self._defined) + len(self._plain)

    def _pass_one(self) -> bool:
        """Pass the next candidate (read it, or take what was kept of it); False when none is left."""
        if self._next >= len(self._rows) or self._capped:
            return False
        row = self._rows[self._next]
        self._next += 1
        kept = self._kept.pop(row[0], None)
        self._plain += kept if kept is not None else self._matches_of(row)
        if self._known() >= self._max:
            self._capped = True
            del self._plain[max(0, self._max - len(self._defined)) :]
        return True

    def at(self, index: int) -> Match | None:
        """The match of rank ``index`` (0 first), reading as far as needed; None past the last."""
        while self._known() <= index and self._pass_one():
            pass
        if index < len(self._defined):
            return self._defined[index]
        index -= len(self._defined)
        return self._plain[index] if index < len(self._plain) else None

    def read_all(self) -> Found:
        """Every match (up to ``max_matches``): every candidate read."""
        while self._pass_one():
            pass
        return self.found()

    def found(self) -> Found:
        """What is known now: the matches ranked so far, the files holding them, what is left."""
        unread = 0 if self._capped else len(self._rows) - self._read  # capped: the cap says it
        estimate, estimate_files = self._matched, self._files
        if unread and self._read:  # the unread candidates as rich as those read
            estimate += round(unread * self._matched / self._read)
            estimate_files += round(unread * self._files / self._read)
        return Found(
            tuple(self._defined + self._plain),
            self._files,
            self._capped or unread > 0,
            candidates=len(self._rows),
            unread=unread,
            estimate=estimate,
            estimate_files=estimate_files,
        )


@attrs.frozen
class LeftOut:
    """Paths of one reason that a search in some scope could not read."""

    #: One of :data:`LEFT_OUT_REASONS`.
    reason: str
    files: int
    folders: int
    #: A few of the paths (none for secret-looking files), sorted.
    examples: tuple[str, ...]
    #: The walk's own words when they say more than the reason ("larger than 1048576 bytes").
    detail: str = ""


@attrs.frozen
class NotSearched:
    """What a search could not read in its scope, by reason, and what generated files hold."""

    left_out: tuple[LeftOut, ...] = ()
    #: Lines of the generated files left out that the query matches (files that were read).
    generated_matches: int = 0
    #: (path, matching lines) of the generated files with a match, most first (at most MATCHED_MAX).
    generated_matched: tuple[tuple[str, int], ...] = ()
    #: How many generated files have a match, and how many could not be read to count (changed since
    #: the snapshot, or past the read budget).
    generated_files_matched: int = 0
    generated_uncounted: int = 0


def not_searched(
    db: sqlite3.Connection,
    query: str = "",
    *,
    regex: bool = False,
    case_sensitive: bool = False,
    services: tuple[str, ...] = (),
    path_prefix: str = "",
    path_glob: str = "",
    language: str = "",
    kind: str = "",
    root: Path | None = None,
    cancelled: threading.Event | None = None,
) -> NotSearched:
    """What a search with these filters could not read, by reason; with ``query`` (and ``root``),
    the lines it matches in the generated files left out, counted while they are as the snapshot
    saw them. Secret-looking files are never opened."""
    prefix = path_prefix.strip("/")
    rows = _skipped_rows(db)
    found: dict[str, list[tuple[str, bool]]] = {}
    details: dict[str, str] = {}
    generated: list[tuple[str, int, int]] = []
    for path, raw_reason, service, folder, size, mtime_ns in rows:
        reason = next((mine for said, mine in _REASONS if raw_reason.startswith(said)), None)
        if reason is None or not _in_scope(path, bool(folder), service, services, prefix, path_glob, language, kind):
            continue
        found.setdefault(reason, []).append((path, bool(folder)))
        if reason == "too large":
            details[reason] = raw_reason
        if reason == "generated" and not folder:
            generated.append((path, size, mtime_ns))
    # Indexed files that keep no text (binary content, unreadable, over the parse budget): each has
    # an error, so only the files with one are looked at (``files_error``), not every file's row.
    where, params = _filters(services, prefix, language, kind)
    for path, error in db.execute(
        "SELECT f.path, f.error FROM files f WHERE f.error != ''"
        f" AND NOT EXISTS (SELECT 1 FROM content c WHERE c.file_id = f.id) {where} ORDER BY f.path",
        params,
    ):
        if path_glob and not fnmatch.fnmatchcase(path, path_glob):
            continue
        found.setdefault("binary" if error.startswith("binary") else "unreadable", []).append((path, False))
    left_out = []
    for reason in LEFT_OUT_REASONS:
        paths = sorted(found.get(reason, ()))
        if not paths:
            continue
        folders = sum(1 for _, is_folder in paths if is_folder)
        examples = () if reason == "secrets" else tuple(path for path, _ in paths[:EXAMPLES_MAX])
        left_out.append(LeftOut(reason, len(paths) - folders, folders, examples, details.get(reason, "")))
    counted = NotSearched(tuple(left_out))
    if query and generated:
        counted = _count_generated(counted, sorted(generated), query, regex, case_sensitive, root, cancelled)
    return counted


def left_out_under(db: sqlite3.Connection, path: str) -> bool:
    """Whether anything at, under or above ``path`` (a folder holding it) was left out of the index."""
    path = path.strip("/")
    if not path:
        return db.execute("SELECT 1 FROM skipped LIMIT 1").fetchone() is not None
    under = db.execute(
        "SELECT 1 FROM skipped WHERE path = ? OR (path >= ? AND path < ?) LIMIT 1", (path, path + "/", path + "0")
    ).fetchone()
    if under is not None:
        return True
    parts = path.split("/")
    above = ["/".join(parts[:n]) for n in range(1, len(parts))]
    if not above:
        return False
    marks = ", ".join("?" * len(above))
    return db.execute(f"SELECT 1 FROM skipped WHERE path IN ({marks}) LIMIT 1", above).fetchone() is not None


def _skipped_rows(db: sqlite3.Connection) -> list[tuple[str, str, str | None, int, int, int]]:
    """(path, reason, service, folder, size, mtime_ns) of every path left out, by path."""
    try:
        return db.execute(
            "SELECT s.path, s.reason, d.service, coalesce(d.folder, 0), coalesce(d.size, 0), coalesce(d.mtime_ns, 0)"
            " FROM skipped s LEFT JOIN skipped_detail d ON d.path = s.path ORDER BY s.path"
        ).fetchall()
    except sqlite3.OperationalError:  # an index written before skipped_detail existed
        return [(path, reason, None, 0, 0, 0) for path, reason in db.execute("SELECT path, reason FROM skipped")]


def _in_scope(
    path: str,
    folder: bool,
    service: str | None,
    services: tuple[str, ...],
    prefix: str,
    glob: str,
    language: str,
    kind: str,
) -> bool:
    """Whether a search with these filters could have read ``path`` (a folder: anything in it)."""
    if services and service not in services:
        return False
    if prefix and not (path == prefix or path.startswith(prefix + "/") or (folder and prefix.startswith(path + "/"))):
        return False
    if glob and not (_glob_reaches(path, glob) if folder else fnmatch.fnmatchcase(path, glob)):
        return False
    if folder:
        return True  # a folder may hold files of any language and kind
    found = language_of(path) or ""
    if language and found not in (language, "tsx" if language == "typescript" else language):
        return False
    return not kind or kind_of(path, found) == kind


def _glob_reaches(folder: str, glob: str) -> bool:
    """Whether a path inside ``folder`` can match ``glob`` (``*`` spans ``/`` in fnmatch): the glob's
    literal start and the folder agree as far as both go."""
    literal = re.split(r"[*?\[]", glob, maxsplit=1)[0]
    return literal.startswith(folder + "/") or (folder + "/").startswith(literal)


def _count_generated(
    counted: NotSearched,
    generated: list[tuple[str, int, int]],
    query: str,
    regex: bool,
    case_sensitive: bool,
    root: Path | None,
    cancelled: threading.Event | None,
) -> NotSearched:
    """``counted`` with the lines ``query`` matches in the generated files (path, size, mtime_ns) that
    are still as the snapshot saw them, within the read budget."""
    pattern, formula = compile_query(query, regex=regex, case_sensitive=case_sensitive)
    needles = formula.needles()
    per_file: list[tuple[str, int]] = []
    uncounted = 0
    budget_files, budget_bytes = GENERATED_READ_FILES_MAX, GENERATED_READ_BYTES_MAX
    for path, size, mtime_ns in generated:
        if cancelled is not None and cancelled.is_set():
            raise SearchError("the search was cancelled")
        if needles == ():
            break  # nothing can match
        if size == 0 and mtime_ns:
            continue  # empty: nothing to match
        text = None
        affordable = budget_files > 0 and size <= min(budget_bytes, GENERATED_READ_FILE_BYTES_MAX)
        if root is not None and mtime_ns and affordable:
            text = _unchanged_text(root, path, size, mtime_ns)
        if text is None:
            uncounted += 1
            continue
        budget_files -= 1
        budget_bytes -= size
        lines = _regex_lines(text, pattern) if regex else _lines(text, pattern, needles)
        if lines:
            per_file.append((path, len(lines)))
    per_file.sort(key=lambda item: (-item[1], item[0]))
    return attrs.evolve(
        counted,
        generated_matches=sum(count for _, count in per_file),
        generated_matched=tuple(per_file[:MATCHED_MAX]),
        generated_files_matched=len(per_file),
        generated_uncounted=uncounted,
    )


def _unchanged_text(root: Path, path: str, size: int, mtime_ns: int) -> str | None:
    """The text of a file left out of the index, when it is still inside the workspace with the
    size and mtime the snapshot recorded (else None: the snapshot does not know what it holds)."""
    data = read_if_unchanged(root, path, size, mtime_ns)
    return None if data is None else data.decode("utf-8", "replace")


def compile_query(query: str, *, regex: bool, case_sensitive: bool) -> tuple[Pattern, Query]:
    """The pattern that decides a line, and the trigram formula that picks candidate files."""
    if not regex:
        return re.compile(re.escape(query), 0 if case_sensitive else re.IGNORECASE), plan_literal(query)
    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = case_sensitive
    options.max_mem = RE2_MEMORY_BYTES
    options.never_nl = True  # a match never spans lines: matching the text is matching its lines
    # Only where a match starts is used: a group would cost a span decoded per match (490 nested
    # groups made a search of 250 KB take a minute).
    options.never_capture = True
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

    From disk when the file's size and mtime are still the snapshot's, read without following a
    link out of the workspace (whatever replaced the file or a folder on its way since), else the
    stored copy; ``None`` when the snapshot keeps no text for it (binary, skipped).
    """
    if root is not None:
        data = read_if_unchanged(root, path, size, mtime_ns)
        if data is not None:
            return data.decode("utf-8", "replace")
    row = db.execute("SELECT data FROM content WHERE file_id = ?", (file_id,)).fetchone()
    return None if row is None else zlib.decompress(row[0]).decode("utf-8", "replace")


def text_lines(text: str, last: int | None = None) -> list[str]:
    """The lines of ``text`` as the index numbers them: split at ``\\n`` alone, as tree-sitter counts
    rows and the search counts lines (``str.splitlines`` also splits at a form feed, a lone ``\\r``
    and other separators, and would shift every line after one), each without its ``\\r\\n``'s
    ``\\r``. With ``last``, only the first ``last`` lines are split off (a site on line 40 of a
    file of 20,000 lines does not split the rest)."""
    lines = text.split("\n") if last is None else text.split("\n", last)
    if (last is None or len(lines) <= last) and lines[-1] == "":
        lines.pop()  # what follows the last newline: the end of the last line, not a line
    if last is not None:
        del lines[last:]
    if "\r" not in text:
        return lines
    return [line[:-1] if line.endswith("\r") else line for line in lines]


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

    Exact and prefix lookups use the name index; the substring pass (only when the first two leave
    room under ``max_matches``) finds the names holding the query through the names' trigram index
    (:func:`~mesh.index.query._names.names_like`), then their definitions by name.
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
        ("d.name = ? COLLATE NOCASE", lambda: [query]),
        ("d.name LIKE ? ESCAPE '\\' AND d.name != ? COLLATE NOCASE", lambda: [escaped + "%", query]),
        # the names holding it past its start (as LIKE, ASCII letters in either case): a list closed
        # under ASCII case, so NOCASE equality (the name index) selects their definitions exactly
        (
            "d.name COLLATE NOCASE IN (SELECT value FROM json_each(?))",
            lambda: [json.dumps(_holding_not_starting(db, query))],
        ),
    )
    found: list[tuple[int, tuple, Match]] = []
    seen_files: set[str] = set()
    capped = False
    for tier, (condition, values) in enumerate(passes):
        rows = db.execute(select + condition + where + " ORDER BY f.path, d.line, d.name", [*values(), *params])
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


def _holding_not_starting(db: sqlite3.Connection, query: str) -> list[str]:
    """The distinct definition names holding ``query`` but not starting with it, as ``LIKE`` reads both."""
    start = like_folded(query)
    return [name for name in names_like(db, query) if not like_folded(name).startswith(start)]
