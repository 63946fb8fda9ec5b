"""The registry: dispatch, failures an agent can act on, the bound on every answer."""

from __future__ import annotations

import threading
from pathlib import Path

import attrs
import pytest

from mesh.render import TOOL_TEXT_BYTES_MAX
from mesh.tools import CallContext, Registry, Tool, ToolError, ToolOutput, builtin_registry, describe, load_plugins


@attrs.frozen(kw_only=True)
class Args:
    n: int = attrs.field(metadata=describe("How many", minimum=0))


def big(args: Args, ctx: CallContext) -> str:
    return "```\n" + "row\n" * args.n + "```\n"


def picky(args: Args, ctx: CallContext) -> ToolOutput:
    if args.n == 0:
        raise ToolError("n is zero; try n=1")
    if args.n == 1:
        raise RuntimeError("bug")
    return ToolOutput("ok", structured={"n": args.n})


def context_echo(args: Args, ctx: CallContext) -> str:
    return f"{ctx.workspace.name} {ctx.meta.trace_id} {ctx.cancelled.is_set()}"


@pytest.fixture
def registry() -> Registry:
    registry = Registry()
    registry.register(Tool("big", "Big output.", Args, big))
    registry.register(Tool("picky", "Fails on purpose.", Args, picky, title="Picky"))
    registry.register(Tool("ctx", "Context.", Args, context_echo))
    return registry


def call(registry: Registry, name: str, arguments: dict, meta: dict | None = None) -> ToolOutput:
    return registry.call(name, arguments, meta, workspace=Path("/w/space"))


def test_registration_order_and_lookup(registry: Registry) -> None:
    assert [tool.name for tool in registry] == ["big", "picky", "ctx"]
    assert len(registry) == 3 and "big" in registry and "nope" not in registry
    assert registry.schema("big")["required"] == ["n"]


def test_duplicate_and_bad_names_are_refused(registry: Registry) -> None:
    with pytest.raises(ValueError, match="already registered"):
        registry.register(Tool("big", "again", Args, big))
    with pytest.raises(ValueError, match="must be 1-64 chars"):
        Tool("has space", "x", Args, big)


def test_every_answer_is_bounded_INV_BOUND_2(registry: Registry) -> None:
    """INV-BOUND-2."""
    output = call(registry, "big", {"n": 100_000})
    assert output.truncated and len(output.text.encode()) <= TOOL_TEXT_BYTES_MAX
    assert "```\n\n_Truncated" in output.text
    assert not call(registry, "big", {"n": 3}).truncated


def test_bad_arguments_are_an_error_result_INV_TOOL_1(registry: Registry) -> None:
    """INV-TOOL-1."""
    output = call(registry, "big", {"n": -1, "x": 1})
    assert output.is_error
    assert "Invalid arguments for `big`" in output.text and "unknown argument 'x'" in output.text


def test_tool_error_is_an_error_result_crash_propagates(registry: Registry) -> None:
    output = call(registry, "picky", {"n": 0})
    assert output == ToolOutput("n is zero; try n=1", is_error=True)
    with pytest.raises(RuntimeError, match="bug"):
        call(registry, "picky", {"n": 1})
    assert call(registry, "picky", {"n": 2}).structured == {"n": 2}


def test_unknown_tool_is_an_error_result(registry: Registry) -> None:
    output = call(registry, "nope", {})
    assert output.is_error and "Tools: big, picky, ctx" in output.text


def test_context_carries_workspace_trace_and_cancellation(registry: Registry) -> None:
    traceparent = "00-" + "ab" * 16 + "-" + "cd" * 8 + "-01"
    assert call(registry, "ctx", {"n": 1}, {"traceparent": traceparent}).text == f"space {'ab' * 16} False"
    flag = threading.Event()
    flag.set()
    output = registry.call("ctx", {"n": 1}, None, workspace=Path("/w/space"), cancelled=flag)
    assert output.text == "space None True"


def test_the_built_in_tools_ship_read_only_and_answer_without_an_index() -> None:
    registry = builtin_registry()
    assert [tool.name for tool in registry] == [
        "smart_search",
        "dependents",
        "grpc_trace",
        "endpoint_trace",
        "impact_matrix",
        "doc_sections",
        "outline",
        "symbol",
        "references",
        "files",
    ]
    assert all(tool.annotations["readOnlyHint"] for tool in registry)
    output = registry.call("smart_search", {"query": "x"}, None, workspace=Path("/w"))
    assert output.is_error
    assert "no workspace index" in output.text


def test_plugins_register_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = Registry()
    load_plugins(registry, ["tests.support.tools"])
    assert [tool.name for tool in registry] == ["echo", "add", "sleep", "fail", "trace"]
    (tmp_path / "no_register.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(AttributeError, match="no register"):
        load_plugins(Registry(), ["no_register"])
    with pytest.raises(ImportError):
        load_plugins(Registry(), ["no.such.module"])
