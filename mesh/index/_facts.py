"""What the parsers extract from one file: plain frozen values, picklable across the process pool.

Every extractor returns a :class:`FileFacts`; nothing here knows about SQLite or services. Lines are
1-based and inclusive. Lists are in source order (the order the extractor met them), so the same
bytes always give the same facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import ClassVar, Final

import attrs

__all__ = [
    "Constant",
    "Definition",
    "Dependency",
    "FileFacts",
    "GrpcFact",
    "GrpcRole",
    "HttpCall",
    "HttpRoute",
    "Import",
    "MessageFact",
    "MessageRole",
    "Namespace",
    "ProtoField",
    "ProtoFile",
    "ProtoMessage",
    "ProtoMethod",
    "ProtoService",
    "DOC_CHARS_MAX",
    "Reference",
    "ReferenceKind",
    "SIGNATURE_CHARS_MAX",
    "Section",
    "Setting",
    "WELL_KNOWN_SERVICES",
    "method_spelling",
    "path_shape",
    "route_matches",
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
    #: The declaration as written up to its body (``def place(self, order: Order) -> Receipt``),
    #: white space squashed to one space, at most :data:`SIGNATURE_CHARS_MAX` characters. It and
    #: ``doc`` describe the definition and take no part in comparing two (``eq=False``).
    signature: str = attrs.field(default="", eq=False)
    #: The first line of its docstring or of the comment right above it ("" when none), at most
    #: :data:`DOC_CHARS_MAX` characters.
    doc: str = attrs.field(default="", eq=False)


#: Bounds of :attr:`Definition.signature` and :attr:`Definition.doc`.
SIGNATURE_CHARS_MAX: Final = 240
DOC_CHARS_MAX: Final = 200


class ReferenceKind:
    """How a name is used (plain strings so facts stay trivially picklable)."""

    #: Called: ``f()``, ``obj.f()``, ``Cls()`` (Python's instantiation is a call).
    CALL = "call"
    #: Instantiated with ``new``: ``new Order()``, ``Order{}`` literals of Go, Rust and C#.
    NEW = "new"
    #: Named as a type: an annotation, a parameter or field type, a base class, a cast.
    TYPE = "type"
    #: Read as a value: a constant, a class or enum member, a function passed as a value.
    USE = "use"
    #: Not written, only given: a variable takes the class's type from what it is set to, without
    #: naming the class (``auto client = pool->Pop()`` where ``pool`` is a
    #: ``ClientPool<Client>``). It types a receiver (its ``binds``) and is never listed as a use.
    BIND = "bind"


@attrs.frozen
class Reference:
    """A use of a name the file does not declare at that spot: a call, an instantiation, a type,
    a value read. Resolution to a definition happens at query time, from the name, the qualifier
    and the file's imports (:mod:`mesh.index.query._references`)."""

    name: str
    line: int
    #: One of :class:`ReferenceKind`'s values.
    kind: str
    #: What is written right before the name, as a dotted name (``self``, ``this``, ``OrderService``,
    #: ``pb``, ``os.path``; ``::``, ``->`` and ``\\`` written as ``.``); ``~`` when it is an
    #: expression (``make().run()``), "" when the name stands alone.
    qualifier: str = ""
    #: The variable, field or parameter this use gives the type ``name`` to, as a dotted name
    #: (``self.db`` of ``self.db = UserDb(...)``, ``orderService`` of ``OrderService orderService``),
    #: "" when none: a later call qualified by it (``self.db.add_user()``) reaches ``name``'s member.
    binds: str = ""
    #: How many arguments a call passes (-1: not a call, or not known: a spread ``*args``); tells
    #: overloads apart.
    arity: int = -1


@attrs.frozen
class Import:
    """An import/use/require/include, with the module path exactly as written in the source."""

    module: str
    line: int
    #: Names imported from the module when the syntax lists them (``from m import a, b``).
    names: tuple[str, ...] = ()
    #: Where the import holds: "" in its own file, :data:`PROJECT` in every file of its project
    #: (C#'s ``global using``).
    scope: str = ""

    #: The scope of an import that holds in every file of the project around it.
    PROJECT: ClassVar[str] = "project"


@attrs.frozen
class Namespace:
    """A namespace a file declares (C#'s ``namespace A.B;`` or ``namespace A.B { }``, PHP's
    ``namespace Shop;``), as written, with the lines it spans: what the file's definitions belong
    to, and what a ``using``/``use`` elsewhere names to see them."""

    name: str
    line: int
    end_line: int


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


# -- links other than gRPC ------------------------------------------------------------------------


@attrs.frozen
class HttpRoute:
    """An HTTP route a server declares (a registration, an annotation, a routes file, an OpenAPI path)."""

    #: Upper-case verb (``GET``, ``POST``...), or ``*`` when any method is served.
    method: str
    #: The path template with every prefix applied (router groups, class mappings, mounts), starting
    #: with ``/``, parameters spelled ``{name}`` whatever the framework's syntax (``:id``, ``<int:id>``,
    #: ``{id:int}`` all become ``{id}``), a catch-all ``{*name}``; see :mod:`mesh.index.parse._links`.
    path: str
    line: int
    #: The handler as written (``handleOrders``, ``OrdersController.Get``, ``views.order_detail``);
    #: "" when inline (a lambda) or unknown.
    handler: str = ""
    #: Dotted name of the enclosing definition of the declaration ("" at module level); for an
    #: annotated method, that method.
    symbol: str = ""
    #: The framework or source (``net/http``, ``gin``, ``express``, ``spring``, ``aspnet``, ``openapi``...).
    framework: str = ""
    #: For a mount (Django ``include("orders.urls")``, Express ``app.use("/api", ordersRouter)``,
    #: Flask ``register_blueprint(bp, url_prefix=...)``, FastAPI ``include_router``, Rocket
    #: ``mount``): the module whose routes are served under ``path``, spelled as this file's imports
    #: spell it (``orders.urls``, ``./routes/orders``), so that it resolves like an :class:`Import`.
    #: The routes of the mounted file get ``path`` as a prefix; a mount is no route itself.
    mount: str = ""


@attrs.frozen
class HttpCall:
    """An outbound HTTP request made by the code."""

    #: Upper-case verb, or ``*`` when the code does not say.
    method: str
    #: The path template (parameters ``{name}``, or ``{}`` for an unnamed interpolation); "" when the
    #: path cannot be read statically (then ``computed`` is true).
    path: str
    line: int
    symbol: str = ""
    #: The host written in a URL literal (``billing`` of ``http://billing:8080/x``), lower-case,
    #: without scheme or port; "" when the URL has none or it is not literal.
    host: str = ""
    #: Where the base address comes from when it is not literal: ``env:NAME`` (an environment
    #: variable), ``config:key`` (a configuration key, as the code spells it, ``.``-separated),
    #: ``const:Owner.NAME`` / ``const:NAME`` (a constant of another file, see :class:`Constant`),
    #: ``client:Type`` (the base address registered for the typed client class ``Type``, see
    #: :class:`Setting`), "" when unknown.
    address: str = ""
    #: The client library or API (``fetch``, ``axios``, ``requests``, ``net/http``, ``HttpClient``, ``feign``...).
    client: str = ""
    #: True when the URL (or its path) is built at run time and cannot be read: reported, never linked.
    computed: bool = False
    #: The operation a generated API client's method stands for (``ordersApi.createOrder(...)`` of an
    #: OpenAPI Generator client: ``createOrder``), whose method and path the resolver reads from the
    #: one OpenAPI operation of that ``operationId`` in the workspace; ``method`` is then ``*`` and
    #: ``path`` "" as the call site says neither.
    operation: str = ""


class MessageRole:
    PRODUCE = "produce"
    CONSUME = "consume"


@attrs.frozen
class MessageFact:
    """A message produced to or consumed from a broker: a topic, queue, exchange, subject or channel."""

    #: :class:`MessageRole`: ``produce`` or ``consume``.
    role: str
    #: ``kafka``, ``rabbitmq``, ``nats``, ``redis``, ``sqs``, ``sns``, ``pubsub`` (Google), ``eventbus``
    #: (an in-house event bus whose broker the code does not name), "" when unknown.
    broker: str
    #: The topic/queue/exchange/subject/channel/event name as the broker sees it; "" when computed.
    name: str
    line: int
    #: ``topic``, ``queue``, ``exchange``, ``routing_key``, ``subject``, ``channel`` or ``event``
    #: (an event type whose name is the routing key, as MassTransit and most event buses do).
    kind: str = ""
    symbol: str = ""
    #: ``env:NAME`` / ``config:key`` / ``const:Owner.NAME`` when the name comes from there (``name``
    #: is then the default written beside it, or ""); ``client:Type`` for a call through a publisher
    #: class of the workspace (``orderPublisher.publish(order, events)``): ``name`` is the topic
    #: when the call site says it, else "" and the resolver takes the one the class names.
    address: str = ""
    #: The client library (``kafka-go``, ``sarama``, ``kafkajs``, ``pika``, ``spring-kafka``, ``MassTransit``...).
    client: str = ""
    computed: bool = False


@attrs.frozen
class Constant:
    """A string constant that names a link: a topic, queue, channel, route, path or URL.

    Kept only when its name or its owner's name says so (``ORDERS_TOPIC``, ``OrderServiceChannels.x``,
    ``API_URL``: a word among topic, queue, channel, exchange, subject, stream, event, destination,
    route, path, url, uri, endpoint, address, host) and the value is one token of at most 200
    characters; never when the name looks secret (key, token, secret, password, credential)."""

    #: ``Owner.NAME`` for a member of a class/object/module-level holder, else ``NAME``.
    name: str
    value: str
    line: int


@attrs.frozen
class Setting:
    """A configuration entry that can wire services: a key whose value names a host or an
    environment variable. Other values are never kept (they may be secrets).

    Config files (``application.yml``/``.properties``, ``appsettings*.json``...) give settings; code
    gives one for a typed HTTP client registered with a base address (``AddHttpClient<CatalogService>(
    c => c.BaseAddress = new("http://catalog-api"))``: key ``client:CatalogService``)."""

    #: The key as the file spells it, dotted (``services.orders.url``; .NET's ``:`` and JSON nesting
    #: become ``.``; a ``.properties`` key as written).
    key: str
    line: int
    #: The host of the value when it is a URL or ``host:port`` (lower-case, no scheme, no port).
    host: str = ""
    #: The environment variable the value refers to (``${ORDERS_URL:...}``), "" when none.
    env: str = ""
    #: The path of a URL value ("" when none or ``/``): a base path clients prepend.
    path: str = ""


@attrs.frozen
class FileFacts:
    language: str
    definitions: tuple[Definition, ...] = ()
    imports: tuple[Import, ...] = ()
    #: The namespaces the file declares (C#, PHP), outermost first.
    namespaces: tuple[Namespace, ...] = ()
    grpc: tuple[GrpcFact, ...] = ()
    proto: ProtoFile | None = None
    sections: tuple[Section, ...] = ()
    dependencies: tuple[Dependency, ...] = ()
    http_routes: tuple[HttpRoute, ...] = ()
    http_calls: tuple[HttpCall, ...] = ()
    messages: tuple[MessageFact, ...] = ()
    #: Configuration entries that name hosts or environment variables.
    settings: tuple[Setting, ...] = ()
    constants: tuple[Constant, ...] = ()
    #: Calls, instantiations, type uses and value reads of names, in source order (see
    #: :class:`Reference`).
    references: tuple[Reference, ...] = ()
    #: Why the file could not be (fully) parsed; facts found before the problem are kept.
    error: str = ""


def method_spelling(name: str) -> str:
    """The spelling used to compare method names across languages: no case, no underscores."""
    return name.replace("_", "").lower()


def path_shape(path: str) -> str:
    """The spelling used to compare HTTP paths: lower-case, every parameter ``{}`` (a catch-all
    ``{*}``), no trailing slash (``/Orders/{orderId}/`` -> ``/orders/{}``)."""
    shape = re.sub(r"\{\*[^{}]*\}", "{*}", path)
    shape = re.sub(r"\{(?!\*\})[^{}]*\}", "{}", shape).lower()
    return shape.rstrip("/") or "/"


def route_matches(route_shape: str, call_shape: str) -> bool:
    """Whether a call to ``call_shape`` reaches a route of ``route_shape`` (both :func:`path_shape`):
    a route's ``{}`` takes any one segment, ``{*}`` the rest; a call's ``{}`` only a parameter."""
    if route_shape == call_shape:
        return True
    route = route_shape.strip("/").split("/") if route_shape != "/" else []
    call = call_shape.strip("/").split("/") if call_shape != "/" else []
    for index, segment in enumerate(route):
        if segment == "{*}":
            return True
        if index >= len(call):
            return False
        if segment == "{}" or segment == call[index]:
            continue
        return False
    return len(route) == len(call)


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
