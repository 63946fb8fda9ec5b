"""A real ServerSession driven side by side with a small model of the protocol.

Theory of operation
-------------------
Hypothesis picks a program of client actions: open (initialize, an enveloped discover, or say
nothing), send a frame of some kind, deliver bytes, complete or cancel a call in flight, end the
input, open a new session once the old one has closed. A frame goes out as soon as it is written,
unless the program is *pipelining*: then frames pile up on the wire until a delivery rule feeds
them, all at once or as a prefix cut into random chunks that may leave half a line behind. After
every chunk and every completion the test pulls ``next_event`` until a :class:`Wait` or
:class:`SessionClosed`, as a driver would.

The :class:`Model` is an independent statement of the rules of INVARIANTS.md, for the shapes of
message this test sends; it reads nothing of the session's tables. It takes a frame when the
session should: once the frame's newline has been delivered (an oversized one as soon as
``max_frame_bytes + 2`` of its bytes have: it is dropped while it streams), never while
``max_in_flight`` calls are out, every frame at EOF. From it the model predicts exactly what the
session must do: the frames it writes (each answer's id, its exact result, or its error code and
data), the events it hands out, whether it waits for data or is paused, how many bytes it holds.
Each request goes into a ledger, so the end of a session checks that every request was answered
exactly once, except a call cancelled while in flight, which never is.

A failure that Hypothesis finds becomes a plain test at the bottom of this file that replays the
minimal program, step by step, on the same machine (no ``@reproduce_failure`` blobs).
"""

from __future__ import annotations

import json
import sys
from collections import Counter, deque
from typing import Any

import attrs
import orjson
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, multiple, precondition, rule

from mesh.protocol import (
    CallCancelled,
    ServerSession,
    SessionClosed,
    SessionConfig,
    ToolCallRequested,
    ToolCrashed,
    ToolOutcome,
    ToolResult,
    ToolSpec,
    Wait,
)

# --- the protocol as the model states it -----------------------------------------------------

MAX_FRAME_BYTES = 512
MAX_IN_FLIGHT = 3
MAX_BATCH_ITEMS = 4
PAGE_SIZE = 2
TTL_MS = 5_000
SERVER_INFO = {"name": "mesh-test", "version": "1.2.3"}
INSTRUCTIONS = "Use the tools."
CONFIG = SessionConfig(
    server_name=SERVER_INFO["name"],
    server_version=SERVER_INFO["version"],
    instructions=INSTRUCTIONS,
    max_frame_bytes=MAX_FRAME_BYTES,
    max_in_flight=MAX_IN_FLIGHT,
    max_batch_items=MAX_BATCH_ITEMS,
    tools_page_size=PAGE_SIZE,
    cache_ttl_ms=TTL_MS,
)
TOOLS = (
    ToolSpec("alpha", "Plain.", {"type": "object"}),
    ToolSpec("beta", "Titled.", {"type": "object", "properties": {"n": {"type": "integer"}}}, title="Beta"),
    ToolSpec("gamma", "Annotated.", {"type": "object"}, annotations={"readOnlyHint": True}),
    ToolSpec("delta", "Typed output.", {"type": "object"}, output_schema={"type": "object"}),
    ToolSpec(
        "omega",
        "Everything.",
        {"type": "object"},
        title="Omega",
        annotations={"destructiveHint": False},
        output_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
    ),
)
TOOL_NAMES = tuple(spec.name for spec in TOOLS)

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
NEWEST_HANDSHAKE = "2025-11-25"
STATELESS_VERSION = "2026-07-28"
BATCH_VERSION = "2025-03-26"
VERSION_RANK = {version: rank for rank, version in enumerate((*HANDSHAKE_VERSIONS, STATELESS_VERSION))}
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
CAPABILITIES = {"logging": {}, "tools": {"listChanged": False}}

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
UNSUPPORTED_VERSION = -32022
MESSAGE_CHARS_MAX = 256

# INV-LIFE-2: an enveloped request fixes the stateless era as soon as its envelope passes the
# checks, even when the request then fails (-32601, -32602). An earlier wording of the invariant
# said "the first request that succeeds"; a variant of this machine with that rule found the
# mismatch, and the document now says what the core (and the official SDK) do.


def at_least(version: str, floor: str) -> bool:
    return VERSION_RANK[version] >= VERSION_RANK[floor]


@attrs.frozen
class NextCursor:
    """In an expected ``tools/list`` result: some string, which must lead to the page at ``start``."""

    start: int


@attrs.frozen
class Reply:
    """One expected answer: its id, and its exact result or its error code (and error data)."""

    id: Any
    #: The request's ledger entry; ``None`` for an answer to something that is not a request.
    serial: int | None
    result: Any = None
    code: int | None = None
    data: Any = None


@attrs.define
class ModelBatch:
    replies: list[Reply | None]
    pending: int = 0


@attrs.define
class ModelCall:
    request_id: Any
    serial: int
    version: str
    batch: ModelBatch | None
    slot: int
    cancelled: bool = False


@attrs.define
class Frame:
    """One line on the wire, as the test wrote it."""

    start: int
    end: int
    #: ``json`` (``message`` is the value), ``garbage`` (not JSON), ``blank`` or ``oversized``.
    kind: str
    message: Any = None
    terminated: bool = True


def render_tool(spec: ToolSpec, version: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": spec.name, "description": spec.description, "inputSchema": spec.input_schema}
    if spec.annotations is not None and at_least(version, "2025-03-26"):
        entry["annotations"] = spec.annotations
    if at_least(version, "2025-06-18"):
        if spec.title is not None:
            entry["title"] = spec.title
        if spec.output_schema is not None:
            entry["outputSchema"] = spec.output_schema
    return entry


def stateless_shape(result: dict[str, Any], version: str) -> dict[str, Any]:
    """2026-07-28 results carry ``resultType`` and the server info; handshake results never do."""
    if version != STATELESS_VERSION:
        return result
    return {**result, "resultType": "complete", "_meta": {SERVER_INFO_KEY: SERVER_INFO}}


@attrs.define
class Model:
    """What the session must do, frame by frame (INVARIANTS.md in the terms of this test)."""

    era: str = "undecided"
    version: str | None = None
    #: Calls handed out and not yet completed, in hand-out order (cancelled ones too).
    calls: dict[Any, ModelCall] = attrs.field(factory=dict)
    #: Cursors the server has issued, and the page each must lead to.
    cursors: dict[str, int] = attrs.field(factory=dict)
    #: Expected output frames and events since the last check.
    out: list[Reply | list[Reply]] = attrs.field(factory=list)
    events: list[ToolCallRequested | CallCancelled] = attrs.field(factory=list)
    #: The ledger: every request with a valid id gets a serial; cancelled calls are never answered.
    serials: int = 0
    cancelled: set[int] = attrs.field(factory=set)
    answered: Counter[int] = attrs.field(factory=Counter)

    # --- frames ---

    def take_frame(self, frame: Frame) -> None:
        if frame.kind == "blank":
            return
        if frame.kind == "garbage":
            self.out.append(Reply(None, None, code=PARSE_ERROR))
        elif frame.kind == "oversized":
            self.out.append(Reply(None, None, code=INVALID_REQUEST))
        elif isinstance(frame.message, list):
            self.take_batch(frame.message)
        else:
            reply = self.take_message(frame.message, None, 0)
            if reply is not None:
                self.out.append(reply)

    def take_batch(self, messages: list[Any]) -> None:
        """INV-LIFE-4: one array, in order, once its last call completes; refused whole otherwise."""
        if not messages or self.version != BATCH_VERSION or len(messages) > MAX_BATCH_ITEMS:
            self.out.append(Reply(None, None, code=INVALID_REQUEST))
            return
        batch = ModelBatch([None] * len(messages))
        for slot, message in enumerate(messages):
            batch.replies[slot] = self.take_message(message, batch, slot)
        if batch.pending == 0:
            self.emit_batch(batch)

    def emit_batch(self, batch: ModelBatch) -> None:
        replies = [reply for reply in batch.replies if reply is not None]
        if replies:
            self.out.append(replies)

    # --- messages ---

    def take_message(self, message: Any, batch: ModelBatch | None, slot: int) -> Reply | None:
        """INV-CLASS-2/3: what one message asks for, and its answer now (``None``: none, or later)."""
        if not isinstance(message, dict):
            return Reply(None, None, code=INVALID_REQUEST)
        has_id = "id" in message
        request_id = message.get("id")
        valid_id = type(request_id) in (int, str)
        reply_id = request_id if valid_id else None
        if message.get("jsonrpc") != "2.0":
            return Reply(reply_id, None, code=INVALID_REQUEST)
        if "method" not in message:
            if has_id and ("result" in message or "error" in message):
                return None  # a client's response
            return Reply(reply_id, None, code=INVALID_REQUEST)
        method = message["method"]
        if not isinstance(method, str):
            return Reply(reply_id, None, code=INVALID_REQUEST)
        params = message.get("params", {})
        if not has_id:
            if isinstance(params, dict):
                self.take_notification(method, params)
            return None
        if not valid_id:
            return Reply(None, None, code=INVALID_REQUEST)
        serial = self.serials
        self.serials += 1
        if not isinstance(params, dict):
            return Reply(request_id, serial, code=INVALID_PARAMS)
        if request_id in self.calls:
            return Reply(request_id, serial, code=INVALID_REQUEST)
        return self.take_request(request_id, serial, method, params, batch, slot)

    def take_notification(self, method: str, params: dict[str, Any]) -> None:
        if method != "notifications/cancelled":
            return
        request_id = params.get("requestId")
        call = self.calls.get(request_id) if type(request_id) in (int, str) else None
        if call is None or call.cancelled:
            return
        call.cancelled = True
        self.cancelled.add(call.serial)
        reason = params.get("reason")
        self.events.append(CallCancelled(request_id, reason if isinstance(reason, str) else None))

    def take_request(
        self, request_id: Any, serial: int, method: str, params: dict[str, Any], batch: ModelBatch | None, slot: int
    ) -> Reply | None:
        """INV-LIFE-1/2/3: the lifecycle, by era."""

        def error(code: int, data: Any = None) -> Reply:
            return Reply(request_id, serial, code=code, data=data)

        requested = params.get("protocolVersion")
        if method == "initialize":
            if self.era == "stateless":
                data = {
                    "supported": [STATELESS_VERSION],
                    "requested": requested if isinstance(requested, str) else None,
                }
                return error(UNSUPPORTED_VERSION, data)
            if self.era == "handshake":
                return error(INVALID_REQUEST)
            if not isinstance(requested, str):
                return error(INVALID_PARAMS)
            self.era = "handshake"
            self.version = requested if requested in HANDSHAKE_VERSIONS else NEWEST_HANDSHAKE
            result = {"protocolVersion": self.version, "capabilities": CAPABILITIES, "serverInfo": SERVER_INFO}
            return Reply(request_id, serial, result={**result, "instructions": INSTRUCTIONS})
        meta = params.get("_meta")
        enveloped = isinstance(meta, dict) and VERSION_KEY in meta
        if self.era == "handshake":
            if enveloped:
                return error(INVALID_REQUEST)
            assert self.version is not None
            return self.serve(request_id, serial, method, params, self.version, batch, slot)
        if self.era == "undecided" and not enveloped:
            if method == "ping":
                return Reply(request_id, serial, result={})
            if method == "server/discover":
                return error(INVALID_PARAMS)  # it exists only with the envelope
            if method in ("tools/list", "tools/call"):
                return error(INVALID_REQUEST)  # send initialize first
            return error(METHOD_NOT_FOUND)
        # The stateless era, or an undecided one meeting its first envelope.
        if not isinstance(meta, dict) or VERSION_KEY not in meta or CAPABILITIES_KEY not in meta:
            return error(INVALID_PARAMS)
        version = meta[VERSION_KEY]
        if not isinstance(version, str):
            return error(INVALID_PARAMS)
        if version != STATELESS_VERSION:
            supported = [STATELESS_VERSION]
            if self.era == "undecided":
                supported += reversed(HANDSHAKE_VERSIONS)
            return error(UNSUPPORTED_VERSION, {"supported": supported, "requested": version})
        self.era = "stateless"  # the envelope passed: whatever happens to the request now
        return self.serve(request_id, serial, method, params, version, batch, slot)

    def serve(
        self,
        request_id: Any,
        serial: int,
        method: str,
        params: dict[str, Any],
        version: str,
        batch: ModelBatch | None,
        slot: int,
    ) -> Reply | None:
        """A request of the era's own methods, at ``version``."""

        def error(code: int) -> Reply:
            return Reply(request_id, serial, code=code)

        stateless = version == STATELESS_VERSION
        if method == "ping" and not stateless:
            return Reply(request_id, serial, result={})
        if method == "server/discover" and stateless:
            result = {
                "supportedVersions": [STATELESS_VERSION],
                "capabilities": CAPABILITIES,
                "ttlMs": TTL_MS,
                "cacheScope": "public",
                "instructions": INSTRUCTIONS,
            }
            return Reply(request_id, serial, result=stateless_shape(result, version))
        if method == "tools/list":
            cursor = params.get("cursor")
            if cursor is None:
                start = 0
            elif isinstance(cursor, str) and cursor in self.cursors:
                start = self.cursors[cursor]
            else:
                return error(INVALID_PARAMS)
            end = start + PAGE_SIZE
            listing: dict[str, Any] = {"tools": [render_tool(spec, version) for spec in TOOLS[start:end]]}
            if end < len(TOOLS):
                listing["nextCursor"] = NextCursor(end)
            if stateless:
                listing |= {"ttlMs": TTL_MS, "cacheScope": "public"}
            return Reply(request_id, serial, result=stateless_shape(listing, version))
        if method == "tools/call":
            name = params.get("name")
            arguments = params.get("arguments")
            if name not in TOOL_NAMES or not (arguments is None or isinstance(arguments, dict)):
                return error(INVALID_PARAMS)
            meta = params.get("_meta")
            self.calls[request_id] = ModelCall(request_id, serial, version, batch, slot)
            if batch is not None:
                batch.pending += 1
            event_meta = meta if isinstance(meta, dict) else {}
            self.events.append(ToolCallRequested(request_id, name, arguments or {}, event_meta, version))
            return None
        return error(METHOD_NOT_FOUND)

    def complete(self, request_id: Any, outcome: ToolOutcome) -> None:
        """INV-DRAIN-1: a completed call is answered once, unless it was cancelled in flight."""
        call = self.calls.pop(request_id)
        reply: Reply | None
        if call.cancelled:
            reply = None
        elif isinstance(outcome, ToolCrashed):
            reply = Reply(request_id, call.serial, code=INTERNAL_ERROR)
        else:
            result: dict[str, Any] = {"content": [{"type": "text", "text": outcome.text}], "isError": outcome.is_error}
            if outcome.structured_content is not None and at_least(call.version, "2025-06-18"):
                result["structuredContent"] = outcome.structured_content
            reply = Reply(request_id, call.serial, result=stateless_shape(result, call.version))
        if call.batch is None:
            if reply is not None:
                self.out.append(reply)
            return
        call.batch.replies[call.slot] = reply
        call.batch.pending -= 1
        if call.batch.pending == 0:
            self.emit_batch(call.batch)

    # --- matching the session's output against the expectations ---

    def check_answer(self, actual: Any, expected: Reply) -> None:
        assert isinstance(actual, dict), f"expected an answer object, got {actual!r}"
        assert actual.get("jsonrpc") == "2.0", actual
        assert "id" in actual and actual["id"] == expected.id and type(actual["id"]) is type(expected.id), (
            f"answer {actual!r} does not carry the id {expected.id!r}"
        )
        if expected.code is None:
            assert set(actual) == {"jsonrpc", "id", "result"}, f"expected a result, got {actual!r}"
            self.check_result(actual["result"], expected.result)
        else:
            assert set(actual) == {"jsonrpc", "id", "error"}, f"expected error {expected.code}, got {actual!r}"
            error = actual["error"]
            assert error["code"] == expected.code, f"expected error {expected.code}, got {actual!r}"
            assert isinstance(error["message"], str) and len(error["message"]) <= MESSAGE_CHARS_MAX  # INV-CLASS-4
            if expected.data is None:
                assert "data" not in error, actual
            else:
                assert error.get("data") == expected.data, f"expected data {expected.data!r}, got {actual!r}"
        if expected.serial is not None:
            self.answered[expected.serial] += 1
            assert self.answered[expected.serial] == 1, f"request {expected.id!r} answered twice"

    def check_result(self, actual: Any, expected: Any) -> None:
        assert isinstance(actual, dict), actual
        next_cursor = expected.get("nextCursor")
        if isinstance(next_cursor, NextCursor):
            cursor = actual.get("nextCursor")
            assert isinstance(cursor, str), f"expected a nextCursor in {actual!r}"
            assert self.cursors.setdefault(cursor, next_cursor.start) == next_cursor.start, (
                f"cursor {cursor!r} was issued for two different pages"
            )
            actual = {key: value for key, value in actual.items() if key != "nextCursor"}
            expected = {key: value for key, value in expected.items() if key != "nextCursor"}
        assert actual == expected, f"result {actual!r} is not the expected {expected!r}"


# --- what the test sends ---------------------------------------------------------------------

ENVELOPES: dict[str, Any] = {
    "none": None,
    "valid": {VERSION_KEY: STATELESS_VERSION, CAPABILITIES_KEY: {}, CLIENT_INFO_KEY: {"name": "model", "version": "1"}},
    "unsupported version": {VERSION_KEY: "2099-01-01", CAPABILITIES_KEY: {}},
    "handshake version": {VERSION_KEY: "2025-06-18", CAPABILITIES_KEY: {}},
    "no capabilities": {VERSION_KEY: STATELESS_VERSION},
    "version not a string": {VERSION_KEY: 20260728, CAPABILITIES_KEY: {}},
    "trace only": {"traceparent": "00-" + "a" * 32 + "-" + "b" * 16 + "-01"},
    "not an object": "meta",
}
#: "fitting" is what a well-behaved client sends in the era at hand (see SessionMachine.fit).
envelopes = st.sampled_from(["fitting", "fitting", "fitting", "fitting", *ENVELOPES])
#: A small pool, so that ids collide with calls in flight.
ids = st.integers(0, 9) | st.sampled_from(["a", "b", "c"])
#: Ids of invalid requests: never the id of a call, so that no rule of precedence is involved.
stray_ids = st.sampled_from([100, "stray"])
initialize_versions = st.sampled_from(
    [*HANDSHAKE_VERSIONS, BATCH_VERSION, BATCH_VERSION, STATELESS_VERSION, "1999-01-01", None]
)
#: ("issued",) picks a cursor the server issued; the given ones it never issues ("tools:²" once
#: crashed the core: test_unicode_digit_cursor_is_invalid_params_not_a_crash_INV_CLASS_1).
cursors = st.sampled_from(
    [
        ("absent",),
        ("issued",),
        ("issued",),
        *(("given", c) for c in ["bogus", "", 7, ["tools:2"], "tools:99", "tools:-1", "tools:2x", "TOOLS:2", "tools:²"]),
    ]
)
call_names = st.sampled_from([*TOOL_NAMES, *TOOL_NAMES, "nope", 3, None])
call_arguments = st.sampled_from(
    [
        ("absent",),
        ("given", None),
        ("given", {}),
        ("given", {"n": 1}),
        ("given", {"n": 1}),
        ("given", [1]),
        ("given", "x"),
    ]
)
outcomes = st.one_of(
    st.builds(
        ToolResult, st.text(max_size=12), is_error=st.booleans(), structured_content=st.sampled_from([None, {"n": 1}])
    ),
    st.builds(ToolCrashed, st.text(max_size=12)),
)
#: First bytes that no JSON text starts with; with no newline after them, the line is garbage.
GARBAGE_STARTS = [b"\xff", b"x", b"}", b"\x00", b"NaN", b"\xef\xbb\xbf{}", b'{"jsonrpc":"2.0","id":1']


def _is_json(payload: bytes) -> bool:
    try:
        orjson.loads(payload)
    except orjson.JSONDecodeError:
        return False
    return True


#: (A start may still be completed into JSON by the bytes drawn after it, b'{"jsonrpc":"2.0","id":1' + b"}":
#: a request without a method, not garbage. Those draws are left out.)
garbage = (
    st.tuples(st.sampled_from(GARBAGE_STARTS), st.binary(max_size=24))
    .map(lambda parts: (parts[0] + parts[1]).replace(b"\n", b""))
    .filter(lambda payload: not _is_json(payload))
)
BATCH_ITEM_KINDS = [
    "ping",
    "call",
    "call",
    "unknown tool",
    "notification",
    "cancel",
    "response",
    "not an object",
    "unknown method",
    "initialize",
]
batch_items = st.lists(
    st.tuples(st.sampled_from(BATCH_ITEM_KINDS), ids, st.sampled_from(TOOL_NAMES)), max_size=MAX_BATCH_ITEMS + 2
)
#: How a session starts: a client that says nothing yet, one that initializes, one that is stateless.
CLIENTS = [
    "raw",
    "raw",
    *(f"handshake {version}" for version in HANDSHAKE_VERSIONS),
    f"handshake {BATCH_VERSION}",
    "stateless",
]
clients = st.sampled_from(CLIENTS)
INVALID_SHAPES = [
    "number",
    "string",
    "null",
    "no jsonrpc",
    "jsonrpc 1.0",
    "bool id",
    "null id",
    "float id",
    "object id",
    "method not a string",
    "no method",
    "id-less method not a string",
    "id-less result",
    "params not an object",
]


def request(
    request_id: Any, method: str, params: dict[str, Any] | None = None, envelope: str = "none"
) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    meta = ENVELOPES[envelope]
    if meta is not None:
        params = {**(params or {}), "_meta": meta}
    if params is not None:
        message["params"] = params
    return message


def batch_item(kind: str, request_id: Any, tool: str) -> Any:
    if kind == "ping":
        return request(request_id, "ping")
    if kind == "call":
        return request(request_id, "tools/call", {"name": tool, "arguments": {"n": 1}})
    if kind == "unknown tool":
        return request(request_id, "tools/call", {"name": "nope"})
    if kind == "notification":
        return {"jsonrpc": "2.0", "method": "notifications/initialized"}
    if kind == "cancel":
        return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}
    if kind == "response":
        return {"jsonrpc": "2.0", "id": request_id, "result": {}}
    if kind == "not an object":
        return 1
    if kind == "unknown method":
        return request(request_id, "resources/list")
    return request(request_id, "initialize", {"protocolVersion": BATCH_VERSION})


def invalid_message(shape: str, request_id: Any) -> Any:
    base = {"jsonrpc": "2.0", "id": request_id, "method": "ping"}
    return {
        "number": 1,
        "string": "ping",
        "null": None,
        "no jsonrpc": {"id": request_id, "method": "ping"},
        "jsonrpc 1.0": {**base, "jsonrpc": "1.0"},
        "bool id": {**base, "id": True},
        "null id": {**base, "id": None},
        "float id": {**base, "id": 1.5},
        "object id": {**base, "id": {"a": 1}},
        "method not a string": {**base, "method": 5},
        "no method": {"jsonrpc": "2.0", "id": request_id},
        "id-less method not a string": {"jsonrpc": "2.0", "method": 5},
        "id-less result": {"jsonrpc": "2.0", "result": {}},
        "params not an object": {**base, "params": [1]},
    }[shape]


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


# --- the machine -----------------------------------------------------------------------------


class SessionMachine(RuleBasedStateMachine):
    """A ServerSession against the model, after every step (INVARIANTS.md):

    INV-FRAME-1 (any chunking), INV-FRAME-2 (oversized lines, bounded buffer), INV-FRAME-3 (CRLF,
    blank lines), INV-FRAME-4 (whole canonical frames), INV-CLASS-1 (garbage never raises),
    INV-CLASS-2 (notifications and responses unanswered), INV-CLASS-3 (error codes), INV-CLASS-4
    (short messages), INV-LIFE-1..4 (eras, versions, batches), INV-BOUND-1 (calls in flight),
    INV-DRAIN-1 (exactly once, unless cancelled), INV-DRAIN-2 (EOF drains, then SessionClosed).
    """

    #: Ids of the ``tools/call`` requests sent: queued, in flight, answered or refused.
    call_ids = Bundle("call_ids")
    def __init__(self) -> None:
        super().__init__()
        self.open_session()

    def open_session(self) -> None:
        self.session = ServerSession(CONFIG, TOOLS)
        self.model = Model()
        #: Frames written while pipelining wait for a delivery rule; otherwise each goes out at once.
        self.pipelining = False
        self.wire = bytearray()  # written, not yet delivered
        self.written = 0  # bytes written to the wire so far (absolute offsets)
        self.fed = 0  # bytes delivered to the session so far
        self.line_start = 0  # where the line being delivered began
        self.frames: deque[Frame] = deque()  # written, not yet taken by the model
        self.eof = False
        self.closed = False
        self.handed_out: dict[Any, ToolCallRequested] = {}
        self.wait: Wait | None = Wait.NEED_DATA

    # --- plumbing ---

    def write(self, kind: str, payload: bytes, message: Any = None, ending: bytes = b"\n") -> None:
        content = payload[:-1] if payload.endswith(b"\r") else payload
        if len(content) > MAX_FRAME_BYTES:
            kind = "oversized"
        start = self.written
        self.wire += payload + ending
        self.written += len(payload) + len(ending)
        self.frames.append(Frame(start, self.written, kind, message, terminated=bool(ending)))
        if not self.pipelining:
            self.deliver_everything()

    def write_message(self, message: Any, ending: bytes = b"\n") -> None:
        self.write("json", json.dumps(message).encode(), message, ending)

    def deliver_everything(self) -> None:
        chunk = bytes(self.wire)
        self.wire.clear()
        self.feed(chunk)

    def fit(self, envelope: str) -> str:
        """A "fitting" envelope is what a client that knows the era sends: the envelope when the
        session is stateless, nothing otherwise (so, before the era, a handshake client)."""
        if envelope != "fitting":
            return envelope
        return "valid" if self.model.era == "stateless" else "none"

    def arrived(self, frame: Frame) -> bool:
        if self.eof or (frame.terminated and frame.end <= self.fed):
            return True
        return frame.kind == "oversized" and self.fed - frame.start >= MAX_FRAME_BYTES + 2

    def advance_model(self) -> Wait | None:
        """INV-BOUND-1, INV-DRAIN-2: take frames while fewer than max_in_flight calls are out."""
        while True:
            if len(self.model.calls) >= MAX_IN_FLIGHT:
                return Wait.PAUSED
            if self.frames and self.arrived(self.frames[0]):
                self.model.take_frame(self.frames.popleft())
                continue
            if not self.eof:
                return Wait.NEED_DATA
            return Wait.PAUSED if self.model.calls else None

    def feed(self, chunk: bytes) -> None:
        self.session.receive_data(chunk)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            self.line_start = self.fed + newline + 1
        self.fed += len(chunk)
        self.pump()

    def pump(self) -> None:
        """Drive the session as a driver would, and hold it to the model's prediction."""
        expected_wait = self.advance_model()
        events: list[Any] = []
        while True:
            event = self.session.next_event()
            if isinstance(event, Wait):
                self.wait = event
                break
            if isinstance(event, SessionClosed):
                self.wait = None
                self.closed = True
                break
            events.append(event)
            if isinstance(event, ToolCallRequested):
                assert event.request_id not in self.handed_out, f"call {event.request_id!r} handed out twice"
                self.handed_out[event.request_id] = event
        assert events == self.model.events, f"events {events!r}, expected {self.model.events!r}"
        self.model.events.clear()
        self.check_output(self.session.data_to_send())
        assert self.wait == expected_wait, f"session says {self.wait}, model expects {expected_wait}"

    def check_output(self, data: bytes) -> None:
        """INV-FRAME-4: whole, newline-terminated canonical JSON; each frame as the model expects."""
        assert not data or data.endswith(b"\n"), f"partial frame in the output: {data[-80:]!r}"
        lines = data.split(b"\n")[:-1]
        expected, self.model.out = self.model.out, []
        assert len(lines) == len(expected), f"frames {lines!r}, expected {expected!r}"
        for line, reply in zip(lines, expected):
            value = json.loads(line)
            assert canonical(value) == line, f"not canonical: {line!r}"
            if isinstance(reply, list):  # INV-LIFE-4: one array, in the batch's order
                assert isinstance(value, list) and len(value) == len(reply), (
                    f"batch answer {value!r}, expected {reply!r}"
                )
                for item, item_reply in zip(value, reply):
                    self.model.check_answer(item, item_reply)
            else:
                self.model.check_answer(value, reply)

    # --- requests ---

    @initialize(client=clients)
    def greet(self, client: str) -> None:
        """INV-LIFE-2, INV-LIFE-3: how the client opens: initialize, an enveloped discover, or not at all."""
        if client.startswith("handshake "):
            params = {"protocolVersion": client.split()[1], "capabilities": {}, "clientInfo": {"name": "model"}}
            self.write_message(request("hello", "initialize", params))
            self.write_message({"jsonrpc": "2.0", "method": "notifications/initialized"})
        elif client == "stateless":
            self.write_message(request("hello", "server/discover", None, "valid"))

    @precondition(lambda self: not self.eof)
    @rule(request_id=ids, version=initialize_versions, envelope=st.sampled_from(["none", "valid"]))
    def send_initialize(self, request_id: Any, version: str | None, envelope: str) -> None:
        """INV-LIFE-2: a supported version is echoed, another gets the newest; once per session."""
        params: dict[str, Any] = {"capabilities": {}, "clientInfo": {"name": "model", "version": "1"}}
        if version is not None:
            params["protocolVersion"] = version
        self.write_message(request(request_id, "initialize", params, envelope))

    @precondition(lambda self: not self.eof)
    @rule(request_id=ids, method=st.sampled_from(["ping", "server/discover", "resources/list", ""]), envelope=envelopes)
    def send_request(self, request_id: Any, method: str, envelope: str) -> None:
        """INV-LIFE-1 (only ping before an era), INV-LIFE-3 (2026-07-28 has no ping; server/discover
        exists only with the envelope), INV-CLASS-3 (an unknown method is -32601 once served)."""
        self.write_message(request(request_id, method, None, self.fit(envelope)))

    @precondition(lambda self: not self.eof)
    @rule(data=st.data(), request_id=ids, cursor=cursors, envelope=envelopes)
    def send_tools_list(self, data: st.DataObject, request_id: Any, cursor: tuple[Any, ...], envelope: str) -> None:
        """INV-CLASS-3 (a cursor the server did not issue is -32602), INV-LIFE-3 (ttlMs, cacheScope)."""
        params: dict[str, Any] | None = None
        if cursor[0] == "issued" and self.model.cursors:
            params = {"cursor": data.draw(st.sampled_from(sorted(self.model.cursors)), label="issued cursor")}
        elif cursor[0] == "given":
            params = {"cursor": cursor[1]}
        self.write_message(request(request_id, "tools/list", params, self.fit(envelope)))

    @precondition(lambda self: not self.eof)
    @rule(target=call_ids, request_id=ids, name=call_names, arguments=call_arguments, envelope=envelopes)
    def send_tools_call(self, request_id: Any, name: Any, arguments: tuple[Any, ...], envelope: str) -> Any:
        """INV-CLASS-3 (unknown tool, bad arguments), INV-BOUND-1, INV-DRAIN-1."""
        params: dict[str, Any] = {} if name is None else {"name": name}
        if arguments[0] == "given":
            params["arguments"] = arguments[1]
        self.write_message(request(request_id, "tools/call", params, self.fit(envelope)))
        return request_id

    @precondition(lambda self: not self.eof)
    @rule(target=call_ids, request_id=ids, name=st.sampled_from(TOOL_NAMES), arguments=st.sampled_from([{}, {"n": 1}]))
    def call_tool(self, request_id: Any, name: str, arguments: dict[str, Any]) -> Any:
        """INV-BOUND-1, INV-DRAIN-1: a well-formed call, as the era wants it."""
        self.write_message(
            request(request_id, "tools/call", {"name": name, "arguments": arguments}, self.fit("fitting"))
        )
        return request_id

    @precondition(lambda self: not self.eof)
    @rule(shape=st.sampled_from(INVALID_SHAPES), request_id=stray_ids)
    def send_invalid_request(self, shape: str, request_id: Any) -> None:
        """INV-CLASS-3: JSON that is not a valid request is -32600 (bad params -32602)."""
        self.write_message(invalid_message(shape, request_id))

    @precondition(lambda self: not self.eof)
    @rule(
        request_id=ids,
        length=st.sampled_from([MAX_FRAME_BYTES + d for d in (-1, 0, 1, 2)])
        | st.integers(MAX_FRAME_BYTES + 3, 3 * MAX_FRAME_BYTES),
        crlf=st.booleans(),
    )
    def send_sized_ping(self, request_id: Any, length: int, crlf: bool) -> None:
        """INV-FRAME-2: over max_frame_bytes (the line ending not counted) is -32600 with id null;
        INV-FRAME-3: CRLF is a line ending."""
        message = {"jsonrpc": "2.0", "id": request_id, "method": "ping", "pad": ""}
        message["pad"] = "p" * max(0, length - len(json.dumps(message).encode()))
        self.write("json", json.dumps(message).encode() + (b"\r" if crlf else b""), message)

    # --- notifications, responses, junk ---

    @precondition(lambda self: not self.eof)
    @rule(request_id=call_ids, reason=st.sampled_from([None, "user", 5]))
    def send_cancel(self, request_id: Any, reason: Any) -> None:
        """INV-DRAIN-1: a call cancelled in flight is never answered; INV-CLASS-2: no answer."""
        params = {"requestId": request_id} if reason is None else {"requestId": request_id, "reason": reason}
        self.write_message({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})

    @precondition(lambda self: self.handed_out and not self.eof)
    @rule(data=st.data(), reason=st.sampled_from([None, "user", 5]))
    def cancel_in_flight(self, data: st.DataObject, reason: Any) -> None:
        """INV-DRAIN-1: a call cancelled while in flight is never answered (its slot stays taken)."""
        request_id = data.draw(st.sampled_from(list(self.handed_out)), label="request_id")
        self.send_cancel(request_id, reason)

    @precondition(lambda self: not self.eof)
    @rule(request_id=st.sampled_from([99, "zz", True, None, 1.0, [1]]))
    def send_cancel_stray(self, request_id: Any) -> None:
        """INV-CLASS-2: a cancel for no call (or no valid id) changes nothing and is not answered."""
        self.write_message({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}})

    @precondition(lambda self: not self.eof)
    @rule(
        method=st.sampled_from(["notifications/initialized", "notifications/progress", "x"]),
        params=st.sampled_from([None, {}, [1]]),
    )
    def send_notification(self, method: str, params: Any) -> None:
        """INV-CLASS-2: notifications are never answered, not even malformed ones."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.write_message(message)

    @precondition(lambda self: not self.eof)
    @rule(request_id=ids | st.none(), kind=st.sampled_from(["result", "error"]))
    def send_client_response(self, request_id: Any, kind: str) -> None:
        """INV-CLASS-2: a client's response is never answered."""
        body = {} if kind == "result" else {"code": -1, "message": "no"}
        self.write_message({"jsonrpc": "2.0", "id": request_id, kind: body})

    @precondition(lambda self: not self.eof)
    @rule(payload=garbage)
    def send_garbage(self, payload: bytes) -> None:
        """INV-CLASS-1: bytes that are not strict JSON are -32700 with id null."""
        self.write("garbage", payload)

    @precondition(lambda self: not self.eof)
    @rule(payload=st.sampled_from([b"", b" ", b"\t \t", b" \r"]))
    def send_blank_line(self, payload: bytes) -> None:
        """INV-FRAME-3: blank lines are ignored."""
        self.write("blank", payload)

    @precondition(lambda self: not self.eof)
    @rule(target=call_ids, items=batch_items)
    def send_batch(self, items: list[tuple[str, Any, str]]) -> Any:
        """INV-LIFE-4: served only in 2025-03-26, answered as one array in order; INV-BOUND-1."""
        self.write_message([batch_item(*item) for item in items])
        return multiple(*(request_id for kind, request_id, _ in items if kind == "call"))

    # --- delivery, completion, end of input ---

    @precondition(lambda self: not self.pipelining and not self.eof)
    @rule()
    def start_pipelining(self) -> None:
        """INV-FRAME-1, INV-BOUND-1: frames from now on pile up until a delivery rule sends them."""
        self.pipelining = True

    @precondition(lambda self: self.wire and not self.eof)
    @rule(cuts=st.lists(st.integers(1, 48) | st.integers(49, 700), min_size=1, max_size=6))
    def deliver_in_chunks(self, cuts: list[int]) -> None:
        """INV-FRAME-1: the wire cut anywhere, a partial line left behind; INV-FRAME-2 (buffer)."""
        for size in cuts:
            if not self.wire:
                break
            chunk = bytes(self.wire[:size])
            del self.wire[:size]
            self.feed(chunk)

    @precondition(lambda self: self.wire and not self.eof)
    @rule()
    def deliver_all(self) -> None:
        """INV-FRAME-1: everything written, in one chunk; frames go out one by one again."""
        self.pipelining = False
        self.deliver_everything()

    @precondition(lambda self: self.handed_out)
    @rule(data=st.data(), outcome=outcomes)
    def complete_call(self, data: st.DataObject, outcome: ToolOutcome) -> None:
        """INV-DRAIN-1: completions in any order; INV-CLASS-3 (a crash is -32603); INV-BOUND-1."""
        request_id = data.draw(st.sampled_from(list(self.handed_out)), label="request_id")
        self.finish(request_id, outcome)

    def finish(self, request_id: Any, outcome: ToolOutcome) -> None:
        del self.handed_out[request_id]
        self.session.complete(request_id, outcome)
        self.model.complete(request_id, outcome)
        self.pump()

    @precondition(lambda self: not self.eof)
    @rule(ending=st.sampled_from(["newline", "unterminated", "half line", "blank tail"]))
    def end_of_input(self, ending: str) -> None:
        """INV-DRAIN-2: at EOF a complete unterminated line is served, a half line is -32700."""
        if ending == "unterminated":
            self.write_message(request("last", "tools/list", None, self.fit("fitting")), ending=b"")
        elif ending == "half line":
            self.write("garbage", b'{"jsonrpc":"2.0","id":', ending=b"")
        elif ending == "blank tail":
            self.write("blank", b" \t", ending=b"")
        if self.wire:
            self.deliver_everything()
        self.eof = True
        self.session.receive_eof()
        self.pump()

    @precondition(lambda self: self.eof and not self.closed)
    @rule()
    def poll_while_draining(self) -> None:
        """INV-DRAIN-2: after EOF the session stays paused while calls are out."""
        self.pump()

    @precondition(lambda self: self.closed)
    @rule(client=clients)
    def open_new_session(self, client: str) -> None:
        """INV-DRAIN-1: the closed session answered everything; the rest of the run gets a new one."""
        self.check_drained()
        self.open_session()
        self.greet(client)

    # --- after every step ---

    @invariant()
    def bounds_hold(self) -> None:
        """INV-BOUND-1: the calls in flight are the model's; INV-FRAME-2: the buffer is bounded."""
        assert list(self.handed_out) == list(self.model.calls), (
            f"in flight {list(self.handed_out)}, model {list(self.model.calls)}"
        )
        # One batch may add up to max_batch_items calls to max_in_flight - 1.
        in_flight = self.session.in_flight
        assert in_flight == len(self.model.calls) <= MAX_IN_FLIGHT - 1 + MAX_BATCH_ITEMS, f"{in_flight} calls in flight"
        partial = 0 if self.eof else self.fed - self.line_start
        expected_buffer = partial if partial <= MAX_FRAME_BYTES + 1 else 0
        buffered = self.session.buffered_bytes
        assert buffered == expected_buffer <= MAX_FRAME_BYTES + 1, (
            f"{buffered} bytes buffered, expected {expected_buffer}"
        )
        assert self.session.era.value == self.model.era, f"era {self.session.era.value}, model {self.model.era}"
        assert self.session.protocol_version == self.model.version

    def teardown(self) -> None:
        """INV-DRAIN-1/2: after EOF and every completion, SessionClosed; each request answered once."""
        if sys.exc_info()[0] is not None:
            return  # a step failed (we run in Hypothesis' ``finally``): report that failure alone
        if not self.eof:
            self.end_of_input("newline")
        while self.handed_out:
            self.finish(next(iter(self.handed_out)), ToolResult("done"))
        self.check_drained()

    def check_drained(self) -> None:
        assert self.closed and self.wait is None and not self.frames
        assert isinstance(self.session.next_event(), SessionClosed)
        expected = set(range(self.model.serials)) - self.model.cancelled
        assert set(self.model.answered) == expected, "requests unanswered: " + repr(expected - set(self.model.answered))
        assert set(self.model.answered.values()) <= {1}


SessionMachine.TestCase.settings = settings(
    max_examples=300,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestSessionAgainstModel = SessionMachine.TestCase


# --- regressions: minimal programs, replayed step by step --------------------------------------


def test_unicode_digit_cursor_is_invalid_params_not_a_crash_INV_CLASS_1() -> None:
    """INV-CLASS-1, INV-CLASS-3: found by the machine with "tools:²" among the invalid cursors."""
    state = SessionMachine()
    state.greet(client="handshake 2024-11-05")
    state.send_tools_list(data=None, request_id=0, cursor=("given", "tools:²"), envelope="fitting")
    state.teardown()


def test_a_failed_enveloped_request_still_fixes_the_era_INV_LIFE_2() -> None:
    """INV-LIFE-2: the envelope passed, the request failed (-32602), the era is stateless anyway."""
    state = SessionMachine()
    state.greet(client="raw")
    state.send_tools_list(data=None, request_id=0, cursor=("given", "bogus"), envelope="valid")  # -32602
    state.send_initialize(request_id=1, version="2024-11-05", envelope="none")  # -32022
    state.teardown()


def test_batch_over_the_in_flight_bound_cancel_inside_then_drain_INV_BOUND_1_INV_LIFE_4() -> None:
    """INV-BOUND-1, INV-LIFE-4, INV-DRAIN-1, INV-DRAIN-2: a fixed program through the rarer paths.

    Two calls in flight, then a batch of three more calls (five out: the batch may pass the bound),
    a cancel of one of them inside the batch, frames piled up behind the pause and delivered in
    small chunks, completions out of order, and an unterminated last frame at EOF.
    """
    state = SessionMachine()
    state.greet(client=f"handshake {BATCH_VERSION}")
    state.call_tool(request_id=0, name="alpha", arguments={})
    state.call_tool(request_id=1, name="beta", arguments={"n": 1})
    state.send_batch(items=[("call", 2, "gamma"), ("call", 3, "delta"), ("cancel", 2, "alpha"), ("call", 4, "omega")])
    state.bounds_hold()
    assert state.session.in_flight == 5 and state.wait is Wait.PAUSED
    state.start_pipelining()
    state.send_tools_list(data=None, request_id="a", cursor=("absent",), envelope="fitting")
    state.send_sized_ping(request_id="b", length=3 * MAX_FRAME_BYTES, crlf=True)
    state.deliver_in_chunks(cuts=[7, 300, 700, 5])
    state.finish(1, ToolCrashed("boom"))
    state.finish(4, ToolResult("four", structured_content={"n": 4}))
    state.finish(2, ToolResult("cancelled: never answered"))
    state.finish(0, ToolResult("zero", is_error=True))
    state.finish(3, ToolResult("three"))
    state.bounds_hold()
    state.end_of_input(ending="unterminated")
    state.bounds_hold()
    state.teardown()
