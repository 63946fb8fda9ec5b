"""Go links: HTTP routes, HTTP calls, messaging and the constants that name them, from the tree
``_go.extract`` already parsed.

Theory of operation: one compiled query captures the calls, literal values, bindings (``:=``, ``=``,
``var``, ``const``), parameters, struct fields and function literals of the file; nothing else of
the tree is visited. Libraries are known by the import paths the file names (``net/http``,
``github.com/go-chi/chi/v5``...), under the local name the file gives them.

Two small evaluators answer every question asked of an expression, following identifiers within
the file (the latest assignment before a use in its function, then the package; a parameter of a
function of the file through its call sites here, else its declared type; a struct field through
every assignment and keyed literal of that name, else its declared type and ``env`` tag):

- :meth:`_Links.values` says what a receiver is: a router of a framework with the prefix its
  groups add (``r.Group("/v1")``, ``PathPrefix("/api").Subrouter()``, chi's ``Route`` closures),
  an ``*http.Client``, a resty client or request, or a broker client of a library.
- :meth:`_Links.pieces` reads a string as literal pieces and expressions (``+``, ``fmt.Sprintf``,
  ``url.JoinPath``, constants, ``os.Getenv`` and ``getEnv("X", "default")`` helpers, flags with a
  default, viper keys, constants of other files), each piece carrying the address it came from
  (``env:X``, ``config:k``, ``const:NAME``), for :func:`~mesh.index.parse._links.url_parts`.

Routes are registrations on a router (``*`` when any method is served, Go 1.22 ``"GET /x/{id}"``
patterns read); a prefix given by this file is applied, one given elsewhere is the other file's
mount: a router with a prefix handed to a function of another package, or mounted from one
(``r.Mount("/users", users.Routes())``), is an :class:`HttpRoute` with ``mount`` set to that
package's import path. A local function that registers its path parameter (``handle(path, h)``)
registers a route at each of its calls here. A receiver the file does not show (a field of a type
declared elsewhere) is read by the framework the file imports and the registration's shape (a path
literal where that framework puts it). Calls are ``http.Get/Post/Head/PostForm``,
``http.NewRequest[WithContext]`` (a request handed to a handler's ``ServeHTTP`` is a test, and a
relative URL no Go client can send), ``Get/Post...`` on an ``*http.Client``, resty's
``R()...Get(url)`` and Dapr's service invocation (and its sidecar's HTTP API: ``/v1.0/invoke/<app>``
reaches the app, ``/v1.0/publish/<pubsub>/<topic>`` produces); a URL nothing here can read is a call
with ``computed=True``. Messages come from the calls and literals each library documents, on a
receiver the file shows is that library's client, else, when the file imports one library with
that method and declares the receiver of no other type; names read like URLs. Everything is sorted
by position at the end: same bytes, same facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

import tree_sitter

from .._facts import Constant, HttpCall, HttpRoute, MessageFact, MessageRole
from . import _kiota, _openapi_clients, _ts
from ._common import Definitions, captures, query
from ._links import HTTP_METHODS, join_paths, route_template, url_parts, verb
from ._config import secret_name

__all__ = ["Links", "extract_links", "link_constants"]

_LANGUAGE: Final = "go"

_QUERY: Final = """
(call_expression) @call
(literal_value) @literal
[(short_var_declaration) (assignment_statement) (var_spec) (const_spec) (range_clause)] @bind
(parameter_declaration) @param
(field_declaration) @field
(func_literal) @closure
"""

_RETURNS: Final = "(return_statement) @return"

#: A file importing none of the libraries may still register routes on a router of another file
#: (``s.router.HandleFunc``), call through a resty client made elsewhere (``.R().Get``) or answer
#: Dapr's ``/dapr/subscribe`` (``PubsubName``).
_HINTS: Final = (b"Handle", b".R()", b"PubsubName")

#: What an expression is, for the questions asked of receivers: (kind, library, prefix or type, origin).
#: kind: router, route (a gorilla route being built), httpclient, resty, restyreq, handle (a broker
#: client of ``library``); origin: the byte offset of the constructor call (-1: unknown).
Val = tuple[str, str, str, int]

#: A piece of a string: (literal, text, address): the literal text or the expression as written, and
#: where the piece comes from (``env:X``, ``config:k``, ``const:NAME``; "" when nothing says).
Piece = tuple[bool, str, str]

#: A parameter of a function literal: (start, end, position, type node, the literal).
_ClosureParam = tuple[int, int, int, tree_sitter.Node | None, tree_sitter.Node]

#: The facts of one file: routes, calls, messages.
Links = tuple[tuple[HttpRoute, ...], tuple[HttpCall, ...], tuple[MessageFact, ...]]

_DEPTH_MAX: Final = 10
#: Expressions that may hold a router handed to other code.
_EXPRESSIONS: Final = ("identifier", "selector_expression", "call_expression")
_STRINGS: Final = ("interpreted_string_literal", "raw_string_literal")
_TEXT_MAX: Final = 200

# -- libraries ------------------------------------------------------------------------------------

_LIBRARIES: Final = (
    (re.compile(r"^net/http$"), "net/http"),
    (re.compile(r"^net/url$"), "url"),
    (re.compile(r"^(fmt|os|flag|path|strings)$"), ""),
    (re.compile(r"^github\.com/gorilla/mux$"), "gorilla"),
    (re.compile(r"^github\.com/(go-chi|pressly)/chi(/v\d+)?$"), "chi"),
    (re.compile(r"^github\.com/gin-gonic/gin$"), "gin"),
    (re.compile(r"^github\.com/labstack/echo(/v\d+)?$"), "echo"),
    (re.compile(r"^github\.com/gofiber/fiber(/v\d+)?$"), "fiber"),
    (re.compile(r"^(github\.com/go-resty/resty(/v\d+)?|gopkg\.in/resty\.v\d+)$"), "resty"),
    (re.compile(r"^github\.com/segmentio/kafka-go$"), "kafka-go"),
    (re.compile(r"^github\.com/(IBM|Shopify)/sarama$"), "sarama"),
    (re.compile(r"^github\.com/confluentinc/confluent-kafka-go(/v\d+)?/kafka$"), "confluent"),
    (re.compile(r"^github\.com/rabbitmq/amqp091-go$"), "amqp"),
    (re.compile(r"^github\.com/streadway/amqp$"), "amqp"),
    (re.compile(r"^github\.com/nats-io/nats\.go$"), "nats"),
    (re.compile(r"^github\.com/nats-io/nats\.go/jetstream$"), "jetstream"),
    (re.compile(r"^github\.com/(go-redis/redis|redis/go-redis)(/v\d+)?$"), "redis"),
    (re.compile(r"^github\.com/aws/aws-sdk-go(-v2)?/service/sqs$"), "sqs"),
    (re.compile(r"^github\.com/aws/aws-sdk-go(-v2)?/service/sns$"), "sns"),
    (re.compile(r"^github\.com/aws/aws-sdk-go(-v2)?/aws$"), "aws"),
    (re.compile(r"^cloud\.google\.com/go/pubsub(/v\d+)?$"), "pubsub"),
    (re.compile(r"^github\.com/dapr/go-sdk/client$"), "dapr"),
    (re.compile(r"^github\.com/dapr/go-sdk/service/(http|grpc)$"), "dapr"),
    (re.compile(r"^github\.com/spf13/viper$"), "viper"),
)

#: The name each library's facts give it (``client`` of calls and messages, ``framework`` of routes).
_CLIENT_NAMES: Final = {
    "net/http": "net/http",
    "gorilla": "gorilla/mux",
    "chi": "chi",
    "gin": "gin",
    "echo": "echo",
    "fiber": "fiber",
    "resty": "resty",
    "kafka-go": "kafka-go",
    "sarama": "sarama",
    "confluent": "confluent-kafka-go",
    "amqp": "amqp091-go",
    "nats": "nats.go",
    "jetstream": "nats.go",
    "redis": "go-redis",
    "sqs": "aws-sdk-go",
    "sns": "aws-sdk-go",
    "pubsub": "pubsub",
    "dapr": "dapr",
}

_BROKERS: Final = {
    "kafka-go": "kafka",
    "sarama": "kafka",
    "confluent": "kafka",
    "amqp": "rabbitmq",
    "nats": "nats",
    "jetstream": "nats",
    "redis": "redis",
    "sqs": "sqs",
    "sns": "sns",
    "pubsub": "pubsub",
    "dapr": "eventbus",
}

_ROUTERS: Final = ("net/http", "gorilla", "chi", "gin", "echo", "fiber")

#: Types the file may declare values of: (library, type) -> (kind, detail).
_TYPES: Final = {
    ("net/http", "ServeMux"): ("router", ""),
    ("net/http", "Client"): ("httpclient", ""),
    ("gorilla", "Router"): ("router", ""),
    ("gorilla", "Route"): ("route", ""),
    ("chi", "Router"): ("router", ""),
    ("chi", "Mux"): ("router", ""),
    ("gin", "Engine"): ("router", ""),
    ("gin", "RouterGroup"): ("router", ""),
    ("gin", "IRouter"): ("router", ""),
    ("gin", "IRoutes"): ("router", ""),
    ("echo", "Echo"): ("router", ""),
    ("echo", "Group"): ("router", ""),
    ("fiber", "App"): ("router", ""),
    ("fiber", "Router"): ("router", ""),
    ("fiber", "Group"): ("router", ""),
    ("resty", "Client"): ("resty", ""),
    ("resty", "Request"): ("restyreq", ""),
    ("amqp", "Channel"): ("handle", ""),
    ("amqp", "Connection"): ("handle", "connection"),
    ("nats", "Conn"): ("handle", ""),
    ("nats", "EncodedConn"): ("handle", ""),
    ("nats", "JetStreamContext"): ("handle", ""),
    ("nats", "JetStream"): ("handle", ""),
    ("jetstream", "JetStream"): ("handle", ""),
    ("redis", "Client"): ("handle", ""),
    ("redis", "ClusterClient"): ("handle", ""),
    ("redis", "UniversalClient"): ("handle", ""),
    ("redis", "Ring"): ("handle", ""),
    ("redis", "Cmdable"): ("handle", ""),
    ("sarama", "SyncProducer"): ("handle", ""),
    ("sarama", "AsyncProducer"): ("handle", ""),
    ("sarama", "Consumer"): ("handle", ""),
    ("sarama", "ConsumerGroup"): ("handle", ""),
    ("sarama", "Client"): ("handle", ""),
    ("confluent", "Producer"): ("handle", ""),
    ("confluent", "Consumer"): ("handle", ""),
    ("kafka-go", "Writer"): ("handle", ""),
    ("kafka-go", "Reader"): ("handle", ""),
    ("kafka-go", "Conn"): ("handle", ""),
    ("sqs", "SQS"): ("handle", ""),
    ("sqs", "Client"): ("handle", ""),
    ("sns", "SNS"): ("handle", ""),
    ("sns", "Client"): ("handle", ""),
    ("pubsub", "Client"): ("handle", ""),
    ("pubsub", "Topic"): ("handle", "topic"),
    ("pubsub", "Subscription"): ("handle", "subscription"),
    ("dapr", "Client"): ("handle", ""),
    ("dapr", "Service"): ("handle", ""),
}

#: Constructors: (library, function) -> (kind, detail).
_CONSTRUCTORS: Final = {
    ("net/http", "NewServeMux"): ("router", ""),
    ("gorilla", "NewRouter"): ("router", ""),
    ("chi", "NewRouter"): ("router", ""),
    ("chi", "NewMux"): ("router", ""),
    ("gin", "Default"): ("router", ""),
    ("gin", "New"): ("router", ""),
    ("echo", "New"): ("router", ""),
    ("fiber", "New"): ("router", ""),
    ("resty", "New"): ("resty", ""),
    ("resty", "NewWithClient"): ("resty", ""),
    ("amqp", "Dial"): ("handle", "connection"),
    ("amqp", "DialTLS"): ("handle", "connection"),
    ("amqp", "DialConfig"): ("handle", "connection"),
    ("nats", "Connect"): ("handle", ""),
    ("nats", "NewEncodedConn"): ("handle", ""),
    ("jetstream", "New"): ("handle", ""),
    ("jetstream", "NewWithDomain"): ("handle", ""),
    ("redis", "NewClient"): ("handle", ""),
    ("redis", "NewClusterClient"): ("handle", ""),
    ("redis", "NewUniversalClient"): ("handle", ""),
    ("redis", "NewFailoverClient"): ("handle", ""),
    ("redis", "NewRing"): ("handle", ""),
    ("sarama", "NewSyncProducer"): ("handle", ""),
    ("sarama", "NewAsyncProducer"): ("handle", ""),
    ("sarama", "NewSyncProducerFromClient"): ("handle", ""),
    ("sarama", "NewAsyncProducerFromClient"): ("handle", ""),
    ("sarama", "NewConsumer"): ("handle", ""),
    ("sarama", "NewConsumerFromClient"): ("handle", ""),
    ("sarama", "NewConsumerGroup"): ("handle", ""),
    ("sarama", "NewConsumerGroupFromClient"): ("handle", ""),
    ("sarama", "NewClient"): ("handle", ""),
    ("confluent", "NewProducer"): ("handle", ""),
    ("confluent", "NewConsumer"): ("handle", ""),
    ("kafka-go", "NewWriter"): ("handle", ""),
    ("kafka-go", "NewReader"): ("handle", ""),
    ("kafka-go", "Dial"): ("handle", ""),
    ("kafka-go", "DialLeader"): ("handle", ""),
    ("kafka-go", "DialContext"): ("handle", ""),
    ("sqs", "New"): ("handle", ""),
    ("sqs", "NewFromConfig"): ("handle", ""),
    ("sns", "New"): ("handle", ""),
    ("sns", "NewFromConfig"): ("handle", ""),
    ("pubsub", "NewClient"): ("handle", ""),
    ("dapr", "NewClient"): ("handle", ""),
    ("dapr", "NewClientWithAddress"): ("handle", ""),
    ("dapr", "NewClientWithAddressContext"): ("handle", ""),
    ("dapr", "NewClientWithPort"): ("handle", ""),
    ("dapr", "NewClientWithSocket"): ("handle", ""),
    ("dapr", "NewService"): ("handle", ""),
    ("dapr", "NewServiceWithMux"): ("handle", ""),
}

#: Methods of a router that return a router: method -> whether its first argument is a prefix.
_GROUPS: Final = {
    "gin": {"Group": True, "Use": False},
    "echo": {"Group": True},
    "fiber": {"Group": True, "Use": False, "Name": False},
    "chi": {"With": False, "Route": True},
    "gorilla": {"StrictSlash": False, "SkipClean": False, "UseEncodedPath": False},
}

#: gorilla/mux calls that carry a route's path.
_GORILLA_PATHS: Final = ("HandleFunc", "Handle", "Path", "PathPrefix")
#: A net/http pattern with a method (Go 1.22).
_PATTERN: Final = re.compile(r"^[A-Z]+\s+\S")

_TITLE_VERBS: Final = ("Get", "Post", "Put", "Patch", "Delete", "Head", "Options", "Connect", "Trace")
_UPPER_VERBS: Final = tuple(word.upper() for word in _TITLE_VERBS)

#: The request methods of net/http's package functions and ``*http.Client``: name -> (verb, arity).
_CLIENT_METHODS: Final = {"Get": ("GET", 1), "Head": ("HEAD", 1), "Post": ("POST", 3), "PostForm": ("POST", 2)}

_RESTY_VERBS: Final = frozenset({*_TITLE_VERBS})

#: nats.go's subscriptions and how many arguments each takes (the subject first).
_NATS_SUBSCRIBE: Final = {
    "Subscribe": 2, "SubscribeSync": 1, "ChanSubscribe": 2, "QueueSubscribe": 3, "QueueSubscribeSync": 2,
    "ChanQueueSubscribe": 3, "PullSubscribe": 2,
}  # fmt: skip

#: Method names worth a look, per kind of fact (anything else is no link).
_ROUTE_METHODS: Final = frozenset(
    {*_TITLE_VERBS, *_UPPER_VERBS, *_GORILLA_PATHS, "Any", "All", "Add", "Match", "Method", "MethodFunc", "Static",
     "StaticFS", "StaticFile", "StaticFileFS", "File", "FileFS", "AddServiceInvocationHandler"}
)  # fmt: skip
_CALL_METHODS: Final = frozenset(
    {*_TITLE_VERBS, "PostForm", "NewRequest", "NewRequestWithContext", "Execute", "InvokeMethod",
     "InvokeMethodWithContent", "InvokeMethodWithCustomContent"}
)  # fmt: skip
_MESSAGE_METHODS: Final = frozenset(
    {"Publish", "PublishWithContext", "PublishWithDeferredConfirmWithContext", "PublishWithDeferredConfirm",
     "PublishAsync", "Request", "RequestWithContext", "Subscribe", "SubscribeSync", "ChanSubscribe", "QueueSubscribe",
     "QueueSubscribeSync", "ChanQueueSubscribe", "PullSubscribe", "PSubscribe", "SSubscribe", "SPublish", "Consume",
     "ConsumeWithContext", "QueueBind", "ConsumePartition", "SubscribeTopics", "PublishEvent",
     "PublishEventfromCustomContent", "PublishEvents", "Topic", "Publisher", "Subscription", "Subscriber"}
)  # fmt: skip

_AMQP_PUBLISH: Final = frozenset(
    {"Publish", "PublishWithContext", "PublishWithDeferredConfirmWithContext", "PublishWithDeferredConfirm"}
)
_DAPR_INVOKE: Final = frozenset({"InvokeMethod", "InvokeMethodWithContent", "InvokeMethodWithCustomContent"})
_DAPR_PUBLISH: Final = frozenset({"PublishEvent", "PublishEventfromCustomContent", "PublishEvents"})
_DAPR_API: Final = re.compile(r"^/v1\.0(?:-alpha1|-beta1)?/(invoke|publish)/([^/{}]+)/(?:method/)?(.*)$")

_FORMAT_VERB: Final = re.compile(r"%(?:%|[-+# 0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[a-zA-Z])")
_ESCAPE: Final = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)", re.S)
_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_ENV_NAME: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")
_ENV_FUNCTION: Final = re.compile(r"(?i)env")
_NOT_ENV_READ: Final = re.compile(r"(?i)set|unset|clear|environ$")
_TAG: Final = re.compile(r'(\w+):"([^"]*)"')
_WORDS: Final = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_LINK_WORDS: Final = frozenset(
    {"topic", "queue", "channel", "exchange", "subject", "stream", "event", "destination", "route", "path", "url",
     "uri", "endpoint", "address", "host"}
)  # fmt: skip
_SECRET: Final = re.compile(r"(?i)key|token|secret|passw|pwd|credential")
_SECRET_VALUE: Final = re.compile(r"(?i)://[^/@\s]*:[^/@\s]*@|^(?=.*\d)(?=.*[a-zA-Z])[A-Za-z0-9+/=_-]{32,}$|-----BEGIN")
_STANDARD: Final = frozenset(
    {"archive", "bufio", "bytes", "cmp", "compress", "container", "context", "crypto", "database", "debug", "embed",
     "encoding", "errors", "expvar", "flag", "fmt", "go", "hash", "html", "image", "index", "io", "iter", "log",
     "maps", "math", "mime", "net", "os", "path", "plugin", "reflect", "regexp", "runtime", "slices", "sort",
     "strconv", "strings", "sync", "syscall", "testing", "text", "time", "unicode", "unique", "unsafe"}
)  # fmt: skip
_PATH_PARAMS: Final = re.compile(r"\{\$\}")


def _lib_of(path: str) -> str | None:
    for pattern, lib in _LIBRARIES:
        if pattern.match(path):
            return lib
    return None


def _default_name(path: str) -> str:
    """The package name Go gives an import by default (the last element, without a version)."""
    parts = [part for part in path.split("/") if part]
    if not parts:
        return ""
    last = parts[-1]
    if re.fullmatch(r"v\d+", last) and len(parts) > 1:
        last = parts[-2]
    last = re.sub(r"\.v\d+$", "", last)
    last = re.sub(r"(\.go|-go)$", "", last)
    last = re.sub(r"^go-", "", last)
    if last.startswith("amqp"):
        return "amqp"
    return re.sub(r"[^\w]", "_", last)


def _unquote(node: tree_sitter.Node, source: bytes) -> str | None:
    """The value of a Go string literal node (None for anything else)."""
    text = _ts.text(node, source)
    if node.type == "raw_string_literal" and len(text) >= 2:
        return text[1:-1]
    if node.type == "interpreted_string_literal" and len(text) >= 2:
        return _ESCAPE.sub(_unescape, text[1:-1])
    return None


def _unescape(match: re.Match[str]) -> str:
    body = match[1]
    if body[0] in "xuU" and len(body) > 1:
        return chr(int(body[1:], 16)) if int(body[1:], 16) < 0x110000 else ""
    if body[0] in "01234567" and len(body) == 3:
        return chr(int(body, 8))
    return _ESCAPES.get(body, body)


def _words(name: str) -> list[str]:
    return [word.lower() for word in _WORDS.findall(name)]


def _link_name(name: str) -> bool:
    """Whether a constant's name says it names a link (``OrdersTopic``, ``API_URL``) and not a secret."""
    if _SECRET.search(name) or secret_name(name):
        return False
    return any(word in _LINK_WORDS or (word.endswith("s") and word[:-1] in _LINK_WORDS) for word in _words(name))


def _squash(text: str) -> str:
    """An expression as written, its white space runs made one space, cut at 200 characters."""
    return " ".join(text.split())[:_TEXT_MAX]


def _arguments(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return []
    return [argument for argument in arguments.named_children if argument.type != "comment"]


def _strip(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    depth = 0
    while node is not None and node.type == "parenthesized_expression" and depth < _DEPTH_MAX:
        node = node.named_child(0)
        depth += 1
    return node


def _callee(function: tree_sitter.Node | None, source: bytes) -> tuple[tree_sitter.Node | None, str]:
    """(receiver or package, name) of a called function: ``x.M`` -> (x, "M"), ``f`` -> (None, "f")."""
    if function is not None and function.type == "selector_expression":
        return function.child_by_field_name("operand"), _ts.text(function.child_by_field_name("field"), source)
    return None, _ts.text(function, source) if function is not None and function.type == "identifier" else ""


def _address_of(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """``x`` of ``&x`` (None for anything else)."""
    node = _strip(node)
    if node is not None and node.type == "unary_expression":
        return _strip(node.child_by_field_name("operand"))
    return None


def _elements(body: tree_sitter.Node | None) -> list[tree_sitter.Node]:
    """The elements of a literal value (``{"a", "b"}``), comments left out."""
    out = []
    for element in body.named_children if body is not None else ():
        if element.type == "literal_element":
            element = _strip(element.named_child(0))
        if element is not None and element.type not in ("comment", "keyed_element"):
            out.append(element)
    return out


def _key(node: tree_sitter.Node) -> tuple[int, int, str]:
    return node.start_byte, node.end_byte, node.type


def link_constants(definitions: Definitions, source: bytes) -> tuple[Constant, ...]:
    """The package-level string constants whose names say they name a link (:class:`Constant`)."""
    out: list[Constant] = []
    seen: set[int] = set()
    for index, node in enumerate(definitions.nodes):
        if definitions.kinds[index] != "constant" or definitions.parents[index] >= 0 or node.type != "const_spec":
            continue
        if node.start_byte in seen:
            continue
        seen.add(node.start_byte)
        values = node.child_by_field_name("value")
        rights = [value for value in values.named_children if value.type != "comment"] if values is not None else []
        if not any(value.type in _STRINGS for value in rights):
            continue
        names = [name for name in node.children_by_field_name("name") if name.is_named]
        if len(rights) != len(names):
            continue
        for name_node, value_node in zip(names, rights, strict=True):
            name = _ts.text(name_node, source)
            value = _unquote(value_node, source)
            if value is None or not _link_name(name):
                continue
            if not value or len(value) > _TEXT_MAX or re.search(r"\s", value) or _SECRET_VALUE.search(value):
                continue
            out.append(Constant(name, value, name_node.start_point[0] + 1))
    return tuple(out)


def extract_links(
    root: tree_sitter.Node, source: bytes, definitions: Definitions, imports: Sequence[tuple[str, str]]
) -> Links:
    """Routes, calls and messages of a Go file; ``imports`` are (path, alias or "") pairs."""
    names: dict[str, str] = {}
    packages: dict[str, str] = {}
    for path, alias in imports:
        if alias in ("_", "."):
            continue
        local = alias or _default_name(path)
        if not local:
            continue
        packages[local] = path
        lib = _lib_of(path)
        if lib:
            names[local] = lib
    libs = set(names.values())
    if not (libs & {*_ROUTERS, *_BROKERS, "resty"}) and not any(hint in source for hint in _HINTS):
        if not _kiota.go_wanted(packages, source) and not _openapi_clients.go_wanted(packages, source):
            return (), (), ()
        return _Links(source, definitions, names, packages).run(root, kiota_only=True)
    return _Links(source, definitions, names, packages).run(root)


class _Links:
    """The link pass over one file (see the module docstring)."""

    def __init__(self, source: bytes, definitions: Definitions, names: dict[str, str], packages: dict[str, str]):
        self.source = source
        self.defs = definitions
        #: local name -> library, for the libraries we know
        self.names = names
        #: local name -> import path, for every import
        self.packages = packages
        self.libs = set(names.values())
        #: local names of the standard packages whose functions build strings (fmt, os, flag...)
        self.standard = {local for local, path in packages.items() if _lib_of(path) == ""}
        #: (scope, name) -> [(offset, value node, index of the value among a call's results)]
        self.assigns: dict[tuple[int, str], list[tuple[int, tree_sitter.Node, int]]] = {}
        #: (scope, name) -> (function definition index, position, type node) of a parameter
        self.params: dict[tuple[int, str], tuple[int, int, tree_sitter.Node | None]] = {}
        #: (scope, name) of every variable the file binds
        self.declared: set[tuple[int, str]] = set()
        #: names of the file's definitions
        self.defined = {fact.name for fact in definitions.facts}
        #: (scope, name) -> declared type of a ``var x T``
        self.var_types: dict[tuple[int, str], tree_sitter.Node] = {}
        #: field name -> values assigned or keyed to it, and its declared type and tag
        self.field_values: dict[str, list[tree_sitter.Node]] = {}
        self.field_types: dict[str, tree_sitter.Node] = {}
        self.field_tags: dict[str, str] = {}
        #: name -> [(start, end, position, type node, closure)] of function-literal parameters
        self.closure_params: dict[str, list[_ClosureParam]] = {}
        #: function or method name -> the calls naming it
        self.calls_by_name: dict[str, list[tree_sitter.Node]] = {}
        #: definition index of each top-level function and method of the file, by name
        self.functions: dict[str, list[int]] = {}
        #: router origin -> prefix it is mounted under in this file
        self.mounts: dict[int, str] = {}
        self.memo_values: dict[tuple[int, int, str], list[Val]] = {}
        self.memo_pieces: dict[tuple[int, int, str], list[Piece] | None] = {}
        self.busy: set[tuple[int, int, str]] = set()
        self.routes: dict[tuple, tuple[int, HttpRoute]] = {}
        self.calls: dict[tuple, tuple[int, HttpCall]] = {}
        self.messages: dict[tuple, tuple[int, MessageFact]] = {}
        for index, fact in enumerate(definitions.facts):
            if definitions.kinds[index] in ("function", "method"):
                self.functions.setdefault(fact.name, []).append(index)

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.source)

    # -- collection ------------------------------------------------------------------------------

    def run(self, root: tree_sitter.Node, kiota_only: bool = False) -> Links:
        found = captures(query(_LANGUAGE, _QUERY), root)
        calls = found.get("call", [])
        for node in found.get("param", ()):
            self.param(node)
        binds = found.get("bind", [])
        # declarations first: an assignment to a name its function does not declare is to the package's
        for node in binds:
            if node.type != "assignment_statement":
                self.bind(node)
        for node in binds:
            if node.type == "assignment_statement":
                self.bind(node)
        for node in found.get("field", ()):
            self.field(node)
        for node in found.get("literal", ()):
            for element in node.named_children:
                if element.type != "keyed_element":
                    continue
                key, value = self.keyed(element)
                if key is not None and value is not None and key.type in ("identifier", "field_identifier"):
                    self.field_values.setdefault(self.text(key), []).append(value)
        for call in calls:
            function = call.child_by_field_name("function")
            if function is None:
                continue
            if function.type == "identifier":
                self.calls_by_name.setdefault(self.text(function), []).append(call)
            elif function.type == "selector_expression":
                field = self.text(function.child_by_field_name("field"))
                self.calls_by_name.setdefault(field, []).append(call)
                operand = function.child_by_field_name("operand")
                if field in ("StringVar", "StringVarP") and self.package_of_name(operand) == "flag":
                    arguments = _arguments(call)
                    target = _address_of(arguments[0]) if arguments else None
                    if target is not None and target.type == "identifier":
                        key = (self.scope(target.start_byte), self.text(target))
                        self.assigns.setdefault(key, []).append((target.start_byte, call, -2))
        for records in self.assigns.values():
            records.sort(key=lambda record: record[0])
        if kiota_only:  # a file of no library known here: its Kiota requests alone (see _kiota.py)
            _kiota.go_calls(self, calls)
            _openapi_clients.go_calls(self, calls)  # and its calls through generated OpenAPI clients
            return (), tuple(fact for _, fact in sorted(self.calls.values(), key=lambda item: item[0])), ()
        # mounts first (two rounds: a mount's own prefix may come from a mount)
        routing = bool(self.libs & {*_ROUTERS}) or any(name in self.calls_by_name for name in ("Handle", "HandleFunc"))
        mounting = [
            call
            for name in ("Mount", "Handle", "HandleFunc", "Use")
            for call in self.calls_by_name.get(name, ())
            if call.child_by_field_name("function").type == "selector_expression"
        ]
        mounting.sort(key=lambda call: call.start_byte)
        for _ in range(2):
            for call in mounting:
                self.mount(call, emit=False)
        for call in calls:
            function = call.child_by_field_name("function")
            if function is None or function.type != "selector_expression":
                continue
            method = self.text(function.child_by_field_name("field"))
            if method in _ROUTE_METHODS:
                self.route(call)
            if routing:
                self.mount(call, emit=True)
            if method in _CALL_METHODS:
                self.http_call(call)
            if method in _MESSAGE_METHODS:
                self.message_call(call)
        for node in found.get("literal", ()):
            self.message_literal(node)
        _kiota.go_calls(self, calls)
        _openapi_clients.go_calls(self, calls)
        return (
            tuple(fact for _, fact in sorted(self.routes.values(), key=lambda item: item[0])),
            tuple(fact for _, fact in sorted(self.calls.values(), key=lambda item: item[0])),
            tuple(fact for _, fact in sorted(self.messages.values(), key=lambda item: item[0])),
        )

    def keyed(self, element: tree_sitter.Node) -> tuple[tree_sitter.Node | None, tree_sitter.Node | None]:
        key = element.child_by_field_name("key")
        value = element.child_by_field_name("value")
        if key is not None and key.type == "literal_element" and key.named_child_count:
            key = key.named_child(0)
        if value is not None and value.type == "literal_element" and value.named_child_count:
            value = value.named_child(0)
        return key, value

    def scope(self, offset: int) -> int:
        """The innermost function or method holding ``offset`` (-1: package level)."""
        index = self.defs.enclosing(offset)
        while index >= 0 and self.defs.kinds[index] not in ("function", "method"):
            index = self.defs.parents[index]
        return index

    def bind(self, node: tree_sitter.Node) -> None:
        if node.type == "range_clause":
            left = node.child_by_field_name("left")
            for name in left.named_children if left is not None else ():
                if name.type == "identifier":
                    self.declared.add((self.scope(name.start_byte), self.text(name)))
            return
        if node.type in ("var_spec", "const_spec"):
            lefts = [name for name in node.children_by_field_name("name") if name.is_named]
            values = node.child_by_field_name("value")
            kind = node.child_by_field_name("type")
        else:
            if node.type == "assignment_statement" and self.text(node.child_by_field_name("operator")) != "=":
                return
            left = node.child_by_field_name("left")
            lefts = left.named_children if left is not None else []
            values = node.child_by_field_name("right")
            kind = None
        rights = [value for value in values.named_children if value.type != "comment"] if values is not None else []
        for index, left in enumerate(lefts):
            if len(rights) == len(lefts):
                right, position = rights[index], -1
            elif len(rights) == 1:
                right, position = rights[0], index
            else:
                right, position = None, -1
            if left.type == "identifier":
                key = (self.scope(left.start_byte), self.text(left))
                if node.type != "assignment_statement":
                    self.declared.add(key)
                elif key not in self.declared and key not in self.params:
                    key = (-1, key[1])
                if right is not None:
                    self.assigns.setdefault(key, []).append((left.start_byte, right, position))
                elif kind is not None:
                    self.var_types.setdefault(key, kind)
            elif left.type == "selector_expression" and right is not None and position == -1:
                self.field_values.setdefault(self.text(left.child_by_field_name("field")), []).append(right)

    def param(self, node: tree_sitter.Node) -> None:
        plist = node.parent
        owner = plist.parent if plist is not None else None
        if owner is None:
            return
        kind = node.child_by_field_name("type")
        names = [name for name in node.children_by_field_name("name") if name.is_named]
        position = sum(
            max(1, len([n for n in sibling.children_by_field_name("name") if n.is_named]))
            for sibling in plist.named_children
            if sibling.type in ("parameter_declaration", "variadic_parameter_declaration")
            and sibling.start_byte < node.start_byte
        )
        if owner.type == "func_literal":
            for offset, name in enumerate(names):
                self.closure_params.setdefault(self.text(name), []).append(
                    (owner.start_byte, owner.end_byte, position + offset, kind, owner)
                )
            return
        if owner.type not in ("function_declaration", "method_declaration"):
            return
        index = self.scope(node.start_byte)
        receiver = owner.child_by_field_name("receiver")
        is_receiver = receiver is not None and receiver.start_byte == plist.start_byte
        for offset, name in enumerate(names):
            self.params[(index, self.text(name))] = (index, -1 if is_receiver else position + offset, kind)

    def field(self, node: tree_sitter.Node) -> None:
        kind = node.child_by_field_name("type")
        tag = node.child_by_field_name("tag")
        for name in node.children_by_field_name("name"):
            if not name.is_named:
                continue
            field = self.text(name)
            if kind is not None:
                self.field_types.setdefault(field, kind)
            if tag is not None:
                self.field_tags.setdefault(field, self.text(tag))

    def lib_name(self, node: tree_sitter.Node | None) -> str | None:
        """The library an identifier names as an import (None: not an import of one we know)."""
        if node is None or node.type not in ("identifier", "package_identifier"):
            return None
        name = self.text(node)
        if name not in self.packages:
            return None
        scope = self.scope(node.start_byte)
        if (scope, name) in self.assigns or (scope, name) in self.params:
            return None  # shadowed by a local
        if name in self.names:
            return self.names[name]
        return "" if name in self.standard else None

    def package_of_name(self, node: tree_sitter.Node | None) -> str:
        """The import path an identifier names ("" when it names none)."""
        if node is None or node.type not in ("identifier", "package_identifier"):
            return ""
        name = self.text(node)
        scope = self.scope(node.start_byte)
        if name not in self.packages or (scope, name) in self.assigns or (scope, name) in self.params:
            return ""
        return self.packages[name]

    # -- what a receiver is ----------------------------------------------------------------------

    def values(self, node: tree_sitter.Node | None, depth: int = 0) -> list[Val]:
        node = _strip(node)
        if node is None or depth > _DEPTH_MAX:
            return []
        key = _key(node)
        if key in self.memo_values:
            return self.memo_values[key]
        if key in self.busy:
            return []
        self.busy.add(key)
        try:
            found = _unique(self._values(node, depth))
        finally:
            self.busy.discard(key)
        self.memo_values[key] = found
        return found

    def _values(self, node: tree_sitter.Node, depth: int) -> list[Val]:
        kind = node.type
        if kind == "unary_expression":
            return self.values(node.child_by_field_name("operand"), depth + 1)
        if kind == "composite_literal":
            return self.type_values(node.child_by_field_name("type"), node.start_byte)
        if kind == "call_expression":
            return self.call_values(node, depth)
        if kind == "identifier":
            return self.identifier_values(node, depth)
        if kind == "selector_expression":
            operand = node.child_by_field_name("operand")
            field = self.text(node.child_by_field_name("field"))
            lib = self.lib_name(operand)
            if lib is not None:
                if lib == "net/http" and field == "DefaultClient":
                    return [("httpclient", "net/http", "", -1)]
                if lib == "net/http" and field == "DefaultServeMux":
                    return [("router", "net/http", "", -1)]
                return []
            found: list[Val] = []
            for value in self.field_values.get(field, ()):
                found += self.values(value, depth + 1)
            if not found:
                found = self.type_values(self.field_types.get(field), -1)
            return found
        if kind == "type_conversion_expression":
            return self.values(node.child_by_field_name("operand"), depth + 1)
        return []

    def type_values(self, node: tree_sitter.Node | None, origin: int) -> list[Val]:
        depth = 0
        while node is not None and node.type in ("pointer_type", "generic_type") and depth < _DEPTH_MAX:
            node = node.named_child(0) if node.type == "pointer_type" else node.child_by_field_name("type")
            depth += 1
        if node is None or node.type != "qualified_type":
            return []
        lib = self.names.get(self.text(node.child_by_field_name("package")))
        if lib is None:
            return []
        found = _TYPES.get((lib, self.text(node.child_by_field_name("name"))))
        if found is None:
            return []
        return [(found[0], lib, found[1], origin)]

    def call_values(self, call: tree_sitter.Node, depth: int) -> list[Val]:
        function = _strip(call.child_by_field_name("function"))
        if function is None:
            return []
        if function.type == "identifier":
            return self.returned(self.text(function), depth)
        if function.type != "selector_expression":
            return []
        operand = function.child_by_field_name("operand")
        method = self.text(function.child_by_field_name("field"))
        lib = self.lib_name(operand)
        if lib is not None:
            made = _CONSTRUCTORS.get((lib, method))
            return [(made[0], lib, made[1], call.start_byte)] if made is not None else []
        arguments = _arguments(call)
        found: list[Val] = []
        for kind, lib, detail, origin in self.values(operand, depth + 1):
            if kind == "router":
                groups = _GROUPS.get(lib, {})
                if method in groups:
                    prefix = detail
                    if groups[method]:
                        path = self.static(arguments[0]) if arguments else None
                        if path is None:
                            continue
                        prefix = join_paths(detail, path) if path not in ("", "/") else detail
                    found.append(("router", lib, prefix, origin))
                elif lib == "fiber" and method in (*_TITLE_VERBS, "All", "Add", "Static"):
                    found.append((kind, lib, detail, origin))
                elif lib == "gorilla" and method in ("PathPrefix", "Path", "Host", "Methods", "Schemes", "Headers",
                                                    "Queries", "MatcherFunc", "Name", "NewRoute"):  # fmt: skip
                    found.append(self.gorilla_step(("route", lib, detail, origin), method, arguments))
            elif kind == "route" and lib == "gorilla":
                if method == "Subrouter":
                    found.append(("router", lib, detail, origin))
                else:
                    found.append(self.gorilla_step((kind, lib, detail, origin), method, arguments))
            elif kind == "resty":
                if method in ("R", "NewRequest"):
                    found.append(("restyreq", lib, "", origin))
                elif method.startswith("Set") or method in ("EnableTrace", "OnBeforeRequest", "OnAfterResponse"):
                    found.append((kind, lib, detail, origin))
            elif kind == "restyreq" and (method.startswith("Set") or method in ("EnableTrace", "ForceContentType")):
                found.append((kind, lib, detail, origin))
            elif kind == "handle":
                if lib == "amqp" and detail == "connection" and method == "Channel":
                    found.append(("handle", lib, "", call.start_byte))
                elif lib == "nats" and method == "JetStream":
                    found.append(("handle", lib, "", call.start_byte))
                elif lib == "pubsub" and method in ("Topic", "Publisher"):
                    found.append(("handle", lib, "topic", call.start_byte))
                elif lib == "pubsub" and method in ("Subscription", "Subscriber"):
                    found.append(("handle", lib, "subscription", call.start_byte))
        return found

    def gorilla_step(self, value: Val, method: str, arguments: list[tree_sitter.Node]) -> Val:
        kind, lib, prefix, origin = value
        if method == "PathPrefix" and arguments:
            path = self.static(arguments[0])
            if path is not None:
                prefix = join_paths(prefix, path)
        return kind, lib, prefix, origin

    def returned(self, name: str, depth: int) -> list[Val]:
        """What a function of this file returns (its return statements, else its result type)."""
        found: list[Val] = []
        for index in self.functions.get(name, ()):
            node = self.defs.nodes[index]
            if node.type != "function_declaration":
                continue
            for first in self.results(index):
                found += self.values(first, depth + 1)
            if not found:
                result = node.child_by_field_name("result")
                if result is not None and result.type == "parameter_list":
                    result = result.named_child(0).child_by_field_name("type") if result.named_child_count else None
                found = self.type_values(result, -1)
        return found

    def identifier_values(self, node: tree_sitter.Node, depth: int) -> list[Val]:
        name = self.text(node)
        offset = node.start_byte
        closure = self.closure_param(name, offset)
        if closure is not None:
            return self.closure_values(closure, depth)
        scope = self.scope(offset)
        for key in ((scope, name), (-1, name)) if scope >= 0 else ((-1, name),):
            records = self.assigns.get(key)
            if records:
                before = [record for record in records if record[0] < offset] or records
                for _, value, position in reversed(before):
                    if position > 0 or position == -2:
                        continue
                    found = self.values(value, depth + 1)
                    if found:
                        return found
            if key in self.params:
                return self.param_values(key, depth, lambda argument: self.values(argument, depth + 1))
            if key in self.var_types:
                return self.type_values(self.var_types[key], -1)
        return []

    def closure_param(self, name: str, offset: int) -> _ClosureParam | None:
        best = None
        for entry in self.closure_params.get(name, ()):
            if entry[0] <= offset < entry[1] and (best is None or entry[0] > best[0]):
                best = entry
        return best

    def closure_values(self, entry: _ClosureParam, depth: int) -> list[Val]:
        _, _, position, kind, closure = entry
        arguments = closure.parent
        call = arguments.parent if arguments is not None else None
        if call is not None and call.type == "call_expression" and position == 0:
            function = call.child_by_field_name("function")
            if function is not None and function.type == "selector_expression":
                method = self.text(function.child_by_field_name("field"))
                args = _arguments(call)
                found: list[Val] = []
                for value in self.values(function.child_by_field_name("operand"), depth + 1):
                    if value[0] != "router" or value[1] not in ("chi", "fiber"):
                        continue
                    if method == "Route" and len(args) >= 2 and args[1].start_byte == closure.start_byte:
                        path = self.static(args[0])
                        if path is not None:
                            found.append(("router", value[1], join_paths(value[2], path), value[3]))
                    elif method == "Group" and value[1] == "chi" and args and args[0].start_byte == closure.start_byte:
                        found.append(value)
                if found:
                    return found
        return self.type_values(kind, -1)

    def param_values(self, key: tuple[int, str], depth: int, evaluate) -> list:
        """Evaluate a parameter through the calls of its function in this file (else its type)."""
        index, position, kind = self.params[key]
        found: list = []
        if position >= 0:
            for argument in self.call_site_arguments(index, position):
                found += evaluate(argument)
        if not found:
            found = self.type_values(kind, -1)
        return found

    def call_site_arguments(self, index: int, position: int) -> list[tree_sitter.Node]:
        node = self.defs.nodes[index]
        name = self.defs.facts[index].name
        parameters = node.child_by_field_name("parameters")
        count = 0
        variadic = False
        for declaration in parameters.named_children if parameters is not None else ():
            if declaration.type == "variadic_parameter_declaration":
                variadic = True
            count += max(1, len([n for n in declaration.children_by_field_name("name") if n.is_named]))
        out = []
        for call in self.calls_by_name.get(name, ()):
            function = call.child_by_field_name("function")
            if function is None:
                continue
            if (function.type == "identifier") != (node.type == "function_declaration"):
                continue
            arguments = _arguments(call)
            if (len(arguments) != count and not variadic) or position >= len(arguments):
                continue
            if self.scope(call.start_byte) == index:
                continue  # recursion
            out.append(arguments[position])
        return out

    def router_values(self, node: tree_sitter.Node | None) -> list[Val]:
        """The routers (and gorilla routes) ``node`` may be; ``http`` itself is the default mux."""
        if self.lib_name(node) == "net/http":
            return [("router", "net/http", "", -1)]
        return [value for value in self.values(node) if value[0] in ("router", "route")]

    # -- strings ---------------------------------------------------------------------------------

    def static(self, node: tree_sitter.Node | None) -> str | None:
        """The value of a string expression when it is all literal (constants followed)."""
        pieces = self.pieces(node)
        if pieces is None or not all(literal for literal, _, _ in pieces):
            return None
        return "".join(text for _, text, _ in pieces)

    def pieces_or_expression(self, node: tree_sitter.Node | None, depth: int = 0) -> list[Piece]:
        found = self.pieces(node, depth)
        if found is None:
            return [(False, self.text(node), "")]
        return found

    def pieces(self, node: tree_sitter.Node | None, depth: int = 0) -> list[Piece] | None:
        """A string expression as literal pieces and expressions, each with the address it came from."""
        node = _strip(node)
        if node is None or depth > _DEPTH_MAX:
            return None
        key = _key(node)
        if key in self.memo_pieces:
            return self.memo_pieces[key]
        if key in self.busy:
            return None
        self.busy.add(key)
        try:
            found = self._pieces(node, depth)
        finally:
            self.busy.discard(key)
        self.memo_pieces[key] = found
        return found

    def _pieces(self, node: tree_sitter.Node, depth: int) -> list[Piece] | None:
        kind = node.type
        if kind in ("interpreted_string_literal", "raw_string_literal"):
            value = _unquote(node, self.source)
            return None if value is None else [(True, value, "")]
        if kind == "binary_expression":
            if self.text(node.child_by_field_name("operator")) != "+":
                return None
            left = self.pieces_or_expression(node.child_by_field_name("left"), depth + 1)
            right = self.pieces_or_expression(node.child_by_field_name("right"), depth + 1)
            return left + right
        if kind == "unary_expression" and self.text(node.child_by_field_name("operator")) in ("*", "&"):
            return self.pieces(node.child_by_field_name("operand"), depth + 1)
        if kind == "call_expression":
            return self.call_pieces(node, depth)
        if kind == "identifier":
            return self.identifier_pieces(node, depth)
        if kind == "selector_expression":
            return self.selector_pieces(node, depth)
        if kind == "type_conversion_expression":
            return self.pieces(node.child_by_field_name("operand"), depth + 1)
        return None

    def call_pieces(self, call: tree_sitter.Node, depth: int) -> list[Piece] | None:
        function = _strip(call.child_by_field_name("function"))
        arguments = _arguments(call)
        if function is None:
            return None
        operand, name = _callee(function, self.source)
        package = self.package_of_name(operand)
        if package == "fmt" and name == "Sprintf" and arguments:
            return self.sprintf(arguments, depth)
        if package in ("net/url", "path") and name in ("JoinPath", "Join") and arguments:
            out = list(self.pieces_or_expression(arguments[0], depth + 1))
            for argument in arguments[1:]:
                out += [(True, "/", ""), *self.pieces_or_expression(argument, depth + 1)]
            return out
        if package == "strings" and name in ("TrimSuffix", "TrimRight", "TrimSpace") and arguments:
            return self.pieces(arguments[0], depth + 1)
        if package == "flag" and name in ("String", "StringP") and len(arguments) >= 2:
            default = self.static(arguments[-2] if name == "StringP" else arguments[1])
            return [(True, default, "")] if default else None
        if package == "flag" and name in ("StringVar", "StringVarP") and len(arguments) >= 3:
            default = self.static(arguments[-2])
            return [(True, default, "")] if default else None
        if self.names.get(self.text(operand)) == "aws" and name in ("String", "StringValue") and arguments:
            return self.pieces(arguments[0], depth + 1)
        viper = self.names.get(self.text(operand)) == "viper"
        if viper or (operand is not None and "viper" in self.libs and name.startswith("GetString")):
            if name in ("GetString", "Get") and arguments:
                config = self.static(arguments[0])
                if config:
                    return [(False, self.text(call), "config:" + config)]
            return None
        # os.Getenv, getEnv("X", "default"), util.GetEnvVar(...), env.String("X", false, "default", "usage")
        env_package = operand is not None and operand.type == "identifier" and _ENV_FUNCTION.search(self.text(operand))
        if (_ENV_FUNCTION.search(name) or env_package) and not _NOT_ENV_READ.search(name) and arguments:
            variable = self.static(arguments[0])
            if variable and _ENV_NAME.match(variable):
                for argument in arguments[1:]:
                    default = self.static(argument)
                    if default is not None and default and not re.search(r"\s", default):
                        return [(True, default, "env:" + variable)]
                return [(False, self.text(call), "env:" + variable)]
        if function.type == "identifier" and name in self.functions:
            return self.returned_pieces(name, depth)
        return None

    def sprintf(self, arguments: list[tree_sitter.Node], depth: int) -> list[Piece] | None:
        form = self.static(arguments[0])
        if form is None:
            return None
        out: list[Piece] = []
        rest = arguments[1:]
        position = 0
        for match in _FORMAT_VERB.finditer(form):
            out.append((True, form[position : match.start()], ""))
            position = match.end()
            if match[0] == "%%":
                out.append((True, "%", ""))
                continue
            if not rest:
                out.append((False, "", ""))
                continue
            argument = rest.pop(0)
            if match[0][-1] in "sv":
                out += self.pieces_or_expression(argument, depth + 1)
            else:
                out.append((False, self.text(argument), ""))
        out.append((True, form[position:], ""))
        return [piece for piece in out if piece[1] or not piece[0]]

    def returned_pieces(self, name: str, depth: int) -> list[Piece] | None:
        indices = [i for i in self.functions.get(name, ()) if self.defs.nodes[i].type == "function_declaration"]
        results = self.results(indices[0]) if len(indices) == 1 else []
        return self.pieces(results[0], depth + 1) if len(results) == 1 else None

    def results(self, index: int) -> list[tree_sitter.Node]:
        """The first expression of each return statement of a function of the file."""
        body = self.defs.nodes[index].child_by_field_name("body")
        out = []
        for statement in captures(query(_LANGUAGE, _RETURNS), body).get("return", ()) if body is not None else ():
            if self.scope(statement.start_byte) != index or not statement.named_child_count:
                continue
            results = statement.named_child(0)
            first = results.named_child(0) if results.type == "expression_list" else results
            if first is not None:
                out.append(first)
        return out

    def identifier_pieces(self, node: tree_sitter.Node, depth: int) -> list[Piece] | None:
        name = self.text(node)
        offset = node.start_byte
        if self.closure_param(name, offset) is not None:
            return None
        scope = self.scope(offset)
        for key in ((scope, name), (-1, name)) if scope >= 0 else ((-1, name),):
            records = self.assigns.get(key)
            if records:
                before = [record for record in records if record[0] < offset] or records[:1]
                latest = self.assigned_pieces(before[-1], depth)
                if latest is not None and all(literal for literal, _, _ in latest) and not any(a for _, _, a in latest):
                    # ``x := os.Getenv("X"); if x == "" { x = "http://..." }``: the variable, its default
                    for record in before[:-1]:
                        earlier = self.assigned_pieces(record, depth)
                        if earlier and len(earlier) == 1 and earlier[0][2]:
                            return [(True, "".join(text for _, text, _ in latest), earlier[0][2])]
                return latest
            if key in self.params:
                if self.params[key][1] < 0:
                    return None
                arguments = self.call_site_arguments(*self.params[key][:2])
                found = [self.pieces(argument, depth + 1) for argument in arguments]
                if found and all(item is not None and item == found[0] for item in found):
                    return found[0]
                return None
            if key in self.var_types or key in self.declared:
                return None
        if name in self.defined:
            return None
        if _link_name(name):
            return [(False, name, "const:" + name)]
        return None

    def assigned_pieces(self, record: tuple[int, tree_sitter.Node, int], depth: int) -> list[Piece] | None:
        _, value, position = record
        if position == -2:
            return self.call_pieces(value, depth + 1)
        if position > 0:
            return None
        if position == 0 and value.type == "call_expression":
            # ``v, ok := os.LookupEnv("X")``, ``u, err := url.JoinPath(...)``: the first result is a string
            _, name = _callee(_strip(value.child_by_field_name("function")), self.source)
            if name not in ("LookupEnv", "JoinPath") and not _ENV_FUNCTION.search(name):
                return None
        return self.pieces(value, depth + 1)

    def selector_pieces(self, node: tree_sitter.Node, depth: int) -> list[Piece] | None:
        operand = node.child_by_field_name("operand")
        field = self.text(node.child_by_field_name("field"))
        if self.lib_name(operand) is not None or self.package_of_name(operand):
            if not self.package_of_name(operand) or _lib_of(self.package_of_name(operand)) is not None:
                return None
            return [(False, self.text(node), "const:" + field)] if _link_name(field) else None
        made = self.made_by(operand)
        if made is not None:
            method, arguments = made
            if method in ("QueueDeclare", "QueueDeclarePassive") and field == "Name" and arguments:
                return self.pieces(arguments[0], depth + 1)
            if method == "GetQueueUrl" and field == "QueueUrl":
                for argument in arguments:
                    found = self.literal_key(argument, "QueueName")
                    if found is not None:
                        return self.pieces(found, depth + 1)
            return None
        values = self.field_values.get(field, ())
        if values:
            found = [self.pieces(value, depth + 1) for value in values]
            known = [item for item in found if item is not None]
            if known and all(item == known[0] for item in known):
                return known[0]
            return None
        tag = self.field_tags.get(field, "")
        tags = dict(_TAG.findall(tag))
        variable = (tags.get("env") or tags.get("envconfig") or "").split(",")[0]
        if variable and _ENV_NAME.match(variable):
            default = tags.get("envDefault") or tags.get("default") or ""
            if default and not re.search(r"\s", default):
                return [(True, default, "env:" + variable)]
            return [(False, self.text(node), "env:" + variable)]
        return None

    def made_by(self, node: tree_sitter.Node | None) -> tuple[str, list[tree_sitter.Node]] | None:
        """(method, arguments) of the call whose first result an identifier holds."""
        node = _strip(node)
        if node is None or node.type != "identifier":
            return None
        scope = self.scope(node.start_byte)
        records = self.assigns.get((scope, self.text(node))) or self.assigns.get((-1, self.text(node)))
        if not records:
            return None
        before = [record for record in records if record[0] < node.start_byte] or records
        _, value, position = before[-1]
        value = _strip(value)
        if position > 0 or value is None or value.type != "call_expression":
            return None
        function = value.child_by_field_name("function")
        if function is None or function.type != "selector_expression":
            return None
        return self.text(function.child_by_field_name("field")), _arguments(value)

    def literal_key(self, literal: tree_sitter.Node | None, name: str) -> tree_sitter.Node | None:
        """The value of key ``name`` in a composite literal (or its body)."""
        literal = _strip(literal)
        if literal is not None and literal.type == "unary_expression":
            literal = _strip(literal.child_by_field_name("operand"))
        if literal is not None and literal.type == "composite_literal":
            literal = literal.child_by_field_name("body")
        if literal is None or literal.type != "literal_value":
            return None
        for element in literal.named_children:
            if element.type == "keyed_element":
                key, value = self.keyed(element)
                if key is not None and self.text(key) == name:
                    return value
        return None

    def resolve_literal(self, node: tree_sitter.Node | None, depth: int = 0) -> tree_sitter.Node | None:
        """The composite literal an expression holds (through ``&`` and variables of the file)."""
        node = _strip(node)
        while node is not None and node.type == "unary_expression" and depth < _DEPTH_MAX:
            node = _strip(node.child_by_field_name("operand"))
            depth += 1
        if node is None or depth > _DEPTH_MAX:
            return None
        if node.type == "composite_literal":
            return node
        if node.type == "identifier":
            scope = self.scope(node.start_byte)
            records = self.assigns.get((scope, self.text(node))) or self.assigns.get((-1, self.text(node)))
            if records:
                before = [record for record in records if record[0] < node.start_byte] or records
                if before[-1][2] == -1:
                    return self.resolve_literal(before[-1][1], depth + 1)
        return None

    # -- routes ----------------------------------------------------------------------------------

    def selector_call(self, call: tree_sitter.Node) -> tuple[tree_sitter.Node, tree_sitter.Node, str] | None:
        function = call.child_by_field_name("function")
        if function is None or function.type != "selector_expression":
            return None
        operand = function.child_by_field_name("operand")
        field = function.child_by_field_name("field")
        if operand is None or field is None:
            return None
        return operand, field, self.text(field)

    def add_route(
        self, anchor: tree_sitter.Node, method: str, path: str, handler: str, framework: str, mount: str = ""
    ) -> None:
        route = HttpRoute(
            method=method,
            path=route_template(path),
            line=anchor.start_point[0] + 1,
            handler=handler,
            symbol=self.defs.symbol(anchor.start_byte),
            framework=_CLIENT_NAMES.get(framework, framework),
            mount=mount,
        )
        key = (anchor.start_byte, route.method, route.path, route.mount)
        self.routes.setdefault(key, (anchor.start_byte, route))

    def handler_text(self, node: tree_sitter.Node | None) -> str:
        node = _strip(node)
        if node is None or node.type == "func_literal":
            return ""
        if node.type in ("call_expression", "type_conversion_expression"):
            function = node.child_by_field_name("function") or node.child_by_field_name("type")
            arguments = _arguments(node) if node.type == "call_expression" else [node.child_by_field_name("operand")]
            if (
                function is not None
                and self.text(function).endswith(("http.HandlerFunc", "HandlerFunc"))
                and len(arguments) == 1
                and arguments[0] is not None
            ):
                return self.handler_text(arguments[0])
        return _squash(self.text(node))

    def prefix_of(self, value: Val) -> str:
        return join_paths(self.mounts.get(value[3], ""), value[2]) if value[3] in self.mounts else value[2]

    def route(self, call: tree_sitter.Node) -> None:
        parts = self.selector_call(call)
        if parts is None:
            return
        operand, anchor, method = parts
        arguments = _arguments(call)
        if not arguments:
            return
        if method in _GORILLA_PATHS:
            top, links = self.outermost(call)
            base = links[0][4] if links else operand
            routers = self.router_values(base)
            gorilla = [value for value in routers if value[1] == "gorilla"]
            if gorilla or (not routers and "gorilla" in self.libs):
                self.gorilla_route(call, links, gorilla)
                return
        if method == "AddServiceInvocationHandler" and len(arguments) == 2 and self.is_lib(operand, "dapr"):
            # Dapr's service invocation: ``InvokeMethod(ctx, "app", "name", verb)`` reaches it as ``/name``
            name = self.static(arguments[0])
            if name is not None:
                self.add_route(anchor, "*", "/" + name.lstrip("/"), self.handler_text(arguments[1]), "dapr")
            return
        routers = self.router_values(operand)
        if not routers:
            routers = self.fallback_routers(call, method, arguments)
        for value in routers:
            if value[0] != "router" or value[1] == "gorilla":
                continue
            self.framework_route(call, anchor, method, arguments, value)

    def fallback_routers(self, call: tree_sitter.Node, method: str, arguments: list[tree_sitter.Node]) -> list[Val]:
        """A receiver the file does not show: the framework its imports and the call's shape say
        (a path literal starting with ``/`` where the framework puts it)."""
        if len(arguments) < 2:
            return []
        at = int(method in ("Method", "MethodFunc", "Match", "Add") or (method == "Handle" and len(arguments) == 3))
        path = self.static(arguments[at])
        routed = path is not None and (path.startswith("/") or _PATTERN.match(path) is not None)
        if method in ("Handle", "HandleFunc") and len(arguments) == 2:
            if not routed and not self.path_parameter(arguments[0], call):
                return []
            return [("router", "chi" if "chi" in self.libs else "net/http", "", -1)]
        if not routed:
            return []
        if method in (*_UPPER_VERBS, "Any", "Match", "Handle", "Static", "StaticFS", "StaticFile", "File"):
            for lib in ("gin", "echo"):
                if lib in self.libs:
                    return [("router", lib, "", -1)]
        if method in (*_TITLE_VERBS, "All", "Method", "MethodFunc", "Add", "Static"):
            for lib in ("chi", "fiber"):
                if lib in self.libs:
                    return [("router", lib, "", -1)]
        return []

    def path_parameter(self, node: tree_sitter.Node, call: tree_sitter.Node) -> bool:
        node = _strip(node)
        if node is None or node.type != "identifier":
            return False
        key = (self.scope(call.start_byte), self.text(node))
        return key in self.params and self.params[key][1] >= 0

    def framework_route(
        self,
        call: tree_sitter.Node,
        anchor: tree_sitter.Node,
        method: str,
        arguments: list[tree_sitter.Node],
        value: Val,
    ) -> None:
        lib = value[1]
        prefix = self.prefix_of(value)
        entries: list[tuple[list[str], tree_sitter.Node, tree_sitter.Node | None, str]] = []
        # (methods, path node, handler node, suffix for static trees)
        if method in ("Handle", "HandleFunc") and len(arguments) == 2 and lib in ("net/http", "chi"):
            if self.strip_prefix_mount(_strip(arguments[1]), prefix):
                return
        if lib == "net/http":
            if method in ("Handle", "HandleFunc") and len(arguments) == 2:
                entries.append((["*"], arguments[0], arguments[1], ""))
        elif lib == "chi":
            if method in _TITLE_VERBS and len(arguments) == 2:
                entries.append(([method.upper()], arguments[0], arguments[1], ""))
            elif method in ("Handle", "HandleFunc") and len(arguments) == 2:
                entries.append((["*"], arguments[0], arguments[1], ""))
            elif method in ("Method", "MethodFunc") and len(arguments) == 3:
                entries.append(([self.method_of(arguments[0])], arguments[1], arguments[2], ""))
        elif lib == "gin":
            if method in _UPPER_VERBS and len(arguments) >= 2:
                entries.append(([method], arguments[0], arguments[-1], ""))
            elif method == "Any" and len(arguments) >= 2:
                entries.append((["*"], arguments[0], arguments[-1], ""))
            elif method == "Handle" and len(arguments) >= 3:
                entries.append(([self.method_of(arguments[0])], arguments[1], arguments[-1], ""))
            elif method == "Match" and len(arguments) >= 3:
                entries.append((self.methods_of(arguments[0]), arguments[1], arguments[-1], ""))
            elif method in ("Static", "StaticFS") and len(arguments) == 2:
                entries.append((["*"], arguments[0], None, "/*filepath"))
            elif method in ("StaticFile", "StaticFileFS") and len(arguments) >= 2:
                entries.append((["*"], arguments[0], None, ""))
        elif lib == "echo":
            if method in _UPPER_VERBS and len(arguments) >= 2:
                entries.append(([method], arguments[0], arguments[1], ""))
            elif method == "Any" and len(arguments) >= 2:
                entries.append((["*"], arguments[0], arguments[1], ""))
            elif method == "Add" and len(arguments) >= 3:
                entries.append(([self.method_of(arguments[0])], arguments[1], arguments[2], ""))
            elif method == "Match" and len(arguments) >= 3:
                entries.append((self.methods_of(arguments[0]), arguments[1], arguments[2], ""))
            elif method in ("Static", "StaticFS") and len(arguments) == 2:
                entries.append((["*"], arguments[0], None, "/*"))
            elif method in ("File", "FileFS") and len(arguments) >= 2:
                entries.append((["*"], arguments[0], None, ""))
        elif lib == "fiber":
            if method in _TITLE_VERBS and len(arguments) >= 2:
                entries.append(([method.upper()], arguments[0], arguments[-1], ""))
            elif method == "All" and len(arguments) >= 2:
                entries.append((["*"], arguments[0], arguments[-1], ""))
            elif method == "Add" and len(arguments) >= 3:
                entries.append((self.methods_of(arguments[0]), arguments[1], arguments[-1], ""))
            elif method == "Static" and len(arguments) >= 2:
                entries.append((["*"], arguments[0], None, "/*"))
        for methods, path_node, handler_node, suffix in entries:
            raw = self.static(path_node)
            if raw is None:
                self.wrapper(call, anchor, methods, path_node, handler_node, lib, prefix)
                continue
            found_method, path = self.pattern(raw) if lib == "net/http" else ("", raw)
            if lib != "net/http" and not path.startswith("/") and path not in ("", "*"):
                path = "/" + path
            full = join_paths(prefix, path + suffix) if path or suffix else (prefix or "/")
            for each in [found_method] if found_method else methods:
                self.add_route(anchor, each, full, self.handler_text(handler_node), lib)

    def pattern(self, raw: str) -> tuple[str, str]:
        """(method, path) of a net/http pattern (``"GET example.com/items/{id}"``, Go 1.22)."""
        method = ""
        text = raw.strip()
        match = re.match(r"^([A-Z]+)\s+(\S.*)$", text)
        if match and match[1] in HTTP_METHODS:
            method, text = match[1], match[2]
        if not text.startswith("/"):
            slash = text.find("/")
            text = text[slash:] if slash >= 0 else "/"
        text = _PATH_PARAMS.sub("", text) or "/"
        return method, text

    def method_of(self, node: tree_sitter.Node | None) -> str:
        node = _strip(node)
        if node is not None and node.type == "selector_expression":
            field = self.text(node.child_by_field_name("field"))
            word = verb(field[6:]) if field.startswith("Method") else ""
            if word:
                return word
        text = self.static(node)
        if text is not None and text.upper() in HTTP_METHODS:
            return text.upper()
        return "*"

    def methods_of(self, node: tree_sitter.Node | None) -> list[str]:
        node = _strip(node)
        if node is not None and node.type == "composite_literal":
            body = node.child_by_field_name("body")
            methods = [self.method_of(element) for element in _elements(body)]
            return methods or ["*"]
        return [self.method_of(node)]

    def wrapper(
        self,
        call: tree_sitter.Node,
        anchor: tree_sitter.Node,
        methods: list[str],
        path_node: tree_sitter.Node,
        handler_node: tree_sitter.Node | None,
        lib: str,
        prefix: str,
    ) -> None:
        """A function of the file that registers its path parameter: a route at each of its calls."""
        path_node = _strip(path_node)
        if path_node is None or path_node.type != "identifier":
            return
        key = (self.scope(call.start_byte), self.text(path_node))
        if key not in self.params or self.params[key][1] < 0 or self.closure_param(key[1], call.start_byte):
            return
        index, position, _ = self.params[key]
        handler_position = -1
        handler = _strip(handler_node)
        if handler is not None:
            for (scope, name), (_, other, _) in self.params.items():
                if scope == index and other >= 0 and re.search(rf"\b{re.escape(name)}\b", self.text(handler)):
                    handler_position = other
                    break
        for argument in self.call_site_arguments(index, position):
            raw = self.static(argument)
            site = argument.parent.parent if argument.parent is not None else None
            if raw is None or site is None:
                continue
            arguments = _arguments(site)
            found_method, path = self.pattern(raw) if lib == "net/http" else ("", raw)
            if handler_position >= 0 and handler_position < len(arguments):
                text = self.handler_text(arguments[handler_position])
            else:
                text = self.handler_text(handler)
            function = site.child_by_field_name("function")
            if function is not None and function.type == "selector_expression":
                function = function.child_by_field_name("field")
            for each in [found_method] if found_method else methods:
                self.add_route(function or site, each, join_paths(prefix, path), text, lib)

    def strip_prefix_mount(self, handler: tree_sitter.Node | None, prefix: str) -> bool:
        """``mux.Handle("/api/", http.StripPrefix("/api", api))`` with ``api`` a router of the file: a mount."""
        if handler is None or handler.type != "call_expression":
            return False
        parts = self.selector_call(handler)
        arguments = _arguments(handler)
        if parts is None or parts[2] != "StripPrefix" or self.lib_name(parts[0]) != "net/http" or len(arguments) != 2:
            return False
        path = self.static(arguments[0])
        routers = [value for value in self.values(arguments[1]) if value[0] == "router" and value[3] >= 0]
        if path is None or not routers:
            return False
        for value in routers:
            self.mounts.setdefault(value[3], join_paths(prefix, path))
        return True

    def outermost(self, call: tree_sitter.Node) -> tuple[tree_sitter.Node, list]:
        """The outermost call of the chain holding ``call``, and the chain's links innermost first."""
        top = call
        while True:
            parent = top.parent
            grand = parent.parent if parent is not None else None
            if (
                parent is not None
                and parent.type == "selector_expression"
                and grand is not None
                and grand.type == "call_expression"
            ):
                top = grand
            else:
                break
        return top, self.chain(top)

    def gorilla_route(self, call: tree_sitter.Node, links: list, routers: list[Val]) -> None:
        """A gorilla/mux chain (``r.HandleFunc(p, h).Methods("GET")``, ``r.Methods(..).Path(p).HandlerFunc(h)``,
        ``r.PathPrefix(p).Subrouter().HandleFunc(..)``), read once, at its first path-bearing call."""
        first = next((link for link in links if link[1] in _GORILLA_PATHS), None)
        if first is None or _key(first[0]) != _key(call):
            return
        prefixes = [self.prefix_of(value) for value in routers] or [""]
        path: str | None = None
        anchor: tree_sitter.Node | None = None
        handler: tree_sitter.Node | None = None
        methods: list[str] = []
        has_handler = False
        for _, name, arguments, field, _ in links:
            if name in _GORILLA_PATHS and arguments:
                raw = self.static(arguments[0])
                if raw is None:
                    return
                path = raw if path is None else join_paths(path, raw)
                anchor = anchor or field
                if name in ("HandleFunc", "Handle") and len(arguments) == 2:
                    handler, has_handler = arguments[1], True
            elif name in ("Handler", "HandlerFunc") and len(arguments) == 1:
                handler, has_handler = arguments[0], True
            elif name == "Methods":
                methods += [self.method_of(argument) for argument in arguments]
            elif name == "Subrouter":
                prefixes = [join_paths(each, path or "") for each in prefixes]
                path, anchor, handler, methods, has_handler = None, None, None, [], False
        if path is None or anchor is None or not has_handler:
            return
        for prefix in prefixes:
            for method in methods or ["*"]:
                self.add_route(anchor, method, join_paths(prefix, path), self.handler_text(handler), "gorilla")

    def chain(self, top: tree_sitter.Node) -> list[tuple]:
        """The method calls of a chain ``r.A(..).B(..)``, innermost first: (call, method, arguments,
        method name node, receiver)."""
        links = []
        node: tree_sitter.Node | None = top
        depth = 0
        while node is not None and node.type == "call_expression" and depth < 64:
            parts = self.selector_call(node)
            if parts is None:
                break
            links.append((node, parts[2], _arguments(node), parts[1], parts[0]))
            node = _strip(parts[0])
            depth += 1
        links.reverse()
        return links

    def mount(self, call: tree_sitter.Node, emit: bool) -> None:
        """Prefixes handed to routers of this file, or to another package (a mount fact)."""
        parts = self.selector_call(call)
        function = call.child_by_field_name("function")
        arguments = _arguments(call)
        if parts is not None:
            operand, anchor, method = parts
            routers = [value for value in self.router_values(operand) if value[0] == "router"]
            if method in ("Handle", "HandleFunc") and len(arguments) == 2 and not emit:
                for value in routers or self.fallback_routers(call, method, arguments):
                    if value[1] in ("net/http", "chi"):
                        self.strip_prefix_mount(_strip(arguments[1]), self.prefix_of(value))
                return
            if method == "Mount" and len(arguments) == 2 and routers:
                path = self.static(arguments[0])
                if path is None:
                    return
                for value in routers:
                    prefix = join_paths(self.prefix_of(value), path)
                    mounted = [v for v in self.values(arguments[1]) if v[0] == "router" and v[3] >= 0]
                    if mounted:
                        for each in mounted:
                            self.mounts[each[3]] = prefix
                    elif emit:
                        package = self.package_of(arguments[1])
                        self.add_route(anchor, "*", prefix, self.handler_text(arguments[1]), value[1], package)
                return
            if method == "Use" and len(arguments) == 2 and any(value[1] == "fiber" for value in routers):
                # fiber's ``app.Use("/john", micro)``: a fiber app of this file mounted under a prefix
                path = self.static(arguments[0])
                mounted = [v for v in self.values(arguments[1]) if v[0] == "router" and v[1] == "fiber" and v[3] >= 0]
                for value in routers if path is not None else ():
                    for each in mounted:
                        self.mounts[each[3]] = join_paths(self.prefix_of(value), path or "")
                return
            closure = _strip(arguments[1]) if len(arguments) == 2 else None
            if method == "Route" and routers and closure is not None and closure.type != "func_literal":
                # chi's ``r.Route("/users", users.Routes)``: the routes of another package, under a prefix
                path = self.static(arguments[0])
                package = self.package_of(closure)
                if path is not None and package and emit:
                    for value in routers:
                        prefix = join_paths(self.prefix_of(value), path)
                        self.add_route(anchor, "*", prefix, self.handler_text(closure), value[1], package)
                return
        if not emit or function is None or function.type != "selector_expression" or not arguments:
            return
        handed = [_strip(argument) for argument in arguments]
        if not any(node is not None and node.type in _EXPRESSIONS for node in handed):
            return
        # a router with a prefix handed to a function of another package: that package's routes are under it
        package = self.package_of(function)
        if not package or _lib_of(package) is not None or _standard(package):
            return
        for argument in handed:
            if argument is None or argument.type not in _EXPRESSIONS:
                continue
            for value in self.values(argument):
                prefix = self.prefix_of(value) if value[0] == "router" else ""
                if prefix and prefix != "/":
                    anchor = function.child_by_field_name("field") or function
                    self.add_route(anchor, "*", prefix, _squash(self.text(function)), value[1], package)

    def package_of(self, node: tree_sitter.Node | None, depth: int = 0) -> str:
        """The import path of the package an expression comes from (``users.Routes()``, a value
        made by ``handlers.New(...)``); "" when it is this file's own."""
        node = _strip(node)
        if node is None or depth > _DEPTH_MAX:
            return ""
        if node.type == "unary_expression":
            return self.package_of(node.child_by_field_name("operand"), depth + 1)
        if node.type == "call_expression":
            return self.package_of(node.child_by_field_name("function"), depth + 1)
        if node.type == "composite_literal":
            kind = node.child_by_field_name("type")
            if kind is not None and kind.type == "qualified_type":
                return self.packages.get(self.text(kind.child_by_field_name("package")), "")
            return ""
        if node.type == "selector_expression":
            operand = node.child_by_field_name("operand")
            direct = self.package_of_name(operand)
            if direct:
                return direct
            return self.package_of(operand, depth + 1)
        if node.type == "identifier":
            scope = self.scope(node.start_byte)
            records = self.assigns.get((scope, self.text(node))) or self.assigns.get((-1, self.text(node)))
            if records:
                before = [record for record in records if record[0] < node.start_byte] or records
                if before[-1][2] <= 0:
                    return self.package_of(before[-1][1], depth + 1)
            return ""
        return ""

    # -- HTTP calls ------------------------------------------------------------------------------

    def http_call(self, call: tree_sitter.Node) -> None:
        parts = self.selector_call(call)
        if parts is None:
            return
        operand, anchor, method = parts
        arguments = _arguments(call)
        lib = self.lib_name(operand)
        if lib == "net/http":
            if method in _CLIENT_METHODS and len(arguments) == _CLIENT_METHODS[method][1]:
                self.add_call(anchor, _CLIENT_METHODS[method][0], arguments[0], "net/http")
            elif method == "NewRequest" and len(arguments) == 3:
                self.new_request(call, anchor, arguments[0], arguments[1])
            elif method == "NewRequestWithContext" and len(arguments) == 4:
                self.new_request(call, anchor, arguments[1], arguments[2])
            return
        if lib is not None:
            return
        if method in _CLIENT_METHODS and len(arguments) == _CLIENT_METHODS[method][1]:
            if any(value[0] == "httpclient" for value in self.values(operand)):
                self.add_call(anchor, _CLIENT_METHODS[method][0], arguments[0], "net/http")
                return
        if (method in _RESTY_VERBS and len(arguments) == 1) or (method == "Execute" and len(arguments) == 2):
            if self.is_resty_request(operand, arguments[-1]):
                verb_name = method.upper() if method != "Execute" else self.method_of(arguments[0])
                self.add_call(anchor, verb_name, arguments[-1], "resty", resty=True)
                return
        if method in _DAPR_INVOKE and len(arguments) >= 4 and self.is_lib(operand, "dapr"):
            self.dapr_invoke(anchor, arguments)

    def is_lib(self, operand: tree_sitter.Node, lib: str) -> bool:
        values = [value for value in self.values(operand) if value[0] == "handle"]
        if values:
            return any(value[1] == lib for value in values)
        return lib in self.libs

    def is_resty_request(self, operand: tree_sitter.Node, url: tree_sitter.Node) -> bool:
        """Whether ``operand`` is a resty request: one the file makes, or a chain through ``.R()``
        (``config.GetHttpClient().R().SetBody(b).Post("/cart")``: resty's shape, even when the client
        comes from another package and resty is not imported here, if the URL reads as one)."""
        if any(value[0] == "restyreq" for value in self.values(operand)):
            return True
        links = self.chain(_strip(operand))
        if not any(link[1] == "R" and not link[2] for link in links):
            return "resty" in self.libs and any(link[1] == "NewRequest" and not link[2] for link in links)
        if "resty" in self.libs:
            return True
        pieces = self.pieces(url)
        return bool(pieces) and pieces[0][0] and pieces[0][1].startswith(("/", "http://", "https://"))

    def new_request(
        self, call: tree_sitter.Node, anchor: tree_sitter.Node, method_node: tree_sitter.Node, url: tree_sitter.Node
    ) -> None:
        """``http.NewRequest``: a call unless the request is handed to a handler of this file (a test)."""
        holder = self.request_holder(call)
        host = ""
        if holder is not None:
            scope, name = holder
            for site in [*self.calls_by_name.get("ServeHTTP", ()), *self.calls_by_name.get("Test", ())]:
                if self.scope(site.start_byte) == scope and any(
                    self.text(argument) == name for argument in _arguments(site)
                ):
                    return
            for site in [*self.calls_by_name.get("Set", ()), *self.calls_by_name.get("Add", ())]:
                arguments = _arguments(site)
                receiver, _ = _callee(site.child_by_field_name("function"), self.source)
                if (
                    len(arguments) == 2
                    and self.scope(site.start_byte) == scope
                    and receiver is not None
                    and self.text(receiver) == name + ".Header"
                    and (self.static(arguments[0]) or "").lower() == "dapr-app-id"
                ):
                    host = (self.static(arguments[1]) or "").lower()
        self.add_call(anchor, self.method_of(method_node), url, "net/http", dapr_app=host)

    def request_holder(self, call: tree_sitter.Node) -> tuple[int, str] | None:
        """The variable a call's first result is assigned to: (scope, name)."""
        expressions = call.parent
        statement = expressions.parent if expressions is not None else None
        if statement is None or statement.type not in ("short_var_declaration", "assignment_statement", "var_spec"):
            return None
        if statement.type == "var_spec":
            names = [name for name in statement.children_by_field_name("name") if name.is_named]
        else:
            left = statement.child_by_field_name("left")
            names = left.named_children if left is not None else []
        if not names or names[0].type != "identifier":
            return None
        return self.scope(names[0].start_byte), self.text(names[0])

    def add_call(
        self,
        anchor: tree_sitter.Node,
        method: str,
        url: tree_sitter.Node,
        client: str,
        resty: bool = False,
        dapr_app: str = "",
    ) -> None:
        pieces = _merge(self.pieces_or_expression(url))
        if resty and pieces and pieces[0][0] and pieces[0][1].startswith("/"):
            base = self.resty_base()
            if base is not None:
                pieces = _merge(base + pieces)
        pieces = _drop_ports(pieces)
        parts = url_parts([(literal, text) for literal, text, _ in pieces])
        address = pieces[0][2] if pieces and pieces[0][2] else ""
        if not address and parts.base:
            address = next((a for literal, text, a in pieces if not literal and text == parts.base and a), "")
        host, path, computed = parts.host, parts.path, parts.computed
        if not computed and not host and not parts.base and not address and client == "net/http":
            return  # a relative URL: no Go client sends one (a request for a handler under test)
        if parts.base and self.test_server(parts.base, anchor.start_byte):
            return  # a request to an httptest server of this file
        if computed:
            path = ""
        dapr = _DAPR_API.match(path) if path else None
        if dapr is not None and dapr[1] == "publish":
            topic = dapr[3].split("/", 1)[0]
            literal = bool(topic) and "{" not in topic
            self.add_message(anchor, MessageRole.PRODUCE, "dapr", topic if literal else "", "topic", "", not literal)
        elif dapr is not None and dapr[1] == "invoke" and "{" not in dapr[2]:
            host, path, address = dapr[2].lower(), "/" + dapr[3], ""
        if dapr_app:
            host, address = dapr_app, ""
        fact = HttpCall(
            method=method,
            path=path,
            line=anchor.start_point[0] + 1,
            symbol=self.defs.symbol(anchor.start_byte),
            host=host,
            address=address,
            client=client,
            computed=computed,
        )
        self.calls.setdefault((anchor.start_byte, fact.method, fact.path), (anchor.start_byte, fact))

    def test_server(self, base: str, offset: int) -> bool:
        """Whether ``base`` is ``srv.URL`` of a server ``httptest.NewServer`` made in this file."""
        match = re.fullmatch(r"(\w+)\.URL", base)
        if match is None:
            return False
        scope = self.scope(offset)
        records = self.assigns.get((scope, match[1])) or self.assigns.get((-1, match[1])) or []
        return any(self.text(value).startswith("httptest.New") for _, value, _ in records)

    def resty_base(self) -> list[Piece] | None:
        found = []
        for name in ("SetBaseURL", "SetHostURL"):
            for site in self.calls_by_name.get(name, ()):
                arguments = _arguments(site)
                if len(arguments) == 1:
                    found.append(self.pieces_or_expression(arguments[0]))
        if found and all(item == found[0] for item in found):
            return found[0]
        return None

    def dapr_invoke(self, anchor: tree_sitter.Node, arguments: list[tree_sitter.Node]) -> None:
        app = self.static(arguments[1])
        method_name = self.static(arguments[2])
        verb_name = self.method_of(arguments[3])
        computed = app is None or method_name is None
        fact = HttpCall(
            method=verb_name,
            path="" if method_name is None else "/" + method_name.lstrip("/"),
            line=anchor.start_point[0] + 1,
            symbol=self.defs.symbol(anchor.start_byte),
            host=(app or "").lower(),
            address="",
            client="dapr",
            computed=computed,
        )
        self.calls.setdefault((anchor.start_byte, fact.method, fact.path), (anchor.start_byte, fact))

    # -- messaging -------------------------------------------------------------------------------

    def add_message(
        self,
        anchor: tree_sitter.Node,
        role: str,
        lib: str,
        name: str,
        kind: str,
        address: str = "",
        computed: bool = False,
    ) -> None:
        fact = MessageFact(
            role=role,
            broker=_BROKERS.get(lib, ""),
            name=name,
            line=anchor.start_point[0] + 1,
            kind=kind,
            symbol=self.defs.symbol(anchor.start_byte),
            address=address,
            client=_CLIENT_NAMES.get(lib, lib),
            computed=computed,
        )
        key = (anchor.start_byte, role, fact.broker, name, kind, address)
        self.messages.setdefault(key, (anchor.start_byte, fact))

    def name_of(self, node: tree_sitter.Node | None, last_segment: str = "") -> tuple[str, str, bool]:
        """(name, address, computed) of a topic/queue/subject expression; ``last_segment`` cuts a URL
        or ARN to its last part (after ``/`` or ``:``)."""
        pieces = _merge(self.pieces_or_expression(node)) if node is not None else []
        if not pieces:
            return "", "", True
        address = pieces[0][2]
        if all(literal for literal, _, _ in pieces):
            name = "".join(text for _, text, _ in pieces)
            if last_segment:
                name = re.split(f"[{re.escape(last_segment)}]", name.rstrip("/"))[-1]
            return name, address, False
        if len(pieces) == 1 and address:
            return "", address, False
        return "", "", True

    def message(
        self, anchor: tree_sitter.Node, role: str, lib: str, node: tree_sitter.Node | None, kind: str, cut: str = ""
    ) -> None:
        name, address, computed = self.name_of(node, cut)
        self.add_message(anchor, role, lib, name, kind, address, computed)

    def names_in(self, node: tree_sitter.Node | None) -> list[tree_sitter.Node | None]:
        """The elements of a ``[]string{...}`` (through a variable), else the expression itself."""
        literal = self.resolve_literal(node)
        if literal is not None:
            return list(_elements(literal.child_by_field_name("body")))
        return [node]

    def receiver_lib(self, operand: tree_sitter.Node, candidates: Iterable[str]) -> str | None:
        """The library of a receiver among ``candidates``: what the file shows it is, else the one
        library of them the file imports."""
        candidates = tuple(candidates)
        values = [value for value in self.values(operand) if value[0] == "handle"]
        if values:
            for value in values:
                if value[1] in candidates:
                    return value[1]
            return None
        if any(value[0] in ("router", "route", "httpclient", "resty", "restyreq") for value in self.values(operand)):
            return None
        if self.foreign_type(operand):
            return None
        imported = [lib for lib in candidates if lib in self.libs]
        return imported[0] if len(imported) == 1 else None

    def foreign_type(self, node: tree_sitter.Node | None) -> bool:
        """Whether the file declares ``node`` (a variable, parameter or field) of a type that is not
        one of a library we know (``bus *events.Bus``): no broker client, whatever its methods."""
        node = _strip(node)
        kind = None
        if node is not None and node.type == "identifier":
            scope = self.scope(node.start_byte)
            entry = self.params.get((scope, self.text(node)))
            kind = entry[2] if entry is not None else self.var_types.get((scope, self.text(node)))
        elif node is not None and node.type == "selector_expression":
            if self.lib_name(node.child_by_field_name("operand")) is None:
                kind = self.field_types.get(self.text(node.child_by_field_name("field")))
        if kind is None:
            return False
        depth = 0
        while kind is not None and kind.type in ("pointer_type", "generic_type") and depth < _DEPTH_MAX:
            kind = kind.named_child(0) if kind.type == "pointer_type" else kind.child_by_field_name("type")
            depth += 1
        if kind is None:
            return False
        if kind.type == "qualified_type":
            return self.text(kind.child_by_field_name("package")) not in self.names
        return kind.type in ("type_identifier", "map_type", "slice_type", "array_type", "channel_type", "function_type")

    def message_call(self, call: tree_sitter.Node) -> None:
        parts = self.selector_call(call)
        if parts is None:
            return
        operand, anchor, method = parts
        arguments = _arguments(call)
        count = len(arguments)
        if self.lib_name(operand) is not None:
            return
        produce, consume = MessageRole.PRODUCE, MessageRole.CONSUME
        if method in _AMQP_PUBLISH:
            with_context = method.endswith("WithContext")
            if count == (6 if with_context else 5):
                if self.receiver_lib(operand, ("amqp",)) == "amqp":
                    exchange, key = arguments[int(with_context)], arguments[int(with_context) + 1]
                    name, address, computed = self.name_of(exchange)
                    if name or address or computed:
                        self.add_message(anchor, produce, "amqp", name, "exchange", address, computed)
                    else:
                        self.message(anchor, produce, "amqp", key, "queue")
                return
        if method == "Publish" and count == 2 and self.receiver_lib(operand, ("nats",)) == "nats":
            self.message(anchor, produce, "nats", arguments[0], "subject")
            return
        if method == "Publish" and count == 3:
            lib = self.receiver_lib(operand, ("redis", "jetstream"))
            if lib is not None:
                self.message(anchor, produce, lib, arguments[1], "channel" if lib == "redis" else "subject")
                return
        if method == "PublishAsync" and count >= 2 and self.receiver_lib(operand, ("nats", "jetstream")):
            self.message(anchor, produce, "nats", arguments[0], "subject")
            return
        if method in ("Request", "RequestWithContext") and count == 3:
            if self.receiver_lib(operand, ("nats",)) == "nats":
                self.message(anchor, produce, "nats", arguments[int(method == "RequestWithContext")], "subject")
                return
        if method in _NATS_SUBSCRIBE or method == "Subscribe":
            lib = self.receiver_lib(operand, ("nats", "redis", "confluent"))
            arity = _NATS_SUBSCRIBE.get(method, 2)
            if lib == "nats" and (count == arity or (method == "PullSubscribe" and count >= arity)):
                self.message(anchor, consume, "nats", arguments[0], "subject")
                return
            if lib == "confluent" and method == "Subscribe" and count == 2:
                self.message(anchor, consume, "confluent", arguments[0], "topic")
                return
            if lib == "redis" and method == "Subscribe" and count >= 2:
                for argument in arguments[1:]:
                    self.message(anchor, consume, "redis", argument, "channel")
                return
        if method in ("PSubscribe", "SSubscribe") and count >= 2 and self.receiver_lib(operand, ("redis",)) == "redis":
            for argument in arguments[1:]:
                self.message(anchor, consume, "redis", argument, "channel")
            return
        if method == "SPublish" and count == 3 and self.receiver_lib(operand, ("redis",)) == "redis":
            self.message(anchor, produce, "redis", arguments[1], "channel")
            return
        if method in ("Consume", "ConsumeWithContext"):
            with_context = method == "ConsumeWithContext"
            if count == (8 if with_context else 7) and self.receiver_lib(operand, ("amqp",)) == "amqp":
                queue = arguments[int(with_context)]
                if self.anonymous_queue(queue):
                    return
                self.message(anchor, consume, "amqp", queue, "queue")
                return
            if method == "Consume" and count == 3 and self.receiver_lib(operand, ("sarama",)) == "sarama":
                for element in self.names_in(arguments[1]):
                    self.message(anchor, consume, "sarama", element, "topic")
                return
        if method == "QueueBind" and count == 5 and self.receiver_lib(operand, ("amqp",)) == "amqp":
            self.message(anchor, consume, "amqp", arguments[2], "exchange")
            return
        if method == "ConsumePartition" and count == 3 and self.receiver_lib(operand, ("sarama",)) == "sarama":
            self.message(anchor, consume, "sarama", arguments[0], "topic")
            return
        if method == "SubscribeTopics" and count == 2 and self.receiver_lib(operand, ("confluent",)) == "confluent":
            for element in self.names_in(arguments[0]):
                self.message(anchor, consume, "confluent", element, "topic")
            return
        if method in _DAPR_PUBLISH and count >= 4 and self.is_lib(operand, "dapr"):
            self.message(anchor, produce, "dapr", arguments[2], "topic")
            return
        if method in ("Topic", "Publisher", "Subscription", "Subscriber") and count == 1:
            if self.receiver_lib(operand, ("pubsub",)) != "pubsub":
                return
            if method in ("Topic", "Publisher") and self.calls_by_name.get("Publish"):
                self.message(anchor, produce, "pubsub", arguments[0], "topic", "/")
            elif method in ("Subscription", "Subscriber") and self.calls_by_name.get("Receive"):
                self.message(anchor, consume, "pubsub", arguments[0], "queue", "/")

    def anonymous_queue(self, node: tree_sitter.Node) -> bool:
        """Whether a queue expression is ``q.Name`` of a queue the server names (``QueueDeclare("", ...)``)."""
        node = _strip(node)
        if node is None or node.type != "selector_expression":
            return False
        made = self.made_by(node.child_by_field_name("operand"))
        return made is not None and made[0] == "QueueDeclare" and bool(made[1]) and self.static(made[1][0]) == ""

    def message_literal(self, body: tree_sitter.Node) -> None:
        """Composite literals that name a topic or queue: kafka-go writers, readers and messages,
        sarama and confluent messages, SQS/SNS inputs, Dapr subscriptions."""
        literal = body.parent
        kind = None
        if literal is not None and literal.type == "composite_literal":
            kind = literal.child_by_field_name("type")
        type_name = ""
        lib = None
        if kind is not None and kind.type == "qualified_type":
            lib = self.names.get(self.text(kind.child_by_field_name("package")))
            type_name = self.text(kind.child_by_field_name("name"))
        anchor = kind if kind is not None else body
        produce, consume = MessageRole.PRODUCE, MessageRole.CONSUME
        keys = {}
        for element in body.named_children:
            if element.type == "keyed_element":
                key, value = self.keyed(element)
                if key is not None and value is not None:
                    keys.setdefault(self.text(key), value)
        if not keys:
            return
        if lib == "kafka-go":
            if type_name in ("Writer", "WriterConfig", "Message") and "Topic" in keys:
                self.message(anchor, produce, lib, keys["Topic"], "topic")
            elif type_name == "ReaderConfig":
                if "Topic" in keys:
                    self.message(anchor, consume, lib, keys["Topic"], "topic")
                for element in self.names_in(keys["GroupTopics"]) if "GroupTopics" in keys else ():
                    self.message(anchor, consume, lib, element, "topic")
        elif lib == "sarama" and type_name == "ProducerMessage" and "Topic" in keys:
            self.message(anchor, produce, lib, keys["Topic"], "topic")
        elif lib == "confluent" and type_name == "Message" and "TopicPartition" in keys:
            topic = self.literal_key(keys["TopicPartition"], "Topic")
            if topic is not None:
                self.message(anchor, produce, lib, topic, "topic")
        elif lib == "sqs" and type_name in ("SendMessageInput", "SendMessageBatchInput", "ReceiveMessageInput"):
            if "QueueUrl" in keys:
                role = consume if type_name == "ReceiveMessageInput" else produce
                self.message(anchor, role, lib, keys["QueueUrl"], "queue", "/")
        elif lib == "sns" and type_name in ("PublishInput", "PublishBatchInput", "SubscribeInput"):
            target = keys.get("TopicArn") or keys.get("TargetArn")
            if target is not None:
                role = consume if type_name == "SubscribeInput" else produce
                self.message(anchor, role, lib, target, "topic", ":")
        elif "PubsubName" in keys and "Topic" in keys:
            # a Dapr subscription: the SDK's common.Subscription, or the /dapr/subscribe answer
            self.message(anchor, consume, "dapr", keys["Topic"], "topic")


def _standard(path: str) -> bool:
    """Whether an import path is of Go's standard library (its first element has no dot and is one
    of the library's folders)."""
    return path.split("/", 1)[0] in _STANDARD


def _unique(values: Iterable[Val]) -> list[Val]:
    seen: set[Val] = set()
    out = []
    for value in values:
        if value not in seen:
            seen.add(value)
            out.append(value)
    return out


def _merge(pieces: list[Piece]) -> list[Piece]:
    """Adjacent literal pieces as one (the first one's address kept)."""
    out: list[Piece] = []
    for literal, text, address in pieces:
        if literal and out and out[-1][0]:
            out[-1] = (True, out[-1][1] + text, out[-1][2] or address)
        else:
            out.append((literal, text, address))
    return out


def _drop_ports(pieces: list[Piece]) -> list[Piece]:
    """``host + ":" + port + "/x"``: the port expression is no part of the path."""
    out = list(pieces)
    index = 0
    while index + 2 < len(out):
        literal, text, address = out[index]
        nxt, after = out[index + 1], out[index + 2]
        port = literal and text.endswith(":") and not text.endswith("://") and not nxt[0]
        if port and after[0] and after[1][:1] in ("/", "?", ""):
            out[index] = (True, text[:-1], address)
            del out[index + 1]
            out = _merge(out)
            continue
        index += 1
    return out
