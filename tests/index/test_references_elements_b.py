"""A variable set to an element of a container whose declared type names its class (C#, TypeScript,
Python) takes that class: a call through it resolves ``typed``, the element is no use of the class,
and a variable given two such classes in one file says nothing (``mesh/index/parse/_navigation.py``,
``_elements_bound``; the patterns are the end of each language's ``references.scm``)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesh.index import Index
from mesh.index.query._references import find_references
from mesh.index.query._symbols import find_symbols


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


def test_csharp_elements_of_a_container_take_its_class_INV_NAV_1(build: Any) -> None:
    """``foreach (var o in this._orders)``, ``var o = _orders.First()``, ``incoming.ElementAt(1)`` of a
    primary constructor's ``IEnumerable<Order>``, ``var p = _parcels[0]`` of a ``Parcel[]``; a
    ``Task<Order>`` holds no elements; ``x`` of a list of orders and of an array of parcels is neither."""
    with build({
        "src/Order.cs": """
            namespace Shop;
            public class Order { public void Ship() { } }
            public class Parcel { public void Ship() { } }
            """,
        "src/Handler.cs": """
            namespace Shop;
            public class Handler(IEnumerable<Order> incoming)
            {
                private readonly List<Order> _orders = new();
                private Parcel[] _parcels;
                private Task<Order> _pending;
                public void Run()
                {
                    foreach (var o in this._orders) { o.Ship(); }
                    var first = _orders.First();
                    first.Ship();
                    var next = incoming.ElementAt(1);
                    next.Ship();
                    var p = _parcels[0];
                    p.Ship();
                    var done = _pending.First();
                    done.Ship();
                }
                public void Both()
                {
                    foreach (var x in _orders) { }
                    foreach (var x in _parcels) { x.Ship(); }
                }
            }
            """,
    }) as db:  # fmt: skip
        ship = sites(db, "Order.Ship")
        parcel_ship = sites(db, "Parcel.Ship")
        order = sites(db, "Order")
    assert ship == {"src/Handler.cs:10": "typed", "src/Handler.cs:12": "typed", "src/Handler.cs:14": "typed",
                    "src/Handler.cs:18": "by name", "src/Handler.cs:23": "by name"}  # fmt: skip
    assert parcel_ship["src/Handler.cs:16"] == "typed" and parcel_ship["src/Handler.cs:23"] == "by name"
    assert set(order) == {"src/Handler.cs:3", "src/Handler.cs:5", "src/Handler.cs:7"}  # no element is a use of it


def test_typescript_elements_of_a_container_take_its_class_INV_NAV_1(build: Any) -> None:
    """``for (const o of this.orders)`` of a field ``Order[]``, ``list[0]`` of a parameter
    ``ReadonlyArray<Order>``, ``byId.get(id)!`` of a ``Map<string, Order>``, a ``forEach`` callback's
    parameter, in a .ts and a .tsx file; a ``Promise<Order>`` holds no elements; ``x`` of orders and
    of parcels is neither."""
    with build({
        "src/order.ts": """
            export class Order { ship(): void {} }
            export class Parcel { ship(): void {} }
            """,
        "src/handler.ts": """
            import { Order, Parcel } from "./order";
            export class Handler {
              private orders: Order[] = [];
              constructor(private readonly byId: Map<string, Order>, private parcels: Set<Parcel>) {}
              run(list: ReadonlyArray<Order>, pending: Promise<Order>) {
                for (const o of this.orders) { o.ship(); }
                const first = list[0];
                first.ship();
                const found = this.byId.get("a")!;
                found.ship();
                this.orders.forEach((each) => each.ship());
                const later = pending.find();
                later.ship();
              }
              both() {
                for (const x of this.orders) {}
                for (const x of this.parcels) { x.ship(); }
              }
            }
            """,
        "src/view.tsx": """
            import { Order } from "./order";
            export function View({ rows }: { rows: Order[] }) {
              const orders: Order[] = rows;
              return orders.map(row => <li onClick={() => row.ship()} />);
            }
            """,
    }) as db:  # fmt: skip
        ship = sites(db, "Order.ship")
        order = sites(db, "Order")
    assert ship == {"src/handler.ts:7": "typed", "src/handler.ts:9": "typed", "src/handler.ts:11": "typed",
                    "src/handler.ts:12": "typed", "src/handler.ts:14": "by name", "src/handler.ts:18": "by name",
                    "src/view.tsx:5": "typed"}  # fmt: skip
    elements = {"src/handler.ts:7", "src/handler.ts:8", "src/handler.ts:10", "src/handler.ts:12", "src/view.tsx:5"}
    assert not elements & set(order)  # no element is a use of the class


def test_python_elements_of_a_container_take_its_class_INV_NAV_1(build: Any) -> None:
    """``for o in self.orders`` of ``self.orders: list[Order]``, ``orders[0]`` and a comprehension of a
    ``Sequence[Order]`` parameter, ``enumerate`` over a class attribute ``tuple[Order, ...]``; an
    ``Optional[Order]`` and a ``dict[str, Order]`` hold no elements; ``x`` of orders and of parcels is
    neither."""
    with build({
        "shop/models.py": """
            class Order:
                def ship(self):
                    return 1


            class Parcel:
                def ship(self):
                    return 2
            """,
        "shop/handler.py": """
            from typing import Optional, Sequence

            from shop.models import Order, Parcel


            class Handler:
                backlog: tuple[Order, ...] = ()

                def __init__(self, parcels: list[Parcel], by_id: dict[str, Order], maybe: Optional[Order]):
                    self.orders: list[Order] = []
                    for o in self.orders:
                        o.ship()
                    for i, late in enumerate(self.backlog):
                        late.ship()
                    for key in by_id:
                        key.ship()
                    for m in maybe:
                        m.ship()

                def run(self, orders: Sequence[Order]):
                    first = orders[0]
                    first.ship()
                    return [each.ship() for each in orders]

                def both(self, parcels: list[Parcel]):
                    for x in self.orders:
                        pass
                    for x in parcels:
                        x.ship()
            """,
    }) as db:  # fmt: skip
        ship = sites(db, "Order.ship")
        order = sites(db, "Order")
    assert ship == {"shop/handler.py:13": "typed", "shop/handler.py:15": "typed", "shop/handler.py:17": "by name",
                    "shop/handler.py:19": "by name", "shop/handler.py:23": "typed", "shop/handler.py:24": "typed",
                    "shop/handler.py:30": "by name"}  # fmt: skip
    elements = {"shop/handler.py:12", "shop/handler.py:14", "shop/handler.py:22", "shop/handler.py:24"}
    assert not elements & set(order)  # no element is a use of the class
