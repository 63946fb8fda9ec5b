"""``mesh-mcp doctor``: each check in its working and its broken states, the report, the exit codes.

No invariant of INVARIANTS.md is at stake here; what is checked is the command's contract: every
check says ok, info, warn or fail with a one-line detail and a remedy when one is due, the doctor
changes nothing outside scratch files, never starts a daemon or builds an index, and gives up on a
silent socket within its deadline.
"""

from __future__ import annotations

import fcntl
import io
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
import pytest

import mesh.commands.doctor as doctor
from mesh import __version__
from mesh.commands.doctor import (
    SNIPPETS,
    Check,
    Status,
    check_cache_folder,
    check_daemon,
    check_index,
    check_parsers,
    check_services,
    check_socket_folder,
    check_sqlite,
    check_watcher,
    check_workspace,
    diagnose,
    read_lock,
    render_text,
    run_doctor,
)
from mesh.cli import main
from mesh.index import ConfigError, Index, load_config
from mesh.index.store._store import SCHEMA_VERSION
from mesh.index.parse import LANGUAGE_OF_SUFFIX, language_of
from mesh.index.parse._ts import GRAMMARS
from mesh.sockets import Hello, lock_path, socket_path
from mesh.workspace import cache_dir, find_workspace

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "workspace"
NAMES = ["workspace", "cache folder", "disk", "memory", "socket folder", "daemon", "index", "services", "watcher", "parsers", "sqlite"]
NOW = 1_790_000_000.0


# -- fixtures and helpers -------------------------------------------------------------------------


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A 0700 folder with a short path: a socket path may not exceed 107 bytes, pytest's tmp_path is long."""
    folder = Path(tempfile.mkdtemp(dir="/tmp", prefix="md-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "svc").mkdir(parents=True)
    (root / "mesh.toml").write_text('[[services]]\nname = "svc"\n')
    return root.resolve()


@pytest.fixture
def environ(tmp_path: Path, short_dir: Path) -> dict[str, str]:
    return {"MESH_CACHE_DIR": str(tmp_path / "cache"), "MESH_SOCKET_PATH": str(short_dir), "HOME": str(tmp_path)}


def daemon_status(**index: object) -> dict[str, object]:
    """A hello status as meshd writes it (``LiveIndex.status()`` under ``index``)."""
    base = {"state": "ready", "phase": "done", "done": 57, "total": 57, "failure": "", "generation": 4}
    return {"index": base | {"watcher": "running"} | index, "sessions": 2, "uptime_s": 185.0, "idle_exit_s": 900.0}


def hello_for(root: Path, *, version: str = __version__, **status: object) -> Hello:
    return Hello(
        version=version,
        pid=4242,
        workspace=str(root),
        log=f"/var/log/meshd-{root.name}.log",
        status=daemon_status(**status),
    )


@contextmanager
def fake_daemon(path: Path, reply: bytes | None, *, drip_s: float | None = None) -> Iterator[None]:
    """A listener at ``path`` greeting each connection with ``reply`` (None: accepts and says nothing;
    ``drip_s``: one byte at a time, this far apart)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(8)
    listener.settimeout(0.05)
    stop = threading.Event()
    accepted = []
    if reply is None:
        chunks: list[bytes] = []
    elif drip_s is None:
        chunks = [reply]
    else:
        chunks = [reply[at : at + 1] for at in range(len(reply))]

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            accepted.append(connection)  # kept open: a silent daemon does not hang up either
            for chunk in chunks:
                if stop.wait(drip_s or 0):
                    break
                try:
                    connection.sendall(chunk)
                except OSError:  # the doctor gave up and hung up
                    break

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(5)
        for connection in accepted:
            connection.close()
        listener.close()
        path.unlink(missing_ok=True)


@contextmanager
def held_lock(sock: Path, pid: int | None) -> Iterator[None]:
    """The daemon's lock file with ``pid`` written in it, held as a running daemon holds it."""
    lock = lock_path(sock)
    lock.write_text("" if pid is None else f"{pid}\n")
    with lock.open("rb") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    lock.unlink()


def stale_socket(path: Path) -> None:
    """A socket file whose listener is gone (as a daemon killed with -9 leaves it)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.close()


def by_name(checks: tuple[Check, ...]) -> dict[str, Check]:
    return {check.name: check for check in checks}


# -- the Check value and the rendering ------------------------------------------------------------


def test_a_check_keeps_its_detail_and_remedy_on_one_line() -> None:
    check = Check("sqlite", Status.FAIL, "first\nsecond\r\n  third", "do\nthis")
    assert (check.detail, check.remedy) == ("first second third", "do this")
    assert Check("sqlite", Status.OK, "fine").remedy is None


def test_text_report_aligns_details_indents_remedies_and_counts() -> None:
    checks = (
        Check("workspace", Status.OK, "/w (found by .git)"),
        Check("socket folder", Status.FAIL, "/s is writable by others", "run `chmod 700 /s`"),
        Check("index", Status.INFO, "not built yet", "mesh-mcp index /w"),
        Check("daemon", Status.WARN, "stale socket", "rm /s/x.sock"),
    )
    lines = render_text(checks).splitlines()
    assert lines == [
        "ok    workspace      /w (found by .git)",
        "fail  socket folder  /s is writable by others",
        "                     fix: run `chmod 700 /s`",
        "info  index          not built yet",
        "                     fix: mesh-mcp index /w",
        "warn  daemon         stale socket",
        "                     fix: rm /s/x.sock",
        f"1 ok, 1 info, 1 warning, 1 failure (mesh-mcp {__version__})",
    ]


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(-5, "0 s"), (42.4, "42 s"), (180, "3 min"), (3599, "59 min"), (7300, "2 h"), (86400, "1 day"), (3e5, "3 days")],
)
def test_durations_read_at_a_glance(seconds: float, text: str) -> None:
    assert doctor._duration(seconds) == text


# -- 1. workspace ---------------------------------------------------------------------------------


def test_workspace_found_by_mesh_toml_names_its_services(workspace: Path) -> None:
    check = check_workspace(workspace, given=False)
    assert check == Check("workspace", Status.OK, f"{workspace} (found by mesh.toml; mesh.toml: 1 service)")


def test_broken_mesh_toml_fails_with_the_loaders_message(workspace: Path) -> None:
    (workspace / "mesh.toml").write_text("[index]\ncolour = 'blue'\n")
    with pytest.raises(ConfigError) as raised:
        load_config(workspace)
    check = check_workspace(workspace, given=False)
    assert check.status is Status.FAIL
    assert check.detail == str(raised.value) and "colour" in check.detail
    assert check.remedy is not None and str(workspace / "mesh.toml") in check.remedy


def test_workspace_found_by_git(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    check = check_workspace((tmp_path / "repo").resolve(), given=False)
    assert check.status is Status.OK
    assert "found by .git; no mesh.toml: services discovered from the files" in check.detail


def test_no_marker_falls_back_to_the_current_folder_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lonely = (tmp_path / "lonely").resolve()
    lonely.mkdir()
    if find_workspace(lonely) != lonely:
        pytest.skip(f"{tmp_path} lies inside a workspace marker")
    monkeypatch.chdir(lonely)
    out = io.StringIO()
    run_doctor(None, as_json=True, stdout=out, stderr=io.StringIO(), environ={"MESH_CACHE_DIR": str(tmp_path / "c")})
    check = orjson.loads(out.getvalue())["checks"][0]
    assert check["status"] == "warn" and check["detail"].startswith(f"{lonely} (no mesh.toml or .git")
    assert f"touch {lonely / 'mesh.toml'}" in check["remedy"]


def test_a_given_folder_is_the_workspace_and_discovery_from_it_is_named() -> None:
    check = check_workspace(FIXTURE, given=True)
    assert check.status is Status.OK and check.detail.startswith(f"{FIXTURE} (as given; no mesh.toml")
    found = find_workspace(FIXTURE)
    if found != FIXTURE:  # the repository checkout around the fixture has .git
        assert f"discovery from inside it finds {found}" in check.detail


# -- 2. cache folder ------------------------------------------------------------------------------


def test_private_cache_folder_is_ok(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    assert check_cache_folder(folder) == Check("cache folder", Status.OK, f"{folder} (0700)")
    assert list(folder.iterdir()) == []  # the write probe is gone


def test_missing_cache_folder_is_ok_and_is_not_created(tmp_path: Path) -> None:
    folder = tmp_path / "cache" / "abc"
    check = check_cache_folder(folder)
    assert check.status is Status.OK and "not created yet" in check.detail
    assert not (tmp_path / "cache").exists()


def test_cache_folder_under_a_regular_file_fails(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    check = check_cache_folder(tmp_path / "file" / "cache" / "abc")
    assert check.status is Status.FAIL
    assert check.detail == f"cannot create {tmp_path / 'file' / 'cache' / 'abc'}: {tmp_path / 'file'} is not a folder"
    assert check.remedy is not None and "MESH_CACHE_DIR" in check.remedy


def test_unwritable_cache_folder_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(doctor.tempfile, "mkstemp", refuse)  # root writes anywhere: chmod cannot stop us
    check = check_cache_folder(tmp_path)
    assert check.status is Status.FAIL and check.detail == f"{tmp_path} is not writable (Permission denied)"
    assert check.remedy is not None and "MESH_CACHE_DIR" in check.remedy


def test_cache_folder_writable_by_others_is_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    folder.chmod(0o777)
    check = check_cache_folder(folder)
    assert check.status is Status.WARN and "mode 0777" in check.detail
    assert check.remedy == f"chmod 700 {folder}"


# -- 3. socket folder -----------------------------------------------------------------------------


def test_private_socket_folder_is_ok(workspace: Path, short_dir: Path) -> None:
    check = check_socket_folder(workspace, {"MESH_SOCKET_PATH": str(short_dir)})
    assert check == Check("socket folder", Status.OK, f"{short_dir} (0700)")


def test_missing_socket_folder_is_ok_and_is_not_created(workspace: Path, short_dir: Path) -> None:
    folder = short_dir / "later"
    check = check_socket_folder(workspace, {"MESH_SOCKET_PATH": str(folder)})
    assert check.status is Status.OK and "not created yet" in check.detail
    assert not folder.exists()


def test_socket_folder_writable_by_others_fails_with_a_chmod_remedy(workspace: Path, short_dir: Path) -> None:
    short_dir.chmod(0o777)
    check = check_socket_folder(workspace, {"MESH_SOCKET_PATH": str(short_dir)})
    assert check.status is Status.FAIL and check.detail == f"{short_dir} is writable by others (mode 0777)"
    assert check.remedy == f"run `chmod 700 {short_dir}`"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another uid needs root")
def test_socket_folder_of_another_user_fails(workspace: Path, short_dir: Path) -> None:
    os.chown(short_dir, 65534, 65534)
    check = check_socket_folder(workspace, {"MESH_SOCKET_PATH": str(short_dir)})
    assert check.status is Status.FAIL and "belongs to uid 65534" in check.detail
    assert check.remedy == "set MESH_SOCKET_PATH to a folder of yours"


def test_socket_path_too_long_fails(workspace: Path, short_dir: Path) -> None:
    deep = short_dir / ("d" * 90)
    deep.mkdir(mode=0o700)
    check = check_socket_folder(workspace, {"MESH_SOCKET_PATH": str(deep)})
    assert check.status is Status.FAIL and "longer than the 107 a Unix socket allows" in check.detail
    assert check.remedy == "set MESH_SOCKET_PATH to a shorter folder"
    daemon, _ = check_daemon(workspace, {"MESH_SOCKET_PATH": str(deep)})
    assert daemon.status is Status.INFO and "too long" in daemon.detail


def test_socket_folder_that_is_a_file_fails(workspace: Path, short_dir: Path) -> None:
    (short_dir / "file").write_text("")
    check = check_socket_folder(workspace, {"MESH_SOCKET_PATH": str(short_dir / "file")})
    assert check.status is Status.FAIL and str(short_dir / "file") in check.detail


# -- 4. daemon ------------------------------------------------------------------------------------


def test_no_daemon_is_information_not_failure(workspace: Path, environ: dict[str, str]) -> None:
    check, hello = check_daemon(workspace, environ)
    assert check == Check("daemon", Status.INFO, "not running; the first `mesh-mcp mcp` starts it")
    assert hello is None


def test_daemon_of_this_version_is_ok_and_its_status_is_used(workspace: Path, environ: dict[str, str]) -> None:
    sock = socket_path(workspace, environ)
    with fake_daemon(sock, hello_for(workspace).encode()):
        checks = by_name(diagnose(workspace, given=True, environ=environ, now=NOW))
    assert checks["daemon"] == Check(
        "daemon",
        Status.OK,
        f"meshd {__version__} (pid 4242) at {sock}: 2 sessions counting this check, up 3 min; exits after 15 min idle",
    )
    assert checks["index"] == Check("index", Status.OK, "ready (daemon): generation 4")
    assert checks["watcher"] == Check("watcher", Status.OK, "running (daemon)")


def test_daemon_that_never_exits_when_idle_says_so(workspace: Path, environ: dict[str, str]) -> None:
    hello = hello_for(workspace)
    hello.status = {**daemon_status(), "idle_exit_s": 0.0}
    with fake_daemon(socket_path(workspace, environ), hello.encode()):
        check, _ = check_daemon(workspace, environ)
    assert check.status is Status.OK and check.detail.endswith("up 3 min; never exits when idle")


def test_daemon_of_another_version_is_a_warning_naming_both(workspace: Path, environ: dict[str, str]) -> None:
    with fake_daemon(socket_path(workspace, environ), hello_for(workspace, version="0.0.9").encode()):
        check, hello = check_daemon(workspace, environ)
    assert check.status is Status.WARN and "meshd 0.0.9" in check.detail and f"mesh-mcp {__version__}" in check.detail
    assert check.remedy is not None and check.remedy.startswith("kill 4242")
    assert hello is None  # another version's status is not read as ours


def test_daemon_of_another_workspace_is_a_warning(workspace: Path, environ: dict[str, str]) -> None:
    with fake_daemon(socket_path(workspace, environ), hello_for(workspace.parent).encode()):
        check, hello = check_daemon(workspace, environ)
    assert check.status is Status.WARN and f"serves {workspace.parent}, not this workspace" in check.detail
    assert hello is None


def test_something_else_on_the_socket_fails(workspace: Path, environ: dict[str, str]) -> None:
    with fake_daemon(socket_path(workspace, environ), b"HTTP/1.1 400 Bad Request\r\n\r\n"):
        check, hello = check_daemon(workspace, environ)
    assert check.status is Status.FAIL and "not meshd: not a meshd hello" in check.detail
    assert check.remedy is not None and "MESH_SOCKET_PATH" in check.remedy
    assert hello is None


def test_stale_socket_is_a_warning(workspace: Path, environ: dict[str, str]) -> None:
    sock = socket_path(workspace, environ)
    stale_socket(sock)
    check, _ = check_daemon(workspace, environ)
    assert check == Check(
        "daemon",
        Status.WARN,
        f"stale socket {sock} (a daemon died); it is replaced at next start",
        f"nothing to do; or tidy up now: `rm {sock}`",
    )
    assert sock.exists()  # the doctor leaves it to the next daemon


def test_lock_held_but_socket_refusing_fails_naming_the_pid(workspace: Path, environ: dict[str, str]) -> None:
    sock = socket_path(workspace, environ)
    stale_socket(sock)
    with held_lock(sock, 4242):
        check, _ = check_daemon(workspace, environ)
    assert check.status is Status.FAIL
    assert check.detail == f"pid 4242 holds {lock_path(sock)}, but {sock} refuses connections: daemon hung?"
    assert check.remedy is not None and check.remedy.startswith("kill 4242 (its log: ")
    assert str(cache_dir(workspace, environ) / "meshd.log") in check.remedy


def test_lock_held_without_a_socket_fails(workspace: Path, environ: dict[str, str]) -> None:
    sock = socket_path(workspace, environ)
    with held_lock(sock, None):
        check, _ = check_daemon(workspace, environ)
    assert (
        check.status is Status.FAIL and f"a process holds {lock_path(sock)}, but {sock} has no socket" in check.detail
    )
    assert check.remedy == f"find the holder with `fuser {lock_path(sock)}` and kill it"


def test_silent_daemon_holding_the_lock_fails_within_the_deadline(workspace: Path, environ: dict[str, str]) -> None:
    sock = socket_path(workspace, environ)
    with fake_daemon(sock, None), held_lock(sock, 4242):
        started = time.monotonic()
        check, _ = check_daemon(workspace, environ, timeout_s=0.3)
        elapsed = time.monotonic() - started
    assert check.status is Status.FAIL and "sent no hello within 0.3 s: daemon hung?" in check.detail
    assert check.remedy is not None and check.remedy.startswith("kill 4242")
    assert elapsed < 2


def test_a_hello_trickling_in_is_cut_off_at_the_deadline(workspace: Path, environ: dict[str, str]) -> None:
    """A per-recv timeout would let a byte every 50 ms go on for minutes; the deadline holds for the whole line."""
    with fake_daemon(socket_path(workspace, environ), hello_for(workspace).encode(), drip_s=0.05):
        started = time.monotonic()
        check, _ = check_daemon(workspace, environ, timeout_s=0.3)
        elapsed = time.monotonic() - started
    assert check.status is Status.FAIL and "sent no hello within 0.3 s" in check.detail
    assert elapsed < 2


def test_read_lock_never_creates_the_file_and_reads_the_pid(short_dir: Path) -> None:
    sock = short_dir / "x.sock"
    assert read_lock(lock_path(sock)) == doctor.LockState(held=False, pid=None)
    assert not lock_path(sock).exists()
    with held_lock(sock, 777):
        assert read_lock(lock_path(sock)) == doctor.LockState(held=True, pid=777)
    lock_path(sock).write_text("778")
    assert read_lock(lock_path(sock)) == doctor.LockState(held=False, pid=778)


# -- 5. index -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fixture_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture workspace indexed once, into a cache folder of this module's own."""
    folder = cache_dir(FIXTURE, {"MESH_CACHE_DIR": str(tmp_path_factory.mktemp("doctor-cache"))})
    index = Index(FIXTURE, folder, workers=1)
    try:
        assert index.refresh().failures == ()
    finally:
        index.close()
    return folder


def copy_index(source: Path, folder: Path) -> Path:
    """A consistent copy of an index (the SQLite backup API: the WAL's pages included)."""
    folder.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(source / "index.db") as old, sqlite3.connect(folder / "index.db") as new:
        old.backup(new)
    return folder / "index.db"


def test_built_index_is_ok_with_generation_files_and_age(fixture_cache: Path) -> None:
    with sqlite3.connect(f"file:{fixture_cache / 'index.db'}?mode=ro", uri=True) as db:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        files = db.execute("SELECT count(*) FROM files").fetchone()[0]
    check = check_index(FIXTURE, fixture_cache, None, now=float(meta["updated_at"]) + 185)
    assert check == Check(
        "index",
        Status.OK,
        f"generation {meta['generation']}, {files} files, updated 3 min ago ({fixture_cache / 'index.db'})",
    )


def test_services_are_listed_with_their_evidence_areas_and_externals(tmp_path: Path) -> None:
    workspace = tmp_path / "shop"
    for path, text in {
        "compose.yaml": "services:\n  web:\n    build: ./web\n  cache:\n    image: redis:7\n",
        "web/go.mod": "module example.com/web\n",
        "web/main.go": "package main\n\nfunc main() {}\n",
        "docs/guide.md": "# Guide\n",
    }.items():
        (workspace / path).parent.mkdir(parents=True, exist_ok=True)
        (workspace / path).write_text(text)
    index = Index(workspace, tmp_path / "cache", workers=1)
    try:
        index.refresh()
    finally:
        index.close()
    check = check_services(workspace, tmp_path / "cache")
    assert check == Check(
        "services",
        Status.OK,
        "1 service: web (web, deployed: compose.yaml:2: Compose service web builds web); external: cache;"
        " areas: docs",
    )


def test_a_manifest_that_does_not_parse_is_a_warning_naming_its_file_and_line(tmp_path: Path) -> None:
    workspace = tmp_path / "shop"
    for path, text in {
        "docker-compose.yml": "services:\n  web:\n    build: ./web\n  bad: [unclosed\n",
        "web/package.json": "{}",
        "web/index.js": "module.exports = {}\n",
    }.items():
        (workspace / path).parent.mkdir(parents=True, exist_ok=True)
        (workspace / path).write_text(text)
    index = Index(workspace, tmp_path / "cache", workers=1)
    try:
        assert index.refresh().services == 1  # the index is built all the same
    finally:
        index.close()
    check = check_services(workspace, tmp_path / "cache")
    assert check.status == Status.WARN
    assert "docker-compose.yml:5: cannot be read as YAML" in check.detail and "mesh.toml" in (check.remedy or "")


def test_missing_index_says_how_to_build_it(tmp_path: Path) -> None:
    check = check_index(FIXTURE, tmp_path, None, now=NOW)
    assert check == Check("index", Status.INFO, f"not built yet ({tmp_path / 'index.db'})", f"mesh-mcp index {FIXTURE}")


def test_index_of_another_schema_is_a_warning(fixture_cache: Path, tmp_path: Path) -> None:
    path = copy_index(fixture_cache, tmp_path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    check = check_index(FIXTURE, tmp_path, None, now=NOW)
    assert check.status is Status.WARN
    assert check.detail.startswith(f"schema 0, this mesh-mcp uses {SCHEMA_VERSION}: rebuilt at next start")
    assert check.remedy == f"mesh-mcp index {FIXTURE} (rebuilds it now)"


def test_damaged_index_fails_with_a_rebuild_remedy(tmp_path: Path) -> None:
    (tmp_path / "index.db").write_bytes(b"\x00garbage, not SQLite\xff" * 300)
    check = check_index(FIXTURE, tmp_path, None, now=NOW)
    assert check.status is Status.FAIL and "file is not a database" in check.detail
    assert check.remedy == f"mesh-mcp index {FIXTURE} (sets the damaged file aside as index.db.damaged and rebuilds it)"
    assert (tmp_path / "index.db").read_bytes().startswith(b"\x00garbage")  # looked at, not repaired


def test_index_state_comes_from_the_daemon_when_one_answers(fixture_cache: Path, tmp_path: Path) -> None:
    indexing = check_index(FIXTURE, tmp_path, hello_for(FIXTURE, state="indexing", phase="parsing", done=9), now=NOW)
    assert indexing == Check("index", Status.INFO, "indexing (daemon): parsing, 9 of 57 files")
    failed = check_index(FIXTURE, tmp_path, hello_for(FIXTURE, state="failed", failure="disk full"), now=NOW)
    assert failed.status is Status.FAIL and failed.detail == "failed (daemon): disk full"
    assert failed.remedy == f"see /var/log/meshd-workspace.log; `mesh-mcp index {FIXTURE}` shows the error"
    with sqlite3.connect(f"file:{fixture_cache / 'index.db'}?mode=ro", uri=True) as db:
        updated = float(db.execute("SELECT value FROM meta WHERE key = 'updated_at'").fetchone()[0])
    ready = check_index(FIXTURE, fixture_cache, hello_for(FIXTURE), now=updated + 30)
    assert ready == Check("index", Status.OK, "ready (daemon): generation 4, updated 30 s ago")


# -- 6. watcher -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "status", "words"),
    [
        ("running", Status.OK, "running (daemon)"),
        ("off", Status.INFO, "off: the daemon was started without watching"),
        ("not started", Status.INFO, "not started yet"),
        ("stopped", Status.FAIL, "stopped: file changes are no longer picked up"),
        ("sleeping", Status.WARN, "unknown watcher state 'sleeping'"),
    ],
)
def test_watcher_state_comes_from_the_daemon(tmp_path: Path, state: str, status: Status, words: str) -> None:
    daemon = Check("daemon", Status.OK, "meshd")
    check = check_watcher(daemon, hello_for(FIXTURE, watcher=state), tmp_path)
    assert check.status is status and words in check.detail
    if state == "stopped":
        assert check.remedy == (
            "see /var/log/meshd-workspace.log; then `kill 4242` (the next `mesh-mcp mcp` starts a fresh daemon)"
        )


def test_watcher_without_a_daemon_is_information(tmp_path: Path) -> None:
    absent = check_watcher(Check("daemon", Status.INFO, "not running"), None, tmp_path)
    stale = check_watcher(Check("daemon", Status.WARN, "stale socket"), None, tmp_path)
    unreachable = check_watcher(Check("daemon", Status.FAIL, "hung"), None, tmp_path)
    assert (absent.status, stale.status, unreachable.status) == (Status.INFO, Status.INFO, Status.INFO)
    assert "no daemon serves this workspace" in absent.detail and absent.detail == stale.detail
    assert "no answer" in unreachable.detail


# -- 7. parsers -----------------------------------------------------------------------------------


def test_every_language_of_the_index_has_a_snippet() -> None:
    assert set(SNIPPETS) == set(LANGUAGE_OF_SUFFIX.values())
    assert set(GRAMMARS) <= set(SNIPPETS)
    for language, (path, _) in SNIPPETS.items():
        assert language_of(path) == language


def test_parsers_load_here() -> None:
    assert check_parsers() == Check("parsers", Status.OK, f"{len(SNIPPETS)} languages parse a snippet; re2 compiles")


def test_a_grammar_that_does_not_import_fails_naming_the_language(monkeypatch: pytest.MonkeyPatch) -> None:
    from mesh.index.parse import _ts

    monkeypatch.setitem(_ts.GRAMMARS, "go", ("no_such_grammar_module", "language"))
    monkeypatch.setattr(_ts, "_parsers", {})
    check = check_parsers()
    assert check.status is Status.FAIL
    assert check.detail.startswith("go: ") and "No module named 'no_such_grammar_module'" in check.detail
    assert check.remedy is not None and "pip install" in check.remedy


def test_missing_re2_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "re2", None)  # import re2 now raises ImportError
    check = check_parsers()
    assert check.status is Status.FAIL and check.detail.startswith("re2: ModuleNotFoundError: import of re2 halted")


# -- 8. sqlite ------------------------------------------------------------------------------------


def test_sqlite_has_trigram_fts5_and_wal_and_leaves_no_scratch_file(tmp_path: Path) -> None:
    check = check_sqlite(tmp_path)
    assert check == Check("sqlite", Status.OK, f"SQLite {sqlite3.sqlite_version}: FTS5 trigram, WAL")
    assert list(tmp_path.iterdir()) == []


def test_sqlite_without_trigram_fails_with_a_remedy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_trigram() -> None:
        raise sqlite3.OperationalError("no such tokenizer: trigram")

    monkeypatch.setattr(doctor, "_try_trigram", no_trigram)
    check = check_sqlite(tmp_path)
    assert check.status is Status.FAIL and "no FTS5 trigram tokenizer (no such tokenizer: trigram)" in check.detail
    assert check.remedy is not None and "SQLite 3.34" in check.remedy


# -- the command ----------------------------------------------------------------------------------


def test_json_report_shape(workspace: Path, environ: dict[str, str]) -> None:
    out = io.StringIO()
    code = run_doctor(workspace, as_json=True, stdout=out, stderr=io.StringIO(), environ=environ)
    document = orjson.loads(out.getvalue())
    assert list(document) == ["checks", "ok", "version", "workspace"]  # sorted keys
    assert (document["workspace"], document["version"], document["ok"], code) == (str(workspace), __version__, True, 0)
    assert [check["name"] for check in document["checks"]] == NAMES
    for check in document["checks"]:
        assert list(check) == ["detail", "name", "remedy", "status"]
        assert check["status"] in ("ok", "info", "warn", "fail") and check["detail"]
    statuses = {check["name"]: check["status"] for check in document["checks"]}
    assert statuses == {
        "workspace": "ok", "cache folder": "ok", "disk": "ok", "memory": "ok", "socket folder": "ok", "daemon": "info", "index": "info", "services": "info",
        "watcher": "info", "parsers": "ok", "sqlite": "ok",
    }  # fmt: skip


def test_a_failing_check_makes_the_exit_code_1(workspace: Path, environ: dict[str, str]) -> None:
    (workspace / "mesh.toml").write_text("[index\n")
    out = io.StringIO()
    assert run_doctor(workspace, as_json=False, stdout=out, stderr=io.StringIO(), environ=environ) == 1
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("fail  workspace      ") and "mesh.toml" in lines[0]
    assert lines[1].lstrip().startswith(f"fix: fix {workspace / 'mesh.toml'}")
    assert lines[-1].endswith(f"1 failure (mesh-mcp {__version__})")


def test_a_crashing_check_becomes_a_failing_line(
    workspace: Path, environ: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> Check:
        raise RuntimeError("boom")

    monkeypatch.setattr(doctor, "check_parsers", broken)
    checks = by_name(diagnose(workspace, given=True, environ=environ, now=NOW))
    assert list(checks) == NAMES
    assert checks["parsers"].status is Status.FAIL
    assert checks["parsers"].detail == "the check itself failed: RuntimeError: boom"


def test_dir_that_is_not_a_folder_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    out, err = io.StringIO(), io.StringIO()
    assert run_doctor(tmp_path / "file", as_json=True, stdout=out, stderr=err) == 2
    assert out.getvalue() == "" and err.getvalue() == f"mesh-mcp doctor: {tmp_path / 'file'}: not a folder\n"


def test_cli_doctor_json(
    workspace: Path, environ: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    assert main(["doctor", str(workspace), "--json"]) == 0
    document = orjson.loads(capsys.readouterr().out)
    assert document["workspace"] == str(workspace) and document["ok"] is True


def test_cli_doctor_only_looks(tmp_path: Path, short_dir: Path) -> None:
    """In a fresh process: no daemon started, no index built or builder loaded, no folder created."""
    env = {
        **os.environ,
        "MESH_CACHE_DIR": str(tmp_path / "cache"),
        "MESH_SOCKET_PATH": str(short_dir / "sockets"),
    }
    probe = (
        "import sys; from mesh.cli import main; code = main(['doctor', sys.argv[1]]);"
        " print('loaded:', sorted(m for m in ('mesh.index.build._build', 'mesh.index.build._watch', 'watchfiles') if m in sys.modules));"
        " sys.exit(code)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, str(FIXTURE)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line[6:19].rstrip() for line in lines if not line.startswith(" ")][: len(NAMES)] == NAMES
    assert "info  daemon         not running" in result.stdout
    assert lines[-1] == "loaded: []"
    assert not (tmp_path / "cache").exists() and list(short_dir.iterdir()) == []


def test_the_disk_check_counts_the_workspace_and_fails_without_room(
    workspace: Path, environ: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A workspace too large for the cache folder's disk says so in doctor, with the number it
    would need (INV-INDEX-9's "before it starts"): counted by a walk before any index exists."""
    from mesh.commands.doctor import check_disk
    from mesh.index.store import _store

    folder = cache_dir(workspace, environ)
    roomy = check_disk(workspace, folder)
    assert roomy.status is Status.OK and "listed by a walk" in roomy.detail and "needs about" in roomy.detail
    monkeypatch.setattr(_store, "_free_bytes", lambda _folder: 10)
    tight = check_disk(workspace, folder)
    assert tight.status is Status.FAIL and tight.detail.startswith("too little room: 10 bytes free for ")
    assert "MESH_CACHE_DIR" in (tight.remedy or "")


def fake_machine(available_mib: int | None, daemon: tuple[int, int] | None = None):
    """A reader of /proc for mesh.index.build._memory: MemAvailable in MiB (None: no /proc/meminfo),
    and a daemon's (pid, VmRSS in MiB)."""
    files = {}
    if available_mib is not None:
        files["/proc/meminfo"] = f"MemTotal: {1 << 24} kB\nMemAvailable: {available_mib << 10} kB\n"
    if daemon is not None:
        files[f"/proc/{daemon[0]}/status"] = f"Name:\tmeshd\nVmRSS:\t{daemon[1] << 10} kB\n"
    return files.get


def test_the_memory_check_says_need_and_available_INV_INDEX_9(
    workspace: Path, environ: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-INDEX-9: doctor's "memory" says what the machine has left against about what a server of
    this workspace needs (counted as for "disk"), fails when it is short with the remedy (and the
    override), warns when the override is set, credits a running daemon's memory, and does not
    check a machine that does not say."""
    from mesh.commands.doctor import check_memory
    from mesh.index.build import _memory

    monkeypatch.delenv("MESH_MEMORY_CHECK", raising=False)
    counted = (100_000, 890_000_000, "listed by a walk", 300 << 10)
    need = _memory.serve_need(100_000, workers=os.cpu_count() or 1, largest=300 << 10)
    need_said = f"needs about {need / (1 << 20):.1f} MB while it builds and serves"
    monkeypatch.setattr(_memory, "read_text", fake_machine(8192))
    roomy = check_memory(counted, None, {})
    assert roomy.status is Status.OK, roomy
    assert roomy.detail == (
        f"8.0 GB available (MemAvailable); a server of this workspace (100,000 files, the largest 300.0 KB, listed"
        f" by a walk) {need_said}"
    )
    monkeypatch.setattr(_memory, "read_text", fake_machine(256))
    tight = check_memory(counted, None, {})
    assert tight.status is Status.FAIL
    assert tight.detail.startswith("too little memory: 256.0 MB available (MemAvailable)"), tight.detail
    assert need_said in tight.detail and "a build would stop before parsing" in tight.detail
    assert "MESH_MEMORY_CHECK=off" in (tight.remedy or "") and "[index] ignore" in (tight.remedy or "")
    anyway = check_memory(counted, None, {"MESH_MEMORY_CHECK": "off"})
    assert anyway.status is Status.WARN and "a build would try anyway" in anyway.detail
    # a daemon serving it already holds most of the need: what it holds is counted as room
    serving = Hello(__version__, 4242, str(workspace), "meshd.log")
    monkeypatch.setattr(_memory, "read_text", fake_machine(256, daemon=(4242, need // (1 << 20) - 200)))
    held = check_memory(counted, serving, {})
    assert held.status is Status.OK and "held by the running daemon" in held.detail, held
    monkeypatch.setattr(_memory, "read_text", fake_machine(None))
    unknown = check_memory(counted, None, {})
    assert unknown.status is Status.INFO and "not checked" in unknown.detail


def test_the_memory_check_counts_the_workspace_in_the_report(
    workspace: Path, environ: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-INDEX-9: in the report, after "disk": the workspace's files as the walk lists them."""
    from mesh.index.build import _memory

    monkeypatch.setattr(_memory, "read_text", fake_machine(16))
    checks = by_name(diagnose(workspace, given=True, environ=environ, now=NOW))
    assert list(checks) == NAMES
    memory = checks["memory"]
    files = checks["disk"].detail.split("an index of this workspace (", 1)[1].split(" files", 1)[0]
    assert memory.status is Status.FAIL, memory
    assert f"a server of this workspace ({files} files, the largest " in memory.detail
    assert "listed by a walk) needs about" in memory.detail
