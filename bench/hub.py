"""``dependents`` and ``impact_matrix`` of the most imported files, in process, before and after.

Run by hand (never in CI; the machine is shared and noisy, so read medians side by side)::

    .venv/bin/python bench/hub.py --tree WORKSPACE --cache CACHE_FOLDER \\
        --baseline OTHER_CHECKOUT --baseline-cache ITS_CACHE_FOLDER --rounds 15

Each side is a process of its own (``--baseline``: a checkout of mesh-mcp before the change, with
its own copy of the index; the other is this checkout) that opens its ``index.db`` read-only and
answers tool calls sent over a pipe by calling the tool in process: no server, no refresh, nothing
written. The calls (the first page of ``dependents`` of the ``--targets`` most imported files, at
depth 1 and 2, a page further on, and ``impact_matrix`` of the two most imported) go to both sides
in turn, one call each, so both see the same machine at the same time. ``--globs`` adds a ``files``
call per pattern (``--targets 0`` leaves out the hubs); ``--fresh`` makes every call the first of a
new snapshot (the counts a hub's pages share, INV-TOOL-13, forgotten before it). Printed: the p50 and p99
of each call on each side, and whether both answered the same bytes. Results are written to
bench/results/hub-<stamp>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The side's loop: one JSON call a line in, (seconds, sha256 of the text, isError) a line out.
WORKER = r"""
import hashlib, json, sqlite3, sys, time
from pathlib import Path
from mesh.tools import parse_args
from mesh.tools import _dependents, _files, _impact
from mesh.tools._registry import ToolError
from mesh.tools._view import View
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, check_same_thread=False)
view = View(db, Path(sys.argv[2]))
tools = {"dependents": _dependents, "impact_matrix": _impact, "files": _files}
from mesh.index.query import _graph
for line in sys.stdin:
    call = json.loads(line)
    tool = tools[call["tool"]]
    if call.get("fresh"):  # as the first call of a new snapshot: nothing kept from an earlier call
        getattr(_graph, "_levels_kept", {}).clear()
    started = time.perf_counter()
    try:
        text, failed = tool.answer(parse_args(tool.Args, call["arguments"])[0], view), False
    except ToolError as exc:
        text, failed = str(exc), True
    elapsed = time.perf_counter() - started
    print(json.dumps([elapsed, hashlib.sha256(text.encode()).hexdigest(), failed]), flush=True)
"""


class Side:
    def __init__(self, checkout: Path, db: Path, tree: Path, fresh: bool = False) -> None:
        self.fresh = fresh
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        self.process = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(db), str(tree)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=env, cwd=checkout, text=True,
        )  # fmt: skip

    def call(self, tool: str, arguments: dict) -> tuple[float, str, bool]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"tool": tool, "arguments": arguments, "fresh": self.fresh}) + "\n")
        self.process.stdin.flush()
        elapsed, digest, failed = json.loads(self.process.stdout.readline())
        return elapsed, digest, failed

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(30)


def calls_for(db: Path, targets: int, globs: list[str] = ()) -> list[tuple[str, str, dict]]:
    calls = [(f"files `{glob}`", "files", {"pattern": glob}) for glob in globs]
    if not targets:
        return calls
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    imported = [row[0] for row in connection.execute(
        "SELECT target_path FROM imports WHERE target_path IS NOT NULL GROUP BY target_path"
        " ORDER BY count(*) DESC, 1 LIMIT ?", (targets,),
    )]  # fmt: skip
    connection.close()
    for path in imported:
        calls.append((f"dependents `{path}`", "dependents", {"target": path}))
    for path in imported[:2]:
        calls.append((f"dependents `{path}` depth 1", "dependents", {"target": path, "depth": 1}))
        calls.append((f"dependents `{path}` cursor 5000", "dependents", {"target": path, "cursor": "5000"}))
    calls.append(("impact_matrix of the most imported", "impact_matrix", {"changes": imported[:1]}))
    calls.append(("impact_matrix of the two most imported", "impact_matrix", {"changes": imported[:2]}))
    return calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True, help="the folder holding this checkout's index.db")
    parser.add_argument("--baseline", type=Path, required=True, help="the checkout to time side by side (before)")
    parser.add_argument("--baseline-cache", type=Path, required=True, help="the folder holding its index.db")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--targets", type=int, default=5, help="how many hubs (0: none)")
    parser.add_argument("--fresh", action="store_true",
                        help="every call as a new snapshot's first: a hub's kept counts (INV-TOOL-13) cleared before it")
    parser.add_argument("--globs", default="", help="comma-separated patterns: a `files` call each, first")
    args = parser.parse_args()
    calls = calls_for(args.cache / "index.db", args.targets, [glob for glob in args.globs.split(",") if glob])
    sides = {
        "before": Side(args.baseline.resolve(), (args.baseline_cache / "index.db").resolve(), args.tree.resolve(),
                       args.fresh),
        "after": Side(ROOT, (args.cache / "index.db").resolve(), args.tree.resolve(), args.fresh),
    }
    times: dict[str, list[list[float]]] = {name: [[] for _ in calls] for name in sides}
    digests: dict[str, list[set[str]]] = {name: [set() for _ in calls] for name in sides}
    errors: dict[str, list[int]] = {name: [0] * len(calls) for name in sides}
    load = os.getloadavg()
    try:
        for _ in range(args.rounds):
            for number, (_, tool, arguments) in enumerate(calls):
                for name, side in sides.items():  # one call each, alternating
                    elapsed, digest, failed = side.call(tool, arguments)
                    times[name][number].append(elapsed)
                    digests[name][number].add(digest)
                    errors[name][number] += failed
    finally:
        for side in sides.values():
            side.close()
    rows = []
    for number, (label, tool, arguments) in enumerate(calls):
        row = {"label": label, "tool": tool, "arguments": arguments,
               "same_bytes": digests["before"][number] == digests["after"][number]}  # fmt: skip
        for name in sides:
            values = sorted(times[name][number])
            row[f"{name}_p50_ms"] = statistics.median(values) * 1000
            row[f"{name}_p99_ms"] = values[min(len(values) - 1, int(len(values) * 0.99))] * 1000
            row[f"{name}_errors"] = errors[name][number]
        rows.append(row)
    loads = " ".join(f"{value:.1f}" for value in load)
    print(f"\n{args.tree} ({args.rounds} rounds, load average {loads} at the start)\n")
    print("| call | before p50 ms | after p50 ms | after / before | before p99 | after p99 | same bytes |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for row in rows:
        ratio = row["after_p50_ms"] / row["before_p50_ms"]
        same = "yes" if row["same_bytes"] else "NO"
        print(f"| {row['label']} | {row['before_p50_ms']:.1f} | {row['after_p50_ms']:.1f} | {ratio:.2f} |"
              f" {row['before_p99_ms']:.1f} | {row['after_p99_ms']:.1f} | {same} |")  # fmt: skip
    out = ROOT / "bench" / "results" / f"hub-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"tree": str(args.tree), "rounds": args.rounds, "load": load, "calls": rows}, indent=2))
    print(f"\nwritten {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
