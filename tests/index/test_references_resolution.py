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
