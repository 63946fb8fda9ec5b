"""Drive a ServerSession in memory, the way a driver would, for tests."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from mesh.protocol import (
    CallCancelled,
    ServerSession,
    SessionClosed,
    SessionConfig,
    ToolCallRequested,
    ToolCrashed,
    ToolOutcome,
    ToolResult,
    ToolSpec,
    Wait,
)

TOOLS = (
    ToolSpec("echo", "Echo the text.", {"type": "object", "properties": {"text": {"type": "string"}}}, title="Echo"),
    ToolSpec("crash", "Always crashes.", {"type": "object"}),
    ToolSpec("slow", "Completes when the test says so.", {"type": "object"}, annotations={"readOnlyHint": True}),
)


def default_tool(event: ToolCallRequested) -> ToolOutcome | None:
    """Deterministic simulated tools: ``None`` leaves the call in flight."""
    if event.name == "crash":
        return ToolCrashed("boom")
    if event.name == "slow":
        return None
    return ToolResult(json.dumps(event.arguments, sort_keys=True))


def frame(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def request(request_id: Any, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return frame(message)


def notification(method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return frame(message)


def initialize(version: str = "2025-11-25", request_id: Any = 0) -> bytes:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    return request(request_id, "initialize", params) + notification("notifications/initialized")


ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}


def stateless(request_id: Any, method: str, params: dict[str, Any] | None = None, **envelope: Any) -> bytes:
    meta = {**ENVELOPE, **{f"io.modelcontextprotocol/{key}": value for key, value in envelope.items()}}
    return request(request_id, method, {**(params or {}), "_meta": meta})


class Harness:
    """A session plus a driver loop that completes calls with ``tool`` as soon as they appear."""

    def __init__(
        self,
        config: SessionConfig | None = None,
        tools: Iterable[ToolSpec] = TOOLS,
        tool: Callable[[ToolCallRequested], ToolOutcome | None] = default_tool,
    ) -> None:
        self.session = ServerSession(config or SessionConfig(), tuple(tools))
        self.tool = tool
        self.pending: dict[Any, ToolCallRequested] = {}
        self.cancelled: list[CallCancelled] = []
        self.closed = False
        self.output = bytearray()

    def feed(self, *chunks: bytes) -> Wait | None:
        for chunk in chunks:
            self.session.receive_data(chunk)
        return self.pump()

    def eof(self) -> Wait | None:
        self.session.receive_eof()
        return self.pump()

    def complete(self, request_id: Any, outcome: ToolOutcome) -> Wait | None:
        del self.pending[request_id]
        self.session.complete(request_id, outcome)
        return self.pump()

    def pump(self) -> Wait | None:
        while True:
            event = self.session.next_event()
            if isinstance(event, ToolCallRequested):
                outcome = self.tool(event)
                if outcome is None:
                    self.pending[event.request_id] = event
                else:
                    self.session.complete(event.request_id, outcome)
            elif isinstance(event, CallCancelled):
                self.cancelled.append(event)
            elif isinstance(event, SessionClosed):
                self.closed = True
                self.output += self.session.data_to_send()
                return None
            else:
                self.output += self.session.data_to_send()
                return event

    def take(self) -> list[Any]:
        """The frames sent since the last take, decoded."""
        lines = bytes(self.output).splitlines()
        self.output.clear()
        return [json.loads(line) for line in lines]

    def ask(self, data: bytes) -> list[Any]:
        self.feed(data)
        return self.take()


def run(data: bytes, config: SessionConfig | None = None, chunks: Iterable[int] | None = None) -> bytes:
    """Feed ``data`` (split at the given chunk sizes, cycling), then EOF; the raw output."""
    harness = Harness(config)
    if chunks is None:
        harness.feed(data)
    else:
        sizes = list(chunks) or [len(data) or 1]
        position = index = 0
        while position < len(data):
            size = max(1, sizes[index % len(sizes)])
            harness.feed(data[position : position + size])
            position += size
            index += 1
    harness.eof()
    assert harness.closed
    return bytes(harness.output)
