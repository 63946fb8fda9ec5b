"""The C# extractor: definitions, ``using`` directives and gRPC evidence of realistic snippets, exactly."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.index import Definition, FileFacts, GrpcRole, Import, Namespace
from mesh.index.parse import _csharp, extract
from tests.support.facts import call, client, handler, server

D = Definition
I = Import


def cs(text: str) -> FileFacts:
    return _csharp.extract(textwrap.dedent(text).lstrip("\n").encode())


SERVICE = """
global using System.Threading;
using static Acme.Orders.Orders;
using Proto = Acme.Orders.V1;
using Grpc.Core;

namespace Acme.Services
{
    [Authorize]
    public class OrdersService : Orders.OrdersBase
    {
        private readonly Inventory.InventoryClient _inventory;
        private Payments.PaymentsClient? Payments { get; } = new(channel);

        public OrdersService(Inventory.InventoryClient inventory)
        {
            _inventory = inventory;
        }

        [Obsolete]
        public override async Task<Order> GetOrder(GetOrderRequest request, ServerCallContext context)
        {
            var reply = await _inventory.ReserveAsync(new ReserveRequest());
            this._inventory.Release(new ReleaseRequest());
            Payments?.Charge(new ChargeRequest());
            return new Order();
        }

        public override Task<Order> PlaceOrder(PlaceOrderRequest request, ServerCallContext context) => Task.FromResult(new Order());
        protected override void Dispose(bool disposing) { }
        public string Describe() => _inventory.ToString();
    }

    public record struct Point(int X, int Y);
    public record Person(string Name);
    public interface IStore { Order Get(string id); }
    public enum Status { Open, Closed }
    public struct Money { public long Units; }

    internal sealed class Watcher(Orders.OrdersClient orders)
    {
        public async Task RunAsync()
        {
            int Local(int x) => x;
            using var call = orders.WatchOrder(new WatchOrderRequest());
            var client = new Acme.Orders.Orders.OrdersClient(channel);
            await client.GetOrderAsync(new GetOrderRequest());
            var map = new Dictionary<string, string>();
            map.TryGetValue("a", out _);
        }
    }
}
"""


def test_definitions() -> None:
    assert cs(SERVICE).definitions == (
        # a block namespace is a module containing what it declares
        D("Acme.Services", "module", "", 6, 51),
        # a declaration starts after its attributes
        D("OrdersService", "class", "Acme.Services", 9, 31),
        # a property is a method (its accessors)
        D("Payments", "method", "Acme.Services.OrdersService", 12, 12),
        D("OrdersService", "method", "Acme.Services.OrdersService", 14, 17),
        D("GetOrder", "method", "Acme.Services.OrdersService", 20, 26),
        D("PlaceOrder", "method", "Acme.Services.OrdersService", 28, 28),
        D("Dispose", "method", "Acme.Services.OrdersService", 29, 29),
        D("Describe", "method", "Acme.Services.OrdersService", 30, 30),
        D("Point", "struct", "Acme.Services", 33, 33),
        D("Person", "class", "Acme.Services", 34, 34),
        D("IStore", "interface", "Acme.Services", 35, 35),
        D("Get", "method", "Acme.Services.IStore", 35, 35),
        D("Status", "enum", "Acme.Services", 36, 36),
        # enum members are constants of their enum
        D("Open", "constant", "Acme.Services.Status", 36, 36),
        D("Closed", "constant", "Acme.Services.Status", 36, 36),
        D("Money", "struct", "Acme.Services", 37, 37),
        D("Watcher", "class", "Acme.Services", 39, 50),
        D("RunAsync", "method", "Acme.Services.Watcher", 41, 49),
        D("Local", "function", "Acme.Services.Watcher.RunAsync", 43, 43),
    )


def test_usings() -> None:
    facts = cs(SERVICE)
    assert facts.imports == (
        I("System.Threading", 1, scope=I.PROJECT),  # a global using holds in the whole project
        I("Acme.Orders.Orders", 2),
        I("Acme.Orders.V1", 3),
        I("Grpc.Core", 4),
    )
    assert facts.error == ""
    assert facts.language == "csharp"


def test_namespaces_block_nested_and_file_scoped() -> None:
    """The namespaces a file declares, whole and dotted, with their lines: what a ``using`` elsewhere names."""
    block = cs("namespace Acme.Orders {\n  namespace V1 {\n    class A {}\n  }\n  class B {}\n}\n")
    assert block.namespaces == (Namespace("Acme.Orders", 1, 6), Namespace("Acme.Orders.V1", 2, 4))
    scoped = cs("using System;\n\nnamespace Acme.Billing;\n\npublic class Invoice {}\n")
    assert scoped.namespaces == (Namespace("Acme.Billing", 3, 6),)
    assert [(d.name, d.container) for d in scoped.definitions] == [("Invoice", "")]
    assert cs("class Loose {}\n").namespaces == ()


def test_server_handlers_clients_and_calls() -> None:
    assert cs(SERVICE).grpc == (
        server("Orders", 9, "Acme.Services.OrdersService"),
        # target-typed new: the property's declared type says which client
        client("Payments", 12, "Acme.Services.OrdersService"),
        # public override methods only (not the protected Dispose, not Describe)
        handler("Orders", "GetOrder", 20, "Acme.Services.OrdersService.GetOrder"),
        # a field typed InventoryClient (set from a constructor parameter), bare and through this.
        call("Inventory", "ReserveAsync", 22, "Acme.Services.OrdersService.GetOrder"),
        call("Inventory", "Release", 23, "Acme.Services.OrdersService.GetOrder"),
        # a property, through ?.
        call("Payments", "Charge", 24, "Acme.Services.OrdersService.GetOrder"),
        handler("Orders", "PlaceOrder", 28, "Acme.Services.OrdersService.PlaceOrder"),
        # a primary-constructor parameter; ToString and Dictionary calls are not RPCs
        call("Orders", "WatchOrder", 44, "Acme.Services.Watcher.RunAsync"),
        client("Orders", 45, "Acme.Services.Watcher.RunAsync", "Acme.Orders"),
        call("Orders", "GetOrderAsync", 46, "Acme.Services.Watcher.RunAsync", "Acme.Orders"),
    )


PROGRAM = """
using Acme.Orders.V1;
using static Acme.Payments.V1.Payments;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddGrpc();
builder.Services.AddGrpcClient<Inventory.InventoryClient>(o => o.Address = new Uri("http://inventory"));
var app = builder.Build();
app.MapGrpcService<OrdersApi>();
app.MapGrpcService<ExternalService>();
var payments = new PaymentsClient(GrpcChannel.ForAddress("http://payments"));
await payments.ChargeAsync(new ChargeRequest());
app.Run();

class OrdersApi : Orders.OrdersBase
{
    private readonly GrpcClientFactory _factory;
    private Inventory.InventoryClient _stock = null!;

    public OrdersApi(GrpcClientFactory factory)
    {
        _factory = factory;
        _stock = _factory.CreateClient<Inventory.InventoryClient>("inventory");
    }

    public override Task<Order> GetOrder(GetOrderRequest request, ServerCallContext context)
    {
        _stock.Reserve(new ReserveRequest());
        var list = new List<string>();
        list.Add("x");
        return Task.FromResult(new Order());
    }

    private static string Describe() => "orders";
}

class Billing : PaymentsBase
{
    public override Task<ChargeResponse> Charge(ChargeRequest request, ServerCallContext context) => null!;
}
"""


def test_top_level_program_registrations_and_client_factories() -> None:
    facts = cs(PROGRAM)
    assert facts.grpc == (
        client("Inventory", 6, ""),
        # MapGrpcService of a class of this file; ExternalService's base is not visible: no fact
        server("Orders", 8, ""),
        # after `using static ...Payments;` the bare generated names count
        client("Payments", 10, ""),
        call("Payments", "ChargeAsync", 11, ""),
        server("Orders", 14, "OrdersApi"),
        client("Inventory", 22, "OrdersApi.OrdersApi"),
        handler("Orders", "GetOrder", 25, "OrdersApi.GetOrder"),
        call("Inventory", "Reserve", 27, "OrdersApi.GetOrder"),
        server("Payments", 36, "Billing"),
        handler("Payments", "Charge", 38, "Billing.Charge"),
    )
    assert facts.definitions[0] == D("OrdersApi", "class", "", 14, 34)


def test_file_scoped_namespace_is_not_a_container() -> None:
    facts = cs(
        """
        using Acme.Orders.V1;

        namespace Notifications;

        public sealed class OrderWatcher
        {
            private readonly Orders.OrdersClient _orders;

            public OrderWatcher(GrpcChannel channel)
            {
                _orders = new Orders.OrdersClient(channel);
            }

            public async Task FollowAsync(string orderId)
            {
                using var call = _orders
                    .WatchOrder(new WatchOrderRequest { OrderId = orderId });
            }
        }
        """
    )
    assert facts.definitions == (
        D("OrderWatcher", "class", "", 5, 19),
        D("OrderWatcher", "method", "OrderWatcher", 9, 12),
        D("FollowAsync", "method", "OrderWatcher", 14, 18),
    )
    assert facts.grpc == (
        client("Orders", 11, "OrderWatcher.OrderWatcher"),
        call("Orders", "WatchOrder", 17, "OrderWatcher.FollowAsync"),
    )


def test_nested_namespaces_and_qualified_bases() -> None:
    facts = cs(
        """
        namespace Acme
        {
            namespace Shop.Api
            {
                public class Orders : Acme.Orders.V1.Orders.OrdersBase
                {
                    public override Task<Order> GetOrder(GetOrderRequest r, ServerCallContext c) => null!;
                }
            }
        }
        """
    )
    assert facts.definitions == (
        D("Acme", "module", "", 1, 10),
        D("Shop.Api", "module", "Acme", 3, 9),
        D("Orders", "class", "Acme.Shop.Api", 5, 8),
        D("GetOrder", "method", "Acme.Shop.Api.Orders", 7, 7),
    )
    assert facts.grpc == (
        server("Orders", 5, "Acme.Shop.Api.Orders", "Acme.Orders.V1"),
        handler("Orders", "GetOrder", 7, "Acme.Shop.Api.Orders.GetOrder", "Acme.Orders.V1"),
    )


def test_look_alikes_are_not_evidence() -> None:
    facts = cs(
        """
        using Acme.Orders.V1;

        public class OrdersFacade
        {
            private readonly OrdersBackend _orders;
            private readonly HttpClient _http = new HttpClient();
            private readonly Orders.OrdersClient _client;

            public OrdersFacade(OrdersBackend orders) { _orders = orders; }

            public Task<Order> GetOrder(string id) => _orders.GetOrder(id);

            public async Task Run(Orders.OrdersClient client)
            {
                var _client = new Dictionary<string, string>();
                _client.Add("a", "b");
                await _http.GetAsync("/orders");
                client.Equals(null);
            }
        }

        public class Impl : OrdersBase
        {
            public override Task<Order> GetOrder(GetOrderRequest r, ServerCallContext c) => null!;
        }
        """
    )
    # a local hides the field of the same name; OrdersBase without `using static` names no service
    assert facts.grpc == ()


def test_syntax_errors_keep_what_can_be_read() -> None:
    facts = cs(
        """
        using System;

        public class Ok
        {
            public void Run() { }
        }

        public class Broken
        {
            public void M( { }
        }
        """
    )
    assert facts.imports == (I("System", 1),)
    assert facts.definitions[:2] == (D("Ok", "class", "", 3, 6), D("Run", "method", "Ok", 5, 5))
    assert facts.error == "syntax error at line 10"


def test_dispatch_by_suffix() -> None:
    assert extract("src/A.cs", b"class A { }\n") == FileFacts(
        language="csharp", definitions=(D("A", "class", "", 1, 1),)
    )


HOSTILE = [
    b"",
    b"\xff\xfe\x00\x81garbage",
    b"{" * 20_000,
    b"class A{void m(){" * 400 + b"}}" * 400,
    b"namespace A{" * 2_000 + b"}" * 2_000,
    b"var x = Orders.OrdersClient; " + b"f(() => {" * 500 + b"})" * 500,
    b"class C : Orders.OrdersBase { " + b"public override void M(){}" * 500 + b"}",
]


def test_hostile_inputs() -> None:
    for source in HOSTILE:
        facts = _csharp.extract(source)
        assert facts.language == "csharp"
        assert not facts.error.startswith("extractor failed")
        assert facts == _csharp.extract(source)
    assert len(_csharp.extract(HOSTILE[-1]).grpc) == 501


@settings(max_examples=200)
@given(st.binary(max_size=400))
def test_any_bytes(source: bytes) -> None:
    facts = _csharp.extract(source)
    assert not facts.error.startswith("extractor failed")
    assert facts == _csharp.extract(source)


CS_ALPHABET = st.sampled_from(
    list("abcxyz(){}[];,.=<>/*'\"? \n\t:!+-")
    + ["class ", "namespace ", "using ", "static ", "public ", "override ", "new ", "var ", "this.",
       "Orders.OrdersClient", "Orders.OrdersBase", "MapGrpcService<", "CreateClient<", "record ", "struct "]
)  # fmt: skip


@settings(max_examples=200)
@given(st.lists(CS_ALPHABET, max_size=80).map("".join))
def test_any_text(text: str) -> None:
    facts = _csharp.extract(text.encode())
    assert not facts.error.startswith("extractor failed")


def realistic_sample(copies: int = 28) -> bytes:
    """About 2,000 lines of service-like C#: a namespace per copy, glued into one file."""
    parts = ["using System;\nusing System.Collections.Generic;\nusing Grpc.Core;\nusing Acme.Orders.V1;\n"]
    for n in range(copies):
        parts.append(
            f"""
namespace Acme.Shop.Part{n}
{{
    /// <summary>Orders kept in memory.</summary>
    public sealed class OrderStore{n}
    {{
        private readonly Dictionary<string, Order> _orders = new();
        private readonly object _lock = new();

        public Order? Find(string id)
        {{
            lock (_lock)
            {{
                return _orders.TryGetValue(id, out var order) ? order : null;
            }}
        }}

        public void Save(Order order)
        {{
            lock (_lock)
            {{
                _orders[order.Id] = order;
            }}
        }}
    }}

    public record OrderView{n}(string Id, string Status, decimal Total);

    public class OrdersService{n} : Orders.OrdersBase
    {{
        private readonly OrderStore{n} _store;
        private readonly Payments.PaymentsClient _payments;
        private readonly ILogger<OrdersService{n}> _log;

        public OrdersService{n}(OrderStore{n} store, Payments.PaymentsClient payments, ILogger<OrdersService{n}> log)
        {{
            _store = store;
            _payments = payments;
            _log = log;
        }}

        public override Task<Order> GetOrder(GetOrderRequest request, ServerCallContext context)
        {{
            var order = _store.Find(request.OrderId);
            if (order is null)
            {{
                throw new RpcException(new Status(StatusCode.NotFound, $"no order {{request.OrderId}}"));
            }}
            return Task.FromResult(order);
        }}

        public override async Task<Order> PlaceOrder(PlaceOrderRequest request, ServerCallContext context)
        {{
            var order = new Order {{ Id = Guid.NewGuid().ToString(), CustomerId = request.CustomerId }};
            foreach (var item in request.Items)
            {{
                order.Items.Add(item);
            }}
            var charge = await _payments.ChargeAsync(new ChargeRequest {{ OrderId = order.Id }}, cancellationToken: context.CancellationToken);
            if (charge.Status != ChargeStatus.Succeeded)
            {{
                _log.LogWarning("charge of {{Order}} failed", order.Id);
                throw new RpcException(new Status(StatusCode.FailedPrecondition, "payment declined"));
            }}
            _store.Save(order);
            return order;
        }}

        private static OrderView{n} View(Order order) => new(order.Id, order.Status.ToString(), order.Total);
    }}
}}
"""
        )
    return "".join(parts).encode()


def test_realistic_sample() -> None:
    source = realistic_sample()
    assert 1_800 <= source.count(b"\n") <= 2_400
    facts = _csharp.extract(source)
    assert facts.error == ""
    assert len(facts.definitions) == 28 * 10
    roles = [fact.role for fact in facts.grpc]
    assert roles.count(GrpcRole.SERVER) == 28
    assert roles.count(GrpcRole.HANDLER) == 28 * 2
    assert roles.count(GrpcRole.CALL) == 28
    assert len(roles) == 28 * 4
