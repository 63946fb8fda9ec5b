"""Attacks on the daemon, the proxy and their socket (issue 13 items 6, 12, 13, 14 and 16).

- 6: an idle exit of weeks or years (``MESH_DAEMON_IDLE_S``, ``[daemon] idle_exit_s``) overflowed
  ``poll``'s timeout at start: every session then ran standalone.
- 12: the lock file was opened following symlinks: a planted symlink's target was truncated.
- 13: a stopped daemon (SIGSTOP) hung its proxies; SIGTERM to a proxy with answers pending exited 0.
- 14: a burst of connections found the listener's queue full (``EAGAIN``) and fell back to
  standalone serving: two indexes of one workspace.
- 16: a client that writes without reading grew the server without bound.

In-process tests run in the quick tier; those that drive the real binary are journeys.
"""

from __future__ import annotations

import contextlib
import json
import logging
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
from mesh.commands import daemon as daemon_command
from mesh.drivers import proxy
from mesh.drivers.proxy import DaemonUnavailable, Link, open_daemon, run_proxy
from mesh.drivers.uds import Daemon
from mesh.protocol import SessionConfig
from mesh.sockets import END_MARKER, HEARTBEAT, Hello, lock_path, read_hello, socket_path
from mesh.tools import Registry, load_plugins
from tests.support.memory import initialize, notification, request

ROOT: Final = Path(__file__).resolve().parents[2]
TEST_TOOLS: Final = "tests.support.tools"
#: Hang detectors, never speed claims.
TIMEOUT_S: Final = 30.0


def call(request_id: int, name: str, arguments: dict[str, Any]) -> bytes:
    return request(request_id, "tools/call", {"name": name, "arguments": arguments})


def handshake() -> bytes:
    return initialize(request_id=1) + notification("notifications/initialized")


# --- an in-process daemon ---------------------------------------------------------------------


class InProcess:
    """A :class:`Daemon` with the test tools on a socket of a short temporary folder, on a thread."""

    def __init__(self, **options: Any) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="mesh-adv-", dir="/tmp"))
        self.path = self.folder / "d.sock"
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(os.fspath(self.path))
        listener.listen(16)
        registry = Registry()
        load_plugins(registry, [TEST_TOOLS])
        heartbeat_s = options.get("heartbeat_s", 0.0)
        self.daemon = Daemon(
            listener=listener,
            registry=registry,
            workspace=self.folder,
            config=SessionConfig(server_name="mesh-mcp", server_version="0"),
            hello=lambda sessions, refused: Hello(
                "0", os.getpid(), str(self.folder), "/log", (), {"refused": refused}, heartbeat_s
            ).encode(),
            **options,
        )
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.daemon.run()
        except BaseException as exc:  # the test reads it
            self.error = exc

    def connect(self) -> tuple[socket.socket, Hello]:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(5)
        client.connect(os.fspath(self.path))
        hello, _ = read_hello(client, 5)
        return client, hello

    def close(self) -> None:
        if self.thread.is_alive():
            self.daemon.request_stop("test")
            self.thread.join(TIMEOUT_S)
        self.daemon.close()
        shutil.rmtree(self.folder, True)


@pytest.fixture
def in_process() -> Iterator[Any]:
    made: list[InProcess] = []

    def start(**options: Any) -> InProcess:
        made.append(InProcess(**options))
        return made[-1]

    yield start
    for daemon in made:
        daemon.close()


def lines_until(client: socket.socket, count: int) -> list[bytes]:
    received = b""
    while received.count(b"\n") < count:
        chunk = client.recv(65536)
        assert chunk, f"closed after {received!r}"
        received += chunk
    return received.splitlines(keepends=True)


# --- item 6: a long idle exit -------------------------------------------------------------------


@pytest.mark.parametrize("idle_exit_s", [30 * 86_400.0, 3e9, float("inf")])
def test_an_idle_exit_of_weeks_years_or_never_is_kept_and_the_daemon_serves_INV_DAEMON_4(
    in_process: Any, idle_exit_s: float
) -> None:
    """INV-DAEMON-4: any idle exit is waited for in slices; past ~24.8 days poll()'s timeout
    overflowed (OverflowError) and the daemon died before its first client."""
    daemon = in_process(idle_exit_s=idle_exit_s)
    client, _ = daemon.connect()
    client.sendall(request(7, "ping"))
    assert json.loads(lines_until(client, 1)[0]) == {"id": 7, "jsonrpc": "2.0", "result": {}}
    client.close()
    time.sleep(0.1)
    assert daemon.error is None and daemon.thread.is_alive()


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3000000000", 3e9), ("1e300", 1e300), ("inf", 0.0), ("nan", None), ("-5", None), ("soon", None)],
)
def test_every_idle_exit_setting_is_kept_or_refused_with_a_warning_INV_DAEMON_4(
    tmp_path: Path, text: str, expected: float | None, caplog: pytest.LogCaptureFixture
) -> None:
    """INV-DAEMON-4: long values are kept, infinity means never (0), nonsense is the default."""
    with caplog.at_level(logging.WARNING, logger="mesh.daemon"):
        value = daemon_command._idle_exit_s(tmp_path, None, {"MESH_DAEMON_IDLE_S": text})
    if expected is None:
        assert value == daemon_command.DEFAULT_IDLE_EXIT_S and "MESH_DAEMON_IDLE_S" in caplog.text
    else:
        assert value == expected
    assert daemon_command._idle_exit_s(tmp_path, float("inf"), {}) == 0.0
    assert daemon_command._idle_exit_s(tmp_path, float("nan"), {}) == daemon_command.DEFAULT_IDLE_EXIT_S


def test_an_idle_exit_of_years_in_mesh_toml_is_kept(tmp_path: Path) -> None:
    (tmp_path / "mesh.toml").write_text("[daemon]\nidle_exit_s = 3e9\n")
    assert daemon_command._idle_exit_s(tmp_path, None, {}) == 3e9


# --- item 12: the lock file -----------------------------------------------------------------------


@pytest.fixture
def private_folder() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="mesh-adv-", dir="/tmp"))
    folder.chmod(0o700)
    yield folder
    shutil.rmtree(folder, True)


def test_a_symlink_planted_at_the_lock_is_refused_and_its_target_untouched_INV_SOCK_3(
    private_folder: Path, tmp_path: Path
) -> None:
    """INV-SOCK-3: the lock was opened following symlinks, and its target truncated to a pid."""
    victim = tmp_path / "precious.txt"
    victim.write_text("years of work\n")
    lock = private_folder / "meshd-0.lock"
    lock.symlink_to(victim)
    with pytest.raises(OSError, match="symbolic link; remove it"):
        daemon_command._lock(lock, private_folder / "meshd-0.sock")
    assert victim.read_text() == "years of work\n"
    assert lock.is_symlink()  # refused, never removed or replaced


def test_a_dangling_symlink_at_the_lock_creates_nothing_INV_SOCK_3(private_folder: Path, tmp_path: Path) -> None:
    """INV-SOCK-3: O_CREAT through a dangling symlink would create its target."""
    lock = private_folder / "meshd-0.lock"
    lock.symlink_to(tmp_path / "created-elsewhere")
    with pytest.raises(OSError, match="symbolic link"):
        daemon_command._lock(lock, private_folder / "meshd-0.sock")
    assert not (tmp_path / "created-elsewhere").exists()


def test_anything_but_a_regular_file_of_ours_with_one_link_is_refused_INV_SOCK_3(
    private_folder: Path, tmp_path: Path
) -> None:
    """INV-SOCK-3: a FIFO, a folder, a hard link to another file, another uid's file."""
    sock = private_folder / "meshd-0.sock"
    fifo = private_folder / "fifo.lock"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        daemon_command._lock(fifo, sock)
    folder = private_folder / "folder.lock"
    folder.mkdir()
    with pytest.raises(OSError, match="cannot open the daemon lock"):
        daemon_command._lock(folder, sock)
    other = tmp_path / "other.txt"
    other.write_text("keep me\n")
    linked = private_folder / "linked.lock"
    os.link(other, linked)
    with pytest.raises(OSError, match="2 links"):
        daemon_command._lock(linked, sock)
    assert other.read_text() == "keep me\n"
    if os.getuid() == 0:  # only root can give a file away
        foreign = private_folder / "foreign.lock"
        foreign.write_text("123\n")
        os.chown(foreign, 12345, 12345)
        with pytest.raises(OSError, match="belongs to uid 12345"):
            daemon_command._lock(foreign, sock)
        assert foreign.read_text() == "123\n"


def test_a_lock_file_of_ours_is_taken_and_holds_our_pid(private_folder: Path) -> None:
    lock = private_folder / "meshd-0.lock"
    fd = daemon_command._lock(lock, private_folder / "meshd-0.sock")
    try:
        assert lock.read_text() == f"{os.getpid()}\n"
        assert stat.S_IMODE(lock.stat().st_mode) == 0o600
        assert os.get_inheritable(fd) is False  # O_CLOEXEC: no child inherits the lock
    finally:
        os.close(fd)
    fd = daemon_command._lock(lock, private_folder / "meshd-0.sock")  # a stale one is reused
    os.close(fd)


# --- item 13: a daemon that stops answering ---------------------------------------------------------


class FakeDaemon:
    """One connection of a scripted daemon: says hello, then does what the test says."""

    def __init__(self, heartbeat_s: float) -> None:
        self.server, client = socket.socketpair()
        hello = Hello(__version__, os.getpid(), "/ws", "/var/log/meshd.log", (), {}, heartbeat_s)
        self.server.sendall(hello.encode())
        parsed, leftover = read_hello(client, 5)
        self.link = Link(client, parsed, leftover, Path("/ws.sock"))

    def read_requests(self, count: int) -> bytes:
        received = b""
        while received.count(b"\n") < count:
            chunk = self.server.recv(65536)
            if not chunk:
                break
            received += chunk
        return received


class ProxyRun:
    """``run_proxy`` on this (main) thread over pipes: the client side is the test's."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.in_r, self.in_w = os.pipe()
        self.out_r, self.out_w = os.pipe()

    def run(self) -> int:
        try:
            return run_proxy(self.link, out_fd=self.out_w, in_fd=self.in_r)
        finally:
            os.close(self.out_w)
            os.close(self.in_r)

    def output(self) -> bytes:
        received = b""
        while chunk := os.read(self.out_r, 65536):
            received += chunk
        os.close(self.out_r)
        return received


def test_a_daemon_that_falls_silent_ends_the_proxy_with_1_and_the_cause_INV_PROXY_3(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """INV-PROXY-3: a stopped daemon (no byte, not even a heartbeat) used to hang its proxy for ever."""
    fake = FakeDaemon(heartbeat_s=0.05)
    run = ProxyRun(fake.link)
    os.write(run.in_w, handshake() + call(2, "sleep", {"ms": 60_000}))
    os.close(run.in_w)  # the client is done: the proxy waits for the answers that never come
    fake.server.sendall(HEARTBEAT)  # alive once, then silent
    started = time.monotonic()
    with caplog.at_level(logging.ERROR, logger="mesh.proxy"):
        code = run.run()
    assert code == 1
    assert 0.4 < time.monotonic() - started < 5.0  # ten heartbeat periods of silence
    assert "sent nothing, not even its heartbeat" in caplog.text and "/var/log/meshd.log" in caplog.text
    assert f"meshd (pid {os.getpid()}) is hung" in caplog.text  # this process runs: not stopped
    assert run.output() == b""
    fake.server.close()


def test_a_slow_tool_with_heartbeats_is_waited_for_and_no_heartbeat_reaches_the_client_INV_PROXY_3() -> None:
    """INV-PROXY-3: the liveness signal cannot be confused with a slow tool: a daemon that keeps
    beating is waited for however long its answer takes (here three silence limits)."""
    fake = FakeDaemon(heartbeat_s=0.1)
    run = ProxyRun(fake.link)
    answer = b'{"id":2,"jsonrpc":"2.0","result":{}}\n'

    def slow_daemon() -> None:
        fake.read_requests(1)
        for _ in range(30):  # 3 s of a slow tool, a heartbeat every 0.1 s (silence limit: 1 s)
            fake.server.sendall(HEARTBEAT)
            time.sleep(0.1)
        fake.server.sendall(answer)
        fake.read_requests(1)  # until the proxy shuts its write half (client EOF): b""
        fake.server.sendall(HEARTBEAT + END_MARKER)
        fake.server.close()

    thread = threading.Thread(target=slow_daemon, daemon=True)
    thread.start()
    os.write(run.in_w, request(2, "ping"))
    os.close(run.in_w)
    assert run.run() == 0
    assert run.output() == answer
    thread.join(5)


def sigterm_self() -> None:
    os.kill(os.getpid(), signal.SIGTERM)


def test_sigterm_to_a_proxy_with_answers_pending_exits_1_INV_PROXY_2(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """INV-PROXY-2: it used to exit 0 at the end of its grace period, an answer lost."""
    monkeypatch.setattr(proxy, "STOP_GRACE_S", 0.5)
    fake = FakeDaemon(heartbeat_s=0.0)  # no silence limit: only the grace period ends this

    def daemon() -> None:  # reads the requests; the call's answer never comes
        fake.read_requests(3)
        sigterm_self()  # the proxy runs its loop by now: its handler takes the signal

    threading.Thread(target=daemon, daemon=True).start()
    run = ProxyRun(fake.link)
    os.write(run.in_w, handshake() + call(2, "sleep", {"ms": 60_000}))
    started = time.monotonic()
    with caplog.at_level(logging.ERROR, logger="mesh.proxy"):
        code = run.run()
    assert code == 1 and time.monotonic() - started >= 0.5
    assert "did not finish answering within" in caplog.text and "lost" in caplog.text
    os.close(run.in_w)
    fake.server.close()


def test_a_second_sigterm_with_answers_pending_exits_1_at_once_INV_PROXY_2() -> None:
    """INV-PROXY-2: the second signal used to exit 0 too."""
    fake = FakeDaemon(heartbeat_s=0.0)  # an old daemon: no heartbeat, so no silence limit either

    def daemon() -> None:
        fake.read_requests(3)
        sigterm_self()
        time.sleep(0.2)
        sigterm_self()

    threading.Thread(target=daemon, daemon=True).start()
    run = ProxyRun(fake.link)
    os.write(run.in_w, handshake() + call(2, "sleep", {"ms": 60_000}))
    started = time.monotonic()
    assert run.run() == 1
    assert time.monotonic() - started < 3.0
    os.close(run.in_w)
    fake.server.close()


def test_sigterm_with_nothing_pending_still_exits_0_once_the_daemon_drained() -> None:
    fake = FakeDaemon(heartbeat_s=0.0)

    def daemon_drains() -> None:
        fake.read_requests(1)
        fake.server.sendall(b'{"id":2,"jsonrpc":"2.0","result":{}}\n')
        time.sleep(0.1)
        sigterm_self()
        while fake.server.recv(65536):  # until the proxy's EOF
            pass
        fake.server.sendall(END_MARKER)
        fake.server.close()

    threading.Thread(target=daemon_drains, daemon=True).start()
    run = ProxyRun(fake.link)
    os.write(run.in_w, request(2, "ping"))
    assert run.run() == 0
    assert run.output() == b'{"id":2,"jsonrpc":"2.0","result":{}}\n'
    os.close(run.in_w)


# --- item 14: a burst of connections ------------------------------------------------------------------


def test_the_listener_queues_a_burst_of_a_thousand_connections_INV_SOCK_4(private_folder: Path) -> None:
    """INV-SOCK-4: the backlog was 128: the 130th pending connection got EAGAIN."""
    listener, _ = daemon_command._bind(private_folder / "meshd-0.sock")
    clients = []
    try:
        for _ in range(min(1000, socket.SOMAXCONN)):
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            client.setblocking(False)
            clients.append(client)
            client.connect(os.fspath(private_folder / "meshd-0.sock"))  # BlockingIOError when full
    finally:
        for client in clients:
            client.close()
        listener.close()


def full_listener(path: Path) -> tuple[socket.socket, list[socket.socket]]:
    """A listener at ``path`` whose queue of connections is full (and the connections filling it)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(os.fspath(path))
    listener.listen(0)
    fillers: list[socket.socket] = []
    with contextlib.suppress(BlockingIOError):
        while len(fillers) < 64:
            filler = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            fillers.append(filler)
            filler.setblocking(False)
            filler.connect(os.fspath(path))
    return listener, fillers


def test_a_proxy_that_finds_the_queue_full_waits_for_room_instead_of_serving_standalone_INV_SOCK_4(
    private_folder: Path, tmp_path: Path
) -> None:
    """INV-SOCK-4: EAGAIN on connect was "cannot connect", and the session served standalone."""
    path = private_folder / "meshd-0.sock"
    listener, fillers = full_listener(path)
    hello = Hello(__version__, os.getpid(), str(tmp_path), "/log", ()).encode()

    def accept_later() -> None:
        time.sleep(0.3)
        listener.settimeout(5)
        with contextlib.suppress(OSError):
            while True:
                connection, _ = listener.accept()
                connection.sendall(hello)
                accepted.append(connection)

    accepted: list[socket.socket] = []
    threading.Thread(target=accept_later, daemon=True).start()
    started = time.monotonic()
    link = open_daemon(tmp_path, environ={"MESH_SOCKET_PATH": str(path)}, start_timeout_s=5)
    assert time.monotonic() - started >= 0.25  # it waited for room
    assert link.hello.workspace == str(tmp_path)
    link.connection.close()
    listener.close()
    for connection in accepted + fillers:
        connection.close()


def test_a_queue_that_stays_full_is_unavailable_after_the_start_timeout(private_folder: Path, tmp_path: Path) -> None:
    path = private_folder / "meshd-0.sock"
    listener, fillers = full_listener(path)
    with pytest.raises(DaemonUnavailable, match="kept its queue of connections full"):
        open_daemon(tmp_path, environ={"MESH_SOCKET_PATH": str(path)}, start_timeout_s=0.3)
    listener.close()
    for filler in fillers:
        filler.close()


# --- the real binary --------------------------------------------------------------------------------


class Site:
    """A small workspace, a socket folder and a cache of the test's own; every process it started
    (and every daemon holding a lock there) is killed at the end."""

    def __init__(self, tmp_path: Path) -> None:
        self.workspace = tmp_path / "ws"
        self.workspace.mkdir()
        (self.workspace / "main.py").write_text("def main():\n    return 1\n")
        self.runtime = Path(tempfile.mkdtemp(prefix="mesh-adv-rt-", dir="/tmp"))
        self.env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            "MESH_TOOL_PLUGINS": TEST_TOOLS,
            "MESH_CACHE_DIR": str(tmp_path / "cache"),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "MESH_DAEMON_IDLE_S": "60",
        }
        for name in ("MESH_SOCKET_PATH", "MESH_LOG", "MESH_DAEMON_HEARTBEAT_S"):
            self.env.pop(name, None)
        self.processes: list[subprocess.Popen[bytes]] = []

    def socket(self) -> Path:
        return socket_path(self.workspace, self.env)

    def daemon_pid(self, timeout_s: float = TIMEOUT_S) -> int:
        deadline = time.monotonic() + timeout_s
        while True:
            with contextlib.suppress(OSError, ValueError):
                return int(lock_path(self.socket()).read_text())
            assert time.monotonic() < deadline, "no daemon wrote its pid"
            time.sleep(0.02)

    def proxy(self, *args: str, **extra: str) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            (sys.executable, "-m", "mesh", "mcp", "--workspace", str(self.workspace), *args),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**self.env, **extra},
            cwd=ROOT,
        )
        self.processes.append(process)
        return process

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait(TIMEOUT_S)
            for stream in (process.stdin, process.stdout, process.stderr):
                with contextlib.suppress(OSError):
                    stream.close()  # type: ignore[union-attr]
        for lock in self.runtime.glob("**/*.lock"):
            with contextlib.suppress(OSError, ValueError):
                pid = int(lock.read_text())
                os.kill(pid, signal.SIGCONT)
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.runtime, True)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    made = Site(tmp_path)
    yield made
    made.close()


def communicate(process: subprocess.Popen[bytes], data: bytes, timeout_s: float = TIMEOUT_S) -> tuple[bytes, str]:
    try:
        out, err = process.communicate(data, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"still running after {timeout_s} s; stderr: {err.decode(errors='replace')[-2000:]}")
    return out, err.decode(errors="replace")


@pytest.mark.journey
def test_a_daemon_with_an_idle_exit_of_a_century_serves_INV_DAEMON_4(site: Site) -> None:
    """INV-DAEMON-4, end to end: the daemon died at start and the session served standalone."""
    out, err = communicate(site.proxy(MESH_DAEMON_IDLE_S="3e9"), handshake() + request(2, "ping"))
    assert "standalone" not in err and [json.loads(line)["id"] for line in out.splitlines()] == [1, 2]
    pid = site.daemon_pid()
    os.kill(pid, 0)  # still serving


@pytest.mark.journey
def test_a_planted_lock_symlink_is_refused_and_its_target_kept_INV_SOCK_3(site: Site, tmp_path: Path) -> None:
    """INV-SOCK-3, end to end: the daemon truncated the target to its pid."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    lock = lock_path(site.socket())
    lock.parent.mkdir(mode=0o700, parents=True)
    lock.symlink_to(victim)
    out, err = communicate(site.proxy(), handshake() + request(2, "ping"))
    assert [json.loads(line)["id"] for line in out.splitlines()] == [1, 2]  # served standalone
    assert "meshd exited with status 1" in err
    assert victim.read_text() == "keep\n" and lock.is_symlink()
    log = (tmp_path / "cache").rglob("meshd.log")
    assert any("is a symbolic link; remove it" in path.read_text() for path in log)


@pytest.mark.journey
def test_a_stopped_daemon_ends_its_proxy_with_1_naming_the_cause_INV_PROXY_3(site: Site) -> None:
    """INV-PROXY-3, end to end: SIGSTOP the daemon mid-call; the proxy ran on 15 s after EOF.

    The daemon holds the client's stdout (the proxy passed it): the client's pipe closes once the
    daemon resumes, when it finds the proxy gone and drops the session at once, writing nothing."""
    server = site.proxy(MESH_DAEMON_HEARTBEAT_S="0.1")
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    server.stdin.write(handshake())
    server.stdin.flush()
    assert json.loads(server.stdout.readline())["id"] == 1
    pid = site.daemon_pid()
    os.kill(pid, signal.SIGSTOP)
    started = time.monotonic()
    server.stdin.write(call(2, "sleep", {"ms": 100}))
    server.stdin.close()
    try:
        assert server.wait(TIMEOUT_S) == 1
    finally:
        os.kill(pid, signal.SIGCONT)
    assert time.monotonic() - started < 10
    err = server.stderr.read().decode(errors="replace")  # the proxy's own: the daemon never had it
    assert f"meshd (pid {pid}) is stopped" in err and "meshd.log" in err
    assert "not even its heartbeat" in err
    resumed = time.monotonic()
    assert server.stdout.read() == b""  # EOF once the daemon, resumed, let go of it; no answer
    assert time.monotonic() - resumed < 5


@pytest.mark.journey
def test_a_slow_call_through_a_real_daemon_is_no_silence_INV_PROXY_3(site: Site) -> None:
    """INV-PROXY-3: a call that runs past the silence limit is answered, and the proxy exits 0."""
    out, err = communicate(  # a heartbeat every 0.2 s: silence after 2 s
        site.proxy(MESH_DAEMON_HEARTBEAT_S="0.2"), handshake() + call(2, "sleep", {"ms": 2500})
    )
    answers = [json.loads(line) for line in out.splitlines()]
    assert [answer["id"] for answer in answers] == [1, 2], err
    assert answers[1]["result"]["content"][0]["text"] == "slept 2500 ms"
    assert b"\0" not in out and "standalone" not in err


@pytest.mark.journey
def test_a_burst_of_200_connections_while_20_sessions_start_never_forks_the_index_INV_SOCK_4(site: Site) -> None:
    """INV-SOCK-4, end to end: with the daemon's accept loop behind (stopped for a moment, as a
    loaded machine stalls it), 200 connections filled its queue of 128; the 20 sessions starting
    then got EAGAIN and served standalone, each indexing the workspace again."""
    warm, err = communicate(site.proxy(), handshake())
    assert "standalone" not in err
    pid = site.daemon_pid()
    os.kill(pid, signal.SIGSTOP)
    burst: list[socket.socket] = []
    outcomes: list[Link | Exception] = []

    def start_session() -> None:  # what `mesh-mcp mcp` does first (threads: they start at once)
        try:
            outcomes.append(open_daemon(site.workspace, environ=site.env))
        except Exception as exc:
            outcomes.append(exc)

    try:
        for _ in range(200):
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            client.setblocking(False)
            burst.append(client)
            with contextlib.suppress(BlockingIOError):  # a full queue: the sessions below must cope
                client.connect(os.fspath(site.socket()))
        sessions = [threading.Thread(target=start_session, daemon=True) for _ in range(20)]
        for thread in sessions:
            thread.start()
        time.sleep(0.5)
        os.kill(pid, signal.SIGCONT)
        for thread in sessions:
            thread.join(TIMEOUT_S)
    finally:
        os.kill(pid, signal.SIGCONT)
        for client in burst:
            client.close()
    failures = [outcome for outcome in outcomes if not isinstance(outcome, Link)]
    assert failures == [] and len(outcomes) == 20
    assert {outcome.hello.pid for outcome in outcomes if isinstance(outcome, Link)} == {pid}
    for outcome in outcomes:
        outcome.connection.close()  # type: ignore[union-attr]
    out, err = communicate(site.proxy(), handshake() + request(2, "ping"))  # and it still serves
    assert "standalone" not in err and [json.loads(line)["id"] for line in out.splitlines()] == [1, 2]


def flood(process: subprocess.Popen[bytes], count: int) -> tuple[threading.Thread, threading.Event]:
    """Write a handshake and ``count`` tools/list to ``process`` without reading; then close."""
    data = handshake() + b"".join(request(number, "tools/list") for number in range(2, count + 2))
    done = threading.Event()

    def write() -> None:
        assert process.stdin is not None
        with contextlib.suppress(OSError):
            process.stdin.write(data)
            process.stdin.close()
        done.set()

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread, done


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def read_all_answers(process: subprocess.Popen[bytes]) -> int:
    assert process.stdout is not None
    count = 0
    while chunk := process.stdout.read1(1 << 20):  # type: ignore[attr-defined]
        count += chunk.count(b"\n")
    return count


#: A standalone server on the small workspace peaks at ~45 MiB; unbounded, 20,000 unread
#: ``tools/list`` answers (6.6 KB each) took it past 160 MiB.
FLOOD_RSS_MIB_MAX: Final = 90


@pytest.mark.journey
@pytest.mark.parametrize("standalone", [True, False], ids=["standalone", "through-the-daemon"])
def test_a_client_that_never_reads_cannot_grow_the_server_INV_BOUND_4(site: Site, standalone: bool) -> None:
    """INV-BOUND-4: 20,000 tools/list written and never read: the server stops reading past its
    bound (the client's writes block), stays small, and answers everything once read."""
    count = 20_000
    process = site.proxy(*(["--standalone"] if standalone else []))
    writer, written = flood(process, count)
    time.sleep(2.0)
    assert not written.is_set(), "the server read everything while nothing was read from it"
    server_mib = peak_rss_mib(process.pid)
    daemon_mib = 0.0 if standalone else peak_rss_mib(site.daemon_pid())
    assert read_all_answers(process) == count + 1
    writer.join(TIMEOUT_S)
    assert process.wait(TIMEOUT_S) == 0
    assert server_mib < FLOOD_RSS_MIB_MAX and daemon_mib < FLOOD_RSS_MIB_MAX, (server_mib, daemon_mib)
