"""Targets: where a scenario runs. Each returns a :class:`Transcript` of what came back.

Three targets, one ``run(scenario)``; the lockstep transcripts of all three must be byte-identical
(INV-DET-2, INV-DAEMON-1):

(a) :class:`MemoryTarget`: the sans-IO core in this process, tools run in simulated time;
(b) :class:`PipeTarget`: ``mesh-mcp mcp --standalone`` over real pipes, one process a session;
(c) :class:`DaemonTarget`: ``mesh-mcp mcp`` as a proxy (no ``--standalone``) to a daemon that
    serves every scenario the target runs.

Target (c)
----------
The target owns a socket folder of its own (``XDG_RUNTIME_DIR`` is a fresh folder under ``/tmp``,
``MESH_SOCKET_PATH`` unset), so its daemon is found by its proxies only. The proxies get the pipe
target's environment (``MESH_TOOL_PLUGINS=sim.tools``, the fixture's ``MESH_CACHE_DIR``), which the
daemon inherits from the proxy that starts it: the first session starts the daemon, every later
one connects to it. A session is a proxy over pipes, driven exactly as the pipe target drives its
server; besides the transcript the target checks that the proxy wrote nothing on stderr (so no
session fell back to standalone serving) and that a daemon holds the lock afterwards.

A ``kill`` step kills the *daemon*: once the proxy has read its input (it reads only after the
daemon's hello, so this proves it is connected; a proxy given no byte yet gets a blank line first,
which the session ignores, INV-FRAME-3), the daemon's pid is read from its lock file and sent
SIGKILL. The proxy must then exit with status 1 within ``exit_after_kill_s`` and name the daemon's
log on stderr, and its output must be whole frames plus at most one partial line (INV-DRAIN-4).
The next step's proxy finds the socket dead and starts a new daemon, which must serve the index
left on disk at once: its answers are compared with the memory target's (INV-DAEMON-2).

One scenario runs at a time on a daemon target (a kill ends every session of its daemon): run
targets side by side for parallel work. ``close()`` (or leaving a ``with`` block) stops the
daemon (SIGTERM, then SIGKILL), waits until it is gone and removes the socket folder; a daemon
whose target was never closed exits by itself after ``DAEMON_IDLE_S`` without a client.
"""

from __future__ import annotations

import array
import fcntl
import hashlib
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Final, Protocol, Self

import attrs

from mesh import __version__
from mesh.drivers._pump import run_tool, simulated_progress
from mesh.drivers.stdio import catalogue
from mesh.protocol import (
    CallCancelled,
    ServerSession,
    SessionClosed,
    SessionConfig,
    ToolCallRequested,
    Wait,
)
from mesh.sockets import lock_path, socket_path
from mesh.tools import Registry
from mesh.workspace import cache_dir

from . import fixture
from .fixture import FIXTURE
from .scenario import MAX_FRAME_BYTES, Scenario

__all__ = ["DaemonTarget", "Kill", "MemoryTarget", "PipeTarget", "Target", "Transcript", "memory_kib"]

ROOT: Final = Path(__file__).resolve().parent.parent
ANSWER_TIMEOUT_S: Final = 20.0
#: A server's (or the daemon's) peak RSS beyond this is a problem.
PEAK_RSS_KIB_MAX: Final = 200 * 1024
#: How long a proxy may take to exit once its daemon is killed (~20 ms in practice).
EXIT_AFTER_KILL_S: Final = 10.0
#: A daemon asked to stop gets this long before SIGKILL; a killed one this long to be gone.
DAEMON_STOP_S: Final = 5.0
#: The daemon target's idle exit (``MESH_DAEMON_IDLE_S``): a daemon whose target was never closed
#: (its process killed) ends by itself.
DAEMON_IDLE_S: Final = 120
#: The end of a server's stderr kept for the checks.
STDERR_BYTES_MAX: Final = 64 * 1024
#: The stdout pipe of a server whose client stalls (the ``stall`` fault): one page.
STALL_PIPE_BYTES: Final = 4096


@attrs.frozen
class Transcript:
    target: str
    #: Frames per step, each a whole line with its newline; ``None`` for a step ended by kill -9.
    steps: tuple[tuple[bytes, ...] | None, ...]
    #: How the session ended: "exit 0" (EOF answered, clean exit), or what went wrong.
    end: str
    #: Problems a target saw itself (a timeout, torn output after a kill, memory): oracle input.
    problems: tuple[str, ...] = ()

    def encode(self) -> bytes:
        """The canonical bytes compared across targets and digested into ``seeds/``."""
        out = bytearray()
        for index, frames in enumerate(self.steps):
            if frames is None:
                out += b"%d\tkilled\n" % index
                continue
            for frame in frames:
                out += b"%d\t" % index + frame
        out += b"end\t" + self.end.encode() + b"\n"
        return bytes(out)

    def digest(self) -> str:
        return hashlib.sha256(self.encode()).hexdigest()


class Target(Protocol):
    name: str

    def run(self, scenario: Scenario) -> Transcript: ...


def _config() -> SessionConfig:
    return SessionConfig(server_name="mesh-mcp", server_version=__version__)


def _registry() -> Registry:
    """The built-in tools over the fixture workspace, and the simulated ones."""
    return fixture.registry()


class _Elapsed(threading.Event):
    """A cancellation flag whose waits end at once: simulated time, no sleeping in memory."""

    def wait(self, timeout: float | None = None) -> bool:
        return self.is_set()


class MemoryTarget:
    """The sans-IO core in this process, driven the way the stdio pump drives it."""

    name = "memory"

    def run(self, scenario: Scenario) -> Transcript:
        registry = _registry()
        problems: list[str] = []
        steps: list[tuple[bytes, ...] | None] = []
        session = ServerSession(_config(), catalogue(registry))
        held: dict[object, tuple[ToolCallRequested, _Elapsed]] = {}
        end = "no eof"

        def pump() -> Wait | None:
            while True:
                event = session.next_event()
                if isinstance(event, ToolCallRequested):
                    flag = _Elapsed()
                    if event.name == "sim_wait":
                        held[event.request_id] = (event, flag)  # completes at the end of the step
                    else:
                        progress = simulated_progress(event.request_id, session.progress)
                        session.complete(event.request_id, run_tool(registry, event, FIXTURE, flag, progress))
                elif isinstance(event, CallCancelled):
                    if event.request_id in held:
                        waiting, flag = held.pop(event.request_id)
                        flag.set()
                        session.complete(event.request_id, run_tool(registry, waiting, FIXTURE, flag))
                elif isinstance(event, SessionClosed):
                    return None
                else:
                    return event

        for index, step in enumerate(scenario.steps):
            position = 0
            for size in step.writes:
                session.receive_data(step.data[position : position + size])
                position += size
                pump()
                if session.buffered_bytes > MAX_FRAME_BYTES + 1:
                    problems.append(f"step {index}: {session.buffered_bytes} bytes buffered for one line")
            if step.kind == "kill":
                steps.append(None)
                session = ServerSession(_config(), catalogue(registry))
                held.clear()
                continue
            for request_id, (waiting, flag) in list(held.items()):
                del held[request_id]
                session.complete(request_id, run_tool(registry, waiting, FIXTURE, flag))
            if step.kind == "eof":
                session.receive_eof()
                if pump() is None:
                    end = "exit 0"
                else:
                    end = "eof: calls still in flight"
            else:
                pump()
            steps.append(tuple(line + b"\n" for line in session.data_to_send().split(b"\n")[:-1]))
            if step.kind == "eof":
                break
        return Transcript(self.name, tuple(steps), end, tuple(problems))


class PipeTarget:
    """``mesh-mcp mcp --standalone`` over the fixture, as a subprocess over real pipes, with the simulated tools."""

    name = "pipe"

    def __init__(self, argv: tuple[str, ...] | None = None, answer_timeout_s: float = ANSWER_TIMEOUT_S) -> None:
        self.argv = argv or (sys.executable, "-m", "mesh", "mcp", "--standalone", "--workspace", str(FIXTURE))
        self.answer_timeout_s = answer_timeout_s

    def spawn(self) -> _Server:
        return _Server(self.start_process())

    def _spawn_for(self, scenario: Scenario) -> _Server:
        """A server; a scenario with stalls (the ``stall`` fault) gets a stdout pipe of one page,
        so that a stalled client soon leaves the server's answers waiting on its side."""
        server = self.spawn()
        if "stall" in scenario.faults:
            server.shrink_output_pipe(STALL_PIPE_BYTES)
        return server

    def environ(self) -> dict[str, str]:
        """The server's environment: the simulated tools loaded, the fixture's index as its cache."""
        return {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))),
            "MESH_TOOL_PLUGINS": "sim.tools",
            "MESH_LOG": "error",
            **fixture.cache_environ(),
        }

    def start_process(self) -> subprocess.Popen[bytes]:
        """The server process, its three streams piped, with the simulated tools loaded."""
        pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
        return subprocess.Popen(self.argv, env=self.environ(), cwd=ROOT, **pipes)

    def run(self, scenario: Scenario) -> Transcript:
        problems: list[str] = []
        steps: list[tuple[bytes, ...] | None] = []
        server = self._spawn_for(scenario)
        end = "no eof"
        try:
            for index, step in enumerate(scenario.steps):
                resume = server.stop_reading_for(step.stall_ms) if step.stall_ms else None
                if not server.write(step.data, step.writes):
                    problems.append(f"step {index}: the server stopped reading (exit {server.process.poll()})")
                if resume is not None:
                    resume.join()  # the client reads again
                if step.kind == "kill":
                    problems += [f"step {index} (kill): {problem}" for problem in self.kill_step(server)]
                    steps.append(None)
                    server.kill()  # reap it and close its pipes before the next one starts
                    server = self._spawn_for(scenario)
                    continue
                if step.kind == "eof":
                    server.close_stdin()
                    frames = server.finish(self.answer_timeout_s)
                    code = server.process.wait(self.answer_timeout_s)
                    end = f"exit {code}"
                    if frames and not frames[-1].endswith(b"\n"):
                        problems.append(f"step {index}: output ends in half a line")
                    steps.append(tuple(frames))
                    break
                frames = server.read_lines(len(step.expect), self.answer_timeout_s)
                if len(frames) < len(step.expect):
                    problems.append(
                        f"step {index} ({step.label}): {len(frames)} of {len(step.expect)} answers "
                        f"within {self.answer_timeout_s}s"
                    )
                steps.append(tuple(frames))
            problems += self.ended(server)
        finally:
            server.kill()
        return Transcript(self.name, tuple(steps), end, tuple(problems))

    def kill_step(self, server: _Server) -> list[str]:
        """A kill step: kill -9 the server; what is wrong with the output it left (INV-DRAIN-4)."""
        server.process.send_signal(signal.SIGKILL)
        return _torn_output_problems(server.finish(self.answer_timeout_s))

    def ended(self, server: _Server) -> list[str]:
        """Problems of the last server, once the session is over: its memory."""
        return _peak_rss_problems("server", server.peak_rss_kib)


@attrs.frozen
class Kill:
    """What one kill step of a :class:`DaemonTarget` did: the daemon killed, how its proxy ended."""

    daemon_pid: int
    #: The proxy's exit status, None if it was still running after ``exit_after_kill_s``.
    proxy_exit: int | None
    #: From SIGKILL to the proxy's exit.
    seconds: float


class DaemonTarget(PipeTarget):
    """``mesh-mcp mcp`` as a proxy to one daemon that serves every scenario: see the module docstring."""

    name = "daemon"

    def __init__(
        self,
        argv: tuple[str, ...] | None = None,
        answer_timeout_s: float = ANSWER_TIMEOUT_S,
        exit_after_kill_s: float = EXIT_AFTER_KILL_S,
    ) -> None:
        proxy = (sys.executable, "-m", "mesh", "mcp", "--workspace", str(FIXTURE), "--log-level", "warning")
        super().__init__(argv or proxy, answer_timeout_s)
        self.exit_after_kill_s = exit_after_kill_s
        self.runtime_dir = Path(tempfile.mkdtemp(prefix="mesh-sim-rt-", dir="/tmp"))
        environ = self.environ()
        self.lock_file = lock_path(socket_path(FIXTURE, environ))
        self.log_file = cache_dir(FIXTURE, environ) / "meshd.log"
        #: Every kill step so far, in order.
        self.kills: list[Kill] = []
        self._one_at_a_time = threading.Lock()

    def environ(self) -> dict[str, str]:
        """The pipe target's, with a socket folder of this target's own (inherited by the daemon)."""
        environ = super().environ()
        environ.pop("MESH_SOCKET_PATH", None)
        environ["XDG_RUNTIME_DIR"] = str(self.runtime_dir)
        environ["MESH_DAEMON_IDLE_S"] = str(DAEMON_IDLE_S)
        return environ

    def run(self, scenario: Scenario) -> Transcript:
        with self._one_at_a_time:
            return super().run(scenario)

    def kill_step(self, server: _Server) -> list[str]:
        """A kill step: kill -9 the daemon; the proxy must exit 1 promptly, naming the daemon's log."""
        if server.written == 0:
            server.write(b"\n", (1,))  # a blank line: ignored (INV-FRAME-3), but read once connected
        if not until(lambda: server.unread_input() == 0, self.answer_timeout_s):
            server.process.kill()
            return [f"the proxy read none of its input within {self.answer_timeout_s:g}s (not connected?)"]
        pid = self.daemon_pid()
        if pid is None:
            server.process.kill()
            return ["no daemon held the lock while the proxy was connected"]
        os.kill(pid, signal.SIGKILL)
        killed_at = time.monotonic()
        problems = []
        try:
            code: int | None = server.process.wait(self.exit_after_kill_s)
        except subprocess.TimeoutExpired:
            code = None
            problems.append(f"the proxy still ran {self.exit_after_kill_s:g}s after its daemon was killed")
            server.process.kill()
        self.kills.append(Kill(pid, code, time.monotonic() - killed_at))
        if code is not None and code != 1:
            problems.append(f"the proxy exited {code} after its daemon was killed, expected 1")
        problems += _torn_output_problems(server.finish(self.answer_timeout_s))
        stderr = server.stderr_text(self.answer_timeout_s)
        if str(self.log_file) not in stderr:
            problems.append(f"the proxy's stderr does not name the daemon's log {self.log_file}: {stderr[-300:]!r}")
        if not _gone(pid, DAEMON_STOP_S):
            problems.append(f"the killed daemon (pid {pid}) still ran after {DAEMON_STOP_S:g}s")
        return problems

    def ended(self, server: _Server) -> list[str]:
        """The last proxy wrote nothing on stderr (no standalone fallback); a daemon served it."""
        problems = []
        stderr = server.stderr_text(self.answer_timeout_s).strip()
        if stderr:
            problems.append(f"the proxy wrote on stderr: {stderr.splitlines()[0][:300]}")
        pid = self.daemon_pid()
        if pid is None:
            problems.append("no daemon holds the lock after the session (did the proxy serve standalone?)")
        else:
            problems += _peak_rss_problems("daemon", memory_kib(pid).get("VmHWM"))
        return problems

    def daemon_pid(self) -> int | None:
        """The pid of the daemon serving now (the one holding its lock), else None."""
        try:
            fd = os.open(self.lock_file, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:  # held: a daemon runs; its pid is written once it has the lock
                deadline = time.monotonic() + DAEMON_STOP_S
                while not (text := os.pread(fd, 64, 0).strip()).isdigit() and time.monotonic() < deadline:
                    time.sleep(0.01)
                return int(text) if text.isdigit() else None
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        finally:
            os.close(fd)

    def leftover_processes(self) -> list[int]:
        """Live processes started for this target (their environment names its socket folder):
        after :meth:`close`, none."""
        marker = f"\0XDG_RUNTIME_DIR={self.runtime_dir}\0".encode()
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != os.getpid():
                try:
                    environ = b"\0" + (entry / "environ").read_bytes()
                except OSError:
                    continue
                if marker in environ and not _gone(int(entry.name), 0):
                    pids.append(int(entry.name))
        return pids

    def close(self) -> None:
        """Stop the daemon (SIGTERM, then SIGKILL), wait until it is gone, remove the socket folder."""
        with self._one_at_a_time:
            pid = self.daemon_pid()
            if pid is not None:
                _signal(pid, signal.SIGTERM)
                if not _gone(pid, DAEMON_STOP_S):
                    _signal(pid, signal.SIGKILL)
                    _gone(pid, DAEMON_STOP_S)
            shutil.rmtree(self.runtime_dir, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def memory_kib(pid: int) -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` (peak) of a process, in KiB, from ``/proc``; empty when it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    return {
        row.split(":")[0]: int(row.split()[1]) for row in status.splitlines() if row.startswith(("VmRSS:", "VmHWM:"))
    }


def _peak_rss_problems(what: str, hwm_kib: int | None) -> list[str]:
    if hwm_kib is not None and hwm_kib > PEAK_RSS_KIB_MAX:
        return [f"{what} peak RSS {hwm_kib} KiB exceeds {PEAK_RSS_KIB_MAX // 1024} MiB"]
    return []


def until(condition: Callable[[], bool], timeout_s: float, pause_s: float = 0.002) -> bool:
    """Whether ``condition()`` came true within ``timeout_s`` (checked every ``pause_s``)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(pause_s)
    return True


def _gone(pid: int, timeout_s: float) -> bool:
    """Wait until ``pid`` has exited (gone, or a zombie: its parent is some proxy or init, not us)."""

    def exited() -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] in ("Z", "X")
        except (OSError, IndexError):
            return True

    return until(exited, timeout_s)


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _torn_output_problems(lines: list[bytes]) -> list[str]:
    """INV-DRAIN-4: after kill -9, whole frames and at most one partial line at the very end."""
    import orjson

    problems = []
    for number, line in enumerate(lines):
        whole = line.endswith(b"\n")
        if not whole and number != len(lines) - 1:
            problems.append("a partial line before the end")
        if whole:
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError:
                problems.append(f"line {number} is not JSON")
    return problems


class _Server:
    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.lines: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.peak_rss_kib: int | None = None
        #: Bytes written to the server's stdin so far.
        self.written = 0
        self._stderr = bytearray()
        #: Cleared while the client stalls: the reader takes no line from the server's stdout.
        self._reading = threading.Event()
        self._reading.set()
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._threads = [threading.Thread(target=self._read, daemon=True), self._stderr_thread]
        for thread in self._threads:
            thread.start()

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while self._reading.wait() and (line := stdout.readline()):
            self.lines.put(line)
        self.lines.put(None)

    def shrink_output_pipe(self, size: int) -> None:
        """Make the server's stdout pipe hold only ``size`` bytes (Linux: one page at least)."""
        assert self.process.stdout is not None
        fcntl.fcntl(self.process.stdout.fileno(), fcntl.F_SETPIPE_SZ, size)

    def stop_reading_for(self, stall_ms: int) -> threading.Thread:
        """Stop reading the server's output now and for ``stall_ms`` (on a thread of its own, so a
        server holding its input back for a client that does not read cannot deadlock the
        writer); the thread ends once reading has resumed."""
        self._reading.clear()

        def resume() -> None:
            time.sleep(stall_ms / 1000)
            self._reading.set()

        thread = threading.Thread(target=resume, daemon=True)
        thread.start()
        return thread

    def _drain_stderr(self) -> None:
        """Read stderr to its end, keeping the last ``STDERR_BYTES_MAX`` bytes."""
        stderr = self.process.stderr
        assert stderr is not None
        while chunk := stderr.read1(65536):
            self._stderr += chunk
            del self._stderr[:-STDERR_BYTES_MAX]

    def stderr_text(self, timeout_s: float) -> str:
        """The end of what the server wrote on stderr, once it closed it (or ``timeout_s`` passed)."""
        self._stderr_thread.join(timeout_s)
        return bytes(self._stderr).decode(errors="replace")

    def unread_input(self) -> int:
        """Bytes written to the server's stdin that it has not read yet."""
        assert self.process.stdin is not None
        count = array.array("i", [0])
        fcntl.ioctl(self.process.stdin.fileno(), termios.FIONREAD, count)
        return count[0]

    def write(self, data: bytes, writes: tuple[int, ...]) -> bool:
        stdin = self.process.stdin
        assert stdin is not None
        position = 0
        try:
            for size in writes:
                stdin.write(data[position : position + size])
                stdin.flush()
                position += size
                self.written += size
        except (BrokenPipeError, OSError):
            return False
        return True

    def read_lines(self, count: int, timeout_s: float) -> list[bytes]:
        deadline = time.monotonic() + timeout_s
        lines: list[bytes] = []
        while len(lines) < count:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                self.lines.put(None)
                break
            lines.append(line)
        return lines

    def close_stdin(self) -> None:
        self._note_rss()
        try:
            assert self.process.stdin is not None
            self.process.stdin.close()
        except OSError:
            pass

    def finish(self, timeout_s: float) -> list[bytes]:
        """Everything the server still writes, until it closes stdout."""
        deadline = time.monotonic() + timeout_s
        lines: list[bytes] = []
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return lines
            if line is None:
                return lines
            lines.append(line)

    def _note_rss(self) -> None:
        self.peak_rss_kib = memory_kib(self.process.pid).get("VmHWM", self.peak_rss_kib)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for thread in self._threads:  # they end at EOF, now that the process is gone
            thread.join(5)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
