"""Deterministic simulated tools, the same in memory and inside the real binary.

Loaded into ``mesh-mcp mcp`` with ``MESH_TOOL_PLUGINS=sim.tools``. No answer depends on a clock:
``sim_wait`` waits, but says only whether it was cancelled.
"""

from __future__ import annotations

import os
from typing import Literal

import attrs

from mesh.tools import CallContext, Registry, Tool, ToolError, ToolOutput, describe

#: Set to ``set-order`` to plant a non-determinism the determinism check must catch (its own test).
INJECT_ENV = "SIM_INJECT"
#: The longest a ``sim_wait`` ever waits: a lost cancellation cannot hang a run.
WAIT_MS_MAX = 20_000


@attrs.frozen(kw_only=True)
class EchoArgs:
    text: str = attrs.field(metadata=describe("Text to send back"))
    repeat: int = attrs.field(default=1, metadata=describe("Repetitions", minimum=1, maximum=10_000))


@attrs.frozen(kw_only=True)
class FailArgs:
    how: Literal["error", "crash"] = attrs.field(metadata=describe("error: isError answer; crash: -32603"))


@attrs.frozen(kw_only=True)
class WaitArgs:
    ms: int = attrs.field(metadata=describe("How long to wait unless cancelled", minimum=0, maximum=WAIT_MS_MAX))


@attrs.frozen(kw_only=True)
class ProgressArgs:
    done: float = attrs.field(metadata=describe("How far the call got", minimum=0))
    total: float | None = attrs.field(default=None, metadata=describe("Out of how much", minimum=0))
    message: str = attrs.field(default="", metadata=describe("What it is doing", max_length=200))


def _echo(args: EchoArgs, ctx: CallContext) -> ToolOutput:
    text = args.text * args.repeat
    if os.environ.get(INJECT_ENV) == "set-order":
        # A deliberate bug for the harness's own test: set order follows PYTHONHASHSEED.
        text += " " + ",".join({"alpha", "beta", "gamma", "delta", "epsilon"})
    return ToolOutput(text, structured={"length": len(text)})


def _fail(args: FailArgs, ctx: CallContext) -> str:
    if args.how == "error":
        raise ToolError("sim_fail fails on purpose; call sim_echo instead")
    raise RuntimeError("sim_fail crashed on purpose")


def _progress(args: ProgressArgs, ctx: CallContext) -> str:
    """One progress offer, then the answer: the one offer passes the driver's rate limit whatever
    the timing, so the transcript is the same in simulated time and over a real pipe."""
    ctx.progress(args.done, args.total, args.message)
    return "reported"


def _wait(args: WaitArgs, ctx: CallContext) -> str:
    return "cancelled" if ctx.cancelled.wait(args.ms / 1000) else "done"


TOOLS = (
    Tool("sim_echo", "Send the text back, repeated (large repeats exercise the 48 KB bound).", EchoArgs, _echo),
    Tool("sim_fail", "Fail on purpose.", FailArgs, _fail),
    Tool("sim_wait", "Wait, unless cancelled first.", WaitArgs, _wait, annotations={"readOnlyHint": True}),
    Tool("sim_progress", "Report progress once, then answer.", ProgressArgs, _progress),
)


def register(registry: Registry) -> None:
    for tool in TOOLS:
        registry.register(tool)
