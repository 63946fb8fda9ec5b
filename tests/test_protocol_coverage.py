"""Branch coverage of the sans-IO core stays at 100% (unreachable code is deleted, not excluded)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.timeout(600)
def test_protocol_core_has_full_branch_coverage(tmp_path: Path) -> None:
    data = tmp_path / ".coverage"
    env_args = {"cwd": ROOT, "capture_output": True, "text": True, "timeout": 540}
    run = subprocess.run(
        [sys.executable, "-m", "coverage", "run", f"--data-file={data}", "--branch", "--source=mesh.protocol",
         "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/protocol"],  # no -n: one process
        **env_args,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    report = subprocess.run(
        [sys.executable, "-m", "coverage", "report", f"--data-file={data}", "--show-missing", "--fail-under=100"],
        **env_args,
    )  # fmt: skip
    print(report.stdout)
    assert report.returncode == 0, "mesh/protocol is below 100% branch coverage:\n" + report.stdout
