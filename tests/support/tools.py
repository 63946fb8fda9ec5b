"""Tools that exist only for tests, loaded into a real server with MESH_TOOL_PLUGINS=tests.support.tools.

Deterministic: no clock reaches an answer (``sleep`` waits, but its answer does not say how long).
"""

from __future__ import annotations

from typing import Literal

import attrs

from mesh.tools import CallContext, Registry, Tool, ToolError, ToolOutput, describe


@attrs.frozen(kw_only=True)
class EchoArgs:
    text: str = attrs.field(metadata=describe("Text to send back", max_length=1_000_000))
    repeat: int = attrs.field(default=1, metadata=describe("How many times", minimum=1, maximum=100_000))


@attrs.frozen(kw_only=True)
class AddArgs:
    a: int = attrs.field(metadata=describe("First addend"))
    b: int = attrs.field(metadata=describe("Second addend"))


@attrs.frozen(kw_only=True)
class SleepArgs:
    ms: int = attrs.field(metadata=describe("How long to wait", minimum=0, maximum=60_000))


@attrs.frozen(kw_only=True)
class FailArgs:
    how: Literal["crash", "tool-error"] = attrs.field(default="crash", metadata=describe("How to fail"))


def _echo(args: EchoArgs, ctx: CallContext) -> str:
    return args.text * args.repeat


def _add(args: AddArgs, ctx: CallContext) -> ToolOutput:
    return ToolOutput(str(args.a + args.b), structured={"sum": args.a + args.b})


def _sleep(args: SleepArgs, ctx: CallContext) -> str:
    if ctx.cancelled.wait(args.ms / 1000):
        return "cancelled"
    return f"slept {args.ms} ms"


def _fail(args: FailArgs, ctx: CallContext) -> str:
    if args.how == "tool-error":
        raise ToolError("this tool always fails; call `echo` instead")
    raise RuntimeError("simulated crash")


def _trace(args: object, ctx: CallContext) -> str:
    return f"trace id: {ctx.meta.trace_id or 'none'}"


@attrs.frozen(kw_only=True)
class NoArgs:
    pass


TOOLS = (
    Tool("echo", "Send the text back, repeated.", EchoArgs, _echo, title="Echo", annotations={"readOnlyHint": True}),
    Tool("add", "Add two integers.", AddArgs, _add),
    Tool("sleep", "Wait, then answer (stops early when cancelled).", SleepArgs, _sleep),
    Tool("fail", "Fail on purpose.", FailArgs, _fail),
    Tool("trace", "Say which W3C trace id the call carried.", NoArgs, _trace),
)


def register(registry: Registry) -> None:
    for tool in TOOLS:
        registry.register(tool)


