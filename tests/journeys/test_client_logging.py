"""Journeys: the real server tells its client about its own problems (notifications/message).

A workspace with a malformed Compose file makes the index log a warning while it builds; the
``fail`` test tool's crash makes the server log an error. A client that asked for ``warning``
hears both, one that asked for ``error`` only the crash; a stateless client hears only on a call
that carried ``io.modelcontextprotocol/logLevel``, before that call's answer; through the daemon, a
session that starts after the index was built still hears of the manifest. What reaches the client
is the server's own words only: the Compose file's name and line, never the YAML parser's text or
the crash's message, which stderr (or the daemon's log) still shows whole.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from mesh.sockets import lock_path, socket_path

from .conftest import REPO_ROOT, TEST_TOOLS, call, envelope, handshake, parse_line, request

pytestmark = pytest.mark.journey

MESSAGE: Final = "notifications/message"
LOG_LEVEL_KEY: Final = "io.modelcontextprotocol/logLevel"
TIMEOUT_S: Final = 60.0
#: The Compose file's problem: a flow sequence never closed (YAML), on its fourth line.
BROKEN_COMPOSE: Final = "services:\n  web:\n    build: ./web\n    image: [unclosed\n"
MANIFEST_WARNING: Final = re.compile(r"docker-compose\.yml:\d+: <redacted>")


class Client:
    """A server process read frame by frame: answers and notifications alike, each strict,
    canonical JSON on its own line. Everything waits with a deadline."""

    def __init__(self, argv: tuple[str, ...], env: dict[str, str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd
        )
        self._lines: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._stderr = bytearray()
        self._threads = [
            threading.Thread(target=self._out, daemon=True),
            threading.Thread(target=self._err, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _out(self) -> None:
        for line in iter(self.process.stdout.readline, b""):  # type: ignore[union-attr]
            self._lines.put(line)
        self._lines.put(None)

    def _err(self) -> None:
        for chunk in iter(lambda: self.process.stderr.read1(65536), b""):  # type: ignore[union-attr]
            self._stderr += chunk

    @property
    def stderr(self) -> str:
        return self._stderr.decode(errors="replace")

    def send(self, *frames: bytes) -> None:
        self.process.stdin.write(b"".join(frames))  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]

    def until(self, done: Callable[[dict[str, Any]], bool], timeout_s: float = TIMEOUT_S) -> list[dict[str, Any]]:
        """Frames up to and including the first for which ``done`` holds."""
        deadline, frames = time.monotonic() + timeout_s, []
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(
                    f"nothing matched within {timeout_s}s; got {frames!r:.1500}; stderr:\n{self.stderr[-2000:]}"
                )
            if line is None:
                self._lines.put(None)
                pytest.fail(f"stdout closed; got {frames!r:.1500}; stderr:\n{self.stderr[-2000:]}")
            assert line.endswith(b"\n")
            frame = parse_line(line[:-1])
            canonical = json.dumps(frame, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
            assert line[:-1] == canonical, line
            frames.append(frame)
            if done(frame):
                return frames

    def answer(self, request_id: Any) -> list[dict[str, Any]]:
        """Frames up to and including the answer to ``request_id``."""
        return self.until(lambda frame: frame.get("id") == request_id and "method" not in frame)

    def finish(self) -> tuple[list[dict[str, Any]], int]:
        """Close stdin: the frames still to come and the exit status."""
        self.process.stdin.close()  # type: ignore[union-attr]
        rest: list[dict[str, Any]] = []
        try:
            code = self.process.wait(TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            pytest.fail(f"server still running after {TIMEOUT_S}s; stderr:\n{self.stderr[-2000:]}")
        for thread in self._threads:
            thread.join(TIMEOUT_S)
        while (line := self._lines.get()) is not None:
            rest.append(parse_line(line[:-1]))
        return rest, code

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(TIMEOUT_S)


def logs(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [frame["params"] for frame in frames if frame.get("method") == MESSAGE]


def is_manifest_warning(params: dict[str, Any]) -> bool:
    return params["logger"] == "mesh.index" and bool(MANIFEST_WARNING.fullmatch(params["data"]["message"]))


@pytest.fixture
def world() -> Iterator[dict[str, Any]]:
    """A workspace whose Compose file is broken, a fresh cache (so the index is built and the
    warning logged while the client talks), a socket folder of its own; clients killed at the end,
    and any daemon started (by its pid in its lock file)."""
    root = Path(tempfile.mkdtemp(prefix="mesh-log-", dir="/tmp"))
    workspace, cache, runtime = root / "ws", root / "cache", root / "rt"
    (workspace / "web").mkdir(parents=True)
    runtime.mkdir(mode=0o700)
    (workspace / "web" / "go.mod").write_text("module example.com/web\n")
    (workspace / "web" / "main.go").write_text("package main\n\nfunc main() {}\n")
    (workspace / "docker-compose.yml").write_text(BROKEN_COMPOSE)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
        "MESH_TOOL_PLUGINS": TEST_TOOLS,
        "MESH_CACHE_DIR": str(cache),
        "XDG_RUNTIME_DIR": str(runtime),
        "MESH_DAEMON_IDLE_S": "60",
    }
    env.pop("MESH_SOCKET_PATH", None)
    env.pop("MESH_LOG", None)
    clients: list[Client] = []

    def start(*args: str) -> Client:
        client = Client((sys.executable, "-m", "mesh", "mcp", "--workspace", str(workspace), *args), env, REPO_ROOT)
        clients.append(client)
        return client

    yield {"start": start, "workspace": workspace, "env": env, "cache": cache}
    for client in clients:
        client.close()
    lock = lock_path(socket_path(workspace, env))
    try:
        os.kill(int(lock.read_text()), signal.SIGKILL)
    except (OSError, ValueError):
        pass
    shutil.rmtree(root, True)


def crash(request_id: Any, meta: Any = None) -> bytes:
    return call(request_id, "fail", {"how": "crash"}, meta=meta)


def test_a_client_that_set_warning_hears_the_index_problem_and_the_crash_INV_LOG_5(world: dict[str, Any]) -> None:
    """INV-LOG-5: the manifest's warning (built while the client talks: before or after its
    setLevel, it arrives) and the crash's error, in the server's own words; stderr unchanged."""
    client = world["start"]("--standalone")
    client.send(handshake() + request(2, "logging/setLevel", {"level": "warning"}))
    assert client.answer(2)[-1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    frames = client.until(lambda frame: frame.get("method") == MESSAGE and is_manifest_warning(frame["params"]))
    warning = frames[-1]["params"]
    assert warning["level"] == "warning"
    assert warning["data"]["args"][0] == "docker-compose.yml" and warning["data"]["args"][2] is None
    client.send(crash(3))
    frames = client.answer(3)
    assert [frame.get("method", frame.get("id")) for frame in frames] == [MESSAGE, 3]  # the log first
    [error] = logs(frames)
    assert error["level"] == "error" and error["logger"] == "mesh.server"
    assert error["data"]["exception"] == "RuntimeError"
    assert "simulated crash" not in json.dumps(frames[0])
    rest, code = client.finish()
    assert code == 0 and not any(is_manifest_warning(params) for params in logs(rest))  # sent once
    assert "cannot be read as YAML" in client.stderr and "simulated crash" in client.stderr


def test_a_client_that_set_error_hears_no_warning_INV_LOG_5(world: dict[str, Any]) -> None:
    """INV-LOG-5: the warning is logged (stderr shows it) yet never reaches a client that asked
    for errors, which does hear the crash (the control: its log works)."""
    client = world["start"]("--standalone")
    client.send(handshake() + request(2, "logging/setLevel", {"level": "error"}))
    assert client.answer(2)[-1]["result"] == {}
    deadline = time.monotonic() + TIMEOUT_S
    while "cannot be read as YAML" not in client.stderr:
        assert time.monotonic() < deadline, f"the index never logged the warning; stderr:\n{client.stderr[-2000:]}"
        time.sleep(0.05)
    client.send(crash(3))
    frames = client.answer(3)
    assert [(params["level"], params["logger"]) for params in logs(frames)] == [("error", "mesh.server")]
    rest, code = client.finish()
    assert code == 0 and logs(rest) == []


def test_a_client_that_never_asked_hears_nothing_INV_LOG_5(world: dict[str, Any]) -> None:
    """INV-LOG-5: no setLevel, no log (what the simulator's sessions rely on)."""
    client = world["start"]("--standalone")
    client.send(handshake() + crash(2))
    assert logs(client.answer(2)) == []
    rest, code = client.finish()
    assert code == 0 and logs(rest) == []


def test_a_stateless_client_hears_only_on_the_call_that_asked_INV_LOG_5(world: dict[str, Any]) -> None:
    """INV-LOG-5: 2026-07-28: the crash's error before the answer of the call carrying the
    logLevel key; nothing for a call without it; an unknown level is -32602."""
    client = world["start"]("--standalone")
    client.send(crash(1, envelope()))
    assert logs(client.answer(1)) == []
    client.send(crash(2, {**envelope(), LOG_LEVEL_KEY: "error"}))  # the index's warning, if late, is below it
    frames = client.answer(2)
    assert [frame.get("method", frame.get("id")) for frame in frames] == [MESSAGE, 2]
    assert logs(frames)[0]["data"]["exception"] == "RuntimeError"
    client.send(crash(3, {**envelope(), LOG_LEVEL_KEY: "banana"}))
    [refused] = client.answer(3)
    assert refused["error"]["code"] == -32602
    client.send(request(4, "logging/setLevel", {"level": "info", "_meta": envelope()}))
    assert client.answer(4)[-1]["error"]["code"] == -32601
    rest, code = client.finish()
    assert code == 0 and logs(rest) == []


def test_through_the_daemon_a_later_session_still_hears_of_the_manifest_INV_LOG_5(world: dict[str, Any]) -> None:
    """INV-LOG-5: the daemon built the index for the first session; the second starts after the
    warning was logged and hears it all the same (the daemon's recent warnings), once."""
    first = world["start"]()
    first.send(handshake() + request(2, "logging/setLevel", {"level": "warning"}))
    first.until(lambda frame: frame.get("method") == MESSAGE and is_manifest_warning(frame["params"]))
    second = world["start"]()
    second.send(handshake() + request(2, "logging/setLevel", {"level": "warning"}) + crash(3))
    frames = second.answer(3)
    assert [params for params in logs(frames) if is_manifest_warning(params)], frames
    for client in (first, second):
        rest, code = client.finish()
        assert code == 0 and not any(is_manifest_warning(params) for params in logs(rest))
