"""The stdio driver: one MCP session over this process's stdin and stdout.

Only the writer thread touches the protocol stream. At start the real stdout is duplicated to a
private descriptor, and file descriptor 1 and ``sys.stdout`` are both pointed at stderr, so a stray
``print`` (or a C library writing to fd 1, or a child process inheriting it) lands in the log, never
in the middle of a frame.
"""

from __future__ import annotations

import logging
import os
import signal
import uuid
from pathlib import Path
from types import FrameType

from ..audit import AuditLog
from ..protocol import ServerSession, SessionConfig, ToolSpec
from ..tools import Registry
from ._client_log import install as install_client_log
from ._pump import ConnectionPump
from ._stdout import claim_stdout
from ._workers import WorkerPool

__all__ = ["catalogue", "claim_stdout", "serve_stdio"]

log = logging.getLogger("mesh.stdio")


def catalogue(registry: Registry) -> list[ToolSpec]:
    """The protocol's view of the registry: names, descriptions and derived schemas (the input's, and
    the structured result's for a tool that declares one)."""
    return [
        ToolSpec(
            name=tool.name,
            description=tool.description,
            input_schema=registry.schema(tool.name),
            title=tool.title,
            annotations=tool.annotations,
            output_schema=registry.output_schema(tool.name),
        )
        for tool in registry
    ]


def serve_stdio(
    *,
    out_fd: int,
    registry: Registry,
    workspace: Path,
    config: SessionConfig,
    workers: int = 4,
    shutdown_grace_s: float = 5.0,
    audit: AuditLog | None = None,
) -> int:
    """Serve MCP on stdin and ``out_fd`` (from :func:`claim_stdout`) until EOF or a stop signal.

    Returns the exit code.
    """
    session = ServerSession(config, catalogue(registry))
    pool = WorkerPool(workers)
    pump = ConnectionPump(
        session=session,
        registry=registry,
        workspace=workspace,
        in_fd=0,
        out_fd=out_fd,
        workers=pool,
        name="stdio",
        shutdown_grace_s=shutdown_grace_s,
        audit=audit,
        session_id=f"stdio-{os.getpid()}-{uuid.uuid4().hex[:8]}",
        client_log=install_client_log(),
    )

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        pump.request_stop(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    # Whichever thread the kernel hands a signal to, this byte wakes the loop's poll.
    previous_wakeup = signal.set_wakeup_fd(pump.wake_fd, warn_on_full_buffer=False)
    log.info("serving %s on stdio (%d tools)", workspace, len(registry))
    try:
        code = pump.run()
    finally:
        signal.set_wakeup_fd(previous_wakeup)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        pump.close()
    log.info("session ended (era %s, version %s), exit %d", session.era.value, session.protocol_version or "-", code)
    # Workers are daemon threads: one still running a tool that ignored its cancellation
    # (pump.abandoned) does not hold the process open.
    pool.shutdown()
    return code
