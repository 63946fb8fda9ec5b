"""Which trigrams of a search to ask the text index for (INV-SEARCH-5).

The text index (FTS5, ``detail=none``) answers the AND of a string's trigrams by reading each
trigram's whole list of files: a trigram most files hold costs as much as that list, whatever the
answer. At 100,000 files, ``TestTemplateVersionFormat35`` (25 trigrams) took 159 ms to select one
file; its 4 rarest trigrams select the same file in 1.1 ms. So the trigrams of each string are asked
rarest first, and a common one only while the files it would rule out cost more to read than its
list costs to walk; the files selected are then read and the pattern decides, as always: asking
fewer trigrams selects more files, never fewer, and never changes a match.

How common a trigram is comes from the index's text sample (``text_sample``: which of 256 files
spread over the workspace hold it, :func:`mesh.index.store._store._sample_text`), made again after
a refresh that wrote most files' text, a full refresh that changed any, or edits that added or
removed a quarter of the files it was made of: an estimate, which only moves the cost. Under
:data:`PLANNED_FROM` files, every trigram is asked (their lists are short).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import Final

__all__ = ["PLANNED_FROM", "trigram_keeper"]

#: Below this many files with text, every trigram is asked.
PLANNED_FROM: Final = 2_000
#: A trigram held by at most this many files (estimated) is always asked: its list is short.
_CHEAP_FILES: Final = 2_000
#: How many entries of a trigram's list cost as much as reading one selected file (measured at
#: 100,000 files: about 0.75 µs an entry, about 80 µs a file read and matched).
_FILE_COST_ENTRIES: Final = 100.0
#: Plans kept, by database file and sample: the last few.
_KEPT: Final = 4
_kept_lock = threading.Lock()
_kept: dict[tuple[str, str], Callable[[list[str]], list[str]] | None] = {}


def trigram_keeper(db: sqlite3.Connection) -> Callable[[list[str]], list[str]] | None:
    """What to ask of each string's trigrams in the snapshot ``db`` (for
    :meth:`~mesh.index.store._trigrams.Query.fts5`'s ``keep``), or None: ask them all."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'text_sample'").fetchone()
    except sqlite3.OperationalError:  # no meta table
        return None
    if row is None:
        return None
    path = next((entry[2] for entry in db.execute("PRAGMA database_list") if entry[1] == "main"), "")
    key = (path, row[0])
    with _kept_lock:
        if path and key in _kept:
            return _kept[key]
    keeper = _keeper(db, row[0])
    if path:
        with _kept_lock:
            while len(_kept) >= _KEPT:
                del _kept[next(iter(_kept))]
            _kept[key] = keeper
    return keeper


def _keeper(db: sqlite3.Connection, said: str) -> Callable[[list[str]], list[str]] | None:
    sampled, total = (int(part) for part in said.split()[:2])
    if total < PLANNED_FROM or sampled == 0:
        return None
    rows = db.execute("SELECT gram, files, holders FROM text_sample")
    held = {gram: (files, int.from_bytes(bits, "little")) for gram, files, bits in rows}
    every = (1 << sampled) - 1

    def share(gram: str) -> float:
        """The estimated share of files holding ``gram`` (one never sampled: half a sampled file)."""
        return (held.get(gram, (0, 0))[0] + 0.5) / (sampled + 1)

    def keep(grams: list[str]) -> list[str]:
        kept: list[str] = []
        holding = every  # the sampled files holding every trigram kept
        selected = float(total)  # the files the kept trigrams are expected to select
        for gram in sorted(grams, key=lambda gram: (share(gram), gram)):
            part = share(gram)
            listed = part * total  # the length of its list
            both = holding & held.get(gram, (0, 0))[1]
            if both:  # what the sample says the trigram adds to those kept
                after = total * (both.bit_count() + 0.5) / (sampled + 1)
            else:  # the sample is too small to say: as if it were independent of them
                after = min(selected * part, total * 0.5 / (sampled + 1))
            # asked when its list is short, or when the files it rules out cost more to read than its list
            if not kept or listed <= _CHEAP_FILES or (selected - after) * _FILE_COST_ENTRIES > listed:
                kept.append(gram)
                holding, selected = both, min(selected, after)
        return kept

    return keep
