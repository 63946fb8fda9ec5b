"""A small pool of daemon threads for tool calls.

Lighter than ``concurrent.futures`` on the per-call path (no ``Future``, one C-level queue), started
lazily (a session that never calls a tool starts no thread, and start-up imports less), and made
of daemon threads: a tool that ignores its cancellation cannot hold the process open at exit.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["WorkerPool"]

_STOP = None


class WorkerPool:
    def __init__(self, workers: int, name: str = "mesh-tool") -> None:
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self._size = workers
        self._name = name
        self._jobs: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]] | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on a worker; its exceptions are the caller's to catch inside ``fn``."""
        with self._lock:
            if self._idle <= 0 and len(self._threads) < self._size:
                thread = threading.Thread(target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True)
                self._threads.append(thread)
                thread.start()
            else:
                self._idle -= 1
        self._jobs.put((fn, args))

    def shutdown(self) -> None:
        """Let every worker finish its current job and stop; does not wait for them."""
        for _ in self._threads:
            self._jobs.put(_STOP)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is _STOP:
                return
            fn, args = job
            fn(*args)
            with self._lock:
                self._idle += 1
