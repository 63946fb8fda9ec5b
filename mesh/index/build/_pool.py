"""Parsing in worker processes (tree-sitter holds the GIL), each file under a time budget.

Theory of operation
-------------------
Each worker is a process with a duplex pipe. The parent keeps up to ``DEPTH`` tasks outstanding
per worker and hands out the next task as each outcome comes back, so fast files never wait for a
slow one on another worker. Inside a worker, an interval timer interrupts a file that overruns
the budget (Python-level work is interrupted at once; a long C-level parse at its end) and the
file is reported as failed. Should a worker stop answering altogether (stuck in C code, or
killed), the parent waits ``budget + GRACE_S`` at most (plus ``START_GRACE_S`` for a fresh
worker's first answer: it starts an interpreter and imports the extractors, each file's extractor
before that file's budget starts), kills it, reports the file it was on as failed, puts its other outstanding tasks back in the queue and starts a replacement. Results
arrive in completion order; the caller sorts if it needs an order.

Small batches (a watcher's few files) are not worth starting processes for:
:func:`run_inline` does them in the calling thread with the same outcome shape.
"""

from __future__ import annotations

import collections
import logging
import multiprocessing.connection
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final, Self

from .._facts import FileFacts
from ..parse import preload
from ._work import Outcome, Task, process

__all__ = ["FileBudgetExceeded", "ParsePool", "run_inline", "worker_loop", "worker_main"]

log = logging.getLogger("mesh.index")

DEPTH: Final = 8
GRACE_S: Final = 10.0
#: More time for a fresh worker's first answer: starting an interpreter and importing the extractors.
START_GRACE_S: Final = 30.0
DEFAULT_BUDGET_S: Final = 5.0
WORKER_MODULE: Final = "mesh.index.build._worker_main"


class FileBudgetExceeded(BaseException):
    """Raised inside a worker by its interval timer (a BaseException: extractors cannot swallow it)."""


def _alarm(signum, frame) -> None:
    raise FileBudgetExceeded


def _over_budget(task: Task, budget_s: float) -> Outcome:
    error = f"parse took longer than the {budget_s:g} s budget; text not indexed"
    return Outcome(task.path, 0, 0, b"", "failed", facts=FileFacts(language="", error=error))


def worker_loop(
    connection: multiprocessing.connection.Connection,
    root: str,
    budget_s: float,
    processor: Callable[[Path, Task], Outcome] = process,
) -> None:
    """A worker's loop: a task in, an outcome out, until the parent says stop or goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when workers stop
    signal.signal(signal.SIGALRM, _alarm)
    base = Path(root)
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            preload(task.path)  # outside the file's budget
            signal.setitimer(signal.ITIMER_REAL, budget_s)
            outcome = processor(base, task)
        except FileBudgetExceeded:
            outcome = _over_budget(task, budget_s)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        try:
            connection.send(outcome)
        except OSError:  # the parent is gone
            return


def run_inline(root: Path, tasks: Iterable[Task], on_outcome: Callable[[Outcome], None]) -> None:
    """Process ``tasks`` in this thread (no budget: for a handful of files)."""
    for task in tasks:
        on_outcome(process(root, task))


class ParsePool:
    """A fixed set of worker processes for one workspace root."""

    def __init__(
        self,
        root: Path,
        workers: int | None = None,
        budget_s: float = DEFAULT_BUDGET_S,
        worker_module: str = WORKER_MODULE,
    ) -> None:
        self.worker_module = worker_module
        self.root = root
        self.size = max(1, workers or os.cpu_count() or 1)
        self.budget_s = budget_s
        self._workers: list[_Worker] = []

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> _Worker:
        # A fresh interpreter per worker (not fork: the server has threads; not multiprocessing's
        # spawn: it re-imports the caller's __main__), talking over one socket pair.
        ours, theirs = socket.socketpair()
        proc = subprocess.Popen(
            [sys.executable, "-m", self.worker_module, str(theirs.fileno()), str(self.root), repr(self.budget_s)],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            close_fds=True,
        )
        theirs.close()
        return _Worker(proc, multiprocessing.connection.Connection(ours.detach()))

    def run(self, tasks: Iterable[Task], on_outcome: Callable[[Outcome], None]) -> None:
        """Process every task; ``on_outcome`` is called in this thread for each, in completion order."""
        queue = collections.deque(tasks)
        if not queue:
            return
        while len(self._workers) < min(self.size, len(queue)):
            self._workers.append(self._start())
        busy = {worker.connection: worker for worker in self._workers}
        for worker in self._workers:
            self._feed(worker, queue)
        while any(worker.outstanding for worker in self._workers):
            waiting = [w.connection for w in self._workers if w.outstanding]
            ready = multiprocessing.connection.wait(waiting, timeout=1.0)
            now = time.monotonic()
            for connection in ready:
                worker = busy[connection]
                try:
                    outcome = connection.recv()
                except (EOFError, OSError):
                    self._replace(worker, queue, on_outcome, busy, "the worker process died")
                    continue
                worker.outstanding.popleft()
                worker.since = now
                worker.answered = True
                on_outcome(outcome)
                self._feed(worker, queue)
            for worker in list(self._workers):
                # a fresh worker first starts an interpreter and imports the extractors (compiled
                # from source where no bytecode is kept): under load that is seconds, not a hang
                limit = self.budget_s + GRACE_S + (0.0 if worker.answered else START_GRACE_S)
                if worker.outstanding and now - worker.since > limit:
                    self._replace(worker, queue, on_outcome, busy, "the worker stopped answering")

    def _feed(self, worker: _Worker, queue: collections.deque[Task]) -> None:
        while queue and len(worker.outstanding) < DEPTH:
            task = queue.popleft()
            if not worker.outstanding:
                worker.since = time.monotonic()
            worker.connection.send(task)
            worker.outstanding.append(task)

    def _replace(self, worker, queue, on_outcome, busy, why: str) -> None:
        culprit = worker.outstanding.popleft()
        log.warning("parsing %s: %s; it is recorded as failed", culprit.path, why)
        on_outcome(
            Outcome(culprit.path, 0, 0, b"", "failed", facts=FileFacts(language="", error=f"parse failed: {why}"))
        )
        queue.extendleft(reversed(worker.outstanding))
        worker.kill()
        del busy[worker.connection]
        index = self._workers.index(worker)
        fresh = self._workers[index] = self._start()
        busy[fresh.connection] = fresh
        self._feed(fresh, queue)

    def close(self) -> None:
        for worker in self._workers:
            worker.stop()
        self._workers.clear()


class _Worker:
    def __init__(self, proc, connection) -> None:
        self.proc = proc
        self.connection = connection
        self.outstanding: collections.deque[Task] = collections.deque()
        self.since = time.monotonic()
        #: It has sent an outcome (it is past its start-up).
        self.answered = False

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.connection.close()

    def stop(self) -> None:
        try:
            self.connection.send(None)
        except OSError:
            pass
        try:
            self.proc.wait(2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.connection.close()


def worker_main(processor: Callable[[Path, Task], Outcome] = process) -> None:
    """The entry point of a worker process: ``python -m <module> FD ROOT BUDGET_S``."""
    worker_loop(multiprocessing.connection.Connection(int(sys.argv[1])), sys.argv[2], float(sys.argv[3]), processor)
