"""A variable set to an element of a container whose declared type names its class (C#, TypeScript,
Python) takes that class: a call through it resolves ``typed``, the element is no use of the class,
and a variable given two such classes in one file says nothing (``mesh/index/parse/_navigation.py``,
``_elements_bound``; the patterns are the end of each language's ``references.scm``)."""

from __future__ import annotations

from typing import Any

from .test_references_resolution import build, sites  # noqa: F401  (build: the fixture)


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


def test_csharp_values_of_a_dictionary_take_its_value_class_INV_NAV_1(build: Any) -> None:
    """A dictionary's value (the second type argument of a ``Dictionary``, an ``IReadOnlyDictionary``
    property, a ``ConcurrentDictionary`` parameter) read by ``_byId[k]``, ``TryGetValue(k, out var
    v)``, ``GetOrAdd``, ``foreach`` over ``.Values`` and the value of ``foreach (var (k, v) in d)``
    takes the value's class; a key of a pair, a ``foreach`` over the dictionary (a KeyValuePair) and
    its ``First()`` stay by name; the key's class is never given to a value, and no value read is a
    use of either class."""
    with build({
        "src/Order.cs": """
            namespace Shop;
            public class Order { public void Ship() { } }
            public class Key { public void Ship() { } }
            """,
        "src/Handler.cs": """
            namespace Shop;
            public class Handler
            {
                private readonly Dictionary<Key, Order> _byId = new();
                public IReadOnlyDictionary<Key, Order> Named { get; }
                public void Run(ConcurrentDictionary<Key, Order> pending, Key first)
                {
                    var found = _byId[first];
                    found.Ship();
                    if (this._byId.TryGetValue(first, out var known)) { known.Ship(); }
                    var made = pending.GetOrAdd(first, _ => new Order());
                    made.Ship();
                    foreach (var each in Named.Values) { each.Ship(); }
                    foreach (var (key, value) in _byId)
                    {
                        key.Ship();
                        value.Ship();
                    }
                    foreach (var pair in _byId) { pair.Ship(); }
                    var head = pending.First();
                    head.Ship();
                }
            }
            """,
    }) as db:  # fmt: skip
        ship = sites(db, "Order.Ship")
        key_ship = sites(db, "Key.Ship")
        order = sites(db, "Order")
        key = sites(db, "Key")
    values = {f"src/Handler.cs:{line}" for line in (10, 11, 13, 14, 18)}
    by_name = {f"src/Handler.cs:{line}" for line in (17, 20, 22)}
    assert ship == {**dict.fromkeys(sorted(values), "typed"), **dict.fromkeys(sorted(by_name), "by name")}
    assert "typed" not in {key_ship.get(line) for line in values}  # the key's class is no value's
    assert key_ship["src/Handler.cs:17"] == "by name"  # a key of a pair takes no class here
    assert set(order) == {"src/Handler.cs:5", "src/Handler.cs:6", "src/Handler.cs:7", "src/Handler.cs:12"}
    assert not values & set(key)


def test_typescript_values_of_a_map_take_its_value_class_INV_NAV_1(build: Any) -> None:
    """A map's value (the last type argument of a ``Map`` parameter property, a ``Record`` field, a
    ``ReadonlyMap`` parameter) read by ``get(k)!``, ``record[k]``, the value of ``for (const [k, v] of
    m)`` and of ``.entries()``, ``for (const v of m.values())``, ``Object.values(record)``, a
    ``forEach`` callback's first parameter takes the value's class; a key of a pair, a for-of over the
    map kept whole (a pair) and over ``.keys()`` stay by name; the key's class is never given to a
    value, and no value read is a use of either class."""
    with build({
        "src/order.ts": """
            export class Order { ship(): void {} }
            export class Key { ship(): void {} }
            """,
        "src/handler.ts": """
            import { Key, Order } from "./order";
            export class Handler {
              private named: Record<string, Order> = {};
              constructor(private readonly byId: Map<Key, Order>) {}
              run(first: Key, seen: ReadonlyMap<Key, Order>) {
                const found = this.byId.get(first)!;
                found.ship();
                const named = this.named["a"];
                named.ship();
                for (const [key, value] of this.byId) {
                  key.ship();
                  value.ship();
                }
                for (const [, entry] of seen.entries()) { entry.ship(); }
                for (const each of this.byId.values()) { each.ship(); }
                for (const listed of Object.values(this.named)) { listed.ship(); }
                seen.forEach((called, k) => called.ship());
                for (const pair of this.byId) { pair.ship(); }
                for (const k of seen.keys()) { k.ship(); }
              }
            }
            """,
    }) as db:  # fmt: skip
        ship = sites(db, "Order.ship")
        key_ship = sites(db, "Key.ship")
        order = sites(db, "Order")
        key = sites(db, "Key")
    values = {f"src/handler.ts:{line}" for line in (8, 10, 13, 15, 16, 17, 18)}
    by_name = {f"src/handler.ts:{line}" for line in (12, 19, 20)}
    assert ship == {**dict.fromkeys(sorted(values), "typed"), **dict.fromkeys(sorted(by_name), "by name")}
    assert "typed" not in {key_ship.get(line) for line in values}  # the key's class is no value's
    assert key_ship["src/handler.ts:12"] == "by name"  # a key of a pair takes no class here
    assert set(order).isdisjoint(values) and set(key).isdisjoint(values)


def test_python_values_of_a_mapping_take_its_value_class_INV_NAV_1(build: Any) -> None:
    """A mapping's value (the second argument of ``dict[Key, Order]``, ``Mapping[Key, Order]``,
    ``DefaultDict[str, Order]``) read by ``by_id[k]``, ``by_id.get(k)``, ``.pop(k)``, the value of ``for k,
    v in by_id.items()``, ``for v in by_id.values()`` and a comprehension over them takes the value's
    class; a key of a pair, a loop over the mapping (its keys) and over ``.keys()`` stay by name; the
    key's class is never given to a value, and no value read is a use of either class."""
    with build({
        "shop/models.py": """
            class Order:
                def ship(self):
                    return 1


            class Key:
                def ship(self):
                    return 2
            """,
        "shop/handler.py": """
            from collections import defaultdict
            from typing import DefaultDict, Mapping

            from shop.models import Key, Order


            class Handler:
                def __init__(self, by_id: dict[Key, Order], named: Mapping[Key, Order], first: Key):
                    self.late: DefaultDict[str, Order] = defaultdict(Order)
                    found = by_id[first]
                    found.ship()
                    maybe = named.get(first)
                    maybe.ship()
                    taken = self.late.pop("a")
                    taken.ship()
                    for key, value in by_id.items():
                        key.ship()
                        value.ship()
                    for each in named.values():
                        each.ship()
                    done = [listed.ship() for listed in self.late.values()]
                    for k in by_id:
                        k.ship()
                    for other in named.keys():
                        other.ship()
            """,
    }) as db:  # fmt: skip
        ship = sites(db, "Order.ship")
        key_ship = sites(db, "Key.ship")
        order = sites(db, "Order")
        key = sites(db, "Key")
    values = {f"shop/handler.py:{line}" for line in (12, 14, 16, 19, 21, 22)}
    by_name = {f"shop/handler.py:{line}" for line in (18, 24, 26)}
    assert ship == {**dict.fromkeys(sorted(values), "typed"), **dict.fromkeys(sorted(by_name), "by name")}
    assert "typed" not in {key_ship.get(line) for line in values}  # the key's class is no value's
    assert key_ship["shop/handler.py:18"] == "by name"  # a key of a pair takes no class here
    assert set(order).isdisjoint(values) and set(key).isdisjoint(values)
