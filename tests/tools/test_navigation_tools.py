"""``outline``, ``symbol``, ``references`` and ``files``: golden answers on the fixture workspace,
pages that show everything once, bounds, misses, and the size of ``tools/list``.

The goldens were read by eye against the fixture's code; after that they are compared byte for byte.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mesh.index import Index
from mesh.tools import ToolError, builtin_registry, parse_args
from mesh.tools import _files, _outline, _references, _smart_search, _symbol
from mesh.tools._view import View

from .conftest import assert_golden

TOOLS = {"outline": _outline, "symbol": _symbol, "references": _references, "files": _files}

GOLDEN_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "outline_python_file": ("outline", {"path": "orders/orders/service.py"}),
    "outline_go_file": ("outline", {"path": "inventory/internal/store/store.go"}),
    "outline_typescript_file": ("outline", {"path": "gateway/src/orders.ts"}),
    "outline_java_file_depth_1": (
        "outline",
        {"path": "payments/src/main/java/com/acme/payments/PaymentsService.java", "depth": 1},
    ),
    "outline_folder": ("outline", {"path": "orders"}),
    "symbol_qualified": ("symbol", {"name": "OrderStore.put"}),
    "symbol_go_method": ("symbol", {"name": "Store.Reserve", "lines": 6}),
    "symbol_path_line": ("symbol", {"name": "orders/orders/inventory.py:25"}),
    "symbol_csharp_class": ("symbol", {"name": "OrderEvents", "lines": 10}),
    "references_class": ("references", {"name": "OrderStore"}),
    "references_method_by_name": ("references", {"name": "OrderStore.put"}),
    "references_function": ("references", {"name": "reserve_items"}),
    "references_typescript": ("references", {"name": "OrdersBackend"}),
    "references_resolved_only": ("references", {"name": "OrderStore.put", "by_name": False}),
    "files_glob": ("files", {"pattern": "**/*.proto"}),
    "files_name_glob": ("files", {"pattern": "*.go"}),
    "files_fuzzy": ("files", {"pattern": "ordsvc"}),
    "files_scoped": ("files", {"pattern": "*", "scope": "notifications"}),
}


def call(view: View, tool: str, **arguments: Any) -> str:
    module = TOOLS[tool] if tool in TOOLS else _smart_search
    args, _ = parse_args(module.Args, arguments)
    return module.answer(args, view)


def failure(view: View, tool: str, **arguments: Any) -> str:
    with pytest.raises(ToolError) as caught:
        call(view, tool, **arguments)
    return str(caught.value)


@pytest.mark.parametrize("case", sorted(GOLDEN_CASES))
def test_golden_answers(view: View, case: str) -> None:
    tool, arguments = GOLDEN_CASES[case]
    assert_golden(tool, case, call(view, tool, **arguments))


def test_search_context_golden(view: View) -> None:
    assert_golden("smart_search", "context_2", call(view, "smart_search", query="reserve_items", context=2))


def test_search_context_merges_touching_windows_and_marks_matches(view: View) -> None:
    text = call(view, "smart_search", query="self._store", context=3, scope="orders/orders/service.py")
    blocks = text.count("```\n") // 2
    assert blocks >= 1
    assert "19: " in text or "20: " in text  # a matching line, written as grep -n writes it
    lines = [line for line in text.splitlines() if line[:1].isdigit()]
    numbers = [int(line.split(":", 1)[0].split("-", 1)[0]) for line in lines]
    assert len(numbers) == len(set(numbers)), "a line shown twice: touching windows were not merged"


def test_outline_tree_nests_methods_under_their_class(view: View) -> None:
    text = call(view, "outline", path="orders/orders/store.py")
    assert "- class `OrderStore` lines " in text
    assert "  - method `OrderStore.put` lines 28-35 — `def put(self, order: orders_pb2.Order) -> None`" in text


def test_symbol_source_is_whole_lines_and_bounded_INV_NAV_2(view: View) -> None:
    text = call(view, "symbol", name="OrderStore.put", lines=3)
    assert "    def put(self, order: orders_pb2.Order) -> None:\n" in text
    assert "Shown lines 28-30 of 28-35; all of it: `symbol` `{\"lines\":8,\"name\":\"OrderStore.put\"}`" in text
    assert "feeds = list" not in text


def test_references_rank_resolved_before_by_name_INV_NAV_1(view: View) -> None:
    text = call(view, "references", name="OrderStore.put")
    resolved = text.index("orders/orders/service.py:42")
    by_name = text.index("orders/orders/store.py:35")
    assert resolved < by_name
    assert "(by name)" in text.splitlines()[[i for i, l in enumerate(text.splitlines()) if "store.py:35" in l][0]]
    assert "store.py:35" not in call(view, "references", name="OrderStore.put", by_name=False)


def test_unknown_names_get_the_nearest_and_a_call_INV_NAV_3(view: View) -> None:
    """INV-NAV-3: a name nothing defines gets the nearest defined names and the call for the first."""
    message = failure(view, "symbol", name="OrderStor")
    assert "Nearest names: `OrderStore`" in message
    assert '`symbol` `{"name":"OrderStore"}`' in message
    message = failure(view, "references", name="reserve_itemz")
    assert "`reserve_items`" in message


@pytest.mark.parametrize("tool", ["outline"])
def test_a_path_outside_the_workspace_is_refused_INV_NAV_3(view: View, tool: str) -> None:
    assert "outside the workspace" in failure(view, tool, path="/etc/passwd")
    assert "leaves the workspace" in failure(view, tool, path="../../etc")


def test_a_folder_nothing_is_indexed_under_says_so(view: View) -> None:
    assert "No indexed file is `nowhere/at/all` or under it" in failure(view, "outline", path="nowhere/at/all")


def _follow(view: View, tool: str, arguments: dict[str, Any]) -> list[str]:
    """Every item line of every page of an answer, following the next-page calls."""
    seen: list[str] = []
    module = TOOLS[tool]
    while True:
        args, _ = parse_args(module.Args, arguments)
        rendered = module.run(args, view)
        seen += [line for line in rendered.text.splitlines() if line.startswith("- `")]
        page = rendered.result.page
        if page.next is None:
            return seen
        arguments = page.next.arguments


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [("files", {"pattern": "**"}), ("outline", {"path": "gateway"}), ("references", {"name": "OrderStore"})],
)
def test_pages_show_every_item_once_INV_NAV_2(
    view: View, tool: str, arguments: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-NAV-2: a pattern that matches everything, a folder, many references: small pages that
    together show each item exactly once."""
    from mesh.render import _navigation

    whole = _follow(view, tool, dict(arguments))
    monkeypatch.setattr(_navigation, "PAGE_BYTES", 400)
    paged = _follow(view, tool, dict(arguments))
    assert len(whole) >= 3
    assert paged == whole


def test_files_say_why_a_path_was_left_out(tmp_path) -> None:
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "main.py").write_text("def main():\n    pass\n")
    (tmp_path / "svc" / "big.py").write_text("x = 1\n" * 400_000)
    (tmp_path / "svc" / "gen.pb.go").write_text("// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n")
    index = Index(tmp_path, tmp_path / ".cache-mesh", workers=1)
    try:
        index.refresh()
        with index.store.snapshot() as db:
            view = View(db, index.root)
            text = call(view, "files", pattern="svc/*")
    finally:
        index.close()
    assert "`svc/main.py` (python" in text
    assert "`svc/gen.pb.go` — not indexed: generated" in text
    assert "`svc/big.py` — not indexed:" in text


def test_tools_list_stays_small_for_a_model_INV_NAV_4() -> None:
    """INV-NAV-4: what a model reads of ``tools/list`` (name, title, description, input schema,
    annotations of every built-in tool) stays under 8 KB (it was 6.4 KB for five tools)."""
    registry = builtin_registry()
    total = 0
    for tool in registry:
        entry = {"name": tool.name, "title": tool.title, "description": tool.description,
                 "inputSchema": registry.schema(tool.name), "annotations": dict(tool.annotations or {})}  # fmt: skip
        total += len(json.dumps(entry, separators=(",", ":"), ensure_ascii=False).encode())
    assert len(registry) == 10
    assert total < 8 * 1024, total


def test_lines_are_numbered_as_the_index_numbers_them(tmp_path) -> None:
    """A form feed (common in old Python and C files), a lone carriage return and a CRLF file:
    ``str.splitlines`` counts a line at each, the parser does not, so every line shown after one
    was the wrong line. Source, references and search context show the line the index names."""
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "paged.py").write_text(
        "import os\n\x0c\ndef ship(order):\n    return order\n\r\ndef caller():\n    return ship(1)\n", newline=""
    )
    (tmp_path / "svc" / "crlf.py").write_bytes(b"from paged import ship\r\n\r\ndef again():\r\n    return ship(2)\r\n")
    index = Index(tmp_path, tmp_path / ".cache-mesh", workers=1)
    try:
        index.refresh()
        with index.store.snapshot() as db:
            view = View(db, index.root)
            source = call(view, "symbol", name="ship")
            references = call(view, "references", name="ship")
            context = call(view, "smart_search", query="ship(1)", context=1)
    finally:
        index.close()
    assert "def ship(order):\n    return order\n" in source
    assert "`svc/paged.py:7` call in `caller`: `return ship(1)`" in references
    assert "`svc/crlf.py:4` call in `again`: `return ship(2)`" in references
    assert "def caller():" in context and "return ship(1)" in context
