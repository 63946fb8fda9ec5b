"""The fixture workspace's facts by design, file by file (tests/fixtures/workspace/FIXTURE.md).

Each table below maps a fixture path to what ``mesh.index.parse.extract(path, bytes)`` must return
for one kind of fact; one parametrised test per kind walks its table, so a failure names the file.
The expectations were written from the extraction contract (``mesh/index/_facts.py`` and the
extractor brief) and the fixture's text, never from an extractor's output. Where the contract
leaves room, FIXTURE.md ("Conventions") says which reading this fixture takes.

The tests named ``test_table_*`` and ``test_fixture_md_*`` need no extractor: they check that the
tables point at the right lines of the fixture and agree with FIXTURE.md, so an edit of the
fixture that shifts a line fails here before it confuses anyone.

To change the fixture: edit the file, then this module's tables, then FIXTURE.md, in one change.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from mesh.index import (
    Constant,
    Definition,
    Dependency,
    FileFacts,
    GrpcFact,
    GrpcRole,
    HttpCall,
    HttpRoute,
    Import,
    MessageFact,
    ProtoField,
    ProtoFile,
    ProtoMessage,
    ProtoMethod,
    ProtoService,
    Section,
    walk,
)
from mesh.index.parse import extract, language_of, manifest_kind
from tests.support.facts import call, client, handler, server

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "workspace"


@functools.cache
def facts(path: str) -> FileFacts:
    return extract(path, (FIXTURE / path).read_bytes())


def lines_of(path: str) -> list[str]:
    return (FIXTURE / path).read_text(encoding="utf-8").splitlines()


# --------------------------------------------------------------------------------------------------
# gRPC evidence: every source file of the fixture, in source order ("" symbol: module level).
# --------------------------------------------------------------------------------------------------


JAVA = "payments/src/main/java/com/acme/payments"

GRPC: dict[str, tuple[GrpcFact, ...]] = {
    # orders (Python)
    "orders/orders/__init__.py": (),
    "orders/orders/service.py": (
        server("Orders", 15, "OrdersService", "orders_pb2_grpc"),
        client("Payments", 20, "OrdersService.__init__", "payments_pb2_grpc"),
        handler("Orders", "GetOrder", 22, "OrdersService.GetOrder", "orders_pb2_grpc"),
        handler("Orders", "PlaceOrder", 28, "OrdersService.PlaceOrder", "orders_pb2_grpc"),
        handler("Orders", "WatchOrder", 45, "OrdersService.WatchOrder", "orders_pb2_grpc"),
        call("Payments", "Charge", 58, "OrdersService._charge", "payments_pb2_grpc"),
    ),
    "orders/orders/inventory.py": (
        client("Inventory", 13, "", "inventory_pb2_grpc"),
        call("Inventory", "Reserve", 27, "reserve_items", "inventory_pb2_grpc"),
        call("Inventory", "Release", 38, "release_hold", "inventory_pb2_grpc"),
    ),
    "orders/orders/server.py": (server("Orders", 21, "serve", "orders_pb2_grpc"),),
    "orders/orders/store.py": (),
    "orders/orders/events.py": (),
    # a Mock in place of the stub, and servicer methods called directly: no evidence
    "orders/tests/test_service.py": (),
    # inventory (Go)
    "inventory/cmd/inventory/main.go": (
        server("Inventory", 37, "main", "pb"),
        server("Health", 38, "main", "healthpb"),
        server("ServerReflection", 39, "main", "reflection"),
    ),
    "inventory/internal/orders/client.go": (
        client("Orders", 26, "Dial", "pb"),
        call("Orders", "GetOrder", 33, "Client.IsCancelled", "pb"),
    ),
    "inventory/internal/server/server.go": (
        server("Inventory", 20, "Server", "pb"),
        handler("Inventory", "Reserve", 31, "Server.Reserve", "pb"),
        handler("Inventory", "ListStock", 54, "Server.ListStock", "pb"),
    ),
    "inventory/internal/server/server_test.go": (
        server("Inventory", 24, "serve", "pb"),
        client("Inventory", 54, "TestListStockOverTheWire", "pb"),
        call("Inventory", "ListStock", 55, "TestListStockOverTheWire", "pb"),
    ),
    # store.Store has a Reserve method too: not a stub
    "inventory/internal/store/store.go": (),
    # payments (Java)
    f"{JAVA}/PaymentsServer.java": (),
    f"{JAVA}/PaymentsService.java": (
        server("Payments", 15, "PaymentsService"),
        handler("Payments", "charge", 24, "PaymentsService.charge"),
        handler("Payments", "refund", 38, "PaymentsService.refund"),
    ),
    f"{JAVA}/orders/OrderLookup.java": (),
    f"{JAVA}/orders/GrpcOrderLookup.java": (
        client("Orders", 15, "GrpcOrderLookup.GrpcOrderLookup"),
        call("Orders", "getOrder", 21, "GrpcOrderLookup.isPayable"),
    ),
    f"{JAVA}/ledger/Ledger.java": (),
    "payments/src/test/java/com/acme/payments/PaymentsServiceTest.java": (
        client("Payments", 42, "PaymentsServiceTest.aRetriedChargeIsChargedOnce"),
        call("Payments", "charge", 48, "PaymentsServiceTest.aRetriedChargeIsChargedOnce"),
        call("Payments", "charge", 49, "PaymentsServiceTest.aRetriedChargeIsChargedOnce"),
    ),
    # gateway (TypeScript)
    "gateway/src/config.ts": (),
    "gateway/src/index.ts": (),
    "gateway/src/orders.ts": (
        client("Orders", 40, "OrdersBackend.constructor", "proto.acme.orders.v1"),
        call("Orders", "getOrder", 45, "OrdersBackend.getOrder", "proto.acme.orders.v1"),
        call("Orders", "placeOrder", 54, "OrdersBackend.placeOrder", "proto.acme.orders.v1"),
    ),
    "gateway/src/payments.ts": (
        client("Payments", 17, "", "proto.acme.payments.v1"),
        call("Payments", "charge", 25, "chargeOrder", "proto.acme.payments.v1"),
    ),
    # orders.getOrder / orders.placeOrder on an OrdersBackend: a wrapper, not a stub
    "gateway/src/routes.ts": (),
    "gateway/test/routes.test.ts": (),
    # shipping (Rust)
    "shipping/build.rs": (),
    "shipping/src/lib.rs": (),
    "shipping/src/main.rs": (),
    "shipping/src/pb.rs": (),
    "shipping/src/label.rs": (),
    "shipping/src/orders.rs": (
        # Rust: the namespace is the path the generated client was imported by (the `use`).
        client("Orders", 17, "OrderSource.connect", "crate::pb::acme::orders::v1"),
        call("Orders", "get_order", 25, "OrderSource.paid_order", "crate::pb::acme::orders::v1"),
    ),
    "shipping/src/inventory.rs": (
        client("Inventory", 12, "reserve_for_shipment", "crate::pb::acme::inventory::v1"),
        call("Inventory", "reserve", 19, "reserve_for_shipment", "crate::pb::acme::inventory::v1"),
    ),
    "shipping/tests/label.rs": (),
    # notifications (C#)
    "notifications/Program.cs": (),
    "notifications/OrderWatcher.cs": (
        client("Orders", 15, "OrderWatcher.OrderWatcher"),
        call("Orders", "WatchOrder", 21, "OrderWatcher.FollowAsync"),
    ),
    "notifications/EmailSender.cs": (),
    "notifications/OrderEvents.cs": (),
    "notifications/Tests/StatusTextTests.cs": (),
}


# --------------------------------------------------------------------------------------------------
# Proto files: the four shared protos and the two copies of orders.proto.
# --------------------------------------------------------------------------------------------------


def field(name: str, type_: str, number: int, line: int, label: str = "") -> ProtoField:
    return ProtoField(name, type_, number, label, line)


def message(name: str, line: int, end_line: int, *fields: ProtoField, kind: str = "message") -> ProtoMessage:
    return ProtoMessage(name, kind, fields, line, end_line)


def rpc(name: str, request: str, response: str, line: int, *, server_streaming: bool = False) -> ProtoMethod:
    return ProtoMethod(name, request, response, False, server_streaming, line)


ORDER_STATUS = message(
    "Order.Status",
    22,
    28,
    field("STATUS_UNSPECIFIED", "", 0, 23),
    field("STATUS_PENDING", "", 1, 24),
    field("STATUS_PAID", "", 2, 25),
    field("STATUS_SHIPPED", "", 3, 26),
    field("STATUS_CANCELLED", "", 4, 27),
    kind="enum",
)
ORDER_ITEM = message(
    "Order.Item",
    30,
    34,
    field("sku", "string", 1, 31),
    field("quantity", "int32", 2, 32),
    field("unit_price", "acme.common.v1.Money", 3, 33),
)
ORDERS_SERVICE = ProtoService(
    "Orders",
    (
        rpc("GetOrder", "GetOrderRequest", "Order", 14),
        rpc("PlaceOrder", "PlaceOrderRequest", "Order", 15),
        rpc("CancelOrder", "CancelOrderRequest", "Order", 16),
        rpc("WatchOrder", "WatchOrderRequest", "OrderEvent", 18, server_streaming=True),
    ),
    13,
    19,
)
ORDER_FIELDS = (
    field("id", "string", 1, 36),
    field("customer_id", "string", 2, 37),
    field("status", "Status", 3, 38),
    field("items", "Item", 4, 39, "repeated"),
    field("total", "acme.common.v1.Money", 5, 40),
    field("labels", "map<string,string>", 6, 42, "map"),
)

def file_options(name: str, *, csharp: bool = True) -> tuple[tuple[str, str], ...]:
    """The options each fixture proto opens with: Go, Java and (but for inventory) C# names for ``acme.<name>.v1``."""
    found = (
        ("go_package", f"github.com/acme/protos/go/acme/{name}/v1;{name}v1"),
        ("java_package", f"com.acme.{name}.v1"),
        ("java_multiple_files", "true"),
    )
    return (*found, ("csharp_namespace", f"Acme.{name.title()}.V1")) if csharp else found


ORDERS_PROTO = ProtoFile(
    package="acme.orders.v1",
    imports=("acme/common/v1/money.proto",),
    options=file_options("orders"),
    services=(ORDERS_SERVICE,),
    messages=(
        message("Order", 21, 43, *ORDER_FIELDS),
        ORDER_STATUS,
        ORDER_ITEM,
        message("GetOrderRequest", 45, 47, field("order_id", "string", 1, 46)),
        message(
            "PlaceOrderRequest",
            49,
            58,
            field("customer_id", "string", 1, 50),
            field("items", "Order.Item", 2, 51, "repeated"),
            field("card_id", "string", 3, 54),
            field("payment_token", "string", 4, 55),
            field("coupon_code", "string", 5, 57, "optional"),
        ),
        message("CancelOrderRequest", 60, 63, field("order_id", "string", 1, 61), field("reason", "string", 2, 62)),
        message("WatchOrderRequest", 65, 67, field("order_id", "string", 1, 66)),
        message(
            "OrderEvent",
            69,
            73,
            field("order_id", "string", 1, 70),
            field("status", "Order.Status", 2, 71),
            field("at_unix_ms", "int64", 3, 72),
        ),
    ),
)

# The gateway's copy has drifted: one more field in Order (and its comment), so two lines more.
GATEWAY_ORDERS_PROTO = ProtoFile(
    package="acme.orders.v1",
    imports=("acme/common/v1/money.proto",),
    options=file_options("orders"),
    services=(ORDERS_SERVICE,),
    messages=(
        message("Order", 21, 45, *ORDER_FIELDS, field("tracking_number", "string", 7, 44)),
        ORDER_STATUS,
        ORDER_ITEM,
        message("GetOrderRequest", 47, 49, field("order_id", "string", 1, 48)),
        message(
            "PlaceOrderRequest",
            51,
            60,
            field("customer_id", "string", 1, 52),
            field("items", "Order.Item", 2, 53, "repeated"),
            field("card_id", "string", 3, 56),
            field("payment_token", "string", 4, 57),
            field("coupon_code", "string", 5, 59, "optional"),
        ),
        message("CancelOrderRequest", 62, 65, field("order_id", "string", 1, 63), field("reason", "string", 2, 64)),
        message("WatchOrderRequest", 67, 69, field("order_id", "string", 1, 68)),
        message(
            "OrderEvent",
            71,
            75,
            field("order_id", "string", 1, 72),
            field("status", "Order.Status", 2, 73),
            field("at_unix_ms", "int64", 3, 74),
        ),
    ),
)

PAYMENTS_PROTO = ProtoFile(
    package="acme.payments.v1",
    imports=("acme/common/v1/money.proto",),
    options=file_options("payments"),
    services=(
        ProtoService(
            "Payments",
            (
                rpc("Charge", "ChargeRequest", "ChargeResponse", 15),
                rpc("Refund", "RefundRequest", "RefundResponse", 16),
            ),
            13,
            17,
        ),
    ),
    messages=(
        message(
            "ChargeStatus",
            19,
            23,
            field("CHARGE_STATUS_UNSPECIFIED", "", 0, 20),
            field("CHARGE_STATUS_SUCCEEDED", "", 1, 21),
            field("CHARGE_STATUS_DECLINED", "", 2, 22),
            kind="enum",
        ),
        message(
            "ChargeRequest",
            25,
            30,
            field("order_id", "string", 1, 26),
            field("amount", "acme.common.v1.Money", 2, 27),
            field("payment_token", "string", 3, 28),
            field("idempotency_key", "string", 4, 29),
        ),
        message(
            "ChargeResponse",
            32,
            37,
            field("charge_id", "string", 1, 33),
            field("status", "ChargeStatus", 2, 34),
            field("decline_reason", "string", 3, 36),
        ),
        message(
            "RefundRequest",
            39,
            44,
            field("charge_id", "string", 1, 40),
            field("amount", "acme.common.v1.Money", 2, 42),
            field("reason", "string", 3, 43),
        ),
        message("RefundResponse", 46, 49, field("refund_id", "string", 1, 47), field("status", "ChargeStatus", 2, 48)),
    ),
)

INVENTORY_PROTO = ProtoFile(
    package="acme.inventory.v1",
    imports=(),
    options=file_options("inventory", csharp=False),
    services=(
        ProtoService(
            "Inventory",
            (
                rpc("Reserve", "ReserveRequest", "Reservation", 13),
                rpc("Release", "ReleaseRequest", "ReleaseResponse", 15),
                rpc("ListStock", "ListStockRequest", "ListStockResponse", 16),
            ),
            10,
            17,
        ),
    ),
    messages=(
        message(
            "ReserveRequest",
            19,
            27,
            field("order_id", "string", 1, 25),
            field("lines", "Line", 2, 26, "repeated"),
        ),
        message("ReserveRequest.Line", 20, 23, field("sku", "string", 1, 21), field("quantity", "int32", 2, 22)),
        message(
            "Reservation",
            29,
            33,
            field("reservation_id", "string", 1, 30),
            field("order_id", "string", 2, 31),
            field("expires_at_unix_ms", "int64", 3, 32),
        ),
        message("ReleaseRequest", 35, 37, field("reservation_id", "string", 1, 36)),
        message("ReleaseResponse", 39, 39),
        message(
            "ListStockRequest",
            41,
            46,
            field("skus", "string", 1, 43, "repeated"),
            field("page_size", "int32", 2, 44),
            field("page_token", "string", 3, 45),
        ),
        message(
            "ListStockResponse",
            48,
            51,
            field("levels", "StockLevel", 1, 49, "repeated"),
            field("next_page_token", "string", 2, 50),
        ),
        message(
            "StockLevel",
            53,
            59,
            field("sku", "string", 1, 54),
            field("on_hand", "int32", 2, 55),
            field("reserved", "int32", 3, 56),
            field("by_warehouse", "map<string,int32>", 4, 58, "map"),
        ),
    ),
)

MONEY_PROTO = ProtoFile(
    package="acme.common.v1",
    imports=(),
    options=file_options("common"),
    services=(),
    messages=(message("Money", 13, 18, field("currency_code", "string", 1, 15), field("units", "int64", 2, 17)),),
)

PROTO: dict[str, ProtoFile] = {
    "proto/acme/orders/v1/orders.proto": ORDERS_PROTO,
    "orders/protos/orders.proto": ORDERS_PROTO,  # a byte-for-byte copy
    "gateway/protos/orders.proto": GATEWAY_ORDERS_PROTO,
    "proto/acme/payments/v1/payments.proto": PAYMENTS_PROTO,
    "proto/acme/inventory/v1/inventory.proto": INVENTORY_PROTO,
    "proto/acme/common/v1/money.proto": MONEY_PROTO,
}

# --------------------------------------------------------------------------------------------------
# Markdown sections: every Markdown file of the workspace (FIXTURE.md is ignored by .meshignore).
# --------------------------------------------------------------------------------------------------


def section(section_id: str, title: str, level: int, line: int, end_line: int) -> Section:
    parent = section_id.rsplit("/", 1)[0] if "/" in section_id else ""
    return Section(section_id, title, level, parent, line, end_line)


SECTIONS: dict[str, tuple[Section, ...]] = {
    "README.md": (
        section("acme-shop", "Acme shop", 1, 1, 32),
        section("acme-shop/services", "Services", 2, 6, 16),
        section("acme-shop/getting-started", "Getting started", 2, 17, 27),
        section("acme-shop/getting-started/prerequisites", "Prerequisites", 3, 19, 23),
        section("acme-shop/getting-started/running-locally", "Running locally", 3, 24, 27),
        section("acme-shop/contributing", "Contributing", 2, 28, 32),
    ),
    "docs/architecture.md": (
        section("architecture", "Architecture", 1, 1, 62),
        section("architecture/overview", "Overview", 2, 6, 18),
        section("architecture/services", "Services", 2, 19, 42),
        section("architecture/services/orders", "Orders", 3, 21, 29),
        section("architecture/services/orders/order-states", "Order states", 4, 26, 29),
        section("architecture/services/inventory", "Inventory", 3, 30, 33),
        section("architecture/services/payments", "Payments", 3, 34, 37),
        section("architecture/services/edge-services", "Edge services", 3, 38, 42),
        section("architecture/contracts", "Contracts", 2, 43, 57),
        section("architecture/contracts/where-the-protos-live", "Where the protos live", 3, 45, 51),
        section("architecture/contracts/changing-a-contract", "Changing a contract", 3, 52, 57),
        section("architecture/known-gaps", "Known gaps", 2, 58, 62),
    ),
    # The "# the servers first" lines inside the ```bash fence (lines 12 and 14) are not headings.
    "docs/runbook.md": (
        section("runbook", "Runbook", 1, 1, 56),
        section("runbook/deploying", "Deploying", 2, 5, 31),
        section("runbook/deploying/rollout", "Rollout", 3, 7, 17),
        section("runbook/deploying/verify", "Verify", 3, 18, 21),
        section("runbook/deploying/rollback", "Rollback", 3, 22, 27),
        section("runbook/deploying/verify-2", "Verify", 3, 28, 31),
        section("runbook/incidents", "Incidents", 2, 32, 53),
        section("runbook/incidents/orders-stuck-in-pending", "Orders stuck in PENDING", 3, 34, 43),
        section("runbook/incidents/orders-stuck-in-pending/symptoms", "Symptoms", 4, 36, 39),
        section("runbook/incidents/orders-stuck-in-pending/mitigation", "Mitigation", 4, 40, 43),
        section("runbook/incidents/payments-charges-failing", "Payments: charges failing", 3, 44, 53),
        section("runbook/incidents/payments-charges-failing/symptoms", "Symptoms", 4, 46, 49),
        section("runbook/incidents/payments-charges-failing/mitigation", "Mitigation", 4, 50, 53),
        section("runbook/contacts", "Contacts", 2, 54, 56),
    ),
    "orders/README.md": (
        section("orders", "Orders", 1, 1, 36),
        section("orders/api", "API", 2, 5, 14),
        section("orders/api/calls-out", "Calls out", 3, 10, 14),
        section("orders/development", "Development", 2, 15, 29),
        section("orders/development/running", "Running", 3, 17, 23),
        section("orders/development/testing", "Testing", 3, 24, 29),
        section("orders/configuration", "Configuration", 2, 30, 36),
    ),
    "inventory/README.md": (
        section("inventory", "Inventory", 1, 1, 26),
        section("inventory/api", "API", 2, 5, 11),
        section("inventory/layout", "Layout", 2, 12, 18),
        section("inventory/development", "Development", 2, 19, 26),
    ),
    "payments/README.md": (
        section("payments", "Payments", 1, 1, 23),
        section("payments/api", "API", 2, 5, 12),
        section("payments/building", "Building", 2, 13, 19),
        section("payments/configuration", "Configuration", 2, 20, 23),
    ),
    "gateway/README.md": (
        section("gateway", "Gateway", 1, 1, 27),
        section("gateway/endpoints", "Endpoints", 2, 5, 11),
        section("gateway/grpc-clients", "gRPC clients", 2, 12, 20),
        section("gateway/grpc-clients/its-own-proto-copy", "Its own proto copy", 3, 16, 20),
        section("gateway/development", "Development", 2, 21, 27),
    ),
    "shipping/README.md": (
        section("shipping", "Shipping", 1, 1, 26),
        section("shipping/usage", "Usage", 2, 6, 11),
        section("shipping/how-it-works", "How it works", 2, 12, 21),
        section("shipping/how-it-works/orders", "Orders", 3, 14, 17),
        section("shipping/how-it-works/inventory", "Inventory", 3, 18, 21),
        section("shipping/testing", "Testing", 2, 22, 26),
    ),
    "notifications/README.md": (
        section("notifications", "Notifications", 1, 1, 18),
        section("notifications/running", "Running", 2, 6, 13),
        section("notifications/testing", "Testing", 2, 14, 18),
    ),
}

# --------------------------------------------------------------------------------------------------
# Manifest dependencies: every manifest of the workspace.
# --------------------------------------------------------------------------------------------------


def dep(name: str, version: str, ecosystem: str, line: int, scope: str = "") -> Dependency:
    return Dependency(name, version, ecosystem, line, scope)


DEPENDENCIES: dict[str, tuple[Dependency, ...]] = {
    "orders/pyproject.toml": (
        dep("grpcio", ">=1.62", "pypi", 8),
        dep("protobuf", ">=4.25", "pypi", 9),
        dep("acme-protos", "==0.4.0", "pypi", 10),
        dep("kafka-python", ">=2.0", "pypi", 11),
        dep("pytest", ">=8", "pypi", 16, "test"),
        dep("grpcio-testing", ">=1.62", "pypi", 17, "test"),
    ),
    "inventory/go.mod": (
        dep("github.com/acme/protos", "v0.4.0", "go", 6),
        dep("google.golang.org/grpc", "v1.64.0", "go", 7),
        dep("google.golang.org/protobuf", "v1.34.1", "go", 8),
        dep("golang.org/x/net", "v0.25.0", "go", 12, "indirect"),
        dep("golang.org/x/sys", "v0.20.0", "go", 13, "indirect"),
        dep("golang.org/x/text", "v0.15.0", "go", 14, "indirect"),
        dep("google.golang.org/genproto/googleapis/rpc", "v0.0.0-20240521202816-d264139d666e", "go", 15, "indirect"),
    ),
    # The build plugin (maven-surefire-plugin) is not a dependency; ${grpc.version} stays as written.
    "payments/pom.xml": (
        dep("io.grpc:grpc-netty-shaded", "${grpc.version}", "maven", 18),
        dep("io.grpc:grpc-protobuf", "${grpc.version}", "maven", 23),
        dep("io.grpc:grpc-stub", "${grpc.version}", "maven", 28),
        dep("com.acme:acme-protos", "0.4.0", "maven", 33),
        dep("io.grpc:grpc-inprocess", "${grpc.version}", "maven", 38, "test"),
        dep("org.junit.jupiter:junit-jupiter", "5.10.2", "maven", 44, "test"),
    ),
    "gateway/package.json": (
        dep("@grpc/grpc-js", "^1.10.8", "npm", 13),
        dep("@grpc/proto-loader", "^0.7.13", "npm", 14),
        dep("express", "^4.19.2", "npm", 15),
        dep("@types/express", "^4.17.21", "npm", 18, "dev"),
        dep("@types/node", "^20.12.12", "npm", 19, "dev"),
        dep("typescript", "^5.4.5", "npm", 20, "dev"),
        dep("vitest", "^1.6.0", "npm", 21, "dev"),
    ),
    "shipping/Cargo.toml": (
        dep("anyhow", "1", "cargo", 8),
        dep("prost", "0.13", "cargo", 9),
        dep("tokio", "1.38", "cargo", 10),
        dep("tonic", "0.12", "cargo", 11),
        dep("tonic-build", "0.12", "cargo", 14, "build"),
        dep("pretty_assertions", "1.4", "cargo", 17, "dev"),
    ),
    # <Protobuf Include=...> items are not packages.
    "notifications/Notifications.csproj": (
        dep("Grpc.AspNetCore", "2.62.0", "nuget", 19),
        dep("Microsoft.Extensions.Hosting", "8.0.0", "nuget", 20),
        dep("Microsoft.NET.Test.Sdk", "17.10.0", "nuget", 21),
        dep("xunit", "2.8.1", "nuget", 22),
        dep("Confluent.Kafka", "2.4.0", "nuget", 23),
    ),
}

# --------------------------------------------------------------------------------------------------
# Definitions: at least one file per language, chosen so that each exercises its language's
# containers (methods of classes, Go receivers, Rust impls, nested proto messages).
# --------------------------------------------------------------------------------------------------

D = Definition

ORDERS_PROTO_DEFINITIONS = (
    D("Orders", "service", "", 13, 19),
    D("GetOrder", "method", "Orders", 14, 14),
    D("PlaceOrder", "method", "Orders", 15, 15),
    D("CancelOrder", "method", "Orders", 16, 16),
    D("WatchOrder", "method", "Orders", 18, 18),
    D("Order", "message", "", 21, 43),
    D("Status", "enum", "Order", 22, 28),
    D("Item", "message", "Order", 30, 34),
    D("GetOrderRequest", "message", "", 45, 47),
    D("PlaceOrderRequest", "message", "", 49, 58),
    D("CancelOrderRequest", "message", "", 60, 63),
    D("WatchOrderRequest", "message", "", 65, 67),
    D("OrderEvent", "message", "", 69, 73),
)

DEFINITIONS: dict[str, tuple[Definition, ...]] = {
    "orders/orders/service.py": (
        D("OrdersService", "class", "", 15, 58),
        D("__init__", "method", "OrdersService", 18, 20),
        D("GetOrder", "method", "OrdersService", 22, 26),
        D("PlaceOrder", "method", "OrdersService", 28, 43),
        D("WatchOrder", "method", "OrdersService", 45, 49),
        D("_charge", "method", "OrdersService", 51, 58),
    ),
    "inventory/internal/orders/client.go": (
        D("Client", "struct", "", 15, 18),
        D("Dial", "function", "", 21, 27),
        D("IsCancelled", "method", "Client", 30, 38),
        D("Close", "method", "Client", 41, 43),
    ),
    "inventory/internal/server/server.go": (
        D("defaultPageSize", "constant", "", 16, 16),
        D("Server", "struct", "", 20, 23),
        D("New", "function", "", 26, 28),
        D("Reserve", "method", "Server", 31, 51),
        D("ListStock", "method", "Server", 54, 76),
        D("parsePageToken", "function", "", 78, 83),
    ),
    f"{JAVA}/orders/GrpcOrderLookup.java": (
        D("GrpcOrderLookup", "class", "", 11, 30),
        D("GrpcOrderLookup", "method", "GrpcOrderLookup", 14, 16),
        D("isPayable", "method", "GrpcOrderLookup", 18, 29),
    ),
    "gateway/src/config.ts": (
        D("GatewayConfig", "interface", "", 2, 6),
        D("loadConfig", "function", "", 9, 15),
        D("Environment", "type", "", 17, 17),
        D("environment", "function", "", 20, 22),
    ),
    "gateway/src/routes.ts": (
        D("Handler", "type", "", 6, 6),
        D("route", "function", "", 9, 13),
        D("ordersRouter", "function", "", 16, 43),
    ),
    "shipping/src/orders.rs": (
        D("OrderSource", "struct", "", 11, 13),
        D("connect", "method", "OrderSource", 16, 19),
        D("paid_order", "method", "OrderSource", 22, 32),
    ),
    "orders/orders/events.py": (
        D("ORDERS_PLACED_TOPIC", "constant", "", 7, 7),
        D("OrderEvents", "class", "", 10, 18),
        D("__init__", "method", "OrderEvents", 13, 14),
        D("placed", "method", "OrderEvents", 16, 18),
    ),
    "notifications/OrderEvents.cs": (
        D("OrderEvents", "class", "", 7, 27),
        D("OrderEvents", "method", "OrderEvents", 12, 15),
        D("RunAsync", "method", "OrderEvents", 17, 26),
        D("OrderView", "class", "", 30, 30),
    ),
    "notifications/OrderWatcher.cs": (
        D("OrderWatcher", "class", "", 8, 27),
        D("OrderWatcher", "method", "OrderWatcher", 13, 17),
        D("FollowAsync", "method", "OrderWatcher", 19, 26),
        D("StatusText", "class", "", 30, 39),
        D("For", "method", "StatusText", 32, 38),
    ),
    "proto/acme/orders/v1/orders.proto": ORDERS_PROTO_DEFINITIONS,
    "orders/protos/orders.proto": ORDERS_PROTO_DEFINITIONS,
    "proto/acme/payments/v1/payments.proto": (
        D("Payments", "service", "", 13, 17),
        D("Charge", "method", "Payments", 15, 15),
        D("Refund", "method", "Payments", 16, 16),
        D("ChargeStatus", "enum", "", 19, 23),
        D("ChargeRequest", "message", "", 25, 30),
        D("ChargeResponse", "message", "", 32, 37),
        D("RefundRequest", "message", "", 39, 44),
        D("RefundResponse", "message", "", 46, 49),
    ),
    "proto/acme/inventory/v1/inventory.proto": (
        D("Inventory", "service", "", 10, 17),
        D("Reserve", "method", "Inventory", 13, 13),
        D("Release", "method", "Inventory", 15, 15),
        D("ListStock", "method", "Inventory", 16, 16),
        D("ReserveRequest", "message", "", 19, 27),
        D("Line", "message", "ReserveRequest", 20, 23),
        D("Reservation", "message", "", 29, 33),
        D("ReleaseRequest", "message", "", 35, 37),
        D("ReleaseResponse", "message", "", 39, 39),
        D("ListStockRequest", "message", "", 41, 46),
        D("ListStockResponse", "message", "", 48, 51),
        D("StockLevel", "message", "", 53, 59),
    ),
    "proto/acme/common/v1/money.proto": (D("Money", "message", "", 13, 18),),
}

# --------------------------------------------------------------------------------------------------
# Imports: at least one file per language, the internal imports between modules, every proto and
# every Markdown file (relative links: the path without its #anchor; no URLs, no pure anchors).
# --------------------------------------------------------------------------------------------------

I = Import

IMPORTS: dict[str, tuple[Import, ...]] = {
    "orders/orders/service.py": (
        I("__future__", 3, ("annotations",)),
        I("uuid", 5),
        I("grpc", 7),
        I("acme.orders.v1", 8, ("orders_pb2", "orders_pb2_grpc")),
        I("acme.payments.v1", 9, ("payments_pb2", "payments_pb2_grpc")),
        I(".", 11, ("inventory",)),
        I(".store", 12, ("OrderStore",)),
    ),
    "orders/orders/server.py": (
        I("__future__", 3, ("annotations",)),
        I("logging", 5),
        I("os", 6),
        I("concurrent", 7, ("futures",)),
        I("grpc", 9),
        I("acme.orders.v1", 10, ("orders_pb2_grpc",)),
        I(".service", 12, ("OrdersService",)),
        I(".store", 13, ("OrderStore",)),
    ),
    "inventory/cmd/inventory/main.go": (
        I("context", 5),
        I("log", 6),
        I("net", 7),
        I("os", 8),
        I("time", 9),
        I("github.com/acme/protos/go/acme/inventory/v1", 11, ("pb",)),
        I("google.golang.org/grpc", 12),
        I("google.golang.org/grpc/health", 13),
        I("google.golang.org/grpc/health/grpc_health_v1", 14, ("healthpb",)),
        I("google.golang.org/grpc/reflection", 15),
        I("github.com/acme/inventory/internal/orders", 17),
        I("github.com/acme/inventory/internal/server", 18),
        I("github.com/acme/inventory/internal/store", 19),
    ),
    "inventory/internal/orders/client.go": (
        I("context", 5),
        I("fmt", 6),
        I("time", 7),
        I("github.com/acme/protos/go/acme/orders/v1", 9, ("pb",)),
        I("google.golang.org/grpc", 10),
        I("google.golang.org/grpc/credentials/insecure", 11),
    ),
    f"{JAVA}/PaymentsService.java": (
        I("com.acme.payments.ledger.Ledger", 3),
        I("com.acme.payments.orders.OrderLookup", 4),
        I("com.acme.payments.v1.ChargeRequest", 5),
        I("com.acme.payments.v1.ChargeResponse", 6),
        I("com.acme.payments.v1.ChargeStatus", 7),
        I("com.acme.payments.v1.PaymentsGrpc", 8),
        I("com.acme.payments.v1.RefundRequest", 9),
        I("com.acme.payments.v1.RefundResponse", 10),
        I("io.grpc.Status", 11),
        I("io.grpc.stub.StreamObserver", 12),
    ),
    f"{JAVA}/orders/GrpcOrderLookup.java": (
        I("com.acme.orders.v1.GetOrderRequest", 3),
        I("com.acme.orders.v1.Order", 4),
        I("com.acme.orders.v1.OrdersGrpc", 5),
        I("io.grpc.Channel", 6),
        I("io.grpc.Status", 7),
        I("io.grpc.StatusRuntimeException", 8),
    ),
    "gateway/src/routes.ts": (
        I("express", 1, ("NextFunction", "Request", "Response", "Router")),
        I("./orders", 3, ("OrderItem", "OrdersBackend")),
        I("./payments", 4, ("chargeOrder", "PaymentDeclined")),
    ),
    "shipping/src/orders.rs": (
        I("anyhow", 3, ("bail", "Result")),
        I("tonic::transport::Channel", 4),
        I("crate::pb::acme::orders::v1::order::Status", 6),
        I("crate::pb::acme::orders::v1::orders_client::OrdersClient", 7),
        I("crate::pb::acme::orders::v1", 8, ("GetOrderRequest", "Order")),
    ),
    "notifications/Program.cs": (
        I("Grpc.Net.Client", 1),
        I("Microsoft.Extensions.DependencyInjection", 2),
        I("Microsoft.Extensions.Hosting", 3),
        I("Notifications", 4),
    ),
    "orders/orders/events.py": (I("json", 3), I("kafka", 5, ("KafkaProducer",))),
    "notifications/OrderEvents.cs": (I("System.Net.Http.Json", 1), I("Confluent.Kafka", 2)),
    "notifications/OrderWatcher.cs": (
        I("Acme.Orders.V1", 1),
        I("Grpc.Core", 2),
        I("Grpc.Net.Client", 3),
    ),
    "proto/acme/orders/v1/orders.proto": (I("acme/common/v1/money.proto", 5),),
    "orders/protos/orders.proto": (I("acme/common/v1/money.proto", 5),),
    "gateway/protos/orders.proto": (I("acme/common/v1/money.proto", 5),),
    "proto/acme/payments/v1/payments.proto": (I("acme/common/v1/money.proto", 5),),
    "proto/acme/inventory/v1/inventory.proto": (),
    "proto/acme/common/v1/money.proto": (),
    "README.md": (
        I("orders/README.md", 10),
        I("inventory/README.md", 11),
        I("payments/README.md", 12),
        I("gateway/README.md", 13),
        I("shipping/README.md", 14),
        I("notifications/README.md", 15),
        I("docs/architecture.md", 30),
        I("docs/runbook.md", 31),
    ),
    "docs/architecture.md": (
        I("runbook.md", 4),
        I("../orders/README.md", 23),
        I("../inventory/README.md", 32),
        I("../payments/README.md", 36),
        I("../gateway/README.md", 40),
        I("../shipping/README.md", 40),
        I("../notifications/README.md", 41),
        I("../proto/acme/orders/v1/orders.proto", 48),
        I("runbook.md", 55),
    ),
    "docs/runbook.md": (
        I("architecture.md", 3),
        I("../payments/README.md", 52),
    ),
    "orders/README.md": (I("protos/orders.proto", 7),),
    "inventory/README.md": (I("../docs/runbook.md", 26),),
    "payments/README.md": (),
    "gateway/README.md": (
        I("protos/orders.proto", 18),
        I("../proto/acme/orders/v1/orders.proto", 19),
    ),
    "shipping/README.md": (),
    "notifications/README.md": (),
}


# --------------------------------------------------------------------------------------------------
# Links beyond gRPC: HTTP routes and calls, messages, and the constants naming them. Every source
# file not listed has none.
# --------------------------------------------------------------------------------------------------

LINKS: dict[str, tuple[object, ...]] = {
    # gateway: the Express app mounts the router of ./routes at / (index.ts:11) and serves /healthz
    "gateway/src/index.ts": (
        HttpRoute("*", "/", 11, framework="express", mount="./routes"),
        HttpRoute("GET", "/healthz", 12, framework="express"),
    ),
    "gateway/src/routes.ts": (
        HttpRoute("GET", "/orders/{id}", 19, symbol="ordersRouter", framework="express"),
        HttpRoute("POST", "/orders", 23, symbol="ordersRouter", framework="express"),
        HttpRoute("POST", "/orders/{id}/pay", 32, symbol="ordersRouter", framework="express"),
    ),
    # the test starts the app on a port it is given: its URL is built at run time
    "gateway/test/routes.test.ts": (HttpCall("GET", "", 20, "get", host="127.0.0.1", client="fetch", computed=True),),
    # orders publishes each order placed to the Kafka topic orders.placed (through a constant)...
    "orders/orders/events.py": (
        MessageFact("produce", "kafka", "orders.placed", 18, "topic", "OrderEvents.placed", client="kafka-python"),
        Constant("ORDERS_PLACED_TOPIC", "orders.placed", 7),
    ),
    # ...which notifications consumes, then asks the gateway for the order over HTTP
    "notifications/OrderEvents.cs": (
        HttpCall("GET", "/orders/{placed}", 23, "OrderEvents.RunAsync", host="gateway", client="HttpClient"),
        MessageFact("consume", "kafka", "orders.placed", 19, "topic", "OrderEvents.RunAsync", client="Confluent.Kafka"),
    ),
}


def links_of(path: str) -> tuple[object, ...]:
    found = facts(path)
    return (*found.http_routes, *found.http_calls, *found.messages, *found.constants, *found.settings)


def ids(table: dict[str, object]) -> list[str]:
    return sorted(table)


# --------------------------------------------------------------------------------------------------
# The facts, one parametrised test per kind.
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ids(GRPC))
def test_grpc_facts(path: str) -> None:
    assert facts(path).grpc == GRPC[path]


@pytest.mark.parametrize("path", ids(PROTO))
def test_proto_file(path: str) -> None:
    assert facts(path).proto == PROTO[path]


@pytest.mark.parametrize("path", ids(SECTIONS))
def test_sections(path: str) -> None:
    assert facts(path).sections == SECTIONS[path]


@pytest.mark.parametrize("path", ids(DEPENDENCIES))
def test_dependencies(path: str) -> None:
    assert facts(path).dependencies == DEPENDENCIES[path]


@pytest.mark.parametrize("path", ids(DEFINITIONS))
def test_definitions(path: str) -> None:
    assert facts(path).definitions == DEFINITIONS[path]


@pytest.mark.parametrize("path", ids(IMPORTS))
def test_imports(path: str) -> None:
    assert facts(path).imports == IMPORTS[path]


@pytest.mark.parametrize("path", ids(GRPC))
def test_links(path: str) -> None:
    assert links_of(path) == LINKS.get(path, ())


@pytest.mark.parametrize("path", ids(GRPC) + ids(PROTO) + ids(SECTIONS) + ids(DEPENDENCIES))
def test_every_file_parses_cleanly(path: str) -> None:
    assert facts(path).error == ""
    assert facts(path).proto is None or facts(path).proto.errors == ()


# --------------------------------------------------------------------------------------------------
# The tables themselves: complete, and anchored in the fixture's text (no extractor needed).
# --------------------------------------------------------------------------------------------------


def workspace_files() -> list[str]:
    return [entry.path for entry in walk(FIXTURE).files]


def test_table_covers_every_file_of_the_workspace() -> None:
    files = workspace_files()
    sources = {p for p in files if language_of(p) not in (None, "proto", "markdown")}
    assert set(GRPC) == sources
    assert set(PROTO) == {p for p in files if language_of(p) == "proto"}
    assert set(SECTIONS) == {p for p in files if language_of(p) == "markdown"}
    assert set(DEPENDENCIES) == {p for p in files if manifest_kind(p.rsplit("/", 1)[-1])}
    assert "FIXTURE.md" not in files  # the design note is not part of the workspace
    assert not any(p.rsplit("/", 1)[-1] == "mesh.toml" for p in files)  # services come from manifests
    languages = {language_of(p) for p in sources}
    assert {"python", "go", "java", "typescript", "rust", "csharp"} <= languages
    assert {language_of(p) for p in DEFINITIONS} >= languages | {"proto"}
    assert {language_of(p) for p in IMPORTS} >= languages | {"proto", "markdown"}


def test_table_grpc_lines_name_their_evidence() -> None:
    for path, expected in GRPC.items():
        text = lines_of(path)
        assert [fact.line for fact in expected] == sorted(fact.line for fact in expected), path
        for fact in expected:
            line = text[fact.line - 1]
            if fact.role in (GrpcRole.HANDLER, GrpcRole.CALL):
                assert re.search(rf"\b{fact.method}\b", line), (path, fact)
            else:
                # a standard service registered by its library (``reflection.Register(s)``) by the namespace
                named = fact.service in line or (fact.namespace != "" and f"{fact.namespace}." in line)
                assert named or fact.symbol.rsplit(".", 1)[-1] in line, (path, fact)
            assert fact.namespace == "" or fact.namespace.split(".")[0] in "\n".join(text), (path, fact)


def test_table_definitions_and_imports_point_at_their_lines() -> None:
    for path, definitions in DEFINITIONS.items():
        text = lines_of(path)
        for definition in definitions:
            assert re.search(rf"\b{re.escape(definition.name)}\b", text[definition.line - 1]), (path, definition)
            assert definition.end_line <= len(text)
    for path, imports in IMPORTS.items():
        text = lines_of(path)
        for imported in imports:
            line = text[imported.line - 1]
            assert imported.module.strip(".") in line or imported.module == ".", (path, imported)
            assert all(name in line for name in imported.names), (path, imported)


def test_table_sections_are_the_headings() -> None:
    for path, sections in SECTIONS.items():
        text = lines_of(path)
        assert sections[-1].end_line == len(text)
        for sec in sections:
            assert text[sec.line - 1] == "#" * sec.level + " " + sec.title, (path, sec)
        starts = [sec.line for sec in sections]
        for sec in sections:
            # ends on the line before the next heading of the same or a higher level, else at the end
            after = [s.line for s in sections if s.line > sec.line and s.level <= sec.level]
            assert sec.end_line == (after[0] - 1 if after else len(text)), (path, sec)
        assert starts == sorted(starts)


def test_table_dependencies_point_at_their_declarations() -> None:
    for path, dependencies in DEPENDENCIES.items():
        text = lines_of(path)
        for dependency in dependencies:
            line = text[dependency.line - 1]
            if path.endswith("pom.xml"):
                group, artifact = dependency.name.split(":")
                assert line.strip() == "<dependency>", (path, dependency)
                assert f"<groupId>{group}</groupId>" in text[dependency.line], (path, dependency)
                assert f"<artifactId>{artifact}</artifactId>" in text[dependency.line + 1], (path, dependency)
            else:
                assert dependency.name in line and dependency.version.lstrip("=<>^") in line, (path, dependency)


def test_table_proto_copies() -> None:
    shared = (FIXTURE / "proto/acme/orders/v1/orders.proto").read_bytes()
    assert (FIXTURE / "orders/protos/orders.proto").read_bytes() == shared
    assert (FIXTURE / "gateway/protos/orders.proto").read_bytes() != shared
    for path, proto in PROTO.items():
        text = lines_of(path)
        for svc in proto.services:
            assert text[svc.line - 1] == f"service {svc.name} {{" and text[svc.end_line - 1] == "}"
            for method in svc.methods:
                assert f"rpc {method.name}(" in text[method.line - 1], (path, method)
        for msg in proto.messages:
            head = text[msg.line - 1].strip()
            assert head.startswith(f"{msg.kind} {msg.name.rsplit('.', 1)[-1]} {{"), (path, msg)
            assert text[msg.end_line - 1].strip().endswith("}"), (path, msg)
            for fld in msg.fields:
                assert re.search(rf"\b{fld.name} = {fld.number};", text[fld.line - 1]), (path, fld)


# --------------------------------------------------------------------------------------------------
# FIXTURE.md agrees with the tables: the RPC table and the service-level table are derived here
# from GRPC and PROTO and compared with the note's text.
# --------------------------------------------------------------------------------------------------

#: The proto package of each service name (no two packages of the fixture share a service name).
PACKAGE_OF_SERVICE = {svc.name: proto.package for proto in PROTO.values() for svc in proto.services}
SHARED_PROTOS = [path for path in PROTO if path.startswith("proto/")]


def rpc_of(fact: GrpcFact) -> str:
    """``package.Service/Method`` of a HANDLER or CALL fact, matching the method as the .proto spells it."""
    wanted = fact.method.removesuffix("Async").replace("_", "").lower()
    methods = [
        method.name
        for path in SHARED_PROTOS
        for svc in PROTO[path].services
        if svc.name == fact.service
        for method in svc.methods
        if method.name.lower() == wanted
    ]
    assert len(methods) == 1, fact
    return f"{PACKAGE_OF_SERVICE[fact.service]}.{fact.service}/{methods[0]}"


def derived_rpc_rows() -> dict[str, tuple[str, str, str]]:
    rows: dict[str, tuple[list[str], list[str], list[str]]] = {}
    for path, proto in sorted(PROTO.items()):
        for svc in proto.services:
            for method in svc.methods:
                rows.setdefault(f"{proto.package}.{svc.name}/{method.name}", ([], [], []))[0].append(
                    f"{path}:{method.line}"
                )
    for path, expected in sorted(GRPC.items()):
        for fact in expected:
            if fact.role == GrpcRole.HANDLER:
                rows[rpc_of(fact)][1].append(f"{path}:{fact.line}")
            elif fact.role == GrpcRole.CALL:
                rows[rpc_of(fact)][2].append(f"{path}:{fact.line}")
    return {rpc: tuple(", ".join(cell) or "none" for cell in cells) for rpc, cells in rows.items()}


def derived_service_rows() -> dict[str, tuple[str, str]]:
    rows: dict[str, tuple[list[str], list[str]]] = {}
    for path, expected in sorted(GRPC.items()):
        for fact in expected:
            if fact.role in (GrpcRole.SERVER, GrpcRole.CLIENT):
                package = PACKAGE_OF_SERVICE.get(fact.service)
                name = f"{package}.{fact.service}" if package else f"{fact.service} (not in the workspace)"
                cells = rows.setdefault(name, ([], []))
                cells[0 if fact.role == GrpcRole.SERVER else 1].append(f"{path}:{fact.line}")
    return {name: tuple(", ".join(cell) or "none" for cell in cells) for name, cells in rows.items()}


def fixture_md_table(heading: str) -> dict[str, tuple[str, ...]]:
    """The rows of the first table under ``## heading`` in FIXTURE.md, keyed by their first cell."""
    text = (FIXTURE / "FIXTURE.md").read_text(encoding="utf-8")
    body = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    table = body.split("\n|", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines():
        if line.startswith("| `"):
            cells = [cell.strip().replace("`", "") for cell in line.strip("|").split("|")]
            rows[cells[0]] = tuple(cells[1:])
    return rows


def test_fixture_md_rpc_table_matches_the_tables() -> None:
    assert fixture_md_table("RPCs") == derived_rpc_rows()


def test_fixture_md_service_table_matches_the_tables() -> None:
    assert fixture_md_table("Servers and clients") == derived_service_rows()


def test_fixture_md_names_the_gaps() -> None:
    rows = derived_rpc_rows()
    assert rows["acme.orders.v1.Orders/CancelOrder"][1:] == ("none", "none")
    assert rows["acme.inventory.v1.Inventory/Release"][1] == "none" != rows["acme.inventory.v1.Inventory/Release"][2]
    assert rows["acme.payments.v1.Payments/Refund"][2] == "none" != rows["acme.payments.v1.Payments/Refund"][1]
    gaps = {rpc for rpc, (_, implemented, called) in rows.items() if "none" in (implemented, called)}
    assert gaps == {
        "acme.orders.v1.Orders/CancelOrder",
        "acme.inventory.v1.Inventory/Release",
        "acme.payments.v1.Payments/Refund",
    }
