"""A hostile ``mesh.toml`` (issue 13 item 5, and the bounds of item 10).

``a=`` followed by 1,000 ``[`` made tomllib raise ``RecursionError``: ``mesh-mcp mcp`` exited 1 before
answering ``initialize``, ``index`` printed a traceback and ``doctor`` called it a bug. Every failure
of the TOML parser, and every value past a bound, must be a :class:`ConfigError` naming the file.
"""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mesh.commands._serve import open_audit
from mesh.commands.doctor import Status, check_workspace, diagnose
from mesh.commands.index import run_index
from mesh.index import ConfigError, load_config
from mesh.index.build._live import LiveIndex
from mesh.tools import builtin_registry

REPO_ROOT = Path(__file__).resolve().parents[2]

#: Each of these broke the parser, or what reads its result, with something else than a TOMLDecodeError.
HOSTILE = {
    "nested arrays": "a=" + "[" * 1000 + "\n",
    "nested inline tables": "a=" + "{b=" * 600 + "1" + "}" * 600 + "\n",
    "an integer of 5,000 digits": "[audit]\nretention_rows = " + "1" * 5000 + "\n",
    "a hex integer of 5,000 digits": "[audit]\nretention_rows = 0x" + "f" * 5000 + "\n",
    "a table 2,000 keys deep as a value": "[audit.retention_rows" + ".a" * 2000 + "]\n",
    "a service name 2,000 tables deep": "[[services]]\n[services.name" + ".a" * 2000 + "]\n",
    "languages 500 arrays deep": '[[services]]\nname = "x"\nlanguages = ' + "[" * 500 + "]" * 500 + "\n",
    "not UTF-8": b"[index]\nignore = ['\xff']\n",
    "over a megabyte": "# " + "x" * (1 << 20) + "\n",
}


def hostile_workspace(tmp_path: Path, text: str | bytes) -> Path:
    root = tmp_path / "ws"
    (root / "svc").mkdir(parents=True)
    (root / "svc" / "main.py").write_text("print('hello')\n")
    (root / "mesh.toml").write_bytes(text if isinstance(text, bytes) else text.encode())
    return root.resolve()


@pytest.mark.parametrize("text", HOSTILE.values(), ids=list(HOSTILE))
def test_every_failure_of_the_parser_is_a_config_error_naming_the_file_INV_CONFIG_1(tmp_path: Path, text: str) -> None:
    """INV-CONFIG-1: nesting past the parser's depth, integers past ``int()``'s digits, deep tables
    where a value is expected, bytes that are not UTF-8, a file over 1 MiB: each is a ConfigError
    naming mesh.toml, of bounded length, never another exception."""
    root = hostile_workspace(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(root)
    message = str(caught.value)
    assert message.startswith(f"{root / 'mesh.toml'}: ")
    assert len(message) < 600


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "folder"])
def test_a_mesh_toml_that_is_no_regular_file_is_refused_without_waiting_INV_CONFIG_1(tmp_path: Path, kind: str) -> None:
    """INV-CONFIG-1: a FIFO (which would block the read), a link to an endless device, a folder."""
    root = hostile_workspace(tmp_path, "")
    (root / "mesh.toml").unlink()
    if kind == "fifo":
        os.mkfifo(root / "mesh.toml")
    elif kind == "folder":
        (root / "mesh.toml").mkdir()
    else:
        (root / "mesh.toml").symlink_to(kind)
    with pytest.raises(ConfigError, match=r"mesh\.toml: (not a regular file|cannot read)"):
        load_config(root)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[audit]\nretention_days = 1000000\n", "retention_days must be .* at most 36500"),
        ("[audit]\nretention_days = inf\n", "retention_days must be"),
        ("[audit]\nretention_days = nan\n", "retention_days must be"),
        ("[daemon]\nidle_exit_s = inf\n", "idle_exit_s must be"),
        ("[daemon]\nidle_exit_s = 0x" + "f" * 5000 + "\n", "idle_exit_s must be"),
        ("[index]\nmax_file_bytes = 0\n", "max_file_bytes must be positive"),
    ],
)
def test_values_past_their_bounds_are_refused_at_load_INV_CONFIG_1(tmp_path: Path, text: str, match: str) -> None:
    """INV-CONFIG-1: a number no part of mesh-mcp can use (a retention of a million days, which no
    date can express, an infinite wait) is refused when mesh.toml is read, not where it breaks."""
    with pytest.raises(ConfigError, match=match):
        load_config(hostile_workspace(tmp_path, text))


def test_index_prints_the_error_and_exits_2_INV_CONFIG_1(tmp_path: Path) -> None:
    """INV-CONFIG-1: ``mesh-mcp index`` says what is wrong with mesh.toml in one line and exits 2."""
    root = hostile_workspace(tmp_path, HOSTILE["nested arrays"])
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run_index(root, as_json=False, workers=1, stdout=stdout, stderr=stderr) == 2
    assert stderr.getvalue().splitlines()[-1].startswith(f"mesh-mcp index: {root / 'mesh.toml'}: ")
    assert "Traceback" not in stderr.getvalue()


def test_doctor_reports_a_failing_check_with_a_remedy_not_a_bug_INV_CONFIG_1(tmp_path: Path) -> None:
    """INV-CONFIG-1: ``doctor``'s workspace check fails with the cause and what to fix."""
    root = hostile_workspace(tmp_path, HOSTILE["nested arrays"])
    check = check_workspace(root, given=True)
    assert check.status is Status.FAIL
    assert "mesh.toml" in check.detail and "the check itself failed" not in check.detail
    assert check.remedy is not None and "mesh.toml" in check.remedy
    checks = diagnose(root, given=True, environ={**os.environ, "MESH_SOCKET_PATH": str(tmp_path / "s")}, now=0.0)
    assert not any("bug" in (c.remedy or "") for c in checks), [c for c in checks if "bug" in (c.remedy or "")]


def test_a_server_opens_its_audit_log_and_its_tools_say_why_there_is_no_index_INV_CONFIG_1(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """INV-CONFIG-1: what a server reads of mesh.toml at start (the audit retention) falls back to
    the defaults with a warning, and every tool answers isError naming mesh.toml."""
    root = hostile_workspace(tmp_path, HOSTILE["nested arrays"])
    with caplog.at_level(logging.WARNING):
        open_audit(root).close()
    assert "mesh.toml" in caplog.text
    live = LiveIndex(root, tmp_path / "cache", workers=1, watch=False)
    live.start()
    try:
        assert live.wait_settled(30)
        output = builtin_registry(live).call("smart_search", {"query": "hello"}, None, workspace=root)
    finally:
        live.close()
    assert output.is_error and "mesh.toml: arrays or tables nested too deeply" in output.text
    assert str(root) not in output.text  # INV-TOOL-3: the answer names mesh.toml relative to the workspace


@pytest.mark.journey
def test_mcp_still_answers_initialize_INV_CONFIG_1(tmp_path: Path) -> None:
    """INV-CONFIG-1: ``mesh-mcp mcp --standalone`` on a workspace with a hostile mesh.toml answers
    ``initialize`` and a tool call (isError), and exits 0 at EOF without a traceback."""
    root = hostile_workspace(tmp_path, HOSTILE["nested arrays"])
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "smart_search", "arguments": {"query": "x"}}},
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "MESH_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "mesh", "mcp", "--standalone", "--workspace", str(root)],
        input=b"".join(json.dumps(frame).encode() + b"\n" for frame in frames),
        capture_output=True,
        timeout=60,
        env=env,
    )
    stderr = done.stderr.decode(errors="replace")
    assert done.returncode == 0, stderr[-2000:]
    assert "Traceback" not in stderr and "RecursionError" not in stderr
    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines())}
    assert answers[1]["result"]["serverInfo"]["name"] == "mesh-mcp"
    assert answers[2]["result"]["isError"] is True
