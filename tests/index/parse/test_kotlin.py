"""The Kotlin extractor: definitions, imports and grpc-java / grpc-kotlin evidence followed through the file."""

from __future__ import annotations

import textwrap
import time

from hypothesis import example, given
from hypothesis import strategies as st

from mesh.index._facts import Definition, FileFacts, Import
from mesh.index.parse import _kotlin, extract
from tests.support.facts import call, client, handler, server


def facts(source: str) -> FileFacts:
    return _kotlin.extract(textwrap.dedent(source).lstrip("\n").encode())


def test_definitions_classes_objects_companions_and_functions() -> None:
    result = facts(
        """
        package com.acme.orders

        @Serializable
        data class Order(val id: String)

        sealed class Result {
            object Empty : Result()
            class Failure(val cause: Throwable) : Result()
        }

        interface Repository {
            fun find(id: String): Order?
        }

        enum class Status { OPEN, CLOSED }

        class OrderService(private val repo: Repository) {
            fun get(id: String): Order? {
                fun log() = println(id)
                log()
                return repo.find(id)
            }

            companion object {
                fun create() = OrderService(InMemory)
            }

            companion object Factory {}
        }

        object InMemory : Repository { override fun find(id: String): Order? = null }

        fun String.shout() = uppercase()

        typealias Orders = List<Order>
        """
    )
    assert result.definitions == (
        Definition("Order", "class", "", 4, 4),
        Definition("Result", "class", "", 6, 9),
        Definition("Empty", "class", "Result", 7, 7),
        Definition("Failure", "class", "Result", 8, 8),
        Definition("Repository", "interface", "", 11, 13),
        Definition("find", "method", "Repository", 12, 12),
        Definition("Status", "enum", "", 15, 15),
        Definition("OPEN", "constant", "Status", 15, 15),
        Definition("CLOSED", "constant", "Status", 15, 15),
        Definition("OrderService", "class", "", 17, 29),
        Definition("get", "method", "OrderService", 18, 22),
        Definition("log", "function", "OrderService.get", 19, 19),
        Definition("Companion", "class", "OrderService", 24, 26),
        Definition("create", "method", "OrderService.Companion", 25, 25),
        Definition("Factory", "class", "OrderService", 28, 28),
        Definition("InMemory", "class", "", 31, 31),
        Definition("find", "method", "InMemory", 31, 31),
        Definition("shout", "function", "", 33, 33),
        Definition("Orders", "type", "", 35, 35),
    )
    assert result.language == "kotlin"
    assert result.error == ""


def test_one_line_bodies_parse_without_an_error() -> None:
    result = facts(
        """
        interface Clock { fun now(): Long }
        object Keys { const val TAG = "orders" }
        class Box { fun open() {} }
        fun main() {}
        """
    )
    assert result.definitions == (
        Definition("Clock", "interface", "", 1, 1),
        Definition("now", "method", "Clock", 1, 1),
        Definition("Keys", "class", "", 2, 2),
        Definition("TAG", "constant", "Keys", 2, 2),
        Definition("Box", "class", "", 3, 3),
        Definition("open", "method", "Box", 3, 3),
        Definition("main", "function", "", 4, 4),
    )
    assert result.error == ""


def test_imports_plain_wildcard_and_aliased() -> None:
    result = facts(
        """
        package com.acme

        import com.acme.orders.v1.OrdersGrpcKt
        import kotlinx.coroutines.*
        import com.acme.orders.v1.Order as ProtoOrder
        """
    )
    assert result.imports == (
        Import("com.acme.orders.v1.OrdersGrpcKt", 3),
        Import("kotlinx.coroutines.*", 4),
        Import("com.acme.orders.v1.Order", 5, ("ProtoOrder",)),
    )


def test_coroutine_server_and_handlers() -> None:
    result = facts(
        """
        import com.acme.orders.v1.OrdersGrpcKt

        class OrdersServer(private val repo: Repo) : OrdersGrpcKt.OrdersCoroutineImplBase() {
            override suspend fun getOrder(request: GetOrderRequest): Order = repo.get(request.id)

            override fun listOrders(request: ListOrdersRequest): Flow<Order> = repo.all()

            override fun toString() = "OrdersServer"

            private fun helper() = 1

            fun notAnOverride() = 2
        }

        class Billing : com.acme.billing.v1.BillingGrpcKt.BillingCoroutineImplBase()
        """
    )
    assert result.grpc == (
        server("Orders", 3, "OrdersServer"),
        handler("Orders", "getOrder", 4, "OrdersServer.getOrder"),
        handler("Orders", "listOrders", 6, "OrdersServer.listOrders"),
        server("Billing", 15, "Billing", "com.acme.billing.v1"),
    )


def test_java_style_server_in_kotlin_and_bare_imported_bases() -> None:
    result = facts(
        """
        import com.acme.orders.v1.OrdersGrpc.OrdersImplBase
        import com.acme.users.v1.UsersGrpcKt.*

        class OrdersService : OrdersImplBase() {
            override fun getOrder(request: Req, observer: StreamObserver<Resp>) {}
        }

        class UsersService : UsersCoroutineImplBase() {
            override suspend fun getUser(request: Req): User = TODO()
        }

        class NotGrpc : SomethingImplBase() {
            override fun run() {}
        }
        """
    )
    assert result.grpc == (
        server("Orders", 4, "OrdersService"),
        handler("Orders", "getOrder", 5, "OrdersService.getOrder"),
        server("Users", 8, "UsersService"),
        handler("Users", "getUser", 9, "UsersService.getUser"),
    )


def test_coroutine_stub_in_properties_and_constructor_properties() -> None:
    result = facts(
        """
        import com.acme.orders.v1.OrdersGrpcKt.OrdersCoroutineStub

        class OrdersClient(private val stub: OrdersCoroutineStub) {
            suspend fun fetch(id: String) = stub.getOrder(request(id))

            suspend fun fetchThis(id: String) = this.stub.getOrder(request(id))
        }

        class Other(channel: ManagedChannel) {
            private val orders = com.acme.orders.v1.OrdersGrpcKt.OrdersCoroutineStub(channel)
            private val lazyOrders by lazy { OrdersCoroutineStub(channel) }

            suspend fun run() {
                orders.listOrders(req).collect { println(it) }
                lazyOrders?.cancelOrder(req)
            }
        }
        """
    )
    assert result.grpc == (
        call("Orders", "getOrder", 4, "OrdersClient.fetch"),
        call("Orders", "getOrder", 6, "OrdersClient.fetchThis"),
        client("Orders", 10, "Other", "com.acme.orders.v1"),
        client("Orders", 11, "Other"),
        call("Orders", "listOrders", 14, "Other.run", "com.acme.orders.v1"),
        call("Orders", "cancelOrder", 15, "Other.run"),
    )


def test_blocking_stubs_fields_locals_and_chains() -> None:
    result = facts(
        """
        import com.acme.orders.v1.OrdersGrpc

        class Gateway(channel: ManagedChannel) {
            private lateinit var blocking: OrdersGrpc.OrdersBlockingStub
            private var future: OrdersGrpc.OrdersFutureStub? = null

            fun init(channel: ManagedChannel) {
                blocking = OrdersGrpc.newBlockingStub(channel)
                this.future = OrdersGrpc.newFutureStub(channel)
            }

            fun get(id: String): Order {
                val local = OrdersGrpc.newStub(channel)
                local.watchOrders(req, observer)
                future?.getOrder(req)
                return blocking
                    .withDeadlineAfter(5, TimeUnit.SECONDS)
                    .getOrder(req)
            }

            fun once() = OrdersGrpc.newBlockingStub(channel).withWaitForReady().cancelOrder(req)
        }
        """
    )
    assert result.grpc == (
        client("Orders", 8, "Gateway.init"),
        client("Orders", 9, "Gateway.init"),
        client("Orders", 13, "Gateway.get"),
        call("Orders", "watchOrders", 14, "Gateway.get"),
        call("Orders", "getOrder", 15, "Gateway.get"),
        call("Orders", "getOrder", 18, "Gateway.get"),
        client("Orders", 21, "Gateway.once"),
        call("Orders", "cancelOrder", 21, "Gateway.once"),
    )


def test_companion_objects_and_top_level_stubs() -> None:
    result = facts(
        """
        import com.acme.orders.v1.OrdersGrpcKt

        val ORDERS = OrdersGrpcKt.OrdersCoroutineStub(channel)

        object Clients {
            val orders = OrdersGrpcKt.OrdersCoroutineStub(channel)
        }

        class Reports {
            suspend fun run() {
                STUB.listOrders(req)
                ORDERS.getOrder(req)
                Clients.orders.cancelOrder(req)
            }

            companion object {
                private val STUB = OrdersGrpcKt.OrdersCoroutineStub(channel)
            }
        }
        """
    )
    assert result.grpc == (
        client("Orders", 3),
        client("Orders", 6, "Clients"),
        call("Orders", "listOrders", 11, "Reports.run"),
        call("Orders", "getOrder", 12, "Reports.run"),
        call("Orders", "cancelOrder", 13, "Reports.run"),
        client("Orders", 17, "Reports.Companion"),
    )


def test_aliased_imports_of_generated_names() -> None:
    result = facts(
        """
        import com.acme.orders.v1.OrdersGrpcKt.OrdersCoroutineStub as Orders
        import com.acme.orders.v1.OrdersGrpc.newBlockingStub as blockingOrders

        class Client(channel: ManagedChannel) {
            private val orders = Orders(channel)
            private val blocking = blockingOrders(channel)

            suspend fun run() {
                orders.getOrder(req)
                blocking.cancelOrder(req)
            }
        }
        """
    )
    assert result.grpc == (
        client("Orders", 5, "Client"),
        client("Orders", 6, "Client"),
        call("Orders", "getOrder", 9, "Client.run"),
        call("Orders", "cancelOrder", 10, "Client.run"),
    )


def test_calls_on_things_that_are_not_stubs_are_not_facts() -> None:
    result = facts(
        """
        import com.acme.orders.v1.OrdersGrpcKt

        class Service(private val stub: OrdersGrpcKt.OrdersCoroutineStub) {
            private val cache = mutableMapOf<String, Order>()

            fun local(stub: Map<String, String>) = stub.get("x")

            fun cached(id: String) = cache.get(id)

            fun shadowed() {
                val stub = FakeStub()
                stub.getOrder(req)
            }

            fun configOnly() = stub.withDeadlineAfter(1, TimeUnit.SECONDS)
        }

        class Unrelated(private val stub: SomeStub) {
            fun go() = stub.getOrder(req)
        }

        fun notGenerated() = Foo.newBlockingStub(channel).getOrder(req)
        """
    )
    assert result.grpc == ()


def test_a_syntax_error_keeps_what_was_read() -> None:
    result = facts(
        """
        class Fine {
            fun ok() {}
        }

        class Broken {
            fun oops( {
        """
    )
    assert result.definitions[:2] == (
        Definition("Fine", "class", "", 1, 3),
        Definition("ok", "method", "Fine", 2, 2),
    )
    assert result.error.startswith("syntax error at line ")
    assert int(result.error.rsplit(" ", 1)[1]) >= 5


def test_dispatch_by_suffix() -> None:
    assert extract("build.gradle.kts", b"fun main() {}\n").definitions == (Definition("main", "function", "", 1, 1),)
    assert extract("App.kt", b"fun main() {}\n").language == "kotlin"


@given(st.binary(max_size=400))
@example(b"\xff\xfe class \x00 {")
@example(b"class A {" * 300)
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    result = _kotlin.extract(data)
    assert result.language == "kotlin"
    assert not result.error.startswith("extractor failed")


_PIECES = st.sampled_from(
    [
        "class ", "object ", "interface ", "fun ", "val ", "var ", "override ", "suspend ", "companion ",
        "OrdersGrpc.", "OrdersGrpcKt.", "OrdersCoroutineImplBase()", "OrdersCoroutineStub(ch)",
        "newBlockingStub(ch)", "stub", ".getOrder(r)", "this.", "{", "}", "(", ")", ":", "=", "\n", " ",
        "import a.b.OrdersGrpc.*\n", "x", "by lazy {", "?.", ".withDeadlineAfter(1)",
    ]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=60).map("".join))
def test_arbitrary_kotlin_ish_text_never_raises(text: str) -> None:
    result = _kotlin.extract(text.encode())
    assert not result.error.startswith("extractor failed")


def test_deep_nesting_does_not_raise() -> None:
    source = ("fun f() = " + "(" * 5000 + "1" + ")" * 5000 + "\n").encode()
    assert not _kotlin.extract(source).error.startswith("extractor failed")
    source = ("class A {\n" * 2000 + "}\n" * 2000).encode()
    result = _kotlin.extract(source)
    assert len(result.definitions) == 2000
    assert result.definitions[-1].container.count(".") == 1998


def test_pathological_input_stays_linear() -> None:
    start = time.process_time()
    assert _kotlin.extract(b"class A {" * 50_000).error == "syntax error at line 1"
    chain = (
        b"class A { fun f() = OrdersGrpc.newBlockingStub(ch)" + b".withDeadlineAfter(1)" * 20_000 + b".getOrder(r) }"
    )
    assert _kotlin.extract(chain).grpc == (client("Orders", 1, "A.f"),)
    assert time.process_time() - start < 20.0


def _sample(classes: int) -> bytes:
    """A realistic Kotlin file of about 20 lines per class, half of them gRPC."""
    parts = ["package com.acme.sample\n\nimport com.acme.orders.v1.OrdersGrpcKt\nimport kotlinx.coroutines.flow.*\n"]
    for index in range(classes):
        parts.append(
            f"""
class Service{index}(private val stub: OrdersGrpcKt.OrdersCoroutineStub) : OrdersGrpcKt.OrdersCoroutineImplBase() {{
    private val cache = mutableMapOf<String, Order>()

    override suspend fun getOrder(request: GetOrderRequest): Order {{
        val cached = cache[request.id]
        if (cached != null) return cached
        val order = stub.getOrder(request)
        cache[request.id] = order
        return order
    }}

    fun summary(orders: List<Order>): String =
        orders.filter {{ it.total > 10 }}.joinToString(", ") {{ "${{it.id}}: ${{it.total}}" }}

    companion object {{
        const val NAME = "service{index}"
    }}
}}
"""
        )
    return "".join(parts).encode()


def test_speed_on_a_realistic_file() -> None:
    source = _sample(100)
    assert source.count(b"\n") > 1900
    _kotlin.extract(source)
    start = time.process_time()
    result = _kotlin.extract(source)
    elapsed = time.process_time() - start
    assert len(result.definitions) == 500  # 400 classes, companions and functions, 100 constants
    assert len(result.grpc) == 300
    assert elapsed < 2.0
