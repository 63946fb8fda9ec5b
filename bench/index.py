"""Index benchmarks: cold build, no-change refresh, a saved edit reaching queries, size, RSS, walk vs rg.

Run by hand (never in CI; the machine is shared and noisy, so read medians and ratios)::

    .venv/bin/python bench/index.py --tree /tmp/stdlib/lib --tree tests/fixtures/workspace

Each cold build and restart runs in its own process (``mesh-mcp index --json``) so that peak RSS
is that process's own; the cache folder is fresh for a cold build and reused for the restart.
Results are printed as a Markdown table and written to bench/results/index-<stamp>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MESH = [sys.executable, "-m", "mesh.cli"]


def tree_size(root: Path) -> tuple[int, int]:
    files = size = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            try:
                size += os.lstat(os.path.join(folder, name)).st_size
                files += 1
            except OSError:
                pass
    return files, size


def run_index(tree: Path, cache: Path) -> tuple[float, dict, int]:
    """Wall seconds, the JSON summary and the child's peak RSS (KiB) of one ``mesh-mcp index``."""
    env = dict(os.environ, MESH_CACHE_DIR=str(cache))
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(
        [*MESH, "index", str(tree), "--json"], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, json.loads(done.stdout), max(peak, before)


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def indexed_bytes(cache: Path) -> tuple[int, dict[str, int]]:
    """Bytes of the files the index holds (the source it was built from), and its size per table."""
    import sqlite3

    (db_path,) = cache.rglob("index.db")
    db = sqlite3.connect(db_path)
    source = db.execute("SELECT coalesce(sum(size), 0) FROM files").fetchone()[0]
    try:
        tables = dict(db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"))
    except sqlite3.OperationalError:  # dbstat not compiled in
        tables = {}
    db.close()
    return source, tables


def edit_latency(tree: Path, cache: Path, edits: int, pick: str) -> tuple[list[float], str, int]:
    """Seconds from a saved edit to the edit being visible in a snapshot, with the watcher running,
    in a copy of ``tree``.

    ``pick`` chooses the edited file among the tree's Python files: "median" (a typical file) or
    "largest" (the worst case).
    """
    sys.path.insert(0, str(ROOT))
    from mesh.index import Index
    from mesh.workspace import cache_dir

    work = Path(tempfile.mkdtemp(prefix="mesh-edit-"))
    copy = work / "tree"
    shutil.copytree(tree, copy, symlinks=True)
    index = Index(copy, cache_dir(copy, {"MESH_CACHE_DIR": str(cache)}))
    try:
        index.refresh()
        return timed_edits(index, copy, edits, pick, limit_s=30)
    finally:
        index.close()
        shutil.rmtree(work, ignore_errors=True)


def timed_edits(
    index, root: Path, edits: int, pick: str, *, limit_s: float, path: str | None = None, extra: str = ""
) -> tuple[list[float], str, int]:
    """The edit loop of :func:`edit_latency` on ``index`` (refreshed, of ``root``): a marker function
    appended to the picked file (``path``, else the median or largest Python file) ``edits`` times,
    after ``extra`` (a comment, say), each timed until a snapshot defines it; the file's bytes are
    put back at the end. (latencies, the file, its size)."""
    from mesh.index import Watcher

    if path is not None:
        victim = root / path
    else:
        with index.store.snapshot() as db:  # only files the index holds (not ignored, not vendored)
            held = db.execute(
                "SELECT path, size FROM files WHERE language = 'python' AND error = '' ORDER BY size, path"
            )
            sources = [root / path for path, _ in held]
        victim = sources[-1] if pick == "largest" else sources[len(sources) // 2]
    original = victim.read_bytes()
    watcher = Watcher(index, reconcile_s=3600)
    watcher.start()
    time.sleep(0.5)
    latencies = []
    try:
        for number in range(edits):
            marker = f"mesh_bench_marker_{number}"
            started = time.perf_counter()
            victim.write_bytes(original + f"{extra}\n\ndef {marker}():\n    pass\n".encode())
            while True:
                with index.store.snapshot() as db:
                    # through the index on names (NOCASE): a scan of every definition would be most
                    # of the time measured on a large tree (0.3 s a poll at 100,000 files)
                    if db.execute(
                        "SELECT 1 FROM defs WHERE name = ? COLLATE NOCASE AND name = ?", (marker, marker)
                    ).fetchone():
                        break
                if time.perf_counter() - started > limit_s:
                    raise RuntimeError("an edit never reached the index")
                time.sleep(0.005)
            latencies.append(time.perf_counter() - started)
            time.sleep(0.2)
    finally:
        watcher.stop()
        victim.write_bytes(original)
    return latencies, str(victim.relative_to(root)), len(original)


def timed_adds(
    index, root: Path, adds: int, *, limit_s: float, name: str = ""
) -> tuple[list[float], list[float], str]:
    """A new Python file (defining a marker function) written ``adds`` times beside the median Python
    file, each timed until a snapshot defines the marker, then removed and timed until the index no
    longer lists it, with the watcher running. (times to visible, times to gone, the folder).

    The file is ``mesh_bench_added_N.py``, or with ``name`` ``{name}.py`` (``utils``, ``__init__``: a
    stem many imports name) in the first folder from the median one on that has no such file."""
    from mesh.index import Watcher

    with index.store.snapshot() as db:
        held = [path for (path,) in db.execute(
            "SELECT path FROM files WHERE language = 'python' AND error = '' ORDER BY size, path")]  # fmt: skip
    folder = (root / held[len(held) // 2]).parent
    if name:
        folders = ((root / path).parent for path in held[len(held) // 2 :])
        folder = next(where for where in folders if not (where / f"{name}.py").exists())
    watcher = Watcher(index, reconcile_s=3600)
    watcher.start()
    time.sleep(0.5)
    shown, gone = [], []

    def wait(sql: str, params: tuple, present: bool, started: float) -> float:
        while True:
            with index.store.snapshot() as db:
                if bool(db.execute(sql, params).fetchone()) == present:
                    return time.perf_counter() - started
            if time.perf_counter() - started > limit_s:
                raise RuntimeError("an added or removed file never reached the index")
            time.sleep(0.005)

    try:
        for number in range(adds):
            marker = f"mesh_bench_added_{number}"
            added = folder / f"{name or marker}.py"
            started = time.perf_counter()
            added.write_text(f"def {marker}():\n    pass\n")
            shown.append(wait("SELECT 1 FROM defs WHERE name = ? COLLATE NOCASE AND name = ?", (marker, marker),
                              True, started))  # fmt: skip
            time.sleep(0.2)
            started = time.perf_counter()
            added.unlink()
            relative = str(added.relative_to(root))
            gone.append(wait("SELECT 1 FROM files WHERE path = ?", (relative,), False, started))
            time.sleep(0.2)
    finally:
        watcher.stop()
        for number in range(adds):
            (folder / f"{name or f'mesh_bench_added_{number}'}.py").unlink(missing_ok=True)
    return shown, gone, str(folder.relative_to(root))


def timed_folders(index, root: Path, rounds: int) -> tuple[list[float], list[float], str]:
    """A new folder (a package of three Python files, one in a subfolder, importing each other) made
    ``rounds`` times beside the median Python file, each timed through ``Index.refresh(changed=[the
    folder])`` (what a watcher hands over for a folder made or moved in), then removed and timed the
    same way. (times to made, times to gone, the folder)."""
    import shutil

    with index.store.snapshot() as db:
        held = [path for (path,) in db.execute(
            "SELECT path FROM files WHERE language = 'python' AND error = '' ORDER BY size, path")]  # fmt: skip
    folder = (root / held[len(held) // 2]).parent / "mesh_bench_feature"
    relative = str(folder.relative_to(root))
    made, gone = [], []
    try:
        for number in range(rounds):
            (folder / "sub").mkdir(parents=True)
            (folder / "__init__.py").write_text("from . import handlers\n")
            (folder / "handlers.py").write_text(f"def mesh_bench_feature_{number}():\n    pass\n")
            (folder / "sub" / "more.py").write_text(f"from ..handlers import mesh_bench_feature_{number}\n")
            started = time.perf_counter()
            index.refresh(changed=[relative], counted=False)
            made.append(time.perf_counter() - started)
            shutil.rmtree(folder)
            started = time.perf_counter()
            index.refresh(changed=[relative], counted=False)
            gone.append(time.perf_counter() - started)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return made, gone, relative


def timed_proto_edits(index, root: Path, rounds: int, *, shape: bool) -> tuple[list[float], str]:
    """The first ``.proto`` by path edited ``rounds`` times, each timed through
    ``Index.refresh(changed=[it])``: a comment appended, or with ``shape`` a message (its type names
    change: every import is resolved again). Its bytes are put back at the end."""
    with index.store.snapshot() as db:
        relative = db.execute("SELECT path FROM files WHERE path LIKE '%.proto' ORDER BY path LIMIT 1").fetchone()[0]
    original = (root / relative).read_bytes()
    extras = [f"\nmessage MeshBench{n} {{}}\n" if shape else f"\n// mesh bench {n}\n" for n in range(rounds)]
    return _timed_rewrites(index, root, relative, [original + extra.encode() for extra in extras]), relative


def _timed_rewrites(index, root: Path, relative: str, texts: list[bytes]) -> list[float]:
    """``relative`` rewritten with each of ``texts`` in turn, each timed through
    ``Index.refresh(changed=[it])``; its bytes put back (and refreshed) at the end."""
    path = root / relative
    original = path.read_bytes()
    took = []
    try:
        for text in texts:
            path.write_bytes(text)
            started = time.perf_counter()
            index.refresh(changed=[relative], counted=False)
            took.append(time.perf_counter() - started)
    finally:
        path.write_bytes(original)
        index.refresh(changed=[relative], counted=False)
    return took


def timed_manifest_edits(index, root: Path, rounds: int, name: str) -> tuple[list[float], str]:
    """The first file by path named ``name`` (``package.json``, ``go.mod``, ``Dockerfile``...) edited
    ``rounds`` times as a dependency or build step would be (a JSON key added; a comment line
    elsewhere), each timed through ``Index.refresh(changed=[it])``. Its bytes are put back at the end."""
    with index.store.snapshot() as db:
        relative = db.execute(
            "SELECT path FROM files WHERE path = ? OR path LIKE ? ORDER BY path LIMIT 1", (name, f"%/{name}")
        ).fetchone()[0]
    original = (root / relative).read_bytes()
    comment = b"\n// mesh bench %d\n" if name == "go.mod" else b"\n# mesh bench %d\n"
    texts = [
        original.replace(b"{", b'{"meshBench": %d, ' % n, 1) if name.endswith(".json") else original + comment % n
        for n in range(rounds)
    ]
    return _timed_rewrites(index, root, relative, texts), relative


def timed_manifest_sets(index, root: Path, rounds: int, relative: str, key: str, value: str) -> list[float]:
    """The JSON file ``relative`` (a ``package.json``, a ``tsconfig.json``) with the dotted ``key``
    set to ``value`` (a package renamed, a ``compilerOptions.baseUrl`` added, npm ``workspaces``
    given as JSON: ``["packages/*"]``; a value that is not JSON is a string), then put back,
    ``rounds`` times: each rewrite timed through ``Index.refresh(changed=[it])``, the set and the
    restore in turn."""
    original = (root / relative).read_bytes()
    data = json.loads(original)
    *parents, last = key.split(".")
    held = data
    for part in parents:
        held = held.setdefault(part, {})
    try:
        held[last] = json.loads(value)
    except ValueError:
        held[last] = value
    changed = (json.dumps(data, indent=2) + "\n").encode()
    return _timed_rewrites(index, root, relative, [changed, original] * rounds)


def walk_vs_rg(tree: Path, rounds: int) -> tuple[float, float, int, int]:
    sys.path.insert(0, str(ROOT))
    from mesh.index import walk

    ours, theirs = [], []
    count_ours = count_rg = 0
    for _ in range(rounds):
        started = time.perf_counter()
        count_ours = len(walk(tree).files)
        ours.append(time.perf_counter() - started)
        if shutil.which("rg"):
            started = time.perf_counter()
            done = subprocess.run(["rg", "--files", str(tree)], capture_output=True, check=False)
            theirs.append(time.perf_counter() - started)
            count_rg = done.stdout.count(b"\n")
    return statistics.median(ours), statistics.median(theirs) if theirs else float("nan"), count_ours, count_rg


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3, help="cold builds and restarts per tree (median)")
    parser.add_argument("--edits", type=int, default=10)
    args = parser.parse_args()
    results = []
    for tree in args.tree:
        tree = tree.resolve()
        files_on_disk, bytes_on_disk = tree_size(tree)
        colds, restarts, rss = [], [], []
        summary: dict = {}
        index_bytes = 0
        for _ in range(args.rounds):
            cache = Path(tempfile.mkdtemp(prefix="mesh-bench-"))
            try:
                elapsed, summary, peak = run_index(tree, cache)
                colds.append(elapsed)
                rss.append(peak)
                index_bytes = folder_bytes(cache)
                source_bytes, tables = indexed_bytes(cache)
                again, _, _ = run_index(tree, cache)
                restarts.append(again)
            finally:
                shutil.rmtree(cache, ignore_errors=True)
        cache = Path(tempfile.mkdtemp(prefix="mesh-bench-"))
        try:
            latencies, victim, victim_bytes = edit_latency(tree, cache, args.edits, "median")
            worst, worst_victim, worst_bytes = edit_latency(tree, cache, max(3, args.edits // 3), "largest")
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        walk_s, rg_s, walked, rg_files = walk_vs_rg(tree, 5)
        indexed = summary["files"]
        cold = statistics.median(colds)
        results.append(
            {
                "tree": str(tree),
                "files_on_disk": files_on_disk,
                "bytes_on_disk": bytes_on_disk,
                "files_indexed": indexed,
                "cold_s": cold,
                "cold_files_per_s": indexed / cold,
                "cold_mb_per_s": source_bytes / cold / 1e6,  # of the indexed files
                "restart_s": statistics.median(restarts),
                "peak_rss_mib": max(rss) / 1024,
                "index_bytes": index_bytes,
                "index_ratio": index_bytes / source_bytes,
                "index_ratio_to_tree": index_bytes / bytes_on_disk,
                "indexed_source_bytes": source_bytes,
                "index_tables": dict(list(tables.items())[:8]),
                "edit_visible_p50_s": statistics.median(latencies),
                "edit_visible_max_s": max(latencies),
                "edit_file": f"{victim} ({victim_bytes} bytes)",
                "largest_edit_p50_s": statistics.median(worst),
                "largest_edit_file": f"{worst_victim} ({worst_bytes} bytes)",
                "walk_s": walk_s,
                "rg_files_s": rg_s,
                "walk_files": walked,
                "rg_files": rg_files,
                "summary": {k: summary[k] for k in ("services", "files", "languages", "symbols", "parsed")},
                "problems": len(summary["failures"]),
            }
        )
    print(
        "| tree | files indexed (MB) | cold | files/s | MB/s | restart | peak RSS | index / indexed source (/ tree)"
        " | edit visible p50 (max), median file | largest file | walk vs rg --files |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        print(
            f"| {Path(r['tree']).name} | {r['files_indexed']} ({r['indexed_source_bytes'] / 1e6:.1f})"
            f" | {r['cold_s']:.2f} s | {r['cold_files_per_s']:.0f}"
            f" | {r['cold_mb_per_s']:.1f} | {r['restart_s']:.2f} s | {r['peak_rss_mib']:.0f} MiB"
            f" | {r['index_ratio']:.2f} ({r['index_ratio_to_tree']:.2f}), {r['index_bytes'] / 1e6:.1f} MB | {r['edit_visible_p50_s'] * 1000:.0f} ms"
            f" ({r['edit_visible_max_s'] * 1000:.0f} ms) | {r['largest_edit_p50_s'] * 1000:.0f} ms"
            f" | {r['walk_s'] * 1000:.0f} ms ({r['walk_files']} files) vs"
            f" {r['rg_files_s'] * 1000:.0f} ms ({r['rg_files']} files) |"
        )
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    (out / f"index-{stamp}.json").write_text(json.dumps(results, indent=2))
    for r in results:
        print(f"- {Path(r['tree']).name}: edited {r['edit_file']}; largest {r['largest_edit_file']}")
        print(f"  index tables (bytes): {r['index_tables']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
