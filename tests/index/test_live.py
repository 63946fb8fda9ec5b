"""The live index of a server: background first build, "still indexing", reuse, failures, close."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mesh.index import Index
from mesh.index.build._live import LiveIndex, NotReady

WAIT_S = 60.0


def workspace(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "ws"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    root.mkdir(exist_ok=True)
    return root


def eventually(check, timeout_s: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)


def count_files(live: LiveIndex) -> int:
    with live.snapshot() as db:
        return db.execute("SELECT count(*) FROM files").fetchone()[0]


def test_before_the_first_snapshot_readers_hear_progress(tmp_path: Path) -> None:
    """INV-INDEX-7: a fresh index under construction: NotReady with the files done of total, then readable."""
    root = workspace(tmp_path, {"a.py": "x = 1\n", "hang.py": "y = 2\n", "b.py": "z = 3\n"})
    live = LiveIndex(root, tmp_path / "cache", workers=1, budget_s=1.0, worker_module="tests.support.parse_worker")
    live.start()
    try:
        with pytest.raises(NotReady) as caught:
            count_files(live)
        assert caught.value.failure == ""
        assert caught.value.progress.phase in ("starting", "walking", "parsing", "writing")
        eventually(lambda: live.progress.phase == "parsing" and live.progress.total == 3)
        with pytest.raises(NotReady, match="parsing: [0-3] of 3"):
            count_files(live)
        assert live.wait_settled(WAIT_S)
        assert count_files(live) == 3  # hang.py is recorded, with its error
    finally:
        live.close()


def test_a_previous_snapshot_is_served_at_once_while_the_refresh_runs(tmp_path: Path) -> None:
    """INV-INDEX-1, INV-INDEX-7: a restart reads the last run's whole snapshot at once; the new one
    replaces it atomically."""
    root = workspace(tmp_path, {"a.py": "x = 1\n"})
    first = Index(root, tmp_path / "cache", workers=1)
    first.refresh()
    first.close()
    (root / "hang.py").write_text("y = 2\n")
    live = LiveIndex(root, tmp_path / "cache", workers=1, budget_s=2.0, worker_module="tests.support.parse_worker")
    live.start()
    try:
        assert count_files(live) == 1  # the refresh is stuck on hang.py; the old snapshot answers
        assert live.wait_settled(WAIT_S)
        assert count_files(live) == 2
    finally:
        live.close()


def test_the_watcher_brings_edits_in(tmp_path: Path) -> None:
    root = workspace(tmp_path, {"a.py": "x = 1\n"})
    live = LiveIndex(root, tmp_path / "cache", workers=1)
    live.start()
    try:
        assert live.wait_settled(WAIT_S)
        time.sleep(0.3)  # the watch is set up inside the watcher's thread
        (root / "b.py").write_text("y = 2\n")
        eventually(lambda: count_files(live) == 2)
    finally:
        live.close()
    assert not live.watcher.alive


def test_an_unwritable_cache_is_a_failure_readers_can_read(tmp_path: Path) -> None:
    """The cache folder cannot be made (its parent is a file): readers hear why, and a restart is needed."""
    root = workspace(tmp_path, {"a.py": "x = 1\n"})
    (tmp_path / "file").write_text("not a folder")
    live = LiveIndex(root, tmp_path / "file" / "cache", workers=1)
    live.start()
    try:
        assert live.wait_settled(WAIT_S)
        with pytest.raises(NotReady) as caught:
            count_files(live)
        assert "cannot create the index folder" in caught.value.failure
        assert caught.value.retrying is False
    finally:
        live.close()


def test_a_broken_config_is_reported_and_fixed_by_the_next_save(tmp_path: Path) -> None:
    root = workspace(tmp_path, {"a.py": "x = 1\n", "mesh.toml": "[index\n"})
    live = LiveIndex(root, tmp_path / "cache", workers=1)
    live.start()
    try:
        assert live.wait_settled(WAIT_S)
        with pytest.raises(NotReady) as caught:
            count_files(live)
        assert "mesh.toml" in caught.value.failure
        eventually(lambda: live.watcher is not None and live.watcher.alive)
        with pytest.raises(NotReady) as caught:
            count_files(live)
        assert caught.value.retrying is True
        (root / "mesh.toml").write_text("[index]\n")
        eventually(lambda: live.failure == "" and count_files(live) == 2)
    finally:
        live.close()


def test_close_does_not_wait_for_a_stuck_first_build(tmp_path: Path) -> None:
    """A server exits promptly: closing abandons a build in progress (never committed)."""
    root = workspace(tmp_path, {"hang.py": "y = 2\n"})
    live = LiveIndex(root, tmp_path / "cache", workers=1, budget_s=30.0, worker_module="tests.support.parse_worker")
    live.start()
    eventually(lambda: live.progress.phase == "parsing")
    started = time.monotonic()
    live.close()
    assert time.monotonic() - started < 2.0


def test_readers_never_wait_for_the_write_lock(tmp_path: Path) -> None:
    """INV-INDEX-7: another process holds the index's write lock (a hundred servers starting at
    once): a new server still answers from the snapshot on disk, at once."""
    import sqlite3

    root = workspace(tmp_path, {"a.py": "x = 1\n"})
    first = Index(root, tmp_path / "cache", workers=1)
    first.refresh()
    first.close()
    holder = sqlite3.connect(first.store.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    live = LiveIndex(root, tmp_path / "cache", workers=1)
    live.start()
    try:
        started = time.monotonic()
        assert count_files(live) == 1
        assert time.monotonic() - started < 2.0
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        live.close()


def test_a_restart_serves_at_once_and_refreshes_after_the_delay(tmp_path: Path) -> None:
    """A short session on an index built before costs no builder; a longer one gets the refresh."""
    root = workspace(tmp_path, {"a.py": "x = 1\n"})
    first = Index(root, tmp_path / "cache", workers=1)
    first.refresh()
    first.close()
    (root / "b.py").write_text("y = 2\n")
    short = LiveIndex(root, tmp_path / "cache", workers=1, refresh_delay_s=30.0)
    short.start()
    assert count_files(short) == 1
    short.close()
    assert short.index is None and short.wait_settled(5.0)  # closed during the delay: nothing built
    longer = LiveIndex(root, tmp_path / "cache", workers=1, refresh_delay_s=0.2)
    longer.start()
    try:
        assert count_files(longer) == 1
        assert longer.wait_settled(WAIT_S)
        assert count_files(longer) == 2
    finally:
        longer.close()


def _open_index_files(path: Path) -> int:
    """Descriptors of this process open on ``path`` (or its -wal/-shm files)."""
    import os

    opened = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith(str(path)):
                opened += 1
        except OSError:
            pass
    return opened


def test_readers_of_threads_that_ended_leave_no_descriptors_behind(tmp_path: Path) -> None:
    """A daemon's sessions come and go with their worker threads: 200 threads reading once each,
    20 at a time, leave at most the pool's connections open (not one per dead thread)."""
    import threading

    from mesh.index.build._live import READERS_MAX

    root = workspace(tmp_path, {"a.py": "x = 1\n"})
    built = Index(root, tmp_path / "cache", workers=1)
    built.refresh()
    built.close()
    live = LiveIndex(root, tmp_path / "cache", watch=False, refresh_delay_s=3600)
    live.start()
    counts: list[int] = []
    try:
        for _ in range(10):
            threads = [threading.Thread(target=lambda: counts.append(count_files(live))) for _ in range(20)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(WAIT_S)
        assert counts == [1] * 200
        # Each connection holds the database and its WAL, the process one shared-memory file (the
        # connections that leaked before held ~100 here).
        assert _open_index_files(built.store.path) <= 2 * READERS_MAX + 4
    finally:
        live.close()
    assert _open_index_files(built.store.path) == 0


def test_closing_the_index_never_closes_a_connection_under_a_reading_thread(tmp_path: Path) -> None:
    """INV-DRAIN-2: a stdio server exits 0 after EOF. It closed its index while the index thread
    still read it (building the resolver's tables ahead of the first edit), and closing a SQLite
    connection under another thread's query crashed the process (exit -11, seen in the 100-session
    simulation). A connection inside a snapshot is closed by its own thread as the snapshot ends."""
    import sqlite3
    import threading

    root = workspace(tmp_path, {"a.py": "import b\n", "b.py": "x = 1\n"})
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    inside, closed, done = threading.Event(), threading.Event(), threading.Event()
    seen: list[object] = []

    def read() -> None:
        with index.store.snapshot() as db:
            inside.set()
            closed.wait(WAIT_S)
            seen.append(db.execute("SELECT count(*) FROM files").fetchone()[0])  # still open under us
        try:
            db.execute("SELECT 1")
        except sqlite3.ProgrammingError as exc:  # and closed as the snapshot ended
            seen.append(str(exc))
        done.set()

    reader = threading.Thread(target=read)
    reader.start()
    assert inside.wait(WAIT_S)
    index.close()
    closed.set()
    assert done.wait(WAIT_S)
    reader.join()
    assert seen == [2, "Cannot operate on a closed database."]
