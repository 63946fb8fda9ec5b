"""The proxy: ``mesh-mcp mcp`` as a thin pipe between its client and the workspace's daemon.

Theory of operation
-------------------
:func:`open_daemon` connects to the workspace's socket and reads the daemon's hello; when nothing
listens it starts ``meshd`` detached (its own session, no terminal, its output in its log) and
retries for a bounded time. Any failure is a :class:`DaemonUnavailable` whose message says what
happened: the caller serves standalone instead, with one warning.

:func:`run_proxy` then copies bytes both ways on one thread, adding none and parsing none: ``poll``
on the client's input, the socket and a wake-up pipe; a chunk read from one side is written whole
to the other before the next is read (backpressure both ways: a client that stops reading stops
the proxy reading the daemon, whose pump then holds the answers).

Ends:

* the client's input ends (or SIGTERM/SIGINT arrives): the proxy shuts the socket's write half,
  the daemon's session answers everything it was sent and closes, the proxy writes it all out and
  exits 0 (after a signal it waits at most the daemon's grace period; a second signal exits now);
* the daemon closes or resets the connection first: it stopped or died mid-session. The proxy
  logs why (the daemon's pid gone or not, the last line of its log) and where the daemon's log is,
  and exits 1: the client sees EOF, never a hang;
* the client stops reading its output (EPIPE): exit 1, as the standalone server does.
"""

from __future__ import annotations

import errno
import logging
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import Final

from .. import __version__
from ..sockets import END_MARKER, Hello, SocketDirError, check_length, private_dir, read_hello, socket_path
from ._wake import drain_pipe, wake_pipe

__all__ = ["DaemonUnavailable", "Link", "open_daemon", "run_proxy"]

log = logging.getLogger("mesh.proxy")

#: How long a started daemon has to answer on its socket (``$MESH_DAEMON_START_S`` overrides).
START_TIMEOUT_S: Final = 10.0
#: Connecting and reading the hello of a running daemon.
CONNECT_TIMEOUT_S: Final = 3.0
#: After a stop signal, how long the daemon has to answer what it was sent.
STOP_GRACE_S: Final = 7.0
#: How long a daemon that dropped the connection is given to finish dying before it counts as alive.
DEATH_WAIT_S: Final = 0.5
CHUNK_BYTES: Final = 64 * 1024

_IN: Final = select.POLLIN | select.POLLPRI | select.POLLHUP | select.POLLERR


class DaemonUnavailable(Exception):
    """The daemon cannot be reached or started; the message says why (and where its log is)."""


class Link:
    """A connection to a daemon that said hello (a plain class: see :class:`Hello`)."""

    __slots__ = ("connection", "hello", "leftover", "path")

    def __init__(self, connection: socket.socket, hello: Hello, leftover: bytes, path: Path) -> None:
        self.connection = connection
        self.hello = hello
        #: Bytes the daemon sent after its hello line (none in practice; kept, never dropped).
        self.leftover = leftover
        self.path = path


def open_daemon(
    workspace: Path,
    *,
    environ: Mapping[str, str] | None = None,
    argv: Sequence[str] | None = None,
    start_timeout_s: float | None = None,
) -> Link:
    """Connect to ``workspace``'s daemon, starting it when nothing listens; :class:`DaemonUnavailable` else."""
    environ = os.environ if environ is None else environ
    path = socket_path(workspace, environ)
    try:
        check_length(path)
        link = _connect(path)
        if link is not None:
            return _checked(link, workspace, environ)
        private_dir(path.parent)
    except SocketDirError as exc:
        raise DaemonUnavailable(str(exc)) from None
    if start_timeout_s is None:
        start_timeout_s = _seconds(environ.get("MESH_DAEMON_START_S"), START_TIMEOUT_S)
    import subprocess  # only a proxy that starts the daemon pays for it

    argv = list(argv or (sys.executable, "-m", "mesh", "daemon", "--workspace", str(workspace)))
    started = time.monotonic()
    try:
        child = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # no terminal, no signals meant for the client's process group
            close_fds=True,
            cwd=str(workspace),
            env=dict(environ),
        )
    except OSError as exc:
        raise DaemonUnavailable(f"cannot start meshd ({exc})") from None
    log.info("started meshd (pid %d) for %s", child.pid, workspace)
    pause_s = 0.005
    while True:
        link = _connect(path)
        if link is not None:
            log.info("meshd answered after %.0f ms", (time.monotonic() - started) * 1000)
            return _checked(link, workspace, environ)
        code = child.poll()
        if code not in (None, 0):  # 0: another daemon took the lock and serves: keep trying
            raise DaemonUnavailable(
                f"meshd exited with status {code} at start; its log: {_log_hint(workspace, environ)}"
            )
        if time.monotonic() - started > start_timeout_s:
            raise DaemonUnavailable(
                f"meshd did not answer on {path} within {start_timeout_s:g} s; its log: {_log_hint(workspace, environ)}"
            )
        time.sleep(pause_s)
        pause_s = min(pause_s * 2, 0.05)


def run_proxy(link: Link, *, out_fd: int, in_fd: int = 0) -> int:
    """Copy the client's bytes to the daemon and back until one side ends; the exit code."""
    connection = link.connection
    connection.setblocking(True)
    connection.settimeout(None)
    os.set_blocking(out_fd, True)
    wake_r, wake_w = wake_pipe()
    stops: list[str] = []

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        stops.append(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    previous_wakeup = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    try:
        relay = _Relay(out_fd)
        if link.leftover and not relay.feed(link.leftover):
            return 1
        return _copy(link, in_fd, relay, wake_r, stops)
    finally:
        signal.set_wakeup_fd(previous_wakeup)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for fd in (wake_r, wake_w):
            os.close(fd)
        connection.close()


class _Relay:
    """The daemon's bytes to the client, without the end marker (held back while a chunk ends in
    what may be its beginning: a NUL, which no frame contains, so frames are never held)."""

    def __init__(self, out_fd: int) -> None:
        self.out_fd = out_fd
        self.held = b""
        #: The daemon said the session ended with every answer written.
        self.ended = False

    def feed(self, data: bytes) -> bool:
        """Pass ``data`` on; False when the client can take nothing more."""
        data, self.held = self.held + data, b""
        cut = data.find(END_MARKER)
        if cut >= 0:
            self.ended = True
            if len(data) > cut + len(END_MARKER):
                log.warning("%d byte(s) after the daemon's end marker dropped", len(data) - cut - len(END_MARKER))
            data = data[:cut]
        else:
            for size in range(min(len(END_MARKER) - 1, len(data)), 0, -1):
                if data.endswith(END_MARKER[:size]):
                    data, self.held = data[:-size], data[-size:]
                    break
        return not data or _write_all(self.out_fd, data)


def _copy(link: Link, in_fd: int, relay: _Relay, wake_r: int, stops: list[str]) -> int:
    connection = link.connection
    sock_fd = connection.fileno()
    poller = select.poll()
    poller.register(wake_r, select.POLLIN)
    poller.register(sock_fd, _IN)
    poller.register(in_fd, _IN)
    input_ended = False
    deadline: float | None = None
    handled_stops = 0

    def end_input() -> None:
        nonlocal input_ended
        input_ended = True
        poller.unregister(in_fd)
        try:
            connection.shutdown(socket.SHUT_WR)  # the daemon's session sees EOF and drains
        except OSError:
            pass  # already gone: the read side will tell

    while True:
        timeout_ms = None if deadline is None else max(0, int((deadline - time.monotonic()) * 1000) + 1)
        ready = dict(poller.poll(timeout_ms))
        if not ready and deadline is not None and time.monotonic() >= deadline:
            log.warning("the daemon did not finish answering within %.0f s of the stop request", STOP_GRACE_S)
            return 0
        if wake_r in ready:
            drain_pipe(wake_r)
            while handled_stops < len(stops):
                handled_stops += 1
                if deadline is not None:
                    log.warning("second stop request (%s): exiting now", stops[-1])
                    return 0
                log.info("%s: ending input; waiting for the daemon's answers", stops[-1])
                deadline = time.monotonic() + STOP_GRACE_S
                if not input_ended:
                    end_input()
        if sock_fd in ready:
            try:
                data = connection.recv(CHUNK_BYTES)
            except ConnectionResetError:
                return _daemon_lost(link, "reset the connection")
            except OSError as exc:
                return _daemon_lost(link, f"failed ({exc.strerror or exc})")
            if not data:
                if relay.ended and input_ended:
                    return 0  # everything sent was answered: the drain barrier, through the daemon
                return _daemon_lost(link, "closed the connection", answered=relay.ended)
            if not relay.feed(data):
                return 1
        if not input_ended and in_fd in ready:
            try:
                data = os.read(in_fd, CHUNK_BYTES)
            except BlockingIOError:
                continue
            except OSError as exc:
                log.warning("reading the client failed (%s); treating it as EOF", exc)
                data = b""
            if not data:
                end_input()
                continue
            try:
                connection.sendall(data)
            except OSError as exc:
                if exc.errno not in (errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN):
                    log.warning("writing to the daemon failed: %s", exc)
                return _daemon_lost(link, "stopped reading the session's requests")


def _daemon_lost(link: Link, how: str, *, answered: bool = False) -> int:
    """The daemon ended the session before the client did: say why and where its log is; exit 1.

    ``answered``: it sent the end marker (it is stopping, and everything it was sent is answered);
    else ``how`` says what the connection did, and whether the process is gone tells a death from a
    daemon that dropped the session."""
    hello = link.hello
    if answered:
        what = f"meshd (pid {hello.pid}) ended this session, having answered everything it was sent"
    elif _alive(hello.pid):
        what = f"meshd (pid {hello.pid}) {how} before answering everything"
    else:
        what = f"meshd (pid {hello.pid}) died during this session ({how}); answers not yet received are lost"
    last = _last_line(Path(hello.log))
    log.error(
        "%s; the client sees EOF.%s Daemon log: %s",
        what,
        f" Last line of its log: {last}." if last else "",
        hello.log,
    )
    return 1


def _connect(path: Path) -> Link | None:
    """A link to the daemon at ``path``; None when nothing listens there (no socket, refused)."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(CONNECT_TIMEOUT_S)
    try:
        connection.connect(os.fspath(path))
    except (FileNotFoundError, ConnectionRefusedError):
        connection.close()
        return None
    except OSError as exc:
        connection.close()
        raise DaemonUnavailable(f"cannot connect to {path} ({exc.strerror or exc})") from None
    try:
        hello, leftover = read_hello(connection, CONNECT_TIMEOUT_S)
    except ConnectionError:
        connection.close()
        return None  # a daemon stopping, or refusing our uid: as if nothing listened
    except (TimeoutError, ValueError, OSError) as exc:
        connection.close()
        raise DaemonUnavailable(f"{path} did not answer as meshd does ({exc})") from None
    return Link(connection, hello, leftover, path)


def _checked(link: Link, workspace: Path, environ: Mapping[str, str]) -> Link:
    """The link, when the daemon will serve this session; warnings about a daemon that differs
    from this command (version, plugins) but serves it all the same.

    Raises :class:`DaemonUnavailable` when the daemon refused the session (too many open) or
    serves another workspace (one ``MESH_SOCKET_PATH`` socket shared by two workspaces)."""
    hello = link.hello
    refused = hello.status.get("refused")
    if refused:
        link.connection.close()
        raise DaemonUnavailable(f"meshd (pid {hello.pid}) refused this session: {refused}")
    if hello.workspace != str(workspace):
        link.connection.close()
        raise DaemonUnavailable(
            f"meshd (pid {hello.pid}) at {link.path} serves another workspace ({hello.workspace}); "
            "give each workspace its own socket (MESH_SOCKET_PATH naming a folder, not a .sock file)"
        )
    if hello.version != __version__:
        log.warning(
            "meshd (pid %d) at %s is version %s; this mesh-mcp is version %s. Answers come from the daemon; "
            "stop it (kill %d) to start one of this version.",
            hello.pid,
            link.path,
            hello.version,
            __version__,
            hello.pid,
        )
    wanted = tuple(name.strip() for name in environ.get("MESH_TOOL_PLUGINS", "").split(",") if name.strip())
    if wanted != hello.plugins:
        log.warning(
            "meshd (pid %d) serves the plugins [%s], this session asked for [%s] (MESH_TOOL_PLUGINS); "
            "stop it (kill %d) or use --standalone",
            hello.pid,
            ", ".join(hello.plugins),
            ", ".join(wanted),
            hello.pid,
        )
    return link


def _write_all(fd: int, data: bytes) -> bool:
    view = memoryview(data)
    try:
        while view:
            written = os.write(fd, view)
            view = view[written:]
    except OSError as exc:
        log.warning("cannot write to the client (%s); stopping", exc)
        return False
    return True


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs. A process killed a moment ago may not be gone yet (its socket
    closes on the way out), so this waits up to ``DEATH_WAIT_S`` for it; a dead process not yet
    reaped (a zombie: ``kill(pid, 0)`` still finds it) counts as gone, and one this proxy started
    is reaped here."""
    deadline = time.monotonic() + DEATH_WAIT_S
    while True:
        try:
            reaped, _ = os.waitpid(pid, os.WNOHANG)
            if reaped:
                return False
        except ChildProcessError:
            pass  # not our child
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except FileNotFoundError:
            return False
        except (OSError, IndexError):
            state = ""
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                pass
        if state in ("Z", "X"):
            return False
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.01)


def _last_line(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 4096))
            tail = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _log_hint(workspace: Path, environ: Mapping[str, str]) -> str:
    from ..workspace import cache_dir

    return str(cache_dir(workspace, environ) / "meshd.log")


def _seconds(text: str | None, default: float) -> float:
    try:
        value = float(text) if text else default
    except ValueError:
        log.warning("not a number of seconds: %r; using %g", text, default)
        return default
    return value if value > 0 else default
