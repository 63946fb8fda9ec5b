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

Damage
------
SQLite keeps the last commit whole across a crash, not across bytes changed behind its back (a
failing disk, another program), and a changed value in an intact page is invisible to it (it
keeps no page checksums). So only writers of mesh change the index files, and they say when:
a writer holds the writers' lock (``index.write``, an exclusive ``flock``) from before it changes
the files (opening, a refresh, closing) until it has noted in ``index.state`` their inode, size
and times and that it is done (``"writing": false``; before it starts it notes ``true``). Then:

* files unchanged since the last note are as their writer left them: trusted, with no check (a
  kill -9 between two refreshes costs nothing at the next start);
* files changed while the note says nobody writes, and nobody holds the lock, were changed behind
  mesh's back: damaged by definition, whatever SQLite's checks say. A store looks at opening
  (:func:`_look`), a server before it serves a snapshot left on disk (:func:`vet`), and a reader
  after every read (:func:`tampered`: two ``stat`` and a read of the note), so an answer read from
  files changed meanwhile is never given;
* files changed while the note says a writer was writing (it stopped mid-write: a kill -9 leaves
  WAL frames no commit owns), or never noted: :func:`check` (the schema as this version writes
  it, then SQLite's integrity check) decides.

A query or a refresh that fails with corruption (``SQLITE_CORRUPT``, ``SQLITE_NOTADB``, stored text
that no longer decodes or decompresses) proves damage; another unexpected failure gets
:func:`check`. A damaged index is renamed ``index.db.damaged`` (the last one kept, for a
post-mortem) and rebuilt; readers are told it is being rebuilt.

A full disk (``SQLITE_FULL``, ``ENOSPC``) fails a refresh as a whole: its transaction is rolled
back (the previous snapshot is served on), the WAL is truncated to give the space back, and
:class:`DiskFull` says where, how much is free and, from the builder, about how much is needed.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
import weakref
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import attrs

from .._facts import FileFacts, path_shape
from ._trigrams import indexed, trigrams

__all__ = ["DiskFull", "FileRecord", "IndexUnavailable", "Store", "check", "damage", "tampered", "text_segments", "vet"]

log = logging.getLogger("mesh.index")

#: Bump when the tables or the meaning of derived columns (import targets, gRPC keys) change:
#: an index of another version is set aside and rebuilt.
SCHEMA_VERSION: Final = "9"
#: How long a writer waits for another writer of the same index before giving up.
BUSY_TIMEOUT_MS: Final = 5000
DB_NAME: Final = "index.db"
#: A damaged index is renamed to ``index.db.damaged`` (with its ``-wal`` and ``-shm``).
DAMAGED_SUFFIX: Final = ".damaged"
#: The writers' lock (``flock``): held exclusively while a writer changes the index files and notes them.
LOCK_NAME: Final = "index.write"
#: What the index files looked like when their last writer let go, and whether it was about to write.
STATE_NAME: Final = "index.state"
#: How long closing waits for the writers' lock (a reader holds it shared for a moment).
CLOSE_WAIT_S: Final = 1.0
#: SQLite's primary result codes read here (``sqlite3.Error.sqlite_errorcode & 0xFF``).
_SQLITE_CORRUPT: Final = 11
_SQLITE_NOTADB: Final = 26
_SQLITE_FULL: Final = 13
_SQLITE_IOERR: Final = 10
#: Failures that say nothing of the file's bytes: busy, locked, interrupted, out of memory,
#: read-only, cannot open, no permission, I/O (a full disk is told apart by its free space).
_NOT_DAMAGE: Final = frozenset({3, 5, 6, 7, 8, 9, 10, 13, 14, 23})
#: Below this many free bytes, an I/O error writing the index is a full disk.
_FULL_BELOW: Final = 1 << 20

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
                  line INTEGER NOT NULL, end_line INTEGER NOT NULL, ordinal INTEGER NOT NULL DEFAULT 0);
CREATE TABLE def_text(file_id INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE INDEX defs_name ON defs(name COLLATE NOCASE);
CREATE INDEX defs_file ON defs(file_id, line);
CREATE TABLE imports(file_id INTEGER NOT NULL, module TEXT NOT NULL, names TEXT NOT NULL, line INTEGER NOT NULL,
                     target_path TEXT, target_service TEXT, scope TEXT NOT NULL DEFAULT '');
CREATE INDEX imports_file ON imports(file_id);
CREATE TABLE namespaces(file_id INTEGER NOT NULL, name TEXT NOT NULL, line INTEGER NOT NULL, end_line INTEGER NOT NULL);
CREATE INDEX namespaces_file ON namespaces(file_id);
CREATE INDEX namespaces_name ON namespaces(name);
CREATE TABLE refs(name TEXT NOT NULL, file_id INTEGER NOT NULL, sites TEXT NOT NULL, PRIMARY KEY(name, file_id))
                  WITHOUT ROWID;
CREATE TABLE ref_names(file_id INTEGER PRIMARY KEY, names BLOB NOT NULL);
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
CREATE TABLE http_routes(file_id INTEGER NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL,
                         handler TEXT NOT NULL, symbol TEXT NOT NULL, framework TEXT NOT NULL, mount TEXT NOT NULL,
                         shape TEXT NOT NULL, via TEXT NOT NULL DEFAULT '', hidden INTEGER NOT NULL DEFAULT 0);
CREATE INDEX http_routes_file ON http_routes(file_id);
CREATE INDEX http_routes_shape ON http_routes(shape);
CREATE TABLE http_calls(file_id INTEGER NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL,
                        symbol TEXT NOT NULL, host TEXT NOT NULL, address TEXT NOT NULL, client TEXT NOT NULL,
                        computed INTEGER NOT NULL, shape TEXT NOT NULL,
                        target TEXT NOT NULL DEFAULT '', target_kind TEXT NOT NULL DEFAULT '',
                        confidence TEXT NOT NULL DEFAULT '', evidence TEXT NOT NULL DEFAULT '',
                        full_path TEXT NOT NULL DEFAULT '', operation TEXT NOT NULL DEFAULT '');
CREATE INDEX http_calls_file ON http_calls(file_id);
CREATE INDEX http_calls_target ON http_calls(target);
CREATE TABLE messages(file_id INTEGER NOT NULL, role TEXT NOT NULL, broker TEXT NOT NULL, name TEXT NOT NULL,
                      line INTEGER NOT NULL, kind TEXT NOT NULL, symbol TEXT NOT NULL, address TEXT NOT NULL,
                      client TEXT NOT NULL, computed INTEGER NOT NULL,
                      topic TEXT NOT NULL DEFAULT '', topic_via TEXT NOT NULL DEFAULT '',
                      hidden INTEGER NOT NULL DEFAULT 0);
CREATE INDEX messages_file ON messages(file_id);
CREATE INDEX messages_topic ON messages(topic);
CREATE TABLE settings(file_id INTEGER NOT NULL, key TEXT NOT NULL, line INTEGER NOT NULL, host TEXT NOT NULL,
                      env TEXT NOT NULL, path TEXT NOT NULL);
CREATE INDEX settings_file ON settings(file_id);
CREATE TABLE constants(file_id INTEGER NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, line INTEGER NOT NULL);
CREATE INDEX constants_file ON constants(file_id);
CREATE INDEX constants_name ON constants(name);
CREATE TABLE wiring(service TEXT NOT NULL, var TEXT NOT NULL, host TEXT NOT NULL, path TEXT NOT NULL,
                    file TEXT NOT NULL, line INTEGER NOT NULL);
CREATE TABLE hosts(host TEXT NOT NULL, target TEXT NOT NULL);
CREATE VIRTUAL TABLE text USING fts5(body, content='', detail=none, tokenize='trigram case_sensitive 1');
"""

#: Tables holding per-file facts, keyed by ``file_id``.
_FACT_TABLES: Final = ("defs", "def_text", "ref_names", "imports", "namespaces", "grpc", "proto_services", "proto_methods", "proto_messages", "sections",
                       "deps", "proto_files", "proto_options", "http_routes", "http_calls", "messages", "settings",
                       "constants")  # fmt: skip

#: The definition names' tables (in :data:`_ADDED_TABLES`; an existing index gets them filled
#: from its ``defs`` when it is opened for writing). ``def_names_wide`` lists the names beyond
#: ASCII, whose folding the trigram index and SQLite's ``LIKE`` may not share.
_NAMES_TABLES: Final = (
    "CREATE TABLE IF NOT EXISTS def_names(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, files INTEGER NOT NULL)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS def_names_text USING fts5(name, content='def_names', content_rowid='id',"
    " detail=none, tokenize='trigram')",
    "CREATE INDEX IF NOT EXISTS def_names_wide ON def_names(id) WHERE length(name) != length(CAST(name AS BLOB))",
)

#: How many files with text the text sample reads (evenly spread by id, :func:`_sample_text`), and
#: how much of each: enough to tell a trigram most files hold from a rare one.
TEXT_SAMPLE_FILES: Final = 256
TEXT_SAMPLE_CHARS: Final = 32 << 10

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
    # A first level of dependents read a page at a time (``first_level_page``): the importers of a
    # file counted from the index alone, and a service's files walked in path order.
    "CREATE INDEX IF NOT EXISTS imports_target_file ON imports(target_path, file_id)",
    "CREATE INDEX IF NOT EXISTS files_service_path ON files(service, path)",
    # Every distinct definition name with the number of files defining it, and a trigram index of
    # them: a name found by what it holds (``LIKE '%order%'``) in time with the names that hold it,
    # not with the definitions (:mod:`mesh.index.query._names`). Kept by the writer with ``defs``.
    *_NAMES_TABLES,
    # A language's files in path order (the Markdown files of ``doc_sections``, a search's
    # ``language``): read without reading every file's row.
    "CREATE INDEX IF NOT EXISTS files_language_path ON files(language, path)",
    # The files with an error, among them every file kept without text (binary, unreadable, failed:
    # ``Writer.put``): what a search could not read is found without reading every file's row.
    "CREATE INDEX IF NOT EXISTS files_error ON files(path) WHERE error != ''",
    # For each trigram, which and how many files of a sample of the files with text hold it (``meta``
    # ``text_sample``: the files sampled, of how many, and a digest of the counts): what a search
    # asks the text index for is planned by it (:mod:`mesh.index.query._plan`).
    "CREATE TABLE IF NOT EXISTS text_sample(gram TEXT PRIMARY KEY, files INTEGER NOT NULL, holders BLOB NOT NULL)"
    " WITHOUT ROWID",
)


class IndexUnavailable(Exception):
    """The index cannot be kept where it must be; the message says where and what to do."""


class DiskFull(IndexUnavailable):
    """The disk holding the index folder is full: the message names the folder, the space free
    and, once :meth:`needing` was told, about how much an index of the workspace takes."""

    def __init__(
        self,
        folder: Path,
        *,
        free_bytes: int | None = None,
        need_bytes: int = 0,
        text_bytes: int = 0,
        files: int = 0,
        ahead: bool = False,
    ) -> None:
        self.folder = folder
        #: Free when the disk filled (a failed refresh then gives back what it took).
        self.free_bytes = _free_bytes(folder) if free_bytes is None else free_bytes
        self.used_bytes = sum(_size_of(Path(f"{folder / DB_NAME}{suffix}")) for suffix in ("", "-wal", "-shm"))
        self.need_bytes = need_bytes
        self.text_bytes = text_bytes
        self.files = files
        #: Found before anything was written (:meth:`Writer.check_room`), not by a write that failed.
        self.ahead = ahead
        super().__init__(self._message())

    def needing(self, text_bytes: int, files: int) -> DiskFull:
        """The same failure, with what a workspace of ``files`` files and ``text_bytes`` bytes of
        text needs (:func:`space_needed`)."""
        return DiskFull(
            self.folder, free_bytes=self.free_bytes, need_bytes=space_needed(text_bytes), text_bytes=text_bytes,
            files=files, ahead=self.ahead,
        )  # fmt: skip

    def _message(self) -> str:
        held = f", the index there takes {_human(self.used_bytes)}" if self.used_bytes else ""
        if self.ahead:
            said = f"the disk holding the index folder {self.folder} has too little room ({_human(self.free_bytes)} free{held})"
        else:
            said = f"the disk holding the index folder {self.folder} is full ({_human(self.free_bytes)} free{held})"
        if self.need_bytes:
            said += (
                f"; indexing this workspace ({self.files:,} files, {_human(self.text_bytes)} of text) needs about"
                f" {_human(self.need_bytes)} there"
            )
        return said + "; free space on it, or set MESH_CACHE_DIR to a folder on a disk with room"


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
    #: The facts' references as ``refs`` rows (:func:`reference_rows`), when the parse worker made
    #: them (and left ``facts.references`` empty): the writer then only stores them.
    sites: tuple[tuple[str, str], ...] | None = None
    #: The facts' definitions as ``defs`` rows and their ``def_text`` (:func:`definition_rows`), when
    #: the parse worker made them (and left ``facts.definitions`` empty).
    definitions: tuple[tuple[tuple, ...], bytes] | None = None


def space_needed(text_bytes: int, *, facts_only: int = 0) -> int:
    """About how much room writing ``text_bytes`` of text into the index takes (``facts_only`` of
    them already stored, their facts still to write): an index takes up to twice its text
    (docs/performance.md), and a build holds it twice at its peak (the WAL, then the database)."""
    return 4 * text_bytes + 2 * facts_only


def _free_bytes(folder: Path) -> int:
    try:
        found = os.statvfs(folder)
    except OSError:
        return 0
    return found.f_bavail * found.f_frsize


def _size_of(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _human(count: int) -> str:
    if count < 1 << 10:
        return f"{count} bytes"
    for unit, shift in (("GB", 30), ("MB", 20), ("KB", 10)):
        if count >= 1 << shift:
            return f"{count / (1 << shift):.1f} {unit}"
    raise AssertionError("unreachable")


def disk_full(exc: BaseException, folder: Path) -> bool:
    """Whether ``exc``, raised writing the index in ``folder``, means that its disk is full."""
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    if isinstance(exc, sqlite3.Error):
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        return code == _SQLITE_FULL or (code == _SQLITE_IOERR and _free_bytes(folder) < _FULL_BELOW)
    return False


def damage(exc: BaseException, path: Path) -> str:
    """Why the index at ``path`` is damaged, when ``exc`` (raised reading or writing it) proves it,
    or may come from damage and :func:`check` finds some; "" when it is not damaged."""
    if isinstance(exc, zlib.error):
        return f"its stored text does not decompress ({exc})"
    if isinstance(exc, sqlite3.Error):
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        if code in (_SQLITE_CORRUPT, _SQLITE_NOTADB) or str(exc).startswith("Could not decode to UTF-8"):
            return _said(exc)
        if code in _NOT_DAMAGE:
            return ""
    elif not isinstance(exc, (UnicodeError, TypeError, ValueError, LookupError, AttributeError, OverflowError)):
        return ""
    elif type(exc).__module__.startswith("mesh."):
        return ""  # mesh's own errors (a bad query, a target that names nothing) are answers, not damage
    return check(path)


def _said(exc: BaseException) -> str:
    """An error's text, bounded, with what does not decode replaced (a damaged schema's name)."""
    if isinstance(exc, UnicodeDecodeError):
        text = f"{exc.object[:80].decode('utf-8', 'replace')} (a name that is not UTF-8)"
    else:
        text = str(exc)
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= 120 else text[:119] + "…"


@functools.cache
def _schema_rows() -> tuple[frozenset[tuple], frozenset[tuple]]:
    """The schema objects this version creates: (those of every index, those it may add later)."""
    connection = sqlite3.connect(":memory:")
    connection.text_factory = bytes
    query = "SELECT type, name, tbl_name, sql FROM sqlite_master"
    try:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                connection.execute(statement)
        base = frozenset(connection.execute(query))
        for statement in _ADDED_TABLES:
            connection.execute(statement)
        every = frozenset(connection.execute(query))
    finally:
        connection.close()
    return base, every


def check(path: Path) -> str:
    """"" when the index at ``path`` is whole: its schema is the one this version writes (an
    index of another schema is left to the opener, who sets it aside as such) and SQLite's
    integrity check passes; else what is wrong. Reads only; costs a read of every page."""
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        return f"it cannot be opened ({_said(exc)})"
    connection.text_factory = bytes
    try:
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        rows = frozenset(connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
        version = connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() if rows else None
        if version is None or version[0] != SCHEMA_VERSION.encode():
            return ""  # another version's (or no) index: the opener sets it aside as such
        base, every = _schema_rows()
        if not base <= rows <= every:
            return "its schema is not the one mesh-mcp wrote"
        report = [row[0] for row in connection.execute("PRAGMA integrity_check(3)")]
    except (sqlite3.Error, UnicodeDecodeError) as exc:
        if isinstance(exc, sqlite3.Error) and (exc.sqlite_errorcode or 0) & 0xFF in _NOT_DAMAGE:
            return ""  # busy or out of memory: no verdict, so no damage
        return f"it cannot be read ({_said(exc)})"
    finally:
        connection.close()
    if report == [b"ok"]:
        return ""
    return "the integrity check failed: " + "; ".join(line.decode("utf-8", "replace") for line in report)[:200]


# -- the writers' lock and their note of the files ---------------------------------------------------


def open_lock(folder: Path) -> int:
    """A descriptor on ``index.write``, the writers' lock of the index in ``folder``."""
    try:
        return os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        if disk_full(exc, folder):
            raise DiskFull(folder) from None
        raise IndexUnavailable(
            f"cannot open {folder / LOCK_NAME}: {exc.strerror}; set MESH_CACHE_DIR to a writable folder"
        ) from None


def lock(fd: int, wait_s: float, *, shared: bool = False) -> bool:
    """Take the lock on ``fd`` (exclusive unless ``shared``), waiting at most ``wait_s``; whether
    it was taken. Polled, so that two stores of one process (each its own descriptor) take turns
    instead of waiting for each other forever."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)


def unlock(fd: int) -> None:
    fcntl.flock(fd, fcntl.LOCK_UN)


def _stat(path: Path) -> list[int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return [found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns]


def _files(folder: Path) -> dict[str, object]:
    """What a writer notes of the index files: the database's inode, size and times, and the
    WAL's but for its ctime (SQLite running as root gives a WAL it opens to the database's owner,
    which changes it). An empty WAL is no WAL: a reader opening the index may create one."""
    wal = _stat(folder / f"{DB_NAME}-wal")
    return {"db": _stat(folder / DB_NAME), "wal": wal[:3] if wal is not None and wal[1] else None}


def _note(folder: Path, *, writing: bool) -> None:
    """Write ``index.state`` (holding the writers' lock): the files as they are now, and whether
    a writer is about to change them. When it cannot be written (a full disk), remove it: the
    index is then checked at the next open, and readers cannot tell a change (none is reported)."""
    state = folder / STATE_NAME
    temporary = folder / f"{STATE_NAME}.{os.getpid()}-{threading.get_ident()}"
    try:
        temporary.write_text(json.dumps({"writing": writing, **_files(folder)}))
        temporary.replace(state)
    except OSError:
        for path in (temporary, state):
            with contextlib.suppress(OSError):
                path.unlink()


def _read_state(folder: Path) -> dict | None:
    try:
        state = json.loads((folder / STATE_NAME).read_text())
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


def _changed(folder: Path) -> tuple[bool, dict | None]:
    """Whether the index files differ from what the last writer noted, and that note (None: none)."""
    state = _read_state(folder)
    now = _files(folder)
    return state is None or state.get("db") != now["db"] or state.get("wal") != now["wal"], state


def _look(folder: Path) -> str:
    """Holding the writers' lock: why the index is damaged ("" when it is not), set aside if so.

    Unchanged since the last note: whole. Changed, noted as not being written: only a writer
    changes these files, and none was at work, so damaged by definition. Changed while noted as
    being written (its writer stopped mid-write: SQLite ignores what it left), or no note at all:
    :func:`check` decides, and a whole index is noted as it is now."""
    path = folder / DB_NAME
    if not path.exists():
        return ""
    changed, state = _changed(folder)
    if not changed:
        return ""
    if state is not None and state.get("writing") is False:
        why = "it changed while no writer of mesh-mcp was writing it"
    else:
        why = check(path)
    if why:
        set_aside(path, DAMAGED_SUFFIX, why)
    else:
        _note(folder, writing=False)
    return why


def vet(folder: Path) -> str:
    """Look at the index in ``folder`` before reading it (a server about to serve a snapshot left
    on disk): why it was damaged and set aside, "" when it is whole or a writer is at work (the
    writer looked when it opened it)."""
    if not (folder / DB_NAME).exists():
        return ""
    fd = open_lock(folder)
    try:
        if not lock(fd, 0.0):
            return ""
        return _look(folder)
    finally:
        os.close(fd)


def tampered(folder: Path) -> str:
    """Why the index files in ``folder`` changed behind mesh's back since the last writer noted
    them ("" when they did not, or a writer is at work, or nothing was noted): for a reader, after
    it read (a stat of two files and a read of the note when nothing changed)."""
    changed, state = _changed(folder)
    if not changed or state is None:
        return ""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return ""
    try:
        if not lock(fd, 0.0, shared=True):
            return ""  # a writer is at work (or about to note what it did)
        changed, state = _changed(folder)  # settled, now that no writer is at work
        if not changed or state is None:
            return ""
        if state.get("writing") is False:
            return "it changed while no writer of mesh-mcp was writing it"
        why = check(folder / DB_NAME)  # its writer stopped mid-write
        if not why and lock(fd, 0.0):
            _note(folder, writing=False)
        return why
    finally:
        os.close(fd)


def set_aside(path: Path, suffix: str, why: str) -> None:
    """Rename the database at ``path`` (with its WAL and shared memory) to ``<path><suffix>``,
    replacing what an earlier one left there, and forget its state."""
    for extra in ("", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            Path(f"{path}{suffix}{extra}").unlink()
    try:
        for extra in ("", "-wal", "-shm"):
            old = Path(f"{path}{extra}")
            if old.exists():
                old.replace(Path(f"{path}{suffix}{extra}"))
    except OSError as exc:
        raise IndexUnavailable(
            f"the index at {path} must be set aside ({why}) but cannot be renamed: {exc.strerror};"
            f" remove {path.parent} to rebuild it"
        ) from None
    with contextlib.suppress(OSError):
        (path.parent / STATE_NAME).unlink()
    log.warning("index at %s set aside as %s%s and rebuilt: %s", path, path.name, suffix, why)


def _connect(path: Path, *, readonly: bool, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    if readonly:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
    else:
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    return connection


class _Held:
    """What a store holds open: its writer, its readers and the writers' lock. Closed once, by
    :meth:`Store.close`, or for a store dropped without it when it is collected or at exit: a
    connection that Python finalizes instead may fold the WAL into the database with no note,
    which the next open would take for damage."""

    def __init__(self, folder: Path, lock_fd: int) -> None:
        self.folder = folder
        self.lock_fd = lock_fd
        self.writer: sqlite3.Connection | None = None
        #: Every reader connection of :meth:`Store.snapshot` (one per thread).
        self.readers: list[sqlite3.Connection] = []
        #: Those inside a snapshot now: closing one under its thread's query crashes the process
        #: (SIGSEGV: the statement is finalised while it steps), so the thread closes it when done
        #: if it was closed meanwhile (``doomed``).
        self.busy: set[sqlite3.Connection] = set()
        self.doomed: set[sqlite3.Connection] = set()
        self.readers_lock = threading.Lock()

    def close_connections(self) -> None:
        """Close the writer and every reader not inside a snapshot; one that is is closed by its
        own thread as its snapshot ends (:meth:`done_reading`)."""
        with self.readers_lock:
            readers, self.readers = self.readers, []
            self.doomed.update(connection for connection in readers if connection in self.busy)
            readers = [connection for connection in readers if connection not in self.busy]
        for connection in readers:
            with contextlib.suppress(sqlite3.Error):
                connection.close()
        if self.writer is not None:
            with contextlib.suppress(sqlite3.Error):
                self.writer.close()

    def reading(self, connection: sqlite3.Connection) -> None:
        """``connection`` enters a snapshot: not closed under it."""
        with self.readers_lock:
            self.busy.add(connection)

    def done_reading(self, connection: sqlite3.Connection) -> bool:
        """``connection`` left its snapshot; closed (True) if the store was closed meanwhile."""
        with self.readers_lock:
            self.busy.discard(connection)
            closed = connection in self.doomed
            self.doomed.discard(connection)
        if closed:
            with contextlib.suppress(sqlite3.Error):
                connection.close()
        return closed

    def close(self) -> None:
        """Close every connection (the last to close the index folds its WAL into the database),
        noting the files as they are then."""
        fd, self.lock_fd = self.lock_fd, -1
        if fd < 0:
            return
        try:
            if lock(fd, CLOSE_WAIT_S):  # else another writer is at work: closing changes nothing then
                _note(self.folder, writing=True)  # killed while SQLite folds the WAL in: checked, not damaged
                try:
                    self.close_connections()
                finally:
                    _note(self.folder, writing=False)
            else:
                self.close_connections()
        finally:
            os.close(fd)


class Store:
    """The index database of one workspace: one writer (the builder), any number of readers."""

    def __init__(self, folder: Path, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self.busy_timeout_ms = busy_timeout_ms
        self.folder = folder
        self.path = folder / DB_NAME
        self._local = threading.local()
        self._prepare_folder()
        self._held = _Held(folder, open_lock(folder))
        #: Why the index was set aside as damaged when this store opened it ("" when it was not).
        self.set_aside_why = ""
        try:
            with self._writing(look=True):
                self._held.writer = self._open_writer()
        except BaseException:
            os.close(self._held.lock_fd)
            raise
        weakref.finalize(self, self._held.close)

    @property
    def _writer(self) -> sqlite3.Connection:
        writer = self._held.writer
        if writer is None:
            raise IndexUnavailable(f"the index at {self.path} was closed")
        return writer

    # -- opening and repairing ------------------------------------------------------------------

    @contextmanager
    def _writing(self, *, look: bool = False) -> Iterator[None]:
        """Hold the writers' lock while changing the files, noted before (as being written, when
        there are files to change) and after (as done); with ``look``, look at them first."""
        if not lock(self._held.lock_fd, self.busy_timeout_ms / 1000):
            raise IndexUnavailable(
                f"another process is writing the index at {self.path} (waited {self.busy_timeout_ms / 1000:g} s);"
                " try again when it is done"
            )
        try:
            if look:
                self.set_aside_why = _look(self.folder)
            if self.path.exists():
                _note(self.folder, writing=True)
            yield
        finally:
            _note(self.folder, writing=False)
            unlock(self._held.lock_fd)

    def _prepare_folder(self) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            if disk_full(exc, self.folder.parent):
                raise DiskFull(self.folder.parent) from None
            raise IndexUnavailable(
                f"cannot create the index folder {self.folder}: {exc.strerror}; set MESH_CACHE_DIR to a writable folder"
            ) from None
        if not os.access(self.folder, os.W_OK | os.X_OK):
            raise IndexUnavailable(
                f"the index folder {self.folder} is not writable; set MESH_CACHE_DIR to a writable folder"
            )

    def _open_writer(self) -> sqlite3.Connection:
        for attempt in (1, 2):
            connection = None
            try:
                connection = _connect(self.path, readonly=False, busy_timeout_ms=self.busy_timeout_ms)
                connection.execute("PRAGMA journal_mode = WAL")
                connection.execute("PRAGMA synchronous = NORMAL")
                if self._schema_ok(connection):
                    return connection
                connection.close()
                set_aside(self.path, ".old", "it was written by another version of mesh-mcp")
            except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
                if connection is not None:
                    connection.close()
                if disk_full(exc, self.folder):
                    raise DiskFull(self.folder) from None
                if attempt == 2:
                    raise IndexUnavailable(f"cannot use the index at {self.path}: {_said(exc)}") from None
                why = f"it cannot be read ({_said(exc)})"
                set_aside(self.path, DAMAGED_SUFFIX, why)
                self.set_aside_why = why
        raise AssertionError("unreachable")

    def _schema_ok(self, connection: sqlite3.Connection) -> bool:
        """Create the schema in an empty database; say whether this one is usable. Two processes
        opening the same new index take turns (the check and the creation are one write
        transaction), so neither mistakes the other's half-made schema for damage."""
        self._begin(connection)
        try:
            usable = self._check_or_create(connection)
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    connection.execute("ROLLBACK")
            raise
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
        if "def_names" not in tables:  # an index written before the names were kept
            _fill_names(connection)
        if "text_sample" not in tables:  # ... or before its text was sampled
            _sample_text(connection)
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

    def damaged(self, exc: BaseException) -> str:
        """Why the index is damaged, when ``exc`` (raised by a query or a refresh) proves it or a
        check finds it ("" when it is not: ``exc`` is then the caller's to raise)."""
        return damage(exc, self.path)

    def set_aside_damaged(self, why: str, *, inode: int | None = None) -> bool:
        """Rename the damaged index to ``index.db.damaged`` and start an empty one in its place
        (the caller rebuilds it); with ``inode``, only if the file at the path is still that one.
        Whether it was set aside."""
        with self._writing():
            if inode is not None and (_stat(self.path) or [None])[0] != inode:
                return False
            self._held.close_connections()
            self._held.writer = None
            set_aside(self.path, DAMAGED_SUFFIX, why)
            self.set_aside_why = why
            self._held.writer = self._open_writer()
        return True

    def close(self) -> None:
        """Close every connection (the last to close the index folds its WAL into the database)."""
        self._held.close()

    def writer_connection(self) -> sqlite3.Connection:
        """The builder's own connection, outside a transaction: it sees the latest commit."""
        return self._writer

    # -- reading ---------------------------------------------------------------------------------

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A connection inside one read transaction: every query sees the same generation."""
        inode = (_stat(self.path) or [None])[0]
        connection = getattr(self._local, "reader", None)
        if connection is not None and getattr(self._local, "inode", None) != inode:
            with contextlib.suppress(sqlite3.Error):
                connection.close()  # of a file set aside since
            connection = None
        if connection is None:
            connection = self._local.reader = _connect(self.path, readonly=True)
            self._local.inode = inode
            with self._held.readers_lock:
                self._held.readers.append(connection)
        self._held.reading(connection)
        try:
            connection.execute("BEGIN")
            try:
                yield connection
            finally:
                connection.execute("COMMIT")
        finally:
            if self._held.done_reading(connection):
                self._local.reader = None

    def generation(self) -> int:
        with self.snapshot() as db:
            return int(db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])

    # -- writing ---------------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Writer]:
        """One new generation: everything written inside becomes visible at once, or not at all.

        A full disk fails it as a whole with :class:`DiskFull` (the previous generation stays)."""
        with self._writing():
            db = self._writer
            try:
                self._begin(db)
                writer = Writer(db)
                try:
                    yield writer
                    db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
                    db.execute("COMMIT")
                except BaseException:
                    if db.in_transaction:  # SQLite may have rolled it back itself (a full disk)
                        with contextlib.suppress(sqlite3.Error):
                            db.execute("ROLLBACK")
                    raise
                finally:
                    writer.restore_cache()  # a cold load that did not end (a failure) leaves no large cache
            except (sqlite3.Error, OSError) as exc:
                if not disk_full(exc, self.folder):
                    raise
                free_bytes = _free_bytes(self.folder)
                with contextlib.suppress(sqlite3.Error):
                    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # give back what the failed refresh took
                raise DiskFull(self.folder, free_bytes=free_bytes) from None


#: A first build's writer page cache, in KiB (``PRAGMA cache_size`` with a negative count): the
#: default 2 MiB makes every insertion into a B-tree larger than that (``refs``, ``defs_name``)
#: read its leaf back from the OS; given back when the bulk load ends.
COLD_CACHE_KIB: Final = 64 << 10
#: How many text insertions and deletions bulk writes may make, as a share of the files indexed,
#: before the text index is merged whole (:meth:`Writer.bulk_text`): a file rewritten is one of each.
TEXT_MERGE_SHARE: Final = 0.5


class Writer:
    """Writes inside :meth:`Store.transaction`."""

    def check_room(self, folder: Path, text_bytes: int, files: int, *, facts_only: int = 0) -> None:
        """Before writing: raise :class:`DiskFull` (``ahead``) when the disk of ``folder`` has less
        room than writing ``text_bytes`` of text of ``files`` files takes (:func:`space_needed`):
        a refresh too large for the disk says so before it fills it."""
        need = space_needed(text_bytes, facts_only=facts_only)
        free = _free_bytes(folder)
        if need > free:
            raise DiskFull(folder, free_bytes=free, need_bytes=need, text_bytes=text_bytes + facts_only, files=files,
                           ahead=True)  # fmt: skip

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        #: The page cache to put back after a cold load (None outside one).
        self._cache_size: int | None = None
        #: (name, sql) of the indexes a cold load dropped, made again when it ends.
        self._dropped: list[tuple[str, str]] = []
        #: Whether the definition names are made again from ``defs`` at the end (:meth:`names_bulk`)
        #: instead of kept file by file.
        self._names_bulk = False
        #: Files whose text this transaction wrote into or deleted from the text index.
        self._text_changed = 0

    def cold_load(self, on: bool) -> None:
        """Around a first build's bulk insertions into an empty index (never a refresh of a built
        one): while on, a page cache of :data:`COLD_CACHE_KIB` instead of SQLite's 2 MiB, and the
        fact tables' secondary indexes dropped (not their keys): turned off, each index is made
        again from its own definition as ``sqlite_master`` held it (one sort, not an insertion a
        row), and the previous cache put back. Drop and creation are in the open transaction: a
        reader never sees a snapshot without them, and a failure between rolls the drop back."""
        db = self.db
        if on:
            self._cache_size = db.execute("PRAGMA cache_size").fetchone()[0]
            db.execute(f"PRAGMA cache_size = {-COLD_CACHE_KIB}")
            marks = ", ".join("?" * len(_FACT_TABLES))
            self._dropped = db.execute(
                f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ({marks})"
                " ORDER BY name",
                _FACT_TABLES,
            ).fetchall()
            for name, _ in self._dropped:
                db.execute(f"DROP INDEX {name}")
            return
        for _, sql in self._dropped:
            db.execute(sql)
        self._dropped = []
        self.restore_cache()

    def restore_cache(self) -> None:
        """The page cache from before :meth:`cold_load`, its memory given back (nothing outside one)."""
        if self._cache_size is not None:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute(f"PRAGMA cache_size = {int(self._cache_size)}")
                self.db.execute("PRAGMA shrink_memory")
            self._cache_size = None

    def names_bulk(self, on: bool) -> None:
        """Around a refresh that writes the definitions of most files (a first build, a build's
        second stage, every file parsed again): while on, ``def_names`` is not kept file by file;
        turned off, it is made again from ``defs`` (one grouping and one trigram pass, a few
        seconds at 100,000 files, against a statement per name and file)."""
        self._names_bulk = on
        if not on:
            _fill_names(self.db)

    def sample_text(self) -> None:
        """The text sample made again (:func:`_sample_text`): after a refresh that wrote most files'
        text, or a full refresh that changed any."""
        _sample_text(self.db)

    def text_drift(self, files: int) -> None:
        """``files`` more files (fewer, when negative) since the text sample was made, by edits that
        each wrote few: the sample is made again once they add up to a quarter of the files it was
        made of, so that a workspace grown file by file is not planned by its sample of long ago."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'text_sample'").fetchone()
        drift = self.db.execute("SELECT value FROM meta WHERE key = 'text_sample_drift'").fetchone()
        moved = files + (int(drift[0]) if drift is not None else 0)
        if row is None or 4 * abs(moved) > int(row[0].split()[1]):
            _sample_text(self.db)
        else:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('text_sample_drift', ?)", (str(moved),))

    def known_files(self, only: Iterable[str] | None = None) -> dict[str, tuple[int, int, int, bytes]]:
        """path -> (id, size, mtime_ns, hash) of every indexed file; with ``only``, of those paths and
        of the files under them (folders), found through the index on ``path``: a saved edit reads its
        own rows, not the workspace's."""
        sql = "SELECT path, id, size, mtime_ns, hash FROM files"
        if only is None:
            rows = self.db.execute(sql).fetchall()
        else:
            rows = []
            for path in sorted(set(only)):
                rows += self.db.execute(sql + " WHERE path = ?", (path,)).fetchall()
                # under the folder: "path/" <= p < "path0" ("0" follows "/")
                rows += self.db.execute(sql + " WHERE path >= ? AND path < ?", (path + "/", path + "0")).fetchall()
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
                self._text_changed += 1
            self.drop_facts(file_id)
            db.execute("DELETE FROM content WHERE file_id = ?", (file_id,))
            db.execute("DELETE FROM files WHERE id = ?", (file_id,))

    def drop_facts(self, file_id: int) -> None:
        """Delete a file's facts, not its row or text (:meth:`put_facts` writes them again)."""
        db = self.db
        named = db.execute("SELECT names FROM ref_names WHERE file_id = ?", (file_id,)).fetchone()
        if named is not None:  # refs are clustered by name: deleted by (name, file), the file's names kept apart
            names = zlib.decompress(named[0]).decode("utf-8").split("\n")
            db.executemany("DELETE FROM refs WHERE name = ? AND file_id = ?", [(name, file_id) for name in names])
        if not self._names_bulk:
            defined = db.execute("SELECT DISTINCT name FROM defs WHERE file_id = ?", (file_id,))
            _names_left(db, [name for (name,) in defined])
        for table in _FACT_TABLES:
            db.execute(f"DELETE FROM {table} WHERE file_id = ?", (file_id,))

    def put(self, record: FileRecord, body: str) -> int:
        """Write one file with its facts; ``body`` is its text as the trigram index holds it."""
        db = self.db
        facts = record.facts
        # a file kept without text always says why (``files_error`` finds those: ``not_searched``)
        error = facts.error or ("" if record.compressed else "no text kept")
        cursor = db.execute(
            "INSERT INTO files(path, service, language, kind, size, mtime_ns, hash, lines, error)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record.path, record.service, facts.language, record.kind, record.size, record.mtime_ns, record.hash,
             record.lines, error),
        )  # fmt: skip
        file_id = cursor.lastrowid
        assert file_id is not None
        if record.compressed:  # binary and unreadable files have no text to keep or search
            db.execute("INSERT INTO content VALUES (?, ?)", (file_id, record.compressed))
            db.execute("INSERT INTO text(rowid, body) VALUES (?, ?)", (file_id, body))
            self._text_changed += 1
        self.put_facts(file_id, facts, record.sites, definitions=record.definitions)
        return file_id

    def put_facts(
        self,
        file_id: int,
        facts: FileFacts,
        sites: tuple[tuple[str, str], ...] | None = None,
        *,
        kind: str = "",
        definitions: tuple[tuple[tuple, ...], bytes] | None = None,
    ) -> None:
        """Write the facts of a file already written (by :meth:`put`, or with text only by a build's
        first stage: then ``kind`` is given, and the file's language, kind and error are set too).
        ``sites`` and ``definitions``: its references and definitions as rows, when the parse worker
        made them (:func:`reference_rows`, :func:`definition_rows`)."""
        db = self.db
        if kind:
            db.execute(
                "UPDATE files SET language = ?, kind = ?, error = ? WHERE id = ?", (facts.language, kind, facts.error, file_id)
            )
        defs, texts = definitions if definitions is not None else definition_rows(facts)
        if defs:
            db.executemany("INSERT INTO defs VALUES (?, ?, ?, ?, ?, ?, ?)", [(file_id, *row) for row in defs])
            if not self._names_bulk:
                _names_joined(db, dict.fromkeys(row[0] for row in defs))
        if texts:
            db.execute("INSERT INTO def_text VALUES (?, ?)", (file_id, texts))
        rows = sites if sites is not None else reference_rows(facts)
        if rows:
            db.executemany("INSERT INTO refs VALUES (?, ?, ?)", [(name, file_id, sites) for name, sites in rows])
            names = zlib.compress("\n".join(name for name, _ in rows).encode("utf-8"), 6)
            db.execute("INSERT INTO ref_names VALUES (?, ?)", (file_id, names))
        if facts.imports:
            db.executemany(
                "INSERT INTO imports VALUES (?, ?, ?, ?, NULL, NULL, ?)",
                [(file_id, i.module, ",".join(i.names), i.line, i.scope) for i in facts.imports],
            )
        if facts.namespaces:
            db.executemany(
                "INSERT INTO namespaces VALUES (?, ?, ?, ?)",
                [(file_id, n.name, n.line, n.end_line) for n in facts.namespaces],
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
        if facts.http_routes or facts.http_calls or facts.messages or facts.settings or facts.constants:
            _put_links(db, file_id, facts)
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

    def bulk_text(self, on: bool, *, known: int = 0) -> None:
        """Around many inserts: no incremental merging and a small pending-terms buffer while on
        (measured faster, docs/textindex.md); when turned off, merging resumes, and the index is
        merged whole (``optimize``) after a first build (``known``: the files indexed before it, 0)
        or once the text insertions and deletions of bulk writes since it was last merged whole add
        up to :data:`TEXT_MERGE_SHARE` of ``known`` (a file rewritten is one of each). FTS5 drops a deleted file's
        postings only when it merges the segment holding them: a refresh that rewrote every file
        (an upgrade's extractors, a branch switched) left a copy of the whole index behind it, which
        every search then read, segment by segment (INV-INDEX-13). Merging costs time linear in the
        index, paid by bulk writes only (never by an edit of a few files, whose small segments
        FTS5's own merging keeps few) and only after a share of the files was rewritten: its cost
        stays a fraction of theirs. An index written before the count was kept is merged at its
        first bulk write."""
        if on:
            self.db.execute("INSERT INTO text(text, rank) VALUES ('automerge', 0)")
            self.db.execute("INSERT INTO text(text, rank) VALUES ('hashsize', ?)", (256 << 10,))
            return
        self.db.execute("INSERT INTO text(text, rank) VALUES ('automerge', 4)")
        row = self.db.execute("SELECT value FROM meta WHERE key = 'text_changed'").fetchone()
        changed = self._text_changed + (int(row[0]) if row is not None else 0)
        self._text_changed = 0
        # an index no count was kept for (an older mesh's, perhaps left with copies by its rewrites)
        # is merged at its first bulk write
        if not known or row is None or changed >= TEXT_MERGE_SHARE * known:
            self.db.execute("INSERT INTO text(text) VALUES ('optimize')")
            changed = 0
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('text_changed', ?)", (str(changed),))

    def replace_services(self, rows: Iterable[tuple]) -> None:
        self.db.execute("DELETE FROM services")
        self.db.executemany("INSERT INTO services VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def replace_workspace(
        self, areas: Iterable, externals: Iterable, warnings: Iterable, wiring: Iterable = (), hosts: Iterable = ()
    ) -> None:
        """The areas, external services, manifest warnings and wiring (environment variables naming
        hosts, and the host names that reach each service) of the workspace model."""
        self.db.execute("DELETE FROM wiring")
        self.db.executemany(
            "INSERT INTO wiring VALUES (?, ?, ?, ?, ?, ?)", [(w.service, w.var, w.host, w.path, w.file, w.line) for w in wiring]
        )
        self.db.execute("DELETE FROM hosts")
        self.db.executemany("INSERT INTO hosts VALUES (?, ?)", list(hosts))
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
        replace every previous one, or with ``only``, those of these paths and of what lies under
        them (a folder walked again, or gone)."""
        rows = list(rows)
        if only is None:
            self.db.execute("DELETE FROM skipped")
            self.db.execute("DELETE FROM skipped_detail")
        else:
            gone = [(path, path + "/", path + "0") for path in only]
            for table in ("skipped", "skipped_detail"):
                self.db.executemany(f"DELETE FROM {table} WHERE path = ? OR (path > ? AND path < ?)", gone)
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


def _put_links(db: sqlite3.Connection, file_id: int, facts: FileFacts) -> None:
    """HTTP routes and calls, messages, settings and constants of one file (resolved later)."""
    db.executemany(
        "INSERT INTO http_routes(file_id, method, path, line, handler, symbol, framework, mount, shape)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(file_id, r.method, r.path, r.line, r.handler, r.symbol, r.framework, r.mount, path_shape(r.path))
         for r in facts.http_routes],
    )  # fmt: skip
    db.executemany(
        "INSERT INTO http_calls(file_id, method, path, line, symbol, host, address, client, computed, shape, operation)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(file_id, c.method, c.path, c.line, c.symbol, c.host, c.address, c.client, int(c.computed),
          path_shape(c.path) if c.path else "", c.operation) for c in facts.http_calls],
    )  # fmt: skip
    db.executemany(
        "INSERT INTO messages(file_id, role, broker, name, line, kind, symbol, address, client, computed)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(file_id, m.role, m.broker, m.name, m.line, m.kind, m.symbol, m.address, m.client, int(m.computed))
         for m in facts.messages],
    )  # fmt: skip
    db.executemany(
        "INSERT INTO settings VALUES (?, ?, ?, ?, ?, ?)",
        [(file_id, s.key, s.line, s.host, s.env, s.path) for s in facts.settings],
    )
    db.executemany(
        "INSERT INTO constants VALUES (?, ?, ?, ?)", [(file_id, c.name, c.value, c.line) for c in facts.constants]
    )


def definition_text(texts: list[list[str]]) -> bytes:
    """The signatures and doc lines of a file's definitions, in their order (``defs.ordinal``), as
    one compressed JSON list of ``[signature, doc]``: read only by outlines and symbols, and a
    third of the bytes plain columns would take."""
    return zlib.compress(json.dumps(texts, ensure_ascii=False, separators=(",", ":")).encode(), 6)


def _sample_text(db: sqlite3.Connection) -> None:
    """``text_sample`` made from :data:`TEXT_SAMPLE_FILES` files with text, evenly spread by id (the
    first :data:`TEXT_SAMPLE_CHARS` of each): for each trigram, how many of them hold it as the text
    index holds it (folded), and which (a bitmap, bit ``i`` the ``i``-th file sampled: what several
    trigrams select together is counted, not assumed). ``meta.text_sample`` says
    ``"SAMPLED OF DIGEST"``."""
    ids = [file_id for (file_id,) in db.execute("SELECT file_id FROM content ORDER BY file_id")]
    chosen = ids
    if len(ids) > TEXT_SAMPLE_FILES:
        chosen = [ids[i * len(ids) // TEXT_SAMPLE_FILES] for i in range(TEXT_SAMPLE_FILES)]
    holders: dict[str, list[int]] = {}
    for number, file_id in enumerate(chosen):
        (data,) = db.execute("SELECT data FROM content WHERE file_id = ?", (file_id,)).fetchone()
        text = zlib.decompress(data).decode("utf-8")[:TEXT_SAMPLE_CHARS]
        for gram in trigrams(indexed(text)):
            holders.setdefault(gram, []).append(number)
    width = (len(chosen) + 7) // 8
    rows = sorted(
        (gram, len(numbers), sum(1 << number for number in numbers).to_bytes(width, "little"))
        for gram, numbers in holders.items()
    )
    db.execute("DELETE FROM text_sample")
    db.executemany("INSERT INTO text_sample VALUES (?, ?, ?)", rows)
    digest = hashlib.blake2b(repr(rows).encode("utf-8"), digest_size=8).hexdigest()
    db.execute("INSERT OR REPLACE INTO meta VALUES ('text_sample', ?)", (f"{len(chosen)} {len(ids)} {digest}",))
    db.execute("DELETE FROM meta WHERE key = 'text_sample_drift'")


def text_segments(db: sqlite3.Connection) -> int:
    """How many segments the text index holds (each search looks its trigrams up in every one): the
    second varint of FTS5's structure record, after a 4-byte cookie (and, in its second format, a
    4-byte marker); the first is the number of levels."""
    row = db.execute("SELECT block FROM text_data WHERE id = 10").fetchone()
    if row is None:
        return 0
    block: bytes = row[0]
    at = 8 if block[4:8] == b"\xff\x00\x00\x01" else 4
    counts: list[int] = []
    while len(counts) < 2:
        value = 0
        while True:  # SQLite's varint: 7 bits a byte, high bit set on all but the last (short ones here)
            byte = block[at]
            at += 1
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        counts.append(value)
    return counts[1]


def _fill_names(db: sqlite3.Connection) -> None:
    """``def_names`` and its trigram index made again from ``defs``: every distinct name (binary
    order) with the number of files defining it."""
    db.execute("DELETE FROM def_names")
    db.execute(
        "INSERT INTO def_names(name, files) SELECT name, count(DISTINCT file_id) FROM defs GROUP BY name ORDER BY name"
    )
    db.execute("INSERT INTO def_names_text(def_names_text) VALUES ('rebuild')")


def _names_joined(db: sqlite3.Connection, names: Iterable[str]) -> None:
    """One more file defines each of ``names`` (distinct): counted, and a new name indexed."""
    for name in names:
        name_id, files = db.execute(
            "INSERT INTO def_names(name, files) VALUES (?, 1) ON CONFLICT(name) DO UPDATE SET files = files + 1"
            " RETURNING id, files",
            (name,),
        ).fetchone()
        if files == 1:
            db.execute("INSERT INTO def_names_text(rowid, name) VALUES (?, ?)", (name_id, name))


def _names_left(db: sqlite3.Connection, names: Iterable[str]) -> None:
    """One file fewer defines each of ``names`` (distinct): a name no file defines any more goes."""
    for name in names:
        row = db.execute(
            "UPDATE def_names SET files = files - 1 WHERE name = ? RETURNING id, files", (name,)
        ).fetchone()
        if row is not None and row[1] <= 0:
            forget = "INSERT INTO def_names_text(def_names_text, rowid, name) VALUES ('delete', ?, ?)"
            db.execute(forget, (row[0], name))
            db.execute("DELETE FROM def_names WHERE id = ?", (row[0],))


def definition_rows(facts: FileFacts) -> tuple[tuple[tuple, ...], bytes]:
    """The ``defs`` rows of one file's definitions, its id left out (name, kind, container, line,
    end_line, ordinal), and their ``def_text`` (:func:`definition_text`; empty when none has a
    signature or a doc line)."""
    definitions = facts.definitions
    rows = tuple((d.name, d.kind, d.container, d.line, d.end_line, ordinal) for ordinal, d in enumerate(definitions))
    texts = [[d.signature, d.doc] for d in definitions]
    return rows, definition_text(texts) if any(signature or doc for signature, doc in texts) else b""


def read_definition_text(data: bytes) -> list[list[str]]:
    return json.loads(zlib.decompress(data).decode("utf-8"))


#: How a reference's kind is written in ``refs.sites`` (one letter).
REFERENCE_KIND_LETTER: Final = {"call": "c", "new": "n", "type": "t", "use": "u", "bind": "b"}


def reference_rows(facts: FileFacts) -> list[tuple[str, str]]:
    """``(name, sites)`` rows of one file's references: one row a name, its sites one a line,
    each ``<line> <kind letter><qualifier>[><binds>][#<arity>]`` in source order (a third of the rows, and of the index,
    that one row a reference would take)."""
    sites: dict[str, list[str]] = {}
    for ref in facts.references:
        bound = f">{ref.binds}" if ref.binds else ""
        arity = f"#{ref.arity}" if ref.arity >= 0 else ""
        site = f"{ref.line} {REFERENCE_KIND_LETTER[ref.kind]}{ref.qualifier}{bound}{arity}"
        sites.setdefault(ref.name, []).append(site)
    return [(name, "\n".join(lines)) for name, lines in sites.items()]


def _fields_text(fields) -> str:
    """Fields as tab-separated lines: name, type, number, label, line (compact and greppable)."""
    return "\n".join(f"{f.name}\t{f.type}\t{f.number}\t{f.label}\t{f.line}" for f in fields)
