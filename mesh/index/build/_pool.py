"""Parsing in worker processes (tree-sitter holds the GIL), each file under a time budget.

Theory of operation
-------------------
Each worker is a process with a duplex pipe. The parent keeps up to ``DEPTH`` tasks outstanding
per worker and hands out the next task as each outcome comes back, so fast files never wait for a
slow one on another worker. Inside a worker, an interval timer interrupts a file that overruns
the budget (Python-level work is interrupted at once; a long C-level parse at its end) and the
file is reported as failed. Should a worker stop answering altogether (stuck in C code, or
killed), the parent waits ``budget + GRACE_S`` at most (plus ``START_GRACE_S`` for a fresh
worker's first answer: it starts an interpreter and imports the extractors; and again while the
file's language compiles its queries, before that file's budget starts), kills it, reports the file it was on as failed, puts its other outstanding tasks back in the queue and starts a replacement. Results
arrive in completion order; the caller sorts if it needs an order.

Each language's files go to one worker (its *home*): a worker compiles a language's tree-sitter
queries when its first file of that language comes (``preload``), and that costs 0.1-1.1 s per
language (:data:`COMPILE_S`), more than parsing a small workspace's files. A worker with nothing
of its own left takes a language no worker has yet (the costliest first, one compilation ahead
at a time, so that the compilations spread over the workers); an idle worker takes files of
another worker's language only when more than :data:`STEAL_MIN` of them are left (a large tree of
one language still keeps every worker busy; INV-INDEX-12). :meth:`ParsePool.warmup_s` estimates
how long the start-up and compilations still ahead take, for the first call's wait (INV-FIRST-4).

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
from ..parse import language_of, preload
from ..parse._ts import GRAMMARS
from ._work import Outcome, Task, process

__all__ = ["FileBudgetExceeded", "ParsePool", "run_inline", "worker_loop", "worker_main"]

log = logging.getLogger("mesh.index")

DEPTH: Final = 8
GRACE_S: Final = 10.0
#: More time for a fresh worker's first answer: starting an interpreter and importing the extractors.
START_GRACE_S: Final = 30.0
DEFAULT_BUDGET_S: Final = 5.0
WORKER_MODULE: Final = "mesh.index.build._worker_main"
#: Seconds a worker takes to compile a language's queries (importing its extractor included), as
#: measured with ``preload`` in a fresh process on a 2-core machine (C#, TypeScript, Rust, Python, Go
#: and Java quiet; the others under load, roughly scaled to C#'s quiet figure: docs/performance.md);
#: a language with a grammar not named here is taken at :data:`COMPILE_S_OTHER`. Only an estimate for
#: the first call's wait, and the order in which languages are handed out: never part of any output.
COMPILE_S: Final = {
    "csharp": 1.1, "kotlin": 1.1, "cpp": 1.0, "typescript": 0.5, "tsx": 0.5, "rust": 0.35, "ruby": 0.3,
    "python": 0.25, "javascript": 0.2, "java": 0.15, "php": 0.15, "go": 0.1,
}  # fmt: skip
COMPILE_S_OTHER: Final = 0.5
#: Seconds a fresh worker takes before it compiles anything (an interpreter, the extractors' imports).
WORKER_START_S: Final = 0.25
#: An idle worker takes files of a language another worker compiled only when more than this many are left.
STEAL_MIN: Final = 32


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


def compile_key(path: str) -> str | None:
    """The language whose queries a worker compiles to parse ``path`` (None: no grammar, no queries)."""
    language = language_of(path)
    return language if language in GRAMMARS else None


def compile_s(language: str) -> float:
    return COMPILE_S.get(language, COMPILE_S_OTHER)


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
        #: The tasks of the run in progress (None between runs).
        self._queue: _Queues | None = None

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
        queue = _Queues(tasks)
        if not queue:
            return
        self._queue = queue
        try:
            self._run(queue, on_outcome)
        finally:
            self._queue = None

    def warmup_s(self, tasks: Iterable[Task] | None = None) -> float:
        """About how long the query compilations still ahead take before the files left are only
        parsed: the busiest worker's (a fresh worker's start-up, the languages it was handed and
        has not answered a file of yet) plus the languages no worker has yet, spread over the
        workers. ``tasks``: of a run about to start (else the run in progress)."""
        queue = _Queues(tasks) if tasks is not None else self._queue
        workers = list(self._workers)
        busiest = max((worker.warmup_s() for worker in workers), default=WORKER_START_S)
        if queue is None:
            return busiest if any(not w.answered for w in workers) else 0.0
        homed = {language for worker in workers for language in worker.languages}
        unclaimed = sum(compile_s(language) for language in queue.languages() if language not in homed)
        return busiest + unclaimed / self.size

    def _run(self, queue: _Queues, on_outcome: Callable[[Outcome], None]) -> None:
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
                task = worker.outstanding.popleft()
                worker.since = now
                worker.answered = True
                language = compile_key(task.path)
                if language is not None:
                    worker.languages[language] = True  # compiled before this file was parsed
                on_outcome(outcome)
                self._feed(worker, queue)
            for worker in list(self._workers):
                if worker.outstanding and now - worker.since > worker.limit_s(self.budget_s):
                    self._replace(worker, queue, on_outcome, busy, "the worker stopped answering")

    def _feed(self, worker: _Worker, queue: _Queues) -> None:
        while len(worker.outstanding) < DEPTH:
            task = queue.next_for(worker, self._workers)
            if task is None:
                break
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
        queue.put_back(worker.outstanding)
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
        self.started = self.since = time.monotonic()
        #: It has sent an outcome (it is past its start-up).
        self.answered = False
        #: The languages it was handed a file of: True once it answered one (its queries compiled).
        self.languages: dict[str, bool] = {}

    def warmup_s(self) -> float:
        """Its compilations still ahead, and what is left of its start-up if it has not answered yet."""
        pending = sum(compile_s(language) for language, compiled in self.languages.items() if not compiled)
        return pending + (0.0 if self.answered else max(0.0, WORKER_START_S - (time.monotonic() - self.started)))

    def limit_s(self, budget_s: float) -> float:
        """How long its head task may go unanswered before it is taken as hung: the budget and
        :data:`GRACE_S`, plus :data:`START_GRACE_S` before its first answer (it starts an interpreter
        and imports the extractors, compiled from source where no bytecode is kept), plus
        :data:`START_GRACE_S` while the head task's language is still compiling (``preload``, outside
        the budget: about a second on a quiet machine, ten or more under a heavy load)."""
        limit = budget_s + GRACE_S + (0.0 if self.answered else START_GRACE_S)
        if self.outstanding and self.languages.get(compile_key(self.outstanding[0].path)) is False:
            limit += START_GRACE_S
        return limit

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


class _Queues:
    """A run's tasks by the language whose queries they need (None: none), each in the given order."""

    def __init__(self, tasks: Iterable[Task]) -> None:
        self._by_language: dict[str | None, collections.deque[Task]] = {}
        for task in tasks:
            self._by_language.setdefault(compile_key(task.path), collections.deque()).append(task)

    def __len__(self) -> int:
        return sum(len(tasks) for tasks in self._by_language.values())

    def languages(self) -> list[str]:
        return [language for language, tasks in self._by_language.items() if language is not None and tasks]

    def put_back(self, tasks: Iterable[Task]) -> None:
        """Tasks handed out and not done (a worker replaced): first again, in their order."""
        for task in reversed(list(tasks)):
            self._by_language.setdefault(compile_key(task.path), collections.deque()).appendleft(task)

    def next_for(self, worker: _Worker, workers: list[_Worker]) -> Task | None:
        """The next task for ``worker``: a file of a language it has; else, with no compilation of
        its own ahead, of a language no worker has (the costliest); else of no language; else, idle, a file
        of the language with the most files left, if more than :data:`STEAL_MIN` are (or if no other
        worker has work: files put back by a replaced worker must not wait for a worker that is idle)."""
        for language, tasks in self._by_language.items():
            if tasks and language is not None and language in worker.languages:
                return tasks.popleft()
        homed = {language for other in workers for language in other.languages}
        if all(worker.languages.values()):  # nothing of its own still compiling: the next compilation starts early
            free = [language for language in self.languages() if language not in homed]
            if free:
                language = max(free, key=lambda name: (compile_s(name), name))
                worker.languages[language] = False
                return self._by_language[language].popleft()
        if self._by_language.get(None):
            return self._by_language[None].popleft()
        if not worker.outstanding:
            language, tasks = max(
                ((name, tasks) for name, tasks in self._by_language.items() if name is not None and tasks),
                key=lambda item: (len(item[1]), item[0]),
                default=(None, collections.deque()),
            )
            alone = not any(other.outstanding for other in workers if other is not worker)
            if language is not None and (len(tasks) > STEAL_MIN or alone):  # alone: nobody else would take them
                worker.languages[language] = False
                return tasks.popleft()
        return None


def worker_main(processor: Callable[[Path, Task], Outcome] = process) -> None:
    """The entry point of a worker process: ``python -m <module> FD ROOT BUDGET_S``."""
    worker_loop(multiprocessing.connection.Connection(int(sys.argv[1])), sys.argv[2], float(sys.argv[3]), processor)
