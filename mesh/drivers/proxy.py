"""The proxy: ``mesh-mcp mcp`` hands its client to the workspace's daemon and watches the session.

Theory of operation
-------------------
:func:`open_daemon` connects to the workspace's socket and reads the daemon's hello; when nothing
listens it starts ``meshd`` detached (its own session, no terminal, its output in its log) and
retries for a bounded time. A daemon whose queue of connections is full (a burst of clients:
``EAGAIN``) is retried with backoff within the same bound. Any failure is a
:class:`DaemonUnavailable` whose message says what happened: the caller serves standalone
instead, with one warning.

:func:`run_proxy` then serves the session one of two ways.

**Descriptors passed** (the hello says ``fds``; :class:`_Control`). The proxy sends the client's
own stdin and the private descriptor that is the client's stdout (``claim_stdout`` moved it off
fd 1) with ``SCM_RIGHTS``, and from then on reads and writes no byte of the session: the daemon's
session reads the client's requests and writes its answers itself, so no frame pays for a hop
through this process. The socket is a control channel (``mesh/sockets.py``), and the proxy's loop
watches it and its own signals:

* a stop signal (SIGTERM/SIGINT) goes to the daemon as a stop record, which its session takes as
  the stdio driver's stop request (input ends, running calls cancelled, unstarted ones refused,
  5 s of grace; a second signal: at once). The proxy then waits for the exit record at most
  ``STOP_GRACE_S`` (``SECOND_STOP_WAIT_S`` after a second signal), 1 past it;
* the exit record ends the session: the proxy exits with its code, the standalone server's (0
  when every answer was written, 1 when one was lost, said on stderr). An exit record that says
  the daemon itself is stopping is no end the client asked for: 1, naming it (INV-PROXY-2);
* the daemon closes or resets the channel without it: it stopped or died mid-session. The proxy
  logs why (the daemon's pid gone or not, the last line of its log) and where the daemon's log is,
  and exits 1;
* the daemon falls silent: no heartbeat for ``SILENT_BEATS_MAX`` of its periods (it is stopped,
  SIGSTOP, or hung): the proxy says so, with the daemon's state and log, and exits 1
  (INV-PROXY-3). The daemon still holds the client's stdout: that pipe closes when it resumes
  (it finds this proxy gone and drops the session) or dies.

A daemon that could not take the descriptors answers ``COPY_RECORD`` and the session is copied.

**Bytes copied** (a daemon that takes no descriptors: another version; ``MESH_PROXY_FDS=0``;
:class:`_Copy`). One thread copies bytes both ways, adding none and parsing none: ``poll`` on the
client's input, the client's output, the socket and a wake-up pipe, every descriptor it writes
non-blocking (a terminal aside). Each direction holds at most one chunk: a side is read only once
what was read from it before has been written to the other (backpressure both ways,
INV-BOUND-4), and one direction waiting never stops the other. The daemon's control records (its
heartbeat and end marker) are stripped, never forwarded. The client's input ending, or a stop
signal, shuts the socket's write half; the daemon's session answers everything it was sent and
closes with its end marker, and the proxy exits 0 (after a signal within ``STOP_GRACE_S``, else
1; at a second signal 1 at once). The daemon closing first, falling silent, or the client
no longer reading (EPIPE) end it as above, with 1.
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
from typing import TYPE_CHECKING, Final

from .. import __version__
from ..sockets import (
    CONTROL_BYTES_MAX,
    COPY_RECORD,
    END_MARKER,
    FDS_RECORD,
    HEARTBEAT,
    ControlReader,
    Hello,
    SocketDirError,
    check_length,
    parse_exit_record,
    private_dir,
    read_hello,
    socket_path,
    stop_record,
)
from ._wake import drain_pipe, wake_pipe

if TYPE_CHECKING:
    import subprocess

__all__ = ["DaemonUnavailable", "Link", "open_daemon", "run_proxy"]

log = logging.getLogger("mesh.proxy")

#: How long a started daemon has to answer on its socket (``$MESH_DAEMON_START_S`` overrides).
START_TIMEOUT_S: Final = 10.0
#: Connecting and reading the hello of a running daemon.
CONNECT_TIMEOUT_S: Final = 3.0
#: After a stop signal, how long the daemon has to answer what it was sent.
STOP_GRACE_S: Final = 7.0
#: After a second stop signal, how long the daemon has to say how its session ended (it returns
#: at once: this only bounds a daemon that does not).
SECOND_STOP_WAIT_S: Final = 1.0
#: How long a daemon that dropped the connection is given to finish dying before it counts as alive.
DEATH_WAIT_S: Final = 0.5
CHUNK_BYTES: Final = 64 * 1024
#: Heartbeat periods without a byte from the daemon after which it counts as stopped or hung.
SILENT_BEATS_MAX: Final = 10
#: Retries (a daemon starting, a full queue of connections) start this far apart and double.
BUSY_PAUSE_S: Final = 0.005
BUSY_PAUSE_S_MAX: Final = 0.05

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
    """Connect to ``workspace``'s daemon, starting it when nothing listens; :class:`DaemonUnavailable` else.

    A daemon just started, and one whose queue of pending connections is full (a burst of
    clients: INV-SOCK-4), are retried with backoff for up to ``start_timeout_s``
    (``$MESH_DAEMON_START_S``): a burst queues, it never forks a standalone index."""
    environ = os.environ if environ is None else environ
    path = socket_path(workspace, environ)
    if start_timeout_s is None:
        start_timeout_s = _seconds(environ.get("MESH_DAEMON_START_S"), START_TIMEOUT_S)
    started = time.monotonic()
    pause_s = BUSY_PAUSE_S
    child = None
    busy = 0
    try:
        check_length(path)
        while True:
            try:
                link = _connect(path)
            except _Busy:
                busy += 1
            else:
                if link is not None:
                    if child is not None or busy:
                        log.info("meshd answered after %.0f ms", (time.monotonic() - started) * 1000)
                    return _checked(link, workspace, environ)
                if child is None:
                    private_dir(path.parent)
                    child = _start(workspace, environ, argv)
            if child is not None:
                code = child.poll()
                if code not in (None, 0):  # 0: another daemon took the lock and serves: keep trying
                    raise DaemonUnavailable(
                        f"meshd exited with status {code} at start; its log: {_log_hint(workspace, environ)}"
                    )
            if time.monotonic() - started > start_timeout_s:
                why = f"kept its queue of connections full ({busy} tries)" if busy else "did not answer"
                raise DaemonUnavailable(
                    f"meshd on {path} {why} within {start_timeout_s:g} s; its log: {_log_hint(workspace, environ)}"
                )
            time.sleep(pause_s)
            pause_s = min(pause_s * 2, BUSY_PAUSE_S_MAX)
    except SocketDirError as exc:
        raise DaemonUnavailable(str(exc)) from None


def _start(workspace: Path, environ: Mapping[str, str], argv: Sequence[str] | None) -> subprocess.Popen[bytes]:
    """Start ``meshd`` for ``workspace``, detached: its own session, no terminal, no descriptors of ours."""
    import subprocess  # only a proxy that starts the daemon pays for it

    argv = list(argv or (sys.executable, "-m", "mesh", "daemon", "--workspace", str(workspace)))
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
    return child


def run_proxy(link: Link, *, out_fd: int, in_fd: int = 0, environ: Mapping[str, str] | None = None) -> int:
    """Serve the client through the daemon until the session ends; the exit code.

    A daemon that accepts descriptors gets ``in_fd`` and ``out_fd`` (the client's own) and the
    socket carries control records only (:class:`_Control`); any other is copied to and from
    (:class:`_Copy`). ``$MESH_PROXY_FDS=0`` copies whatever the daemon accepts (measurements)."""
    environ = os.environ if environ is None else environ
    connection = link.connection
    connection.setblocking(False)
    wake_r, wake_w = wake_pipe()
    stops: list[str] = []

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        stops.append(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    previous_wakeup = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    try:
        if link.hello.fds and environ.get("MESH_PROXY_FDS", "1") != "0":
            outcome = _Control(link, in_fd, out_fd, wake_r, stops).run()
            if isinstance(outcome, int):
                return outcome
            link.leftover = outcome  # the daemon could not take them: bytes after all
        else:
            log.info("copying bytes to and from meshd (pid %d): it takes no descriptors", link.hello.pid)
        if not os.isatty(out_fd):
            os.set_blocking(out_fd, False)  # a client that stops reading never blocks the proxy
        return _Copy(link, in_fd, out_fd, wake_r, stops).run()
    finally:
        signal.set_wakeup_fd(previous_wakeup)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for fd in (wake_r, wake_w):
            os.close(fd)
        connection.close()


class _Control:
    """The proxy's loop once the daemon holds the client's descriptors: it watches the control
    channel and its own signals, and copies nothing (see the module docstring)."""

    def __init__(self, link: Link, in_fd: int, out_fd: int, wake_r: int, stops: list[str]) -> None:
        self.link = link
        self.connection = link.connection
        self.in_fd = in_fd
        self.out_fd = out_fd
        self.wake_r = wake_r
        self.stops = stops
        self.reader = ControlReader()
        self.beats = 0
        beat_s = link.hello.heartbeat_s
        self.silence_s_max = beat_s * SILENT_BEATS_MAX if beat_s > 0 else None

    def run(self) -> int | bytes:
        """The exit code; or, when the daemon could not take the descriptors, the bytes it sent
        after saying so (the connection is a byte stream from there on)."""
        try:
            socket.send_fds(self.connection, [FDS_RECORD], [self.in_fd, self.out_fd])
        except BlockingIOError:  # a fresh connection's buffer is empty: never in practice
            return _daemon_lost(self.link, "did not take the client's descriptors")
        except OSError as exc:
            return _daemon_lost(self.link, f"refused the client's descriptors ({exc.strerror or exc})")
        poller = select.poll()
        poller.register(self.wake_r, select.POLLIN)
        poller.register(self.connection.fileno(), _IN)
        deadline: float | None = None
        second = False
        handled_stops = 0
        heard_at = time.monotonic()
        pending = self.link.leftover
        while True:
            if pending:
                for at, record in enumerate(records := self.reader.feed(pending)):
                    outcome = self._record(record)
                    if isinstance(outcome, bytes):  # COPY: what follows it is the byte stream
                        rest = b"".join(records[at + 1 :]) + self.reader.held
                        return outcome + rest
                    if outcome is not None:
                        return outcome
                pending = b""
            wake_at = deadline
            if self.silence_s_max is not None:
                wake_at = min(wake_at or float("inf"), heard_at + self.silence_s_max)
            timeout_ms = None if wake_at is None else max(0, int((wake_at - time.monotonic()) * 1000) + 1)
            ready = dict(poller.poll(timeout_ms))
            now = time.monotonic()
            if self.wake_r in ready:
                drain_pipe(self.wake_r)
                while handled_stops < len(self.stops):
                    stop = self.stops[handled_stops]
                    handled_stops += 1
                    self._send_stop(stop)
                    if deadline is None:
                        log.info("%s: the daemon's session stops as a standalone server does", stop)
                        deadline = now + STOP_GRACE_S
                    elif not second:
                        log.info("second stop request (%s): the daemon's session returns at once", stop)
                        second = True
                        deadline = min(deadline, now + SECOND_STOP_WAIT_S)
            if self.connection.fileno() in ready:
                try:
                    data = self.connection.recv(4096)
                except BlockingIOError:
                    data = None
                except ConnectionResetError:
                    return _daemon_lost(self.link, "reset the connection")
                except OSError as exc:
                    return _daemon_lost(self.link, f"failed ({exc.strerror or exc})")
                if data is not None:
                    if not data:
                        if self.reader.held:
                            log.warning("the daemon closed inside a control record (%r)", self.reader.held)
                        return _daemon_lost(self.link, "closed the connection")
                    heard_at = now
                    pending = data
                    continue
            if deadline is not None and now >= deadline:
                log.error(
                    "the daemon did not say how the session ended within %.0f s of the %s stop request; "
                    "answers not yet delivered may be lost. Daemon log: %s",
                    (SECOND_STOP_WAIT_S if second else STOP_GRACE_S),
                    "second" if second else "first",
                    self.link.hello.log,
                )
                return 1
            if self.silence_s_max is not None and now - heard_at >= self.silence_s_max:
                return _daemon_silent(self.link, now - heard_at)

    def _record(self, record: bytes) -> int | bytes | None:
        """What one control record means: an exit code, COPY (b""), or nothing (go on)."""
        if record == HEARTBEAT:
            self.beats += 1
            return None
        if record == COPY_RECORD:
            log.warning("meshd (pid %d) could not take the client's descriptors: copying bytes", self.link.hello.pid)
            return b""
        ended = parse_exit_record(record)
        if ended is None:
            log.warning("unknown control record from the daemon dropped: %r", record[:CONTROL_BYTES_MAX])
            return None
        code, stopping = ended
        if stopping:  # the daemon stopped, not the client: as when it closed a copied session
            return _daemon_lost(self.link, "stopped", answered=code == 0)
        if code != 0:
            log.error(
                "the session ended with answers lost (a call that ignored its cancellation, or a client that "
                "did not read its answers); exit 1. Daemon log: %s",
                self.link.hello.log,
            )
        return code

    def _send_stop(self, reason: str) -> None:
        try:
            self.connection.send(stop_record(reason))
        except OSError as exc:  # gone: its end comes through the read side
            log.info("cannot pass %s to the daemon (%s)", reason, exc)


class _Relay:
    """The daemon's bytes for the client, without its control records (``mesh/sockets.py``): a
    NUL up to its newline. Only what may begin a record (from a NUL on) is held back while its
    end has not come, so frames are never held."""

    def __init__(self) -> None:
        self.held = b""
        #: The daemon said the session ended with every answer written.
        self.ended = False
        #: Heartbeats seen (for logs and tests).
        self.beats = 0

    def feed(self, data: bytes) -> bytes:
        """The bytes of ``data`` to pass on to the client."""
        if self.ended:
            if data:
                log.warning("%d byte(s) after the daemon's end marker dropped", len(data))
            return b""
        if self.held:
            data, self.held = self.held + data, b""
        if b"\0" not in data:
            return data
        kept: list[bytes] = []
        at = 0
        while (nul := data.find(b"\0", at)) >= 0:
            kept.append(data[at:nul])
            end = data.find(b"\n", nul, nul + CONTROL_BYTES_MAX)
            if end < 0:
                if len(data) - nul < CONTROL_BYTES_MAX:
                    self.held = data[nul:]  # a record cut by the chunk: its end comes next
                    return b"".join(kept)
                log.warning("the daemon sent a NUL that begins no control record; dropped")
                at = nul + 1
                continue
            record, at = data[nul : end + 1], end + 1
            if record == HEARTBEAT:
                self.beats += 1
            elif record == END_MARKER:
                self.ended = True
                if at < len(data):
                    log.warning("%d byte(s) after the daemon's end marker dropped", len(data) - at)
                return b"".join(kept)
            else:
                log.warning("unknown control record from the daemon dropped: %r", record[:CONTROL_BYTES_MAX])
        kept.append(data[at:])
        return b"".join(kept)


class _Copy:
    """The proxy's loop: see the module docstring."""

    def __init__(self, link: Link, in_fd: int, out_fd: int, wake_r: int, stops: list[str]) -> None:
        self.link = link
        self.connection = link.connection
        self.sock_fd = link.connection.fileno()
        self.in_fd = in_fd
        self.out_fd = out_fd
        self.wake_r = wake_r
        self.stops = stops
        self.relay = _Relay()
        #: Client bytes not yet taken by the daemon; daemon bytes not yet taken by the client.
        self.to_daemon = b""
        self.to_client = link.leftover
        self.input_ended = False  # nothing more is read from the client
        self.shut = False  # the socket's write half is shut: the daemon's session saw EOF
        self.daemon_closed = False
        beat_s = link.hello.heartbeat_s
        #: A daemon silent this long while the proxy listens is stopped or hung; None: unknown.
        self.silence_s_max = beat_s * SILENT_BEATS_MAX if beat_s > 0 else None

    def run(self) -> int:
        deadline: float | None = None  # after a stop request
        handled_stops = 0
        poller = select.poll()
        masks: dict[int, int] = {}
        listening = False
        heard_at = time.monotonic()
        self.to_client = self.relay.feed(self.to_client)
        while True:
            if self.input_ended and not self.to_daemon and not self.shut:
                self._shut()
            if self.daemon_closed and not self.to_client:
                return self._ended()
            # Each side is read only once what came from it before is gone (one chunk each way).
            hear = not self.daemon_closed and not self.to_client
            wanted = {self.wake_r: select.POLLIN}
            for fd, mask in (
                (self.in_fd, _IN if not self.input_ended and not self.to_daemon else 0),
                (self.out_fd, select.POLLOUT if self.to_client else 0),
                (self.sock_fd, (_IN if hear else 0) | (select.POLLOUT if self.to_daemon else 0)),
            ):
                if mask:
                    wanted[fd] = wanted.get(fd, 0) | mask
            for fd in [fd for fd in masks if fd not in wanted]:
                poller.unregister(fd)
                del masks[fd]
            for fd, mask in wanted.items():
                if masks.get(fd) != mask:
                    poller.register(fd, mask)
                    masks[fd] = mask
            if hear and not listening:
                heard_at = time.monotonic()  # silence counts only while the proxy listens
            listening = hear
            wake_at = deadline
            if hear and self.silence_s_max is not None:
                wake_at = min(wake_at or float("inf"), heard_at + self.silence_s_max)
            timeout_ms = None if wake_at is None else max(0, int((wake_at - time.monotonic()) * 1000) + 1)
            ready = dict(poller.poll(timeout_ms))
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return self._stop_timed_out()
            if self.wake_r in ready:
                drain_pipe(self.wake_r)
                while handled_stops < len(self.stops):
                    handled_stops += 1
                    if deadline is not None:
                        stop = self.stops[-1]
                        log.error("second stop request (%s): exiting now; answers not received are lost", stop)
                        return 1
                    log.info("%s: ending input; waiting for the daemon's answers", self.stops[-1])
                    deadline = now + STOP_GRACE_S
                    self.input_ended = True
            if self.out_fd in ready and self.to_client and not self._to_client():
                return 1
            sock_events = ready.get(self.sock_fd, 0)
            if hear and sock_events & _IN:
                heard_at = now
                code = self._from_daemon()
                if code is not None:
                    return code
            if self.to_daemon and sock_events & (select.POLLOUT | select.POLLERR | select.POLLHUP):
                code = self._to_daemon()
                if code is not None:
                    return code
            if self.in_fd in ready and not self.input_ended and not self.to_daemon:
                code = self._from_client()
                if code is not None:
                    return code
            if hear and self.silence_s_max is not None and now - heard_at >= self.silence_s_max:
                return _daemon_silent(self.link, now - heard_at)

    def _stop_timed_out(self) -> int:
        if self.relay.ended:
            what = "the client did not take the daemon's last answers"
        else:
            what = "the daemon did not finish answering"
        log.error(
            "%s within %.0f s of the stop request; answers not yet delivered are lost. Daemon log: %s",
            what,
            STOP_GRACE_S,
            self.link.hello.log,
        )
        return 1

    # --- each direction ---------------------------------------------------------------------

    def _from_client(self) -> int | None:
        try:
            data = os.read(self.in_fd, CHUNK_BYTES)
        except BlockingIOError:
            return None
        except OSError as exc:
            log.warning("reading the client failed (%s); treating it as EOF", exc)
            data = b""
        if not data:
            self.input_ended = True
            return None
        self.to_daemon = data
        return self._to_daemon()  # most often it all goes at once: no poll for it

    def _to_daemon(self) -> int | None:
        try:
            sent = self.connection.send(self.to_daemon)
        except BlockingIOError:
            return None
        except OSError as exc:
            if exc.errno not in (errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN):
                log.warning("writing to the daemon failed: %s", exc)
            return _daemon_lost(self.link, "stopped reading the session's requests")
        self.to_daemon = self.to_daemon[sent:]
        return None

    def _shut(self) -> None:
        self.shut = True
        try:
            self.connection.shutdown(socket.SHUT_WR)  # the daemon's session sees EOF and drains
        except OSError:
            pass  # already gone: the read side will tell

    def _from_daemon(self) -> int | None:
        try:
            data = self.connection.recv(CHUNK_BYTES)
        except BlockingIOError:
            return None
        except ConnectionResetError:
            return _daemon_lost(self.link, "reset the connection")
        except OSError as exc:
            return _daemon_lost(self.link, f"failed ({exc.strerror or exc})")
        if not data:
            self.daemon_closed = True  # what the client has not taken yet still goes out first
            if self.relay.held:
                log.warning("the daemon closed inside a control record; %d byte(s) dropped", len(self.relay.held))
            return None
        self.to_client = self.relay.feed(data)
        if self.to_client and not self._to_client():  # most often it all goes at once
            return 1
        return None

    def _to_client(self) -> bool:
        """Write what the client takes now; False when it can take nothing more."""
        try:
            written = os.write(self.out_fd, self.to_client)
        except BlockingIOError:
            return True
        except OSError as exc:
            log.warning("cannot write to the client (%s); stopping", exc)
            return False
        self.to_client = self.to_client[written:]
        return True

    def _ended(self) -> int:
        """The daemon closed and the client has everything it sent: 0 only for a session the
        daemon drained after seeing the end of everything this proxy sent it (INV-PROXY-2)."""
        if self.relay.ended and self.shut:
            return 0  # everything sent was answered: the drain barrier, through the daemon
        return _daemon_lost(self.link, "closed the connection", answered=self.relay.ended)


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


class _Busy(Exception):
    """The daemon's queue of pending connections is full (``EAGAIN``): try again shortly."""


def _connect(path: Path) -> Link | None:
    """A link to the daemon at ``path``; None when nothing listens there (no socket, refused);
    :class:`_Busy` when its queue of pending connections is full."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(CONNECT_TIMEOUT_S)
    try:
        connection.connect(os.fspath(path))
    except (FileNotFoundError, ConnectionRefusedError):
        connection.close()
        return None
    except BlockingIOError:  # EAGAIN: a Unix socket's backlog is full
        connection.close()
        raise _Busy from None
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


def _daemon_silent(link: Link, silent_s: float) -> int:
    """The daemon sent nothing, not even its heartbeat, for ``silent_s``: it is stopped or hung.
    Say which (its state in ``/proc``) and where its log is; exit 1 (INV-PROXY-3)."""
    hello = link.hello
    state = _state(hello.pid)
    if state is None:
        what = f"meshd (pid {hello.pid}) is gone"
    elif state in ("T", "t"):
        what = f"meshd (pid {hello.pid}) is stopped (SIGSTOP?; `kill -CONT {hello.pid}` resumes it)"
    else:
        what = f"meshd (pid {hello.pid}) is hung (state {state}; `kill {hello.pid}` stops it)"
    log.error(
        "%s: it sent nothing, not even its heartbeat, for %.1f s; answers not yet received are lost "
        "and the client sees EOF. Daemon log: %s",
        what,
        silent_s,
        hello.log,
    )
    return 1


def _state(pid: int) -> str | None:
    """The one-letter state of ``pid`` in ``/proc`` (R, S, T...); None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return None
    except (OSError, IndexError):
        return "?"


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
