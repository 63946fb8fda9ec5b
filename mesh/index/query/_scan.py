"""Search by reading the workspace's files: what ``smart_search`` answers before the first snapshot.

Theory of operation
-------------------
The caller walks the workspace with the walk's own rules (ignore files, vendored and generated
trees, secret-looking names, the size cap) and hands over the files it listed, with the size and
mtime it saw, and what it left out. Each file in scope (path prefix, glob, language, kind: the
filters of :func:`mesh.index.query._search.search`, by path alone since there is no index) is read
without following a link out of the workspace and only while it is still as the walk saw it;
its head is checked the way the parse worker checks it (``skip_content``: secrets, generated
markers), and a file holding a NUL byte is binary. Lines are matched by the same pattern and
needles as the index's search, and ranked the same way, less what only the index knows: no line
is known to define a symbol, no service owns a file.

Reading is bounded (INV-SCAN-1): it stops past ``files_max`` files, ``bytes_max`` bytes,
``max_matches`` matches or the ``deadline`` on the caller's ``clock`` (this module reads none), and
says where it stopped; a cancelled call stops too.
"""

from __future__ import annotations

import fnmatch
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Final

import attrs

from .._files import read_if_unchanged
from ..parse import language_of
from ..parse._kinds import kind_of
from ._search import (
    _REASONS,
    EXAMPLES_MAX,
    LEFT_OUT_REASONS,
    MAX_MATCHES,
    Found,
    LeftOut,
    Match,
    NotSearched,
    SearchError,
    _lines,
    _regex_lines,
    compile_query,
)

__all__ = ["SCAN_BYTES_MAX", "SCAN_FILES_MAX", "Scanned", "scan", "scan_left_out"]

#: Reading stops past this many files or bytes (INV-SCAN-1).
SCAN_FILES_MAX: Final = 50_000
SCAN_BYTES_MAX: Final = 64 << 20
#: Bytes of a file's head checked for secrets and generated markers (the walk's own sizes are smaller).
_HEAD_BYTES: Final = 16 << 10


@attrs.frozen
class Scanned:
    """What a scan found, and how much of its scope it read."""

    found: Found
    #: Files in scope whose text was searched.
    files_read: int
    #: Files the walk listed in scope.
    files_in_scope: int
    #: Why reading stopped before the end of the scope ("" when it did not).
    stopped: str = ""
    #: Files in scope skipped for what their first bytes hold (secrets, generated), or being binary.
    skipped_content: int = 0
    #: Whether the scope was listed to its end (``files_in_scope`` is its size); a scan stopped
    #: early by its bounds stops listing too (the files are listed as they are read).
    listed_all: bool = True


def _in_scope(path: str, prefix: str, glob: str, language: str, kind: str) -> bool:
    if prefix and path != prefix and not path.startswith(prefix + "/"):
        return False
    if glob and not fnmatch.fnmatchcase(path, glob):
        return False
    lang = language_of(path) or ""
    if language and lang not in (language, "tsx" if language == "typescript" else language):
        return False
    return not kind or kind_of(path, lang) == kind


def scan(
    root: Path,
    files: Iterable[tuple[str, int, int]],
    query: str,
    *,
    regex: bool = False,
    case_sensitive: bool = False,
    path_prefix: str = "",
    path_glob: str = "",
    language: str = "",
    kind: str = "",
    skip_content: Callable[[str, bytes], str | None] = lambda _path, _head: None,
    max_matches: int = MAX_MATCHES,
    files_max: int = SCAN_FILES_MAX,
    bytes_max: int = SCAN_BYTES_MAX,
    clock: Callable[[], float] | None = None,
    deadline: float | None = None,
    cancelled: threading.Event | None = None,
) -> Scanned:
    """Every line of ``files`` (``(path, size, mtime_ns)`` as the walk lists them, read in that
    order as they come) that matches ``query``, ranked as :func:`~mesh.index.query._search.search` ranks; see the module docstring.
    Raises :class:`SearchError` for a query that cannot run, or when ``cancelled``."""
    if not query:
        raise SearchError("the query is empty")
    pattern, formula = compile_query(query, regex=regex, case_sensitive=case_sensitive)
    needles = formula.needles()
    prefix = path_prefix.strip("/")
    in_scope = (entry for entry in files if _in_scope(entry[0], prefix, path_glob, language, kind))
    if needles == ():
        return Scanned(Found((), 0, False), 0, sum(1 for _ in in_scope))
    matches: list[Match] = []
    read = files_matched = read_bytes = skipped = listed = 0
    stopped = ""
    capped = False
    for path, size, mtime_ns in in_scope:
        listed += 1
        if cancelled is not None and cancelled.is_set():
            raise SearchError("the search was cancelled")
        if read >= files_max:
            stopped = f"after {files_max:,} files"
        elif read_bytes + size > bytes_max:
            stopped = f"after {read_bytes:,} bytes (at most {bytes_max:,} are read)"
        elif clock is not None and deadline is not None and clock() >= deadline:
            stopped = "at its time limit"
        if stopped:
            break
        data = read_if_unchanged(root, path, size, mtime_ns)
        if data is None:
            continue  # changed or gone since the walk: the walk's view of it is stale
        read += 1
        read_bytes += len(data)
        if b"\0" in data or skip_content(path, data[:_HEAD_BYTES]):
            skipped += 1
            continue
        text = data.decode("utf-8", "replace")
        lines = _regex_lines(text, pattern) if regex else _lines(text, pattern, needles)
        if not lines:
            continue
        files_matched += 1
        lang = language_of(path) or ""
        file_kind = kind_of(path, lang)
        for number, line in lines:
            matches.append(Match(path, number, line, "", lang, file_kind))
            if len(matches) >= max_matches:
                capped = True
                break
        if capped:
            break
    matches.sort(key=Match.rank)
    if stopped:
        listed -= 1  # the file that stopped it is not read, and the listing stops with it
    return Scanned(
        Found(tuple(matches), files_matched, capped or bool(stopped)), read, listed, stopped, skipped,
        listed_all=not stopped and not capped,
    )  # fmt: skip


def scan_left_out(
    skipped: Sequence[tuple[str, str, bool]], *, path_prefix: str = "", path_glob: str = ""
) -> NotSearched:
    """What the walk left out in scope (``(path, reason, folder)`` as it said), by reason, as
    :func:`~mesh.index.query._search.not_searched` reports it for the index (generated files
    are not read to count their matches: the scan has no snapshot to compare them with)."""
    prefix = path_prefix.strip("/")
    found: dict[str, list[tuple[str, bool]]] = {}
    details: dict[str, str] = {}
    for path, raw_reason, folder in skipped:
        reason = next((mine for said, mine in _REASONS if raw_reason.startswith(said)), None)
        if reason is None:
            continue
        if prefix and path != prefix and not path.startswith(prefix + "/") and not prefix.startswith(path + "/"):
            continue
        if path_glob and not folder and not fnmatch.fnmatchcase(path, path_glob):
            continue
        found.setdefault(reason, []).append((path, folder))
        if reason == "too large":
            details[reason] = raw_reason
    left_out = []
    for reason in LEFT_OUT_REASONS:
        paths = sorted(found.get(reason, ()))
        if not paths:
            continue
        folders = sum(1 for _, is_folder in paths if is_folder)
        examples = () if reason == "secrets" else tuple(path for path, _ in paths[:EXAMPLES_MAX])
        left_out.append(LeftOut(reason, len(paths) - folders, folders, examples, details.get(reason, "")))
    return NotSearched(tuple(left_out))
