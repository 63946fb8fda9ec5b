"""The simulator's HTTP target: recorded seeds as Streamable HTTP requests to the MCP endpoint.

Which seeds: the HTTP target runs in this process in simulated time (~0.05 s a seed), but the
quick tier has no minute to spare for all 1,000 twice, so a fixed sample of recorded seeds:

* every ``OWN_EVERY``-th of the recorded seeds that are their own HTTP form (no kind switched off):
  their HTTP transcript must have the recorded digest (INV-SIMHTTP-2);
* every ``FORM_EVERY``-th recorded seed, in its HTTP form: the HTTP transcript must be the memory
  target's transcript of that form, byte for byte (INV-SIMHTTP-1).

``python -m sim replay --target http`` runs all 1,000 both ways. The other tests pin what the
sample must cover (both eras, every handshake version, kills, cancellations in both eras, served
batches), what the mapping switches off and why (those kinds really do answer otherwise over
HTTP), the determinism of the target and its command line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim.__main__ import TARGETS, main, run_one
from sim.check import check, first_difference
from sim.http_target import NO_HTTP_FORM, NO_STATELESS_FORM, HttpTarget, http_form, off_for_http
from sim.scenario import FAULTS, HANDSHAKE_VERSIONS, Scenario, generate
from sim.seeds import DEFAULT_SEEDS, Recorded, read_seeds
from sim.targets import MemoryTarget

ROOT = Path(__file__).resolve().parents[2]
HEADER, RECORDED = read_seeds(DEFAULT_SEEDS)
OWN_EVERY = 2
FORM_EVERY = 20
SHARDS = 4


def _scenario(entry: Recorded) -> Scenario:
    return generate(entry.seed, steps=entry.steps, off=entry.off)


OWN = [entry for entry in RECORDED if not off_for_http(_scenario(entry))][::OWN_EVERY]
FORMS = RECORDED[::FORM_EVERY]


@pytest.mark.parametrize("shard", range(SHARDS))
def test_recorded_seeds_that_are_their_own_http_form_keep_their_digest_over_http_INV_SIMHTTP_2(shard: int) -> None:
    failures = []
    for entry in OWN[shard::SHARDS]:
        scenario = _scenario(entry)
        transcript = HttpTarget().run(scenario)
        problems = check(scenario, transcript)
        if problems or transcript.digest() != entry.digest:
            failures.append(f"seed {entry.seed}: {problems[:3]} digest {transcript.digest()} != {entry.digest}")
    assert not failures, "\n".join(failures[:10])


@pytest.mark.parametrize("shard", range(SHARDS))
def test_the_http_form_of_recorded_seeds_answers_as_in_memory_INV_SIMHTTP_1(shard: int) -> None:
    failures = []
    for entry in FORMS[shard::SHARDS]:
        scenario, _transcripts, problems = run_one(entry.seed, "http", entry.steps, entry.off)
        assert scenario == http_form(entry.seed, entry.steps, entry.off)
        if problems:
            failures.append(f"seed {entry.seed}: {problems[:3]}")
    assert not failures, "\n".join(failures)


def test_the_sample_covers_both_eras_every_version_kills_cancels_and_batches() -> None:
    scenarios = [_scenario(entry) for entry in OWN] + [http_form(e.seed, e.steps, e.off) for e in FORMS]
    handshake = [s for s in scenarios if s.era == "handshake"]
    stateless = [s for s in scenarios if s.era == "stateless"]
    assert len(handshake) >= 20 and len(stateless) >= 10
    assert {s.negotiated for s in handshake} == set(HANDSHAKE_VERSIONS)
    assert any("1999-01-01" == s.version for s in handshake)  # a version not served: negotiated down
    labels = {(s.era, step.label) for s in scenarios for step in s.steps}
    assert any(label.startswith("kill -9") for era, label in labels if era == "handshake")
    assert ("handshake", "handshake after restart") in labels
    for era in ("handshake", "stateless"):
        assert (era, "cancel during") in labels, era
    assert ("handshake", "batch") in labels  # served, 2025-03-26
    assert ("handshake", "batch refused") in labels
    assert any("garbage" in label for era, label in labels)
    assert any(label.startswith("eof after") for era, label in labels)


def test_kinds_with_no_http_form_are_switched_off_and_the_rest_kept() -> None:
    for entry in RECORDED[:200]:
        full = _scenario(entry)
        form = http_form(entry.seed, entry.steps, entry.off)
        formless = NO_HTTP_FORM + (NO_STATELESS_FORM if full.era == "stateless" else ())
        assert (form.era, form.version) == (full.era, full.version)
        assert form.faults == tuple(kind for kind in full.faults if kind not in formless)
        assert off_for_http(form) == ()
    assert set(NO_HTTP_FORM + NO_STATELESS_FORM) < set(FAULTS)


@pytest.mark.parametrize("kind", NO_HTTP_FORM + NO_STATELESS_FORM)
def test_each_kind_switched_off_really_answers_otherwise_over_http(kind: str) -> None:
    """The mapping is not a convenience: with the kind left on, some seed's HTTP transcript
    differs from the memory one (the HTTP layer answers with a refusal of its own)."""
    for entry in RECORDED:
        scenario = _scenario(entry)
        if kind not in off_for_http(scenario):
            continue
        others = tuple(other for other in off_for_http(scenario) if other != kind)
        kept = generate(entry.seed, steps=entry.steps, off=(*entry.off, *others))
        if first_difference(MemoryTarget().run(kept), HttpTarget().run(kept)):
            return
    pytest.fail(f"no recorded seed answers otherwise over HTTP with {kind!r} on: it has an HTTP form")


def test_the_oracle_catches_a_wrong_http_transcript() -> None:
    entry = OWN[0]
    scenario = _scenario(entry)
    memory = MemoryTarget().run(scenario)
    http = HttpTarget().run(scenario)
    assert first_difference(memory, http) is None
    index = next(i for i, frames in enumerate(http.steps) if frames)
    steps = list(http.steps)
    steps[index] = steps[index][:-1]  # one answer lost
    wrong = type(http)(http.target, tuple(steps), http.end)
    assert first_difference(memory, wrong)
    assert check(scenario, wrong)


def test_a_stateless_cancellation_is_the_client_closing_its_response_stream() -> None:
    """2026-07-28 has no ``notifications/cancelled`` to act on: the target closes the waiting
    request's stream, and the call's answer never comes (as in memory, where the session drops it)."""
    forms = (http_form(entry.seed, entry.steps, entry.off) for entry in FORMS + OWN)
    scenario = next(
        form for form in forms if form.era == "stateless" and any(step.label == "cancel during" for step in form.steps)
    )
    transcript = HttpTarget().run(scenario)
    index = next(i for i, step in enumerate(scenario.steps) if step.label == "cancel during")
    assert transcript.steps[index] == ()
    assert first_difference(MemoryTarget().run(scenario), transcript) is None


def test_the_http_target_is_deterministic_in_process() -> None:
    for entry in FORMS[:5]:
        scenario = http_form(entry.seed, entry.steps, entry.off)
        assert HttpTarget().run(scenario).encode() == HttpTarget().run(scenario).encode()


def test_http_transcripts_are_the_same_under_two_hash_seeds() -> None:
    seed = FORMS[1].seed
    outputs = []
    for hash_seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        result = subprocess.run(
            [sys.executable, "-m", "sim", "run", str(seed), "--target", "http", "--raw"],
            env=env, cwd=ROOT, capture_output=True, timeout=120, check=False,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr[-500:]
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1] and outputs[0].count(b"end\t") == 2


def test_command_line_runs_and_replays_the_http_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert TARGETS["http"] == ("memory", "http")
    own = OWN[0]
    assert main(["run", str(own.seed), "--target", "http", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"memory: digest {own.digest}" in out and f"http: digest {own.digest}" in out
    header = "".join(f"# {key} {value}\n" for key, value in HEADER.items())
    formed = next(entry for entry in FORMS if off_for_http(_scenario(entry)))  # digest is the full scenario's
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(header + own.line() + "\n" + formed.line() + "\n")
    assert main(["replay", "--seeds", str(seeds), "--target", "http", "--jobs", "1"]) == 0
    assert "0 failure(s)" in capsys.readouterr().out
    seeds.write_text(header + Recorded(own.seed, "0" * 64).line() + "\n")
    assert main(["replay", "--seeds", str(seeds), "--target", "http", "--jobs", "1"]) == 1
    assert f"seed {own.seed} (http): digest" in capsys.readouterr().out
