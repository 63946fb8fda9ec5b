"""How mesh's costs grow with the number of files, on generated workspaces (bench/gen_workspace.py).

Run by hand, one heavy build at a time (never in CI; the machine is shared and noisy)::

    .venv/bin/python bench/scale.py --sizes 25000,100000,250000 --seed 1 --work /tmp/mesh-scale

For each size, in this order, nothing else of this script running meanwhile:

1. **the tree**: ``<work>/ws-<N>-s<seed>``, generated once (a ``.json`` beside it says it is whole,
   and by which version of the generator: the sha256 of gen_workspace.py) and reused by later runs
   of the same generator; the generator's wall time and peak RSS are reported when it ran.
2. **cold build**: ``mesh-mcp index --json`` into an emptied ``<work>/cache-<N>-s<seed>``, its own
   process: wall time and that process's peak RSS (``wait4``, so no earlier child masks it).
   With ``--cold-from EARLIER.json`` the cache that run left is kept and brought up to date, and
   its cold build's figures are reported, marked with that file's name: everything else is
   measured again after a change that does not touch the cold build, without an hour's rebuild.
3. **no-change restart**: the same command again on the same cache.
4. **index size**: the cache folder on disk, and the bytes of the files it holds (bench/index.py's
   ``folder_bytes`` and ``indexed_bytes``).
5. **edit to visible**: bench/index.py's method (the watcher running, a marker function appended,
   polled in snapshots) on a median and on the largest Python file, but in the tree itself on the
   built cache instead of a copy (a copy would be a second cold build); the file's bytes are put
   back and the index refreshed before the next step.
6. **tools through the daemon**: ``mesh-mcp mcp --workspace TREE`` (the proxy) starts ``meshd`` on
   that cache with a private socket folder; bench/tools.py's calls (drawn from the index with its
   fixed seed) are sent ``--rounds`` times once the daemon is idle; p50/p99 per call kind; the
   daemon's RSS at rest after the calls and its peak (``VmHWM``). The daemon is stopped (SIGTERM).

Results: JSON in bench/results/scale-<stamp>.json, a Markdown table on stdout, and a plot of each
cost against the number of files in docs/scale-plot.svg (matplotlib when it is installed, else an
SVG drawn here). ``--also OLD.json`` adds the sizes of earlier runs to the table and the plot.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT))

import index as bench_index  # noqa: E402  bench/index.py
import tools as bench_tools  # noqa: E402  bench/tools.py

from mesh.sockets import lock_path, socket_path  # noqa: E402
from mesh.workspace import cache_dir  # noqa: E402


def run_measured(argv: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (KiB) of this child alone, and its stdout."""
    with tempfile.TemporaryFile() as out:
        started = time.perf_counter()
        process = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {process.returncode}")
    return elapsed, usage.ru_maxrss, text


def ensure_tree(work: Path, files: int, seed: int) -> tuple[Path, dict]:
    tree = work / f"ws-{files}-s{seed}"
    done = work / f"ws-{files}-s{seed}.json"
    generator = hashlib.sha256((BENCH / "gen_workspace.py").read_bytes()).hexdigest()
    if tree.exists() and done.exists():
        known = json.loads(done.read_text())
        if known.get("generator") == generator:
            return tree, {**known, "reused": True}
    # a tree without its marker is a generation cut short; one of another generator is another tree
    shutil.rmtree(tree, ignore_errors=True)
    argv = [sys.executable, str(BENCH / "gen_workspace.py"), "--files", str(files), "--seed", str(seed), str(tree)]
    elapsed, peak, _ = run_measured(argv, dict(os.environ))
    on_disk_files, on_disk_bytes = bench_index.tree_size(tree)
    info = {"files": on_disk_files, "bytes": on_disk_bytes, "generate_s": elapsed, "generate_rss_kib": peak,
            "generator": generator}  # fmt: skip
    done.write_text(json.dumps(info, indent=2))
    return tree, {**info, "reused": False}


def edit_visible(tree: Path, cache: Path, edits: int, pick: str) -> tuple[list[float], str, int]:
    """bench/index.py's ``edit_latency`` in the tree itself, on the cache already built."""
    from mesh.index import Index

    index = Index(tree, cache_dir(tree, {"MESH_CACHE_DIR": str(cache)}))
    try:
        index.refresh()
        found = bench_index.timed_edits(index, tree, edits, pick, limit_s=60)
        index.refresh()  # the file's bytes are back: so is the index
        return found
    finally:
        index.close()


class ProxySession(bench_tools.Server):
    """bench/tools.py's client, through the proxy and the workspace's daemon (not ``--standalone``)."""

    def __init__(self, tree: Path, env: dict[str, str]) -> None:  # noqa: D107 - same protocol as the parent
        argv = [sys.executable, "-m", "mesh", "mcp", "--workspace", str(tree)]
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=tree
        )
        self.next_id = 0
        self.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "scale", "version": "0"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})


def status_kib(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def stop(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        if state == "Z":
            break
        time.sleep(0.05)


def tool_latencies(tree: Path, cache: Path, rounds: int) -> dict:
    """bench/tools.py's calls through a daemon; per-call p50/p99 and the daemon's memory."""
    import random
    import sqlite3

    sockets = Path(tempfile.mkdtemp(prefix="msc-", dir="/tmp"))  # short: a socket path has 107 bytes
    env = {
        **os.environ, "MESH_CACHE_DIR": str(cache), "MESH_SOCKET_PATH": str(sockets), "PYTHONPATH": str(ROOT),
        "MESH_DAEMON_START_S": "120",
    }  # fmt: skip
    db = sqlite3.connect(cache_dir(tree, env) / "index.db")
    calls = bench_tools.calls_for(db, random.Random(20261130))
    db.close()
    session = ProxySession(tree, env)
    pid = int(lock_path(socket_path(tree, env)).read_text())
    try:
        while session.call("smart_search", {"query": "x"})[1]["content"][0]["text"].startswith("Still indexing"):
            time.sleep(0.2)
        bench_tools.wait_idle(pid)
        idle_kib = status_kib(pid, "VmRSS")
        per_call: list[list[float]] = [[] for _ in calls]
        errors = [0] * len(calls)
        for _ in range(rounds):
            for number, (_, tool, arguments) in enumerate(calls):
                elapsed, result = session.call(tool, arguments)
                per_call[number].append(elapsed)
                errors[number] += bool(result.get("isError"))
        rest_kib = status_kib(pid, "VmRSS")
        peak_kib = status_kib(pid, "VmHWM")
    finally:
        session.close()
        stop(pid)
        shutil.rmtree(sockets, ignore_errors=True)
    rows: dict[str, dict] = {}
    for (label, _, _), values, failed in zip(calls, per_call, errors, strict=True):
        row = rows.setdefault(label, {"values": [], "errors": 0})
        row["values"] += values
        row["errors"] += failed
    for row in rows.values():
        values = sorted(row.pop("values"))
        row.update(
            calls=len(values),
            p50_ms=statistics.median(values) * 1000,
            p99_ms=values[min(len(values) - 1, int(len(values) * 0.99))] * 1000,
        )
    return {
        "tools": rows,
        "daemon_idle_rss_mib": idle_kib / 1024,
        "daemon_rss_mib": rest_kib / 1024,
        "daemon_peak_rss_mib": peak_kib / 1024,
    }


def measure(files: int, seed: int, work: Path, rounds: int, edits: int, cold_from: list[Path] = ()) -> dict:
    """Every figure of one size. With ``cold_from`` (earlier scale-*.json files, one measuring this size),
    the cache of that run is kept and its cold build's figures are reported (``cold_from`` says so):
    the rest is measured again without an hour's cold build."""
    tree, generated = ensure_tree(work, files, seed)
    print(f"[{files:,}] tree {tree} ({'reused' if generated['reused'] else 'generated'})", file=sys.stderr)
    cache = work / f"cache-{files}-s{seed}"
    env = {**os.environ, "MESH_CACHE_DIR": str(cache)}
    argv = [*bench_index.MESH, "index", str(tree), "--json"]
    earlier = source = None
    if cold_from:
        source, earlier = next(
            ((path, r) for path in cold_from for r in json.loads(path.read_text()) if r["files"] == files), (None, None)
        )
        if earlier is None or not (cache_dir(tree, env) / "index.db").exists():
            raise SystemExit(f"--cold-from: no figures of {files} files in {cold_from}, or no cache in {cache}")
        cold_s, cold_kib = earlier["cold_s"], earlier["build_peak_rss_mib"] * 1024
        run_measured(argv, env)  # brings the kept cache up to date first
        restart_s, restart_kib, text = run_measured(argv, env)
        summary = json.loads(text)
    else:
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir(parents=True)
        cold_s, cold_kib, text = run_measured(argv, env)
        summary = json.loads(text)
        print(f"[{files:,}] cold build {cold_s:.1f} s, peak RSS {cold_kib / 1024:.0f} MiB", file=sys.stderr)
        restart_s, restart_kib, _ = run_measured(argv, env)
    index_bytes = bench_index.folder_bytes(cache)
    source_bytes, tables = bench_index.indexed_bytes(cache)
    latencies, victim, victim_bytes = edit_visible(tree, cache, edits, "median")
    worst, worst_victim, worst_bytes = edit_visible(tree, cache, max(3, edits // 3), "largest")
    print(f"[{files:,}] restart {restart_s:.2f} s, edit p50 {statistics.median(latencies) * 1000:.0f} ms", file=sys.stderr)
    served = tool_latencies(tree, cache, rounds)
    return {
        "files": files,
        "seed": seed,
        "tree": str(tree),
        "generated": generated,
        "files_indexed": summary["files"],
        "services": summary["services"],
        "languages": summary["languages"],
        "symbols": summary["symbols"],
        "grpc": {k: summary.get(k) for k in ("grpc_services", "grpc_methods", "grpc_implementations", "grpc_clients")},
        "problems": len(summary["failures"]),
        "cold_from": source.name if source is not None else "",
        "cold_s": cold_s,
        "cold_files_per_s": summary["files"] / cold_s,
        "cold_mb_per_s": earlier["cold_mb_per_s"] if earlier is not None else source_bytes / cold_s / 1e6,
        "build_peak_rss_mib": cold_kib / 1024,
        "restart_s": restart_s,
        "restart_peak_rss_mib": restart_kib / 1024,
        "index_bytes": index_bytes,
        "indexed_source_bytes": source_bytes,
        "index_ratio": index_bytes / source_bytes,
        "index_tables": dict(list(tables.items())[:8]),
        "edit_visible_p50_s": statistics.median(latencies),
        "edit_visible_max_s": max(latencies),
        "edit_file": f"{victim} ({victim_bytes} bytes)",
        "largest_edit_p50_s": statistics.median(worst),
        "largest_edit_file": f"{worst_victim} ({worst_bytes} bytes)",
        **served,
    }


def table(results: list[dict]) -> str:
    lines = [
        "| files (MB) | services | cold build | files/s | restart | edit visible p50 (largest file) | index on disk"
        " (/ source) | build peak RSS | daemon RSS at rest (peak) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        lines.append(
            f"| {r['files_indexed']:,} ({r['indexed_source_bytes'] / 1e6:,.0f}) | {r['services']} | {r['cold_s']:,.1f} s"
            f"{' (' + r['cold_from'] + ')' if r.get('cold_from') else ''}"
            f" | {r['cold_files_per_s']:,.0f} | {r['restart_s']:.2f} s | {r['edit_visible_p50_s'] * 1000:,.0f} ms"
            f" ({r['largest_edit_p50_s'] * 1000:,.0f} ms) | {r['index_bytes'] / 1e6:,.0f} MB ({r['index_ratio']:.2f})"
            f" | {r['build_peak_rss_mib']:,.0f} MiB | {r['daemon_rss_mib']:,.0f} MiB ({r['daemon_peak_rss_mib']:,.0f} MiB) |"
        )
    labels = list(dict.fromkeys(label for r in results for label in r["tools"]))
    head = " | ".join(f"{r['files_indexed']:,} files p50 (p99) ms" for r in results)
    lines += ["", f"| call | {head} |", "| --- |" + " ---: |" * len(results)]
    for label in labels:
        cells = []
        for r in results:
            row = r["tools"].get(label)
            cells.append("-" if row is None else f"{row['p50_ms']:,.1f} ({row['p99_ms']:,.1f})"
                         + (f", {row['errors']} errors" if row["errors"] else ""))  # fmt: skip
        lines.append(f"| {label} | {' | '.join(cells)} |")
    return "\n".join(lines)


#: (panel title, unit, [(series label, value of a result)])
PANELS = [
    ("build and refresh", "s", [
        ("cold build", lambda r: r["cold_s"]),
        ("no-change restart", lambda r: r["restart_s"]),
        ("edit visible p50", lambda r: r["edit_visible_p50_s"]),
        ("largest file edit p50", lambda r: r["largest_edit_p50_s"]),
    ]),
    ("size and memory", "MB / MiB", [
        ("index on disk (MB)", lambda r: r["index_bytes"] / 1e6),
        ("build peak RSS (MiB)", lambda r: r["build_peak_rss_mib"]),
        ("daemon RSS (MiB)", lambda r: r["daemon_rss_mib"]),
        ("daemon peak RSS (MiB)", lambda r: r["daemon_peak_rss_mib"]),
    ]),
]  # fmt: skip


def series(results: list[dict]) -> list[tuple[str, str, list[tuple[str, list[tuple[float, float]]]]]]:
    """Every panel's lines as (label, [(files, value)]), the tools' p50s as a third panel."""
    ordered = sorted(results, key=lambda r: r["files_indexed"])
    panels = [
        (title, unit, [(label, [(r["files_indexed"], get(r)) for r in ordered]) for label, get in lines])
        for title, unit, lines in PANELS
    ]
    labels = list(dict.fromkeys(label for r in ordered for label in r["tools"]))
    tool_lines = [
        (label, [(r["files_indexed"], r["tools"][label]["p50_ms"]) for r in ordered if label in r["tools"]])
        for label in labels
    ]
    panels.append(("tool p50", "ms", tool_lines))
    return panels


def plot(results: list[dict], path: Path) -> str:
    """Write the plot; returns what drew it."""
    try:
        import matplotlib

        matplotlib.use("svg")
        import matplotlib.pyplot as plt
    except ImportError:
        path.write_text(hand_svg(series(results)))
        return "hand-written SVG"
    panels = series(results)
    figure, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5))
    for ax, (title, unit, lines) in zip(axes, panels, strict=True):
        for number, (label, points) in enumerate(lines):  # past 10 lines the colours repeat: dash them
            ax.plot([x for x, _ in points], [y for _, y in points], marker="o", label=label,
                    linestyle="-" if number < 10 else "--")  # fmt: skip
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("files in the workspace")
        ax.set_ylabel(unit)
        ax.legend(fontsize=6)
        ax.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, format="svg", metadata={"Date": None})
    plt.close(figure)
    return f"matplotlib {matplotlib.__version__}"


def hand_svg(panels: list) -> str:
    """The same panels as :func:`plot`, log-log, drawn without matplotlib."""
    import math

    colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
               "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39"]  # fmt: skip
    width, height, pad = 420, 360, 50
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * len(panels)}" height="{height + 160}"'
             ' font-family="sans-serif" font-size="10">']  # fmt: skip
    for number, (title, unit, lines) in enumerate(panels):
        left = number * width
        points = [p for _, pts in lines for p in pts if p[1] > 0]
        if not points:
            continue
        x0, x1 = math.log10(min(p[0] for p in points)), math.log10(max(p[0] for p in points))
        y0, y1 = math.log10(min(p[1] for p in points)), math.log10(max(p[1] for p in points))
        x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)

        def at(x: float, y: float) -> tuple[float, float]:
            return (left + pad + (math.log10(x) - x0) / (x1 - x0) * (width - 2 * pad),  # noqa: B023
                    height - pad - (math.log10(y) - y0) / (y1 - y0) * (height - 2 * pad))  # noqa: B023  # fmt: skip

        parts.append(f'<text x="{left + width / 2}" y="20" text-anchor="middle" font-size="13">{title} ({unit},'
                     " log-log)</text>")  # fmt: skip
        parts.append(f'<rect x="{left + pad}" y="{pad}" width="{width - 2 * pad}" height="{height - 2 * pad}"'
                     ' fill="none" stroke="#999"/>')  # fmt: skip
        for x, label in sorted({(p[0], f"{p[0]:,.0f}") for p in points}):
            sx, _ = at(x, 10**y0)
            parts.append(f'<text x="{sx:.1f}" y="{height - pad + 14}" text-anchor="middle">{label}</text>')
        for y in (10**y0, 10**y1):
            _, sy = at(10**x0, y)
            parts.append(f'<text x="{left + pad - 4}" y="{sy:.1f}" text-anchor="end">{y:,.3g}</text>')
        for index, (label, pts) in enumerate(lines):
            colour = colours[index % len(colours)]
            drawn = [at(x, y) for x, y in pts if y > 0]
            if len(drawn) > 1:
                path = " ".join(f"{sx:.1f},{sy:.1f}" for sx, sy in drawn)
                parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
            parts += [f'<circle cx="{sx:.1f}" cy="{sy:.1f}" r="3" fill="{colour}"/>' for sx, sy in drawn]
            parts.append(f'<text x="{left + pad}" y="{height + 10 + index * 11}" fill="{colour}">{label}</text>')
    parts.append("</svg>\n")
    return "\n".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="25000,100000,250000", help="comma-separated file counts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=Path, required=True, help="where trees and caches are kept between runs")
    parser.add_argument("--rounds", type=int, default=5, help="times each tool call is sent")
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--cold-from", type=Path, action="append", default=[],
                        help="keep the caches and report the cold builds of this earlier run (repeatable)")  # fmt: skip
    parser.add_argument("--also", type=Path, action="append", default=[], help="an earlier scale-*.json to add")
    parser.add_argument("--plot", type=Path, default=ROOT / "docs" / "scale-plot.svg")
    args = parser.parse_args()
    try:
        sizes = [int(size.replace("_", "")) for size in args.sizes.split(",") if size.strip()]
    except ValueError:
        parser.error(f"--sizes takes comma-separated whole numbers, not {args.sizes!r}")
    if not sizes or min(sizes) < 200:
        parser.error("every size must be at least 200 files")
    args.work.mkdir(parents=True, exist_ok=True)
    results = [measure(size, args.seed, args.work.resolve(), args.rounds, args.edits, args.cold_from) for size in sizes]
    out = ROOT / "bench" / "results" / f"scale-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    shown = [*results]
    for earlier in args.also:
        known = {r["files"] for r in shown}
        shown += [r for r in json.loads(earlier.read_text()) if r["files"] not in known]
    shown.sort(key=lambda r: r["files"])
    print(table(shown))
    drawn = plot(shown, args.plot)
    for r in shown:
        made = r["generated"]
        how = "reused" if made["reused"] else f"generated in {made['generate_s']:.0f} s, {made['generate_rss_kib'] / 1024:.0f} MiB"
        print(f"- {r['files']:,} files ({made['bytes'] / 1e6:,.0f} MB on disk, {how}): edited {r['edit_file']};"
              f" largest {r['largest_edit_file']};"
              f" tables {r['index_tables']}")  # fmt: skip
    print(f"\nwritten {out}; plot {args.plot} ({drawn})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
