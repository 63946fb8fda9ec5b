"""``meshd`` (also ``mesh-mcp daemon``): one workspace's index, served on a Unix socket.

Start-up, in this order, each step before the next can go wrong:

1. the socket's folder is checked (ours, 0700) and the path's length;
2. the log: ``meshd.log`` in the workspace's cache folder, which also receives this process's fd
   1 and 2 (a stray ``print``, a C library's message, a fatal-signal traceback) unless they are a
   terminal; rotated to ``meshd.log.1`` past ``LOG_BYTES_MAX`` at start;
3. the lock (``meshd-<id>.lock``, ``flock``), opened without following a symlink and used only
   when it is a regular file of ours with one link (anything else planted there is refused, never
   truncated); held by another daemon whose socket answers, this one has nothing to do and exits
   0; held by a daemon still starting or stopping, it waits up to ``LOCK_WAIT_S``;
4. the socket: bound under a temporary name, made 0600, listening (a backlog of ``SOMAXCONN``: a
   burst of clients queues, never finds the queue full), then renamed over the final path. A
   stale socket of a dead daemon (the lock was free, so nobody serves it) is replaced in that one
   atomic step, and a client never finds the socket with other permissions;
5. the index (:class:`LiveIndex`, refreshed at once and watched), the tools, the audit log.

On the way out the socket is unlinked (only if it is still ours) before the lock is released.
"""

from __future__ import annotations

import errno
import faulthandler
import fcntl
import logging
import math
import os
import signal
import socket
import stat
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import FrameType
from typing import TextIO

from .. import __version__
from ._serve import open_audit, plugin_names
from ..sockets import Hello, SocketDirError, check_length, lock_path, private_dir, socket_path
from ..workspace import cache_dir

__all__ = ["DEFAULT_HEARTBEAT_S", "DEFAULT_IDLE_EXIT_S", "run_daemon"]

log = logging.getLogger("mesh.daemon")

#: Without a client for this long, the daemon exits (``--idle-exit``, ``$MESH_DAEMON_IDLE_S``,
#: ``[daemon] idle_exit_s`` in mesh.toml; 0 never).
DEFAULT_IDLE_EXIT_S = 900.0
#: How often a quiet connection gets the daemon's heartbeat (``$MESH_DAEMON_HEARTBEAT_S``); a
#: proxy that hears nothing for ten of them takes the daemon for stopped or hung.
DEFAULT_HEARTBEAT_S = 1.0
#: How long a new daemon waits for the lock of one still starting or stopping.
LOCK_WAIT_S = 10.0
#: At start, a log larger than this is moved to ``meshd.log.1`` (the previous ``.1`` is dropped).
LOG_BYTES_MAX = 5 * 1024 * 1024
LOG_NAME = "meshd.log"


def run_daemon(
    workspace: Path,
    *,
    idle_exit_s: float | None,
    log_level: str,
    stderr: TextIO,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Serve ``workspace`` until stopped or idle; the exit code (0 ok, 1 cannot serve, 2 bad plugin)."""
    environ = os.environ if environ is None else environ
    path = socket_path(workspace, environ)
    try:
        check_length(path)
        private_dir(path.parent)
    except SocketDirError as exc:
        stderr.write(f"meshd: {exc}\n")
        return 1
    log_file = cache_dir(workspace, environ) / LOG_NAME
    try:
        _log_to(log_file, log_level)
    except OSError as exc:
        stderr.write(f"meshd: cannot write the log {log_file} ({exc.strerror}); check the cache folder\n")
        return 1
    try:
        lock_fd = _lock(lock_path(path), path)
    except _AlreadyServed:
        return 0
    except OSError as exc:
        log.error("%s", exc)
        return 1
    try:
        return _serve(workspace, path, log_file, idle_exit_s, environ)
    finally:
        os.close(lock_fd)  # the socket is gone by now: releasing the lock last


def _serve(workspace: Path, path: Path, log_file: Path, idle_exit_s: float | None, environ: Mapping[str, str]) -> int:
    from ..drivers.uds import Daemon
    from ..index.build._live import LiveIndex
    from ..protocol import SessionConfig
    from ..tools import builtin_registry, load_plugins

    live = LiveIndex(workspace, refresh_delay_s=0.0)
    registry = builtin_registry(live)
    plugins = plugin_names(environ)
    try:
        load_plugins(registry, plugins)
    except (ImportError, AttributeError, ValueError, TypeError) as exc:
        log.error("MESH_TOOL_PLUGINS: %s", exc)
        return 2
    idle_s = _idle_exit_s(workspace, idle_exit_s, environ)
    heartbeat_s = _heartbeat_s(environ)
    try:
        listener, inode = _bind(path)
    except OSError as exc:
        log.error("cannot listen on %s: %s", path, exc)
        return 1
    live.start()
    audit = open_audit(workspace)
    started = time.monotonic()
    daemon: Daemon

    def hello(sessions: int, refused: str) -> bytes:
        status: dict[str, object] = {
            "index": live.status(),
            "sessions": sessions,
            "uptime_s": round(time.monotonic() - started, 3),
            "idle_exit_s": idle_s,
        }
        if refused:
            status["refused"] = refused
        return Hello(
            __version__, os.getpid(), str(workspace), str(log_file), tuple(plugins), status, heartbeat_s, fds=True
        ).encode()

    daemon = Daemon(
        listener=listener,
        registry=registry,
        workspace=workspace,
        config=SessionConfig(server_name="mesh-mcp", server_version=__version__),
        hello=hello,
        audit=audit,
        idle_exit_s=idle_s,
        heartbeat_s=heartbeat_s,
    )

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        daemon.request_stop(signal.Signals(signum).name)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # a closed terminal is no reason to stop serving
    signal.set_wakeup_fd(daemon.wake_fd, warn_on_full_buffer=False)
    log.info(
        "meshd %s (pid %d) serving %s on %s; %d tools; idle exit %s",
        __version__,
        os.getpid(),
        workspace,
        path,
        len(registry),
        f"{idle_s:g} s" if idle_s else "never",
    )
    try:
        code = daemon.run()
    finally:
        signal.set_wakeup_fd(-1)
        _unlink_if_ours(path, inode)
        daemon.close()
        live.close()
        audit.close()
    log.info("meshd exiting (%d session(s) served, %d refused)", daemon.accepted, daemon.refused)
    return code


def _log_to(log_file: Path, level: str) -> None:
    """Log to ``log_file``; point fd 1 and 2 there too unless they are a terminal."""
    log_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)  # as the index and the audit log make it
    try:
        if log_file.stat().st_size > LOG_BYTES_MAX:
            os.replace(log_file, log_file.with_name(LOG_NAME + ".1"))
    except FileNotFoundError:
        pass
    stream = open(log_file, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - lives as long as the process
    handlers: list[logging.Handler] = [logging.StreamHandler(stream)]
    if os.isatty(2):
        handlers.append(logging.StreamHandler(sys.stderr))
    else:
        for fd in (1, 2):
            os.dup2(stream.fileno(), fd)
        sys.stdout = sys.stderr = stream
    faulthandler.enable(stream)  # a fatal signal in native code leaves its traceback in the log
    formatter = logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s")
    root = logging.getLogger("mesh")
    for handler in handlers:
        handler.setFormatter(formatter)
    root.handlers[:] = handlers
    root.setLevel(level.upper())
    root.propagate = False


class _AlreadyServed(Exception):
    """Another daemon holds the lock and answers on the socket."""


def _lock(lock_file: Path, path: Path) -> int:
    """The locked descriptor of ``lock_file``, our pid written in it.

    Raises :class:`_AlreadyServed`, or ``OSError`` when the lock stays held by a daemon that does
    not answer or the lock file is not ours (INV-SOCK-3)."""
    fd = _open_lock(lock_file)
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if _answers(path):
                log.info("a daemon (pid %s) already serves this workspace on %s", _holder(fd), path)
                os.close(fd)
                raise _AlreadyServed from None
            if time.monotonic() > deadline:
                holder = _holder(fd)
                os.close(fd)
                raise OSError(
                    f"the daemon lock {lock_file} is held by pid {holder} but {path} does not answer; "
                    f"stop that process (kill {holder})"
                ) from None
            time.sleep(0.05)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def _open_lock(lock_file: Path) -> int:
    """``lock_file`` opened for reading and writing, created if need be: never through a symlink,
    and only a regular file of ours with one link; anything else there raises ``OSError`` and is
    left as it is (a planted symlink's target is never truncated)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK  # no FIFO waits
    try:
        fd = os.open(lock_file, flags, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(f"the daemon lock {lock_file} is a symbolic link; remove it (rm {lock_file})") from None
        raise OSError(f"cannot open the daemon lock {lock_file} ({exc.strerror})") from None
    info = os.fstat(fd)
    problem = (
        "is not a regular file" if not stat.S_ISREG(info.st_mode)
        else f"belongs to uid {info.st_uid}, not to you (uid {os.getuid()})" if info.st_uid != os.getuid()
        else f"has {info.st_nlink} links (a hard link to another file?)" if info.st_nlink != 1
        else ""
    )  # fmt: skip
    if problem:
        os.close(fd)
        raise OSError(f"the daemon lock {lock_file} {problem}; remove it (rm {lock_file})")
    os.set_blocking(fd, True)
    return fd


def _holder(fd: int) -> str:
    """The pid written in the lock, read through its descriptor (never by its name again)."""
    try:
        return os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "?"
    except OSError:
        return "?"


def _answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(os.fspath(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def _bind(path: Path) -> tuple[socket.socket, int]:
    """Listen on ``path`` (0600), replacing a stale socket atomically; the socket and its inode."""
    try:
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise OSError(f"{path} exists and is not a socket; remove it")
        log.info("replacing the stale socket %s (no daemon held its lock)", path)
    except FileNotFoundError:
        pass
    temporary = path.with_name(f".{path.stem}.{os.getpid()}")
    if len(os.fsencode(temporary)) > len(os.fsencode(path)):
        check_length(temporary)
    try:
        temporary.unlink()
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    previous_umask = os.umask(0o177)  # never visible with wider permissions, not even for a moment
    try:
        listener.bind(os.fspath(temporary))
    finally:
        os.umask(previous_umask)
    os.chmod(temporary, 0o600)
    listener.listen(socket.SOMAXCONN)  # the kernel's most: a burst queues (the proxies retry too)
    os.replace(temporary, path)
    return listener, path.stat().st_ino


def _unlink_if_ours(path: Path, inode: int) -> None:
    try:
        if path.stat().st_ino == inode:
            path.unlink()
    except OSError:
        pass


def _idle_exit_s(workspace: Path, given: float | None, environ: Mapping[str, str]) -> float:
    """The idle exit in seconds, 0 for never (an infinite one too). Any finite length is kept:
    the accept loop waits for it in slices (INV-DAEMON-4)."""
    if given is not None:
        if given >= 0:  # False for NaN
            return _never_if_infinite(given)
        log.warning("--idle-exit %r is not a number of seconds; ignored", given)
    text = environ.get("MESH_DAEMON_IDLE_S")
    if text:
        try:
            value = float(text)
            if value >= 0:  # False for NaN
                return _never_if_infinite(value)
        except ValueError:
            pass
        log.warning("MESH_DAEMON_IDLE_S=%r is not a number of seconds; ignored", text)
    from ..index import ConfigError, load_config

    try:
        configured = load_config(workspace).daemon_idle_exit_s
    except ConfigError as exc:
        log.warning("idle exit: default (%s)", exc)
        configured = None
    if configured is None or not configured >= 0:
        return DEFAULT_IDLE_EXIT_S
    return _never_if_infinite(configured)


def _never_if_infinite(seconds: float) -> float:
    return 0.0 if math.isinf(seconds) else seconds


def _heartbeat_s(environ: Mapping[str, str]) -> float:
    text = environ.get("MESH_DAEMON_HEARTBEAT_S")
    if not text:
        return DEFAULT_HEARTBEAT_S
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.01 <= value <= 60:
        log.warning("MESH_DAEMON_HEARTBEAT_S=%r: not 0.01 to 60 seconds; using %g", text, DEFAULT_HEARTBEAT_S)
        return DEFAULT_HEARTBEAT_S
    return value
