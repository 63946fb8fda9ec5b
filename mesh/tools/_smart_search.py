"""``smart_search``: text, regular-expression and symbol search over the workspace index.

Modes: ``literal`` (a substring), ``regex`` (RE2: linear time, no back-references), ``symbol``
(definitions by name: exact, then prefix, then substring) and ``auto`` (the default): a query
written ``/like this/`` is a regular expression, anything else a literal. In every text mode the
lines defining a symbol the query matches come first, then code, protos, tests, config and docs.

``scope`` is a service name, a glob (``*``, ``?``, ``[``) over workspace paths, or a path prefix
inside the workspace. A service name that is also the name of another folder (a service ``src``
beside a folder ``src/``) reads as the service, and ``src/`` as the folder; the answer says which
reading it took and gives the call for the other. The cursor is the offset of the next page in
the ranked list. A text search reads its candidate files only as far as the page needs (the
definitions first, then the others in rank order) and says how many it has not read yet, with
an estimate of the total (INV-SEARCH-3); a later page reads further.

Every answer also says what it could not read in its scope: files and folders left out of the
index (generated, vendored, secret-looking, too large, binary...), with the lines generated files
would have matched and the ``mesh.toml`` setting that lets them in.

Before the first snapshot exists, :func:`scan` answers a text search by reading the files the walk
lists (``mesh/index/query/_scan.py``): same filters, ranking and paging, bounded in files, bytes
and time, and the answer says so. A symbol search, or a scope naming a service, needs the index.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from collections.abc import Iterator
from typing import Final, Literal

import attrs

from ..index.query._scan import Scanned, scan_left_out
from ..index.query._scan import scan as scan_files
from ..index.query._search import (
    Ranked,
    SearchError,
    file_text,
    left_out_under,
    not_searched,
    ranked,
    symbols,
    text_lines,
)
from ..render._paging import Rendered
from ..render._search import ScopeReading, SearchResult, compose_search
from ._args import describe
from ._dependents import wanted_offset
from ._registry import ToolError
from ._view import CURSOR_CHARS_MAX, View, arguments_of, cursor_offset, workspace_path

__all__ = ["DESCRIPTION", "NAME", "TITLE", "Args", "Result", "answer", "run", "scan"]

NAME: Final = "smart_search"
TITLE: Final = "Search the workspace"
DESCRIPTION: Final = (
    "Search code, tests, protos and docs: literal, regex (/re/) or symbol names. Definitions rank first; "
    "matches by file with line and enclosing definition."
)
_GLOB_CHARS: Final = frozenset("*?[")
#: The structured result (``outputSchema``): the same page as the Markdown.
Result = SearchResult
#: How long a scan before the first snapshot reads files (the walk before it is not counted).
SCAN_S_MAX: Final = 2.0


@attrs.frozen(kw_only=True)
class Args:
    query: str = attrs.field(metadata=describe("What to look for", min_length=1, max_length=1000))
    mode: Literal["auto", "literal", "regex", "symbol"] = attrs.field(
        default="auto",
        metadata=describe("auto: /re/ is a regex, else literal"),
    )
    scope: str | None = attrs.field(
        default=None,
        metadata=describe("Service, path prefix or glob", max_length=1000),
    )
    language: str | None = attrs.field(
        default=None, metadata=describe("e.g. go", max_length=100)
    )
    kind: Literal["code", "test", "docs", "proto", "config"] | None = attrs.field(
        default=None, metadata=describe("File kind")
    )
    case_sensitive: bool = attrs.field(default=False, metadata=describe("Match case exactly"))
    context: int = attrs.field(default=0, metadata=describe("Lines around each match", minimum=0, maximum=5))
    cursor: str | None = attrs.field(
        default=None, metadata=describe("Next page", max_length=CURSOR_CHARS_MAX)
    )


def answer(args: Args, view: View) -> str:
    """The Markdown of :func:`run`."""
    return run(args, view).text


def text_stage(args: Args) -> bool:
    """A snapshot of the text alone answers every search but a symbol search (INV-INDEX-10)."""
    return args.mode != "symbol"


def run(args: Args, view: View) -> Rendered:
    """One page of matches, as Markdown and as a :class:`Result`; :class:`ToolError` for failures."""
    query, regex = args.query, args.mode == "regex"
    if args.mode == "auto" and len(query) > 2 and query.startswith("/") and query.endswith("/"):
        query, regex = query[1:-1], True
    services, prefix, glob, reading = _scope(view, args.scope)
    language = _language(view, args.language)
    filters = {
        "services": services,
        "path_prefix": prefix,
        "path_glob": glob,
        "language": language,
        "kind": args.kind or "",
    }
    try:
        if args.mode == "symbol":
            found = symbols(view.db, query, case_sensitive=args.case_sensitive, **filters)
        else:
            found = ranked(
                view.db,
                query,
                regex=regex,
                case_sensitive=args.case_sensitive,
                root=view.root,
                cancelled=view.cancelled,
                **filters,
            )
        # In symbol mode generated files are searched for the name as text: they have no definitions.
        left = not_searched(
            view.db,
            query,
            regex=regex,
            case_sensitive=args.case_sensitive,
            root=view.root,
            cancelled=view.cancelled,
            **filters,
        )
    except SearchError as exc:
        hint = " Escape it, or use mode literal." if regex else ""
        raise ToolError(f"Cannot search for `{query}`: {exc}.{hint}") from None
    if isinstance(found, Ranked):  # read as far as the cursor: is there a match there?
        wanted = wanted_offset(args.cursor)
        known = wanted + 1 if found.at(wanted) is not None else len(found.found().matches)
    else:
        known = len(found.matches)
    offset = cursor_offset(args.cursor, known, tool=NAME, args=args, noun="matches")
    return compose_search(
        found, arguments_of(args), offset=offset, symbols=args.mode == "symbol", not_searched=left, scope=reading,
        context=args.context, read_lines=lambda path: _lines(view, path),
    )  # fmt: skip


def _lines(view: View, path: str) -> list[str] | None:
    """The lines of an indexed file as of the snapshot (None: no text kept)."""
    row = view.db.execute("SELECT id, size, mtime_ns FROM files WHERE path = ?", (path,)).fetchone()
    if row is None:
        return None
    text = file_text(view.db, view.root, row[0], path, row[1], row[2])
    return None if text is None else text_lines(text)


def _scope(view: View, scope: str | None) -> tuple[tuple[str, ...], str, str, ScopeReading | None]:
    """(services, path prefix, glob, how a two-way scope was read) for a scope argument."""
    if scope is None or not scope.strip():
        return (), "", "", None
    scope = scope.strip()
    services = dict(view.db.execute("SELECT name, path FROM services ORDER BY name").fetchall())
    if scope in services:
        folder = scope.strip("/")
        if services[scope] != folder and _indexed_under(view, folder):
            return (scope,), "", "", ScopeReading(scope, "service", services[scope], folder + "/")
        return (scope,), "", "", None
    if _GLOB_CHARS & set(scope):
        if scope.startswith("/") or ".." in scope.split("/"):
            raise ToolError(f"The glob `{scope}` must be relative to the workspace, without `..`.")
        return (), "", scope, None
    relative = workspace_path(view.root, scope, what="scope")
    if not relative:
        return (), "", "", None
    if not _indexed_under(view, relative) and not left_out_under(view.db, relative):
        listed = ", ".join(f"`{name}`" for name in services) or "none"
        raise ToolError(
            f"No indexed file is under `{relative}`. A scope is a service ({listed}), a path prefix or a glob."
        )
    if relative in services and services[relative] != relative:
        return (), relative, "", ScopeReading(scope, "folder", services[relative], relative)
    return (), relative, "", None


def _indexed_under(view: View, relative: str) -> bool:
    """Whether an indexed file is ``relative`` or under it."""
    hit = view.db.execute(
        "SELECT 1 FROM files WHERE path = ? OR (path >= ? AND path < ?) LIMIT 1",
        (relative, relative + "/", relative + "0"),
    ).fetchone()
    return hit is not None


def _language(view: View, language: str | None) -> str:
    if not language:
        return ""
    wanted = language.strip().lower()
    known = [row[0] for row in view.db.execute("SELECT DISTINCT language FROM files WHERE language != '' ORDER BY 1")]
    if wanted not in known and not any(item.files for item in not_searched(view.db, language=wanted).left_out):
        listed = ", ".join(f"`{name}`" for name in known) or "none"
        raise ToolError(f"No indexed file is in the language `{language}`. Languages here: {listed}.")
    return wanted


def scan(
    args: Args, root: Path, cancelled: threading.Event, *, until: float | None = None, building: str = ""
) -> Rendered | None:
    """:func:`run` without an index, by reading the files as the walk lists them (see the module
    docstring), until ``until`` (``time.monotonic()``; else :data:`SCAN_S_MAX` from now); None when
    the question needs the index (a symbol search). :class:`ToolError` for a bad query or scope.
    ``building`` says how far the index's build got, for the answer's first line."""
    if args.mode == "symbol":
        return None
    from ..index.build._enumerate import FileEntry, generated_marker, iter_walk, secret_signature
    from ..index.build._workspace import Config, ConfigError, ignore_patterns, load_config

    started = time.monotonic()
    deadline = until if until is not None else started + SCAN_S_MAX
    query, regex = args.query, args.mode == "regex"
    if args.mode == "auto" and len(query) > 2 and query.startswith("/") and query.endswith("/"):
        query, regex = query[1:-1], True
    prefix = glob = ""
    scope = (args.scope or "").strip()
    if scope and _GLOB_CHARS & set(scope):
        if scope.startswith("/") or ".." in scope.split("/"):
            raise ToolError(f"The glob `{scope}` must be relative to the workspace, without `..`.")
        glob = scope
    elif scope:
        prefix = workspace_path(root, scope, what="scope")
    try:
        config = load_config(root)
    except ConfigError:
        config = Config()  # the index build reports the broken mesh.toml; the scan keeps the defaults
    walked = iter_walk(
        root,
        max_file_bytes=config.max_file_bytes,
        include_vendored=config.include_vendored,
        include_secrets=config.include_secrets,
        extra_ignores=ignore_patterns(config.ignore, config.services or ()),
    )
    left_out: list[tuple[str, str, bool]] = []

    def listed() -> Iterator[tuple[str, int, int]]:
        for item in walked:
            if isinstance(item, FileEntry):
                yield item.path, item.size, item.mtime_ns
            else:
                left_out.append((item.path, item.reason, item.folder))

    def skip_content(path: str, head: bytes) -> str | None:
        if not config.include_secrets and secret_signature(head):
            return "may hold secrets"
        if not config.include_vendored and generated_marker(path, head):
            return "generated"
        return None

    try:
        scanned = scan_files(
            root,
            listed(),
            query,
            regex=regex,
            case_sensitive=args.case_sensitive,
            path_prefix=prefix,
            path_glob=glob,
            language=(args.language or "").strip().lower(),
            kind=args.kind or "",
            skip_content=skip_content,
            clock=time.monotonic,
            deadline=deadline,
            cancelled=cancelled,
        )
    except SearchError as exc:
        hint = " Escape it, or use mode literal." if regex else ""
        raise ToolError(f"Cannot search for `{query}`: {exc}.{hint}") from None
    if prefix and not scanned.files_in_scope:
        raise ToolError(
            f"No file is under `{prefix}`. The index is still being built: until it is, a scope is a path"
            " prefix or a glob (a service name needs the index). Try again in a few seconds."
        )
    left = scan_left_out(left_out, path_prefix=prefix, path_glob=glob)
    offset = cursor_offset(args.cursor, len(scanned.found.matches), tool=NAME, args=args, noun="matches")
    rendered = compose_search(scanned.found, arguments_of(args), offset=offset, not_searched=left)
    return attrs.evolve(rendered, text=f"{scan_note(scanned, building)}\n\n{rendered.text}")


def scan_note(scanned: Scanned, building: str = "") -> str:
    """The line a scanned answer starts with: how it was answered, where reading stopped, and how
    far the index's build got (``building``)."""
    read = scanned.files_read
    note = f"_Answered by scanning {read:,} file{'s' if read != 1 else ''}: the index is still being built"
    if building:
        note += f" ({building})"
    if scanned.stopped and scanned.listed_all:
        note += f"; reading stopped {scanned.stopped}, {scanned.files_in_scope - read:,} not read"
    elif scanned.stopped:
        note += f"; reading stopped {scanned.stopped}, before the rest of the workspace"
    return note + ". Definitions are not ranked first until it is built; call again then for a whole answer._"
