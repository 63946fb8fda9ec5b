"""Structured results: every built-in tool's ``outputSchema`` and ``structuredContent``.

The schema is derived from the tool's attrs result class as the input schema is from its ``Args``
(INV-TOOL-1, INV-TOOL-8); every successful answer carries a result that validates against it (with
``jsonschema``, under draft 2020-12 as the Python SDK reads it and draft 7 as the TypeScript SDK's
ajv does) and holds the same page as the Markdown; an error carries none. Clients of 2025-06-18 and
later get it, earlier ones the Markdown alone (INV-TOOL-9); ``mesh-mcp call --json`` prints it
(INV-TOOL-10).
"""

from __future__ import annotations

import io
import json
import re
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import attr
import attrs
import jsonschema
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesh.commands.call import canonical_json, run_call
from mesh.drivers._pump import run_tool
from mesh.drivers.stdio import catalogue
from mesh.index import Index
from mesh.index.build._live import StaticIndex
from mesh.protocol import ServerSession, SessionClosed, SessionConfig, ToolCallRequested, Wait
from mesh.render._paging import call_text, code, footer_of
from mesh.tools import Registry, Tool, ToolError, ToolOutput, builtin_registry, describe
from mesh.tools._registry import CallContext
from mesh.tools._args import as_json, output_schema_of, parse_args

from . import test_dependents, test_doc_sections, test_endpoint_trace, test_grpc_trace, test_impact, test_smart_search
from . import test_navigation_tools
from .conftest import FIXTURE

BUILTIN = ("smart_search", "dependents", "grpc_trace", "endpoint_trace", "impact_matrix", "doc_sections",
           "outline", "symbol", "references", "files")  # fmt: skip
#: Tools whose answer is one definition, not a page.
UNPAGED = ("symbol",)
#: Every golden case of every tool: each kind of answer the tools give on the fixture.
CASES: list[tuple[str, dict[str, Any]]] = [
    *(("smart_search", arguments) for arguments in test_smart_search.GOLDEN_CASES.values()),
    *(("dependents", arguments) for arguments in test_dependents.GOLDEN_CASES.values()),
    *(("grpc_trace", {"target": target, **more}) for _, target, more in test_grpc_trace.GOLDEN_CASES),
    *(("endpoint_trace", arguments) for arguments in test_endpoint_trace.GOLDEN_CASES.values()),
    *(("impact_matrix", arguments) for arguments in test_impact.GOLDEN_CASES.values()),
    *(("doc_sections", arguments) for arguments in test_doc_sections.GOLDEN_CASES.values()),
    ("doc_sections", {}),
    ("doc_sections", {"section_id": "README.md#acme-shop"}),
    ("grpc_trace", {"target": "Unknown.v1.Nothing/Here"}),
    *test_navigation_tools.GOLDEN_CASES.values(),
    ("smart_search", {"query": "reserve_items", "context": 2}),
]
#: Large enough for any answer: a page of Markdown is 8-16 KB, its structured form a few times that.
STRUCTURED_BYTES_MAX = 192 * 1024


@pytest.fixture(scope="module")
def registry(fixture_index: Index) -> Registry:
    return builtin_registry(StaticIndex(fixture_index))


def schema_of_tool(registry: Registry, name: str) -> dict[str, Any]:
    """The whole schema of a tool's result (``tools/list`` carries its top level)."""
    schema = registry.full_output_schema(name)
    assert schema is not None, name
    return schema


def validate(schema: Mapping[str, Any], instance: Any) -> None:
    """Under both drafts the official SDKs use (Python: 2020-12; TypeScript's ajv: draft 7)."""
    jsonschema.Draft202012Validator(schema).validate(instance)
    jsonschema.Draft7Validator(schema).validate(instance)


# -- the derivation --------------------------------------------------------------------------------


@attrs.frozen
class Inner:
    name: str
    count: int = attrs.field(metadata=describe("How many"))


@attrs.frozen
class Outer:
    title: str
    ratio: float
    flag: bool
    kind: Literal["a", "b"]
    maybe: str | None
    maybe_kind: Literal["x"] | None
    names: list[str]
    numbers: tuple[int, ...]
    inner: Inner
    inners: list[Inner]
    maybe_inner: Inner | None
    free: dict[str, Any]


@attrs.frozen
class Loop:
    again: list[Loop]


@attrs.frozen
class Unsupported:
    pairs: tuple[str, int]


def test_the_output_schema_is_derived_from_the_attrs_class_INV_TOOL_8() -> None:
    """INV-TOOL-8: every field required, nothing else allowed, nested classes inline, ``T | None``
    admitting null; a description given with ``describe`` shown."""
    schema = output_schema_of(Outer)
    inner = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "count": {"type": "integer", "description": "How many"}},
        "required": ["name", "count"],
        "additionalProperties": False,
    }
    assert schema == {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "ratio": {"type": "number"},
            "flag": {"type": "boolean"},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "maybe": {"type": ["string", "null"]},
            "maybe_kind": {"type": ["string", "null"], "enum": ["x", None]},
            "names": {"type": "array", "items": {"type": "string"}},
            "numbers": {"type": "array", "items": {"type": "integer"}},
            "inner": inner,
            "inners": {"type": "array", "items": inner},
            "maybe_inner": {"anyOf": [inner, {"type": "null"}]},
            "free": {"type": "object"},
        },
        "required": [
            "title",
            "ratio",
            "flag",
            "kind",
            "maybe",
            "maybe_kind",
            "names",
            "numbers",
            "inner",
            "inners",
            "maybe_inner",
            "free",
        ],
        "additionalProperties": False,
    }
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft7Validator.check_schema(schema)
    value = Outer("t", 0.5, True, "a", None, None, ["n"], (1, 2), Inner("i", 1), [Inner("j", 2)], None, {"k": [1]})
    document = as_json(value)
    assert document["numbers"] == [1, 2] and document["inner"] == {"name": "i", "count": 1}
    validate(schema, document)
    with pytest.raises(jsonschema.ValidationError):
        validate(schema, {**document, "extra": 1})
    with pytest.raises(jsonschema.ValidationError):
        validate(schema, {key: value for key, value in document.items() if key != "maybe"})


@pytest.mark.parametrize("cls", [Loop, Unsupported, str])
def test_a_result_class_the_schema_cannot_describe_is_refused_at_registration(cls: type) -> None:
    with pytest.raises(TypeError):
        output_schema_of(cls)
    with pytest.raises(TypeError):
        Tool("t", "T.", Inner, lambda args, context: "x", output=cls)


@pytest.mark.parametrize("name", BUILTIN)
def test_every_builtin_tool_declares_a_valid_output_schema_INV_TOOL_8(registry: Registry, name: str) -> None:
    """INV-TOOL-8: each built-in tool's ``outputSchema`` is a JSON Schema both drafts accept, an object
    whose fields are all required; the catalogue hands exactly it to the protocol."""
    schema = schema_of_tool(registry, name)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft7Validator.check_schema(schema)
    assert schema["type"] == "object" and schema["required"] == list(schema["properties"])
    assert ("page" in schema["properties"]) is (name not in UNPAGED)
    published = registry.output_schema(name)
    jsonschema.Draft202012Validator.check_schema(published)
    assert published == {
        "type": "object",
        "properties": {key: {"type": _top_type(value)} for key, value in schema["properties"].items()},
        "required": schema["required"],
    }
    [spec] = [spec for spec in catalogue(registry) if spec.name == name]
    assert spec.output_schema == published


def _top_type(schema: dict[str, Any]) -> Any:
    if "anyOf" in schema:
        return [kind for member in schema["anyOf"] for kind in ([member["type"]] if isinstance(member["type"], str) else member["type"])]
    return schema["type"]


def test_a_tool_without_an_output_class_has_no_output_schema() -> None:
    registry = Registry()
    registry.register(Tool("plain", "Plain.", Inner, lambda args, context: "x"))
    assert registry.output_schema("plain") is None
    assert catalogue(registry)[0].output_schema is None


# -- the registry's promise --------------------------------------------------------------------------


def _registry_of(run: Any) -> Registry:
    registry = Registry()
    registry.register(Tool("t", "T.", Inner, run, output=Inner))
    return registry


def test_a_success_carries_its_structured_result_as_json_an_error_none_INV_TOOL_8() -> None:
    """INV-TOOL-8: the registry turns the result instance into the JSON its schema describes; a
    ``ToolError`` (and bad arguments) answer ``isError`` with no structured result."""
    ok = _registry_of(lambda args, context: ToolOutput("text", structured=Inner(args.name, args.count)))
    output = ok.call("t", {"name": "a", "count": 2}, None, workspace=FIXTURE)
    assert output.structured == {"name": "a", "count": 2} and not output.is_error
    bad = ok.call("t", {"name": 3}, None, workspace=FIXTURE)
    assert bad.is_error and bad.structured is None

    def refuse(args: Inner, context: object) -> str:
        raise ToolError("no")

    refused = _registry_of(refuse).call("t", {"name": "a", "count": 1}, None, workspace=FIXTURE)
    assert refused.is_error and refused.structured is None


@pytest.mark.parametrize(
    "answer", [lambda args, context: "markdown alone", lambda args, context: ToolOutput("x", structured=Outer)]
)
def test_a_tool_that_declares_a_result_and_answers_without_it_crashes(answer: Any) -> None:
    """A success without the declared result would break the schema's promise (the SDK clients refuse
    it): it is a crash (``-32603``), never a result the client cannot read."""
    with pytest.raises(TypeError, match="without its structured result"):
        _registry_of(answer).call("t", {"name": "a", "count": 1}, None, workspace=FIXTURE)


# -- the built-in tools on the fixture ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments"), [case for case in CASES if not case[1].get("target", "").startswith("Unknown")],
    ids=[f"{name}-{i}" for i, (name, arguments) in enumerate(CASES)
         if not arguments.get("target", "").startswith("Unknown")],
)  # fmt: skip
def test_as_json_is_what_attrs_asdict_gives_on_every_answer(
    registry: Registry, name: str, arguments: dict[str, Any]
) -> None:
    """``as_json`` (on every successful call's path) builds the very object ``attr.asdict`` does,
    containers' types included, on every kind of answer of the fixture."""
    tool = next(tool for tool in registry if tool.name == name)
    args, meta = parse_args(tool.args, arguments)
    output = tool.run(args, CallContext(FIXTURE, meta))
    assert isinstance(output, ToolOutput) and attrs.has(type(output.structured)), output
    expected = attr.asdict(output.structured, retain_collection_types=False)
    assert as_json(output.structured) == expected
    assert orjson.dumps(as_json(output.structured), option=orjson.OPT_SORT_KEYS) == orjson.dumps(
        expected, option=orjson.OPT_SORT_KEYS
    )


def test_as_json_turns_every_container_as_attrs_asdict_does() -> None:
    @attrs.frozen
    class Leaf:
        name: str
        tags: frozenset[str]

    @attrs.frozen
    class Tree:
        leaves: tuple[Leaf, ...]
        by_name: dict[str, Any]
        numbers: list[int]
        nothing: None = None

    value = Tree(
        (Leaf("a", frozenset({"x"})), Leaf("b", frozenset())),
        {"a": (1, [Leaf("c", frozenset({"y"}))]), "b": {"nested": (True, 1.5)}},
        [1, 2],
    )
    expected = attr.asdict(value, retain_collection_types=False)
    assert as_json(value) == expected
    assert expected["by_name"]["a"] == [1, [{"name": "c", "tags": ["y"]}]]
    with pytest.raises(TypeError):
        as_json({"not": "attrs"})


def _call(registry: Registry, name: str, arguments: Mapping[str, Any]) -> ToolOutput:
    return registry.call(name, dict(arguments), None, workspace=FIXTURE)


@pytest.mark.parametrize(("name", "arguments"), CASES, ids=[f"{name}-{i}" for i, (name, _) in enumerate(CASES)])
def test_every_answer_validates_and_holds_the_facts_of_its_markdown_INV_TOOL_8(
    registry: Registry, name: str, arguments: dict[str, Any]
) -> None:
    """INV-TOOL-8: on every kind of answer of the fixture, the structured result validates against the
    tool's schema, stays bounded, and holds what the Markdown shows: the same page (each item shown,
    the counts), the same footer (written from the same facts) and the same follow-up calls."""
    output = _call(registry, name, arguments)
    if name == "grpc_trace" and arguments["target"].startswith("Unknown"):
        assert output.is_error and output.structured is None
        return
    assert not output.is_error, output.text
    result = output.structured
    assert isinstance(result, dict)
    validate(schema_of_tool(registry, name), result)
    validate(registry.output_schema(name), result)
    assert len(orjson.dumps(result)) <= STRUCTURED_BYTES_MAX
    if name not in UNPAGED:
        _same_page(name, result, output.text)
    FACTS[name](result, output.text)


def _same_page(name: str, result: dict[str, Any], text: str) -> None:
    page = result["page"]
    assert 0 <= page["shown"] <= page["total"] or page["total"] == 0
    assert (page["next_cursor"] is None) == (page["next"] is None)
    if page["next"] is not None:
        assert page["next"]["tool"] == name and page["next"]["arguments"]["cursor"] == page["next_cursor"]
        assert call_text(name, page["next"]["arguments"]) in text
    if page["narrow"] is not None:
        assert call_text(name, page["narrow"]["arguments"]) in text
    if name != "doc_sections":  # its footer names the busiest sections, in its own words
        footer = footer_of(_page(page))
        assert (footer != "") == page["partial"]
        assert text.endswith(footer)


def _page(page: dict[str, Any]) -> Any:
    from mesh.render._paging import FollowUp, Page, ScopeCount

    def follow(value: dict[str, Any] | None) -> FollowUp | None:
        return None if value is None else FollowUp(value["tool"], value["arguments"])

    return Page(
        **{**page, "busiest": [ScopeCount(**item) for item in page["busiest"]]}
        | {"narrow": follow(page["narrow"]), "next": follow(page["next"])}
    )


def _search_facts(result: dict[str, Any], text: str) -> None:
    assert f": {result['total']}{'+' if result['capped'] else ''} {result['noun']} in {result['files']} file" in text
    assert len(result["matches"]) == result["page"]["shown"]
    for match in result["matches"]:
        assert code(match["path"]) in text
        in_context = [block for block in result["context"] if match["line"] in block["matched"]]
        if in_context:  # with context, the line is written as grep -n -C writes it
            assert f"\n{match['line']}: " in text and match["text"] in text
            continue
        assert f"- {match['line']}: " in text
        if result["noun"] == "matches" and match["text"]:
            assert code(match["text"]) in text
    for group in result["not_searched"]["left_out"]:
        assert group["reason"] != "secrets" or not group["examples"]  # never named


def _dependents_facts(result: dict[str, Any], text: str) -> None:
    assert f"## Dependents of {code(result['target']['name'])}" in text
    assert len(result["dependents"]) == result["page"]["shown"]
    assert sum(service["total"] for service in result["services"]) == result["total"]
    assert sum(level["count"] for level in result["levels"]) == result["total"]
    for dependent in result["dependents"]:
        assert code(f"{dependent['path']}:{dependent['edge']['line']}") in text


def _grpc_facts(result: dict[str, Any], text: str) -> None:
    assert text.startswith(f"## {code(result['key'])}")
    assert len(result["sites"]) == result["page"]["shown"]
    for shown in result["sites"]:
        assert code(f"{shown['site']['path']}:{shown['site']['line']}") in text
    if result["page"]["first"] == 0:
        for gap in result["gaps"]:
            assert f"**{gap['kind']}**: {gap['text']}" in text
        for copy in result["copies"]:
            assert code(f"{copy['path']}:{copy['line']}") in text
    if result["kind"] == "method":
        assert code(result["signature"]) in text
        assert [message["role"] for message in result["messages"]] == ["request", "response"]


def _endpoint_facts(result: dict[str, Any], text: str) -> None:
    assert code(result["target"]) in text.splitlines()[0]
    assert result["summary"] in text
    assert len(result["sites"]) == result["page"]["shown"]
    for site in result["sites"]:
        fact = site[site["kind"]]
        assert code(f"{fact['file']}:{fact['line']}") in text
    for gap in result["gaps"]:
        assert f"- {gap}" in text
    for edge in result["edges"]:
        assert f'"{edge["source"]}"' in text and f'"{edge["target"]}"' in text


def _impact_facts(result: dict[str, Any], text: str) -> None:
    verdict = result["verdict"]
    line = f"{verdict['impacted']} service{'' if verdict['impacted'] == 1 else 's'} impacted, {verdict['via_grpc']} via gRPC"
    assert line in text
    assert len(verdict["services"]) == verdict["impacted"]
    assert result["services"] == [row["service"] for row in result["rows"] if row["service"]]
    assert set(verdict["services"]) <= set(result["services"])
    for row in result["rows"]:
        assert (code(row["service"]) if row["service"] else "(no service: areas and root files)") in text
    for dependent in result["dependents"]:
        assert code(f"{dependent['path']}:{dependent['edge']['line']}") in text


def _docs_facts(result: dict[str, Any], text: str) -> None:
    for file in result["files"]:
        assert code(file["path"]) in text
        for row in file["sections"]:
            assert f"{row['title']} — {code(row['id'])} (lines {row['line']}-{row['end_line']}" in text
    for candidate in result["matches"]:
        assert code(candidate["section"]["id"]) in text
    section = result["section"]
    if result["kind"] == "section":
        assert section is not None
        assert code(section["section"]["id"]) in text
        for line in section["text"].splitlines():
            assert line in text
        for sub in section["subsections"]:
            assert code(sub["id"]) in text
    else:
        assert section is None


def _outline_facts(result: dict[str, Any], text: str) -> None:
    assert code(result["path"] or ".") in text.splitlines()[0]
    for definition in result["definitions"]:
        assert code(definition["qualified"]) in text
        if definition["signature"] and definition["signature"] != f"{definition['kind']} {definition['name']}":
            assert code(definition["signature"]) in text
    for item in result["imports"]:
        assert f"- line {item['line']}: {code(item['module'])}" in text
    for row in result["files"]:
        assert code(row["path"]) in text


def _symbol_facts(result: dict[str, Any], text: str) -> None:
    definition = result["definition"]
    assert text.startswith(f"## {definition['kind']} {code(definition['qualified'])}")
    for line in result["source"].splitlines():
        assert line in text
    for site in result["references"]:
        assert code(f"{site['path']}:{site['line']}") in text
    assert f"{result['references_resolved']} resolved" in text
    for other in result["others"]:
        assert code(f"{other['path']}:{other['line']}") in text or code(f"{other['path']}:{other['line']}-{other['end_line']}") in text


def _references_facts(result: dict[str, Any], text: str) -> None:
    assert f"{result['resolved']} resolved" in text
    assert len(result["references"]) == result["page"]["shown"]
    for site in result["references"]:
        line = next(line for line in text.splitlines() if line.startswith(f"- {code(site['path'] + ':' + str(site['line']))}"))
        assert ("(by name)" in line) is (not site["resolved"])


def _files_facts(result: dict[str, Any], text: str) -> None:
    assert len(result["files"]) == result["page"]["shown"]
    for row in result["files"]:
        assert code(row["path"]) in text
        if row["skipped"]:
            assert row["skipped"] in text


FACTS = {
    "outline": _outline_facts,
    "symbol": _symbol_facts,
    "references": _references_facts,
    "files": _files_facts,
    "smart_search": _search_facts,
    "dependents": _dependents_facts,
    "grpc_trace": _grpc_facts,
    "endpoint_trace": _endpoint_facts,
    "impact_matrix": _impact_facts,
    "doc_sections": _docs_facts,
}


def _pages(registry: Registry, name: str, arguments: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every page of an answer, following the structured ``page.next`` calls."""
    while True:
        output = _call(registry, name, arguments)
        assert not output.is_error, output.text
        assert isinstance(output.structured, dict)
        yield output.structured
        following = output.structured["page"]["next"]
        if following is None:
            return
        arguments = following["arguments"]


@pytest.mark.parametrize(
    ("name", "arguments", "items", "key"),
    [
        ("smart_search", {"query": "a"}, "matches", lambda item: (item["path"], item["line"])),
        ("dependents", {"target": "acme.common.v1.Money", "depth": 5}, "dependents", lambda item: item["path"]),
        ("grpc_trace", {"target": "Payments"}, "sites", lambda item: json.dumps(item, sort_keys=True)),
        ("doc_sections", {"section_id": "README.md#acme-shop"}, None, None),
    ],
)
def test_following_the_structured_next_call_shows_every_result_once_INV_TOOL_5(
    registry: Registry, name: str, arguments: dict[str, Any], items: str | None, key: Any
) -> None:
    """INV-TOOL-5, INV-TOOL-8: the next-page call of the structured result is the Markdown's; following
    it shows every result exactly once, and the counts add up to the total."""
    pages = list(_pages(registry, name, arguments))
    total = pages[-1]["page"]["total"]  # the last page has read everything (INV-SEARCH-3, INV-TOOL-11)
    assert not pages[-1]["page"]["capped"]
    assert all(page["page"]["total"] <= total for page in pages)
    assert all(page["page"]["capped"] for page in pages if page["page"]["total"] < total)
    assert sum(page["page"]["shown"] for page in pages) == total
    assert [page["page"]["first"] for page in pages] == [
        sum(page["page"]["shown"] for page in pages[:i]) for i in range(len(pages))
    ]
    if items is not None:
        seen = [key(item) for page in pages for item in page[items]]
        assert len(seen) == total == len(set(seen))


# -- hypothesis: any arguments -----------------------------------------------------------------------

NAMES = st.sampled_from(
    [
        "orders", "gateway", "inventory", "payments", "notifications", "proto", "docs", "README.md",
        "acme.orders.v1.Orders/GetOrder", "Orders", "Payments/Charge", "Inventory", "Health", "Money",
        "acme.common.v1.Money", "proto/acme/common/v1/money.proto", "orders/orders/service.py", "OrderStore",
        "GET /orders/{id}", "/orders", "orders.placed", "gateway/src", "*.go", "docs/runbook.md",
    ]
)  # fmt: skip
TEXT = st.one_of(NAMES, st.text(min_size=1, max_size=24))
MAYBE_TEXT = st.one_of(st.none(), TEXT)
CURSOR = st.one_of(st.none(), st.sampled_from(["0", "1", "3", "8", "40", "x", "file:1", "section:2", "line:3"]))
ARGUMENTS = {
    "smart_search": st.fixed_dictionaries(
        {"query": st.one_of(st.sampled_from(["Reserve", "order", "/Get.*Order/", "def ", "a"]), TEXT)},
        optional={
            "mode": st.sampled_from(["auto", "literal", "regex", "symbol"]),
            "scope": MAYBE_TEXT,
            "kind": st.sampled_from(["code", "test", "docs", "proto", "config"]),
            "case_sensitive": st.booleans(),
            "cursor": CURSOR,
        },
    ),
    "dependents": st.fixed_dictionaries(
        {"target": TEXT}, optional={"depth": st.integers(1, 5), "scope": MAYBE_TEXT, "cursor": CURSOR}
    ),
    "grpc_trace": st.fixed_dictionaries({"target": TEXT}, optional={"scope": MAYBE_TEXT, "cursor": CURSOR}),
    "endpoint_trace": st.fixed_dictionaries({"target": TEXT}, optional={"cursor": CURSOR}),
    "impact_matrix": st.fixed_dictionaries(
        {"changes": st.lists(TEXT, min_size=1, max_size=3)},
        optional={"depth": st.integers(1, 5), "scope": MAYBE_TEXT, "cursor": CURSOR},
    ),
    "doc_sections": st.fixed_dictionaries(
        {},
        optional={
            "path": st.one_of(st.sampled_from(["", "docs", "README.md", "docs/runbook.md"]), TEXT),
            "heading": st.one_of(st.sampled_from(["runbook", "deploy", "Orders", "setup"]), TEXT),
            "section_id": st.one_of(st.sampled_from(["README.md#acme-shop", "acme-shop"]), TEXT),
            "depth": st.integers(1, 6),
            "cursor": CURSOR,
        },
    ),
    "outline": st.fixed_dictionaries(
        {"path": st.one_of(st.sampled_from(["orders", "orders/orders/store.py", "gateway/src/orders.ts", "."]), TEXT)},
        optional={"depth": st.integers(1, 6), "cursor": CURSOR},
    ),
    "symbol": st.fixed_dictionaries(
        {"name": st.one_of(st.sampled_from(["OrderStore.put", "Store.Reserve", "orders/orders/store.py:30"]), TEXT)},
        optional={"lines": st.integers(1, 400)},
    ),
    "references": st.fixed_dictionaries(
        {"name": st.one_of(st.sampled_from(["OrderStore", "put", "OrdersBackend", "reserve_items"]), TEXT)},
        optional={"scope": MAYBE_TEXT, "by_name": st.booleans(), "cursor": CURSOR},
    ),
    "files": st.fixed_dictionaries(
        {"pattern": st.one_of(st.sampled_from(["**", "*.go", "**/*.proto", "ord", "[a-c]*"]), TEXT)},
        optional={"scope": MAYBE_TEXT, "cursor": CURSOR},
    ),
}


@pytest.mark.parametrize("name", BUILTIN)
def test_any_arguments_give_a_valid_result_or_an_error_without_one_INV_TOOL_8(registry: Registry, name: str) -> None:
    """INV-TOOL-8: whatever the arguments, an answer is an error with no structured result, or a
    success whose structured result validates against the schema and holds its Markdown's page."""
    schema = schema_of_tool(registry, name)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
    @given(arguments=ARGUMENTS[name])
    def check(arguments: dict[str, Any]) -> None:
        output = _call(registry, name, arguments)
        if output.is_error:
            assert output.structured is None
            return
        assert isinstance(output.structured, dict)
        validate(schema, output.structured)
        assert len(orjson.dumps(output.structured)) <= STRUCTURED_BYTES_MAX
        if name not in UNPAGED:
            _same_page(name, output.structured, output.text)

    check()


# -- eras: through the real session --------------------------------------------------------------------

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
STATELESS_VERSION = "2026-07-28"


def _frame(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _serve(registry: Registry, frames: list[bytes]) -> dict[Any, dict[str, Any]]:
    """Run a session over ``frames`` (the tools run in this thread), then EOF; answers by id."""
    session = ServerSession(SessionConfig(), catalogue(registry))
    session.receive_data(b"".join(frames))
    session.receive_eof()
    while True:
        event = session.next_event()
        if isinstance(event, ToolCallRequested):
            session.complete(event.request_id, run_tool(registry, event, FIXTURE, threading.Event()))
        elif isinstance(event, SessionClosed) or event in (Wait.NEED_DATA, Wait.PAUSED):
            break
    answers = [json.loads(line) for line in session.data_to_send().splitlines()]
    return {answer["id"]: answer for answer in answers if "id" in answer}


def _era_frames(version: str, calls: list[tuple[str, dict[str, Any]]]) -> list[bytes]:
    if version == STATELESS_VERSION:
        meta = {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
        }
        frames = [_frame({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}})]
        for number, (name, arguments) in enumerate(calls, 2):
            params = {"name": name, "arguments": arguments, "_meta": meta}
            frames.append(_frame({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}))
        return frames
    init = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    frames = [
        _frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}),
        _frame({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        _frame({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ]
    for number, (name, arguments) in enumerate(calls, 2):
        frames.append(
            _frame(
                {
                    "jsonrpc": "2.0",
                    "id": number,
                    "method": "tools/call",
                    "params": {"name": name, "arguments": arguments},
                }
            )
        )
    return frames


#: One successful call per tool, and one error.
ERA_CALLS = [
    ("smart_search", {"query": "Reserve"}),
    ("dependents", {"target": "proto/acme/common/v1/money.proto"}),
    ("grpc_trace", {"target": "acme.orders.v1.Orders/GetOrder"}),
    ("endpoint_trace", {"target": "orders.placed"}),
    ("impact_matrix", {"changes": ["proto/acme/orders/v1/orders.proto"]}),
    ("doc_sections", {"heading": "runbook"}),
    ("symbol", {"name": "OrderStore.put"}),
    ("references", {"name": "OrderStore"}),
    ("grpc_trace", {"target": "Nothing.v1.Here/Not"}),
]


@pytest.mark.parametrize("version", [*HANDSHAKE_VERSIONS, STATELESS_VERSION])
def test_structured_results_reach_clients_of_2025_06_18_and_later_only_INV_TOOL_9(
    registry: Registry, version: str
) -> None:
    """INV-TOOL-9: through the real session, ``tools/list`` shows each built-in tool's ``outputSchema``
    and each successful ``tools/call`` carries ``structuredContent`` valid against it from 2025-06-18
    on (the stateless 2026-07-28 revision too); 2024-11-05 and 2025-03-26 get neither, the Markdown
    alone, the same text in every era; an error carries no ``structuredContent`` in any era."""
    answers = _serve(registry, _era_frames(version, ERA_CALLS))
    modern = version not in ("2024-11-05", "2025-03-26")
    listed = {tool["name"]: tool for tool in answers[1]["result"]["tools"]}
    assert list(listed) == list(BUILTIN)
    for name, tool in listed.items():
        assert ("outputSchema" in tool) is modern
        if modern:
            assert tool["outputSchema"] == registry.output_schema(name)
    for number, (name, arguments) in enumerate(ERA_CALLS, 2):
        result = answers[number]["result"]
        direct = _call(registry, name, arguments)
        assert result["content"] == [{"type": "text", "text": direct.text}]
        assert result["isError"] is direct.is_error
        if direct.is_error or not modern:
            assert "structuredContent" not in result
        else:
            assert result["structuredContent"] == direct.structured
            validate(listed[name]["outputSchema"], result["structuredContent"])


# -- mesh-mcp call --json ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cli_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the ``call`` tests: the first indexes the fixture, the others find it fresh."""
    return tmp_path_factory.mktemp("call-cache")


def test_call_json_prints_the_structured_result_as_one_canonical_document_INV_TOOL_10(
    monkeypatch: pytest.MonkeyPatch, cli_cache: Path, registry: Registry
) -> None:
    """INV-TOOL-10: ``--json`` prints exactly the structured result a client gets, as one canonical
    JSON document (sorted keys, compact, a newline), and exits 0 as ``call`` does."""
    monkeypatch.setenv("MESH_CACHE_DIR", str(cli_cache))
    arguments = {"changes": ["proto/acme/orders/v1/orders.proto"]}
    status, out, err = _cli("impact_matrix", json.dumps(arguments), json_output=True)
    assert status == 0, err
    assert out.endswith("\n") and out.count("\n") == 1
    document = json.loads(out)
    # the very snapshot the command answered from (an index built apart may differ on a loaded machine)
    from mesh.workspace import cache_dir

    index = Index(FIXTURE, cache_dir(FIXTURE))
    try:
        same = builtin_registry(StaticIndex(index)).call("impact_matrix", dict(arguments), None, workspace=FIXTURE)
    finally:
        index.close()
    assert document == same.structured, err
    assert out == json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
    validate(schema_of_tool(registry, "impact_matrix"), document)
    status, markdown, _ = _cli("impact_matrix", json.dumps(arguments))
    assert status == 0 and markdown.startswith("## Impact of")


def test_call_json_on_an_error_prints_nothing_and_exits_1(monkeypatch: pytest.MonkeyPatch, cli_cache: Path) -> None:
    monkeypatch.setenv("MESH_CACHE_DIR", str(cli_cache))
    status, out, err = _cli("grpc_trace", '{"target": "Nothing.v1.Here/Not"}', json_output=True)
    assert (status, out) == (1, "")
    assert "grpc_trace answered an error" in err


def test_call_json_of_a_tool_without_a_structured_result_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, cli_cache: Path
) -> None:
    monkeypatch.setenv("MESH_CACHE_DIR", str(cli_cache))

    def with_plain(source: Any) -> Registry:
        registry = builtin_registry(source)
        registry.register(Tool("plain", "Plain.", Inner, lambda args, context: "markdown"))
        return registry

    stdout, stderr = io.StringIO(), io.StringIO()
    status = run_call(
        "plain", '{"name": "a", "count": 1}', FIXTURE, registry_for=with_plain, stdout=stdout, stderr=stderr,
        json_output=True,
    )  # fmt: skip
    assert (status, stdout.getvalue()) == (2, "")
    assert "no structured result" in stderr.getvalue()


def _cli(tool: str, arguments: str, **options: Any) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    status = run_call(
        tool,
        arguments,
        FIXTURE,
        registry_for=builtin_registry,
        stdout=stdout,
        stderr=stderr,
        **options,
    )
    return status, stdout.getvalue(), stderr.getvalue()


def test_canonical_json_writes_controls_inert_and_reads_back_the_same_value_INV_TOOL_10() -> None:
    """INV-TOOL-10, INV-TOOL-7: no control character an argument carries reaches the terminal raw (C0
    are escaped by JSON, DEL, C1 and bidi controls by us), and the document decodes to the very value."""
    value = {"b": "\x1b[31m\u202e\x7f\x85\u2066", "a": [1, "é"]}
    text = canonical_json(value)
    assert text == '{"a":[1,"é"],"b":"\\u001b[31m\\u202e\\u007f\\u0085\\u2066"}\n'
    assert json.loads(text) == value
    assert not re.search("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text[:-1])
