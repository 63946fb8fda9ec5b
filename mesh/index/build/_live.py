"""One workspace's index kept live for a server: built in the background, then watched.

Theory of operation
-------------------
:meth:`LiveIndex.start` returns at once. A background thread opens the index (the store of a
previous run is reused) and refreshes it; a watcher then keeps it fresh. Readers ask
:meth:`LiveIndex.snapshot` for one read transaction:

* when the store already holds a snapshot (a previous run built it), readers get it at once, even
  while the first refresh runs: it is a whole, older snapshot (INV-INDEX-1), replaced atomically.
  Readers open their own read-only connections and never wait for the builder thread, its
  imports or the write lock;
* before any snapshot exists, :class:`NotReady` says what the build is doing (files done of total);
* when the build failed (a cache folder that cannot be written, a broken ``mesh.toml``),
  :class:`NotReady` carries the reason; the watcher retries after the next change (a fixed
  ``mesh.toml`` brings the index up without a restart);
* when the index is damaged (INV-INDEX-8), :class:`NotReady` says so until the rebuild commits.
  The background thread first looks at the index on disk (``vet``: unchanged since its last
  writer noted it, else set aside or checked) before any reader reads. A reader whose files
  changed behind mesh's back while it read (``tampered``), or whose query fails with corruption
  (or fails otherwise and a check finds damage), reports it instead of answering: the index is
  set aside and rebuilt on a thread of its own, and the call hears that it is being rebuilt.

The watcher starts before the first refresh (it waits for the refresh's lock), so edits made
during a long first build are picked up right after it. When a snapshot is already on disk, both
start ``REFRESH_DELAY_S`` after the server: a session shorter than that never loads the builder.

:meth:`close` stops the watcher and the parse workers without waiting for a refresh in progress:
its transaction is never committed, so the previous snapshot stays (INV-INDEX-2). Nothing here
blocks a server's exit for long.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Final

import attrs

from ...workspace import cache_dir
from ._progress import Progress
from ..store._store import DB_NAME, SCHEMA_VERSION, IndexUnavailable, damage, tampered, vet

if TYPE_CHECKING:
    from ._build import Index, Summary
    from ._watch import Watcher

__all__ = ["LiveIndex", "NotReady", "StaticIndex"]

log = logging.getLogger("mesh.index")

#: With a snapshot on disk, how long after start the refresh and the watcher begin.
REFRESH_DELAY_S: Final = 2.0
#: How long closing waits for the watcher's thread.
CLOSE_WAIT_S: Final = 1.0
#: Read-only connections open at once, in use or idle. Readers beyond it wait for one to be given
#: back (tools hold one for a call; with the GIL more would not run faster). Bounded and kept
#: open: one connection per thread leaked two descriptors per dead worker thread of a daemon's
#: sessions (~750 after 100 sessions, then EMFILE), and closing connections while others read
#: leaves their descriptors on SQLite's unused list (~12 per 30 sessions).
READERS_MAX: Final = 16
#: How long a reader waits for a free connection before the call fails (a hang detector).
READER_WAIT_S: Final = 60.0


class NotReady(Exception):
    """No snapshot to read yet: the first build is running (``progress``) or failed (``failure``),
    or the index was found damaged (``damaged``: why) and is being rebuilt (or was: ``rebuilt``)."""

    def __init__(
        self, progress: Progress, failure: str = "", *, retrying: bool = False, damaged: str = "", rebuilt: bool = False
    ) -> None:
        self.progress = progress
        self.failure = failure
        #: A watcher will try again after the next change (else only a restart will).
        self.retrying = retrying
        self.damaged = damaged
        self.rebuilt = rebuilt
        doing = f"{progress.phase}: {progress.done} of {progress.total}"
        super().__init__(failure or (f"damaged ({damaged}), rebuilding" if damaged else doing))


@attrs.define
class _State:
    progress: Progress = attrs.field(factory=lambda: Progress("starting", 0, 0))
    #: Readers may read: a snapshot exists (from this run or a previous one).
    has_snapshot: bool = False
    #: A refresh of this run committed (the file at the path holds this run's snapshot).
    committed: bool = False
    #: Why the last build attempt failed ("" when it did not).
    failure: str = ""
    #: The first refresh of this run has ended (successfully or not).
    settled: bool = False
    #: Why the index was found damaged; readers hear it until a rebuilt one commits ("" when not).
    damaged: str = ""
    #: The inode of the damaged file while it is still at the path (None once set aside).
    damaged_inode: int | None = None


class LiveIndex:
    def __init__(
        self,
        root: Path,
        folder: Path | None = None,
        *,
        workers: int | None = None,
        watch: bool = True,
        reconcile_s: float | None = None,
        budget_s: float | None = None,
        worker_module: str | None = None,
        refresh_delay_s: float | None = None,
    ) -> None:
        """``reconcile_s``, ``budget_s``, ``worker_module``: the watcher's and the pool's defaults when None."""
        self.root = root.resolve()
        self._folder = folder
        self._workers = workers
        self._watch = watch
        self._reconcile_s = reconcile_s
        self._budget_s = budget_s
        self._worker_module = worker_module
        self._delay_s = refresh_delay_s
        self._closing = threading.Event()
        #: Ends the refresh delay early: closing, or damage found by a reader.
        self._wake = threading.Event()
        #: Set once the index on disk was looked at (or there was none): readers wait for it.
        self._vetted = threading.Event()
        self._started = False
        #: Rebuilding an index a reader found damaged (once per damage found).
        self._repair_thread: threading.Thread | None = None
        self._state = _State()
        self._lock = threading.Lock()
        self._settled = threading.Event()
        self._closed = False
        self.index: Index | None = None
        self.watcher: Watcher | None = None
        folder = folder if folder is not None else cache_dir(self.root)
        self._db_path = folder / DB_NAME
        #: Idle read-only connections, with the inode of the file each was opened on: a bounded
        #: pool, not one per thread (see ``READERS_MAX``).
        self._idle: list[tuple[sqlite3.Connection, int | None]] = []
        self._idle_lock = threading.Lock()
        self._readers_free = threading.BoundedSemaphore(READERS_MAX)
        self._thread = threading.Thread(target=self._run, name="mesh-index", daemon=True)

    # -- lifecycle --------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the background work. With a snapshot already on disk (a restart), the refresh and
        the watcher start ``refresh_delay_s`` later: readers are served meanwhile (once the index
        was looked at, see ``vet``), and a session that lasts less than that (a one-shot client,
        a test) costs no builder at all."""
        self._started = True
        self._thread.start()

    def wait_settled(self, timeout: float | None = None) -> bool:
        """Wait until the first refresh of this run ended (True) or ``timeout`` passed (False)."""
        return self._settled.wait(timeout)

    def close(self, timeout_s: float = CLOSE_WAIT_S) -> None:
        """Stop watching and parsing, waiting at most about ``timeout_s``.

        A refresh still running after that is abandoned: its transaction is never committed, and
        its thread (a daemon) and workers end with the process.
        """
        with self._lock:
            self._closed = True
            watcher = self.watcher
        self._closing.set()
        self._wake.set()
        self._vetted.set()
        with self._idle_lock:
            idle, self._idle = self._idle, []
        for connection, _ in idle:
            _close_quietly(connection)
        if watcher is not None:
            watcher.stop(timeout_s)
        repair = self._repair_thread
        repairing = repair is not None and repair.is_alive()
        if self._settled.is_set() and (watcher is None or not watcher.alive) and not repairing:
            self._release()

    def _release(self) -> None:
        with self._lock:
            index, self.index = self.index, None
        if index is not None:
            index.close()

    # -- reading ----------------------------------------------------------------------------------

    @property
    def progress(self) -> Progress:
        return self._state.progress

    @property
    def failure(self) -> str:
        return self._state.failure

    def status(self) -> dict[str, object]:
        """What ``mesh-mcp doctor`` reports of a running server's index (plain JSON values)."""
        state, watcher = self._state, self.watcher
        generation = self._generation()
        if state.damaged:
            phase = "indexing"  # being rebuilt
        elif state.has_snapshot or generation > 0:
            phase = "ready"
        elif state.failure:
            phase = "failed"
        else:
            phase = "indexing"
        if not self._watch:
            watching = "off"
        elif watcher is None:
            watching = "not started"  # the refresh delay, or the store could not be opened
        else:
            watching = "running" if watcher.alive else "stopped"
        return {
            "state": phase,
            "phase": state.progress.phase,
            "done": state.progress.done,
            "total": state.progress.total,
            "failure": state.failure,
            "generation": generation,
            "watcher": watching,
        }

    def _generation(self) -> int:
        """The committed generation (0 before any). Every daemon connection's hello asks, on the
        accept loop: an idle pooled reader answers; with none free (all 16 busy), a connection of
        its own, rather than wait for one."""
        state = self._state
        if not state.has_snapshot or state.damaged or not self._vetted.is_set():
            return _readable_generation(self._db_path)
        if not self._readers_free.acquire(blocking=False):
            return _readable_generation(self._db_path)
        self._readers_free.release()
        try:
            with self.snapshot() as db:
                return int(db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])
        except (NotReady, sqlite3.Error, RuntimeError, TypeError, ValueError):
            return 0

    @contextmanager
    def snapshot(self) -> Iterator:
        """A connection inside one read transaction; :class:`NotReady` before a snapshot exists.

        Readers use read-only connections of their own: reading never waits for the builder, its
        imports or the write lock (a hundred servers starting on one index all answer at once).
        They wait for the index on disk to be looked at (a stat; after an unclean stop, a check).
        A read whose files changed behind mesh's back, or whose query fails because the index is
        damaged, raises :class:`NotReady` saying so instead of answering (INV-INDEX-8).
        """
        state = self._state
        if self._started and not self._vetted.wait(READER_WAIT_S):
            raise NotReady(Progress("checking", 0, 0))
        if state.damaged:
            raise NotReady(state.progress, state.failure, damaged=state.damaged)
        if not state.has_snapshot and _readable_generation(self._db_path) > 0:
            state.has_snapshot = True  # a previous run's snapshot, complete on disk
        if not state.has_snapshot:
            why = tampered(self._db_path.parent)  # a snapshot on disk no longer readable (its meta damaged)
            if why:
                self._found_damaged(why, _inode(self._db_path))
                raise NotReady(state.progress, damaged=why)
            watcher = self.watcher
            raise NotReady(state.progress, state.failure, retrying=watcher is not None and watcher.alive)
        reader, replaced = self._take_reader()
        if replaced:
            # A store set aside and started anew holds no snapshot until a refresh commits one.
            state.has_snapshot = state.committed or _readable_generation(self._db_path) > 0
            if not state.has_snapshot:
                self._give_back(reader)
                raise NotReady(state.progress, state.failure)
        connection = reader[0]
        connection.execute("BEGIN")
        why = ""
        try:
            yield connection
        except Exception as exc:
            if not isinstance(exc, NotReady):
                why = damage(exc, self._db_path) or tampered(self._db_path.parent)
            if not why:
                raise
            self._found_damaged(why, reader[1])
            raise NotReady(self._state.progress, damaged=why) from exc
        else:
            why = tampered(self._db_path.parent)  # what was read may come from files changed behind mesh's back
            if why:
                self._found_damaged(why, reader[1])
                raise NotReady(self._state.progress, damaged=why)
        finally:
            try:
                connection.execute("COMMIT")  # a read transaction: ends it, whatever the reader did
            except sqlite3.Error:
                self._give_back(reader, broken=True)  # never reused
            else:
                self._give_back(reader, broken=bool(why))

    def _take_reader(self) -> tuple[tuple[sqlite3.Connection, int | None], bool]:
        """An idle reader of the file now at the path, else a new one (waiting while
        ``READERS_MAX`` are in use); and whether idle readers of a replaced file were closed."""
        if not self._readers_free.acquire(timeout=READER_WAIT_S):
            raise RuntimeError(f"all {READERS_MAX} index readers stayed busy for {READER_WAIT_S:g} s")
        try:
            return self._pick_reader()
        except BaseException:
            self._readers_free.release()
            raise

    def _pick_reader(self) -> tuple[tuple[sqlite3.Connection, int | None], bool]:
        now = _inode(self._db_path)
        stale: list[sqlite3.Connection] = []
        found = None
        with self._idle_lock:
            while self._idle and found is None:
                connection, inode = self._idle.pop()
                if inode == now:
                    found = (connection, inode)
                else:
                    stale.append(connection)
        for connection in stale:
            _close_quietly(connection)
        return found or (_reader(self._db_path), now), bool(stale)

    def _give_back(self, reader: tuple[sqlite3.Connection, int | None], *, broken: bool = False) -> None:
        try:
            with self._idle_lock:
                if not broken and not self._closed:
                    self._idle.append(reader)
                    return
            _close_quietly(reader[0])
        finally:
            self._readers_free.release()

    # -- the background thread --------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._vet()
        finally:
            self._vetted.set()
        if self._delay_s is None:
            self._delay_s = REFRESH_DELAY_S if _readable_generation(self._db_path) > 0 else 0.0
        if self._delay_s and not self._state.damaged:
            self._wake.wait(self._delay_s)
        if self._closing.is_set():
            self._settled.set()
            return
        # The builder, the parsers' dispatch and the watcher load here, off the server's start-up.
        from ._build import Index
        from ._pool import DEFAULT_BUDGET_S, WORKER_MODULE
        from ..store._store import IndexUnavailable
        from ._watch import DEFAULT_RECONCILE_S, Watcher
        from ._workspace import ConfigError

        try:
            index = Index(
                self.root,
                self._folder,
                workers=self._workers,
                budget_s=self._budget_s if self._budget_s is not None else DEFAULT_BUDGET_S,
                worker_module=self._worker_module or WORKER_MODULE,
                keep_workers=True,
                on_damaged=self._damaged,
                staged=True,
            )
        except IndexUnavailable as exc:
            self._fail(str(exc))
            self._settled.set()
            return
        with self._lock:
            closed = self._closed
            self.index = index
        if closed:
            self._release()
            self._settled.set()
            return
        if self._watch:
            # Watching starts before the first refresh, so an edit made while it runs is not lost.
            reconcile_s = self._reconcile_s if self._reconcile_s is not None else DEFAULT_RECONCILE_S
            watcher = Watcher(index, reconcile_s=reconcile_s, on_refresh=self._ready)
            with self._lock:
                if not self._closed:
                    self.watcher = watcher
                    watcher.start()
        if index.store.set_aside_why:
            self._damaged(index.store.set_aside_why)
        try:
            damaged = self._state
            if damaged.damaged and damaged.damaged_inode is not None:  # found by a reader meanwhile
                index.rebuild(damaged.damaged, self._on_progress, inode=damaged.damaged_inode)
            else:
                index.refresh(progress=self._on_progress)
        except (ConfigError, IndexUnavailable, OSError) as exc:
            self._fail(str(exc))
        except Exception as exc:  # a failed build must not take the server down
            log.exception("the first index build failed")
            self._fail(f"{type(exc).__name__}: {exc}")
        else:
            self._ready()
        finally:
            self._state.settled = True
            self._settled.set()
        with self._lock:
            closed = self._closed
        if closed and (self.watcher is None or not self.watcher.alive):
            self._release()

    def _vet(self) -> None:
        """Look at the index on disk before any reader reads it (see ``vet``)."""
        try:
            why = vet(self._db_path.parent)
        except (IndexUnavailable, OSError):
            return  # the builder says why the folder cannot be used
        if why:
            self._damaged(why)

    def _damaged(self, why: str) -> None:
        """The damaged index was set aside (by this process): readers hear it until the rebuild commits."""
        with self._lock:
            state = self._state
            state.damaged, state.damaged_inode = why, None
            state.has_snapshot = state.committed = False

    def _found_damaged(self, why: str, inode: int | None) -> None:
        """A reader met damage in the file of ``inode``: set it aside and rebuild it, once."""
        with self._lock:
            state = self._state
            if state.damaged:
                return  # already being rebuilt
            state.damaged, state.damaged_inode = why, inode
            state.has_snapshot = state.committed = False
            index, closed = self.index, self._closed
        log.warning("the workspace index is damaged (%s): it is set aside and rebuilt", why)
        if closed:
            return
        if index is None:
            self._wake.set()  # the background thread rebuilds before anything else
            return
        repair = threading.Thread(target=self._repair, args=(index, why, inode), name="mesh-index-repair", daemon=True)
        self._repair_thread = repair
        repair.start()

    def _repair(self, index: Index, why: str, inode: int | None) -> None:
        from ._workspace import ConfigError

        try:
            index.rebuild(why, self._on_progress, inode=inode)
        except (ConfigError, IndexUnavailable, OSError) as exc:
            self._fail(str(exc))
        except Exception as exc:  # the rebuild must not take the server down
            log.exception("rebuilding the damaged index failed")
            self._fail(f"{type(exc).__name__}: {exc}")
        else:
            self._ready()
        with self._lock:
            closed = self._closed
        if closed and self._settled.is_set() and (self.watcher is None or not self.watcher.alive):
            self._release()

    def _on_progress(self, progress: Progress) -> None:
        self._state.progress = progress

    def _ready(self, _summary: Summary | None = None) -> None:
        """A refresh committed: there is a snapshot, and no failure to report (a refresh of a
        damaged file still at the path commits nothing readers may read: its rebuild comes next)."""
        if _readable_generation(self._db_path) == 0:
            return
        with self._lock:
            state = self._state
            if state.damaged and state.damaged_inode is not None and _inode(self._db_path) == state.damaged_inode:
                return
            state.damaged, state.damaged_inode = "", None
            state.failure = ""
            state.committed = True
            state.has_snapshot = True

    def _fail(self, reason: str) -> None:
        log.warning("the workspace index is not available: %s", reason)
        self._state.failure = reason


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


def _close_quietly(connection: sqlite3.Connection) -> None:
    try:
        connection.close()
    except sqlite3.Error:
        pass


def _reader(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
    connection.execute("PRAGMA busy_timeout = 5000")
    return connection


def _readable_generation(path: Path) -> int:
    """The committed generation of the index at ``path`` if it is of this schema, else 0 (no lock taken)."""
    if not path.is_file():
        return 0
    try:
        connection = _reader(path)
        try:
            rows = dict(connection.execute("SELECT key, value FROM meta WHERE key IN ('schema', 'generation')"))
        finally:
            connection.close()
    except (sqlite3.Error, UnicodeDecodeError):
        return 0  # unreadable (damaged: found when a reader or the builder reads it)
    if rows.get("schema") != SCHEMA_VERSION:
        return 0
    try:
        return int(rows.get("generation", "0"))
    except ValueError:
        return 0


class StaticIndex:
    """An index read as it is, without a watcher or a background build (one-shot commands, tests)."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.root = index.root

    @contextmanager
    def snapshot(self) -> Iterator:
        """One read transaction; a query failing on a damaged index sets it aside and rebuilds it
        at once, and raises :class:`NotReady` saying so (the call is to be made again)."""
        store = self.index.store
        cause = None
        try:
            with store.snapshot() as db:
                yield db
        except Exception as exc:
            why = "" if isinstance(exc, NotReady) else store.damaged(exc) or tampered(store.folder)
            if not why:
                raise
            cause = exc
        else:
            why = tampered(store.folder)  # what was read may come from files changed behind mesh's back
        if why:
            log.warning("the workspace index is damaged (%s): it is set aside and rebuilt", why)
            self.index.rebuild(why)
            raise NotReady(Progress("done", 0, 0), damaged=why, rebuilt=True) from cause
