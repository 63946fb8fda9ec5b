"""Text search with the trigrams it asks planned (INV-SEARCH-5): this checkout against another, in process.

Run by hand (never in CI)::

    .venv/bin/python bench/search_plan.py --db CACHE/ID/index.db --tree WORKSPACE --against /tmp/base --rounds 3

``--db`` is an index both checkouts can read (open it once for writing with this checkout, e.g.
``mesh-mcp index``, so that it has its text sample; the other checkout ignores it), ``--tree`` its
workspace; ``--against-db`` another index of it for the other side (the same checkout against
itself, two states of one index: ``--against . --against-db COPY``). Each checkout runs in a fresh process per round (alternating, this one first in odd
rounds) that opens the index read-only and runs ``search`` (the first page's reading, as
``smart_search`` does) for 8 definition names drawn with a fixed seed (as ``bench/tools.py`` draws
them), two common literals and four regular expressions, then two of the names and the common
literals scoped to the service defining the first name, each three times (the fastest kept). It
prints one JSON line per checkout and round (milliseconds and candidate files per query), then per
query the medians over the rounds and their ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from _against import alternate, drawn_names, open_checkout

COMMON = ["import os", "def __init__"]
REGEXES = [r"def \w+Order", r"class \w+Handler\(", r"import (os|sys)$", r"TODO|FIXME"]


def _worker(checkout: str, db_path: str, tree: str) -> dict:
    db = open_checkout(checkout, db_path)
    from mesh.index.query import _search

    names = drawn_names(db, 8)
    queries: list[tuple[str, bool, tuple[str, ...]]] = [(name, False, ()) for name in names]
    queries += [(text, False, ()) for text in COMMON] + [(pattern, True, ()) for pattern in REGEXES]
    for text in [*names[:2], *COMMON]:  # scoped to the service defining the first name, as an agent narrows
        service = db.execute(
            "SELECT f.service FROM defs d JOIN files f ON f.id = d.file_id WHERE d.name = ? LIMIT 1", (names[0],)
        ).fetchone()[0]
        queries.append((text, False, (service,)))
    root = Path(tree)
    _search.search(db, "warm up", root=root)
    out = {}
    for query, regex, services in queries:
        times = []
        for _ in range(3):
            started = time.perf_counter()
            found = _search.search(db, query, regex=regex, root=root, services=services)
            times.append((time.perf_counter() - started) * 1000)
        label = f"{query} (scope {services[0]})" if services else query
        out[label] = {"ms": min(times), "candidates": found.candidates, "matches": len(found.matches)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--tree", required=True)
    parser.add_argument("--against", required=True, help="the other checkout (a worktree of the base)")
    parser.add_argument("--against-db", help="the index the other side reads (default: --db); e.g. a copy of it")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(_worker(args.worker, args.db, args.tree)))
        return
    given = ["--tree", args.tree, "--against", args.against]
    results = alternate(__file__, ["--db", args.db, *given], args.against, args.rounds,
                        ["--db", args.against_db or args.db, *given])  # fmt: skip
    print(f"{'query':<44} {'this ms':>9} {'against ms':>11} {'ratio':>7} {'candidates':>18} {'matches':>9}")
    for query in results["this"][0]:
        this = statistics.median(row[query]["ms"] for row in results["this"])
        other = statistics.median(row[query]["ms"] for row in results["against"])
        mine, theirs = results["this"][0][query], results["against"][0][query]
        assert mine["matches"] == theirs["matches"], (query, mine, theirs)
        candidates = f"{mine['candidates']} / {theirs['candidates']}"
        print(f"{query[:44]:<44} {this:9.1f} {other:11.1f} {this / other:7.3f} {candidates:>18} {mine['matches']:>9}")


if __name__ == "__main__":
    main()
