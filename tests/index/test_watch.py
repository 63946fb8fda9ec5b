"""The watcher: saved edits reach the index by themselves; failures keep the last snapshot."""

from __future__ import annotations

import time
from pathlib import Path

from mesh.index import Index, Watcher

from .test_enumerate import make


def wait_for(condition, timeout_s: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def names(index: Index) -> list[str]:
    with index.store.snapshot() as db:
        return [name for (name,) in db.execute("SELECT name FROM defs ORDER BY name")]


def test_edits_creations_renames_and_deletions_reach_the_index(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make(root, {"svc/pyproject.toml": "[project]\nname = 'svc'\n", "svc/app.py": "def first():\n    pass\n"})
    index = Index(root, tmp_path / "cache")
    index.refresh()
    watcher = Watcher(index, reconcile_s=600)
    watcher.start()
    try:
        time.sleep(0.3)  # the watch is set up inside the thread
        (root / "svc/app.py").write_text("def second():\n    pass\n")
        assert wait_for(lambda: names(index) == ["second"])
        (root / "svc/extra.py").write_text("def third():\n    pass\n")
        assert wait_for(lambda: names(index) == ["second", "third"])
        (root / "svc/extra.py").rename(root / "svc/renamed.py")
        assert wait_for(lambda: names(index) == ["second", "third"] and _paths(index)[-1] == "svc/renamed.py")
        (root / "svc/app.py").unlink()
        assert wait_for(lambda: names(index) == ["third"])
        assert watcher.alive and watcher.last_error == ""
    finally:
        watcher.stop()
    assert not watcher.alive


def test_a_broken_mesh_toml_keeps_the_last_snapshot_and_the_fix_is_picked_up(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make(root, {"app.py": "def one():\n    pass\n"})
    index = Index(root, tmp_path / "cache")
    index.refresh()
    watcher = Watcher(index, reconcile_s=600)
    watcher.start()
    try:
        time.sleep(0.3)
        (root / "mesh.toml").write_text("[index\n")
        assert wait_for(lambda: "mesh.toml" in watcher.last_error)
        assert names(index) == ["one"]
        (root / "mesh.toml").write_text("[index]\nignore = ['skip.py']\n")
        (root / "skip.py").write_text("def hidden():\n    pass\n")
        (root / "app.py").write_text("def two():\n    pass\n")
        assert wait_for(lambda: names(index) == ["two"] and watcher.last_error == "")
    finally:
        watcher.stop()


def _paths(index: Index) -> list[str]:
    with index.store.snapshot() as db:
        return [path for (path,) in db.execute("SELECT path FROM files ORDER BY path")]
