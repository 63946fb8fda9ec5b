"""The on-disk index: one SQLite database (WAL) per workspace, under the cache folder.

Theory of operation
-------------------
A snapshot is a committed transaction. The builder changes the index only inside one write
transaction per update (a cold build, a re-scan, a batch of watcher events) and bumps
``meta.generation`` in it, so a reader, which reads inside one read transaction, sees the whole
of one generation or the whole of the next, never a mix. A crash or kill -9 mid-build loses only
the open transaction: SQLite's WAL recovery puts back the last committed generation. A database
that cannot be opened or read (corrupt, another schema, not a database) is moved aside and a new
one built; nothing is ever asked of the user.

File contents are kept zlib-compressed in ``content`` (what search verifies and shows lines from,
so a search answer belongs to the same snapshot as every other fact) and fed, folded by
``_trigrams.indexed`` (mesh's own case folding, the one its query planner uses), to a
case-sensitive FTS5 trigram index that stores no text of its own (``content=''``,
``detail=none``): it only narrows the files a search must read. The choice was measured
(``docs/textindex.md``).

Facts are written as the extractors found them, except the ``grpc`` rows whose ``via`` is set:
those the resolver derived (a handler inherited through a base class, say) and replaces on each
resolve.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import attrs

from .._facts import FileFacts
from ._trigrams import indexed

__all__ = ["FileRecord", "IndexUnavailable", "Store"]

log = logging.getLogger("mesh.index")

#: Bump when the tables or the meaning of derived columns (import targets, gRPC keys) change:
#: an index of another version is set aside and rebuilt.
SCHEMA_VERSION: Final = "4"
#: How long a writer waits for another writer of the same index before giving up.
BUSY_TIMEOUT_MS: Final = 5000
DB_NAME: Final = "index.db"

_SCHEMA: Final = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE services(name TEXT PRIMARY KEY, path TEXT NOT NULL, origin TEXT NOT NULL, languages TEXT NOT NULL,
                      provides TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT '',
                      evidence TEXT NOT NULL DEFAULT '[]', extra TEXT NOT NULL DEFAULT '[]');
CREATE TABLE areas(path TEXT PRIMARY KEY, reason TEXT NOT NULL);
CREATE TABLE externals(name TEXT PRIMARY KEY, what TEXT NOT NULL, evidence TEXT NOT NULL);
CREATE TABLE workspace_warnings(path TEXT NOT NULL, line INTEGER NOT NULL, message TEXT NOT NULL);
CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, service TEXT NOT NULL, language TEXT NOT NULL,
                   kind TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, hash BLOB NOT NULL,
                   lines INTEGER NOT NULL, error TEXT NOT NULL);
CREATE TABLE content(file_id INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE defs(file_id INTEGER NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, container TEXT NOT NULL,
                  line INTEGER NOT NULL, end_line INTEGER NOT NULL);
CREATE INDEX defs_name ON defs(name COLLATE NOCASE);
CREATE INDEX defs_file ON defs(file_id);
CREATE TABLE imports(file_id INTEGER NOT NULL, module TEXT NOT NULL, names TEXT NOT NULL, line INTEGER NOT NULL,
                     target_path TEXT, target_service TEXT);
CREATE INDEX imports_file ON imports(file_id);
CREATE INDEX imports_target ON imports(target_path);
CREATE INDEX imports_module ON imports(module);
CREATE TABLE grpc(file_id INTEGER NOT NULL, role TEXT NOT NULL, service TEXT NOT NULL, method TEXT NOT NULL,
                  line INTEGER NOT NULL, symbol TEXT NOT NULL, namespace TEXT NOT NULL,
                  service_key TEXT, method_key TEXT, via TEXT NOT NULL DEFAULT '');
CREATE INDEX grpc_file ON grpc(file_id);
CREATE INDEX grpc_method_key ON grpc(method_key);
CREATE INDEX grpc_service_key ON grpc(service_key);
CREATE TABLE proto_files(file_id INTEGER PRIMARY KEY, package TEXT NOT NULL, imports TEXT NOT NULL,
                         errors TEXT NOT NULL);
CREATE TABLE proto_services(file_id INTEGER NOT NULL, package TEXT NOT NULL, name TEXT NOT NULL,
                            line INTEGER NOT NULL, end_line INTEGER NOT NULL);
CREATE INDEX proto_services_name ON proto_services(name);
CREATE TABLE proto_methods(file_id INTEGER NOT NULL, package TEXT NOT NULL, service TEXT NOT NULL,
                           name TEXT NOT NULL, request TEXT NOT NULL, response TEXT NOT NULL,
                           client_streaming INTEGER NOT NULL, server_streaming INTEGER NOT NULL,
                           line INTEGER NOT NULL);
CREATE INDEX proto_methods_service ON proto_methods(service);
CREATE TABLE proto_messages(file_id INTEGER NOT NULL, package TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
                            line INTEGER NOT NULL, end_line INTEGER NOT NULL, fields TEXT NOT NULL);
CREATE INDEX proto_messages_name ON proto_messages(name);
CREATE TABLE sections(file_id INTEGER NOT NULL, section_id TEXT NOT NULL, title TEXT NOT NULL, level INTEGER NOT NULL,
                      parent_id TEXT NOT NULL, line INTEGER NOT NULL, end_line INTEGER NOT NULL);
CREATE INDEX sections_file ON sections(file_id);
CREATE TABLE deps(file_id INTEGER NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL, ecosystem TEXT NOT NULL,
                  scope TEXT NOT NULL, line INTEGER NOT NULL);
CREATE INDEX deps_file ON deps(file_id);
CREATE TABLE skipped(path TEXT PRIMARY KEY, reason TEXT NOT NULL);
CREATE VIRTUAL TABLE text USING fts5(body, content='', detail=none, tokenize='trigram case_sensitive 1');
"""

#: Tables holding per-file facts, keyed by ``file_id``.
_FACT_TABLES: Final = ("defs", "imports", "grpc", "proto_services", "proto_methods", "proto_messages", "sections",
                       "deps", "proto_files", "proto_options")  # fmt: skip

#: Tables added without a new SCHEMA_VERSION, made in a new index and in an existing one that lacks them.
_ADDED_TABLES: Final = (
    # A ``.proto``'s file-level options (``go_package``, ``java_package``...), read by import resolution.
    "CREATE TABLE IF NOT EXISTS proto_options(file_id INTEGER NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS proto_options_file ON proto_options(file_id)",
    # What ``skipped`` does not say of a path left out: the service holding it, whether it is a
    # folder, the stat of a file (a generated file unchanged since is not read again; search counts
    # its matches only while it is unchanged) and the line that marked it generated.
    "CREATE TABLE IF NOT EXISTS skipped_detail(path TEXT PRIMARY KEY, service TEXT NOT NULL, folder INTEGER NOT NULL,"
    " size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, marker TEXT NOT NULL)",
)


class IndexUnavailable(Exception):
    """The index cannot be kept where it must be; the message says where and what to do."""


@attrs.frozen
class FileRecord:
    """One parsed file, ready to be written: what the walk saw, its content and its facts."""

    path: str
    service: str
    kind: str
    size: int
    mtime_ns: int
    hash: bytes
    lines: int
    #: zlib-compressed UTF-8 text (invalid bytes replaced)
    compressed: bytes
    facts: FileFacts


def _connect(path: Path, *, readonly: bool, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    if readonly:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
    else:
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    return connection


class Store:
    """The index database of one workspace: one writer (the builder), any number of readers."""

    def __init__(self, folder: Path, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self.busy_timeout_ms = busy_timeout_ms
        self.folder = folder
        self.path = folder / DB_NAME
        self._local = threading.local()
        self._writer = self._open_writer()

    # -- opening and repairing ------------------------------------------------------------------

    def _open_writer(self) -> sqlite3.Connection:
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise IndexUnavailable(
                f"cannot create the index folder {self.folder}: {exc.strerror}; set MESH_CACHE_DIR to a writable folder"
            ) from None
        if not os.access(self.folder, os.W_OK | os.X_OK):
            raise IndexUnavailable(
                f"the index folder {self.folder} is not writable; set MESH_CACHE_DIR to a writable folder"
            )
        for attempt in (1, 2):
            try:
                connection = _connect(self.path, readonly=False, busy_timeout_ms=self.busy_timeout_ms)
                connection.execute("PRAGMA journal_mode = WAL")
                connection.execute("PRAGMA synchronous = NORMAL")
                if self._schema_ok(connection):
                    return connection
                connection.close()
                self._set_aside("it was written by another version of mesh-mcp")
            except sqlite3.DatabaseError as exc:
                if attempt == 2:
                    raise IndexUnavailable(f"cannot use the index at {self.path}: {exc}") from None
                self._set_aside(f"it cannot be read ({exc})")
        raise AssertionError("unreachable")

    def _schema_ok(self, connection: sqlite3.Connection) -> bool:
        """Create the schema in an empty database; say whether this one is usable. Two processes
        opening the same new index take turns (the check and the creation are one write
        transaction), so neither mistakes the other's half-made schema for damage."""
        self._begin(connection)
        try:
            usable = self._check_or_create(connection)
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")
        return usable

    def _check_or_create(self, connection: sqlite3.Connection) -> bool:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    connection.execute(statement)
            connection.execute("INSERT INTO meta VALUES ('schema', ?), ('generation', '0')", (SCHEMA_VERSION,))
            for statement in _ADDED_TABLES:
                connection.execute(statement)
            return True
        if "meta" not in tables:
            return False
        row = connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None or row[0] != SCHEMA_VERSION:
            return False
        connection.execute("SELECT count(*) FROM files").fetchone()  # raises on a damaged file
        for statement in _ADDED_TABLES:
            connection.execute(statement)
        return True

    def _begin(self, connection: sqlite3.Connection) -> None:
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            raise IndexUnavailable(
                f"another process is writing the index at {self.path} (waited {self.busy_timeout_ms / 1000:g} s);"
                " try again when it is done"
            ) from None

    def _set_aside(self, why: str) -> None:
        for suffix in ("", "-wal", "-shm"):
            old = Path(f"{self.path}{suffix}")
            if old.exists():
                old.replace(Path(f"{self.path}.old{suffix}"))
        log.warning("index at %s set aside and rebuilt: %s", self.path, why)

    def close(self) -> None:
        self._writer.close()

    def writer_connection(self) -> sqlite3.Connection:
        """The builder's own connection, outside a transaction: it sees the latest commit."""
        return self._writer

    # -- reading ---------------------------------------------------------------------------------

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A connection inside one read transaction: every query sees the same generation."""
        connection = getattr(self._local, "reader", None)
        if connection is None:
            connection = self._local.reader = _connect(self.path, readonly=True)
        connection.execute("BEGIN")
        try:
            yield connection
        finally:
            connection.execute("COMMIT")

    def generation(self) -> int:
        with self.snapshot() as db:
            return int(db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])

    # -- writing ---------------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Writer]:
        """One new generation: everything written inside becomes visible at once, or not at all."""
        db = self._writer
        self._begin(db)
        try:
            yield Writer(db)
            db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


class Writer:
    """Writes inside :meth:`Store.transaction`."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def known_files(self) -> dict[str, tuple[int, int, int, bytes]]:
        """path -> (id, size, mtime_ns, hash) of every indexed file."""
        rows = self.db.execute("SELECT path, id, size, mtime_ns, hash FROM files")
        return {path: (file_id, size, mtime, digest) for path, file_id, size, mtime, digest in rows}

    def touch(self, file_id: int, size: int, mtime_ns: int) -> None:
        """Same content, new stat: remember the stat so the next scan does not read it again."""
        self.db.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime_ns, file_id))

    def delete(self, file_ids: Iterable[int]) -> None:
        db = self.db
        for file_id in file_ids:
            row = db.execute("SELECT data FROM content WHERE file_id = ?", (file_id,)).fetchone()
            if row is not None:
                body = indexed(zlib.decompress(row[0]).decode("utf-8"))
                db.execute("INSERT INTO text(text, rowid, body) VALUES ('delete', ?, ?)", (file_id, body))
            for table in (*_FACT_TABLES, "content"):
                db.execute(f"DELETE FROM {table} WHERE file_id = ?", (file_id,))
            db.execute("DELETE FROM files WHERE id = ?", (file_id,))

    def put(self, record: FileRecord, body: str) -> int:
        """Write one file with its facts; ``body`` is its text as the trigram index holds it."""
        db = self.db
        facts = record.facts
        cursor = db.execute(
            "INSERT INTO files(path, service, language, kind, size, mtime_ns, hash, lines, error)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record.path, record.service, facts.language, record.kind, record.size, record.mtime_ns, record.hash,
             record.lines, facts.error),
        )  # fmt: skip
        file_id = cursor.lastrowid
        assert file_id is not None
        if record.compressed:  # binary and unreadable files have no text to keep or search
            db.execute("INSERT INTO content VALUES (?, ?)", (file_id, record.compressed))
            db.execute("INSERT INTO text(rowid, body) VALUES (?, ?)", (file_id, body))
        if facts.definitions:
            db.executemany(
                "INSERT INTO defs VALUES (?, ?, ?, ?, ?, ?)",
                [(file_id, d.name, d.kind, d.container, d.line, d.end_line) for d in facts.definitions],
            )
        if facts.imports:
            db.executemany(
                "INSERT INTO imports VALUES (?, ?, ?, ?, NULL, NULL)",
                [(file_id, i.module, ",".join(i.names), i.line) for i in facts.imports],
            )
        if facts.grpc:
            db.executemany(
                "INSERT INTO grpc(file_id, role, service, method, line, symbol, namespace)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(file_id, g.role, g.service, g.method, g.line, g.symbol, g.namespace) for g in facts.grpc],
            )
        if facts.sections:
            db.executemany(
                "INSERT INTO sections VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(file_id, s.section_id, s.title, s.level, s.parent_id, s.line, s.end_line) for s in facts.sections],
            )
        if facts.dependencies:
            db.executemany(
                "INSERT INTO deps VALUES (?, ?, ?, ?, ?, ?)",
                [(file_id, d.name, d.version, d.ecosystem, d.scope, d.line) for d in facts.dependencies],
            )
        proto = facts.proto
        if proto is not None:
            package = proto.package
            db.execute(
                "INSERT INTO proto_files VALUES (?, ?, ?, ?)",
                (file_id, package, "\n".join(proto.imports), "\n".join(proto.errors)),
            )
            db.executemany(
                "INSERT INTO proto_options VALUES (?, ?, ?)", [(file_id, name, value) for name, value in proto.options]
            )
            db.executemany(
                "INSERT INTO proto_services VALUES (?, ?, ?, ?, ?)",
                [(file_id, package, s.name, s.line, s.end_line) for s in proto.services],
            )
            db.executemany(
                "INSERT INTO proto_methods VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (file_id, package, s.name, m.name, m.request, m.response, m.client_streaming,
                     m.server_streaming, m.line)
                    for s in proto.services
                    for m in s.methods
                ],
            )  # fmt: skip
            db.executemany(
                "INSERT INTO proto_messages VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (file_id, package, m.name, m.kind, m.line, m.end_line, _fields_text(m.fields))
                    for m in proto.messages
                ],
            )
        return file_id

    def bulk_text(self, on: bool, *, cold: bool = False) -> None:
        """Around many inserts: no incremental merging and a small pending-terms buffer while on
        (measured faster, docs/textindex.md); when turned off, merging resumes and a cold build's
        segments are merged into one."""
        if on:
            self.db.execute("INSERT INTO text(text, rank) VALUES ('automerge', 0)")
            self.db.execute("INSERT INTO text(text, rank) VALUES ('hashsize', ?)", (256 << 10,))
            return
        self.db.execute("INSERT INTO text(text, rank) VALUES ('automerge', 4)")
        if cold:
            self.db.execute("INSERT INTO text(text) VALUES ('optimize')")

    def replace_services(self, rows: Iterable[tuple]) -> None:
        self.db.execute("DELETE FROM services")
        self.db.executemany("INSERT INTO services VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def replace_workspace(self, areas: Iterable, externals: Iterable, warnings: Iterable) -> None:
        """The areas, external services and manifest warnings of the workspace model."""
        self.db.execute("DELETE FROM areas")
        self.db.executemany("INSERT INTO areas VALUES (?, ?)", [(a.path, a.reason) for a in areas])
        self.db.execute("DELETE FROM externals")
        self.db.executemany(
            "INSERT INTO externals VALUES (?, ?, ?)", [(e.name, e.what, json.dumps(list(e.evidence))) for e in externals]
        )
        self.db.execute("DELETE FROM workspace_warnings")
        self.db.executemany(
            "INSERT INTO workspace_warnings VALUES (?, ?, ?)", [(w.path, w.line, w.message) for w in warnings]
        )

    def replace_skipped(self, rows: Iterable[tuple[str, str]]) -> None:
        self.db.execute("DELETE FROM skipped")
        self.db.executemany("INSERT OR REPLACE INTO skipped VALUES (?, ?)", rows)

    def put_skipped(
        self, rows: Iterable[tuple[str, str, str, bool, int, int, str]], *, only: Iterable[str] | None = None
    ) -> None:
        """Record what was left out: (path, reason, service, folder, size, mtime_ns, marker) rows
        replace every previous one, or with ``only``, those of these paths."""
        rows = list(rows)
        if only is None:
            self.db.execute("DELETE FROM skipped")
            self.db.execute("DELETE FROM skipped_detail")
        else:
            gone = [(path,) for path in only]
            self.db.executemany("DELETE FROM skipped WHERE path = ?", gone)
            self.db.executemany("DELETE FROM skipped_detail WHERE path = ?", gone)
        self.db.executemany("INSERT OR REPLACE INTO skipped VALUES (?, ?)", [row[:2] for row in rows])
        self.db.executemany(
            "INSERT OR REPLACE INTO skipped_detail VALUES (?, ?, ?, ?, ?, ?)", [(row[0], *row[2:]) for row in rows]
        )

    def skipped_stats(self, reason: str) -> dict[str, tuple[int, int, str]]:
        """path -> (size, mtime_ns, marker) of the files left out for ``reason``."""
        rows = self.db.execute(
            "SELECT s.path, d.size, d.mtime_ns, d.marker FROM skipped s JOIN skipped_detail d ON d.path = s.path"
            " WHERE s.reason = ? AND d.folder = 0",
            (reason,),
        )
        return {path: (size, mtime_ns, marker) for path, size, mtime_ns, marker in rows}

    def set_meta(self, **values: str) -> None:
        self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", sorted(values.items()))


def _fields_text(fields) -> str:
    """Fields as tab-separated lines: name, type, number, label, line (compact and greppable)."""
    return "\n".join(f"{f.name}\t{f.type}\t{f.number}\t{f.label}\t{f.line}" for f in fields)
