"""Code navigation facts of C++: signatures, doc lines and references (queries/cpp/*.scm)."""

from __future__ import annotations

import textwrap

from mesh.index import Reference
from mesh.index.parse import extract


def _facts(source: str):
    return extract("svc/orders.cc", textwrap.dedent(source).encode())


def _refs(source: str) -> set[tuple[str, int, str, str]]:
    return {(r.name, r.line, r.kind, r.qualifier) for r in _facts(source).references}


def test_signature_is_the_declaration_up_to_its_body_after_its_template_header() -> None:
    facts = _facts(
        """
        namespace acme::orders {
        template <typename T,
                  int N = 4>
        class Store : public Base, private util::Mixin<T> {
         public:
          explicit Store(Config cfg) : Base(cfg) {}
          virtual ~Store() override;
          Order* Find(const std::string& id,
                      int n = 1) const;
        };
        }  // namespace acme::orders

        template <class T>
        std::vector<T> acme::orders::Store<T>::All(
            int limit) const {
          return {};
        }
        static int count(int a, int b);
        """
    )
    signatures = [(d.name, d.kind, d.signature) for d in facts.definitions]
    assert signatures == [
        ("acme.orders", "module", "namespace acme::orders"),
        ("Store", "class", "template <typename T, int N = 4> class Store : public Base, private util::Mixin<T>"),
        ("Store", "method", "explicit Store(Config cfg) : Base(cfg)"),
        ("~Store", "method", "virtual ~Store() override"),
        ("Find", "method", "Order* Find(const std::string& id, int n = 1) const"),
        ("All", "method", "template <class T> std::vector<T> acme::orders::Store<T>::All( int limit) const"),
        ("count", "function", "static int count(int a, int b)"),
    ]


def test_doc_line_of_each_comment_style() -> None:
    facts = _facts(
        """
        // Line comment.
        void line_comment();

        /// Triple slash.
        /// More.
        void triple_slash();

        /** Block doc.
         * More.
         */
        void block_doc();

        /**
         * @brief Brief one.
         * @param x the x.
         */
        void brief(int x);

        //! Qt style.
        void qt_style();

        /// Above the template.
        template <typename T>
        class Box {};

        int x = 1;  // not a doc
        void trailing();

        void none();
        """
    )
    assert {d.name: d.doc for d in facts.definitions} == {
        "line_comment": "Line comment.",
        "triple_slash": "Triple slash.",
        "block_doc": "Block doc.",
        "brief": "Brief one.",
        "qt_style": "Qt style.",
        "Box": "Above the template.",
        "trailing": "",
        "none": "",
    }


def test_calls_with_their_qualifiers() -> None:
    refs = _refs(
        """
        void Run(Store* store, Store& ref) {
          Validate(1);
          util::Lookup(1);
          acme::util::Find(2);
          ::Global();
          store->Ship();
          ref.Pack<int>();
          this->Save();
          Store::Helper();
          auto p = std::make_unique<Order>(1, 2);
          auto n = static_cast<int>(p);
        }
        """
    )
    assert refs >= {
        ("Validate", 3, "call", ""),
        ("Lookup", 4, "call", "util"),
        ("Find", 5, "call", "util"),
        ("Global", 6, "call", ""),
        ("Ship", 7, "call", "store"),
        ("Pack", 8, "call", "ref"),
        ("Save", 9, "call", "this"),
        ("Helper", 10, "call", "Store"),
        ("make_unique", 11, "call", "std"),
        ("Order", 11, "new", ""),
    }
    assert not any(name == "static_cast" for name, *_ in refs)


def test_instantiations_and_the_types_of_declarations() -> None:
    refs = _refs(
        """
        void Run() {
          Order* a = new Order(1);
          auto b = new acme::Order{};
          auto c = Order{1, 2};
          Order d(1, 2);
          Order e{3};
          return Point();
        }
        """
    )
    assert refs >= {
        ("Order", 3, "type", ""),
        ("Order", 3, "new", ""),
        ("Order", 4, "new", "acme"),
        ("Order", 5, "new", ""),
        ("Order", 6, "type", ""),
        ("Order", 7, "type", ""),
        ("Point", 8, "call", ""),
    }


def test_types_wherever_one_is_written() -> None:
    refs = _refs(
        """
        class Store : public Base, protected acme::Mixin<Item> {
          std::vector<Order> orders_;
          Clock* clock_;
          Receipt Get(const Request& request, std::map<Key, Value> m);
        };
        void f() {
          try { } catch (const OrderError& e) { }
          auto x = dynamic_cast<Special*>(p);
          for (const Line& line : lines) { }
          using Alias = Point;
        }
        """
    )
    assert refs >= {
        ("Base", 2, "type", ""),
        ("Mixin", 2, "type", "acme"),
        ("Item", 2, "type", ""),
        ("vector", 3, "type", "std"),
        ("Order", 3, "type", ""),
        ("Clock", 4, "type", ""),
        ("Receipt", 5, "type", ""),
        ("Request", 5, "type", ""),
        ("map", 5, "type", "std"),
        ("Key", 5, "type", ""),
        ("Value", 5, "type", ""),
        ("OrderError", 8, "type", ""),
        ("Special", 9, "type", ""),
        ("Line", 10, "type", ""),
        ("Point", 11, "type", ""),
    }


def test_values_read_constants_enumerators_scopes_and_members() -> None:
    refs = _refs(
        """
        enum class Color { Red, Green = Red };
        int Run(Order* order, int n = DEFAULT_N) {
          int buf[MAX_SIZE];
          Process(Color::Red, Config::TIMEOUT, kMaxSize, order->Status);
          return acme::limits::MAX;
        }
        """
    )
    assert refs >= {
        ("Red", 2, "use", ""),
        ("DEFAULT_N", 3, "use", ""),
        ("MAX_SIZE", 4, "use", ""),
        ("Color", 5, "use", ""),
        ("Red", 5, "use", "Color"),
        ("Config", 5, "use", ""),
        ("TIMEOUT", 5, "use", "Config"),
        ("kMaxSize", 5, "use", ""),
        ("Status", 5, "use", "order"),
        ("MAX", 6, "use", "limits"),
    }


def test_what_a_type_is_given_to() -> None:
    facts = _facts(
        """
        class Svc {
          std::unique_ptr<Store> store_;
          Clock* clock_;
          void Run(const Repo& repo, std::shared_ptr<Cache> cache) {
            Order local(1);
            auto made = new Invoice(1, 2);
            auto owned = std::make_unique<Cart>();
            clock_ = new Clock();
            for (Line& line : lines) { }
          }
        };
        """
    )
    binds = {(r.name, r.kind, r.binds) for r in facts.references if r.binds}
    assert binds >= {
        ("Store", "type", "store_"),
        ("Clock", "type", "clock_"),
        ("Repo", "type", "repo"),
        ("Cache", "type", "cache"),
        ("Order", "type", "local"),
        ("Invoice", "new", "made"),
        ("Cart", "new", "owned"),
        ("Clock", "new", "clock_"),
        ("Line", "type", "line"),
    }
    assert {r.name: r.arity for r in facts.references if r.kind == "new"} == {"Invoice": 2, "Cart": 0, "Clock": 0}


def test_names_a_declaration_introduces_are_not_references() -> None:
    refs = _refs(
        """
        #include "Orders.h"
        #define MAX_SIZE 10
        #ifndef ORDERS_H_
        using acme::Order;
        using namespace Acme;
        namespace Shop::Api {
        struct Point { int X; };
        enum Color { Red, Green };
        typedef int Count;
        template <typename Item> class Box;
        void Store::Find(int Limit) {
          int Local = 1;
          Retry:
          goto Retry;
          // Helper::Call(Thing);
          const char* s = "Config::VALUE";
        }
        int Store::Total = 0;
        }
        #endif
        """
    )
    assert refs == {("Store", 12, "use", ""), ("Store", 19, "use", "")}


def test_one_reference_per_name_node_the_strongest_kind() -> None:
    facts = _facts("void f() { auto x = new Order(); }\n")
    assert facts.references == (Reference("Order", 1, "new", "", "x", 0),)


def test_a_tree_too_broken_to_query_still_answers() -> None:
    sound = b"void f() { Run(); }\n"
    assert extract("svc/broken.cc", sound).references == (Reference("Run", 1, "call", "", "", 0),)
    facts = extract("svc/broken.cc", sound + b"{" * 20_000)
    assert facts.references == () and facts.error.startswith("syntax error")
    assert [d.name for d in facts.definitions] == ["f"]


def _defs(source: str) -> list[tuple[str, str, str, int, str]]:
    return [(d.name, d.kind, d.container, d.line, d.signature) for d in _facts(source).definitions]


def test_enumerators_constants_type_aliases_and_macros_are_definitions() -> None:
    found = _defs(
        """
        #define MAX_SIZE 10
        #define ORDERS_H
        #define SQUARE(x) ((x) * (x))
        namespace shop {
        constexpr double TAX_RATE = 0.2, FLOOR = 1;
        int counter = 0;
        using Bill = shop::Invoice;
        typedef std::map<int, Order> OrderMap;
        enum class Status { Pending, Paid = 2 };
        struct Config {
            static constexpr int MAX_ITEMS = 50;
            static const int kOther;
            const int id = 1;
            int count;
        };
        }
        void f() { const int local = 3; }
        """
    )
    assert found == [
        ("MAX_SIZE", "constant", "", 2, "#define MAX_SIZE 10"),
        ("SQUARE", "function", "", 4, "#define SQUARE(x)"),
        ("shop", "module", "", 5, "namespace shop"),
        ("TAX_RATE", "constant", "shop", 6, "constexpr double TAX_RATE = 0.2"),
        ("FLOOR", "constant", "shop", 6, "constexpr double FLOOR = 1"),
        ("Bill", "type", "shop", 8, "using Bill = shop::Invoice"),
        ("OrderMap", "type", "shop", 9, "typedef std::map<int, Order> OrderMap"),
        ("Status", "enum", "shop", 10, "enum class Status"),
        ("Pending", "constant", "shop.Status", 10, "Pending"),
        ("Paid", "constant", "shop.Status", 10, "Paid = 2"),
        ("Config", "struct", "shop", 11, "struct Config"),
        ("MAX_ITEMS", "constant", "shop.Config", 12, "static constexpr int MAX_ITEMS = 50"),
        ("kOther", "constant", "shop.Config", 13, "static const int kOther"),
        ("f", "function", "", 18, "void f()"),
    ]


def test_more_declarations_that_give_a_type() -> None:
    refs = _facts(
        """
        void f(const a::b::Store& s1) {
            a::b::Store s2;
            auto s3 = Store(cfg);
            auto s4 = acme::Store{cfg};
            store_ = std::make_unique<Store>();
            Store s5(cfg, kDefault);
            auto n = compute(3);
        }
        """
    ).references
    assert {(r.name, r.line, r.qualifier, r.binds) for r in refs if r.binds} == {
        ("Store", 2, "b", "s1"),
        ("Store", 3, "b", "s2"),
        ("Store", 4, "", "s3"),
        ("Store", 5, "acme", "s4"),
        ("Store", 6, "", "store_"),
        ("Store", 7, "", "s5"),
    }
    # T x(y) in a body constructs x from y: y is no type (a value when spelled as a constant)
    assert {(r.name, r.kind) for r in refs if r.line == 7} == {("Store", "type"), ("kDefault", "use")}
    assert ("compute", "call") in {(r.name, r.kind) for r in refs}


def test_names_are_read_through_the_files_aliases_and_using_declarations() -> None:
    refs = {
        (r.name, r.line, r.kind, r.qualifier, r.binds)
        for r in _facts(
            """
            namespace pr = shop::pricing;
            using shop::Cart;
            using shop::pricing::shipping;
            using Bill = shop::Invoice;
            double receipt(const Bill& invoice, double shipping) {
                return shipping(invoice.total());
            }
            int main() {
                Cart cart;
                Bill copy = make();
                return pr::shipping(2.0, true) + pr::detail::round(1) + shipping(1.5);
            }
            """
        ).references
    }
    assert {r for r in refs if r[1] >= 6} == {
        ("Bill", 6, "type", "", "invoice"),
        ("Invoice", 6, "type", "shop", "invoice"),  # a use of the alias is one of the type it names
        ("shipping", 7, "call", "", ""),  # the parameter shadows what the using declaration brought in
        ("total", 7, "call", "invoice", ""),
        ("Cart", 10, "type", "shop", "cart"),
        ("Bill", 11, "type", "", "copy"),
        ("Invoice", 11, "type", "shop", "copy"),
        ("make", 11, "call", "", ""),
        ("shipping", 12, "call", "shop.pricing", ""),
        ("round", 12, "call", "detail", ""),  # the qualifier is the scope right before the name
        ("shipping", 12, "call", "shop.pricing", ""),
    }


def test_an_alias_with_two_meanings_and_a_name_the_file_defines_are_left_alone() -> None:
    refs = {
        (r.name, r.line, r.qualifier)
        for r in _facts(
            """
            using shop::size;
            using shop::Cart;
            namespace a { using Id = x::Key; }
            namespace b { using Id = y::Key; }
            int size() { return 0; }
            int main() { Id id; Cart cart; return size(); }
            """
        ).references
    }
    assert {r for r in refs if r[1] == 7} == {("Id", 7, ""), ("Cart", 7, "shop"), ("size", 7, "")}
