"""``mesh-mcp index [DIR]``: build or refresh a workspace's index, with progress and a summary."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TextIO

import attrs
import orjson

from ._common import open_index, workspace_of
from ..index import ConfigError, IndexUnavailable, Progress, Summary
from ..index.query._model import Model, workspace_model

__all__ = ["run_index"]

log = logging.getLogger("mesh.index")

#: How often a progress line is written when stderr is not a terminal.
PLAIN_EVERY_S = 2.0
SHOWN_FAILURES = 10


class ProgressBar:
    """Files parsed of total, rate and ETA on one redrawn line (a line every few seconds off a tty)."""

    def __init__(self, stream: TextIO, clock=time.monotonic) -> None:
        self.stream = stream
        self.clock = clock
        self.tty = stream.isatty()
        self.started = clock()
        self.last = -PLAIN_EVERY_S
        self.parse_started: float | None = None
        self.width = 0
        self.phase = ""

    def __call__(self, progress: Progress) -> None:
        now = self.clock()
        if progress.phase == "parsing" and self.parse_started is None:
            self.parse_started = now
        final = progress.phase in ("writing", "done")
        if progress.phase == "done" and self.phase == "writing":
            return  # already said
        fresh = progress.phase != self.phase
        self.phase = progress.phase
        if not (final or fresh) and now - self.last < (0.1 if self.tty else PLAIN_EVERY_S):
            return
        self.last = now
        self._draw(self.line(progress, now), final)

    def line(self, progress: Progress, now: float) -> str:
        if progress.phase == "walking":
            return "walking the workspace..."
        if progress.phase in ("writing", "done"):
            return f"parsed {progress.done} of {progress.total} files; writing the index..."
        elapsed = now - (now if self.parse_started is None else self.parse_started)
        rate = progress.done / elapsed if elapsed > 0 else 0.0
        left = (progress.total - progress.done) / rate if rate > 0 else None
        share = progress.done / progress.total if progress.total else 1.0
        filled = int(share * 30)
        eta = f"ETA {left:.0f}s" if left is not None else "ETA ?"
        return (
            f"[{'#' * filled}{'.' * (30 - filled)}] {progress.done}/{progress.total} files"
            f" {share:4.0%} {rate:6.0f} files/s {eta}"
        )

    def _draw(self, text: str, final: bool) -> None:
        if self.tty:
            self.stream.write("\r" + text.ljust(self.width) + ("\n" if final else ""))
            self.width = 0 if final else len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def render_summary(summary: Summary, root: Path) -> str:
    languages = ", ".join(f"{name} {count}" for name, count in summary.languages.items()) or "none"
    lines = [
        f"workspace   {root}",
        f"services    {summary.services}",
        (
            f"files       {summary.files} (parsed {summary.parsed}, unchanged {summary.unchanged},"
            f" deleted {summary.deleted}, skipped {summary.skipped})"
        ),
        f"languages   {languages}",
        f"symbols     {summary.symbols}",
        (
            f"gRPC        {summary.grpc_services} services, {summary.grpc_methods} methods,"
            f" {summary.grpc_implementations} implementations, {summary.grpc_clients} client calls"
        ),
        (
            f"HTTP        {summary.http_routes} routes, {summary.http_calls} calls ({summary.http_calls_linked} reach"
            f" a service, {summary.http_calls_computed} with a computed URL)"
        ),
        f"messaging   {summary.messages} producers and consumers",
        f"problems    {len(summary.failures)}",
    ]
    for path, error in summary.failures[:SHOWN_FAILURES]:
        lines.append(f"  {path}: {error}")
    if len(summary.failures) > SHOWN_FAILURES:
        lines.append(f"  ... and {len(summary.failures) - SHOWN_FAILURES} more (mesh-mcp index --json lists all)")
    lines.append(f"time        {summary.elapsed_s:.2f} s")
    return "\n".join(lines) + "\n"


def run_index(directory: Path | None, *, as_json: bool, workers: int | None, stdout: TextIO, stderr: TextIO) -> int:
    """The ``index`` command; returns the exit code (0 done, 1 the index cannot be kept, 2 bad input)."""
    root = workspace_of(directory, "index", stderr)
    if root is None:
        return 2
    index = open_index(root, "index", stderr, workers=workers)
    if index is None:
        return 1
    try:
        summary = index.refresh(progress=ProgressBar(stderr))
    except ConfigError as exc:
        stderr.write(f"mesh-mcp index: {exc}\n")
        return 2
    except IndexUnavailable as exc:
        stderr.write(f"mesh-mcp index: {exc}\n")
        return 1
    else:
        with index.store.snapshot() as db:
            model = workspace_model(db)
    finally:
        index.close()
    if as_json:
        data = {"workspace": str(root), **_plain(summary), "model": attrs.asdict(model)}
        stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
        stdout.write("\n")
    else:
        stdout.write(render_summary(summary, root))
        stdout.write(render_model(model))
    return 0


def render_model(model: Model) -> str:
    """Every service with the evidence it came from, then areas, external services and warnings."""
    lines = ["", "Services (name  folder  kind: evidence)"]
    for service in model.services:
        where = service.path or "."
        also = f" + {', '.join(service.extra)}" if service.extra else ""
        evidence = service.evidence[0] if service.evidence else service.origin
        more = f" (+{len(service.evidence) - 1} more)" if len(service.evidence) > 1 else ""
        lines.append(f"  {service.name}  {where}{also}  {service.kind or service.origin}: {evidence}{more}")
    if model.areas:
        lines.append("Areas (indexed, in no service): " + ", ".join(f"{path} ({reason})" for path, reason in model.areas))
    if model.externals:
        lines.append("External services (deployed, no source here):")
        lines += [f"  {name}  {what}: {evidence[0]}" for name, what, evidence in model.externals]
    if model.warnings:
        lines.append("Warnings:")
        lines += [f"  {path}:{line}: {message}" for path, line, message in model.warnings]
    return "\n".join(lines) + "\n"


def _plain(summary: Summary) -> dict:
    data = attrs.asdict(summary)
    data["failures"] = [{"path": path, "error": error} for path, error in summary.failures]
    return data
