"""gRPC call sites and handlers the C# and Go extractors must find, and those they must not invent
(shapes met in eShop and grpc-go's examples: clients typed by a ``using`` alias or returned by a
method, ``AddGrpcClient`` builders, methods of a server struct that are no RPC, streams)."""

from __future__ import annotations

import textwrap

from mesh.index import FileFacts, GrpcRole
from mesh.index.parse import _csharp, _go
from tests.support.facts import call, client, handler, server


def cs(text: str) -> FileFacts:
    return _csharp.extract(textwrap.dedent(text).lstrip("\n").encode())


def go(text: str) -> FileFacts:
    return _go.extract(textwrap.dedent(text).lstrip("\n").encode())


# -- C#: clients typed by a `using` alias ----------------------------------------------------------


def test_csharp_a_primary_constructor_parameter_typed_by_an_alias_of_the_client() -> None:
    """eShop's WebApp: `using GrpcBasketClient = ...Basket.BasketClient;` then `BasketService(GrpcBasketClient c)`."""
    facts = cs(
        """
        using eShop.Basket.API.Grpc;
        using GrpcBasketItem = eShop.Basket.API.Grpc.BasketItem;
        using GrpcBasketClient = eShop.Basket.API.Grpc.Basket.BasketClient;

        namespace eShop.WebApp.Services;

        public class BasketService(GrpcBasketClient basketClient)
        {
            public async Task GetBasketAsync()
            {
                var result = await basketClient.GetBasketAsync(new ());
                var item = new GrpcBasketItem { ProductId = 1 };
            }

            public async Task DeleteBasketAsync() => await basketClient.DeleteBasketAsync(new DeleteBasketRequest());
        }
        """
    )
    namespace = "eShop.Basket.API.Grpc"
    assert facts.grpc == (
        call("Basket", "GetBasketAsync", 11, "BasketService.GetBasketAsync", namespace),
        call("Basket", "DeleteBasketAsync", 15, "BasketService.DeleteBasketAsync", namespace),
    )


def test_csharp_every_holder_typed_by_an_alias_of_the_client_the_service_or_the_namespace() -> None:
    facts = cs(
        """
        using OrdersClient = Acme.Orders.V1.Orders.OrdersClient;
        using Stock = Acme.Stock.V1.Inventory;
        using Pay = Acme.Payments.V1;

        public sealed class Checkout
        {
            private readonly OrdersClient _orders;
            private Stock.InventoryClient Inventory { get; }

            public Checkout(OrdersClient orders, Stock.InventoryClient inventory)
            {
                _orders = orders;
                Inventory = inventory;
            }

            public async Task RunAsync(GrpcChannel channel)
            {
                await _orders.PlaceOrderAsync(new PlaceOrderRequest());
                Inventory.Reserve(new ReserveRequest());
                Pay.Payments.PaymentsClient payments = new(channel);
                payments.Charge(new ChargeRequest());
                var made = new OrdersClient(channel);
                made.GetOrder(new GetOrderRequest());
            }
        }
        """
    )
    assert facts.grpc == (
        call("Orders", "PlaceOrderAsync", 18, "Checkout.RunAsync", "Acme.Orders.V1"),
        call("Inventory", "Reserve", 19, "Checkout.RunAsync", "Acme.Stock.V1"),
        # an alias of a namespace is the namespace it names
        client("Payments", 20, "Checkout.RunAsync", "Acme.Payments.V1"),
        call("Payments", "Charge", 21, "Checkout.RunAsync", "Acme.Payments.V1"),
        client("Orders", 22, "Checkout.RunAsync", "Acme.Orders.V1"),
        call("Orders", "GetOrder", 23, "Checkout.RunAsync", "Acme.Orders.V1"),
    )


def test_csharp_an_alias_alone_is_enough_to_look_for_grpc() -> None:
    """No `X.XClient` is spelt out anywhere: the alias of the service class is the only hint."""
    facts = cs(
        """
        using Api = Acme.Orders.V1.Orders;

        class Poller(Api.OrdersClient orders)
        {
            void Poll() => orders.ListOrders(new ListOrdersRequest());
        }
        """
    )
    assert facts.grpc == (call("Orders", "ListOrders", 5, "Poller.Poll", "Acme.Orders.V1"),)


def test_csharp_aliases_are_not_followed_through_other_aliases_nor_taken_for_other_names() -> None:
    """C# resolves an alias's target without the other aliases; an unrelated alias changes nothing."""
    facts = cs(
        """
        using Inner = Acme.Orders.V1.Orders.OrdersClient;
        using Outer = Inner;
        using Json = System.Text.Json.JsonSerializer;

        class Worker(Outer orders, Json json, Inner inner)
        {
            void Run()
            {
                orders.GetOrder(new GetOrderRequest());
                json.Serialize(1);
                inner.GetOrder(new GetOrderRequest());
            }
        }
        """
    )
    assert facts.grpc == (call("Orders", "GetOrder", 11, "Worker.Run", "Acme.Orders.V1"),)


# -- C#: clients returned by a method of the class -------------------------------------------------


def test_csharp_calls_on_a_client_returned_by_a_method_of_the_class() -> None:
    """eShop's ClientApp: a lazily made client behind `GetBasketClient()`."""
    facts = cs(
        """
        using eShop.ClientApp.BasketGrpcClient;

        public class BasketService
        {
            private BasketGrpcClient.Basket.BasketClient _basketClient;

            public async Task<CustomerBasket> GetBasketAsync()
            {
                var reply = await GetBasketClient()
                    .GetBasketAsync(new GetBasketRequest(), CreateHeaders()).ConfigureAwait(false);
                await this.GetBasketClient().DeleteBasketAsync(new DeleteBasketRequest());
                await (await GetClientLaterAsync()).UpdateBasketAsync(new UpdateBasketRequest());
                Helper().GetBasketAsync();
                return null;
            }

            private BasketGrpcClient.Basket.BasketClient GetBasketClient()
            {
                if (_basketClient is not null)
                {
                    return _basketClient;
                }
                _basketClient = new BasketGrpcClient.Basket.BasketClient(_channel);
                return _basketClient;
            }

            private Task<BasketGrpcClient.Basket.BasketClient> GetClientLaterAsync() => Task.FromResult(_basketClient);
            private BasketState Helper() => new();
        }

        public class Other
        {
            private Metadata GetBasketClient() => new();
            void Run() => GetBasketClient().Add("a", "b");
        }
        """
    )
    symbol = "BasketService.GetBasketAsync"
    assert facts.grpc == (
        # the ConfigureAwait on the call's result, Helper()'s look-alike and Other's method are not RPCs
        call("Basket", "GetBasketAsync", 10, symbol, "BasketGrpcClient"),
        call("Basket", "DeleteBasketAsync", 11, symbol, "BasketGrpcClient"),
        call("Basket", "UpdateBasketAsync", 12, symbol, "BasketGrpcClient"),
        client("Basket", 23, "BasketService.GetBasketClient", "BasketGrpcClient"),
    )


def test_csharp_a_local_function_returning_a_client_in_top_level_statements() -> None:
    facts = cs(
        """
        using Acme.Orders.V1;

        Orders.OrdersClient Connect() => new Orders.OrdersClient(GrpcChannel.ForAddress("http://orders"));
        await Connect().GetOrderAsync(new GetOrderRequest());
        """
    )
    assert facts.grpc == (
        client("Orders", 3, "Connect"),
        call("Orders", "GetOrderAsync", 4, ""),
    )


# -- C#: dependency-injection registrations ---------------------------------------------------------


def test_csharp_add_grpc_client_is_a_client_and_its_builder_makes_no_calls() -> None:
    """eShop's WebApp: `AddGrpcClient<Basket.BasketClient>(...).AddAuthToken()` registers a client."""
    facts = cs(
        """
        using eShop.Basket.API.Grpc;
        using Ledger = Acme.Ledger.V1.Ledger.LedgerClient;

        public static class Extensions
        {
            public static void AddApplicationServices(this IHostApplicationBuilder builder)
            {
                builder.Services.AddGrpcClient<Basket.BasketClient>(o => o.Address = new("http://basket-api"))
                    .AddAuthToken()
                    .ConfigureChannel(c => c.MaxRetryAttempts = 3);
                var registration = builder.Services.AddGrpcClient<Ledger>();
                registration.AddInterceptor<Logging>();
            }

            public static void Use(GrpcClientFactory factory)
            {
                factory.CreateClient<Basket.BasketClient>("basket").GetBasket(new GetBasketRequest());
            }
        }
        """
    )
    assert facts.grpc == (
        client("Basket", 8, "Extensions.AddApplicationServices"),
        client("Ledger", 11, "Extensions.AddApplicationServices", "Acme.Ledger.V1"),
        # the factory's CreateClient hands over a client: what is called on it is an RPC
        client("Basket", 17, "Extensions.Use"),
        call("Basket", "GetBasket", 17, "Extensions.Use"),
    )
    assert all(fact.role != GrpcRole.CALL or fact.method == "GetBasket" for fact in facts.grpc)


# -- Go: handlers are methods shaped as the generated server interface's --------------------------


def test_go_methods_of_a_server_struct_that_are_no_rpc_are_no_handlers() -> None:
    """grpc-go's deadline example: `func (s *server) Close()` of the struct serving Echo is no RPC."""
    facts = go(
        """
        package main

        type server struct {
            pb.UnimplementedEchoServer
            client pb.EchoClient
            cc     *grpc.ClientConn
        }

        func (s *server) UnaryEcho(ctx context.Context, req *pb.EchoRequest) (*pb.EchoResponse, error) {
            return s.client.UnaryEcho(ctx, req)
        }

        func (s *server) ServerStreamingEcho(req *pb.EchoRequest, stream pb.Echo_ServerStreamingEchoServer) error {
            return nil
        }

        func (s *server) BidirectionalStreamingEcho(stream grpc.BidiStreamingServer[pb.EchoRequest, pb.Reply]) error {
            return nil
        }

        func (s *server) ClientStreamingEcho(pb.Echo_ClientStreamingEchoServer) error { return nil }

        func (s *server) Close() { s.cc.Close() }
        func (s *server) Run() error { return nil }
        func (s *server) Stop(ctx context.Context) error { return nil }
        func (s *server) Flush(ctx context.Context, force bool) error { return nil }
        func (s *server) Lookup(key string, fallback string) (string, error) { return "", nil }
        func (s *server) Log(ctx context.Context, args ...any) (int, error) { return 0, nil }
        func (s *server) Describe(ctx context.Context, req *pb.EchoRequest) string { return "" }
        """
    )
    assert facts.grpc == (
        server("Echo", 3, "server", "pb"),
        handler("Echo", "UnaryEcho", 9, "server.UnaryEcho", "pb"),
        call("Echo", "UnaryEcho", 10, "server.UnaryEcho", "pb"),
        handler("Echo", "ServerStreamingEcho", 13, "server.ServerStreamingEcho", "pb"),
        handler("Echo", "BidirectionalStreamingEcho", 17, "server.BidirectionalStreamingEcho", "pb"),
        handler("Echo", "ClientStreamingEcho", 21, "server.ClientStreamingEcho", "pb"),
    )


def test_go_handlers_with_unnamed_parameters_of_a_registered_type() -> None:
    facts = go(
        """
        package main

        type api struct{}

        func (api) GetOrder(context.Context, *pb.GetOrderRequest) (*pb.Order, error) { return nil, nil }
        func (a *api) WatchOrders(_ *pb.WatchRequest, out pb.Orders_WatchOrdersServer) (err error) { return }
        func (a *api) Shutdown() {}

        func main() {
            pb.RegisterOrdersServer(grpc.NewServer(), &api{})
        }
        """
    )
    assert facts.grpc == (
        server("Orders", 3, "api", "pb"),
        handler("Orders", "GetOrder", 5, "api.GetOrder", "pb"),
        handler("Orders", "WatchOrders", 6, "api.WatchOrders", "pb"),
        server("Orders", 10, "main", "pb"),
    )


# -- Go: a stream is no client -------------------------------------------------------------------


def test_go_calls_on_a_stream_are_not_calls_of_an_rpc() -> None:
    """grpc-go's cancellation example: `stream.Send(...)` on a `pb.Echo_BidirectionalStreamingEchoClient`."""
    facts = go(
        """
        package main

        type session struct {
            stream pb.Echo_BidirectionalStreamingEchoClient
        }

        func sendMessage(stream pb.Echo_BidirectionalStreamingEchoClient, msg string) error {
            return stream.Send(&pb.EchoRequest{Message: msg})
        }

        func (s *session) next(ctx context.Context) {
            var other pb.Orders_WatchOrdersClient
            other.RecvMsg(ctx)
            s.stream.CloseSend(ctx)
        }

        func main() {
            c := pb.NewEchoClient(conn)
            stream, err := c.BidirectionalStreamingEcho(ctx)
            sendMessage(stream, "hello")
        }
        """
    )
    assert facts.grpc == (
        client("Echo", 18, "main", "pb"),
        call("Echo", "BidirectionalStreamingEcho", 19, "main", "pb"),
    )
