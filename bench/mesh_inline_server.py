"""Diagnostic only: mesh-mcp's sans-IO session core driven by a plain blocking loop.

Same session, same registry, same tools as ``python -m mesh mcp``, but no ConnectionPump: blocking
``os.read`` / ``os.write``, no ``poll``, no worker pool, no wake-up pipe; a ``tools/call`` runs
inline. The difference between this and the real server is the cost of the driver; the difference
between this and ``bare_server.py`` is the cost of the protocol core (and registry) itself.

Not a product, not a proposed fix: a measuring stick for ``bench/run.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

from mesh import __version__
from mesh.drivers.stdio import catalogue
from mesh.protocol import ServerSession, SessionClosed, SessionConfig, ToolCallRequested, ToolResult
from mesh.tools import builtin_registry, load_plugins


def main() -> None:
    registry = builtin_registry()
    load_plugins(registry, [n.strip() for n in os.environ.get("MESH_TOOL_PLUGINS", "").split(",") if n.strip()])
    session = ServerSession(SessionConfig(server_name="mesh-mcp", server_version=__version__), catalogue(registry))
    workspace = Path.cwd()

    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(1, view):]

    while True:
        event = session.next_event()
        if isinstance(event, ToolCallRequested):
            out = registry.call(event.name, event.arguments, event.meta, workspace=workspace)
            session.complete(event.request_id, ToolResult(out.text, out.is_error, out.structured))
            continue
        data = session.data_to_send()
        if data:
            write(data)
        if isinstance(event, SessionClosed):
            return
        session.receive_data(os.read(0, 64 * 1024))  # b"" is EOF


if __name__ == "__main__":
    main()
