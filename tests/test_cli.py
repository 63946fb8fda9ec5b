"""The mesh-mcp command: arguments, workspace discovery, plugin errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mesh import __version__
from mesh.cli import main
from mesh.workspace import find_workspace

ROOT = Path(__file__).resolve().parent.parent


def test_workspace_prefers_mesh_toml_over_a_nearer_git(tmp_path: Path) -> None:
    service = tmp_path / "ws" / "svc" / "src"
    service.mkdir(parents=True)
    (tmp_path / "ws" / "mesh.toml").write_text("")
    (tmp_path / "ws" / "svc" / ".git").mkdir()
    assert find_workspace(service) == (tmp_path / "ws").resolve()


def test_workspace_falls_back_to_git_then_to_the_start(tmp_path: Path) -> None:
    (tmp_path / "repo" / "a").mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    assert find_workspace(tmp_path / "repo" / "a") == (tmp_path / "repo").resolve()
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    # tmp_path is not inside a git checkout on the machines we test on; if it were, skip.
    found = find_workspace(lonely)
    if found != lonely.resolve():
        pytest.skip(f"{tmp_path} lies inside a workspace marker at {found}")
    assert found == lonely.resolve()


def test_missing_workspace_folder_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "--workspace", str(tmp_path / "nope")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_bad_plugin_is_a_usage_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mesh", "mcp", "--standalone"], input=b"", capture_output=True, timeout=60, cwd=ROOT,
        env={**os.environ, "MESH_TOOL_PLUGINS": "no.such.plugin"},
    )  # fmt: skip
    assert result.returncode == 2 and b"MESH_TOOL_PLUGINS" in result.stderr and result.stdout == b""


def run_cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "mesh", *args], input=stdin, capture_output=True, timeout=60, cwd=ROOT)


def test_version_and_help() -> None:
    assert run_cli("--version").stdout.decode().strip() == f"mesh-mcp {__version__}"
    helped = run_cli("mcp", "--help").stdout.decode()
    for option in ("--workspace", "--standalone", "--log-level"):
        assert option in helped


@pytest.mark.parametrize("command", ["mcp", "run"])
def test_run_is_an_alias_and_standalone_is_accepted(command: str) -> None:
    ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    result = run_cli(command, "--standalone", "--log-level", "INFO", stdin=ping)
    assert result.returncode == 0
    assert result.stdout == b'{"id":1,"jsonrpc":"2.0","result":{}}\n'
    assert b"mesh.stdio" in result.stderr  # logs go to stderr through the mesh.* loggers


def test_bad_mesh_log_falls_back_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mesh", "mcp", "--standalone"], input=b"", capture_output=True, timeout=60, cwd=ROOT,
        env={**os.environ, "MESH_LOG": "loud"},
    )  # fmt: skip
    assert result.returncode == 0 and b"MESH_LOG='loud'" in result.stderr and result.stdout == b""
