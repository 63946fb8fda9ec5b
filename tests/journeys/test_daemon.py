"""Journeys through the proxy and the daemon: ``mesh-mcp mcp`` as a client launches it.

Each test gets a socket folder of its own (``XDG_RUNTIME_DIR``), so it starts its own daemon;
the index cache is shared by the module (the fixture is indexed once). Every daemon a test
started is killed at its end (pids from the lock files). Deadlines are hang detectors only.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from mesh import __version__
from mesh.sockets import END_MARKER, Hello, lock_path, socket_path
from mesh.workspace import cache_dir

from .conftest import (
    NOISY_TOOLS,
    REPO_ROOT,
    TEST_TOOLS,
    LiveServer,
    call,
    handshake,
    parse_stdout,
    request,
    result_of,
    tool_text,
)

pytestmark = pytest.mark.journey

FIXTURE: Final = REPO_ROOT / "tests" / "fixtures" / "workspace"
PROXY_ARGV: Final = (sys.executable, "-m", "mesh", "mcp")
#: Hang detectors (never speed claims).
EXIT_TIMEOUT_S: Final = 30.0
SEARCH: Final = {"query": "GetOrder", "scope": "orders"}


@pytest.fixture(scope="module")
def cache() -> Iterator[Path]:
    """A cache holding the fixture's index, so every server answers from it at once."""
    from mesh.index import Index

    folder = Path(tempfile.mkdtemp(prefix="mesh-daemon-cache-"))
    index = Index(FIXTURE, cache_dir(FIXTURE, {"MESH_CACHE_DIR": str(folder)}), workers=1)
    try:
        index.refresh()
    finally:
        index.close()
    yield folder
    shutil.rmtree(folder, True)


class Setup:
    """One test's environment: its socket folder, the shared cache, the processes it started."""

    def __init__(self, cache: Path) -> None:
        self.runtime = Path(tempfile.mkdtemp(prefix="mesh-rt-", dir="/tmp"))
        self.env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
            "MESH_TOOL_PLUGINS": TEST_TOOLS,
            "MESH_CACHE_DIR": str(cache),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "MESH_DAEMON_IDLE_S": "60",
        }
        self.env.pop("MESH_SOCKET_PATH", None)
        self.env.pop("MESH_LOG", None)
        self.servers: list[LiveServer] = []

    def socket(self, workspace: Path = FIXTURE) -> Path:
        return socket_path(workspace, self.env)

    def log(self, workspace: Path = FIXTURE) -> Path:
        return cache_dir(workspace, self.env) / "meshd.log"

    def daemon_pid(self, workspace: Path = FIXTURE) -> int:
        return int(lock_path(self.socket(workspace)).read_text())

    def proxy(self, *args: str, workspace: Path = FIXTURE, **extra: str) -> LiveServer:
        process = subprocess.Popen(
            (*PROXY_ARGV, "--workspace", str(workspace), *args),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**self.env, **extra},
            cwd=REPO_ROOT,
        )
        server = LiveServer(process)
        self.servers.append(server)
        return server

    def run(self, stdin: bytes, *args: str, workspace: Path = FIXTURE, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            (*PROXY_ARGV, "--workspace", str(workspace), *args),
            input=stdin,
            check=False,
            capture_output=True,
            env={**self.env, **extra},
            cwd=REPO_ROOT,
            timeout=EXIT_TIMEOUT_S,
        )

    def close(self) -> None:
        for server in self.servers:
            server.close()
        for lock in self.runtime.glob("**/*.lock"):
            try:
                os.kill(int(lock.read_text()), signal.SIGKILL)
            except (OSError, ValueError):
                pass
        shutil.rmtree(self.runtime, True)


@pytest.fixture
def setup(cache: Path) -> Iterator[Setup]:
    made = Setup(cache)
    yield made
    made.close()


def session(*frames: bytes) -> bytes:
    return handshake() + b"".join(frames)


def wait_gone(pid: int, timeout_s: float = EXIT_TIMEOUT_S) -> bool:
    """Whether ``pid`` has ended (a zombie counts) within ``timeout_s`` (0: just look)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


# --- the proxy and the daemon ----------------------------------------------------------------


def test_the_proxy_adds_no_bytes_the_same_session_answers_as_standalone_does_INV_PROXY_1(setup: Setup) -> None:
    """INV-PROXY-1, INV-PROXY-4: the same script, standalone and through the daemon (the client's
    descriptors passed, and bytes copied as for a daemon that takes none): the same frames."""
    script = session(
        request(2, "tools/list"),
        call(3, "smart_search", SEARCH),
        call(4, "grpc_trace", {"target": "Orders/GetOrder"}),
        call(5, "echo", {"text": "é\u2028", "repeat": 2}),
        call(6, "no_such_tool"),
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"smart_search","argu\n',
    )
    standalone = setup.run(script, "--standalone")
    proxied = setup.run(script)
    copied = setup.run(script, MESH_PROXY_FDS="0")
    assert standalone.returncode == proxied.returncode == copied.returncode == 0, proxied.stderr.decode()
    assert sorted(copied.stdout.splitlines(keepends=True)) == sorted(standalone.stdout.splitlines(keepends=True))
    # Byte for byte, line by line: the proxy adds and drops nothing (tool calls run concurrently,
    # so their answers may come in another order in either run).
    assert sorted(proxied.stdout.splitlines(keepends=True)) == sorted(standalone.stdout.splitlines(keepends=True))
    answers = {answer["id"]: answer for answer in parse_stdout(proxied.stdout)}
    assert sorted(answers, key=str) == sorted([1, 2, 3, 4, 5, 6, None], key=str)
    assert "GetOrder" in tool_text(answers[3]) and not result_of(answers[4]).get("isError")
    assert tool_text(answers[5]) == "é\u2028é\u2028"
    assert b"standalone" not in proxied.stderr  # no fallback happened


def test_the_first_session_starts_the_daemon_and_the_next_ones_share_it(setup: Setup) -> None:
    first = setup.run(session(call(2, "smart_search", SEARCH)))
    assert first.returncode == 0, first.stderr.decode()
    pid = setup.daemon_pid()
    second = setup.run(session(call(2, "smart_search", SEARCH)))
    assert second.returncode == 0 and setup.daemon_pid() == pid
    assert second.stdout == first.stdout
    sock = setup.socket()
    assert stat.S_ISSOCK(sock.stat().st_mode) and stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700
    assert sock.name.startswith("meshd-") and len(sock.stem) == len("meshd-") + 16
    assert f"(pid {pid}) serving {FIXTURE}" in setup.log().read_text()


def test_sessions_starting_together_start_one_daemon(setup: Setup, tmp_path: Path) -> None:
    """INV-SOCK-1: one daemon per workspace is a lock, not a race: six first sessions at once, one daemon."""
    workspace = tmp_path / "ws"
    shutil.copytree(FIXTURE, workspace)
    servers = [setup.proxy(workspace=workspace) for _ in range(6)]
    for server in servers:
        server.send(session(request(2, "ping")))
    for server in servers:
        assert server.receive_id(2)["result"] == {}
    # Every proxy may have started a daemon; the ones that lost the lock see the winner answer
    # and exit (some may still be importing now): in the end one daemon serves.
    deadline = time.monotonic() + EXIT_TIMEOUT_S
    while len(daemons := _daemons_of(workspace)) > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert daemons == [setup.daemon_pid(workspace)]
    assert not any("standalone" in server.stderr for server in servers)
    for server in servers:
        server.close_stdin()
        assert server.wait(EXIT_TIMEOUT_S) == 0


def _daemons_of(workspace: Path) -> list[int]:
    """The live ``mesh daemon --workspace WORKSPACE`` processes."""
    return [
        pid
        for pid in map(int, filter(str.isdigit, os.listdir("/proc")))
        if _cmdline(pid)[-3:] == ["daemon", "--workspace", str(workspace)] and not wait_gone(pid, 0)
    ]


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return []


def test_input_closed_first_still_gets_every_answer_INV_PROXY_2(setup: Setup) -> None:
    """INV-PROXY-2: EOF from the client first: the proxy waits for the daemon's answers."""
    result = setup.run(session(call(2, "sleep", {"ms": 800}), call(3, "smart_search", SEARCH)))
    assert result.returncode == 0, result.stderr.decode()
    answers = {answer["id"]: answer for answer in parse_stdout(result.stdout)}
    assert sorted(answers) == [1, 2, 3]
    assert tool_text(answers[2]) == "slept 800 ms"


def test_a_daemon_killed_mid_session_ends_the_proxy_with_status_1_and_the_next_session_reuses_the_index(
    setup: Setup,
) -> None:
    """INV-PROXY-2: the client sees EOF and the proxy says why; the next session starts a new daemon."""
    warm = setup.run(session(call(2, "smart_search", SEARCH)))
    assert warm.returncode == 0
    server = setup.proxy()
    server.send(session(call(2, "sleep", {"ms": 30_000})))
    server.receive_id(1)
    pid = setup.daemon_pid()
    os.kill(pid, signal.SIGKILL)
    assert server.wait(EXIT_TIMEOUT_S) == 1  # the client sees EOF, not a hang
    stderr = server.stderr
    assert f"meshd (pid {pid}) died during this session" in stderr
    assert "meshd.log" in stderr and "Daemon log: " in stderr
    after = setup.run(session(call(2, "smart_search", SEARCH)))
    assert after.returncode == 0
    assert setup.daemon_pid() != pid
    assert after.stdout == warm.stdout  # answered from the index on disk, not "still indexing"


def test_a_daemon_killed_while_the_proxy_waits_for_its_last_answers_is_status_1(setup: Setup) -> None:
    """INV-PROXY-2: the client's input has ended, but the answers it waits for never come."""
    server = setup.proxy()
    server.send(session(call(2, "sleep", {"ms": 30_000})))
    server.receive_id(1)
    server.close_stdin()
    time.sleep(0.3)  # the proxy has half-closed; the daemon is draining
    pid = setup.daemon_pid()
    os.kill(pid, signal.SIGKILL)
    assert server.wait(EXIT_TIMEOUT_S) == 1
    assert f"meshd (pid {pid}) died during this session" in server.stderr
    assert "answers not yet received are lost" in server.stderr


def test_sigterm_drains_the_daemon_and_removes_its_socket(setup: Setup) -> None:
    server = setup.proxy()
    server.send(session(call(2, "sleep", {"ms": 30_000})))
    server.receive_id(1)
    time.sleep(0.3)  # let the call start
    pid = setup.daemon_pid()
    os.kill(pid, signal.SIGTERM)
    assert tool_text(server.receive_id(2)) == "cancelled"  # the running call is told to stop, and answered
    assert server.wait(EXIT_TIMEOUT_S) == 1
    assert f"meshd (pid {pid}) ended this session, having answered everything it was sent" in server.stderr
    assert wait_gone(pid)
    assert not setup.socket().exists()


def test_an_idle_daemon_exits_by_itself(setup: Setup) -> None:
    result = setup.run(session(request(2, "ping")), MESH_DAEMON_IDLE_S="0.5")
    assert result.returncode == 0
    pid = setup.daemon_pid()
    assert wait_gone(pid)
    assert not setup.socket().exists()


def test_a_stale_socket_of_a_dead_daemon_is_replaced(setup: Setup) -> None:
    sock = setup.socket()
    sock.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(os.fspath(sock))
    stale.close()  # the file stays; nobody listens, nobody holds the lock
    before = sock.stat().st_ino
    result = setup.run(session(request(2, "ping")))
    assert result.returncode == 0 and b"standalone" not in result.stderr
    assert sock.stat().st_ino != before


def test_something_else_at_the_socket_path_falls_back_to_standalone_with_one_warning(setup: Setup) -> None:
    sock = setup.socket()
    sock.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    sock.write_text("not a socket")
    result = setup.run(session(call(2, "smart_search", SEARCH)))
    assert result.returncode == 0
    assert [answer["id"] for answer in parse_stdout(result.stdout)] == [1, 2]
    warnings = [line for line in result.stderr.decode().splitlines() if "standalone" in line]
    assert len(warnings) == 1 and "meshd exited with status 1" in warnings[0] and "meshd.log" in warnings[0]
    assert sock.read_text() == "not a socket"  # never deleted


def test_a_socket_folder_others_can_write_falls_back_to_standalone(setup: Setup) -> None:
    folder = setup.socket().parent
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o777)
    result = setup.run(session(request(2, "ping")))
    assert result.returncode == 0 and len(parse_stdout(result.stdout)) == 2
    warnings = [line for line in result.stderr.decode().splitlines() if "standalone" in line]
    assert len(warnings) == 1 and "chmod 700" in warnings[0]


def test_standalone_leaves_the_socket_folder_alone(setup: Setup) -> None:
    result = setup.run(session(request(2, "ping")), "--standalone")
    assert result.returncode == 0
    assert not setup.socket().parent.exists()


def test_a_bad_plugin_is_still_a_usage_error_through_the_proxy(setup: Setup) -> None:
    result = setup.run(b"", MESH_TOOL_PLUGINS="no.such.plugin")
    assert result.returncode == 2 and b"MESH_TOOL_PLUGINS" in result.stderr and result.stdout == b""


#: Stop scenarios driven the same way into ``--standalone`` and the proxy: the frames sent, the
#: answer ids to wait for before the signals, and how many SIGTERMs.
STOPS: Final = {
    "a call in flight": ((call(2, "sleep", {"ms": 30_000}),), (1,), 1),
    "nothing in flight": ((request(2, "ping"),), (1, 2), 1),
    "a call ignoring its cancellation": ((call(2, "stubborn", {"ms": 30_000}), request(3, "ping")), (1, 3), 1),
    "a second signal": ((call(2, "stubborn", {"ms": 30_000}), request(3, "ping")), (1, 3), 2),
}


def _stopped(
    server: LiveServer, frames: tuple[bytes, ...], wait_for: tuple[int, ...], signals: int
) -> tuple[int, dict[int, str], float]:
    """Drive one stop scenario: its exit code, every answer's text (or "ok"), and the seconds
    from the first signal to the exit."""
    server.send(session(*frames))
    for request_id in wait_for:
        server.receive_id(request_id)
    time.sleep(0.3)  # the call has started
    started = time.monotonic()
    for number in range(signals):
        if number:
            time.sleep(0.3)
        server.process.send_signal(signal.SIGTERM)
    code = server.wait(EXIT_TIMEOUT_S)
    elapsed = time.monotonic() - started
    texts = {}
    for answer in server.transcript().singles:
        texts[answer["id"]] = tool_text(answer) if "content" in answer.get("result", {}) else "ok"
    return code, texts, elapsed


@pytest.mark.parametrize("scenario", list(STOPS))
def test_sigterm_to_the_proxy_does_exactly_what_it_does_to_a_standalone_server_INV_PROXY_2(
    setup: Setup, scenario: str
) -> None:
    """INV-PROXY-2, INV-DRAIN-5: the proxy passes each signal to its session in the daemon (the
    stdio driver's stop request: input ends, running calls are cancelled, 5 s of grace, a second
    signal at once), and exits with the code the standalone server exits with, the same answers
    written (it used to end its input only: a running call ran to its end)."""
    frames, wait_for, signals = STOPS[scenario]
    plugins = {"MESH_TOOL_PLUGINS": f"{TEST_TOOLS},{NOISY_TOOLS}"}
    alone = _stopped(setup.proxy("--standalone", **plugins), frames, wait_for, signals)
    proxied_server = setup.proxy(**plugins)
    proxied = _stopped(proxied_server, frames, wait_for, signals)
    assert proxied[:2] == alone[:2], proxied_server.stderr
    assert "standalone" not in proxied_server.stderr
    assert abs(proxied[2] - alone[2]) < 2.0  # 5 s of grace for both, or at once for both
    if alone[0] == 1:
        assert "lost" in proxied_server.stderr and "Daemon log" in proxied_server.stderr


def test_the_proxy_passes_the_clients_descriptors_and_copies_no_byte_INV_PROXY_4(setup: Setup) -> None:
    """INV-PROXY-4: the daemon reads and writes the client's own pipes: with the proxy stopped (SIGSTOP) the
    session goes on, and the proxy's own reads and writes (``/proc/<pid>/io``) stay far below the
    bytes the client exchanged."""
    server = setup.proxy()
    server.send(session())
    server.receive_id(1)
    before = _io(server.pid)
    server.process.send_signal(signal.SIGSTOP)
    try:
        big = "x" * 20_000  # within the 48 KB answer bound
        for number in range(2, 12):
            server.send(call(number, "echo", {"text": big}))
            assert tool_text(server.receive_id(number)) == big  # answered while the proxy is stopped
    finally:
        server.process.send_signal(signal.SIGCONT)
    after = _io(server.pid)
    assert after["rchar"] - before["rchar"] < 10_000 and after["wchar"] - before["wchar"] < 10_000  # vs 400 KB
    server.close_stdin()
    assert server.wait(EXIT_TIMEOUT_S) == 0


def _io(pid: int) -> dict[str, int]:
    rows = Path(f"/proc/{pid}/io").read_text().splitlines()
    return {name: int(value) for name, _, value in (row.partition(": ") for row in rows)}


def test_a_proxy_killed_mid_session_frees_its_client_and_the_daemon_serves_on_INV_PROXY_4(setup: Setup) -> None:
    """INV-PROXY-4: kill -9 of the proxy (its client's server, as far as the client knows) ends the session:
    the daemon drops it at once, so the client's stdout closes as it would standalone."""
    server = setup.proxy()
    server.send(session(call(2, "sleep", {"ms": 30_000})))
    server.receive_id(1)
    pid = setup.daemon_pid()
    started = time.monotonic()
    server.process.kill()
    server.wait(EXIT_TIMEOUT_S)  # returns once the client's stdout is closed (drained threads)
    assert server.transcript().ids() == [1]
    assert time.monotonic() - started < 5.0
    after = setup.run(session(request(2, "ping")))
    assert after.returncode == 0 and setup.daemon_pid() == pid


# --- a daemon of another version, another uid ------------------------------------------------


def _fake_daemon(path: Path, hello: Hello, answer: bytes) -> threading.Thread:
    """A socket that says ``hello``, then answers every line it reads with ``answer``."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(os.fspath(path))
    listener.listen(1)

    def serve() -> None:
        connection, _ = listener.accept()
        with connection, listener:
            connection.sendall(hello.encode())
            buffered = b""
            while chunk := connection.recv(65536):
                buffered += chunk
                while b"\n" in buffered:
                    _, buffered = buffered.split(b"\n", 1)
                    connection.sendall(answer)
            with contextlib.suppress(OSError):  # a proxy that refused this daemon has hung up
                connection.sendall(END_MARKER[:4])  # in two pieces: the proxy holds the first back
                time.sleep(0.05)
                connection.sendall(END_MARKER[4:])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def test_a_daemon_of_another_version_gets_a_warning_naming_both(setup: Setup) -> None:
    """INV-PROXY-4: its hello takes no descriptors (a daemon from before them): bytes are copied."""
    sock = setup.runtime / "custom.sock"
    hello = Hello("0.0.1-old", os.getpid(), str(FIXTURE), "/nowhere/meshd.log", (TEST_TOOLS,))
    answer = b'{"id":1,"jsonrpc":"2.0","result":{}}\n'
    thread = _fake_daemon(sock, hello, answer)
    result = setup.run(request(1, "ping"), MESH_SOCKET_PATH=str(sock))
    thread.join(EXIT_TIMEOUT_S)
    assert result.stdout == answer  # the daemon's bytes, exactly
    assert result.returncode == 0
    stderr = result.stderr.decode()
    assert "version 0.0.1-old" in stderr and f"version {__version__}" in stderr


@pytest.mark.parametrize(
    ("status", "workspace", "expected"),
    [
        ({"refused": "300 sessions are open"}, str(FIXTURE), "refused this session: 300 sessions are open"),
        ({}, "/another/workspace", "serves another workspace (/another/workspace)"),
    ],
    ids=["full", "another-workspace"],
)
def test_a_daemon_that_will_not_serve_this_session_means_standalone(
    setup: Setup, status: dict[str, str], workspace: str, expected: str
) -> None:
    sock = setup.runtime / "shared.sock"
    hello = Hello(__version__, os.getpid(), workspace, "/nowhere/meshd.log", (TEST_TOOLS,), status)
    thread = _fake_daemon(sock, hello, b"never sent\n")
    result = setup.run(session(request(2, "ping")), MESH_SOCKET_PATH=str(sock))
    thread.join(EXIT_TIMEOUT_S)
    assert result.returncode == 0 and [answer["id"] for answer in parse_stdout(result.stdout)] == [1, 2]
    warnings = [line for line in result.stderr.decode().splitlines() if "standalone" in line]
    assert len(warnings) == 1 and expected in warnings[0]


@pytest.mark.skipif(os.geteuid() != 0 or not hasattr(socket, "SO_PEERCRED"), reason="needs root and SO_PEERCRED")
def test_a_peer_of_another_uid_is_refused(setup: Setup) -> None:
    """INV-SOCK-2: past the file permissions (opened up here by root), the daemon still refuses another uid."""
    assert setup.run(session(request(2, "ping"))).returncode == 0
    sock = setup.socket()
    for folder in (setup.runtime, sock.parent):
        folder.chmod(0o755)
    sock.chmod(0o666)
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        try:
            os.setgid(65534)
            os.setuid(65534)
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            client.settimeout(10)
            client.connect(os.fspath(sock))
            os.write(write_end, b"received:" + client.recv(65536))
        except BaseException as exc:  # noqa: BLE001 - anything the child meets is the test's report
            os.write(write_end, f"error: {exc!r}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(child, 0)
    with os.fdopen(read_end, "rb") as pipe:
        report = pipe.read()
    assert report == b"received:"  # connected, then hung up on without a hello
    assert "refused a connection from uid 65534" in setup.log().read_text()


# --- freshness -------------------------------------------------------------------------------


def test_a_saved_edit_reaches_every_session(setup: Setup, tmp_path: Path) -> None:
    """INV-FRESH-1: the daemon's watcher brings an edit to every connected session."""
    workspace = tmp_path / "ws"
    shutil.copytree(FIXTURE, workspace)
    sessions = [setup.proxy(workspace=workspace) for _ in range(2)]
    for server in sessions:
        server.send(session())
        server.receive_id(1)
    deadline = time.monotonic() + EXIT_TIMEOUT_S
    while "Still indexing" in _search(sessions[0], 2, SEARCH):  # a new workspace: its first build
        assert time.monotonic() < deadline, "the first build never finished"
        time.sleep(0.05)
    marker = "freshly_saved_marker_7f3a"
    (workspace / "orders" / "fresh.py").write_text(f"def {marker}():\n    return 1\n")
    saved = time.monotonic()
    seen: dict[int, float] = {}
    request_id = 10
    while len(seen) < len(sessions) and time.monotonic() - saved < EXIT_TIMEOUT_S:
        for number, server in enumerate(sessions):
            if number in seen:
                continue
            request_id += 1
            if "orders/fresh.py" in _search(server, request_id, {"query": marker}):
                seen[number] = time.monotonic() - saved
        time.sleep(0.05)
    assert sorted(seen) == [0, 1], "the edit never reached every session"
    print(f"edit visible after {max(seen.values()):.2f} s")
    for server in sessions:
        server.close_stdin()
        assert server.wait(EXIT_TIMEOUT_S) == 0


def _search(server: LiveServer, request_id: int, arguments: dict[str, Any]) -> str:
    server.send(call(request_id, "smart_search", arguments))
    return tool_text(server.receive_id(request_id))


def test_doctor_reads_a_running_daemon(setup: Setup) -> None:
    """What `mesh-mcp doctor` says with a real daemon up: reachable, this version, index ready, watcher running."""
    server = setup.proxy()
    server.send(session(request(2, "ping")))
    server.receive_id(2)

    def doctor() -> dict[str, dict[str, str]]:
        result = subprocess.run(
            (sys.executable, "-m", "mesh", "doctor", str(FIXTURE), "--json"),
            capture_output=True,
            check=False,
            env=setup.env,
            cwd=REPO_ROOT,
            timeout=EXIT_TIMEOUT_S,
        )
        assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()
        return {check["name"]: check for check in json.loads(result.stdout)["checks"]}

    checks = doctor()
    assert checks["daemon"]["status"] == "ok" and __version__ in checks["daemon"]["detail"]
    assert str(setup.daemon_pid()) in checks["daemon"]["detail"]
    assert checks["index"]["status"] == "ok" and "ready" in checks["index"]["detail"]
    deadline = time.monotonic() + EXIT_TIMEOUT_S
    while checks["watcher"]["status"] != "ok" and time.monotonic() < deadline:  # it starts with the refresh
        time.sleep(0.2)
        checks = doctor()
    assert checks["watcher"]["status"] == "ok", checks["watcher"]
    server.close_stdin()
    assert server.wait(EXIT_TIMEOUT_S) == 0


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_official_sdk_client_through_the_proxy(setup: Setup, tmp_path: Path, mode: str) -> None:
    """The SDK client (a client nobody here wrote) in both eras, through the proxy and the daemon."""
    import asyncio

    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=PROXY_ARGV[0], args=[*PROXY_ARGV[1:], "--workspace", str(FIXTURE)], env=setup.env, cwd=str(REPO_ROOT)
    )
    seen: dict[str, Any] = {}

    async def body() -> None:
        with (tmp_path / "proxy.err").open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode=mode) as client:
                seen["tools"] = [tool.name for tool in (await client.list_tools()).tools]
                seen["search"] = await client.call_tool("smart_search", SEARCH)
                seen["echo"] = await client.call_tool("echo", {"text": "via the daemon"})

    asyncio.run(asyncio.wait_for(body(), EXIT_TIMEOUT_S))
    assert seen["tools"][:2] == ["smart_search", "dependents"] and "echo" in seen["tools"]
    assert "GetOrder" in seen["search"].content[0].text and not seen["search"].is_error
    assert seen["echo"].content[0].text == "via the daemon"
    assert setup.daemon_pid() > 0
    assert "standalone" not in (tmp_path / "proxy.err").read_text()
