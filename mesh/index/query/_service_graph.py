"""The service graph of one snapshot: which service depends on which, through imports and gRPC.

Theory of operation
-------------------
**Nodes** are the rows of ``services``, by name, with their folder, languages and indexed files.
Files that belong to no service (``files.service = ''``, a root ``README.md``) are nobody's edge,
except that an *area* (a folder holding no service: shared protos, a contracts folder) that a
service imports from, or that owns a contract nobody implements, is a node of kind ``area`` named
by its folder and a slash (``proto/``), so that the dependency stays visible.

**Import edges.** Service A depends on service B (B ≠ A) when a file of A has an import that the
resolver tied to a file or folder of B (``imports.target_service``). A document's link
(``files.kind = 'docs'``: a README pointing at another service's README) is not a dependency: a
root ``docs`` folder linking every service would otherwise be a hub that hides the real shape.
An edge counts the import statements and the files holding them.

**gRPC edges.** A has a client (a stub made) or a call of a gRPC service S (``grpc.service_key``,
``package.Service``, filled by ``_resolve`` from the ``.proto`` files), and B ≠ A implements S: B
holds a SERVER or HANDLER fact of S outside its tests (a fake server in a test is not where calls
go). The edge carries the methods A calls (``method_key``, ``package.Service/Method``; a call the
resolver could not tie to a declared method keeps the code's spelling after ``package.Service/``),
and its evidence is A's call sites, or its client sites when A calls no method of S (as
``dependents`` chooses its gRPC evidence). When several services S connect the same A and B, they
make one edge.

**A service nobody implements.** When no service in the workspace implements S, the calls still
say that A depends on S's contract: the edge goes to the service owning S's ``.proto`` and is
marked ``unimplemented``. Of several copies of the ``.proto``, the one laid out as protoc expects
(``acme/orders/v1/x.proto`` for ``acme.orders.v1``) is the contract, then the first path (as
``grpc_trace`` picks its reference copy); no edge is drawn when that owner is A itself. Facts
without a ``service_key`` (their ``.proto`` lies outside the workspace, such as
``grpc.health.v1.Health``) draw no edge: nothing tells which service is at the other end.

Everything is sorted (nodes by name; edges by source, target, kind, then implemented before
unimplemented; methods and evidence by value), so one snapshot always gives the same graph.
"""

from __future__ import annotations

import posixpath
import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from typing import Final

import attrs

from ._graph import _under
from ._grpc_query import _protoc_layout
from ._links import by_topic, load_links

__all__ = ["EVIDENCE_MAX", "EdgeKind", "ServiceEdge", "ServiceGraph", "ServiceNode", "service_graph"]

#: Evidence lines kept per edge; ``count`` says how many exist.
EVIDENCE_MAX: Final = 5


class EdgeKind:
    """Why one service depends on another (plain strings)."""

    #: A file imports a file or folder of the other service.
    IMPORT = "import"
    #: It makes a client of, or calls, a gRPC service the other one implements (or owns the contract of).
    GRPC = "grpc"
    #: It sends HTTP requests the other one serves (or to an external service's host).
    HTTP = "http"
    #: It produces messages on a topic the other one consumes (``source`` producer, ``target``
    #: consumer, through the broker), or, to a broker node, it produces or consumes there.
    MESSAGING = "messaging"


@attrs.frozen
class ServiceNode:
    name: str
    #: The service's folder, workspace-relative ("" for the root).
    path: str
    languages: tuple[str, ...]
    #: Indexed files of the service.
    files: int
    #: "service", "area" for a folder holding no service that a service depends on, or "external"
    #: for infrastructure deployed but built nowhere in the workspace (a broker, a database) that a
    #: link reaches.
    kind: str = "service"


@attrs.frozen
class ServiceEdge:
    """``source`` depends on ``target``."""

    source: str
    target: str
    #: :class:`EdgeKind`: "import" | "grpc".
    kind: str
    #: Import statements, or gRPC call sites (client sites when the source calls no method).
    count: int
    #: Distinct files of ``source`` holding those.
    files: int
    #: gRPC methods called (``package.Service/Method``), HTTP routes called (``GET /orders/{id}``),
    #: topics (messaging), sorted; empty for imports.
    methods: tuple[str, ...] = ()
    #: gRPC services (``package.Service``) the edge stands for; for messaging, the brokers; sorted.
    services: tuple[str, ...] = ()
    #: gRPC only: no service implements them; ``target`` owns their ``.proto``.
    unimplemented: bool = False
    #: At most ``EVIDENCE_MAX`` sites as ``path:line`` (the first of each file, then the next ones),
    #: by path then line.
    evidence: tuple[str, ...] = ()

    def order(self) -> tuple[str, str, str, bool]:
        return (self.source, self.target, self.kind, self.unimplemented)


@attrs.frozen
class ServiceGraph:
    #: The workspace folder's name (never its absolute path).
    workspace: str
    #: By name.
    nodes: tuple[ServiceNode, ...]
    #: By :meth:`ServiceEdge.order`.
    edges: tuple[ServiceEdge, ...]


def service_graph(db: sqlite3.Connection) -> ServiceGraph:
    """The service graph of the snapshot ``db`` (inside one read transaction); see the module doc."""
    services = _nodes(db)
    names = {node.name for node in services}
    areas = [area for (area,) in db.execute("SELECT path FROM areas ORDER BY length(path) DESC, path")]
    edges = [*_import_edges(db, names, areas), *_grpc_edges(db, names, areas), *_link_edges(db, names)]
    targets = {edge.target for edge in edges}
    used = [_area_node(db, area) for area in sorted(areas) if _area_name(area) in targets]
    externals = [
        ServiceNode(name, "", (), 0, kind="external")
        for name in sorted(targets - names - {_area_name(area) for area in areas})
    ]
    nodes = tuple(sorted((*services, *used, *externals), key=lambda node: node.name))
    return ServiceGraph(workspace=_workspace_name(db), nodes=nodes, edges=tuple(sorted(edges, key=ServiceEdge.order)))


def _area_name(area: str) -> str:
    return area + "/"


def _area_of(path: str, areas: list[str]) -> str | None:
    """The node name of the area holding ``path`` (``areas`` longest first), None when none does."""
    for area in areas:
        if path == area or path.startswith(area + "/"):
            return _area_name(area)
    return None


def _area_node(db: sqlite3.Connection, area: str) -> ServiceNode:
    where, params = _under("path", area)
    rows = db.execute(
        f"SELECT language, count(*) FROM files WHERE {where} AND service = '' GROUP BY language ORDER BY 2 DESC, 1",
        params,
    ).fetchall()
    languages = tuple(language for language, _ in rows if language)
    return ServiceNode(_area_name(area), area, languages, sum(count for _, count in rows), kind="area")


def _workspace_name(db: sqlite3.Connection) -> str:
    row = db.execute("SELECT value FROM meta WHERE key = 'root'").fetchone()
    return posixpath.basename(row[0].replace("\\", "/").rstrip("/")) if row else ""


def _nodes(db: sqlite3.Connection) -> tuple[ServiceNode, ...]:
    files = dict(db.execute("SELECT service, count(*) FROM files GROUP BY service").fetchall())
    return tuple(
        ServiceNode(name, path, tuple(language for language in languages.split(",") if language), files.get(name, 0))
        for name, path, languages in db.execute("SELECT name, path, languages FROM services ORDER BY name")
    )


#: A site of evidence: (path, line).
_Site = tuple[str, int]


def _edge(
    source: str,
    target: str,
    kind: str,
    sites: Iterable[_Site],
    *,
    methods: tuple[str, ...] = (),
    services: tuple[str, ...] = (),
    unimplemented: bool = False,
) -> ServiceEdge:
    ordered = sorted(set(sites))
    first_of: dict[str, _Site] = {}
    for site in ordered:
        first_of.setdefault(site[0], site)
    # the first line of each file before a second line of any: five files say more than one file's five lines
    shown = list(first_of.values())[:EVIDENCE_MAX]
    taken = set(shown)
    shown += [site for site in ordered if site not in taken][: EVIDENCE_MAX - len(shown)]
    return ServiceEdge(
        source=source,
        target=target,
        kind=kind,
        count=len(ordered),
        files=len(first_of),
        methods=methods,
        services=services,
        unimplemented=unimplemented,
        evidence=tuple(f"{path}:{line}" for path, line in sorted(shown)),
    )


def _import_edges(db: sqlite3.Connection, names: set[str], areas: list[str]) -> list[ServiceEdge]:
    sites: dict[tuple[str, str], list[_Site]] = defaultdict(list)
    for source, target, target_path, path, line in db.execute(
        "SELECT f.service, i.target_service, i.target_path, f.path, i.line FROM imports i"
        " JOIN files f ON f.id = i.file_id"
        " WHERE i.target_service IS NOT NULL AND i.target_service != f.service AND f.kind != 'docs'"
    ):
        if not target and target_path:
            target = _area_of(target_path, areas) or ""
        if source in names and (target in names or target.endswith("/")):
            sites[source, target].append((path, line))
    return [_edge(source, target, EdgeKind.IMPORT, found) for (source, target), found in sites.items()]


@attrs.define
class _Uses:
    """What one service does with one gRPC service: its calls and its clients."""

    calls: list[_Site] = attrs.field(factory=list)
    clients: list[_Site] = attrs.field(factory=list)
    methods: set[str] = attrs.field(factory=set)


def _grpc_edges(db: sqlite3.Connection, names: set[str], areas: list[str]) -> list[ServiceEdge]:
    implementers: dict[str, set[str]] = defaultdict(set)
    uses: dict[tuple[str, str], _Uses] = defaultdict(_Uses)
    for owner, path, kind, role, line, key, method_key, method in db.execute(
        "SELECT f.service, f.path, f.kind, g.role, g.line, g.service_key, g.method_key, g.method FROM grpc g"
        " JOIN files f ON f.id = g.file_id WHERE g.service_key IS NOT NULL"
    ):
        if owner not in names:
            continue
        if role in ("server", "handler"):
            if kind != "test":
                implementers[key].add(owner)
        elif role == "call":
            use = uses[owner, key]
            use.calls.append((path, line))
            use.methods.add(method_key or f"{key}/{method}")
        elif role == "client":
            uses[owner, key].clients.append((path, line))
    contracts = _contract_owners(db, areas)
    # (source, target, unimplemented) -> the gRPC services joined in that edge
    joined: dict[tuple[str, str, bool], list[tuple[str, _Uses]]] = defaultdict(list)
    for (source, key), use in uses.items():
        if implementers.get(key):
            targets, unimplemented = implementers[key], False
        else:
            targets, unimplemented = {contracts[key]} if key in contracts else set(), True
        for target in targets - {source}:
            if target in names or target.endswith("/"):
                joined[source, target, unimplemented].append((key, use))
    edges = []
    for (source, target, unimplemented), found in joined.items():
        sites = [site for _, use in found for site in (use.calls or use.clients)]
        edges.append(
            _edge(
                source,
                target,
                EdgeKind.GRPC,
                sites,
                methods=tuple(sorted({method for _, use in found for method in use.methods})),
                services=tuple(sorted(key for key, _ in found)),
                unimplemented=unimplemented,
            )
        )
    return edges


def _contract_owners(db: sqlite3.Connection, areas: list[str]) -> dict[str, str]:
    """gRPC service key -> the workspace service (or area node) owning its contract: the copy of
    its ``.proto`` laid out as protoc expects, then the first path."""
    best: dict[str, tuple[bool, str, str]] = {}
    for package, name, path, owner in db.execute(
        "SELECT ps.package, ps.name, f.path, f.service FROM proto_services ps JOIN files f ON f.id = ps.file_id"
    ):
        key = f"{package}.{name}" if package else name
        owner = owner or _area_of(path, areas) or ""
        candidate = (not _protoc_layout(path, package), path, owner)
        if key not in best or candidate < best[key]:
            best[key] = candidate
    return {key: owner for key, (_, _, owner) in best.items()}


def _link_edges(db: sqlite3.Connection, names: set[str]) -> list[ServiceEdge]:
    """HTTP edges (a call to a service or an external host the deployments name) and messaging
    edges (producer to consumer of one topic, and each to its broker); tests draw none."""
    links = load_links(db)
    calls: dict[tuple[str, str], list[tuple[_Site, str]]] = defaultdict(list)
    externals = {name for (name,) in db.execute("SELECT name FROM externals")}
    for call in links.calls:
        if call.test or call.service not in names or not call.target or call.target == call.service:
            continue
        if call.target_kind == "service" and call.target in names or call.target_kind == "external" and call.target in externals:
            reached = [route.label for route in links.routes_of(call) if route.service == call.target]
            label = reached[0] if len(set(reached)) == 1 else call.label  # the route it reaches, when one
            calls[call.service, call.target].append(((call.file, call.line), label))
    edges = [
        _edge(source, target, EdgeKind.HTTP, [site for site, _ in found], methods=tuple(sorted({label for _, label in found})))
        for (source, target), found in calls.items()
    ]
    flows: dict[tuple[str, str], list[tuple[_Site, str, str]]] = defaultdict(list)
    for topic, messages in by_topic([m for m in links.messages if not m.test and m.service in names]).items():
        producers = [m for m in messages if m.role == "produce"]
        consumers = [m for m in messages if m.role == "consume"]
        for message in messages:
            broker = links.broker_of(message)
            if broker not in names:
                flows[message.service, broker].append(((message.file, message.line), message.topic, message.broker))
        for producer in producers:
            for consumer in consumers:
                if consumer.service != producer.service:
                    flows[producer.service, consumer.service].append(
                        ((producer.file, producer.line), producer.topic, links.broker_of(producer))
                    )
    edges += [
        _edge(source, target, EdgeKind.MESSAGING, [site for site, _, _ in found],
              methods=tuple(sorted({topic for _, topic, _ in found})),
              services=tuple(sorted({broker for _, _, broker in found if broker})))  # fmt: skip
        for (source, target), found in flows.items()
    ]
    return edges
