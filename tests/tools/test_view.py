"""The checks every tool shares: paths inside the workspace, arguments for follow-up calls."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from mesh.tools import ToolError
from mesh.tools._view import arguments_of, workspace_path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "svc" / "src").mkdir(parents=True)
    (root / "svc" / "src" / "a.py").write_text("")
    (root / "inside").symlink_to(root / "svc")
    (root / "outside").symlink_to(tmp_path)
    return root.resolve()


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("svc/src/a.py", "svc/src/a.py"),
        ("./svc//src/", "svc/src"),
        ("svc/../svc/src", "svc/src"),
        ("", ""),
        (".", ""),
        ("  svc  ", "svc"),
        ("inside/src", "inside/src"),  # a symlink whose target is inside
        ("not/there/yet", "not/there/yet"),
    ],
)
def test_paths_inside_the_workspace_are_made_relative(root: Path, given: str, expected: str) -> None:
    assert workspace_path(root, given) == expected


def test_an_absolute_path_inside_the_workspace_is_accepted(root: Path) -> None:
    assert workspace_path(root, str(root / "svc" / "src")) == "svc/src"


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("..", "leaves the workspace"),
        ("svc/../../etc/passwd", "leaves the workspace"),
        ("/etc/passwd", "`/etc/passwd` is outside the workspace; give a path relative"),  # refused as absolute
        ("outside", "through a symlink"),
        ("outside/elsewhere", "through a symlink"),
        ("svc\0", "NUL byte"),
    ],
)
def test_paths_leaving_the_workspace_are_refused(root: Path, given: str, message: str) -> None:
    """INV-TOOL-4: `..`, absolute paths outside and escaping symlinks are errors an agent can act on."""
    with pytest.raises(ToolError, match=message):
        workspace_path(root, given, what="target")


@attrs.frozen(kw_only=True)
class Args:
    query: str
    depth: int = 2
    changes: list[str] | None = None
    cursor: str | None = None


def test_follow_up_arguments_are_those_that_differ_from_the_defaults() -> None:
    assert arguments_of(Args(query="x")) == {"query": "x"}
    assert arguments_of(Args(query="x", depth=3, changes=["a"])) == {"query": "x", "depth": 3, "changes": ["a"]}
