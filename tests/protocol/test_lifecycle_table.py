"""The lifecycle picture in docs/architecture.md is generated from the code's table."""

from __future__ import annotations

import re
from pathlib import Path

from mesh.protocol._session import _ROUTES, Era, _Kind

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def render_routes() -> str:
    kinds = list(_Kind)
    rows = ["| era \\ request | " + " | ".join(kind.value for kind in kinds) + " |", "| --- |" + " --- |" * len(kinds)]
    rows += [f"| {era.value} | " + " | ".join(_ROUTES[era, kind].value for kind in kinds) + " |" for era in Era]
    return "\n".join(rows)


def test_every_era_and_kind_has_a_route_INV_LIFE_2() -> None:
    """INV-LIFE-2."""
    assert set(_ROUTES) == {(era, kind) for era in Era for kind in _Kind}


def test_doc_picture_matches_the_table() -> None:
    match = re.search(r"<!-- routes:begin -->\n(.*?)\n<!-- routes:end -->", DOC.read_text(), re.S)
    assert match is not None
    assert match.group(1) == render_routes()
