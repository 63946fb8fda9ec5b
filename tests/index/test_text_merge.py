"""The text index after bulk rewrites: merged whole, never a second copy of itself (INV-INDEX-13).

FTS5 drops a deleted file's postings only when it merges the segment holding them. A refresh that
rewrites every file (new extractors after an upgrade) used to leave the old index beside the new
one: at 100,000 generated files, 23 segments and 377 MB where a merged index holds 94 MB in one,
and every trigram looked up in each segment (a rare identifier 26-40 ms instead of 0.1 ms).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from mesh.index import Index
from mesh.index.build import _build
from mesh.index.store import _store
from mesh.index.store._store import text_segments as segments

from ._compare import assert_as_from_scratch
from .test_enumerate import make

FILES = 200


def meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    make(root, {f"pkg/module_{n:03d}.py": f"def handler_{n}(request):\n    return 'answer {n}'\n" for n in range(FILES)})
    return root


def found(index: Index, word: str) -> list[str]:
    with index.store.snapshot() as db:
        trigrams = " AND ".join(f'"{word[i : i + 3]}"' for i in range(len(word) - 2))
        return [path for (path,) in db.execute(
            "SELECT f.path FROM text t CROSS JOIN files f ON f.id = t.rowid WHERE text MATCH ? ORDER BY f.path",
            (trigrams,))]  # fmt: skip


def test_inv_index_13_an_upgrade_that_rewrites_every_file_leaves_one_segment(ws: Path, tmp_path: Path, monkeypatch) -> None:
    index = Index(ws, tmp_path / "cache")
    try:
        index.refresh()
        with index.store.snapshot() as db:
            assert segments(db) == 1  # a first build merges (as it always did)
        monkeypatch.setattr(_build, "fingerprint", lambda: "another-version")
        assert index.refresh().parsed == FILES  # every file's text deleted and written again, in bulk
        with index.store.snapshot() as db:
            assert segments(db) == 1, "the rewrite left the old index's segments behind"
            assert meta(db, "text_changed") == "0"
        assert found(index, "handler_17(") == ["pkg/module_017.py"]
    finally:
        index.close()


def test_inv_index_3_an_upgrade_replaces_the_facts_and_keeps_the_text(ws: Path, tmp_path: Path, monkeypatch) -> None:
    """New extractors parse every file again (INV-INDEX-3), but a file whose bytes are those its
    text was stored from keeps its row and text: the text index is not written at all, and the
    facts are the new extractors' only, as a build from scratch makes them. A file changed since,
    or stored with an error, is written whole."""
    (ws / "pkg/module_005.py").write_bytes(b"def binary():\0 pass\n")  # stored with an error, no text
    index = Index(ws, tmp_path / "cache")
    try:
        index.refresh()
        with index.store.snapshot() as db:
            ids = dict(db.execute("SELECT path, id FROM files"))
            # what other extractors left: a definition these never make, a reference, an import
            module_7 = ids["pkg/module_007.py"]
        with index.store.transaction() as writer:
            writer.db.execute("INSERT INTO defs VALUES (?, 'stale_name', 'function', '', 1, 1, 0)", (module_7,))
            writer.db.execute("INSERT INTO imports VALUES (?, 'gone', '', 1, NULL, NULL, '')", (module_7,))
        changed = ws / "pkg/module_009.py"
        changed.write_text("def handler_9_changed(request):\n    return 9\n")
        monkeypatch.setattr(_build, "fingerprint", lambda: "another-version")
        assert index.refresh().parsed == FILES
        with index.store.snapshot() as db:
            after = dict(db.execute("SELECT path, id FROM files"))
            kept = {path for path in ids if after[path] == ids[path]}
            assert kept == set(ids) - {"pkg/module_005.py", "pkg/module_009.py"}  # same rows, same text
            # the text index wrote only the changed file: a deletion and an insertion (the binary
            # file has no text), far from a merge, in a segment of their own beside the build's
            assert meta(db, "text_changed") == "2"
            assert segments(db) == 2
            assert db.execute("SELECT count(*) FROM defs WHERE name = 'stale_name'").fetchone() == (0,)
            assert db.execute("SELECT count(*) FROM imports WHERE module = 'gone'").fetchone() == (0,)
        assert found(index, "handler_9_changed(") == ["pkg/module_009.py"]
        assert found(index, "handler_7(") == ["pkg/module_007.py"]
        assert_as_from_scratch(index, tmp_path / "fresh", "upgraded")
    finally:
        index.close()


def test_inv_index_13_edits_do_not_pay_for_the_merge_and_bulk_writes_add_up(ws: Path, tmp_path: Path) -> None:
    index = Index(ws, tmp_path / "cache")
    try:
        index.refresh()
        (ws / "pkg/module_001.py").write_text("def edited_one():\n    return 1\n")
        index.refresh(changed=["pkg/module_001.py"])
        with index.store.snapshot() as db:
            assert segments(db) > 1  # the edit's own small segments: no merge of the whole index
            assert meta(db, "text_changed") == "0"  # only bulk writes are counted
        # 40 files rewritten in bulk: 80 insertions and deletions, under half of the 200 files
        for n in range(100, 140):
            (ws / f"pkg/module_{n:03d}.py").write_text(f"def rewritten_{n}():\n    return {n}\n")
        index.refresh()
        with index.store.snapshot() as db:
            assert meta(db, "text_changed") == "80"
            assert segments(db) > 1
        # 40 more: 160 in all, past half of the files indexed: merged whole, the count starts again
        for n in range(140, 180):
            path = ws / f"pkg/module_{n:03d}.py"
            path.write_text(f"def rewritten_{n}():\n    return {n}\n")
            os.utime(path, ns=(n, n))
        index.refresh()
        with index.store.snapshot() as db:
            assert segments(db) == 1
            assert meta(db, "text_changed") == "0"
        assert found(index, "rewritten_150(") == ["pkg/module_150.py"]
        assert found(index, "handler_150(") == []
        assert found(index, "edited_one(") == ["pkg/module_001.py"]
    finally:
        index.close()


def test_inv_index_13_an_index_of_an_older_mesh_is_merged_at_its_first_bulk_write(ws: Path, tmp_path: Path) -> None:
    """An older mesh kept no count, and its rewrites may have left copies of the index: its first
    bulk write merges it whole, however few files it rewrites."""
    index = Index(ws, tmp_path / "cache")
    try:
        index.refresh()
        for n in range(3):  # edits: segments of their own
            (ws / f"pkg/module_{n:03d}.py").write_text(f"def edited_{n}():\n    return {n}\n")
            index.refresh(changed=[f"pkg/module_{n:03d}.py"])
        with index.store.transaction() as writer:
            writer.db.execute("DELETE FROM meta WHERE key = 'text_changed'")
        for n in range(100, 140):  # 80 insertions and deletions: under half the files
            (ws / f"pkg/module_{n:03d}.py").write_text(f"def rewritten_{n}():\n    return {n}\n")
        index.refresh()
        with index.store.snapshot() as db:
            assert segments(db) == 1
            assert meta(db, "text_changed") == "0"
        assert found(index, "edited_2(") == ["pkg/module_002.py"]
    finally:
        index.close()


def test_the_share_is_half_of_the_files() -> None:
    """What the tests above count on: a rewrite of every file is four times the share."""
    assert _store.TEXT_MERGE_SHARE == 0.5
