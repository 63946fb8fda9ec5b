"""The sans-IO MCP server core: bytes in, events and frames out.

Nothing in this package performs I/O, reads a clock or draws randomness (an import-linter contract
in ``pyproject.toml`` and ``tests/test_layers.py`` hold it to that).
"""

from ._errors import ErrorCode
from ._events import (
    CallCancelled,
    Event,
    RequestId,
    SessionClosed,
    ToolCallRequested,
    ToolCrashed,
    ToolOutcome,
    ToolResult,
    ToolSpec,
    Wait,
)
from ._session import Era, ServerSession, SessionConfig
from ._versions import (
    HANDSHAKE_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    LATEST_MODERN_VERSION,
    LOG_LEVELS,
    MODERN_VERSIONS,
)

__all__ = [
    "HANDSHAKE_VERSIONS",
    "LATEST_HANDSHAKE_VERSION",
    "LATEST_MODERN_VERSION",
    "LOG_LEVELS",
    "MODERN_VERSIONS",
    "CallCancelled",
    "Era",
    "ErrorCode",
    "Event",
    "RequestId",
    "ServerSession",
    "SessionClosed",
    "SessionConfig",
    "ToolCallRequested",
    "ToolCrashed",
    "ToolOutcome",
    "ToolResult",
    "ToolSpec",
    "Wait",
]
