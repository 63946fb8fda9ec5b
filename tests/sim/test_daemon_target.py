"""The simulator's daemon target: recorded seeds through ``mesh-mcp mcp`` (the proxy) and one daemon.

Theory of operation
-------------------
``sim.targets.DaemonTarget`` runs a scenario the way the pipe target does, but each session is a
proxy (``mesh-mcp mcp`` without ``--standalone``) to a daemon the target's first session starts;
a ``kill`` step kills the daemon, not the proxy. Each test worker keeps one target (one daemon)
for the whole module; the replay is sharded like the pipe replay.

Which seeds: every ``EVERY_NTH``-th line of ``seeds/recorded.txt`` (the first, the fourth, ...:
334 of the 1,000, about 180 of them with a kill step, 5 of those killing before the proxy has
answered anything). A seed costs ~0.3 s through the daemon, one with a kill step ~1 s (a new
daemon starts), and all 1,000 took 7 min 13 s with ``pytest -n 2`` on two cores: more than this
suite can add. The memory and pipe targets replay every seed (``tests/sim/test_sim.py``); ``python
-m sim replay --target daemon`` replays them all through daemons. The other tests here pin the
kill path: the daemon killed mid-session and before the proxy read a byte, a session that
bypasses the daemon, the target's clean-up, the command line.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import pytest

from sim.__main__ import main
from sim.check import check, first_difference
from sim.fixture import FIXTURE
from sim.scenario import FAULTS, REAL_CALLS, Scenario, generate
from sim.seeds import DEFAULT_SEEDS, Recorded, read_seeds, write_seeds
from sim.targets import EXIT_AFTER_KILL_S, DaemonTarget, MemoryTarget, Transcript, _gone

pytestmark = [pytest.mark.journey]

HEADER, RECORDED = read_seeds(DEFAULT_SEEDS)
#: Every EVERY_NTH-th recorded seed is replayed: a fixed subset, the same on every machine.
EVERY_NTH = 3
REPLAYED = RECORDED[::EVERY_NTH]
SHARDS = 10


def _scenario(entry: Recorded) -> Scenario:
    return generate(entry.seed, steps=entry.steps, off=entry.off)


def _kill_at(scenario: Scenario) -> int | None:
    return next((index for index, step in enumerate(scenario.steps) if step.kind == "kill"), None)


def _first(wanted: Callable[[Scenario], bool]) -> tuple[Recorded, Scenario]:
    """The first recorded seed whose scenario is ``wanted``: found again if seeds are re-recorded."""
    for entry in RECORDED:
        scenario = _scenario(entry)
        if wanted(scenario):
            return entry, scenario
    raise AssertionError("no recorded seed has the scenario this test needs")


def _real_call_right_after_the_kill(scenario: Scenario) -> bool:
    """A kill mid-session (answers came before it), and the new daemon's first tool call is a real tool."""
    kill = _kill_at(scenario)
    if kill is None or not any(step.expect for step in scenario.steps[:kill]):
        return False
    after = [step for step in scenario.steps[kill + 1 :] if b'"tools/call"' in step.data]
    return bool(after) and any(tool in after[0].label for tool, _, _ in REAL_CALLS)


@pytest.fixture(scope="module")
def target() -> Iterator[DaemonTarget]:
    with DaemonTarget() as daemon_target:
        yield daemon_target


def _reproduce(seed: int) -> str:
    return f"python -m sim run {seed} --target all"


def _failures(entry: Recorded, transcript: Transcript, scenario: Scenario) -> list[str]:
    problems = check(scenario, transcript)
    if transcript.digest() == entry.digest and not problems:
        return []
    difference = first_difference(MemoryTarget().run(scenario), transcript)
    return [f"seed {entry.seed}: {problems[:3]}, first difference {difference}; reproduce: {_reproduce(entry.seed)}"]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("shard", range(SHARDS))
def test_recorded_seeds_replay_through_the_daemon_INV_DAEMON_1(target: DaemonTarget, shard: int) -> None:
    """INV-DAEMON-1, INV-DAEMON-2, INV-DET-2: through the proxy and one daemon, the recorded bytes
    (digest) and every oracle; seeds with a kill step kill -9 the daemon and go on with a new one."""
    failures = []
    for entry in REPLAYED[shard::SHARDS]:
        scenario = _scenario(entry)
        failures += _failures(entry, target.run(scenario), scenario)
    assert failures == []


def test_kill_9_of_the_daemon_ends_the_proxy_with_status_1_and_a_new_daemon_reuses_the_index_INV_DAEMON_2(
    target: DaemonTarget,
) -> None:
    """INV-DAEMON-2: the daemon that served the earlier steps is killed -9; the proxy exits 1 at once,
    naming the daemon's log; the next proxy starts another daemon, whose first tool answer comes
    from the index on disk (the recorded bytes, never "Still indexing")."""
    entry, scenario = _first(_real_call_right_after_the_kill)
    target.run(generate(1, steps=1, off=FAULTS))  # a daemon serves before the scenario starts
    serving = target.daemon_pid()
    assert serving is not None
    kills = len(target.kills)
    transcript = target.run(scenario)
    assert _failures(entry, transcript, scenario) == []
    assert len(target.kills) == kills + 1
    kill = target.kills[-1]
    assert kill.daemon_pid == serving and kill.proxy_exit == 1 and kill.seconds < EXIT_AFTER_KILL_S, kill
    assert _gone(serving, 0)
    assert target.daemon_pid() not in (None, serving)
    assert b"Still indexing" not in transcript.encode()


def test_a_kill_before_the_proxy_read_a_byte_still_kills_the_daemon_it_reached_INV_DAEMON_2(
    target: DaemonTarget,
) -> None:
    """INV-DAEMON-2: a kill step with no byte to write, first in its session: the target writes a
    blank line (ignored, INV-FRAME-3) and waits until the proxy reads it, so the proxy is connected
    when its daemon dies; the session after it equals the memory target's byte for byte."""
    _, recorded = _first(lambda scenario: scenario.steps[0].kind == "kill")
    kill = attrs.evolve(recorded.steps[0], data=b"", writes=(), label="kill -9 after 0 bytes")
    scenario = attrs.evolve(recorded, steps=(kill, *recorded.steps[1:]))
    transcript = target.run(scenario)
    memory = MemoryTarget().run(scenario)
    assert check(scenario, transcript) == []
    assert transcript.encode() == memory.encode(), first_difference(memory, transcript)
    assert target.kills[-1].proxy_exit == 1


def test_the_daemon_target_reports_sessions_that_no_daemon_served() -> None:
    """A proxy that falls back to serving standalone (here: told to) cannot pass for the daemon:
    the kill step finds no daemon, and the session's end finds none either."""
    standalone = (sys.executable, "-m", "mesh", "mcp", "--standalone", "--workspace", str(FIXTURE))
    _, scenario = _first(lambda scenario: scenario.steps[0].kind == "kill")
    with DaemonTarget(argv=standalone, answer_timeout_s=10) as bypassed:
        transcript = bypassed.run(scenario)
    assert any("no daemon held the lock while the proxy was connected" in problem for problem in transcript.problems)
    assert any("no daemon holds the lock after the session" in problem for problem in transcript.problems)


def test_close_stops_the_daemon_and_leaves_no_process_or_folder_behind() -> None:
    daemon_target = DaemonTarget()
    scenario = generate(2, steps=2, off=FAULTS)
    assert check(scenario, daemon_target.run(scenario)) == []
    pid = daemon_target.daemon_pid()
    assert pid is not None and not _gone(pid, 0)
    daemon_target.close()
    assert _gone(pid, 0)
    assert not daemon_target.runtime_dir.exists()
    deadline = time.monotonic() + 10
    while daemon_target.leftover_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert daemon_target.leftover_processes() == []


def test_the_command_line_runs_the_daemon_target_alone_and_beside_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--target all`` runs memory, pipe and daemon and compares each with memory; ``replay --target
    daemon --jobs 2`` gives each thread a daemon of its own."""
    entry, _ = _first(lambda scenario: _kill_at(scenario) is not None)
    assert main(["run", str(entry.seed), "--target", "all", "--quiet"]) == 0
    out = capsys.readouterr().out
    for name in ("memory", "pipe", "daemon"):
        assert f"{name}: digest {entry.digest}" in out, out
    seeds = tmp_path / "seeds.txt"
    write_seeds(seeds, [entry, *RECORDED[:3]])
    assert main(["replay", "--seeds", str(seeds), "--target", "daemon", "--jobs", "2"]) == 0
    assert "replayed 4 seeds" in capsys.readouterr().out
