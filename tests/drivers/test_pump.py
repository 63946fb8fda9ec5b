"""The connection pump in-process: drain, cancellation, stop, a client that stops reading."""

from __future__ import annotations

import fcntl
import json
import os
import struct
import termios
import threading
import time
from pathlib import Path

import attrs
import pytest

from mesh.drivers._pump import FEED_BYTES, SHUTTING_DOWN, ConnectionPump
from mesh.drivers._workers import WorkerPool
from mesh.drivers.stdio import catalogue
from mesh.protocol import ServerSession, SessionConfig
from mesh.tools import CallContext, Registry, Tool, load_plugins
from tests.support.memory import initialize, notification, request


class Pipe:
    """Real pipes around the pump: the test feeds its input and collects what it writes."""

    def __init__(self, close_output: bool = False) -> None:
        self.in_r, self.in_w = os.pipe()
        self.out_r, self.out_w = os.pipe()
        self.written = bytearray()
        self.collector = threading.Thread(target=self._collect, daemon=True)
        if close_output:
            os.close(self.out_r)  # the client stopped reading: writes fail with EPIPE
        else:
            self.collector.start()
        self.chunks = self  # the tests say pipe.chunks.put(data)

    def put(self, data: bytes) -> None:
        if data:
            os.write(self.in_w, data)
        else:
            os.close(self.in_w)

    def _collect(self) -> None:
        while data := os.read(self.out_r, 65536):
            self.written += data

    def answers(self) -> list[dict]:
        complete = bytes(self.written).rpartition(b"\n")[0]  # the collector may hold half a frame
        return [json.loads(line) for line in complete.splitlines()]

    def unread(self) -> int:
        """Bytes the test wrote that the pump has not read yet."""
        return struct.unpack("i", fcntl.ioctl(self.in_r, termios.FIONREAD, b"\0\0\0\0"))[0]

    def done(self) -> None:
        """After the pump returned: collect the rest of what it wrote."""
        os.close(self.out_w)
        self.collector.join(5)


@attrs.frozen
class NoArgs:
    pass


RELEASE = threading.Event()


def stubborn(args: NoArgs, ctx: CallContext) -> str:
    """Ignores cancellation: waits for the test to release it."""
    RELEASE.wait(10)
    return "released"


def make_pump(pipe: Pipe, **config: int) -> tuple[ConnectionPump, WorkerPool]:
    """A pump over the pipe's descriptors, with the test tools and ``stubborn``."""
    registry = Registry()
    load_plugins(registry, ["tests.support.tools"])
    registry.register(Tool("stubborn", "Ignores cancellation.", NoArgs, stubborn))
    session = ServerSession(SessionConfig(**config), catalogue(registry))
    executor = WorkerPool(4)
    pump = ConnectionPump(
        session=session,
        registry=registry,
        workspace=Path("."),
        in_fd=pipe.in_r,
        out_fd=pipe.out_w,
        workers=executor,
        name="test",
        shutdown_grace_s=0.5,
    )
    return pump, executor


def wait_for_answer(pipe: Pipe, request_id: object, timeout: float = 10.0) -> None:
    """Block until the answer to ``request_id`` was written (the loop handled its chunk)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(answer.get("id") == request_id for answer in pipe.answers()):
            return
        time.sleep(0.005)
    raise AssertionError(f"no answer to {request_id!r} within {timeout}s")


def finish(thread: threading.Thread, workers: WorkerPool, pipe: Pipe) -> None:
    """After a stop or EOF: wait for the pump, release its workers, collect what it wrote."""
    thread.join(5)
    workers.shutdown()
    pipe.done()


def run_pump(pump: ConnectionPump) -> tuple[threading.Thread, list[int]]:
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(pump.run()), daemon=True)
    thread.start()
    return thread, result


def test_eof_drains_every_accepted_call_INV_DRAIN_2() -> None:
    """INV-DRAIN-2."""
    pipe = Pipe()
    pump, executor = make_pump(pipe)
    calls = b"".join(request(i, "tools/call", {"name": "sleep", "arguments": {"ms": 50 * (5 - i)}}) for i in range(5))
    pipe.chunks.put(initialize() + calls)
    pipe.chunks.put(b"")
    assert pump.run() == 0
    executor.shutdown()
    pipe.done()
    answers = pipe.answers()
    assert answers[0]["id"] == 0 and "protocolVersion" in answers[0]["result"]
    # Every call is answered before the pump returns, in the order the calls finished.
    assert sorted(answer["id"] for answer in answers[1:]) == [0, 1, 2, 3, 4]


def test_reads_only_when_the_session_wants_data_INV_BOUND_1() -> None:
    """INV-BOUND-1."""
    pipe = Pipe()
    pump, executor = make_pump(pipe, max_in_flight=1)
    thread, result = run_pump(pump)
    pipe.chunks.put(initialize() + request(1, "tools/call", {"name": "sleep", "arguments": {"ms": 300}}))
    wait_for_answer(pipe, 0)
    # While the one allowed call runs, the pump must not read more input.
    ping = request(2, "ping")
    pipe.chunks.put(ping)
    time.sleep(0.1)
    assert pipe.unread() == len(ping)
    pipe.chunks.put(b"")
    finish(thread, executor, pipe)
    assert result == [0]
    assert [answer["id"] for answer in pipe.answers()] == [0, 1, 2]


def test_cancelled_call_stops_early_and_is_not_answered() -> None:
    pipe = Pipe()
    pump, executor = make_pump(pipe)
    thread, result = run_pump(pump)
    pipe.chunks.put(initialize() + request(1, "tools/call", {"name": "sleep", "arguments": {"ms": 30_000}}))
    pipe.chunks.put(notification("notifications/cancelled", {"requestId": 1}) + request(2, "ping"))
    pipe.chunks.put(b"")
    finish(thread, executor, pipe)
    assert result == [0]
    assert [answer["id"] for answer in pipe.answers()] == [0, 2]


def test_stop_cancels_running_calls_and_refuses_queued_ones() -> None:
    pipe = Pipe()
    pump, executor = make_pump(pipe)
    thread, result = run_pump(pump)
    pipe.chunks.put(initialize() + request(1, "tools/call", {"name": "sleep", "arguments": {"ms": 30_000}}))
    wait_for_answer(pipe, 0)
    pump.request_stop("SIGTERM")
    finish(thread, executor, pipe)
    assert result == [0]
    answers = {answer["id"]: answer for answer in pipe.answers()}
    assert answers[1]["result"]["content"][0]["text"] == "cancelled"  # the tool honoured it


def test_calls_received_but_not_started_at_stop_are_refused() -> None:
    pipe = Pipe()
    pump, executor = make_pump(pipe, max_in_flight=1)
    thread, result = run_pump(pump)
    # The second call waits behind the in-flight bound; the stop ends the input before it starts.
    pipe.chunks.put(
        initialize()
        + request(1, "tools/call", {"name": "sleep", "arguments": {"ms": 30_000}})
        + request(2, "tools/call", {"name": "echo", "arguments": {"text": "x"}})
    )
    wait_for_answer(pipe, 0)
    pump.request_stop("SIGTERM")
    finish(thread, executor, pipe)
    assert result == [0]
    answers = {answer["id"]: answer["result"] for answer in pipe.answers()}
    assert answers[2] == {"content": [{"type": "text", "text": SHUTTING_DOWN}], "isError": True}


def test_stop_gives_up_on_a_tool_that_ignores_cancellation() -> None:
    pipe = Pipe()
    pump, executor = make_pump(pipe)
    RELEASE.clear()
    thread, result = run_pump(pump)
    pipe.chunks.put(initialize() + request(1, "tools/call", {"name": "stubborn"}))
    wait_for_answer(pipe, 0)
    pump.request_stop("SIGTERM")
    thread.join(5)
    assert result == [1] and pump.abandoned == 1  # INV-DRAIN-5: its answer is lost
    pipe.done()
    assert [answer["id"] for answer in pipe.answers()] == [0]
    RELEASE.set()
    executor.shutdown()


def test_second_stop_exits_at_once() -> None:
    pipe = Pipe()
    pump, executor = make_pump(pipe)
    pump._grace_s = 30
    RELEASE.clear()
    thread, result = run_pump(pump)
    pipe.chunks.put(initialize() + request(1, "tools/call", {"name": "stubborn"}))
    wait_for_answer(pipe, 0)
    pump.request_stop("SIGTERM")
    pump.request_stop("SIGINT")
    thread.join(5)
    assert result == [1] and pump.abandoned == 1  # INV-DRAIN-5: its answer is lost
    RELEASE.set()
    executor.shutdown()


def test_client_that_closed_its_output_ends_the_session_with_1() -> None:
    pipe = Pipe(close_output=True)
    pump, executor = make_pump(pipe)
    thread, result = run_pump(pump)
    pipe.chunks.put(initialize())
    thread.join(5)
    executor.shutdown()
    assert result == [1]


def test_read_error_is_treated_as_eof(tmp_path: Path) -> None:
    pipe = Pipe()
    os.close(pipe.in_r)
    pipe.in_r = os.open(tmp_path, os.O_RDONLY)  # reading a folder fails with EISDIR
    pump, executor = make_pump(pipe)
    assert pump.run() == 0
    executor.shutdown()
    pipe.done()
    assert pipe.answers() == []


@pytest.mark.parametrize("name", ["fail"])
def test_crashing_tool_is_an_internal_error(name: str) -> None:
    pipe = Pipe()
    pump, executor = make_pump(pipe)
    pipe.chunks.put(initialize() + request(1, "tools/call", {"name": name}))
    pipe.chunks.put(b"")
    assert pump.run() == 0
    executor.shutdown()
    pipe.done()
    assert pipe.answers()[1]["error"]["code"] == -32603


# --- output bound and heartbeat ------------------------------------------------------------------


def _unread(fd: int) -> int:
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def _test_registry() -> Registry:
    registry = Registry()
    load_plugins(registry, ["tests.support.tools"])
    return registry


def _listing_bytes(registry: Registry) -> int:
    """The size of one ``tools/list`` answer of ``registry``."""
    probe = ServerSession(SessionConfig(), catalogue(registry))
    probe.receive_data(initialize() + request(1, "tools/list"))
    probe.next_event()
    return len(probe.data_to_send().split(b"\n")[1]) + 1


def _bounded_pump(bound: int) -> tuple[ConnectionPump, WorkerPool, tuple[int, int, int, int]]:
    """A pump with the output bound ``bound`` over fresh pipes (in_r, in_w, out_r, out_w); its
    output non-blocking, as claim_stdout and the daemon hand it over."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    os.set_blocking(out_w, False)
    registry = _test_registry()
    workers = WorkerPool(2)
    pump = ConnectionPump(
        session=ServerSession(SessionConfig(), catalogue(registry)), registry=registry, workspace=Path("."),
        in_fd=in_r, out_fd=out_w, workers=workers, name="test", out_bytes_max=bound,
    )  # fmt: skip
    return pump, workers, (in_r, in_w, out_r, out_w)


def test_a_client_that_never_reads_stops_the_pump_reading_INV_BOUND_4() -> None:
    """INV-BOUND-4: past the bound of answers waiting, the pump reads nothing more (the client's
    own writes block) and holds at most the bound plus one input slice's answers; once the client
    reads, every request is answered."""
    bound = 64 * 1024
    pump, workers, (in_r, in_w, out_r, out_w) = _bounded_pump(bound)
    thread, result = run_pump(pump)
    count = 5000
    listing = b"".join(request(i, "tools/list") for i in range(1, count + 1))
    written = threading.Event()

    def client_writes() -> None:
        os.write(in_w, initialize())
        view = memoryview(listing)
        while view:
            view = view[os.write(in_w, view) :]  # blocks once the pump stops reading
        os.close(in_w)
        written.set()

    threading.Thread(target=client_writes, daemon=True).start()
    time.sleep(0.5)
    assert not written.is_set() and _unread(in_r) > 0, "the pump kept reading a client that never reads"
    answer = _listing_bytes(_test_registry())
    per_slice = (FEED_BYTES // len(request(1, "tools/list")) + 1) * answer
    assert bound < pump.out_bytes_peak <= bound + per_slice + answer
    received = bytearray()
    while received.count(b"\n") < count + 1 and (chunk := os.read(out_r, 1 << 20)):
        received += chunk  # the client reads at last: everything comes
    thread.join(10)
    workers.shutdown()
    for fd in (in_r, out_r, out_w):
        os.close(fd)
    assert result == [0] and written.is_set()
    assert [json.loads(line)["id"] for line in bytes(received).splitlines()] == list(range(count + 1))


def test_one_read_of_small_requests_with_large_answers_is_handed_over_a_slice_at_a_time() -> None:
    """A single read may hold a thousand requests of a few bytes whose answers are kilobytes each:
    the session gets it a slice at a time, so the bound holds within one slice's answers."""
    bound = 4096
    pump, workers, (in_r, in_w, out_r, out_w) = _bounded_pump(bound)
    small = request(1, "tools/list")
    os.write(in_w, initialize() + small * (60_000 // len(small)))  # one read's worth, before the pump runs
    thread, _ = run_pump(pump)
    time.sleep(0.3)
    answer = _listing_bytes(_test_registry())
    assert bound < pump.out_bytes_peak <= bound + (FEED_BYTES // len(small) + 1) * answer
    pump.request_stop("test")
    thread.join(10)
    workers.shutdown()
    for fd in (in_r, in_w, out_r, out_w):
        os.close(fd)


def test_a_heartbeat_goes_between_frames_while_a_slow_call_runs() -> None:
    """The loop writes its heartbeat while a tool runs (a slow tool is not a silent server);
    never inside a frame, and a pump without one (stdio) writes none."""
    pipe = Pipe()
    registry = Registry()
    load_plugins(registry, ["tests.support.tools"])
    workers = WorkerPool(2)
    beat = b"\0beat\n"
    pump = ConnectionPump(
        session=ServerSession(SessionConfig(), catalogue(registry)), registry=registry, workspace=Path("."),
        in_fd=pipe.in_r, out_fd=pipe.out_w, workers=workers, name="test", heartbeat=beat, heartbeat_s=0.05,
    )  # fmt: skip
    pipe.chunks.put(initialize() + request(1, "tools/call", {"name": "sleep", "arguments": {"ms": 400}}))
    pipe.chunks.put(b"")
    assert pump.run() == 0
    workers.shutdown()
    pipe.done()
    written = bytes(pipe.written)
    assert written.count(beat) >= 3
    frames = written.replace(beat, b"").splitlines()
    assert [json.loads(line)["id"] for line in frames] == [0, 1]
    assert b"\0" not in written.replace(beat, b"")

    quiet = Pipe()
    pump, workers = make_pump(quiet)
    quiet.chunks.put(initialize() + request(1, "tools/call", {"name": "sleep", "arguments": {"ms": 200}}))
    quiet.chunks.put(b"")
    assert pump.run() == 0
    workers.shutdown()
    quiet.done()
    assert b"\0" not in bytes(quiet.written)
