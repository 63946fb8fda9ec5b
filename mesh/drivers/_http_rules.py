"""What an HTTP request must be before it reaches an MCP session: pure checks, no I/O.

Everything here is a function of the request's method, target and headers (and the server's
:class:`Policy`): the gate a request passes before its body is read (Host and ``Origin`` against
DNS rebinding, the bearer token, the path, the method), content negotiation, the mirrored
headers of the 2026-07-28 revision, the HTTP status of a JSON-RPC error, and the bytes of an SSE
event. A failed check is a :class:`Refusal`: the status the specification names, and a JSON-RPC
error body without an id (or with the request's id once it is known).
"""

from __future__ import annotations

import base64
import binascii
import hmac
from collections.abc import Iterable, Sequence
from typing import Any, Final

import attrs
import orjson

from ..protocol import HANDSHAKE_VERSIONS, MODERN_VERSIONS, ErrorCode

__all__ = [
    "ALL_VERSIONS",
    "HEADER_MISMATCH",
    "JSON_HEADERS",
    "LOOPBACK_NAMES",
    "MCP_PATH",
    "METHOD_HEADER",
    "NAME_HEADER",
    "SESSION_HEADER",
    "SSE_HEADERS",
    "SSE_KEEPALIVE",
    "VERSION_HEADER",
    "HeaderView",
    "Policy",
    "Refusal",
    "accepts",
    "decode_header_value",
    "error_body",
    "gate",
    "is_json",
    "is_loopback_host",
    "sse_event",
    "stateless_status",
]

#: The one MCP endpoint this server exposes.
MCP_PATH: Final = "/mcp"
SESSION_HEADER: Final = "mcp-session-id"
VERSION_HEADER: Final = "mcp-protocol-version"
METHOD_HEADER: Final = "mcp-method"
NAME_HEADER: Final = "mcp-name"
#: 2026-07-28: the mirrored headers disagree with the body, or a required one is missing.
HEADER_MISMATCH: Final = -32020
ALL_VERSIONS: Final = frozenset(HANDSHAKE_VERSIONS + MODERN_VERSIONS)
#: Host names that reach this machine only: the names a server bound to loopback answers to.
LOOPBACK_NAMES: Final = frozenset({"localhost", "127.0.0.1", "[::1]"})
#: The headers whose value routes a request: each may appear once.
_ROUTING: Final = frozenset({SESSION_HEADER, VERSION_HEADER, METHOD_HEADER, NAME_HEADER})

JSON_HEADERS: Final = (("content-type", "application/json"),)
SSE_HEADERS: Final = (
    ("content-type", "text/event-stream"),
    ("cache-control", "no-cache, no-transform"),
    # Reverse proxies (nginx) must not buffer a stream: each event goes out as it is written.
    ("x-accel-buffering", "no"),
)
#: An SSE comment: keeps a quiet stream from being closed by intermediaries; clients ignore it.
SSE_KEEPALIVE: Final = b":\n\n"
_ALLOW: Final = "GET, POST, DELETE"

#: HTTP status of a JSON-RPC error answered in the stateless era (2026-07-28 transport page);
#: any other code (a tool's crash, -32603) is a 200 like any answer.
_STATELESS_STATUS: Final = {
    int(ErrorCode.PARSE_ERROR): 400,
    int(ErrorCode.INVALID_REQUEST): 400,
    int(ErrorCode.INVALID_PARAMS): 400,
    int(ErrorCode.UNSUPPORTED_PROTOCOL_VERSION): 400,
    HEADER_MISMATCH: 400,
    int(ErrorCode.METHOD_NOT_FOUND): 404,
}


class Refusal(Exception):
    """A request answered at the HTTP layer: it never reaches a session, let alone a tool."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: int = int(ErrorCode.INVALID_REQUEST),
        data: Any = None,
        headers: Sequence[tuple[str, str]] = (),
        request_id: str | int | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.data = data
        self.headers = tuple(headers)
        self.request_id = request_id

    def body(self) -> bytes:
        return error_body(self.code, self.message, self.request_id, self.data)

    def __repr__(self) -> str:
        return f"Refusal({self.status}, {self.message!r})"


def error_body(code: int, message: str, request_id: str | int | None = None, data: Any = None) -> bytes:
    """A JSON-RPC error answer, canonical JSON (sorted keys), as the session would write it."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return orjson.dumps({"error": error, "id": request_id, "jsonrpc": "2.0"}, option=orjson.OPT_SORT_KEYS)


def stateless_status(code: int) -> int:
    """The HTTP status of a stateless-era answer carrying JSON-RPC error ``code``."""
    return _STATELESS_STATUS.get(code, 200)


class HeaderView:
    """A request's headers by lower-case name, every value kept (``h11`` hands them in order)."""

    __slots__ = ("_values",)

    def __init__(self, headers: Iterable[tuple[str, str]]) -> None:
        self._values: dict[str, list[str]] = {}
        for name, value in headers:
            self._values.setdefault(name.lower(), []).append(value)

    def get(self, name: str) -> str | None:
        """The value of ``name`` (repeated ones joined with ", ", as RFC 9110 folds a list)."""
        values = self._values.get(name)
        return None if values is None else ", ".join(values)

    def single(self, name: str) -> str | None:
        """The value of a header that may appear once; :class:`Refusal` 400 when it is repeated."""
        values = self._values.get(name)
        if values is None:
            return None
        if len(values) > 1:
            code = HEADER_MISMATCH if name in _ROUTING else int(ErrorCode.INVALID_REQUEST)
            raise Refusal(400, f"the {name} header appears {len(values)} times; send it once", code=code)
        return values[0]


@attrs.frozen
class Policy:
    """Who may talk to this server (see :func:`gate`)."""

    #: The server listens on a loopback address only: a request must name a loopback host.
    loopback: bool = True
    #: ``MESH_HTTP_TOKEN``: every request must carry ``Authorization: Bearer <token>``.
    token: str | None = None
    #: Origins allowed beside loopback ones (``MESH_HTTP_ORIGINS``), lower case, no trailing slash.
    origins: frozenset[str] = frozenset()


def gate(method: str, target: str, headers: HeaderView, policy: Policy) -> Refusal | None:
    """The checks a request passes on its head alone, before any byte of its body is read.

    In order: the Host (a server on loopback answers to loopback names only: DNS rebinding),
    the ``Origin`` (absent, loopback, or allowed by name; anything else, ``null`` included, is a
    web page this server does not serve: 403), the bearer token (401), the path (404), the
    method (405).
    """
    if policy.loopback:
        host = headers.single("host")
        if host is None or not is_loopback_host(host):
            return Refusal(403, "forbidden: this server answers requests for localhost only (Host header)")
    origin = headers.single("origin")
    if origin is not None and not _origin_allowed(origin, policy):
        return Refusal(403, "forbidden: requests from this Origin are not accepted")
    if policy.token is not None and not _bearer_ok(headers.single("authorization"), policy.token):
        return Refusal(
            401,
            "unauthorized: send Authorization: Bearer <the server's MESH_HTTP_TOKEN>",
            headers=(("www-authenticate", 'Bearer realm="mesh-mcp"'),),
        )
    path = target.partition("?")[0]
    if path != MCP_PATH:
        return Refusal(404, f"not found: the MCP endpoint is {MCP_PATH}")
    if method not in ("GET", "POST", "DELETE"):
        return Refusal(405, f"method not allowed: {_ALLOW} only", headers=(("allow", _ALLOW),))
    return None


def is_loopback_host(host: str) -> bool:
    """Whether a Host header names this machine by a loopback name (any port)."""
    return _host_name(host) in LOOPBACK_NAMES


def _host_name(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[: end + 1] if end > 0 else host
    return host.partition(":")[0]


def _origin_allowed(origin: str, policy: Policy) -> bool:
    origin = origin.strip().lower().rstrip("/")
    if origin in policy.origins:
        return True
    scheme, sep, rest = origin.partition("://")
    if not sep or scheme not in ("http", "https") or not rest or "/" in rest or "@" in rest:
        return False
    return _host_name(rest) in LOOPBACK_NAMES


def _bearer_ok(header: str | None, token: str) -> bool:
    if header is None:
        return False
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(value.strip().encode("utf-8", "surrogateescape"), token.encode("utf-8"))


def accepts(accept: str | None) -> tuple[bool, bool]:
    """Whether a client takes an ``application/json`` answer, and a ``text/event-stream`` one.

    No Accept header accepts anything (RFC 9110 §12.5.1); a range with ``q=0`` accepts nothing.
    """
    if accept is None:
        return True, True
    json_ok = sse_ok = False
    for part in accept.split(","):
        media, *params = part.split(";")
        if any(_is_q_zero(param) for param in params):
            continue
        media = media.strip().lower()
        if media in ("*/*", "application/*", "application/json"):
            json_ok = True
        if media in ("*/*", "text/*", "text/event-stream"):
            sse_ok = True
    return json_ok, sse_ok


def _is_q_zero(param: str) -> bool:
    name, _, value = param.partition("=")
    if name.strip().lower() != "q":
        return False
    try:
        return float(value.strip()) == 0
    except ValueError:
        return False


def is_json(content_type: str | None) -> bool:
    """Whether a Content-Type is ``application/json`` (parameters such as ``charset`` allowed)."""
    if content_type is None:
        return False
    return content_type.partition(";")[0].strip().lower() == "application/json"


def decode_header_value(value: str | None) -> str | None:
    """A mirrored header's value: ``=?base64?…?=`` decoded (UTF-8), else as sent; None when absent
    or when the sentinel does not hold valid base64 of UTF-8."""
    if value is None:
        return None
    if len(value) >= 11 and value.startswith("=?base64?") and value.endswith("?="):
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
    return value


def sse_event(data: bytes) -> bytes:
    """One SSE ``message`` event carrying ``data`` (one line of JSON: a frame has no newline)."""
    return b"event: message\ndata: " + data + b"\n\n"
