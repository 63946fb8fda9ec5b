"""The Markdown section trees of one snapshot: which docs, their outlines, headings found by name.

Theory of operation
-------------------
The index keeps one row per heading of every file it parsed as Markdown (``files.language =
'markdown'``: ``.md`` and ``.markdown``; other docs such as ``.rst`` have no sections):
``sections(file_id, section_id, title, level, parent_id, line, end_line)``. A section id is a
path of GitHub slugs (``runbook/deploying/verify-2``), unique within its file only, so the
workspace-wide name of a section is *qualified*: ``<file path>#<section id>``
(``docs/runbook.md#runbook/deploying``). Slugs never hold ``#``, so the last ``#`` splits it.

Every lookup goes through an index: a file by ``files.path`` (unique), the files of a folder by a
range over ``files.path``, a file's sections by ``sections_file``. Nothing reads a document's text
except :func:`section_lines`, for the one file whose text was asked for. Two questions need more:
a bare section id without its file (``sections`` has no index on ``section_id``: one scan), and a
heading looked up by name: titles holding the whole of it are narrowed in SQL by ``LIKE`` when the
name is ASCII (and by scope), then decided in Python (``casefold``); its words, in any order, and
the close-match fallback (``difflib``) are looked for among the distinct titles of the scope.

Heading words. A heading's words are its runs of letters and digits, casefolded, each counted once;
English function words (``the``, ``to``, ``how``...) are left out unless nothing else is left. A
word matches a title when one of the title's words starts with it (``deploy`` in "Deploying"),
also across the title's separators (``setup`` in "Set up", ``redis`` in "(Redis)"); a word of one
or two letters must be a whole word of the title. Titles that hold every word rank first; titles
holding only some are answers only when no title holds every word, ranked by how many they hold.

:class:`Outline` is one file's tree, derived from its rows: the nesting depth of a section (1 for a
top section, whatever its heading level), its ancestors, children, descendants and siblings.
"""

from __future__ import annotations

import bisect
import collections
import difflib
import itertools
import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Final, Literal

import attrs

from ._search import file_text

__all__ = [
    "DocFile",
    "DocSection",
    "HeadingMatch",
    "Outline",
    "any_file_under",
    "close_paths",
    "close_sections",
    "files_holding",
    "indexed_file",
    "markdown_file",
    "markdown_files",
    "match_headings",
    "nearest_titles",
    "outline",
    "scope_sections",
    "section_lines",
    "skipped_reason",
    "split_qualified",
]

#: Similarity (difflib ratio) a title needs to count as a close match for a heading.
CLOSE_RATIO: Final = 0.6
#: Similarity below which a title is not even worth suggesting.
SUGGEST_RATIO: Final = 0.4
#: How many close titles difflib looks at, at most.
CLOSE_MAX: Final = 10
#: Heading words shorter than this match whole title words only.
WORD_PREFIX_MIN: Final = 3
#: Words a heading may hold that say nothing of the section looked for (counted only when a heading
#: holds nothing else).
STOP_WORDS: Final = frozenset(
    "a about an and are at be by can do does for from how i in into is it of on or the to what when where why with"
    .split()
)
#: How many titles one ``IN (...)`` lists, at most (SQLite bounds the parameters of a statement).
_TITLES_PER_QUERY: Final = 500
_WORD: Final = re.compile(r"[^\W_]+")
_NOT_WORD: Final = re.compile(r"[\W_]+")
_HOWS: Final = ("exact", "substring", "words", "close")

_FILE_COLUMNS: Final = "f.id, f.path, f.service, f.lines, f.size, f.mtime_ns, f.error"
_SECTION_COLUMNS: Final = "s.section_id, s.title, s.level, s.parent_id, s.line, s.end_line"


@attrs.frozen
class DocFile:
    """One indexed Markdown file (its ``files`` row)."""

    id: int
    path: str
    service: str
    lines: int
    size: int
    mtime_ns: int
    #: Why the file could not be parsed ("" when it was).
    error: str


@attrs.frozen
class DocSection:
    """One heading and the lines it covers (its own and its subsections'), 1-based, inclusive."""

    path: str
    section_id: str
    title: str
    level: int
    parent_id: str
    line: int
    end_line: int

    @property
    def qualified(self) -> str:
        """The workspace-wide id an agent passes back: ``<path>#<section id>``."""
        return f"{self.path}#{self.section_id}"


@attrs.frozen
class Outline:
    """One file's section tree. Build it with :meth:`of`; sections are in line order."""

    file: DocFile
    sections: tuple[DocSection, ...]
    _positions: Mapping[str, int]
    _depths: tuple[int, ...]

    @classmethod
    def of(cls, file: DocFile, sections: Iterable[DocSection]) -> Outline:
        ordered = tuple(sorted(sections, key=lambda s: (s.line, s.section_id)))
        positions = {section.section_id: position for position, section in enumerate(ordered)}
        depths: list[int] = []
        for section in ordered:
            parent = positions.get(section.parent_id)
            depths.append(1 if parent is None else depths[parent] + 1)
        return cls(file, ordered, positions, tuple(depths))

    def get(self, section_id: str) -> DocSection | None:
        position = self._positions.get(section_id)
        return None if position is None else self.sections[position]

    def depth(self, section: DocSection) -> int:
        """1 for a top section of the file, 2 for its children..."""
        return self._depths[self._positions[section.section_id]]

    def ancestors(self, section: DocSection) -> tuple[DocSection, ...]:
        """The sections holding ``section``, outermost first."""
        chain: list[DocSection] = []
        parent = self.get(section.parent_id)
        while parent is not None:
            chain.append(parent)
            parent = self.get(parent.parent_id)
        return tuple(reversed(chain))

    def children(self, section: DocSection | None) -> tuple[DocSection, ...]:
        """The direct subsections of ``section`` (the top sections of the file for ``None``)."""
        depth = 1 if section is None else self.depth(section) + 1
        return tuple(s for s in self._span(section) if self.depth(s) == depth)

    def descendants(self, section: DocSection) -> tuple[DocSection, ...]:
        """Every subsection of ``section``, at any depth, in line order."""
        return self._span(section)

    def siblings(self, section: DocSection) -> tuple[DocSection | None, DocSection | None]:
        """The sections before and after ``section`` under the same parent (``None`` at either end)."""
        parent = self.get(section.parent_id)
        peers = self.children(parent)
        position = peers.index(section)
        before = peers[position - 1] if position > 0 else None
        after = peers[position + 1] if position + 1 < len(peers) else None
        return before, after

    def _span(self, section: DocSection | None) -> tuple[DocSection, ...]:
        if section is None:
            return self.sections
        start = self._positions[section.section_id]
        depth = self._depths[start]
        end = start + 1
        while end < len(self.sections) and self._depths[end] > depth:
            end += 1
        return self.sections[start + 1 : end]


@attrs.frozen
class HeadingMatch:
    """A section whose title matches a heading looked for, and how well."""

    file: DocFile
    section: DocSection
    #: ``exact`` (same title, ignoring case), ``substring`` (the title holds it), ``words`` (the
    #: title holds some or all of its words, in any order) or ``close`` (difflib).
    how: Literal["exact", "substring", "words", "close"]
    #: Higher is better within ``how``: 1 for exact, the share of the title matched for a
    #: substring or words, difflib's ratio for a close match.
    score: float
    #: How many of the heading's words the title holds (all of them for exact and substring
    #: matches, none for a close one), of ``words_total``.
    words_matched: int = 0
    words_total: int = 0

    def rank(self) -> tuple:
        """More words matched first, then exact, substring, words, close, then score, path and line."""
        tier = _HOWS.index(self.how)
        return (-self.words_matched, tier, -self.score, self.section.path, self.section.line)

    def ties(self, other: HeadingMatch) -> bool:
        """Whether the two match equally well (neither clearly wins)."""
        return self.how == other.how and self.score == other.score and self.words_matched == other.words_matched


def split_qualified(text: str) -> tuple[str, str]:
    """``("docs/a.md", "a/b")`` from ``docs/a.md#a/b``; ``("", text)`` when there is no ``#``."""
    path, hash_sign, section_id = text.rpartition("#")
    return (path, section_id) if hash_sign else ("", text)


# -- files -------------------------------------------------------------------------------------


def markdown_file(db: sqlite3.Connection, path: str) -> DocFile | None:
    """The indexed Markdown file at ``path`` (relative, POSIX), if there is one."""
    row = db.execute(
        f"SELECT {_FILE_COLUMNS} FROM files f WHERE f.path = ? AND f.language = 'markdown'", (path,)
    ).fetchone()
    return None if row is None else DocFile(*row)


def markdown_files(db: sqlite3.Connection, folder: str = "") -> tuple[DocFile, ...]:
    """The indexed Markdown files under ``folder`` ("" for the whole workspace), by path."""
    where, params = _under(folder)
    rows = db.execute(
        f"SELECT {_FILE_COLUMNS} FROM files f WHERE f.language = 'markdown' {where} ORDER BY f.path", params
    )
    return tuple(DocFile(*row) for row in rows)


def indexed_file(db: sqlite3.Connection, path: str) -> tuple[str, str] | None:
    """``(language, kind)`` of any indexed file at ``path`` ("" language when none was detected)."""
    row = db.execute("SELECT language, kind FROM files WHERE path = ?", (path,)).fetchone()
    return None if row is None else (row[0], row[1])


def any_file_under(db: sqlite3.Connection, folder: str) -> bool:
    """Whether the index holds any file (of any kind) under ``folder``."""
    where, params = _under(folder)
    return db.execute(f"SELECT 1 FROM files f WHERE 1 {where} LIMIT 1", params).fetchone() is not None


def skipped_reason(db: sqlite3.Connection, path: str) -> str | None:
    """Why the walk left ``path`` out of the index, if it did."""
    row = db.execute("SELECT reason FROM skipped WHERE path = ?", (path,)).fetchone()
    return None if row is None else row[0]


def close_paths(db: sqlite3.Connection, path: str, limit: int = 5) -> tuple[str, ...]:
    """Markdown files and folders holding some whose path looks like ``path``: those ending with it
    first (``runbook.md`` -> ``docs/runbook.md``), then difflib's closest."""
    files = [row[0] for row in db.execute("SELECT path FROM files WHERE language = 'markdown' ORDER BY path")]
    folders = sorted({file[:end] for file in files for end in range(len(file)) if file[end] == "/"})
    candidates = files + folders
    ending = [candidate for candidate in candidates if candidate.endswith("/" + path)]
    close = difflib.get_close_matches(path, candidates, n=limit, cutoff=CLOSE_RATIO)
    return tuple(dict.fromkeys(ending + close))[:limit]


def _under(folder: str) -> tuple[str, list]:
    """A condition on ``f.path`` for the files under ``folder``: a range, so ``files.path``'s index serves."""
    if not folder:
        return "", []
    # Every path that starts with "folder/" sorts between "folder/" and "folder0" ("0" follows "/").
    return " AND f.path >= ? AND f.path < ?", [folder + "/", folder + "0"]


# -- sections ------------------------------------------------------------------------------------


def outline(db: sqlite3.Connection, file: DocFile) -> Outline:
    """The section tree of one file (through ``sections_file``)."""
    rows = db.execute(
        f"SELECT {_SECTION_COLUMNS} FROM sections s WHERE s.file_id = ? ORDER BY s.line, s.section_id", (file.id,)
    )
    return Outline.of(file, (DocSection(file.path, *row) for row in rows))


def files_holding(db: sqlite3.Connection, section_id: str, folder: str = "") -> tuple[DocFile, ...]:
    """The Markdown files under ``folder`` that have a section ``section_id`` (a scan of ``sections``)."""
    where, params = _under(folder)
    rows = db.execute(
        f"SELECT {_FILE_COLUMNS} FROM sections s JOIN files f ON f.id = s.file_id"
        f" WHERE s.section_id = ? AND f.language = 'markdown' {where} ORDER BY f.path",
        [section_id, *params],
    )
    return tuple(DocFile(*row) for row in rows)


def scope_sections(db: sqlite3.Connection, files: Sequence[DocFile] | str) -> tuple[DocSection, ...]:
    """Every section of ``files`` (a list of files, or a folder: "" for the workspace), by path and line."""
    if isinstance(files, str):
        where, params = _under(files)
        rows = db.execute(
            f"SELECT f.path, {_SECTION_COLUMNS} FROM sections s JOIN files f ON f.id = s.file_id"
            f" WHERE f.language = 'markdown' {where} ORDER BY f.path, s.line",
            params,
        )
        return tuple(DocSection(*row) for row in rows)
    return tuple(section for file in files for section in outline(db, file).sections)


def section_lines(db: sqlite3.Connection, root: Path | None, file: DocFile) -> tuple[str, ...] | None:
    """The lines of ``file`` as of the snapshot (numbered as the parser numbered them: line ``n`` is
    item ``n - 1``), without line ends; ``None`` when the snapshot keeps no text for it."""
    text = file_text(db, root, file.id, file.path, file.size, file.mtime_ns)
    if text is None:
        return None
    return tuple(line.removesuffix("\r") for line in text.removeprefix("\ufeff").split("\n"))


# -- finding by name -----------------------------------------------------------------------------


def match_headings(db: sqlite3.Connection, heading: str, scope: DocFile | str) -> tuple[HeadingMatch, ...]:
    """Sections of ``scope`` (one file, or a folder: "" for the workspace) whose title matches ``heading``.

    Titles equal to it (ignoring case) or holding it, then titles holding each of its words in
    another order or apart (see the module doc), rank first; only when none does, titles holding
    some of its words, the more the better; only when no title holds any, titles that difflib
    finds close (ratio >= ``CLOSE_RATIO``). Ranked best first.
    """
    wanted = heading.strip().casefold()
    if not wanted:
        return ()
    words = heading_words(wanted)
    total = len(words)
    matches = []
    for file, section in _sections_titled(db, scope, like=wanted if wanted.isascii() else None):
        title = section.title.casefold()
        if title == wanted:
            matches.append(HeadingMatch(file, section, "exact", 1.0, total, total))
        elif wanted in title:
            score = round(len(wanted) / len(title), 6)
            matches.append(HeadingMatch(file, section, "substring", score, total, total))
    titles = _distinct_titles(db, scope) if words or not matches else {}
    if words:
        held = {match.section.title.casefold() for match in matches}
        found = {folded: hit for folded, hit in titles_holding(words, list(titles)).items() if folded not in held}
        if matches or any(count == total for count, _ in found.values()):
            found = {folded: hit for folded, hit in found.items() if hit[0] == total}
        if found:
            for file, section in _sections_titled(db, scope, titles=sorted(t for f in found for t in titles[f])):
                hit = found.get(section.title.casefold())
                if hit is not None:
                    matches.append(HeadingMatch(file, section, "words", hit[1], hit[0], total))
    if not matches:
        ratios = _close(wanted, titles, CLOSE_RATIO)
        if ratios:
            for file, section in _sections_titled(db, scope, titles=sorted({t for f in ratios for t in titles[f]})):
                score = ratios.get(section.title.casefold())
                if score is not None:
                    matches.append(HeadingMatch(file, section, "close", score, 0, total))
    return tuple(sorted(matches, key=HeadingMatch.rank))


def heading_words(wanted: str) -> tuple[str, ...]:
    """The words a heading is matched by: its runs of letters and digits, casefolded, in order, each
    once, without :data:`STOP_WORDS` (unless it holds nothing else)."""
    words = tuple(dict.fromkeys(word.casefold() for word in _WORD.findall(wanted)))
    meaningful = tuple(word for word in words if word not in STOP_WORDS)
    return meaningful or words


def titles_holding(words: Sequence[str], titles: Sequence[str]) -> dict[str, tuple[int, float]]:
    """Casefolded title -> what :func:`words_in_title` says of it, for the ``titles`` holding at least
    one of ``words``.

    The same answer, faster: the titles are joined into one text, a line each, and each word is
    looked for in it by a regular expression (its letters, separators but line ends allowed between
    them) whose hits Python keeps when they start a title's word, going on from the next title; so
    the cost is a scan in C per word, whatever the number of titles.
    """
    starts = list(itertools.accumulate((len(title) + 1 for title in titles), initial=0))
    text = "\n".join(titles)
    if text.count("\n") >= len(titles):
        # A heading is one line, but a title holding a line end must not end the lines early.
        text = "\n".join(title.replace("\n", " ") for title in titles)
    counts: collections.Counter[int] = collections.Counter()
    covered: collections.Counter[int] = collections.Counter()
    for word in words:
        pattern = _word_pattern(word)
        position = 0
        while (match := pattern.search(text, position)) is not None:
            at = match.start()
            if at and text[at - 1].isalnum():
                position = at + 1  # inside a word: another hit may start within this one
                continue
            index = bisect.bisect_right(starts, at) - 1
            counts[index] += 1
            covered[index] += len(word)
            position = starts[index + 1]
    found = {}
    for index in sorted(counts):
        title = titles[index]
        letters = len(_NOT_WORD.sub("", title))
        found[title] = (counts[index], round(min(covered[index] / letters, 1.0), 6))
    return found


def _word_pattern(word: str) -> re.Pattern[str]:
    """``word`` whole when it is short, else its letters with separators (not a line end) allowed
    between them; where it starts is for the caller to check (a lookbehind here costs ten times more)."""
    if len(word) < WORD_PREFIX_MIN:
        return re.compile(rf"{re.escape(word)}(?![^\W_])")
    return re.compile(r"(?:[^\w\n]|_)*".join(re.escape(letter) for letter in word))


def words_in_title(words: Sequence[str], title: str) -> tuple[int, float]:
    """How many of ``words`` the casefolded ``title`` holds (see the module doc), and the share of the
    title's letters and digits they cover (rounded: a score that compares equal across runs)."""
    parts = _WORD.findall(title)
    squashed = "".join(parts)
    if not squashed:
        return 0, 0.0
    starts = []
    position = 0
    for part in parts:
        starts.append(position)
        position += len(part)
    count = covered = 0
    for word in words:
        if len(word) < WORD_PREFIX_MIN:
            hit = word in parts
        else:
            hit = any(squashed.startswith(word, start) for start in starts)
        if hit:
            count += 1
            covered += len(word)
    return count, round(min(covered / len(squashed), 1.0), 6)


def nearest_titles(db: sqlite3.Connection, heading: str, scope: DocFile | str, limit: int = 5) -> tuple[str, ...]:
    """Distinct titles of ``scope`` that look most like ``heading``, best first (maybe none).

    A title scores by the better of the whole strings' likeness and the likeness of their closest
    pair of words (``deploy steps`` is near ``Deploying``), each a difflib ratio.
    """
    wanted = heading.strip().casefold()
    words = [word for word in wanted.split() if len(word) >= 3]
    titles = _distinct_titles(db, scope)
    scored = []
    for folded in titles:
        score = _ratio(wanted, folded)
        for word in words:
            for other in folded.split():
                score = max(score, _ratio(word, other))
        if score >= SUGGEST_RATIO:
            scored.append((-round(score, 6), folded))
    scored.sort()
    return tuple(min(titles[folded]) for _, folded in scored[:limit])


def close_sections(sections: Iterable[DocSection], wanted: str, limit: int = 5) -> tuple[DocSection, ...]:
    """The sections whose id (or title) look most like the id ``wanted``, best first (maybe none).

    A section scores by the best of: its id against ``wanted``, the last part of its id against the
    last part of ``wanted``, and its title holding that last part read as words (``rollout`` in
    "Rollout", ``order-states`` in "Order states").
    """
    _, bare = split_qualified(wanted)
    bare = bare.strip("/").casefold()
    last = bare.rsplit("/", 1)[-1]
    words = last.replace("-", " ").strip()
    scored = []
    for section in sections:
        section_id = section.section_id.casefold()
        section_last = section_id.rsplit("/", 1)[-1]
        score = max(_ratio(bare, section_id), _ratio(last, section_last))
        if words and words in section.title.casefold():
            score = max(score, 0.9)
        if score >= CLOSE_RATIO:
            scored.append((-score, section.path, section.line, section))
    scored.sort(key=lambda item: item[:3])
    # Far behind the best, a candidate is noise.
    floor = -scored[0][0] - 0.25 if scored else 0.0
    return tuple(item[3] for item in scored[:limit] if -item[0] >= floor)


def _sections_titled(
    db: sqlite3.Connection, scope: DocFile | str, *, like: str | None = None, titles: Sequence[str] = ()
) -> list[tuple[DocFile, DocSection]]:
    clauses: list[str] = []
    params: list = []
    if isinstance(scope, DocFile):
        clauses.append("s.file_id = ?")
        params.append(scope.id)
    else:
        where, extra = _under(scope)
        clauses.append("f.language = 'markdown'" + where)
        params += extra
    if like is not None:
        # ASCII only: SQLite's LIKE folds ASCII letters, so it narrows without losing a match (but
        # for titles whose other letters casefold to ASCII ones, as "ß" to "ss": rare, and missed).
        escaped = like.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        clauses.append("s.title LIKE ? ESCAPE '\\'")
        params.append(f"%{escaped}%")
    where = " AND ".join(clauses)
    if not titles:
        return _section_rows(db, where, params)
    found = []
    for start in range(0, len(titles), _TITLES_PER_QUERY):
        batch = titles[start : start + _TITLES_PER_QUERY]
        found += _section_rows(db, f"{where} AND s.title IN ({', '.join('?' * len(batch))})", [*params, *batch])
    found.sort(key=lambda item: (item[1].path, item[1].line))
    return found


def _section_rows(db: sqlite3.Connection, where: str, params: Sequence) -> list[tuple[DocFile, DocSection]]:
    rows = db.execute(
        f"SELECT {_FILE_COLUMNS}, {_SECTION_COLUMNS} FROM sections s JOIN files f ON f.id = s.file_id"
        f" WHERE {where} ORDER BY f.path, s.line",
        params,
    )
    found = []
    for row in rows:
        file = DocFile(*row[:7])
        found.append((file, DocSection(file.path, *row[7:])))
    return found


def _distinct_titles(db: sqlite3.Connection, scope: DocFile | str) -> dict[str, set[str]]:
    """Casefolded title -> the titles (as written) of ``scope`` that fold to it.

    Python drops the repeated titles: SQLite's ``DISTINCT`` (a temporary b-tree) costs three times
    the scan itself.
    """
    if isinstance(scope, DocFile):
        rows = db.execute("SELECT title FROM sections WHERE file_id = ?", (scope.id,))
    else:
        where, params = _under(scope)
        rows = db.execute(
            f"SELECT s.title FROM sections s JOIN files f ON f.id = s.file_id WHERE f.language = 'markdown' {where}",
            params,
        )
    titles: dict[str, set[str]] = {}
    for title in dict.fromkeys(row[0] for row in rows):
        titles.setdefault(title.casefold(), set()).add(title)
    return titles


def _close(wanted: str, titles: Mapping[str, object], cutoff: float) -> dict[str, float]:
    """Casefolded title -> difflib ratio, for the ``CLOSE_MAX`` titles closest to ``wanted``."""
    if not wanted:
        return {}
    close = difflib.get_close_matches(wanted, sorted(titles), n=CLOSE_MAX, cutoff=cutoff)
    return {title: round(_ratio(wanted, title), 6) for title in close}


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()
