"""Enumeration: ignore rules at every level, vendored trees, secrets, binaries, size, symlinks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import mesh.index.build._enumerate as enumerate_module
from mesh.index import walk


def make(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    make(
        tmp_path,
        {
            ".gitignore": "*.log\nbuild-out/\n",
            "README.md": "# ws\n",
            "app.log": "noise",
            "svc/a/main.go": "package main\n",
            "svc/a/.gitignore": "!keep.log\nlocal/\n",
            "svc/a/keep.log": "kept",
            "svc/a/other.log": "dropped",
            "svc/a/local/x.go": "package x\n",
            "svc/a/build-out/y.go": "package y\n",
            "svc/b/.meshignore": "fixtures/\n",
            "svc/b/fixtures/big.json": "{}",
            "svc/b/src/app.py": "print('hi')\n",
            "svc/b/node_modules/lib/index.js": "x",
            "svc/b/.env": "SECRET=1",
            "svc/b/certs/server.pem": "-----BEGIN",
            "svc/b/logo.png": b"\x89PNG",
            "svc/b/api_pb2.py": "# generated",
            "svc/b/huge.txt": "x" * 5000,
            ".git/config": "[core]",
        },
    )
    return tmp_path


def test_stable_order_and_the_reasons_for_what_is_left_out(tree: Path) -> None:
    """INV-INDEX-5."""
    result = walk(tree, max_file_bytes=4096)
    assert [entry.path for entry in result.files] == [
        "README.md",
        "svc/a/keep.log",
        "svc/a/main.go",
        "svc/b/src/app.py",
    ]
    reasons = {skipped.path: skipped.reason for skipped in result.skipped}
    assert reasons == {
        "app.log": "ignored",
        "svc/a/other.log": "ignored",
        "svc/a/local": "ignored",
        "svc/a/build-out": "ignored",
        "svc/b/fixtures": "ignored",
        "svc/b/node_modules": "vendored or generated folder",
        "svc/b/.env": "may hold secrets",
        "svc/b/certs/server.pem": "may hold secrets",
        "svc/b/logo.png": "binary",
        "svc/b/api_pb2.py": "generated",
        "svc/b/huge.txt": "larger than 4096 bytes",
    }
    entry = result.files[0]
    assert entry.size == 5 and entry.mtime_ns > 0
    assert walk(tree, max_file_bytes=4096) == result


def test_configuration_lets_vendored_trees_and_secrets_in(tree: Path) -> None:
    paths = [entry.path for entry in walk(tree, include_vendored=True, include_secrets=True).files]
    assert "svc/b/node_modules/lib/index.js" in paths and "svc/b/api_pb2.py" in paths
    assert "svc/b/.env" in paths and "svc/b/certs/server.pem" in paths


def test_extra_ignores_apply_from_the_root(tree: Path) -> None:
    paths = [entry.path for entry in walk(tree, extra_ignores=("svc/b/",)).files]
    assert not any(path.startswith("svc/b/") for path in paths)


def test_symlinks_inside_are_followed_once_outside_never(tmp_path: Path) -> None:
    """INV-INDEX-5."""
    outside = tmp_path / "outside"
    make(outside, {"secret.go": "package s\n"})
    ws = tmp_path / "ws"
    make(ws, {"svc/main.go": "package main\n"})
    os.symlink(outside, ws / "escape")
    os.symlink(outside / "secret.go", ws / "escape.go")
    os.symlink(ws / "svc", ws / "svc" / "loop")
    os.symlink(ws / "nope", ws / "dangling")
    result = walk(ws)
    assert [entry.path for entry in result.files] == ["svc/main.go"]
    reasons = {skipped.path: skipped.reason for skipped in result.skipped}
    assert reasons["escape"] == reasons["escape.go"] == "symlink out of the workspace"
    assert reasons["svc/loop"] == "symlink to a folder inside the workspace"  # INV-WALK-1: never entered
    assert reasons["dangling"] == "broken symlink"


def test_unreadable_folder_is_reported_and_the_walk_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make(tmp_path, {"locked/a.py": "", "ok.py": ""})
    real_open = enumerate_module.open_folder_inside

    def open_folder_inside(root: Path, rel: str) -> int:
        if rel == "locked":
            raise PermissionError(13, "Permission denied")
        return real_open(root, rel)

    # as root, chmod 0 would not stop the walk
    monkeypatch.setattr(enumerate_module, "open_folder_inside", open_folder_inside)
    result = walk(tmp_path)
    assert [entry.path for entry in result.files] == ["ok.py"]
    assert [(s.path, s.reason) for s in result.skipped] == [("locked", "unreadable folder: Permission denied")]


def test_build_outputs_of_serverless_tools_are_not_walked(tmp_path: Path) -> None:
    """``sam build`` (``.aws-sam/``), ``serverless package`` (``.serverless/``) and CDK (``cdk.out/``)
    copy the sources and templates: their copies would count every route twice."""
    for folder in (".aws-sam/build", ".serverless", "cdk.out", "fn"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "template.yaml").write_text("Transform: AWS::Serverless-2016-10-31\n")
    result = walk(tmp_path)
    assert [entry.path for entry in result.files] == ["fn/template.yaml"]
    assert {skipped.path: skipped.reason for skipped in result.skipped} == {
        ".aws-sam": "vendored or generated folder",
        ".serverless": "vendored or generated folder",
        "cdk.out": "vendored or generated folder",
    }
