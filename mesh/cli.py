"""The ``mesh-mcp`` command."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .drivers.stdio import claim_stdout, serve_stdio
from .protocol import SessionConfig
from .tools import builtin_registry, load_plugins
from .workspace import find_workspace

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
    if args.workspace is not None:
        workspace = args.workspace.resolve()
        if not workspace.is_dir():
            _complain(f"--workspace {args.workspace}: not a folder")
            return 2
    else:
        workspace = find_workspace(Path.cwd())
    out_fd = claim_stdout()
    registry = builtin_registry()
    plugins = [name.strip() for name in os.environ.get("MESH_TOOL_PLUGINS", "").split(",") if name.strip()]
    try:
        load_plugins(registry, plugins)
    except (ImportError, AttributeError, ValueError, TypeError) as exc:
        _complain(f"MESH_TOOL_PLUGINS: {exc}")
        return 2
    config = SessionConfig(server_name="mesh-mcp", server_version=__version__)
    return serve_stdio(out_fd=out_fd, registry=registry, workspace=workspace, config=config)


if __name__ == "__main__":
    sys.exit(main())
