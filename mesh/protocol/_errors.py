"""JSON-RPC and MCP error codes, and the bounded error messages the core sends."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import attrs

__all__ = ["ErrorCode", "RpcError", "clip"]


class ErrorCode(IntEnum):
    #: The bytes of a frame are not strict JSON.
    PARSE_ERROR = -32700
    #: JSON that is not a valid request, a batch where none is allowed, an oversized frame.
    INVALID_REQUEST = -32600
    #: A request for a method this server does not serve.
    METHOD_NOT_FOUND = -32601
    #: Bad params, an unknown tool, ``tools/call`` without ``params``.
    INVALID_PARAMS = -32602
    #: The server failed: a tool crashed, a result could not be encoded.
    INTERNAL_ERROR = -32603
    #: MCP 2026-07-28: the request names a protocol version this server does not serve.
    UNSUPPORTED_PROTOCOL_VERSION = -32022


#: No error message, and no string echoed inside one, is longer than this many characters.
MESSAGE_CHARS_MAX = 256
_ECHO_CHARS_MAX = 64


def clip(value: object, limit: int = _ECHO_CHARS_MAX) -> str:
    """A short printable rendering of client input for use inside an error message."""
    text = value if isinstance(value, str) else type(value).__name__
    text = text.encode("unicode_escape", "backslashreplace").decode("ascii")
    if len(text) > limit:
        return repr(text[:limit]) + f"... ({len(text)} chars)"
    return repr(text)


@attrs.frozen
class RpcError(Exception):
    """An error answer; raised inside the core, caught and sent as a JSON-RPC error object."""

    code: ErrorCode
    message: str
    data: Any = None

    def to_json(self) -> dict[str, Any]:
        message = self.message
        if len(message) > MESSAGE_CHARS_MAX:
            message = message[: MESSAGE_CHARS_MAX - 3] + "..."
        error: dict[str, Any] = {"code": int(self.code), "message": message}
        if self.data is not None:
            error["data"] = self.data
        return error
