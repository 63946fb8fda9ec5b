"""What a code-intelligence tool reads, and the checks every tool shares.

A built-in tool is a pure function ``answer(args, view) -> str`` (Markdown) that raises
:class:`ToolError` for anything an agent can act on. ``view.db`` is a connection inside one read
transaction of the workspace index (one whole snapshot), ``view.root`` the workspace folder.
Nothing else: no clock, no environment, so the same index and arguments give the same bytes.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path, PurePosixPath
from typing import Any, Final

import attrs

from ..render._paging import call_text, code
from ._registry import ToolError

__all__ = ["CURSOR_CHARS_MAX", "View", "arguments_of", "cursor_offset", "workspace_path"]

#: The longest cursor any answer prints (``section:123456789``, an offset of a few digits); every
#: tool's ``cursor`` argument declares it, and no decoder converts more digits than this.
CURSOR_CHARS_MAX: Final = 20


@attrs.frozen
class View:
    #: A connection inside one read transaction of the index.
    db: sqlite3.Connection
    #: The workspace folder (resolved).
    root: Path
    #: Set when the call was cancelled: a long answer may stop early (with ToolError).
    cancelled: threading.Event = attrs.field(factory=threading.Event)


def arguments_of(args: Any) -> dict[str, Any]:
    """The call's arguments as an agent would send them again: fields that differ from their default.

    For the follow-up calls a footer prints (``call_text``); keys are the ``Args`` field names.
    """
    out: dict[str, Any] = {}
    for field in attrs.fields(type(args)):
        value = getattr(args, field.name)
        if field.default is attrs.NOTHING or value != field.default:
            out[field.name] = list(value) if isinstance(value, tuple) else value
    return out


def workspace_path(root: Path, text: str, *, what: str = "path") -> str:
    """``text`` as a path relative to the workspace (POSIX, no ``./``), or a :class:`ToolError`.

    Accepts a relative path, or an absolute one inside ``root``. Refuses ``..`` that leaves the
    workspace, absolute paths outside it and symlinks whose target is outside it. The empty path
    and ``.`` are the workspace itself (``""``). The path need not exist. A refusal names the path
    as given and the workspace-relative link it goes through, never where the link leads
    (INV-TOOL-3: ``/proc/<pid>/environ`` is nobody's business).
    """
    raw = text.strip()
    if "\0" in raw:
        raise ToolError(f"The {what} {raw!r} contains a NUL byte; give a path inside the workspace.")
    path = Path(raw) if raw else Path(".")
    if path.is_absolute():
        try:
            path = path.relative_to(root)
        except ValueError:
            raise ToolError(
                f"The {what} `{raw}` is outside the workspace; give a path relative to the workspace folder."
            ) from None
    parts: list[str] = []
    for part in PurePosixPath(path.as_posix()).parts:
        if part == "..":
            if not parts:
                raise ToolError(f"The {what} `{raw}` leaves the workspace (`..`); give a path inside it.")
            parts.pop()
        elif part != ".":
            parts.append(part)
    relative = "/".join(parts)
    if relative and not _inside(root, root / relative):
        link = _link_out(root, parts)
        raise ToolError(
            f"The {what} {code(raw)} leads through a symlink to what {code(link)} points at, outside the "
            "workspace; give a path whose target is inside it."
        )
    return relative


def _inside(root: Path, path: Path | str) -> bool:
    """Whether ``path``, every symlink followed, is ``root`` or under it (``root`` is resolved)."""
    real = os.path.realpath(path)
    return real == str(root) or real.startswith(str(root) + os.sep)


def _link_out(root: Path, parts: list[str]) -> str:
    """The first prefix of ``parts`` (workspace-relative) that leads out of ``root``."""
    for end in range(1, len(parts) + 1):
        if not _inside(root, root.joinpath(*parts[:end])):
            return "/".join(parts[:end])
    return "/".join(parts)


def cursor_offset(cursor: str | None, total: int, *, tool: str, args: Any, noun: str) -> int:
    """How many results the pages before this one showed, from a cursor an answer printed.

    Cursors are offsets in the answer's deterministic order. A cursor no answer could have printed,
    or one past the last of ``total`` (stale, after the index changed), is a :class:`ToolError`
    with the call for the first page.
    """
    if cursor is None or cursor == "":
        return 0
    restart = call_text(tool, {name: value for name, value in arguments_of(args).items() if name != "cursor"})
    # Bounded before int(): no answer prints more digits, and int() refuses past 4,300 of them.
    if len(cursor) > CURSOR_CHARS_MAX or not (cursor.isascii() and cursor.isdigit()):
        shown = cursor if len(cursor) <= CURSOR_CHARS_MAX else cursor[:CURSOR_CHARS_MAX] + "…"
        raise ToolError(f"The cursor {code(shown)} is not one this tool gave; start from the first page: {restart}.")
    offset = int(cursor)
    if offset and offset >= total:
        raise ToolError(
            f"The cursor {code(cursor)} is past the last of {total} {noun}; start from the first page: {restart}."
        )
    return offset
