"""``git_range`` through a service whose folder links out of the workspace (issue 13 item 4).

A service in ``mesh.toml`` whose path was a symlink to a repository outside the workspace made
``impact_matrix {"git_range": "ext:HEAD~1..HEAD"}`` run git there and list that repository's files;
the same folder given as a plain path was refused. Now mesh.toml refuses such a service path, and
the tool confines the folder git runs in whatever the index says (the link may appear later).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mesh.index import ConfigError, Index, load_config
from mesh.tools import ToolError, parse_args
from mesh.tools._impact import Args, answer
from mesh.tools._view import View

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(folder: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Mesh Test", "-c", "user.email=mesh@example.invalid", "-c", "commit.gpgsign=false",
         "-C", str(folder), *arguments],
        check=True,
        capture_output=True,
    )  # fmt: skip


@pytest.fixture
def outside_repository(tmp_path: Path) -> Path:
    """A repository outside the workspace whose last commit changes ``outside_only.py``."""
    repo = tmp_path / "outside-repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "outside_only.py").write_text("x = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    (repo / "outside_only.py").write_text("x = 2\n")
    git(repo, "commit", "-q", "-am", "second")
    return repo


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "app").mkdir(parents=True)
    (root / "app" / "main.py").write_text("print('inside')\n")
    (root / "mesh.toml").write_text('[[services]]\nname = "app"\n\n[[services]]\nname = "ext"\npath = "ext"\n')
    return root.resolve()


def test_mesh_toml_refuses_a_service_path_linking_out_of_the_workspace_INV_CONFIG_1(
    tmp_path: Path, outside_repository: Path
) -> None:
    """INV-CONFIG-1, INV-TOOL-4: a service path that is a symlink to a folder outside the workspace
    is refused like a path with `..`, naming the service and the path as written."""
    root = workspace(tmp_path)
    (root / "ext").symlink_to(outside_repository)
    with pytest.raises(ConfigError, match=r"services #2 \(ext\): path 'ext' leads outside the workspace") as caught:
        load_config(root)
    assert str(outside_repository) not in str(caught.value)


def test_a_link_inside_the_workspace_is_still_a_service_path(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    (root / "real-ext").mkdir()
    (root / "ext").symlink_to(root / "real-ext")
    assert [service.path for service in load_config(root).services or ()] == ["app", "ext"]


def test_git_range_never_runs_git_in_a_repository_outside_the_workspace_INV_TOOL_4(
    tmp_path: Path, outside_repository: Path
) -> None:
    """INV-TOOL-4: a service folder that became a link out after it was indexed is refused before git
    runs: no file of the outside repository is listed, and the answer names no outside path."""
    root = workspace(tmp_path)
    (root / "ext").mkdir()
    (root / "ext" / "lib.py").write_text("y = 1\n")
    index = Index(root, tmp_path / "cache", workers=1)
    try:
        index.refresh()
        shutil.rmtree(root / "ext")
        (root / "ext").symlink_to(outside_repository)
        for git_range in ("ext:HEAD~1..HEAD", "ext/:HEAD~1..HEAD"):
            args, _ = parse_args(Args, {"git_range": git_range})
            with index.store.snapshot() as db, pytest.raises(ToolError) as caught:
                answer(args, View(db, root))
            message = str(caught.value)
            assert "outside_only" not in message and str(tmp_path) not in message
            assert "through a symlink" in message and "outside the workspace" in message
    finally:
        index.close()
