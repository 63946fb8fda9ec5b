"""Load on one daemon: 100 concurrent proxy sessions, then kill -9 of the daemon under load.

Theory of operation
-------------------
One :class:`sim.targets.DaemonTarget` (one socket folder, so one daemon), clients from
``sim/load.py``. What every call must answer is computed first, in this process
(``expected_results``). Then, in order:

0. one proxy session starts the daemon (a call, EOF, exit 0); its RSS is read;
1. **load**: ``SESSIONS`` proxies start and say ``initialize``; once all have answered, each writes
   its seeded mix of ``CALLS_MIN..CALLS_MAX`` real tool calls at once (pipelined, ids unique per
   session) and closes its input. Every request must be answered exactly once, with its own id
   and exactly the expected result, and every proxy must exit 0 (INV-DAEMON-3, INV-PROXY-2);
2. **kill under load**: ``SESSIONS`` more proxies each write ``KILL_CALLS`` calls at once; when
   every one has had an answer (so all are mid-stream), the daemon gets SIGKILL. Every proxy must
   exit 1, naming the daemon's log, within ``EXIT_AFTER_KILL_S``; what each received before is
   whole frames (at most a torn last line) of right answers (INV-DAEMON-2, INV-DRAIN-4);
3. **restart**: one fresh proxy starts a new daemon, which answers a call from the index left on
   disk (not "Still indexing") and exits 0.

Figures (printed, and written as JSON to ``$MESH_LOAD_REPORT`` when set): the daemon's RSS before
and after the load and its peak (``VmHWM``), its open files before and after, client-measured
p50/p99 latency per call (pipelined: a call's latency includes its wait behind the session's
earlier calls), how long the proxies took to exit after the kill. None is asserted (shared, noisy machines); the waits are
hang detectors (``HANG_S``), far above what a healthy run needs.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import orjson
import pytest

from sim.load import LoadSession, expected_results, percentile, plan
from sim.scenario import REAL_CALLS
from sim.targets import DaemonTarget, _torn_output_problems, memory_kib, until

pytestmark = [pytest.mark.journey]

SESSIONS: Final = 100
LOAD_SEEDS: Final = range(7001, 7001 + SESSIONS)
KILL_SEEDS: Final = range(8001, 8001 + SESSIONS)
CALLS_MIN: Final = 5
CALLS_MAX: Final = 20
#: Calls each session of the kill phase writes: far more than it is answered before the kill.
KILL_CALLS: Final = 60
#: Hang detector for every wait (a start, a handshake, a session's answers, an exit).
HANG_S: Final = 120.0
#: A proxy whose daemon was killed exits within this (tens of ms when healthy).
EXIT_AFTER_KILL_S: Final = 30.0
GET_ORDER: Final = REAL_CALLS.index(("smart_search", {"query": "GetOrder"}, "result"))


def _run_together(
    target: DaemonTarget, sessions: list[LoadSession], opened: Callable[[LoadSession], None]
) -> list[threading.Thread]:
    """Open every session on its own thread; once all are open (or failed), each runs ``opened``."""
    gate = threading.Barrier(len(sessions) + 1)

    def run(session: LoadSession) -> None:
        try:
            ready = session.open(target, HANG_S)
        except OSError as exc:  # no process could be started: reported, and the gate still reached
            session.problems.append(f"the proxy did not start: {exc}")
            ready = False
        try:
            gate.wait(HANG_S * 2)
        except threading.BrokenBarrierError:
            session.problems.append("the start gate broke")
            return
        if ready:
            opened(session)

    threads = [
        threading.Thread(target=run, args=(session,), daemon=True, name=f"seed-{session.seed}") for session in sessions
    ]
    for thread in threads:
        thread.start()
    gate.wait(HANG_S * 2)
    return threads


def _join(threads: list[threading.Thread], timeout_s: float) -> list[str]:
    deadline = time.monotonic() + timeout_s
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    return [thread.name for thread in threads if thread.is_alive()]


def _id(line: bytes) -> int:
    """An answer's id; -1 for a line that is not an answer with an integer id."""
    try:
        request_id = orjson.loads(line).get("id")
    except (orjson.JSONDecodeError, AttributeError):
        return -1
    return request_id if type(request_id) is int else -1


def _open_files(pid: int) -> int | None:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def _load_phase(target: DaemonTarget, expected: tuple[dict[str, Any], ...]) -> tuple[list[LoadSession], list[str]]:
    sessions = [LoadSession(seed, plan(seed, CALLS_MIN, CALLS_MAX)) for seed in LOAD_SEEDS]

    hung = _join(_run_together(target, sessions, lambda session: session.finish(HANG_S)), HANG_S * 3)
    failures = [f"load: {name} still running after {HANG_S * 3:g}s" for name in hung]
    for session in sessions:
        where = f"load seed {session.seed}"
        failures += [f"{where}: {problem}" for problem in session.problems]
        failures += [f"{where}: {wrong}" for wrong in session.wrong_answers(expected)]
        answered = sorted(_id(line) for _, line in session.answers)
        if answered != list(range(1, len(session.calls) + 1)):
            failures.append(f"{where}: answered ids {answered}, sent 1..{len(session.calls)}")
        if session.exit_code != 0:
            failures.append(f"{where}: the proxy exited {session.exit_code} after EOF, expected 0")
        assert session.server is not None
        stderr = session.server.stderr_text(5).strip()
        if stderr:
            failures.append(f"{where}: the proxy wrote on stderr: {stderr[:300]}")
    return sessions, failures


def _kill_phase(
    target: DaemonTarget, expected: tuple[dict[str, Any], ...], daemon: int
) -> tuple[dict[str, Any], list[str]]:
    sessions = [LoadSession(seed, plan(seed, KILL_CALLS, KILL_CALLS)) for seed in KILL_SEEDS]
    exited_at: dict[int, float] = {}

    def work(session: LoadSession) -> None:
        session.send()
        session.collect(HANG_S)
        session.wait_exit(HANG_S)
        exited_at[session.seed] = time.monotonic()

    threads = _run_together(target, sessions, work)
    failures = []
    if not until(lambda: all(session.answers or session.problems for session in sessions), HANG_S):
        failures.append(f"kill: some sessions had no answer within {HANG_S:g}s")
    mid_stream = sum(1 for session in sessions if len(session.answers) < len(session.calls))
    killed_at = time.monotonic()
    os.kill(daemon, signal.SIGKILL)
    hung = _join(threads, HANG_S * 2)
    failures += [f"kill: {name} still running {HANG_S * 2:g}s after the daemon was killed" for name in hung]
    exits_s = []
    for session in sessions:
        where = f"kill seed {session.seed}"
        failures += [f"{where}: {problem}" for problem in session.problems]
        lines = [line for _, line in session.answers]
        failures += [f"{where}: torn output: {problem}" for problem in _torn_output_problems(lines)]
        if lines and not lines[-1].endswith(b"\n"):
            session.answers.pop()  # a torn last line: allowed (INV-DRAIN-4), not an answer
        failures += [f"{where}: {wrong}" for wrong in session.wrong_answers(expected)]
        if session.exit_code != 1:
            failures.append(f"{where}: the proxy exited {session.exit_code} after its daemon was killed, expected 1")
        if session.seed in exited_at:
            exits_s.append(exited_at[session.seed] - killed_at)
            if exited_at[session.seed] - killed_at > EXIT_AFTER_KILL_S:
                failures.append(f"{where}: the proxy exited {exited_at[session.seed] - killed_at:.1f}s after the kill")
        assert session.server is not None
        stderr = session.server.stderr_text(5)
        if str(target.log_file) not in stderr:
            failures.append(f"{where}: the proxy's stderr does not name the daemon's log: {stderr[-300:]!r}")
    figures = {
        "sessions_mid_stream_at_kill": mid_stream,
        "answers_before_kill": sum(len(session.answers) for session in sessions),
        "proxy_exit_after_kill_s_max": round(max(exits_s, default=0.0), 3),
        "proxy_exit_after_kill_s_p50": round(percentile(exits_s, 0.5), 3),
    }
    return figures, failures


@pytest.mark.timeout(900)
def test_a_hundred_proxies_on_one_daemon_then_kill_9_under_load_INV_DAEMON_3_INV_DAEMON_2() -> None:
    """INV-DAEMON-3: 100 concurrent pipelined sessions on one daemon, every call answered exactly once
    with its own id and the in-process answer, every proxy exit 0 on EOF. INV-DAEMON-2: kill -9 of
    the daemon under load ends every proxy with status 1, promptly; a new daemon reuses the index."""
    expected = expected_results()
    failures: list[str] = []
    report: dict[str, Any] = {"sessions": SESSIONS}
    started = time.monotonic()
    with DaemonTarget() as target:
        first = LoadSession(7000, (GET_ORDER,))
        first.run(target, HANG_S)
        if first.exit_code != 0 or first.wrong_answers(expected) or len(first.answers) != 1:
            failures.append(f"the first session: exit {first.exit_code}, {first.problems}, {first.answers!r:.300}")
        daemon = target.daemon_pid()
        assert daemon is not None, "the first proxy started no daemon"
        before = memory_kib(daemon)
        fds_before = _open_files(daemon)

        t0 = time.monotonic()
        sessions, found = _load_phase(target, expected)
        failures += found
        after = memory_kib(daemon)
        latencies = [latency for session in sessions for latency in session.latencies_s()]
        report.update(
            load_s=round(time.monotonic() - t0, 1),
            calls=sum(len(session.calls) for session in sessions),
            daemon_rss_kib_before=before.get("VmRSS"),
            daemon_rss_kib_after=after.get("VmRSS"),
            daemon_peak_rss_kib=after.get("VmHWM"),
            daemon_open_files_before=fds_before,
            daemon_open_files_after=_open_files(daemon),
            latency_ms_p50=round(percentile(latencies, 0.5) * 1000, 1),
            latency_ms_p99=round(percentile(latencies, 0.99) * 1000, 1),
            latency_ms_max=round(max(latencies, default=0.0) * 1000, 1),
        )
        for session in sessions:
            session.close()
        if target.daemon_pid() != daemon:
            failures.append(f"the daemon changed during the load: {daemon} -> {target.daemon_pid()}")

        t0 = time.monotonic()
        figures, found = _kill_phase(target, expected, daemon)
        failures += found
        report.update(figures, kill_s=round(time.monotonic() - t0, 1))

        fresh = LoadSession(7999, (GET_ORDER,))
        fresh.run(target, HANG_S)
        restarted = target.daemon_pid()
        text = b"".join(line for _, line in fresh.answers)
        if restarted in (None, daemon) or fresh.exit_code != 0 or len(fresh.answers) != 1:
            failures.append(f"restart: daemon {daemon} -> {restarted}, exit {fresh.exit_code}, {fresh.problems}")
        if b"Still indexing" in text or fresh.wrong_answers(expected):
            failures.append(f"restart: the new daemon did not answer from the index: {text[:300]!r}")
        fresh.close()
    if not until(lambda: not target.leftover_processes(), 10):
        failures.append(f"processes left after close: {target.leftover_processes()}")
    report["total_s"] = round(time.monotonic() - started, 1)
    print(f"daemon load: {json.dumps(report, sort_keys=True)}")
    if os.environ.get("MESH_LOAD_REPORT"):
        Path(os.environ["MESH_LOAD_REPORT"]).write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    assert not failures, f"{len(failures)} failure(s):\n" + "\n".join(failures[:50])
