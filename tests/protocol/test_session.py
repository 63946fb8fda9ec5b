"""The session core, one behaviour at a time, in memory."""

from __future__ import annotations

import json

import pytest

from mesh.protocol import (
    Era,
    ErrorCode,
    SessionConfig,
    ToolCallRequested,
    ToolCrashed,
    ToolResult,
    ToolSpec,
    Wait,
)
from tests.support.memory import Harness, frame, initialize, notification, request, run, stateless


def error_code(answer: dict) -> int:
    return answer["error"]["code"]


@pytest.fixture
def ready() -> Harness:
    harness = Harness()
    harness.feed(initialize("2025-11-25"))
    harness.take()
    return harness


# --- lifecycle: the handshake era ------------------------------------------------------------


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_initialize_echoes_a_supported_version_INV_LIFE_2(version: str) -> None:
    """INV-LIFE-2."""
    harness = Harness(SessionConfig(server_name="mesh-mcp", server_version="9.9", instructions="Use tools."))
    [answer] = harness.ask(initialize(version, request_id="init"))
    assert answer == {
        "jsonrpc": "2.0",
        "id": "init",
        "result": {
            "protocolVersion": version,
            "capabilities": {"logging": {}, "tools": {"listChanged": False}},
            "serverInfo": {"name": "mesh-mcp", "version": "9.9"},
            "instructions": "Use tools.",
        },
    }
    assert harness.session.era is Era.HANDSHAKE
    assert harness.session.protocol_version == version
    assert harness.session.client_info == {"name": "t", "version": "1"}


@pytest.mark.parametrize("version", ["1999-01-01", "2026-07-28", "2025-11-26", ""])
def test_initialize_offers_the_newest_handshake_version_otherwise_INV_LIFE_2(version: str) -> None:
    """INV-LIFE-2."""
    [answer] = Harness().ask(initialize(version))
    assert answer["result"]["protocolVersion"] == "2025-11-25"


@pytest.mark.parametrize("params", [None, {}, {"protocolVersion": 20250618}, {"protocolVersion": None}])
def test_initialize_without_a_version_is_invalid_params_INV_CLASS_3(params: dict | None) -> None:
    """INV-CLASS-3."""
    harness = Harness()
    [answer] = harness.ask(request(1, "initialize", params))
    assert error_code(answer) == ErrorCode.INVALID_PARAMS
    assert harness.session.era is Era.UNDECIDED
    # The failed attempt fixed nothing: a good initialize still works.
    [answer] = harness.ask(initialize())
    assert answer["result"]["protocolVersion"] == "2025-11-25"


def test_second_initialize_is_refused_INV_LIFE_2(ready: Harness) -> None:
    """INV-LIFE-2."""
    [answer] = ready.ask(initialize("2025-06-18", request_id=5))
    assert answer["id"] == 5 and error_code(answer) == ErrorCode.INVALID_REQUEST
    assert ready.session.protocol_version == "2025-11-25"


def test_before_initialize_only_ping_is_served_INV_LIFE_1() -> None:
    """INV-LIFE-1."""
    harness = Harness()
    answers = harness.ask(request(1, "ping") + request(2, "tools/list") + request(3, "tools/call", {"name": "echo"}))
    assert answers[0] == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert [error_code(a) for a in answers[1:]] == [ErrorCode.INVALID_REQUEST] * 2
    assert "initialize" in answers[1]["error"]["message"]
    [answer] = harness.ask(request(4, "resources/list"))
    assert error_code(answer) == ErrorCode.METHOD_NOT_FOUND


def test_requests_are_served_before_the_initialized_notification_INV_LIFE_1() -> None:
    """INV-LIFE-1."""
    harness = Harness()
    harness.feed(request(0, "initialize", {"protocolVersion": "2025-06-18"}))
    harness.take()
    [answer] = harness.ask(request(1, "tools/list"))
    assert [tool["name"] for tool in answer["result"]["tools"]] == ["echo", "crash", "slow"]


def test_enveloped_request_after_handshake_is_refused_INV_LIFE_2(ready: Harness) -> None:
    """INV-LIFE-2."""
    [answer] = ready.ask(stateless(7, "tools/list"))
    assert answer["id"] == 7 and error_code(answer) == ErrorCode.INVALID_REQUEST
    [answer] = ready.ask(request(8, "server/discover"))
    assert error_code(answer) == ErrorCode.METHOD_NOT_FOUND


# --- lifecycle: the stateless era ------------------------------------------------------------


def test_discover_carries_instructions() -> None:
    [answer] = Harness(SessionConfig(instructions="Ask me.")).ask(stateless(1, "server/discover"))
    assert answer["result"]["instructions"] == "Ask me."


def test_discover_opens_the_stateless_era_INV_LIFE_3() -> None:
    """INV-LIFE-3."""
    harness = Harness(SessionConfig(server_version="1.0", cache_ttl_ms=5000))
    [answer] = harness.ask(stateless(1, "server/discover"))
    assert answer["result"] == {
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"logging": {}, "tools": {"listChanged": False}},
        "ttlMs": 5000,
        "cacheScope": "public",
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "mesh-mcp", "version": "1.0"}},
    }
    assert harness.session.era is Era.STATELESS
    assert harness.session.protocol_version is None
    assert harness.session.client_info == {"name": "t", "version": "1"}


def test_stateless_tools_list_and_call_INV_LIFE_3() -> None:
    """INV-LIFE-3."""
    harness = Harness()
    [listing] = harness.ask(stateless(1, "tools/list"))
    assert listing["result"]["resultType"] == "complete"
    assert listing["result"]["cacheScope"] == "public" and listing["result"]["ttlMs"] == 60_000
    tools = listing["result"]["tools"]
    assert tools[0] == {
        "name": "echo",
        "title": "Echo",
        "description": "Echo the text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    }
    assert tools[2]["annotations"] == {"readOnlyHint": True}
    [called] = harness.ask(stateless(2, "tools/call", {"name": "echo", "arguments": {"text": "hi"}}))
    assert called["result"] == {
        "content": [{"type": "text", "text": '{"text": "hi"}'}],
        "isError": False,
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "mesh-mcp", "version": "0.0.0"}},
    }
    # 2026-07-28 has no ping.
    [pong] = harness.ask(stateless(3, "ping"))
    assert error_code(pong) == ErrorCode.METHOD_NOT_FOUND


def test_unsupported_stateless_version_is_32022_and_fixes_nothing_INV_LIFE_3() -> None:
    """INV-LIFE-3."""
    harness = Harness()
    [answer] = harness.ask(stateless(1, "server/discover", protocolVersion="2027-01-01"))
    assert error_code(answer) == ErrorCode.UNSUPPORTED_PROTOCOL_VERSION == -32022
    # Nothing is fixed yet, so the handshake versions are on offer too (a client may fall back).
    supported = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
    assert answer["error"]["data"] == {"supported": supported, "requested": "2027-01-01"}
    assert harness.session.era is Era.UNDECIDED
    [answer] = harness.ask(initialize())
    assert answer["result"]["protocolVersion"] == "2025-11-25"


@pytest.mark.parametrize(
    "meta",
    [
        "not an object",
        {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
        {"io.modelcontextprotocol/protocolVersion": 2026, "io.modelcontextprotocol/clientCapabilities": {}},
    ],
)
def test_malformed_envelope_is_invalid_params_INV_LIFE_3(meta: object) -> None:
    """INV-LIFE-3."""
    harness = Harness()
    harness.feed(stateless(1, "ping"))
    harness.take()
    [answer] = harness.ask(request(2, "tools/list", {"_meta": meta}))
    assert error_code(answer) == ErrorCode.INVALID_PARAMS


def test_stateless_request_without_envelope_is_invalid_params_INV_LIFE_3() -> None:
    """INV-LIFE-3."""
    harness = Harness()
    harness.ask(stateless(1, "server/discover"))
    [answer] = harness.ask(request(2, "tools/list"))
    assert error_code(answer) == ErrorCode.INVALID_PARAMS
    [answer] = Harness().ask(request(3, "server/discover"))
    assert error_code(answer) == ErrorCode.INVALID_PARAMS


def test_initialize_in_a_stateless_session_is_32022_INV_LIFE_2() -> None:
    """INV-LIFE-2."""
    harness = Harness()
    harness.ask(stateless(1, "server/discover"))
    [answer] = harness.ask(stateless(9, "tools/list", protocolVersion="2025-11-25"))
    assert answer["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2025-11-25"}
    [answer] = harness.ask(initialize("2025-06-18", request_id=2))
    assert error_code(answer) == ErrorCode.UNSUPPORTED_PROTOCOL_VERSION
    assert answer["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2025-06-18"}


def test_initialize_carrying_an_envelope_is_still_a_handshake_INV_LIFE_2() -> None:
    """INV-LIFE-2."""
    params = {"protocolVersion": "2025-06-18", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    harness = Harness()
    [answer] = harness.ask(request(1, "initialize", params))
    assert answer["result"]["protocolVersion"] == "2025-06-18"
    assert harness.session.era is Era.HANDSHAKE


# --- versions shape the answers --------------------------------------------------------------

SPEC = ToolSpec(
    "t", "T.", {"type": "object"}, title="Title", annotations={"readOnlyHint": True}, output_schema={"type": "object"}
)


@pytest.mark.parametrize(
    ("version", "keys"),
    [
        ("2024-11-05", {"name", "description", "inputSchema"}),
        ("2025-03-26", {"name", "description", "inputSchema", "annotations"}),
        ("2025-06-18", {"name", "description", "inputSchema", "annotations", "title", "outputSchema"}),
        ("2025-11-25", {"name", "description", "inputSchema", "annotations", "title", "outputSchema"}),
    ],
)
def test_tool_fields_follow_the_negotiated_version(version: str, keys: set[str]) -> None:
    harness = Harness(tools=[SPEC])
    harness.feed(initialize(version))
    harness.take()
    [answer] = harness.ask(request(1, "tools/list"))
    assert set(answer["result"]["tools"][0]) == keys


@pytest.mark.parametrize(("version", "structured"), [("2025-03-26", False), ("2025-06-18", True)])
def test_structured_content_only_where_the_version_has_it(version: str, structured: bool) -> None:
    harness = Harness(tool=lambda event: ToolResult("3", structured_content={"sum": 3}))
    harness.feed(initialize(version))
    harness.take()
    [answer] = harness.ask(request(1, "tools/call", {"name": "echo"}))
    assert ("structuredContent" in answer["result"]) is structured


# --- tools/list pagination -------------------------------------------------------------------


def test_tools_list_pages_with_a_cursor() -> None:
    specs = [ToolSpec(f"t{i}", "d", {"type": "object"}) for i in range(5)]
    harness = Harness(SessionConfig(tools_page_size=2), tools=specs)
    harness.feed(initialize())
    harness.take()
    names, cursor, pages = [], None, 0
    while True:
        [answer] = harness.ask(request(pages, "tools/list", {"cursor": cursor} if cursor else None))
        names += [tool["name"] for tool in answer["result"]["tools"]]
        pages += 1
        cursor = answer["result"].get("nextCursor")
        if cursor is None:
            break
    assert names == [f"t{i}" for i in range(5)] and pages == 3


@pytest.mark.parametrize("cursor", ["bogus", "tools:0", "tools:99", "tools:-1", 7, "tools:" + "9" * 40])
def test_bad_cursor_is_invalid_params_INV_CLASS_3(ready: Harness, cursor: object) -> None:
    """INV-CLASS-3."""
    [answer] = ready.ask(request(1, "tools/list", {"cursor": cursor}))
    assert error_code(answer) == ErrorCode.INVALID_PARAMS


def test_catalogue_that_cannot_be_encoded_is_an_internal_error() -> None:
    harness = Harness(tools=[ToolSpec("t", "T.", {"type": "object", "bad": {1, 2}})])
    harness.feed(initialize())
    harness.take()
    [answer] = harness.ask(request(1, "tools/list"))
    assert error_code(answer) == ErrorCode.INTERNAL_ERROR


def test_cached_answers_are_byte_identical_to_fresh_ones_INV_FRAME_4() -> None:
    """INV-FRAME-4: a spliced, cached result encodes exactly as the same result encoded whole."""
    harness = Harness(SessionConfig(tools_page_size=2))
    harness.feed(initialize())
    harness.take()
    harness.feed(request(1, "tools/list") + request(2, "tools/list"))
    first, second = bytes(harness.output).splitlines()
    assert first.replace(b'"id":1', b'"id":2') == second
    assert first == json.dumps(json.loads(first), sort_keys=True, separators=(",", ":")).encode()


def test_duplicate_tool_names_are_refused() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        Harness(tools=[SPEC, SPEC])


# --- tools/call ------------------------------------------------------------------------------


def test_call_leaves_the_core_as_an_event(ready: Harness) -> None:
    seen: list[ToolCallRequested] = []
    ready.tool = lambda event: seen.append(event)  # type: ignore[func-returns-value]
    meta = {"traceparent": "00-" + "a" * 32 + "-" + "b" * 16 + "-01"}
    ready.feed(request("c1", "tools/call", {"name": "echo", "arguments": {"text": "x"}, "_meta": meta}))
    assert seen == [ToolCallRequested("c1", "echo", {"text": "x"}, meta, "2025-11-25")]
    assert ready.take() == []
    ready.session.complete("c1", ToolResult("done", is_error=True))
    ready.pump()
    [answer] = ready.take()
    assert answer["result"] == {"content": [{"type": "text", "text": "done"}], "isError": True}


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        (None, "params.name"),
        ({}, "params.name"),
        ({"name": 3}, "string"),
        ({"name": "nope"}, "unknown tool"),
        ({"name": "echo", "arguments": [1]}, "arguments"),
    ],
)
def test_bad_calls_are_invalid_params_INV_CLASS_3(ready: Harness, params: dict | None, fragment: str) -> None:
    """INV-CLASS-3."""
    [answer] = ready.ask(request(1, "tools/call", params))
    assert error_code(answer) == ErrorCode.INVALID_PARAMS
    assert fragment in answer["error"]["message"]


def test_null_arguments_mean_none(ready: Harness) -> None:
    [answer] = ready.ask(request(1, "tools/call", {"name": "echo", "arguments": None}))
    assert answer["result"]["content"][0]["text"] == "{}"


def test_crashed_tool_is_internal_error_INV_CLASS_3(ready: Harness) -> None:
    """INV-CLASS-3."""
    [answer] = ready.ask(request(1, "tools/call", {"name": "crash"}))
    assert error_code(answer) == ErrorCode.INTERNAL_ERROR
    assert "boom" in answer["error"]["message"]


def test_unencodable_result_becomes_internal_error(ready: Harness) -> None:
    ready.tool = lambda event: ToolResult("x", structured_content={"n": 1 << 70})
    [answer] = ready.ask(request(1, "tools/call", {"name": "echo"}))
    assert answer["id"] == 1 and error_code(answer) == ErrorCode.INTERNAL_ERROR


def test_id_in_flight_cannot_be_reused(ready: Harness) -> None:
    ready.feed(request(1, "tools/call", {"name": "slow"}))
    [answer] = ready.ask(request(1, "ping"))
    assert error_code(answer) == ErrorCode.INVALID_REQUEST and "in flight" in answer["error"]["message"]
    ready.complete(1, ToolResult("late"))
    [answer] = ready.take()
    assert answer["result"]["content"][0]["text"] == "late"


def test_completing_an_unknown_call_is_a_driver_bug(ready: Harness) -> None:
    with pytest.raises(KeyError):
        ready.session.complete(42, ToolResult("?"))


# --- cancellation ----------------------------------------------------------------------------


def test_cancelled_call_is_never_answered_INV_DRAIN_1(ready: Harness) -> None:
    """INV-DRAIN-1."""
    ready.feed(request(1, "tools/call", {"name": "slow"}))
    ready.feed(notification("notifications/cancelled", {"requestId": 1, "reason": "user"}))
    assert [(c.request_id, c.reason) for c in ready.cancelled] == [(1, "user")]
    ready.feed(notification("notifications/cancelled", {"requestId": 1}))  # twice: one event
    assert len(ready.cancelled) == 1
    assert ready.session.in_flight == 1  # the slot stays taken until the tool stops
    ready.complete(1, ToolResult("too late"))
    ready.eof()
    assert ready.take() == [] and ready.closed


@pytest.mark.parametrize("request_id", [99, "1", True, None, [1]])
def test_cancel_of_unknown_or_malformed_ids_is_ignored(ready: Harness, request_id: object) -> None:
    ready.feed(request(1, "tools/call", {"name": "slow"}))
    ready.feed(notification("notifications/cancelled", {"requestId": request_id}))
    assert ready.cancelled == [] and ready.take() == []


def test_cancel_after_the_answer_changes_nothing(ready: Harness) -> None:
    [answer] = ready.ask(request(1, "tools/call", {"name": "echo"}))
    assert ready.ask(notification("notifications/cancelled", {"requestId": 1})) == []
    assert ready.cancelled == []


# --- classification --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [b"{", b"nope", b"NaN", b'{"a": NaN}', b"\xff\xfe", b'"\\ud800"', b"[" * 5000 + b"]" * 5000, b"\xef\xbb\xbf{}"],
)
def test_not_strict_json_is_parse_error_with_null_id_INV_CLASS_1(ready: Harness, line: bytes) -> None:
    """INV-CLASS-1."""
    [answer] = ready.ask(line + b"\n")
    assert answer["id"] is None and error_code(answer) == ErrorCode.PARSE_ERROR
    [pong] = ready.ask(request(1, "ping"))
    assert pong["result"] == {}


@pytest.mark.parametrize(
    ("message", "reply_id"),
    [
        (1, None),
        ("ping", None),
        (None, None),
        ({"id": 1, "method": "ping"}, 1),
        ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, 1),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": 2, "method": 5}, 2),
        ({"jsonrpc": "2.0", "method": 5}, None),
        ({"jsonrpc": "2.0", "id": 3}, 3),
        ({"jsonrpc": "2.0", "result": {}}, None),
        ([[]], None),
    ],
)
def test_invalid_requests_INV_CLASS_3(ready: Harness, message: object, reply_id: object) -> None:
    """INV-CLASS-3."""
    [answer] = ready.ask(json.dumps(message).encode() + b"\n")
    if isinstance(message, list):  # a batch where none is allowed
        assert answer["id"] is None
    assert answer["id"] == reply_id and error_code(answer) == ErrorCode.INVALID_REQUEST


def test_params_must_be_an_object_INV_CLASS_3(ready: Harness) -> None:
    """INV-CLASS-3."""
    [answer] = ready.ask(frame({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}))
    assert error_code(answer) == ErrorCode.INVALID_PARAMS


def test_unknown_method_INV_CLASS_3(ready: Harness) -> None:
    """INV-CLASS-3."""
    [answer] = ready.ask(request("x", "resources/list"))
    assert answer["id"] == "x" and error_code(answer) == ErrorCode.METHOD_NOT_FOUND


def test_notifications_and_responses_are_never_answered_INV_CLASS_2(ready: Harness) -> None:
    """INV-CLASS-2."""
    silent = (
        notification("notifications/initialized")
        + notification("no/such/notification", {"x": 1})
        + frame({"jsonrpc": "2.0", "method": "notifications/progress", "params": "not an object"})
        + frame({"jsonrpc": "2.0", "id": 5, "result": {}})
        + frame({"jsonrpc": "2.0", "id": 6, "error": {"code": 1, "message": "x"}})
        + frame({"jsonrpc": "2.0", "id": None, "error": {"code": 1, "message": "x"}})
    )
    assert ready.ask(silent) == []


def test_error_messages_are_bounded_INV_CLASS_4(ready: Harness) -> None:
    """INV-CLASS-4."""
    huge = "m" * 500_000
    answers = ready.ask(
        request(1, huge) + request(2, "tools/call", {"name": huge}) + request(huge, "tools/list", {"cursor": huge})
    )
    assert len(answers) == 3
    for answer in answers:
        assert len(answer["error"]["message"]) <= 256


# --- batches ---------------------------------------------------------------------------------


def batch(*messages: bytes) -> bytes:
    return b"[" + b",".join(message.rstrip(b"\n") for message in messages) + b"]\n"


def test_batch_served_in_2025_03_26_in_order_INV_LIFE_4() -> None:
    """INV-LIFE-4."""
    harness = Harness()
    harness.feed(initialize("2025-03-26"))
    harness.take()
    harness.feed(
        batch(
            request(1, "tools/call", {"name": "slow"}),
            request(2, "ping"),
            notification("notifications/initialized"),
            request(3, "nope"),
            b'"junk"',
        )
    )
    assert harness.take() == []  # waits for the slow call
    harness.complete(1, ToolResult("slow done"))
    [answers] = harness.take()
    assert [answer.get("id") for answer in answers] == [1, 2, 3, None]
    assert answers[0]["result"]["content"][0]["text"] == "slow done"
    assert error_code(answers[2]) == ErrorCode.METHOD_NOT_FOUND
    assert error_code(answers[3]) == ErrorCode.INVALID_REQUEST


def test_batch_of_notifications_gets_no_answer_INV_LIFE_4() -> None:
    """INV-LIFE-4."""
    harness = Harness()
    harness.feed(initialize("2025-03-26"))
    harness.take()
    assert harness.ask(batch(notification("a"), notification("b"))) == []


def test_batch_whose_only_call_is_cancelled_gets_no_answer_INV_LIFE_4() -> None:
    """INV-LIFE-4."""
    harness = Harness()
    harness.feed(initialize("2025-03-26"))
    harness.take()
    harness.feed(batch(request(1, "tools/call", {"name": "slow"})))
    harness.feed(notification("notifications/cancelled", {"requestId": 1}))
    harness.complete(1, ToolResult("x"))
    assert harness.take() == []


@pytest.mark.parametrize("version", [None, "2024-11-05", "2025-06-18", "2025-11-25"])
def test_batch_refused_outside_2025_03_26_INV_LIFE_4(version: str | None) -> None:
    """INV-LIFE-4."""
    harness = Harness()
    if version:
        harness.feed(initialize(version))
        harness.take()
    [answer] = harness.ask(batch(request(1, "ping"), request(2, "ping")))
    assert answer["id"] is None and error_code(answer) == ErrorCode.INVALID_REQUEST


def test_empty_and_oversized_batches_INV_LIFE_4() -> None:
    """INV-LIFE-4."""
    harness = Harness(SessionConfig(max_batch_items=3))
    harness.feed(initialize("2025-03-26"))
    harness.take()
    [answer] = harness.ask(b"[]\n")
    assert error_code(answer) == ErrorCode.INVALID_REQUEST and "empty" in answer["error"]["message"]
    [answer] = harness.ask(batch(*[request(i, "ping") for i in range(4)]))
    assert error_code(answer) == ErrorCode.INVALID_REQUEST
    [answer] = harness.ask(batch(initialize("2025-03-26", request_id=9).splitlines()[0]))
    assert answer[0]["id"] == 9 and error_code(answer[0]) == ErrorCode.INVALID_REQUEST


def test_batch_answers_wait_for_the_last_call_INV_LIFE_4() -> None:
    """INV-LIFE-4."""
    harness = Harness()
    harness.feed(initialize("2025-03-26"))
    harness.take()
    harness.feed(batch(request(1, "tools/call", {"name": "slow"}), request(2, "tools/call", {"name": "slow"})))
    harness.complete(2, ToolResult("two"))
    assert harness.take() == []
    harness.complete(1, ToolResult("one"))
    [answers] = harness.take()
    assert [answer["id"] for answer in answers] == [1, 2]


def test_nested_array_in_a_batch_is_invalid() -> None:
    harness = Harness()
    harness.feed(initialize("2025-03-26"))
    harness.take()
    [answers] = harness.ask(b"[[1]]\n")
    assert answers[0]["error"]["message"] == "a message must be a JSON object, not a JSON array"


def test_crash_inside_a_batch(ready: Harness) -> None:
    harness = Harness()
    harness.feed(initialize("2025-03-26"))
    harness.take()
    [answers] = harness.ask(batch(request(1, "tools/call", {"name": "crash"}), request(2, "ping")))
    assert error_code(answers[0]) == ErrorCode.INTERNAL_ERROR and answers[1]["result"] == {}


def test_unencodable_answer_inside_a_batch_spoils_only_itself() -> None:
    harness = Harness(tool=lambda event: ToolResult("lone surrogate \udcff"))
    harness.feed(initialize("2025-03-26"))
    harness.take()
    [answers] = harness.ask(batch(request(1, "tools/call", {"name": "echo"}), request(2, "ping")))
    assert error_code(answers[0]) == ErrorCode.INTERNAL_ERROR and answers[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}


# --- bounds and drain ------------------------------------------------------------------------


def test_oversized_frame_is_answered_once_and_the_session_goes_on_INV_FRAME_2() -> None:
    """INV-FRAME-2."""
    harness = Harness(SessionConfig(max_frame_bytes=1000))
    harness.feed(initialize())
    harness.take()
    harness.feed(b'{"jsonrpc":"2.0","id":1,"method":"ping","pad":"')
    for _ in range(100):
        harness.feed(b"p" * 1000)
        assert harness.session.buffered_bytes <= 1001
    [answer] = harness.take()
    assert answer["id"] is None and error_code(answer) == ErrorCode.INVALID_REQUEST
    harness.feed(b'"}\n' + request(2, "ping"))
    assert harness.take() == [{"jsonrpc": "2.0", "id": 2, "result": {}}]


def test_in_flight_bound_pauses_input_INV_BOUND_1(ready: Harness) -> None:
    """INV-BOUND-1."""
    ready.session = type(ready.session)(SessionConfig(max_in_flight=2), ready.session.tools)
    ready.feed(initialize())
    ready.take()
    wait = ready.feed(b"".join(request(i, "tools/call", {"name": "slow"}) for i in range(3)) + request(9, "ping"))
    assert wait is Wait.PAUSED and sorted(ready.pending) == [0, 1]
    assert ready.take() == []  # the ping waits behind the paused input
    ready.complete(0, ToolResult("a"))
    assert sorted(ready.pending) == [1, 2]
    answers = ready.take()
    assert [answer["id"] for answer in answers] == [0]
    ready.complete(1, ToolResult("b"))
    assert [answer["id"] for answer in ready.take()] == [1, 9]


def test_eof_drains_every_accepted_call_INV_DRAIN_2(ready: Harness) -> None:
    """INV-DRAIN-2."""
    ready.feed(request(1, "tools/call", {"name": "slow"}) + request(2, "tools/call", {"name": "slow"}))
    assert ready.eof() is Wait.PAUSED and not ready.closed
    ready.complete(2, ToolResult("two"))
    assert not ready.closed
    ready.complete(1, ToolResult("one"))
    assert ready.closed
    assert [answer["id"] for answer in ready.take()] == [2, 1]


def test_half_line_at_eof_is_answered_not_a_crash_INV_DRAIN_2(ready: Harness) -> None:
    """INV-DRAIN-2."""
    ready.feed(b'{"jsonrpc":"2.0","id":9,"meth')
    ready.eof()
    [answer] = ready.take()
    assert answer["id"] is None and error_code(answer) == ErrorCode.PARSE_ERROR and ready.closed


def test_unterminated_request_at_eof_is_served_INV_DRAIN_2(ready: Harness) -> None:
    """INV-DRAIN-2."""
    ready.feed(request(3, "ping").rstrip(b"\n"))
    ready.eof()
    assert ready.take() == [{"jsonrpc": "2.0", "id": 3, "result": {}}]


def test_empty_chunk_means_eof(ready: Harness) -> None:
    ready.feed(b"")
    assert ready.closed


def test_output_is_canonical_INV_FRAME_4() -> None:
    """INV-FRAME-4."""
    output = run(initialize() + request(1, "tools/call", {"name": "echo", "arguments": {"b": 1, "a": "é"}}))
    for line in output.splitlines(keepends=True):
        assert line.endswith(b"\n")
        decoded = json.loads(line)
        assert line == json.dumps(decoded, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def test_crlf_and_blank_lines_INV_FRAME_3() -> None:
    """INV-FRAME-3."""
    output = run(b"\r\n\n   \n" + initialize().replace(b"\n", b"\r\n") + b"\t\r\n")
    assert len(output.splitlines()) == 1


def test_crashed_outcome_message_is_bounded_INV_CLASS_4(ready: Harness) -> None:
    """INV-CLASS-4."""
    ready.tool = lambda event: ToolCrashed("x" * 100_000)
    [answer] = ready.ask(request(1, "tools/call", {"name": "echo"}))
    assert len(answer["error"]["message"]) <= 256
