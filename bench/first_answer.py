"""How soon a server on a workspace it has never indexed answers: the first-call timeline.

Run by hand (never in CI; the machine is shared and noisy)::

    .venv/bin/python bench/first_answer.py --tree /root/.pyenv/versions/3.11.7/lib/python3.11 --rounds 3

Each round starts ``mesh-mcp mcp --standalone --workspace TREE`` on a fresh cache, over pipes, and
times from ``Popen`` to: the ``initialize`` answer; the first ``smart_search`` answer (a literal
sent right after ``initialize``) and how it was answered (by scanning the files, or from the
index); the first ``dependents`` answer, and then every ``--every`` seconds the same two calls
again until both answer from an index: when text search (from the first build's text stage, or
the whole index), and when definitions and imports, were first served from a snapshot. Printed as Markdown; raw figures in
bench/results/first-<stamp>.json.

``--against DIR`` (another checkout of mesh-mcp, e.g. a ``git worktree`` of the base commit) runs
each round twice, this checkout and DIR's sources (``PYTHONPATH=DIR``, the same interpreter), each
first every other round, so that before and after are measured side by side under the same load.
Each server runs in a process group of its own, killed once it exited: a build cut short leaves
no parse worker taking the next round's CPU::

    git worktree add --detach /tmp/base BASE_COMMIT
    .venv/bin/python bench/first_answer.py --tree tests/fixtures/workspace --query "def reserve" \
        --target orders/orders/store.py --rounds 5 --limit 15 --against /tmp/base
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class Client:
    def __init__(self, tree: Path, env: dict[str, str]) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mesh", "mcp", "--standalone", "--workspace", str(tree)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=tree,
            start_new_session=True,  # its parse workers in its process group: ended with it (see close)
        )  # fmt: skip
        self.next_id = 0

    def request(self, method: str, params: dict) -> tuple[float, dict]:
        """Seconds since start when the answer came, and the answer."""
        self.next_id += 1
        frame = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(frame).encode() + b"\n")
        self.process.stdin.flush()
        while True:
            message = json.loads(self.process.stdout.readline())
            if message.get("id") == self.next_id:
                return time.perf_counter() - self.started, message

    def call(self, name: str, arguments: dict) -> tuple[float, str, bool]:
        at, message = self.request("tools/call", {"name": name, "arguments": arguments})
        result = message.get("result", {})
        text = "".join(part.get("text", "") for part in result.get("content", []))
        return at, text, bool(result.get("isError"))

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(60)
        # A build cut short leaves its parse workers finishing the files they hold: they would
        # take the next round's CPU.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)


def how(text: str, error: bool) -> str:
    if "Answered by scanning" in text:
        return "scan"
    if text.startswith("_Answered from the text index"):
        return "text"
    if error or "indexing" in text.lower() or "waiting for" in text.lower():
        return "waiting"
    return "index"


def one_round(tree: Path, query: str, target: str, every: float, limit: float, sources: Path | None = None) -> dict:
    """One server on a fresh cache; ``sources``: run that checkout's mesh (PYTHONPATH) instead of this one."""
    with tempfile.TemporaryDirectory(prefix="mesh-first-") as cache:
        env = dict(os.environ, MESH_CACHE_DIR=cache)
        if sources is not None:
            env["PYTHONPATH"] = str(sources)
        client = Client(tree, env)
        init_at, _ = client.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
        )
        search_at, text, error = client.call("smart_search", {"query": query})
        first = {"initialize_s": init_at, "search_s": search_at, "search_by": how(text, error)}
        deps_at, text, error = client.call("dependents", {"target": target})
        first |= {"dependents_s": deps_at, "dependents_by": how(text, error)}
        text_ready = search_at if first["search_by"] in ("text", "index") else None
        facts_ready = deps_at if first["dependents_by"] == "index" else None
        while (text_ready is None or facts_ready is None) and time.perf_counter() - client.started < limit:
            time.sleep(every)
            if text_ready is None:
                at, text, error = client.call("smart_search", {"query": query})
                text_ready = at if how(text, error) in ("text", "index") else None
            if facts_ready is None:
                at, text, error = client.call("dependents", {"target": target})
                facts_ready = at if how(text, error) == "index" else None
        client.close()
        return first | {"search_from_index_s": text_ready, "dependents_from_index_s": facts_ready}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--query", default="def urlopen(")
    parser.add_argument("--target", default="os.py", help="the file whose dependents are asked")
    parser.add_argument("--every", type=float, default=1.0)
    parser.add_argument("--limit", type=float, default=900.0, help="give up on a round after this many seconds")
    parser.add_argument("--against", type=Path, help="another checkout, run side by side with this one")
    args = parser.parse_args()
    tree = args.tree.resolve()
    runs: dict[str, list[dict]] = {"this": []} if args.against is None else {"against": [], "this": []}
    for number in range(args.rounds):
        for name in sorted(runs, reverse=number % 2 == 1):  # each goes first every other round
            rounds = runs[name]
            sources = args.against.resolve() if name == "against" else None
            rounds.append(one_round(tree, args.query, args.target, args.every, args.limit, sources))

    def median(rounds: list[dict], key: str) -> str:
        values = [r[key] for r in rounds if r[key] is not None]
        return f"{statistics.median(values):.2f} s" if values else "-"

    def row(what: str, key: str, by: str | None = None) -> str:
        cells = []
        for rounds in runs.values():
            how_by = f" ({', '.join(r[by] for r in rounds)})" if by else ""
            cells.append(f"{median(rounds, key)}{how_by}")
        return f"| {what} | {' | '.join(cells)} |"

    heads = " | ".join("this checkout" if name == "this" else f"`{args.against}`" for name in runs)
    print(f"| {tree.name}: median of {args.rounds}, seconds from start | {heads} |")
    print("| --- |" + " ---: |" * len(runs))
    print(row("`initialize` answered", "initialize_s"))
    print(row("first `smart_search` answered", "search_s", "search_by"))
    print(row("first `dependents` answered", "dependents_s", "dependents_by"))
    print(row("`smart_search` answered from the index (its text stage or whole)", "search_from_index_s"))
    print(row("`dependents` answered from the index", "dependents_from_index_s"))
    out = ROOT / "bench" / "results" / f"first-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"tree": str(tree), "against": str(args.against), "runs": runs}, indent=2))
    print(f"\nraw figures: {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
