"""The MCP endpoint of Streamable HTTP: which session a request belongs to, where each answer goes.

Theory of operation
-------------------
Sessions run elsewhere. Each is a :class:`Backend`: a stream of newline-terminated frames to and
from one :class:`mesh.protocol.ServerSession` (a ``ConnectionPump`` over a socket pair in this
process, or a session of the workspace's daemon, ``mesh/drivers/http.py``). The endpoint hands a
session one POST body as one line and routes every line that comes back, by its JSON-RPC id, to
the HTTP exchange waiting for it. It answers nothing a session would answer; it refuses, at the
HTTP layer, what would never reach one (:class:`~._http_rules.Refusal`).

Two eras, told apart per request (2026-07-28 transport page, "Backward Compatibility"):

* **handshake** (2024-11-05 ... 2025-11-25): a POST of ``initialize`` without ``Mcp-Session-Id``
  opens a *conversation*, a backend of its own; its answer carries a fresh, unguessable session
  id, required on every later request (missing: 400; unknown or ended: 404). A GET opens the
  conversation's one SSE stream for messages that belong to no request; DELETE ends it. Within a
  conversation, requests are routed by id, so the endpoint refuses what would make an answer
  ambiguous: an id already waiting for its answer, a batch outside 2025-03-26 (400).
* **stateless** (2026-07-28; the ``MCP-Protocol-Version`` header names it, or the body carries
  the ``_meta`` envelope): the mirrored headers must match the body (``-32020``,
  ``HeaderMismatch``), then the request gets a backend of its own, ended as soon as it has
  answered. Nothing outlives the request, so any replica can answer any request; closing the
  response stream cancels the call. GET and DELETE are 405.

An answer goes out as ``application/json`` (200; in the stateless era the status of its error:
400, or 404 for an unknown method) unless a notification for the request comes first or the
answer takes longer than ``keepalive_s``: then the exchange becomes an SSE stream (200,
``text/event-stream``), kept alive by comments, ending with the answer. A client that takes only
one of the two gets only that one.

Cancellation in the handshake era is the client's ``notifications/cancelled``: the session drops
the call's answer, so the endpoint ends the exchange with an empty stream and holds the id until
a ``ping`` sent behind the cancellation comes back (a *barrier*: any answer the call gave before
the cancellation arrives first), so that a late answer never reaches a request reusing the id. A
client that disconnects cancels nothing (2025-11-25: "Disconnection SHOULD NOT be interpreted as
the client cancelling its request"); its answer is dropped when it comes.

No clock is read here: every entry point takes ``now`` (monotonic seconds) from the driver, and
:meth:`Endpoint.next_deadline` says when :meth:`Endpoint.tick` is due.
"""

from __future__ import annotations

import itertools
import logging
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

import attrs
import orjson

from ..protocol import HANDSHAKE_VERSIONS, MODERN_VERSIONS, ErrorCode
from ._http_rules import (
    ALL_VERSIONS,
    HEADER_MISMATCH,
    JSON_HEADERS,
    METHOD_HEADER,
    NAME_HEADER,
    SESSION_HEADER,
    SSE_HEADERS,
    SSE_KEEPALIVE,
    VERSION_HEADER,
    HeaderView,
    Refusal,
    accepts,
    decode_header_value,
    error_body,
    is_json,
    sse_event,
    stateless_status,
)

__all__ = ["Backend", "Endpoint", "EndpointConfig", "HttpRequest", "Sink"]

log = logging.getLogger("mesh.http")

PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
#: JSON-RPC batches exist in 2025-03-26 only (the session refuses them elsewhere, with no id to
#: route the refusal by, so the endpoint refuses them first).
_BATCH_VERSIONS: Final = frozenset({"2025-03-26"})
#: 2026-07-28: the body parameter each method mirrors into ``Mcp-Name``.
_NAME_PARAM: Final = {"tools/call": "name", "resources/read": "uri", "prompts/get": "name"}
_ID_TYPES: Final = (str, int)
_ABSENT: Final = object()
#: Newest first, as an unsupported-version error lists them.
_SUPPORTED: Final = list(MODERN_VERSIONS) + list(reversed(HANDSHAKE_VERSIONS))
_SHUTTING_DOWN: Final = "the server is shutting down; send the request again once it restarts"
#: Messages of a session with no GET stream open, kept for the stream the client may open next.
_BACKLOG_MAX: Final = 16
_INF: Final = float("inf")


@attrs.frozen
class HttpRequest:
    """One whole HTTP request: headers by lower-case name, in the order they came."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...]
    body: bytes = b""


class Sink(Protocol):
    """Where one HTTP response goes: whole, or as a stream of bytes (the driver frames it)."""

    def respond(self, status: int, headers: Sequence[tuple[str, str]], body: bytes) -> None: ...

    def start_stream(self, headers: Sequence[tuple[str, str]]) -> None: ...

    def send(self, data: bytes, *, droppable: bool = False) -> None:
        """Stream bytes; ``droppable`` ones (notifications, keep-alives) may be dropped for a
        client whose unread output is past the driver's bound."""

    def end_stream(self) -> None: ...


class Backend(Protocol):
    """One MCP session: frames in (:meth:`send`), frames out (``Endpoint.frame``)."""

    def send(self, line: bytes) -> None: ...

    def end(self) -> None:
        """No more input: the session answers what it has, then closes."""


@attrs.frozen
class EndpointConfig:
    #: Handshake-era sessions open at once; ``initialize`` past it is 503.
    sessions_max: int = 256
    #: Elements in one 2025-03-26 batch (the session's own bound).
    max_batch_items: int = 64
    #: An answer held back this long becomes an SSE stream; a stream's comment period.
    keepalive_s: float = 15.0
    #: A GET stream that carried no message for this long is ended (the client may open another).
    stream_idle_s: float = 300.0
    #: A session with no request, no waiting answer and no stream for this long is ended.
    session_idle_s: float = 3600.0


@attrs.define(eq=False)
class _Exchange:
    """An HTTP request waiting for its answer."""

    sink: Sink
    backend: Backend
    #: The request ids it waits for (a batch: all of them).
    ids: tuple[Any, ...]
    json_ok: bool
    sse_ok: bool
    #: When it becomes a stream, or sends its next keep-alive.
    due: float
    conversation: _Conversation | None = None
    streaming: bool = False
    #: Answering ``initialize``: a session id on success.
    initialize: bool = False
    #: A single ``tools/call``: a cancellation ends it.
    tool_call: bool = False
    token: Any = None
    #: Ids cancelled by the client (a batch ends once all are).
    cancelled: int = 0


@attrs.define(eq=False)
class _Stream:
    """A conversation's GET stream."""

    sink: Sink
    conversation: _Conversation
    due: float
    idle_at: float


@attrs.define(eq=False)
class _Barrier:
    """A ``ping`` sent behind a cancellation: its answer releases the cancelled ids."""

    released: list[Any]


#: An id whose exchange is gone (disconnected, cancelled): its answer is dropped when it comes.
_GONE: Final = object()


@attrs.define(eq=False)
class _Conversation:
    """A handshake-era session: its backend, and who waits for which id."""

    backend: Backend
    label: str
    touched: float
    session_id: str | None = None
    version: str | None = None
    pending: dict[Any, Any] = attrs.field(factory=dict)
    tokens: dict[Any, _Exchange] = attrs.field(factory=dict)
    stream: _Stream | None = None
    barriers: Any = attrs.field(factory=lambda: itertools.count(1))
    backlog: deque[bytes] = attrs.field(factory=lambda: deque(maxlen=_BACKLOG_MAX))

    def live(self) -> int:
        return sum(1 for entry in self.pending.values() if isinstance(entry, _Exchange))


class Endpoint:
    """See the module docstring."""

    def __init__(
        self,
        config: EndpointConfig,
        *,
        open_backend: Callable[[str], Backend],
        new_session_id: Callable[[], str],
    ) -> None:
        """``open_backend(kind)`` starts a session (``kind`` "session" or "stateless") and returns
        its backend at once (answers come later, through :meth:`frame`); ``new_session_id`` draws
        an unguessable ``Mcp-Session-Id`` (visible ASCII)."""
        self._config = config
        self._open = open_backend
        self._new_id = new_session_id
        self._sessions: dict[str, _Conversation] = {}
        #: Who reads each backend's frames: its conversation, or its one stateless exchange.
        self._owners: dict[Backend, _Conversation | _Exchange] = {}
        self._by_sink: dict[Sink, _Exchange | _Stream] = {}
        self._labels = itertools.count(1)
        self._stopping = False
        #: Answers the endpoint had to make up because a session ended first (for the exit code).
        self.lost = 0

    # --- state the driver reads --------------------------------------------------------------

    @property
    def waiting(self) -> int:
        """Requests waiting for their answer."""
        return sum(1 for entry in self._by_sink.values() if isinstance(entry, _Exchange))

    @property
    def sessions(self) -> int:
        """Handshake-era sessions open."""
        return len(self._sessions)

    def next_deadline(self) -> float | None:
        """When :meth:`tick` is next due (None: nothing is timed)."""
        due = _INF
        for entry in self._by_sink.values():
            due = min(due, entry.due, entry.idle_at if isinstance(entry, _Stream) else _INF)
        if self._sessions:
            due = min(due, min(conv.touched for conv in self._sessions.values()) + self._config.session_idle_s)
        return None if due == _INF else due

    # --- driver -> endpoint ------------------------------------------------------------------

    def handle(self, request: HttpRequest, sink: Sink, now: float) -> None:
        """Serve one whole request: answer it now, or later through ``sink``."""
        try:
            if self._stopping:
                raise Refusal(503, _SHUTTING_DOWN, code=int(ErrorCode.INTERNAL_ERROR))
            headers = HeaderView(request.headers)
            version = headers.single(VERSION_HEADER)
            if version is not None and version not in ALL_VERSIONS:
                raise Refusal(
                    400,
                    "unsupported protocol version in the MCP-Protocol-Version header",
                    code=int(ErrorCode.UNSUPPORTED_PROTOCOL_VERSION),
                    data={"supported": _SUPPORTED, "requested": version[:64]},
                )
            if request.method == "POST":
                self._post(request, headers, version, sink, now)
            elif version in MODERN_VERSIONS:
                raise Refusal(
                    405, "2026-07-28 has no GET stream and no session to delete", headers=(("allow", "POST"),)
                )
            elif request.method == "GET":
                self._get(headers, sink, now)
            else:
                self._delete(headers, sink, now)
        except Refusal as refusal:
            sink.respond(refusal.status, JSON_HEADERS + refusal.headers, refusal.body())

    def frame(self, backend: Backend, data: bytes, now: float) -> None:
        """One whole frame (no line ending) a session wrote."""
        owner = self._owners.get(backend)
        if owner is None:
            return  # a session the endpoint has let go of: what it says reaches nobody
        try:
            message = orjson.loads(data)
        except orjson.JSONDecodeError:
            log.error("a session wrote a frame that is not JSON; dropped: %r", data[:200])
            return
        if isinstance(owner, _Exchange):
            self._stateless_frame(owner, message, data)
        else:
            owner.touched = now
            self._session_frame(owner, message, data, now)

    def backend_lost(self, backend: Backend, now: float) -> None:
        """The session closed: whoever still waits for it gets an error (503), never a hang."""
        owner = self._owners.pop(backend, None)
        if owner is None:
            return
        why = _SHUTTING_DOWN if self._stopping else "the MCP session ended before answering; send the request again"
        if isinstance(owner, _Exchange):
            self._fail(owner, why)
            return
        if owner.session_id is not None:
            self._sessions.pop(owner.session_id, None)
        for entry in list(owner.pending.values()):
            if isinstance(entry, _Exchange) and entry.sink in self._by_sink:
                self._fail(entry, why)
        owner.pending.clear()
        if owner.stream is not None:
            self._end_stream(owner.stream)

    def sink_closed(self, sink: Sink, now: float) -> None:
        """The client's connection closed before its response was complete."""
        entry = self._by_sink.pop(sink, None)
        if entry is None:
            return
        if isinstance(entry, _Stream):
            entry.conversation.stream = None
            return
        conversation = entry.conversation
        if conversation is None:
            # 2026-07-28: closing the response stream cancels the request.
            self._owners.pop(entry.backend, None)
            entry.backend.send(_cancelled(entry.ids[0], "the client closed the response stream"))
            entry.backend.end()
            return
        if entry.initialize:
            self._owners.pop(conversation.backend, None)  # nobody will ever learn its session id
            conversation.backend.end()
            return
        for request_id in entry.ids:
            if conversation.pending.get(request_id) is entry:
                conversation.pending[request_id] = _GONE
        if entry.token is not None:
            conversation.tokens.pop(entry.token, None)

    def tick(self, now: float) -> None:
        """Keep-alives, held answers becoming streams, idle streams and sessions ending."""
        keepalive_s = self._config.keepalive_s
        for entry in list(self._by_sink.values()):
            if isinstance(entry, _Stream):
                if now >= entry.idle_at:
                    self._end_stream(entry)
                elif now >= entry.due:
                    entry.sink.send(SSE_KEEPALIVE, droppable=True)
                    entry.due = now + keepalive_s
            elif now >= entry.due:
                if entry.streaming:
                    entry.sink.send(SSE_KEEPALIVE, droppable=True)
                    entry.due = now + keepalive_s
                elif entry.sse_ok:
                    self._start_stream(entry, now)
                    entry.sink.send(SSE_KEEPALIVE, droppable=True)
                else:
                    entry.due = _INF  # JSON only: it waits for the answer, quietly
        expired = [
            conv
            for conv in self._sessions.values()
            if conv.stream is None and not conv.live() and now - conv.touched >= self._config.session_idle_s
        ]
        for conv in expired:
            log.info("%s: idle for %.0f s; session ended", conv.label, now - conv.touched)
            self._end_conversation(conv)

    def stop(self) -> None:
        """The server is stopping: new requests are refused (503), GET streams end; requests
        already accepted are still answered."""
        self._stopping = True
        for entry in list(self._by_sink.values()):
            if isinstance(entry, _Stream):
                self._end_stream(entry)

    def end_all(self) -> None:
        """Let every session go: running calls cancelled, input ended (the server is leaving)."""
        for conv in list(self._sessions.values()):
            self._end_conversation(conv)
        for backend, owner in list(self._owners.items()):
            self._owners.pop(backend, None)
            ids = owner.ids if isinstance(owner, _Exchange) else list(owner.pending)
            for request_id in ids:
                backend.send(_cancelled(request_id, "the server is stopping"))
            backend.end()

    # --- POST --------------------------------------------------------------------------------

    def _post(self, request: HttpRequest, headers: HeaderView, version: str | None, sink: Sink, now: float) -> None:
        json_ok, sse_ok = accepts(headers.get("accept"))
        if not (json_ok or sse_ok):
            raise Refusal(406, "not acceptable: the answer is application/json or text/event-stream")
        if not is_json(headers.get("content-type")):
            raise Refusal(415, "unsupported media type: the body must be Content-Type: application/json")
        try:
            message = orjson.loads(request.body)
        except orjson.JSONDecodeError as exc:
            raise Refusal(400, f"parse error: {exc}", code=int(ErrorCode.PARSE_ERROR)) from None
        line = _line(request.body)
        if version in MODERN_VERSIONS or _enveloped(message):
            self._post_stateless(message, line, headers, version, sink, json_ok, sse_ok, now)
        else:
            self._post_session(message, line, headers, sink, json_ok, sse_ok, now)

    def _post_stateless(
        self,
        message: Any,
        line: bytes,
        headers: HeaderView,
        version: str | None,
        sink: Sink,
        json_ok: bool,
        sse_ok: bool,
        now: float,
    ) -> None:
        if message.__class__ is not dict:
            raise Refusal(400, "2026-07-28: a POST carries one JSON-RPC request or notification object")
        kind, request_id, method = _shape(message)
        if kind == "response":
            raise Refusal(400, "2026-07-28: clients send no JSON-RPC responses")
        if kind == "notification":
            sink.respond(202, (), b"")  # accepted and dropped: a stateless server keeps nothing to act on
            return
        params = message.get("params")
        meta = params.get("_meta") if params.__class__ is dict else None
        if meta.__class__ is not dict or PROTOCOL_VERSION_KEY not in meta or CLIENT_CAPABILITIES_KEY not in meta:
            raise Refusal(
                400,
                f"2026-07-28: params._meta must carry {PROTOCOL_VERSION_KEY} and {CLIENT_CAPABILITIES_KEY}",
                code=int(ErrorCode.INVALID_PARAMS),
                request_id=request_id,
            )
        _check_mirrored(message, meta, headers, version, request_id, method)
        if method == "initialize":
            raise Refusal(
                400,
                "2026-07-28 has no initialize; to open a handshake session, "
                "send initialize without the 2026-07-28 header and envelope",
                code=int(ErrorCode.UNSUPPORTED_PROTOCOL_VERSION),
                data={"supported": list(MODERN_VERSIONS), "requested": meta[PROTOCOL_VERSION_KEY]},
                request_id=request_id,
            )
        backend = self._open("stateless")
        exchange = _Exchange(sink, backend, (request_id,), json_ok, sse_ok, now + self._config.keepalive_s)
        self._owners[backend] = exchange
        self._watch(exchange, now)
        backend.send(line)

    def _post_session(
        self, message: Any, line: bytes, headers: HeaderView, sink: Sink, json_ok: bool, sse_ok: bool, now: float
    ) -> None:
        session_id = headers.single(SESSION_HEADER)
        if session_id is None:
            if message.__class__ is dict and message.get("method") == "initialize":
                self._initialize(message, line, sink, json_ok, sse_ok, now)
                return
            raise Refusal(
                400,
                "bad request: Mcp-Session-Id header required (send initialize first, "
                "or use 2026-07-28: the MCP-Protocol-Version header and the _meta envelope)",
            )
        conv = self._conversation(session_id)
        conv.touched = now
        if message.__class__ is list:
            ids = self._check_batch(conv, message)
            tool_call = False
        elif message.__class__ is dict:
            kind, request_id, method = _shape(message)
            ids = ()
            tool_call = method == "tools/call"
            if kind == "request":
                if request_id in conv.pending:
                    raise Refusal(
                        400,
                        f"request id {request_id!r:.80} is already in flight in this session",
                        request_id=request_id,
                    )
                ids = (request_id,)
            elif method == "notifications/cancelled":
                conv.backend.send(line)
                self._cancel(conv, message.get("params"))
                sink.respond(202, (), b"")
                return
        else:
            raise Refusal(400, "a POST carries one JSON-RPC message (or a 2025-03-26 batch)")
        if not ids:
            conv.backend.send(line)  # notifications and responses: accepted, never answered
            sink.respond(202, (), b"")
            return
        exchange = _Exchange(
            sink, conv.backend, ids, json_ok, sse_ok, now + self._config.keepalive_s, conv, tool_call=tool_call
        )
        for request_id in ids:
            conv.pending[request_id] = exchange
        token = _progress_token(message) if tool_call else None
        if token is not None and token not in conv.tokens:
            exchange.token = token
            conv.tokens[token] = exchange
        self._watch(exchange, now)
        conv.backend.send(line)

    def _initialize(
        self, message: dict[str, Any], line: bytes, sink: Sink, json_ok: bool, sse_ok: bool, now: float
    ) -> None:
        kind, request_id, _ = _shape(message)
        if kind != "request":
            raise Refusal(400, "initialize must be a request (with an id)")
        opening = sum(1 for owner in self._owners.values() if isinstance(owner, _Conversation))
        if max(opening, len(self._sessions)) >= self._config.sessions_max:
            raise Refusal(
                503,
                f"{self._config.sessions_max} sessions are open, the most this server keeps; end one (DELETE) first",
                code=int(ErrorCode.INTERNAL_ERROR),
                request_id=request_id,
            )
        backend = self._open("session")
        conv = _Conversation(backend, label=f"session {next(self._labels)}", touched=now)
        self._owners[backend] = conv
        exchange = _Exchange(
            sink, backend, (request_id,), json_ok, sse_ok, now + self._config.keepalive_s, conv, initialize=True
        )
        conv.pending[request_id] = exchange
        self._watch(exchange, now)
        backend.send(line)

    def _conversation(self, session_id: str) -> _Conversation:
        conv = self._sessions.get(session_id)
        if conv is None:
            raise Refusal(404, "not found: no such session (it ended, or never was); send initialize to start one")
        return conv

    def _check_batch(self, conv: _Conversation, messages: list[Any]) -> tuple[Any, ...]:
        if conv.version not in _BATCH_VERSIONS:
            raise Refusal(
                400, f"JSON-RPC batches are served only in protocol version 2025-03-26 (this session: {conv.version})"
            )
        if not messages:
            raise Refusal(400, "empty batch")
        if len(messages) > self._config.max_batch_items:
            raise Refusal(400, f"batch of {len(messages)} messages; at most {self._config.max_batch_items} are served")
        ids: list[Any] = []
        for message in messages:
            if message.__class__ is not dict:
                raise Refusal(400, "every element of a batch must be a JSON-RPC object")
            kind, request_id, method = _shape(message)
            if method in ("initialize", "notifications/cancelled"):
                raise Refusal(400, f"{method} cannot be part of a batch")
            if kind == "request":
                if request_id in conv.pending or request_id in ids:
                    raise Refusal(400, f"request id {request_id!r:.80} is already in flight in this session")
                ids.append(request_id)
        return tuple(ids)

    def _cancel(self, conv: _Conversation, params: Any) -> None:
        """The client cancelled a call (the line is already on its way to the session)."""
        request_id = params.get("requestId") if params.__class__ is dict else None
        if request_id.__class__ not in _ID_TYPES:
            return
        exchange = conv.pending.get(request_id)
        if not isinstance(exchange, _Exchange) or not (exchange.tool_call or len(exchange.ids) > 1):
            return  # answered, unknown, or no call: the session answers or ignores it as it would
        exchange.cancelled += 1
        if exchange.cancelled < len(exchange.ids):
            return  # a batch still owes the answers of its other requests
        for held in exchange.ids:
            conv.pending[held] = _GONE
        if exchange.token is not None:
            conv.tokens.pop(exchange.token, None)
        self._by_sink.pop(exchange.sink, None)
        if not exchange.streaming:
            exchange.sink.start_stream(SSE_HEADERS)
        exchange.sink.end_stream()  # cancelled: no answer is owed
        barrier = f"mesh-http-barrier-{next(conv.barriers)}"
        while barrier in conv.pending:
            barrier = f"mesh-http-barrier-{next(conv.barriers)}"
        conv.pending[barrier] = _Barrier(list(exchange.ids))
        conv.backend.send(orjson.dumps({"id": barrier, "jsonrpc": "2.0", "method": "ping"}) + b"\n")

    # --- GET and DELETE ----------------------------------------------------------------------

    def _get(self, headers: HeaderView, sink: Sink, now: float) -> None:
        _, sse_ok = accepts(headers.get("accept"))
        if not sse_ok:
            raise Refusal(406, "not acceptable: the GET stream is text/event-stream")
        session_id = headers.single(SESSION_HEADER)
        if session_id is None:
            raise Refusal(400, "bad request: Mcp-Session-Id header required")
        conv = self._conversation(session_id)
        if conv.stream is not None:
            raise Refusal(409, "conflict: this session already has its GET stream open")
        conv.touched = now
        stream = _Stream(sink, conv, now + self._config.keepalive_s, now + self._config.stream_idle_s)
        conv.stream = stream
        self._by_sink[sink] = stream
        sink.start_stream(SSE_HEADERS)
        while conv.backlog:
            sink.send(sse_event(conv.backlog.popleft()), droppable=True)

    def _delete(self, headers: HeaderView, sink: Sink, now: float) -> None:
        session_id = headers.single(SESSION_HEADER)
        if session_id is None:
            raise Refusal(400, "bad request: Mcp-Session-Id header required")
        conv = self._conversation(session_id)
        log.info("%s: ended by the client (DELETE)", conv.label)
        self._end_conversation(conv)
        sink.respond(200, (), b"")

    # --- frames from sessions ----------------------------------------------------------------

    def _stateless_frame(self, exchange: _Exchange, message: Any, data: bytes) -> None:
        if message.__class__ is dict and "method" in message:
            self._notify(exchange, data)
            return
        self._owners.pop(exchange.backend, None)
        exchange.backend.end()
        if exchange.sink not in self._by_sink:
            return
        error = message.get("error") if message.__class__ is dict else None
        status = stateless_status(error.get("code")) if error.__class__ is dict else 200
        self._answer(exchange, data, status)

    def _session_frame(self, conv: _Conversation, message: Any, data: bytes, now: float) -> None:
        if message.__class__ is list:
            ids = [item.get("id") for item in message if item.__class__ is dict]
            waiting = next((conv.pending[i] for i in ids if i.__class__ in _ID_TYPES and i in conv.pending), None)
            if isinstance(waiting, _Exchange):
                self._settle(conv, waiting)
                self._answer(waiting, data, 200)
            else:
                for request_id in ids:
                    if conv.pending.get(request_id) is _GONE:
                        del conv.pending[request_id]
            return
        if message.__class__ is not dict:
            log.error("%s: the session wrote a frame that is no JSON-RPC message; dropped", conv.label)
            return
        if "method" in message:
            self._route_notification(conv, message, data)
            return
        request_id = message.get("id")
        entry = conv.pending.get(request_id) if request_id.__class__ in _ID_TYPES else None
        if entry is None:
            log.warning("%s: an answer for no waiting request (id %.80r); dropped", conv.label, request_id)
            return
        if isinstance(entry, _Barrier):
            del conv.pending[request_id]
            for held in entry.released:
                if conv.pending.get(held) is _GONE:
                    del conv.pending[held]
            return
        if entry is _GONE:
            del conv.pending[request_id]
            return
        self._settle(conv, entry)
        if entry.initialize:
            self._opened(conv, entry, message, data)
            return
        self._answer(entry, data, 200)

    def _opened(self, conv: _Conversation, exchange: _Exchange, message: dict[str, Any], data: bytes) -> None:
        result = message.get("result")
        if result.__class__ is not dict:
            self._owners.pop(conv.backend, None)
            conv.backend.end()
            self._answer(exchange, data, 400)  # no session: nothing to carry an id for
            return
        session_id = self._new_id()
        while session_id in self._sessions:
            session_id = self._new_id()
        conv.session_id = session_id
        conv.version = result.get("protocolVersion")
        self._sessions[session_id] = conv
        log.info("%s: opened (protocol version %s)", conv.label, conv.version)
        self._answer(exchange, data, 200, ((SESSION_HEADER, session_id),))

    def _route_notification(self, conv: _Conversation, message: dict[str, Any], data: bytes) -> None:
        """A message the session sent on its own: progress to the stream of the call it is about,
        anything else to the GET stream (2025-11-25: never broadcast), or kept for it (the latest
        few) while none is open."""
        params = message.get("params")
        token = params.get("progressToken", _ABSENT) if params.__class__ is dict else _ABSENT
        exchange = conv.tokens.get(token) if token.__class__ in _ID_TYPES else None
        if exchange is not None and exchange.sink in self._by_sink:
            self._notify(exchange, data)
        elif conv.stream is not None:
            conv.stream.sink.send(sse_event(data), droppable=True)
        else:
            conv.backlog.append(data)

    # --- answering ---------------------------------------------------------------------------

    def _watch(self, exchange: _Exchange, now: float) -> None:
        self._by_sink[exchange.sink] = exchange
        if not exchange.json_ok:
            self._start_stream(exchange, now)  # the client takes a stream only

    def _settle(self, conv: _Conversation, exchange: _Exchange) -> None:
        for request_id in exchange.ids:
            if conv.pending.get(request_id) is exchange:
                del conv.pending[request_id]
        if exchange.token is not None:
            conv.tokens.pop(exchange.token, None)

    def _answer(self, exchange: _Exchange, data: bytes, status: int, headers: tuple[tuple[str, str], ...] = ()) -> None:
        if self._by_sink.pop(exchange.sink, None) is not exchange:
            return  # the client left: the answer reaches nobody
        if exchange.streaming:
            exchange.sink.send(sse_event(data))
            exchange.sink.end_stream()
        else:
            exchange.sink.respond(status, JSON_HEADERS + headers, data)

    def _notify(self, exchange: _Exchange, data: bytes) -> None:
        if exchange.sink not in self._by_sink:
            return
        if not exchange.streaming:
            if not exchange.sse_ok:
                return  # the client takes JSON only: nothing but the answer can reach it
            self._start_stream(exchange, None)
        exchange.sink.send(sse_event(data), droppable=True)

    def _start_stream(self, exchange: _Exchange, now: float | None) -> None:
        exchange.streaming = True
        if now is not None:
            exchange.due = now + self._config.keepalive_s
        exchange.sink.start_stream(SSE_HEADERS)

    def _fail(self, exchange: _Exchange, why: str) -> None:
        """Answer ``exchange`` with an error of the endpoint's own (its session is gone)."""
        if self._by_sink.pop(exchange.sink, None) is not exchange:
            return
        self.lost += 1
        body = error_body(int(ErrorCode.INTERNAL_ERROR), why, exchange.ids[0] if len(exchange.ids) == 1 else None)
        if exchange.streaming:
            exchange.sink.send(sse_event(body))
            exchange.sink.end_stream()
        else:
            exchange.sink.respond(503, JSON_HEADERS, body)

    def _end_stream(self, stream: _Stream) -> None:
        self._by_sink.pop(stream.sink, None)
        stream.conversation.stream = None
        stream.sink.end_stream()

    def _end_conversation(self, conv: _Conversation) -> None:
        """End a handshake session: its running calls cancelled, its waiting requests told (404)."""
        if conv.session_id is not None:
            self._sessions.pop(conv.session_id, None)
        self._owners.pop(conv.backend, None)
        for request_id, entry in list(conv.pending.items()):
            if not isinstance(entry, _Barrier):
                conv.backend.send(_cancelled(request_id, "the session ended"))
            if isinstance(entry, _Exchange) and self._by_sink.pop(entry.sink, None) is entry:
                body = error_body(
                    int(ErrorCode.INVALID_REQUEST), "the session ended before this request was answered", request_id
                )
                if entry.streaming:
                    entry.sink.send(sse_event(body))
                    entry.sink.end_stream()
                else:
                    entry.sink.respond(404, JSON_HEADERS, body)
        conv.pending.clear()
        conv.tokens.clear()
        if conv.stream is not None:
            self._end_stream(conv.stream)
        conv.backend.end()


# --- helpers ---------------------------------------------------------------------------------


def _line(body: bytes) -> bytes:
    """A body that parsed as JSON, as one frame: its line breaks can only be white space between
    tokens (JSON strings hold none raw), so they become spaces."""
    if b"\n" in body or b"\r" in body:
        body = body.replace(b"\r", b" ").replace(b"\n", b" ")
    return body + b"\n"


def _enveloped(message: Any) -> bool:
    """Whether a body carries the 2026-07-28 ``_meta`` envelope."""
    if message.__class__ is not dict:
        return False
    params = message.get("params")
    meta = params.get("_meta") if params.__class__ is dict else None
    return meta.__class__ is dict and PROTOCOL_VERSION_KEY in meta


def _shape(message: dict[str, Any]) -> tuple[str, Any, str | None]:
    """(kind, id, method) of one JSON-RPC object: a request, a notification or a response;
    anything else is a 400 (the session would answer it with no id to route the answer by)."""
    raw_id = message.get("id", _ABSENT)
    request_id = raw_id if raw_id.__class__ in _ID_TYPES else None
    if message.get("jsonrpc") != "2.0":
        raise Refusal(400, 'invalid request: jsonrpc must be exactly "2.0"', request_id=request_id)
    method = message.get("method", _ABSENT)
    if method.__class__ is str:
        if raw_id is _ABSENT:
            return "notification", None, method
        if request_id is None:
            raise Refusal(400, "invalid request: id must be a string or an integer")
        return "request", request_id, method
    if method is not _ABSENT:
        raise Refusal(400, "invalid request: method must be a string", request_id=request_id)
    if ("result" in message or "error" in message) and raw_id is not _ABSENT:
        return "response", raw_id, None
    raise Refusal(400, "invalid request: not a JSON-RPC request, notification or response", request_id=request_id)


def _check_mirrored(
    message: dict[str, Any],
    meta: dict[str, Any],
    headers: HeaderView,
    version: str | None,
    request_id: Any,
    method: str | None,
) -> None:
    """2026-07-28 "Server Validation": the headers a load balancer routes by must say what the body says."""

    def mismatch(what: str) -> Refusal:
        return Refusal(400, f"header mismatch: {what}", code=HEADER_MISMATCH, request_id=request_id)

    if version is None:
        raise mismatch("the MCP-Protocol-Version header is required")
    if version != meta[PROTOCOL_VERSION_KEY]:
        raise mismatch("MCP-Protocol-Version does not match params._meta's protocol version")
    if headers.single(METHOD_HEADER) != method:
        raise mismatch("Mcp-Method does not match the body's method")
    key = _NAME_PARAM.get(method or "")
    if key is not None:
        value = message["params"].get(key)
        if value is not None and decode_header_value(headers.single(NAME_HEADER)) != value:
            raise mismatch(f"Mcp-Name does not match params.{key}")


def _progress_token(message: dict[str, Any]) -> Any:
    params = message.get("params")
    meta = params.get("_meta") if params.__class__ is dict else None
    token = meta.get("progressToken") if meta.__class__ is dict else None
    return token if token.__class__ in _ID_TYPES else None


def _cancelled(request_id: Any, reason: str) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": request_id, "reason": reason},
    }
    return orjson.dumps(message, option=orjson.OPT_SORT_KEYS) + b"\n"
