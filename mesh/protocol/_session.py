"""The MCP server session: a sans-IO state machine, bytes in, events and frames out.

Theory of operation
-------------------
The driver feeds bytes (``receive_data``) and the end of input (``receive_eof``), then pulls
``next_event`` until it returns a :class:`Wait`. Work happens lazily inside ``next_event``: one
frame at a time is taken from the :class:`LineSplitter` and classified (see ``_handle_message``).
Everything but ``tools/call`` is answered right here; a call to a known tool becomes a
:class:`ToolCallRequested` event, and the driver reports its outcome with ``complete``. Answers
accumulate as whole newline-terminated frames, collected with ``data_to_send``.

So the output is a pure function of the input bytes and of the order in which the driver completes
calls, whatever the chunking of the input: there is no clock, no randomness, no I/O in here.

Eras. The era is fixed once, by the first request that passes its era's checks:

* ``initialize`` opens the *handshake* era (2024-11-05 ... 2025-11-25). The version is negotiated
  (a supported one is echoed, otherwise the newest is offered); afterwards a request carrying the
  2026 envelope is refused with ``-32600``, a second ``initialize`` too.
* a request whose ``params._meta`` carries ``io.modelcontextprotocol/protocolVersion`` opens the
  *stateless* era (2026-07-28) as soon as that envelope passes its checks, even if the request then
  fails (an unknown method, a bad cursor): the client has said which protocol it speaks. Every
  request names its own version, checked on every request (``-32022`` for one not served);
  ``initialize`` is then refused with ``-32022``.

Before either, only ``ping`` is served (2026-07-28 itself has no ``ping``: -32601 there). JSON-RPC
batches are served only when the handshake negotiated 2025-03-26 (the one revision that has them);
their answers go out as one array, in the batch's order, once every call in it has completed.

Bounds. A frame over ``max_frame_bytes`` is dropped while it streams and answered once with
``-32600``. At ``max_in_flight`` calls in flight ``next_event`` returns ``Wait.PAUSED`` and takes
no more input until a call completes: the driver stops reading, so nothing queues without limit.
After EOF the session drains: it answers everything accepted, then reports :class:`SessionClosed`.

Logging. The driver offers the server's own log messages with ``log(level, logger, data, now)``;
``now`` is the driver's clock (seconds), the only time the core knows. What goes out follows the
era: in the handshake era, nothing until the client has sent ``notifications/initialized`` *and*
``logging/setLevel`` (the specification lets the server choose when no level is set: it sends
nothing); then every message at or above the level. Messages offered before that are kept (the
``log_backlog_max`` most recent distinct ones) and sent, filtered by the level, once both have
arrived. In the stateless era (2026-07-28, no ``logging/setLevel``) a message goes out only while a
call whose ``_meta`` carries ``io.modelcontextprotocol/logLevel`` at or below its severity is in
flight, so before that call's answer; nothing is kept for later. Either way at most
``log_messages_max`` messages go out per window of ``log_window_ms`` (a window opens with the first
message sent); the rest are counted, and one message says how many were suppressed when the window
ends: at the next message, or when the driver calls ``handle_timer`` at ``timer()`` (stateless, a
call also hears the count so far just before its answer). Nothing goes out after the session closed.

Progress. A call whose ``params._meta.progressToken`` is a string or an integer may hear how far it
got: the driver offers ``progress(request_id, progress, total, message)`` and the core sends
``notifications/progress`` only while that call is in flight and not cancelled (so never after its
answer), only with the token the client gave, and only when ``progress`` is strictly above the last
one sent for that call (the specification's "MUST increase"; an offer that does not is dropped).
A token already held by another call in flight gives the second call no progress (tokens must be
unique among active requests; two calls' counts would interleave under one token). ``message``
exists from 2025-03-26 on and is left out for 2024-11-05. The stateless 2026-07-28 revision sends
progress the same way: on the request's own stream, before its answer. No clock is involved:
how often to offer is the driver's business.
"""

from __future__ import annotations

import math
from collections import deque
from enum import Enum
from typing import Any, Final

import attrs

from ._codec import DecodeError, Fragment, decode, encode_fragment, encode_frame
from ._errors import ErrorCode, RpcError, clip
from ._events import (
    CallCancelled,
    Event,
    RequestId,
    SessionClosed,
    ToolCallRequested,
    ToolCrashed,
    ToolOutcome,
    ToolResult,
    ToolSpec,
    Wait,
)
from ._framing import OVERSIZED, LineSplitter
from ._versions import (
    BATCH_VERSIONS,
    HANDSHAKE_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    LOG_LEVEL_KEY,
    LOG_LEVELS,
    MODERN_VERSIONS,
    REQUEST_LOG_LEVEL_VERSIONS,
    at_least,
)

__all__ = ["Era", "ServerSession", "SessionConfig"]

PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY: Final = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"

_HANDSHAKE_METHODS: Final = frozenset({"initialize", "ping", "tools/list", "tools/call", "logging/setLevel"})
#: 2026-07-28 has no ``ping`` and no ``initialize``.
_MODERN_METHODS: Final = frozenset({"server/discover", "tools/list", "tools/call"})
_STATELESS_ONLY: Final = _MODERN_METHODS - _HANDSHAKE_METHODS
_CURSOR_PREFIX: Final = "tools:"
_ABSENT: Final = object()
#: ``params`` of a request that has none (shared: nothing here mutates params).
_EMPTY: Final[dict[str, Any]] = {}
#: A log level's rank: messages at or above the level asked for go out.
_SEVERITY: Final = {level: rank for rank, level in enumerate(LOG_LEVELS)}
#: The ``logger`` of the session's own "K log messages suppressed" message.
_LIMIT_LOGGER: Final = "mesh"


# The kinds of request, as far as the lifecycle cares (plain strings: they key a hot lookup).
_INITIALIZE: Final = "initialize"
#: Carries the 2026-07-28 ``_meta`` envelope.
_ENVELOPED: Final = "enveloped"
_PLAIN: Final = "plain"
_KINDS: Final = (_INITIALIZE, _ENVELOPED, _PLAIN)


class _Route(Enum):
    NEGOTIATE = "negotiate the handshake version"
    BEFORE_ERA = "serve ping; other methods wait for an era"
    SERVE_HANDSHAKE = "serve at the negotiated version"
    SERVE_STATELESS = "check the envelope, serve at its version"
    REFUSE = "refuse: the era is fixed otherwise"


class Era(Enum):
    #: No request has fixed the era yet: only ``ping`` is served.
    UNDECIDED = "undecided"
    #: ``initialize`` succeeded: 2024-11-05 ... 2025-11-25, one version for the whole session.
    HANDSHAKE = "handshake"
    #: 2026-07-28: no handshake, every request carries its version in ``params._meta``.
    STATELESS = "stateless"


#: The lifecycle as a table: what a request of each kind does in each era. A request that passes its
#: route's checks fixes an undecided era (NEGOTIATE to HANDSHAKE, SERVE_STATELESS to STATELESS).
_ROUTES: Final = {
    Era.UNDECIDED: {
        _INITIALIZE: _Route.NEGOTIATE,
        _ENVELOPED: _Route.SERVE_STATELESS,
        _PLAIN: _Route.BEFORE_ERA,
    },
    Era.HANDSHAKE: {
        _INITIALIZE: _Route.REFUSE,  # -32600 already initialized
        _ENVELOPED: _Route.REFUSE,  # -32600 envelope on a handshake session
        _PLAIN: _Route.SERVE_HANDSHAKE,
    },
    Era.STATELESS: {
        _INITIALIZE: _Route.REFUSE,  # -32022
        _ENVELOPED: _Route.SERVE_STATELESS,
        _PLAIN: _Route.SERVE_STATELESS,  # the envelope check answers -32602
    },
}


def _whole(low: int) -> Any:
    """An attrs validator: a whole number (not a bool) of at least ``low``; else ``ValueError``."""

    def check(_instance: object, attribute: attrs.Attribute, value: object) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"SessionConfig.{attribute.name} must be a whole number of at least {low}, not {value!r}")

    return check


@attrs.frozen
class SessionConfig:
    """What a session is allowed; each bound is checked when the config is built (INV-BOUND-3):
    a session that could never serve (no call in flight, no byte per frame) is refused."""

    server_name: str = "mesh-mcp"
    server_version: str = "0.0.0"
    instructions: str | None = None
    #: A line longer than this (without its line ending) is dropped and answered with -32600.
    max_frame_bytes: int = attrs.field(default=1 << 20, validator=_whole(1))
    #: Tool calls in flight before the session pauses its input.
    max_in_flight: int = attrs.field(default=16, validator=_whole(1))
    #: Elements in one JSON-RPC batch (2025-03-26 only); a longer batch is refused whole.
    max_batch_items: int = attrs.field(default=64, validator=_whole(1))
    #: Tools per ``tools/list`` page.
    tools_page_size: int = attrs.field(default=100, validator=_whole(1))
    #: Stateless era: how long a client may cache ``tools/list`` and ``server/discover``.
    #: The catalogue is fixed for the life of a server process, but a restart may change it.
    cache_ttl_ms: int = attrs.field(default=60_000, validator=_whole(0))
    #: Log messages (``notifications/message``) sent per window of ``log_window_ms``; past it they
    #: are counted, and one more message says how many were suppressed when the window ends.
    log_messages_max: int = attrs.field(default=20, validator=_whole(1))
    log_window_ms: int = attrs.field(default=10_000, validator=_whole(1))
    #: Log messages kept (the most recent distinct ones) until a handshake client asks for them.
    log_backlog_max: int = attrs.field(default=16, validator=_whole(0))


@attrs.define
class _Batch:
    """A JSON-RPC batch whose answers go out together once its last call completes."""

    answers: list[dict[str, Any] | None]
    pending: int = 0


@attrs.define
class _Call:
    request_id: RequestId
    version: str
    batch: _Batch | None
    slot: int
    cancelled: bool = False
    #: Stateless era: the rank of the call's ``_meta`` log level (None: it asked for no log).
    log_floor: int | None = None
    #: ``_meta.progressToken`` when the client gave a usable one (None: no progress for this call).
    progress_token: str | int | None = None
    #: The last progress value sent for this call (None before the first).
    progress_sent: float | None = None


@attrs.define
class ServerSession:
    """One MCP connection. See the module docstring for the theory of operation."""

    config: SessionConfig
    tools: tuple[ToolSpec, ...] = attrs.field(converter=tuple)
    _splitter: LineSplitter = attrs.field(init=False)
    _events: deque[Event] = attrs.field(init=False, factory=deque)
    _out: list[bytes] = attrs.field(init=False, factory=list)
    _era: Era = attrs.field(init=False, default=Era.UNDECIDED)
    #: ``_ROUTES[_era]``, kept beside the era it belongs to.
    _routes: dict[str, _Route] = attrs.field(init=False, default=_ROUTES[Era.UNDECIDED])
    _version: str | None = attrs.field(init=False, default=None)
    _client_info: Any = attrs.field(init=False, default=None)
    _calls: dict[RequestId, _Call] = attrs.field(init=False, factory=dict)
    _closed: bool = attrs.field(init=False, default=False)
    _tool_index: dict[str, ToolSpec] = attrs.field(init=False)
    _result_cache: dict[tuple[str, str, int], Fragment] = attrs.field(init=False, factory=dict)
    # The server's own log (see "Logging" in the module docstring).
    #: Handshake era: ``notifications/initialized`` arrived after a successful ``initialize``.
    _initialized: bool = attrs.field(init=False, default=False)
    #: Handshake era: the rank of the level ``logging/setLevel`` asked for (None before it).
    _log_level: int | None = attrs.field(init=False, default=None)
    #: Both of the above just became true: send what was kept (after the current frame's answer).
    _log_replay: bool = attrs.field(init=False, default=False)
    #: Messages kept until the client asks: frame -> rank, oldest first, each frame once.
    _log_backlog: dict[bytes, int] = attrs.field(init=False, factory=dict)
    #: The latest time the driver gave (never goes back).
    _now: float = attrs.field(init=False, default=0.0)
    #: When the current rate-limit window ends (None: no window open).
    _window_end: float | None = attrs.field(init=False, default=None)
    _window_sent: int = attrs.field(init=False, default=0)
    _suppressed: int = attrs.field(init=False, default=0)
    #: The highest rank among the suppressed messages (the rank of the message that counts them).
    _suppressed_rank: int = attrs.field(init=False, default=0)

    def __attrs_post_init__(self) -> None:
        self._splitter = LineSplitter(self.config.max_frame_bytes)
        self._tool_index = {}
        for spec in self.tools:
            if spec.name in self._tool_index:
                raise ValueError(f"duplicate tool name {spec.name!r}")
            self._tool_index[spec.name] = spec

    # --- public surface ----------------------------------------------------------------------

    @property
    def era(self) -> Era:
        return self._era

    @property
    def protocol_version(self) -> str | None:
        """The version the handshake negotiated (``None`` before it, and in the stateless era)."""
        return self._version

    @property
    def client_info(self) -> Any:
        """``clientInfo`` as the client sent it (handshake era, or the first stateless request)."""
        return self._client_info

    @property
    def in_flight(self) -> int:
        """Calls handed out and not yet completed (cancelled ones included until they complete)."""
        return len(self._calls)

    @property
    def buffered_bytes(self) -> int:
        """Bytes held for an incomplete line: never more than ``max_frame_bytes + 1``."""
        return self._splitter.tail_bytes

    def receive_data(self, data: bytes) -> None:
        """Feed input bytes, any amount split at any point. ``b""`` means EOF."""
        if not data:
            self.receive_eof()
            return
        self._splitter.feed(data)

    def receive_eof(self) -> None:
        """The client closed its end: answer what was accepted, then close."""
        self._splitter.feed_eof()

    def next_event(self) -> Event | Wait:
        """The next event for the driver, or why there is none."""
        events, calls, items = self._events, self._calls, self._splitter.items
        max_in_flight = self.config.max_in_flight
        while True:
            if events:
                return events.popleft()
            if self._closed:
                return SessionClosed()
            if len(calls) >= max_in_flight:
                return Wait.PAUSED
            item = items.popleft() if items else None
            if item is None:
                if not self._splitter.eof:
                    return Wait.NEED_DATA
                if self._calls:
                    return Wait.PAUSED
                self._closed = True
                continue
            self._handle_item(item)
            if self._log_replay:
                self._replay_log()

    def complete(self, request_id: RequestId, outcome: ToolOutcome) -> None:
        """Report the outcome of a call handed out as :class:`ToolCallRequested`.

        Raises ``KeyError`` for an id that is not in flight (a driver bug, not a client error).
        """
        call = self._calls.pop(request_id)
        if call.batch is not None:
            call.batch.pending -= 1
        if call.log_floor is not None and self._suppressed_rank >= call.log_floor:
            # Its stream ends with this answer: say now what the window suppressed so far (the
            # window itself goes on, and so does its budget).
            self._count_suppressed(call.log_floor)
        if call.cancelled:
            answer = None
        elif isinstance(outcome, ToolCrashed):
            answer = _error(request_id, RpcError(ErrorCode.INTERNAL_ERROR, f"tool failed: {outcome.message}"))
        else:
            answer = _result(request_id, self._shape(self._call_result(outcome, call.version), call.version))
        if call.batch is None:
            if answer is not None:
                self._emit(answer)
        else:
            call.batch.answers[call.slot] = answer
            if call.batch.pending == 0:
                self._emit_batch(call.batch)

    def progress(
        self, request_id: RequestId, progress: float, total: float | None = None, message: str | None = None
    ) -> bool:
        """Offer ``notifications/progress`` for the call ``request_id``; whether it was sent.

        Sent only while the call is in flight and not cancelled, when the client gave it a
        ``progressToken``, and when ``progress`` is above the last value sent for it (see
        "Progress" in the module docstring). ``progress`` and ``total`` must be finite numbers
        (a ``ValueError`` otherwise: a driver bug, not a client's)."""
        for value in (progress, total) if total is not None else (progress,):
            if value.__class__ not in (int, float) or not math.isfinite(value):
                raise ValueError(f"progress values must be finite numbers, not {value!r}")
        call = self._calls.get(request_id)
        if call is None or call.cancelled or call.progress_token is None or self._closed:
            return False
        if call.progress_sent is not None and progress <= call.progress_sent:
            return False
        call.progress_sent = progress
        params: dict[str, Any] = {"progressToken": call.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None and at_least(call.version, "2025-03-26"):
            params["message"] = message
        self._out.append(encode_frame({"jsonrpc": "2.0", "method": "notifications/progress", "params": params}))
        return True

    def data_to_send(self) -> bytes:
        """Whole frames produced since the last call, ready for the writer."""
        data = b"".join(self._out)
        self._out.clear()
        return data

    def log(self, level: str, logger: str, data: Any, now: float) -> None:
        """Offer the client one of the server's own log messages, at the driver's time ``now``
        (seconds, never going back). Whether and when it goes out as ``notifications/message``:
        see "Logging" in the module docstring. ``data`` must be JSON (a ``TypeError`` otherwise);
        a ``level`` that is not one of :data:`LOG_LEVELS` is a ``ValueError`` (driver bugs both)."""
        rank = _SEVERITY.get(level)
        if rank is None:
            raise ValueError(f"log level must be one of {', '.join(LOG_LEVELS)}, not {level!r}")
        self._advance(now)
        if self._closed:
            return
        message = {"level": level, "logger": logger, "data": data}
        frame = encode_frame({"jsonrpc": "2.0", "method": "notifications/message", "params": message})
        if self._era is Era.STATELESS:
            floor = self._request_log_floor()
            if floor is not None and rank >= floor:
                self._send_log(frame, rank)
        elif self._initialized and self._log_level is not None:
            if rank >= self._log_level:
                self._send_log(frame, rank)
        elif self.config.log_backlog_max:
            backlog = self._log_backlog
            backlog.pop(frame, None)
            backlog[frame] = rank
            if len(backlog) > self.config.log_backlog_max:
                del backlog[next(iter(backlog))]

    def timer(self) -> float | None:
        """When the driver must call :meth:`handle_timer` (its clock, as given to :meth:`log`):
        the end of a rate-limit window that suppressed messages; ``None`` when nothing waits."""
        if self._suppressed and not self._closed:
            return self._window_end
        return None

    def handle_timer(self, now: float) -> None:
        """The driver's clock reached ``now``: end a rate-limit window that is over."""
        self._advance(now)
        if self._window_end is not None and self._now >= self._window_end and not self._closed:
            self._end_window(self._log_floor())

    # --- frames ------------------------------------------------------------------------------

    def _handle_item(self, item: bytes | object) -> None:
        if item is OVERSIZED:
            limit = self.config.max_frame_bytes
            self._emit(_error(None, RpcError(ErrorCode.INVALID_REQUEST, f"frame longer than {limit} bytes; dropped")))
            return
        try:
            message = decode(item)  # type: ignore[arg-type]
        except DecodeError as exc:
            self._emit(_error(None, RpcError(ErrorCode.PARSE_ERROR, f"parse error: {exc}")))
            return
        if message.__class__ is list:
            self._handle_batch(message)
            return
        answer = self._handle_message(message, None, 0)
        if answer is not None:
            self._emit(answer)

    def _handle_batch(self, messages: list[Any]) -> None:
        if not messages:
            self._emit(_error(None, RpcError(ErrorCode.INVALID_REQUEST, "empty batch")))
            return
        if self._version not in BATCH_VERSIONS:
            served = self._version or "no version yet"
            reason = f"JSON-RPC batches are served only in protocol version 2025-03-26 (this session: {served})"
            self._emit(_error(None, RpcError(ErrorCode.INVALID_REQUEST, reason)))
            return
        if len(messages) > self.config.max_batch_items:
            reason = f"batch of {len(messages)} messages; at most {self.config.max_batch_items} are served"
            self._emit(_error(None, RpcError(ErrorCode.INVALID_REQUEST, reason)))
            return
        batch = _Batch(answers=[None] * len(messages))
        for slot, message in enumerate(messages):
            batch.answers[slot] = self._handle_message(message, batch, slot)
        if batch.pending == 0:
            self._emit_batch(batch)

    def _emit(self, message: dict[str, Any]) -> None:
        try:
            frame = encode_frame(message)
        except TypeError as exc:
            failure = RpcError(ErrorCode.INTERNAL_ERROR, f"result could not be encoded: {exc}")
            frame = encode_frame(_error(message.get("id"), failure))
        self._out.append(frame)

    def _emit_batch(self, batch: _Batch) -> None:
        answers = [answer for answer in batch.answers if answer is not None]
        if not answers:
            return
        try:
            frame = encode_frame(answers)
        except TypeError:
            # One answer cannot be encoded: encode each alone, so only that one becomes -32603.
            parts = [self._encode_or_internal_error(answer) for answer in answers]
            frame = b"[" + b",".join(parts) + b"]\n"
        self._out.append(frame)

    @staticmethod
    def _encode_or_internal_error(answer: dict[str, Any]) -> bytes:
        try:
            return encode_frame(answer)[:-1]
        except TypeError as exc:
            failure = RpcError(ErrorCode.INTERNAL_ERROR, f"result could not be encoded: {exc}")
            return encode_frame(_error(answer.get("id"), failure))[:-1]

    # --- classification ----------------------------------------------------------------------

    def _handle_message(self, message: Any, batch: _Batch | None, slot: int) -> dict[str, Any] | None:
        """Classify one message; return its immediate answer, or ``None`` (no answer, or later)."""
        # The decoder gives exact types: ``__class__ is`` tests are exact and cheap (bool is not int).
        if message.__class__ is not dict:
            reason = f"a message must be a JSON object, not a JSON {_json_type(message)}"
            return _error(None, RpcError(ErrorCode.INVALID_REQUEST, reason))
        get = message.get
        raw_id = get("id", _ABSENT)
        reply_id = raw_id if raw_id.__class__ in _ID_TYPES else None
        if get("jsonrpc") != "2.0":
            return _error(reply_id, RpcError(ErrorCode.INVALID_REQUEST, 'jsonrpc must be exactly "2.0"'))
        method = get("method", _ABSENT)
        if method.__class__ is not str:
            if method is not _ABSENT:
                return _error(reply_id, RpcError(ErrorCode.INVALID_REQUEST, "method must be a string"))
            if ("result" in message or "error" in message) and raw_id is not _ABSENT:
                return None  # a client's response: never answered
            return _error(reply_id, RpcError(ErrorCode.INVALID_REQUEST, "not a request: no method"))
        params = get("params", _EMPTY)
        if raw_id is _ABSENT:
            if params.__class__ is dict:
                self._handle_notification(method, params)
            return None  # notifications are never answered, not even malformed ones
        if reply_id is None:
            reason = f"id must be a string or an integer, not {_json_type(raw_id)}"
            return _error(None, RpcError(ErrorCode.INVALID_REQUEST, reason))
        if params.__class__ is not dict:
            return _error(reply_id, RpcError(ErrorCode.INVALID_PARAMS, "params must be an object"))
        if reply_id in self._calls:
            reason = f"request id {clip(str(reply_id))} is already in flight"
            return _error(reply_id, RpcError(ErrorCode.INVALID_REQUEST, reason))
        try:
            return self._handle_request(reply_id, method, params, batch, slot)
        except RpcError as exc:
            return _error(reply_id, exc)

    def _handle_notification(self, method: str, params: dict[str, Any]) -> None:
        # Requests are served from the initialize answer on; initialized only opens the log.
        if method == "notifications/initialized":
            if self._era is Era.HANDSHAKE and not self._initialized:
                self._initialized = True
                self._log_replay = self._log_level is not None
            return
        if method == "notifications/cancelled":
            request_id = params.get("requestId")
            if not _is_request_id(request_id):
                return
            call = self._calls.get(request_id)
            if call is None or call.cancelled:
                return  # unknown, finished or already cancelled: nothing to do
            call.cancelled = True
            reason = params.get("reason")
            self._events.append(CallCancelled(request_id, reason if isinstance(reason, str) else None))

    # --- requests ----------------------------------------------------------------------------

    def _handle_request(
        self, request_id: RequestId, method: str, params: dict[str, Any], batch: _Batch | None, slot: int
    ) -> dict[str, Any] | None:
        meta = params.get("_meta")
        if method == "initialize":
            kind = _INITIALIZE
        elif isinstance(meta, dict) and PROTOCOL_VERSION_KEY in meta:
            kind = _ENVELOPED
        else:
            kind = _PLAIN
        route = self._routes[kind]
        if route is _Route.SERVE_HANDSHAKE:
            return self._dispatch(request_id, method, params, self._version, _HANDSHAKE_METHODS, batch, slot)  # type: ignore[arg-type]
        if route is _Route.NEGOTIATE:
            return _result(request_id, self._initialize(params))
        if route is _Route.REFUSE:
            raise self._refusal(kind, params)
        if route is _Route.BEFORE_ERA:
            if method == "ping":
                return _result(request_id, {})
            if method in _STATELESS_ONLY:
                self._check_envelope(meta)  # raises: names the envelope keys it lacks
            if method in _HANDSHAKE_METHODS:
                reason = "not initialized: send initialize first (or use the 2026-07-28 _meta envelope)"
                raise RpcError(ErrorCode.INVALID_REQUEST, reason)
            raise _method_not_found(method)
        version = self._check_envelope(meta)
        if self._era is Era.UNDECIDED:
            self._set_era(Era.STATELESS)
            self._client_info = meta.get(CLIENT_INFO_KEY)
        level = meta.get(LOG_LEVEL_KEY, _ABSENT)
        if level is not _ABSENT and (level.__class__ is not str or level not in _SEVERITY):
            reason = f"unknown log level {clip(level)} in _meta {LOG_LEVEL_KEY}; levels: {', '.join(LOG_LEVELS)}"
            raise RpcError(ErrorCode.INVALID_PARAMS, reason)
        return self._dispatch(request_id, method, params, version, _MODERN_METHODS, batch, slot)

    def _set_era(self, era: Era) -> None:
        self._era = era
        self._routes = _ROUTES[era]

    def _refusal(self, kind: str, params: dict[str, Any]) -> RpcError:
        if self._era is Era.STATELESS:
            requested = params.get("protocolVersion")
            return RpcError(
                ErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
                "this session serves the stateless 2026-07-28 protocol; initialize is not accepted",
                {"supported": list(MODERN_VERSIONS), "requested": requested if isinstance(requested, str) else None},
            )
        if kind == _INITIALIZE:
            return RpcError(ErrorCode.INVALID_REQUEST, f"already initialized (protocol version {self._version})")
        reason = (
            f"this session negotiated {self._version} with initialize; "
            "requests carrying the 2026-07-28 _meta envelope are not accepted on it"
        )
        return RpcError(ErrorCode.INVALID_REQUEST, reason)

    def _dispatch(
        self,
        request_id: RequestId,
        method: str,
        params: dict[str, Any],
        version: str,
        served: frozenset[str],
        batch: _Batch | None,
        slot: int,
    ) -> dict[str, Any] | None:
        if method not in served:
            raise _method_not_found(method)
        if method == "ping":
            return {"jsonrpc": "2.0", "id": request_id, "result": {}}
        if method == "tools/list":
            cursor = params.get("cursor")
            start = 0 if cursor is None else _parse_cursor(cursor, len(self.tools))
            return _result(request_id, self._cached(method, version, start))
        if method == "server/discover":
            return _result(request_id, self._cached(method, version, 0))
        if method == "logging/setLevel":
            level = params.get("level")
            if level.__class__ is not str or level not in _SEVERITY:
                reason = f"unknown log level {clip(level)}; levels: {', '.join(LOG_LEVELS)}"
                raise RpcError(ErrorCode.INVALID_PARAMS, reason)
            self._log_replay = self._log_level is None and self._initialized
            self._log_level = _SEVERITY[level]
            return {"jsonrpc": "2.0", "id": request_id, "result": {}}
        self._start_call(request_id, params, version, batch, slot)
        return None

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise RpcError(ErrorCode.INVALID_PARAMS, "initialize needs params.protocolVersion (a string)")
        version = requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE_VERSION
        self._set_era(Era.HANDSHAKE)
        self._version = version
        self._client_info = params.get("clientInfo")
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": self._capabilities(),
            "serverInfo": self._server_info(),
        }
        if self.config.instructions:
            result["instructions"] = self.config.instructions
        return result

    def _check_envelope(self, meta: Any) -> str:
        """The stateless-era checks on ``params._meta``; returns the requested version."""
        if not isinstance(meta, dict):
            reason = f"params._meta must be an object carrying {PROTOCOL_VERSION_KEY} and {CLIENT_CAPABILITIES_KEY}"
            raise RpcError(ErrorCode.INVALID_PARAMS, reason)
        missing = [key for key in (PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY) if key not in meta]
        if missing:
            raise RpcError(ErrorCode.INVALID_PARAMS, f"params._meta lacks {', '.join(missing)}")
        requested = meta[PROTOCOL_VERSION_KEY]
        if not isinstance(requested, str):
            raise RpcError(ErrorCode.INVALID_PARAMS, f"{PROTOCOL_VERSION_KEY} must be a string")
        if requested not in MODERN_VERSIONS:
            # Until the era is fixed, the handshake versions are on offer too: a client may fall back.
            supported = list(MODERN_VERSIONS)
            if self._era is Era.UNDECIDED:
                supported += reversed(HANDSHAKE_VERSIONS)
            raise RpcError(
                ErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
                f"unsupported protocol version {clip(requested)}",
                {"supported": supported, "requested": requested[:64]},
            )
        return requested

    def _discover(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "supportedVersions": list(MODERN_VERSIONS),
            "capabilities": self._capabilities(),
            "ttlMs": self.config.cache_ttl_ms,
            "cacheScope": "public",
        }
        if self.config.instructions:
            result["instructions"] = self.config.instructions
        return result

    def _shape(self, result: dict[str, Any], version: str) -> dict[str, Any]:
        """A result in the shape of ``version``: 2026-07-28 adds ``resultType`` and ``serverInfo``."""
        if version in MODERN_VERSIONS:
            result = {**result, "resultType": "complete", "_meta": {SERVER_INFO_KEY: self._server_info()}}
        return result

    def _cached(self, method: str, version: str, start: int) -> Fragment:
        """The encoded result of a request whose answer never changes in this session.

        ``tools/list`` pages and ``server/discover`` depend only on the catalogue, the version and
        the page: each is rendered and encoded once, then spliced into every answer.
        """
        key = (method, version, start)
        fragment = self._result_cache.get(key)
        if fragment is None:
            result = self._tools_list(start, version) if method == "tools/list" else self._discover()
            try:
                fragment = encode_fragment(self._shape(result, version))
            except TypeError as exc:
                raise RpcError(ErrorCode.INTERNAL_ERROR, f"{method} result could not be encoded: {exc}") from None
            self._result_cache[key] = fragment
        return fragment

    def _capabilities(self) -> dict[str, Any]:
        return {"logging": {}, "tools": {"listChanged": False}}

    def _server_info(self) -> dict[str, Any]:
        return {"name": self.config.server_name, "version": self.config.server_version}

    # --- tools -------------------------------------------------------------------------------

    def _tools_list(self, start: int, version: str) -> dict[str, Any]:
        end = start + self.config.tools_page_size
        result: dict[str, Any] = {"tools": [_render_tool(spec, version) for spec in self.tools[start:end]]}
        if end < len(self.tools):
            result["nextCursor"] = f"{_CURSOR_PREFIX}{end}"
        if version in MODERN_VERSIONS:
            result["ttlMs"] = self.config.cache_ttl_ms
            result["cacheScope"] = "public"
        return result

    def _start_call(
        self, request_id: RequestId, params: dict[str, Any], version: str, batch: _Batch | None, slot: int
    ) -> None:
        if "name" not in params:
            raise RpcError(ErrorCode.INVALID_PARAMS, "tools/call needs params.name (the tool to call)")
        name = params["name"]
        if not isinstance(name, str):
            raise RpcError(ErrorCode.INVALID_PARAMS, "params.name must be a string")
        if name not in self._tool_index:
            known = ", ".join(sorted(self._tool_index)) or "none"
            raise RpcError(ErrorCode.INVALID_PARAMS, f"unknown tool {clip(name)}; tools: {known}")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        elif not isinstance(arguments, dict):
            raise RpcError(ErrorCode.INVALID_PARAMS, "params.arguments must be an object")
        meta = params.get("_meta")
        floor = None
        if version in REQUEST_LOG_LEVEL_VERSIONS:  # checked with the envelope
            floor = _SEVERITY.get(meta.get(LOG_LEVEL_KEY))  # type: ignore[union-attr, arg-type]
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        if token.__class__ not in _ID_TYPES or any(call.progress_token == token for call in self._calls.values()):
            token = None  # none given, not a string or an integer, or held by a call in flight
        self._calls[request_id] = _Call(request_id, version, batch, slot, log_floor=floor, progress_token=token)
        if batch is not None:
            batch.pending += 1
        self._events.append(
            ToolCallRequested(request_id, name, arguments, meta if isinstance(meta, dict) else {}, version)
        )

    @staticmethod
    def _call_result(outcome: ToolResult, version: str) -> dict[str, Any]:
        result: dict[str, Any] = {"content": [{"type": "text", "text": outcome.text}], "isError": outcome.is_error}
        if outcome.structured_content is not None and at_least(version, "2025-06-18"):
            result["structuredContent"] = outcome.structured_content
        return result

    # --- the server's own log ----------------------------------------------------------------

    def _advance(self, now: float) -> None:
        self._now = max(self._now, now)

    def _log_floor(self) -> int | None:
        """The lowest log level the client takes now (None: it takes none)."""
        if self._era is Era.STATELESS:
            return self._request_log_floor()
        return self._log_level if self._initialized else None

    def _request_log_floor(self) -> int | None:
        """Stateless era: the lowest log level a call in flight asked for (None: none asked)."""
        floors = [call.log_floor for call in self._calls.values() if call.log_floor is not None and not call.cancelled]
        return min(floors) if floors else None

    def _replay_log(self) -> None:
        """The handshake client has sent both ``initialized`` and a level: send what was kept."""
        self._log_replay = False
        backlog, self._log_backlog = self._log_backlog, {}
        level = self._log_level
        for frame, rank in backlog.items():
            if rank >= level:  # type: ignore[operator]
                self._send_log(frame, rank)

    def _send_log(self, frame: bytes, rank: int) -> None:
        """Send one log message within the rate limit, else count it."""
        if self._window_end is not None and self._now >= self._window_end:
            self._end_window(self._log_floor())
        if self._window_end is None:
            self._window_end = self._now + self.config.log_window_ms / 1000
            self._window_sent = 0
        if self._window_sent < self.config.log_messages_max:
            self._window_sent += 1
            self._out.append(frame)
        else:
            self._suppressed += 1
            self._suppressed_rank = max(self._suppressed_rank, rank)

    def _end_window(self, floor: int | None) -> None:
        """Close the rate-limit window, counting what it suppressed."""
        self._window_end = None
        self._count_suppressed(floor)

    def _count_suppressed(self, floor: int | None) -> None:
        """One message says how many were suppressed, if the client takes messages of that level
        (``floor``: the lowest level it asked for; None: it takes none); the count starts again."""
        suppressed, rank = self._suppressed, self._suppressed_rank
        self._suppressed = self._suppressed_rank = 0
        if suppressed and floor is not None and rank >= floor:
            limit, window_s = self.config.log_messages_max, self.config.log_window_ms / 1000
            data = {
                "message": f"{suppressed} log message(s) suppressed: at most {limit} are sent every {window_s:g} s",
                "suppressed": suppressed,
            }
            message = {"level": LOG_LEVELS[rank], "logger": _LIMIT_LOGGER, "data": data}
            self._out.append(encode_frame({"jsonrpc": "2.0", "method": "notifications/message", "params": message}))


# --- helpers ---------------------------------------------------------------------------------


_ID_TYPES: Final = (str, int)


def _is_request_id(value: Any) -> bool:
    return type(value) in _ID_TYPES


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _method_not_found(method: str) -> RpcError:
    return RpcError(ErrorCode.METHOD_NOT_FOUND, f"method not found: {clip(method)}")


def _parse_cursor(cursor: Any, total: int) -> int:
    if isinstance(cursor, str) and cursor.startswith(_CURSOR_PREFIX):
        digits = cursor[len(_CURSOR_PREFIX) :]
        if digits.isascii() and digits.isdigit() and len(digits) < 10 and 0 < int(digits) < total:
            return int(digits)
    raise RpcError(ErrorCode.INVALID_PARAMS, f"invalid cursor {clip(cursor)}; use a nextCursor from tools/list")


def _render_tool(spec: ToolSpec, version: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": spec.name, "description": spec.description, "inputSchema": spec.input_schema}
    if spec.annotations is not None and at_least(version, "2025-03-26"):
        entry["annotations"] = spec.annotations
    if at_least(version, "2025-06-18"):
        if spec.title is not None:
            entry["title"] = spec.title
        if spec.output_schema is not None:
            entry["outputSchema"] = spec.output_schema
    return entry


def _result(request_id: RequestId, result: dict[str, Any] | Fragment) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _error(request_id: RequestId | None, error: RpcError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_json()}
