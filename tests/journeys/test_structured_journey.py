"""Journeys of structured results with the real binary: ``mesh-mcp call --json`` and the README's CI
recipe ("the services a pull request impacts"), run as written on a small git repository."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

from .conftest import REPO_ROOT

pytestmark = [pytest.mark.journey, pytest.mark.timeout(120)]

README: Final = REPO_ROOT / "README.md"
RECIPE: Final = re.compile(r"<!-- ci-recipe:begin -->\n```sh\n(.*?)```\n<!-- ci-recipe:end -->", re.DOTALL)
#: Three services; checkout imports billing; search stands alone.
FILES: Final = {
    "mesh.toml": '[[services]]\nname = "billing"\npath = "billing"\n\n[[services]]\nname = "checkout"\n'
    'path = "checkout"\n\n[[services]]\nname = "search"\npath = "search"\n',
    "billing/billing/__init__.py": "",
    "billing/billing/prices.py": "def price(item):\n    return 42\n",
    "checkout/checkout/__init__.py": "",
    "checkout/checkout/cart.py": "from billing.prices import price\n\n\ndef total(items):\n"
    "    return sum(price(item) for item in items)\n",
    "search/search/__init__.py": "",
    "search/search/index.py": "def find(query):\n    return []\n",
}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, timeout=30)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository: ``main`` with the three services, ``feature`` (checked out) changing billing."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "shop"
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    git(root, "checkout", "-qb", "feature")
    (root / "billing/billing/prices.py").write_text("def price(item):\n    return 43\n")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "billing: a new price")
    return root


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The venv's ``mesh-mcp`` first on PATH, a cache of the test's own."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env["MESH_CACHE_DIR"] = str(tmp_path / "cache")
    env.pop("MESH_TOOL_PLUGINS", None)
    env.update(extra)
    return env


def test_the_readme_ci_recipe_prints_the_services_a_pull_request_impacts(repo: Path, tmp_path: Path) -> None:
    """INV-TOOL-10: the README's recipe, run as written in the pull request's checkout, prints the
    services its commits touch as a JSON list: billing (changed) and checkout (imports it), not search."""
    if shutil.which("mesh-mcp", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("mesh-mcp is not installed in this interpreter's environment")
    (script,) = RECIPE.findall(README.read_text())
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=repo,
        env=environment(tmp_path, BASE_REF="main"),
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == '["billing", "checkout"]\n'


def test_the_recipe_fails_the_step_for_a_range_git_cannot_resolve(repo: Path, tmp_path: Path) -> None:
    if shutil.which("mesh-mcp", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("mesh-mcp is not installed in this interpreter's environment")
    (script,) = RECIPE.findall(README.read_text())
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=repo,
        env=environment(tmp_path, BASE_REF="no-such-branch"),
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode != 0
    assert done.stdout == ""
    assert "impact_matrix answered an error" in done.stderr and "no-such-branch" in done.stderr


def test_call_json_prints_one_canonical_document_with_the_binary(repo: Path, tmp_path: Path) -> None:
    """INV-TOOL-10: ``python -m mesh call ... --json``: one canonical JSON document on stdout, exit 0;
    the Markdown without ``--json``, with the same verdict."""
    command = [sys.executable, "-m", "mesh", "call", "impact_matrix", '{"changes": ["billing/billing/prices.py"]}']
    env = environment(tmp_path)
    structured = subprocess.run(
        [*command, "--json", "--workspace", str(repo)], env=env, capture_output=True, text=True, timeout=90, check=False
    )
    assert structured.returncode == 0, structured.stderr
    document = json.loads(structured.stdout)
    assert structured.stdout == json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
    assert document["services"] == ["billing", "checkout"]
    assert document["verdict"]["services"] == ["checkout"] and document["verdict"]["impacted"] == 1
    markdown = subprocess.run(
        [*command, "--workspace", str(repo)], env=env, capture_output=True, text=True, timeout=90, check=False
    )
    assert markdown.returncode == 0 and "1 service impacted, 0 via gRPC" in markdown.stdout
    assert str(repo) not in structured.stdout  # workspace-relative paths only (INV-TOOL-3)
