"""A damaged index: bytes flipped on disk, pages overwritten, a schema that no longer decodes.

Whatever the damage, a tool answers right or says the index was damaged and is being rebuilt,
never a wrong count, and the damaged file is set aside and rebuilt without manual steps.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from io import StringIO
from pathlib import Path

import pytest

from mesh.index import Index
from mesh.index.build._live import LiveIndex
from mesh.tools import builtin_registry
from mesh.tools._view import View

from .index_faults import checkpoint, damage_page, flip_bytes, many_dependents, overwrite, root_page

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 60.0
DEPENDENTS = {"target": "core", "depth": 1}
REBUILDING = "damaged and is being rebuilt"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """A workspace of 300 dependents of ``core``, its index (one checkpointed file) and the right
    answers of three tools."""
    base = tmp_path_factory.mktemp("damage")
    root = base / "ws"
    assert many_dependents(root) == 300
    cache = base / "cache"
    index = Index(root, cache)
    index.refresh()
    answers = {}
    with index.store.snapshot() as db:
        view = View(db, index.root)
        from mesh.tools import _dependents, _impact, _smart_search

        answers["dependents"] = _dependents.answer(_dependents.Args(**DEPENDENTS), view)
        answers["smart_search"] = _smart_search.answer(_smart_search.Args(query="marker_7_"), view)
        answers["impact_matrix"] = _impact.answer(_impact.Args(changes=["core/core/__init__.py"]), view)
    index.close()
    checkpoint(cache / "index.db")
    assert "300 dependents" in answers["dependents"]
    return root.resolve(), cache / "index.db", answers


CALLS = {
    "dependents": DEPENDENTS,
    "smart_search": {"query": "marker_7_"},
    "impact_matrix": {"changes": ["core/core/__init__.py"]},
}


def fresh_copy(pristine_db: Path, root: Path, cache: Path) -> Path:
    """The pristine index copied into ``cache``, opened and closed once there, as a server that
    stopped cleanly leaves it."""
    cache.mkdir(parents=True)
    shutil.copyfile(pristine_db, cache / "index.db")
    Index(root, cache).close()
    return cache / "index.db"


def call(live, tool: str):
    return builtin_registry(live).call(tool, CALLS[tool], None, workspace=live.root)


@pytest.mark.parametrize("seed", range(8))
def test_flipped_bytes_never_give_a_wrong_answer_INV_INDEX_8(pristine, tmp_path: Path, seed: int) -> None:
    """INV-INDEX-8: eight bytes flipped past the first page of an index a server closed cleanly
    (seeded offsets): the next server answers right or says the index is being rebuilt, never a
    wrong count; once rebuilt it answers right, and the damaged file is set aside."""
    root, pristine_db, answers = pristine
    db = fresh_copy(pristine_db, root, tmp_path / "cache")
    flip_bytes(db, seed)
    live = LiveIndex(root, db.parent, watch=False)
    live.start()
    try:
        first = call(live, "dependents")
        assert first.text == answers["dependents"] or (first.is_error and REBUILDING in first.text), first.text[:300]
        assert live.wait_settled(WAIT_S)
        for tool in CALLS:
            assert call(live, tool).text == answers[tool]
    finally:
        live.close()
    assert (db.parent / "index.db.damaged").exists()


@pytest.mark.parametrize("seed", range(3))
def test_mesh_mcp_index_rebuilds_a_damaged_index_INV_INDEX_8(
    pristine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """INV-INDEX-8, INV-INDEX-2: ``mesh-mcp index`` on an index damaged at rest exits 0 with the
    whole workspace indexed (the answer is right after it, not "5 dependents" forever)."""
    from mesh.commands.index import run_index
    from mesh.workspace import cache_dir

    root, pristine_db, answers = pristine
    monkeypatch.setenv("MESH_CACHE_DIR", str(tmp_path / "caches"))
    db = fresh_copy(pristine_db, root, cache_dir(root))
    flip_bytes(db, 100 + seed, count=16)
    out, err = StringIO(), StringIO()
    assert run_index(root, as_json=False, workers=None, stdout=out, stderr=err) == 0, err.getvalue()
    assert "files       323" in out.getvalue()
    assert (db.parent / "index.db.damaged").exists()
    index = Index(root, db.parent)
    try:
        from mesh.tools import _dependents

        with index.store.snapshot() as snapshot:
            view = View(snapshot, index.root)
            assert _dependents.answer(_dependents.Args(**DEPENDENTS), view) == answers["dependents"]
    finally:
        index.close()


def test_a_schema_that_no_longer_decodes_is_set_aside_INV_INDEX_8(pristine, tmp_path: Path) -> None:
    """INV-INDEX-8: a table's name in the schema turned to invalid UTF-8 (every statement then
    raised UnicodeDecodeError, even the integrity check, and every ``index`` failed forever): the
    index is set aside and rebuilt."""
    root, pristine_db, answers = pristine
    db = fresh_copy(pristine_db, root, tmp_path / "cache")
    assert overwrite(db, b"tablegrpcgrpc", b"table\xffrpcgrpc") == 1
    index = Index(root, db.parent)
    try:
        summary = index.refresh()
        assert summary.files == 323 and summary.parsed == 323
    finally:
        index.close()
    assert (db.parent / "index.db.damaged").exists()


@pytest.mark.parametrize("table", ["files", "imports", "text_data"])
def test_damage_found_by_a_query_is_said_and_rebuilt_INV_INDEX_8(pristine, tmp_path: Path, table: str) -> None:
    """INV-INDEX-8: a page of the index is overwritten while a server serves it: every tool says
    the index was damaged and is being rebuilt (not -32603), and answers right once rebuilt."""
    root, pristine_db, answers = pristine
    db = fresh_copy(pristine_db, root, tmp_path / "cache")
    live = LiveIndex(root, db.parent, watch=False, refresh_delay_s=3600)
    live.start()
    try:
        assert live.status()["state"] == "ready"
        damage_page(db, root_page(db, table), seed=7)
        seen = {tool: call(live, tool) for tool in CALLS}
        damaged = [tool for tool, output in seen.items() if output.text != answers[tool]]
        assert damaged, "no tool read the damaged page"
        for tool in damaged:
            assert seen[tool].is_error and REBUILDING in seen[tool].text, (tool, seen[tool].text[:300])
        assert live.wait_settled(WAIT_S)
        for tool in CALLS:
            assert call(live, tool).text == answers[tool]
    finally:
        live.close()
    assert (db.parent / "index.db.damaged").exists()


def test_damage_met_by_a_refresh_is_set_aside_and_rebuilt_INV_INDEX_8(pristine, tmp_path: Path) -> None:
    """INV-INDEX-8: the stored text of a file is damaged while a daemon holds the index open; the
    file then changes and ``mesh-mcp index`` meets the damage when it replaces that text: it sets
    the index aside and rebuilds it (it used to fail forever with ``zlib.error``)."""
    root, pristine_db, answers = pristine
    work = tmp_path / "ws"
    shutil.copytree(root, work)
    db = fresh_copy(pristine_db, work, tmp_path / "cache")
    daemon = Index(work, db.parent)  # another process keeps the index open meanwhile
    try:
        import sqlite3

        reader = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        blob = reader.execute(
            "SELECT c.data FROM content c JOIN files f ON f.id = c.file_id WHERE f.path = 'svc3/svc3/m7.py'"
        ).fetchone()[0]
        reader.close()
        middle = len(blob) // 2
        assert overwrite(db, blob, blob[:middle] + bytes([blob[middle] ^ 0x55]) + blob[middle + 1 :]) == 1
        (work / "svc3/svc3/m7.py").write_text("from core import f\n\n\ndef changed():\n    return f()\n")
        index = Index(work, db.parent)
        try:
            summary = index.refresh()
        finally:
            index.close()
        assert (summary.files, summary.parsed) == (323, 323)
    finally:
        daemon.close()
    assert (db.parent / "index.db.damaged").exists()


STOPPED = """
import os, signal, sys
from pathlib import Path
from mesh.index import Index

def progress(p):
    if sys.argv[3] == "mid-write" and p.phase == "parsing":
        os.kill(os.getpid(), signal.SIGKILL)  # inside the refresh's write transaction

Index(Path(sys.argv[1]), Path(sys.argv[2])).refresh(progress=progress)
os.kill(os.getpid(), signal.SIGKILL)  # between two refreshes: no close
"""


def test_after_an_unclean_stop_a_changed_index_is_checked_INV_INDEX_8(
    pristine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-INDEX-8: a writer killed between two refreshes leaves the index as it noted it: the
    next open trusts it with no check. A writer killed mid-write leaves it noted as being written:
    changed since (here a damaged page), it is checked at open, set aside and rebuilt."""
    import mesh.index.store._store as store_module

    root, _, answers = pristine
    cache = tmp_path / "cache"
    script = tmp_path / "stopped.py"
    script.write_text(textwrap.dedent(STOPPED))
    checks = []
    real_check = store_module.check
    monkeypatch.setattr(store_module, "check", lambda path: checks.append(path) or real_check(path))

    def stop(when: str) -> None:
        done = subprocess.run([sys.executable, str(script), str(root), str(cache), when], cwd=ROOT, timeout=120)
        assert done.returncode == -signal.SIGKILL

    stop("between")
    Index(root, cache).close()  # untouched since the last commit: nothing to check
    assert checks == [] and not (cache / "index.db.damaged").exists()

    stop("mid-write")
    db = cache / "index.db"
    damage_page(db, root_page(db, "imports"), seed=3)
    index = Index(root, cache)
    try:
        assert len(checks) == 1 and (cache / "index.db.damaged").exists()
        index.refresh()
        from mesh.tools import _dependents

        with index.store.snapshot() as snapshot:
            view = View(snapshot, index.root)
            assert _dependents.answer(_dependents.Args(**DEPENDENTS), view) == answers["dependents"]
    finally:
        index.close()


def test_a_clean_index_is_not_set_aside(pristine, tmp_path: Path) -> None:
    """The control: an index closed cleanly and untouched is served as it is, never rebuilt."""
    root, pristine_db, answers = pristine
    db = fresh_copy(pristine_db, root, tmp_path / "cache")
    live = LiveIndex(root, db.parent, watch=False, refresh_delay_s=3600)
    live.start()
    try:
        assert call(live, "dependents").text == answers["dependents"]
    finally:
        live.close()
    index = Index(root, db.parent)
    try:
        assert index.refresh().parsed == 0
    finally:
        index.close()
    assert not (db.parent / "index.db.damaged").exists()


@pytest.mark.parametrize("seed", range(3))
def test_bytes_flipped_while_a_server_serves_are_never_answered_from_INV_INDEX_8(
    pristine, tmp_path: Path, seed: int
) -> None:
    """INV-INDEX-8: bytes flipped while a server has the index open (after it looked at it):
    SQLite cannot see a changed value in an intact page, and a pooled connection may not even
    read the page again; but the files changed while no writer wrote them, so no answer read
    from them is given: every tool says the index is being rebuilt, then answers right."""
    root, pristine_db, answers = pristine
    db = fresh_copy(pristine_db, root, tmp_path / "cache")
    live = LiveIndex(root, db.parent, watch=False, refresh_delay_s=3600)
    live.start()
    try:
        assert call(live, "dependents").text == answers["dependents"]
        time.sleep(0.02)  # past the file system's timestamp tick after the writer's last note
        flip_bytes(db, 200 + seed)
        first = call(live, "dependents")
        assert first.is_error and REBUILDING in first.text, first.text[:300]
        for tool in CALLS:  # until the rebuild commits (it may have by now), they say so too
            output = call(live, tool)
            assert output.text == answers[tool] or (output.is_error and REBUILDING in output.text), output.text[:300]
        assert live.wait_settled(WAIT_S)
        for tool in CALLS:
            assert call(live, tool).text == answers[tool]
    finally:
        live.close()
    assert (db.parent / "index.db.damaged").exists()


def test_the_check_tells_a_whole_index_from_a_damaged_one(pristine, tmp_path: Path) -> None:
    """INV-INDEX-8: ``check`` passes a whole index, fails a damaged page or a schema whose names
    no longer decode (even the integrity check raised then), and leaves an index of another
    schema version to the opener (set aside as ``.old``, not as damaged)."""
    import sqlite3

    from mesh.index.store._store import check

    root, pristine_db, _ = pristine

    def copy(name: str) -> Path:
        path = tmp_path / name
        shutil.copyfile(pristine_db, path)
        return path

    assert check(copy("whole.db")) == ""
    paged = copy("paged.db")
    damage_page(paged, root_page(paged, "imports"), seed=1)
    assert check(paged).startswith(("the integrity check failed", "it cannot be read")), check(paged)
    named = copy("named.db")
    overwrite(named, b"tablegrpcgrpc", b"table\xffrpcgrpc")
    assert check(named).startswith("it cannot be read (malformed database schema"), check(named)
    other = copy("other.db")
    with sqlite3.connect(other) as connection:
        connection.execute("UPDATE meta SET value = 'old' WHERE key = 'schema'")
    assert check(other) == ""


def test_only_failures_that_can_come_from_damage_are_looked_into(tmp_path: Path, monkeypatch) -> None:
    """INV-INDEX-8: corruption, text that does not decode and stored text that does not
    decompress prove damage with no check; a busy database, a full disk and mesh's own answers
    (a target that names nothing) are no damage and cost no check; anything else unexpected
    gets the check."""
    import sqlite3
    import zlib

    import mesh.index.store._store as store_module
    from mesh.index.query._graph import GraphError

    checked = []
    monkeypatch.setattr(store_module, "check", lambda path: checked.append(path) or "")

    def sqlite_error(kind, message: str, code: int | None):
        error = kind(message)
        error.sqlite_errorcode = code
        return error

    path = tmp_path / "index.db"
    proven = [
        sqlite_error(sqlite3.DatabaseError, "database disk image is malformed", 11),
        sqlite_error(sqlite3.DatabaseError, "file is not a database", 26),
        sqlite_error(sqlite3.OperationalError, "Could not decode to UTF-8 column 'path' with text 'a'", None),
        zlib.error("Error -3 while decompressing data: incorrect header check"),
    ]
    for error in proven:
        assert store_module.damage(error, path), error
    harmless = [
        sqlite_error(sqlite3.OperationalError, "database is locked", 5),
        sqlite_error(sqlite3.OperationalError, "database or disk is full", 13),
        GraphError("Nothing in the index is named `x`"),
        KeyboardInterrupt(),
        RuntimeError("all readers busy"),
    ]
    for error in harmless:
        assert store_module.damage(error, path) == "", error
    assert checked == []
    suspects = (TypeError("a string pattern on a bytes-like object"), UnicodeDecodeError("utf-8", b"\xff", 0, 1, "x"))
    for error in suspects:
        store_module.damage(error, path)
    assert checked == [path, path]


def test_mcp_standalone_on_a_damaged_index_answers_every_tool_INV_INDEX_8(pristine, tmp_path: Path) -> None:
    """INV-INDEX-8: ``mesh-mcp mcp --standalone`` on an index damaged at rest answers each of
    three tools (never -32603, which a crashed tool gets) right or saying the index is being
    rebuilt, and exits 0 at EOF."""
    import json

    from mesh.workspace import cache_dir

    root, pristine_db, answers = pristine
    environ = {**os.environ, "MESH_CACHE_DIR": str(tmp_path / "caches"), "PYTHONPATH": str(ROOT)}
    db = fresh_copy(pristine_db, root, cache_dir(root, environ))
    flip_bytes(db, 300)
    frames = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *({"jsonrpc": "2.0", "id": tool, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
          for tool, arguments in CALLS.items()),
    ]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "mesh", "mcp", "--standalone", "--workspace", str(root)],
        input=b"".join(json.dumps(frame).encode() + b"\n" for frame in frames),
        capture_output=True,
        timeout=60,
        env=environ,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    results = {answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines()) if answer["id"] != 0}
    assert sorted(results) == sorted(CALLS)
    for tool, answer in results.items():
        assert "error" not in answer, answer
        text = answer["result"]["content"][0]["text"]
        assert text == answers[tool] or (answer["result"]["isError"] and REBUILDING in text), text[:300]
