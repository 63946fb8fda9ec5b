"""Definitions by name, qualified name or ``path:line``, and the outline of a file or a folder.

A symbol is named three ways: a bare name (``place_order``), a qualified one whose parts are its
containers and, where the containers run out, its module or path (``OrderService.place_order``,
``orders.service.OrderService.place_order``, ``pkg.Store.Reserve``, ``Acme::Orders::Cart#add``), or
a ``path:line`` inside a definition (the innermost one holding the line). Matches are ranked: a name
of the same case first, then the parts of the qualified name met by containers, then code before
tests, then path and line; :func:`nearest_names` answers a name nothing defines.
"""

from __future__ import annotations

import difflib
import re
import sqlite3
from collections.abc import Iterable
from typing import Final

import attrs

from ..store._store import read_definition_text
from ._names import names_like

__all__ = [
    "COLUMNS",
    "FileOutline",
    "ImportRow",
    "SymbolRow",
    "enclosing",
    "file_outline",
    "find_symbols",
    "folder_outline",
    "nearest_names",
    "rows_of",
    "split_symbol",
]

#: Separators of a qualified name: ``.``, ``::``, ``#`` (Ruby's instance methods), ``\`` (PHP), ``/``.
_PARTS: Final = re.compile(r"::|->|[.#\\/]")
_PATH_LINE: Final = re.compile(r"^(?P<path>[^:]+):(?P<line>\d{1,9})$")
#: Kinds that hold members.
TYPE_KINDS: Final = frozenset({"class", "struct", "interface", "enum", "trait", "module", "type", "message", "service"})

#: The columns :func:`rows_of` reads, in order.
COLUMNS: Final = (
    "d.file_id, f.path, f.service, f.language, f.kind, d.name, d.kind, d.container, d.line, d.end_line, d.ordinal"
)


@attrs.frozen
class SymbolRow:
    file_id: int
    path: str
    service: str
    language: str
    #: The file's kind: code, test, doc...
    file_kind: str
    name: str
    kind: str
    container: str
    line: int
    end_line: int
    signature: str
    doc: str

    @property
    def qualified(self) -> str:
        return f"{self.container}.{self.name}" if self.container else self.name

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def rows_of(db: sqlite3.Connection, selected: Iterable[tuple], *, text: bool = True) -> list[SymbolRow]:
    """Definitions from rows of :data:`COLUMNS`, with their signature and doc line (read from the
    file's ``def_text``, once a file) unless ``text`` is false."""
    texts: dict[int, list[list[str]]] = {}
    out = []
    for *values, ordinal in selected:
        signature = doc = ""
        if text:
            file_id = values[0]
            if file_id not in texts:
                found = db.execute("SELECT data FROM def_text WHERE file_id = ?", (file_id,)).fetchone()
                texts[file_id] = read_definition_text(found[0]) if found is not None else []
            if ordinal < len(texts[file_id]):
                signature, doc = texts[file_id][ordinal]
        out.append(SymbolRow(*values, signature, doc))
    return out


def split_symbol(text: str) -> tuple[str, tuple[str, ...]]:
    """``(name, qualifiers outermost first)`` of a bare or qualified name."""
    parts = [part for part in _PARTS.split(text.strip()) if part]
    if not parts:
        return "", ()
    return parts[-1], tuple(parts[:-1])


def find_symbols(
    db: sqlite3.Connection, text: str, *, scope_sql: str = "", scope_params: tuple = (), texts: int | None = None
) -> list[SymbolRow]:
    """Every definition ``text`` may name, best first (empty: nothing is named so); with ``texts``,
    only the first that many carry their signature and doc line (a common name has thousands of
    definitions, and an answer shows a few)."""
    text = text.strip()
    located = _PATH_LINE.match(text)
    if located is not None:
        row = enclosing(db, located["path"], int(located["line"]))
        return [row] if row is not None else []
    name, qualifiers = split_symbol(text)
    if not name:
        return []
    selected = db.execute(
        f"SELECT {COLUMNS} FROM defs d JOIN files f ON f.id = d.file_id WHERE d.name = ? COLLATE NOCASE{scope_sql}",
        (name, *scope_params),
    ).fetchall()
    rows = rows_of(db, selected, text=False)
    order = [index for index in range(len(rows)) if not qualifiers or _qualified_by(rows[index], qualifiers)]
    order.sort(key=lambda index: _rank(rows[index], name, qualifiers))
    shown = order if texts is None else order[:texts]
    return [*rows_of(db, [selected[index] for index in shown]), *(rows[index] for index in order[len(shown) :])]


def _qualified_by(row: SymbolRow, qualifiers: tuple[str, ...]) -> bool:
    """Whether the containers of ``row``, then its module path, end with ``qualifiers``."""
    chain = [part for part in _PARTS.split(row.container) if part]
    module = [part for part in re.split(r"[/.]", row.path.rsplit(".", 1)[0]) if part]
    full = [*module, *chain] if chain[:1] != module[-1:] else [*module[:-1], *chain]
    wanted = [part.casefold() for part in qualifiers]
    for candidate in (chain, full, [*module, *chain]):
        folded = [part.casefold() for part in candidate]
        if len(folded) >= len(wanted) and folded[len(folded) - len(wanted) :] == wanted:
            return True
    return False


def _rank(row: SymbolRow, name: str, qualifiers: tuple[str, ...]) -> tuple:
    return (
        row.name != name,
        bool(qualifiers) and not row.container.endswith(qualifiers[-1]),
        row.file_kind != "code",
        row.kind not in TYPE_KINDS and row.kind not in ("function", "method"),
        row.path,
        row.line,
    )


def enclosing(db: sqlite3.Connection, path: str, line: int) -> SymbolRow | None:
    """The innermost definition of ``path`` holding ``line`` (None: no file, or no definition)."""
    found = rows_of(
        db,
        db.execute(
            f"SELECT {COLUMNS} FROM defs d JOIN files f ON f.id = d.file_id"
            " WHERE f.path = ? AND d.line <= ? AND d.end_line >= ? ORDER BY d.line DESC, d.end_line ASC LIMIT 1",
            (path, line, line),
        ),
    )
    return found[0] if found else None


def nearest_names(db: sqlite3.Connection, text: str, limit: int = 5) -> list[str]:
    """Defined names closest to the last part of ``text`` (a typo, another case, a longer name)."""
    name, _ = split_symbol(text)
    if len(name) < 2:
        return []
    folded = name.casefold()
    pool: list[str] = []
    for part in dict.fromkeys((name[:3], name[-3:])):
        pool += names_like(db, part, 2000)
    by_folded: dict[str, str] = {}
    for candidate in pool:
        by_folded.setdefault(candidate.casefold(), candidate)
    close = difflib.get_close_matches(folded, sorted(by_folded), n=limit, cutoff=0.6)
    holding = sorted((key for key in by_folded if folded in key and key not in close), key=lambda key: (len(key), key))
    return [by_folded[key] for key in [*close, *holding][:limit]]


# -- outlines ----------------------------------------------------------------------------------------


@attrs.frozen
class ImportRow:
    module: str
    line: int
    names: tuple[str, ...]
    #: The workspace file it resolves to ("" when it is outside the workspace or unknown).
    target_path: str
    target_service: str


@attrs.frozen
class FileOutline:
    path: str
    service: str
    language: str
    lines: int
    size: int
    definitions: tuple[SymbolRow, ...]
    imports: tuple[ImportRow, ...]
    error: str


def file_outline(db: sqlite3.Connection, path: str) -> FileOutline | None:
    """The definitions (document order) and imports of one indexed file (None: not indexed)."""
    found = db.execute("SELECT id, service, language, lines, size, error FROM files WHERE path = ?", (path,)).fetchone()
    if found is None:
        return None
    file_id, service, language, lines, size, error = found
    definitions = tuple(
        rows_of(
            db,
            db.execute(
                f"SELECT {COLUMNS} FROM defs d JOIN files f ON f.id = d.file_id WHERE d.file_id = ?"
                " ORDER BY d.line, d.end_line DESC, d.name",
                (file_id,),
            ),
        )
    )
    imports = tuple(
        ImportRow(module, line, tuple(name for name in names.split(",") if name), target or "", target_service or "")
        for module, line, names, target, target_service in db.execute(
            "SELECT module, line, names, target_path, target_service FROM imports WHERE file_id = ? ORDER BY line, module",
            (file_id,),
        )
    )
    return FileOutline(path, service, language, lines, size, definitions, imports, error)


def folder_outline(db: sqlite3.Connection, prefix: str) -> list[tuple[str, str, str, int, list[SymbolRow]]]:
    """``(path, service, language, lines, top-level definitions)`` of every indexed file under ``prefix``."""
    like = re.sub(r"([%_\\])", r"\\\1", prefix.rstrip("/")) + "/%" if prefix else "%"
    files = db.execute(
        "SELECT id, path, service, language, lines FROM files WHERE path LIKE ? ESCAPE '\\' ORDER BY path", (like,)
    ).fetchall()
    tops: dict[int, list[SymbolRow]] = {}
    if files:
        selected = db.execute(
            f"SELECT {COLUMNS} FROM defs d JOIN files f ON f.id = d.file_id"
            " WHERE f.path LIKE ? ESCAPE '\\' AND d.container = '' ORDER BY d.file_id, d.line, d.name",
            (like,),
        )
        for row in rows_of(db, selected, text=False):
            tops.setdefault(row.file_id, []).append(row)
    return [(path, service, language, lines, tops.get(file_id, [])) for file_id, path, service, language, lines in files]
