"""INV-SEARCH-5: a search asks the text index for the trigrams worth asking, and finds the same.

The oracle of every answer is the same search asking every trigram (and, through it, the plain
scan of ``test_search.py``); the oracle of the sample is the stored text itself.
"""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.index import Index
from mesh.index.query import _plan, _search
from mesh.index.store._trigrams import indexed, plan, trigrams

from .test_grpc_derivation import write
from .test_search import index  # noqa: F401 (the fixture's index, a fixture)


def _sample_from_text(db: sqlite3.Connection) -> dict[str, tuple[int, set[int]]]:
    """What the sample must say of a workspace it reads whole: for each trigram, how many files
    with text hold it and which (by their order of id)."""
    out: dict[str, tuple[int, set[int]]] = {}
    for number, (data,) in enumerate(db.execute("SELECT data FROM content ORDER BY file_id")):
        for gram in trigrams(indexed(zlib.decompress(data).decode("utf-8"))):
            files, holders = out.get(gram, (0, set()))
            out[gram] = (files + 1, holders | {number})
    return out


def _sample(db: sqlite3.Connection) -> dict[str, tuple[int, set[int]]]:
    out = {}
    for gram, files, bits in db.execute("SELECT gram, files, holders FROM text_sample"):
        number = int.from_bytes(bits, "little")
        out[gram] = (files, {bit for bit in range(number.bit_length()) if number >> bit & 1})
    return out


def test_inv_search_5_the_sample_says_which_files_hold_each_trigram(index: Index) -> None:
    """A workspace smaller than the sample is read whole: every trigram with the files holding it."""
    with index.store.snapshot() as db:
        sampled, total, _ = db.execute("SELECT value FROM meta WHERE key = 'text_sample'").fetchone()[0].split()
        assert int(sampled) == int(total) == db.execute("SELECT count(*) FROM content").fetchone()[0]
        assert _sample(db) == _sample_from_text(db)


_QUERIES = [
    ("GetOrder", False), ("reserve", False), ("acme.orders.v1", False), ("import grpc", False),
    ("def ", False), ("OrderService", False), ("zzzqqq", False), ("go", False),
    (r"def \w+Order\(", True), (r"^import (os|grpc)$", True), (r"(Reserve|Release)\(", True),
    (r"rpc \w+ \(", True), (r"class \w+Servicer", True), (r"func \(s \*\w+\) ", True),
]  # fmt: skip


def _planned(index: Index, monkeypatch: pytest.MonkeyPatch, query: str, regex: bool, cost: float):
    """The search asking every trigram, and the same planned (even on the fixture: ``PLANNED_FROM``
    and ``_CHEAP_FILES`` 0), a file read costing ``cost`` list entries."""
    with index.store.snapshot() as db:
        every = _search.search(db, query, regex=regex)
        with monkeypatch.context() as patched:
            patched.setattr(_plan, "PLANNED_FROM", 0)
            patched.setattr(_plan, "_CHEAP_FILES", 0)
            patched.setattr(_plan, "_FILE_COST_ENTRIES", cost)
            _plan._kept.clear()
            assert _plan.trigram_keeper(db) is not None
            planned = _search.search(db, query, regex=regex)
    _plan._kept.clear()
    return every, planned


@pytest.mark.parametrize("cost", [100.0, 0.05])
@pytest.mark.parametrize(("query", "regex"), _QUERIES)
def test_inv_search_5_a_planned_search_finds_what_asking_every_trigram_finds(
    index: Index, monkeypatch: pytest.MonkeyPatch, query: str, regex: bool, cost: float
) -> None:
    """The same matches, ranked the same, from candidates that hold every candidate of the
    search asking every trigram."""
    every, planned = _planned(index, monkeypatch, query, regex, cost)
    assert planned.matches == every.matches
    assert planned.files == every.files
    assert planned.candidates >= every.candidates


def test_inv_search_5_a_plan_leaves_trigrams_out(index: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: with file reads cheap, plans ask fewer trigrams and select more files."""
    widened = [query for query, regex in _QUERIES if (lambda pair: pair[1].candidates > pair[0].candidates)(
        _planned(index, monkeypatch, query, regex, 0.05))]  # fmt: skip
    assert len(widened) >= 3, widened


def test_inv_search_5_keep_chooses_among_each_strings_trigrams() -> None:
    """``keep`` is asked of each AND's trigrams (an alternative's apart), and an empty choice asks all."""
    assert plan("return").fts5(phrases=False, keep=lambda grams: grams[-1:]) == '"urn"'
    assert plan("return").fts5(phrases=False, keep=lambda grams: []) == '"etu" AND "ret" AND "tur" AND "urn"'
    asked: list[list[str]] = []
    plan(r"(reserve|release)d").fts5(phrases=False, keep=lambda grams: asked.append(grams) or grams[:1])
    assert sorted(asked) == [sorted(trigrams("released")), sorted(trigrams("reserved"))]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(data=st.data())
def test_inv_search_5_keep_asks_a_nonempty_subset_rarest_first(data: st.DataObject) -> None:
    """What ``keep`` keeps of a string's trigrams: some of them, never none, the rarest always."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("CREATE TABLE text_sample(gram TEXT PRIMARY KEY, files INTEGER NOT NULL, holders BLOB NOT NULL)")
    grams = data.draw(st.lists(st.text("abcdef", min_size=3, max_size=3), min_size=1, max_size=12, unique=True))
    sampled = 64
    for gram in grams:
        holders = data.draw(st.sets(st.integers(0, sampled - 1), max_size=sampled))
        bits = sum(1 << number for number in holders).to_bytes(sampled // 8, "little")
        db.execute("INSERT INTO text_sample VALUES (?, ?, ?)", (gram, len(holders), bits))
    total = data.draw(st.integers(_plan.PLANNED_FROM, 500_000))
    db.execute("INSERT INTO meta VALUES ('text_sample', ?)", (f"{sampled} {total} x",))
    keep = _plan._keeper(db, f"{sampled} {total} x")
    assert keep is not None
    asked = [*grams, *data.draw(st.lists(st.text("ghij", min_size=3, max_size=3), max_size=3))]  # some never sampled
    kept = keep(asked)
    assert kept and set(kept) <= set(asked)
    files = dict(db.execute("SELECT gram, files FROM text_sample"))
    rarest = min(asked, key=lambda gram: (files.get(gram, 0), gram))
    assert rarest in kept


def test_inv_search_5_the_sample_follows_the_workspace(tmp_path: Path) -> None:
    """Made at the build, again after a full refresh that changed files (not after one that changed
    none), and for an index written before there was one; the same files give the same sample."""
    root = tmp_path / "ws"
    write(root, {f"m{n}.py": f"def shared():\n    return {n}\n" for n in range(5)})
    index = Index(root, tmp_path / "cache", workers=1)
    try:
        index.refresh()

        def said(fresh: bool = True) -> str:
            """The sample's ``meta`` line; ``fresh``: checked to be the whole workspace's."""
            with index.store.snapshot() as db:
                assert not fresh or _sample(db) == _sample_from_text(db)
                return db.execute("SELECT value FROM meta WHERE key = 'text_sample'").fetchone()[0]

        first = said()
        index.refresh()
        assert said() == first  # nothing changed
        (root / "m9.py").write_text("class Zebra:\n    pass\n")
        index.refresh()
        second = said()
        assert second != first and second.startswith("6 6 ")
        # files added one edit at a time: sampled again once they are a quarter of the sample's
        (root / "m10.py").write_text("def one():\n    pass\n")
        index.refresh(changed=["m10.py"])
        assert said(fresh=False) == second  # 1 of 6: kept
        (root / "m11.py").write_text("def two():\n    pass\n")
        index.refresh(changed=["m11.py"])
        second = said()
        assert second.startswith("8 8 ")  # 2 of 6: made again
        with index.store.transaction() as writer:  # as an earlier version left it
            writer.db.execute("DROP TABLE text_sample")
            writer.db.execute("DELETE FROM meta WHERE key = 'text_sample'")
    finally:
        index.close()
    again = Index(root, tmp_path / "cache", workers=1)
    try:
        with again.store.snapshot() as db:
            assert db.execute("SELECT value FROM meta WHERE key = 'text_sample'").fetchone()[0] == second
    finally:
        again.close()
