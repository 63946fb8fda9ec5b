"""Text search over a snapshot: the same lines a plain scan finds, ranked, filtered, never lost."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mesh.index import Index
from mesh.index.query._search import Found, SearchError, search
from mesh.index.store._trigrams import Query

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    built = Index(FIXTURE, tmp_path_factory.mktemp("cache"))
    built.refresh()
    return built


def run(index: Index, query: str, **options) -> Found:
    with index.store.snapshot() as db:
        return search(db, query, **options)


def scan(index: Index, pattern: str, flags: int = 0) -> list[tuple[str, int]]:
    """What a plain scan of every indexed file finds: the oracle."""
    with index.store.snapshot() as db:
        paths = [path for (path,) in db.execute("SELECT path FROM files f JOIN content c ON c.file_id = f.id")]
    compiled = re.compile(pattern, flags)
    found = []
    for path in paths:
        text = (FIXTURE / path).read_text(encoding="utf-8", errors="replace")
        found += [(path, n) for n, line in enumerate(text.split("\n"), 1) if compiled.search(line)]
    return sorted(found)


@pytest.mark.parametrize(
    ("query", "regex", "case_sensitive"),
    [
        ("GetOrder", False, False),
        ("GetOrder", False, True),
        ("getorder", False, True),
        ("acme.orders.v1", False, False),
        ("go", False, False),  # under three characters: every file is a candidate
        (r"def \w+Order\(", True, True),
        (r"^import (os|grpc)$", True, False),
        (r"(Reserve|Release)\(", True, True),
        (r"rpc \w+ \(", True, False),
    ],
)
def test_search_finds_exactly_what_a_scan_finds(index: Index, query: str, regex: bool, case_sensitive: bool) -> None:
    pattern = query if regex else re.escape(query)
    expected = scan(index, pattern, 0 if case_sensitive else re.IGNORECASE)
    for root in (None, FIXTURE):  # the stored text, and the files on disk (unchanged since indexed)
        found = run(index, query, regex=regex, case_sensitive=case_sensitive, root=root)
        assert sorted((m.path, m.line) for m in found.matches) == expected
        assert found.files == len({path for path, _ in expected})
        assert not found.capped


def test_definitions_come_first_then_code_before_tests_and_docs(index: Index) -> None:
    found = run(index, "GetOrder", case_sensitive=True)
    first = found.matches[0]
    assert (first.path, first.line, first.definition) == ("orders/orders/service.py", 22, "method")
    ranks = [m.rank() for m in found.matches]
    assert ranks == sorted(ranks)
    kinds = [m.kind for m in found.matches if not m.definition]
    assert kinds.index("code") < kinds.index("docs")
    assert all(m.text.strip() for m in found.matches)


def test_filters_narrow_before_reading(index: Index) -> None:
    assert {m.service for m in run(index, "Orders", services=("gateway",)).matches} == {"gateway"}
    assert {m.kind for m in run(index, "Orders", kind="docs").matches} == {"docs"}
    assert {m.path.split("/")[0] for m in run(index, "Orders", path_prefix="proto/").matches} == {"proto"}
    assert {m.path.rsplit(".", 1)[1] for m in run(index, "Orders", path_glob="*.proto").matches} == {"proto"}
    assert {m.language for m in run(index, "Orders", language="typescript").matches} == {"typescript"}
    assert run(index, "Orders", services=("nobody",)).matches == ()


def test_a_pattern_with_no_literal_reads_every_candidate_under_the_filters(index: Index) -> None:
    found = run(index, ".*", regex=True, path_prefix="docs")
    lines = sum(len((FIXTURE / p).read_text().split("\n")) for p in ("docs/architecture.md", "docs/runbook.md"))
    assert len(found.matches) == lines


def test_reading_stops_at_the_cap_and_says_so(index: Index) -> None:
    found = run(index, "e", max_matches=5)
    assert len(found.matches) == 5 and found.capped


@pytest.mark.parametrize(("query", "message"), [("(unclosed", "invalid regular expression: missing )"), ("", "empty")])
def test_a_bad_query_is_an_error_that_says_why(index: Index, query: str, message: str) -> None:
    with pytest.raises(SearchError, match=re.escape(message)):
        run(index, query, regex=True)


def test_a_file_changed_on_disk_is_read_from_the_snapshot_not_from_disk(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "ws"
    shutil.copytree(FIXTURE / "orders", root / "orders")
    index = Index(root, tmp_path / "cache")
    index.refresh()
    target = root / "orders" / "orders" / "store.py"
    before = run(index, "class OrderStore", root=root)
    assert [(m.path, m.line) for m in before.matches] == [("orders/orders/store.py", 16)]
    target.write_text(target.read_text().replace("class OrderStore", "class Renamed"))
    after = run(index, "class OrderStore", root=root)  # not refreshed: the snapshot still says so
    assert after.matches == before.matches
    index.refresh()
    assert run(index, "class OrderStore", root=root).matches == ()
    assert [m.line for m in run(index, "class Renamed", root=root).matches] == [16]



def test_a_query_holding_a_nul_is_answered(index: Index) -> None:
    """The index keeps a NUL as U+FFFD (FTS5 would stop reading there), and a literal holding one
    asks for that: never a string SQLite cuts short ("unterminated string"), which failed the call."""
    assert run(index, "00\x00").matches == ()
    assert run(index, "def \x00reserve").matches == ()
    assert Query("and", ("ab\x00c",)).fts5(phrases=True) == '"ab\ufffdc"'


@pytest.mark.parametrize(
    "options",
    [{"services": ("orders",)}, {"language": "python"}, {"kind": "code"}, {"path_prefix": "orders"}, {}],
)
def test_the_text_index_drives_every_filtered_search(index: Index, options: dict) -> None:
    """The text index is asked once, and each file it gives checked against the filters: never
    asked again for each file of a service or a language (their indexes may tempt the planner),
    which cost 20 s at 100,000 files."""
    statements: list[str] = []
    with index.store.snapshot() as db:
        db.set_trace_callback(statements.append)
        try:
            search(db, "reserve order", **options)
        finally:
            db.set_trace_callback(None)
        plans = [detail for statement in statements if "MATCH" in statement
                 for *_, detail in db.execute("EXPLAIN QUERY PLAN " + statement)]  # fmt: skip
    assert plans and any("VIRTUAL TABLE" in detail for detail in plans), plans
    assert not [detail for detail in plans if "VIRTUAL TABLE INDEX 0:=" in detail], plans


def test_every_join_of_the_text_index_lets_it_drive() -> None:
    """The same, for every query of the code: a join with the text index is a CROSS JOIN (SQLite
    keeps its order), so no file's index can make the planner ask the text index file by file."""
    mesh = Path(__file__).resolve().parents[2] / "mesh"
    joined = [
        f"{path.relative_to(mesh)}:{number}"
        for path in sorted(mesh.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\btext\s+(?:LEFT\s+|INNER\s+)?JOIN\b", line) or re.search(r"\bJOIN\s+text\b", line)
    ]
    assert not joined, joined
