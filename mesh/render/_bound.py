"""Bound a Markdown answer to a byte budget without leaving it broken.

The cut falls on a line boundary (inside a line only when a single line is longer than the whole
budget, and then never inside a UTF-8 sequence), an open code fence is closed, and a last line says
what was cut, so an agent knows it saw a part and how large the whole was.
"""

from __future__ import annotations

import re
from typing import Final

import attrs

__all__ = ["TOOL_TEXT_BYTES_MAX", "Bounded", "bound_markdown"]

#: Every tool's final text is at most this many bytes of UTF-8.
TOOL_TEXT_BYTES_MAX: Final = 48 * 1024

# CommonMark: up to three spaces of indent, then three or more backticks or tildes.
_FENCE: Final = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_NOTE_BYTES_MAX: Final = 200


@attrs.frozen
class Bounded:
    text: str
    truncated: bool
    #: Size of the text before the cut, in bytes of UTF-8.
    original_bytes: int


def bound_markdown(text: str, limit: int = TOOL_TEXT_BYTES_MAX, hint: str = "") -> Bounded:
    """Return ``text`` unchanged if it fits in ``limit`` bytes, else a cut that fits.

    ``hint`` (one short line, e.g. a narrower call to make) is added to the note after a cut.
    """
    encoded = text.encode("utf-8")
    if len(encoded) <= limit:
        return Bounded(text, truncated=False, original_bytes=len(encoded))
    hint = " ".join(hint.split())
    hint_bytes = len(hint.encode("utf-8"))
    if hint_bytes > limit // 4:
        hint, hint_bytes = "", 0
    budget = limit - _NOTE_BYTES_MAX - hint_bytes
    if budget < 64:
        raise ValueError(f"limit of {limit} bytes leaves no room for text")
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    used = 0
    fence: str | None = None
    for line in lines:
        size = len(line.encode("utf-8"))
        closing = _closing_fence_bytes(fence, line)
        if used + size + closing > budget:
            break
        kept.append(line)
        used += size
        fence = _track_fence(fence, line)
    if not kept:
        # A first line longer than the whole budget: keep the part that fits.
        head = encoded[: budget // 2].decode("utf-8", errors="ignore")
        kept, used, fence = [head], len(head.encode("utf-8")), _track_fence(None, head)
    body = "".join(kept)
    if not body.endswith("\n"):
        body += "\n"
    if fence is not None:
        body += fence + "\n"
    shown_lines = len(kept)
    note = f"\n_Truncated: showed {used:,} of {len(encoded):,} bytes ({shown_lines:,} of {len(lines):,} lines)._"
    if hint:
        note += f" {hint}"
    result = body + note + "\n"
    assert len(result.encode("utf-8")) <= limit
    return Bounded(result, truncated=True, original_bytes=len(encoded))


def _track_fence(fence: str | None, line: str) -> str | None:
    """The fence that is open after ``line``, given the one open before it."""
    match = _FENCE.match(line.rstrip("\r\n"))
    if match is None:
        return fence
    marker, info = match.groups()
    if fence is None:
        if marker[0] == "`" and "`" in info:
            return None  # a backtick fence's info string may not contain a backtick
        return marker
    if marker[0] == fence[0] and len(marker) >= len(fence) and not info.strip():
        return None
    return fence


def _closing_fence_bytes(fence: str | None, line: str) -> int:
    """Bytes to reserve for closing the fence that would be open after keeping ``line``."""
    after = _track_fence(fence, line)
    return 0 if after is None else len(after) + 1
