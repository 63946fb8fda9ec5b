"""Property tests of the core: garbage never escapes, chunking never matters, ids answered once."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mesh.protocol import ServerSession, SessionClosed, SessionConfig
from tests.support.memory import Harness, initialize, notification, request, run, stateless

SMALL = SessionConfig(max_frame_bytes=256, max_in_flight=3, max_batch_items=4)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=4,
)
# Streams are built from many small draws; generating them is slower than the core under test.
SLOW_DRAWS = [HealthCheck.too_slow, HealthCheck.data_too_large]
methods = st.sampled_from(["initialize", "ping", "tools/list", "tools/call", "server/discover", "nope", ""])
ids = st.one_of(st.integers(-5, 5), st.sampled_from(["a", "b", ""]), st.none(), st.booleans(), st.floats(0, 2))


@st.composite
def messages(draw: st.DrawFn) -> bytes:
    """Frames near the valid ones: right keys, wrong values, now and then."""
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.binary(max_size=40)) + b"\n"
    if kind == 1:
        return json.dumps(draw(json_values)).encode() + b"\n"
    if kind == 2:
        return initialize(draw(st.sampled_from(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "x"])))
    if kind == 3:
        return stateless(draw(ids), draw(methods), {"name": draw(st.sampled_from(["echo", "slow", "crash"]))})
    if kind == 4:
        return notification("notifications/cancelled", {"requestId": draw(ids)})
    if kind == 5:
        return b"[" + b",".join(request(i, "ping").rstrip() for i in range(draw(st.integers(0, 5)))) + b"]\n"
    if kind == 6:
        return b"x" * draw(st.integers(250, 600)) + b"\n"
    message: dict[str, Any] = {"jsonrpc": draw(st.sampled_from(["2.0", "2.0", "1.0"])), "method": draw(methods)}
    if draw(st.booleans()):
        message["id"] = draw(ids)
    if draw(st.booleans()):
        message["params"] = draw(
            st.one_of(json_values, st.fixed_dictionaries({"name": st.sampled_from(["echo", "crash", "nope"])}))
        )
    return json.dumps(message).encode() + (b"\r\n" if draw(st.booleans()) else b"\n")


streams = st.lists(messages(), max_size=10).map(b"".join)


@settings(max_examples=300)
@given(data=st.binary(max_size=2000))
@example(data=b"[" * 3000)
@example(data=b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}\n[[[]]]\n')
def test_arbitrary_bytes_never_raise_and_leave_only_json_lines_INV_CLASS_1(data: bytes) -> None:
    """INV-CLASS-1."""
    output = run(data, SMALL)
    for line in output.splitlines(keepends=True):
        assert line.endswith(b"\n")
        assert isinstance(json.loads(line), (dict, list))


@settings(max_examples=300, suppress_health_check=SLOW_DRAWS)
@given(data=streams)
def test_near_valid_streams_never_raise_INV_CLASS_1(data: bytes) -> None:
    """INV-CLASS-1."""
    for line in run(data, SMALL).splitlines():
        answer = json.loads(line)
        for item in answer if isinstance(answer, list) else [answer]:
            assert item["jsonrpc"] == "2.0" and ("result" in item) != ("error" in item)
            if "error" in item:
                assert len(item["error"]["message"]) <= 256  # INV-CLASS-4


@settings(max_examples=200, suppress_health_check=SLOW_DRAWS)
@given(data=streams, cuts=st.lists(st.integers(1, 64), min_size=1, max_size=8))
def test_any_chunking_gives_the_same_bytes_INV_FRAME_1(data: bytes, cuts: list[int]) -> None:
    """INV-FRAME-1."""
    assert run(data, SMALL, chunks=cuts) == run(data, SMALL)


@settings(max_examples=200)
@given(
    version=st.sampled_from(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]),
    plan=st.lists(st.tuples(st.sampled_from(["ping", "tools/list", "echo", "slow", "crash", "cancel"]), st.booleans()), max_size=30),
    cuts=st.lists(st.integers(1, 50), min_size=1, max_size=5),
)
def test_every_request_is_answered_exactly_once_unless_cancelled_INV_DRAIN_1(
    version: str, plan: list[tuple[str, bool]], cuts: list[int]
) -> None:
    """INV-DRAIN-1."""
    harness = Harness(SMALL)
    data = initialize(version, request_id="init")
    expected: set[Any] = {"init"}
    cancelled: set[Any] = set()
    for number, (what, finish_later) in enumerate(plan):
        if what == "cancel":
            if number > 0:
                data += notification("notifications/cancelled", {"requestId": number - 1})
                cancelled.add(number - 1)
            continue
        if what in ("ping", "tools/list"):
            data += request(number, what)
        else:
            data += request(number, "tools/call", {"name": "slow" if finish_later else what})
        expected.add(number)
    position = 0
    index = 0
    while position < len(data):
        size = cuts[index % len(cuts)]
        harness.feed(data[position : position + size])
        position += size
        index += 1
        # Complete the oldest pending call now and then, as a tool pool would.
        if harness.pending and index % 2 == 0:
            oldest = next(iter(harness.pending))
            harness.complete(oldest, harness.tool(type(harness.pending[oldest])(oldest, "echo", {}, {}, version)))
    harness.eof()
    while harness.pending:
        oldest = next(iter(harness.pending))
        harness.complete(oldest, harness.tool(type(harness.pending[oldest])(oldest, "echo", {}, {}, version)))
    assert harness.closed
    answered = [answer["id"] for answer in harness.take()]
    assert len(answered) == len(set(answered))  # never twice
    # Cancellation only removes an answer when it arrived while the call was in flight.
    assert set(answered) <= expected
    assert expected - set(answered) <= cancelled


def test_session_survives_tools_free_catalogue() -> None:
    session = ServerSession(SessionConfig(), ())
    session.receive_data(request(1, "initialize", {"protocolVersion": "2025-11-25"}) + request(2, "tools/list"))
    session.receive_eof()
    while not isinstance(session.next_event(), SessionClosed):
        pass
    answers = [json.loads(line) for line in session.data_to_send().splitlines()]
    assert answers[1]["result"] == {"tools": []}
