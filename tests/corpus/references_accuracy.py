"""Measure ``references`` against the references read by hand from real workspaces
(``tests/corpus/references/<language>.toml``, see README.md beside this file).

``python -m tests.corpus.references_accuracy [LANGUAGE...] [--details]`` prints, per language, the
recall and precision of the *resolved* references (what the issue's targets count) and, apart, how
many ``by name`` matches there were and how many of them the hand-read facts hold. Each repository
is unpacked from ``../shared/corpus`` (or ``$MESH_CORPUS``) and indexed once.
"""

from __future__ import annotations

import sqlite3
import sys
import tarfile
import tempfile
import tomllib
from collections.abc import Iterable
from pathlib import Path

import attrs

from .accuracy import HERE, corpus_dir

FACTS = HERE / "references"


def fact_files(languages: Iterable[str] = ()) -> list[Path]:
    wanted = set(languages)
    return [path for path in sorted(FACTS.glob("*.toml")) if not wanted or path.stem in wanted]


@attrs.frozen
class SymbolScore:
    language: str
    repo: str
    symbol: str
    #: The definition mesh found at the expected place ("" when none).
    found_as: str
    expected: frozenset[str]
    resolved: frozenset[str]
    by_name: frozenset[str]

    @property
    def hits(self) -> frozenset[str]:
        return self.expected & self.resolved


@attrs.frozen
class LanguageScore:
    language: str
    symbols: tuple[SymbolScore, ...]

    def _sum(self, attribute: str) -> int:
        return sum(len(getattr(symbol, attribute)) for symbol in self.symbols)

    @property
    def expected(self) -> int:
        return self._sum("expected")

    @property
    def resolved(self) -> int:
        return self._sum("resolved")

    @property
    def matched(self) -> int:
        return self._sum("hits")

    @property
    def by_name(self) -> int:
        return self._sum("by_name")

    @property
    def by_name_right(self) -> int:
        return sum(len(symbol.by_name & symbol.expected) for symbol in self.symbols)

    @property
    def recall(self) -> float | None:
        return self.matched / self.expected if self.expected else None

    @property
    def precision(self) -> float | None:
        return self.matched / self.resolved if self.resolved else None


class _Repos:
    """Each repository unpacked and indexed once, in a scratch folder."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.open: dict[str, object] = {}

    def index(self, repo: str):
        from mesh.index import Index

        index = self.open.get(repo)
        if index is None:
            unpacked = self.scratch / repo
            if not unpacked.exists():
                unpacked.mkdir(parents=True)
                with tarfile.open(corpus_dir() / f"{repo}.tar.gz") as tar:
                    tar.extractall(unpacked, filter="data")
            index = Index(unpacked / repo, self.scratch / f"{repo}.cache")
            index.refresh()
            self.open[repo] = index
        return index

    def close(self) -> None:
        for index in self.open.values():
            index.close()  # type: ignore[attr-defined]


def _definition(db: sqlite3.Connection, path: str, line: int, name: str):
    """The definition mesh holds for the expected one: named ``name`` in ``path``, nearest ``line``."""
    from mesh.index.query._symbols import find_symbols

    rows = [row for row in find_symbols(db, name) if row.path == path and row.name == name]
    if not rows:
        return None
    return min(rows, key=lambda row: (abs(row.line - line), row.line))


def score_file(facts_file: Path, repos: _Repos) -> LanguageScore:
    from mesh.index.query._references import find_references

    facts = tomllib.loads(facts_file.read_text(encoding="utf-8"))
    scores = []
    for symbol in facts.get("symbol", []):
        if not (corpus_dir() / f"{symbol['repo']}.tar.gz").exists():
            continue
        path, _, line = symbol["definition"].rpartition(":")
        with repos.index(symbol["repo"]).store.snapshot() as db:
            row = _definition(db, path, int(line), symbol["name"])
            sites = find_references(db, row) if row is not None else []
        scores.append(
            SymbolScore(
                facts_file.stem,
                symbol["repo"],
                f"{symbol['name']} {symbol['definition']}",
                "" if row is None else f"{row.kind} {row.qualified} {row.path}:{row.line}",
                frozenset(symbol["references"]),
                frozenset(f"{site.path}:{site.line}" for site in sites if site.resolved),
                frozenset(f"{site.path}:{site.line}" for site in sites if not site.resolved),
            )
        )
    return LanguageScore(facts_file.stem, tuple(scores))


def measure(languages: Iterable[str] = (), scratch: Path | None = None) -> list[LanguageScore]:
    with tempfile.TemporaryDirectory(prefix="mesh-refs-") as temporary:
        repos = _Repos(scratch or Path(temporary))
        try:
            return [score_file(path, repos) for path in fact_files(languages)]
        finally:
            repos.close()


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def markdown(scores: list[LanguageScore]) -> str:
    lines = [
        "| language | symbols | expected | resolved | recall | precision | by name (of them right) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for score in scores:
        lines.append(
            f"| {score.language} | {len(score.symbols)} | {score.expected} | {score.resolved} | "
            f"{_percent(score.recall)} | {_percent(score.precision)} | {score.by_name} ({score.by_name_right}) |"
        )
    expected = sum(score.expected for score in scores)
    resolved = sum(score.resolved for score in scores)
    matched = sum(score.matched for score in scores)
    by_name = sum(score.by_name for score in scores)
    right = sum(score.by_name_right for score in scores)
    lines.append(
        f"| **all** | {sum(len(score.symbols) for score in scores)} | {expected} | {resolved} | "
        f"{_percent(matched / expected if expected else None)} | {_percent(matched / resolved if resolved else None)} | "
        f"{by_name} ({right}) |"
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    languages = [arg for arg in argv if not arg.startswith("--")]
    scores = measure(languages)
    if "--details" in argv:
        for score in scores:
            for symbol in score.symbols:
                head = f"{score.language} {symbol.repo} {symbol.symbol}"
                if not symbol.found_as:
                    print(f"{head}: definition not found", file=sys.stderr)
                for item in sorted(symbol.expected - symbol.resolved):
                    how = "by name" if item in symbol.by_name else "missing"
                    print(f"{head}: {how} {item}", file=sys.stderr)
                for item in sorted(symbol.resolved - symbol.expected):
                    print(f"{head}: extra {item}", file=sys.stderr)
    print(markdown(scores), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
