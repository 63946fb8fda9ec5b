"""``mesh-mcp http``'s start-up decisions without a process: who may connect, and the timeouts."""

from __future__ import annotations

import pytest

from mesh.commands.http import TOKEN_CHARS_MIN, UsageError, _url, http_limits, http_policy, is_loopback

TOKEN = "t" * TOKEN_CHARS_MIN


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])
def test_loopback_addresses(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "no-such-host.invalid"])
def test_addresses_beyond_this_machine(host: str) -> None:
    assert not is_loopback(host)


def test_loopback_needs_no_token_but_checks_hosts_INV_HTTP_6() -> None:
    """INV-HTTP-6."""
    policy = http_policy("127.0.0.1", {})
    assert policy.loopback and policy.token is None and policy.origins == frozenset()


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10"])
def test_beyond_loopback_a_token_is_required_INV_HTTP_6(host: str) -> None:
    """INV-HTTP-6: refused to start without one."""
    with pytest.raises(UsageError, match="without a bearer token"):
        http_policy(host, {})
    policy = http_policy(host, {"MESH_HTTP_TOKEN": TOKEN})
    assert not policy.loopback and policy.token == TOKEN


@pytest.mark.parametrize("token", ["short", "t" * (TOKEN_CHARS_MIN - 1), f" {TOKEN}", f"{TOKEN}\n", TOKEN + "\x00"])
def test_a_weak_or_malformed_token_is_refused_INV_HTTP_6(token: str) -> None:
    """INV-HTTP-6: on loopback too: a token that is set must be able to protect."""
    with pytest.raises(UsageError, match="MESH_HTTP_TOKEN"):
        http_policy("127.0.0.1", {"MESH_HTTP_TOKEN": token})


def test_an_empty_token_is_no_token() -> None:
    assert http_policy("127.0.0.1", {"MESH_HTTP_TOKEN": ""}).token is None


def test_allowed_origins_are_normalised_and_checked() -> None:
    policy = http_policy("127.0.0.1", {"MESH_HTTP_ORIGINS": " https://App.Example.com/ , http://localhost:3000,"})
    assert policy.origins == frozenset({"https://app.example.com", "http://localhost:3000"})
    for bad in ("example.com", "ftp://example.com", "https://example.com/path"):
        with pytest.raises(UsageError, match="MESH_HTTP_ORIGINS"):
            http_policy("127.0.0.1", {"MESH_HTTP_ORIGINS": bad})


def test_timeouts_come_from_the_environment_INV_HTTP_5() -> None:
    """INV-HTTP-5: every wait has a bound, and an operator may change it, never remove it."""
    limits, endpoint = http_limits({})
    assert (limits.request_s, limits.idle_s, limits.write_s) == (10.0, 60.0, 30.0)
    assert (endpoint.keepalive_s, endpoint.stream_idle_s, endpoint.session_idle_s) == (15.0, 300.0, 3600.0)
    limits, endpoint = http_limits(
        {
            "MESH_HTTP_REQUEST_S": "2",
            "MESH_HTTP_IDLE_S": "3",
            "MESH_HTTP_WRITE_S": "4",
            "MESH_HTTP_KEEPALIVE_S": "0.5",
            "MESH_HTTP_STREAM_IDLE_S": "6",
            "MESH_HTTP_SESSION_IDLE_S": "7",
        }
    )
    assert (limits.request_s, limits.idle_s, limits.write_s) == (2.0, 3.0, 4.0)
    assert (endpoint.keepalive_s, endpoint.stream_idle_s, endpoint.session_idle_s) == (0.5, 6.0, 7.0)


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e9", "soon"])
def test_a_timeout_that_never_ends_or_makes_no_sense_is_refused_INV_HTTP_5(value: str) -> None:
    """INV-HTTP-5."""
    with pytest.raises(UsageError, match="MESH_HTTP_IDLE_S"):
        http_limits({"MESH_HTTP_IDLE_S": value})


def test_the_url_names_the_endpoint() -> None:
    assert _url("127.0.0.1", 8765) == "http://127.0.0.1:8765/mcp"
    assert _url("::1", 9) == "http://[::1]:9/mcp"
