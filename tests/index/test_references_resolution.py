"""How ``find_references`` decides a site (``mesh/index/query/_references.py``), one rule a test,
on small workspaces built here (the navigation fixture measures them together)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesh.index import Index
from mesh.index.query._references import find_references, parameter_range, with_enclosing
from mesh.index.query._symbols import SymbolRow, find_symbols


@pytest.fixture
def build(tmp_path: Path) -> Iterator[Any]:
    opened: list[Index] = []

    def make(files: dict[str, str]) -> Any:
        root = tmp_path / "ws"
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(textwrap.dedent(text))
        index = Index(root, tmp_path / "cache", workers=1)
        index.refresh()
        opened.append(index)
        return index.store.snapshot()

    yield make
    for index in opened:
        index.close()


def sites(db: Any, name: str) -> dict[str, str]:
    """``path:line -> how`` of the references of the first definition ``name`` names."""
    target = find_symbols(db, name)[0]
    return {f"{site.path}:{site.line}": site.how for site in find_references(db, target)}


SHOP = {
    "shop/models.py": """
        class Cart:
            def total(self):
                return 1

            def summary(self):
                return self.total()


        class Invoice:
            def total(self):
                return 2
        """,
    "shop/__init__.py": """
        from .models import Cart, Invoice
        """,
    "app.py": """
        from shop import Cart
        from shop.models import Invoice
        import shop.models as models


        def main(cart: Cart, data):
            invoice = Invoice()
            cart.total()
            invoice.total()
            data.total()
            models.Cart()
        """,
}


def test_self_inside_the_class_typed_receivers_and_barrels_resolve_INV_NAV_1(build: Any) -> None:
    with build(SHOP) as db:
        cart_total = sites(db, "Cart.total")
        invoice_total = sites(db, "Invoice.total")
        cart = sites(db, "Cart")
    assert cart_total == {"shop/models.py:7": "self", "app.py:9": "typed", "app.py:11": "by name"}
    assert invoice_total == {"app.py:10": "typed", "app.py:11": "by name"}
    # through the barrel shop/__init__.py, and qualified by a module alias
    assert cart["app.py:7"] == "imported" and cart["app.py:12"] == "qualified"


def test_a_site_another_definition_of_the_file_reaches_is_not_listed(build: Any) -> None:
    with build({
        "a.py": "def helper():\n    return 1\n\n\ndef main():\n    return helper()\n",
        "b.py": "def helper():\n    return 2\n\n\ndef run():\n    return helper()\n",
    }) as db:  # fmt: skip
        rows = [row for row in find_symbols(db, "helper") if row.path == "a.py"]
        found = {f"{site.path}:{site.line}": site.how for site in find_references(db, rows[0])}
    assert found == {"a.py:6": "same file"}


def test_overloads_are_told_apart_by_the_number_of_arguments(build: Any) -> None:
    with build({
        "src/Pricing.java": """
            package shop;
            class Pricing {
                static double shipping(double weight) { return weight; }
                static double shipping(double weight, boolean express) { return shipping(weight) * 2; }
                static double quote() { return shipping(1.0, true) + shipping(2.0); }
            }
            """,
    }) as db:  # fmt: skip
        one, two = sorted((row for row in find_symbols(db, "shipping")), key=lambda row: row.line)
        by_one = {site.line: site.how for site in find_references(db, one)}
        by_two = {site.line: site.how for site in find_references(db, two)}
    assert by_one == {5: "same class", 6: "same class"}
    assert by_two == {6: "same class"}


def test_enclosing_definitions_are_filled_for_the_sites_shown(build: Any) -> None:
    with build(SHOP) as db:
        target = find_symbols(db, "Invoice.total")[0]
        shown = with_enclosing(db, find_references(db, target))
    assert {site.enclosing for site in shown} == {"main"}


@pytest.mark.parametrize(
    ("signature", "expected"),
    [
        ("def f(self, a, b=2)", (1, 2)),
        ("def f(self, *args)", (0, None)),
        ("public static decimal f(decimal weight, bool express)", (2, 2)),
        ("func (s *Store) f(ctx context.Context, items []Item) error", (2, 2)),
        ('fun f(a: Int, b: String = "x")', (1, 2)),
        ("function f(a?: number, ...rest: string[])", (0, None)),
        ("void f(Map<String, List<Integer>> m, int x)", (2, 2)),
        ("fn f(&self, x: u32) -> u32", (1, 1)),
        ("public function f($a, ...$rest)", (1, None)),
        ("class f", None),
    ],
)
def test_the_arguments_a_signature_takes(signature: str, expected: Any) -> None:
    row = SymbolRow(0, "", "", "", "code", "f", "method", "C", 1, 1, signature, "")
    assert parameter_range(row) == expected


def test_a_changed_file_leaves_no_reference_behind(tmp_path: Path) -> None:
    """``refs`` is clustered by name: a file's rows go through its list of names (``ref_names``)."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("def helper():\n    return 1\n")
    (root / "b.py").write_text("from a import helper\n\n\ndef run():\n    return helper()\n")
    index = Index(root, tmp_path / "cache", workers=1)
    try:
        index.refresh()
        (root / "b.py").write_text("from a import helper\n\n\n\ndef run():\n    return 2\n")
        index.refresh()
        with index.store.snapshot() as db:
            target = find_symbols(db, "helper")[0]
            assert find_references(db, target) == []
            assert db.execute("SELECT count(*) FROM refs WHERE name = 'helper'").fetchone() == (0,)
            assert db.execute("SELECT count(*) FROM refs").fetchone()[0] == db.execute(
                "SELECT count(*) FROM refs WHERE file_id IN (SELECT file_id FROM ref_names)"
            ).fetchone()[0]
    finally:
        index.close()


def test_cpp_includes_reach_through_headers_and_namespaces_INV_NAV_1(build: Any) -> None:
    """An ``#include`` brings in every name of the file, and a header's includes come along; what
    a namespace holds is reached bare or as ``ns::f``; a member declared in the class and defined
    below it is one function, not two overloads."""
    with build({
        "src/utils.h": """
            namespace social {
            int load_config(const char* path);
            }
            """,
        "src/pool.h": """
            #include "utils.h"
            template <class T> class Pool {
             public:
              T* Pop();
            };
            template <class T> T* Pool<T>::Pop() { return nullptr; }
            """,
        "src/svc/handler.h": """
            #include "../pool.h"
            class Handler {
              Pool<int> *_pool;
              void Serve() { _pool->Pop(); }
            };
            """,
        "src/svc/main.cpp": """
            #include "handler.h"
            int main() {
              social::load_config("a");
              return load_config("b");
            }
            """,
        "src/other/alone.cpp": """
            int run() { return load_config("c"); }
            """,
    }) as db:  # fmt: skip
        config = sites(db, "load_config")
        pop = {key: how for key, how in sites(db, "Pool.Pop").items() if key != "src/pool.h:7"}
    assert config == {"src/svc/main.cpp:4": "qualified", "src/svc/main.cpp:5": "included",
                      "src/other/alone.cpp:2": "by name"}  # fmt: skip
    assert pop == {"src/svc/handler.h:5": "typed"}


def test_csharp_namespaces_usings_and_global_usings_INV_NAV_1(build: Any) -> None:
    """A C# type is seen from its namespace and the ones inside it, through ``using``, through a
    ``global using`` anywhere in the project (the folder of a ``.csproj``), or written whole; a
    file of another project without any of these matches by name only."""
    with build({
        "Bus/Bus.csproj": "<Project />\n",
        "Bus/IEventBus.cs": "namespace Acme.Bus;\n\npublic interface IEventBus { void Publish(); }\n",
        "Bus/Inner/Relay.cs": "namespace Acme.Bus.Inner;\n\nclass Relay { IEventBus bus; }\n",
        "Api/Api.csproj": "<Project />\n",
        "Api/GlobalUsings.cs": "global using Acme.Bus;\n",
        "Api/Service.cs": "namespace Acme.Api;\n\nclass Service { IEventBus bus; }\n",
        "Web/Web.csproj": "<Project />\n",
        "Web/Page.cs": "using Acme.Bus;\n\nnamespace Acme.Web;\n\nclass Page { IEventBus bus; }\n",
        "Web/Full.cs": "namespace Acme.Web;\n\nclass Full { Acme.Bus.IEventBus bus; }\n",
        "Jobs/Jobs.csproj": "<Project />\n",
        "Jobs/Job.cs": "namespace Acme.Jobs;\n\nclass Job { IEventBus bus; }\n",
    }) as db:  # fmt: skip
        found = sites(db, "IEventBus")
    assert found == {
        "Bus/Inner/Relay.cs:3": "same namespace",
        "Api/Service.cs:3": "global using",
        "Web/Page.cs:5": "using",
        "Web/Full.cs:3": "qualified",
        "Jobs/Job.cs:3": "by name",
    }


def test_php_use_with_an_alias_and_ruby_require_chains_INV_NAV_1(build: Any) -> None:
    with build({
        "php/Pricing.php": "<?php\nnamespace Shop;\n\nfinal class Pricing {\n    public static function shipping($w) { return $w; }\n}\n",
        "php/Checkout.php": "<?php\nnamespace Shop\\Checkout;\n\nuse Shop\\Pricing as Rules;\n\nfunction main() { return Rules::shipping(2.0); }\n",
        "php/Other.php": "<?php\nnamespace Elsewhere;\n\nfunction main() { return Pricing::shipping(2.0); }\n",
        "rb/pricing.rb": "module Shop\n  module Pricing\n    def self.shipping(w)\n      w\n    end\n  end\nend\n",
        "rb/orders.rb": "require_relative \"pricing\"\n",
        "rb/checkout.rb": "require_relative \"orders\"\n\nmodule Shop\n  def self.main\n    Pricing.shipping(2.0)\n  end\nend\n",
    }) as db:  # fmt: skip
        php = {key: how for key, how in sites(db, "Pricing.shipping").items() if key.startswith("php/")}
        ruby_rows = [row for row in find_symbols(db, "shipping") if row.path == "rb/pricing.rb"]
        ruby = {f"{site.path}:{site.line}": site.how for site in find_references(db, ruby_rows[0])}
    assert php == {"php/Checkout.php:6": "qualified", "php/Other.php:4": "by name"}
    assert ruby == {"rb/checkout.rb:5": "qualified"}


def test_inherited_members_and_no_reference_across_languages_INV_NAV_1_INV_NAV_5(build: Any) -> None:
    """INV-NAV-1, INV-NAV-5: a member of a base class is reached through a derived class that does not
    override it (its instances, its own ``this``); a derived class that overrides it takes its
    receivers away; a file of another language never names it, not even by name."""
    with build({
        "web/page.js": "export class Page {\n  visit() {\n    return 1;\n  }\n}\n",
        "web/cart.js": "import { Page } from './page';\n\nexport class Cart extends Page {\n  open() {\n    return this.visit();\n  }\n}\n",
        "web/home.js": "import { Page } from './page';\n\nexport class Home extends Page {\n  visit() {\n    return 2;\n  }\n}\n",
        "web/test.js": "import { Cart } from './cart';\nimport { Home } from './home';\n\nconst cart = new Cart();\nconst home = new Home();\ncart.visit();\nhome.visit();\n",
        "Tool.java": "class Tool {\n  void run(Page page) {\n    page.visit();\n  }\n}\n",
    }) as db:  # fmt: skip
        rows = [row for row in find_symbols(db, "Page.visit") if row.path == "web/page.js"]
        found = {f"{site.path}:{site.line}": site.how for site in find_references(db, rows[0])}
    assert found == {"web/cart.js:5": "inherited", "web/test.js:6": "inherited"}


def test_extension_methods_and_java_enum_case_labels_INV_NAV_1(build: Any) -> None:
    """A C# extension method (``this`` on its first parameter) is called on any receiver where its
    namespace is in scope; a Kotlin extension function on any receiver where it is imported; a
    Java enum constant is named bare in a switch on it."""
    with build({
        "Defaults/Defaults.csproj": "<Project />\n",
        "Defaults/Extensions.cs": "namespace Acme.Defaults;\n\npublic static class Extensions\n{\n"
                                  "    public static App MapDefaults(this App app) { return app; }\n}\n",
        "Api/Api.csproj": "<Project />\n",
        "Api/Program.cs": "using Acme.Defaults;\n\nclass Program { void Main(App app) { app.MapDefaults(); } }\n",
        "Jobs/Jobs.csproj": "<Project />\n",
        "Jobs/Job.cs": "namespace Acme.Jobs;\n\nclass Job { void Run(App app) { app.MapDefaults(); } }\n",
        "kt/Text.kt": "package acme.text\n\nfun String.slug(): String = lowercase()\n",
        "kt/Use.kt": "package acme.app\n\nimport acme.text.slug\n\nfun title(t: String) = t.slug()\n",
        "java/State.java": "package acme;\n\npublic enum State { OPEN, DONE }\n",
        "java/Ticket.java": "package acme;\n\nclass Ticket {\n  State state;\n  int f() {\n    switch (state) {\n"
                            "      case OPEN: return 1;\n      default: return 0;\n    }\n  }\n}\n",
    }) as db:  # fmt: skip
        extension = sites(db, "MapDefaults")
        slug = sites(db, "slug")
        opened = sites(db, "State.OPEN")
    assert extension == {"Api/Program.cs:3": "extension", "Jobs/Job.cs:3": "by name"}
    assert slug == {"kt/Use.kt:5": "extension"}
    assert opened == {"java/Ticket.java:7": "case label"}


def test_cpp_elements_of_a_container_take_its_class_INV_NAV_1(build: Any) -> None:
    """A variable of deduced type set to an element of a container typed with a class (a pool's
    ``Pop()``, ``orders[0]``, a range-for) takes that class; the element is no use of the class
    itself; a variable the file gives two such classes says nothing."""
    with build({
        "src/thrift.h": """
            template <class TClient> class ThriftClient {
             public:
              TClient *GetClient();
            };
            class Order {
             public:
              void Ship();
            };
            """,
        "src/redis.h": """
            class RedisClient {
             public:
              void *GetClient();
            };
            """,
        "src/handler.h": """
            #include "thrift.h"
            #include "redis.h"
            class Handler {
              ClientPool<ThriftClient<TextClient>> *_text_pool;
              ClientPool<RedisClient> *_redis_pool;
              std::vector<Order> orders_;
              void Compose() {
                auto wrapper = _text_pool->Pop();
                auto client = wrapper->GetClient();
                for (auto& order : orders_) { order.Ship(); }
                auto first = this->orders_[0];
                first.Ship();
              }
              void Either() {
                auto pooled = _text_pool->Pop();
                pooled->GetClient();
              }
              void Mixed() {
                auto pooled = _redis_pool->Pop();
                pooled->GetClient();
              }
              std::map<std::string, Order> by_id_;
              std::map<Order, Parcel> routes_;
              void Maps() {
                auto found = by_id_.at("a");
                found.Ship();
                for (auto& [key, value] : by_id_) { value.Ship(); }
                auto route = routes_[key];
                route.Ship();
              }
            };
            """,
    }) as db:  # fmt: skip
        thrift = sites(db, "ThriftClient.GetClient")
        ship = sites(db, "Order.Ship")
        order = sites(db, "Order")
    assert thrift == {"src/handler.h:10": "typed", "src/handler.h:17": "by name", "src/handler.h:21": "by name"}
    # a map's values take its second argument; the key's class is no value (route is a Parcel)
    assert ship == {"src/handler.h:11": "typed", "src/handler.h:13": "typed", "src/handler.h:27": "typed",
                    "src/handler.h:28": "typed", "src/handler.h:30": "by name"}  # fmt: skip
    assert set(order) == {"src/handler.h:7", "src/handler.h:23", "src/handler.h:24"}  # type arguments only


def test_a_variable_takes_the_class_a_function_of_its_file_returns_INV_NAV_1(build: Any) -> None:
    """``e := setup(t)`` of ``func setup(...) *Injector`` in the same file (Go), ``auto w =
    MakeWorker()`` of ``Worker* MakeWorker()`` (C++): the variable is typed with the returned
    class (the first result of several); a function returning no class, or one the file does
    not define, types nothing."""
    with build({
        "errors/errors.go": """
            package errors

            type Injector struct{}

            func (e *Injector) Do() error { return nil }

            type Other struct{}

            func (o *Other) Do() error { return nil }
            """,
        "errors/errors_test.go": """
            package errors

            func setup() *Injector { return &Injector{} }

            func pair() (Injector, error) { return Injector{}, nil }

            func count() int { return 1 }

            func TestDo() {
                e := setup()
                e.Do()
                p, err := pair()
                p.Do()
                n := count()
                n.Do()
                x := elsewhere()
                x.Do()
            }
            """,
        "src/worker.cpp": """
            class Worker { public: void Run(); };
            class Idle { public: void Run(); };
            Worker* MakeWorker();
            void Main() {
              auto w = MakeWorker();
              w->Run();
              auto v = Unknown();
              v->Run();
            }
            """,
    }) as db:  # fmt: skip
        do = sites(db, "Injector.Do")
        run = sites(db, "Worker.Run")
    assert {key: how for key, how in do.items() if key.startswith("errors/errors_test.go")} == {
        "errors/errors_test.go:12": "typed", "errors/errors_test.go:14": "typed",
        "errors/errors_test.go:16": "by name", "errors/errors_test.go:18": "by name"}  # fmt: skip
    assert run == {"src/worker.cpp:7": "typed", "src/worker.cpp:9": "by name"}
