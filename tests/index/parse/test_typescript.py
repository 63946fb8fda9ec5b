"""The TypeScript extractor (``.ts`` and ``.tsx``): definitions, imports and gRPC evidence, exactly."""

from __future__ import annotations

import textwrap

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.index import Definition, FileFacts, GrpcRole, Import
from mesh.index.parse import _typescript, extract
from tests.support.facts import call, client, handler, server

D = Definition
I = Import


def ts(text: str) -> FileFacts:
    return _typescript.extract(textwrap.dedent(text).lstrip("\n").encode())


DEFINITIONS_AND_IMPORTS = """
import type { Request, Response } from "express";
import { type Logger, createLogger } from "./log";
import config = require("./config.json");
import * as grpc from "@grpc/grpc-js";
export type { Order } from "./model";

export interface Store<T> {
  get(id: string): Promise<T | undefined>;
  put(id: string, value: T): Promise<void>;
}

export type Handler = (req: Request, res: Response) => Promise<void>;

export enum Status {
  Open = "open",
  Closed = "closed",
}

export namespace Metrics.Http {
  export function record(path: string): void {}
}

declare module "express" {
  interface Request {
    user?: string;
  }
}

export function parse(input: string): number;
export function parse(input: number): number;
export function parse(input: string | number): number {
  return Number(input);
}

declare function ambient(x: number): void;

export abstract class BaseRepo<T> implements Store<T> {
  protected readonly log: Logger = createLogger("repo");
  abstract get(id: string): Promise<T | undefined>;
  async put(id: string, value: T): Promise<void> {}
  find(id: string): T;
  find(id: number): T;
  find(id: string | number): T {
    return this.cache[id];
  }
  private handle = async (req: Request): Promise<void> => {};
}

@Injectable()
export class OrdersController {
  constructor(private readonly repo: BaseRepo<string>) {}

  @Get(":id")
  async get(@Param("id") id: string) {
    const wrap = <T,>(value: T): T => value;
    return wrap(await this.repo.get(id));
  }
}
"""


def test_definitions() -> None:
    assert ts(DEFINITIONS_AND_IMPORTS).definitions == (
        # interface method signatures are methods of the interface (what callers and implementations
        # share: an agent looks them up), property signatures are not definitions
        D("Store", "interface", "", 7, 10),
        D("get", "method", "Store", 8, 8),
        D("put", "method", "Store", 9, 9),
        D("Handler", "type", "", 12, 12),
        # enum members are constants of the enum
        D("Status", "enum", "", 14, 17),
        D("Open", "constant", "Status", 15, 15),
        D("Closed", "constant", "Status", 16, 16),
        D("Metrics.Http", "module", "", 19, 21),
        D("record", "function", "Metrics.Http", 20, 20),
        D("Request", "interface", "", 24, 26),
        # overload signatures: only the implementation counts; an ambient declaration counts
        D("parse", "function", "", 31, 33),
        D("ambient", "function", "", 35, 35),
        D("BaseRepo", "class", "", 37, 47),
        D("get", "method", "BaseRepo", 39, 39),
        D("put", "method", "BaseRepo", 40, 40),
        D("find", "method", "BaseRepo", 43, 45),
        D("handle", "method", "BaseRepo", 46, 46),
        D("OrdersController", "class", "", 50, 58),
        D("constructor", "method", "OrdersController", 51, 51),
        D("get", "method", "OrdersController", 54, 57),
        D("wrap", "function", "OrdersController.get", 55, 55),
    )


def test_imports() -> None:
    facts = ts(DEFINITIONS_AND_IMPORTS)
    assert facts.imports == (
        I("express", 1, ("Request", "Response")),
        I("./log", 2, ("Logger", "createLogger")),
        I("./config.json", 3),
        I("@grpc/grpc-js", 4),
        I("./model", 5, ("Order",)),
    )
    assert facts.grpc == ()
    assert facts.error == ""
    assert facts.language == "typescript"


GRPC_STATIC = """
import * as grpc from "@grpc/grpc-js";
import { OrdersService, IOrdersServer } from "./gen/orders_grpc_pb";
import * as inventory from "./gen/inventory_grpc_pb";
import { OrdersClient } from "./gen/orders_grpc_pb";
import { GetOrderRequest } from "./gen/orders_pb";
import { PaymentsClient, PaymentsServer } from "../generated/acme/payments";

class OrdersServerImpl implements IOrdersServer {
  [name: string]: grpc.UntypedHandleCall;

  constructor(private readonly stock: inventory.InventoryClient) {}

  getOrder(call: grpc.ServerUnaryCall<GetOrderRequest, unknown>, callback: grpc.sendUnaryData<unknown>): void {
    this.stock.reserve(new GetOrderRequest(), () => callback(null, null));
  }

  protected audit(): void {}
  private helper(): void {}
  static create(): OrdersServerImpl {
    return new OrdersServerImpl(new inventory.InventoryClient("inventory:50051", grpc.credentials.createInsecure()));
  }
}

export class PaymentsImpl implements PaymentsServer, grpc.UntypedServiceImplementation {
  [name: string]: grpc.UntypedHandleCall;
  charge = (call: unknown, callback: grpc.sendUnaryData<unknown>): void => callback(null, null);
}

export class OrderClient {
  private client: OrdersClient;
  private payments?: PaymentsClient;

  constructor(address: string) {
    this.client = new OrdersClient(address, grpc.credentials.createInsecure());
  }

  fetch(id: string): void {
    this.client.getOrder(new GetOrderRequest(), () => {});
    this.payments?.charge({ id }, () => {});
  }
}

export function serve(orders: OrdersClient, cache: Map<string, string>): grpc.Server {
  const server = new grpc.Server();
  server.addService(OrdersService, new OrdersServerImpl(null as never));
  orders.listOrders({}, () => {});
  cache.get("a");
  const payments = new PaymentsClient("payments:50051", grpc.credentials.createInsecure()) as PaymentsClient;
  payments!.refund({}, () => {});
  return server;
}
"""


def test_static_codegen_servers_clients_and_typed_holders() -> None:
    assert ts(GRPC_STATIC).grpc == (
        # a class implementing the generated IOrdersServer: its public instance methods are handlers
        server("Orders", 8, "OrdersServerImpl"),
        handler("Orders", "getOrder", 13, "OrdersServerImpl.getOrder"),
        # a constructor parameter property typed inventory.InventoryClient
        call("Inventory", "reserve", 14, "OrdersServerImpl.getOrder", "inventory"),
        client("Inventory", 20, "OrdersServerImpl.create", "inventory"),
        # ts-proto style: PaymentsServer from a generated path; a field holding a function is a method
        server("Payments", 24, "PaymentsImpl"),
        handler("Payments", "charge", 26, "PaymentsImpl.charge"),
        client("Orders", 34, "OrderClient.constructor"),
        call("Orders", "getOrder", 38, "OrderClient.fetch"),
        # a field typed PaymentsClient, never assigned here
        call("Payments", "charge", 39, "OrderClient.fetch"),
        # the registration of an already reported class adds no handler twice
        server("Orders", 45, "serve"),
        # a parameter typed OrdersClient; cache.get is on a Map
        call("Orders", "listOrders", 46, "serve"),
        client("Payments", 48, "serve"),
        call("Payments", "refund", 49, "serve"),
    )


PROTO_LOADER = """
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

const definition = protoLoader.loadSync("orders.proto", { keepCase: false });
const proto = grpc.loadPackageDefinition(definition) as any;

export class OrdersBackend {
  private readonly client: any;

  constructor(address: string) {
    this.client = new proto.acme.orders.v1.Orders(address, grpc.credentials.createInsecure());
  }

  getOrder(orderId: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.client.getOrder({ orderId }, (err: grpc.ServiceError | null, order: unknown) =>
        err ? reject(err) : resolve(order),
      );
    });
  }
}

export function start(backend: OrdersBackend): void {
  const server = new grpc.Server();
  server.addService(proto.acme.orders.v1.Orders.service, {
    getOrder: (call: any, cb: any) => cb(null, {}),
  } as grpc.UntypedServiceImplementation);
  backend.getOrder("1");
}
"""


def test_proto_loader() -> None:
    namespace = "proto.acme.orders.v1"
    assert ts(PROTO_LOADER).grpc == (
        client("Orders", 11, "OrdersBackend.constructor", namespace),
        call("Orders", "getOrder", 16, "OrdersBackend.getOrder", namespace),
        server("Orders", 25, "start", namespace),
        handler("Orders", "getOrder", 26, "start", namespace),
    )


def test_implementing_a_non_generated_interface_is_not_evidence() -> None:
    facts = ts(
        """
        import { OrdersServer } from "./server-types";
        import { Client } from "./http";

        export class Impl implements OrdersServer {
          getOrder(): void {}
        }

        export function make(client: Client) {
          client.getOrder();
        }
        """
    )
    assert facts.grpc == ()


TSX = """
import React, { useState } from "react";

export interface Props {
  name: string;
}

export function Greeting({ name }: Props) {
  const [count, setCount] = useState<number>(0);
  const identity = <T,>(value: T) => value;
  return (
    <div className="greeting" onClick={() => setCount(count + 1)}>
      <Title text={identity(name)} />
    </div>
  );
}

export const Empty = () => <></>;
"""


def test_tsx_is_parsed_as_tsx_when_typescript_fails() -> None:
    expected = FileFacts(
        language="typescript",
        definitions=(
            D("Props", "interface", "", 3, 5),
            D("Greeting", "function", "", 7, 15),
            D("identity", "function", "Greeting", 9, 9),
            D("Empty", "function", "", 17, 17),
        ),
        imports=(I("react", 1, ("useState",)),),
    )
    for facts in (ts(TSX), extract("src/Greeting.tsx", textwrap.dedent(TSX).lstrip("\n").encode())):
        assert attrs.evolve(facts, references=()) == expected  # its references: test_navigation_typescript.py


def test_a_type_assertion_stays_typescript() -> None:
    facts = ts(
        """
        const value = <any>input;
        function cast<T>(x: unknown): T {
          return <T>x;
        }
        """
    )
    assert facts.definitions == (D("cast", "function", "", 2, 4),)
    assert facts.error == ""


def test_syntax_errors_keep_what_can_be_read() -> None:
    facts = ts(
        """
        import { a } from "./a";

        export class Ok {
          run(): void {}
        }

        function broken(x: number {
          return x;
        }
        """
    )
    assert facts.imports == (I("./a", 1, ("a",)),)
    assert facts.definitions[:2] == (D("Ok", "class", "", 3, 5), D("run", "method", "Ok", 4, 4))
    assert facts.error == "syntax error at line 7"


def test_dispatch_by_suffix() -> None:
    source = b"export function f(): void {}\n"
    expected = FileFacts(language="typescript", definitions=(D("f", "function", "", 1, 1),))
    for name in ("a.ts", "a.mts", "a.cts", "a.tsx"):
        assert extract(name, source) == expected


HOSTILE = [
    b"",
    b"\xff\xfe\x00\x81garbage",
    b"{" * 20_000,
    b"<div>" * 3_000,
    b"let x: " + b"A<" * 2_000 + b"B" + b">" * 2_000 + b";",
    b"class A{m(){" * 400 + b"}}" * 400,
    b"import { XClient } from './x_grpc_pb'; f(() => {" * 300 + b"})" * 300,
]


def test_hostile_inputs() -> None:
    for source in HOSTILE:
        facts = _typescript.extract(source)
        assert facts.language == "typescript"
        assert not facts.error.startswith("extractor failed")
        assert facts == _typescript.extract(source)


@settings(max_examples=200)
@given(st.binary(max_size=400))
def test_any_bytes(source: bytes) -> None:
    facts = _typescript.extract(source)
    assert not facts.error.startswith("extractor failed")
    assert facts == _typescript.extract(source)


TS_ALPHABET = st.sampled_from(
    list("abcxyz(){}[];,.=<>/*'\"` \n\t:?!+-|&")
    + ["function ", "class ", "interface ", "type ", "enum ", "namespace ", "implements ", "private ",
       "new ", "import ", "export ", "=>", "addService(", "loadPackageDefinition(", "Client", "Server",
       "this.", "_grpc_pb", "from ", "<div>", "</div>", "/>", "as any"]
)  # fmt: skip


@settings(max_examples=200)
@given(st.lists(TS_ALPHABET, max_size=80).map("".join))
def test_any_text(text: str) -> None:
    facts = _typescript.extract(text.encode())
    assert not facts.error.startswith("extractor failed")


def realistic_sample(copies: int = 24) -> bytes:
    """About 2,000 lines of service-like TypeScript: a module per copy, glued into one file."""
    parts = []
    for n in range(copies):
        parts.append(
            f"""
import * as grpc{n} from "@grpc/grpc-js";
import {{ OrdersClient as OrdersClient{n} }} from "./gen/orders{n}_grpc_pb";
import {{ GetOrderRequest as GetOrderRequest{n} }} from "./gen/orders{n}_pb";

export interface OrderView{n} {{
  id: string;
  status: "open" | "paid" | "shipped";
  items: Array<{{ sku: string; quantity: number; price: number }}>;
}}

export type Listener{n} = (order: OrderView{n}) => void;

export enum Level{n} {{
  Debug,
  Info,
  Warn,
}}

export class Cache{n}<T> {{
  private readonly items = new Map<string, {{ value: T; expires: number }}>();

  constructor(private readonly ttlMs: number) {{}}

  get(key: string, now: number): T | undefined {{
    const hit = this.items.get(key);
    if (!hit || hit.expires < now) {{
      this.items.delete(key);
      return undefined;
    }}
    return hit.value;
  }}

  set(key: string, value: T, now: number): void {{
    this.items.set(key, {{ value, expires: now + this.ttlMs }});
  }}
}}

export function total{n}(order: OrderView{n}): number {{
  return order.items.reduce((sum, item) => sum + item.price * item.quantity, 0);
}}

export const describe{n} = (order: OrderView{n}): string =>
  `${{order.id}}: ${{order.items.length}} items, ${{total{n}(order)}} total`;

export class OrdersGateway{n} {{
  private readonly cache = new Cache{n}<OrderView{n}>(5_000);
  private readonly listeners: Listener{n}[] = [];

  constructor(private readonly client: OrdersClient{n}) {{}}

  subscribe(listener: Listener{n}): () => void {{
    this.listeners.push(listener);
    return () => {{
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    }};
  }}

  async fetch(id: string, now: number): Promise<OrderView{n}> {{
    const cached = this.cache.get(id, now);
    if (cached) return cached;
    const request = new GetOrderRequest{n}();
    request.setId(id);
    const order = await new Promise<OrderView{n}>((resolve, reject) => {{
      this.client.getOrder(request, (err: grpc{n}.ServiceError | null, reply: any) => {{
        if (err) {{
          reject(err);
          return;
        }}
        resolve(reply.toObject() as OrderView{n});
      }});
    }});
    this.cache.set(id, order, now);
    for (const listener of this.listeners) listener(order);
    return order;
  }}
}}

export function connect{n}(address: string): OrdersGateway{n} {{
  const client = new OrdersClient{n}(address, grpc{n}.credentials.createInsecure());
  return new OrdersGateway{n}(client);
}}
"""
        )
    return "".join(parts).encode()


def test_realistic_sample() -> None:
    source = realistic_sample()
    assert 1_800 <= source.count(b"\n") <= 2_400
    facts = _typescript.extract(source)
    assert facts.error == ""
    assert len(facts.definitions) == 24 * 17  # 14 definitions and 3 enum members a copy
    assert len(facts.imports) == 24 * 3
    roles = [fact.role for fact in facts.grpc]
    assert roles.count(GrpcRole.CLIENT) == 24
    assert roles.count(GrpcRole.CALL) == 24
    assert len(roles) == 48
