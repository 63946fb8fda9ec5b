"""Code navigation facts of Kotlin: signatures, doc lines and references (queries/kotlin/*.scm)."""

from __future__ import annotations

import textwrap
import time

from mesh.index.parse import _navigation, _ts, extract


def _facts(source: str):
    return extract("svc/src/main/kotlin/com/acme/Orders.kt", textwrap.dedent(source).encode())


def _refs(source: str) -> set[tuple[str, int, str, str]]:
    return {(r.name, r.line, r.kind, r.qualifier) for r in _facts(source).references}


def test_signature_is_the_declaration_up_to_its_body_on_one_line() -> None:
    facts = _facts(
        """
        package com.acme.orders

        @Service
        class OrderService(
            private val repo: OrderRepository,
            val limit: Int = MAX,
        ) : BaseService(), Auditable<Order> {
            companion object {
                const val MAX = 10
            }
            override suspend fun <T : Order> place(order: T,
                                                   vararg items: Item): Result<T>? {
                return null
            }
            fun total(): Long = 0
        }
        fun String.slug(): String = lowercase()
        typealias Handler = (Order) -> Unit
        enum class Color { RED, GREEN }
        object Registry : Map<String, Int> by emptyMap()
        interface Store<K, V> { fun get(key: K): V? }
        """
    )
    assert [(d.name, d.kind, d.signature) for d in facts.definitions] == [
        (
            "OrderService",
            "class",
            (
                "class OrderService( private val repo: OrderRepository, val limit: Int = MAX, ) "
                ": BaseService(), Auditable<Order>"
            ),
        ),
        ("Companion", "class", "companion object"),
        ("MAX", "constant", "const val MAX = 10"),
        ("place", "method", "override suspend fun <T : Order> place(order: T, vararg items: Item): Result<T>?"),
        ("total", "method", "fun total(): Long"),
        ("slug", "function", "fun String.slug(): String"),
        ("Handler", "type", "typealias Handler = (Order) -> Unit"),
        ("Color", "enum", "enum class Color"),
        ("RED", "constant", "RED"),
        ("GREEN", "constant", "GREEN"),
        ("Registry", "class", "object Registry : Map<String, Int> by emptyMap()"),
        ("Store", "interface", "interface Store<K, V>"),
        ("get", "method", "fun get(key: K): V?"),
    ]


def test_doc_line_is_the_first_kdoc_or_comment_line_above_the_annotations() -> None:
    facts = _facts(
        """
        package com.acme.orders

        /**
         * Serves orders.
         *
         * @property repo the store
         */
        @RestController
        @RequestMapping("/orders")
        class OrderController(private val repo: Repo) {
            val x = 1 // not a doc
            fun plain() {}

            /** Lists them. */
            @GetMapping
            fun list(): List<Order> = repo.all()

            // Line one.
            // Line two.
            suspend fun lines() {}

            /* Block. */
            fun block() {}
        }
        """
    )
    docs = {d.name: d.doc for d in facts.definitions}
    assert docs == {
        "OrderController": "Serves orders.",
        "plain": "",
        "list": "Lists them.",
        "lines": "Line one.",
        "block": "Block.",
    }


def test_a_top_level_declaration_whose_annotations_the_grammar_glues_keeps_its_doc_and_annotation_types() -> None:
    # The grammar reads these annotation lines as an expression swallowing the class; the extractor
    # parses again with the @ blanked, and navigation reads them back as annotations.
    source = """
        /**
         * KDoc of the class.
         */
        @Service
        @Transactional("x")
        class A {
            fun a() {}
        }
        fun top() = 1
        """
    assert "annotated_expression" in {
        child.type for child in _ts.parse("kotlin", textwrap.dedent(source).encode()).root_node.children
    }
    facts = _facts(source)
    assert {d.name: d.doc for d in facts.definitions}["A"] == "KDoc of the class."
    assert {(r.name, r.line, r.kind) for r in facts.references} >= {
        ("Service", 5, "type"),
        ("Transactional", 6, "type"),
    }


def test_calls_constructor_calls_and_callable_references() -> None:
    refs = _refs(
        """
        class A : B() {
            fun f() {
                log("x")
                val o = Order(id = 1)
                val i = Outer.Inner()
                val xs = listOf<Item>()
                this.audit(o)
                super.close()
                repo?.save(o)?.flush()
                a to b
                items.map(::convert).filter(Item::valid).map(::Receipt)
                Pricing.total(o)
            }
        }
        """
    )
    assert refs >= {
        ("log", 4, "call", ""),
        ("Order", 5, "call", ""),
        ("Inner", 6, "call", "Outer"),
        ("listOf", 7, "call", ""),
        ("Item", 7, "type", ""),
        ("audit", 8, "call", "this"),
        ("close", 9, "call", "super"),
        ("save", 10, "call", "repo"),
        ("flush", 10, "call", "~"),
        ("to", 11, "call", "a"),
        ("convert", 12, "use", ""),
        ("valid", 12, "use", "Item"),
        ("Receipt", 12, "call", ""),
        ("total", 13, "call", "Pricing"),
    }


def test_types_supertypes_extensions_is_as_and_annotations() -> None:
    refs = _refs(
        """
        @Entity
        @Table(name = "orders")
        class A<T : Entity>(val repo: Repo<T>) : Base(), Auditable, com.acme.Tagged {
            @field:JsonProperty("x")
            val entry: Map.Entry<K, V>? = null
            fun Order.total(): Money {
                if (this is PaidOrder) return paid as Money
                try { run() } catch (e: IOException) { }
                return Money.ZERO as? Money ?: Money()
            }
        }
        """
    )
    assert refs >= {
        ("Entity", 2, "type", ""),
        ("Table", 3, "type", ""),
        ("Entity", 4, "type", ""),
        ("Repo", 4, "type", ""),
        ("Base", 4, "type", ""),
        ("Auditable", 4, "type", ""),
        ("Tagged", 4, "type", "acme"),
        ("JsonProperty", 5, "type", ""),
        ("Map", 6, "type", ""),
        ("Entry", 6, "type", "Map"),
        ("Order", 7, "type", ""),
        ("Money", 7, "type", ""),
        ("PaidOrder", 8, "type", ""),
        ("IOException", 9, "type", ""),
        ("ZERO", 10, "use", "Money"),
        ("Money", 10, "call", ""),
    }
    assert not {name for name, *_ in refs} & {"com", "acme", "name"}


def test_values_objects_enum_entries_and_companions() -> None:
    refs = _refs(
        """
        fun f(c: Color) {
            when (c) { Color.RED -> g(MAX_SIZE) else -> {} }
            val t = Config.TIMEOUT
            val m = OrderService.Companion.MAX
            val s = "${Settings.HOST} $NotCode"
        }
        """
    )
    assert refs >= {
        ("Color", 3, "use", ""),
        ("RED", 3, "use", "Color"),
        ("MAX_SIZE", 3, "use", ""),
        ("TIMEOUT", 4, "use", "Config"),
        ("Companion", 5, "use", "OrderService"),
        ("MAX", 5, "use", "OrderService.Companion"),
        ("HOST", 6, "use", "Settings"),
    }
    assert "NotCode" not in {name for name, *_ in refs}


def test_names_a_declaration_introduces_are_not_references() -> None:
    refs = _refs(
        """
        package com.acme.Orders
        import com.acme.Pricing as Prices
        class Checkout<T> {
            companion object Factory {}
            val Limit = 3
            fun Place(Order: Int, vararg Rest: Int) {
                for (Item in items) {}
                val (A, B) = pair
                xs.forEach { X -> return@forEach }
                Outer@ for (i in xs) { break@Outer }
                try {} catch (Err: Exception) {}
                this@Checkout.run()
            }
            enum class Color { RED, GREEN }
        }
        object Registry
        typealias Handler = () -> Unit
        """
    )
    names = {name for name, *_ in refs}
    assert names == {"Int", "forEach", "Exception", "run", "Unit"}


def test_one_reference_per_name_node_the_strongest_kind() -> None:
    facts = _facts("val o: Any = Order()\n")
    assert [(r.name, r.line, r.kind, r.qualifier) for r in facts.references] == [
        ("Any", 1, "type", ""),
        ("Order", 1, "call", ""),
    ]


def test_a_tree_too_broken_to_query_answers_its_error_and_no_references() -> None:
    facts = _facts("fun f() { " + "(" * 6000 + " }\n")
    assert facts.error and facts.references == ()
    sound = _facts("fun f() { g() }\n")
    assert not sound.error and [(r.name, r.kind) for r in sound.references] == [("g", "call")]


def test_a_chain_nested_past_the_bound_gets_no_references_and_stays_fast() -> None:
    def chain(links: int) -> str:
        return "fun f() { x" + ".m(Y)" * links + " }\n"

    assert len(_facts(chain(100)).references) == 200  # m and Y of each link
    start = time.process_time()
    deep = _facts(chain(20_000))
    assert deep.references == () and not deep.error
    assert time.process_time() - start < 10.0


def test_outline_query_is_data() -> None:
    assert "(import) @import" in _navigation.query_text("kotlin", "outline")


def test_declarations_and_assignments_say_what_they_give_a_type_to() -> None:
    facts = _facts(
        """
        class A(private val repo: Repo?, n: Int) {
            val orders: OrderService = make()
            val cache = Cache(1, 2)
            fun f(pricing: Pricing) {
                this.store = Store()
                val lower = make()
            }
        }
        """
    )
    binds = {(r.name, r.kind, r.binds) for r in facts.references if r.binds}
    assert binds == {
        ("Repo", "type", "repo"),
        ("Int", "type", "n"),
        ("OrderService", "type", "orders"),
        ("Cache", "call", "cache"),
        ("Pricing", "type", "pricing"),
        ("Store", "call", "this.store"),
    }
    assert {(r.name, r.arity) for r in facts.references if r.kind == "call"} == {
        ("make", 0),
        ("Cache", 2),
        ("Store", 0),
    }


def test_constants_are_definitions_of_their_file_object_or_enum() -> None:
    facts = _facts(
        """
        /** The tax rate. */
        const val TAX_RATE = 0.2
        val DEFAULT_REGION = "eu"
        val lowerCase = 1
        var MUTABLE = 2
        object Limits {
            const val CAP = 9
            val MAX_ITEMS: Int = 50
            val COMPUTED: Int get() = 3
        }
        class Cart {
            val NOT_A_CONSTANT = 1
            companion object {
                const val KIND = "cart"
            }
            fun f() {
                val LOCAL = 1
            }
        }
        enum class Status(val code: String) {
            PENDING("p"),
            /** Settled. */
            PAID("d");
        }
        """
    )
    constants = [(d.name, d.container, d.line, d.signature, d.doc) for d in facts.definitions if d.kind == "constant"]
    assert constants == [
        ("TAX_RATE", "", 3, "const val TAX_RATE = 0.2", "The tax rate."),
        ("DEFAULT_REGION", "", 4, 'val DEFAULT_REGION = "eu"', ""),
        ("CAP", "Limits", 8, "const val CAP = 9", ""),
        ("MAX_ITEMS", "Limits", 9, "val MAX_ITEMS: Int = 50", ""),
        ("KIND", "Cart.Companion", 15, 'const val KIND = "cart"', ""),
        ("PENDING", "Status", 22, 'PENDING("p")', ""),
        ("PAID", "Status", 24, 'PAID("d")', "Settled."),
    ]


def test_every_typed_declaration_binds_its_variable() -> None:
    facts = _facts(
        """
        class A(private val repo: Repo?, val entry: Map.Entry<K, V>) {
            lateinit var store: com.acme.Store
            fun f(nested: Outer.Nested?, items: List<Line>) {
                try { g() } catch (failure: IOException) { h() }
                for (order: Order in orders) {}
                items.forEach { line: Line -> line.check() }
                val inner = Outer.Inner(1)
                val made = Outer.make()
                box = Box<Item>()
            }
        }
        """
    )
    binds = {(r.name, r.kind, r.qualifier, r.binds) for r in facts.references if r.binds}
    assert binds == {
        ("Repo", "type", "", "repo"),
        ("Entry", "type", "Map", "entry"),
        ("Store", "type", "acme", "store"),
        ("Nested", "type", "Outer", "nested"),
        ("List", "type", "", "items"),
        ("IOException", "type", "", "failure"),
        ("Order", "type", "", "order"),
        ("Line", "type", "", "line"),
        ("Inner", "call", "Outer", "inner"),
        ("Box", "call", "", "box"),
    }


def test_an_import_alias_is_read_as_what_it_stands_for() -> None:
    refs = _refs(
        """
        import com.acme.pricing.Status as InvoiceStatus
        import com.acme.pricing.shipping as shippingFee
        import com.acme.orders.Outer.Inner as Nested
        fun f(s: InvoiceStatus) {
            val paid = InvoiceStatus.PAID
            shippingFee(1.0)
            Nested()
        }
        """
    )
    assert refs >= {
        ("Status", 5, "type", ""),
        ("Status", 6, "use", ""),
        ("PAID", 6, "use", "Status"),
        ("shipping", 7, "call", ""),
        ("Inner", 8, "call", "Outer"),
    }
    assert not {name for name, *_ in refs} & {"InvoiceStatus", "shippingFee", "Nested"}


def test_a_member_imported_from_an_object_or_class_is_used_as_its_member() -> None:
    refs = _refs(
        """
        import com.acme.Registry.create
        import com.acme.Outer.Inner
        import com.acme.Util.*
        import com.acme.pricing.shipping
        fun f() {
            create(1)
            val i: Inner = Inner()
            helper()
            shipping(2.0)
        }
        """
    )
    assert refs >= {
        ("create", 7, "call", "Registry"),
        ("Inner", 8, "type", "Outer"),
        ("Inner", 8, "call", "Outer"),
        ("helper", 9, "call", ""),
        ("shipping", 10, "call", ""),
    }
