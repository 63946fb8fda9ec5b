"""The tool worker pool: lazy, bounded, daemon threads."""

from __future__ import annotations

import threading

import pytest

from mesh.drivers._workers import WorkerPool


def test_threads_start_only_when_needed_and_never_past_the_size() -> None:
    pool = WorkerPool(2, name="t")
    release = threading.Event()
    started = threading.Semaphore(0)
    running = []
    peak = []
    lock = threading.Lock()

    def job(n: int) -> None:
        with lock:
            running.append(n)
            peak.append(len(running))
        started.release()
        release.wait(5)
        with lock:
            running.remove(n)

    for n in range(5):
        pool.submit(job, n)
    assert started.acquire(timeout=5) and started.acquire(timeout=5)
    assert not started.acquire(timeout=0.1)  # the third job waits for a free worker
    assert len(pool._threads) == 2 and all(thread.daemon for thread in pool._threads)
    release.set()
    for _ in range(3):
        assert started.acquire(timeout=5)
    assert max(peak) == 2
    pool.shutdown()
    for thread in pool._threads:
        thread.join(5)
        assert not thread.is_alive()


def test_an_idle_worker_is_reused() -> None:
    pool = WorkerPool(4)
    done = threading.Event()
    pool.submit(done.set)
    assert done.wait(5)
    # Let the worker go back to waiting, then submit again: no second thread.
    for _ in range(100):
        if pool._idle == 1:
            break
        threading.Event().wait(0.01)
    again = threading.Event()
    pool.submit(again.set)
    assert again.wait(5) and len(pool._threads) == 1
    pool.shutdown()


def test_size_must_be_positive() -> None:
    with pytest.raises(ValueError):
        WorkerPool(0)
