"""The lifecycle picture in docs/architecture.md is generated from the code's table."""

from __future__ import annotations

import re
from pathlib import Path

from mesh.protocol._session import _KINDS, _ROUTES, Era

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def render_routes() -> str:
    rows = ["| era \\ request | " + " | ".join(_KINDS) + " |", "| --- |" + " --- |" * len(_KINDS)]
    rows += [f"| {era.value} | " + " | ".join(_ROUTES[era][kind].value for kind in _KINDS) + " |" for era in Era]
    return "\n".join(rows)


def test_every_era_and_kind_has_a_route_INV_LIFE_2() -> None:
    """INV-LIFE-2."""
    assert list(_ROUTES) == list(Era)
    assert all(list(row) == list(_KINDS) for row in _ROUTES.values())


def test_doc_picture_matches_the_table() -> None:
    match = re.search(r"<!-- routes:begin -->\n(.*?)\n<!-- routes:end -->", DOC.read_text(), re.S)
    assert match is not None
    assert match.group(1) == render_routes()
