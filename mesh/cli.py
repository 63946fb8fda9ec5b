"""The ``mesh-mcp`` command."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .commands._serve import exit_now, open_audit, plugin_names
from .workspace import find_workspace

# Everything else loads when a command needs it: the proxy (the default of `mcp`) needs no tools,
# no index and no protocol core, and its start-up is a client's wait for `initialize`.

__all__ = ["daemon_main", "main"]

log = logging.getLogger("mesh.cli")

LOG_LEVELS = ("debug", "info", "warning", "error")


class _Formatter(argparse.HelpFormatter):
    """Fixed width: the default asks the terminal, importing shutil (and bz2, lzma) at every start."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=100)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mesh-mcp", description="Code-intelligence MCP server.", formatter_class=_Formatter
    )
    parser.add_argument("--version", action="version", version=f"mesh-mcp {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, help_text in (("mcp", "serve MCP on stdin/stdout"), ("run", "alias of mcp")):
        serve = _command(commands, name, help_text, "Serve MCP on stdin/stdout.")
        serve.add_argument(
            "--workspace",
            type=Path,
            help="workspace folder (default: nearest ancestor with mesh.toml, else .git, else the current folder)",
        )
        serve.add_argument(
            "--standalone",
            action="store_true",
            help="serve in this process, without the workspace's shared daemon (meshd)",
        )
        _log_level(serve, "log level on stderr (default: $MESH_LOG, else warning)")
    _daemon_arguments(
        _command(
            commands,
            "daemon",
            "serve the workspace to every local session on a Unix socket (meshd)",
            "Serve the workspace on a Unix socket to every `mesh-mcp mcp` of this user (meshd).",
        )
    )
    call = _command(
        commands,
        "call",
        "run one tool and print its Markdown",
        "Run one tool as an agent would and print its answer (Markdown) on stdout.",
    )
    call.add_argument("tool", metavar="TOOL", help="tool name, e.g. smart_search")
    call.add_argument("arguments", nargs="?", default="{}", metavar="JSON", help="the arguments, a JSON object")
    call.add_argument("--workspace", type=Path, help="workspace folder (default: as for mcp)")
    call.add_argument(
        "--json", action="store_true", help="print the structured result (canonical JSON), not the Markdown"
    )
    _log_level(call)
    audit = _command(
        commands,
        "audit",
        "show recent tool calls from the audit log",
        "Show the workspace's recent tool calls, newest first (from the audit log in its cache).",
        directory=True,
    )
    audit.add_argument("--limit", type=int, default=50, help="rows to show (default 50)")
    audit.add_argument("--tool", help="only calls of this tool")
    audit.add_argument("--trace-id", help="only calls with this W3C trace id (32 lowercase hex digits)")
    audit.add_argument("--json", action="store_true", help="print the rows as JSON")
    index = _command(
        commands,
        "index",
        "build or refresh the workspace index",
        "Build or refresh the index of a workspace (progress on stderr, a summary at the end).",
        directory=True,
    )
    index.add_argument("--json", action="store_true", help="print the summary as JSON")
    index.add_argument("--workers", type=int, default=None, help="parser processes (default: one per core)")
    graph = _command(
        commands,
        "graph",
        "draw the service graph of the workspace",
        "Refresh the index, then print the services and their import and gRPC edges "
        "(Mermaid by default; JSON; or one self-contained HTML page).",
        directory=True,
    )
    graph.add_argument(
        "--format", choices=("mermaid", "json", "html"), default="mermaid", help="output format (default: mermaid)"
    )
    graph.add_argument("--out", type=Path, metavar="FILE", help="write to FILE (replaced atomically), not stdout")
    doctor = _command(
        commands,
        "doctor",
        "check that everything mesh-mcp needs is in place",
        "Check the workspace, its cache and socket folders, the daemon, the index, the parsers and SQLite.",
        directory=True,
    )
    doctor.add_argument("--json", action="store_true", help="print the checks as JSON")
    http = _command(
        commands,
        "http",
        "serve MCP over Streamable HTTP",
        "Serve MCP over Streamable HTTP at http://HOST:PORT/mcp (the URL is printed on stdout). Beyond "
        "this machine a bearer token is required: MESH_HTTP_TOKEN.",
    )
    http.add_argument("--workspace", type=Path, help="workspace folder (default: as for mcp)")
    http.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    http.add_argument("--port", type=int, default=8765, help="port to listen on; 0 for any free one (default: 8765)")
    http.add_argument("--standalone", action="store_true", help="run sessions in this process, not on the daemon")
    _log_level(http, "log level on stderr (default: $MESH_LOG, else warning)")
    return parser


def _command(
    commands: argparse._SubParsersAction, name: str, help_text: str, description: str, *, directory: bool = False
) -> argparse.ArgumentParser:
    """A sub-command; with ``directory``, its optional ``DIR`` and ``--log-level`` too."""
    parser = commands.add_parser(name, help=help_text, description=description, formatter_class=_Formatter)
    if directory:
        parser.add_argument("directory", nargs="?", type=Path, metavar="DIR", help="workspace (default: as for mcp)")
        _log_level(parser)
    return parser


def _log_level(parser: argparse.ArgumentParser, help_text: str = "log level on stderr") -> None:
    parser.add_argument("--log-level", choices=LOG_LEVELS, type=str.lower, default=None, help=help_text)


def _daemon_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", type=Path, help="workspace folder (default: as for mcp)")
    parser.add_argument(
        "--idle-exit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="exit after this long without a client; 0 never (default: $MESH_DAEMON_IDLE_S, "
        "else [daemon] idle_exit_s in mesh.toml, else 900)",
    )
    _log_level(parser, "level of the log (meshd.log in the workspace's cache folder; default: $MESH_LOG, else info)")


def daemon_main(argv: Sequence[str] | None = None) -> int:
    """The ``meshd`` command: ``mesh-mcp daemon`` under its own name."""
    parser = argparse.ArgumentParser(
        prog="meshd",
        description="Serve a workspace on a Unix socket to every `mesh-mcp mcp` of this user.",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"meshd {__version__}")
    _daemon_arguments(parser)
    return _run_daemon(parser.parse_args(argv))


def _run_daemon(args: argparse.Namespace) -> int:
    from .commands.daemon import run_daemon

    if args.idle_exit is not None and args.idle_exit < 0:
        _complain("--idle-exit must be 0 or more seconds")
        return 2
    workspace = _workspace(args.workspace)
    if workspace is None:
        return 2
    level = (args.log_level or os.environ.get("MESH_LOG") or "info").lower()
    if level not in LOG_LEVELS:
        level = "info"
    try:
        code = run_daemon(workspace, idle_exit_s=args.idle_exit, log_level=level, stderr=sys.stderr)
    except Exception:  # logged, then the same quick exit: finalization would abort on running threads
        log.exception("meshd failed")
        code = 1
    exit_now(code)
    return code  # not reached


def _complain(message: str) -> None:
    """A one-line usage problem, on stderr (stdout belongs to the protocol)."""
    sys.stderr.write(f"mesh-mcp: {message}\n")


def _setup_logging(level_name: str | None) -> None:
    level_name = (level_name or os.environ.get("MESH_LOG") or "warning").lower()
    if level_name not in LOG_LEVELS:
        _complain(f"MESH_LOG={level_name!r} is not one of {', '.join(LOG_LEVELS)}; using warning")
        level_name = "warning"
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("mesh")
    root.handlers[:] = [handler]
    root.setLevel(level_name.upper())
    root.propagate = False


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "daemon":
        return _run_daemon(args)
    _setup_logging(args.log_level)
    if args.command == "index":
        from .commands.index import run_index

        if args.workers is not None and args.workers < 1:
            _complain("--workers must be at least 1")
            return 2
        return run_index(args.directory, as_json=args.json, workers=args.workers, stdout=sys.stdout, stderr=sys.stderr)
    if args.command == "graph":
        from .commands.graph import run_graph

        return run_graph(args.directory, args.format, args.out, stdout=sys.stdout, stderr=sys.stderr)
    if args.command == "audit":
        from .commands.audit import run_audit

        return run_audit(
            args.directory,
            limit=args.limit,
            tool=args.tool,
            trace_id=args.trace_id,
            as_json=args.json,
            stdout=sys.stdout,
            stderr=sys.stderr,
        )
    if args.command == "doctor":
        from .commands.doctor import run_doctor

        return run_doctor(args.directory, as_json=args.json, stdout=sys.stdout, stderr=sys.stderr)
    workspace = _workspace(args.workspace)
    if workspace is None:
        return 2
    plugins = plugin_names()
    if args.command == "http":
        from .commands.http import run_http

        if not 0 <= args.port <= 65535:
            _complain("--port must be 0 to 65535")
            return 2
        exit_now(run_http(workspace, host=args.host, port=args.port, standalone=args.standalone, stdout=sys.stdout))
    if args.command == "call":
        from .commands.call import run_call
        from .tools import Registry, builtin_registry, load_plugins
        from .tools._builtin import IndexSource

        def registry_for(source: IndexSource) -> Registry:
            registry = builtin_registry(source)
            load_plugins(registry, plugins)
            return registry

        try:
            load_plugins(Registry(), plugins)  # a bad plugin is a usage error, named before any work
        except (ImportError, AttributeError, ValueError, TypeError) as exc:
            _complain(f"MESH_TOOL_PLUGINS: {exc}")
            return 2
        audit = open_audit(workspace)
        try:
            return run_call(
                args.tool,
                args.arguments,
                workspace,
                registry_for=registry_for,
                stdout=sys.stdout,
                stderr=sys.stderr,
                audit=audit,
                json_output=args.json,
            )
        finally:
            audit.close()
    from .drivers._stdout import claim_stdout

    out_fd = claim_stdout()
    if not args.standalone:
        from .drivers.proxy import DaemonUnavailable, open_daemon, run_proxy

        try:
            link = open_daemon(workspace)
        except DaemonUnavailable as exc:
            log.warning("serving this session standalone: the shared daemon is not available (%s)", exc)
        else:
            exit_now(run_proxy(link, out_fd=out_fd))
    exit_now(_serve_standalone(workspace, out_fd, plugins))
    return 0  # not reached


def _serve_standalone(workspace: Path, out_fd: int, plugins: list[str]) -> int:
    from .drivers.stdio import serve_stdio
    from .index.build._live import LiveIndex
    from .protocol import SessionConfig
    from .tools import builtin_registry, load_plugins

    live = LiveIndex(workspace)
    registry = builtin_registry(live)
    try:
        load_plugins(registry, plugins)
    except (ImportError, AttributeError, ValueError, TypeError) as exc:
        _complain(f"MESH_TOOL_PLUGINS: {exc}")
        return 2
    live.start()
    audit = open_audit(workspace)
    config = SessionConfig(server_name="mesh-mcp", server_version=__version__)
    try:
        return serve_stdio(out_fd=out_fd, registry=registry, workspace=workspace, config=config, audit=audit)
    finally:
        live.close()
        audit.close()


def _workspace(given: Path | None) -> Path | None:
    """The workspace folder: ``--workspace`` (must be a folder), else found from the current one."""
    if given is None:
        return find_workspace(Path.cwd())
    workspace = given.resolve()
    if not workspace.is_dir():
        _complain(f"--workspace {given}: not a folder")
        return None
    return workspace


if __name__ == "__main__":
    sys.exit(main())
