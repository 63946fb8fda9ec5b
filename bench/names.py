"""Definition names found by what they hold (INV-SEARCH-4): this checkout against another, in process.

Run by hand (never in CI)::

    .venv/bin/python bench/names.py --db CACHE/ID/index.db --against /tmp/base --rounds 3

``--db`` is an index both checkouts can read (open it once for writing with this checkout, e.g.
``mesh-mcp index``, so that it keeps the names; the other checkout ignores them). Each checkout runs
in a fresh process per round (alternating, this one first in odd rounds) that opens the index
read-only and times, on names drawn from it with a fixed seed (as ``bench/tools.py`` draws them:
at least 8 characters, defined at most 3 times):

* ``symbols``: a symbol search (exact, prefix, then the names holding it), median and p90;
* ``defining, first`` / ``later``: the definitions a text search ranks first, with every file a
  candidate (the branch past ``_DEFS_BY_FILE_MAX``): the first call of a process (the first search
  of a new snapshot, as after every edit), then the median of the others;
* ``nearest``: "did you mean" for a name with a typo;
* the process's peak RSS growth over those calls.

It prints one JSON line per checkout and round, then the medians.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import time

from _against import alternate, drawn_names, open_checkout, print_medians


def _worker(checkout: str, db_path: str, count: int) -> dict:
    db = open_checkout(checkout, db_path)
    from mesh.index.query import _search, _symbols

    picked = drawn_names(db, count)
    ids = [row[0] for row in db.execute("SELECT id FROM files ORDER BY id")]
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    timings: dict[str, list[float]] = {"symbols": [], "defining": [], "nearest": []}
    for name in picked:
        started = time.perf_counter()
        _search.symbols(db, name)
        timings["symbols"].append(time.perf_counter() - started)
    for name in picked:
        pattern, formula = _search.compile_query(name, regex=False, case_sensitive=False)
        started = time.perf_counter()
        _search._defining_files(db, ids, pattern, formula.needles())
        timings["defining"].append(time.perf_counter() - started)
    for name in picked:
        typo = name[:3] + name[4:]  # one character dropped
        started = time.perf_counter()
        _symbols.nearest_names(db, typo)
        timings["nearest"].append(time.perf_counter() - started)
    ms = {key: [value * 1000 for value in values] for key, values in timings.items()}
    return {
        "symbols_p50_ms": statistics.median(ms["symbols"]),
        "symbols_p90_ms": statistics.quantiles(ms["symbols"], n=10)[-1],
        "defining_first_ms": ms["defining"][0],
        "defining_later_p50_ms": statistics.median(ms["defining"][1:]),
        "nearest_p50_ms": statistics.median(ms["nearest"]),
        "rss_growth_mib": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024,
        "names": len(picked),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--against", required=True, help="the other checkout (a worktree of the base)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--names", type=int, default=20)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(_worker(args.worker, args.db, args.names)))
        return
    results = alternate(__file__, ["--db", args.db, "--against", args.against, "--names", str(args.names)],
                        args.against, args.rounds)  # fmt: skip
    print_medians(results)


if __name__ == "__main__":
    main()
