"""What the serving commands share: the audit log with its configured retention, plugin loading
and ending the process without finalization."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ..workspace import cache_dir

if TYPE_CHECKING:
    from ..audit import AuditLog

__all__ = ["exit_now", "open_audit", "plugin_names"]

log = logging.getLogger("mesh.cli")


def plugin_names(environ: Mapping[str, str] | None = None) -> list[str]:
    """The modules named by ``MESH_TOOL_PLUGINS`` (comma-separated)."""
    environ = os.environ if environ is None else environ
    return [name.strip() for name in environ.get("MESH_TOOL_PLUGINS", "").split(",") if name.strip()]


def open_audit(workspace: Path) -> AuditLog:
    """The workspace's audit log, with the retention of ``[audit]`` in mesh.toml (opened lazily)."""
    from ..audit import AuditLog
    from ..index import ConfigError, load_config

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


def exit_now(code: int) -> None:
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
