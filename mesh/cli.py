"""The ``mesh-mcp`` command."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .audit import AuditLog
from .drivers.stdio import claim_stdout, serve_stdio
from .protocol import SessionConfig
from .tools import Registry, builtin_registry, load_plugins
from .tools._builtin import IndexSource
from .workspace import cache_dir, find_workspace

__all__ = ["main"]

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
        serve = commands.add_parser(
            name, help=help_text, description="Serve MCP on stdin/stdout.", formatter_class=_Formatter
        )
        serve.add_argument(
            "--workspace",
            type=Path,
            help="workspace folder (default: nearest ancestor with mesh.toml, else .git, else the current folder)",
        )
        serve.add_argument("--standalone", action="store_true", help="serve in this process, without the shared daemon")
        serve.add_argument(
            "--log-level",
            choices=LOG_LEVELS,
            type=str.lower,
            default=None,
            help="log level on stderr (default: $MESH_LOG, else warning)",
        )
    call = commands.add_parser(
        "call",
        help="run one tool and print its Markdown",
        description="Run one tool as an agent would and print its answer (Markdown) on stdout.",
        formatter_class=_Formatter,
    )
    call.add_argument("tool", metavar="TOOL", help="tool name, e.g. smart_search")
    call.add_argument("arguments", nargs="?", default="{}", metavar="JSON", help="the arguments, a JSON object")
    call.add_argument("--workspace", type=Path, help="workspace folder (default: as for mcp)")
    call.add_argument("--log-level", choices=LOG_LEVELS, type=str.lower, default=None, help="log level on stderr")
    audit = commands.add_parser(
        "audit",
        help="show recent tool calls from the audit log",
        description="Show the workspace's recent tool calls, newest first (from the audit log in its cache).",
        formatter_class=_Formatter,
    )
    audit.add_argument("directory", nargs="?", type=Path, metavar="DIR", help="workspace (default: as for mcp)")
    audit.add_argument("--limit", type=int, default=50, help="rows to show (default 50)")
    audit.add_argument("--tool", help="only calls of this tool")
    audit.add_argument("--trace-id", help="only calls with this W3C trace id (32 lowercase hex digits)")
    audit.add_argument("--json", action="store_true", help="print the rows as JSON")
    audit.add_argument("--log-level", choices=LOG_LEVELS, type=str.lower, default=None, help="log level on stderr")
    index = commands.add_parser(
        "index",
        help="build or refresh the workspace index",
        description="Build or refresh the index of a workspace (progress on stderr, a summary at the end).",
        formatter_class=_Formatter,
    )
    index.add_argument("directory", nargs="?", type=Path, metavar="DIR", help="workspace (default: as for mcp)")
    index.add_argument("--json", action="store_true", help="print the summary as JSON")
    index.add_argument("--workers", type=int, default=None, help="parser processes (default: one per core)")
    index.add_argument("--log-level", choices=LOG_LEVELS, type=str.lower, default=None, help="log level on stderr")
    return parser


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
    _setup_logging(args.log_level)
    if args.command == "index":
        from ._index_command import run_index

        if args.workers is not None and args.workers < 1:
            _complain("--workers must be at least 1")
            return 2
        return run_index(args.directory, as_json=args.json, workers=args.workers, stdout=sys.stdout, stderr=sys.stderr)
    if args.command == "audit":
        from ._audit_command import run_audit

        return run_audit(
            args.directory,
            limit=args.limit,
            tool=args.tool,
            trace_id=args.trace_id,
            as_json=args.json,
            stdout=sys.stdout,
            stderr=sys.stderr,
        )
    workspace = _workspace(args.workspace)
    if workspace is None:
        return 2
    plugins = [name.strip() for name in os.environ.get("MESH_TOOL_PLUGINS", "").split(",") if name.strip()]
    if args.command == "call":
        from ._call_command import run_call

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
            )
        finally:
            audit.close()
    out_fd = claim_stdout()
    from .index._live import LiveIndex

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
        code = serve_stdio(out_fd=out_fd, registry=registry, workspace=workspace, config=config, audit=audit)
    finally:
        live.close()
        audit.close()
    _exit_now(code)
    return code  # not reached


def _exit_now(code: int) -> None:
    """End the process without interpreter finalization.

    Every answer is written and every audit row committed by now. What may still run belongs to
    daemon threads: an index refresh, the watcher, a tool that ignored its cancellation.
    Finalization would stop them wherever they are, and a thread stopped inside native code
    (SQLite, RE2's C++, the watcher's Rust) can abort the whole process on its way out ("terminate
    called without an active exception", exit -6, was seen). The parse workers see their socket
    close and exit by themselves.
    """
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def open_audit(workspace: Path) -> AuditLog:
    """The workspace's audit log, with the retention of ``[audit]`` in mesh.toml (opened lazily)."""
    from .index import ConfigError, load_config

    try:
        config = load_config(workspace)
    except ConfigError as exc:
        log.warning("audit log: default retention (%s)", exc)
        return AuditLog(cache_dir(workspace))
    limits = {
        "retention_rows": config.audit_retention_rows,
        "retention_days": config.audit_retention_days,
    }
    return AuditLog(cache_dir(workspace), **{key: value for key, value in limits.items() if value is not None})


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
