"""``mesh-mcp doctor [DIR]``: is everything mesh-mcp needs in place for this workspace?

Theory of operation
-------------------
Eleven checks run in a fixed order, each a small function returning a :class:`Check` (name,
status, one-line detail and, when something is to be done, a remedy): the workspace and its
``mesh.toml``, the cache folder, the room on its disk, the room in memory, the socket folder, the
daemon, the index, the services, the watcher, the parsers and SQLite. The daemon is asked once
(its hello line carries the index and watcher state); the index and watcher checks read that
answer, or the index file when no daemon runs. The disk and memory checks share one count of the
workspace's files (the index's, else a walk's).

The doctor only looks. It never starts a daemon or builds the index; it writes only scratch files
in the cache folder or the temp folder (and removes them); every socket operation has a deadline,
so a hung daemon costs a second, not the command. What it needs of the index is imported when the
check runs: the parsers check is the only one that loads the extractors.

Exit codes: 0 when no check fails (warnings and notes included), 1 when one does, 2 for bad input.
"""

from __future__ import annotations

import contextlib
import enum
import fcntl
import logging
import os
import shlex
import socket
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, TextIO
from urllib.parse import quote

import attrs
import orjson

from .. import __version__
from ._common import workspace_of
from ..sockets import Hello, SocketDirError, check_length, lock_path, private_dir, read_hello, socket_dir, socket_path
from ..workspace import cache_dir, find_workspace

__all__ = ["Check", "Status", "diagnose", "render_json", "render_text", "run_doctor"]

log = logging.getLogger("mesh.doctor")

#: How long the daemon has to accept a connection, then (again) to say its hello.
DAEMON_TIMEOUT_S: Final = 1.0
#: Lets a daemon's hand on the index file time out instead of stalling the doctor.
SQLITE_TIMEOUT_S: Final = 1.0
DAEMON_LOG: Final = "meshd.log"
INDEX_DB: Final = "index.db"

#: A one-line file per language the index parses: the extractor must find a definition (or a
#: section) in it without an error. ``tests/test_doctor.py`` checks that every language has one.
SNIPPETS: Final = {
    "python": ("doctor.py", b"def f(): pass\n"),
    "go": ("doctor.go", b"package p; func F() {}\n"),
    "java": ("Doctor.java", b"class A { void f() {} }\n"),
    "kotlin": ("doctor.kt", b"fun f() {}\n"),
    "javascript": ("doctor.js", b"function f() {}\n"),
    "typescript": ("doctor.ts", b"function f(): void {}\n"),
    "tsx": ("doctor.tsx", b"function F() { return <a/>; }\n"),
    "csharp": ("Doctor.cs", b"class A { void F() {} }\n"),
    "cpp": ("doctor.cpp", b"int f() { return 0; }\n"),
    "rust": ("doctor.rs", b"fn f() {}\n"),
    "ruby": ("doctor.rb", b"def f; end\n"),
    "php": ("doctor.php", b"<?php function f() {}\n"),
    "proto": ("doctor.proto", b'syntax = "proto3"; message M {}\n'),
    "markdown": ("doctor.md", b"# Title\n"),
}


class Status(enum.StrEnum):
    """How a check came out; only ``FAIL`` changes the exit code."""

    #: Works as it should.
    OK = "ok"
    #: Worth knowing, nothing is wrong (no daemon running yet, no index built yet).
    INFO = "info"
    #: Works, but something is off: it repairs itself at the next start, or a setting should change.
    WARN = "warn"
    #: Does not work: mesh-mcp cannot serve this workspace until the remedy is applied.
    FAIL = "fail"


def _one_line(text: str) -> str:
    """Details quote messages from elsewhere (TOML, SQLite, the OS); the report keeps one line each."""
    return " ".join(text.split())


def _optional_line(text: str | None) -> str | None:
    return None if text is None else _one_line(text)


@attrs.frozen
class Check:
    """One line of the report."""

    name: str
    status: Status
    detail: str = attrs.field(converter=_one_line)
    #: What to do (a command or a setting); None when there is nothing to do.
    remedy: str | None = attrs.field(default=None, converter=_optional_line)


# -- the command ----------------------------------------------------------------------------------


def run_doctor(
    directory: Path | None,
    *,
    as_json: bool,
    stdout: TextIO,
    stderr: TextIO,
    environ: Mapping[str, str] | None = None,
) -> int:
    """The ``doctor`` command; returns the exit code (0 nothing fails, 1 a check fails, 2 bad input)."""
    environ = os.environ if environ is None else environ
    root = workspace_of(directory, "doctor", stderr)
    if root is None:
        return 2
    checks = diagnose(root, given=directory is not None, environ=environ, now=time.time())
    stdout.write(render_json(root, checks) if as_json else render_text(checks))
    return 1 if any(check.status is Status.FAIL for check in checks) else 0


def diagnose(root: Path, *, given: bool, environ: Mapping[str, str], now: float) -> tuple[Check, ...]:
    """Every check, in the report's order. ``given``: the workspace was named on the command line."""
    folder = cache_dir(root, environ)
    hello: Hello | None = None

    def ask_daemon() -> Check:
        nonlocal hello
        check, hello = check_daemon(root, environ)
        return check

    workspace = _guarded("workspace", lambda: check_workspace(root, given=given))
    cache = _guarded("cache folder", lambda: check_cache_folder(folder))
    size: list[tuple[int, int, str, int]] = []

    def counted() -> tuple[int, int, str, int]:
        if not size:  # one walk (or count of the index) for the disk and the memory
            size.append(_workspace_size(root, folder))
        return size[0]

    disk = _guarded("disk", lambda: check_disk(root, folder, counted()))
    sockets = _guarded("socket folder", lambda: check_socket_folder(root, environ))
    daemon = _guarded("daemon", ask_daemon)
    memory = _guarded("memory", lambda: check_memory(counted(), hello, environ))
    index = _guarded("index", lambda: check_index(root, folder, hello, now=now))
    services = _guarded("services", lambda: check_services(root, folder))
    watcher = _guarded("watcher", lambda: check_watcher(daemon, hello, folder))
    parsers = _guarded("parsers", check_parsers)
    sqlite = _guarded("sqlite", lambda: check_sqlite(folder))
    return (workspace, cache, disk, memory, sockets, daemon, index, services, watcher, parsers, sqlite)


def _guarded(name: str, plan: Callable[[], Check]) -> Check:
    """Run one check; a bug in it becomes its failing line instead of a traceback over the report."""
    started = time.monotonic()
    try:
        return plan()
    except Exception as exc:  # the other checks still deserve to be shown
        log.exception("check %s crashed", name)
        return Check(
            name,
            Status.FAIL,
            f"the check itself failed: {type(exc).__name__}: {exc}",
            "unless the error explains itself, report it as a mesh-mcp bug",
        )
    finally:
        log.debug("check %s took %.1f ms", name, (time.monotonic() - started) * 1000)


# -- rendering ------------------------------------------------------------------------------------


def render_text(checks: tuple[Check, ...]) -> str:
    """One line per check (status, name, detail), each remedy under its line, then the counts."""
    width = max(len(check.name) for check in checks)
    indent = " " * (4 + 2 + width + 2)
    lines = []
    for check in checks:
        lines.append(f"{check.status.value:<4}  {check.name:<{width}}  {check.detail}")
        if check.remedy:
            lines.append(f"{indent}fix: {check.remedy}")
    lines.append(_summary(checks))
    return "\n".join(lines) + "\n"


def _summary(checks: tuple[Check, ...]) -> str:
    def count(status: Status, word: str) -> str:
        number = sum(check.status is status for check in checks)
        return f"{number} {word}" if status in (Status.OK, Status.INFO) else _counted(number, word)

    counts = ", ".join(
        count(status, word)
        for status, word in (
            (Status.OK, "ok"),
            (Status.INFO, "info"),
            (Status.WARN, "warning"),
            (Status.FAIL, "failure"),
        )
    )
    return f"{counts} (mesh-mcp {__version__})"


def render_json(root: Path, checks: tuple[Check, ...]) -> str:
    """The report as one JSON document (sorted keys; the checks in the report's order)."""
    document = {
        "workspace": str(root),
        "version": __version__,
        "checks": [
            {"name": check.name, "status": check.status.value, "detail": check.detail, "remedy": check.remedy}
            for check in checks
        ],
        "ok": not any(check.status is Status.FAIL for check in checks),
    }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n"


# -- 1. workspace ---------------------------------------------------------------------------------


def check_workspace(root: Path, *, given: bool) -> Check:
    """Which folder is the workspace and why; ``mesh.toml`` must load as the index will load it."""
    marker = _marker(root)
    if marker == "mesh.toml":
        from ..index.build._workspace import ConfigError, load_config

        try:
            config = load_config(root)
        except ConfigError as exc:
            return Check(
                "workspace", Status.FAIL, str(exc), f"fix {root / 'mesh.toml'} (README.md: The workspace index)"
            )
        named = config.services
        count = "services discovered from the files" if named is None else _counted(len(named), "service")
        services = f"mesh.toml: {count}"
    else:
        services = "no mesh.toml: services discovered from the files"
    if given:
        found = find_workspace(root)
        elsewhere = "" if found == root else f"; without DIR, discovery from inside it finds {found} ({_marker(found)})"
        return Check("workspace", Status.OK, f"{root} (as given; {services}{elsewhere})")
    if marker is None:
        return Check(
            "workspace",
            Status.WARN,
            f"{root} (no mesh.toml or .git here or above: the current folder is taken as the workspace)",
            f"pass the workspace as DIR (--workspace for mcp), or mark this folder: `touch {_quoted(root / 'mesh.toml')}`",
        )
    return Check("workspace", Status.OK, f"{root} (found by {marker}; {services})")


def _marker(folder: Path) -> str | None:
    """The marker that makes ``folder`` a workspace, in :func:`mesh.workspace.find_workspace`'s order."""
    return next((name for name in ("mesh.toml", ".git") if (folder / name).exists()), None)


# -- 2. cache folder ------------------------------------------------------------------------------


def check_cache_folder(folder: Path) -> Check:
    """The index, audit log and daemon log live here: it must exist (or be creatable) and be writable."""
    remedy = "set MESH_CACHE_DIR to a folder of yours on a local disk"
    if not folder.exists():
        problem = _not_creatable(folder)
        if problem:
            return Check("cache folder", Status.FAIL, f"cannot create {folder}: {problem}", remedy)
        return Check("cache folder", Status.OK, f"{folder} (not created yet: made at the first index)")
    if not folder.is_dir():
        return Check("cache folder", Status.FAIL, f"{folder} is not a folder", f"remove it, or {remedy}")
    try:
        handle, probe = tempfile.mkstemp(prefix=".doctor-", dir=folder)
    except OSError as exc:
        return Check("cache folder", Status.FAIL, f"{folder} is not writable ({exc.strerror})", remedy)
    os.close(handle)
    os.unlink(probe)
    mode = folder.stat().st_mode & 0o777
    if mode & 0o022:
        return Check(
            "cache folder",
            Status.WARN,
            f"{folder} is writable by others (mode {mode:04o}): they could change the index and audit log",
            f"chmod 700 {_quoted(folder)}",
        )
    return Check("cache folder", Status.OK, f"{folder} ({mode:04o})")


def _workspace_size(root: Path, folder: Path) -> tuple[int, int, str, int]:
    """(files, bytes of text, how counted, bytes of the largest file) of the workspace: counted by
    the index when there is one, else by a walk with the index's rules."""
    counted = _indexed_text(folder / INDEX_DB)
    if counted is None:
        from ..index.build._enumerate import walk
        from ..index.build._workspace import Config, ConfigError, ignore_patterns, load_config

        try:
            config = load_config(root)
        except ConfigError:
            config = Config()  # the workspace check says what is wrong with it
        walked = walk(root, max_file_bytes=config.max_file_bytes, include_vendored=config.include_vendored,
                      include_secrets=config.include_secrets,
                      extra_ignores=ignore_patterns(config.ignore, config.services or ()))  # fmt: skip
        sizes = [entry.size for entry in walked.files]
        counted = (len(sizes), sum(sizes), "listed by a walk", max(sizes, default=0))
    return counted


def check_disk(root: Path, folder: Path, counted: tuple[int, int, str, int] | None = None) -> Check:
    """Room for the index: the free space of the cache folder's disk against about what building
    this workspace's index takes (``space_needed`` of its text: counted by the index when there is
    one, else by a walk), the index already there counted as room (a rebuild replaces it)."""
    from ..index.store._store import _free_bytes, _human, space_needed

    files, text, how, _largest = _workspace_size(root, folder) if counted is None else counted
    need = space_needed(text)
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = _free_bytes(probe)
    held = sum(_size(folder / f"{INDEX_DB}{suffix}") for suffix in ("", "-wal"))
    said = (
        f"{_human(free)} free for {folder}; an index of this workspace ({files:,} files, {_human(text)} of text,"
        f" {how}) needs about {_human(need)} while it is built"
    )
    if free + held >= need:
        return Check("disk", Status.OK, said)
    return Check(
        "disk",
        Status.FAIL,
        f"too little room: {said}; a build would stop before writing, saying so",
        "free space on that disk, or set MESH_CACHE_DIR to a folder on a disk with room",
    )


def check_memory(
    counted: tuple[int, int, str, int],
    hello: Hello | None,
    environ: Mapping[str, str],
    read: Callable[[str], str | None] | None = None,
) -> Check:
    """Room in memory: what the machine has left (``MemAvailable``, or a memory cgroup's room when
    smaller) against about what a server of this workspace takes while it builds and serves
    (``serve_need`` of its files, mesh/index/build/_memory.py); a daemon already serving it holds
    part of that already (its ``VmRSS``, counted as room). A machine that does not say is not checked."""
    from ..index.build._memory import CHECK_VARIABLE, available, held, read_text, serve_need, switched_off
    from ..index.store._store import _human

    read = read or read_text
    files, _text, how, largest = counted
    room = available(read)
    if room is None:
        said = "the machine does not say how much memory it has left (no /proc/meminfo): not checked"
        return Check("memory", Status.INFO, said)
    need = serve_need(files, workers=os.cpu_count() or 1, largest=largest)
    daemon = held(read, hello.pid) if hello is not None and hello.pid > 0 else 0
    holding = f", {_human(daemon)} of it held by the running daemon" if daemon else ""
    said = (
        f"{_human(room.bytes)} available ({room.source}); a server of this workspace ({files:,} files, the largest"
        f" {_human(largest)}, {how}) needs"
        f" about {_human(need)} while it builds and serves{holding}"
    )
    if need - daemon <= room.bytes:
        return Check("memory", Status.OK, said)
    if switched_off(environ):
        return Check(
            "memory", Status.WARN, f"too little memory: {said}; {CHECK_VARIABLE}=off, so a build would try anyway",
            "free memory or leave folders out ([index] ignore in mesh.toml), or the machine may swap",
        )  # fmt: skip
    return Check(
        "memory",
        Status.FAIL,
        f"too little memory: {said}; a build would stop before parsing, saying so",
        f"free memory, leave folders out ([index] ignore in mesh.toml), or set {CHECK_VARIABLE}=off to try anyway",
    )


def _indexed_text(path: Path) -> tuple[int, int, str, int] | None:
    """(files, bytes of text, how counted, bytes of the largest file) of the index at ``path``;
    None without a readable one."""
    if not path.exists():
        return None
    try:
        connection = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, timeout=SQLITE_TIMEOUT_S)
        try:
            files, text, largest = connection.execute(
                "SELECT count(*), coalesce(sum(size), 0), coalesce(max(size), 0) FROM files"
            ).fetchone()
        finally:
            connection.close()
    except sqlite3.Error:
        return None  # the index check says why
    return (files, text, "as indexed", largest) if files else None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _not_creatable(folder: Path) -> str | None:
    """Why ``mkdir -p folder`` would fail, judged from its nearest existing ancestor (nothing is created)."""
    ancestor = folder
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"{ancestor} is not a folder"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"{ancestor} is not writable"
    return None


# -- 3. socket folder -----------------------------------------------------------------------------


def check_socket_folder(root: Path, environ: Mapping[str, str]) -> Check:
    """The daemon's folder must be private (see :func:`mesh.sockets.private_dir`) and its socket path short."""
    folder = socket_dir(environ)
    try:
        if os.path.lexists(folder):
            private_dir(folder)  # it exists: only looked at, never changed
            state = f"{folder.stat().st_mode & 0o777:04o}"
        else:
            problem = _not_creatable(folder)
            if problem:
                raise SocketDirError(f"cannot create {folder} ({problem}); set MESH_SOCKET_PATH to a folder of yours")
            state = "not created yet: made 0700 at the daemon's start"
        check_length(socket_path(root, environ))
    except SocketDirError as exc:
        detail, _, remedy = str(exc).rpartition("; ")  # its messages end in "; <what to do>"
        return Check("socket folder", Status.FAIL, detail or remedy, remedy if detail else None)
    return Check("socket folder", Status.OK, f"{folder} ({state})")


# -- 4. daemon ------------------------------------------------------------------------------------


@attrs.frozen
class LockState:
    """The daemon's lock file: held means a daemon process is alive (the kernel drops a dead one's lock)."""

    held: bool
    pid: int | None


def read_lock(lock: Path) -> LockState:
    """Whether the daemon's lock is held, and the pid written in it.

    Asks for a shared lock without waiting and gives it back at once: a daemon starting in that
    instant waits for it as it waits for its predecessor's. The file is never created.
    """
    try:
        handle = os.open(lock, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return LockState(held=False, pid=None)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            held = True
        else:
            fcntl.flock(handle, fcntl.LOCK_UN)
            held = False
        text = os.read(handle, 64).decode("ascii", "replace").strip()
    finally:
        os.close(handle)
    return LockState(held=held, pid=int(text) if text.isdigit() else None)


def check_daemon(
    root: Path, environ: Mapping[str, str], *, timeout_s: float = DAEMON_TIMEOUT_S
) -> tuple[Check, Hello | None]:
    """Ask the workspace's daemon for its hello. Also returns the hello when the daemon serves this
    workspace, for the index and watcher checks."""
    sock = socket_path(root, environ)
    log_file = cache_dir(root, environ) / DAEMON_LOG
    try:
        check_length(sock)
    except SocketDirError:
        return Check("daemon", Status.INFO, "not checked: the socket path is too long (see socket folder)"), None
    if not os.path.lexists(sock):
        lock = read_lock(lock_path(sock))
        if lock.held:
            return _hung(sock, lock, "has no socket", log_file), None
        return Check("daemon", Status.INFO, "not running; the first `mesh-mcp mcp` starts it"), None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(timeout_s)
        try:
            connection.connect(os.fspath(sock))
        except (ConnectionRefusedError, FileNotFoundError):
            lock = read_lock(lock_path(sock))
            if lock.held:
                return _hung(sock, lock, "refuses connections", log_file), None
            return Check(
                "daemon",
                Status.WARN,
                f"stale socket {sock} (a daemon died); it is replaced at next start",
                f"nothing to do; or tidy up now: `rm {_quoted(sock)}`",
            ), None
        except TimeoutError:
            return _unresponsive(sock, "accepts no connection", log_file), None
        except OSError as exc:
            return Check(
                "daemon",
                Status.FAIL,
                f"cannot connect to {sock}: {exc.strerror or exc}",
                "see the socket folder check; or set MESH_SOCKET_PATH to a folder of yours",
            ), None
        try:
            hello, _ = read_hello(connection, timeout_s)
        except TimeoutError:
            return _unresponsive(sock, f"sent no hello within {timeout_s:g} s", log_file), None
        except OSError as exc:  # ConnectionError: closed or reset first
            return _unresponsive(sock, f"hung up before its hello ({exc})", log_file), None
        except ValueError as exc:
            return Check(
                "daemon",
                Status.FAIL,
                f"something listens on {sock}, but it is not meshd: {exc}",
                f"stop the program listening on {sock}, or set MESH_SOCKET_PATH to another folder",
            ), None
    return _greeted(root, sock, hello)


def _greeted(root: Path, sock: Path, hello: Hello) -> tuple[Check, Hello | None]:
    """The daemon answered: is it ours (version, workspace), and how is it doing?"""
    status = hello.status
    sessions = status.get("sessions", "?")
    uptime = status.get("uptime_s")
    up = f", up {_duration(uptime)}" if isinstance(uptime, (int, float)) else ""
    about = (
        f"meshd {hello.version} (pid {hello.pid}) at {sock}: {_counted(sessions, 'session')} counting this check{up}"
    )
    if hello.version != __version__:
        return Check(
            "daemon",
            Status.WARN,
            f"meshd {hello.version} answers, but this is mesh-mcp {__version__} (pid {hello.pid}, {sock})",
            f"kill {hello.pid}; the next `mesh-mcp mcp` starts a {__version__} daemon",
        ), None
    if Path(hello.workspace) != root:
        return Check(
            "daemon",
            Status.WARN,
            f"{about}, but it serves {hello.workspace}, not this workspace",
            "give each workspace its own socket: set MESH_SOCKET_PATH to a folder, not a .sock file",
        ), None
    idle = status.get("idle_exit_s")
    if isinstance(idle, (int, float)):
        about += f"; exits after {_duration(idle)} idle" if idle > 0 else "; never exits when idle"
    return Check("daemon", Status.OK, about), hello


def _hung(sock: Path, lock: LockState, what: str, log_file: Path) -> Check:
    """A live process holds the lock, yet the socket does not work: nothing else can start a daemon."""
    who = f"pid {lock.pid}" if lock.pid is not None else "a process"
    remedy = (
        f"kill {lock.pid} (its log: {log_file}); the next `mesh-mcp mcp` starts a fresh daemon"
        if lock.pid is not None
        else f"find the holder with `fuser {_quoted(lock_path(sock))}` and kill it"
    )
    return Check("daemon", Status.FAIL, f"{who} holds {lock_path(sock)}, but {sock} {what}: daemon hung?", remedy)


def _unresponsive(sock: Path, what: str, log_file: Path) -> Check:
    lock = read_lock(lock_path(sock))
    if lock.held:
        return _hung(sock, lock, what, log_file)
    return Check(
        "daemon",
        Status.FAIL,
        f"something listens on {sock} but {what}; it is not a meshd daemon",
        f"stop the program listening on {sock}, or set MESH_SOCKET_PATH to another folder",
    )


# -- 5. index -------------------------------------------------------------------------------------


@attrs.frozen
class IndexFile:
    """What ``index.db``'s ``meta`` table (and its file count) says."""

    schema: str | None
    generation: int
    updated_at: float | None
    files: int | None


def read_index(path: Path) -> IndexFile:
    """Read ``meta`` through a read-only connection; raises ``sqlite3.Error`` for a damaged file."""
    from ..index.store._store import SCHEMA_VERSION

    connection = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, timeout=SQLITE_TIMEOUT_S)
    try:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        meta = dict(connection.execute("SELECT key, value FROM meta").fetchall()) if "meta" in tables else {}
        schema = meta.get("schema")
        files = connection.execute("SELECT count(*) FROM files").fetchone()[0] if schema == SCHEMA_VERSION else None
    finally:
        connection.close()
    updated = meta.get("updated_at")
    generation = meta.get("generation", "0")
    return IndexFile(
        schema=schema,
        generation=int(generation) if str(generation).isdigit() else 0,
        updated_at=float(updated) if updated else None,
        files=files,
    )


def check_index(root: Path, folder: Path, hello: Hello | None, *, now: float) -> Check:
    """The index's state: the daemon's word when one serves the workspace, else the file's."""
    path = folder / INDEX_DB
    rebuild = f"mesh-mcp index {_quoted(root)}"
    if hello is not None:
        return _index_by_daemon(hello, path, rebuild, now)
    if not path.exists():
        return Check("index", Status.INFO, f"not built yet ({path})", rebuild)
    from ..index.store._store import SCHEMA_VERSION

    try:
        found = read_index(path)
    except (sqlite3.Error, ValueError) as exc:
        return Check(
            "index",
            Status.FAIL,
            f"cannot read {path}: {exc}",
            f"{rebuild} (sets the damaged file aside as index.db.damaged and rebuilds it)",
        )
    if found.schema != SCHEMA_VERSION:
        return Check(
            "index",
            Status.WARN,
            f"schema {found.schema or 'unknown'}, this mesh-mcp uses {SCHEMA_VERSION}: rebuilt at next start ({path})",
            f"{rebuild} (rebuilds it now)",
        )
    if found.updated_at is None:
        return Check("index", Status.INFO, f"empty: not built yet ({path})", rebuild)
    return Check(
        "index",
        Status.OK,
        f"generation {found.generation}, {found.files} files, updated {_duration(now - found.updated_at)} ago ({path})",
    )


def check_services(root: Path, folder: Path) -> Check:
    """Every service of the last index with the evidence it came from; manifests that could not be
    used are a warning naming the file and line."""
    path = folder / INDEX_DB
    if not path.exists():
        return Check("services", Status.INFO, "not known until the first index", f"mesh-mcp index {_quoted(root)}")
    from ..index.query._model import workspace_model
    from ..index.store._store import SCHEMA_VERSION

    try:
        with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
            if read_index(path).schema != SCHEMA_VERSION:
                return Check("services", Status.INFO, "not known until the index is rebuilt (see index)")
            model = workspace_model(db)
    except (sqlite3.Error, ValueError) as exc:
        return Check("services", Status.INFO, f"not readable from {path}: {exc} (see index)")
    listed = "; ".join(
        f"{s.name} ({s.path or '.'}, {s.kind or s.origin}: {s.evidence[0] if s.evidence else s.origin})"
        for s in model.services
    )
    detail = f"{_counted(len(model.services), 'service')}: {listed}"
    if model.externals:
        detail += f"; external: {', '.join(name for name, _, _ in model.externals)}"
    if model.areas:
        detail += f"; areas: {', '.join(area for area, _ in model.areas)}"
    if model.warnings:
        problems = "; ".join(f"{p}:{line}: {message}" for p, line, message in model.warnings[:5])
        return Check("services", Status.WARN, f"{detail}; manifests not used: {problems}",
                     "fix the manifest, or name the services in mesh.toml ([[services]]), which always wins")  # fmt: skip
    return Check("services", Status.OK, detail)


def _index_by_daemon(hello: Hello, path: Path, rebuild: str, now: float) -> Check:
    index = _index_status(hello)
    state = index.get("state")
    if state == "ready":
        try:
            updated = read_index(path).updated_at if path.exists() else None
        except (sqlite3.Error, ValueError):
            updated = None  # the daemon serves it; its own readers would report damage
        age = f", updated {_duration(now - updated)} ago" if updated is not None else ""
        return Check("index", Status.OK, f"ready (daemon): generation {index.get('generation', '?')}{age}")
    if state == "indexing":
        progress = f"{index.get('phase', '?')}, {index.get('done', '?')} of {index.get('total', '?')} files"
        return Check("index", Status.INFO, f"indexing (daemon): {progress}")
    if state == "failed":
        return Check(
            "index",
            Status.FAIL,
            f"failed (daemon): {index.get('failure') or 'no reason given'}",
            f"see {hello.log}; `{rebuild}` shows the error",
        )
    return Check("index", Status.WARN, f"the daemon reports an unknown index state {state!r}", f"see {hello.log}")


def _index_status(hello: Hello) -> Mapping[str, Any]:
    """``LiveIndex.status()`` as the daemon put it in its hello (empty when it is missing or not a table)."""
    index = hello.status.get("index")
    return index if isinstance(index, Mapping) else {}


# -- 6. watcher -----------------------------------------------------------------------------------


def check_watcher(daemon: Check, hello: Hello | None, folder: Path) -> Check:
    """The daemon's file watcher keeps the index current; without it answers go stale."""
    if hello is None:
        if daemon.status is Status.FAIL:
            return Check("watcher", Status.INFO, "unknown: no answer from this workspace's daemon (see daemon)")
        return Check("watcher", Status.INFO, "not watching: no daemon serves this workspace (it watches while it runs)")
    state = _index_status(hello).get("watcher")
    if state == "running":
        return Check("watcher", Status.OK, "running (daemon)")
    if state == "off":
        return Check("watcher", Status.INFO, "off: the daemon was started without watching; answers may go stale")
    if state == "not started":
        return Check("watcher", Status.INFO, "not started yet: it starts once the index is open (seconds after start)")
    log_file = hello.log or str(folder / DAEMON_LOG)
    if state == "stopped":
        return Check(
            "watcher",
            Status.FAIL,
            "stopped: file changes are no longer picked up",
            f"see {log_file}; then `kill {hello.pid}` (the next `mesh-mcp mcp` starts a fresh daemon)",
        )
    return Check("watcher", Status.WARN, f"the daemon reports an unknown watcher state {state!r}", f"see {log_file}")


# -- 7. parsers -----------------------------------------------------------------------------------


def check_parsers() -> Check:
    """Every extractor the index uses parses a one-line file, and RE2 (``smart_search``'s regex) compiles."""
    problems = []
    try:
        from ..index.parse import extract
    except Exception as exc:  # noqa: BLE001 - an import error names the broken package
        return Check("parsers", Status.FAIL, f"cannot load the parsers: {type(exc).__name__}: {exc}", _reinstall())
    for language, (path, source) in SNIPPETS.items():
        try:
            facts = extract(path, source)
        except Exception as exc:  # noqa: BLE001 - the module itself did not import
            problems.append(f"{language}: {type(exc).__name__}: {exc}")
            continue
        if facts.error:
            problems.append(f"{language}: {facts.error}")
        elif not (facts.definitions or facts.sections):
            problems.append(f"{language}: nothing found in {source.decode().strip()!r}")
    problems.extend(_re2_problems())
    if problems:
        return Check("parsers", Status.FAIL, "; ".join(problems), _reinstall())
    return Check("parsers", Status.OK, f"{len(SNIPPETS)} languages parse a snippet; re2 compiles")


def _re2_problems() -> list[str]:
    try:
        import re2

        found = re2.compile(r"(?m)^def \w+").search("x\ndef handler()")
    except Exception as exc:  # noqa: BLE001 - whatever re2 raises, it is unusable
        return [f"re2: {type(exc).__name__}: {exc}"]
    return [] if found is not None and found.group(0) == "def handler" else ["re2: a known match was not found"]


def _reinstall() -> str:
    """The install command for this copy of mesh-mcp: a checkout gets an editable reinstall."""
    project = Path(__file__).resolve().parent.parent
    python = _quoted(Path(sys.executable))
    if (project / "pyproject.toml").is_file():
        return f"reinstall: `{python} -m pip install -e {_quoted(project)}`"
    return f"reinstall: `{python} -m pip install --force-reinstall mesh-mcp`"


# -- 8. sqlite ------------------------------------------------------------------------------------


def check_sqlite(folder: Path) -> Check:
    """What the index and audit log ask of SQLite: FTS5 with the trigram tokenizer, and WAL journaling
    (tried where the index lives when that folder exists: WAL needs shared memory, which some network
    filesystems lack)."""
    problems = []
    try:
        _try_trigram()
    except sqlite3.Error as exc:
        problems.append(f"no FTS5 trigram tokenizer ({exc})")
    scratch = folder if folder.is_dir() and os.access(folder, os.W_OK | os.X_OK) else None
    try:
        mode = _try_wal(scratch)
    except (sqlite3.Error, OSError) as exc:
        mode = f"error: {exc}"
    if mode != "wal":
        problems.append(f"no WAL journal in {scratch or tempfile.gettempdir()} ({mode})")
    version = f"SQLite {sqlite3.sqlite_version}"
    if problems:
        remedy = (
            "use a Python built with SQLite 3.34 or later with FTS5 (python.org and uv builds have it)"
            if any(problem.startswith("no FTS5") for problem in problems)
            else "set MESH_CACHE_DIR to a folder on a local disk"
        )
        return Check("sqlite", Status.FAIL, f"{version}: {'; '.join(problems)}", remedy)
    return Check("sqlite", Status.OK, f"{version}: FTS5 trigram, WAL")


def _try_trigram() -> None:
    """The index's text table, as ``_store.py`` declares it, in memory: one row in, one hit out."""
    connection = sqlite3.connect(":memory:")
    try:
        connection.execute(
            "CREATE VIRTUAL TABLE text USING fts5(body, content='', detail=none, tokenize='trigram case_sensitive 1')"
        )
        connection.execute("INSERT INTO text(rowid, body) VALUES (7, 'def handler')")
        rows = connection.execute('SELECT rowid FROM text WHERE text MATCH \'"han" AND "dle"\'').fetchall()
    finally:
        connection.close()
    if rows != [(7,)]:
        raise sqlite3.DatabaseError(f"a trigram query found {rows}, not row 7")


def _try_wal(folder: Path | None) -> str:
    """The journal mode SQLite grants a scratch database asking for WAL (``"wal"`` when it works)."""
    with tempfile.TemporaryDirectory(prefix=".doctor-", dir=folder) as scratch:
        connection = sqlite3.connect(Path(scratch) / "wal.db", timeout=SQLITE_TIMEOUT_S)
        try:
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            connection.execute("CREATE TABLE t(x)")
            connection.execute("INSERT INTO t VALUES (1)")
            connection.commit()
        finally:
            connection.close()
    return str(mode).lower()


# -- helpers --------------------------------------------------------------------------------------


def _duration(seconds: float) -> str:
    """``42 s``, ``3 min``, ``5 h``, ``2 days``: how long ago or how long for, at a glance."""
    seconds = max(0.0, float(seconds))
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min"
    if seconds < 86400:
        return f"{seconds // 3600:.0f} h"
    return _counted(int(seconds // 86400), "day")


def _counted(number: object, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _quoted(path: Path) -> str:
    """A path as a shell word, so a remedy can be pasted as it is."""
    return shlex.quote(str(path))
