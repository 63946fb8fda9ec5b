"""Building and refreshing the index: incremental work, whole snapshots, crashes, bad input."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mesh.index import Index, IndexUnavailable, Progress

from .test_enumerate import make

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    make(
        root,
        {
            "orders/pyproject.toml": '[project]\nname = "orders"\ndependencies = ["grpcio>=1.60"]\n',
            "orders/orders/server.py": "from orders import store\n\n\ndef serve():\n    return store.load()\n",
            "orders/orders/store.py": "def load():\n    return 1\n",
            "orders/orders/__init__.py": "",
            "docs/guide.md": "# Guide\n\n## Install\n\ntext\n",
        },
    )
    return root


def build(root: Path, cache: Path, **kwargs) -> tuple[Index, object]:
    index = Index(root, cache, **kwargs)
    return index, index.refresh()


def rows(index: Index, sql: str, *params) -> list[tuple]:
    with index.store.snapshot() as db:
        return db.execute(sql, params).fetchall()


def test_a_cold_build_indexes_every_file_with_its_service_and_kind(ws: Path, tmp_path: Path) -> None:
    index, summary = build(ws, tmp_path / "cache")
    assert summary.files == 5 and summary.parsed == 5 and summary.unchanged == 0
    assert rows(index, "SELECT path, service, language, kind FROM files ORDER BY path") == [
        ("docs/guide.md", "", "markdown", "docs"),  # docs/ is an area: indexed, in no service
        ("orders/orders/__init__.py", "orders", "python", "code"),
        ("orders/orders/server.py", "orders", "python", "code"),
        ("orders/orders/store.py", "orders", "python", "code"),
        ("orders/pyproject.toml", "orders", "", "config"),
    ]
    assert rows(index, "SELECT name, path, origin FROM services ORDER BY name") == [("orders", "orders", "manifest")]
    assert rows(index, "SELECT path, reason FROM areas") == [("docs", "docs")]
    assert rows(index, "SELECT module, target_path, target_service FROM imports") == [
        ("orders", "orders/orders/store.py", "orders")  # `from orders import store`: the submodule
    ]


def test_a_second_refresh_reads_nothing_and_an_edit_parses_one_file(ws: Path, tmp_path: Path) -> None:
    """INV-INDEX-3."""
    index, first = build(ws, tmp_path / "cache")
    again = index.refresh()
    assert (again.parsed, again.unchanged, again.generation) == (0, 5, first.generation + 1)
    (ws / "orders/orders/store.py").write_text("def load():\n    return 2\n\n\ndef save():\n    pass\n")
    edited = index.refresh()
    assert (edited.parsed, edited.unchanged) == (1, 4)
    assert rows(index, "SELECT name FROM defs JOIN files ON files.id = defs.file_id WHERE path LIKE '%store.py'") == [
        ("load",),
        ("save",),
    ]


def test_facts_of_other_extractors_are_parsed_again_INV_INDEX_3(ws: Path, tmp_path: Path, monkeypatch) -> None:
    """INV-INDEX-3: an index whose facts other extractors wrote (mesh-mcp upgraded) parses every
    file again at its next full refresh, once; unchanged bytes do not keep stale facts."""
    from mesh.index.build import _build

    index, _ = build(ws, tmp_path / "cache")
    assert rows(index, "SELECT value FROM meta WHERE key = 'extractors'") == [(_build.fingerprint(),)]
    monkeypatch.setattr(_build, "fingerprint", lambda: "another-version")
    upgraded = index.refresh()
    assert (upgraded.parsed, upgraded.unchanged) == (5, 0)
    assert rows(index, "SELECT value FROM meta WHERE key = 'extractors'") == [("another-version",)]
    assert (index.refresh().parsed, index.refresh().unchanged) == (0, 5)


def test_a_touched_file_with_the_same_content_is_not_parsed_again(ws: Path, tmp_path: Path) -> None:
    """INV-INDEX-3."""
    index, _ = build(ws, tmp_path / "cache")
    path = ws / "orders/orders/store.py"
    os.utime(path, ns=(1, 1))
    summary = index.refresh()
    assert (summary.parsed, summary.unchanged) == (0, 5)
    assert rows(index, "SELECT mtime_ns FROM files WHERE path = 'orders/orders/store.py'") == [(1,)]


def test_deletions_and_renames_leave_no_stale_facts(ws: Path, tmp_path: Path) -> None:
    """INV-INDEX-3."""
    index, _ = build(ws, tmp_path / "cache")
    (ws / "orders/orders/store.py").rename(ws / "orders/orders/storage.py")
    (ws / "docs/guide.md").unlink()
    summary = index.refresh()
    assert (summary.parsed, summary.deleted) == (1, 2)
    assert rows(index, "SELECT path FROM files ORDER BY path") == [
        ("orders/orders/__init__.py",),
        ("orders/orders/server.py",),
        ("orders/orders/storage.py",),
        ("orders/pyproject.toml",),
    ]
    assert rows(index, "SELECT count(*) FROM sections") == [(0,)]
    with index.store.snapshot() as db:
        assert db.execute(
            "SELECT count(*) FROM text WHERE text MATCH ?", ('"gui" AND "uid" AND "ide"',)
        ).fetchone() == (0,)


def test_refresh_limited_to_changed_paths(ws: Path, tmp_path: Path) -> None:
    """INV-INDEX-1."""
    index, _ = build(ws, tmp_path / "cache")
    (ws / "docs/guide.md").write_text("# Guide\n\n## Upgrade\n")
    (ws / "orders/orders/store.py").write_text("def other():\n    pass\n")
    summary = index.refresh(changed=["docs/guide.md", "docs/missing.md"])
    assert summary.parsed == 1
    assert rows(index, "SELECT section_id FROM sections ORDER BY line") == [("guide",), ("guide/upgrade",)]
    assert rows(index, "SELECT name FROM defs JOIN files ON files.id = defs.file_id WHERE path LIKE '%store.py'") == [
        ("load",)
    ]


def test_readers_see_one_whole_snapshot_while_a_refresh_commits(ws: Path, tmp_path: Path) -> None:
    """INV-INDEX-1."""
    index, first = build(ws, tmp_path / "cache")
    (ws / "docs/guide.md").unlink()
    with index.store.snapshot() as db:
        before = db.execute("SELECT count(*) FROM files").fetchone()
        index.refresh()
        during = db.execute("SELECT count(*) FROM files").fetchone()
        generation = db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    assert before == during == (5,)
    assert generation == (str(first.generation),)
    assert rows(index, "SELECT count(*) FROM files") == [(4,)]


def test_progress_reports_files_parsed_of_total(ws: Path, tmp_path: Path) -> None:
    seen: list[Progress] = []
    Index(ws, tmp_path / "cache").refresh(progress=seen.append)
    assert seen[0] == Progress("walking", 0, 0)
    assert seen[1] == Progress("parsing", 0, 5)
    assert [p.done for p in seen if p.phase == "parsing"] == [0, 1, 2, 3, 4, 5]
    assert seen[-1] == Progress("done", 5, 5)


def test_the_worker_pool_gives_the_same_index_as_inline_parsing(tmp_path: Path) -> None:
    files = {f"svc/pkg/m{i:03}.py": f"def f{i}():\n    return {i}\n" for i in range(80)}
    files["svc/setup.py"] = "from setuptools import setup\nsetup(name='svc', install_requires=['attrs'])\n"
    make(tmp_path / "ws", files)
    pooled, summary = build(tmp_path / "ws", tmp_path / "a", workers=2)
    assert summary.parsed == 81
    names = rows(pooled, "SELECT name FROM defs ORDER BY name")
    assert names == sorted((f"f{i}",) for i in range(80))


def test_bad_files_are_recorded_with_a_reason_and_never_stop_the_build(tmp_path: Path) -> None:
    """INV-INDEX-4."""
    root = tmp_path / "ws"
    make(
        root,
        {
            "app/good.py": "def ok():\n    pass\n",
            "app/latin1.py": b"# caf\xe9\ndef f():\n    pass\n",
            "app/image.py": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            "app/broken.py": "def f(:\n    pass\n",
            "web/app.min.js.txt": "x",
            "web/bundle.js": "var a=1;" * 2000,
        },
    )
    index, summary = build(root, tmp_path / "cache")
    problems = dict(summary.failures)
    assert problems["app/image.py"] == "binary content (NUL byte at offset 8); not indexed"
    assert problems["app/latin1.py"] == "invalid UTF-8 at byte 5; indexed with replacement characters"
    assert problems["app/broken.py"].startswith("syntax error at line 1")
    assert problems["web/bundle.js"] == "minified (a line of 16000 characters); text indexed, not parsed"
    assert "app/good.py" not in problems
    assert rows(index, "SELECT name FROM defs JOIN files ON files.id = file_id WHERE path = 'app/latin1.py'") == [
        ("f",)
    ]


def test_a_cache_folder_that_cannot_be_created_is_a_clear_error(ws: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(IndexUnavailable, match=r"cannot create the index folder .*set MESH_CACHE_DIR"):
        Index(ws, blocker / "cache")


def test_indexing_writes_nothing_into_the_workspace(ws: Path, tmp_path: Path) -> None:
    """INV-INDEX-5."""
    before = sorted(str(p.relative_to(ws)) for p in ws.rglob("*"))
    build(ws, tmp_path / "cache")
    assert sorted(str(p.relative_to(ws)) for p in ws.rglob("*")) == before


def test_a_damaged_database_is_set_aside_and_rebuilt(ws: Path, tmp_path: Path) -> None:
    """INV-INDEX-2."""
    cache = tmp_path / "cache"
    index, _ = build(ws, cache)
    index.close()
    (cache / "index.db").write_bytes(b"this is not a database" * 100)
    for extra in ("index.db-wal", "index.db-shm"):
        (cache / extra).unlink(missing_ok=True)
    index, summary = build(ws, cache)
    assert summary.files == 5 and summary.parsed == 5
    assert (cache / "index.db.damaged").exists()


def test_a_database_of_another_schema_is_rebuilt(ws: Path, tmp_path: Path) -> None:
    """INV-INDEX-2."""
    cache = tmp_path / "cache"
    index, _ = build(ws, cache)
    index.store._writer.execute("UPDATE meta SET value = 'old' WHERE key = 'schema'")
    index.close()
    _, summary = build(ws, cache)
    assert summary.parsed == 5


KILLER = """
import os, signal, sys
from pathlib import Path
from mesh.index import Index

def progress(p):
    if p.phase == "parsing" and p.done == int(sys.argv[3]):
        os.kill(os.getpid(), signal.SIGKILL)

Index(Path(sys.argv[1]), Path(sys.argv[2])).refresh(progress=progress)
"""


def test_kill_9_mid_build_keeps_the_previous_snapshot_and_the_next_start_goes_on(ws: Path, tmp_path: Path) -> None:
    """INV-INDEX-2."""
    cache = tmp_path / "cache"
    index, first = build(ws, cache)
    index.close()
    for i in range(40):
        (ws / f"orders/orders/gen_{i}.py").write_text(f"def g{i}():\n    pass\n")
    script = tmp_path / "killer.py"
    script.write_text(textwrap.dedent(KILLER))
    done = subprocess.run([sys.executable, str(script), str(ws), str(cache), "20"], check=False, cwd=ROOT, timeout=120)
    assert done.returncode == -signal.SIGKILL
    index = Index(ws, cache)
    assert rows(index, "SELECT count(*) FROM files") == [(5,)]
    assert index.store.generation() == first.generation
    summary = index.refresh()
    assert (summary.files, summary.parsed) == (45, 40)


def test_a_file_over_the_time_budget_or_killing_its_worker_costs_only_itself(tmp_path: Path) -> None:
    """INV-INDEX-4."""
    from mesh.index.build._pool import ParsePool
    from mesh.index.build._work import Task

    root = tmp_path / "ws"
    files = {f"a/m{i:02}.py": f"def f{i}():\n    pass\n" for i in range(30)}
    files["a/hang.py"] = "x = 1\n"
    files["a/crash.py"] = "y = 2\n"
    make(root, files)
    outcomes = {}
    pool = ParsePool(root, workers=2, budget_s=0.5, worker_module="tests.support.parse_worker")
    with pool:
        pool.run([Task(path) for path in sorted(files)], lambda outcome: outcomes.setdefault(outcome.path, outcome))
    assert sorted(outcomes) == sorted(files)
    assert outcomes["a/hang.py"].facts.error == "parse took longer than the 0.5 s budget; text not indexed"
    assert outcomes["a/crash.py"].facts.error == "parse failed: the worker process died"
    assert all(outcomes[path].status == "parsed" for path in files if path.startswith("a/m"))


def test_a_changed_paths_refresh_applies_the_ignore_rules_without_a_walk(ws: Path, tmp_path: Path) -> None:
    """INV-INDEX-5."""
    index, _ = build(ws, tmp_path / "cache")
    make(ws, {"orders/.gitignore": "scratch/\n", "orders/scratch/tmp.py": "x = 1\n", "orders/orders/new.py": "y = 2\n"})
    # .gitignore itself changed: the next refresh is a full one, and honours it
    summary = index.refresh(changed=["orders/.gitignore", "orders/scratch/tmp.py", "orders/orders/new.py"])
    assert summary.parsed == 1
    make(ws, {"orders/scratch/other.py": "z = 3\n", "node_modules/x/index.js": "1", "orders/orders/more.py": "w = 4\n"})
    summary = index.refresh(changed=["orders/scratch/other.py", "node_modules/x/index.js", "orders/orders/more.py"])
    assert summary.parsed == 1
    paths = [path for (path,) in rows(index, "SELECT path FROM files ORDER BY path")]
    assert "orders/orders/more.py" in paths and "orders/scratch/other.py" not in paths
    assert "node_modules/x/index.js" not in paths


def test_a_deleted_folder_takes_its_files_with_it(ws: Path, tmp_path: Path) -> None:
    """INV-INDEX-3."""
    import shutil

    index, _ = build(ws, tmp_path / "cache")
    index.refresh(changed=["docs/guide.md"])  # a changed-only refresh knows the workspace now
    shutil.rmtree(ws / "docs")
    summary = index.refresh(changed=["docs"])
    assert summary.deleted == 1
    assert rows(index, "SELECT count(*) FROM files WHERE path LIKE 'docs/%'") == [(0,)]


def test_imports_follow_their_target_through_deletion_and_return(ws: Path, tmp_path: Path) -> None:
    make(ws, {"orders/orders/api.py": "from orders.store import load\n"})
    index, _ = build(ws, tmp_path / "cache")
    target = "SELECT target_path FROM imports JOIN files ON files.id = file_id WHERE path = 'orders/orders/api.py'"
    assert rows(index, target) == [("orders/orders/store.py",)]
    (ws / "orders/orders/store.py").unlink()
    index.refresh(changed=["orders/orders/store.py"])
    assert rows(index, target) == [("orders/orders/__init__.py",)]
    (ws / "orders/orders/store.py").write_text("def load():\n    pass\n")
    index.refresh(changed=["orders/orders/store.py"])
    assert rows(index, target) == [("orders/orders/store.py",)]


def test_a_file_that_cannot_be_read_is_recorded_with_the_reason(tmp_path: Path) -> None:
    """INV-INDEX-4."""
    from mesh.index.build._work import Task, process

    (tmp_path / "folder.py").mkdir()
    outcome = process(tmp_path, Task("folder.py"))
    assert (outcome.status, outcome.facts.error) == ("failed", "unreadable: Is a directory")
    outcome = process(tmp_path, Task("gone.py"))
    assert (outcome.status, outcome.facts.error) == ("failed", "unreadable: No such file or directory")


def test_a_file_that_vanishes_between_the_walk_and_the_read_is_recorded_not_fatal(ws: Path, tmp_path: Path) -> None:
    """INV-INDEX-4."""
    index = Index(ws, tmp_path / "cache")

    def vanish(progress: Progress) -> None:
        if progress.phase == "parsing" and progress.done == 0:
            (ws / "orders/orders/store.py").unlink(missing_ok=True)

    summary = index.refresh(progress=vanish)
    assert dict(summary.failures) == {"orders/orders/store.py": "unreadable: No such file or directory"}
    assert summary.files == 5
    again = index.refresh()
    assert (again.files, again.deleted) == (4, 1)


def test_files_without_text_can_change_and_go(tmp_path: Path) -> None:
    """INV-INDEX-3."""
    root = tmp_path / "ws"
    make(root, {"app/image.py": b"\x89PNG\x00\x00", "app/ok.py": "x = 1\n"})
    index, _ = build(root, tmp_path / "cache")
    (root / "app/image.py").write_bytes(b"\x89PNG\x00\x01 changed")
    assert index.refresh().parsed == 1
    (root / "app/image.py").unlink()
    assert index.refresh().deleted == 1
    assert rows(index, "SELECT path FROM files") == [("app/ok.py",)]


def test_a_file_over_the_budget_is_not_parsed_again_until_it_changes(tmp_path: Path) -> None:
    """INV-INDEX-4."""
    root = tmp_path / "ws"
    files = {f"a/m{i:02}.py": f"def f{i}():\n    pass\n" for i in range(40)}
    files["a/hang.py"] = "x = 1\n"
    make(root, files)
    index = Index(root, tmp_path / "cache", workers=2, budget_s=0.3, worker_module="tests.support.parse_worker")
    first = index.refresh()
    assert dict(first.failures) == {"a/hang.py": "parse took longer than the 0.3 s budget; text not indexed"}
    assert index.refresh().parsed == 0
    (root / "a/hang.py").write_text("x = 2\n")
    assert index.refresh(changed=["a/hang.py"]).parsed == 1


def test_an_index_that_keeps_its_workers_budgets_even_a_single_file(tmp_path: Path) -> None:
    """INV-INDEX-4."""
    root = tmp_path / "ws"
    make(root, {"a/ok.py": "def f():\n    pass\n"})
    index = Index(
        root, tmp_path / "cache", workers=1, budget_s=0.3, worker_module="tests.support.parse_worker", keep_workers=True
    )
    try:
        assert index.refresh().parsed == 1
        (root / "a/hang.py").write_text("x = 1\n")
        summary = index.refresh(changed=["a/hang.py"])
        assert dict(summary.failures) == {"a/hang.py": "parse took longer than the 0.3 s budget; text not indexed"}
        (root / "a/ok.py").write_text("def g():\n    pass\n")
        assert index.refresh(changed=["a/ok.py"]).parsed == 1
        assert rows(index, "SELECT name FROM defs") == [("g",)]
    finally:
        index.close()


def test_the_trigram_index_narrows_searches_with_the_planners_own_folding(tmp_path: Path) -> None:
    """The FTS table holds mesh's folded text, so a plan made by the same folding finds its candidates."""
    from mesh.index.store._trigrams import plan, plan_literal

    root = tmp_path / "ws"
    make(
        root,
        {
            "a/turkish.py": "CITY = 'İstanbul'\n",
            "a/handlers.py": "def order_handler(x):\n    pass\n",
            "a/nul.txt": "x" * 9000 + "\0" + "after_the_nul_marker\n",
            "a/other.py": "print('nothing here')\n",
        },
    )
    index, _ = build(root, tmp_path / "cache")

    def candidates(query) -> list[str]:
        match = query.fts5(phrases=False)
        with index.store.snapshot() as db:
            found = db.execute(
                "SELECT f.path FROM text JOIN files f ON f.id = text.rowid WHERE text MATCH ? ORDER BY f.path", (match,)
            )
            return [path for (path,) in found]

    assert candidates(plan_literal("istanbul")) == ["a/turkish.py"]
    assert candidates(plan(r"def \w+_handler\(")) == ["a/handlers.py"]
    assert candidates(plan_literal("after_the_nul_marker")) == ["a/nul.txt"]


def test_a_second_writer_of_the_same_index_gets_a_clear_message(ws: Path, tmp_path: Path) -> None:
    from mesh.index import Store

    index, _ = build(ws, tmp_path / "cache")
    other = Store(tmp_path / "cache", busy_timeout_ms=100)
    busy = r"another process is writing the index at .*try again"
    with index.store.transaction(), pytest.raises(IndexUnavailable, match=busy), other.transaction():
        pass
    with other.transaction() as writer:  # once the first is done, the second goes ahead
        assert len(writer.known_files()) == 5


def test_two_processes_creating_one_new_index_take_turns(ws: Path, tmp_path: Path) -> None:
    """INV-INDEX-2."""
    cache = tmp_path / "cache"
    script = "import sys; from pathlib import Path; from mesh.index import Index; Index(Path(sys.argv[1]), Path(sys.argv[2])).refresh()"
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(ws), str(cache)], cwd=ROOT, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    errors = [run.communicate(timeout=120)[1] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], errors
    assert not (cache / "index.db.old").exists()
    assert rows(Index(ws, cache), "SELECT count(*) FROM files") == [(5,)]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from . import store\n", "orders/orders/store.py"),  # a submodule, not the package
        ("from .store import load\n", "orders/orders/store.py"),
        ("from . import load\n", "orders/orders/__init__.py"),  # a name in the package itself
        ("from orders import store\n", "orders/orders/store.py"),
        ("from orders import *\n", "orders/orders/__init__.py"),
    ],
)
def test_python_from_imports_name_the_submodule_when_there_is_one(
    ws: Path, tmp_path: Path, source: str, expected: str
) -> None:
    make(ws, {"orders/orders/api.py": source})
    index, _ = build(ws, tmp_path / "cache")
    target = "SELECT target_path FROM imports JOIN files ON files.id = file_id WHERE path = 'orders/orders/api.py'"
    assert rows(index, target) == [(expected,)]


def test_a_csharp_namespace_finds_the_proto_package_whatever_its_case(tmp_path: Path) -> None:
    """`using Acme.Orders.V1;` is the C# namespace protoc derives from `package acme.orders.v1;`."""
    ws = tmp_path / "ws"
    make(ws, {
        "proto/acme/orders/v1/orders.proto": 'syntax = "proto3";\npackage acme.orders.v1;\nmessage Order {}\n',
        "svc/Svc.csproj": "<Project />\n",
        "svc/Watcher.cs": "using Acme.Orders.V1;\n\nclass Watcher {}\n",
    })  # fmt: skip
    index, _ = build(ws, tmp_path / "cache")
    target = "SELECT target_path FROM imports JOIN files ON files.id = file_id WHERE path = 'svc/Watcher.cs'"
    assert rows(index, target) == [("proto/acme/orders/v1/orders.proto",)]
