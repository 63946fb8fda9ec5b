"""Argument classes: one declaration gives the schema and the validation."""

from __future__ import annotations

from typing import Literal, Optional

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mesh.tools import ArgumentError, Meta, describe, parse_args, schema_of


@attrs.frozen(kw_only=True)
class SearchArgs:
    query: str = attrs.field(metadata=describe("What to look for", min_length=1, max_length=100))
    mode: Literal["auto", "literal", "regex"] = attrs.field(default="auto", metadata=describe("How to match"))
    depth: int = attrs.field(default=1, metadata=describe("How far", minimum=1, maximum=5))
    scope: str | None = None
    weight: float = 1.0
    case_sensitive: bool = False
    paths: list[str] = attrs.field(factory=list, metadata=describe("Paths", max_length=3))
    legacy: Optional[int] = None  # noqa: UP045 - the older spelling must work too


def test_schema_is_derived_from_the_class_INV_TOOL_1() -> None:
    """INV-TOOL-1."""
    assert schema_of(SearchArgs) == {
        "type": "object",
        "additionalProperties": False,
        "required": ["query"],
        "properties": {
            "query": {"type": "string", "description": "What to look for", "minLength": 1, "maxLength": 100},
            "mode": {"type": "string", "enum": ["auto", "literal", "regex"], "description": "How to match"},
            "depth": {"type": "integer", "description": "How far", "minimum": 1, "maximum": 5},
            "scope": {"type": "string"},
            "weight": {"type": "number"},
            "case_sensitive": {"type": "boolean"},
            "paths": {"type": "array", "items": {"type": "string"}, "description": "Paths", "maxItems": 3},
            "legacy": {"type": "integer"},
        },
    }


def test_valid_arguments_build_the_class() -> None:
    args, meta = parse_args(
        SearchArgs, {"query": "x", "mode": "regex", "depth": 5, "scope": None, "weight": 2, "paths": ["a"]}
    )
    assert args == SearchArgs(query="x", mode="regex", depth=5, weight=2, paths=["a"])
    assert meta == Meta()


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "missing required argument 'query'"),
        ({"query": "x", "colour": 1}, "unknown argument 'colour'"),
        ({"query": 3}, "'query' must be a string, not 3"),
        ({"query": ""}, "'query' needs at least 1 characters"),
        ({"query": "q" * 101}, "'query' takes at most 100 characters"),
        ({"query": "x", "mode": "fuzzy"}, "'mode' must be one of 'auto', 'literal', 'regex'"),
        ({"query": "x", "depth": 0}, "'depth' must be from 1 to 5, not 0"),
        ({"query": "x", "depth": True}, "'depth' must be an integer"),
        ({"query": "x", "depth": 1.5}, "'depth' must be an integer"),
        ({"query": "x", "weight": "heavy"}, "'weight' must be a number"),
        ({"query": "x", "case_sensitive": 1}, "'case_sensitive' must be true or false"),
        ({"query": "x", "paths": "a"}, "'paths' must be a list of strings"),
        ({"query": "x", "paths": ["a", 1]}, "'paths' must be a list of strings"),
        ({"query": "x", "paths": ["a"] * 4}, "'paths' takes at most 3 items"),
        ({"query": None}, "'query' must not be null"),
    ],
)
def test_bad_arguments_say_what_is_wrong_INV_TOOL_1(arguments: dict, fragment: str) -> None:
    """INV-TOOL-1."""
    with pytest.raises(ArgumentError) as caught:
        parse_args(SearchArgs, arguments)
    assert fragment in str(caught.value)
    assert "This tool takes: query (string), mode (auto|literal|regex, optional)" in str(caught.value)


def test_all_problems_are_reported_at_once() -> None:
    with pytest.raises(ArgumentError, match="unknown argument 'a'; unknown argument 'b'; missing required"):
        parse_args(SearchArgs, {"a": 1, "b": 2})


def test_meta_comes_from_params_or_from_arguments() -> None:
    traceparent = "00-" + "1" * 32 + "-" + "2" * 16 + "-01"
    _, meta = parse_args(SearchArgs, {"query": "x"}, {"traceparent": traceparent})
    assert meta.trace_id == "1" * 32
    _, meta = parse_args(SearchArgs, {"query": "x", "_meta": {"traceparent": traceparent}})
    assert meta.trace_id == "1" * 32
    other = "00-" + "3" * 32 + "-" + "2" * 16 + "-01"
    _, meta = parse_args(SearchArgs, {"query": "x", "_meta": {"traceparent": other}}, {"traceparent": traceparent})
    assert meta.trace_id == "1" * 32  # params._meta, where MCP puts it, wins


def test_unsupported_field_types_fail_at_declaration() -> None:
    @attrs.frozen
    class Bad:
        when: dict[str, int]

    with pytest.raises(TypeError, match="unsupported argument type"):
        schema_of(Bad)

    @attrs.frozen
    class Union:
        value: int | str

    with pytest.raises(TypeError, match="only `T | None`"):
        schema_of(Union)

    with pytest.raises(TypeError, match="not an attrs class"):
        schema_of(int)


@given(st.dictionaries(st.text(max_size=10), st.none() | st.integers() | st.text(max_size=5) | st.lists(st.text())))
def test_any_arguments_either_parse_or_raise_argument_error_INV_TOOL_1(arguments: dict) -> None:
    """INV-TOOL-1."""
    try:
        parse_args(SearchArgs, arguments)
    except ArgumentError:
        pass
