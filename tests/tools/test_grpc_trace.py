"""``grpc_trace``: golden answers on the fixture workspace, every failure class, paging and determinism.

The goldens were checked by eye against the RPC, servers-and-clients and proto-copies tables of
``tests/fixtures/workspace/FIXTURE.md``; after that they are compared byte for byte. Cases the
fixture lacks (a service name in two packages, copies of one package that disagree, a call to a
method no ``.proto`` declares, hundreds of call sites) are small workspaces built here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.index import Index
from mesh.index.query._grpc_query import MethodRow, MethodTrace, Site, parse_target
from mesh.render._bound import _track_fence
from mesh.render._grpc import listed_sites, render_grpc
from mesh.tools import ArgumentError, ToolError, parse_args, schema_of
from mesh.tools._grpc_trace import NAME, Args, answer
from mesh.tools._view import View

from .conftest import FIXTURE, assert_golden, view_of

ROOT = Path(__file__).resolve().parents[2]


def trace_text(view: View, target: str, **more: str) -> str:
    return answer(Args(target=target, **more), view)


def failure(view: View, target: str, **more: str) -> str:
    with pytest.raises(ToolError) as caught:
        answer(Args(target=target, **more), view)
    return str(caught.value)


# -- golden answers on the fixture -------------------------------------------------------------

GOLDEN_CASES = [
    # (case, target, extra arguments)
    ("method_full_key_with_drifted_copy", "acme.orders.v1.Orders/GetOrder", {}),
    ("service_slash_method", "Orders/PlaceOrder", {}),
    ("service_dot_method_streaming", "Orders.WatchOrder", {}),
    ("drifted_neither_implemented_nor_called", "Orders/CancelOrder", {}),
    ("called_never_implemented", "Inventory/Release", {}),
    ("never_called", "Payments/Refund", {}),
    ("called_only_from_tests", "Inventory/ListStock", {}),
    ("charge_called_from_three_services", "Payments/Charge", {}),
    ("whole_service_with_copies", "acme.orders.v1.Orders", {}),
    ("whole_service_with_gaps", "Inventory", {}),
    ("whole_service_payments", "Payments", {}),
    ("health_not_in_the_workspace", "Health", {}),
    ("scoped_to_gateway", "Orders/GetOrder", {"scope": "gateway"}),
]


@pytest.mark.parametrize(("case", "target", "more"), GOLDEN_CASES, ids=[case for case, _, _ in GOLDEN_CASES])
def test_golden_answers_on_the_fixture(view: View, case: str, target: str, more: dict[str, str]) -> None:
    """Each answer equals its reviewed golden, byte for byte."""
    assert_golden(NAME, case, trace_text(view, target, **more))


@pytest.mark.parametrize(
    ("spelling", "same_as"),
    [
        ("Orders/GetOrder", "acme.orders.v1.Orders/GetOrder"),
        ("Orders.GetOrder", "acme.orders.v1.Orders/GetOrder"),
        ("acme.orders.v1.Orders.GetOrder", "acme.orders.v1.Orders/GetOrder"),
        ("/acme.orders.v1.Orders/GetOrder", "acme.orders.v1.Orders/GetOrder"),
        ("  orders/get_order ", "acme.orders.v1.Orders/GetOrder"),
        ("inventory.liststock", "Inventory/ListStock"),
        ("ORDERS", "acme.orders.v1.Orders"),
        ("Orders", "acme.orders.v1.Orders"),
    ],
)
def test_every_spelling_of_a_target_gives_the_same_answer(view: View, spelling: str, same_as: str) -> None:
    """The four target forms, a gRPC path, other cases and the snake_case spelling name the same thing."""
    assert trace_text(view, spelling) == trace_text(view, same_as)


def test_the_answers_agree_with_the_fixture_tables(view: View) -> None:
    """Every implementation and call site of the RPC table is listed for its method, and nothing else."""
    text = (FIXTURE / "FIXTURE.md").read_text()
    section = text.split("## RPCs\n", 1)[1].split("\n\n| RPC |", 1)[1].split("\n\n", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert len(rows) == 9
    for row in rows:
        key, _protos, implemented, called = (cell.strip().strip("`") for cell in row.strip("|").split("|"))
        answer_text = trace_text(view, key)
        implementations = answer_text.split("### Implementations", 1)[1].split("### Callers", 1)[0]
        callers = answer_text.split("### Callers", 1)[1].split("### Diagram", 1)[0].split("### Stubs", 1)[0]
        listed_handlers = re.findall(r"^  - `([^`]+)` in", implementations, re.MULTILINE)
        listed_calls = re.findall(r"^  - `([^`]+)` in", callers, re.MULTILINE)
        assert sorted(listed_handlers) == ([] if implemented == "none" else sorted(implemented.split(", ")))
        assert sorted(listed_calls) == ([] if called == "none" else sorted(called.split(", ")))


# -- failures ------------------------------------------------------------------------------------


def test_an_unknown_service_suggests_the_nearest(view: View) -> None:
    """A misspelt service: what was wrong, the nearest service, and the call to make instead."""
    assert failure(view, "Ordrs") == (
        "No gRPC service matches `Ordrs`: no `.proto` in the workspace defines it (3 services defined), and no"
        " gRPC code names it. Did you mean `acme.orders.v1.Orders`? Try `grpc_trace`"
        ' `{"target":"acme.orders.v1.Orders"}`.'
    )


def test_an_unknown_service_with_a_method_suggests_the_method_of_the_nearest_service(view: View) -> None:
    """A misspelt service with a real method: the suggestion is the whole method key."""
    assert "Did you mean `acme.inventory.v1.Inventory/Reserve`?" in failure(view, "Inventroy/Reserve")
    assert "Did you mean `acme.orders.v1.Orders/GetOrder`?" in failure(view, "acme.orders.v2.Orders/GetOrder")


def test_an_unknown_method_of_a_known_service_lists_its_methods(view: View) -> None:
    """A misspelt method: the service's methods, the nearest first, and the call to make."""
    message = failure(view, "Orders/GetOrdr")
    assert message.startswith(
        "`acme.orders.v1.Orders` has no method `GetOrdr`. Its methods: `CancelOrder`, `GetOrder`, `PlaceOrder`,"
        " `WatchOrder`. Did you mean `acme.orders.v1.Orders/GetOrder`"
    )
    assert message.endswith('Try `grpc_trace` `{"target":"acme.orders.v1.Orders/GetOrder"}`.')


def test_a_method_named_alone_asks_for_its_service(view: View) -> None:
    """`GetOrder` is a method, not a service: the answer names the service that declares it."""
    assert failure(view, "GetOrder") == (
        "No service is named `GetOrder`, but a method `GetOrder` is declared in 1 service: give the service too."
        " Did you mean `acme.orders.v1.Orders/GetOrder`? Try `grpc_trace`"
        ' `{"target":"acme.orders.v1.Orders/GetOrder"}`.'
    )


def test_a_package_named_alone_lists_its_services(view: View) -> None:
    """A proto package is not a service: the answer lists the package's services."""
    assert failure(view, "acme.payments.v1").startswith(
        "`acme.payments.v1` is a package, not a service: it defines 1 service. Did you mean"
        " `acme.payments.v1.Payments`?"
    )


def test_nothing_like_the_target_says_what_to_try(view: View) -> None:
    """No near name at all: the failure says what the workspace has and the forms a target takes."""
    message = failure(view, "Zebra")
    assert message.startswith("No gRPC service matches `Zebra`")
    assert "`package.Service/Method`" in message and "smart_search" in message


@pytest.mark.parametrize(
    ("target", "problem"),
    [
        ("", "is empty"),
        ("/", "is empty"),
        ("Orders Get", "contains white space"),
        ("a/b/c", "has more than one `/`"),
        ("Orders//Get", "has more than one `/`"),
        ("Orders/", "is not made of proto identifiers"),
        ("/Orders/", "is not made of proto identifiers"),
        (".Orders", "is not made of proto identifiers"),
        ("Orders..Get", "is not made of proto identifiers"),
        ("1Orders", "is not made of proto identifiers"),
        ("Orders/Get-Order", "is not made of proto identifiers"),
        ("Orders/Get()", "is not made of proto identifiers"),
        ("Ордер", "is not made of proto identifiers"),
    ],
)
def test_malformed_targets_say_what_is_wrong_and_the_forms(view: View, target: str, problem: str) -> None:
    """Text that cannot name a gRPC method or service: what is wrong, and the forms that work."""
    message = failure(view, target)
    assert problem in message
    assert "`package.Service/Method`, `Service/Method`, `Service.Method` or `Service`" in message


def test_a_long_malformed_target_is_shown_cut(view: View) -> None:
    """A failure quotes at most 80 characters of the target."""
    message = failure(view, "a b" * 100)
    assert len(message) < 300 and "..." in message


def test_a_scope_without_sites_names_the_busy_scopes(view: View) -> None:
    """A scope that holds no site of the method: where its sites are, and the calls to make."""
    assert failure(view, "Orders/GetOrder", scope="docs") == (
        "No code site of `acme.orders.v1.Orders/GetOrder` is under `docs`. Its sites are under `orders/orders` (3),"
        " `gateway/src` (2), `inventory/internal` (2). Try `grpc_trace`"
        ' `{"scope":"orders/orders","target":"Orders/GetOrder"}` or the whole trace: `grpc_trace`'
        ' `{"target":"Orders/GetOrder"}`.'
    )


def test_a_scope_for_a_method_with_no_site_at_all(view: View) -> None:
    """CancelOrder has no code site anywhere: a scope cannot help, the whole trace can."""
    assert "no code site anywhere" in failure(view, "Orders/CancelOrder", scope="orders")


def test_a_scope_outside_the_workspace_is_refused(view: View) -> None:
    """The scope is a workspace path; `..` out of it is a failure, not a silent empty answer."""
    assert "leaves the workspace" in failure(view, "Orders", scope="../elsewhere")


@pytest.mark.parametrize("cursor", ["abc", "-1", "1.5", "٣"])
def test_a_cursor_this_tool_did_not_give_is_refused(view: View, cursor: str) -> None:
    """A cursor is a position this tool printed; anything else says how to start again."""
    message = failure(view, "Orders", cursor=cursor)
    assert "is not one this tool gave" in message and '`{"target":"Orders"}`' in message


def test_a_cursor_past_the_end_is_refused(view: View) -> None:
    """A cursor past the last site (a stale one, after the index changed) says how to start again."""
    assert failure(view, "Orders", cursor="999").startswith("The cursor `999` is past the last of 16 code sites")


def test_arguments_are_validated_by_their_schema() -> None:
    """The schema comes from ``Args``: a target is required, unknown arguments are refused."""
    schema = schema_of(Args)
    assert schema["required"] == ["target"]
    assert sorted(schema["properties"]) == ["cursor", "scope", "target"]
    assert schema["properties"]["target"]["minLength"] == 1
    with pytest.raises(ArgumentError, match="unknown argument 'service'"):
        parse_args(Args, {"target": "Orders", "service": "x"})
    with pytest.raises(ArgumentError, match="needs at least 1 characters"):
        parse_args(Args, {"target": ""})
    assert parse_args(Args, {"target": "Orders"})[0] == Args(target="Orders")


def test_parse_target_reads_a_dotted_name_both_ways() -> None:
    """`a.b.C` may be a package and service, or a service and method: both readings, service first."""
    readings = parse_target("acme.orders.v1.Orders.GetOrder")
    assert [(r.package, r.service, r.method) for r in readings] == [
        ("acme.orders.v1.Orders", "GetOrder", None),
        ("acme.orders.v1", "Orders", "GetOrder"),
    ]
    assert [(r.package, r.service, r.method) for r in parse_target("Orders")] == [(None, "Orders", None)]


# -- cases the fixture lacks ---------------------------------------------------------------------

ALPHA_PROTO = """syntax = "proto3";

package alpha.v1;

service Orders {
  rpc Get(GetRequest) returns (GetReply);
}

message GetRequest {
  string id = 1;
}

message GetReply {
  string id = 1;
  string note = 2;
}
"""

# The same package and service as ALPHA_PROTO, drifted: Get streams, GetReply's `id` changed type
# and lost `note`, and a method was added.
GAMMA_PROTO = """syntax = "proto3";

package alpha.v1;

service Orders {
  rpc Get(GetRequest) returns (stream GetReply);
  rpc List(GetRequest) returns (GetReply);
}

message GetRequest {
  string id = 1;
}

message GetReply {
  int64 id = 1;
}
"""

BETA_PROTO = """syntax = "proto3";

package beta.v1;

import "google/protobuf/empty.proto";

service Orders {
  rpc Get(GetRequest) returns (google.protobuf.Empty);
  rpc Put(stream GetRequest) returns (GetRequest);
}

message GetRequest {
  string id = 1;
}
"""

CLIENT_PY = """import grpc

from alpha.v1 import orders_pb2_grpc


def main():
    stub = orders_pb2_grpc.OrdersStub(grpc.insecure_channel("localhost:1"))
    stub.Get(None)
    stub.Vanish(None)
"""


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def project(name: str) -> str:
    return f'[project]\nname = "{name}"\nversion = "0.1.0"\n'


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    """Two packages define `Orders`; alpha's has a drifted copy; a client calls a method no proto declares."""
    root = tmp_path_factory.mktemp("small")
    write(
        root,
        {
            "alpha/pyproject.toml": project("alpha"),
            "alpha/protos/orders.proto": ALPHA_PROTO,
            "alpha/app/client.py": CLIENT_PY,
            "beta/pyproject.toml": project("beta"),
            "beta/protos/orders.proto": BETA_PROTO,
            "gamma/pyproject.toml": project("gamma"),
            "gamma/protos/orders.proto": GAMMA_PROTO,
        },
    )
    index = Index(root, tmp_path_factory.mktemp("small-cache"), workers=1)
    assert index.refresh().failures == ()
    yield index
    index.close()


@pytest.mark.parametrize(
    ("target", "starts", "suggested"),
    [
        ("Orders", "`Orders` is ambiguous: 2 packages define a service of that name.",
         ["alpha.v1.Orders", "beta.v1.Orders"]),
        ("orders", "`orders` is ambiguous: 2 packages define a service of that name.",
         ["alpha.v1.Orders", "beta.v1.Orders"]),
        ("Orders/Get", "`Get` is ambiguous: it could be any of 2 methods.",
         ["alpha.v1.Orders/Get", "beta.v1.Orders/Get"]),
        ("Orders.get", "`get` is ambiguous: it could be any of 2 methods.",
         ["alpha.v1.Orders/Get", "beta.v1.Orders/Get"]),
        ("Orders/Nope", "No service named `Orders` declares a method `Nope` (2 packages define `Orders`).",
         ["alpha.v1.Orders", "beta.v1.Orders"]),
    ],
)  # fmt: skip
def test_an_ambiguous_name_lists_every_candidate(small: Index, target: str, starts: str, suggested: list[str]) -> None:
    """A service name two packages define: each candidate, as a whole target to call."""
    with view_of(small) as view:
        message = failure(view, target)
    assert message.startswith(starts)
    names = ", ".join(f"`{name}`" for name in suggested)
    assert f"Did you mean {names}?" in message
    assert f'Try `grpc_trace` `{{"target":"{suggested[0]}"}}`.' in message


def test_a_method_only_one_package_declares_settles_the_service(small: Index) -> None:
    """`Orders/Put`: only beta's `Orders` declares `Put`, so the name is not ambiguous."""
    with view_of(small) as view:
        assert trace_text(view, "Orders/Put").startswith("## `beta.v1.Orders/Put`\n")


def test_golden_drifted_copies_of_one_package(small: Index) -> None:
    """Copies of a method that differ in streaming and in their messages' fields, and a copy lacking a method."""
    with view_of(small) as view:
        assert_golden(NAME, "small_drifted_method", trace_text(view, "alpha.v1.Orders/Get"))
        assert_golden(NAME, "small_drifted_service", trace_text(view, "alpha.v1.Orders"))
        assert_golden(NAME, "small_method_of_one_copy", trace_text(view, "alpha.v1.Orders/List"))


def test_golden_a_message_outside_the_workspace(small: Index) -> None:
    """`google.protobuf.Empty` is imported from outside: it is named, not shown; a request used twice once."""
    with view_of(small) as view:
        assert_golden(NAME, "small_message_outside", trace_text(view, "beta.v1.Orders/Get"))
        assert "Response `GetRequest`: the same message." in trace_text(view, "beta.v1.Orders/Put")


def test_a_call_to_a_method_no_proto_declares_is_a_gap(small: Index) -> None:
    """`stub.Vanish(...)` on an `Orders` stub: listed under Not in the proto, and counted in the gaps."""
    with view_of(small) as view:
        text = trace_text(view, "alpha.v1.Orders")
    assert "### Not in the proto\n\n- **alpha** (python)\n  - `Vanish`: `alpha/app/client.py:9` in `main`\n" in text
    assert "- **Not in the proto**: 1 handler or call names a method no copy of the `.proto` declares" in text


# -- precision (issue 11) ---------------------------------------------------------------------------

PRECISION_PROTO = """syntax = "proto3";

package acme.inventory.v1;

import "acme/common/v1/money.proto";

service Inventory {
  rpc Reserve(ReserveRequest) returns (ReserveResponse);
  rpc Release(ReserveRequest) returns (ReserveResponse);
}

message ReserveRequest {
  repeated Line lines = 1;
  message Line {
    string sku = 1;
    int32 quantity = 2;
  }
}

message ReserveResponse {
  acme.common.v1.Money held = 1;
}
"""

MONEY_PROTO = """syntax = "proto3";

package acme.common.v1;

message Money {
  int64 units = 1;
}
"""

PRECISION = {
    "proto/acme/inventory/v1/inventory.proto": PRECISION_PROTO,
    "proto/acme/common/v1/money.proto": MONEY_PROTO,
    # a drifted copy: a field of a nested message renumbered, and of an imported one
    "shop/protos/acme/inventory/v1/inventory.proto": PRECISION_PROTO.replace(
        "int32 quantity = 2", "int32 quantity = 3"
    ),
    "shop/protos/acme/common/v1/money.proto": MONEY_PROTO.replace("units = 1", "units = 2"),
    "inventory/go.mod": "module example.com/inventory\n",
    "inventory/main.go": """package main

import (
\thealthpb "google.golang.org/grpc/health/grpc_health_v1"
\tpb "example.com/inventory/pb"
)

type server struct {
\tpb.UnimplementedInventoryServer
}

func (s *server) Reserve(ctx context.Context, r *pb.ReserveRequest) (*pb.ReserveResponse, error) {
\treturn nil, nil
}

func (s *server) Check(ctx context.Context, r *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
\treturn nil, nil
}

func main() {
\ts := grpc.NewServer()
\tsrv := &server{}
\tpb.RegisterInventoryServer(s, srv)
\thealthpb.RegisterHealthServer(s, srv)
}
""",
    "shop/pyproject.toml": project("shop"),
    "shop/shop/base.py": """from acme.inventory.v1 import inventory_pb2_grpc


class BaseInventory(inventory_pb2_grpc.InventoryServicer):
    pass
""",
    "shop/shop/inventory.py": """from .base import BaseInventory


class Inventory(BaseInventory):
    def Release(self, request, context):
        return None
""",
    "shop/shop/client.py": """import grpc

from acme.inventory.v1 import inventory_pb2_grpc


def main():
    stub = inventory_pb2_grpc.InventoryStub(grpc.insecure_channel("localhost:1"))
    stub.Release(None)
    stub.Reserve(None)
    stub.Reserve(None)
""",
}


@pytest.fixture(scope="module")
def precision(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    root = tmp_path_factory.mktemp("precision")
    write(root, PRECISION)
    index = Index(root, tmp_path_factory.mktemp("precision-cache"), workers=1)
    assert index.refresh().failures == ()
    yield index
    index.close()


def test_a_handler_through_an_intermediate_base_class_implements_the_method(precision: Index) -> None:
    """`Inventory(BaseInventory)` where `BaseInventory(InventoryServicer)`: Release is implemented."""
    with view_of(precision) as view:
        text = trace_text(view, "Inventory/Release")
    assert "- **shop** (python)\n  - `shop/shop/inventory.py:5` in `Inventory.Release`\n" in text
    assert "UNIMPLEMENTED" not in text and "Called, never implemented" not in text


def test_callers_are_the_call_sites_of_the_method_and_stubs_are_apart(precision: Index) -> None:
    with view_of(precision) as view:
        text = trace_text(view, "Inventory/Reserve")
    callers = text.split("### Callers\n", 1)[1].split("\n### ", 1)[0]
    assert callers == (
        "\n- **shop** (python)\n  - `shop/shop/client.py:9` in `main`\n  - `shop/shop/client.py:10` in `main`\n"
    )
    stubs = text.split("### Stubs\n", 1)[1].split("\n### ", 1)[0]
    assert stubs == "\n- **shop** (python)\n  - `shop/shop/client.py:7` in `main`\n"


def test_health_methods_of_the_main_server_are_not_strays_of_its_service(precision: Index) -> None:
    """`Check` on the struct registered for Inventory and Health is Health's, not "not in the proto"."""
    with view_of(precision) as view:
        inventory = trace_text(view, "acme.inventory.v1.Inventory")
        health = trace_text(view, "Health")
        check = trace_text(view, "grpc.health.v1.Health/Check")
    assert "Not in the proto" not in inventory
    assert health.startswith(
        "## `grpc.health.v1.Health`\n\n3 methods of a standard service of the gRPC runtime (its `.proto` is not in"
        " the workspace); 1 handler in 1 service; no call site; 2 servers and 0 stubs.\n"
    )
    assert "  - `Check`: `inventory/main.go:16` in `server.Check`\n" in health
    assert "**Neither implemented nor called**: `Watch`, `List`." in health
    assert "Request `HealthCheckRequest`: defined by the gRPC runtime (`grpc.health.v1`)." in check


def test_a_misspelt_standard_service_is_suggested(view: View) -> None:
    assert "Did you mean `grpc.health.v1.Health/Check`?" in failure(view, "Helth/Check")


def test_drift_is_compared_over_every_message_the_rpc_reaches(precision: Index) -> None:
    """A field renumbered in a nested message, and in an imported one, is drift of the RPC."""
    with view_of(precision) as view:
        text = trace_text(view, "Inventory/Reserve")
    assert (
        "- `shop/protos/acme/inventory/v1/inventory.proto:8` (shop): differs: message `acme.common.v1.Money` changes"
        " `int64 units = 1` to `int64 units = 2`; message `ReserveRequest.Line` changes `int32 quantity = 2` to"
        " `int32 quantity = 3`\n"
    ) in text


def test_a_standard_service_served_by_the_runtime_has_no_gap(view: View) -> None:
    """The fixture registers `health.NewServer()`: the runtime implements Health, nothing is missing."""
    text = trace_text(view, "Health")
    assert text.startswith("## `grpc.health.v1.Health`\n")
    assert text.endswith("### Gaps\n\nNone found.\n")
    assert '  t -.->|"the runtime\'s implementation"| s1\n' in text


# -- paging --------------------------------------------------------------------------------------

BIG_FOLDERS = ("app/api", "app/jobs", "lib/sdk")
BIG_FILES = 60  # per folder: 180 call sites and 180 stubs, far more than one page


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    """One method called from 180 files in three folders of one service."""
    root = tmp_path_factory.mktemp("big")
    files = {"shop/pyproject.toml": project("shop"), "shop/protos/orders.proto": ALPHA_PROTO}
    for folder in BIG_FOLDERS:
        for number in range(BIG_FILES):
            files[f"shop/{folder}/client_{number:02}.py"] = CLIENT_PY.replace("stub.Vanish(None)\n", "")
    write(root, files)
    index = Index(root, tmp_path_factory.mktemp("big-cache"), workers=1)
    assert index.refresh().failures == ()
    yield index
    index.close()


def test_a_long_answer_pages_and_says_how_to_narrow(big: Index) -> None:
    """A first page shows part of the sites, the busiest scopes, a narrowing call and a next-page call."""
    with view_of(big) as view:
        page = trace_text(view, "Orders/Get")
    assert len(page.encode()) < 12 * 1024
    footer = page.split("\n---\n", 1)[1]
    shown = int(re.match(r"Shown (\d+) of 360 code sites\.\n", footer).group(1))
    assert 0 < shown < 360
    assert "Busiest scopes: `shop/app` (240), `shop/lib` (120), `shop/protos`" not in footer  # protos hold no site
    assert "Busiest scopes: `shop/app` (240), `shop/lib` (120).\n" in footer
    assert 'Narrow to the busiest: `grpc_trace` `{"scope":"shop/app","target":"Orders/Get"}`\n' in footer
    assert f'Next page: `grpc_trace` `{{"cursor":"{shown}","target":"Orders/Get"}}`\n' in footer
    assert "### Diagram" in page and "### Gaps" in page


@pytest.mark.parametrize("target", ["Orders/Get", "Orders"])
def test_following_the_cursors_shows_every_site_once(big: Index, target: str) -> None:
    """Page after page, by the printed next-page calls: every site exactly once, then no more cursor."""
    seen: list[str] = []
    arguments: dict[str, str] = {"target": target}
    with view_of(big) as view:
        for _ in range(100):
            page = answer(Args(**arguments), view)
            assert len(page.encode()) < 12 * 1024
            seen += re.findall(r"^  - .*?`(shop/[^`]+:\d+)`", page, re.MULTILINE)
            follow = re.search(r"^Next page: `grpc_trace` `(.+)`$", page, re.MULTILINE)
            if follow is None:
                break
            arguments = json.loads(follow.group(1))
            assert page.startswith(f"## `alpha.v1.Orders{'/Get' if target.endswith('Get') else ''}`\n")
    assert len(seen) == 360 == len(set(seen))


def test_a_later_page_says_which_sites_it_shows(big: Index) -> None:
    """The second page has no proto or diagram again; its footer counts from where it starts."""
    with view_of(big) as view:
        first = trace_text(view, "Orders/Get")
        cursor = re.search(r'"cursor":"(\d+)"', first).group(1)
        second = trace_text(view, "Orders/Get", cursor=cursor)
    assert "### Defined in" not in second and "### Diagram" not in second
    assert re.search(rf"^Shown code sites {int(cursor) + 1}-\d+ of 360\.$", second, re.MULTILINE)


def site(path: str, line: int, role: str) -> Site:
    owner = path.split("/")[0]
    return Site(role, path, line, f"fn{line}", owner, "python", False, "Get" if role in ("handler", "call") else "")


def hand_made(sites: list[tuple[str, int, str]]) -> MethodTrace:
    made = [site(path, line, role) for path, line, role in sites]
    return MethodTrace(
        package="p",
        service="S",
        method=MethodRow("Get", "In", "Out", False, False),
        copies=(),
        request=None,
        response=None,
        handlers=tuple(s for s in made if s.role == "handler"),
        servers=tuple(s for s in made if s.role == "server"),
        calls=tuple(s for s in made if s.role == "call"),
        clients=tuple(s for s in made if s.role == "client"),
    )


@settings(max_examples=60, deadline=None)
@given(
    sites=st.lists(
        st.tuples(
            st.sampled_from(["a/b/c.py", "a/d.py", "e/f/g.py", "a/b/h.py", "x.py"]),
            st.integers(1, 300),
            st.sampled_from(["handler", "server", "call", "client"]),
        ),
        max_size=50,
        unique_by=lambda item: (item[0], item[1]),
    ),
    budget=st.integers(200, 4000),
)
def test_pages_of_any_trace_cover_every_listed_site_once_and_close_their_fences(
    sites: list[tuple[str, int, str]], budget: int
) -> None:
    """For any sites and page budget: the cursors show each listed site once, and no page leaves a fence open."""
    trace = hand_made(sites)
    listed = listed_sites(trace)
    seen: list[tuple[str, int]] = []
    offset = 0
    for _ in range(len(listed) + 1):
        page = render_grpc(trace, {"target": "p.S/Get"}, offset=offset, page_bytes=budget)
        fence = None
        for line in page.splitlines():
            fence = _track_fence(fence, line)
        assert fence is None
        seen += [(p, int(n)) for p, n in re.findall(r"^  - .*?`([^`]+):(\d+)`", page, re.MULTILINE)]
        follow = re.search(r'"cursor":"(\d+)"', page)
        if follow is None:
            break
        offset = int(follow.group(1))
    assert seen == [(item.site.path, item.site.line) for item in listed]


# -- determinism ---------------------------------------------------------------------------------

DETERMINISM_TARGETS = ["acme.orders.v1.Orders", "Orders/GetOrder", "Inventory", "Payments/Charge", "Health"]


def test_the_same_call_gives_the_same_bytes(view: View) -> None:
    """Two calls with the same arguments on the same snapshot: equal bytes."""
    for target in DETERMINISM_TARGETS:
        assert trace_text(view, target) == trace_text(view, target)


def test_answers_do_not_depend_on_the_hash_seed(view: View, tmp_path: Path) -> None:
    """A fresh index built in processes with two other PYTHONHASHSEEDs answers with the same bytes."""
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from mesh.index import Index\n"
        "from mesh.tools._grpc_trace import Args, answer\n"
        "from mesh.tools._view import View\n"
        "index = Index(Path(sys.argv[1]), Path(sys.argv[2]), workers=1)\n"
        "index.refresh()\n"
        "with index.store.snapshot() as db:\n"
        "    view = View(db, index.root)\n"
        "    print(json.dumps([answer(Args(target=t), view) for t in json.loads(sys.argv[3])]))\n"
    )
    expected = [trace_text(view, target) for target in DETERMINISM_TARGETS]
    for seed in ("1", "4242"):
        result = subprocess.run(
            [sys.executable, "-c", script, str(FIXTURE), str(tmp_path / seed), json.dumps(DETERMINISM_TARGETS)],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        assert json.loads(result.stdout) == expected
