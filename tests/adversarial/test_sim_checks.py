"""The simulator's own harness, attacked (issue 13, items 17 and 19).

- ``python -m sim determinism`` runs each seed in two child processes and compares their bytes. Two
  children that both crash print the same (nothing): the check must see the exit status and the
  emptiness, not only the equality (INV-DET-3).
- Recorded seeds must hold on every supported Python: no draw may use a ``random`` method whose
  sequence CPython does not promise across versions, and no digest may pin the interpreter's
  version (INV-DET-4).
"""

from __future__ import annotations

import ast
import random
import stat
import sys
from pathlib import Path

import pytest

from sim.__main__ import main


def fake_interpreter(tmp_path: Path, body: str) -> str:
    """A stand-in for ``sys.executable`` in the children: a shell script with this body."""
    path = tmp_path / "python"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def determinism(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], interpreter: str
) -> tuple[int, str]:
    monkeypatch.setattr(sys, "executable", interpreter)
    status = main(["determinism", "5"])
    return status, capsys.readouterr().out


def test_two_crashing_children_are_a_failure_not_agreement_INV_DET_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """INV-DET-3: both children exit 1 with a traceback and no output: the check fails and says why."""
    traceback = 'echo "Traceback (most recent call last):" >&2; echo "RuntimeError: boom" >&2'
    crash = fake_interpreter(tmp_path, traceback + "; exit 1")
    status, out = determinism(monkeypatch, capsys, crash)
    assert status == 1, out
    assert "0 divergent" not in out
    assert "seed 5: the run under PYTHONHASHSEED=0 failed (exit 1)" in out
    assert "seed 5: the run under PYTHONHASHSEED=12345 failed (exit 1)" in out
    assert "RuntimeError: boom" in out  # the cause, from the child's stderr
    assert "reproduce: PYTHONHASHSEED=0 python -m sim run 5" in out


def test_two_silent_children_are_a_failure_INV_DET_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """INV-DET-3: exit 0 with no transcript is no run: equal emptiness proves nothing."""
    status, out = determinism(monkeypatch, capsys, fake_interpreter(tmp_path, "exit 0"))
    assert status == 1, out
    assert "failed (no transcript: 0 bytes on stdout)" in out


def test_a_truncated_transcript_is_a_failure_INV_DET_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """INV-DET-3: output that does not end with the transcript's ``end`` line is not a whole run."""
    status, out = determinism(monkeypatch, capsys, fake_interpreter(tmp_path, r"printf '0\t{\"id\":1}\n'"))
    assert status == 1, out
    assert "no transcript" in out


def test_one_crashing_child_is_named_INV_DET_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """INV-DET-3: a crash under one hash seed only is named with that seed."""
    body = f'if [ "$PYTHONHASHSEED" = 12345 ]; then echo "KeyError: x" >&2; exit 3; fi\nexec {sys.executable} "$@"'
    status, out = determinism(monkeypatch, capsys, fake_interpreter(tmp_path, body))
    assert status == 1, out
    assert "PYTHONHASHSEED=12345 failed (exit 3)" in out and "KeyError: x" in out
    assert "PYTHONHASHSEED=0 failed" not in out


def test_two_whole_equal_runs_pass(capsys: pytest.CaptureFixture[str]) -> None:
    """The control: real children, the same bytes, exit 0 (so the tests above fail for their cause)."""
    assert main(["determinism", "5"]) == 0
    assert "1 seed(s), 0 divergent" in capsys.readouterr().out


# -- recorded seeds on every supported Python (issue 13, item 19) --------------------------------------

SIM = Path(__file__).resolve().parents[2] / "sim"
#: ``random.Random`` methods whose sequences CPython does not promise across versions.
UNPROMISED = {
    "choice", "choices", "randint", "randrange", "shuffle", "sample", "getrandbits", "randbytes", "uniform",
    "triangular", "gauss", "normalvariate", "expovariate", "betavariate", "binomialvariate",
}  # fmt: skip


class OnlyRandom:
    """A ``random.Random`` with nothing but ``random()``: a draw made any other way raises."""

    def __init__(self, seed: int) -> None:
        self._real = REAL_RANDOM(seed)

    def random(self) -> float:
        return self._real.random()


REAL_RANDOM = random.Random


def test_the_simulator_calls_nothing_but_random_on_a_prng_INV_DET_4() -> None:
    """INV-DET-4: no module of sim/ calls a ``random.Random`` method whose sequence may change between
    Python versions (the ``prng.random()``-based helpers of sim/draws.py instead)."""
    calls = []
    for module in sorted(SIM.glob("*.py")):
        for node in ast.walk(ast.parse(module.read_text(), str(module))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in UNPROMISED:
                owner = ast.unparse(node.func.value)
                if "prng" in owner or "random" in owner:
                    calls.append(f"sim/{module.name}:{node.lineno}: {owner}.{node.func.attr}()")
    assert calls == []


def test_scenarios_and_load_plans_are_drawn_from_random_alone_INV_DET_4(monkeypatch: pytest.MonkeyPatch) -> None:
    """INV-DET-4: the same scenarios when the prng offers ``random()`` only."""
    from sim.load import plan
    from sim.scenario import generate

    expected = [generate(seed) for seed in range(1, 61)]
    plans = [plan(seed, 1, 30) for seed in range(1, 11)]
    monkeypatch.setattr(random, "Random", OnlyRandom)
    assert [generate(seed) for seed in range(1, 61)] == expected
    assert [plan(seed, 1, 30) for seed in range(1, 11)] == plans


def test_draws_are_uniform_and_bounded() -> None:
    from sim.draws import below, between, choice

    prng = OnlyRandom(7)
    seen = [below(prng, 5) for _ in range(5000)]  # type: ignore[arg-type]
    assert sorted(set(seen)) == [0, 1, 2, 3, 4] and all(800 < seen.count(k) < 1200 for k in range(5))
    assert {between(prng, 3, 4) for _ in range(200)} == {3, 4}  # type: ignore[arg-type]
    assert {choice(prng, "ab") for _ in range(200)} == {"a", "b"}  # type: ignore[arg-type]

    class Last:
        def random(self) -> float:
            return 1 - 2**-53  # the largest value random() returns

    assert below(Last(), 3) == 2 and below(Last(), 2**31) == 2**31 - 1  # type: ignore[arg-type]
    for bad in (lambda: below(prng, 0), lambda: between(prng, 2, 1), lambda: choice(prng, ())):
        with pytest.raises(ValueError):
            bad()


def test_seeds_recorded_on_another_python_replay_INV_DET_4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """INV-DET-4: a digest covers the transcript only; seeds recorded under another minor version of
    Python replay (the old header line is ignored) instead of being refused."""
    from sim.__main__ import run_one
    from sim.scenario import GENERATOR_VERSION
    from sim.seeds import Recorded

    recorded = [Recorded(seed, run_one(seed, "memory")[1]["memory"].digest()) for seed in (1, 2, 3)]
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"# generator {GENERATOR_VERSION}\n# python 3.99\n" + "".join(e.line() + "\n" for e in recorded))
    assert main(["replay", "--seeds", str(seeds), "--target", "memory"]) == 0
    assert "replayed 3 seeds" in capsys.readouterr().out


def test_recording_pins_no_python_version_INV_DET_4(tmp_path: Path) -> None:
    """INV-DET-4: what ``python -m sim record`` writes names the generator, not the interpreter."""
    from sim.seeds import Recorded, read_seeds, write_seeds

    path = tmp_path / "seeds.txt"
    write_seeds(path, [Recorded(1, "ab" * 32)])
    header, entries = read_seeds(path)
    assert "python" not in header and "generator" in header
    assert entries == [Recorded(1, "ab" * 32)]
