"""The repository keeps its promises: README commands, CI script, invariants named by tests."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    return re.findall(r"```sh\n(.+?)\n```", (ROOT / "README.md").read_text())


def test_readme_opens_with_the_two_setup_commands() -> None:
    serve, test = readme_commands()[:2]
    assert "pip install" in serve and "mesh-mcp mcp" in serve
    assert "'.[test]'" in test and "pytest" in test


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test = readme_commands()[1]
    script = (ROOT / ".ci" / "run").read_text()
    assert test in script.splitlines()
    assert "-eq 5" in script  # pytest's "no tests collected" is handled


def test_every_invariant_is_named_by_a_test() -> None:
    ids = sorted(set(re.findall(r"\*\*(INV-[A-Z]+-\d+)\*\*", (ROOT / "INVARIANTS.md").read_text())))
    assert len(ids) >= 15
    sources = "\n".join(
        path.read_text() for folder in ("tests", "sim") if (ROOT / folder).is_dir() for path in (ROOT / folder).rglob("*.py")
    )
    missing = [inv for inv in ids if inv not in sources]
    assert missing == []
