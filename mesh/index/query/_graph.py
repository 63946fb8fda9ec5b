"""The dependency graph of one snapshot: who depends on a file, a module, a symbol or a contract.

Theory of operation
-------------------
**Targets.** :func:`resolve_target` reads what an agent named and tries these readings in order;
the first that matches wins:

1. a service of the ``services`` table (``orders``);
2. an indexed file, then a folder holding indexed files (workspace-relative paths);
3. an RPC: ``package.Service/Method``, ``Service/Method`` or ``package.Service.Method``;
4. a proto message, enum or service by its full name (``acme.common.v1.Money``,
   ``acme.orders.v1.Order.Item``, ``acme.orders.v1.Orders``), then a proto package (``acme.orders.v1``:
   every ``.proto`` declaring it);
5. a module as some file imports it, exactly, else as a prefix ending at a separator
   (``com.acme.payments.v1`` covers ``com.acme.payments.v1.ChargeRequest``): the files and folders its
   imports resolved to, and for imports that resolved to nothing (third-party), their importers;
6. a proto message, enum or service by its short name (``Money``, ``Item``);
7. a symbol of ``defs`` outside ``.proto`` files, ``Name`` or ``Container.name`` (case as written):
   its dependents are the files importing the file that defines it.

A reading that matches several different things (a symbol defined in two files, a short name in two
proto packages) is a :class:`GraphError` listing the candidates and how to pick one; no reading at
all is a :class:`GraphError` with near names.

**Edges.** File B depends on file A when

- an import of B resolved to A or to A's folder (``imports.target_path``, filled by ``_resolve``:
  relative paths, Go packages, generated code tied to its ``.proto``, Markdown links);
- gRPC: A is a ``.proto`` defining service S and B has any gRPC fact of S (a client or a call, a
  server or a handler), or A serves S (SERVER or HANDLER facts) and B has a client or a call of S,
  all matched by ``service_key``. The evidence of such an edge is every call of S in B (its clients
  when it makes no call), or every SERVER fact (its HANDLERs when it has none).

A symbol's dependents are those of the file defining it: the text is not searched for uses.
A document (``files.kind = 'docs'``) is shown when it links a dependency but carries nothing
further: it is never expanded to the next level.

Contracts have finer edges, used for the first hop from a proto message, an RPC, a proto service, a
proto package or a ``.proto`` file (whose every message counts):

- a message M is used by proto fields and RPC signatures naming it (written types resolved with
  protobuf's scoping; a ``.proto`` that defines M itself, such as a copy, uses its own), by code
  importing the generated code of a file defining M (an import that names only other messages or
  services of that file does not count), and by the calls and handlers of RPCs taking or returning M;
- an RPC is used by its calls and its handlers; a proto service by its clients, calls, servers and
  handlers.

**Levels.** Level 1 is the first hop from the target, level k+1 the files not yet seen that depend
on a level-k file through file edges: one batched query per table and level, each through an
index (``imports_target``, ``grpc_service_key``, ``grpc_method_key``, ``grpc_file``, ``files.path``).
The target's own files are never dependents (for a folder or a service, nothing inside it). A
dependent keeps every edge of its own level, sorted: its evidence, the last hop of its chain.

**Impact.** :func:`impact_of` sorts dependents into the columns of ``impact_matrix`` per service:
direct import (level 1 through an import), transitive (level 2 or more, through any edge), gRPC
(level 1 through a call or a serve: serving a changed RPC counts as calling it), message (level 1
through a message use), tests (``files.kind = 'test'``, any level); a dependent may count in several.
A service is impacted when it holds a dependent (the changed service too, then), impacted via gRPC
when one of its dependents was reached through a gRPC fact, at any level. The changed files'
services are rows even when nothing in them depends on the change.

Everything returned is sorted (services by name, the files of no service last, then level, then
path), never in set order.
"""

from __future__ import annotations

import posixpath
import re
import json
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Final

import attrs

__all__ = [
    "MAX_DEPTH",
    "Dependent",
    "Edge",
    "EdgeKind",
    "Found",
    "GraphError",
    "Impact",
    "ImpactRow",
    "Location",
    "Scope",
    "Target",
    "find_dependents",
    "impact_of",
    "resolve_file",
    "resolve_scope",
    "resolve_target",
    "type_names",
]

MAX_DEPTH: Final = 5
#: Values bound per ``IN (...)`` query.
BATCH: Final = 500
#: Candidates listed in an ambiguity, names suggested for an unknown target.
CANDIDATES_MAX: Final = 12
SUGGESTIONS_MAX: Final = 6


class GraphError(ValueError):
    """A target or scope that names nothing, or several things; the message says what to send instead."""


class EdgeKind:
    """Why a dependent depends (plain strings)."""

    #: It imports the file or folder (or a module that resolves to nothing in the workspace).
    IMPORT = "import"
    #: It creates a client of, or calls, a service or RPC of the target.
    CALL = "call"
    #: It serves (SERVER or HANDLER) a service or RPC the target defines.
    SERVE = "serve"
    #: It uses a message of the target: a proto field or RPC signature, an import naming it, or a
    #: call or handler of an RPC taking or returning it.
    MESSAGE = "message"


#: Among the edges of one line, the one that says most comes first.
_KIND_ORDER: Final = {EdgeKind.MESSAGE: 0, EdgeKind.CALL: 1, EdgeKind.SERVE: 2, EdgeKind.IMPORT: 3}
_GRPC_ROLES: Final = frozenset({"client", "call", "server", "handler"})


@attrs.frozen
class Edge:
    """One piece of evidence: the line of the dependent that makes it depend."""

    kind: str
    #: import | client | call | server | handler | field | request | response
    role: str
    #: The line in the dependent.
    line: int
    #: What that line names: the module as written, an RPC (``pkg.Service/Method``), a service key,
    #: a proto field (``Order.total``) or an RPC of the dependent's own ``.proto``.
    what: str
    #: The file or folder it depends on through this edge ("" when the edge names an entity).
    via: str = ""
    #: The message a message use is about (full name), else "".
    about: str = ""

    @property
    def grpc(self) -> bool:
        """The edge comes from a gRPC fact (a client, call, server or handler)."""
        return self.role in _GRPC_ROLES

    def order(self) -> tuple:
        return (self.line, _KIND_ORDER[self.kind], self.role, self.what, self.via, self.about)


@attrs.frozen
class Dependent:
    path: str
    service: str
    #: ``files.kind``: code, test, proto, docs, config or other.
    kind: str
    #: 1 for a direct dependent, k for one k hops away.
    level: int
    #: Every edge of its level, by line (on one line, a message use first): the first is the one to show.
    edges: tuple[Edge, ...]

    def order(self) -> tuple[bool, str, int, str]:
        return (not self.service, self.service, self.level, self.path)  # areas and root files last


@attrs.frozen(order=True)
class Location:
    path: str
    #: 0 for a whole file or folder.
    line: int = 0
    service: str = ""


@attrs.frozen
class Target:
    """What a target text was read as, and where its dependents are looked for."""

    #: file | folder | service | module | symbol | proto message | proto enum | proto service | rpc |
    #: proto package
    kind: str
    #: The canonical name (a path, a full proto name, an RPC key, the text for a module or symbol).
    name: str
    #: Where it is defined or what it resolves to, sorted.
    defined: tuple[Location, ...]
    #: (service, number of the target's files in it), by service: the "changed" column.
    owners: tuple[tuple[str, int], ...]
    #: A word about the target ("class", "3 files"...), "" when none.
    detail: str = ""
    #: Other readings of the same text, as (kind, location) notes for the agent.
    also: tuple[str, ...] = ()
    # -- where the first hop starts ---------------------------------------------------------------
    #: Files whose dependents are wanted (file edges).
    files: tuple[str, ...] = ()
    #: Folders whose files are the target (imports into them, services defined or served in them).
    folders: tuple[str, ...] = ()
    #: A workspace service whose files are the target (with its folder in ``folders``).
    service: str = ""
    #: The area (a folder holding no service: docs, CI, shared protos...) holding the target, if any.
    area: str = ""
    #: Modules imported but resolved to no file: their importers are dependents.
    modules: tuple[str, ...] = ()
    #: Proto services (``package.Service``) whose clients, calls, servers and handlers are dependents.
    grpc_services: tuple[str, ...] = ()
    #: RPCs (``package.Service/Method``) whose calls and handlers are dependents.
    rpcs: tuple[str, ...] = ()
    #: Messages (full names) whose uses are dependents, and the files defining them.
    messages: tuple[str, ...] = ()
    message_files: tuple[str, ...] = ()


@attrs.frozen
class Found:
    targets: tuple[Target, ...]
    depth: int
    #: Sorted by service (files of no service last), level, path.
    dependents: tuple[Dependent, ...]


@attrs.frozen
class Scope:
    """Which dependents to show: one service, or the files under a path."""

    #: As the agent wrote it.
    text: str
    service: str | None = None
    prefix: str | None = None

    def holds(self, path: str, service: str) -> bool:
        if self.service is not None:
            return service == self.service
        assert self.prefix is not None
        return path == self.prefix or path.startswith(self.prefix + "/")


# -- queries ----------------------------------------------------------------------------------------


def _batched(db: sqlite3.Connection, sql: str, values: Iterable[str], *extra: Any) -> Iterator[tuple]:
    """Rows of ``sql`` (holding ``{marks}`` for the ``IN`` list, bound first) over ``values`` in batches."""
    ordered = sorted(set(values))
    for start in range(0, len(ordered), BATCH):
        chunk = ordered[start : start + BATCH]
        yield from db.execute(sql.format(marks=", ".join("?" * len(chunk))), (*chunk, *extra))


def _under(column: str, folder: str) -> tuple[str, tuple[str, ...]]:
    """A condition (and its parameters) on ``column`` holding ``folder`` or a path under it; an index
    range: ``/`` sorts just before ``0``."""
    if not folder:
        return "1", ()
    return f"({column} = ? OR ({column} > ? AND {column} < ?))", (folder, folder + "/", folder + "0")


def _full(package: str, name: str) -> str:
    return f"{package}.{name}" if package else name


def _is_file(db: sqlite3.Connection, path: str) -> tuple[str, str, str] | None:
    row = db.execute("SELECT service, kind, language FROM files WHERE path = ?", (path,)).fetchone()
    return None if row is None else (row[0], row[1], row[2])


def _is_folder(db: sqlite3.Connection, folder: str) -> bool:
    row = db.execute("SELECT 1 FROM files WHERE path > ? AND path < ? LIMIT 1", (folder + "/", folder + "0"))
    return folder != "" and row.fetchone() is not None


def _services(db: sqlite3.Connection) -> list[str]:
    return [name for (name,) in db.execute("SELECT name FROM services ORDER BY name")]


@attrs.frozen
class _Hit:
    path: str
    service: str
    kind: str
    edge: Edge


_IMPORTERS: Final = (
    "SELECT f.path, f.service, f.kind, i.line, i.module, i.target_path FROM imports i"
    " JOIN files f ON f.id = i.file_id WHERE i.target_path IN ({marks})"
)
_GRPC_OF_SERVICES: Final = (
    "SELECT f.path, f.service, f.kind, g.role, g.line, g.service_key, g.method_key FROM grpc g"
    " JOIN files f ON f.id = g.file_id WHERE g.service_key IN ({marks})"
)
_GRPC_OF_METHODS: Final = (
    "SELECT f.path, f.service, f.kind, g.role, g.line, g.service_key, g.method_key FROM grpc g"
    " JOIN files f ON f.id = g.file_id WHERE g.method_key IN ({marks}) AND g.role IN ('call', 'handler')"
)


def _import_hits(rows: Iterable[tuple]) -> list[_Hit]:
    return [
        _Hit(path, service, kind, Edge(EdgeKind.IMPORT, "import", line, module, via=target or ""))
        for path, service, kind, line, module, target in rows
    ]


def _file_edges(db: sqlite3.Connection, files: dict[str, str]) -> list[_Hit]:
    """The files depending on ``files`` (path -> kind) through one file edge."""
    keys = set(files) | {posixpath.dirname(path) for path in files} - {""}
    hits = _import_hits(_batched(db, _IMPORTERS, keys))
    defined: dict[str, str] = {}
    protos = [path for path, kind in files.items() if kind == "proto"]
    for package, name, path in _batched(
        db,
        "SELECT ps.package, ps.name, f.path FROM proto_services ps JOIN files f ON f.id = ps.file_id"
        " WHERE f.path IN ({marks})",
        protos,
    ):
        key = _full(package, name)
        defined[key] = min(defined.get(key, path), path)
    served: dict[str, str] = {}
    for key, path in _batched(
        db,
        "SELECT g.service_key, f.path FROM grpc g JOIN files f ON f.id = g.file_id WHERE f.path IN ({marks})"
        " AND g.role IN ('server', 'handler') AND g.service_key IS NOT NULL",
        files,
    ):
        served[key] = min(served.get(key, path), path)
    return hits + _grpc_hits(db, defined, served)


def _range_edges(db: sqlite3.Connection, folder: str, service: str) -> list[_Hit]:
    """The files depending on the files under ``folder`` (of ``service`` when given) through one file edge."""
    where, params = _under("i.target_path", folder)
    sql = _IMPORTERS.replace("i.target_path IN ({marks})", where)
    if service:  # imports from outside the service only
        sql += " AND i.target_service = ? AND f.service != ?"
        params = (*params, service, service)
    elif folder:  # imports from outside the folder only
        sql += " AND NOT (f.path > ? AND f.path < ?)"
        params = (*params, folder + "/", folder + "0")
    hits = _import_hits(db.execute(sql, params))
    where, params = _under("f.path", folder)
    if service:
        where += " AND f.service = ?"
        params = (*params, service)
    defined = {
        _full(package, name): path
        for package, name, path in db.execute(
            "SELECT ps.package, ps.name, min(f.path) FROM proto_services ps JOIN files f ON f.id = ps.file_id"
            f" WHERE {where} GROUP BY ps.package, ps.name",
            params,
        )
    }
    served = dict(
        db.execute(
            "SELECT g.service_key, min(f.path) FROM grpc g JOIN files f ON f.id = g.file_id"
            f" WHERE {where} AND g.role IN ('server', 'handler') AND g.service_key IS NOT NULL"
            " GROUP BY g.service_key",
            params,
        ).fetchall()
    )
    return hits + _grpc_hits(db, defined, served)


def _grpc_hits(db: sqlite3.Connection, defined: dict[str, str], served: dict[str, str]) -> list[_Hit]:
    """Files with gRPC facts of services ``defined`` (any fact) or ``served`` (clients and calls);
    the dicts map a service key to the file that defines or serves it (the edge's ``via``)."""
    groups: dict[tuple[str, str], list[tuple]] = defaultdict(list)
    meta: dict[str, tuple[str, str]] = {}
    for path, service, kind, role, line, key, method_key in _batched(db, _GRPC_OF_SERVICES, set(defined) | set(served)):
        groups[path, key].append((role, line, method_key))
        meta[path] = (service, kind)
    hits = []
    for (path, key), facts in sorted(groups.items()):
        service, kind = meta[path]
        via = served.get(key) or defined.get(key, "")
        callers = [fact for fact in facts if fact[0] == "call"] or [fact for fact in facts if fact[0] == "client"]
        for role, line, method_key in callers:
            hits.append(_Hit(path, service, kind, Edge(EdgeKind.CALL, role, line, method_key or key, via=via)))
        if key in defined:
            servers = [fact for fact in facts if fact[0] == "server"] or [f for f in facts if f[0] == "handler"]
            for role, line, method_key in servers:
                edge = Edge(EdgeKind.SERVE, role, line, method_key or key, via=defined[key])
                hits.append(_Hit(path, service, kind, edge))
    return hits


def _rpc_hits(db: sqlite3.Connection, rpcs: Iterable[str]) -> list[_Hit]:
    hits = []
    for path, service, kind, role, line, _key, method_key in _batched(db, _GRPC_OF_METHODS, rpcs):
        edge_kind = EdgeKind.CALL if role == "call" else EdgeKind.SERVE
        hits.append(_Hit(path, service, kind, Edge(edge_kind, role, line, method_key)))
    return hits


def _module_hits(db: sqlite3.Connection, modules: Iterable[str]) -> list[_Hit]:
    return _import_hits(
        _batched(
            db,
            "SELECT f.path, f.service, f.kind, i.line, i.module, i.target_path FROM imports i"
            " JOIN files f ON f.id = i.file_id WHERE i.module IN ({marks}) AND i.target_path IS NULL",
            modules,
        )
    )


# -- messages ---------------------------------------------------------------------------------------

_SEPARATORS: Final = re.compile(r"[./:\\]+")


def type_names(written: str, package: str, scope: str) -> list[str]:
    """The full names a proto type written in ``package``, inside message ``scope`` ("" for an RPC),
    may refer to, innermost first (protobuf's scoping: ``Item`` inside ``acme.orders.v1.Order`` may be
    ``acme.orders.v1.Order.Item``, ``acme.orders.v1.Item``, ... or ``Item``)."""
    written = written.strip().removeprefix("stream ").strip()
    if written.startswith("map<") and written.endswith(">"):
        written = written[4:-1].split(",", 1)[-1].strip()
    if written.startswith("."):
        return [written[1:]]
    outer = [*(package.split(".") if package else []), *(scope.split(".") if scope else [])]
    return [".".join([*outer[:end], written]) for end in range(len(outer), -1, -1)]


def _message_hits(db: sqlite3.Connection, messages: Sequence[str], defining: Sequence[str]) -> list[_Hit]:
    """The uses of ``messages`` (full names), defined in the ``.proto`` files ``defining``."""
    wanted = set(messages)
    if not wanted or not defining:
        return []
    packages = set()
    entities: dict[str, set[str]] = defaultdict(set)  # defining file -> its top-level messages and services
    tops: dict[str, dict[str, str]] = defaultdict(dict)  # defining file -> wanted message -> its top-level name
    for path, package, name in _batched(
        db,
        "SELECT f.path, m.package, m.name FROM proto_messages m JOIN files f ON f.id = m.file_id"
        " WHERE f.path IN ({marks})",
        defining,
    ):
        packages.add(package)
        top = name.split(".", 1)[0]
        entities[path].add(top)
        if _full(package, name) in wanted:
            tops[path][_full(package, name)] = top
    for path, name in _batched(
        db,
        "SELECT f.path, s.name FROM proto_services s JOIN files f ON f.id = s.file_id WHERE f.path IN ({marks})",
        defining,
    ):
        entities[path].add(name)
    # .proto files that may use them: those importing a defining file, and those of the same package
    candidates = {
        path
        for (path,) in _batched(
            db,
            "SELECT f.path FROM imports i JOIN files f ON f.id = i.file_id WHERE i.target_path IN ({marks})"
            " AND f.kind = 'proto'",
            defining,
        )
    }
    candidates |= {
        path
        for (path,) in _batched(
            db,
            "SELECT f.path FROM proto_files p JOIN files f ON f.id = p.file_id WHERE p.package IN ({marks})",
            packages,
        )
    }
    candidates -= set(defining)
    hits: list[_Hit] = []
    files: dict[str, tuple[str, str]] = {}
    own: dict[str, set[str]] = defaultdict(set)  # candidate -> full names it defines itself
    rows = list(
        _batched(
            db,
            "SELECT f.path, f.service, f.kind, m.package, m.name, m.fields FROM proto_messages m"
            " JOIN files f ON f.id = m.file_id WHERE f.path IN ({marks}) ORDER BY f.path, m.line",
            candidates,
        )
    )
    for path, service, kind, package, name, _fields in rows:
        own[path].add(_full(package, name))
        files[path] = (service, kind)
    for path, service, kind, package, name, fields in rows:
        for field in fields.split("\n") if fields else ():
            field_name, written, _number, _label, line = field.split("\t")
            used = _first_match(type_names(written, package, name), wanted, own[path])
            if used:
                edge = Edge(EdgeKind.MESSAGE, "field", int(line), f"{name}.{field_name}", about=used)
                hits.append(_Hit(path, service, kind, edge))
    rpcs: dict[str, str] = {}  # RPC key -> a message it takes or returns
    for path, service, kind, package, proto_service, method, request, response, line in _batched(
        db,
        "SELECT f.path, f.service, f.kind, m.package, m.service, m.name, m.request, m.response, m.line"
        " FROM proto_methods m JOIN files f ON f.id = m.file_id WHERE f.path IN ({marks})",
        candidates | set(defining),
    ):
        mine = own[path] if path in candidates else set()
        for role, written in (("request", request), ("response", response)):
            used = _first_match(type_names(written, package, ""), wanted, mine)
            if not used:
                continue
            key = f"{_full(package, proto_service)}/{method}"
            rpcs[key] = min(rpcs.get(key, used), used)
            if path in candidates:
                edge = Edge(EdgeKind.MESSAGE, role, line, f"{proto_service}/{method}", about=used)
                hits.append(_Hit(path, service, kind, edge))
    for path, service, kind, role, line, _key, method_key in _batched(db, _GRPC_OF_METHODS, rpcs):
        hits.append(_Hit(path, service, kind, Edge(EdgeKind.MESSAGE, role, line, method_key, about=rpcs[method_key])))
    hits += _code_importer_hits(db, defining, entities, tops)
    return hits


def _first_match(names: list[str], wanted: set[str], own: set[str]) -> str:
    """The first of ``names`` that is a wanted message, unless the file defines that name itself."""
    for name in names:
        if name in own:
            return ""
        if name in wanted:
            return name
    return ""


def _code_importer_hits(
    db: sqlite3.Connection, defining: Sequence[str], entities: dict[str, set[str]], tops: dict[str, dict[str, str]]
) -> list[_Hit]:
    """Code importing the generated code of a defining file: a message use when the import names a
    wanted message, a plain import when it names no entity of that file, nothing when it names only others."""
    hits = []
    for path, service, kind, line, module, target, names in _batched(
        db,
        "SELECT f.path, f.service, f.kind, i.line, i.module, i.target_path, i.names FROM imports i"
        " JOIN files f ON f.id = i.file_id WHERE i.target_path IN ({marks}) AND f.kind NOT IN ('proto', 'docs')",
        defining,
    ):
        parts = [part for part in _SEPARATORS.split(module) if part]
        named = {*(parts[-1:]), *(name for name in names.split(",") if name)}
        used = sorted(full for full, top in tops.get(target, {}).items() if top in named)
        if used:
            hits.append(_Hit(path, service, kind, Edge(EdgeKind.MESSAGE, "import", line, module, about=used[0])))
        elif not named <= entities.get(target, set()):
            hits.append(_Hit(path, service, kind, Edge(EdgeKind.IMPORT, "import", line, module, via=target)))
    return hits


# -- the walk ---------------------------------------------------------------------------------------


def _kinds(db: sqlite3.Connection, paths: Iterable[str]) -> dict[str, str]:
    return dict(_batched(db, "SELECT path, kind FROM files WHERE path IN ({marks})", paths))


def _first_hop(db: sqlite3.Connection, targets: Sequence[Target]) -> list[_Hit]:
    files = sorted({path for target in targets for path in target.files})
    hits = _file_edges(db, _kinds(db, files)) if files else []
    for target in targets:
        for folder in target.folders:
            hits += _range_edges(db, folder, target.service)
    hits += _module_hits(db, {module for target in targets for module in target.modules})
    defined: dict[str, str] = {}
    for target in targets:
        for key in target.grpc_services:
            path = min(location.path for location in target.defined)
            defined[key] = min(defined.get(key, path), path)
    hits += _grpc_hits(db, defined, {}) if defined else []
    hits += _rpc_hits(db, {key for target in targets for key in target.rpcs})
    messages = sorted({message for target in targets for message in target.messages})
    defining = sorted({path for target in targets for path in target.message_files})
    return hits + _message_hits(db, messages, defining)


@attrs.frozen
class _Held:
    """What the targets are made of: never one of their dependents."""

    files: frozenset[str]
    services: frozenset[str]
    folders: tuple[str, ...]

    @classmethod
    def of(cls, targets: Sequence[Target]) -> _Held:
        files = {path for t in targets for path in (*t.files, *t.message_files, *(loc.path for loc in t.defined))}
        services = {t.service for t in targets if t.service}
        folders = sorted({folder + "/" for t in targets if not t.service for folder in t.folders})
        return cls(frozenset(files), frozenset(services), tuple(folders))

    def __call__(self, path: str, service: str) -> bool:
        if path in self.files or service in self.services:
            return True
        return bool(self.folders) and path.startswith(self.folders)


def find_dependents(db: sqlite3.Connection, targets: Sequence[Target], depth: int) -> Found:
    """Every file depending on any of ``targets`` within ``depth`` levels (breadth first)."""
    depth = max(1, min(depth, MAX_DEPTH))
    held = _Held.of(targets)
    found: dict[str, Dependent] = {}
    hits = _first_hop(db, targets)
    for level in range(1, depth + 1):
        fresh: dict[str, tuple[str, str, set[Edge]]] = {}
        for hit in hits:
            if hit.path in found or held(hit.path, hit.service):
                continue
            fresh.setdefault(hit.path, (hit.service, hit.kind, set()))[2].add(hit.edge)
        for path in sorted(fresh):
            service, kind, edges = fresh[path]
            found[path] = Dependent(path, service, kind, level, tuple(sorted(edges, key=Edge.order)))
        if level == depth or not fresh:
            break
        hits = _file_edges(db, {path: kind for path, (_, kind, _) in fresh.items() if kind != "docs"})
    dependents = tuple(sorted(found.values(), key=Dependent.order))
    return Found(tuple(targets), depth, dependents)


# -- targets ----------------------------------------------------------------------------------------


def resolve_target(db: sqlite3.Connection, text: str, path: str) -> Target:
    """What ``text`` names (see the module doc); ``path`` is ``text`` as a workspace-relative path,
    checked by the caller. Raises :class:`GraphError` for nothing or several things."""
    text = text.strip()
    if not path and text in ("", ".", "./"):
        raise GraphError(
            "The target is the whole workspace. Name a service, folder, file, module, proto entity or symbol."
        )
    for reading in (
        lambda: _service_target(db, text),
        lambda: resolve_file(db, path),
        lambda: _folder_target(db, path),
        lambda: _rpc_target(db, text),
        lambda: _proto_full_target(db, text),
        lambda: _proto_package_target(db, text),
        lambda: _module_target(db, text),
        lambda: _proto_short_target(db, text),
        lambda: _symbol_target(db, text),
    ):
        target = reading()
        if target is not None:
            return target
    raise GraphError(_unknown(db, text))


def resolve_file(db: sqlite3.Connection, path: str) -> Target | None:
    """The indexed file at ``path`` as a target (every message of a ``.proto`` counts), else None."""
    if not path:
        return None
    row = _is_file(db, path)
    if row is None:
        return None
    service, kind, language = row
    messages: tuple[str, ...] = ()
    if language == "proto":
        messages = tuple(
            sorted(
                _full(package, name)
                for package, name in db.execute(
                    "SELECT m.package, m.name FROM proto_messages m JOIN files f ON f.id = m.file_id WHERE f.path = ?",
                    (path,),
                )
            )
        )
    return Target(
        kind="file",
        name=path,
        defined=(Location(path, 0, service),),
        owners=((service, 1),),
        area="" if service else area_of(db, path),
        detail=kind,
        files=(path,),
        messages=messages,
        message_files=(path,) if messages else (),
    )


def area_of(db: sqlite3.Connection, path: str) -> str:
    """The area (a folder of the workspace holding no service) that holds ``path``, "" when none."""
    for (area,) in db.execute("SELECT path FROM areas ORDER BY length(path) DESC"):
        if path == area or path.startswith(area + "/"):
            return area
    return ""


def _owners(db: sqlite3.Connection, folder: str, service: str = "") -> tuple[tuple[str, int], ...]:
    where, params = _under("path", folder)
    if service:
        where, params = where + " AND service = ?", (*params, service)
    return tuple(
        db.execute(f"SELECT service, count(*) FROM files WHERE {where} GROUP BY service ORDER BY service", params)
    )


def _service_target(db: sqlite3.Connection, text: str) -> Target | None:
    row = db.execute("SELECT name, path, extra FROM services WHERE name = ?", (text,)).fetchone()
    if row is None:
        return None
    name, folder, extra = row
    owners = _owners(db, folder, name) or ((name, 0),)
    return Target(
        kind="service",
        name=name,
        defined=(Location(folder, 0, name),),
        owners=owners,
        detail=f"folder `{folder or '.'}`, {sum(count for _, count in owners)} files",
        folders=(folder, *json.loads(extra)),
        service=name,
    )


def _folder_target(db: sqlite3.Connection, path: str) -> Target | None:
    if not path or not _is_folder(db, path):
        return None
    owners = _owners(db, path)
    return Target(
        kind="folder",
        name=path,
        defined=(Location(path),),
        owners=owners,
        area=area_of(db, path),
        detail=f"{sum(count for _, count in owners)} files",
        folders=(path,),
    )


_RPC: Final = re.compile(r"\.?(?:(?P<package>[\w.]+)\.)?(?P<service>\w+)(?:/|\.)(?P<method>\w+)")


def _rpc_target(db: sqlite3.Connection, text: str) -> Target | None:
    match = _RPC.fullmatch(text)
    if match is None:
        return None
    package, service, method = match.group("package"), match.group("service"), match.group("method")
    rows = db.execute(
        "SELECT m.package, m.service, m.name, m.line, f.path, f.service FROM proto_methods m"
        " JOIN files f ON f.id = m.file_id WHERE m.service = ? ORDER BY m.package, f.path",
        (service,),
    ).fetchall()
    rows = [row for row in rows if row[2] == method and (package is None or row[0] == package)]
    keys = sorted({f"{_full(row[0], row[1])}/{row[2]}" for row in rows})
    if not keys:
        return None
    if len(keys) > 1:
        firsts = _first_rows(rows, lambda row: f"{_full(row[0], row[1])}/{row[2]}")
        listed = [f"{code_span(f'{_full(r[0], r[1])}/{r[2]}')} at {code_span(f'{r[4]}:{r[3]}')}" for r in firsts]
        raise GraphError(_ambiguous(text, "RPCs", listed, "give the full name, `package.Service/Method`"))
    defined = tuple(sorted(Location(row[4], row[3], row[5]) for row in rows))
    return Target(kind="rpc", name=keys[0], defined=defined, owners=_count_owners(defined), rpcs=(keys[0],))


def _first_rows(rows: list[tuple], key) -> list[tuple]:
    """The first row of each distinct key, in key order."""
    firsts: dict[str, tuple] = {}
    for row in rows:
        firsts.setdefault(key(row), row)
    return [firsts[name] for name in sorted(firsts)]


def _count_owners(defined: Iterable[Location]) -> tuple[tuple[str, int], ...]:
    counts = Counter(location.service for location in {(loc.path, loc.service): loc for loc in defined}.values())
    return tuple(sorted(counts.items()))


def _entity_rows(db: sqlite3.Connection, package: str, name: str) -> list[tuple[str, str, str, str, int, str, str]]:
    """(kind, package, name, full, line, path, service) of proto messages and services with that package and name."""
    rows = [
        ("proto enum" if kind == "enum" else "proto message", package, name, _full(package, name), line, path, service)
        for kind, line, path, service in db.execute(
            "SELECT m.kind, m.line, f.path, f.service FROM proto_messages m JOIN files f ON f.id = m.file_id"
            " WHERE m.name = ? AND m.package = ?",
            (name, package),
        )
    ]
    rows += [
        ("proto service", package, name, _full(package, name), line, path, service)
        for line, path, service in db.execute(
            "SELECT s.line, f.path, f.service FROM proto_services s JOIN files f ON f.id = s.file_id"
            " WHERE s.name = ? AND s.package = ?",
            (name, package),
        )
    ]
    return rows


def _entity_target(text: str, rows: list[tuple], how_to_pick: str) -> Target | None:
    if not rows:
        return None
    rows = sorted(rows, key=lambda row: (row[3], row[0], row[5], row[4]))
    entities = sorted({(row[3], row[0]) for row in rows})
    if len(entities) > 1:
        firsts = _first_rows(rows, lambda row: f"{row[3]}\0{row[0]}")
        listed = [f"{row[0]} {code_span(row[3])} at {code_span(f'{row[5]}:{row[4]}')}" for row in firsts]
        raise GraphError(_ambiguous(text, "proto entities", listed, how_to_pick))
    full, kind = entities[0]
    defined = tuple(sorted(Location(row[5], row[4], row[6]) for row in rows))
    files = tuple(sorted({location.path for location in defined}))
    common = {"kind": kind, "name": full, "defined": defined, "owners": _count_owners(defined)}
    if kind == "proto service":
        return Target(**common, grpc_services=(full,))
    return Target(**common, messages=(full,), message_files=files)


def _proto_full_target(db: sqlite3.Connection, text: str) -> Target | None:
    name = text.removeprefix(".")
    if "." not in name or not re.fullmatch(r"[\w.]+", name):
        return None
    parts = name.split(".")
    rows = []
    for cut in range(len(parts) - 1, 0, -1):
        rows += _entity_rows(db, ".".join(parts[:cut]), ".".join(parts[cut:]))
    return _entity_target(text, rows, "give the full name with its package")


def _proto_package_target(db: sqlite3.Connection, text: str) -> Target | None:
    if not re.fullmatch(r"\w+(\.\w+)*", text):
        return None
    rows = db.execute(
        "SELECT f.path, f.service FROM proto_files p JOIN files f ON f.id = p.file_id WHERE p.package = ?"
        " ORDER BY f.path",
        (text,),
    ).fetchall()
    if not rows:
        return None
    files = tuple(path for path, _ in rows)
    messages = tuple(
        sorted(
            {
                _full(text, name)
                for (name,) in _batched(
                    db,
                    "SELECT m.name FROM proto_messages m JOIN files f ON f.id = m.file_id WHERE f.path IN ({marks})",
                    files,
                )
            }
        )
    )
    defined = tuple(Location(path, 0, service) for path, service in rows)
    return Target(
        kind="proto package",
        name=text,
        defined=defined,
        owners=_count_owners(defined),
        detail=f"{len(files)} .proto files",
        files=files,
        messages=messages,
        message_files=files if messages else (),
    )


def _module_target(db: sqlite3.Connection, text: str) -> Target | None:
    rows = db.execute("SELECT DISTINCT module, target_path FROM imports WHERE module = ?", (text,)).fetchall()
    if not rows:
        for separator in (".", "/", "::", "\\"):
            low = text + separator
            high = low[:-1] + chr(ord(low[-1]) + 1)
            rows += db.execute(
                "SELECT DISTINCT module, target_path FROM imports WHERE module > ? AND module < ?", (low, high)
            ).fetchall()
    if not rows:
        return None
    resolved = sorted({target for _, target in rows if target})
    unresolved = tuple(sorted({module for module, target in rows if not target}))
    files, folders, messages, message_files = [], [], [], []
    defined = []
    for path in resolved:
        as_file = resolve_file(db, path)
        if as_file is not None:
            files.append(path)
            messages += as_file.messages
            message_files += as_file.message_files
            defined += as_file.defined
        elif _is_folder(db, path):
            folders.append(path)
            defined.append(Location(path, 0, _owners(db, path)[0][0]))
    modules = sorted({module for module, _ in rows})
    return Target(
        kind="module",
        name=text,
        defined=tuple(sorted(defined)),
        owners=_count_owners(defined),
        detail="exactly" if modules == [text] else f"the prefix of {len(modules)} modules",
        files=tuple(files),
        folders=tuple(folders),
        modules=unresolved,
        messages=tuple(sorted(set(messages))),
        message_files=tuple(sorted(set(message_files))),
    )


def _proto_short_target(db: sqlite3.Connection, text: str) -> Target | None:
    if not re.fullmatch(r"\w+(\.\w+)*", text):
        return None
    rows = [
        ("proto enum" if kind == "enum" else "proto message", package, name, _full(package, name), line, path, service)
        for kind, package, name, line, path, service in db.execute(
            "SELECT m.kind, m.package, m.name, m.line, f.path, f.service FROM proto_messages m"
            " JOIN files f ON f.id = m.file_id WHERE m.name = ? OR substr(m.name, -?) = ?",
            (text, len(text) + 1, "." + text),
        )
    ]
    rows += [
        ("proto service", package, name, _full(package, name), line, path, service)
        for package, name, line, path, service in db.execute(
            "SELECT s.package, s.name, s.line, f.path, f.service FROM proto_services s"
            " JOIN files f ON f.id = s.file_id WHERE s.name = ?",
            (text,),
        )
    ]
    target = _entity_target(text, rows, "give the full name with its package (`package.Name`)")
    if target is None:
        return None
    symbols = _symbol_rows(db, text)
    if symbols:
        name, kind, container, line, path, _service = symbols[0]
        more = f" (and {len(symbols) - 1} more)" if len(symbols) > 1 else ""
        note = f"also the {kind} {code_span(_dotted(container, name))} at {code_span(f'{path}:{line}')}{more}"
        target = attrs.evolve(target, also=(f"{note}: give that file as the target for its dependents",))
    return target


def _dotted(container: str, name: str) -> str:
    return f"{container}.{name}" if container else name


def _symbol_rows(db: sqlite3.Connection, text: str) -> list[tuple[str, str, str, int, str, str]]:
    """(name, kind, container, line, path, service) of code definitions named ``text`` or
    ``Container.name`` (``::`` also separates), case as written."""
    wanted = text.replace("::", ".")
    name, _, container = wanted.rpartition(".")[::-1]
    if not name:
        return []
    rows = db.execute(
        "SELECT d.name, d.kind, d.container, d.line, f.path, f.service FROM defs d JOIN files f ON f.id = d.file_id"
        " WHERE d.name = ? COLLATE NOCASE AND f.language != 'proto' ORDER BY f.path, d.line",
        (name,),
    ).fetchall()
    return [
        row
        for row in rows
        if row[0] == name and (not container or row[2] == container or row[2].endswith("." + container))
    ]


def _symbol_target(db: sqlite3.Connection, text: str) -> Target | None:
    rows = _symbol_rows(db, text)
    if not rows:
        return None
    paths = sorted({row[4] for row in rows})
    if len(paths) > 1:
        listed = [f"{row[1]} {code_span(_dotted(row[2], row[0]))} at {code_span(f'{row[4]}:{row[3]}')}" for row in rows]
        example = next((_dotted(row[2], row[0]) for row in rows if row[2]), "")
        how = "give the file path as the target" + (
            f", or `Container.name` (e.g. {code_span(example)})" if example else ""
        )
        raise GraphError(_ambiguous(text, "definitions in different files", listed, how))
    defined = tuple(Location(row[4], row[3], row[5]) for row in rows)
    return Target(
        kind="symbol",
        name=text,
        defined=defined,
        owners=((rows[0][5], 1),),
        detail=rows[0][1],
        files=(paths[0],),
    )


# -- scope ------------------------------------------------------------------------------------------


def resolve_scope(db: sqlite3.Connection, text: str, path: str) -> Scope | None:
    """The scope ``text`` (``path``: the same as a workspace-relative path) names: a service, else the
    files under a path; None for the whole workspace. Raises :class:`GraphError` when it names nothing."""
    if db.execute("SELECT 1 FROM services WHERE name = ?", (text.strip(),)).fetchone() is not None:
        return Scope(text, service=text.strip())
    if not path:
        return None
    if _is_file(db, path) is not None or _is_folder(db, path):
        return Scope(text, prefix=path)
    services = ", ".join(code_span(name) for name in _services(db))
    raise GraphError(
        f"The scope {code_span(text)} is neither a service nor a file or folder of the index. "
        f"Give a service ({services}) or a path prefix such as `orders/src`."
    )


# -- impact -----------------------------------------------------------------------------------------


@attrs.frozen
class ImpactRow:
    service: str
    #: Files (or definitions' files) of the change in this service.
    changed: int
    #: Dependents at level 1 through an import.
    direct: int
    #: Dependents at level 2 or more.
    transitive: int
    #: Dependents at level 1 calling or serving a changed service or RPC.
    rpc: int
    #: Dependents at level 1 using a changed message.
    message: int
    #: Test files among the dependents.
    tests: int
    #: Some dependent here was reached through a gRPC fact.
    grpc: bool

    @property
    def impacted(self) -> bool:
        return self.direct + self.transitive + self.rpc + self.message + self.tests > 0


@attrs.frozen
class Impact:
    #: One row per service that changed or holds a dependent, by name.
    rows: tuple[ImpactRow, ...]
    #: The dependents in scope, sorted by service (no service last), level, path.
    dependents: tuple[Dependent, ...]
    #: Services holding a dependent; those reached through gRPC.
    impacted: int
    via_grpc: int


def impact_of(found: Found, scope: Scope | None = None) -> Impact:
    """The ``impact_matrix`` table of ``found``, limited to ``scope``."""
    dependents = tuple(d for d in found.dependents if scope is None or scope.holds(d.path, d.service))
    changed: Counter[str] = Counter()
    for target in found.targets:
        for service, count in target.owners:
            if scope is None or _changed_in_scope(target, service, scope):
                changed[service] += count
    columns: dict[str, Counter[str]] = defaultdict(Counter)
    for dependent in dependents:
        kinds = {edge.kind for edge in dependent.edges}
        cells = columns[dependent.service]
        cells["any"] += 1
        if dependent.level == 1:
            cells["direct"] += EdgeKind.IMPORT in kinds
            cells["rpc"] += bool(kinds & {EdgeKind.CALL, EdgeKind.SERVE})
            cells["message"] += EdgeKind.MESSAGE in kinds
        else:
            cells["transitive"] += 1
        cells["tests"] += dependent.kind == "test"
        cells["grpc"] += any(edge.grpc for edge in dependent.edges)
    rows = tuple(
        ImpactRow(
            service=service,
            changed=changed[service],
            direct=columns[service]["direct"],
            transitive=columns[service]["transitive"],
            rpc=columns[service]["rpc"],
            message=columns[service]["message"],
            tests=columns[service]["tests"],
            grpc=columns[service]["grpc"] > 0,
        )
        for service in sorted(set(changed) | set(columns), key=lambda name: (not name, name))  # no service last
    )
    # areas and root files (service "") are rows of the table, but no verdict counts them
    impacted = sum(1 for service in columns if service and columns[service]["any"])
    return Impact(rows, dependents, impacted, sum(1 for row in rows if row.grpc and row.service))


def _changed_in_scope(target: Target, service: str, scope: Scope) -> bool:
    if scope.service is not None:
        return service == scope.service
    assert scope.prefix is not None
    prefix = scope.prefix
    return any(
        loc.service in ("", service) and (scope.holds(loc.path, loc.service) or prefix.startswith(loc.path + "/"))
        for loc in target.defined
    )


# -- messages to the agent ---------------------------------------------------------------------------


def code_span(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _ambiguous(text: str, what: str, candidates: list[str], how: str) -> str:
    shown = candidates[:CANDIDATES_MAX]
    more = len(candidates) - len(shown)
    lines = [f"The target {code_span(text)} is ambiguous: it names {len(candidates)} {what}:"]
    lines += [f"- {candidate}" for candidate in shown]
    if more:
        lines.append(f"- and {more} more")
    lines.append(f"Pick one: {how}.")
    return "\n".join(lines)


def _unknown(db: sqlite3.Connection, text: str) -> str:
    message = (
        f"Nothing in the index is named {code_span(text)}: no service, file, folder, RPC, proto entity, "
        "module as imported, or symbol."
    )
    suggestions = _suggestions(db, text)
    if suggestions:
        message += " Did you mean: " + ", ".join(code_span(name) for name in suggestions) + "?"
    services = _services(db)
    if services:
        message += " Services: " + ", ".join(code_span(name) for name in services[:20]) + "."
    return message


def _suggestions(db: sqlite3.Connection, text: str) -> list[str]:
    """Names like ``text``: paths, symbols and proto names holding its last word, shortest first."""
    base = text.strip().rstrip("/").rsplit("/", 1)[-1]
    words = [word for word in _SEPARATORS.split(base) if word]
    word = base if "/" in text else (words[-1] if words else "")
    if len(word) < 2:
        return []
    needle = "%" + re.sub(r"([%_\\])", r"\\\1", word) + "%"
    found: list[str] = []
    for sql in (
        "SELECT DISTINCT name FROM defs WHERE name LIKE ? ESCAPE '\\' ORDER BY length(name), name LIMIT 4",
        "SELECT path FROM files WHERE path LIKE ? ESCAPE '\\' ORDER BY length(path), path LIMIT 4",
        (
            "SELECT DISTINCT module FROM imports WHERE module LIKE ? ESCAPE '\\' AND target_path IS NOT NULL"
            " ORDER BY length(module), module LIMIT 2"
        ),
    ):
        found += [name for (name,) in db.execute(sql, (needle,)) if name not in found and name != text]
    return found[:SUGGESTIONS_MAX]
