"""The memory a cold build takes, against the workspace's files: the figures behind
``mesh/index/build/_memory.py``'s model.

Run by hand, one build at a time (never in CI; the machine is shared)::

    .venv/bin/python bench/memory.py /root/.pyenv/versions/3.11.7/lib/python3.11 /tmp/ws-8000

For each tree, ``mesh-mcp index --json`` runs in its own process into a fresh throwaway cache
folder, while this script samples every 0.1 s the resident memory (``VmRSS``) of that process and
of every process under it (the parse workers), and at the end reads the model's estimate for the
same files. Per tree it reports: the files and bytes walked (the summary's ``files``; the bytes from
``stat``), the build process's own peak (``ru_maxrss`` from ``wait4``: that process alone, like
bench/scale.py's "build peak RSS"), the largest sum of the whole tree of processes seen at one
sample (what the machine must hold: the workers count too), the largest single worker seen, and the
estimate. A sample every 0.1 s may miss a peak shorter than that: the sum is a lower bound.

With ``--daemon``, each tree is served instead: ``mesh-mcp daemon`` on a fresh cache (a private
socket folder), sampled the same way until its index is whole (``meta.stage`` ``full``) and 5 s
more at rest, then stopped (SIGTERM); the estimate is then ``serve_need``. No tool is called: the
peak under load is bench/scale.py's.

Results: JSON in bench/results/memory-<stamp>.json and a Markdown table on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))

from mesh.index.build._memory import build_need, serve_need, worker_need  # noqa: E402

MIB = 1 << 20


def _status(pid: int) -> dict[str, int]:
    found = {}
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    found[key] = int(value.split()[0]) * 1024
    except OSError:
        pass
    return found


def _children() -> dict[int, list[int]]:
    """ppid -> pids, of every process now."""
    under: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        under.setdefault(ppid, []).append(int(name))
    return under


def _tree(pid: int) -> list[int]:
    under = _children()
    found, todo = [], [pid]
    while todo:
        here = todo.pop()
        found.append(here)
        todo.extend(under.get(here, ()))
    return found


def walked(tree: Path) -> tuple[int, int, int]:
    """Files, bytes and the largest file's bytes as the index walks them (its rules: ignores, size
    cap, vendored, secrets)."""
    from mesh.index.build._enumerate import walk
    from mesh.index.build._workspace import Config, ConfigError, ignore_patterns, load_config

    try:
        config = load_config(tree)
    except ConfigError:
        config = Config()
    found = walk(tree, max_file_bytes=config.max_file_bytes, include_vendored=config.include_vendored,
                 include_secrets=config.include_secrets,
                 extra_ignores=ignore_patterns(config.ignore, config.services or ()))  # fmt: skip
    sizes = [entry.size for entry in found.files]
    return len(sizes), sum(sizes), max(sizes, default=0)


def _index_whole(db: Path) -> bool:
    import sqlite3

    if not db.exists():
        return False
    try:
        connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1.0)
        try:
            row = connection.execute("SELECT value FROM meta WHERE key = 'stage'").fetchone()
        finally:
            connection.close()
    except sqlite3.Error:
        return False
    return row == ("full",)


def measure_daemon(tree: Path) -> dict:
    """Peak memory of a daemon building the index of ``tree`` and then at rest for 5 s."""
    import signal

    from mesh.workspace import cache_dir

    cache = Path(tempfile.mkdtemp(prefix="mesh-memory-"))
    sockets = Path(tempfile.mkdtemp(prefix="mm-", dir="/tmp"))
    env = dict(os.environ, MESH_CACHE_DIR=str(cache), MESH_SOCKET_PATH=str(sockets), MESH_MEMORY_CHECK="off")
    db = cache_dir(tree, {"MESH_CACHE_DIR": str(cache)}) / "index.db"
    argv = [sys.executable, "-m", "mesh", "daemon", "--workspace", str(tree), "--idle-exit", "0"]
    started = time.perf_counter()
    process = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak_sum = peak_worker = 0
    whole_at = None
    try:
        while whole_at is None or time.perf_counter() - whole_at < 5.0:
            if process.poll() is not None:
                raise RuntimeError(f"the daemon exited {process.returncode}")
            pids = _tree(process.pid)
            rss = {p: _status(p).get("VmRSS", 0) for p in pids}
            peak_sum = max(peak_sum, sum(rss.values()))
            peak_worker = max([peak_worker, *(v for p, v in rss.items() if p != process.pid)])
            if whole_at is None and _index_whole(db):
                whole_at = time.perf_counter()
            time.sleep(0.1)
        daemon_hwm = _status(process.pid).get("VmHWM", 0)
        rest = sum(_status(p).get("VmRSS", 0) for p in _tree(process.pid))
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(sockets, ignore_errors=True)
    files, size, largest = walked(tree)
    workers = os.cpu_count() or 1
    return {
        "tree": str(tree),
        "daemon": True,
        "files_walked": files,
        "bytes_walked": size,
        "largest_bytes": largest,
        "elapsed_s": round((whole_at or started) - started, 2),
        "main_peak_mib": round(daemon_hwm / MIB, 1),
        "tree_peak_mib": round(peak_sum / MIB, 1),
        "tree_rest_mib": round(rest / MIB, 1),
        "worker_peak_mib": round(peak_worker / MIB, 1),
        "estimate_mib": round(serve_need(files, workers=workers, largest=largest) / MIB, 1),
        "worker_estimate_mib": round(worker_need(largest) / MIB, 1),
        "workers": workers,
    }


def measure(tree: Path, workers: int | None) -> dict:
    cache = Path(tempfile.mkdtemp(prefix="mesh-memory-"))
    env = dict(os.environ, MESH_CACHE_DIR=str(cache), MESH_MEMORY_CHECK="off")
    argv = [sys.executable, "-m", "mesh", "index", str(tree), "--json"]
    if workers:
        argv += ["--workers", str(workers)]
    try:
        with tempfile.TemporaryFile() as out:
            started = time.perf_counter()
            process = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=out, stderr=subprocess.DEVNULL)
            peak_sum = peak_worker = 0
            while True:
                pid, status, usage = os.wait4(process.pid, os.WNOHANG)
                if pid:
                    break
                pids = _tree(process.pid)
                rss = {p: _status(p).get("VmRSS", 0) for p in pids}
                peak_sum = max(peak_sum, sum(rss.values()))
                peak_worker = max([peak_worker, *(v for p, v in rss.items() if p != process.pid)])
                time.sleep(0.1)
            elapsed = time.perf_counter() - started
            if os.waitstatus_to_exitcode(status) != 0:
                raise RuntimeError(f"{' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
            out.seek(0)
            summary = json.loads(out.read())
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    files, size, largest = walked(tree)
    workers = workers or os.cpu_count() or 1
    return {
        "tree": str(tree),
        "files_walked": files,
        "bytes_walked": size,
        "largest_bytes": largest,
        "files_indexed": summary["files"],
        "elapsed_s": round(elapsed, 2),
        "main_peak_mib": round(usage.ru_maxrss * 1024 / MIB, 1),
        "tree_peak_mib": round(peak_sum / MIB, 1),
        "worker_peak_mib": round(peak_worker / MIB, 1),
        "estimate_mib": round(build_need(files, workers=workers, largest=largest) / MIB, 1),
        "worker_estimate_mib": round(worker_need(largest) / MIB, 1),
        "workers": workers,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--daemon", action="store_true", help="serve each tree (meshd) instead of `mesh-mcp index`")
    args = parser.parse_args()
    rows = []
    for tree in args.trees:
        row = measure_daemon(tree.resolve()) if args.daemon else measure(tree.resolve(), args.workers)
        print(json.dumps(row), file=sys.stderr, flush=True)
        rows.append(row)
    results = BENCH / "results"
    results.mkdir(exist_ok=True)
    (results / f"memory-{time.strftime('%Y%m%d-%H%M%S')}.json").write_text(json.dumps(rows, indent=2) + "\n")
    print("| tree | files (MB, largest KB) | build process peak | whole tree peak (largest worker)"
          " | estimate (a worker) | time |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print(
            f"| {Path(row['tree']).name} | {row['files_walked']:,}"
            f" ({row['bytes_walked'] / 1e6:.0f}, {row['largest_bytes'] / 1024:.0f})"
            f" | {row['main_peak_mib']:.0f} MiB | {row['tree_peak_mib']:.0f} MiB ({row['worker_peak_mib']:.0f} MiB)"
            f" | {row['estimate_mib']:.0f} MiB ({row['worker_estimate_mib']:.0f} MiB) | {row['elapsed_s']:.0f} s |"
        )


if __name__ == "__main__":
    main()
