"""Targets: where a scenario runs. Each returns a :class:`Transcript` of what came back.

Adding a target (the daemon over a socket, later) is one more class with ``name`` and ``run``.
"""

from __future__ import annotations

import hashlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Final, Protocol

import attrs

from mesh import __version__
from mesh.drivers._pump import run_tool
from mesh.drivers.stdio import catalogue
from mesh.protocol import (
    CallCancelled,
    ServerSession,
    SessionClosed,
    SessionConfig,
    ToolCallRequested,
    Wait,
)
from mesh.tools import Registry

from . import fixture
from .fixture import FIXTURE
from .scenario import MAX_FRAME_BYTES, Scenario

__all__ = ["MemoryTarget", "PipeTarget", "Target", "Transcript"]

ROOT: Final = Path(__file__).resolve().parent.parent
ANSWER_TIMEOUT_S: Final = 20.0


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
                        session.complete(event.request_id, run_tool(registry, event, FIXTURE, flag))
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

    def start_process(self) -> subprocess.Popen[bytes]:
        """The server process, its three streams piped, with the simulated tools loaded."""
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))),
            "MESH_TOOL_PLUGINS": "sim.tools",
            "MESH_LOG": "error",
            **fixture.cache_environ(),
        }
        pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
        return subprocess.Popen(self.argv, env=env, cwd=ROOT, **pipes)

    def run(self, scenario: Scenario) -> Transcript:
        problems: list[str] = []
        steps: list[tuple[bytes, ...] | None] = []
        server = self.spawn()
        end = "no eof"
        try:
            for index, step in enumerate(scenario.steps):
                if not server.write(step.data, step.writes):
                    problems.append(f"step {index}: the server stopped reading (exit {server.process.poll()})")
                if step.kind == "kill":
                    server.process.send_signal(signal.SIGKILL)
                    tail = server.finish(self.answer_timeout_s)
                    problems += [f"step {index} (kill): {problem}" for problem in _torn_output_problems(tail)]
                    steps.append(None)
                    server.kill()  # reap it and close its pipes before the next one starts
                    server = self.spawn()
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
            hwm = server.peak_rss_kib
            if hwm is not None and hwm > 200 * 1024:
                problems.append(f"server peak RSS {hwm} KiB exceeds 200 MiB")
        finally:
            server.kill()
        return Transcript(self.name, tuple(steps), end, tuple(problems))


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
        self._threads = [
            threading.Thread(target=self._read, daemon=True),
            threading.Thread(target=self._drain_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        for line in iter(stdout.readline, b""):
            self.lines.put(line)
        self.lines.put(None)

    def _drain_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        while stderr.read(65536):
            pass

    def write(self, data: bytes, writes: tuple[int, ...]) -> bool:
        stdin = self.process.stdin
        assert stdin is not None
        position = 0
        try:
            for size in writes:
                stdin.write(data[position : position + size])
                stdin.flush()
                position += size
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
        try:
            status = Path(f"/proc/{self.process.pid}/status").read_text()
        except OSError:
            return
        for row in status.splitlines():
            if row.startswith("VmHWM:"):
                self.peak_rss_kib = int(row.split()[1])

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
