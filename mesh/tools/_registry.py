"""The tool registry: names to tools, arguments to answers, every answer bounded."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final

import attrs

from ..render import TOOL_TEXT_BYTES_MAX, bound_markdown
from ..render._paging import escape_controls
from ._args import ArgumentError, Meta, as_json, output_schema_of, parse_args, published_output_schema, schema_of

__all__ = ["CallContext", "Registry", "Tool", "ToolError", "ToolOutput"]

# MCP 2025-11-25: tool names are 1-128 chars of A-Z a-z 0-9 _ - . (we keep them shorter).
_NAME: Final = re.compile(r"[A-Za-z0-9_.-]{1,64}")


class ToolError(Exception):
    """A failure the agent can act on (no such file, ambiguous target...): an ``isError`` answer."""


@attrs.frozen
class ToolOutput:
    """A tool's answer: Markdown text, bounded by the registry, and its structured form.

    ``structured`` is a JSON object, or an instance of the tool's ``output`` class, which the
    registry turns into the object ``output``'s schema describes (``structuredContent``).
    """

    text: str
    is_error: bool = False
    structured: Any = None
    #: Set by the registry when the text was cut to the bound.
    truncated: bool = False


@attrs.frozen
class CallContext:
    """What a running tool may know about its call."""

    workspace: Path
    meta: Meta
    #: Set when the client cancelled the call or the server is shutting down: stop early.
    cancelled: threading.Event = attrs.field(factory=threading.Event)
    #: Tell the client how far the call got: ``progress(done, total, message)``, ``done`` rising.
    #: The driver sends it as ``notifications/progress`` when the client asked; else it goes nowhere.
    progress: Callable[[float, float | None, str], None] = attrs.field(default=lambda *_: None)


@attrs.frozen
class Tool:
    name: str
    description: str
    #: The attrs class of the arguments (see ``mesh.tools._args``).
    args: type
    run: Callable[[Any, CallContext], ToolOutput | str]
    title: str | None = None
    #: MCP tool annotations, e.g. ``{"readOnlyHint": True}``.
    annotations: Mapping[str, Any] | None = None
    #: The attrs class of the structured result (``outputSchema``), or None for Markdown alone.
    #: A tool that declares one answers every success with an instance of it.
    output: type | None = None

    def __attrs_post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise ValueError(f"tool name {self.name!r} must be 1-64 chars of A-Z a-z 0-9 _ - .")
        schema_of(self.args)  # fail at registration, not at the first call
        if self.output is not None:
            output_schema_of(self.output)


@attrs.define
class Registry:
    """Tools by name, in registration order (the order ``tools/list`` shows)."""

    _tools: dict[str, Tool] = attrs.field(init=False, factory=dict)

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def schema(self, name: str) -> dict[str, Any]:
        return schema_of(self._tools[name].args)

    def output_schema(self, name: str) -> dict[str, Any] | None:
        """The ``outputSchema`` ``tools/list`` shows, the top level of :meth:`full_output_schema`
        (None when the tool has no structured result)."""
        output = self._tools[name].output
        return None if output is None else published_output_schema(output)

    def full_output_schema(self, name: str) -> dict[str, Any] | None:
        """The whole JSON Schema of a tool's structured result, derived from its ``output`` class."""
        output = self._tools[name].output
        return None if output is None else output_schema_of(output)

    def call(
        self,
        name: str,
        arguments: Mapping[str, Any],
        params_meta: Mapping[str, Any] | None,
        *,
        workspace: Path,
        cancelled: threading.Event | None = None,
        progress: Callable[[float, float | None, str], None] | None = None,
    ) -> ToolOutput:
        """Run one call. Bad arguments and :class:`ToolError` become ``is_error`` answers; any
        other exception propagates (the driver answers it as an internal error).

        An error message may quote any argument, wherever it was written (a tool, the index's
        queries): its control characters are escaped here, once for every message (INV-TOOL-7)."""
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            return _error(f"Unknown tool `{name}`. Tools: {known}.")
        try:
            args, meta = parse_args(tool.args, arguments, params_meta)
        except ArgumentError as exc:
            return _error(f"Invalid arguments for `{name}`: {exc}")
        context = CallContext(workspace, meta, cancelled if cancelled is not None else threading.Event())
        if progress is not None:
            context = attrs.evolve(context, progress=progress)
        try:
            output = tool.run(args, context)
        except ToolError as exc:
            output = ToolOutput(str(exc), is_error=True)
        if isinstance(output, str):
            output = ToolOutput(output)
        output = _structured(tool, output)
        text = escape_controls(output.text) if output.is_error else output.text
        bounded = bound_markdown(text, TOOL_TEXT_BYTES_MAX)
        if bounded.text != output.text:
            output = attrs.evolve(output, text=bounded.text, truncated=bounded.truncated)
        return output


def _structured(tool: Tool, output: ToolOutput) -> ToolOutput:
    """``output`` with its structured result as JSON. A tool with an ``output`` class answers every
    success with an instance of that class (the schema's promise to the client, MCP 2025-06-18: a
    tool with an output schema MUST give structured results that conform to it); an error may carry
    none, as the SDK clients expect (they validate only successful results)."""
    structured = output.structured
    if tool.output is not None and not output.is_error and not isinstance(structured, tool.output):
        raise TypeError(f"tool {tool.name!r} answered without its structured result ({tool.output.__name__})")
    if structured is not None and attrs.has(type(structured)):
        return attrs.evolve(output, structured=as_json(structured))
    return output


def _error(text: str) -> ToolOutput:
    """An ``is_error`` answer of the registry's own: control characters escaped, bounded."""
    bounded = bound_markdown(escape_controls(text), TOOL_TEXT_BYTES_MAX)
    return ToolOutput(bounded.text, is_error=True, truncated=bounded.truncated)
