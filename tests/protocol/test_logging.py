"""The core's logging to the client: levels per era, who hears what and when, the rate limit.

The server's own words (what a log record may carry to a client) are tested here too, since they
are the other half of the same promise; the real binary's journey is tests/journeys/test_client_logging.py.
"""

from __future__ import annotations

import ast
import json
import logging
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mesh.drivers._client_log import (
    REDACTED,
    ClientLogEntry,
    ClientLogHandler,
    ServerWord,
    client_entry,
    install,
    mcp_level,
)
from mesh.protocol import LOG_LEVELS, Era, ServerSession, SessionConfig, ToolResult
from mesh.protocol._versions import (
    HANDSHAKE_VERSIONS,
    LOG_LEVEL_KEY,
    MODERN_VERSIONS,
    REQUEST_LOG_LEVEL_VERSIONS,
    SET_LEVEL_VERSIONS,
)
from tests.support.memory import Harness, initialize, notification, request, stateless

ROOT = Path(__file__).resolve().parents[2]
LEVELS = list(LOG_LEVELS)
MESSAGE = "notifications/message"


def set_level(request_id: Any, level: Any) -> bytes:
    return request(request_id, "logging/setLevel", {"level": level})


def logs(frames: list[Any]) -> list[dict[str, Any]]:
    """The params of the log notifications among ``frames``."""
    return [frame["params"] for frame in frames if isinstance(frame, dict) and frame.get("method") == MESSAGE]


def opened(level: str = "debug", config: SessionConfig | None = None, version: str = "2025-11-25") -> Harness:
    """A handshake session that asked for ``level``: log messages flow."""
    harness = Harness(config)
    harness.feed(initialize(version) + set_level("lvl", level))
    harness.take()
    return harness


def offer(harness: Harness, level: str, text: str, now: float = 0.0) -> list[dict[str, Any]]:
    harness.session.log(level, "mesh.test", {"message": text}, now)
    harness.pump()
    return logs(harness.take())


def texts(params: list[dict[str, Any]]) -> list[str]:
    return [item["data"]["message"] for item in params]


# --- levels and capabilities, per era ---------------------------------------------------------


def test_the_eras_ask_for_logging_in_two_ways_INV_LOG_1() -> None:
    """INV-LOG-1: setLevel in every handshake revision, the per-request _meta key in 2026-07-28."""
    assert SET_LEVEL_VERSIONS == set(HANDSHAKE_VERSIONS)
    assert REQUEST_LOG_LEVEL_VERSIONS == set(MODERN_VERSIONS)
    assert LEVELS == ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
def test_the_logging_capability_is_declared_and_set_level_answers_empty_INV_LOG_1(version: str) -> None:
    """INV-LOG-1: what the conformance scenario logging-set-level checks: after initialize,
    ``logging/setLevel`` with ``info`` answers exactly ``{}``; the capability is declared."""
    harness = Harness()
    [answer] = harness.ask(initialize(version))
    assert answer["result"]["capabilities"]["logging"] == {}
    for number, level in enumerate(LEVELS):
        assert harness.ask(set_level(number, level)) == [{"jsonrpc": "2.0", "id": number, "result": {}}]


def test_server_discover_declares_logging_INV_LOG_1() -> None:
    """INV-LOG-1."""
    [answer] = Harness().ask(stateless(1, "server/discover"))
    assert answer["result"]["capabilities"] == {"logging": {}, "tools": {"listChanged": False}}


@pytest.mark.parametrize(
    "params", [{"level": "banana"}, {"level": "WARNING"}, {"level": 3}, {"level": None}, {"level": ["info"]}, {}]
)
def test_set_level_refuses_anything_but_the_eight_levels_INV_LOG_1(params: dict[str, Any]) -> None:
    """INV-LOG-1: -32602 naming the levels (the conformance scenario logging-invalid-level); the
    level asked before stays."""
    harness = opened("error")
    [answer] = harness.ask(request(7, "logging/setLevel", params))
    assert answer["error"]["code"] == -32602
    assert "debug, info, notice, warning, error, critical, alert, emergency" in answer["error"]["message"]
    assert len(answer["error"]["message"]) <= 256
    assert offer(harness, "warning", "still filtered at error") == []


def test_set_level_before_initialize_waits_for_an_era_INV_LOG_1() -> None:
    """INV-LOG-1."""
    [answer] = Harness().ask(set_level(1, "info"))
    assert answer["error"]["code"] == -32600


def test_set_level_does_not_exist_in_the_stateless_era_INV_LOG_1() -> None:
    """INV-LOG-1: 2026-07-28 removed it (method not found, the era fixed by the envelope)."""
    harness = Harness()
    [answer] = harness.ask(stateless(1, "logging/setLevel", {"level": "info"}))
    assert answer["error"]["code"] == -32601
    assert harness.session.era is Era.STATELESS


@pytest.mark.parametrize("method", ["tools/call", "tools/list", "server/discover"])
@pytest.mark.parametrize("level", ["banana", "", 3, None, {"x": 1}, ["info"]])
def test_an_unknown_per_request_level_is_invalid_params_INV_LOG_1(method: str, level: Any) -> None:
    """INV-LOG-1: the request is refused with -32602 naming the levels; the envelope fixed the era."""
    harness = Harness()
    [answer] = harness.ask(stateless(1, method, {"name": "echo"}, logLevel=level))
    assert answer["error"]["code"] == -32602
    assert LOG_LEVEL_KEY in answer["error"]["message"] and "emergency" in answer["error"]["message"]
    assert harness.session.era is Era.STATELESS


def test_a_known_per_request_level_is_served_INV_LOG_1() -> None:
    """INV-LOG-1."""
    harness = Harness()
    frames = harness.ask(
        stateless(1, "tools/list", logLevel="info") + stateless(2, "tools/call", {"name": "echo"}, logLevel="debug")
    )
    assert [frame["id"] for frame in frames] == [1, 2]
    assert all("result" in frame for frame in frames)


# --- who hears what: the handshake era ---------------------------------------------------------


def test_nothing_is_sent_before_the_client_asks_INV_LOG_2() -> None:
    """INV-LOG-2: no level set (the specification leaves the default to the server): nothing."""
    harness = Harness()
    harness.feed(initialize())
    harness.take()
    assert offer(harness, "emergency", "nobody asked") == []


def test_nothing_before_initialized_even_with_a_level_INV_LOG_2() -> None:
    """INV-LOG-2: setLevel before notifications/initialized: the messages wait for it."""
    harness = Harness()
    init = request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    harness.feed(init + set_level(1, "warning"))
    harness.take()
    assert offer(harness, "error", "early") == []
    assert offer(harness, "info", "below") == []
    harness.feed(notification("notifications/initialized"))
    assert texts(logs(harness.take())) == ["early"]
    assert texts(offer(harness, "warning", "now live")) == ["now live"]


def test_what_came_before_is_sent_once_asked_filtered_INV_LOG_2() -> None:
    """INV-LOG-2: messages offered before the session opened are kept and sent after the setLevel
    answer, at or above the level, oldest first."""
    harness = Harness()
    for level in ("debug", "warning", "error", "info", "critical"):
        harness.session.log(level, "mesh.index", {"message": level}, 0.0)
    harness.feed(initialize())
    assert logs(harness.take()) == []
    frames = harness.ask(set_level(5, "warning"))
    assert frames[0] == {"jsonrpc": "2.0", "id": 5, "result": {}}
    assert texts(logs(frames)) == ["warning", "error", "critical"]
    assert harness.ask(set_level(6, "debug")) == [{"jsonrpc": "2.0", "id": 6, "result": {}}]  # sent once only


def test_the_backlog_keeps_the_latest_distinct_messages_INV_LOG_2() -> None:
    """INV-LOG-2: bounded by log_backlog_max; a repeated message is kept once, at its latest place."""
    harness = Harness(SessionConfig(log_backlog_max=3))
    for text in ("a", "b", "a", "c", "d", "b"):
        harness.session.log("error", "mesh.index", {"message": text}, 0.0)
    harness.feed(initialize() + set_level(1, "debug"))
    assert texts(logs(harness.take())) == ["c", "d", "b"]


def test_no_backlog_when_its_bound_is_zero_INV_LOG_2() -> None:
    """INV-LOG-2."""
    harness = Harness(SessionConfig(log_backlog_max=0))
    harness.session.log("error", "mesh.index", {"message": "lost"}, 0.0)
    harness.feed(initialize() + set_level(1, "debug"))
    assert logs(harness.take()) == []


@pytest.mark.parametrize("level", LEVELS)
def test_the_level_filters_INV_LOG_2(level: str) -> None:
    """INV-LOG-2: exactly the messages at or above the level set go out."""
    harness = opened(level)
    sent = [item["level"] for lower in LEVELS for item in offer(harness, lower, lower)]
    assert sent == LEVELS[LEVELS.index(level) :]


def test_a_new_level_applies_from_then_on_INV_LOG_2() -> None:
    """INV-LOG-2."""
    harness = opened("error")
    assert offer(harness, "warning", "filtered") == []
    harness.ask(set_level(2, "warning"))
    assert texts(offer(harness, "warning", "passes")) == ["passes"]


def test_a_notification_has_level_logger_and_data_INV_LOG_2() -> None:
    """INV-LOG-2: the shape of notifications/message; canonical JSON like every frame."""
    harness = opened("debug")
    harness.session.log("warning", "mesh.index", {"message": "m", "args": ["a/b.yml", 3]}, 0.0)
    assert harness.session.data_to_send() == (
        b'{"jsonrpc":"2.0","method":"notifications/message","params":'
        b'{"data":{"args":["a/b.yml",3],"message":"m"},"level":"warning","logger":"mesh.index"}}\n'
    )


def test_initialized_outside_the_handshake_opens_nothing_INV_LOG_2() -> None:
    """INV-LOG-2: an initialized notification before initialize, or twice, changes nothing."""
    harness = Harness()
    harness.feed(notification("notifications/initialized"))
    harness.session.log("error", "mesh.index", {"message": "kept"}, 0.0)
    harness.feed(request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}) + set_level(1, "info"))
    assert logs(harness.take()) == []
    harness.feed(notification("notifications/initialized") + notification("notifications/initialized"))
    assert texts(logs(harness.take())) == ["kept"]


def test_nothing_after_the_session_closed_INV_LOG_2() -> None:
    """INV-LOG-2: after SessionClosed, neither a message nor a suppression count goes out."""
    harness = opened("debug", SessionConfig(log_messages_max=1))
    offer(harness, "error", "one")
    offer(harness, "error", "suppressed")
    harness.eof()
    assert harness.closed
    harness.take()
    assert harness.session.timer() is None
    assert offer(harness, "emergency", "too late", 100.0) == []
    harness.session.handle_timer(1000.0)
    assert harness.session.data_to_send() == b""


def test_log_refuses_what_the_driver_must_not_offer() -> None:
    """An unknown level is a driver bug (ValueError), as is data that is not JSON (TypeError)."""
    session = ServerSession(SessionConfig(), ())
    with pytest.raises(ValueError, match="warn"):
        session.log("warn", "mesh", {"message": "x"}, 0.0)
    with pytest.raises(TypeError):
        session.log("error", "mesh", {"message": object()}, 0.0)


# --- who hears what: the stateless era ---------------------------------------------------------


def stateless_session(config: SessionConfig | None = None) -> Harness:
    harness = Harness(config)
    harness.feed(stateless(0, "server/discover"))
    harness.take()
    return harness


def test_stateless_sends_nothing_for_a_request_without_a_level_INV_LOG_2() -> None:
    """INV-LOG-2: the server MUST NOT emit notifications/message for a request without the key."""
    harness = stateless_session()
    harness.feed(stateless(1, "tools/call", {"name": "slow"}))
    assert offer(harness, "emergency", "no stream asked") == []
    harness.complete(1, ToolResult("done"))
    assert [frame["id"] for frame in harness.take()] == [1]


def test_stateless_sends_while_an_opted_in_call_runs_before_its_answer_INV_LOG_2() -> None:
    """INV-LOG-2: at or above the call's level, between the call and its answer, never after."""
    harness = stateless_session()
    harness.feed(stateless(1, "tools/call", {"name": "slow"}, logLevel="warning"))
    assert offer(harness, "info", "below") == []
    assert texts(offer(harness, "warning", "during")) == ["during"]
    harness.complete(1, ToolResult("done"))
    assert [frame["id"] for frame in harness.take()] == [1]
    assert offer(harness, "error", "after its answer") == []


def test_stateless_keeps_nothing_for_later_INV_LOG_2() -> None:
    """INV-LOG-2: messages offered with no call asking are dropped, not sent to the next call."""
    harness = stateless_session()
    harness.session.log("error", "mesh.index", {"message": "before"}, 0.0)
    harness.feed(stateless(1, "tools/call", {"name": "slow"}, logLevel="debug"))
    assert logs(harness.take()) == []


def test_stateless_serves_the_lowest_level_in_flight_and_forgets_cancelled_calls_INV_LOG_2() -> None:
    """INV-LOG-2."""
    harness = stateless_session()
    harness.feed(
        stateless(1, "tools/call", {"name": "slow"}, logLevel="error")
        + stateless(2, "tools/call", {"name": "slow"}, logLevel="info")
    )
    assert texts(offer(harness, "info", "for 2")) == ["for 2"]
    harness.feed(notification("notifications/cancelled", {"requestId": 2}))
    assert offer(harness, "info", "2 is cancelled") == []
    assert texts(offer(harness, "error", "for 1")) == ["for 1"]


def test_a_handshake_call_with_the_stateless_key_asks_for_nothing_INV_LOG_2() -> None:
    """INV-LOG-2: the key means nothing before 2026-07-28."""
    harness = Harness()
    harness.feed(initialize())
    harness.feed(request(1, "tools/call", {"name": "slow", "_meta": {LOG_LEVEL_KEY: "debug"}}))
    harness.take()
    assert offer(harness, "emergency", "x") == []


# --- the rate limit ----------------------------------------------------------------------------

LIMITED = SessionConfig(log_messages_max=3, log_window_ms=1000)


def test_at_most_n_per_window_then_one_count_at_the_timer_INV_LOG_3() -> None:
    """INV-LOG-3: N messages go out, the rest are counted; the driver's timer at the window's end
    sends one message with the count, at the highest level suppressed."""
    harness = opened("debug", LIMITED)
    sent = [
        offer(harness, level, f"m{n}", 10.0 + n / 10)
        for n, level in enumerate(["info", "info", "info", "error", "warning"])
    ]
    assert [len(batch) for batch in sent] == [1, 1, 1, 0, 0]
    assert harness.session.timer() == 11.0
    harness.session.handle_timer(10.9)
    assert harness.session.data_to_send() == b""
    harness.session.handle_timer(11.0)
    [notice] = logs([json.loads(line) for line in harness.session.data_to_send().splitlines()])
    assert notice["level"] == "error" and notice["logger"] == "mesh"
    assert notice["data"] == {"message": "2 log message(s) suppressed: at most 3 are sent every 1 s", "suppressed": 2}
    assert harness.session.timer() is None


def test_a_message_after_the_window_first_sends_the_count_INV_LOG_3() -> None:
    """INV-LOG-3: without the timer, the next message closes the window: count, then message."""
    harness = opened("debug", LIMITED)
    for n in range(5):
        offer(harness, "warning", f"m{n}", 0.0)
    assert texts(offer(harness, "warning", "next window", 1.0)) == [
        "2 log message(s) suppressed: at most 3 are sent every 1 s",
        "next window",
    ]


def test_a_window_without_suppression_needs_no_timer_INV_LOG_3() -> None:
    """INV-LOG-3."""
    harness = opened("debug", LIMITED)
    offer(harness, "warning", "one", 0.0)
    assert harness.session.timer() is None
    harness.session.handle_timer(5.0)
    assert texts(offer(harness, "warning", "two", 5.0)) == ["two"]


def test_time_never_goes_back_INV_LOG_3() -> None:
    """INV-LOG-3: a driver time earlier than one already given counts as the later one."""
    harness = opened("debug", LIMITED)
    for n in range(4):
        offer(harness, "warning", f"m{n}", 5.0)
    assert offer(harness, "warning", "earlier", 1.0) == []  # still inside the window opened at 5
    assert harness.session.timer() == 6.0


def test_stateless_count_goes_out_before_the_answer_of_the_call_that_heard_INV_LOG_3() -> None:
    """INV-LOG-3: a call's stream ends with its answer, so the count comes just before it."""
    harness = stateless_session(LIMITED)
    harness.feed(stateless(1, "tools/call", {"name": "slow"}, logLevel="debug"))
    for n in range(5):
        offer(harness, "warning", f"m{n}", 0.0)
    harness.complete(1, ToolResult("done"))
    frames = harness.take()
    assert [frame.get("method", frame.get("id")) for frame in frames] == [MESSAGE, 1]
    assert frames[0]["params"]["data"]["suppressed"] == 2
    assert harness.session.timer() is None


def test_a_stateless_count_leaves_the_window_and_its_budget_INV_LOG_3() -> None:
    """INV-LOG-3: a count before one call's answer does not open a new window: the next message in
    the same window is still counted, and said at the window's end to the call still running."""
    harness = stateless_session(LIMITED)
    harness.feed(
        stateless(1, "tools/call", {"name": "slow"}, logLevel="debug")
        + stateless(2, "tools/call", {"name": "slow"}, logLevel="debug")
    )
    for n in range(5):
        offer(harness, "warning", f"m{n}", 0.0)
    harness.complete(1, ToolResult("done"))
    assert [frame.get("method", frame.get("id")) for frame in harness.take()] == [MESSAGE, 1]
    assert offer(harness, "warning", "same window", 0.5) == []
    assert harness.session.timer() == 1.0
    harness.session.handle_timer(1.0)
    [notice] = logs([json.loads(line) for line in harness.session.data_to_send().splitlines()])
    assert notice["data"]["suppressed"] == 1


def test_stateless_count_is_for_a_stream_that_takes_its_level_INV_LOG_3() -> None:
    """INV-LOG-3: a call asking for errors only does not carry a count of warnings; the other does."""
    harness = stateless_session(LIMITED)
    harness.feed(
        stateless(1, "tools/call", {"name": "slow"}, logLevel="error")
        + stateless(2, "tools/call", {"name": "slow"}, logLevel="debug")
    )
    for n in range(5):
        offer(harness, "warning", f"m{n}", 0.0)
    harness.complete(1, ToolResult("done"))
    assert [frame.get("id") for frame in harness.take()] == [1]
    harness.session.handle_timer(1.0)
    [notice] = logs([json.loads(line) for line in harness.session.data_to_send().splitlines()])
    assert notice["data"]["suppressed"] == 2


def test_stateless_count_with_no_stream_left_is_dropped_INV_LOG_3() -> None:
    """INV-LOG-3: at the window's end no call asks: the count has nowhere to go."""
    harness = stateless_session(LIMITED)
    harness.feed(stateless(1, "tools/call", {"name": "slow"}, logLevel="debug"))
    for n in range(5):
        offer(harness, "warning", f"m{n}", 0.0)
    harness.feed(notification("notifications/cancelled", {"requestId": 1}))
    harness.session.handle_timer(2.0)
    assert logs([json.loads(line) for line in harness.session.data_to_send().splitlines()]) == []
    assert harness.session.timer() is None


def test_a_call_completing_with_nothing_suppressed_sends_no_count_INV_LOG_3() -> None:
    """INV-LOG-3."""
    harness = stateless_session(LIMITED)
    harness.feed(stateless(1, "tools/call", {"name": "slow"}, logLevel="debug"))
    offer(harness, "warning", "one", 0.0)
    harness.complete(1, ToolResult("done"))
    assert [frame.get("id") for frame in harness.take()] == [1]


# --- properties --------------------------------------------------------------------------------

offers = st.lists(st.tuples(st.sampled_from(LEVELS), st.integers(0, 3000)), max_size=60)


@settings(max_examples=200)
@example(level="debug", limit=1, window_ms=1, steps=[("debug", 0), ("debug", 0), ("info", 1)], timers=[])
@given(
    level=st.sampled_from(LEVELS),
    limit=st.integers(1, 5),
    window_ms=st.integers(1, 2000),
    steps=offers,
    timers=st.lists(st.booleans(), max_size=60),
)
def test_filter_and_rate_limit_against_a_model_INV_LOG_3(
    level: str, limit: int, window_ms: int, steps: list[tuple[str, int]], timers: list[bool]
) -> None:
    """INV-LOG-2, INV-LOG-3: whatever the offers and the driver's timer calls: no message below the
    level; at most ``limit`` messages per window plus one count; every message that passed the
    filter is either sent or counted (the counts add up); the same as a plain model."""
    harness = opened(level, SessionConfig(log_messages_max=limit, log_window_ms=window_ms, log_backlog_max=0))
    floor, window = LEVELS.index(level), window_ms / 1000
    now, passed = 0.0, 0
    out: list[tuple[float, dict[str, Any]]] = []
    model_out: list[tuple[str, Any]] = []
    model_end, model_sent, model_suppressed, model_rank = None, 0, 0, 0

    def model_close() -> None:
        nonlocal model_end, model_suppressed, model_rank
        if model_suppressed:
            model_out.append(("count", model_suppressed))
        model_end, model_suppressed, model_rank = None, 0, 0

    for step, (offered, delta_ms) in enumerate(steps):
        now += delta_ms / 1000
        harness.session.log(offered, "mesh.test", {"message": f"{step}"}, now)
        out += [
            (now, item) for item in logs([json.loads(line) for line in harness.session.data_to_send().splitlines()])
        ]
        rank = LEVELS.index(offered)
        if rank >= floor:
            passed += 1
            if model_end is not None and now >= model_end:
                model_close()
            if model_end is None:
                model_end, model_sent = now + window, 0
            if model_sent < limit:
                model_sent += 1
                model_out.append(("message", f"{step}"))
            else:
                model_suppressed += 1
        if step < len(timers) and timers[step]:
            due = harness.session.timer()
            if due is not None:
                now = max(now, due)
                harness.session.handle_timer(now)
                out += [
                    (now, item)
                    for item in logs([json.loads(line) for line in harness.session.data_to_send().splitlines()])
                ]
                model_close()
    got = [
        ("count", item["data"]["suppressed"]) if item["logger"] == "mesh" else ("message", item["data"]["message"])
        for _, item in out
    ]
    assert got == model_out
    assert all(LEVELS.index(item["level"]) >= floor for _, item in out)
    sent = [when for when, item in out if item["logger"] != "mesh"]
    counted = sum(n for kind, n in got if kind == "count")
    assert len(sent) + counted + model_suppressed == passed  # every message passed is sent or counted
    for start in sent:  # whatever the windows: no span of one window holds more than two windows' worth
        assert sum(1 for when in sent if start <= when < start + window) <= 2 * limit


stateless_actions = st.lists(
    st.one_of(
        st.tuples(st.just("call"), st.sampled_from([None, *LEVELS])),
        st.tuples(st.just("complete"), st.integers(0, 7)),
        st.tuples(st.just("cancel"), st.integers(0, 7)),
        st.tuples(st.just("log"), st.sampled_from(LEVELS), st.integers(0, 700)),
        st.tuples(
            st.just("timer"),
        ),
    ),
    max_size=60,
)


@settings(max_examples=200)
@given(limit=st.integers(1, 4), window_ms=st.integers(1, 1000), actions=stateless_actions)
def test_stateless_log_only_while_a_call_asks_and_within_the_limit_INV_LOG_2(
    limit: int, window_ms: int, actions: list[tuple[Any, ...]]
) -> None:
    """INV-LOG-2, INV-LOG-3 in the stateless era, whatever the calls, completions, cancellations,
    offers and timers: a message goes out only while a call that is neither answered nor
    cancelled asked for its level or a lower one; a count only then too; the messages of any span
    of one window are at most two windows' budget."""
    harness = stateless_session(SessionConfig(log_messages_max=limit, log_window_ms=window_ms))
    floors: dict[int, int | None] = {}  # in flight: id -> the level it asked (rank), the model's view
    now, next_id, sent = 0.0, 10, []
    for action in actions:
        if action[0] == "call":
            meta = {} if action[1] is None else {"logLevel": action[1]}
            harness.feed(stateless(next_id, "tools/call", {"name": "slow"}, **meta))
            floors[next_id] = None if action[1] is None else LEVELS.index(action[1])
            next_id += 1
        elif action[0] in ("complete", "cancel") and floors:
            victim = sorted(floors)[action[1] % len(floors)]
            floor = floors.pop(victim)
            if action[0] == "complete":
                harness.complete(victim, ToolResult("done"))
                frames = harness.take()
                assert frames[-1]["id"] == victim
                for item in logs(frames):  # a count just before the answer: for this call's stream
                    assert floor is not None and LEVELS.index(item["level"]) >= floor
                continue
            harness.feed(notification("notifications/cancelled", {"requestId": victim}))
        elif action[0] == "log":
            now += action[2] / 1000
            harness.session.log(action[1], "mesh.test", {"message": "m"}, now)
        elif harness.session.timer() is not None:
            now = max(now, harness.session.timer())  # type: ignore[type-var]
            harness.session.handle_timer(now)
        harness.pump()
        asked = [floor for floor in floors.values() if floor is not None]
        for item in logs(harness.take()):
            assert asked and LEVELS.index(item["level"]) >= min(asked), (item, floors)
            if item["logger"] != "mesh":
                sent.append(now)
    for start in sent:
        assert sum(1 for when in sent if start <= when < start + window_ms / 1000) <= 2 * limit


@settings(max_examples=200)
@given(
    order=st.permutations(["init", "initialized", "set", "log1", "log2"]),
    level=st.sampled_from(LEVELS),
)
def test_never_a_message_before_initialized_and_a_level_INV_LOG_2(order: list[str], level: str) -> None:
    """INV-LOG-2: in any order of initialize, initialized, setLevel and two offers, no log
    notification precedes the frames that opened the log; once open, every offer at or above the
    level has been sent exactly once."""
    harness = Harness()
    seen: list[str] = []
    opened_at = None
    fed = set()
    for step in order:
        if step == "init":
            harness.feed(request(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}))
        elif step == "initialized":
            harness.feed(notification("notifications/initialized"))
        elif step == "set":
            harness.feed(set_level(1, level))
        else:
            harness.session.log("error", "mesh.index", {"message": step}, 0.0)
            harness.pump()
        fed.add(step)
        out = logs(harness.take())
        if out:
            assert {"init", "initialized", "set"} <= fed
            assert order.index("init") < order.index("initialized")
        seen += texts(out)
        if opened_at is None and {"init", "initialized", "set"} <= fed:
            opened_at = step
    if order.index("init") < order.index("initialized") and order.index("init") < order.index("set"):
        assert seen == ([item for item in order if item.startswith("log")] if LEVELS.index(level) <= 4 else [])
    else:
        assert seen == []


# --- the server's own words (the driver's side) ------------------------------------------------


def record(
    msg: Any, *args: Any, level: int = logging.WARNING, exc: BaseException | None = None, name: str = "mesh.index"
) -> logging.LogRecord:
    exc_info = (type(exc), exc, None) if exc is not None else None
    return logging.LogRecord(name, level, __file__, 1, msg, args or None, exc_info)


def kept_as(argument: Any, shown: str) -> Any:
    """What data.args holds for ``argument`` shown as ``shown``."""
    if shown == REDACTED:
        return None
    return shown if isinstance(argument, (BaseException, PurePosixPath)) else argument


@pytest.mark.parametrize(
    ("argument", "shown"),
    [
        (3, "3"),
        (2.5, "2.5"),
        (True, "True"),
        (None, "None"),
        ("services/orders/docker-compose.yml", "services/orders/docker-compose.yml"),
        (PurePosixPath("web/package.json"), "web/package.json"),
        ("go.mod", "go.mod"),
        (".github/workflows/ci.yml", ".github/workflows/ci.yml"),
        (PermissionError(13, "Permission denied: '/home/u/secret.txt'"), "PermissionError"),
        ("cannot be read as YAML: did not find expected ','", REDACTED),  # free text
        ("password=hunter2", REDACTED),
        ("/home/user/.cache/mesh/index.db", REDACTED),  # absolute
        (PurePosixPath("/etc/passwd"), REDACTED),
        ("../outside/file.go", REDACTED),
        ("a/./b.go", REDACTED),
        ("orders", REDACTED),  # a word, no path
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", REDACTED),  # a token
        ("eyJhbGciOiJIUzI1NiJ9." + "e" * 90 + ".sig", REDACTED),  # a JWT: a component past 80 chars
        ("config/.env", REDACTED),  # a secret-looking file is never named
        ("deploy/secrets.yaml", REDACTED),
        ("keys/id_rsa", REDACTED),
        ("x" * 300 + ".go", REDACTED),
        (float("nan"), REDACTED),
        (2**70, REDACTED),  # no JSON encoder takes it
        (b"bytes/x.go", REDACTED),
        (["a/b.go"], REDACTED),
    ],
)
def test_only_the_servers_own_words_reach_a_client_INV_LOG_4(argument: Any, shown: str) -> None:
    """INV-LOG-4: the format string (a literal in the code) goes out with numbers, exception class
    names and workspace paths filled in; anything else is <redacted>, and data.args says which."""
    entry = client_entry(record("parsing %s: failed", argument))
    assert entry.data["message"] == f"parsing {shown}: failed"
    assert entry.data["args"] == [kept_as(argument, shown)]


def test_a_name_the_server_defines_is_named_INV_LOG_4() -> None:
    """INV-LOG-4: a registered tool's name (a ServerWord) is the server's own word and is shown;
    the same text as a plain string, or a ServerWord that is no name, is not."""
    assert client_entry(record("tool %s crashed", ServerWord("impact_matrix"))).data == {
        "message": "tool impact_matrix crashed", "args": ["impact_matrix"]}  # fmt: skip
    assert client_entry(record("tool %s crashed", "impact_matrix")).data["message"] == "tool <redacted> crashed"
    for odd in ("a b", "x" * 65, "/etc/passwd", "", "tool\nforged"):
        assert client_entry(record("tool %s crashed", ServerWord(odd))).data["message"] == "tool <redacted> crashed"


def test_formats_are_honoured_and_misfits_redacted_INV_LOG_4() -> None:
    """INV-LOG-4: %d, %r, %.1f, %%, named arguments; a kept value that does not fit its
    conversion is redacted rather than raising."""
    assert client_entry(record("%s:%d: %r %.1f%% %d", "a/b.yml", 12, "c/d.go", 99.44, "x/y.go")).data == {
        "message": "a/b.yml:12: 'c/d.go' 99.4% <redacted>",
        "args": ["a/b.yml", 12, "c/d.go", 99.44, "x/y.go"],
    }
    named = client_entry(record("%(path)s has %(n)d %(what)s", {"path": "a/b.go", "n": 2, "what": "secrets"}))
    assert named.data == {"message": "a/b.go has 2 <redacted>", "args": {"path": "a/b.go", "n": 2, "what": None}}


@pytest.mark.parametrize(
    ("msg", "args"),
    [
        ("%s %s", ("a/b.go",)),  # too few arguments
        ("%s", ("a/b.go", "c/d.go")),  # too many
        ("%*d", (3, 4)),  # a star width
        ("%(k)s %s", {"k": "a/b.go"}),  # mixed
        ("%s", {"k": "a/b.go"}),  # a mapping for a positional conversion
        ("%(missing)s", {"k": "a/b.go"}),
    ],
)
def test_a_format_logging_could_not_fill_shows_no_argument_INV_LOG_4(msg: str, args: Any) -> None:
    """INV-LOG-4."""
    packed = (args,) if isinstance(args, dict) else args  # as logging packs a mapping argument
    entry = client_entry(logging.LogRecord("mesh.x", logging.ERROR, __file__, 1, msg, packed, None))
    assert entry.data["message"] == msg
    kept = entry.data["args"]
    assert all(value is None for value in (kept.values() if isinstance(kept, dict) else kept))


def test_exceptions_show_their_class_only_INV_LOG_4() -> None:
    """INV-LOG-4: log.exception: the class, never the message or the traceback."""
    try:
        raise RuntimeError("the token is sk_live_123 in /home/u/app/config.yml")
    except RuntimeError as exc:
        entry = client_entry(record("the index watcher stopped", level=logging.ERROR, exc=exc))
    assert entry == ClientLogEntry(
        "error", "mesh.index", {"message": "the index watcher stopped", "exception": "RuntimeError"}
    )
    assert "sk_live" not in json.dumps(entry.data)


def test_a_message_that_is_no_string_shows_its_class_and_long_ones_are_cut_INV_LOG_4() -> None:
    """INV-LOG-4."""
    assert client_entry(record(ValueError("content"))).data == {"message": "ValueError"}
    assert len(client_entry(record("x" * 5000)).data["message"]) == 1000


def test_levels_map_to_syslog_names() -> None:
    assert [mcp_level(n) for n in (5, 10, 20, 30, 40, 50, 60)] == [
        "debug",
        "debug",
        "info",
        "warning",
        "error",
        "critical",
        "critical",
    ]


def _literal_format_offences(path: Path, root: Path = ROOT) -> list[str]:
    offences = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("log", "logger", "logging")
            and node.func.attr in ("debug", "info", "warning", "error", "exception", "critical")
            and node.args
            and not (isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str))
        ):
            offences.append(f"{path.relative_to(root)}:{node.lineno}")
    return offences


def test_every_logging_call_has_a_literal_format_string_INV_LOG_4() -> None:
    """INV-LOG-4: the rule rests on it: a format string is the server's own words only when the
    code writes it as a literal (values go in as arguments, never in an f-string)."""
    offences = [hit for path in sorted((ROOT / "mesh").rglob("*.py")) for hit in _literal_format_offences(path)]
    assert offences == []


def test_the_literal_check_catches_an_f_string(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text('log.warning(f"{x}")\nlog.error(text)\nlog.info("fine %s", x)\n')
    assert _literal_format_offences(planted, tmp_path) == ["planted.py:1", "planted.py:2"]


# --- the handler: who gets a record ------------------------------------------------------------


def test_records_go_to_every_session_or_only_to_the_one_served_INV_LOG_4() -> None:
    """INV-LOG-4: a record logged while serving a session (on its loop thread, or in a tool call
    under ``serving``) goes to that session only, any other to all, and so does the index's
    whichever thread logged it; the recent shared ones are handed to a new subscriber, distinct,
    oldest first, within their bound."""
    handler = ClientLogHandler(recent_max=2)
    first: list[ClientLogEntry] = []
    token, recent = handler.subscribe(first.append, thread=111)
    assert recent == []
    second: list[ClientLogEntry] = []
    handler.subscribe(second.append, thread=222)
    own = record("own", name="mesh.server")
    own.thread = 111
    index_on_own_thread = record("index %s", "a/b.go")
    index_on_own_thread.thread = 111
    for made in (own, index_on_own_thread, record("elsewhere", name="mesh.daemon")):
        handler.handle(made)
    with handler.serving(token):
        handler.handle(record("tool crashed", name="mesh.server"))
    handler.handle(record("after the call", name="mesh.server"))
    assert [entry.data["message"] for entry in first] == [
        "own", "index a/b.go", "elsewhere", "tool crashed", "after the call"
    ]  # fmt: skip
    assert [entry.data["message"] for entry in second] == ["index a/b.go", "elsewhere", "after the call"]
    _, recent = handler.subscribe(lambda entry: None)
    assert [entry.data["message"] for entry in recent] == ["elsewhere", "after the call"]  # bounded to 2
    for text in ("x", "y", "x"):
        handler.handle(record(text))
    _, recent = handler.subscribe(lambda entry: None)
    assert [entry.data["message"] for entry in recent] == ["y", "x"]  # distinct, the latest last
    handler.unsubscribe(token)
    late = record("from the first's loop, after it left", name="mesh.server")
    late.thread = 111
    handler.handle(late)
    assert first[-1].data["message"] == "x"
    assert second[-1].data["message"] == "from the first's loop, after it left"


def test_below_warning_and_failures_never_reach_or_break_anyone_INV_LOG_4() -> None:
    """INV-LOG-4: info and debug stay in the server's log; a subscriber that raises costs only
    itself that record, never the logging call nor another subscriber."""
    handler = ClientLogHandler()
    got: list[ClientLogEntry] = []

    def broken(entry: ClientLogEntry) -> None:
        raise RuntimeError("boom")

    handler.subscribe(broken)
    handler.subscribe(got.append)
    logger = logging.getLogger("mesh-test-handler")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.info("quiet")
        logger.warning("loud")
        logger.error("again")
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    assert [(entry.level, entry.data["message"]) for entry in got] == [("warning", "loud"), ("error", "again")]


def test_install_keeps_what_stderr_shows_INV_LOG_4() -> None:
    """INV-LOG-4: a logger set to ERROR (MESH_LOG=error) is lowered to WARNING for the clients,
    its handlers raised to ERROR: they write what they wrote before; installed once."""
    logger = logging.getLogger("mesh-test-install")
    stream = logging.StreamHandler()
    logger.handlers[:] = [stream]
    logger.setLevel(logging.ERROR)
    logger.propagate = False
    try:
        handler = install("mesh-test-install")
        assert install("mesh-test-install") is handler
        assert logger.handlers == [stream, handler]
        assert logger.level == logging.WARNING and stream.level == logging.ERROR
        logger.handlers[:] = [stream]  # replaced, as cli's logging set-up does: added again
        assert install("mesh-test-install") is handler and handler in logger.handlers
    finally:
        logger.handlers[:] = []
        logger.propagate = True
