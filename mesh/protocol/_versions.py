"""Protocol revisions this server speaks, and what differs between them."""

from __future__ import annotations

from typing import Final

__all__ = [
    "BATCH_VERSIONS",
    "HANDSHAKE_VERSIONS",
    "LATEST_HANDSHAKE_VERSION",
    "LATEST_MODERN_VERSION",
    "LOG_LEVELS",
    "LOG_LEVEL_KEY",
    "MODERN_VERSIONS",
    "REQUEST_LOG_LEVEL_VERSIONS",
    "SET_LEVEL_VERSIONS",
    "at_least",
]

#: Revisions reached through the ``initialize`` handshake, oldest first.
HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: Stateless revisions: every request carries its version in ``params._meta``.
MODERN_VERSIONS: Final = ("2026-07-28",)
LATEST_HANDSHAKE_VERSION: Final = HANDSHAKE_VERSIONS[-1]
LATEST_MODERN_VERSION: Final = MODERN_VERSIONS[-1]
#: JSON-RPC batches exist only in 2025-03-26 (added there, removed in 2025-06-18).
BATCH_VERSIONS: Final = frozenset({"2025-03-26"})

#: The severities of ``notifications/message`` (RFC 5424's syslog levels), least severe first.
LOG_LEVELS: Final = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
#: Logging is asked for in two ways. The handshake revisions have ``logging/setLevel``: one level
#: for the session, log messages at any time once the client has sent ``initialized``.
SET_LEVEL_VERSIONS: Final = frozenset(HANDSHAKE_VERSIONS)
#: 2026-07-28 removed ``logging/setLevel``: each request opts in with this ``_meta`` key, and log
#: messages go out only while that request runs, before its answer (none for a request without it).
REQUEST_LOG_LEVEL_VERSIONS: Final = frozenset(MODERN_VERSIONS)
LOG_LEVEL_KEY: Final = "io.modelcontextprotocol/logLevel"

_ORDER: Final = {version: rank for rank, version in enumerate(HANDSHAKE_VERSIONS + MODERN_VERSIONS)}


def at_least(version: str, floor: str) -> bool:
    """Whether ``version`` (a served revision) is ``floor`` or newer."""
    return _ORDER[version] >= _ORDER[floor]
