"""HTTP routes, HTTP calls, messaging and link constants of JavaScript and TypeScript, exactly.

One test per framework or library, on realistic snippets, with the look-alikes that must give nothing
(a ``Map``'s ``get``, a Redis ``get``, a router's ``push``, a local function named ``fetch``).
"""

from __future__ import annotations

import textwrap

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mesh.index import FileFacts
from mesh.index._facts import Constant, HttpCall, HttpRoute, MessageFact, Setting
from mesh.index.parse import extract


def facts(path: str, text: str) -> FileFacts:
    return extract(path, textwrap.dedent(text).lstrip("\n").encode())


def links(path: str, text: str) -> list[object]:
    found = facts(path, text)
    return [*found.http_routes, *found.http_calls, *found.messages]


def route(method: str, path: str, line: int, handler: str = "", symbol: str = "", framework: str = "express",
          mount: str = "") -> HttpRoute:  # fmt: skip
    return HttpRoute(method, path, line, handler, symbol, framework, mount)


def call(method: str, path: str, line: int, symbol: str = "", host: str = "", address: str = "", client: str = "fetch",
         computed: bool = False) -> HttpCall:  # fmt: skip
    return HttpCall(method, path, line, symbol, host, address, client, computed)


def produce(broker: str, name: str, line: int, kind: str, client: str, symbol: str = "", address: str = "",
            computed: bool = False) -> MessageFact:  # fmt: skip
    return MessageFact("produce", broker, name, line, kind, symbol, address, client, computed)


def consume(broker: str, name: str, line: int, kind: str, client: str, symbol: str = "", address: str = "",
            computed: bool = False) -> MessageFact:  # fmt: skip
    return MessageFact("consume", broker, name, line, kind, symbol, address, client, computed)


# -- servers ----------------------------------------------------------------------------------------

EXPRESS = """
const express = require("express");
const { Router } = require("express");
const orders = require("./routes/orders");
import payments from "./routes/payments";
const auth = require("./middleware/auth");

const app = express();
const api = Router();
const admin = express.Router();

api.get("/items/:id", (req, res) => res.json({}));
api.post("/items", items.create);
admin.delete("/users/:userId?", removeUser);
api.use("/admin", admin);
app.use("/api/v1", api);
app.use("/orders", orders);
app.use("/payments", payments.router);
app.use(auth);
app.use(express.json());
app.route("/book").get(getBook).put(putBook);
app.all("*", notFound);
app.get("env");
app.set("port", 3000);

function mount(server) {
  server.get("/status", (req, res) => res.send("ok"));
}
app.use("/secure", auth, payments.admin);
"""


def test_express_routes_prefixes_and_mounts() -> None:
    assert links("src/app.js", EXPRESS) == [
        route("GET", "/api/v1/items/{id}", 11),
        route("POST", "/api/v1/items", 12, "items.create"),
        route("DELETE", "/api/v1/admin/users/{userId}", 13, "removeUser"),
        route("*", "/orders", 16, "orders", mount="./routes/orders"),
        route("*", "/payments", 17, "payments.router", mount="./routes/payments"),
        route("GET", "/book", 20, "getBook"),
        route("PUT", "/book", 20, "putBook"),
        route("*", "/{*}", 21, "notFound"),
        route("GET", "/status", 26, symbol="mount"),
        route("*", "/secure", 28, "payments.admin", mount="./routes/payments"),
    ]


def test_a_routes_module_without_imports_and_its_look_alikes() -> None:
    text = """
    module.exports = function (app) {
      app.get("/api/products", productController.list);
      app.post("/api/products/:id/reviews", (req, res) => {});
      cache.get("/api/products", fallback);
      router.push("/home");
      store.get("/api/products");
    };
    """
    assert links("routes.js", text) == [
        route("GET", "/api/products", 2, "productController.list"),
        route("POST", "/api/products/{id}/reviews", 3),
    ]


def test_fastify_shorthand_route_and_plugins() -> None:
    text = """
    import Fastify from "fastify";
    import usersRoutes from "./users/routes";

    const fastify = Fastify({ logger: true });

    fastify.get("/ping", async (request, reply) => "pong");
    fastify.route({ method: ["GET", "HEAD"], url: "/orders/:id", handler: getOrder });
    fastify.register(usersRoutes, { prefix: "/users" });
    fastify.register(async function v2(instance) {
      instance.post("/carts", createCart);
    }, { prefix: "/v2" });
    fastify.register(itemRoutes, { prefix: "/items" });

    async function itemRoutes(f, opts) {
      f.get("/:itemId", getItem);
    }
    """
    assert links("server.ts", text) == [
        route("GET", "/ping", 6, framework="fastify"),
        route("GET", "/orders/{id}", 7, "getOrder", framework="fastify"),
        route("HEAD", "/orders/{id}", 7, "getOrder", framework="fastify"),
        route("*", "/users", 8, "usersRoutes", framework="fastify", mount="./users/routes"),
        route("POST", "/v2/carts", 10, "createCart", framework="fastify"),
        route("GET", "/items/{itemId}", 15, "getItem", "itemRoutes", framework="fastify"),
    ]
    plugin = """
    module.exports = async function (fastify, opts) {
      fastify.get("/", async function (request, reply) {
        return { root: true };
      });
    };
    """
    assert links("routes/root.js", plugin) == [route("GET", "/", 2, framework="fastify")]


def test_koa_router_prefixes_and_named_routes() -> None:
    text = """
    const Koa = require("koa");
    const Router = require("@koa/router");
    const app = new Koa();
    const router = new Router({ prefix: "/users" });
    const nested = new Router();
    nested.get("user-posts", "/:uid/posts", listPosts);
    router.get("/", listUsers);
    router.del("/:id", deleteUser);
    router.use("/nested", nested.routes());
    app.use(router.routes()).use(router.allowedMethods());
    """
    assert links("app.js", text) == [
        route("GET", "/users/nested/{uid}/posts", 6, "listPosts", framework="koa"),
        route("GET", "/users", 7, "listUsers", framework="koa"),
        route("DELETE", "/users/{id}", 8, "deleteUser", framework="koa"),
    ]


def test_hapi_route_objects_and_plugin_mounts() -> None:
    text = """
    const Hapi = require("@hapi/hapi");
    const init = async () => {
      const server = Hapi.server({ port: 3000 });
      server.route({ method: "GET", path: "/hello/{name}", handler: (request, h) => "hi" });
      server.route([
        { method: ["PUT", "PATCH"], path: "/todos/{id}", options: { handler: todos.update } },
        { method: "*", path: "/{any*}", handler: notFound },
      ]);
      await server.register({ plugin: require("./plugins/orders"), routes: { prefix: "/orders" } });
    };
    """
    assert links("server.js", text) == [
        route("GET", "/hello/{name}", 4, symbol="init", framework="hapi"),
        route("PUT", "/todos/{id}", 6, "todos.update", "init", "hapi"),
        route("PATCH", "/todos/{id}", 6, "todos.update", "init", "hapi"),
        route("*", "/{*any}", 7, "notFound", "init", "hapi"),
        route("*", "/orders", 9, symbol="init", framework="hapi", mount="./plugins/orders"),
    ]


def test_nestjs_controllers_and_global_prefix() -> None:
    text = """
    import { Controller, Get, Post, Delete, All, Param } from "@nestjs/common";

    @Controller("orders")
    export class OrdersController {
      @Get()
      list() {}

      @Get(":id")
      get(@Param("id") id: string) {}

      @Post(["bulk", "batch"])
      bulk() {}

      @All("*")
      any() {}

      helper() {}
    }

    @Controller({ path: "admin/users" })
    class AdminController {
      @Delete(":id")
      remove() {}
    }
    """
    nest = "nestjs"
    assert links("orders.controller.ts", text) == [
        route("GET", "/orders", 5, "OrdersController.list", "OrdersController.list", nest),
        route("GET", "/orders/{id}", 8, "OrdersController.get", "OrdersController.get", nest),
        route("POST", "/orders/bulk", 11, "OrdersController.bulk", "OrdersController.bulk", nest),
        route("POST", "/orders/batch", 11, "OrdersController.bulk", "OrdersController.bulk", nest),
        route("*", "/orders/{*}", 14, "OrdersController.any", "OrdersController.any", nest),
        route("DELETE", "/admin/users/{id}", 22, "AdminController.remove", "AdminController.remove", nest),
    ]
    main = """
    import { NestFactory } from "@nestjs/core";
    import { AppModule } from "./app.module";

    async function bootstrap() {
      const app = await NestFactory.create(AppModule);
      app.setGlobalPrefix("api");
      await app.listen(3000);
    }
    """
    assert links("main.ts", main) == [route("*", "/api", 6, "AppModule", "bootstrap", nest, "./app.module")]
    # the same decorators without NestJS are someone else's
    assert links("x.ts", "@Controller('a')\nclass A {\n  @Get('b')\n  b() {}\n}\n") == []


def test_nextjs_routes_come_from_the_path() -> None:
    pages = """
    import type { NextApiRequest, NextApiResponse } from "next";
    export default function handler(req: NextApiRequest, res: NextApiResponse) {
      res.status(200).json({});
    }
    """
    assert links("web/pages/api/orders/[id].ts", pages) == [
        route("*", "/api/orders/{id}", 2, "handler", "handler", "nextjs")
    ]
    assert links("web/src/pages/api/index.ts", pages) == [route("*", "/api", 2, "handler", "handler", "nextjs")]
    app = """
    import { NextResponse } from "next/server";
    export async function GET(request: Request) {
      return NextResponse.json({});
    }
    export const DELETE = async () => new Response(null);
    function helper() {}
    """
    assert links("web/src/app/api/orders/[id]/route.ts", app) == [
        route("GET", "/api/orders/{id}", 2, "GET", "GET", "nextjs"),
        route("DELETE", "/api/orders/{id}", 5, "DELETE", "DELETE", "nextjs"),
    ]
    assert links("app/docs/[[...slug]]/route.ts", "export function GET() {}\n") == [
        route("GET", "/docs/{*slug}", 1, "GET", "GET", "nextjs")
    ]
    aliased = "const handler = () => new Response('x');\nexport { handler as POST, helper };\n"
    assert links("src/app/(shop)/cart/route.js", aliased) == [route("POST", "/cart", 2, "handler", "", "nextjs")]
    # private folders, pages that are not API routes, route files exporting no verb: nothing
    assert links("src/app/_lib/route.ts", "export function GET() {}\n") == []
    assert links("src/pages/orders/[id].tsx", pages) == []
    assert links("src/app/orders/route.ts", "export const revalidate = 60;\n") == []


def test_receivers_of_other_origins_are_no_routers() -> None:
    text = """
    const express = require("express");
    const NodeCache = require("node-cache");
    import api from "./lib/api";
    const router = express.Router();
    const cache = new NodeCache();
    router.get("/users", async (req, res) => {
      const users = await api.get("/users", { params: req.query });
      cache.get("/users", fallback);
      res.json(users);
    });
    module.exports = router;
    """
    assert links("routes/users.js", text) == [route("GET", "/users", 6)]


def test_cyclic_bindings_end() -> None:
    text = """
    const express = require("express");
    const app = express();
    let a = b;
    let b = a;
    app.use("/x", a);
    app.get(a, b);
    fetch(a + b);
    """
    assert links("cycle.js", text) == [call("GET", "", 7, computed=True)]


# -- clients ----------------------------------------------------------------------------------------

CLIENTS = """
import axios from "axios";
import got from "got";
import ky from "ky";
import superagent from "superagent";
import { ORDERS_URL } from "./config/urls";

const API = process.env.CATALOG_URL ?? "http://catalog:8080";
const billing = axios.create({ baseURL: process.env.BILLING_URL });
const inventory = axios.create({ baseURL: "http://inventory:9000/api" });
const shop = ky.create({ prefixUrl: import.meta.env.VITE_SHOP_URL });

export async function run(id: string, url: string) {
  await axios.get(`${API}/products/${id}`);
  await axios({ method: "patch", url: `${API}/products/${id}` });
  await axios(`/health`);
  await billing.post("/invoices", {});
  await inventory.get(`/stock/${id}`);
  await shop.get("carts");
  await got.post("http://payments:7000/charge", { json: {} });
  await got(`${ORDERS_URL}/orders`, { method: "DELETE" });
  await ky.put("/profile");
  await superagent.get("http://users/users/" + id);
  await fetch(url);
  await fetch(new URL("/v1/search", API));
  await fetch(`${process.env.SEARCH_HOST}:${process.env.SEARCH_PORT}/query?q=1`, { method: "POST" });
  const init = { method: "PUT", body: "x" };
  await fetch("/api/cart/" + id, init);
  await window.fetch("/api/ping");
}
"""


def test_fetch_axios_got_ky_superagent() -> None:
    assert links("client.ts", CLIENTS) == [
        call("GET", "/products/{id}", 13, "run", "catalog", "env:CATALOG_URL", "axios"),
        call("PATCH", "/products/{id}", 14, "run", "catalog", "env:CATALOG_URL", "axios"),
        call("GET", "/health", 15, "run", client="axios"),
        call("POST", "/invoices", 16, "run", address="env:BILLING_URL", client="axios"),
        call("GET", "/api/stock/{id}", 17, "run", "inventory", client="axios"),
        call("GET", "/carts", 18, "run", address="env:VITE_SHOP_URL", client="ky"),
        call("POST", "/charge", 19, "run", "payments", client="got"),
        call("DELETE", "/orders", 20, "run", address="const:ORDERS_URL", client="got"),
        call("PUT", "/profile", 21, "run", client="ky"),
        call("GET", "/users/{id}", 22, "run", "users", client="superagent"),
        call("GET", "", 23, "run", computed=True),
        call("GET", "/v1/search", 24, "run", "catalog", "env:CATALOG_URL"),
        call("POST", "/query", 25, "run", address="env:SEARCH_HOST"),
        call("PUT", "/api/cart/{id}", 27, "run"),
        call("GET", "/api/ping", 28, "run"),
    ]


def test_angular_http_client_and_its_look_alikes() -> None:
    text = """
    import { Injectable, inject } from "@angular/core";
    import { HttpClient } from "@angular/common/http";
    import { environment } from "../environments/environment";

    @Injectable({ providedIn: "root" })
    export class OrdersService {
      private readonly baseUrl = `${environment.apiUrl}/orders`;
      private client = inject(HttpClient);
      constructor(private http: HttpClient, private store: Map<string, string>) {}

      list() {
        return this.http.get<Order[]>(this.baseUrl);
      }
      create(order: Order) {
        return this.client.post<Order>(`${this.baseUrl}/new`, order);
      }
      lookup() {
        return this.store.get("/orders");
      }
    }
    """
    address = "const:environment.apiUrl"
    assert links("orders.service.ts", text) == [
        call("GET", "/orders", 12, "OrdersService.list", address=address, client="HttpClient"),
        call("POST", "/orders/new", 15, "OrdersService.create", address=address, client="HttpClient"),
    ]


def test_nestjs_http_service_with_a_config_key() -> None:
    text = """
    import { Injectable } from "@nestjs/common";
    import { HttpService } from "@nestjs/axios";
    import { ConfigService } from "@nestjs/config";

    @Injectable()
    export class CatalogClient {
      constructor(private readonly httpService: HttpService, private readonly config: ConfigService) {}

      products() {
        const base = this.config.get<string>("catalog.url");
        return this.httpService.get(`${base}/products`);
      }
    }
    """
    assert links("catalog.client.ts", text) == [
        call("GET", "/products", 11, "CatalogClient.products", address="config:catalog.url", client="HttpService")
    ]


def test_jquery_xhr_node_http_and_a_local_fetch() -> None:
    text = """
    function load() {
      $.ajax({ url: "/api/user/register", type: "POST", data: {} });
      $.getJSON("/api/feed");
      $("#x").get(0);
      const xhr = new XMLHttpRequest();
      xhr.open("GET", "/api/timeline?start=0");
      const http = require("http");
      http.request({ hostname: "ledger", port: 8080, path: "/entries", method: "POST" }, cb);
      http.get("http://ledger:8080/balance", cb);
    }
    function fetch(id) { return db.rows[id]; }
    fetch(3);
    """
    assert links("legacy.js", text) == [
        call("POST", "/api/user/register", 2, "load", client="jquery"),
        call("GET", "/api/feed", 3, "load", client="jquery"),
        call("GET", "/api/timeline", 6, "load", client="XMLHttpRequest"),
        call("POST", "/entries", 8, "load", "ledger", client="http"),
        call("GET", "/balance", 9, "load", "ledger", client="http"),
    ]


def test_base_addresses_traced_within_the_file() -> None:
    text = """
    const fetch = require("node-fetch");
    const DAPR_HOST = process.env.DAPR_HOST || "http://localhost";
    const BASE = `http://${process.env.ORDERS_HOST ?? "orders"}:${process.env.ORDERS_PORT}/api`;
    class Proxy {
      constructor(options) {
        this.orders = `${options.baseUrl}/orders`;
      }
      find(id) {
        return fetch(`${this.orders}?id=${id}`);
      }
    }
    async function run(protocol, host = "reports:9000") {
      await fetch(`${DAPR_HOST}:${process.env.DAPR_HTTP_PORT}/v1.0/invoke/orders/method/list`);
      await fetch(`${BASE}/orders/${1}`, { method: "DELETE" });
      await fetch(`${protocol}://${host}/x`);
      await fetch(`${host}/daily`);
      await fetch(process.env.HOOK_URL, { method: "POST" });
      await fetch(`${BASE}${path}`);
    }
    """
    assert links("proxy.js", text) == [
        call("GET", "/orders", 9, "Proxy.find", address="client:Proxy"),
        call("GET", "/v1.0/invoke/orders/method/list", 13, "run", "localhost", "env:DAPR_HOST"),
        call("DELETE", "/api/orders/{}", 14, "run", "orders", "env:ORDERS_HOST"),
        call("GET", "/x", 15, "run", "reports"),
        call("GET", "/daily", 16, "run", "reports"),
        call("POST", "", 17, "run", address="env:HOOK_URL", computed=True),
        call("GET", "/api{path}", 18, "run", "orders", "env:ORDERS_HOST"),
    ]


def test_client_classes_constructed_with_a_base_address() -> None:
    proxy = """
    const fetch = require("node-fetch");
    class OrderServiceProxy {
      constructor(options) {
        this.orderService = `${options.baseUrl}/orders`;
      }
      findOrders(consumerId) {
        return fetch(`${this.orderService}?consumerId=${consumerId}`);
      }
    }
    export class Billing {
      constructor(private readonly base: string) {}
      invoices() { return fetch(`${this.base}/invoices`); }
    }
    class OrdersApi {
      constructor(basePathOrUser: string, password?: string, basePath?: string) {
        if (basePath) { this.basePath = basePath; } else { this.basePath = basePathOrUser; }
      }
      list() { return fetch(this.basePath + "/orders"); }
      other() { this.basePath = computeIt(); }
    }
    """
    assert links("OrderServiceProxy.ts", proxy) == [
        call("GET", "/orders", 7, "OrderServiceProxy.findOrders", address="client:OrderServiceProxy"),
        call("GET", "/invoices", 12, "Billing.invoices", address="client:Billing"),
        call("GET", "/orders", 18, "OrdersApi.list"),  # set elsewhere too: no address
    ]
    given = proxy.replace("      other() { this.basePath = computeIt(); }\n", "")
    expected = call("GET", "/orders", 18, "OrdersApi.list", address="client:OrdersApi")
    assert links("OrderServiceProxy.ts", given)[-1] == expected
    server = """
    const { OrderServiceProxy } = require("./OrderServiceProxy");
    import { Billing } from "./billing";
    import { Pool } from "pg";
    const orders = new OrderServiceProxy({ baseUrl: process.env.ORDER_SERVICE_URL || "http://localhost:8080" });
    const billing = new Billing("http://billing:9000/api");
    const pool = new Pool({ host: process.env.PGHOST });
    const other = new Billing(someUrl);
    """
    assert facts("server.js", server).settings == (
        Setting("client:OrderServiceProxy", 4, "localhost", "ORDER_SERVICE_URL"),
        Setting("client:Billing", 5, "billing", path="/api"),
    )


# -- messaging --------------------------------------------------------------------------------------


def test_kafkajs_producers_consumers_and_shapes() -> None:
    text = """
    const { Kafka } = require("kafkajs");
    const { ORDERS_TOPIC } = require("./topics");
    const kafka = new Kafka({ clientId: "orders", brokers: [process.env.KAFKA_BROKER] });
    const producer = kafka.producer();
    const consumer = kafka.consumer({ groupId: "billing" });
    const TOPIC = process.env.PAYMENTS_TOPIC || "payments";

    async function main() {
      await producer.send({ topic: "orders.created", messages: [{ value: "x" }] });
      await producer.send({ topic: TOPIC, messages: [] });
      await producer.sendBatch({ topicMessages: [{ topic: "a", messages: [] }, { topic: ORDERS_TOPIC }] });
      await consumer.subscribe({ topic: "orders.created", fromBeginning: true });
      await consumer.subscribe({ topics: ["refunds", /audit\\..*/] });
    }
    async function relay(p, name) {
      await p.send({ topic: `events.${name}`, messages: [] });
      socket.send({ type: "hello" });
    }
    """
    k = ("kafka",)
    assert links("kafka.js", text) == [
        produce(*k, "orders.created", 9, "topic", "kafkajs", "main"),
        produce(*k, "payments", 10, "topic", "kafkajs", "main", "env:PAYMENTS_TOPIC"),
        produce(*k, "a", 11, "topic", "kafkajs", "main"),
        produce(*k, "", 11, "topic", "kafkajs", "main", "const:ORDERS_TOPIC"),
        consume(*k, "orders.created", 12, "topic", "kafkajs", "main"),
        consume(*k, "refunds", 13, "topic", "kafkajs", "main"),
        consume(*k, "", 13, "topic", "kafkajs", "main", computed=True),
        produce(*k, "", 16, "topic", "kafkajs", "relay", computed=True),
    ]


def test_node_rdkafka() -> None:
    text = """
    const Kafka = require("node-rdkafka");
    const producer = new Kafka.Producer({ "metadata.broker.list": "kafka:9092" });
    producer.produce("shipments", null, Buffer.from("x"));
    const consumer = new Kafka.KafkaConsumer({ "group.id": "g" }, {});
    consumer.subscribe(["shipments", "returns"]);
    const stream = Kafka.KafkaConsumer.createReadStream({}, {}, { topics: ["audit"] });
    """
    assert links("rd.js", text) == [
        produce("kafka", "shipments", 3, "topic", "node-rdkafka"),
        consume("kafka", "shipments", 5, "topic", "node-rdkafka"),
        consume("kafka", "returns", 5, "topic", "node-rdkafka"),
        consume("kafka", "audit", 6, "topic", "node-rdkafka"),
    ]


def test_amqplib_exchanges_queues_and_bindings() -> None:
    text = """
    import amqp from "amqplib";
    const EXCHANGE = "orders";
    export async function start() {
      const conn = await amqp.connect(process.env.AMQP_URL!);
      const ch = await conn.createChannel();
      await ch.assertExchange(EXCHANGE, "topic");
      ch.publish(EXCHANGE, "order.created", Buffer.from("{}"));
      ch.publish("", "direct-queue", Buffer.from("{}"));
      ch.sendToQueue("emails", Buffer.from("x"));
      const q = await ch.assertQueue("billing");
      await ch.bindQueue(q.queue, EXCHANGE, "order.*");
      ch.consume(q.queue, (msg) => {});
      const tmp = await ch.assertQueue("", { exclusive: true });
      ch.bindQueue(tmp.queue, "logs", "");
      ch.consume(tmp.queue, onLog);
    }
    """
    r = ("rabbitmq",)
    assert links("rabbit.ts", text) == [
        produce(*r, "orders", 7, "exchange", "amqplib", "start"),
        produce(*r, "order.created", 7, "routing_key", "amqplib", "start"),
        produce(*r, "direct-queue", 8, "queue", "amqplib", "start"),
        produce(*r, "emails", 9, "queue", "amqplib", "start"),
        consume(*r, "orders", 11, "exchange", "amqplib", "start"),
        consume(*r, "order.*", 11, "routing_key", "amqplib", "start"),
        consume(*r, "billing", 12, "queue", "amqplib", "start"),
        consume(*r, "logs", 14, "exchange", "amqplib", "start"),
    ]
    callbacks = """
    const amqp = require("amqplib/callback_api");
    import { Topics } from "./constants";
    import config from "config";
    const EVENTS = { orderPlaced: "order.placed" };
    amqp.connect(process.env.RABBIT, (err, conn) => {
      conn.createChannel((err, ch) => {
        ch.publish(Topics.ORDERS, "", Buffer.from("x"));
        ch.sendToQueue(EVENTS.orderPlaced, Buffer.from("x"));
        ch.sendToQueue(config.get("queues.audit"), Buffer.from("x"));
        ch.consume(queueName, handle);
      });
    });
    """
    assert links("worker.js", callbacks) == [
        produce(*r, "", 7, "exchange", "amqplib", address="const:Topics.ORDERS"),
        produce(*r, "order.placed", 8, "queue", "amqplib"),
        produce(*r, "", 9, "queue", "amqplib", address="config:queues.audit"),
    ]  # an unknown receiver's consume(name) with a name out of sight: not guessed


def test_nats_and_redis_pub_sub_but_not_redis_commands() -> None:
    text = """
    import { connect, StringCodec } from "nats";
    import Redis from "ioredis";
    async function run() {
      const nc = await connect({ servers: process.env.NATS_URL });
      nc.publish("orders.created", sc.encode("x"));
      const sub = nc.subscribe("orders.*", { queue: "workers" });
      const js = nc.jetstream();
      await js.publish("stream.orders", data);
    }
    const pub = new Redis();
    const sub = pub.duplicate();
    pub.publish("chat", "hi");
    sub.subscribe("chat", "news", (err, count) => {});
    sub.psubscribe("user:*");
    pub.get("chat");
    pub.set("k", "v");
    """
    observables = """
    import Redis from "ioredis";
    const redis = new Redis();
    export function watch(store, events$) {
      store.subscribe(() => render());
      events$.subscribe(onEvent);
      events$.publish(update);
    }
    """
    assert links("watch.js", observables) == []
    assert links("bus.js", text) == [
        produce("nats", "orders.created", 5, "subject", "nats", "run"),
        consume("nats", "orders.*", 6, "subject", "nats", "run"),
        produce("nats", "stream.orders", 8, "subject", "nats", "run"),
        produce("redis", "chat", 12, "channel", "redis"),
        consume("redis", "chat", 13, "channel", "redis"),
        consume("redis", "news", 13, "channel", "redis"),
        consume("redis", "user:*", 14, "channel", "redis"),
    ]
    typed = """
    import { Redis } from "ioredis";
    export class Repository {
      constructor(private client: Redis) {}
      get(key: string) { return this.client.get(key); }
      announce() { return this.client.publish("carts", "changed"); }
    }
    """
    assert links("repo.ts", typed) == [produce("redis", "carts", 5, "channel", "redis", "Repository.announce")]


def test_aws_sdk_sqs_and_sns() -> None:
    text = """
    import { SQSClient, SendMessageCommand, ReceiveMessageCommand } from "@aws-sdk/client-sqs";
    import { SNSClient, PublishCommand } from "@aws-sdk/client-sns";
    import AWS from "aws-sdk";
    const sqs = new SQSClient({});
    const QUEUE_URL = process.env.ORDERS_QUEUE_URL;
    export async function go() {
      await sqs.send(new SendMessageCommand({ QueueUrl: QUEUE_URL, MessageBody: "x" }));
      await sqs.send(new ReceiveMessageCommand({ QueueUrl: "https://sqs.us-east-1.amazonaws.com/12345/payments" }));
      await new SNSClient({}).send(new PublishCommand({ TopicArn: "arn:aws:sns:us-east-1:123456789012:order-events" }));
      const legacy = new AWS.SQS();
      await legacy.sendMessage({ QueueUrl: process.env.LEGACY_QUEUE, MessageBody: "x" }).promise();
      const sns = new AWS.SNS();
      sns.publish({ TopicArn: process.env.TOPIC_ARN, Message: "x" });
    }
    """
    assert links("aws.ts", text) == [
        produce("sqs", "", 7, "queue", "aws-sdk", "go", "env:ORDERS_QUEUE_URL"),
        consume("sqs", "payments", 8, "queue", "aws-sdk", "go"),
        produce("sns", "order-events", 9, "topic", "aws-sdk", "go"),
        produce("sqs", "", 11, "queue", "aws-sdk", "go", "env:LEGACY_QUEUE"),
        produce("sns", "", 13, "topic", "aws-sdk", "go", "env:TOPIC_ARN"),
    ]


def test_google_pubsub_topics_and_subscriptions() -> None:
    text = """
    const { PubSub } = require("@google-cloud/pubsub");
    const pubsub = new PubSub();
    async function go() {
      await pubsub.topic("orders").publishMessage({ data: Buffer.from("x") });
      const topic = pubsub.topic(process.env.TOPIC || "payments");
      await topic.publish(Buffer.from("x"));
      const subscription = pubsub.subscription("orders-sub");
      subscription.on("message", (m) => m.ack());
      subscription.on("error", () => {});
      pubsub.topic("refunds").subscription("refunds-sub").on("message", handle);
    }
    """
    g = ("pubsub",)
    assert links("pubsub.js", text) == [
        produce(*g, "orders", 4, "topic", "@google-cloud/pubsub", "go"),
        produce(*g, "payments", 6, "topic", "@google-cloud/pubsub", "go", "env:TOPIC"),
        consume(*g, "orders-sub", 8, "queue", "@google-cloud/pubsub", "go"),
        consume(*g, "refunds", 10, "topic", "@google-cloud/pubsub", "go"),
    ]


def test_nestjs_microservices_patterns_and_clients() -> None:
    text = """
    import { Controller, Inject } from "@nestjs/common";
    import { ClientProxy, ClientKafka, EventPattern, MessagePattern, Transport } from "@nestjs/microservices";

    @Controller()
    export class MathController {
      constructor(@Inject("MATH") private client: ClientProxy, @Inject("KAFKA") private kafka: ClientKafka) {}

      @MessagePattern({ cmd: "sum" })
      sum(data: number[]) {}

      @EventPattern("user_created")
      created(data: unknown) {}

      @MessagePattern("orders.placed", Transport.KAFKA)
      placed() {}

      notify() {
        this.client.emit("user_created", {});
        this.client.send({ cmd: "sum" }, [1, 2]);
        this.kafka.emit("orders.placed", {});
      }
    }
    """
    m = "MathController"
    assert links("math.controller.ts", text) == [
        consume("", '{"cmd":"sum"}', 8, "event", "nestjs", f"{m}.sum"),
        consume("", "user_created", 11, "event", "nestjs", f"{m}.created"),
        consume("kafka", "orders.placed", 14, "topic", "nestjs", f"{m}.placed"),
        produce("", "user_created", 18, "event", "nestjs", f"{m}.notify"),
        produce("", '{"cmd":"sum"}', 19, "event", "nestjs", f"{m}.notify"),
        produce("kafka", "orders.placed", 20, "topic", "nestjs", f"{m}.notify"),
    ]


def test_dapr_sdk_pub_sub() -> None:
    text = """
    import { DaprClient, DaprServer } from "@dapr/dapr";
    const pubSubTopic = "orders";
    async function main() {
      const client = new DaprClient({ daprHost, daprPort });
      await client.pubsub.publish("orderpubsub", pubSubTopic, {});
      const server = new DaprServer({ serverHost, serverPort });
      server.pubsub.subscribe("orderpubsub", "orders", (data) => {});
    }
    """
    assert links("index.js", text) == [
        produce("eventbus", "orders", 5, "topic", "dapr", "main"),
        consume("eventbus", "orders", 7, "topic", "dapr", "main"),
    ]


# -- constants --------------------------------------------------------------------------------------


def test_constants_that_name_links_and_never_secrets() -> None:
    text = """
    export const ORDERS_TOPIC = "orders.created";
    export const PAYMENT_QUEUE = `payments`;
    const API_URL = "http://gateway:8080/api";
    const API_KEY = "AKIAxxxxxxxxxxxx";
    const AUTH_TOKEN_URL = "http://auth/token";
    const RETRY_COUNT = "3";
    const GREETING_PATH = "hello world";
    const SERVICE_URL = "http://user:pw@orders:8080";
    export const Topics = { ORDERS: "orders", REFUNDS: "refunds", nested: { AUDIT: "audit" } } as const;
    export const environment = { production: false, apiUrl: "http://localhost:5000", clientSecret: "abc" };
    export enum Queues { Billing = "billing", Count = 3 }
    export class OrderEvents {
      static readonly CREATED = "order.created";
      readonly INSTANCE_TOPIC = "inst";
    }
    function f() { const LOCAL_TOPIC = "local"; }
    let MUTABLE_URL = "http://x";
    """
    assert facts("constants.ts", text).constants == (
        Constant("ORDERS_TOPIC", "orders.created", 1),
        Constant("PAYMENT_QUEUE", "payments", 2),
        Constant("API_URL", "http://gateway:8080/api", 3),
        Constant("Topics.ORDERS", "orders", 9),
        Constant("Topics.REFUNDS", "refunds", 9),
        Constant("Topics.nested.AUDIT", "audit", 9),
        Constant("environment.apiUrl", "http://localhost:5000", 10),
        Constant("Queues.Billing", "billing", 11),
        Constant("OrderEvents.CREATED", "order.created", 13),
    )


# -- properties -------------------------------------------------------------------------------------

SAMPLE = EXPRESS + CLIENTS.replace("import", "// import")


def test_facts_are_deterministic_and_in_source_order() -> None:
    first = facts("src/app.ts", SAMPLE)
    assert first == facts("src/app.ts", SAMPLE)
    assert first.http_routes and first.http_calls
    for group in (first.http_routes, first.http_calls, first.messages, first.constants):
        lines = [fact.line for fact in group]
        assert lines == sorted(lines)


@settings(max_examples=80, deadline=None)
@given(st.data())
@example(None)
def test_links_extraction_is_total(data: st.DataObject | None) -> None:
    """INV-LINKS-1: extractors of links are total: any bytes give facts, never an exception.

    Realistic snippets mutated at random (bytes dropped, replaced, duplicated) always come back as facts,
    the same twice, each fact of the contract's shape."""
    source = SAMPLE.encode()
    if data is not None:
        for _ in range(data.draw(st.integers(0, 8))):
            start = data.draw(st.integers(0, len(source)))
            end = data.draw(st.integers(start, min(len(source), start + 40)))
            junk = data.draw(st.binary(max_size=12) | st.sampled_from([b"(", b"`${", b"{", b"'", b"/*", b"\xff"]))
            source = source[:start] + junk + source[end:]
    for path in ("src/app.ts", "src/app.js", "app/api/[id]/route.tsx", "pages/api/x.js"):
        found = extract(path, source)
        assert data is not None or (found.http_routes and found.http_calls)
        assert not found.error.startswith("extractor failed"), found.error
        assert found == extract(path, source)
        for route_fact in found.http_routes:
            assert route_fact.path.startswith("/") and (route_fact.method == "*" or route_fact.method.isupper())
        for call_fact in found.http_calls:
            assert call_fact.computed == (call_fact.path == "") and call_fact.line >= 1
