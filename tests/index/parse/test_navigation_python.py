"""Code navigation facts of Python: signatures, doc lines and references (queries/python/*.scm)."""

from __future__ import annotations

import textwrap

from mesh.index import Reference
from mesh.index.parse import extract


def _facts(source: str):
    return extract("svc/mod.py", textwrap.dedent(source).encode())


def _refs(source: str) -> set[tuple[str, int, str, str]]:
    return {(r.name, r.line, r.kind, r.qualifier) for r in _facts(source).references}


def test_signature_is_the_declaration_up_to_its_body_on_one_line() -> None:
    facts = _facts(
        '''
        class Store(Base, mixins.Audited):
            def put(self,
                    key: str,
                    value: "Order" = None) -> list[Order]:
                pass
        '''
    )
    store, put = facts.definitions
    assert store.signature == "class Store(Base, mixins.Audited)"
    assert put.signature == 'def put(self, key: str, value: "Order" = None) -> list[Order]'


def test_doc_line_is_the_docstring_first_line_else_the_comment_above() -> None:
    facts = _facts(
        '''
        class Store:
            """

            Keeps orders.

            More.
            """

            # Puts one order.
            # Twice if asked.
            @cached
            def put(self):
                return 1

            x = 1  # not a doc
            def get(self):
                r"""Reads one."""

            def plain(self):
                pass
        '''
    )
    docs = {d.name: d.doc for d in facts.definitions}
    assert docs == {"Store": "Keeps orders.", "put": "Puts one order.", "get": "Reads one.", "plain": ""}


def test_long_signatures_are_bounded() -> None:
    params = ", ".join(f"p{i}: int" for i in range(100))
    (definition,) = _facts(f"def f({params}):\n    pass\n").definitions
    assert len(definition.signature) == 240 and definition.signature.endswith("…")


def test_references_calls_types_and_values_with_their_qualifier() -> None:
    refs = _refs(
        """
        from orders.models import Order, Status
        import pricing

        class Checkout(Base, mixins.Audited):
            LIMIT = 3

            @retry(times=LIMIT)
            def place(self, order: Optional[Order]) -> "Receipt":
                total = pricing.total(order, currency=Config.CURRENCY)
                self.audit(order).flush()
                if order.status == Status.PAID:
                    return Receipt(total)
        """
    )
    assert refs >= {
        ("Base", 5, "type", ""),
        ("Audited", 5, "type", "mixins"),
        ("retry", 8, "call", ""),
        ("LIMIT", 8, "use", ""),
        ("Optional", 9, "type", ""),
        ("Order", 9, "type", ""),
        ("total", 10, "call", "pricing"),
        ("Config", 10, "use", ""),
        ("CURRENCY", 10, "use", "Config"),
        ("audit", 11, "call", "self"),
        ("flush", 11, "call", "~"),
        ("Status", 12, "use", ""),
        ("PAID", 12, "use", "Status"),
        ("Receipt", 13, "call", ""),
    }


def test_names_a_declaration_introduces_are_not_references() -> None:
    refs = _refs(
        """
        from orders.models import Order as Placed
        import Pricing
        class Checkout:
            LIMIT = 3
            def Place(self, Order, Other=None, *Rest, **Kw):
                for Item in items:
                    pass
                f(Key=1)
        """
    )
    names = {name for name, *_ in refs}
    assert names == {"f"}


def test_one_reference_per_name_node_the_strongest_kind() -> None:
    facts = _facts("x = Order()\n")
    assert facts.references == (Reference("Order", 1, "call", "", "x", 0),)


def test_a_use_through_an_import_alias_is_a_use_of_what_it_stands_for() -> None:
    refs = _refs(
        """
        from shop.pricing import shipping as ship_cost
        import shop.pricing as sp
        ship_cost(1)
        sp.total(2)
        run(ship_cost)
        """
    )
    assert ("shipping", 4, "call", "") in refs
    assert ("total", 5, "call", "shop.pricing") in refs
    assert ("shipping", 6, "use", "") in refs


def test_a_lower_case_value_is_a_reference_only_when_the_file_imports_or_defines_it() -> None:
    refs = _refs(
        """
        from tasks import check_inventory

        def notify():
            pass

        def run(ctx, items):
            ctx.call(check_inventory, items)
            ctx.call(notify, retries=items)
            ctx.call(self.audit)
        """
    )
    names = {(name, kind) for name, _, kind, _ in refs}
    assert {("check_inventory", "use"), ("notify", "use"), ("audit", "use")} <= names
    assert ("items", "use") not in names


def test_what_a_use_binds_and_how_many_arguments_a_call_passes() -> None:
    facts = _facts(
        """
        class T:
            def set_up(self, store: OrderStore, page: m.Page = None):
                self.db = UserDb("sqlite://", echo=True)
                repo = pkg.Repo()
                cache: Cache = make()
                self.db.add_user(*users)
        """
    )
    got = {(r.name, r.binds, r.arity) for r in facts.references}
    assert {("OrderStore", "store", -1), ("Page", "page", -1), ("UserDb", "self.db", 2), ("Repo", "repo", 0),
            ("Cache", "cache", -1), ("add_user", "", -1)} <= got  # fmt: skip


def test_module_and_class_constants_are_definitions() -> None:
    facts = _facts(
        '''
        # The user every test starts from.
        EXAMPLE_USER = {
            "name": "a",
        }
        lower = 1

        class Status:
            PAID = "paid"
            label = "x"
        '''
    )
    constants = {(d.name, d.container, d.doc) for d in facts.definitions if d.kind == "constant"}
    assert constants == {("EXAMPLE_USER", "", "The user every test starts from."), ("PAID", "Status", "")}
