"""``outline``: a file's definitions as a tree (signature, doc line, lines) and its imports as
resolved; a folder's files with their top-level definitions. Paged like every answer."""

from __future__ import annotations

from typing import Final

import attrs

from ..index.query._symbols import file_outline, folder_outline
from ..render._navigation import OutlineResult, compose_file_outline, compose_folder_outline
from ..render._paging import Rendered, call_text, code
from ._args import describe
from ._registry import ToolError
from ._view import CURSOR_CHARS_MAX, View, arguments_of, cursor_offset, workspace_path

__all__ = ["DESCRIPTION", "NAME", "TITLE", "Args", "Result", "answer", "run"]

NAME: Final = "outline"
TITLE: Final = "Outline of a file or folder"
DESCRIPTION: Final = (
    "A file's definitions as a tree (kind, signature, first doc line, lines) and its imports resolved to "
    "files and services; for a folder, its files with their top-level definitions."
)
Result = OutlineResult


@attrs.frozen(kw_only=True)
class Args:
    path: str = attrs.field(metadata=describe("A file or folder", min_length=1, max_length=1000))
    depth: int = attrs.field(default=2, metadata=describe("Nesting levels shown", minimum=1, maximum=6))
    cursor: str | None = attrs.field(
        default=None, metadata=describe("Next page", max_length=CURSOR_CHARS_MAX)
    )


def answer(args: Args, view: View) -> str:
    return run(args, view).text


def run(args: Args, view: View) -> Rendered:
    path = workspace_path(view.root, args.path)
    arguments = arguments_of(args)
    outline = file_outline(view.db, path) if path else None
    if outline is not None:
        total = len(outline.definitions) + len(outline.imports)
        offset = cursor_offset(args.cursor, total, tool=NAME, args=args, noun="entries")
        return compose_file_outline(outline, args.depth, arguments, tool=NAME, offset=offset)
    files = folder_outline(view.db, path)
    if not files:
        skipped = view.db.execute("SELECT reason FROM skipped WHERE path = ?", (path,)).fetchone()
        if skipped is not None:
            raise ToolError(f"{code(path)} is not indexed: {skipped[0]}.")
        raise ToolError(
            f"No indexed file is {code(path)} or under it. Find paths with {call_text('files', {'pattern': path})}."
        )
    offset = cursor_offset(args.cursor, len(files), tool=NAME, args=args, noun="files")
    return compose_folder_outline(path, files, arguments, tool=NAME, offset=offset)
