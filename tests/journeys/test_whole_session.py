"""The issue's "done when", as one raw session: everything hostile at once, then EOF."""

from __future__ import annotations

import pytest

from .conftest import (
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    call,
    error_code,
    handshake,
    notification,
    request,
    result_of,
    run_server,
    tool_text,
)

pytestmark = [pytest.mark.journey, pytest.mark.timeout(120)]


def test_garbage_oversize_batches_notifications_and_2000_pipelined_requests_then_eof_INV_DRAIN_2() -> None:
    """INV-DRAIN-1, INV-DRAIN-2, INV-FRAME-2, INV-CLASS-1, INV-LIFE-4 in one session, in order."""
    script = [
        handshake("2025-03-26", request_id="init"),
        b"not json at all\n",
        b"\xff\xfe\n",
        b"[" * 100_000 + b"\n",
        b'{"jsonrpc":"2.0","id":"big","method":"ping","pad":"' + b"p" * (3 << 20) + b'"}\n',
        notification("notifications/progress", {"progressToken": 1, "progress": 1}),
        b'{"jsonrpc":"2.0","id":"reply","result":{}}\n',
        b"["
        + b",".join(
            part.rstrip(b"\n")
            for part in (request("b1", "ping"), call("b2", "echo", {"text": "in a batch"}), notification("x"))
        )
        + b"]\n",
        b"[]\n",
        request("nope", "resources/list"),
    ]
    script += [call(i, "echo", {"text": f"n{i}"}) if i % 2 else request(i, "ping") for i in range(2000)]
    transcript = run_server(b"".join(script), timeout_s=90)
    transcript.assert_clean_exit()

    singles = transcript.singles
    nulls = [error_code(answer) for answer in singles if answer["id"] is None]
    # Two undecodable lines and the deep nesting are parse errors; the 3 MiB line and [] are -32600.
    assert nulls == [PARSE_ERROR, PARSE_ERROR, PARSE_ERROR, INVALID_REQUEST, INVALID_REQUEST]
    [batch] = transcript.batches
    assert [answer["id"] for answer in batch] == ["b1", "b2"]
    assert tool_text(batch[1]) == "in a batch"
    by_id = {answer["id"]: answer for answer in singles if answer["id"] is not None}
    assert error_code(by_id["nope"]) == METHOD_NOT_FOUND
    assert "reply" not in by_id and "big" not in by_id
    numbered = [answer_id for answer_id in transcript.ids() if isinstance(answer_id, int)]
    assert sorted(numbered) == list(range(2000))  # each exactly once
    for i in range(2000):
        if i % 2:
            assert tool_text(by_id[i]) == f"n{i}"
        else:
            assert result_of(by_id[i]) == {}
