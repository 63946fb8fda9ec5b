"""The simulator's command line.

python -m sim run SEED [--target TARGET] [--steps N] [--off KIND,...] [--transcript FILE]
python -m sim replay [--target TARGET] [--jobs N]
python -m sim record [--count N]
python -m sim fuzz --seconds N [--target TARGET] [--pipelined]
python -m sim determinism SEED... (each seed in two processes under different PYTHONHASHSEEDs)

TARGET: memory, pipe or daemon (``sim/targets.py``); ``both`` is memory and pipe, ``all`` is all
three; ``http`` is the memory target and the HTTP target (``sim/http_target.py``) on the seed's
HTTP form (its kinds with no HTTP form switched off). Every transcript is compared with the memory
target's. A command keeps one daemon target
open per thread for all its scenarios (one daemon each) and stops them when it ends.
"""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import orjson

from .check import check, first_difference
from .http_target import HttpTarget, http_form, off_for_http
from .pipelined import compare_pipelined
from .scenario import FAULTS, GENERATOR_VERSION, Scenario, generate
from .seeds import DEFAULT_SEEDS, TRANSCRIPTS, Recorded, read_seeds, write_seeds
from .targets import DaemonTarget, MemoryTarget, PipeTarget, Transcript

ROOT = Path(__file__).resolve().parent.parent
#: ``--target`` values and the targets each runs, memory first (the others are compared with it).
TARGETS = {
    "memory": ("memory",),
    "pipe": ("pipe",),
    "daemon": ("daemon",),
    "both": ("memory", "pipe"),
    "all": ("memory", "pipe", "daemon"),
    "http": ("memory", "http"),
}


class _Daemons:
    """The daemon targets a command keeps open: one per thread (a kill step ends every session of
    its daemon, so threads never share one), each serving all the scenarios of its thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[int, DaemonTarget] | None = None

    @contextmanager
    def kept(self) -> Iterator[None]:
        """Within this block, daemon targets stay open between scenarios; stopped at its end."""
        with self._lock:
            self._open = {}
        try:
            yield
        finally:
            with self._lock:
                targets, self._open = list((self._open or {}).values()), None
            for target in targets:
                target.close()

    def run(self, scenario: Scenario) -> Transcript:
        with self._lock:
            kept = self._open
            if kept is not None and threading.get_ident() not in kept:
                kept[threading.get_ident()] = DaemonTarget()
            target = None if kept is None else kept[threading.get_ident()]
        if target is not None:
            return target.run(scenario)
        with DaemonTarget() as fresh:  # outside a command (a test calling run_one): a daemon for one run
            return fresh.run(scenario)


_DAEMONS = _Daemons()


def run_one(
    seed: int, target: str, steps: int | None = None, off: Sequence[str] = (), pipelined: bool = False
) -> tuple[Scenario, dict[str, Transcript], list[str]]:
    """Run one scenario on the chosen targets (and, with ``pipelined``, once more all written at
    once, compared per id); the lockstep transcripts and every problem found."""
    scenario = http_form(seed, steps, off) if target == "http" else generate(seed, steps=steps, off=off)
    run = {"memory": MemoryTarget().run, "pipe": PipeTarget().run, "daemon": _DAEMONS.run, "http": HttpTarget().run}
    transcripts = {name: run[name](scenario) for name in TARGETS[target]}
    problems = [problem for transcript in transcripts.values() for problem in check(scenario, transcript)]
    memory = transcripts.get("memory")
    for name, transcript in transcripts.items():
        difference = first_difference(memory, transcript) if memory and name != "memory" else None
        if difference:
            problems.append(f"memory and {name} transcripts differ at {difference}")  # INV-DET-2, INV-DAEMON-1
    if pipelined:
        problems += compare_pipelined(scenario)
    return scenario, transcripts, problems


def command_for(
    seed: int, steps: int | None = None, off: Sequence[str] = (), target: str = "both", pipelined: bool = False
) -> str:
    parts = [f"python -m sim run {seed}", f"--target {target}"]
    if pipelined:
        parts.append("--pipelined")
    if steps is not None:
        parts.append(f"--steps {steps}")
    if off:
        parts.append(f"--off {','.join(off)}")
    return " ".join(parts)


def readable(scenario: Scenario, transcript: Transcript) -> bytes:
    """A transcript as JSON lines a person can review."""
    lines = [
        {
            "seed": scenario.seed,
            "generator": GENERATOR_VERSION,
            "era": scenario.era,
            "version": scenario.version,
            "faults": list(scenario.faults),
            "target": transcript.target,
        }
    ]
    for index, step in enumerate(scenario.steps):
        if index >= len(transcript.steps):
            break
        frames = transcript.steps[index]
        sent = step.data.decode("utf-8", errors="backslashreplace")
        entry: dict[str, object] = {
            "step": index,
            "kind": step.kind,
            "label": step.label,
            "sent": sent if len(sent) <= 300 else f"{sent[:300]}... ({len(step.data)} bytes)",
            "writes": len(step.writes),
        }
        if frames is None:
            entry["answers"] = "killed"
        else:
            entry["answers"] = [_decoded(frame) for frame in frames]
        lines.append(entry)
    lines.append({"end": transcript.end, "digest": transcript.digest()})
    return b"".join(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE) for line in lines)


def _decoded(frame: bytes) -> object:
    if len(frame) > 2000:
        return f"{frame[:200].decode(errors='replace')}... ({len(frame)} bytes)"
    try:
        return orjson.loads(frame)
    except orjson.JSONDecodeError:
        return frame.decode(errors="backslashreplace")


# --- commands ------------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    off = _kinds(args.off)
    scenario, transcripts, problems = run_one(args.seed, args.target, args.steps, off, args.pipelined)
    print(
        f"seed {scenario.seed}: {scenario.era} {scenario.version}, {len(scenario.steps)} steps, "
        f"faults: {', '.join(scenario.faults) or 'none'}"
    )
    for name, transcript in transcripts.items():
        if args.transcript:
            path = Path(args.transcript.replace("{target}", name))
            path.write_bytes(readable(scenario, transcript))
            print(f"{name}: transcript written to {path}")
        elif not args.quiet:
            sys.stdout.write(readable(scenario, transcript).decode())
        print(f"{name}: digest {transcript.digest()}")
    for problem in problems:
        print(f"PROBLEM: {problem}")
    if problems:
        print(f"reproduce: {command_for(args.seed, args.steps, off, args.target, args.pipelined)}")
    return 1 if problems else 0


def cmd_replay(args: argparse.Namespace) -> int:
    header, recorded = read_seeds(Path(args.seeds))
    # The generator, not the interpreter: a digest covers the transcript only (INV-DET-4).
    if header.get("generator") != str(GENERATOR_VERSION):
        print(
            f"seeds were recorded with generator {header.get('generator')}; this is generator {GENERATOR_VERSION}: "
            "re-record with `python -m sim record`"
        )
        return 2
    started = time.monotonic()
    failures: list[str] = []
    count = len(recorded)
    rates = []
    for name in TARGETS[args.target]:
        t0 = time.monotonic()
        if name == "memory":
            for entry in recorded:
                failures += _replay_entry(entry, "memory")
            rates.append(f"memory {count / (time.monotonic() - t0):.0f} seeds/s")
            continue
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for found in pool.map(lambda entry, name=name: _replay_entry(entry, name), recorded):
                failures += found
        rates.append(f"{name} {count / (time.monotonic() - t0):.1f} seeds/s with {args.jobs} jobs")
    for failure in failures:
        print(f"FAIL {failure}")
    print(
        f"replayed {count} seeds in {time.monotonic() - started:.1f}s ({'; '.join(rates)}): {len(failures)} failure(s)"
    )
    return 1 if failures else 0


def _replay_entry(entry: Recorded, target: str) -> list[str]:
    _scenario, transcripts, problems = run_one(entry.seed, target, entry.steps, entry.off)
    transcript = transcripts[target]
    failures = [f"seed {entry.seed} ({target}): {problem}" for problem in problems]
    if target == "http" and off_for_http(generate(entry.seed, steps=entry.steps, off=entry.off)):
        return failures  # not its own HTTP form: compared with the memory target's run of that form
    if transcript.digest() != entry.digest:
        failures.append(
            f"seed {entry.seed} ({target}): digest {transcript.digest()} differs from the recorded {entry.digest}; "
            f"reproduce: {command_for(entry.seed, entry.steps, entry.off, target)}"
        )
    return failures


def cmd_record(args: argparse.Namespace) -> int:
    path = Path(args.seeds)
    _, existing = read_seeds(path) if path.exists() else ({}, [])
    extra = [entry for entry in existing if entry.steps is not None or entry.off]  # fuzz finds stay
    entries: list[Recorded] = []
    for seed in range(1, args.count + 1):
        _, transcripts, problems = run_one(seed, "memory")
        if problems:
            for problem in problems:
                print(f"PROBLEM seed {seed}: {problem}")
            return 1
        entries.append(Recorded(seed, transcripts["memory"].digest()))
    for entry in extra:
        _, transcripts, _ = run_one(entry.seed, "memory", entry.steps, entry.off)
        entries.append(Recorded(entry.seed, transcripts["memory"].digest(), entry.steps, entry.off))
    write_seeds(path, entries)
    TRANSCRIPTS.mkdir(parents=True, exist_ok=True)
    for seed in args.keep:
        scenario, transcripts, _ = run_one(seed, "memory")
        (TRANSCRIPTS / f"{seed}.jsonl").write_bytes(readable(scenario, transcripts["memory"]))
    print(f"recorded {len(entries)} seeds in {path}; readable transcripts for {args.keep} in {TRANSCRIPTS}")
    return 0


def cmd_fuzz(args: argparse.Namespace) -> int:
    deadline = time.monotonic() + args.seconds
    seed = args.start if args.start is not None else 10_000 + secrets.randbelow(2**31 - 10_000)  # fresh seeds
    tried = 0
    while time.monotonic() < deadline:
        _, _, problems = run_one(seed, args.target, pipelined=args.pipelined)
        tried += 1
        if problems:
            print(f"FAILING seed {seed} after {tried} seeds:", flush=True)
            for problem in problems:  # what failed, before minimising: a timing failure may not come again
                print(f"  {problem}", flush=True)
            steps, off = _minimise(seed, args.target, args.pipelined)
            print(f"minimal: steps={steps} off={','.join(off) or '-'}")
            _, _, problems = run_one(seed, args.target, steps, off, args.pipelined)
            for problem in problems:
                print(f"  {problem}")
            if not problems:
                print("  (the minimal run passed: the failure depends on timing; run the seed again to see it)")
            print(f"reproduce: {command_for(seed, steps, off, args.target, args.pipelined)}")
            print(
                f"record it: add the line `{seed} <digest> steps={steps} off={','.join(off) or '-'}` "
                f"to {args.seeds} once fixed (python -m sim record keeps it)"
            )
            return 1
        seed += 1
    print(f"fuzz: {tried} seeds, no failure ({args.target}, {args.seconds}s)")
    return 0


def _minimise(seed: int, target: str, pipelined: bool) -> tuple[int, tuple[str, ...]]:
    """Lower the step count, then switch fault kinds off, while the seed still fails."""
    scenario = generate(seed)
    low, high = 0, len(scenario.steps)
    while low < high:  # the smallest step count that still fails
        middle = (low + high) // 2
        if run_one(seed, target, middle, pipelined=pipelined)[2]:
            high = middle
        else:
            low = middle + 1
    off: list[str] = []
    for kind in scenario.faults:
        if run_one(seed, target, high, (*off, kind), pipelined)[2]:
            off.append(kind)
    return high, tuple(off)


#: The two ``PYTHONHASHSEED``s of a determinism check (set order differs between them).
HASH_SEEDS: Final = ("0", "12345")
#: How long one child of a determinism check may take.
DETERMINISM_TIMEOUT_S: Final = 300


def cmd_determinism(args: argparse.Namespace) -> int:
    """Each seed in two fresh processes under two hash seeds: each child must end well with one whole
    transcript per target (exit 0, ``end`` lines), and the two must be the same bytes (INV-DET-3)."""
    failures = 0
    for seed in args.seeds_to_check:
        outputs: list[bytes] = []
        broken: list[str] = []
        for hash_seed in HASH_SEEDS:
            output, why, stderr = _child_transcripts(seed, args.target, hash_seed)
            outputs.append(output)
            if why:
                cause = "".join(f"\n  stderr: {line[:300]}" for line in stderr)
                broken.append(f"seed {seed}: the run under PYTHONHASHSEED={hash_seed} failed ({why}){cause}")
        if broken:  # nothing to compare: equal crashes or equal silence prove nothing
            print("\n".join(broken))
        elif outputs[0] != outputs[1]:
            left, right = outputs[0].splitlines(), outputs[1].splitlines()
            for index, (a, b) in enumerate(zip(left, right, strict=False)):
                if a != b:
                    print(
                        f"seed {seed}: runs differ at frame {index}\n  PYTHONHASHSEED=0:     {a[:300]!r}\n"
                        f"  PYTHONHASHSEED=12345: {b[:300]!r}"
                    )
                    break
            else:
                print(f"seed {seed}: runs differ in length ({len(left)} vs {len(right)} frames)")
        else:
            continue
        failures += 1
        print(
            f"reproduce: PYTHONHASHSEED=0 {command_for(seed, target=args.target)} ; "
            f"PYTHONHASHSEED=12345 {command_for(seed, target=args.target)}"
        )
    print(f"determinism: {len(args.seeds_to_check)} seed(s), {failures} divergent or failed")
    return 1 if failures else 0


def _child_transcripts(seed: int, target: str, hash_seed: str) -> tuple[bytes, str, list[str]]:
    """One child's canonical transcripts, why they cannot be compared ("" when they can) and the last
    lines of its stderr. They cannot when the child did not start, ran out of time, exited non-zero,
    or printed anything but one whole transcript per target (each ends with its ``end`` line)."""
    expected = len(TARGETS[target])
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    try:
        result = subprocess.run(
            [sys.executable, "-m", "sim", "run", str(seed), "--target", target, "--raw"],
            check=False, env=env, cwd=ROOT, capture_output=True, timeout=DETERMINISM_TIMEOUT_S,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return b"", f"no end within {DETERMINISM_TIMEOUT_S} s", []
    except OSError as exc:
        return b"", f"cannot start {sys.executable}: {exc.strerror or exc}", []
    stderr = result.stderr.decode("utf-8", "replace").strip().splitlines()[-5:]
    if result.returncode != 0:
        return result.stdout, f"exit {result.returncode}", stderr
    lines = result.stdout.splitlines()
    ends = sum(1 for line in lines if line.startswith(b"end\t"))
    if ends != expected or not lines[-1].startswith(b"end\t"):
        whole = f", {ends} of {expected} transcript(s) whole" if lines else ""
        return result.stdout, f"no transcript: {len(result.stdout)} bytes on stdout{whole}", stderr
    return result.stdout, "", stderr


def _kinds(text: str | None) -> tuple[str, ...]:
    kinds = tuple(kind for kind in (text or "").split(",") if kind and kind != "-")
    unknown = [kind for kind in kinds if kind not in FAULTS]
    if unknown:
        raise SystemExit(f"unknown fault kind(s) {unknown}; known: {', '.join(FAULTS)}")
    return kinds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sim", description="Deterministic simulation of mesh-mcp sessions.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run one seed, verbosely")
    run.add_argument("seed", type=int)
    run.add_argument("--target", choices=tuple(TARGETS), default="both")
    run.add_argument("--steps", type=int)
    run.add_argument("--off", help="fault kinds to switch off, comma-separated")
    run.add_argument("--transcript", help="write readable transcripts here ({target} is replaced)")
    run.add_argument("--raw", action="store_true", help="print only the canonical transcript bytes")
    run.add_argument("--quiet", action="store_true")
    run.add_argument("--pipelined", action="store_true", help="also write it all at once and compare per id")
    replay = commands.add_parser("replay", help="replay every recorded seed")
    replay.add_argument("--target", choices=tuple(TARGETS), default="both")
    replay.add_argument("--jobs", type=int, default=4, help="pipe sessions (or daemons) at once")
    record = commands.add_parser("record", help="re-record seeds/ deliberately")
    record.add_argument("--count", type=int, default=1000)
    record.add_argument("--keep", type=int, nargs="*", default=[1, 2, 3, 7], help="seeds kept as readable transcripts")
    fuzz = commands.add_parser("fuzz", help="fresh seeds until the budget ends")
    fuzz.add_argument("--seconds", type=float, required=True)
    fuzz.add_argument("--target", choices=tuple(TARGETS), default="memory")
    fuzz.add_argument("--start", type=int, help="first seed (default: a random one)")
    fuzz.add_argument("--pipelined", action="store_true", help="also run each seed pipelined")
    determinism = commands.add_parser("determinism", help="each seed in two processes, other hash seeds")
    determinism.add_argument("seeds_to_check", type=int, nargs="+", metavar="SEED")
    determinism.add_argument("--target", choices=tuple(TARGETS), default="memory")
    for sub in (replay, record, fuzz):
        sub.add_argument("--seeds", default=str(DEFAULT_SEEDS), help="the recorded seeds file")
    args = parser.parse_args(argv)
    # Tool crashes are part of the scenarios; their tracebacks would drown the report.
    logging.getLogger("mesh").setLevel(logging.CRITICAL)
    with _DAEMONS.kept():
        if args.command == "run" and args.raw:
            _, transcripts, _ = run_one(args.seed, args.target, args.steps, _kinds(args.off))
            for transcript in transcripts.values():
                sys.stdout.buffer.write(transcript.encode())
            return 0
        handler = {"run": cmd_run, "replay": cmd_replay, "record": cmd_record, "fuzz": cmd_fuzz,
                   "determinism": cmd_determinism}[args.command]  # fmt: skip
        return handler(args)


if __name__ == "__main__":
    sys.exit(main())
