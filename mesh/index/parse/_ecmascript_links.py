"""HTTP routes, HTTP calls, messaging and link constants of JavaScript and TypeScript files.

Theory of operation. :func:`links` runs over one :class:`~._ecmascript._Extraction` (the tree is
parsed once, by the extractor). One compiled query finds the identifier calls (``fetch(...)``),
decorators, top-level declarations and enums; the member calls and ``new`` expressions come from the
extractor's bindings query (:meth:`_Extraction.scan`), whose scopes and bindings every resolver here
reads. Libraries are recognised by what values come from, never by file or variable names:

* :meth:`_Links.kind` traces an expression through bindings, imports, ``require``, member access,
  calls and ``new`` to a *tag*: ``express`` (the module), ``express.app`` (what ``express()``
  returns), ``axios.instance``, ``kafkajs.producer``, ``amqp.channel``... (the tables ``_MODULES``
  and ``_MADE``). A TypeScript type annotation counts as an instance of its type (``private http:
  HttpClient``). A receiver whose origin is out of sight (a parameter) falls back on the library the
  file imports, only for calls whose shape that library alone has (``producer.send({topic,
  messages})``, ``ch.sendToQueue(q)``, a route registration with a path and a handler).
* :meth:`_Links.parts` reads a string expression (a literal, a template, a concatenation, a constant
  or field of the file, ``new URL(path, base)``) into the literal pieces and expressions that
  :func:`~._links.url_parts` takes; :meth:`_Links.address` traces the expression a URL starts with
  to ``env:NAME`` (``process.env``, ``import.meta.env``), ``config:key`` (``configService.get('k')``,
  the ``config`` package), ``const:Owner.NAME`` (a constant imported from another module) or
  ``client:Class`` (a base address given to the class's constructor); a file constructing a client
  class of the workspace with a URL or an environment variable gives the matching ``client:Class``
  setting (``new OrdersProxy({ baseUrl: process.env.ORDERS_URL })``).
* Prefixes given in the file are applied: routers mounted with ``use(prefix, router)``, koa-router's
  ``prefix``, Fastify plugins registered with ``{prefix}``, ``@Controller('orders')``. A router,
  plugin or module imported from another file of the workspace is a mount (``HttpRoute.mount``, the
  import as written), applied by the resolver.
* Next.js routes come from the file's path (``pages/api/orders/[id].ts``, ``app/orders/route.ts``).

Facts are in source order (the position of their anchor, then the order found); every resolver is
depth-limited and memoised, so any tree, however broken, gives facts and never an exception.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

import attrs
import tree_sitter

from .._facts import Constant, HttpCall, HttpRoute, MessageFact, MessageRole, Setting
from . import _common, _kiota, _openapi_clients, _ts
from ._ecmascript import _key_text, _named, _string_value, _this_member, _unwrap
from ._links import HTTP_METHODS, join_paths, route_template, url_parts
from ._tree import safe_captures
from ._config import secret_name

if TYPE_CHECKING:
    from ._ecmascript import _Binding, _Extraction

__all__ = ["Links", "links"]

#: calls of a name (``fetch(url)``, ``axios(config)``); the rest is read from the extractor's bindings
#: query or from the program's top-level statements
_PATTERNS: Final = "(call_expression function: (identifier)) @ident_call"
#: libraries called as functions
_CALLABLE: Final = frozenset({"axios", "got", "ky", "superagent", "request", "undici", "fetch"})
_TOP_KINDS: Final = {
    "lexical_declaration": "lexical", "class_declaration": "class", "abstract_class_declaration": "class",
    "enum_declaration": "enum",
}  # fmt: skip

#: Bytes without any of these (nor an import of a library of ``_MODULES``) hold no link besides Next.js
#: routes and constants: a global client, a registration with a literal path, a messaging call, a
#: NestJS decorator, an address read from the environment or written as a URL.
_HINTS: Final = re.compile(
    rb"fetch\s*\(|\$\.|jQuery\.|XMLHttpRequest|@nestjs|process\.env|import\.meta\.env|\(\s*[\"'`]https?://"
    rb"|\.(?:get|post|put|patch|delete|del|all|head|options|route|use|register)\s*\(\s*['\"`\[{/]"
    rb"|\.(?:send|subscribe|publish|sendToQueue|produce|emit|consume)\s*\("
)
_DEPTH_MAX: Final = 12
_PARTS_MAX: Final = 64
#: at most this many prefixes for one router (one mounted at many paths of many parents)
_PREFIXES_MAX: Final = 16

#: module -> library tag (``import x from 'axios'`` is ``axios``; ``import { Router } from 'express'`` is
#: ``express.Router``)
_MODULES: Final = {
    "express": "express", "fastify": "fastify", "koa-router": "koarouter", "@koa/router": "koarouter",
    "@hapi/hapi": "hapi", "hapi": "hapi", "restify": "restify", "@nestjs/core": "nestcore",
    "axios": "axios", "got": "got", "ky": "ky", "superagent": "superagent", "request": "request",
    "request-promise": "request", "request-promise-native": "request", "node-fetch": "fetch", "cross-fetch": "fetch",
    "isomorphic-fetch": "fetch", "undici": "undici", "http": "nodehttp", "https": "nodehttp",
    "node:http": "nodehttp", "node:https": "nodehttp", "jquery": "jquery",
    "@angular/common/http": "angular", "@angular/core": "angularcore", "@nestjs/axios": "nestaxios",
    "@nestjs/microservices": "nestms", "@nestjs/config": "nestconfig",
    "kafkajs": "kafkajs", "node-rdkafka": "rdkafka", "amqplib": "amqp", "amqplib/callback_api": "amqp",
    "amqp-connection-manager": "amqp", "nats": "nats", "nats.ws": "nats", "@nats-io/transport-node": "nats",
    "ioredis": "redis", "redis": "redis", "@redis/client": "redis",
    "@aws-sdk/client-sqs": "sqs", "@aws-sdk/client-sns": "sns", "aws-sdk": "aws", "aws-sdk/clients/sqs": "sqs",
    "aws-sdk/clients/sns": "sns", "sqs-consumer": "sqsconsumer", "sqs-producer": "sqsproducer",
    "@google-cloud/pubsub": "pubsub", "@dapr/dapr": "dapr", "dapr-client": "dapr", "config": "config",
}  # fmt: skip

#: what calling (or constructing) a tagged value makes
_MADE: Final = {
    "express": "express.app", "express.Router": "express.router", "express.app.Router": "express.router",
    "fastify": "fastify.app", "fastify.fastify": "fastify.app", "fastify.default": "fastify.app",
    "koarouter": "koarouter.router", "koarouter.Router": "koarouter.router", "koarouter.default": "koarouter.router",
    "hapi.server": "hapi.app", "hapi.Server": "hapi.app", "restify.createServer": "restify.app",
    "nestcore.NestFactory.create": "nest.app", "nestcore.NestFactory.createMicroservice": "nest.app",
    "axios.create": "axios.instance", "got.extend": "got.instance", "got.instance.extend": "got.instance",
    "ky.create": "ky.instance", "ky.extend": "ky.instance", "ky.instance.extend": "ky.instance",
    "ky.instance.create": "ky.instance", "superagent.agent": "superagent",
    "angular.HttpClient": "angular.http", "nestaxios.HttpService": "nestaxios.http",
    "nestms.ClientProxy": "nestms.client", "nestms.ClientProxyFactory.create": "nestms.client",
    "nestms.ClientKafka": "nestms.client:kafka", "nestms.ClientRMQ": "nestms.client:rabbitmq",
    "nestms.ClientNats": "nestms.client:nats", "nestms.ClientRedis": "nestms.client:redis",
    "nestconfig.ConfigService": "config.service",
    "kafkajs.Kafka": "kafkajs.client", "kafkajs.client.producer": "kafkajs.producer",
    "kafkajs.client.consumer": "kafkajs.consumer", "kafkajs.producer.transaction": "kafkajs.producer",
    "rdkafka.Producer": "rdkafka.producer", "rdkafka.HighLevelProducer": "rdkafka.producer",
    "rdkafka.KafkaConsumer": "rdkafka.consumer",
    "amqp.connect": "amqp.connection", "amqp.connection.createChannel": "amqp.channel",
    "amqp.connection.createConfirmChannel": "amqp.channel",
    "nats.connect": "nats.conn", "nats.conn.jetstream": "nats.conn",
    "redis": "redis.client", "redis.Redis": "redis.client", "redis.Cluster": "redis.client",
    "redis.createClient": "redis.client", "redis.createCluster": "redis.client",
    "redis.client.duplicate": "redis.client",
    "sqs": "sqs.client", "sqs.SQSClient": "sqs.client", "sqs.SQS": "sqs.client", "aws.SQS": "sqs.client",
    "sns": "sns.client", "sns.SNSClient": "sns.client", "sns.SNS": "sns.client", "aws.SNS": "sns.client",
    "pubsub.PubSub": "pubsub.client", "pubsub.client.topic": "pubsub.topic",
    "pubsub.client.subscription": "pubsub.subscription", "pubsub.topic.subscription": "pubsub.subscription",
    "dapr.DaprClient": "dapr.client", "dapr.DaprServer": "dapr.server",
    "XMLHttpRequest": "xhr",
}  # fmt: skip

#: names that mean a library when nothing in the file binds them (browser and runtime globals)
_GLOBALS: Final = {"fetch": "fetch", "$": "jquery", "jQuery": "jquery", "XMLHttpRequest": "XMLHttpRequest"}
#: receivers whose ``.fetch(...)`` is the global one
_GLOBAL_OBJECTS: Final = frozenset({"window", "globalThis", "self", "global"})

_SERVERS: Final = {
    "express.app": "express", "express.router": "express", "fastify.app": "fastify", "koarouter.router": "koa",
    "hapi.app": "hapi", "restify.app": "restify",
}  # fmt: skip
#: library tag of an import -> the framework of route registrations on receivers of unknown origin
_SERVER_LIBRARIES: Final = {
    "express": "express", "fastify": "fastify", "koarouter": "koa", "hapi": "hapi", "restify": "restify",
}  # fmt: skip
_ROUTE_VERBS: Final = frozenset({"get", "post", "put", "patch", "delete", "del", "head", "options", "all"})
#: receiver names that are routers when their origin is out of sight (``module.exports = (app) => ...``)
_ROUTER_NAME: Final = re.compile(
    r"(?:^|_|[a-z])(?:app|App|router|Router|server|Server|api|Api|routes|Routes)$|^(?:r|fastify)$"
)
#: an argument of ``use`` without a path that is a router of another module (not a middleware)
_ROUTER_ARGUMENT: Final = re.compile(r"(?i)rout|api|controller|endpoint")
#: what the last argument of a route registration can be: a function, a name, a member, a wrapper call
_HANDLER_TYPES: Final = frozenset(
    {"arrow_function", "function_expression", "function", "identifier", "member_expression", "call_expression", "array"}
)
#: keys of a constructor's options that give a client its base address
_BASE_KEY: Final = re.compile(r"(?i)url$|uri$|^host|endpoint|address|^base")
_HAPI_CATCH_ALL: Final = re.compile(r"\{(\w+)\*\d*\}")
_REQUEST_PARAMETERS: Final = frozenset({"req", "request", "_req", "_request", "ctx", "context", "_ctx", "c"})

_CLIENTS: Final = {
    "fetch": "fetch", "undici": "undici", "axios": "axios", "axios.instance": "axios", "got": "got",
    "got.instance": "got", "ky": "ky", "ky.instance": "ky", "superagent": "superagent", "request": "request",
    "nodehttp": "http", "angular.http": "HttpClient", "nestaxios.http": "HttpService", "jquery": "jquery",
    "xhr": "XMLHttpRequest",
}  # fmt: skip
_CLIENT_VERBS: Final = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})

_NEST_VERBS: Final = {
    "Get": "GET", "Post": "POST", "Put": "PUT", "Patch": "PATCH", "Delete": "DELETE", "Head": "HEAD",
    "Options": "OPTIONS", "All": "*",
}  # fmt: skip
_NEST_TRANSPORTS: Final = {"KAFKA": "kafka", "RMQ": "rabbitmq", "NATS": "nats", "REDIS": "redis", "MQTT": "", "TCP": ""}

#: library -> (broker, client) of its messaging facts
_BROKERS: Final = {
    "kafkajs": ("kafka", "kafkajs"), "rdkafka": ("kafka", "node-rdkafka"), "amqp": ("rabbitmq", "amqplib"),
    "nats": ("nats", "nats"), "redis": ("redis", "redis"), "sqs": ("sqs", "aws-sdk"), "sns": ("sns", "aws-sdk"),
    "pubsub": ("pubsub", "@google-cloud/pubsub"), "dapr": ("eventbus", "dapr"), "nestms": ("", "nestjs"),
    "sqsconsumer": ("sqs", "sqs-consumer"), "sqsproducer": ("sqs", "sqs-producer"),
}  # fmt: skip
#: messaging calls on a receiver of unknown origin, when the file imports the library: method -> library
_MESSAGING_FALLBACK: Final = {
    "sendToQueue": "amqp", "bindQueue": "amqp", "publish": "", "consume": "amqp", "subscribe": "", "produce": "rdkafka",
    "psubscribe": "redis",
}  # fmt: skip

#: the only methods whose calls can be links (a filter before any resolution)
_METHODS: Final = (
    _ROUTE_VERBS
    | _CLIENT_VERBS
    | {"route", "fetch", "open", "ajax", "getJSON", "request", "send", "sendBatch", "subscribe", "produce", "publish",
       "sendToQueue", "consume", "bindQueue", "spublish", "psubscribe", "ssubscribe", "pSubscribe", "sSubscribe",
       "createReadStream", "createWriteStream", "sendMessage", "sendMessageBatch", "receiveMessage", "publishBatch",
       "publishMessage", "publishJSON", "on", "create", "emit", "setGlobalPrefix"}
)  # fmt: skip
_LINK_WORDS: Final = frozenset(
    {"topic", "queue", "channel", "exchange", "subject", "stream", "event", "destination", "route", "path", "url",
     "uri", "endpoint", "address", "host"}
)  # fmt: skip
_SECRET_WORDS: Final = frozenset(
    {"key", "token", "secret", "password", "passwd", "pwd", "credential", "apikey", "privatekey"}
)  # fmt: skip
_SECRET_VALUE: Final = re.compile(
    r"://[^/@\s]+:[^/@\s]*@|^eyJ|^AKIA|^sk_|-----BEGIN|^(?=[A-Za-z0-9+/_=-]{32,}$)(?=.*\d)(?=.*[A-Za-z])"
)
_WORDS: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_SCHEME: Final = re.compile(r"^[a-zA-Z][\w+.-]*://")
_HOST_PORT: Final = re.compile(r"^[\w.-]+:\d+(?:/|$)")
_MODULE_LOCAL: Final = re.compile(r"^(?:\.|/|@/|~/|#)")


@attrs.frozen
class Links:
    """The link facts of one file, each tuple in source order."""

    routes: tuple[HttpRoute, ...] = ()
    calls: tuple[HttpCall, ...] = ()
    messages: tuple[MessageFact, ...] = ()
    constants: tuple[Constant, ...] = ()
    settings: tuple[Setting, ...] = ()


def links(extraction: _Extraction, path: str = "") -> Links:
    """Every HTTP route, HTTP call, message and link constant of the file ``extraction`` parsed (at
    workspace path ``path``)."""
    return _Links(extraction, path).run()


#: a piece of a string expression: (literal?, text, the expression's node when not literal)
_Part = tuple[bool, str, "tree_sitter.Node | None"]
#: a tagged value: (tag, the node it was made from: a config object, a topic name...)
_Tag = tuple[str, "tree_sitter.Node | None"]


@attrs.define
class _Links:
    x: _Extraction
    path: str
    found: list[tuple[int, int, object]] = attrs.field(factory=list)
    tags: dict[int, _Tag | None] = attrs.field(factory=dict)
    #: holder name (an object constant, an enum, a class of static fields) -> key -> value node
    holders: dict[str, dict[str, tree_sitter.Node]] = attrs.field(factory=dict)
    #: libraries the file imports (tags of ``_MODULES``)
    libraries: set[str] = attrs.field(factory=set)
    #: router identity -> (the parent's receiver node, the prefix it is mounted at)
    mounts: dict[int, list[tuple[tree_sitter.Node, str]]] = attrs.field(factory=dict)
    #: router identity -> its own prefix (koa-router's ``prefix``)
    own_prefix: dict[int, str] = attrs.field(factory=dict)
    #: function node id of a Fastify plugin -> [(the receiver it is registered on, prefix)]
    plugins: dict[int, list[tuple[tree_sitter.Node, str]]] = attrs.field(factory=dict)
    settings: list[tuple[int, int, Setting]] = attrs.field(factory=list)
    names: dict[str, frozenset[str]] = attrs.field(factory=dict)
    #: mounts of routers from other modules, emitted once every prefix of the file is known
    pending: list[tuple[tree_sitter.Node, tree_sitter.Node, str, str, str, tree_sitter.Node]] = attrs.field(
        factory=list
    )

    # -- driver ----------------------------------------------------------------------------------

    def run(self) -> Links:
        x = self.x
        top: dict[str, list[tree_sitter.Node]] = {}
        for statement in x.root.named_children:
            if statement.type == "export_statement":
                top.setdefault("export", []).append(statement)
                statement = statement.child_by_field_name("declaration") or statement
            if statement.type in _TOP_KINDS:
                top.setdefault(_TOP_KINDS[statement.type], []).append(statement)
        self.libraries = {_MODULES[i.module] for i in x.imports if i.module in _MODULES}
        constants = self._constants(top)
        self._next_routes(top)
        if _kiota.ecmascript_wanted(x.imports):
            _kiota.ecmascript_calls(self, x.scan().get("member_call", ()))
        if self.libraries or _HINTS.search(x.source):
            scan = x.scan()
            member_calls = scan.get("member_call", ())
            for call in member_calls:
                self._prefixes(call)
            for mount in self.pending:
                self._mount(*mount)
            for call in member_calls:
                self._member_call(call)
            if b"fetch" in x.source or self.libraries & _CALLABLE:
                for call in safe_captures(_common.query(x.grammar, _PATTERNS), x.root).get("ident_call", ()):
                    self._identifier_call(call)
            for node in scan.get("new", ()):
                self._new(node)
                self._registration(node)
            if self._imports_nest():
                for klass in top.get("class", ()):
                    for node in _member_decorators(klass):
                        self._decorator(node)
        if _openapi_clients.ecmascript_wanted(x.imports):  # after the settings of _registration
            _openapi_clients.ecmascript_calls(self)
        self.found.sort(key=lambda item: (item[0], item[1]))
        routes = tuple(fact for _, _, fact in self.found if isinstance(fact, HttpRoute))
        calls = tuple(fact for _, _, fact in self.found if isinstance(fact, HttpCall))
        messages = tuple(fact for _, _, fact in self.found if isinstance(fact, MessageFact))
        self.settings.sort(key=lambda item: (item[0], item[1]))
        return Links(routes, calls, messages, constants, tuple(setting for _, _, setting in self.settings))

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.x.source)

    def symbol(self, position: int) -> str:
        index = self.x.def_ranges.innermost(position, position + 1)
        return self.x.paths[index] if index >= 0 else ""

    def defined(self, kind: str) -> frozenset[str]:
        """The names of the definitions of ``kind`` the file has (classes, functions)."""
        names = self.names.get(kind)
        if names is None:
            names = self.names[kind] = frozenset(d.name for d in self.x.definitions if d.kind == kind)
        return names

    def add(self, position: int, fact: object) -> None:
        self.found.append((position, len(self.found), fact))

    # -- what values are ---------------------------------------------------------------------------

    def kind(self, node: tree_sitter.Node | None, depth: int = 0) -> _Tag | None:
        """The tag of what ``node`` evaluates to (see the module docstring), None when unknown."""
        node = _unwrap(node)
        if node is None or depth > _DEPTH_MAX:
            return None
        if node.id in self.tags:
            return self.tags[node.id]
        self.tags[node.id] = None
        tag = self.tags[node.id] = self._kind_of(node, depth)
        return tag

    def _kind_of(self, node: tree_sitter.Node, depth: int) -> _Tag | None:
        kind = node.type
        if kind == "identifier":
            name = self.text(node)
            bindings = self.x._lookup(node, name)  # noqa: SLF001 - the extractor's own resolver
            if not bindings:
                tag = _GLOBALS.get(name)
                if tag and (name in self.defined("function") or name in self.defined("class")):
                    return None  # the file defines its own
                return (tag, None) if tag else None
            return self._bound(bindings, node, depth)
        if _this_member(node):
            return self._bound(self.x._field(node), node, depth)  # noqa: SLF001
        if kind == "member_expression":
            obj = node.child_by_field_name("object")
            base = self.kind(obj, depth + 1)
            prop = self.text(node.child_by_field_name("property"))
            if base is None:
                obj = _unwrap(obj)
                if obj is not None and obj.type == "identifier" and self.text(obj) in _GLOBAL_OBJECTS:
                    tag = _GLOBALS.get(prop)
                    return (tag, None) if tag else None
                return None
            return f"{base[0]}.{prop}", base[1]
        if kind == "call_expression":
            function = _unwrap(node.child_by_field_name("function"))
            arguments = node.child_by_field_name("arguments")
            if function is None:
                return None
            if function.type == "import" or (function.type == "identifier" and self.text(function) == "require"):
                module = _string_value(_named(arguments, 0), self.x.source)
                tag = _MODULES.get(module or "")
                return (tag, None) if tag else None
            if function.type == "identifier" and self.text(function) == "inject":  # Angular's inject(HttpClient)
                made = self.kind(_named(arguments, 0), depth + 1)
                return self._made(made, node)
            return self._made(self.kind(function, depth + 1), node)
        if kind == "new_expression":
            return self._made(self.kind(node.child_by_field_name("constructor"), depth + 1), node)
        return None

    def _made(self, tag: _Tag | None, node: tree_sitter.Node) -> _Tag | None:
        if tag is None:
            return None
        made = _MADE.get(tag[0])
        if made is None:
            return None
        if made.startswith("pubsub.") or made.endswith(".instance") or made in ("nestms.client", "nest.app"):
            return made, node  # the call names the topic, or holds the base address or the transport
        return made, tag[1]

    def _bound(self, bindings: list[_Binding], at: tree_sitter.Node, depth: int) -> _Tag | None:
        for binding in bindings:
            if binding.module is not None:
                lib = _MODULES.get(binding.module)
                if lib is not None:
                    return (lib, None) if binding.key in ("default", "*", "") else (f"{lib}.{binding.key}", None)
            elif binding.key:
                base = self.kind(binding.value, depth + 1)
                if base is not None:
                    return f"{base[0]}.{binding.key}", base[1]
            else:
                tag = self.kind(binding.value, depth + 1) if binding.value is not None else None
                if tag is None and binding.type is not None:
                    tag = self._typed(binding.type, at, depth + 1)
                if tag is not None:
                    return tag
        return None

    def _typed(self, node: tree_sitter.Node | None, at: tree_sitter.Node, depth: int) -> _Tag | None:
        """The instance a TypeScript type annotation declares (``http: HttpClient``)."""
        for _ in range(4):
            if node is None or node.type not in ("type_annotation", "generic_type"):
                break
            node = node.child_by_field_name("name") if node.type == "generic_type" else _named(node, 0)
        if node is None or depth > _DEPTH_MAX:
            return None
        base: _Tag | None = None
        if node.type == "type_identifier":
            bindings = [b for b in self.x._lookup(at, self.text(node)) if b.module is not None]  # noqa: SLF001
            if not bindings:
                return None
            lib = _MODULES.get(bindings[0].module or "")
            key = bindings[0].key
            if lib is not None:
                base = (lib, None) if key in ("default", "*", "") else (f"{lib}.{key}", None)
        elif node.type == "nested_type_identifier":
            module = node.child_by_field_name("module")
            name = self.text(node.child_by_field_name("name"))
            if module is not None and module.type == "identifier":
                outer = self.kind(module, depth + 1)
                base = (f"{outer[0]}.{name}", None) if outer is not None else None
        if base is None:
            return None
        made = _MADE.get(base[0])
        return (made, None) if made else None

    # -- strings and addresses -----------------------------------------------------------------------

    def parts(self, node: tree_sitter.Node | None, depth: int = 0) -> list[_Part]:
        """The literal pieces and expressions of a string expression, constants of the file inlined."""
        node = _unwrap(node)
        if node is None:
            return []
        if depth > _DEPTH_MAX:
            return [(False, self.text(node), node)]
        kind = node.type
        if kind == "string":
            return [(True, _ts.text(node, self.x.source)[1:-1], None)]
        if kind == "template_string":
            out: list[_Part] = []
            cursor = node.start_byte + 1
            for child in node.named_children:
                if child.type != "template_substitution":
                    continue
                out.append((True, self.x.source[cursor : child.start_byte].decode("utf-8", "replace"), None))
                out.extend(self.parts(_named(child, 0), depth + 1))
                cursor = child.end_byte
            out.append((True, self.x.source[cursor : max(cursor, node.end_byte - 1)].decode("utf-8", "replace"), None))
            return out[:_PARTS_MAX]
        if kind == "binary_expression" and self.text(node.child_by_field_name("operator")) == "+":
            left = self.parts(node.child_by_field_name("left"), depth + 1)
            return (left + self.parts(node.child_by_field_name("right"), depth + 1))[:_PARTS_MAX]
        if kind == "new_expression" and self.text(node.child_by_field_name("constructor")) == "URL":
            arguments = node.child_by_field_name("arguments")
            relative = self.parts(_named(arguments, 0), depth + 1)
            base = _named(arguments, 1)
            if base is not None and relative and relative[0][0] and not _SCHEME.match(relative[0][1]):
                return self.parts(base, depth + 1) + relative
            return relative
        value = self._string_binding(node, depth)
        if value is not None:
            return self.parts(value, depth + 1)
        return [(False, self.text(node), node)]

    def _string_binding(self, node: tree_sitter.Node, depth: int) -> tree_sitter.Node | None:
        """The one string-like value a name, field or holder member is bound to in this file."""
        values = self._values(node, depth)
        strings = [v for v in values if _stringish(v)]
        if len(strings) == 1 and len(values) == 1:
            return strings[0]
        return None

    def _values(self, node: tree_sitter.Node, depth: int) -> list[tree_sitter.Node]:
        """The values bound to a name, a ``this`` field or a member of a holder of the file."""
        bindings: list[_Binding] = []
        if node.type == "identifier":
            bindings = self.x._lookup(node, self.text(node))  # noqa: SLF001
        elif _this_member(node):
            bindings = self.x._field(node)  # noqa: SLF001
        elif node.type == "member_expression":
            member = self._member(node, depth)
            return [member] if member is not None else []
        values = []
        for binding in bindings:
            if binding.module is not None or binding.key:
                return []
            value = _unwrap(binding.value)
            if value is None:
                return []
            values.append(value)
        return values

    def _member(self, node: tree_sitter.Node, depth: int) -> tree_sitter.Node | None:
        """The value of ``Holder.key`` (``TOPICS.orders``, an enum member, a static field) of this file."""
        obj = _unwrap(node.child_by_field_name("object"))
        key = self.text(node.child_by_field_name("property"))
        if obj is None or depth > _DEPTH_MAX:
            return None
        if obj.type == "identifier":
            name = self.text(obj)
            bindings = self.x._lookup(obj, name)  # noqa: SLF001
            if bindings:
                values = [_unwrap(b.value) for b in bindings if not b.key and b.module is None]
                if len(values) == 1 and values[0] is not None and values[0].type == "object":
                    return _property(values[0], key, self.x.source)
                if len(values) == 1 and values[0] is not None and values[0].type == "identifier":
                    return None
            holder = self.holders.get(name)
            return holder.get(key) if holder is not None else None
        if obj.type == "member_expression":
            inner = self._member(obj, depth + 1)
            if inner is not None and inner.type == "object":
                return _property(inner, key, self.x.source)
        return None

    def address(self, node: tree_sitter.Node | None, depth: int = 0) -> tuple[str, list[_Part]]:
        """Where the value of ``node`` comes from (``env:NAME``, ``config:key``, ``const:Owner.NAME``;
        "" when unknown) and the parts of the default written beside it (``process.env.X || 'http://a'``)."""
        node = _unwrap(node)
        if node is None or depth > _DEPTH_MAX:
            return "", []
        kind = node.type
        env = self._env(node)
        if env:
            return "env:" + env, []
        if kind == "binary_expression" and self.text(node.child_by_field_name("operator")) in ("||", "??"):
            address, _ = self.address(node.child_by_field_name("left"), depth + 1)
            default = self.parts(node.child_by_field_name("right"), depth + 1)
            if not address:
                return self.address(node.child_by_field_name("right"), depth + 1)
            return address, default if all(literal for literal, _, _ in default) else []
        if kind == "call_expression":
            return self._config_call(node, depth), []
        if kind in ("identifier", "member_expression"):
            imported = self._imported_constant(node)
            if imported:
                return imported, []
            config = self._config_member(node, depth)
            if config:
                return config, []
            values = self._values(node, depth)
            if len(values) == 1:
                return self.address(values[0], depth + 1)
            given = self._constructor_given(node)
            if given:
                return "client:" + given, []
        return "", []

    def _constructor_given(self, node: tree_sitter.Node) -> str:
        """The class whose constructor is given ``node``'s value (``options.baseUrl`` or ``baseUrl`` read
        in the constructor, ``this.baseUrl`` of a constructor parameter): its callers register the base
        address (see :meth:`_registrations`)."""
        root = node
        while root.type == "member_expression" and not _this_member(root):
            root = _unwrap(root.child_by_field_name("object")) or root
            if root.type not in ("member_expression", "identifier", "this"):
                return ""
        klass = self.x.classes.innermost(node.start_byte, node.end_byte) if self.x.classes.nodes else -1
        if klass < 0:
            return ""
        class_node = self.x.classes.nodes[klass]
        name = self.text(class_node.child_by_field_name("name"))
        body = class_node.child_by_field_name("body")
        constructor = next(
            (m for m in (body.named_children if body is not None else ()) if m.type == "method_definition"
             and self.text(m.child_by_field_name("name")) == "constructor"),
            None,
        )  # fmt: skip
        if not name or constructor is None:
            return ""
        parameters = constructor.child_by_field_name("parameters")
        names = set()
        for parameter in parameters.named_children if parameters is not None else ():
            pattern = parameter.child_by_field_name("pattern") if parameter.type.endswith("_parameter") else parameter
            if pattern is not None and pattern.type == "assignment_pattern":
                pattern = pattern.child_by_field_name("left")
            names.add(self.text(pattern))
        if _this_member(root):  # a parameter property, or a field the constructor sets from parameters
            field = self.text(root.child_by_field_name("property"))
            valued = [_unwrap(b.value) for b in self.x._field(root) if b.value is not None]  # noqa: SLF001
            given = all(
                value is not None
                and value.type == "identifier"
                and self.text(value) in names
                and constructor.start_byte <= value.start_byte < constructor.end_byte
                for value in valued
            )
            return name if given and (valued or field in names) else ""
        inside = constructor.start_byte <= node.start_byte < constructor.end_byte
        return name if root.type == "identifier" and inside and self.text(root) in names else ""

    def _env(self, node: tree_sitter.Node) -> str:
        """``NAME`` of ``process.env.NAME``, ``process.env['NAME']`` or ``import.meta.env.NAME``."""
        if node.type == "member_expression":
            obj = self.text(node.child_by_field_name("object")).replace(" ", "")
            prop = node.child_by_field_name("property")
            if obj in ("process.env", "import.meta.env", "Deno.env") and prop is not None:
                return self.text(prop)
        elif node.type == "subscript_expression":
            obj = self.text(node.child_by_field_name("object")).replace(" ", "")
            if obj in ("process.env", "import.meta.env"):
                return _string_value(_unwrap(node.child_by_field_name("index")), self.x.source) or ""
        elif node.type == "call_expression":  # Deno.env.get('X')
            function = self.text(node.child_by_field_name("function")).replace(" ", "")
            if function == "Deno.env.get":
                return _string_value(_named(node.child_by_field_name("arguments"), 0), self.x.source) or ""
        return ""

    def _config_call(self, node: tree_sitter.Node, depth: int) -> str:
        """``config:key`` of ``configService.get('key')``, ``config.get('key')`` (a ``config`` package or a
        ``ConfigService``), "" otherwise."""
        function = _unwrap(node.child_by_field_name("function"))
        if function is None or function.type != "member_expression":
            return ""
        if self.text(function.child_by_field_name("property")) not in ("get", "getOrThrow", "getString"):
            return ""
        receiver = function.child_by_field_name("object")
        tag = self.kind(receiver, depth + 1)
        named = "config" in self.text(receiver).lower() or "settings" in self.text(receiver).lower()
        if (tag is not None and tag[0] in ("config", "config.service")) or (tag is None and named):
            key = _string_value(_unwrap(_named(node.child_by_field_name("arguments"), 0)), self.x.source)
            return "config:" + key if key else ""
        return ""

    def _config_member(self, node: tree_sitter.Node, depth: int) -> str:
        """``config:a.b`` of ``config.a.b`` when ``config`` comes from the ``config`` package."""
        chain = _chain(node, self.x.source)
        if len(chain) < 2:
            return ""
        root = node
        while root.type == "member_expression":
            root = _unwrap(root.child_by_field_name("object")) or root
            if root.type != "member_expression":
                break
        tag = self.kind(root, depth + 1) if root.type == "identifier" else None
        return "config:" + ".".join(chain[1:]) if tag is not None and tag[0] == "config" else ""

    def _imported_constant(self, node: tree_sitter.Node) -> str:
        """``const:NAME`` / ``const:Owner.NAME`` when ``node`` names a constant imported from a module of
        the workspace (a relative or aliased import)."""
        chain = _chain(node, self.x.source)
        if not chain or len(chain) > 3:
            return ""
        root = node
        while root.type == "member_expression":
            root = _unwrap(root.child_by_field_name("object")) or root
        if root.type != "identifier":
            return ""
        for binding in self.x._lookup(root, chain[0]):  # noqa: SLF001
            module = binding.module
            if module is None and binding.key:  # const { ORDERS_TOPIC } = require('./topics')
                module, _ = self._required(binding.value)
            if module is not None and _MODULE_LOCAL.match(module):
                owner = chain[0] if binding.key in ("default", "*", "") else binding.key
                if binding.key in ("default", "*") and len(chain) == 1:
                    return ""
                return "const:" + ".".join([owner, *chain[1:]])
        return ""

    def _required(self, node: tree_sitter.Node | None) -> tuple[str | None, None]:
        """The module of a ``require('m')`` or ``import('m')`` call (None for anything else)."""
        node = _unwrap(node)
        if node is None or node.type != "call_expression":
            return None, None
        function = node.child_by_field_name("function")
        if function is None or not (function.type == "import" or self.text(function) == "require"):
            return None, None
        return _string_value(_named(node.child_by_field_name("arguments"), 0), self.x.source), None

    def name(self, node: tree_sitter.Node | None) -> tuple[str, str, bool]:
        """(name, address, computed) of a topic, queue, channel or subject expression."""
        node = _unwrap(node)
        if node is None:
            return "", "", True
        parts = self.parts(node)
        if parts and all(literal for literal, _, _ in parts):
            return "".join(text for _, text, _ in parts), "", False
        if len(parts) == 1:
            address, default = self.address(parts[0][2])
            if address:
                return "".join(text for _, text, _ in default), address, False
        return "", "", True

    # -- routes ---------------------------------------------------------------------------------

    def _prefixes(self, call: tree_sitter.Node) -> None:
        """Note the mounts and prefixes a call gives routers of the file (``use``, ``register``, ``prefix``)."""
        function = call.child_by_field_name("function")
        method = self.text(function.child_by_field_name("property"))
        if method not in ("use", "register", "prefix"):
            return
        receiver = function.child_by_field_name("object")
        tag = self.kind(receiver)
        framework = _SERVERS.get(tag[0]) if tag is not None else self._server_library(receiver)
        if framework is None:
            return
        arguments = [a for a in _arguments(call) if a.type != "comment"]
        if method == "prefix":
            prefix = _string_value(_unwrap(_named(call.child_by_field_name("arguments"), 0)), self.x.source)
            identity = self._identity(receiver)
            if prefix is not None and identity is not None:
                self.own_prefix[identity.id] = prefix
            return
        if method == "register":
            self._register(call, receiver, framework, arguments)
            return
        prefix = ""
        if arguments and _string_value(_unwrap(arguments[0]), self.x.source) is not None:
            prefix = _string_value(_unwrap(arguments[0]), self.x.source) or ""
            arguments = arguments[1:]
        elif arguments and _unwrap(arguments[0]) is not None and _unwrap(arguments[0]).type == "array":
            return
        for argument in arguments:
            router = _unwrap(argument)
            if router is None:
                continue
            if router.type == "call_expression":  # koa: parent.use(child.routes())
                function = _unwrap(router.child_by_field_name("function"))
                member = function is not None and function.type == "member_expression"
                if member and self.text(function.child_by_field_name("property")) in ("routes", "middleware"):
                    router = _unwrap(function.child_by_field_name("object")) or router
            tag = self.kind(router)
            if tag is not None and tag[0] in _SERVERS:
                identity = self._identity(router)
                if identity is not None:
                    self.mounts.setdefault(identity.id, []).append((receiver, prefix))
                continue
            if argument is not arguments[-1]:
                continue  # a middleware before the router: use('/api', authenticate, api)
            module = self._module_of(router)
            if module and (prefix or _ROUTER_ARGUMENT.search(self.text(argument))):
                self.pending.append((call, receiver, framework, prefix, module, argument))

    def _register(
        self, call: tree_sitter.Node, receiver: tree_sitter.Node, framework: str, arguments: list[tree_sitter.Node]
    ) -> None:
        """Fastify ``register(plugin, {prefix})``, Hapi ``register({plugin, routes: {prefix}}, ...)``."""
        if not arguments:
            return
        plugin = _unwrap(arguments[0])
        options = _unwrap(arguments[1]) if len(arguments) > 1 else None
        prefix_node = _property(options, "prefix", self.x.source) if options is not None else None
        if plugin is not None and plugin.type == "object":  # hapi: { plugin, options, routes: { prefix } }
            routes = _property(plugin, "routes", self.x.source)
            prefix_node = _property(routes, "prefix", self.x.source) if routes is not None else prefix_node
            plugin = _unwrap(_property(plugin, "plugin", self.x.source))
        elif options is not None and prefix_node is None:
            routes = _property(options, "routes", self.x.source)
            prefix_node = _property(routes, "prefix", self.x.source) if routes is not None else None
        prefix = _string_value(_unwrap(prefix_node), self.x.source) or ""
        if plugin is None:
            return
        function = self._local_function(plugin)
        if function is not None:
            self.plugins.setdefault(function.id, []).append((receiver, prefix))
            return
        module = self._module_of(plugin)
        if module:
            self.pending.append((call, receiver, framework, prefix, module, arguments[0]))

    def _mount(
        self,
        call: tree_sitter.Node,
        receiver: tree_sitter.Node,
        framework: str,
        prefix: str,
        module: str,
        argument: tree_sitter.Node,
    ) -> None:
        anchor = call.child_by_field_name("function").child_by_field_name("property")
        for parent in self._route_prefixes(receiver, 0):
            path = route_template(join_paths(parent, prefix))
            handler = self.text(argument) if _unwrap(argument).type in ("identifier", "member_expression") else ""
            fact = HttpRoute("*", path, _ts.line(anchor), handler, self.symbol(anchor.start_byte), framework, module)
            self.add(anchor.start_byte, fact)

    def _module_of(self, node: tree_sitter.Node | None, depth: int = 0) -> str:
        """The module (of the workspace: relative or aliased) a router or plugin expression comes from."""
        node = _unwrap(node)
        if depth > _DEPTH_MAX:
            return ""
        for _ in range(4):
            if node is None:
                return ""
            if node.type == "member_expression":
                node = _unwrap(node.child_by_field_name("object"))
            elif node.type == "call_expression":
                function = _unwrap(node.child_by_field_name("function"))
                if function is not None and (
                    function.type == "import" or (function.type == "identifier" and self.text(function) == "require")
                ):
                    module = _string_value(_named(node.child_by_field_name("arguments"), 0), self.x.source) or ""
                    return module if _MODULE_LOCAL.match(module) else ""
                node = function
            elif node.type == "await_expression":
                node = _named(node, 0)
            else:
                break
        if node is None or node.type != "identifier":
            return ""
        for binding in self.x._lookup(node, self.text(node)):  # noqa: SLF001
            if binding.module is not None:
                return binding.module if _MODULE_LOCAL.match(binding.module) else ""
            if binding.value is not None:
                return self._module_of(binding.value, depth + 1)
        return ""

    def _local_function(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The function a plugin expression names, when this file defines it."""
        if node.type in ("arrow_function", "function_expression", "function"):
            return node
        if node.type != "identifier":
            return None
        name = self.text(node)
        for binding in self.x._lookup(node, name):  # noqa: SLF001
            value = _unwrap(binding.value)
            if value is not None and value.type in ("arrow_function", "function_expression", "function"):
                return value
        for index, definition in enumerate(self.x.definitions):
            if definition.name == name and definition.kind == "function" and not definition.container:
                found = self.x.def_ranges.nodes[index]
                return found if found.type in ("function_declaration", "generator_function_declaration") else None
        return None

    def _identity(self, node: tree_sitter.Node | None) -> tree_sitter.Node | None:
        """What identifies a router across the file: the node of the value it is bound to (``express.Router()``),
        or the plugin function whose first parameter it is."""
        node = _unwrap(node)
        for _ in range(_DEPTH_MAX):
            if node is None:
                return None
            if node.type in ("call_expression", "new_expression"):
                return node
            if node.type != "identifier" and not _this_member(node):
                return None
            if node.type == "identifier":
                bindings = self.x._lookup(node, self.text(node))  # noqa: SLF001
            else:
                bindings = self.x._field(node)  # noqa: SLF001
            values = [b.value for b in bindings if b.value is not None and not b.key and b.module is None]
            if not values:
                return self._plugin_of(node)
            node = _unwrap(values[0])
        return None

    def _plugin_of(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The enclosing function whose first parameter ``node`` names (a Fastify plugin's instance)."""
        if node.type != "identifier":
            return None
        name = self.text(node)
        scopes = self.x.scopes
        for index in scopes.chain(scopes.innermost(node.start_byte, node.end_byte)):
            function = scopes.nodes[index]
            parameters = function.child_by_field_name("parameters")
            first = _named(parameters, 0) if parameters is not None else function.child_by_field_name("parameter")
            if first is not None and first.type in ("required_parameter", "optional_parameter"):
                first = first.child_by_field_name("pattern")
            if first is not None and self.text(first) == name:
                return function
        return None

    def _route_prefixes(self, receiver: tree_sitter.Node | None, depth: int) -> list[str]:
        """Every prefix the routes registered on ``receiver`` are served under, as this file says."""
        identity = self._identity(receiver)
        if identity is None or depth > 6:
            return [""]
        own = self.own_prefix.get(identity.id, "")
        if not own and identity.type == "new_expression":  # koa-router: new Router({ prefix: '/users' })
            options = self._object(_named(identity.child_by_field_name("arguments"), 0))
            own = _string_value(_unwrap(_property(options, "prefix", self.x.source)), self.x.source) or ""
        parents = self.mounts.get(identity.id, []) + self.plugins.get(identity.id, [])
        if not parents:
            return [own]
        out = []
        for parent, prefix in parents:
            for outer in self._route_prefixes(parent, depth + 1):
                joined = join_paths(join_paths(outer, prefix), own)
                if joined not in out and len(out) < _PREFIXES_MAX:
                    out.append(joined)
        return out

    def _server_library(self, receiver: tree_sitter.Node | None) -> str | None:
        """The framework of a receiver of unknown origin: the server library the file imports, if one."""
        receiver = _unwrap(receiver)
        if receiver is None or not self._unknown_origin(receiver):
            return None
        for lib, framework in _SERVER_LIBRARIES.items():
            if lib in self.libraries:
                return framework
        return None

    def _member_call(self, call: tree_sitter.Node) -> None:
        function = call.child_by_field_name("function")
        prop = function.child_by_field_name("property")
        method = self.text(prop)
        if method not in _METHODS:
            return
        receiver = function.child_by_field_name("object")
        tag = self.kind(receiver)
        if tag is None and method == "fetch" and self.text(receiver) in _GLOBAL_OBJECTS:
            tag = ("fetch", None)
        if tag is None:
            self._unknown_receiver(call, receiver, prop, method)
            return
        name = tag[0]
        if name in _SERVERS:
            self._route_call(call, receiver, prop, method, _SERVERS[name])
        elif name in _CLIENTS:
            self._client_call(call, tag, prop, method)
        elif name.startswith(("nestms.client", "nest.app")):
            self._nest_client(call, tag, prop, method)
        else:
            self._messaging_call(call, tag, prop, method)

    def _unknown_receiver(
        self, call: tree_sitter.Node, receiver: tree_sitter.Node, prop: tree_sitter.Node, method: str
    ) -> None:
        if method in _ROUTE_VERBS or method == "route":
            framework = self._server_library(receiver)
            if framework is None and self._looks_like_route(call, receiver):
                framework = self._guess_framework(call, receiver)
            if framework is not None:
                self._route_call(call, receiver, prop, method, framework, strict=True)
                return
        unwrapped = _unwrap(receiver)
        if unwrapped is not None and unwrapped.type == "call_expression":
            self._route_chain(call, unwrapped, prop, method)
            return
        self._messaging_fallback(call, prop, method)

    def _unknown_origin(self, receiver: tree_sitter.Node) -> bool:
        """Whether a receiver comes from out of sight: a parameter, a global, a field no code of the file
        sets. A name imported, required or bound to any value is something else than a router, since
        routers the file makes are recognised (an imported client's ``api.get('/users', {...})``)."""
        if receiver.type == "identifier":
            bindings = self.x._lookup(receiver, self.text(receiver))  # noqa: SLF001
        elif _this_member(receiver):
            bindings = self.x._field(receiver)  # noqa: SLF001
        else:
            return False
        return self.kind(receiver) is None and all(
            b.module is None and not b.key and b.value is None and b.type is None for b in bindings
        )

    def _looks_like_route(self, call: tree_sitter.Node, receiver: tree_sitter.Node) -> bool:
        """A route registration on a receiver of unknown origin, in a file importing no framework: a router
        name, a path, and a handler taking a request."""
        arguments = _arguments(call)
        receiver = _unwrap(receiver)
        if len(arguments) < 2 or receiver is None or not self._unknown_origin(receiver):
            return False
        path = _string_value(_unwrap(arguments[0]), self.x.source)
        if path is None or not path.startswith("/"):
            return False
        handler = _unwrap(arguments[-1])
        if handler is not None and handler.type in ("arrow_function", "function_expression", "function"):
            parameters = handler.child_by_field_name("parameters")
            first = _named(parameters, 0) if parameters is not None else handler.child_by_field_name("parameter")
            if first is not None and first.type in ("required_parameter", "optional_parameter"):
                first = first.child_by_field_name("pattern")
            return first is not None and self.text(first) in _REQUEST_PARAMETERS
        name = self.text(receiver.child_by_field_name("property") if _this_member(receiver) else receiver)
        return (
            bool(_ROUTER_NAME.search(name))
            and handler is not None
            and handler.type
            in (
                "identifier",
                "member_expression",
            )
        )

    def _guess_framework(self, call: tree_sitter.Node, receiver: tree_sitter.Node) -> str:
        """The framework a handler's parameters suggest: ``(request, reply)`` Fastify, ``(ctx)`` Koa,
        ``(request, h)`` Hapi, else Express."""
        arguments = _arguments(call)
        handler = _unwrap(arguments[-1]) if arguments else None
        names: list[str] = []
        parameters = handler.child_by_field_name("parameters") if handler is not None else None
        for parameter in parameters.named_children if parameters is not None else ():
            pattern = parameter.child_by_field_name("pattern") if parameter.type.endswith("_parameter") else parameter
            names.append(self.text(pattern))
        if (len(names) > 1 and names[1] == "reply") or self.text(receiver) == "fastify":
            return "fastify"
        if names[:1] in (["ctx"], ["_ctx"], ["context"]):
            return "koa"
        if len(names) > 1 and names[1] == "h":
            return "hapi"
        return "express"

    def _route_call(
        self,
        call: tree_sitter.Node,
        receiver: tree_sitter.Node,
        prop: tree_sitter.Node,
        method: str,
        framework: str,
        strict: bool = False,
    ) -> None:
        arguments = _arguments(call)
        if method == "route":
            if arguments and _unwrap(arguments[0]) is not None and _unwrap(arguments[0]).type in ("object", "array"):
                self._route_objects(_unwrap(arguments[0]), receiver, framework)
            return
        if method not in _ROUTE_VERBS or not arguments:
            return
        paths = self._route_paths(arguments, framework)
        if paths is None:
            return
        raw_paths, rest = paths
        if not rest:  # express's app.get('env') reads a setting
            return
        last = _unwrap(rest[-1])
        if strict and (last is None or last.type not in _HANDLER_TYPES or self._object(last) is not None):
            return  # an unknown receiver's get('/x', { params }) is no registration
        verb = "*" if method == "all" else ("DELETE" if method == "del" else method.upper())
        handler = _handler(rest[-1], self.x.source) if rest else ""
        symbol = self.symbol(prop.start_byte)
        for raw in raw_paths:
            for prefix in self._route_prefixes(receiver, 0):
                path = route_template(join_paths(prefix, raw))
                self.add(prop.start_byte, HttpRoute(verb, path, _ts.line(prop), handler, symbol, framework))

    def _route_paths(
        self, arguments: list[tree_sitter.Node], framework: str
    ) -> tuple[list[str], list[tree_sitter.Node]] | None:
        """The paths a verb registration names (a string, an array of strings, koa's named route) and the
        arguments after them; None when its first argument is no readable path."""
        first = _unwrap(arguments[0])
        if first is None:
            return None
        if first.type == "array":
            paths = [_string_value(_unwrap(e), self.x.source) for e in first.named_children]
            readable = [p for p in paths if p is not None and p.startswith(("/", "*"))]
            return (readable, arguments[1:]) if readable else None
        path = self._literal(first)
        if path is None:
            return None
        if framework == "koa" and not path.startswith("/") and len(arguments) > 1:
            second = self._literal(_unwrap(arguments[1]))
            if second is not None and second.startswith("/"):
                return [second], arguments[2:]
        if not path.startswith(("/", "*")) and not (framework in ("fastify", "koa") and path == ""):
            return None
        return [path], arguments[1:]

    def _literal(self, node: tree_sitter.Node | None) -> str | None:
        """The text of a string expression that the file spells out entirely (constants inlined)."""
        if node is None:
            return None
        parts = self.parts(node)
        if not parts or not all(literal for literal, _, _ in parts):
            return None
        return "".join(text for _, text, _ in parts)

    def _route_objects(self, node: tree_sitter.Node, receiver: tree_sitter.Node, framework: str) -> None:
        """Fastify ``route({method, url, handler})`` and Hapi ``route({method, path, handler})`` (or an array)."""
        objects = [_unwrap(child) for child in node.named_children] if node.type == "array" else [node]
        for obj in objects:
            if obj is None or obj.type != "object":
                continue
            path = self._literal(_unwrap(_property(obj, "url", self.x.source) or _property(obj, "path", self.x.source)))
            if path is None:
                continue
            verbs = self._verbs(_unwrap(_property(obj, "method", self.x.source)))
            handler_node = _property(obj, "handler", self.x.source)
            for key in ("options", "config"):
                inner = _unwrap(_property(obj, key, self.x.source))
                if handler_node is None and inner is not None and inner.type == "object":
                    handler_node = _property(inner, "handler", self.x.source)
            handler = _handler(handler_node, self.x.source) if handler_node is not None else ""
            symbol = self.symbol(obj.start_byte)
            if framework == "hapi":  # {path*} and {path*2} are catch-alls
                path = _HAPI_CATCH_ALL.sub(lambda m: "{*" + m[1] + "}", path)
            for prefix in self._route_prefixes(receiver, 0):
                for verb in verbs:
                    route = HttpRoute(
                        verb, route_template(join_paths(prefix, path)), _ts.line(obj), handler, symbol, framework
                    )
                    self.add(obj.start_byte, route)

    def _verbs(self, node: tree_sitter.Node | None) -> list[str]:
        if node is None:
            return ["*"]
        values = [node] if node.type != "array" else [_unwrap(c) for c in node.named_children]
        verbs = []
        for value in values:
            text = self._literal(value)
            verb = text.upper() if text is not None else "*"
            verb = verb if verb in HTTP_METHODS else "*"
            if verb not in verbs:
                verbs.append(verb)
        return verbs or ["*"]

    def _route_chain(
        self, call: tree_sitter.Node, inner: tree_sitter.Node, prop: tree_sitter.Node, method: str
    ) -> None:
        """Express ``app.route('/x').get(h).post(h)``: each verb of the chain is a route of that path."""
        if method not in _ROUTE_VERBS:
            return
        arguments = _arguments(call)
        if arguments and _string_value(_unwrap(arguments[0]), self.x.source) is not None:
            return
        node: tree_sitter.Node | None = inner
        for _ in range(16):
            if node is None or node.type != "call_expression":
                return
            function = _unwrap(node.child_by_field_name("function"))
            if function is None or function.type != "member_expression":
                return
            name = self.text(function.child_by_field_name("property"))
            if name == "route":
                receiver = function.child_by_field_name("object")
                tag = self.kind(receiver)
                framework = _SERVERS.get(tag[0]) if tag is not None else self._server_library(receiver)
                path = self._literal(_unwrap(_named(node.child_by_field_name("arguments"), 0)))
                if framework is None or path is None:
                    return
                verb = "*" if method == "all" else method.upper()
                handler = _handler(arguments[-1], self.x.source) if arguments else ""
                for prefix in self._route_prefixes(receiver, 0):
                    fact = HttpRoute(
                        verb,
                        route_template(join_paths(prefix, path)),
                        _ts.line(prop),
                        handler,
                        self.symbol(prop.start_byte),
                        framework,
                    )
                    self.add(prop.start_byte, fact)
                return
            if name not in _ROUTE_VERBS:
                return
            node = _unwrap(function.child_by_field_name("object"))

    def _decorator(self, node: tree_sitter.Node) -> None:
        """NestJS: ``@Get(':id')`` under ``@Controller('orders')``; ``@MessagePattern``/``@EventPattern``."""
        call = _named(node, 0)
        if call is None or call.type != "call_expression":
            return
        function = _unwrap(call.child_by_field_name("function"))
        if function is None or function.type != "identifier":
            return
        name = self.text(function)
        if name not in _NEST_VERBS and name not in ("MessagePattern", "EventPattern"):
            return
        method = _decorated_method(node)
        if method is None:
            return
        arguments = _arguments(call)
        symbol = self.symbol(method.start_byte)
        if name in ("MessagePattern", "EventPattern"):
            self._nest_pattern(node, name, arguments, symbol)
            return
        if not self._imports_nest():
            return
        paths = self._nest_paths(_unwrap(arguments[0]) if arguments else None)
        if paths is None:
            return
        klass = _class_of(method)
        prefixes = self._controller_paths(klass) if klass is not None else [""]
        if prefixes is None:
            return
        handler = symbol.rsplit(".", 2)[-2:] if symbol else []
        for prefix in prefixes:
            for path in paths:
                fact = HttpRoute(
                    _NEST_VERBS[name],
                    route_template(join_paths(prefix, path)),
                    _ts.line(node),
                    ".".join(handler),
                    symbol,
                    "nestjs",
                )
                self.add(node.start_byte, fact)

    def _imports_nest(self) -> bool:
        return any(i.module.startswith("@nestjs/") for i in self.x.imports)

    def _nest_paths(self, node: tree_sitter.Node | None) -> list[str] | None:
        """The paths of a NestJS decorator argument: none (``""``), a string, an array, ``{ path }``."""
        if node is None:
            return [""]
        if node.type == "object":
            node = _unwrap(_property(node, "path", self.x.source))
            if node is None:
                return [""]
        if node.type == "array":
            paths = [self._literal(_unwrap(c)) for c in node.named_children]
            return [p for p in paths if p is not None] or None
        path = self._literal(node)
        return [path] if path is not None else None

    def _controller_paths(self, klass: tree_sitter.Node) -> list[str] | None:
        for decorator in _decorators(klass):
            call = _named(decorator, 0)
            if call is None or call.type != "call_expression":
                continue
            if self.text(call.child_by_field_name("function")) == "Controller":
                arguments = _arguments(call)
                return self._nest_paths(_unwrap(arguments[0]) if arguments else None)
        return [""]

    def _nest_pattern(
        self, node: tree_sitter.Node, decorator: str, arguments: list[tree_sitter.Node], symbol: str
    ) -> None:
        if not self._imports_nest():
            return
        broker = ""
        if len(arguments) > 1:
            transport = self.text(_unwrap(arguments[1])).rsplit(".", 1)[-1]
            broker = _NEST_TRANSPORTS.get(transport, "")
        pattern = _unwrap(arguments[0]) if arguments else None
        names = (
            [pattern] if pattern is None or pattern.type != "array" else [_unwrap(c) for c in pattern.named_children]
        )
        for each in names:
            name, address, computed = self._pattern(each)
            kind = "topic" if broker == "kafka" else "event"
            fact = MessageFact(
                MessageRole.CONSUME, broker, name, _ts.line(node), kind, symbol, address, "nestjs", computed
            )
            self.add(node.start_byte, fact)

    def _pattern(self, node: tree_sitter.Node | None) -> tuple[str, str, bool]:
        """A NestJS message pattern: a string, or an object of literals spelled as Nest routes it
        (JSON with sorted keys: ``{ cmd: 'sum' }`` is ``{"cmd":"sum"}``)."""
        if node is not None and node.type == "object":
            values: dict[str, object] = {}
            for pair in node.named_children:
                if pair.type != "pair":
                    return "", "", True
                key = _key_text(pair.child_by_field_name("key"), self.x.source)
                value = _unwrap(pair.child_by_field_name("value"))
                text = self._literal(value)
                if not key or value is None:
                    return "", "", True
                if text is not None:
                    values[key] = text
                elif value.type == "number":
                    values[key] = (
                        json.loads(self.text(value)) if re.fullmatch(r"-?\d+(\.\d+)?", self.text(value)) else 0
                    )
                else:
                    return "", "", True
            return json.dumps(values, sort_keys=True, separators=(",", ":")), "", False
        return self.name(node)

    def _next_routes(self, captures: dict[str, list[tree_sitter.Node]]) -> None:
        """Next.js: ``pages/api/**`` (any method) and ``app/**/route.{js,ts}`` exporting verb functions."""
        segments = self.path.split("/")
        if len(segments) < 2:
            return
        stem = re.sub(r"\.[cm]?[jt]sx?$", "", segments[-1])
        if stem == segments[-1]:
            return
        exports = captures.get("export", [])
        for index in range(len(segments) - 2, -1, -1):
            if segments[index] == "pages" and index + 1 < len(segments) - 1 and segments[index + 1] == "api":
                route = segments[index + 1 : -1] + ([] if stem == "index" else [stem])
                handler = next((n for n in exports if _is_default_export(n)), None)
                if handler is not None and _next_path(route) is not None:
                    name = self._default_name(handler)
                    fact = HttpRoute("*", _next_path(route), _ts.line(handler), name, name, "nextjs")
                    self.add(handler.start_byte, fact)
                return
            if segments[index] == "app" and stem == "route":
                route = segments[index + 1 : -1]
                path = _next_path(route)
                if path is None:
                    return
                for node, verb, handler in self._exported_verbs(exports):
                    symbol = self.symbol(node.start_byte)
                    self.add(node.start_byte, HttpRoute(verb, path, _ts.line(node), handler, symbol, "nextjs"))
                return

    def _default_name(self, node: tree_sitter.Node) -> str:
        declaration = node.child_by_field_name("declaration") or node.child_by_field_name("value")
        if declaration is not None:
            name = declaration.child_by_field_name("name")
            if name is not None:
                return self.text(name)
            if declaration.type == "identifier":
                return self.text(declaration)
        return ""

    def _exported_verbs(self, exports: list[tree_sitter.Node]) -> Iterator[tuple[tree_sitter.Node, str, str]]:
        """(node, verb, handler) of each verb a Next.js route module exports (``export function GET``,
        ``export const POST = ...``, ``export { handler as PUT }``)."""
        for node in exports:
            declaration = node.child_by_field_name("declaration")
            if declaration is not None and declaration.type in (
                "function_declaration",
                "generator_function_declaration",
            ):
                name = self.text(declaration.child_by_field_name("name"))
                if name in HTTP_METHODS:
                    yield declaration, name, name
            elif declaration is not None and declaration.type in ("lexical_declaration", "variable_declaration"):
                for declarator in declaration.named_children:
                    if declarator.type == "variable_declarator":
                        name = self.text(declarator.child_by_field_name("name"))
                        if name in HTTP_METHODS:
                            yield declarator, name, name
            else:
                for clause in node.named_children:
                    if clause.type != "export_clause":
                        continue
                    for spec in clause.named_children:
                        alias = spec.child_by_field_name("alias") or spec.child_by_field_name("name")
                        if spec.type == "export_specifier" and self.text(alias) in HTTP_METHODS:
                            yield spec, self.text(alias), self.text(spec.child_by_field_name("name"))

    # -- calls ----------------------------------------------------------------------------------

    def _identifier_call(self, call: tree_sitter.Node) -> None:
        """``fetch(url, init)``, ``axios(config)``, ``got(url)``, ``ky(url)``, ``superagent('GET', url)``..."""
        function = call.child_by_field_name("function")
        tag = self.kind(function)
        if tag is None:
            return
        name = tag[0]
        arguments = _arguments(call)
        if name in ("fetch", "undici.fetch"):
            init = self._object(arguments[1]) if len(arguments) > 1 else None
            method = self._method(init, "method", "GET") if len(arguments) > 1 else "GET"
            self._http(call, function, "fetch", method, arguments[0] if arguments else None)
        elif name in ("axios", "axios.instance", "nestaxios.http"):
            self._axios_like(call, function, tag, arguments)
        elif name in ("got", "got.instance", "ky", "ky.instance", "request", "undici.request"):
            options = self._object(arguments[1]) if len(arguments) > 1 else None
            first = self._object(arguments[0]) if arguments else None
            if first is not None:  # request({ uri, method })
                url = _property(first, "url", self.x.source) or _property(first, "uri", self.x.source)
                method = self._method(first, "method", "GET")
                self._http(call, function, _CLIENTS.get(name, name.split(".")[0]), method, url, tag)
                return
            method = self._method(options, "method", "GET") if options is not None else "GET"
            self._http(
                call, function, _CLIENTS.get(name, name.split(".")[0]), method, arguments[0] if arguments else None, tag
            )
        elif name == "superagent":
            if len(arguments) >= 2 and _string_value(_unwrap(arguments[0]), self.x.source) is not None:
                method = (_string_value(_unwrap(arguments[0]), self.x.source) or "").upper()
                self._http(call, function, "superagent", method if method in HTTP_METHODS else "*", arguments[1])
            elif arguments:
                self._http(call, function, "superagent", "GET", arguments[0])

    def _axios_like(
        self, call: tree_sitter.Node, anchor: tree_sitter.Node, tag: _Tag, arguments: list[tree_sitter.Node]
    ) -> None:
        """``axios(url, config)``, ``axios(config)``, ``axios.request(config)``."""
        if not arguments:
            return
        config = self._object(arguments[0])
        client = _CLIENTS.get(tag[0], "axios")
        if config is not None:
            url = _property(config, "url", self.x.source)
            base = _property(config, "baseURL", self.x.source)
            self._http(call, anchor, client, self._method(config, "method", "GET"), url, tag, base)
            return
        config = self._object(arguments[1]) if len(arguments) > 1 else None
        method = self._method(config, "method", "GET") if config is not None else "GET"
        self._http(call, anchor, client, method, arguments[0], tag)

    def _client_call(self, call: tree_sitter.Node, tag: _Tag, prop: tree_sitter.Node, method: str) -> None:
        name = tag[0]
        arguments = _arguments(call)
        client = _CLIENTS[name]
        if name == "fetch" and method == "fetch":
            init = self._object(arguments[1]) if len(arguments) > 1 else None
            verb = self._method(init, "method", "GET") if len(arguments) > 1 else "GET"
            self._http(call, prop, "fetch", verb, arguments[0] if arguments else None)
        elif name == "xhr":
            if method == "open" and len(arguments) >= 2:
                verb = (self._literal(_unwrap(arguments[0])) or "*").upper()
                self._http(call, prop, client, verb if verb in HTTP_METHODS else "*", arguments[1])
        elif name == "jquery":
            if method == "ajax" and arguments:
                settings = self._object(arguments[-1])
                url = arguments[0] if self._object(arguments[0]) is None else _property(settings, "url", self.x.source)
                verb = "GET"
                if settings is not None:
                    key = "method" if _property(settings, "method", self.x.source) is not None else "type"
                    verb = self._method(settings, key, "GET")
                self._http(call, prop, client, verb, url)
            elif method in ("get", "post", "getJSON") and arguments:
                self._http(call, prop, client, "POST" if method == "post" else "GET", arguments[0])
        elif name == "nodehttp":
            if method in ("request", "get") and arguments:
                self._node_http(call, prop, method, arguments)
        elif name in ("axios", "axios.instance", "nestaxios.http") and method == "request":
            self._axios_like(call, prop, tag, arguments)
        elif name == "angular.http" and method == "request" and len(arguments) >= 2:
            verb = (self._literal(_unwrap(arguments[0])) or "*").upper()
            self._http(call, prop, client, verb if verb in HTTP_METHODS else "*", arguments[1], tag)
        elif method in _CLIENT_VERBS or (method == "del" and name in ("superagent", "request")):
            verb = "DELETE" if method == "del" else method.upper()
            url = arguments[0] if arguments else None
            options = self._object(url) if name in ("request", "got", "got.instance", "ky", "ky.instance") else None
            if options is not None:  # request.post({ url, json })
                url = _property(options, "url", self.x.source) or _property(options, "uri", self.x.source)
            self._http(call, prop, client, verb, url, tag)

    def _node_http(
        self, call: tree_sitter.Node, prop: tree_sitter.Node, method: str, arguments: list[tree_sitter.Node]
    ) -> None:
        """``http.request(url|options[, options])``, ``http.get(...)``: the options' host, path and method."""
        options = self._object(arguments[0])
        default = "GET"
        if options is None and len(arguments) > 1:
            second = self._object(arguments[1])
            if second is not None:
                default = self._method(second, "method", "GET") if method == "request" else "GET"
            self._http(call, prop, "http", default, arguments[0])
            return
        if options is None:
            self._http(call, prop, "http", "GET", arguments[0])
            return
        verb = self._method(options, "method", "GET") if method == "request" else "GET"
        host_node = _property(options, "hostname", self.x.source) or _property(options, "host", self.x.source)
        path_node = _property(options, "path", self.x.source)
        parts: list[_Part] = self.parts(path_node) if path_node is not None else [(True, "/", None)]
        host, address = "", ""
        if host_node is not None:
            literal = self._literal(_unwrap(host_node))
            if literal is not None:
                host = literal.split(":", 1)[0].lower()
            else:
                address, default_parts = self.address(host_node)
                if default_parts:
                    host = "".join(t for _, t, _ in default_parts).split(":", 1)[0].lower()
        read = url_parts([(literal, text) for literal, text, _ in parts]) if parts else None
        path = read.path if read is not None and not read.computed else ""
        self.add(
            prop.start_byte,
            HttpCall(verb, path, _ts.line(prop), self.symbol(prop.start_byte), host, address, "http", not path),
        )

    def _object(self, node: tree_sitter.Node | None) -> tree_sitter.Node | None:
        """The object literal ``node`` is, or the one a name of the file holds."""
        node = _unwrap(node)
        if node is None:
            return None
        if node.type == "object":
            return node
        if node.type == "identifier":
            values = self._values(node, 0)
            if len(values) == 1 and values[0].type == "object":
                return values[0]
        return None

    def _method(self, obj: tree_sitter.Node | None, key: str, default: str) -> str:
        if obj is None:
            return "*"
        value = _property(obj, key, self.x.source)
        if value is None:
            return "*" if any(c.type == "spread_element" for c in obj.named_children) else default
        text = self._literal(_unwrap(value))
        verb = text.upper() if text is not None else ""
        return verb if verb in HTTP_METHODS else "*"

    def _http(
        self,
        call: tree_sitter.Node,
        anchor: tree_sitter.Node,
        client: str,
        method: str,
        url: tree_sitter.Node | None,
        tag: _Tag | None = None,
        base: tree_sitter.Node | None = None,
    ) -> None:
        """Record one HTTP call of ``url`` (joined to an instance's or a config's base address)."""
        if url is None and base is None:
            return
        parts = self.parts(url) if url is not None else []
        if base is None and tag is not None and tag[1] is not None and tag[0].endswith(".instance"):
            config = self._object(_named(tag[1].child_by_field_name("arguments"), 0))
            if config is not None:
                base = _property(config, "baseURL", self.x.source) or _property(config, "prefixUrl", self.x.source)
        if base is not None and not (parts and parts[0][0] and _SCHEME.match(parts[0][1])):
            base_parts = self.parts(base)
            if parts and parts[0][0] and not parts[0][1].startswith(("/", "?")):
                parts = [(True, "/" + parts[0][1], None), *parts[1:]]
            parts = base_parts + parts
        elif parts and parts[0][0] and _relative(parts[0][1]):
            parts = [(True, "/" + parts[0][1], None), *parts[1:]]
        parts = _ports(parts)
        read = url_parts([(literal, text) for literal, text, _ in parts])
        host, address = read.host, ""
        base_node = next((node for literal, text, node in parts if not literal and text == read.base), None)
        if read.base and base_node is not None:
            address, default = self.address(base_node)
            text = "".join(t for _, t, _ in default)
            after_scheme = any(
                literal and t.endswith("://") for literal, t, n in parts[: parts.index((False, read.base, base_node))]
            )
            if text and not host:
                host = (
                    re.split(r"[:/]", text, maxsplit=1)[0].lower() if after_scheme else url_parts([(True, text)]).host
                )
        line_node = anchor.child_by_field_name("property") if anchor.type == "member_expression" else anchor
        fact = HttpCall(
            method,
            "" if read.computed else read.path,
            _ts.line(line_node),
            self.symbol(line_node.start_byte),
            host,
            address,
            client,
            read.computed,
        )
        self.add(line_node.start_byte, fact)

    # -- messaging --------------------------------------------------------------------------------

    def _message(
        self,
        anchor: tree_sitter.Node,
        role: str,
        lib: str,
        kind: str,
        name_node: tree_sitter.Node | None,
        broker: str | None = None,
        transform: str = "",
    ) -> None:
        name, address, computed = self.name(name_node)
        if transform == "queue_url" and name:
            name = name.rstrip("/").rsplit("/", 1)[-1]
        elif transform == "arn" and name:
            name = name.rsplit(":", 1)[-1]
        default_broker, client = _BROKERS[lib]
        fact = MessageFact(
            role,
            default_broker if broker is None else broker,
            name,
            _ts.line(anchor),
            kind,
            self.symbol(anchor.start_byte),
            address,
            client,
            computed,
        )
        self.add(anchor.start_byte, fact)

    def _messaging_call(self, call: tree_sitter.Node, tag: _Tag, prop: tree_sitter.Node, method: str) -> None:
        name = tag[0]
        lib = name.split(".", 1)[0]
        arguments = _arguments(call)
        first = _unwrap(arguments[0]) if arguments else None
        if name == "kafkajs.producer" and method in ("send", "sendBatch"):
            self._kafkajs_send(prop, method, first)
        elif name == "kafkajs.consumer" and method == "subscribe":
            self._kafkajs_subscribe(prop, first)
        elif name == "rdkafka.producer" and method == "produce" and first is not None:
            self._message(prop, MessageRole.PRODUCE, "rdkafka", "topic", first)
        elif name == "rdkafka.consumer" and method == "subscribe" and first is not None:
            for topic in _elements(first):
                self._message(prop, MessageRole.CONSUME, "rdkafka", "topic", topic)
        elif name in ("rdkafka.KafkaConsumer", "rdkafka.Producer") and method in (
            "createReadStream",
            "createWriteStream",
        ):
            options = self._object(arguments[2]) if len(arguments) > 2 else None
            if options is not None:
                if method == "createReadStream":
                    for topic in _elements(_unwrap(_property(options, "topics", self.x.source))):
                        self._message(prop, MessageRole.CONSUME, "rdkafka", "topic", topic)
                else:
                    self._message(
                        prop, MessageRole.PRODUCE, "rdkafka", "topic", _property(options, "topic", self.x.source)
                    )
        elif name == "amqp.channel":
            self._amqp(prop, method, arguments)
        elif name == "nats.conn" and method in ("publish", "subscribe", "request") and first is not None:
            role = MessageRole.CONSUME if method == "subscribe" else MessageRole.PRODUCE
            self._message(prop, role, "nats", "subject", first)
        elif name == "redis.client" and method in ("publish", "spublish") and first is not None:
            self._message(prop, MessageRole.PRODUCE, "redis", "channel", first)
        elif name == "redis.client" and method in ("subscribe", "psubscribe", "ssubscribe", "pSubscribe", "sSubscribe"):
            for index, argument in enumerate(arguments):
                for channel in _elements(_unwrap(argument)):
                    expression = channel.type in ("identifier", "member_expression") and not self._callable(channel)
                    if channel.type in ("string", "template_string") or (index == 0 and expression):
                        self._message(prop, MessageRole.CONSUME, "redis", "channel", channel)
        elif name in ("sqs.client", "sns.client"):
            self._aws_v2(prop, lib, method, first)
        elif name == "pubsub.topic" and method in ("publish", "publishMessage", "publishJSON"):
            self._message(prop, MessageRole.PRODUCE, "pubsub", "topic", self._pubsub_name(tag[1]))
        elif name == "pubsub.subscription" and method == "on":
            event = _string_value(first, self.x.source) if first is not None else None
            if event == "message":
                self._pubsub_consume(prop, tag[1])
        elif name == "dapr.client.pubsub" and method == "publish" and len(arguments) > 1:
            self._message(prop, MessageRole.PRODUCE, "dapr", "topic", arguments[1])
        elif name == "dapr.server.pubsub" and method == "subscribe" and len(arguments) > 1:
            self._message(prop, MessageRole.CONSUME, "dapr", "topic", arguments[1])
        elif name in ("sqsconsumer.Consumer", "sqsproducer.Producer") and method == "create" and first is not None:
            options = self._object(first)
            role = MessageRole.CONSUME if lib == "sqsconsumer" else MessageRole.PRODUCE
            if options is not None:
                self._message(
                    prop, role, lib, "queue", _property(options, "queueUrl", self.x.source), transform="queue_url"
                )

    def _callable(self, node: tree_sitter.Node) -> bool:
        values = self._values(node, 0)
        return bool(values) and values[0].type in ("arrow_function", "function_expression", "function")

    def _pubsub_name(self, node: tree_sitter.Node | None) -> tree_sitter.Node | None:
        """The name argument of the ``topic(name)``/``subscription(name)`` call a Pub/Sub tag was made by."""
        return _named(node.child_by_field_name("arguments"), 0) if node is not None else None

    def _pubsub_consume(self, prop: tree_sitter.Node, made: tree_sitter.Node | None) -> None:
        """A subscription's ``on('message')``: the topic when the code names it (``topic(t).subscription(s)``),
        else the subscription (a queue of the topic's messages)."""
        if made is None:
            return
        function = _unwrap(made.child_by_field_name("function"))
        owner = (
            function.child_by_field_name("object")
            if function is not None and function.type == "member_expression"
            else None
        )
        owner_tag = self.kind(owner) if owner is not None else None
        if owner_tag is not None and owner_tag[0] == "pubsub.topic":
            self._message(prop, MessageRole.CONSUME, "pubsub", "topic", self._pubsub_name(owner_tag[1]))
        else:
            self._message(prop, MessageRole.CONSUME, "pubsub", "queue", self._pubsub_name(made))

    def _kafkajs_send(self, prop: tree_sitter.Node, method: str, first: tree_sitter.Node | None) -> None:
        record = self._object(first)
        if record is None:
            return
        if method == "send":
            self._message(prop, MessageRole.PRODUCE, "kafkajs", "topic", _property(record, "topic", self.x.source))
            return
        for item in _elements(_unwrap(_property(record, "topicMessages", self.x.source))):
            inner = self._object(item)
            if inner is not None:
                self._message(prop, MessageRole.PRODUCE, "kafkajs", "topic", _property(inner, "topic", self.x.source))

    def _kafkajs_subscribe(self, prop: tree_sitter.Node, first: tree_sitter.Node | None) -> None:
        options = self._object(first)
        if options is None:
            return
        topic = _unwrap(_property(options, "topic", self.x.source))
        topics = _unwrap(_property(options, "topics", self.x.source))
        for node in ([topic] if topic is not None else []) + (_elements(topics) if topics is not None else []):
            if node.type == "regex":
                self._message(prop, MessageRole.CONSUME, "kafkajs", "topic", None)
            else:
                self._message(prop, MessageRole.CONSUME, "kafkajs", "topic", node)

    def _amqp(self, prop: tree_sitter.Node, method: str, arguments: list[tree_sitter.Node]) -> None:
        """amqplib channels: ``publish(exchange, key)``, ``sendToQueue(q)``, ``consume(q)``,
        ``bindQueue(q, exchange, key)``."""
        if not arguments:
            return
        first = _unwrap(arguments[0])
        if method == "publish" and len(arguments) >= 2:
            exchange = self._literal(first)
            if exchange == "":  # the default exchange routes to the queue the key names
                self._message(prop, MessageRole.PRODUCE, "amqp", "queue", arguments[1])
                return
            self._message(prop, MessageRole.PRODUCE, "amqp", "exchange", first)
            key = self._literal(_unwrap(arguments[1]))
            if key:
                self._message(prop, MessageRole.PRODUCE, "amqp", "routing_key", arguments[1])
        elif method == "sendToQueue":
            self._message(prop, MessageRole.PRODUCE, "amqp", "queue", self._queue(first))
        elif method == "consume":
            queue = self._queue(first)
            if queue is not None and self._literal(_unwrap(queue)) == "":
                return  # a server-named queue: its bindings name what it receives
            self._message(prop, MessageRole.CONSUME, "amqp", "queue", queue)
        elif method == "bindQueue" and len(arguments) >= 2:
            self._message(prop, MessageRole.CONSUME, "amqp", "exchange", arguments[1])
            key = self._literal(_unwrap(arguments[2])) if len(arguments) > 2 else None
            if key:
                self._message(prop, MessageRole.CONSUME, "amqp", "routing_key", arguments[2])

    def _queue(self, node: tree_sitter.Node | None) -> tree_sitter.Node | None:
        """The queue name of ``q.queue`` where ``q = await ch.assertQueue('name')``; else ``node``."""
        node = _unwrap(node)
        if (
            node is None
            or node.type != "member_expression"
            or self.text(node.child_by_field_name("property")) != "queue"
        ):
            return node
        values = self._values(_unwrap(node.child_by_field_name("object")) or node, 0)
        if len(values) == 1 and values[0].type == "call_expression":
            function = _unwrap(values[0].child_by_field_name("function"))
            if function is not None and self.text(function.child_by_field_name("property")) == "assertQueue":
                return _named(values[0].child_by_field_name("arguments"), 0)
        return node

    def _aws_v2(self, prop: tree_sitter.Node, lib: str, method: str, first: tree_sitter.Node | None) -> None:
        params = self._object(first)
        if params is None:
            return
        if lib == "sqs" and method in ("sendMessage", "sendMessageBatch", "receiveMessage"):
            role = MessageRole.CONSUME if method == "receiveMessage" else MessageRole.PRODUCE
            self._message(
                prop, role, "sqs", "queue", _property(params, "QueueUrl", self.x.source), transform="queue_url"
            )
        elif lib == "sns" and method in ("publish", "publishBatch"):
            arn = _property(params, "TopicArn", self.x.source) or _property(params, "TargetArn", self.x.source)
            if arn is not None:
                self._message(prop, MessageRole.PRODUCE, "sns", "topic", arn, transform="arn")

    def _registration(self, node: tree_sitter.Node) -> None:
        """``new OrdersClient({ baseUrl: process.env.ORDERS_URL })``, ``new OrdersClient(ORDERS_URL)``: the
        base address a client class of the workspace is constructed with, as a ``client:OrdersClient``
        setting (its calls have that address, see :meth:`_constructor_given`)."""
        constructor = _unwrap(node.child_by_field_name("constructor"))
        if constructor is None or constructor.type != "identifier" or self.kind(constructor) is not None:
            return
        name = self.text(constructor)
        bindings = self.x._lookup(constructor, name)  # noqa: SLF001
        local = name in self.defined("class")
        imported = any(
            (b.module is not None and _MODULE_LOCAL.match(b.module))
            or (b.key and _MODULE_LOCAL.match(self._required(b.value)[0] or ""))
            for b in bindings
        )
        if not (local or imported):
            return
        for argument in _arguments(node)[:2]:
            value = _unwrap(argument)
            options = self._object(value)
            if options is not None:
                value = next(
                    (_unwrap(pair.child_by_field_name("value")) for pair in options.named_children
                     if pair.type == "pair" and _BASE_KEY.search(self._key(pair))),
                    None,
                )  # fmt: skip
            setting = self._setting("client:" + name, value, node)
            if setting is not None:
                self.settings.append((node.start_byte, len(self.settings), setting))
                return

    def _key(self, pair: tree_sitter.Node) -> str:
        return _key_text(pair.child_by_field_name("key"), self.x.source)

    def _setting(self, key: str, value: tree_sitter.Node | None, at: tree_sitter.Node) -> Setting | None:
        """A setting for ``key`` when ``value`` is a URL literal or comes from an environment variable."""
        if value is None:
            return None
        parts = _ports(self.parts(value))
        env, host, path = "", "", ""
        if parts and not parts[0][0]:
            address, default = self.address(parts[0][2])
            env = address[4:] if address.startswith("env:") else ""
            if default:
                read = url_parts([(True, "".join(t for _, t, _ in default))])
                host = read.host
            rest = url_parts([(literal, text) for literal, text, _ in parts])
            path = rest.path if not rest.computed and rest.path != "/" else ""
        elif parts and all(literal for literal, _, _ in parts):
            read = url_parts([(True, "".join(t for _, t, _ in parts))])
            host, path = read.host, read.path if read.path != "/" else ""
        if not env and not host:
            return None
        return Setting(key, _ts.line(at), host, env, path)

    def _new(self, node: tree_sitter.Node) -> None:
        """AWS SDK v3 commands: ``new SendMessageCommand({QueueUrl})``, ``new PublishCommand({TopicArn})``."""
        tag = self.kind(node.child_by_field_name("constructor"))
        if tag is None or not tag[0].startswith(("sqs.", "sns.")):
            return
        command = tag[0].split(".", 1)[1]
        params = self._object(_named(node.child_by_field_name("arguments"), 0))
        if params is None:
            return
        anchor = node.child_by_field_name("constructor")
        if command in ("SendMessageCommand", "SendMessageBatchCommand", "ReceiveMessageCommand"):
            role = MessageRole.CONSUME if command == "ReceiveMessageCommand" else MessageRole.PRODUCE
            self._message(
                anchor, role, "sqs", "queue", _property(params, "QueueUrl", self.x.source), transform="queue_url"
            )
        elif command in ("PublishCommand", "PublishBatchCommand"):
            arn = _property(params, "TopicArn", self.x.source) or _property(params, "TargetArn", self.x.source)
            if arn is not None:
                self._message(anchor, MessageRole.PRODUCE, "sns", "topic", arn, transform="arn")

    def _nest_client(self, call: tree_sitter.Node, tag: _Tag, prop: tree_sitter.Node, method: str) -> None:
        """NestJS ``ClientProxy``: ``client.emit('x', data)``, ``client.send('x', data)``; an application's
        ``setGlobalPrefix('api')``, a mount of the module it is created from (``NestFactory.create(AppModule)``)."""
        arguments = _arguments(call)
        if tag[0] == "nest.app" and method == "setGlobalPrefix" and arguments and tag[1] is not None:
            prefix = self._literal(_unwrap(arguments[0]))
            module_node = _named(tag[1].child_by_field_name("arguments"), 0)
            module = self._module_of(module_node)
            if prefix is not None and module:
                fact = HttpRoute(
                    "*", route_template(prefix), _ts.line(prop), self.text(module_node), self.symbol(prop.start_byte),
                    "nestjs", module,
                )  # fmt: skip
                self.add(prop.start_byte, fact)
            return
        if method not in ("emit", "send") or not tag[0].startswith("nestms.client"):
            return
        if not arguments:
            return
        broker = tag[0].partition(":")[2]
        if not broker and tag[1] is not None:
            options = self._object(_named(tag[1].child_by_field_name("arguments"), 0))
            transport = _property(options, "transport", self.x.source) if options is not None else None
            broker = _NEST_TRANSPORTS.get(self.text(transport).rsplit(".", 1)[-1], "") if transport is not None else ""
        name, address, computed = self._pattern(_unwrap(arguments[0]))
        kind = "topic" if broker == "kafka" else "event"
        fact = MessageFact(
            MessageRole.PRODUCE,
            broker,
            name,
            _ts.line(prop),
            kind,
            self.symbol(prop.start_byte),
            address,
            "nestjs",
            computed,
        )
        self.add(prop.start_byte, fact)

    def _messaging_fallback(self, call: tree_sitter.Node, prop: tree_sitter.Node, method: str) -> None:
        """Messaging calls on a receiver of unknown origin (a parameter, a field set elsewhere): by a
        shape only one library has, or by the one messaging library the file imports."""
        arguments = _arguments(call)
        first = _unwrap(arguments[0]) if arguments else None
        record = self._object(first) if first is not None else None
        if method == "send" and record is not None:
            if (
                _property(record, "topic", self.x.source) is not None
                and _property(record, "messages", self.x.source) is not None
            ):
                self._kafkajs_send(prop, "send", first)
            return
        if method == "subscribe" and record is not None:
            if (
                _property(record, "topic", self.x.source) is not None
                or _property(record, "topics", self.x.source) is not None
            ):
                self._kafkajs_subscribe(prop, first)
            return
        if method not in _MESSAGING_FALLBACK or first is None:
            return
        if method in ("sendToQueue", "bindQueue"):
            self._amqp(prop, method, arguments)
            return
        messaging = sorted(lib for lib in self.libraries if lib in ("amqp", "nats", "redis", "rdkafka"))
        if len(messaging) != 1 or self.name(first)[2]:
            return  # an unknown receiver's subscribe(handler) is an observable's, not a broker's
        lib = messaging[0]
        if lib == "amqp" and method in ("publish", "consume"):
            self._amqp(prop, method, arguments)
        elif lib == "nats" and method in ("publish", "subscribe"):
            role = MessageRole.CONSUME if method == "subscribe" else MessageRole.PRODUCE
            self._message(prop, role, "nats", "subject", first)
        elif lib == "redis" and method in ("publish", "subscribe", "psubscribe"):
            role = MessageRole.PRODUCE if method == "publish" else MessageRole.CONSUME
            self._message(prop, role, "redis", "channel", first)
        elif lib == "rdkafka" and method == "produce":
            self._message(prop, MessageRole.PRODUCE, "rdkafka", "topic", first)

    # -- constants ------------------------------------------------------------------------------

    def _constants(self, captures: dict[str, list[tree_sitter.Node]]) -> tuple[Constant, ...]:
        """The string constants of the module that name links (see :class:`~mesh.index.Constant`); the
        holders of the file (object constants, enums, classes of static fields) are noted on the way."""
        found: list[tuple[int, int, Constant]] = []

        def keep(name: str, owner: str, value: tree_sitter.Node) -> None:
            text = self._literal_only(value)
            if text is None or not _link_name(name, owner) or not _safe_value(text):
                return
            full = f"{owner}.{name}" if owner else name
            found.append((value.start_byte, len(found), Constant(full, text, _ts.line(value))))

        for node in captures.get("lexical", ()):
            if self.text(node.child_by_field_name("kind")) != "const":
                continue
            for declarator in node.named_children:
                if declarator.type != "variable_declarator":
                    continue
                name_node = declarator.child_by_field_name("name")
                value = _unwrap(declarator.child_by_field_name("value"))
                if name_node is None or name_node.type != "identifier" or value is None:
                    continue
                name = self.text(name_node)
                if value.type == "object":
                    members = self.holders.setdefault(name, {})
                    for key, member in _flat_members(value, self.x.source, ""):
                        members.setdefault(key, member)
                        keep(key, name, member)
                else:
                    keep(name, "", value)
        for node in captures.get("enum", ()):
            name = self.text(node.child_by_field_name("name"))
            members = self.holders.setdefault(name, {})
            body = node.child_by_field_name("body")
            for member in body.named_children if body is not None else ():
                if member.type == "enum_assignment":
                    key = self.text(member.child_by_field_name("name"))
                    value = _unwrap(member.child_by_field_name("value"))
                    if value is not None:
                        members.setdefault(key, value)
                        keep(key, name, value)
        for node in captures.get("class", ()):
            name = self.text(node.child_by_field_name("name"))
            body = node.child_by_field_name("body")
            for member in body.named_children if body is not None else ():
                if member.type not in ("public_field_definition", "field_definition"):
                    continue
                if not any(child.type == "static" for child in member.children):
                    continue
                key_node = member.child_by_field_name("name") or member.child_by_field_name("property")
                value = _unwrap(member.child_by_field_name("value"))
                if key_node is None or value is None:
                    continue
                key = self.text(key_node)
                self.holders.setdefault(name, {}).setdefault(key, value)
                keep(key, name, value)
        found.sort(key=lambda item: (item[0], item[1]))
        return tuple(constant for _, _, constant in found)

    def _literal_only(self, node: tree_sitter.Node) -> str | None:
        """The text of a string literal or a template without substitutions."""
        return _string_value(node, self.x.source)


# -- helpers ------------------------------------------------------------------------------------------


def _arguments(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    arguments = call.child_by_field_name("arguments")
    if arguments is None or arguments.type != "arguments":
        return []
    return [child for child in arguments.named_children if child.type != "comment"]


def _property(obj: tree_sitter.Node | None, key: str, source: bytes) -> tree_sitter.Node | None:
    """The value of property ``key`` of an object literal (a pair, or a shorthand property's name)."""
    if obj is None or obj.type != "object":
        return None
    for child in obj.named_children:
        if child.type == "pair" and _key_text(child.child_by_field_name("key"), source) == key:
            return child.child_by_field_name("value")
        if child.type == "shorthand_property_identifier" and _ts.text(child, source) == key:
            return child
    return None


def _flat_members(
    obj: tree_sitter.Node, source: bytes, prefix: str, depth: int = 0
) -> Iterator[tuple[str, tree_sitter.Node]]:
    """(dotted key, value) of each property of an object literal, nested objects flattened."""
    if depth > 4:
        return
    for child in obj.named_children:
        if child.type != "pair":
            continue
        key = _key_text(child.child_by_field_name("key"), source)
        value = _unwrap(child.child_by_field_name("value"))
        if not key or value is None:
            continue
        dotted = f"{prefix}.{key}" if prefix else key
        if value.type == "object":
            yield from _flat_members(value, source, dotted, depth + 1)
        else:
            yield dotted, value


def _elements(node: tree_sitter.Node | None) -> list[tree_sitter.Node]:
    """The elements of an array literal, or the node itself."""
    node = _unwrap(node)
    if node is None:
        return []
    if node.type == "array":
        return [e for child in node.named_children if (e := _unwrap(child)) is not None]
    return [node]


def _stringish(node: tree_sitter.Node) -> bool:
    if node.type in ("string", "template_string"):
        return True
    if node.type == "binary_expression":
        operator = node.child_by_field_name("operator")
        return operator is not None and operator.type == "+"
    return (
        node.type == "new_expression"
        and (constructor := node.child_by_field_name("constructor")) is not None
        and (constructor.type == "identifier" and constructor.text == b"URL")
    )


def _chain(node: tree_sitter.Node, source: bytes) -> list[str]:
    """``["config", "services", "orders"]`` for ``config.services.orders``; [] unless all plain names."""
    parts: list[str] = []
    current: tree_sitter.Node | None = node
    for _ in range(_DEPTH_MAX):
        current = _unwrap(current)
        if current is None:
            return []
        if current.type == "identifier":
            parts.append(_ts.text(current, source))
            return parts[::-1]
        if current.type != "member_expression":
            return []
        prop = current.child_by_field_name("property")
        if prop is None or prop.type != "property_identifier":
            return []
        parts.append(_ts.text(prop, source))
        current = current.child_by_field_name("object")
    return []


def _ports(parts: list[_Part]) -> list[_Part]:
    """Parts with an expression standing for the port of the authority (``${host}:${port}/x``) made a
    literal port, so that the path after it can be read."""
    out: list[_Part] = []
    authority = True
    parts = [part for part in parts if part[1] or not part[0]]
    if len(parts) > 1 and not parts[0][0] and parts[1][0] and parts[1][1].startswith("://"):
        parts = [(True, "http", None), *parts[1:]]  # `${protocol}://${host}/x`
    for literal, text, node in parts:
        if literal:
            if out and out[-1][0]:
                out[-1] = (True, out[-1][1] + text, None)
            else:
                out.append((True, text, None))
            rest = _SCHEME.sub("", out[-1][1]) if len(out) == 1 else text
            if "/" in rest or "?" in rest:
                authority = False
            continue
        if authority and out and out[-1][0] and out[-1][1].endswith(":") and not out[-1][1].endswith("://"):
            out[-1] = (True, out[-1][1] + "0", None)
            continue
        out.append((False, text, node))
    return [part for part in out if part[1] or not part[0]]


def _relative(text: str) -> bool:
    """Whether the literal a URL starts with is a path without its leading ``/`` (``api/orders``), not a
    URL with a scheme, a ``host:port`` or a path or query already."""
    return bool(text) and not text.startswith(("/", "?")) and not _SCHEME.match(text) and not _HOST_PORT.match(text)


def _handler(node: tree_sitter.Node | None, source: bytes) -> str:
    """A route's handler as written: a name or member (``orders.list``), the function a wrapper call is
    given (``asyncHandler(list)``); "" for an inline function."""
    node = _unwrap(node)
    for _ in range(3):
        if node is None:
            return ""
        if node.type in ("identifier", "member_expression"):
            return _ts.text(node, source)
        if node.type != "call_expression":
            return ""
        arguments = node.child_by_field_name("arguments")
        node = _unwrap(_named(arguments, arguments.named_child_count - 1)) if arguments is not None else None
    return ""


def _decorated_method(decorator: tree_sitter.Node) -> tree_sitter.Node | None:
    """The method a decorator in a class body stands before."""
    sibling = decorator.next_named_sibling
    while sibling is not None and sibling.type in ("decorator", "comment"):
        sibling = sibling.next_named_sibling
    if sibling is not None and sibling.type in ("method_definition", "abstract_method_signature"):
        return sibling
    parent = decorator.parent
    if parent is not None and parent.type in ("method_definition",):
        return parent
    return None


def _class_of(method: tree_sitter.Node) -> tree_sitter.Node | None:
    body = method.parent
    klass = body.parent if body is not None and body.type == "class_body" else None
    return (
        klass
        if klass is not None and klass.type in ("class_declaration", "abstract_class_declaration", "class")
        else None
    )


def _decorators(klass: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The decorators of a class: its own children, or those of the ``export`` statement around it."""
    found = [child for child in klass.children if child.type == "decorator"]
    parent = klass.parent
    if parent is not None and parent.type == "export_statement":
        found.extend(child for child in parent.children if child.type == "decorator")
    return found


def _member_decorators(klass: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """The decorators of a class's members: in its body before a member (TypeScript) or inside the
    member (JavaScript)."""
    body = klass.child_by_field_name("body")
    for member in body.named_children if body is not None else ():
        if member.type == "decorator":
            yield member
        elif member.type == "method_definition":
            yield from (child for child in member.children if child.type == "decorator")


def _is_default_export(node: tree_sitter.Node) -> bool:
    return any(child.type == "default" for child in node.children)


def _next_path(segments: list[str]) -> str | None:
    """The route of a Next.js file's folders: ``[id]`` -> ``{id}``, ``[...slug]``/``[[...slug]]`` ->
    ``{*slug}``, route groups ``(shop)`` and slots ``@modal`` dropped; None for a private ``_folder``."""
    out = []
    for segment in segments:
        if segment.startswith("_"):
            return None
        if (segment.startswith("(") and segment.endswith(")")) or segment.startswith("@"):
            continue
        catch_all = re.fullmatch(r"\[\[?\.\.\.(\w+)\]?\]", segment)
        if catch_all:
            out.append("{*" + catch_all[1] + "}")
            continue
        dynamic = re.fullmatch(r"\[(\w+)\]", segment)
        out.append("{" + dynamic[1] + "}" if dynamic else segment)
    return "/" + "/".join(out)


def _link_name(name: str, owner: str) -> bool:
    """Whether a constant's name or its owner's says it names a link, and neither looks secret."""
    words = {w.lower() for w in _WORDS.findall(name)}
    owner_words = {w.lower() for w in _WORDS.findall(owner)}
    every = words | owner_words
    singular = {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in every}
    singular |= {w[:-2] for w in every if w.endswith("es") and len(w) > 4}
    if secret_name(name) or secret_name(owner) or singular & _SECRET_WORDS or every & _SECRET_WORDS:
        return False
    return bool(singular & _LINK_WORDS)


def _safe_value(text: str) -> bool:
    return 0 < len(text) <= 200 and not re.search(r"\s", text) and not _SECRET_VALUE.search(text)
