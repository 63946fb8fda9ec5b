"""The Markdown of a text search: grouped by file, paged within a budget, continued by a cursor."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from mesh.index.query._search import Found, Match
from mesh.render._search import render_search


def match(path: str, line: int, text: str, kind: str = "code", definition: str = "") -> Match:
    return Match(path, line, text, path.split("/")[0], "python", kind, definition)


FOUND = Found(
    (
        match("orders/orders/service.py", 22, "    def GetOrder(self, request, context):", definition="method"),
        match("gateway/src/orders.ts", 45, "    this.client.getOrder(req, cb)"),
        match("orders/orders/service.py", 58, "        return self.GetOrder(x)"),
        match("docs/runbook.md", 7, "Call `GetOrder` first.", kind="docs"),
    ),
    files=3,
    capped=False,
)


def test_one_page_groups_matches_by_file_in_the_order_of_their_best_match() -> None:
    assert render_search(FOUND, {"query": "GetOrder"}) == (
        "## `GetOrder`: 4 matches in 3 files\n"
        "\n`orders/orders/service.py` (orders, python, code)\n"
        "- 22: `def GetOrder(self, request, context):` — defines method\n"
        "- 58: `return self.GetOrder(x)`\n"
        "\n`gateway/src/orders.ts` (gateway, python, code)\n"
        "- 45: `this.client.getOrder(req, cb)`\n"
        "\n`docs/runbook.md` (docs, python, docs)\n"
        "- 7: ``Call `GetOrder` first.``\n"
    )


def test_a_small_budget_pages_with_a_cursor_and_says_what_to_call_next() -> None:
    page = render_search(FOUND, {"query": "GetOrder"}, page_bytes=150)
    assert page == (
        "## `GetOrder`: 4 matches in 3 files\n"
        "\n`orders/orders/service.py` (orders, python, code)\n"
        "- 22: `def GetOrder(self, request, context):` — defines method\n"
        "\n---\n"
        "Shown 1 of 4 matches.\n"
        "Busiest scopes: `orders/orders` (2), `docs` (1), `gateway/src` (1).\n"
        'Narrow to the busiest: `smart_search` `{"query":"GetOrder","scope":"orders/orders"}`\n'
        'Next page: `smart_search` `{"cursor":"1","query":"GetOrder"}`\n'
    )


def test_no_match_says_what_to_try() -> None:
    page = render_search(Found((), 0, False), {"query": "nothing"})
    assert page.startswith("## `nothing`: 0 matches in 0 files\n")
    assert "regex" in page


@given(
    lines=st.lists(
        st.tuples(st.sampled_from(["a/b/c.py", "a/d.py", "e.md", "a/b/f.py"]), st.integers(1, 500)),
        min_size=1,
        max_size=60,
        unique=True,
    ),
    budget=st.integers(80, 2000),
)
def test_following_the_cursors_shows_every_match_once(lines: list[tuple[str, int]], budget: int) -> None:
    found = Found(tuple(match(path, line, f"x{line}") for path, line in lines), len({p for p, _ in lines}), False)
    seen: list[tuple[str, int]] = []
    offset = 0
    for _ in range(len(lines) + 1):
        page = render_search(found, {"query": "x"}, offset=offset, page_bytes=budget)
        current = None
        for text_line in page.splitlines():
            if text_line.startswith("`") and text_line.endswith(")"):
                current = text_line.split("`")[1]
            elif m := re.match(r"- (\d+): ", text_line):
                seen.append((current, int(m.group(1))))
        cursor = re.search(r'"cursor":"(\d+)"', page)
        if cursor is None:
            break
        offset = int(cursor.group(1))
    assert sorted(seen) == sorted(lines)
    assert len(seen) == len(lines)
