"""C# links: HTTP routes, HTTP calls, messaging, constants and typed-client settings of realistic
snippets, exactly, with the look-alikes that are none of them."""

from __future__ import annotations

import textwrap

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mesh.index._facts import Constant, FileFacts, HttpCall, HttpRoute, MessageFact, Setting
from mesh.index.parse import _csharp, extract


def cs(text: str) -> FileFacts:
    return _csharp.extract(textwrap.dedent(text).lstrip("\n").encode())


def route(
    method: str, path: str, line: int, handler: str = "", symbol: str = "", framework: str = "aspnet"
) -> HttpRoute:
    return HttpRoute(method, path, line, handler, symbol, framework)


def call(
    method: str,
    path: str,
    line: int,
    symbol: str = "",
    host: str = "",
    address: str = "",
    client: str = "HttpClient",
    computed: bool = False,
) -> HttpCall:
    return HttpCall(method, path, line, symbol, host, address, client, computed)


def produce(
    broker: str, name: str, line: int, kind: str, symbol: str = "", client: str = "", address: str = ""
) -> MessageFact:
    return MessageFact("produce", broker, name, line, kind, symbol, address, client, not name and not address)


def consume(
    broker: str, name: str, line: int, kind: str, symbol: str = "", client: str = "", address: str = ""
) -> MessageFact:
    return MessageFact("consume", broker, name, line, kind, symbol, address, client, not name and not address)


# -- ASP.NET Core controllers ------------------------------------------------------------------------

CONTROLLERS = """
using Microsoft.AspNetCore.Mvc;

namespace Shop.Api.Controllers;

[ApiController]
[Route("api/v{version:apiVersion}/[controller]")]
public class OrdersController : ControllerBase
{
    [HttpGet]
    public IActionResult List() => Ok();

    [HttpGet("{id:int}", Name = "GetOrder")]
    [ProducesResponseType(200)]
    public IActionResult Get(int id) => Ok();

    [HttpPost]
    [Route("{id}/items")]
    public async Task<IActionResult> AddItemAsync(int id) => Ok();

    [HttpDelete("/admin/orders/{id}")]
    public IActionResult Purge(int id) => Ok();

    [HttpPut("~/legacy/orders/{id?}")]
    public IActionResult Legacy(int? id) => Ok();

    [AcceptVerbs("GET", "HEAD", Route = "ping")]
    public IActionResult Ping() => Ok();

    [NonAction]
    public void Helper() { }

    private void Hidden() { }
    public static void Util() { }
}

[Area("Admin")]
[Route("[area]/[controller]/[action]")]
public class UsersController : Controller
{
    public IActionResult Index() => View();

    [HttpPost]
    [ActionName("Remove")]
    public IActionResult DeleteAsync(string id) => View();

    [HttpGet]
    public IActionResult ExportAsync() => View();
}

public class HomeController : Controller
{
    [HttpGet]
    public IActionResult Index() => View();

    [HttpGet("about")]
    public IActionResult About() => View();
}

public class OrderService
{
    [HttpGet("not-a-route")]
    public void Get() { }
}
"""


def test_controllers() -> None:
    """Class ``[Route]`` prefixes, ``[controller]``/``[action]``/``[area]`` tokens (``Async`` trimmed,
    ``[ActionName]`` wins), absolute ``/`` and ``~/`` templates, verbs from ``[HttpX]``/``[AcceptVerbs]``,
    an attribute-routed action without a verb serves any; an action with no attribute route gets
    the conventional one (see ``test_conventional_routing``); no route for non-actions or a class that
    is no controller."""
    facts = cs(CONTROLLERS)
    o, u = "OrdersController", "UsersController"  # a file-scoped namespace is no container
    assert facts.http_routes == (
        route("GET", "/api/v{version}/Orders", 9, "OrdersController.List", f"{o}.List"),
        route("GET", "/api/v{version}/Orders/{id}", 12, "OrdersController.Get", f"{o}.Get"),
        route("POST", "/api/v{version}/Orders/{id}/items", 17, "OrdersController.AddItemAsync", f"{o}.AddItemAsync"),
        route("DELETE", "/admin/orders/{id}", 20, "OrdersController.Purge", f"{o}.Purge"),
        route("PUT", "/legacy/orders/{id}", 23, "OrdersController.Legacy", f"{o}.Legacy"),
        route("GET", "/api/v{version}/Orders/ping", 26, "OrdersController.Ping", f"{o}.Ping"),
        route("HEAD", "/api/v{version}/Orders/ping", 26, "OrdersController.Ping", f"{o}.Ping"),
        route("*", "/Admin/Users/Index", 40, "UsersController.Index", f"{u}.Index"),
        route("POST", "/Admin/Users/Remove", 42, "UsersController.DeleteAsync", f"{u}.DeleteAsync"),
        route("GET", "/Admin/Users/Export", 46, "UsersController.ExportAsync", f"{u}.ExportAsync"),
        route("GET", "/Home/Index", 53, "HomeController.Index", "HomeController.Index"),
        route("GET", "/about", 55, "HomeController.About", "HomeController.About"),
    )
    assert facts.http_calls == facts.messages == ()


def test_controller_inherits_route_of_a_base_class_in_the_file() -> None:
    facts = cs(
        """
        [Route("api/[controller]")]
        public abstract class ApiControllerBase : ControllerBase { }

        public class BasketController : ApiControllerBase
        {
            [HttpGet("{customerId}")]
            public Task<Basket> Get(string customerId) => null;
        }
        """
    )
    assert facts.http_routes == (
        route("GET", "/api/Basket/{customerId}", 6, "BasketController.Get", "BasketController.Get"),
    )


# -- minimal APIs ------------------------------------------------------------------------------------

MINIMAL = """
var builder = WebApplication.CreateBuilder(args);
var app = builder.Build();
const string Health = "/healthz";

app.MapGet("/", () => "ok");
app.MapGet(Health, () => "ok");
var api = app.MapGroup("/api").RequireAuthorization();
var orders = api.MapGroup("orders").WithTags("Orders");
orders.MapGet("/{id:guid}", GetOrder);
orders.MapPost("/", Handlers.CreateOrder);
orders.MapMethods("/{id}/lock", new[] { "PUT", "PATCH" }, LockOrder);
app.MapGroup("/v2").MapGroup("/carts").MapDelete("/{id}", (Guid id) => Results.NoContent());
app.NewVersionedApi("Catalog").MapGroup("api/catalog").HasApiVersion(1, 0).MapGet("/items", GetItems);
app.MapHub<ChatHub>("/hubs/chat");
app.Map("/ws", HandleSocket);
app.MapMethods("/check", [HttpMethods.Options], Check);
app.MapTodos();
app.MapGroup("/tenants/{tenant}").MapTodos();
var dest = mapper.Map<OrderDto>(order);
app.MapControllers();
app.MapGet(routeFromSomewhere, Handler);
app.MapGroup(prefixFromSomewhere).MapGet("/x", Handler);

static class TodoEndpoints
{
    public static RouteGroupBuilder MapTodos(this IEndpointRouteBuilder routes)
    {
        var group = routes.MapGroup("/todos");
        group.MapGet("/", GetAll);
        return group;
    }
}
"""


def test_minimal_apis() -> None:
    """``MapGet``... under the ``MapGroup`` prefixes of their receiver (through variables, builder calls,
    a versioned-API builder and an extension method of the file called on each group), ``MapMethods``
    with each verb, ``Map`` and ``MapHub<T>`` for any verb; a route or prefix that cannot be read is no
    route, and AutoMapper's ``Map<T>`` or ``MapControllers`` none either."""
    facts = cs(MINIMAL)
    t = "TodoEndpoints.MapTodos"
    assert facts.http_routes == (
        route("GET", "/", 5),
        route("GET", "/healthz", 6),
        route("GET", "/api/orders/{id}", 9, "GetOrder"),
        route("POST", "/api/orders", 10, "Handlers.CreateOrder"),
        route("PUT", "/api/orders/{id}/lock", 11, "LockOrder"),
        route("PATCH", "/api/orders/{id}/lock", 11, "LockOrder"),
        route("DELETE", "/v2/carts/{id}", 12),
        route("GET", "/api/catalog/items", 13, "GetItems"),
        route("*", "/hubs/chat", 14, "ChatHub", framework="signalr"),
        route("*", "/ws", 15, "HandleSocket"),
        route("OPTIONS", "/check", 16, "Check"),
        route("GET", "/todos", 29, "GetAll", t),
        route("GET", "/tenants/{tenant}/todos", 29, "GetAll", t),
    )


# -- HttpClient ----------------------------------------------------------------------------------------

HTTP_CLIENT = """
using System.Net.Http.Json;

namespace Shop.Web.Services;

public class CatalogClient(HttpClient http)
{
    private const string Items = "api/catalog/items";
    private readonly string remoteServiceBaseUrl = "api/catalog/";

    public Task<Item?> GetItem(int id) => http.GetFromJsonAsync<Item>($"{remoteServiceBaseUrl}items/{id}");
    public Task<string> Raw() => http.GetStringAsync(Items + "?page=1");
    public Task Add(Item item) => http.PostAsJsonAsync("/api/catalog/items", item);
    public Task Remove(int id) => http.DeleteAsync("api/catalog/items/" + id);
    public Task Computed(string url) => http.GetAsync(url);
    public Task Send(Order order)
    {
        var request = new HttpRequestMessage(HttpMethod.Post, "/api/orders") { Content = JsonContent.Create(order) };
        return http.SendAsync(request);
    }
}

public class BasketClient
{
    private readonly HttpClient _httpClient;
    private readonly IDistributedCache _cache;
    public BasketClient(HttpClient httpClient, IDistributedCache cache) { _httpClient = httpClient; _cache = cache; }

    public async Task Get(string id)
    {
        await _httpClient.GetAsync($"/api/basket/{id}");
        await _cache.GetStringAsync(id);
        await _repository.GetAsync(id);
    }
}

public class Pinger
{
    private static readonly string BillingUrl = Environment.GetEnvironmentVariable("BILLING_URL") ?? "http://billing:8080";
    private readonly IConfiguration _configuration;
    private readonly IHttpClientFactory _factory;

    public async Task Run(string tenant)
    {
        var client = new HttpClient();
        await client.GetAsync("http://inventory-svc:5000/api/stock?sku=1");
        await client.PostAsync($"{BillingUrl}/invoices/{tenant}", null);
        await client.GetAsync(_configuration["Services:Shipping"] + "/shipments");
        await client.GetAsync($"{Endpoints.PaymentsUrl}/payments");
        var named = _factory.CreateClient("github");
        await named.GetAsync("repos/dotnet/runtime");
        await client.SendAsync(new HttpRequestMessage(new HttpMethod("PATCH"), "http://orders/api/orders/1"));
        var msg = new HttpRequestMessage { Method = HttpMethod.Put, RequestUri = new Uri("http://orders/api/orders/2") };
        await client.SendAsync(msg);
    }
}

public class AuthHandler : DelegatingHandler
{
    protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken ct) => base.SendAsync(request, ct);
}

public class ChatNotifier(IHubContext<ChatHub> hub)
{
    public Task Notify() => hub.Clients.All.SendAsync("ReceiveMessage", "hi");
}
"""


def test_http_client() -> None:
    """Verbs of ``HttpClient`` on holders known to be one; a typed client's relative URLs (constants,
    fields and locals of the file read in) go to ``client:Class``; a literal URL gives its host, a base
    from an env var, a config key or another file's constant its address, a named client
    ``client:name``; ``SendAsync`` reads its ``HttpRequestMessage``; a URL of a parameter is computed.
    A cache's ``GetStringAsync``, a repository's ``GetAsync``, a handler's ``base.SendAsync`` and
    SignalR's ``SendAsync`` are no HTTP calls."""
    facts = cs(HTTP_CLIENT)
    c, b, p = "CatalogClient", "BasketClient.Get", "Pinger.Run"
    assert facts.http_calls == (
        call("GET", "/api/catalog/items/{id}", 10, f"{c}.GetItem", address="client:CatalogClient"),
        call("GET", "/api/catalog/items", 11, f"{c}.Raw", address="client:CatalogClient"),
        call("POST", "/api/catalog/items", 12, f"{c}.Add", address="client:CatalogClient"),
        call("DELETE", "/api/catalog/items/{id}", 13, f"{c}.Remove", address="client:CatalogClient"),
        call("GET", "", 14, f"{c}.Computed", computed=True),
        call("POST", "/api/orders", 18, f"{c}.Send", address="client:CatalogClient"),
        call("GET", "/api/basket/{id}", 30, b, address="client:BasketClient"),
        call("GET", "/api/stock", 45, p, host="inventory-svc"),
        call("POST", "/invoices/{tenant}", 46, p, address="env:BILLING_URL"),
        call("GET", "/shipments", 47, p, address="config:Services.Shipping"),
        call("GET", "/payments", 48, p, address="const:Endpoints.PaymentsUrl"),
        call("GET", "/repos/dotnet/runtime", 50, p, address="client:github"),
        call("PATCH", "/api/orders/1", 51, p, host="orders"),
        call("PUT", "/api/orders/2", 53, p, host="orders"),
    )
    assert facts.http_routes == facts.messages == ()


def test_http_client_base_address_of_the_holder() -> None:
    """A client created with (or later given) a ``BaseAddress`` sends relative URLs there; Dapr's
    invoke client goes to the app id; the port of an assembled address is no part of the path."""
    facts = cs(
        """
        var gateway = new HttpClient { BaseAddress = new Uri("http://gateway:8080/api/") };
        await gateway.GetAsync("orders/1");
        var billing = new HttpClient();
        billing.BaseAddress = new Uri(builder.Configuration["Billing:Url"]!);
        await billing.PostAsJsonAsync("invoices", invoice);
        var orders = DaprClient.CreateInvokeHttpClient(appId: "order-processor");
        await orders.PostAsJsonAsync("/orders", order);
        var daprHost = Environment.GetEnvironmentVariable("DAPR_HOST") ?? "http://localhost";
        var port = "3500";
        await billing.GetAsync($"{daprHost}:{port}/v1.0/state/{store}");
        await billing.GetAsync($"http://{host}:{Port}/status");
        await billing.GetAsync(Environment.GetEnvironmentVariable("PAYMENTS_API_TOKEN") + "/charges");
        """
    )
    assert facts.http_calls == (
        call("GET", "/api/orders/1", 2, host="gateway"),
        call("POST", "/invoices", 5, address="config:Billing.Url"),
        call("POST", "/orders", 7, host="order-processor"),
        call("GET", "/v1.0/state/{store}", 10, address="env:DAPR_HOST"),
        call("GET", "/status", 11),
        call("GET", "/charges", 12),  # a secret-looking variable is never kept as an address
    )


def test_dapr_sidecar_api() -> None:
    """Calls of the Dapr sidecar's HTTP API: ``/v1.0/invoke/<app>/method/<path>`` reaches the app,
    ``/v1.0/publish/<pubsub>/<topic>`` also publishes the topic."""
    facts = cs(
        """
        var baseURL = (Environment.GetEnvironmentVariable("BASE_URL") ?? "http://localhost") + ":" + (Environment.GetEnvironmentVariable("DAPR_HTTP_PORT") ?? "3500");
        const string PUBSUBNAME = "orderpubsub";
        const string TOPIC = "orders";
        var httpClient = new HttpClient();
        await httpClient.PostAsync($"{baseURL}/v1.0/publish/{PUBSUBNAME}/{TOPIC}", content);
        await httpClient.GetAsync($"{baseURL}/v1.0/invoke/inventory/method/items/{id}");
        """
    )
    assert facts.http_calls == (
        call("POST", "/v1.0/publish/orderpubsub/orders", 5, address="env:BASE_URL"),
        call("GET", "/items/{id}", 6, host="inventory", client="dapr"),
    )
    assert facts.messages == (produce("", "orders", 5, "topic", client="dapr"),)


# -- typed and named client registrations ------------------------------------------------------------


def test_client_registrations_give_settings() -> None:
    """``AddHttpClient<T>``/``<I, T>``/``("name")`` and ``ConfigureHttpClient`` after
    ``AddHttpClient``/``AddRefitClient``: a setting ``client:T`` with the host and base path of a
    literal ``BaseAddress``, the env var (and its literal default's host) or the config key
    (``config:``-prefixed) it comes from, the same for a typed client chained with
    ``AddTypedClient<T>``; nothing when no base address is given or readable, or when it comes from
    a secret-looking key (INV-LINKS-3)."""
    facts = cs(
        """
        var builder = WebApplication.CreateBuilder(args);
        builder.Services.AddHttpClient<CatalogService>(c => c.BaseAddress = new("http://catalog-api"));
        builder.Services.AddHttpClient<IBasketService, BasketService>(client =>
        {
            client.BaseAddress = new Uri(builder.Configuration["Urls:Basket"]!);
            client.Timeout = TimeSpan.FromSeconds(5);
        });
        builder.Services.AddHttpClient("github", c => c.BaseAddress = new Uri(Environment.GetEnvironmentVariable("GITHUB_API") ?? "https://api.github.com/")).AddTypedClient<GitHubClient>();
        builder.Services.AddRefitClient<IOrdersApi>().ConfigureHttpClient(c => c.BaseAddress = new Uri("http://orders:8080/api"));
        builder.Services.AddHttpClient<PaymentsClient>().ConfigureHttpClient((sp, c) => c.BaseAddress = new Uri("https+http://payments"));
        builder.Services.AddHttpClient<NoBase>();
        builder.Services.AddHttpClient<Unreadable>(c => c.BaseAddress = new Uri(options.Value.Url));
        builder.Services.AddHttpClient<Vault>(c => c.BaseAddress = new Uri(builder.Configuration["Vault:Token"]!));
        """
    )
    assert facts.settings == (
        Setting("client:CatalogService", 2, host="catalog-api"),
        Setting("client:BasketService", 3, env="config:Urls.Basket"),
        Setting("client:github", 8, host="api.github.com", env="GITHUB_API"),
        Setting("client:GitHubClient", 8, host="api.github.com", env="GITHUB_API"),
        Setting("client:IOrdersApi", 9, host="orders", path="/api"),
        Setting("client:PaymentsClient", 10, host="payments"),
    )
    assert facts.http_calls == ()


def test_refit_interfaces_and_rest_service_for() -> None:
    """Refit interface methods are calls of ``client:Interface``; a typed client setting its own
    ``BaseAddress`` and handing it to ``RestService.For<T>`` gives the settings of both."""
    facts = cs(
        """
        public interface IOrdersApi
        {
            [Get("/orders/{id}")]
            Task<Order> GetOrder(int id);

            [Post("/orders?draft=true")]
            Task Create([Body] Order order);

            [Headers("Accept: application/json")]
            [Delete("/orders/{id}")]
            Task Delete(int id);

            Task<Order> NoAttribute();
        }

        public interface IRepository
        {
            [Obsolete("x")]
            Task<Order> Get(int id);
        }

        public class OrdersApi : IOrdersApi
        {
            private readonly IOrdersApi _api;
            public OrdersApi(IConfiguration config, HttpClient httpClient)
            {
                string hostAndPort = config.GetSection("APIServiceLocations").GetValue<string>("OrdersAPI");
                httpClient.BaseAddress = new Uri($"http://{hostAndPort}/api");
                _api = RestService.For<IOrdersApi>(httpClient);
            }
        }
        """
    )
    a = "client:IOrdersApi"
    assert facts.http_calls == (
        call("GET", "/orders/{id}", 3, "IOrdersApi.GetOrder", address=a, client="refit"),
        call("POST", "/orders", 6, "IOrdersApi.Create", address=a, client="refit"),
        call("DELETE", "/orders/{id}", 10, "IOrdersApi.Delete", address=a, client="refit"),
    )
    env = "config:APIServiceLocations.OrdersAPI"
    assert facts.settings == (
        Setting("client:OrdersApi", 28, env=env, path="/api"),
        Setting("client:IOrdersApi", 29, env=env, path="/api"),
    )


def test_restsharp() -> None:
    facts = cs(
        """
        using RestSharp;
        public class InventoryGateway
        {
            private readonly RestClient _client = new RestClient("http://inventory:8080/api");
            private readonly Dictionary<string, Item> _items = new();
            public async Task Run(int id)
            {
                var request = new RestRequest("items/{id}", Method.Get);
                await _client.ExecuteAsync(request);
                await _client.PostAsync(new RestRequest("items"));
                await _client.GetJsonAsync<Item>("items/count");
                _items.Get("x");
            }
        }
        """
    )
    s = "InventoryGateway.Run"
    assert facts.http_calls == (
        call("GET", "/api/items/{id}", 9, s, host="inventory", client="RestSharp"),
        call("POST", "/api/items", 10, s, host="inventory", client="RestSharp"),
        call("GET", "/api/items/count", 11, s, host="inventory", client="RestSharp"),
    )


# -- messaging ---------------------------------------------------------------------------------------


def test_confluent_kafka() -> None:
    """Producers and consumers of Confluent.Kafka (declared or built), topics from literals, constants,
    config keys, ``TopicPartition`` and lists; Rx's ``Subscribe`` is none."""
    facts = cs(
        """
        using Confluent.Kafka;
        public class OrderEvents
        {
            private readonly IProducer<string, string> _producer;
            private readonly IConfiguration _config;
            private const string PaymentsTopic = "payments";

            public async Task Publish(Order order)
            {
                await _producer.ProduceAsync("orders", new Message<string, string> { Key = order.Id, Value = "x" });
                _producer.Produce(PaymentsTopic, new Message<string, string>());
                await _producer.ProduceAsync(_config["Kafka:AuditTopic"], new Message<string, string>());
                await _producer.ProduceAsync(new TopicPartition("shipments", new Partition(0)), new Message<string, string>());
                await _producer.ProduceAsync(order.Topic, new Message<string, string>());
            }

            public void Consume(IObservable<int> observable)
            {
                using var consumer = new ConsumerBuilder<Ignore, string>(new ConsumerConfig()).Build();
                consumer.Subscribe("orders");
                consumer.Subscribe(new[] { "payments", "refunds" });
                var topics = new List<string> { "audit" };
                consumer.Subscribe(topics);
                observable.Subscribe(x => Console.WriteLine(x));
            }
        }
        """
    )
    p, c, k = "OrderEvents.Publish", "OrderEvents.Consume", "Confluent.Kafka"
    assert facts.messages == (
        produce("kafka", "orders", 10, "topic", p, k),
        produce("kafka", "payments", 11, "topic", p, k),
        produce("kafka", "", 12, "topic", p, k, address="config:Kafka.AuditTopic"),
        produce("kafka", "shipments", 13, "topic", p, k),
        produce("kafka", "", 14, "topic", p, k),
        consume("kafka", "orders", 20, "topic", c, k),
        consume("kafka", "payments", 21, "topic", c, k),
        consume("kafka", "refunds", 21, "topic", c, k),
        consume("kafka", "audit", 23, "topic", c, k),
    )
    assert facts.messages[4].computed


def test_rabbitmq_client() -> None:
    """``BasicPublish`` to an exchange (the default exchange: to the queue named by the routing key),
    ``BasicConsume`` of a queue, ``QueueBind`` consuming an exchange; declarations alone are none."""
    facts = cs(
        """
        using RabbitMQ.Client;
        var factory = new ConnectionFactory { HostName = "rabbitmq" };
        using var channel = connection.CreateModel();
        channel.ExchangeDeclare(exchange: "logs", type: ExchangeType.Fanout);
        channel.QueueDeclare(queue: "hello", durable: false, exclusive: false, autoDelete: false, arguments: null);
        channel.BasicPublish(exchange: "logs", routingKey: "", basicProperties: null, body: body);
        channel.BasicPublish("", "hello", null, body);
        var queueName = channel.QueueDeclare().QueueName;
        channel.QueueBind(queue: queueName, exchange: "logs", routingKey: "");
        channel.BasicConsume(queue: "hello", autoAck: true, consumer: consumer);
        await channel.BasicPublishAsync(Exchange, routingKey: "orders.created", body: body);
        await channel.BasicPublishAsync(exchangeName, "x", body);
        static partial class Program { const string Exchange = "orders"; }
        """
    )
    r = "RabbitMQ.Client"
    assert facts.messages == (
        produce("rabbitmq", "logs", 6, "exchange", client=r),
        produce("rabbitmq", "hello", 7, "queue", client=r),
        consume("rabbitmq", "logs", 9, "exchange", client=r),
        consume("rabbitmq", "hello", 10, "queue", client=r),
        produce("rabbitmq", "orders", 11, "exchange", client=r),
        produce("rabbitmq", "", 12, "exchange", client=r),
    )


def test_masstransit() -> None:
    """``IConsumer<T>`` consumes ``T``; ``Publish``/``Send`` of a ``new T``, of a variable assigned one,
    or ``Publish<T>`` produce ``T``; MediatR's in-process ``Publish``/``Send`` are none."""
    facts = cs(
        """
        using MassTransit;
        public class SubmitOrderConsumer : IConsumer<SubmitOrder>
        {
            public async Task Consume(ConsumeContext<SubmitOrder> context)
            {
                await context.Publish<OrderSubmitted>(new { context.Message.OrderId });
                await context.RespondAsync(new OrderAccepted());
            }
        }
        public class OrderController(IPublishEndpoint publishEndpoint, ISendEndpointProvider sendProvider, IMediator mediator)
        {
            public async Task Post(Order order)
            {
                await publishEndpoint.Publish(new OrderCreated(order.Id));
                var evt = new OrderPaid(order.Id);
                await publishEndpoint.Publish(evt);
                var endpoint = await sendProvider.GetSendEndpoint(new Uri("queue:submit-order"));
                await endpoint.Send(new SubmitOrder(order.Id));
                await mediator.Publish(new OrderCreatedNotification());
                await mediator.Send(new CreateOrderCommand());
            }
        }
        """
    )
    m, p = "MassTransit", "OrderController.Post"
    assert facts.messages == (
        consume("", "SubmitOrder", 2, "event", "SubmitOrderConsumer", m),
        produce("", "OrderSubmitted", 6, "event", "SubmitOrderConsumer.Consume", m),
        produce("", "OrderCreated", 14, "event", p, m),
        produce("", "OrderPaid", 16, "event", p, m),
        produce("", "SubmitOrder", 18, "event", p, m),
    )


def test_nservicebus() -> None:
    facts = cs(
        """
        using NServiceBus;
        public class PlaceOrderHandler : IHandleMessages<PlaceOrder>
        {
            public Task Handle(PlaceOrder message, IMessageHandlerContext context)
            {
                return context.Publish(new OrderPlaced { OrderId = message.OrderId });
            }
        }
        public class Sender(IMessageSession messageSession, IMediator mediator)
        {
            public Task Go() => messageSession.Send(new PlaceOrder());
            public Task Local() => mediator.Send(new PlaceOrder());
        }
        """
    )
    n = "NServiceBus"
    assert facts.messages == (
        consume("", "PlaceOrder", 2, "event", "PlaceOrderHandler", n),
        produce("", "OrderPlaced", 6, "event", "PlaceOrderHandler.Handle", n),
        produce("", "PlaceOrder", 11, "event", "Sender.Go", n),
    )


def test_azure_service_bus() -> None:
    facts = cs(
        """
        using Azure.Messaging.ServiceBus;
        await using var client = new ServiceBusClient(connectionString);
        ServiceBusSender sender = client.CreateSender("orders");
        ServiceBusProcessor processor = client.CreateProcessor("orders", new ServiceBusProcessorOptions());
        var subscription = client.CreateProcessor("order-events", "billing");
        """
    )
    a = "Azure.Messaging.ServiceBus"
    assert facts.messages == (
        produce("servicebus", "orders", 3, "", client=a),
        consume("servicebus", "orders", 4, "queue", client=a),
        consume("servicebus", "order-events", 5, "topic", client=a),
    )


def test_dapr() -> None:
    """Dapr pub/sub (``PublishEventAsync``, ``[Topic]`` on an action or a minimal API lambda, topic
    names from a constant of another file) and service invocation (``InvokeMethodAsync``)."""
    facts = cs(
        """
        using Dapr;
        using Dapr.Client;
        [ApiController]
        public class CheckoutController(DaprClient daprClient) : ControllerBase
        {
            [Topic("pubsub", "orders")]
            [HttpPost("/checkout")]
            public async Task<IActionResult> Checkout(Order order)
            {
                await daprClient.PublishEventAsync("pubsub", "payments", order);
                await daprClient.PublishEventAsync(Constants.PubSub, Constants.ShippingTopic, order);
                var item = await daprClient.InvokeMethodAsync<Item>(HttpMethod.Get, "inventory", $"items/{order.ItemId}");
                await daprClient.InvokeMethodAsync("shipping", "ship", order);
                await daprClient.SaveStateAsync("statestore", order.Id, order);
                return Ok();
            }
        }
        static class Subscriptions
        {
            static void Map(WebApplication app) =>
                app.MapPost("/A", [Topic("pubsub", "A")] (MessageEvent item) => Results.Ok());
        }
        """
    )
    s, d = "CheckoutController.Checkout", "dapr"
    assert facts.http_routes == (
        route("POST", "/checkout", 7, "CheckoutController.Checkout", s),
        route("POST", "/A", 21, "", "Subscriptions.Map"),
    )
    assert facts.http_calls == (
        call("GET", "/items/{}", 12, s, host="inventory", client=d),
        call("POST", "/ship", 13, s, host="shipping", client=d),
    )
    assert facts.messages == (
        consume("", "orders", 6, "topic", s, d),
        produce("", "payments", 10, "topic", s, d),
        produce("", "", 11, "topic", s, d, address="const:Constants.ShippingTopic"),
        consume("", "A", 21, "topic", "Subscriptions.Map", d),
    )


EVENT_BUS = """
public class OrderingService(IEventBus eventBus, IOrderingIntegrationEventService outbox, IMediator mediator, ILogger logger)
{
    public async Task Run(Order order, IntegrationEvent pending)
    {
        await eventBus.PublishAsync(new OrderStartedIntegrationEvent(order.BuyerId));
        IntegrationEvent evt;
        if (order.Paid) evt = new OrderPaidIntegrationEvent(order.Id); else evt = new OrderPaymentFailedIntegrationEvent(order.Id);
        await eventBus.PublishAsync(evt);
        await eventBus.PublishAsync(pending);
        var shipped = new OrderShippedIntegrationEvent(order.Id);
        await outbox.AddAndSaveEventAsync(shipped);
        await outbox.PublishThroughEventBusAsync(shipped);
        var checkedEvent = order.Ok ? (IntegrationEvent)new StockConfirmedIntegrationEvent(order.Id) : new StockRejectedIntegrationEvent(order.Id);
        await outbox.SaveEventAndChangesAsync(checkedEvent);
        order.AddDomainEvent(new OrderStartedDomainEvent(order));
        await mediator.Publish(new OrderStartedDomainEvent(order));
        logger.LogInformation("Publishing {Event}", shipped);
    }
}
public static class Wiring
{
    public static void Add(IHostApplicationBuilder builder, IEventBus eventBus)
    {
        builder.AddRabbitMqEventBus("eventbus")
            .AddSubscription<OrderPaidIntegrationEvent, OrderPaidIntegrationEventHandler>();
        eventBus.Subscribe<OrderShippedIntegrationEvent, OrderShippedIntegrationEventHandler>();
    }
}
public class OrderPaidIntegrationEventHandler(ILogger logger) : IIntegrationEventHandler<OrderPaidIntegrationEvent>
{
    public Task Handle(OrderPaidIntegrationEvent @event) => Task.CompletedTask;
}
public class OrderStartedDomainEventHandler : INotificationHandler<OrderStartedDomainEvent>
{
    public Task Handle(OrderStartedDomainEvent e, CancellationToken ct) => Task.CompletedTask;
}
"""


def test_in_house_event_bus() -> None:
    """Integration events published on an event bus (a ``new`` event, a variable's ``new`` values in
    every branch, an event of a base type: computed), handed to an outbox (once per method), subscribed
    with ``Subscribe<E, H>``/``AddSubscription<E, H>`` and handled by ``IIntegrationEventHandler<E>``;
    domain events and MediatR notifications stay in the process."""
    facts = cs(EVENT_BUS)
    r, a = "OrderingService.Run", "Wiring.Add"
    assert facts.messages == (
        produce("eventbus", "OrderStartedIntegrationEvent", 5, "event", r),
        produce("eventbus", "OrderPaidIntegrationEvent", 8, "event", r),
        produce("eventbus", "OrderPaymentFailedIntegrationEvent", 8, "event", r),
        produce("eventbus", "", 9, "event", r),
        produce("eventbus", "OrderShippedIntegrationEvent", 12, "event", r),
        produce("eventbus", "StockConfirmedIntegrationEvent", 14, "event", r),
        produce("eventbus", "StockRejectedIntegrationEvent", 14, "event", r),
        consume("eventbus", "OrderPaidIntegrationEvent", 25, "event", a),
        consume("eventbus", "OrderShippedIntegrationEvent", 26, "event", a),
        consume("eventbus", "OrderPaidIntegrationEvent", 29, "event", "OrderPaidIntegrationEventHandler"),
    )


def test_redis_and_nats() -> None:
    facts = cs(
        """
        using StackExchange.Redis;
        using NATS.Client.Core;
        public class Bus(IConnectionMultiplexer redis, NatsConnection nats, IObservable<int> stream)
        {
            public async Task Go()
            {
                var sub = redis.GetSubscriber();
                await sub.PublishAsync(RedisChannel.Literal("cart-updates"), "x");
                await sub.SubscribeAsync(RedisChannel.Literal("price-changes"), (c, v) => { });
                await redis.GetDatabase().PublishAsync(RedisChannel.Literal("stock"), "x");
                await nats.PublishAsync("orders.created", "x");
                await foreach (var msg in nats.SubscribeAsync<string>("orders.*")) { }
                stream.Subscribe(x => { });
            }
        }
        """
    )
    s = "Bus.Go"
    assert facts.messages == (
        produce("redis", "cart-updates", 8, "channel", s, "StackExchange.Redis"),
        consume("redis", "price-changes", 9, "channel", s, "StackExchange.Redis"),
        produce("redis", "stock", 10, "channel", s, "StackExchange.Redis"),
        produce("nats", "orders.created", 11, "subject", s, "NATS"),
        consume("nats", "orders.*", 12, "subject", s, "NATS"),
    )


# -- constants ---------------------------------------------------------------------------------------


def test_constants() -> None:
    """Public string constants whose name or owner's name says they name a link; never a secret-looking
    name, a private one, one that is not one token, or one of another type."""
    facts = cs(
        """
        namespace Shop.Messaging;
        public static class KafkaTopics
        {
            public const string Orders = "orders";
            public const string Payments = "payments";
        }
        public static class Settings
        {
            public const string OrdersTopic = "orders-v2";
            public static readonly string CatalogUrl = "http://catalog-api";
            public const string ApiKeyRoute = "/keys";
            public const string ServiceBusToken = "abc123";
            public const string Greeting = "hello";
            private const string HiddenTopic = "hidden";
            public const string EventsRoute = "api/events with space";
            public const int RetryCount = 3;
            public static string MutableUrl = "http://x";
        }
        """
    )
    assert facts.constants == (
        Constant("KafkaTopics.Orders", "orders", 4),
        Constant("KafkaTopics.Payments", "payments", 5),
        Constant("Settings.OrdersTopic", "orders-v2", 9),
        Constant("Settings.CatalogUrl", "http://catalog-api", 10),
    )


# -- the whole extractor --------------------------------------------------------------------------------


def test_extract_carries_links_and_files_without_links_cost_nothing() -> None:
    facts = extract("src/Orders/Program.cs", b'var app = WebApplication.Create();\napp.MapGet("/orders", () => 1);\n')
    assert facts.http_routes == (route("GET", "/orders", 2),)
    plain = cs("public class Money { public decimal Units; }")
    assert (plain.http_routes, plain.http_calls, plain.messages, plain.settings, plain.constants) == (
        (),
        (),
        (),
        (),
        (),
    )


def test_deterministic() -> None:
    source = (CONTROLLERS + MINIMAL + HTTP_CLIENT + EVENT_BUS).encode()
    first = _csharp.extract(source)
    assert first == _csharp.extract(source)
    assert first.http_routes and first.http_calls and first.messages


SNIPPETS = [CONTROLLERS, MINIMAL, HTTP_CLIENT, EVENT_BUS]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A realistic snippet with a few random byte-level mutations (deletions, insertions, overwrites)."""
    data = bytearray(textwrap.dedent(draw(st.sampled_from(SNIPPETS))).encode())
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["delete", "insert", "overwrite"]))
        chunk = draw(
            st.binary(min_size=1, max_size=8)
            | st.sampled_from([b"(", b")", b"{", b"}", b'"', b"$", b"[", b"]", b"<", b">", b"=>", b"+", b"??"])
        )
        if kind == "delete":
            del data[at : at + len(chunk)]
        elif kind == "insert":
            data[at:at] = chunk
        else:
            data[at : at + len(chunk)] = chunk
    return bytes(data)


@settings(max_examples=300, deadline=None)
@given(mutated())
@example(textwrap.dedent(EVENT_BUS).encode())
@example(
    b'app.MapGet($"{',
)
@example(b"var x = x + x; http.GetAsync(x);")
def test_any_mutation_of_a_realistic_snippet(source: bytes) -> None:
    """INV-LINKS-1: extractors of links are total: any bytes give facts, never an exception (and the
    same facts every time)."""
    facts = _csharp.extract(source)
    assert facts == _csharp.extract(source)
    assert all(
        f.line >= 1 for f in (*facts.http_routes, *facts.http_calls, *facts.messages, *facts.settings, *facts.constants)
    )
    assert _csharp.extract(textwrap.dedent(EVENT_BUS).encode()).messages


def test_controller_deriving_from_a_base_class_of_another_file_guesses_no_prefix() -> None:
    """``[Route]`` is inherited: a controller whose base class lives in another file may have a prefix
    this file cannot see, so only its absolute templates are routes."""
    facts = cs(
        """
        public class TodoItemsController : ApiControllerBase
        {
            [HttpGet("{id}")]
            public Task<TodoItem> Get(int id) => null;

            [HttpGet("/health/todos")]
            public IActionResult Health() => Ok();
        }

        public class StatusController : ControllerBase, IDisposable
        {
            [HttpGet("status")]
            public IActionResult Get() => Ok();
        }
        """
    )
    assert facts.http_routes == (
        route("GET", "/health/todos", 6, "TodoItemsController.Health", "TodoItemsController.Health"),
        route("GET", "/status", 12, "StatusController.Get", "StatusController.Get"),
    )


# -- conventional routing ----------------------------------------------------------------------------

CONVENTIONAL = """
using Microsoft.AspNetCore.Mvc;

namespace Shop.Web.Controllers;

public class AccountController : Controller
{
    public AccountController(ILogger<AccountController> logger) { }

    [HttpGet]
    public IActionResult Login(string returnUrl) => View();

    [HttpPost]
    [ValidateAntiForgeryToken]
    public async Task<IActionResult> LoginAsync(LoginModel model) => View();

    public IActionResult Details(int id) => View();

    [ActionName("Bye")]
    [AcceptVerbs("GET", "POST")]
    public IActionResult Logout() => View();

    [HttpGet("/account/profile")]
    public IActionResult Profile() => View();

    [NonAction]
    public void Helper() { }
    public static IActionResult Util() => null;
    private IActionResult Hidden() => null;
    protected IActionResult Inner() => null;
    public override void OnActionExecuting(ActionExecutingContext context) { }
    public IActionResult Generic<T>() => null;
    public void Dispose() { }
}

[Area("Admin")]
public class UsersController : Controller
{
    public IActionResult Index() => View();
}

public class StatusController
{
    public IActionResult Get() => new OkResult();
}

public class CatalogController : ControllerBase
{
    [HttpDelete]
    public IActionResult Remove(int id) => Ok();
}
"""


def test_conventional_routing() -> None:
    """A controller's action with no attribute route is routed by ASP.NET's default conventional
    template ``{controller=Home}/{action=Index}/{id?}`` (the file registers none): ``/Account/Login``
    with ``Async`` trimmed and ``[ActionName]`` winning, ``{id}`` kept when the action takes ``id``,
    verbs from ``[HttpX]``/``[AcceptVerbs]`` else any; an area's controller by the areas route; a POCO
    controller, and one deriving from ``ControllerBase``, too. Attribute routing wins (``Profile``);
    non-actions (``[NonAction]``, static, non-public, overrides, generic methods, ``Dispose``) get
    nothing. The route's line is the action's name."""
    facts = cs(CONVENTIONAL)
    a = "AccountController"
    assert facts.http_routes == (
        route("GET", "/Account/Login", 10, f"{a}.Login", f"{a}.Login"),
        route("POST", "/Account/Login", 14, f"{a}.LoginAsync", f"{a}.LoginAsync"),
        route("*", "/Account/Details/{id}", 16, f"{a}.Details", f"{a}.Details"),
        route("GET", "/Account/Bye", 20, f"{a}.Logout", f"{a}.Logout"),
        route("POST", "/Account/Bye", 20, f"{a}.Logout", f"{a}.Logout"),
        route("GET", "/account/profile", 22, f"{a}.Profile", f"{a}.Profile"),
        route("*", "/Admin/Users/Index", 38, "UsersController.Index", "UsersController.Index"),
        route("*", "/Status/Get", 43, "StatusController.Get", "StatusController.Get"),
        route("DELETE", "/Catalog/Remove/{id}", 49, "CatalogController.Remove", "CatalogController.Remove"),
    )


def test_conventional_routing_needs_a_controller_with_no_attribute_route() -> None:
    """No conventional route for an ``[ApiController]`` (attribute routing only), a controller whose
    base class of another file may carry a ``[Route]``, an abstract, generic, nested or non-public
    class, an OData controller, a ``[NonController]``, a class named ``*Controller`` that nothing
    says is an MVC controller (no MVC namespace, no action result), another framework's controller
    (UIKit's), or an ``ApiController`` that is not Web API 2's (the app's own base may carry a route);
    a plain ``Controller`` beside them does get its route."""
    facts = cs(
        """
        [ApiController]
        public class OrdersController : ControllerBase
        {
            [HttpGet]
            public IActionResult List() => Ok();
        }
        public class BasketController : BaseApiController
        {
            public IActionResult Get() => Ok();
        }
        public abstract class PageController : Controller
        {
            public IActionResult Index() => View();
        }
        public class CrudController<T> : Controller
        {
            public IActionResult Index() => View();
        }
        public class Outer
        {
            public class InnerController : Controller
            {
                public IActionResult Index() => View();
            }
        }
        internal class HiddenController : Controller
        {
            public IActionResult Index() => View();
        }
        public class PeopleController : ODataController
        {
            public IActionResult Get() => Ok();
        }
        [NonController]
        public class ToolController : Controller
        {
            public IActionResult Index() => View();
        }
        public class PlayerController
        {
            public void Move(int x) { }
        }
        public class MainViewController : UIViewController
        {
            public override void ViewDidLoad() { }
            public void Refresh() { }
        }
        public class ItemsController : ApiController
        {
            public IEnumerable<Item> Get() => null;
            [HttpGet("{id}")]
            public Item GetOne(int id) => null;
        }
        public class HomeController : Controller
        {
            public IActionResult Index() => View();
        }
        """
    )
    # the one controller of the file that conventional routing reaches
    assert facts.http_routes == (route("*", "/Home/Index", 56, "HomeController.Index", "HomeController.Index"),)


def test_conventional_routing_by_the_templates_of_the_file() -> None:
    """Templates the file registers replace the default: ``MapControllerRoute``'s pattern (literal
    segments, defaults, optional parameters), ``MapAreaControllerRoute`` for its area's controllers
    only, MVC 5's ``MapRoute`` whose ``defaults`` make ``{id}`` optional."""
    facts = cs(
        """
        app.MapControllerRoute(name: "default", pattern: "app/{controller=Home}/{action=Index}/{id?}");
        app.MapAreaControllerRoute("admin", "Admin", "Admin/{controller=Home}/{action=Index}/{id?}");
        routes.MapRoute(name: "legacy", url: "{controller}/{action}/{id}", defaults: new { id = UrlParameter.Optional });
        routes.MapRoute("blog", "blog/{*article}", defaults: new { controller = "Blog", action = "Article" });

        public class HomeController : Controller
        {
            public IActionResult Index() => View();
            public IActionResult Show(int id) => View();
        }
        [Area("Admin")]
        public class UsersController : Controller
        {
            public IActionResult List() => View();
        }
        [Area("Billing")]
        public class InvoicesController : Controller
        {
            public IActionResult List() => View();
        }
        """
    )
    h = "HomeController"
    assert facts.http_routes == (
        route("*", "/app/Home/Index", 8, f"{h}.Index", f"{h}.Index"),
        route("*", "/Home/Index", 8, f"{h}.Index", f"{h}.Index"),
        route("*", "/app/Home/Show/{id}", 9, f"{h}.Show", f"{h}.Show"),
        route("*", "/Home/Show/{id}", 9, f"{h}.Show", f"{h}.Show"),
        route("*", "/Admin/Users/List", 14, "UsersController.List", "UsersController.List"),
    )


def test_web_api_2_controllers() -> None:
    """ASP.NET Web API 2 (``ApiController``): conventional ``api/{controller}/{id}``, an action's verb
    from ``[HttpX]``, else the verb its name starts with, else POST; ``[RoutePrefix]`` prefixes the
    attribute-routed actions (``~/`` escapes it), whose verb also comes from the name."""
    facts = cs(
        """
        using System.Web.Http;
        public class ValuesController : ApiController
        {
            public IEnumerable<string> Get() => null;
            public string GetValue(int id) => null;
            public void Post([FromBody] string value) { }
            public void DeleteValue(int id) { }
            [HttpPut]
            public void Replace(int id, [FromBody] string value) { }
            public void Reset() { }
        }
        [RoutePrefix("api/books")]
        public class BooksController : ApiController
        {
            [Route("{id:int}")]
            public Book GetBook(int id) => null;
            [Route("~/api/authors/{authorId}/books")]
            [HttpGet]
            public IEnumerable<Book> ByAuthor(int authorId) => null;
            public void Post(Book book) { }
        }
        """
    )
    v, b = "ValuesController", "BooksController"
    assert facts.http_routes == (
        route("GET", "/api/Values", 4, f"{v}.Get", f"{v}.Get"),
        route("GET", "/api/Values/{id}", 5, f"{v}.GetValue", f"{v}.GetValue"),
        route("POST", "/api/Values", 6, f"{v}.Post", f"{v}.Post"),
        route("DELETE", "/api/Values/{id}", 7, f"{v}.DeleteValue", f"{v}.DeleteValue"),
        route("PUT", "/api/Values/{id}", 9, f"{v}.Replace", f"{v}.Replace"),
        route("POST", "/api/Values", 10, f"{v}.Reset", f"{v}.Reset"),
        route("GET", "/api/books/{id}", 15, f"{b}.GetBook", f"{b}.GetBook"),
        route("GET", "/api/authors/{authorId}/books", 17, f"{b}.ByAuthor", f"{b}.ByAuthor"),
        route("POST", "/api/Books", 20, f"{b}.Post", f"{b}.Post"),
    )


# -- endpoints registered by ASP.NET helpers ----------------------------------------------------------

HELPERS = """
var app = builder.Build();
app.MapHealthChecks("/health");
app.MapHealthChecks("/alive", new HealthCheckOptions { Predicate = r => r.Tags.Contains("live") });
app.MapGroup("/ops").MapHealthChecks("ready");
app.UseHealthChecks("/hc");
app.UseHealthChecks(new PathString("/liveness"), 8081);
app.MapHealthChecksUI();
app.MapHealthChecks(healthPath);
app.MapForwarder("/product-images/{id}", "https+http://catalog-api", "/api/catalog/items/{id}/pic");
app.MapForwarder("/orders/{**rest}", "http://orders:8080/v1");
app.MapForwarder("/billing/{**catch-all}", builder.Configuration["Services:Billing"]!, "/{**catch-all}");
app.MapForwarder("/legacy/{**rest}", "http://legacy", b => b.AddPathRemovePrefix("/legacy"));
app.MapForwarder("/search", searchUrl);
"""


def test_health_checks_and_direct_forwarding() -> None:
    """``MapHealthChecks`` (under its ``MapGroup``) and ``UseHealthChecks`` (a ``PathString`` too) serve
    their path to any verb; YARP's ``MapForwarder`` is a route at its pattern and a call of any verb to
    the destination's host (``https+http://catalog-api`` -> ``catalog-api``, or its config key) with
    ``targetPath``, else the request's own path under the destination's base path; a transform that
    rewrites the path makes it computed. A path that cannot be read gives nothing."""
    facts = cs(HELPERS)
    assert facts.http_routes == (
        route("*", "/health", 2),
        route("*", "/alive", 3),
        route("*", "/ops/ready", 4),
        route("*", "/hc", 5),
        route("*", "/liveness", 6),
        route("*", "/product-images/{id}", 9),
        route("*", "/orders/{*rest}", 10),
        route("*", "/billing/{*catch-all}", 11),
        route("*", "/legacy/{*rest}", 12),
        route("*", "/search", 13),
    )
    assert facts.http_calls == (
        call("*", "/api/catalog/items/{id}/pic", 9, host="catalog-api", client="yarp"),
        call("*", "/v1/orders/{*rest}", 10, host="orders", client="yarp"),
        call("*", "/{*catch-all}", 11, address="config:Services.Billing", client="yarp"),
        call("*", "", 12, host="legacy", client="yarp", computed=True),
        call("*", "/search", 13, client="yarp"),
    )


# -- HttpClient of ASP.NET Core's test host --------------------------------------------------------------


def test_test_host_clients_call_the_service_under_test() -> None:
    """A client created by ``WebApplicationFactory<Program>`` (a field typed so, a fixture deriving from
    it, ``CreateClient``/``CreateDefaultClient``) or a ``TestServer`` talks to the service under test
    in process: its calls keep their relative path and no host; Aspire's testing
    ``CreateHttpClient("resource")`` talks to that resource."""
    facts = cs(
        """
        using Microsoft.AspNetCore.Mvc.Testing;
        public sealed class OrdersApiFixture : WebApplicationFactory<Program> { }
        public sealed class OrderingApiTests(OrdersApiFixture fixture, TestServer server)
        {
            private readonly WebApplicationFactory<Program> _webApplicationFactory = fixture;

            public async Task Works(DistributedApplication app)
            {
                var client = _webApplicationFactory.CreateClient();
                await client.GetAsync("api/orders");
                var versioned = fixture.CreateDefaultClient(new ApiVersionHandler());
                await versioned.PutAsJsonAsync($"/api/orders/{id}/ship", order);
                var raw = server.CreateClient();
                await raw.DeleteAsync("/api/orders/1");
                var web = app.CreateHttpClient("webfrontend");
                await web.GetAsync("/");
            }
        }
        """
    )
    w = "OrderingApiTests.Works"
    assert facts.http_calls == (
        call("GET", "/api/orders", 10, w),
        call("PUT", "/api/orders/{id}/ship", 12, w),
        call("DELETE", "/api/orders/1", 14, w),
        call("GET", "/", 16, w, host="webfrontend"),
    )


def test_event_bus_handler_class_and_registration_name_one_consumer() -> None:
    """The class handling an integration event and its ``AddSubscription<E, H>`` registration are two
    facts of the same consumer (the lead dedupes them): both ``kind="event"`` with the event's name, the
    class's on the line of its name with the class as symbol (past attributes and a primary
    constructor), the registration's where it is registered."""
    facts = cs(
        """
        [Obsolete("x")]
        public class OrderPaidIntegrationEventHandler(
            ILogger<OrderPaidIntegrationEventHandler> logger) :
            IIntegrationEventHandler<OrderPaidIntegrationEvent>
        {
            public Task Handle(OrderPaidIntegrationEvent @event) => Task.CompletedTask;
        }
        public static class Wiring
        {
            public static void Add(IHostApplicationBuilder builder) =>
                builder.AddRabbitMqEventBus("eventbus").AddSubscription<OrderPaidIntegrationEvent, OrderPaidIntegrationEventHandler>();
        }
        """
    )
    e = "OrderPaidIntegrationEvent"
    assert facts.messages == (
        consume("eventbus", e, 2, "event", "OrderPaidIntegrationEventHandler"),
        consume("eventbus", e, 11, "event", "Wiring.Add"),
    )


# -- Razor: Blazor components and Razor Pages ---------------------------------------------------------


def razor(path: str, text: str) -> FileFacts:
    return extract(path, textwrap.dedent(text).lstrip("\n").encode())


COMPONENT = """
\ufeff@page "/item/{itemId:int}"
@page "/product/{itemId:int}/{slug?}"
@* @page "/old" *@
@attribute [Route("/items/{*rest}")]
@using eShop.WebAppComponents.Catalog
@inject CatalogService CatalogService

<PageTitle>@item?.Name</PageTitle>
<NavLink href="@page">next @page</NavLink>
@page
@code {
    [Parameter] public int ItemId { get; set; }
}
"""


def test_blazor_components() -> None:
    """Each ``@page "template"`` directive of a ``.razor`` file (and ``@attribute [Route]``) is a GET
    route of framework ``blazor`` on its line, its handler the component (the file's name); a commented
    directive, ``@page`` without a template and ``@page`` in markup are none. The file keeps no
    language (the C# grammar does not read Razor)."""
    facts = razor("src/WebApp/Components/Pages/Item/ItemPage.razor", COMPONENT)
    assert facts.language == ""
    assert facts.http_routes == (
        route("GET", "/item/{itemId}", 1, "ItemPage", framework="blazor"),
        route("GET", "/product/{itemId}/{slug}", 2, "ItemPage", framework="blazor"),
        route("GET", "/items/{*rest}", 4, "ItemPage", framework="blazor"),
    )
    assert (
        razor("src/WebApp/Components/Layout/NavMenu.razor", '<NavLink href="cart">Cart</NavLink>\n').http_routes == ()
    )


def test_razor_pages() -> None:
    """A ``.cshtml`` file whose first directive is ``@page`` is a Razor page: its route is its path
    under ``Pages`` (``Areas/<area>/Pages`` adds the area), ``Index`` standing for its folder, a
    template appended (or replacing it when absolute), any verb, framework ``razorpages``, the
    ``@model`` as handler. An MVC view, a layout, and a page outside any ``Pages`` folder with a
    relative template have no route."""
    cases = {
        "src/Web/Pages/Index.cshtml": ("\ufeff@page\n@model IndexModel\n", "/", "IndexModel"),
        "src/Web/Pages/Orders/Details.cshtml": (
            '@page "{id:int}"\n@model DetailsModel\n',
            "/Orders/Details/{id}",
            "DetailsModel",
        ),
        "src/Web/Pages/Orders/Index.cshtml": ('@page "{status?}"\n', "/Orders/{status}", ""),
        "src/Web/Pages/Basket/Checkout.cshtml": ('@page "/checkout/{step}"\n', "/checkout/{step}", ""),
        "src/Web/Pages/Legacy.cshtml": ('@page "~/old-home"\n', "/old-home", ""),
        "src/Web/Areas/Identity/Pages/Account/Login.cshtml": (
            "@page\n@model LoginModel\n",
            "/Identity/Account/Login",
            "LoginModel",
        ),
        "src/Server/Pages/_Host.cshtml": ('@page "/"\n@namespace BlazorApp.Pages\n', "/", ""),
        "src/Web/Content/About.cshtml": ('@page "/about"\n', "/about", ""),
    }
    for path, (text, expected, handler) in cases.items():
        assert razor(path, text).http_routes == (route("*", expected, 1, handler, framework="razorpages"),), path
    for path, text in {
        "src/Web/Views/Home/Index.cshtml": "@model HomeViewModel\n<h1>@Model.Title</h1>\n",
        "src/Web/Pages/Shared/_Layout.cshtml": "<html>@RenderBody()</html>\n",
        "src/Web/Content/Contact.cshtml": '@page "{id}"\n',
        "src/Web/Pages/Draft.cshtml": "@* @page *@\n<p>draft</p>\n",
    }.items():
        assert razor(path, text).http_routes == (), path
    lines = razor("src/Web/Pages/Privacy.cshtml", "@* notes\n   more *@\n\n@page\n")
    assert lines.http_routes == (route("*", "/Privacy", 4, framework="razorpages"),)


SNIPPETS.extend([CONVENTIONAL, HELPERS])


RAZOR_SNIPPETS = [
    ("src/WebApp/Components/Pages/Item/ItemPage.razor", COMPONENT),
    ("src/Web/Pages/Orders/Details.cshtml", '@page "{id:int}"\n@model DetailsModel\n@* c *@\n<p>@Model.Id</p>\n'),
]


@st.composite
def mutated_razor(draw: st.DrawFn) -> tuple[str, bytes]:
    path, text = draw(st.sampled_from(RAZOR_SNIPPETS))
    data = bytearray(textwrap.dedent(text).encode())
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(data)))
        chunk = draw(
            st.binary(min_size=1, max_size=8) | st.sampled_from([b"@", b"*", b'"', b"\n", b"@page", b"\xef\xbb\xbf"])
        )
        data[at : at + draw(st.integers(0, len(chunk)))] = chunk
    return path, bytes(data)


@settings(max_examples=200, deadline=None)
@given(mutated_razor())
@example(("src/Pages/A.razor", b'@page "'))
@example(("Pages/Index.cshtml", b"@page"))
@example(("x.cshtml", b"@*"))
def test_any_mutation_of_a_razor_file(case: tuple[str, bytes]) -> None:
    """INV-LINKS-1: extractors of links are total: any bytes give facts, never an exception (a Razor
    file's routes too, the same every time)."""
    path, source = case
    facts = extract(path, source)
    assert not facts.error
    assert facts == extract(path, source)
    assert all(r.line >= 1 and r.path.startswith("/") for r in facts.http_routes)


def test_blazor_component_classes_with_route_attributes() -> None:
    """A component class of C# (deriving from ``ComponentBase``, or a ``.razor`` file's ``partial``
    code-behind) with ``[Route]`` is routed as its ``@page`` would be: GET, framework ``blazor``. A
    ``[Route]`` on another class is no component route."""
    facts = cs(
        """
        using Microsoft.AspNetCore.Components;
        [Route("/counter")]
        [Route("/counter/{start:int}")]
        public partial class Counter
        {
            [Parameter] public int Start { get; set; }
        }
        [Route("/weather")]
        public class Weather : ComponentBase { }
        [Route("/hello/{Name}")]
        public class Hello : IReturn<HelloResponse> { }
        """
    )
    assert facts.http_routes == (
        route("GET", "/counter", 2, "Counter", "Counter", "blazor"),
        route("GET", "/counter/{start}", 3, "Counter", "Counter", "blazor"),
        route("GET", "/weather", 8, "Weather", "Weather", "blazor"),
    )


def test_a_publish_wins_over_the_outbox_hand_off_of_the_same_event() -> None:
    """Saving an integration event to an outbox and publishing it in the same method is one produce:
    at the publish (where it leaves for the bus), not at the save."""
    facts = cs(
        """
        public class CatalogApi
        {
            public async Task Update(IEventService events, Item item)
            {
                var changed = new PriceChangedIntegrationEvent(item.Id);
                await events.SaveEventAndCatalogContextChangesAsync(changed);
                await events.PublishThroughEventBusAsync(changed);
            }

            public async Task Store(IEventService events, Item item)
            {
                await events.SaveEventAndCatalogContextChangesAsync(new ItemStoredIntegrationEvent(item.Id));
            }
        }
        """
    )
    assert [(m.name, m.line) for m in facts.messages] == [
        ("PriceChangedIntegrationEvent", 7),
        ("ItemStoredIntegrationEvent", 12),
    ]
