"""``mesh-mcp call TOOL '{"arg": ...}' [--json]``: run one tool from a terminal and print its answer.

The index is refreshed first (only changed files are parsed; progress on stderr when it is a
terminal), then the tool runs exactly as it would for an agent: same registry, same arguments
check, same bound on the answer, and a row in the audit log (session ``cli-<pid>``). Exit 0 for an answer, 1 for an ``isError`` answer or an index
that cannot be used, 2 for bad input (arguments that are not a JSON object, an unknown tool).

``--json`` prints the structured result instead of the Markdown (what a client of 2025-06-18 or
later gets as ``structuredContent``): one canonical JSON document (sorted keys, no insignificant
white space, UTF-8, a newline at the end), in which the control characters an argument may carry
(DEL, C1 controls, bidi overrides and isolates; C0 controls are escaped by JSON itself) are written
as ``\\uXXXX`` escapes, so a terminal shows them inert and a parser reads back the very value
(INV-TOOL-10). An ``isError`` answer carries no structured result: stdout stays empty, the message
goes to stderr, exit 1 as without ``--json``. A tool that gives no structured result (a plugin's)
is a usage error: exit 2.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import orjson

from ._common import open_index, refresh_index
from ..audit import AuditLog, AuditRow, canonical_digest
from ..index.build._live import StaticIndex
from ..render._paging import escape_controls
from ..tools import Registry, ToolOutput

__all__ = ["canonical_json", "run_call"]

log = logging.getLogger("mesh.cli")


def run_call(
    tool: str,
    arguments: str,
    root: Path,
    *,
    registry_for: Callable[[StaticIndex], Registry],
    stdout: TextIO,
    stderr: TextIO,
    audit: AuditLog | None = None,
    json_output: bool = False,
) -> int:
    """The ``call`` command; ``registry_for(source)`` builds the registry the server would use.

    ``json_output``: print the structured result as :func:`canonical_json` instead of the Markdown."""
    try:
        parsed = orjson.loads(arguments)
    except orjson.JSONDecodeError as exc:
        stderr.write(
            f'mesh-mcp call: the arguments are not JSON ({exc}); give an object such as \'{{"query": "x"}}\'\n'
        )
        return 2
    if not isinstance(parsed, dict):
        stderr.write('mesh-mcp call: the arguments must be a JSON object such as \'{"query": "x"}\'\n')
        return 2
    index = open_index(root, "call", stderr)
    if index is None:
        return 1
    try:
        registry: Registry = registry_for(StaticIndex(index))
        if tool not in registry:
            stderr.write(f"mesh-mcp call: no tool named {tool!r}; tools: {', '.join(t.name for t in registry)}\n")
            return 2
        code = refresh_index(index, "call", stderr, stale="answering from the last snapshot")
        if code:
            return code
        when, started = (audit.now(), time.monotonic()) if audit is not None else ("", 0.0)
        try:
            output = registry.call(tool, parsed, None, workspace=root)
        except Exception as exc:  # a crashed tool: say so, as the server would (-32603)
            log.exception("tool %s crashed", tool)
            output = None
            crash = f"{type(exc).__name__}: {exc}"
        if audit is not None:
            audit.record(
                AuditRow(
                    time=when,
                    session=f"cli-{os.getpid()}",
                    tool=tool,
                    args_digest=canonical_digest(parsed),
                    outcome="crash" if output is None else "tool_error" if output.is_error else "ok",
                    duration_ms=round((time.monotonic() - started) * 1000, 3),
                    result_bytes=0 if output is None else len(output.text.encode("utf-8", "surrogatepass")),
                    truncated=False if output is None else output.truncated,
                    trace_id=None,
                )
            )
    finally:
        index.close()
    if output is None:
        stderr.write(f"mesh-mcp call: the tool {tool} crashed ({crash}); see the log above\n")
        return 1
    if json_output:
        return _print_json(tool, output, stdout, stderr)
    stdout.write(output.text if output.text.endswith("\n") else output.text + "\n")
    if output.truncated:
        stderr.write("mesh-mcp call: the answer was cut to the 48 KB bound\n")
    return 1 if output.is_error else 0


def _print_json(tool: str, output: ToolOutput, stdout: TextIO, stderr: TextIO) -> int:
    if output.is_error:
        text = output.text if output.text.endswith("\n") else output.text + "\n"
        stderr.write(f"mesh-mcp call: {tool} answered an error, with no structured result:\n{text}")
        return 1
    if output.structured is None:
        stderr.write(f"mesh-mcp call: the tool {tool} gives no structured result; call it without --json\n")
        return 2
    stdout.write(canonical_json(output.structured))
    return 0


def canonical_json(value: Any) -> str:
    """``value`` as one canonical JSON document and a newline: sorted keys, no insignificant white
    space, UTF-8; DEL, C1 controls and bidi controls as ``\\uXXXX`` (JSON escapes C0 itself), which
    decode to the same value. The same value gives the same text."""
    return escape_controls(orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")) + "\n"
