"""``mesh-mcp graph``: the service graph query, its three renderings, the layout and the command.

The fixture's graph is checked edge by edge against ``tests/fixtures/workspace/FIXTURE.md``
("Client of" in the layout table, and the imports of the generated code of ``proto/``). Corner
cases the fixture does not hold (a contract nobody implements, unresolved gRPC, hostile names)
use a workspace written by the test or rows written straight into an index.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from mesh.commands.graph import run_graph
from mesh.cli import main
from mesh.index import Index, Store
from mesh.index.query._service_graph import EVIDENCE_MAX, ServiceEdge, ServiceGraph, ServiceNode, service_graph
from mesh.render._graph import (
    CSP,
    JSON_VERSION,
    Box,
    _label_size,
    edge_label,
    graph_html,
    graph_json,
    graph_mermaid,
    layout,
)

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "workspace"


def graph_of(workspace: Path, cache: Path) -> ServiceGraph:
    """The service graph of ``workspace``, indexed from nothing into ``cache``."""
    index = Index(workspace, cache, workers=1)
    try:
        assert index.refresh().failures == ()
        with index.store.snapshot() as db:
            return service_graph(db)
    finally:
        index.close()


@pytest.fixture(scope="module")
def fixture_graph(tmp_path_factory: pytest.TempPathFactory) -> ServiceGraph:
    return graph_of(FIXTURE, tmp_path_factory.mktemp("graph-index"))


# -- the fixture's graph --------------------------------------------------------------------------

#: docs/ is an area nobody depends on (no node); proto/ is an area the services import from: a node
#: of kind "area", named with a slash; kafka is the broker of the topic orders.placed, deployed
#: nowhere in the workspace: a node of kind "external".
NODES = [
    ("gateway", "gateway", ("typescript", "markdown", "proto"), 10),
    ("inventory", "inventory", ("go", "markdown"), 7),
    ("kafka", "", (), 0),
    ("notifications", "notifications", ("csharp", "markdown"), 7),
    ("orders", "orders", ("python", "markdown", "proto"), 10),
    ("payments", "payments", ("java", "markdown"), 8),
    ("proto/", "proto", ("proto",), 4),
    ("shipping", "shipping", ("rust", "markdown"), 10),
]

#: FIXTURE.md: "Client of", each client matched to the service implementing it (its own tests'
#: calls, such as payments' PaymentsServiceTest, stay inside the service).
GRPC_EDGES = [
    ("gateway", "orders", ("acme.orders.v1.Orders/GetOrder", "acme.orders.v1.Orders/PlaceOrder"),
     ("gateway/src/orders.ts:45", "gateway/src/orders.ts:54")),
    ("gateway", "payments", ("acme.payments.v1.Payments/Charge",), ("gateway/src/payments.ts:25",)),
    ("inventory", "orders", ("acme.orders.v1.Orders/GetOrder",), ("inventory/internal/orders/client.go:33",)),
    ("notifications", "orders", ("acme.orders.v1.Orders/WatchOrder",), ("notifications/OrderWatcher.cs:21",)),
    ("orders", "inventory", ("acme.inventory.v1.Inventory/Release", "acme.inventory.v1.Inventory/Reserve"),
     ("orders/orders/inventory.py:27", "orders/orders/inventory.py:38")),
    ("orders", "payments", ("acme.payments.v1.Payments/Charge",), ("orders/orders/service.py:58",)),
    ("payments", "orders", ("acme.orders.v1.Orders/GetOrder",),
     ("payments/src/main/java/com/acme/payments/orders/GrpcOrderLookup.java:21",)),
    ("shipping", "inventory", ("acme.inventory.v1.Inventory/Reserve",), ("shipping/src/inventory.rs:19",)),
    ("shipping", "orders", ("acme.orders.v1.Orders/GetOrder",), ("shipping/src/orders.rs:25",)),
]  # fmt: skip

#: Code and protos importing the contracts of ``proto/`` (shipping compiles its own copy in ``pb``).
IMPORT_EDGES = [
    ("gateway", "proto/", 1, 1, ("gateway/protos/orders.proto:5",)),
    ("inventory", "proto/", 4, 4, ("inventory/cmd/inventory/main.go:11", "inventory/internal/orders/client.go:9",
                                  "inventory/internal/server/server.go:9", "inventory/internal/server/server_test.go:8")),
    ("notifications", "proto/", 2, 2, ("notifications/OrderWatcher.cs:1", "notifications/Tests/StatusTextTests.cs:1")),
    ("orders", "proto/", 4, 4, ("orders/orders/inventory.py:8", "orders/orders/service.py:9",
                               "orders/protos/orders.proto:5", "orders/tests/test_service.py:8")),
    # 15 import lines in 4 files: the first line of each file comes before a second line of any
    ("payments", "proto/", 15, 4, ("payments/src/main/java/com/acme/payments/PaymentsService.java:5",
                                  "payments/src/main/java/com/acme/payments/PaymentsService.java:6",
                                  "payments/src/main/java/com/acme/payments/ledger/Ledger.java:3",
                                  "payments/src/main/java/com/acme/payments/orders/GrpcOrderLookup.java:3",
                                  "payments/src/test/java/com/acme/payments/PaymentsServiceTest.java:5")),
]  # fmt: skip


def test_fixture_nodes_are_its_services_and_the_areas_they_depend_on(fixture_graph: ServiceGraph) -> None:
    assert fixture_graph.workspace == "workspace"
    assert [(n.name, n.path, n.languages, n.files) for n in fixture_graph.nodes] == NODES
    assert [n.name for n in fixture_graph.nodes if n.kind == "area"] == ["proto/"]
    assert [n.name for n in fixture_graph.nodes if n.kind == "external"] == ["kafka"]


def test_fixture_grpc_edges_follow_the_clients_to_their_servers(fixture_graph: ServiceGraph) -> None:
    grpc = [edge for edge in fixture_graph.edges if edge.kind == "grpc"]
    assert [(e.source, e.target, e.methods, e.evidence) for e in grpc] == GRPC_EDGES
    assert all(e.count == len(e.evidence) and e.files == 1 and not e.unimplemented for e in grpc)
    assert {e.services for e in grpc} == {
        ("acme.inventory.v1.Inventory",), ("acme.orders.v1.Orders",), ("acme.payments.v1.Payments",)
    }  # fmt: skip


def test_fixture_import_edges_and_no_document_links(fixture_graph: ServiceGraph) -> None:
    imports = [edge for edge in fixture_graph.edges if edge.kind == "import"]
    assert [(e.source, e.target, e.count, e.files, e.evidence) for e in imports] == IMPORT_EDGES
    # docs/architecture.md links every service's README, the root README too: none is an edge
    assert not any("docs" in (edge.source, edge.target) for edge in fixture_graph.edges)


#: FIXTURE.md, "HTTP and messaging links": notifications asks the gateway for an order (a literal
#: host; the edge names the route it reaches); orders produces orders.placed, which notifications consumes through kafka.
HTTP_EDGES = [("notifications", "gateway", ("GET /orders/{id}",), ("notifications/OrderEvents.cs:23",))]
MESSAGING_EDGES = [
    ("notifications", "kafka", ("orders.placed",), ("kafka",), ("notifications/OrderEvents.cs:19",)),
    ("orders", "kafka", ("orders.placed",), ("kafka",), ("orders/orders/events.py:18",)),
    ("orders", "notifications", ("orders.placed",), ("kafka",), ("orders/orders/events.py:18",)),
]


def test_fixture_http_and_messaging_edges(fixture_graph: ServiceGraph) -> None:
    """INV-LINKS-2: the gateway test's computed fetch is no edge; only the literal host links."""
    http = [(e.source, e.target, e.methods, e.evidence) for e in fixture_graph.edges if e.kind == "http"]
    messaging = [
        (e.source, e.target, e.methods, e.services, e.evidence) for e in fixture_graph.edges if e.kind == "messaging"
    ]
    assert (http, messaging) == (HTTP_EDGES, MESSAGING_EDGES)


def test_fixture_edges_are_sorted(fixture_graph: ServiceGraph) -> None:
    assert list(fixture_graph.edges) == sorted(fixture_graph.edges, key=ServiceEdge.order)
    assert len(fixture_graph.edges) == len(GRPC_EDGES) + len(IMPORT_EDGES) + len(HTTP_EDGES) + len(MESSAGING_EDGES)


# -- a contract nobody implements, in a workspace of the test's own ------------------------------

THINGS_PROTO = """syntax = "proto3";

package acme.things.v1;

service Things {
  rpc GetThing(GetThingRequest) returns (Thing);
  rpc ListThings(GetThingRequest) returns (Thing);
}

message GetThingRequest {
  string id = 1;
}

message Thing {
  string id = 1;
}
"""
CALLER = """from acme.things.v1 import things_pb2, things_pb2_grpc


def fetch(channel, thing_id):
    stub = things_pb2_grpc.ThingsStub(channel)
    return stub.GetThing(things_pb2.GetThingRequest(id=thing_id))
"""
SERVER = """from acme.things.v1 import things_pb2_grpc


class FakeThings(things_pb2_grpc.ThingsServicer):
    def GetThing(self, request, context):
        return None
"""


def _things_workspace(root: Path, server_path: str) -> ServiceGraph:
    """contracts/ (the .proto as protoc lays it out), caller/ (a client and a copy of the .proto),
    fakes/ (a server of Things at ``server_path``)."""
    for path, text in (
        ("contracts/acme/things/v1/things.proto", THINGS_PROTO),
        ("caller/protos/things.proto", THINGS_PROTO),
        ("caller/client.py", CALLER),
        (server_path, SERVER),
    ):
        (root / "ws" / path).parent.mkdir(parents=True, exist_ok=True)
        (root / "ws" / path).write_text(text)
    return graph_of(root / "ws", root / "cache")


def test_a_contract_nobody_implements_points_at_its_proto_owner(tmp_path: Path) -> None:
    """A server in a test is not where calls go: the call goes to the owner of the .proto laid out
    as protoc expects, not to the caller's own copy, and the edge says so."""
    graph = _things_workspace(tmp_path, "fakes/tests/test_fake.py")
    grpc = [edge for edge in graph.edges if edge.kind == "grpc"]
    assert grpc == [
        ServiceEdge(
            source="caller",
            target="contracts/",  # an area: the folder holds the contract and no service
            kind="grpc",
            count=1,
            files=1,
            methods=("acme.things.v1.Things/GetThing",),
            services=("acme.things.v1.Things",),
            unimplemented=True,
            evidence=("caller/client.py:6",),
        )
    ]
    assert edge_label(grpc[0]) == ["unimplemented", "Things/GetThing"]
    assert 'svc_caller -.->|"unimplemented<br/>Things/GetThing"| svc_contracts_' in graph_mermaid(graph)


def test_a_served_contract_points_at_its_server(tmp_path: Path) -> None:
    graph = _things_workspace(tmp_path, "fakes/things/server.py")
    grpc = [(e.source, e.target, e.methods, e.unimplemented) for e in graph.edges if e.kind == "grpc"]
    assert grpc == [("caller", "fakes", ("acme.things.v1.Things/GetThing",), False)]


# -- corner cases, written straight into an index ------------------------------------------------


class _Rows:
    """Rows of an index written by hand, for cases no extractor produces on purpose."""

    def __init__(self, folder: Path, root: str = "/somewhere/shop") -> None:
        self.store = Store(folder)
        self.db = self.store.writer_connection()
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('root', ?)", (root,))
        self.ids: dict[str, int] = {}

    def service(self, name: str, languages: str = "go") -> None:
        self.db.execute("INSERT INTO services (name, path, origin, languages) VALUES (?, ?, 'folder', ?)", (name, name, languages))

    def file(self, path: str, service: str, kind: str = "code") -> int:
        if path not in self.ids:
            cursor = self.db.execute(
                "INSERT INTO files(path, service, language, kind, size, mtime_ns, hash, lines, error)"
                " VALUES (?, ?, 'go', ?, 1, 1, x'00', 1, '')",
                (path, service, kind),
            )
            self.ids[path] = int(cursor.lastrowid or 0)
        return self.ids[path]

    def imports(self, path: str, service: str, line: int, target: str, kind: str = "code") -> None:
        self.db.execute(
            "INSERT INTO imports(file_id, module, names, line, target_path, target_service) VALUES (?, 'm', '', ?, ?, ?)",
            (self.file(path, service, kind), line, target, target),
        )

    def grpc(
        self, path: str, service: str, role: str, line: int, key: str | None, method: str = "", *, declared: bool = True
    ) -> None:
        """A gRPC fact; ``declared=False``: a method the resolver found in no ``.proto`` (no method key)."""
        method_key = f"{key}/{method}" if key and method and declared else None
        self.db.execute(
            "INSERT INTO grpc(file_id, role, service, method, line, symbol, namespace, service_key, method_key)"
            " VALUES (?, ?, ?, ?, ?, '', '', ?, ?)",
            (self.file(path, service), role, (key or "X").rsplit(".", 1)[-1], method, line, key, method_key),
        )

    def proto(self, path: str, service: str, package: str, name: str) -> None:
        self.db.execute(
            "INSERT INTO proto_services VALUES (?, ?, ?, 1, 9)", (self.file(path, service, "proto"), package, name)
        )

    def graph(self) -> ServiceGraph:
        with self.store.snapshot() as db:
            return service_graph(db)


@pytest.fixture
def rows(tmp_path: Path) -> Iterator[_Rows]:
    made = _Rows(tmp_path / "index")
    yield made
    made.store.close()


def test_only_services_make_edges(rows: _Rows) -> None:
    """A file of no service (the root README) and a document's links are nobody's edge; an import
    inside one service is no edge; only the folder's name of the root is kept."""
    for name in ("a", "b"):
        rows.service(name)
    rows.imports("README.md", "", 3, "a", kind="docs")
    rows.imports("a/README.md", "a", 3, "b", kind="docs")
    rows.imports("a/x.go", "a", 4, "a")
    rows.imports("a/y.go", "a", 5, "nowhere")
    rows.imports("a/z.go", "a", 6, "b")
    graph = rows.graph()
    assert graph.workspace == "shop"
    assert [(e.source, e.target, e.kind, e.evidence) for e in graph.edges] == [("a", "b", "import", ("a/z.go:6",))]


def test_grpc_edges_join_services_and_keep_what_the_code_spelled(rows: _Rows) -> None:
    for name in ("api", "caller", "server"):
        rows.service(name)
    rows.proto("api/acme/v1/a.proto", "api", "acme.v1", "Alpha")
    rows.proto("api/acme/v1/b.proto", "api", "acme.v1", "Beta")
    rows.grpc("server/alpha.go", "server", "server", 3, "acme.v1.Alpha")
    rows.grpc("server/beta.go", "server", "handler", 8, "acme.v1.Beta", "Put")
    rows.grpc("caller/main.go", "caller", "client", 2, "acme.v1.Alpha")
    rows.grpc("caller/main.go", "caller", "call", 10, "acme.v1.Alpha", "Get")
    rows.grpc("caller/main.go", "caller", "call", 11, "acme.v1.Beta", "fetchAll", declared=False)
    rows.grpc("caller/main.go", "caller", "call", 12, None, "Check")  # unresolved (Health): no edge
    rows.grpc("caller/other.go", "caller", "client", 4, None)
    [edge] = rows.graph().edges
    assert edge == ServiceEdge(
        source="caller",
        target="server",
        kind="grpc",
        count=2,
        files=1,
        methods=("acme.v1.Alpha/Get", "acme.v1.Beta/fetchAll"),
        services=("acme.v1.Alpha", "acme.v1.Beta"),
        unimplemented=False,
        evidence=("caller/main.go:10", "caller/main.go:11"),
    )


def test_a_stub_without_calls_is_an_edge_with_its_client_sites(rows: _Rows) -> None:
    for name in ("caller", "server"):
        rows.service(name)
    rows.grpc("server/s.go", "server", "server", 3, "acme.v1.Alpha")
    rows.grpc("caller/b.go", "caller", "client", 9, "acme.v1.Alpha")
    rows.grpc("caller/a.go", "caller", "client", 7, "acme.v1.Alpha")
    [edge] = rows.graph().edges
    assert (edge.methods, edge.services, edge.count, edge.files) == ((), ("acme.v1.Alpha",), 2, 2)
    assert edge.evidence == ("caller/a.go:7", "caller/b.go:9")
    assert edge_label(edge) == ["Alpha (client)"]


def test_an_unimplemented_contract_of_the_caller_itself_draws_nothing(rows: _Rows) -> None:
    """The copy laid out as protoc expects (``x/acme/v1``) is the contract; when the caller owns it,
    there is nobody to point at, even if another service keeps a copy."""
    for name in ("caller", "copies"):
        rows.service(name)
    rows.proto("caller/protos/acme/v1/alpha.proto", "caller", "acme.v1", "Alpha")
    rows.proto("copies/alpha.proto", "copies", "acme.v1", "Alpha")
    rows.grpc("caller/main.go", "caller", "call", 5, "acme.v1.Alpha", "Get")
    assert rows.graph().edges == ()


def test_an_implementer_calling_itself_draws_no_edge_but_others_do(rows: _Rows) -> None:
    for name in ("one", "two"):
        rows.service(name)
    rows.grpc("one/server.go", "one", "server", 3, "acme.v1.Alpha")
    rows.grpc("two/server.go", "two", "handler", 3, "acme.v1.Alpha", "Get")
    rows.grpc("one/client.go", "one", "call", 9, "acme.v1.Alpha", "Get")
    assert [(e.source, e.target) for e in rows.graph().edges] == [("one", "two")]


def test_evidence_is_bounded_and_spread_over_files(rows: _Rows) -> None:
    rows.service("a")
    rows.service("b")
    for line in range(1, 8):
        rows.imports("a/big.go", "a", line, "b")
    for name in ("c", "d", "e"):
        rows.imports(f"a/{name}.go", "a", 20, "b")
    [edge] = rows.graph().edges
    assert (edge.count, edge.files, len(edge.evidence)) == (10, 4, EVIDENCE_MAX)
    assert edge.evidence == ("a/big.go:1", "a/big.go:2", "a/c.go:20", "a/d.go:20", "a/e.go:20")
    assert edge_label(edge) == ["10 imports in 4 files"]


# -- rendering ------------------------------------------------------------------------------------

FIXTURE_MERMAID = """flowchart LR
  %% Service graph of workspace: 6 services, 1 area, 1 external, 9 gRPC, 1 HTTP, 3 messaging and 5 import edges
  %% A --> B: A imports B; A ==> B: A calls B over gRPC; A -.-> B: B owns a contract nobody implements
  %% A --o B: A sends HTTP requests to B; A -.-o B: B consumes what A produces, or B is A's broker
  svc_gateway["gateway"]
  svc_inventory["inventory"]
  svc_kafka[("kafka")]
  svc_notifications["notifications"]
  svc_orders["orders"]
  svc_payments["payments"]
  svc_proto_[/"proto/"/]
  svc_shipping["shipping"]
  svc_gateway ==>|"Orders/GetOrder<br/>Orders/PlaceOrder"| svc_orders
  svc_gateway ==>|"Payments/Charge"| svc_payments
  svc_gateway -->|"1 import"| svc_proto_
  svc_inventory ==>|"Orders/GetOrder"| svc_orders
  svc_inventory -->|"4 imports"| svc_proto_
  svc_notifications --o|"GET /orders/#123;id#125;"| svc_gateway
  svc_notifications -.-o|"topic orders.placed"| svc_kafka
  svc_notifications ==>|"Orders/WatchOrder"| svc_orders
  svc_notifications -->|"2 imports"| svc_proto_
  svc_orders ==>|"Inventory/Release<br/>Inventory/Reserve"| svc_inventory
  svc_orders -.-o|"topic orders.placed"| svc_kafka
  svc_orders -.-o|"topic orders.placed"| svc_notifications
  svc_orders ==>|"Payments/Charge"| svc_payments
  svc_orders -->|"4 imports"| svc_proto_
  svc_payments ==>|"Orders/GetOrder"| svc_orders
  svc_payments -->|"15 imports in 4 files"| svc_proto_
  svc_shipping ==>|"Inventory/Reserve"| svc_inventory
  svc_shipping ==>|"Orders/GetOrder"| svc_orders
  linkStyle 2,4,8,13,15 stroke:#6b7a90
  linkStyle 0,1,3,7,9,12,14,16,17 stroke:#d9480f
  linkStyle 5 stroke:#2b8a3e
  linkStyle 6,10,11 stroke:#7048e8
"""


def test_fixture_mermaid(fixture_graph: ServiceGraph) -> None:
    assert graph_mermaid(fixture_graph) == FIXTURE_MERMAID


def test_fixture_json_is_the_graph_with_sorted_keys(fixture_graph: ServiceGraph) -> None:
    text = graph_json(fixture_graph)
    document = json.loads(text)
    assert text == json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert document["version"] == JSON_VERSION and document["workspace"] == "workspace"
    assert [node["name"] for node in document["nodes"]] == [name for name, *_ in NODES]
    assert document["nodes"][0] == {
        "files": 10, "kind": "service", "languages": ["typescript", "markdown", "proto"], "name": "gateway",
        "path": "gateway",
    }  # fmt: skip
    assert document["nodes"][2] == {"files": 0, "kind": "external", "languages": [], "name": "kafka", "path": ""}
    assert document["nodes"][6] == {"files": 4, "kind": "area", "languages": ["proto"], "name": "proto/", "path": "proto"}
    assert document["edges"][0] == {
        "count": 2,
        "evidence": ["gateway/src/orders.ts:45", "gateway/src/orders.ts:54"],
        "files": 1,
        "kind": "grpc",
        "methods": ["acme.orders.v1.Orders/GetOrder", "acme.orders.v1.Orders/PlaceOrder"],
        "services": ["acme.orders.v1.Orders"],
        "source": "gateway",
        "target": "orders",
        "unimplemented": False,
    }
    assert len(document["edges"]) == len(fixture_graph.edges)


def test_outputs_hold_workspace_relative_paths_only(fixture_graph: ServiceGraph) -> None:
    for text in (graph_mermaid(fixture_graph), graph_json(fixture_graph), graph_html(fixture_graph)):
        assert str(FIXTURE) not in text and str(ROOT) not in text


#: Names that break careless HTML, JavaScript, JSON or Mermaid.
HOSTILE = (
    "</script><script>alert(1)</script>",
    'a "quoted" & <b>bold</b>',
    "it's",
    "<!-- x",
    "end",
    "x|y;z",
    "#35; hash",
    "%% comment",
    "brackets[]{}()",
    "new\nline",
    "ünï cödé 日本",
    "back`tick\\",
    "{{DATA}}",
    "line\u2028sep",
    "http://example.com/x",
    "a-b",
    "a.b",
    "a_b",
)


def hostile_graph() -> ServiceGraph:
    names = sorted(HOSTILE)
    nodes = tuple(ServiceNode(name, name, ("go",), 1) for name in names)
    edges = []
    for i, (source, target) in enumerate(itertools.pairwise([*names, names[0]])):
        grpc = i % 2 == 1
        edges.append(
            ServiceEdge(
                source, target, "grpc" if grpc else "import", 3, 2,
                methods=(f"pk.S{i}/M|\"</script>",) if grpc else (), services=(f"pk.S{i}",) if grpc else (),
                unimplemented=grpc and i % 4 == 1, evidence=(f"{source}:1",),
            )
        )  # fmt: skip
    return ServiceGraph("ws </script> {{SCRIPT}}", nodes, tuple(sorted(edges, key=ServiceEdge.order)))


def test_mermaid_escapes_hostile_names() -> None:
    graph = hostile_graph()
    lines = graph_mermaid(graph).splitlines()
    node_lines = [line for line in lines if re.fullmatch(r'  svc_\w+\["[^"]*"\]', line)]
    edge_lines = [line for line in lines if re.fullmatch(r'  svc_\w+ (-->|==>|-\.->)\|"[^"|]*"\| svc_\w+', line)]
    assert (len(node_lines), len(edge_lines)) == (len(graph.nodes), len(graph.edges))
    assert all(line.startswith(("flowchart", "  %%", "  svc_", "  linkStyle")) for line in lines)
    ids = [line.split("[", 1)[0].strip() for line in node_lines]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"svc_\w+", i) and i.isascii() for i in ids)
    labels = "".join(re.findall(r'"([^"]*)"', "\n".join(node_lines + edge_lines))).replace("<br/>", "")
    assert "#60;/script#62;" in labels
    assert not set(re.sub(r"#\d+;", "", labels)) & set('#"<>&|`[](){};:\\%\n\u2028')


def _data_block(page: str) -> str:
    match = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', page, re.DOTALL)
    assert match is not None
    return match.group(1)


def test_html_escapes_hostile_names_and_keeps_them_whole() -> None:
    graph = hostile_graph()
    page = graph_html(graph)
    data = _data_block(page)
    assert page.count("</script") == 2  # the data's and the code's: no name closes an element
    assert page.count("<script") == 2 and "<!--" not in page
    assert not set(data) & set("<>&\u2028\u2029")
    document = json.loads(data)
    assert [node["name"] for node in document["nodes"]] == [node.name for node in graph.nodes]
    assert document["workspace"] == graph.workspace and document["version"] == JSON_VERSION
    assert sorted(document["layout"]["boxes"]) == sorted(HOSTILE)
    assert len(document["layout"]["routes"]) == len(document["layout"]["labels"]) == len(graph.edges)
    assert "<title>Service graph: ws &lt;/script&gt; {{SCRIPT}}</title>" in page
    assert page.index(_data_block(page)) > page.index("{{SCRIPT}}")  # the placeholder stayed text


def test_html_needs_no_network(fixture_graph: ServiceGraph) -> None:
    page = graph_html(fixture_graph)
    head = page[: page.index("</head>")]
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in head
    for directive in ("default-src 'none'", "script-src 'unsafe-inline'", "style-src 'unsafe-inline'"):
        assert directive in CSP
    code = page.replace(_data_block(page), "")
    assert "http://" not in code and "https://" not in code
    assert not re.search(r"""\b(src|href)\s*=|@import|url\((?!#)""", code)  # markers are url(#id), fragments


def test_renderings_are_deterministic(fixture_graph: ServiceGraph, tmp_path: Path) -> None:
    again = _rebuilt_fixture_graph(tmp_path)
    assert again == fixture_graph
    for render in (graph_mermaid, graph_json, graph_html):
        assert render(again) == render(fixture_graph)


def _rebuilt_fixture_graph(tmp_path: Path) -> ServiceGraph:
    """The fixture's graph from a second index built from nothing."""
    return graph_of(FIXTURE, tmp_path / "again")


def test_same_bytes_under_two_hash_seeds(tmp_path: Path) -> None:
    """The whole command, in two processes with different set orders and fresh caches."""
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "MESH_CACHE_DIR": str(tmp_path / f"cache-{seed}")}
        for fmt in ("json", "html"):
            result = subprocess.run(
                [sys.executable, "-m", "mesh", "graph", "--format", fmt, str(FIXTURE)],
                check=False, capture_output=True, timeout=120, cwd=ROOT, env=env,
            )  # fmt: skip
            assert result.returncode == 0, result.stderr.decode()[-2000:]
            outputs.append(result.stdout)
    assert outputs[0] == outputs[2] and outputs[1] == outputs[3]
    assert json.loads(outputs[0])["nodes"][0]["name"] == "gateway"


# -- layout ---------------------------------------------------------------------------------------


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _rect(box: Box) -> tuple[float, float, float, float]:
    return (box.x, box.y, box.w, box.h)


def check_layout(graph: ServiceGraph) -> None:
    """What makes a drawing readable: no box over another, no reserved label over a box or another
    label, every edge from its source's side to its target's, everything inside the page."""
    drawn = layout(graph)
    assert sorted(drawn.boxes) == sorted(node.name for node in graph.nodes)
    boxes = list(drawn.boxes.values())
    for a, b in itertools.combinations(boxes, 2):
        assert not _overlap(_rect(a), _rect(b)), (a, b)
    assert all(
        0 <= box.x and box.x + box.w <= drawn.width and 0 <= box.y and box.y + box.h <= drawn.height for box in boxes
    )
    labels = []
    for edge, route in zip(graph.edges, drawn.routes, strict=True):
        first, last = route.points[0], route.points[-1]
        for (x, y), name in ((first, edge.source), (last, edge.target)):
            box = drawn.boxes[name]
            assert x in (box.x, box.x + box.w) and box.y <= y <= box.y + box.h, (edge, route)
        assert all(0 <= x <= drawn.width and 0 <= y <= drawn.height for x, y in route.points)
        if drawn.labels_reserved and edge.source != edge.target:
            w, h = _label_size(edge_label(edge))
            labels.append((route.label_x - w / 2, route.label_y - h / 2, w, h))
    for label in labels:
        assert not any(_overlap(label, _rect(box)) for box in boxes), label
    for a, b in itertools.combinations(labels, 2):
        assert not _overlap(a, b), (a, b)
    assert layout(graph) == drawn


def test_fixture_layout_is_readable(fixture_graph: ServiceGraph) -> None:
    check_layout(fixture_graph)
    drawn = layout(fixture_graph)
    assert drawn.labels_reserved
    # callers left of what they call: gateway and shipping before orders, orders before the proto/ area
    x = {name: box.x for name, box in drawn.boxes.items()}
    assert x["shipping"] < x["inventory"] < x["orders"] < x["payments"] < x["proto/"] and x["gateway"] < x["orders"]


NAME_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)


@st.composite
def graphs(draw: st.DrawFn) -> ServiceGraph:
    names = sorted(draw(st.lists(NAME_TEXT, min_size=1, max_size=14, unique=True)))
    kinds = st.sampled_from(["import", "grpc", "unimplemented"])
    drawn = draw(st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names), kinds), max_size=45))
    edges = {}
    for source, target, kind in drawn:
        edges[source, target, kind] = ServiceEdge(
            source, target, "import" if kind == "import" else "grpc", 1, 1,
            methods=() if kind == "import" else (f"p.S/{target[:8]}",), unimplemented=kind == "unimplemented",
        )  # fmt: skip
    nodes = tuple(ServiceNode(name, name, ("go",), 1) for name in names)
    return ServiceGraph("ws", nodes, tuple(sorted(edges.values(), key=ServiceEdge.order)))


@given(graphs())
@example(ServiceGraph("ws", (ServiceNode("lonely", "lonely", (), 0),), ()))
@example(ServiceGraph("ws", (), ()))
@example(
    ServiceGraph(
        "ws", (ServiceNode("a", "a", (), 1), ServiceNode("b", "b", (), 1)),
        (ServiceEdge("a", "a", "grpc", 1, 1), ServiceEdge("a", "b", "import", 1, 1), ServiceEdge("b", "a", "grpc", 1, 1)),
    )
)  # fmt: skip
def test_any_layout_is_readable(graph: ServiceGraph) -> None:
    check_layout(graph)
    page = graph_html(graph)
    assert json.loads(_data_block(page))["layout"]["width"] == layout(graph).width


TIERS = (
    "api-gateway web-bff mobile-bff partner-api",
    (
        "auth users orders payments billing cart checkout shipping returns subscriptions search catalog reviews "
        "loyalty promotions support chat"
    ),
    (
        "inventory pricing invoices ledger accounts kyc fraud risk tax currency geo recommendations media "
        "notifications analytics"
    ),
    "email sms push audit reporting scheduler jobs feature-flags config warehouse cdn-sync",
    "proto common-lib events",
)


def platform_graph(prng: random.Random) -> ServiceGraph:
    """Fifty services in tiers, as a platform grows: gateways call domain services, which call core
    services and platform services; nearly everything imports the three shared libraries."""
    tier_of = {name: number for number, tier in enumerate(TIERS) for name in tier.split()}
    names = sorted(tier_of)
    languages = ("go", "java", "python", "typescript", "kotlin")
    nodes = tuple(ServiceNode(n, f"services/{n}", (prng.choice(languages),), prng.randint(5, 400)) for n in names)
    edges: dict[tuple[str, str, str], ServiceEdge] = {}

    def call(source: str, target: str) -> None:
        service = "acme." + target.replace("-", "") + ".v1." + target.title().replace("-", "")
        verbs = prng.sample(["Get", "List", "Create", "Update", "Delete", "Watch"], prng.randint(1, 4))
        methods = tuple(sorted(f"{service}/{verb}" for verb in verbs))
        edges[source, target, "grpc"] = ServiceEdge(
            source, target, "grpc", len(methods), 1, methods=methods, services=(service,),
            unimplemented=prng.random() < 0.04, evidence=(f"services/{source}/client.go:10",),
        )  # fmt: skip

    for name in names:
        tier = tier_of[name]
        if tier == 4:
            continue
        for shared in TIERS[4].split():
            if prng.random() < 0.6:
                edges[name, shared, "import"] = ServiceEdge(name, shared, "import", prng.randint(1, 30), 1)
        below = TIERS[tier + 1].split() if tier < 3 else []
        for target in prng.sample(below, min(len(below), 6 if tier == 0 else prng.choice([1, 2, 2, 3]))):
            call(name, target)
        if tier and prng.random() < 0.2:
            target = prng.choice(TIERS[tier].split())
            if target != name:
                call(name, target)
    return ServiceGraph("acme-platform", nodes, tuple(sorted(edges.values(), key=ServiceEdge.order)))


def test_fifty_services_fit_a_screen() -> None:
    graph = platform_graph(random.Random(3))
    assert len(graph.nodes) == 50 and len(graph.edges) > 150
    started = time.perf_counter()
    drawn = layout(graph)
    assert time.perf_counter() - started < 10
    check_layout(graph)
    assert 1.0 <= drawn.width / drawn.height <= 3.5, (drawn.width, drawn.height)
    assert not drawn.labels_reserved  # too many edges: labels show on focus


# -- the command ----------------------------------------------------------------------------------


def test_cli_prints_mermaid_by_default(fixture_graph: ServiceGraph, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", str(FIXTURE)]) == 0
    captured = capsys.readouterr()
    assert captured.out == graph_mermaid(fixture_graph) and captured.err == ""


def test_cli_writes_out_atomically(
    fixture_graph: ServiceGraph, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "graph.html"
    out.write_text("an older graph")
    assert main(["graph", "--format", "html", "--out", str(out), str(FIXTURE)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"mesh-mcp graph: wrote {out} (6 services, 1 area, 1 external, 18 edges)\n"
    assert out.read_text(encoding="utf-8") == graph_html(fixture_graph)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["graph.html"]  # no temporary file left
    assert main(["graph", "--format", "json", "--out", str(out), str(FIXTURE)]) == 0
    assert json.loads(out.read_text())["edges"][0]["source"] == "gateway"


def test_cli_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run_graph(FIXTURE, "svg", None, stdout, stderr) == 2
    assert "unknown format 'svg'; choose one of mermaid, json, html" in stderr.getvalue()
    missing = tmp_path / "missing" / "g.html"
    for out, why in ((missing, f"no folder {missing.parent}"), (tmp_path, "it is a folder")):
        stderr = io.StringIO()
        assert run_graph(FIXTURE, "html", out, stdout, stderr) == 2
        assert stderr.getvalue() == f"mesh-mcp graph: cannot write {out}: {why}\n"
    stderr = io.StringIO()
    assert run_graph(tmp_path / "nope", "json", None, stdout, stderr) == 2
    assert "not a folder" in stderr.getvalue() and stdout.getvalue() == ""
    with pytest.raises(SystemExit) as exited:
        main(["graph", "--format", "svg", str(FIXTURE)])
    assert exited.value.code == 2 and "invalid choice: 'svg'" in capsys.readouterr().err


def test_cli_without_an_index_folder_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("MESH_CACHE_DIR", str(blocker))
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run_graph(FIXTURE, "mermaid", None, stdout, stderr) == 1
    assert "MESH_CACHE_DIR" in stderr.getvalue() and stdout.getvalue() == ""


def test_cli_help_names_the_formats(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["graph", "--help"])
    helped = capsys.readouterr().out
    assert "{mermaid,json,html}" in helped and "--out FILE" in helped and "DIR" in helped
