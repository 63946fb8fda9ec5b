"""The ``progress`` fault: calls of ``sim_progress`` with a progressToken or without, in every
target (INV-PROGRESS-1, INV-DET-2).

A late kind (its own generator): switching it off leaves every other draw of the seed as it was.
A call reports progress once; one offer passes the pump's rate limit whatever the timing, so the
notification is in the transcript of every target, before its answer, in simulated time and
over a real pipe alike.
"""

from __future__ import annotations

import orjson
import pytest

from sim.check import check
from sim.scenario import Step, generate
from sim.targets import MemoryTarget, PipeTarget


def _without_progress(step: Step) -> tuple[object, ...]:
    """A step as it was before the progress kind appended its call (its frame is the last line)."""
    if not step.label.endswith(" + progress"):
        return (step.kind, step.data, step.expect, step.label)
    data = step.data[: step.data.rstrip(b"\n").rfind(b"\n") + 1]
    kept = tuple(item for item in step.expect if not str(item.id).startswith("p") and item.outcome != "progress")
    return (step.kind, data, kept, step.label.removesuffix(" + progress"))


def _progress_seeds(count: int, era: str | None = None) -> list[int]:
    return [
        seed for seed in range(1, 400)
        if "progress" in (scenario := generate(seed)).faults and (era is None or scenario.era == era)
        and any(item.outcome == "progress" for step in scenario.steps for item in step.expect)
    ][:count]  # fmt: skip


def test_the_late_progress_kind_changes_no_other_draw() -> None:
    seeds = [seed for seed in range(1, 200) if "progress" in generate(seed).faults]
    assert 50 < len(seeds) < 150  # swarm: on for about half
    for seed in seeds[:40]:
        on, off = generate(seed), generate(seed, off=("progress",))
        assert [_without_progress(step) for step in on.steps] == [_without_progress(step) for step in off.steps]
        assert "progress" not in off.faults and not any(step.label.endswith(" + progress") for step in off.steps)


def test_progress_comes_before_its_answer_in_memory_INV_PROGRESS_1() -> None:
    """INV-PROGRESS-1: a call with a token hears one notification carrying the token as given,
    right before its answer; a call without one hears none; the message only where the version has it."""
    heard = 0
    for seed in _progress_seeds(12, "handshake") + _progress_seeds(6, "stateless"):
        scenario = generate(seed)
        transcript = MemoryTarget().run(scenario)
        assert check(scenario, transcript) == []
        for step, frames in zip(scenario.steps, transcript.steps, strict=True):
            if frames is None:
                continue
            for expect, frame in zip(step.expect, frames, strict=True):
                if expect.outcome == "progress":
                    params = orjson.loads(frame)["params"]
                    heard += 1
                    assert params["progressToken"] == expect.id and type(params["progressToken"]) is type(expect.id)
                    assert ("message" not in params) or scenario.negotiated >= "2025-03-26"
    assert heard >= 18


@pytest.mark.journey
def test_progress_seeds_give_the_memory_transcript_over_a_pipe_INV_DET_2() -> None:
    """INV-DET-2: the same bytes, progress notifications included, from the real binary."""
    for seed in _progress_seeds(4, "handshake") + _progress_seeds(2, "stateless"):
        scenario = generate(seed)
        memory = MemoryTarget().run(scenario)
        pipe = PipeTarget().run(scenario)
        assert check(scenario, pipe) == []
        assert pipe.encode() == memory.encode(), seed
