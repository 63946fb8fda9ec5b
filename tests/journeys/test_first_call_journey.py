"""Journeys: the first calls on a fresh workspace, through the real binary (``--standalone``).

A workspace of thousands of files takes longer to index than the wait for the first snapshot
(``MESH_FIRST_CALL_WAIT_S``): a call with a ``progressToken`` hears files parsed of total while it
waits, then ``smart_search`` answers by scanning and says so, and any other tool says "still
indexing". A workspace of a few files is indexed within the wait: its first call answers as if the
index had always been there. INV-FIRST-1, INV-PROGRESS-1, INV-PROGRESS-2, INV-SCAN-2.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path
from typing import Any, Final

import pytest

from .conftest import REPO_ROOT

pytestmark = pytest.mark.journey

ARGV: Final = (sys.executable, "-m", "mesh", "mcp", "--standalone")
TIMEOUT_S: Final = 120.0
ENVELOPE: Final = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "journey", "version": "0"},
}


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def handshake() -> bytes:
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "journey", "version": "0"}}
    return line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}) + line(
        {"jsonrpc": "2.0", "method": "notifications/initialized"}
    )


def tool_call(request_id: Any, name: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None) -> bytes:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    return line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


def serve(
    workspace: Path, cache: Path, script: bytes, wait_s: float, daemon_runtime: Path | None = None
) -> tuple[list[dict[str, Any]], float]:
    """Run one session on stdin; standalone, or through the daemon with its socket in ``daemon_runtime``."""
    env = {
        **os.environ,
        "MESH_CACHE_DIR": str(cache),
        "MESH_FIRST_CALL_WAIT_S": str(wait_s),
        "PYTHONPATH": str(REPO_ROOT),
    }
    env.pop("MESH_TOOL_PLUGINS", None)
    argv = ARGV
    if daemon_runtime is not None:
        argv = ARGV[:-1]  # without --standalone
        env.update(XDG_RUNTIME_DIR=str(daemon_runtime), MESH_DAEMON_IDLE_S="60")
        env.pop("MESH_SOCKET_PATH", None)
    started = time.monotonic()
    done = subprocess.run(
        [*argv, "--workspace", str(workspace)],
        input=script,
        capture_output=True,
        env=env,
        timeout=TIMEOUT_S,
        check=False,
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return [json.loads(raw) for raw in done.stdout.splitlines()], elapsed


def large_workspace(root: Path, services: int = 60, files: int = 100) -> Path:
    """Thousands of Python files: more than a second to index on any machine this runs on."""
    for s in range(services):
        folder = root / f"svc{s:02}" / "src"
        folder.mkdir(parents=True)
        for f in range(files):
            body = "".join(f"def handler_{s}_{f}_{i}(request):\n    return request.value + {i}\n\n" for i in range(25))
            (folder / f"mod{f:03}.py").write_text(body)
    (root / "svc00" / "src" / "special.py").write_text("def find_me():\n    return 'journey_unique_token'\n")
    return root


def progress_of(frames: list[dict[str, Any]], token: Any) -> list[tuple[int, dict[str, Any]]]:
    return [
        (at, frame["params"])
        for at, frame in enumerate(frames)
        if frame.get("method") == "notifications/progress" and frame["params"]["progressToken"] == token
    ]


def answer_at(frames: list[dict[str, Any]], request_id: Any) -> int:
    return next(at for at, frame in enumerate(frames) if frame.get("id") == request_id and "method" not in frame)


def check_progress(frames: list[dict[str, Any]], token: Any, request_id: Any) -> list[dict[str, Any]]:
    """The token's progress: some, strictly rising, all before its call's answer (INV-PROGRESS-1, -2)."""
    found = progress_of(frames, token)
    assert found, f"no progress for token {token!r}"
    values = [params["progress"] for _, params in found]
    assert all(later > earlier for earlier, later in pairwise(values)), values
    assert max(at for at, _ in found) < answer_at(frames, request_id)
    return [params for _, params in found]


def test_a_large_workspace_past_the_bound_scans_and_says_still_indexing(tmp_path: Path) -> None:
    workspace = large_workspace(tmp_path / "ws")
    script = (
        handshake()
        + tool_call(1, "smart_search", {"query": "journey_unique_token"}, {"progressToken": "search"})
        + tool_call(2, "dependents", {"target": "svc01"}, {"progressToken": 7})
        + tool_call(3, "grpc_trace", {"target": "Orders"})
    )
    frames, elapsed = serve(workspace, tmp_path / "cache", script, wait_s=2.0)
    searched = frames[answer_at(frames, 1)]["result"]
    assert searched["isError"] is False
    text = searched["content"][0]["text"]
    assert text.startswith("_Answered by scanning ") and "the index is still being built" in text
    assert "svc00/src/special.py" in text
    assert searched["structuredContent"]["matches"][0]["path"] == "svc00/src/special.py"
    waited = frames[answer_at(frames, 2)]["result"]
    assert waited["isError"] is True and waited["content"][0]["text"].startswith("Still indexing the workspace: ")
    progress = check_progress(frames, "search", 1) + check_progress(frames, 7, 2)
    assert all(item["message"].startswith("Indexing the workspace: ") for item in progress)
    # Files parsed of the walk's total (60 x 100 + 1), once the walk has listed them.
    assert {item["total"] for item in progress if "total" in item} <= {6001}
    assert all(item["progress"] <= 6001 for item in progress)
    # A call without a token heard nothing; no progress names a token nobody gave.
    tokens = {frame["params"]["progressToken"] for frame in frames if frame.get("method") == "notifications/progress"}
    assert tokens <= {"search", 7}
    assert frames[answer_at(frames, 3)]["result"]["isError"] is True
    assert elapsed < 60


def test_the_stateless_revision_hears_progress_on_its_call(tmp_path: Path) -> None:
    workspace = large_workspace(tmp_path / "ws", services=40)
    meta = {**ENVELOPE, "progressToken": "stateless"}
    script = tool_call(1, "dependents", {"target": "svc01"}, meta)
    frames, _ = serve(workspace, tmp_path / "cache", script, wait_s=1.0)
    check_progress(frames, "stateless", 1)
    answer = frames[answer_at(frames, 1)]["result"]
    assert answer["resultType"] == "complete" and answer["isError"] is True


def test_a_small_workspace_answers_its_first_call_normally(tmp_path: Path) -> None:
    workspace = tmp_path / "small"
    (workspace / "orders").mkdir(parents=True)
    (workspace / "orders" / "app.py").write_text("def reserve_stock():\n    return 'reserve'\n")
    (workspace / "README.md").write_text("# Small\n\nreserve stock here.\n")
    script = handshake() + tool_call(1, "smart_search", {"query": "reserve_stock"}, {"progressToken": "p"})
    frames, elapsed = serve(workspace, tmp_path / "cache", script, wait_s=10.0)
    answer = frames[answer_at(frames, 1)]["result"]
    text = answer["content"][0]["text"]
    assert answer["isError"] is False
    assert "Still indexing" not in text and "Answered by scanning" not in text
    assert "orders/app.py" in text
    # The index's own answer: the definition is known (the scan could not know it).
    assert answer["structuredContent"]["matches"][0]["definition"] == "function"
    assert elapsed < 10


def test_through_the_daemon_the_first_call_waits_scans_and_hears_progress(tmp_path: Path) -> None:
    """The same first call through ``mesh-mcp mcp`` (the proxy starting the daemon, whose index is
    still being built): progress relayed, the scan's answer, "still indexing" for the rest."""
    workspace = large_workspace(tmp_path / "ws", services=40)
    # a socket's path has at most 107 bytes: a short folder of its own, not one under tmp_path
    runtime = Path(tempfile.mkdtemp(prefix="mesh-rt-", dir="/tmp"))
    script = (
        handshake()
        + tool_call(1, "smart_search", {"query": "journey_unique_token"}, {"progressToken": "daemon"})
        + tool_call(2, "dependents", {"target": "svc01"})
    )
    try:
        frames, _ = serve(workspace, tmp_path / "cache", script, wait_s=1.5, daemon_runtime=runtime)
        started = list(runtime.glob("**/*.lock"))
    finally:
        for lock in runtime.glob("**/*.lock"):  # the daemon outlives the proxy's session
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(lock.read_text()), signal.SIGKILL)
        shutil.rmtree(runtime, ignore_errors=True)
    assert started, "no daemon was started: the proxy served standalone"
    searched = frames[answer_at(frames, 1)]["result"]
    assert searched["content"][0]["text"].startswith("_Answered by scanning ")
    assert "svc00/src/special.py" in searched["content"][0]["text"]
    check_progress(frames, "daemon", 1)
    waited = frames[answer_at(frames, 2)]["result"]
    assert waited["isError"] is True and waited["content"][0]["text"].startswith("Still indexing the workspace: ")


def test_over_http_the_first_call_waits_scans_and_streams_progress(tmp_path: Path) -> None:
    """The same first call over Streamable HTTP (stateless revision): the progress and the scan's
    answer come on the call's own event stream."""
    from .test_http_journey import FAST, STATELESS_VERSION, Server

    workspace = large_workspace(tmp_path / "ws", services=40)
    env = {**FAST, "MESH_CACHE_DIR": str(tmp_path / "cache"), "MESH_FIRST_CALL_WAIT_S": "1.5"}
    server = Server(env=env, workspace=workspace)
    try:
        params = {"name": "smart_search", "arguments": {"query": "journey_unique_token"},
                  "_meta": {**ENVELOPE, "progressToken": "http"}}  # fmt: skip
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
        answer = server.post(body, mcp_protocol_version=STATELESS_VERSION, mcp_method="tools/call", mcp_name="smart_search")
    finally:
        server.close()
    assert answer.status == 200
    events = answer.events  # held past the keep-alive: a stream, progress first
    progress = [event["params"] for event in events if event.get("method") == "notifications/progress"]
    assert progress and all(event["progressToken"] == "http" for event in progress)
    values = [event["progress"] for event in progress]
    assert all(later > earlier for earlier, later in pairwise(values)), values
    result = events[-1]["result"]
    assert result["content"][0]["text"].startswith("_Answered by scanning ")
    assert "svc00/src/special.py" in result["content"][0]["text"]


def test_a_staged_first_build_serves_search_from_its_text_before_the_facts(tmp_path: Path) -> None:
    """INV-INDEX-10 through the real binary: on a workspace of thousands of files, search answers
    from the text snapshot ("Answered from the text index") while other tools still say "still
    indexing"; later every tool answers from the whole index."""
    workspace = large_workspace(tmp_path / "ws", services=30)
    env = {**os.environ, "MESH_CACHE_DIR": str(tmp_path / "cache"), "MESH_FIRST_CALL_WAIT_S": "0",
           "PYTHONPATH": str(REPO_ROOT)}  # fmt: skip
    env.pop("MESH_TOOL_PLUGINS", None)
    process = subprocess.Popen(
        [*ARGV, "--workspace", str(workspace)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    answers = iter(process.stdout)
    next_id = 0

    def ask(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        nonlocal next_id
        next_id += 1
        process.stdin.write(tool_call(next_id, name, arguments))  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]
        while True:
            frame = json.loads(next(answers))
            if frame.get("id") == next_id:
                return frame["result"]

    try:
        process.stdin.write(handshake())
        process.stdin.flush()
        json.loads(next(answers))
        seen: list[str] = []
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            searched = ask("smart_search", {"query": "journey_unique_token", "mode": "literal"})
            text = searched["content"][0]["text"]
            how = "scan" if text.startswith("_Answered by scanning") else "text" if text.startswith("_Answered from the text index") else "index"
            if not seen or seen[-1] != how:
                seen.append(how)
            assert "svc00/src/special.py" in text or how == "scan", text[:300]
            if how == "text":
                waited = ask("dependents", {"target": "svc01"})
                # still indexing, unless the facts were committed between the two calls
                assert not waited["isError"] or waited["content"][0]["text"].startswith("Still indexing the workspace: ")
            if how == "index":
                break
            time.sleep(0.2)
        assert seen[-1] == "index" and "text" in seen, seen
        assert seen == [how for how in ("scan", "text", "index") if how in seen]  # never back to an earlier stage
        answered = ask("dependents", {"target": "svc01"})
        assert answered["isError"] is False
    finally:
        process.stdin.close()
        process.wait(30)
