"""Code navigation facts of JavaScript: signatures, doc lines and references (queries/javascript/*.scm)."""

from __future__ import annotations

import textwrap

import pytest
import tree_sitter

from mesh.index import Reference
from mesh.index.parse import _common, _navigation, _ts, extract


def _facts(source: str, path: str = "svc/mod.js"):
    return extract(path, textwrap.dedent(source).lstrip("\n").encode())


def _refs(source: str, path: str = "svc/mod.js") -> set[tuple[str, int, str, str]]:
    return {(r.name, r.line, r.kind, r.qualifier) for r in _facts(source, path).references}


@pytest.mark.parametrize("part", ["outline", "references"])
def test_the_queries_are_data_and_compile(part: str) -> None:
    text = _navigation.query_text("javascript", part)
    assert text.strip()
    assert isinstance(_common.query("javascript", text), tree_sitter.Query)


def test_signature_is_the_declaration_up_to_its_body_on_one_line() -> None:
    facts = _facts(
        """
        export async function place(
          order,
          { retries = 3, ...rest },
        ) {
          return order;
        }
        export const handle = async (req, res) => {
          res.send(1);
        };
        const double = (x) => x * 2;
        function* ids(start) {}
        class Store extends mixins.Audited {
          @observable items = [];
          @action.bound
          put(key, value) {}
          static make = (n) => new Store(n);
        }
        const api = {
          list: async (query) => [],
          get(id) {},
        };
        Store.prototype.flush = function (force) {};
        const Panel = class extends Base {};
        """
    )
    signatures = {d.name: d.signature for d in facts.definitions}
    assert signatures == {
        "place": "async function place(order, { retries = 3, ...rest })",
        "handle": "const handle = async (req, res)",
        "double": "const double = (x)",
        "ids": "function* ids(start)",
        "Store": "class Store extends mixins.Audited",
        "put": "put(key, value)",
        "make": "static make = (n)",
        "list": "list: async (query)",
        "get": "get(id)",
        "flush": "Store.prototype.flush = function (force)",
        "Panel": "const Panel = class extends Base",
    }


def test_doc_line_is_the_first_line_of_the_comment_block_above() -> None:
    facts = _facts(
        """
        /**
         * Places an order.
         * @param order the order
         */
        export function place(order) {}

        // Handles a request.
        // Twice if asked.
        export default function handle() {}

        /* Lists orders. */
        const list = () => [];

        /** A store. */
        @Injectable()
        class Store {
          /** Puts one. */
          @action
          put() {}

          size = 0; // not a doc
          get() {}
        }

        x = 1; // not a doc either
        function plain() {}
        """
    )
    docs = {d.name: d.doc for d in facts.definitions}
    assert docs == {
        "place": "Places an order.",
        "handle": "Handles a request.",
        "list": "Lists orders.",
        "Store": "A store.",
        "put": "Puts one.",
        "get": "",
        "plain": "",
    }


def test_calls_with_their_qualifier_and_arity() -> None:
    facts = _facts(
        """
        import { render } from "./view";
        class Checkout extends Base {
          place(order) {
            super.place(order);
            this.audit(order).flush();
            order?.items.forEach(render);
            const total = pricing.total(order, ...extra);
            return html`<p>${total}</p>`;
          }
        }
        """
    )
    refs = {(r.name, r.line, r.kind, r.qualifier, r.arity) for r in facts.references}
    assert refs >= {
        ("place", 4, "call", "super", 1),
        ("audit", 5, "call", "this", 1),
        ("flush", 5, "call", "~", 0),
        ("forEach", 6, "call", "order.items", 1),
        ("total", 7, "call", "pricing", -1),
        ("html", 8, "call", "", -1),
    }


def test_instantiations_types_and_values() -> None:
    refs = _refs(
        """
        class Checkout extends models.Base {
          place(order) {
            const receipt = new Receipt(order);
            const store = new db.Store();
            if (order instanceof Order || order instanceof legacy.Order) {
              return { Order, status: Status.PAID, limit: MAX_SIZE };
            }
          }
        }
        """
    )
    assert refs == {
        ("Base", 1, "type", "models"),
        ("Receipt", 3, "new", ""),
        ("Store", 4, "new", "db"),
        ("Order", 5, "type", ""),
        ("Order", 5, "type", "legacy"),
        ("Order", 6, "use", ""),
        ("Status", 6, "use", ""),
        ("PAID", 6, "use", "Status"),
        ("MAX_SIZE", 6, "use", ""),
    }


def test_jsx_elements_instantiate_their_component() -> None:
    refs = _refs(
        """
        export function App() {
          return (
            <Layout.Page title={Title.MAIN}>
              <OrderList items={items} />
              <div className="x">text</div>
            </Layout.Page>
          );
        }
        """,
        "web/App.jsx",
    )
    assert refs == {
        ("Layout", 3, "use", ""),
        ("Page", 3, "new", "Layout"),
        ("Title", 3, "use", ""),
        ("MAIN", 3, "use", "Title"),
        ("OrderList", 4, "new", ""),
    }


def test_what_a_use_binds_and_functions_passed_as_values() -> None:
    facts = _facts(
        """
        import { listOrders } from "./handlers";
        function health() {}
        class Server {
          cache = new Map();
          constructor() {
            this.db = new db.UserDb();
          }
        }
        const store = new Store();
        app.get("/orders", listOrders, health, localVariable, this.render);
        """
    )
    refs = {(r.name, r.line, r.kind, r.qualifier, r.binds) for r in facts.references}
    assert refs == {
        ("Map", 4, "new", "", "cache"),
        ("UserDb", 6, "new", "db", "this.db"),
        ("Store", 9, "new", "", "store"),
        ("get", 10, "call", "app", ""),
        ("listOrders", 10, "use", "", ""),
        ("health", 10, "use", "", ""),
        ("render", 10, "use", "this", ""),
    }


def test_names_a_declaration_introduces_are_not_references() -> None:
    refs = _refs(
        """
        import Pricing, { Order as Placed } from "./orders";
        import * as Models from "./models";
        const { Config } = require("./config");
        export { Placed as Order };
        export * from "./more";
        function Place(Order, { Item, Key: Alias }, [First], Other = 1, ...Rest) {
          Outer: for (const Line of items) {
            continue Outer;
          }
          try {} catch (Failure) {}
          const Local = 1;
          Global = 2;
          return { Key: 1, Method() {} };
        }
        const Arrow = Single => 1;
        class Shape { Area = 0; Draw() {} }
        Registry.add(Shape);
        """
    )
    assert refs == {("Registry", 17, "use", ""), ("add", 17, "call", "Registry"), ("Shape", 17, "use", "")}


def test_one_reference_per_name_node_the_strongest_kind() -> None:
    facts = _facts("const order = new Order(1);\n")
    assert facts.references == (Reference("Order", 1, "new", "", "order", 1),)


def test_a_tree_too_broken_to_query_answers_without_references(monkeypatch: pytest.MonkeyPatch) -> None:
    queried: list[str] = []
    real = _navigation.references
    monkeypatch.setattr(_navigation, "references", lambda *args: queried.append(args[0]) or real(*args))
    source = b"function place(order) {}\n" + b"{" * 100_000  # quadratic to query: seconds, not milliseconds
    assert _common.too_broken(_ts.parse("javascript", source).root_node)
    facts = extract("svc/broken.js", source)
    assert facts.references == () and queried == []
    assert [(d.name, d.signature) for d in facts.definitions] == [("place", "function place(order)")]
    assert facts.error.startswith("syntax error")
    assert extract("svc/fine.js", b"const a = new A();\n").references and queried == ["javascript"]


def test_module_constants_frozen_objects_and_static_capitals_are_constants() -> None:
    facts = _facts(
        """
        export const MAX_ITEMS = 50;
        const label = "shop";
        const router = express.Router();
        const Status = Object.freeze({ PENDING: "pending", PAID: "paid" });
        class Cart { static LIMIT = 3; static count = 0; }
        """
    )
    found = {(d.name, d.kind, d.container) for d in facts.definitions}
    assert found == {
        ("MAX_ITEMS", "constant", ""), ("label", "constant", ""),
        ("Status", "constant", ""), ("PENDING", "constant", "Status"), ("PAID", "constant", "Status"),
        ("Cart", "class", ""), ("LIMIT", "constant", "Cart"),
    }  # fmt: skip


def test_import_aliases_narrowings_and_required_modules() -> None:
    facts = _facts(
        """
        import * as pricing from "./pricing.js";
        import { shipping as shipCost } from "./pricing.js";
        const { total: sum } = require("./cart");
        const models = require("../models");
        if (doc instanceof Invoice) doc.pay();
        pricing.shipping(2); shipCost(3); sum(1); new models.Cart();
        """
    )
    refs = {(r.name, r.line, r.kind, r.qualifier, r.binds) for r in facts.references}
    assert ("Invoice", 5, "type", "", "doc") in refs
    assert {("shipping", 6, "call", "pricing.js", ""), ("shipping", 6, "call", "", ""), ("total", 6, "call", "", ""),
            ("Cart", 6, "new", "models", "")} <= refs  # fmt: skip
