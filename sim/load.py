"""Load on one daemon: many proxy sessions at once, each a seeded mix of real tool calls, pipelined.

Theory of operation
-------------------
A :class:`LoadSession` is one client of ``mesh-mcp mcp`` started through a :class:`DaemonTarget`
(so every session of a run reaches the target's one daemon). It says ``initialize`` first
(:meth:`LoadSession.open`), then writes all its tool calls at once (:meth:`LoadSession.send`): the
calls are drawn with ``random.Random(seed)`` from ``REAL_CALLS`` (real tools over the fixture
workspace, arguments known to answer), with ids ``1..n``, unique within the session.
:meth:`LoadSession.collect` reads answers until the proxy closes its output, stamping each on
arrival, so a call's latency is the client's: from the write of its request to its answer.

What each call must answer is computed first, in this process (:func:`expected_results`): the
memory target serves every ``REAL_CALLS`` entry once, through the same core and tools as the
daemon. :meth:`LoadSession.wrong_answers` holds a session to it: every answer has an id the
session sent and not yet answered, and exactly the expected ``result``.

Nothing here asserts or depends on timing; the test decides (``tests/sim/test_daemon_load.py``).
"""

from __future__ import annotations

import queue
import random
import subprocess
import time
from typing import Any, Final

import attrs
import orjson

from .draws import below, between
from .scenario import REAL_CALLS, Expect, Scenario, Step, _frame
from .targets import DaemonTarget, MemoryTarget, _Server

__all__ = ["LoadSession", "expected_results", "percentile", "plan"]

#: The handshake every load session makes.
VERSION: Final = "2025-06-18"


def _handshake() -> bytes:
    params = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "load", "version": "1"}}
    return _frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}) + _frame(
        {"jsonrpc": "2.0", "method": "notifications/initialized"}
    )


def _call(request_id: int, call: int) -> bytes:
    tool, arguments, _ = REAL_CALLS[call]
    params = {"name": tool, "arguments": arguments}
    return _frame({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


def expected_results() -> tuple[dict[str, Any], ...]:
    """The ``result`` of each ``REAL_CALLS`` entry, as the in-process core and tools answer it."""
    handshake = _handshake()
    steps = [Step("send", handshake, (len(handshake),), (Expect(0, "result"),), "handshake")]
    for call in range(len(REAL_CALLS)):
        data = _call(call + 1, call)
        steps.append(Step("send", data, (len(data),), (Expect(call + 1, "result"),), REAL_CALLS[call][0]))
    steps.append(Step("eof", b"", (), (), "eof"))
    transcript = MemoryTarget().run(Scenario(0, (), "handshake", VERSION, tuple(steps)))
    results = []
    for call, frames in enumerate(transcript.steps[1 : len(REAL_CALLS) + 1]):
        assert frames is not None and len(frames) == 1, (call, frames)
        answer = orjson.loads(frames[0])
        assert answer["id"] == call + 1 and "result" in answer, answer
        results.append(answer["result"])
    return tuple(results)


def plan(seed: int, calls_min: int, calls_max: int) -> tuple[int, ...]:
    """A session's calls (indexes into ``REAL_CALLS``), drawn from ``random.Random(seed)``."""
    prng = random.Random(seed)
    return tuple(below(prng, len(REAL_CALLS)) for _ in range(between(prng, calls_min, calls_max)))


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (``fraction`` in 0..1) of ``values``; 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))]


@attrs.define(eq=False)
class LoadSession:
    """One proxy session of a load run; see the module docstring."""

    seed: int
    calls: tuple[int, ...]
    server: _Server | None = None
    #: Request id to the monotonic time its request was written.
    sent_at: dict[int, float] = attrs.field(factory=dict)
    #: Answers in arrival order: (monotonic arrival time, the line).
    answers: list[tuple[float, bytes]] = attrs.field(factory=list)
    #: When the proxy closed its output (EOF), if it did.
    eof_at: float | None = None
    exit_code: int | None = None
    problems: list[str] = attrs.field(factory=list)

    def open(self, target: DaemonTarget, timeout_s: float) -> bool:
        """Start the proxy and make the handshake; False (and a problem) if it does not answer."""
        self.server = target.spawn()
        if not self.server.write(_handshake(), (len(_handshake()),)):
            self.problems.append("the proxy did not take the handshake")
            return False
        answer = self.server.read_lines(1, timeout_s)
        if not answer or b'"id":0,' not in answer[0]:
            self.problems.append(f"no initialize answer within {timeout_s:g}s: {answer!r:.200}")
            return False
        return True

    def send(self) -> None:
        """Write every call at once (pipelined), stamping each request."""
        assert self.server is not None
        for number, call in enumerate(self.calls, 1):
            data = _call(number, call)
            self.sent_at[number] = time.monotonic()
            if not self.server.write(data, (len(data),)):
                return  # the proxy is gone (the daemon was killed): collect() tells what came back

    def end_input(self) -> None:
        assert self.server is not None
        self.server.close_stdin()

    def collect(self, timeout_s: float) -> None:
        """Read answers, stamping each, until the proxy closes its output or ``timeout_s`` passes."""
        assert self.server is not None
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                line = self.server.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.problems.append(f"the proxy's output was still open after {timeout_s:g}s")
                return
            if line is None:
                self.eof_at = time.monotonic()
                return
            self.answers.append((time.monotonic(), line))

    def wait_exit(self, timeout_s: float) -> int | None:
        """The proxy's exit status, or None (and a problem; it is killed) if it runs past ``timeout_s``."""
        assert self.server is not None
        try:
            self.exit_code = self.server.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.problems.append(f"the proxy still ran {timeout_s:g}s later")
            self.server.process.kill()
        return self.exit_code

    def finish(self, timeout_s: float) -> None:
        """After :meth:`open`: send every call, close the input, read every answer, wait for the exit."""
        self.send()
        self.end_input()
        self.collect(timeout_s)
        self.wait_exit(timeout_s)

    def run(self, target: DaemonTarget, timeout_s: float) -> None:
        """A whole session: :meth:`open`, then :meth:`finish`."""
        if self.open(target, timeout_s):
            self.finish(timeout_s)

    def wrong_answers(self, expected: tuple[dict[str, Any], ...]) -> list[str]:
        """Answers with an unknown or repeated id, or a result other than the expected one."""
        wrong = []
        seen: set[int] = set()
        for _, line in self.answers:
            try:
                answer = orjson.loads(line)
                request_id = answer["id"]
            except (orjson.JSONDecodeError, KeyError, TypeError):
                wrong.append(f"not an answer: {line[:200]!r}")
                continue
            if type(request_id) is not int or not 1 <= request_id <= len(self.calls):
                wrong.append(f"id {request_id!r} was never sent")
                continue
            if request_id in seen:
                wrong.append(f"id {request_id} answered twice")
            elif answer.get("result") != expected[self.calls[request_id - 1]]:
                tool, arguments, _ = REAL_CALLS[self.calls[request_id - 1]]
                wrong.append(f"id {request_id} ({tool} {arguments}): another answer: {line[:300]!r}")
            seen.add(request_id)
        return wrong

    def latencies_s(self) -> list[float]:
        """Per answered call: from its request's write to its answer's arrival."""
        latencies = []
        for arrived, line in self.answers:
            try:
                request_id = orjson.loads(line).get("id")
            except (orjson.JSONDecodeError, AttributeError):
                continue  # not an answer: wrong_answers() reports it
            if request_id in self.sent_at:
                latencies.append(arrived - self.sent_at[request_id])
        return latencies

    def close(self) -> None:
        if self.server is not None:
            self.server.kill()
