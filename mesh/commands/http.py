"""``mesh-mcp http``: serve MCP over Streamable HTTP, on ``http://HOST:PORT/mcp``.

Start-up, each step before the next can go wrong:

1. the security policy: a bearer token (``MESH_HTTP_TOKEN``, at least ``TOKEN_CHARS_MIN``
   characters) is required to listen beyond this machine (refused without one, exit 2), and
   ``MESH_HTTP_ORIGINS`` names the web origins allowed beside loopback ones;
2. the listening socket (exit 1 when the address cannot be had: in use, not ours);
3. where sessions run: the workspace's daemon, started when none runs, so that every session
   shares its live index; or, with ``--standalone`` or when the daemon cannot be reached (said in
   one warning), this process with an index of its own, as ``mesh-mcp mcp --standalone``;
4. the URL on stdout (one line: scripts and tests read the port from it), then serving until
   SIGTERM or SIGINT.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import signal
import socket
from collections.abc import Mapping
from pathlib import Path
from types import FrameType
from typing import Any, Final, TextIO

from .. import __version__
from ._serve import open_audit, plugin_names

__all__ = ["DEFAULT_PORT", "TOKEN_CHARS_MIN", "run_http"]

log = logging.getLogger("mesh.http")

DEFAULT_PORT: Final = 8765
#: A shorter token is refused: it would not stand against guessing.
TOKEN_CHARS_MIN: Final = 16


class UsageError(Exception):
    """A bad option or environment variable: one line on stderr, exit 2."""


def run_http(
    workspace: Path,
    *,
    host: str,
    port: int,
    standalone: bool,
    stdout: TextIO,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Serve ``workspace`` over Streamable HTTP until stopped; the exit code."""
    from ..drivers.http import HttpServer, listen
    from ..tools import Registry, load_plugins

    environ = os.environ if environ is None else environ
    try:
        policy = http_policy(host, environ)
        limits, endpoint = http_limits(environ)
    except UsageError as exc:
        log.error("%s", exc)
        return 2
    plugins = plugin_names(environ)
    try:
        load_plugins(Registry(), plugins)  # a bad plugin is a usage error, named before any work
    except (ImportError, AttributeError, ValueError, TypeError) as exc:
        log.error("MESH_TOOL_PLUGINS: %s", exc)
        return 2
    bind_host = "127.0.0.1" if host == "localhost" else host
    try:
        listener = listen(bind_host, port)
    except OSError as exc:
        log.error("cannot listen on %s port %d: %s", host, port, exc.strerror or exc)
        return 1
    owned: list[Any] = []  # closed on the way out, last first
    try:
        sessions = None if standalone else _daemon_sessions(workspace, environ)
        where = "sessions on the workspace's daemon"
        if sessions is None:
            sessions = _local_sessions(workspace, plugins, owned)
            where = "sessions in this process"
        owned.append(sessions)
        server = HttpServer(listener=listener, sessions=sessions, policy=policy, limits=limits, endpoint=endpoint)

        def on_signal(signum: int, _frame: FrameType | None) -> None:
            server.request_stop(signal.Signals(signum).name)

        previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
        previous_wakeup = signal.set_wakeup_fd(server.wake_fd, warn_on_full_buffer=False)
        try:
            url = _url(bind_host, server.address[1])
            stdout.write(url + "\n")
            stdout.flush()
            token = "a bearer token required" if policy.token else "no token: this machine only"
            log.info("mesh-mcp %s serving %s at %s (%s; %s)", __version__, workspace, url, where, token)
            return server.run()
        finally:
            signal.set_wakeup_fd(previous_wakeup)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    finally:
        for thing in reversed(owned):
            thing.close()


def http_policy(host: str, environ: Mapping[str, str]) -> Any:
    """Who may talk to a server listening on ``host``; :class:`UsageError` when it must not start."""
    from ..drivers._http_rules import Policy

    token = environ.get("MESH_HTTP_TOKEN") or None
    loopback = is_loopback(host)
    if token is not None:
        if len(token) < TOKEN_CHARS_MIN or token != token.strip() or not token.isprintable():
            raise UsageError(
                f"MESH_HTTP_TOKEN must be at least {TOKEN_CHARS_MIN} printable characters without surrounding "
                "spaces (for instance: python3 -c 'import secrets; print(secrets.token_urlsafe(32))')"
            )
    elif not loopback:
        raise UsageError(
            f"refusing to listen on {host}, beyond this machine, without a bearer token: "
            "set MESH_HTTP_TOKEN (and serve it behind TLS), or listen on 127.0.0.1"
        )
    origins = set()
    for item in (environ.get("MESH_HTTP_ORIGINS") or "").split(","):
        origin = item.strip().lower().rstrip("/")
        if not origin:
            continue
        scheme, sep, rest = origin.partition("://")
        if not sep or scheme not in ("http", "https") or not rest or "/" in rest:
            raise UsageError(f"MESH_HTTP_ORIGINS: {item.strip()!r} is not an origin (scheme://host[:port])")
        origins.add(origin)
    return Policy(loopback=loopback, token=token, origins=frozenset(origins))


#: Timeouts an operator may change (seconds): variable -> (what it bounds, where it goes).
TIMEOUT_VARIABLES: Final = {
    "MESH_HTTP_REQUEST_S": ("request_s", "limits"),
    "MESH_HTTP_IDLE_S": ("idle_s", "limits"),
    "MESH_HTTP_WRITE_S": ("write_s", "limits"),
    "MESH_HTTP_KEEPALIVE_S": ("keepalive_s", "endpoint"),
    "MESH_HTTP_STREAM_IDLE_S": ("stream_idle_s", "endpoint"),
    "MESH_HTTP_SESSION_IDLE_S": ("session_idle_s", "endpoint"),
}
#: No timeout is longer (about 115 days): every one of them must end some day.
TIMEOUT_S_MAX: Final = 1e7


def http_limits(environ: Mapping[str, str]) -> tuple[Any, Any]:
    """The server's limits and endpoint settings, with the ``MESH_HTTP_*_S`` timeouts applied."""
    import attrs

    from ..drivers._http_endpoint import EndpointConfig
    from ..drivers.http import HttpLimits

    given: dict[str, dict[str, float]] = {"limits": {}, "endpoint": {}}
    for variable, (field, where) in TIMEOUT_VARIABLES.items():
        text = environ.get(variable)
        if not text:
            continue
        try:
            seconds = float(text)
        except ValueError:
            seconds = float("nan")
        if not 0 < seconds <= TIMEOUT_S_MAX:  # NaN fails too
            raise UsageError(
                f"{variable} must be a number of seconds above 0, at most {TIMEOUT_S_MAX:g} (not {text!r})"
            )
        given[where][field] = seconds
    return attrs.evolve(HttpLimits(), **given["limits"]), attrs.evolve(EndpointConfig(), **given["endpoint"])


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback one (``0.0.0.0`` and ``::`` are not)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in infos)


def _daemon_sessions(workspace: Path, environ: Mapping[str, str]) -> Any:
    """Sessions on the workspace's daemon (started when none runs); None when it cannot be had."""
    from ..drivers.http import DaemonSessions
    from ..drivers.proxy import DaemonUnavailable, open_daemon

    try:
        link = open_daemon(workspace, environ=environ)
    except DaemonUnavailable as exc:
        log.warning("serving sessions in this process: the shared daemon is not available (%s)", exc)
        return None
    log.info("sessions go to meshd (pid %d), which keeps the workspace's live index", link.hello.pid)
    return DaemonSessions(workspace, keepalive=link, environ=dict(environ))


def _local_sessions(workspace: Path, plugins: list[str], owned: list[Any]) -> Any:
    from ..drivers.http import LocalSessions
    from ..index.build._live import LiveIndex
    from ..protocol import SessionConfig
    from ..tools import builtin_registry, load_plugins

    live = LiveIndex(workspace, refresh_delay_s=0.0)  # long-lived: refresh at once, as the daemon does
    owned.append(live)
    registry = builtin_registry(live)
    load_plugins(registry, plugins)
    live.start()
    audit = open_audit(workspace)
    owned.append(audit)
    config = SessionConfig(server_name="mesh-mcp", server_version=__version__)
    return LocalSessions(registry=registry, workspace=workspace, config=config, audit=audit)


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/mcp"
