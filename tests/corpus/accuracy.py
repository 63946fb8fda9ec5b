"""Measure the index against the expected facts of real workspaces (``tests/corpus/*.toml``).

``python -m tests.corpus.accuracy [NAME...] [--markdown]`` prints the table of ``docs/accuracy.md``;
``tests/corpus/test_accuracy.py`` asserts the targets. The archives are those of
``../shared/corpus/`` beside the checkout (``$MESH_CORPUS`` names another folder); each is
unpacked into a temporary folder and indexed with a cache folder of its own.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path

import attrs

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
#: A fact's line may differ by this much (a call spread over lines, a decorator above a handler).
LINE_SLACK = 2


def corpus_dir() -> Path:
    return Path(os.environ.get("MESH_CORPUS") or ROOT.parent / "shared" / "corpus")


def expected_files() -> list[Path]:
    return sorted(HERE.glob("*.toml"))


@attrs.frozen
class Score:
    kind: str
    expected: int
    found: int
    matched_expected: int
    matched_found: int
    missing: tuple[str, ...]
    extra: tuple[str, ...]

    @property
    def recall(self) -> float | None:
        return self.matched_expected / self.expected if self.expected else None

    @property
    def precision(self) -> float | None:
        return self.matched_found / self.found if self.found else None


@attrs.frozen
class Report:
    workspace: str
    scores: tuple[Score, ...]

    def score(self, kind: str) -> Score:
        return next(score for score in self.scores if score.kind == kind)


def _sites_score(kind: str, expected: list[tuple[str, str, int]], found: list[tuple[str, str, int]]) -> Score:
    """Match (key, file, line) facts one to one, lines within LINE_SLACK."""
    unmatched = list(found)
    missing = []
    for key, path, line in expected:
        hit = next((f for f in unmatched if f[0] == key and f[1] == path and abs(f[2] - line) <= LINE_SLACK), None)
        if hit is None:
            missing.append(f"{key} {path}:{line}")
        else:
            unmatched.remove(hit)
    extra = tuple(f"{key} {path}:{line}" for key, path, line in unmatched)
    return Score(kind, len(expected), len(found), len(expected) - len(missing), len(found) - len(extra),
                 tuple(missing), extra)  # fmt: skip


def _matched_score(kind: str, expected: list[dict], found: list[dict], same) -> Score:
    """Match facts one to one: same file, lines within LINE_SLACK, and ``same(expected, found)``."""
    unmatched = list(found)
    missing = []
    for want in expected:
        hit = next(
            (f for f in unmatched if f["file"] == want["file"] and abs(f["line"] - want["line"]) <= LINE_SLACK
             and same(want, f)),
            None,
        )  # fmt: skip
        if hit is None:
            missing.append(_fact_text(want))
        else:
            unmatched.remove(hit)
    extra = tuple(_fact_text(f) for f in unmatched)
    return Score(kind, len(expected), len(found), len(expected) - len(missing), len(found) - len(extra),
                 tuple(missing), extra)  # fmt: skip


def _fact_text(fact: dict) -> str:
    what = " ".join(str(fact[k]) for k in ("role", "method", "path", "name") if k in fact)
    target = f" -> {fact['target']}" if fact.get("target") else ""
    return f"{what}{target} {fact['file']}:{fact['line']}"


def _methods_meet(a: str, b: str) -> bool:
    return a == "*" or b == "*" or a.upper() == b.upper()


def _link_scores(expected: dict, db: sqlite3.Connection) -> list[Score]:
    """HTTP routes, HTTP calls (with the service each reaches) and messages, where the expected facts
    have the section. A section not marked complete (``[complete]``) counts toward precision only found
    facts of the files it names and of services' code outside tests (what it left out on purpose)."""
    from mesh.index._facts import path_shape as shape
    from mesh.index.parse._links import route_template

    def path_shape(path: str) -> str:  # the expected facts write parameters as the code does
        return shape(route_template(path))

    complete = expected.get("complete", {})
    scores = []
    if "http_routes" in complete:
        found = [
            {"method": m, "path": p, "file": f, "line": l, "kind": k, "service": sv}
            for m, p, f, l, k, sv in db.execute(
                "SELECT r.method, r.path, f.path, r.line, f.kind, f.service FROM http_routes r"
                " JOIN files f ON f.id = r.file_id"
                " WHERE r.hidden = 0 AND r.mount = '' AND r.framework != 'openapi'"
            )
        ]
        want = expected.get("http_routes", [])
        scores.append(_matched_score("HTTP routes", want, _complete(found, want, complete["http_routes"]),
                                     lambda w, f: _methods_meet(w["method"], f["method"])
                                     and path_shape(w["path"]) == path_shape(f["path"])))  # fmt: skip
    if "http_calls" in complete:
        found = [
            {"method": m, "path": full or p, "file": f, "line": l, "target": t, "kind": k, "service": sv}
            for m, p, full, f, l, t, k, sv in db.execute(
                "SELECT c.method, c.path, c.full_path, f.path, c.line, c.target, f.kind, f.service FROM http_calls c"
                " JOIN files f ON f.id = c.file_id WHERE c.computed = 0"
                # a gateway's pass-through forward (a route and a call of the same path declared at one
                # place: Spring Cloud Gateway's route(...).uri(...)) is a link mesh shows, but the expected
                # facts leave it out of the calls ("the path is the incoming one", ftgo's notes); a forward
                # to another path (YARP's MapForwarder(route, host, path)) is a call in them, and here
                " AND NOT EXISTS (SELECT 1 FROM http_routes r WHERE r.file_id = c.file_id AND r.line = c.line"
                " AND r.mount = '' AND r.shape = c.shape)"
            )
        ]
        want = expected.get("http_calls", [])

        def same_call(w: dict, f: dict) -> bool:
            return (
                _methods_meet(w["method"], f["method"])
                and path_shape(w["path"]) == path_shape(f["path"])
                and (not w.get("target") or w["target"] == f["target"])
            )

        scores.append(_matched_score("HTTP calls", want, _complete(found, want, complete["http_calls"]), same_call))
    if "messaging" in complete:
        found = [
            {"role": r, "name": t, "file": f, "line": l, "kind": k, "service": sv}
            for r, t, f, l, k, sv in db.execute(
                "SELECT m.role, m.topic, f.path, m.line, f.kind, f.service FROM messages m"
                " JOIN files f ON f.id = m.file_id WHERE m.hidden = 0 AND m.computed = 0"
            )
        ]
        want = expected.get("messaging", [])
        scores.append(_matched_score("messages", want, _complete(found, want, complete["messaging"]),
                                     lambda w, f: w["role"] == f["role"] and w["name"] == f["name"]))  # fmt: skip
    return scores


def _complete(found: list[dict], want: list[dict], complete: bool) -> list[dict]:
    """All found facts when the section is complete; else those of files it names, and of the
    services' own code (what an incomplete section leaves out is tests and areas: its notes say)."""
    if complete:
        return found
    files = {w["file"] for w in want}
    return [f for f in found if f["file"] in files or (f["kind"] != "test" and f["service"])]


def _set_score(kind: str, expected: set, found: set) -> Score:
    return Score(kind, len(expected), len(found), len(expected & found), len(expected & found),
                 tuple(sorted(map(str, expected - found))), tuple(sorted(map(str, found - expected))))  # fmt: skip


def measure(facts_file: Path, scratch: Path) -> Report:
    """Unpack, index and compare one workspace."""
    from mesh.index import Index

    expected = tomllib.loads(facts_file.read_text())
    name = expected["workspace"]
    archive = corpus_dir() / f"{name}.tar.gz"
    unpacked = scratch / name
    if not unpacked.exists():
        unpacked.mkdir(parents=True)
        with tarfile.open(archive) as tar:
            tar.extractall(unpacked, filter="data")
    root = unpacked / expected["root"]
    index = Index(root, scratch / f"{name}.cache")
    try:
        index.refresh()
        with index.store.snapshot() as db:
            return Report(name, tuple(_compare(expected, db)))
    finally:
        index.close()


def _compare(expected: dict, db: sqlite3.Connection) -> list[Score]:
    services = {(name, path or ".") for name, path in db.execute("SELECT name, path FROM services")}
    scores = [_set_score("services", {(s["name"], s["path"]) for s in expected.get("services", [])}, services)]
    externals = {name for (name,) in db.execute("SELECT name FROM externals")}
    scores.append(_set_score("external services", {e["name"] for e in expected.get("external", [])}, externals))
    for kind, section, role in (("gRPC servers", "grpc_servers", "handler"), ("gRPC calls", "grpc_calls", "call")):
        found = [
            (key or "", path, line)
            for key, path, line in db.execute(
                "SELECT g.method_key, f.path, g.line FROM grpc g JOIN files f ON f.id = g.file_id WHERE g.role = ?",
                (role,),
            )
        ]
        want = [(fact["method"], fact["file"], fact["line"]) for fact in expected.get(section, [])]
        scores.append(_sites_score(kind, want, found))
    wanted_imports = {(i["from"], i["to"]) for i in expected.get("imports", [])}
    if wanted_imports:
        sources = sorted({source for source, _ in wanted_imports})
        marks = ",".join("?" * len(sources))
        found_imports = {
            (path, target)
            for path, target in db.execute(
                f"SELECT f.path, i.target_path FROM imports i JOIN files f ON f.id = i.file_id WHERE f.path IN ({marks})"
                " AND i.target_path IS NOT NULL",
                sources,
            )
        }
        # a package import written as its folder is met by a resolution to a file in it (Go imports
        # of a generated package resolve to the .proto that generates it)
        hits = {
            (source, target)
            for source, target in wanted_imports
            if any(s == source and (t == target or t.startswith(target + "/")) for s, t in found_imports)
        }
        scores.append(Score("imports (sample)", len(wanted_imports), len(hits), len(hits), len(hits),
                            tuple(sorted(map(str, wanted_imports - hits))), ()))  # fmt: skip
    return scores + _link_scores(expected, db)


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def markdown(reports: list[Report]) -> str:
    lines = ["| workspace | facts | expected | found | recall | precision |", "| --- | --- | --- | --- | --- | --- |"]
    for report in reports:
        for score in report.scores:
            lines.append(f"| {report.workspace} | {score.kind} | {score.expected} | {score.found} | "
                         f"{_percent(score.recall)} | {_percent(score.precision)} |")  # fmt: skip
    totals: dict[str, list[int]] = {}
    for report in reports:
        for score in report.scores:
            total = totals.setdefault(score.kind, [0, 0, 0, 0])
            for i, value in enumerate((score.expected, score.found, score.matched_expected, score.matched_found)):
                total[i] += value
    for kind, (want, found, hit_want, hit_found) in totals.items():
        recall = hit_want / want if want else None
        precision = hit_found / found if found else None
        lines.append(f"| **all** | {kind} | {want} | {found} | {_percent(recall)} | {_percent(precision)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    names = [a for a in argv if not a.startswith("--")]
    files = [f for f in expected_files() if not names or f.stem in names]
    reports = []
    with tempfile.TemporaryDirectory(prefix="mesh-corpus-") as scratch:
        for facts_file in files:
            report = measure(facts_file, Path(scratch))
            reports.append(report)
            if "--details" in argv:
                for score in report.scores:
                    for item in score.missing[:40]:
                        print(f"{report.workspace}: {score.kind}: missing {item}", file=sys.stderr)
                    for item in score.extra[:40]:
                        print(f"{report.workspace}: {score.kind}: extra {item}", file=sys.stderr)
    print(markdown(reports), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
