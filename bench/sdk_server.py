"""The official MCP Python SDK's stdio server (high-level ``MCPServer`` API, mcp 2.x).

Exposes ``echo`` (the one the benchmark calls) plus stand-ins for the other test tools mesh-mcp
serves (add, sleep, fail, trace), so that ``tools/list`` lists as many tools as mesh's does.
Benchmark peer only: run as ``python bench/sdk_server.py``; never imported by mesh or its tests.
"""

from __future__ import annotations

from typing import Annotated, Literal

import anyio
from pydantic import Field

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("sdk-bench", log_level="WARNING")


@server.tool(title="Echo", annotations=ToolAnnotations(readOnlyHint=True))
def echo(
    text: Annotated[str, Field(description="Text to send back", max_length=1_000_000)],
    repeat: Annotated[int, Field(description="How many times", ge=1, le=100_000)] = 1,
) -> str:
    """Send the text back, repeated."""
    return text * repeat


@server.tool()
def add(a: Annotated[int, Field(description="First addend")], b: Annotated[int, Field(description="Second addend")]) -> int:
    """Add two integers."""
    return a + b


@server.tool()
async def sleep(ms: Annotated[int, Field(description="How long to wait", ge=0, le=60_000)]) -> str:
    """Wait, then answer (stops early when cancelled)."""
    await anyio.sleep(ms / 1000)
    return f"slept {ms} ms"


@server.tool()
def fail(how: Annotated[Literal["crash", "tool-error"], Field(description="How to fail")] = "crash") -> str:
    """Fail on purpose."""
    raise RuntimeError("simulated crash")


@server.tool()
def trace() -> str:
    """Say which W3C trace id the call carried."""
    return "trace id: none"


if __name__ == "__main__":
    server.run("stdio")
