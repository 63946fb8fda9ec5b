"""Where a workspace's daemon listens, and the one line it says first on every connection.

Theory of operation
-------------------
**Where.** One daemon serves one workspace (``workspace_id``: sha256 over the canonical path and
the package version, 16 hex digits), on a Unix socket named ``meshd-<workspace_id>.sock`` in the
first of:

1. ``$MESH_SOCKET_PATH``: a path ending in ``.sock`` is the socket itself (every workspace then
   shares it, so it suits one daemon); any other value is a folder;
2. ``$XDG_RUNTIME_DIR/mesh/`` (per user, on a tmpfs, cleaned at logout: what it is for);
3. ``~/.cache/mesh/`` (beside the caches).

The folder is made 0700 and must belong to this user and be writable by nobody else: a socket in a
folder another user can write to could be replaced by theirs (:func:`private_dir`). The socket is
0600. Beside it, ``meshd-<workspace_id>.lock`` holds the daemon's pid and, while it runs, an
exclusive ``flock``: one daemon per workspace is a lock, not a race, and the kernel drops the lock
when the daemon dies however it dies, so a socket found with the lock free is stale.

**Hello.** Before any MCP byte the daemon writes one JSON line on every accepted connection
(:class:`Hello`): its version, pid, workspace, log file, the plugins it loaded and a short status
(index, watcher, sessions). The proxy reads that line and forwards nothing of it, so the client's
stream carries the daemon's MCP bytes only; ``mesh-mcp doctor`` reads it and hangs up.

**End.** A session that ended with every answer written ends with ``END_MARKER``, which the
proxy strips: a connection that closes without it is a daemon that died mid-session, even when
the client had already closed its input.

**Heartbeat.** A daemon whose hello has ``heartbeat_s`` writes ``HEARTBEAT`` between frames
whenever a session's connection has carried nothing for that long. The session's loop writes it,
not a tool: while a slow tool runs the heartbeats go on, and a daemon that is stopped (SIGSTOP)
or hung falls silent. The proxy strips it as it strips the end marker. Both are *control records*:
a NUL, a few ASCII bytes, a newline; a NUL never occurs in a frame.

**Descriptors.** A daemon whose hello says ``fds`` takes the client's own stdin and stdout: the
proxy's first bytes after the hello are ``FDS_RECORD``, sent with both descriptors attached
(``SCM_RIGHTS``). The daemon's session then reads and writes the client's pipes itself, and the
socket becomes a **control channel** carrying control records only: ``HEARTBEAT`` and, once the
session is over, ``exit_record(code)`` from the daemon (the code the standalone server would exit
with); ``STOP_RECORD`` (a stop signal the proxy received) from the proxy. A daemon that could not
take the descriptors says ``COPY_RECORD`` and serves the connection as a byte stream after all.
Any other first bytes are a byte-stream session (an older proxy, the HTTP server).
"""

from __future__ import annotations

import os
import socket
import stat
import struct
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import orjson

from .workspace import workspace_id

__all__ = [
    "CONTROL_BYTES_MAX",
    "COPY_RECORD",
    "END_MARKER",
    "EXIT_RECORD",
    "FDS_RECORD",
    "HEARTBEAT",
    "HELLO_BYTES_MAX",
    "STOP_RECORD",
    "SUN_PATH_BYTES_MAX",
    "ControlReader",
    "Hello",
    "SocketDirError",
    "lock_path",
    "peer_uid",
    "private_dir",
    "exit_record",
    "parse_exit_record",
    "read_hello",
    "socket_dir",
    "socket_path",
    "stop_record",
]

#: The kernel's limit for a socket path (``sun_path`` is 108 bytes with its terminating NUL).
SUN_PATH_BYTES_MAX: Final = 107
#: A hello line longer than this is not from a daemon of ours.
HELLO_BYTES_MAX: Final = 64 * 1024
#: The hello's format; a daemon speaking another one is treated as unreachable.
HELLO_FORMAT: Final = 1
#: The daemon's last bytes on a connection whose session ended with every answer written. A
#: connection closed without it lost answers (the daemon died). NUL never occurs in a frame (the
#: codec escapes it), so the marker cannot be mistaken for one; the proxy never forwards it.
END_MARKER: Final = b"\x00meshd:end\n"
#: What a daemon writes between frames when a connection has been quiet for its ``heartbeat_s``.
HEARTBEAT: Final = b"\x00meshd:beat\n"
#: The longest control record (a NUL to its newline); a longer run is not one of ours.
CONTROL_BYTES_MAX: Final = 64
#: The proxy's first bytes on a connection whose daemon accepts descriptors, sent with the
#: client's stdin and stdout attached (``SCM_RIGHTS``).
FDS_RECORD: Final = b"\x00meshd:fds\n"
#: The daemon could not take the descriptors (``MSG_CTRUNC``: out of descriptors): the connection
#: is a byte stream after all, and the proxy copies.
COPY_RECORD: Final = b"\x00meshd:copy\n"
#: Proxy to daemon on the control channel: a stop signal (its name follows, before the newline).
STOP_RECORD: Final = b"\x00meshd:stop"
#: Daemon to proxy on the control channel: the session is over; its exit code follows.
EXIT_RECORD: Final = b"\x00meshd:exit "


#: What follows the code in an exit record when the daemon ended the session itself (stopping).
STOPPING: Final = b"stopping"


def exit_record(code: int, *, stopping: bool = False) -> bytes:
    """The control record that ends a session whose descriptors the daemon held: the code the
    standalone server would exit with; ``stopping``: the daemon itself is stopping (SIGTERM to
    it, idle), so the client did not end the session."""
    return EXIT_RECORD + str(code).encode() + (b" " + STOPPING if stopping else b"") + b"\n"


def parse_exit_record(record: bytes) -> tuple[int, bool] | None:
    """``(code, stopping)`` of an exit record; None when ``record`` is none."""
    if not record.startswith(EXIT_RECORD) or not record.endswith(b"\n"):
        return None
    words = record[len(EXIT_RECORD) : -1].split()
    if not words or not words[0].isdigit() or len(words) > 2 or words[1:] not in ([], [STOPPING]):
        return None
    return int(words[0]), len(words) == 2


def stop_record(reason: str) -> bytes:
    """The control record of a stop signal the proxy received (``reason``: the signal's name)."""
    return STOP_RECORD + b" " + reason.encode("ascii", "replace")[:32] + b"\n"


class ControlReader:
    """Control records out of a control channel's bytes, however they are chunked.

    :meth:`feed` returns the complete records (NUL to newline, both kept). Bytes that are no
    record (not starting with NUL, or no newline within ``CONTROL_BYTES_MAX``) come back as one
    item each too, so the caller can say so: they are never held without bound."""

    __slots__ = ("held",)

    def __init__(self) -> None:
        self.held = b""

    def feed(self, data: bytes) -> list[bytes]:
        data = self.held + data if self.held else data
        self.held = b""
        records: list[bytes] = []
        at = 0
        while at < len(data):
            end = data.find(b"\n", at, at + CONTROL_BYTES_MAX)
            if end < 0:
                if len(data) - at < CONTROL_BYTES_MAX:
                    self.held = data[at:]
                    break
                records.append(data[at : at + CONTROL_BYTES_MAX])  # no record of ours: the caller says so
                at += CONTROL_BYTES_MAX
                continue
            records.append(data[at : end + 1])
            at = end + 1
        return records


class SocketDirError(Exception):
    """The socket's folder cannot be used safely; the message says why and what to do."""


def socket_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The folder of the daemons' sockets (see the module docstring); not created here."""
    environ = os.environ if environ is None else environ
    chosen = environ.get("MESH_SOCKET_PATH")
    if chosen:
        path = Path(chosen).expanduser()
        return path.parent if path.suffix == ".sock" else path
    if environ.get("XDG_RUNTIME_DIR"):
        return Path(environ["XDG_RUNTIME_DIR"]) / "mesh"
    return Path(environ.get("HOME") or Path.home()) / ".cache" / "mesh"


def socket_path(workspace: Path, environ: Mapping[str, str] | None = None) -> Path:
    """The socket of ``workspace``'s daemon."""
    environ = os.environ if environ is None else environ
    chosen = environ.get("MESH_SOCKET_PATH")
    if chosen and Path(chosen).suffix == ".sock":
        return Path(chosen).expanduser()
    return socket_dir(environ) / f"meshd-{workspace_id(workspace)}.sock"


def lock_path(socket_file: Path) -> Path:
    """The daemon's lock file, beside its socket."""
    return socket_file.with_suffix(".lock")


def private_dir(folder: Path) -> Path:
    """Make ``folder`` (0700) if needed and check that it is ours alone; raise :class:`SocketDirError`."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError as exc:
        raise SocketDirError(
            f"cannot create {folder} ({exc.strerror}); set MESH_SOCKET_PATH to a folder of yours"
        ) from exc
    if not stat.S_ISDIR(info.st_mode):
        raise SocketDirError(f"{folder} is not a folder (a symlink or a file); remove it or set MESH_SOCKET_PATH")
    if info.st_uid != os.getuid():
        raise SocketDirError(
            f"{folder} belongs to uid {info.st_uid}, not to you (uid {os.getuid()}); set MESH_SOCKET_PATH to a folder of yours"
        )
    if info.st_mode & 0o022:
        raise SocketDirError(
            f"{folder} is writable by others (mode {stat.S_IMODE(info.st_mode):04o}); run `chmod 700 {folder}`"
        )
    return folder


def check_length(path: Path) -> None:
    """Raise :class:`SocketDirError` when ``path`` is too long to bind or connect to."""
    size = len(os.fsencode(path))
    if size > SUN_PATH_BYTES_MAX:
        raise SocketDirError(
            f"socket path {path} is {size} bytes, longer than the {SUN_PATH_BYTES_MAX} a Unix socket allows; "
            "set MESH_SOCKET_PATH to a shorter folder"
        )


def peer_uid(connection: socket.socket) -> int | None:
    """The uid of the process at the other end (``SO_PEERCRED``); ``None`` where the OS has no such option."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    raw = connection.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", raw)
    return uid


class Hello:
    """The daemon's first line on a connection.

    A plain class, not attrs: the proxy imports this module on every client's start-up, and
    importing attrs costs it tens of milliseconds before the first byte is copied.
    """

    __slots__ = ("fds", "heartbeat_s", "log", "pid", "plugins", "status", "version", "workspace")

    def __init__(
        self,
        version: str,
        pid: int,
        workspace: str,
        log: str,
        plugins: tuple[str, ...] = (),
        status: Mapping[str, Any] | None = None,
        heartbeat_s: float = 0.0,
        fds: bool = False,
    ) -> None:
        self.version = version
        self.pid = pid
        self.workspace = workspace
        self.log = log
        self.plugins = tuple(plugins)
        #: Free-form state for ``doctor``: index, watcher, sessions, uptime.
        self.status: Mapping[str, Any] = dict(status or {})
        #: How often the daemon writes ``HEARTBEAT`` on a quiet connection; 0: never (a daemon
        #: from before heartbeats), so its silence proves nothing.
        self.heartbeat_s = heartbeat_s
        #: The daemon takes the client's descriptors (``FDS_RECORD``); False: a daemon from before
        #: that, served by copying bytes.
        self.fds = fds

    def _key(self) -> tuple[object, ...]:
        return (self.version, self.pid, self.workspace, self.log, self.plugins, dict(self.status), self.heartbeat_s, self.fds)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hello) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # mutable status: not hashable

    def __repr__(self) -> str:
        return f"Hello(version={self.version!r}, pid={self.pid}, workspace={self.workspace!r}, log={self.log!r})"

    def encode(self) -> bytes:
        document: dict[str, Any] = {
            "meshd": HELLO_FORMAT,
            "version": self.version,
            "pid": self.pid,
            "workspace": self.workspace,
            "log": self.log,
            "plugins": list(self.plugins),
            "status": dict(self.status),
            "heartbeat_s": self.heartbeat_s,
        }
        if self.fds:
            document["fds"] = True
        return orjson.dumps(document, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE)

    @classmethod
    def decode(cls, line: bytes) -> Hello:
        """Parse a hello line; ``ValueError`` for anything that is not one of ours."""
        try:
            document = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise ValueError(f"not a meshd hello: {exc}") from exc
        if not isinstance(document, dict) or document.get("meshd") != HELLO_FORMAT:
            raise ValueError("not a meshd hello (another program listens on this socket?)")
        try:
            return cls(
                version=str(document["version"]),
                pid=int(document["pid"]),
                workspace=str(document["workspace"]),
                log=str(document["log"]),
                plugins=tuple(str(name) for name in document.get("plugins", ())),
                status=dict(document.get("status") or {}),
                heartbeat_s=_heartbeat_s(document.get("heartbeat_s", 0)),
                fds=document.get("fds") is True,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"a meshd hello without {exc}") from exc


def _heartbeat_s(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 86_400:
        raise ValueError(f"a valid heartbeat_s (not {value!r})")
    return float(value)


def read_hello(connection: socket.socket, timeout_s: float | None = None) -> tuple[Hello, bytes]:
    """Read the hello line from a fresh connection: the hello and any bytes received after it.

    ``timeout_s`` bounds the whole line (a peer sending a byte at a time cannot stretch it); None
    keeps the socket's own timeout per read. Raises ``ValueError`` (not a hello),
    ``ConnectionError`` (closed first) or ``TimeoutError``.
    """
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    received = bytearray()
    while b"\n" not in received:
        if deadline is not None:
            left_s = deadline - time.monotonic()
            if left_s <= 0:
                raise TimeoutError(f"no hello line within {timeout_s:g} s")
            connection.settimeout(left_s)
        chunk = connection.recv(4096)
        if not chunk:
            raise ConnectionError("the daemon closed the connection before saying hello")
        received += chunk
        if len(received) > HELLO_BYTES_MAX and b"\n" not in received:
            raise ValueError("not a meshd hello (no line end within 64 KiB)")
    line, _, rest = bytes(received).partition(b"\n")
    return Hello.decode(line), rest
