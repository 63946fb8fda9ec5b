"""The HTTP gate and helpers of Streamable HTTP, without sockets: what a request's head must be."""

from __future__ import annotations

import json

import pytest

from mesh.drivers._http_rules import (
    HEADER_MISMATCH,
    HeaderView,
    Policy,
    Refusal,
    accepts,
    decode_header_value,
    error_body,
    gate,
    is_json,
    is_loopback_host,
    sse_event,
    stateless_status,
)

LOCAL = Policy()


def head(**headers: str) -> HeaderView:
    items = [("host", "127.0.0.1:8765")] + [(name.replace("_", "-"), value) for name, value in headers.items()]
    return HeaderView(items)


def status_of(method: str, target: str, headers: HeaderView, policy: Policy = LOCAL) -> int | None:
    refusal = gate(method, target, headers, policy)
    return None if refusal is None else refusal.status


@pytest.mark.parametrize(
    "host", ["localhost", "localhost:8765", "127.0.0.1", "127.0.0.1:1", "[::1]", "[::1]:8765", "LOCALHOST:80"]
)
def test_a_loopback_host_passes_the_gate_INV_HTTP_1(host: str) -> None:
    """INV-HTTP-1: a server on loopback answers to loopback names, any port."""
    assert is_loopback_host(host)
    assert status_of("POST", "/mcp", HeaderView([("host", host)])) is None


@pytest.mark.parametrize(
    "host", ["evil.example.com", "evil.example.com:8765", "127.0.0.1.nip.io", "::1", "", "0.0.0.0"]
)
def test_a_rebound_host_is_forbidden_INV_HTTP_1(host: str) -> None:
    """INV-HTTP-1: DNS rebinding: a name that resolves here but is not ours is 403."""
    assert status_of("POST", "/mcp", HeaderView([("host", host)])) == 403


def test_no_host_header_is_forbidden_on_loopback_and_not_checked_beyond_INV_HTTP_1() -> None:
    """INV-HTTP-1."""
    assert status_of("POST", "/mcp", HeaderView([])) == 403
    beyond = Policy(loopback=False, token="t" * 16)
    assert status_of("POST", "/mcp", HeaderView([("authorization", "Bearer " + "t" * 16)]), beyond) is None


@pytest.mark.parametrize(
    ("origin", "status"),
    [
        ("http://localhost:3000", None),
        ("https://127.0.0.1", None),
        ("http://[::1]:5173/", None),
        ("http://evil.example.com", 403),
        ("null", 403),
        ("file://", 403),
        ("http://localhost.evil.example.com", 403),
        ("http://user@localhost", 403),
        ("chrome-extension://abc", 403),
    ],
)
def test_origin_is_validated_INV_HTTP_1(origin: str, status: int | None) -> None:
    """INV-HTTP-1: an Origin that is present and not allowed is 403 (the spec's DNS rebinding rule)."""
    assert status_of("POST", "/mcp", head(origin=origin)) == status


def test_an_origin_allowed_by_name_passes_INV_HTTP_1() -> None:
    """INV-HTTP-1."""
    policy = Policy(origins=frozenset({"https://app.example.com"}))
    assert status_of("POST", "/mcp", head(origin="https://APP.example.com/"), policy) is None
    assert status_of("POST", "/mcp", head(origin="https://other.example.com"), policy) == 403


def test_the_bearer_token_is_required_when_set_INV_HTTP_6() -> None:
    """INV-HTTP-6: without the token, or with another one, 401 with WWW-Authenticate."""
    policy = Policy(token="s3cret-token-0123456789")
    refusal = gate("POST", "/mcp", head(), policy)
    assert refusal is not None and refusal.status == 401
    assert dict(refusal.headers)["www-authenticate"].startswith("Bearer")
    assert status_of("POST", "/mcp", head(authorization="Bearer wrong-token-0123456789"), policy) == 401
    assert status_of("POST", "/mcp", head(authorization="Basic czNjcmV0"), policy) == 401
    assert status_of("POST", "/mcp", head(authorization="bearer s3cret-token-0123456789"), policy) is None
    assert status_of("POST", "/mcp", head(authorization="Bearer  s3cret-token-0123456789 "), policy) is None


def test_the_gate_checks_the_origin_before_the_token_and_the_path_last_INV_HTTP_1() -> None:
    """INV-HTTP-1: a rebound page learns nothing, not even that a token would be needed."""
    policy = Policy(token="s3cret-token-0123456789")
    assert status_of("POST", "/other", head(origin="http://evil.example.com"), policy) == 403
    assert status_of("POST", "/other", head(), policy) == 401
    assert status_of("POST", "/other", head()) == 404
    assert status_of("POST", "/mcp?x=1", head()) is None


@pytest.mark.parametrize("method", ["PUT", "PATCH", "HEAD", "OPTIONS", "CONNECT"])
def test_other_methods_are_405_with_allow_INV_HTTP_1(method: str) -> None:
    """INV-HTTP-1."""
    refusal = gate(method, "/mcp", head(), LOCAL)
    assert refusal is not None and refusal.status == 405
    assert dict(refusal.headers)["allow"] == "GET, POST, DELETE"


def test_a_repeated_routing_header_is_refused_INV_HTTP_1() -> None:
    """INV-HTTP-1: one value per routing header: two readers must never disagree."""
    view = HeaderView([("mcp-method", "tools/list"), ("Mcp-Method", "tools/call"), ("accept", "a"), ("accept", "b")])
    with pytest.raises(Refusal) as raised:
        view.single("mcp-method")
    assert raised.value.status == 400 and raised.value.code == HEADER_MISMATCH
    assert view.get("accept") == "a, b"
    with pytest.raises(Refusal) as raised:
        HeaderView([("origin", "http://localhost"), ("origin", "http://evil")]).single("origin")
    assert raised.value.status == 400 and raised.value.code == -32600


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, (True, True)),
        ("application/json, text/event-stream", (True, True)),
        ("application/json", (True, False)),
        ("text/event-stream", (False, True)),
        ("*/*", (True, True)),
        ("application/*;q=0.5, text/*", (True, True)),
        ("text/html", (False, False)),
        ("application/json;q=0, text/event-stream", (False, True)),
        ("APPLICATION/JSON; charset=utf-8", (True, False)),
    ],
)
def test_accept_negotiation(accept: str | None, expected: tuple[bool, bool]) -> None:
    assert accepts(accept) == expected


def test_content_type_must_be_json() -> None:
    assert is_json("application/json")
    assert is_json("Application/JSON; charset=utf-8")
    assert not is_json("text/plain")
    assert not is_json("application/json-seq")
    assert not is_json(None)


def test_mirrored_header_values_decode_the_base64_sentinel_INV_HTTP_4() -> None:
    """INV-HTTP-4: ``=?base64?…?=`` carries values a header cannot."""
    assert decode_header_value("get_weather") == "get_weather"
    assert decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?=") == "Hello, 世界"
    assert decode_header_value("=?base64?not base64!?=") is None
    assert decode_header_value("=?base64?/w==?=") is None  # not UTF-8
    assert decode_header_value(None) is None


def test_stateless_error_statuses_INV_HTTP_4() -> None:
    """INV-HTTP-4: the 2026-07-28 statuses: 404 for an unknown method, 400 for a client's error."""
    assert stateless_status(-32601) == 404
    for code in (-32700, -32600, -32602, -32022, -32020):
        assert stateless_status(code) == 400
    assert stateless_status(-32603) == 200


def test_error_bodies_are_canonical_json_and_sse_events_one_line() -> None:
    body = error_body(-32600, "no", 7, {"b": 1, "a": 2})
    assert body == b'{"error":{"code":-32600,"data":{"a":2,"b":1},"message":"no"},"id":7,"jsonrpc":"2.0"}'
    assert json.loads(Refusal(400, "x").body())["id"] is None
    assert sse_event(b'{"a":1}') == b'event: message\ndata: {"a":1}\n\n'
