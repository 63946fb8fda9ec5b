"""``mesh-mcp index``: the real binary on the fixture workspace and on bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mesh.commands.index import ProgressBar
from mesh.index import Progress

pytestmark = pytest.mark.journey

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "workspace"


def mesh(*args: str, cache: Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MESH_CACHE_DIR=str(cache))
    return subprocess.run(
        [sys.executable, "-m", "mesh.cli", *args],
        check=False,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_index_prints_progress_and_a_summary_then_reuses_the_index(tmp_path: Path) -> None:
    cold = mesh("index", str(FIXTURE), cache=tmp_path / "cache")
    assert cold.returncode == 0, cold.stderr
    assert "Traceback" not in cold.stderr
    assert "walking the workspace..." in cold.stderr
    assert "parsed 59 of 59 files; writing the index..." in cold.stderr
    lines = cold.stdout.splitlines()
    assert lines[0] == f"workspace   {FIXTURE}"
    assert lines[1] == "services    6"  # docs/ and proto/ are areas
    assert lines[2] == "files       59 (parsed 59, unchanged 0, deleted 0, skipped 1)"
    assert lines[3].startswith("languages   markdown 9, rust 8, ")
    assert lines[5] == "gRPC        3 services, 9 methods, 7 implementations, 14 client calls"
    # FIXTURE.md, "HTTP and messaging links": the gateway test's fetch has a computed URL
    assert lines[6] == "HTTP        4 routes, 2 calls (1 reach a service, 1 with a computed URL)"
    assert lines[7] == "messaging   2 producers and consumers"
    assert lines[8] == "problems    0"
    assert lines[9].startswith("time        ")
    # every service with the evidence it came from, then the areas
    assert "  orders  orders  library: orders/pyproject.toml" in lines
    assert "Areas (indexed, in no service): docs (docs), proto (protos)" in lines
    warm = mesh("index", str(FIXTURE), "--json", cache=tmp_path / "cache")
    assert warm.returncode == 0, warm.stderr
    summary = json.loads(warm.stdout)
    assert (summary["parsed"], summary["unchanged"], summary["files"]) == (0, 59, 59)
    assert summary["workspace"] == str(FIXTURE)
    assert summary["failures"] == []
    assert [s["name"] for s in summary["model"]["services"]] == [
        "gateway", "inventory", "notifications", "orders", "payments", "shipping"
    ]  # fmt: skip
    assert summary["model"]["areas"] == [["docs", "docs"], ["proto", "protos"]]


def test_index_finds_the_workspace_from_the_current_folder(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(FIXTURE, workspace)
    (workspace / "mesh.toml").write_text("[index]\n")
    done = mesh("index", "--json", cache=tmp_path / "cache", cwd=workspace / "orders" / "orders")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["workspace"] == str(workspace)


@pytest.mark.parametrize(
    ("setup", "code", "message"),
    [
        ("missing", 2, "mesh-mcp index: {ws}/nowhere: not a folder"),
        ("bad-toml", 2, "mesh-mcp index: {ws}/mesh.toml: Expected ']'"),
        ("cache-under-a-file", 1, "cannot create the index folder"),
    ],
)
def test_bad_input_gets_one_clear_line_and_no_traceback(tmp_path: Path, setup: str, code: int, message: str) -> None:
    workspace = tmp_path / "ws"
    (workspace / "svc").mkdir(parents=True)
    (workspace / "svc" / "app.py").write_text("def f():\n    pass\n")
    cache = tmp_path / "cache"
    target = str(workspace)
    if setup == "missing":
        target = str(workspace / "nowhere")
    elif setup == "bad-toml":
        (workspace / "mesh.toml").write_text("[index\n")
    else:
        blocker = tmp_path / "blocker"
        blocker.write_text("a file")
        cache = blocker / "cache"
    done = mesh("index", target, cache=cache)
    assert done.returncode == code
    assert message.format(ws=workspace) in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty
        self.text = ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


def test_the_progress_line_shows_count_rate_and_eta() -> None:
    clock = Clock()
    stream = Stream(tty=False)
    bar = ProgressBar(stream, clock=clock)
    bar(Progress("walking", 0, 0))
    bar(Progress("parsing", 0, 400))
    clock.now = 2.0
    bar(Progress("parsing", 100, 400))
    clock.now = 2.5
    bar(Progress("parsing", 120, 400))  # too soon after the last line off a terminal
    bar(Progress("writing", 400, 400))
    assert stream.text.splitlines() == [
        "walking the workspace...",
        "[..............................] 0/400 files   0%      0 files/s ETA ?",
        "[#######.......................] 100/400 files  25%     50 files/s ETA 6s",
        "parsed 400 of 400 files; writing the index...",
    ]


def test_on_a_terminal_the_progress_line_is_redrawn_in_place() -> None:
    clock = Clock()
    stream = Stream(tty=True)
    bar = ProgressBar(stream, clock=clock)
    bar(Progress("parsing", 0, 10))
    clock.now = 1.0
    bar(Progress("parsing", 5, 10))
    bar(Progress("done", 10, 10))
    assert stream.text.count("\r") == 3
    assert stream.text.rstrip(" \n").endswith("\rparsed 10 of 10 files; writing the index...")
    assert stream.text.endswith("\n")
