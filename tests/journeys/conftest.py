"""Journeys: the real ``mesh-mcp mcp`` process, driven over its pipes.

Theory of operation
-------------------
Every journey spawns ``python -m mesh mcp`` with the test tools loaded through
``MESH_TOOL_PLUGINS`` and talks to it the way a client would. Two ways to drive it:

* :func:`run_server` writes a whole script to stdin, closes it and collects everything
  (``communicate`` with a hard timeout): for journeys whose outcome does not depend on timing;
* :class:`LiveServer` sends frames one at a time and reads answers as they arrive: for
  cancellation, signals and memory, where *when* something is sent matters.

Both check the one invariant a client relies on, for every byte the server wrote to stdout: the
stream is a sequence of whole lines, each a strict JSON-RPC 2.0 answer in canonical JSON
(:func:`parse_stdout`; INV-FRAME-4, INV-DRAIN-3).
Nothing here waits without a deadline.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final

import attrs
import pytest

REPO_ROOT: Final = Path(__file__).resolve().parents[2]
#: The stdio server itself: the proxy and the daemon have journeys of their own (test_daemon*.py).
SERVER_ARGV: Final = (sys.executable, "-m", "mesh", "mcp", "--standalone")

TEST_TOOLS: Final = "tests.support.tools"
NOISY_TOOLS: Final = "tests.journeys.noisy_tools"
#: The tools of ``tests.support.tools``, in registration order.
TEST_TOOL_NAMES: Final = ("echo", "add", "sleep", "fail", "trace")
#: The built-in tools, listed before any plugin's.
BUILTIN_TOOL_NAMES: Final = ("smart_search", "dependents", "grpc_trace", "endpoint_trace", "impact_matrix", "doc_sections",
                              "outline", "symbol", "references", "files")  # fmt: skip
#: What ``tools/list`` shows with the test tools loaded.
SERVED_TOOL_NAMES: Final = BUILTIN_TOOL_NAMES + TEST_TOOL_NAMES
#: Journeys serve an empty workspace (nothing to index) with a cache of their own.
EMPTY_WORKSPACE: Final = Path(tempfile.mkdtemp(prefix="mesh-journey-ws-"))
JOURNEY_CACHE: Final = Path(tempfile.mkdtemp(prefix="mesh-journey-cache-"))
for _folder in (EMPTY_WORKSPACE, JOURNEY_CACHE):
    atexit.register(shutil.rmtree, _folder, True)

HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE_VERSION: Final = "2025-11-25"
STATELESS_VERSION: Final = "2026-07-28"

PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY: Final = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022

#: No error message the server sends is longer than this, whatever the client sent (INV-CLASS-4).
ERROR_MESSAGE_CHARS_MAX: Final = 256
#: Deadline for one whole scripted run (start, answer everything, exit).
RUN_TIMEOUT_S: Final = 30.0
#: Deadline for one awaited answer in a live session: a hang detector, not a speed claim. CI runs
#: these journeys on 2 cores beside the simulator's 100-session test; a server starting there has
#: been seen to need more than 5 s for its first answer.
ANSWER_TIMEOUT_S: Final = 30.0
_STDERR_TAIL_CHARS: Final = 2000
#: How long ``wait`` lets the pipe readers finish once the process has exited.
_DRAIN_AFTER_EXIT_S: Final = 5.0


# --- frames ----------------------------------------------------------------------------------


def frame(message: Any) -> bytes:
    """One newline-terminated frame, compact JSON."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def request(request_id: Any, method: str, params: Mapping[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = dict(params)
    return frame(message)


def notification(method: str, params: Mapping[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = dict(params)
    return frame(message)


def initialize(request_id: Any, version: Any = LATEST_HANDSHAKE_VERSION) -> bytes:
    """``initialize`` as the SDK client sends it (see /tmp/notes/cap_legacy.in.jsonl)."""
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "journey", "version": "0"}}
    return request(request_id, "initialize", params)


def handshake(version: str = LATEST_HANDSHAKE_VERSION, request_id: Any = 1) -> bytes:
    """``initialize`` followed by ``notifications/initialized``."""
    return initialize(request_id, version) + notification("notifications/initialized")


def envelope(version: str = STATELESS_VERSION, *, capabilities: bool = True) -> dict[str, Any]:
    """The 2026-07-28 per-request ``_meta`` envelope, keys as the SDK client sends them."""
    meta: dict[str, Any] = {PROTOCOL_VERSION_KEY: version, CLIENT_INFO_KEY: {"name": "mcp", "version": "0.1.0"}}
    if capabilities:
        meta[CLIENT_CAPABILITIES_KEY] = {}
    return meta


def call(request_id: Any, name: str, arguments: Mapping[str, Any] | None = None, *, meta: Any = None) -> bytes:
    """``tools/call``; ``meta`` becomes ``params._meta`` (the stateless envelope, for instance)."""
    params: dict[str, Any] = {"name": name, "arguments": dict(arguments or {})}
    if meta is not None:
        params["_meta"] = meta
    return request(request_id, "tools/call", params)


# --- strict parsing of what the server wrote --------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259)")


def parse_line(line: bytes) -> Any:
    """Parse one stdout line as strict JSON: UTF-8, no NaN/Infinity."""
    return json.loads(line.decode("utf-8"), parse_constant=_reject_constant)


def check_answer(message: Any) -> dict[str, Any]:
    """Assert ``message`` is one strict JSON-RPC 2.0 answer; return it."""
    assert isinstance(message, dict), f"an answer must be an object: {message!r:.300}"
    assert message.get("jsonrpc") == "2.0", f"jsonrpc must be '2.0': {message!r:.300}"
    assert "id" in message, f"an answer needs an id: {message!r:.300}"
    request_id = message["id"]
    assert (
        request_id is None
        or isinstance(request_id, str)
        or (isinstance(request_id, int) and not isinstance(request_id, bool))
    ), f"bad id {request_id!r}"
    assert ("result" in message) != ("error" in message), f"exactly one of result/error: {message!r:.300}"
    assert set(message) <= {"jsonrpc", "id", "result", "error"}, f"unexpected members: {sorted(message)}"
    if "result" in message:
        assert isinstance(message["result"], dict), f"a result is an object: {message!r:.300}"
    else:
        error = message["error"]
        assert isinstance(error, dict), f"an error is an object: {message!r:.300}"
        assert isinstance(error.get("code"), int) and not isinstance(error["code"], bool), error
        assert isinstance(error.get("message"), str), error
        assert len(error["message"]) <= ERROR_MESSAGE_CHARS_MAX, f"error message of {len(error['message'])} chars"
        assert set(error) <= {"code", "message", "data"}, f"unexpected error members: {sorted(error)}"
    return message


def parse_answer_line(line: bytes) -> dict[str, Any] | list[dict[str, Any]]:
    """One stdout line: an answer, or (only for a batch) a non-empty array of answers."""
    assert line.endswith(b"\n"), f"a partial frame on stdout: {line[:200]!r}"
    body = line[:-1]
    assert b"\n" not in body and not body.endswith(b"\r"), f"bad line ending: {line[:200]!r}"
    try:
        message = parse_line(body)
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise AssertionError(f"stdout line is not strict JSON ({exc}): {body[:200]!r}") from None
    canonical = json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert body == canonical, f"not canonical JSON (INV-FRAME-4): {body[:200]!r}"
    if isinstance(message, list):
        assert message, "an empty array on stdout"
        return [check_answer(item) for item in message]
    return check_answer(message)


def parse_stdout(stdout: bytes) -> list[dict[str, Any] | list[dict[str, Any]]]:
    """Every line of ``stdout``, each checked by :func:`parse_answer_line`."""
    return [parse_answer_line(line) for line in stdout.splitlines(keepends=True)]


def error_code(answer: Mapping[str, Any]) -> int:
    assert "error" in answer, f"expected an error, got {answer!r:.500}"
    return answer["error"]["code"]


def result_of(answer: Mapping[str, Any]) -> dict[str, Any]:
    assert "result" in answer, f"expected a result, got {answer!r:.500}"
    return answer["result"]


def tool_text(answer: Mapping[str, Any]) -> str:
    """The one text block of a ``tools/call`` result."""
    [block] = result_of(answer)["content"]
    assert block["type"] == "text"
    return block["text"]


# --- transcripts -----------------------------------------------------------------------------


@attrs.frozen
class Transcript:
    """Everything one server process wrote, and how it ended."""

    answers: list[dict[str, Any] | list[dict[str, Any]]]
    stderr: str
    returncode: int

    @property
    def singles(self) -> list[dict[str, Any]]:
        """Answers that were not part of a batch, in the order they were written."""
        return [answer for answer in self.answers if isinstance(answer, dict)]

    @property
    def batches(self) -> list[list[dict[str, Any]]]:
        return [answer for answer in self.answers if isinstance(answer, list)]

    def ids(self) -> list[Any]:
        """The id of every single answer, in order."""
        return [answer["id"] for answer in self.singles]

    def by_id(self, request_id: Any) -> dict[str, Any]:
        """The one single answer for ``request_id``."""
        found = [answer for answer in self.singles if answer["id"] == request_id]
        assert len(found) == 1, f"{len(found)} answers for id {request_id!r}; ids: {self.ids()}"
        return found[0]

    def assert_clean_exit(self) -> None:
        assert self.returncode == 0, f"exit {self.returncode}; stderr:\n{self.stderr[-_STDERR_TAIL_CHARS:]}"
        assert "Traceback" not in self.stderr, self.stderr[-_STDERR_TAIL_CHARS:]


def server_env(plugins: Iterable[str] = (TEST_TOOLS,), extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a server with ``plugins`` loaded; the repository root is importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env["MESH_TOOL_PLUGINS"] = ",".join(plugins)
    env["MESH_CACHE_DIR"] = str(JOURNEY_CACHE)
    env.pop("MESH_LOG", None)
    env.update(extra or {})
    return env


def spawn(
    plugins: Iterable[str] = (TEST_TOOLS,), extra_env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        SERVER_ARGV,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=EMPTY_WORKSPACE,
        env=server_env(plugins, extra_env),
    )


def run_server(
    stdin: bytes,
    *,
    timeout_s: float = RUN_TIMEOUT_S,
    plugins: Iterable[str] = (TEST_TOOLS,),
    extra_env: Mapping[str, str] | None = None,
) -> Transcript:
    """Write ``stdin`` whole, close it, and collect everything the server writes until it exits."""
    process = spawn(plugins, extra_env)
    try:
        stdout, stderr = process.communicate(stdin, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        pytest.fail(
            f"server did not finish within {timeout_s}s; stdout tail {stdout[-500:]!r}; "
            f"stderr:\n{stderr.decode(errors='replace')[-_STDERR_TAIL_CHARS:]}"
        )
    return Transcript(parse_stdout(stdout), stderr.decode(errors="replace"), process.returncode)


class LiveServer:
    """A running server driven one frame at a time; threads drain both of its output pipes."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self._lines: list[bytes] = []
        self._arrivals: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._stderr = bytearray()
        #: Answers taken from the queue while waiting for another id.
        self.skipped: list[dict[str, Any] | list[dict[str, Any]]] = []
        self._threads = [
            threading.Thread(target=self._drain_stdout, daemon=True),
            threading.Thread(target=self._drain_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def stderr(self) -> str:
        return self._stderr.decode(errors="replace")

    def _drain_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in iter(self.process.stdout.readline, b""):
            self._lines.append(line)
            self._arrivals.put(line)
        self._arrivals.put(None)

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        for chunk in iter(lambda: self.process.stderr.read1(65536), b""):  # type: ignore[union-attr]
            self._stderr += chunk

    def send(self, *frames: bytes) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(b"".join(frames))
            self.process.stdin.flush()
        except BrokenPipeError:
            pytest.fail(
                f"server closed its stdin (exit {self.process.poll()}); stderr:\n{self.stderr[-_STDERR_TAIL_CHARS:]}"
            )

    def receive(self, timeout_s: float = ANSWER_TIMEOUT_S) -> dict[str, Any] | list[dict[str, Any]]:
        """The next answer line, checked; fails after ``timeout_s``."""
        try:
            line = self._arrivals.get(timeout=timeout_s)
        except queue.Empty:
            pytest.fail(f"no answer within {timeout_s}s; stderr:\n{self.stderr[-_STDERR_TAIL_CHARS:]}")
        if line is None:
            self._arrivals.put(None)
            pytest.fail(f"stdout closed (exit {self.process.poll()}); stderr:\n{self.stderr[-_STDERR_TAIL_CHARS:]}")
        return parse_answer_line(line)

    def receive_id(self, request_id: Any, timeout_s: float = ANSWER_TIMEOUT_S) -> dict[str, Any]:
        """The answer for ``request_id``; answers for other ids arriving first go to ``skipped``."""
        deadline = time.monotonic() + timeout_s
        while True:
            answer = self.receive(max(0.0, deadline - time.monotonic()))
            if isinstance(answer, dict) and answer["id"] == request_id:
                return answer
            self.skipped.append(answer)

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass

    def wait(self, timeout_s: float) -> int:
        """The exit code; fails (and kills) if the process is still running after ``timeout_s``.

        Once it has exited, its pipes are drained before this returns (within a few seconds: a child
        it started may hold them longer), so ``stderr`` holds its last words, not a race with them."""
        try:
            code = self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"server still running after {timeout_s}s; stderr:\n{self.stderr[-_STDERR_TAIL_CHARS:]}")
        for thread in self._threads:
            thread.join(_DRAIN_AFTER_EXIT_S)
        return code

    def transcript(self, timeout_s: float = ANSWER_TIMEOUT_S) -> Transcript:
        """Once the process has exited: every line it wrote to stdout, checked."""
        assert self.process.returncode is not None, "transcript() before the process exited"
        for thread in self._threads:
            thread.join(timeout_s)
            assert not thread.is_alive(), "a pipe stayed open after the server exited"
        stdout = b"".join(self._lines)
        return Transcript(parse_stdout(stdout), self.stderr, self.process.returncode)

    def proc_status_kib(self, key: str) -> int:
        """A ``kB`` field of ``/proc/<pid>/status`` (``VmRSS``, ``VmHWM``...)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name == key:
                amount, unit = value.split()
                assert unit == "kB"
                return int(amount)
        raise KeyError(key)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(ANSWER_TIMEOUT_S)

    def close(self) -> None:
        """Kill the process if it still runs, let the drain threads see EOF, close the pipes."""
        self.kill()
        for thread in self._threads:
            thread.join(ANSWER_TIMEOUT_S)
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass


@pytest.fixture
def live_server() -> Iterator[Any]:
    """Start servers with ``live_server(plugins=..., extra_env=...)``; all are killed at teardown."""
    started: list[LiveServer] = []

    def start(plugins: Iterable[str] = (TEST_TOOLS,), extra_env: Mapping[str, str] | None = None) -> LiveServer:
        server = LiveServer(spawn(plugins, extra_env))
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()
