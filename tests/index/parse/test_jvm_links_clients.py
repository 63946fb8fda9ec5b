"""Indirect HTTP clients of Java and Kotlin (``_jvm_fluent``): Kiota request builders, REST Assured and
MockMvc test requests, URL helper methods expanded at their call, configuration-properties beans as
base addresses; each with the look-alikes it must leave alone, then totality and cost.
"""

from __future__ import annotations

import textwrap
import time

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mesh.index._facts import FileFacts, HttpCall, Setting
from mesh.index.parse import _java, _kotlin


def java(source: str) -> FileFacts:
    return _java.extract(textwrap.dedent(source).lstrip("\n").encode())


def kotlin(source: str) -> FileFacts:
    return _kotlin.extract(textwrap.dedent(source).lstrip("\n").encode())


def calls(facts: FileFacts) -> list[tuple[str, str, int, str, str, str]]:
    """(method, path, line, host, address, client) of each call; a computed one has path "?"."""
    return [
        (call.method, "?" if call.computed else call.path, call.line, call.host, call.address, call.client)
        for call in facts.http_calls
    ]


def settings_of(facts: FileFacts) -> list[tuple[str, int, str, str]]:
    return [(item.key, item.line, item.host, item.env) for item in facts.settings]


# -- Kiota -------------------------------------------------------------------------------------------


def test_kiota_request_builders_are_calls_of_the_clients_base_address() -> None:
    facts = java(
        """
        package com.acme.ui.services;

        import com.acme.ui.client.catalog.CatalogClient;
        import com.acme.ui.client.cart.CartClient;

        public class KiotaCatalogService {
            private final CatalogClient catalogClient;

            KiotaCatalogService(CatalogClient catalogClient) { this.catalogClient = catalogClient; }

            void run(String id, Item item) {
                this.catalogClient.catalog().products().byId(id).get();
                this.catalogClient.catalog()
                    .products()
                    .get(config -> {
                        config.queryParameters.page = 1;
                    });
                catalogClient.catalog().tags().get();
                var carts = new CartClient(adapter);
                carts.carts().byCustomerId(id).items().post(item);
                carts.carts().byCustomerId(id).items().byItemId(item.id).delete();
                carts.carts().byCustomerId(id).merge().put(item, config -> config.headers.add("a", "b"));
                carts.carts().byCustomerId(id).submit().post();
                carts.carts().withUrl(next).get();
            }
        }
        """
    )
    client = "kiota"
    assert calls(facts) == [
        ("GET", "/catalog/products/{id}", 12, "", "client:CatalogClient", client),
        ("GET", "/catalog/products", 15, "", "client:CatalogClient", client),
        ("GET", "/catalog/tags", 18, "", "client:CatalogClient", client),
        ("POST", "/carts/{customerId}/items", 20, "", "client:CartClient", client),
        ("DELETE", "/carts/{customerId}/items/{itemId}", 21, "", "client:CartClient", client),
        ("PUT", "/carts/{customerId}/merge", 22, "", "client:CartClient", client),
        ("POST", "/carts/{customerId}/submit", 23, "", "client:CartClient", client),
        ("GET", "?", 24, "", "", client),  # a raw URL: computed
    ]
    assert facts.http_calls[0].symbol == "KiotaCatalogService.run"


def test_kiota_in_kotlin_and_any_client_class_when_the_file_imports_kiota() -> None:
    facts = kotlin(
        """
        package com.acme.web

        import com.acme.posts.PostsClient

        class Posts(private val client: PostsClient) {
            fun one(id: String) = client.posts().byPostId(id).get()
            fun all() = client.posts().get { it.queryParameters.top = 10 }
        }
        """
    )
    assert calls(facts) == [
        ("GET", "/posts/{postId}", 6, "", "client:PostsClient", "kiota"),
        ("GET", "/posts", 7, "", "client:PostsClient", "kiota"),
    ]
    imported = java(
        """
        import com.microsoft.kiota.RequestAdapter;
        import apisdk.Posts;

        class A {
            Posts posts;
            void run() { posts.comments().byCommentId(1).patch(body); }
        }
        """
    )
    assert calls(imported) == [("PATCH", "/comments/{commentId}", 6, "", "client:Posts", "kiota")]


def test_kiota_look_alikes_are_no_calls() -> None:
    facts = java(
        """
        package com.acme.web;

        import com.acme.client.ApiClient;
        import com.acme.orders.OrderService;
        import java.util.Map;
        import java.util.Optional;
        import org.springframework.web.reactive.function.client.WebClient;
        import com.microsoft.graph.serviceclient.GraphServiceClient;

        class A {
            ApiClient api;
            OrderService orders;
            Optional<ApiClient> maybe;
            Map<String, ApiClient> clients;
            WebClient web;
            GraphServiceClient graph;

            void run(String id) {
                maybe.get();
                maybe.map(x -> x).get();
                clients.get("a");
                api.get();
                api.users().get(id);
                api.users().delete(id);
                api.users().post(body, other);
                api.users().stream().findFirst().get();
                api.builder().build().get();
                api.fetchUsers().get();
                api.getUsers().get();
                api.users(id).get();
                api.byId().get();
                api.users().byId(id, 2).get();
                orders.items().get();
                web.get().retrieve();
                graph.users().byUserId(id).get();
                client().users().get();
                undeclared.users().get();
                api.users().get();
            }
        }
        """
    )
    assert calls(facts) == [
        ("GET", "?", 34, "", "", "WebClient"),  # WebClient's own rule (no base URL), no Kiota request
        ("GET", "/users", 38, "", "client:ApiClient", "kiota"),  # the one request among them
    ]


# -- REST Assured ------------------------------------------------------------------------------------


def test_rest_assured_long_chains_static_requests_specifications_and_base_uris() -> None:
    facts = java(
        """
        import io.restassured.specification.RequestSpecification;
        import static io.restassured.RestAssured.given;
        import static io.restassured.RestAssured.get;
        import static io.restassured.RestAssured.with;

        class OrdersIT {
            RequestSpecification spec;

            void run(long id) {
                given().
                        body(new CreateOrderRequest(consumerId, restaurantId, deliveryAddress, deliveryTime, lineItems)).
                        contentType("application/json").
                        when().
                        post("/orders");
                get("/orders/{id}", id);
                spec.delete("/orders/{id}", id);
                given().baseUri("http://billing:8080").basePath("/api").when().get("/invoices/{id}", id);
                with().request(Method.PATCH, "/orders/1");
                given().when().get("/orders").then().extract().path("orderId");
            }
        }
        """
    )
    assert calls(facts) == [
        ("POST", "/orders", 14, "", "", "rest-assured"),
        ("GET", "/orders/{id}", 15, "", "", "rest-assured"),
        ("DELETE", "/orders/{id}", 16, "", "", "rest-assured"),
        ("GET", "/api/invoices/{id}", 17, "billing", "", "rest-assured"),
        ("PATCH", "/orders/1", 18, "", "", "rest-assured"),
        ("GET", "/orders", 19, "", "", "rest-assured"),
    ]


def test_rest_assured_mock_mvc_module_and_kotlin_extensions() -> None:
    facts = java(
        """
        import io.restassured.module.mockmvc.RestAssuredMockMvc;
        import static io.restassured.module.mockmvc.RestAssuredMockMvc.given;

        class ConsumerControllerTest {
            void run() {
                given().
                        standaloneSetup(configureControllers(consumerController)).
                when().
                        get("/consumers/1").
                then().
                        statusCode(200);
                RestAssuredMockMvc.given().when().post("/consumers");
            }
        }
        """
    )
    assert calls(facts) == [
        ("GET", "/consumers/1", 9, "", "", "rest-assured"),
        ("POST", "/consumers", 12, "", "", "rest-assured"),
    ]
    extensions = kotlin(
        """
        import io.restassured.module.kotlin.extensions.Given
        import io.restassured.module.kotlin.extensions.When

        class OrdersTest {
            fun run() {
                Given { body("x") } When { post("/orders") } Then { statusCode(201) }
            }
        }
        """
    )
    assert calls(extensions) == [("POST", "/orders", 6, "", "", "rest-assured")]


def test_rest_assured_look_alikes_are_no_calls() -> None:
    mockito = java(
        """
        import io.restassured.RestAssured;
        import static org.mockito.BDDMockito.given;
        import static org.mockito.Mockito.when;

        class ServiceTest {
            void run() {
                given(repository.get("/orders")).willReturn(order);
                when(repository.get("/orders")).thenReturn(order);
                given().when().get("/orders");
                cache.get("/orders");
                get("/orders");
            }
        }
        """
    )
    assert calls(mockito) == []
    no_import = java(
        """
        class Client {
            void run() { given().when().get("/orders"); RestAssured.get("/orders"); }
        }
        """
    )
    assert calls(no_import) == []


# -- MockMvc, WebTestClient, MockMvcTester -----------------------------------------------------------------


def test_mock_mvc_request_builders_and_the_kotlin_dsl() -> None:
    facts = java(
        """
        import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.*;
        import org.springframework.test.web.servlet.MockMvc;
        import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;

        class CartsControllerTests {
            private MockMvc mockMvc;
            private static final String ID = "123";

            void run() throws Exception {
                mockMvc
                  .perform(
                    get("/carts/" + ID)
                      .accept(MediaType.APPLICATION_JSON)
                  )
                  .andExpect(status().isOk());
                mockMvc.perform(post("/carts/{id}/items", ID).content(body));
                mockMvc.perform(MockMvcRequestBuilders.delete("/carts/1"));
                mockMvc.perform(request(HttpMethod.PATCH, "/carts/1"));
                mockMvc.perform(multipart("/carts/1/upload").file(file));
                cache.get("/carts");
            }
        }
        """
    )
    assert calls(facts) == [
        ("GET", "/carts/123", 12, "", "", "MockMvc"),
        ("POST", "/carts/{id}/items", 16, "", "", "MockMvc"),
        ("DELETE", "/carts/1", 17, "", "", "MockMvc"),
        ("PATCH", "/carts/1", 18, "", "", "MockMvc"),
        ("POST", "/carts/1/upload", 19, "", "", "MockMvc"),
    ]
    dsl = kotlin(
        """
        import org.springframework.test.web.servlet.MockMvc
        import org.springframework.test.web.servlet.get

        class OrdersTest(private val mockMvc: MockMvc, private val cache: Map<String, String>) {
            fun run() {
                mockMvc.get("/orders/{id}", 1) { accept = MediaType.APPLICATION_JSON }
                cache.get("/orders")
            }
        }
        """
    )
    assert calls(dsl) == [("GET", "/orders/{id}", 6, "", "", "MockMvc")]
    no_import = java('class A { void run() { mockMvc.perform(get("/carts")); } }')
    assert calls(no_import) == []


def test_web_test_client_and_mock_mvc_tester_are_fluent_clients() -> None:
    facts = java(
        """
        import org.springframework.test.web.reactive.server.WebTestClient;
        import org.springframework.test.web.servlet.assertj.MockMvcTester;

        class OrdersTest {
            private WebTestClient webTestClient;
            private MockMvcTester mvc;

            void run(String id) {
                webTestClient.post().uri("/orders").bodyValue(order).exchange().expectStatus().isCreated();
                webTestClient.get().uri("/orders/{id}", id).exchange();
                mvc.get().uri("/orders/{id}", id);
            }
        }
        """
    )
    assert calls(facts) == [
        ("POST", "/orders", 9, "", "", "WebTestClient"),
        ("GET", "/orders/{id}", 10, "", "", "WebTestClient"),
        ("GET", "/orders/{id}", 11, "", "", "MockMvcTester"),
    ]


# -- URL helpers of the file -------------------------------------------------------------------------


def test_url_helpers_of_the_file_are_expanded_where_they_are_called() -> None:
    facts = java(
        """
        import static io.restassured.RestAssured.given;

        public class ConsumerServiceIT {
            @Value("${local.server.port}")
            private int port;
            private String host = FtgoTestUtil.getDockerHostIp();

            private String baseUrl(String path) {
                return "http://localhost:" + port + path;
            }

            protected String orderUrl(String path) {
                return String.format("http://%s:%s%s", host, port, path);
            }

            void run(Integer orderId) {
                String postUrl = baseUrl("/consumers");
                given().body(request).when().post(postUrl).then().statusCode(200);
                given().when().get(this.baseUrl("/consumers/" + orderId));
                given().when().get(orderUrl("/orders/" + orderId));
            }
        }
        """
    )
    assert calls(facts) == [
        ("POST", "/consumers", 18, "localhost", "", "rest-assured"),
        ("GET", "/consumers/{orderId}", 19, "localhost", "", "rest-assured"),
        ("GET", "/orders/{orderId}", 20, "", "", "rest-assured"),
    ]
    kotlin_facts = kotlin(
        """
        import org.springframework.web.client.RestTemplate

        class Client(private val rest: RestTemplate) {
            private fun url(path: String, version: String = "v1") = "http://billing:8080/$version$path"

            fun run(id: String) {
                rest.getForObject(url("/invoices/$id"), Invoice::class.java)
                rest.getForObject(url(path = "/credits", version = "v2"), Credit::class.java)
            }
        }
        """
    )
    assert calls(kotlin_facts) == [
        ("GET", "/v1/invoices/{id}", 7, "billing", "", "RestTemplate"),
        ("GET", "/v2/credits", 8, "billing", "", "RestTemplate"),
    ]


def test_a_string_builder_helper_with_a_vararg_loop_is_read() -> None:
    facts = java(
        """
        import static com.jayway.restassured.RestAssured.given;

        public class DeliveryServiceComponentTest {
            private String host = "localhost";

            private String baseUrl(int port, String path, String... pathElements) {
                StringBuilder sb = new StringBuilder("http://");
                sb.append(host);
                sb.append(":");
                sb.append(port);
                sb.append("/");
                sb.append(path);
                for (String pe : pathElements) {
                    sb.append("/");
                    sb.append(pe);
                }
                String s = sb.toString();
                System.out.println("url=" + s);
                return s;
            }

            void run(long orderId, long courierId) {
                given().when().get(baseUrl(port, "deliveries", Long.toString(orderId)));
                given().when().post(baseUrl(port, "couriers", Long.toString(courierId), "availability"));
                StringBuilder url = new StringBuilder();
                url.append("http://billing:8080").append("/invoices/").append(orderId);
                if (orderId > 0) url.append("?expand=lines");
                given().get(url.toString());
                StringBuilder changed = new StringBuilder("/a");
                changed.insert(0, "/x");
                given().get(changed.toString());
            }
        }
        """
    )
    assert calls(facts) == [
        ("GET", "/deliveries/{orderId}", 23, "localhost", "", "rest-assured"),
        ("POST", "/couriers/{courierId}/availability", 24, "localhost", "", "rest-assured"),
        ("GET", "/invoices/{orderId}", 28, "billing", "", "rest-assured"),
        ("GET", "?", 31, "", "", "rest-assured"),
    ]


def test_helpers_that_cannot_be_read_stay_computed() -> None:
    facts = java(
        """
        import static io.restassured.RestAssured.given;

        public abstract class OrdersIT {
            protected abstract String baseUrl(String path);

            private String base(int port, String path) { return "http://localhost:" + port + "/" + path; }
            private String orderUrl(String... parts) { return base(8082, "orders"); }
            private String pick(String path) {
                if (path.isEmpty()) {
                    return "/";
                }
                return "http://a:1" + path;
            }
            private int count(String path) { return 1; }
            private String twice(String path) { return "/a" + path; }
            private String twice(int path) { return "/b" + path; }
            private String loop(String path) { return loop(path + "/x"); }

            void run() {
                given().when().post(baseUrl("/orders"));
                given().when().get(orderUrl("1"));
                given().when().get(pick("/x"));
                given().when().get(other.base(1, "/x"));
                given().when().get(loop("/x"));
                given().when().get(twice("/x"));
                given().when().get(count("/x"));
                given().when().get(base(1, "x"));
            }
        }
        """
    )
    assert calls(facts) == [
        ("POST", "?", 20, "", "", "rest-assured"),  # abstract
        ("GET", "?", 21, "", "", "rest-assured"),  # a helper calling a helper: one level only
        ("GET", "?", 22, "", "", "rest-assured"),  # two returns
        ("GET", "?", 23, "", "", "rest-assured"),  # a method of another object
        ("GET", "?", 24, "", "", "rest-assured"),  # recursion: not expanded in itself
        ("GET", "?", 25, "", "", "rest-assured"),  # overloads of the same arity
        ("GET", "?", 26, "", "", "rest-assured"),  # no string returned
        ("GET", "/x", 27, "localhost", "", "rest-assured"),  # the helper the others call, itself readable
    ]


# -- configuration-properties beans ------------------------------------------------------------------


def test_configuration_properties_beans_give_a_setting_per_string_property() -> None:
    facts = java(
        """
        import org.springframework.boot.context.properties.ConfigurationProperties;

        @ConfigurationProperties(prefix = "order.destinations")
        public class OrderDestinations {
            @NotNull
            private String orderServiceUrl;
            private int timeout;
            private String apiToken;
            public static final String DEFAULT = "http://localhost";
            private String orderHistoryServiceUrl;

            public void setLegacyUrl(String url) { }
            public void setOrderServiceUrl(String orderServiceUrl) { this.orderServiceUrl = orderServiceUrl; }
        }

        @ConfigurationProperties("app.services")
        record Services(String billingUrl, int port, URI catalog) {}

        class NotABean {
            private String ordersUrl;
        }
        """
    )
    assert settings_of(facts) == [
        ("client:OrderDestinations.orderServiceUrl", 6, "", "config:order.destinations.orderServiceUrl"),
        ("client:OrderDestinations.orderHistoryServiceUrl", 10, "", "config:order.destinations.orderHistoryServiceUrl"),
        ("client:OrderDestinations.legacyUrl", 12, "", "config:order.destinations.legacyUrl"),
        ("client:Services.billingUrl", 17, "", "config:app.services.billingUrl"),
        ("client:Services.catalog", 17, "", "config:app.services.catalog"),
    ]
    assert all(isinstance(item, Setting) and item.path == "" for item in facts.settings)
    kotlin_facts = kotlin(
        """
        package com.acme

        import org.springframework.boot.context.properties.ConfigurationProperties

        @ConfigurationProperties("billing")
        data class BillingProperties(val url: String, val retries: Int, plain: String, val secretKey: String)

        @ConfigurationProperties(prefix = "catalog")
        class CatalogProperties {
            lateinit var endpoint: String
            var pageSize: Int = 20
        }
        """
    )
    assert settings_of(kotlin_facts) == [
        ("client:BillingProperties.url", 6, "", "config:billing.url"),
        ("client:CatalogProperties.endpoint", 10, "", "config:catalog.endpoint"),
    ]


def test_a_bean_property_is_the_base_address_of_a_url() -> None:
    facts = java(
        """
        package net.acme.gateway.proxies;

        import net.acme.gateway.orders.OrderDestinations;
        import org.springframework.web.reactive.function.client.WebClient;
        import org.springframework.cloud.gateway.route.RouteLocator;
        import org.springframework.web.client.RestTemplate;
        import jakarta.servlet.http.HttpServletRequest;

        public class OrderServiceProxy {
            private OrderDestinations orderDestinations;
            private WebClient client;
            private RestTemplate rest;
            private KafkaTemplate<String, String> kafka;

            void run(String orderId, HttpServletRequest request, Settings settings) {
                client.get().uri(orderDestinations.getOrderServiceUrl() + "/orders/{orderId}", orderId).retrieve();
                WebClient.create(this.orderDestinations.getOrderHistoryServiceUrl()).get().uri("/orders").retrieve();
                rest.getForObject(settings.billingUrl() + "/invoices", String.class);
                rest.getForObject(orderDestinations.getOrderServiceUrl(), String.class);
                rest.getForObject(request.getRequestURI() + "/x", String.class);
                kafka.send(orderDestinations.getTopic(), orderId);
            }

            RouteLocator routes(RouteLocatorBuilder builder) {
                return builder.routes().route(r -> r.path("/orders/**").uri(orderDestinations.getOrderServiceUrl())).build();
            }
        }
        """
    )
    assert calls(facts) == [
        ("GET", "/orders/{orderId}", 16, "", "client:OrderDestinations.orderServiceUrl", "WebClient"),
        ("GET", "/orders", 17, "", "client:OrderDestinations.orderHistoryServiceUrl", "WebClient"),
        ("GET", "/invoices", 18, "", "client:Settings.billingUrl", "RestTemplate"),
        ("GET", "?", 19, "", "", "RestTemplate"),  # the property alone: computed, no address kept
        ("GET", "/x", 20, "", "", "RestTemplate"),  # a library type's getter is no bean
        ("*", "/orders/{*path}", 25, "", "client:OrderDestinations.orderServiceUrl", "spring-cloud-gateway"),
    ]
    # a topic read from a bean is not an address of it: the name stays computed
    assert [(fact.name, fact.address, fact.computed) for fact in facts.messages] == [("", "", True)]
    kotlin_facts = kotlin(
        """
        import org.springframework.web.reactive.function.client.WebClient

        class Proxy(private val props: OrderDestinations, private val client: WebClient) {
            fun find(id: String) = client.get().uri(props.orderServiceUrl + "/orders/{id}", id).retrieve()
        }
        """
    )
    assert calls(kotlin_facts) == [
        ("GET", "/orders/{id}", 4, "", "client:OrderDestinations.orderServiceUrl", "WebClient")
    ]
    through_a_local = java(
        """
        import org.springframework.web.client.RestTemplate;

        class Proxy {
            private Props props;
            private RestTemplate rest;

            void run() {
                String base = props.getOrdersUrl();
                rest.getForObject(base + "/orders", String.class);
            }
        }
        """
    )
    assert calls(through_a_local) == [("GET", "/orders", 9, "", "client:Props.ordersUrl", "RestTemplate")]


# -- totality and cost -----------------------------------------------------------------------------------

_REALISTIC_JAVA = b"""
package com.acme.ui;
import com.acme.ui.client.CatalogClient;
import org.springframework.web.reactive.function.client.WebClient;
import io.restassured.module.mockmvc.RestAssuredMockMvc;
import static io.restassured.RestAssured.given;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.*;
@ConfigurationProperties(prefix = "order.destinations")
class OrderDestinations { private String orderServiceUrl; public void setOtherUrl(String u) {} }
record Services(String billingUrl) {}
class Svc {
  private CatalogClient catalogClient; private OrderDestinations d; private int port; private WebClient client;
  private String baseUrl(String path, String... more) {
    StringBuilder sb = new StringBuilder("http://localhost:");
    sb.append(port).append(path);
    for (String m : more) { sb.append("/").append(m); }
    return sb.toString();
  }
  void run(String id) {
    this.catalogClient.catalog().products().byId(id).get(c -> c.headers.add("a", "b"));
    given().standaloneSetup(x).when().post(baseUrl("/orders", id));
    mockMvc.perform(get("/carts/{id}", id));
    client.get().uri(d.getOrderServiceUrl() + "/orders/{id}", id).retrieve();
  }
}
"""
_REALISTIC_KOTLIN = b"""
package com.acme
import com.acme.client.PostsClient
import org.springframework.test.web.servlet.get
import org.springframework.web.reactive.function.client.WebClient
@ConfigurationProperties("billing")
data class Billing(val url: String)
class A(private val client: PostsClient, private val props: Billing, private val mockMvc: MockMvc, private val web: WebClient) {
  private fun url(path: String) = "http://localhost:8080$path"
  fun run(id: String) {
    client.posts().byPostId(id).get()
    mockMvc.get(url("/orders/$id")) { }
    web.get().uri(props.url + "/x").retrieve()
  }
}
"""

_EDITS = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=1200),
        st.integers(min_value=0, max_value=2),
        st.sampled_from([b"(", b")", b"{", b"}", b'"', b"@", b"$", b".", b"\n", b"<", b">", b"\xff", b"\x00", b"get(",
                         b".append(", b"by(", b"return ", b"for (", b"...", b".toString()", b"= ", b"::"]),
    ),
    max_size=12,
)  # fmt: skip


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


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_EDITS)
@example([])
def test_indirect_clients_never_raise(edits: list[tuple[int, int, bytes]]) -> None:
    """INV-LINKS-1 for these rules: mutated sources full of them give well-formed facts, never an
    exception; unmutated, every rule gives its fact."""
    java_facts = _java.extract(_mutate(_REALISTIC_JAVA, edits))
    kotlin_facts = _kotlin.extract(_mutate(_REALISTIC_KOTLIN, edits))
    for facts in (java_facts, kotlin_facts):
        assert not facts.error.startswith("extractor failed")
        for call in facts.http_calls:
            assert isinstance(call, HttpCall) and call.line >= 1
            assert (call.path == "") == call.computed or call.path.startswith("/")
            assert call.method == "*" or call.method.isupper()
    if not edits:
        assert {call.client for call in java_facts.http_calls} == {"kiota", "rest-assured", "MockMvc", "WebClient"}
        assert len(java_facts.settings) == 2
        assert {call.client for call in kotlin_facts.http_calls} == {"kiota", "MockMvc", "WebClient"}
        assert len(kotlin_facts.settings) == 1


def test_long_builder_chains_and_many_helper_calls_stay_linear() -> None:
    """A 5,000-link navigation chain, 3,000 calls of a helper, a builder of 3,000 appends."""
    start = time.process_time()
    chain = (
        b"import com.acme.ApiClient;\nclass A { ApiClient api; void f() { api" + b".items()" * 5_000 + b".get(); } }"
    )
    assert _java.extract(chain).http_calls == ()  # longer than a chain is followed
    helpers = (
        b"import static io.restassured.RestAssured.given;\n"
        b'class A { String u(String p) { return "http://h:1" + p; } void f() {'
        + b'given().get(u("/x"));' * 3_000
        + b"} }"
    )
    assert {(call.path, call.host) for call in _java.extract(helpers).http_calls} == {("/x", "h")}
    assert len(_java.extract(helpers).http_calls) == 3_000
    appends = (
        b"import static io.restassured.RestAssured.given;\n"
        b"class A { void f() { StringBuilder sb = new StringBuilder();"
        + b'sb.append("/x");' * 300
        + b"given().get(sb.toString()); } }"
    )
    assert [call.path for call in _java.extract(appends).http_calls] == ["/x" * 300]
    too_many = appends.replace(b'sb.append("/x");', b'sb.append("/x");' * 10)
    assert [call.computed for call in _java.extract(too_many).http_calls] == [True]  # past the walk's bound
    assert time.process_time() - start < 10.0
