"""JavaScript and TypeScript definitions that are not declarations: the functions of named object
literals, class fields holding functions, and functions exported or attached by assignment."""

from __future__ import annotations

import textwrap

import pytest

from mesh.index import Definition, FileFacts
from mesh.index.parse import _javascript, _typescript

D = Definition


def js(text: str) -> FileFacts:
    return _javascript.extract(textwrap.dedent(text).lstrip("\n").encode())


def ts(text: str) -> FileFacts:
    return _typescript.extract(textwrap.dedent(text).lstrip("\n").encode())


OBJECT_LITERALS = """
export const gateway = {
  getInvoice(id) {
    const format = (n) => `#${n}`;
    return format(id);
  },
  list: async () => [],
  remove: function (id) {},
  "stream-events": function* () {},
  get ready() { return true; },
  orders: {
    v1: { cancel(id) {} },
  },
  base: "/api",
  helper,
  ...mixins,
  [computed]() {},
  timeout: 3000,
};
"""


@pytest.mark.parametrize("extract", [js, ts], ids=["javascript", "typescript"])
def test_functions_of_an_object_literal_are_contained_by_its_name(extract) -> None:
    """Methods, function-valued properties (arrow, function, generator) and accessors are definitions,
    nested objects add their keys; values that are not functions, shorthands, spreads and computed
    keys are not."""
    assert extract(OBJECT_LITERALS).definitions == (
        D("getInvoice", "method", "gateway", 2, 5),
        # what a method holds is contained by the method's full path
        D("format", "function", "gateway.getInvoice", 3, 3),
        D("list", "method", "gateway", 6, 6),
        D("remove", "method", "gateway", 7, 7),
        D("stream-events", "method", "gateway", 8, 8),
        D("ready", "method", "gateway", 9, 9),
        D("cancel", "method", "gateway.orders.v1", 11, 11),
    )


def test_typescript_object_literals_typed_asserted_or_checked() -> None:
    facts = ts(
        """
        export const gateway: Gateway = {
          getInvoice(id: string): Promise<Invoice> { return fetchInvoice(id); },
        };
        const routes = { health: () => "ok" } as const;
        export const handlers = {
          onOpen: async (event: Event) => {},
        } satisfies Handlers;
        let wrapped = ({ run: () => 1 });
        """
    )
    assert facts.definitions == (
        D("getInvoice", "method", "gateway", 2, 2),
        D("health", "method", "routes", 4, 4),
        D("onOpen", "method", "handlers", 6, 6),
        D("run", "method", "wrapped", 8, 8),
    )
    assert facts.error == ""


def test_objects_inside_functions_are_named_from_there_and_unnamed_objects_hold_none() -> None:
    """A local object's functions are contained by the enclosing definition and the variable; an object
    passed as an argument, returned or merged has no name to contain its functions."""
    facts = js(
        """
        function makeStore(db) {
          const store = {
            get(key) { return db.get(key); },
          };
          return store;
        }
        app.use({ handle(req, res) {} });
        function factory() {
          return { build: () => 1 };
        }
        const merged = Object.assign({}, { extra() {} });
        """
    )
    assert facts.definitions == (
        D("makeStore", "function", "", 1, 6),
        D("get", "method", "makeStore.store", 3, 3),
        D("factory", "function", "", 8, 10),
    )


@pytest.mark.parametrize("extract", [js, ts], ids=["javascript", "typescript"])
def test_class_fields_holding_functions_are_methods(extract) -> None:
    """Instance and static fields holding a function are methods; a field holding an object contains its
    functions; other fields are not definitions."""
    facts = extract(
        """
        export class Handlers {
          handle = async (req) => {};
          static make = () => new Handlers();
          legacy = function () {};
          count = 0;
          routes = {
            health() { return "ok"; },
            size: 3,
          };
        }
        """
    )
    assert facts.definitions == (
        D("Handlers", "class", "", 1, 10),
        D("handle", "method", "Handlers", 2, 2),
        D("make", "method", "Handlers", 3, 3),
        D("legacy", "method", "Handlers", 4, 4),
        D("health", "method", "Handlers.routes", 7, 7),
    )


def test_typescript_class_fields_with_modifiers_and_types() -> None:
    facts = ts(
        """
        export class Controller {
          private readonly handle: Handler = async (req: Request): Promise<void> => {};
          public static create = (): Controller => new Controller();
          protected hooks: Hooks = { before: () => {} };
        }
        """
    )
    assert facts.definitions == (
        D("Controller", "class", "", 1, 5),
        D("handle", "method", "Controller", 2, 2),
        D("create", "method", "Controller", 3, 3),
        D("before", "method", "Controller.hooks", 4, 4),
    )


EXPORTS = """
export const f = () => 1;
export const g = async function () {};
module.exports.h = function () {};
exports.k = (x) => x * 2;
exports.api = {
  list() {},
};
module.exports = {
  start() {},
  stop: () => {},
};
module.exports = function () {};
"""


def test_exported_arrow_functions_and_function_expressions() -> None:
    """``export const``, ``module.exports.f =`` and ``exports.f =`` define ``f``: the module objects add no name."""
    assert js(EXPORTS).definitions == (
        D("f", "function", "", 1, 1),
        D("g", "function", "", 2, 2),
        D("h", "function", "", 3, 3),
        D("k", "function", "", 4, 4),
        D("list", "method", "api", 6, 6),
        D("start", "function", "", 9, 9),
        D("stop", "function", "", 10, 10),
        # an anonymous function as the module itself has no name to find it by
    )
    source = textwrap.dedent(OBJECT_LITERALS + EXPORTS).encode()
    assert _javascript.extract(source) == _javascript.extract(source)


def test_assignments_to_member_chains() -> None:
    """At the top of the program, a function or an object assigned to ``A.b`` is named under ``A``
    (``prototype`` left out); inside a function such an assignment wires a callback, ``this.x =``
    never names anything, nor do computed members and calls."""
    facts = js(
        """
        function Repo(db) {
          this.db = db;
          this.find = function (id) {};
          db.onerror = () => {};
          exports.inner = () => {};
        }
        Repo.prototype.save = function (row) {};
        Repo.prototype = {
          load(id) {},
        };
        Repo.create = (db) => new Repo(db);
        window.app.start = async () => {};
        handlers[name] = () => {};
        make().run = () => {};
        this.top = () => {};
        """
    )
    assert facts.definitions == (
        D("Repo", "function", "", 1, 6),
        # CommonJS exports count wherever they are made
        D("inner", "function", "Repo", 5, 5),
        D("save", "method", "Repo", 7, 7),
        D("load", "method", "Repo", 9, 9),
        D("create", "method", "Repo", 11, 11),
        D("start", "method", "window.app", 12, 12),
    )


def test_deeply_nested_objects_stop_at_a_bound() -> None:
    """Hostile nesting costs a bounded walk: objects deeper than eight levels are not read."""
    depth = 3_000
    source = "const a = " + "{ b: " * depth + "{ f() {} }" + " }" * depth + ";\n"
    facts = js(source)
    assert facts.definitions == ()
    shallow = "const a = " + "{ b: " * 3 + "{ f() {} }" + " }" * 3 + ";\n"
    assert js(shallow).definitions == (D("f", "method", "a.b.b.b", 1, 1),)


def test_an_exported_const_is_a_constant_whatever_its_value_and_name() -> None:
    """What a module exports is its API: ``export const toaster = createToaster()`` is looked up by name."""
    facts = ts(
        """
        export const toaster = createToaster({ placement: "bottom" })
        const local = make()
        export const handler = () => 1
        """
    )
    assert [(d.name, d.kind) for d in facts.definitions] == [("toaster", "constant"), ("handler", "function")]
