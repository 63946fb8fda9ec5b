"""One workspace's index kept live for a server: built in the background, then watched.

Theory of operation
-------------------
:meth:`LiveIndex.start` returns at once. A background thread opens the index (the store of a
previous run is reused) and refreshes it; a watcher then keeps it fresh. Readers ask
:meth:`LiveIndex.snapshot` for one read transaction:

* when the store already holds a snapshot (a previous run built it), readers get it at once, even
  while the first refresh runs: it is a whole, older snapshot (INV-INDEX-1), replaced atomically;
* before any snapshot exists, :class:`NotReady` says what the build is doing (files done of total);
* when the build failed (a cache folder that cannot be written, a broken ``mesh.toml``),
  :class:`NotReady` carries the reason; the watcher retries after the next change (a fixed
  ``mesh.toml`` brings the index up without a restart).

The watcher starts before the first refresh (it waits for the refresh's lock), so edits made
during a long first build are picked up right after it.

:meth:`close` stops the watcher and the parse workers without waiting for a refresh in progress:
its transaction is never committed, so the previous snapshot stays (INV-INDEX-2). Nothing here
blocks a server's exit for long.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Final

import attrs

from ._progress import Progress

if TYPE_CHECKING:
    from ._build import Index, Summary
    from ._watch import Watcher

__all__ = ["LiveIndex", "NotReady", "StaticIndex"]

log = logging.getLogger("mesh.index")

#: How long the first reader waits for the store to open (it takes milliseconds, unless another
#: process holds the write lock).
OPEN_WAIT_S: Final = 5.0
#: How long closing waits for the watcher's thread.
CLOSE_WAIT_S: Final = 1.0


class NotReady(Exception):
    """No snapshot to read yet: the first build is running (``progress``) or failed (``failure``)."""

    def __init__(self, progress: Progress, failure: str = "", *, retrying: bool = False) -> None:
        self.progress = progress
        self.failure = failure
        #: A watcher will try again after the next change (else only a restart will).
        self.retrying = retrying
        super().__init__(failure or f"{progress.phase}: {progress.done} of {progress.total}")


@attrs.define
class _State:
    progress: Progress = attrs.field(factory=lambda: Progress("starting", 0, 0))
    #: Readers may read: a snapshot exists (from this run or a previous one).
    has_snapshot: bool = False
    #: Why the last build attempt failed ("" when it did not).
    failure: str = ""
    #: The first refresh of this run has ended (successfully or not).
    settled: bool = False


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
    ) -> None:
        """``reconcile_s``, ``budget_s``, ``worker_module``: the watcher's and the pool's defaults when None."""
        self.root = root.resolve()
        self._folder = folder
        self._workers = workers
        self._watch = watch
        self._reconcile_s = reconcile_s
        self._budget_s = budget_s
        self._worker_module = worker_module
        self._state = _State()
        self._lock = threading.Lock()
        self._settled = threading.Event()
        #: Set once the store is open and it is known whether a snapshot exists.
        self._opened = threading.Event()
        self._closed = False
        self.index: Index | None = None
        self.watcher: Watcher | None = None
        self._thread = threading.Thread(target=self._run, name="mesh-index", daemon=True)

    # -- lifecycle --------------------------------------------------------------------------------

    def start(self) -> None:
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
        if watcher is not None:
            watcher.stop(timeout_s)
        if self._settled.is_set() and (watcher is None or not watcher.alive):
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

    @contextmanager
    def snapshot(self) -> Iterator:
        """A connection inside one read transaction; :class:`NotReady` before a snapshot exists."""
        state = self._state
        if not state.has_snapshot and self._thread.is_alive():
            # Just started: opening the store takes milliseconds; a call arriving first waits for
            # it rather than hearing "still indexing" about an index that is complete on disk.
            self._opened.wait(OPEN_WAIT_S)
        if not state.has_snapshot or self.index is None:
            watcher = self.watcher
            raise NotReady(state.progress, state.failure, retrying=watcher is not None and watcher.alive)
        with self.index.store.snapshot() as db:
            yield db

    # -- the background thread --------------------------------------------------------------------

    def _run(self) -> None:
        # The builder, the parsers' dispatch and the watcher load here, off the server's start-up.
        from ._build import Index
        from ._pool import DEFAULT_BUDGET_S, WORKER_MODULE
        from ._store import IndexUnavailable
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
            )
        except IndexUnavailable as exc:
            self._fail(str(exc))
            self._opened.set()
            self._settled.set()
            return
        with self._lock:
            closed = self._closed
            self.index = index
        if closed:
            self._release()
            self._opened.set()
            self._settled.set()
            return
        self._state.has_snapshot = _has_snapshot(index)
        self._opened.set()
        if self._watch:
            # Watching starts before the first refresh, so an edit made while it runs is not lost.
            reconcile_s = self._reconcile_s if self._reconcile_s is not None else DEFAULT_RECONCILE_S
            watcher = Watcher(index, reconcile_s=reconcile_s, on_refresh=self._ready)
            with self._lock:
                if not self._closed:
                    self.watcher = watcher
                    watcher.start()
        try:
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

    def _on_progress(self, progress: Progress) -> None:
        self._state.progress = progress

    def _ready(self, _summary: Summary | None = None) -> None:
        """A refresh committed: there is a snapshot, and no failure to report."""
        self._state.failure = ""
        self._state.has_snapshot = True

    def _fail(self, reason: str) -> None:
        log.warning("the workspace index is not available: %s", reason)
        self._state.failure = reason


def _has_snapshot(index: Index) -> bool:
    """Whether a previous run left a committed snapshot (generation 1 or later)."""
    try:
        return index.store.generation() > 0
    except Exception:  # noqa: BLE001 - a store without its meta row has no snapshot to serve
        return False


class StaticIndex:
    """An index read as it is, without a watcher or a background build (one-shot commands, tests)."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.root = index.root

    @contextmanager
    def snapshot(self) -> Iterator:
        with self.index.store.snapshot() as db:
            yield db
