"""The real tools through the real binary: over a pipe, from a terminal, into the audit log."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

import pytest

from mesh.audit import read_recent
from mesh.workspace import cache_dir

from .conftest import (
    BUILTIN_TOOL_NAMES,
    SERVER_ARGV,
    LiveServer,
    handshake,
    notification,
    request,
    result_of,
    server_env,
)

FIXTURE: Final = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"
GOLDEN: Final = Path(__file__).resolve().parents[1] / "tools" / "golden"
TRACEPARENT: Final = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
READY_S: Final = 120.0


def start(workspace: Path, cache: Path, plugins: tuple[str, ...] = ()) -> LiveServer:
    env = server_env(plugins, {"MESH_CACHE_DIR": str(cache)})
    argv = (*SERVER_ARGV, "--workspace", str(workspace))
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    return LiveServer(subprocess.Popen(argv, env=env, cwd=workspace, **pipes))


def audited_session(tmp_path: Path, plugins: tuple[str, ...] = ("tests.support.tools",)) -> tuple[LiveServer, Path]:
    """A server over an empty workspace with its own cache, past the handshake; and where its audit log is."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    cache = tmp_path / "cache"
    server = start(workspace, cache, plugins=plugins)
    server.send(handshake())
    server.receive_id(1)
    return server, cache_dir(workspace, {"MESH_CACHE_DIR": str(cache)})


def call(server: LiveServer, request_id: int, name: str, arguments: dict, meta: dict | None = None) -> dict:
    params = {"name": name, "arguments": arguments} | ({"_meta": meta} if meta else {})
    server.send(request(request_id, "tools/call", params))
    return result_of(server.receive_id(request_id, timeout_s=60))


def ready_answer(server: LiveServer, name: str, arguments: dict) -> dict:
    """Call until the first build is done ("still indexing", or a search answered by scanning the
    files, before), at most READY_S."""
    deadline = time.monotonic() + READY_S
    request_id = 100
    while True:
        request_id += 1
        result = call(server, request_id, name, arguments)
        text = result["content"][0]["text"]
        if not text.startswith(("Still indexing", "_Answered by scanning", "_Answered from the text index")):
            return result
        assert time.monotonic() < deadline, text
        time.sleep(0.2)


def test_the_tools_answer_over_a_pipe_as_the_golden_answers_say(tmp_path: Path) -> None:
    """The binary lists the built-in tools and answers exactly what the tool tests reviewed."""
    server = start(FIXTURE, tmp_path / "cache")
    try:
        server.send(handshake(), request(2, "tools/list"))
        assert result_of(server.receive_id(1))["protocolVersion"]
        listed = result_of(server.receive_id(2))["tools"]
        assert [tool["name"] for tool in listed] == list(BUILTIN_TOOL_NAMES)
        assert all(tool["annotations"]["readOnlyHint"] is True for tool in listed)
        result = ready_answer(server, "smart_search", {"query": "GetOrder"})
        assert result["isError"] is False
        assert result["content"][0]["text"] == (GOLDEN / "smart_search" / "literal.md").read_text()
        wrong = call(server, 3, "grpc_trace", {"target": "../../etc/passwd"})
        assert wrong["isError"] is True
        server.close_stdin()
        assert server.wait(10) == 0
    finally:
        server.close()


def test_a_first_build_in_progress_answers_still_indexing_then_the_answer(tmp_path: Path) -> None:
    """INV-INDEX-7 through the binary: a fresh cache; every answer is "still indexing" or the real one."""
    server = start(FIXTURE, tmp_path / "cache")
    try:
        server.send(handshake())
        server.receive_id(1)
        result = call(server, 2, "doc_sections", {"heading": "runbook"})
        text = result["content"][0]["text"]
        assert result["isError"] is text.startswith("Still indexing")
        assert not ready_answer(server, "doc_sections", {"heading": "runbook"})["isError"]
    finally:
        server.close()


def test_an_audit_row_survives_kill_9_right_after_the_response(tmp_path: Path) -> None:
    """INV-AUDIT-1: the client saw the answer, the server died at once, the row is there."""
    server, log_folder = audited_session(tmp_path)
    try:
        answer = call(server, 2, "echo", {"text": "kept", "repeat": 3}, meta={"traceparent": TRACEPARENT})
        os.kill(server.pid, signal.SIGKILL)  # right after the client saw the answer
        assert answer["content"][0]["text"] == "keptkeptkept"
        server.wait(10)
    finally:
        server.close()
    rows = read_recent(log_folder, limit=10)
    assert rows is not None and len(rows) == 1
    row = rows[0]
    assert (row.tool, row.outcome, row.result_bytes, row.truncated) == ("echo", "ok", 12, False)
    assert row.trace_id == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert row.session.startswith("stdio-")


def test_every_outcome_is_audited(tmp_path: Path) -> None:
    """ok, tool error (bad arguments and the tool's own), crash, and a cut answer's truncated flag."""
    server, log_folder = audited_session(tmp_path)
    try:
        call(server, 2, "echo", {"text": "x" * 1000, "repeat": 100})
        call(server, 3, "fail", {"how": "error"})
        server.send(request(4, "tools/call", {"name": "fail", "arguments": {"how": "crash"}}))
        assert server.receive_id(4)["error"]["code"] == -32603
        call(server, 5, "add", {"a": "one"})
        server.close_stdin()
        assert server.wait(10) == 0
    finally:
        server.close()
    rows = read_recent(log_folder, limit=10)
    assert rows is not None
    seen = sorted((row.tool, row.outcome, row.truncated) for row in rows)
    assert seen == [
        ("add", "tool_error", False),
        ("echo", "ok", True),
        ("fail", "crash", False),
        ("fail", "tool_error", False),
    ]


def run_cli(
    *args: str, cache: Path, cwd: Path = FIXTURE, plugins: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    env = server_env(plugins, {"MESH_CACHE_DIR": str(cache)})
    return subprocess.run(
        [sys.executable, "-m", "mesh", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=env,
        check=False,
    )


def test_mesh_mcp_call_prints_what_an_agent_sees_and_audit_shows_it(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    done = run_cli("call", "smart_search", '{"query": "GetOrder"}', "--workspace", str(FIXTURE), cache=cache)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (GOLDEN / "smart_search" / "literal.md").read_text()
    failed = run_cli("call", "grpc_trace", '{"target": "NoSuchService"}', "--workspace", str(FIXTURE), cache=cache)
    assert failed.returncode == 1 and "NoSuchService" in failed.stdout
    shown = run_cli("audit", str(FIXTURE), "--json", cache=cache)
    assert shown.returncode == 0, shown.stderr
    rows = json.loads(shown.stdout)
    assert [(row["tool"], row["outcome"]) for row in rows] == [("grpc_trace", "tool_error"), ("smart_search", "ok")]
    table = run_cli("audit", str(FIXTURE), "--tool", "smart_search", cache=cache)
    assert table.returncode == 0 and "smart_search" in table.stdout and "grpc_trace" not in table.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("call", "smart_search", "{nope"), "not JSON"),
        (("call", "smart_search", "[1]"), "JSON object"),
        (("call", "no_such_tool", "{}"), "no tool named 'no_such_tool'"),
        (("audit", "--trace-id", "XYZ"), "trace"),
    ],
)
def test_bad_input_on_the_command_line_is_exit_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    done = run_cli(*args, cache=tmp_path / "cache")
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout in ("", "[]\n")


def test_notifications_are_not_tool_calls(tmp_path: Path) -> None:
    """Only tools/call writes audit rows: a session of pings and lists leaves the log unwritten."""
    server, log_folder = audited_session(tmp_path, plugins=())
    try:
        server.send(
            request(2, "ping"), request(3, "tools/list"), notification("notifications/cancelled", {"requestId": 9})
        )
        server.receive_id(2)
        server.receive_id(3)
        server.close_stdin()
        assert server.wait(10) == 0
    finally:
        server.close()
    assert read_recent(log_folder, limit=10) is None


def test_mesh_mcp_call_reports_a_crashed_tool_and_audits_it(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    args = ("call", "fail", '{"how": "crash"}', "--workspace", str(workspace))
    crashed = run_cli(*args, cache=cache, plugins=("tests.support.tools",))
    assert crashed.returncode == 1
    assert "the tool fail crashed" in crashed.stderr and crashed.stdout == ""
    rows = read_recent(cache_dir(workspace, {"MESH_CACHE_DIR": str(cache)}), limit=5)
    assert rows is not None and [(row.tool, row.outcome) for row in rows] == [("fail", "crash")]
    bad = run_cli("call", "smart_search", "{}", cache=cache, plugins=("no.such.plugin",))
    assert bad.returncode == 2 and "MESH_TOOL_PLUGINS" in bad.stderr
