"""Journeys: the real ``mesh-mcp http`` process on 127.0.0.1, driven over HTTP.

Each server listens on a free port (``--port 0``; the URL is the first line of its stdout) and is
stopped by the test (SIGTERM) or by its fixture; every wait has a deadline. Clients are the
standard library's ``http.client``, raw sockets for what no client library would send, and the
official MCP SDK's Streamable HTTP client (``mcp`` 2.3, the client ``test_sdk_clients.py`` uses
over stdio) in both eras.
"""

from __future__ import annotations

import asyncio
import ctypes
import http.client
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

import attrs
import pytest

from .conftest import (
    ANSWER_TIMEOUT_S,
    EMPTY_WORKSPACE,
    HANDSHAKE_VERSIONS,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    REPO_ROOT,
    SERVED_TOOL_NAMES,
    STATELESS_VERSION,
    server_env,
)

pytestmark = [pytest.mark.journey, pytest.mark.timeout(120)]

HTTP_ARGV: Final = (sys.executable, "-m", "mesh", "http")
#: Hang detectors, never speed claims.
START_TIMEOUT_S: Final = 30.0
EXIT_TIMEOUT_S: Final = 30.0
BOTH: Final = "application/json, text/event-stream"
ENVELOPE: Final = {
    "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "journey", "version": "0"},
}
#: Answers held past this become streams: long enough that no immediate answer streams on a
#: loaded machine (its status is then the one asserted), ...
STEADY: Final = {"MESH_HTTP_KEEPALIVE_S": "5"}
#: ... and short, where streaming itself is what a test looks at.
FAST: Final = {"MESH_HTTP_KEEPALIVE_S": "0.3"}


@attrs.frozen
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        assert self.headers.get("content-type") == "application/json", (self.status, self.headers, self.body[:300])
        return json.loads(self.body)

    @property
    def events(self) -> list[Any]:
        assert self.headers.get("content-type") == "text/event-stream", (self.status, self.headers)
        return [json.loads(line[6:]) for line in self.body.split(b"\n") if line.startswith(b"data: ")]

    @property
    def message(self) -> Any:
        """The JSON-RPC answer, whichever way it came."""
        if self.headers.get("content-type") == "text/event-stream":
            return self.events[-1]
        return self.json


#: A server gets SIGTERM when the test process dies (Linux ``PR_SET_PDEATHSIG``, kept across exec),
#: so it never outlives the run that started it, even one killed mid-test: util-linux's ``setpriv``
#: sets it without running Python in the forked child; else ``prctl``, resolved here, beforehand.
_SETPRIV: Final = shutil.which("setpriv")
_PRCTL: Final = None if _SETPRIV else ctypes.CDLL(None, use_errno=True).prctl


def _stop_with_parent() -> None:
    _PRCTL(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: one C call in the child


class Server:
    """A ``mesh-mcp http`` process; its stderr in a file. It stops at the end of its test, or when
    the test process dies."""

    def __init__(
        self,
        *args: str,
        standalone: bool = True,
        env: Mapping[str, str] | None = None,
        workspace: Path = EMPTY_WORKSPACE,
        expect_url: bool = True,
    ) -> None:
        self.errors = Path(tempfile.mkstemp(prefix="mesh-http-", suffix=".err")[1])
        argv = [
            *HTTP_ARGV,
            "--workspace",
            str(workspace),
            "--port",
            "0",
            *(["--standalone"] if standalone else []),
            *args,
        ]
        if _SETPRIV:
            argv = [_SETPRIV, "--pdeathsig", "TERM", *argv]
        with self.errors.open("wb") as errors:
            self.process = subprocess.Popen(
                argv,
                stdout=subprocess.PIPE,
                stderr=errors,
                env=server_env(extra=env),
                cwd=REPO_ROOT,
                preexec_fn=None if _SETPRIV else _stop_with_parent,  # noqa: PLW1509  (one C call)
            )
        self.url = ""
        self.port = 0
        if expect_url:
            self._read_url()

    def _read_url(self) -> None:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], START_TIMEOUT_S)
        line = self.process.stdout.readline().decode().strip() if ready else ""
        assert line.startswith("http://127.0.0.1:"), f"no URL on stdout ({line!r}); stderr:\n{self.stderr}"
        self.url = line
        self.port = int(line.rsplit(":", 1)[1].split("/")[0])

    @property
    def stderr(self) -> str:
        return self.errors.read_text(errors="replace")

    def request(self, method: str, body: Any = None, **headers: str) -> Answer:
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        fields = {"accept": BOTH}
        if method == "POST":
            fields["content-type"] = "application/json"
        fields.update({name.replace("_", "-"): value for name, value in headers.items()})
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=ANSWER_TIMEOUT_S)
        try:
            connection.request(method, "/mcp", body=data, headers=fields)
            response = connection.getresponse()
            return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        finally:
            connection.close()

    def post(self, body: Any, session: str | None = None, **headers: str) -> Answer:
        if session is not None:
            headers["mcp_session_id"] = session
        return self.request("POST", body, **headers)

    def modern(self, request_id: Any, method: str, params: Mapping[str, Any] | None = None, **headers: str) -> Answer:
        body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**(params or {}), "_meta": ENVELOPE}}
        fields = {"mcp_protocol_version": STATELESS_VERSION, "mcp_method": method}
        if method == "tools/call":
            fields["mcp_name"] = body["params"]["name"]
        return self.post(body, **{**fields, **headers})

    def initialize(self, version: str = "2025-11-25") -> str:
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "journey", "version": "0"}}
        answer = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        assert answer.status == 200, answer
        assert answer.message["result"]["protocolVersion"] == version
        session = answer.headers["mcp-session-id"]
        assert self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session).status == 202
        return session

    def raw(self, data: bytes) -> bytes:
        """Send bytes no client library would, read until the server closes or a timeout."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=ANSWER_TIMEOUT_S) as sock:
            try:
                sock.sendall(data)
            except OSError:
                pass  # the server may answer and close before taking all of it
            received = b""
            try:
                while chunk := sock.recv(65536):
                    received += chunk
                    if b"\r\n\r\n" in received and _complete(received):
                        break
            except ConnectionResetError:
                pass
            return received

    def signal(self, signum: int = signal.SIGTERM) -> int:
        self.process.send_signal(signum)
        return self.process.wait(EXIT_TIMEOUT_S)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(EXIT_TIMEOUT_S)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.errors.unlink(missing_ok=True)


def _complete(received: bytes) -> bool:
    head, _, body = received.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False


def status_of(received: bytes) -> int:
    assert received.startswith(b"HTTP/1.1 "), received[:200]
    return int(received.split()[1])


def rpc(request_id: Any, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = dict(params)
    return message


def call(request_id: Any, name: str, **arguments: Any) -> dict[str, Any]:
    return rpc(request_id, "tools/call", {"name": name, "arguments": arguments})


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """One standalone server for the journeys that need no process of their own."""
    started = Server(env=STEADY)
    yield started
    started.close()


@pytest.fixture(scope="module")
def streaming() -> Iterator[Server]:
    """A server that streams any answer held past 0.3 s."""
    started = Server(env=FAST)
    yield started
    started.close()


@pytest.fixture
def fresh() -> Iterator[list[Server]]:
    """Servers of one test's own (stopped at its end)."""
    servers: list[Server] = []
    yield servers
    for started in servers:
        started.close()


# --- whole sessions --------------------------------------------------------------------------


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
def test_a_whole_handshake_session_over_http_INV_HTTP_2(streaming: Server, version: str) -> None:
    """INV-HTTP-2: initialize, the session id on every request, a slow call streamed, the GET
    stream, DELETE, then 404."""
    server = streaming
    session = server.initialize(version)
    listed = server.post(rpc(1, "tools/list"), session, mcp_protocol_version=version)
    assert [tool["name"] for tool in listed.message["result"]["tools"]] == list(SERVED_TOOL_NAMES)
    added = server.post(call(2, "add", a=2, b=3), session)
    assert added.status == 200 and added.message["result"]["content"][0]["text"] == "5"
    slow = server.post(call(3, "sleep", ms=800), session)
    assert slow.status == 200 and slow.headers["content-type"] == "text/event-stream"
    assert slow.body.startswith(b":\n\n"), "kept alive while the call ran"
    assert slow.events == [
        {"id": 3, "jsonrpc": "2.0", "result": {"content": [{"text": "slept 800 ms", "type": "text"}], "isError": False}}
    ]
    with socket.create_connection(("127.0.0.1", server.port), timeout=ANSWER_TIMEOUT_S) as stream:
        stream.sendall(
            b"GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: "
            + session.encode()
            + b"\r\n\r\n"
        )
        opened = stream.recv(4096)
        assert opened.startswith(b"HTTP/1.1 200 OK") and b"text/event-stream" in opened
        second = server.request("GET", mcp_session_id=session)
        assert second.status == 409
        assert server.request("DELETE", mcp_session_id=session).status == 200
        whole = opened
        while not whole.endswith(b"\r\n0\r\n\r\n") and (chunk := stream.recv(4096)):
            whole += chunk
        assert whole.endswith(b"\r\n0\r\n\r\n"), "the GET stream ended with its session"
    gone = server.post(rpc(4, "ping"), session)
    assert gone.status == 404


def test_a_whole_stateless_session_over_http_INV_HTTP_4(server: Server, streaming: Server) -> None:
    """INV-HTTP-4: discover, list, call, errors with their statuses, mirrored headers, no GET."""
    discovered = server.modern(1, "server/discover")
    assert discovered.status == 200 and discovered.message["result"]["supportedVersions"] == [STATELESS_VERSION]
    assert "mcp-session-id" not in discovered.headers
    listed = server.modern(2, "tools/list")
    assert [tool["name"] for tool in listed.message["result"]["tools"]] == list(SERVED_TOOL_NAMES)
    added = server.modern(3, "tools/call", {"name": "add", "arguments": {"a": 40, "b": 2}})
    assert added.message["result"]["structuredContent"] == {"sum": 42}
    slow = streaming.modern(4, "tools/call", {"name": "sleep", "arguments": {"ms": 700}})
    assert slow.events[-1]["result"]["content"][0]["text"] == "slept 700 ms", "streamed past keepalive_s"
    assert server.modern(5, "ping").status == 404
    unknown = server.modern(6, "tools/call", {"name": "nope"})
    assert unknown.status == 400 and unknown.message["error"]["code"] == INVALID_PARAMS
    crash = server.modern(7, "tools/call", {"name": "fail", "arguments": {"how": "crash"}})
    assert crash.status == 200 and crash.message["error"]["code"] == INTERNAL_ERROR
    mismatch = server.modern(8, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}, mcp_name="echo")
    assert mismatch.status == 400 and mismatch.json["error"]["code"] == -32020
    assert server.request("GET", mcp_protocol_version=STATELESS_VERSION).status == 405


def test_both_eras_and_many_clients_at_once_INV_HTTP_3(server: Server) -> None:
    """INV-HTTP-3: 24 clients at once, handshake and stateless, each gets its own answers."""
    failures: list[str] = []

    def client(number: int) -> None:
        try:
            if number % 2:
                session = server.initialize()
                for step in range(4):
                    got = server.post(call(step, "echo", text=f"{number}:{step}"), session).message
                    if got != {
                        "id": step,
                        "jsonrpc": "2.0",
                        "result": {"content": [{"text": f"{number}:{step}", "type": "text"}], "isError": False},
                    }:
                        failures.append(f"{number}: {got}")
                server.request("DELETE", mcp_session_id=session)
            else:
                for step in range(4):
                    got = server.modern(
                        step, "tools/call", {"name": "add", "arguments": {"a": number, "b": step}}
                    ).message
                    if got["id"] != step or got["result"]["structuredContent"] != {"sum": number + step}:
                        failures.append(f"{number}: {got}")
        except (OSError, AssertionError, KeyError, ValueError) as exc:
            failures.append(f"{number}: {exc!r}")

    threads = [threading.Thread(target=client, args=(number,)) for number in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(ANSWER_TIMEOUT_S * 2)
    assert failures == []


# --- bad input -------------------------------------------------------------------------------


def _post_bytes(body: bytes, **headers: str) -> bytes:
    fields = {"host": "127.0.0.1", "content-type": "application/json", "accept": BOTH, **headers}
    fields["content-length"] = str(len(body))
    head = "".join(f"{name.replace('_', '-')}: {value}\r\n" for name, value in fields.items())
    return b"POST /mcp HTTP/1.1\r\n" + head.encode() + b"\r\n" + body


PING: Final = json.dumps(rpc(1, "ping")).encode()


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        pytest.param(b"NOT HTTP AT ALL\r\n\r\n", 400, id="malformed-request-line"),
        pytest.param(b"POST /mcp HTTP/1.1\r\nhost 127.0.0.1\r\n\r\n", 400, id="bad-header"),
        pytest.param(_post_bytes(PING, content_type="text/plain"), 415, id="wrong-content-type"),
        pytest.param(_post_bytes(PING, accept="text/html"), 406, id="accepts-neither-answer"),
        pytest.param(_post_bytes(PING), 400, id="missing-session-id"),
        pytest.param(_post_bytes(PING, mcp_session_id="no-such-session"), 404, id="unknown-session-id"),
        pytest.param(_post_bytes(PING, origin="http://evil.example.com"), 403, id="disallowed-origin"),
        pytest.param(_post_bytes(PING, host="evil.example.com"), 403, id="dns-rebinding-host"),
        pytest.param(_post_bytes(b" " * (2 * 1024 * 1024)), 413, id="huge-body"),
        pytest.param(_post_bytes(PING, x_filler="a" * (32 * 1024)), 431, id="huge-head"),
        pytest.param(_post_bytes(PING, mcp_protocol_version="1999-01-01"), 400, id="unsupported-version"),
        pytest.param(_post_bytes(b"{not json"), 400, id="not-json"),
        pytest.param(b"PUT /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 0\r\n\r\n", 405, id="method"),
        pytest.param(b"GET /other HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n", 404, id="path"),
    ],
)
def test_bad_input_gets_the_status_the_spec_names_and_the_server_goes_on_INV_HTTP_1(
    server: Server, request_bytes: bytes, status: int
) -> None:
    """INV-HTTP-1: answered at the HTTP layer (a JSON-RPC error without an id), never reaching a
    tool; the next client is served."""
    received = server.raw(request_bytes)
    assert status_of(received) == status, received[:300]
    body = json.loads(received.partition(b"\r\n\r\n")[2])
    assert body["jsonrpc"] == "2.0" and body["id"] is None and isinstance(body["error"]["code"], int)
    session = server.initialize()
    still = server.post(call(1, "echo", text="still here"), session)
    assert still.message["result"]["content"][0]["text"] == "still here"


def test_slow_clients_idle_connections_and_idle_streams_time_out_INV_HTTP_5(fresh: list[Server]) -> None:
    """INV-HTTP-5: a request that does not arrive in time is 408, a quiet connection and an idle
    GET stream are closed; the server serves others throughout."""
    server = Server(env={**FAST, "MESH_HTTP_REQUEST_S": "1", "MESH_HTTP_IDLE_S": "1", "MESH_HTTP_STREAM_IDLE_S": "1.5"})
    fresh.append(server)
    session = server.initialize()
    with socket.create_connection(("127.0.0.1", server.port), timeout=ANSWER_TIMEOUT_S) as slow:
        slow.sendall(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 100\r\n\r\n{")
        started = time.monotonic()
        assert server.post(rpc(1, "ping"), session).status == 200
        received = slow.recv(65536)
        assert status_of(received) == 408 and 0.9 < time.monotonic() - started < 10
    with socket.create_connection(("127.0.0.1", server.port), timeout=ANSWER_TIMEOUT_S) as quiet:
        started = time.monotonic()
        assert quiet.recv(1) == b"" and time.monotonic() - started < 10
    with socket.create_connection(("127.0.0.1", server.port), timeout=ANSWER_TIMEOUT_S) as stream:
        stream.sendall(
            b"GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: "
            + session.encode()
            + b"\r\n\r\n"
        )
        started = time.monotonic()
        received = b""
        while chunk := stream.recv(65536):
            received += chunk
            if received.endswith(b"\r\n0\r\n\r\n"):
                break
        assert status_of(received) == 200 and 1.4 < time.monotonic() - started < 10
    assert "Traceback" not in server.stderr


# --- security --------------------------------------------------------------------------------


def test_a_token_guards_every_request_when_set_INV_HTTP_6(fresh: list[Server]) -> None:
    """INV-HTTP-6."""
    token = "journey-token-0123456789abcdef"
    server = Server(env={**FAST, "MESH_HTTP_TOKEN": token})
    fresh.append(server)
    refused = server.modern(1, "tools/list")
    assert refused.status == 401 and refused.headers["www-authenticate"].startswith("Bearer")
    assert server.modern(1, "tools/list", authorization="Bearer wrong-token-0123456789").status == 401
    assert server.modern(1, "tools/list", authorization=f"Bearer {token}").status == 200
    assert token not in server.stderr


@pytest.mark.parametrize(
    ("args", "env", "says"),
    [
        (("--host", "0.0.0.0"), {}, "without a bearer token"),
        (("--host", "0.0.0.0"), {"MESH_HTTP_TOKEN": "short"}, "at least 16"),
        ((), {"MESH_HTTP_KEEPALIVE_S": "-1"}, "MESH_HTTP_KEEPALIVE_S"),
        ((), {"MESH_HTTP_ORIGINS": "not an origin"}, "MESH_HTTP_ORIGINS"),
        (("--port", "70000"), {}, "--port"),
    ],
)
def test_the_server_refuses_to_start_unsafely_INV_HTTP_6(args: tuple[str, ...], env: dict[str, str], says: str) -> None:
    """INV-HTTP-6: beyond this machine without a token, or with a weak one: exit 2, nothing listens."""
    result = subprocess.run(
        [*HTTP_ARGV, "--workspace", str(EMPTY_WORKSPACE), "--standalone", *args],
        capture_output=True,
        env=server_env(extra=env),
        cwd=REPO_ROOT,
        timeout=EXIT_TIMEOUT_S,
        check=False,
    )
    assert result.returncode == 2, result
    assert result.stdout == b"" and says in result.stderr.decode()


def test_a_port_in_use_is_exit_1(server: Server) -> None:
    result = subprocess.run(
        [*HTTP_ARGV, "--workspace", str(EMPTY_WORKSPACE), "--standalone", "--port", str(server.port)],
        capture_output=True,
        env=server_env(),
        cwd=REPO_ROOT,
        timeout=EXIT_TIMEOUT_S,
        check=False,
    )
    assert result.returncode == 1 and "cannot listen" in result.stderr.decode()


# --- stopping --------------------------------------------------------------------------------


def test_sigterm_drains_every_request_in_flight_INV_HTTP_7(fresh: list[Server]) -> None:
    """INV-HTTP-7: running calls (both eras) are cancelled and answered, exit 0, promptly."""
    server = Server(env=FAST)
    fresh.append(server)
    session = server.initialize()
    answers: dict[str, Answer] = {}

    def ask(name: str, send: Any) -> None:
        answers[name] = send()

    threads = [
        threading.Thread(target=ask, args=("handshake", lambda: server.post(call(1, "sleep", ms=20000), session))),
        threading.Thread(
            target=ask,
            args=("stateless", lambda: server.modern(1, "tools/call", {"name": "sleep", "arguments": {"ms": 20000}})),
        ),
    ]
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    started = time.monotonic()
    assert server.signal(signal.SIGTERM) == 0, server.stderr
    assert time.monotonic() - started < 5
    for thread in threads:
        thread.join(ANSWER_TIMEOUT_S)
    for name in ("handshake", "stateless"):
        assert answers[name].message["result"]["content"][0]["text"] == "cancelled", name
    assert "Traceback" not in server.stderr
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=2).close()


# --- the official SDK's Streamable HTTP client ------------------------------------------------


@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", STATELESS_VERSION)])
def test_the_official_sdk_client_over_http(server: Server, mode: str, version: str) -> None:
    """The SDK client (``mcp`` 2.3) in each era: list, call, errors, and a timeout that cancels the
    call (``notifications/cancelled`` in the handshake era, closing the stream in 2026-07-28)."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError

    seen: dict[str, Any] = {}

    async def session() -> None:
        async with Client(streamable_http_client(server.url), mode=mode) as client:
            seen["version"] = client.protocol_version
            seen["tools"] = await client.list_tools()
            seen["add"] = await client.call_tool("add", {"a": 2, "b": 3})
            seen["tool-error"] = await client.call_tool("fail", {"how": "tool-error"})
            for name, tool, arguments in (("crash", "fail", {"how": "crash"}), ("unknown", "no-such-tool", {})):
                try:
                    await client.call_tool(tool, arguments)
                except MCPError as exc:
                    seen[name] = exc
            started = time.monotonic()
            try:
                await client.call_tool("sleep", {"ms": 20000}, read_timeout_seconds=0.3)
            except MCPError as exc:
                seen["timeout"] = exc
            seen["after"] = await client.call_tool("echo", {"text": "still here"})
            seen["after_s"] = time.monotonic() - started

    asyncio.run(asyncio.wait_for(session(), 60))
    assert seen["version"] == version
    assert [tool.name for tool in seen["tools"].tools] == list(SERVED_TOOL_NAMES)
    assert [block.text for block in seen["add"].content] == ["5"] and seen["add"].structured_content == {"sum": 5}
    assert seen["tool-error"].is_error
    assert seen["crash"].code == INTERNAL_ERROR and seen["unknown"].code == INVALID_PARAMS
    assert isinstance(seen["timeout"], MCPError)
    assert [block.text for block in seen["after"].content] == ["still here"] and seen["after_s"] < 5


# --- sessions on the workspace's daemon --------------------------------------------------------


def test_sessions_run_on_the_daemon_and_share_its_index(fresh: list[Server]) -> None:
    """Without --standalone, every session (both eras) is a session of the workspace's daemon:
    the audit log names the daemon's sessions, and the server stops without stopping the daemon."""
    runtime = Path(tempfile.mkdtemp(prefix="mesh-rt-", dir="/tmp"))
    workspace = Path(tempfile.mkdtemp(prefix="mesh-http-ws-"))
    env = {**FAST, "XDG_RUNTIME_DIR": str(runtime), "MESH_DAEMON_IDLE_S": "60"}
    try:
        server = Server(standalone=False, env=env, workspace=workspace)
        fresh.append(server)
        session = server.initialize()
        assert server.post(call(1, "echo", text="via the daemon"), session).status == 200
        assert server.modern(2, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}).status == 200
        audit = subprocess.run(
            [sys.executable, "-m", "mesh", "audit", str(workspace), "--json"],
            capture_output=True,
            env=server_env(extra=env),
            cwd=REPO_ROOT,
            timeout=EXIT_TIMEOUT_S,
            check=True,
        )
        rows = json.loads(audit.stdout)
        assert {row["tool"] for row in rows} == {"echo", "add"}
        assert all(row["session"].startswith("meshd-") for row in rows), rows
        assert "sessions on the workspace's daemon" in server.stderr or server.stderr == ""
        assert server.signal(signal.SIGTERM) == 0
        [lock] = runtime.glob("**/*.lock")
        os.kill(int(lock.read_text()), 0)  # the daemon serves on
    finally:
        for lock in runtime.glob("**/*.lock"):
            try:
                os.kill(int(lock.read_text()), signal.SIGKILL)
            except (OSError, ValueError):
                pass
        shutil.rmtree(runtime, True)
        shutil.rmtree(workspace, True)
