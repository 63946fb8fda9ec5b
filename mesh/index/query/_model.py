"""The workspace model of one snapshot: services with their evidence, areas, external services and
the warnings of deployment manifests that could not be used (for ``index`` and ``doctor``)."""

from __future__ import annotations

import json
import sqlite3

import attrs

__all__ = ["Model", "ServiceRow", "workspace_model"]


@attrs.frozen
class ServiceRow:
    name: str
    path: str
    kind: str
    origin: str
    evidence: tuple[str, ...]
    extra: tuple[str, ...]
    files: int


@attrs.frozen
class Model:
    services: tuple[ServiceRow, ...]
    #: (path, reason)
    areas: tuple[tuple[str, str], ...]
    #: (name, what, evidence)
    externals: tuple[tuple[str, str, tuple[str, ...]], ...]
    #: (path, line, message)
    warnings: tuple[tuple[str, int, str], ...]


def workspace_model(db: sqlite3.Connection) -> Model:
    files = dict(db.execute("SELECT service, count(*) FROM files GROUP BY service").fetchall())
    services = tuple(
        ServiceRow(name, path, kind, origin, tuple(json.loads(evidence)), tuple(json.loads(extra)), files.get(name, 0))
        for name, path, kind, origin, evidence, extra in db.execute(
            "SELECT name, path, kind, origin, evidence, extra FROM services ORDER BY name"
        )
    )
    return Model(
        services=services,
        areas=tuple(db.execute("SELECT path, reason FROM areas ORDER BY path").fetchall()),
        externals=tuple(
            (name, what, tuple(json.loads(evidence)))
            for name, what, evidence in db.execute("SELECT name, what, evidence FROM externals ORDER BY name")
        ),
        warnings=tuple(db.execute("SELECT path, line, message FROM workspace_warnings ORDER BY path, line").fetchall()),
    )
