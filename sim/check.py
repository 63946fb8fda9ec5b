"""Oracles checked on every run, and the comparison of two transcripts.

Each oracle names the invariant it guards (``INVARIANTS.md``).
"""

from __future__ import annotations

from typing import Any

import orjson

from .scenario import Expect, Scenario
from .targets import Transcript

__all__ = ["check", "first_difference"]


def check(scenario: Scenario, transcript: Transcript) -> list[str]:
    """Everything wrong with ``transcript`` as an answer to ``scenario``; empty when it is right."""
    problems = [f"{transcript.target}: {problem}" for problem in transcript.problems]
    stateless = scenario.era == "stateless"
    for index, (step, frames) in enumerate(zip(scenario.steps, transcript.steps, strict=False)):
        if frames is None:
            continue  # killed: its output was checked for torn frames by the target
        where = f"{transcript.target} step {index} ({step.label})"
        # INV-FRAME-4, INV-DRAIN-1: whole strict JSON lines, exactly the answers the model expects.
        if len(frames) != len(step.expect):
            problems.append(f"{where}: {len(frames)} answers, expected {len(step.expect)}")
        for frame, expect in zip(frames, step.expect, strict=False):
            problems += [f"{where}: {problem}" for problem in _check_frame(frame, expect, stateless)]
    # INV-DRAIN-2: after EOF everything accepted is answered and the process exits 0.
    if transcript.end != "exit 0":
        problems.append(f"{transcript.target}: session ended with {transcript.end!r}, expected 'exit 0'")
    if len(transcript.steps) != len(scenario.steps):
        problems.append(f"{transcript.target}: {len(transcript.steps)} steps run of {len(scenario.steps)}")
    return problems


def _check_frame(frame: bytes, expect: Expect, stateless: bool) -> list[str]:
    if not frame.endswith(b"\n"):
        return ["a frame without its newline"]
    try:
        answer = orjson.loads(frame)
    except orjson.JSONDecodeError as exc:
        return [f"not strict JSON: {exc}"]
    if expect.outcome == "batch":
        if not isinstance(answer, list) or len(answer) != len(expect.batch):
            return [f"expected a batch of {len(expect.batch)} answers, got {_short(answer)}"]
        problems = []
        for inner, inner_expect in zip(answer, expect.batch, strict=True):
            problems += _check_answer(inner, inner_expect, stateless)
        return problems
    return _check_answer(answer, expect, stateless)


def _check_answer(answer: Any, expect: Expect, stateless: bool) -> list[str]:
    if not isinstance(answer, dict) or answer.get("jsonrpc") != "2.0":
        return [f"not a JSON-RPC answer: {_short(answer)}"]
    if expect.outcome == "progress":
        return _check_progress(answer, expect)
    if answer.get("id") != expect.id or type(answer.get("id")) is not type(expect.id):
        return [f"id {answer.get('id')!r}, expected {expect.id!r}"]
    if ("result" in answer) == ("error" in answer):
        return [f"needs exactly one of result and error: {_short(answer)}"]
    # INV-CLASS-3: the right error code for each class of input.
    if isinstance(expect.outcome, int):
        code = answer.get("error", {}).get("code")
        return [] if code == expect.outcome else [f"expected error {expect.outcome}, got {_short(answer)}"]
    result = answer.get("result")
    if not isinstance(result, dict):
        return [f"expected a result, got {_short(answer)}"]
    problems = []
    # INV-LIFE-3: stateless results carry resultType; handshake results never do.
    if ("resultType" in result) != stateless:
        problems.append(f"resultType {'missing' if stateless else 'present'}: {_short(answer)}")
    if expect.outcome == "tool-error" and result.get("isError") is not True:
        problems.append(f"expected an isError result, got {_short(answer)}")
    if expect.outcome == "result" and result.get("isError") is True:
        problems.append(f"unexpected isError result: {_short(answer)}")
    return problems


def _check_progress(message: dict[str, Any], expect: Expect) -> list[str]:
    """INV-PROGRESS-1: a progress notification for the token the call gave, before its answer."""
    params = message.get("params")
    if message.get("method") != "notifications/progress" or "id" in message or not isinstance(params, dict):
        return [f"expected progress for token {expect.id!r}, got {_short(message)}"]
    token = params.get("progressToken")
    if token != expect.id or type(token) is not type(expect.id):
        return [f"progress for token {token!r}, expected {expect.id!r}"]
    if type(params.get("progress")) not in (int, float):
        return [f"progress without a number: {_short(message)}"]
    return []


def _short(value: Any) -> str:
    text = orjson.dumps(value).decode(errors="replace")
    return text if len(text) <= 160 else text[:157] + "..."


def first_difference(left: Transcript, right: Transcript) -> str | None:
    """Where two transcripts first differ, frame by frame, with both versions; None if equal."""
    a, b = left.encode().splitlines(keepends=True), right.encode().splitlines(keepends=True)
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return (
                f"frame {index}:\n  {left.target}: {x[:300]!r}{'...' if len(x) > 300 else ''}\n"
                f"  {right.target}: {y[:300]!r}{'...' if len(y) > 300 else ''}"
            )
    if len(a) != len(b):
        longer, name = (a, left.target) if len(a) > len(b) else (b, right.target)
        return f"frame {min(len(a), len(b))}: only {name} has {longer[min(len(a), len(b))][:300]!r}"
    return None
