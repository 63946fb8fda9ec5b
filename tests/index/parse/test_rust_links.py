"""Rust links: actix-web/axum/Rocket/warp routes, reqwest/hyper/surf/ureq calls, rdkafka/lapin/NATS/Redis
messages and link constants, each read from realistic code (and look-alikes that are none)."""

from __future__ import annotations

import textwrap

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mesh.index._facts import Constant, FileFacts, HttpRoute
from mesh.index.parse import _rust


def facts(source: str) -> FileFacts:
    return _rust.extract(textwrap.dedent(source).lstrip("\n").encode())


def routes(source: str) -> list[tuple[str, str, str]]:
    return [(r.method, r.path, r.handler) for r in facts(source).http_routes]


def calls(source: str) -> list[tuple[str, str, str, str, str, bool]]:
    return [(c.method, c.path, c.host, c.address, c.client, c.computed) for c in facts(source).http_calls]


def messages(source: str) -> list[tuple[str, str, str, str, str]]:
    return [(m.role, m.broker, m.name, m.kind, m.address) for m in facts(source).messages]


# -- actix-web -------------------------------------------------------------------------------------------

ACTIX = """
use actix_web::{get, post, web, App, HttpResponse, HttpServer, Responder};

#[get("/users/{id}")]
async fn get_user(path: web::Path<u32>) -> impl Responder {
    HttpResponse::Ok()
}

#[post("/users")]
async fn create_user() -> impl Responder {
    HttpResponse::Created()
}

#[actix_web::route("/multi", method = "GET", method = "HEAD")]
async fn multi() -> impl Responder {
    HttpResponse::Ok()
}

async fn item() -> impl Responder {
    HttpResponse::Ok()
}

fn config(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/app").route(web::get().to(item)).route(web::head().to(HttpResponse::MethodNotAllowed)));
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    HttpServer::new(|| {
        App::new()
            .service(get_user)
            .service(web::scope("/api").service(create_user).configure(config).route("/x", web::post().to(item)))
            .service(web::resource("/items/{id}").route(web::get().to(item)).route(web::delete().to(item)))
            .route("/health", web::get().to(|| async { "ok" }))
            .service(web::scope("/v2").configure(users::config))
    })
    .bind(("127.0.0.1", 8080))?
    .run()
    .await
}
"""


def test_actix_web_routes_with_scopes() -> None:
    result = facts(ACTIX)
    assert [(r.method, r.path, r.handler, r.line, r.symbol) for r in result.http_routes] == [
        ("GET", "/users/{id}", "get_user", 3, "get_user"),
        ("POST", "/api/users", "create_user", 8, "create_user"),
        ("GET", "/multi", "multi", 13, "multi"),
        ("HEAD", "/multi", "multi", 13, "multi"),
        ("GET", "/api/app", "item", 23, "config"),
        ("HEAD", "/api/app", "HttpResponse::MethodNotAllowed", 23, "config"),
        ("POST", "/api/x", "item", 31, "main"),
        ("GET", "/items/{id}", "item", 32, "main"),
        ("DELETE", "/items/{id}", "item", 32, "main"),
        ("GET", "/health", "", 33, "main"),
        ("*", "/v2", "", 34, "main"),
    ]
    assert result.http_routes[-1].mount == "users"
    assert {r.framework for r in result.http_routes} == {"actix-web"}


# -- axum ------------------------------------------------------------------------------------------------


def test_axum_router_with_nests() -> None:
    source = """
    use axum::{routing::{get, post}, Router};
    use crate::api::users;

    async fn root() -> &'static str { "Hello" }

    fn api_routes() -> Router {
        Router::new()
            .route("/orders", get(list_orders).post(create_order))
            .route("/orders/:id", get(get_order).delete(delete_order))
            .route("/files/{*path}", axum::routing::get(serve))
    }

    #[tokio::main]
    async fn main() {
        let admin = Router::new().route("/stats", get(stats));
        let app = Router::new()
            .route("/", get(root))
            .nest("/api", api_routes())
            .nest("/admin", admin)
            .nest("/users", users::router())
            .route("/health", get(|| async { "ok" }))
            .with_state(state);
    }
    """
    result = facts(source)
    assert [(r.method, r.path, r.handler, r.mount) for r in result.http_routes] == [
        ("GET", "/api/orders", "list_orders", ""),
        ("POST", "/api/orders", "create_order", ""),
        ("GET", "/api/orders/{id}", "get_order", ""),
        ("DELETE", "/api/orders/{id}", "delete_order", ""),
        ("GET", "/api/files/{*path}", "serve", ""),
        ("GET", "/admin/stats", "stats", ""),
        ("GET", "/", "root", ""),
        ("*", "/users", "", "crate::api::users"),
        ("GET", "/health", "", ""),
    ]
    assert result.http_routes[0].symbol == "api_routes" and result.http_routes[0].framework == "axum"


def test_axum_method_routers_on_and_any() -> None:
    source = """
    use axum::{routing::{any, on, MethodFilter}, Router};
    fn app() -> Router {
        Router::new().route("/echo", any(echo)).route("/up", on(MethodFilter::PUT, upload))
    }
    """
    assert routes(source) == [("*", "/echo", "echo"), ("PUT", "/up", "upload")]


# -- Rocket and warp -------------------------------------------------------------------------------------


def test_rocket_routes_and_mounts() -> None:
    source = """
    #[macro_use] extern crate rocket;

    #[get("/")]
    fn index() -> &'static str { "Hello" }

    #[get("/hello/<name>/<age>")]
    fn hello(name: &str, age: u8) -> String { format!("{name}") }

    #[post("/orders", data = "<order>")]
    fn create(order: Json<Order>) {}

    #[get("/search?<q>")]
    fn search(q: &str) {}

    #[get("/files/<path..>")]
    fn files(path: PathBuf) {}

    #[launch]
    fn rocket() -> _ {
        rocket::build()
            .mount("/", routes![index, files])
            .mount("/api", routes![hello, create, search, other::list])
    }
    """
    result = facts(source)
    assert [(r.method, r.path, r.handler, r.mount) for r in result.http_routes] == [
        ("GET", "/", "index", ""),
        ("GET", "/api/hello/{name}/{age}", "hello", ""),
        ("POST", "/api/orders", "create", ""),
        ("GET", "/api/search", "search", ""),
        ("GET", "/files/{*path}", "files", ""),
        ("*", "/api", "", "other"),
    ]
    assert {r.framework for r in result.http_routes} == {"rocket"}


def test_warp_paths_best_effort() -> None:
    source = """
    use warp::Filter;
    #[tokio::main]
    async fn main() {
        let hello = warp::path!("hello" / String).map(|name| format!("Hello, {}!", name));
        let create = warp::post().and(warp::path!("api" / "orders")).and(warp::body::json()).and_then(create_order);
        let get_one = warp::path!("api" / "orders" / u32).and(warp::get()).and_then(get_order);
        warp::serve(hello.or(create).or(get_one)).run(([127, 0, 0, 1], 3030)).await;
    }
    """
    assert [(r.method, r.path, r.framework) for r in facts(source).http_routes] == [
        ("*", "/hello/{}", "warp"),
        ("POST", "/api/orders", "warp"),
        ("GET", "/api/orders/{}", "warp"),
    ]


def test_attributes_and_calls_named_like_routes_are_none_elsewhere() -> None:
    source = """
    #[derive(Debug, Clone)]
    struct Cache { map: HashMap<String, String> }

    #[cfg(feature = "x")]
    fn get(map: &HashMap<String, String>) -> Option<&String> {
        map.get("key")
    }

    #[get("/not-a-route")]
    struct NotAFunction;

    fn route(x: u32) -> u32 { x }

    #[actix_web::get("/real")]
    async fn real() -> impl Responder { "ok" }
    """
    assert routes(source) == [("GET", "/real", "real")]


# -- HTTP clients ----------------------------------------------------------------------------------------

REQWEST = """
use reqwest::Client;
use std::env;

pub struct OrdersClient {
    http: Client,
    base_url: String,
}

impl OrdersClient {
    pub fn new() -> Self {
        let base_url = env::var("ORDERS_SERVICE_URL").unwrap_or_else(|_| "http://orders:8080".to_string());
        Self { http: Client::new(), base_url }
    }

    pub async fn get(&self, id: u64) -> Result<Order> {
        let url = format!("{}/orders/{}", self.base_url, id);
        let order = self.http.get(&url).send().await?.json().await?;
        Ok(order)
    }

    pub async fn create(&self, order: &Order) -> Result<()> {
        self.http.post(format!("{}/orders", self.base_url)).json(order).send().await?;
        Ok(())
    }
}
"""


def test_reqwest_client_with_a_base_from_the_environment() -> None:
    result = facts(REQWEST)
    assert [(c.method, c.path, c.host, c.address, c.line, c.symbol) for c in result.http_calls] == [
        ("GET", "/orders/{id}", "orders", "env:ORDERS_SERVICE_URL", 17, "OrdersClient.get"),
        ("POST", "/orders", "orders", "env:ORDERS_SERVICE_URL", 22, "OrdersClient.create"),
    ]
    assert {c.client for c in result.http_calls} == {"reqwest"}


def test_reqwest_module_functions_builders_and_requests() -> None:
    source = """
    const INVENTORY_URL: &str = "http://inventory:9000";

    async fn fetch(id: u64, settings: &Settings) -> Result<()> {
        let body = reqwest::get("https://www.rust-lang.org/learn").await?.text().await?;
        let client = reqwest::Client::builder().timeout(t).build()?;
        client.delete(format!("{INVENTORY_URL}/stock/{id}")).send().await?;
        client.request(reqwest::Method::PATCH, "http://inventory/stock").send().await?;
        let url = settings.catalog.url.clone();
        client.get(format!("{}/items", url)).send().await?;
        client.get(next_page).send().await?;
        Ok(())
    }
    """
    assert calls(source) == [
        ("GET", "/learn", "www.rust-lang.org", "", "reqwest", False),
        ("DELETE", "/stock/{id}", "inventory", "", "reqwest", False),
        ("PATCH", "/stock", "inventory", "", "reqwest", False),
        ("GET", "/items", "", "config:catalog.url", "reqwest", False),
        ("GET", "", "", "", "reqwest", True),
    ]


def test_ureq_surf_and_hyper() -> None:
    source = """
    use hyper::{Body, Method, Request};

    fn sync() -> Result<()> {
        let resp = ureq::get("http://catalog/items").call()?;
        let agent = ureq::agent();
        agent.post("http://catalog/items").send_json(x)?;
        Ok(())
    }

    async fn asynchronous() -> Result<()> {
        let s = surf::get("http://users/api/users").await?;
        let req = Request::builder().method(Method::POST).uri("http://billing/invoices").body(Body::empty())?;
        let req = Request::builder().uri(format!("http://billing/invoices/{}", id)).body(Body::empty())?;
        Ok(())
    }

    #[cfg(test)]
    mod tests {
        #[tokio::test]
        async fn routes() {
            let req = Request::builder().uri("/users").body(Body::empty()).unwrap();
            app.oneshot(req).await.unwrap();
        }
    }
    """
    assert calls(source) == [
        ("GET", "/items", "catalog", "", "ureq", False),
        ("POST", "/items", "catalog", "", "ureq", False),
        ("GET", "/api/users", "users", "", "surf", False),
        ("POST", "/invoices", "billing", "", "hyper", False),
        ("GET", "/invoices/{id}", "billing", "", "hyper", False),
    ]


def test_hyper_client() -> None:
    source = """
    use hyper::{Client, Uri};
    async fn fetch() -> Result<()> {
        let client = Client::new();
        let uri = "http://httpbin.org/ip".parse()?;
        let resp = client.get(uri).await?;
        Ok(())
    }
    """
    assert calls(source) == [("GET", "/ip", "httpbin.org", "", "hyper", False)]


def test_lookalikes_are_no_calls() -> None:
    source = """
    use reqwest::Client;
    fn f(map: &HashMap<&str, u32>, v: &Vec<u32>, cache: &Cache) {
        map.get("key");
        v.get(0);
        cache.get("/x");
        let (tx, rx) = channel();
        tx.send(map.get("y"));
        self.senders.get(&id).unwrap().send(message);
        reqwest::Client::new().get("http://catalog/items").send();
    }
    """
    assert calls(source) == [("GET", "/items", "catalog", "", "reqwest", False)]


# -- messaging -------------------------------------------------------------------------------------------


def test_rdkafka_and_lapin() -> None:
    source = """
    use rdkafka::producer::{FutureProducer, FutureRecord};
    use rdkafka::consumer::{Consumer, StreamConsumer};
    use lapin::{options::*, BasicProperties, Connection};

    const ORDERS_TOPIC: &str = "orders";

    async fn run(producer: &FutureProducer, consumer: StreamConsumer, channel: lapin::Channel) {
        producer.send(FutureRecord::to(ORDERS_TOPIC).payload("x").key("k"), Duration::from_secs(0)).await;
        producer.send(FutureRecord::to(&topic_name).payload("x"), Duration::from_secs(0)).await;
        consumer.subscribe(&["payments", "refunds"]).expect("subscribe");
        channel.basic_publish("", "hello", BasicPublishOptions::default(), b"x", BasicProperties::default()).await;
        channel.basic_publish("logs", "", BasicPublishOptions::default(), b"x", BasicProperties::default()).await;
        channel.basic_consume("hello", "tag", BasicConsumeOptions::default(), FieldTable::default()).await;
        channel.queue_bind("q", "logs", "", QueueBindOptions::default(), FieldTable::default()).await;
    }
    """
    result = facts(source)
    assert [(m.role, m.broker, m.name, m.kind, m.client) for m in result.messages] == [
        ("produce", "kafka", "orders", "topic", "rdkafka"),
        ("produce", "kafka", "", "topic", "rdkafka"),
        ("consume", "kafka", "payments", "topic", "rdkafka"),
        ("consume", "kafka", "refunds", "topic", "rdkafka"),
        ("produce", "rabbitmq", "hello", "queue", "lapin"),
        ("produce", "rabbitmq", "logs", "exchange", "lapin"),
        ("consume", "rabbitmq", "hello", "queue", "lapin"),
        ("consume", "rabbitmq", "logs", "exchange", "lapin"),
    ]
    assert result.messages[1].computed
    assert result.constants == (Constant("ORDERS_TOPIC", "orders", 5),)


def test_nats_and_redis() -> None:
    nats = """
    async fn nats() -> Result<(), async_nats::Error> {
        let client = async_nats::connect("nats://localhost:4222").await?;
        let mut subscriber = client.subscribe("orders.created").await?;
        client.publish("orders.created", "data".into()).await?;
        client.queue_subscribe("events", "workers".into()).await?;
        let map = HashMap::new();
        map.get("x");
    }
    """
    assert messages(nats) == [
        ("consume", "nats", "orders.created", "subject", ""),
        ("produce", "nats", "orders.created", "subject", ""),
        ("consume", "nats", "events", "subject", ""),
    ]
    redis = """
    use redis::Commands;
    fn r(channel: &str) -> redis::RedisResult<()> {
        let client = redis::Client::open("redis://127.0.0.1/")?;
        let mut con = client.get_connection()?;
        con.publish("news", "hello")?;
        let mut pubsub = con.as_pubsub();
        pubsub.subscribe(channel)?;
        Ok(())
    }
    """
    result = facts(redis)
    assert [(m.role, m.broker, m.name, m.computed) for m in result.messages] == [
        ("produce", "redis", "news", False),
        ("consume", "redis", "", True),
    ]


def test_sends_and_subscriptions_of_other_things_are_no_messages() -> None:
    source = """
    use tokio::sync::broadcast;
    fn f(tx: broadcast::Sender<u32>, bus: &EventBus) {
        tx.send(1);
        let mut rx = tx.subscribe();
        bus.publish(Event::Created);
        observable.subscribe(|x| println!("{}", x));
        let record = rdkafka::producer::FutureRecord::to("real");
    }
    """
    assert messages(source) == [("produce", "kafka", "real", "topic", "")]


# -- constants -------------------------------------------------------------------------------------------


def test_link_constants() -> None:
    source = """
    pub const PAYMENTS_TOPIC: &str = "payments";
    static ORDERS_URL: &'static str = "http://orders:8080";
    const API_TOKEN_URL: &str = "http://auth/token";
    const TIMEOUT_SECS: &str = "30";
    mod queues {
        pub const AUDIT_QUEUE: &str = "audit";
    }
    impl Api {
        const BASE_PATH: &'static str = "/api/v1";
    }
    fn f() {
        const LOCAL_PATH: &str = "/x";
    }
    """
    assert facts(source).constants == (
        Constant("PAYMENTS_TOPIC", "payments", 1),
        Constant("ORDERS_URL", "http://orders:8080", 2),
        Constant("AUDIT_QUEUE", "audit", 6),
        Constant("Api.BASE_PATH", "/api/v1", 9),
    )


def test_a_source_that_is_not_ascii_gives_the_same_facts() -> None:
    """Query predicates read node text as UTF-8: other text, and bytes that are not UTF-8, change nothing."""
    ascii_facts = facts(ACTIX)
    assert ascii_facts.http_routes
    other = _rust.extract(textwrap.dedent(ACTIX).lstrip("\n").encode() + "\n// naïve café ✓\nconst E: &str = \"€\";\n".encode())
    assert (other.http_routes, other.http_calls, other.messages) == (
        ascii_facts.http_routes,
        ascii_facts.http_calls,
        ascii_facts.messages,
    )
    broken = _rust.extract(textwrap.dedent(ACTIX).lstrip("\n").encode() + b"\nfn g\x80() { x.get\x80(\"/x\").send(); }\n")
    assert broken.http_routes[: len(ascii_facts.http_routes)] == ascii_facts.http_routes


# -- totality --------------------------------------------------------------------------------------------

_SNIPPETS = [
    ACTIX,
    REQWEST,
    'use axum::Router;\nfn a() -> Router { Router::new().nest("/a", a()).route("/x", get(h)) }\n',
]


@settings(max_examples=150)
@given(st.sampled_from(_SNIPPETS), st.lists(st.tuples(st.integers(0, 2000), st.binary(max_size=6)), max_size=8))
@example(ACTIX, [(30, b"}}}{{{")])
@example('use axum::Router;\nfn a() -> Router { Router::new().nest("/a", b()) }\nfn b() -> Router { Router::new().nest("/b", a()).route("/x", get(h)) }\n', [])
@example("use warp::Filter;\nfn f() { warp::path!(" + '"a" / ' * 500 + "u32); }\n", [])
@example("use reqwest;\nfn f() { let a = b; let b = a; reqwest::get(a); }\n", [])
@example("use reqwest;\nfn f() {\n" + "let x = format!(\"{}{}\", x, x);\n" * 40 + "reqwest::get(x);\n}\n", [])
def test_links_never_raise(snippet: str, edits: list[tuple[int, bytes]]) -> None:
    """INV-LINKS-1: extractors of links are total: any bytes give facts, never an exception."""
    data = bytearray(textwrap.dedent(snippet).encode())
    for at, junk in edits:
        at = min(at, len(data))
        data[at : at + len(junk)] = junk
    result = _rust.extract(bytes(data))
    assert result.language == "rust"
    if not edits and snippet in _SNIPPETS:
        assert result.http_routes or result.http_calls or result.messages
    assert all(route.path.startswith("/") for route in result.http_routes)
    assert all(call.computed == (call.path == "") for call in result.http_calls)


def test_facts_are_deterministic_and_in_source_order() -> None:
    source = ACTIX + REQWEST.replace("use reqwest::Client;", "use reqwest::Client as Http;")
    first, second = facts(source), facts(source)
    assert first == second
    assert first.http_routes and first.http_calls
    for group in (first.http_routes, first.http_calls):
        lines = [fact.line for fact in group]
        assert lines == sorted(lines)
    assert all(isinstance(r, HttpRoute) for r in first.http_routes)
