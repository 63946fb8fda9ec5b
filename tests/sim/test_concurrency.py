"""Concurrency under faults: 100 seeded ``mesh-mcp mcp`` sessions, 50 at a time, a tenth killed with SIGKILL.

Theory of operation
-------------------
Seeds 5001..5100 each give a scenario (``sim.scenario.generate``) and its in-memory replay
(``MemoryTarget``), computed first, in this process. Then the scenarios run, ``AT_ONCE`` at a time,
each against its own real server process (``python -m mesh mcp --standalone`` over pipes, the sim tools
loaded), each session in its own thread, through ``PipeTarget.run`` itself: the only thing this
file changes is ``spawn``, which hands back a :class:`_TracedServer`, a ``sim.targets._Server``
that keeps every line it read, notes when stdout closed, can stop reading on demand, and reports
each step's write. ``PipeTarget.run`` writes exactly once per step, so the writes count the steps.

Ten sessions, drawn with ``random.Random(VICTIM_DRAW_SEED)``, are victims. Each gets a seeded
``send`` step and one of three seeded kill points in it; when the victim has written that step's
input it waits for its own killer thread, which sends SIGKILL to whatever server process is then
current for the session:

* ``delay``: a seeded 0-20 ms after the input (the server is reading or answering);
* ``answers``: once the client has read a seeded number of the step's answers (0 to all of them);
* ``stalled``: in a step whose answers are more than two pipe pages, the client shrinks the
  server's stdout pipe to one page and stops reading; the kill comes once the pipe is full, so the
  server is blocked in the middle of an answer and the client then reads a torn last line.

So every kill lands mid-session, in a known step; ``PipeTarget.run`` then carries on as a client
would (writes fail, reads see EOF, a scenario's own kill step starts a new server).

What must hold
--------------
* Survivors (INV-DET-2, INV-DRAIN-1): the transcript's bytes equal the in-memory replay's exactly,
  and ``sim.check.check`` finds nothing: 100 servers sharing two cores change no byte, and every
  request is answered exactly once.
* Victims (INV-DRAIN-4): the client sees EOF promptly after the kill (``EOF_AFTER_KILL_S``); the
  killed server's output is whole frames plus at most one partial last line
  (``_torn_output_problems``), and at least one ``stalled`` kill leaves a partial one; every step
  before the kill equals the replay and the killed step's bytes are a prefix of the replay's; a
  fresh server started afterwards serves a short fault-free scenario of the same seed (a
  handshake, or a single stateless request) exactly as the replay does.
* Nothing hangs: every read has a timeout (``ANSWER_TIMEOUT_S``), the whole run a deadline
  (``DEADLINE_S``); past it every server process is killed and the test names the sessions still
  running and the step each was in.

A failure names the seed, the first difference and ``python -m sim run SEED --target both``.
"""

from __future__ import annotations

import array
import fcntl
import os
import random
import signal
import subprocess
import termios
import threading
import time
import traceback
from typing import Final

import attrs
import pytest

from sim.check import check, first_difference
from sim.scenario import FAULTS, Scenario, generate
from sim.targets import MemoryTarget, PipeTarget, Transcript, _Server, _torn_output_problems, until

pytestmark = [pytest.mark.journey]

SEEDS: Final = range(5001, 5101)
VICTIM_DRAW_SEED: Final = 20_260_728
VICTIMS: Final = len(SEEDS) // 10
KILL_MODES: Final = ("delay", "answers", "stalled")
KILL_DELAYS_S: Final = (0.0, 0.0, 0.001, 0.002, 0.005, 0.01, 0.02)
#: ``stalled``: the server's stdout pipe shrinks to this (one page, the least Linux allows).
PIPE_PAGE: Final = 4096
#: Sessions running at once: half of them. All 100 at once start 100 Python servers on two cores, and
#: under a loaded suite (journeys beside it) the last first answers came after more than a minute.
AT_ONCE: Final = 50
#: Per read. Generous: 100 Python servers start at once on two cores, and a session's first answer
#: can take ~10 s under that load; a real hang is still caught by DEADLINE_S.
ANSWER_TIMEOUT_S: Final = 60.0
DEADLINE_S: Final = 240.0
EOF_AFTER_KILL_S: Final = 10.0
#: How long a killer waits for its kill point (the victim's step, its answers, a full pipe).
KILLER_WAIT_S: Final = 60.0


def reproduce(seed: int) -> str:
    return f"python -m sim run {seed} --target both"


@attrs.define(eq=False)
class _Session:
    """One scenario's run: what its killer needs (the current server, the step) and what it saw."""

    scenario: Scenario
    kill_at: int | None = None  # the step in which the server is killed (victims only)
    mode: str = ""
    kill_delay_s: float = 0.0
    kill_after_answers: int = 0
    server: _TracedServer | None = None
    step: int = -1  # the step whose input was written last
    lines_before: int = 0  # lines the server had written before the kill step
    reached: threading.Event = attrs.Factory(threading.Event)  # the kill step's input is written
    killed: threading.Event = attrs.Factory(threading.Event)
    done: bool = False
    killed_server: _TracedServer | None = None
    killed_at: float | None = None
    killer_problem: str | None = None
    transcript: Transcript | None = None
    restart: Transcript | None = None
    error: str | None = None
    seconds: float = 0.0

    def before_write(self, server: _TracedServer) -> None:
        if self.step + 1 == self.kill_at:
            self.lines_before = len(server.output)
            if self.mode == "stalled":
                server.stall()

    def after_write(self) -> None:
        self.step += 1
        if self.step == self.kill_at:
            self.reached.set()
            if not self.killed.wait(KILLER_WAIT_S + 5):
                self.killer_problem = self.killer_problem or "the killer never came"


class _TracedServer(_Server):
    """A ``_Server`` that keeps every line it read, notes when stdout closed, can stop reading."""

    def __init__(self, process: subprocess.Popen[bytes], session: _Session) -> None:
        self.session = session
        self.output: list[bytes] = []
        self.eof_at: float | None = None
        self.reading = threading.Event()
        self.reading.set()
        super().__init__(process)  # starts the reader threads: the attributes above come first

    def _read(self) -> None:
        """As ``_Server._read`` (whole lines, a partial one only at EOF), pausing while stalled."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        pending = b""
        while True:
            self.reading.wait()
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                self._line(line + b"\n")
        if pending:
            self._line(pending)
        self.eof_at = time.monotonic()
        self.lines.put(None)

    def _line(self, line: bytes) -> None:
        self.output.append(line)
        self.lines.put(line)

    def write(self, data: bytes, writes: tuple[int, ...]) -> bool:
        self.session.before_write(self)
        written = super().write(data, writes)
        self.session.after_write()
        return written

    # stalled client

    def stall(self) -> None:
        """Shrink the stdout pipe to one page and stop reading it."""
        assert self.process.stdout is not None
        fcntl.fcntl(self.process.stdout.fileno(), fcntl.F_SETPIPE_SZ, PIPE_PAGE)
        self.reading.clear()

    def unread_bytes(self) -> int:
        assert self.process.stdout is not None
        count = array.array("i", [0])
        fcntl.ioctl(self.process.stdout.fileno(), termios.FIONREAD, count)
        return count[0]


class _Servers:
    """Every server process started, so that the deadline can kill them all and the end reap them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.all: list[_TracedServer] = []
        self.closed = False

    def add(self, server: _TracedServer) -> None:
        with self.lock:
            self.all.append(server)
            closed = self.closed
        if closed:  # past the deadline: a session that restarts its server gets a dead one
            server.process.kill()

    def kill_all(self) -> None:
        with self.lock:
            self.closed = True
            servers = list(self.all)
        for server in servers:
            server.reading.set()
            if server.process.poll() is None:
                server.process.kill()

    def reap_all(self) -> None:
        with self.lock:
            servers = list(self.all)
        for server in servers:
            server.kill()


class _SessionTarget(PipeTarget):
    """``PipeTarget`` whose servers are traced for one session; ``run`` is PipeTarget's own."""

    def __init__(self, session: _Session, servers: _Servers) -> None:
        super().__init__(answer_timeout_s=ANSWER_TIMEOUT_S)
        self.session = session
        self.servers = servers

    def spawn(self) -> _TracedServer:
        # PipeTarget's own process, with the traced server around it.
        server = _TracedServer(self.start_process(), self.session)
        self.servers.add(server)
        self.session.server = server
        return server


def _killer(session: _Session) -> None:
    """The external killer of one victim: SIGKILL to its current server at the seeded point."""
    if not until(lambda: session.reached.is_set() or session.done, KILLER_WAIT_S * 3, pause_s=0.001) or session.done:
        return
    server = session.server
    assert server is not None
    if session.mode == "delay":
        time.sleep(session.kill_delay_s)
    elif session.mode == "answers":
        wanted = session.lines_before + session.kill_after_answers
        if not until(lambda: len(server.output) >= wanted or server.eof_at is not None, KILLER_WAIT_S, pause_s=0.001):
            session.killer_problem = f"{len(server.output) - session.lines_before} answers within {KILLER_WAIT_S}s"
    elif not until(lambda: server.unread_bytes() >= PIPE_PAGE, KILLER_WAIT_S, pause_s=0.001):
        session.killer_problem = f"the stalled pipe held {server.unread_bytes()} bytes after {KILLER_WAIT_S}s"
    session.killed_server = server
    session.killed_at = time.monotonic()
    server.process.send_signal(signal.SIGKILL)
    server.reading.set()
    session.killed.set()


def _run(session: _Session, servers: _Servers, gate: threading.Semaphore, restart: Scenario | None) -> None:
    with gate:
        started = time.monotonic()
        try:
            session.transcript = _SessionTarget(session, servers).run(session.scenario)
            if restart is not None:
                session.restart = _SessionTarget(_Session(restart), servers).run(restart)
        except Exception:  # noqa: BLE001  (reported by the test thread)
            session.error = traceback.format_exc()
        finally:
            session.done = True
            session.seconds = time.monotonic() - started


def _survivor_failures(session: _Session, memory: Transcript) -> list[str]:
    scenario, transcript = session.scenario, session.transcript
    assert transcript is not None
    seed = scenario.seed
    failures = []
    if transcript.encode() != memory.encode():
        failures.append(
            f"seed {seed}: pipe transcript differs from the in-memory replay at "
            f"{first_difference(memory, transcript)}; reproduce: {reproduce(seed)}"
        )
    problems = check(scenario, transcript) + check(scenario, memory)
    if problems:
        failures.append(f"seed {seed}: {problems[:5]}; reproduce: {reproduce(seed)}")
    if session.step != len(scenario.steps) - 1:
        failures.append(f"seed {seed}: {session.step + 1} steps written of {len(scenario.steps)}")
    return failures


def _victim_failures(session: _Session, memory: Transcript, restart: Scenario, restart_memory: Transcript) -> list[str]:
    scenario, transcript, k = session.scenario, session.transcript, session.kill_at
    assert transcript is not None and k is not None
    seed = scenario.seed
    where = f"seed {seed} killed in step {k} ({scenario.steps[k].label}, {_point(session)})"
    if session.killer_problem or session.killed_server is None or session.killed_at is None:
        return [f"{where}: {session.killer_problem or 'the killer never came'}; reproduce: {reproduce(seed)}"]
    failures = []
    killed = session.killed_server
    code = killed.process.wait(EOF_AFTER_KILL_S)
    if code != -signal.SIGKILL:
        failures.append(f"{where}: the killed server exited {code}")
    if killed.eof_at is None or killed.eof_at - session.killed_at > EOF_AFTER_KILL_S:
        seen = "never" if killed.eof_at is None else f"after {killed.eof_at - session.killed_at:.1f}s"
        failures.append(f"{where}: the client saw EOF {seen}")
    failures += [f"{where}: torn output: {problem}" for problem in _torn_output_problems(killed.output)]
    if transcript.steps[:k] != memory.steps[:k]:
        before = Transcript("pipe", transcript.steps[:k], "killed")
        wanted = Transcript("memory", memory.steps[:k], "killed")
        failures.append(
            f"{where}: steps before the kill differ from the replay at {first_difference(wanted, before)}; "
            f"reproduce: {reproduce(seed)}"
        )
    got, want = (steps[k] if k < len(steps) else None for steps in (transcript.steps, memory.steps))
    if got is None or want is None or not b"".join(want).startswith(b"".join(got)):
        failures.append(f"{where}: the killed step's output {got!r:.300} is not a prefix of the replay's {want!r:.300}")
    if session.restart is None:
        failures.append(f"{where}: no restarted server")
    elif session.restart.encode() != restart_memory.encode() or check(restart, session.restart):
        failures.append(
            f"{where}: the restarted server differs from the replay at "
            f"{first_difference(restart_memory, session.restart)}, problems {check(restart, session.restart)[:5]}; "
            f"reproduce: python -m sim run {seed} --target both --steps 1 --off {','.join(FAULTS)}"
        )
    return failures


def _point(session: _Session) -> str:
    if session.mode == "delay":
        return f"{session.kill_delay_s * 1000:g} ms after its input"
    if session.mode == "answers":
        return f"after {session.kill_after_answers} of its answers"
    return f"the client stalled on a full {PIPE_PAGE}-byte pipe"


def _choose_victims(scenarios: dict[int, Scenario], memory: dict[int, Transcript]) -> dict[int, _Session]:
    """Ten victims, each with its kill step and kill point: all drawn from VICTIM_DRAW_SEED."""
    draw = random.Random(VICTIM_DRAW_SEED)
    victims: dict[int, _Session] = {}
    for seed in sorted(draw.sample(list(SEEDS), VICTIMS)):
        scenario, replay = scenarios[seed], memory[seed]
        sends = [index for index, step in enumerate(scenario.steps) if step.kind == "send"]
        answered = [index for index in sends if scenario.steps[index].expect]
        big = [index for index in sends if sum(map(len, replay.steps[index] or ())) > 2 * PIPE_PAGE + 1024]
        mode = draw.choice(KILL_MODES)
        if mode == "stalled" and not big:
            mode = "answers"
        if mode == "answers" and not answered:
            mode = "delay"
        session = _Session(scenario, mode=mode)
        session.kill_at = draw.choice({"delay": sends, "answers": answered, "stalled": big}[mode])
        session.kill_delay_s = draw.choice(KILL_DELAYS_S)
        session.kill_after_answers = draw.randint(0, len(scenario.steps[session.kill_at].expect))
        victims[seed] = session
    return victims


@pytest.mark.timeout(DEADLINE_S + 60)
def test_a_hundred_concurrent_sessions_a_tenth_killed_with_sigkill_survivors_replay_exactly() -> None:
    """INV-DET-2, INV-DRAIN-1, INV-DRAIN-4 under 100 concurrent real servers, ten killed -9 mid-session.

    Survivors: byte-identical to their in-memory replays, every request answered exactly once.
    Victims: prompt EOF, whole frames plus at most a partial last line, a working fresh server.
    """
    scenarios = {seed: generate(seed) for seed in SEEDS}
    memory = {seed: MemoryTarget().run(scenarios[seed]) for seed in SEEDS}
    victims = _choose_victims(scenarios, memory)
    restarts = {seed: generate(seed, steps=1, off=FAULTS) for seed in victims}
    restart_memory = {seed: MemoryTarget().run(restarts[seed]) for seed in victims}
    sessions = {seed: victims.get(seed) or _Session(scenarios[seed]) for seed in SEEDS}

    servers = _Servers()
    gate = threading.Semaphore(AT_ONCE)
    killers = [threading.Thread(target=_killer, args=(session,), daemon=True) for session in victims.values()]
    threads = {
        seed: threading.Thread(
            target=_run, args=(sessions[seed], servers, gate, restarts.get(seed)), daemon=True, name=f"seed-{seed}"
        )
        for seed in SEEDS
    }
    started = time.monotonic()
    deadline = started + DEADLINE_S
    try:
        for thread in [*killers, *threads.values()]:
            thread.start()
        for thread in threads.values():
            thread.join(max(0.0, deadline - time.monotonic()))
        hung = [seed for seed, thread in threads.items() if thread.is_alive()]
        if hung:
            servers.kill_all()  # unblocks every read and write, and every server started from now on dies
            for seed in hung:
                threads[seed].join(max(0.0, deadline + 15 - time.monotonic()))
            details = [f"seed {seed} in step {sessions[seed].step}: {reproduce(seed)}" for seed in hung]
            pytest.fail(f"{len(hung)} session(s) still running after {DEADLINE_S}s:\n" + "\n".join(details))
    finally:
        servers.kill_all()
        servers.reap_all()
    elapsed = time.monotonic() - started

    failures = []
    for seed, session in sessions.items():
        if session.error is not None:
            failures.append(f"seed {seed}: the session raised; reproduce: {reproduce(seed)}\n{session.error}")
        elif seed in victims:
            failures += _victim_failures(session, memory[seed], restarts[seed], restart_memory[seed])
        else:
            failures += _survivor_failures(session, memory[seed])
    torn = [
        seed
        for seed, session in victims.items()
        if session.killed_server
        and session.killed_server.output
        and not session.killed_server.output[-1].endswith(b"\n")
    ]
    stalled = [seed for seed, session in victims.items() if session.mode == "stalled"]
    if stalled and not torn:
        failures.append(f"no victim's output ended in a torn line, though {stalled} were killed mid-answer")
    eofs = [
        session.killed_server.eof_at - session.killed_at
        for session in victims.values()
        if session.killed_server and session.killed_server.eof_at and session.killed_at
    ]
    print(
        f"{len(SEEDS)} sessions ({AT_ONCE} at once, {len(servers.all)} server processes) in {elapsed:.1f}s; "
        f"slowest session {max(session.seconds for session in sessions.values()):.1f}s; "
        f"killed: {[(seed, session.kill_at, session.mode) for seed, session in victims.items()]}; "
        f"torn output: {torn}; slowest EOF after a kill {max(eofs, default=0) * 1000:.0f} ms"
    )
    assert not failures, f"{len(failures)} failure(s):\n" + "\n".join(failures)
