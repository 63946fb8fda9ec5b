"""Journeys over raw pipes: bytes a client could send, and the exact answers ``mesh-mcp mcp`` owes.

Each test starts the real command; the helpers in ``conftest`` check that every stdout line is a
whole, strict JSON-RPC 2.0 answer, so the tests below only state what the answers must say.
"""

from __future__ import annotations

import ctypes
import os
import random
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from .conftest import (
    HANDSHAKE_VERSIONS,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    LATEST_HANDSHAKE_VERSION,
    METHOD_NOT_FOUND,
    NOISY_TOOLS,
    PARSE_ERROR,
    SERVED_TOOL_NAMES,
    SERVER_INFO_KEY,
    STATELESS_VERSION,
    TEST_TOOLS,
    UNSUPPORTED_PROTOCOL_VERSION,
    call,
    envelope,
    error_code,
    frame,
    handshake,
    initialize,
    notification,
    request,
    result_of,
    run_server,
    tool_text,
)
from .noisy_tools import IMPORT_NOISE, NOISE

pytestmark = [pytest.mark.journey, pytest.mark.timeout(60)]

FRAME_BYTES_MAX = 1 << 20
_ORDER = {version: rank for rank, version in enumerate(HANDSHAKE_VERSIONS)}


def at_least(version: str, floor: str) -> bool:
    return _ORDER[version] >= _ORDER[floor]


def padded_ping(request_id: int, line_bytes: int) -> bytes:
    """A ``ping`` request of exactly ``line_bytes`` bytes (spaces inside the object), no newline."""
    head = b'{"jsonrpc":"2.0","id":%d,"method":"ping"' % request_id
    line = head + b" " * (line_bytes - len(head) - 1) + b"}"
    assert len(line) == line_bytes
    return line


# --- 1. the handshake era ----------------------------------------------------------------------


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
def test_handshake_session_in_every_version_INV_LIFE_2(version: str) -> None:
    transcript = run_server(
        handshake(version, request_id=1)
        + request(2, "tools/list")
        + call(3, "echo", {"text": "hi", "repeat": 2})
        + call(4, "add", {"a": 2, "b": 3})
        + call(5, "fail", {"how": "crash"})
        + call(6, "fail", {"how": "tool-error"})
        + call(7, "add", {"a": 1, "b": "x"})
        + call(8, "add", {"a": 1, "b": 2, "bogus": 3})
        + call(9, "no-such-tool")
        + request(10, "tools/call")
        + request(11, "resources/list")
        + initialize(12, version)
        + request(13, "ping")
    )
    assert transcript.returncode == 0, transcript.stderr
    ids = transcript.ids()
    assert None not in ids and sorted(ids) == list(range(1, 14))  # notifications/initialized: no answer
    assert transcript.batches == []

    opened = result_of(transcript.by_id(1))
    assert opened["protocolVersion"] == version
    assert opened["capabilities"] == {"logging": {}, "tools": {"listChanged": False}}
    assert opened["serverInfo"]["name"] == "mesh-mcp"
    assert set(opened) <= {"protocolVersion", "capabilities", "serverInfo", "instructions"}
    tools = result_of(transcript.by_id(2))
    assert set(tools) == {"tools"}  # no 2026-07-28 fields (ttlMs, cacheScope, resultType) here
    assert [tool["name"] for tool in tools["tools"]] == list(SERVED_TOOL_NAMES)
    echo_tool = tools["tools"][SERVED_TOOL_NAMES.index("echo")]
    assert echo_tool["inputSchema"]["required"] == ["text"]
    assert ("annotations" in echo_tool) == at_least(version, "2025-03-26")
    assert ("title" in echo_tool) == at_least(version, "2025-06-18")

    assert result_of(transcript.by_id(3)) == {"content": [{"type": "text", "text": "hihi"}], "isError": False}
    added = result_of(transcript.by_id(4))
    assert added["content"] == [{"type": "text", "text": "5"}] and added["isError"] is False
    assert added.get("structuredContent") == ({"sum": 5} if at_least(version, "2025-06-18") else None)

    assert error_code(transcript.by_id(5)) == INTERNAL_ERROR
    assert "simulated crash" in transcript.by_id(5)["error"]["message"]
    assert result_of(transcript.by_id(6))["isError"] is True
    assert "always fails" in tool_text(transcript.by_id(6))
    for request_id, argument in ((7, "'b'"), (8, "'bogus'")):
        assert result_of(transcript.by_id(request_id))["isError"] is True
        assert argument in tool_text(transcript.by_id(request_id))

    assert error_code(transcript.by_id(9)) == INVALID_PARAMS
    assert error_code(transcript.by_id(10)) == INVALID_PARAMS
    assert error_code(transcript.by_id(11)) == METHOD_NOT_FOUND
    assert error_code(transcript.by_id(12)) == INVALID_REQUEST
    assert result_of(transcript.by_id(13)) == {}


def test_unknown_version_is_offered_the_newest_handshake_version_INV_LIFE_1() -> None:
    transcript = run_server(
        request(1, "tools/list")  # before initialize: only ping is served
        + request(2, "ping")
        + initialize(3, 20250618)  # not a string: refused, and the session stays undecided
        + initialize(4, "1999-01-01")
        + request(5, "tools/list")
    )
    assert transcript.returncode == 0, transcript.stderr
    assert transcript.ids() == [1, 2, 3, 4, 5]
    assert error_code(transcript.by_id(1)) == INVALID_REQUEST
    assert result_of(transcript.by_id(2)) == {}
    assert error_code(transcript.by_id(3)) == INVALID_PARAMS
    assert result_of(transcript.by_id(4))["protocolVersion"] == LATEST_HANDSHAKE_VERSION
    assert [tool["name"] for tool in result_of(transcript.by_id(5))["tools"]] == list(SERVED_TOOL_NAMES)


# --- 2. garbage --------------------------------------------------------------------------------

#: (line, expected answer as (code, id), or None for no answer). A ping follows every line.
GARBAGE: list[tuple[bytes, tuple[int, Any] | None]] = [
    (b"{not json", (PARSE_ERROR, None)),
    (b'{"jsonrpc":"2.0","id":1,"method":"\xff\xfe"}', (PARSE_ERROR, None)),  # invalid UTF-8
    (b'{"jsonrpc":"2.0","id":1,"method":"\xed\xa0\x80"}', (PARSE_ERROR, None)),  # an encoded surrogate
    (b"\xef\xbb\xbf" + request(1, "ping")[:-1], (PARSE_ERROR, None)),  # a byte order mark
    (b"NaN", (PARSE_ERROR, None)),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":Infinity}}', (PARSE_ERROR, None)),
    (b"[" * 100_000, (PARSE_ERROR, None)),
    (b"{" * 100_000, (PARSE_ERROR, None)),
    (b"42", (INVALID_REQUEST, None)),
    (b'"ping"', (INVALID_REQUEST, None)),
    (b"null", (INVALID_REQUEST, None)),
    (b'{"jsonrpc":"1.0","id":7,"method":"ping"}', (INVALID_REQUEST, 7)),
    (b'{"id":"seven","method":"ping"}', (INVALID_REQUEST, "seven")),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', (INVALID_REQUEST, None)),
    (b'{"jsonrpc":"2.0","id":1.0,"method":"ping"}', (INVALID_REQUEST, None)),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', (INVALID_REQUEST, None)),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', (INVALID_REQUEST, None)),
    (b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', (INVALID_REQUEST, None)),
    (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', (INVALID_REQUEST, None)),
    (b'{"jsonrpc":"2.0","id":9,"method":42}', (INVALID_REQUEST, 9)),
    (b'{"jsonrpc":"2.0","id":10,"method":null}', (INVALID_REQUEST, 10)),
    (b'{"jsonrpc":"2.0","id":11}', (INVALID_REQUEST, 11)),
    (b'{"jsonrpc":"2.0","id":12,"method":"ping","params":[1]}', (INVALID_PARAMS, 12)),
    (b"[]", (INVALID_REQUEST, None)),
    (b'{"jsonrpc":"2.0","id":13,"result":{}}', None),  # a client's response is never answered
    (b'{"jsonrpc":"2.0","method":"notifications/whatever","params":[1]}', None),  # nor a notification
]


def test_garbage_gets_exact_errors_and_the_server_keeps_serving_INV_CLASS_1() -> None:
    script = b"".join(line + b"\n" + request(f"ping-{index}", "ping") for index, (line, _) in enumerate(GARBAGE))
    transcript = run_server(script)
    transcript.assert_clean_exit()
    # Nothing here reaches a tool, so answers come back in input order.
    expected: list[tuple[Any, Any]] = []
    for index, (_, answer) in enumerate(GARBAGE):
        if answer is not None:
            expected.append(answer)
        expected.append(("ping", f"ping-{index}"))
    got = [
        ("ping", answer["id"]) if answer.get("result") == {} else (error_code(answer), answer["id"])
        for answer in transcript.singles
    ]
    assert transcript.batches == []
    assert got == expected


@pytest.mark.parametrize(
    ("opening", "line", "code"),
    [
        pytest.param(b"", request(1, "m" * 1_000_000), METHOD_NOT_FOUND, id="method"),
        pytest.param(handshake(), call(1, "t" * 1_000_000), INVALID_PARAMS, id="tool-name"),
        pytest.param(
            b"",
            request(1, "tools/list", {"_meta": envelope("v" * 1_000_000)}),
            UNSUPPORTED_PROTOCOL_VERSION,
            id="envelope-version",
        ),
        pytest.param(handshake(), request(1, "tools/list", {"cursor": "c" * 1_000_000}), INVALID_PARAMS, id="cursor"),
    ],
)
def test_errors_never_echo_a_huge_value_INV_CLASS_4(opening: bytes, line: bytes, code: int) -> None:
    assert len(line) <= FRAME_BYTES_MAX
    transcript = run_server(opening + line)
    assert transcript.returncode == 0, transcript.stderr
    answer = transcript.singles[-1]
    assert answer["id"] == 1 and error_code(answer) == code
    # The message is bounded by check_answer; nothing else in the answer echoes the value either.
    assert len(frame(answer)) < 1000, frame(answer)[:1000]


# --- 3. oversized frames -----------------------------------------------------------------------


def test_an_oversized_line_gets_one_error_and_the_next_line_is_served_INV_FRAME_2() -> None:
    huge = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"x" * (2 << 20) + b'"}}'
    transcript = run_server(huge + b"\n" + request(2, "ping"))
    transcript.assert_clean_exit()
    assert transcript.ids() == [None, 2]
    assert error_code(transcript.singles[0]) == INVALID_REQUEST
    assert result_of(transcript.singles[1]) == {}


def test_a_line_of_exactly_the_limit_is_served_one_byte_more_is_not_INV_FRAME_2() -> None:
    transcript = run_server(
        padded_ping(1, FRAME_BYTES_MAX)
        + b"\n"
        + padded_ping(2, FRAME_BYTES_MAX)
        + b"\r\n"  # the \r is a line ending, not part of the frame
        + padded_ping(3, FRAME_BYTES_MAX + 1)
        + b"\n"
        + padded_ping(4, FRAME_BYTES_MAX + 1)
        + b"\r\n"
        + request(5, "ping")
    )
    transcript.assert_clean_exit()
    summary = [(answer["id"], "error" in answer and error_code(answer)) for answer in transcript.singles]
    assert summary == [(1, False), (2, False), (None, INVALID_REQUEST), (None, INVALID_REQUEST), (5, False)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/<pid>/status")
def test_memory_stays_bounded_while_a_300_mb_line_streams_in_INV_FRAME_2(live_server: Any) -> None:
    server = live_server()
    server.send(request(1, "ping"))
    assert server.receive_id(1) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    baseline_kib = server.proc_status_kib("VmRSS")

    chunk = b"a" * (1 << 20)
    chunks = 300
    failures: list[BaseException] = []

    def feed() -> None:
        try:
            server.send(b'{"jsonrpc":"2.0","id":2,"method":"')
            for _ in range(chunks):
                server.send(chunk)
            server.send(b'"}\n' + request(3, "ping"))
        except BaseException as exc:  # reported by the test thread
            failures.append(exc)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    rss_max_kib = baseline_kib
    deadline = time.monotonic() + 30
    while writer.is_alive():
        assert time.monotonic() < deadline, "the server stopped reading its input"
        rss_max_kib = max(rss_max_kib, server.proc_status_kib("VmRSS"))
        writer.join(0.05)
    assert not failures, failures
    too_long = server.receive()
    assert isinstance(too_long, dict) and too_long["id"] is None and error_code(too_long) == INVALID_REQUEST
    assert server.receive_id(3) == {"jsonrpc": "2.0", "id": 3, "result": {}}
    peak_kib = server.proc_status_kib("VmHWM")  # peak over the whole life of the process
    server.close_stdin()
    assert server.wait(10) == 0
    transcript = server.transcript()
    assert transcript.ids() == [1, None, 3]

    budget_kib = 200 * 1024
    growth_budget_kib = 32 * 1024
    assert peak_kib < budget_kib, f"VmHWM {peak_kib} KiB"
    assert peak_kib - baseline_kib < growth_budget_kib, f"VmHWM {peak_kib} KiB from a baseline of {baseline_kib} KiB"
    assert rss_max_kib - baseline_kib < growth_budget_kib, f"VmRSS {rss_max_kib} KiB while streaming"


# --- 4. batches --------------------------------------------------------------------------------


def test_batches_are_served_in_2025_03_26_INV_LIFE_4() -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "b"}}},
        {"jsonrpc": "2.0", "method": "notifications/whatever"},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}},
    ]
    only_notifications = [{"jsonrpc": "2.0", "method": "notifications/whatever"}] * 2
    with_garbage = [{"jsonrpc": "2.0", "id": 6, "method": "ping"}, 42]
    transcript = run_server(
        handshake("2025-03-26") + frame(batch) + frame(only_notifications) + request(5, "ping") + frame(with_garbage)
    )
    transcript.assert_clean_exit()
    assert transcript.ids() == [1, 5]  # nothing for the batch of notifications
    # Batch answers go out when their last call completes, so the two may come in either order.
    assert len(transcript.batches) == 2
    first, last = sorted(transcript.batches, key=lambda answers: answers[0]["id"])
    assert [answer["id"] for answer in first] == [2, 3, 4]
    assert result_of(first[0]) == {}
    assert tool_text(first[1]) == "b"
    assert tool_text(first[2]) == "3"
    assert [answer["id"] for answer in last] == [6, None]
    assert error_code(last[1]) == INVALID_REQUEST


@pytest.mark.parametrize(
    "version", [*(v for v in HANDSHAKE_VERSIONS if v != "2025-03-26"), pytest.param(None, id="before-initialize")]
)
def test_batches_are_refused_whole_in_other_versions_INV_LIFE_4(version: str | None) -> None:
    batch = [{"jsonrpc": "2.0", "id": 2, "method": "ping"}, {"jsonrpc": "2.0", "id": 3, "method": "ping"}]
    opening = handshake(version) if version else b""
    transcript = run_server(opening + frame(batch) + request(4, "ping"))
    transcript.assert_clean_exit()
    assert transcript.batches == []
    refusal = transcript.singles[-2]
    assert refusal["id"] is None and error_code(refusal) == INVALID_REQUEST
    assert transcript.ids() == ([1] if version else []) + [None, 4]


# --- 5. pipelining and the drain at EOF --------------------------------------------------------


def test_two_thousand_pipelined_requests_are_each_answered_once_INV_DRAIN_1() -> None:
    seed = 20260728
    prng = random.Random(seed)
    expected: dict[int, tuple[str, Any]] = {}
    script = [handshake()]
    for request_id in range(2, 2002):
        kind = prng.choice(("ping", "tools/list", "echo", "sleep"))
        if kind == "echo":
            text = f"echo-{request_id}-" + "x" * prng.randrange(0, 200)
            script.append(call(request_id, "echo", {"text": text}))
            expected[request_id] = (kind, text)
        elif kind == "sleep":
            ms = prng.randrange(0, 4)
            script.append(call(request_id, "sleep", {"ms": ms}))
            expected[request_id] = (kind, f"slept {ms} ms")
        else:
            script.append(request(request_id, kind))
            expected[request_id] = (kind, None)
    transcript = run_server(b"".join(script), timeout_s=45)
    transcript.assert_clean_exit()
    ids = transcript.ids()
    assert len(ids) == len(set(ids)) == 2001, f"seed {seed} (Python {sys.version_info[:2]})"
    assert set(ids) == {1, *expected}
    answers = {answer["id"]: answer for answer in transcript.singles}
    for request_id, (kind, text) in expected.items():
        answer = answers[request_id]
        if kind == "ping":
            assert result_of(answer) == {}
        elif kind == "tools/list":
            assert [tool["name"] for tool in result_of(answer)["tools"]] == list(SERVED_TOOL_NAMES)
        else:
            assert tool_text(answer) == text, f"id {request_id}, seed {seed}"


def test_half_a_line_at_eof_is_a_parse_error_INV_DRAIN_2() -> None:
    transcript = run_server(handshake() + b'{"jsonrpc":"2.0","id":9,"meth')
    transcript.assert_clean_exit()
    assert transcript.ids() == [1, None]
    assert error_code(transcript.singles[-1]) == PARSE_ERROR


def test_a_last_request_without_newline_is_answered_INV_DRAIN_2() -> None:
    transcript = run_server(handshake() + call(9, "sleep", {"ms": 50})[:-1])
    transcript.assert_clean_exit()
    assert transcript.ids() == [1, 9]
    assert tool_text(transcript.by_id(9)) == "slept 50 ms"


# --- 6. line endings ---------------------------------------------------------------------------


def test_crlf_is_accepted_and_blank_lines_are_ignored_INV_FRAME_3() -> None:
    def crlf(line: bytes) -> bytes:
        return line[:-1] + b"\r\n"

    transcript = run_server(
        b"\n\r\n"
        + crlf(initialize(1))
        + b"   \n\t\r\n \t \r\n"
        + crlf(notification("notifications/initialized"))
        + b"\n\n"
        + crlf(call(2, "echo", {"text": "crlf"}))
        + crlf(request(3, "ping"))
        + b"\r\n"
    )
    transcript.assert_clean_exit()
    assert None not in transcript.ids() and sorted(transcript.ids()) == [1, 2, 3]
    assert tool_text(transcript.by_id(2)) == "crlf"


# --- 7. stray output from tools ----------------------------------------------------------------


def test_stray_stdout_from_a_tool_goes_to_stderr_INV_DRAIN_3() -> None:
    transcript = run_server(
        handshake() + call(2, "noisy") + call(3, "echo", {"text": "still clean"}),
        plugins=(TEST_TOOLS, NOISY_TOOLS),
    )
    transcript.assert_clean_exit()  # parse_stdout already proved stdout holds only answers
    assert sorted(transcript.ids()) == [1, 2, 3]
    assert tool_text(transcript.by_id(2)) == "made some noise"
    assert tool_text(transcript.by_id(3)) == "still clean"
    for noise in NOISE:
        assert noise in transcript.stderr


def test_stray_stdout_while_a_plugin_is_imported_goes_to_stderr_INV_DRAIN_3() -> None:
    """INV-DRAIN-3: stdout is claimed before plugins are imported."""
    transcript = run_server(
        request(1, "ping"), plugins=(TEST_TOOLS, NOISY_TOOLS), extra_env={"NOISY_TOOLS_IMPORT_NOISE": "1"}
    )
    transcript.assert_clean_exit()
    assert transcript.ids() == [1]
    assert IMPORT_NOISE in transcript.stderr


# --- 8. cancellation ---------------------------------------------------------------------------


@pytest.mark.parametrize("era", ["handshake", "stateless"])
def test_a_cancelled_call_is_never_answered_INV_DRAIN_1(live_server: Any, era: str) -> None:
    server = live_server()
    meta = envelope() if era == "stateless" else None
    if era == "stateless":
        server.send(request(1, "server/discover", {"_meta": envelope()}))
        probe = request(4, "tools/list", {"_meta": envelope()})
    else:
        server.send(handshake())
        probe = request(4, "ping")
    assert "result" in server.receive_id(1)

    server.send(call(2, "sleep", {"ms": 5000}, meta=meta))
    server.send(notification("notifications/cancelled", {"requestId": 2, "reason": "journey"}))
    server.send(notification("notifications/cancelled", {"requestId": 999}))  # unknown: ignored
    server.send(probe)
    assert "result" in server.receive_id(4, timeout_s=2)
    assert server.skipped == []

    closed_at = time.monotonic()
    server.close_stdin()
    assert server.wait(5) == 0
    # The sleep honoured its cancellation: the drain did not wait out its 5 s.
    assert time.monotonic() - closed_at < 3
    transcript = server.transcript()
    transcript.assert_clean_exit()
    assert transcript.ids() == [1, 4]


# --- 9. signals --------------------------------------------------------------------------------

#: Pause between the last answer and a signal, so the server's loop is parked waiting for input.
#: Without it the journeys below would hit the bug that
#: test_a_stop_signal_delivered_to_another_thread_is_acted_on pins down deterministically.
SETTLE_S = 0.3


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_ends_running_calls_promptly(live_server: Any, signum: int) -> None:
    server = live_server()
    sleeps = list(range(10, 16))  # more than the server's 4 workers: some calls wait for a worker
    server.send(handshake(), *(call(request_id, "sleep", {"ms": 30_000}) for request_id in sleeps), request(2, "ping"))
    server.receive_id(1)
    server.receive_id(2)  # every sleep was accepted before this ping was read
    time.sleep(SETTLE_S)

    signalled_at = time.monotonic()
    server.process.send_signal(signum)
    assert server.wait(10) == 0
    assert time.monotonic() - signalled_at < 3
    transcript = server.transcript()  # whole frames only: checked while parsing
    transcript.assert_clean_exit()
    # Each call is answered exactly once: the running ones when they stop, the rest as refused.
    assert sorted(transcript.ids()) == [1, 2, *sleeps]


def test_a_second_signal_abandons_a_call_that_ignores_cancellation(live_server: Any) -> None:
    server = live_server(plugins=(TEST_TOOLS, NOISY_TOOLS))
    server.send(handshake(), call(2, "stubborn", {"ms": 30_000}), request(3, "ping"))
    server.receive_id(3)
    time.sleep(SETTLE_S)
    signalled_at = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    time.sleep(SETTLE_S)  # let the first stop request be handled on its own
    server.process.send_signal(signal.SIGTERM)
    assert server.wait(10) == 1  # INV-DRAIN-5: an answer was lost
    assert time.monotonic() - signalled_at < 3
    transcript = server.transcript()
    assert transcript.ids() == [1, 3]  # the abandoned call has no answer


def test_a_call_that_ignores_cancellation_is_abandoned_after_the_grace_period(live_server: Any) -> None:
    server = live_server(plugins=(TEST_TOOLS, NOISY_TOOLS))
    server.send(handshake(), call(2, "stubborn", {"ms": 30_000}), request(3, "ping"))
    server.receive_id(3)
    time.sleep(SETTLE_S)
    signalled_at = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    assert server.wait(15) == 1  # INV-DRAIN-5: an answer was lost
    waited_s = time.monotonic() - signalled_at
    assert 4 < waited_s < 10, f"exited {waited_s:.1f}s after SIGTERM (grace is 5 s)"
    transcript = server.transcript()
    assert transcript.ids() == [1, 3]


def _tgkill() -> Any:
    try:
        return ctypes.CDLL(None, use_errno=True).tgkill  # glibc 2.30+
    except (AttributeError, OSError):
        return None


@pytest.mark.skipif(not sys.platform.startswith("linux") or _tgkill() is None, reason="needs Linux tgkill(2)")
@pytest.mark.parametrize("idle", [True, False], ids=["idle", "tool-running"])
def test_a_stop_signal_delivered_to_another_thread_is_acted_on(live_server: Any, idle: bool) -> None:
    """The signal wakes the loop's poll (set_wakeup_fd) whichever thread the kernel hands it to."""
    # POSIX lets the kernel deliver a process-directed signal to any thread that does not block it;
    # tgkill picks one deterministically: a tool worker.
    server = live_server()
    server.send(handshake(request_id=0), call(1, "echo", {"text": "start a worker"}))
    server.receive_id(1)
    if not idle:
        server.send(call(2, "sleep", {"ms": 30_000}))
    time.sleep(SETTLE_S)
    tids = sorted(int(name) for name in os.listdir(f"/proc/{server.pid}/task") if int(name) != server.pid)
    assert tids, "a tool worker thread exists"
    assert _tgkill()(server.pid, tids[0], signal.SIGTERM) == 0, ctypes.get_errno()
    try:
        code = server.process.wait(timeout=15)  # the sleeping call would keep it up for 30 s
    except subprocess.TimeoutExpired:
        code = None
    assert code == 0, "SIGTERM not acted on within 15 s"


# --- 10. the stateless era (2026-07-28) --------------------------------------------------------


def assert_stateless_result(answer: dict[str, Any]) -> dict[str, Any]:
    result = result_of(answer)
    assert result["resultType"] == "complete"
    assert result["_meta"][SERVER_INFO_KEY]["name"] == "mesh-mcp"
    assert isinstance(result["_meta"][SERVER_INFO_KEY]["version"], str)
    return result


def test_stateless_session_INV_LIFE_3() -> None:
    meta = envelope()
    transcript = run_server(
        request(1, "server/discover", {"_meta": meta})
        + request(2, "tools/list", {"_meta": meta})
        + call(3, "echo", {"text": "stateless"}, meta=meta)
        + call(4, "add", {"a": 1, "b": 2}, meta=meta)
        + call(5, "fail", {"how": "crash"}, meta=meta)
        + call(6, "fail", {"how": "tool-error"}, meta=meta)
        + call(7, "no-such-tool", meta=meta)
        + request(8, "server/discover", {"_meta": envelope("2099-01-01")})
        + initialize(9)
        + request(10, "tools/list")
        + request(11, "tools/list", {"_meta": envelope(capabilities=False)})
        + request(12, "resources/list", {"_meta": meta})
    )
    assert transcript.returncode == 0, transcript.stderr
    assert sorted(transcript.ids()) == list(range(1, 13))

    discovered = assert_stateless_result(transcript.by_id(1))
    assert discovered["supportedVersions"] == [STATELESS_VERSION]
    assert discovered["capabilities"] == {"logging": {}, "tools": {"listChanged": False}}
    assert isinstance(discovered["ttlMs"], int) and discovered["ttlMs"] >= 0
    assert discovered["cacheScope"] in ("public", "private")

    listed = assert_stateless_result(transcript.by_id(2))
    assert [tool["name"] for tool in listed["tools"]] == list(SERVED_TOOL_NAMES)
    assert isinstance(listed["ttlMs"], int) and listed["ttlMs"] >= 0
    assert listed["cacheScope"] in ("public", "private")

    assert tool_text(transcript.by_id(3)) == "stateless"
    assert assert_stateless_result(transcript.by_id(3))["isError"] is False
    assert assert_stateless_result(transcript.by_id(4))["structuredContent"] == {"sum": 3}
    assert error_code(transcript.by_id(5)) == INTERNAL_ERROR
    assert assert_stateless_result(transcript.by_id(6))["isError"] is True
    assert error_code(transcript.by_id(7)) == INVALID_PARAMS

    unsupported = transcript.by_id(8)
    assert error_code(unsupported) == UNSUPPORTED_PROTOCOL_VERSION
    assert unsupported["error"]["data"] == {"supported": [STATELESS_VERSION], "requested": "2099-01-01"}
    refused = transcript.by_id(9)
    assert error_code(refused) == UNSUPPORTED_PROTOCOL_VERSION
    assert refused["error"]["data"]["supported"] == [STATELESS_VERSION]
    assert error_code(transcript.by_id(10)) == INVALID_PARAMS
    assert error_code(transcript.by_id(11)) == INVALID_PARAMS
    assert error_code(transcript.by_id(12)) == METHOD_NOT_FOUND


def test_an_unsupported_first_version_leaves_the_era_open_INV_LIFE_3() -> None:
    transcript = run_server(
        request(1, "server/discover", {"_meta": envelope("2099-01-01")})
        + request(2, "server/discover", {"_meta": envelope()})
    )
    transcript.assert_clean_exit()
    assert transcript.ids() == [1, 2]
    data = transcript.by_id(1)["error"]["data"]
    assert error_code(transcript.by_id(1)) == UNSUPPORTED_PROTOCOL_VERSION
    assert data["requested"] == "2099-01-01"
    assert data["supported"][0] == STATELESS_VERSION
    assert set(data["supported"]) <= {STATELESS_VERSION, *HANDSHAKE_VERSIONS}
    assert assert_stateless_result(transcript.by_id(2))["supportedVersions"] == [STATELESS_VERSION]


def test_the_envelope_is_refused_after_a_handshake_INV_LIFE_2() -> None:
    transcript = run_server(
        handshake()
        + request(2, "tools/list", {"_meta": envelope()})
        + call(3, "echo", {"text": "x"}, meta=envelope())
        + request(4, "server/discover", {"_meta": envelope()})
        + request(5, "tools/list")
    )
    transcript.assert_clean_exit()
    assert transcript.ids() == [1, 2, 3, 4, 5]
    assert [error_code(transcript.by_id(request_id)) for request_id in (2, 3, 4)] == [INVALID_REQUEST] * 3
    assert "ttlMs" not in result_of(transcript.by_id(5))


def test_server_discover_without_envelope_after_a_handshake_is_method_not_found_INV_CLASS_3() -> None:
    # The method does not exist in the negotiated revision (the SDK's server answers -32601 too);
    # the request carries no envelope, so "envelope not accepted" (-32600) would misdirect the client.
    transcript = run_server(handshake() + request(2, "server/discover") + request(3, "server/discover", {}))
    transcript.assert_clean_exit()
    assert transcript.ids() == [1, 2, 3]
    assert [error_code(transcript.by_id(request_id)) for request_id in (2, 3)] == [METHOD_NOT_FOUND] * 2


def test_initialize_carrying_the_envelope_opens_the_handshake_era_INV_LIFE_2() -> None:
    params = {
        "protocolVersion": STATELESS_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "journey", "version": "0"},
        "_meta": envelope(),
    }
    transcript = run_server(request(1, "initialize", params) + request(2, "tools/list", {"_meta": envelope()}))
    transcript.assert_clean_exit()
    assert result_of(transcript.by_id(1))["protocolVersion"] == LATEST_HANDSHAKE_VERSION
    assert error_code(transcript.by_id(2)) == INVALID_REQUEST
