"""Code navigation facts of Java: signatures, doc lines and references (queries/java/*.scm)."""

from __future__ import annotations

import textwrap
import time

from mesh.index.parse import _navigation, extract


def _facts(source: str):
    return extract("svc/src/main/java/com/acme/Orders.java", textwrap.dedent(source).encode())


def _refs(source: str) -> set[tuple[str, int, str, str]]:
    return {(r.name, r.line, r.kind, r.qualifier) for r in _facts(source).references}


def test_signature_is_the_declaration_up_to_its_body_on_one_line() -> None:
    facts = _facts(
        """
        @Service
        public class OrderService<T extends Order>
                extends BaseService<T> implements Auditable, com.acme.Named {
            public <R> Result<R> place(@Valid Order order,
                                       int... counts)
                    throws IOException, OrderException {
                return null;
            }
            abstract void flush(List<Order> orders);
            public OrderService(OrderRepository repo) { super(repo); }
            record Point(int x, int y) {}
            enum Color { RED, GREEN }
            @interface Marker { String value() default ""; }
        }
        interface Store<K, V> extends Map<K, V> {}
        """
    )
    signatures = [(d.name, d.kind, d.signature) for d in facts.definitions]
    assert signatures == [
        (
            "OrderService",
            "class",
            ("public class OrderService<T extends Order> extends BaseService<T> implements Auditable, com.acme.Named"),
        ),
        (
            "place",
            "method",
            "public <R> Result<R> place(@Valid Order order, int... counts) throws IOException, OrderException",
        ),
        ("flush", "method", "abstract void flush(List<Order> orders)"),
        ("OrderService", "method", "public OrderService(OrderRepository repo)"),
        ("Point", "class", "record Point(int x, int y)"),
        ("Color", "enum", "enum Color"),
        ("RED", "constant", "RED"),
        ("GREEN", "constant", "GREEN"),
        ("Marker", "interface", "@interface Marker"),
        ("Store", "interface", "interface Store<K, V> extends Map<K, V>"),
    ]


def test_doc_line_is_the_first_javadoc_or_comment_line_above_the_annotations() -> None:
    facts = _facts(
        """
        /**
         * Places orders.
         *
         * @author someone
         */
        @Service
        @Transactional(readOnly = true)
        public class OrderService {
            int x = 1; // not a doc
            void plain() {}

            /** Reads one. */
            @Override
            public int read() { return 1; }

            // Line one.
            // Line two.
            void lines() {}

            /* Block. */
            void block() {}

            /**
             * @return nothing documented
             */
            void tagsOnly() {}
        }
        """
    )
    docs = {d.name: d.doc for d in facts.definitions}
    assert docs == {
        "OrderService": "Places orders.",
        "plain": "",
        "read": "Reads one.",
        "lines": "Line one.",
        "block": "Block.",
        "tagsOnly": "",
    }


def test_calls_with_their_qualifier() -> None:
    refs = _refs(
        """
        class A extends B {
            void f() {
                log("x");
                this.audit(o);
                super.close();
                repo.save(o).flush();
                Util.<String>convert(o);
                com.acme.Util.help();
                items.stream().map(Item::valid).map(Order::new).forEach(System.out::println);
            }
        }
        """
    )
    assert refs >= {
        ("log", 4, "call", ""),
        ("audit", 5, "call", "this"),
        ("close", 6, "call", "super"),
        ("save", 7, "call", "repo"),
        ("flush", 7, "call", "~"),
        ("convert", 8, "call", "Util"),
        ("help", 9, "call", "com.acme.Util"),
        ("valid", 10, "use", "Item"),
        ("Order", 10, "call", ""),
        ("println", 10, "use", "System.out"),
    }


def test_instantiations_and_types() -> None:
    refs = _refs(
        """
        @Service
        @javax.inject.Named("x")
        class A<T extends Entity> extends Base<T> implements Auditable, com.acme.Tagged {
            private final Map<String, List<Order>> byId = new HashMap<>();
            Map.Entry<K, V> entry;
            <R> Result<R> place(@Valid Order order) throws IOException {
                Order o = new Order(1);
                Object i = new Outer.Inner();
                Object l = new java.util.ArrayList<Line>();
                PaidOrder p = (PaidOrder) o;
                if (o instanceof Refund r) {}
                Order[] all = new Order[2];
                Class<?> c = Receipt.class;
                try { run(); } catch (IllegalStateException | TimeoutException e) {}
                return null;
            }
        }
        """
    )
    assert refs >= {
        ("Service", 2, "type", ""),
        ("Named", 3, "type", "javax.inject"),
        ("Entity", 4, "type", ""),
        ("Base", 4, "type", ""),
        ("Auditable", 4, "type", ""),
        ("Tagged", 4, "type", "com.acme"),
        ("Map", 5, "type", ""),
        ("List", 5, "type", ""),
        ("HashMap", 5, "new", ""),
        ("Entry", 6, "type", "Map"),
        ("Result", 7, "type", ""),
        ("Valid", 7, "type", ""),
        ("IOException", 7, "type", ""),
        ("Order", 8, "new", ""),
        ("Inner", 9, "new", "Outer"),
        ("ArrayList", 10, "new", "java.util"),
        ("Line", 10, "type", ""),
        ("PaidOrder", 11, "type", ""),
        ("Refund", 12, "type", ""),
        ("Receipt", 14, "type", ""),
        ("IllegalStateException", 15, "type", ""),
        ("TimeoutException", 15, "type", ""),
    }
    names = {(name, line) for name, line, *_ in refs}
    assert ("com", 4) not in names and ("java", 10) not in names and ("util", 10) not in names


def test_values_constants_and_enum_members() -> None:
    refs = _refs(
        """
        class A {
            static final int LIMIT = Config.TIMEOUT;
            void f(Color c) {
                switch (c) { case RED: break; }
                g(Status.NEW, MAX_SIZE, this.owner.Name);
            }
        }
        """
    )
    assert refs >= {
        ("Config", 3, "use", ""),
        ("TIMEOUT", 3, "use", "Config"),
        ("RED", 5, "use", ""),
        ("Status", 6, "use", ""),
        ("NEW", 6, "use", "Status"),
        ("MAX_SIZE", 6, "use", ""),
        ("Name", 6, "use", "this.owner"),
    }


def test_names_a_declaration_introduces_are_not_references() -> None:
    refs = _refs(
        """
        package com.acme.Orders;
        import com.acme.Pricing;
        import static com.acme.Util.MAX;
        class Checkout<T> {
            static final int LIMIT = 3;
            int Count;
            Checkout() {}
            void Place(int Order, int... Rest) {
                for (int Item : items) {}
                Runnable r = (X, y) -> 1;
                Runnable s = Z -> 1;
                try (var In = open()) {} catch (Exception Err) {}
                Outer: while (true) { break Outer; }
                if (o instanceof String Text) {}
            }
            enum Color { RED, GREEN }
            record Point(int X) {}
            @interface Marker { String Value(); }
            @SuppressWarnings(Value = "x") int v;
        }
        """
    )
    names = {name for name, *_ in refs}
    assert names == {"Runnable", "open", "Exception", "String", "SuppressWarnings"}


def test_one_reference_per_name_node_the_strongest_kind() -> None:
    facts = _facts("class A { Object o = new Order(); }\n")
    assert [(r.name, r.line, r.kind, r.qualifier) for r in facts.references] == [
        ("Object", 1, "type", ""),
        ("Order", 1, "new", ""),
    ]


def test_a_tree_too_broken_to_query_answers_its_error_and_no_references() -> None:
    facts = _facts("class A { void f() { " + "(" * 6000 + " } }\n")
    assert facts.error and facts.references == () and facts.definitions == ()
    sound = _facts("class A { void f() { g(); } }\n")
    assert not sound.error and [(r.name, r.kind) for r in sound.references] == [("g", "call")]


def test_a_chain_nested_past_the_bound_gets_no_references_and_stays_fast() -> None:
    def chain(links: int) -> str:
        return "class A { void f() { x" + ".m(Y)" * links + "; } }\n"

    assert len(_facts(chain(100)).references) == 200  # m and Y of each link
    start = time.process_time()
    deep = _facts(chain(20_000))
    assert deep.references == () and not deep.error
    assert time.process_time() - start < 10.0


def test_outline_query_is_data() -> None:
    assert "(import_declaration) @import" in _navigation.query_text("java", "outline")


def test_declarations_and_assignments_say_what_they_give_a_type_to() -> None:
    facts = _facts(
        """
        class A {
            private final OrderService orders;
            List<Order> all = new ArrayList<>();
            A(Pricing pricing, int n) {
                this.repo = new Repo(n);
                var cache = new Cache();
                Store store = make();
            }
        }
        """
    )
    binds = {(r.name, r.kind, r.binds) for r in facts.references if r.binds}
    assert binds == {
        ("OrderService", "type", "orders"),
        ("List", "type", "all"),
        ("ArrayList", "new", "all"),
        ("Pricing", "type", "pricing"),
        ("Repo", "new", "this.repo"),
        ("Cache", "new", "cache"),
        ("Store", "type", "store"),
    }
    assert {(r.name, r.arity) for r in facts.references if r.kind == "new"} == {
        ("ArrayList", 0),
        ("Repo", 1),
        ("Cache", 0),
    }


def test_constants_are_definitions_of_their_class_interface_or_enum() -> None:
    facts = _facts(
        """
        class Pricing {
            /** The tax rate. */
            public static final double TAX_RATE = 0.2;
            static final int MIN = 1, MAX = 50;
            private final int instance = 3;
            static int counter;
            public static Money ZERO = new Money(0);
            final static String NAME = "x";
            interface Limits { int CAP = 9; }
            enum Status {
                PENDING,
                /** Settled. */
                PAID("p") { void f() {} };
                Status() {}
                Status(String code) {}
            }
            void f() { final int local = 1; }
        }
        """
    )
    constants = [(d.name, d.container, d.line, d.signature, d.doc) for d in facts.definitions if d.kind == "constant"]
    assert constants == [
        ("TAX_RATE", "Pricing", 4, "public static final double TAX_RATE = 0.2", "The tax rate."),
        ("MIN", "Pricing", 5, "static final int MIN = 1, MAX = 50", ""),
        ("MAX", "Pricing", 5, "static final int MIN = 1, MAX = 50", ""),
        # static and named as a constant: one in all but the keyword (a static ``counter`` is not)
        ("ZERO", "Pricing", 8, "public static Money ZERO = new Money(0)", ""),
        ("NAME", "Pricing", 9, 'final static String NAME = "x"', ""),
        ("CAP", "Pricing.Limits", 10, "int CAP = 9", ""),
        ("PENDING", "Pricing.Status", 12, "PENDING", ""),
        ("PAID", "Pricing.Status", 14, 'PAID("p")', "Settled."),
    ]
    # in source order among the other definitions, and no scope of their own: f of PAID's body is the enum's
    names = [(d.name, d.kind, d.container) for d in facts.definitions]
    assert names.index(("Status", "enum", "Pricing")) < names.index(("PENDING", "constant", "Pricing.Status"))
    assert ("f", "method", "Pricing.Status") in names


def test_every_typed_declaration_binds_its_variable() -> None:
    facts = _facts(
        """
        class A {
            Map.Entry<K, V> entry;
            com.acme.Repo repo;
            void f(Outer.Nested nested, Order... all) {
                try (Conn conn = open()) {
                } catch (OrderException failure) {
                } catch (IllegalStateException | TimeoutException either) {}
                for (Order order : all) {}
                if (o instanceof Refund refund) {}
                var inner = new Outer.Inner();
                var paid = (PaidOrder) o;
                items.forEach((Line line) -> line.check());
            }
            interface Holder { Store STORE = null; }
            record Point(Coordinate x) {}
        }
        """
    )
    binds = {(r.name, r.kind, r.qualifier, r.binds) for r in facts.references if r.binds}
    assert binds == {
        ("Entry", "type", "Map", "entry"),
        ("Repo", "type", "com.acme", "repo"),
        ("Nested", "type", "Outer", "nested"),
        ("Conn", "type", "", "conn"),
        ("OrderException", "type", "", "failure"),
        ("Order", "type", "", "order"),
        ("Refund", "type", "", "refund"),
        ("Inner", "new", "Outer", "inner"),
        ("PaidOrder", "type", "", "paid"),
        ("Line", "type", "", "line"),
        ("Store", "type", "", "STORE"),
        ("Coordinate", "type", "", "x"),
    }


def test_a_member_imported_from_a_class_is_used_as_that_class_member() -> None:
    facts = _facts(
        """
        import static com.acme.Pricing.shipping;
        import static com.acme.Pricing.MAX_ITEMS;
        import static com.acme.Util.*;
        import static com.acme.Left.both;
        import static com.acme.Right.both;
        import static com.acme.Pricing.audit;
        import com.acme.Pricing.Status;
        import com.acme.orders.Order;
        class A implements Status {
            void f() {
                shipping(1.5);
                int n = MAX_ITEMS;
                Status s = Status.PAID;
                helper();
                both();
                audit();
                Order o = new Order();
                other.shipping(2);
            }
            void audit() {}
        }
        """
    )
    refs = {(r.name, r.line, r.qualifier) for r in facts.references}
    assert refs >= {
        ("Status", 10, "Pricing"),
        ("shipping", 12, "Pricing"),
        ("MAX_ITEMS", 13, "Pricing"),
        ("Status", 14, "Pricing"),
        ("PAID", 14, "Status"),
        ("helper", 15, ""),  # a wildcard says nothing of which class
        ("both", 16, ""),  # two classes give the name
        ("audit", 17, ""),  # the class's own method hides the import
        ("Order", 18, ""),  # a class of a package
        ("shipping", 19, "other"),
    }
