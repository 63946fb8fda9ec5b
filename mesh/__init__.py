"""mesh-mcp: a code-intelligence Model Context Protocol server for workspaces of many services."""

# The one place the version is written: pyproject.toml reads it from here (setuptools dynamic
# metadata), so start-up does not pay for importlib.metadata (~40 ms).
__version__ = "0.1.0"
