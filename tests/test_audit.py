"""The audit log (``mesh.audit``) and the ``mesh-mcp audit`` command.

Invariants checked here:

- INV-AUDIT-1: a response a client saw always has its committed row, even after kill -9
  (``record`` returns only after the commit; the row survives the writer's death).
- INV-AUDIT-2: the audit log never takes the server down: any failure to write it loses only the
  row, with one warning.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import attrs
import pytest

import mesh.audit
from mesh.commands.audit import render_table, run_audit
from mesh.audit import (
    DB_NAME,
    REOPEN_AFTER_S,
    AuditLog,
    AuditRow,
    AuditUnavailable,
    canonical_digest,
    format_time,
    read_recent,
)
from mesh.workspace import cache_dir

ROOT = Path(__file__).resolve().parent.parent
T0 = 1_790_000_000.0  # 2026-09-21T...Z
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


class FakeClock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make_row(index: int = 0, *, at: float = T0, **changes: object) -> AuditRow:
    fields: dict[str, object] = {
        "time": format_time(at),
        "session": "session-a",
        "tool": "search",
        "args_digest": canonical_digest({"query": f"q{index}"}),
        "outcome": "ok",
        "duration_ms": 1.5 + index,
        "result_bytes": 100 + index,
        "truncated": False,
        "trace_id": None,
    }
    fields.update(changes)
    return AuditRow(**fields)  # type: ignore[arg-type]


def all_rows(folder: Path) -> list[AuditRow]:
    rows = read_recent(folder, limit=1_000_000)
    assert rows is not None
    return rows


def audit_records(caplog: pytest.LogCaptureFixture, level: int) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "mesh.audit" and record.levelno == level]


# -- rows, times and digests ----------------------------------------------------------------------


def test_format_time_is_utc_iso_with_milliseconds_and_z() -> None:
    """Row times: fixed width, UTC, milliseconds (truncated), ``Z``."""
    assert format_time(0.0) == "1970-01-01T00:00:00.000Z"
    assert format_time(1.2345) == "1970-01-01T00:00:01.234Z"
    assert format_time(1_795_928_462.345) == "2026-11-29T05:01:02.345Z"
    assert AuditLog(Path("unused"), clock=FakeClock(0.5)).now() == "1970-01-01T00:00:00.500Z"


def test_canonical_digest_ignores_key_order_and_meta() -> None:
    """Same arguments in another key order (at every level) give the same digest; ``_meta`` is
    left out; the digest is sha256 of the compact, sorted, UTF-8 JSON."""
    one = {"query": "héllo", "scope": {"service": "billing", "depth": 2}, "limit": 5}
    other = {"limit": 5, "scope": {"depth": 2, "service": "billing"}, "query": "héllo"}
    assert canonical_digest(one) == canonical_digest(other)
    assert canonical_digest({**one, "_meta": {"traceparent": f"00-{TRACE}-00f067aa0ba902b7-01"}}) == (
        canonical_digest(one)
    )
    expected = hashlib.sha256('{"a":[1,{"b":2,"c":"é"}],"z":null}'.encode()).hexdigest()
    assert canonical_digest({"z": None, "a": [1, {"c": "é", "b": 2}]}) == expected
    assert canonical_digest({"query": "a"}) != canonical_digest({"query": "b"})
    assert canonical_digest({}) == hashlib.sha256(b"{}").hexdigest()


def test_canonical_digest_never_raises() -> None:
    """A lone surrogate (valid JSON, invalid UTF-8) and a value JSON cannot hold still digest."""
    assert len(canonical_digest({"q": "\ud800"})) == 64
    assert len(canonical_digest({"q": object()})) == 64


def test_a_row_with_an_unknown_outcome_is_refused() -> None:
    """The outcome is one of ok, tool_error, crash."""
    with pytest.raises(ValueError):
        make_row(outcome="fine")


def test_a_recorded_row_reads_back_field_for_field(tmp_path: Path) -> None:
    """Every field survives the round trip, through the writer and through a read-only reader;
    the schema has its version in ``meta`` and indexes on time, tool and trace id."""
    rows = [
        make_row(0),
        make_row(1, at=T0 + 1, outcome="tool_error", truncated=True, trace_id=TRACE, session="s-é"),
        make_row(2, at=T0 + 2, outcome="crash", duration_ms=0.25, result_bytes=0, tool="view"),
    ]
    with AuditLog(tmp_path, clock=FakeClock()) as audit:
        assert all(audit.record(row) for row in rows)
        assert audit.recent() == rows[::-1]
        assert audit.recorded == 3 and audit.dropped == 0
    assert read_recent(tmp_path) == rows[::-1]
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (mesh.audit.SCHEMA_VERSION,)
        indexes = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"calls_time", "calls_tool", "calls_trace_id"} <= indexes
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_nothing_is_created_before_the_first_record(tmp_path: Path) -> None:
    """``AuditLog()`` does no I/O; the folder and the file appear at the first record."""
    folder = tmp_path / "cache" / "ws"
    audit = AuditLog(folder)
    assert not folder.exists()
    assert read_recent(folder) is None
    audit.record(make_row())
    assert (folder / DB_NAME).is_file()
    audit.close()


def test_record_commits_before_it_returns_INV_AUDIT_1(tmp_path: Path) -> None:
    """INV-AUDIT-1: when ``record`` returns, another connection already sees the row (it is
    committed, not buffered), while the writer stays open."""
    audit = AuditLog(tmp_path, clock=FakeClock())
    for index in range(3):
        assert audit.record(make_row(index, at=T0 + index))
        assert all_rows(tmp_path)[0].args_digest == make_row(index).args_digest
    audit.close()


KILLED_CHILD = """
import sys
from pathlib import Path
from mesh.audit import AuditLog, AuditRow
audit = AuditLog(Path(sys.argv[1]))
for index in range(100_000):
    audit.record(AuditRow(time=audit.now(), session="child", tool=f"tool-{index}", args_digest="0" * 64,
                          outcome="ok", duration_ms=1.0, result_bytes=index, truncated=False))
    sys.stdout.write(f"recorded {index}\\n")
    sys.stdout.flush()
"""


def test_a_row_reported_recorded_survives_kill_9_INV_AUDIT_1(tmp_path: Path) -> None:
    """INV-AUDIT-1: a child records rows in a loop, saying "recorded N" after each; it is SIGKILLed
    right after the parent reads "recorded 20" (most likely in the middle of the next commit).
    Every row the child reported is in the database, which opens and takes new rows."""
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_CHILD, str(tmp_path)], stdout=subprocess.PIPE, cwd=ROOT, text=True
    )
    assert child.stdout is not None
    try:
        seen = []
        for line in child.stdout:
            seen.append(line)
            if line == "recorded 20\n":
                break
        child.send_signal(signal.SIGKILL)
        seen += child.stdout.read().splitlines(keepends=True)
    finally:
        child.kill()
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    reported = {int(line.split()[1]) for line in seen if line.endswith("\n")}
    assert set(range(21)) <= reported
    stored = {row.result_bytes for row in all_rows(tmp_path)}
    assert reported <= stored
    with AuditLog(tmp_path) as audit:
        assert audit.record(make_row())


# -- reading: order and filters --------------------------------------------------------------------


def test_recent_is_newest_first_with_ties_in_commit_order_and_filters(tmp_path: Path) -> None:
    """Newest first by time; equal times newest commit first; tool, trace id and session filters
    combine; the limit counts after filtering."""
    rows = [
        make_row(0, at=T0 + 5, tool="search"),
        make_row(1, at=T0 + 1, tool="view", trace_id=TRACE),
        make_row(2, at=T0 + 5, tool="view", session="session-b"),  # same time as row 0, committed later
        make_row(3, at=T0 + 3, tool="search", trace_id=TRACE, session="session-b"),
    ]
    with AuditLog(tmp_path, clock=FakeClock(T0 + 10)) as audit:
        for row in rows:
            audit.record(row)
        assert audit.recent() == [rows[2], rows[0], rows[3], rows[1]]
        assert audit.recent(limit=2) == [rows[2], rows[0]]
        assert audit.recent(tool="view") == [rows[2], rows[1]]
        assert audit.recent(trace_id=TRACE) == [rows[3], rows[1]]
        assert audit.recent(session="session-b") == [rows[2], rows[3]]
        assert audit.recent(tool="search", trace_id=TRACE, session="session-b") == [rows[3]]
        assert audit.recent(tool="nope") == []
        with pytest.raises(ValueError):
            audit.recent(limit=0)
    assert read_recent(tmp_path, tool="view", limit=1) == [rows[2]]


# -- retention ------------------------------------------------------------------------------------


def test_rows_beyond_the_cap_and_older_than_the_age_are_pruned_newest_kept(tmp_path: Path) -> None:
    """With a pass at every record: never more than ``retention_rows`` rows, the newest ones; a
    row older than ``retention_days`` goes at the next pass."""
    clock = FakeClock()
    with AuditLog(tmp_path, retention_rows=5, retention_days=1, clock=clock, prune_every=1) as audit:
        for index in range(12):
            clock.now = T0 + index
            audit.record(make_row(index, at=clock.now))
            assert len(all_rows(tmp_path)) == min(index + 1, 5)
        assert [row.result_bytes for row in all_rows(tmp_path)] == [111, 110, 109, 108, 107]
        clock.now = T0 + 86_400 + 9.5  # rows at T0+0..T0+9 are now older than a day
        audit.record(make_row(99, at=clock.now))
        assert [row.result_bytes for row in all_rows(tmp_path)] == [199, 111, 110]


def test_retention_passes_are_periodic_and_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first record after opening runs a pass, then every ``prune_every`` records; one pass
    deletes at most ``PRUNE_BATCH_ROWS`` per limit, so a lowered cap is reached over several."""
    with AuditLog(tmp_path, clock=FakeClock()) as audit:
        for index in range(20):
            audit.record(make_row(index))
    monkeypatch.setattr(mesh.audit, "PRUNE_BATCH_ROWS", 4)
    with AuditLog(tmp_path, retention_rows=3, retention_days=None, clock=FakeClock(), prune_every=5) as audit:
        audit.record(make_row(20))  # first record: a pass (21 rows -> 17)
        assert len(all_rows(tmp_path)) == 17
        for index in range(21, 25):
            audit.record(make_row(index))  # no pass: 21 rows
        assert len(all_rows(tmp_path)) == 21
        audit.record(make_row(25))  # fifth record since the pass: 22 rows -> 18
        assert len(all_rows(tmp_path)) == 18
        while audit.prune():
            pass
        assert [row.result_bytes for row in all_rows(tmp_path)] == [125, 124, 123]


def test_bad_retention_settings_are_refused(tmp_path: Path) -> None:
    """Retention and the pass period are validated at construction (a configuration error)."""
    for bad in ({"retention_rows": 0}, {"retention_days": 0}, {"prune_every": 0}):
        with pytest.raises(ValueError):
            AuditLog(tmp_path, **bad)  # type: ignore[arg-type]


# -- concurrency ----------------------------------------------------------------------------------


def test_eight_threads_recording_at_once_lose_nothing(tmp_path: Path) -> None:
    """One log, 8 threads x 200 records: every row is committed, none twice."""
    audit = AuditLog(tmp_path, clock=FakeClock())
    barrier = threading.Barrier(8)
    results: list[bool] = []

    def work(thread: int) -> None:
        barrier.wait()
        results.extend(audit.record(make_row(thread * 1000 + index, session=f"t{thread}")) for index in range(200))

    threads = [threading.Thread(target=work, args=(thread,)) for thread in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    audit.close()
    assert results == [True] * 1600 and audit.dropped == 0
    stored = sorted(row.result_bytes - 100 for row in all_rows(tmp_path))
    assert stored == sorted(thread * 1000 + index for thread in range(8) for index in range(200))


def test_two_logs_on_one_file_take_turns(tmp_path: Path) -> None:
    """Two writers of the same ``audit.db`` (as two server processes would be), recording at the
    same time from their own threads, both keep every row; and both create it at once safely."""
    first, second = AuditLog(tmp_path, clock=FakeClock()), AuditLog(tmp_path, clock=FakeClock())

    def work(audit: AuditLog, session: str) -> None:
        for index in range(100):
            assert audit.record(make_row(index, session=session))

    threads = [threading.Thread(target=work, args=args) for args in ((first, "one"), (second, "two"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert first.recent(session="two", limit=500) == second.recent(session="two", limit=500)
    first.close()
    second.close()
    rows = all_rows(tmp_path)
    assert len(rows) == 200 and {row.session for row in rows} == {"one", "two"}


def test_a_write_lock_held_past_the_timeout_drops_the_row_with_a_warning_INV_AUDIT_2(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """INV-AUDIT-2: another process holding the write lock past the busy timeout costs the row
    (counted, one warning), not the call; the next record, once the lock is free, is committed."""
    audit = AuditLog(tmp_path, clock=FakeClock(), busy_timeout_ms=50)
    assert audit.record(make_row(0))
    other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    with caplog.at_level(logging.DEBUG, logger="mesh.audit"):
        assert audit.record(make_row(1)) is False
        assert audit.record(make_row(2)) is False
    other.execute("ROLLBACK")
    other.close()
    assert audit.dropped == 2
    warnings = audit_records(caplog, logging.WARNING)
    assert len(warnings) == 1 and "lost" in warnings[0].getMessage()
    assert len(audit_records(caplog, logging.DEBUG)) >= 1
    assert audit.record(make_row(3))
    assert [row.result_bytes for row in audit.recent()] == [103, 100]
    audit.close()


# -- failures that must not take the server down -----------------------------------------------------


@pytest.mark.parametrize("shape", ["parent is a file", "folder is a file"])
def test_an_unwritable_folder_loses_rows_with_one_warning_INV_AUDIT_2(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, shape: str
) -> None:
    """INV-AUDIT-2: a cache folder that cannot be created (its parent, or the folder itself, is a
    regular file; tests run as root, so permissions cannot be used): the constructor and every
    record return normally, one warning is logged, later losses at debug level; no retry happens
    before ``REOPEN_AFTER_S``, and once the folder is usable and that time is past, rows are kept."""
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    folder = blocker / "cache" if shape == "parent is a file" else blocker
    clock = FakeClock()
    with caplog.at_level(logging.DEBUG, logger="mesh.audit"):
        audit = AuditLog(folder, clock=clock)
        assert [audit.record(make_row(index)) for index in range(3)] == [False] * 3
    warnings = audit_records(caplog, logging.WARNING)
    assert len(warnings) == 1 and str(folder / DB_NAME) in warnings[0].getMessage()
    assert len(audit_records(caplog, logging.DEBUG)) == 2
    assert audit.dropped == 3 and audit.recorded == 0
    with pytest.raises(AuditUnavailable):
        audit.recent()
    blocker.unlink()
    assert audit.record(make_row(3)) is False  # not yet: still within the back-off
    clock.now += REOPEN_AFTER_S
    assert audit.record(make_row(4))
    assert [row.result_bytes for row in audit.recent()] == [104]
    audit.close()


def test_a_full_disk_loses_rows_with_one_warning_and_the_log_comes_back_INV_AUDIT_2(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """INV-AUDIT-2: a write failing with SQLITE_FULL (the database capped at its current size, as
    a full disk would) loses the row with one warning and does not raise; the log is opened again
    after the back-off and keeps rows again."""
    clock = FakeClock()
    audit = AuditLog(tmp_path, clock=clock)
    assert audit.record(make_row(0))
    connection = audit._connection
    assert connection is not None
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    connection.execute(f"PRAGMA max_page_count = {pages}")
    with caplog.at_level(logging.DEBUG, logger="mesh.audit"):
        results = [audit.record(make_row(index, tool="t" * 3000)) for index in range(1, 6)]
    assert False in results
    assert len(audit_records(caplog, logging.WARNING)) == 1
    assert audit.dropped == results.count(False)
    clock.now += REOPEN_AFTER_S
    assert audit.record(make_row(9))
    assert audit.recent(limit=1)[0].result_bytes == 109
    audit.close()


def test_an_unexpected_error_loses_only_the_row_INV_AUDIT_2(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """INV-AUDIT-2: a row SQLite cannot store (a bug in the caller) is lost with a warning; the
    connection is kept and the next row is committed."""
    audit = AuditLog(tmp_path, clock=FakeClock())
    with caplog.at_level(logging.WARNING, logger="mesh.audit"):
        assert audit.record(make_row(0, session=object())) is False
    assert len(audit_records(caplog, logging.WARNING)) == 1
    assert audit.record(make_row(1))
    assert [row.result_bytes for row in audit.recent()] == [101]
    audit.close()


@pytest.mark.parametrize("content", ["garbage", "another schema", "an older audit schema"])
def test_a_damaged_or_foreign_audit_db_is_set_aside_and_recreated_INV_AUDIT_2(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: str
) -> None:
    """INV-AUDIT-2: a file that is not a database, or holds another schema, is renamed
    ``audit.db.old`` with a warning and a new log started; the row is kept. ``read_recent`` on
    such a file (it never repairs) raises :class:`AuditUnavailable`."""
    path = tmp_path / DB_NAME
    if content == "garbage":
        path.write_bytes(b"this is not a database\n" * 500)
    else:
        with sqlite3.connect(path) as db:
            if content == "another schema":
                db.execute("CREATE TABLE things(x)")
            else:
                db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                db.execute("CREATE TABLE calls(id INTEGER PRIMARY KEY, time TEXT)")
                db.execute("INSERT INTO meta VALUES ('schema', '0')")
        db.close()
    before = path.read_bytes()
    with pytest.raises(AuditUnavailable):
        read_recent(tmp_path)
    with caplog.at_level(logging.WARNING, logger="mesh.audit"), AuditLog(tmp_path, clock=FakeClock()) as audit:
        assert audit.record(make_row(0))
        assert audit.recent() == [make_row(0)]
    assert (tmp_path / f"{DB_NAME}.old").read_bytes() == before
    assert any("set aside" in record.getMessage() for record in audit_records(caplog, logging.WARNING))
    assert all_rows(tmp_path) == [make_row(0)]


def test_damage_inside_the_table_is_found_when_the_log_opens_and_loses_no_row_INV_AUDIT_2(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """INV-AUDIT-2: a log whose first pages are sound but whose table is damaged fails SQLite's
    check when it is opened: it is set aside and a new log started before the first record, so no
    row is lost (before the check, that insert failed with SQLITE_CORRUPT and lost its row)."""
    with AuditLog(tmp_path, clock=FakeClock()) as audit:
        for index in range(50):
            audit.record(make_row(index))
    path = tmp_path / DB_NAME
    with sqlite3.connect(path) as db:
        (root_page,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'calls'").fetchone()
        (page_bytes,) = db.execute("PRAGMA page_size").fetchone()
    db.close()
    with path.open("r+b") as file:
        file.seek((root_page - 1) * page_bytes)
        file.write(b"\xff" * page_bytes)
    with caplog.at_level(logging.WARNING, logger="mesh.audit"), AuditLog(tmp_path, clock=FakeClock()) as audit:
        assert audit.record(make_row(50))
        assert audit.record(make_row(51))
        assert audit.recent() == [make_row(51), make_row(50)]
    assert (tmp_path / f"{DB_NAME}.old").exists()
    messages = [record.getMessage() for record in audit_records(caplog, logging.WARNING)]
    assert len(messages) == 1 and "set aside" in messages[0] and "check" in messages[0]


def test_damage_found_while_writing_sets_the_file_aside_at_the_next_record_INV_AUDIT_2(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-AUDIT-2: damage that appears after the log was opened (the check at open passed) makes
    an insert fail with SQLITE_CORRUPT: that row is lost with a warning, and the next record sets
    the file aside and starts a new log, without waiting for the back-off."""
    import mesh.audit as audit_module

    with caplog.at_level(logging.WARNING, logger="mesh.audit"), AuditLog(tmp_path, clock=FakeClock()) as audit:
        assert audit.record(make_row(0))
        write = audit_module._write

        def corrupt_once(connection, work):
            monkeypatch.setattr(audit_module, "_write", write)
            error = sqlite3.DatabaseError("database disk image is malformed")
            error.sqlite_errorcode = 11  # SQLITE_CORRUPT
            raise error

        monkeypatch.setattr(audit_module, "_write", corrupt_once)
        assert audit.record(make_row(1)) is False
        assert audit.record(make_row(2))
        assert audit.recent() == [make_row(2)]
    assert (tmp_path / f"{DB_NAME}.old").exists()
    messages = [record.getMessage() for record in audit_records(caplog, logging.WARNING)]
    assert len(messages) == 2 and "lost" in messages[0] and "set aside" in messages[1]


def test_records_after_close_are_dropped_quietly(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A call that finishes after shutdown closed the log (an abandoned worker) loses its row at
    debug level, without a warning and without reopening the file."""
    audit = AuditLog(tmp_path, clock=FakeClock())
    audit.record(make_row(0))
    audit.close()
    with caplog.at_level(logging.DEBUG, logger="mesh.audit"):
        assert audit.record(make_row(1)) is False
    assert audit_records(caplog, logging.WARNING) == [] and audit.dropped == 1
    assert audit.prune() == 0
    with pytest.raises(AuditUnavailable):
        audit.recent()


# -- mesh-mcp audit -------------------------------------------------------------------------------


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MESH_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "ws"
    root.mkdir()
    (root / "mesh.toml").write_text("")
    return root


def run(directory: Path | None, **options: object) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    settings = {"limit": 50, "tool": None, "trace_id": None, "as_json": False, **options}
    code = run_audit(directory, stdout=stdout, stderr=stderr, **settings)  # type: ignore[arg-type]
    return code, stdout.getvalue(), stderr.getvalue()


def seed(root: Path) -> list[AuditRow]:
    rows = [
        make_row(0, at=T0, session="0123456789abcdef"),
        make_row(1, at=T0 + 1, tool="view", outcome="tool_error", trace_id=TRACE, truncated=True),
        make_row(2, at=T0 + 2, outcome="crash", duration_ms=1234.56, result_bytes=0),
    ]
    with AuditLog(cache_dir(root), clock=FakeClock()) as audit:
        for row in rows:
            audit.record(row)
    return rows


def test_audit_command_prints_a_fixed_width_table_newest_first(workspace: Path) -> None:
    """The table: a header, then one line per row, newest first, columns aligned; sessions shown
    by their first characters, a missing trace id as ``-``."""
    rows = seed(workspace)
    code, out, err = run(workspace)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["time", "session", "tool", "outcome", "ms", "bytes", "truncated", "trace", "id"]
    assert lines[1].split() == [rows[2].time, "session-", "search", "crash", "1234.6", "0", "no", "-"]
    assert lines[2].split() == [rows[1].time, "session-", "view", "tool_error", "2.5", "101", "yes", TRACE]
    assert lines[3].split() == [rows[0].time, "01234567", "search", "ok", "1.5", "100", "no", "-"]
    assert len({line.index(" search ") for line in (lines[1], lines[3])}) == 1
    assert lines[1].index("1234.6") + 6 == lines[2].index(" 2.5") + 4  # right-aligned numbers
    assert out == render_table(rows[::-1])


def test_audit_command_json_lists_rows_keyed_as_fields(workspace: Path) -> None:
    """``--json``: a list of objects, newest first, keys exactly the row's fields, whole sessions."""
    rows = seed(workspace)
    code, out, _ = run(workspace, as_json=True)
    assert code == 0
    data = json.loads(out)
    assert [AuditRow(**item) for item in data] == rows[::-1]
    assert list(data[0]) == ["time", "session", "tool", "args_digest", "outcome", "duration_ms", "result_bytes",
                             "truncated", "trace_id"]  # fmt: skip


def test_audit_command_filters_and_limit(workspace: Path) -> None:
    """``--tool``, ``--trace-id`` and ``--limit`` narrow the rows; leaving rows out because of the
    limit says so on stderr; a filter that matches nothing says so and exits 0."""
    rows = seed(workspace)
    assert json.loads(run(workspace, as_json=True, tool="view")[1]) == [attrs.asdict(rows[1])]
    code, out, _ = run(workspace, as_json=True, trace_id=TRACE)
    assert code == 0 and [item["trace_id"] for item in json.loads(out)] == [TRACE]
    code, out, err = run(workspace, limit=1)
    assert code == 0 and len(out.splitlines()) == 2 and "--limit" in err
    code, out, err = run(workspace, limit=3)
    assert code == 0 and len(out.splitlines()) == 4 and err == ""
    code, out, err = run(workspace, tool="nope")
    assert code == 0 and out == "" and "no call matches" in err
    assert run(workspace, tool="nope", as_json=True)[1] == "[]\n"


def test_audit_command_finds_the_workspace_from_the_current_folder(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a folder argument, the workspace is found from the current folder as for ``mcp``."""
    seed(workspace)
    (workspace / "svc").mkdir()
    monkeypatch.chdir(workspace / "svc")
    code, out, _ = run(None)
    assert code == 0 and len(out.splitlines()) == 4


def test_audit_command_without_a_log_says_where_it_will_be(workspace: Path) -> None:
    """No call audited yet: a clear note naming the path, exit 0 (``[]`` with ``--json``), and
    nothing is created."""
    code, out, err = run(workspace)
    path = cache_dir(workspace) / DB_NAME
    assert code == 0 and out == ""
    assert err == f"mesh-mcp audit: no audit log yet at {path}; it is written when a tool is called\n"
    assert run(workspace, as_json=True)[:2] == (0, "[]\n")
    assert not cache_dir(workspace).exists()


@pytest.mark.parametrize("bad", [TRACE.upper(), TRACE[:-1], f"00-{TRACE}-00f067aa0ba902b7-01", "", "g" * 32])
def test_audit_command_refuses_a_bad_trace_id(workspace: Path, bad: str) -> None:
    """A trace id filter that is not 32 lowercase hex digits is a usage error (exit 2)."""
    seed(workspace)
    code, out, err = run(workspace, trace_id=bad)
    assert code == 2 and out == "" and "32 lowercase hex" in err


def test_audit_command_usage_and_read_errors(workspace: Path, tmp_path: Path) -> None:
    """A limit under 1 or a folder that does not exist is a usage error (2); a log that cannot be
    read is exit 1 with the reason, and is left as it is."""
    assert run(workspace, limit=0)[0] == 2
    code, _, err = run(tmp_path / "nowhere")
    assert code == 2 and "not a folder" in err
    folder = cache_dir(workspace)
    folder.mkdir(parents=True)
    (folder / DB_NAME).write_bytes(b"garbage" * 1000)
    code, out, err = run(workspace)
    assert code == 1 and out == "" and str(folder / DB_NAME) in err
    assert (folder / DB_NAME).read_bytes() == b"garbage" * 1000
    assert sorted(os.listdir(folder)) == [DB_NAME]


def test_render_table_hides_control_characters() -> None:
    """A session or tool name with control characters cannot break the columns."""
    text = render_table([make_row(0, session="a\nb\x1b[2J", tool="x\ty")])
    assert len(text.splitlines()) == 2 and "\x1b" not in text and "x?y" in text
