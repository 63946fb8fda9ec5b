"""C# links: HTTP routes, HTTP calls, messaging, link constants and typed-client settings of one file.

Theory of operation: :func:`extract` runs one flat query over the tree the C# extractor already
parsed (nothing when the bytes hold none of the words a link needs) and builds a small, flow-
insensitive model of the file: method-like scopes and classes nested by byte range, and what each
name holds (its declared type, the values assigned to it). Every fact is then read from captured
nodes through that model:

* **values** (:meth:`_Links.pieces`): a string expression becomes literal text and expressions
  (interpolations, ``+`` concatenations, ``new Uri(...)``, ``string.Format``, a URL-joining helper
  such as ``UriHelper.CombineUri(base, "api", "x")`` whose parts are joined by one ``/``, a
  ``UriBuilder``'s base and ``Path``, and a call of a method of the file that returns a string built
  from its parameters, expanded with the call's arguments in their place, one level deep), a name
  with one value in scope standing for that value (``var uri = $"{baseUrl}items/{id}"``,
  ``const string Topic = "orders"``); what
  stays an expression is traced (:meth:`_Links.address`) to ``env:NAME``
  (``Environment.GetEnvironmentVariable``), ``config:a.b`` (``configuration["a:b"]``,
  ``GetValue<T>``, ``GetSection(..)[..]``, ``GetConnectionString``) or ``const:Owner.NAME`` (a
  constant of another file);
* **routes**: ASP.NET Core attribute routing on controllers (class ``[Route]`` prefixes with the
  ``[controller]``/``[action]``/``[area]`` tokens replaced, ``/`` and ``~/`` templates absolute,
  ``[HttpGet]``-style verbs, ``[AcceptVerbs]``, Web API 2's ``[RoutePrefix]``); conventional routing
  of the actions that carry no route attribute (the file's ``MapControllerRoute``-style templates,
  else ASP.NET's default ``{controller=Home}/{action=Index}/{id?}``, Web API 2's
  ``api/{controller}/{id}``); minimal APIs (``MapGet``... ``Map``, ``MapMethods``, ``MapHub<T>``,
  ``MapHealthChecks``, YARP's ``MapForwarder``) under the ``MapGroup`` prefixes of their receiver,
  followed through variables, builder calls and this file's extension methods taking ``this`` a
  builder; ``UseHealthChecks``; a Blazor component class's ``[Route]``;
* **calls**: ``HttpClient`` verbs and ``SendAsync(HttpRequestMessage)`` on holders known to be an
  ``HttpClient`` (declared, created, taken from ``IHttpClientFactory.CreateClient``, Dapr's
  ``CreateInvokeHttpClient``, the test host's ``WebApplicationFactory``/``TestServer`` (the service
  under test: no host) or Aspire's testing ``CreateHttpClient("resource")``), a relative URL getting
  the holder's base address (``client:Class`` in a class that receives an ``HttpClient``,
  ``client:name`` for a named client, the literal or traced ``BaseAddress`` of the holder);
  RestSharp requests; Refit interface methods; Dapr ``InvokeMethodAsync``; YARP's ``MapForwarder``
  to its destination; a request wrapper of the workspace (``_requestProvider.GetAsync<T>(uri)``: a
  verb + ``Async`` of a field or parameter of a type that is no framework cache, store or SDK, with an
  argument that reads as a URL or a path, the wrapper's type as the client); Kiota request builders
  (``client.Catalog.Products["id"].GetAsync()``: properties are segments, indexers and ``ByXxx(..)``
  path parameters, ``client:<RootType>`` the address);
* **messages**: Confluent.Kafka, RabbitMQ.Client, MassTransit, NServiceBus, Azure Service Bus,
  StackExchange.Redis pub/sub, NATS, Dapr pub/sub and in-house event buses (integration events: a
  handler class's consumer fact sits on the class's name, its ``Subscribe<E, H>`` registration is a
  second fact of the same consumer where it is registered; resolution keeps one);
* **settings**: the base address a typed, named or Refit client is registered or configured with
  (``AddHttpClient<T>(c => c.BaseAddress = ...)``, ``.ConfigureHttpClient``, ``RestService.For<T>``,
  a typed client setting its own ``BaseAddress``, a Kiota client created on a request adapter given a
  ``BaseUrl``): the host read (a conditional of URLs: the host both share) and, for a member of a
  class naming it (``new(MobileBffHost)``), ``const:Owner.Name`` unless the value traces to an
  environment variable or a configuration key; **constants**: public string constants whose
  name says they name a link.

Each list is in source order. Everything is bounded (recursion depths, a visited set), so any
bytes give facts and never an exception.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Final

import attrs
import tree_sitter

from .._facts import Constant, HttpCall, HttpRoute, MessageFact, MessageRole, Setting
from . import _common, _ts
from ._links import HTTP_METHODS, join_paths, route_template, url_parts
from ._tree import Ranges, safe_captures
from ._config import secret_name

__all__ = ["Links", "aspnet_route", "extract"]

_QUERY: Final = """
(invocation_expression) @call
(attribute) @attribute
[(class_declaration) (struct_declaration) (record_declaration) (interface_declaration)] @class
[(method_declaration) (constructor_declaration) (local_function_statement) (lambda_expression)
 (accessor_declaration) (anonymous_method_expression) (destructor_declaration) (operator_declaration)] @scope
(variable_declarator) @declarator
(parameter) @parameter
(assignment_expression) @assignment
(property_declaration) @property
"""

#: Bytes without any of these hold no link this module reads (plain substrings: a regex alternation
#: costs more than the rest of a link-free file's extraction).
_HINTS: Final = (
    b"Map", b"Http", b"Route", b"[Get", b"[Post", b"[Put", b"[Delete", b"[Patch", b"[Head", b"[Options", b"Topic",
    b"Publish", b"Subscri", b"Produce", b"BasicConsume", b"QueueBind", b"Consumer", b"IHandleMessages",
    b"IAmStartedByMessages", b"IntegrationEvent", b"ServiceBus", b"InvokeMethod", b"BaseAddress", b"RestService",
    b"RestClient", b"Send", b"const string", b"const String", b"readonly string", b"readonly String", b"Controller",
    b"UseHealthChecks", b"GetAsync", b"PostAsync", b"PutAsync", b"PatchAsync", b"DeleteAsync",
)  # fmt: skip

_DEPTH_MAX: Final = 12
#: Route groups nest through variables and extension methods: deeper than this is no real code.
_PREFIX_DEPTH_MAX: Final = 40
#: A route registered under more group prefixes than this keeps the first ones (source order).
_PREFIXES_MAX: Final = 8
_WRAPPERS: Final = frozenset(
    {"parenthesized_expression", "await_expression", "postfix_unary_expression", "checked_expression"}
)
_STRINGS: Final = frozenset({"string_literal", "verbatim_string_literal", "raw_string_literal"})

#: ``HttpClient`` methods -> verb (``SendAsync`` takes its verb from the request).
_HTTPCLIENT_VERBS: Final = {
    "GetAsync": "GET", "GetStringAsync": "GET", "GetStreamAsync": "GET", "GetByteArrayAsync": "GET",
    "GetFromJsonAsync": "GET", "GetFromJsonAsAsyncEnumerable": "GET",
    "PostAsync": "POST", "PostAsJsonAsync": "POST",
    "PutAsync": "PUT", "PutAsJsonAsync": "PUT",
    "PatchAsync": "PATCH", "PatchAsJsonAsync": "PATCH",
    "DeleteAsync": "DELETE", "DeleteFromJsonAsync": "DELETE",
}  # fmt: skip
_SEND: Final = frozenset({"SendAsync", "Send"})
#: RestSharp ``RestClient`` methods; a verb in the name wins over the request's ``Method``.
_RESTSHARP: Final = re.compile(
    r"^(?:Execute|Download\w*?)?(Get|Post|Put|Patch|Delete|Head|Options)?(?:Json)?(?:Async)?$"
)
#: Minimal API registrations -> verb ("" for ``MapMethods``: the verbs are an argument).
_MAP_VERBS: Final = {"MapGet": "GET", "MapPost": "POST", "MapPut": "PUT", "MapDelete": "DELETE", "MapPatch": "PATCH",
                     "Map": "*", "MapMethods": "", "MapHub": "*"}  # fmt: skip
#: ASP.NET Core verb attributes -> verb.
_VERB_ATTRIBUTES: Final = {
    f"Http{v.capitalize()}": v for v in ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")
}
#: Refit / RestEase verb attributes on interface methods -> verb.
_REFIT_ATTRIBUTES: Final = {v.capitalize(): v for v in ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")}
#: ASP.NET Core's own controller base classes (they carry no route).
_FRAMEWORK_CONTROLLERS: Final = frozenset({"Controller", "ControllerBase", "ODataController"})
_CONTROLLER_BASES: Final = re.compile(r"(?:Controller|ControllerBase)$")
_HTTPCLIENT_NAME: Final = re.compile(r"(?i)httpclient$")
_CONFIG_NAME: Final = re.compile(r"(?i)^_?(?:config|configuration|cfg|conf)$|configuration$|config$")
_TEST_HOST_NAME: Final = re.compile(r"(?i)factory$|fixture$|server$")
_CONFIG_TYPES: Final = frozenset(
    {"IConfiguration", "IConfigurationRoot", "ConfigurationManager", "IConfigurationSection"}
)

_REDIS_TYPES: Final = frozenset({"ISubscriber", "IDatabase", "IDatabaseAsync"})
_MASSTRANSIT_TYPES: Final = frozenset(
    {"IPublishEndpoint", "IBus", "IBusControl", "ISendEndpoint", "ConsumeContext", "IConsumeContext"}
)
_NSERVICEBUS_TYPES: Final = frozenset(
    {"IMessageHandlerContext", "IMessageSession", "IEndpointInstance", "IPipelineContext", "IUniformSession"}
)
#: In-process mediators: their ``Publish``/``Send`` never leave the process.
_MEDIATOR: Final = re.compile(r"(?i)mediator|^_?sender$|^I(?:Mediator|Sender|Publisher)$")
_PRODUCE_WORDS: Final = re.compile(r"(?i)publish|send|event|raise|emit|dispatch|enqueue")

#: ASP.NET Core helpers that register an endpoint (health checks, YARP direct forwarding).
_ENDPOINT_HELPERS: Final = frozenset({"MapHealthChecks", "UseHealthChecks", "MapForwarder"})
_DAPR_INVOKE: Final = frozenset(
    {"InvokeMethodAsync", "InvokeMethodWithResponseAsync", "CreateInvokeMethodRequest", "InvokeMethod"}
)
#: Every method name :meth:`_Links._call` reads (besides RestSharp's and the publishing words).
_METHODS: Final = frozenset(
    {*_HTTPCLIENT_VERBS, *_SEND, *_MAP_VERBS, "AddHttpClient", "AddRefitClient", "ConfigureHttpClient", "For",
     *_DAPR_INVOKE,
     "BasicPublish", "BasicPublishAsync", "BasicConsume", "BasicConsumeAsync", "QueueBind", "QueueBindAsync",
     "Produce", "ProduceAsync", "Subscribe", "SubscribeAsync", "SubscribeCoreAsync", "Assign", "AddSubscription",
     "CreateSender", "CreateProcessor", "CreateReceiver", "CreateSessionProcessor", "CreateSessionReceiver",
     "PublishEventAsync", "PublishEvent", "PublishBulkEventAsync", "Publish", "PublishAsync", "Request",
     "RequestAsync", "SendLocal", "MapHealthChecks", "UseHealthChecks", "MapForwarder"}
)  # fmt: skip

#: A request wrapper's verbs (``_requestProvider.GetAsync<T>(uri)``): a verb and ``Async``, nothing else.
_WRAPPER_VERB: Final = re.compile(r"^(Get|Post|Put|Patch|Delete|Head|Options)Async$")
#: Kiota request builders' verbs (``GetAsGetResponseAsync`` for an OData-style wrapped response).
_KIOTA_VERB: Final = re.compile(r"^(Get|Post|Put|Patch|Delete)(?:As\w+Response)?Async$")
#: Kiota's generated ``ByXxx(id)`` indexer methods: the path parameter ``{xxx}``.
_KIOTA_BY: Final = re.compile(r"^By([A-Z]\w*)$")
#: Types whose ``GetAsync``/``PostAsync``... are no request wrapper of the workspace (framework
#: caches, stores and SDK clients); a name with one of :data:`_STORAGE_WORDS` is none either.
_NOT_WRAPPERS: Final = frozenset(
    {"HttpClient", "HttpMessageInvoker", "HttpMessageHandler", "IHttpClientFactory", "DaprClient", "RestClient",
     "IRestClient", "IFlurlClient", "IFlurlRequest", "ISecureStorage", "IPreferences", "IDistributedCache",
     "IMemoryCache", "IDatabase", "IDatabaseAsync", "IConnectionMultiplexer", "IMediator", "ISender"}
)  # fmt: skip
_STORAGE_WORDS: Final = frozenset(
    {"cache", "caches", "store", "storage", "repository", "repo", "db", "dbcontext", "database", "context",
     "session", "state", "blob", "blobs", "bucket", "file", "files", "directory", "table", "queue", "vault",
     "secret", "secrets", "setting", "settings", "config", "configuration", "options", "preferences", "redis",
     "mongo", "elastic", "cosmos", "dynamo", "s3", "kv"}
)  # fmt: skip
#: SDK clients with the shape of a Kiota root (a ``...Client`` with properties) that are none.
_NOT_KIOTA: Final = frozenset(
    {"HttpClient", "DaprClient", "ServiceBusClient", "BlobServiceClient", "BlobContainerClient", "BlobClient",
     "QueueClient", "QueueServiceClient", "TableClient", "TableServiceClient", "CosmosClient", "SecretClient",
     "ElasticClient", "ElasticsearchClient", "MongoClient", "IMongoClient", "SmtpClient", "TcpClient",
     "UdpClient", "WebClient", "RestClient", "EventHubProducerClient", "EventHubConsumerClient",
     "AmazonS3Client", "AmazonDynamoDBClient", "AmazonSQSClient", "AmazonSimpleNotificationServiceClient",
     "ConfigurationClient", "KeyClient", "CertificateClient", "ShareClient", "DataLakeServiceClient",
     "SearchClient", "OpenAIClient", "AzureOpenAIClient", "ChatClient", "StripeClient", "IDaprClient"}
)  # fmt: skip
#: A URL-joining helper (``UriHelper.CombineUri(base, "api", "x")``, Flurl's ``Url.Combine``): its
#: name, and its holder's or its own name says URI or URL (``Path.Combine`` joins file paths).
_URL_JOINS: Final = frozenset(
    {"Combine", "CombineUri", "CombineUrl", "CombineUris", "CombineUrls", "CombinePath", "CombinePaths", "JoinUri",
     "JoinUrl", "UrlCombine", "UriCombine"}
)  # fmt: skip
#: Words of a base address expression's name (``_settings.GatewayCatalogEndpointBase``).
_BASE_WORDS: Final = frozenset(
    {"url", "uri", "urls", "uris", "host", "endpoint", "address", "base", "baseurl", "baseuri", "gateway", "server",
     "origin", "domain", "api"}
)  # fmt: skip
#: A URL builder method with more ``return`` statements than this is not read (no real one has).
_RETURNS_MAX: Final = 8
#: The returned types of a URL builder method of the file.
_BUILDER_TYPES: Final = frozenset({"string", "String", "Uri"})
_SCHEME_PREFIX: Final = re.compile(r"^[a-zA-Z][\w+.-]*://")
#: ``string.Format`` placeholders: ``{0}``, ``{1,5}``, ``{2:N2}``; ``{{``/``}}`` are braces.
_FORMAT_ITEM: Final = re.compile(r"\{\{|\}\}|\{(\d+)(?:,[^{}:]*)?(?::[^{}]*)?\}")

_LINK_WORDS: Final = frozenset(
    {"topic", "queue", "channel", "exchange", "subject", "stream", "event", "destination", "route", "path", "url",
     "uri", "endpoint", "address", "host"}
)  # fmt: skip
_SECRET_WORDS: Final = re.compile(r"(?i)secret|passw|credential|token|key")
_WORDS: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

Symbol = Callable[[int], str]


@attrs.frozen
class Links:
    """The link facts of one file, each list in source order."""

    routes: tuple[HttpRoute, ...] = ()
    calls: tuple[HttpCall, ...] = ()
    messages: tuple[MessageFact, ...] = ()
    settings: tuple[Setting, ...] = ()
    constants: tuple[Constant, ...] = ()


def extract(source: bytes, root: tree_sitter.Node, symbol: Symbol, imports: Iterable[str]) -> Links:
    """The links of a C# file parsed as ``root``; ``symbol(offset)`` names the definition enclosing a
    byte, ``imports`` are the file's ``using`` targets as written."""
    if not any(hint in source for hint in _HINTS):
        return Links()
    return _Links(source, root, symbol, tuple(imports)).run()


_HYPHENATED: Final = re.compile(r"\{\s*(\*{0,2})\s*([\w-]*-[\w-]*)\s*(?:[:=?][^{}]*)?\}")


def aspnet_route(raw: str) -> str:
    """:func:`~mesh.index.parse._links.route_template` of an ASP.NET template, whose parameter names
    may hold ``-`` (YARP's ``{**catch-all}`` -> ``{*catch-all}``)."""
    return route_template(_HYPHENATED.sub(lambda m: "{" + ("*" if m[1] else "") + m[2] + "}", raw))


# -- small syntax helpers ------------------------------------------------------------------------


def _unwrap(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """``node`` without parentheses, ``await``, ``!`` and casts around it."""
    for _ in range(_DEPTH_MAX):
        if node is None:
            return None
        if node.type in _WRAPPERS:
            node = node.named_child(0) if node.named_child_count else None
        elif node.type == "cast_expression":
            node = node.child_by_field_name("value")
        else:
            return node
    return node


def _simple_type(node: tree_sitter.Node | None, source: bytes) -> str:
    """The simple name of a type (``Ns.X<T>?`` -> ``X``), "" when none."""
    for _ in range(_DEPTH_MAX):
        if node is None:
            return ""
        if node.type == "nullable_type":
            node = node.child_by_field_name("type")
        elif node.type in ("qualified_name", "alias_qualified_name"):
            node = node.child_by_field_name("name")
        elif node.type == "generic_name":
            node = node.named_child(0)
        elif node.type in ("identifier", "predefined_type"):
            return _ts.text(node, source)
        else:
            return ""
    return ""


def _type_arguments(node: tree_sitter.Node | None) -> list[tree_sitter.Node]:
    """The type arguments of a generic name (``X<A, B>`` -> ``[A, B]``), through a qualifier."""
    for _ in range(_DEPTH_MAX):
        if node is None:
            return []
        if node.type == "nullable_type":
            node = node.child_by_field_name("type")
        elif node.type in ("qualified_name", "alias_qualified_name"):
            node = node.child_by_field_name("name")
        else:
            break
    if node is None or node.type != "generic_name":
        return []
    arguments = next((c for c in node.named_children if c.type == "type_argument_list"), None)
    return list(arguments.named_children) if arguments is not None else []


def _arguments(node: tree_sitter.Node | None) -> list[tuple[str, tree_sitter.Node]]:
    """``(name, expression)`` of each argument of a call, creation or attribute ("" when positional)."""
    if node is None:
        return []
    found: list[tuple[str, tree_sitter.Node]] = []
    for argument in node.named_children:
        if argument.type not in ("argument", "attribute_argument"):
            continue
        name = argument.child_by_field_name("name")
        values = [c for c in argument.named_children if name is None or c.id != name.id]
        if values:
            found.append(("" if name is None else (name.text or b"").decode("utf-8", "replace"), values[-1]))
    return found


def _argument(arguments: Sequence[tuple[str, tree_sitter.Node]], index: int, *names: str) -> tree_sitter.Node | None:
    """The argument named one of ``names``, else the ``index``-th positional one."""
    for name, value in arguments:
        if name in names:
            return value
    positional = [value for name, value in arguments if not name]
    return positional[index] if 0 <= index < len(positional) else None


def _words(name: str) -> list[str]:
    return [word.lower() for word in _WORDS.findall(name)]


def _link_name(name: str) -> bool:
    """Whether a constant's (or its owner's) name says it names a link (``ORDERS_TOPIC``, ``ApiRoutes``)."""
    for word in _words(name):
        if (
            word in _LINK_WORDS
            or (word.endswith("s") and word[:-1] in _LINK_WORDS)
            or (word.endswith("es") and word[:-2] in _LINK_WORDS)
        ):
            return True
    return False


# -- the model of one file -----------------------------------------------------------------------


@attrs.frozen
class _Binding:
    """What a name holds somewhere: its declared type, a value assigned to it, and how it was bound."""

    type: tree_sitter.Node | None
    value: tree_sitter.Node | None
    #: local, parameter, field, assign, append (``+=``)
    kind: str
    node: tree_sitter.Node


@attrs.frozen
class _Piece:
    literal: bool
    text: str
    node: tree_sitter.Node | None = None


@attrs.frozen
class _Base:
    """Where a client's relative URLs go: a literal host and base path, or an address."""

    host: str = ""
    path: str = ""
    address: str = ""


@attrs.frozen
class _Name:
    """A topic/queue/event name as read: literal, traced to an address, or computed."""

    name: str = ""
    address: str = ""

    @property
    def computed(self) -> bool:
        return not self.name and not self.address


_NO_NAME: Final = _Name()


@attrs.frozen
class _Pattern:
    """A conventional route template: ``mvc`` (``{controller}/{action}``) or ``webapi`` (Web API 2's
    ``api/{controller}/{id}``, the action chosen by verb)."""

    style: str
    template: str
    #: the area of ``MapAreaControllerRoute`` (its controllers only), None for any other
    area: str | None = None
    #: parameters a ``defaults`` object makes optional (lower-case)
    optional: frozenset[str] = frozenset()


@attrs.frozen
class _Convention:
    style: str
    patterns: tuple[_Pattern, ...]


#: ASP.NET's templates when the file registers none: ``MapDefaultControllerRoute``'s, the areas
#: route the documentation pairs with it, and Web API 2's ``WebApiConfig`` default.
_DEFAULT_CONVENTIONS: Final = {
    "mvc": (
        _Pattern("mvc", "{controller=Home}/{action=Index}/{id?}"),
        _Pattern("mvc", "{area:exists}/{controller=Home}/{action=Index}/{id?}"),
    ),
    "webapi": (_Pattern("webapi", "api/{controller}/{id?}"),),
}
_CONVENTIONAL_MAPS: Final = frozenset(
    {"MapControllerRoute", "MapDefaultControllerRoute", "MapAreaControllerRoute", "MapRoute", "MapHttpRoute"}
)
_MVC_NAMESPACES: Final = ("Microsoft.AspNetCore.Mvc", "System.Web.Mvc", "System.Web.Http")
#: Blazor's component base classes (a component's ``[Route]`` is its ``@page``).
_COMPONENT_BASES: Final = frozenset({"ComponentBase", "LayoutComponentBase", "OwningComponentBase", "IComponent"})
_ACTION_RESULT: Final = re.compile(r"^(?:I?ActionResult|IHttpActionResult|ViewResult|PartialViewResult|JsonResult)$")
#: Web API 2 picks an action without a verb attribute by the verb its name starts with.
_WEB_API_VERBS: Final = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")
_WHOLE_PARAMETER: Final = re.compile(r"\{(\*{0,2})(\w+)([^{}]*)\}")


def _web_api_verb(action: str) -> str:
    """The verb Web API 2 serves an action with no verb attribute by: the one its name starts with,
    else POST."""
    upper = action.upper()
    return next((verb for verb in _WEB_API_VERBS if upper.startswith(verb)), "POST")


def _conventional_path(pattern: _Pattern, tokens: dict[str, str | None], parameters: set[str]) -> str | None:
    """``pattern`` for one action: ``{controller}``, ``{action}``, ``{area}`` filled in, an optional
    parameter kept while the action takes it (the URL ends at the first it does not); None when the
    pattern cannot reach the action (an area route and a controller of another area or none)."""
    area = tokens.get("area")
    template = pattern.template.strip().lstrip("~").strip("/")
    if pattern.area is not None:
        if not area or area.lower() != pattern.area.lower():
            return None
    elif area and "{area" not in template.lower():
        return None  # a controller of an area is reached by an area's route only
    out: list[str] = []
    for segment in template.split("/"):
        whole = _WHOLE_PARAMETER.fullmatch(segment)
        if whole is None:
            if segment:
                out.append(segment)
            continue
        star, name, rest = whole.groups()
        key = name.lower()
        if key in ("controller", "action", "area"):
            value = tokens.get(key)
            if not value:
                return None
            out.append(value)
        elif rest.endswith("?") or "=" in rest or key in pattern.optional:
            if key not in parameters:
                break
            out.append("{" + name + "}")
        else:
            out.append("{" + ("*" if star else "") + name + "}")
    return "/" + "/".join(out)


@attrs.define
class _Links:
    source: bytes
    root: tree_sitter.Node
    symbol: Symbol
    imports: tuple[str, ...]
    captures: dict[str, list[tree_sitter.Node]] = attrs.field(factory=dict)
    scopes: Ranges = attrs.field(factory=lambda: Ranges(()))
    classes: Ranges = attrs.field(factory=lambda: Ranges(()))
    #: (scope index, name) -> bindings; scope -1 holds top-level statements
    locals: dict[tuple[int, str], list[_Binding]] = attrs.field(factory=dict)
    #: (class index, name) -> bindings of fields, properties and primary-constructor parameters
    fields: dict[tuple[int, str], list[_Binding]] = attrs.field(factory=dict)
    #: simple class name -> class index (the first declared)
    class_names: dict[str, int] = attrs.field(factory=dict)
    #: class index -> whether it receives an ``HttpClient`` (constructor or primary constructor)
    typed_clients: dict[int, bool] = attrs.field(factory=dict)
    #: member assignments ``x.Prop = v`` by holder name -> (property, value)
    members: dict[str, list[tuple[str, tree_sitter.Node, tree_sitter.Node]]] = attrs.field(factory=dict)
    routes: list[tuple[int, int, HttpRoute]] = attrs.field(factory=list)
    calls: list[tuple[int, int, HttpCall]] = attrs.field(factory=list)
    messages: list[tuple[int, int, MessageFact]] = attrs.field(factory=list)
    settings: list[tuple[int, int, Setting]] = attrs.field(factory=list)
    constants: list[tuple[int, int, Constant]] = attrs.field(factory=list)
    seen_messages: set[tuple[str, str, str, str]] = attrs.field(factory=set)
    #: the outbox hand-offs among them (a publish of the same event in the same method replaces one)
    stored_messages: dict[tuple[str, str, str, str], MessageFact] = attrs.field(factory=dict)
    #: ``this`` parameter node id -> the prefixes of the receivers its method is called on
    extension_prefixes: dict[int, list[str] | None] = attrs.field(factory=dict)
    prefix_visiting: set[int] = attrs.field(factory=set)
    #: the conventional route templates of the file (built on first use)
    patterns: list[_Pattern] | None = None
    #: field name -> the values of the fields of that name in every class (built on first use)
    file_fields: dict[str, list[tree_sitter.Node]] | None = None
    visiting: set[int] = attrs.field(factory=set)
    #: method name -> the methods and local functions of the file so named (built on first use)
    methods: dict[str, list[tree_sitter.Node]] | None = None
    #: parameter node id -> the argument it stands for, while a URL builder method is expanded
    substitutions: dict[int, tree_sitter.Node] = attrs.field(factory=dict)
    #: a URL builder method is being expanded (one level: no builder inside a builder)
    expanding: bool = False
    #: call node id -> its expansion ([]: none), each call expanded once
    expanded: dict[int, list[_Piece]] = attrs.field(factory=dict)
    #: method node id -> the expressions it returns (:meth:`_returned`)
    returns: dict[int, list[tree_sitter.Node]] = attrs.field(factory=dict)

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.source)

    # -- driver ---------------------------------------------------------------------------------

    def run(self) -> Links:
        self.captures = safe_captures(_common.query("csharp", _QUERY), self.root)
        self.scopes = Ranges(self.captures.get("scope", ()))
        self.classes = Ranges(self.captures.get("class", ()))
        self._bind()
        for node in self.classes.nodes:
            self._class(node)
        for node in self.captures.get("attribute", ()):
            self._topic_attribute(node)
        for node in self.captures.get("call", ()):
            self._call(node)
        for node in self.captures.get("declarator", ()):
            self._constant(node)
        self._typed_client_base_addresses()
        if b"RequestAdapter" in self.source:
            self._kiota_settings()

        def ordered(items: list[tuple[int, int, object]]) -> tuple:  # type: ignore[type-arg]
            return tuple(item for _, _, item in sorted(items, key=lambda entry: (entry[0], entry[1])))

        return Links(
            routes=ordered(self.routes),  # type: ignore[arg-type]
            calls=ordered(self.calls),  # type: ignore[arg-type]
            messages=ordered(self.messages),  # type: ignore[arg-type]
            settings=ordered(self.settings),  # type: ignore[arg-type]
            constants=ordered(self.constants),  # type: ignore[arg-type]
        )

    # -- bindings -------------------------------------------------------------------------------

    def _bind(self) -> None:
        for index, node in enumerate(self.classes.nodes):
            name = self.text(node.child_by_field_name("name"))
            if name:
                self.class_names.setdefault(name, index)
        for node in self.captures.get("declarator", ()):
            declaration = node.parent
            if declaration is None or declaration.type != "variable_declaration":
                continue
            owner = declaration.parent
            declared = declaration.child_by_field_name("type")
            if declared is not None and declared.type == "implicit_type":
                declared = None
            name = node.child_by_field_name("name")
            values = [c for c in node.named_children if name is None or c.id != name.id]
            value = values[-1] if values and values[-1].type != "bracketed_argument_list" else None
            if owner is not None and owner.type in ("field_declaration", "event_field_declaration"):
                self._add_field(
                    self.classes.innermost(node.start_byte, node.end_byte),
                    self.text(name),
                    _Binding(declared, value, "field", node),
                )
            else:
                self._add_local(node, self.text(name), _Binding(declared, value, "local", node))
        for node in self.captures.get("property", ()):
            value = node.child_by_field_name("value")
            if value is not None and value.type == "arrow_expression_clause":
                value = value.named_child(0) if value.named_child_count else None
            binding = _Binding(node.child_by_field_name("type"), value, "field", node)
            self._add_field(self.classes.around(node), self.text(node.child_by_field_name("name")), binding)
        for node in self.captures.get("parameter", ()):
            self._parameter(node)
        for node in self.captures.get("assignment", ()):
            self._assignment(node)

    def _add_local(self, at: tree_sitter.Node, name: str, binding: _Binding) -> None:
        if name:
            scope = self.scopes.innermost(at.start_byte, at.end_byte)
            self.locals.setdefault((scope, name), []).append(binding)

    def _add_field(self, klass: int, name: str, binding: _Binding) -> None:
        if klass >= 0 and name:
            self.fields.setdefault((klass, name), []).append(binding)

    def _parameter(self, node: tree_sitter.Node) -> None:
        name = self.text(node.child_by_field_name("name"))
        declared = node.child_by_field_name("type")
        default = None
        after_equals = False
        for child in node.children:
            if not child.is_named and self.text(child) == "=":
                after_equals = True
            elif after_equals and child.is_named:
                default = child
                break
        binding = _Binding(declared, default, "parameter", node)
        parameters = node.parent
        owner = parameters.parent if parameters is not None else None
        if owner is not None and owner.type in ("class_declaration", "record_declaration", "struct_declaration"):
            klass = self.classes.innermost(owner.start_byte, owner.end_byte)
            self._add_field(klass, name, binding)
            if _simple_type(declared, self.source) == "HttpClient":
                self.typed_clients[klass] = True
            return
        self._add_local(node, name, binding)
        if owner is None:
            return
        if owner.type == "constructor_declaration" and _simple_type(declared, self.source) == "HttpClient":
            self.typed_clients[self.classes.innermost(owner.start_byte, owner.end_byte)] = True

    def _assignment(self, node: tree_sitter.Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        op = (
            self.text(operator)
            if operator is not None
            else next((self.text(c) for c in node.children if not c.is_named), "=")
        )
        if left is None or right is None:
            return
        kind = "append" if op == "+=" else "assign" if op in ("=", "??=") else ""
        if not kind:
            return
        parent = node.parent
        if parent is not None and parent.type == "initializer_expression":
            return  # an object initializer's member: read where the object is created
        if left.type == "identifier":
            bindings = self._lookup(left)
            if bindings is not None:
                bindings.append(_Binding(None, right, kind, node))
        elif left.type == "member_access_expression":
            holder = left.child_by_field_name("expression")
            member = self.text(left.child_by_field_name("name"))
            if holder is not None and holder.type in ("this", "this_expression"):
                bindings = self._lookup(left)
                if bindings is not None:
                    bindings.append(_Binding(None, right, kind, node))
            elif holder is not None and holder.type == "identifier":
                self.members.setdefault(self.text(holder), []).append((member, right, node))
            elif holder is not None and self._is_this_member(holder):
                self.members.setdefault(self.text(holder.child_by_field_name("name")), []).append((member, right, node))

    def _lookup(self, node: tree_sitter.Node) -> list[_Binding] | None:
        """The bindings of a name (``x`` or ``this.x``) where ``node`` is, None when unbound here."""
        this = False
        if node.type == "member_access_expression":
            holder = node.child_by_field_name("expression")
            if holder is None or holder.type not in ("this", "this_expression"):
                return None
            node = node.child_by_field_name("name") or node
            this = True
        if node.type != "identifier":
            return None
        name = self.text(node)
        start, end = node.start_byte, node.end_byte
        if not this:
            for scope in self.scopes.chain(self.scopes.innermost(start, end)):
                found = self.locals.get((scope, name))
                if found is not None:
                    return found
        klass = self.classes.innermost(start, end)
        if klass < 0:
            return None if this else self.locals.get((-1, name))
        for outer in self.classes.chain(klass):
            found = self.fields.get((outer, name))
            if found is not None:
                return found
        return None

    def _values(self, node: tree_sitter.Node) -> list[tree_sitter.Node] | None:
        """The one value a name stands for where ``node`` is ([]: bound, no single value; None: unbound)."""
        bindings = self._lookup(node)
        if bindings is None:
            return None
        values = [b.value for b in bindings if b.value is not None and b.kind != "append"]
        appended = [b.value for b in bindings if b.kind == "append" and b.value is not None]
        if any(not self._query_text(value) for value in appended):
            return []
        return values

    def _query_text(self, node: tree_sitter.Node) -> bool:
        """Whether an appended value only adds a query string (``uri += "&a=1"``)."""
        pieces = self.pieces(node)
        return bool(pieces) and pieces[0].literal and pieces[0].text[:1] in ("?", "&", "#")

    # -- values ---------------------------------------------------------------------------------

    def literal(self, node: tree_sitter.Node | None) -> str | None:
        """The text of an expression made of literals only (after names with one value), else None."""
        if node is None:
            return None
        pieces = self.pieces(node)
        if pieces and all(piece.literal for piece in pieces):
            return "".join(piece.text for piece in pieces)
        return None

    def pieces(self, node: tree_sitter.Node | None, depth: int = 0) -> list[_Piece]:
        """An expression as literal text and expressions (see the module docstring)."""
        node = _unwrap(node)
        if node is None:
            return []
        if depth > _DEPTH_MAX or node.id in self.visiting:
            return [_Piece(False, self.text(node), node)]
        self.visiting.add(node.id)
        try:
            return _merged(self._pieces(node, depth))
        finally:
            self.visiting.discard(node.id)

    def _pieces(self, node: tree_sitter.Node, depth: int) -> list[_Piece]:
        kind = node.type
        if kind in _STRINGS:
            return [_Piece(True, self._string(node))]
        if kind == "interpolated_string_expression":
            out: list[_Piece] = []
            for child in node.named_children:
                if child.type in ("string_content", "escape_sequence", "raw_string_content"):
                    out.append(
                        _Piece(
                            True,
                            self._escape(self.text(child)) if child.type == "escape_sequence" else self.text(child),
                        )
                    )
                elif child.type == "interpolation":
                    expression = _interpolated(child)
                    inner = self.pieces(expression, depth + 1)
                    if inner and all(piece.literal for piece in inner):
                        out.append(_Piece(True, "".join(piece.text for piece in inner)))
                    elif inner and (inner[0].literal or len(inner) > 1):
                        out.extend(inner)  # read as a concatenation is: a base and a path, a path and a query
                    elif expression is not None:
                        out.append(_Piece(False, self.text(expression), expression))
            return out
        if kind == "binary_expression" and self._operator(node) == "+":
            return self.pieces(node.child_by_field_name("left"), depth + 1) + self.pieces(
                node.child_by_field_name("right"), depth + 1
            )
        if kind == "member_access_expression" and self.text(node) in ("string.Empty", "String.Empty"):
            return [_Piece(True, "")]
        if kind == "member_access_expression" and self.text(node.child_by_field_name("name")) == "Uri":
            built = self._uri_builder_pieces(node.child_by_field_name("expression"), depth)
            if built:
                return built
        if kind == "identifier" and self.substitutions:
            argument = self._substituted(node)
            if argument is not None:
                return self.pieces(argument, depth + 1)
        if kind in ("identifier", "member_access_expression"):
            values = self._name_values(node)
            if values is not None and len(values) == 1:
                inner = self.pieces(values[0], depth + 1)
                if inner:
                    return inner
            return [_Piece(False, self.text(node), node)]
        if kind in ("object_creation_expression", "implicit_object_creation_expression"):
            type_name = (
                _simple_type(node.child_by_field_name("type"), self.source)
                if kind == "object_creation_expression"
                else "Uri"
            )
            arguments = _arguments(
                node.child_by_field_name("arguments")
                or next((c for c in node.named_children if c.type == "argument_list"), None)
            )
            if type_name == "Uri" and arguments:
                first = self.pieces(arguments[0][1], depth + 1)
                second = arguments[1][1] if len(arguments) > 1 else None
                if second is not None and "UriKind" not in self.text(second):
                    relative = self.pieces(second, depth + 1)
                    if relative and relative[0].literal and not relative[0].text.startswith("/"):
                        relative = [_Piece(True, "/" + relative[0].text), *relative[1:]]
                    return first + relative
                return first
        if kind == "invocation_expression":
            function = node.child_by_field_name("function")
            arguments = _arguments(node.child_by_field_name("arguments"))
            if function is not None and self.text(function) == "nameof" and arguments:
                return [_Piece(True, self.text(arguments[0][1]).rsplit(".", 1)[-1])]
            found = self._invocation_pieces(node, function, arguments, depth)
            if found:
                return found
        return [_Piece(False, self.text(node), node)]

    # -- URLs built by calls: string.Format, URL joins, builder methods of the file --------------------

    def _invocation_pieces(
        self,
        node: tree_sitter.Node,
        function: tree_sitter.Node | None,
        arguments: list[tuple[str, tree_sitter.Node]],
        depth: int,
    ) -> list[_Piece]:
        """The pieces of a call that builds a string this module can read ([]: none)."""
        if function is None:
            return []
        method, holder = function, None
        if function.type == "member_access_expression":
            method, holder = function.child_by_field_name("name"), function.child_by_field_name("expression")
        name = self.text(_plain_name(method))
        if holder is not None and name == "Format" and self.text(holder) in ("string", "String"):
            return self._format_pieces(arguments, depth)
        if holder is not None and name == "ToString" and not arguments:
            inner = _unwrap(holder)
            if (
                inner is not None
                and inner.type == "member_access_expression"
                and self.text(inner.child_by_field_name("name")) == "Uri"
            ):
                inner = inner.child_by_field_name("expression")  # builder.Uri.ToString()
            return self._uri_builder_pieces(inner, depth)
        if holder is not None and name in _URL_JOINS:
            owner = self.text(holder).rsplit(".", 1)[-1]
            if re.search(r"(?i)ur[il]", owner + name):
                return self._joined_pieces(arguments, depth)
        return self._builder_pieces(node, function, arguments, depth)

    def _format_pieces(self, arguments: list[tuple[str, tree_sitter.Node]], depth: int) -> list[_Piece]:
        """``string.Format("{0}/items/{1}", a, b)`` (after an optional format provider)."""
        values = [value for key, value in arguments if not key]
        if len(values) > 1 and self.literal(values[0]) is None and self.literal(values[1]) is not None:
            values = values[1:]  # string.Format(CultureInfo.InvariantCulture, "...", ...)
        template = self.literal(values[0]) if values else None
        if template is None:
            return []
        out: list[_Piece] = []
        position = 0
        for match in _FORMAT_ITEM.finditer(template):
            out.append(_Piece(True, template[position : match.start()]))
            position = match.end()
            if match[1] is None:
                out.append(_Piece(True, match[0][0]))
                continue
            index = int(match[1]) + 1
            if index >= len(values):
                return []  # a format the call does not fill: not read
            out.extend(self.pieces(values[index], depth + 1))
        out.append(_Piece(True, template[position:]))
        return _merged([piece for piece in out if not piece.literal or piece.text])

    def _joined_pieces(self, arguments: list[tuple[str, tree_sitter.Node]], depth: int) -> list[_Piece]:
        """The parts of a URL-joining helper joined by exactly one ``/`` (a first part that is not
        literal stays an expression: the base address)."""
        values = [value for key, value in arguments if not key]
        if len(values) == 1:
            single = _unwrap(values[0])
            if single is not None and single.type in _COLLECTIONS:
                values = _elements(single)  # CombineUri(new[] { a, b })
        if not 2 <= len(values) <= 16:
            return []
        out: list[_Piece] = []
        for index, value in enumerate(values):
            part = self.pieces(value, depth + 1)
            if not part:
                return []
            if index:
                if out and out[-1].literal:
                    out[-1] = _Piece(True, out[-1].text.rstrip("/\\"))
                if part[0].literal:
                    part = [_Piece(True, part[0].text.lstrip("/\\")), *part[1:]]
                out.append(_Piece(True, "/"))
            out.extend(part)
        return _merged([piece for piece in out if not piece.literal or piece.text])

    def _uri_builder_pieces(self, holder: tree_sitter.Node | None, depth: int) -> list[_Piece]:
        """The URL a ``System.UriBuilder`` builds (``new UriBuilder(baseUrl) { Path = "api/x" }``, or a
        name holding one whose ``Path``/``Host`` are set later): the base's scheme and authority, the
        ``Path`` set (it replaces the base's own path); [] when it is no builder or a part is assigned
        more than once."""
        node = _unwrap(holder)
        creation: tree_sitter.Node | None = None
        members: list[tuple[str, tree_sitter.Node]] = []
        if node is not None and node.type == "object_creation_expression":
            creation = node
        elif node is not None and (node.type == "identifier" or self._is_this_member(node)):
            values = [_unwrap(b.value) for b in self._lookup(node) or [] if b.value is not None and b.kind != "append"]
            if len(values) != 1:
                return []
            creation = values[0]
            members = self._members(node)
        if (
            creation is None
            or creation.type != "object_creation_expression"
            or _simple_type(creation.child_by_field_name("type"), self.source) != "UriBuilder"
        ):
            return []
        initializer = creation.child_by_field_name("initializer") or next(
            (c for c in creation.named_children if c.type == "initializer_expression"), None
        )
        for assignment in initializer.named_children if initializer is not None else ():
            if assignment.type == "assignment_expression" and assignment.child_by_field_name("right") is not None:
                members.append(
                    (self.text(assignment.child_by_field_name("left")), assignment.child_by_field_name("right"))
                )  # type: ignore[arg-type]
        set_to: dict[str, list[tree_sitter.Node]] = {}
        for member, value in members:
            set_to.setdefault(member, []).append(value)
        if len(set_to.get("Path", ())) > 1 or len(set_to.get("Host", ())) > 1:
            return []
        arguments = [value for key, value in _arguments(creation.child_by_field_name("arguments")) if not key]
        if len(arguments) == 1:
            base = self.pieces(arguments[0], depth + 1)
        elif len(arguments) >= 2:
            scheme, host = self.literal(arguments[0]), self.pieces(arguments[1], depth + 1)
            base = _merged([_Piece(True, (scheme or "http") + "://"), *host])
        else:
            base = [_Piece(True, "http://localhost")]
        if not base:
            return []
        host_value = self.literal(set_to["Host"][0]) if "Host" in set_to else None
        path = (
            self.pieces(set_to["Path"][0], depth + 1)
            if "Path" in set_to
            else ([] if len(arguments) < 4 else self.pieces(arguments[3], depth + 1))
        )
        if base[0].literal:
            scheme = _SCHEME_PREFIX.match(base[0].text)
            if scheme is not None:
                authority = base[0].text[scheme.end() :].split("/", 1)[0]
                rest = base[0].text[scheme.end() + len(authority) :]
                if host_value:
                    authority = host_value + (authority[authority.find(":") :] if ":" in authority else "")
                base = [_Piece(True, scheme[0] + authority + ("" if path else rest)), *([] if path else base[1:])]
        if not path:
            return base
        if path[0].literal:
            path = [_Piece(True, "/" + path[0].text.lstrip("/")), *path[1:]]
        else:
            path = [_Piece(True, "/"), *path]
        return _merged([*base, *path])

    def _builder_pieces(
        self,
        node: tree_sitter.Node,
        function: tree_sitter.Node,
        arguments: list[tuple[str, tree_sitter.Node]],
        depth: int,
    ) -> list[_Piece]:
        """A call of a method of this file that returns a string built from its parameters, expanded
        with the arguments in their place (one level: no builder inside a builder). Every ``return``
        must read the same (host, base, path); else the URL stays computed ([])."""
        if self.expanding:
            return []
        if node.id in self.expanded:
            return list(self.expanded[node.id])
        self.expanded[node.id] = []  # a call reached again while it is expanded reads as computed
        found = self._expansion(node, function, arguments, depth)
        self.expanded[node.id] = found
        return list(found)

    def _expansion(
        self,
        node: tree_sitter.Node,
        function: tree_sitter.Node,
        arguments: list[tuple[str, tree_sitter.Node]],
        depth: int,
    ) -> list[_Piece]:
        method = self._builder(node, function, arguments)
        if method is None:
            return []
        if method.id not in self.returns:
            self.returns[method.id] = self._returned(method)
        returned = self.returns[method.id]
        if not returned:
            return []
        substitutions = self._arguments_of(method, arguments)
        if substitutions is None:
            return []
        self.expanding, self.substitutions = True, substitutions
        try:
            expansions = [self.pieces(value, depth + 1) for value in returned]
        finally:
            self.expanding, self.substitutions = False, {}
        shapes = set()
        for pieces in expansions:
            if not pieces or (len(pieces) == 1 and not pieces[0].literal):
                return []
            parts = url_parts([(piece.literal, piece.text) for piece in _fold_ports(pieces)])
            shapes.add((parts.host, parts.base, parts.path, parts.computed))
        return expansions[0] if len(shapes) == 1 else []

    def _builder(
        self, node: tree_sitter.Node, function: tree_sitter.Node, arguments: list[tuple[str, tree_sitter.Node]]
    ) -> tree_sitter.Node | None:
        """The one method of this file a call names (``Build(..)``, ``this.Build(..)``, ``Owner.Build(..)``
        of a class of the file) that returns a string or a ``Uri`` and takes these arguments."""
        if function.type in ("identifier", "generic_name"):
            name, owner = self.text(_plain_name(function)), None
        elif function.type == "member_access_expression":
            holder = function.child_by_field_name("expression")
            name = self.text(_plain_name(function.child_by_field_name("name")))
            if holder is None:
                return None
            if holder.type in ("this", "this_expression"):
                owner = None
            elif holder.type == "identifier" and self._lookup(holder) is None and self.text(holder) in self.class_names:
                owner = self.classes.nodes[self.class_names[self.text(holder)]]
            else:
                return None
        else:
            return None
        if self.methods is None:
            self.methods = {}
            for scope in self.captures.get("scope", ()):
                if scope.type in ("method_declaration", "local_function_statement"):
                    self.methods.setdefault(self.text(scope.child_by_field_name("name")), []).append(scope)
        positional = sum(1 for key, _ in arguments if not key)
        found = []
        for method in self.methods.get(name, ()):
            if owner is not None and not (owner.start_byte <= method.start_byte < owner.end_byte):
                continue
            returns = method.child_by_field_name("returns") or method.child_by_field_name("type")
            if _simple_type(returns, self.source) not in _BUILDER_TYPES:
                continue
            parameters = self._parameters(method)
            required = sum(1 for p in parameters if not any(not c.is_named and self.text(c) == "=" for c in p.children))
            variadic = any(c.type == "modifier" and self.text(c) == "params" for p in parameters for c in p.children)
            if required <= positional + sum(1 for key, _ in arguments if key) and (
                positional <= len(parameters) or variadic
            ):
                found.append(method)
        if len(found) != 1 or found[0].start_byte <= node.start_byte < found[0].end_byte:
            return None  # none, overloads that the arguments do not tell apart, or a method calling itself
        return found[0]

    def _returned(self, method: tree_sitter.Node) -> list[tree_sitter.Node]:
        """The expressions a method returns: its arrow body, else every ``return`` of its own body (not
        of a lambda or local function inside); [] when one returns nothing."""
        body = method.child_by_field_name("body")
        if body is None:
            return []
        if body.type == "arrow_expression_clause":
            return [body.named_child(0)] if body.named_child_count else []
        found: list[tree_sitter.Node] = []
        stack = list(reversed(body.named_children))
        budget = 2048
        while stack and budget:
            budget -= 1
            current = stack.pop()
            if current.type == "return_statement":
                if not current.named_child_count or len(found) >= _RETURNS_MAX:
                    return []  # returns nothing, or more ways than a URL builder has
                found.append(current.named_child(0))
            elif current.type not in (
                "lambda_expression",
                "local_function_statement",
                "anonymous_method_expression",
                "class_declaration",
            ):
                stack.extend(reversed(current.named_children))
        return found if not stack else []

    def _arguments_of(
        self, method: tree_sitter.Node, arguments: list[tuple[str, tree_sitter.Node]]
    ) -> dict[int, tree_sitter.Node] | None:
        """Parameter node id -> the argument (or default) it takes in a call; None when a parameter is
        reassigned in the method (its value is then not the argument's alone)."""
        parameters = self._parameters(method)
        positional = [value for key, value in arguments if not key]
        named = {key: value for key, value in arguments if key}
        out: dict[int, tree_sitter.Node] = {}
        for index, parameter in enumerate(parameters):
            name = self.text(parameter.child_by_field_name("name"))
            bindings = self.locals.get((self.scopes.innermost(parameter.start_byte, parameter.end_byte), name), [])
            if any(
                b.kind == "assign" or b.kind == "append" and not self._query_text(b.value)
                for b in bindings
                if b.value is not None
            ):
                return None
            if any(c.type == "modifier" and self.text(c) == "params" for c in parameter.children):
                break
            value = named[name] if name in named else positional[index] if index < len(positional) else None
            default = next((b.value for b in bindings if b.kind == "parameter"), None)
            if value is None:
                value = default
            if value is not None:
                out[parameter.id] = value
        return out

    def _substituted(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The argument a parameter of the builder method being expanded stands for (None: not one)."""
        bindings = self._lookup(node)
        for binding in bindings or ():
            if binding.kind == "parameter":
                return self.substitutions.get(binding.node.id)
        return None

    def _name_values(self, node: tree_sitter.Node) -> list[tree_sitter.Node] | None:
        """The values of a name, ``this.x`` or ``Owner.NAME`` of a class of this file (None: not one)."""
        if node.type == "identifier":
            values = self._values(node)
            return values if values is not None else self._file_constant(self.text(node))
        holder = node.child_by_field_name("expression")
        if holder is not None and holder.type in ("this", "this_expression"):
            return self._values(node)
        if holder is not None and holder.type == "identifier" and self._lookup(holder) is None:
            klass = self.class_names.get(self.text(holder))
            if klass is not None:
                bindings = self.fields.get((klass, self.text(node.child_by_field_name("name"))))
                if bindings is not None:
                    return [b.value for b in bindings if b.value is not None and b.kind != "append"]
        return None

    def _file_constant(self, name: str) -> list[tree_sitter.Node] | None:
        """The values of the fields named ``name`` in this file's classes, for a name bound nowhere in
        scope (a constant of the implicit ``Program`` class, of a ``using static`` type...); None: none."""
        if self.file_fields is None:
            self.file_fields = {}
            for (_, field), bindings in self.fields.items():
                for binding in bindings:
                    if binding.value is not None and binding.kind == "field":
                        self.file_fields.setdefault(field, []).append(binding.value)
        return self.file_fields.get(name)

    def _operator(self, node: tree_sitter.Node) -> str:
        operator = node.child_by_field_name("operator")
        return self.text(operator) if operator is not None else ""

    def _string(self, node: tree_sitter.Node) -> str:
        if node.type == "string_literal":
            return "".join(
                self._escape(self.text(c)) if c.type == "escape_sequence" else self.text(c)
                for c in node.named_children
                if c.type in ("string_literal_content", "escape_sequence")
            )
        if node.type == "raw_string_literal":
            return "".join(self.text(c) for c in node.named_children if c.type == "raw_string_content")
        text = self.text(node)
        return text[2:-1].replace('""', '"') if text.startswith('@"') and text.endswith('"') and len(text) >= 3 else ""

    @staticmethod
    def _escape(sequence: str) -> str:
        return {"\\\\": "\\", '\\"': '"', "\\'": "'", "\\/": "/", "{{": "{", "}}": "}"}.get(sequence, "")

    # -- addresses ------------------------------------------------------------------------------

    def address(self, node: tree_sitter.Node | None, depth: int = 0) -> tuple[str, str]:
        """(address, literal default) of an expression: ``env:NAME``, ``config:key``, ``const:Owner.NAME``."""
        node = _unwrap(node)
        if node is None or depth > _DEPTH_MAX or node.id in self.visiting:
            return "", ""
        self.visiting.add(node.id)
        try:
            found, default = self._address(node, depth)
        finally:
            self.visiting.discard(node.id)
        if found.startswith(("env:", "config:")) and (
            secret_name(found.partition(":")[2]) or _SECRET_WORDS.search(found.partition(":")[2])
        ):
            return "", ""  # a secret-looking variable or key is never kept (INV-LINKS-3)
        return found, default

    def _address(self, node: tree_sitter.Node, depth: int) -> tuple[str, str]:
        kind = node.type
        if kind == "binary_expression":
            operator = self._operator(node)
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if operator == "??":
                found, default = self.address(left, depth + 1)
                if found:
                    return found, default or (self.literal(right) or "")
                return self.address(right, depth + 1)
            if operator == "+":
                return self.address(left, depth + 1)
            return "", ""
        if kind == "interpolated_string_expression":
            first = next(
                (c for c in node.named_children if c.type not in ("interpolation_start", "interpolation_quote")), None
            )
            if first is not None and first.type == "interpolation":
                return self.address(_interpolated(first), depth + 1)
            return "", ""
        if kind in ("object_creation_expression", "implicit_object_creation_expression"):
            arguments = _arguments(
                node.child_by_field_name("arguments")
                or next((c for c in node.named_children if c.type == "argument_list"), None)
            )
            return self.address(arguments[0][1], depth + 1) if arguments else ("", "")
        if kind in ("invocation_expression", "element_access_expression"):
            env = self._env(node)
            if env:
                return "env:" + env, ""
            key = self._config_key(node)
            return ("config:" + key, "") if key else ("", "")
        if kind == "member_access_expression":
            key = self._config_key(node)
            if key:
                return "config:" + key, ""
        if kind in ("identifier", "member_access_expression"):
            bindings = self._lookup(node) if kind == "identifier" or self._is_this(node) else None
            if bindings is not None:
                for binding in bindings:
                    if binding.value is not None and binding.kind != "append":
                        found = self.address(binding.value, depth + 1)
                        if found[0]:
                            return found
                return "", ""
            values = self._name_values(node)
            if values:
                for value in values:
                    found = self.address(value, depth + 1)
                    if found[0]:
                        return found
                return "", ""
            if values is None:
                if kind == "identifier":
                    return (f"const:{self.text(node)}", "") if self.text(node)[:1].isupper() else ("", "")
                return self._const_reference(node), ""
        return "", ""

    def _is_this(self, node: tree_sitter.Node) -> bool:
        holder = node.child_by_field_name("expression")
        return holder is not None and holder.type in ("this", "this_expression")

    def _const_reference(self, node: tree_sitter.Node) -> str:
        """``const:Owner.NAME`` for ``[Ns.]Owner.NAME`` naming a member of a type of another file."""
        if node.type != "member_access_expression":
            return ""
        holder = node.child_by_field_name("expression")
        name = self.text(node.child_by_field_name("name"))
        if holder is None or not name:
            return ""
        root = holder
        while root is not None and root.type == "member_access_expression":
            if not self.text(root.child_by_field_name("name"))[:1].isupper():
                return ""
            root = root.child_by_field_name("expression")
        if root is None or root.type != "identifier" or not self.text(root)[:1].isupper():
            return ""
        owner = self.text(holder.child_by_field_name("name") if holder.type == "member_access_expression" else holder)
        if owner in ("Environment", "HttpMethod", "HttpMethods", "Method", "String") or self._lookup(root) is not None:
            return ""
        return f"const:{owner}.{name}"

    def _env(self, node: tree_sitter.Node) -> str:
        """NAME of ``Environment.GetEnvironmentVariable("NAME")``."""
        if node.type != "invocation_expression":
            return ""
        function = node.child_by_field_name("function")
        name = (
            function.child_by_field_name("name")
            if function is not None and function.type == "member_access_expression"
            else function
        )
        if name is None or self.text(name) != "GetEnvironmentVariable":
            return ""
        first = _argument(_arguments(node.child_by_field_name("arguments")), 0, "variable")
        return self.literal(first) or ""

    def _config_key(self, node: tree_sitter.Node, depth: int = 0) -> str:
        """The dotted key of a configuration read (``configuration["A:B"]`` -> ``A.B``), "" when none."""
        if depth > _DEPTH_MAX:
            return ""
        key = ""
        holder: tree_sitter.Node | None = None
        if node.type == "element_access_expression":
            holder = node.child_by_field_name("expression")
            subscript = node.child_by_field_name("subscript")
            arguments = _arguments(subscript)
            key = self.literal(arguments[0][1]) or "" if len(arguments) == 1 else ""
        elif node.type == "invocation_expression":
            function = node.child_by_field_name("function")
            if function is None or function.type != "member_access_expression":
                return ""
            holder = function.child_by_field_name("expression")
            method = self.text(_plain_name(function.child_by_field_name("name")))
            first = _argument(_arguments(node.child_by_field_name("arguments")), 0, "key", "name")
            if method == "GetConnectionString":
                key = "ConnectionStrings:" + (self.literal(first) or "")
            elif method in ("GetValue", "GetRequiredValue", "GetSection", "GetRequiredSection"):
                key = self.literal(first) or ""
            else:
                return ""
        elif node.type == "member_access_expression":
            if self.text(node.child_by_field_name("name")) != "Value":
                return ""
            inner = node.child_by_field_name("expression")
            return (
                self._config_key(inner, depth + 1)
                if inner is not None and inner.type == "invocation_expression"
                else ""
            )
        if not key or holder is None or key.endswith(":"):
            return ""
        holder = _unwrap(holder)
        if holder is None:
            return ""
        prefix = ""
        if holder.type == "invocation_expression":
            prefix = self._config_key(holder, depth + 1)
            if not prefix:
                return ""
        elif not self._configuration(holder):
            return ""
        dotted = (prefix + "." if prefix else "") + key.replace(":", ".")
        return dotted

    def _configuration(self, node: tree_sitter.Node) -> bool:
        """Whether an expression is an ``IConfiguration`` (by its declared type, else by its name)."""
        name = node.child_by_field_name("name") if node.type == "member_access_expression" else node
        if name is None or name.type != "identifier":
            return False
        bindings = self._lookup(node) if node.type == "identifier" or self._is_this(node) else None
        if bindings:
            types = {_simple_type(b.type, self.source) for b in bindings if b.type is not None}
            if types & _CONFIG_TYPES:
                return True
        return bool(_CONFIG_NAME.search(self.text(name)))

    def name_of(self, node: tree_sitter.Node | None) -> _Name:
        """A topic/queue/subject name: its literal, else where it comes from, else computed."""
        if node is None:
            return _NO_NAME
        text = self.literal(node)
        if text is not None:
            return _Name(text, "")
        found, default = self.address(node)
        return _Name(default, found) if found else _NO_NAME

    # -- symbols and facts ----------------------------------------------------------------------

    def _route(
        self,
        at: tree_sitter.Node,
        method: str,
        path: str,
        handler: str,
        framework: str,
        symbol_at: tree_sitter.Node | None = None,
    ) -> None:
        symbol = self.symbol((symbol_at or at).start_byte)
        route = HttpRoute(method, path, _ts.line(at), handler, symbol, framework)
        self.routes.append((at.start_byte, len(self.routes), route))

    def _message(
        self,
        at: tree_sitter.Node,
        role: str,
        broker: str,
        name: _Name,
        kind: str,
        client: str,
        once: bool = False,
        stored: bool = False,
    ) -> None:
        """``once``: one fact per event per method; a publish wins over an outbox hand-off that only
        ``stored`` the event for publishing (``SaveEventAndChangesAsync(e)`` then ``PublishAsync(e)``)."""
        symbol = self.symbol(at.start_byte)
        fact = MessageFact(role, broker, name.name, _ts.line(at), kind, symbol, name.address, client, name.computed)
        if once:
            key = (role, broker, name.name or name.address, symbol)
            if key in self.seen_messages and not name.computed:
                earlier = self.stored_messages.pop(key, None)
                if earlier is not None and not stored:
                    position = next(i for i, entry in enumerate(self.messages) if entry[2] is earlier)
                    self.messages[position] = (at.start_byte, self.messages[position][1], fact)
                return
            self.seen_messages.add(key)
            if stored:
                self.stored_messages[key] = fact
        self.messages.append((at.start_byte, len(self.messages), fact))

    def _setting(self, at: tree_sitter.Node, key: str, value: tree_sitter.Node | None) -> None:
        """A typed or named client's base address: the host read, and where it comes from (``env``:
        the variable, ``config:key``, or ``const:Owner.NAME`` for a member naming it, which the
        resolution follows through the constant, else by the member's name)."""
        base = self._base_of_value(value) or _Base()
        address = base.address
        if not address:
            member = self._base_member(value)
            address = "const:" + member if member else ""
        env = (
            address[4:] if address.startswith("env:") else address if address.startswith(("config:", "const:")) else ""
        )
        if not base.host and not env:
            return
        path = base.path if base.path != "/" else ""
        fact = Setting(key, _ts.line(at), base.host, env, path)
        self.settings.append((at.start_byte, len(self.settings), fact))

    # -- classes: controllers, Refit interfaces, consumers ------------------------------------------

    def _class(self, node: tree_sitter.Node) -> None:
        name = self.text(node.child_by_field_name("name"))
        attributes = self._attributes(node)
        bases = next((c for c in node.named_children if c.type == "base_list"), None)
        base_nodes = list(bases.named_children) if bases is not None else []
        if node.type == "interface_declaration":
            self._refit(node, name, attributes)
            return
        for base in base_nodes:
            self._consumer_base(node, base)
        controller = (
            name.endswith("Controller")
            or any(a in ("ApiController", "Controller") for a, _ in attributes)
            or any(_CONTROLLER_BASES.search(_simple_type(b, self.source)) for b in base_nodes)
        )
        if controller and not any(a == "NonController" for a, _ in attributes):
            self._controller(node, name, attributes)
        elif any(a == "Route" for a, _ in attributes) and self._component(node):
            self._component_routes(node, name, attributes)

    def _component(self, node: tree_sitter.Node) -> bool:
        """Whether a class is a Blazor component: it derives from ``ComponentBase`` (or its kin), or is
        the ``partial`` code-behind of a ``.razor`` file in a file using ``Microsoft.AspNetCore.Components``."""
        if self._root_base(node) in _COMPONENT_BASES:
            return True
        partial = any(c.type == "modifier" and self.text(c) == "partial" for c in node.children)
        return partial and not self._first_base(node) and self._imports("Microsoft.AspNetCore.Components")

    def _component_routes(
        self, node: tree_sitter.Node, name: str, attributes: list[tuple[str, tree_sitter.Node]]
    ) -> None:
        """``[Route("/counter")]`` on a component class routes it as ``@page "/counter"`` does: GET."""
        for attribute_name, attribute in attributes:
            template = self._template(attribute) if attribute_name == "Route" else None
            if template is not None:
                self._route(attribute, "GET", aspnet_route(template), name, "blazor", node)

    def _attributes(self, node: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
        """(simple name without ``Attribute``, attribute node) of a declaration's attribute lists."""
        found = []
        for child in node.children:
            if child.type != "attribute_list":
                continue
            for attribute in child.named_children:
                if attribute.type == "attribute":
                    name = _simple_type(attribute.child_by_field_name("name"), self.source)
                    found.append((name[:-9] if name.endswith("Attribute") and len(name) > 9 else name, attribute))
        return found

    def _attribute_arguments(self, attribute: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
        return _arguments(next((c for c in attribute.named_children if c.type == "attribute_argument_list"), None))

    def _template(self, attribute: tree_sitter.Node, *names: str) -> str | None:
        """The route template of an attribute (its first positional argument or one named ``names``)."""
        value = _argument(self._attribute_arguments(attribute), 0, "template", *names)
        return self.literal(value) if value is not None else None

    def _class_prefixes(
        self, node: tree_sitter.Node, attributes: list[tuple[str, tree_sitter.Node]], depth: int = 0
    ) -> list[str]:
        """The ``[Route]`` templates of a controller class, its base class's in this file when it has none."""
        prefixes = [t for a, attr in attributes if a == "Route" for t in [self._template(attr)] if t is not None]
        if prefixes or depth > 4:
            return prefixes
        bases = next((c for c in node.named_children if c.type == "base_list"), None)
        for base in bases.named_children if bases is not None else ():
            klass = self.class_names.get(_simple_type(base, self.source))
            if klass is not None and self.classes.nodes[klass].id != node.id:
                parent = self.classes.nodes[klass]
                return self._class_prefixes(parent, self._attributes(parent), depth + 1)
        return []

    def _controller(self, node: tree_sitter.Node, name: str, attributes: list[tuple[str, tree_sitter.Node]]) -> None:
        prefixes = self._class_prefixes(node, attributes)
        unknown_prefix = not prefixes and not self._no_inherited_route(node)
        # Web API 2's [RoutePrefix] prefixes the actions that carry a template, and only those
        route_prefixes = [t for a, attr in attributes if a == "RoutePrefix" for t in [self._template(attr)] if t]
        convention = None if prefixes or unknown_prefix else self._convention(node, name, attributes)
        web_api = self._web_api_base(self._first_base(node))  # Web API 2: an action's verb is in its name
        # ASP.NET Core drops an action's "Async" suffix; MVC 5 and Web API 2 keep it
        trim_async = not self._imports_any(("System.Web.Mvc", "System.Web.Http"))
        area = next(
            (
                self.literal(_argument(self._attribute_arguments(a), 0, "areaName"))
                for n, a in attributes
                if n == "Area"
            ),
            None,
        )
        tokens = {"controller": name[:-10] if name.endswith("Controller") and len(name) > 10 else name, "area": area}
        body = node.child_by_field_name("body")
        for method in body.named_children if body is not None else ():
            if method.type != "method_declaration":
                continue
            modifiers = {self.text(c) for c in method.children if c.type == "modifier"}
            if "public" not in modifiers or modifiers & {"static", "override", "abstract"}:
                continue
            method_attributes = self._attributes(method)
            if any(a == "NonAction" for a, _ in method_attributes):
                continue
            action = self.text(method.child_by_field_name("name"))
            if any(c.type == "type_parameter_list" for c in method.children) or (
                action == "Dispose" and not self._parameters(method)
            ):
                continue  # a generic method or IDisposable's Dispose is no action
            action_name = next(
                (
                    self.literal(_argument(self._attribute_arguments(a), 0, "name"))
                    for n, a in method_attributes
                    if n == "ActionName"
                ),
                None,
            )
            trimmed = action[:-5] if action.endswith("Async") and len(action) > 5 and trim_async else action
            tokens["action"] = action_name or trimmed
            routes = self._action_routes(method_attributes, bool(prefixes))
            if not routes and convention is not None:
                self._conventional(method, method_attributes, convention, tokens, f"{name}.{action}")
            for at, verb, template in routes:
                if template is not None and template.startswith(("/", "~/")):
                    paths = [template.lstrip("~")]
                elif unknown_prefix:
                    continue  # the base class of another file may give a prefix: no guess
                else:
                    outer = prefixes or route_prefixes
                    paths = [join_paths(prefix, template or "") for prefix in outer] if outer else [template or ""]
                if verb == "*" and web_api:
                    verb = _web_api_verb(action)
                for path in paths:
                    replaced = self._tokens(path, tokens)
                    if replaced is not None:
                        self._route(at or method, verb, aspnet_route(replaced), f"{name}.{action}", "aspnet", method)

    def _no_inherited_route(self, node: tree_sitter.Node, depth: int = 0) -> bool:
        """Whether a class without ``[Route]`` is known to inherit none: no base class, a framework
        controller, or a base class of this file that has and inherits none."""
        bases = next((c for c in node.named_children if c.type == "base_list"), None)
        first = bases.named_child(0) if bases is not None and bases.named_child_count else None
        base = _simple_type(first, self.source)
        if not base or base in _FRAMEWORK_CONTROLLERS or re.match(r"^I[A-Z]", base) or self._web_api_base(base):
            return True
        klass = self.class_names.get(base)
        if klass is None or depth > 4 or self.classes.nodes[klass].id == node.id:
            return False
        parent = self.classes.nodes[klass]
        return not any(a == "Route" for a, _ in self._attributes(parent)) and self._no_inherited_route(
            parent, depth + 1
        )

    def _action_routes(
        self, attributes: list[tuple[str, tree_sitter.Node]], prefixed: bool
    ) -> list[tuple[tree_sitter.Node | None, str, str | None]]:
        """(attribute, verb, template) of each route of an action, as ASP.NET Core combines them."""
        routed: list[tuple[tree_sitter.Node | None, str, str | None]] = []
        verbs: list[tuple[tree_sitter.Node, str]] = []
        templates: list[tuple[tree_sitter.Node, str]] = []
        for name, attribute in attributes:
            if name in _VERB_ATTRIBUTES:
                template = self._template(attribute)
                if template is not None:
                    routed.append((attribute, _VERB_ATTRIBUTES[name], template))
                else:
                    verbs.append((attribute, _VERB_ATTRIBUTES[name]))
            elif name == "AcceptVerbs":
                arguments = self._attribute_arguments(attribute)
                template = self.literal(_argument(arguments, -1, "Route"))
                for argument_name, value in arguments:
                    verb = (self.literal(value) or "").upper() if not argument_name else ""
                    if verb in HTTP_METHODS:
                        if template is not None:
                            routed.append((attribute, verb, template))
                        else:
                            verbs.append((attribute, verb))
            elif name == "Route":
                template = self._template(attribute)
                if template is not None:
                    templates.append((attribute, template))
        for attribute, template in templates:
            if verbs:
                routed.extend((attribute, verb, template) for _, verb in verbs)
            else:
                routed.append((attribute, "*", template))
        if not templates:
            routed.extend((attribute, verb, None) for attribute, verb in verbs if prefixed)
        if not routed and prefixed:
            routed.append((None, "*", None))
        return routed

    @staticmethod
    def _tokens(path: str, tokens: dict[str, str | None]) -> str | None:
        """``path`` with ``[controller]``, ``[action]``, ``[area]`` replaced (None: a token has no value)."""
        missing = False

        def replace(match: re.Match[str]) -> str:
            nonlocal missing
            value = tokens.get(match[1].lower())
            if value is None:
                missing = True
                return ""
            return value

        replaced = re.sub(r"\[(\w+)\]", replace, path)
        return None if missing else replaced

    # -- conventional routing ----------------------------------------------------------------------

    def _convention(
        self, node: tree_sitter.Node, name: str, attributes: list[tuple[str, tree_sitter.Node]]
    ) -> _Convention | None:
        """The conventional routes that reach the actions of a controller class carrying no route
        attribute (None: routed by attributes only, or no MVC / Web API controller as ASP.NET finds
        them: a public, non-abstract, non-generic, top-level class)."""
        modifiers = {self.text(c) for c in node.children if c.type == "modifier"}
        if "public" not in modifiers or modifiers & {"abstract", "static"} or node.type != "class_declaration":
            return None
        if any(c.type == "type_parameter_list" for c in node.children) or self._nested(node):
            return None
        if any(a in ("ApiController", "NonController") for a, _ in attributes):
            return None  # [ApiController] requires attribute routing
        root = self._root_base(node)
        if self._web_api_base(root):
            style = "webapi"
        elif root in ("Controller", "ControllerBase") or any(a == "Controller" for a, _ in attributes):
            style = "mvc"
        elif (
            (not root or re.match(r"^I[A-Z]", root))
            and name.endswith("Controller")
            and (self._imports_any(_MVC_NAMESPACES) or self._returns_action_results(node))
        ):
            style = "mvc"  # a POCO controller (ASP.NET Core finds it by its name)
        else:
            return None  # OData's, another framework's (UIKit's UIViewController...) or no controller
        patterns = [p for p in self._route_patterns() if p.style == style]
        return _Convention(style, tuple(patterns) or _DEFAULT_CONVENTIONS[style])

    def _first_base(self, node: tree_sitter.Node) -> str:
        """The simple name of the first type of a class's base list ("" when none)."""
        bases = next((c for c in node.named_children if c.type == "base_list"), None)
        return _simple_type(
            bases.named_child(0) if bases is not None and bases.named_child_count else None, self.source
        )

    def _root_base(self, node: tree_sitter.Node) -> str:
        """The first base class up the chain of this file's classes that this file does not declare
        (``Controller`` for ``HomeController : AppController`` and ``AppController : Controller``)."""
        for _ in range(_DEPTH_MAX):
            base = self._first_base(node)
            klass = self.class_names.get(base)
            if klass is None or self.classes.nodes[klass].id == node.id:
                return base
            node = self.classes.nodes[klass]
        return ""

    def _web_api_base(self, base: str) -> bool:
        """Whether a base class is ASP.NET Web API 2's ``ApiController`` (the file uses
        ``System.Web.Http``; an ASP.NET Core app's own ``ApiController`` base may carry a route)."""
        return base == "ApiController" and self._imports("System.Web.Http")

    def _nested(self, node: tree_sitter.Node) -> bool:
        parent = node.parent
        holder = parent.parent if parent is not None and parent.type == "declaration_list" else None
        return holder is not None and holder.type in (
            "class_declaration",
            "struct_declaration",
            "record_declaration",
            "interface_declaration",
        )

    def _imports_any(self, namespaces: Iterable[str]) -> bool:
        return any(self._imports(namespace) for namespace in namespaces)

    def _returns_action_results(self, node: tree_sitter.Node) -> bool:
        """Whether a public method of the class returns an MVC action result (``IActionResult``,
        ``Task<ActionResult<T>>``, ``ViewResult``...)."""
        body = node.child_by_field_name("body")
        for method in body.named_children if body is not None else ():
            if method.type != "method_declaration":
                continue
            returns = method.child_by_field_name("returns")
            returned = _simple_type(_awaited(returns, self.source) or returns, self.source)
            if _ACTION_RESULT.search(returned):
                return True
        return False

    def _route_patterns(self) -> list[_Pattern]:
        """The conventional route templates this file registers (``MapControllerRoute``,
        ``MapDefaultControllerRoute``, ``MapAreaControllerRoute``, MVC's ``MapRoute``, Web API's
        ``MapHttpRoute``) whose template names the controller (and, for MVC, the action)."""
        if self.patterns is not None:
            return self.patterns
        found: list[_Pattern] = []
        for call in self.captures.get("call", ()):
            function = call.child_by_field_name("function")
            if function is None or function.type != "member_access_expression":
                continue
            method = self.text(_plain_name(function.child_by_field_name("name")))
            if method not in _CONVENTIONAL_MAPS:
                continue
            arguments = _arguments(call.child_by_field_name("arguments"))
            if method == "MapDefaultControllerRoute":
                found.append(_DEFAULT_CONVENTIONS["mvc"][0])
                continue
            area: str | None = None
            style, defaults = ("webapi" if method == "MapHttpRoute" else "mvc"), 2
            if method == "MapAreaControllerRoute":
                area = self.literal(_argument(arguments, 1, "areaName"))
                pattern, defaults = self.literal(_argument(arguments, 2, "pattern")), 3
                if not area:
                    continue
            else:
                pattern = self.literal(_argument(arguments, 1, "pattern", "template", "url", "routeTemplate"))
            if pattern is None or "{controller" not in pattern or (style == "mvc" and "{action" not in pattern):
                continue
            optional = self._default_names(_argument(arguments, defaults, "defaults"))
            found.append(_Pattern(style, pattern, area, optional))
        self.patterns = found
        return found

    def _default_names(self, node: tree_sitter.Node | None) -> frozenset[str]:
        """The (lower-case) names given a default by ``new { id = UrlParameter.Optional, ... }``."""
        node = _unwrap(node)
        if node is None or node.type != "anonymous_object_creation_expression":
            return frozenset()
        children = node.children
        return frozenset(
            self.text(child).lower()
            for child, after in itertools.pairwise(children)
            if child.type == "identifier" and self.text(after) == "="
        )

    def _conventional(
        self,
        method: tree_sitter.Node,
        attributes: list[tuple[str, tree_sitter.Node]],
        convention: _Convention,
        tokens: dict[str, str | None],
        handler: str,
    ) -> None:
        """The routes conventional routing gives an action: each template with the controller, action
        and area filled in, an optional parameter kept when the action takes it (``{id?}`` of
        ``Details(int id)``); verbs from ``[HttpPost]``... (Web API: else from the name, else POST)."""
        parameters = {
            self.text(p.child_by_field_name("name")).lower()
            for p in self._parameters(method)
            if p.child_by_field_name("name") is not None
        }
        verbs = self._action_verbs(attributes)
        if not verbs and convention.style == "webapi":
            verbs = [_web_api_verb(self.text(method.child_by_field_name("name")))]
        at = method.child_by_field_name("name") or method
        seen: list[str] = []
        for pattern in convention.patterns:
            path = _conventional_path(pattern, tokens, parameters)
            if path is None or path in seen:
                continue
            seen.append(path)
            for verb in verbs or ["*"]:
                self._route(at, verb, aspnet_route(path), handler, "aspnet", method)

    def _parameters(self, method: tree_sitter.Node) -> list[tree_sitter.Node]:
        parameters = method.child_by_field_name("parameters")
        return [p for p in parameters.named_children if p.type == "parameter"] if parameters is not None else []

    def _action_verbs(self, attributes: list[tuple[str, tree_sitter.Node]]) -> list[str]:
        """The verbs ``[HttpGet]``-style and ``[AcceptVerbs]`` attributes restrict an action to."""
        verbs: list[str] = []
        for name, attribute in attributes:
            found: list[str] = []
            if name in _VERB_ATTRIBUTES:
                found = [_VERB_ATTRIBUTES[name]]
            elif name == "AcceptVerbs":
                for argument_name, value in self._attribute_arguments(attribute):
                    if argument_name:
                        continue
                    value = _unwrap(value) or value
                    word = (
                        self.text(value.child_by_field_name("name"))
                        if value.type == "member_access_expression"
                        else self.literal(value) or ""
                    ).upper()
                    found.append(word)
            verbs.extend(v for v in found if v in HTTP_METHODS and v not in verbs)
        return verbs

    def _refit(self, node: tree_sitter.Node, name: str, attributes: list[tuple[str, tree_sitter.Node]]) -> None:
        """Refit / RestEase: interface methods with ``[Get("/path")]``-style attributes are calls."""
        prefix = (
            next(
                (
                    self.literal(_argument(self._attribute_arguments(a), 0, "basePath"))
                    for n, a in attributes
                    if n == "BasePath"
                ),
                None,
            )
            or ""
        )
        body = node.child_by_field_name("body")
        for method in body.named_children if body is not None else ():
            if method.type != "method_declaration":
                continue
            for attribute_name, attribute in self._attributes(method):
                verb = _REFIT_ATTRIBUTES.get(attribute_name)
                template = self._template(attribute, "path") if verb else None
                if template is None:
                    continue
                parts = url_parts([(True, join_paths(prefix, template) if prefix else "/" + template.lstrip("/"))])
                fact = HttpCall(
                    verb or "*",
                    parts.path,
                    _ts.line(attribute),
                    self.symbol(method.start_byte),
                    parts.host,
                    f"client:{name}" if not parts.host else "",
                    "refit",
                    parts.computed,
                )
                self.calls.append((attribute.start_byte, len(self.calls), fact))

    def _consumer_base(self, node: tree_sitter.Node, base: tree_sitter.Node) -> None:
        """A class implementing a consumer interface consumes its message type."""
        base_name = _simple_type(base, self.source)
        arguments = _type_arguments(base)
        if len(arguments) != 1:
            return
        argument = arguments[0]
        if _simple_type(argument, self.source) in ("Batch",) and _type_arguments(argument):
            argument = _type_arguments(argument)[0]
        event = _simple_type(argument, self.source)
        if not event:
            return
        if base_name in ("IConsumer", "IJobConsumer"):
            client, broker = "SlimMessageBus" if self._imports("SlimMessageBus") else "MassTransit", ""
        elif base_name in ("IHandleMessages", "IAmStartedByMessages"):
            client, broker = "Rebus" if self._imports("Rebus") else "NServiceBus", ""
        elif base_name.endswith("IntegrationEventHandler"):
            client, broker = "", "eventbus"
        else:
            return
        name = node.child_by_field_name("name") or node
        self._message(name, MessageRole.CONSUME, broker, _Name(event), "event", client)

    def _imports(self, prefix: str) -> bool:
        """Whether the file's ``using`` directives name the namespace ``prefix`` or one inside it."""
        return any(module == prefix or module.startswith(prefix + ".") for module in self.imports)

    # -- Dapr [Topic] -------------------------------------------------------------------------

    def _topic_attribute(self, node: tree_sitter.Node) -> None:
        name = _simple_type(node.child_by_field_name("name"), self.source)
        if name not in ("Topic", "TopicAttribute"):
            return
        arguments = self._attribute_arguments(node)
        topic = _argument(arguments, 1, "name", "topicName")
        if topic is None or _argument(arguments, 0, "pubsubName") is None:
            return
        self._message(node, MessageRole.CONSUME, "", self.name_of(topic), "topic", "dapr")

    # -- invocations ------------------------------------------------------------------------------

    def _call(self, node: tree_sitter.Node) -> None:
        function = node.child_by_field_name("function")
        receiver: tree_sitter.Node | None = None
        name: tree_sitter.Node | None = None
        if function is None:
            return
        if function.type == "member_access_expression":
            receiver, name = function.child_by_field_name("expression"), function.child_by_field_name("name")
        elif function.type == "conditional_access_expression":
            receiver = function.child_by_field_name("condition")
            binding = next((c for c in function.named_children if c.type == "member_binding_expression"), None)
            name = binding.child_by_field_name("name") if binding is not None else None
        elif function.type in ("identifier", "generic_name"):
            name = function
        if name is None:
            return
        method = self.text(_plain_name(name))
        if (
            method not in _METHODS
            and not _PRODUCE_WORDS.search(method)
            and not _RESTSHARP.match(method)
            and not _KIOTA_VERB.match(method)
        ):
            return
        type_arguments = _type_arguments(name)
        arguments = _arguments(node.child_by_field_name("arguments"))
        if receiver is None:
            if arguments:
                self._integration_event_handoff(name, method, arguments)
            return
        if method in _ENDPOINT_HELPERS:
            self._endpoint_helper(receiver, name, method, arguments)
        elif method in _MAP_VERBS:
            self._minimal_api(node, receiver, name, method, type_arguments, arguments)
        elif method in ("AddHttpClient", "AddRefitClient", "ConfigureHttpClient"):
            self._registration(node, function, name, method, type_arguments, arguments)
        elif method == "For" and self.text(receiver).endswith("RestService"):
            self._rest_service(node, name, type_arguments, arguments)
        elif method in _DAPR_INVOKE:
            self._dapr_invoke(node, receiver, name, arguments)
        elif (
            (method in _HTTPCLIENT_VERBS or method in _SEND)
            and self._http_client_call(node, receiver, name, method, arguments)
            or _KIOTA_VERB.match(method)
            and self._kiota_call(receiver, name, method, arguments)
            or _WRAPPER_VERB.match(method)
            and self._wrapper_call(receiver, name, method, arguments)
        ):
            return  # HttpClient, else a Kiota request builder, else a request wrapper of the workspace
        elif not (_RESTSHARP.match(method) and arguments and self._rest_call(node, receiver, name, method, arguments)):
            self._messaging(node, receiver, name, method, type_arguments, arguments)

    # -- minimal APIs -----------------------------------------------------------------------------

    def _minimal_api(
        self,
        node: tree_sitter.Node,
        receiver: tree_sitter.Node,
        name: tree_sitter.Node,
        method: str,
        type_arguments: list[tree_sitter.Node],
        arguments: list[tuple[str, tree_sitter.Node]],
    ) -> None:
        pattern = _argument(arguments, 0, "pattern")
        path = self.literal(pattern) if pattern is not None else None
        if path is None:
            return
        if method == "MapHub":
            if not type_arguments:
                return
            verbs, handler, framework = ["*"], _simple_type(type_arguments[0], self.source), "signalr"
        elif method == "MapMethods":
            verbs = self._verbs(_argument(arguments, 1, "httpMethods"))
            handler_node = _argument(arguments, 2, "handler", "requestDelegate")
            handler, framework = self._handler(handler_node), "aspnet"
        else:
            if method == "Map" and len(arguments) < 2:
                return
            verbs = [_MAP_VERBS[method]]
            handler, framework = self._handler(_argument(arguments, 1, "handler", "requestDelegate")), "aspnet"
        prefixes = self._prefixes(receiver, 0)
        if prefixes is None:
            return
        for prefix in prefixes:
            for verb in verbs:
                self._route(name, verb, aspnet_route(join_paths(prefix, path)), handler, framework)

    # -- endpoints registered by ASP.NET helpers ----------------------------------------------------

    def _endpoint_helper(
        self,
        receiver: tree_sitter.Node,
        name: tree_sitter.Node,
        method: str,
        arguments: list[tuple[str, tree_sitter.Node]],
    ) -> None:
        """``MapHealthChecks(pattern)`` and ``UseHealthChecks(path)``: the health endpoint, any verb;
        YARP's ``MapForwarder(pattern, destinationPrefix[, targetPath])``: a route at ``pattern`` (any
        verb) and a call of any verb to the destination's host, with the path ``targetPath`` (else the
        request's own path, computed when a transform may rewrite it)."""
        pattern = _unwrap(_argument(arguments, 0, "pattern", "path"))
        if (
            pattern is not None
            and pattern.type == "object_creation_expression"
            and _simple_type(pattern.child_by_field_name("type"), self.source) == "PathString"
        ):
            pattern = _argument(_arguments(pattern.child_by_field_name("arguments")), 0, "value")
        path = self.literal(pattern) if pattern is not None else None
        if path is None:
            return
        prefixes = [""] if method == "UseHealthChecks" else self._prefixes(receiver, 0)
        if prefixes is None:
            return
        paths: list[str] = []
        for prefix in prefixes:
            full = aspnet_route(join_paths(prefix, path))
            self._route(name, "*", full, "", "aspnet")
            if full not in paths:
                paths.append(full)
        if method == "MapForwarder":
            for full in paths:
                self._forwarder(name, full, arguments)

    def _forwarder(self, at: tree_sitter.Node, path: str, arguments: list[tuple[str, tree_sitter.Node]]) -> None:
        destination = _argument(arguments, 1, "destinationPrefix")
        if destination is None:
            return
        base = self._base_of_value(destination) or _Base()
        target = _argument(arguments, 2, "targetPath")
        target_path = self.literal(target) if target is not None else None
        others = [value for key, value in arguments[2:] if target_path is None or value is not target]
        computed = any(
            "Path" in self.text(value)
            or "Transformer" in self.text(value)
            and "HttpTransformer." not in self.text(value)
            for value in others
        )
        if target_path is not None:
            parts = url_parts([(True, target_path if target_path.startswith("/") else "/" + target_path)])
            path, computed = aspnet_route(parts.path) if not parts.computed else "", parts.computed
        if base.path and not computed:
            path = join_paths(base.path, path)
        fact = HttpCall(
            "*",
            "" if computed else path,
            _ts.line(at),
            self.symbol(at.start_byte),
            base.host,
            base.address,
            "yarp",
            computed,
        )
        self.calls.append((at.start_byte, len(self.calls), fact))

    def _handler(self, node: tree_sitter.Node | None) -> str:
        node = _unwrap(node)
        if node is None or node.type not in ("identifier", "member_access_expression", "qualified_name"):
            return ""
        return "".join(self.text(node).split())

    def _verbs(self, node: tree_sitter.Node | None) -> list[str]:
        """The verbs of ``MapMethods``' list (``new[] { "GET" }``, ``[HttpMethods.Get]``)."""
        node = _unwrap(node)
        if node is None:
            return []
        found: list[str] = []
        stack = [node]
        budget = 64
        while stack and budget:
            budget -= 1
            current = stack.pop()
            if (
                current.type in _STRINGS
                or current.type == "member_access_expression"
                and self.text(current.child_by_field_name("expression")).endswith(("HttpMethods", "HttpMethod"))
            ):
                word = (
                    self.literal(current)
                    if current.type in _STRINGS
                    else self.text(current.child_by_field_name("name"))
                ) or ""
                if word.upper() in HTTP_METHODS and word.upper() not in found:
                    found.append(word.upper())
                continue
            stack.extend(reversed(current.named_children))
        return found

    def _prefixes(self, node: tree_sitter.Node | None, depth: int) -> list[str] | None:
        """The ``MapGroup`` prefixes a route builder expression stands for, at most
        ``_PREFIXES_MAX`` (None: one is unreadable, or the builder is defined through itself)."""
        node = _unwrap(node)
        if node is None:
            return [""]
        if depth > _PREFIX_DEPTH_MAX or node.id in self.prefix_visiting:
            return None
        self.prefix_visiting.add(node.id)
        try:
            found = self._prefixes_of(node, depth)
        finally:
            self.prefix_visiting.discard(node.id)
        return found[:_PREFIXES_MAX] if found is not None else None

    def _prefixes_of(self, node: tree_sitter.Node, depth: int) -> list[str] | None:
        if node.type == "invocation_expression":
            function = node.child_by_field_name("function")
            if function is None or function.type != "member_access_expression":
                return [""]
            inner = self._prefixes(function.child_by_field_name("expression"), depth + 1)
            if inner is None:
                return None
            if self.text(_plain_name(function.child_by_field_name("name"))) != "MapGroup":
                return inner
            argument = _argument(_arguments(node.child_by_field_name("arguments")), 0, "prefix")
            prefix = self.literal(argument) if argument is not None else None
            if prefix is None:
                return None
            return [join_paths(p, prefix) for p in inner]
        if node.type == "identifier" or self._is_this_member(node):
            bindings = self._lookup(node)
            if not bindings:
                return [""]
            values = [b.value for b in bindings if b.value is not None and b.kind in ("local", "assign", "field")]
            if values:
                out: list[str] = []
                for value in values:
                    found = self._prefixes(value, depth + 1)
                    if found is None:
                        return None
                    out.extend(p for p in found if p not in out)
                return out
            parameter = next((b.node for b in bindings if b.kind == "parameter"), None)
            if parameter is not None:
                return self._extension_prefixes(parameter, depth)
        return [""]

    def _is_this_member(self, node: tree_sitter.Node) -> bool:
        return node.type == "member_access_expression" and self._is_this(node)

    def _extension_prefixes(self, parameter: tree_sitter.Node, depth: int) -> list[str] | None:
        """The prefixes of the receivers this file calls an extension method on (its ``this`` parameter)."""
        if parameter.id in self.extension_prefixes:
            return self.extension_prefixes[parameter.id]
        self.extension_prefixes[parameter.id] = [""]  # a method reached again through its own calls
        found = self.extension_prefixes[parameter.id] = self._extension_prefixes_of(parameter, depth)
        return found

    def _extension_prefixes_of(self, parameter: tree_sitter.Node, depth: int) -> list[str] | None:
        if not any(c.type == "modifier" and self.text(c) == "this" for c in parameter.children):
            return [""]
        method = parameter.parent.parent if parameter.parent is not None else None
        if method is None or method.type != "method_declaration":
            return [""]
        name = self.text(method.child_by_field_name("name"))
        out: list[str] = []
        for call in self.captures.get("call", ()):
            function = call.child_by_field_name("function")
            if function is None or function.type != "member_access_expression":
                continue
            if self.text(_plain_name(function.child_by_field_name("name"))) != name:
                continue
            if method.start_byte <= call.start_byte < method.end_byte:
                continue
            found = self._prefixes(function.child_by_field_name("expression"), depth + 1)
            if found is None:
                return None
            out.extend(p for p in found if p not in out)
        return out or [""]

    # -- HttpClient -------------------------------------------------------------------------------

    def _http_client_call(
        self,
        node: tree_sitter.Node,
        receiver: tree_sitter.Node,
        name: tree_sitter.Node,
        method: str,
        arguments: list[tuple[str, tree_sitter.Node]],
    ) -> bool:
        base = self._http_client(receiver, 0)
        if base is None:
            return False
        if method in _SEND:
            request = _argument(arguments, 0, "request")
            verb, url = self._request(request)
        else:
            verb, url = _HTTPCLIENT_VERBS[method], _argument(arguments, 0, "requestUri")
        self._http_call(name, verb, url, base, "HttpClient")
        return True

    def _http_call(
        self,
        at: tree_sitter.Node,
        verb: str,
        url: tree_sitter.Node | None,
        base: _Base,
        client: str,
        pieces: list[_Piece] | None = None,
    ) -> None:
        """A call of ``verb`` to ``url`` (read as ``pieces`` when given) through a client's ``base``."""
        if pieces is None:
            pieces = self.pieces(url) if url is not None else []
        host, path, address, computed = self._url(pieces, base)
        invoke = re.match(r"^/v1\.0/invoke/([\w.-]+)/method(/.*)?$", path)
        if invoke:
            host, path, address, client = invoke[1].lower(), invoke[2] or "/", "", "dapr"
        publish = re.match(r"^/v1\.0/publish/[^/]+/([^/{}]+)$", path)
        if publish:
            self._message(at, MessageRole.PRODUCE, "", _Name(publish[1]), "topic", "dapr")
        symbol = self.symbol(at.start_byte)
        fact = HttpCall(verb, "" if computed else path, _ts.line(at), symbol, host, address, client, computed)
        self.calls.append((at.start_byte, len(self.calls), fact))

    def _url(self, pieces: list[_Piece], base: _Base) -> tuple[str, str, str, bool]:
        """(host, path, address, computed) of a URL read as ``pieces`` through a client's base."""
        if not pieces:
            return "", "", base.address, True
        first = pieces[0]
        if (
            first.literal
            and not re.match(r"^[a-zA-Z][\w+.-]*://|^/|^[\w.-]+:\d+", first.text)
            and first.text[:1] not in ("?", "#", "")
        ):
            pieces = [_Piece(True, "/" + first.text), *pieces[1:]]
        pieces = _fold_ports(pieces)
        nodes = {piece.text: piece.node for piece in pieces if not piece.literal}
        parts = url_parts([(piece.literal, piece.text) for piece in pieces])
        if parts.host:
            return parts.host, parts.path, "", parts.computed
        if parts.base:
            address, default = self.address(nodes.get(parts.base))
            host = ""
            if not address and default:
                host = url_parts([(True, default)]).host
            if not address and not host and len(pieces) == 1 and (base.host or base.address):
                # the whole URL is one unreadable expression: relative or not, nobody knows
                return "", "", "", True
            return host, parts.path, address, parts.computed
        if parts.computed:
            return base.host, "", base.address, True
        path = join_paths(base.path, parts.path) if base.path and base.path != "/" else parts.path
        return base.host, path, base.address, False

    def _request(self, node: tree_sitter.Node | None) -> tuple[str, tree_sitter.Node | None]:
        """(verb, URL expression) of an ``HttpRequestMessage`` argument ("*", None when unreadable)."""
        node = _unwrap(node)
        holder: tree_sitter.Node | None = None
        for _ in range(_DEPTH_MAX):
            if node is None or node.type != "identifier":
                break
            holder = node
            values = self._values(node)
            node = _unwrap(values[0]) if values and len(values) == 1 else None
        if node is None or node.type not in ("object_creation_expression", "implicit_object_creation_expression"):
            return "*", None
        if (
            node.type == "object_creation_expression"
            and _simple_type(node.child_by_field_name("type"), self.source) != "HttpRequestMessage"
        ):
            return "*", None
        arguments = _arguments(
            node.child_by_field_name("arguments")
            or next((c for c in node.named_children if c.type == "argument_list"), None)
        )
        verb_node = _argument(arguments, 0, "method")
        url = _argument(arguments, 1, "requestUri")
        initializer = node.child_by_field_name("initializer") or next(
            (c for c in node.named_children if c.type == "initializer_expression"), None
        )
        members = [
            (self.text(a.child_by_field_name("left")), a.child_by_field_name("right"))
            for a in (initializer.named_children if initializer is not None else ())
            if a.type == "assignment_expression"
        ]
        members += [(member, value) for member, value in self._members(holder)] if holder is not None else []
        for member, value in members:
            if member == "Method" and verb_node is None:
                verb_node = value
            elif member == "RequestUri" and url is None:
                url = value
        verb = self._verb(verb_node) if verb_node is not None else "GET"
        return verb, url

    def _verb(self, node: tree_sitter.Node | None) -> str:
        node = _unwrap(node)
        if node is None:
            return "*"
        if node.type == "member_access_expression":
            word = self.text(node.child_by_field_name("name")).upper()
            return word if word in HTTP_METHODS else "*"
        if node.type == "object_creation_expression":
            arguments = _arguments(node.child_by_field_name("arguments"))
            word = (self.literal(arguments[0][1]) or "").upper() if arguments else ""
            return word if word in HTTP_METHODS else "*"
        return "*"

    def _http_client(self, node: tree_sitter.Node | None, depth: int) -> _Base | None:
        """The base address of an expression that is an ``HttpClient``, None when it is none."""
        node = _unwrap(node)
        if node is None or depth > _DEPTH_MAX:
            return None
        kind = node.type
        if (
            kind == "member_access_expression"
            and self.text(node.child_by_field_name("name")) == "Value"
            and not self._is_this(node)
        ):
            inner = node.child_by_field_name("expression")
            bindings = self._lookup(inner) if inner is not None else None
            if bindings and any(
                self.text(b.type).replace(" ", "") in ("Lazy<HttpClient>",) for b in bindings if b.type is not None
            ):
                return _Base()
            return None
        if kind in ("object_creation_expression", "implicit_object_creation_expression"):
            if (
                kind == "object_creation_expression"
                and _simple_type(node.child_by_field_name("type"), self.source) != "HttpClient"
            ):
                return None
            if kind == "implicit_object_creation_expression" and not self._target_typed(node, "HttpClient"):
                return None
            return self._initializer_base(node) or _Base()
        if kind == "invocation_expression":
            return self._created_client(node)
        if kind == "identifier" or self._is_this_member(node):
            bindings = self._lookup(node)
            name = self.text(node if kind == "identifier" else node.child_by_field_name("name"))
            if bindings is None:
                if not _HTTPCLIENT_NAME.search(name):
                    return None
                return self._holder_base(node, name, None)
            typed = any(_simple_type(b.type, self.source) == "HttpClient" for b in bindings if b.type is not None)
            created = None
            for binding in bindings:
                if binding.value is not None and binding.kind != "append":
                    created = created or self._http_client(binding.value, depth + 1)
            if not typed and created is None:
                return None
            return self._holder_base(node, name, bindings, created)
        return None

    def _target_typed(self, node: tree_sitter.Node, type_name: str) -> bool:
        parent = node.parent
        if parent is not None and parent.type == "variable_declarator":
            declaration = parent.parent
            return (
                declaration is not None
                and _simple_type(declaration.child_by_field_name("type"), self.source) == type_name
            )
        return False

    def _holder_base(
        self, node: tree_sitter.Node, name: str, bindings: list[_Binding] | None, created: _Base | None = None
    ) -> _Base:
        """The base of an ``HttpClient`` held in a name: its ``BaseAddress``, else its class's typed client."""
        for member, value in self._members(node):
            if member == "BaseAddress":
                base = self._base_of_value(value)
                if base is not None:
                    return base
        if created is not None and (created.host or created.address or created.path):
            return created
        holders = bindings or []
        klass = self.classes.innermost(node.start_byte, node.end_byte)
        in_class = (
            bindings is None
            or any(b.kind == "field" for b in holders)
            or any(
                b.kind == "parameter"
                and b.node.parent is not None
                and b.node.parent.parent is not None
                and b.node.parent.parent.type in ("constructor_declaration", "class_declaration", "record_declaration")
                for b in holders
            )
        )
        if klass >= 0 and in_class and self._typed_client(klass):
            return _Base(address=f"client:{self.text(self.classes.nodes[klass].child_by_field_name('name'))}")
        return created or _Base()

    def _typed_client(self, klass: int) -> bool:
        """Whether a class receives an ``HttpClient`` from its constructor or primary constructor."""
        return bool(self.typed_clients.get(klass))

    def _initializer_base(self, node: tree_sitter.Node) -> _Base | None:
        initializer = node.child_by_field_name("initializer") or next(
            (c for c in node.named_children if c.type == "initializer_expression"), None
        )
        for assignment in initializer.named_children if initializer is not None else ():
            if (
                assignment.type == "assignment_expression"
                and self.text(assignment.child_by_field_name("left")) == "BaseAddress"
            ):
                return self._base_of_value(assignment.child_by_field_name("right"))
        return None

    def _created_client(self, node: tree_sitter.Node) -> _Base | None:
        """``factory.CreateClient("name")``, ``DaprClient.CreateInvokeHttpClient("app")``, or a method of
        this file returning an ``HttpClient``."""
        function = node.child_by_field_name("function")
        arguments = _arguments(node.child_by_field_name("arguments"))
        if function is None:
            return None
        name = function.child_by_field_name("name") if function.type == "member_access_expression" else function
        if name is None or name.type != "identifier":
            return None
        method = self.text(name)
        if method in ("CreateClient", "CreateDefaultClient") and function.type == "member_access_expression":
            holder = function.child_by_field_name("expression")
            if holder is not None and self._test_host(holder):
                return _Base()  # the service under test, in process: relative paths, no host
        if method == "CreateHttpClient" and function.type == "member_access_expression":
            holder = function.child_by_field_name("expression")
            resource = self.literal(_argument(arguments, 0, "resourceName")) if arguments else None
            if holder is not None and resource and self._aspire_app(holder):
                return _Base(host=resource.lower())  # Aspire's testing host: a client of that resource
        if method == "CreateClient" and function.type == "member_access_expression":
            holder = function.child_by_field_name("expression")
            if holder is None or not self._client_factory(holder):
                return None
            named = self.literal(_argument(arguments, 0, "name")) if arguments else None
            return _Base(address=f"client:{named}") if named else _Base()
        if method == "CreateInvokeHttpClient":
            app = self.literal(_argument(arguments, 0, "appId")) if arguments else None
            return _Base(host=app.lower()) if app else _Base()
        if function.type == "identifier" or (function.type == "member_access_expression" and self._is_this(function)):
            for scope in self.captures.get("scope", ()):
                if scope.type == "method_declaration" and self.text(scope.child_by_field_name("name")) == method:
                    returns = scope.child_by_field_name("returns")
                    if (
                        _simple_type(returns, self.source) == "HttpClient"
                        or _simple_type(_awaited(returns, self.source), self.source) == "HttpClient"
                    ):
                        return _Base()
        return None

    def _holder_types(self, node: tree_sitter.Node) -> tuple[str, list[str]]:
        """(name, declared simple types) of a holder expression (``x``, ``this.x``, ``a.b``)."""
        node = _unwrap(node) or node
        name = self.text(node.child_by_field_name("name") if node.type == "member_access_expression" else node)
        bindings = self._lookup(node) if node.type == "identifier" or self._is_this_member(node) else None
        return name, [_simple_type(b.type, self.source) for b in bindings or [] if b.type is not None]

    def _test_host(self, node: tree_sitter.Node) -> bool:
        """Whether an expression is ASP.NET Core's in-process test host: a ``WebApplicationFactory<T>``
        (or a class of this file deriving from one), a ``TestServer``, or, in a file using
        ``Microsoft.AspNetCore.Mvc.Testing`` or ``TestHost``, a factory, fixture or server."""
        name, types = self._holder_types(node)
        if any(t == "TestServer" or t.endswith("WebApplicationFactory") for t in types):
            return True
        for declared in types:
            klass = self.class_names.get(declared)
            bases = (
                next((c for c in self.classes.nodes[klass].named_children if c.type == "base_list"), None)
                if klass is not None
                else None
            )
            if bases is not None and "WebApplicationFactory" in self.text(bases):
                return True
        if not self._imports_any(("Microsoft.AspNetCore.Mvc.Testing", "Microsoft.AspNetCore.TestHost")):
            return False
        return any(_TEST_HOST_NAME.search(word) for word in (name, *types))

    def _aspire_app(self, node: tree_sitter.Node) -> bool:
        """Whether an expression is .NET Aspire's testing ``DistributedApplication``."""
        name, types = self._holder_types(node)
        return "DistributedApplication" in types or (
            self._imports("Aspire.Hosting.Testing") and not types and bool(re.search(r"(?i)^_?app$|app$", name))
        )

    def _client_factory(self, node: tree_sitter.Node) -> bool:
        node = _unwrap(node) or node
        name = node.child_by_field_name("name") if node.type == "member_access_expression" else node
        bindings = self._lookup(node) if node.type == "identifier" or self._is_this_member(node) else None
        if bindings and any(
            _simple_type(b.type, self.source) == "IHttpClientFactory" for b in bindings if b.type is not None
        ):
            return True
        return name is not None and bool(
            re.search(r"(?i)httpclientfactory$|clientfactory$|^_?factory$", self.text(name))
        )

    def _base_of_value(self, value: tree_sitter.Node | None, depth: int = 0) -> _Base | None:
        """The base address a ``BaseAddress`` value gives (a literal URL, an env var, a config key; a
        conditional of URLs: the host both branches share); a member naming it (``new Uri(Host)``) gives
        ``const:Owner.Host`` when no host or address is read."""
        if value is None or depth > 4:
            return None
        base = self._read_base(value, depth)
        if base is not None and (base.host or base.address):
            return base
        member = self._base_member(value, initialised=True)
        return _Base(address="const:" + member) if member else base

    def _base_member(self, value: tree_sitter.Node | None, *, initialised: bool = False) -> str:
        """``Owner.NAME`` of a field, property or constant of a class of this file that a base address
        value names (``Host``, ``this.Host``, ``Owner.Host``, inside ``new Uri(..)``/``new(..)``), ""
        when none; with ``initialised``, only one declared with a value."""
        node = _unwrap(value)
        if node is not None and node.type in ("object_creation_expression", "implicit_object_creation_expression"):
            if (
                node.type == "object_creation_expression"
                and _simple_type(node.child_by_field_name("type"), self.source) != "Uri"
            ):
                return ""
            arguments = _arguments(
                node.child_by_field_name("arguments")
                or next((c for c in node.named_children if c.type == "argument_list"), None)
            )
            if not arguments or len(arguments) > 1 and "UriKind" not in self.text(arguments[1][1]):
                return ""
            node = _unwrap(arguments[0][1])
        if node is None:
            return ""
        klass, name = -1, ""
        if node.type == "identifier" or self._is_this_member(node):
            name = self.text(node if node.type == "identifier" else node.child_by_field_name("name"))
            bindings = self._lookup(node)
            if bindings is None and node.type == "identifier":
                owners = sorted({index for (index, field) in self.fields if field == name})
                klass = owners[0] if len(owners) == 1 else -1
            else:
                field = next((b for b in bindings or () if b.kind == "field"), None)
                if field is not None:
                    klass = self.classes.innermost(field.node.start_byte, field.node.end_byte)
        elif node.type == "member_access_expression":
            holder = node.child_by_field_name("expression")
            if holder is not None and holder.type == "identifier" and self._lookup(holder) is None:
                klass = self.class_names.get(self.text(holder), -1)
                name = self.text(node.child_by_field_name("name"))
        bindings = self.fields.get((klass, name), []) if klass >= 0 else []
        declared = [b for b in bindings if b.kind == "field"]
        if not declared or initialised and not any(b.value is not None for b in declared):
            return ""
        owner = self.text(self.classes.nodes[klass].child_by_field_name("name"))
        if not owner or secret_name(name) or _SECRET_WORDS.search(name):
            return ""  # a secret-looking member is never named (INV-LINKS-3)
        return f"{owner}.{name}"

    def _read_base(self, value: tree_sitter.Node, depth: int) -> _Base | None:
        pieces = _fold_ports(self.pieces(value))
        if not pieces:
            return None
        single = _unwrap(pieces[0].node) if len(pieces) == 1 and not pieces[0].literal else None
        if single is not None and single.type == "conditional_expression":
            branches = [
                self._base_of_value(single.child_by_field_name(field), depth + 1)
                for field in ("consequence", "alternative")
            ]
            first, second = branches
            if first is not None and second is not None and first.host and first.host == second.host:
                return _Base(
                    first.host,
                    first.path if first.path == second.path else "",
                    first.address if first.address == second.address else "",
                )
            return None
        nodes = {piece.text: piece.node for piece in pieces if not piece.literal}
        parts = url_parts([(piece.literal, piece.text) for piece in pieces])
        if parts.host:
            return _Base(parts.host, parts.path if parts.path != "/" else "", "")
        if parts.base:
            address, default = self.address(nodes.get(parts.base))
            host = url_parts([(True, default)]).host if default else ""
            if address or host:
                return _Base(host, "" if parts.computed or parts.path == "/" else parts.path, address)
        return None

    # -- typed client registrations ---------------------------------------------------------------

    def _registration(
        self,
        node: tree_sitter.Node,
        function: tree_sitter.Node,
        name: tree_sitter.Node,
        method: str,
        type_arguments: list[tree_sitter.Node],
        arguments: list[tuple[str, tree_sitter.Node]],
    ) -> None:
        """``AddHttpClient<T>(c => c.BaseAddress = ...)``, ``AddHttpClient("name", ...)``,
        ``AddRefitClient<T>().ConfigureHttpClient(...)``: a setting ``client:T`` with the base address."""
        if method == "ConfigureHttpClient":
            inner = (
                _unwrap(function.child_by_field_name("expression"))
                if function.type == "member_access_expression"
                else None
            )
            key = self._registered_client(inner, 0)
        else:
            key = self._registered_client(node, 0)
        if not key:
            return
        for _, argument in arguments:
            value = self._lambda_base_address(argument)
            if value is not None:
                for client in (key, *self._typed_clients_added(node)):
                    self._setting(name, f"client:{client}", value)
                return

    def _typed_clients_added(self, node: tree_sitter.Node) -> list[str]:
        """``T`` of each ``.AddTypedClient<T>()`` chained on a client registration (the typed client
        gets the registered client's base address)."""
        found: list[str] = []
        for _ in range(_DEPTH_MAX):
            access = node.parent
            call = access.parent if access is not None and access.type == "member_access_expression" else None
            if call is None or call.type != "invocation_expression" or access is None:
                break
            name = access.child_by_field_name("name")
            if self.text(_plain_name(name)) == "AddTypedClient":
                types = _type_arguments(name)
                if types:
                    found.append(_simple_type(types[-1], self.source))
            node = call
        return found

    def _registered_client(self, node: tree_sitter.Node | None, depth: int) -> str:
        """The client name an ``AddHttpClient``/``AddRefitClient`` call (or a builder chained on it) registers."""
        node = _unwrap(node)
        if node is None or node.type != "invocation_expression" or depth > _DEPTH_MAX:
            return ""
        function = node.child_by_field_name("function")
        if function is None or function.type != "member_access_expression":
            return ""
        name = function.child_by_field_name("name")
        method = self.text(_plain_name(name))
        if method in ("AddHttpClient", "AddRefitClient"):
            types = _type_arguments(name)
            if types:
                return _simple_type(types[-1], self.source)
            first = _argument(_arguments(node.child_by_field_name("arguments")), 0, "name")
            return (self.literal(first) or "") if first is not None and method == "AddHttpClient" else ""
        return self._registered_client(function.child_by_field_name("expression"), depth + 1)

    def _lambda_base_address(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The value assigned to ``X.BaseAddress`` in a lambda's body."""
        node = _unwrap(node)
        if node is None or node.type not in ("lambda_expression", "anonymous_method_expression"):
            return None
        stack = [node.child_by_field_name("body") or node]
        budget = 256
        while stack and budget:
            budget -= 1
            current = stack.pop()
            if current is None:
                continue
            if current.type == "assignment_expression":
                left = current.child_by_field_name("left")
                if (
                    left is not None
                    and left.type == "member_access_expression"
                    and self.text(left.child_by_field_name("name")) == "BaseAddress"
                ):
                    return current.child_by_field_name("right")
            stack.extend(reversed(current.named_children))
        return None

    def _rest_service(
        self,
        node: tree_sitter.Node,
        name: tree_sitter.Node,
        type_arguments: list[tree_sitter.Node],
        arguments: list[tuple[str, tree_sitter.Node]],
    ) -> None:
        """Refit's ``RestService.For<T>(httpClient | "http://host")``: the base address of client ``T``."""
        if not type_arguments or not arguments:
            return
        key = _simple_type(type_arguments[0], self.source)
        first = _unwrap(arguments[0][1])
        if first is None:
            return
        if first.type == "identifier" or self._is_this_member(first):
            for member, value in self._members(first):
                if member == "BaseAddress":
                    self._setting(name, f"client:{key}", value)
                    return
        self._setting(name, f"client:{key}", first)

    def _members(self, holder: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
        """(property, value) of the ``holder.Property = value`` assignments that reach ``holder`` (a name
        or ``this.name``): in its class, and inside the scope declaring it when it is a local."""
        name = self.text(holder if holder.type == "identifier" else holder.child_by_field_name("name"))
        klass = self.classes.innermost(holder.start_byte, holder.end_byte)
        declared = next((b.node for b in self._lookup(holder) or [] if b.kind in ("local", "parameter")), None)
        scope = self.scopes.innermost(declared.start_byte, declared.end_byte) if declared is not None else -1
        found = []
        for member, value, assignment in self.members.get(name, []):
            start, end = assignment.start_byte, assignment.end_byte
            if self.classes.innermost(start, end) != klass:
                continue
            if scope >= 0 and scope not in self.scopes.chain(self.scopes.innermost(start, end)):
                continue
            found.append((member, value))
        return found

    def _typed_client_base_addresses(self) -> None:
        """A typed client setting its own ``BaseAddress`` (``httpClient.BaseAddress = ...`` in its class)."""
        for holder, assignments in self.members.items():
            for member, value, assignment in assignments:
                if member != "BaseAddress":
                    continue
                klass = self.classes.innermost(assignment.start_byte, assignment.end_byte)
                if klass < 0 or not self._typed_client(klass):
                    continue
                left = assignment.child_by_field_name("left")
                target = left.child_by_field_name("expression") if left is not None else None
                bindings = self._lookup(target) if target is not None else None
                if bindings is None and not _HTTPCLIENT_NAME.search(holder):
                    continue
                if bindings is not None and not any(
                    _simple_type(b.type, self.source) == "HttpClient" for b in bindings if b.type is not None
                ):
                    continue
                key = self.text(self.classes.nodes[klass].child_by_field_name("name"))
                at = left.child_by_field_name("name") if left is not None else None
                self._setting(at or assignment, f"client:{key}", value)

    # -- request wrappers of the workspace ---------------------------------------------------------

    def _wrapper_call(
        self,
        receiver: tree_sitter.Node,
        name: tree_sitter.Node,
        method: str,
        arguments: list[tuple[str, tree_sitter.Node]],
    ) -> bool:
        """``_requestProvider.GetAsync<T>(uri)``: a verb of a wrapper the workspace writes around
        ``HttpClient``. Taken only when the receiver is a field, property or parameter (or a typed
        local) of a type that is no framework cache, store or SDK client, and the URL argument reads
        as a URL or a path (``cache.GetAsync(key)`` never is)."""
        receiver = _unwrap(receiver) or receiver
        if receiver.type != "identifier" and not self._is_this_member(receiver):
            return False
        bindings = self._lookup(receiver) or []
        types = {_simple_type(b.type, self.source) for b in bindings if b.type is not None}
        if len(types) != 1:
            return False
        wrapper = next(iter(types))
        holder = self.text(receiver if receiver.type == "identifier" else receiver.child_by_field_name("name"))
        if (
            not wrapper[:1].isupper()
            or wrapper in _NOT_WRAPPERS
            or _STORAGE_WORDS.intersection(_words(wrapper))
            or _STORAGE_WORDS.intersection(_words(holder))
        ):
            return False
        url = _argument(arguments, 0, "uri", "url", "requestUri", "path", "endpoint", "address")
        pieces = self.pieces(url) if url is not None else []
        if not self._url_like(pieces):
            return False
        verb = _WRAPPER_VERB.match(method)[1].upper()  # type: ignore[index]
        self._http_call(name, verb, url, _Base(), wrapper, pieces)
        return True

    def _url_like(self, pieces: list[_Piece]) -> bool:
        """Whether a value reads as a URL or a path: an absolute URL, a literal path with a ``/``, or
        a base address (an expression traced to one, or named like one) followed by a ``/path``."""
        if not pieces:
            return False
        first = pieces[0]
        if first.literal:
            if re.match(r"^[a-zA-Z][\w+.-]*://[^\s/?#]+", first.text):
                return True
            head = re.split(r"[?#]", first.text, maxsplit=1)[0]
            return (
                "/" in head
                and not re.search(r"\s", head)
                and re.fullmatch(r"[\w.~%!$&'()*+,;=:@{}/-]*", head) is not None
            )
        if (
            len(pieces) < 2
            or not pieces[1].literal
            or not re.match(r"^/+[\w.~%-]|^[A-Za-z0-9_~][\w~%-]*[/?#]", pieces[1].text)
        ):
            return False  # a base and a path of literal words (``/orders``, ``api/orders``; not "/{id}" alone)
        if self.address(first.node)[0]:
            return True
        node = _unwrap(first.node)
        last = self.text(
            node.child_by_field_name("name") if node is not None and node.type == "member_access_expression" else node
        )
        return bool(_BASE_WORDS.intersection(_words(last)))

    # -- Kiota request builders -------------------------------------------------------------------

    def _kiota_call(
        self,
        receiver: tree_sitter.Node,
        name: tree_sitter.Node,
        method: str,
        arguments: list[tuple[str, tree_sitter.Node]],
    ) -> bool:
        """``await client.Catalog.Products["id"].GetAsync()``, ``client.Posts.ByPostId(id).PatchAsync(body)``:
        a request of a Kiota client, its path read from the request builders (a property is a segment,
        an indexer or ``ByXxx(..)`` a path parameter, ``WithUrl(..)`` makes it computed). Taken only
        when the chain's root is a Kiota client (the file uses ``Microsoft.Kiota``, or the root's type
        is named like a client and is no known SDK's) and the arguments are what Kiota's methods take
        (a body for POST/PUT/PATCH, a request configuration lambda, a cancellation token)."""
        segments: list[str] = []
        computed = False
        node = _unwrap(receiver)
        root: tree_sitter.Node | None = None
        for _ in range(_DEPTH_MAX * 2):
            if node is None:
                return False
            if node.type == "identifier" or self._is_this_member(node):
                root = node
                break
            if node.type == "member_access_expression":
                segment = self.text(node.child_by_field_name("name"))
                if not re.fullmatch(r"[A-Z]\w*", segment):
                    return False
                segments.append(segment[:1].lower() + segment[1:])
                node = _unwrap(node.child_by_field_name("expression"))
            elif node.type == "element_access_expression":
                indexes = _arguments(node.child_by_field_name("subscript"))
                if len(indexes) != 1:
                    return False
                segments.append(self._kiota_parameter(indexes[0][1]))
                node = _unwrap(node.child_by_field_name("expression"))
            elif node.type == "invocation_expression":
                function = node.child_by_field_name("function")
                if function is None or function.type != "member_access_expression":
                    return False
                called = self.text(_plain_name(function.child_by_field_name("name")))
                by = _KIOTA_BY.match(called)
                if called == "WithUrl":
                    computed = True
                elif by is not None and len(_arguments(node.child_by_field_name("arguments"))) == 1:
                    segments.append("{" + by[1][:1].lower() + by[1][1:] + "}")
                else:
                    return False
                node = _unwrap(function.child_by_field_name("expression"))
            else:
                return False
        if root is None or not segments:
            return False
        bindings = self._lookup(root) or []
        types = [_simple_type(b.type, self.source) for b in bindings if b.type is not None]
        types += [
            _simple_type(value.child_by_field_name("type"), self.source)
            for b in bindings
            if (value := _unwrap(b.value)) is not None and value.type == "object_creation_expression"
        ]
        client = next((t for t in types if t and t not in ("var", "object", "dynamic")), "")
        if not client[:1].isupper() or client in _NOT_KIOTA:
            return False
        if not self._imports("Microsoft.Kiota") and not re.search(r"[A-Za-z0-9]Client$", client):
            return False
        if not self._kiota_arguments(method, arguments):
            return False
        verb = _KIOTA_VERB.match(method)[1].upper()  # type: ignore[index]
        path = "/" + "/".join(reversed(segments))
        fact = HttpCall(
            verb,
            "" if computed else path,
            _ts.line(name),
            self.symbol(name.start_byte),
            "",
            f"client:{client}",
            "kiota",
            computed,
        )
        self.calls.append((name.start_byte, len(self.calls), fact))
        return True

    def _kiota_parameter(self, node: tree_sitter.Node) -> str:
        """The path segment an indexer argument gives: a literal as sent, ``{name}`` for a name,
        ``{}`` for any other expression."""
        text = self.literal(node)
        if text is not None and re.fullmatch(r"[\w.~%@-]+", text):
            return text
        node = _unwrap(node) or node
        if node.type == "identifier":
            return "{" + self.text(node) + "}"
        return "{}"

    def _kiota_arguments(self, method: str, arguments: list[tuple[str, tree_sitter.Node]]) -> bool:
        """Whether a call passes what a Kiota request method takes: a body first for POST/PUT/PATCH,
        then a request configuration (a lambda, ``null``) and a cancellation token."""
        rest = list(arguments)
        if method.startswith(("Post", "Put", "Patch")):
            if not rest or rest[0][0] not in ("", "body"):
                return False
            rest = rest[1:]
        for key, value in rest:
            if key:
                if key not in ("requestConfiguration", "cancellationToken"):
                    return False
                continue
            value = _unwrap(value) or value
            text = self.text(value)
            if value.type in ("lambda_expression", "anonymous_method_expression", "null_literal") or text in (
                "default",
                "null",
                "CancellationToken.None",
            ):
                continue
            if re.search(r"(?i)cancel|^_?ct$|token$", text.rsplit(".", 1)[-1]):
                continue
            return False
        return True

    def _kiota_settings(self) -> None:
        """``new ApiClient(adapter)`` where the Kiota request adapter is given a ``BaseUrl`` (``new
        HttpClientRequestAdapter(auth) { BaseUrl = .. }`` or ``adapter.BaseUrl = ..``): the setting
        ``client:ApiClient`` with that base address, as for any typed client."""
        values = [
            value
            for node in self.captures.get("declarator", ())
            for value in [
                next((c for c in reversed(node.named_children) if c.type == "object_creation_expression"), None)
            ]
            if value is not None
        ]
        values += [
            right
            for node in self.captures.get("assignment", ())
            if (right := _unwrap(node.child_by_field_name("right"))) is not None
            and right.type == "object_creation_expression"
        ]
        values += [
            created
            for node in self.captures.get("call", ())
            for _, argument in _arguments(node.child_by_field_name("arguments"))
            if (created := _unwrap(argument)) is not None and created.type == "object_creation_expression"
        ]
        for value in sorted(values, key=lambda v: v.start_byte):
            client = _simple_type(value.child_by_field_name("type"), self.source)
            arguments = _arguments(value.child_by_field_name("arguments"))
            if not client[:1].isupper() or client in _NOT_KIOTA or not arguments:
                continue
            base_url = self._adapter_base_url(_argument(arguments, 0, "requestAdapter"))
            if base_url is not None:
                self._setting(value, f"client:{client}", base_url)

    def _adapter_base_url(self, node: tree_sitter.Node | None) -> tree_sitter.Node | None:
        """The value given to a Kiota request adapter's ``BaseUrl`` (None: no adapter, or none given)."""
        node = _unwrap(node)
        holder = None
        if node is not None and (node.type == "identifier" or self._is_this_member(node)):
            holder = node
            values = [b.value for b in self._lookup(node) or [] if b.value is not None and b.kind != "append"]
            node = _unwrap(values[0]) if len(values) == 1 else None
        if (
            node is None
            or node.type != "object_creation_expression"
            or "RequestAdapter" not in _simple_type(node.child_by_field_name("type"), self.source)
        ):
            return None
        initializer = node.child_by_field_name("initializer") or next(
            (c for c in node.named_children if c.type == "initializer_expression"), None
        )
        for assignment in initializer.named_children if initializer is not None else ():
            if (
                assignment.type == "assignment_expression"
                and self.text(assignment.child_by_field_name("left")) == "BaseUrl"
            ):
                return assignment.child_by_field_name("right")
        for member, value in self._members(holder) if holder is not None else ():
            if member == "BaseUrl":
                return value
        return None

    # -- RestSharp --------------------------------------------------------------------------------

    def _rest_call(
        self,
        node: tree_sitter.Node,
        receiver: tree_sitter.Node,
        name: tree_sitter.Node,
        method: str,
        arguments: list[tuple[str, tree_sitter.Node]],
    ) -> bool:
        match = _RESTSHARP.match(method)
        if match is None or not arguments:
            return False
        base = self._rest_client(receiver)
        if base is None:
            return False
        first = arguments[0][1]
        verb = match[1].upper() if match[1] else ""
        url, request_verb = self._rest_request(first)
        self._http_call(name, verb or request_verb or "GET", url, base, "RestSharp")
        return True

    def _rest_client(self, node: tree_sitter.Node) -> _Base | None:
        node = _unwrap(node)
        if node is None:
            return None
        if node.type == "object_creation_expression":
            if _simple_type(node.child_by_field_name("type"), self.source) != "RestClient":
                return None
            arguments = _arguments(node.child_by_field_name("arguments"))
            if not arguments:
                return _Base()
            value = _unwrap(arguments[0][1])
            if (
                value is not None
                and value.type == "object_creation_expression"
                and _simple_type(value.child_by_field_name("type"), self.source) == "RestClientOptions"
            ):
                inner = _arguments(value.child_by_field_name("arguments"))
                value = inner[0][1] if inner else None
                if value is None:
                    return self._initializer_base_url(arguments[0][1]) or _Base()
            return self._base_of_value(value) or _Base()
        if node.type == "identifier" or self._is_this_member(node):
            bindings = self._lookup(node)
            if not bindings:
                return None
            if any(
                _simple_type(b.type, self.source) in ("RestClient", "IRestClient")
                for b in bindings
                if b.type is not None
            ):
                for binding in bindings:
                    if binding.value is not None:
                        found = self._rest_client(binding.value)
                        if found is not None:
                            return found
                return _Base()
            for binding in bindings:
                if binding.value is not None:
                    found = self._rest_client(binding.value)
                    if found is not None:
                        return found
        return None

    def _initializer_base_url(self, node: tree_sitter.Node) -> _Base | None:
        node = _unwrap(node)
        initializer = (
            next((c for c in node.named_children if c.type == "initializer_expression"), None)
            if node is not None
            else None
        )
        for assignment in initializer.named_children if initializer is not None else ():
            if (
                assignment.type == "assignment_expression"
                and self.text(assignment.child_by_field_name("left")) == "BaseUrl"
            ):
                return self._base_of_value(assignment.child_by_field_name("right"))
        return None

    def _rest_request(self, node: tree_sitter.Node | None) -> tuple[tree_sitter.Node | None, str]:
        """(resource expression, verb) of a RestSharp request argument (a ``RestRequest`` or a resource string)."""
        node = _unwrap(node)
        for _ in range(_DEPTH_MAX):
            if node is None or node.type != "identifier":
                break
            bindings = self._lookup(node)
            if (
                bindings
                and any(_simple_type(b.type, self.source) == "RestRequest" for b in bindings if b.type is not None)
                or bindings
                and any(
                    _unwrap(b.value) is not None and _unwrap(b.value).type == "object_creation_expression"
                    for b in bindings
                    if b.value is not None  # type: ignore[union-attr]
                )
            ):
                values = [b.value for b in bindings if b.value is not None]
                if len(values) != 1:
                    return None, ""
                node = _unwrap(values[0])
            else:
                return node, ""
        if (
            node is not None
            and node.type == "object_creation_expression"
            and _simple_type(node.child_by_field_name("type"), self.source) == "RestRequest"
        ):
            arguments = _arguments(node.child_by_field_name("arguments"))
            resource = _argument(arguments, 0, "resource")
            method = _argument(arguments, 1, "method")
            verb = (
                self.text(method.child_by_field_name("name")).upper()
                if method is not None and method.type == "member_access_expression"
                else ""
            )
            return resource, verb if verb in HTTP_METHODS else ""
        return node, ""

    # -- Dapr service invocation ------------------------------------------------------------------

    def _dapr_invoke(
        self,
        node: tree_sitter.Node,
        receiver: tree_sitter.Node | None,
        name: tree_sitter.Node,
        arguments: list[tuple[str, tree_sitter.Node]],
    ) -> None:
        if receiver is None or not self._dapr_client(receiver):
            return
        positional = [value for key, value in arguments if not key]
        verb = "POST"
        if positional and self.text(positional[0]).startswith(("HttpMethod.", "new HttpMethod")):
            verb = self._verb(positional[0])
            positional = positional[1:]
        app = _argument([("", p) for p in positional] + [(k, v) for k, v in arguments if k], 0, "appId")
        method = _argument([("", p) for p in positional] + [(k, v) for k, v in arguments if k], 1, "methodName")
        app_name = self.literal(app) if app is not None else None
        pieces = self.pieces(method) if method is not None else []
        if pieces and pieces[0].literal and not pieces[0].text.startswith("/"):
            pieces = [_Piece(True, "/" + pieces[0].text), *pieces[1:]]
        parts = url_parts([(piece.literal, piece.text) for piece in pieces]) if pieces else None
        path = parts.path if parts is not None and not parts.computed else ""
        computed = parts is None or parts.computed
        address = "" if app_name else self.address(app)[0]
        fact = HttpCall(
            verb,
            path,
            _ts.line(name),
            self.symbol(name.start_byte),
            (app_name or "").lower(),
            address,
            "dapr",
            computed,
        )
        self.calls.append((name.start_byte, len(self.calls), fact))

    def _dapr_client(self, node: tree_sitter.Node) -> bool:
        node = _unwrap(node) or node
        if node.type in ("identifier",) or self._is_this_member(node):
            bindings = self._lookup(node) or []
            if any(_simple_type(b.type, self.source) == "DaprClient" for b in bindings if b.type is not None):
                return True
            if any(b.value is not None and "DaprClientBuilder" in self.text(b.value) for b in bindings):
                return True
            name = self.text(node if node.type == "identifier" else node.child_by_field_name("name"))
            return "dapr" in name.lower() or (self._imports("Dapr") and not bindings)
        return "DaprClientBuilder" in self.text(node)

    # -- messaging --------------------------------------------------------------------------------

    def _messaging(
        self,
        node: tree_sitter.Node,
        receiver: tree_sitter.Node,
        name: tree_sitter.Node,
        method: str,
        type_arguments: list[tree_sitter.Node],
        arguments: list[tuple[str, tree_sitter.Node]],
    ) -> None:
        if method in ("BasicPublish", "BasicPublishAsync"):
            exchange = _argument(arguments, 0, "exchange")
            routing_key = _argument(arguments, 1, "routingKey")
            read = self.name_of(exchange)
            if read.name == "" and not read.address and exchange is not None and self.literal(exchange) == "":
                self._message(
                    name, MessageRole.PRODUCE, "rabbitmq", self.name_of(routing_key), "queue", "RabbitMQ.Client"
                )
            else:
                self._message(name, MessageRole.PRODUCE, "rabbitmq", read, "exchange", "RabbitMQ.Client")
        elif method in ("BasicConsume", "BasicConsumeAsync"):
            queue = _argument(arguments, 0, "queue")
            if queue is not None and self._rabbit_consumer_first(queue):
                queue = _argument(arguments, 1, "queue")
            self._message(name, MessageRole.CONSUME, "rabbitmq", self.name_of(queue), "queue", "RabbitMQ.Client")
        elif method in ("QueueBind", "QueueBindAsync"):
            exchange = _argument(arguments, 1, "exchange")
            self._message(name, MessageRole.CONSUME, "rabbitmq", self.name_of(exchange), "exchange", "RabbitMQ.Client")
        elif method in ("Produce", "ProduceAsync") and self._kafka(receiver, "producer"):
            self._message(
                name,
                MessageRole.PRODUCE,
                "kafka",
                self._kafka_topic(_argument(arguments, 0, "topic", "topicPartition")),
                "topic",
                "Confluent.Kafka",
            )
        elif method in ("Subscribe", "Assign") and self._kafka(receiver, "consumer"):
            for topic in self._kafka_topics(_argument(arguments, 0, "topic", "topics", "partitions", "partition")):
                self._message(name, MessageRole.CONSUME, "kafka", topic, "topic", "Confluent.Kafka")
        elif (
            method
            in ("CreateSender", "CreateProcessor", "CreateReceiver", "CreateSessionProcessor", "CreateSessionReceiver")
            and b"ServiceBus" in self.source
        ):
            self._service_bus(name, method, arguments)
        elif method in ("PublishEventAsync", "PublishEvent", "PublishBulkEventAsync") and self._dapr_client(receiver):
            self._message(
                name, MessageRole.PRODUCE, "", self.name_of(_argument(arguments, 1, "topicName")), "topic", "dapr"
            )
        elif method in ("Publish", "PublishAsync", "Subscribe", "SubscribeAsync") and self._redis(receiver):
            role = MessageRole.PRODUCE if method.startswith("Publish") else MessageRole.CONSUME
            self._message(
                name,
                role,
                "redis",
                self._redis_channel(_argument(arguments, 0, "channel")),
                "channel",
                "StackExchange.Redis",
            )
        elif method in (
            "Publish",
            "PublishAsync",
            "Subscribe",
            "SubscribeAsync",
            "Request",
            "RequestAsync",
            "SubscribeCoreAsync",
        ) and self._nats(receiver):
            role = MessageRole.CONSUME if method.startswith("Subscribe") else MessageRole.PRODUCE
            self._message(name, role, "nats", self.name_of(_argument(arguments, 0, "subject")), "subject", "NATS")
        elif method in ("Publish", "PublishAsync", "Subscribe", "AddSubscription"):
            self._event(node, receiver, name, method, type_arguments, arguments)
        elif method in ("Send", "SendAsync", "SendLocal"):
            self._send_message(node, receiver, name, method, type_arguments, arguments)
        elif arguments:
            self._integration_event_handoff(name, method, arguments)

    def _rabbit_consumer_first(self, node: tree_sitter.Node) -> bool:
        """Whether ``BasicConsume``'s first argument is the consumer (the old ``(consumer, queue)`` order)."""
        node = _unwrap(node)
        if node is None or node.type != "identifier":
            return False
        bindings = self._lookup(node) or []
        return (
            any("Consumer" in _simple_type(b.type, self.source) for b in bindings if b.type is not None)
            or "consumer" in self.text(node).lower()
        )

    def _kafka(self, node: tree_sitter.Node, role: str) -> bool:
        """Whether an expression is a Confluent.Kafka producer or consumer."""
        node = _unwrap(node) or node
        wanted = "IProducer" if role == "producer" else "IConsumer"
        builder = "ProducerBuilder" if role == "producer" else "ConsumerBuilder"
        if node.type == "identifier" or self._is_this_member(node):
            bindings = self._lookup(node) or []
            for binding in bindings:
                if (
                    binding.type is not None
                    and _simple_type(binding.type, self.source) in (wanted, wanted[1:])
                    and len(_type_arguments(binding.type)) == 2
                ):
                    return True
                if binding.value is not None and builder in self.text(binding.value):
                    return True
            name = self.text(node if node.type == "identifier" else node.child_by_field_name("name"))
            types = " ".join(_simple_type(b.type, self.source) for b in bindings if b.type is not None).lower()
            return b"Kafka" in self.source and (role in name.lower() or role in types)
        return builder in self.text(node)

    def _kafka_topic(self, node: tree_sitter.Node | None) -> _Name:
        node = _unwrap(node)
        if (
            node is not None
            and node.type == "object_creation_expression"
            and _simple_type(node.child_by_field_name("type"), self.source)
            in ("TopicPartition", "TopicPartitionOffset")
        ):
            return self.name_of(_argument(_arguments(node.child_by_field_name("arguments")), 0, "topic"))
        return self.name_of(node)

    def _kafka_topics(self, node: tree_sitter.Node | None) -> list[_Name]:
        """Each topic of ``Subscribe``'s argument: one name, or a list of them."""
        node = _unwrap(node)
        if node is None:
            return [_NO_NAME]
        if node.type == "identifier":
            values = self._values(node)
            value = _unwrap(values[0]) if values is not None and len(values) == 1 else None
            if value is not None and value.type in _COLLECTIONS:
                node = value
        if (
            node is not None
            and node.type in _COLLECTIONS
            and (node.type != "object_creation_expression" or _elements(node))
        ):
            elements = _elements(node)
            return [self._kafka_topic(element) for element in elements] or [_NO_NAME]
        return [self._kafka_topic(node)]

    def _service_bus(self, name: tree_sitter.Node, method: str, arguments: list[tuple[str, tree_sitter.Node]]) -> None:
        first = _argument(arguments, 0, "queueName", "topicName", "queueOrTopicName")
        second = _argument(arguments, 1, "subscriptionName")
        if first is None:
            return
        if second is not None and self.text(second).startswith("new "):
            second = None  # options, not a subscription
        if method == "CreateSender":
            self._message(
                name, MessageRole.PRODUCE, "servicebus", self.name_of(first), "", "Azure.Messaging.ServiceBus"
            )
        else:
            kind = "topic" if second is not None else "queue"
            self._message(
                name, MessageRole.CONSUME, "servicebus", self.name_of(first), kind, "Azure.Messaging.ServiceBus"
            )

    def _redis(self, node: tree_sitter.Node) -> bool:
        """Whether an expression is a StackExchange.Redis subscriber or database (both publish)."""
        node = _unwrap(node) or node
        if node.type == "invocation_expression":
            return bool(re.search(r"\.Get(?:Subscriber|Database)\([^()]*\)$", self.text(node).rstrip()))
        if node.type == "identifier" or self._is_this_member(node):
            bindings = self._lookup(node) or []
            return any(
                _simple_type(b.type, self.source) in _REDIS_TYPES for b in bindings if b.type is not None
            ) or any(
                b.value is not None and re.search(r"\.Get(?:Subscriber|Database)\(", self.text(b.value))
                for b in bindings
            )
        return False

    def _redis_channel(self, node: tree_sitter.Node | None) -> _Name:
        node = _unwrap(node)
        if (
            node is not None
            and node.type in ("invocation_expression", "object_creation_expression")
            and "RedisChannel" in self.text(node)[:40]
        ):
            arguments = _arguments(node.child_by_field_name("arguments"))
            return self.name_of(arguments[0][1]) if arguments else _NO_NAME
        return self.name_of(node)

    def _nats(self, node: tree_sitter.Node) -> bool:
        if not (self._imports("NATS") or self._imports("NATS.Client") or self._imports("NATS.Net")):
            return False
        node = _unwrap(node) or node
        name = self.text(node if node.type != "member_access_expression" else node.child_by_field_name("name"))
        bindings = self._lookup(node) if node.type == "identifier" or self._is_this_member(node) else None
        if bindings and any(
            "Nats" in _simple_type(b.type, self.source)
            or _simple_type(b.type, self.source) in ("IConnection", "IEncodedConnection")
            for b in bindings
            if b.type is not None
        ):
            return True
        return bool(re.search(r"(?i)nats|connection|^_?conn?$", name))

    # -- event buses: MassTransit, NServiceBus, in-house -----------------------------------------

    def _family(self, node: tree_sitter.Node) -> str:
        """The messaging library an event publisher belongs to: MassTransit, NServiceBus, eventbus or ""."""
        node = _unwrap(node) or node
        name = self.text(node if node.type != "member_access_expression" else node.child_by_field_name("name"))
        if _MEDIATOR.search(name):
            return ""
        types: set[str] = set()
        if node.type == "identifier" or self._is_this_member(node):
            for binding in self._lookup(node) or []:
                if binding.type is not None:
                    types.add(_simple_type(binding.type, self.source))
        if any(_MEDIATOR.search(t) for t in types):
            return ""
        if types & _MASSTRANSIT_TYPES:
            return "MassTransit"
        if types & _NSERVICEBUS_TYPES:
            return "NServiceBus"
        if any("EventBus" in t for t in types) or re.search(r"(?i)eventbus", name):
            return "eventbus"
        lowered = name.lower()
        if self._imports("MassTransit") and re.search(r"bus|publish|endpoint|context", lowered):
            return "MassTransit"
        if self._imports("NServiceBus") and re.search(r"context|session|endpoint|instance", lowered):
            return "NServiceBus"
        return ""

    def _event(
        self,
        node: tree_sitter.Node,
        receiver: tree_sitter.Node,
        name: tree_sitter.Node,
        method: str,
        type_arguments: list[tree_sitter.Node],
        arguments: list[tuple[str, tree_sitter.Node]],
    ) -> None:
        family = self._family(receiver)
        if not family:
            return
        broker, client = ("eventbus", "") if family == "eventbus" else ("", family)
        if method in ("Subscribe", "AddSubscription"):
            if family == "eventbus" and len(type_arguments) == 2:
                self._message(
                    name,
                    MessageRole.CONSUME,
                    broker,
                    _Name(_simple_type(type_arguments[0], self.source)),
                    "event",
                    client,
                )
            return
        events = (
            [_simple_type(type_arguments[0], self.source)]
            if type_arguments
            else self._event_types(_argument(arguments, 0, "message", "event", "@event"))
        )
        if family == "eventbus":
            events = [e for e in events if e not in ("IntegrationEvent", "object", "Object")]
        if not events:
            self._message(name, MessageRole.PRODUCE, broker, _NO_NAME, "event", client)
        for event in events:
            self._message(name, MessageRole.PRODUCE, broker, _Name(event), "event", client, once=True)

    def _event_types(self, node: tree_sitter.Node | None, depth: int = 0) -> list[str]:
        """The types an event value may have: ``new T(...)``, a variable's ``new`` values or declared type."""
        node = _unwrap(node)
        if node is None or depth > 4:
            return []
        if node.type == "object_creation_expression":
            found = _simple_type(node.child_by_field_name("type"), self.source)
            return [found] if found else []
        if node.type == "conditional_expression":
            out: list[str] = []
            for branch in (node.child_by_field_name("consequence"), node.child_by_field_name("alternative")):
                out.extend(t for t in self._event_types(branch, depth + 1) if t not in out)
            return out
        if node.type == "identifier" or self._is_this_member(node):
            bindings = self._lookup(node) or []
            created: list[str] = []
            for binding in bindings:
                for found in self._event_types(binding.value, depth + 1) if binding.value is not None else ():
                    if found not in created:
                        created.append(found)
            if created:
                return created
            declared = [_simple_type(b.type, self.source) for b in bindings if b.type is not None]
            return [d for d in declared[:1] if d not in ("var", "object", "dynamic")]
        return []

    def _integration_event_handoff(
        self, name: tree_sitter.Node, method: str, arguments: list[tuple[str, tree_sitter.Node]]
    ) -> None:
        """An integration event handed to a method that publishes or stores it for publishing (an outbox:
        ``SaveEventAndChangesAsync(new XIntegrationEvent(...))``) is produced here."""
        if not _PRODUCE_WORDS.search(method) or method.startswith(("Log", "Handle")):
            return
        for _, value in arguments[:2]:
            for event in self._event_types(value):
                if event.endswith("IntegrationEvent") and event != "IntegrationEvent":
                    stored = not method.startswith("Publish")
                    self._message(
                        name, MessageRole.PRODUCE, "eventbus", _Name(event), "event", "", once=True, stored=stored
                    )

    def _send_message(
        self,
        node: tree_sitter.Node,
        receiver: tree_sitter.Node | None,
        name: tree_sitter.Node,
        method: str,
        type_arguments: list[tree_sitter.Node],
        arguments: list[tuple[str, tree_sitter.Node]],
    ) -> None:
        """MassTransit / NServiceBus ``Send``: a command produced under its type's name."""
        if receiver is None:
            return
        family = self._family(receiver)
        if family in ("MassTransit", "NServiceBus"):
            events = (
                [_simple_type(type_arguments[0], self.source)]
                if type_arguments
                else self._event_types(_argument(arguments, 0, "message"))
            )
            if not events:
                self._message(name, MessageRole.PRODUCE, "", _NO_NAME, "event", family)
            for event in events:
                self._message(name, MessageRole.PRODUCE, "", _Name(event), "event", family, once=True)
        elif arguments:
            self._integration_event_handoff(name, method, arguments)

    # -- constants --------------------------------------------------------------------------------

    def _constant(self, node: tree_sitter.Node) -> None:
        declaration = node.parent
        field = declaration.parent if declaration is not None else None
        if field is None or field.type != "field_declaration":
            return
        modifiers = {self.text(c) for c in field.children if c.type == "modifier"}
        constant = "const" in modifiers or {"static", "readonly"} <= modifiers
        if not constant or not modifiers & {"public", "internal", "protected"}:
            return
        if _simple_type(declaration.child_by_field_name("type"), self.source) not in ("string", "String"):
            return
        name = self.text(node.child_by_field_name("name"))
        values = [c for c in node.named_children if c.type in _STRINGS]
        if not name or not values:
            return
        value = self._string(values[-1])
        klass = self.classes.innermost(node.start_byte, node.end_byte)
        owner = self.text(self.classes.nodes[klass].child_by_field_name("name")) if klass >= 0 else ""
        if (
            not (_link_name(name) or _link_name(owner))
            or secret_name(name)
            or secret_name(owner)
            or _SECRET_WORDS.search(name)
            or _SECRET_WORDS.search(owner)
        ):
            return
        if not value or len(value) > 200 or any(ch.isspace() for ch in value) or _SECRET_WORDS.search(value):
            return
        fact = Constant(f"{owner}.{name}" if owner else name, value, _ts.line(node))
        self.constants.append((node.start_byte, len(self.constants), fact))


_COLLECTIONS: Final = frozenset(
    {
        "array_creation_expression",
        "implicit_array_creation_expression",
        "collection_expression",
        "object_creation_expression",
        "initializer_expression",
    }
)


def _elements(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The elements of an array, list or collection expression (``new[] { a, b }``, ``[a, b]``)."""
    if node.type == "collection_expression":
        return [
            c.named_child(0)
            for c in node.named_children
            if c.type in ("collection_element", "expression_element") and c.named_child_count
        ] or list(node.named_children)
    if node.type == "initializer_expression":
        return list(node.named_children)
    initializer = node.child_by_field_name("initializer") or next(
        (c for c in node.named_children if c.type == "initializer_expression"), None
    )
    return list(initializer.named_children) if initializer is not None else []


def _interpolated(interpolation: tree_sitter.Node) -> tree_sitter.Node | None:
    """The expression of an interpolation (``x`` of ``{x,5:N2}``)."""
    skip = ("interpolation_brace", "interpolation_alignment_clause", "interpolation_format_clause")
    return next((c for c in interpolation.named_children if c.type not in skip), None)


def _plain_name(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The identifier of a (possibly generic) name."""
    if node is not None and node.type == "generic_name":
        return node.named_child(0)
    return node


def _awaited(node: tree_sitter.Node | None, source: bytes) -> tree_sitter.Node | None:
    """``T`` of ``Task<T>`` / ``ValueTask<T>``, else None."""
    if node is None or _simple_type(node, source) not in ("Task", "ValueTask"):
        return None
    arguments = _type_arguments(node)
    return arguments[0] if len(arguments) == 1 else None


def _merged(pieces: list[_Piece]) -> list[_Piece]:
    """``pieces`` with adjacent literal texts joined."""
    out: list[_Piece] = []
    for piece in pieces:
        if piece.literal and out and out[-1].literal:
            out[-1] = _Piece(True, out[-1].text + piece.text)
        else:
            out.append(piece)
    return out


def _fold_ports(pieces: list[_Piece]) -> list[_Piece]:
    """``base + ":" + port + "/x"``: the port expression belongs to the authority, not the path."""
    out = list(pieces)
    index = 1
    while index + 1 < len(out):
        before, colon, port = out[index - 1], out[index], out[index + 1]
        if (
            not before.literal
            and colon.literal
            and colon.text.endswith(":")
            and "/" not in colon.text
            and not port.literal
        ):
            del out[index : index + 2]
            if index < len(out) and out[index].literal and not out[index].text.startswith("/"):
                head = out[index].text
                slash = head.find("/")
                out[index] = _Piece(True, head[slash:] if slash >= 0 else "")
            continue
        index += 1
    return out
