"""A refresh after an upgrade (other extractors wrote the facts): this checkout against another.

Run by hand (never in CI)::

    .venv/bin/python bench/upgrade.py --tree /tmp/work/stdlib --against /tmp/base --work /tmp/upgrade --rounds 3

Each checkout, in a fresh process per round (alternating, this one first in odd rounds): builds
``--tree`` into an empty cache under ``--work`` (``Index.refresh``, two parse workers), marks its
facts as other extractors' (``meta.extractors``, in a writer transaction), then times the refresh
that parses every file again: wall seconds, CPU seconds (the process and its workers), files
parsed; and the text index before and after it (its pages' bytes, ``text_data``, and its segments,
which every search reads, counted by this checkout's ``text_segments`` once the worker is done)
and the database file. One JSON line per checkout and round, then the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import sys
import time
from pathlib import Path

from _against import ROOT, alternate, print_medians

sys.path.insert(0, str(ROOT))


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _text_mb(index) -> float:  # noqa: ANN001 - the checkout's Index
    with index.store.snapshot() as db:
        return db.execute("SELECT sum(length(block)) FROM text_data").fetchone()[0] / 1e6


def _worker(checkout: str, tree: str, work: str) -> dict:
    sys.path.insert(0, checkout)
    from mesh.index import Index

    assert Path(sys.modules["mesh"].__file__).resolve().is_relative_to(Path(checkout).resolve())
    cache = Path(work) / f"cache-{os.getpid()}"
    shutil.rmtree(cache, ignore_errors=True)
    index = Index(Path(tree), cache, workers=2)
    try:
        index.refresh()
        text_before = _text_mb(index)
        with index.store.transaction() as writer:
            writer.db.execute("UPDATE meta SET value = 'older extractors' WHERE key = 'extractors'")
        cpu, started = _cpu(), time.perf_counter()
        parsed = index.refresh().parsed
        wall, cpu = time.perf_counter() - started, _cpu() - cpu
        text_after = _text_mb(index)
    finally:
        index.close()
    return {"wall_s": wall, "cpu_s": cpu, "parsed": parsed, "text_mb_before": text_before, "text_mb_after": text_after,
            "database_mb": index.store.path.stat().st_size / 1e6, "cache": str(cache)}  # fmt: skip


def _segments(row: dict) -> dict:
    """The worker's row with the text index's segments after the refresh, its cache removed."""
    from mesh.index.store._store import text_segments

    cache = Path(row.pop("cache"))
    database = next(cache.rglob("index.db"))
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        row["segments_after"] = text_segments(db)
    finally:
        db.close()
    shutil.rmtree(cache, ignore_errors=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", required=True)
    parser.add_argument("--against", required=True, help="the other checkout (a worktree of the base)")
    parser.add_argument("--work", required=True, help="where the caches are built (each removed after)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(_worker(args.worker, args.tree, args.work)))
        return
    Path(args.work).mkdir(parents=True, exist_ok=True)
    results = alternate(__file__, ["--tree", args.tree, "--against", args.against, "--work", args.work],
                        args.against, args.rounds)  # fmt: skip
    results = {side: [_segments(row) for row in rows] for side, rows in results.items()}
    print_medians(results)


if __name__ == "__main__":
    main()
