"""The Rust extractor: items, use/extern crate imports, and tonic evidence followed through the file."""

from __future__ import annotations

import textwrap

from hypothesis import example, given
from hypothesis import strategies as st

from mesh.index._facts import Definition, FileFacts, Import
from mesh.index.parse import _rust, extract
from tests.support.facts import call, client, handler, server


def facts(source: str) -> FileFacts:
    return _rust.extract(textwrap.dedent(source).lstrip("\n").encode())


def test_items_nest_in_mods_impls_and_traits() -> None:
    result = facts(
        """
        mod storage;

        pub mod orders {
            pub const LIMIT: usize = 10;
            static mut COUNTER: u64 = 0;

            pub struct Order<T> {
                id: u64,
                item: T,
            }

            pub enum State { Open, Closed }

            pub type Id = u64;

            pub trait Store {
                type Error;
                fn get(&self, id: Id) -> Option<Order<String>>;
                fn count(&self) -> usize {
                    0
                }
            }

            impl<T> Order<T> {
                pub fn new(id: u64, item: T) -> Self {
                    fn check(id: u64) -> bool {
                        id > 0
                    }
                    check(id);
                    Self { id, item }
                }
            }

            impl<T: Clone> std::fmt::Display for &'static Order<T> {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    Ok(())
                }
            }
        }

        union Bits { i: u32, f: f32 }

        extern "C" {
            fn abs(x: i32) -> i32;
        }

        pub async fn main() {}
        """
    )
    assert result.definitions == (
        Definition("storage", "module", "", 1, 1),
        Definition("orders", "module", "", 3, 39),
        Definition("LIMIT", "constant", "orders", 4, 4),
        Definition("COUNTER", "constant", "orders", 5, 5),
        Definition("Order", "struct", "orders", 7, 10),
        Definition("State", "enum", "orders", 12, 12),
        Definition("Open", "constant", "orders.State", 12, 12),
        Definition("Closed", "constant", "orders.State", 12, 12),
        Definition("Id", "type", "orders", 14, 14),
        Definition("Store", "trait", "orders", 16, 22),
        Definition("Error", "type", "orders.Store", 17, 17),
        Definition("get", "method", "orders.Store", 18, 18),
        Definition("count", "method", "orders.Store", 19, 21),
        Definition("new", "method", "orders.Order", 25, 31),
        Definition("check", "function", "orders.Order.new", 26, 28),
        Definition("fmt", "method", "orders.Order", 35, 37),
        Definition("Bits", "struct", "", 41, 41),
        Definition("abs", "function", "", 44, 44),
        Definition("main", "function", "", 47, 47),
    )
    assert result.imports == ()
    assert result.grpc == ()
    assert result.error == ""
    assert result.language == "rust"


def test_use_and_extern_crate_imports() -> None:
    result = facts(
        """
        use std::collections::HashMap;
        use a::b::{c, d as e};
        pub use crate::db::*;
        use super::{
            x::{y, z},
            w,
        };
        use ::std::fmt as f;
        use self::inner::Thing;
        extern crate serde;
        extern crate foo as bar;
        mod inner;

        fn f() {
            use std::io::Write;
        }
        """
    )
    assert result.imports == (
        Import("std::collections::HashMap", 1),
        Import("a::b", 2, ("c", "d")),
        Import("crate::db", 3, ("*",)),
        Import("super", 4, ("x::y", "x::z", "w")),
        Import("::std::fmt", 8),
        Import("self::inner::Thing", 9),
        Import("serde", 10),
        Import("foo", 11),
        Import("std::io::Write", 15),
    )
    assert Definition("inner", "module", "", 12, 12) in result.definitions


def test_tonic_server_impl_by_path_and_registrations() -> None:
    result = facts(
        """
        use tonic::{transport::Server, Request, Response, Status};

        pub mod pb {
            tonic::include_proto!("acme.orders.v1");
        }

        #[derive(Default)]
        pub struct MyOrders {}

        #[tonic::async_trait]
        impl pb::orders_server::Orders for MyOrders {
            async fn get_order(&self, request: Request<pb::GetOrderRequest>) -> Result<Response<pb::Order>, Status> {
                Ok(Response::new(pb::Order::default()))
            }

            type WatchOrdersStream = ReceiverStream<Result<pb::Order, Status>>;

            async fn watch_orders(&self, request: Request<pb::WatchRequest>) -> Result<Response<Self::WatchOrdersStream>, Status> {
                todo!()
            }
        }

        #[tokio::main]
        async fn main() -> Result<(), Box<dyn std::error::Error>> {
            let svc = pb::orders_server::OrdersServer::new(MyOrders::default());
            Server::builder()
                .add_service(svc)
                .add_service(pb::orders_server::OrdersServer::with_interceptor(MyOrders::default(), check))
                .serve(addr)
                .await?;
            Ok(())
        }
        """
    )
    assert result.grpc == (
        server("Orders", 11, "MyOrders", "pb"),
        handler("Orders", "get_order", 12, "MyOrders.get_order", "pb"),
        handler("Orders", "watch_orders", 18, "MyOrders.watch_orders", "pb"),
        server("Orders", 25, "main", "pb"),
        server("Orders", 28, "main", "pb"),
    )


def test_tonic_server_trait_imported_by_use() -> None:
    result = facts(
        """
        use acme::orders::v1::order_service_server::{OrderService, OrderServiceServer};
        use tonic::transport::Server;

        pub struct Svc;

        #[tonic::async_trait]
        impl OrderService for Svc {
            async fn place_order(&self, r: Request<PlaceOrder>) -> Result<Response<Placed>, Status> {
                todo!()
            }
        }

        impl Svc {
            fn helper(&self) {}
        }

        async fn serve() {
            Server::builder().add_service(OrderServiceServer::new(Svc)).serve(addr).await.unwrap();
        }
        """
    )
    assert result.grpc == (
        server("OrderService", 7, "Svc", "acme::orders::v1"),
        handler("OrderService", "place_order", 8, "Svc.place_order", "acme::orders::v1"),
        server("OrderService", 18, "serve", "acme::orders::v1"),
    )


def test_tonic_client_followed_through_lets_fields_and_parameters() -> None:
    result = facts(
        """
        use pb::orders_client::OrdersClient;
        use tonic::transport::Channel;

        pub struct Checkout {
            client: OrdersClient<Channel>,
            cache: HashMap<u64, Order>,
        }

        impl Checkout {
            pub async fn connect(addr: String) -> Result<Self, Error> {
                let client = OrdersClient::connect(addr).await?;
                Ok(Self { client, cache: HashMap::new() })
            }

            pub async fn fetch(&mut self, id: u64) -> Result<Order, Status> {
                if let Some(o) = self.cache.get(&id) {
                    return Ok(o.clone());
                }
                let reply = self.client.get_order(GetOrderRequest { id }).await?;
                self.client.clone().cancel_order(CancelRequest { id }).await?;
                let mut spare = self.client.clone();
                spare
                    .place_order(req)
                    .await?;
                Ok(reply.into_inner())
            }
        }

        async fn list(client: &mut OrdersClient<Channel>) {
            let stream = client.list_orders(ListRequest {}).await;
        }

        #[tokio::main]
        async fn main() -> Result<(), Box<dyn std::error::Error>> {
            let channel = Channel::from_static("http://[::1]:50051").connect().await?;
            let mut client = OrdersClient::new(channel);
            let reply = client.get_order(req).await?;
            list(&mut client).await;
            Ok(())
        }
        """
    )
    assert result.grpc == (
        client("Orders", 11, "Checkout.connect", "pb"),
        call("Orders", "get_order", 19, "Checkout.fetch", "pb"),
        call("Orders", "cancel_order", 20, "Checkout.fetch", "pb"),
        call("Orders", "place_order", 23, "Checkout.fetch", "pb"),
        call("Orders", "list_orders", 30, "list", "pb"),
        client("Orders", 36, "main", "pb"),
        call("Orders", "get_order", 37, "main", "pb"),
    )


def test_tonic_client_by_full_path_chained_and_typed_let() -> None:
    result = facts(
        """
        async fn run() -> Result<(), Error> {
            let mut c = acme::orders::v1::orders_client::OrdersClient::connect(ADDR)
                .await?
                .max_decoding_message_size(1 << 20);
            c.get_order(r).await?;
            let reply = inventory_client::InventoryClient::connect(ADDR).await?.reserve(x).await?;
            let typed: acme::orders::v1::orders_client::OrdersClient<Channel> = make();
            typed.cancel_order(r).await?;
            Ok(())
        }
        """
    )
    assert result.grpc == (
        client("Orders", 2, "run", "acme::orders::v1"),
        call("Orders", "get_order", 5, "run", "acme::orders::v1"),
        client("Inventory", 6, "run"),
        call("Inventory", "reserve", 6, "run"),
        call("Orders", "cancel_order", 8, "run", "acme::orders::v1"),
    )


def test_tonic_glob_imports_and_module_imports() -> None:
    result = facts(
        """
        use pb::orders_client::*;
        use pb::orders_server;

        struct S;
        impl orders_server::Orders for S {
            async fn get_order(&self, r: Request<G>) -> Result<Response<O>, Status> { todo!() }
        }

        async fn go() {
            let mut c = OrdersClient::connect(ADDR).await.unwrap();
            c.get_order(r).await;
        }
        """
    )
    assert result.grpc == (
        server("Orders", 5, "S", "pb"),
        handler("Orders", "get_order", 6, "S.get_order", "pb"),
        client("Orders", 10, "go", "pb"),
        call("Orders", "get_order", 11, "go", "pb"),
    )


def test_no_grpc_facts_for_look_alikes() -> None:
    result = facts(
        """
        use std::collections::HashMap;
        use actix_web::HttpServer;
        use orders::Orders;

        struct Handler { map: HashMap<String, String>, client: reqwest::Client }

        impl Orders for Handler {
            fn get_order(&self) {}
        }

        impl Handler {
            async fn go(&self) {
                let client = reqwest::Client::new();
                client.get(url).send().await;
                self.client.get(url);
                self.map.get("k");
                HttpServer::new(|| App::new()).bind(addr).run().await;
                let map = HashMap::new();
                map.get("x");
            }
        }
        """
    )
    assert result.grpc == ()


def test_bindings_are_scoped_and_shadowed() -> None:
    result = facts(
        """
        use pb::orders_client::OrdersClient;

        async fn a() {
            let mut client = OrdersClient::connect(ADDR).await?;
            client.get_order(r).await?;
            {
                let client = Vec::new();
                client.push(1);
            }
            client.clone().cancel_order(r).await?;
        }

        async fn b() {
            client.get_order(r).await?;
        }
        """
    )
    assert result.grpc == (
        client("Orders", 4, "a", "pb"),
        call("Orders", "get_order", 5, "a", "pb"),
        call("Orders", "cancel_order", 10, "a", "pb"),
    )


def test_aliases_holders_struct_literals_and_spawned_clones() -> None:
    result = facts(
        """
        use acme::billing_client::BillingClient as Billing;
        use tonic::transport::Channel;

        pub struct Gateway<T> {
            billing: Option<Billing<Channel>>,
            orders: T,
        }

        impl<T> Gateway<T> {
            pub fn new(channel: Channel, orders: T) -> Self {
                Self { billing: None, orders }
            }

            pub fn with_orders(channel: Channel) -> Gateway<OrdersClient<Channel>> {
                Gateway { billing: None, orders: OrdersClient::new(channel) }
            }

            pub async fn charge(&self) {
                self.billing.as_ref().unwrap().clone().charge(req).await;
                self.orders.get_order(req).await;
            }
        }

        async fn fan_out(client: Billing<Channel>) {
            let c = client.clone();
            tokio::spawn(async move {
                c.refund(req).await
            });
            let mut client = Vec::new();
            client.push(1);
        }
        """
    )
    assert result.grpc == (
        client("Orders", 15, "Gateway.with_orders"),
        call("Billing", "charge", 19, "Gateway.charge", "acme"),
        call("Orders", "get_order", 20, "Gateway.charge"),
        call("Billing", "refund", 27, "fan_out", "acme"),
    )


def test_bare_generated_names_need_tonic_in_the_file() -> None:
    source = """
        async fn go() {
            let mut c = OrdersClient::connect(ADDR).await?;
            c.get_order(r).await?;
        }
        """
    assert facts(source).grpc == ()
    assert facts("// uses tonic" + textwrap.dedent(source)).grpc == (
        client("Orders", 3, "go"),
        call("Orders", "get_order", 4, "go"),
    )


def test_tonic_async_trait_marks_a_bare_service_trait() -> None:
    result = facts(
        """
        use hello_world::*;

        #[derive(Default)]
        pub struct MyGreeter {}

        #[tonic::async_trait]
        impl Greeter for MyGreeter {
            async fn say_hello(&self, request: Request<HelloRequest>) -> Result<Response<HelloReply>, Status> {
                todo!()
            }
        }

        impl Default for Config {
            fn default() -> Self { todo!() }
        }
        """
    )
    assert result.grpc == (
        server("Greeter", 7, "MyGreeter"),
        handler("Greeter", "say_hello", 8, "MyGreeter.say_hello"),
    )


def test_syntax_error_keeps_what_was_read() -> None:
    result = facts(
        """
        use std::fmt;

        struct Good;

        fn broken( {
        }

        fn after() {}
        """
    )
    assert result.error == "syntax error at line 5"
    assert result.imports == (Import("std::fmt", 1),)
    assert Definition("Good", "struct", "", 3, 3) in result.definitions
    assert Definition("after", "function", "", 8, 8) in result.definitions


def test_dispatch_by_suffix() -> None:
    assert extract("src/lib.rs", b"fn f() {}\n").definitions == (Definition("f", "function", "", 1, 1),)


@given(st.binary(max_size=400))
@example(b"\xff\xfe\x00fn \x80(")
@example(b"fn f() {" + b"{" * 3000)
@example(b"use a::{" * 500)
@example(b"impl a_server::A for B { fn f() { let c = a_client::AClient::new(x); c." * 50)
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    result = _rust.extract(data)
    assert result.language == "rust"


_TOKENS = ["fn", "impl", "use", "mod", "struct", "let", "self", ".", "::", "{", "}", "(", ")", "<", ">", ";", "&"]
_TOKENS += ["mut", "for", "a_server", "A", "AServer", "b_client", "BClient", "new", "connect", "tonic", "\n", "#[", "]"]


@given(st.lists(st.sampled_from(_TOKENS), max_size=120).map(" ".join) | st.text(max_size=300))
def test_arbitrary_text_never_raises(text: str) -> None:
    assert _rust.extract(text.encode()).language == "rust"


def sample(units: int = 28) -> bytes:
    """A realistic ~2,000-line tonic service crate (used for the speed measurement too)."""
    parts = ["use std::collections::HashMap;\nuse tonic::{transport::Channel, Request, Response, Status};\n"]
    for i in range(units):
        parts.append(
            f"""
use crate::pb::orders{i}_client::Orders{i}Client;
use crate::pb::orders{i}_server::{{Orders{i}, Orders{i}Server}};

/// Keeps the orders of shard {i}.
#[derive(Debug, Default)]
pub struct Shard{i} {{
    orders: HashMap<u64, Order>,
    peer: Orders{i}Client<Channel>,
}}

#[tonic::async_trait]
impl Orders{i} for Shard{i} {{
    async fn get_order(&self, request: Request<GetOrderRequest>) -> Result<Response<Order>, Status> {{
        let id = request.into_inner().id;
        match self.orders.get(&id) {{
            Some(order) => Ok(Response::new(order.clone())),
            None => Err(Status::not_found(format!("order {{id}}"))),
        }}
    }}

    async fn place_order(&self, request: Request<PlaceOrderRequest>) -> Result<Response<Order>, Status> {{
        let req = request.into_inner();
        let mut total = 0u64;
        for line in &req.lines {{
            total += line.quantity as u64 * line.price;
        }}
        let order = Order {{ id: req.id, total, ..Default::default() }};
        Ok(Response::new(order))
    }}
}}

impl Shard{i} {{
    pub fn new() -> Self {{
        Self::default()
    }}

    pub async fn forward(&self, id: u64) -> Result<Order, Status> {{
        let reply = self.peer.clone().get_order(GetOrderRequest {{ id }}).await?;
        Ok(reply.into_inner())
    }}

    fn total(&self) -> u64 {{
        self.orders.values().map(|o| o.total).sum()
    }}
}}

pub async fn serve{i}(addr: std::net::SocketAddr) -> Result<(), Box<dyn std::error::Error>> {{
    let mut client = Orders{i}Client::connect("http://[::1]:50051").await?;
    let _ = client.get_order(GetOrderRequest {{ id: {i} }}).await?;
    tonic::transport::Server::builder()
        .add_service(Orders{i}Server::new(Shard{i}::new()))
        .serve(addr)
        .await?;
    Ok(())
}}

#[cfg(test)]
mod tests{i} {{
    use super::*;

    #[test]
    fn totals_are_summed() {{
        let shard = Shard{i}::new();
        assert_eq!(shard.total(), 0);
        let values: Vec<u64> = (0..10).map(|v| v * 2).filter(|v| v % 3 == 0).collect();
        assert_eq!(values.len(), 4);
    }}
}}
"""
        )
    return "".join(parts).encode()


def test_realistic_sample() -> None:
    source = sample()
    assert source.count(b"\n") > 1900
    result = _rust.extract(source)
    assert result.error == ""
    assert len(result.definitions) == 28 * 9
    roles = [f.role for f in result.grpc]
    assert (roles.count("server"), roles.count("handler"), roles.count("client"), roles.count("call")) == (
        56,
        56,
        28,
        56,
    )
