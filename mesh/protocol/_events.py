"""What the session hands to its driver, and what the driver hands back."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any, TypeAlias

import attrs

__all__ = [
    "CallCancelled",
    "Event",
    "RequestId",
    "SessionClosed",
    "ToolCallRequested",
    "ToolCrashed",
    "ToolOutcome",
    "ToolResult",
    "ToolSpec",
    "Wait",
]

#: A JSON-RPC request id as MCP allows it: a string or an integer, never null, never a bool.
RequestId: TypeAlias = str | int


@attrs.frozen
class ToolSpec:
    """One entry of the tool catalogue, as ``tools/list`` shows it."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    title: str | None = None
    annotations: Mapping[str, Any] | None = None
    output_schema: Mapping[str, Any] | None = None


# --- events: session -> driver ---------------------------------------------------------------


@attrs.frozen
class ToolCallRequested:
    """A ``tools/call`` for a known tool: run it and report with ``session.complete``."""

    request_id: RequestId
    name: str
    arguments: Mapping[str, Any]
    #: ``params._meta`` of the request (empty when absent): ``traceparent``, ``progressToken``...
    meta: Mapping[str, Any]
    protocol_version: str


@attrs.frozen
class CallCancelled:
    """The client cancelled a call in flight; its answer will be dropped. Stop it if you can."""

    request_id: RequestId
    reason: str | None


@attrs.frozen
class SessionClosed:
    """Input ended and every accepted request has been answered: flush and stop."""


Event: TypeAlias = ToolCallRequested | CallCancelled | SessionClosed


class Wait(Enum):
    """Returned by ``next_event`` when there is no event to hand out."""

    #: Every byte received so far has been handled: read more input (or report EOF).
    NEED_DATA = "need-data"
    #: Calls in flight must complete first (the in-flight bound is reached, or input has ended
    #: and the session is draining): do not read until ``complete`` has been called.
    PAUSED = "paused"


# --- outcomes: driver -> session -------------------------------------------------------------


@attrs.frozen
class ToolResult:
    """A tool's answer. ``is_error`` marks a failure the agent can act on (bad arguments...)."""

    text: str
    is_error: bool = False
    structured_content: Mapping[str, Any] | None = None


@attrs.frozen
class ToolCrashed:
    """The tool raised: answered as JSON-RPC ``-32603``."""

    message: str


ToolOutcome: TypeAlias = ToolResult | ToolCrashed
