"""mesh-mcp: a code-intelligence Model Context Protocol server for workspaces of many services."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mesh-mcp")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
