"""The Unix-socket driver: ``meshd`` serves one workspace to every connection, each its own session.

Theory of operation
-------------------
The caller (``mesh/commands/daemon.py``) owns the listening socket, the lock, the index and the
audit log; :class:`Daemon` owns the connections. Its loop, on the main thread, sleeps in ``poll``
on the listener and a wake-up pipe (signals reach it through ``signal.set_wakeup_fd``, a finished
connection through a byte of its own), with a timeout only while no client is connected: the
idle deadline.

Each accepted connection is checked first: a peer of another uid (``SO_PEERCRED``) is closed at
once (the socket's folder is 0700, so only root gets that far). The connection then gets the
daemon's hello line and a thread running a :class:`ConnectionPump`: the same loop, session and
tool dispatch as stdio, over the socket (read through the socket's descriptor, written through a
``dup`` of it, so ``poll`` can watch each direction on its own), with a worker pool of its own (a
session's slow tool never holds up another's) and a session id ``meshd-<pid>-<n>`` in the audit.
With ``heartbeat_s``, each pump writes ``HEARTBEAT`` between frames when its connection has been
quiet that long: the proxy's proof that the daemon still runs (``mesh/sockets.py``).

**Descriptors** (a hello with ``fds``). The connection's first bytes decide what it is: the
session's thread waits for them (writing heartbeats meanwhile, and giving way to a stop request).
``FDS_RECORD`` with two descriptors attached (``SCM_RIGHTS``: the client's own stdin and stdout,
passed by its proxy) makes the pump read and write those, with no process between the client
and the session; the socket is then the session's control channel: its heartbeats go there, a
stop record from the proxy is the stop request the stdio driver makes on SIGTERM, the channel's
end (the proxy gone) returns at once, and the session's exit code goes back in
``exit_record`` before the daemon closes its copies of the client's descriptors. Anything else is
a byte-stream session (an older proxy, the HTTP server), those bytes its first input.

The idle deadline may be any length (days, or infinite): ``poll`` waits at most ``POLL_SLICE_S``
at a time, so no timeout overflows it.

Stopping (SIGTERM, SIGINT, idle): the listener closes first (a proxy arriving now gets "connection
refused" and starts the next daemon, which waits for this one's lock), every pump is asked to stop
(it answers what is running within its grace period and refuses the rest, as stdio does on
SIGTERM), and :meth:`Daemon.run` returns once they have all written their last frames. A second
stop request returns at once.
"""

from __future__ import annotations

import itertools
import logging
import os
import select
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from ..audit import AuditLog
from ..protocol import ServerSession, SessionConfig
from ..sockets import (
    COPY_RECORD,
    END_MARKER,
    FDS_RECORD,
    HEARTBEAT,
    STOP_RECORD,
    ControlReader,
    exit_record,
    peer_uid,
)
from ..tools import Registry
from ._client_log import install as install_client_log
from ._pump import FLUSH_S_MAX, ConnectionPump
from ._wake import drain_pipe, wake_pipe
from ._workers import WorkerPool
from .stdio import catalogue

__all__ = ["Daemon"]

log = logging.getLogger("mesh.daemon")

#: Seconds the hello may take to reach a client that does not read (it fits any socket buffer).
HELLO_SEND_S: Final = 5.0
#: After a failed ``accept`` (out of descriptors), how long before the next try.
ACCEPT_RETRY_S: Final = 0.1
#: Connections served at once; one more is told so in its hello and closed (its proxy then
#: serves standalone): each session holds a thread, up to four workers and its buffers.
SESSIONS_MAX: Final = 256
#: The longest first message read before a connection's mode is known (a byte-stream session's
#: first bytes go on to its session).
FIRST_READ_BYTES: Final = 64 * 1024
#: The descriptors a proxy passes: the client's stdin and stdout.
PASSED_FDS: Final = 2
_MSG_CMSG_CLOEXEC: Final = getattr(socket, "MSG_CMSG_CLOEXEC", 0)
#: The longest single wait of the accept loop: a long idle deadline is waited for in slices
#: (``poll`` takes at most 2**31 - 1 ms, about 24.8 days).
POLL_SLICE_S: Final = 3600.0


class Daemon:
    def __init__(
        self,
        *,
        listener: socket.socket,
        registry: Registry,
        workspace: Path,
        config: SessionConfig,
        hello: Callable[[int, str], bytes],
        audit: AuditLog | None = None,
        idle_exit_s: float = 0.0,
        shutdown_grace_s: float = 5.0,
        workers_per_session: int = 4,
        allowed_uid: int | None = None,
        sessions_max: int = SESSIONS_MAX,
        heartbeat_s: float = 0.0,
        accept_fds: bool = True,
    ) -> None:
        """``hello(sessions, refused)`` makes the hello line (``sessions``: open connections, this
        one included; ``refused``: why this connection is not served, "" when it is);
        ``idle_exit_s`` 0 never exits for idleness (nor does an infinite one); ``allowed_uid``
        defaults to ours; ``heartbeat_s`` 0 writes no heartbeat (the hello must say the same);
        ``accept_fds`` takes a proxy's descriptors (the hello must say the same)."""
        self._listener = listener
        self._registry = registry
        self._workspace = workspace
        self._config = config
        self._hello = hello
        self._audit = audit
        self._idle_exit_s = idle_exit_s
        self._grace_s = shutdown_grace_s
        self._workers_per_session = workers_per_session
        self._allowed_uid = os.getuid() if allowed_uid is None else allowed_uid
        self._sessions_max = sessions_max
        self._heartbeat_s = heartbeat_s
        self._accept_fds = accept_fds
        #: The daemon's warnings and errors, for every session that asks for them (the index's too).
        self._client_log = install_client_log()
        self._wake_r, self._wake_w = wake_pipe()
        # Reentrant: a signal handler (request_stop) may run on the main thread while it holds it.
        self._lock = threading.RLock()
        self._pumps: dict[int, tuple[ConnectionPump, threading.Thread]] = {}
        self._numbers = itertools.count(1)
        self._stops: list[str] = []
        #: Connections served so far, and refused for their uid (for logs and tests).
        self.accepted = 0
        self.refused = 0
        #: Sessions served on a client's own descriptors so far (for logs and tests).
        self.passed = 0

    @property
    def wake_fd(self) -> int:
        """The write end of the wake-up pipe (for ``signal.set_wakeup_fd``)."""
        return self._wake_w

    @property
    def sessions(self) -> int:
        with self._lock:
            return len(self._pumps)

    def request_stop(self, reason: str) -> None:
        """Thread- and signal-safe: stop accepting, drain every session, return."""
        self._stops.append(reason)
        self._wake()

    def run(self) -> int:
        """Serve until stopped or idle for ``idle_exit_s``; the exit code (0)."""
        poller = select.poll()
        poller.register(self._wake_r, select.POLLIN)
        poller.register(self._listener.fileno(), select.POLLIN)
        self._listener.setblocking(False)
        idle_since: float | None = time.monotonic()
        while True:
            timeout_ms = None
            if idle_since is not None and self._idle_exit_s > 0:
                left_s = idle_since + self._idle_exit_s - time.monotonic()
                if left_s <= 0:
                    log.info("no client for %.0f s: exiting", self._idle_exit_s)
                    return self._drain("idle")
                timeout_ms = int(min(left_s, POLL_SLICE_S) * 1000) + 1  # the rest: next time round
            ready = dict(poller.poll(timeout_ms))
            if self._wake_r in ready:
                drain_pipe(self._wake_r)
                if self._stops:
                    return self._drain(self._stops[0])
            if self._listener.fileno() in ready:
                self._accept_all()
            idle_since = None if self.sessions else (idle_since or time.monotonic())

    def close(self) -> None:
        """Release the wake-up pipe (after :meth:`run` returned); a session ending later wakes nobody."""
        with self._lock:
            for fd in (self._wake_r, self._wake_w):
                os.close(fd)
            self._wake_r = self._wake_w = -1

    # --- connections -------------------------------------------------------------------------

    def _accept_all(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # EMFILE and friends: keep serving the sessions we have
                log.warning("accept failed: %s", exc)
                time.sleep(ACCEPT_RETRY_S)  # the connection waits in the backlog: do not spin on it
                return
            try:
                self._admit(connection)
            except OSError as exc:  # no descriptor left for its pump: this client only is refused
                self.refused += 1
                log.warning("cannot serve a new connection (%s); the open sessions go on", exc)
                connection.close()

    def _admit(self, connection: socket.socket) -> None:
        uid = peer_uid(connection)
        if uid is not None and uid != self._allowed_uid:
            self.refused += 1
            log.warning("refused a connection from uid %d (this daemon serves uid %d only)", uid, self._allowed_uid)
            connection.close()
            return
        number = next(self._numbers)
        session_id = f"meshd-{os.getpid()}-{number}"
        open_now = self.sessions
        refused = f"{open_now} sessions are open, the most this daemon serves" if open_now >= self._sessions_max else ""
        connection.setblocking(True)
        try:
            connection.settimeout(HELLO_SEND_S)
            connection.sendall(self._hello(open_now + 1, refused))
        except OSError as exc:
            log.info("%s: the client left before the hello (%s)", session_id, exc)
            connection.close()
            return
        if refused:
            self.refused += 1
            log.warning("%s: refused: %s", session_id, refused)
            connection.close()
            return
        connection.setblocking(False)
        out_fd = os.dup(connection.fileno())  # shares the non-blocking flag: the pump copes
        pool = WorkerPool(self._workers_per_session, name=f"mesh-tool-{number}")
        try:
            pump = ConnectionPump(
                session=ServerSession(self._config, catalogue(self._registry)),
                registry=self._registry,
                workspace=self._workspace,
                in_fd=connection.fileno(),
                out_fd=out_fd,
                workers=pool,
                name=session_id,
                shutdown_grace_s=self._grace_s,
                audit=self._audit,
                session_id=session_id,
                heartbeat=HEARTBEAT,
                heartbeat_s=self._heartbeat_s,
                client_log=self._client_log,
            )
        except OSError:  # its wake-up pipe: out of descriptors
            os.close(out_fd)
            raise
        thread = threading.Thread(
            target=self._serve,
            args=(number, pump, pool, connection, out_fd),
            name=f"meshd-session-{number}",
            daemon=True,
        )
        with self._lock:
            self._pumps[number] = (pump, thread)
            self.accepted += 1
        thread.start()
        log.info("%s: connected (%d open)", session_id, self.sessions)

    def _serve(
        self, number: int, pump: ConnectionPump, pool: WorkerPool, connection: socket.socket, out_fd: int
    ) -> None:
        client_fds: list[int] = []
        try:
            if self._accept_fds:
                client_fds = self._first_message(pump, connection)
            code = pump.run()
            if client_fds:  # the control channel: the session's end and its code
                for fd in client_fds:  # first: once its proxy exits, the client's stdout is closed
                    os.close(fd)
                client_fds = []
                connection.setblocking(True)
                connection.settimeout(FLUSH_S_MAX)
                connection.sendall(exit_record(code, stopping=bool(self._stops)))
            elif pump.drained:  # every answer written: say so, or the proxy takes the close for a death
                connection.setblocking(True)
                connection.settimeout(FLUSH_S_MAX)
                connection.sendall(END_MARKER)
        except OSError as exc:
            log.info("%s: the client left before the end marker (%s)", pump.name, exc)
            code = 1
        except Exception:  # one broken session must not take the others down
            log.exception("%s: session failed", pump.name)
            code = 1
        finally:
            pump.close()
            pool.shutdown()
            for fd in (out_fd, *client_fds):
                os.close(fd)
            connection.close()
            with self._lock:
                del self._pumps[number]
                left = len(self._pumps)
            self._wake()
        log.info("%s: closed (exit %d, %d open)", pump.name, code, left)

    def _first_message(self, pump: ConnectionPump, connection: socket.socket) -> list[int]:
        """Wait for the connection's first bytes and set ``pump`` up for what they are: the
        client's descriptors (returned: the caller closes them), else a byte stream (``[]``).

        Heartbeats go out while it waits (an idle HTTP keep-alive connection may say nothing for
        hours); a stop request ends the wait, the pump then serving the byte stream it was made
        for (it stops at once: nothing was read)."""
        poller = select.poll()
        poller.register(connection.fileno(), select.POLLIN)
        poller.register(pump.wake_read_fd, select.POLLIN)
        beat_at = time.monotonic()
        while True:
            timeout_ms = None
            if self._heartbeat_s > 0:
                timeout_ms = max(0, int((beat_at + self._heartbeat_s - time.monotonic()) * 1000) + 1)
            ready = dict(poller.poll(timeout_ms))
            if pump.wake_read_fd in ready:
                return []
            if connection.fileno() in ready:
                try:
                    data, fds, flags, _ = socket.recv_fds(connection, FIRST_READ_BYTES, PASSED_FDS, _MSG_CMSG_CLOEXEC)
                except BlockingIOError:
                    continue
                except OSError:
                    return []  # the pump reads the same error, as EOF
                break
            now = time.monotonic()
            if self._heartbeat_s > 0 and now >= beat_at + self._heartbeat_s:
                beat_at = now
                try:
                    connection.send(HEARTBEAT)
                except OSError:
                    pass  # gone or not reading: the pump finds out
        if not data.startswith(FDS_RECORD):
            for fd in fds:  # descriptors nobody announced: not ours to keep
                os.close(fd)
            pump.preload(data)  # a byte-stream session's first bytes (b"": EOF, read again)
            return []
        rest = data[len(FDS_RECORD) :]
        if len(fds) != PASSED_FDS or flags & socket.MSG_CTRUNC:
            for fd in fds:
                os.close(fd)
            log.warning(
                "%s: the proxy's descriptors did not arrive (%d of %d; out of descriptors?): copying bytes instead",
                pump.name, len(fds), PASSED_FDS,
            )  # fmt: skip
            connection.setblocking(True)
            connection.settimeout(HELLO_SEND_S)
            connection.sendall(COPY_RECORD)
            connection.setblocking(False)
            pump.preload(rest)
            return []
        in_fd, client_out = fds
        if not os.isatty(client_out):
            os.set_blocking(client_out, False)  # the client's stdout: the proxy made it so already
        reader = ControlReader()

        def on_control(chunk: bytes) -> None:
            if not chunk:  # the proxy is gone (killed, or it gave up): nobody waits for this session
                log.info("%s: the proxy left; dropping the session at once", pump.name)
                pump.request_stop("the proxy left")
                pump.request_stop("the proxy left")  # a second stop: at once
                return
            for record in reader.feed(chunk):
                if record.startswith(STOP_RECORD) and record.endswith(b"\n"):
                    reason = record[len(STOP_RECORD) :].strip().decode("ascii", "replace") or "stop"
                    pump.request_stop(f"{reason} to the proxy")
                else:
                    log.warning("%s: unknown control record from the proxy dropped: %r", pump.name, record)

        pump.rebind(in_fd=in_fd, out_fd=client_out, control_fd=connection.fileno(), on_control=on_control)
        if rest:
            on_control(rest)
        with self._lock:
            self.passed += 1
        log.info("%s: serving the client's own descriptors", pump.name)
        return [in_fd, client_out]

    # --- stopping ----------------------------------------------------------------------------

    def _drain(self, reason: str) -> int:
        # Only this thread accepts: once the listener is closed, no session is added.
        self._listener.close()
        with self._lock:
            pumps = list(self._pumps.values())
        log.info("%s: stopping; draining %d session(s)", reason, len(pumps))
        for pump, _ in pumps:
            pump.request_stop(reason)
        deadline = time.monotonic() + self._grace_s + FLUSH_S_MAX + 1.0
        seen = len(self._stops)
        for pump, thread in pumps:
            while thread.is_alive():
                thread.join(0.05)
                if len(self._stops) > seen:
                    log.warning("second stop request (%s): exiting now", self._stops[-1])
                    return 0
                if time.monotonic() > deadline:
                    log.warning("a session did not end in time: exiting without it")
                    return 0
        return 0

    def _wake(self) -> None:
        with self._lock:
            if self._wake_w < 0:
                return  # closed: the daemon is done
            try:
                os.write(self._wake_w, b"\0")
            except BlockingIOError:
                pass  # full of wake-ups already: the loop will run
