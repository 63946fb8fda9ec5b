"""C# HTTP calls made without ``HttpClient`` at the call, or with a URL the call does not spell: URL
builder methods of the file, typed clients whose base address is a member, request wrappers of the
workspace and Kiota request builders; each with the look-alikes that are none of them."""

from __future__ import annotations

import functools
import textwrap

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mesh.index._facts import FileFacts, HttpCall, Setting
from mesh.index.parse import _csharp


def cs(text: str) -> FileFacts:
    return _csharp.extract(textwrap.dedent(text).lstrip("\n").encode())


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


# -- 1. URL builder methods of the same file ----------------------------------------------------------

BUILDERS = """
using System.Net.Http.Json;

namespace Shop.Web.Services;

public class CatalogService(HttpClient httpClient)
{
    private readonly string remoteServiceBaseUrl = "api/catalog/";

    public async Task<CatalogResult> GetCatalogItems(int pageIndex, int pageSize, int? brand, int? type)
    {
        var uri = GetAllCatalogItemsUri(remoteServiceBaseUrl, pageIndex, pageSize, brand, type);
        var result = await httpClient.GetFromJsonAsync<CatalogResult>(uri);
        var versioned = await httpClient.GetFromJsonAsync<CatalogResult>($"{uri}&api-version=2.0");
        return result!;
    }

    public Task<Item?> Item(int id) => httpClient.GetFromJsonAsync<Item>(ItemUri(remoteServiceBaseUrl, id));
    public Task Formatted(int id) => httpClient.DeleteAsync(Formatted(remoteServiceBaseUrl, id));
    public Task Local(int id) => httpClient.GetAsync(this.LocalUri(id));
    public Task Static(int id) => httpClient.GetAsync(CatalogService.Pictures(id));
    public Task Defaulted() => httpClient.GetAsync(Paged(remoteServiceBaseUrl));
    public Task Named(int id) => httpClient.GetAsync(ItemUri(id: id, baseUri: "api/v2/"));
    public Task Early(string? filter) => httpClient.GetAsync(Filtered(remoteServiceBaseUrl, filter));

    private static string GetAllCatalogItemsUri(string baseUri, int pageIndex, int pageSize, int? brand, int? type)
    {
        string filterQs = string.Empty;
        if (type.HasValue)
        {
            filterQs += $"type={type.Value}&";
        }
        return $"{baseUri}items?{filterQs}pageIndex={pageIndex}&pageSize={pageSize}";
    }

    private static string ItemUri(string baseUri, int id) => baseUri + "items/" + id;
    private static string Formatted(string baseUri, int id) => string.Format("{0}items/{1}?x={{y}}", baseUri, id);
    private string LocalUri(int id)
    {
        var uri = $"{remoteServiceBaseUrl}local/{id}";
        return uri;
    }
    public static string Pictures(int id) => $"/api/pictures/{id}";
    private static string Paged(string baseUri, int page = 0) => $"{baseUri}items?page={page}";
    private static string Filtered(string baseUri, string? filter)
    {
        if (string.IsNullOrEmpty(filter))
        {
            return $"{baseUri}items";
        }
        return $"{baseUri}items?filter={filter}";
    }
}
"""


def test_url_builder_methods_of_the_file_are_expanded_at_the_call() -> None:
    """A method of the file returning a string built from its parameters (interpolation, ``+``,
    ``string.Format``, a local returned, early returns of one shape; called as ``M``, ``this.M``,
    ``Owner.M``, with defaults and named arguments) is read with the call's arguments in their place;
    the call keeps its own line and its client's base address."""
    facts = cs(BUILDERS)
    c, a = "CatalogService", "client:CatalogService"
    assert facts.http_calls == (
        call("GET", "/api/catalog/items", 12, f"{c}.GetCatalogItems", address=a),
        call("GET", "/api/catalog/items", 13, f"{c}.GetCatalogItems", address=a),
        call("GET", "/api/catalog/items/{id}", 17, f"{c}.Item", address=a),
        call("DELETE", "/api/catalog/items/{id}", 18, f"{c}.Formatted", address=a),
        call("GET", "/api/catalog/local/{id}", 19, f"{c}.Local", address=a),
        call("GET", "/api/pictures/{id}", 20, f"{c}.Static", address=a),
        call("GET", "/api/catalog/items", 21, f"{c}.Defaulted", address=a),
        call("GET", "/api/v2/items/{id}", 22, f"{c}.Named", address=a),
        call("GET", "/api/catalog/items", 23, f"{c}.Early", address=a),
    )


def test_url_builders_that_cannot_be_read_leave_the_call_computed() -> None:
    """Returns of different shapes, a parameter reassigned, a builder called from a builder (one
    level only), a method of another file, one returning no string, ambiguous overloads: the URL is
    computed (reported, never linked), never guessed."""
    facts = cs(
        """
        public class Client(HttpClient http)
        {
            public Task A(bool admin) => http.GetAsync(Either(admin));
            public Task B(string b) => http.GetAsync(Reassigned(b));
            public Task C() => http.GetAsync(Outer("api/"));
            public Task D() => http.GetAsync(UriBuilders.Items("api/"));
            public Task E() => http.GetAsync(Count("api/").ToString());
            public Task F() => http.GetAsync(Overloaded("api/"));
            public Task G() => http.GetAsync(Recursive("api/"));

            private static string Either(bool admin)
            {
                if (admin) return "/admin/items";
                return "/api/items";
            }
            private static string Reassigned(string b)
            {
                b = b.TrimEnd('/');
                return $"{b}/items";
            }
            private static string Outer(string b) => Inner(b) + "x";
            private static string Inner(string b) => b + "inner/";
            private static int Count(string b) => b.Length;
            private static string Overloaded(string b) => b + "one";
            private static string Overloaded(string b, int page = 1) => b + "two";
            private static string Recursive(string b) => b.Length > 9 ? b : Recursive(b + "x");
            public Task Control() => http.GetAsync(Inner("api/"));
        }
        """
    )
    computed = [(c.line, c.computed, c.path) for c in facts.http_calls]
    assert computed == [*((line, True, "") for line in range(3, 10)), (27, False, "/api/inner/")]


def test_a_builder_is_read_once_per_call_and_only_with_few_returns() -> None:
    """A builder with more ``return`` statements than a URL builder has (a lookup table) is not read;
    many calls of one builder cost one expansion each (a large file stays fast)."""
    table = "\n".join(f'        if (kind == {i}) return $"{{b}}kind/{i}";' for i in range(9))
    calls = "\n".join(f'    public Task C{i}(int x) => http.GetAsync(Build("api/", x));' for i in range(300))
    facts = cs(
        "public class A(HttpClient http)\n{\n"
        "    private static string Table(string b, int kind)\n    {\n" + table + "\n"
        '        return $"{b}kind";\n    }\n'
        '    private static string Build(string b, int x) => $"{b}items/{x}";\n'
        '    public Task T(int k) => http.GetAsync(Table("api/", k));\n' + calls + "\n}\n"
    )
    assert facts.http_calls[0].computed and facts.http_calls[0].line == 17
    assert [c.path for c in facts.http_calls[1:]] == ["/api/items/{x}"] * 300


def test_string_format_and_interpolated_builders_read_where_the_url_is_written() -> None:
    """``string.Format`` (with a format provider first, ``{{``/``}}`` braces) and an interpolation of a
    URL holding a base and a path are read in place, as a concatenation is."""
    facts = cs(
        """
        var http = new HttpClient();
        var api = Environment.GetEnvironmentVariable("ORDERS_URL");
        var root = $"{api}/api/";
        await http.GetAsync(string.Format(CultureInfo.InvariantCulture, "{0}/orders/{1}", api, id));
        await http.GetAsync($"{root}orders/{id}");
        await http.GetAsync(string.Format("{0}/orders/{2}", api, id));
        """
    )
    assert facts.http_calls == (
        call("GET", "/orders/{id}", 4, address="env:ORDERS_URL"),
        call("GET", "/api/orders/{id}", 5, address="env:ORDERS_URL"),
        call("GET", "", 6, computed=True),  # a placeholder the call does not fill
    )


# -- 2. typed clients whose base address is a member ----------------------------------------------------

MEMBERS = """
using eShop.HybridApp.Services;

namespace eShop.HybridApp;

public static class MauiProgram
{
    internal static string MobileBffHost = DeviceInfo.Platform == DevicePlatform.Android ? "http://10.0.2.2:11632/" : "http://localhost:11632/";
    private const string CatalogUrl = "http://catalog-api:8080/api/";
    private static string Basket => "http://basket-api/";
    private static readonly string Ordering = Debugger.IsAttached ? "http://ordering-api:5000/" : "http://ordering-api/";
    private static readonly string Billing = Environment.GetEnvironmentVariable("BILLING_URL") ?? "http://billing";
    private static string Injected;
    private static string VaultTokenUrl;

    public static MauiApp CreateMauiApp(string fromCaller)
    {
        var builder = MauiApp.CreateBuilder();
        builder.Services.AddHttpClient<CatalogService>(o => o.BaseAddress = new(MobileBffHost));
        builder.Services.AddHttpClient<CatalogClient>(o => o.BaseAddress = new Uri(CatalogUrl));
        builder.Services.AddHttpClient<BasketClient>(o => o.BaseAddress = new Uri(MauiProgram.Basket, UriKind.Absolute));
        builder.Services.AddHttpClient<OrderingClient>(o => o.BaseAddress = new(Ordering));
        builder.Services.AddHttpClient<BillingClient>(o => o.BaseAddress = new(Billing));
        builder.Services.AddHttpClient<ShippingClient>(o => o.BaseAddress = new(Endpoints.ShippingUrl));
        builder.Services.AddHttpClient<InjectedClient>(o => o.BaseAddress = new(Injected));
        builder.Services.AddHttpClient<ConfigClient>(o => o.BaseAddress = new Uri(builder.Configuration["Services:Config"]!));
        builder.Services.AddHttpClient<EnvClient>(o => o.BaseAddress = new Uri(Environment.GetEnvironmentVariable("ENV_URL")!));
        var local = DeviceInfo.Platform == DevicePlatform.Android ? "http://10.0.2.2/" : "http://localhost/";
        builder.Services.AddHttpClient<LocalClient>(o => o.BaseAddress = new(local));
        builder.Services.AddHttpClient<ParameterClient>(o => o.BaseAddress = new(fromCaller));
        builder.Services.AddHttpClient<Relative>(o => o.BaseAddress = new Uri(new Uri(CatalogUrl), "v2"));
        builder.Services.AddHttpClient<Vault>(o => o.BaseAddress = new(VaultTokenUrl));
        return builder.Build();
    }
}
"""


def test_typed_clients_whose_base_address_is_a_member() -> None:
    """``BaseAddress = new(Member)``: the host when the member (field, property or constant of the
    file) holds a URL literal, or a conditional of URLs sharing a host; ``const:Owner.Name`` whenever
    the member is named (another file's constant too); an environment variable or a configuration key
    the value traces to wins over the name. A local or a parameter is no member, a secret-looking member
    is never named (INV-LINKS-3): no setting unless a host is read."""
    facts = cs(MEMBERS)
    assert facts.settings == (
        Setting("client:CatalogService", 18, env="const:MauiProgram.MobileBffHost"),
        Setting("client:CatalogClient", 19, host="catalog-api", env="const:MauiProgram.CatalogUrl", path="/api/"),
        Setting("client:BasketClient", 20, host="basket-api", env="const:MauiProgram.Basket"),
        Setting("client:OrderingClient", 21, host="ordering-api", env="const:MauiProgram.Ordering"),
        Setting("client:BillingClient", 22, host="billing", env="BILLING_URL"),
        Setting("client:ShippingClient", 23, env="const:Endpoints.ShippingUrl"),
        Setting("client:InjectedClient", 24, env="const:MauiProgram.Injected"),
        Setting("client:ConfigClient", 25, env="config:Services.Config"),
        Setting("client:EnvClient", 26, env="ENV_URL"),
        Setting("client:Relative", 30, host="catalog-api", path="/api/v2"),
    )


def test_a_client_holder_whose_base_address_is_an_initialised_member() -> None:
    """A holder given ``BaseAddress = new Uri(Member)`` sends its relative URLs to ``const:Owner.Name``
    when the member's value names no single host; a member declared without a value leaves the typed
    client's own base address in place."""
    facts = cs(
        """
        public class Gateway
        {
            private static readonly string Host = Flags.Local ? "http://localhost:5000/" : "http://gateway/";
            private readonly string _configured;
            private readonly HttpClient _http;
            public Gateway(HttpClient http, IOptions<Options> options) { _http = http; _configured = options.Value.Url; }

            public async Task Run()
            {
                var client = new HttpClient { BaseAddress = new Uri(Host) };
                await client.GetAsync("api/orders");
                _http.BaseAddress = new Uri(_configured);
                await _http.GetAsync("api/items");
            }
        }
        """
    )
    assert facts.http_calls == (
        call("GET", "/api/orders", 11, "Gateway.Run", address="const:Gateway.Host"),
        call("GET", "/api/items", 13, "Gateway.Run", address="client:Gateway"),
    )
    assert facts.settings == (Setting("client:Gateway", 12, env="const:Gateway._configured"),)


# -- 3. request wrappers ------------------------------------------------------------------------------------

WRAPPERS = """
using eShop.ClientApp.Helpers;
using eShop.ClientApp.Services.RequestProvider;

namespace eShop.ClientApp.Services.Catalog;

public class CatalogService : ICatalogService
{
    private const string ApiUrlBase = "api/catalog";
    private const string ApiVersion = "api-version=2.0";
    private readonly IRequestProvider _requestProvider;
    private readonly ISettingsService _settingsService;
    private readonly IConfiguration _configuration;

    public CatalogService(ISettingsService settingsService, IRequestProvider requestProvider, IConfiguration configuration)
    {
        _settingsService = settingsService;
        _requestProvider = requestProvider;
        _configuration = configuration;
    }

    public async Task<IEnumerable<CatalogItem>> FilterAsync(int brandId, int typeId)
    {
        var uri = UriHelper.CombineUri(_settingsService.GatewayCatalogEndpointBase,
            $"{ApiUrlBase}//items?type={typeId}&brand={brandId}&{ApiVersion}");
        var catalog = await _requestProvider.GetAsync<CatalogRoot>(uri).ConfigureAwait(false);
        return catalog?.Data;
    }

    public async Task CreateAsync(Order order, string token)
    {
        var uri = $"{UriHelper.CombineUri(_settingsService.GatewayOrdersEndpointBase, "api/orders")}?{ApiVersion}";
        await _requestProvider.PostAsync(uri, order, token, "x-requestid");
        await _requestProvider.PutAsync($"{ApiUrlBase}/items/{order.Id}", order);
        await _requestProvider.DeleteAsync("/api/basket/" + order.BuyerId);
        await _requestProvider.GetAsync<Item>(new Uri(_configuration["Services:Catalog"]!, "api/items"));
        await _requestProvider.GetAsync<Item>(Url.Combine("http://catalog-api:8080/", "/api/", "/items/"));
        await _requestProvider.PatchAsync(UriHelper.CombineUri(new[] { "api", "orders", "draft" }), order);
        await _requestProvider.DeleteAsync($"{_settingsService.GatewayOrdersEndpointBase}api/orders/{order.Id}");
    }
}
"""


def test_request_wrappers_of_the_workspace() -> None:
    """A verb + ``Async`` of a field of a workspace type with a URL-like argument (a literal path, an
    interpolation, a local assigned from one, a URL-joining helper whose literal parts are joined by
    one ``/``, ``new Uri(base, "api/x")``): a call, the wrapper's type as its client; a base address
    that is not literal is traced like any other."""
    facts = cs(WRAPPERS)
    w, f, c = "IRequestProvider", "CatalogService.FilterAsync", "CatalogService.CreateAsync"
    assert facts.http_calls == (
        call("GET", "/api/catalog/items", 25, f, client=w),
        call("POST", "/api/orders", 32, c, client=w),
        call("PUT", "/api/catalog/items/{}", 33, c, client=w),
        call("DELETE", "/api/basket/{}", 34, c, client=w),
        call("GET", "/api/items", 35, c, address="config:Services.Catalog", client=w),
        call("GET", "/api/items/", 36, c, host="catalog-api", client=w),
        call("PATCH", "/api/orders/draft", 37, c, client=w),
        call("DELETE", "/api/orders/{}", 38, c, client=w),
    )


def test_uri_builders_give_the_url_they_build() -> None:
    """``System.UriBuilder``: the base's scheme and host (or the ``Host`` set), the ``Path`` set in its
    initializer or later, which replaces the base's own path; ``.Uri`` and ``ToString()`` read alike;
    a ``Path`` set twice is not read."""
    facts = cs(
        """
        public class CatalogService
        {
            private readonly IRequestProvider _requestProvider;
            private readonly HttpClient _http;

            public async Task Run(int typeId, int brandId)
            {
                UriBuilder builder = new UriBuilder(GlobalSetting.Instance.CatalogEndpoint);
                builder.Path = string.Format("api/v1/catalog/items/type/{0}/brand/{1}", typeId, brandId);
                string uri = builder.ToString();
                await _requestProvider.GetAsync<CatalogRoot>(uri);
                var units = new UriBuilder("http://gateway:5000/old/") { Path = $"api/units/{typeId}" };
                await _http.GetAsync(units.Uri);
                var moved = new UriBuilder("http://old:81/keep/") { Host = "orders" };
                await _http.GetAsync(moved.Uri.ToString());
                var twice = new UriBuilder("http://catalog/");
                twice.Path = "api/a";
                twice.Path = "api/b";
                await _http.GetAsync(twice.Uri);
            }
        }
        """
    )
    r = "CatalogService.Run"
    assert facts.http_calls == (
        call(
            "GET",
            "/api/v1/catalog/items/type/{typeId}/brand/{brandId}",
            11,
            r,
            address="const:Instance.CatalogEndpoint",
            client="IRequestProvider",
        ),
        call("GET", "/api/units/{typeId}", 13, r, host="gateway"),
        call("GET", "/keep/", 15, r, host="orders"),
        call("GET", "", 19, r, computed=True),
    )


def test_look_alikes_of_request_wrappers() -> None:
    """Caches, stores, repositories, settings, static classes, untyped locals, arguments that are no
    URL (a key, an id, a cache key with ``:``, a file path joined by ``Path.Combine``), verbs with more
    than ``Async`` in their name: no call."""
    facts = cs(
        """
        public class Basket
        {
            private readonly IDistributedCache _cache;
            private readonly IBasketRepository _repository;
            private readonly ISettingsService _settings;
            private readonly IBasketClient _client;
            private readonly IOrderService _orders;

            public async Task Run(string key, Order order, string folder)
            {
                await _cache.GetAsync(key);
                await _cache.GetAsync("basket/" + key);
                await _repository.GetAsync(order.Id);
                await _repository.DeleteAsync("orders/1");
                await _settings.GetAsync("catalog/url");
                await SecureStorage.GetAsync("auth/token");
                await _client.GetAsync($"basket:{key}");
                await _client.GetAsync(key);
                await _client.PostAsync(Path.Combine(folder, "orders.json"), order);
                await _client.GetItemsAsync("api/items");
                await _orders.GetAsync($"{order.Prefix}/orders");
                var untyped = Create();
                await untyped.GetAsync("api/items");
                await _client.GetAsync("api/basket/" + key);
            }
        }
        """
    )
    assert facts.http_calls == (call("GET", "/api/basket/{key}", 24, "Basket.Run", client="IBasketClient"),)


# -- 4. Kiota request builders ------------------------------------------------------------------------------

KIOTA = """
using Microsoft.Kiota.Abstractions.Authentication;
using Microsoft.Kiota.Http.HttpClientLibrary;
using Shop.Client;

var authProvider = new AnonymousAuthenticationProvider();
var adapter = new HttpClientRequestAdapter(authProvider) { BaseUrl = "http://catalog-api:8080" };
var client = new CatalogClient(adapter);
var items = await client.Catalog.Products.GetAsync();
var one = await client.Catalog.Products["id"].GetAsync();
var byId = await client.Catalog.Products.ByProductId(productId).GetAsync(config => config.QueryParameters.Expand = "x");
await client.Catalog.Products.PostAsync(new Product { Name = "x" });
await client.Catalog.Products[productId].PatchAsync(body, cancellationToken: ct);
await client.Catalog.Products[productId].DeleteAsync(null, ct);
var raw = await client.Catalog.Products.WithUrl(next).GetAsync();
"""


def test_kiota_request_builders() -> None:
    """Kiota's fluent requests: a property is a segment, an indexer or ``ByXxx(..)`` a path parameter,
    the verb the method's, ``client:<RootType>`` the address; the request adapter's ``BaseUrl`` the
    client is created with is that client's setting; ``WithUrl`` makes the URL computed."""
    facts = cs(KIOTA)
    k, a = "kiota", "client:CatalogClient"
    assert facts.http_calls == (
        call("GET", "/catalog/products", 8, address=a, client=k),
        call("GET", "/catalog/products/id", 9, address=a, client=k),
        call("GET", "/catalog/products/{productId}", 10, address=a, client=k),
        call("POST", "/catalog/products", 11, address=a, client=k),
        call("PATCH", "/catalog/products/{productId}", 12, address=a, client=k),
        call("DELETE", "/catalog/products/{productId}", 13, address=a, client=k),
        call("GET", "", 14, address=a, client=k, computed=True),
    )
    assert facts.settings == (Setting("client:CatalogClient", 7, host="catalog-api"),)


def test_kiota_clients_registered_with_a_base_url() -> None:
    """The adapter's ``BaseUrl`` set after it is created, or given inline; from an environment
    variable or a member: the client's setting, wherever its requests are made. An object created
    with no request adapter gives none."""
    facts = cs(
        """
        var adapter = new HttpClientRequestAdapter(new AnonymousAuthenticationProvider());
        adapter.BaseUrl = Environment.GetEnvironmentVariable("ORDERS_URL");
        var orders = new OrdersClient(adapter);
        builder.Services.AddSingleton(new PaymentsClient(new HttpClientRequestAdapter(auth) { BaseUrl = Urls.Payments }));
        var plain = new ReportsClient(options);
        """
    )
    assert facts.settings == (
        Setting("client:OrdersClient", 3, env="ORDERS_URL"),
        Setting("client:PaymentsClient", 4, env="const:Urls.Payments"),
    )


def test_kiota_clients_injected_give_their_type_as_the_address() -> None:
    """A Kiota client held in a field or a parameter (no request adapter in sight) is
    ``client:<RootType>``; in a file using ``Microsoft.Kiota`` any root counts, named like a client
    or not."""
    facts = cs(
        """
        public class Storefront(CatalogApiClient catalog)
        {
            private readonly OrdersClient _orders;
            public Task Orders(int id) => _orders.Api.V1.Orders[id].GetAsync();
            public Task Brands() => catalog.Api.Catalog.CatalogBrands.GetAsGetResponseAsync();
        }
        """
    )
    assert facts.http_calls == (
        call("GET", "/api/v1/orders/{id}", 4, "Storefront.Orders", address="client:OrdersClient", client="kiota"),
        call(
            "GET",
            "/api/catalog/catalogBrands",
            5,
            "Storefront.Brands",
            address="client:CatalogApiClient",
            client="kiota",
        ),
    )
    kiota_file = cs(
        """
        using Microsoft.Kiota.Abstractions;
        public class Users(IApi api)
        {
            public Task Me() => api.Me.Messages.GetAsync();
        }
        """
    )
    assert kiota_file.http_calls == (call("GET", "/me/messages", 4, "Users.Me", address="client:IApi", client="kiota"),)


def test_look_alikes_of_kiota_request_builders() -> None:
    """Chains rooted at no client (a DbContext, a repository), at an SDK's client (Elasticsearch,
    Stripe), or passing what no Kiota request method takes (an id, a key), are no Kiota requests."""
    facts = cs(
        """
        public class Jobs(OrderingContext context, ElasticClient elastic, StripeClient stripe, IRepo repo, ShopClient shop)
        {
            public async Task Run(string index, string id)
            {
                await context.Orders.GetAsync();
                await elastic.Indices.DeleteAsync(index);
                await stripe.V1.Customers.GetAsync(id);
                await stripe.V1.Balance.GetAsync();
                await repo.Items.GetAsync();
                await shop.Catalog.GetAsync(id);
                await shop.GetAsync();
                await shop.Catalog.Items.GetAsync(cancellationToken: default);
            }
        }
        """
    )
    assert facts.http_calls == (
        call("GET", "/catalog/items", 12, "Jobs.Run", address="client:ShopClient", client="kiota"),
    )


# -- the whole extractor --------------------------------------------------------------------------------

SNIPPETS = [BUILDERS, MEMBERS, WRAPPERS, KIOTA]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A snippet with a few random byte-level mutations (deletions, insertions, overwrites)."""
    data = bytearray(textwrap.dedent(draw(st.sampled_from(SNIPPETS))).encode())
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["delete", "insert", "overwrite"]))
        chunk = draw(
            st.binary(min_size=1, max_size=8)
            | st.sampled_from([b"(", b")", b"{", b"}", b'"', b"$", b"[", b"]", b"?", b":", b"return ", b"+"])
        )
        if kind == "delete":
            del data[at : at + len(chunk)]
        elif kind == "insert":
            data[at:at] = chunk
        else:
            data[at : at + len(chunk)] = chunk
    return bytes(data)


@settings(max_examples=200, deadline=None)
@given(mutated())
@example(b'string U(string b) => U(b); var h = new HttpClient(); h.GetAsync(U("a/"));')
@example(
    b'class A { static string U(string a) { return string.Format("{0}{1}{", a); } void M(HttpClient h) => h.GetAsync(U("x/")); }'
)
@example(b"x.A[y].B.ByC().GetAsync(); _p.GetAsync<T>(UriHelper.CombineUri());")
def test_any_mutation_gives_facts_never_an_exception(source: bytes) -> None:
    """INV-LINKS-1: total and deterministic on any bytes."""
    facts = _csharp.extract(source)
    assert facts == _csharp.extract(source)
    assert all(f.line >= 1 for f in (*facts.http_calls, *facts.settings))
    assert _snippets_give_facts()


@functools.cache
def _snippets_give_facts() -> bool:
    return all(cs(snippet).http_calls or cs(snippet).settings for snippet in SNIPPETS)
