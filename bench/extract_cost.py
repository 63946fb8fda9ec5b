"""What ``extract`` costs a parse worker, and whether a change to it changed any fact.

Run by hand (never in CI)::

    .venv/bin/python bench/extract_cost.py --tree /root/.pyenv/versions/3.11.7/lib/python3.11 \\
        --tree /tmp/corpus --sample 2000 --rounds 3 --against /tmp/base

The files are the ones mesh's walk lists under each tree; ``--sample N`` keeps N of each tree's
files spread evenly over its sorted list (0: all). Each checkout (this one, and ``--against``'s)
runs in a fresh process that imports its own ``mesh``, reads the files into memory, compiles every
language's queries (``preload``: not a file's cost), then calls ``extract(path, bytes)`` on every
file, ``--rounds`` times, alternating checkouts round by round so both see the same machine. It
reports the process CPU seconds per round (median) per checkout, per language, and whether every
file's facts (``repr`` of its ``FileFacts``) are identical across checkouts (the first differing
files are printed). ``--profile`` prints this checkout's ``cProfile`` of one round instead.
``--dump FILE`` writes each file's facts digest as JSON lines, to compare by hand later.
``--split`` also splits each checkout's ``extract`` CPU per language into tree-sitter's C side,
parsing (``Parser.parse``) and query matching (``QueryCursor.matches``/``captures``), and the rest
(Python: the extractors' own work on the trees and the matches), by wrapping both classes in the
worker (a ``process_time`` pair per call, a few µs a file): the part no change to the Python can
take away while the same grammars and queries are used.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _files(trees: list[str], sample: int) -> list[tuple[str, str]]:
    """``(tree, path)`` of the files to extract: each tree's walk, sampled evenly."""
    sys.path.insert(0, str(ROOT))
    from mesh.index.build._enumerate import walk

    out = []
    for tree in trees:
        paths = sorted(entry.path for entry in walk(Path(tree).resolve()).files)
        if sample and len(paths) > sample:
            paths = [paths[i * len(paths) // sample] for i in range(sample)]
        out += [(str(Path(tree).resolve()), path) for path in paths]
    return out


#: CPU seconds spent inside tree-sitter's C calls (``--split``), by what the call did.
_SPENT = {"parse": 0.0, "queries": 0.0}


def _timed(call, bucket: str):  # noqa: ANN001, ANN202 - a bound method of tree-sitter's
    def timed(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        started = time.process_time()
        try:
            return call(*args, **kwargs)
        finally:
            _SPENT[bucket] += time.process_time() - started

    return timed


def _split_c_side() -> None:
    """Make every ``tree_sitter.Parser`` and ``QueryCursor`` made from now on add the CPU of its
    parses and matches to :data:`_SPENT` (neither C type can be subclassed: each is wrapped)."""
    import tree_sitter

    real_parser, real_cursor = tree_sitter.Parser, tree_sitter.QueryCursor

    class Parser:
        def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            self._real = real_parser(*args, **kwargs)
            self.parse = _timed(self._real.parse, "parse")

        def __getattr__(self, name: str):  # noqa: ANN204
            return getattr(self._real, name)

    class QueryCursor:
        def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            self._real = real_cursor(*args, **kwargs)
            self.matches = _timed(self._real.matches, "queries")
            self.captures = _timed(self._real.captures, "queries")

        def __getattr__(self, name: str):  # noqa: ANN204
            return getattr(self._real, name)

    tree_sitter.Parser, tree_sitter.QueryCursor = Parser, QueryCursor


def _worker(checkout: str, listing: str, rounds: int, profile: bool, split: bool = False) -> None:
    """Runs in a fresh process: extract every file ``rounds`` times; JSON on stdout."""
    sys.path.insert(0, checkout)
    if split:
        _split_c_side()  # before any parser is made: mesh makes one per language when first needed
    import mesh.index.parse as parse

    assert Path(parse.__file__).resolve().is_relative_to(Path(checkout).resolve()), parse.__file__
    files = []
    for tree, path in json.loads(Path(listing).read_text()):
        try:
            files.append((f"{tree}/{path}", path, Path(tree, path).read_bytes()))
        except OSError:
            continue
    for _, path, _ in files:
        parse.preload(path)
    seconds, per_language = [], {}
    #: language -> CPU seconds of its files' parses and query matches (``split``)
    c_side: dict[str, dict[str, float]] = {}
    digests: dict[str, str] = {}
    for round_ in range(rounds):
        if profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.enable()
        started = time.process_time()
        for key, path, data in files:
            spent = dict(_SPENT)
            before = time.process_time()
            facts = parse.extract(path, data)
            language = parse.language_of(path) or "-"
            per_language[language] = per_language.get(language, 0.0) + time.process_time() - before
            into = c_side.setdefault(language, {"parse": 0.0, "queries": 0.0})
            for bucket, total in _SPENT.items():
                into[bucket] += total - spent[bucket]
            if round_ == 0:
                held = time.process_time()
                digests[key] = hashlib.sha256(repr(facts).encode()).hexdigest()
                started += time.process_time() - held  # the digest is no part of extraction
        seconds.append(time.process_time() - started)
        if profile:
            profiler.disable()
            stats = pstats.Stats(profiler, stream=sys.stderr)
            stats.sort_stats("tottime").print_stats(40)
            stats.sort_stats("cumulative").print_stats(60)
            profile = False
    per_language = {language: total / rounds for language, total in per_language.items()}
    c_side = {language: {bucket: total / rounds for bucket, total in spent.items()} for language, spent in c_side.items()}
    json.dump({"seconds": seconds, "per_language": per_language, "c_side": c_side, "digests": digests}, sys.stdout)


def _run(checkout: str, listing: str, rounds: int, profile: bool, split: bool = False) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--worker", checkout, "--listing", listing, "--rounds", str(rounds)]
        + (["--profile"] if profile else []) + (["--split"] if split else []),
        capture_output=True, text=True, check=True, cwd=checkout,
    )  # fmt: skip
    if profile:
        print(done.stderr)
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", default=[])
    parser.add_argument("--sample", type=int, default=2000, help="files kept of each tree (0: all)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", help="another checkout of mesh-mcp, run round by round beside this one")
    parser.add_argument("--profile", action="store_true", help="print this checkout's cProfile of one round")
    parser.add_argument("--dump", help="write each file's facts digest (this checkout) to this JSON file")
    parser.add_argument("--split", action="store_true", help="split the CPU into parsing, query matching and the rest")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--listing", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.worker, args.listing, args.rounds, args.profile, args.split)
        return 0
    files = _files(args.tree, args.sample)
    listing = ROOT / "bench" / "results" / f"extract-files-{os.getpid()}.json"
    listing.parent.mkdir(exist_ok=True)
    listing.write_text(json.dumps(files))
    sides = {"this": str(ROOT)} | ({"against": str(Path(args.against).resolve())} if args.against else {})
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    try:
        if args.profile:
            _run(str(ROOT), str(listing), 1, True)
            return 0
        for round_ in range(args.rounds):
            order = list(sides.items()) if round_ % 2 == 0 else list(reversed(sides.items()))
            for side, checkout in order:
                runs[side].append(_run(checkout, str(listing), 1, False, args.split))
    finally:
        listing.unlink()
    print(f"{len(files):,} files, {args.rounds} rounds, CPU seconds of `extract` per round (median)\n")
    print("| | " + " | ".join(sides) + " |")
    print("| --- |" + " ---: |" * len(sides))
    medians = {side: statistics.median(run["seconds"][0] for run in runs[side]) for side in sides}
    print("| all | " + " | ".join(f"{medians[side]:.2f}" for side in sides) + " |")
    languages = sorted({language for side in sides for language in runs[side][0]["per_language"]})
    for language in languages:
        cells = [statistics.median(run["per_language"].get(language, 0.0) for run in runs[side]) for side in sides]
        print(f"| {language} | " + " | ".join(f"{cell:.2f}" for cell in cells) + " |")
    if args.split:
        _print_split(runs, languages)
    if args.against:
        mine, theirs = runs["this"][0]["digests"], runs["against"][0]["digests"]
        differ = sorted(path for path in mine.keys() | theirs.keys() if mine.get(path) != theirs.get(path))
        print(f"\nfacts identical in {len(mine) - len(differ):,} of {len(mine):,} files; differ: {len(differ)}")
        for path in differ[:20]:
            print(f"  {path}")
        print(f"ratio this / against: {medians['this'] / medians['against']:.3f}")
    if args.dump:
        Path(args.dump).write_text(json.dumps(runs["this"][0]["digests"], indent=0, sort_keys=True))
    return 0


def _print_split(runs: dict[str, list[dict]], languages: list[str]) -> None:
    """Each checkout's ``extract`` CPU per language: tree-sitter's parses, its query matching, the
    rest (medians over the rounds), and what the C side is of the whole."""
    for side, side_runs in runs.items():
        print(f"\n{side}: CPU seconds of `extract`, split (median of {len(side_runs)})\n")
        print("| language | extract | parse | query matching | the rest (Python) | C side / extract | extract / parse |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        totals = [0.0, 0.0, 0.0]
        for language in [*languages, "all"]:
            if language == "all":
                whole, parsing, matching = totals
            else:
                whole = statistics.median(run["per_language"].get(language, 0.0) for run in side_runs)
                parsing = statistics.median(run["c_side"].get(language, {}).get("parse", 0.0) for run in side_runs)
                matching = statistics.median(run["c_side"].get(language, {}).get("queries", 0.0) for run in side_runs)
                totals = [totals[0] + whole, totals[1] + parsing, totals[2] + matching]
            share = (parsing + matching) / whole if whole else float("nan")
            ratio = whole / parsing if parsing else float("nan")
            print(f"| {language} | {whole:.2f} | {parsing:.2f} | {matching:.2f} | {whole - parsing - matching:.2f}"
                  f" | {share:.2f} | {ratio:.2f}x |")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
