"""gRPC shapes the per-file extractors learnt for issue 11: standard services registered by their
library, one type serving several services, Node's dynamic clients and imported handlers, and the
class heritage the resolver follows across files."""

from __future__ import annotations

import textwrap

import pytest

from mesh.index._facts import GrpcFact, method_spelling, well_known_methods, well_known_package
from mesh.index.parse import extract
from mesh.index.parse._ecmascript import ImportedHandler, imported_handlers
from mesh.index.parse._heritage import Heritage, heritage
from tests.support.facts import call, client, handler, server


def grpc(path: str, source: str) -> tuple[GrpcFact, ...]:
    facts = extract(path, textwrap.dedent(source).lstrip("\n").encode())
    assert facts.error == "", facts.error
    return facts.grpc


# -- the standard services --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("service", "namespace", "package"),
    [
        ("Health", "healthpb", "grpc.health.v1"),
        ("Health", "", "grpc.health.v1"),
        ("ServerReflection", "reflection", "grpc.reflection.v1alpha"),
        ("ServerReflection", "grpc_reflection_v1alpha", "grpc.reflection.v1alpha"),
        ("ServerReflection", "grpc_reflection_v1", "grpc.reflection.v1"),
        ("ServerReflection", "Grpc.Reflection.V1", "grpc.reflection.v1"),
        ("ServerReflection", "io.grpc.reflection.v1alpha", "grpc.reflection.v1alpha"),
        ("Orders", "pb", None),
    ],
)
def test_a_standard_service_is_known_by_name(service: str, namespace: str, package: str | None) -> None:
    assert well_known_package(service, namespace) == package


def test_the_methods_of_a_standard_service() -> None:
    assert well_known_methods("Health") == {method_spelling(name) for name in ("Check", "Watch", "List")}
    assert well_known_methods("Orders") == frozenset()


# -- one type serving several services ----------------------------------------------------------------

PYTHON_SERVICER = """
from grpc_health.v1 import health_pb2_grpc
from acme import orders_pb2_grpc


class Servicer(orders_pb2_grpc.OrdersServicer, health_pb2_grpc.HealthServicer):
    def GetOrder(self, request, context):
        pass

    def Check(self, request, context):
        pass


class Registered:
    def Watch(self, request, context):
        pass

    def Audit(self, request, context):
        pass


def serve(server):
    orders_pb2_grpc.add_OrdersServicer_to_server(Servicer(), server)
    servicer = Registered()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
"""


def test_python_a_class_serving_health_too_gives_it_its_methods_alone() -> None:
    """Check is Health's, GetOrder is Orders': neither is reported under the other service."""
    assert grpc("s.py", PYTHON_SERVICER) == (
        server("Health", 5, "Servicer", "health_pb2_grpc"),
        server("Orders", 5, "Servicer", "orders_pb2_grpc"),
        handler("Orders", "GetOrder", 6, "Servicer.GetOrder", "orders_pb2_grpc"),
        handler("Health", "Check", 9, "Servicer.Check", "health_pb2_grpc"),
        # registered as Health's servicer (through a name): its methods are Health's handlers
        handler("Health", "Watch", 14, "Registered.Watch", "health_pb2_grpc"),
        handler("Health", "Audit", 17, "Registered.Audit", "health_pb2_grpc"),
        server("Orders", 22, "serve", "orders_pb2_grpc"),
        server("Health", 24, "serve", "health_pb2_grpc"),
        # the library's own servicer: a SERVER, no handler
        server("Health", 25, "serve", "health_pb2_grpc"),
    )


GO_SERVER = """
package main

import (
	"google.golang.org/grpc/reflection"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	pb "example.com/inventory/pb"
)

type server struct {
	pb.UnimplementedInventoryServer
}

func (s *server) Reserve(ctx context.Context, r *pb.R) (*pb.R, error) { return nil, nil }

func (s *server) Check(ctx context.Context, r *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	return nil, nil
}

func main() {
	s := grpc.NewServer()
	srv := &server{}
	pb.RegisterInventoryServer(s, srv)
	healthpb.RegisterHealthServer(s, srv)
	reflection.Register(s)
}
"""


def test_go_a_type_registered_for_health_too_gives_it_its_methods_alone() -> None:
    assert grpc("main.go", GO_SERVER) == (
        server("Health", 9, "server", "healthpb"),
        server("Inventory", 9, "server", "pb"),
        handler("Inventory", "Reserve", 13, "server.Reserve", "pb"),
        handler("Health", "Check", 15, "server.Check", "healthpb"),
        server("Inventory", 22, "main", "pb"),
        server("Health", 23, "main", "healthpb"),
        # grpc-go's reflection package registers the runtime's ServerReflection
        server("ServerReflection", 24, "main", "reflection"),
    )


def test_go_reflection_register_counts_only_from_grpc_go() -> None:
    source = """
    package main

    import (
        "google.golang.org/grpc"
        reflect "google.golang.org/grpc/reflection"
        "example.com/reflection"
    )

    func main() {
        s := grpc.NewServer()
        reflect.RegisterV1(s)
        reflection.Register(s)
    }
    """
    assert grpc("main.go", source) == (server("ServerReflection", 11, "main", "reflection.v1"),)


def test_csharp_the_standard_services_of_aspnet_core() -> None:
    source = """
    var app = builder.Build();
    app.MapGrpcHealthChecksService();
    app.MapGrpcReflectionService();
    """
    assert grpc("Program.cs", source) == (
        server("Health", 2, "", "Grpc.Health.V1"),
        server("ServerReflection", 3, "", "Grpc.Reflection.V1Alpha"),
    )


def test_java_and_kotlin_the_standard_services_of_grpc_java() -> None:
    java = """
    class Main {
      void start(HealthStatusManager health) {
        ServerBuilder.forPort(1)
            .addService(ProtoReflectionService.newInstance())
            .addService(ProtoReflectionServiceV1.newInstance())
            .addService(health.getHealthService())
            .build();
      }
    }
    """
    assert grpc("Main.java", java) == (
        server("ServerReflection", 4, "Main.start", "io.grpc.reflection.v1alpha"),
        server("ServerReflection", 5, "Main.start", "io.grpc.reflection.v1"),
        server("Health", 6, "Main.start", "io.grpc.health.v1"),
    )
    kotlin = """
    fun start(health: HealthStatusManager) {
        ServerBuilder.forPort(1).addService(ProtoReflectionService.newInstance()).build()
        ServerBuilder.forPort(2).addService(health.getHealthService()).build()
    }
    """
    assert grpc("Main.kt", kotlin) == (
        server("ServerReflection", 2, "start", "io.grpc.reflection.v1alpha"),
        server("Health", 3, "start", "io.grpc.health.v1"),
    )


def test_cpp_the_switches_of_the_standard_services() -> None:
    source = """
    void Run() {
      grpc::EnableDefaultHealthCheckService(true);
      grpc::reflection::InitProtoReflectionServerBuilderPlugin();
      EnableDefaultHealthCheckService(true);
    }
    """
    assert grpc("main.cc", source) == (
        server("Health", 2, "Run", "grpc.health.v1"),
        server("ServerReflection", 3, "Run", "grpc.reflection.v1alpha"),
        server("Health", 4, "Run", "grpc.health.v1"),
    )


# -- Node ------------------------------------------------------------------------------------------------

NODE_CLIENTS = """
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const pkg = grpc.loadPackageDefinition(protoLoader.loadSync('inventory.proto')).acme.inventory.v1;
const client = new pkg.Inventory(addr, grpc.credentials.createInsecure());
client.reserve({ id: 1 }, () => {});
const { Inventory } = grpc.loadPackageDefinition(protoLoader.loadSync('inventory.proto')).acme.inventory.v1;
const destructured = new Inventory(addr, creds);
destructured.release({}, () => {});
const def = protoLoader.loadSync('inventory.proto');
const Made = grpc.makeClientConstructor(def['acme.inventory.v1.Inventory'], 'Inventory');
const made = new Made(addr, creds);
made.listStock({}, () => {});
const Generic = grpc.makeGenericClientConstructor({}, 'Orders');
new Generic(addr, creds).getOrder({}, () => {});
const raw = new grpc.Client(addr, grpc.credentials.createInsecure());
raw.makeUnaryRequest('/acme.inventory.v1.Inventory/Reserve', (x) => x, (x) => x, {}, () => {});
raw.makeServerStreamRequest('/Orders/Watch', (x) => x, (x) => x, {});
"""


def test_node_clients_from_loaded_definitions_constructors_and_method_paths() -> None:
    lpd = "grpc.loadPackageDefinition(protoLoader.loadSync('inventory.proto')).acme.inventory.v1"
    assert grpc("client.js", NODE_CLIENTS) == (
        client("Inventory", 4, "", "pkg"),
        call("Inventory", "reserve", 5, "", "pkg"),
        client("Inventory", 7, "", lpd),
        call("Inventory", "release", 8, "", lpd),
        client("Inventory", 11, "", "acme.inventory.v1"),
        call("Inventory", "listStock", 12, "", "acme.inventory.v1"),
        client("Orders", 14, ""),
        call("Orders", "getOrder", 14, ""),
        # a reflection-free dynamic stub: the path names the method
        call("Inventory", "Reserve", 16, "", "acme.inventory.v1"),
        call("Orders", "Watch", 17, ""),
    )


def test_node_a_package_loaded_in_another_file_makes_clients_with_credentials() -> None:
    source = """
    const grpc = require('@grpc/grpc-js');
    const { inventoryPkg } = require('./proto');
    const { OrdersClient } = require('./clients');
    const creds = grpc.credentials.createInsecure();
    const inventory = new inventoryPkg.Inventory(process.env.INVENTORY, creds);
    inventory.reserve({}, () => {});
    new OrdersClient('orders:50051', grpc.credentials.createSsl()).getOrder({}, () => {});
    const url = new URL('http://x', base);
    const other = new inventoryPkg.Inventory(process.env.INVENTORY);
    """
    assert grpc("client.js", source) == (
        client("Inventory", 5, "", "inventoryPkg"),
        call("Inventory", "reserve", 6, "", "inventoryPkg"),
        client("Orders", 7, ""),
        call("Orders", "getOrder", 7, ""),
    )


def test_node_the_standard_services_of_their_npm_packages() -> None:
    source = """
    const grpc = require('@grpc/grpc-js');
    const { ReflectionService } = require('@grpc/reflection');
    import { HealthImplementation } from 'grpc-health-check';
    const health = require('grpc-health-check');
    const server = new grpc.Server();
    new ReflectionService(packageDefinition).addToServer(server);
    const healthImpl = new HealthImplementation(statusMap);
    healthImpl.addToServer(server);
    server.addService(health.service, new health.Implementation({}));
    new Other(x).addToServer(server);
    """
    assert grpc("server.js", source) == (
        server("ServerReflection", 6, "", "grpc.reflection.v1alpha"),
        server("Health", 8, "", "grpc.health.v1"),
        server("Health", 9, "", "grpc.health.v1"),
    )


NODE_SERVER = """
const grpc = require('@grpc/grpc-js');
const { reserve } = require('./handlers');
const handlers = require('./handlers');
import { InventoryService } from './service';
const impl = {
  listStock(call, callback) {},
};
const server = new grpc.Server();
server.addService(pkg.Inventory.service, { reserve, release: handlers.release, listStock: impl.listStock });
server.addService(pkg.Other.service, handlers);
server.addService(pkg.Third.service, new InventoryService());
"""


def test_node_a_handler_of_an_object_literal_is_located_at_its_function() -> None:
    facts = grpc("server.js", NODE_SERVER)
    assert handler("Inventory", "listStock", 6, "impl.listStock", "pkg") in facts
    # imported handlers stay on their property, for the resolver to find
    assert handler("Inventory", "reserve", 9, "", "pkg") in facts


def test_node_imported_handlers_say_where_they_come_from() -> None:
    assert imported_handlers("javascript", textwrap.dedent(NODE_SERVER).lstrip("\n").encode()) == (
        ImportedHandler(9, "Inventory", "pkg", "reserve", "./handlers", "reserve"),
        ImportedHandler(9, "Inventory", "pkg", "release", "./handlers", "release"),
        ImportedHandler(10, "Other", "pkg", "", "./handlers", "*"),
        ImportedHandler(11, "Third", "pkg", "", "./service", "InventoryService"),
    )


# -- heritage ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "source", "expected"),
    [
        ("python", "class A(pb.XServicer, metaclass=M):\n    pass\n\n\nclass B(A):\n    pass\n\nclass C:\n    pass\n",
         [Heritage("A", 1, 2, ("pb.XServicer",)), Heritage("B", 5, 6, ("A",))]),
        ("java", "public class Impl extends pkg.Base<X> implements Foo {\n}\n",
         [Heritage("Impl", 1, 2, ("pkg.Base", "Foo"))]),
        ("kotlin", "class Impl : Base(), Other, pkg.Third<X> by y {\n}\n",
         [Heritage("Impl", 1, 2, ("Base", "Other", "pkg.Third"))]),
        ("csharp", "namespace A { public partial class Impl : Base, Ns.Other<int>, IFoo { } }\n",
         [Heritage("Impl", 1, 1, ("Base", "Ns.Other", "IFoo"))]),
        ("typescript", "export class Impl extends base.Base<X> implements IFoo {}\nconst C = class extends D {};\n",
         [Heritage("Impl", 1, 1, ("base.Base", "IFoo")), Heritage("C", 2, 2, ("D",))]),
        ("javascript", "class Impl extends mod.Base {}\n", [Heritage("Impl", 1, 1, ("mod.Base",))]),
        ("go", "package x\n\ntype Impl struct {\n\t*Base\n\tother.Thing\n\tname string\n\tG[int]\n}\n",
         [Heritage("Impl", 3, 8, ("Base", "other.Thing", "G"))]),
        ("cpp", "class Impl final : public Base, private ns::Other<int> {\n};\n",
         [Heritage("Impl", 1, 2, ("Base", "ns.Other"))]),
        ("ruby", "class Impl < Acme::Base\nend\n", [Heritage("Impl", 1, 2, ("Acme.Base",))]),
        ("php", "<?php\nclass Impl extends \\A\\Base implements Foo\\BarInterface {}\n",
         [Heritage("Impl", 2, 2, ("A.Base", "Foo.BarInterface"))]),
        ("rust", "impl Orders for Server {}\n", []),
    ],
)  # fmt: skip
def test_heritage_names_what_each_class_derives_from(language: str, source: str, expected: list[Heritage]) -> None:
    assert list(heritage(language, source.encode())) == expected
