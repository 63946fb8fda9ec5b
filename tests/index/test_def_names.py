"""INV-SEARCH-4: definition names found by what they hold, through the names' own index.

``def_names`` keeps every distinct definition name with the number of files defining it, and
``def_names_text`` a trigram index of them; the writer keeps both with ``defs`` (file by file on an
edit, made again at the end of a bulk write), and an index written before they existed gets them
when it is opened for writing. The oracles are the definitions themselves: the names and counts
``defs`` gives, ``LIKE`` over every name, and the substring pass of a symbol search as a scan of
the definitions made it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.index import Index
from mesh.index.build import _build
from mesh.index.query._names import all_names, names_folded_holding, names_like
from mesh.index.query._search import Found, Match, symbols
from mesh.index.store._store import _NAMES_TABLES
from mesh.index.store._trigrams import fold

from ._compare import assert_as_from_scratch, names_kept
from .test_grpc_derivation import write

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"


def _names_db(names: list[str]) -> sqlite3.Connection:
    """An in-memory database holding ``names`` as an index does (each in one file)."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE defs(file_id INTEGER NOT NULL, name TEXT NOT NULL)")
    for statement in _NAMES_TABLES:
        db.execute(statement)
    db.executemany("INSERT INTO defs VALUES (1, ?)", [(name,) for name in names])
    db.executemany("INSERT INTO def_names(name, files) VALUES (?, 1)", [(name,) for name in names])
    db.execute("INSERT INTO def_names_text(def_names_text) VALUES ('rebuild')")
    return db


#: Letters that fold differently under LIKE (ASCII only), the trigram index (Unicode) and mesh's
#: ``fold`` (the Kelvin sign and the long s fold to ASCII; dotted and dotless i), and LIKE's wildcards.
_ALPHABET = "abkoKOS_%0\u212a\u017f\u0130\u0131\u00e9\u00c9\u00df"
_NAMES = st.lists(st.text(_ALPHABET, min_size=1, max_size=9), min_size=1, max_size=40, unique=True)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(names=_NAMES, data=st.data())
def test_inv_search_4_names_like_finds_what_like_finds(names: list[str], data: st.DataObject) -> None:
    """The names holding a needle, as SQLite's LIKE over every name finds them (ASCII letters in
    either case), through the trigram index or, for a needle under three characters, a scan."""
    db = _names_db(names)
    picked = data.draw(st.sampled_from(names))
    start = data.draw(st.integers(0, len(picked) - 1))
    needle = data.draw(st.one_of(st.just(picked[start : start + 4]), st.text(_ALPHABET, min_size=1, max_size=5)))
    escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    like = "SELECT name FROM defs WHERE name LIKE ? ESCAPE '\\' ORDER BY name"
    expected = [row[0] for row in db.execute(like, ("%" + escaped + "%",))]
    assert names_like(db, needle) == expected
    assert names_like(db, needle, 2) == expected[:2]
    assert all_names(db) == sorted(names)


def test_inv_search_4_a_name_holding_each_trigram_apart_is_not_found() -> None:
    """The trigram index keeps no positions (``detail=none``): ``abcxbcd`` holds every trigram of
    ``abcd``, and is no name holding it."""
    db = _names_db(["abcxbcd", "ABCD", "xabcdx", "ab_cd", "abc"])
    assert names_like(db, "abcd") == ["ABCD", "xabcdx"]
    assert names_like(db, "abcd", 1) == ["ABCD"]
    assert names_like(db, "b_c") == ["ab_cd"]  # LIKE's "_" is a character to find here
    assert names_folded_holding(db, ("abcd",)) == ["ABCD", "xabcdx"]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(names=_NAMES, data=st.data())
def test_inv_search_4_names_folded_holding_finds_what_fold_finds(names: list[str], data: st.DataObject) -> None:
    """The names whose mesh folding holds a folded needle: every name such a search may define,
    the ones beyond ASCII that fold into an ASCII needle included."""
    db = _names_db(names)
    picked = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=3))
    needles = tuple(dict.fromkeys(fold(name)[: data.draw(st.integers(1, 4))] for name in picked))
    expected = sorted(name for name in names if any(needle in fold(name) for needle in needles))
    assert names_folded_holding(db, needles) == expected


def _symbols_by_scan(db: sqlite3.Connection, query: str, max_matches: int, case_sensitive: bool) -> Found:
    """A symbol search as it was: its third pass a ``LIKE`` scan of every definition."""
    escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    select = (
        "SELECT f.path, d.line, d.name, d.kind, d.container, f.service, f.language, f.kind"
        " FROM defs d JOIN files f ON f.id = d.file_id WHERE "
    )
    passes = (
        ("d.name = ? COLLATE NOCASE", [query]),
        ("d.name LIKE ? ESCAPE '\\' AND d.name != ? COLLATE NOCASE", [escaped + "%", query]),
        ("d.name LIKE ? ESCAPE '\\' AND d.name NOT LIKE ? ESCAPE '\\'", ["%" + escaped + "%", escaped + "%"]),
    )
    found: list[tuple[int, tuple, Match]] = []
    files: set[str] = set()
    capped = False
    for tier, (condition, values) in enumerate(passes):
        for path, line, name, def_kind, container, service, lang, file_kind in db.execute(
            select + condition + " ORDER BY f.path, d.line, d.name", values
        ):
            if (query not in name) if case_sensitive else (query.casefold() not in name.casefold()):
                continue
            if len(found) >= max_matches:
                capped = True
                break
            qualified = f"{container}.{name}" if container else name
            match = Match(path, line, qualified, service, lang, file_kind, def_kind, container)
            found.append((tier, match.rank(), match))
            files.add(path)
        if capped:
            break
    found.sort(key=lambda item: (item[0], item[1][1:]))
    return Found(tuple(match for _, _, match in found), len(files), capped)


@pytest.fixture(scope="module")
def fixture_index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    built = Index(FIXTURE, tmp_path_factory.mktemp("cache"))
    built.refresh()
    return built


def test_inv_search_4_a_symbol_search_finds_what_a_scan_of_the_definitions_finds(fixture_index: Index) -> None:
    """Every name of the fixture, its pieces, other cases and LIKE's wildcards, with and without a
    cap and case: the same answer as the scan, match for match."""
    with fixture_index.store.snapshot() as db:
        names = [name for (name,) in db.execute("SELECT DISTINCT name FROM defs ORDER BY name")]
        assert len(names) > 100
        queries = {"_", "%", "order", "ORDER", "er_", "Serv", "x", "zzzq", "\\"}
        for name in names:
            queries |= {name, name[1:4], name[2:], name.swapcase(), name[: len(name) // 2]}
        for query in sorted(q for q in queries if q):
            for cap, case_sensitive in ((10_000, False), (3, False), (10_000, True)):
                expected = _symbols_by_scan(db, query, cap, case_sensitive)
                assert symbols(db, query, max_matches=cap, case_sensitive=case_sensitive) == expected, query


def test_inv_search_4_a_bulk_build_and_its_edits_keep_the_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build written in bulk makes the names at its end; the edits after it, some in bulk, keep
    them file by file; each time they are what ``defs`` says (``names_kept``) and a build from
    scratch's."""
    monkeypatch.setattr(_build, "INLINE_MAX", 2)
    root = tmp_path / "ws"
    write(root, {f"pkg/m{n}.py": f"def shared():\n    pass\n\n\ndef only_{n}():\n    pass\n" for n in range(8)})
    index = Index(root, tmp_path / "cache", workers=1)
    try:
        index.refresh()
        names, _ = names_kept(index.store.path)
        assert ("shared", 8) in names and ("only_3", 1) in names
        edits = [
            {"pkg/m3.py": "def renamed_3():\n    pass\n"},  # one name goes, one comes
            {"pkg/m4.py": None, "pkg/m5.py": None, "pkg/m6.py": None},  # three go: a bulk refresh of few files
            {"pkg/new.py": "class Shared:\n    def shared(self):\n        pass\n"},
        ]
        for number, edit in enumerate(edits):
            for path, text in edit.items():
                if text is None:
                    (root / path).unlink()
                else:
                    (root / path).write_text(text)
            index.refresh(changed=sorted(edit))
            assert_as_from_scratch(index, tmp_path / f"fresh-{number}", edit)
        names, _ = names_kept(index.store.path)
        assert ("shared", 5) in names and ("only_3", 1) not in names and ("renamed_3", 1) in names
    finally:
        index.close()


def test_inv_search_4_an_index_written_before_the_names_gets_them(tmp_path: Path) -> None:
    """An index without the names' tables (one an earlier version wrote) has them made from its
    definitions when it is opened for writing, and a symbol search finds the same."""
    index = Index(FIXTURE, tmp_path / "cache")
    try:
        index.refresh()
        with index.store.snapshot() as db:
            before = [(m.path, m.line, m.text) for m in symbols(db, "rder").matches]
        assert len(before) > 3
        with index.store.transaction() as writer:  # as an earlier version left it
            for table in ("def_names_text", "def_names"):
                writer.db.execute(f"DROP TABLE {table}")
    finally:
        index.close()
    again = Index(FIXTURE, tmp_path / "cache")
    try:
        names, _ = names_kept(again.store.path)
        assert len(names) > 100
        with again.store.snapshot() as db:
            assert [(m.path, m.line, m.text) for m in symbols(db, "rder").matches] == before
    finally:
        again.close()
