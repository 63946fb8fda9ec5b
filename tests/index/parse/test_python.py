"""The Python extractor: definitions, imports and grpcio evidence followed through the file."""

from __future__ import annotations

import textwrap
import time

from hypothesis import example, given
from hypothesis import strategies as st

from mesh.index._facts import Definition, FileFacts, Import
from mesh.index.parse import _python, extract
from tests.support.facts import call, client, handler, server


def facts(source: str) -> FileFacts:
    return _python.extract(textwrap.dedent(source).lstrip("\n").encode())


def test_definitions_nest_and_methods_are_defs_directly_in_a_class() -> None:
    result = facts(
        '''
        import functools


        @functools.total_ordering
        class Order:
            """An order."""

            class Item:
                def price(self):
                    return 1

            @property
            def total(self):
                def add(a, b):
                    return a + b

                return add(1, 2)

            async def refresh(self):
                pass

            if True:
                def conditional(self):
                    pass


        async def main():
            class Local:
                pass
            return Local
        '''
    )
    assert result.definitions == (
        Definition("Order", "class", "", 5, 24),
        Definition("Item", "class", "Order", 8, 10),
        Definition("price", "method", "Order.Item", 9, 10),
        Definition("total", "method", "Order", 13, 17),
        Definition("add", "function", "Order.total", 14, 15),
        Definition("refresh", "method", "Order", 19, 20),
        Definition("conditional", "method", "Order", 23, 24),
        Definition("main", "function", "", 27, 30),
        Definition("Local", "class", "main", 28, 29),
    )
    assert result.language == "python"
    assert result.error == ""
    assert result.grpc == ()


def test_imports_as_written_one_per_module() -> None:
    result = facts(
        """
        from __future__ import annotations
        import a.b as c, d
        from .x import y, z as w
        from . import m
        from ..pkg.sub import (
            p,
            q,
        )
        from os import *
        import os.path


        def late():
            import json
        """
    )
    assert result.imports == (
        Import("__future__", 1, ("annotations",)),
        Import("a.b", 2),
        Import("d", 2),
        Import(".x", 3, ("y", "z")),
        Import(".", 4, ("m",)),
        Import("..pkg.sub", 5, ("p", "q")),
        Import("os", 9, ("*",)),
        Import("os.path", 10),
        Import("json", 14),
    )


def test_servicer_class_registration_and_handlers() -> None:
    result = facts(
        """
        import grpc
        from acme.orders.v1 import orders_pb2, orders_pb2_grpc


        class OrdersService(orders_pb2_grpc.OrdersServicer):
            def __init__(self, store):
                self._store = store

            def GetOrder(self, request, context):
                return self._store.get(request.id)

            async def PlaceOrder(self, request, context):
                return orders_pb2.PlaceOrderResponse()

            def _audit(self, order):
                pass

            def __repr__(self):
                return "OrdersService"


        def serve(port):
            server = grpc.server(None)
            orders_pb2_grpc.add_OrdersServicer_to_server(OrdersService({}), server)
            server.add_insecure_port(f"[::]:{port}")
        """
    )
    assert result.grpc == (
        server("Orders", 5, "OrdersService", "orders_pb2_grpc"),
        handler("Orders", "GetOrder", 9, "OrdersService.GetOrder", "orders_pb2_grpc"),
        handler("Orders", "PlaceOrder", 12, "OrdersService.PlaceOrder", "orders_pb2_grpc"),
        server("Orders", 24, "serve", "orders_pb2_grpc"),
    )


def test_bare_generated_names_count_only_when_imported_from_a_grpc_module() -> None:
    result = facts(
        """
        from acme.payments.v1.payments_pb2_grpc import (
            PaymentsServicer as Base,
            add_PaymentsServicer_to_server,
            PaymentsStub,
        )
        from fakes import OrdersStub


        class Payments(Base):
            @staticmethod
            def Charge(request, context):
                pass


        class Unrelated(HealthServicer):
            def Check(self, request, context):
                pass


        add_PaymentsServicer_to_server(Payments(), server)
        payments = PaymentsStub(channel)
        orders = OrdersStub(channel)
        orders.GetOrder(1)
        payments.Refund(2)
        """
    )
    assert result.grpc == (
        server("Payments", 9, "Payments"),
        handler("Payments", "Charge", 11, "Payments.Charge"),
        server("Payments", 20),
        client("Payments", 21),
        call("Payments", "Refund", 24),
    )
    assert result.imports[0] == Import(
        "acme.payments.v1.payments_pb2_grpc", 1, ("PaymentsServicer", "add_PaymentsServicer_to_server", "PaymentsStub")
    )


def test_stub_in_self_attribute_assigned_in_init_and_called_in_another_method() -> None:
    result = facts(
        """
        import grpc
        from acme.payments.v1 import payments_pb2, payments_pb2_grpc


        class Checkout:
            def charge(self, amount):
                reply = self._payments.Charge(
                    payments_pb2.ChargeRequest(amount=amount),
                    timeout=2.0,
                )
                self._cache.get(reply.id)
                return reply

            def __init__(self, target):
                channel = grpc.insecure_channel(target)
                self._payments = payments_pb2_grpc.PaymentsStub(channel)
                self._cache = {}

            def refund_later(self, request):
                return self._payments.Refund.future(request)

            def refund_with_call(self, request):
                response, call = self._payments.Refund.with_call(request)
                return response


        class Other:
            def charge(self):
                return self._payments.Charge(1)
        """
    )
    assert result.grpc == (
        call("Payments", "Charge", 7, "Checkout.charge", "payments_pb2_grpc"),
        client("Payments", 16, "Checkout.__init__", "payments_pb2_grpc"),
        call("Payments", "Refund", 20, "Checkout.refund_later", "payments_pb2_grpc"),
        call("Payments", "Refund", 23, "Checkout.refund_with_call", "payments_pb2_grpc"),
    )


def test_module_constant_local_chained_and_next_line_calls() -> None:
    result = facts(
        """
        import grpc
        from acme.inventory.v1 import inventory_pb2_grpc as inv

        INVENTORY = inv.InventoryStub(grpc.insecure_channel("inventory:50051"))


        def reserve(items):
            return (
                INVENTORY
                .Reserve(items)
            )


        def stock(channel):
            stub = inv.InventoryStub(channel)
            first = stub.ListStock(1)
            return first, inv.InventoryStub(channel).Release(2)
        """
    )
    assert result.grpc == (
        client("Inventory", 4, "", "inv"),
        call("Inventory", "Reserve", 10, "reserve", "inv"),
        client("Inventory", 15, "stock", "inv"),
        call("Inventory", "ListStock", 16, "stock", "inv"),
        client("Inventory", 17, "stock", "inv"),
        call("Inventory", "Release", 17, "stock", "inv"),
    )


def test_annotated_parameters_attributes_factories_and_aliases() -> None:
    result = facts(
        """
        from typing import Optional

        from acme.orders.v1 import orders_pb2_grpc as pb


        def fetch(stub: pb.OrdersStub, maybe: Optional[pb.OrdersStub] = None, many: dict[str, pb.OrdersStub] = {}):
            stub.GetOrder(1)
            if maybe is not None:
                maybe.CancelOrder(2)
            many.get("x")


        def quoted(stub: "pb.OrdersStub | None"):
            alias = stub
            alias.PlaceOrder(3)


        def make_stub(channel):
            return pb.OrdersStub(channel)


        def typed_factory() -> pb.OrdersStub:
            return registry["orders"]


        class Watcher:
            stub: pb.OrdersStub

            @property
            def orders(self):
                return make_stub(self.channel)

            def watch(self, request):
                for event in self.stub.WatchOrder(request):
                    yield event
                typed_factory().CancelOrder(request)
                return self.orders.GetOrder(request)
        """
    )
    assert result.grpc == (
        call("Orders", "GetOrder", 7, "fetch", "pb"),
        call("Orders", "CancelOrder", 9, "fetch", "pb"),
        call("Orders", "PlaceOrder", 15, "quoted", "pb"),
        client("Orders", 19, "make_stub", "pb"),
        call("Orders", "WatchOrder", 34, "Watcher.watch", "pb"),
        call("Orders", "CancelOrder", 36, "Watcher.watch", "pb"),
        call("Orders", "GetOrder", 37, "Watcher.watch", "pb"),
    )


def test_grpc_aio_shapes() -> None:
    result = facts(
        """
        import grpc
        from acme.orders.v1 import orders_pb2_grpc


        class Orders(orders_pb2_grpc.OrdersServicer):
            async def WatchOrder(self, request, context):
                yield None


        async def main():
            async with grpc.aio.insecure_channel("localhost:50051") as channel:
                stub = orders_pb2_grpc.OrdersStub(channel)
                order = await stub.GetOrder(1)
                async for event in stub.WatchOrder(order):
                    print(event)
            server = grpc.aio.server()
            orders_pb2_grpc.add_OrdersServicer_to_server(Orders(), server)
            await server.start()
        """
    )
    assert result.grpc == (
        server("Orders", 5, "Orders", "orders_pb2_grpc"),
        handler("Orders", "WatchOrder", 6, "Orders.WatchOrder", "orders_pb2_grpc"),
        client("Orders", 12, "main", "orders_pb2_grpc"),
        call("Orders", "GetOrder", 13, "main", "orders_pb2_grpc"),
        call("Orders", "WatchOrder", 14, "main", "orders_pb2_grpc"),
        server("Orders", 17, "main", "orders_pb2_grpc"),
    )


def test_no_calls_on_things_that_are_not_stubs() -> None:
    result = facts(
        """
        import collections
        from acme.orders.v1 import orders_pb2_grpc

        stub = orders_pb2_grpc.OrdersStub(channel)


        def shadowed(stub):
            stub = {}
            stub.get(1)


        def rebound():
            client = orders_pb2_grpc.OrdersStub(channel)
            client.GetOrder(1)
            client = collections.OrderedDict()
            client.get(2)


        def other():
            client = {}
            client.get(3)
            mock.Stub().GetOrder(4)
            stub._channel.close()


        def parameter(stub, *, other=None):
            stub.get(5)


        def module_level():
            stub.GetOrder(6)
        """
    )
    assert result.grpc == (
        client("Orders", 4, "", "orders_pb2_grpc"),
        client("Orders", 13, "rebound", "orders_pb2_grpc"),
        call("Orders", "GetOrder", 14, "rebound", "orders_pb2_grpc"),
        call("Orders", "GetOrder", 31, "module_level", "orders_pb2_grpc"),
    )


def test_a_file_without_grpc_words_has_no_grpc_facts() -> None:
    result = facts(
        """
        class Cache:
            def get(self, key):
                return self._data.get(key)
        """
    )
    assert result.grpc == ()
    assert result.definitions == (
        Definition("Cache", "class", "", 1, 3),
        Definition("get", "method", "Cache", 2, 3),
    )


def test_syntax_error_keeps_what_was_recovered() -> None:
    result = facts(
        """
        import os

        def good():
            return 1

        def broken(:
            pass

        class After:
            def m(self):
                pass
        """
    )
    assert result.error == "syntax error at line 6"
    assert Import("os", 1) in result.imports
    assert Definition("good", "function", "", 3, 4) in result.definitions
    assert Definition("m", "method", "After", 10, 11) in result.definitions


def test_the_first_problem_in_document_order_is_reported() -> None:
    assert facts("x = 1\ny = f(2\nz = 3\n").error == "syntax error at line 2"
    assert facts("ok = 1\n\ndef f(:\n    pass\nclass\n").error == "syntax error at line 3"


def test_the_dispatcher_routes_py_and_pyi_here() -> None:
    assert extract("svc/app.py", b"def f():\n    pass\n").definitions == (Definition("f", "function", "", 1, 2),)
    assert extract("svc/app.pyi", b"def f() -> int: ...\n").language == "python"


def test_deep_nesting_and_junk_do_not_raise() -> None:
    deep = b"x = " + b"(" * 50_000 + b"1" + b")" * 50_000 + b"\n"
    assert _python.extract(deep).error in ("", "syntax error at line 1")
    nested = "".join("    " * depth + f"def f{depth}():\n" for depth in range(300)) + "    " * 300 + "pass\n"
    result = _python.extract(nested.encode())
    assert len(result.definitions) == 300
    assert result.definitions[-1].container == ".".join(f"f{depth}" for depth in range(299))
    assert _python.extract(b"\xff\xfe\x00class \xc3(:\n\x00").error.startswith("syntax error")


_UNIT = '''
class {name}Service(orders_pb2_grpc.OrdersServicer):
    """Serves orders from the {name} store."""

    def __init__(self, channel, store):
        self._payments = payments_pb2_grpc.PaymentsStub(channel)
        self._store = store
        self._cache = {{}}

    def GetOrder(self, request, context):
        order = self._cache.get(request.id)
        if order is None:
            order = self._store.load(request.id)
            self._cache[request.id] = order
        if not order:
            context.abort(grpc.StatusCode.NOT_FOUND, f"order {{request.id}} not found")
        return orders_pb2.Order(id=order["id"], total=sum(line["price"] for line in order["lines"]))

    def PlaceOrder(self, request, context):
        reply = self._payments.Charge(
            payments_pb2.ChargeRequest(order_id=request.id, amount=request.total),
            timeout=2.0,
        )
        for attempt in range(3):
            try:
                stock = INVENTORY.Reserve.future(request).result()
                break
            except grpc.RpcError as exc:
                log.warning("reserve %s failed (%s), attempt %d", request.id, exc, attempt)
        else:
            raise RuntimeError("no stock")
        return orders_pb2.PlaceOrderResponse(charge_id=reply.id, reserved=stock.ok)

    def _audit(self, order, *, reason=None):
        with open(self._store.path, "a") as fh:
            fh.write(json.dumps({{"order": order, "reason": reason}}) + "\\n")


def serve_{name}(port, store):
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    orders_pb2_grpc.add_OrdersServicer_to_server({name}Service(grpc.insecure_channel("payments:50051"), store), server)
    server.add_insecure_port(f"[::]:{{port}}")
    server.start()
    return server
'''


def _sample(units: int) -> bytes:
    head = (
        "import json\nimport logging\nfrom concurrent import futures\n\nimport grpc\n"
        "from acme.orders.v1 import orders_pb2, orders_pb2_grpc\n"
        "from acme.payments.v1 import payments_pb2, payments_pb2_grpc\n"
        "from acme.inventory.v1 import inventory_pb2_grpc\n\nlog = logging.getLogger(__name__)\n"
        "INVENTORY = inventory_pb2_grpc.InventoryStub(grpc.insecure_channel('inventory:50051'))\n"
    )
    return (head + "".join(_UNIT.format(name=f"Store{unit}") for unit in range(units))).encode()


def test_huge_error_nodes_are_not_queried() -> None:
    # A query over an ERROR node costs the square of its width: this would take minutes.
    start = time.process_time()
    assert _python.extract(b"{" * 200_000).error == "syntax error at line 1"
    assert time.process_time() - start < 20.0


def test_speed_on_a_realistic_file() -> None:
    source = _sample(45)
    assert source.count(b"\n") > 1990
    _python.extract(source)
    start = time.process_time()
    result = _python.extract(source)
    elapsed = time.process_time() - start
    assert result.error == ""
    assert len(result.definitions) == 45 * 6 + 1  # and the module constant INVENTORY
    assert len(result.grpc) == 1 + 45 * 7
    assert elapsed < 2.0


@given(st.binary(max_size=400))
@example(b"class A(pb.XServicer):\n def \xff(self): pb.XStub(c).M()\n")
def test_arbitrary_bytes_never_raise(source: bytes) -> None:
    result = _python.extract(source)
    assert result.language == "python"
    assert not result.error.startswith("extractor failed")


@given(st.text(max_size=300))
def test_arbitrary_text_never_raises(source: str) -> None:
    assert not _python.extract(source.encode("utf-8", "surrogatepass")).error.startswith("extractor failed")


_PIECES = st.sampled_from(
    [
        "class A(pb.OrdersServicer):\n",
        "    def GetOrder(self, r, c):\n",
        "        self.s = pb.OrdersStub(ch)\n",
        "        return self.s.GetOrder.future(r)\n",
        "stub: pb.OrdersStub = make()\n",
        "def f(s: pb.OrdersStub):\n    return s.X(1)\n",
        "pb.add_OrdersServicer_to_server(A(), s)\n",
        "from x_pb2_grpc import OrdersStub as S\n",
        "x = S(ch) if y else None\n",
        "x.Y(",
        ")",
        "async ",
        "@dec\n",
        "    ",
        "\n",
        "lambda q: q.Z()\n",
        "((((",
    ]
)


@given(st.lists(_PIECES, max_size=30).map("".join))
def test_arbitrary_python_ish_text_never_raises(source: str) -> None:
    result = _python.extract(source.encode())
    assert not result.error.startswith("extractor failed")
    for fact in result.grpc:
        assert fact.service and fact.line >= 1
