"""HTTP routes, HTTP calls, messaging, typed-client settings and link constants of Java and Kotlin.

Theory of operation: the Java and Kotlin extractors run one query over their tree; the same
traversal captures calls, object creations, declarations (fields, properties, locals, parameters),
assignments and the package for this pass (their gRPC patterns and :data:`JAVA_CAPTURES`,
:data:`KOTLIN_CAPTURES`). :func:`extract` reads those captures through the grammar's
:class:`~._jvm_syntax.Syntax`, so every rule is written once for both languages. Annotations come
from each definition's own modifiers; a call's rules are chosen by its method name (or created
type) in :data:`_CALL_RULES`, and only such calls are ever normalised. No rule asks a node for its
parent: the call made on a call's result comes from a map built over the captured calls, the
prefixes of nested routes from the byte ranges of the nesting calls (:class:`_Nesting`).

Values are followed within the file by a flow-insensitive lookup over scopes (the enclosing
definitions of :class:`~._common.Definitions`, a Kotlin companion object seen from its class): a
name holds what its declaration or an assignment gives it, a ``@Value("${x.y}")`` /
``@ConfigProperty(name = "x.y")`` annotation, an initializer, a constructor parameter stored in a
field. An expression evaluates to pieces (:data:`Piece`): literal text, a name (a path parameter),
or an address: ``env:NAME`` (``System.getenv``, an upper-case placeholder), ``config:key``
(``${key}`` placeholders, ``Environment.getProperty``, ``System.getProperty``), ``const:Owner.NAME``
(a constant of a class this file does not declare; a static import names its owner),
``client:Type`` (the base address of a typed client interface). Constants of the file are inlined;
a placeholder keeps the default written in it. A URL is read with :func:`~._links.url_parts` once
a port expression after its host is dropped; what cannot be read is a computed call, never a guess.
A fact's line is where its path, URL or name is written: the mapping annotation of a route or of a
client interface's method, the ``uri(...)``/``url(...)`` of a request builder, the call otherwise.

Frameworks are told by the file's imports where a name is ambiguous (``@GET`` of JAX-RS or
Retrofit, ``@Controller``/``@Get`` of Micronaut, ``@Topic`` of Dapr or Micronaut, ``get("/x", h)``
of Javalin, Spark or Ktor) and by the declared type of a receiver (``RestTemplate``,
``KafkaTemplate``, ``WebClient``...) where a method name is common (``send``, ``exchange``,
``publish``); names no other library uses (``getForObject``, ``@KafkaListener``) need neither.
Interfaces annotated as clients (Feign, ``@HttpExchange``, Retrofit, Micronaut ``@Client``,
MicroProfile ``@RegisterRestClient``) give calls, never routes. Clients whose URL is not written at
the request (Kiota request builders, REST Assured and MockMvc test requests, URL helper methods of
the file, configuration-properties beans as base addresses) are read by :mod:`._jvm_fluent`.
Brokers the code does not name (Eventuate Tram, Dapr pub/sub, JMS, Spring Cloud Stream and
reactive-messaging bindings) have broker "" and name their client. Every walk is bounded (chain links, nesting calls, evaluation
depth, pieces) and memoised where a chain could repeat it, so a pathological file costs linear time.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from typing import Final

import attrs
import tree_sitter

from .._facts import Constant, HttpCall, HttpRoute, Import, MessageFact, MessageRole, Setting
from . import _jvm_fluent, _openapi_clients
from ._common import Definitions, squash
from ._jvm_syntax import WRITTEN_MAX, Ann, Call, Decl, JavaSyntax, KotlinSyntax, Syntax, same
from ._links import HTTP_METHODS, join_paths, route_template, url_parts
from ._config import secret_name

__all__ = ["JAVA_CAPTURES", "KOTLIN_CAPTURES", "Links", "extract"]

#: What the link pass reads, added to the Java extractor's query (calls and declarations come from
#: its gRPC patterns, which are always added with these).
JAVA_CAPTURES: Final = """
(object_creation_expression) @call
(constant_declaration) @declaration
(package_declaration) @package
"""

#: What the link pass reads, added to the Kotlin extractor's query (with its gRPC patterns).
KOTLIN_CAPTURES: Final = """
(package_header) @package
(binary_expression) @call
"""

#: Literal text (True, text) or an expression (False, text): a name (``orderId``), an address
#: (``env:NAME``, ``config:key``, ``const:Owner.NAME``, ``client:Type``) or ``?`` for anything else.
Piece = tuple[bool, str]

_ADDRESS: Final = re.compile(r"^(?:env|config|const|client):")
_PLACEHOLDER: Final = re.compile(r"\$\{([^{}:]+)(?::([^{}]*))?\}|#\{[^{}]*\}")
_ENV_NAME: Final = re.compile(r"^[A-Z][A-Z0-9_]*$")
_FORMAT_SPEC: Final = re.compile(r"%[-#+ 0,(]*\d*(?:\.\d+)?[sdfx]")

#: How deep an expression is evaluated through names, calls and concatenations.
_DEPTH_MAX: Final = 8
#: How many pieces a value may hold (a longer one is computed).
_PIECES_MAX: Final = 48
#: How many links of a call chain, and how many nesting calls around a node, a rule looks at.
_CHAIN_MAX: Final = 32
_ANCESTORS_MAX: Final = 64

_VERB_WORDS: Final = {verb.lower(): verb for verb in HTTP_METHODS}
#: Node types of calls (a Kotlin ``x.m<T>(a)`` is a ``binary_expression``).
_CALL_NODES: Final = frozenset(
    {"method_invocation", "object_creation_expression", "call_expression", "binary_expression"}
)

# -- words of the contract ---------------------------------------------------------------------------

_LINK_WORDS: Final = frozenset(
    {"topic", "queue", "channel", "exchange", "subject", "stream", "event", "destination", "route", "path",
     "url", "uri", "endpoint", "address", "host"}
)  # fmt: skip
_SECRET_WORDS: Final = frozenset({"key", "token", "secret", "password", "passwd", "pwd", "credential", "apikey"})
_WORD: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def _words(name: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(name)]


def _stem(word: str) -> str:
    if word.endswith("es") and word[:-2] in _LINK_WORDS | _SECRET_WORDS:
        return word[:-2]
    if word.endswith("s") and word[:-1] in _LINK_WORDS | _SECRET_WORDS:
        return word[:-1]
    return word


def _names_link(name: str) -> bool:
    return any(_stem(word) in _LINK_WORDS for word in _words(name))


def _looks_secret(name: str, value: str) -> bool:
    if secret_name(name) or any(_stem(word) in _SECRET_WORDS for word in _words(name)):
        return True
    if re.search(r"://[^/@\s]*:[^/@\s]*@", value):
        return True
    return bool(
        re.fullmatch(r"[A-Za-z0-9+/=_\-]{32,}", value) and re.search(r"\d", value) and re.search(r"[A-Za-z]", value)
    )


# -- what the rules know ---------------------------------------------------------------------------

_REST_TEMPLATES: Final = frozenset({"RestTemplate", "TestRestTemplate", "RestOperations", "OAuth2RestTemplate"})
_REST_TEMPLATE_VERBS: Final = {
    "getForObject": "GET", "getForEntity": "GET", "postForObject": "POST", "postForEntity": "POST",
    "postForLocation": "POST", "put": "PUT", "patchForObject": "PATCH", "delete": "DELETE",
    "headForHeaders": "HEAD", "optionsForAllow": "OPTIONS", "exchange": "", "execute": "",
}  # fmt: skip
_FLUENT_CLIENTS: Final = frozenset({"WebClient", "RestClient"})
_TEST_CLIENTS: Final = frozenset({"WebTestClient", "MockMvc", "MockMvcTester", "RestTestClient"})
_APACHE_REQUESTS: Final = {
    "HttpGet": "GET", "HttpPost": "POST", "HttpPut": "PUT", "HttpDelete": "DELETE", "HttpPatch": "PATCH",
    "HttpHead": "HEAD", "HttpOptions": "OPTIONS",
}  # fmt: skip
_SPRING_MAPPINGS: Final = {
    "GetMapping": "GET", "PostMapping": "POST", "PutMapping": "PUT", "DeleteMapping": "DELETE",
    "PatchMapping": "PATCH", "RequestMapping": "",
}  # fmt: skip
_EXCHANGES: Final = {
    "GetExchange": "GET", "PostExchange": "POST", "PutExchange": "PUT", "DeleteExchange": "DELETE",
    "PatchExchange": "PATCH", "HttpExchange": "",
}  # fmt: skip
_MICRONAUT_VERBS: Final = {
    "Get": "GET", "Post": "POST", "Put": "PUT", "Delete": "DELETE", "Patch": "PATCH", "Head": "HEAD", "Options": "OPTIONS",
}  # fmt: skip
_LIST_FACTORIES: Final = frozenset(
    {"of", "asList", "singletonList", "singleton", "listOf", "setOf", "arrayOf", "mutableListOf", "mutableSetOf",
     "listOfNotNull", "hashSetOf", "linkedSetOf", "copyOf"}
)  # fmt: skip
_PASS_THROUGH: Final = frozenset(
    {"create", "toString", "toURI", "toUri", "toURL", "toUrl", "trim", "strip", "requireNonNull", "toHttpUrl",
     "toHttpUrlOrNull", "parse", "get"}
)  # fmt: skip
_URI_BUILDER_PASS: Final = frozenset(
    {"toUriString", "toUri", "build", "buildAndExpand", "expand", "encode", "queryParam", "queryParams",
     "queryParamIfPresent", "fragment", "replaceQueryParam"}
)  # fmt: skip
_URI_BUILDER_ROOTS: Final = frozenset({"fromHttpUrl", "fromUriString", "fromUri", "fromPath", "fromUrl"})
#: Calls of a chain reading a response (REST Assured's ``then().extract().path("orderId")``): a
#: ``path(...)`` after them is a JSON path, no URL.
_RESPONSE_READERS: Final = frozenset({"then", "extract", "jsonPath", "xmlPath", "response", "andReturn"})
_KAFKA_TEMPLATES: Final = frozenset(
    {"KafkaTemplate", "ReactiveKafkaProducerTemplate", "KafkaOperations", "RoutingKafkaTemplate"}
)
_KAFKA_CONSUMERS: Final = frozenset({"KafkaConsumer", "Consumer", "MockConsumer"})
_RABBIT_TEMPLATES: Final = frozenset(
    {"RabbitTemplate", "AmqpTemplate", "RabbitOperations", "RabbitMessagingTemplate", "AsyncRabbitTemplate",
     "RabbitStreamTemplate"}
)  # fmt: skip
_JMS_TEMPLATES: Final = frozenset({"JmsTemplate", "JmsMessagingTemplate", "JmsOperations", "JmsClient"})
_REDIS_TEMPLATES: Final = frozenset(
    {"RedisTemplate", "StringRedisTemplate", "ReactiveRedisTemplate", "ReactiveStringRedisTemplate", "RedisOperations"}
)  # fmt: skip
_JEDIS: Final = frozenset({"Jedis", "JedisPooled", "JedisCluster", "UnifiedJedis"})
_SQS_TEMPLATES: Final = frozenset({"SqsTemplate", "SqsOperations", "SqsAsyncOperations", "QueueMessagingTemplate"})
_SNS_TEMPLATES: Final = frozenset({"SnsTemplate", "SnsOperations", "NotificationMessagingTemplate"})
_SQS_CLIENTS: Final = frozenset({"SqsClient", "SqsAsyncClient", "AmazonSQS", "AmazonSQSAsync", "AmazonSQSClient"})
_SNS_CLIENTS: Final = frozenset({"SnsClient", "SnsAsyncClient", "AmazonSNS", "AmazonSNSAsync", "AmazonSNSClient"})
#: AWS SDK request types: (broker, role).
_AWS_REQUESTS: Final = {
    "SendMessageRequest": ("sqs", MessageRole.PRODUCE), "SendMessageBatchRequest": ("sqs", MessageRole.PRODUCE),
    "ReceiveMessageRequest": ("sqs", MessageRole.CONSUME), "PublishRequest": ("sns", MessageRole.PRODUCE),
    "PublishBatchRequest": ("sns", MessageRole.PRODUCE),
}  # fmt: skip
_EVENTUATE: Final = ("io.eventuate",)
#: ``class P extends AbstractAggregateDomainEventPublisher<Order, OrderEvent>``: the aggregate as written.
_AGGREGATE_PUBLISHER: Final = re.compile(r"AbstractAggregateDomainEventPublisher<\s*([\w.]+)")
#: ``X.class.getName()``, ``X::class.java.name``, ``X::class.qualifiedName``: the qualified name of ``X``.
_CLASS_NAMES: Final = frozenset(
    {"getName", "getTypeName", "getCanonicalName", "name", "typeName", "canonicalName", "qualifiedName"}
)
#: Eventuate Client's event types of an ``@EventHandlerMethod``'s parameter (``DispatchedEvent<E>``).
_DISPATCHED_EVENTS: Final = frozenset({"DispatchedEvent", "EventHandlerContext"})
_DAPR: Final = ("io.dapr",)


@attrs.frozen
class Links:
    """The link facts of one file, each kind in source order."""

    http_routes: tuple[HttpRoute, ...] = ()
    http_calls: tuple[HttpCall, ...] = ()
    messages: tuple[MessageFact, ...] = ()
    settings: tuple[Setting, ...] = ()
    constants: tuple[Constant, ...] = ()


def extract(
    language: str,
    source: bytes,
    definitions: Definitions,
    imports: Sequence[Import],
    found: Iterable[tuple[int, dict[str, list[tree_sitter.Node]]]],
) -> Links:
    """The link facts of a Java or Kotlin file from the matches of the extractor's one query."""
    syntax: Syntax = KotlinSyntax(source) if language == "kotlin" else JavaSyntax(source)
    return _Engine(syntax, definitions, imports).run(found)


#: Between an address and the default written beside it in a piece (``config:key`` + ``\x1f`` + default).
_DEFAULT: Final = "\x1f"


def _address(text: str, default: str | None = None) -> str:
    """An address piece's text, with the default written beside it when there is one."""
    return text if default is None else text + _DEFAULT + default


def _split(text: str) -> tuple[str, str | None]:
    """(address, default or None) of an address piece's text."""
    address, sep, default = text.partition(_DEFAULT)
    return address, (default if sep else None)


def _merge(pieces: Iterable[Piece]) -> list[Piece]:
    out: list[Piece] = []
    for literal, text in pieces:
        if literal and not text:
            continue
        if literal and out and out[-1][0]:
            out[-1] = (True, out[-1][1] + text)
        else:
            out.append((literal, text))
    if len(out) > _PIECES_MAX:
        out = [*out[:_PIECES_MAX], (False, "?")]
    return out


def _informative(pieces: Sequence[Piece]) -> bool:
    return any(literal or _ADDRESS.match(text) or text.startswith(_jvm_fluent.BEAN) for literal, text in pieces)


def _literal(pieces: Sequence[Piece]) -> str | None:
    """The text of pieces that are all literal (None otherwise)."""
    if all(literal for literal, _ in pieces):
        return "".join(text for _, text in pieces)
    return None


def _absolute(pieces: Sequence[Piece]) -> bool:
    return bool(pieces) and pieces[0][0] and re.match(r"^[a-zA-Z][\w+.-]*://", pieces[0][1]) is not None


def _strip_port(pieces: Sequence[Piece]) -> list[Piece]:
    """``http://host:`` + port + ``/x`` (or base + ``:`` + port + ``/x``) without the port expression."""
    out: list[Piece] = []
    seen = ""
    index = 0
    while index < len(pieces):
        literal, text = pieces[index]
        if (
            literal
            and text.endswith(":")
            and index + 1 < len(pieces)
            and not pieces[index + 1][0]
            and re.fullmatch(r"(?:[a-zA-Z][\w+.-]*://)?[^/]*:", seen + text)
        ):
            out.append((True, text[:-1]))
            seen += text[:-1] + "0"
            index += 2
            continue
        out.append((literal, text))
        seen += text if literal else "X"
        index += 1
    return _merge(out)


def _verb_word(text: str) -> str:
    """``GET`` of ``HttpMethod.GET``, ``RequestMethod.Post``, ``"post"``; "" when none."""
    word = text.rsplit(".", 1)[-1].strip().strip('"').upper()
    return word if word in HTTP_METHODS else ""


def _spring_pattern(path: str) -> str:
    """Spring's ``/**`` (any depth) and ``/*`` (one segment) as template parameters."""
    path = re.sub(r"/\*\*$", "/{*path}", path)
    return re.sub(r"(?<=/)\*(?=/|$)", "{}", path)


class _Engine:
    """The link pass over one file (see the module docstring)."""

    def __init__(self, syntax: Syntax, definitions: Definitions, imports: Sequence[Import]) -> None:
        self.s = syntax
        self.defs = definitions
        self.modules = [item.module for item in imports]
        self.used: dict[tuple[str, ...], bool] = {}
        self.package = ""
        #: (scope, name) -> declared type; values assigned; a placeholder string from an annotation
        self.types: dict[tuple[int, str], str] = {}
        self.type_arguments: dict[tuple[int, str], tuple[str, ...]] = {}
        self.values: dict[tuple[int, str], list[tree_sitter.Node]] = {}
        self.placeholders: dict[tuple[int, str], str] = {}
        self.declared: dict[tuple[int, str], bool] = {}
        self.anns: dict[int, list[Ann]] = {}
        self.def_at = {(node.start_byte, node.end_byte): index for index, node in enumerate(definitions.nodes)}
        self.companions: dict[int, list[int]] = {}
        self.type_index: dict[str, int] = {}
        for index, node in enumerate(definitions.nodes):
            if definitions.kinds[index] in ("method", "function"):
                continue
            if node.type == "companion_object":
                parent = definitions.parents[index]
                if parent >= 0:
                    self.companions.setdefault(parent, []).append(index)
            else:
                self.type_index.setdefault(definitions.facts[index].name, index)
        #: NAME -> Owner of ``import static a.b.Owner.NAME``
        self.static_owner: dict[str, str] = {}
        for module in self.modules:
            parts = module.split(".")
            if len(parts) >= 2 and parts[-2][:1].isupper() and parts[-1] != "*" and parts[-1].upper() == parts[-1]:
                self.static_owner.setdefault(parts[-1], parts[-2])
        self.cache: dict[tuple[int, str], list[Piece]] = {}
        self.evaluating: dict[tuple[int, str], bool] = {}
        self.out: list[tuple[int, int, object]] = []
        self.constants: list[Constant] = []
        #: (start, end, type) of a receiver -> the captured call made on it
        self.up: dict[tuple[int, int, str], tree_sitter.Node] = {}
        #: nesting calls: (start of the nested part, end, call name, prefix or None when unreadable)
        self.nesters: list[tuple[int, int, str, str | None]] = []
        self.nesting = _Nesting([])
        #: (start, end) of a route predicate -> the handler ``route(predicate, handler)`` gives it
        self.predicates: dict[tuple[int, int], str] = {}
        #: memos of :meth:`root` and :meth:`type_of`, by (start, end, type) of the node
        self.roots: dict[tuple[int, int, str], Call] = {}
        self.bases: dict[tuple[int, int, str], list[Piece] | None] = {}
        self.kinds: dict[tuple[int, int, str], str] = {}
        #: state of the rules of :mod:`._jvm_fluent` (URL helpers of the file)
        self.indirect = _jvm_fluent.Indirect()

    # -- plumbing --------------------------------------------------------------------------------

    def uses(self, *prefixes: str) -> bool:
        """Whether the file imports anything under one of ``prefixes``."""
        found = self.used.get(prefixes)
        if found is None:
            found = self.used[prefixes] = any(module.startswith(prefixes) for module in self.modules)
        return found

    def text(self, node: tree_sitter.Node | None) -> str:
        return self.s.text(node)

    def written(self, node: tree_sitter.Node | None) -> str:
        """A short expression as written without blanks ("" for a long one: a chain is no name)."""
        if node is None or node.end_byte - node.start_byte > WRITTEN_MAX:
            return ""
        return squash(self.s.text(node))

    def symbol(self, node: tree_sitter.Node) -> str:
        return self.defs.symbol(node.start_byte)

    def add(self, node: tree_sitter.Node, fact: object) -> None:
        self.out.append((node.start_byte, len(self.out), fact))

    def lookup(self, name: str, offset: int) -> tuple[int, str] | None:
        """The declaration of ``name`` seen from byte ``offset`` (innermost scope first)."""
        scope = self.defs.enclosing(offset)
        for _ in range(_ANCESTORS_MAX):
            if (scope, name) in self.declared:
                return scope, name
            for companion in self.companions.get(scope, ()):
                if (companion, name) in self.declared:
                    return companion, name
            if scope < 0:
                return None
            scope = self.defs.parents[scope]
        return None

    def member_key(self, owner: int, name: str) -> tuple[int, str] | None:
        if (owner, name) in self.declared:
            return owner, name
        for companion in self.companions.get(owner, ()):
            if (companion, name) in self.declared:
                return companion, name
        return None

    def class_of(self, offset: int) -> int:
        index = self.defs.enclosing(offset)
        while index >= 0 and self.defs.kinds[index] in ("method", "function"):
            index = self.defs.parents[index]
        return index

    def chain_down(self, call: Call) -> list[Call]:
        """``call`` and the calls it is made on, outermost first (``a.b().c()`` from ``c``: c, b)."""
        links = [call]
        node = call.receiver
        for _ in range(_CHAIN_MAX):
            inner = self.s.call(node) if node is not None and node.type in _CALL_NODES else None
            if inner is None:
                break
            links.append(inner)
            node = inner.receiver
        return links

    def root(self, call: Call) -> Call:
        """The innermost call of the chain ``call`` ends (``WebClient.builder()`` of ``WebClient.builder().build()``)."""
        path: list[tuple[int, int, str]] = []
        current = call
        found: Call | None = None
        while True:
            key = (current.node.start_byte, current.node.end_byte, current.node.type)
            if key in self.roots:
                found = self.roots[key]
                break
            path.append(key)
            node = current.receiver
            inner = self.s.call(node) if node is not None and node.type in _CALL_NODES else None
            if inner is None:
                found = current
                break
            current = inner
        for key in path:
            self.roots[key] = found
        return found

    def chain_up(self, call: Call, limit: int = _CHAIN_MAX) -> list[Call]:
        """The calls made on the result of ``call``, innermost first (``a.b().c()`` from ``b``: c)."""
        links: list[Call] = []
        node = call.node
        for _ in range(limit):
            above = self.up.get((node.start_byte, node.end_byte, node.type))
            outer = self.s.call(above) if above is not None else None
            if outer is None:
                break
            links.append(outer)
            node = outer.node
        return links

    def root_text(self, call: Call) -> str:
        """The plain name a chain starts from (``WebClient`` of ``WebClient.builder().build()``), "" if none."""
        last = self.root(call)
        if last.new:
            return last.new.rsplit(".", 1)[-1]
        if last.receiver is None:
            return ""
        tag, name, _ = self.s.shape(last.receiver)
        return name if tag == "name" else ""  # type: ignore[return-value]

    # -- declarations ------------------------------------------------------------------------------

    def declare(self, node: tree_sitter.Node) -> None:
        for decl in self.s.declarations(node):
            scope = self.defs.enclosing(decl.node.start_byte)
            key = (scope, decl.name)
            self.declared[key] = True
            if decl.type:
                self.types.setdefault(key, decl.type)
            if decl.arguments:
                self.type_arguments.setdefault(key, decl.arguments)
            if decl.value is not None:
                self.values.setdefault(key, []).append(decl.value)
            for annotation in decl.annotations:
                ann = self.s.annotation(annotation)
                if ann is not None:
                    self.config_annotation(key, ann)
            holder = self.defs.nodes[scope].type if scope >= 0 else "source_file"
            if decl.value is not None and (
                decl.constant or (decl.readonly and holder in ("object_declaration", "companion_object", "source_file"))
            ):
                self.constant(scope, decl)

    def config_annotation(self, key: tuple[int, str], ann: Ann) -> None:
        """``@Value("${x}")``, ``@ConfigProperty(name = "x")``, ``@Property(name = "x")`` on a declaration."""
        raw = None
        if ann.name == "Value":
            raw = _literal(self.value(ann.value("value"))) if ann.value("value") is not None else None
        elif ann.name in ("ConfigProperty", "Property", "ConfigValue"):
            name = ann.value("name", "value")
            key_text = _literal(self.value(name)) if name is not None else None
            if key_text:
                default = ann.value("defaultValue")
                default_text = _literal(self.value(default)) if default is not None else None
                raw = "${" + key_text + (":" + default_text if default_text is not None else "") + "}"
        elif ann.name == "Channel" and self.uses(
            "org.eclipse.microprofile.reactive.messaging", "io.smallrye.reactive.messaging"
        ):
            channel = _literal(self.value(ann.value("value"))) if ann.value("value") is not None else None
            if channel:
                self.message(
                    ann.node, MessageRole.PRODUCE, "", [(True, channel)], "channel", "smallrye-reactive-messaging"
                )
        if raw is not None:
            self.placeholders.setdefault(key, raw)

    def constant(self, scope: int, decl: Decl) -> None:
        if decl.value is None or self.s.shape(decl.value)[0] != "str":
            return
        pieces = self.string(decl.value, _DEPTH_MAX)
        value = _literal(pieces)
        if value is None or not value or len(value) > 200 or any(char.isspace() for char in value):
            return
        owner = ""
        if scope >= 0:
            holder = scope
            if self.defs.nodes[holder].type == "companion_object" and self.defs.parents[holder] >= 0:
                holder = self.defs.parents[holder]
            if self.defs.kinds[holder] in ("method", "function"):
                return
            owner = self.defs.facts[holder].name
        owner_words = _words(owner)
        holder_says = bool(owner_words) and _stem(owner_words[-1]) in _LINK_WORDS
        if not (_names_link(decl.name) or holder_says) or _looks_secret(decl.name, value):
            return
        self.constants.append(
            Constant(f"{owner}.{decl.name}" if owner else decl.name, value, decl.node.start_point[0] + 1)
        )

    def assign(self, node: tree_sitter.Node) -> None:
        pair = self.s.assignment(node)
        if pair is None:
            return
        left, right = pair
        tag, name, _ = self.s.shape(left)
        if tag == "name":
            key = self.lookup(name, left.start_byte)  # type: ignore[arg-type]
            if key is None:
                key = (self.class_of(left.start_byte), name)  # type: ignore[assignment]
        elif tag == "this":
            key = (self.class_of(left.start_byte), name)  # type: ignore[assignment]
        else:
            return
        self.declared[key] = True  # type: ignore[index]
        self.values.setdefault(key, []).append(right)  # type: ignore[arg-type]

    # -- values --------------------------------------------------------------------------------------

    def value(self, node: tree_sitter.Node | None, depth: int = 0) -> list[Piece]:
        """What ``node`` evaluates to, as pieces (see :data:`Piece`)."""
        if node is None or depth > _DEPTH_MAX:
            return [(False, "?")]
        tag, a, b = self.s.shape(node)
        if tag == "str":
            return self.string(a, depth)  # type: ignore[arg-type]
        if tag == "plus":
            operands: list[tree_sitter.Node] = []
            stack = [node]
            while stack and len(operands) < _PIECES_MAX:
                current = stack.pop()
                kind, left, right = self.s.shape(current)
                if kind == "plus" and left is not None and right is not None:
                    stack.append(right)  # type: ignore[arg-type]
                    stack.append(left)  # type: ignore[arg-type]
                else:
                    operands.append(current)
            pieces: list[Piece] = []
            for operand in operands:
                pieces.extend(self.value(operand, depth + 1))
            if stack:
                pieces.append((False, "?"))
            return _merge(pieces)
        if tag == "elvis":
            left_pieces = self.value(a, depth + 1)  # type: ignore[arg-type]
            return left_pieces if _informative(left_pieces) else self.value(b, depth + 1)  # type: ignore[arg-type]
        if tag == "name":
            return self.name_value(a, node.start_byte, depth)  # type: ignore[arg-type]
        if tag == "this":
            klass = self.class_of(node.start_byte)
            key = self.member_key(klass, a) if klass >= 0 else None  # type: ignore[arg-type]
            return self.key_value(key, a, depth) if key is not None else [(False, a)]  # type: ignore[list-item]
        if tag == "member":
            return self.member_value(a, b, depth)  # type: ignore[arg-type]
        if tag == "call":
            call = self.s.call(a)  # type: ignore[arg-type]
            return self.call_value(call, depth) if call is not None else [(False, "?")]
        return [(False, "?")]

    def string(self, node: tree_sitter.Node, depth: int) -> list[Piece]:
        pieces: list[Piece] = []
        for part in self.s.string(node):
            if isinstance(part, str):
                pieces.append((True, part))
            elif isinstance(part, tuple):
                pieces.extend(self.name_value(part[0], part[1], depth + 1))
            else:
                pieces.extend(self.value(part, depth + 1))
        return _merge(pieces) or [(True, "")]

    def name_value(self, name: str, offset: int, depth: int) -> list[Piece]:
        key = self.lookup(name, offset)
        if key is None:
            owner = self.static_owner.get(name)
            return [(False, f"const:{owner}.{name}")] if owner else [(False, name)]
        return self.key_value(key, name, depth)

    def key_value(self, key: tuple[int, str], label: str, depth: int) -> list[Piece]:
        if key in self.cache:
            return self.cache[key]
        if key in self.placeholders:
            pieces = self.expand(self.placeholders[key])
            self.cache[key] = pieces
            return pieces
        if key in self.evaluating or depth > _DEPTH_MAX:
            return [(False, label)]
        self.evaluating[key] = True
        result: list[Piece] = [(False, label)]
        for node in self.values.get(key, ())[:4]:
            pieces = self.value(node, depth + 1)
            if _informative(pieces):
                result = pieces
                break
        del self.evaluating[key]
        self.cache[key] = result
        return result

    def member_value(self, owner: tree_sitter.Node, member: str, depth: int) -> list[Piece]:
        written = self.written(owner)
        last = written.rsplit(".", 1)[-1]
        if last in self.type_index:
            key = self.member_key(self.type_index[last], member)
            if key is not None:
                return self.key_value(key, member, depth)
        if last[:1].isupper() and re.fullmatch(r"[\w.]+", written):
            return [(False, f"const:{last}.{member}")]
        return _jvm_fluent.bean_member(self, owner, member) or [(False, member)]

    def expand(self, raw: str) -> list[Piece]:
        """A string with ``${key:default}`` placeholders as pieces (``#{...}`` is computed)."""
        pieces: list[Piece] = []
        position = 0
        for match in _PLACEHOLDER.finditer(raw):
            if match.start() > position:
                pieces.append((True, raw[position : match.start()]))
            if match.group(1) is None:
                pieces.append((False, "?"))
            else:
                key = match.group(1).strip()
                address = ("env:" if _ENV_NAME.match(key) else "config:") + key
                pieces.append((False, _address(address, match.group(2))))
            position = match.end()
        if position < len(raw):
            pieces.append((True, raw[position:]))
        return _merge(pieces)

    def expanded(self, node: tree_sitter.Node | None) -> list[Piece]:
        """The value of an annotation argument, its placeholders resolved as Spring does."""
        pieces: list[Piece] = []
        for literal, text in self.value(node):
            pieces.extend(self.expand(text) if literal else [(False, text)])
        return _merge(pieces)

    def call_value(self, call: Call, depth: int) -> list[Piece]:
        name = call.name
        receiver = self.written(call.receiver) if call.receiver is not None else ""
        first = call.arg(0)
        key_text = _literal(self.value(first, depth + 1)) if first is not None and name in (
            "getenv", "getOrDefault", "get", "getProperty", "getRequiredProperty", "property", "propertyOrNull",
            "getValue", "getOptionalValue", "getConfigValue",
        ) else None  # fmt: skip
        if name == "getenv" and key_text and receiver in ("System", "java.lang.System", ""):
            return [(False, f"env:{key_text}")]
        if (
            name in ("getOrDefault", "get")
            and key_text
            and receiver.replace(" ", "") in ("System.getenv()", "getenv()")
        ):
            default = _literal(self.value(call.arg(1), depth + 1)) if call.arg(1) is not None else None
            return [(False, _address(f"env:{key_text}", default))]
        if (
            name in ("getProperty", "getRequiredProperty", "getValue", "getOptionalValue", "getConfigValue")
            and key_text
        ):
            default = (
                _literal(self.value(call.arg(1), depth + 1))
                if call.arg(1) is not None and name == "getProperty"
                else None
            )
            return [(False, _address(f"config:{key_text}", default))]
        if name in ("getString", "getStringOrNull") and call.receiver is not None:
            tag, target, _ = self.s.shape(call.receiver)
            inner = self.s.call(target) if tag == "call" else None  # type: ignore[arg-type]
            if inner is not None and inner.name in ("property", "propertyOrNull"):
                return self.call_value(inner, depth + 1)
        if name in ("property", "propertyOrNull") and key_text:
            return [(False, f"config:{key_text}")]
        if name in ("format", "formatted"):
            return self.format_value(call, depth)
        if name in _URI_BUILDER_ROOTS and first is not None:
            return self.value(first, depth + 1)
        if (
            name in ("path", "pathSegment")
            and call.receiver is not None
            and self.s.shape(call.receiver)[0] == "call"
            and not any(link.name in _RESPONSE_READERS for link in self.chain_down(call)[1:])
        ):
            base = self.value(call.receiver, depth + 1)
            if name == "path" and first is not None:
                return _merge([*base, *self.value(first, depth + 1)])
            parts = list(base)
            for arg in call.args:
                parts.append((True, "/"))
                parts.extend(self.value(arg, depth + 1))
            return _merge(parts)
        if name in _URI_BUILDER_PASS and call.receiver is not None and self.s.shape(call.receiver)[0] == "call":
            return self.value(call.receiver, depth + 1)
        if name == "resolve" and call.receiver is not None and first is not None:
            return _merge([*self.value(call.receiver, depth + 1), *self.value(first, depth + 1)])
        if name in ("URI", "URL") and call.new and first is not None:
            return self.value(first, depth + 1)
        if name in ("create", "valueOf", "requireNonNull", "parse", "get") and first is not None and receiver in (
            "URI", "java.net.URI", "String", "Objects", "HttpUrl", "Paths", "URL", "Url",
        ):  # fmt: skip
            return self.value(first, depth + 1)
        if name == "toString" and not call.args:
            built = _jvm_fluent.builder_value(self, call, depth)  # a StringBuilder's appends
            if built is not None:
                return built
        if name in _PASS_THROUGH and not call.args and call.receiver is not None:
            return self.value(call.receiver, depth + 1)
        found = _jvm_fluent.call_value(self, call, depth)  # a URL helper of the file, a bean's getter
        return found if found is not None else [(False, "?")]

    def format_value(self, call: Call, depth: int) -> list[Piece]:
        """``String.format(fmt, a, b)``, ``fmt.formatted(a, b)``, Kotlin ``fmt.format(a, b)``."""
        receiver = self.written(call.receiver) if call.receiver is not None else ""
        if call.name == "format" and receiver in ("String", "java.lang.String"):
            template, args = call.arg(0), call.args[1:]
        elif call.receiver is not None:
            template, args = call.receiver, call.args
        else:
            return [(False, "?")]
        raw = _literal(self.value(template, depth + 1))
        if raw is None:
            return [(False, "?")]
        pieces: list[Piece] = []
        position = 0
        for index, match in enumerate(_FORMAT_SPEC.finditer(raw)):
            pieces.append((True, raw[position : match.start()]))
            pieces.extend(self.value(args[index], depth + 1) if index < len(args) else [(False, "?")])
            position = match.end()
        pieces.append((True, raw[position:]))
        return _merge(pieces)

    def items(self, node: tree_sitter.Node | None, depth: int = 0) -> list[tree_sitter.Node]:
        """The elements of an array or list expression (``{"a", "b"}``, ``List.of(...)``, ``["a"]``),
        else the node itself."""
        if node is None:
            return []
        tag, a, _ = self.s.shape(node)
        if tag == "array":
            return list(a)  # type: ignore[call-overload]
        if tag == "call":
            call = self.s.call(a)  # type: ignore[arg-type]
            if call is not None and call.name in _LIST_FACTORIES and not call.new and call.args:
                return list(call.args)
        if tag == "name" and depth < 2:
            key = self.lookup(a, node.start_byte)  # type: ignore[arg-type]
            if key is not None and key not in self.placeholders and self.values.get(key):
                inner = self.values[key][0]
                if self.s.shape(inner)[0] in ("array", "call"):
                    found = self.items(inner, depth + 1)
                    if not (len(found) == 1 and same(found[0], inner)):
                        return found
        return [node]

    def type_of(self, node: tree_sitter.Node | None, depth: int = 0) -> str:
        """The simple type name of an expression when the file shows it ("" when unknown)."""
        if node is None or depth > 4:
            return ""
        key = (node.start_byte, node.end_byte, node.type)
        if key not in self.kinds:
            self.kinds[key] = self._type_of(node, depth)
        return self.kinds[key]

    def _type_of(self, node: tree_sitter.Node, depth: int) -> str:
        tag, a, _ = self.s.shape(node)
        key = None
        if tag == "name":
            key = self.lookup(a, node.start_byte)  # type: ignore[arg-type]
            if key is None:
                return ""
        elif tag == "this":
            klass = self.class_of(node.start_byte)
            key = self.member_key(klass, a) if klass >= 0 else None  # type: ignore[arg-type]
        elif tag == "call":
            call = self.s.call(a)  # type: ignore[arg-type]
            if call is None:
                return ""
            if call.new:
                return call.new.rsplit(".", 1)[-1]
            root = self.root(call)
            if root.new:
                return root.new.rsplit(".", 1)[-1]
            if root.receiver is not None:
                kind, name, _ = self.s.shape(root.receiver)
                if kind == "name" and name[:1].isupper() and self.lookup(name, root.receiver.start_byte) is None:  # type: ignore[index,arg-type]
                    return name  # type: ignore[return-value]
                return self.type_of(root.receiver, depth + 1)
            return ""
        if key is None:
            return ""
        declared = self.types.get(key, "")
        if declared:
            return (
                declared.rsplit(".", 1)[-1]
                if not declared.endswith(".Builder")
                else declared.rsplit(".", 2)[-2] + ".Builder"
            )
        for value in self.values.get(key, ())[:2]:
            found = self.type_of(value, depth + 1)
            if found:
                return found
        return ""

    def receiver_name(self, node: tree_sitter.Node | None) -> str:
        """The name a receiver is written with (``kafkaTemplate`` of ``this.kafkaTemplate``), lower-case."""
        if node is None:
            return ""
        tag, a, b = self.s.shape(node)
        if tag in ("name", "this"):
            return str(a).lower()
        if tag == "member":
            return str(b).lower()
        return ""

    def qualified(self, written: str) -> str:
        """The qualified name of a type written in this file (through its imports and package)."""
        written = written.strip()
        if "." in written and written[:1].islower():
            return written
        head = written.split(".", 1)[0]
        for module in self.modules:
            if module.rsplit(".", 1)[-1] == head:
                return module + written[len(head) :]
        return f"{self.package}.{written}" if self.package else written

    # -- emitting --------------------------------------------------------------------------------------

    def http_call(
        self,
        anchor: tree_sitter.Node,
        verb: str,
        pieces: Sequence[Piece],
        client: str,
        base: Sequence[Piece] | None = None,
    ) -> None:
        pieces = list(pieces)
        if base and pieces and pieces[0][0] and not _absolute(pieces):
            pieces = [*base, *pieces]
        parts = url_parts(_strip_port(pieces))
        if _ADDRESS.match(parts.base):
            address = _split(parts.base)[0]
        else:  # a bean's property (``destinations.getOrdersUrl()``) is the base of a URL read past it
            address = "" if parts.computed else _jvm_fluent.bean_address(parts.base)
        self.add(
            anchor,
            HttpCall(
                verb or "*",
                "" if parts.computed else parts.path,
                anchor.start_point[0] + 1,
                self.symbol(anchor),
                parts.host,
                address,
                client,
                parts.computed,
            ),
        )

    def route(
        self,
        anchor: tree_sitter.Node,
        verb: str,
        path: str,
        handler: str,
        framework: str,
        symbol: str | None = None,
        mount: str = "",
    ) -> None:
        self.add(
            anchor,
            HttpRoute(
                verb or "*",
                route_template(_spring_pattern(path) if framework.startswith("spring") else path),
                anchor.start_point[0] + 1,
                handler,
                self.symbol(anchor) if symbol is None else symbol,
                framework,
                mount,
            ),
        )

    def name_of(self, pieces: Sequence[Piece]) -> tuple[str, str, bool]:
        """(name, address, computed) of a topic/queue/channel value."""
        merged = _merge(pieces)
        literal = _literal(merged)
        if literal is not None:
            return (literal, "", False) if literal else ("", "", True)
        if len(merged) == 1 and _ADDRESS.match(merged[0][1]):
            address, default = _split(merged[0][1])
            return default or "", address, False
        return "", "", True

    def message(
        self,
        anchor: tree_sitter.Node,
        role: str,
        broker: str,
        pieces: Sequence[Piece],
        kind: str,
        client: str,
        last_segment: str = "",
    ) -> None:
        name, address, computed = self.name_of(pieces)
        if last_segment and name:
            name = name.rstrip(last_segment).rsplit(last_segment, 1)[-1]
        self.add(
            anchor,
            MessageFact(
                role, broker, name, anchor.start_point[0] + 1, kind, self.symbol(anchor), address, client, computed
            ),
        )

    def setting(self, anchor: tree_sitter.Node, key: str, pieces: Sequence[Piece]) -> None:
        parts = url_parts(_strip_port(list(pieces)))
        env = _split(parts.base)[0][4:] if parts.base.startswith("env:") else ""
        if not parts.host and not env:
            return
        path = "" if parts.computed or parts.path == "/" else parts.path.rstrip("/")
        self.add(anchor, Setting(key, anchor.start_point[0] + 1, parts.host, env, path))

    # -- the pass --------------------------------------------------------------------------------------

    def run(self, found: Iterable[tuple[int, dict[str, list[tree_sitter.Node]]]]) -> Links:
        calls: list[tree_sitter.Node] = []
        assigns: list[tree_sitter.Node] = []
        for _, captured in found:
            if "call" in captured:
                calls.append(captured["call"][0])
            elif "declaration" in captured or "param" in captured or "property" in captured:
                self.declare((captured.get("declaration") or captured.get("param") or captured["property"])[0])
            elif "assign" in captured:
                assigns.append(captured["assign"][0])
            elif "package" in captured:
                self.package = self.s.package(captured["package"][0])
        heads = {}
        for node in calls:
            inner = self.s.head(node)
            if inner is not None:
                heads[(inner.start_byte, inner.end_byte)] = True
        calls = [
            node for node in calls if (node.start_byte, node.end_byte) not in heads or node.type != "call_expression"
        ]
        for node in calls:
            receiver = self.s.receiver_of(node)
            if receiver is not None:
                self.up.setdefault((receiver.start_byte, receiver.end_byte, receiver.type), node)
        for node in assigns:
            self.assign(node)
        for index, node in enumerate(self.defs.nodes):
            for annotation in self.s.annotations(node):
                ann = self.s.annotation(annotation)
                if ann is not None:
                    self.anns.setdefault(index, []).append(ann)
        if self.s.language == "kotlin":
            self.unglued()
        self.declarations()
        _jvm_fluent.configuration_properties(self)
        rules = _CALL_RULES
        normalized: list[tuple[Call, tuple]] = []
        imported = {module.rsplit(".", 1)[-1]: True for module in self.modules} if self.s.language == "kotlin" else {}
        for node in calls:
            name = self.call_name(node)
            handlers = rules.get(name)
            if handlers is None and name in imported and name[:1].islower():
                handlers = (_Engine.ktor_mount,)
            call = self.s.call(node) if handlers is not None or name in _NESTERS else None
            if call is not None:
                if handlers is not None:
                    normalized.append((call, handlers))
                if name in _NESTERS:
                    self.nester(call)
        self.nesting = _Nesting(self.nesters)
        for call, handlers in normalized:
            for handler in handlers:
                handler(self, call)
        _openapi_clients.jvm_calls(self, calls)  # operations of generated OpenAPI clients: any method name
        self.out.sort(key=lambda item: (item[0], item[1]))
        facts = [fact for _, _, fact in self.out]
        return Links(
            http_routes=tuple(fact for fact in facts if isinstance(fact, HttpRoute)),
            http_calls=tuple(fact for fact in facts if isinstance(fact, HttpCall)),
            messages=tuple(fact for fact in facts if isinstance(fact, MessageFact)),
            settings=tuple(fact for fact in facts if isinstance(fact, Setting)),
            constants=tuple(self.constants),
        )

    def unglued(self) -> None:
        """The annotations :func:`unglue_annotations` turned into statements before a top-level declaration."""
        source = self.s.source
        for index, node in enumerate(self.defs.nodes):
            if self.defs.parents[index] >= 0 or node.type not in (
                "class_declaration",
                "object_declaration",
                "function_declaration",
            ):
                continue
            found: list[Ann] = []
            sibling = node.prev_named_sibling
            for _ in range(_ANCESTORS_MAX):
                if sibling is None or sibling.start_byte == 0 or source[sibling.start_byte - 1] != 0x40:
                    break
                if sibling.type == "call_expression":
                    ann = self.s.annotation(sibling)
                else:
                    ann = Ann(sibling, self.text(sibling).rsplit(".", 1)[-1].strip(), [], {})
                if ann is not None:
                    found.append(ann)
                sibling = sibling.prev_named_sibling
            if found:
                found.reverse()
                self.anns[index] = [*found, *self.anns.get(index, [])]

    def call_name(self, node: tree_sitter.Node) -> str:
        """The method (or created type's) name of a captured call node, cheaply; "" to skip it."""
        if node.type == "method_invocation":
            return self.text(node.child_by_field_name("name"))
        if node.type == "object_creation_expression":
            kind = node.child_by_field_name("type")
            if kind is not None and kind.type == "generic_type" and kind.named_child_count:
                kind = kind.named_children[0]
            return self.text(kind).rsplit(".", 1)[-1].strip()
        if node.type == "binary_expression":
            call = self.s.call(node)
            return call.name if call is not None else ""
        head = node.named_children[0] if node.named_child_count else None
        if head is not None and head.type == "call_expression" and node.named_child_count == 2:
            head = head.named_children[0] if head.named_child_count else None
        if head is None:
            return ""
        if head.type == "identifier":
            return self.text(head)
        if head.type == "navigation_expression" and head.named_child_count == 2:
            return self.text(head.named_children[1])
        return ""

    # -- HTTP clients ----------------------------------------------------------------------------------

    def rest_template(self, call: Call) -> None:
        if call.receiver is None or not call.args:
            return
        kind = self.type_of(call.receiver)
        if kind in _TEST_CLIENTS or kind in _FLUENT_CLIENTS:
            return
        verb = _REST_TEMPLATE_VERBS[call.name]
        if call.name in ("exchange", "execute"):
            method = call.arg(1)
            verb = (
                _verb_word(self.written(method))
                if method is not None and self.s.shape(method)[0] in ("member", "name")
                else ""
            )
            if len(call.args) == 1 and call.name == "exchange" and kind in _REST_TEMPLATES | {""}:
                self.request_entity(call)
                return
            if not verb and kind not in _REST_TEMPLATES:
                return
        elif kind not in _REST_TEMPLATES and (kind or call.name in ("put", "delete")):
            return
        self.http_call(call.anchor, verb, self.value(call.args[0]), "RestTemplate", self.base_of(call.receiver))

    def request_entity(self, call: Call) -> None:
        """``exchange(RequestEntity.get(url)...build(), ...)`` (the entity written there or in a local)."""
        node = call.args[0]
        tag, name, _ = self.s.shape(node)
        if tag == "name":
            key = self.lookup(name, node.start_byte)  # type: ignore[arg-type]
            values = self.values.get(key, []) if key is not None else []
            if not values:
                return
            node = values[0]
            tag, name, _ = self.s.shape(node)
        if tag != "call":
            return
        inner = self.s.call(name)  # type: ignore[arg-type]
        if inner is None:
            return
        root = self.chain_down(inner)[-1]
        if root.receiver is None or self.written(root.receiver) != "RequestEntity":
            return
        if root.name == "method" and len(root.args) >= 2:
            verb, url = _verb_word(self.written(root.args[0])), root.args[1]
        elif root.name.upper() in HTTP_METHODS and root.args:
            verb, url = root.name.upper(), root.args[0]
        else:
            return
        self.http_call(call.anchor, verb, self.value(url), "RestTemplate", self.base_of(call.receiver))

    def base_of(self, node: tree_sitter.Node | None, depth: int = 0) -> list[Piece] | None:
        """The base URL a client was built with in this file (``baseUrl(x)``, ``WebClient.create(x)``,
        ``rootUri(x)``), following names to their values; None when the file does not show one."""
        if node is None or depth > 4:
            return None
        tag, a, _ = self.s.shape(node)
        if tag in ("name", "this"):
            if tag == "name":
                key = self.lookup(a, node.start_byte)  # type: ignore[arg-type]
            else:
                klass = self.class_of(node.start_byte)
                key = self.member_key(klass, a) if klass >= 0 else None  # type: ignore[arg-type]
            for value in self.values.get(key, [])[:4] if key is not None else []:
                found = self.base_of(value, depth + 1)
                if found is not None:
                    return found
            return None
        if tag != "call":
            return None
        current = self.s.call(a)  # type: ignore[arg-type]
        path: list[tuple[int, int, str]] = []
        result: list[Piece] | None = None
        while current is not None:
            key = (current.node.start_byte, current.node.end_byte, current.node.type)
            if key in self.bases:
                result = self.bases[key]
                break
            path.append(key)
            result = self.base_here(current, depth)
            if result is not None:
                break
            node = current.receiver
            current = self.s.call(node) if node is not None and node.type in _CALL_NODES else None
        for key in path:
            self.bases[key] = result
        return result

    def base_here(self, link: Call, depth: int) -> list[Piece] | None:
        """The base URL one link of a builder chain gives (or one of its arguments was built with)."""
        if link.name in ("baseUrl", "rootUri", "baseUri") and link.args:
            return self.value(link.args[0])
        if link.name == "create" and len(link.args) == 1 and self.written(link.receiver) in ("WebClient", "RestClient"):
            return self.value(link.args[0])
        if link.name == "target" and len(link.args) >= 2:
            return self.value(link.args[1])
        for arg in link.args[:3]:
            if self.s.shape(arg)[0] in ("name", "this", "call"):
                found = self.base_of(arg, depth + 1)
                if found is not None:
                    return found
        return None

    def fluent(self, call: Call) -> None:
        """Spring's ``WebClient`` and ``RestClient``: ``client.get().uri("/x/{id}", id).retrieve()``,
        ``client.method(HttpMethod.POST)...``, or no ``uri`` at all when the client's base URL is the target;
        the test clients of the same shape (``WebTestClient``, ``MockMvcTester``, ``RestTestClient``)."""
        if call.receiver is None or call.lam is not None:
            return
        if call.name == "method":
            verb = _verb_word(self.written(call.args[0])) if len(call.args) == 1 else ""
        else:
            verb = "" if call.args else _VERB_WORDS.get(call.name, "")
        if not verb:
            return
        kind = self.type_of(call.receiver)
        name = self.receiver_name(call.receiver)
        tester = kind in _TEST_CLIENTS and kind != "MockMvc"
        if (
            not tester
            and kind not in _FLUENT_CLIENTS
            and (kind or "test" in name or "client" not in name or not self.uses("org.springframework.web"))
        ):
            return
        uri = None
        sent = False
        for link in self.chain_up(call, 8):
            if link.name == "uri" and (link.args or link.lam is not None):
                uri = link
                break
            if link.name in (
                "retrieve",
                "exchange",
                "exchangeToMono",
                "exchangeToFlux",
                "toEntity",
                "toBodilessEntity",
            ):
                sent = True
                break
        base = self.base_of(call.receiver)
        client = kind if tester or kind == "RestClient" else "WebClient"
        if uri is not None:
            first = uri.args[0] if uri.args else uri.lam
            pieces = self.builder_path(first) if self.s.shape(first)[0] == "lambda" else self.value(first)  # type: ignore[arg-type]
            self.http_call(uri.anchor, verb, pieces, client, base)
        elif sent:
            self.http_call(call.anchor, verb, base or [(False, "?")], client)

    def builder_path(self, lam: tree_sitter.Node) -> list[Piece]:
        """The path a ``uriBuilder -> uriBuilder.path("/x")...build()`` lambda gives."""
        for statement in self.s.lambda_statements(lam)[-1:]:
            tag, target, _ = self.s.shape(statement)
            if tag == "call":
                call = self.s.call(target)  # type: ignore[arg-type]
                if call is not None:
                    pieces: list[Piece] = []
                    for link in reversed(self.chain_down(call)):
                        if link.name == "path" and link.args:
                            pieces.extend(self.value(link.args[0]))
                        elif link.name == "pathSegment":
                            for arg in link.args:
                                pieces.append((True, "/"))
                                pieces.extend(self.value(arg))
                    if pieces:
                        return _merge(pieces)
        return [(False, "?")]

    def proxy_exchange(self, call: Call) -> None:
        """Spring Cloud Gateway's ``ProxyExchange``: ``proxy.uri(url).get()``, ``.forward()``."""
        if len(call.args) != 1 or call.receiver is None or self.type_of(call.receiver) != "ProxyExchange":
            return
        verb = ""
        for link in self.chain_up(call, 8):
            if link.name in _VERB_WORDS:
                verb = _VERB_WORDS[link.name]
                break
            if link.name == "forward":
                verb = "*"
                break
        if verb:
            self.http_call(call.anchor, verb, self.value(call.args[0]), "spring-cloud-gateway")

    def okhttp(self, call: Call) -> None:
        """``Request.Builder().url(u).post(body).build()`` of OkHttp."""
        if len(call.args) != 1:
            return
        links = self.chain_down(call)
        root = links[-1]
        if not (root.new.endswith("Request.Builder") or (root.new == "Builder" and self.uses("okhttp3"))):
            return
        verb = "GET"
        for link in [*links[1:], *self.chain_up(call)]:
            if link.name in ("get", "post", "put", "delete", "patch", "head"):
                verb = link.name.upper()
            elif link.name == "method" and link.args:
                verb = _verb_word(_literal(self.value(link.args[0])) or "") or "*"
        self.http_call(call.anchor, verb, self.value(call.args[0]), "okhttp")

    def java_http(self, call: Call) -> None:
        """``HttpRequest.newBuilder(uri)...`` / ``.uri(uri)`` of ``java.net.http``."""
        if call.receiver is None or self.written(call.receiver) not in ("HttpRequest", "java.net.http.HttpRequest"):
            return
        url = call.arg(0)
        anchor = call.anchor
        verb = "GET"
        for link in self.chain_up(call):
            if link.name == "uri" and link.args:
                url, anchor = link.args[0], link.anchor
            elif link.name in ("GET", "POST", "PUT", "DELETE", "HEAD"):
                verb = link.name
            elif link.name == "method" and link.args:
                verb = _verb_word(_literal(self.value(link.args[0])) or "") or "*"
        if url is None:
            return
        self.http_call(anchor, verb, self.value(url), "java.net.http")

    def apache(self, call: Call) -> None:
        """``new HttpGet(url)`` of Apache HttpClient."""
        if call.new and len(call.args) == 1 and (self.uses("org.apache.http", "org.apache.hc") or "." not in call.new):
            self.http_call(call.anchor, _APACHE_REQUESTS[call.name], self.value(call.args[0]), "apache-httpclient")

    def ktor_client(self, call: Call) -> None:
        """``client.get("url")``, ``client.request(url) { method = HttpMethod.Post }`` of the Ktor client."""
        if self.s.language != "kotlin" or call.receiver is None:
            return
        kind = self.type_of(call.receiver)
        if kind != "HttpClient" and not (
            not kind and self.uses("io.ktor.client") and "client" in self.receiver_name(call.receiver)
        ):
            return
        verb = _VERB_WORDS.get(call.name, "*")
        url = call.arg(0, "urlString") or call.arg(0, "url")
        statements = self.s.lambda_statements(call.lam)
        for statement in statements:
            pair = self.s.assignment(statement) if statement.type == "assignment" else None
            if pair is not None and self.text(pair[0]).strip() == "method":
                verb = _verb_word(self.text(pair[1])) or verb
            tag, target, _ = self.s.shape(statement)
            inner = self.s.call(target) if tag == "call" else None  # type: ignore[arg-type]
            if url is None and inner is not None and inner.name == "url" and inner.args:
                url = inner.args[0]
        if url is None:
            return
        self.http_call(call.anchor, verb, self.value(url), "ktor-client")

    def vertx_client(self, call: Call) -> None:
        """Vert.x ``WebClient``: ``client.get(port, host, path)``, ``client.getAbs(url)``."""
        if call.receiver is None or not self.uses("io.vertx"):
            return
        kind = self.type_of(call.receiver)
        if kind not in ("WebClient", "HttpClient", "WebClientSession"):
            return
        if call.name.endswith("Abs"):
            verb = _VERB_WORDS.get(call.name[:-3], "*")
            if call.args:
                self.http_call(call.anchor, verb, self.value(call.args[0]), "vertx")
            return
        args = list(call.args)
        if call.name == "request" and args:
            verb = _verb_word(self.written(args[0])) or "*"
            args = args[1:]
        else:
            verb = _VERB_WORDS.get(call.name, "")
        if not verb or not args or len(args) > 3:
            return
        pieces = self.value(args[-1])
        if len(args) >= 2:
            host = _literal(self.value(args[-2]))
            if host:
                pieces = [(True, f"http://{host}"), *pieces]
        self.http_call(call.anchor, verb, pieces, "vertx")

    def dapr_invoke(self, call: Call) -> None:
        """``daprClient.invokeMethod(appId, method, data, HttpExtension.POST)``: an HTTP call to ``appId``."""
        if call.receiver is None or len(call.args) < 2 or not self.dapr(call.receiver):
            return
        app = _literal(self.value(call.args[0]))
        verb = "*"
        for arg in call.args[2:]:
            text = self.written(arg)
            if text.startswith("HttpExtension."):
                verb = _verb_word(text) or "*"
        path = self.value(call.args[1])
        pieces = [(True, f"http://{app}/" if app else "/"), *path] if app else [(False, "?"), (True, "/"), *path]
        self.http_call(call.anchor, verb, pieces, "dapr")

    def jaxrs_client(self, call: Call) -> None:
        """The JAX-RS client API: ``client.target(url).path("x").request().post(entity)``."""
        if len(call.args) != 1 or call.receiver is None or not self.uses("javax.ws.rs.client", "jakarta.ws.rs.client"):
            return
        kind = self.type_of(call.receiver)
        if kind and kind not in ("Client", "ClientBuilder", "JerseyClient", "ResteasyClient"):
            return
        pieces = list(self.value(call.args[0]))
        verb = ""
        for link in self.chain_up(call, 12):
            if link.name == "path" and link.args:
                pieces = _merge([*pieces, (True, "/"), *self.value(link.args[0])])
            elif link.name in ("get", "post", "put", "delete", "head", "options") and link.receiver is not None:
                verb = link.name.upper()
                break
            elif link.name == "method" and link.args:
                verb = _verb_word(_literal(self.value(link.args[0])) or "") or "*"
                break
        if verb:
            self.http_call(
                call.anchor,
                verb,
                [(literal, re.sub(r"(?<!:)/{2,}", "/", text) if literal else text) for literal, text in pieces],
                "jax-rs-client",
            )

    def dapr(self, receiver: tree_sitter.Node) -> bool:
        kind = self.type_of(receiver)
        return kind in ("DaprClient", "DaprPreviewClient") or (
            not kind and self.uses(*_DAPR) and "dapr" in self.receiver_name(receiver)
        )

    # -- routes registered by calls ----------------------------------------------------------------------

    def path_literal(self, node: tree_sitter.Node | None) -> str | None:
        """The literal path an argument holds (None when it is not one)."""
        if node is None:
            return None
        return _literal(self.value(node))

    def handler(self, node: tree_sitter.Node | None) -> str:
        """A handler as written (a reference or a name); "" for a lambda or anything else."""
        if node is None:
            return ""
        tag, a, _ = self.s.shape(node)
        if tag == "ref":
            return str(a).removeprefix("this.")
        if tag == "name":
            return str(a)
        if tag == "member":
            return self.written(node)
        return ""

    def nester(self, call: Call) -> None:
        """Note a call that may nest routes (its later arguments or trailing lambda), and the
        handler a ``route(predicate, handler)`` gives its predicate."""
        later = [*call.args[1:], *([call.lam] if call.lam is not None else [])]
        if later:
            self.nesters.append((later[0].start_byte, call.node.end_byte, call.name, self.nest_path(call)))
        if call.name in ("route", "andRoute") and len(call.args) >= 2:
            tag, target, _ = self.s.shape(call.args[0])
            inner = self.s.call(target) if tag == "call" else None  # type: ignore[arg-type]
            if inner is not None:
                links = self.chain_down(inner)
                predicate = links[-1] if all(link.name in ("and", "or", "negate") for link in links[:-1]) else None
                if predicate is not None:
                    self.predicates[(predicate.node.start_byte, predicate.node.end_byte)] = self.handler(call.args[1])

    def prefixes(self, node: tree_sitter.Node, kinds: frozenset[str]) -> list[str] | None:
        """The path prefixes the calls around ``node`` give it, outermost first (None: one is unreadable).

        ``kinds`` names the nesting calls: ``nest``/``path``/``route`` with the path first and the
        nested routes in a later argument or a trailing lambda, or Kotlin's ``"/api".nest { }``.
        """
        found: list[str] = []
        around = self.nesting.around(node.start_byte)
        if around is None:
            return None
        for _, _, name, prefix in around:
            if name not in kinds:
                continue
            if prefix is None:
                return None
            if prefix:
                found.append(prefix)
        found.reverse()
        return found

    def nest_path(self, call: Call) -> str | None:
        """The path of a nesting call: ``path("/api")`` as its first argument, a string first argument,
        or Kotlin's ``"/api".nest``; "" for a nesting that adds none (``accept(JSON).nest``)."""
        first = call.arg(0)
        if call.receiver is not None and call.name == "nest" and first is None:
            first = call.receiver
        if first is None:
            return ""
        tag, target, _ = self.s.shape(first)
        if tag == "str":
            return self.path_literal(first)
        if tag == "call":
            inner = self.s.call(target)  # type: ignore[arg-type]
            for link in self.chain_down(inner) if inner is not None else []:
                if link.name == "path" and link.args:
                    return self.path_literal(link.args[0])
            return ""
        return self.path_literal(first) if tag in ("name", "member") else ""

    def functional(self, call: Call) -> None:
        """Spring's functional routes: ``route(GET("/x"), h)``, ``route().GET("/x", h)``, the Kotlin
        ``router { GET("/x", h) }`` DSL, with ``nest(path(...))`` / ``.path(...)`` prefixes."""
        if not call.args:
            return
        if not self.uses(
            "org.springframework.web.reactive.function",
            "org.springframework.web.servlet.function",
            "org.springframework.web.router",
        ):
            return
        path = self.path_literal(call.args[0])
        if path is None:
            return
        handler = self.handler(call.arg(1)) if len(call.args) >= 2 else ""
        if len(call.args) < 2 and call.lam is None:
            handler = self.predicate_handler(call)
        prefixes = self.prefixes(call.node, frozenset({"nest", "andNest", "path"}))
        if prefixes is None:
            return
        full = ""
        for prefix in [*prefixes, path]:
            full = join_paths(full, prefix)
        self.route(call.anchor, call.name, full, handler, "spring")

    def predicate_handler(self, call: Call) -> str:
        """The handler of ``route(GET("/x").and(...), handler)`` for the predicate ``GET("/x")``."""
        return self.predicates.get((call.node.start_byte, call.node.end_byte), "")

    def ktor_route(self, call: Call) -> None:
        """Ktor server routing: ``get("/x") { }``, ``route("/api") { get { } }``, ``route("/x", HttpMethod.Get)``."""
        if self.s.language != "kotlin" or call.receiver is not None or call.lam is None:
            return
        if not self.uses("io.ktor.server", "io.ktor.routing", "io.ktor.application"):
            return
        if call.name == "route":
            if len(call.args) < 2:
                return
            verb = _verb_word(self.written(call.args[1]))
            if not verb:
                return
        else:
            verb = _VERB_WORDS[call.name]
        path = self.path_literal(call.args[0]) if call.args else ""
        if path is None:
            return
        prefixes = self.prefixes(call.node, frozenset({"route"}))
        if prefixes is None:
            return
        full = ""
        for prefix in [*prefixes, path]:
            full = join_paths(full, prefix)
        self.route(call.anchor, verb, full, "", "ktor")

    def ktor_mount(self, call: Call) -> None:
        """``route("/api") { customerRoutes() }``: the routes of an extension function of another file
        (imported by name) are served under the prefix: a mount, spelled as the import."""
        if call.receiver is not None or call.args or call.lam is not None or call.named:
            return
        module = next(
            (module for module in self.modules if module.rsplit(".", 1)[-1] == call.name and "." in module), ""
        )
        if not module or not self.uses("io.ktor.server", "io.ktor.routing"):
            return
        prefixes = self.prefixes(call.node, frozenset({"route"}))
        if not prefixes:
            return
        full = ""
        for prefix in prefixes:
            full = join_paths(full, prefix)
        self.route(call.anchor, "*", full, "", "ktor", mount=module)

    def javalin(self, call: Call) -> None:
        """Javalin and Spark: ``app.get("/x", handler)``, ``get("/x", (req, res) -> ...)`` under ``path("/api", ...)``."""
        if not call.args or (len(call.args) < 2 and call.lam is None):
            return
        javalin = self.uses("io.javalin")
        if not javalin and not self.uses("spark.", "spark"):
            return
        if call.receiver is not None:
            kind = self.type_of(call.receiver)
            if kind and kind not in ("Javalin", "Spark", "Service", "JavalinDefaultRouting", "RoutingConfig"):
                return
        path = self.path_literal(call.args[0])
        if path is None:
            return
        prefixes = self.prefixes(call.node, frozenset({"path"}))
        if prefixes is None:
            return
        full = ""
        for prefix in [*prefixes, path]:
            full = join_paths(full, prefix)
        handler = self.handler(call.arg(1)) if len(call.args) >= 2 else ""
        self.route(call.anchor, _VERB_WORDS[call.name], full, handler, "javalin" if javalin else "spark")

    def vertx_router(self, call: Call) -> None:
        """Vert.x Web: ``router.get("/x").handler(h)``, ``router.route(HttpMethod.POST, "/x")``."""
        if (
            call.receiver is None
            or not call.args
            or not self.uses("io.vertx.ext.web", "io.vertx.rxjava", "io.vertx.reactivex", "io.vertx.mutiny")
        ):
            return
        if self.type_of(call.receiver) != "Router" and self.receiver_name(call.receiver) != "router":
            return
        args = list(call.args)
        if call.name == "route":
            verb = _verb_word(self.written(args[0])) if len(args) == 2 else "*"
            args = args[1:] if len(args) == 2 else args
        else:
            verb = _VERB_WORDS[call.name]
        path = self.path_literal(args[0])
        if path is None:
            return
        handler = ""
        for link in self.chain_up(call, 4):
            if link.name in ("handler", "blockingHandler", "respond") and link.args:
                handler = self.handler(link.args[0])
                break
        self.route(call.anchor, verb, path, handler, "vertx")

    def gateway(self, call: Call) -> None:
        """Spring Cloud Gateway: ``r.path("/orders/**").and().method("POST").uri(url)``: routes served by
        the gateway, and the calls it forwards them as."""
        if not call.args or not self.uses("org.springframework.cloud.gateway"):
            return
        paths = [self.path_literal(arg) for arg in call.args]
        methods: list[str] = []
        uri = None
        for link in self.chain_up(call):
            if link.name == "method":
                methods.extend(_verb_word(_literal(self.value(arg)) or self.written(arg)) for arg in link.args)
            elif link.name == "uri" and link.args:
                uri = link.args[0]
        if uri is None:
            return
        base = self.value(uri)
        for path in paths:
            if path is None:
                continue
            for verb in [method for method in methods if method] or ["*"]:
                self.route(call.anchor, verb, path, "", "spring-cloud-gateway")
                template = route_template(_spring_pattern(path))
                self.http_call(call.anchor, verb, [*base, (True, template)], "spring-cloud-gateway", None)

    # -- messaging calls ---------------------------------------------------------------------------------

    def typed(
        self, receiver: tree_sitter.Node | None, kinds: frozenset[str], words: tuple[str, ...], *prefixes: str
    ) -> bool:
        """Whether ``receiver`` is one of ``kinds``: declared so, or undeclared with a name holding one
        of ``words`` in a file importing one of ``prefixes``."""
        if receiver is None:
            return False
        kind = self.type_of(receiver)
        if kind:
            return kind in kinds
        name = self.receiver_name(receiver)
        return any(word in name for word in words) and (not prefixes or self.uses(*prefixes))

    def kafka_send(self, call: Call) -> None:
        """``kafkaTemplate.send("topic", ...)`` (a ``ProducerRecord`` argument is its own fact)."""
        if not call.args or not self.typed(call.receiver, _KAFKA_TEMPLATES, ("kafka",)):
            return
        first = call.args[0]
        tag, target, _ = self.s.shape(first)
        if tag == "call":
            inner = self.s.call(target)  # type: ignore[arg-type]
            if inner is not None and (inner.new or inner.name in ("build", "withPayload", "setHeader")):
                return
        if len(call.args) < 2 and tag != "str":
            return
        self.message(call.anchor, MessageRole.PRODUCE, "kafka", self.value(first), "topic", "spring-kafka")

    def producer_record(self, call: Call) -> None:
        """``new ProducerRecord<>("topic", value)`` of the Kafka clients."""
        if call.new and call.args and (self.uses("org.apache.kafka") or "." not in call.new):
            self.message(call.anchor, MessageRole.PRODUCE, "kafka", self.value(call.args[0]), "topic", "kafka-clients")

    def kafka_subscribe(self, call: Call) -> None:
        """``consumer.subscribe(List.of("a", "b"))`` of the Kafka clients."""
        if not call.args or call.receiver is None or not self.uses("org.apache.kafka", "reactor.kafka"):
            return
        kind = self.type_of(call.receiver)
        if kind not in _KAFKA_CONSUMERS and (kind or "consumer" not in self.receiver_name(call.receiver)):
            return
        first = call.args[0]
        tag, target, _ = self.s.shape(first)
        if tag not in ("array", "call", "str", "name", "member", "this"):
            return
        inner = self.s.call(target) if tag == "call" else None  # type: ignore[arg-type]
        if inner is not None and inner.name == "compile":
            self.message(call.anchor, MessageRole.CONSUME, "kafka", [(False, "?")], "topic", "kafka-clients")
            return
        for item in self.items(first):
            self.message(item, MessageRole.CONSUME, "kafka", self.value(item), "topic", "kafka-clients")

    def kafka_streams(self, call: Call) -> None:
        """Kafka Streams: ``builder.stream("in")``, ``.table("t")``, ``stream.to("out")``."""
        if not call.args or call.receiver is None or not self.uses("org.apache.kafka.streams"):
            return
        if call.name == "to":
            if self.s.shape(call.args[0])[0] in ("str", "name", "member"):
                self.message(
                    call.anchor, MessageRole.PRODUCE, "kafka", self.value(call.args[0]), "topic", "kafka-streams"
                )
            return
        kind = self.type_of(call.receiver)
        if kind != "StreamsBuilder" and (kind or "builder" not in self.receiver_name(call.receiver)):
            return
        for item in self.items(call.args[0]):
            self.message(item, MessageRole.CONSUME, "kafka", self.value(item), "topic", "kafka-streams")

    def amqp_send(self, call: Call) -> None:
        """``rabbitTemplate.convertAndSend(exchange, routingKey, message)`` and ``(routingKey, message)``."""
        if len(call.args) < 2 or not self.typed(call.receiver, _RABBIT_TEMPLATES, ("rabbit", "amqp")):
            return
        third = call.arg(2)
        if third is None or self.s.shape(third)[0] == "lambda":
            self.message(call.anchor, MessageRole.PRODUCE, "rabbitmq", self.value(call.args[0]), "queue", "spring-amqp")
            return
        exchange = self.value(call.args[0])
        if _literal(exchange) == "":
            self.message(call.anchor, MessageRole.PRODUCE, "rabbitmq", self.value(call.args[1]), "queue", "spring-amqp")
        else:
            self.message(call.anchor, MessageRole.PRODUCE, "rabbitmq", exchange, "exchange", "spring-amqp")

    def amqp_receive(self, call: Call) -> None:
        """``rabbitTemplate.receiveAndConvert("queue")``."""
        if call.args and self.typed(call.receiver, _RABBIT_TEMPLATES, ("rabbit", "amqp")):
            self.message(call.anchor, MessageRole.CONSUME, "rabbitmq", self.value(call.args[0]), "queue", "spring-amqp")

    def rabbit_client(self, call: Call) -> None:
        """The RabbitMQ Java client: ``channel.basicPublish(exchange, key, props, body)``, ``basicConsume(queue, ...)``."""
        if not call.args or not self.uses("com.rabbitmq"):
            return
        if call.name == "basicConsume":
            self.message(call.anchor, MessageRole.CONSUME, "rabbitmq", self.value(call.args[0]), "queue", "amqp-client")
            return
        if len(call.args) < 2:
            return
        exchange = self.value(call.args[0])
        if _literal(exchange) == "":
            self.message(call.anchor, MessageRole.PRODUCE, "rabbitmq", self.value(call.args[1]), "queue", "amqp-client")
        else:
            self.message(call.anchor, MessageRole.PRODUCE, "rabbitmq", exchange, "exchange", "amqp-client")

    def jms(self, call: Call) -> None:
        """``jmsTemplate.convertAndSend("queue", message)``, ``send("queue", creator)``, ``receive("queue")``."""
        if not call.args or not self.typed(call.receiver, _JMS_TEMPLATES, ("jms",)):
            return
        if call.name.startswith("receive"):
            self.message(call.anchor, MessageRole.CONSUME, "", self.value(call.args[0]), "queue", "spring-jms")
        elif len(call.args) >= 2:
            self.message(call.anchor, MessageRole.PRODUCE, "", self.value(call.args[0]), "queue", "spring-jms")

    def stream_bridge(self, call: Call) -> None:
        """``streamBridge.send("binding", payload)`` of Spring Cloud Stream: the binding's destination is configured."""
        if len(call.args) < 2 or not self.typed(call.receiver, frozenset({"StreamBridge"}), ("streambridge",)):
            return
        name = self.name_of(self.value(call.args[0]))[0]
        pieces: list[Piece] = (
            [(False, _address(f"config:spring.cloud.stream.bindings.{name}.destination", name))]
            if name
            else [(False, "?")]
        )
        self.message(call.anchor, MessageRole.PRODUCE, "", pieces, "channel", "spring-cloud-stream")

    def sqs_template(self, call: Call) -> None:
        """Spring Cloud AWS: ``sqsTemplate.send("queue", payload)``, ``send(to -> to.queue("q")...)``,
        ``receive(from -> from.queue("q"))``, ``snsTemplate.sendNotification("topic", ...)``."""
        if call.receiver is None or not call.args:
            return
        kind = self.type_of(call.receiver)
        name = self.receiver_name(call.receiver)
        spring_aws = self.uses("io.awspring", "org.springframework.cloud.aws")
        if kind in _SNS_TEMPLATES or (not kind and spring_aws and ("sns" in name or "notification" in name)):
            if call.name in ("sendNotification", "convertAndSend", "send") and len(call.args) >= 2:
                self.message(
                    call.anchor, MessageRole.PRODUCE, "sns", self.value(call.args[0]), "topic", "spring-cloud-aws", ":"
                )
            return
        if not (kind in _SQS_TEMPLATES or (not kind and spring_aws and ("sqs" in name or "queuemessaging" in name))):
            return
        role = MessageRole.CONSUME if call.name.startswith("receive") else MessageRole.PRODUCE
        first = call.args[0]
        if self.s.shape(first)[0] == "lambda":
            for link in self.calls_in(first, "queue"):
                if link.args:
                    self.message(link.anchor, role, "sqs", self.value(link.args[0]), "queue", "spring-cloud-aws", "/")
                    return
            self.message(call.anchor, role, "sqs", [(False, "?")], "queue", "spring-cloud-aws")
            return
        if role == MessageRole.PRODUCE and len(call.args) < 2:
            return
        self.message(call.anchor, role, "sqs", self.value(first), "queue", "spring-cloud-aws", "/")

    def calls_in(self, node: tree_sitter.Node, name: str, budget: int = 512) -> list[Call]:
        """The calls named ``name`` within ``node``, in document order (looking at ``budget`` nodes at most)."""
        found: list[Call] = []
        stack = [node]
        while stack and budget > 0:
            current = stack.pop()
            budget -= 1
            if current.type in _CALL_NODES and self.call_name(current) == name:
                call = self.s.call(current)
                if call is not None:
                    found.append(call)
            stack.extend(reversed(current.named_children))
        return found

    def aws_request(self, call: Call) -> None:
        """AWS SDK requests: ``SendMessageRequest.builder().queueUrl(url)``, ``PublishRequest.builder()
        .topicArn(arn)`` (v2), ``new SendMessageRequest().withQueueUrl(url)`` (v1)."""
        if len(call.args) != 1:
            return
        root = self.chain_down(call)[-1]
        kind = root.new.rsplit(".", 1)[-1] if root.new else self.root_text(root)
        if kind not in _AWS_REQUESTS:
            return
        broker, role = _AWS_REQUESTS[kind]
        if (broker == "sqs") != ("ueue" in call.name):
            return
        self.message(
            call.anchor,
            role,
            broker,
            self.value(call.args[0]),
            "queue" if broker == "sqs" else "topic",
            "aws-sdk",
            "/" if broker == "sqs" else ":",
        )

    def aws_request_new(self, call: Call) -> None:
        """``new SendMessageRequest(queueUrl, body)``, ``new PublishRequest(topicArn, message)`` (SDK v1)."""
        if not call.new or not call.args or not self.uses("com.amazonaws"):
            return
        broker, role = _AWS_REQUESTS[call.name]
        if role == MessageRole.PRODUCE and len(call.args) < 2:
            return
        self.message(
            call.anchor,
            role,
            broker,
            self.value(call.args[0]),
            "queue" if broker == "sqs" else "topic",
            "aws-sdk",
            "/" if broker == "sqs" else ":",
        )

    def aws_client(self, call: Call) -> None:
        """SDK v1 shortcuts: ``sqs.sendMessage(queueUrl, body)``, ``sqs.receiveMessage(queueUrl)``, ``sns.publish(arn, msg)``."""
        if not call.args or self.s.shape(call.args[0])[0] == "call":
            return
        kind = self.type_of(call.receiver)
        if call.name == "publish":
            if kind in _SNS_CLIENTS and len(call.args) >= 2:
                self.message(call.anchor, MessageRole.PRODUCE, "sns", self.value(call.args[0]), "topic", "aws-sdk", ":")
            return
        if kind not in _SQS_CLIENTS:
            return
        if call.name == "receiveMessage":
            self.message(call.anchor, MessageRole.CONSUME, "sqs", self.value(call.args[0]), "queue", "aws-sdk", "/")
        elif len(call.args) >= 2:
            self.message(call.anchor, MessageRole.PRODUCE, "sqs", self.value(call.args[0]), "queue", "aws-sdk", "/")

    def redis(self, call: Call) -> None:
        """Redis pub/sub: ``redisTemplate.convertAndSend("ch", msg)``, ``jedis.publish("ch", msg)``,
        ``jedis.subscribe(listener, "ch")``, ``container.addMessageListener(l, new ChannelTopic("ch"))``."""
        if not call.args or call.receiver is None:
            return
        if call.name == "convertAndSend":
            if len(call.args) == 2 and self.typed(call.receiver, _REDIS_TEMPLATES, ("redis",)):
                self.message(
                    call.anchor, MessageRole.PRODUCE, "redis", self.value(call.args[0]), "channel", "spring-data-redis"
                )
            return
        if call.name in ("addMessageListener", "receive", "listenToChannel", "listenTo"):
            if not self.uses("org.springframework.data.redis"):
                return
            topics = call.args[1:] if call.name == "addMessageListener" else call.args
            for topic in topics:
                for item in self.items(topic):
                    self.redis_topic(call, item)
            return
        if not self.typed(call.receiver, _JEDIS, ("jedis",), "redis.clients"):
            return
        if call.name == "publish" and len(call.args) >= 2:
            self.message(call.anchor, MessageRole.PRODUCE, "redis", self.value(call.args[0]), "channel", "jedis")
        elif call.name == "subscribe":
            for item in call.args[1:]:
                self.message(item, MessageRole.CONSUME, "redis", self.value(item), "channel", "jedis")

    def redis_topic(self, call: Call, node: tree_sitter.Node) -> None:
        tag, target, _ = self.s.shape(node)
        if tag == "str":
            self.message(node, MessageRole.CONSUME, "redis", self.value(node), "channel", "spring-data-redis")
            return
        inner = self.s.call(target) if tag == "call" else None  # type: ignore[arg-type]
        if inner is None or not inner.args:
            return
        kind = inner.new.rsplit(".", 1)[-1] if inner.new else self.root_text(inner)
        if kind == "ChannelTopic":
            self.message(
                inner.anchor, MessageRole.CONSUME, "redis", self.value(inner.args[0]), "channel", "spring-data-redis"
            )
        elif kind == "PatternTopic":
            self.message(inner.anchor, MessageRole.CONSUME, "redis", [(False, "?")], "channel", "spring-data-redis")

    def nats(self, call: Call) -> None:
        """NATS: ``nc.publish("subject", data)``, ``nc.request(...)``, ``nc.subscribe("subject")``,
        ``dispatcher.subscribe("subject", handler)``, JetStream ``js.publish(...)``."""
        if not call.args or call.receiver is None or not self.uses("io.nats"):
            return
        kind = self.type_of(call.receiver)
        if kind and kind not in ("Connection", "Dispatcher", "JetStream"):
            return
        if self.s.shape(call.args[0])[0] not in ("str", "name", "member", "plus"):
            return
        role = MessageRole.CONSUME if call.name == "subscribe" else MessageRole.PRODUCE
        self.message(call.anchor, role, "nats", self.value(call.args[0]), "subject", "nats")

    def pubsub(self, call: Call) -> None:
        """Google Pub/Sub: ``Publisher.newBuilder(TopicName.of(project, "t"))``, ``pubSubTemplate.publish("t", msg)``."""
        if not call.args or call.receiver is None:
            return
        if call.name == "newBuilder":
            if self.written(call.receiver) != "Publisher" or not self.uses("com.google.cloud.pubsub"):
                return
            first = call.args[0]
            tag, target, _ = self.s.shape(first)
            inner = self.s.call(target) if tag == "call" else None  # type: ignore[arg-type]
            if inner is not None and inner.name in ("of", "create") and len(inner.args) == 2:
                first = inner.args[1]
            self.message(call.anchor, MessageRole.PRODUCE, "pubsub", self.value(first), "topic", "google-pubsub", "/")
            return
        if len(call.args) >= 2 and self.typed(
            call.receiver,
            frozenset({"PubSubTemplate", "PubSubPublisherTemplate"}),
            ("pubsub",),
            "com.google.cloud.spring",
            "org.springframework.cloud.gcp",
        ):
            self.message(
                call.anchor, MessageRole.PRODUCE, "pubsub", self.value(call.args[0]), "topic", "spring-cloud-gcp", "/"
            )

    def dapr_publish(self, call: Call) -> None:
        """``daprClient.publishEvent(pubsubName, topic, data)``."""
        if len(call.args) >= 2 and call.receiver is not None and self.dapr(call.receiver):
            self.message(call.anchor, MessageRole.PRODUCE, "", self.value(call.args[1]), "topic", "dapr")

    # -- Eventuate: Tram messaging, sagas and test utilities; Client event sourcing -------------------------

    def eventuate_publish(self, call: Call) -> None:
        """``domainEventPublisher.publish(Order.class, id, events)``: the channel is the aggregate type's
        qualified name (or the string given). A subclass of ``AbstractAggregateDomainEventPublisher``
        (``orderPublisher.publish(order, events)``) publishes to its aggregate's channel, which its class
        declaration names: the call's address is ``client:<PublisherType>`` (resolved to that declaration),
        its name the aggregate argument's type when readable, else the aggregate the class declares when
        this file declares it, else ""."""
        if len(call.args) < 2 or call.receiver is None:
            return
        kind = self.type_of(call.receiver)
        name = self.receiver_name(call.receiver)
        if kind == "DomainEventPublisher" or (not kind and self.uses(*_EVENTUATE) and "eventpublisher" in name):
            if len(call.args) >= 3:
                self.message(
                    call.anchor, MessageRole.PRODUCE, "", self.channel(call.args[0]), "channel", "eventuate-tram"
                )
            return
        if len(call.args) != 2 or not kind:
            return
        if kind == "AbstractAggregateDomainEventPublisher":
            key = self.receiver_key(call.receiver)
            arguments = self.type_arguments.get(key, ()) if key is not None else ()
            if arguments and self.uses(*_EVENTUATE):
                self.message(
                    call.anchor, MessageRole.PRODUCE, "", [(True, self.aggregate_name(arguments[0]))], "channel",
                    "eventuate-tram",
                )  # fmt: skip
            return
        declared = self.publisher_aggregate(kind)
        if not declared and not kind.endswith("DomainEventPublisher"):
            return
        aggregate = self.aggregate_type(call.args[0]) or declared or ""
        if not aggregate and not self.uses(*_EVENTUATE):
            return
        written = self.aggregate_name(aggregate) if aggregate else None
        pieces: list[Piece] = [(False, _address(f"client:{kind}", written))]
        self.message(call.anchor, MessageRole.PRODUCE, "", pieces, "channel", "eventuate-tram")

    def publisher_aggregate(self, kind: str) -> str | None:
        """The aggregate written in ``class <kind> extends AbstractAggregateDomainEventPublisher<Order, E>``
        when this file declares that class ("" when it declares it otherwise), else None."""
        index = self.type_index.get(kind)
        if index is None or self.defs.kinds[index] in ("method", "function"):
            return None
        match = _AGGREGATE_PUBLISHER.search(self.s.supertypes(self.defs.nodes[index]))
        return match.group(1) if match else ""

    def aggregate_type(self, node: tree_sitter.Node) -> str:
        """The type of an aggregate as written: a name's declared type (or the type its value creates),
        or ``T`` of ``rwe.result`` where ``rwe`` is a ``ResultWithDomainEvents<T, E>``; "" when unknown."""
        tag, a, b = self.s.shape(node)
        if tag == "member" and b == "result":
            owner_tag, owner, _ = self.s.shape(a)  # type: ignore[arg-type]
            key = self.lookup(owner, a.start_byte) if owner_tag == "name" else None  # type: ignore[arg-type,union-attr]
            if key is not None and self.types.get(key, "").endswith("ResultWithDomainEvents"):
                arguments = self.type_arguments.get(key, ())
                return arguments[0] if arguments else ""
            return ""
        if tag not in ("name", "this"):
            return ""
        key = self.receiver_key(node)
        if key is None:
            return ""
        declared = self.types.get(key, "")
        if declared:
            return declared
        for value in self.values.get(key, ())[:2]:
            value_tag, target, _ = self.s.shape(value)
            created = self.s.call(target) if value_tag == "call" else None  # type: ignore[arg-type]
            if created is not None and created.new:
                return created.new
        return ""

    def receiver_key(self, node: tree_sitter.Node | None) -> tuple[int, str] | None:
        """The declaration a name or ``this.name`` refers to (None for anything else)."""
        if node is None:
            return None
        tag, a, _ = self.s.shape(node)
        if tag == "name":
            return self.lookup(a, node.start_byte)  # type: ignore[arg-type]
        if tag == "this":
            klass = self.class_of(node.start_byte)
            return self.member_key(klass, a) if klass >= 0 else None  # type: ignore[arg-type]
        return None

    def aggregate_name(self, written: str) -> str:
        """The qualified name of a type written in this file: through its imports (one wildcard import
        of the application's own packages counts when nothing else names the type), else its package."""
        written = written.strip().rstrip("?")
        head = written.split(".", 1)[0]
        if (
            ("." in written and written[:1].islower())
            or head in self.type_index
            or any(module.rsplit(".", 1)[-1] == head for module in self.modules)
        ):
            return self.qualified(written)
        wildcards = [
            module[:-2]
            for module in self.modules
            if module.endswith(".*")
            and not module.startswith(_jvm_fluent.LIBRARY_ROOTS)
            and not module[:-2].rsplit(".", 1)[-1][:1].isupper()
            and module[:-2] != self.package
        ]
        if len(wildcards) == 1:
            return f"{wildcards[0]}.{written}"
        return self.qualified(written)

    def class_name(self, node: tree_sitter.Node | None) -> str:
        """``X`` of ``X.class``, ``X.class.getName()``, ``X::class.java``, ``X::class.java.name``,
        ``X::class.qualifiedName`` (a class or its qualified name), as written; "" otherwise."""
        if node is None:
            return ""
        for _ in range(4):  # Kotlin's ``X::class.qualifiedName!!`` (an argument, maybe in parentheses)
            if node.type in ("value_argument", "parenthesized_expression") and node.named_child_count:
                node = node.named_children[-1]
            elif node.type in ("unary_expression", "postfix_expression") and self.text(node).endswith("!!"):
                if not node.named_child_count:
                    return ""
                node = node.child_by_field_name("argument") or node.named_children[0]
            else:
                break
        tag, a, b = self.s.shape(node)
        owner: tree_sitter.Node | None = None
        if tag == "class":
            return str(a)
        if tag == "member" and b in _CLASS_NAMES:
            owner = a  # type: ignore[assignment]
        elif tag == "call":
            call = self.s.call(a)  # type: ignore[arg-type]
            if call is not None and call.name in _CLASS_NAMES and not call.args and not call.new:
                owner = call.receiver
        if owner is None:
            return ""
        owner_tag, written, _ = self.s.shape(owner)
        return str(written) if owner_tag == "class" else ""

    def channel(self, node: tree_sitter.Node) -> list[Piece]:
        """A channel argument: a class (or its name) names its aggregate's channel, else the value given."""
        written = self.class_name(node)
        if written:
            return [(True, self.aggregate_name(written))]
        return self.value(node)

    def eventuate_type(self, kind: str) -> bool:
        """Whether the simple type name ``kind`` is Eventuate's here: imported from ``io.eventuate``, or
        imported by no explicit import and declared nowhere in this file (a file that uses Eventuate)."""
        if kind in self.type_index or not self.uses(*_EVENTUATE):
            return False
        found = [module for module in self.modules if module.rsplit(".", 1)[-1] == kind]
        return not found or any(module.startswith(_EVENTUATE) for module in found)

    def eventuate_consume(self, call: Call) -> None:
        """``DomainEventHandlersBuilder.forAggregateType("...")``, ``SagaCommandHandlersBuilder.fromChannel(ch)``."""
        if not call.args:
            return
        root = self.root_text(call)
        if root not in (
            "DomainEventHandlersBuilder",
            "CommandHandlersBuilder",
            "SagaCommandHandlersBuilder",
        ) and not self.uses(*_EVENTUATE):
            return
        self.message(call.anchor, MessageRole.CONSUME, "", self.channel(call.args[0]), "channel", "eventuate-tram")

    def eventuate_command(self, call: Call) -> None:
        """``send(command).to(channel)`` of ``CommandWithDestinationBuilder`` (saga steps)."""
        if len(call.args) != 1 or call.receiver is None:
            return
        tag, target, _ = self.s.shape(call.receiver)
        inner = self.s.call(target) if tag == "call" else None  # type: ignore[arg-type]
        if inner is None or inner.name != "send":
            return
        receiver = self.written(inner.receiver) if inner.receiver is not None else ""
        if receiver != "CommandWithDestinationBuilder" and not (not receiver and self.uses(*_EVENTUATE)):
            return
        self.message(call.anchor, MessageRole.PRODUCE, "", self.channel(call.args[0]), "channel", "eventuate-tram")

    def eventuate_endpoint(self, call: Call) -> None:
        """``CommandEndpointBuilder.forCommand(C.class).withChannel(channel)``: a saga participant's
        command endpoint, to which the orchestrator sends its commands."""
        if len(call.args) != 1:
            return
        if self.root_text(call) != "CommandEndpointBuilder" and not self.uses(*_EVENTUATE):
            return
        self.message(call.anchor, MessageRole.PRODUCE, "", self.channel(call.args[0]), "channel", "eventuate-tram")

    def eventuate_send(self, call: Call) -> None:
        """``commandProducer.send(channel, command, replyTo, headers)``, ``messageProducer.send(destination, message)``."""
        if len(call.args) < 2 or call.receiver is None or not self.uses(*_EVENTUATE):
            return
        kind = self.type_of(call.receiver)
        name = self.receiver_name(call.receiver)
        if kind in ("CommandProducer", "MessageProducer") or (
            not kind and ("commandproducer" in name or "messageproducer" in name)
        ):
            self.message(call.anchor, MessageRole.PRODUCE, "", self.channel(call.args[0]), "channel", "eventuate-tram")

    def eventuate_subscribe(self, call: Call) -> None:
        """``messageConsumer.subscribe(subscriberId, Set.of(channel), handler)``."""
        if len(call.args) < 3 or call.receiver is None or not self.uses(*_EVENTUATE):
            return
        kind = self.type_of(call.receiver)
        if kind != "MessageConsumer" and (kind or "messageconsumer" not in self.receiver_name(call.receiver)):
            return
        for item in self.items(call.args[1]):
            self.message(item, MessageRole.CONSUME, "", self.channel(item), "channel", "eventuate-tram")

    def eventuate_aggregate(self, index: int, supertypes: str) -> None:
        """A class extending ``AbstractAggregateDomainEventPublisher<Order, ...>`` publishes Order's events."""
        match = _AGGREGATE_PUBLISHER.search(supertypes)
        if match is None:
            return
        node = self.defs.nodes[index]
        anchor = node.child_by_field_name("name") or next(
            (child for child in node.named_children if child.type == "identifier"), node
        )
        self.message(
            anchor, MessageRole.PRODUCE, "", [(True, self.aggregate_name(match.group(1)))], "channel", "eventuate-tram"
        )

    def eventuate_saga_replies(self, call: Call) -> None:
        """``new SagaReplyRequestedEventSubscriber(id, singleton(Account.class.getName()))`` (sagas over
        event sourcing) consumes the channels of the aggregate types it is given."""
        if len(call.args) != 2 or call.receiver is not None or not self.eventuate_type(call.name):
            return
        items = self.items(call.args[1])
        if len(items) == 1 and same(items[0], call.args[1]):
            return  # a set built elsewhere: no channel written here
        for item in items:
            self.message(item, MessageRole.CONSUME, "", self.channel(item), "channel", "eventuate-tram")

    def eventuate_tracker(self, call: Call) -> None:
        """``new MessageTracker(singleton("channel"), messageConsumer)`` of Eventuate Tram's testing
        support subscribes to the channels of the collection written there."""
        if len(call.args) != 2 or call.receiver is not None or not self.eventuate_type(call.name):
            return
        items = self.items(call.args[0])
        if len(items) == 1 and same(items[0], call.args[0]):
            return  # a set built elsewhere, a configuration object: no channel written here
        for item in items:
            self.message(item, MessageRole.CONSUME, "", self.channel(item), "channel", "eventuate-tram")

    def eventuate_stub(self, call: Call) -> None:
        """``sagaParticipantStubManager.forChannel("kitchenService").when(C.class).replyWithSuccess()``
        (Eventuate Tram sagas' testing support): a stubbed saga participant consuming the commands sent
        on that channel."""
        if len(call.args) != 1 or call.receiver is None or not self.uses(*_EVENTUATE):
            return
        receiver = self.root(call).receiver
        kind = self.type_of(receiver) if receiver is not None else ""
        if kind != "SagaParticipantStubManager" and (kind or "stubmanager" not in self.receiver_name(receiver)):
            return
        self.message(call.anchor, MessageRole.CONSUME, "", self.channel(call.args[0]), "channel", "eventuate-tram")

    def eventuate_repository(self, call: Call) -> None:
        """Eventuate Client's event sourcing: ``accountRepository.save(command)`` / ``update(id, command)``
        of an ``AggregateRepository<Account, AccountCommand>``, ``aggregateStore.save(Account.class, events)``
        / ``update(Account.class, idAndVersion, events)`` of an ``EventuateAggregateStore``: the aggregate's
        events go to the channel its class's qualified name names."""
        if not call.args or call.receiver is None or not self.uses(*_EVENTUATE):
            return
        kind = self.type_of(call.receiver)
        if kind == "AggregateRepository" and self.eventuate_type(kind):
            aggregate = self.repository_aggregate(call.receiver)
            pieces = [(True, self.aggregate_name(aggregate))] if aggregate else [(False, "?")]
        elif kind == "EventuateAggregateStore" and call.name in ("save", "update") and len(call.args) >= 2:
            if not self.eventuate_type(kind):
                return
            pieces = self.channel(call.args[0])
        else:
            return
        self.message(call.anchor, MessageRole.PRODUCE, "", pieces, "channel", "eventuate-client")

    def repository_aggregate(self, receiver: tree_sitter.Node) -> str:
        """The aggregate type of an ``AggregateRepository`` as written: its declared type's first type
        argument, else the class its value is created with (``new AggregateRepository<>(Account.class, store)``)."""
        key = self.receiver_key(receiver)
        if key is None:
            return ""
        arguments = self.type_arguments.get(key, ())
        if arguments and re.fullmatch(r"[\w.]+\??", arguments[0]):
            return arguments[0]
        for value in self.values.get(key, ())[:4]:
            tag, target, _ = self.s.shape(value)
            created = self.s.call(target) if tag == "call" else None  # type: ignore[arg-type]
            if created is not None and created.name == "AggregateRepository" and created.args:
                written = self.class_name(created.args[0])
                if written:
                    return written
        return ""

    def eventuate_subscribers(self) -> None:
        """Eventuate Client's consumers: an ``@EventHandlerMethod`` of an ``@EventSubscriber`` class takes a
        ``DispatchedEvent<E>`` (or ``EventHandlerContext<E>``) and consumes the channel of ``E``'s aggregate,
        which ``@EventEntity(entity = "...")`` on ``E`` or a supertype names: read where this file declares it."""
        if not self.uses(*_EVENTUATE):
            return
        #: method -> the type arguments of its parameters typed as a dispatched event, in source order
        events: dict[int, list[str]] = {}
        memo: dict[int, str] = {}
        for key, arguments in self.type_arguments.items():
            if arguments and self.types.get(key, "").rsplit(".", 1)[-1] in _DISPATCHED_EVENTS:
                events.setdefault(key[0], []).append(arguments[0])
        for index, anns in self.anns.items():
            handler = next((ann for ann in anns if ann.name == "EventHandlerMethod"), None)
            if handler is None or self.defs.kinds[index] not in ("method", "function") or index not in events:
                continue
            owner = self.owner_of(index)
            if owner < 0 or not any(ann.name == "EventSubscriber" for ann in self.anns.get(owner, ())):
                continue
            entity = self.event_entity(events[index][0], 0, memo)
            if entity:
                self.message(handler.node, MessageRole.CONSUME, "", [(True, entity)], "channel", "eventuate-client")

    def event_entity(self, written: str, depth: int, memo: dict[int, str]) -> str:
        """The aggregate ``@EventEntity(entity = "...")`` names on the event type ``written`` or one of its
        supertypes, where this file declares them; "" when it cannot be read here. ``memo`` holds the
        answer of each type already asked (a type being asked counts as "": a cycle ends)."""
        index = self.type_index.get(written.split("<", 1)[0].strip().rsplit(".", 1)[-1])
        if index is None or depth > 4 or self.defs.kinds[index] in ("method", "function"):
            return ""
        if index in memo:
            return memo[index]
        memo[index] = ""
        found = ""
        ann = next((ann for ann in self.anns.get(index, ()) if ann.name == "EventEntity"), None)
        if ann is not None:
            value = ann.value("entity")
            found = (_literal(self.expanded(value)) or "") if value is not None else ""
        else:
            for supertype in re.findall(r"[A-Z]\w*", self.s.supertypes(self.defs.nodes[index]))[:8]:
                found = self.event_entity(supertype, depth + 1, memo)
                if found:
                    break
        memo[index] = found
        return found

    # -- typed clients' base addresses -----------------------------------------------------------------------

    def client_setting(self, call: Call) -> None:
        """``retrofit.create(Api.class)``, ``factory.createClient(Api.class)``, ``Feign.builder().target(Api.class, url)``:
        a :class:`Setting` ``client:Api`` with the base address the file gives."""
        if not call.args:
            return
        tag, type_name, _ = self.s.shape(call.args[0])
        if tag != "class" or not type_name:
            return
        if call.name == "target":
            base = self.value(call.args[1]) if len(call.args) >= 2 else None
        else:
            base = self.base_of(call.receiver) if call.receiver is not None else None
        if base:
            self.setting(call.anchor, f"client:{str(type_name).rsplit('.', 1)[-1]}", base)

    # -- annotations -----------------------------------------------------------------------------------

    def declarations(self) -> None:
        """Facts of annotated types and methods, and of Eventuate publisher and subscriber classes."""
        eventuate = b"AbstractAggregateDomainEventPublisher" in self.s.source
        for index in range(len(self.defs.facts)):
            kind = self.defs.kinds[index]
            anns = self.anns.get(index, [])
            if kind in ("method", "function"):
                if anns:
                    self.method(index, anns)
            else:
                if anns:
                    self.type_listeners(index, anns)
                if eventuate:
                    self.eventuate_aggregate(index, self.s.supertypes(self.defs.nodes[index]))
        if b"EventSubscriber" in self.s.source:
            self.eventuate_subscribers()

    def owner_of(self, index: int) -> int:
        parent = self.defs.parents[index]
        while parent >= 0 and self.defs.kinds[parent] in ("method", "function"):
            parent = self.defs.parents[parent]
        return parent

    def strings(self, nodes: Iterable[tree_sitter.Node]) -> list[str] | None:
        """The literal strings of annotation values (arrays flattened), a placeholder read as the
        default written in it (``${api.base:/v2}``: ``/v2``); None when one is unreadable."""
        out: list[str] = []
        for node in nodes:
            for item in self.items(node):
                parts: list[str] = []
                for literal, text in self.expanded(item):
                    default = _split(text)[1] if not literal and text.startswith(("config:", "env:")) else None
                    if default is not None:
                        parts.append(default)
                    elif literal:
                        parts.append(text)
                    else:
                        return None
                out.append("".join(parts))
        return out

    def mapping_paths(self, ann: Ann | None, *names: str) -> list[str] | None:
        if ann is None:
            return [""]
        paths = self.strings(ann.values(*names))
        if paths is None:
            return None
        return paths or [""]

    def client_kind(self, owner: int, owner_anns: dict[str, Ann]) -> str:
        """The client library an interface declares calls for ("" when it declares routes)."""
        if owner < 0:
            return ""
        if "FeignClient" in owner_anns:
            return "feign"
        if "RegisterRestClient" in owner_anns:
            return "rest-client"
        if "Client" in owner_anns and self.uses("io.micronaut"):
            return "micronaut"
        if "HttpExchange" in owner_anns:
            return "HttpExchange"
        if self.defs.kinds[owner] == "interface" and self.uses("retrofit2"):
            return "retrofit"
        return ""

    def client_base(self, owner: int, owner_anns: dict[str, Ann], client: str) -> tuple[list[Piece], list[str]] | None:
        """(base pieces, path prefixes) of a client interface; None when its prefix is unreadable."""
        name = self.defs.facts[owner].name if owner >= 0 else ""
        base: list[Piece] = []
        prefixes: list[str] = [""]
        if client == "feign":
            ann = owner_anns["FeignClient"]
            url = ann.value("url")
            if url is not None:
                base = self.expanded(url)
            else:
                service = self.expanded(ann.value("name", "value", "serviceId"))
                literal = _literal(service)
                base = [(True, f"http://{literal}")] if literal else service
            feign_path = self.mapping_paths(owner_anns["FeignClient"], "path")
            mapping = self.mapping_paths(owner_anns.get("RequestMapping"), "value", "path")
            if feign_path is None or mapping is None:
                return None
            prefixes = [join_paths(first, second) for first in feign_path for second in mapping]
        elif client == "rest-client":
            ann = owner_anns["RegisterRestClient"]
            uri, key = ann.value("baseUri"), ann.value("configKey")
            if uri is not None:
                base = self.expanded(uri)
            elif key is not None and _literal(self.value(key)):
                base = [(False, f"config:quarkus.rest-client.{_literal(self.value(key))}.url")]
            paths = self.mapping_paths(owner_anns.get("Path"), "value")
            if paths is None:
                return None
            prefixes = paths
        elif client == "micronaut":
            ann = owner_anns["Client"]
            target = self.expanded(ann.value("value", "id"))
            literal = _literal(target)
            if literal and "://" in literal:
                base = target
            elif literal:
                base = [(True, f"http://{literal}")]
            paths = self.mapping_paths(ann, "path")
            prefixes = paths if paths is not None and ann.value("path") is not None else [""]
        elif client == "HttpExchange" and "HttpExchange" in owner_anns:
            ann = owner_anns["HttpExchange"]
            url = self.expanded(ann.value("url", "value"))
            literal = _literal(url)
            if literal and "://" in literal:
                base = url
            elif literal is None:
                return None
            else:
                prefixes = [literal]
        if not base:
            base = [(False, f"client:{name}")]
        return base, prefixes

    def method(self, index: int, anns: list[Ann]) -> None:
        owner = self.owner_of(index)
        owner_anns: dict[str, Ann] = {}
        for ann in self.anns.get(owner, []) if owner >= 0 else []:
            owner_anns.setdefault(ann.name, ann)
        by_name: dict[str, Ann] = {}
        for ann in anns:
            by_name.setdefault(ann.name, ann)
        client = self.client_kind(owner, owner_anns)
        symbol = self.defs.qualnames[index]
        micronaut = self.uses("io.micronaut")
        jaxrs_verbs = [ann for ann in anns if ann.name in HTTP_METHODS and not ann.args and not ann.named]
        for ann in anns:
            if ann.name in _SPRING_MAPPINGS:
                self.spring_mapping(index, ann, owner, owner_anns, client, symbol)
            elif ann.name in _EXCHANGES:
                self.exchange(index, ann, owner, owner_anns, symbol)
            elif ann.name in _MICRONAUT_VERBS and micronaut:
                self.micronaut(index, ann, owner, owner_anns, client, symbol)
            elif ann.name in HTTP_METHODS and (ann.args or ann.named or client == "retrofit"):
                self.retrofit(index, ann, ann.name, ann.value("value"), owner, owner_anns, symbol)
            elif ann.name == "HTTP" and self.uses("retrofit2"):
                verb = _verb_word(_literal(self.value(ann.value("method"))) or "")
                self.retrofit(index, ann, verb, ann.value("path"), owner, owner_anns, symbol)
            elif ann.name == "RequestLine" and client == "feign" or ann.name == "RequestLine" and self.uses("feign"):
                self.request_line(index, ann, owner, owner_anns, symbol)
            elif ann.name in ("Route",) and self.uses("io.quarkus.vertx.web"):
                self.quarkus_route(index, ann, owner, owner_anns, symbol)
            else:
                self.listener(ann, owner_anns)
        if jaxrs_verbs and client != "retrofit":
            self.jaxrs(index, jaxrs_verbs, by_name.get("Path"), owner, owner_anns, client, symbol)

    def spring_mapping(
        self, index: int, ann: Ann, owner: int, owner_anns: dict[str, Ann], client: str, symbol: str
    ) -> None:
        paths = self.mapping_paths(ann, "value", "path")
        if paths is None:
            return
        verb = _SPRING_MAPPINGS[ann.name]
        verbs = [verb] if verb else [_verb_word(self.written(item)) for item in self.items(ann.value("method"))]
        verbs = [word for word in verbs if word] or (["GET"] if client == "feign" else ["*"])
        if client:
            self.client_calls(ann, owner, owner_anns, client, verbs, paths)
            return
        prefixes = self.mapping_paths(owner_anns.get("RequestMapping"), "value", "path")
        if prefixes is None:
            return
        for prefix in prefixes:
            for path in paths:
                for word in verbs:
                    self.route(ann.node, word, join_paths(prefix, path), symbol, "spring", symbol)

    def client_calls(
        self, ann: Ann, owner: int, owner_anns: dict[str, Ann], client: str, verbs: list[str], paths: list[str]
    ) -> None:
        found = self.client_base(owner, owner_anns, client)
        if found is None:
            return
        base, prefixes = found
        for prefix in prefixes:
            for path in paths:
                full = join_paths(prefix, path) if not re.match(r"^[a-zA-Z][\w+.-]*://", path) else path
                pieces = [(True, full)] if "://" in full else [*base, (True, full)]
                for word in verbs:
                    self.http_call(ann.node, word, pieces, client)

    def exchange(self, index: int, ann: Ann, owner: int, owner_anns: dict[str, Ann], symbol: str) -> None:
        paths = self.mapping_paths(ann, "url", "value")
        if paths is None:
            return
        verb = _EXCHANGES[ann.name] or _verb_word(_literal(self.value(ann.value("method"))) or "") or "*"
        self.client_calls(ann, owner, owner_anns, "HttpExchange", [verb], paths)

    def micronaut(self, index: int, ann: Ann, owner: int, owner_anns: dict[str, Ann], client: str, symbol: str) -> None:
        paths = self.strings(ann.values("value", "uri") + ann.values("uris"))
        if paths is None:
            return
        paths = paths or ["/"]
        verb = _MICRONAUT_VERBS[ann.name]
        if client:
            self.client_calls(ann, owner, owner_anns, client, [verb], paths)
            return
        controller = owner_anns.get("Controller")
        prefixes = self.mapping_paths(controller, "value") if controller is not None else [""]
        if prefixes is None:
            return
        for prefix in prefixes:
            for path in paths:
                self.route(ann.node, verb, join_paths(prefix, path), symbol, "micronaut", symbol)

    def retrofit(
        self,
        index: int,
        ann: Ann,
        verb: str,
        path_node: tree_sitter.Node | None,
        owner: int,
        owner_anns: dict[str, Ann],
        symbol: str,
    ) -> None:
        """Retrofit's ``@GET("users/{user}")``: a call relative to the client's base URL (``@Url``: computed)."""
        if not verb:
            return
        base: list[Piece] = [(False, f"client:{self.defs.facts[owner].name}")] if owner >= 0 else []
        if path_node is None:
            self.http_call(ann.node, verb, [(False, "?")], "retrofit")
            return
        path = _literal(self.value(path_node))
        if path is None:
            return
        if "://" in path:
            self.http_call(ann.node, verb, [(True, path)], "retrofit")
        else:
            self.http_call(ann.node, verb, [*base, (True, join_paths("", path))], "retrofit")

    def request_line(self, index: int, ann: Ann, owner: int, owner_anns: dict[str, Ann], symbol: str) -> None:
        """OpenFeign's ``@RequestLine("GET /repos/{owner}")``."""
        line = _literal(self.value(ann.value("value")))
        if not line:
            return
        verb, _, path = line.strip().partition(" ")
        client = self.client_kind(owner, owner_anns) or "feign"
        if client == "feign" and "FeignClient" not in owner_anns:
            base = [(False, f"client:{self.defs.facts[owner].name}")] if owner >= 0 else []
            self.http_call(ann.node, _verb_word(verb), [*base, (True, join_paths("", path.strip()))], "feign")
            return
        self.client_calls(ann, owner, owner_anns, client, [_verb_word(verb)], [path.strip()])

    def jaxrs(
        self,
        index: int,
        verbs: list[Ann],
        path: Ann | None,
        owner: int,
        owner_anns: dict[str, Ann],
        client: str,
        symbol: str,
    ) -> None:
        paths = self.mapping_paths(path, "value")
        if paths is None:
            return
        if client:
            self.client_calls(verbs[0], owner, owner_anns, client, [ann.name for ann in verbs], paths)
            return
        if path is None and "Path" not in owner_anns and not self.uses("javax.ws.rs", "jakarta.ws.rs"):
            return
        prefixes = self.mapping_paths(owner_anns.get("Path"), "value")
        if prefixes is None:
            return
        framework = "micronaut" if self.uses("io.micronaut") else "quarkus" if self.uses("io.quarkus") else "jax-rs"
        for prefix in prefixes:
            for item in paths:
                for ann in verbs:
                    self.route(ann.node, ann.name, join_paths(prefix, item), symbol, framework, symbol)

    def quarkus_route(self, index: int, ann: Ann, owner: int, owner_anns: dict[str, Ann], symbol: str) -> None:
        """Quarkus reactive routes: ``@Route(path = "/x", methods = Route.HttpMethod.GET)`` under ``@RouteBase(path = ...)``."""
        paths = self.strings(ann.values("path", "value"))
        if paths is None:
            return
        paths = paths or ["/" + self.defs.facts[index].name]
        verbs = [_verb_word(self.written(item)) for item in self.items(ann.value("methods"))]
        verbs = [word for word in verbs if word] or ["*"]
        base = owner_anns.get("RouteBase")
        prefixes = self.strings(base.values("path")) if base is not None else [""]
        if prefixes is None:
            return
        for prefix in prefixes or [""]:
            for path in paths:
                for word in verbs:
                    self.route(ann.node, word, join_paths(prefix, path), symbol, "quarkus", symbol)

    # -- listeners -----------------------------------------------------------------------------------

    def type_listeners(self, index: int, anns: list[Ann]) -> None:
        for ann in anns:
            if ann.name in ("KafkaListener", "RabbitListener", "JmsListener", "SqsListener"):
                self.listener(ann, {})

    def listener(self, ann: Ann, owner_anns: dict[str, Ann]) -> None:
        consume = MessageRole.CONSUME
        if ann.name == "KafkaListener":
            topics = ann.values("topics", "value")
            if topics:
                for item in [item for node in topics for item in self.items(node)]:
                    self.message(ann.node, consume, "kafka", self.expanded(item), "topic", "spring-kafka")
            elif ann.value("topicPattern") is not None:
                self.message(ann.node, consume, "kafka", [(False, "?")], "topic", "spring-kafka")
            for partition in [item for node in ann.values("topicPartitions") for item in self.items(node)]:
                nested = self.s.annotation(partition) if self.s.shape(partition)[0] in ("ann", "call") else None
                if nested is not None and nested.value("topic") is not None:
                    self.message(
                        ann.node, consume, "kafka", self.expanded(nested.value("topic")), "topic", "spring-kafka"
                    )
        elif ann.name == "RabbitListener":
            for item in [item for node in ann.values("queues", "value") for item in self.items(node)]:
                self.message(ann.node, consume, "rabbitmq", self.expanded(item), "queue", "spring-amqp")
            for item in [item for node in ann.values("queuesToDeclare") for item in self.items(node)]:
                queue = self.s.annotation(item) if self.s.shape(item)[0] in ("ann", "call") else None
                if queue is not None:
                    self.message(
                        ann.node,
                        consume,
                        "rabbitmq",
                        self.expanded(queue.value("value", "name")),
                        "queue",
                        "spring-amqp",
                    )
            for item in [item for node in ann.values("bindings") for item in self.items(node)]:
                binding = self.s.annotation(item) if self.s.shape(item)[0] in ("ann", "call") else None
                if binding is None:
                    continue
                queue_node, exchange_node = binding.value("value"), binding.value("exchange")
                queue = (
                    self.s.annotation(queue_node)
                    if queue_node is not None and self.s.shape(queue_node)[0] in ("ann", "call")
                    else None
                )
                exchange = (
                    self.s.annotation(exchange_node)
                    if exchange_node is not None and self.s.shape(exchange_node)[0] in ("ann", "call")
                    else None
                )
                if queue is not None and queue.value("value", "name") is not None:
                    self.message(
                        ann.node,
                        consume,
                        "rabbitmq",
                        self.expanded(queue.value("value", "name")),
                        "queue",
                        "spring-amqp",
                    )
                if exchange is not None and exchange.value("value", "name") is not None:
                    self.message(
                        ann.node,
                        consume,
                        "rabbitmq",
                        self.expanded(exchange.value("value", "name")),
                        "exchange",
                        "spring-amqp",
                    )
        elif ann.name == "JmsListener":
            if ann.value("destination") is not None:
                self.message(ann.node, consume, "", self.expanded(ann.value("destination")), "queue", "spring-jms")
        elif ann.name == "SqsListener":
            for item in [item for node in ann.values("value", "queueNames") for item in self.items(node)]:
                self.message(ann.node, consume, "sqs", self.expanded(item), "queue", "spring-cloud-aws", "/")
        elif ann.name == "Topic":
            if self.uses(*_DAPR) or ann.value("pubsubName") is not None:
                if ann.value("name") is not None:
                    self.message(ann.node, consume, "", self.expanded(ann.value("name")), "topic", "dapr")
            elif self.uses("io.micronaut"):
                role = MessageRole.PRODUCE if "KafkaClient" in owner_anns else consume
                for item in [item for node in ann.values("value", "topics") for item in self.items(node)]:
                    self.message(ann.node, role, "kafka", self.expanded(item), "topic", "micronaut-kafka")
        elif ann.name == "StreamListener":
            target = _literal(self.expanded(ann.value("value", "target")))
            if target:
                address = _address(f"config:spring.cloud.stream.bindings.{target}.destination", target)
                self.message(ann.node, consume, "", [(False, address)], "channel", "spring-cloud-stream")
        elif ann.name in ("Incoming", "Outgoing") and self.uses(
            "org.eclipse.microprofile.reactive.messaging", "io.smallrye.reactive.messaging"
        ):
            role = consume if ann.name == "Incoming" else MessageRole.PRODUCE
            self.message(
                ann.node, role, "", self.expanded(ann.value("value")), "channel", "smallrye-reactive-messaging"
            )


#: Calls that nest routes under a path (Spring's ``nest``/``path``, Ktor's ``route``, Javalin's ``path``).
_NESTERS: Final = frozenset({"nest", "andNest", "path", "route", "andRoute"})


class _Nesting:
    """Properly nested byte ranges (the nested parts of nesting calls): the ones around an offset."""

    def __init__(self, ranges: list[tuple[int, int, str, str | None]]) -> None:
        self.ranges = sorted(ranges, key=lambda item: (item[0], -item[1]))
        self.starts = [item[0] for item in self.ranges]
        self.parents: list[int] = []
        stack: list[int] = []
        for index, (start, _, _, _) in enumerate(self.ranges):
            while stack and self.ranges[stack[-1]][1] <= start:
                stack.pop()
            self.parents.append(stack[-1] if stack else -1)
            stack.append(index)

    def around(self, offset: int) -> list[tuple[int, int, str, str | None]] | None:
        """The ranges holding ``offset``, innermost first; None past :data:`_ANCESTORS_MAX` of them."""
        index = bisect.bisect_right(self.starts, offset) - 1
        while index >= 0 and self.ranges[index][1] <= offset:
            index = self.parents[index]
        found = []
        while index >= 0:
            if len(found) == _ANCESTORS_MAX:
                return None
            found.append(self.ranges[index])
            index = self.parents[index]
        return found


def _rules() -> dict[str, tuple]:
    table: dict[str, list] = {}

    def on(handler: object, *names: str) -> None:
        for name in names:
            table.setdefault(name, []).append(handler)

    on(_Engine.rest_template, *_REST_TEMPLATE_VERBS)
    on(_Engine.fluent, "get", "post", "put", "delete", "patch", "head", "options", "method")
    on(_Engine.okhttp, "url")
    on(_jvm_fluent.rest_assured, *_jvm_fluent.REST_ASSURED_NAMES)
    on(_jvm_fluent.mock_mvc, *_jvm_fluent.MOCK_MVC_NAMES)
    on(_jvm_fluent.kiota, *_jvm_fluent.KIOTA_VERBS)
    on(_Engine.proxy_exchange, "uri")
    on(_Engine.java_http, "newBuilder")
    on(_Engine.apache, *_APACHE_REQUESTS)
    on(_Engine.ktor_client, "get", "post", "put", "delete", "patch", "head", "options", "request")
    on(
        _Engine.vertx_client,
        "get",
        "post",
        "put",
        "delete",
        "patch",
        "head",
        "request",
        "getAbs",
        "postAbs",
        "putAbs",
        "deleteAbs",
        "patchAbs",
        "headAbs",
    )
    on(_Engine.dapr_invoke, "invokeMethod")
    on(_Engine.jaxrs_client, "target")
    on(_Engine.functional, "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")
    on(_Engine.ktor_route, "get", "post", "put", "delete", "patch", "head", "options", "route")
    on(_Engine.javalin, "get", "post", "put", "delete", "patch", "head", "options")
    on(_Engine.vertx_router, "get", "post", "put", "delete", "patch", "head", "options", "route")
    on(_Engine.gateway, "path")
    on(_Engine.kafka_send, "send")
    on(_Engine.producer_record, "ProducerRecord")
    on(_Engine.kafka_subscribe, "subscribe")
    on(_Engine.kafka_streams, "stream", "table", "globalTable", "to")
    on(
        _Engine.amqp_send,
        "convertAndSend",
        "send",
        "convertSendAndReceive",
        "sendAndReceive",
        "convertSendAndReceiveAsType",
    )
    on(_Engine.amqp_receive, "receiveAndConvert", "receive", "receiveAndReply")
    on(_Engine.rabbit_client, "basicPublish", "basicConsume")
    on(_Engine.jms, "convertAndSend", "send", "receive", "receiveAndConvert", "receiveSelected")
    on(_Engine.stream_bridge, "send")
    on(
        _Engine.sqs_template,
        "send",
        "sendAsync",
        "receive",
        "receiveAsync",
        "convertAndSend",
        "receiveAndConvert",
        "sendNotification",
    )
    on(_Engine.aws_request, "queueUrl", "topicArn", "withQueueUrl", "withTopicArn")
    on(_Engine.aws_request_new, *_AWS_REQUESTS)
    on(_Engine.aws_client, "sendMessage", "receiveMessage", "sendMessageBatch", "publish")
    on(
        _Engine.redis,
        "convertAndSend",
        "publish",
        "subscribe",
        "addMessageListener",
        "listenToChannel",
        "listenTo",
        "receive",
    )
    on(_Engine.nats, "publish", "subscribe", "request")
    on(_Engine.pubsub, "newBuilder", "publish")
    on(_Engine.dapr_publish, "publishEvent")
    on(_Engine.eventuate_publish, "publish")
    on(_Engine.eventuate_consume, "forAggregateType", "andForAggregateType", "fromChannel", "andFromChannel")
    on(_Engine.eventuate_command, "to")
    on(_Engine.eventuate_endpoint, "withChannel")
    on(_Engine.eventuate_send, "send")
    on(_Engine.eventuate_subscribe, "subscribe")
    on(_Engine.eventuate_repository, "save", "update", "updateWithProvidedCommand")
    on(_Engine.eventuate_saga_replies, "SagaReplyRequestedEventSubscriber")
    on(_Engine.eventuate_tracker, "MessageTracker")
    on(_Engine.eventuate_stub, "forChannel")
    on(_Engine.client_setting, "create", "createClient", "target")
    return {name: tuple(handlers) for name, handlers in table.items()}


#: Method (or created type) name -> the rules that read such a call.
_CALL_RULES: Final = _rules()
