"""Message impact that follows the data: ``dependents`` and ``impact_matrix`` on a proto message.

A small workspace built here holds what the fixture lacks: a message (``Price``) inside another
(``LineItem``) inside an RPC's response, across imported files, in a map's values and in a cycle
(``Node``), and code in every language naming the generated types in its own spelling, next to
files that only import the generated package (no use of any message) and names taken by something
else (a C# alias, a type of the service).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesh.index import Index
from mesh.index.query._graph import _generated_stem, _package_in, _spellings
from mesh.tools import parse_args
from mesh.tools import _dependents as dependents
from mesh.tools import _impact as impact
from mesh.tools._view import View

from .conftest import view_of

_SERVICES = ("billing", "gosvc", "pysvc", "jvm", "dotnet", "web", "native", "rusty")

FILES = {
    "mesh.toml": "".join(f'[[services]]\nname = "{name}"\npath = "{name}"\n\n' for name in _SERVICES),
    "protos/acme/common/v1/price.proto": """syntax = "proto3";
package acme.common.v1;
option go_package = "github.com/acme/gen/common/v1;commonv1";
option java_package = "com.acme.common.v1";
option java_multiple_files = true;

message Price {
  int64 units = 1;
  string currency = 2;
}
""",
    "protos/acme/billing/v1/items.proto": """syntax = "proto3";
package acme.billing.v1;
import "acme/common/v1/price.proto";
option go_package = "github.com/acme/gen/billing/v1;billingv1";

message LineItem {
  string sku = 1;
  acme.common.v1.Price price = 2;
}

message Node {
  Node next = 1;
  repeated Node children = 2;
  LineItem item = 3;
}
""",
    "billing/billing.proto": """syntax = "proto3";
package acme.billing.v1;
import "acme/billing/v1/items.proto";
option go_package = "github.com/acme/gen/billing/v1;billingv1";
option java_package = "com.acme.billing.v1";
option java_outer_classname = "Api";

service Invoices {
  rpc CreateInvoice(CreateInvoiceRequest) returns (CreateInvoiceResponse);
  rpc Ping(PingRequest) returns (PingResponse);
  rpc Walk(Node) returns (PingResponse);
  rpc Tally(TallyRequest) returns (PingResponse);
  rpc Lost(Orphan) returns (PingResponse);
}

message CreateInvoiceRequest { string customer = 1; }
message CreateInvoiceResponse { repeated LineItem items = 1; Invoice invoice = 2; }
message Invoice { string id = 1; }
message PingRequest {}
message PingResponse {}
message TallyRequest { map<string, LineItem> by_sku = 1; }
message Orphan { Missing missing = 1; acme.common.v1.Price price = 2; }
""",
    "gosvc/go.mod": "module github.com/acme/gosvc\n\ngo 1.22\n",
    "gosvc/prices.go": """package main

import (
	commonv1 "github.com/acme/gen/common/v1"
)

func price() *commonv1.Price {
	return &commonv1.Price{Units: 1}
}
""",
    "gosvc/items.go": """package main

import pb "github.com/acme/gen/billing/v1"

func item() *pb.LineItem {
	return &pb.LineItem{Sku: "sku-1"}
}
""",
    "gosvc/walk.go": """package main

import pb "github.com/acme/gen/billing/v1"

func root() *pb.Node {
	return &pb.Node{}
}
""",
    "gosvc/invoices.go": """package main

import (
	"context"

	pb "github.com/acme/gen/billing/v1"
	"google.golang.org/grpc"
)

// Create makes an invoice; it never names Price.
func Create(ctx context.Context, conn *grpc.ClientConn) (*pb.Invoice, error) {
	client := pb.NewInvoicesClient(conn)
	resp, err := client.CreateInvoice(ctx, &pb.CreateInvoiceRequest{Customer: "c"})
	if err != nil {
		return nil, err
	}
	return resp.Invoice, nil
}
""",
    "gosvc/ping.go": """package main

import (
	"context"

	pb "github.com/acme/gen/billing/v1"
	"google.golang.org/grpc"
)

func Ping(ctx context.Context, conn *grpc.ClientConn) error {
	client := pb.NewInvoicesClient(conn)
	_, err := client.Ping(ctx, &pb.PingRequest{})
	return err
}
""",
    "pysvc/pyproject.toml": '[project]\nname = "pysvc"\nversion = "0"\n',
    "pysvc/app/prices.py": """from acme.common.v1 import price_pb2


def make():
    # price_pb2.Price in a comment does not count
    return price_pb2.Price(units=1, currency="EUR")
""",
    "pysvc/app/imports_only.py": """from acme.common.v1 import price_pb2

ANSWER = 42
""",
    "jvm/build.gradle.kts": 'plugins { kotlin("jvm") }\n',
    "jvm/src/main/kotlin/Reader.kt": """package jvm

import com.acme.billing.v1.Api.*

fun read(bytes: ByteArray): String = Invoice.parseFrom(bytes).id
""",
    "jvm/src/main/kotlin/Prices.kt": """package jvm

import com.acme.common.v1.Price

fun price(): Price = Price.newBuilder().setUnits(1).build()
""",
    "jvm/src/main/kotlin/com/acme/common/v1/Defaults.kt": """package com.acme.common.v1

fun zero(): Price = Price.newBuilder().build()
""",
    "dotnet/Dotnet.csproj": '<Project Sdk="Microsoft.NET.Sdk"></Project>\n',
    "dotnet/Prices.cs": """using Acme.Common.V1;

namespace Dotnet;

public static class Prices
{
    public static Price One() => new Price { Units = 1 };
}
""",
    "dotnet/Renamed.cs": """using GrpcPrice = Acme.Common.V1.Price;

namespace Dotnet;

public static class Renamed
{
    public static GrpcPrice One() => new GrpcPrice { Units = 1 };
}
""",
    "dotnet/Shadowed.cs": """using Acme.Common.V1;
using Price = Dotnet.Models.Price;

namespace Dotnet;

public static class Shadowed
{
    public static Price One() => new Price();
}
""",
    "dotnet/Models/Price.cs": """namespace Dotnet.Models;

public class Price { }
""",
    "dotnet/Invoice.cs": """namespace Dotnet;

public class Invoice { }
""",
    "dotnet/Invoices.cs": """using Acme.Billing.V1;

namespace Dotnet;

public static class Invoices
{
    public static Invoice Empty() => new Invoice();
}
""",
    "web/package.json": '{"name": "web", "version": "0.0.0"}\n',
    "web/src/prices.ts": """import * as pb from "./gen/price_pb";

export function one(): pb.Price {
  const price = new pb.Price();
  return price;
}
""",
    "native/CMakeLists.txt": "project(native)\n",
    "native/prices.cc": """#include "acme/common/v1/price.pb.h"

int units(const acme::common::v1::Price& price) { return price.units(); }
""",
    "rusty/Cargo.toml": '[package]\nname = "rusty"\nversion = "0.1.0"\n',
    "rusty/src/lib.rs": """pub mod pb {
    tonic::include_proto!("acme.common.v1");
}
pub mod prices;
""",
    "rusty/src/prices.rs": """use crate::pb;

pub fn one() -> pb::Price {
    pb::Price { units: 1, currency: String::new() }
}
""",
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    root = tmp_path_factory.mktemp("messages") / "ws"
    for relative, text in FILES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    index = Index(root, tmp_path_factory.mktemp("messages-cache"), workers=1)
    assert index.refresh().failures == ()
    yield index
    index.close()


@pytest.fixture
def view(shop: Index) -> Iterator[View]:
    with view_of(shop) as opened:
        yield opened


def ask(view: View, **arguments) -> str:
    return dependents.answer(parse_args(dependents.Args, arguments)[0], view)


def ask_impact(view: View, **arguments) -> str:
    return impact.answer(parse_args(impact.Args, arguments)[0], view)


def listed(text: str) -> dict[str, str]:
    """``path:line`` -> the rest of the line, for every dependent listed."""
    return {match.group(2): match.group(3) for match in re.finditer(r"^- (L\d) `([^`]+)` (.*)$", text, re.MULTILINE)}


# -- RPCs carrying a message, at any depth ---------------------------------------------------------


def test_every_rpc_holding_the_message_at_any_depth_carries_it_with_its_route(view: View) -> None:
    """Price sits in LineItem (another file, another package), which a repeated field, a map's
    values and a field of a recursive message hold; Orphan holds it beside a type defined nowhere.
    Ping carries nothing."""
    text = ask(view, target="acme.common.v1.Price", depth=1)
    assert (
        "Carried by 4 RPCs, in the request or response at any depth: "
        "`acme.billing.v1.Invoices/CreateInvoice` (response `CreateInvoiceResponse.items[].price`), "
        "`acme.billing.v1.Invoices/Lost` (request `Orphan.price`), "
        "`acme.billing.v1.Invoices/Tally` (request `TallyRequest.by_sku{}.price`), "
        "`acme.billing.v1.Invoices/Walk` (request `Node.item.price`)." in text
    )
    assert "Ping" not in text
    found = listed(text)
    assert found["billing/billing.proto:9"] == (
        "(proto) rpc `Invoices/CreateInvoice` returns `acme.common.v1.Price` in `CreateInvoiceResponse.items[].price`"
        " (also lines 11, 12, 13)"
    )
    assert found["gosvc/invoices.go:13"] == (
        "calls `acme.billing.v1.Invoices/CreateInvoice`, which carries `acme.common.v1.Price` in"
        " `CreateInvoiceResponse.items[].price`"
    )
    field = "(proto) field `LineItem.price` has type `acme.common.v1.Price`"
    assert found["protos/acme/billing/v1/items.proto:8"] == field


def test_a_message_in_a_cycle_is_walked_once(view: View) -> None:
    """Node holds itself (directly and in a list): the walk ends, and the RPC taking Node is its carrier;
    LineItem is reached through Node as through the response and the map."""
    carried = "Carried by 1 RPC, in the request or response at any depth: `acme.billing.v1.Invoices/Walk` "
    carried += "(request `Node`)."
    assert carried in ask(view, target="acme.billing.v1.Node", depth=1)
    text = ask(view, target="acme.billing.v1.LineItem", depth=1)
    assert "`acme.billing.v1.Invoices/Walk` (request `Node.item`)" in text
    assert "`acme.billing.v1.Invoices/Tally` (request `TallyRequest.by_sku{}`)" in text


def test_a_message_no_rpc_holds_says_so(view: View) -> None:
    """Invoice is in CreateInvoice's response; PingRequest only in Ping's; CreateInvoiceRequest's own
    field types are scalars. A message nothing holds is said to be carried by none."""
    assert "Carried by 1 RPC" in ask(view, target="acme.billing.v1.PingRequest", depth=1)
    text = ask(view, target="acme.billing.v1.Orphan", depth=1)
    assert "`acme.billing.v1.Invoices/Lost` (request `Orphan`)" in text


# -- code naming the generated type ------------------------------------------------------------------

NAMING = [
    # (path:line, what the line names)
    ("gosvc/prices.go:7", "names `commonv1.Price`"),
    ("pysvc/app/prices.py:6", "names `price_pb2.Price`"),
    ("jvm/src/main/kotlin/Prices.kt:3", "imports `com.acme.common.v1.Price`, naming `acme.common.v1.Price`"
     " (also line 5)"),
    ("jvm/src/main/kotlin/com/acme/common/v1/Defaults.kt:3", "names `Price`"),
    ("dotnet/Prices.cs:7", "names `Price`"),
    ("dotnet/Renamed.cs:1", "imports `Acme.Common.V1.Price`, naming `acme.common.v1.Price` (also line 7)"),
    ("web/src/prices.ts:3", "names `pb.Price`"),
    ("native/prices.cc:3", "names `v1::Price`"),
    ("rusty/src/prices.rs:3", "names `pb::Price`"),
]


@pytest.mark.parametrize(("where", "what"), NAMING, ids=[where.split(":")[0] for where, _ in NAMING])
def test_code_naming_the_generated_type_in_its_language_depends_on_the_message(
    view: View, where: str, what: str
) -> None:
    """Go ``&commonv1.Price{``, Python ``price_pb2.Price(``, Kotlin's import then ``Price.newBuilder()``
    (and with no import in the generated package's own folder), C# ``new Price {`` under the namespace and ``new GrpcPrice`` under an alias, TS ``new pb.Price()``
    from the generated module, C++ ``acme::common::v1::Price``, Rust ``pb::Price`` through the crate's
    ``mod pb { include_proto! }``."""
    found = listed(ask(view, target="acme.common.v1.Price", depth=1))
    assert found[where].startswith(what)


def test_the_outer_class_imported_whole_brings_its_messages_in(view: View) -> None:
    """Kotlin ``import com.acme.billing.v1.Api.*`` then ``Invoice.parseFrom``; Go ``*pb.Invoice``."""
    found = listed(ask(view, target="acme.billing.v1.Invoice", depth=1))
    assert found["jvm/src/main/kotlin/Reader.kt:5"] == "names `Invoice`, generated from `acme.billing.v1.Invoice`"
    assert found["gosvc/invoices.go:11"].startswith("names `pb.Invoice`")


def test_importing_the_generated_package_alone_uses_no_message(view: View) -> None:
    """imports_only.py imports price_pb2 and names nothing; ping.go imports the billing package and
    calls Ping only; a comment naming the type is no use; a C# name taken by another `using` or by a
    type of the service is not the generated one. None of them depends on Price or Invoice, at any depth."""
    for target in ("acme.common.v1.Price", "acme.billing.v1.Invoice"):
        text = ask(view, target=target, depth=5)
        for path in ("pysvc/app/imports_only.py", "gosvc/ping.go", "dotnet/Shadowed.cs", "dotnet/Invoices.cs"):
            assert path not in text
        assert "pysvc/app/prices.py:5" not in text
        assert re.search(r"`pysvc/app/prices\.py:\d+`.*also line", text) is None


def test_the_next_level_follows_the_messages_holding_the_change(view: View) -> None:
    """items.proto depends on Price through LineItem.price: at the next level come the files naming
    LineItem (items.go), not every importer of the billing package."""
    text = ask(view, target="acme.common.v1.Price", depth=3)
    found = listed(text)
    assert found["gosvc/items.go:5"] == (
        "names `pb.LineItem`, generated from `acme.billing.v1.LineItem`, via `protos/acme/billing/v1/items.proto`"
        " (also line 6)"
    )
    assert re.search(r"^- L2 `gosvc/items\.go:5`", text, re.MULTILINE)
    assert "gosvc/ping.go" not in text and "jvm/src/main/kotlin/Reader.kt" not in text


def test_the_messages_holding_the_change_beside_it_lead_to_their_users(view: View) -> None:
    """Node holds LineItem in the file defining LineItem: the code naming Node (walk.go) depends on a
    change of LineItem at the next level, through that file; at depth 1 it does not."""
    text = ask(view, target="acme.billing.v1.LineItem", depth=2)
    assert listed(text)["gosvc/walk.go:5"] == (
        "names `pb.Node`, generated from `acme.billing.v1.Node`, via `protos/acme/billing/v1/items.proto` (also line 6)"
    )
    assert re.search(r"^- L2 `gosvc/walk\.go:5`", text, re.MULTILINE)
    assert "gosvc/walk.go" not in ask(view, target="acme.billing.v1.LineItem", depth=1)


# -- verdicts ------------------------------------------------------------------------------------------


def test_impact_counts_each_service_once_and_areas_never(view: View) -> None:
    """Price: the eight services holding a dependent, gosvc once for its two files; protos/ (an area)
    is a row of the table but no service of the verdict nor of the dependents' count (INV-WS-3);
    gRPC reaches gosvc (a call of CreateInvoice)."""
    text = ask_impact(view, changes=["acme.common.v1.Price"], depth=1)
    assert text.rstrip().endswith("8 services impacted, 1 via gRPC")
    assert "| (no service: areas and root files) | changed (1) | – | – | – | 1 | – |" in text
    assert "| `gosvc` | – | – | – | – | 2 | – |" in text
    summary = ask(view, target="acme.common.v1.Price", depth=1)
    assert "12 dependents (11 in 8 services, 1 in no service: areas, root files) within depth 1" in summary


def test_a_verdict_of_one_service_reads_in_the_singular(view: View) -> None:
    """PingRequest: ping.go names it and calls Ping; the other files importing the billing package
    (Go, and Kotlin's ``Api.*``) never name it, so gosvc is the one service impacted."""
    text = ask_impact(view, changes=["acme.billing.v1.PingRequest"], depth=2)
    assert text.rstrip().endswith("\n1 service impacted, 1 via gRPC")
    assert "jvm" not in text.split("### Evidence", 1)[1]


# -- the spellings ---------------------------------------------------------------------------------------


def test_each_language_spells_a_nested_type_its_own_way() -> None:
    """``Order.Item`` as protoc's generators name it."""
    assert _spellings("go", "Order.Item") == ["Order_Item"]
    assert _spellings("python", "Order.Item") == ["Order.Item"]
    assert _spellings("java", "Order.Item") == ["Order.Item"]
    assert _spellings("csharp", "Order.Item") == ["Order.Types.Item"]
    assert _spellings("cpp", "Order.Item") == ["Order_Item", "Order::Item"]
    assert _spellings("rust", "OrderEvent.Line") == ["order_event::Line"]
    assert _spellings("typescript", "Order.Item") == ["Order_Item", "Order.Item"]
    assert _spellings("go", "Money") == ["Money"]


def test_generated_modules_are_tied_to_their_proto_by_name_and_package() -> None:
    """The module protoc's plugins name after ``orders.proto``, and a proto package inside a module."""
    assert _generated_stem("./gen/orders_pb") == "orders"
    assert _generated_stem("../gen/orders_grpc_pb.js") == "orders"
    assert _generated_stem("acme/orders/v1/orders.pb.h") == "orders"
    assert _generated_stem("./orders") == "orders"
    assert _generated_stem("acme.orders.v1.orders_pb2") == "orders"
    assert _generated_stem("express") is None
    assert _package_in("crate::pb::acme::orders::v1::Order", "acme.orders.v1")
    assert _package_in("Acme.Orders.V1", "acme.orders.v1")
    assert not _package_in("crate::pb::acme::orders::v2", "acme.orders.v1")
    assert not _package_in("orders/internal/server/handlers", "orders")
