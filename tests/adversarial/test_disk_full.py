"""A disk that fills while the index is written: the refresh fails as a whole and says so.

It names the cache folder, the space free and about how much the index needs; the previous
snapshot stays served; ``mesh-mcp index`` exits 1 with that message and no traceback.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from mesh.index import Index, IndexUnavailable

from .index_faults import many_dependents, small_disk

ROOT = Path(__file__).resolve().parents[2]


def words(seed: int, count: int) -> str:
    """``count`` words drawn from a seed: text that compresses and indexes like prose, not like zeros."""
    prng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    return " ".join(
        "".join(letters[int(prng.random() * 26)] for _ in range(3 + int(prng.random() * 8))) for _ in range(count)
    )


def add_files(root: Path, count: int, words_each: int) -> None:
    for i in range(count):
        path = root / "bulk" / f"notes_{i:03}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Notes {i}\n\n{words(i, words_each)}\n")


def test_a_full_disk_fails_the_refresh_as_a_whole_and_says_where_INV_INDEX_9(tmp_path: Path) -> None:
    """INV-INDEX-9: SQLite finds the disk full mid-refresh (``max_page_count`` stands for the
    disk): the refresh raises IndexUnavailable naming the cache folder, the space free and about
    how much the index needs (not "cannot rollback - no transaction is active"); the previous
    generation is whole and served; once there is room, the next refresh goes on."""
    root = tmp_path / "ws"
    many_dependents(root, services=2, per_service=10)
    cache = tmp_path / "cache"
    index = Index(root, cache, workers=1)
    try:
        first = index.refresh()
        db = index.store.writer_connection()
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages + 4}")
        add_files(root, 40, 400)
        with pytest.raises(IndexUnavailable) as caught:
            index.refresh()
        message = str(caught.value)
        assert f"the disk holding the index folder {cache} is full" in message, message
        assert "free" in message and "needs about" in message and "MESH_CACHE_DIR" in message, message
        assert "rollback" not in message
        assert index.store.generation() == first.generation
        with index.store.snapshot() as snapshot:
            assert snapshot.execute("SELECT count(*) FROM files").fetchone()[0] == first.files
        db.execute("PRAGMA max_page_count = 1073741823")
        assert index.refresh().files == first.files + 40
    finally:
        index.close()
    assert not (cache / "index.db.damaged").exists()


def mesh(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MESH_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "mesh", *args], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT
    )


def test_mesh_mcp_index_on_a_full_disk_exits_1_and_the_last_snapshot_answers_INV_INDEX_9(tmp_path: Path) -> None:
    """INV-INDEX-9: the cache on a 1 MB tmpfs; the first index fits, the second (2 MB more text)
    does not: ``mesh-mcp index`` exits 1 saying the disk is full, where and about how much is
    needed, with no traceback; ``mesh-mcp call`` still answers from the last snapshot; nothing is
    set aside as damaged."""
    with small_disk(tmp_path / "disk", "1m") as disk:
        if disk is None:
            pytest.skip("mounting a 1 MB tmpfs needs root (mount -t tmpfs); the max_page_count test stands in")
        root = tmp_path / "ws"
        many_dependents(root, services=2, per_service=5)
        done = mesh("index", str(root), cache=disk)
        assert done.returncode == 0, done.stderr
        add_files(root, 200, 1500)
        done = mesh("index", str(root), cache=disk)
        assert done.returncode == 1, (done.stdout, done.stderr)
        assert "Traceback" not in done.stderr and "rollback" not in done.stderr, done.stderr
        assert "mesh-mcp index: the disk holding the index folder" in done.stderr and str(disk) in done.stderr
        # found before writing (INV-INDEX-9): 2 MB more text needs about 8 MB, far more than is free
        assert "has too little room" in done.stderr and "needs about" in done.stderr, done.stderr
        done = mesh("call", "smart_search", '{"query": "marker_1_4"}', "--workspace", str(root), cache=disk)
        assert done.returncode == 0, done.stderr
        assert "svc1/svc1/m4.py" in done.stdout and "answering from the last snapshot" in done.stderr
        assert not any(name.endswith(".damaged") for folder in disk.iterdir() for name in os.listdir(folder))


def test_a_refresh_too_large_for_the_disk_says_so_before_writing_INV_INDEX_9(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-INDEX-9: the disk has less room than the files due take (about four times their text):
    the refresh fails before it writes anything, saying how much is free and about how much it
    needs; the previous snapshot stays; with room, the next refresh goes on."""
    from mesh.index.store import _store

    root = tmp_path / "ws"
    many_dependents(root, services=2, per_service=5)
    cache = tmp_path / "cache"
    index = Index(root, cache, workers=1)
    try:
        first = index.refresh()
        add_files(root, 20, 400)
        due = sum(p.stat().st_size for p in (root / "bulk").iterdir())
        monkeypatch.setattr(_store, "_free_bytes", lambda _folder: 3 * due)  # room for less than 4x
        with pytest.raises(IndexUnavailable) as caught:
            index.refresh()
        message = str(caught.value)
        assert f"the disk holding the index folder {cache} has too little room" in message, message
        assert "20 files" in message and "needs about" in message and "MESH_CACHE_DIR" in message, message
        assert index.store.generation() == first.generation
        monkeypatch.setattr(_store, "_free_bytes", lambda _folder: 5 * due)
        assert index.refresh().files == first.files + 20
    finally:
        index.close()
