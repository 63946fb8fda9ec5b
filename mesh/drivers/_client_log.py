"""The server's own warnings and errors, handed to its sessions as MCP log messages.

Theory of operation
-------------------
One :class:`ClientLogHandler` per process sits on the ``mesh`` logger (:func:`install`), beside the
handlers that write stderr or the daemon's log, which it leaves as they were. A record of WARNING or
above becomes a :class:`ClientLogEntry` (:func:`client_entry`): the MCP level, the logger's name
(``mesh.index``, ``mesh.server``...) and structured ``data`` holding the server's own words only.
Each connection's pump subscribes a callback, called on whichever thread logged: it queues the
entry and wakes its loop, which hands it to its session (``ServerSession.log``) with the time. The
session decides whether and when the client gets it: the level asked for, the era, the rate limit.

A record logged while serving one session, on its loop thread (its transport's troubles) or in one
of its tool calls (:meth:`ClientLogHandler.serving`: a crash), goes to that session only. Any other
record, and every record of the index (``mesh.index``: one index serves every session), goes to
every session. The handler keeps the ``RECENT_MAX`` most recent distinct entries of the second kind
and hands them to a session when it subscribes: a session that starts after the index met a problem
(the daemon's second client, or a client slower than the first build) still hears of it.

The server's own words
----------------------
``data.message`` is the record's format string, which the code base always writes as a literal
(``tests/protocol/test_logging.py`` holds every logging call in ``mesh/`` to that), each ``%``
argument filled by its kind:

* a number (an int of at most 64 bits, a finite float, a bool) or None: as formatted;
* an exception: its class name, never its message (which may quote a file or an absolute path);
* a workspace-relative path, a ``str`` or ``PurePath`` that is only path characters (letters,
  digits, ``._+-``, components of at most 80 characters joined by ``/``), holds a ``/`` or a
  ``.``, has no ``.`` or ``..`` component, is not absolute and does not look secret by its name
  (the walk's own policy): as is;
* a :class:`ServerWord`, a name the server itself defines (a registered tool's): as is, when it
  is only name characters;
* anything else (free text, values read from a file, an exception's message, absolute paths, a
  word that is no path): ``<redacted>``.

``data.args`` lists the arguments as kept (``null`` for one left out), ``data.exception`` the class
of a logged exception (never its message or traceback). stderr and the daemon's log still get the
whole record, as before.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import PurePath
from typing import Any, Final

import attrs
import orjson

from ..index.build._enumerate import secret_name

__all__ = ["REDACTED", "ClientLogEntry", "ClientLogHandler", "ServerWord", "client_entry", "install"]

#: What stands in the message for an argument that is not the server's own words.
REDACTED: Final = "<redacted>"
#: Distinct process-wide entries handed to a session when it subscribes.
RECENT_MAX: Final = 32
#: ``data.message`` is cut to this many characters.
MESSAGE_CHARS_MAX: Final = 1000
PATH_CHARS_MAX: Final = 255
#: Loggers whose records concern every session whichever thread logged them.
SHARED_LOGGERS: Final = ("mesh.index",)
_PATH: Final = re.compile(r"[A-Za-z0-9._+-]{1,80}(?:/[A-Za-z0-9._+-]{1,80})*")
#: One ``%`` conversion of a format string, as ``str.__mod__`` reads it.
_SPEC: Final = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?[#0 +-]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?(?P<conversion>[diouxXeEfFgGcrsa%])"
)
_LEFT_OUT: Final = object()
#: What a :class:`ServerWord` may be made of.
_SERVER_WORD: Final = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")


class ServerWord(str):
    """A word the server defines, not one a client or a file gave it (a registered tool's name):
    a client log message names it (``tool impact_matrix crashed``) instead of ``<redacted>``. The
    caller vouches for the origin; the client log still keeps it only when it is name characters."""

    __slots__ = ()


@attrs.frozen
class ClientLogEntry:
    """One log message for the client: ``notifications/message``'s ``level``, ``logger``, ``data``."""

    level: str
    logger: str
    data: Mapping[str, Any]


def mcp_level(levelno: int) -> str:
    """The MCP (syslog) level of a Python logging level."""
    if levelno >= logging.CRITICAL:
        return "critical"
    if levelno >= logging.ERROR:
        return "error"
    if levelno >= logging.WARNING:
        return "warning"
    return "info" if levelno >= logging.INFO else "debug"


def client_entry(record: logging.LogRecord) -> ClientLogEntry:
    """What the client may see of ``record`` (see "The server's own words" above)."""
    message, kept = _fill(record.msg, record.args)
    data: dict[str, Any] = {"message": message[:MESSAGE_CHARS_MAX]}
    if kept is not None:
        data["args"] = kept
    if record.exc_info and record.exc_info[0] is not None:
        data["exception"] = record.exc_info[0].__name__
    return ClientLogEntry(mcp_level(record.levelno), record.name, data)


def _kept(value: Any) -> Any:
    """``value`` as the client may see it, or ``_LEFT_OUT``."""
    kind = type(value)
    if value is None or kind is bool:
        return value
    if kind is int:
        return value if -(2**63) <= value < 2**63 else _LEFT_OUT  # what JSON encoders take
    if kind is float:
        return value if math.isfinite(value) else _LEFT_OUT
    if isinstance(value, BaseException):
        return type(value).__name__
    if kind is ServerWord:
        return str(value) if _SERVER_WORD.fullmatch(value) else _LEFT_OUT
    if isinstance(value, PurePath):
        value = value.as_posix()
    if isinstance(value, str) and _workspace_path(value):
        return value
    return _LEFT_OUT


def _workspace_path(text: str) -> bool:
    if len(text) > PATH_CHARS_MAX or not _PATH.fullmatch(text) or ("/" not in text and "." not in text):
        return False
    if any(part in (".", "..") for part in text.split("/")):
        return False
    return not secret_name(text)


def _fill(msg: Any, args: Any) -> tuple[str, Any]:
    """The format string with its arguments filled as kept, and the arguments kept (JSON)."""
    if not isinstance(msg, str):
        return type(msg).__name__, None
    if not args:
        return msg, None
    named = isinstance(args, Mapping)
    if named:
        kept: Any = {str(key): _kept(value) for key, value in args.items()}
        shown: Any = {key: None if value is _LEFT_OUT else value for key, value in kept.items()}
    else:
        kept = [_kept(value) for value in args]
        shown = [None if value is _LEFT_OUT else value for value in kept]
    unreadable = msg, ({key: None for key in shown} if named else [None] * len(shown))
    parts: list[str] = []
    position = used = 0
    for match in _SPEC.finditer(msg):
        parts.append(msg[position : match.start()])
        position = match.end()
        spec, key = match[0], match["key"]
        if match["conversion"] == "%":
            parts.append("%")
            continue
        if "*" in spec or (key is None) == named:
            return unreadable  # a form logging itself would not format: show nothing of the arguments
        if named:
            if key not in kept:
                return unreadable
            value = kept[key]
            spec = spec.replace(f"({key})", "", 1)
        else:
            if used >= len(kept):
                return unreadable
            value = kept[used]
            used += 1
        if value is _LEFT_OUT:
            parts.append(REDACTED)
            continue
        try:
            parts.append(spec % (value,))
        except (TypeError, ValueError, OverflowError):  # a class name given to %d, say
            parts.append(REDACTED)
    if not named and used != len(kept):
        return unreadable
    parts.append(msg[position:])
    return "".join(parts), shown


class ClientLogHandler(logging.Handler):
    """Hands every WARNING-or-above record of the server to the sessions subscribed."""

    def __init__(self, recent_max: int = RECENT_MAX) -> None:
        super().__init__(logging.WARNING)
        self._subscribers: dict[int, Callable[[ClientLogEntry], None]] = {}
        #: Threads serving one session (its loop, its running tool calls): thread ident -> token.
        self._threads: dict[int, int] = {}
        self._tokens = itertools.count(1)
        self._recent: dict[bytes, ClientLogEntry] = {}
        self._recent_max = recent_max

    def subscribe(
        self, deliver: Callable[[ClientLogEntry], None], thread: int | None = None
    ) -> tuple[int, list[ClientLogEntry]]:
        """Call ``deliver(entry)`` (on the logging thread) for every entry from now on; records
        logged on ``thread`` (the session's loop) go to this subscriber only. Returns a token for
        :meth:`unsubscribe` and the recent entries, oldest first: none is missed, none repeated."""
        with self.lock:  # type: ignore[union-attr]
            token = next(self._tokens)
            self._subscribers[token] = deliver
            if thread is not None:
                self._threads[thread] = token
            return token, list(self._recent.values())

    def unsubscribe(self, token: int) -> None:
        with self.lock:  # type: ignore[union-attr]
            self._subscribers.pop(token, None)
            for thread in [thread for thread, owner in self._threads.items() if owner == token]:
                del self._threads[thread]

    @contextlib.contextmanager
    def serving(self, token: int) -> Iterator[None]:
        """While the block runs (a tool call of the session ``token``), this thread's records
        concern that session only."""
        thread = threading.get_ident()
        with self.lock:  # type: ignore[union-attr]
            self._threads[thread] = token
        try:
            yield
        finally:
            with self.lock:  # type: ignore[union-attr]
                if self._threads.get(thread) == token:
                    del self._threads[thread]

    def emit(self, record: logging.LogRecord) -> None:
        # Called with self.lock held (Handler.handle). Nothing here logs, and a failure loses only
        # this record for the clients: the server's own log has it.
        try:
            entry = client_entry(record)
            # Encoded once: what cannot be JSON raises here, never in a session's loop.
            key = orjson.dumps([entry.level, entry.logger, entry.data], option=orjson.OPT_SORT_KEYS)
            shared = any(record.name == name or record.name.startswith(name + ".") for name in SHARED_LOGGERS)
            owner = None if shared or record.thread is None else self._threads.get(record.thread)
            mine = self._subscribers.get(owner) if owner is not None else None
            if mine is not None:
                targets = [mine]
            else:
                self._remember(key, entry)
                targets = list(self._subscribers.values())
        except Exception:  # noqa: BLE001 - never let a client's log take a record's logger down
            return
        for deliver in targets:
            try:
                deliver(entry)
            except Exception:  # noqa: BLE001, S112 - one subscriber's failure is its own
                continue

    def _remember(self, key: bytes, entry: ClientLogEntry) -> None:
        self._recent.pop(key, None)
        self._recent[key] = entry
        if len(self._recent) > self._recent_max:
            del self._recent[next(iter(self._recent))]


_installed: ClientLogHandler | None = None


def install(logger_name: str = "mesh") -> ClientLogHandler:
    """The process's handler, on ``logger_name`` (added once; again if the handlers were replaced).

    A logger set above WARNING (``MESH_LOG=error``) is lowered to WARNING so that the clients get
    the server's warnings, and each of its handlers raised to the old level: what they write
    (stderr, the daemon's log) is unchanged. Only done for a logger that does not propagate, whose
    handlers are then all that sees its records."""
    global _installed
    if _installed is None:
        _installed = ClientLogHandler()
    logger = logging.getLogger(logger_name)
    if _installed not in logger.handlers:
        floor = logger.getEffectiveLevel()
        if floor > logging.WARNING and not logger.propagate:
            for handler in logger.handlers:
                handler.setLevel(max(handler.level, floor))
            logger.setLevel(logging.WARNING)
        logger.addHandler(_installed)
    return _installed
