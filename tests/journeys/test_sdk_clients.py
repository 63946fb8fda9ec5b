"""Journeys with the official MCP SDK clients (Python ``mcp`` 2.3, and TypeScript): clients nobody here wrote.

``mode="legacy"`` runs the ``initialize`` handshake; ``mode="auto"`` probes ``server/discover``
first and adopts the stateless 2026-07-28 protocol when the server offers it. Both launch
``python -m mesh mcp`` over stdio; the server's stderr goes to a file the test can read.

The client validates every successful ``tools/call`` of a tool that declares an ``outputSchema``
against it (and refuses one without ``structuredContent``): calling each built-in tool over the
fixture workspace in both modes shows it accepts what the tools answer (INV-TOOL-8, INV-TOOL-9).
The TypeScript SDK's client (``node/sdk_client.mjs``, installed by :mod:`.node_sdk`; it speaks the
handshake era, up to 2025-11-25) does the same check with ajv.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from .conftest import (
    BUILTIN_TOOL_NAMES,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    LATEST_HANDSHAKE_VERSION,
    REPO_ROOT,
    SERVED_TOOL_NAMES,
    SERVER_ARGV,
    STATELESS_VERSION,
    server_env,
)
from .node_sdk import node_sdk_client

pytestmark = [pytest.mark.journey, pytest.mark.timeout(60)]

#: Deadline for one whole SDK session, connection and shutdown included.
SESSION_TIMEOUT_S = 30.0
MODES = [
    pytest.param("legacy", LATEST_HANDSHAKE_VERSION, id="legacy"),
    pytest.param("auto", STATELESS_VERSION, id="auto"),
]


FIXTURE = REPO_ROOT / "tests" / "fixtures" / "workspace"
#: One call per built-in tool that answers (no ``isError``) on the fixture workspace.
BUILTIN_CALLS: dict[str, dict[str, Any]] = {
    "smart_search": {"query": "Reserve"},
    "dependents": {"target": "acme.common.v1.Money", "depth": 3},
    "grpc_trace": {"target": "acme.orders.v1.Orders/GetOrder"},
    "endpoint_trace": {"target": "GET /orders/{id}"},
    "impact_matrix": {"changes": ["proto/acme/orders/v1/orders.proto"]},
    "doc_sections": {"heading": "runbook"},
    "outline": {"path": "orders/orders/store.py"},
    "symbol": {"name": "OrderStore.put"},
    "references": {"name": "OrderStore"},
    "files": {"pattern": "**/*.proto"},
}


def run_client(
    mode: str,
    stderr_path: Path,
    body: Callable[[Client], Awaitable[Any]],
    *,
    extra_args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> Any:
    """Connect an SDK client in ``mode`` to a fresh server, run ``body``, disconnect."""
    params = StdioServerParameters(
        command=SERVER_ARGV[0],
        args=[*SERVER_ARGV[1:], *extra_args],
        env=server_env() if env is None else env,
        cwd=str(REPO_ROOT),
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


@pytest.fixture(scope="module")
def fixture_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache holding the fixture's index, built once: a server started on it serves at once."""
    cache = tmp_path_factory.mktemp("sdk-fixture-cache")
    env = server_env(extra={"MESH_CACHE_DIR": str(cache)})
    done = subprocess.run(
        [sys.executable, "-m", "mesh", "index", str(FIXTURE)], env=env, capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return cache


@pytest.mark.parametrize(("mode", "version"), MODES)
def test_sdk_client_accepts_the_structured_result_of_every_builtin_tool(
    tmp_path: Path, fixture_cache: Path, mode: str, version: str
) -> None:
    """INV-TOOL-8, INV-TOOL-9: the SDK client, in both eras, lists each built-in tool with its
    ``outputSchema`` and calls each one: it validates the ``structuredContent`` against the schema
    (and would raise on a result without one, or one that does not conform); an ``isError`` answer
    carries none and is accepted as it is."""
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        seen["version"] = client.protocol_version
        seen["tools"] = await client.list_tools()
        for name, arguments in BUILTIN_CALLS.items():
            seen[name] = await client.call_tool(name, arguments)
        seen["error"] = await client.call_tool("grpc_trace", {"target": "Nothing.v1.Here/Not"})

    env = server_env(extra={"MESH_CACHE_DIR": str(fixture_cache)})
    stderr_path = tmp_path / "server.err"
    run_client(mode, stderr_path, body, extra_args=("--workspace", str(FIXTURE)), env=env)

    assert seen["version"] == version
    schemas = {tool.name: tool.output_schema for tool in seen["tools"].tools}
    for name in BUILTIN_TOOL_NAMES:
        assert schemas[name] is not None and schemas[name]["type"] == "object", name
        result = seen[name]
        assert not result.is_error, (name, result.content[0].text)
        assert isinstance(result.structured_content, dict), name
        assert set(result.structured_content) == set(schemas[name]["required"]), name
        assert result.content[0].text.startswith("#"), name
    assert seen["impact_matrix"].structured_content["verdict"]["impacted"] > 0
    error = seen["error"]
    assert error.is_error and error.structured_content is None
    assert "Traceback" not in stderr_path.read_text()


def test_typescript_sdk_client_accepts_the_structured_result_of_every_builtin_tool(fixture_cache: Path) -> None:
    """INV-TOOL-8, INV-TOOL-9: the official TypeScript SDK's client lists each built-in tool with its
    ``outputSchema`` and calls each one; it validates every ``structuredContent`` with ajv (a draft-7
    validator) and throws on a success without one or one that does not conform: no call throws."""
    folder = node_sdk_client()
    calls = [
        *([name, arguments] for name, arguments in BUILTIN_CALLS.items()),
        ["grpc_trace", {"target": "Nothing.v1.Here/Not"}],
    ]
    server = [*SERVER_ARGV, "--workspace", str(FIXTURE)]
    done = subprocess.run(
        ["node", str(folder / "sdk_client.mjs"), json.dumps(server), json.dumps(calls)],
        cwd=REPO_ROOT,
        env=server_env(extra={"MESH_CACHE_DIR": str(fixture_cache)}),
        capture_output=True,
        text=True,
        timeout=SESSION_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert out["version"] == LATEST_HANDSHAKE_VERSION
    for name in BUILTIN_TOOL_NAMES:
        assert out["tools"][name] is not None and out["tools"][name]["type"] == "object", name
    *answers, error = out["calls"]
    for answer in answers:
        assert "thrown" not in answer, answer
        assert not answer["isError"], (answer["name"], answer["text"])
        assert set(answer["structured"]) == set(out["tools"][answer["name"]]["required"]), answer["name"]
    assert error.get("isError") is True and error["structured"] is None
    assert "Traceback" not in done.stderr
