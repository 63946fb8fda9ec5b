"""``mesh-mcp audit [DIR]``: the workspace's most recent tool calls, newest first.

The table (or, with ``--json``, a list of objects keyed as :class:`mesh.audit.AuditRow`) goes to
stdout; notes (no log yet, nothing matches, more rows than shown) go to stderr. Exit codes: 0 when
the rows were shown, also when no call was audited yet (a fresh workspace is not an error, and
``--json`` then prints ``[]``); 1 when the log exists but cannot be read; 2 for bad input.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Final, TextIO

import attrs
import orjson

from ._common import workspace_of
from ..audit import DB_NAME, AuditRow, AuditUnavailable, read_recent
from ..workspace import cache_dir

__all__ = ["render_table", "run_audit"]

_TRACE_ID: Final = re.compile(r"[0-9a-f]{32}")
#: Sessions are shown by their first characters (``--json`` has them whole).
SESSION_CHARS: Final = 8
#: (header, right-aligned)
_HEADERS: Final = (
    ("time", False), ("session", False), ("tool", False), ("outcome", False), ("ms", True), ("bytes", True),
    ("truncated", False), ("trace id", False),
)  # fmt: skip


def run_audit(
    directory: Path | None,
    *,
    limit: int,
    tool: str | None,
    trace_id: str | None,
    as_json: bool,
    stdout: TextIO,
    stderr: TextIO,
) -> int:
    """The ``audit`` command; returns the exit code (0 shown, 1 the log cannot be read, 2 bad input)."""
    if limit < 1:
        stderr.write("mesh-mcp audit: --limit must be at least 1\n")
        return 2
    if trace_id is not None and not _TRACE_ID.fullmatch(trace_id):
        stderr.write(
            f"mesh-mcp audit: --trace-id {trace_id!r}: a trace id is 32 lowercase hex digits"
            " (the second field of a traceparent: 00-<trace id>-<parent id>-<flags>)\n"
        )
        return 2
    root = workspace_of(directory, "audit", stderr)
    if root is None:
        return 2
    folder = cache_dir(root)
    try:
        rows = read_recent(folder, limit=limit + 1, tool=tool, trace_id=trace_id)  # one more: are there more?
    except AuditUnavailable as exc:
        stderr.write(f"mesh-mcp audit: {exc}\n")
        return 1
    if rows is None:
        stderr.write(f"mesh-mcp audit: no audit log yet at {folder / DB_NAME}; it is written when a tool is called\n")
        if as_json:
            stdout.write("[]\n")
        return 0
    more = len(rows) > limit
    rows = rows[:limit]
    if as_json:
        stdout.write(orjson.dumps([attrs.asdict(row) for row in rows], option=orjson.OPT_INDENT_2).decode())
        stdout.write("\n")
    elif rows:
        stdout.write(render_table(rows))
    if not rows:
        filtered = tool is not None or trace_id is not None
        stderr.write(f"mesh-mcp audit: {'no call matches' if filtered else 'no call recorded'} in {folder / DB_NAME}\n")
    elif more:
        stderr.write(f"mesh-mcp audit: the {limit} most recent shown; a larger --limit shows more\n")
    return 0


def render_table(rows: Sequence[AuditRow]) -> str:
    """Rows as a fixed-width table, one line each, in the order given, under a header line."""
    cells = [
        (
            row.time,
            _printable(row.session[:SESSION_CHARS]),
            _printable(row.tool),
            row.outcome,
            f"{row.duration_ms:.1f}",
            str(row.result_bytes),
            "yes" if row.truncated else "no",
            row.trace_id or "-",
        )
        for row in rows
    ]
    header = tuple(name for name, _ in _HEADERS)
    widths = [max(len(line[column]) for line in (header, *cells)) for column in range(len(_HEADERS))]
    lines = [
        "  ".join(
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, (_, right) in zip(line, widths, _HEADERS, strict=True)
        ).rstrip()
        for line in (header, *cells)
    ]
    return "\n".join(lines) + "\n"


def _printable(text: str) -> str:
    """Control characters would break the columns (or the terminal): shown as ``?``."""
    return text if text.isprintable() else "".join(char if char.isprintable() else "?" for char in text)
