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
   its first-level dependents are the files whose references resolve to it (calls, instantiations,
   type uses, reads: :mod:`._references`); in a language the index holds no references of, the
   files importing the file that defines it.

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

A symbol's first hop is its resolved references (the ``by name`` ones are not evidence); the next
hops are those of the files holding them.
A document (``files.kind = 'docs'``) is shown when it links a dependency but carries nothing
further: it is never expanded to the next level.

Contracts have finer edges, used for the first hop from a proto message, an RPC, a proto service, a
proto package or a ``.proto`` file (whose every message counts):

- a message M is used by proto fields naming it (written types resolved with protobuf's scoping; a
  ``.proto`` that defines M itself, such as a copy, uses its own);
- by every RPC whose request or response holds M at any depth (itself, a field, a field of a field,
  across imported files, cycles cut: :meth:`._messages.Messages.routes`, which ``grpc_trace``'s drift
  comparison shares), with the route of fields (``CreateInvoiceResponse.items[].price``): the RPC's
  declarations in other ``.proto`` files, its calls and its handlers. These RPCs are the
  :class:`Carrier` s of :class:`Found`, each once, by its shortest route;
- by code that names M's generated type in its language's spelling (Go ``pb.Order_Item``, Python
  ``orders_pb2.Order.Item``, Java/Kotlin ``Order.Item``, C# ``Order.Types.Item``, C++ ``v1::Order_Item``,
  Rust ``order::Item``...): the import line when it names M (``import ...v1.Money``, ``use ...::Money``),
  and the lines of the stored text that spell M, qualified by what an import of M's generated code
  binds (an alias, the module: ``pb.Money``, ``money_pb2.Money``, ``v1::Money``), or alone where an
  import puts the name itself in scope (the type imported, a wildcard, a C# namespace) and no other
  import or type of the service takes that name. The imports looked at are those resolved to a
  ``.proto`` defining M or to another file of its package (a Go package generated from several
  files), those naming M's package (Rust's ``crate::pb::acme::v1``), those of a module the resolver
  left unresolved named after the ``.proto`` (``./gen/money_pb``), and Rust ``use``s of the module
  that includes prost's code of the package (``mod pb { tonic::include_proto!("acme.v1"); }``).
  Importing the generated code without naming M is no use of M;
- an RPC is used by its calls and its handlers; a proto service by its clients, calls, servers and
  handlers.

**Levels.** Level 1 is the first hop from the target, level k+1 the files not yet seen that depend
on a level-k file through file edges: one batched query per table and level, each through an
index (``imports_target``, ``grpc_service_key``, ``grpc_method_key``, ``grpc_file``, ``files.path``).
A ``.proto`` reached only through message uses follows the data instead: what depends on it next is
what uses the messages whose fields hold the changed one (their fields elsewhere, the code naming
them), not every importer of its generated code.
The target's own files are never dependents (for a folder or a service, nothing inside it). A
dependent keeps every edge of its own level, sorted: its evidence, the last hop of its chain.
A bounded walk (``budget``) goes to the next level only while it has found at most that many
dependents: ``Found.cut`` names the last level walked, and :func:`cut_order` puts a whole walk in
the order the cut one's pages continue in (INV-TOOL-11). A first level past that budget (a hub's
importers) is not even read whole: :func:`first_level_page` counts it in SQL and reads one page of
it, the same page in the same order (INV-TOOL-12).

**Impact.** :func:`impact_of` sorts dependents into the columns of ``impact_matrix`` per service:
direct import or reference (level 1 through an import, or a resolved reference of a changed
symbol), transitive (level 2 or more, through any edge), gRPC
(level 1 through a call or a serve: serving a changed RPC counts as calling it), message (level 1
through a message use), tests (``files.kind = 'test'``, any level); a dependent may count in several.
A service is impacted when it holds a dependent (the changed service too, then), impacted via gRPC
when one of its dependents was reached through a gRPC fact, at any level; the files of no service
(areas, root files) are a row of the table but never an impacted service (INV-WS-3). The changed files'
services are rows even when nothing in them depends on the change.

Everything returned is sorted (services by name, the files of no service last, then level, then
path), never in set order.
"""

from __future__ import annotations

import json
import posixpath
import re
import sqlite3
import threading
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Final

import attrs

from ..store._trigrams import trigrams
from ._grpc_query import _protoc_layout
from ._links import by_topic, load_links
from ._names import names_like
from ._messages import Messages, full_name, full_names


__all__ = [
    "MAX_DEPTH",
    "WALK_DEPENDENTS_MAX",
    "Carrier",
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
    "Window",
    "cut_order",
    "first_level_page",
    "find_dependents",
    "impact_of",
    "resolve_file",
    "resolve_scope",
    "resolve_target",
    "type_names",
]

MAX_DEPTH: Final = 5
#: A bounded walk (``dependents``, ``impact_matrix``) past this many dependents stops at the end of
#: its level: a page needs no more, and the next level of a file imported by thousands is the
#: thousands importing those.
WALK_DEPENDENTS_MAX: Final = 1000
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
    #: It sends an HTTP request to a route the target serves (a route declared in it, or whose
    #: handler it defines).
    HTTP = "http"
    #: It consumes a topic the target produces to (through the broker).
    MESSAGING = "messaging"
    #: Its code refers to the target symbol (role: calls, instantiates, type, reads).
    REFERENCE = "reference"


#: Among the edges of one line, the one that says most comes first.
_KIND_ORDER: Final = {EdgeKind.MESSAGE: 0, EdgeKind.CALL: 1, EdgeKind.SERVE: 2, EdgeKind.HTTP: 3,
                      EdgeKind.MESSAGING: 4, EdgeKind.REFERENCE: 5, EdgeKind.IMPORT: 6}  # fmt: skip
_GRPC_ROLES: Final = frozenset({"client", "call", "server", "handler"})


@attrs.frozen
class Edge:
    """One piece of evidence: the line of the dependent that makes it depend."""

    kind: str
    #: import | client | call | server | handler | field | request | response | use (code naming the
    #: generated type of a message)
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
    #: For an RPC that holds ``about`` inside its request or response: the route of fields from that
    #: message (``CreateInvoiceResponse.items[].price``); "" when it takes or returns ``about`` itself.
    path: str = ""

    @property
    def grpc(self) -> bool:
        """The edge comes from a gRPC fact (a client, call, server or handler)."""
        return self.role in _GRPC_ROLES

    def order(self) -> tuple:
        return (self.line, _KIND_ORDER[self.kind], self.role, self.what, self.via, self.about, self.path)


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
class Carrier:
    """An RPC whose request or response holds a changed message, at any depth."""

    #: The message (full name).
    message: str
    #: ``package.Service/Method``.
    rpc: str
    #: "request" | "response"
    role: str
    #: The route of fields from the request or response to the message, that message as the rpc
    #: writes it first (``CreateInvoiceResponse.items[].price``); only that when it is the message.
    path: str
    #: Where the RPC is declared (the declaration with that route, the first by path).
    location: Location

    def order(self) -> tuple:
        return (self.message, self.rpc)


@attrs.frozen
class Found:
    targets: tuple[Target, ...]
    depth: int
    #: Sorted by service (files of no service last), level, path.
    dependents: tuple[Dependent, ...]
    #: The RPCs carrying a message of the targets, by message and RPC (each once, by its shortest route).
    carriers: tuple[Carrier, ...] = ()
    #: None for a whole walk; else the last level a bounded walk looked at (it had found more than
    #: its ``budget`` dependents by then): the levels past it, up to ``depth``, were not walked.
    cut: int | None = None
    #: Set on a whole walk paged after a cut one (:func:`cut_order`): the level that walk was cut
    #: after, whose dependents (and those of the levels before) come first.
    ordered_cut: int | None = None
    #: Set when only a page of level 1 was read (:func:`first_level_page`): ``dependents`` are then
    #: those from ``window.first`` on, and the counts of them all are in ``window``.
    window: Window | None = None


@attrs.frozen
class Window:
    """The counts of a first level read a page at a time: exact, for every dependent of the level,
    not only those read."""

    #: The position of ``Found.dependents[0]`` among all the level's dependents, in their order.
    first: int
    #: Every dependent of the level.
    total: int
    #: (service, dependents, test files among them), in the order of the dependents (no service last).
    services: tuple[tuple[str, int, int], ...]
    #: (sub-scope of a path as :func:`mesh.render._paging.scope_of` cuts it, dependents), by scope.
    scopes: tuple[tuple[str, int], ...]
    #: Every dependent with an edge other than an import of a target (gRPC, messages, links): few,
    #: read whole (each with its imports too), in the order of the dependents.
    others: tuple[Dependent, ...] = ()


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
    """Rows of ``sql`` (holding ``{marks}`` for the ``IN`` list, bound first, as many times as it is
    written) over ``values`` in batches."""
    ordered = sorted(set(values))
    times = sql.count("{marks}")
    for start in range(0, len(ordered), BATCH):
        chunk = ordered[start : start + BATCH]
        yield from db.execute(sql.format(marks=", ".join("?" * len(chunk))), (*(chunk * times), *extra))


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


#: (package) of the ``.proto`` files in ``{marks}``; (path, package) of those of the packages in ``{marks}``.
_PACKAGES_OF_FILES: Final = (
    "SELECT p.package FROM proto_files p JOIN files f ON f.id = p.file_id WHERE f.path IN ({marks})"
)
_FILES_OF_PACKAGES: Final = (
    "SELECT f.path, p.package FROM proto_files p JOIN files f ON f.id = p.file_id WHERE p.package IN ({marks})"
)
_PACKAGE_OF_FILES: Final = (
    "SELECT f.path, p.package FROM proto_files p JOIN files f ON f.id = p.file_id WHERE f.path IN ({marks})"
)
#: (path, package, name) of the messages and enums of the ``.proto`` files in ``{marks}``.
_MESSAGES_OF_FILES: Final = (
    "SELECT f.path, m.package, m.name FROM proto_messages m JOIN files f ON f.id = m.file_id WHERE f.path IN ({marks})"
)


def _import_hits(rows: Iterable[tuple]) -> list[_Hit]:
    return [
        _Hit(path, service, kind, Edge(EdgeKind.IMPORT, "import", line, module, via=target or ""))
        for path, service, kind, line, module, target in rows
    ]


def _import_keys(files: Iterable[str]) -> set[str]:
    """The ``imports.target_path`` values that make an import of one of ``files``: each file and its folder."""
    paths = set(files)
    return paths | {posixpath.dirname(path) for path in paths} - {""}


def _file_edges(db: sqlite3.Connection, files: dict[str, str], *, imports: bool = True) -> list[_Hit]:
    """The files depending on ``files`` (path -> kind) through one file edge (without ``imports``:
    through any edge but an import)."""
    hits = _import_hits(_batched(db, _IMPORTERS, _import_keys(files))) if imports else []
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


def _range_edges(db: sqlite3.Connection, folder: str, service: str, *, imports: bool = True) -> list[_Hit]:
    """The files depending on the files under ``folder`` (of ``service`` when given) through one file edge
    (without ``imports``: through any edge but an import)."""
    where, params = _under("i.target_path", folder)
    sql = _IMPORTERS.replace("i.target_path IN ({marks})", where)
    if service:  # imports from outside the service only
        sql += " AND i.target_service = ? AND f.service != ?"
        params = (*params, service, service)
    elif folder:  # imports from outside the folder only
        sql += " AND NOT (f.path > ? AND f.path < ?)"
        params = (*params, folder + "/", folder + "0")
    hits = _import_hits(db.execute(sql, params)) if imports else []
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


def _message_hits(
    db: sqlite3.Connection, messages: Sequence[str], defining: Sequence[str]
) -> tuple[list[_Hit], list[Carrier]]:
    """The uses of ``messages`` (full names), defined in the ``.proto`` files ``defining``, and the
    RPCs carrying them."""
    wanted = set(messages)
    if not wanted or not defining:
        return [], []
    hits = _field_hits(db, wanted, defining)
    carriers, rpc_hits = _carrier_hits(db, wanted, defining)
    return hits + rpc_hits + _naming_hits(db, wanted, defining), carriers


def _field_hits(db: sqlite3.Connection, wanted: set[str], defining: Sequence[str]) -> list[_Hit]:
    """Fields of other ``.proto`` files whose type is a wanted message (a file defining that name
    itself, such as a copy, uses its own)."""
    packages = {package for (package,) in _batched(db, _PACKAGES_OF_FILES, defining)}
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
    candidates |= {path for path, _ in _batched(db, _FILES_OF_PACKAGES, packages)}
    candidates -= set(defining)
    hits: list[_Hit] = []
    own: dict[str, set[str]] = defaultdict(set)  # candidate -> full names it defines itself
    rows = list(
        _batched(
            db,
            "SELECT f.path, f.service, f.kind, m.package, m.name, m.fields FROM proto_messages m"
            " JOIN files f ON f.id = m.file_id WHERE f.path IN ({marks}) ORDER BY f.path, m.line",
            candidates,
        )
    )
    for path, _service, _kind, package, name, _fields in rows:
        own[path].add(_full(package, name))
    for path, service, kind, package, name, fields in rows:
        for field in fields.split("\n") if fields else ():
            field_name, written, _number, _label, line = field.split("\t")
            used = _first_match(type_names(written, package, name), wanted, own[path])
            if used:
                edge = Edge(EdgeKind.MESSAGE, "field", int(line), f"{name}.{field_name}", about=used)
                hits.append(_Hit(path, service, kind, edge))
    return hits


def _first_match(names: list[str], wanted: set[str], own: set[str]) -> str:
    """The first of ``names`` that is a wanted message, unless the file defines that name itself."""
    for name in names:
        if name in own:
            return ""
        if name in wanted:
            return name
    return ""


_ROLES: Final = ("request", "response")


def _carrier_hits(
    db: sqlite3.Connection, wanted: set[str], defining: Sequence[str]
) -> tuple[list[Carrier], list[_Hit]]:
    """The RPCs whose request or response holds a wanted message defined in ``defining``, at any
    depth (:meth:`Messages.routes`, shared with the drift comparison of ``grpc_trace``); their
    declarations in other ``.proto`` files, their calls and their handlers."""
    chosen = set(defining)
    rows = sorted(
        _batched(
            db,
            "SELECT m.file_id, f.path, f.service, f.kind, m.package, m.service, m.name, m.request, m.response, m.line"
            " FROM proto_methods m JOIN files f ON f.id = m.file_id WHERE f.path IN ({marks})",
            _reaching_protos(db, defining),
        ),
        key=lambda row: (row[1], row[9], row[6], row[5]),
    )
    messages = Messages(db, "")  # one cache for every package (an rpc's types are resolved in its own)
    messages.fetch(full for row in rows for written in row[7:9] for full in full_names(written, row[4]))
    best: dict[tuple[str, str], tuple[tuple, Carrier]] = {}  # (message, rpc) -> (rank, carrier)
    hits: list[_Hit] = []
    for file_id, path, service, kind, package, proto_service, method, request, response, line in rows:
        key = f"{_full(package, proto_service)}/{method}"
        for role, written in zip(_ROLES, (request, response)):
            root = messages.resolve(written, file_id, path, service, package)
            if root is None:
                continue
            found = []
            if full_name(root) in wanted and root.path in chosen:
                found.append((full_name(root), ()))
            for full, (route, message) in messages.routes(root, file_id, path, service).items():
                if full in wanted and message is not None and message.path in chosen:
                    found.append((full, route))
            for full, route in found:
                text = ".".join((written.lstrip("."), *route))
                rank = (len(route), _ROLES.index(role), text, path, line)
                carrier = Carrier(full, key, role, text, Location(path, line, service))
                if (full, key) not in best or rank < best[full, key][0]:
                    best[full, key] = (rank, carrier)
            if found and path not in chosen:
                full, route = min(found, key=lambda item: (len(item[1]), item[0]))
                edge = Edge(EdgeKind.MESSAGE, role, line, f"{proto_service}/{method}", about=full,
                            path=".".join((written.lstrip("."), *route)) if route else "")  # fmt: skip
                hits.append(_Hit(path, service, kind, edge))
    carriers = sorted((carrier for _, carrier in best.values()), key=Carrier.order)
    # a call or handler of an RPC: about the message it carries most directly
    per_rpc: dict[str, tuple[tuple, Carrier]] = {}
    for rank, carrier in best.values():
        mine = (rank[0], carrier.message, *rank[1:])
        if carrier.rpc not in per_rpc or mine < per_rpc[carrier.rpc][0]:
            per_rpc[carrier.rpc] = (mine, carrier)
    for path, service, kind, role, line, _key, method_key in _batched(db, _GRPC_OF_METHODS, per_rpc):
        rank, carrier = per_rpc[method_key]
        edge = Edge(EdgeKind.MESSAGE, role, line, method_key, about=carrier.message,
                    path=carrier.path if rank[0] else "")  # fmt: skip
        hits.append(_Hit(path, service, kind, edge))
    return carriers, hits


def _reaching_protos(db: sqlite3.Connection, defining: Sequence[str]) -> list[str]:
    """The ``.proto`` files whose RPCs may reach a message of ``defining``: those files and the
    others of their packages, and every ``.proto`` importing one of these, at any depth."""
    packages = {package for (package,) in _batched(db, _PACKAGES_OF_FILES, defining)}
    seen = set(defining) | {path for path, _ in _batched(db, _FILES_OF_PACKAGES, packages)}
    frontier = set(seen)
    while frontier:
        importers = {
            path
            for (path,) in _batched(
                db,
                "SELECT f.path FROM imports i JOIN files f ON f.id = i.file_id WHERE i.target_path IN ({marks})"
                " AND f.kind = 'proto'",
                frontier,
            )
        }
        frontier = importers - seen
        seen |= frontier
    return sorted(seen)


# -- code naming a generated type ---------------------------------------------------------------------

#: Lines of one file kept as evidence that it names a changed message (the file counts once).
NAMING_LINES_MAX: Final = 20
#: Files above this size are not read for names.
NAMING_FILE_CHARS_MAX: Final = 2_000_000


@attrs.frozen
class _Wanted:
    """A changed message, as generated code spells it."""

    full: str
    package: str
    #: Dotted when nested (``Order.Item``).
    name: str

    @property
    def top(self) -> str:
        return self.name.split(".", 1)[0]


@attrs.frozen
class _Bringer:
    """An import of a file that may bring the generated code of wanted messages."""

    line: int
    module: str
    names: tuple[str, ...]
    #: The wanted messages it may bring (full names).
    brings: frozenset[str]
    #: The file the import resolved to ("" when none).
    target: str = ""


_IMPORT_COLUMNS: Final = (
    "SELECT f.id, f.path, f.service, f.kind, f.language, i.line, i.module, i.names, i.target_path FROM imports i"
    " JOIN files f ON f.id = i.file_id"
)
#: Suffixes of the code protoc's plugins generate from ``x.proto`` (``x_pb2``, ``x_pb``, ``x.pb.h``...).
_GENERATED_SUFFIXES: Final = (
    "_pb2_grpc", "_pb2", "_grpc_web_pb", "_grpc_pb", "_pb", "_services_pb", "_connect", "_connectweb", ".grpc.pb",
    ".pb",
)  # fmt: skip
_FILE_SUFFIXES: Final = re.compile(r"(\.d)?\.(ts|mts|cts|tsx|js|mjs|cjs|jsx|h|hh|hpp|cc|cpp|rb|php)$")
#: Aliases an import line gives the module: ``import x as pb``, ``import * as pb``, ``import pb from``,
#: ``const pb = require(``, C#'s ``using Pb = ``, Rust's ``use x as pb``.
_ALIASES: Final = re.compile(
    r"\bas\s+([A-Za-z_$][\w$]*)"
    r"|^\s*(?:export\s+)?import\s+(?:type\s+)?([A-Za-z_$][\w$]*)\s*(?:,|\bfrom\b|=\s*require)"
    r"|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:await\s+)?(?:require|import)\s*\("
    r"|^\s*(?:global\s+)?using\s+([A-Za-z_]\w*)\s*="
)
_COMMENT_STARTS: Final = ("//", "/*", "*", "#")
#: Kinds of definition that declare a type (one that may hide a generated type of the same name).
_TYPE_KINDS: Final = ("class", "struct", "interface", "enum", "record", "type", "trait")


def _naming_hits(db: sqlite3.Connection, wanted: set[str], defining: Sequence[str]) -> list[_Hit]:
    """Code that names the generated type of a wanted message, in its language's spelling, in a file
    importing that generated code: the import line when it names the type, and each line of the
    text that does. Importing the generated package alone names no message: such a file is no
    dependent of a message unless its text names it."""
    by_file: dict[str, dict[str, _Wanted]] = defaultdict(dict)  # defining .proto -> its wanted messages
    for path, package, name in _batched(db, _MESSAGES_OF_FILES, defining):
        if _full(package, name) in wanted:
            by_file[path][_full(package, name)] = _Wanted(_full(package, name), package, name)
    every = {full: item for items in by_file.values() for full, item in items.items()}
    if not every:
        return []
    go_names: dict[str, set[str]] = defaultdict(set)  # wanted message -> its Go package names
    for path, value in _batched(
        db,
        "SELECT f.path, o.value FROM proto_options o JOIN files f ON f.id = o.file_id WHERE f.path IN ({marks})"
        " AND o.name = 'go_package'",
        by_file,
    ):
        import_path, _, name = value.partition(";")
        for full in by_file.get(path, {}):
            go_names[full] |= {name or import_path.rsplit("/", 1)[-1]} - {""}
    files, bringers = _bringers(db, by_file, every)
    others: dict[int, list[tuple[int, str, tuple[str, ...]]]] = defaultdict(list)
    for file_id, line, module, names in _batched(
        db, "SELECT file_id, line, module, names FROM imports WHERE file_id IN ({marks})", files
    ):
        if not any(b.line == line and b.module == module for b in bringers[file_id]):
            others[file_id].append((line, module, _names(names)))
    # a type of the same name written beside the file hides one a wildcard or a namespace brings (C#
    # resolves its own namespace's types first, Java its own package's: a folder, as a rule)
    local: dict[tuple[str, str], set[str]] = defaultdict(set)
    for path, language, name in _batched(
        db,
        "SELECT f.path, f.language, d.name FROM defs d JOIN files f ON f.id = d.file_id"
        " WHERE d.name COLLATE NOCASE IN ({marks}) AND d.name IN ({marks})"
        f" AND d.kind IN ({', '.join(repr(kind) for kind in _TYPE_KINDS)}) AND f.kind IN ('code', 'test')",
        {item.top for item in every.values()},
    ):
        local[posixpath.dirname(path), language].add(name)
    hits: list[_Hit] = []
    for file_id in sorted(files, key=lambda key: files[key][0]):
        path, service, kind, language = files[file_id]
        mine = sorted(others[file_id])
        beside = local[posixpath.dirname(path), language]
        text = _text(db, file_id)
        edges = _names_in_file(language, bringers[file_id], mine, beside, every, go_names, text)
        hits += [_Hit(path, service, kind, edge) for edge in edges]
    return hits


def _bringers(
    db: sqlite3.Connection, by_file: dict[str, dict[str, _Wanted]], every: dict[str, _Wanted]
) -> tuple[dict[int, tuple[str, str, str, str]], dict[int, list[_Bringer]]]:
    """The code files (id -> path, service, kind, language) whose imports may bring the generated
    code of wanted messages (``every``, defined in the files of ``by_file``), and those imports."""
    files: dict[int, tuple[str, str, str, str]] = {}
    bringers: dict[int, list[_Bringer]] = defaultdict(list)
    # imports resolved to a defining .proto, or to another .proto of the same package (a Go package,
    # a C# namespace, a Java package generated from several files) that is no copy defining the name
    siblings = dict(_batched(db, _FILES_OF_PACKAGES, {item.package for item in every.values() if item.package}))
    in_package: dict[str, set[str]] = defaultdict(set)  # package -> its wanted messages
    for full, item in every.items():
        if item.package:
            in_package[item.package].add(full)
    defines: dict[str, set[str]] = defaultdict(set)
    for path, package, name in _batched(db, _MESSAGES_OF_FILES, siblings):
        defines[path].add(_full(package, name))
    resolved = _IMPORT_COLUMNS + " WHERE i.target_path IN ({marks}) AND f.kind NOT IN ('proto', 'docs')"
    for file_id, path, service, kind, language, line, module, names, target in _batched(
        db, resolved, {*by_file, *siblings}
    ):
        brings = set(by_file.get(target, ())) | (in_package.get(siblings.get(target, ""), set()) - defines[target])
        if brings:
            files[file_id] = (path, service, kind, language)
            bringers[file_id].append(_Bringer(line, module, _names(names), frozenset(brings), target or ""))
    # imports resolved to no .proto that name a wanted package (Rust's ``crate::pb::acme::orders::v1``)
    # or a defining file's generated module (``./gen/orders_pb``, left out of the index as generated)
    stems = {posixpath.basename(path).removesuffix(".proto"): path for path in sorted(by_file, reverse=True)}
    words = sorted({item.package.rsplit(".", 1)[-1] for item in every.values() if item.package} | set(stems))
    for start in range(0, len(words), 100):
        chunk = words[start : start + 100]
        for file_id, path, service, kind, language, line, module, names, target in db.execute(
            _IMPORT_COLUMNS + " WHERE (i.target_path IS NULL OR i.target_path NOT LIKE '%.proto')"
            " AND f.kind NOT IN ('proto', 'docs') AND (" + " OR ".join("i.module LIKE ?" for _ in chunk) + ")",
            [f"%{word}%" for word in chunk],
        ):
            brings = {full for package in in_package if _package_in(module, package) for full in in_package[package]}
            stem = _generated_stem(module) if target is None else None
            if stem in stems:
                brings |= set(by_file[stems[stem]])
            if brings:
                files[file_id] = (path, service, kind, language)
                bringers[file_id].append(_Bringer(line, module, _names(names), frozenset(brings), target or ""))
    # Java and Kotlin in the generated package itself (its folder laid out as the package): no import
    for file_id, path, service, kind, language, module, brings in _same_java_package(db, by_file):
        files[file_id] = (path, service, kind, language)
        bringers[file_id].append(_Bringer(0, module, (), brings))
    # Rust: a module of the crate that includes prost's code of a wanted package (``pub mod pb {
    # tonic::include_proto!("acme.orders.v1"); }``), used as ``use crate::pb;`` then ``pb::Order``
    includers = _rust_includers(db, {item.package for item in every.values() if item.package})
    rows = list(
        _batched(db, _IMPORT_COLUMNS + " WHERE i.target_path IN ({marks}) AND f.language = 'rust'", includers)
    )
    # the module holding the include, when the resolver left the import unresolved (an inline ``mod pb``)
    enclosing: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))  # service -> module -> packages
    for includer in includers.values():
        for module_name, packages in includer.modules.items():
            enclosing[includer.service][module_name] |= packages
    rows += [
        row
        for row in _batched(
            db,
            _IMPORT_COLUMNS + " WHERE f.service IN ({marks}) AND f.language = 'rust' AND i.target_path IS NULL",
            enclosing,
        )
        if set(_SEPARATORS.split(row[6])) & set(enclosing[row[2]])
    ]
    for file_id, path, service, kind, language, line, module, names, target in rows:
        if target is not None:
            packages = includers[target].packages
        else:
            packages = {p for part in _SEPARATORS.split(module) for p in enclosing[service].get(part, ())}
        brings = {full for full, item in every.items() if item.package in packages}
        if brings:
            files[file_id] = (path, service, kind, language)
            bringers[file_id].append(_Bringer(line, module, _names(names), frozenset(brings), target or ""))
    return files, bringers


def _same_java_package(
    db: sqlite3.Connection, by_file: dict[str, dict[str, _Wanted]]
) -> list[tuple[int, str, str, str, str, str, frozenset[str]]]:
    """Java and Kotlin files in the folder of a defining file's Java package (``java_package``, else
    the proto package), which use its classes unimported: (id, path, service, kind, language, what
    they may write as an import: ``pkg.*`` with ``java_multiple_files``, else ``pkg.OuterClass``,
    wanted messages)."""
    options: dict[str, dict[str, str]] = defaultdict(dict)
    for path, name, value in _batched(
        db,
        "SELECT f.path, o.name, o.value FROM proto_options o JOIN files f ON f.id = o.file_id WHERE f.path IN ({marks})"
        " ORDER BY f.path, o.name",
        by_file,
    ):
        options[path].setdefault(name, value)
    packages = dict(_batched(db, _PACKAGE_OF_FILES, by_file))
    names: dict[str, set[str]] = defaultdict(set)  # defining file -> its top-level names
    for path, _package, name in _batched(db, _MESSAGES_OF_FILES, by_file):
        names[path].add(name.split(".", 1)[0])
    for path, name in _batched(
        db, "SELECT f.path, s.name FROM proto_services s JOIN files f ON f.id = s.file_id WHERE f.path IN ({marks})", by_file
    ):
        names[path].add(name)
    found = []
    for path in sorted(by_file):
        java_package = options[path].get("java_package", packages.get(path, ""))
        if not java_package:
            continue
        if options[path].get("java_multiple_files") == "true":
            module = f"{java_package}.*"
        else:
            outer = options[path].get("java_outer_classname") or "".join(
                part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", posixpath.basename(path)[:-6]) if part
            )
            module = f"{java_package}.{outer}OuterClass" if outer in names[path] else f"{java_package}.{outer}"
        folder = java_package.replace(".", "/")
        for file_id, where, service, kind, language in db.execute(
            "SELECT id, path, service, kind, language FROM files WHERE language IN ('java', 'kotlin')"
            " AND kind IN ('code', 'test') AND (path LIKE ? OR path LIKE ?) ORDER BY path",
            (f"{folder}/%", f"%/{folder}/%"),
        ):
            if posixpath.dirname(where) == folder or posixpath.dirname(where).endswith("/" + folder):
                found.append((file_id, where, service, kind, language, module, frozenset(by_file[path])))
    return found


_INCLUDED: Final = re.compile(r"""include_proto!\s*\(\s*"([\w.]+)"|"/([\w.]+)\.rs"\s*\)""")
_RUST_MODULE: Final = re.compile(r"\bmod\s+(\w+)\s*\{")


@attrs.frozen
class _Includer:
    """A Rust file including prost's code of some packages."""

    service: str
    packages: frozenset[str]
    #: The inline module holding each include (``pub mod pb { include_proto!(...) }``) -> its packages.
    modules: dict[str, set[str]]


def _rust_includers(db: sqlite3.Connection, packages: set[str]) -> dict[str, _Includer]:
    """The Rust files that include the code prost generates for some of ``packages``
    (``include_proto!("pkg")``, ``include!(concat!(env!("OUT_DIR"), "/pkg.rs"))``), by path."""
    if not packages:
        return {}
    match = " AND ".join(f'"{gram}"' for gram in sorted(trigrams("include")))
    rows = db.execute(
        "SELECT f.id, f.path, f.service FROM text CROSS JOIN files f ON f.id = text.rowid WHERE text MATCH ?"
        " AND f.language = 'rust'",
        (match,),
    ).fetchall()
    found: dict[str, _Includer] = {}
    for file_id, path, service in sorted(rows, key=lambda row: row[1]):
        text = _text(db, file_id)
        modules: dict[str, set[str]] = defaultdict(set)
        included: set[str] = set()
        for match_ in _INCLUDED.finditer(text):
            package = match_.group(1) or match_.group(2)
            if package not in packages:
                continue
            included.add(package)
            holders = [m.group(1) for m in _RUST_MODULE.finditer(text, 0, match_.start())]
            if holders:
                modules[holders[-1]].add(package)
        if included:
            found[path] = _Includer(service, frozenset(included), dict(modules))
    return found


def _names(text: str) -> tuple[str, ...]:
    return tuple(name for name in text.split(",") if name)


def _text(db: sqlite3.Connection, file_id: int) -> str:
    """The stored text of a file (one at a time: a few hundred may be read), "" when the snapshot
    keeps none or it is too long to be read for names."""
    row = db.execute("SELECT data FROM content WHERE file_id = ?", (file_id,)).fetchone()
    if row is None:
        return ""
    try:
        text = zlib.decompress(row[0]).decode("utf-8", "replace")
    except zlib.error:
        return ""
    return text if len(text) <= NAMING_FILE_CHARS_MAX else ""


def _package_in(module: str, package: str) -> bool:
    """Whether ``module`` holds the proto ``package`` as consecutive parts, ignoring case (as the
    resolver ties generated code to its package); a package of one part must end the module or
    come just before its last part."""
    parts = [part.lower() for part in _SEPARATORS.split(module) if part]
    wanted = package.lower().split(".")
    width = len(wanted)
    for start in range(len(parts) - width + 1):
        if parts[start : start + width] == wanted:
            return width >= 2 or len(parts) - start - width <= 1
    return False


def _generated_stem(module: str) -> str | None:
    """The ``.proto`` file name a module generated from it is named after (``./gen/orders_pb`` ->
    ``orders``), when the module looks generated or is a relative path; else None."""
    base = _FILE_SUFFIXES.sub("", re.split(r"[/\\]|::", module)[-1])
    for suffix in _GENERATED_SUFFIXES:
        if base.endswith(suffix) and len(base) > len(suffix):
            return base[: -len(suffix)].rsplit(".", 1)[-1] or None
    return base if module.startswith(".") and base else None


def _spellings(language: str, name: str) -> list[str]:
    """How ``language``'s generated code spells the type of the message ``name`` (dotted when nested)."""
    parts = name.split(".")
    if len(parts) == 1:
        return parts
    dotted, underscored = ".".join(parts), "_".join(parts)
    if language == "go":
        return [underscored]
    if language == "csharp":
        return [".Types.".join(parts)]
    if language == "cpp":
        return [underscored, "::".join(parts)]
    if language == "rust":
        return ["::".join([*(_snake(part) for part in parts[:-1]), parts[-1]])]
    if language in ("javascript", "typescript", "tsx"):
        return [underscored, dotted]
    if language == "ruby":
        return ["::".join(parts)]
    if language == "php":
        return ["\\".join(parts), underscored]
    return [dotted]


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _names_in_file(
    language: str,
    bringers: list[_Bringer],
    others: list[tuple[int, str, tuple[str, ...]]],
    local: set[str],
    every: dict[str, _Wanted],
    go_names: dict[str, set[str]],
    text: str,
) -> list[Edge]:
    """The edges of one file naming wanted messages: import lines naming one, then the lines of
    ``text`` spelling one: qualified by what the import binds (``pb.Price``, ``price_pb2.Price``,
    ``v1::Price``), or alone where the import puts the name itself in scope (``import x.Price``, a
    wildcard, a C# namespace) and no other import (``others``: line, module, names) nor a type
    defined beside the file (``local``) takes it."""
    edges: list[Edge] = []
    patterns: list[tuple[str, str, re.Pattern[str]]] = []
    lines = text.split("\n")

    def source(line: int) -> str:
        return lines[line - 1] if 0 < line <= len(lines) else ""

    taken = set(local)  # and names other imports bind (``using BasketItem = Models.BasketItem;``)
    for line, module, names in others:
        taken |= {*[part for part in _SEPARATORS.split(module) if part][-1:], *names, *_aliases(source(line))}
    for full in sorted({full for bringer in bringers for full in bringer.brings}):
        item = every[full]
        spelled = _spellings(language, item.name)
        qualifiers: set[str] = set(go_names.get(full, ())) if language == "go" else set()
        bare = False
        alone: set[str] = set()  # spellings used alone: a type renamed on import, a nested type imported by its path
        via = ""
        for bringer in sorted(bringers, key=lambda b: (b.line, b.module)):
            if full not in bringer.brings:
                continue
            via = via or bringer.target
            parts = [part for part in _SEPARATORS.split(bringer.module) if part]
            line = source(bringer.line)
            # importing the outer type names a nested one, except where it is spelled apart (Rust's
            # ``order::Item``); importing its own path, or its parent's, names it too
            names_it = item.top in {*parts[-1:], *bringer.names} and ("." not in item.name or language != "rust")
            simple: set[str] = set()
            for spelling in spelled:
                steps = [step for step in _SEPARATORS.split(spelling) if step]
                if len(steps) < 2:
                    continue
                parent = parts[-len(steps) + 1 :] == steps[:-1]
                if parts[-len(steps) :] == steps or (steps[-1] in bringer.names and parent):
                    names_it = True
                    simple.add(steps[-1])
                elif parent:
                    bare = True
            own_name = item.name.rsplit(".", 1)[-1] if simple else item.top
            renamed = _renamed(language, own_name, line) if names_it else set()
            if names_it:
                edge = Edge(EdgeKind.MESSAGE, "import", bringer.line, bringer.module, via=bringer.target, about=full)
                edges.append(edge)
                if renamed:
                    alone |= renamed
                else:
                    alone |= simple
                    bare = True
            qualifiers |= {*parts[-1:], *bringer.names, *_aliases(line)} - {"*", "."} - renamed
            bare = bare or (_brings_all(language, bringer, line) and item.top not in taken)
        if language == "cpp" and item.package:
            last = item.package.rsplit(".", 1)[-1]
            qualifiers.add(last)
            namespace = r"[\w:]*\b" + re.escape(last)
            qualifiers |= set(re.findall(rf"\bnamespace\s+(\w+)\s*=\s*{namespace}\s*;", text))
            bare = bare or re.search(rf"\busing\s+namespace\s+{namespace}\s*;", text) is not None
        if language == "rust" and item.package:
            qualifiers.add(item.package.rsplit(".", 1)[-1])
        if language == "ruby" and item.package:
            qualifiers.add(item.package.rsplit(".", 1)[-1].capitalize())
        choices = []
        if qualifiers:
            heads = "|".join(re.escape(qualifier) for qualifier in sorted(qualifiers))
            choices.append(rf"(?:{heads})\s*(?:\.|::|\\)\s*(?:{_alternatives(spelled)})")
        if alone or bare:
            choices.append(_alternatives({*alone, *(spelled if bare else ())}))
        if choices:
            patterns.append((full, via, re.compile(rf"(?<![\w$])(?:{'|'.join(choices)})(?![\w$])")))
    seen_lines: set[int] = set()
    skipped = {line for line, _, _ in others} | {bringer.line for bringer in bringers}
    if patterns:
        for number, line in enumerate(lines, 1):
            if number in skipped or line.lstrip().startswith(_COMMENT_STARTS):
                continue
            for full, via, pattern in patterns:
                match = pattern.search(line)
                if match is not None:
                    edges.append(Edge(EdgeKind.MESSAGE, "use", number, match.group(0), via=via, about=full))
                    seen_lines.add(number)
            if len(seen_lines) >= NAMING_LINES_MAX:
                break
    return edges


def _alternatives(spellings: Iterable[str]) -> str:
    """A regex alternation of ``spellings``, longest first."""
    return "|".join(re.escape(spelling) for spelling in sorted(set(spellings), key=lambda text: (-len(text), text)))


def _renamed(language: str, name: str, line: str) -> set[str]:
    """The names an import ``line`` gives the type ``name`` it imports under another name
    (C#'s ``using GrpcItem = ...Item;``, ``Item as GrpcItem``), else none."""
    if language == "csharp":
        match = re.match(r"\s*(?:global\s+)?using\s+(\w+)\s*=", line)
        return {match.group(1)} if match and match.group(1) != name else set()
    return set(re.findall(rf"\b{re.escape(name)}\s+as\s+([A-Za-z_$][\w$]*)", line))


def _aliases(source: str) -> set[str]:
    return {name for match in _ALIASES.finditer(source) for name in match.groups() if name}


def _brings_all(language: str, bringer: _Bringer, source: str) -> bool:
    """Whether the import puts every name of the module in scope: a wildcard (``import pkg.*``,
    ``from m import *``, Go's dot import, Rust's ``::*``) or a C# ``using`` of the namespace."""
    if bringer.module.endswith((".*", "::*")) or "*" in bringer.names or "." in bringer.names:
        return True
    return language == "csharp" and "=" not in source and "static" not in source.split()


# -- the walk ---------------------------------------------------------------------------------------


def _kinds(db: sqlite3.Connection, paths: Iterable[str]) -> dict[str, str]:
    return dict(_batched(db, "SELECT path, kind FROM files WHERE path IN ({marks})", paths))


def _first_hop(
    db: sqlite3.Connection, targets: Sequence[Target], *, file_imports: bool = True
) -> tuple[list[_Hit], list[Carrier]]:
    """The hits of level 1 (without ``file_imports``: all but the imports of the targets' files and folders)."""
    hits: list[_Hit] = []
    by_reference = [target for target in targets if target.kind == "symbol" and _has_references(db, target)]
    for target in by_reference:
        hits += _reference_hits(db, target)
    files = sorted({path for target in targets if target not in by_reference for path in target.files})
    hits += _file_edges(db, _kinds(db, files), imports=file_imports) if files else []
    for target in targets:
        for folder in target.folders:
            hits += _range_edges(db, folder, target.service, imports=file_imports)
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
    message_hits, carriers = _message_hits(db, messages, defining)
    return hits + message_hits + _link_hits(db, targets), carriers


#: A reference's kind as the role of its edge (what the dependent's line does).
_REFERENCE_ROLES: Final = {"call": "call", "new": "instantiates", "type": "type", "use": "reads"}


def _has_references(db: sqlite3.Connection, target: Target) -> bool:
    """Whether the index holds references of the language of the symbol's file."""
    location = target.defined[0]
    return (
        db.execute(
            "SELECT 1 FROM ref_names r JOIN files f ON f.id = r.file_id"
            " WHERE f.language = (SELECT language FROM files WHERE path = ?) LIMIT 1",
            (location.path,),
        ).fetchone()
        is not None
    )


def _reference_hits(db: sqlite3.Connection, target: Target) -> list[_Hit]:
    """The files whose resolved references reach the symbol, one edge a site."""
    from ._references import find_references
    from ._symbols import find_symbols

    location = target.defined[0]
    rows = [row for row in find_symbols(db, f"{location.path}:{location.line}") if row.line == location.line]
    if not rows:
        return []
    kinds = dict(db.execute("SELECT path, kind FROM files WHERE path IN (SELECT DISTINCT f.path FROM refs r"
                            " JOIN files f ON f.id = r.file_id WHERE r.name = ?)", (rows[0].name,)))  # fmt: skip
    return [
        _Hit(site.path, site.service, kinds.get(site.path, "code"),
             Edge(EdgeKind.REFERENCE, _REFERENCE_ROLES[site.kind], site.line, rows[0].qualified))
        for site in find_references(db, rows[0])
        if site.resolved
    ]  # fmt: skip


def _link_hits(db: sqlite3.Connection, targets: Sequence[Target]) -> list[_Hit]:
    """Callers of the HTTP routes the targets serve, and consumers of the topics they produce to.

    A route is the target's when it is declared in a target file (or under a target folder), or
    when its handler is a function or method defined there (a Go or Express route registered in
    ``main`` whose handler lives in the changed file)."""
    files = {path for target in targets for path in target.files}
    folders = tuple(sorted({folder for target in targets for folder in target.folders}))

    def held(path: str) -> bool:
        return path in files or any(not folder or path == folder or path.startswith(folder + "/") for folder in folders)

    defined: dict[str, set[str]] = defaultdict(set)  # service -> names of definitions in the targets
    for path, service, name in _batched(
        db,
        "SELECT f.path, f.service, d.name FROM defs d JOIN files f ON f.id = d.file_id WHERE f.path IN ({marks})"
        " AND d.kind IN ('function', 'method')",
        files,
    ):
        defined[service].add(name)
    if not _may_link(db, files, folders, defined, held):
        return []  # no route nor produced topic is the targets': every route and call need not be loaded
    links = load_links(db)
    if not links.routes and not links.messages:
        return []
    hits = []
    for route in links.routes:
        handler = re.split(r"[.:#]+", route.handler)[-1] if route.handler else ""
        if not (held(route.file) or (handler and handler in defined.get(route.service, ()))):
            continue
        for call in links.callers_of(route):
            if call.service == route.service and call.target != route.service:
                continue
            edge = Edge(EdgeKind.HTTP, "sends", call.line, route.label, via=route.file)
            hits.append(_Hit(call.file, call.service, "test" if call.test else _kind_of(db, call.file), edge))
    topics = by_topic(links.messages)
    for message in links.messages:
        if message.role != "produce" or not message.topic or not held(message.file):
            continue
        for other in topics.get(message.topic.lower(), []):
            if other.role == "consume":
                edge = Edge(EdgeKind.MESSAGING, "consumes", other.line, message.topic, via=message.file)
                hits.append(_Hit(other.file, other.service, "test" if other.test else _kind_of(db, other.file), edge))
    return hits


def _may_link(
    db: sqlite3.Connection, files: set[str], folders: tuple[str, ...], defined: dict[str, set[str]],
    held: Callable[[str], bool],
) -> bool:
    """Whether a route :func:`_link_hits` keeps may be the targets' (declared in a target file or
    folder, or with a handler the targets define), or a topic they produce to: False only when none
    is, read through the indexes on files (a hub declares none: no route or call is loaded)."""
    if any(not folder for folder in folders):
        return True  # the whole workspace
    where = " OR ".join(["f.path IN ({marks})"] + ["f.path = ? OR (f.path > ? AND f.path < ?)"] * len(folders))
    ranges = tuple(bound for folder in folders for bound in (folder, folder + "/", folder + "0"))
    for table, condition in (
        ("http_routes r", "r.hidden = 0 AND r.mount = ''"),
        ("messages m", "m.hidden = 0 AND m.role = 'produce' AND m.topic != ''"),
    ):
        alias = table[-1]
        sql = f"SELECT 1 FROM {table} JOIN files f ON f.id = {alias}.file_id WHERE {condition} AND ({where}) LIMIT 1"
        if any(_batched(db, sql, sorted(files) or [""], *ranges)):
            return True
    services = sorted(service for service, names in defined.items() if names)
    for path, service, handler in _batched(
        db, "SELECT f.path, f.service, r.handler FROM http_routes r JOIN files f ON f.id = r.file_id"
        " WHERE r.hidden = 0 AND r.mount = '' AND r.handler != '' AND f.service IN ({marks})",
        services,
    ):  # fmt: skip
        if held(path) or re.split(r"[.:#]+", handler)[-1] in defined[service]:
            return True
    return False


def _kind_of(db: sqlite3.Connection, path: str) -> str:
    row = db.execute("SELECT kind FROM files WHERE path = ?", (path,)).fetchone()
    return row[0] if row else "code"


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


def _holds_data(kind: str, edges: Iterable[Edge]) -> bool:
    """A ``.proto`` that depends only through message uses (its fields and rpcs naming a changed
    message): what depends on it next is what uses the messages holding that one, not every
    importer of the file."""
    return kind == "proto" and all(edge.kind == EdgeKind.MESSAGE for edge in edges)


def _containers_of(db: sqlite3.Connection, data: dict[str, set[Edge]]) -> dict[str, set[str]]:
    """The messages whose fields hold a changed message in the ``.proto`` files ``data`` (path -> its
    edges), by full name, with those files."""
    packages = dict(_batched(db, _PACKAGE_OF_FILES, data))
    containers: dict[str, set[str]] = defaultdict(set)
    for path, edges in data.items():
        for edge in edges:
            if edge.role == "field":
                containers[_full(packages.get(path, ""), edge.what.rsplit(".", 1)[0])].add(path)
    return containers


def _own_containers(db: sqlite3.Connection, targets: Sequence[Target]) -> dict[str, set[str]]:
    """The messages beside a changed message, in the files defining it, whose fields hold it (at any
    depth within those files), by full name, with those files."""
    chosen = [t for t in targets if t.kind in ("proto message", "proto enum")]
    holding = {message for target in chosen for message in target.messages}
    rows = list(
        _batched(
            db,
            "SELECT f.path, m.package, m.name, m.fields FROM proto_messages m JOIN files f ON f.id = m.file_id"
            " WHERE f.path IN ({marks}) ORDER BY f.path, m.line",
            {path for target in chosen for path in target.message_files},
        )
    )
    containers: dict[str, set[str]] = defaultdict(set)
    grown = True
    while grown:  # each round adds a message holding one already found: at most one per message
        grown = False
        for path, package, name, fields in rows:
            full = _full(package, name)
            if path in containers.get(full, ()) or (full in holding and full not in containers):
                continue
            for field in fields.split("\n") if fields else ():
                if _first_match(type_names(field.split("\t")[1], package, name), holding, set()):
                    holding.add(full)
                    containers[full].add(path)
                    grown = True
                    break
    return containers


def _container_hits(db: sqlite3.Connection, containers: dict[str, set[str]]) -> list[_Hit]:
    """The uses of ``containers`` (messages whose fields hold a changed one, with the files defining
    them): other fields of their type and code naming them, through that file (``via``). An rpc's own
    callers and handlers were found with the RPC (at any depth) at the first level."""
    if not containers:
        return []
    defining = sorted({path for paths in containers.values() for path in paths})
    wanted = set(containers)
    packages = dict(_batched(db, _PACKAGE_OF_FILES, defining))

    def via(edge: Edge) -> str:
        """The file the code imported, else the copy laid out as protoc expects, else the first."""
        paths = containers[edge.about]
        if edge.via in paths:
            return edge.via
        return min(paths, key=lambda path: (not _protoc_layout(path, packages.get(path, "")), path))

    hits = _field_hits(db, wanted, defining) + _naming_hits(db, wanted, defining)
    return [attrs.evolve(hit, edge=attrs.evolve(hit.edge, via=via(hit.edge))) for hit in hits]


def find_dependents(
    db: sqlite3.Connection, targets: Sequence[Target], depth: int, *, budget: int | None = None
) -> Found:
    """Every file depending on any of ``targets`` within ``depth`` levels (breadth first).

    With ``budget``, the walk goes to the next level only while it has found at most ``budget``
    dependents: the levels it walked are whole, those past ``Found.walked`` are not looked at (a
    file imported by thousands costs one level, not the thousands of files importing those)."""
    depth = max(1, min(depth, MAX_DEPTH))
    cut: int | None = None
    held = _Held.of(targets)
    found: dict[str, Dependent] = {}
    hits, carriers = _first_hop(db, targets)
    for level in range(1, depth + 1):
        fresh: dict[str, tuple[str, str, set[Edge]]] = {}
        for hit in hits:
            if hit.path in found or held(hit.path, hit.service):
                continue
            fresh.setdefault(hit.path, (hit.service, hit.kind, set()))[2].add(hit.edge)
        for path in sorted(fresh):
            service, kind, edges = fresh[path]
            ordered = tuple(edges) if len(edges) == 1 else tuple(sorted(edges, key=Edge.order))
            found[path] = Dependent(path, service, kind, level, ordered)
        if level == depth or not fresh:
            break
        if budget is not None and len(found) > budget:
            cut = level
            break
        data = {path: edges for path, (_, kind, edges) in fresh.items() if _holds_data(kind, edges)}
        files = {path: kind for path, (_, kind, _) in fresh.items() if kind != "docs" and path not in data}
        containers = _containers_of(db, data)
        if level == 1:
            for full, paths in _own_containers(db, targets).items():
                containers.setdefault(full, set()).update(paths)
        hits = _file_edges(db, files) + _container_hits(db, containers)
    dependents = tuple(sorted(found.values(), key=Dependent.order))
    return Found(tuple(targets), depth, dependents, tuple(carriers), cut)


def cut_order(found: Found, cut: int | None) -> Found:
    """``found`` (a whole walk) in the order of the same walk cut after level ``cut``: the dependents
    of levels up to ``cut`` first, then the others, each part by service, level and path. Paging
    through the cut walk's answer, then this one past it, shows every dependent exactly once."""
    if cut is None:
        return found
    ordered = tuple(sorted(found.dependents, key=lambda d: (d.level > cut, *d.order())))
    return attrs.evolve(found, dependents=ordered, ordered_cut=cut)


# -- a first level read a page at a time ------------------------------------------------------------

#: ``scope_of(f.path)`` in SQL: the first two components of a path, its first of two, or itself.
_SCOPE_SQL: Final = (
    "CASE WHEN instr(f.path, '/') = 0 THEN f.path"
    " WHEN instr(substr(f.path, instr(f.path, '/') + 1), '/') = 0 THEN substr(f.path, 1, instr(f.path, '/') - 1)"
    " ELSE substr(f.path, 1, instr(f.path, '/') + instr(substr(f.path, instr(f.path, '/') + 1), '/') - 1) END"
)


def first_level_page(
    db: sqlite3.Connection, targets: Sequence[Target], depth: int, *, budget: int, offset: int, size: int
) -> Found | None:
    """Level 1 of the dependents of ``targets`` (files, or one folder) from ``offset``, at most
    ``size`` of them, and exact counts of the whole level (:class:`Window`); None when a bounded walk
    is as cheap (its first level holds at most ``budget`` dependents) or the targets are others.

    The importers of the targets' files (of the folder and the files under it, from outside it) are
    counted and grouped in SQL (``imports_target_file``: one index entry each, no row of theirs
    read); only the page's importers are read whole. Their order is :func:`find_dependents`': by
    service (no service last), then path. A walk deeper than one level is cut after it
    (``Found.cut`` is 1), as a bounded walk of that level would be.

    Everything but the page (the counts, the dependents through other edges) is the same for every
    page of one snapshot: it is kept, for the last few hubs, by snapshot (:func:`_level_of`)."""
    level = _level_of(db, targets, budget)
    if level is None:
        return None
    into, keys_params, imports, params = level.into, level.keys_params, level.imports, level.params
    services = {service: (count, tests) for service, count, tests in level.services}
    whole, alone, total = dict(level.whole), dict(level.alone), level.total
    ordered = list(services)  # by service, no service last
    page: list[tuple[str, str]] = []  # (service, path) from offset
    ids: dict[int, tuple[str, str]] = {}  # file id -> (path, kind) of the page's importers
    before = 0
    for service in ordered:
        count = services[service][0]
        if before + count > offset and len(page) < size:
            wanted = offset + size - before  # the first this many of the service's dependents
            rows = db.execute(
                f"SELECT f.id, f.path, f.kind FROM files f WHERE f.service = ? AND {imports} ORDER BY f.path LIMIT ?",
                (service, *params, wanted),
            ).fetchall()
            ids.update((file_id, (path, kind)) for file_id, path, kind in rows)
            merged = sorted([*(path for _, path, _ in rows), *alone.get(service, ())])[:wanted]
            page += [(service, path) for path in merged[max(0, offset - before) :]]
        before += count
    page = page[:size]
    shown = {path for _, path in page}
    ids = {file_id: row for file_id, row in ids.items() if row[0] in shown and row[0] not in whole}
    edges: dict[str, set[Edge]] = defaultdict(set)
    for file_id, line, module, target in _batched(
        db, f"SELECT file_id, line, module, target_path FROM imports WHERE file_id IN ({{marks}}) AND {into}",
        ids, *keys_params,
    ):  # fmt: skip
        edges[ids[file_id][0]].add(Edge(EdgeKind.IMPORT, "import", line, module, via=target))
    kinds = {path: kind for path, kind in ids.values()}
    dependents = [
        whole[path] if path in whole else Dependent(path, service, kinds[path], 1, _in_order(edges[path]))
        for service, path in page
    ]
    window = Window(
        first=offset,
        total=total,
        services=tuple((service, *services[service]) for service in ordered),
        scopes=level.scopes,
        others=level.others,
    )
    depth = max(1, min(depth, MAX_DEPTH))
    return Found(tuple(targets), depth, tuple(dependents), level.carriers, 1 if depth > 1 else None, window=window)


#: The levels :func:`_level_of` keeps: the last few hubs' (a few KB each).
_LEVELS_KEPT: Final = 8
_levels_lock = threading.Lock()
_levels_kept: dict[tuple, _Level] = {}


@attrs.frozen
class _Level:
    """What every page of a hub's first level shares in one snapshot: the SQL that finds its
    importers, their exact counts, and the dependents through other edges, read whole."""

    #: The condition on ``imports`` an import of the targets meets, and its parameters.
    into: str
    keys_params: tuple[str, ...]
    #: The condition on ``files f`` a dependent importing the targets meets, and its parameters.
    imports: str
    params: tuple[str, ...]
    #: (service, dependents, test files among them), by service, the files of no service last.
    services: tuple[tuple[str, int, int], ...]
    scopes: tuple[tuple[str, int], ...]
    #: The dependents through another edge than an import of the targets, by path, and in order.
    whole: tuple[tuple[str, Dependent], ...]
    others: tuple[Dependent, ...]
    #: service -> paths of the dependents through other edges only.
    alone: tuple[tuple[str, tuple[str, ...]], ...]
    carriers: tuple[Carrier, ...]
    total: int


def _level_of(db: sqlite3.Connection, targets: Sequence[Target], budget: int) -> _Level | None:
    """:func:`_count_level`, kept for the next page of the same hub in the same snapshot (keyed by
    the database file, ``meta.generation`` and the last rows of ``files`` and ``imports``, as
    :func:`mesh.index.query._search._names_of` keys its names): counting 17,606 importers costs
    about 18 ms at 100,000 files, a page of them about 1 ms."""
    key = _snapshot_key(db)
    if key is not None:
        key = (*key, tuple(targets), budget)
        with _levels_lock:
            level = _levels_kept.get(key)
        if level is not None:
            return level
    level = _count_level(db, targets, budget)
    if key is not None and level is not None:  # a target within the budget costs one count: not kept
        with _levels_lock:
            while len(_levels_kept) >= _LEVELS_KEPT:
                del _levels_kept[next(iter(_levels_kept))]
            _levels_kept[key] = level
    return level


def _snapshot_key(db: sqlite3.Connection) -> tuple | None:
    """What tells the snapshot ``db`` reads from any other (None: nothing does, an in-memory database)."""
    path = next((row[2] for row in db.execute("PRAGMA database_list") if row[1] == "main"), "")
    if not path:
        return None
    try:
        generation = db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    except sqlite3.OperationalError:  # no meta table: nothing tells one generation from the next
        return None
    if generation is None:
        return None
    last_file = db.execute("SELECT max(id) FROM files").fetchone()[0]
    last_import = db.execute("SELECT max(rowid) FROM imports").fetchone()[0]
    return (path, generation[0], last_file, last_import)


def _count_level(db: sqlite3.Connection, targets: Sequence[Target], budget: int) -> _Level | None:
    """The counts of the first level of ``targets`` (see :func:`first_level_page`), None when it holds
    at most ``budget`` dependents or the targets are others."""
    if targets and all(target.kind == "file" for target in targets):
        keys = sorted(_import_keys(path for target in targets for path in target.files))
        marks = ", ".join("?" * len(keys))
        if len(keys) > BATCH:
            return None
        into, outside = f"target_path IN ({marks})", ""  # an import of one of them; from any file but them
        listed = f"SELECT file_id FROM imports WHERE {into}"
        keys_params: tuple[str, ...] = tuple(keys)
    elif len(targets) == 1 and targets[0].kind == "folder" and not targets[0].service and targets[0].folders:
        folder = targets[0].folders[0]
        into = "(target_path = ? OR (target_path > ? AND target_path < ?))"  # into it or under it (an index range)
        # the same, listed from the index alone (an OR reads each row to drop the duplicates)
        listed = (
            "SELECT file_id FROM imports WHERE target_path = ?"
            " UNION ALL SELECT file_id FROM imports WHERE target_path > ? AND target_path < ?"
        )
        keys_params = (folder, folder + "/", folder + "0")
        outside = " AND NOT (f.path > ? AND f.path < ?)"  # from outside it
    else:
        return None
    if db.execute(f"SELECT count(*) FROM imports WHERE {into}", keys_params).fetchone()[0] <= budget:
        return None  # no more dependents than import rows: a bounded walk reads them all at once
    held = _Held.of(targets)
    own = sorted(held.files)
    # a file importing one: probed file by file (a page), or the importers listed once (the counts)
    probe = into.replace("target_path", "i.target_path")
    imports = f"EXISTS (SELECT 1 FROM imports i WHERE {probe} AND i.file_id = f.id)"
    importers = f"f.id IN ({listed})"
    not_own = f" AND f.path NOT IN ({', '.join('?' * len(own))}){outside}"
    imports, importers = imports + not_own, importers + not_own
    params = (*keys_params, *own, *(keys_params[1:] if outside else ()))
    # the other first-hop edges (gRPC, messages, links) are few: read whole, merged in path order
    hits, carriers = _first_hop(db, targets, file_imports=False)
    others: dict[str, tuple[str, str, set[Edge]]] = {}
    for hit in hits:
        if not held(hit.path, hit.service):
            others.setdefault(hit.path, (hit.service, hit.kind, set()))[2].add(hit.edge)
    services: dict[str, list[int]] = {}
    for service, count, tests in db.execute(
        f"SELECT f.service, count(*), sum(f.kind = 'test') FROM files f WHERE {importers} GROUP BY 1", params
    ):
        services[service] = [count, tests]
    # a service whose folders all lie in one sub-scope holds no file of another: its count is that
    # scope's; only the files of other services (and of none) have their scope cut from their path
    scopes: Counter[str] = Counter()
    spread: list[str] = []
    uniform = _uniform_scopes(db)
    for service, (count, _) in services.items():
        if service in uniform:
            scopes[uniform[service]] += count
        else:
            spread.append(service)
    for scope, count in _batched(
        db, f"SELECT {_SCOPE_SQL}, count(*) FROM files f WHERE f.service IN ({{marks}}) AND {importers} GROUP BY 1",
        spread, *params,
    ):  # fmt: skip
        scopes[scope] += count
    importing: dict[str, set[Edge]] = defaultdict(set)  # the import edges of those that import one too
    for path, line, module, target in _batched(
        db, "SELECT f.path, i.line, i.module, i.target_path FROM imports i JOIN files f ON f.id = i.file_id"
        f" WHERE f.path IN ({{marks}}) AND {probe}",
        others, *keys_params,
    ):  # fmt: skip
        importing[path].add(Edge(EdgeKind.IMPORT, "import", line, module, via=target))
    whole = {
        path: Dependent(path, service, kind, 1, _in_order(edges | importing.get(path, set())))
        for path, (service, kind, edges) in others.items()
    }
    alone: dict[str, list[str]] = defaultdict(list)  # service -> paths of dependents through other edges only
    for path in sorted(others):
        if path in importing:
            continue
        service, kind, _ = others[path]
        cells = services.setdefault(service, [0, 0])
        cells[0] += 1
        cells[1] += kind == "test"
        scopes[scope_of_path(path)] += 1
        alone[service].append(path)
    total = sum(count for count, _ in services.values())
    if total <= budget:
        return None
    ordered = sorted(services, key=lambda name: (not name, name))
    return _Level(
        into=into,
        keys_params=tuple(keys_params),
        imports=imports,
        params=tuple(params),
        services=tuple((service, *services[service]) for service in ordered),
        scopes=tuple(sorted(scopes.items())),
        whole=tuple(sorted(whole.items())),
        others=tuple(sorted(whole.values(), key=Dependent.order)),
        alone=tuple((service, tuple(paths)) for service, paths in sorted(alone.items())),
        carriers=tuple(carriers),
        total=total,
    )


def _in_order(edges: set[Edge]) -> tuple[Edge, ...]:
    """A dependent's edges as :func:`find_dependents` keeps them."""
    return tuple(edges) if len(edges) == 1 else tuple(sorted(edges, key=Edge.order))


def _uniform_scopes(db: sqlite3.Connection) -> dict[str, str]:
    """The services whose every file lies in one sub-scope (:func:`scope_of_path`), and that scope:
    those whose folders all have two components or more and share the first two."""
    uniform = {}
    for name, path, extra in db.execute("SELECT name, path, extra FROM services ORDER BY name"):
        folders = [path, *json.loads(extra)] if extra != "[]" else [path]
        scopes = {"/".join(folder.split("/")[:2]) for folder in folders if folder.count("/") >= 1}
        if len(scopes) == 1 and all(folder.count("/") >= 1 for folder in folders):
            uniform[name] = scopes.pop()
    return uniform


def scope_of_path(path: str) -> str:
    """:data:`_SCOPE_SQL` in Python (as :func:`mesh.render._paging.scope_of`)."""
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0] if len(parts) > 1 else path


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
    #: Dependents at level 1 sending a request to a changed route, or consuming a changed producer's topic.
    link: int = 0
    #: Some dependent here was reached through an HTTP request; through a topic.
    http: bool = False
    messaging: bool = False

    @property
    def impacted(self) -> bool:
        return self.direct + self.transitive + self.rpc + self.message + self.link + self.tests > 0


@attrs.frozen
class Impact:
    #: One row per service that changed or holds a dependent, by name.
    rows: tuple[ImpactRow, ...]
    #: The dependents in scope, sorted by service (no service last), level, path.
    dependents: tuple[Dependent, ...]
    #: Services holding a dependent; those reached through gRPC, HTTP, messaging.
    impacted: int
    via_grpc: int
    via_http: int = 0
    via_messaging: int = 0


def impact_of(found: Found, scope: Scope | None = None) -> Impact:
    """The ``impact_matrix`` table of ``found``, limited to ``scope``; of a first level read a page
    at a time (``found.window``, never scoped), from the window's counts: each dependent there is an
    import (a direct dependent) unless it is one of ``window.others``, whose edges are all known."""
    window = found.window
    dependents = tuple(d for d in found.dependents if scope is None or scope.holds(d.path, d.service))
    changed: Counter[str] = Counter()
    for target in found.targets:
        for service, count in target.owners:
            if scope is None or _changed_in_scope(target, service, scope):
                changed[service] += count
    columns: dict[str, Counter[str]] = defaultdict(Counter)
    for dependent in dependents if window is None else window.others:
        kinds = {edge.kind for edge in dependent.edges}
        cells = columns[dependent.service]
        cells["any"] += 1
        if dependent.level == 1:
            cells["direct"] += bool(kinds & {EdgeKind.IMPORT, EdgeKind.REFERENCE})
            cells["rpc"] += bool(kinds & {EdgeKind.CALL, EdgeKind.SERVE})
            cells["message"] += EdgeKind.MESSAGE in kinds
            cells["link"] += bool(kinds & {EdgeKind.HTTP, EdgeKind.MESSAGING})
        else:
            cells["transitive"] += 1
        cells["tests"] += dependent.kind == "test"
        cells["grpc"] += any(edge.grpc for edge in dependent.edges)
        cells["http"] += EdgeKind.HTTP in kinds
        cells["messaging"] += EdgeKind.MESSAGING in kinds
    for service, count, tests in () if window is None else window.services:  # the rest import a target
        cells = columns[service]
        cells["direct"] += count - cells["any"]
        cells["tests"] = tests
        cells["any"] = count
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
            link=columns[service]["link"],
            http=columns[service]["http"] > 0,
            messaging=columns[service]["messaging"] > 0,
        )
        for service in sorted(set(changed) | set(columns), key=lambda name: (not name, name))  # no service last
    )
    # areas and root files (service "") are rows of the table, but no verdict counts them
    impacted = sum(1 for service in columns if service and columns[service]["any"])
    named = [row for row in rows if row.service]
    return Impact(
        rows, dependents, impacted, sum(1 for row in named if row.grpc), sum(1 for row in named if row.http),
        sum(1 for row in named if row.messaging),
    )  # fmt: skip


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
    found = [name for name in sorted(names_like(db, word), key=lambda name: (len(name), name))[:4] if name != text]
    for sql in (
        "SELECT path FROM files WHERE path LIKE ? ESCAPE '\\' ORDER BY length(path), path LIMIT 4",
        (
            "SELECT DISTINCT module FROM imports WHERE module LIKE ? ESCAPE '\\' AND target_path IS NOT NULL"
            " ORDER BY length(module), module LIMIT 2"
        ),
    ):
        found += [name for (name,) in db.execute(sql, (needle,)) if name not in found and name != text]
    return found[:SUGGESTIONS_MAX]
