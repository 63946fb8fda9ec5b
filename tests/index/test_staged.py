"""A staged first build: the text of every file committed first, then the facts (INV-INDEX-10).

A server's index (``Index(staged=True)``) builds a workspace it has never indexed in two
snapshots: ``meta.stage`` ``text`` (every file stored and searchable, no facts), then ``full``.
The facts of a staged build are those of a build in one go; a build stopped between the stages
goes on from the text snapshot; tools read the text snapshot only where text is enough.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from mesh.index import Index, Progress
from mesh.index.build import _build
from mesh.index.query._search import search
from mesh.tools import builtin_registry

from ._compare import facts_by_path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"


@pytest.fixture(autouse=True)
def small_stages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_build, "STAGED_MIN", 10)  # the fixture's 59 files are staged


def stage_of(db: sqlite3.Connection) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = 'stage'").fetchone()
    return row[0] if row else None


def test_inv_index_10_the_text_is_committed_first_then_the_same_facts_as_one_build(tmp_path: Path) -> None:
    """INV-INDEX-10: while the facts are parsed, a reader sees the text snapshot: every file,
    searchable, no facts; at the end, the facts of a build made in one go."""
    staged = Index(FIXTURE, tmp_path / "staged", workers=2, staged=True)
    phases: list[str] = []
    seen: dict[str, Any] = {}

    def progress(step: Progress) -> None:
        if not phases or phases[-1] != step.phase:
            phases.append(step.phase)
        if step.phase == "parsing" and "stage" not in seen:
            with staged.store.snapshot() as db:  # another connection: the last committed snapshot
                seen["stage"] = stage_of(db)
                seen["files"] = db.execute("SELECT count(*) FROM files").fetchone()[0]
                seen["defs"] = db.execute("SELECT count(*) FROM defs").fetchone()[0]
                seen["refs"] = db.execute("SELECT count(*) FROM refs").fetchone()[0]
                seen["hits"] = len(search(db, "Reserve").matches)

    summary = staged.refresh(progress=progress)
    assert phases[:3] == ["walking", "reading", "parsing"]
    assert seen["stage"] == "text" and seen["files"] == summary.files == 59
    assert seen["defs"] == 0 and seen["refs"] == 0 and seen["hits"] > 0
    with staged.store.snapshot() as db:
        assert stage_of(db) == "full"
    whole = Index(FIXTURE, tmp_path / "whole", workers=2)
    whole.refresh()
    assert facts_by_path(staged) == facts_by_path(whole)
    assert summary.symbols == whole.summary().symbols > 0
    # A refresh after it is an ordinary one: nothing read again.
    again = staged.refresh()
    assert again.parsed == 0 and again.unchanged == 59
    staged.close()
    whole.close()


def test_inv_index_10_a_build_stopped_between_the_stages_goes_on_from_the_text(tmp_path: Path) -> None:
    """INV-INDEX-10: stopped while parsing, the text snapshot stays; the next refresh parses from
    it, and only the files that changed meanwhile are read for their text again."""
    cache = tmp_path / "cache"
    first = Index(FIXTURE, cache, workers=2, staged=True)

    class Stop(Exception):
        pass

    def stop_at_parsing(step: Progress) -> None:
        if step.phase == "parsing" and step.done > 0:
            raise Stop

    with pytest.raises(Stop):
        first.refresh(progress=stop_at_parsing)
    with first.store.snapshot() as db:
        assert stage_of(db) == "text" and db.execute("SELECT count(*) FROM defs").fetchone()[0] == 0
    first.close()
    resumed = Index(FIXTURE, cache, workers=2, staged=True)
    phases: list[str] = []
    summary = resumed.refresh(progress=lambda step: phases.append(step.phase))
    assert "reading" not in phases  # the text is there: straight to the facts
    assert summary.parsed == 59
    whole = Index(FIXTURE, tmp_path / "whole", workers=2)
    whole.refresh()
    assert facts_by_path(resumed) == facts_by_path(whole)
    resumed.close()
    whole.close()


def test_a_small_or_unstaged_build_is_one_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_build, "STAGED_MIN", 1000)
    phases: list[str] = []
    index = Index(FIXTURE, tmp_path / "small", workers=2, staged=True)
    index.refresh(progress=lambda step: phases.append(step.phase))
    assert "reading" not in phases
    index.close()


class TextSnapshot:
    """A source whose snapshot is a text stage, as a server's index is between the stages."""

    root = FIXTURE

    def __init__(self, index: Index) -> None:
        self.index = index
        self.progress = Progress("parsing", 12, 59)

    @contextmanager
    def snapshot(self) -> Iterator[Any]:
        with self.index.store.snapshot() as db:
            yield db


@pytest.fixture
def text_stage(tmp_path: Path) -> Iterator[Index]:
    index = Index(FIXTURE, tmp_path / "cache", workers=2, staged=True)

    def stop_at_parsing(step: Progress) -> None:
        if step.phase == "parsing":
            raise KeyboardInterrupt  # not an Exception: the refresh does not take it for damage

    with pytest.raises(KeyboardInterrupt):
        index.refresh(progress=stop_at_parsing)
    yield index
    index.close()


def call(source: Any, name: str, arguments: dict[str, Any]) -> Any:
    return builtin_registry(source, wait_s=0).call(name, arguments, None, workspace=FIXTURE)


def test_inv_index_10_search_reads_the_text_snapshot_and_says_so(text_stage: Index) -> None:
    output = call(TextSnapshot(text_stage), "smart_search", {"query": "Reserve", "mode": "literal"})
    assert output.text.startswith("_Answered from the text index: definitions and links are still being extracted"
                                  " (12 of 59 files parsed)")  # fmt: skip
    assert output.structured["matches"], output.text
    assert all(match["definition"] == "" for match in output.structured["matches"])  # no facts yet
    listed = call(TextSnapshot(text_stage), "files", {"pattern": "*.proto"})
    assert ".proto" in listed.text


@pytest.mark.parametrize(
    ("name", "arguments"),
    [("dependents", {"target": "orders"}), ("smart_search", {"query": "Reserve", "mode": "symbol"}),
     ("grpc_trace", {"target": "Orders"}), ("outline", {"path": "orders/app.py"})],
)  # fmt: skip
def test_inv_index_10_tools_needing_facts_wait_for_them(text_stage: Index, name: str, arguments: dict) -> None:
    """INV-INDEX-10: the wait for the facts is the wait for a first snapshot (INV-FIRST-1): the
    build's progress, then "still indexing"."""
    output = call(TextSnapshot(text_stage), name, arguments)
    assert output.is_error
    assert output.text == "Still indexing the workspace: 12 of 59 files parsed. Try again in a few seconds."
