"""The floor of a cold build: read every file the index would read and parse it with tree-sitter,
next to ``mesh-mcp index`` on a fresh cache, in one run.

Run by hand (never in CI; the machine is shared and noisy, so read the ratio of one run)::

    .venv/bin/python bench/parse_floor.py --tree /root/.pyenv/versions/3.11.7/lib/python3.11 --rounds 1

The floor walks with mesh's own walk (the same files, the same ignore rules; the walk is timed
apart), then ``--workers`` processes (default: mesh's default, the cores) each read their share of
the files and parse those whose language has a tree-sitter grammar: no extraction, no hashing,
no storage. ``mesh-mcp index`` runs in its own process on a fresh cache with the same number of
workers. The ratio index / floor is the figure issue 16 asks to bring within 2x.
Results are printed as Markdown and written to bench/results/floor-<stamp>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mesh.index.build._enumerate import walk  # noqa: E402
from mesh.index.parse import language_of  # noqa: E402
from mesh.index.parse._ts import GRAMMARS, parse  # noqa: E402


def _parse_share(args: tuple[str, list[str]]) -> tuple[int, int, int]:
    """Read and parse one worker's files: (files read, bytes read, files parsed)."""
    root, paths = args
    read = size = parsed = 0
    for path in paths:
        try:
            with open(os.path.join(root, path), "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        read += 1
        size += len(data)
        language = language_of(path)
        if language in GRAMMARS and b"\0" not in data[:8192]:
            parse(language, data)
            parsed += 1
    return read, size, parsed


def floor(tree: Path, paths: list[str], workers: int) -> tuple[float, tuple[int, int, int]]:
    """Seconds for ``workers`` fresh processes to read and parse ``paths`` (dealt round robin, so
    each gets a like mix of sizes), start-up included as the index's workers pay it."""
    shares = [(str(tree), paths[i::workers]) for i in range(workers)]
    started = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        totals = list(pool.map(_parse_share, shares))
    elapsed = time.perf_counter() - started
    return elapsed, tuple(sum(column) for column in zip(*totals))  # type: ignore[return-value]


def index(tree: Path, workers: int) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory(prefix="mesh-floor-") as cache:
        env = dict(os.environ, MESH_CACHE_DIR=cache)
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "mesh.cli", "index", str(tree), "--json", "--workers", str(workers)],
            env=env, cwd=ROOT, capture_output=True, text=True, check=True,
        )  # fmt: skip
        return time.perf_counter() - started, json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, action="append", required=True)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-index", dest="run_index", action="store_false", help="time the floor only")
    args = parser.parse_args()
    results = []
    for tree in args.tree:
        tree = tree.resolve()
        started = time.perf_counter()
        walked = walk(tree)
        walk_s = time.perf_counter() - started
        paths = [entry.path for entry in walked.files]
        floors, builds, summary, counts = [], [], {}, (0, 0, 0)
        for _ in range(args.rounds):  # interleaved, so both sides see the same machine
            seconds, counts = floor(tree, paths, args.workers)
            floors.append(seconds)
            if args.run_index:
                seconds, summary = index(tree, args.workers)
                builds.append(seconds)
        row = {
            "tree": str(tree), "files": counts[0], "bytes": counts[1], "parsed": counts[2], "walk_s": walk_s,
            "workers": args.workers, "floor_s": floors, "index_s": builds, "summary": summary,
        }  # fmt: skip
        results.append(row)
    print("| tree | files (MB) | parsed by tree-sitter | walk | floor: read + parse | `mesh-mcp index` | index / floor |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for row in results:
        floor_s = statistics.median(row["floor_s"])
        index_s = statistics.median(row["index_s"]) if row["index_s"] else float("nan")
        print(f"| {row['tree']} | {row['files']:,} ({row['bytes'] / 1e6:.1f}) | {row['parsed']:,} | {row['walk_s']:.2f} s"
              f" | {floor_s:.2f} s | {index_s:.2f} s | {index_s / floor_s:.2f}x |")  # fmt: skip
    out = ROOT / "bench" / "results" / f"floor-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"workers": args.workers, "results": results}, indent=2))
    print(f"\nraw figures: {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
