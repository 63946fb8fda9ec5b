"""HTTP routes, HTTP calls, messaging and link constants of Java and Kotlin files (``_jvm_links``).

One test per framework or library, each with a realistic snippet and the look-alikes it must leave
alone; then prefixes, computed URLs, addresses, constants, and the totality and cost of the pass.
"""

from __future__ import annotations

import textwrap
import time

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mesh.index._facts import Constant, FileFacts, HttpCall, HttpRoute, MessageFact, Setting
from mesh.index.parse import _java, _kotlin, extract


def java(source: str) -> FileFacts:
    return _java.extract(textwrap.dedent(source).lstrip("\n").encode())


def kotlin(source: str) -> FileFacts:
    return _kotlin.extract(textwrap.dedent(source).lstrip("\n").encode())


def routes(facts: FileFacts) -> list[tuple[str, str, int, str]]:
    """(method, path, line, handler) of each route."""
    return [(route.method, route.path, route.line, route.handler) for route in facts.http_routes]


def calls(facts: FileFacts) -> list[tuple[str, str, int, str, str, str]]:
    """(method, path, line, host, address, client) of each call; a computed one has path "?"."""
    return [
        (call.method, "?" if call.computed else call.path, call.line, call.host, call.address, call.client)
        for call in facts.http_calls
    ]


def messages(facts: FileFacts) -> list[tuple[str, str, str, int, str, str, str]]:
    """(role, broker, name, line, kind, address, client) of each message fact; a computed name is "?"."""
    return [
        (fact.role, fact.broker, "?" if fact.computed else fact.name, fact.line, fact.kind, fact.address, fact.client)
        for fact in facts.messages
    ]


# -- servers ---------------------------------------------------------------------------------------


def test_spring_mvc_class_prefix_method_mappings_and_path_arrays() -> None:
    facts = java(
        """
        package com.acme.orders;

        import org.springframework.web.bind.annotation.*;

        @RestController
        @RequestMapping({"/api/v1", "/v1"})
        public class OrdersController {
            @GetMapping("/orders/{id}")
            public Order get(@PathVariable String id) { return null; }

            @RequestMapping(value = {"/orders", "/batch"}, method = {RequestMethod.POST, RequestMethod.PUT})
            public Order save(@RequestBody Order order) { return order; }

            @DeleteMapping
            public void clear() {}

            @PatchMapping(path = "/orders/{id:[0-9]+}/lines/**")
            public void patch() {}

            @RequestMapping("/any")
            public void any() {}

            public void helper() {}
        }
        """
    )
    assert routes(facts) == [
        ("GET", "/api/v1/orders/{id}", 8, "OrdersController.get"),
        ("GET", "/v1/orders/{id}", 8, "OrdersController.get"),
        ("POST", "/api/v1/orders", 11, "OrdersController.save"),
        ("PUT", "/api/v1/orders", 11, "OrdersController.save"),
        ("POST", "/api/v1/batch", 11, "OrdersController.save"),
        ("PUT", "/api/v1/batch", 11, "OrdersController.save"),
        ("POST", "/v1/orders", 11, "OrdersController.save"),
        ("PUT", "/v1/orders", 11, "OrdersController.save"),
        ("POST", "/v1/batch", 11, "OrdersController.save"),
        ("PUT", "/v1/batch", 11, "OrdersController.save"),
        ("DELETE", "/api/v1", 14, "OrdersController.clear"),
        ("DELETE", "/v1", 14, "OrdersController.clear"),
        ("PATCH", "/api/v1/orders/{id}/lines/{*path}", 17, "OrdersController.patch"),
        ("PATCH", "/v1/orders/{id}/lines/{*path}", 17, "OrdersController.patch"),
        ("*", "/api/v1/any", 20, "OrdersController.any"),
        ("*", "/v1/any", 20, "OrdersController.any"),
    ]
    assert {route.framework for route in facts.http_routes} == {"spring"}
    assert facts.http_routes[0].symbol == "OrdersController.get"


def test_spring_kotlin_controller_whose_annotations_the_grammar_glues_to_an_expression() -> None:
    source = """
        package com.acme.kt

        import org.springframework.web.bind.annotation.*

        @RestController
        @RequestMapping("/api")
        class OrderController(private val service: OrderService) {
            @GetMapping("/orders/{id}", "/o/{id}")
            fun get(@PathVariable id: String) = service.find(id)

            @PostMapping(value = ["/orders"])
            fun create(@RequestBody order: Order) = order
        }
        """
    facts = kotlin(source)
    assert routes(facts) == [
        ("GET", "/api/orders/{id}", 8, "OrderController.get"),
        ("GET", "/api/o/{id}", 8, "OrderController.get"),
        ("POST", "/api/orders", 11, "OrderController.create"),
    ]
    # the retry that reads the class also gives its definitions, lines unmoved
    assert [(d.name, d.kind, d.line, d.end_line) for d in facts.definitions] == [
        ("OrderController", "class", 7, 13),
        ("get", "method", 9, 9),
        ("create", "method", 12, 12),
    ]


#: Mutated Kotlin whose bytes parse in milliseconds, but which the pinned grammar cannot parse once its
#: top-level annotations are unglued (gigabytes, then a crash): found by fuzzing the link pass.
_UNGLUE_BOMB: bytes = (
    b'@r@g("")\n'
    b'class r(a:<g>,@V("$l")l:g)("")\n'
    b'fun(d:g){"$d"\n'
    b'""\n'
    b"      \xff\n"
    b"    fun create(@RequestBody order: Order) ::= order\n"
    b"\n"
    b'    @KafkaListener(topics = [Topics.REFUNDS, "payments"])\n'
    b"    fun onRefund(message: String) {}\n"
    b"\n"
    b"    companion object {\n"
    b'        const val AUDIT_TOPIC = "audit"\n'
    b"    }\n"
    b"}\n"
    b"\n"
    b"object Topics {\n"
    b'    const val ORDERS = "orders"\n'
    b'    const val REFUNDS = "refunds"\n'
    b"}\n"
    b"\n"
    b"fun routes(handler: Handl())\n"
    b'            .path("/api", b'
)


def test_a_retry_parse_the_grammar_cannot_afford_is_given_up() -> None:
    start = time.process_time()
    facts = _kotlin.extract(_UNGLUE_BOMB)
    assert time.process_time() - start < 5.0
    assert facts.error.startswith("syntax error at line")


def test_spring_functional_routes_with_nested_prefixes() -> None:
    facts = java(
        """
        import org.springframework.web.reactive.function.server.RouterFunction;
        import org.springframework.web.reactive.function.server.RouterFunctions;
        import static org.springframework.web.reactive.function.server.RequestPredicates.*;
        import static org.springframework.web.reactive.function.server.RouterFunctions.*;

        public class Routes {
            RouterFunction<ServerResponse> routes(OrderHandler handler) {
                return route(GET("/orders/{id}").and(accept(APPLICATION_JSON)), handler::get)
                    .andRoute(POST("/orders"), handler::create)
                    .andNest(path("/admin"), route(DELETE("/orders/{id}"), handler::delete));
            }

            RouterFunction<ServerResponse> builder(OrderHandler handler) {
                return RouterFunctions.route()
                    .GET("/health", request -> ServerResponse.ok().build())
                    .path("/api", b -> b.GET("/items", handler::items).POST("/items", this::add))
                    .nest(path("/v2"), b -> b.PUT("/items/{id}", handler::update))
                    .build();
            }

            void client(java.net.http.HttpRequest.Builder b) {
                b.POST(HttpRequest.BodyPublishers.ofString("{}"));
            }
        }
        """
    )
    assert routes(facts) == [
        ("GET", "/orders/{id}", 8, "handler.get"),
        ("POST", "/orders", 9, "handler.create"),
        ("DELETE", "/admin/orders/{id}", 10, "handler.delete"),
        ("GET", "/health", 15, ""),
        ("GET", "/api/items", 16, "handler.items"),
        ("POST", "/api/items", 16, "add"),
        ("PUT", "/v2/items/{id}", 17, "handler.update"),
    ]
    assert facts.http_routes[0].symbol == "Routes.routes"


def test_spring_functional_router_dsl_in_kotlin() -> None:
    facts = kotlin(
        """
        import org.springframework.web.reactive.function.server.coRouter

        fun routes(handler: Handler) = coRouter {
            GET("/ping", handler::ping)
            "/admin".nest {
                POST("/reindex") { ok().buildAndAwait() }
            }
        }
        """
    )
    assert routes(facts) == [("GET", "/ping", 4, "handler.ping"), ("POST", "/admin/reindex", 6, "")]
    assert facts.http_routes[1].symbol == "routes"


def test_a_placeholder_prefix_is_read_as_its_default_and_left_out_without_one() -> None:
    facts = java(
        """
        import org.springframework.web.bind.annotation.*;

        @RestController
        @RequestMapping("${openapi.base-path:/v2}")
        class PetController {
            @GetMapping("/pets")
            void pets() {}
        }

        @RestController
        @RequestMapping("${openapi.base-path}")
        class StoreController {
            @GetMapping("/orders")
            void orders() {}
        }

        @RestController
        @RequestMapping(ApiPaths.USERS)
        class UserController {
            @GetMapping("/{id}")
            void user() {}
        }
        """
    )
    assert routes(facts) == [("GET", "/v2/pets", 6, "PetController.pets")]


def test_ktor_routes_of_another_file_are_mounted_under_the_prefix() -> None:
    facts = kotlin(
        """
        import io.ktor.server.application.*
        import io.ktor.server.routing.*
        import com.acme.routes.customerRouting
        import com.acme.routes.orderRouting
        import kotlin.math.max

        fun Application.module() {
            routing {
                customerRouting()
                route("/api/v1") {
                    orderRouting()
                    max(1, 2)
                }
            }
        }
        """
    )
    assert facts.http_routes == (
        HttpRoute("*", "/api/v1", 11, symbol="module", framework="ktor", mount="com.acme.routes.orderRouting"),
    )


def test_jax_rs_resources_and_a_sub_resource_locator() -> None:
    facts = java(
        """
        import jakarta.ws.rs.*;

        @Path("/catalog")
        public class CatalogResource {
            @GET
            @Path("/items/{id: [0-9]+}")
            public Item item(@PathParam("id") long id) { return null; }

            @POST
            public Item add(Item item) { return item; }

            @Path("sub")
            public SubResource sub() { return null; }
        }
        """
    )
    assert routes(facts) == [
        ("GET", "/catalog/items/{id}", 5, "CatalogResource.item"),
        ("POST", "/catalog", 9, "CatalogResource.add"),
    ]
    assert {route.framework for route in facts.http_routes} == {"jax-rs"}


def test_micronaut_controllers_declarative_clients_and_kafka() -> None:
    facts = java(
        """
        import io.micronaut.http.annotation.*;
        import io.micronaut.http.client.annotation.Client;
        import io.micronaut.configuration.kafka.annotation.*;

        @Controller("/books")
        public class BookController {
            @Get("/{isbn}")
            public Book show(String isbn) { return null; }

            @Post
            public Book save(@Body Book book) { return book; }
        }

        @Client("inventory")
        interface InventoryClient {
            @Get("/stock/{isbn}")
            Stock stock(String isbn);
        }

        @KafkaListener(groupId = "books")
        class BookListener {
            @Topic("book-created")
            void created(Book book) {}
        }

        @KafkaClient
        interface BookProducer {
            @Topic("book-updated")
            void updated(@KafkaKey String isbn, Book book);
        }
        """
    )
    assert routes(facts) == [
        ("GET", "/books/{isbn}", 7, "BookController.show"),
        ("POST", "/books", 10, "BookController.save"),
    ]
    assert calls(facts) == [("GET", "/stock/{isbn}", 16, "inventory", "", "micronaut")]
    assert messages(facts) == [
        ("consume", "kafka", "book-created", 22, "topic", "", "micronaut-kafka"),
        ("produce", "kafka", "book-updated", 28, "topic", "", "micronaut-kafka"),
    ]


def test_quarkus_reactive_routes_under_a_route_base() -> None:
    facts = java(
        """
        import io.quarkus.vertx.web.Route;
        import io.quarkus.vertx.web.RouteBase;

        @RouteBase(path = "/simple")
        public class MyRoutes {
            @Route(path = "/hello", methods = Route.HttpMethod.GET)
            void hello(RoutingContext rc) {}

            @Route(methods = Route.HttpMethod.POST)
            void greetings(RoutingContext rc) {}
        }
        """
    )
    assert routes(facts) == [
        ("GET", "/simple/hello", 6, "MyRoutes.hello"),
        ("POST", "/simple/greetings", 9, "MyRoutes.greetings"),
    ]


def test_ktor_routing_nested_routes_and_the_ktor_client() -> None:
    facts = kotlin(
        """
        import io.ktor.client.*
        import io.ktor.client.engine.cio.*
        import io.ktor.server.application.*
        import io.ktor.server.routing.*

        val INVENTORY_URL = System.getenv("INVENTORY_URL") ?: "http://inventory:8080"

        fun Application.module() {
            val client = HttpClient(CIO)
            val cache = mutableMapOf<String, String>()
            routing {
                get("/health") { call.respondText("ok") }
                route("/api/orders") {
                    get { call.respond(cache.get("x")) }
                    get("/{id}") {
                        call.respond(client.get("$INVENTORY_URL/stock/${call.parameters["id"]}"))
                    }
                    post { client.post("http://payments/charges") { setBody("x") } }
                    route("/{id}/items", HttpMethod.Put) { handle { } }
                }
            }
        }

        fun Route.customerRoutes() {
            route("/customers") { delete("{id}") { } }
        }
        """
    )
    assert routes(facts) == [
        ("GET", "/health", 12, ""),
        ("GET", "/api/orders", 14, ""),
        ("GET", "/api/orders/{id}", 15, ""),
        ("POST", "/api/orders", 18, ""),
        ("PUT", "/api/orders/{id}/items", 19, ""),
        ("DELETE", "/customers/{id}", 25, ""),
    ]
    assert {route.framework for route in facts.http_routes} == {"ktor"}
    assert calls(facts) == [
        ("GET", "/stock/{}", 16, "", "env:INVENTORY_URL", "ktor-client"),
        ("POST", "/charges", 18, "payments", "", "ktor-client"),
    ]


def test_javalin_api_builder_paths_and_spark_routes() -> None:
    facts = java(
        """
        import io.javalin.Javalin;
        import static io.javalin.apibuilder.ApiBuilder.*;

        public class App {
            public static void main(String[] args) {
                Javalin app = Javalin.create().start(7070);
                app.get("/users/{id}", UserController::getOne);
                app.post("/users", ctx -> ctx.status(201));
                app.routes(() -> {
                    path("api", () -> {
                        get("/items", ItemController::list);
                        path("admin", () -> delete("/items/{id}", ItemController::delete));
                    });
                });
                Map<String, String> map = new HashMap<>();
                map.get("/not/a/route");
            }
        }
        """
    )
    assert routes(facts) == [
        ("GET", "/users/{id}", 7, "UserController.getOne"),
        ("POST", "/users", 8, ""),
        ("GET", "/api/items", 11, "ItemController.list"),
        ("DELETE", "/api/admin/items/{id}", 12, "ItemController.delete"),
    ]
    spark = java(
        """
        import static spark.Spark.*;

        public class Hello {
            public static void main(String[] args) {
                get("/hello", (req, res) -> "Hello World");
                path("/api", () -> post("/orders/:id", OrderApi::create));
            }
        }
        """
    )
    assert routes(spark) == [("GET", "/hello", 5, ""), ("POST", "/api/orders/{id}", 6, "OrderApi.create")]
    assert {route.framework for route in spark.http_routes} == {"spark"}


def test_vertx_router_and_web_client() -> None:
    facts = java(
        """
        import io.vertx.ext.web.Router;
        import io.vertx.ext.web.client.WebClient;

        public class Server {
            void start(Vertx vertx) {
                Router router = Router.router(vertx);
                router.get("/api/whiskies").handler(this::getAll);
                router.route(HttpMethod.POST, "/api/whiskies/:id").handler(this::add);
                router.route("/static/*").handler(StaticHandler.create());
                WebClient client = WebClient.create(vertx);
                client.get(8080, "catalog", "/items").send();
                client.postAbs("http://payments:9000/charges").send();
            }
        }
        """
    )
    assert routes(facts) == [
        ("GET", "/api/whiskies", 7, "getAll"),
        ("POST", "/api/whiskies/{id}", 8, "add"),
        ("*", "/static/{*}", 9, ""),
    ]
    assert calls(facts) == [
        ("GET", "/items", 11, "catalog", "", "vertx"),
        ("POST", "/charges", 12, "payments", "", "vertx"),
    ]


def test_a_proxy_exchange_forwards_to_the_uri_it_is_given() -> None:
    facts = java(
        """
        import org.springframework.cloud.gateway.mvc.ProxyExchange;

        @RestController
        class Proxy {
            @GetMapping("/proxy/catalog/**")
            ResponseEntity<byte[]> catalog(ProxyExchange<byte[]> proxy) {
                return proxy.uri("http://catalog:8080" + proxy.path("/proxy/catalog")).get();
            }

            ResponseEntity<byte[]> forward(ProxyExchange<byte[]> proxy, String endpoint) {
                return proxy.uri(endpoint + "/x").forward();
            }
        }
        """
    )
    assert routes(facts) == [("GET", "/proxy/catalog/{*path}", 5, "Proxy.catalog")]
    assert calls(facts) == [
        ("GET", "?", 7, "catalog", "", "spring-cloud-gateway"),
        ("*", "/x", 11, "", "", "spring-cloud-gateway"),
    ]


def test_spring_cloud_gateway_routes_are_served_and_forwarded() -> None:
    facts = java(
        """
        import org.springframework.cloud.gateway.route.RouteLocator;

        public class GatewayConfig {
            RouteLocator routes(RouteLocatorBuilder builder, Destinations destinations) {
                return builder.routes()
                    .route(r -> r.path("/orders/**").and().method("POST").uri("http://orders:8080"))
                    .route(r -> r.path("/history").uri(destinations.getHistoryUrl()))
                    .build();
            }
        }
        """
    )
    assert routes(facts) == [("POST", "/orders/{*path}", 6, ""), ("*", "/history", 7, "")]
    assert calls(facts) == [
        ("POST", "/orders/{*path}", 6, "orders", "", "spring-cloud-gateway"),
        ("*", "/history", 7, "", "client:Destinations.historyUrl", "spring-cloud-gateway"),
    ]


# -- clients -----------------------------------------------------------------------------------------


def test_rest_template_with_a_base_address_traced_through_the_constructor() -> None:
    facts = java(
        """
        import org.springframework.beans.factory.annotation.Value;
        import org.springframework.web.client.RestTemplate;

        public class LedgerWriter {
            private static final String BALANCES = "/balances";
            private final RestTemplate restTemplate;
            private final String balancesApiUri;
            private final String billing;

            public LedgerWriter(RestTemplate restTemplate,
                    @Value("http://${BALANCES_API_ADDR}/balances") String balancesApiUri,
                    @Value("${billing.url:http://billing}") String billing) {
                this.restTemplate = restTemplate;
                this.balancesApiUri = balancesApiUri;
                this.billing = billing;
            }

            int balance(String fromAcct) {
                String uri = balancesApiUri + "/" + fromAcct;
                restTemplate.exchange(uri, HttpMethod.GET, entity, Integer.class);
                restTemplate.postForEntity(billing + BALANCES + "/{id}", body, Void.class, fromAcct);
                restTemplate.delete("http://audit:9000/entries/" + fromAcct);
                new RestTemplate().getForObject(System.getenv("RATES_URL") + "/rates", Rates.class);
                Map<String, Integer> cache = new HashMap<>();
                cache.put("/balances", 1);
                cache.get("/balances");
                return 0;
            }
        }
        """
    )
    assert calls(facts) == [
        ("GET", "/balances/{fromAcct}", 20, "", "env:BALANCES_API_ADDR", "RestTemplate"),
        ("POST", "/balances/{id}", 21, "", "config:billing.url", "RestTemplate"),
        ("DELETE", "/entries/{fromAcct}", 22, "audit", "", "RestTemplate"),
        ("GET", "/rates", 23, "", "env:RATES_URL", "RestTemplate"),
    ]
    assert facts.http_calls[0].symbol == "LedgerWriter.balance"


def test_webclient_and_restclient_with_base_urls_and_uri_builders() -> None:
    facts = java(
        """
        import org.springframework.web.reactive.function.client.WebClient;
        import org.springframework.web.client.RestClient;

        public class Clients {
            private final WebClient webClient = WebClient.builder().baseUrl("http://catalog:8080").build();
            private final RestClient restClient = RestClient.create(System.getenv("CART_URL"));
            @Value("${assets.url}") private String assets;

            void run(String id) {
                webClient.get().uri("/products/{id}", id).retrieve();
                webClient.post().uri(b -> b.path("/products").queryParam("x", 1).build()).retrieve();
                webClient.put().header("a", "b").uri("/products/" + id).retrieve();
                restClient.delete().uri("/carts/{id}", id).retrieve();
                WebClient.builder().baseUrl(assets + "/images/" + id).build().get().retrieve();
                webClient.method(HttpMethod.PATCH).uri("http://pricing/prices").retrieve();
                Optional<String> maybe = Optional.of("x");
                maybe.get();
            }
        }
        """
    )
    assert calls(facts) == [
        ("GET", "/products/{id}", 10, "catalog", "", "WebClient"),
        ("POST", "/products", 11, "catalog", "", "WebClient"),
        ("PUT", "/products/{id}", 12, "catalog", "", "WebClient"),
        ("DELETE", "/carts/{id}", 13, "", "env:CART_URL", "RestClient"),
        ("GET", "/images/{id}", 14, "", "config:assets.url", "WebClient"),
        ("PATCH", "/prices", 15, "pricing", "", "WebClient"),
    ]


def test_okhttp_java_net_http_apache_and_jax_rs_clients() -> None:
    facts = java(
        """
        import java.net.URI;
        import java.net.http.HttpRequest;
        import okhttp3.Request;
        import org.apache.http.client.methods.HttpGet;
        import jakarta.ws.rs.client.ClientBuilder;

        public class Clients {
            private static final String PAYMENTS = System.getenv("PAYMENTS_URL");
            private static final String DAPR_HOST = System.getenv().getOrDefault("DAPR_HOST", "http://localhost");
            private static final String DAPR_PORT = System.getenv().getOrDefault("DAPR_HTTP_PORT", "3500");

            void run(String id) throws Exception {
                Request request = new Request.Builder().url(PAYMENTS + "/charges").post(body).build();
                HttpRequest r = HttpRequest.newBuilder(URI.create("http://shipping/quotes?x=1")).POST(publisher).build();
                HttpRequest r2 = HttpRequest.newBuilder()
                    .uri(URI.create(String.format("%s/labels/%s", PAYMENTS, id)))
                    .build();
                String dapr = DAPR_HOST + ":" + DAPR_PORT + "/v1.0/state/store";
                HttpRequest r3 = HttpRequest.newBuilder().DELETE().uri(new URI(dapr)).build();
                new HttpGet("http://legacy:9000/ping");
                ClientBuilder.newClient().target("http://billing:8080/").path("invoices").path(id).request().post(entity);
            }
        }
        """
    )
    assert calls(facts) == [
        ("POST", "/charges", 13, "", "env:PAYMENTS_URL", "okhttp"),
        ("POST", "/quotes", 14, "shipping", "", "java.net.http"),
        ("GET", "/labels/{id}", 16, "", "env:PAYMENTS_URL", "java.net.http"),
        ("DELETE", "/v1.0/state/store", 19, "", "env:DAPR_HOST", "java.net.http"),
        ("GET", "/ping", 20, "legacy", "", "apache-httpclient"),
        ("POST", "/invoices/{id}", 21, "billing", "", "jax-rs-client"),
    ]


def test_rest_assured_requests_and_its_mock_mvc_module() -> None:
    facts = java(
        """
        import static io.restassured.RestAssured.given;
        import io.restassured.RestAssured;

        class EndToEndTest {
            void run(long id) {
                given().body(order).contentType("application/json").when().post("http://orders:8080/orders");
                given().when().get("/orders/{id}", id).then().statusCode(200);
                RestAssured.delete(baseUrl(id));
                Map<String, String> m = new HashMap<>();
                m.get("/x");
            }
        }
        """
    )
    assert calls(facts) == [
        ("POST", "/orders", 6, "orders", "", "rest-assured"),
        ("GET", "/orders/{id}", 7, "", "", "rest-assured"),
        ("DELETE", "?", 8, "", "", "rest-assured"),
    ]
    mock_mvc = java(
        """
        import static io.restassured.module.mockmvc.RestAssuredMockMvc.given;

        class ControllerTest {
            void run() { given().when().get("/orders/1").then().statusCode(200); }
        }
        """
    )
    assert calls(mock_mvc) == [("GET", "/orders/1", 4, "", "", "rest-assured")]


def test_feign_interfaces_declare_calls_not_routes() -> None:
    facts = java(
        """
        import org.springframework.cloud.openfeign.FeignClient;
        import org.springframework.web.bind.annotation.*;

        @FeignClient(name = "billing-service", path = "/api")
        public interface BillingClient {
            @GetMapping("/invoices/{id}")
            Invoice get(@PathVariable("id") String id);

            @RequestMapping(value = "/invoices", method = RequestMethod.POST)
            Invoice create(@RequestBody Invoice invoice);

            @RequestMapping("/invoices/count")
            long count();
        }

        @FeignClient(name = "stock", url = "${stock.url}")
        interface StockClient {
            @PostMapping("/reservations")
            void reserve(Reservation r);
        }
        """
    )
    assert facts.http_routes == ()
    assert calls(facts) == [
        ("GET", "/api/invoices/{id}", 6, "billing-service", "", "feign"),
        ("POST", "/api/invoices", 9, "billing-service", "", "feign"),
        ("GET", "/api/invoices/count", 12, "billing-service", "", "feign"),
        ("POST", "/reservations", 18, "", "config:stock.url", "feign"),
    ]
    assert facts.http_calls[0].symbol == "BillingClient.get"


def test_http_exchange_and_retrofit_interfaces_with_their_registered_base_addresses() -> None:
    facts = java(
        """
        import retrofit2.Retrofit;
        import retrofit2.http.*;
        import org.springframework.web.service.annotation.*;
        import org.springframework.web.service.invoker.HttpServiceProxyFactory;
        import org.springframework.web.reactive.function.client.WebClient;
        import org.springframework.web.reactive.function.client.support.WebClientAdapter;

        interface GitHub {
            @GET("repos/{owner}/{repo}/contributors")
            Call<List<Contributor>> contributors(@Path("owner") String owner, @Path("repo") String repo);

            @GET
            Call<String> any(@Url String url);
        }

        @HttpExchange("/users")
        interface UsersClient {
            @GetExchange("/{id}")
            User get(@PathVariable String id);

            @PostExchange
            User create(@RequestBody User user);
        }

        class Config {
            GitHub gitHub() {
                Retrofit retrofit = new Retrofit.Builder().baseUrl("https://api.github.com/").build();
                return retrofit.create(GitHub.class);
            }

            UsersClient users() {
                WebClient client = WebClient.builder().baseUrl(System.getenv("USERS_URL")).build();
                HttpServiceProxyFactory factory = HttpServiceProxyFactory.builderFor(WebClientAdapter.create(client)).build();
                return factory.createClient(UsersClient.class);
            }
        }
        """
    )
    assert facts.http_routes == ()
    assert calls(facts) == [
        ("GET", "/repos/{owner}/{repo}/contributors", 9, "", "client:GitHub", "retrofit"),
        ("GET", "?", 12, "", "", "retrofit"),
        ("GET", "/users/{id}", 18, "", "client:UsersClient", "HttpExchange"),
        ("POST", "/users", 21, "", "client:UsersClient", "HttpExchange"),
    ]
    assert facts.settings == (
        Setting("client:GitHub", 28, host="api.github.com"),
        Setting("client:UsersClient", 34, env="USERS_URL"),
    )


def test_microprofile_rest_client_and_jax_rs_interfaces() -> None:
    facts = java(
        """
        import jakarta.ws.rs.*;
        import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

        @Path("/prices")
        @RegisterRestClient(configKey = "pricing-api")
        interface PricingClient {
            @GET
            @Path("/{sku}")
            Price price(@PathParam("sku") String sku);
        }
        """
    )
    assert facts.http_routes == ()
    assert calls(facts) == [
        ("GET", "/prices/{sku}", 7, "", "config:quarkus.rest-client.pricing-api.url", "rest-client")
    ]


def test_kotlin_clients_feign_retrofit_okhttp_and_reified_rest_template_calls() -> None:
    facts = kotlin(
        """
        import okhttp3.OkHttpClient
        import okhttp3.Request
        import retrofit2.http.GET
        import org.springframework.cloud.openfeign.FeignClient
        import org.springframework.web.bind.annotation.GetMapping
        import org.springframework.web.client.RestTemplate
        import org.springframework.web.client.getForObject

        interface Api {
            @GET("users/{id}")
            suspend fun user(@Path("id") id: String): User
        }

        @FeignClient(name = "carts", url = "\\${carts.url}")
        interface CartsClient {
            @GetMapping("/carts/{id}")
            fun cart(@PathVariable id: String): Cart
        }

        class Service(private val rest: RestTemplate, @Value("\\${pricing.url}") private val pricing: String) {
            private val http = OkHttpClient()
            private val base = System.getenv("ORDERS_URL") ?: "http://orders:8080"

            fun load(id: String) {
                val request = Request.Builder().url("$base/orders/$id").delete().build()
                http.newCall(request).execute()
                val price = rest.getForObject<Price>("$pricing/prices/{id}", id)
                val one = rest.getForObject<Price>("http://pricing/prices/latest")
                val notACall = id.length < 3
            }
        }
        """
    )
    assert calls(facts) == [
        ("GET", "/users/{id}", 10, "", "client:Api", "retrofit"),
        ("GET", "/carts/{id}", 16, "", "config:carts.url", "feign"),
        ("DELETE", "/orders/{id}", 25, "", "env:ORDERS_URL", "okhttp"),
        ("GET", "/prices/{id}", 27, "", "config:pricing.url", "RestTemplate"),
        ("GET", "/prices/latest", 28, "pricing", "", "RestTemplate"),
    ]


def test_dapr_service_invocation_pub_sub_and_topic_subscriptions() -> None:
    facts = java(
        """
        import io.dapr.Topic;
        import io.dapr.client.DaprClient;
        import io.dapr.client.domain.HttpExtension;

        public class Checkout {
            private final DaprClient dapr;

            void run(Order order) {
                dapr.publishEvent("pubsub", "orders", order).block();
                dapr.invokeMethod("checkout", "orders/submit", order, HttpExtension.POST).block();
            }

            @Topic(name = "payments", pubsubName = "pubsub")
            @PostMapping("/payments")
            void onPayment() {}
        }
        """
    )
    assert calls(facts) == [("POST", "/orders/submit", 10, "checkout", "", "dapr")]
    assert messages(facts) == [
        ("produce", "", "orders", 9, "topic", "", "dapr"),
        ("consume", "", "payments", 13, "topic", "", "dapr"),
    ]
    assert routes(facts) == [("POST", "/payments", 14, "Checkout.onPayment")]


def test_urls_that_cannot_be_read_are_computed_calls_never_guesses() -> None:
    facts = java(
        """
        import org.springframework.web.client.RestTemplate;

        public class Proxy {
            private final RestTemplate rest;

            void forward(String url, Target target) {
                rest.getForObject(url, String.class);
                rest.postForObject(target.url(), body, String.class);
                rest.getForObject(base() + "/x", String.class);
                rest.getForObject(cond ? "/a" : "/b", String.class);
            }
        }
        """
    )
    assert calls(facts) == [
        ("GET", "?", 7, "", "", "RestTemplate"),
        ("POST", "?", 8, "", "", "RestTemplate"),
        ("GET", "/x", 9, "", "", "RestTemplate"),
        ("GET", "?", 10, "", "", "RestTemplate"),
    ]
    assert all(call.path == "" for call in facts.http_calls if call.computed)


# -- messaging ---------------------------------------------------------------------------------------


def test_spring_kafka_templates_listeners_and_the_kafka_clients() -> None:
    facts = java(
        """
        import org.apache.kafka.clients.consumer.KafkaConsumer;
        import org.apache.kafka.clients.producer.ProducerRecord;
        import org.springframework.kafka.annotation.KafkaListener;
        import org.springframework.kafka.core.KafkaTemplate;

        public class OrderEvents {
            public static final String ORDERS_TOPIC = "orders.v1";
            private final KafkaTemplate<String, String> kafkaTemplate;
            private final KafkaConsumer<String, String> consumer;

            void publish(String id) {
                kafkaTemplate.send(ORDERS_TOPIC, id, "created");
                kafkaTemplate.send(new ProducerRecord<>("audit", id));
                kafkaTemplate.send(Topics.PAYMENTS, id);
                consumer.subscribe(List.of("shipments", ORDERS_TOPIC));
                consumer.subscribe(Pattern.compile("orders-.*"));
                consumer.poll(Duration.ofSeconds(1)).forEach(record -> process(record));
            }

            @KafkaListener(topics = {"orders.v1", "${app.refunds-topic:refunds}"}, groupId = "billing")
            void onOrder(String message) {}

            @KafkaListener(topicPattern = "orders.*")
            void onAny(String message) {}
        }

        @KafkaListener(topics = "invoices")
        class InvoiceListener {
            @KafkaHandler
            void on(Invoice invoice) {}
        }
        """
    )
    assert messages(facts) == [
        ("produce", "kafka", "orders.v1", 12, "topic", "", "spring-kafka"),
        ("produce", "kafka", "audit", 13, "topic", "", "kafka-clients"),
        ("produce", "kafka", "", 14, "topic", "const:Topics.PAYMENTS", "spring-kafka"),
        ("consume", "kafka", "shipments", 15, "topic", "", "kafka-clients"),
        ("consume", "kafka", "orders.v1", 15, "topic", "", "kafka-clients"),
        ("consume", "kafka", "?", 16, "topic", "", "kafka-clients"),
        ("consume", "kafka", "orders.v1", 20, "topic", "", "spring-kafka"),
        ("consume", "kafka", "refunds", 20, "topic", "config:app.refunds-topic", "spring-kafka"),
        ("consume", "kafka", "?", 23, "topic", "", "spring-kafka"),
        ("consume", "kafka", "invoices", 27, "topic", "", "spring-kafka"),
    ]
    assert facts.messages[0].symbol == "OrderEvents.publish"
    assert facts.messages[-1].symbol == "InvoiceListener"


def test_kafka_in_kotlin_with_constants_of_an_object() -> None:
    facts = kotlin(
        """
        import org.springframework.kafka.annotation.KafkaListener
        import org.springframework.kafka.core.KafkaTemplate

        class Orders(private val kafka: KafkaTemplate<String, String>) {
            fun read(id: String) {
                kafka.send(Topics.ORDERS, id, "read")
                kafka.send("local-$id", id)
            }

            @KafkaListener(topics = [Topics.REFUNDS, "payments"])
            fun onRefund(message: String) {}
        }

        object Topics {
            const val ORDERS = "orders"
            const val REFUNDS = "refunds"
        }
        """
    )
    assert messages(facts) == [
        ("produce", "kafka", "orders", 6, "topic", "", "spring-kafka"),
        ("produce", "kafka", "?", 7, "topic", "", "spring-kafka"),
        ("consume", "kafka", "refunds", 10, "topic", "", "spring-kafka"),
        ("consume", "kafka", "payments", 10, "topic", "", "spring-kafka"),
    ]


def test_kafka_streams_topologies() -> None:
    facts = java(
        """
        import org.apache.kafka.streams.StreamsBuilder;

        class Topology {
            void build(StreamsBuilder builder) {
                builder.stream("clicks").mapValues(v -> v).to("clicks-enriched");
                builder.table("users");
                List<String> names = List.of("a");
                names.stream();
            }
        }
        """
    )
    assert messages(facts) == [
        ("consume", "kafka", "clicks", 5, "topic", "", "kafka-streams"),
        ("produce", "kafka", "clicks-enriched", 5, "topic", "", "kafka-streams"),
        ("consume", "kafka", "users", 6, "topic", "", "kafka-streams"),
    ]


def test_rabbitmq_jms_and_spring_cloud_stream_but_not_websocket_templates() -> None:
    facts = java(
        """
        import org.springframework.amqp.rabbit.annotation.*;
        import org.springframework.amqp.rabbit.core.RabbitTemplate;
        import org.springframework.jms.annotation.JmsListener;
        import org.springframework.jms.core.JmsTemplate;
        import org.springframework.cloud.stream.function.StreamBridge;
        import org.springframework.messaging.simp.SimpMessagingTemplate;
        import org.springframework.context.ApplicationEventPublisher;

        public class Messaging {
            private final RabbitTemplate rabbitTemplate;
            private final JmsTemplate jmsTemplate;
            private final StreamBridge streamBridge;
            private final SimpMessagingTemplate websocket;
            private final ApplicationEventPublisher events;

            void send(Order order) {
                rabbitTemplate.convertAndSend(RabbitConfig.EXCHANGE_NAME, "order.created", order);
                rabbitTemplate.convertAndSend("", "direct-queue", order);
                rabbitTemplate.convertAndSend("work-queue", order);
                jmsTemplate.convertAndSend("invoices", order);
                streamBridge.send("orders-out-0", order);
                websocket.convertAndSend("/topic/orders", order);
                events.publishEvent(new OrderCreated(order));
            }

            @RabbitListener(queues = "orders-queue")
            void onOrder(Order order) {}

            @RabbitListener(bindings = @QueueBinding(value = @Queue("audit-queue"), exchange = @Exchange("audit-exchange"), key = "#"))
            void onAudit(Order order) {}

            @JmsListener(destination = "invoices")
            void onInvoice(Order order) {}
        }
        """
    )
    assert messages(facts) == [
        ("produce", "rabbitmq", "", 17, "exchange", "const:RabbitConfig.EXCHANGE_NAME", "spring-amqp"),
        ("produce", "rabbitmq", "direct-queue", 18, "queue", "", "spring-amqp"),
        ("produce", "rabbitmq", "work-queue", 19, "queue", "", "spring-amqp"),
        ("produce", "", "invoices", 20, "queue", "", "spring-jms"),
        (
            "produce", "", "orders-out-0", 21, "channel",
            "config:spring.cloud.stream.bindings.orders-out-0.destination", "spring-cloud-stream",
        ),
        ("consume", "rabbitmq", "orders-queue", 26, "queue", "", "spring-amqp"),
        ("consume", "rabbitmq", "audit-queue", 29, "queue", "", "spring-amqp"),
        ("consume", "rabbitmq", "audit-exchange", 29, "exchange", "", "spring-amqp"),
        ("consume", "", "invoices", 32, "queue", "", "spring-jms"),
    ]  # fmt: skip


def test_aws_sqs_and_sns_through_the_sdk_and_spring_cloud_aws() -> None:
    facts = java(
        """
        import software.amazon.awssdk.services.sqs.SqsClient;
        import software.amazon.awssdk.services.sqs.model.*;
        import software.amazon.awssdk.services.sns.SnsClient;
        import software.amazon.awssdk.services.sns.model.PublishRequest;
        import io.awspring.cloud.sqs.annotation.SqsListener;
        import io.awspring.cloud.sqs.operations.SqsTemplate;

        public class Notifier {
            @Value("${queues.orders}") private String ordersQueue;
            private final SqsClient sqs;
            private final SnsClient sns;
            private final SqsTemplate sqsTemplate;

            void notify(String body) {
                sqs.sendMessage(SendMessageRequest.builder().queueUrl("https://sqs.us-east-1.amazonaws.com/123456789012/orders-queue").messageBody(body).build());
                sqs.receiveMessage(ReceiveMessageRequest.builder().queueUrl(ordersQueue).maxNumberOfMessages(5).build());
                sns.publish(PublishRequest.builder().topicArn("arn:aws:sns:us-east-1:123456789012:order-events").message(body).build());
                sqsTemplate.send("payments-queue", body);
                sqsTemplate.send(to -> to.queue("refunds-queue").payload(body));
                sqsTemplate.send(to -> {
                    try { to.queue(ordersQueue).payload(json(body)); } catch (Exception e) { throw e; }
                });
            }

            @SqsListener("shipments-queue")
            void onShipment(String message) {}
        }
        """
    )
    assert messages(facts) == [
        ("produce", "sqs", "orders-queue", 15, "queue", "", "aws-sdk"),
        ("consume", "sqs", "", 16, "queue", "config:queues.orders", "aws-sdk"),
        ("produce", "sns", "order-events", 17, "topic", "", "aws-sdk"),
        ("produce", "sqs", "payments-queue", 18, "queue", "", "spring-cloud-aws"),
        ("produce", "sqs", "refunds-queue", 19, "queue", "", "spring-cloud-aws"),
        ("produce", "sqs", "", 21, "queue", "config:queues.orders", "spring-cloud-aws"),
        ("consume", "sqs", "shipments-queue", 25, "queue", "", "spring-cloud-aws"),
    ]


def test_eventuate_tram_events_commands_and_aggregate_publishers() -> None:
    facts = java(
        """
        package net.acme.orders.domain;

        import io.eventuate.tram.events.publisher.DomainEventPublisher;
        import io.eventuate.tram.events.subscriber.DomainEventHandlersBuilder;
        import io.eventuate.tram.sagas.participant.SagaCommandHandlersBuilder;
        import io.eventuate.tram.events.aggregates.AbstractAggregateDomainEventPublisher;
        import net.acme.kitchen.api.KitchenChannels;
        import net.acme.customers.domain.Customer;
        import static io.eventuate.tram.commands.consumer.CommandWithDestinationBuilder.send;

        public class OrderService {
            private final DomainEventPublisher domainEventPublisher;

            void create(Order order, Customer customer) {
                domainEventPublisher.publish(Order.class, order.getId(), events);
                domainEventPublisher.publish(Customer.class, customer.getId(), events);
                domainEventPublisher.publish("net.acme.Legacy", order.getId(), events);
            }

            DomainEventHandlers handlers() {
                return DomainEventHandlersBuilder
                    .forAggregateType("net.acme.customers.domain.Customer")
                    .onEvent(CustomerCreated.class, this::onCustomer)
                    .andForAggregateType(KitchenChannels.TICKET_EVENTS)
                    .build();
            }

            CommandHandlers commands() {
                return SagaCommandHandlersBuilder.fromChannel("orderService").onMessage(Approve.class, this::approve).build();
            }

            CommandWithDestination reserve(Data data) {
                return send(new ReserveCommand(data.getId())).to(KitchenChannels.COMMANDS).build();
            }
        }

        class OrderDomainEventPublisher extends AbstractAggregateDomainEventPublisher<Order, OrderDomainEvent> {
            OrderDomainEventPublisher(DomainEventPublisher p) { super(p, Order.class, Order::getId); }
        }

        class TicketService {
            private TicketDomainEventPublisher ticketPublisher;

            void accept(Ticket ticket, ResultWithDomainEvents<Ticket, TicketDomainEvent> rwe) {
                ticketPublisher.publish(ticket, events);
                ticketPublisher.publish(rwe.result, rwe.events);
                repository.findById(1).map(t -> { ticketPublisher.publish(t, events); return t; });
            }
        }

        class KitchenServiceProxy {
            public final CommandEndpoint<CreateTicket> create = CommandEndpointBuilder
                .forCommand(CreateTicket.class)
                .withChannel(KitchenChannels.COMMANDS)
                .withReply(CreateTicketReply.class)
                .build();
        }
        """
    )
    client = "eventuate-tram"
    assert messages(facts) == [
        ("produce", "", "net.acme.orders.domain.Order", 15, "channel", "", client),
        ("produce", "", "net.acme.customers.domain.Customer", 16, "channel", "", client),
        ("produce", "", "net.acme.Legacy", 17, "channel", "", client),
        ("consume", "", "net.acme.customers.domain.Customer", 22, "channel", "", client),
        ("consume", "", "", 24, "channel", "const:KitchenChannels.TICKET_EVENTS", client),
        ("consume", "", "orderService", 29, "channel", "", client),
        ("produce", "", "", 33, "channel", "const:KitchenChannels.COMMANDS", client),
        ("produce", "", "net.acme.orders.domain.Order", 37, "channel", "", client),
        ("produce", "", "net.acme.orders.domain.Ticket", 45, "channel", "client:TicketDomainEventPublisher", client),
        ("produce", "", "net.acme.orders.domain.Ticket", 46, "channel", "client:TicketDomainEventPublisher", client),
        ("produce", "", "", 47, "channel", "client:TicketDomainEventPublisher", client),
        ("produce", "", "", 54, "channel", "const:KitchenChannels.COMMANDS", client),
    ]
    assert facts.messages[7].symbol == "OrderDomainEventPublisher"


def test_redis_nats_and_reactive_messaging_channels() -> None:
    facts = java(
        """
        import org.springframework.data.redis.core.StringRedisTemplate;
        import org.springframework.data.redis.listener.ChannelTopic;
        import redis.clients.jedis.Jedis;
        import io.nats.client.Connection;
        import org.eclipse.microprofile.reactive.messaging.*;

        public class Misc {
            private final StringRedisTemplate redisTemplate;
            private final Jedis jedis;
            @Channel("price-requests") Emitter<String> emitter;

            void run(RedisMessageListenerContainer container, Connection nc) {
                redisTemplate.convertAndSend("chat", "hi");
                redisTemplate.opsForValue().set("chat", "not a message");
                container.addMessageListener(listener, new ChannelTopic("news"));
                jedis.publish("alerts", "x");
                jedis.get("alerts");
                nc.publish("orders.created", data);
                nc.subscribe("orders.*");
            }

            @Incoming("prices")
            @Outgoing("my-data-stream")
            String convert(String price) { return price; }
        }
        """
    )
    assert messages(facts) == [
        ("produce", "", "price-requests", 10, "channel", "", "smallrye-reactive-messaging"),
        ("produce", "redis", "chat", 13, "channel", "", "spring-data-redis"),
        ("consume", "redis", "news", 15, "channel", "", "spring-data-redis"),
        ("produce", "redis", "alerts", 16, "channel", "", "jedis"),
        ("produce", "nats", "orders.created", 18, "subject", "", "nats"),
        ("consume", "nats", "orders.*", 19, "subject", "", "nats"),
        ("consume", "", "prices", 22, "channel", "", "smallrye-reactive-messaging"),
        ("produce", "", "my-data-stream", 23, "channel", "", "smallrye-reactive-messaging"),
    ]


# -- look-alikes -------------------------------------------------------------------------------------


def test_look_alikes_give_no_facts() -> None:
    """Verbs on maps and optionals, ``send``/``publish`` of other libraries, framework names used
    without the framework's import: none is a route, a call or a message."""
    facts = java(
        """
        import java.util.*;
        import org.springframework.context.ApplicationEventPublisher;

        public class Lookalikes {
            private final Map<String, String> routes = new HashMap<>();
            private final ApplicationEventPublisher publisher;
            private final Mailer mailer;
            private final OrderRepository repository;

            void run(Optional<String> maybe, Socket socket, UriBuilder builder) {
                routes.get("/orders");
                routes.put("/orders", "x");
                maybe.get();
                repository.delete(order);
                publisher.publishEvent(new OrderCreated());
                mailer.send("ops@example.com", "subject");
                socket.send("topic", payload);
                builder.path("/orders").build();
                GET("/orders");
                get("/users", handler);
                new Request.Builder();
                Thread t = new Thread(() -> {});
            }

            @GET
            public String jaxRsLookingMethodWithoutJaxRs() { return ""; }

            @org.springframework.web.bind.annotation.GetMapping("/the-only-route")
            public String real() { return ""; }
        }
        """
    )
    assert (facts.http_calls, facts.messages) == ((), ())
    assert routes(facts) == [("GET", "/the-only-route", 28, "Lookalikes.real")]
    kotlin_facts = kotlin(
        """
        import io.ktor.client.*

        class Lookalikes(private val cache: Cache<String, String>, private val http: HttpClient) {
            fun run(client: RedisClient) {
                cache.get("/orders")
                client.get("/orders")
                listOf("a").map { it.uppercase() }
                val x = a < b
                http.get("http://the-only-host/x")
            }
        }
        """
    )
    assert (kotlin_facts.http_routes, kotlin_facts.messages) == ((), ())
    assert calls(kotlin_facts) == [("GET", "/x", 9, "the-only-host", "", "ktor-client")]
    # in files that do use the libraries: other receivers and shapes than theirs
    libraries = java(
        """
        import org.apache.kafka.clients.producer.KafkaProducer;
        import org.springframework.kafka.core.KafkaTemplate;
        import reactor.core.publisher.Flux;

        class Services {
            private final KafkaProducer<String, String> kafkaProducer;
            private final NotificationService notificationService;
            private final EmailClient client;

            void run(ProducerRecord<String, String> record, Flux<String> flux, KafkaTemplate<String, String> kafka) {
                kafka.send("the-only-topic", "x");
                kafkaProducer.send(record);
                flux.subscribe(value -> log(value));
                notificationService.send("ops", "down");
                client.post().body("x");
                executor.execute(() -> {});
            }
        }
        """
    )
    assert (libraries.http_routes, libraries.http_calls) == ((), ())
    assert messages(libraries) == [("produce", "kafka", "the-only-topic", 11, "topic", "", "spring-kafka")]


# -- constants ---------------------------------------------------------------------------------------


def test_constants_named_for_links_never_secrets() -> None:
    facts = java(
        """
        public class OrderServiceChannels {
            public static final String COMMAND_CHANNEL = "orderService";
            public static String eventChannel = "net.acme.Order";
            public static final int RETRIES = 3;
            private final String instanceUrl = "http://not-static";
        }

        interface Api {
            String ORDERS_PATH = "/orders";
            String API_KEY_TOPIC = "secret-key-topic";
            String WELCOME = "hello world";
        }

        class Settings {
            static final String PAYMENTS_URL = "http://payments:8080/api";
            static final String ADMIN_PASSWORD_URL = "http://x";
            static final String BROKER_URL = "amqp://user:pass@rabbit:5672";
            static final String NAME = "orders";
            static final String LONG_URL = "http://x/%s";
        }
        """
    )
    assert facts.constants == (
        Constant("OrderServiceChannels.COMMAND_CHANNEL", "orderService", 2),
        Constant("OrderServiceChannels.eventChannel", "net.acme.Order", 3),
        Constant("Api.ORDERS_PATH", "/orders", 9),
        Constant("Settings.PAYMENTS_URL", "http://payments:8080/api", 15),
        Constant("Settings.LONG_URL", "http://x/%s", 19),
    )
    kotlin_facts = kotlin(
        """
        const val ORDERS_TOPIC = "orders"
        val BASE_URL = "http://catalog"

        object KafkaTopics {
            const val PAYMENTS = "payments"
            val REFUNDS = "refunds"
            var mutable = "x"
        }

        class Listener {
            companion object {
                const val QUEUE = "listener-queue"
            }
            val notAConstantUrl = "http://x"
        }
        """
    )
    assert kotlin_facts.constants == (
        Constant("ORDERS_TOPIC", "orders", 1),
        Constant("BASE_URL", "http://catalog", 2),
        Constant("KafkaTopics.PAYMENTS", "payments", 5),
        Constant("KafkaTopics.REFUNDS", "refunds", 6),
        Constant("Listener.QUEUE", "listener-queue", 12),
    )


def test_static_imported_constants_and_placeholders_become_addresses() -> None:
    facts = java(
        """
        import static com.acme.api.Topics.ORDERS;
        import org.springframework.kafka.annotation.KafkaListener;
        import org.springframework.kafka.core.KafkaTemplate;

        class Consumer {
            private final KafkaTemplate<String, String> kafkaTemplate;

            void send() {
                kafkaTemplate.send(ORDERS, "x");
                kafkaTemplate.send(System.getenv("AUDIT_TOPIC"), "x");
                kafkaTemplate.send(env.getProperty("topics.refunds"), "x");
            }

            @KafkaListener(topics = "${KAFKA_TOPIC}")
            void on(String message) {}

            @KafkaListener(topics = "#{'${topics}'.split(',')}")
            void spel(String message) {}
        }
        """
    )
    assert messages(facts) == [
        ("produce", "kafka", "", 9, "topic", "const:Topics.ORDERS", "spring-kafka"),
        ("produce", "kafka", "", 10, "topic", "env:AUDIT_TOPIC", "spring-kafka"),
        ("produce", "kafka", "", 11, "topic", "config:topics.refunds", "spring-kafka"),
        ("consume", "kafka", "", 14, "topic", "env:KAFKA_TOPIC", "spring-kafka"),
        ("consume", "kafka", "?", 17, "topic", "", "spring-kafka"),
    ]


# -- order, totality, cost -----------------------------------------------------------------------------


_REALISTIC_JAVA = (
    textwrap.dedent(
        """
    package com.acme;

    import org.springframework.web.bind.annotation.*;
    import org.springframework.kafka.core.KafkaTemplate;
    import org.springframework.web.reactive.function.client.WebClient;

    @RestController
    @RequestMapping("/api")
    class OrdersController {
        static final String ORDERS_TOPIC = "orders";
        @Value("${billing.url}") String billing;
        private final KafkaTemplate<String, String> kafka;
        private final WebClient client = WebClient.builder().baseUrl(billing).build();

        @GetMapping({"/orders/{id}", "/o/{id}"})
        Order get(@PathVariable String id) {
            kafka.send(ORDERS_TOPIC, id);
            return client.get().uri("/invoices/{id}", id).retrieve().bodyToMono(Order.class).block();
        }
    }
    """
    )
    .lstrip("\n")
    .encode()
)

_REALISTIC_KOTLIN = (
    textwrap.dedent(
        """
    package com.acme

    import io.ktor.server.routing.*
    import io.ktor.client.*
    import org.springframework.kafka.annotation.KafkaListener

    @RequestMapping("/api")
    class Orders(private val client: HttpClient) {
        @KafkaListener(topics = [Topics.ORDERS])
        fun on(message: String) {}
    }

    fun Route.orders(client: HttpClient) {
        route("/orders") {
            get("/{id}") { client.get("${System.getenv("BASE")}/x/${call.parameters["id"]}") }
        }
    }
    """
    )
    .lstrip("\n")
    .encode()
)


def test_facts_come_in_source_order_and_the_same_bytes_give_the_same_facts() -> None:
    first = _java.extract(_REALISTIC_JAVA)
    assert first == _java.extract(_REALISTIC_JAVA)
    assert [route.line for route in first.http_routes] == sorted(route.line for route in first.http_routes)
    assert routes(first) == [
        ("GET", "/api/orders/{id}", 15, "OrdersController.get"),
        ("GET", "/api/o/{id}", 15, "OrdersController.get"),
    ]
    assert calls(first) == [("GET", "/invoices/{id}", 18, "", "config:billing.url", "WebClient")]
    assert messages(first) == [("produce", "kafka", "orders", 17, "topic", "", "spring-kafka")]
    second = _kotlin.extract(_REALISTIC_KOTLIN)
    assert second == _kotlin.extract(_REALISTIC_KOTLIN)
    assert routes(second) == [("GET", "/orders/{id}", 15, "")]
    assert calls(second) == [("GET", "/x/{}", 15, "", "env:BASE", "ktor-client")]
    # the dispatcher names the language by the file's suffix and keeps the facts
    assert extract("src/Orders.kt", _REALISTIC_KOTLIN).http_routes == second.http_routes


def _mutate(source: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    data = bytearray(source)
    for position, kind, chunk in edits:
        at = position % (len(data) + 1)
        if kind == 0:
            data[at:at] = chunk
        elif kind == 1:
            del data[at : at + len(chunk)]
        else:
            data[at : at + len(chunk)] = chunk
    return bytes(data)


_EDITS = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=2000),
        st.integers(min_value=0, max_value=2),
        st.sampled_from([b"(", b")", b"{", b"}", b'"', b"@", b"\\", b"$", b".", b"\n", b"::", b"<", b">", b"\xff", b"\x00",
                         b"get(", b'"/x"', b"${", b"uri(", b".send(", b"route(", b"@Get", b"class ", b"= "]),
    ),
    max_size=12,
)  # fmt: skip


def _well_formed(facts: FileFacts) -> None:
    assert not facts.error.startswith("extractor failed")
    for route in facts.http_routes:
        assert isinstance(route, HttpRoute) and route.path.startswith("/") and route.line >= 1
        assert route.method == "*" or route.method.isupper()
    for call in facts.http_calls:
        assert isinstance(call, HttpCall) and call.line >= 1
        assert (call.path == "") == call.computed or call.path.startswith("/")
    for message in facts.messages:
        assert isinstance(message, MessageFact) and message.role in ("produce", "consume") and message.line >= 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_EDITS, st.binary(max_size=300))
@example([], b"")
@example([(0, 2, b"\xff")], b"\xff\xfe class \x00 {")
def test_link_extraction_never_raises(edits: list[tuple[int, int, bytes]], junk: bytes) -> None:
    """INV-LINKS-1: extractors of links are total: any bytes give facts, never an exception.

    Realistic Java and Kotlin sources with random insertions, deletions and overwrites (brackets,
    quotes, ``@``, ``$``, invalid UTF-8, call shapes), and bytes that are no source at all, still
    give well-formed facts; unmutated, the sources give their routes."""
    java_facts = _java.extract(_mutate(_REALISTIC_JAVA, edits))
    kotlin_facts = _kotlin.extract(_mutate(_REALISTIC_KOTLIN, edits))
    for facts in (java_facts, kotlin_facts, _java.extract(junk), _kotlin.extract(junk)):
        _well_formed(facts)
    if not edits:
        assert java_facts.http_routes and kotlin_facts.http_routes


def test_long_chains_and_deep_nesting_stay_linear() -> None:
    """5,000-link chains and 2,000 nested blocks: a pass quadratic in them would take minutes."""
    start = time.process_time()
    chain = (
        b"import org.springframework.web.reactive.function.client.WebClient;\n"
        b"class A { WebClient client; void f() { client" + b".get()" * 5_000 + b".retrieve(); } }"
    )
    assert _java.extract(chain).error == ""
    sends = (
        b"import org.springframework.kafka.core.KafkaTemplate;\nclass A { KafkaTemplate kafka; void f() { kafka"
        + b'.send("t", x)' * 5_000
        + b"; } }"
    )
    assert len(_java.extract(sends).messages) == 5_000
    kotlin_chain = (
        b"import org.springframework.web.reactive.function.client.WebClient\nval client: WebClient = x\nfun f() = client"
        + b".get()" * 5_000
    )
    assert _kotlin.extract(kotlin_chain).http_calls == ()
    nested = (
        b"import io.ktor.server.routing.*\nfun f() {\n" + b'route("/a") {\nget("/x") { }\n' * 2_000 + b"}\n" * 2_001
    )
    facts = _kotlin.extract(nested)
    # past 64 nesting calls a prefix is not followed, and a route whose prefix is unknown is left out
    assert len(facts.http_routes) == 64
    assert facts.http_routes[-1].path == "/a" * 64 + "/x"
    assert facts.http_routes[-1].line == 2 + 64 * 2
    concatenation = b'class A { void f() { rest.getForObject("/a"' + b' + "/b"' * 5_000 + b", X.class); } }"
    assert _java.extract(concatenation).error == ""
    assert time.process_time() - start < 10.0
