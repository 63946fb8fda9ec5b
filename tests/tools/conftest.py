"""Shared by the tool tests: one index of the fixture workspace, views on it, golden answers.

Golden answers live in ``tests/tools/golden/<tool>/<case>.md``. They were reviewed by eye once;
after that a test compares bytes. ``MESH_UPDATE_GOLDEN=1 pytest tests/tools`` rewrites them (then
read the diff before committing it).
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mesh.index import Index
from mesh.tools._view import View

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"
GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.fixture(scope="session")
def fixture_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    """The fixture workspace, indexed once per test process (read-only: do not refresh it)."""
    index = Index(FIXTURE, tmp_path_factory.mktemp("fixture-index"), workers=1)
    summary = index.refresh()
    assert summary.failures == ()
    yield index
    index.close()


@pytest.fixture
def view(fixture_index: Index) -> Iterator[View]:
    """A view of the fixture index: one snapshot, for the whole test."""
    with fixture_index.store.snapshot() as db:
        yield View(db, fixture_index.root)


@contextmanager
def view_of(index: Index) -> Iterator[View]:
    """A view of any index (for tests that build their own workspace)."""
    with index.store.snapshot() as db:
        yield View(db, index.root)


def assert_golden(tool: str, case: str, text: str) -> None:
    """``text`` must equal ``golden/<tool>/<case>.md`` byte for byte."""
    path = GOLDEN / tool / f"{case}.md"
    if os.environ.get("MESH_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden answer {path}; run with MESH_UPDATE_GOLDEN=1 and review it"
    assert text == path.read_text(encoding="utf-8"), f"answer differs from {path}"


def file_scans(db: sqlite3.Connection, call: Callable[[], object]) -> tuple[object, list[str]]:
    """``call()``'s result, and the plan lines of every statement it ran on ``db`` that scan the
    ``files`` table other than through a partial index of a few of them (``files_error``) or a
    language's (``files_language_path``): a call whose cost must not grow with the workspace."""
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    try:
        result = call()
    finally:
        db.set_trace_callback(None)
    scans = [
        detail
        for statement in dict.fromkeys(statements)
        if "FROM files" in statement and statement.lstrip().upper().startswith("SELECT")
        for *_, detail in db.execute("EXPLAIN QUERY PLAN " + statement)
        if re.match(r"SCAN f(iles)?\b", detail) and not re.search(r"INDEX (files_error|files_language_path)\b", detail)
    ]
    return result, scans
