"""Pipelined runs: the whole scenario written at once, then EOF; the same answers per id.

In lockstep the client waits for each step's answers, so the order of frames is fixed and the
transcripts must match byte for byte. Pipelined, the server may finish calls in any order, so the
comparison is of the answers per id (a multiset for the ``id: null`` errors). Ids named by a
cancellation are left out: whether such a call was still running when its cancellation arrived is
a matter of timing here. Kill steps are skipped: a pipelined client has no moment to kill at.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from typing import Any

import orjson

from mesh.drivers._pump import run_tool, simulated_progress
from mesh.drivers.stdio import catalogue
from mesh.protocol import CallCancelled, ServerSession, SessionClosed, ToolCallRequested, Wait

from .draws import choice
from .fixture import FIXTURE
from .scenario import Scenario
from .targets import PipeTarget, _config, _Elapsed, _registry

__all__ = ["compare_pipelined", "pipelined_bytes"]


def pipelined_bytes(scenario: Scenario) -> bytes:
    """Every byte the client sends, in order, skipping the steps that end in kill -9."""
    return b"".join(step.data for step in scenario.steps if step.kind != "kill")


def cancelled_ids(scenario: Scenario) -> set[Any]:
    ids: set[Any] = set()
    for line in pipelined_bytes(scenario).split(b"\n"):
        if b"notifications/cancelled" in line:
            try:
                ids.add(orjson.loads(line)["params"]["requestId"])
            except (orjson.JSONDecodeError, KeyError, TypeError):
                pass
    return ids


def memory_pipelined(scenario: Scenario) -> tuple[bytes, str]:
    registry = _registry()
    session = ServerSession(_config(), catalogue(registry))
    held: dict[Any, tuple[ToolCallRequested, _Elapsed]] = {}
    prng = random.Random(scenario.seed)

    def release(request_id: Any) -> None:
        waiting, flag = held.pop(request_id)
        session.complete(request_id, run_tool(registry, waiting, FIXTURE, flag))

    data = pipelined_bytes(scenario)
    if data:
        session.receive_data(data)
    session.receive_eof()
    while True:
        event = session.next_event()
        if isinstance(event, ToolCallRequested):
            flag = _Elapsed()
            if event.name == "sim_wait":
                held[event.request_id] = (event, flag)  # finishes when the input has all been read
            else:
                progress = simulated_progress(event.request_id, session.progress)
                session.complete(event.request_id, run_tool(registry, event, FIXTURE, flag, progress))
        elif isinstance(event, CallCancelled):
            if event.request_id in held:
                held[event.request_id][1].set()
                release(event.request_id)
        elif isinstance(event, SessionClosed):
            return session.data_to_send(), "exit 0"
        elif event is Wait.PAUSED and held:
            release(choice(prng, list(held)))  # held calls finish in a seeded order
        else:
            return session.data_to_send(), f"stuck: {event}"


def pipe_pipelined(scenario: Scenario, timeout_s: float = 60.0) -> tuple[bytes, str]:
    server = PipeTarget().spawn()
    data = pipelined_bytes(scenario)
    writer = threading.Thread(target=lambda: (server.write(data, (len(data),)), server.close_stdin()), daemon=True)
    writer.start()
    lines = server.finish(timeout_s)
    writer.join(timeout_s)
    try:
        code = server.process.wait(timeout_s)
    finally:
        server.kill()
    return b"".join(lines), f"exit {code}"


def _answers(output: bytes, ignored: set[Any]) -> Counter[bytes]:
    counted: Counter[bytes] = Counter()
    for line in output.splitlines(keepends=True):
        try:
            answer = orjson.loads(line)
        except orjson.JSONDecodeError:
            counted[b"not json: " + line] += 1
            continue
        ids = [item.get("id") for item in answer] if isinstance(answer, list) else [answer.get("id")]
        if any(item in ignored for item in ids if item is not None):
            continue
        counted[line] += 1
    return counted


def compare_pipelined(scenario: Scenario) -> list[str]:
    """The problems of one pipelined run: exit codes, and answers present on one side only."""
    ignored = cancelled_ids(scenario)
    memory_out, memory_end = memory_pipelined(scenario)
    pipe_out, pipe_end = pipe_pipelined(scenario)
    problems = []
    for name, end in (("memory", memory_end), ("pipe", pipe_end)):
        if end != "exit 0":
            problems.append(f"pipelined {name}: ended with {end!r}")
    memory_answers, pipe_answers = _answers(memory_out, ignored), _answers(pipe_out, ignored)
    for line in sorted((memory_answers - pipe_answers).elements())[:3]:
        problems.append(f"pipelined: only memory answered {line[:200]!r}")
    for line in sorted((pipe_answers - memory_answers).elements())[:3]:
        problems.append(f"pipelined: only pipe answered {line[:200]!r}")
    return problems
