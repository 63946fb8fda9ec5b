"""The HTTP server in-process over real sockets: malformed HTTP, bounds, timeouts, pipelining, stop.

The server runs :class:`LocalSessions` with the test tools (``tests.support.tools``) on a thread,
with short limits; clients are raw sockets, so every byte of a malformed request is ours to choose.
"""

from __future__ import annotations

import json
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import attrs
import pytest

from mesh.drivers._http_endpoint import EndpointConfig
from mesh.drivers._http_rules import Policy
from mesh.drivers.http import HttpLimits, HttpServer, LocalSessions, listen
from mesh.protocol import SessionConfig
from mesh.tools import Registry, load_plugins

TIMEOUT_S: Final = 20.0  # a hang detector
BOTH: Final = "application/json, text/event-stream"
MODERN: Final = "2026-07-28"
ENVELOPE: Final = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
LIMITS: Final = HttpLimits(request_s=1.0, idle_s=1.0, write_s=2.0, grace_s=2.0, body_bytes_max=64 * 1024)


@attrs.frozen
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def events(self) -> list[Any]:
        return [json.loads(line[6:]) for line in self.body.split(b"\n") if line.startswith(b"data: ")]


class Running:
    def __init__(self, limits: HttpLimits = LIMITS, policy: Policy | None = None, **endpoint: Any) -> None:
        registry = Registry()
        load_plugins(registry, ["tests.support.tools"])
        self.sessions = LocalSessions(
            registry=registry,
            workspace=Path(tempfile.gettempdir()),
            config=SessionConfig(server_name="mesh-mcp", server_version="0"),
            shutdown_grace_s=1.0,
        )
        self.server = HttpServer(
            listener=listen("127.0.0.1", 0),
            sessions=self.sessions,
            policy=policy or Policy(),
            limits=limits,
            endpoint=EndpointConfig(**{"keepalive_s": 0.3, **endpoint}),
        )
        self.port = self.server.address[1]
        self.code: int | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.code = self.server.run()

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT_S)

    def stop(self) -> int | None:
        self.server.request_stop("test")
        self.thread.join(TIMEOUT_S)
        assert not self.thread.is_alive(), "the server did not stop"
        return self.code


@pytest.fixture
def running() -> Iterator[Running]:
    server = Running()
    yield server
    if server.thread.is_alive():
        server.stop()


def raw(method: str, body: Any = b"", *, target: str = "/mcp", **headers: str) -> bytes:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    fields = {"host": "127.0.0.1", "accept": BOTH}
    if method == "POST":
        fields["content-type"] = "application/json"
        fields["content-length"] = str(len(data))
    fields.update({name.replace("_", "-"): value for name, value in headers.items()})
    head = f"{method} {target} HTTP/1.1\r\n" + "".join(f"{name}: {value}\r\n" for name, value in fields.items())
    return head.encode() + b"\r\n" + data


def read_response(stream: Any) -> Response:
    """One response from a socket's file (informational ones skipped), chunked or not."""
    while True:
        status_line = stream.readline()
        assert status_line, "the server closed the connection without an answer"
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while (line := stream.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if status >= 200:
            break
    if headers.get("transfer-encoding") == "chunked":
        body = bytearray()
        while (size := int(stream.readline().strip(), 16)) > 0:
            body += stream.read(size)
            stream.readline()
        stream.readline()
        return Response(status, headers, bytes(body))
    return Response(status, headers, stream.read(int(headers.get("content-length", "0"))))


def ask(server: Running, data: bytes) -> Response:
    with server.connect() as sock:
        sock.sendall(data)
        return read_response(sock.makefile("rb"))


def closed(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (waits for it, up to the timeout)."""
    try:
        return sock.recv(65536) == b""
    except ConnectionResetError:
        return True


def initialize(server: Running, version: str = "2025-11-25") -> str:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    answer = ask(server, raw("POST", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}))
    assert answer.status == 200, answer
    return answer.headers["mcp-session-id"]


def call(request_id: Any, name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def wait_until_stalled(server: Running, quiet_s: float = 0.5) -> None:
    """Until a connection is held and its writes have made no progress for ``quiet_s``: its client's
    kernel buffers are full. ``held`` alone is not enough: it is set as each answer is queued,
    before the write that may hand the whole answer to the kernel (then nothing is owed)."""
    deadline = time.monotonic() + TIMEOUT_S
    seen: dict[int, tuple[float, float]] = {}  # fd -> (write_at, since when it has not moved)
    while time.monotonic() < deadline:
        now = time.monotonic()
        for fd, conn in list(server.server._conns.items()):
            if not conn.held:
                seen.pop(fd, None)
                continue
            write_at, since = seen.get(fd, (conn.write_at, now))
            if write_at != conn.write_at:
                write_at, since = conn.write_at, now
            seen[fd] = (write_at, since)
            if now - since >= quiet_s:
                return
        time.sleep(0.05)
    raise AssertionError("no connection stalled with its answers held")


# --- malformed HTTP --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "garbage",
    [
        b"GARBAGE\r\n\r\n",
        b"POST /mcp HTTP/1.1\r\nbad header line\r\n\r\n",
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 5\r\ncontent-length: 6\r\n\r\nhello",
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: nope\r\n\r\n",
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nx: a\x00b\r\n\r\n",
    ],
)
def test_malformed_http_is_400_and_never_reaches_a_session_INV_HTTP_1(running: Running, garbage: bytes) -> None:
    """INV-HTTP-1: h11 rejects it; the answer is 400 and the connection closes."""
    with running.connect() as sock:
        sock.sendall(garbage)
        answer = read_response(sock.makefile("rb"))
        assert answer.status == 400 and answer.json["error"]["code"] == -32600
        assert closed(sock)
    assert running.server.served == 0
    assert initialize(running)  # every other client is served


def test_a_head_over_the_bound_is_431_INV_HTTP_5(running: Running) -> None:
    """INV-HTTP-5: a request head is at most 16 KiB."""
    answer = ask(running, raw("POST", {}, x_filler="a" * (20 * 1024)))
    assert answer.status == 431


def test_a_declared_body_over_the_bound_is_413_before_it_is_read_INV_HTTP_5(running: Running) -> None:
    """INV-HTTP-5: the Content-Length alone decides: not a byte of the body is awaited."""
    with running.connect() as sock:
        sock.sendall(raw("POST", b"").replace(b"content-length: 0", b"content-length: 99999999"))
        answer = read_response(sock.makefile("rb"))
        assert answer.status == 413 and answer.headers["connection"] == "close"


def test_a_chunked_body_over_the_bound_is_413_INV_HTTP_5(running: Running) -> None:
    """INV-HTTP-5: a body with no declared length is counted as it comes and cut at the bound."""
    with running.connect() as sock:
        head = b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
        sock.sendall(head)
        chunk = b"a" * 16384
        try:
            for _ in range(10):
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = read_response(sock.makefile("rb"))
        assert answer.status == 413


def test_a_refused_request_gets_its_answer_even_while_sending_its_body_INV_HTTP_1(running: Running) -> None:
    """INV-HTTP-1: a disallowed Origin is 403 at the head; the rest of the body is drained, so the
    answer is not lost to a reset."""
    with running.connect() as sock:
        request = raw("POST", b" " * 40000, origin="http://evil.example.com")
        sock.sendall(request[:-20000])
        answer = read_response(sock.makefile("rb", buffering=0))
        assert answer.status == 403 and answer.json["id"] is None
        time.sleep(0.1)
        sock.sendall(request[-20000:])  # the server drains what it will never read...
        sock.shutdown(socket.SHUT_WR)
        assert sock.recv(1) == b""  # ...and closes cleanly: no reset
    assert running.server.served == 0


def test_expect_100_continue_is_honoured(running: Running) -> None:
    session = initialize(running)
    with running.connect() as sock:
        body = json.dumps(call(1, "echo", text="hi")).encode()
        request = raw("POST", body, mcp_session_id=session, expect="100-continue")
        sock.sendall(request[: -len(body)])
        stream = sock.makefile("rb")
        assert stream.readline().startswith(b"HTTP/1.1 100")
        assert stream.readline() == b"\r\n"
        sock.sendall(body)
        assert read_response(stream).json["result"]["content"][0]["text"] == "hi"


# --- timeouts and bounds ---------------------------------------------------------------------


def test_a_request_too_slow_to_arrive_is_408_INV_HTTP_5(running: Running) -> None:
    """INV-HTTP-5: a slowloris client gets 408 once request_s has passed since its first byte,
    and every other client is served meanwhile."""
    with running.connect() as slow:
        slow.sendall(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n")
        started = time.monotonic()
        assert initialize(running)
        answer = read_response(slow.makefile("rb"))
        assert answer.status == 408
        assert 0.9 <= time.monotonic() - started < 5


def test_an_idle_connection_is_closed_INV_HTTP_5(running: Running) -> None:
    """INV-HTTP-5: a kept-alive connection with no request for idle_s is closed."""
    session = initialize(running)
    with running.connect() as sock:
        sock.sendall(raw("POST", {"jsonrpc": "2.0", "id": 1, "method": "ping"}, mcp_session_id=session))
        assert read_response(sock.makefile("rb")).status == 200
        started = time.monotonic()
        assert closed(sock)
        assert 0.9 <= time.monotonic() - started < 5
    with running.connect() as silent:  # never a byte: the same bound
        assert closed(silent)


def test_connections_past_the_bound_get_503_INV_HTTP_5() -> None:
    """INV-HTTP-5."""
    server = Running(limits=attrs.evolve(LIMITS, connections_max=2, idle_s=10.0))
    try:
        first, second = server.connect(), server.connect()
        first.sendall(raw("POST", {}, target="/other"))
        assert read_response(first.makefile("rb")).status == 404  # both are accepted by now
        third = server.connect()
        answer = read_response(third.makefile("rb"))
        assert answer.status == 503 and answer.json["error"]["code"] == -32603
        for sock in (first, second, third):
            sock.close()
        time.sleep(0.2)
        assert initialize(server)
    finally:
        server.stop()


def test_pipelined_requests_are_answered_in_order(running: Running) -> None:
    session = initialize(running)
    with running.connect() as sock:
        requests = [raw("POST", call(n, "echo", text=str(n)), mcp_session_id=session) for n in range(5)]
        sock.sendall(b"".join(requests))
        stream = sock.makefile("rb")
        texts = [read_response(stream).json["result"]["content"][0]["text"] for _ in range(5)]
        assert texts == ["0", "1", "2", "3", "4"]


def test_a_client_that_reads_no_answers_is_held_then_dropped_INV_HTTP_5() -> None:
    """INV-HTTP-5: past out_bytes_max of unread answers, its next request waits and nothing more
    is read from it (its output stays at the bound); past write_s without taking any, it is
    dropped; others are served throughout."""
    bound = 16 * 1024
    server = Running(limits=attrs.evolve(LIMITS, out_bytes_max=bound, write_s=3.0))
    try:
        session = initialize(server)
        hog = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        hog.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        hog.connect(("127.0.0.1", server.port))
        # Small requests, 40 KB answers: the kernel's buffers fill, then the server's own.
        request = raw("POST", call(1, "echo", text="x" * 100, repeat=400), mcp_session_id=session)
        count = 60 * 1024 // len(request)  # under what may wait unread behind a request
        hog.sendall(request * count)
        wait_until_stalled(server)
        served = server.server.served
        assert initialize(server)  # the loop is free for everyone else
        held = [conn for conn in list(server.server._conns.values()) if conn.held]
        assert len(held) == 1 and len(held[0].out) <= bound + 64 * 1024
        assert served < count, "the server answered everything to a client that reads nothing"
        deadline = time.monotonic() + TIMEOUT_S
        while any(conn.held for conn in list(server.server._conns.values())) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(conn.held for conn in list(server.server._conns.values())), "the hog was never dropped"
        hog.close()
    finally:
        server.stop()


# --- sessions over sockets -------------------------------------------------------------------


def test_a_slow_call_streams_with_keepalives(running: Running) -> None:
    session = initialize(running)
    answer = ask(running, raw("POST", call(1, "sleep", ms=700), mcp_session_id=session))
    assert answer.status == 200 and answer.headers["content-type"] == "text/event-stream"
    assert answer.body.startswith(b":\n\n") and answer.events[-1]["result"]["content"][0]["text"] == "slept 700 ms"


def test_closing_a_stateless_stream_stops_the_call_INV_HTTP_4(running: Running) -> None:
    """INV-HTTP-4: the call sees its cancellation at once (the sleep tool returns early)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "sleep", "arguments": {"ms": 20000}, "_meta": ENVELOPE},
    }
    with running.connect() as sock:
        sock.sendall(raw("POST", body, mcp_protocol_version=MODERN, mcp_method="tools/call", mcp_name="sleep"))
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")  # the stream started: the call runs
    deadline = time.monotonic() + 5  # the sleep would take 20 s
    while running.sessions._pumps and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not running.sessions._pumps, "the cancelled call's session is still running"


def test_concurrent_clients_each_get_their_own_answers_INV_HTTP_3(running: Running) -> None:
    """INV-HTTP-3: 16 clients at once, each its own session and calls, none crossed."""
    failures: list[str] = []

    def client(number: int) -> None:
        try:
            session = initialize(running)
            with running.connect() as sock:
                stream = sock.makefile("rb")
                for step in range(5):
                    text = f"{number}-{step}"
                    sock.sendall(raw("POST", call(step, "echo", text=text), mcp_session_id=session))
                    got = read_response(stream).json
                    if got["id"] != step or got["result"]["content"][0]["text"] != text:
                        failures.append(f"{number}: {got}")
            stateless = {
                "jsonrpc": "2.0",
                "id": number,
                "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": number, "b": 1}, "_meta": ENVELOPE},
            }
            got = ask(
                running, raw("POST", stateless, mcp_protocol_version=MODERN, mcp_method="tools/call", mcp_name="add")
            ).json
            if got["result"]["structuredContent"] != {"sum": number + 1}:
                failures.append(f"{number}: {got}")
        except (OSError, AssertionError, KeyError, TypeError, ValueError) as exc:  # reported below
            failures.append(f"{number}: {exc!r}")

    threads = [threading.Thread(target=client, args=(number,)) for number in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT_S)
    assert failures == []
    assert running.server.served == 16 * 7


def test_the_token_is_checked_on_the_wire_INV_HTTP_6() -> None:
    """INV-HTTP-6."""
    server = Running(policy=Policy(token="a-token-of-sixteen-chars"))
    try:
        ping = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
        refused = ask(server, raw("POST", ping))
        assert refused.status == 401 and refused.headers["www-authenticate"].startswith("Bearer")
        assert ask(server, raw("POST", ping, authorization="Bearer a-token-of-sixteen-chars")).status == 200
    finally:
        server.stop()


# --- stop ------------------------------------------------------------------------------------


def test_stop_answers_what_was_accepted_then_returns_0_INV_HTTP_7(running: Running) -> None:
    """INV-HTTP-7: a running call is cancelled and answered; new connections are refused."""
    session = initialize(running)
    with running.connect() as sock:
        sock.sendall(raw("POST", call(1, "sleep", ms=20000), mcp_session_id=session))
        time.sleep(0.5)
        started = time.monotonic()
        assert running.stop() == 0
        assert time.monotonic() - started < 2
        answer = read_response(sock.makefile("rb"))
        assert answer.events[-1]["result"]["content"][0]["text"] == "cancelled"
    with pytest.raises(OSError):
        running.connect()


def test_a_second_stop_returns_at_once_with_1_when_a_request_waits_INV_HTTP_7() -> None:
    """INV-HTTP-7: an answer still owed at a second signal is lost, and the exit code says so."""
    server = Running()
    sock = server.connect()
    try:
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "sleep", "arguments": {"ms": 20000}, "_meta": ENVELOPE},
        }
        server.sessions.stop = lambda reason: None  # type: ignore[method-assign]  # calls ignore the stop
        sock.sendall(raw("POST", body, mcp_protocol_version=MODERN, mcp_method="tools/call", mcp_name="sleep"))
        time.sleep(0.5)
        server.server.request_stop("first")
        time.sleep(0.2)
        assert server.thread.is_alive()
        assert server.stop() == 1
    finally:
        sock.close()


def test_stop_gives_up_after_the_grace_period_INV_HTTP_7() -> None:
    """INV-HTTP-7."""
    server = Running(limits=attrs.evolve(LIMITS, grace_s=0.5))
    sock = server.connect()
    try:
        session = initialize(server)
        server.sessions.stop = lambda reason: None  # type: ignore[method-assign]
        sock.sendall(raw("POST", call(1, "sleep", ms=20000), mcp_session_id=session))
        time.sleep(0.3)
        started = time.monotonic()
        server.server.request_stop("test")
        server.thread.join(TIMEOUT_S)
        assert server.code == 1 and 0.4 < time.monotonic() - started < 3
    finally:
        sock.close()


def test_answers_a_client_never_took_make_the_stop_exit_1_INV_HTTP_7() -> None:
    """INV-HTTP-7: an answer left in the server's buffer at the end of the grace period is lost,
    and the exit code says so."""
    server = Running(limits=attrs.evolve(LIMITS, out_bytes_max=16 * 1024, write_s=30.0, grace_s=0.5))
    try:
        session = initialize(server)
        hog = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        hog.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        hog.connect(("127.0.0.1", server.port))
        request = raw("POST", call(1, "echo", text="x" * 100, repeat=400), mcp_session_id=session)
        hog.sendall(request * (60 * 1024 // len(request)))
        wait_until_stalled(server)
        assert server.stop() == 1
        hog.close()
    finally:
        if server.thread.is_alive():
            server.stop()
