"""Every fact of an index in a form comparable across builds (row ids left out, file ids as paths)."""

from __future__ import annotations

import threading

import pytest

from mesh.index import Index
from mesh.index.build import _resolve
from mesh.index.store._store import _FACT_TABLES


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
        for table in _FACT_TABLES:
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            keep = [at for at, name in enumerate(columns) if name == "file_id" or not (name == "id" or name.endswith("_id"))]
            found = []
            for row in db.execute(f"SELECT * FROM {table}"):
                found.append(tuple(paths.get(row[at]) if columns[at] == "file_id" else row[at] for at in keep))
            out[table] = sorted(found, key=repr)
    return out
