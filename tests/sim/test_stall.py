"""The ``stall`` fault: a client that stops reading its output for a while (issue 13 item 16).

A late fault kind: it draws from a generator of its own, so adding it changed no draw of any
seed's ``prng``, no scenario and no recorded digest; and it is timing only, so a transcript is the
same with it or without it.
"""

from __future__ import annotations

import fcntl
import threading
import time

import pytest

from sim.__main__ import run_one
from sim.scenario import FAULTS, LATE_FAULTS, generate
from sim.seeds import DEFAULT_SEEDS, read_seeds
from sim.targets import STALL_PIPE_BYTES, PipeTarget

_, RECORDED = read_seeds(DEFAULT_SEEDS)


def _without_stalls(seed: int, **options: object) -> tuple[object, ...]:
    scenario = generate(seed, **options)  # type: ignore[arg-type]
    steps = tuple((step.kind, step.data, step.writes, step.expect, step.label) for step in scenario.steps)
    return tuple(kind for kind in scenario.faults if kind != "stall"), scenario.era, scenario.version, steps


def test_the_late_stall_kind_changes_no_draw_of_a_recorded_seed() -> None:
    """A recorded seed gives the same scenario with the stall fault on or off (every tenth seed,
    for time): the recorded digests stay valid (the memory target never looks at ``stall_ms``)."""
    assert LATE_FAULTS == ("stall", "progress") and FAULTS[-2:] == LATE_FAULTS
    stalled = 0
    sample = RECORDED[::10]
    for entry in sample:
        options = {"steps": entry.steps, "off": tuple(kind for kind in entry.off if kind != "stall")}
        scenario = generate(entry.seed, **options)  # type: ignore[arg-type]
        stalled += "stall" in scenario.faults
        assert _without_stalls(entry.seed, **options) == _without_stalls(
            entry.seed, steps=entry.steps, off=(*options["off"], "stall")
        )
    assert len(sample) // 4 < stalled < 3 * len(sample) // 4  # swarm: on for about half


def test_stalls_are_a_prefix_property_and_switched_off_by_off() -> None:
    seed = next(seed for seed in range(1, 100) if "stall" in generate(seed).faults and len(generate(seed).steps) > 10)
    full, short = generate(seed), generate(seed, steps=4)
    assert [step.stall_ms for step in short.steps[:4]] == [step.stall_ms for step in full.steps[:4]]
    assert any(step.stall_ms for step in full.steps)
    assert all(1 <= step.stall_ms <= 20 for step in full.steps if step.stall_ms)
    quiet = generate(seed, off=("stall",))
    assert "stall" not in quiet.faults and not any(step.stall_ms for step in quiet.steps)


def test_a_stalled_client_reads_nothing_until_the_stall_ends() -> None:
    """The pipe target's stall is real: the server's one-page output pipe fills and waits."""
    server = PipeTarget().spawn()
    server.shrink_output_pipe(STALL_PIPE_BYTES)
    try:
        assert server.process.stdout is not None
        assert fcntl.fcntl(server.process.stdout.fileno(), fcntl.F_GETPIPE_SZ) == STALL_PIPE_BYTES
        resumed = server.stop_reading_for(300)
        ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
        assert server.write(ping, (len(ping),))
        time.sleep(0.15)
        assert server.read_lines(1, 0.0) == []  # stalled: nothing taken
        resumed.join()
        assert len(server.read_lines(1, 10.0)) == 1
        assert isinstance(resumed, threading.Thread)
    finally:
        server.kill()


@pytest.mark.journey
def test_stalled_seeds_give_the_memory_transcript_over_a_pipe_INV_BOUND_4() -> None:
    """INV-BOUND-4: a client that stops reading at random steps (its server's output pipe one
    page) gets, once it reads again, byte for byte what the core gives in memory."""
    seeds = [seed for seed in range(1, 200) if "stall" in generate(seed).faults][:6]
    for seed in seeds:
        _, transcripts, problems = run_one(seed, "both", None, ())
        assert problems == [], (seed, problems)
        assert transcripts["pipe"].encode() == transcripts["memory"].encode(), seed
