"""Tool latency over a real pipe, and smart_search against ripgrep on the same tree.

Run by hand (never in CI; the machine is shared and noisy, so read medians and ratios)::

    .venv/bin/python bench/tools.py --tree tests/fixtures/workspace --tree /path/to/a/large/tree

For each tree the index is built first (``mesh-mcp index``, not timed here; see bench/index.py),
then one ``mesh-mcp mcp --workspace TREE`` is started over pipes and every call below is sent
``--rounds`` times, one at a time, timing request written -> answer read. Call arguments are
drawn from the tree's own index with a fixed seed (identifiers for search, the most imported
files for dependents, 20 files for impact_matrix and the two most imported alone, headings for doc_sections, RPCs for
grpc_trace), so two runs on one tree send the same calls. ``rg`` runs the same literal and regex
searches side by side (its whole output, ``--count-matches``). Results are printed as Markdown and
written to bench/results/tools-<stamp>.json.

``--only dependents,impact_matrix`` times the calls of those tools only.

``--baseline DIR`` (another checkout of mesh-mcp, e.g. a worktree of main) runs a second server
from that checkout, with its own cache (``--baseline-cache``, a copy of ``--cache`` made first),
and sends every call to both, alternating one call each, so that "before" and "after" see the same
machine at the same time: the answer's p50 and p99 are printed side by side, and whether every
answer (its text and structured result, every round) was the same bytes on both sides.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mesh.workspace import cache_dir

REGEXES = (r"class \w+Error", r"def \w+_handler\(", r"import (os|sys)$")


class Server:
    def __init__(self, tree: Path, env: dict[str, str]) -> None:
        argv = [sys.executable, "-m", "mesh", "mcp", "--standalone", "--workspace", str(tree)]
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=tree
        )
        self.next_id = 0
        self.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.process.stdout is not None
        return json.loads(self.process.stdout.readline())

    def call(self, name: str, arguments: dict) -> tuple[float, dict]:
        started = time.perf_counter()
        answer = self.request("tools/call", {"name": name, "arguments": arguments})
        return time.perf_counter() - started, answer["result"]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(30)


def cpu_seconds(pid: int) -> float | None:
    """User and system CPU time of a process so far (None where /proc is not there)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_idle(pid: int, *, quiet_s: float = 2.0, limit_s: float = 600.0) -> None:
    """Wait until the server has used under 5% of a core for ``quiet_s``: an index that already
    exists answers at once while the server still compares every file with it (a 26k-file tree
    takes seconds); latency is measured at rest, not against that walk (``--no-wait-idle`` keeps it)."""
    started = time.monotonic()
    last = cpu_seconds(pid)
    while last is not None and time.monotonic() - started < limit_s:
        time.sleep(quiet_s)
        now = cpu_seconds(pid)
        if now is None or now - last < 0.05 * quiet_s:
            return
        last = now


def calls_for(db: sqlite3.Connection, prng: random.Random) -> list[tuple[str, str, dict]]:
    """(label, tool, arguments) drawn from the index."""
    names = [row[0] for row in db.execute(
        "SELECT name FROM defs WHERE length(name) >= 8 GROUP BY name HAVING count(*) <= 3 ORDER BY name"
    )]  # fmt: skip
    calls = [
        ("smart_search literal", "smart_search", {"query": name}) for name in prng.sample(names, min(5, len(names)))
    ]
    calls += [("smart_search regex", "smart_search", {"query": regex, "mode": "regex"}) for regex in REGEXES]
    calls += [
        ("smart_search symbol", "smart_search", {"query": name, "mode": "symbol"})
        for name in prng.sample(names, min(3, len(names)))
    ]
    imported = [row[0] for row in db.execute(
        "SELECT target_path FROM imports WHERE target_path IS NOT NULL GROUP BY target_path ORDER BY count(*) DESC, 1 LIMIT 5"
    )]  # fmt: skip
    calls += [("dependents (most imported)", "dependents", {"target": path}) for path in imported]
    some = [row[0] for row in db.execute(
        "SELECT DISTINCT target_path FROM imports WHERE target_path IS NOT NULL ORDER BY 1"
    )]  # fmt: skip
    calls += [
        ("dependents (any imported)", "dependents", {"target": path}) for path in prng.sample(some, min(5, len(some)))
    ]
    methods = [f"{p}.{s}/{m}" for p, s, m in db.execute(
        "SELECT DISTINCT package, service, name FROM proto_methods ORDER BY 1, 2, 3"
    )]  # fmt: skip
    calls += [("grpc_trace", "grpc_trace", {"target": method}) for method in prng.sample(methods, min(5, len(methods)))]
    files = [row[0] for row in db.execute("SELECT path FROM files WHERE kind IN ('code', 'proto') ORDER BY path")]
    if len(files) >= 20:
        calls.append(("impact_matrix 20 files", "impact_matrix", {"changes": prng.sample(files, 20)}))
    calls += [("impact_matrix (most imported)", "impact_matrix", {"changes": [path]}) for path in imported[:2]]
    sections = [f"{path}#{section}" for path, section in db.execute(
        "SELECT f.path, s.section_id FROM sections s JOIN files f ON f.id = s.file_id ORDER BY 1, 2"
    )]  # fmt: skip
    calls.append(("doc_sections tree", "doc_sections", {}))
    calls += [
        ("doc_sections section", "doc_sections", {"section_id": sid})
        for sid in prng.sample(sections, min(3, len(sections)))
    ]
    code = [row[0] for row in db.execute(
        "SELECT f.path FROM files f WHERE f.kind = 'code' AND EXISTS (SELECT 1 FROM defs d WHERE d.file_id = f.id)"
        " ORDER BY f.path"
    )]  # fmt: skip
    calls += [("outline file", "outline", {"path": path}) for path in prng.sample(code, min(5, len(code)))]
    symbols = [f"{path}:{line}" for path, line in db.execute(
        "SELECT f.path, d.line FROM defs d JOIN files f ON f.id = d.file_id WHERE f.kind = 'code'"
        " AND d.kind IN ('function', 'method', 'class') ORDER BY 1, 2"
    )]  # fmt: skip
    calls += [("symbol with source", "symbol", {"name": place}) for place in prng.sample(symbols, min(5, len(symbols)))]
    common = [row[0] for row in db.execute(
        "SELECT d.name FROM defs d WHERE d.kind IN ('function', 'method') AND length(d.name) >= 3"
        " AND EXISTS (SELECT 1 FROM refs r WHERE r.name = d.name) GROUP BY d.name ORDER BY count(*) DESC, 1 LIMIT 5"
    )]  # fmt: skip
    calls += [("references (common name)", "references", {"name": name}) for name in common]
    calls += [("files glob", "files", {"pattern": "**/*test*"})]
    return calls


def rg_time(tree: Path, pattern: str, *, literal: bool, rounds: int) -> float | None:
    rg = shutil.which("rg")
    if rg is None:
        return None
    argv = [rg, "--count-matches", "--no-messages", "-i", "-F" if literal else "-e", pattern, str(tree)]
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def start(tree: Path, env: dict[str, str], idle: bool) -> Server:
    subprocess.run([sys.executable, "-m", "mesh", "index", str(tree)], env=env, check=True, stdout=subprocess.DEVNULL,
                   cwd=tree)  # fmt: skip
    server = Server(tree, env)
    while server.call("smart_search", {"query": "x"})[1]["content"][0]["text"].startswith("Still indexing"):
        time.sleep(0.2)
    if idle:
        wait_idle(server.process.pid)
    return server


def summary(calls: list, per_call: list[list[float]], errors: list[int]) -> dict[str, dict]:
    rows: dict[str, dict] = {}
    for (label, _, _), values, failed in zip(calls, per_call, errors, strict=True):
        row = rows.setdefault(label, {"values": [], "errors": 0})
        row["values"] += values
        row["errors"] += failed
    for row in rows.values():
        values = sorted(row.pop("values"))
        row.update(
            calls=len(values),
            p50_ms=statistics.median(values) * 1000,
            p99_ms=values[min(len(values) - 1, int(len(values) * 0.99))] * 1000,
        )
    return rows


def bench_tree(
    tree: Path, rounds: int, cache: Path, *, idle: bool = True, baseline: Path | None = None,
    baseline_cache: Path | None = None, only: frozenset[str] = frozenset(),
) -> dict:  # fmt: skip
    env = {**os.environ, "MESH_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    servers = {"after": env}
    if baseline is not None:
        assert baseline_cache is not None
        servers = {"before": {**os.environ, "MESH_CACHE_DIR": str(baseline_cache), "PYTHONPATH": str(baseline)},
                   "after": env}  # fmt: skip
    running: dict[str, Server] = {}
    try:
        for name, server_env in servers.items():
            running[name] = start(tree, server_env, idle)
        db = sqlite3.connect(cache_dir(tree.resolve(), env) / "index.db")
        calls = [call for call in calls_for(db, random.Random(20261130)) if not only or call[1] in only]
        files = db.execute("SELECT count(*) FROM files").fetchone()[0]
        db.close()
        per_call = {name: [[] for _ in calls] for name in running}
        errors = {name: [0] * len(calls) for name in running}
        digests: dict[str, list[set[str]]] = {name: [set() for _ in calls] for name in running}
        for _ in range(rounds):
            for number, (_, tool, arguments) in enumerate(calls):
                for name, server in running.items():  # one call each, alternating
                    elapsed, result = server.call(tool, arguments)
                    per_call[name][number].append(elapsed)
                    errors[name][number] += bool(result.get("isError"))
                    digests[name][number].add(hashlib.sha256(json.dumps(result, sort_keys=True).encode()).hexdigest())
    finally:
        for server in running.values():
            server.close()
    compare = []
    for number, (label, _, arguments) in enumerate(calls):
        if label not in ("smart_search literal", "smart_search regex"):
            continue
        literal = label.endswith("literal")
        rg = rg_time(tree, arguments["query"], literal=literal, rounds=rounds)
        compare.append({
            "query": arguments["query"],
            "literal": literal,
            **{f"{name}_ms": statistics.median(per_call[name][number]) * 1000 for name in running},
            "mesh_ms": statistics.median(per_call["after"][number]) * 1000,
            "rg_ms": None if rg is None else rg * 1000,
        })  # fmt: skip
    differ = sorted({label for number, (label, _, _) in enumerate(calls)
                     if "before" in running and digests["before"][number] != digests["after"][number]})  # fmt: skip
    return {
        "tree": str(tree),
        "files": files,
        "same_bytes": None if "before" not in running else not differ,
        "differ": differ,
        "tools": summary(calls, per_call["after"], errors["after"]),
        **({"before": summary(calls, per_call["before"], errors["before"])} if "before" in running else {}),
        "rg": compare,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tree", type=Path, action="append", required=True)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--cache", type=Path, help="reuse this cache folder (default: a fresh one)")
    parser.add_argument("--no-wait-idle", dest="wait_idle", action="store_false",
                        help="time the calls at once, while the server may still compare files with its index")  # fmt: skip
    parser.add_argument("--baseline", type=Path, help="another checkout to time side by side (\"before\")")
    parser.add_argument("--baseline-cache", type=Path, help="the baseline's cache folder (default: a copy of --cache)")
    parser.add_argument("--only", default="", help="comma-separated tools to time (default: every call)")
    args = parser.parse_args()
    cache = args.cache or Path(tempfile.mkdtemp(prefix="mesh-bench-tools-"))
    baseline_cache = args.baseline_cache
    if args.baseline is not None and baseline_cache is None:
        baseline_cache = Path(tempfile.mkdtemp(prefix="mesh-bench-baseline-")) / "cache"
        if cache.exists():
            shutil.copytree(cache, baseline_cache)
    results = [
        bench_tree(tree.resolve(), args.rounds, cache, idle=args.wait_idle, baseline=args.baseline,
                   baseline_cache=baseline_cache, only=frozenset(filter(None, args.only.split(","))))  # fmt: skip
        for tree in args.tree
    ]
    for result in results:
        print(f"\n### {result['tree']} ({result['files']:,} files)\n")
        if "before" in result:
            same = "yes" if result["same_bytes"] else f"NO ({', '.join(result['differ'])})"
            print(f"Every answer (text and structured result) the same bytes before and after: {same}\n")
            print("| call | calls | before p50 ms | after p50 ms | before p99 ms | after p99 ms"
                  " | isError before/after |")  # fmt: skip
            print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
            for label, row in result["tools"].items():
                old = result["before"][label]
                print(f"| {label} | {row['calls']} | {old['p50_ms']:.1f} | {row['p50_ms']:.1f} | {old['p99_ms']:.1f}"
                      f" | {row['p99_ms']:.1f} | {old['errors']}/{row['errors']} |")  # fmt: skip
            print("\n| search | before p50 ms | after p50 ms | rg p50 ms (all matches) | before / rg | after / rg |")
            print("| --- | ---: | ---: | ---: | ---: | ---: |")
            for row in result["rg"]:
                rg = row["rg_ms"]
                kind = "literal" if row["literal"] else "regex"
                ratios = ["n/a", "n/a"] if not rg else [f"{row['before_ms'] / rg:.2f}", f"{row['after_ms'] / rg:.2f}"]
                print(f"| `{row['query']}` ({kind}) | {row['before_ms']:.1f} | {row['after_ms']:.1f} |"
                      f" {'n/a' if rg is None else f'{rg:.1f}'} | {ratios[0]} | {ratios[1]} |")  # fmt: skip
            continue
        print("| call | calls | p50 ms | p99 ms | isError |\n| --- | ---: | ---: | ---: | ---: |")
        for label, row in result["tools"].items():
            print(f"| {label} | {row['calls']} | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | {row['errors']} |")
        print(
            "\n| search | mesh p50 ms (first page) | rg p50 ms (all matches) | mesh / rg |\n| --- | ---: | ---: | ---: |"
        )
        for row in result["rg"]:
            rg = row["rg_ms"]
            shown = "n/a" if rg is None else f"{rg:.1f}"
            ratio = "n/a" if not rg else f"{row['mesh_ms'] / rg:.2f}"
            kind = "literal" if row["literal"] else "regex"
            print(f"| `{row['query']}` ({kind}) | {row['mesh_ms']:.1f} | {shown} | {ratio} |")
    out = ROOT / "bench" / "results" / f"tools-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"\nwritten {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
