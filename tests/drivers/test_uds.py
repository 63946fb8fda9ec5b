"""The daemon's accept loop in-process: a session per connection, peers of another uid, idleness, stop."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from mesh.drivers.uds import Daemon
from mesh.protocol import SessionConfig
from mesh.sockets import (
    COPY_RECORD,
    END_MARKER,
    FDS_RECORD,
    HEARTBEAT,
    ControlReader,
    Hello,
    exit_record,
    read_hello,
    stop_record,
)
from mesh.tools import Registry, load_plugins
from tests.support.memory import initialize, notification, request

TIMEOUT_S: Final = 30.0  # a hang detector


class Running:
    """A :class:`Daemon` serving the test tools on a socket in a short temporary folder, on a thread."""

    def __init__(self, **options: Any) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="mesh-uds-", dir="/tmp"))
        self.path = self.folder / "d.sock"
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(os.fspath(self.path))
        listener.listen(16)
        registry = Registry()
        load_plugins(registry, ["tests.support.tools"])
        self.daemon = Daemon(
            listener=listener,
            registry=registry,
            workspace=self.folder,
            config=SessionConfig(server_name="mesh-mcp", server_version="0"),
            hello=lambda sessions, refused: Hello(
                "0", os.getpid(), str(self.folder), "/log", (), {"sessions": sessions, "refused": refused}
            ).encode(),
            **options,
        )
        self.code: int | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.code = self.daemon.run()

    def connect(self) -> tuple[socket.socket, Hello]:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(TIMEOUT_S)
        client.connect(os.fspath(self.path))
        hello, rest = read_hello(client)
        assert rest == b""
        return client, hello

    def stop(self) -> int | None:
        self.daemon.request_stop("test")
        self.thread.join(TIMEOUT_S)
        assert not self.thread.is_alive(), "the daemon did not stop"
        return self.code

    def close(self) -> None:
        if self.thread.is_alive():
            self.stop()
        self.daemon.close()
        shutil.rmtree(self.folder, True)


@pytest.fixture
def running() -> Iterator[Any]:
    made: list[Running] = []

    def start(**options: Any) -> Running:
        made.append(Running(**options))
        return made[-1]

    yield start
    for daemon in made:
        daemon.close()


def answers(client: socket.socket, count: int) -> list[dict[str, Any]]:
    received = b""
    while received.count(b"\n") < count:
        chunk = client.recv(65536)
        assert chunk, f"closed after {received!r}"
        received += chunk
    return [json.loads(line) for line in received.splitlines()]


def _rest(client: socket.socket) -> bytes:
    """Everything until the daemon closes the connection."""
    received = b""
    while chunk := client.recv(65536):
        received += chunk
    return received


def call(request_id: int, name: str, arguments: dict[str, Any]) -> bytes:
    return request(request_id, "tools/call", {"name": name, "arguments": arguments})


def test_each_connection_is_its_own_session(running: Any) -> None:
    daemon = running()
    first, hello_1 = daemon.connect()
    second, hello_2 = daemon.connect()
    assert (hello_1.status["sessions"], hello_2.status["sessions"]) == (1, 2)
    first.sendall(
        initialize(request_id=1) + notification("notifications/initialized") + call(2, "echo", {"text": "one"})
    )
    second.sendall(request(1, "ping") + call(2, "echo", {"text": "two"}))  # never initialized
    one = answers(first, 2)
    two = answers(second, 2)
    assert one[1] == {
        "id": 2,
        "jsonrpc": "2.0",
        "result": {"content": [{"text": "one", "type": "text"}], "isError": False},
    }
    assert two[0] == {"id": 1, "jsonrpc": "2.0", "result": {}}
    assert two[1]["id"] == 2 and "error" in two[1]  # this session's own lifecycle: not initialized
    first.shutdown(socket.SHUT_WR)
    assert _rest(first) == END_MARKER  # EOF answered: everything written, then the end marker
    first.close()
    second.close()  # abruptly: the daemon notices and forgets it
    deadline = time.monotonic() + TIMEOUT_S
    while daemon.daemon.sessions and time.monotonic() < deadline:
        time.sleep(0.01)
    assert daemon.daemon.sessions == 0 and daemon.daemon.accepted == 2


def test_a_peer_of_another_uid_is_hung_up_on_before_any_byte(running: Any) -> None:
    """INV-SOCK-2, in-process: the daemon serves one uid (here: one that is not ours)."""
    daemon = running(allowed_uid=os.getuid() + 1)
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(TIMEOUT_S)
    client.connect(os.fspath(daemon.path))
    assert client.recv(65536) == b""
    client.close()
    assert daemon.daemon.refused == 1 and daemon.daemon.accepted == 0


def test_an_idle_daemon_returns_and_a_busy_one_does_not(running: Any) -> None:
    daemon = running(idle_exit_s=0.3)
    client, _ = daemon.connect()
    client.sendall(request(1, "ping"))
    time.sleep(0.5)
    assert daemon.thread.is_alive()  # a connected client keeps it up past the idle time
    client.close()
    daemon.thread.join(TIMEOUT_S)
    assert daemon.code == 0 and not daemon.thread.is_alive()


def test_stop_answers_the_running_call_refuses_nothing_silently_and_returns(running: Any) -> None:
    daemon = running(shutdown_grace_s=5.0)
    client, _ = daemon.connect()
    client.sendall(
        initialize(request_id=1) + notification("notifications/initialized") + call(2, "sleep", {"ms": 30_000})
    )
    answers(client, 1)
    time.sleep(0.2)
    started = time.monotonic()
    assert daemon.stop() == 0
    received = _rest(client)
    assert received.endswith(END_MARKER)  # drained: nothing it was sent is lost
    (answer,) = [json.loads(line) for line in received.removesuffix(END_MARKER).splitlines()]
    assert answer["id"] == 2 and answer["result"]["content"][0]["text"] == "cancelled"
    assert time.monotonic() - started < TIMEOUT_S
    with pytest.raises(OSError):
        daemon.connect()  # the listener is closed


def test_past_the_most_sessions_a_connection_is_told_why_and_closed(running: Any) -> None:
    daemon = running(sessions_max=2)
    kept = [daemon.connect() for _ in range(2)]
    assert [hello.status["refused"] for _, hello in kept] == ["", ""]
    extra, hello = daemon.connect()
    assert hello.status["refused"] == "2 sessions are open, the most this daemon serves"
    assert extra.recv(65536) == b""
    assert daemon.daemon.refused == 1 and daemon.daemon.accepted == 2
    kept[0][0].close()
    deadline = time.monotonic() + TIMEOUT_S
    while daemon.daemon.sessions > 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    _, again = daemon.connect()  # room again
    assert again.status["refused"] == ""


def test_out_of_descriptors_refuses_the_new_connection_and_keeps_serving(running: Any) -> None:
    """EMFILE while admitting a client (its pump's wake-up pipe): that client is hung up on, the
    daemon and its open sessions go on (it used to escape the loop and abort the daemon)."""
    import resource

    daemon = running()
    kept, _ = daemon.connect()
    # the hello comes before the session's pump is made: hoarding before that would refuse it too
    deadline = time.monotonic() + TIMEOUT_S
    while daemon.daemon.sessions < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert daemon.daemon.sessions == 1
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    hoard: list[int] = []
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, soft), hard))
        newcomer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # its descriptor, before the hoard
        newcomer.settimeout(TIMEOUT_S)
        with contextlib.suppress(OSError):
            while True:
                hoard.append(os.open("/dev/null", os.O_RDONLY))
        os.close(hoard.pop())  # room for accept() itself, none for the pump's pipe
        newcomer.connect(os.fspath(daemon.path))
        received = _rest(newcomer)
        newcomer.close()
    finally:
        for fd in hoard:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    hello = Hello.decode(received.split(b"\n", 1)[0])
    assert hello.status["refused"] == ""  # it said hello, then ran out of descriptors for the pump
    assert received.count(b"\n") == 1  # and closed: no session
    assert daemon.thread.is_alive() and daemon.daemon.refused == 1
    kept.sendall(request(1, "ping"))
    assert answers(kept, 1) == [{"id": 1, "jsonrpc": "2.0", "result": {}}]


def test_a_quiet_connection_gets_the_heartbeat_and_none_without_one(running: Any) -> None:
    """With ``heartbeat_s`` every session's loop writes HEARTBEAT between frames while it is quiet
    (a slow call running too); without it, the stream holds frames only."""
    beating = running(heartbeat_s=0.05)
    client, _ = beating.connect()
    client.sendall(call(1, "sleep", {"ms": 300}))  # not initialized: answered at once with an error
    time.sleep(0.3)
    client.shutdown(socket.SHUT_WR)
    received = _rest(client)
    assert received.count(HEARTBEAT) >= 2 and received.endswith(END_MARKER)
    quiet = running()
    client, _ = quiet.connect()
    time.sleep(0.2)
    client.shutdown(socket.SHUT_WR)
    assert _rest(client) == END_MARKER


# --- a client's own descriptors, passed as the proxy passes them -------------------------------------


class Passed:
    """A client whose stdin and stdout pipes are handed to the daemon (``SCM_RIGHTS``), as the
    proxy does; the socket then carries control records only."""

    def __init__(self, daemon: Running, *, descriptors: bool = True) -> None:
        self.sock, self.hello = daemon.connect()
        in_r, self.in_w = os.pipe()
        self.out_r, out_w = os.pipe()
        socket.send_fds(self.sock, [FDS_RECORD], [in_r, out_w] if descriptors else [])
        os.close(in_r)
        os.close(out_w)  # the daemon's copies are the only writers left: its close is the client's EOF

    def send(self, data: bytes) -> None:
        os.write(self.in_w, data)

    def answers(self, count: int) -> list[dict[str, Any]]:
        received = b""
        while received.count(b"\n") < count:
            chunk = os.read(self.out_r, 65536)
            assert chunk, f"the client's stdout closed after {received!r}"
            received += chunk
        return [json.loads(line) for line in received.splitlines()]

    def output_rest(self) -> bytes:
        received = b""
        while chunk := os.read(self.out_r, 65536):
            received += chunk
        return received

    def close(self) -> None:
        for fd in (self.in_w, self.out_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.sock.close()


def control_records(received: bytes) -> list[bytes]:
    return ControlReader().feed(received)


def test_the_clients_own_descriptors_are_served_and_the_socket_carries_control_only(running: Any) -> None:
    """INV-PROXY-4: the session reads the client's stdin and writes its stdout itself; the socket gets the
    heartbeats and, at the end, the exit code (0: EOF, everything answered)."""
    daemon = running(heartbeat_s=0.05)
    client = Passed(daemon)
    try:
        client.send(initialize(request_id=1) + notification("notifications/initialized") + call(2, "echo", {"text": "hi"}))
        first, second = client.answers(2)
        assert first["id"] == 1 and second["result"]["content"][0]["text"] == "hi"
        time.sleep(0.2)
        os.close(client.in_w)  # the client's EOF, seen by the daemon on the pipe itself
        assert client.output_rest() == b""
        records = control_records(_rest(client.sock))
        assert records[-1] == exit_record(0) and set(records[:-1]) == {HEARTBEAT} and len(records) >= 3
        assert daemon.daemon.passed == 1
    finally:
        client.close()


def test_a_stop_record_is_the_stdio_drivers_stop_request(running: Any) -> None:
    """SIGTERM to the proxy, through the control channel: the running call is cancelled and
    answered, and the session's code (0: nothing lost) comes back."""
    daemon = running(shutdown_grace_s=5.0)
    client = Passed(daemon)
    try:
        client.send(initialize(request_id=1) + notification("notifications/initialized") + call(2, "sleep", {"ms": 30_000}))
        client.answers(1)
        time.sleep(0.2)
        started = time.monotonic()
        client.sock.sendall(stop_record("SIGTERM"))
        (answer,) = client.answers(1)
        assert answer["id"] == 2 and answer["result"]["content"][0]["text"] == "cancelled"
        assert control_records(_rest(client.sock)) == [exit_record(0)]
        assert time.monotonic() - started < 5.0
        assert client.output_rest() == b""
    finally:
        client.close()


def test_the_proxy_gone_drops_its_session_at_once_and_closes_the_clients_descriptors(running: Any) -> None:
    """INV-PROXY-4: the control channel's end (the proxy killed): nobody waits for the session; the daemon lets
    go of the client's pipes at once (the client sees EOF) and serves the others."""
    daemon = running(shutdown_grace_s=5.0)
    client = Passed(daemon)
    other, _ = daemon.connect()
    try:
        client.send(initialize(request_id=1) + notification("notifications/initialized") + call(2, "sleep", {"ms": 30_000}))
        client.answers(1)
        started = time.monotonic()
        client.sock.close()
        assert client.output_rest() == b""  # EOF: the daemon closed its copy of the client's stdout
        assert time.monotonic() - started < 3.0
        other.sendall(request(1, "ping"))
        assert answers(other, 1) == [{"id": 1, "jsonrpc": "2.0", "result": {}}]
    finally:
        client.close()
        other.close()


def test_a_daemon_stopping_says_so_in_the_exit_record(running: Any) -> None:
    daemon = running(shutdown_grace_s=5.0)
    client = Passed(daemon)
    try:
        client.send(initialize(request_id=1) + notification("notifications/initialized") + call(2, "sleep", {"ms": 30_000}))
        client.answers(1)
        time.sleep(0.2)
        assert daemon.stop() == 0
        (answer,) = client.answers(1)
        assert answer["result"]["content"][0]["text"] == "cancelled"
        assert control_records(_rest(client.sock)) == [exit_record(0, stopping=True)]
    finally:
        client.close()


def test_a_descriptor_record_without_descriptors_is_answered_copy_and_served_as_bytes(running: Any) -> None:
    daemon = running()
    client = Passed(daemon, descriptors=False)
    try:
        assert client.sock.recv(len(COPY_RECORD)) == COPY_RECORD
        client.sock.sendall(request(1, "ping"))
        assert answers(client.sock, 1) == [{"id": 1, "jsonrpc": "2.0", "result": {}}]
        client.sock.shutdown(socket.SHUT_WR)
        assert _rest(client.sock) == END_MARKER
        assert daemon.daemon.passed == 0
    finally:
        client.close()


def test_a_stop_before_a_connection_said_anything_ends_it_as_a_drained_byte_stream(running: Any) -> None:
    """Its mode is not known yet (an HTTP keep-alive connection says nothing for hours): the stop
    ends the wait, and the session ends as a byte stream with nothing lost."""
    daemon = running()
    client, _ = daemon.connect()
    time.sleep(0.1)
    started = time.monotonic()
    assert daemon.stop() == 0
    assert _rest(client) == END_MARKER
    assert time.monotonic() - started < 3.0
