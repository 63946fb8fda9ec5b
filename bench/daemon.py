"""What the proxy and the daemon cost: round trips, start-up, memory per session.

Run by hand (never in CI; the machine is shared and noisy, so read medians and ratios measured
side by side in one run)::

    .venv/bin/python bench/daemon.py [--workspace tests/fixtures/workspace] [--rounds 2000]

Everything runs against one workspace whose index is built first into a private cache, with a
private socket folder, the test tools loaded (``echo`` is the cheap call: no index, no I/O):

1. **Round trips**: one standalone server (``mesh-mcp mcp --standalone``), one proxy session that
   copies bytes (``MESH_PROXY_FDS=0``: the path of a daemon that takes no descriptors) and one
   that hands the client's descriptors to the daemon (the default), side by side; ``ping``,
   ``tools/list``, ``echo`` and a literal ``smart_search``, one request at a time, the three
   sessions taking turns every request (in a rotating order) so all see the same machine.
   Reported: p50/p99 of each and each daemon path's added p50.
2. **initialize with the daemon up**: a fresh ``mesh-mcp mcp`` process per sample, from spawn to
   the ``initialize`` answer; the same for ``--standalone``.
3. **initialize when the daemon must start** (its index on disk): the daemon is stopped
   (SIGTERM, waited for) before each sample.
4. **Memory per session**: the daemon's RSS with one session, then with 50 more (each initialized
   and having made one call), the difference divided by 50.

Results are printed as Markdown and written to bench/results/daemon-<stamp>.json.
"""

from __future__ import annotations

import argparse
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mesh.sockets import lock_path, socket_path

INITIALIZE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}\n'
)
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'


class Session:
    """One ``mesh-mcp mcp`` process over pipes, initialized."""

    def __init__(self, env: dict[str, str], workspace: Path, *extra: str, **environ: str) -> None:
        argv = [sys.executable, "-m", "mesh", "mcp", "--workspace", str(workspace), *extra]
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**env, **environ},
            cwd=workspace,
        )
        self.next_id = 0
        self.send(INITIALIZE)
        self.read()
        self.send(INITIALIZED)

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def read(self) -> dict:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the server closed its output")
        return json.loads(line)

    def round_trip(self, method: str, params: dict) -> float:
        """Seconds from writing the request to reading its answer."""
        self.next_id += 1
        data = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}).encode() + b"\n"
        started = time.perf_counter()
        self.send(data)
        answer = self.read()
        elapsed = time.perf_counter() - started
        assert answer.get("id") == self.next_id and "result" in answer, answer
        return elapsed

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(30)


def time_initialize(env: dict[str, str], workspace: Path, *extra: str) -> float:
    """Seconds from spawning ``mesh-mcp mcp`` to its ``initialize`` answer."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "mesh", "mcp", "--workspace", str(workspace), *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=workspace,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(INITIALIZE)
    process.stdin.flush()
    line = process.stdout.readline()
    elapsed = time.perf_counter() - started
    assert b'"result"' in line, line
    process.stdin.close()
    process.wait(30)
    return elapsed


def daemon_pid(env: dict[str, str], workspace: Path) -> int:
    return int(lock_path(socket_path(workspace, env)).read_text())


def stop_daemon(env: dict[str, str], workspace: Path) -> None:
    sock = socket_path(workspace, env)
    if not sock.exists():
        return
    pid = daemon_pid(env, workspace)
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        if state == "Z":
            break
        time.sleep(0.01)


def rss_kib(pid: int, key: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1])
    raise KeyError(key)


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", type=Path, default=ROOT / "tests" / "fixtures" / "workspace")
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--starts", type=int, default=15, help="samples of each start-up measurement")
    parser.add_argument("--sessions", type=int, default=50, help="extra sessions for the memory figure")
    parser.add_argument("--calls", default="", help="round trips of these calls only (comma-separated: ping,echo...)")
    parser.add_argument(
        "--parts", default="round_trips,initialize,memory", help="which measurements (comma-separated)"
    )
    args = parser.parse_args()
    workspace = args.workspace.resolve()
    cache = Path(tempfile.mkdtemp(prefix="mesh-bench-cache-"))
    runtime = Path(tempfile.mkdtemp(prefix="mesh-bench-rt-", dir="/tmp"))
    env = {
        **os.environ,
        "MESH_CACHE_DIR": str(cache),
        "XDG_RUNTIME_DIR": str(runtime),
        "MESH_TOOL_PLUGINS": "tests.support.tools",
        "PYTHONPATH": str(ROOT),
        "MESH_DAEMON_IDLE_S": "0",
    }
    env.pop("MESH_SOCKET_PATH", None)
    env.pop("MESH_LOG", None)
    results: dict[str, object] = {"workspace": str(workspace), "rounds": args.rounds}
    try:
        subprocess.run(
            [sys.executable, "-m", "mesh", "index", str(workspace)], env=env, check=True, capture_output=True
        )
        parts = args.parts.split(",")
        if "round_trips" in parts:
            only = tuple(name for name in args.calls.split(",") if name)
            results["round_trips"] = round_trips(env, workspace, args.rounds, only)
        if "initialize" in parts:
            results["initialize"] = start_ups(env, workspace, args.starts)
        if "memory" in parts:
            results["memory"] = memory(env, workspace, args.sessions)
    finally:
        stop_daemon(env, workspace)
        shutil.rmtree(cache, True)
        shutil.rmtree(runtime, True)
    report(results)
    out = ROOT / "bench" / "results" / f"daemon-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nwritten to {out.relative_to(ROOT)}")
    return 0


#: The sessions compared, in the report's order.
PATHS = ("standalone", "copy", "fds")


def round_trips(
    env: dict[str, str], workspace: Path, rounds: int, only: tuple[str, ...] = ()
) -> dict[str, dict[str, float]]:
    sessions = {
        "standalone": Session(env, workspace, "--standalone"),
        "copy": Session(env, workspace, MESH_PROXY_FDS="0"),
        "fds": Session(env, workspace),
    }
    calls = {
        "ping": ("ping", {}),
        "tools/list": ("tools/list", {}),
        "echo": ("tools/call", {"name": "echo", "arguments": {"text": "hello"}}),
        "smart_search literal": ("tools/call", {"name": "smart_search", "arguments": {"query": "GetOrder"}}),
    }
    out: dict[str, dict[str, float]] = {}
    try:
        for name, (method, params) in calls.items():
            if only and name not in only:
                continue
            for session in sessions.values():  # warm all
                for _ in range(50):
                    session.round_trip(method, params)
            samples: dict[str, list[float]] = {label: [] for label in PATHS}
            for number in range(rounds):
                turn = number % len(PATHS)
                for label in PATHS[turn:] + PATHS[:turn]:
                    samples[label].append(sessions[label].round_trip(method, params))
            row = {}
            for label, values in samples.items():
                row[f"{label}_p50_us"] = statistics.median(values) * 1e6
                row[f"{label}_p99_us"] = percentile(values, 0.99) * 1e6
            for label in PATHS[1:]:
                row[f"{label}_added_p50_us"] = row[f"{label}_p50_us"] - row["standalone_p50_us"]
            out[name] = row
    finally:
        for session in sessions.values():
            session.close()
    return out


def start_ups(env: dict[str, str], workspace: Path, count: int) -> dict[str, float]:
    Session(env, workspace).close()  # the daemon is up
    up = [time_initialize(env, workspace) for _ in range(count)]
    alone = [time_initialize(env, workspace, "--standalone") for _ in range(count)]
    cold: list[float] = []
    for _ in range(count):
        stop_daemon(env, workspace)
        cold.append(time_initialize(env, workspace))
    return {
        "daemon_up_p50_ms": statistics.median(up) * 1e3,
        "daemon_up_max_ms": max(up) * 1e3,
        "standalone_p50_ms": statistics.median(alone) * 1e3,
        "daemon_started_p50_ms": statistics.median(cold) * 1e3,
        "daemon_started_max_ms": max(cold) * 1e3,
        "samples": count,
    }


def memory(env: dict[str, str], workspace: Path, extra: int) -> dict[str, float]:
    stop_daemon(env, workspace)
    first = Session(env, workspace)
    first.round_trip("tools/call", {"name": "smart_search", "arguments": {"query": "GetOrder"}})
    pid = daemon_pid(env, workspace)
    time.sleep(1.0)  # let the start-up refresh settle
    before = rss_kib(pid)
    sessions = [Session(env, workspace) for _ in range(extra)]
    try:
        for session in sessions:
            session.round_trip("tools/call", {"name": "smart_search", "arguments": {"query": "GetOrder"}})
        after = rss_kib(pid)
        threads = len(os.listdir(f"/proc/{pid}/task"))
    finally:
        for session in sessions:
            session.close()
        first.close()
    return {
        "rss_one_session_kib": before,
        f"rss_{extra + 1}_sessions_kib": after,
        "per_extra_session_kib": (after - before) / extra,
        "threads_with_all_sessions": threads,
        "peak_kib": rss_kib(pid, "VmHWM"),
    }


def report(results: dict[str, object]) -> None:
    if "round_trips" in results:
        print(
            "## standalone vs proxy + daemon, copying and passing descriptors "
            f"({results['rounds']} rounds each, interleaved)\n"
        )
        print("| call | standalone p50 (p99) µs | copy p50 (p99) µs | fds p50 (p99) µs | copy added p50 µs | fds added p50 µs |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for name, row in results["round_trips"].items():  # type: ignore[attr-defined]
            cells = " | ".join(f"{row[f'{label}_p50_us']:.0f} ({row[f'{label}_p99_us']:.0f})" for label in PATHS)
            print(f"| {name} | {cells} | {row['copy_added_p50_us']:.0f} | {row['fds_added_p50_us']:.0f} |")
    if "initialize" in results:
        start: dict[str, float] = results["initialize"]  # type: ignore[assignment]
        print(f"\n## initialize from a fresh process ({start['samples']:.0f} samples)\n")
        print(f"- daemon up: p50 {start['daemon_up_p50_ms']:.0f} ms (max {start['daemon_up_max_ms']:.0f})")
        print(f"- standalone: p50 {start['standalone_p50_ms']:.0f} ms")
        print(
            f"- daemon started first (index on disk): p50 {start['daemon_started_p50_ms']:.0f} ms "
            f"(max {start['daemon_started_max_ms']:.0f})"
        )
    if "memory" in results:
        print("\n## daemon memory\n")
        for key, value in results["memory"].items():  # type: ignore[attr-defined]
            print(f"- {key}: {value:.0f}")

if __name__ == "__main__":
    sys.exit(main())
