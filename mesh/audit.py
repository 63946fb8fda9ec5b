"""The audit log: one row for every ``tools/call``, in SQLite under the workspace's cache folder.

Theory of operation
-------------------
The driver calls :meth:`AuditLog.record` on the worker thread that ran the tool, after the tool
returned and before its outcome goes to the protocol session. ``record`` returns only once the
row is committed, so an answer a client saw always has its row (INV-AUDIT-1). The database
(``audit.db``) is in WAL mode with ``synchronous=FULL``: at commit the row is in the WAL *and*
the WAL is fsynced. Any committed WAL frame survives a kill -9 of the server (``NORMAL`` would be
enough for that); ``FULL`` also keeps it through a power loss, for about 0.1-0.2 ms more per call
(measured: see ``SYNCHRONOUS``).

One connection, opened at the first record and guarded by a lock, serves every worker thread;
commits are serialized anyway, by SQLite. Other processes (several stdio servers of the same
workspace, the daemon, ``mesh-mcp audit``) may use the same file: a writer waits up to
``busy_timeout_ms`` for the write lock, and a row that still cannot get it is dropped.

The log never takes the server down (INV-AUDIT-2). ``AuditLog()`` does no I/O, and ``record``
never raises: when the database cannot be opened or written (a folder that cannot be created or
written, a full disk, an I/O error, the write lock held past the timeout, even a bug here) the row
is lost and counted in :attr:`AuditLog.dropped`. The first loss logs one warning on
``mesh.audit``; later losses are logged at debug level. After a failed open, or a write failure
that may concern the file (disk full, I/O error), the log is opened again at most once every
``REOPEN_AFTER_S`` seconds; until then rows are dropped at no cost. A file that is not a
database, is damaged, or holds another schema is renamed ``audit.db.old`` (with its ``-wal`` and
``-shm``), with a warning, and a new log is started in its place.

Retention is bounded by rows and by age. At the first record after opening, and then every
``prune_every`` records, one pass in its own transaction (after the row's own commit, so a
failing pass, whatever fails in it, never loses a row nor reports one lost: INV-AUDIT-3) deletes
at most ``PRUNE_BATCH_ROWS`` of the oldest rows beyond the newest ``retention_rows`` (a range of
rowids, found from ``max(rowid)``) and at most as many older than ``retention_days`` (a range of
the time index; an age reaching before the year 1 deletes nothing). Neither is a scan. The table
thus holds at most about ``retention_rows + prune_every`` rows, and a lowered limit is reached
within a few passes without one long transaction on the answer path.

Readers use :func:`read_recent`, which opens the file read-only and never creates it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal, Self
from urllib.parse import quote

import attrs

__all__ = [
    "DB_NAME",
    "DEFAULT_RETENTION_DAYS",
    "DEFAULT_RETENTION_ROWS",
    "OUTCOMES",
    "AuditLog",
    "AuditRow",
    "AuditUnavailable",
    "Outcome",
    "canonical_digest",
    "format_time",
    "read_recent",
]

log = logging.getLogger("mesh.audit")

DB_NAME: Final = "audit.db"
SCHEMA_VERSION: Final = "1"
DEFAULT_RETENTION_ROWS: Final = 100_000
DEFAULT_RETENTION_DAYS: Final = 30.0
#: A retention pass runs at the first record after opening and then once per this many records.
PRUNE_EVERY_RECORDS: Final = 256
#: At most this many rows are deleted per limit (count, age) in one pass.
PRUNE_BATCH_ROWS: Final = 2000
#: How long a record waits for the write lock (another process, or this one's other threads).
BUSY_TIMEOUT_MS: Final = 2000
#: After a failed open (or a failed write that may concern the file), rows are dropped without
#: trying again for this long.
REOPEN_AFTER_S: Final = 30.0
#: ``FULL``: each commit fsyncs the WAL. Measured p50 of ``record`` over 1000 records (ext4 on a
#: virtio disk): 0.14-0.23 ms with FULL, 0.04-0.07 ms with NORMAL; p99 0.4-2 ms and 0.2-0.3 ms.
#: Small next to any tool call, so the row also survives a power loss.
SYNCHRONOUS = "FULL"
#: The WAL file is cut back to this size after a checkpoint.
WAL_BYTES_MAX: Final = 4 << 20

OUTCOMES: Final = ("ok", "tool_error", "crash")
Outcome = Literal["ok", "tool_error", "crash"]

_COLUMNS: Final = (
    "time", "session", "tool", "args_digest", "outcome", "duration_ms", "result_bytes", "truncated", "trace_id",
)  # fmt: skip
_SCHEMA: Final = (
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    (
        "CREATE TABLE calls(id INTEGER PRIMARY KEY, time TEXT NOT NULL, session TEXT NOT NULL, tool TEXT NOT NULL,"
        " args_digest TEXT NOT NULL, outcome TEXT NOT NULL, duration_ms REAL NOT NULL, result_bytes INTEGER NOT NULL,"
        " truncated INTEGER NOT NULL, trace_id TEXT)"
    ),
    "CREATE INDEX calls_time ON calls(time)",
    "CREATE INDEX calls_tool ON calls(tool)",
    "CREATE INDEX calls_trace_id ON calls(trace_id)",
)
_INSERT: Final = f"INSERT INTO calls({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
_DAMAGED: Final = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})
_BUSY: Final = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


class AuditUnavailable(Exception):
    """The audit log cannot be read; the message says where and why."""


@attrs.frozen
class AuditRow:
    """One ``tools/call`` as the audit log keeps it."""

    #: When the call started: UTC, ISO-8601 with milliseconds and ``Z`` (:func:`format_time`).
    time: str
    #: The connection the call came on (the driver names it).
    session: str
    tool: str
    #: :func:`canonical_digest` of the call's arguments.
    args_digest: str
    outcome: Outcome = attrs.field(validator=attrs.validators.in_(OUTCOMES))
    duration_ms: float
    #: UTF-8 bytes of the answer's text.
    result_bytes: int
    #: The answer was cut to the tools' output bound.
    truncated: bool
    #: The trace id of a valid ``_meta.traceparent`` (32 lowercase hex chars), else ``None``.
    trace_id: str | None = None


def canonical_digest(arguments: Mapping[str, Any]) -> str:
    """sha256 (hex) of the arguments' canonical JSON: ``_meta`` left out, keys sorted at every
    level, no whitespace, non-ASCII kept as UTF-8. Never raises: a value JSON cannot hold (none
    comes off the wire) is written as its ``repr``, a lone surrogate as its own code point."""
    body = {key: value for key, value in arguments.items() if key != "_meta"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def format_time(seconds: float) -> str:
    """Seconds since the epoch as the log writes them: ``2026-11-30T05:01:02.345Z``. The width is
    fixed, so text order is time order (the age limit and the sort rely on it)."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class AuditLog:
    """The audit log of one workspace, written by this process; see the module's docstring."""

    def __init__(
        self,
        folder: Path,
        *,
        retention_rows: int = DEFAULT_RETENTION_ROWS,
        retention_days: float | None = DEFAULT_RETENTION_DAYS,
        clock: Callable[[], float] = time.time,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        prune_every: int = PRUNE_EVERY_RECORDS,
    ) -> None:
        if retention_rows < 1:
            raise ValueError(f"retention_rows must be at least 1, not {retention_rows}")
        if retention_days is not None and not retention_days > 0:
            raise ValueError(f"retention_days must be positive or None, not {retention_days}")
        if prune_every < 1:
            raise ValueError(f"prune_every must be at least 1, not {prune_every}")
        self.folder = folder
        self.path = folder / DB_NAME
        self.retention_rows = retention_rows
        self.retention_days = retention_days
        self.busy_timeout_ms = busy_timeout_ms
        self.prune_every = prune_every
        self._clock = clock
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        #: After a failure: no new open before this clock reading; and why the log is unavailable.
        self._reopen_at: float | None = None
        self._unavailable = ""
        self._damaged = False
        self._since_prune = prune_every
        self._closed = False
        self._tally_lock = threading.Lock()
        self._warned = False
        #: Rows committed by this instance.
        self.recorded = 0
        #: Rows lost (not committed) by this instance.
        self.dropped = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def now(self) -> str:
        """The clock's time, as a row's ``time``."""
        return format_time(self._clock())

    # -- writing ---------------------------------------------------------------------------------

    def record(self, row: AuditRow) -> bool:
        """Commit ``row``; True once it is committed, False when it was lost. Never raises."""
        try:
            if not self._lock.acquire(timeout=self.busy_timeout_ms / 1000):
                self._lose(row, "other threads held the audit log past the busy timeout")
                return False
            try:
                return self._record(row)
            finally:
                self._lock.release()
        except Exception as exc:  # noqa: BLE001 -- the log must never take a tool call down with it
            self._lose(row, f"{type(exc).__name__}: {exc}")
            return False

    def _record(self, row: AuditRow) -> bool:
        if self._closed:
            self._lose(row, "the audit log is closed", warn=False)
            return False
        connection = self._open()
        if connection is None:
            self._lose(row, self._unavailable)
            return False
        values = (row.time, row.session, row.tool, row.args_digest, row.outcome, float(row.duration_ms),
                  int(row.result_bytes), bool(row.truncated), row.trace_id)  # fmt: skip
        try:
            _write(connection, lambda: connection.execute(_INSERT, values))
        except sqlite3.Error as exc:
            self._lose(row, self._after_failure(exc))
            return False
        self.recorded += 1
        self._since_prune += 1
        if self._since_prune >= self.prune_every:
            self._since_prune = 0
            try:
                self._prune(connection)
            except Exception as exc:  # noqa: BLE001 -- the row is in: only the pass is lost (INV-AUDIT-3)
                log.debug("audit retention pass failed (the row is kept; the next pass catches up): %s", exc)
        return True

    def prune(self) -> int:
        """Run one retention pass now; the number of rows deleted (0 while the log is unavailable).
        Raises :class:`AuditUnavailable` if the pass fails."""
        with self._lock:
            connection = None if self._closed else self._open()
            if connection is None:
                return 0
            self._since_prune = 0
            try:
                return self._prune(connection)
            except sqlite3.Error as exc:
                raise AuditUnavailable(f"cannot prune the audit log at {self.path}: {exc}") from None

    def _prune(self, connection: sqlite3.Connection) -> int:
        deleted = 0

        def delete() -> None:
            nonlocal deleted
            newest = connection.execute("SELECT max(id) FROM calls").fetchone()[0]
            if newest is not None and newest > self.retention_rows:
                deleted += connection.execute(
                    "DELETE FROM calls WHERE id IN (SELECT id FROM calls WHERE id <= ? ORDER BY id LIMIT ?)",
                    (newest - self.retention_rows, PRUNE_BATCH_ROWS),
                ).rowcount
            cutoff = self._age_cutoff()
            if cutoff is not None:
                deleted += connection.execute(
                    "DELETE FROM calls WHERE id IN (SELECT id FROM calls WHERE time < ? ORDER BY time LIMIT ?)",
                    (cutoff, PRUNE_BATCH_ROWS),
                ).rowcount

        _write(connection, delete)
        if deleted:
            log.debug("audit retention pass deleted %d row(s)", deleted)
        return deleted

    def _age_cutoff(self) -> str | None:
        """The ``time`` before which rows are older than ``retention_days``; None when there is no
        age limit or it reaches before any date a row can carry (no row is that old)."""
        if self.retention_days is None:
            return None
        try:
            return format_time(self._clock() - self.retention_days * 86400)
        except (ValueError, OverflowError, OSError):  # before the year 1, or past what the clock can say
            return None

    def _after_failure(self, exc: sqlite3.Error) -> str:
        """Decide what a failed write means for the connection; the reason to log."""
        code = _primary_code(exc)
        if code in _BUSY:
            return f"another process held the audit log at {self.path} past {self.busy_timeout_ms} ms"
        if code in _DAMAGED:
            self._damaged = True  # the next open sets the file aside, even if its first pages look fine
            self._drop_connection(reopen_after_s=0.0)
        elif isinstance(exc, sqlite3.OperationalError):
            self._drop_connection(reopen_after_s=REOPEN_AFTER_S)
        return f"cannot write the audit log at {self.path}: {exc}"

    def _lose(self, row: AuditRow, why: str, *, warn: bool = True) -> None:
        with self._tally_lock:
            self.dropped += 1
            first = warn and not self._warned
            self._warned = self._warned or warn
        if first:
            log.warning(
                "audit row of a %s call lost (the call is answered all the same): %s; later losses are logged at debug level",
                row.tool,
                why,
            )
        else:
            log.debug("audit row of a %s call lost: %s", row.tool, why)

    # -- reading ---------------------------------------------------------------------------------

    def recent(
        self, limit: int = 50, tool: str | None = None, trace_id: str | None = None, session: str | None = None
    ) -> list[AuditRow]:
        """Up to ``limit`` rows, newest first (by time, then by order of commit), matching every
        filter given. Raises :class:`AuditUnavailable` if the log cannot be opened or read."""
        with self._lock:
            if self._closed:
                raise AuditUnavailable(f"the audit log at {self.path} is closed")
            connection = self._open()
            if connection is None:
                raise AuditUnavailable(self._unavailable)
            try:
                return _query(connection, limit=limit, tool=tool, trace_id=trace_id, session=session)
            except sqlite3.Error as exc:
                raise AuditUnavailable(f"cannot read the audit log at {self.path}: {exc}") from None

    def close(self) -> None:
        """Close the database; later records are dropped (at debug level)."""
        with self._lock:
            self._closed = True
            self._drop_connection(reopen_after_s=None)
        if self.dropped:
            log.info("audit log %s closed; %d row(s) were lost, %d committed", self.path, self.dropped, self.recorded)

    # -- opening and repairing -------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection | None:
        """The connection, opened if need be (with the lock held); None while unavailable."""
        if self._connection is not None:
            return self._connection
        if self._reopen_at is not None and self._clock() < self._reopen_at:
            return None
        try:
            self._connection = self._connect()
        except (OSError, sqlite3.Error) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self._unavailable = f"cannot open the audit log at {self.path}: {reason}"
            self._reopen_at = self._clock() + REOPEN_AFTER_S
            return None
        self._reopen_at = None
        self._since_prune = self.prune_every
        return self._connection

    def _connect(self) -> sqlite3.Connection:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if self._damaged:
            self._damaged = False
            self._set_aside("it was found damaged while writing")
        for attempt in (1, 2):
            connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            try:
                connection.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
                # A file of another schema is looked at, not changed (not even to WAL), before it is set aside.
                tables = _tables(connection)
                usable = not tables or _schema_matches(connection, tables)
                if usable and tables:
                    # damage where writes never reach (a page cut or zeroed at rest) would fail every
                    # read for as long as the file lives: look once, when the log is opened
                    # (about 20 ms per 100,000 rows)
                    found = connection.execute("PRAGMA quick_check(1)").fetchone()
                    if found is None or found[0] != "ok":
                        connection.close()
                        if attempt == 2:
                            raise sqlite3.DatabaseError(f"{self.path} fails its check: {found}")
                        self._set_aside(f"it fails SQLite's check ({found[0] if found else 'no answer'})")
                        continue
                if usable:
                    connection.execute("PRAGMA journal_mode = WAL")
                    connection.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
                    connection.execute(f"PRAGMA journal_size_limit = {WAL_BYTES_MAX}")
                    usable = self._schema_ok(connection)
            except sqlite3.Error as exc:
                connection.close()
                if attempt == 2 or _primary_code(exc) not in _DAMAGED:
                    raise
                self._set_aside(f"it cannot be read ({exc})")
                continue
            if usable:
                return connection
            connection.close()
            self._set_aside("it holds another schema")
        raise sqlite3.DatabaseError(f"{self.path} is still not a usable audit log after being set aside")

    def _schema_ok(self, connection: sqlite3.Connection) -> bool:
        """Create the schema in an empty database; say whether this one is usable. The check and
        the creation are one write transaction, so two processes opening one new log take turns
        and neither mistakes the other's half-made schema for another schema."""
        usable = False

        def check_or_create() -> None:
            nonlocal usable
            tables = _tables(connection)
            if not tables:
                for statement in _SCHEMA:
                    connection.execute(statement)
                connection.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
                usable = True
            else:
                usable = _schema_matches(connection, tables)

        _write(connection, check_or_create)
        return usable

    def _set_aside(self, why: str) -> None:
        for suffix in ("-wal", "-shm"):
            Path(f"{self.path}.old{suffix}").unlink(missing_ok=True)
        for suffix in ("", "-wal", "-shm"):
            old = Path(f"{self.path}{suffix}")
            if old.exists():
                old.replace(Path(f"{self.path}.old{suffix}"))
        log.warning("audit log at %s set aside as %s.old and started again: %s", self.path, DB_NAME, why)

    def _drop_connection(self, *, reopen_after_s: float | None) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.close()
            except sqlite3.Error as exc:
                log.debug("closing the audit log: %s", exc)
        if reopen_after_s is not None:
            self._reopen_at = self._clock() + reopen_after_s
            self._unavailable = f"the audit log at {self.path} failed recently; it is opened again shortly"


def read_recent(
    folder: Path,
    *,
    limit: int = 50,
    tool: str | None = None,
    trace_id: str | None = None,
    session: str | None = None,
) -> list[AuditRow] | None:
    """Rows of the log in ``folder``, as :meth:`AuditLog.recent`, read through a read-only
    connection; None when there is no log yet (nothing is created). Raises
    :class:`AuditUnavailable` when the file cannot be read as an audit log."""
    path = folder / DB_NAME
    if not path.is_file():
        return None
    try:
        connection = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise AuditUnavailable(f"cannot open the audit log at {path}: {exc}") from None
    try:
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        tables = _tables(connection)
        if not tables:
            return []  # created by a writer that has not committed its schema yet
        if not _schema_matches(connection, tables):
            raise AuditUnavailable(
                f"{path} is not an audit log of this version of mesh-mcp; the next tool call sets it aside"
            )
        return _query(connection, limit=limit, tool=tool, trace_id=trace_id, session=session)
    except sqlite3.Error as exc:
        raise AuditUnavailable(
            f"cannot read the audit log at {path}: {exc}; if it is damaged, the next tool call sets it aside"
        ) from None
    finally:
        connection.close()


def _tables(connection: sqlite3.Connection) -> set[str]:
    return {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _schema_matches(connection: sqlite3.Connection, tables: set[str]) -> bool:
    if not {"meta", "calls"} <= tables:
        return False
    row = connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if row is None or row[0] != SCHEMA_VERSION:
        return False
    columns = tuple(name for _cid, name, *_ in connection.execute("PRAGMA table_info(calls)"))
    return columns == ("id", *_COLUMNS)


def _query(
    connection: sqlite3.Connection, *, limit: int, tool: str | None, trace_id: str | None, session: str | None
) -> list[AuditRow]:
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    filters = [(column, value) for column, value in (("tool", tool), ("trace_id", trace_id), ("session", session))
               if value is not None]  # fmt: skip
    where = (" WHERE " + " AND ".join(f"{column} = ?" for column, _ in filters)) if filters else ""
    cursor = connection.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM calls{where} ORDER BY time DESC, id DESC LIMIT ?",
        (*(value for _, value in filters), limit),
    )
    return [
        AuditRow(time, session_, tool_, digest, outcome, duration_ms, result_bytes, bool(truncated), trace)
        for time, session_, tool_, digest, outcome, duration_ms, result_bytes, truncated, trace in cursor
    ]


def _write(connection: sqlite3.Connection, work: Callable[[], object]) -> None:
    """Run ``work`` in one write transaction (taking the write lock first) and commit it; on any
    failure roll back whatever is left and re-raise."""
    try:
        connection.execute("BEGIN IMMEDIATE")
        work()
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            try:
                connection.execute("ROLLBACK")
            except sqlite3.Error as exc:
                log.debug("audit rollback failed: %s", exc)
        raise


def _primary_code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF
