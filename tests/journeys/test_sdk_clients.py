"""Journeys with the official MCP SDK client (``mcp`` 2.3): a client nobody here wrote.

``mode="legacy"`` runs the ``initialize`` handshake; ``mode="auto"`` probes ``server/discover``
first and adopts the stateless 2026-07-28 protocol when the server offers it. Both launch
``python -m mesh mcp`` over stdio; the server's stderr goes to a file the test can read.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from .conftest import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    LATEST_HANDSHAKE_VERSION,
    REPO_ROOT,
    SERVED_TOOL_NAMES,
    SERVER_ARGV,
    STATELESS_VERSION,
    server_env,
)

pytestmark = [pytest.mark.journey, pytest.mark.timeout(60)]

#: Deadline for one whole SDK session, connection and shutdown included.
SESSION_TIMEOUT_S = 30.0
MODES = [
    pytest.param("legacy", LATEST_HANDSHAKE_VERSION, id="legacy"),
    pytest.param("auto", STATELESS_VERSION, id="auto"),
]


def run_client(mode: str, stderr_path: Path, body: Callable[[Client], Awaitable[Any]]) -> Any:
    """Connect an SDK client in ``mode`` to a fresh server, run ``body``, disconnect."""
    params = StdioServerParameters(
        command=SERVER_ARGV[0], args=list(SERVER_ARGV[1:]), env=server_env(), cwd=str(REPO_ROOT)
    )

    async def session() -> Any:
        with stderr_path.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode=mode) as client:
                return await body(client)

    return asyncio.run(asyncio.wait_for(session(), SESSION_TIMEOUT_S))


@pytest.mark.parametrize(("mode", "version"), MODES)
def test_sdk_client_lists_and_calls_tools(tmp_path: Path, mode: str, version: str) -> None:
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        seen["version"] = client.protocol_version
        seen["server"] = client.server_info
        seen["tools"] = await client.list_tools()
        seen["echo"] = await client.call_tool("echo", {"text": "hi", "repeat": 3})
        seen["add"] = await client.call_tool("add", {"a": 2, "b": 3})
        seen["tool-error"] = await client.call_tool("fail", {"how": "tool-error"})
        seen["bad-args"] = await client.call_tool("add", {"a": 2, "b": "x"})
        for name, arguments in (("crash", {"how": "crash"}), ("unknown", None)):
            try:
                await client.call_tool("fail" if name == "crash" else "no-such-tool", arguments)
            except MCPError as exc:
                seen[name] = exc
        seen["after"] = await client.call_tool("echo", {"text": "still here"})

    run_client(mode, tmp_path / "server.err", body)

    assert seen["version"] == version
    assert seen["server"] is not None and seen["server"].name == "mesh-mcp"
    assert [tool.name for tool in seen["tools"].tools] == list(SERVED_TOOL_NAMES)
    assert seen["tools"].tools[SERVED_TOOL_NAMES.index("add")].input_schema["required"] == ["a", "b"]

    echo = seen["echo"]
    assert not echo.is_error and [block.text for block in echo.content] == ["hihihi"]
    add = seen["add"]
    assert not add.is_error and [block.text for block in add.content] == ["5"]
    assert add.structured_content == {"sum": 5}

    # A tool that reports a failure is a result with isError; a tool that crashes is -32603.
    assert seen["tool-error"].is_error and "always fails" in seen["tool-error"].content[0].text
    assert seen["bad-args"].is_error and "'b'" in seen["bad-args"].content[0].text
    assert isinstance(seen["crash"], MCPError) and seen["crash"].code == INTERNAL_ERROR
    assert "simulated crash" in seen["crash"].message
    assert isinstance(seen["unknown"], MCPError) and seen["unknown"].code == INVALID_PARAMS
    assert [block.text for block in seen["after"].content] == ["still here"]


@pytest.mark.parametrize(("mode", "version"), MODES)
def test_sdk_client_timeout_cancels_the_call(tmp_path: Path, mode: str, version: str) -> None:
    seen: dict[str, Any] = {}

    async def body(client: Client) -> float:
        seen["version"] = client.protocol_version
        started = time.monotonic()
        try:
            await client.call_tool("sleep", {"ms": 10_000}, read_timeout_seconds=0.3)
        except MCPError as exc:
            seen["timeout"] = exc
        seen["after"] = await client.call_tool("echo", {"text": "next"})
        seen["after_s"] = time.monotonic() - started
        return time.monotonic()

    stderr_path = tmp_path / "server.err"
    left_at = run_client(mode, stderr_path, body)
    # The SDK sent notifications/cancelled and the sleep stopped, so the server exits as soon as its
    # stdin closes; a server still draining the sleep would be killed by the SDK after its 2 s grace.
    shutdown_s = time.monotonic() - left_at
    assert seen["version"] == version
    assert isinstance(seen.get("timeout"), MCPError)
    assert [block.text for block in seen["after"].content] == ["next"]
    assert seen["after_s"] < 3
    assert shutdown_s < 1.5, f"shutdown took {shutdown_s:.1f}s"
    assert "Traceback" not in stderr_path.read_text()
