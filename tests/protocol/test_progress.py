"""The core's ``notifications/progress``: only for a token given, only while the call runs, rising.

INV-PROGRESS-1..3 (INVARIANTS.md). The driver's side is tests/drivers/test_first_call.py, the real
binary's tests/journeys/test_first_call_journey.py.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.protocol import ServerSession, SessionConfig, ToolCallRequested, ToolResult
from mesh.protocol._versions import HANDSHAKE_VERSIONS, MODERN_VERSIONS
from tests.support.memory import Harness, initialize, notification, request, stateless

PROGRESS = "notifications/progress"


def progress_of(frames: list[Any]) -> list[dict[str, Any]]:
    return [frame["params"] for frame in frames if isinstance(frame, dict) and frame.get("method") == PROGRESS]


def slow_call(request_id: Any, meta: dict[str, Any] | None = None) -> bytes:
    params: dict[str, Any] = {"name": "slow", "arguments": {}}
    if meta is not None:
        params["_meta"] = meta
    return request(request_id, "tools/call", params)


def started(version: str = "2025-11-25", meta: dict[str, Any] | None = None, request_id: Any = 1) -> Harness:
    """A handshake session with the call ``request_id`` in flight."""
    harness = Harness()
    harness.feed(initialize(version) + slow_call(request_id, meta))
    harness.take()
    assert request_id in harness.pending
    return harness


def test_inv_progress_1_a_call_with_a_token_hears_its_progress_before_its_answer() -> None:
    """INV-PROGRESS-1."""
    harness = started(meta={"progressToken": "tok"})
    assert harness.session.progress(1, 0, None, "listing the workspace's files")
    assert harness.session.progress(1, 120, 4000, "120 of 4,000 files parsed")
    harness.complete(1, ToolResult("done"))
    frames = harness.take()
    assert progress_of(frames) == [
        {"progressToken": "tok", "progress": 0, "message": "listing the workspace's files"},
        {"progressToken": "tok", "progress": 120, "total": 4000, "message": "120 of 4,000 files parsed"},
    ]
    assert frames[-1]["id"] == 1 and frames[-1]["result"]["content"][0]["text"] == "done"
    # After the answer: nothing, whatever the driver offers (INV-PROGRESS-1).
    assert not harness.session.progress(1, 500, 4000, "late")
    harness.pump()
    assert harness.take() == []


@pytest.mark.parametrize("meta", [None, {}, {"traceparent": "x"}, {"progressToken": None}, {"progressToken": 1.5},
                                  {"progressToken": True}, {"progressToken": ["a"]}, {"progressToken": {"a": 1}}])  # fmt: skip
def test_inv_progress_1_no_token_no_progress(meta: dict[str, Any] | None) -> None:
    harness = started(meta=meta)
    assert not harness.session.progress(1, 10, 100, "x")
    harness.complete(1, ToolResult("done"))
    assert progress_of(harness.take()) == []


def test_integer_token_is_echoed_as_given() -> None:
    harness = started(meta={"progressToken": 0})
    assert harness.session.progress(1, 1)
    harness.pump()
    assert progress_of(harness.take()) == [{"progressToken": 0, "progress": 1}]


def test_inv_progress_2_progress_strictly_rises() -> None:
    """INV-PROGRESS-2."""
    harness = started(meta={"progressToken": "t"})
    sent = [harness.session.progress(1, value, 10) for value in (0, 0, 3, 2, 3, 3.5, 10, 9)]
    assert sent == [True, False, True, False, False, True, True, False]
    harness.pump()
    assert [item["progress"] for item in progress_of(harness.take())] == [0, 3, 3.5, 10]


@given(st.lists(st.one_of(st.integers(-5, 50), st.floats(-5, 50, allow_nan=False)), max_size=30))
@settings(max_examples=200, deadline=None)
def test_inv_progress_2_any_offers_go_out_strictly_rising(offers: list[float]) -> None:
    harness = started(meta={"progressToken": "t"})
    for value in offers:
        harness.session.progress(1, value, 50, "m")
    harness.pump()
    values = [item["progress"] for item in progress_of(harness.take())]
    assert all(later > earlier for earlier, later in pairwise(values))
    if offers:
        assert values[0] == offers[0] and values[-1] == max(offers)


def test_cancelled_call_hears_no_more_progress() -> None:
    harness = started(meta={"progressToken": "t"})
    assert harness.session.progress(1, 1)
    harness.feed(notification("notifications/cancelled", {"requestId": 1}))
    assert not harness.session.progress(1, 2)
    harness.pump()
    assert [item["progress"] for item in progress_of(harness.take())] == [1]


def test_unknown_request_id_is_ignored() -> None:
    harness = started(meta={"progressToken": "t"})
    assert not harness.session.progress(99, 1)
    assert not harness.session.progress("1", 1)  # ids are typed: "1" is not 1


def test_inv_progress_3_a_token_held_by_a_call_in_flight_is_not_shared() -> None:
    """INV-PROGRESS-3."""
    harness = started(meta={"progressToken": "same"})
    harness.feed(slow_call(2, {"progressToken": "same"}))
    assert harness.session.progress(1, 1)
    assert not harness.session.progress(2, 5)  # the second call's count would interleave under one token
    harness.complete(1, ToolResult("one"))
    harness.take()
    # Once the first call answered, a new call may use the token again.
    harness.feed(slow_call(3, {"progressToken": "same"}))
    assert harness.session.progress(3, 1)


def test_distinct_tokens_rise_independently() -> None:
    harness = started(meta={"progressToken": "a"})
    harness.feed(slow_call(2, {"progressToken": "b"}))
    assert harness.session.progress(1, 5)
    assert harness.session.progress(2, 1)
    harness.pump()
    assert [(item["progressToken"], item["progress"]) for item in progress_of(harness.take())] == [("a", 5), ("b", 1)]


def test_message_is_left_out_for_2024_11_05() -> None:
    harness = started(version="2024-11-05", meta={"progressToken": "t"})
    harness.session.progress(1, 1, 2, "words")
    harness.pump()
    assert progress_of(harness.take()) == [{"progressToken": "t", "progress": 1, "total": 2}]


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS[1:])
def test_message_is_sent_from_2025_03_26(version: str) -> None:
    harness = started(version=version, meta={"progressToken": "t"})
    harness.session.progress(1, 1, 2, "words")
    harness.pump()
    assert progress_of(harness.take())[0]["message"] == "words"


@pytest.mark.parametrize("version", MODERN_VERSIONS)
def test_stateless_revision_sends_progress_on_the_call_before_its_answer(version: str) -> None:
    harness = Harness()
    params = {"name": "slow", "arguments": {}}
    data = stateless(1, "tools/call", params, protocolVersion=version)
    # The envelope's _meta carries the token beside the protocol keys.
    data = data.replace(b'"_meta": {', b'"_meta": {"progressToken": "s", ', 1)
    harness.feed(data)
    assert 1 in harness.pending
    assert harness.session.progress(1, 3, 9, "3 of 9")
    harness.complete(1, ToolResult("ok"))
    frames = harness.take()
    assert progress_of(frames) == [{"progressToken": "s", "progress": 3, "total": 9, "message": "3 of 9"}]
    assert frames[-1]["id"] == 1 and frames[-1]["result"]["resultType"] == "complete"
    assert not harness.session.progress(1, 4)


def test_no_progress_after_the_session_closed() -> None:
    harness = started(meta={"progressToken": "t"})
    harness.eof()
    harness.complete(1, ToolResult("x"))
    assert harness.closed
    harness.take()
    assert not harness.session.progress(1, 1)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "3", None, True])
def test_driver_bugs_are_value_errors(bad: Any) -> None:
    harness = started(meta={"progressToken": "t"})
    with pytest.raises(ValueError):
        harness.session.progress(1, bad)
    with pytest.raises(ValueError):
        harness.session.progress(1, 1, float("inf") if bad is None else bad)


def test_batch_call_hears_progress_before_the_batch_answer() -> None:
    harness = Harness()
    harness.feed(initialize("2025-03-26"))
    harness.take()
    batch = b"[" + slow_call(7, {"progressToken": "b"}).strip() + b"]\n"
    harness.feed(batch)
    assert harness.session.progress(7, 1)
    harness.complete(7, ToolResult("x"))
    frames = harness.take()
    assert frames[0]["method"] == PROGRESS and isinstance(frames[1], list)


def test_same_input_same_output() -> None:
    """Deterministic: the frames depend on the input and the offers alone."""

    def transcript() -> bytes:
        session = ServerSession(SessionConfig(), Harness().session.tools)
        session.receive_data(initialize() + slow_call(1, {"progressToken": "t"}))
        while not isinstance(session.next_event(), ToolCallRequested):
            pass
        for value in (0, 1, 1, 2):
            session.progress(1, value, 2, f"{value}")
        session.complete(1, ToolResult("x"))
        return session.data_to_send()

    assert transcript() == transcript()
