"""Tool arguments: attrs classes are the single source of both validation and JSON Schema.

A tool declares its arguments once, as a frozen attrs class whose fields carry their types, their
defaults and (in ``metadata``) a description and optional bounds::

    @attrs.frozen(kw_only=True)
    class Args:
        query: str = attrs.field(metadata=describe("What to look for", min_length=1))
        depth: int = attrs.field(default=1, metadata=describe("How far", minimum=1, maximum=5))
        mode: Literal["auto", "regex"] = "auto"

:func:`schema_of` derives the ``inputSchema`` shown by ``tools/list``; :func:`parse_args` turns a
call's ``arguments`` into an instance, rejecting unknown fields, wrong types and out-of-range
values with a message an agent can act on. Supported field types: ``str``, ``int``, ``float``,
``bool``, ``list[str]``, ``Literal[...]`` of strings, and ``T | None`` of any of these.

A tool's result is declared the same way: a frozen attrs class (fields of the types above, ``list[T]``
or ``tuple[T, ...]`` of any of them, nested attrs classes, ``dict[str, Any]`` for a free object);
:func:`output_schema_of` derives the ``outputSchema`` and :func:`as_json` turns an instance into the
``structuredContent`` that schema describes.

Every call may also carry ``_meta`` (``traceparent``, ``tracestate``), in ``params._meta`` as MCP
puts it or inside ``arguments``; it is parsed into :class:`Meta`, never into the tool's fields.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, Final, Literal

import attrs

from ._trace import trace_id_of

__all__ = ["ArgumentError", "Meta", "as_json", "describe", "output_schema_of", "parse_args", "schema_of"]

_META_KEY: Final = "_meta"


class ArgumentError(ValueError):
    """Arguments that do not fit the tool's ``Args``; the message says what to send instead."""


@attrs.frozen
class Meta:
    """The call's ``_meta``: W3C trace context, if the client sent one."""

    traceparent: str | None = None
    tracestate: str | None = None

    @property
    def trace_id(self) -> str | None:
        """32 lowercase hex chars from a valid ``traceparent``, else ``None``."""
        return trace_id_of(self.traceparent)

    @classmethod
    def from_json(cls, value: object) -> Meta:
        if not isinstance(value, Mapping):
            return cls()
        traceparent = value.get("traceparent")
        tracestate = value.get("tracestate")
        return cls(
            traceparent=traceparent if isinstance(traceparent, str) else None,
            tracestate=tracestate if isinstance(tracestate, str) else None,
        )


def describe(
    description: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
) -> dict[str, Any]:
    """Field metadata: a description and optional bounds (enforced and shown in the schema)."""
    bounds = {"minimum": minimum, "maximum": maximum, "minLength": min_length, "maxLength": max_length}
    return {"description": description, **{key: value for key, value in bounds.items() if value is not None}}


@attrs.frozen
class _Field:
    name: str
    kind: type | tuple[str, ...]  # a scalar type, ``list``, or the choices of a Literal
    optional: bool
    required: bool
    metadata: Mapping[str, Any]


@functools.cache
def _fields_of(cls: type) -> tuple[_Field, ...]:
    if not attrs.has(cls):
        raise TypeError(f"{cls.__name__} is not an attrs class")
    attrs.resolve_types(cls)
    fields = []
    for field in attrs.fields(cls):
        kind, optional = _classify(cls, field.name, field.type)
        fields.append(
            _Field(
                name=field.name,
                kind=kind,
                optional=optional,
                required=field.default is attrs.NOTHING,
                metadata=field.metadata,
            )
        )
    return tuple(fields)


def _classify(cls: type, name: str, annotation: Any) -> tuple[type | tuple[str, ...], bool]:
    optional = False
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        members = [member for member in typing.get_args(annotation) if member is not type(None)]
        if len(members) != 1:
            raise TypeError(f"{cls.__name__}.{name}: only `T | None` unions are supported")
        annotation, optional = members[0], True
    if annotation in (str, int, float, bool):
        return annotation, optional
    if typing.get_origin(annotation) is list and typing.get_args(annotation) == (str,):
        return list, optional
    if typing.get_origin(annotation) is Literal:
        choices = typing.get_args(annotation)
        if all(isinstance(choice, str) for choice in choices):
            return tuple(choices), optional
    raise TypeError(f"{cls.__name__}.{name}: unsupported argument type {annotation!r}")


_JSON_TYPES: Final = {str: "string", int: "integer", float: "number", bool: "boolean"}
_ARRAY_BOUNDS: Final = {"minLength": "minItems", "maxLength": "maxItems"}


def schema_of(cls: type) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12 subset) of an ``Args`` class, for ``tools/list``."""
    properties: dict[str, Any] = {}
    required = []
    for field in _fields_of(cls):
        schema: dict[str, Any] = {}
        if isinstance(field.kind, tuple):
            schema = {"type": "string", "enum": list(field.kind)}
        elif field.kind is list:
            schema = {"type": "array", "items": {"type": "string"}}
        else:
            schema = {"type": _JSON_TYPES[field.kind]}
        for key, value in field.metadata.items():
            if field.kind is list and key in _ARRAY_BOUNDS:
                key = _ARRAY_BOUNDS[key]
            schema[key] = value
        properties[field.name] = schema
        if field.required:
            required.append(field.name)
    result: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        result["required"] = required
    return result


def parse_args(
    cls: type, arguments: Mapping[str, Any], params_meta: Mapping[str, Any] | None = None
) -> tuple[Any, Meta]:
    """Build ``cls`` from a call's ``arguments``; also return the call's :class:`Meta`.

    Raises :class:`ArgumentError` naming every problem found, with the tool's accepted fields.
    """
    fields = _fields_of(cls)
    by_name = {field.name: field for field in fields}
    problems: list[str] = []
    values: dict[str, Any] = {}
    meta_source: object = params_meta
    for key, value in arguments.items():
        if key == _META_KEY:
            if not params_meta:
                meta_source = value
            continue
        field = by_name.get(key)
        if field is None:
            problems.append(f"unknown argument {key!r}")
            continue
        problem = _check(field, value)
        if problem:
            problems.append(f"argument {key!r} {problem}")
        else:
            values[key] = value
    for field in fields:
        if field.required and field.name not in arguments:
            problems.append(f"missing required argument {field.name!r}")
    if problems:
        accepted = ", ".join(_signature(field) for field in fields) or "no arguments"
        raise ArgumentError("; ".join(problems) + f". This tool takes: {accepted}.")
    return cls(**values), Meta.from_json(meta_source)


def _check(field: _Field, value: Any) -> str | None:
    if value is None:
        return None if field.optional else "must not be null"
    kind = field.kind
    if isinstance(kind, tuple):
        if value not in kind:
            return f"must be one of {', '.join(map(repr, kind))}, not {_show(value)}"
        return None
    if kind is list:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            return f"must be a list of strings, not {_show(value)}"
        return _check_length(field, len(value), "items")
    if kind is bool:
        return None if isinstance(value, bool) else f"must be true or false, not {_show(value)}"
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be an integer, not {_show(value)}"
        return _check_range(field, value)
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"must be a number, not {_show(value)}"
        return _check_range(field, value)
    if not isinstance(value, str):
        return f"must be a string, not {_show(value)}"
    return _check_length(field, len(value), "characters")


def _check_range(field: _Field, value: float) -> str | None:
    low, high = field.metadata.get("minimum"), field.metadata.get("maximum")
    if (low is not None and value < low) or (high is not None and value > high):
        shown_low = "-inf" if low is None else low
        shown_high = "inf" if high is None else high
        return f"must be from {shown_low} to {shown_high}, not {value}"
    return None


def _check_length(field: _Field, length: int, unit: str) -> str | None:
    low, high = field.metadata.get("minLength"), field.metadata.get("maxLength")
    if low is not None and length < low:
        return f"needs at least {low} {unit}"
    if high is not None and length > high:
        return f"takes at most {high} {unit}, got {length}"
    return None


def _signature(field: _Field) -> str:
    if isinstance(field.kind, tuple):
        kind = "|".join(field.kind)
    elif field.kind is list:
        kind = "list of strings"
    else:
        kind = _JSON_TYPES[field.kind]
    return f"{field.name} ({kind}{'' if field.required else ', optional'})"


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# -- results ---------------------------------------------------------------------------------------


def output_schema_of(cls: type) -> dict[str, Any]:
    """The JSON Schema of a result class, for ``tools/list``'s ``outputSchema``.

    Every field is required (``as_json`` writes them all; ``T | None`` admits ``null``), nothing else
    is allowed, nested classes are written inline (no ``$ref``: any validator of draft 7 or later reads
    it the same). ``TypeError`` for a type it cannot describe, or a class that contains itself.
    """
    return _object_schema(cls, ())


def published_output_schema(cls: type) -> dict[str, Any]:
    """The ``outputSchema`` ``tools/list`` carries: :func:`output_schema_of` cut to its top level.

    Each field keeps its JSON type (and ``null`` when it admits it), every field stays required and
    nothing else allowed; what nested objects and arrays hold is left out. A client validating a
    result against it checks the shape an agent or a script reads first, and ``tools/list`` stays
    small (every session pays for it). The whole schema is :func:`output_schema_of`; the tests
    validate every answer against that one (INV-TOOL-8).
    """
    full = output_schema_of(cls)
    return {
        "type": "object",
        "properties": {name: _top_type(schema) for name, schema in full["properties"].items()},
        "required": full["required"],
    }


def _top_type(schema: dict[str, Any]) -> dict[str, Any]:
    if "anyOf" in schema:
        kinds = [kind for member in schema["anyOf"] for kind in _types(member)]
        return {"type": kinds}
    return {"type": schema["type"]}


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type", "object")
    return list(kind) if isinstance(kind, list) else [kind]


def as_json(value: Any) -> dict[str, Any]:
    """A result instance as the JSON object its class's :func:`output_schema_of` describes.

    What ``attr.asdict(value, retain_collection_types=False)`` gives (tuples, lists and sets become
    lists, nested classes objects, dictionaries dictionaries), built on every successful call's path
    a few times faster: each class's field names are looked up once (tests/tools/test_structured_results.py
    compares the two on every kind of answer)."""
    if not attrs.has(type(value)):
        raise TypeError(f"{type(value).__name__} is not an attrs class")
    return _plain(value)


#: Field names of the attrs classes :func:`_plain` has met (a class never changes its fields).
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
#: Values :func:`_plain` returns as they are.
_SCALARS: Final = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    cls = value.__class__
    if cls in _SCALARS:
        return value
    names = _FIELD_NAMES.get(cls)
    if names is None and attrs.has(cls):
        names = _FIELD_NAMES.setdefault(cls, tuple(field.name for field in attrs.fields(cls)))
    if names is not None:
        return {name: _plain(getattr(value, name)) for name in names}
    if isinstance(value, (tuple, list, set, frozenset)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {_plain(key): _plain(item) for key, item in value.items()}
    return value


def _object_schema(cls: type, seen: tuple[type, ...]) -> dict[str, Any]:
    if not attrs.has(cls):
        raise TypeError(f"{cls!r} is not an attrs class")
    if cls in seen:
        raise TypeError(f"{cls.__name__} contains itself: a result schema is written inline")
    attrs.resolve_types(cls)
    properties: dict[str, Any] = {}
    for field in attrs.fields(cls):
        schema = _value_schema(cls, field.name, field.type, (*seen, cls))
        if field.metadata.get("description"):
            schema = {**schema, "description": field.metadata["description"]}
        properties[field.name] = schema
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _value_schema(cls: type, name: str, annotation: Any, seen: tuple[type, ...]) -> dict[str, Any]:
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        members = [member for member in typing.get_args(annotation) if member is not type(None)]
        if len(members) != 1:
            raise TypeError(f"{cls.__name__}.{name}: only `T | None` unions are supported")
        inner = _value_schema(cls, name, members[0], seen)
        if isinstance(inner.get("type"), str) and inner["type"] not in ("object", "array"):
            nullable = {**inner, "type": [inner["type"], "null"]}
            if "enum" in inner:
                nullable["enum"] = [*inner["enum"], None]
            return nullable
        return {"anyOf": [inner, {"type": "null"}]}
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal and all(isinstance(choice, str) for choice in arguments):
        return {"type": "string", "enum": list(arguments)}
    if origin is list and len(arguments) == 1:
        return {"type": "array", "items": _value_schema(cls, name, arguments[0], seen)}
    if origin is tuple and len(arguments) == 2 and arguments[1] is Ellipsis:
        return {"type": "array", "items": _value_schema(cls, name, arguments[0], seen)}
    if origin in (dict, Mapping) and arguments == (str, Any):
        return {"type": "object"}
    if isinstance(annotation, type) and attrs.has(annotation):
        return _object_schema(annotation, seen)
    raise TypeError(f"{cls.__name__}.{name}: unsupported result type {annotation!r}")
