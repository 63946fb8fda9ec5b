"""Hostile tool arguments (issue 13 items 3, 8 and 15): huge cursors, control characters, symlinks out.

Item 3: a cursor of 5,000 digits made ``smart_search`` crash (``int()`` refuses more than 4,300
digits): every tool's cursor, and every string argument, is bounded, and a cursor no answer could
have printed is an ``isError`` answer. Item 8: a path through a symlink out of the workspace was
refused with the link's resolved absolute target in the message. Item 15: control characters
of an argument (an ANSI escape, a bidi override) reached the Markdown raw.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mesh.index import Index
from mesh.index.build._live import StaticIndex
from mesh.render._paging import call_text, code, escape_controls
from mesh.tools import Registry, ToolError, builtin_registry
from mesh.tools._view import workspace_path
from tests.tools.conftest import FIXTURE, fixture_index  # noqa: F401 -- the shared session fixture

#: What must never reach an answer raw, written independently of the code: C0 but newline and
#: tab, DEL, C1, and the bidi embeddings, overrides and isolates.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: One call per tool that answers without error on the fixture.
CALLS: dict[str, dict[str, Any]] = {
    "smart_search": {"query": "Reserve"},
    "dependents": {"target": "proto/acme/common/v1/money.proto"},
    "grpc_trace": {"target": "acme.orders.v1.Orders/GetOrder"},
    "impact_matrix": {"changes": ["proto/acme/orders/v1/orders.proto"]},
    "doc_sections": {},
}
HOSTILE_CURSORS = ["9" * 5000, "1" * 25, "99999999999999999999", "1e9", "-1", " 5", "٣", "0x10", "x" * 100_000]


@pytest.fixture(scope="module")
def registry(fixture_index: Index) -> Registry:  # noqa: F811
    return builtin_registry(StaticIndex(fixture_index))


def call(registry: Registry, tool: str, arguments: dict[str, Any]):
    return registry.call(tool, arguments, None, workspace=FIXTURE)


# -- item 3: cursors ------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", sorted(CALLS))
@pytest.mark.parametrize("cursor", HOSTILE_CURSORS, ids=lambda c: f"{c[:8]}..{len(c)}")
def test_a_hostile_cursor_is_an_error_answer_never_a_crash_INV_TOOL_1(
    registry: Registry, tool: str, cursor: str
) -> None:
    """INV-TOOL-1: a cursor of 5,000 digits (past ``int()``'s limit), or anything else no answer
    printed, is an ``isError`` answer of bounded size, never an exception (-32603)."""
    output = call(registry, tool, {**CALLS[tool], "cursor": cursor})
    assert output.is_error
    assert "cursor" in output.text
    assert len(output.text) < 2000


def test_every_string_argument_of_every_tool_is_bounded_INV_TOOL_1() -> None:
    """INV-TOOL-1: every string (and list) argument of a built-in tool declares a maximum length in
    its schema, and every cursor at most 20 characters: no argument reaches a decoder unbounded."""
    registry = builtin_registry()
    for tool in registry:
        for name, schema in registry.schema(tool.name)["properties"].items():
            if schema["type"] == "string" and "enum" not in schema:
                assert "maxLength" in schema, f"{tool.name}.{name} is unbounded"
            if schema["type"] == "array":
                assert "maxItems" in schema, f"{tool.name}.{name} is unbounded"
        cursor = registry.schema(tool.name)["properties"].get("cursor")
        assert cursor is not None or tool.name == "symbol", tool.name  # symbol answers one definition, unpaged
        assert cursor is None or cursor["maxLength"] <= 20, tool.name


def test_the_cursor_decoder_refuses_more_digits_than_any_answer_prints() -> None:
    """The shared decoder itself (not only the schemas) bounds the digits it converts."""
    from mesh.tools._smart_search import Args
    from mesh.tools._view import cursor_offset

    with pytest.raises(ToolError, match="not one this tool gave"):
        cursor_offset("9" * 5000, 10, tool="smart_search", args=Args(query="x"), noun="matches")
    assert cursor_offset("3", 10, tool="smart_search", args=Args(query="x"), noun="matches") == 3


# -- item 15: control characters ------------------------------------------------------------------

ESC = "\x1b[31m"
BIDI = "\u202e"
#: Calls that echo a hostile argument back, in an answer or in an error.
ECHOING = [
    ("smart_search", {"query": f"{ESC}red{BIDI}"}),
    ("smart_search", {"query": "Reserve", "scope": f"nope{ESC}"}),
    ("smart_search", {"query": "Reserve", "language": f"go{BIDI}"}),
    ("smart_search", {"query": f"/({ESC}/", "mode": "regex"}),
    ("smart_search", {"query": "Reserve", "cursor": f"1{ESC}"}),
    ("dependents", {"target": f"nothing{ESC}"}),
    ("dependents", {"target": "orders", "scope": f"zz{BIDI}"}),
    ("grpc_trace", {"target": f"Foo{ESC}/Bar"}),
    ("grpc_trace", {"target": "acme.orders.v1.Orders/GetOrder", "scope": f"g\x07{BIDI}"}),
    ("impact_matrix", {"changes": [f"x\x00{ESC}"]}),
    ("impact_matrix", {"changes": [f"nothing{ESC}"]}),
    ("impact_matrix", {"git_range": f"a{ESC}..HEAD"}),
    ("impact_matrix", {"git_range": f"a\u2066..HEAD"}),
    ("doc_sections", {"heading": f"run{ESC}book{BIDI}"}),
    ("doc_sections", {"heading": f"zzzq{ESC}"}),
    ("doc_sections", {"path": f"docs{ESC}"}),
    ("doc_sections", {"section_id": f"README.md#x{BIDI}\x85"}),
    ("doc_sections", {"cursor": f"file:{ESC}"}),
    ("nope\x1b]0;title\x07", {}),
]


@pytest.mark.parametrize(("tool", "arguments"), ECHOING, ids=lambda v: repr(v)[:30])
def test_control_characters_of_arguments_never_reach_an_answer_raw_INV_TOOL_7(
    registry: Registry, tool: str, arguments: dict[str, Any]
) -> None:
    """INV-TOOL-7: an argument's control characters (C0 but newline and tab, DEL, C1, bidi
    overrides and isolates) are shown escaped wherever an answer or an error echoes it."""
    output = call(registry, tool, arguments)
    assert RAW_CONTROL.search(output.text) is None, output.text[:500]


def test_an_escaped_argument_is_still_recognisable() -> None:
    """INV-TOOL-7: the escape names the code point (``\\u001b``), and a follow-up call printed with
    one decodes, as JSON, to exactly the argument given."""
    assert code(f"a{ESC}b{BIDI}") == "`a\\u001b[31mb\\u202e`"
    shown = call_text("smart_search", {"query": f"a\x7f{BIDI}\x85{ESC}", "scope": "x"})
    arguments = shown.split(" ", 1)[1].strip("`")
    assert json.loads(arguments) == {"query": f"a\x7f{BIDI}\x85{ESC}", "scope": "x"}


@given(st.text())
def test_no_text_keeps_a_raw_control_character_once_escaped_INV_TOOL_7(text: str) -> None:
    """INV-TOOL-7: the escape leaves nothing to interpret, and changes nothing else."""
    escaped = escape_controls(text)
    assert RAW_CONTROL.search(escaped) is None
    assert RAW_CONTROL.search(code(text)) is None
    if RAW_CONTROL.search(text) is None:
        assert escaped == text


# -- item 8: symlinks out -------------------------------------------------------------------------


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """A workspace with links out: to a file, to a folder, and to /proc/self/environ."""
    root = tmp_path / "ws"
    (root / "svc").mkdir(parents=True)
    outside = tmp_path / "outside-secret-place"
    outside.mkdir()
    (outside / "environ").write_text("TOKEN=x\n")
    (root / "leak").symlink_to(outside / "environ")
    (root / "out").symlink_to(outside)
    (root / "proc").symlink_to("/proc/self/environ")
    return root.resolve()


@pytest.mark.parametrize("given_path", ["leak", "out", "out/deeper/file.md", "proc", "svc/../leak"])
def test_a_refused_symlink_never_names_its_target_INV_TOOL_3(linked: Path, given_path: str) -> None:
    """INV-TOOL-3, INV-TOOL-4: a path leading out through a symlink is refused naming the path as
    given and the workspace-relative link, never the resolved absolute target."""
    with pytest.raises(ToolError, match="through a symlink") as caught:
        workspace_path(linked, given_path)
    message = str(caught.value)
    assert "outside-secret-place" not in message and "/proc" not in message
    assert str(linked.parent) not in message
    assert re.search(r"`/", message) is None
