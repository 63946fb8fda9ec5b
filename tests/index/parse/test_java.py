"""The Java extractor: definitions, imports and grpc-java evidence followed through the file."""

from __future__ import annotations

import textwrap
import time

from hypothesis import example, given
from hypothesis import strategies as st

from mesh.index._facts import Definition, FileFacts, Import
from mesh.index.parse import _java, extract
from tests.support.facts import call, client, handler, server


def facts(source: str) -> FileFacts:
    return _java.extract(textwrap.dedent(source).lstrip("\n").encode())


def test_definitions_types_methods_constructors_and_nesting() -> None:
    result = facts(
        """
        package com.acme.orders;

        public class OrderService {
            private final Repo repo;

            public OrderService(Repo repo) {
                this.repo = repo;
            }

            @Override
            public String toString() {
                return "OrderService";
            }

            static class Cache {
                void clear() {}
            }

            interface Listener {
                void onOrder(Order order);
            }

            enum Status { OPEN, CLOSED; boolean done() { return this == CLOSED; } }

            record Line(String sku, int qty) {
                Line {
                    if (qty < 0) throw new IllegalArgumentException();
                }
            }

            @interface Audited {}

            void run() {
                new Thread(new Runnable() {
                    public void run() {}
                }).start();
            }
        }
        """
    )
    assert result.definitions == (
        Definition("OrderService", "class", "", 3, 38),
        Definition("OrderService", "method", "OrderService", 6, 8),
        Definition("toString", "method", "OrderService", 11, 13),
        Definition("Cache", "class", "OrderService", 15, 17),
        Definition("clear", "method", "OrderService.Cache", 16, 16),
        Definition("Listener", "interface", "OrderService", 19, 21),
        Definition("onOrder", "method", "OrderService.Listener", 20, 20),
        Definition("Status", "enum", "OrderService", 23, 23),
        Definition("OPEN", "constant", "OrderService.Status", 23, 23),
        Definition("CLOSED", "constant", "OrderService.Status", 23, 23),
        Definition("done", "method", "OrderService.Status", 23, 23),
        Definition("Line", "class", "OrderService", 25, 29),
        Definition("Line", "method", "OrderService.Line", 26, 28),
        Definition("Audited", "interface", "OrderService", 31, 31),
        Definition("run", "method", "OrderService", 33, 37),
        Definition("run", "method", "OrderService.run", 35, 35),
    )
    assert result.language == "java"
    assert result.error == ""


def test_imports_plain_static_and_wildcard() -> None:
    result = facts(
        """
        package com.acme;

        import com.acme.orders.v1.OrdersGrpc;
        import static java.util.concurrent.TimeUnit.SECONDS;
        import java.util.*;
        import static org.junit.Assert.*;
        import com.acme
            .orders.v1.Order;
        """
    )
    assert result.imports == (
        Import("com.acme.orders.v1.OrdersGrpc", 3),
        Import("java.util.concurrent.TimeUnit.SECONDS", 4),
        Import("java.util.*", 5),
        Import("org.junit.Assert.*", 6),
        Import("com.acme.orders.v1.Order", 7),
    )


def test_servers_extending_impl_base_and_their_handlers() -> None:
    result = facts(
        """
        import com.acme.orders.v1.OrdersGrpc;
        import com.acme.users.v1.UsersGrpc.UsersImplBase;

        public class OrdersService extends OrdersGrpc.OrdersImplBase {
            public OrdersService() {}

            @Override
            public void getOrder(GetOrderRequest request, StreamObserver<Order> observer) {
                observer.onCompleted();
            }

            @Override
            public StreamObserver<Item> addItems(StreamObserver<Summary> observer) {
                return null;
            }

            public static OrdersService create() { return new OrdersService(); }

            private void helper() {}

            void packagePrivate() {}

            @Override
            public String toString() { return "orders"; }
        }

        class UsersService extends UsersImplBase {
            public void getUser(Req request, StreamObserver<User> observer) {}
        }

        class Billing extends com.acme.billing.v1.BillingGrpc.BillingImplBase {}

        class Shipping implements ShippingGrpc.AsyncService {
            public void ship(Req request, StreamObserver<Resp> observer) {}
        }

        class NotGrpc extends SomethingImplBase {
            public void run() {}
        }
        """
    )
    assert result.grpc == (
        server("Orders", 4, "OrdersService"),
        handler("Orders", "getOrder", 8, "OrdersService.getOrder"),
        handler("Orders", "addItems", 13, "OrdersService.addItems"),
        server("Users", 27, "UsersService"),
        handler("Users", "getUser", 28, "UsersService.getUser"),
        server("Billing", 31, "Billing", "com.acme.billing.v1"),
        server("Shipping", 33, "Shipping"),
        handler("Shipping", "ship", 34, "Shipping.ship"),
    )


def test_stubs_in_fields_locals_parameters_and_chains() -> None:
    result = facts(
        """
        import com.acme.orders.v1.OrdersGrpc;
        import com.acme.orders.v1.OrdersGrpc.OrdersFutureStub;

        public class OrdersClient {
            private final OrdersGrpc.OrdersBlockingStub blocking;
            private OrdersFutureStub future;
            private final com.acme.orders.v1.OrdersGrpc.OrdersStub async =
                com.acme.orders.v1.OrdersGrpc.newStub(channel);

            public OrdersClient(Channel channel) {
                this.blocking = OrdersGrpc.newBlockingStub(channel);
                future = OrdersGrpc.newFutureStub(channel);
            }

            public Order fetch(String id) {
                Order first = blocking.getOrder(request(id));
                this.future.getOrder(request(id));
                async.watchOrders(request(id), observer);
                return blocking
                    .withDeadlineAfter(5, TimeUnit.SECONDS)
                    .withWaitForReady()
                    .getOrder(request(id));
            }

            static Order once(Channel channel, String id) {
                return OrdersGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(1, TimeUnit.SECONDS)
                    .getOrder(request(id));
            }

            static void passed(OrdersGrpc.OrdersBlockingStub stub) {
                var copy = stub;
                copy.cancelOrder(request("x"));
                ((OrdersGrpc.OrdersBlockingStub) untyped).listOrders(all());
            }
        }
        """
    )
    assert result.grpc == (
        client("Orders", 8, "OrdersClient", "com.acme.orders.v1"),
        client("Orders", 11, "OrdersClient.OrdersClient"),
        client("Orders", 12, "OrdersClient.OrdersClient"),
        call("Orders", "getOrder", 16, "OrdersClient.fetch"),
        call("Orders", "getOrder", 17, "OrdersClient.fetch"),
        call("Orders", "watchOrders", 18, "OrdersClient.fetch", "com.acme.orders.v1"),
        call("Orders", "getOrder", 22, "OrdersClient.fetch"),
        client("Orders", 26, "OrdersClient.once"),
        call("Orders", "getOrder", 28, "OrdersClient.once"),
        call("Orders", "cancelOrder", 33, "OrdersClient.passed"),
        call("Orders", "listOrders", 34, "OrdersClient.passed"),
    )


def test_static_imports_and_static_fields() -> None:
    result = facts(
        """
        import static com.acme.orders.v1.OrdersGrpc.newBlockingStub;

        class Clients {
            static final OrdersGrpc.OrdersBlockingStub ORDERS = newBlockingStub(channel);
        }

        class Report {
            void run() {
                Clients.ORDERS.listOrders(all());
            }
        }
        """
    )
    assert result.grpc == (
        client("Orders", 4, "Clients"),
        call("Orders", "listOrders", 9, "Report.run"),
    )


def test_static_wildcard_import_of_a_factory() -> None:
    result = facts(
        """
        import static com.acme.orders.v1.OrdersGrpc.*;

        class Client {
            private final OrdersBlockingStub stub = newBlockingStub(channel);

            Order get() {
                return stub.getOrder(request);
            }
        }
        """
    )
    assert result.grpc == (
        client("Orders", 4, "Client"),
        call("Orders", "getOrder", 7, "Client.get"),
    )


def test_calls_on_things_that_are_not_stubs_are_not_facts() -> None:
    result = facts(
        """
        import com.acme.orders.v1.OrdersGrpc;

        class Service {
            private final OrdersGrpc.OrdersBlockingStub stub = OrdersGrpc.newBlockingStub(channel);
            private final Map<String, Order> cache = new HashMap<>();

            Order cached(String id) {
                return cache.get(id);
            }

            void shadowed(Map<String, String> stub) {
                stub.get("x");
            }

            void config() {
                stub.withDeadlineAfter(1, TimeUnit.SECONDS);
                stub.getChannel();
            }

            void other(OtherStub other) {
                other.getOrder(request);
                Foo.newBlockingStub(channel).getOrder(request);
            }
        }
        """
    )
    assert result.grpc == (client("Orders", 4, "Service"),)


def test_a_syntax_error_keeps_what_was_read() -> None:
    result = facts(
        """
        class Fine {
            void ok() {}
        }

        class Broken {
            void oops( {
        """
    )
    assert result.definitions[:2] == (
        Definition("Fine", "class", "", 1, 3),
        Definition("ok", "method", "Fine", 2, 2),
    )
    assert result.error.startswith("syntax error at line ")
    assert int(result.error.rsplit(" ", 1)[1]) >= 5


def test_dispatch_by_suffix() -> None:
    assert extract("src/App.java", b"class App {}\n").definitions == (Definition("App", "class", "", 1, 1),)


@given(st.binary(max_size=400))
@example(b"\xff\xfe class \x00 {")
@example(b"class A {" * 300)
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    result = _java.extract(data)
    assert result.language == "java"
    assert not result.error.startswith("extractor failed")


_PIECES = st.sampled_from(
    [
        "class ", "interface ", "extends ", "public ", "static ", "void ", "OrdersGrpc.", "OrdersImplBase",
        "OrdersBlockingStub ", "newBlockingStub(ch)", "stub", ".getOrder(r)", "this.", "{", "}", "(", ")",
        ";", "=", "\n", " ", "import a.b.OrdersGrpc.*;\n", "x", ".withDeadlineAfter(1)", "var ",
    ]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=60).map("".join))
def test_arbitrary_java_ish_text_never_raises(text: str) -> None:
    result = _java.extract(text.encode())
    assert not result.error.startswith("extractor failed")


def test_deep_nesting_does_not_raise() -> None:
    source = ("class A { int x = " + "(" * 5000 + "1" + ")" * 5000 + "; }\n").encode()
    assert not _java.extract(source).error.startswith("extractor failed")
    source = ("class A {\n" * 2000 + "}\n" * 2000).encode()
    result = _java.extract(source)
    assert len(result.definitions) == 2000
    assert result.definitions[-1].container.count(".") == 1998


def test_pathological_input_stays_linear() -> None:
    start = time.process_time()
    assert _java.extract(b"{" * 200_000).error == "syntax error at line 1"
    chain = (
        b"class A { void f() { OrdersGrpc.newBlockingStub(ch)"
        + b".withDeadlineAfter(1)" * 20_000
        + b".getOrder(r); } }"
    )
    assert _java.extract(chain).grpc == (client("Orders", 1, "A.f"),)
    assert time.process_time() - start < 20.0


def _sample(classes: int) -> bytes:
    """A realistic Java file of about 20 lines per class, half of them gRPC."""
    parts = ["package com.acme.sample;\n\nimport com.acme.orders.v1.OrdersGrpc;\nimport java.util.*;\n"]
    for index in range(classes):
        parts.append(
            f"""
class Service{index} extends OrdersGrpc.OrdersImplBase {{
    private final OrdersGrpc.OrdersBlockingStub stub;
    private final Map<String, Order> cache = new HashMap<>();

    Service{index}(Channel channel) {{
        this.stub = OrdersGrpc.newBlockingStub(channel);
    }}

    @Override
    public void getOrder(GetOrderRequest request, StreamObserver<Order> observer) {{
        Order cached = cache.get(request.getId());
        if (cached == null) {{
            cached = stub.withDeadlineAfter(1, TimeUnit.SECONDS).getOrder(request);
            cache.put(request.getId(), cached);
        }}
        observer.onNext(cached);
        observer.onCompleted();
    }}
}}
"""
        )
    return "".join(parts).encode()


def test_speed_on_a_realistic_file() -> None:
    source = _sample(100)
    assert source.count(b"\n") > 1900
    _java.extract(source)
    start = time.process_time()
    result = _java.extract(source)
    elapsed = time.process_time() - start
    assert len(result.definitions) == 300
    assert len(result.grpc) == 400
    assert elapsed < 2.0
