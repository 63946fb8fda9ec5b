"""A variable set to an element of a container typed with a class takes that class, in Go, Rust and
Kotlin (``references.scm``'s ``@holds`` and ``@element``/``@container``, bound by
``mesh/index/parse/_navigation.py``; the style of ``test_references_resolution.py``)."""

from __future__ import annotations

from typing import Any

from .test_references_resolution import build, sites  # noqa: F401  (build: the fixture)


def test_go_elements_of_a_container_take_its_class_INV_NAV_1(build: Any) -> None:
    """A range's value or an index of a slice or map (``[]*Order``, ``map[string]Order``) read
    through the receiver takes the element's class; the element is no use of the class; a name
    the file gives two element classes, or one of a class without the method, stays by name."""
    with build({
        "shop/model.go": """
            package shop

            type Order struct{}

            func (o *Order) Ship() {}

            type Item struct{}

            func (i *Item) Ship() {}

            type Parcel struct{}
            """,
        "shop/store.go": """
            package shop

            type Store struct {
            	orders  []*Order
            	byID    map[string]Order
            	items   []Item
            	parcels []Parcel
            }

            func (s *Store) Send() {
            	for _, o := range s.orders {
            		o.Ship()
            	}
            	first := s.orders[0]
            	first.Ship()
            	found, ok := s.byID["a"]
            	if ok {
            		found.Ship()
            	}
            }

            func (s *Store) Mixed() {
            	for _, each := range s.orders {
            		each.Ship()
            	}
            	for _, each := range s.items {
            		each.Ship()
            	}
            	for _, p := range s.parcels {
            		p.Ship()
            	}
            }
            """,
    }) as db:  # fmt: skip
        ship = sites(db, "Order.Ship")
        order = sites(db, "Order")
    assert ship == {
        "shop/store.go:13": "typed", "shop/store.go:16": "typed", "shop/store.go:19": "typed",
        "shop/store.go:25": "by name", "shop/store.go:28": "by name", "shop/store.go:31": "by name",
    }  # fmt: skip
    # the slice's and the map's argument, and the method's receiver; no element is a use of it
    assert set(order) == {"shop/model.go:6", "shop/store.go:5", "shop/store.go:6"}


def test_rust_elements_of_a_container_take_its_class_INV_NAV_1(build: Any) -> None:
    """A loop's name over a Vec (``&self.orders``, ``.iter()``), a map's value of a pair, a let of
    an index take the element's class; the element is no use of the class; a loop's one name over
    a map (a pair), a name given two element classes, or one of a class without the method, stays
    by name."""
    with build({
        "src/model.rs": """
            pub struct Order {}

            impl Order {
                pub fn ship(&self) {}
            }

            pub struct Item {}

            impl Item {
                pub fn ship(&self) {}
            }

            pub struct Parcel {}
            """,
        "src/store.rs": """
            use crate::model::{Item, Order, Parcel};
            use std::collections::HashMap;

            pub struct Store {
                orders: Vec<Order>,
                by_id: HashMap<String, Order>,
                items: Vec<Item>,
                parcels: &'static [Parcel],
            }

            impl Store {
                pub fn send(&self) {
                    for o in &self.orders {
                        o.ship();
                    }
                    for (_, v) in self.by_id.iter() {
                        v.ship();
                    }
                    let first = &self.orders[0];
                    first.ship();
                    for e in &self.by_id {
                        e.ship();
                    }
                }

                pub fn mixed(&self) {
                    for each in self.orders.iter() {
                        each.ship();
                    }
                    for each in self.items.iter() {
                        each.ship();
                    }
                    for p in self.parcels {
                        p.ship();
                    }
                }
            }
            """,
    }) as db:  # fmt: skip
        ship = sites(db, "Order.ship")
        order = sites(db, "Order")
    assert ship == {
        "src/store.rs:15": "typed", "src/store.rs:18": "typed", "src/store.rs:21": "typed",
        "src/store.rs:23": "by name", "src/store.rs:29": "by name", "src/store.rs:32": "by name",
        "src/store.rs:35": "by name",
    }  # fmt: skip
    # the impl, the Vec's and the map's argument; no element is a use of it
    assert set(order) == {"src/model.rs:4", "src/store.rs:6", "src/store.rs:7"}


def test_kotlin_elements_of_a_container_take_its_class_INV_NAV_1(build: Any) -> None:
    """A loop's name over a List constructor property, a map's value of a pair, ``first()`` of
    ``this.orders`` take the element's class; the element is no use of the class; a loop's one
    name over a map (an entry), a pair of a list's element, a name given two element classes, or
    one of a class without the method, stays by name."""
    with build({
        "src/main/kotlin/shop/Model.kt": """
            package shop

            class Order {
                fun ship() {}
            }

            class Item {
                fun ship() {}
            }

            class Parcel
            """,
        "src/main/kotlin/shop/Store.kt": """
            package shop

            class Store(private val orders: List<Order>, private val byId: Map<String, Order>) {
                private val items = mutableListOf<Item>()
                private val parcels: List<Parcel> = listOf()

                fun send() {
                    for (o in orders) {
                        o.ship()
                    }
                    val first = this.orders.first()
                    first.ship()
                    for ((key, value) in byId) {
                        value.ship()
                    }
                    for (entry in byId) {
                        entry.ship()
                    }
                    for ((a, b) in orders) {
                        b.ship()
                    }
                }

                fun mixed() {
                    for (each in orders) {
                        each.ship()
                    }
                    for (each in items) {
                        each.ship()
                    }
                    for (p in parcels) {
                        p.ship()
                    }
                }
            }
            """,
    }) as db:  # fmt: skip
        ship = sites(db, "Order.ship")
        order = sites(db, "Order")
    store = "src/main/kotlin/shop/Store.kt"
    assert ship == {
        f"{store}:10": "typed", f"{store}:13": "typed", f"{store}:15": "typed",
        f"{store}:18": "by name", f"{store}:21": "by name", f"{store}:27": "by name",
        f"{store}:30": "by name", f"{store}:33": "by name",
    }  # fmt: skip
    # the list's and the map's argument; no element is a use of it
    assert set(order) == {f"{store}:4"}


def test_rust_values_of_a_map_take_its_value_class_INV_NAV_1(build: Any) -> None:
    """A map's value (``HashMap<Key, Order>``: the second argument) read by ``if let Some(v) =
    by_id.get(&k)``, ``by_id.get_mut(&k).unwrap()``, ``&by_id[&k]``, the value of a pair, ``.values()``
    takes the value's class; a key of a pair, a loop's one name over the map (a pair), an
    ``enumerate`` over it, and a pair over a Vec stay by name; the key's class is never given to a
    value, and no value read is a use of either class."""
    with build({
        "src/model.rs": """
            pub struct Order {}

            impl Order {
                pub fn ship(&self) {}
            }

            pub struct Key {}

            impl Key {
                pub fn ship(&self) {}
            }
            """,
        "src/store.rs": """
            use crate::model::{Key, Order};
            use std::collections::HashMap;

            pub struct Store {
                by_id: HashMap<Key, Order>,
                orders: Vec<Order>,
            }

            impl Store {
                pub fn send(&mut self) {
                    if let Some(found) = self.by_id.get(&self.first) {
                        found.ship();
                    }
                    let taken = self.by_id.get_mut(&self.first).unwrap();
                    taken.ship();
                    let indexed = &self.by_id[&self.first];
                    indexed.ship();
                    for (key, value) in &self.by_id {
                        key.ship();
                        value.ship();
                    }
                    for each in self.by_id.values() {
                        each.ship();
                    }
                    for pair in self.by_id.iter() {
                        pair.ship();
                    }
                    for (i, numbered) in self.by_id.iter().enumerate() {
                        numbered.ship();
                    }
                    for (a, b) in &self.orders {
                        b.ship();
                    }
                }
            }
            """,
    }) as db:  # fmt: skip
        ship = sites(db, "Order.ship")
        key_ship = sites(db, "Key.ship")
        order = sites(db, "Order")
        key = sites(db, "Key")
    values = {"src/store.rs:13", "src/store.rs:16", "src/store.rs:18", "src/store.rs:21", "src/store.rs:24"}
    assert ship == {
        **dict.fromkeys(sorted(values), "typed"),
        "src/store.rs:20": "by name", "src/store.rs:27": "by name", "src/store.rs:30": "by name",
        "src/store.rs:33": "by name",
    }  # fmt: skip
    assert "typed" not in {key_ship.get(line) for line in values}  # the key's class is no value's
    assert key_ship["src/store.rs:20"] == "by name"  # a key of a pair takes no class here
    assert set(order) == {"src/model.rs:4", "src/store.rs:6", "src/store.rs:7"}
    assert not values & set(key)


def test_kotlin_values_of_a_map_take_its_value_class_INV_NAV_1(build: Any) -> None:
    """A map's value (``Map<Key, Order>``: the second argument) read by ``byId[k]!!``, ``byId[k] ?:``,
    ``.getValue(k)``, ``.getOrPut(k) { ... }`` of a ``mutableMapOf<Key, Order>()``, ``.values``, the
    value of a pair over ``.entries`` takes the value's class; a key of a pair, a loop's one name over
    the map (an entry), over ``.keys``, and a pair over a list stay by name; the key's class is never
    given to a value, and no value read is a use of either class."""
    with build({
        "src/main/kotlin/shop/Model.kt": """
            package shop

            class Order {
                fun ship() {}
            }

            class Key {
                fun ship() {}
            }
            """,
        "src/main/kotlin/shop/Store.kt": """
            package shop

            class Store(private val byId: Map<Key, Order>, private val orders: List<Order>) {
                private val cache = mutableMapOf<Key, Order>()

                fun send(first: Key) {
                    val forced = byId[first]!!
                    forced.ship()
                    val found = this.byId[first] ?: return
                    found.ship()
                    val sure = byId.getValue(first)
                    sure.ship()
                    val made = cache.getOrPut(first) { Order() }
                    made.ship()
                    for (each in byId.values) {
                        each.ship()
                    }
                    for ((key, value) in byId.entries) {
                        key.ship()
                        value.ship()
                    }
                    for (entry in byId) {
                        entry.ship()
                    }
                    for (k in byId.keys) {
                        k.ship()
                    }
                    for ((a, b) in orders) {
                        b.ship()
                    }
                }
            }
            """,
    }) as db:  # fmt: skip
        ship = sites(db, "Order.ship")
        key_ship = sites(db, "Key.ship")
        order = sites(db, "Order")
        key = sites(db, "Key")
    store = "src/main/kotlin/shop/Store.kt"
    values = {f"{store}:{line}" for line in (9, 11, 13, 15, 17, 21)}
    assert ship == {
        **dict.fromkeys(sorted(values), "typed"),
        f"{store}:20": "by name", f"{store}:24": "by name", f"{store}:27": "by name", f"{store}:30": "by name",
    }  # fmt: skip
    assert "typed" not in {key_ship.get(line) for line in values}  # the key's class is no value's
    assert key_ship[f"{store}:20"] == "by name" and key_ship[f"{store}:27"] == "by name"
    assert set(order) == {f"{store}:4", f"{store}:5", f"{store}:14"}  # the types, and the new Order()
    assert not values & set(key)
