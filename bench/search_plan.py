"""Text search with the trigrams it asks planned (INV-SEARCH-5): this checkout against another, in process.

Run by hand (never in CI)::

    .venv/bin/python bench/search_plan.py --db CACHE/ID/index.db --tree WORKSPACE --against /tmp/base --rounds 3

``--db`` is an index both checkouts can read (open it once for writing with this checkout, e.g.
``mesh-mcp index``, so that it has its text sample; the other checkout ignores it), ``--tree`` its
workspace. Each checkout runs in a fresh process per round (alternating, this one first in odd
rounds) that opens the index read-only and runs ``search`` (the first page's reading, as
``smart_search`` does) for 8 definition names drawn with a fixed seed (as ``bench/tools.py`` draws
them), two common literals and four regular expressions, each three times (the fastest kept). It
prints one JSON line per checkout and round (milliseconds and candidate files per query), then per
query the medians over the rounds and their ratio.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMON = ["import os", "def __init__"]
REGEXES = [r"def \w+Order", r"class \w+Handler\(", r"import (os|sys)$", r"TODO|FIXME"]


def _worker(checkout: str, db_path: str, tree: str) -> dict:
    sys.path.insert(0, checkout)
    import sqlite3

    from mesh.index.query import _search

    assert Path(_search.__file__).resolve().is_relative_to(Path(checkout).resolve()), _search.__file__
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    names = [row[0] for row in db.execute(
        "SELECT name FROM defs WHERE length(name) >= 8 GROUP BY name HAVING count(*) <= 3 ORDER BY name"
    )]  # fmt: skip
    queries = [(name, False) for name in random.Random(1).sample(names, min(8, len(names)))]
    queries += [(text, False) for text in COMMON] + [(pattern, True) for pattern in REGEXES]
    root = Path(tree)
    _search.search(db, "warm up", root=root)
    out = {}
    for query, regex in queries:
        times = []
        for _ in range(3):
            started = time.perf_counter()
            found = _search.search(db, query, regex=regex, root=root)
            times.append((time.perf_counter() - started) * 1000)
        out[query] = {"ms": min(times), "candidates": found.candidates, "matches": len(found.matches)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--tree", required=True)
    parser.add_argument("--against", required=True, help="the other checkout (a worktree of the base)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(_worker(args.worker, args.db, args.tree)))
        return
    results: dict[str, list[dict]] = {"this": [], "against": []}
    for round_number in range(args.rounds):
        order = [("this", str(ROOT)), ("against", args.against)]
        if round_number % 2:
            order.reverse()
        for label, checkout in order:
            out = subprocess.run(
                [sys.executable, __file__, "--db", args.db, "--tree", args.tree, "--against", args.against,
                 "--worker", checkout],
                check=True, capture_output=True, text=True,
            ).stdout  # fmt: skip
            row = json.loads(out.strip().splitlines()[-1])
            results[label].append(row)
            print(json.dumps({"round": round_number, "checkout": label, **row}), flush=True)
    print(f"{'query':<32} {'this ms':>9} {'against ms':>11} {'ratio':>7} {'candidates':>18} {'matches':>9}")
    for query in results["this"][0]:
        this = statistics.median(row[query]["ms"] for row in results["this"])
        other = statistics.median(row[query]["ms"] for row in results["against"])
        mine, theirs = results["this"][0][query], results["against"][0][query]
        assert mine["matches"] == theirs["matches"], (query, mine, theirs)
        candidates = f"{mine['candidates']} / {theirs['candidates']}"
        print(f"{query[:32]:<32} {this:9.1f} {other:11.1f} {this / other:7.3f} {candidates:>18} {mine['matches']:>9}")


if __name__ == "__main__":
    main()
