"""The JavaScript extractor: definitions, imports and gRPC evidence of realistic snippets, exactly."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.index import Definition, FileFacts, GrpcRole, Import
from mesh.index.parse import _javascript, extract
from tests.support.facts import call, client, handler, server

D = Definition
I = Import


def js(text: str) -> FileFacts:
    return _javascript.extract(textwrap.dedent(text).lstrip("\n").encode())


DEFINITIONS_AND_IMPORTS = """
import EventEmitter, { once as onceEvent, on } from "node:events";
import * as path from "path";
import "./polyfills.js";
const fs = require("fs");
const { readFile, writeFile: write } = require("fs/promises");
const lazy = () => import("./lazy.mjs");
export { format, parse as parseDate } from "./dates";
export * from "./all";
export * as helpers from "./helpers";

export function load(name) {
  function inner() {
    return name;
  }
  return inner();
}

function* ids() {
  yield 1;
}

export const toJson = (value) => JSON.stringify(value);
const legacy = function () {};

class Repository extends EventEmitter {
  static create() {
    return new Repository();
  }
  #secret = 1;
  onChange = (event) => this.emit("change", event);
  constructor(db) {
    super();
    this.db = db;
  }
  get size() {
    return this.db.size;
  }
  async find(id) {
    const cache = {
      get(key) {
        return key;
      },
      set: function (key, value) {},
    };
    return cache.get(id);
  }
}

const Mixin = class {
  apply() {}
};

module.exports = class Exported {
  run() {}
};
"""


def test_definitions() -> None:
    assert js(DEFINITIONS_AND_IMPORTS).definitions == (
        D("lazy", "function", "", 6, 6),
        D("load", "function", "", 11, 16),
        D("inner", "function", "load", 12, 14),
        D("ids", "function", "", 18, 20),
        D("toJson", "function", "", 22, 22),
        D("legacy", "function", "", 23, 23),
        D("Repository", "class", "", 25, 47),
        D("create", "method", "Repository", 26, 28),
        D("onChange", "method", "Repository", 30, 30),
        D("constructor", "method", "Repository", 31, 34),
        D("size", "method", "Repository", 35, 37),
        D("find", "method", "Repository", 38, 46),
        # the functions of an object literal bound to a variable are contained by its name
        D("get", "method", "Repository.find.cache", 40, 42),
        D("set", "method", "Repository.find.cache", 43, 43),
        D("Mixin", "class", "", 49, 51),
        D("apply", "method", "Mixin", 50, 50),
        D("Exported", "class", "", 53, 55),
        D("run", "method", "Exported", 54, 54),
    )


def test_imports() -> None:
    facts = js(DEFINITIONS_AND_IMPORTS)
    assert facts.imports == (
        I("node:events", 1, ("once", "on")),
        I("path", 2),
        I("./polyfills.js", 3),
        I("fs", 4),
        I("fs/promises", 5, ("readFile", "writeFile")),
        I("./lazy.mjs", 6),
        I("./dates", 7, ("format", "parse")),
        I("./all", 8),
        I("./helpers", 9),
    )
    assert facts.grpc == ()
    assert facts.error == ""
    assert facts.language == "javascript"


def test_dynamic_import_and_require_forms() -> None:
    facts = js(
        """
        async function plugins() {
          const { register } = await import("./plugin.js");
          const tpl = require(`./templates`);
          const dyn = require(`./t/${name}`);
          return [register, tpl, dyn];
        }
        """
    )
    assert facts.imports == (I("./plugin.js", 2, ("register",)), I("./templates", 3))


PROTO_LOADER_SERVER = """
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const packageDefinition = protoLoader.loadSync("orders.proto");
const ordersProto = grpc.loadPackageDefinition(packageDefinition);
const inventoryPkg = grpc.loadPackageDefinition(packageDefinition).acme.inventory;

function getOrder(call, callback) {
  callback(null, {});
}

function placeOrder(call, callback) {
  callback(null, {});
}

class Health {
  constructor() {
    this.status = "SERVING";
  }
  check(call, callback) {
    callback(null, { status: this.status });
  }
  static create() {
    return new Health();
  }
  #hidden() {}
  watch = (call) => call.end();
}

const inventoryImpl = {
  reserve(call, callback) {
    callback(null, {});
  },
  release: (call, callback) => callback(null, {}),
};

class OrdersServer {
  cancel(call, callback) {
    callback(null, {});
  }
  start(port) {
    const server = new grpc.Server();
    server.addService(ordersProto.acme.orders.Orders.service, {
      getOrder: getOrder,
      placeOrder,
      cancel: this.cancel.bind(this),
      list(call, callback) {
        callback(null, []);
      },
      watch: (call) => call.end(),
      "stream-events": streamEvents,
    });
    server.addService(inventoryPkg.Inventory.service, inventoryImpl);
    const health = new Health();
    server.addService(ordersProto.grpc.health.v1.Health.service, health);
    server.bindAsync(port, grpc.ServerCredentials.createInsecure(), () => server.start());
  }
}
"""


def test_proto_loader_servers_and_their_handlers() -> None:
    orders, inventory, health = "ordersProto.acme.orders", "inventoryPkg", "ordersProto.grpc.health.v1"
    # facts in source order: a handler sits on its definition when it is declared in this file
    assert js(PROTO_LOADER_SERVER).grpc == (
        handler("Orders", "getOrder", 8, "getOrder", orders),
        handler("Orders", "placeOrder", 12, "placeOrder", orders),
        # an identifier bound to `new Health()`: the public instance methods of the class
        handler("Health", "check", 20, "Health.check", health),
        handler("Health", "watch", 27, "Health.watch", health),
        # an identifier bound to an object literal: that object's keys (its functions are definitions)
        handler("Inventory", "reserve", 31, "inventoryImpl.reserve", inventory),
        handler("Inventory", "release", 34, "inventoryImpl.release", inventory),
        # this.cancel.bind(this): the method of the enclosing class
        handler("Orders", "cancel", 38, "OrdersServer.cancel", orders),
        server("Orders", 43, "OrdersServer.start", orders),
        # else on its property (streamEvents is not declared here)
        handler("Orders", "list", 47, "OrdersServer.start", orders),
        handler("Orders", "watch", 50, "OrdersServer.start", orders),
        handler("Orders", "stream-events", 51, "OrdersServer.start", orders),
        server("Inventory", 53, "OrdersServer.start", inventory),
        server("Health", 55, "OrdersServer.start", health),
    )


PROTO_LOADER_CLIENTS = """
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");
const { promisify } = require("util");

const proto = grpc.loadPackageDefinition(protoLoader.loadSync("orders.proto"));
const { acme } = grpc.loadPackageDefinition(protoLoader.loadSync("inventory.proto"));
const creds = grpc.credentials.createInsecure();

const orders = new proto.acme.orders.v1.Orders("orders:50051", creds);
let payments;

function connect() {
  payments = new proto.acme.payments.v1.Payments("payments:50051", creds);
}

class InventoryGateway {
  stock = new acme.inventory.v1.Inventory("inventory:50051", creds);

  constructor() {
    this.client = new proto.acme.orders.v1.Orders("orders:50051", creds);
    this.cache = new Map();
    this.started = new Date();
  }

  async reserve(sku) {
    const reserve = promisify(this.stock.reserve).bind(this.stock);
    this.cache.get(sku);
    this.stock.release({ sku }, () => {});
    return this.client
      .getOrder({ id: sku }, () => {});
  }
}

function charge(request) {
  const bound = orders.placeOrder.bind(orders);
  payments.charge(request, () => {});
  orders.close();
  return bound;
}

function unrelated(orders) {
  return orders.getOrder(1);
}

function shadow() {
  const orders = new Map();
  orders.get("x");
  const local = new proto.acme.orders.v1.Orders("orders:50051", creds);
  local.watchOrder({}).on("data", () => {});
}
"""


def test_proto_loader_clients_are_followed_through_the_file() -> None:
    orders, payments, inventory = "proto.acme.orders.v1", "proto.acme.payments.v1", "acme.inventory.v1"
    assert js(PROTO_LOADER_CLIENTS).grpc == (
        # a module-level constant: symbol ""
        client("Orders", 9, "", orders),
        # assigned later to a `let` declared at module level
        client("Payments", 13, "connect", payments),
        # a class field, from a destructured loadPackageDefinition result
        client("Inventory", 17, "InventoryGateway", inventory),
        client("Orders", 20, "InventoryGateway.constructor", orders),
        # promisify(stub.m) and stub.m.bind(...) are calls of m; this.cache/new Map/new Date are not stubs
        call("Inventory", "reserve", 26, "InventoryGateway.reserve", inventory),
        call("Inventory", "release", 28, "InventoryGateway.reserve", inventory),
        # this.client set in the constructor, called in another method, on the next line
        call("Orders", "getOrder", 30, "InventoryGateway.reserve", orders),
        call("Orders", "placeOrder", 35, "charge", orders),
        call("Payments", "charge", 36, "charge", payments),
        # orders.close() is the client's own method; `orders` parameters and locals shadow the stub
        client("Orders", 48, "shadow", orders),
        call("Orders", "watchOrder", 49, "shadow", orders),
    )


STATIC_CODEGEN = """
const grpc = require("@grpc/grpc-js");
const services = require("./gen/orders_grpc_pb");
const messages = require("./gen/orders_pb");
const { InventoryClient } = require("./gen/inventory_grpc_pb");
import { PaymentsClient as Payments, PaymentsService } from "@acme/protos/payments_grpc_pb";

const inventory = new InventoryClient("inventory:50051", grpc.credentials.createInsecure());

function getOrder(call, callback) {
  const reply = new messages.Order();
  callback(null, reply);
}

function main() {
  const server = new grpc.Server();
  server.addService(services.OrdersService, { getOrder });
  server.addService(PaymentsService, { charge: (call, cb) => cb(null, null) });
  const client = new services.OrdersClient("localhost:50051", grpc.credentials.createInsecure());
  const request = new messages.GetOrderRequest();
  client.getOrder(request, (err, order) => {
    inventory.reserve(order, () => {});
  });
  const payments = new Payments("payments:50051", grpc.credentials.createInsecure());
  payments.charge(request, () => {});
}
"""


def test_static_codegen() -> None:
    facts = js(STATIC_CODEGEN)
    assert facts.grpc == (
        client("Inventory", 7, ""),
        handler("Orders", "getOrder", 9, "getOrder", "services"),
        server("Orders", 16, "main", "services"),
        server("Payments", 17, "main"),
        handler("Payments", "charge", 17, "main"),
        # new messages.GetOrderRequest() builds a message: only *Client names of generated modules are stubs
        client("Orders", 18, "main", "services"),
        call("Orders", "getOrder", 20, "main", "services"),
        call("Inventory", "reserve", 21, "main"),
        client("Payments", 23, "main"),
        call("Payments", "charge", 24, "main"),
    )
    assert facts.imports[4] == I("@acme/protos/payments_grpc_pb", 5, ("PaymentsClient", "PaymentsService"))


def test_handlers_of_a_class_instance_and_an_aliased_service_definition() -> None:
    facts = js(
        """
        const grpc = require("@grpc/grpc-js");
        const pkg = grpc.loadPackageDefinition(def).acme.orders.v1;
        const definition = pkg.Orders.service;

        class OrdersImpl {
          getOrder(call, cb) {}
          placeOrder(call, cb) {}
          get ready() { return true; }
        }

        const impl = new OrdersImpl();
        const server = new grpc.Server();
        server.addService(definition, {
          getOrder: impl.getOrder.bind(impl),
          placeOrder: impl.placeOrder,
        });
        server.addService(pkg.Orders.service, new OrdersImpl());
        """
    )
    assert facts.grpc == (
        handler("Orders", "getOrder", 6, "OrdersImpl.getOrder", "pkg"),
        handler("Orders", "placeOrder", 7, "OrdersImpl.placeOrder", "pkg"),
        server("Orders", 13, "", "pkg"),
        # the same handlers again: reported once
        server("Orders", 17, "", "pkg"),
    )


def test_look_alikes_are_not_evidence() -> None:
    facts = js(
        """
        const grpc = require("@grpc/grpc-js");
        const { OrdersBackend } = require("./orders");
        const models = require("./models");

        function routes(app, orders) {
          const when = new Date();
          const seen = new Map();
          seen.get(when);
          const backend = new OrdersBackend("orders:50051");
          backend.getOrder("1");
          const order = new models.Order();
          order.save();
          orders.getOrder("2");
          app.addService(registry, {});
          const client = new grpc.Client("x", grpc.credentials.createInsecure());
          client.makeUnaryRequest(path);
        }
        """
    )
    assert facts.grpc == ()
    assert facts.definitions == (D("routes", "function", "", 5, 17),)


def test_no_generated_import_means_no_grpc_pass() -> None:
    facts = js(
        """
        import { Client } from "pg";
        const db = new Client();
        db.query("select 1");
        """
    )
    assert facts.grpc == ()


def test_syntax_errors_keep_what_can_be_read() -> None:
    facts = js(
        """
        import { a } from "./a";

        function broken( {
          return 1;
        }

        class Ok {
          run() {}
        }
        """
    )
    assert facts.imports == (I("./a", 1, ("a",)),)
    assert D("Ok", "class", "", 7, 9) in facts.definitions
    assert D("run", "method", "Ok", 8, 8) in facts.definitions
    assert facts.error == "syntax error at line 3"


def test_missing_token_is_a_syntax_error() -> None:
    facts = js("const x = (1 + 2;\n")
    assert facts.error.startswith("syntax error at line 1")


def test_dispatch_by_suffix() -> None:
    source = b"export function f() {}\n"
    for name in ("a.js", "a.mjs", "a.cjs", "a.jsx"):
        assert extract(name, source) == FileFacts(language="javascript", definitions=(D("f", "function", "", 1, 1),))


def test_jsx_component() -> None:
    facts = js(
        """
        import React from "react";
        export function App({ name }) {
          const onClick = () => alert(name);
          return <div onClick={onClick}><Title text={name} /></div>;
        }
        """
    )
    assert facts.definitions == (D("App", "function", "", 2, 5), D("onClick", "function", "App", 3, 3))
    assert facts.error == ""


HOSTILE = [
    b"",
    b"\xff\xfe\x00\x81garbage",
    b"{" * 20_000,
    b"import 'a';\n" + b"(" * 5_000,
    b"class A{m(){" * 400 + b"}}" * 400,
    b'server.addService(p.A.service, {}); f("x", () => {' * 300 + b"})" * 300,
    b"const c = new p.Orders(); c." + b"x." * 3_000 + b"y()",
    b"x = " + b"[" * 3_000 + b"]" * 3_000,
]


def test_hostile_inputs() -> None:
    for source in HOSTILE:
        facts = _javascript.extract(source)
        assert facts.language == "javascript"
        assert not facts.error.startswith("extractor failed")
        assert facts == _javascript.extract(source)
    assert len(_javascript.extract(HOSTILE[4]).definitions) == 800


@settings(max_examples=200)
@given(st.binary(max_size=400))
def test_any_bytes(source: bytes) -> None:
    facts = _javascript.extract(source)
    assert not facts.error.startswith("extractor failed")
    assert facts == _javascript.extract(source)


JS_ALPHABET = st.sampled_from(
    list("abcxyz(){}[];,.=<>/*'\"` \n\t:?!+-")
    + ["function ", "class ", "const ", "new ", "require(", "import ", "export ", "=>", "addService(",
       "loadPackageDefinition(", ".service", "Client", "this.", "_grpc_pb", "from "]
)  # fmt: skip


@settings(max_examples=200)
@given(st.lists(JS_ALPHABET, max_size=80).map("".join))
def test_any_text(text: str) -> None:
    facts = _javascript.extract(text.encode())
    assert not facts.error.startswith("extractor failed")


def realistic_sample(copies: int = 20) -> bytes:
    """About 2,000 lines of service-like JavaScript: a module per copy, glued into one file."""
    parts = []
    for n in range(copies):
        parts.append(
            f"""
const grpc{n} = require("@grpc/grpc-js");
const loader{n} = require("@grpc/proto-loader");
const {{ promisify: promisify{n} }} = require("util");
const proto{n} = grpc{n}.loadPackageDefinition(loader{n}.loadSync("svc{n}.proto"));

/** Keeps orders in memory for service {n}. */
class Store{n} {{
  constructor(limit) {{
    this.limit = limit;
    this.items = new Map();
  }}
  get(id) {{
    return this.items.get(id);
  }}
  put(id, value) {{
    if (this.items.size >= this.limit) {{
      const first = this.items.keys().next().value;
      this.items.delete(first);
    }}
    this.items.set(id, value);
    return value;
  }}
  *entries() {{
    for (const [key, value] of this.items) {{
      yield {{ key, value }};
    }}
  }}
}}

function validate{n}(order) {{
  const errors = [];
  if (!order.id) errors.push("id");
  if (!Array.isArray(order.items)) errors.push("items");
  for (const item of order.items || []) {{
    if (item.quantity <= 0) errors.push(`quantity of ${{item.sku}}`);
  }}
  return errors;
}}

const format{n} = (order) => ({{
  id: order.id,
  total: order.items.reduce((sum, item) => sum + item.price * item.quantity, 0),
  lines: order.items.map((item) => `${{item.sku}} x${{item.quantity}}`),
}});

class Service{n} {{
  constructor(store) {{
    this.store = store;
    this.payments = new proto{n}.acme.payments.v1.Payments("payments:50051", grpc{n}.credentials.createInsecure());
  }}

  getOrder(call, callback) {{
    const order = this.store.get(call.request.id);
    if (!order) {{
      callback({{ code: grpc{n}.status.NOT_FOUND, message: "no such order" }});
      return;
    }}
    callback(null, format{n}(order));
  }}

  async placeOrder(call, callback) {{
    const errors = validate{n}(call.request);
    if (errors.length) {{
      callback({{ code: grpc{n}.status.INVALID_ARGUMENT, message: errors.join(", ") }});
      return;
    }}
    const charge = promisify{n}(this.payments.charge).bind(this.payments);
    try {{
      await charge({{ orderId: call.request.id }});
      callback(null, format{n}(this.store.put(call.request.id, call.request)));
    }} catch (err) {{
      callback(err);
    }}
  }}
}}

function serve{n}(port) {{
  const server = new grpc{n}.Server();
  const service = new Service{n}(new Store{n}(1000));
  server.addService(proto{n}.acme.orders.v1.Orders.service, {{
    getOrder: service.getOrder.bind(service),
    placeOrder: service.placeOrder.bind(service),
  }});
  server.bindAsync(`0.0.0.0:${{port}}`, grpc{n}.ServerCredentials.createInsecure(), (err) => {{
    if (err) throw err;
    server.start();
  }});
  return server;
}}

module.exports.serve{n} = serve{n};
"""
        )
    return "".join(parts).encode()


def test_realistic_sample() -> None:
    source = realistic_sample()
    assert 1_800 <= source.count(b"\n") <= 2_400
    facts = _javascript.extract(source)
    assert facts.error == ""
    assert len(facts.definitions) == 20 * 12
    assert len(facts.imports) == 20 * 3
    roles = [fact.role for fact in facts.grpc]
    assert roles.count(GrpcRole.SERVER) == 20
    assert roles.count(GrpcRole.HANDLER) == 20 * 2
    assert roles.count(GrpcRole.CLIENT) == 20
    assert roles.count(GrpcRole.CALL) == 20
