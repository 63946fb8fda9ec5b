"""Code navigation facts of C#: signatures, doc lines and references (queries/csharp/*.scm)."""

from __future__ import annotations

import textwrap

from mesh.index import Reference
from mesh.index.parse import extract


def _facts(source: str):
    return extract("svc/Orders.cs", textwrap.dedent(source).encode())


def _refs(source: str) -> set[tuple[str, int, str, str]]:
    return {(r.name, r.line, r.kind, r.qualifier) for r in _facts(source).references}


def _signatures(source: str) -> dict[str, str]:
    return {d.name: d.signature for d in _facts(source).definitions}


def _docs(source: str) -> dict[str, str]:
    return {d.name: d.doc for d in _facts(source).definitions}


def test_signature_is_the_declaration_after_its_attributes_up_to_its_body() -> None:
    signatures = _signatures(
        """
        namespace Acme.Orders
        {
            [ApiController]
            [Route("api/[controller]")]
            public sealed class OrdersController(IOrderService orders) : ControllerBase, IDisposable
                where T : class
            {
                [HttpGet("{id}")]
                public async Task<ActionResult<Order>> Get(
                    int id,
                    [FromServices] IClock clock,
                    CancellationToken ct = default)
                {
                    return Ok();
                }

                public int Count() => 3;
            }

            public record Person(string Name, Address Home) : Entity;

            public interface IStore<T> where T : IEntity<T>
            {
                Task<T?> FindAsync(int id);
            }

            public static class Extensions
            {
                public static string Shout(this string text) { return text; }
            }
        }
        """
    )
    assert signatures == {
        "Acme.Orders": "namespace Acme.Orders",
        "OrdersController": "public sealed class OrdersController(IOrderService orders) : ControllerBase, IDisposable"
        " where T : class",
        "Get": "public async Task<ActionResult<Order>> Get( int id, [FromServices] IClock clock,"
        " CancellationToken ct = default)",
        "Count": "public int Count()",
        "Person": "public record Person(string Name, Address Home) : Entity",
        "IStore": "public interface IStore<T> where T : IEntity<T>",
        "FindAsync": "Task<T?> FindAsync(int id)",
        "Extensions": "public static class Extensions",
        "Shout": "public static string Shout(this string text)",
    }


def test_long_signatures_are_bounded() -> None:
    params = ", ".join(f"int p{i}" for i in range(100))
    (_, method) = _facts(f"class A {{ [Obsolete] void F({params}) {{ }} }}").definitions
    assert (
        len(method.signature) == 240 and method.signature.startswith("void F(int p0") and method.signature.endswith("…")
    )


def test_doc_line_is_the_xml_summary_else_the_comment_above() -> None:
    docs = _docs(
        """
        /// <summary>
        /// Places orders
        /// with <see cref="T:Acme.Orders.Order"/> &amp; <paramref name="id"/>.
        /// </summary>
        /// <param name="id">The id.</param>
        public class Orders
        {
            /// <summary>Reads one.</summary>
            [HttpGet]
            [Authorize]
            public void Get() { }

            /// <param name="x">No summary: the parameters are no doc.</param>
            /// <remarks>Remarks then.</remarks>
            public void Remarks(int x) { }

            /// <inheritdoc/>
            public void Inherited() { }

            // A plain comment.
            // Twice.
            public void Plain() { }

            /* A block. */
            public void Block() { }

            int x = 1; // not a doc
            public void Trailing() { }

            public void None() { }
        }
        """
    )
    assert docs == {
        "Orders": "Places orders",
        "Get": "Reads one.",
        "Remarks": "Remarks then.",
        "Inherited": "",
        "Plain": "A plain comment.",
        "Block": "A block.",
        "Trailing": "",
        "None": "",
    }


def test_xml_summary_on_one_line_below_a_plain_comment() -> None:
    facts = _facts(
        """
        class A
        {
            // The constructor must take a host:
            //
            /// <summary>Makes an A with <c>host</c>, see <see cref="Host"/>.</summary>
            public A(Host host) { }
        }
        """
    )
    assert [d.doc for d in facts.definitions] == ["", "Makes an A with host, see Host."]


def test_calls_with_their_qualifiers() -> None:
    refs = _refs(
        """
        class Checkout : Base
        {
            async Task Place(Order order)
            {
                Validate(order);
                Helper.Compute<Order>(order, name: "x");
                this.Save(order);
                base.Dispose();
                order?.Ship();
                await service.GetAsync(1);
                Make<Order>();
                var n = nameof(Order);
                Acme.Util.Go();
            }
        }
        """
    )
    assert refs >= {
        ("Validate", 6, "call", ""),
        ("Compute", 7, "call", "Helper"),
        ("Save", 8, "call", "this"),
        ("Dispose", 9, "call", "base"),
        ("Ship", 10, "call", "order"),
        ("GetAsync", 11, "call", "service"),
        ("Make", 12, "call", ""),
        ("Go", 14, "call", "Acme.Util"),
    }
    assert not any(name == "nameof" for name, *_ in refs)
    assert ("Order", 13, "use", "") in refs


def test_instantiations_including_target_typed_new() -> None:
    refs = _refs(
        """
        class A
        {
            Dictionary<string, Order> cache = new();
            Order? Current { get; } = new();
            void M()
            {
                var a = new Order(1);
                var b = new List<Order> { };
                var c = new Acme.Orders.Order();
                Order d = new(2);
            }
        }
        """
    )
    assert refs >= {
        ("Dictionary", 4, "new", ""),
        ("Order", 5, "new", ""),
        ("Order", 8, "new", ""),
        ("List", 9, "new", ""),
        ("Order", 10, "new", "Acme.Orders"),
        ("Order", 11, "new", ""),
    }


def test_types_wherever_the_grammar_expects_one() -> None:
    refs = _refs(
        """
        [Serializable]
        class Store<T> : Base<T>, IStore where T : IEntity
        {
            private Acme.Clock clock;
            [Obsolete("x")]
            public Task<Order?> Find(Order[] all, IReadOnlyList<Item> items)
            {
                var x = (Order)obj;
                var y = obj as Invoice;
                if (obj is Receipt) { }
                if (obj is Refund r) { }
                var t = typeof(Shipment);
                var d = default(Parcel);
                try { } catch (OrderException e) { }
                foreach (Line line in lines) { }
                return null;
            }
            void IDisposable.Dispose() { }
        }
        """
    )
    assert refs >= {
        ("Serializable", 2, "type", ""),
        ("Base", 3, "type", ""),
        ("IStore", 3, "type", ""),
        ("IEntity", 3, "type", ""),
        ("Clock", 5, "type", "Acme"),
        ("Obsolete", 6, "type", ""),
        ("Task", 7, "type", ""),
        ("Order", 7, "type", ""),
        ("Item", 7, "type", ""),
        ("IReadOnlyList", 7, "type", ""),
        ("Order", 9, "type", ""),
        ("Invoice", 10, "type", ""),
        ("Receipt", 11, "type", ""),
        ("Refund", 12, "type", ""),
        ("Shipment", 13, "type", ""),
        ("Parcel", 14, "type", ""),
        ("OrderException", 15, "type", ""),
        ("Line", 16, "type", ""),
        ("IDisposable", 19, "type", ""),
    }


def test_values_read_constants_enum_members_and_properties() -> None:
    refs = _refs(
        """
        class A
        {
            const int MaxSize = 3;
            void M(Order order)
            {
                Process(Color.Red, Config.Timeout, MaxSize, order.Status, order?.Total);
            }
        }
        enum Color { Red, Green = Red }
        """
    )
    assert refs >= {
        ("Color", 7, "use", ""),
        ("Red", 7, "use", "Color"),
        ("Config", 7, "use", ""),
        ("Timeout", 7, "use", "Config"),
        ("MaxSize", 7, "use", ""),
        ("Status", 7, "use", "order"),
        ("Total", 7, "use", "order"),
        ("Red", 10, "use", ""),
    }


def test_what_a_type_is_given_to() -> None:
    facts = _facts(
        """
        class A(IOrderService orders)
        {
            private readonly Store _store;
            Clock Clock { get; set; }
            void M(Repo repo)
            {
                var created = new Order();
                Order target = new();
                _other = new Cart();
                if (x is Refund refund) { }
            }
        }
        """
    )
    binds = {(r.name, r.kind, r.binds) for r in facts.references if r.binds}
    assert binds == {
        ("IOrderService", "type", "orders"),
        ("Store", "type", "_store"),
        ("Clock", "type", "Clock"),
        ("Repo", "type", "repo"),
        ("Order", "new", "created"),
        ("Order", "new", "target"),
        ("Cart", "new", "_other"),
        ("Refund", "type", "refund"),
    }
    arity = {r.name: r.arity for r in facts.references if r.kind == "new"}
    assert arity == {"Order": 0, "Cart": 0}


def test_names_a_declaration_introduces_are_not_references() -> None:
    refs = _refs(
        """
        using System.Text;
        using Alias = Acme.Orders.Order;
        using static Acme.Orders.Helpers;
        namespace Acme.Orders.Api;
        public class Checkout
        {
            public const int Limit = 3;
            public int Count { get; set; }
            public Checkout(int Start) { }
            public void Place(int Quantity)
            {
                var Local = 1;
                var view = new { Name = 1 };
                var order = new Order { Status = 2 };
                Run(Mode: 1);
                Done:
                    return;
                // Helper.Call(Thing);
                var s = "Config.Value";
            }
            public int Local2() => 1;
        }
        public enum State { Open, Closed }
        """
    )
    assert refs == {("Order", 15, "new", ""), ("Run", 16, "call", "")}


def test_one_reference_per_name_node_the_strongest_kind() -> None:
    facts = _facts("class A { void M() { var x = new Order(); } }")
    assert facts.references == (Reference("Order", 1, "new", "", "x", 0),)


def test_a_tree_too_broken_to_query_still_answers() -> None:
    sound = b"class A { void M() { Run(); } }\n"
    assert extract("svc/Broken.cs", sound).references == (Reference("Run", 1, "call", "", "", 0),)
    facts = extract("svc/Broken.cs", sound + b"{" * 20_000)
    assert facts.references == () and facts.error.startswith("syntax error")
    assert [d.name for d in facts.definitions] == ["A", "M"]


def _defs(source: str) -> list[tuple[str, str, str, int, str]]:
    return [(d.name, d.kind, d.container, d.line, d.signature) for d in _facts(source).definitions]


def test_enum_members_constants_properties_and_delegates_are_definitions() -> None:
    found = _defs(
        """
        namespace Acme;
        public enum Status
        {
            Pending = 1,
            [Obsolete] Paid,
        }
        public delegate void Handler(int code);
        public class Rules
        {
            public const int MaxItems = 50, MinItems = 1;
            private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(5);
            private readonly Store _store;
            private static int _count;
            public int Count => _count;
            public Status State { get; private set; } = Status.Pending;
            public string Name { get { return "x"; } }
            void F() { const int local = 3; }
        }
        """
    )
    assert found == [
        ("Status", "enum", "", 3, "public enum Status"),
        ("Pending", "constant", "Status", 5, "Pending = 1"),
        ("Paid", "constant", "Status", 6, "Paid"),
        ("Handler", "type", "", 8, "public delegate void Handler(int code)"),
        ("Rules", "class", "", 9, "public class Rules"),
        ("MaxItems", "constant", "Rules", 11, "public const int MaxItems = 50"),
        ("MinItems", "constant", "Rules", 11, "public const int MinItems = 1"),
        ("Timeout", "constant", "Rules", 12, "private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(5)"),
        ("Count", "method", "Rules", 15, "public int Count"),
        ("State", "method", "Rules", 16, "public Status State { get; private set; }"),
        ("Name", "method", "Rules", 17, "public string Name"),
        ("F", "method", "Rules", 18, "void F()"),
    ]


def test_a_constant_keeps_the_doc_comment_of_its_field() -> None:
    (constant,) = [d for d in _facts(
        """
        class Rules
        {
            /// <summary>Most items in a cart.</summary>
            public const int MaxItems = 50;
        }
        """
    ).definitions if d.kind == "constant"]  # fmt: skip
    assert (constant.name, constant.line, constant.doc) == ("MaxItems", 5, "Most items in a cart.")


def test_members_do_not_become_the_symbol_of_grpc_facts() -> None:
    facts = _facts(
        """
        class Worker
        {
            private Orders.OrdersClient Client { get; } = new Orders.OrdersClient(channel);
        }
        """
    )
    assert [(d.name, d.kind) for d in facts.definitions] == [("Worker", "class"), ("Client", "method")]
    assert [(fact.role, fact.symbol) for fact in facts.grpc] == [("client", "Worker")]


def test_more_declarations_that_give_a_type() -> None:
    binds = {
        (r.name, r.line, r.qualifier, r.binds)
        for r in _facts(
            """
            class A
            {
                void F(object y)
                {
                    if (TryGet(out Order o)) o.Pay();
                    try { } catch (Acme.IOException ex) { ex.Log(); }
                    if (y is Order { Id: 1 } p) p.Pay();
                    var x = y as Order;
                    var z = (Acme.Order)y;
                }
            }
            """
        ).references
        if r.binds
    }
    assert binds == {
        ("Order", 6, "", "o"),
        ("IOException", 7, "Acme", "ex"),
        ("Order", 8, "", "p"),
        ("Order", 9, "", "x"),
        ("Order", 10, "Acme", "z"),
    }


def test_a_using_alias_is_the_last_name_of_what_it_stands_for() -> None:
    """``using Rules = Shop.Pricing.PriceRules;``: ``Rules.Shipping()`` is qualified ``PriceRules``
    and ``Rules`` alone names ``PriceRules``; the directive's own line is no reference."""
    from mesh.index.parse import extract

    facts = extract(
        "Program.cs",
        b"using Rules = Shop.Pricing.PriceRules;\n"
        b"class P { void M() { var x = Rules.Shipping(2m); var r = typeof(Rules); } }\n",
    )
    found = {(r.name, r.line, r.qualifier) for r in facts.references}
    assert ("Shipping", 2, "PriceRules") in found
    assert ("PriceRules", 2, "") in found
    assert not any(r.line == 1 for r in facts.references)
