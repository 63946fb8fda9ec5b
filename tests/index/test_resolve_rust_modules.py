"""Rust ``use`` paths that start with a module of the importer's own module (Rust 2018)."""

from __future__ import annotations

from pathlib import Path

from .test_resolve_imports import resolved

CRATE = {
    "shop/Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\n',
    "shop/src/lib.rs": "pub mod orders;\npub mod pricing;\npub use pricing::{shipping, Status};\npub use orders::cart::Cart;\n",
    "shop/src/pricing.rs": "pub fn shipping() {}\n",
    "shop/src/orders/mod.rs": "pub mod cart;\nuse cart::Cart;\nuse serde::Serialize;\n",
    "shop/src/orders/cart.rs": "pub struct Cart;\n",
    "shop/src/orders/audit.rs": "use trail::Entry;\n",
    "shop/src/orders/audit/trail.rs": "pub struct Entry;\n",
}


def test_a_use_of_a_module_declared_beside_it_resolves_to_that_module(tmp_path: Path) -> None:
    assert resolved(tmp_path, CRATE, "shop/src/lib.rs") == {
        "pricing": "shop/src/pricing.rs",
        "orders::cart::Cart": "shop/src/orders/cart.rs",
    }


def test_inside_a_module_the_path_starts_from_that_module(tmp_path: Path) -> None:
    assert resolved(tmp_path, CRATE, "shop/src/orders/mod.rs") == {
        "cart::Cart": "shop/src/orders/cart.rs",
        "serde::Serialize": None,
    }
    assert resolved(tmp_path / "again", CRATE, "shop/src/orders/audit.rs") == {
        "trail::Entry": "shop/src/orders/audit/trail.rs"
    }
