"""gRPC facts the resolver derives across files: handlers through inheritance chains and embedding
in every language with classes, a type's methods in other files, Node handlers imported from
another module, and the runtime's standard services known by name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mesh.index import Index

INVENTORY_PROTO = """syntax = "proto3";
package acme.inventory.v1;
service Inventory {
  rpc Reserve(R) returns (R);
  rpc Release(R) returns (R);
}
service Other { rpc Ping(R) returns (R); }
service Third { rpc Reserve(R) returns (R); }
message R { string id = 1; }
"""

#: One service per language: an intermediate base class (or embedded struct) implements the
#: generated server, the concrete class in another file implements the methods.
CHAINS = {
    "proto/acme/inventory/v1/inventory.proto": INVENTORY_PROTO,
    "py/pyproject.toml": '[project]\nname = "py"\n',
    "py/app/base.py": (
        "from acme.inventory.v1 import inventory_pb2_grpc\n\n\n"
        "class BaseInventory(inventory_pb2_grpc.InventoryServicer):\n"
        "    def _helper(self):\n        pass\n"
    ),
    "py/app/impl.py": (
        "from .base import BaseInventory\n\n\n"
        "class Middle(BaseInventory):\n    pass\n\n\n"
        "class Inventory(Middle):\n"
        "    def Reserve(self, request, context):\n        return None\n\n"
        "    def Release(self, request, context):\n        return None\n\n"
        "    def audit(self):\n        pass\n"
    ),
    "go/go.mod": "module example.com/inv\n",
    "go/server/base.go": (
        'package server\n\nimport pb "example.com/inv/pb"\n\n'
        "type base struct {\n\tpb.UnimplementedInventoryServer\n}\n\n"
        "type Server struct {\n\t*base\n}\n"
    ),
    "go/server/handlers.go": (
        "package server\n\n"
        "func (s *Server) Reserve(ctx context.Context, r *pb.R) (*pb.R, error) { return nil, nil }\n\n"
        "func (b *base) Release(ctx context.Context, r *pb.R) (*pb.R, error) { return nil, nil }\n"
    ),
    "go/other/other.go": "package other\n\ntype Server struct {\n\tbase\n}\n",
    "java/pom.xml": "<project></project>\n",
    "java/src/main/java/a/AbstractInventory.java": (
        "package a;\n\nimport acme.inventory.v1.InventoryGrpc;\n\n"
        "public abstract class AbstractInventory extends InventoryGrpc.InventoryImplBase {\n}\n"
    ),
    "java/src/main/java/a/InventoryImpl.java": (
        "package a;\n\npublic class InventoryImpl extends AbstractInventory {\n"
        "  @Override\n  public void reserve(R request, StreamObserver<R> out) {}\n}\n"
    ),
    "java/src/main/java/a/KtImpl.kt": (
        "package a\n\nclass KtImpl : AbstractInventory() {\n"
        "  override fun release(request: R, out: StreamObserver<R>) {}\n}\n"
    ),
    "cs/cs.csproj": "<Project></Project>\n",
    "cs/Base.cs": "namespace Cs;\npublic abstract class BaseSvc : Inventory.InventoryBase { }\n",
    "cs/Impl.cs": (
        "namespace Cs;\npublic partial class Impl : BaseSvc {\n"
        "  public override Task<R> Reserve(R r, ServerCallContext c) => null;\n}\n"
    ),
    "cs/Impl2.cs": (
        "namespace Cs;\npublic partial class Impl {\n"
        "  public override Task<R> Release(R r, ServerCallContext c) => null;\n}\n"
    ),
    "ts/package.json": '{"name": "ts"}\n',
    "ts/src/base.ts": (
        "import { IInventoryServer } from './gen/inventory_grpc_pb';\n\n"
        "export abstract class BaseInventory implements IInventoryServer {\n  [name: string]: any;\n}\n"
    ),
    "ts/src/impl.ts": (
        "import { BaseInventory } from './base';\n\n"
        "export class InventoryService extends BaseInventory {\n"
        "  reserve(call: any, callback: any): void {}\n  release(call: any, callback: any): void {}\n}\n"
    ),
    "cpp/CMakeLists.txt": "project(x)\n",
    "cpp/base.h": (
        '#include "inventory.grpc.pb.h"\nclass BaseImpl : public acme::inventory::v1::Inventory::Service {\n};\n'
    ),
    "cpp/impl.h": (
        '#include "base.h"\nclass Impl final : public BaseImpl {\n public:\n'
        "  grpc::Status Reserve(grpc::ServerContext* c, const R* r, R* out) override;\n};\n"
    ),
    "rb/Gemfile": 'source "https://rubygems.org"\n',
    "rb/base.rb": "class BaseInv < Acme::Inventory::V1::Inventory::Service\nend\n",
    "rb/impl.rb": "class Impl < BaseInv\n  def reserve(req, call)\n  end\nend\n",
    "php/composer.json": '{"name": "x/php"}\n',
    "php/Base.php": (
        "<?php\nnamespace App;\nuse Acme\\Inventory\\V1\\InventoryInterface;\n"
        "abstract class Base implements InventoryInterface {\n}\n"
    ),
    "php/Impl.php": (
        "<?php\nnamespace App;\nclass Impl extends Base {\n"
        "    public function Reserve(\\Spiral\\RoadRunner\\GRPC\\ContextInterface $ctx, R $in): R { return $in; }\n}\n"
    ),
}


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def rows(index: Index, sql: str, *params: object) -> list[tuple]:
    with index.store.snapshot() as db:
        return db.execute(sql, params).fetchall()


def sites(index: Index, role: str, key: str) -> list[tuple]:
    """(path, line, symbol) of the facts of ``role`` keyed ``key`` (a method key for handlers)."""
    column = "method_key" if role in ("handler", "call") else "service_key"
    return rows(
        index,
        "SELECT f.path, g.line, g.symbol FROM grpc g JOIN files f ON f.id = g.file_id"
        f" WHERE g.role = ? AND g.{column} = ? ORDER BY f.path, g.line",
        role,
        key,
    )


@pytest.fixture(scope="module")
def chains(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    root = tmp_path_factory.mktemp("chains")
    write(root, CHAINS)
    index = Index(root, tmp_path_factory.mktemp("chains-cache"), workers=1)
    assert index.refresh().failures == ()
    yield index
    index.close()


RESERVE = "acme.inventory.v1.Inventory/Reserve"
RELEASE = "acme.inventory.v1.Inventory/Release"


def test_handlers_through_inheritance_chains_in_every_language(chains: Index) -> None:
    """The concrete class's methods are handlers, whatever the language and however long the chain."""
    assert sites(chains, "handler", RESERVE) == [
        ("cpp/impl.h", 4, "Impl.Reserve"),
        ("cs/Impl.cs", 3, "Impl.Reserve"),
        ("go/server/handlers.go", 3, "Server.Reserve"),
        ("java/src/main/java/a/InventoryImpl.java", 5, "InventoryImpl.reserve"),
        ("php/Impl.php", 4, "App.Impl.Reserve"),
        ("py/app/impl.py", 9, "Inventory.Reserve"),
        ("rb/impl.rb", 2, "Impl.reserve"),
        ("ts/src/impl.ts", 4, "InventoryService.reserve"),
    ]
    assert sites(chains, "handler", RELEASE) == [
        # a partial class's other part
        ("cs/Impl2.cs", 3, "Impl.Release"),
        # a method of the embedded type, in another file of its package
        ("go/server/handlers.go", 5, "base.Release"),
        # a Kotlin class extending the Java one
        ("java/src/main/java/a/KtImpl.kt", 4, "KtImpl.release"),
        ("py/app/impl.py", 12, "Inventory.Release"),
        ("ts/src/impl.ts", 5, "InventoryService.release"),
    ]


def test_each_class_of_a_chain_is_a_server(chains: Index) -> None:
    servers = sites(chains, "server", "acme.inventory.v1.Inventory")
    assert ("py/app/impl.py", 4, "Middle") in servers and ("py/app/impl.py", 8, "Inventory") in servers
    assert ("go/server/base.go", 9, "Server") in servers
    # an unqualified Go type embeds a type of its own package only
    assert not [site for site in servers if site[0] == "go/other/other.go"]


def test_derived_facts_say_what_they_come_through_and_only_the_proto_methods_are_handlers(chains: Index) -> None:
    assert rows(
        chains,
        "SELECT g.role, g.method, g.via FROM grpc g JOIN files f ON f.id = g.file_id WHERE f.path = 'py/app/impl.py'"
        " ORDER BY g.line",
    ) == [
        ("server", "", "BaseInventory"),
        ("server", "", "Middle"),
        ("handler", "Reserve", "Middle"),
        ("handler", "Release", "Middle"),
    ]


def test_a_chain_that_stops_serving_loses_its_derived_facts(tmp_path: Path) -> None:
    """The derived rows follow the base: edit it into a plain class, and the subclass serves nothing."""
    root = tmp_path / "ws"
    write(root, {key: text for key, text in CHAINS.items() if key.startswith(("proto/", "py/"))})
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    assert len(sites(index, "handler", RESERVE)) == 1
    (root / "py/app/base.py").write_text("class BaseInventory:\n    pass\n")
    index.refresh(changed=["py/app/base.py"])
    assert sites(index, "handler", RESERVE) == []
    assert rows(index, "SELECT count(*) FROM grpc") == [(0,)]
    index.close()


def test_a_base_named_by_two_server_types_elsewhere_derives_nothing(tmp_path: Path) -> None:
    """Two ``Base`` servers in other folders, neither imported: no telling which, so no guess."""
    files = {
        "proto/acme/inventory/v1/inventory.proto": INVENTORY_PROTO,
        "a/base.py": "import inventory_pb2_grpc\n\n\nclass Base(inventory_pb2_grpc.InventoryServicer):\n    pass\n",
        "b/base.py": "import inventory_pb2_grpc\n\n\nclass Base(inventory_pb2_grpc.OtherServicer):\n    pass\n",
        "c/impl.py": "class Impl(Base):\n    def Reserve(self, request, context):\n        pass\n",
        "c/mine.py": (
            "from a.base import Base\n\n\nclass Mine(Base):\n    def Reserve(self, request, context):\n        pass\n"
        ),
    }
    root = tmp_path / "ws"
    write(root, files)
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    # the file importing one of them derives from that one
    assert sites(index, "handler", RESERVE) == [("c/mine.py", 5, "Mine.Reserve")]
    index.close()


def test_a_base_out_of_sight_is_another_class_of_the_same_name(tmp_path: Path) -> None:
    """``class Handler(Service)`` in a folder that neither holds nor imports the server ``Service``."""
    files = {
        "proto/acme/inventory/v1/inventory.proto": INVENTORY_PROTO,
        "a/service.py": (
            "import inventory_pb2_grpc\n\n\nclass Service(inventory_pb2_grpc.InventoryServicer):\n    pass\n"
        ),
        "b/handler.py": (
            "from django import Service\n\n\nclass Handler(Service):\n    def Reserve(self):\n        pass\n"
        ),
        "a/impl.py": "class Impl(Service):\n    def Reserve(self, request, context):\n        pass\n",
    }
    root = tmp_path / "ws"
    write(root, files)
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    # the same folder is in sight, another folder is not
    assert sites(index, "handler", RESERVE) == [("a/impl.py", 2, "Impl.Reserve")]
    index.close()


# -- Node handlers defined in another file -------------------------------------------------------------

NODE = {
    "proto/inventory.proto": INVENTORY_PROTO,
    "node/package.json": '{"name": "node"}\n',
    "node/src/server.js": (
        "const grpc = require('@grpc/grpc-js');\n"
        "const protoLoader = require('@grpc/proto-loader');\n"
        "const pkg = grpc.loadPackageDefinition(protoLoader.loadSync('inventory.proto')).acme.inventory.v1;\n"
        "const { reserve } = require('./handlers');\n"
        "const handlers = require('./handlers');\n"
        "const { InventoryService } = require('./service');\n"
        "const server = new grpc.Server();\n"
        "server.addService(pkg.Inventory.service, { reserve, release: handlers.release });\n"
        "server.addService(pkg.Other.service, handlers);\n"
        "server.addService(pkg.Third.service, new InventoryService());\n"
    ),
    "node/src/handlers.js": (
        "function reserve(call, cb) {\n  cb(null, {});\n}\n\n"
        "exports.release = (call, cb) => cb(null, {});\n\n"
        "exports.ping = (call, cb) => cb(null, {});\n"
        "module.exports.reserve = reserve;\n"
    ),
    "node/src/service.js": (
        "class InventoryService {\n  reserve(call, cb) {}\n}\nmodule.exports = { InventoryService };\n"
    ),
}


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    root = tmp_path_factory.mktemp("node")
    write(root, NODE)
    index = Index(root, tmp_path_factory.mktemp("node-cache"), workers=1)
    assert index.refresh().failures == ()
    yield index
    index.close()


def test_node_imported_handlers_are_located_where_they_are_defined(node: Index) -> None:
    assert sites(node, "handler", RESERVE) == [("node/src/handlers.js", 1, "reserve")]
    assert sites(node, "handler", RELEASE) == [("node/src/handlers.js", 5, "release")]
    # a whole module, and an imported class
    assert sites(node, "handler", "acme.inventory.v1.Other/Ping") == [("node/src/handlers.js", 7, "ping")]
    assert sites(node, "handler", "acme.inventory.v1.Third/Reserve") == [
        ("node/src/service.js", 2, "InventoryService.reserve")
    ]


def test_node_the_registration_line_is_no_longer_a_handler(node: Index) -> None:
    assert rows(
        node,
        "SELECT g.method, g.service_key, g.method_key FROM grpc g JOIN files f ON f.id = g.file_id"
        " WHERE f.path = 'node/src/server.js' AND g.role = 'handler' ORDER BY g.method",
    ) == [("release", None, None), ("reserve", None, None)]


# -- the standard services ---------------------------------------------------------------------------------


def test_standard_services_are_known_by_name_unless_the_workspace_defines_them(tmp_path: Path) -> None:
    files = {
        # a workspace service named Health, of another package
        "proto/acme/status/v1/status.proto": 'syntax = "proto3";\npackage acme.status.v1;\n'
        "service Health { rpc Ping(P) returns (P); }\nmessage P {}\n",
        "svc/go.mod": "module example.com/svc\n",
        "svc/main.go": (
            "package main\n\nimport (\n"
            '\thealthpb "google.golang.org/grpc/health/grpc_health_v1"\n'
            '\tstatuspb "example.com/svc/acme/status/v1"\n'
            '\t"google.golang.org/grpc/reflection"\n)\n\n'
            "func main() {\n\ts := grpc.NewServer()\n"
            "\thealthpb.RegisterHealthServer(s, health.NewServer())\n"
            "\tstatuspb.RegisterHealthServer(s, status)\n"
            "\treflection.Register(s)\n"
            "\thealthpb.NewHealthClient(conn).Check(ctx, req)\n}\n"
        ),
    }
    root = tmp_path / "ws"
    write(root, files)
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    assert rows(index, "SELECT line, service_key, method_key FROM grpc ORDER BY line, role") == [
        (11, "grpc.health.v1.Health", None),
        (12, "acme.status.v1.Health", None),
        (13, "grpc.reflection.v1alpha.ServerReflection", None),
        (14, "grpc.health.v1.Health", "grpc.health.v1.Health/Check"),
        (14, "grpc.health.v1.Health", None),
    ]
    index.close()
