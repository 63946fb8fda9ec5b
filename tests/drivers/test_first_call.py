"""The first call on a workspace without a snapshot: it waits (bounded, cancellable) with progress.

Through the real pump over pipes, with a source that becomes ready when the test says so.
INV-FIRST-1, INV-FIRST-2, INV-FIRST-3, INV-PROGRESS-1 (the driver's half); the core's half is
tests/protocol/test_progress.py, the real binary's tests/journeys/test_first_call_journey.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from mesh.drivers._pump import PROGRESS_INTERVAL_S, ConnectionPump, _Progress, _Reporter
from mesh.drivers._workers import WorkerPool
from mesh.drivers.stdio import catalogue
from mesh.index import Index, Progress
from mesh.index.build._live import NotReady
from mesh.protocol import ServerSession, SessionConfig
from mesh.tools import builtin_registry
from mesh.tools._builtin import (
    BUILD_FILES_PER_S,
    FIRST_ANSWER_S,
    FIRST_CALL_WAIT_S,
    POLL_S,
    SCAN_WAIT_S,
    WALK_WAIT_S,
    beyond_wait,
    first_call_wait_s,
)
from tests.drivers.test_pump import Pipe
from tests.support.memory import initialize, notification, request

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"


@pytest.fixture(scope="module")
def fixture_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    index = Index(FIXTURE, tmp_path_factory.mktemp("first-call-index"), workers=1)
    index.refresh()
    yield index
    index.close()


class Becoming:
    """A source still building: each look advances the parse by ``step`` files of ``total``; ready
    (the fixture's snapshot) once ``ready`` is set, or after ``ready_after`` looks."""

    root = FIXTURE

    def __init__(
        self, index: Index | None, *, total: int = 400, step: int = 40, ready_after: int | None = None
    ) -> None:
        self.index = index
        self.total, self.step, self.ready_after = total, step, ready_after
        self.looks = 0
        self.ready = threading.Event()

    @contextmanager
    def snapshot(self) -> Iterator[Any]:
        self.looks += 1
        if self.ready_after is not None and self.looks > self.ready_after:
            self.ready.set()
        if not self.ready.is_set() or self.index is None:
            done = min(self.total, (self.looks - 1) * self.step)
            raise NotReady(Progress("parsing" if self.looks > 1 else "walking", done, self.total if done else 0))
        with self.index.store.snapshot() as db:
            yield db


def serve(
    source: Becoming, wait_s: float, data: bytes, *, end: bool = True
) -> tuple[Pipe, list[int], threading.Thread, WorkerPool]:
    registry = builtin_registry(source, wait_s=wait_s)
    pipe = Pipe()
    workers = WorkerPool(2)
    pump = ConnectionPump(
        session=ServerSession(SessionConfig(), catalogue(registry)),
        registry=registry,
        workspace=FIXTURE,
        in_fd=pipe.in_r,
        out_fd=pipe.out_w,
        workers=workers,
        name="test",
        shutdown_grace_s=0.5,
    )
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(pump.run()), daemon=True)
    thread.start()
    pipe.put(data)
    if end:
        pipe.put(b"")
    return pipe, result, thread, workers


def finish(pipe: Pipe, thread: threading.Thread, workers: WorkerPool, timeout: float = 10.0) -> list[dict]:
    thread.join(timeout)
    assert not thread.is_alive()
    workers.shutdown()
    pipe.done()
    return pipe.answers()


def call(request_id: Any, name: str, arguments: dict[str, Any], token: Any = None) -> bytes:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return request(request_id, "tools/call", params)


def progress_frames(frames: list[dict]) -> list[dict]:
    return [frame["params"] for frame in frames if frame.get("method") == "notifications/progress"]


def test_inv_first_1_a_workspace_indexed_within_the_bound_answers_normally_with_progress(fixture_index: Index) -> None:
    """INV-FIRST-1, INV-PROGRESS-1."""
    source = Becoming(fixture_index, ready_after=6)  # ready after ~0.6 s of looking
    pipe, result, thread, workers = serve(
        source, 10.0, initialize() + call(1, "grpc_trace", {"target": "Orders"}, "tok")
    )
    frames = finish(pipe, thread, workers)
    assert result == [0]
    answer = frames[-1]
    assert answer["id"] == 1 and answer["result"]["isError"] is False
    assert "Still indexing" not in answer["result"]["content"][0]["text"]
    progress = progress_frames(frames)
    assert progress, "a call with a token hears progress while it waits"
    assert all(item["progressToken"] == "tok" for item in progress)
    values = [item["progress"] for item in progress]
    assert values == sorted(set(values))  # strictly rising (INV-PROGRESS-2)
    assert progress[-1]["message"].startswith("Indexing the workspace: ")
    # Every progress frame precedes the answer (INV-PROGRESS-1).
    assert frames.index(answer) > max(
        i for i, frame in enumerate(frames) if frame.get("method") == "notifications/progress"
    )


def test_inv_progress_1_no_token_no_progress_while_waiting(fixture_index: Index) -> None:
    source = Becoming(fixture_index, ready_after=4)
    pipe, _result, thread, workers = serve(source, 10.0, initialize() + call(1, "grpc_trace", {"target": "Orders"}))
    frames = finish(pipe, thread, workers)
    assert progress_frames(frames) == []
    assert frames[-1]["result"]["isError"] is False


def test_inv_first_1_past_the_bound_a_tool_says_still_indexing(fixture_index: Index) -> None:
    source = Becoming(fixture_index, total=40, step=1)  # never ready, though always near the end
    started = time.monotonic()
    pipe, _result, thread, workers = serve(source, 0.6, initialize() + call(1, "dependents", {"target": "orders"}, 5))
    frames = finish(pipe, thread, workers)
    elapsed = time.monotonic() - started
    assert 0.5 <= elapsed < 5
    answer = frames[-1]["result"]
    assert answer["isError"] is True
    assert answer["content"][0]["text"].startswith("Still indexing the workspace: ")
    assert [item["progressToken"] for item in progress_frames(frames)] == [5] * len(progress_frames(frames))


def test_inv_first_2_a_cancelled_call_stops_waiting(fixture_index: Index) -> None:
    """INV-FIRST-2."""
    source = Becoming(fixture_index)  # never ready
    data = initialize() + call(1, "dependents", {"target": "orders"}, "c")
    pipe, result, thread, workers = serve(source, 60.0, data, end=False)
    time.sleep(0.4)
    looks = source.looks
    assert looks >= 1
    started = time.monotonic()
    pipe.put(notification("notifications/cancelled", {"requestId": 1}))
    pipe.put(b"")
    frames = finish(pipe, thread, workers, timeout=5.0)
    assert time.monotonic() - started < 2.0, "the wait ends at the cancellation, not at its bound"
    assert result == [0]
    assert all(frame.get("id") != 1 for frame in frames)  # a cancelled call is not answered
    assert source.looks <= looks + 2


def test_a_failed_build_is_said_at_once_without_waiting() -> None:
    class Failed(Becoming):
        @contextmanager
        def snapshot(self) -> Iterator[Any]:
            self.looks += 1
            raise NotReady(Progress("starting", 0, 0), "cannot write the cache folder")
            yield

    source = Failed(None)
    started = time.monotonic()
    pipe, _result, thread, workers = serve(source, 30.0, initialize() + call(1, "smart_search", {"query": "x"}, "f"))
    frames = finish(pipe, thread, workers)
    assert time.monotonic() - started < 3
    assert source.looks == 1
    assert frames[-1]["result"]["content"][0]["text"].startswith("The workspace index is not available")
    assert progress_frames(frames) == []


def test_smart_search_past_the_bound_answers_by_scanning(fixture_index: Index) -> None:
    source = Becoming(fixture_index)  # never ready
    pipe, _result, thread, workers = serve(source, 0.3, initialize() + call(1, "smart_search", {"query": "Reserve"}))
    frames = finish(pipe, thread, workers)
    answer = frames[-1]["result"]
    assert answer["isError"] is False
    text = answer["content"][0]["text"]
    assert text.startswith("_Answered by scanning ") and "the index is still being built" in text
    assert answer["structuredContent"]["matches"]


def test_reporter_rate_limits_and_goes_quiet_once_closed() -> None:
    posted: list[tuple[Any, _Progress]] = []
    reporter = _Reporter(1, lambda request_id, offer: posted.append((request_id, offer)))
    reporter(1, 10, "a")
    reporter(2, 10, "b")  # within the interval: dropped
    time.sleep(PROGRESS_INTERVAL_S + 0.05)
    reporter(3, 10, "c")
    reporter.close()
    time.sleep(PROGRESS_INTERVAL_S + 0.05)
    reporter(4, 10, "d")  # after the call returned: nothing
    assert [(request_id, offer.done, offer.message) for request_id, offer in posted] == [(1, 1, "a"), (1, 3, "c")]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "1", None])
def test_reporter_drops_what_is_not_a_finite_number(bad: Any) -> None:
    posted: list[Any] = []
    reporter = _Reporter(1, lambda *item: posted.append(item))
    reporter(bad, 10, "x")
    reporter(1, bad if bad is not None else float("nan"), "x")
    assert posted == []


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("", FIRST_CALL_WAIT_S), ("0", 0.0), ("1.5", 1.5), ("60", 60.0), ("61", FIRST_CALL_WAIT_S),
     ("-1", FIRST_CALL_WAIT_S), ("nan", FIRST_CALL_WAIT_S), ("soon", FIRST_CALL_WAIT_S)],
)  # fmt: skip
def test_first_call_wait_is_configurable(raw: str, expected: float) -> None:
    assert first_call_wait_s({"MESH_FIRST_CALL_WAIT_S": raw}) == expected
    assert first_call_wait_s({}) == FIRST_CALL_WAIT_S


def test_a_damaged_index_being_rebuilt_is_said_at_once_without_waiting_or_scanning() -> None:
    """INV-FIRST-1 leaves INV-INDEX-8 as it was: damage is said at once, no scan."""

    class Damaged(Becoming):
        @contextmanager
        def snapshot(self) -> Iterator[Any]:
            self.looks += 1
            raise NotReady(Progress("parsing", 3, 10), damaged="a page of the index is damaged")
            yield

    source = Damaged(None)
    pipe, _result, thread, workers = serve(source, 30.0, initialize() + call(1, "smart_search", {"query": "x"}, "d"))
    frames = finish(pipe, thread, workers)
    assert source.looks == 1
    assert "damaged and is being rebuilt" in frames[-1]["result"]["content"][0]["text"]


@pytest.mark.parametrize(
    ("phase", "done", "total", "waited", "left", "beyond"),
    [
        ("walking", 0, 0, 0.0, 3.0, False),
        ("walking", 0, 0, WALK_WAIT_S, 3.0, True),
        ("starting", 0, 0, 0.2, 3.0, False),
        ("starting", 0, 0, WALK_WAIT_S, 3.0, True),  # the builder still loading: not waited for either
        ("parsing", 0, 57, 0.0, 3.0, False),  # a small workspace: waited for
        ("parsing", 0, int(BUILD_FILES_PER_S * 3.0), 0.0, 3.0, False),
        ("parsing", 0, int(BUILD_FILES_PER_S * 3.0) + 1, 0.0, 3.0, True),
        ("parsing", 26_000, 26_611, 0.0, 3.0, False),  # near its end
        ("parsing", 10, 26_611, 0.0, 3.0, True),
        ("writing", 26_611, 26_611, 2.0, 0.5, False),
        ("checking", 0, 0, 2.0, 0.5, False),
    ],
)
def test_inv_first_3_beyond_the_wait(phase: str, done: int, total: int, waited: float, left: float, beyond: bool) -> None:
    """INV-FIRST-3: what the build says decides whether waiting for it can end in a snapshot."""
    assert beyond_wait(NotReady(Progress(phase, done, total)), waited, left) is beyond


def test_inv_first_3_a_build_that_cannot_end_within_the_wait_is_not_waited_for(fixture_index: Index) -> None:
    """INV-FIRST-3: 100,000 files left and a wait of 30 s: the call says how far the build got at
    its second look (the first one only saw the walk begin), with the progress it offered."""
    source = Becoming(fixture_index, total=100_000, step=10)  # never ready
    pipe, _result, thread, workers = serve(source, 30.0, initialize() + call(1, "dependents", {"target": "orders"}, 8))
    frames = finish(pipe, thread, workers)
    assert source.looks == 2
    answer = frames[-1]["result"]
    assert answer["isError"] is True
    assert answer["content"][0]["text"].startswith("Still indexing the workspace: 10 of 100,000 files parsed")
    assert [item["progressToken"] for item in progress_frames(frames)] == [8]


def test_inv_first_3_a_walk_that_goes_on_is_waited_for_briefly(fixture_index: Index) -> None:
    """INV-FIRST-3: a walk still listing files after WALK_WAIT_S: the call answers then, not at 30 s."""

    class Walking(Becoming):
        @contextmanager
        def snapshot(self) -> Iterator[Any]:
            self.looks += 1
            raise NotReady(Progress("walking", 0, 0))
            yield

    source = Walking(None)
    pipe, _result, thread, workers = serve(source, 30.0, initialize() + call(1, "dependents", {"target": "orders"}))
    frames = finish(pipe, thread, workers)
    assert source.looks <= WALK_WAIT_S / POLL_S + 2  # looked every POLL_S, then stopped waiting
    assert frames[-1]["result"]["content"][0]["text"].startswith("Still indexing the workspace: listing the workspace")


def test_inv_first_3_smart_search_scans_at_once_and_reads_until_its_first_answer(
    fixture_index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-FIRST-3: the scan of a call that did not wait reads until FIRST_ANSWER_S after the call
    came, and its first line says how far the build got."""
    from mesh.tools import _smart_search

    seen: dict[str, Any] = {}
    real = _smart_search.scan

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.update(kwargs, at=time.monotonic())
        return real(*args, **kwargs)

    monkeypatch.setattr(_smart_search, "scan", spy)
    source = Becoming(fixture_index, total=100_000, step=10)  # never ready
    pipe, _result, thread, workers = serve(source, 30.0, initialize() + call(1, "smart_search", {"query": "Reserve"}))
    frames = finish(pipe, thread, workers)
    assert source.looks == 2
    assert seen["until"] - seen["at"] <= FIRST_ANSWER_S
    assert seen["building"] == "10 of 100,000 files parsed"
    text = frames[-1]["result"]["content"][0]["text"]
    assert text.startswith("_Answered by scanning ") and "(10 of 100,000 files parsed)" in text


@pytest.mark.parametrize(
    ("done", "total", "warmup", "scans", "beyond"),
    [
        (0, 59, 1.1, True, True),  # the fixture: C# still to compile in a worker: smart_search scans
        (0, 59, 1.1, False, False),  # ... and a tool that cannot scan waits: the build fits the wait
        (0, 2, 0.25, True, False),  # two files, Python to compile: waited for, answered from the index
        (0, 2, SCAN_WAIT_S - 0.01, True, False),
        (0, 2, SCAN_WAIT_S, True, True),  # with its two files to parse, past the bound
        (0, int(BUILD_FILES_PER_S * SCAN_WAIT_S) + 1, 0.0, True, True),  # warm workers, too many files
        (50, 59, 0.0, True, False),
    ],
)
def test_inv_first_4_a_tool_that_scans_waits_only_for_a_parse_within_its_bound(
    done: int, total: int, warmup: float, scans: bool, beyond: bool
) -> None:
    """INV-FIRST-4: what the parse has left, its workers' start-up and query compilations
    included, decides whether smart_search waits; a tool that cannot scan waits as before."""
    assert beyond_wait(NotReady(Progress("parsing", done, total, warmup)), 0.0, 3.0, scans=scans) is beyond


class Compiling(Becoming):
    """A build of the fixture whose parse workers still compile C#: parsing 0 of 59, ready after
    ``ready_after`` looks."""

    @contextmanager
    def snapshot(self) -> Iterator[Any]:
        self.looks += 1
        if self.ready_after is None or self.looks <= self.ready_after:
            raise NotReady(Progress("parsing", 0, 59, warmup_s=1.1))
        with self.index.store.snapshot() as db:
            yield db


def test_inv_first_4_smart_search_scans_at_once_while_the_workers_compile(fixture_index: Index) -> None:
    """INV-FIRST-4: the first look sees compilations ahead that outlast the bound: the answer is a
    scan, after one look, not a wait for the index."""
    source = Compiling(fixture_index, ready_after=8)
    pipe, _result, thread, workers = serve(source, 10.0, initialize() + call(1, "smart_search", {"query": "Reserve"}))
    frames = finish(pipe, thread, workers)
    assert source.looks == 1
    text = frames[-1]["result"]["content"][0]["text"]
    assert text.startswith("_Answered by scanning ") and "(0 of 59 files parsed)" in text


def test_inv_first_4_a_tool_that_cannot_scan_waits_for_the_same_build(fixture_index: Index) -> None:
    """INV-FIRST-4: the same build, for dependents: it fits the wait, so the answer comes from the
    index once it is there (INV-FIRST-1), not "still indexing"."""
    source = Compiling(fixture_index, ready_after=4)
    pipe, _result, thread, workers = serve(source, 10.0, initialize() + call(1, "dependents", {"target": "orders"}))
    frames = finish(pipe, thread, workers)
    assert source.looks == 5
    answer = frames[-1]["result"]
    assert answer["isError"] is False and "Still indexing" not in answer["content"][0]["text"]
