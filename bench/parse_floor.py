"""The floor of a cold build: read every file the index would read and parse it with tree-sitter,
next to ``mesh-mcp index`` on a fresh cache, in one run.

Run by hand (never in CI; the machine is shared and noisy, so read the ratio of one run)::

    .venv/bin/python bench/parse_floor.py --tree /root/.pyenv/versions/3.11.7/lib/python3.11 --rounds 1

The floor walks with mesh's own walk (the same files, the same ignore rules; the walk is timed
apart), then ``--workers`` processes (default: mesh's default, the cores) each read their share of
the files and parse those whose language has a tree-sitter grammar: no extraction, no hashing,
no storage. ``mesh-mcp index`` runs in its own process on a fresh cache with the same number of
workers. The ratio index / floor is the figure issue 16 asks to bring within 2x. ``--checkout DIR``
also runs ``mesh-mcp index`` with another checkout's code (its parse workers' too, through
``PYTHONPATH``) round by round beside this one's, each first every other round, so a change is
measured against its base in one run; the table then also gives the CPU seconds of each side's
building process alone (the SQLite writer, the walk and resolution; not its parse workers).

A second floor, ``--text`` (on by default), adds what any build that answers indexed text search
with mesh's text index must do besides parsing: the same workers also decode each file, fold it for
the trigram index (``_trigrams.indexed``) and compress it, and send both back in batches; one
process (SQLite has one writer) stores them as the index does (``content`` and the FTS5 trigram
table of the same schema, bulk settings on, merged at the end) while the workers go on. No
definitions, imports, references or other facts are extracted or stored: what mesh takes above this
floor is the facts' cost; what this floor takes above the first is the text index's.
Results are printed as Markdown and written to bench/results/floor-<stamp>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mesh.index.build._enumerate import walk  # noqa: E402
from mesh.index.parse import language_of  # noqa: E402
from mesh.index.parse._ts import GRAMMARS, parse  # noqa: E402
from mesh.index.store._trigrams import indexed  # noqa: E402

#: Files a worker reads, parses and prepares before it sends them to the writer (the text floor).
TEXT_BATCH = 64
#: The text index's schema and bulk settings, as mesh's store makes them (``Store``, ``bulk_text``).
_TEXT_SCHEMA = (
    "CREATE TABLE content(file_id INTEGER PRIMARY KEY, data BLOB NOT NULL);"
    "CREATE VIRTUAL TABLE text USING fts5(body, content='', detail=none, tokenize='trigram case_sensitive 1');"
)


def _read(root: str, paths: list[str]) -> Iterator[tuple[str, bytes]]:
    """(path, bytes) of each of ``paths`` that can be read."""
    for path in paths:
        try:
            with open(os.path.join(root, path), "rb") as handle:
                yield path, handle.read()
        except OSError:
            continue


def _parse_share(args: tuple[str, list[str]]) -> tuple[int, int, int]:
    """Read and parse one worker's files: (files read, bytes read, files parsed)."""
    read = size = parsed = 0
    for path, data in _read(*args):
        read += 1
        size += len(data)
        language = language_of(path)
        if language in GRAMMARS and b"\0" not in data[:8192]:
            parse(language, data)
            parsed += 1
    return read, size, parsed


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _text_batch(args: tuple[str, list[str]]) -> list[tuple[str, bytes]]:
    """Read, parse and prepare one batch: each file's folded text and its compressed bytes."""
    out = []
    for path, data in _read(*args):
        if b"\0" in data[:8192]:
            continue  # binary: the index stores no text of it either
        language = language_of(path)
        if language in GRAMMARS:
            parse(language, data)
        content = data.decode("utf-8", "replace")
        out.append((indexed(content), zlib.compress(content.encode("utf-8"), 6)))
    return out


def text_floor(tree: Path, paths: list[str], workers: int) -> tuple[float, int, float, float]:
    """Seconds for ``workers`` processes to read, parse, fold and compress ``paths`` while this
    process stores the text as mesh's index does (WAL, one transaction, FTS5 merged at the end);
    the files stored; the workers' CPU seconds and the writer's (this process)."""
    batches = [(str(tree), paths[i : i + TEXT_BATCH]) for i in range(0, len(paths), TEXT_BATCH)]
    with tempfile.TemporaryDirectory(prefix="mesh-text-floor-") as folder:
        children, own = _cpu(resource.RUSAGE_CHILDREN), _cpu(resource.RUSAGE_SELF)
        started = time.perf_counter()
        db = sqlite3.connect(os.path.join(folder, "text.db"), isolation_level=None)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.executescript(_TEXT_SCHEMA)
        db.execute("BEGIN")
        db.execute("INSERT INTO text(text, rank) VALUES ('automerge', 0)")
        db.execute("INSERT INTO text(text, rank) VALUES ('hashsize', ?)", (256 << 10,))
        stored = 0
        with ProcessPoolExecutor(workers) as pool:
            for batch in pool.map(_text_batch, batches):
                for body, compressed in batch:
                    stored += 1
                    db.execute("INSERT INTO content VALUES (?, ?)", (stored, compressed))
                    db.execute("INSERT INTO text(rowid, body) VALUES (?, ?)", (stored, body))
        db.execute("INSERT INTO text(text, rank) VALUES ('automerge', 4)")
        db.execute("INSERT INTO text(text) VALUES ('optimize')")
        db.execute("COMMIT")
        db.close()
        elapsed = time.perf_counter() - started
        return elapsed, stored, _cpu(resource.RUSAGE_CHILDREN) - children, _cpu(resource.RUSAGE_SELF) - own


def floor(tree: Path, paths: list[str], workers: int) -> tuple[float, tuple[int, int, int], float]:
    """Seconds for ``workers`` fresh processes to read and parse ``paths`` (dealt round robin, so
    each gets a like mix of sizes), start-up included as the index's workers pay it; the counts;
    the workers' CPU seconds."""
    shares = [(str(tree), paths[i::workers]) for i in range(workers)]
    children = _cpu(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        totals = list(pool.map(_parse_share, shares))
    elapsed = time.perf_counter() - started
    counts = tuple(sum(column) for column in zip(*totals))
    return elapsed, counts, _cpu(resource.RUSAGE_CHILDREN) - children  # type: ignore[return-value]


#: Runs ``mesh.cli`` as ``python -m`` does, then writes the process's own CPU seconds (the
#: building process: walk, the SQLite writer, resolution; not its parse workers) to stderr.
_OWN_CPU = (
    "import resource, runpy, sys\n"
    "try:\n"
    "    runpy.run_module('mesh.cli', run_name='__main__', alter_sys=True)\n"
    "finally:\n"
    "    used = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    sys.stderr.write(f'\\nMESH_OWN_CPU {used.ru_utime + used.ru_stime}\\n')\n"
)


def index(tree: Path, workers: int, checkout: Path = ROOT) -> tuple[float, dict, float, float]:
    """Seconds of ``mesh-mcp index`` on a fresh cache, its summary, the CPU seconds of it and
    its parse workers, and those of the building process alone (the writer); ``checkout``'s code
    (its parse workers' too)."""
    with tempfile.TemporaryDirectory(prefix="mesh-floor-") as cache:
        env = dict(os.environ, MESH_CACHE_DIR=cache)
        if checkout != ROOT:
            env["PYTHONPATH"] = str(checkout)
        children = _cpu(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _OWN_CPU, "index", str(tree), "--json", "--workers", str(workers)],
            env=env, cwd=checkout, capture_output=True, text=True, check=True,
        )  # fmt: skip
        elapsed = time.perf_counter() - started
        own = float(done.stderr.rsplit("MESH_OWN_CPU ", 1)[1].split()[0])
        return elapsed, json.loads(done.stdout), _cpu(resource.RUSAGE_CHILDREN) - children, own


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, action="append", required=True)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-index", dest="run_index", action="store_false", help="time the floor only")
    parser.add_argument("--no-text", dest="run_text", action="store_false", help="skip the text floor")
    parser.add_argument("--checkout", type=Path, help="another checkout whose `mesh-mcp index` runs beside this one's")
    args = parser.parse_args()
    results = []
    for tree in args.tree:
        tree = tree.resolve()
        started = time.perf_counter()
        walked = walk(tree)
        walk_s = time.perf_counter() - started
        paths = [entry.path for entry in walked.files]
        floors, texts, builds, summary, counts, stored = [], [], [], {}, (0, 0, 0), 0
        cpu: dict[str, list[float]] = {"floor": [], "text_workers": [], "text_writer": [], "index": []}
        others: list[float] = []
        for round_ in range(args.rounds):  # interleaved, so every side sees the same machine
            seconds, counts, used = floor(tree, paths, args.workers)
            floors.append(seconds)
            cpu["floor"].append(used)
            if args.run_text:
                seconds, stored, used, writer = text_floor(tree, paths, args.workers)
                texts.append(seconds)
                cpu["text_workers"].append(used)
                cpu["text_writer"].append(writer)
            if args.run_index:
                if args.checkout is not None and round_ % 2 == 1:  # each first every other round
                    seconds, _, used, own = index(tree, args.workers, args.checkout.resolve())
                    others.append(seconds)
                    cpu.setdefault("checkout_index", []).append(used)
                    cpu.setdefault("checkout_writer", []).append(own)
                seconds, summary, used, own = index(tree, args.workers)
                builds.append(seconds)
                cpu["index"].append(used)
                cpu.setdefault("writer", []).append(own)
                if args.checkout is not None and round_ % 2 == 0:
                    seconds, _, used, own = index(tree, args.workers, args.checkout.resolve())
                    others.append(seconds)
                    cpu.setdefault("checkout_index", []).append(used)
                    cpu.setdefault("checkout_writer", []).append(own)
        row = {
            "tree": str(tree), "files": counts[0], "bytes": counts[1], "parsed": counts[2], "walk_s": walk_s,
            "workers": args.workers, "floor_s": floors, "text_floor_s": texts, "text_files": stored,
            "index_s": builds, "cpu_s": cpu, "summary": summary,
        }  # fmt: skip
        if args.checkout is not None:
            row["checkout"], row["checkout_index_s"] = str(args.checkout.resolve()), others
        results.append(row)
    print("| tree | files (MB) | parsed by tree-sitter | walk | floor: read + parse | + text index | `mesh-mcp index`"
          " | index / floor | index / text floor |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    nan = float("nan")
    for row in results:
        floor_s = statistics.median(row["floor_s"])
        text_s = statistics.median(row["text_floor_s"]) if row["text_floor_s"] else nan
        index_s = statistics.median(row["index_s"]) if row["index_s"] else nan
        print(f"| {row['tree']} | {row['files']:,} ({row['bytes'] / 1e6:.1f}) | {row['parsed']:,} | {row['walk_s']:.2f} s"
              f" | {floor_s:.2f} s | {text_s:.2f} s | {index_s:.2f} s | {index_s / floor_s:.2f}x"
              f" | {index_s / text_s:.2f}x |")  # fmt: skip
    # CPU seconds hold on a loaded machine where wall times do not: the floor a build of W cores
    # cannot go under is max(its serial part, all its CPU / W).
    print("\nCPU seconds (user + system, every process; medians):\n")
    print("| tree | floor: read + parse | + text index: workers / writer | `mesh-mcp index` (with its workers)"
          " | index / floor | index / text floor |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for row in results:
        med = {key: statistics.median(values) if values else nan for key, values in row["cpu_s"].items()}
        text_cpu = med["text_workers"] + med["text_writer"]
        print(f"| {row['tree']} | {med['floor']:.1f} | {med['text_workers']:.1f} / {med['text_writer']:.1f}"
              f" | {med['index']:.1f} | {med['index'] / med['floor']:.2f}x | {med['index'] / text_cpu:.2f}x |")  # fmt: skip
    compared = [row for row in results if row.get("checkout_index_s")]
    if compared:
        print(f"\n`mesh-mcp index` of this checkout beside {compared[0]['checkout']}'s (medians):\n")
        print("| tree | this: wall | it: wall | this / it | this: CPU | it: CPU | this / it"
              " | this: writer CPU | it: writer CPU | this / it | it: index / floor |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in compared:
        mine, theirs = statistics.median(row["index_s"]), statistics.median(row["checkout_index_s"])
        mine_cpu, their_cpu = statistics.median(row["cpu_s"]["index"]), statistics.median(row["cpu_s"]["checkout_index"])
        mine_own, their_own = statistics.median(row["cpu_s"]["writer"]), statistics.median(row["cpu_s"]["checkout_writer"])
        print(f"| {row['tree']} | {mine:.2f} s | {theirs:.2f} s | {mine / theirs:.3f} | {mine_cpu:.1f} | {their_cpu:.1f}"
              f" | {mine_cpu / their_cpu:.3f} | {mine_own:.2f} | {their_own:.2f} | {mine_own / their_own:.3f}"
              f" | {theirs / statistics.median(row['floor_s']):.2f}x |")  # fmt: skip
    out = ROOT / "bench" / "results" / f"floor-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"workers": args.workers, "results": results}, indent=2))
    print(f"\nraw figures: {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
