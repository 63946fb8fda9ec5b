"""A first build's bulk load (``Writer.cold_load``): the fact tables' secondary indexes made after
the load and a larger page cache change how the rows are written, never which rows or indexes the
index holds, and a build that fails or is killed mid-load leaves no index missing."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mesh.index import Index
from mesh.index.store._store import COLD_CACHE_KIB, Writer

from ._compare import facts_by_path
from .test_build import KILLER, ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "workspace"


def schema(index: Index) -> list[tuple]:
    """Every table, index and trigger as ``sqlite_master`` names it (rootpages left out)."""
    with index.store.snapshot() as db:
        return sorted(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"), key=repr)


def secondary(index: Index) -> list[str]:
    return [name for kind, name, _, sql in schema(index) if kind == "index" and sql is not None]


def cache_size(index: Index) -> int:
    return index.store.writer_connection().execute("PRAGMA cache_size").fetchone()[0]


@pytest.fixture(scope="module")
def per_row(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, list[tuple]]:
    """The fixture built with every row inserted into its indexes as it comes (no cold load)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Writer, "cold_load", lambda self, on: None)
        index = Index(FIXTURE, tmp_path_factory.mktemp("per-row"), workers=2)
        index.refresh()
        try:
            return facts_by_path(index), schema(index)
        finally:
            index.close()


def test_a_cold_load_gives_the_rows_and_indexes_of_the_per_row_path(
    per_row: tuple[dict, list[tuple]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[bool] = []
    cold_load = Writer.cold_load

    def spied(self: Writer, on: bool) -> None:
        calls.append(on)
        if not on:  # the load's end: its indexes are gone, its cache large
            with_indexes = {name for name, _ in self._dropped}
            assert with_indexes and not with_indexes & {
                row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
            }
            assert self.db.execute("PRAGMA cache_size").fetchone()[0] == -COLD_CACHE_KIB
        cold_load(self, on)

    monkeypatch.setattr(Writer, "cold_load", spied)
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    index = Index(root, tmp_path / "cache", workers=2)
    default_cache = cache_size(index)
    index.refresh()
    assert calls == [True, False]  # the cold path was taken
    facts, tables = per_row
    assert facts_by_path(index) == facts
    assert schema(index) == tables
    assert {"defs_name", "imports_target_file"} <= set(secondary(index))  # made again, as they were
    assert cache_size(index) == default_cache
    calls.clear()
    for i in range(40):  # a refresh of a built index, of more files than are parsed inline
        (root / f"cold_load_{i}.py").write_text(f"def fresh_{i}():\n    return {i}\n")
    assert index.refresh().parsed == 40
    assert calls == []  # not a cold load
    index.close()


def test_a_cold_load_that_fails_midway_leaves_every_index_and_no_file(
    per_row: tuple[dict, list[tuple]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-INDEX-1: the drop of the indexes is rolled back with the rest of the failed build."""
    put = Writer.put
    written: list[int] = []

    def failing(self: Writer, record, body: str) -> int:
        if len(written) == 20:
            raise RuntimeError("planted failure mid-load")
        written.append(1)
        return put(self, record, body)

    monkeypatch.setattr(Writer, "put", failing)
    index = Index(FIXTURE, tmp_path / "cache", workers=2)
    default_cache = cache_size(index)
    with pytest.raises(RuntimeError, match="planted"):
        index.refresh()
    assert len(written) == 20
    assert schema(index) == per_row[1]
    assert cache_size(index) == default_cache
    with index.store.snapshot() as db:
        assert db.execute("SELECT count(*) FROM files").fetchone() == (0,)
    monkeypatch.setattr(Writer, "put", put)
    index.refresh()
    assert facts_by_path(index) == per_row[0]
    index.close()


def test_kill_9_mid_cold_load_leaves_every_index_and_the_next_build_goes_on(
    per_row: tuple[dict, list[tuple]], tmp_path: Path
) -> None:
    """INV-INDEX-2."""
    cache = tmp_path / "cache"
    script = tmp_path / "killer.py"
    script.write_text(textwrap.dedent(KILLER))
    done = subprocess.run([sys.executable, str(script), str(FIXTURE), str(cache), "20"], check=False, cwd=ROOT,
                          timeout=120)  # fmt: skip
    assert done.returncode == -signal.SIGKILL
    index = Index(FIXTURE, cache, workers=2)
    assert schema(index) == per_row[1]
    with index.store.snapshot() as db:
        assert db.execute("SELECT count(*) FROM files").fetchone() == (0,)
    index.refresh()
    assert facts_by_path(index) == per_row[0]
    index.close()
