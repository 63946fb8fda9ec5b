"""What the parsers extract from one file: plain frozen values, picklable across the process pool.

Every extractor returns a :class:`FileFacts`; nothing here knows about SQLite or services. Lines are
1-based and inclusive. Lists are in source order (the order the extractor met them), so the same
bytes always give the same facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

import attrs

__all__ = [
    "Definition",
    "Dependency",
    "FileFacts",
    "GrpcFact",
    "GrpcRole",
    "Import",
    "ProtoField",
    "ProtoFile",
    "ProtoMessage",
    "ProtoMethod",
    "ProtoService",
    "Section",
    "WELL_KNOWN_SERVICES",
    "method_spelling",
    "method_variants",
    "well_known_methods",
    "well_known_package",
]


@attrs.frozen
class Definition:
    """A function, method, class, struct, interface, enum, trait, module or type alias."""

    name: str
    #: One of: function, method, class, struct, interface, enum, trait, module, type, constant;
    #: for .proto files: message, enum, service, method (an rpc, its container the service).
    kind: str
    #: Dotted path of the enclosing definitions ("" at top level), e.g. ``Outer.Inner`` for a method
    #: of a nested class; for a Go method, the receiver type.
    container: str
    line: int
    end_line: int


@attrs.frozen
class Import:
    """An import/use/require/include, with the module path exactly as written in the source."""

    module: str
    line: int
    #: Names imported from the module when the syntax lists them (``from m import a, b``).
    names: tuple[str, ...] = ()


class GrpcRole:
    """The kinds of gRPC evidence (plain strings so facts stay trivially picklable)."""

    #: A server registration or an implementing type/class (service level; ``method`` is "").
    SERVER = "server"
    #: A method implemented by a server (``method`` as the code spells it).
    HANDLER = "handler"
    #: A client stub created (service level; ``method`` is "").
    CLIENT = "client"
    #: A method called on a client stub (``method`` as the code spells it).
    CALL = "call"


@attrs.frozen
class GrpcFact:
    role: str
    #: The service name as the generated code spells it, with generated prefixes/suffixes removed
    #: (``RegisterOrdersServer`` -> ``Orders``, ``OrdersServicer`` -> ``Orders``).
    service: str
    #: The method as the code spells it (``GetOrder``, ``getOrder``, ``get_order``); "" for SERVER
    #: and CLIENT facts.
    method: str
    line: int
    #: Dotted name of the enclosing definition ("" at module level), e.g. ``OrdersClient.fetch``.
    symbol: str = ""
    #: Generated-code namespace as written when visible (``orders_pb2_grpc``, ``pb``,
    #: ``com.acme.orders``): a hint to tell apart same-named services of different proto packages.
    namespace: str = ""


@attrs.frozen
class ProtoField:
    name: str
    type: str
    number: int
    #: "" | "repeated" | "optional" | "required" (proto2) | "map" (``type`` is then ``map<K,V>``).
    label: str
    line: int


@attrs.frozen
class ProtoMessage:
    #: Dotted within the file (``Order.Item`` for a nested message); enums are messages of kind "enum".
    name: str
    kind: str
    fields: tuple[ProtoField, ...]
    line: int
    end_line: int


@attrs.frozen
class ProtoMethod:
    name: str
    request: str
    response: str
    client_streaming: bool
    server_streaming: bool
    line: int


@attrs.frozen
class ProtoService:
    name: str
    methods: tuple[ProtoMethod, ...]
    line: int
    end_line: int


@attrs.frozen
class ProtoFile:
    package: str
    imports: tuple[str, ...]
    services: tuple[ProtoService, ...]
    messages: tuple[ProtoMessage, ...]
    #: Problems met while parsing (a broken proto still yields what could be read).
    errors: tuple[str, ...] = ()
    #: File-level options with a plain value, in source order, the first of a name kept:
    #: ``(("go_package", "example.com/x/v1;xv1"), ("java_multiple_files", "true"))``; a string
    #: unquoted, an identifier or number as written. Custom ``(ext).options`` are not kept.
    options: tuple[tuple[str, str], ...] = ()


@attrs.frozen
class Section:
    """A Markdown heading and the lines it covers (up to the next heading of the same or a higher level)."""

    #: Stable id: the slugs of the heading path joined by ``/`` (``install/from-source``), with
    #: ``-2``, ``-3``... added to the last slug when siblings repeat a title.
    section_id: str
    title: str
    level: int
    #: ``section_id`` of the enclosing section, "" for a top-level one.
    parent_id: str
    line: int
    end_line: int


@attrs.frozen
class Dependency:
    """A dependency declared in a build manifest."""

    name: str
    #: As written ("" when none); ``ecosystem`` is go, npm, pypi, maven, gradle, nuget, cargo,
    #: rubygems or composer.
    version: str
    ecosystem: str
    line: int
    #: "" for a normal dependency, else the manifest's own word: dev, test, build, optional...
    scope: str = ""


@attrs.frozen
class FileFacts:
    language: str
    definitions: tuple[Definition, ...] = ()
    imports: tuple[Import, ...] = ()
    grpc: tuple[GrpcFact, ...] = ()
    proto: ProtoFile | None = None
    sections: tuple[Section, ...] = ()
    dependencies: tuple[Dependency, ...] = ()
    #: Why the file could not be (fully) parsed; facts found before the problem are kept.
    error: str = ""


def method_spelling(name: str) -> str:
    """The spelling used to compare method names across languages: no case, no underscores."""
    return name.replace("_", "").lower()


def method_variants(name: str) -> Iterator[str]:
    """Every spelling ``name`` may stand for: C# adds ``Async``, C++ stubs ``Async``/``PrepareAsync``."""
    yield method_spelling(name)
    if name.endswith("Async") and len(name) > 5:
        yield method_spelling(name[:-5])
    for prefix in ("PrepareAsync", "Async"):
        if name.startswith(prefix) and len(name) > len(prefix):
            yield method_spelling(name[len(prefix) :])


# -- services every gRPC runtime ships ------------------------------------------------------------

#: The standard services a server registers from its gRPC library (their ``.proto`` ships with the
#: runtime and is rarely in a workspace): package -> service, with each method's signature.
WELL_KNOWN_SERVICES: Final = {
    "grpc.health.v1": ProtoService(
        "Health",
        (
            ProtoMethod("Check", "HealthCheckRequest", "HealthCheckResponse", False, False, 0),
            ProtoMethod("Watch", "HealthCheckRequest", "HealthCheckResponse", False, True, 0),
            ProtoMethod("List", "HealthListRequest", "HealthListResponse", False, False, 0),
        ),
        0,
        0,
    ),
    "grpc.reflection.v1alpha": ProtoService(
        "ServerReflection",
        (ProtoMethod("ServerReflectionInfo", "ServerReflectionRequest", "ServerReflectionResponse", True, True, 0),),
        0,
        0,
    ),
    "grpc.reflection.v1": ProtoService(
        "ServerReflection",
        (ProtoMethod("ServerReflectionInfo", "ServerReflectionRequest", "ServerReflectionResponse", True, True, 0),),
        0,
        0,
    ),
}

_V1: Final = re.compile(r"(?i)(?:^|[^a-z0-9])v1(?![a-z0-9])|_v1$")


def well_known_package(service: str, namespace: str = "") -> str | None:
    """The package of the standard service named ``service`` (None: not one).

    Reflection has two packages: ``v1`` when the namespace says so (``grpc_reflection_v1``,
    ``Grpc.Reflection.V1``), else ``v1alpha``, the one every runtime registers.
    """
    if service == "Health":
        return "grpc.health.v1"
    if service == "ServerReflection":
        return "grpc.reflection.v1" if _V1.search(namespace) else "grpc.reflection.v1alpha"
    return None


def well_known_methods(service: str) -> frozenset[str]:
    """The method spellings (:func:`method_spelling`) of the standard service named ``service``."""
    package = well_known_package(service)
    if package is None:
        return frozenset()
    return frozenset(method_spelling(method.name) for method in WELL_KNOWN_SERVICES[package].methods)
