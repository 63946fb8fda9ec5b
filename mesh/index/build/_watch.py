"""Keeping the index fresh: file-system events feed changed-only refreshes; a timer reconciles.

Theory of operation
-------------------
A thread runs ``watchfiles.watch`` over the workspace root. Each batch of events (debounced, so
an editor's save-by-rename arrives as one batch) becomes one :meth:`Index.refresh` limited to the
paths named, so a saved edit is in a committed snapshot a few tens of milliseconds after the
event. Watchers drop events (overflowing kernel queues, editors, network mounts), so every
``reconcile_s`` seconds without events, and after any failed refresh, a full refresh compares
every file with the index; unchanged files cost one ``stat`` each. A refresh that fails (a
broken ``mesh.toml`` mid-edit, a full disk) is logged and leaves the previous snapshot in place.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

import watchfiles

from ._build import Index, Summary

__all__ = ["Watcher"]

log = logging.getLogger("mesh.index")

DEFAULT_RECONCILE_S: Final = 300.0
DEBOUNCE_MS: Final = 50
STEP_MS: Final = 10


class Watcher:
    """Runs one thread that keeps ``index`` in step with its files until :meth:`stop`."""

    def __init__(
        self,
        index: Index,
        *,
        reconcile_s: float = DEFAULT_RECONCILE_S,
        on_refresh: Callable[[Summary], None] | None = None,
    ) -> None:
        self.index = index
        self.reconcile_s = reconcile_s
        self.on_refresh = on_refresh or (lambda _: None)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mesh-watch", daemon=True)
        self._ready = threading.Event()
        self.last_error = ""

    def start(self) -> None:
        self._thread.start()
        self._ready.wait(10)

    def stop(self, timeout_s: float = 10.0) -> None:
        """Ask the thread to stop; wait for it at most ``timeout_s`` (a refresh may be running)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        root = self.index.root
        last_full = time.monotonic()
        need_full = False
        self._ready.set()
        try:
            for changes in watchfiles.watch(
                root,
                stop_event=self._stop,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                rust_timeout=int(min(self.reconcile_s, 60.0) * 1000),
                yield_on_timeout=True,
                raise_interrupt=False,
                ignore_permission_denied=True,
            ):
                now = time.monotonic()
                if changes:
                    paths = sorted({_relative(root, path) for _, path in changes} - {None})
                    if paths:
                        need_full = not self._refresh(paths) or need_full
                if need_full or now - last_full >= self.reconcile_s:
                    need_full = not self._refresh(None)
                    last_full = time.monotonic()
        except Exception:  # the watcher must not take the server down; reconciliation stops with it
            log.exception("the index watcher stopped; the index is refreshed only on restart")
            self.last_error = "the watcher stopped (see the log)"

    def _refresh(self, paths: list[str] | None) -> bool:
        try:
            summary = self.index.refresh(changed=paths, counted=False)  # it reads no count
        except Exception as exc:  # noqa: BLE001 - a failed refresh keeps the last snapshot; the next one retries
            self.last_error = f"{type(exc).__name__}: {exc}"
            log.warning("index refresh failed, the previous snapshot stays: %s", self.last_error)
            return False
        self.last_error = ""
        if summary.parsed or summary.deleted:
            log.info("index generation %d: %d parsed, %d deleted", summary.generation, summary.parsed, summary.deleted)
        self.on_refresh(summary)
        return True


def _relative(root: Path, path: str) -> str | None:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return None
