"""The paths an index keeps for discovery (``DiscoveryPaths``): changed by a refresh's paths, they
are what the same paths give when made afresh, and discovering again after a manifest edit looks at
the manifests, not at every path (INV-INDEX-11)."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesh.index.build import _build
from mesh.index.build._services import _ROLES, DiscoveryPaths

from ._compare import assert_as_from_scratch, counted_reads, prepared_index, put
from .test_quiet_add import BASE, COMPOSE
from .test_quiet_edit import inline  # noqa: F401 (fixture)

FOLDERS = ("", "svc", "svc/cmd", "svc/cmd/tool", "web", "web/src", ".github", "deploy", "gomod/pkg")
NAMES = (
    "main.go", "util.go", "util_test.go", "go.mod", "package.json", "Dockerfile", "app.py", "compose.yml",
    "deploy.yaml", "Api.csproj", "Program.cs", "README.md", "Makefile", "x.gemspec", "All.sln",
)  # fmt: skip
PATHS = [f"{folder}/{name}" if folder else name for folder in FOLDERS for name in NAMES]
#: Go files by content: a program, or a library
PROGRAM, LIBRARY = b"package main\n\nfunc main() {}\n", b"package util\n"


def _state(held: DiscoveryPaths, read) -> tuple:
    return (
        held.paths,
        sorted(held.folders),
        sorted((folder, sorted(names)) for folder, names in held.files_in.items()),
        {role: list(held.role(role)) for role in _ROLES},
        list(held.go_folders()),
        held.program_folders(read),
        held.git_repositories(),
    )


@settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    before=st.sets(st.sampled_from(PATHS)),
    looked_at=st.sets(st.sampled_from(PATHS + [folder for folder in FOLDERS if folder]), max_size=6),
    after=st.sets(st.sampled_from(PATHS)),
    programs=st.sets(st.sampled_from([path for path in PATHS if path.endswith(".go")])),
    git=st.sets(st.sampled_from([folder for folder in FOLDERS if folder]), max_size=3),
)
def test_paths_replaced_are_the_paths_made_afresh(
    tmp_path: Path, before: set[str], looked_at: set[str], after: set[str], programs: set[str], git: set[str]
) -> None:
    """INV-INDEX-11: the paths a refresh looked at go, what it found there comes; every answer the
    kept paths give (paths, folders, file names, each role's paths, Go folders, program folders,
    git repositories) is then the answer of the same paths made afresh. A Go file among those
    looked at may have changed (here each found is: a library made a program, or the reverse): its
    folder is asked again; any other folder's answer is kept, read no more."""
    root = Path(tempfile.mkdtemp(dir=tmp_path))  # each example its own: tmp_path is the test's
    for folder in git:
        (root / folder / ".git").mkdir(parents=True, exist_ok=True)
    content = {path: PROGRAM if path in programs else LIBRARY for path in PATHS}
    reads: list[str] = []

    def read(path: str) -> bytes:
        reads.append(path)
        return content[path]

    def within(path: str, looked: str) -> bool:
        return path == looked or path.startswith(looked + "/")

    # what a refresh of looked_at finds: the paths of ``after`` at or under one of them
    found = {path for path in after if any(within(path, looked) for looked in looked_at)}
    kept = DiscoveryPaths(root, before)
    _state(kept, read)  # every answer asked once: the program folders, the git repositories
    for path in found:  # only a file the refresh looks at may change: the others are as they were
        content[path] = LIBRARY if content[path] == PROGRAM else PROGRAM
    reads.clear()
    kept.replace(looked_at, found)
    gone = {path for path in before if any(within(path, looked) for looked in looked_at)}
    expected = (before - gone) | found
    assert kept.paths == sorted(expected)
    answers = _state(kept, read)
    touched = {path.rsplit("/", 1)[0] if "/" in path else "" for path in gone | found if path.endswith(".go")}
    assert {path.rsplit("/", 1)[0] if "/" in path else "" for path in reads} <= touched
    assert answers == _state(DiscoveryPaths(root, expected), lambda path: content[path])
    programs_now = {
        path.rsplit("/", 1)[0] if "/" in path else ""
        for path in expected
        if path.endswith(".go") and not path.endswith("_test.go") and content[path] == PROGRAM
    }
    assert answers[5] == sorted(programs_now)
    assert answers[6] == sorted(git & {folder for path in expected for folder in _ancestors(path)})


def _ancestors(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]


@pytest.mark.usefixtures("inline")
def test_a_manifest_edited_is_discovered_again_without_every_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-INDEX-11: a manifest or deployment edited (its bytes discovery read) has the workspace
    discovered again over the paths the index keeps: no path read from the index, no Go file read,
    the kept paths changed, not made again; after files come and go (a Go program among them) and
    after a refresh that failed (the kept paths dropped, made again from the index), the index is
    a build from scratch's."""
    root = tmp_path / "ws"
    made: list[int] = []
    real_init = DiscoveryPaths.__init__

    def counting(self, *args, **kwargs) -> None:
        made.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(DiscoveryPaths, "__init__", counting)
    reads = counted_reads(monkeypatch)
    selects: list[str] = []
    connect = sqlite3.connect

    def traced(*args, **kwargs):
        db = connect(*args, **kwargs)
        db.set_trace_callback(lambda statement: selects.append(statement) if "FROM files" in statement else None)
        return db

    files = {**BASE, "docker-compose.yml": COMPOSE}
    with prepared_index(root, tmp_path / "cache", files) as index:
        assert made == [1]  # the first build's walk
        monkeypatch.setattr(sqlite3, "connect", traced)
        reads.clear()
        put(root, "docker-compose.yml", COMPOSE.replace("./billing\n", "./billing\n    restart: always\n"))
        index.refresh(changed=["docker-compose.yml"])
        assert "docker-compose.yml" in reads and not [path for path in reads if path.endswith(".go")]
        assert made == [1]
        assert not [s for s in selects if s.strip().startswith("SELECT path FROM files") and "WHERE" not in s]
        # files come and go, a Go program among them: the kept paths follow, then a manifest edit
        put(root, "gomod/tools/gen/main.go", "package main\n\nfunc main() {}\n")
        index.refresh(changed=["gomod/tools/gen"])
        put(root, "py/lib/extra.py", "X = 1\n")
        put(root, "node/package.json", None)
        index.refresh(changed=["py/lib/extra.py", "node/package.json"])
        put(root, "docker-compose.yml", COMPOSE)
        index.refresh(changed=["docker-compose.yml"])
        assert_as_from_scratch(index, tmp_path / "fresh-1", "files came and went")
        # a refresh that fails drops the kept paths: the next discovery makes them from the index
        fail = _build.Index._write

        def failing(*args, **kwargs):
            raise RuntimeError("planted")

        monkeypatch.setattr(_build.Index, "_write", failing)
        put(root, "py/lib/extra.py", "X = 2\n")
        with pytest.raises(RuntimeError, match="planted"):
            index.refresh(changed=["py/lib/extra.py"])
        monkeypatch.setattr(_build.Index, "_write", fail)
        assert index._paths is None
        put(root, "docker-compose.yml", COMPOSE.replace("./billing\n", "./billing\n    restart: always\n"))
        index.refresh(changed=["docker-compose.yml", "py/lib/extra.py"])
        assert_as_from_scratch(index, tmp_path / "fresh-2", "after a failed refresh")
