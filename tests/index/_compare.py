"""Every fact of an index in a form comparable across builds (row ids left out, file ids as paths)."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesh.index import Index
from mesh.index.build import _resolve
from mesh.index.store._store import _FACT_TABLES, _NAMES_TABLES

#: The tables of what the manifests and the walk say of the workspace (no file ids).
_WORKSPACE_TABLES = ("services", "areas", "externals", "workspace_warnings", "wiring", "hosts", "skipped")


def count_file_tables(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one each time the resolver reads every path into its file tables
    (``_resolve._Files`` built from the index), from now on in this test, in this thread (not in a
    thread another test left running in the same worker)."""
    built: list[int] = []
    tables = _resolve._Files
    mine = threading.get_ident()

    class Counted(tables):  # type: ignore[misc,valid-type]
        def __init__(self, db) -> None:
            if threading.get_ident() == mine:
                built.append(1)
            super().__init__(db)

    monkeypatch.setattr(_resolve, "_Files", Counted)
    return built


def facts_by_path(index: Index) -> dict[str, list[tuple]]:
    """Every fact table's rows, file ids written as paths, row ids left out: comparable across builds."""
    out: dict[str, list[tuple]] = {}
    with index.store.snapshot() as db:
        paths = dict(db.execute("SELECT id, path FROM files"))
        out["files"] = sorted(db.execute("SELECT path, service, language, kind, lines, error, hash, size FROM files"))
        out["refs"] = sorted((name, paths[file_id], sites) for name, file_id, sites in db.execute("SELECT * FROM refs"))
        for table in _WORKSPACE_TABLES:  # what the manifests say: services, wiring...
            out[table] = sorted(db.execute(f"SELECT * FROM {table}"), key=repr)
        for table in _FACT_TABLES:
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            keep = [at for at, name in enumerate(columns) if name == "file_id" or not (name == "id" or name.endswith("_id"))]
            found = []
            for row in db.execute(f"SELECT * FROM {table}"):
                found.append(tuple(paths.get(row[at]) if columns[at] == "file_id" else row[at] for at in keep))
            out[table] = sorted(found, key=repr)
    out["def_names"], out["def_names_text"] = names_kept(index.store.path)
    return out


def names_kept(path: Path) -> tuple[list[tuple], list[tuple]]:
    """The index's definition names (name, files defining it) and what its trigram index of them
    holds (each trigram with the number of names holding it, through ``fts5vocab``), both checked
    against their definition: the names and counts ``defs`` gives, and the trigrams an index made
    afresh of those names holds."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        names = sorted(connection.execute("SELECT name, files FROM def_names"))
        assert names == sorted(connection.execute("SELECT name, count(DISTINCT file_id) FROM defs GROUP BY name"))
        held = _vocabulary(connection)
    finally:
        connection.close()
    afresh = sqlite3.connect(":memory:")
    try:
        for statement in _NAMES_TABLES:
            afresh.execute(statement)
        afresh.executemany("INSERT INTO def_names VALUES (NULL, ?, ?)", names)
        afresh.execute("INSERT INTO def_names_text(def_names_text) VALUES ('rebuild')")
        assert held == _vocabulary(afresh)
    finally:
        afresh.close()
    return names, held


def _vocabulary(connection: sqlite3.Connection, schema: str = "main") -> list[tuple]:
    connection.execute(f"CREATE VIRTUAL TABLE temp.vocabulary USING fts5vocab({schema}, 'def_names_text', 'row')")
    return sorted(connection.execute("SELECT term, doc FROM temp.vocabulary"))


@contextlib.contextmanager
def prepared_index(root: Path, cache: Path, files: dict[str, str]) -> Iterator[Index]:
    """``files`` written at ``root``, indexed (one worker) and ready for edits (its resolver tables
    built), as a server holds it; closed at the end."""
    from .test_grpc_derivation import write

    write(root, files)
    index = Index(root, cache, workers=1)
    try:
        index.refresh()
        index.prepare_edits()
        yield index
    finally:
        index.close()


def assert_as_from_scratch(index: Index, cache: Path, label: object = None) -> None:
    """The facts of ``index`` are those of a build from scratch of its workspace (into ``cache``)."""
    fresh = Index(index.root, cache, workers=1)
    try:
        fresh.refresh()
        assert facts_by_path(index) == facts_by_path(fresh), label
    finally:
        fresh.close()


def counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A list of the paths the index's discovery reads from disk from here on, in order."""
    from mesh.index.build import _build

    read: list[str] = []
    real = _build.disk_reader

    def counted(where: Path):
        disk = real(where)
        return lambda path: read.append(path) or disk(path)

    monkeypatch.setattr(_build, "disk_reader", counted)
    return read


def put(root: Path, path: str, text: str | None) -> None:
    """Write ``text`` at ``path`` under ``root`` (its folders made), or with None remove the file."""
    target = root / path
    if text is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    elif target.is_file():
        target.unlink()
