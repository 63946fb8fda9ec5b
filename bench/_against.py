"""What the in-process side-by-side benchmarks share (``names.py``, ``search_plan.py``): a worker
process importing one checkout's ``mesh`` against a read-only index, the names they draw, and the
rounds that alternate the checkouts."""

from __future__ import annotations

import json
import random
import sqlite3
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def open_checkout(checkout: str, db_path: str) -> sqlite3.Connection:
    """In a worker: ``checkout``'s ``mesh`` first on the import path (checked), and the index read-only."""
    sys.path.insert(0, checkout)
    from mesh.index.query import _search

    assert Path(_search.__file__).resolve().is_relative_to(Path(checkout).resolve()), _search.__file__
    return sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)


def drawn_names(db: sqlite3.Connection, count: int) -> list[str]:
    """``count`` definition names drawn with a fixed seed, as ``bench/tools.py`` draws them: at least
    8 characters, defined at most 3 times."""
    names = [row[0] for row in db.execute(
        "SELECT name FROM defs WHERE length(name) >= 8 GROUP BY name HAVING count(*) <= 3 ORDER BY name"
    )]  # fmt: skip
    return random.Random(1).sample(names, min(count, len(names)))


def alternate(
    script: str, arguments: list[str], against: str, rounds: int, against_arguments: list[str] | None = None
) -> dict[str, list[dict]]:
    """Run ``script --worker CHECKOUT`` (with ``arguments``; ``against_arguments`` for ``against``
    when given) for this checkout and ``against``, one fresh process each per round, this one first
    in even rounds; each worker prints one JSON line. The rows by checkout ("this", "against"),
    each also printed as it comes."""
    results: dict[str, list[dict]] = {"this": [], "against": []}
    for round_number in range(rounds):
        order = [("this", str(ROOT), arguments), ("against", against, against_arguments or arguments)]
        if round_number % 2:
            order.reverse()
        for label, checkout, given in order:
            out = subprocess.run(
                [sys.executable, script, *given, "--worker", checkout], check=True, capture_output=True, text=True
            ).stdout
            row = json.loads(out.strip().splitlines()[-1])
            results[label].append(row)
            print(json.dumps({"round": round_number, "checkout": label, **row}), flush=True)
    return results


def print_medians(results: dict[str, list[dict]]) -> None:
    """Each figure of the workers' rows: its median on each side and their ratio."""
    print(f"{'median of ' + str(len(results['this'])):<24} {'this':>10} {'against':>10} {'ratio':>7}")
    for key in results["this"][0]:
        this = statistics.median(row[key] for row in results["this"])
        other = statistics.median(row[key] for row in results["against"])
        print(f"{key:<24} {this:10.2f} {other:10.2f} {this / other if other else float('nan'):7.3f}")
