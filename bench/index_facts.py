"""Every fact table of a cold build, row for row, for comparing two checkouts of mesh-mcp.

Run by hand (never in CI)::

    .venv/bin/python bench/index_facts.py dump --checkout /tmp/base --tree tests/fixtures/workspace --out base.pickle
    .venv/bin/python bench/index_facts.py dump --tree tests/fixtures/workspace --out mine.pickle
    .venv/bin/python bench/index_facts.py compare base.pickle mine.pickle

``dump`` builds the tree's index on a fresh cache with ``--checkout``'s code (default: this
checkout; its parse workers too, through ``PYTHONPATH``) and pickles what
``tests/index/_compare.py: facts_by_path`` reads (every fact table, row ids left out, file ids as
paths). ``compare`` says, table by table, how many rows each side has and which differ.
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _dump(checkout: str, tree: str, out: str, workers: int) -> None:
    """In a fresh process whose ``mesh`` is ``checkout``'s."""
    sys.path.insert(0, checkout)
    sys.path.insert(1, str(ROOT / "tests" / "index"))
    import mesh
    from mesh.index import Index

    assert Path(mesh.__file__).resolve().is_relative_to(Path(checkout).resolve()), mesh.__file__
    from _compare import facts_by_path  # ROOT's, reading the checkout's _FACT_TABLES

    with tempfile.TemporaryDirectory(prefix="mesh-facts-") as cache:
        index = Index(Path(tree).resolve(), Path(cache), workers=workers)
        index.refresh()
        facts = facts_by_path(index)
    Path(out).write_bytes(pickle.dumps(facts))
    print(f"{tree}: " + ", ".join(f"{table} {len(rows)}" for table, rows in facts.items()))


def _compare(left: str, right: str) -> int:
    a, b = pickle.loads(Path(left).read_bytes()), pickle.loads(Path(right).read_bytes())
    differ = 0
    for table in sorted(a.keys() | b.keys()):
        rows_a, rows_b = a.get(table, []), b.get(table, [])
        same = rows_a == rows_b
        differ += not same
        print(f"{table}: {len(rows_a)} / {len(rows_b)} rows, {'identical' if same else 'DIFFER'}")
        if not same:
            only_a, only_b = set(map(repr, rows_a)) - set(map(repr, rows_b)), set(map(repr, rows_b)) - set(map(repr, rows_a))
            for row in sorted(only_a)[:5]:
                print(f"  - {row[:300]}")
            for row in sorted(only_b)[:5]:
                print(f"  + {row[:300]}")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    dump = sub.add_parser("dump")
    dump.add_argument("--checkout", default=str(ROOT))
    dump.add_argument("--tree", required=True)
    dump.add_argument("--out", required=True)
    dump.add_argument("--workers", type=int, default=2)
    dump.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)
    compare = sub.add_parser("compare")
    compare.add_argument("left")
    compare.add_argument("right")
    args = parser.parse_args()
    if args.command == "compare":
        return _compare(args.left, args.right)
    checkout = str(Path(args.checkout).resolve())
    if args.in_process:
        _dump(checkout, args.tree, args.out, args.workers)
        return 0
    env = dict(os.environ, PYTHONPATH=checkout)  # the parse workers are fresh interpreters
    command = [sys.executable, __file__, "dump", "--checkout", checkout, "--tree", args.tree, "--out", args.out]
    subprocess.run([*command, "--workers", str(args.workers), "--in-process"], env=env, cwd=checkout, check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
