"""The Streamable HTTP endpoint without sockets: eras, sessions, routing, streams, cancellation.

Each backend runs the real :class:`ServerSession` in memory (the tools of ``tests.support.memory``:
``echo`` answers at once, ``slow`` when the test completes it); its frames reach the endpoint only
when the test lets them (:meth:`Harness.settle`), as the driver's loop would deliver them.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections import deque
from typing import Any

import pytest

from mesh.drivers._http_endpoint import Endpoint, EndpointConfig, HttpRequest
from mesh.protocol import CallCancelled, ServerSession, SessionConfig, ToolCallRequested, ToolResult
from tests.support.memory import TOOLS, default_tool

MODERN = "2026-07-28"
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
BOTH = "application/json, text/event-stream"


class Sink:
    """One HTTP response as the endpoint writes it."""

    def __init__(self) -> None:
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.body: bytes | None = None
        self.stream: list[bytes] | None = None
        self.done = False

    def respond(self, status: int, headers: Any, body: bytes) -> None:
        assert not self.done and self.stream is None, "a second response"
        self.status, self.headers, self.body, self.done = status, dict(headers), body, True

    def start_stream(self, headers: Any) -> None:
        assert not self.done and self.stream is None
        self.status, self.headers, self.stream = 200, dict(headers), []

    def send(self, data: bytes, *, droppable: bool = False) -> None:
        assert self.stream is not None and not self.done
        self.stream.append(data)

    def end_stream(self) -> None:
        assert self.stream is not None and not self.done
        self.done = True

    @property
    def json(self) -> Any:
        assert self.body is not None, f"no JSON body (status {self.status}, stream {self.stream})"
        return json.loads(self.body)

    @property
    def events(self) -> list[Any]:
        """The JSON messages of the stream's events (comments left out)."""
        assert self.stream is not None
        found = []
        for chunk in self.stream:
            for line in chunk.split(b"\n"):
                if line.startswith(b"data: "):
                    found.append(json.loads(line[6:]))
        return found

    @property
    def comments(self) -> int:
        assert self.stream is not None
        return sum(1 for chunk in self.stream if chunk.startswith(b":"))

    @property
    def session_id(self) -> str | None:
        return self.headers.get("mcp-session-id")


class Backend:
    """A real session in memory; its frames wait in ``out`` for :meth:`Harness.settle`."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.session = ServerSession(SessionConfig(), TOOLS)
        self.lines: list[Any] = []
        self.out: deque[bytes] = deque()
        self.held: dict[Any, ToolCallRequested] = {}
        self.cancelled: list[Any] = []
        self.ended = False

    def send(self, line: bytes) -> None:
        assert line.endswith(b"\n") and b"\n" not in line[:-1], line
        assert not self.ended, "a line after the end of input"
        self.lines.append(json.loads(line))
        self.session.receive_data(line)
        self._pump()

    def end(self) -> None:
        if not self.ended:
            self.ended = True
            self.session.receive_eof()
            self._pump()

    def complete(self, request_id: Any, text: str = "done") -> None:
        del self.held[request_id]
        self.session.complete(request_id, ToolResult(text))
        self._pump()

    def say(self, message: dict[str, Any]) -> None:
        """A message the session sends on its own (progress, a log message)."""
        self.out.append(json.dumps(message).encode())

    def _pump(self) -> None:
        while True:
            event = self.session.next_event()
            if isinstance(event, ToolCallRequested):
                outcome = default_tool(event)
                if outcome is None:
                    self.held[event.request_id] = event
                else:
                    self.session.complete(event.request_id, outcome)
            elif isinstance(event, CallCancelled):
                self.cancelled.append(event.request_id)
            else:
                break
        self.out.extend(line for line in self.session.data_to_send().split(b"\n") if line)


class Harness:
    def __init__(self, **config: Any) -> None:
        settings = {"keepalive_s": 10.0, "stream_idle_s": 100.0, "session_idle_s": 1000.0, **config}
        self.now = 0.0
        self.backends: list[Backend] = []
        numbers = itertools.count(1)
        self.endpoint = Endpoint(
            EndpointConfig(**settings), open_backend=self._open, new_session_id=lambda: f"sid-{next(numbers)}"
        )

    def _open(self, kind: str) -> Backend:
        backend = Backend(kind)
        self.backends.append(backend)
        return backend

    def request(self, method: str, body: Any = None, *, headers: dict[str, str] | None = None) -> Sink:
        fields = {"host": "127.0.0.1", "accept": BOTH}
        if method == "POST":
            fields["content-type"] = "application/json"
        fields.update(headers or {})
        raw = body if isinstance(body, bytes) else b"" if body is None else json.dumps(body).encode()
        sink = Sink()
        self.endpoint.handle(HttpRequest(method, "/mcp", tuple(fields.items()), raw), sink, self.now)
        self.settle()
        return sink

    def post(self, body: Any, session: str | None = None, **headers: str) -> Sink:
        fields = {name.replace("_", "-").lower(): value for name, value in headers.items()}
        if session is not None:
            fields["mcp-session-id"] = session
        return self.request("POST", body, headers=fields)

    def modern(self, request_id: Any, method: str, params: dict[str, Any] | None = None, **headers: str) -> Sink:
        body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**(params or {}), "_meta": ENVELOPE}}
        fields = {"mcp_protocol_version": MODERN, "mcp_method": method}
        if method == "tools/call":
            fields["mcp_name"] = body["params"]["name"]
        fields.update(headers)
        return self.post(body, **fields)

    def settle(self) -> None:
        busy = True
        while busy:
            busy = False
            for backend in list(self.backends):
                while backend.out:
                    busy = True
                    self.endpoint.frame(backend, backend.out.popleft(), self.now)

    def advance(self, seconds: float) -> None:
        self.now += seconds
        self.endpoint.tick(self.now)
        self.settle()

    def open_session(self, version: str = "2025-11-25") -> str:
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        answer = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        assert answer.status == 200 and answer.session_id, answer.body
        assert self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, answer.session_id).status == 202
        return answer.session_id


def rpc(request_id: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def call(request_id: Any, name: str, arguments: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if meta:
        params["_meta"] = meta
    return rpc(request_id, "tools/call", params)


# --- the handshake era -----------------------------------------------------------------------


def test_a_whole_handshake_session_INV_HTTP_2() -> None:
    """INV-HTTP-2: initialize opens a session whose id comes only in that answer's header."""
    harness = Harness()
    session = harness.open_session()
    assert session == "sid-1"
    listed = harness.post(rpc(1, "tools/list"), session)
    assert listed.status == 200 and listed.headers["content-type"] == "application/json"
    assert [tool["name"] for tool in listed.json["result"]["tools"]] == ["echo", "crash", "slow"]
    assert "mcp-session-id" not in listed.headers
    echo = harness.post(call(2, "echo", {"text": "hi"}), session)
    assert echo.json["id"] == 2 and not echo.json["result"]["isError"]
    crash = harness.post(call(3, "crash"), session)
    assert crash.status == 200 and crash.json["error"]["code"] == -32603
    assert harness.post(rpc(4, "no/such"), session).json["error"]["code"] == -32601
    again = harness.post(rpc(5, "initialize", {"protocolVersion": "2025-11-25"}), session)
    assert again.status == 200 and again.json["error"]["code"] == -32600  # the session itself refuses it
    assert len(harness.backends) == 1 and harness.endpoint.sessions == 1


def test_the_session_id_is_required_and_must_be_known_INV_HTTP_2() -> None:
    """INV-HTTP-2: missing: 400; unknown or ended: 404; none of it reaches a session."""
    harness = Harness()
    harness.open_session()
    missing = harness.post(rpc(1, "ping"))
    assert missing.status == 400 and "Mcp-Session-Id" in missing.json["error"]["message"]
    unknown = harness.post(rpc(1, "ping"), "sid-999")
    assert unknown.status == 404 and unknown.json["id"] is None
    assert harness.request("GET", headers={"mcp-session-id": "nope", "accept": "text/event-stream"}).status == 404
    assert harness.request("DELETE", headers={"mcp-session-id": "nope"}).status == 404
    assert harness.request("DELETE").status == 400
    assert [line["method"] for line in harness.backends[0].lines] == ["initialize", "notifications/initialized"]


def test_a_failed_initialize_opens_no_session_INV_HTTP_2() -> None:
    """INV-HTTP-2: an initialize the session refuses gets its error (400) and no session id."""
    harness = Harness()
    refused = harness.post(rpc(1, "initialize", {"capabilities": {}}))
    assert refused.status == 400 and refused.session_id is None
    assert refused.json["error"]["code"] == -32602
    assert harness.endpoint.sessions == 0 and harness.backends[0].ended
    not_a_request = harness.post({"jsonrpc": "2.0", "method": "initialize"})
    assert not_a_request.status == 400 and len(harness.backends) == 1


def test_initialize_past_the_session_bound_is_503_INV_HTTP_5() -> None:
    """INV-HTTP-5."""
    harness = Harness(sessions_max=2)
    first = harness.open_session()
    harness.open_session()
    busy = harness.post(rpc(9, "initialize", {"protocolVersion": "2025-11-25"}))
    assert busy.status == 503 and busy.json["id"] == 9 and len(harness.backends) == 2
    assert harness.request("DELETE", headers={"mcp-session-id": first}).status == 200
    harness.open_session()


def test_delete_ends_the_session_and_cancels_its_calls_INV_HTTP_2() -> None:
    """INV-HTTP-2: DELETE cancels running calls, tells waiting requests (404), and later ones get 404."""
    harness = Harness()
    session = harness.open_session()
    waiting = harness.post(call(1, "slow"), session)
    assert waiting.status is None
    deleted = harness.request("DELETE", headers={"mcp-session-id": session})
    assert deleted.status == 200 and deleted.body == b""
    assert waiting.status == 404 and waiting.json["id"] == 1
    backend = harness.backends[0]
    assert backend.cancelled == [1] and backend.ended
    assert harness.post(rpc(2, "ping"), session).status == 404
    backend.complete(1)
    harness.settle()  # the late answer reaches nobody


def test_an_id_waiting_for_its_answer_is_refused_INV_HTTP_3() -> None:
    """INV-HTTP-3: two requests with one id would make the answer ambiguous."""
    harness = Harness()
    session = harness.open_session()
    first = harness.post(call(7, "slow"), session)
    second = harness.post(rpc(7, "ping"), session)
    assert second.status == 400 and second.json["id"] == 7 and "already in flight" in second.json["error"]["message"]
    harness.backends[0].complete(7, "first")
    harness.settle()
    assert first.json["result"]["content"][0]["text"] == "first"
    assert harness.post(rpc(7, "ping"), session).json == {"id": 7, "jsonrpc": "2.0", "result": {}}


def test_concurrent_requests_get_their_own_answers_INV_HTTP_3() -> None:
    """INV-HTTP-3: answers are routed by id, whatever order the calls finish in."""
    harness = Harness()
    session = harness.open_session()
    sinks = {request_id: harness.post(call(request_id, "slow"), session) for request_id in ("a", 1, "1", 2)}
    backend = harness.backends[0]
    for request_id in (2, "1", "a", 1):
        backend.complete(request_id, f"answer {request_id!r}")
    harness.settle()
    for request_id, sink in sinks.items():
        assert sink.json["id"] == request_id
        assert sink.json["result"]["content"][0]["text"] == f"answer {request_id!r}"


@pytest.mark.parametrize(
    "body",
    [
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1, "method": 3},
        {"jsonrpc": "2.0", "id": 1},
        "text",
        7,
    ],
)
def test_a_message_the_session_could_not_route_is_400_INV_HTTP_3(body: Any) -> None:
    """INV-HTTP-3: what a session would answer with id null never reaches it."""
    harness = Harness()
    session = harness.open_session()
    answer = harness.post(body, session)
    assert answer.status == 400 and answer.json["error"]["code"] == -32600
    assert len(harness.backends[0].lines) == 2


def test_bad_bodies_are_refused_before_any_session_INV_HTTP_1() -> None:
    """INV-HTTP-1: 415, 406, 400 (-32700)."""
    harness = Harness()
    session = harness.open_session()
    wrong_type = harness.request(
        "POST", rpc(1, "ping"), headers={"content-type": "text/plain", "mcp-session-id": session}
    )
    assert wrong_type.status == 415
    html = harness.request("POST", rpc(1, "ping"), headers={"accept": "text/html", "mcp-session-id": session})
    assert html.status == 406
    for raw in (b"{bad", b"", b"\xef\xbb\xbf{}", b'{"a": NaN}'):
        broken = harness.post(raw, session)
        assert broken.status == 400 and broken.json["error"]["code"] == -32700 and broken.json["id"] is None
    assert len(harness.backends[0].lines) == 2


def test_a_pretty_printed_body_is_one_frame() -> None:
    harness = Harness()
    session = harness.open_session()
    raw = json.dumps(call(1, "echo", {"text": "a\nb"}), indent=2).encode().replace(b"\n", b"\r\n")
    answer = harness.post(raw, session)
    assert json.loads(answer.json["result"]["content"][0]["text"]) == {"text": "a\nb"}


def test_notifications_and_responses_are_accepted_with_202() -> None:
    harness = Harness()
    session = harness.open_session()
    assert harness.post({"jsonrpc": "2.0", "method": "notifications/whatever"}, session).status == 202
    assert harness.post({"jsonrpc": "2.0", "id": 5, "result": {}}, session).status == 202
    assert harness.post({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}, session).status == 202
    assert len(harness.backends[0].lines) == 5


def test_batches_in_2025_03_26_only_INV_HTTP_3() -> None:
    """INV-HTTP-3: a batch is answered as one array; elsewhere it is refused before the session."""
    harness = Harness()
    old = harness.open_session("2025-03-26")
    batch = [
        rpc(1, "ping"),
        call(2, "slow"),
        {"jsonrpc": "2.0", "method": "notifications/x"},
        call(3, "echo", {"text": "x"}),
    ]
    answer = harness.post(batch, old)
    assert answer.status is None
    harness.backends[0].complete(2)
    harness.settle()
    assert [item["id"] for item in answer.json] == [1, 2, 3]
    assert harness.post([{"jsonrpc": "2.0", "method": "notifications/x"}], old).status == 202
    assert harness.post([], old).status == 400
    assert harness.post([rpc(1, "ping"), rpc(1, "ping")], old).status == 400
    assert harness.post([rpc(1, "initialize")], old).status == 400
    assert harness.post([rpc(1, "ping"), 3], old).status == 400
    new = harness.open_session("2025-06-18")
    refused = harness.post([rpc(1, "ping")], new)
    assert refused.status == 400 and "2025-03-26" in refused.json["error"]["message"]
    assert harness.post([rpc(1, "ping")] * 65, old).status == 400


def test_a_slow_answer_becomes_a_stream_with_keepalives_INV_HTTP_3() -> None:
    """INV-HTTP-3: an answer held back past keepalive_s goes out as an SSE stream ending with it."""
    harness = Harness(keepalive_s=1.0)
    session = harness.open_session()
    sink = harness.post(call(1, "slow"), session)
    harness.advance(0.5)
    assert sink.status is None
    harness.advance(0.6)
    assert sink.status == 200 and sink.headers["content-type"] == "text/event-stream"
    assert sink.headers["x-accel-buffering"] == "no"
    harness.advance(1.0)
    assert sink.comments == 2 and not sink.done
    harness.backends[0].complete(1)
    harness.settle()
    assert sink.done and [event["id"] for event in sink.events] == [1]


def test_progress_goes_to_the_stream_of_its_call_INV_HTTP_3() -> None:
    """INV-HTTP-3: a notification carrying a call's progress token makes its exchange a stream."""
    harness = Harness()
    session = harness.open_session()
    sink = harness.post(call(1, "slow", progressToken="tok"), session)
    other = harness.post(call(2, "slow", progressToken=5), session)
    backend = harness.backends[0]
    backend.say(
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "tok", "progress": 1}}
    )
    harness.settle()
    assert sink.events[0]["params"]["progress"] == 1 and other.status is None
    backend.complete(1)
    harness.settle()
    assert [event.get("id") for event in sink.events] == [None, 1] and sink.done


def test_a_client_taking_json_only_never_gets_a_stream_and_one_taking_sse_only_always() -> None:
    harness = Harness(keepalive_s=1.0)
    session = harness.open_session()
    json_only = harness.post(call(1, "slow", progressToken=1), session, accept="application/json")
    sse_only = harness.post(call(2, "echo", {"text": "x"}), session, accept="text/event-stream")
    assert sse_only.done and sse_only.events[0]["id"] == 2
    backend = harness.backends[0]
    backend.say({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}})
    harness.advance(5.0)
    assert json_only.status is None
    backend.complete(1)
    harness.settle()
    assert json_only.status == 200 and json_only.json["id"] == 1


def test_the_get_stream_carries_what_belongs_to_no_request_INV_HTTP_2() -> None:
    """INV-HTTP-2: one GET stream per session (409 for a second), 406 without text/event-stream."""
    harness = Harness(keepalive_s=1.0, stream_idle_s=5.0)
    session = harness.open_session()
    assert harness.request("GET", headers={"mcp-session-id": session, "accept": "application/json"}).status == 406
    assert harness.request("GET", headers={"accept": "text/event-stream"}).status == 400
    stream = harness.request("GET", headers={"mcp-session-id": session, "accept": "text/event-stream"})
    assert stream.status == 200 and stream.stream == []
    second = harness.request("GET", headers={"mcp-session-id": session})
    assert second.status == 409
    harness.backends[0].say({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "warning"}})
    harness.advance(1.5)
    assert stream.events[0]["method"] == "notifications/message" and stream.comments == 1
    harness.advance(4.0)
    assert stream.done  # idle past stream_idle_s: ended; the client may open another
    assert harness.request("GET", headers={"mcp-session-id": session}).status == 200


def test_messages_with_no_stream_to_carry_them_wait_for_the_next_one_INV_HTTP_2() -> None:
    """INV-HTTP-2: the latest 16 wait for the GET stream the client opens next; older ones are dropped."""
    harness = Harness()
    session = harness.open_session()
    for number in range(20):
        harness.backends[0].say({"jsonrpc": "2.0", "method": "notifications/message", "params": {"n": number}})
    harness.settle()
    assert harness.post(rpc(1, "ping"), session).json["result"] == {}
    stream = harness.request("GET", headers={"mcp-session-id": session})
    assert [event["params"]["n"] for event in stream.events] == list(range(4, 20))


def test_a_cancelled_call_ends_its_exchange_and_holds_its_id_until_the_barrier_INV_HTTP_3() -> None:
    """INV-HTTP-3: the session drops a cancelled call's answer; the endpoint ends the exchange with
    an empty stream and holds the id until the ping sent behind the cancellation comes back."""
    harness = Harness()
    session = harness.open_session()
    sink = harness.post(call(5, "slow"), session)
    backend = harness.backends[0]
    backend.out.clear()
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}
    endpoint = harness.endpoint
    result = Sink()
    endpoint.handle(
        HttpRequest(
            "POST",
            "/mcp",
            (("host", "localhost"), ("content-type", "application/json"), ("mcp-session-id", session)),
            json.dumps(cancel).encode(),
        ),
        result,
        harness.now,
    )
    assert result.status == 202 and sink.done and sink.events == []
    barrier = backend.lines[-1]
    assert barrier["method"] == "ping" and barrier["id"].startswith("mesh-http-barrier-")
    assert backend.cancelled == [5]
    # Before the barrier comes back, the id is still held.
    held = Sink()
    endpoint.handle(
        HttpRequest(
            "POST",
            "/mcp",
            (("host", "localhost"), ("content-type", "application/json"), ("mcp-session-id", session)),
            json.dumps(rpc(5, "ping")).encode(),
        ),
        held,
        harness.now,
    )
    assert held.status == 400
    harness.settle()  # the barrier's answer releases it: the session itself answers from now on
    running = harness.post(rpc(5, "ping"), session)
    assert running.status == 200 and running.json["id"] == 5 and "already in flight" in running.json["error"]["message"]
    backend.complete(5)  # the cancelled call ends; the session drops its answer
    harness.settle()
    assert harness.post(rpc(5, "ping"), session).json == {"id": 5, "jsonrpc": "2.0", "result": {}}


def test_a_late_answer_never_reaches_a_request_reusing_the_id_INV_HTTP_3() -> None:
    """INV-HTTP-3: an answer given before the cancellation arrives before the barrier: dropped."""
    harness = Harness()
    session = harness.open_session()
    sink = harness.post(call(5, "slow"), session)
    backend = harness.backends[0]
    backend.complete(5, "too late")  # answered, but the frame is still on its way
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}
    pending = list(backend.out)
    backend.out.clear()
    assert harness.post(cancel, session).status == 202
    backend.out.extendleft(reversed(pending))
    harness.settle()
    assert sink.done and sink.events == []
    reused = harness.post(call(5, "echo", {"text": "new"}), session)
    assert json.loads(reused.json["result"]["content"][0]["text"]) == {"text": "new"}


def test_cancelling_a_request_that_is_no_call_changes_nothing() -> None:
    harness = Harness()
    session = harness.open_session("2025-03-26")
    batch = harness.post([call(1, "slow"), call(2, "slow")], session)
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    assert harness.post(cancel, session).status == 202
    assert batch.status is None  # a batch owes the answers of its other requests
    harness.backends[0].complete(2)
    harness.backends[0].complete(1)
    harness.settle()
    assert [item["id"] for item in batch.json] == [2]
    for request_id in ("nope", None, 99):
        other = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}
        assert harness.post(other, session).status == 202


def test_a_client_leaving_cancels_nothing_in_the_handshake_era_INV_HTTP_3() -> None:
    """INV-HTTP-3 (2025-11-25: a disconnection is no cancellation): the call runs, its answer is
    dropped when it comes, and the id is held until then."""
    harness = Harness()
    session = harness.open_session()
    sink = harness.post(call(1, "slow"), session)
    harness.endpoint.sink_closed(sink, harness.now)
    backend = harness.backends[0]
    assert backend.cancelled == [] and harness.endpoint.waiting == 0
    assert harness.post(rpc(1, "ping"), session).status == 400
    backend.complete(1)
    harness.settle()
    assert sink.status is None
    assert harness.post(rpc(1, "ping"), session).status == 200


def test_a_client_leaving_during_initialize_leaves_no_session() -> None:
    harness = Harness()
    params = {"protocolVersion": "2025-11-25", "capabilities": {}}
    sink = Sink()
    body = json.dumps(rpc(0, "initialize", params)).encode()
    request = HttpRequest("POST", "/mcp", (("content-type", "application/json"),), body)
    harness.endpoint.handle(request, sink, 0.0)
    harness.endpoint.sink_closed(sink, 0.0)
    harness.settle()
    assert harness.endpoint.sessions == 0 and harness.backends[0].ended


def test_an_idle_session_ends_INV_HTTP_5() -> None:
    """INV-HTTP-5: no request, answer or stream for session_idle_s: the session ends (404 after)."""
    harness = Harness(session_idle_s=10.0)
    session = harness.open_session()
    busy = harness.open_session()
    harness.post(call(1, "slow"), busy)
    harness.advance(9.0)
    assert harness.post(rpc(1, "ping"), session).status == 200
    harness.advance(9.0)
    assert harness.endpoint.sessions == 2
    harness.advance(1.5)
    assert harness.post(rpc(2, "ping"), session).status == 404
    assert harness.post(rpc(2, "ping"), busy).status == 200  # a call still waits: not idle


def test_a_session_that_dies_fails_its_waiting_requests_INV_HTTP_3() -> None:
    """INV-HTTP-3: a lost session answers its waiting requests with an error (503), never a hang."""
    harness = Harness(keepalive_s=1.0)
    session = harness.open_session()
    plain = harness.post(call(1, "slow"), session)
    streamed = harness.post(call(2, "slow"), session)
    harness.advance(1.5)
    plain_again = harness.post(call(3, "slow"), session)
    harness.endpoint.backend_lost(harness.backends[0], harness.now)
    assert streamed.done and streamed.events[0]["error"]["code"] == -32603 and streamed.events[0]["id"] == 2
    assert plain_again.status == 503 and plain_again.json["id"] == 3
    assert plain.done and harness.endpoint.waiting == 0 and harness.endpoint.lost == 3
    assert harness.post(rpc(4, "ping"), session).status == 404


def test_stop_refuses_new_requests_and_answers_the_waiting_INV_HTTP_7() -> None:
    """INV-HTTP-7: a stopping endpoint answers new requests 503, ends GET streams, and still
    delivers the answers of the requests it accepted."""
    harness = Harness()
    session = harness.open_session()
    waiting = harness.post(call(1, "slow"), session)
    stream = harness.request("GET", headers={"mcp-session-id": session})
    harness.endpoint.stop()
    assert stream.done
    refused = harness.post(rpc(2, "ping"), session)
    assert refused.status == 503
    assert harness.endpoint.waiting == 1
    harness.backends[0].complete(1)
    harness.settle()
    assert waiting.json["id"] == 1 and harness.endpoint.waiting == 0
    harness.endpoint.end_all()
    assert harness.backends[0].ended


# --- the stateless era -----------------------------------------------------------------------


def test_each_stateless_request_gets_a_session_of_its_own_INV_HTTP_4() -> None:
    """INV-HTTP-4: nothing outlives a request: its session ends as soon as it has answered."""
    harness = Harness()
    discover = harness.modern(1, "server/discover")
    assert discover.status == 200 and discover.json["result"]["supportedVersions"] == [MODERN]
    listed = harness.modern(1, "tools/list")
    called = harness.modern(1, "tools/call", {"name": "echo", "arguments": {"text": "x"}})
    assert listed.json["result"]["resultType"] == "complete" and called.json["id"] == 1
    assert len(harness.backends) == 3 and all(backend.ended for backend in harness.backends)
    assert all(backend.kind == "stateless" for backend in harness.backends)
    assert harness.endpoint.sessions == 0 and "mcp-session-id" not in called.headers


def test_stateless_errors_carry_their_status_INV_HTTP_4() -> None:
    """INV-HTTP-4: 404 for an unknown method (ping is none in 2026-07-28), 400 for the client's
    errors, 200 for a tool's crash."""
    harness = Harness()
    assert harness.modern(1, "ping").status == 404
    unknown = harness.modern(1, "tools/call", {"name": "nope"})
    assert unknown.status == 400 and unknown.json["error"]["code"] == -32602
    crash = harness.modern(1, "tools/call", {"name": "crash"})
    assert crash.status == 200 and crash.json["error"]["code"] == -32603


@pytest.mark.parametrize(
    ("headers", "what"),
    [
        ({"mcp_protocol_version": None}, "MCP-Protocol-Version header is required"),
        ({"mcp_protocol_version": "2025-11-25"}, "MCP-Protocol-Version does not match"),
        ({"mcp_method": "tools/list"}, "Mcp-Method"),
        ({"mcp_method": "TOOLS/CALL"}, "Mcp-Method"),
        ({"mcp_method": None}, "Mcp-Method"),
        ({"mcp_name": "crash"}, "Mcp-Name"),
        ({"mcp_name": None}, "Mcp-Name"),
        ({"mcp_name": "=?base64?!!?="}, "Mcp-Name"),
    ],
)
def test_mirrored_headers_must_match_the_body_INV_HTTP_4(headers: dict[str, Any], what: str) -> None:
    """INV-HTTP-4: 400 with -32020 (HeaderMismatch); the request reaches no session."""
    harness = Harness()
    body = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "_meta": ENVELOPE}}
    fields = {"mcp_protocol_version": MODERN, "mcp_method": "tools/call", "mcp_name": "echo", **headers}
    sink = harness.post(body, **{name: value for name, value in fields.items() if value is not None})
    assert sink.status == 400 and sink.json["error"]["code"] == -32020 and sink.json["id"] == 3
    assert what in sink.json["error"]["message"]
    assert harness.backends == []


def test_a_base64_name_header_matches_INV_HTTP_4() -> None:
    """INV-HTTP-4."""
    harness = Harness()
    encoded = "=?base64?" + base64.b64encode(b"echo").decode() + "?="
    sink = harness.modern(1, "tools/call", {"name": "echo", "arguments": {"text": "x"}}, mcp_name=encoded)
    assert sink.status == 200


def test_stateless_refusals_reach_no_session_INV_HTTP_4() -> None:
    """INV-HTTP-4: no envelope (-32602), initialize (-32022), batches and responses (400), an
    unknown version (-32022, listing what is served); a notification is accepted (202)."""
    harness = Harness()
    bare = harness.post(rpc(1, "tools/list"), mcp_protocol_version=MODERN, mcp_method="tools/list")
    assert bare.status == 400 and bare.json["error"]["code"] == -32602
    init = harness.modern(1, "initialize", {"protocolVersion": "2025-11-25"})
    assert init.status == 400 and init.json["error"]["code"] == -32022
    batch = harness.post([rpc(1, "tools/list", {"_meta": ENVELOPE})], mcp_protocol_version=MODERN)
    assert batch.status == 400
    response = harness.post({"jsonrpc": "2.0", "id": 1, "result": {}}, mcp_protocol_version=MODERN)
    assert response.status == 400
    future = harness.post(rpc(1, "tools/list", {"_meta": ENVELOPE}), mcp_protocol_version="2027-01-01")
    assert future.status == 400 and future.json["error"]["code"] == -32022
    assert future.json["error"]["data"]["supported"][:2] == [MODERN, "2025-11-25"]
    note = harness.post(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}, mcp_protocol_version=MODERN
    )
    assert note.status == 202
    assert harness.backends == []


def test_a_body_with_the_envelope_is_stateless_whatever_its_headers_INV_HTTP_4() -> None:
    """INV-HTTP-4: the envelope without the header is a header mismatch, not a handshake request."""
    harness = Harness()
    session = harness.open_session()
    sink = harness.post(rpc(1, "tools/list", {"_meta": ENVELOPE}), session, mcp_method="tools/list")
    assert sink.status == 400 and sink.json["error"]["code"] == -32020


def test_get_and_delete_are_405_in_the_stateless_era_INV_HTTP_4() -> None:
    """INV-HTTP-4."""
    harness = Harness()
    for method in ("GET", "DELETE"):
        sink = harness.request(method, headers={"mcp-protocol-version": MODERN})
        assert sink.status == 405 and sink.headers["allow"] == "POST"


def test_closing_a_stateless_stream_cancels_the_call_INV_HTTP_4() -> None:
    """INV-HTTP-4: 2026-07-28: closing the response stream is the cancellation."""
    harness = Harness()
    sink = harness.modern(9, "tools/call", {"name": "slow"})
    backend = harness.backends[0]
    assert sink.status is None and 9 in backend.held
    harness.endpoint.sink_closed(sink, harness.now)
    assert backend.cancelled == [9] and backend.ended
    backend.complete(9)
    harness.settle()
    assert sink.status is None and harness.endpoint.waiting == 0


def test_a_stateless_stream_carries_the_notifications_of_its_request() -> None:
    harness = Harness()
    sink = harness.modern(9, "tools/call", {"name": "slow"})
    backend = harness.backends[0]
    backend.say({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}})
    harness.settle()
    backend.complete(9)
    harness.settle()
    assert [event.get("method", event.get("id")) for event in sink.events] == ["notifications/message", 9]


def test_the_two_eras_serve_side_by_side() -> None:
    harness = Harness()
    session = harness.open_session()
    modern = harness.modern(1, "tools/call", {"name": "echo", "arguments": {"text": "m"}})
    old = harness.post(call(1, "echo", {"text": "h"}), session)
    assert json.loads(modern.json["result"]["content"][0]["text"]) == {"text": "m"}
    assert json.loads(old.json["result"]["content"][0]["text"]) == {"text": "h"}
    assert "resultType" in modern.json["result"] and "resultType" not in old.json["result"]


def test_next_deadline_follows_what_is_timed() -> None:
    harness = Harness(keepalive_s=2.0, session_idle_s=50.0)
    assert harness.endpoint.next_deadline() is None
    session = harness.open_session()
    assert harness.endpoint.next_deadline() == 50.0
    harness.post(call(1, "slow"), session)
    assert harness.endpoint.next_deadline() == 2.0


def test_unsupported_protocol_version_header_is_400_in_every_method() -> None:
    harness = Harness()
    session = harness.open_session()
    for method in ("POST", "GET", "DELETE"):
        sink = harness.request(
            method, rpc(1, "ping"), headers={"mcp-session-id": session, "mcp-protocol-version": "1.0"}
        )
        assert sink.status == 400 and sink.json["error"]["code"] == -32022
    assert harness.post(rpc(2, "ping"), session, mcp_protocol_version="2025-03-26").status == 200
