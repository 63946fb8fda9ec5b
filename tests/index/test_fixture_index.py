"""The whole index over the fixture workspace: services, gRPC keys and import targets, end to end.

The RPC and the servers-and-clients tables of FIXTURE.md are the expectations: every
implementation and call site the note lists must be tied to its ``package.Service/Method`` by the
resolver, and nothing else may be.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mesh.index import Index

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    built = Index(FIXTURE, tmp_path_factory.mktemp("cache"))
    summary = built.refresh()
    assert summary.failures == ()
    return built


def query(index: Index, sql: str, *params) -> list[tuple]:
    with index.store.snapshot() as db:
        return db.execute(sql, params).fetchall()


def table(heading: str) -> list[list[str]]:
    """The rows of the first Markdown table under ``## heading`` in FIXTURE.md."""
    text = (FIXTURE / "FIXTURE.md").read_text()
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    lines = section.splitlines()
    start = next(number for number, line in enumerate(lines) if line.startswith("| "))
    rows = []
    for line in lines[start:]:
        if not line.startswith("| "):
            break
        rows.append(line)
    return [[cell.strip().strip("`") for cell in row.strip("|").split("|")] for row in rows[2:]]


def sites(cell: str) -> list[str]:
    return [] if cell == "none" else sorted(part.strip() for part in cell.split(","))


def located(rows: list[tuple[str, int]]) -> list[str]:
    return sorted(f"{path}:{line}" for path, line in rows)


def test_services_are_discovered_by_their_manifests_and_the_rest_are_areas(index: Index) -> None:
    assert query(index, "SELECT name, path, origin, languages FROM services ORDER BY name") == [
        ("gateway", "gateway", "manifest", "typescript,markdown,proto"),
        ("inventory", "inventory", "manifest", "go,markdown"),
        ("notifications", "notifications", "manifest", "csharp,markdown"),
        ("orders", "orders", "manifest", "python,markdown,proto"),
        ("payments", "payments", "manifest", "java,markdown"),
        ("shipping", "shipping", "manifest", "rust,markdown"),
    ]
    # shared protos and docs hold no service: their files are indexed and belong to no service
    assert query(index, "SELECT path, reason FROM areas ORDER BY path") == [("docs", "docs"), ("proto", "protos")]
    assert query(index, "SELECT DISTINCT service FROM files WHERE path LIKE 'proto/%' OR path LIKE 'docs/%'") == [("",)]


RPCS = table("RPCs")


@pytest.mark.parametrize("row", RPCS, ids=[row[0] for row in RPCS])
def test_every_rpc_is_tied_to_its_protos_implementations_and_callers(index: Index, row: list[str]) -> None:
    key, protos, implemented, called = row
    package_service, method = key.split("/")
    package, service = package_service.rsplit(".", 1)
    declared = query(
        index,
        "SELECT f.path, m.line FROM proto_methods m JOIN files f ON f.id = m.file_id"
        " WHERE m.package = ? AND m.service = ? AND m.name = ?",
        package,
        service,
        method,
    )
    assert located(declared) == sites(protos)
    handlers = query(
        index,
        "SELECT f.path, g.line FROM grpc g JOIN files f ON f.id = g.file_id WHERE g.role = 'handler' AND method_key = ?",
        key,
    )
    assert located(handlers) == sites(implemented)
    calls = query(
        index,
        "SELECT f.path, g.line FROM grpc g JOIN files f ON f.id = g.file_id WHERE g.role = 'call' AND method_key = ?",
        key,
    )
    assert located(calls) == sites(called)


def test_every_handler_and_call_in_the_fixture_resolves_to_a_listed_rpc(index: Index) -> None:
    listed = {row[0] for row in RPCS}
    keys = query(index, "SELECT DISTINCT method_key FROM grpc WHERE role IN ('handler', 'call')")
    assert sorted(key for (key,) in keys) == sorted(listed - {"acme.orders.v1.Orders/CancelOrder"})


SERVICES = table("Servers and clients")


@pytest.mark.parametrize("row", SERVICES, ids=[row[0] for row in SERVICES])
def test_servers_and_clients_are_keyed_by_the_proto_service(index: Index, row: list[str]) -> None:
    name, servers, clients = row
    # the standard services, whose protos are not in the workspace, are known by name
    standard = {"Health": "grpc.health.v1.Health", "ServerReflection": "grpc.reflection.v1alpha.ServerReflection"}
    key = standard.get(name.split("`", 1)[0], name)
    where = "g.service_key = ?"
    params = (key,)
    found = query(
        index,
        f"SELECT f.path, g.line, g.role FROM grpc g JOIN files f ON f.id = g.file_id WHERE {where}"
        " AND g.role IN ('server', 'client')",
        *params,
    )
    assert located([(path, line) for path, line, role in found if role == "server"]) == sites(servers)
    assert located([(path, line) for path, line, role in found if role == "client"]) == sites(clients)


@pytest.mark.parametrize(
    ("importer", "module", "target", "service"),
    [
        ("orders/orders/server.py", ".service", "orders/orders/service.py", "orders"),
        ("orders/tests/test_service.py", "orders.store", "orders/orders/store.py", "orders"),
        # code generated from a proto is tied to the proto: the importer's own copy first...
        ("orders/orders/service.py", "acme.orders.v1", "orders/protos/orders.proto", "orders"),
        # ... else the copy laid out as protoc expects (not another service's copy)
        ("inventory/internal/orders/client.go", "github.com/acme/protos/go/acme/orders/v1",
         "proto/acme/orders/v1/orders.proto", ""),
        ("payments/src/main/java/com/acme/payments/orders/GrpcOrderLookup.java", "com.acme.orders.v1.OrdersGrpc",
         "proto/acme/orders/v1/orders.proto", ""),
        ("inventory/cmd/inventory/main.go", "github.com/acme/inventory/internal/store", "inventory/internal/store",
         "inventory"),
        ("payments/src/main/java/com/acme/payments/PaymentsServer.java", "com.acme.payments.ledger.Ledger",
         "payments/src/main/java/com/acme/payments/ledger/Ledger.java", "payments"),
        ("gateway/src/routes.ts", "./payments", "gateway/src/payments.ts", "gateway"),
        ("gateway/test/routes.test.ts", "../src/orders", "gateway/src/orders.ts", "gateway"),
        ("shipping/src/main.rs", "shipping::orders::OrderSource", "shipping/src/orders.rs", "shipping"),
        ("shipping/src/orders.rs", "crate::pb::acme::orders::v1", "shipping/src/pb.rs", "shipping"),
        ("proto/acme/orders/v1/orders.proto", "acme/common/v1/money.proto", "proto/acme/common/v1/money.proto",
         ""),
        ("docs/runbook.md", "../payments/README.md", "payments/README.md", "payments"),
    ],
)  # fmt: skip
def test_imports_are_tied_to_files_and_services(
    index: Index, importer: str, module: str, target: str, service: str
) -> None:
    rows = query(
        index,
        "SELECT i.target_path, i.target_service FROM imports i JOIN files f ON f.id = i.file_id"
        " WHERE f.path = ? AND i.module = ?",
        importer,
        module,
    )
    assert rows and set(rows) == {(target, service)}


def test_third_party_imports_stay_unresolved(index: Index) -> None:
    rows = query(
        index,
        "SELECT DISTINCT i.module FROM imports i WHERE i.target_path IS NULL AND i.module IN"
        " ('grpc', 'express', '@grpc/grpc-js', 'io.grpc.Status', 'google.golang.org/grpc', 'anyhow')",
    )
    assert sorted(module for (module,) in rows) == [
        "@grpc/grpc-js",
        "anyhow",
        "express",
        "google.golang.org/grpc",
        "grpc",
        "io.grpc.Status",
    ]


def test_proto_copies_are_all_kept_with_their_service(index: Index) -> None:
    rows = query(
        index,
        "SELECT f.path, f.service FROM proto_services s JOIN files f ON f.id = s.file_id"
        " WHERE s.package = 'acme.orders.v1' AND s.name = 'Orders' ORDER BY f.path",
    )
    assert rows == [
        ("gateway/protos/orders.proto", "gateway"),
        ("orders/protos/orders.proto", "orders"),
        ("proto/acme/orders/v1/orders.proto", ""),  # the shared copy, in the area proto/
    ]


def test_the_design_note_is_left_out_by_the_meshignore(index: Index) -> None:
    assert query(index, "SELECT count(*) FROM files WHERE path = 'FIXTURE.md'") == [(0,)]
    assert re.search(r"FIXTURE\.md", (FIXTURE / ".meshignore").read_text())
