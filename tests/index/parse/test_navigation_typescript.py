"""Code navigation facts of TypeScript and TSX: signatures, doc lines and references
(queries/typescript/*.scm, shared by the TSX grammar)."""

from __future__ import annotations

import textwrap

import pytest
import tree_sitter

from mesh.index.parse import _common, _navigation, _ts, extract


def _facts(source: str, path: str = "svc/mod.ts"):
    return extract(path, textwrap.dedent(source).lstrip("\n").encode())


def _refs(source: str, path: str = "svc/mod.ts") -> set[tuple[str, int, str, str]]:
    return {(r.name, r.line, r.kind, r.qualifier) for r in _facts(source, path).references}


@pytest.mark.parametrize("grammar", ["typescript", "tsx"])
@pytest.mark.parametrize("part", ["outline", "references"])
def test_the_queries_are_data_and_compile_for_both_grammars(grammar: str, part: str) -> None:
    text = _navigation.query_text(grammar, part)
    assert text.strip()
    assert isinstance(_common.query(grammar, _navigation.query_text("javascript", "outline") + text), tree_sitter.Query)


def test_signature_is_the_declaration_up_to_its_body_on_one_line() -> None:
    facts = _facts(
        """
        export async function place<T extends Order = Order>(
          order: T,
          options?: Partial<Options>,
        ): Promise<Receipt<T>> {
          return new Receipt(order);
        }
        @Injectable()
        export abstract class Store<K, V> extends Base<K> implements Repo<K, V>, Disposable {
          @Input() private readonly handle = async (req: Request): Promise<void> => {};
          @Get(":id")
          async get(@Param("id") id: K): Promise<V | undefined> {}
          abstract put(key: K, value: V): void;
        }
        export interface Repo<K, V> extends Reader<K> {
          find(key: K): V;
        }
        export type Handler = (req: Request, res: Response) => Promise<void>;
        export enum Status { Open = "open" }
        export namespace Metrics.Http {}
        export function parse(input: string): number;
        export function parse(input: string | number): number { return 1; }
        export const toId = <T,>(value: T): string => String(value);
        """
    )
    signatures = {d.name: d.signature for d in facts.definitions}
    assert signatures == {
        "place": "async function place<T extends Order = Order>(order: T, options?: Partial<Options>): Promise<Receipt<T>>",
        "Store": "abstract class Store<K, V> extends Base<K> implements Repo<K, V>, Disposable",
        "handle": "private readonly handle = async (req: Request): Promise<void>",
        "get": 'async get(@Param("id") id: K): Promise<V | undefined>',
        "put": "abstract put(key: K, value: V): void",
        "Repo": "interface Repo<K, V> extends Reader<K>",
        "find": "find(key: K): V",
        "Handler": "type Handler = (req: Request, res: Response) => Promise<void>",
        "Status": "enum Status",
        "Open": 'Open = "open"',
        "Metrics.Http": "namespace Metrics.Http",
        "parse": "function parse(input: string | number): number",
        "toId": "const toId = <T,>(value: T): string",
    }


def test_doc_line_above_export_decorators_and_declarations() -> None:
    facts = _facts(
        """
        /**
         * Orders, by id.
         */
        @Controller("orders")
        export class OrdersController {
          /** Reads one order. */
          @Get(":id")
          @UseGuards(AuthGuard)
          get(id: string) {}

          // Lists them.
          list() {}

          private count = 0; // not a doc
          size() {}
        }

        /// The status of an order.
        export enum Status { Open }

        /** Doubles. */
        export const double = (x: number): number => x * 2;
        """
    )
    docs = {d.name: d.doc for d in facts.definitions}
    assert docs == {
        "OrdersController": "Orders, by id.",
        "get": "Reads one order.",
        "list": "Lists them.",
        "size": "",
        "Status": "The status of an order.",
        "Open": "",
        "double": "Doubles.",
    }


def test_types_in_every_position_with_their_qualifier() -> None:
    refs = _refs(
        """
        export class Store<T extends Entity> extends core.Base<T> implements Repo<T>, api.Reader {
          private cache: Map<string, models.Order> = new Map();
          find(id: Id, opts?: Options): Promise<T[]> {
            const raw = this.load(id) as Raw;
            const checked = raw satisfies Checked;
            if (raw instanceof Legacy) { return <Result>raw; }
            try {} catch (e: unknown) {}
            return [];
          }
        }
        function isOrder(x: unknown): x is Order { return true; }
        type Keys = keyof typeof Config;
        """
    )
    assert refs >= {
        ("Entity", 1, "type", ""),
        ("Base", 1, "type", "core"),
        ("T", 1, "type", ""),
        ("Repo", 1, "type", ""),
        ("Reader", 1, "type", "api"),
        ("Map", 2, "type", ""),
        ("Order", 2, "type", "models"),
        ("Map", 2, "new", ""),
        ("Id", 3, "type", ""),
        ("Options", 3, "type", ""),
        ("Promise", 3, "type", ""),
        ("load", 4, "call", "this"),
        ("Raw", 4, "type", ""),
        ("Checked", 5, "type", ""),
        ("Legacy", 6, "type", ""),
        ("Result", 6, "type", ""),
        ("Order", 11, "type", ""),
        ("Config", 12, "use", ""),
    }


def test_calls_decorators_enums_and_non_null_receivers() -> None:
    facts = _facts(
        """
        @Injectable()
        export class Checkout {
          @Input name: string;
          @core.Output() done: boolean;
          place(order: Order) {
            this.repo!.save<Order>(order);
            const status = Status.Paid;
            return validate<Order>(order, MAX_ITEMS);
          }
        }
        """
    )
    refs = {(r.name, r.line, r.kind, r.qualifier, r.arity) for r in facts.references}
    assert refs >= {
        ("Injectable", 1, "call", "", 0),
        ("Input", 3, "call", "", -1),
        ("Output", 4, "call", "core", 0),
        ("save", 6, "call", "this.repo", 1),
        ("Status", 7, "use", "", -1),
        ("Paid", 7, "use", "Status", -1),
        ("validate", 8, "call", "", 2),
        ("MAX_ITEMS", 8, "use", "", -1),
    }


def test_what_a_type_or_an_instantiation_binds() -> None:
    facts = _facts(
        """
        export class OrdersService {
          private readonly cache: Cache<Order>;
          client = new api.OrdersClient();
          constructor(private repo: OrderRepository, logger?: log.Logger) {
            this.bus = new EventBus();
          }
        }
        let current: Order;
        let many: Order[];
        """
    )
    binds = {(r.name, r.kind, r.qualifier, r.binds) for r in facts.references if r.binds}
    assert binds == {
        ("Cache", "type", "", "cache"),
        ("OrdersClient", "new", "api", "client"),
        ("OrderRepository", "type", "", "repo"),
        ("Logger", "type", "log", "logger"),
        ("EventBus", "new", "", "this.bus"),
        ("Order", "type", "", "current"),
    }


def test_names_a_declaration_introduces_are_not_references() -> None:
    refs = _refs(
        """
        import Default, { type Order, Status as S } from "./orders";
        import Config = require("./config");
        import Alias = Models.Order;
        export { S as Status };
        export type { Order as Placed } from "./orders";
        export namespace Billing.Api {}
        export interface Shape { Area: number; Draw(): void }
        export type Pair<Left, Right> = [First: Left, Second?: Right];
        export type Mapped<In> = { [Key in keyof In]: In[Key] extends infer Out ? Out : never };
        export enum Color { Red, Green = 2 }
        export abstract class Place { abstract Run(): void }
        export function Make<Item>(Value: Item, { Nested }: any): void {}
        """
    )
    assert refs == {
        ("Left", 8, "type", ""),
        ("Right", 8, "type", ""),
        ("In", 9, "type", ""),
        ("Key", 9, "type", ""),
        ("Out", 9, "type", ""),
        ("Item", 12, "type", ""),
    }


TSX = """
import React from "react";
/** The app. */
export function App({ items }: Props): JSX.Element {
  return (
    <Layout.Page title={Title.MAIN}>
      <OrderList<Order> items={items as Order[]} />
      <div className="x">text</div>
    </Layout.Page>
  );
}
"""


def test_tsx_elements_instantiate_their_component() -> None:
    facts = _facts(TSX, "web/App.tsx")
    refs = {(r.name, r.line, r.kind, r.qualifier) for r in facts.references}
    assert refs == {
        ("Props", 3, "type", ""),
        ("JSX", 3, "use", ""),
        ("Element", 3, "type", "JSX"),
        ("Layout", 5, "use", ""),
        ("Page", 5, "new", "Layout"),
        ("Title", 5, "use", ""),
        ("MAIN", 5, "use", "Title"),
        ("OrderList", 6, "new", ""),
        ("Order", 6, "type", ""),
    }
    assert facts.definitions[0].doc == "The app."


def test_a_tree_too_broken_to_query_answers_without_references(monkeypatch: pytest.MonkeyPatch) -> None:
    queried: list[str] = []
    real = _navigation.references
    monkeypatch.setattr(_navigation, "references", lambda *args: queried.append(args[0]) or real(*args))
    source = b"function place(order) {}\n" + b"{" * 100_000  # quadratic to query: seconds, not milliseconds
    assert _common.too_broken(_ts.parse("typescript", source).root_node)
    facts = extract("svc/broken.ts", source)
    assert facts.references == () and queried == []
    assert [(d.name, d.signature) for d in facts.definitions] == [("place", "function place(order)")]
    assert facts.error.startswith("syntax error")
    assert extract("svc/fine.ts", b"const a: A = new A();\n").references and queried == ["typescript"]


def test_constants_enum_members_and_interface_methods_are_definitions() -> None:
    facts = _facts(
        """
        export const TAX_RATE = 0.2;
        export const API_BASE = process.env.API ?? "/";
        const app = express();
        const pkg = require("./package.json");
        export const Colors = { RED: "red", pick() {} } as const;
        export enum Status { Pending, Paid = "paid" }
        export interface Priced { total(): number; label: string; }
        export class Cart { static readonly LIMIT = 50; static count = 0; readonly id = 1; }
        """
    )
    found = {(d.name, d.kind, d.container) for d in facts.definitions}
    assert found == {
        ("TAX_RATE", "constant", ""), ("API_BASE", "constant", ""),
        ("Colors", "constant", ""), ("RED", "constant", "Colors"), ("pick", "method", "Colors"),
        ("Status", "enum", ""), ("Pending", "constant", "Status"), ("Paid", "constant", "Status"),
        ("Priced", "interface", ""), ("total", "method", "Priced"),
        ("Cart", "class", ""), ("LIMIT", "constant", "Cart"),
    }  # fmt: skip


def test_binds_of_members_casts_and_narrowings_and_import_aliases() -> None:
    facts = _facts(
        """
        import * as pricing from "./lib/pricing.js";
        import { shipping as shipCost } from "./pricing";
        interface Deps { orders: OrderService; }
        const cart = raw as Cart;
        if (doc instanceof Invoice) doc.pay();
        pricing.shipping(2);
        shipCost(3);
        """
    )
    refs = {(r.name, r.line, r.kind, r.qualifier, r.binds) for r in facts.references}
    assert ("OrderService", 3, "type", "", "orders") in refs
    assert ("Cart", 4, "type", "", "cart") in refs
    assert ("Invoice", 5, "type", "", "doc") in refs
    assert ("shipping", 6, "call", "lib.pricing.js", "") in refs
    assert ("shipping", 7, "call", "", "") in refs
