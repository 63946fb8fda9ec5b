"""Definition names found by what they hold, through the names' own trigram index.

The index keeps every distinct definition name once (``def_names``, with the number of files
defining it) and a trigram index of them (``def_names_text``, FTS5 ``trigram``, which answers
``LIKE '%...%'`` from its index when the text holds three characters in a row). A name holding a
needle is then found in time with the names that hold it: at 100,000 files (1.7 million
definitions, 786,000 names) a scan of the definitions took 250-300 ms a search, and keeping every
name in memory cost 3.8 s and about 100 MiB at each new snapshot.

The index narrows; Python decides. Its trigrams fold case beyond ASCII, SQLite's ``LIKE`` only in
ASCII, and mesh's :func:`~mesh.index.store._trigrams.fold` its own way, so every function here
checks each name it returns by the rule it promises, and the names beyond ASCII (few: listed by a
partial index, ``def_names_wide``) are always looked at for a needle whose folding may differ.
"""

from __future__ import annotations

import re
import sqlite3
import string
from typing import Final

from ..store._trigrams import fold

__all__ = ["all_names", "like_folded", "names_folded_holding", "names_like"]

#: SQLite's ``LIKE`` folding: ASCII letters only.
_ASCII_LOWER: Final = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
#: What the trigram index answers ``LIKE`` by, in an ASCII needle: three characters in a row, none a
#: wildcard. (SQLite 3.40's trigram index counts a short run beyond ASCII in bytes, and then finds
#: nothing: ``LIKE '%0É%'`` misses ``_0É``; a needle beyond ASCII is looked for in every name.)
_RUN: Final = re.compile(r"[^%_]{3,}")


def like_folded(text: str) -> str:
    """``text`` as SQLite's ``LIKE`` compares it: ASCII letters lower-cased, nothing else changed."""
    return text.translate(_ASCII_LOWER)


def _kept(db: sqlite3.Connection) -> bool:
    """Whether the index keeps the names (an index opened for writing by this version always does;
    a read-only view of an older one may not)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'def_names'").fetchone() is not None


def all_names(db: sqlite3.Connection) -> list[str]:
    """Every distinct definition name, in binary order."""
    if _kept(db):
        return [name for (name,) in db.execute("SELECT name FROM def_names ORDER BY name")]
    return [name for (name,) in db.execute("SELECT DISTINCT name FROM defs ORDER BY name")]


def _candidates(db: sqlite3.Connection, needle: str) -> list[str]:
    """Names that may hold ``needle`` (a superset of those ``LIKE`` finds holding it, ASCII case
    ignored), in no set order."""
    if not _kept(db):
        return [name for (name,) in db.execute("SELECT DISTINCT name FROM defs")]
    if not (needle.isascii() and _RUN.search(needle)):  # nothing the trigrams surely narrow by: every name
        return [name for (name,) in db.execute("SELECT name FROM def_names")]
    # No ESCAPE (the trigram index answers no LIKE with one): a "%" or "_" of the needle is a
    # wildcard here, which only widens what comes back.
    rows = db.execute("SELECT name FROM def_names_text WHERE name LIKE ?", ("%" + needle + "%",))
    return [name for (name,) in rows]


def names_like(db: sqlite3.Connection, needle: str, limit: int | None = None) -> list[str]:
    """The distinct definition names holding ``needle`` as ``name LIKE '%needle%'`` finds them
    (ASCII letters in either case, every other character as it is), in binary order; the first
    ``limit`` of them when given."""
    if _kept(db) and needle.isascii() and _RUN.fullmatch(needle):
        # no wildcard to widen it: the index's answer is LIKE's (SQLite checks each row it gives)
        sql = "SELECT name FROM def_names_text WHERE name LIKE ? ORDER BY name"
        pattern = "%" + needle + "%"
        rows = db.execute(sql + " LIMIT ?", (pattern, limit)) if limit is not None else db.execute(sql, (pattern,))
        return [name for (name,) in rows]
    lowered = like_folded(needle)
    found = sorted(name for name in _candidates(db, needle) if lowered in like_folded(name))
    return found if limit is None else found[:limit]


def names_folded_holding(db: sqlite3.Connection, needles: tuple[str, ...]) -> list[str]:
    """The distinct definition names whose :func:`fold` holds one of ``needles`` (folded already),
    in binary order."""
    found: set[str] = set()
    for needle in needles:
        if needle.isascii():  # an ASCII name folds as LIKE does: the index finds it
            found.update(name for name in _candidates(db, needle) if name.isascii() and needle in name.lower())
    # A name beyond ASCII may fold into an ASCII needle (the Kelvin sign to "k"), and only such a
    # name can hold a needle beyond ASCII: each is folded and looked at.
    for name in _wide(db):
        folded = fold(name)
        if any(needle in folded for needle in needles):
            found.add(name)
    return sorted(found)


def _wide(db: sqlite3.Connection) -> list[str]:
    """The names beyond ASCII (through ``def_names_wide``)."""
    if not _kept(db):
        return [name for (name,) in db.execute("SELECT DISTINCT name FROM defs") if not name.isascii()]
    wide = db.execute("SELECT name FROM def_names WHERE length(name) != length(CAST(name AS BLOB))")
    return [name for (name,) in wide]
