"""References on the navigation fixture (``tests/fixtures/navigation``): eleven small programs holding
what makes references hard (shadowing, one method name on two classes, re-exports, aliases,
overloads, dynamic dispatch), against facts written by reading that code (``EXPECTED.toml``).

INV-NAV-1 is asserted whole: no site the facts say means something else is ever resolved to the
definition. Recall is measured per language and held to the floor it reaches today, so a change
that loses references shows; ``python -m tests.index.test_navigation_fixture`` prints the table.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from mesh.index import Index
from mesh.index.query._references import find_references
from mesh.index.query._symbols import find_symbols

FIXTURE: Final = Path(__file__).resolve().parents[1] / "fixtures" / "navigation"
EXPECTED: Final = tomllib.loads((FIXTURE / "EXPECTED.toml").read_text(encoding="utf-8"))["symbol"]
#: Recall of the resolved references each language reaches on the fixture (a floor, not a target:
#: the targets are measured on real code, docs/accuracy.md).
RECALL_FLOOR: Final[dict[str, float]] = {
    "cpp": 1.0, "csharp": 0.91, "go": 0.95, "java": 1.0, "javascript": 0.77, "kotlin": 1.0, "php": 0.91,
    "python": 0.85, "ruby": 0.96, "rust": 0.96, "typescript": 0.96,
}  # fmt: skip
#: A definition's line may be its annotations' (Java, C#) or its ``template<>``'s (C++).
DEFINITION_SLACK: Final = 3
#: Expected definitions the index does not keep, and why.
NOT_INDEXED: Final = {
    "csharp/Program.cs:22": "an instance field: definitions have no kind for a variable",
}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    index = Index(FIXTURE, tmp_path_factory.mktemp("navigation-index"), workers=1)
    index.refresh()
    with index.store.snapshot() as snapshot:
        yield snapshot
    index.close()


def sites_of(db: Any, symbol: dict[str, Any]) -> tuple[set[str], set[str]] | None:
    """(resolved, by name) ``path:line`` sites of the expected definition (None: not found)."""
    path, _, line = symbol["definition"].rpartition(":")
    rows = [row for row in find_symbols(db, symbol["name"]) if row.path == path and row.name == symbol["name"]]
    if not rows:
        return None
    row = min(rows, key=lambda row: (abs(row.line - int(line)), row.line))
    if abs(row.line - int(line)) > DEFINITION_SLACK:
        return None
    sites = find_references(db, row)
    return ({f"{s.path}:{s.line}" for s in sites if s.resolved}, {f"{s.path}:{s.line}" for s in sites if not s.resolved})


#: The expected definitions the index keeps (those of ``NOT_INDEXED`` have no references to judge).
INDEXED: Final = [symbol for symbol in EXPECTED if symbol["definition"] not in NOT_INDEXED]


def _ids() -> list[str]:
    return [f"{symbol['language']}-{symbol['name']}-{symbol['definition'].rsplit('/', 1)[-1]}" for symbol in INDEXED]


@pytest.mark.parametrize("symbol", INDEXED, ids=_ids())
def test_no_site_that_means_something_else_is_resolved_INV_NAV_1(db: Any, symbol: dict[str, Any]) -> None:
    found = sites_of(db, symbol)
    assert found is not None, f"no definition {symbol['name']} at {symbol['definition']}"
    resolved, _ = found
    assert not resolved & set(symbol.get("not", [])), sorted(resolved & set(symbol.get("not", [])))


def test_every_expected_definition_is_found(db: Any) -> None:
    missing = [
        f"{s['language']} {s['name']} {s['definition']}"
        for s in EXPECTED
        if s["definition"] not in NOT_INDEXED and sites_of(db, s) is None
    ]
    assert not missing, missing


def recall_by_language(db: Any) -> dict[str, tuple[int, int, int]]:
    """language -> (expected, resolved among them, listed by name among them)."""
    out: dict[str, list[int]] = {}
    for symbol in EXPECTED:
        found = sites_of(db, symbol) or (set(), set())
        expected = set(symbol["references"])
        row = out.setdefault(symbol["language"], [0, 0, 0])
        row[0] += len(expected)
        row[1] += len(expected & found[0])
        row[2] += len(expected & found[1])
    return {language: (a, b, c) for language, (a, b, c) in sorted(out.items())}


def test_recall_holds_its_floor(db: Any) -> None:
    for language, (expected, resolved, _) in recall_by_language(db).items():
        assert resolved / expected >= RECALL_FLOOR.get(language, 0.0), (language, resolved, expected)


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        index = Index(FIXTURE, Path(cache), workers=1)
        index.refresh()
        with index.store.snapshot() as snapshot:
            print("| language | expected | resolved | recall | by name |\n| --- | --- | --- | --- | --- |")
            for language, (expected, resolved, by_name) in recall_by_language(snapshot).items():
                print(f"| {language} | {expected} | {resolved} | {100 * resolved / expected:.0f}% | {by_name} |")
            if "--details" in sys.argv:
                for symbol in EXPECTED:
                    found = sites_of(snapshot, symbol)
                    if found is None:
                        print(f"{symbol['language']} {symbol['name']} {symbol['definition']}: NO DEFINITION", file=sys.stderr)
                        continue
                    for site in sorted(set(symbol["references"]) - found[0]):
                        print(f"{symbol['language']} {symbol['name']} {symbol['definition']}: "
                              f"{'by name' if site in found[1] else 'missing'} {site}", file=sys.stderr)  # fmt: skip
                    for site in sorted(found[0] & set(symbol.get("not", []))):
                        print(f"{symbol['language']} {symbol['name']} {symbol['definition']}: WRONG {site}", file=sys.stderr)
        index.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
