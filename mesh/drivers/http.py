"""The Streamable HTTP driver: ``mesh-mcp http`` serves MCP on one HTTP endpoint, ``/mcp``.

Theory of operation
-------------------
One thread, the **loop**, owns every socket: the listener, each client connection (an
``h11.Connection``: HTTP/1.1 parsed and written by h11, a sans-IO library, the loop doing all the
I/O), each session's line stream and a wake-up pipe. It sleeps in a ``selectors`` wait whose
timeout is the nearest deadline (a request too slow to arrive, an idle connection, a client not
reading, a keep-alive, a session idle too long, the end of a stop's grace period).

Requests go through three gates. On its head alone (``_http_rules.gate``): Host and ``Origin``
(DNS rebinding: 403), the bearer token (401), the path (404), the method (405), a declared body
over the frame bound (413), and a stop in progress (503): such a request is answered at once and
its body never read. The body is counted as it streams in (413 past the bound, without holding
more than the bound). Then the :class:`~._http_endpoint.Endpoint` decides what the request is,
in which era, for which session, and refuses what no session should see (400, 404, 406, 409, 415).
h11 rejects malformed HTTP itself (400, 431 for a head over 16 KiB). None of this reaches a tool,
and every other client is served meanwhile.

Sessions are the sans-IO :class:`~mesh.protocol.ServerSession` as every driver runs it, in a
:class:`~._pump.ConnectionPump`, reached through a line stream (a :class:`_Link`):

* :class:`LocalSessions`: a pump per session on a thread of its own, over a socket pair, with the
  tools and index of this process (``--standalone``, or no daemon);
* :class:`DaemonSessions`: a connection to the workspace's daemon per session, as ``mesh-mcp mcp``
  makes (the daemon starts when none runs): every session shares the daemon's live index. One
  more connection, sending nothing, keeps the daemon from idling out while this server runs.

A handshake-era session is one link for its life; a stateless request gets a link of its own,
ended once it has answered.

Stop (SIGTERM, SIGINT): the listener closes, new requests get 503, GET streams end, local
sessions stop as stdio does (running calls cancelled and answered, calls not yet started refused)
and daemon sessions get the end of their input; :meth:`HttpServer.run` returns once every request
already accepted is answered, at most ``grace_s`` later: 0, or 1 when a request was still waiting
at the end of the grace (or a session abandoned a running call). A second signal returns at once.
"""

from __future__ import annotations

import errno
import itertools
import logging
import os
import secrets
import selectors
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from http import HTTPStatus
from pathlib import Path
from typing import Any, Final, Protocol

import attrs
import h11

from ..audit import AuditLog
from ..protocol import ServerSession, SessionConfig, ToolSpec
from ..tools import Registry
from ._client_log import install as install_client_log
from ._http_endpoint import Endpoint, EndpointConfig, HttpRequest
from ._http_rules import JSON_HEADERS, HeaderView, Policy, Refusal, error_body, gate
from ._pump import ConnectionPump
from ._wake import drain_pipe, wake_pipe
from ._workers import WorkerPool
from .proxy import DaemonUnavailable, _Relay, open_daemon
from .stdio import catalogue

__all__ = ["DaemonSessions", "HttpLimits", "HttpServer", "LocalSessions", "SessionHost", "listen"]

log = logging.getLogger("mesh.http")

READ_BYTES: Final = 64 * 1024
#: A frame a session writes longer than this breaks its link (the tools' answers are 48 KB).
LINE_BYTES_MAX: Final = 64 * 1024 * 1024
#: After an early answer, how long the unread rest of a request is drained before the close (so
#: the answer is not lost to a reset), and at most how much of it.
LINGER_S: Final = 1.0
LINGER_BYTES_MAX: Final = 1024 * 1024
#: After a failed ``accept`` (out of descriptors), how long the listener is left alone.
ACCEPT_RETRY_S: Final = 0.1
_BUSY_BODY: Final = error_body(-32603, "too many connections; try again shortly")
_BUSY: Final = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nconnection: close\r\n"
    + f"content-length: {len(_BUSY_BODY)}\r\n\r\n".encode()
    + _BUSY_BODY
)


@attrs.frozen
class HttpLimits:
    """Every bound of the HTTP server; each is checked when the limits are built."""

    #: Client connections at once; one more is answered 503 and closed.
    connections_max: int = attrs.field(default=256, validator=attrs.validators.ge(1))
    #: A request body longer than this is 413 (the session's frame bound, 1 MiB).
    body_bytes_max: int = attrs.field(default=1 << 20, validator=attrs.validators.ge(1))
    #: A request head longer than this is 431 (h11's bound on an incomplete event).
    head_bytes_max: int = attrs.field(default=16 * 1024, validator=attrs.validators.ge(1024))
    #: A request must arrive whole (head and body) within this of its first byte: else 408.
    request_s: float = attrs.field(default=10.0, validator=attrs.validators.gt(0))
    #: A connection waiting for its next request is closed after this long.
    idle_s: float = attrs.field(default=60.0, validator=attrs.validators.gt(0))
    #: A client that takes nothing of its waiting output for this long is dropped.
    write_s: float = attrs.field(default=30.0, validator=attrs.validators.gt(0))
    #: Unread output past which a stream's notifications and keep-alives are dropped (an answer
    #: never is).
    out_bytes_max: int = attrs.field(default=1 << 20, validator=attrs.validators.ge(1))
    #: After a stop request, how long requests already accepted have to be answered.
    grace_s: float = attrs.field(default=5.0, validator=attrs.validators.ge(0))


class SessionHost(Protocol):
    """Where sessions run (see :class:`LocalSessions`, :class:`DaemonSessions`)."""

    #: Sessions that gave up on a running call at a stop (their answers are lost).
    abandoned: int

    def open(self, kind: str, done: Callable[[socket.socket | None, bytes, str], None]) -> None:
        """Start a session (``kind``: "session" or "stateless"); ``done(sock, leftover, why)``
        follows, on any thread: the socket of its line stream (and bytes already read from it),
        or None and why it could not start."""

    def stop(self, reason: str) -> None:
        """The server is stopping: running calls should end soon."""

    def close(self) -> None: ...


# --- where sessions run ----------------------------------------------------------------------


class LocalSessions:
    """Sessions in this process: a :class:`ConnectionPump` per session over a socket pair, on a
    thread of its own with up to ``workers`` tool threads, like each connection of the daemon."""

    def __init__(
        self,
        *,
        registry: Registry,
        workspace: Path,
        config: SessionConfig,
        audit: AuditLog | None = None,
        workers: int = 4,
        shutdown_grace_s: float = 5.0,
    ) -> None:
        self._registry = registry
        self._workspace = workspace
        self._config = config
        self._specs: tuple[ToolSpec, ...] = tuple(catalogue(registry))
        self._audit = audit
        self._workers = workers
        self._grace_s = shutdown_grace_s
        #: The server's warnings and errors, for every session that asks for them (as the daemon does).
        self._client_log = install_client_log()
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self._pumps: dict[int, tuple[ConnectionPump, threading.Thread]] = {}
        self._stopping = False
        self.abandoned = 0

    def open(self, kind: str, done: Callable[[socket.socket | None, bytes, str], None]) -> None:
        number = next(self._numbers)
        label = f"http-{os.getpid()}-{number}"
        try:
            ours, theirs = socket.socketpair()
        except OSError as exc:
            done(None, b"", f"cannot start a session ({exc})")
            return
        theirs.setblocking(False)
        try:
            out_fd = os.dup(theirs.fileno())
            pool = WorkerPool(self._workers, name=f"mesh-http-tool-{number}")
            pump = ConnectionPump(
                session=ServerSession(self._config, self._specs),
                registry=self._registry,
                workspace=self._workspace,
                in_fd=theirs.fileno(),
                out_fd=out_fd,
                workers=pool,
                name=label,
                shutdown_grace_s=self._grace_s,
                audit=self._audit,
                session_id=label,
                client_log=self._client_log,
            )
        except OSError as exc:
            ours.close()
            theirs.close()
            done(None, b"", f"cannot start a session ({exc})")
            return
        thread = threading.Thread(
            target=self._serve,
            args=(number, pump, pool, theirs, out_fd),
            name=f"mesh-http-{kind}-{number}",
            daemon=True,
        )
        with self._lock:
            self._pumps[number] = (pump, thread)
            if self._stopping:
                pump.request_stop("stopping")
        thread.start()
        done(ours, b"", "")

    def _serve(self, number: int, pump: ConnectionPump, pool: WorkerPool, theirs: socket.socket, out_fd: int) -> None:
        code = 1
        try:
            code = pump.run()
        except Exception:  # one broken session must not take the others down
            log.exception("%s: session failed", pump.name)
        finally:
            pump.close()
            pool.shutdown()
            os.close(out_fd)
            theirs.close()
            with self._lock:
                del self._pumps[number]
                if code and pump.abandoned:
                    self.abandoned += 1
        log.debug("%s: closed (exit %d)", pump.name, code)

    def stop(self, reason: str) -> None:
        with self._lock:
            self._stopping = True
            pumps = [pump for pump, _ in self._pumps.values()]
        for pump in pumps:
            pump.request_stop(reason)

    def close(self, timeout_s: float = 1.0) -> None:
        """Wait a little for the sessions' threads (they are daemon threads: none holds the exit)."""
        deadline = time.monotonic() + timeout_s
        with self._lock:
            threads = [thread for _, thread in self._pumps.values()]
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))


class DaemonSessions:
    """Sessions of the workspace's daemon (``meshd``): one connection per session, opened on a
    connector thread (a daemon starting takes seconds), so every session shares its live index."""

    def __init__(self, workspace: Path, keepalive: Any | None = None, *, environ: dict[str, str] | None = None) -> None:
        """``keepalive``: a daemon link (``proxy.open_daemon``) held open, sending nothing, so the
        daemon never finds itself without a client while this server runs."""
        self._workspace = workspace
        self._environ = environ
        self._connectors = WorkerPool(4, name="mesh-http-connect")
        self.abandoned = 0
        self._keepalive = keepalive
        if keepalive is not None:
            threading.Thread(target=self._hold, args=(keepalive,), name="mesh-http-keepalive", daemon=True).start()

    def open(self, kind: str, done: Callable[[socket.socket | None, bytes, str], None]) -> None:
        self._connectors.submit(self._connect, done)

    def _connect(self, done: Callable[[socket.socket | None, bytes, str], None]) -> None:
        try:
            link = open_daemon(self._workspace, environ=self._environ)
        except DaemonUnavailable as exc:
            log.error("cannot open a session on the workspace's daemon: %s", exc)
            done(None, b"", str(exc))
            return
        except Exception as exc:  # a connector thread must always answer
            log.exception("cannot open a session on the workspace's daemon")
            done(None, b"", f"{type(exc).__name__}: {exc}")
            return
        done(link.connection, link.leftover, "")

    def _hold(self, link: Any) -> None:
        connection = link.connection
        connection.settimeout(None)
        try:
            while connection.recv(READ_BYTES):
                pass  # heartbeats
        except OSError:
            pass
        log.warning(
            "meshd (pid %d) closed this server's keep-alive connection; sessions start it again when needed. "
            "Daemon log: %s",
            link.hello.pid,
            link.hello.log,
        )

    def stop(self, reason: str) -> None:
        pass  # the daemon's sessions get the end of their input from the endpoint

    def close(self) -> None:
        self._connectors.shutdown()
        if self._keepalive is not None:
            try:
                self._keepalive.connection.close()
            except OSError:
                pass


# --- what the loop holds ---------------------------------------------------------------------


class _Link:
    """One session's line stream, as the endpoint's ``Backend``."""

    __slots__ = ("closed", "ended", "kind", "out", "partial", "relay", "server", "shut", "sock")

    def __init__(self, server: HttpServer, kind: str) -> None:
        self.server = server
        self.kind = kind
        self.sock: socket.socket | None = None
        self.out = bytearray()
        self.partial = bytearray()
        self.relay = _Relay()  # a daemon's heartbeats and end marker are no frames
        self.ended = False
        self.shut = False
        self.closed = False

    def send(self, line: bytes) -> None:
        if not self.closed and not self.ended:
            self.out += line
            self.server._dirty_links[self] = None

    def end(self) -> None:
        if not self.ended:
            self.ended = True
            self.server._dirty_links[self] = None


class _Conn:
    """One client connection."""

    __slots__ = (
        "body",
        "closing",
        "h11",
        "head",
        "headers",
        "held",
        "idle_at",
        "linger_at",
        "linger_bytes",
        "out",
        "reply",
        "sock",
        "started_at",
        "write_at",
    )

    def __init__(self, sock: socket.socket, limits: HttpLimits, now: float) -> None:
        self.sock = sock
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=limits.head_bytes_max)
        self.out = bytearray()
        self.head: h11.Request | None = None
        self.headers: tuple[tuple[str, str], ...] = ()
        self.body = bytearray()
        self.reply: _Reply | None = None
        #: First byte of the request being read (None between requests).
        self.started_at: float | None = None
        self.idle_at = now
        self.write_at = now
        self.closing = False
        #: The next request waits (and nothing is read) until the client takes its answers.
        self.held = False
        #: Set once the answer is out and the rest of the request is being drained before the close.
        self.linger_at: float | None = None
        self.linger_bytes = 0


class _Reply:
    """The endpoint's ``Sink`` for one request on one connection."""

    __slots__ = ("conn", "done", "server")

    def __init__(self, server: HttpServer, conn: _Conn) -> None:
        self.server = server
        self.conn = conn
        self.done = False

    def respond(self, status: int, headers: Any, body: bytes) -> None:
        if self.done:
            return
        self.done = True
        fields = [*headers, ("content-length", str(len(body)))]
        if self.server._stopping:
            fields.append(("connection", "close"))
        self.server._emit(self.conn, h11.Response(status_code=status, headers=fields, reason=_reason(status)))
        if body:
            self.server._emit(self.conn, h11.Data(data=body))
        self.server._emit(self.conn, h11.EndOfMessage())
        self.server._finished(self.conn, self)

    def start_stream(self, headers: Any) -> None:
        if not self.done:
            self.server._emit(self.conn, h11.Response(status_code=200, headers=list(headers), reason=b"OK"))

    def send(self, data: bytes, *, droppable: bool = False) -> None:
        if self.done:
            return
        if droppable and len(self.conn.out) > self.server._limits.out_bytes_max:
            self.server.dropped += 1
            return
        self.server._emit(self.conn, h11.Data(data=data))

    def end_stream(self) -> None:
        if self.done:
            return
        self.done = True
        self.server._emit(self.conn, h11.EndOfMessage())
        self.server._finished(self.conn, self)


# --- the server ------------------------------------------------------------------------------


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (0: any free port); ``OSError`` when it cannot."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        listener.bind(address)
        listener.listen(socket.SOMAXCONN)
    except OSError:
        listener.close()
        raise
    listener.setblocking(False)
    return listener


class HttpServer:
    """See the module docstring."""

    def __init__(
        self,
        *,
        listener: socket.socket,
        sessions: SessionHost,
        policy: Policy,
        limits: HttpLimits | None = None,
        endpoint: EndpointConfig | None = None,
        new_session_id: Callable[[], str] = lambda: secrets.token_urlsafe(32),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``new_session_id`` draws the ``Mcp-Session-Id`` of each handshake session: 256 random
        bits, the one value of this driver no seed decides (it appears in that header only)."""
        self._listener: socket.socket | None = listener
        self._host = sessions
        self._policy = policy
        self._limits = HttpLimits() if limits is None else limits
        self._clock = clock
        config = EndpointConfig() if endpoint is None else endpoint
        self._endpoint = Endpoint(config, open_backend=self._open_backend, new_session_id=new_session_id)
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = wake_pipe()
        self._wake_lock = threading.Lock()
        self._wake_closed = False
        self._conns: dict[int, _Conn] = {}
        self._links: dict[int, _Link] = {}
        self._masks: dict[int, int] = {}
        #: Objects whose output or state changed since the loop last looked (ordered: a dict).
        self._dirty_conns: dict[_Conn, None] = {}
        self._dirty_links: dict[_Link, None] = {}
        self._cycled: dict[_Conn, None] = {}
        #: Sessions that started (or failed to), from any thread: (link, socket, leftover, why).
        self._opened: deque[tuple[_Link, socket.socket | None, bytes, str]] = deque()
        self._stops: deque[str] = deque()
        self._stopping = False
        self._accept_at = 0.0
        #: Requests served, connections refused for the bound, notifications dropped for a slow client.
        self.served = 0
        self.busy = 0
        self.dropped = 0

    @property
    def address(self) -> tuple[Any, ...]:
        """The address the listener is bound to (its port, when 0 was asked for)."""
        assert self._listener is not None
        return self._listener.getsockname()

    @property
    def wake_fd(self) -> int:
        """The write end of the wake-up pipe (for ``signal.set_wakeup_fd``)."""
        return self._wake_w

    def request_stop(self, reason: str) -> None:
        """Thread- and signal-safe: stop accepting, answer what was accepted, return."""
        self._stops.append(reason)
        self._wake()

    def run(self) -> int:
        """Serve until stopped; the exit code (see the module docstring)."""
        assert self._listener is not None
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._interest(self._listener, selectors.EVENT_READ)
        grace_at: float | None = None
        handled_stops = 0
        try:
            while True:
                timeout = self._timeout(grace_at)
                events = self._selector.select(timeout)
                now = self._clock()
                for key, mask in events:
                    fd = key.fd
                    if fd == self._wake_r:
                        drain_pipe(self._wake_r)
                    elif self._listener is not None and fd == self._listener.fileno():
                        self._accept(now)
                    elif fd in self._conns:
                        self._conn_event(self._conns[fd], mask, now)
                    elif fd in self._links:
                        self._link_event(self._links[fd], mask, now)
                while self._opened:
                    self._attach(*self._opened.popleft(), now)
                if self._listener is not None and self._accept_at and now >= self._accept_at:
                    self._accept_at = 0.0
                    self._interest(self._listener, selectors.EVENT_READ)  # try accepting again
                while handled_stops < len(self._stops):
                    reason = self._stops[handled_stops]
                    handled_stops += 1
                    if self._stopping:
                        log.warning("second stop request (%s): exiting now", reason)
                        return self._give_up()
                    grace_at = now + self._limits.grace_s
                    self._begin_stop(reason, now)
                due = self._endpoint.next_deadline()
                if due is not None and now >= due:
                    self._endpoint.tick(now)
                self._check_conns(now)
                self._flush(now)
                if self._stopping:
                    if not self._endpoint.waiting and not any(conn.out for conn in self._conns.values()):
                        log.info("stopped: every request accepted was answered")
                        return 1 if self._host.abandoned else 0
                    if grace_at is not None and now >= grace_at:
                        return self._give_up()
        finally:
            self._finish()

    # --- the loop's steps --------------------------------------------------------------------

    def _timeout(self, grace_at: float | None) -> float | None:
        now = self._clock()
        due = [grace_at] if grace_at is not None else []
        endpoint_due = self._endpoint.next_deadline()
        if endpoint_due is not None:
            due.append(endpoint_due)
        for conn in self._conns.values():
            due.append(self._conn_deadline(conn))
        if self._listener is not None and self._accept_at > now:
            due.append(self._accept_at)
        if not due:
            return None
        return max(0.0, min(due) - now) + 0.001

    def _conn_deadline(self, conn: _Conn) -> float:
        limits = self._limits
        deadlines = []
        if conn.linger_at is not None:
            deadlines.append(conn.linger_at)
        elif conn.reply is None and not conn.held:
            if conn.started_at is not None:
                deadlines.append(conn.started_at + limits.request_s)
            else:
                deadlines.append(conn.idle_at + limits.idle_s)
        if conn.out:
            deadlines.append(conn.write_at + limits.write_s)
        return min(deadlines) if deadlines else float("inf")

    def _accept(self, now: float) -> None:
        assert self._listener is not None
        while True:
            try:
                sock, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # out of descriptors: the connection waits in the backlog
                log.warning("accept failed: %s", exc)
                self._accept_at = now + ACCEPT_RETRY_S
                self._interest(self._listener, 0)
                return
            if len(self._conns) >= self._limits.connections_max:
                self.busy += 1
                try:
                    sock.setblocking(False)
                    sock.send(_BUSY)
                except OSError:
                    pass
                sock.close()
                continue
            sock.setblocking(False)
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = _Conn(sock, self._limits, now)
            self._conns[sock.fileno()] = conn
            self._dirty_conns[conn] = None

    def _conn_event(self, conn: _Conn, mask: int, now: float) -> None:
        if mask & selectors.EVENT_WRITE:
            self._dirty_conns[conn] = None  # flushed below
        if not mask & selectors.EVENT_READ:
            return
        try:
            data = conn.sock.recv(READ_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if conn.linger_at is not None:
            conn.linger_bytes += len(data)
            if not data or conn.linger_bytes > LINGER_BYTES_MAX:
                self._close(conn, now)
            return
        if conn.reply is not None:
            # The request is whole and waits for its answer: a close now is the client leaving.
            if not data:
                self._close(conn, now)
                return
            conn.h11.receive_data(data)  # a pipelined request: read once this one is answered
            if len(conn.h11.trailing_data[0]) > self._limits.body_bytes_max + self._limits.head_bytes_max:
                log.info("a client sent more than a request ahead while waiting for an answer; dropping it")
                self._close(conn, now)
            return
        if data and conn.started_at is None:
            conn.started_at = now
        try:
            conn.h11.receive_data(data)
        except RuntimeError:  # data after their EOF: nothing more to read
            self._close(conn, now)
            return
        self._process(conn, now)

    def _process(self, conn: _Conn, now: float) -> None:
        """Take the events h11 has for ``conn`` until a request is whole (or more data is needed)."""
        while conn.reply is None and not conn.closing:
            try:
                event = conn.h11.next_event()
            except h11.RemoteProtocolError as exc:
                status = exc.error_status_hint if 400 <= exc.error_status_hint < 600 else 400
                self._refuse(conn, Refusal(status, f"bad request: {exc}"))
                return
            if event is h11.NEED_DATA or event is h11.PAUSED:
                return
            if isinstance(event, h11.Request):
                if conn.started_at is None:
                    conn.started_at = now
                self._head(conn, event)
            elif isinstance(event, h11.Data):
                conn.body += event.data
                if len(conn.body) > self._limits.body_bytes_max:
                    self._refuse(conn, _too_large(self._limits))
                    return
            elif isinstance(event, h11.EndOfMessage):
                self._dispatch(conn, now)
            elif isinstance(event, h11.ConnectionClosed):
                self._close(conn, now)
                return

    def _head(self, conn: _Conn, head: h11.Request) -> None:
        headers = tuple((name.decode("latin-1"), value.decode("latin-1")) for name, value in head.headers)
        conn.head, conn.headers, conn.body = head, headers, bytearray()
        method = head.method.decode("ascii", "replace")
        target = head.target.decode("latin-1")
        view = HeaderView(headers)
        size = len(head.target) + sum(len(name) + len(value) + 4 for name, value in head.headers)
        try:
            if size > self._limits.head_bytes_max:  # h11 bounds only a head still incomplete
                raise Refusal(
                    431, f"request header fields too large: a head is at most {self._limits.head_bytes_max} bytes"
                )
            refusal = gate(method, target, view, self._policy)
        except Refusal as refused:  # too large, or a header that may appear once appears twice
            refusal = refused
        if refusal is None and self._stopping:
            refusal = Refusal(503, "the server is shutting down; send the request again once it restarts", code=-32603)
        if refusal is None:
            length = view.get("content-length")
            if length is not None and length.isdigit() and int(length) > self._limits.body_bytes_max:
                refusal = _too_large(self._limits)
        if refusal is not None:
            self._refuse(conn, refusal)
            return
        if conn.h11.they_are_waiting_for_100_continue:
            self._emit(conn, h11.InformationalResponse(status_code=100, headers=[], reason=b"Continue"))

    def _dispatch(self, conn: _Conn, now: float) -> None:
        head = conn.head
        assert head is not None
        request = HttpRequest(
            head.method.decode("ascii", "replace"), head.target.decode("latin-1"), conn.headers, bytes(conn.body)
        )
        conn.head, conn.body, conn.started_at = None, bytearray(), None
        conn.reply = _Reply(self, conn)
        self.served += 1
        self._endpoint.handle(request, conn.reply, now)

    def _refuse(self, conn: _Conn, refusal: Refusal) -> None:
        """Answer ``conn``'s request at the HTTP layer, then close the connection (its body, if
        any, is never read)."""
        if conn.h11.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            conn.closing = True
            self._dirty_conns[conn] = None
            return
        body = refusal.body()
        headers = [*JSON_HEADERS, *refusal.headers, ("content-length", str(len(body))), ("connection", "close")]
        try:
            self._emit(conn, h11.Response(status_code=refusal.status, headers=headers, reason=_reason(refusal.status)))
            self._emit(conn, h11.Data(data=body))
            self._emit(conn, h11.EndOfMessage())
        except h11.LocalProtocolError:
            pass
        conn.closing = True
        conn.reply = None
        self._dirty_conns[conn] = None

    def _emit(self, conn: _Conn, event: Any) -> None:
        if conn.closing and conn.linger_at is not None:
            return
        try:
            data = conn.h11.send(event)
        except h11.LocalProtocolError:
            log.exception("cannot write to a client connection; closing it")
            conn.closing = True
            data = None
        if data:
            if not conn.out:
                conn.write_at = self._clock()
            conn.out += data
        self._dirty_conns[conn] = None

    def _finished(self, conn: _Conn, reply: _Reply) -> None:
        """A response is complete: the connection goes on to the next request, or closes."""
        if conn.reply is reply:
            conn.reply = None
            self._cycled[conn] = None

    def _check_conns(self, now: float) -> None:
        limits = self._limits
        for conn in list(self._conns.values()):
            if conn.out and now - conn.write_at >= limits.write_s:
                log.info("a client took none of its answer for %.0f s; dropping it", limits.write_s)
                self._close(conn, now)
            elif conn.linger_at is not None:
                if now >= conn.linger_at:
                    self._close(conn, now)
            elif conn.reply is None and not conn.closing and not conn.held:
                if conn.started_at is not None and now - conn.started_at >= limits.request_s:
                    self._refuse(
                        conn, Refusal(408, f"request timeout: a request must arrive within {limits.request_s:g} s")
                    )
                elif conn.started_at is None and now - conn.idle_at >= limits.idle_s:
                    self._close(conn, now)

    def _flush(self, now: float) -> None:
        """Write what waits, start the next request of connections whose answer is out, and
        bring every watched descriptor's interest up to date."""
        while self._dirty_links or self._dirty_conns or self._cycled:
            while self._cycled:
                conn, _ = self._cycled.popitem()
                self._next_cycle(conn, now)
            while self._dirty_links:
                link, _ = self._dirty_links.popitem()
                self._write_link(link, now)
            while self._dirty_conns:
                conn, _ = self._dirty_conns.popitem()
                self._write_conn(conn, now)

    def _next_cycle(self, conn: _Conn, now: float) -> None:
        if conn.sock.fileno() not in self._conns or conn.reply is not None:
            return
        conn.held = len(conn.out) > self._limits.out_bytes_max
        if conn.held:
            self._dirty_conns[conn] = None  # nothing more is read from it either
            return  # a client that does not read its answers gets no more of them (INV-HTTP-5)
        if conn.h11.our_state is h11.DONE and conn.h11.their_state is h11.DONE and not self._stopping:
            conn.h11.start_next_cycle()
            conn.idle_at = now
            if conn.h11.trailing_data[0]:
                conn.started_at = now
            self._process(conn, now)
        elif conn.h11.our_state in (h11.MUST_CLOSE, h11.DONE, h11.CLOSED) or conn.h11.their_state is h11.ERROR:
            conn.closing = True
        self._dirty_conns[conn] = None

    def _write_conn(self, conn: _Conn, now: float) -> None:
        fd = conn.sock.fileno()
        if fd not in self._conns:
            return
        if conn.out:
            try:
                sent = conn.sock.send(conn.out)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError:
                self._close(conn, now)
                return
            if sent:
                del conn.out[:sent]
                conn.write_at = now
                if conn.held and len(conn.out) <= self._limits.out_bytes_max:
                    conn.held = False
                    self._cycled[conn] = None  # it took enough: on to its next request
        if conn.closing and not conn.out and conn.linger_at is None:
            try:
                conn.sock.shutdown(socket.SHUT_WR)  # the answer is out; drain their rest, then close
            except OSError:
                self._close(conn, now)
                return
            conn.linger_at = now + LINGER_S
        mask = selectors.EVENT_WRITE if conn.out else 0
        if conn.linger_at is not None or conn.reply is not None or not (conn.closing or conn.held):
            mask |= selectors.EVENT_READ
        self._interest(conn.sock, mask)

    def _close(self, conn: _Conn, now: float) -> None:
        fd = conn.sock.fileno()
        if self._conns.pop(fd, None) is None:
            return
        self._interest(conn.sock, 0)
        self._masks.pop(fd, None)
        conn.sock.close()
        self._dirty_conns.pop(conn, None)
        self._cycled.pop(conn, None)
        reply, conn.reply = conn.reply, None
        if reply is not None and not reply.done:
            reply.done = True
            self._endpoint.sink_closed(reply, now)

    # --- session links -----------------------------------------------------------------------

    def _open_backend(self, kind: str) -> _Link:
        link = _Link(self, kind)

        def done(sock: socket.socket | None, leftover: bytes, why: str) -> None:
            self._opened.append((link, sock, leftover, why))
            self._wake()

        self._host.open(kind, done)
        return link

    def _attach(self, link: _Link, sock: socket.socket | None, leftover: bytes, why: str, now: float) -> None:
        if sock is None:
            link.closed = True
            log.warning("a session could not start: %s", why)
            self._endpoint.backend_lost(link, now)
            return
        sock.setblocking(False)
        link.sock = sock
        self._links[sock.fileno()] = link
        if leftover:
            self._frames(link, leftover, now)
        self._dirty_links[link] = None

    def _link_event(self, link: _Link, mask: int, now: float) -> None:
        if mask & selectors.EVENT_WRITE:
            self._dirty_links[link] = None
        if not mask & selectors.EVENT_READ or link.sock is None:
            return
        try:
            data = link.sock.recv(READ_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._drop_link(link, now)
            return
        self._frames(link, data, now)

    def _frames(self, link: _Link, data: bytes, now: float) -> None:
        link.partial += link.relay.feed(data)
        if b"\n" not in link.partial:
            if len(link.partial) > LINE_BYTES_MAX:
                log.error("a session wrote a frame over %d bytes; closing it", LINE_BYTES_MAX)
                self._drop_link(link, now)
            return
        *lines, rest = bytes(link.partial).split(b"\n")
        link.partial = bytearray(rest)
        for line in lines:
            if line.strip():
                self._endpoint.frame(link, line, now)

    def _write_link(self, link: _Link, now: float) -> None:
        sock = link.sock
        if sock is None or link.closed:
            return
        if link.out:
            try:
                sent = sock.send(link.out)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError as exc:
                if exc.errno not in (errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN):
                    log.warning("writing to a session failed: %s", exc)
                self._drop_link(link, now)
                return
            del link.out[:sent]
        if link.ended and not link.out and not link.shut:
            link.shut = True
            try:
                sock.shutdown(socket.SHUT_WR)  # the session answers what it has, then closes
            except OSError:
                pass
        self._interest(sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if link.out else 0))

    def _drop_link(self, link: _Link, now: float) -> None:
        if link.closed:
            return
        link.closed = True
        if link.sock is not None:
            self._links.pop(link.sock.fileno(), None)
            self._interest(link.sock, 0)
            self._masks.pop(link.sock.fileno(), None)
            link.sock.close()
        self._dirty_links.pop(link, None)
        self._endpoint.backend_lost(link, now)

    # --- stopping ----------------------------------------------------------------------------

    def _begin_stop(self, reason: str, now: float) -> None:
        self._stopping = True
        waiting = self._endpoint.waiting
        log.info("%s: stopping; %d request(s) waiting for their answer", reason, waiting)
        if self._listener is not None:
            self._interest(self._listener, 0)
            self._listener.close()
            self._listener = None
        self._endpoint.stop()
        self._host.stop(reason)
        for conn in list(self._conns.values()):
            if conn.reply is None and not conn.out and conn.linger_at is None:
                self._close(conn, now)  # between requests, or still sending one: nothing is owed

    def _give_up(self) -> int:
        """Return without what is still owed: 1 when that loses an answer (a request still waiting,
        or an answer its client has not taken), so a loss never looks like success."""
        waiting = self._endpoint.waiting
        unread = sum(1 for conn in self._conns.values() if conn.out)
        if waiting:
            log.warning("%d request(s) still waiting at the end of the grace period: their answers are lost", waiting)
        if unread:
            log.warning("%d client(s) did not take their answers in time: those answers are lost", unread)
        return 1 if waiting or unread or self._host.abandoned else 0

    def _finish(self) -> None:
        self._endpoint.end_all()
        now = self._clock()
        for link in list(self._dirty_links):
            self._write_link(link, now)
        for conn in list(self._conns.values()):
            if conn.out:
                try:
                    conn.sock.send(conn.out)
                except OSError:
                    pass
            conn.sock.close()
        self._conns.clear()
        for link in list(self._links.values()):
            if link.sock is not None:
                link.sock.close()
        self._links.clear()
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        self._selector.close()
        with self._wake_lock:
            self._wake_closed = True
            for fd in (self._wake_r, self._wake_w):
                os.close(fd)

    # --- helpers -----------------------------------------------------------------------------

    def _interest(self, sock: socket.socket, mask: int) -> None:
        fd = sock.fileno()
        if fd < 0:
            return
        current = self._masks.get(fd, 0)
        if mask == current:
            return
        if mask == 0:
            self._selector.unregister(fd)
            self._masks.pop(fd, None)
        elif current == 0:
            self._selector.register(fd, mask, None)
            self._masks[fd] = mask
        else:
            self._selector.modify(fd, mask, None)
            self._masks[fd] = mask

    def _wake(self) -> None:
        with self._wake_lock:
            if self._wake_closed:
                return
            try:
                os.write(self._wake_w, b"\0")
            except BlockingIOError:
                pass  # full of wake-ups already: the loop will run


def _reason(status: int) -> bytes:
    try:
        return HTTPStatus(status).phrase.encode("ascii")
    except ValueError:
        return b""


def _too_large(limits: HttpLimits) -> Refusal:
    return Refusal(413, f"payload too large: a request body is at most {limits.body_bytes_max} bytes")
