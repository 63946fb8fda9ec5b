"""Benchmark: mesh-mcp vs the official MCP Python SDK vs a bare loop, over real stdio pipes.

    .venv/bin/python bench/run.py [--quick] [--reps N]

Not a test, never imported by the tests. Every server is a subprocess; the client writes frames to
its stdin pipe and reads answer lines from its stdout pipe. Servers are measured interleaved (the
order rotates every repetition) so that noise on a shared machine hits all of them alike; each
figure is the median over the repetitions. Prints a Markdown table and writes the raw figures to
``bench/results/<timestamp>.json`` (git-ignored).

Figures, per server:

1. sequential ``ping`` round trips (write one frame, wait for its answer line): p50/p95/p99;
2. sequential ``tools/list`` round trips: p50/p95/p99;
3. pipelined throughput: N requests (``ping``, then ``tools/call echo``) written as fast as
   possible by one thread while another reads the answers; requests/s until the last answer;
4. cold start: spawn to the ``initialize`` answer (median over many starts);
5. peak RSS of the server: ``VmHWM`` from ``/proc/<pid>/status`` just before it exits (``ru_maxrss``
   from ``wait4`` is in the raw JSON but inherits the client's RSS across fork+exec).

Also recorded: sequential ``tools/call echo`` round trips (extra, not a target figure); the server's
CPU time per request in each phase (its process CPU clock); a diagnostic fourth server,
``mesh_inline_server.py`` (mesh's session core driven by a plain blocking read/write loop, tools
run inline: no poll loop, no worker pool), to split mesh's cost between protocol core and driver; a stage-by-stage timing and a
``-X importtime`` profile of mesh-mcp's start.
"""

from __future__ import annotations

import argparse
import ast
import ctypes
import ctypes.util
import datetime as dt
import math
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"
PY = sys.executable
CLK_TCK = os.sysconf("SC_CLK_TCK")
_LIBC = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)

SERVERS: dict[str, list[str]] = {
    "bare": [PY, str(BENCH / "bare_server.py")],
    "mesh": [PY, "-m", "mesh", "mcp", "--standalone"],
    "sdk": [PY, str(BENCH / "sdk_server.py")],
    # Diagnostic, not one of the compared servers: mesh's session core in a plain loop (no pump).
    "inline": [PY, str(BENCH / "mesh_inline_server.py")],
}
ORDER = ("bare", "mesh", "sdk", "inline")

# Same environment for every server: the test tools plugin only matters to mesh.
#
# Bytecode: this sandbox exports PYTHONDONTWRITEBYTECODE=1 and the mesh tree has no __pycache__,
# so a plain start compiles every mesh source, while stdlib and site-packages (the SDK) come with
# their .pyc. For a like-for-like comparison every interpreter here caches bytecode under
# bench/results/pycache (PYTHONPYCACHEPREFIX, git-ignored; nothing is written into the sources'
# folders) and each server is started once before timing. The uncached case is measured apart
# ("mesh, no bytecode cache": the environment exactly as exported).
BASE_ENV = {**os.environ, "PYTHONPATH": str(ROOT), "MESH_TOOL_PLUGINS": "tests.support.tools"}
for _var in ("COVERAGE_PROCESS_START", "COVERAGE_PROCESS_CONFIG", "PYTHONPROFILEIMPORTTIME"):
    BASE_ENV.pop(_var, None)
ENV = {**BASE_ENV, "PYTHONPYCACHEPREFIX": str(RESULTS / "pycache")}
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
NO_PYC_ENV = {**BASE_ENV, "PYTHONDONTWRITEBYTECODE": "1"}
NO_PYC_ENV.pop("PYTHONPYCACHEPREFIX", None)

INITIALIZE = orjson.dumps({
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "mesh-bench", "version": "0.1.0"}},
}) + b"\n"
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'


def ping(i: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i


def tools_list(i: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"tools/list"}\n' % i


def echo_call(i: int) -> bytes:
    return (b'{"jsonrpc":"2.0","id":%d,"method":"tools/call",'
            b'"params":{"name":"echo","arguments":{"text":"hello"}}}\n' % i)


# --- one server process ---------------------------------------------------------------------


class Server:
    """One server subprocess, handshake done; frames go in through ``os.write``, answers come out
    through a buffered reader."""

    def __init__(self, name: str, stderr_path: Path, env: dict[str, str] = ENV) -> None:
        self.name = name
        self._cpu_clock: int | None = None
        self._stderr = open(stderr_path, "ab")
        t0 = time.perf_counter_ns()
        self.proc = subprocess.Popen(
            SERVERS[name], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            cwd=ROOT, env=env,
        )
        self.fd = self.proc.stdin.fileno()  # type: ignore[union-attr]
        self.out = self.proc.stdout  # a BufferedReader: C readline / read1
        self.write(INITIALIZE)
        line = self.out.readline()  # type: ignore[union-attr]
        self.cold_start_ns = time.perf_counter_ns() - t0
        answer = orjson.loads(line)
        if answer.get("id") != 0 or "result" not in answer:
            raise RuntimeError(f"{name}: bad initialize answer {line[:200]!r}")
        self.write(INITIALIZED)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]

    def cpu_s(self) -> float:
        """CPU time (user + system) of the server process, all its threads, in seconds.

        Read through the process's CPU-time clock (``clock_getcpuclockid``: ns resolution);
        falls back to utime + stime from ``/proc/<pid>/stat`` (10 ms ticks)."""
        if self._cpu_clock is None:
            clock = ctypes.c_int()
            self._cpu_clock = clock.value if _LIBC.clock_getcpuclockid(self.proc.pid, ctypes.byref(clock)) == 0 else -1
        if self._cpu_clock != -1:
            try:
                return time.clock_gettime(self._cpu_clock)
            except OSError:
                pass
        with open(f"/proc/{self.proc.pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def syscalls(self) -> tuple[int, int]:
        """(read, write) system calls made so far by the server process (``/proc/<pid>/io``)."""
        with open(f"/proc/{self.proc.pid}/io") as f:
            fields = dict(line.split(": ") for line in f.read().splitlines())
        return int(fields["syscr"]), int(fields["syscw"])

    def status(self) -> dict[str, int]:
        """VmHWM / VmRSS (kB) and thread count from /proc/<pid>/status."""
        out: dict[str, int] = {}
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmHWM", "VmRSS", "Threads"):
                    out[key] = int(value.split()[0])
        return out

    def close(self) -> dict[str, Any]:
        """Read VmHWM just before exit, close stdin, reap with wait4 (ru_maxrss, CPU)."""
        before = self.status()
        self.proc.stdin.close()  # type: ignore[union-attr]
        rest = self.out.read()  # type: ignore[union-attr]
        _pid, status, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self._stderr.close()
        return {
            "vmhwm_kb": before["VmHWM"], "vmrss_kb": before["VmRSS"], "threads": before["Threads"],
            # ru_maxrss survives exec: it is at least the client's own RSS at fork time, so it
            # over-reports small servers. Kept in the raw JSON only; VmHWM is the figure.
            "ru_maxrss_kb": usage.ru_maxrss, "cpu_total_s": usage.ru_utime + usage.ru_stime,
            "exit_code": self.proc.returncode, "trailing_output_bytes": len(rest),
        }

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted list."""
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


def sequential(server: Server, make: Callable[[int], bytes], n: int, first_id: int) -> dict[str, Any]:
    """n round trips, one frame in flight at a time; latencies in microseconds."""
    frames = [make(first_id + i) for i in range(n)]
    lines: list[bytes] = [b""] * n
    lat = [0] * n
    write, readline, clock = server.write, server.out.readline, time.perf_counter_ns  # type: ignore[union-attr]
    io0 = server.syscalls()
    cpu0 = server.cpu_s()
    for i, frame in enumerate(frames):
        t = clock()
        write(frame)
        lines[i] = readline()
        lat[i] = clock() - t
    cpu1 = server.cpu_s()
    io1 = server.syscalls()
    for i, line in enumerate(lines):  # verify, outside the timed loop
        answer = orjson.loads(line)
        if answer.get("id") != first_id + i or "result" not in answer:
            raise RuntimeError(f"{server.name}: unexpected answer {line[:200]!r}")
    us = sorted(x / 1000 for x in lat)
    return {
        "n": n, "p50_us": percentile(us, 0.50), "p95_us": percentile(us, 0.95),
        "p99_us": percentile(us, 0.99), "mean_us": statistics.fmean(us), "max_us": us[-1],
        "answer_bytes": len(lines[0]), "server_cpu_us_per_req": (cpu1 - cpu0) * 1e6 / n,
        "server_reads_per_req": (io1[0] - io0[0]) / n, "server_writes_per_req": (io1[1] - io0[1]) / n,
    }


def pipelined(server: Server, make: Callable[[int], bytes], n: int, first_id: int) -> dict[str, Any]:
    """Write n frames as fast as possible (main thread) while a reader thread takes the answers."""
    blob = b"".join(make(first_id + i) for i in range(n))
    chunks: list[bytes] = []
    end_ns = [0]

    def reader() -> None:
        seen = 0
        read1 = server.out.read1  # type: ignore[union-attr]
        while seen < n:
            data = read1(1 << 16)
            if not data:
                break
            chunks.append(data)
            seen += data.count(b"\n")
        end_ns[0] = time.perf_counter_ns()

    thread = threading.Thread(target=reader, daemon=True)
    io0 = server.syscalls()
    cpu0 = server.cpu_s()
    thread.start()
    t0 = time.perf_counter_ns()
    view = memoryview(blob)
    step = 1 << 16
    for start in range(0, len(blob), step):
        server.write(view[start:start + step])
    write_done = time.perf_counter_ns()
    thread.join(timeout=600)
    if thread.is_alive():
        raise RuntimeError(f"{server.name}: pipelined answers did not arrive")
    cpu1 = server.cpu_s()
    io1 = server.syscalls()
    lines = b"".join(chunks).splitlines()
    ids = set()
    for line in lines:
        answer = orjson.loads(line)
        if "result" not in answer or answer["result"].get("isError"):
            raise RuntimeError(f"{server.name}: unexpected answer {line[:200]!r}")
        ids.add(answer["id"])
    if len(lines) != n or ids != set(range(first_id, first_id + n)):
        raise RuntimeError(f"{server.name}: {len(lines)} answers for {n} requests")
    elapsed = (end_ns[0] - t0) / 1e9
    return {
        "n": n, "elapsed_s": elapsed, "req_per_s": n / elapsed,
        "write_s": (write_done - t0) / 1e9, "server_cpu_us_per_req": (cpu1 - cpu0) * 1e6 / n,
        "server_reads_per_req": (io1[0] - io0[0]) / n, "server_writes_per_req": (io1[1] - io0[1]) / n,
    }


def session(name: str, n_seq: int, n_pipe: int, warmup: int, stderr_path: Path) -> dict[str, Any]:
    server = Server(name, stderr_path)
    try:
        next_id = 1
        for make in (ping, tools_list, echo_call):  # warm up every path once
            sequential(server, make, warmup, next_id)
            next_id += warmup
        out: dict[str, Any] = {"cold_start_ms": server.cold_start_ns / 1e6}
        out["ping"] = sequential(server, ping, n_seq, next_id)
        next_id += n_seq
        out["tools_list"] = sequential(server, tools_list, n_seq, next_id)
        next_id += n_seq
        out["echo"] = sequential(server, echo_call, n_seq, next_id)  # extra: not a target figure
        next_id += n_seq
        out["pipe_ping"] = pipelined(server, ping, n_pipe, next_id)
        next_id += n_pipe
        out["pipe_echo"] = pipelined(server, echo_call, n_pipe, next_id)
        next_id += n_pipe
        out["exit"] = server.close()
        return out
    finally:
        server.kill()


def cold_starts(name: str, stderr_path: Path, env: dict[str, str] = ENV) -> float:
    server = Server(name, stderr_path, env)
    try:
        ms = server.cold_start_ns / 1e6
        server.close()
        return ms
    finally:
        server.kill()


def python_startup_ms() -> float:
    """The interpreter alone (same venv, same environment): spawn to exit of ``python -c pass``."""
    t0 = time.perf_counter_ns()
    subprocess.run([PY, "-c", "pass"], env=ENV, cwd=ROOT, check=True)
    return (time.perf_counter_ns() - t0) / 1e6


def import_profile_sample(samples: dict[tuple[str, int], list[tuple[int, int]]]) -> None:
    """One ``python -X importtime -m mesh mcp`` up to the initialize answer; adds (self, cumulative)
    microseconds per top-level and first-level import to ``samples``."""
    proc = subprocess.run(
        [PY, "-X", "importtime", "-m", "mesh", "mcp", "--standalone"], input=INITIALIZE, capture_output=True,
        env=ENV, cwd=ROOT, timeout=60, check=True,
    )
    for line in proc.stderr.decode().splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        self_part, cum_part, name = line.split("|", 2)
        depth = (len(name) - len(name.lstrip(" ")) - 1) // 2
        if depth <= 1:
            samples.setdefault((name.strip(), depth), []).append((int(self_part.split(":")[1]), int(cum_part)))


def import_profile(samples: dict[tuple[str, int], list[tuple[int, int]]], top: int = 14) -> list[dict[str, Any]]:
    """The imports with the largest median cumulative time. ``-X importtime`` itself inflates the
    figures; the stage breakdown does not."""
    rows = [
        {"module": module, "depth": depth, "self_us": med([x[0] for x in values]),
         "cumulative_us": med([x[1] for x in values])}
        for (module, depth), values in samples.items()
    ]
    rows.sort(key=lambda r: r["cumulative_us"], reverse=True)
    return rows[:top]


# Each stage is timed inside one fresh interpreter, in this order, so every figure is marginal:
# what the stage adds on top of everything before it. Mirrors ``mesh.cli.main`` up to serving.
STAGES = r"""
import sys, time
def rss_kb():
    with open("/proc/self/status") as f:
        return int(next(line for line in f if line.startswith("VmRSS:")).split()[1])
marks = [("interpreter start (python -c)", 0.0, rss_kb())]
t = time.perf_counter()
def mark(name):
    global t
    now = time.perf_counter()
    marks.append((name, (now - t) * 1e3, rss_kb()))
    t = time.perf_counter()
import orjson; mark("import orjson (the bare loop pays this too)")
import attrs; mark("import attrs")
import mesh; mark("import mesh")
import mesh.protocol; mark("import mesh.protocol")
import mesh.tools; mark("import mesh.tools (+ mesh.render)")
import mesh.drivers.stdio; mark("import mesh.drivers.stdio")
import mesh.cli; mark("import mesh.cli (argparse, logging)")
from pathlib import Path
args = mesh.cli._parser().parse_args(["mcp"]); mesh.cli._setup_logging(None); mark("argparse + logging setup")
ws = mesh.workspace.find_workspace(Path.cwd()); mark("find_workspace")
reg = mesh.tools.builtin_registry(); mesh.tools.load_plugins(reg, ["tests.support.tools"]); mark("load test tools plugin")
from mesh.protocol import ServerSession, SessionConfig
session = ServerSession(SessionConfig(), mesh.drivers.stdio.catalogue(reg)); mark("catalogue + ServerSession")
heavy = ("importlib.metadata", "email", "dataclasses", "inspect", "asyncio", "concurrent.futures", "typing",
         "argparse", "logging", "selectors", "json")
sys.stderr.write(repr({"marks": marks, "loaded": [m for m in heavy if m in sys.modules]}))
"""


def startup_stages_sample(samples: dict[str, list[tuple[float, int]]], loaded: set[str]) -> None:
    """One fresh interpreter running STAGES; adds (ms, RSS kB) per stage to ``samples`` and the
    notable modules loaded by the end to ``loaded``."""
    proc = subprocess.run([PY, "-c", STAGES], capture_output=True, env=ENV, cwd=ROOT, timeout=60, check=True)
    out = ast.literal_eval(proc.stderr.decode())
    for name, ms, rss in out["marks"]:
        samples.setdefault(name, []).append((ms, rss))
    loaded.update(out["loaded"])


def startup_stages(samples: dict[str, list[tuple[float, int]]]) -> list[dict[str, Any]]:
    return [{"stage": name, "ms": med([v[0] for v in values]), "rss_after_kb": med([v[1] for v in values])}
            for name, values in samples.items()]


# --- reporting ------------------------------------------------------------------------------


def med(values: list[float]) -> float:
    return statistics.median(values)


def summarize(runs: dict[str, list[dict[str, Any]]], colds: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    s: dict[str, dict[str, float]] = {}
    for name, reps in runs.items():
        f: dict[str, float] = {}
        for phase in ("ping", "tools_list", "echo"):
            for key in ("p50_us", "p95_us", "p99_us", "server_cpu_us_per_req", "server_reads_per_req",
                        "server_writes_per_req"):
                f[f"{phase}.{key}"] = med([r[phase][key] for r in reps])
            f[f"{phase}.answer_bytes"] = reps[0][phase]["answer_bytes"]
        for phase in ("pipe_ping", "pipe_echo"):
            f[f"{phase}.req_per_s"] = med([r[phase]["req_per_s"] for r in reps])
            for key in ("server_cpu_us_per_req", "server_reads_per_req", "server_writes_per_req"):
                f[f"{phase}.{key}"] = med([r[phase][key] for r in reps])
        f["cold_start_ms"] = med(colds[name])
        f["cold_start_p90_ms"] = percentile(sorted(colds[name]), 0.9)
        f["cold_start_min_ms"] = min(colds[name])
        f["vmhwm_mb"] = med([r["exit"]["vmhwm_kb"] for r in reps]) / 1024
        f["ru_maxrss_mb"] = med([r["exit"]["ru_maxrss_kb"] for r in reps]) / 1024
        f["threads"] = med([r["exit"]["threads"] for r in reps])
        s[name] = f
    return s


# (label, key, unit format, lower is better)
ROWS: list[tuple[str, str, str, bool]] = [
    ("ping p50 (µs)", "ping.p50_us", "{:.0f}", True),
    ("ping p95 (µs)", "ping.p95_us", "{:.0f}", True),
    ("ping p99 (µs)", "ping.p99_us", "{:.0f}", True),
    ("tools/list p50 (µs)", "tools_list.p50_us", "{:.0f}", True),
    ("tools/list p95 (µs)", "tools_list.p95_us", "{:.0f}", True),
    ("tools/list p99 (µs)", "tools_list.p99_us", "{:.0f}", True),
    ("(extra) tools/call echo p50 (µs)", "echo.p50_us", "{:.0f}", True),
    ("(extra) tools/call echo p99 (µs)", "echo.p99_us", "{:.0f}", True),
    ("pipelined ping (req/s)", "pipe_ping.req_per_s", "{:,.0f}", False),
    ("pipelined tools/call echo (req/s)", "pipe_echo.req_per_s", "{:,.0f}", False),
    ("cold start to initialize answer, median (ms)", "cold_start_ms", "{:.1f}", True),
    ("peak RSS, VmHWM (MiB)", "vmhwm_mb", "{:.1f}", True),
]
CPU_ROWS: list[tuple[str, str]] = [
    ("sequential ping", "ping.server_cpu_us_per_req"),
    ("sequential tools/list", "tools_list.server_cpu_us_per_req"),
    ("sequential tools/call echo", "echo.server_cpu_us_per_req"),
    ("pipelined ping", "pipe_ping.server_cpu_us_per_req"),
    ("pipelined tools/call echo", "pipe_echo.server_cpu_us_per_req"),
]


def advantage(better: float, worse: float, lower_is_better: bool) -> float:
    """How many times ``better`` beats ``worse`` (> 1 means it does)."""
    return worse / better if lower_is_better else better / worse


def render(s: dict[str, dict[str, float]], meta: dict[str, Any]) -> str:
    b, m, k, d = s["bare"], s["mesh"], s["sdk"], s["inline"]
    lines = [
        f"mesh-mcp at commit {meta['git_head']}{' + uncommitted changes' if meta['mesh_tree_dirty'] else ''}; "
        f"{meta['date']}; nproc {meta['nproc']}; Python {meta['python']}; n={meta['n_seq']} sequential, "
        f"{meta['n_pipe']} pipelined, {meta['reps']} repetitions (medians), {meta['n_cold']} cold starts.",
        "",
        "| figure | bare loop | mesh-mcp | SDK (MCPServer) | mesh / bare | mesh advantage over SDK "
        "| diag.: mesh core inline |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, key, fmt, lower in ROWS:
        lines.append(
            f"| {label} | {fmt.format(b[key])} | {fmt.format(m[key])} | {fmt.format(k[key])} | "
            f"{m[key] / b[key]:.2f}x | {advantage(m[key], k[key], lower):.1f}x | {fmt.format(d[key])} |"
        )
    lines += [
        "",
        "Server cost per request: CPU time (µs; the server process's CPU clock, all threads) and "
        "read / write system calls (`/proc/<pid>/io`; poll and others not counted):",
        "",
        "| phase | bare loop | mesh-mcp | SDK (MCPServer) | diag.: mesh core inline |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, key in CPU_ROWS:
        phase = key.split(".")[0]

        def cell(f: dict[str, float]) -> str:
            return (f"{f[key]:.0f} µs, {f[phase + '.server_reads_per_req']:.2f} r / "
                    f"{f[phase + '.server_writes_per_req']:.2f} w")

        lines.append(f"| {label} | {cell(b)} | {cell(m)} | {cell(k)} | {cell(d)} |")
    lines += [
        "",
        f"tools/list answer: bare {b['tools_list.answer_bytes']:.0f} B, mesh {m['tools_list.answer_bytes']:.0f} B, "
        f"SDK {k['tools_list.answer_bytes']:.0f} B (5 tools each). Server threads at exit: bare {b['threads']:.0f}, "
        f"mesh {m['threads']:.0f}, SDK {k['threads']:.0f}. "
        f"Cold start min / p90 (ms): bare {b['cold_start_min_ms']:.1f} / {b['cold_start_p90_ms']:.1f}, mesh "
        f"{m['cold_start_min_ms']:.1f} / {m['cold_start_p90_ms']:.1f}, SDK {k['cold_start_min_ms']:.1f} / "
        f"{k['cold_start_p90_ms']:.1f}; mesh without a bytecode cache (this sandbox's default environment, "
        f"PYTHONDONTWRITEBYTECODE=1): {meta['mesh_cold_start_no_bytecode_cache_ms']:.1f} ms median. "
        f"`python -c pass` in this venv: {meta['python_startup_ms']:.1f} ms (median). Load average "
        f"(1 min) at start / end: {meta['loadavg_start'][0]:.2f} / {meta['loadavg_end'][0]:.2f}.",
        "",
        "Targets:",
        "",
    ]
    lines += [f"- {t}" for t in targets(s)]
    lines += ["", "mesh-mcp start, stage by stage in one fresh interpreter (marginal ms; median of several interpreters; the interpreter's own start is the `python -c pass` figure above):", ""]
    lines += ["| stage | ms | RSS after (MiB) |", "|---|---:|---:|"]
    for row in meta["mesh_startup_stages"]:
        lines.append(f"| {row['stage']} | {row['ms']:.1f} | {row['rss_after_kb'] / 1024:.1f} |")
    lines += ["", "Notable modules loaded once mesh is ready to serve: "
              + ", ".join(f"`{m}`" for m in meta["mesh_startup_loaded_modules"]) + "."]
    lines += ["", "In-process costs of mesh's pieces (`bench/microcosts.py`, µs per operation, median):", ""]
    lines += ["| operation | µs |", "|---|---:|"]
    for op, us in meta["microcosts_us"].items():
        lines.append(f"| {op} | {us:.1f} |")
    lines += ["", "Top imports of `python -X importtime -m mesh mcp` (median; top level and first level):", ""]
    lines += ["| module | cumulative (ms) | self (ms) |", "|---|---:|---:|"]
    for row in meta["mesh_import_profile"]:
        indent = "&nbsp;&nbsp;" * row["depth"]
        lines.append(f"| {indent}{row['module']} | {row['cumulative_us'] / 1000:.1f} | {row['self_us'] / 1000:.1f} |")
    return "\n".join(lines)


def targets(s: dict[str, dict[str, float]]) -> list[str]:
    b, m, k = s["bare"], s["mesh"], s["sdk"]
    out = []

    def verdict(ok: bool) -> str:
        return "**met**" if ok else "**NOT met**"

    for key, label in (("ping.p50_us", "ping"), ("tools_list.p50_us", "tools/list")):
        r = m[key] / b[key]
        out.append(f"mesh {label} p50 within 1.5x of bare: {r:.2f}x — {verdict(r <= 1.5)}")
    for key, label in (("pipe_ping.req_per_s", "ping"), ("pipe_echo.req_per_s", "tools/call echo")):
        r = m[key] / b[key]
        out.append(f"mesh pipelined {label} throughput at least 0.5x of bare: {r:.2f}x — {verdict(r >= 0.5)}")
    out.append(f"mesh cold start under 150 ms: {m['cold_start_ms']:.1f} ms — {verdict(m['cold_start_ms'] < 150)}")
    misses = []
    for label, key, _fmt, lower in ROWS:
        if label.startswith("(extra)"):
            continue
        a = advantage(m[key], k[key], lower)
        if a < 10:
            misses.append(f"{label} {a:.1f}x")
    out.append("mesh at least 10x better than the SDK on every figure: "
               + (verdict(True) if not misses else verdict(False) + " (" + "; ".join(misses) + ")"))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small counts, one repetition (smoke run)")
    parser.add_argument("--reps", type=int, default=None, help="repetitions of each session (default 3, quick 1)")
    args = parser.parse_args()
    if args.quick:
        n_seq, n_pipe, warmup, n_cold, reps = 300, 1000, 50, 5, 1
    else:
        n_seq, n_pipe, warmup, n_cold, reps = 3000, 10_000, 200, 20, 3
    if args.reps is not None:
        reps = args.reps
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    started = time.monotonic()

    meta: dict[str, Any] = {
        "date": subprocess.run(["date"], capture_output=True, text=True).stdout.strip(),
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "loadavg_start": os.getloadavg(),
        "argv": sys.argv,
        "git_head": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                   cwd=ROOT).stdout.strip(),
        # Uncommitted changes under mesh/ or tests/support/ mean the figures are not for git_head.
        "mesh_tree_dirty": bool(subprocess.run(["git", "status", "--porcelain", "--", "mesh", "tests/support"],
                                               capture_output=True, text=True, cwd=ROOT).stdout.strip()),
        "n_seq": n_seq, "n_pipe": n_pipe, "warmup": warmup, "n_cold": n_cold, "reps": reps,
    }
    print(f"# mesh-mcp benchmark ({'quick' if args.quick else 'full'}): {meta['date']}, "
          f"nproc {meta['nproc']}, Python {meta['python']}, mesh at {meta['git_head']}"
          f"{' + uncommitted changes' if meta['mesh_tree_dirty'] else ''}", file=sys.stderr)

    # Fill the bytecode cache (see ENV), then cold starts, round robin, order rotating, so every
    # server sees the same noise; the start-up diagnostics are interleaved with them too.
    for name in ORDER:
        cold_starts(name, RESULTS / f"{stamp}-{name}.stderr")
    python_startup_ms()
    colds: dict[str, list[float]] = {name: [] for name in ORDER}
    colds_no_pyc: list[float] = []
    py_starts: list[float] = []
    stage_samples: dict[str, list[tuple[float, int]]] = {}
    loaded: set[str] = set()
    import_samples: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for i in range(n_cold):
        order = ORDER[i % len(ORDER):] + ORDER[:i % len(ORDER)]
        for name in order:
            colds[name].append(cold_starts(name, RESULTS / f"{stamp}-{name}.stderr"))
        colds_no_pyc.append(cold_starts("mesh", RESULTS / f"{stamp}-mesh.stderr", NO_PYC_ENV))
        py_starts.append(python_startup_ms())
        startup_stages_sample(stage_samples, loaded)
        if i % 2 == 0:
            import_profile_sample(import_samples)
    meta["mesh_startup_stages"] = startup_stages(stage_samples)
    meta["mesh_startup_loaded_modules"] = sorted(loaded)
    meta["mesh_import_profile"] = import_profile(import_samples)
    meta["mesh_cold_start_no_bytecode_cache_ms"] = med(colds_no_pyc)
    meta["python_startup_ms"] = med(py_starts)
    print(f"cold starts done ({time.monotonic() - started:.0f}s)", file=sys.stderr)

    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in ORDER}
    for rep in range(reps):
        order = ORDER[rep % len(ORDER):] + ORDER[:rep % len(ORDER)]
        for name in order:
            t = time.monotonic()
            runs[name].append(session(name, n_seq, n_pipe, warmup, RESULTS / f"{stamp}-{name}.stderr"))
            print(f"rep {rep + 1}/{reps} {name}: {time.monotonic() - t:.1f}s", file=sys.stderr)

    meta["microcosts_us"] = orjson.loads(subprocess.run(
        [PY, str(BENCH / "microcosts.py")], capture_output=True, env=ENV, cwd=ROOT, timeout=120, check=True).stdout)
    meta["loadavg_end"] = os.getloadavg()
    head_end = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    if head_end != meta["git_head"] or subprocess.run(
            ["git", "status", "--porcelain", "--", "mesh", "tests/support"],
            capture_output=True, text=True, cwd=ROOT).stdout.strip():
        meta["mesh_tree_dirty"] = True  # mesh changed while the benchmark ran
        print(f"warning: mesh changed during the run (HEAD now {head_end})", file=sys.stderr)
    meta["wall_s"] = time.monotonic() - started
    summary = summarize(runs, colds)
    table = render(summary, meta)
    raw = {"meta": meta, "summary": summary, "cold_starts_ms": colds, "runs": runs}
    path = RESULTS / f"{stamp}{'-quick' if args.quick else ''}.json"
    path.write_bytes(orjson.dumps(raw, option=orjson.OPT_INDENT_2))
    print(table)
    print(f"\nraw figures: {path.relative_to(ROOT)}; wall time {meta['wall_s']:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
