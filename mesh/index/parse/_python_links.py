"""Python links: HTTP routes, HTTP calls, messaging and link-naming constants of one file.

Theory of operation: ``_python.extract`` hands over the tree it parsed, its :class:`Definitions` and
its import statements. A file that imports none of the libraries below and shows none of their
distinctive spellings costs a few substring tests, one regex and a walk of its top-level statements
and class bodies (for :class:`Constant` facts). Otherwise one compiled query captures every call,
decorator, assignment, ``with`` item, ``for`` target, parameter list and ``return``, and three small
evaluators read them:

- *what an expression is* (:meth:`_File.obj`): the object a library constructor made (an
  ``httpx.AsyncClient``, a ``Blueprint``, a ``KafkaProducer``, a Pub/Sub publisher...), followed
  through names, ``self.<attr>``, ``with ... as``, ``await``, parameter annotations, what the calls
  of the file pass for a parameter, what a function of the file returns (``Depends(get_redis)``),
  and the few methods that make one object from another (``redis.pubsub()``, ``declare_queue(q)``);
- *what a string is* (:meth:`_File.parts`): literal pieces and expressions, read through f-strings,
  ``+``, ``+=``, ``%``, ``.format``, ``urljoin``, names, ``self.<attr>``, ``app.config[...]``
  assignments, dict literals and parameter defaults; environment reads, settings objects and
  imported constants become markers (``env:NAME``, ``config:key``, ``const:NAME``) that
  :func:`~._links.url_parts` keeps as the base (the default beside an environment read gives the
  host when the variable is unset);
- *which library a call belongs to*, from the qualified name the imports give it (``requests.get``,
  ``aiohttp.web.get``, ``django.urls.path``) or from the object it is called on.

Routes get the prefixes the file gives (a blueprint's ``url_prefix``, an ``APIRouter(prefix=)``, a
router included or a sub-application mounted in another of the file, a Django ``include`` of a list
or a DRF router, a Starlette ``Mount``); a router imported from another module and included here is
a mount (:attr:`HttpRoute.mount`), spelled as the import spells its module.

In-process test clients are HTTP calls with no host (the app under test answers them; the lead links
them to the service owning the test): what a test client constructor (Starlette/FastAPI/Litestar
``TestClient``, Django ``Client``, DRF ``APIClient``, aiohttp ``TestClient``, WebTest, Falcon),
``app.test_client()`` (Flask, Quart), an httpx client wired to an app (``ASGITransport``, ``app=``)
or Sanic's ``app.test_client`` gives, a test case's ``self.client`` (Django, DRF, Flask-Testing,
aiohttp, and a project's own ``*TestCase`` base in a file testing Django; ``self.simulate_*`` of
Falcon, ``self.fetch`` of Tornado), a parameter annotated with a test
client class, a pytest fixture of the file returning or yielding one, pytest-aiohttp's
``aiohttp_client`` and, in a file testing Django, pytest-django's ``client`` fixtures. A ``client``
fixture of another file (conftest.py) is not guessed.

A request whose URL is a field of a request wrapper of the file (a class whose ``__init__`` keeps a
parameter as ``self.<field>``, a dataclass, a named tuple, a pydantic model), as in
``requests.get(url=req.url)`` with ``req`` known to be such an instance, is read at each construction
of the wrapper in the file (where the URL is given), with the hand-off's verb (or the wrapper's
method field) and client; a wrapper constructed only in other files leaves the hand-off a computed
call.

Names follow Python's scoping: a name is looked up in the innermost function that binds it (the
latest binding that ends before the use), then in the enclosing functions and the module (their
last binding); class bodies are not visible to methods; a loop variable holds nothing readable;
``self.<attr>`` holds what any method of the class (else of a base class of the file) assigns to it;
a parameter of ``__init__`` holds what the class's constructor calls pass. Every evaluation is
bounded in depth, guarded against cycles and memoized (a result cut short by a cycle or the depth
bound is not kept), and the passes read the nodes in source order: the same bytes give the same facts.

Nothing is guessed: a call on an object whose library the file does not show is no call (a ``get``
on a dict, a SQLAlchemy ``session.get``); a URL the file cannot spell is a call with ``computed``
set; a topic it cannot spell is a message with ``computed`` set.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Final, TypeVar

import attrs
import tree_sitter

from .._facts import Constant, HttpCall, HttpRoute, MessageFact, MessageRole
from . import _kiota, _openapi_clients, _ts
from ._common import Definitions, captures, query, squash
from ._links import HTTP_METHODS, join_paths, route_template, url_parts, verb
from ._config import secret_name

__all__ = ["Links", "extract"]

_LANGUAGE: Final = "python"

_QUERY: Final = """
(call) @call
(decorator) @decorator
(assignment) @assign
(with_item) @with
(parameters) @params
(return_statement) @return
(for_statement left: (_) @for)
(augmented_assignment) @augment
(yield) @yield
"""

#: Dapr's programmatic subscriptions (``{"pubsubname": ..., "topic": ...}``), read only when named.
_DICT_QUERY: Final = "(dictionary) @dict"

#: Top-level packages whose import makes a file worth reading for links.
_LIBRARIES: Final = frozenset(
    {
        "aio_pika", "aioboto3", "aiohttp", "aiokafka", "aioredis", "amqp", "boto3", "bottle", "celery",
        "confluent_kafka", "dapr", "django", "falcon", "fastapi", "flask", "flask_restful", "flask_restplus",
        "flask_restx", "google", "httpx", "kafka", "kombu", "litestar", "locust", "nats", "pika", "pyramid",
        "quart", "redis", "requests", "rest_framework", "sanic", "starlette", "tornado", "urllib", "urllib2",
        "urllib3", "flask_testing", "pytest_django", "sanic_testing", "webtest", "werkzeug",
    }
)  # fmt: skip

#: Spellings that make a file worth reading even when its imports name no library (an ``app``
#: imported from a module of the project, a channel handed over by a helper).
_HINTS: Final = (
    b"basic_publish", b"basic_consume", b"queue_bind", b"pubsubname", b"publish_event", b"include_router",
    b"register_blueprint", b"add_url_rule", b".router.add_",
)  # fmt: skip
#: Spellings of the in-process test clients (a test file often imports its app from the project alone).
_TEST_HINTS: Final = (b"test_client", b"TestClient", b"aiohttp_client", b"django_db", b"asgi_client")
#: A route decorator (searched only when no hint above is found: its leading ``@`` makes it fast).
_ROUTE_DECORATOR: Final = re.compile(rb"@[ \t]*[\w.]+\.(?:route|get|post|put|patch|delete|head|options|api_route)\s*\(")

#: How deep an expression is followed (names, attributes, operators, calls).
_DEPTH_MAX: Final = 24
#: Pieces of one string beyond which it is not read further.
_PIECES_MAX: Final = 64
#: Call sites read for what a parameter receives.
_CALL_SITES_MAX: Final = 8
#: Ancestors climbed to find the list, ``include`` or ``Mount`` a route sits in.
_CLIMB_MAX: Final = 12

_VERBS: Final = frozenset(method.lower() for method in HTTP_METHODS)

#: A literal piece of a string (True, text) or an expression (False, its text or a marker).
_Piece = tuple[bool, str]
#: A topic, queue, channel or subject: (name, address, computed).
_Named = tuple[str, str, bool]
_COMPUTED: Final = ("", "", True)
_T = TypeVar("_T")

_MARKER: Final = re.compile(r"^(?:env|config|const):")


@attrs.frozen
class Links:
    """The link facts of one file, each kind in source order."""

    routes: tuple[HttpRoute, ...] = ()
    calls: tuple[HttpCall, ...] = ()
    messages: tuple[MessageFact, ...] = ()
    constants: tuple[Constant, ...] = ()


def extract(
    root: tree_sitter.Node, source: bytes, definitions: Definitions, import_nodes: Sequence[tree_sitter.Node]
) -> Links:
    """The links of a Python file whose tree is ``root`` (see the module docstring)."""
    imports = _Imports(source, import_nodes)
    constants = tuple(_constants(root, source, definitions))
    kiota_only = not (
        imports.roots & _LIBRARIES
        or any(hint in source for hint in _HINTS + _TEST_HINTS)
        or _ROUTE_DECORATOR.search(source)
    )
    if (
        kiota_only
        and not _kiota.python_wanted(imports.roots, imports.qual, source)
        and not _openapi_clients.python_wanted(imports.roots, imports.qual, source)
    ):
        return Links(constants=constants)
    found = captures(query(_LANGUAGE, _QUERY), root)
    dicts = captures(query(_LANGUAGE, _DICT_QUERY), root).get("dict", []) if b"pubsubname" in source else []
    file = _File(source, definitions, imports, found)
    if kiota_only:  # a file of no library known here: its Kiota requests alone (see _kiota.py)
        file.bind()
        _kiota.python_calls(file)
        _openapi_clients.python_calls(file)  # and its calls through generated OpenAPI clients
    else:
        file.run(dicts)
    return Links(
        routes=file.out.done(file.out.routes),
        calls=file.out.done(file.out.calls),
        messages=file.out.done(file.out.messages),
        constants=constants,
    )


# -- imports -----------------------------------------------------------------------------------------


class _Imports:
    """What each imported name stands for: its qualified name and where it was imported from."""

    def __init__(self, source: bytes, nodes: Iterable[tree_sitter.Node]) -> None:
        #: local name -> qualified dotted name (``web`` -> ``aiohttp.web``, ``F`` -> ``flask.Flask``)
        self.qual: dict[str, str] = {}
        #: local name -> (module as written, imported name or "") for mounts and constants
        self.origin: dict[str, tuple[str, str]] = {}
        #: top-level packages imported, star imports included
        self.roots: set[str] = set()
        for node in nodes:
            self._add(source, node)

    def _add(self, source: bytes, node: tree_sitter.Node) -> None:
        if node.type == "import_statement":
            for name in node.children_by_field_name("name"):
                alias = None
                if name.type == "aliased_import":
                    alias = name.child_by_field_name("alias")
                    name = name.child_by_field_name("name")
                if name is None:
                    continue
                module = squash(_ts.text(name, source))
                if not module:
                    continue
                self.roots.add(module.split(".", 1)[0])
                if alias is not None:
                    local = _ts.text(alias, source)
                    self.qual[local] = module
                    self.origin[local] = (module, "")
                else:
                    top = module.split(".", 1)[0]
                    self.qual[top] = top
                    self.origin[top] = (top, "")
            return
        if node.type != "import_from_statement":
            return
        module = squash(_ts.text(node.child_by_field_name("module_name"), source))
        if not module:
            return
        if not module.startswith("."):
            self.roots.add(module.split(".", 1)[0])
        for child in node.children_by_field_name("name"):
            alias = None
            if child.type == "aliased_import":
                alias = child.child_by_field_name("alias")
                child = child.child_by_field_name("name")
            if child is None:
                continue
            name = squash(_ts.text(child, source))
            local = _ts.text(alias, source) if alias is not None else name
            self.qual[local] = (module + name) if module.endswith(".") else f"{module}.{name}"
            self.origin[local] = (module, name)

    def module_of(self, local: str, attribute: str = "") -> str:
        """How this file spells the module a mounted router lives in: ``from .api import bp`` gives
        ``.api`` for ``bp``; ``from . import orders`` gives ``.orders`` for ``orders.router``."""
        module, name = self.origin.get(local, ("", ""))
        if not module:
            return ""
        if attribute and name:
            return module + name if module.endswith(".") else f"{module}.{name}"
        return module


# -- constants ---------------------------------------------------------------------------------------

#: Words of a name that make its string a link (a trailing ``s`` allowed).
_LINK_WORDS: Final = frozenset(
    {"topic", "queue", "channel", "exchange", "subject", "stream", "event", "destination", "route", "path",
     "url", "uri", "endpoint", "address", "host"}
)  # fmt: skip
#: Words of a name that make it look secret: such a constant is never kept.
_SECRET_WORDS: Final = frozenset(
    {"key", "keys", "token", "tokens", "secret", "secrets", "password", "passwords", "passwd", "pwd",
     "credential", "credentials", "apikey"}
)  # fmt: skip
_WORD: Final = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
#: A value that looks like a credential: a long unbroken run mixing cases and digits.
_TOKEN_LIKE: Final = re.compile(
    r"(?=[A-Za-z0-9+/=]*\d)(?=[A-Za-z0-9+/=]*[a-z])(?=[A-Za-z0-9+/=]*[A-Z])[A-Za-z0-9+/=]{20,}"
)
_VALUE_MAX: Final = 200


def _words(name: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(name)]


def _names_link(words: list[str]) -> bool:
    return any(word in _LINK_WORDS or (word.endswith("s") and word[:-1] in _LINK_WORDS) for word in words)


def _secret_value(value: str) -> bool:
    scheme = value.find("://")
    if scheme >= 0 and "@" in value[scheme + 3 :].split("/", 1)[0]:
        return True
    return bool(_TOKEN_LIKE.fullmatch(value))


def _constants(root: tree_sitter.Node, source: bytes, definitions: Definitions) -> Iterable[Constant]:
    """String constants that name a link, at module level and in class bodies, in source order."""
    holders: list[tuple[str, tree_sitter.Node]] = [("", root)]
    for index, node in enumerate(definitions.nodes):
        if definitions.kinds[index] == "class":
            body = node.child_by_field_name("body")
            if body is not None:
                holders.append((definitions.facts[index].name, body))
    found: list[tuple[int, Constant]] = []
    for owner, holder in holders:
        owner_words = _words(owner)
        for statement in holder.named_children:
            if statement.type != "expression_statement" or statement.named_child_count != 1:
                continue
            assign = statement.named_child(0)
            if assign is None or assign.type != "assignment":
                continue
            left, right = assign.child_by_field_name("left"), assign.child_by_field_name("right")
            if left is None or right is None or left.type != "identifier" or right.type != "string":
                continue
            name = _ts.text(left, source)
            words = _words(name)
            if name.startswith("__") or secret_name(name) or set(words) & _SECRET_WORDS or set(owner_words) & _SECRET_WORDS:
                continue
            if not (_names_link(words) or _names_link(owner_words)):
                continue
            value = _plain_string(right, source)
            if value is None or not value or len(value) > _VALUE_MAX or any(c.isspace() for c in value):
                continue
            if _secret_value(value):
                continue
            found.append((assign.start_byte, Constant(f"{owner}.{name}" if owner else name, value, _ts.line(assign))))
    found.sort(key=lambda item: item[0])
    return [constant for _, constant in found]


# -- string literals ---------------------------------------------------------------------------------

_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "\n": ""}
_ESCAPE: Final = re.compile(r"\\(.)", re.DOTALL)


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m[1], m[0]), text)


def _string_prefix(node: tree_sitter.Node, source: bytes) -> str:
    start = node.child(0)
    if start is None or start.type != "string_start":
        return ""
    return _ts.text(start, source).rstrip("'\"").lower()


def _content(node: tree_sitter.Node, source: bytes, prefix: str) -> str:
    text = _ts.text(node, source)
    if "r" not in prefix:
        text = _unescape(text)
    if "f" in prefix:
        text = text.replace("{{", "{").replace("}}", "}")
    return text


def _plain_string(node: tree_sitter.Node, source: bytes) -> str | None:
    """The value of a string literal without interpolation (None for an f-string with one)."""
    if node.type != "string":
        return None
    prefix = _string_prefix(node, source)
    out = []
    for child in node.named_children:
        if child.type == "interpolation":
            return None
        if child.type == "string_content":
            out.append(_content(child, source, prefix))
    return "".join(out)


# -- reading a string built at run time -----------------------------------------------------------

_PERCENT: Final = re.compile(r"%(?:\((\w+)\))?[-#0 +]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[hlL]?([diouxXeEfFgGcrsa%])")
_BRACES: Final = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


def _merge(pieces: Iterable[_Piece]) -> list[_Piece]:
    out: list[_Piece] = []
    for literal, text in pieces:
        if literal and not text:
            continue
        if literal and out and out[-1][0]:
            out[-1] = (True, out[-1][1] + text)
        else:
            out.append((literal, text))
    return out


def _is_marker(text: str) -> bool:
    return bool(_MARKER.match(text))


def _literal_text(pieces: Sequence[_Piece]) -> str | None:
    """The whole text when every piece is literal."""
    if any(not literal for literal, _ in pieces):
        return None
    return "".join(text for _, text in pieces)


_AUTHORITY_END: Final = re.compile(r"[/?#]")
_SCHEME: Final = re.compile(r"^[a-zA-Z][\w+.-]*://")


def _normalize(pieces: list[_Piece]) -> list[_Piece]:
    """Pieces whose authority ``url_parts`` reads: what follows the host up to the path (a port or a
    domain suffix given by expressions: ``http://{host}{domain}:{port}/x``, ``{BASE}:{PORT}/x``) is
    dropped, and a base expression followed by a relative path gets the ``/`` a base URL ends with."""
    pieces = _merge(pieces)
    if not pieces:
        return pieces
    literal, first = pieces[0]
    if literal:
        scheme = _SCHEME.match(first)
        if scheme is None or len(pieces) == 1 or _AUTHORITY_END.search(first, scheme.end()):
            return pieces
        authority = first[scheme.end() :]
        host = re.match(r"[^:.]*", authority)
        host_text = host[0] if host else ""
        if not host_text:
            if authority or pieces[1][0]:
                return pieces
            # "http://" + host + ...: the host is the expression
            return _merge([pieces[0], pieces[1], *_after_authority(pieces[2:])])
        # "http://orders" + domain + ":" + port + "/x": the host is what the literal spells
        rest = [(True, authority[len(host_text) :]), *pieces[1:]]
        if not rest[0][1]:
            rest = rest[2:] if not rest[1][0] else rest[1:]  # an expression glued to the host
        return _merge([(True, first[: scheme.end()] + host_text), *_after_authority(rest)])
    tail = _after_authority(pieces[1:])
    if tail and tail[0][0] and tail[0][1][:1].isalnum():
        tail[0] = (True, "/" + tail[0][1])
    return _merge([pieces[0], *tail])


_AUTHORITY_PART: Final = re.compile(r"^[.:][\w.:-]*")


def _after_authority(rest: list[_Piece]) -> list[_Piece]:
    """``rest`` (what follows a host) from its path on: ``":8080"``, ``"." + domain``, ``":" + port``
    are the rest of the authority."""
    index = 0
    while index < len(rest):
        literal, text = rest[index]
        if not literal:
            break
        part = _AUTHORITY_PART.match(text)
        if part is None:
            break
        if part.end() < len(text):
            return [(True, text[part.end() :]), *rest[index + 1 :]]
        index += 1
        if index < len(rest) and not rest[index][0]:
            index += 1  # the port or domain the literal introduces
    return list(rest[index:])


def _host_of(text: str) -> str:
    """The host of a URL or ``host[:port]`` literal, "" when it has none."""
    if _SCHEME.match(text):
        return url_parts([(True, text)]).host
    match = re.fullmatch(r"([A-Za-z0-9][\w.-]*)(?::\d+)?/?", text)
    return match[1].lower() if match else ""


# -- the facts of one file ---------------------------------------------------------------------------


class _Out:
    """Facts collected with the byte offset of their anchor; ``done`` gives them in source order."""

    def __init__(self) -> None:
        self.routes: list[tuple[int, int, HttpRoute]] = []
        self.calls: list[tuple[int, int, HttpCall]] = []
        self.messages: list[tuple[int, int, MessageFact]] = []
        self._seen: set[tuple[int, object]] = set()
        self._count = 0

    def add(self, bucket: list, offset: int, fact: object) -> None:
        key = (offset, fact)
        if key in self._seen:
            return
        self._seen.add(key)
        self._count += 1
        bucket.append((offset, self._count, fact))

    @staticmethod
    def done(bucket: list) -> tuple:
        return tuple(fact for _, _, fact in sorted(bucket, key=lambda item: (item[0], item[1])))


@attrs.frozen
class _Obj:
    """An object a library made: its kind, the library, and the call that made it (if seen)."""

    kind: str
    lib: str
    node: tree_sitter.Node | None = attrs.field(default=None, eq=False)
    #: for queues and exchanges: the name they were declared with, as pieces
    name: tuple[_Piece, ...] | None = None

    @property
    def ident(self) -> int:
        return self.node.start_byte if self.node is not None else -1


@attrs.frozen
class _Field:
    """How a construction of a request wrapper gives one of its fields."""

    #: Position among the constructor's arguments (-1: by keyword only).
    position: int
    keyword: str
    default: tree_sitter.Node | None = attrs.field(default=None, eq=False)


@attrs.frozen
class _Wrapper:
    """A class, dataclass or named tuple of the file whose constructor takes its fields."""

    name: str
    #: The class's definition index (-1 for a ``namedtuple(...)``).
    klass: int
    fields: dict[str, _Field] = attrs.field(eq=False)


@attrs.frozen
class _Handoff:
    """A request whose URL is a wrapper's field: its client, and its verb or the field giving it."""

    client: str
    method: str
    method_field: str = ""
    #: The client object sending it (its ``base_url`` prefixes the wrapper's URL).
    base: _Obj | None = None


#: Decorators that give a class a constructor taking its annotated fields in order.
_DATACLASS_DECORATORS: Final = frozenset(
    {"dataclasses.dataclass", "attr.s", "attr.attrs", "attr.define", "attr.frozen", "attr.mutable", "attrs.define",
     "attrs.frozen", "attrs.mutable", "pydantic.dataclasses.dataclass"}
)  # fmt: skip
#: Bases that do the same (pydantic models take them by keyword only).
_FIELD_BASES: Final = {"typing.NamedTuple": True, "typing_extensions.NamedTuple": True, "pydantic.BaseModel": False}
_NAMEDTUPLES: Final = frozenset({"collections.namedtuple", "typing.NamedTuple", "typing_extensions.NamedTuple"})

#: Qualified constructor (or factory) -> (kind, library).
_CONSTRUCTORS: Final = {
    # HTTP clients
    "requests.Session": ("http", "requests"),
    "requests.session": ("http", "requests"),
    "requests.sessions.Session": ("http", "requests"),
    "httpx.Client": ("http", "httpx"),
    "httpx.AsyncClient": ("http", "httpx"),
    "aiohttp.ClientSession": ("http", "aiohttp"),
    "aiohttp.client.ClientSession": ("http", "aiohttp"),
    "urllib3.PoolManager": ("http", "urllib3"),
    "urllib3.poolmanager.PoolManager": ("http", "urllib3"),
    "tornado.httpclient.AsyncHTTPClient": ("http", "tornado"),
    "tornado.httpclient.HTTPClient": ("http", "tornado"),
    # HTTP servers
    "flask.Flask": ("app", "flask"),
    "flask.Blueprint": ("blueprint", "flask"),
    "flask.blueprints.Blueprint": ("blueprint", "flask"),
    "quart.Quart": ("app", "quart"),
    "quart.Blueprint": ("blueprint", "quart"),
    "fastapi.FastAPI": ("app", "fastapi"),
    "fastapi.APIRouter": ("router", "fastapi"),
    "fastapi.routing.APIRouter": ("router", "fastapi"),
    "starlette.applications.Starlette": ("app", "starlette"),
    "starlette.routing.Router": ("app", "starlette"),
    "sanic.Sanic": ("app", "sanic"),
    "sanic.Blueprint": ("blueprint", "sanic"),
    "aiohttp.web.Application": ("app", "aiohttp"),
    "aiohttp.web.RouteTableDef": ("routes", "aiohttp"),
    "falcon.App": ("app", "falcon"),
    "falcon.API": ("app", "falcon"),
    "falcon.asgi.App": ("app", "falcon"),
    "bottle.Bottle": ("app", "bottle"),
    "rest_framework.routers.DefaultRouter": ("drf", "drf"),
    "rest_framework.routers.SimpleRouter": ("drf", "drf"),
    "flask_restx.Api": ("restapi", "flask-restx"),
    "flask_restplus.Api": ("restapi", "flask-restx"),
    "flask_restful.Api": ("restapi", "flask-restful"),
    "flask_restx.Namespace": ("namespace", "flask-restx"),
    "flask_restplus.Namespace": ("namespace", "flask-restx"),
    "dapr.ext.fastapi.DaprApp": ("dapr-app", "dapr"),
    "dapr.ext.grpc.App": ("dapr-app", "dapr"),
    "dapr.ext.flask.DaprApp": ("dapr-app", "dapr"),
    # messaging
    "kafka.KafkaProducer": ("producer", "kafka-python"),
    "kafka.KafkaConsumer": ("consumer", "kafka-python"),
    "confluent_kafka.Producer": ("producer", "confluent-kafka"),
    "confluent_kafka.SerializingProducer": ("producer", "confluent-kafka"),
    "confluent_kafka.avro.AvroProducer": ("producer", "confluent-kafka"),
    "confluent_kafka.Consumer": ("consumer", "confluent-kafka"),
    "confluent_kafka.DeserializingConsumer": ("consumer", "confluent-kafka"),
    "confluent_kafka.avro.AvroConsumer": ("consumer", "confluent-kafka"),
    "aiokafka.AIOKafkaProducer": ("producer", "aiokafka"),
    "aiokafka.AIOKafkaConsumer": ("consumer", "aiokafka"),
    "redis.Redis": ("redis", "redis-py"),
    "redis.StrictRedis": ("redis", "redis-py"),
    "redis.from_url": ("redis", "redis-py"),
    "redis.Redis.from_url": ("redis", "redis-py"),
    "redis.client.Redis": ("redis", "redis-py"),
    "redis.RedisCluster": ("redis", "redis-py"),
    "redis.cluster.RedisCluster": ("redis", "redis-py"),
    "redis.asyncio.Redis": ("redis", "redis-py"),
    "redis.asyncio.StrictRedis": ("redis", "redis-py"),
    "redis.asyncio.from_url": ("redis", "redis-py"),
    "redis.asyncio.Redis.from_url": ("redis", "redis-py"),
    "redis.asyncio.RedisCluster": ("redis", "redis-py"),
    "aioredis.Redis": ("redis", "aioredis"),
    "aioredis.from_url": ("redis", "aioredis"),
    "aioredis.create_redis": ("redis", "aioredis"),
    "aioredis.create_redis_pool": ("redis", "aioredis"),
    "nats.connect": ("nats", "nats-py"),
    "nats.NATS": ("nats", "nats-py"),
    "nats.aio.client.Client": ("nats", "nats-py"),
    "google.cloud.pubsub_v1.PublisherClient": ("gpublisher", "google-cloud-pubsub"),
    "google.cloud.pubsub.PublisherClient": ("gpublisher", "google-cloud-pubsub"),
    "google.cloud.pubsub_v1.SubscriberClient": ("gsubscriber", "google-cloud-pubsub"),
    "google.cloud.pubsub.SubscriberClient": ("gsubscriber", "google-cloud-pubsub"),
    "dapr.clients.DaprClient": ("dapr", "dapr"),
    "aio_pika.connect": ("amqp-connection", "aio-pika"),
    "aio_pika.connect_robust": ("amqp-connection", "aio-pika"),
    "aio_pika.Connection": ("amqp-connection", "aio-pika"),
    "aio_pika.RobustConnection": ("amqp-connection", "aio-pika"),
    "aio_pika.Channel": ("amqp-channel", "aio-pika"),
    "aio_pika.RobustChannel": ("amqp-channel", "aio-pika"),
    "aio_pika.abc.AbstractChannel": ("amqp-channel", "aio-pika"),
    "aio_pika.abc.AbstractRobustChannel": ("amqp-channel", "aio-pika"),
    "aio_pika.abc.AbstractConnection": ("amqp-connection", "aio-pika"),
    "aio_pika.abc.AbstractRobustConnection": ("amqp-connection", "aio-pika"),
    "kombu.Connection": ("kombu-connection", "kombu"),
    "kombu.Producer": ("kombu-producer", "kombu"),
    "kombu.Exchange": ("kombu-exchange", "kombu"),
    "kombu.Queue": ("kombu-queue", "kombu"),
    "celery.Celery": ("celery", "celery"),
    "boto3.Session": ("boto-session", "boto3"),
    "boto3.session.Session": ("boto-session", "boto3"),
    "aioboto3.Session": ("boto-session", "boto3"),
}

#: In-process test clients (the app under test answers in the test's own process; their requests
#: carry no host): qualified constructor -> the client's label.
_TEST_CLIENTS: Final = {
    **dict.fromkeys(
        ("fastapi.testclient.TestClient", "starlette.testclient.TestClient", "litestar.testing.TestClient",
         "litestar.testing.AsyncTestClient", "litestar.testing.create_test_client",
         "litestar.testing.create_async_test_client"),
        "testclient",
    ),
    **dict.fromkeys(
        ("django.test.Client", "django.test.AsyncClient", "django.test.client.Client", "django.test.client.AsyncClient",
         "rest_framework.test.APIClient"),
        "django-test",
    ),
    "flask.testing.FlaskClient": "flask-test",
    "werkzeug.test.Client": "werkzeug-test",
    "aiohttp.test_utils.TestClient": "aiohttp-test",
    "webtest.TestApp": "webtest",
    "webtest.app.TestApp": "webtest",
    "falcon.testing.TestClient": "falcon-test",
    **dict.fromkeys(
        ("sanic_testing.SanicTestClient", "sanic_testing.SanicASGITestClient",
         "sanic_testing.testing.SanicTestClient", "sanic_testing.testing.SanicASGITestClient"),
        "sanic-test",
    ),
}  # fmt: skip

#: The methods of each test client that send a request, as its library documents them.
_TEST_SENDERS: Final = {
    "flask-test": _VERBS | {"open"},
    "quart-test": _VERBS | {"open"},
    "werkzeug-test": _VERBS | {"open"},
    "testclient": _VERBS | {"request", "stream"},
    "django-test": _VERBS | {"generic"},
    "aiohttp-test": _VERBS | {"request"},
    "webtest": _VERBS | {"post_json", "put_json", "patch_json", "delete_json"},
    "falcon-test": {f"simulate_{verb_}" for verb_ in _VERBS} | {"simulate_request"},
    "sanic-test": _VERBS,
    "tornado-test": {"fetch"},
}
#: Every method name some test client sends a request with.
_TEST_METHODS: Final = frozenset().union(*_TEST_SENDERS.values())
#: Test clients whose request path defaults to ``/`` when none is given.
_TEST_ROOT_DEFAULT: Final = frozenset({"flask-test", "quart-test", "werkzeug-test", "falcon-test"})

#: Test case classes that hold a test client: qualified base -> (label, attributes holding it);
#: ``self`` when the test case's own methods send the requests (``self.simulate_get``, ``self.fetch``).
_TEST_CASES: Final = {
    **dict.fromkeys(
        ("django.test.TestCase", "django.test.SimpleTestCase", "django.test.TransactionTestCase",
         "django.test.LiveServerTestCase", "django.test.testcases.TestCase", "django.test.testcases.SimpleTestCase",
         "django.test.testcases.TransactionTestCase", "django.test.testcases.LiveServerTestCase",
         "django.contrib.staticfiles.testing.StaticLiveServerTestCase"),
        ("django-test", ("client", "async_client")),
    ),
    **dict.fromkeys(
        ("rest_framework.test.APITestCase", "rest_framework.test.APISimpleTestCase",
         "rest_framework.test.APITransactionTestCase", "rest_framework.test.APILiveServerTestCase"),
        ("django-test", ("client",)),
    ),
    "flask_testing.TestCase": ("flask-test", ("client",)),
    "flask_testing.utils.TestCase": ("flask-test", ("client",)),
    "aiohttp.test_utils.AioHTTPTestCase": ("aiohttp-test", ("client",)),
    "falcon.testing.TestCase": ("falcon-test", ("self",)),
    "tornado.testing.AsyncHTTPTestCase": ("tornado-test", ("self",)),
    "tornado.testing.AsyncHTTPSTestCase": ("tornado-test", ("self",)),
}  # fmt: skip

#: pytest-django's fixtures that are test clients (read when the file shows it tests Django).
_DJANGO_FIXTURES: Final = frozenset({"client", "async_client", "admin_client", "async_admin_client"})
#: Decorators that make a function a pytest fixture.
_FIXTURE_DECORATORS: Final = frozenset({"pytest.fixture", "pytest_asyncio.fixture"})
#: httpx transports that hand requests to an app in the same process.
_IN_PROCESS_TRANSPORTS: Final = frozenset({"httpx.ASGITransport", "httpx.WSGITransport"})

#: Module-level request functions: qualified name -> client library.
_HTTP_FUNCTIONS: Final = {
    **{f"requests.{verb_}": "requests" for verb_ in (*_VERBS, "request")},
    **{f"requests.api.{verb_}": "requests" for verb_ in (*_VERBS, "request")},
    **{f"httpx.{verb_}": "httpx" for verb_ in (*_VERBS, "request", "stream")},
    "aiohttp.request": "aiohttp",
    "urllib.request.urlopen": "urllib",
    "urllib2.urlopen": "urllib",
    "urllib3.request": "urllib3",
}

#: Packages whose import lets a method call be an HTTP request.
_HTTP_CLIENT_ROOTS: Final = frozenset({"requests", "httpx", "aiohttp", "urllib3", "tornado", "locust"})

_KAFKA: Final = frozenset({"kafka", "confluent_kafka", "aiokafka"})
_REDIS: Final = frozenset({"redis", "aioredis"})
_BOTO: Final = frozenset({"boto3", "aioboto3"})
#: Messaging methods, and the packages one of which a file must import for them to be read.
_MESSAGE_ROOTS: Final = {
    **dict.fromkeys(("send", "send_and_wait", "produce", "send_batch", "assign"), _KAFKA),
    "subscribe": _KAFKA | _REDIS | {"nats", "google", "dapr"},
    "publish": _REDIS | _BOTO | {"nats", "google", "aio_pika", "kombu"},
    **dict.fromkeys(("spublish", "xadd", "xread", "xreadgroup", "psubscribe", "ssubscribe"), _REDIS),
    **dict.fromkeys(("request", "pull_subscribe"), frozenset({"nats"})),
    **dict.fromkeys(("pull", "streaming_pull"), frozenset({"google"})),
    **dict.fromkeys(
        ("publish_event", "invoke_method", "invoke_method_async", "subscribe_with_handler"), frozenset({"dapr"})
    ),
    **dict.fromkeys(
        ("send_message", "send_message_batch", "receive_message", "send_messages", "receive_messages", "publish_batch"),
        _BOTO,
    ),
    **dict.fromkeys(("consume", "iterator", "bind"), frozenset({"aio_pika"})),
    **dict.fromkeys(("get", "get_nowait", "put"), frozenset({"aio_pika", "kombu"})),
    "Consumer": frozenset({"kombu"}),
    **dict.fromkeys(("apply_async", "send_task", "set"), frozenset({"celery"})),
}

#: Methods of an HTTP client object that send a request (besides the verbs).
_CLIENT_METHODS: Final = frozenset({"request", "stream", "fetch", "urlopen"})

#: Environment reads: qualified function -> True.
_ENV_FUNCTIONS: Final = frozenset(
    {"os.getenv", "os.environ.get", "os.environ.setdefault", "decouple.config", "environ.Env", "os.environb.get"}
)

#: Decorator methods that declare a route (the verbs besides).
_ROUTE_DECORATORS: Final = frozenset({"route", "api_route"})

#: Server kinds on which ``.get('/x')`` and friends declare routes.
_SERVER_KINDS: Final = frozenset({"app", "blueprint", "router", "routes", "namespace", "restapi"})

#: Frameworks recognised by a module the file imports (first match in this order wins).
_FRAMEWORK_ROOTS: Final = (
    ("fastapi", "fastapi"),
    ("flask_restx", "flask-restx"),
    ("flask_restplus", "flask-restx"),
    ("flask_restful", "flask-restful"),
    ("flask", "flask"),
    ("quart", "quart"),
    ("sanic", "sanic"),
    ("aiohttp", "aiohttp"),
    ("starlette", "starlette"),
    ("litestar", "litestar"),
    ("bottle", "bottle"),
    ("falcon", "falcon"),
    ("pyramid", "pyramid"),
)

#: Brokers of each messaging library.
_BROKERS: Final = {
    "kafka-python": "kafka",
    "confluent-kafka": "kafka",
    "aiokafka": "kafka",
    "redis-py": "redis",
    "aioredis": "redis",
    "nats-py": "nats",
    "pika": "rabbitmq",
    "amqp": "rabbitmq",
    "aio-pika": "rabbitmq",
    "kombu": "rabbitmq",
    "celery": "",
    "google-cloud-pubsub": "pubsub",
    "dapr": "",
}

_DJANGO_ROUTES: Final = frozenset(
    {"django.urls.path", "django.urls.re_path", "django.conf.urls.url", "django.urls.url"}
)

#: Names a project gives its application or router objects (``app``, ``orders_router``, ``api_bp``).
_APP_NAME: Final = re.compile(r"(?i)(?:\w+_)?(?:app|application|api|router|bp|blueprint|routes|server)")

_SANIC_PARAM: Final = re.compile(r"<(\w+)(?::[^<>]*)?>")
_CATCH_ALL_ANGLE: Final = re.compile(r"<path:(\w+)>")
_CATCH_ALL_BRACE: Final = re.compile(r"\{(\w+):path\}")
_DAPR_PUBLISH: Final = re.compile(r"^/v1\.0(?:-alpha1|-beta1)?/publish/([^/]+)/([^/?#]+)")
_DAPR_INVOKE: Final = re.compile(r"^/v1\.0/invoke/([\w.{}-]+)/method(/.*)?$")


def _template(raw: str, framework: str, regex: bool = False) -> str:
    """``raw`` spelled as :func:`route_template` spells routes, with the framework's own catch-alls."""
    path = raw
    if framework == "sanic":
        path = _SANIC_PARAM.sub(lambda m: "{" + m[1] + "}", path)
    path = _CATCH_ALL_ANGLE.sub(lambda m: "{*" + m[1] + "}", path)
    path = _CATCH_ALL_BRACE.sub(lambda m: "{*" + m[1] + "}", path)
    if regex and not path.startswith("^"):
        path = "^" + path
    return route_template(path)


class _File:
    """One file's bindings and evaluators, and the passes that read its links."""

    def __init__(
        self,
        source: bytes,
        definitions: Definitions,
        imports: _Imports,
        found: dict[str, list[tree_sitter.Node]],
    ) -> None:
        self.source = source
        self.defs = definitions
        self.imports = imports
        self.found = found
        self.out = _Out()
        #: (scope, name) -> [(end offset, value node, kind)]: kind "value", "param" or "type"
        self.names: dict[tuple[int, str], list[tuple[int, tree_sitter.Node, str]]] = {}
        #: (class index, attribute) -> value nodes (or annotations, kind "type")
        self.attrs: dict[tuple[int, str], list[tuple[tree_sitter.Node, str]]] = {}
        #: (holder's last name, key) -> values of ``holder[key] = value`` (``app.config["X"] = ...``)
        self.items: dict[tuple[str, str], list[tree_sitter.Node]] = {}
        #: env marker -> the default written beside it, as pieces
        self.env_defaults: dict[str, list[_Piece]] = {}
        #: object ident -> (parent ident, prefix given when included) for routers mounted locally
        self.parents: dict[int, tuple[int, str]] = {}
        #: object ident -> prefix given by a Django ``include(router.urls)`` / aiohttp ``add_subapp``
        self.extra_prefix: dict[int, str] = {}
        #: Django: name of a url list -> prefix it is included under
        self.list_prefix: dict[str, str] = {}
        #: aiohttp: ident of a route table -> the app object it is added to
        self.tables: dict[int, _Obj] = {}
        #: object ident -> the object, for the parents of routers
        self._objects: dict[int, _Obj] = {}
        self._calls_by_name: dict[tuple[str, str], list[tree_sitter.Node]] | None = None
        #: AMQP: the queues (as written) a ``queue_bind`` binds
        self.bound_queues: set[str] = set()
        #: evaluations under way, and the finished ones that met no cycle (see :meth:`evaluate`)
        self._busy: set[tuple[str, int, int, str]] = set()
        self._memo: dict[tuple[str, int, int, str], object] = {}
        self._cut = False
        self._passed: dict[int, list[tree_sitter.Node]] = {}
        self._returns: dict[int, list[tuple[tree_sitter.Node, bool]]] | None = None
        self.frameworks = [framework for root, framework in _FRAMEWORK_ROOTS if root in imports.roots]
        #: whether pytest-django's fixtures may be test clients here
        self.django_tests = (
            bool(imports.roots & {"django", "rest_framework", "pytest_django"}) or b"django_db" in source
        )
        self._fixtures: dict[str, list[int]] | None = None
        self._by_name: dict[str, list[int]] | None = None
        self._wrappers: dict[str, _Wrapper] | None = None
        #: requests whose URL is a field of a request wrapper of the file: (wrapper, field, hand-off)
        self.handoffs: list[tuple[str, str, _Handoff]] = []

    # -- plumbing ------------------------------------------------------------------------------

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.source)

    def symbol(self, offset: int) -> str:
        return self.defs.symbol(offset)

    def qualify(self, node: tree_sitter.Node | None, depth: int = 0) -> str:
        """The qualified name an identifier or attribute chain stands for through the imports ("" if
        it does not start with an imported name)."""
        if node is None or depth > _DEPTH_MAX:
            return ""
        if node.type == "identifier":
            return self.imports.qual.get(self.text(node), "")
        if node.type == "attribute":
            head = self.qualify(node.child_by_field_name("object"), depth + 1)
            attribute = node.child_by_field_name("attribute")
            return f"{head}.{self.text(attribute)}" if head and attribute is not None else ""
        return ""

    def bind(self) -> None:
        """Record every assignment, ``with ... as`` and parameter of the file."""
        for node in self.found.get("assign", ()):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            annotation = node.child_by_field_name("type")
            while right is not None and right.type == "assignment":
                right = right.child_by_field_name("right")
            if left is None:
                continue
            if right is None:
                if annotation is not None:
                    self.bind_target(left, annotation, node.end_byte, "type")
                continue
            if left.type in ("pattern_list", "tuple_pattern") and right.type in ("expression_list", "tuple"):
                targets, values = left.named_children, right.named_children
                if len(targets) == len(values):
                    for target, value in zip(targets, values, strict=True):
                        self.bind_target(target, value, node.end_byte, "value")
                continue
            self.bind_target(left, right, node.end_byte, "value")
            if annotation is not None and left.type == "identifier":
                self.bind_target(left, annotation, node.end_byte, "type")
        for node in self.found.get("with", ()):
            value = node.child_by_field_name("value")
            if value is None or value.type != "as_pattern":
                continue
            target = value.child_by_field_name("alias")
            expression = value.named_child(0)
            if target is not None and target.named_child_count == 1 and expression is not None:
                self.bind_target(target.named_child(0), expression, node.end_byte, "value")
        for node in self.found.get("for", ()):
            # a loop variable holds what the loop gives: nothing this file can spell
            targets = [node] if node.type == "identifier" else node.named_children
            for target in targets:
                if target.type == "identifier":
                    self.bind_target(target, target, node.end_byte, "opaque")
        for node in self.found.get("augment", ()):
            left, operator = node.child_by_field_name("left"), node.child_by_field_name("operator")
            if left is not None and left.type == "identifier":
                self.bind_target(
                    left, node, node.end_byte, "aug" if operator is not None and operator.type == "+=" else "opaque"
                )
        for node in self.found.get("params", ()):
            scope = self.defs.enclosing(node.start_byte)
            for parameter in node.named_children:
                name = parameter.child_by_field_name("name") if parameter.type.endswith("default_parameter") else None
                if parameter.type == "identifier":
                    name = parameter
                elif parameter.type == "typed_parameter":
                    name = parameter.named_child(0)
                if name is None or name.type != "identifier":
                    continue
                self.names.setdefault((scope, self.text(name)), []).append((node.end_byte, parameter, "param"))
        for records in self.names.values():
            records.sort(key=lambda record: record[0])

    def bind_target(self, target: tree_sitter.Node | None, value: tree_sitter.Node, end: int, kind: str) -> None:
        if target is None:
            return
        if target.type == "identifier":
            scope = self.defs.enclosing(target.start_byte)
            name = self.text(target)
            self.names.setdefault((scope, name), []).append((end, value, kind))
            if scope >= 0 and self.defs.kinds[scope] == "class":
                self.attrs.setdefault((scope, name), []).append((value, kind))
        elif target.type == "attribute":
            klass = self.class_of_self(target.child_by_field_name("object"))
            attribute = target.child_by_field_name("attribute")
            if klass >= 0 and attribute is not None:
                self.attrs.setdefault((klass, self.text(attribute)), []).append((value, kind))
        elif target.type == "subscript" and kind == "value":
            holder = target.child_by_field_name("value")
            subscript = target.child_by_field_name("subscript")
            key = _plain_string(subscript, self.source) if subscript is not None else None
            if holder is not None and key is not None:
                self.items.setdefault((self.last_name(holder), key), []).append(value)

    def last_name(self, node: tree_sitter.Node) -> str:
        if node.type == "attribute":
            return self.text(node.child_by_field_name("attribute"))
        return squash(self.text(node))

    def class_of_self(self, obj: tree_sitter.Node | None) -> int:
        """The class whose instance ``obj`` is (``self``, ``cls`` or the class's own name), or -1."""
        if obj is None or obj.type != "identifier":
            return -1
        name = self.text(obj)
        index = self.defs.enclosing(obj.start_byte)
        while index >= 0:
            if self.defs.kinds[index] == "class" and (name in ("self", "cls") or self.defs.facts[index].name == name):
                return index
            index = self.defs.parents[index]
        return -1

    def lookup(self, name: str, offset: int) -> list[tuple[tree_sitter.Node, str]]:
        """What ``name`` may hold at ``offset`` (latest first), under Python's scoping."""
        scope = self.defs.enclosing(offset)
        first = True
        while True:
            skip = not first and scope >= 0 and self.defs.kinds[scope] == "class"
            records = None if skip else self.names.get((scope, name))
            if records:
                if first:
                    before = [(node, kind) for end, node, kind in records if end <= offset]
                    if before:
                        return before[::-1]
                return [(node, kind) for _, node, kind in reversed(records)]
            if scope < 0:
                return []
            first = False
            scope = self.defs.parents[scope]

    def evaluate(
        self, tag: str, node: tree_sitter.Node, depth: int, how: Callable[[tree_sitter.Node, int], _T], fallback: _T
    ) -> _T:
        """``how(node, depth)``, memoized; ``fallback`` when the evaluation of ``node`` is already under
        way (a cycle) or too deep. A result that met a cycle or the depth bound on its way is not
        memoized (from elsewhere it may go further), so what is memoized is what any order gives."""
        key = (tag, node.start_byte, node.end_byte, node.type)
        if key in self._memo:
            return self._memo[key]  # type: ignore[return-value]
        if depth > _DEPTH_MAX or key in self._busy:
            self._cut = True
            return fallback
        self._busy.add(key)
        outer, self._cut = self._cut, False
        cut = True
        try:
            found = how(node, depth)
            cut = self._cut
        finally:
            self._busy.discard(key)
            self._cut = outer or cut
        if not cut:
            self._memo[key] = found
        return found

    # -- what an expression is ----------------------------------------------------------------

    def obj(self, node: tree_sitter.Node | None, depth: int = 0) -> _Obj | None:
        """The library object ``node`` evaluates to, when the file shows it."""
        if node is None:
            return None
        found: _Obj | None = self.evaluate("obj", node, depth, self._obj, None)
        return found

    def _obj(self, node: tree_sitter.Node, depth: int) -> _Obj | None:
        kind = node.type
        if kind in ("await", "parenthesized_expression"):
            return self.obj(node.named_child(0) if node.named_child_count else None, depth + 1)
        if kind == "call":
            return self.made_by(node, depth)
        if kind == "identifier":
            for value, how in self.lookup(self.text(node), node.start_byte):
                found = self.obj_of_binding(value, how, depth)
                if found is not None:
                    return found
            return None
        if kind == "attribute":
            owner = node.child_by_field_name("object")
            attribute = self.text(node.child_by_field_name("attribute"))
            klass = self.class_of_self(owner)
            if klass >= 0:
                assigned = self.class_attrs(klass, attribute)
                for value, how in assigned:
                    found = self.obj_of_binding(value, how, depth)
                    if found is not None:
                        return found
                if not assigned:
                    # self.client of a Django, DRF, Flask-Testing or aiohttp test case
                    label, holders = self.test_case(klass)
                    if label and attribute in holders:
                        return _Obj("test", label)
                return None
            if attribute == "default_exchange":
                base = self.obj(owner, depth + 1)
                if base is not None and base.kind == "amqp-channel":
                    return _Obj("amqp-exchange", base.lib, node, ((True, ""),))
            return None
        if kind in ("conditional_expression", "boolean_operator"):
            for child in node.named_children:
                found = self.obj(child, depth + 1)
                if found is not None:
                    return found
        return None

    def class_attrs(self, klass: int, attribute: str, depth: int = 0) -> list[tuple[tree_sitter.Node, str]]:
        """What the methods of the class at ``klass`` assign to ``self.<attribute>``, else what a class
        of this file it derives from assigns (``self.client`` set in a base test case's ``setUp``)."""
        own = self.attrs.get((klass, attribute))
        if own or depth > 8:
            return own or []
        bases = self.defs.nodes[klass].child_by_field_name("superclasses")
        for base in bases.named_children if bases is not None else ():
            if base.type != "identifier" or self.qualify(base):
                continue
            local = self.local_class(self.text(base))
            if 0 <= local < klass:
                found = self.class_attrs(local, attribute, depth + 1)
                if found:
                    return found
        return []

    def subclassed(self, klass: int, depth: int = 0) -> tuple[str, str] | None:
        """(kind, library) when the class at ``klass`` derives from an HTTP session or a test client
        class (``class Client(APIClient)``, ``class Api(requests.Session)``), through classes of the file."""
        bases = self.defs.nodes[klass].child_by_field_name("superclasses") if klass >= 0 and depth < 8 else None
        for base in bases.named_children if bases is not None else ():
            qual = self.qualify(base)
            if qual in _TEST_CLIENTS:
                return "test", _TEST_CLIENTS[qual]
            made = _CONSTRUCTORS.get(qual)
            if made is not None and made[0] == "http":
                return made
            if base.type == "identifier" and not qual:
                local = self.local_class(self.text(base))
                found = self.subclassed(local, depth + 1) if 0 <= local < klass else None
                if found is not None:
                    return found
        return None

    def named_defs(self, name: str) -> list[int]:
        """The definition indices of this file named ``name``, in source order."""
        if self._by_name is None:
            self._by_name = {}
            for index, fact in enumerate(self.defs.facts):
                self._by_name.setdefault(fact.name, []).append(index)
        return self._by_name.get(name, [])

    def local_class(self, name: str) -> int:
        """The definition index of the first class of this file named ``name`` (-1: none)."""
        return next((i for i in self.named_defs(name) if self.defs.kinds[i] == "class"), -1)

    def obj_of_binding(self, value: tree_sitter.Node, how: str, depth: int) -> _Obj | None:
        if how in ("opaque", "aug"):
            return None
        if how == "value":
            return self.obj(value, depth + 1)
        if how == "type":
            return self.typed(value)
        annotation = value.child_by_field_name("type")
        if annotation is not None:
            found = self.typed(annotation)
            if found is not None:
                return found
        default = value.child_by_field_name("value") if value.type.endswith("default_parameter") else None
        if default is not None and default.type != "none":
            return self.obj(default, depth + 1)
        for argument in self.passed(value):
            found = self.obj(argument, depth + 1)
            if found is not None:
                return found
        return self.fixture(value, depth)

    def passed(self, parameter: tree_sitter.Node) -> list[tree_sitter.Node]:
        """The arguments the calls of this file pass for ``parameter`` (``upload(session, url)`` called
        inside ``async with aiohttp.ClientSession() as session``)."""
        known = self._passed.get(parameter.start_byte)
        if known is None:
            known = self._passed[parameter.start_byte] = self._find_passed(parameter)
        return known

    def _find_passed(self, parameter: tree_sitter.Node) -> list[tree_sitter.Node]:
        parameters = parameter.parent
        function = parameters.parent if parameters is not None else None
        if function is None or function.type != "function_definition":
            return []
        name_node = (
            parameter
            if parameter.type == "identifier"
            else (parameter.child_by_field_name("name") or parameter.named_child(0))
        )
        name = self.text(name_node)
        listed = [child for child in parameters.named_children if child.type != "comment"]
        position = next((i for i, child in enumerate(listed) if child.start_byte == parameter.start_byte), -1)
        if position < 0 or any(
            child.type in ("list_splat_pattern", "keyword_separator") for child in listed[:position]
        ):
            return []
        index = self.defs.enclosing(function.start_byte)
        method = (
            index >= 0
            and self.defs.kinds[index] == "method"
            and bool(listed)
            and self.text(listed[0]) in ("self", "cls")
        )
        out = []
        function_name = self.text(function.child_by_field_name("name"))
        calls = self.calls_of(function_name, method)
        constructor = method and function_name == "__init__"
        if constructor:
            # the class's constructor calls pass what __init__ receives (self is not passed)
            calls = self.calls_of(self.defs.facts[self.defs.parents[index]].name, False)
        for call in calls:
            shift = 1 if method and not constructor and call.child_by_field_name("function").type == "identifier" else 0
            found = self.arg(call, position - (1 if method else 0) + shift, name)
            if found is not None:
                out.append(found)
            if len(out) >= _CALL_SITES_MAX:
                break
        return out

    def calls_of(self, name: str, method: bool) -> list[tree_sitter.Node]:
        """Calls of the function (``name(...)``) or method (``self.name(...)``) ``name`` in this file."""
        if self._calls_by_name is None:
            self._calls_by_name = {}
            for call in self.found.get("call", ()):
                function = call.child_by_field_name("function")
                if function is None:
                    continue
                if function.type == "identifier":
                    self._calls_by_name.setdefault(("", self.text(function)), []).append(call)
                elif function.type == "attribute":
                    owner = function.child_by_field_name("object")
                    if owner is not None and self.text(owner) in ("self", "cls"):
                        key = ("self", self.text(function.child_by_field_name("attribute")))
                        self._calls_by_name.setdefault(key, []).append(call)
        return self._calls_by_name.get(("self" if method else "", name), [])

    def typed(self, annotation: tree_sitter.Node) -> _Obj | None:
        """The object an annotation declares: ``httpx.AsyncClient``, ``Optional[Redis]``, ``"KafkaProducer"``."""
        node = annotation.named_child(0) if annotation.type == "type" and annotation.named_child_count else annotation
        depth = 0
        while node is not None and depth < 4:
            depth += 1
            if node.type == "string":
                text = squash(_plain_string(node, self.source) or "")
                head, _, rest = text.partition(".")
                qual = self.imports.qual.get(head, "")
                name = f"{qual}.{rest}" if qual and rest else qual
                break
            if node.type in ("identifier", "attribute"):
                name = self.qualify(node)
                break
            if node.type == "generic_type" or node.type == "subscript":
                inner = [child for child in node.named_children if child.type in ("type_parameter", "type")]
                node = (
                    inner[0].named_child(0)
                    if inner and inner[0].named_child_count
                    else (node.child_by_field_name("subscript"))
                )
                continue
            if node.type == "binary_operator":
                node = node.child_by_field_name("left")
                continue
            if node.type == "type":
                node = node.named_child(0) if node.named_child_count else None
                continue
            return None
        else:
            return None
        found = _CONSTRUCTORS.get(name)
        if found is None and name in _TEST_CLIENTS:
            return _Obj("test", _TEST_CLIENTS[name])  # client: TestClient (a fixture of conftest.py)
        return _Obj(found[0], found[1]) if found else None

    def made_by(self, call: tree_sitter.Node, depth: int) -> _Obj | None:
        """The object a call returns: a constructor's, or one made from another object."""
        function = call.child_by_field_name("function")
        if function is None:
            return None
        qual = self.qualify(function)
        found = _CONSTRUCTORS.get(qual)
        if found is not None:
            if found == ("http", "httpx") and self.in_process(call):
                return _Obj("test", "testclient", call)
            return self.named(found[0], found[1], call)
        label = _TEST_CLIENTS.get(qual)
        if label is not None:
            return _Obj("test", label, call)
        if qual == "fastapi.Depends":
            # a dependency: what the function it names returns (or yields)
            dependency = self.arg(call, 0, "dependency")
            return self.returned(dependency, depth, yields=True) if dependency is not None else None
        if function.type == "identifier" and not qual:
            factory = self.obj(function, depth + 1)
            if factory is not None and factory.kind == "test-factory":
                # pytest-aiohttp: client = await aiohttp_client(app)
                return _Obj("test", factory.lib, call)
            inherited = self.subclassed(self.local_class(self.text(function)))
            if inherited is not None:
                return _Obj(inherited[0], inherited[1], call)
            return self.returned(function, depth)
        if qual in ("boto3.client", "boto3.resource", "aioboto3.client", "aioboto3.resource"):
            return self.boto(call, qual.rsplit(".", 1)[1])
        if function.type != "attribute":
            return None
        method = self.text(function.child_by_field_name("attribute"))
        owner = function.child_by_field_name("object")
        if method == "run_until_complete":
            # loop.run_until_complete(aiohttp_client(app)): what the coroutine gives
            return self.obj(self.arg(call, 0, "future"), depth + 1)
        klass = self.class_of_self(owner)
        if klass >= 0:
            return self.returned(function, depth, klass)
        base = self.obj(owner, depth + 1)
        if method == "test_client" and (base is None or (base.kind == "app" and base.lib in ("flask", "quart"))):
            # Flask's and Quart's app.test_client(), whatever made the app (often a factory of the project)
            quart = (
                base.lib == "quart"
                if base is not None
                else "quart" in self.imports.roots and "flask" not in self.imports.roots
            )
            return _Obj("test", "quart-test" if quart else "flask-test", call)
        if base is None:
            if method in ("client", "resource") and self.imports.roots & {"boto3", "aioboto3"}:
                return self.boto(call, method)
            return None
        made = {
            ("redis", "pubsub"): "redis-pubsub",
            ("nats", "jetstream"): "nats",
            ("amqp-connection", "channel"): "amqp-channel",
            ("amqp-channel", "declare_exchange"): "amqp-exchange",
            ("amqp-channel", "get_exchange"): "amqp-exchange",
            ("amqp-channel", "declare_queue"): "amqp-queue",
            ("amqp-channel", "get_queue"): "amqp-queue",
            ("kombu-connection", "Producer"): "kombu-producer",
            ("kombu-connection", "SimpleQueue"): "kombu-simple",
            ("sqs-resource", "get_queue_by_name"): "sqs-queue",
            ("sqs-resource", "create_queue"): "sqs-queue",
            ("sqs-resource", "Queue"): "sqs-queue",
            ("sns-resource", "create_topic"): "sns-topic",
            ("sns-resource", "Topic"): "sns-topic",
            ("restapi", "namespace"): "namespace",
        }.get((base.kind, method))
        if made is not None:
            return self.named(made, base.lib, call)
        if base.kind == "boto-session" and method in ("client", "resource"):
            return self.boto(call, method)
        return None

    def returned(self, name: tree_sitter.Node, depth: int, klass: int = -1, yields: bool = False) -> _Obj | None:
        """What the function ``name`` (a method of ``klass`` when given) of this file returns (or, with
        ``yields``, yields: a FastAPI dependency or a pytest fixture hands over what it yields)."""
        if name.type == "attribute":
            name = name.child_by_field_name("attribute") or name
        if name.type != "identifier":
            return None
        for index in self.named_defs(self.text(name)):
            if self.defs.kinds[index] == "class":
                continue
            if klass >= 0 and self.defs.parents[index] != klass:
                continue
            found = self.returned_by(index, depth, yields)
            if found is not None:
                return found
        return None

    def returned_by(self, index: int, depth: int, yields: bool) -> _Obj | None:
        """What the function defined at ``index`` returns (or yields)."""
        if self._returns is None:
            self._returns = {}
            for node in (*self.found.get("return", ()), *self.found.get("yield", ())):
                value = node.named_child(0) if node.named_child_count else None
                if node.type == "yield" and any(child.type == "from" for child in node.children):
                    continue  # yield from: another generator's values
                function = self.defs.enclosing(node.start_byte)
                if value is not None and function >= 0 and self.defs.kinds[function] != "class":
                    self._returns.setdefault(function, []).append((value, node.type == "yield"))
            for values in self._returns.values():
                values.sort(key=lambda item: item[0].start_byte)
        for value, yielded in self._returns.get(index, ()):
            if yielded and not yields:
                continue
            found = self.obj(value, depth + 1)
            if found is not None:
                return found
        return None

    def named(self, kind: str, lib: str, call: tree_sitter.Node) -> _Obj:
        """An object made by ``call``, with the name it was declared with for queues and exchanges."""
        name = None
        if kind in ("amqp-exchange", "amqp-queue", "kombu-exchange", "kombu-queue", "kombu-simple"):
            node = self.arg(call, 0, "name")
            name = tuple(self.parts(node)) if node is not None else ((True, ""),) if kind == "amqp-queue" else None
        elif kind in ("sqs-queue", "sns-topic"):
            node = self.arg(call, 0, "QueueName") or self.arg(call, 0, "Name") or self.arg(call, 0, "url")
            name = tuple(self.parts(node)) if node is not None else None
        elif kind == "namespace":
            node = self.arg(call, -1, "path") or self.arg(call, 0, "name")
            name = tuple(self.parts(node)) if node is not None else None
        return _Obj(kind, lib, call, name)

    def boto(self, call: tree_sitter.Node, how: str) -> _Obj | None:
        service = self.literal(self.arg(call, 0, "service_name"))
        if service not in ("sqs", "sns"):
            return None
        return _Obj(service if how == "client" else f"{service}-resource", "boto3", call)

    # -- arguments -----------------------------------------------------------------------------

    def arguments(self, call: tree_sitter.Node) -> tuple[list[tree_sitter.Node], dict[str, tree_sitter.Node], bool]:
        """Positional arguments (up to the first ``*splat``), keyword arguments, and whether a splat
        hides the rest."""
        arguments = call.child_by_field_name("arguments")
        positional: list[tree_sitter.Node] = []
        keywords: dict[str, tree_sitter.Node] = {}
        splat = False
        if arguments is None or arguments.type != "argument_list":
            return positional, keywords, splat
        for child in arguments.named_children:
            if child.type == "keyword_argument":
                name, value = child.child_by_field_name("name"), child.child_by_field_name("value")
                if name is not None and value is not None:
                    keywords.setdefault(self.text(name), value)
            elif child.type in ("list_splat", "dictionary_splat"):
                splat = True
            elif child.type != "comment" and not splat:
                positional.append(child)
        return positional, keywords, splat

    def arg(self, call: tree_sitter.Node | None, index: int, keyword: str = "") -> tree_sitter.Node | None:
        """The argument given by ``keyword`` or at position ``index`` (-1: by keyword only)."""
        if call is None or call.type != "call":
            return None
        positional, keywords, _ = self.arguments(call)
        if keyword and keyword in keywords:
            return keywords[keyword]
        return positional[index] if 0 <= index < len(positional) else None

    def literal(self, node: tree_sitter.Node | None) -> str | None:
        """The text of ``node`` when the file spells all of it."""
        if node is None:
            return None
        return _literal_text(_merge(self.parts(node)))

    # -- what a string is -----------------------------------------------------------------------

    def parts(self, node: tree_sitter.Node | None, depth: int = 0) -> list[_Piece]:
        """The pieces of the string ``node`` evaluates to (see the module docstring)."""
        if node is None:
            return []
        found = self.evaluate("parts", node, depth, self._parts_bounded, None)
        return list(found) if found is not None else [(False, squash(self.text(node)))]

    def _parts_bounded(self, node: tree_sitter.Node, depth: int) -> tuple[_Piece, ...]:
        return tuple(self._parts(node, depth)[:_PIECES_MAX])

    def opaque(self, node: tree_sitter.Node) -> list[_Piece]:
        return [(False, squash(self.text(node)))]

    def _parts(self, node: tree_sitter.Node, depth: int) -> list[_Piece]:
        kind = node.type
        if kind == "string":
            prefix = _string_prefix(node, self.source)
            out: list[_Piece] = []
            for child in node.named_children:
                if child.type == "string_content":
                    out.append((True, _content(child, self.source, prefix)))
                elif child.type == "interpolation":
                    expression = child.child_by_field_name("expression")
                    if expression is not None:
                        out.extend(self.parts(expression, depth + 1))
            return out
        if kind == "concatenated_string":
            return [piece for child in node.named_children for piece in self.parts(child, depth + 1)]
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self.parts(node.named_child(0), depth + 1)
        if kind == "binary_operator":
            operator = node.child_by_field_name("operator")
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if operator is not None and left is not None and right is not None:
                if operator.type == "+":
                    return self.parts(left, depth + 1) + self.parts(right, depth + 1)
                if operator.type == "%":
                    template = self.parts(left, depth + 1)
                    if template and all(literal for literal, _ in template):
                        return self.percent("".join(text for _, text in template), right, depth)
            return self.opaque(node)
        if kind == "call":
            return self.call_parts(node, depth)
        if kind == "subscript":
            return self.subscript_parts(node, depth)
        if kind == "identifier":
            return self.name_parts(node, depth)
        if kind == "attribute":
            return self.attribute_parts(node, depth)
        if kind == "boolean_operator":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            operator = node.child_by_field_name("operator")
            if left is not None and right is not None and operator is not None and operator.type == "or":
                first = self.parts(left, depth + 1)
                if len(first) == 1 and not first[0][0] and first[0][1].startswith("env:"):
                    self.default(first[0][1], self.parts(right, depth + 1))
                    return first
                if _useful(first):
                    return first
                second = self.parts(right, depth + 1)
                return second if _useful(second) else self.opaque(node)
            return self.opaque(node)
        if kind == "conditional_expression":
            branches = [self.parts(child, depth + 1) for child in node.named_children[:1] + node.named_children[2:]]
            markers = [b for b in branches if len(b) == 1 and not b[0][0] and b[0][1].startswith("env:")]
            literals = [b for b in branches if b and all(literal for literal, _ in b)]
            if markers and literals:
                # "details" if os.environ.get("DETAILS_HOST") is None else os.environ.get("DETAILS_HOST")
                self.default(markers[0][0][1], literals[0])
                return markers[0]
            return next((branch for branch in branches if _useful(branch)), self.opaque(node))
        return self.opaque(node)

    def default(self, marker: str, pieces: list[_Piece]) -> None:
        if marker not in self.env_defaults and pieces and all(literal for literal, _ in pieces):
            self.env_defaults[marker] = pieces

    def percent(self, template: str, right: tree_sitter.Node, depth: int) -> list[_Piece]:
        """``template % right`` (a tuple, one value, or a dict for ``%(name)s``)."""
        if right.type == "parenthesized_expression" and right.named_child_count == 1:
            right = right.named_child(0) or right
        values = right.named_children if right.type == "tuple" else [right]
        named: dict[str, tree_sitter.Node] = {}
        if right.type == "dictionary":
            for pair in right.named_children:
                key = self.literal(pair.child_by_field_name("key")) if pair.type == "pair" else None
                value = pair.child_by_field_name("value") if pair.type == "pair" else None
                if key is not None and value is not None:
                    named[key] = value
        out: list[_Piece] = []
        position, index = 0, 0
        for match in _PERCENT.finditer(template):
            out.append((True, template[position : match.start()]))
            position = match.end()
            if match[2] == "%":
                out.append((True, "%"))
                continue
            if match[1] is not None:
                value = named.get(match[1])
            else:
                value = values[index] if index < len(values) else None
                index += 1
            out.extend(self.parts(value, depth + 1) if value is not None else [(False, "")])
        out.append((True, template[position:]))
        return out

    def braces(self, template: str, call: tree_sitter.Node, depth: int) -> list[_Piece]:
        """``template.format(...)``."""
        positional, keywords, _ = self.arguments(call)
        out: list[_Piece] = []
        position, index = 0, 0
        for match in _BRACES.finditer(template):
            out.append((True, template[position : match.start()]))
            position = match.end()
            if match[1] is None:
                out.append((True, match[0][0]))
                continue
            field = re.split(r"[!:.\[]", match[1], maxsplit=1)[0]
            plain = re.fullmatch(r"[!:][^.\[]*|", match[1][len(field) :]) is not None
            if field == "":
                value = positional[index] if index < len(positional) else None
                index += 1
            elif field.isdigit():
                value = positional[int(field)] if int(field) < len(positional) else None
            else:
                value = keywords.get(field)
            if value is None or not plain:
                out.append((False, field or ""))
            else:
                out.extend(self.parts(value, depth + 1))
        out.append((True, template[position:]))
        return out

    def call_parts(self, call: tree_sitter.Node, depth: int) -> list[_Piece]:
        function = call.child_by_field_name("function")
        if function is None:
            return self.opaque(call)
        qual = self.qualify(function)
        if qual in _ENV_FUNCTIONS or (function.type == "attribute" and self.text(function).endswith("environ.get")):
            name = self.literal(self.arg(call, 0, "key"))
            if name:
                marker = f"env:{name}"
                fallback = self.arg(call, 1, "default")
                if fallback is not None:
                    self.default(marker, self.parts(fallback, depth + 1))
                return [(False, marker)]
            return self.opaque(call)
        if qual in ("urllib.parse.urljoin", "urlparse.urljoin"):
            base, path = self.arg(call, 0, "base"), self.arg(call, 1, "url")
            if base is not None and path is not None:
                head, tail = self.parts(base, depth + 1), self.parts(path, depth + 1)
                if tail and tail[0][0] and _SCHEME.match(tail[0][1]):
                    return tail
                if tail and tail[0][0] and not tail[0][1].startswith("/") and head and head[-1][0]:
                    # urljoin("http://h/api/", "x") keeps the base path; a base without a final "/" loses its last part
                    text = head[-1][1]
                    head = [*head[:-1], (True, text[: text.rfind("/") + 1] if "/" in text else text + "/")]
                return head + tail
            return self.opaque(call)
        if function.type == "identifier" and self.text(function) == "str":
            inner = self.arg(call, 0)
            return self.parts(inner, depth + 1) if inner is not None else self.opaque(call)
        if function.type == "attribute":
            method = self.text(function.child_by_field_name("attribute"))
            owner = function.child_by_field_name("object")
            if owner is not None and method == "format":
                template = self.parts(owner, depth + 1)
                if template and all(literal for literal, _ in template):
                    return self.braces("".join(text for _, text in template), call, depth)
            if owner is not None and method in ("rstrip", "lstrip", "strip") and not self.arguments(call)[0][1:]:
                inner = self.parts(owner, depth + 1)
                strip = self.literal(self.arg(call, 0)) if self.arg(call, 0) is not None else None
                if inner and inner[-1][0] and method != "lstrip" and strip is not None:
                    inner[-1] = (True, inner[-1][1].rstrip(strip))
                return inner
            if owner is not None and method == "join" and owner.type == "string":
                separator = _plain_string(owner, self.source)
                items = self.arg(call, 0)
                if separator is not None and items is not None and items.type in ("list", "tuple"):
                    out: list[_Piece] = []
                    for number, item in enumerate(items.named_children):
                        if number:
                            out.append((True, separator))
                        out.extend(self.parts(item, depth + 1))
                    return out
            if owner is not None and method == "get":
                holder_text = self.last_name(owner)
                key = self.literal(self.arg(call, 0))
                if key is not None and holder_text.lower() in ("config", "settings", "environ"):
                    return self.item_parts(owner, key, depth, fallback=self.arg(call, 1))
            if method in ("topic_path", "subscription_path"):
                last = self.arguments(call)[0]
                if last:
                    return self.parts(last[-1], depth + 1)
        return self.opaque(call)

    def subscript_parts(self, node: tree_sitter.Node, depth: int) -> list[_Piece]:
        holder = node.child_by_field_name("value")
        key = self.literal(node.child_by_field_name("subscript"))
        if holder is None or key is None:
            return self.opaque(node)
        if key in ("QueueUrl", "TopicArn"):
            made = self.resolve_call(holder, depth)
            if made is not None:
                name = self.arg(made, -1, "QueueName") or self.arg(made, -1, "Name")
                if name is not None:
                    return self.parts(name, depth + 1)
        return self.item_parts(holder, key, depth)

    def resolve_call(self, node: tree_sitter.Node, depth: int) -> tree_sitter.Node | None:
        """The call ``node`` is, or a name is assigned (``response = sqs.create_queue(...)``)."""
        for _ in range(4):
            if node.type == "await" and node.named_child_count:
                node = node.named_child(0) or node
            if node.type == "call":
                return node
            if node.type != "identifier":
                return None
            found = self.lookup(self.text(node), node.start_byte)
            if not found or found[0][1] != "value":
                return None
            node = found[0][0]
        return None

    def item_parts(
        self, holder: tree_sitter.Node, key: str, depth: int, fallback: tree_sitter.Node | None = None
    ) -> list[_Piece]:
        """``holder[key]``: an environment read, an item assigned in this file, a dict literal's value,
        or a configuration key."""
        qual = self.qualify(holder)
        if qual in ("os.environ", "os.environb") or self.text(holder) == "os.environ":
            marker = f"env:{key}"
            if fallback is not None:
                self.default(marker, self.parts(fallback, depth + 1))
            return [(False, marker)]
        last = self.last_name(holder)
        for value in reversed(self.items.get((last, key), [])):
            found = self.parts(value, depth + 1)
            if _useful(found):
                return found
        literal = self.dict_value(holder, key, depth)
        if literal is not None:
            return literal
        if last.lower() in ("config", "settings", "conf", "cfg"):
            return [(False, f"config:{key}")]
        return [(False, squash(f"{self.text(holder)}[{key!r}]"))]

    def dict_value(self, holder: tree_sitter.Node, key: str, depth: int) -> list[_Piece] | None:
        node: tree_sitter.Node | None = holder
        for _ in range(4):
            if node is None:
                return None
            if node.type == "dictionary":
                for pair in node.named_children:
                    if pair.type == "pair" and self.literal(pair.child_by_field_name("key")) == key:
                        found = self.parts(pair.child_by_field_name("value"), depth + 1)
                        return found if _useful(found) else None
                return None
            if node.type != "identifier":
                return None
            found_binding = self.lookup(self.text(node), node.start_byte)
            if not found_binding or found_binding[0][1] != "value":
                return None
            node = found_binding[0][0]
        return None

    def name_parts(self, node: tree_sitter.Node, depth: int, offset: int = -1) -> list[_Piece]:
        """What the name ``node`` holds at ``offset`` (its own place by default): the latest binding decides."""
        name = self.text(node)
        for value, how in self.lookup(name, node.start_byte if offset < 0 else offset):
            if how == "type":
                continue
            if how == "opaque" or depth > _DEPTH_MAX:
                return self.opaque(node)
            if how == "aug":
                # url += "/orders": what the name held before, then the right side
                right = value.child_by_field_name("right")
                head = self.name_parts(node, depth + 1, value.start_byte)
                found = head + self.parts(right, depth + 1) if right is not None else []
                return found if _useful(found) else self.opaque(node)
            if how == "param":
                default = value.child_by_field_name("value") if value.type.endswith("default_parameter") else None
                if default is None or default.type == "none":
                    return self.passed_parts(value, depth) or self.opaque(node)
                value = default
            found = self.parts(value, depth + 1)
            if _useful(found):
                return found
            return self.opaque(node)
        if name in self.imports.origin and _constant_like(name):
            return [(False, f"const:{name}")]
        return self.opaque(node)

    def passed_parts(self, parameter: tree_sitter.Node, depth: int) -> list[_Piece]:
        """The string every call of this file passes for ``parameter``, when they all agree."""
        found: list[_Piece] | None = None
        for argument in self.passed(parameter):
            pieces = _merge(self.parts(argument, depth + 1))
            if not _useful(pieces) or (found is not None and pieces != found):
                return []
            found = pieces
        return found or []

    def attribute_parts(self, node: tree_sitter.Node, depth: int) -> list[_Piece]:
        owner = node.child_by_field_name("object")
        attribute = self.text(node.child_by_field_name("attribute"))
        if owner is None:
            return self.opaque(node)
        if attribute == "value" and owner.type == "attribute":
            # Topics.ORDERS.value: the enum member's value
            return self.attribute_parts(owner, depth)
        klass = self.class_of_self(owner)
        if klass >= 0:
            for value, how in self.attrs.get((klass, attribute), ()):
                if how != "value":
                    continue
                found = self.parts(value, depth + 1)
                if _useful(found):
                    return found
            return self.opaque(node)
        if self.qualify(owner) == "django.conf.settings" or self.settings_like(owner):
            return [(False, f"config:{attribute}")]
        owner_name = self.last_name(owner)
        chain = self.text(owner).split(".")
        if chain and chain[0] in self.imports.origin:
            if owner_name[:1].isupper() and not owner_name.isupper():
                return [(False, f"const:{owner_name}.{attribute}")]
            if _constant_like(attribute):
                return [(False, f"const:{attribute}")]
        if owner.type == "identifier":
            index = self.local_class(owner_name)
            if index >= 0:
                for value, how in self.attrs.get((index, attribute), ()):
                    found = self.parts(value, depth + 1) if how == "value" else []
                    if _useful(found):
                        return found
        return self.opaque(node)

    def settings_like(self, owner: tree_sitter.Node) -> bool:
        """``settings``, ``app_settings``, ``get_settings()``, ``self.settings``: a settings object."""
        if owner.type == "call":
            owner = owner.child_by_field_name("function") or owner
        return self.last_name(owner).lower().endswith("settings")

    # -- reading URLs and names ----------------------------------------------------------------

    def url(self, pieces: list[_Piece]) -> tuple[str, str, str, bool]:
        """(path, host, address, computed) of a URL given as pieces."""
        found = url_parts(_normalize(pieces))
        address = found.base if _is_marker(found.base) else ""
        host = found.host
        if not host and address.startswith("env:"):
            default = _literal_text(self.env_defaults.get(address, []))
            host = _host_of(default) if default else ""
        path, computed = found.path, found.computed
        if not computed and not path:
            path = "/"
        return (path if not computed else ""), host, address, computed

    def name(self, node: tree_sitter.Node | None, last_segment: str = "") -> _Named:
        """(name, address, computed) of a topic, queue, channel or subject; ``last_segment`` cuts a
        URL or ARN (``"/"`` or ``":"``) to its last part (an SQS queue URL, an SNS topic ARN)."""
        if node is None:
            return "", "", True
        pieces = _merge(self.parts(node))
        text = _literal_text(pieces)
        if text is not None:
            if last_segment:
                text = _last_segment(text, last_segment)
            return (text, "", False) if text else _COMPUTED
        if len(pieces) == 1 and _is_marker(pieces[0][1]):
            marker = pieces[0][1]
            default = _literal_text(self.env_defaults.get(marker, [])) or ""
            if default and last_segment:
                default = _last_segment(default, last_segment)
            return default, marker, False
        if last_segment and pieces and pieces[-1][0]:
            # "projects/{p}/topics/orders", f"{QUEUE_BASE}/orders": the last part is literal
            tail = pieces[-1][1]
            cut = tail.rfind(last_segment if last_segment != "/" else "/")
            if cut >= 0 and tail[cut + 1 :]:
                return tail[cut + 1 :], "", False
        if (
            last_segment
            and len(pieces) > 1
            and pieces[-2][0]
            and pieces[-2][1].endswith(("/", ":"))
            and not pieces[-1][0]
            and _is_marker(pieces[-1][1])
        ):
            # f"{ARN_PREFIX}:{TOPIC}" with TOPIC from the environment
            marker = pieces[-1][1]
            return _literal_text(self.env_defaults.get(marker, [])) or "", marker, False
        return "", "", True

    def name_list(self, node: tree_sitter.Node | None) -> list[tuple[tree_sitter.Node, _Named]]:
        """Each name a list, tuple or single value gives, with the node giving it."""
        if node is None:
            return []
        target = node
        if node.type == "identifier":
            found = self.lookup(self.text(node), node.start_byte)
            if found and found[0][1] == "value" and found[0][0].type in ("list", "tuple", "set"):
                target = found[0][0]
        if target.type in ("list", "tuple", "set"):
            return [(child, self.name(child)) for child in target.named_children if child.type != "comment"]
        return [(node, self.name(node))]

    # -- the passes ----------------------------------------------------------------------------

    def run(self, dicts: list[tree_sitter.Node]) -> None:
        self.bind()
        calls = self.found.get("call", [])
        decorators = self.found.get("decorator", [])
        for call in calls:
            self.mounting(call)
        for decorator in decorators:
            self.decorated(decorator)
        for call in calls:
            self.route_call(call)
            self.http_call(call)
            self.message_call(call)
        self.wrapped_calls()
        _kiota.python_calls(self)
        _openapi_clients.python_calls(self)
        for node in dicts:
            self.dapr_subscription(node)

    def add_route(
        self, anchor: tree_sitter.Node, method: str, path: str, handler: str, framework: str, symbol: str | None = None
    ) -> None:
        route = HttpRoute(
            method=method,
            path=path,
            line=_ts.line(anchor),
            handler=handler,
            symbol=self.symbol(anchor.start_byte) if symbol is None else symbol,
            framework=framework,
        )
        self.out.add(self.out.routes, anchor.start_byte, route)

    def add_mount(self, anchor: tree_sitter.Node, path: str, module: str, handler: str, framework: str) -> None:
        route = HttpRoute(
            method="*",
            path=path,
            line=_ts.line(anchor),
            handler=handler,
            symbol=self.symbol(anchor.start_byte),
            framework=framework,
            mount=module,
        )
        self.out.add(self.out.routes, anchor.start_byte, route)

    def add_message(
        self,
        anchor: tree_sitter.Node,
        role: str,
        lib: str,
        kind: str,
        named: _Named,
        broker: str | None = None,
    ) -> None:
        name, address, computed = named
        fact = MessageFact(
            role=role,
            broker=_BROKERS.get(lib, "") if broker is None else broker,
            name=name,
            line=_ts.line(anchor),
            kind=kind,
            symbol=self.symbol(anchor.start_byte),
            address=address,
            client=lib,
            computed=computed and not address,
        )
        self.out.add(self.out.messages, anchor.start_byte, fact)

    # -- routes --------------------------------------------------------------------------------

    def framework(self, found: _Obj | None) -> str:
        if found is not None and found.lib not in ("drf",):
            return found.lib
        return self.frameworks[0] if self.frameworks else ""

    def own_prefix(self, found: _Obj) -> str:
        """The prefix a router, blueprint or namespace declares where it is made."""
        if found.node is None:
            return ""
        if found.kind == "namespace":
            text = _literal_text(_merge(found.name or ()))
            if text is None:
                return ""
            return text if found.node is not None and self.arg(found.node, -1, "path") is not None else "/" + text
        keyword = {"blueprint": "url_prefix", "router": "prefix"}.get(found.kind)
        if keyword is None:
            return ""
        return self.route_text(self.arg(found.node, -1, keyword)) or ""

    def prefix(self, found: _Obj | None, seen: frozenset[int] = frozenset()) -> str:
        """Every prefix this file gives the routes of ``found``: its own, the ones it is included
        under, and its parents' (a Flask ``register_blueprint(url_prefix=)`` replaces the blueprint's own)."""
        if found is None or found.ident in seen or len(seen) > _DEPTH_MAX:
            return ""
        own = self.own_prefix(found)
        parent = self.parents.get(found.ident)
        extra = self.extra_prefix.get(found.ident, "")
        if parent is None:
            return join_paths(extra, own) if extra else own
        parent_ident, given = parent
        if given and found.lib in ("flask", "quart", "sanic") and found.kind == "blueprint":
            own = ""
        parent_obj = self._objects.get(parent_ident)
        head = self.prefix(parent_obj, seen | {found.ident}) if parent_obj is not None else ""
        return join_paths(join_paths(join_paths(head, extra), given), own)

    def remember(self, found: _Obj | None) -> _Obj | None:
        if found is not None and found.node is not None:
            self._objects.setdefault(found.ident, found)
        return found

    def route_text(self, node: tree_sitter.Node | None) -> str | None:
        """A route or prefix as written: literal text, an unknown piece as ``{name}``; None when nothing
        of it is literal."""
        if node is None:
            return None
        pieces = _merge(self.parts(node))
        if not pieces and node.type == "string":
            return ""
        if not any(literal for literal, _ in pieces):
            return None
        out = []
        for literal, text in pieces:
            if literal:
                out.append(text)
            elif _is_marker(text):
                return None
            else:
                out.append("{" + text + "}" if re.fullmatch(r"[A-Za-z_]\w*", text) else "{}")
        return "".join(out)

    def methods(self, node: tree_sitter.Node | None, default: list[str]) -> list[str]:
        """The verbs a ``methods=[...]`` argument lists (``*`` when it cannot be read)."""
        if node is None:
            return default
        target = node
        if node.type == "identifier":
            found = self.lookup(self.text(node), node.start_byte)
            target = found[0][0] if found and found[0][1] == "value" else node
        if target.type not in ("list", "tuple", "set"):
            return ["*"]
        out: list[str] = []
        for child in target.named_children:
            text = self.literal(child)
            if text is None:
                return ["*"]
            word = _verb_of(text, "")
            if word and word not in out:
                out.append(word)
        return out or default

    def class_verbs(self, name: str, on: bool = False) -> list[tuple[str, int]] | None:
        """(verb, definition index) of each method of the class ``name`` of this file that serves a
        verb (``get``, or ``on_get`` for Falcon); None when the file does not define the class."""
        index = self.local_class(name)
        if index < 0:
            return None
        out = []
        for child in self.defs.children(index):
            method = self.defs.facts[child].name
            if on and method.startswith("on_"):
                method = method[3:]
            elif on:
                continue
            if method in _VERBS:
                out.append((method.upper(), child))
        return out

    def handler_text(self, node: tree_sitter.Node | None) -> str:
        """A handler as written: ``views.order``, ``OrderView`` for ``OrderView.as_view()``."""
        if node is None:
            return ""
        if node.type == "call":
            function = node.child_by_field_name("function")
            if (
                function is not None
                and function.type == "attribute"
                and self.text(function.child_by_field_name("attribute")) in ("as_view", "as_asgi", "as_view_func")
            ):
                return squash(self.text(function.child_by_field_name("object")))
            return ""
        if node.type in ("identifier", "attribute"):
            return squash(self.text(node))
        return ""

    def decorated(self, decorator: tree_sitter.Node) -> None:
        """``@app.get("/x")``, ``@bp.route("/x", methods=[...])``, ``@routes.get(...)``, Dapr and
        Celery decorators."""
        call = decorator.named_child(0)
        if call is None or call.type != "call":
            return
        function = call.child_by_field_name("function")
        definition = decorator.parent.child_by_field_name("definition") if decorator.parent is not None else None
        if function is None or definition is None:
            return
        if function.type == "identifier" or (function.type == "attribute" and self.qualify(function)):
            qual = self.qualify(function)
            if qual.startswith(("litestar.", "starlite.")) and qual.rsplit(".", 1)[1] in (*_VERBS, "route"):
                self.litestar_route(decorator, call, definition, qual)
                return
            if qual in ("celery.shared_task",):
                self.celery_task(call)
                return
            if function.type == "identifier":
                return
        if function.type != "attribute":
            return
        method = self.text(function.child_by_field_name("attribute"))
        owner = function.child_by_field_name("object")
        found = self.remember(self.obj(owner))
        if method == "subscribe" and (found is None or found.kind == "dapr-app"):
            topic = self.arg(call, 1, "topic")
            if topic is not None and (found is not None or "dapr" in self.imports.roots):
                self.add_message(call, MessageRole.CONSUME, "dapr", "topic", self.name(topic))
            return
        if method == "method" and found is not None and found.kind == "dapr-app":
            # dapr.ext.grpc: a method the sidecar's service invocation reaches as /<name>
            name = self.literal(self.arg(call, 0, "name"))
            if name:
                handler = self.text(definition.child_by_field_name("name"))
                self.add_route(
                    decorator, "*", "/" + name.lstrip("/"), handler, "dapr", self.symbol(definition.start_byte)
                )
            return
        if method == "task" and found is not None and found.kind == "celery":
            self.celery_task(call)
            return
        if method not in _VERBS and method not in _ROUTE_DECORATORS and method != "view":
            return
        if found is not None and found.kind not in _SERVER_KINDS:
            return
        framework = self.framework(found)
        if found is None and not self.frameworks and not self.relative_app(owner):
            return
        if method in ("route", "view") and framework == "aiohttp":
            self.aiohttp_decorator(decorator, call, definition, found, method)
            return
        if method == "view":
            return
        path_node = self.arg(call, 0, "path") or self.arg(call, 0, "rule") or self.arg(call, 0, "uri")
        raw = self.route_text(path_node)
        if raw is None or (not raw.startswith("/") and found is None):
            return
        if method in _VERBS:
            verbs = [method.upper()]
        else:
            verbs = self.methods(self.arg(call, -1, "methods"), ["GET"])
        prefix = self.table_prefix(found)
        path = join_paths(prefix, _template(raw, framework)) if raw else (prefix or "/")
        if definition.type == "class_definition":
            name = self.text(definition.child_by_field_name("name"))
            served = self.class_verbs(name) or []
            for word, child in served:
                qualname = self.defs.qualnames[child]
                self.add_route(decorator, word, path, qualname, framework, qualname)
            return
        handler = self.text(definition.child_by_field_name("name"))
        symbol = self.symbol(definition.start_byte)
        for word in verbs:
            self.add_route(decorator, word, path, handler, framework, symbol)

    def relative_app(self, owner: tree_sitter.Node | None) -> bool:
        """An object imported from a module of the project (``from .main import app``): its
        decorators declare routes even when this file imports no framework."""
        if owner is None or owner.type != "identifier":
            return False
        name = self.text(owner)
        module = self.imports.origin.get(name, ("", ""))[0]
        if not module or module.split(".", 1)[0] in _LIBRARIES:
            return False
        return bool(_APP_NAME.fullmatch(name))

    def aiohttp_decorator(
        self,
        decorator: tree_sitter.Node,
        call: tree_sitter.Node,
        definition: tree_sitter.Node,
        found: _Obj | None,
        method: str,
    ) -> None:
        """``@routes.route("GET", "/x")``, ``@routes.view("/x")``."""
        if method == "view":
            raw, verbs = self.route_text(self.arg(call, 0, "path")), ["*"]
        else:
            raw = self.route_text(self.arg(call, 1, "path"))
            word = self.literal(self.arg(call, 0, "method"))
            verbs = [_verb_of(word, "*")]
        if raw is None:
            return
        path = join_paths(self.table_prefix(found), _template(raw, "aiohttp"))
        handler = self.text(definition.child_by_field_name("name"))
        if method == "view" and definition.type == "class_definition":
            served = self.class_verbs(handler)
            if served:
                for word, child in served:
                    qualname = self.defs.qualnames[child]
                    self.add_route(decorator, word, path, qualname, "aiohttp", qualname)
                return
        for word in verbs:
            self.add_route(decorator, word, path, handler, "aiohttp", self.symbol(definition.start_byte))

    def table_prefix(self, found: _Obj | None) -> str:
        if found is None:
            return ""
        if found.kind == "routes":
            app = self.tables.get(found.ident)
            return self.prefix(app) if app is not None else ""
        return self.prefix(found)

    def litestar_route(
        self, decorator: tree_sitter.Node, call: tree_sitter.Node, definition: tree_sitter.Node, qual: str
    ) -> None:
        method = qual.rsplit(".", 1)[1]
        raw = self.route_text(self.arg(call, 0, "path"))
        if raw is None:
            raw = "/"
        verbs = [method.upper()] if method in _VERBS else self.methods(self.arg(call, -1, "http_method"), ["*"])
        prefix = ""
        klass = self.defs.enclosing(definition.start_byte)
        klass = self.defs.parents[klass] if klass >= 0 else -1
        if klass >= 0 and self.defs.kinds[klass] == "class":
            for value, how in self.attrs.get((klass, "path"), ()):
                if how == "value":
                    prefix = self.route_text(value) or ""
                    break
        path = join_paths(prefix, _template(raw, "litestar"))
        handler = self.text(definition.child_by_field_name("name"))
        for word in verbs:
            self.add_route(decorator, word, path, handler, "litestar", self.symbol(definition.start_byte))

    def mounting(self, call: tree_sitter.Node) -> None:
        """Routers included in others: a local one gets the prefix, an imported one is a mount; the
        queues an AMQP channel binds."""
        function = call.child_by_field_name("function")
        if function is None:
            return
        if function.type == "attribute" and self.text(function.child_by_field_name("attribute")) == "queue_bind":
            queue = self.arg(call, 0, "queue")
            if queue is not None:
                self.bound_queues.add(squash(self.text(queue)))
            return
        if self.qualify(function) in _DJANGO_ROUTES:
            self.django_route(call, regex=not self.qualify(function).endswith(".path"), emit=False)
            return
        if function.type != "attribute":
            return
        method = self.text(function.child_by_field_name("attribute"))
        owner = function.child_by_field_name("object")
        if method in ("include_router", "register_blueprint", "blueprint", "add_namespace"):
            child = self.arg(call, 0, {"include_router": "router", "add_namespace": "ns"}.get(method, "blueprint"))
            keyword = {"include_router": "prefix", "add_namespace": "path"}.get(method, "url_prefix")
            given = self.route_text(self.arg(call, -1, keyword)) or ""
            parent = self.remember(self.obj(owner))
            if method == "blueprint" and (parent is None or parent.lib != "sanic"):
                return
            self.include(call, parent, child, given)
        elif method == "mount":
            # FastAPI / Starlette: app.mount("/v1", sub_app)
            parent = self.remember(self.obj(owner))
            if parent is None and not {"fastapi", "starlette"} & self.imports.roots:
                return
            if parent is not None and (parent.kind != "app" or parent.lib not in ("fastapi", "starlette")):
                return
            given = self.route_text(self.arg(call, 0, "path")) or ""
            self.include(call, parent, self.arg(call, 1, "app"), given)
        elif method == "add_subapp":
            given = self.route_text(self.arg(call, 0, "prefix")) or ""
            parent = self.remember(self.obj(owner))
            self.include(call, parent, self.arg(call, 1, "subapp"), given)
        elif method == "add_routes" and owner is not None:
            # app.add_routes(routes) / app.router.add_routes(routes): a route table served by app
            if owner.type == "attribute" and self.text(owner.child_by_field_name("attribute")) == "router":
                owner = owner.child_by_field_name("object")
            app = self.remember(self.obj(owner))
            table = self.remember(self.obj(self.arg(call, 0, "routes")))
            if app is not None and table is not None and table.kind == "routes":
                self.tables.setdefault(table.ident, app)

    def include(self, call: tree_sitter.Node, parent: _Obj | None, child: tree_sitter.Node | None, given: str) -> None:
        if child is None:
            return
        local = self.remember(self.obj(child))
        if local is not None and local.node is not None:
            if parent is not None and parent.node is not None:
                self.parents.setdefault(local.ident, (parent.ident, given))
            elif given:
                self.extra_prefix.setdefault(local.ident, given)
            return
        head = child
        attribute = ""
        if child.type == "attribute":
            head = child.child_by_field_name("object") or child
            attribute = self.text(child.child_by_field_name("attribute"))
        if head.type != "identifier":
            return
        name = self.text(head)
        module = self.imports.module_of(name, attribute)
        if not module:
            return
        origin = self.imports.origin.get(name, ("", ""))[1]
        handler = attribute or origin or name
        path = join_paths(self.prefix(parent), given) if given or parent is not None else "/"
        self.add_mount(call, path or "/", module, handler, self.framework(parent))

    def route_call(self, call: tree_sitter.Node) -> None:
        """Routes declared by a call: Flask ``add_url_rule``, FastAPI ``add_api_route``, Django
        ``path``/``re_path``/``url``, DRF ``router.register``, aiohttp ``web.get``/``router.add_get``,
        Starlette ``Route``, Tornado handler lists, Falcon/Sanic/Pyramid ``add_route``,
        flask-restful ``add_resource``."""
        function = call.child_by_field_name("function")
        if function is None:
            return
        qual = self.qualify(function)
        if qual in _DJANGO_ROUTES:
            self.django_route(call, regex=not qual.endswith(".path"))
            return
        if qual.startswith("aiohttp.web.") and qual.rsplit(".", 1)[1] in (*_VERBS, "route", "view"):
            self.aiohttp_call(call, qual.rsplit(".", 1)[1])
            return
        if qual in ("starlette.routing.Route", "fastapi.routing.APIRoute"):
            self.starlette_route(call)
            return
        if qual in ("starlette.routing.Mount",):
            self.starlette_mount(call)
            return
        if qual in ("tornado.web.Application", "tornado.web.url", "tornado.routing.URLSpec", "tornado.web.URLSpec"):
            self.tornado(call, qual)
            return
        if function.type != "attribute":
            return
        method = self.text(function.child_by_field_name("attribute"))
        owner = function.child_by_field_name("object")
        if owner is None:
            return
        if method in ("add_url_rule", "add_api_route"):
            self.add_rule(call, owner, method)
        elif method.startswith("add_") and method[4:] in (*_VERBS, "route", "view") and owner.type == "attribute":
            if self.text(owner.child_by_field_name("attribute")) == "router":
                self.aiohttp_router(call, owner, method[4:])
        elif method == "add_route":
            self.add_route_call(call, owner)
        elif method == "register":
            self.drf_register(call, owner)
        elif method == "add_resource":
            self.add_resource(call, owner)
        elif method == "add_handlers" and "tornado" in self.imports.roots:
            self.tornado_list(self.arg(call, 1, "host_handlers"))
        elif (
            method == "__init__"
            and owner.type == "call"
            and self.text(owner.child_by_field_name("function")) == "super"
        ):
            klass = self.defs.enclosing(call.start_byte)
            while klass >= 0 and self.defs.kinds[klass] != "class":
                klass = self.defs.parents[klass]
            bases = self.defs.nodes[klass].child_by_field_name("superclasses") if klass >= 0 else None
            if bases is not None and any(
                self.qualify(base) == "tornado.web.Application" for base in bases.named_children
            ):
                self.tornado_list(self.arg(call, 0, "handlers"))

    def add_rule(self, call: tree_sitter.Node, owner: tree_sitter.Node, method: str) -> None:
        found = self.remember(self.obj(owner))
        if found is not None and found.kind not in _SERVER_KINDS:
            return
        framework = self.framework(found)
        if found is None and framework not in ("flask", "quart", "fastapi", "flask-restx", "flask-restful"):
            return
        raw = self.route_text(self.arg(call, 0, "rule" if method == "add_url_rule" else "path"))
        if raw is None:
            return
        if method == "add_url_rule":
            view = self.arg(call, 2, "view_func")
        else:
            view = self.arg(call, 1, "endpoint")
        handler = self.handler_text(view)
        explicit = self.arg(call, -1, "methods")
        if explicit is not None:
            verbs = self.methods(explicit, ["GET"])
        elif view is not None and view.type == "call":
            verbs = [word for word, _ in self.class_verbs(handler) or []] or ["*"]
        else:
            verbs = ["GET"]
        path = join_paths(self.prefix(found), _template(raw, framework))
        for word in verbs:
            self.add_route(call, word, path, handler, framework)

    def django_route(self, call: tree_sitter.Node, regex: bool, emit: bool = True) -> None:
        """``path("orders/<int:pk>/", view)``; with ``include(...)``, a mount or the prefix of a
        local list or DRF router (recorded by a first pass with ``emit`` false)."""
        raw = self.route_text(self.arg(call, 0, "route"))
        if raw is None:
            return
        view = self.arg(call, 1, "view")
        own = _template(raw, "django", regex) if raw else "/"
        prefix = self.django_prefix(call)
        if view is not None and view.type == "call":
            qual = self.qualify(view.child_by_field_name("function"))
            if qual in ("django.urls.include", "django.conf.urls.include"):
                self.django_include(call, view, join_paths(prefix, own), emit)
                return
        if emit:
            path = join_paths(prefix, own) if prefix else own
            self.add_route(call, "*", path, self.handler_text(view), "django")

    def django_prefix(self, call: tree_sitter.Node) -> str:
        """The prefix of a Django route nested in ``path("api/", include([...]))`` or in a list
        included by name."""
        node = call.parent
        for _ in range(_CLIMB_MAX):
            if node is None:
                return ""
            if node.type == "call":
                qual = self.qualify(node.child_by_field_name("function"))
                if qual in ("django.urls.include", "django.conf.urls.include"):
                    outer = node.parent.parent if node.parent is not None else None
                    if outer is not None and outer.type == "call":
                        raw = self.route_text(self.arg(outer, 0, "route"))
                        regex = not self.qualify(outer.child_by_field_name("function")).endswith(".path")
                        if raw is not None:
                            own = _template(raw, "django", regex) if raw else "/"
                            return join_paths(self.django_prefix(outer), own)
                    return ""
            if node.type == "assignment":
                left = node.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    return self.list_prefix.get(self.text(left), "")
                return ""
            node = node.parent
        return ""

    def django_include(self, call: tree_sitter.Node, include: tree_sitter.Node, prefix: str, emit: bool) -> None:
        target = self.arg(include, 0, "arg")
        if target is not None and target.type == "tuple" and target.named_child_count:
            target = target.named_child(0)
        if target is None:
            return
        module = self.literal(target)
        if module is not None:
            if emit:
                self.add_mount(call, prefix, module, "", "django")
            return
        if target.type == "attribute" and self.text(target.child_by_field_name("attribute")) == "urls":
            router = self.remember(self.obj(target.child_by_field_name("object")))
            if router is not None and router.kind == "drf":
                self.extra_prefix.setdefault(router.ident, prefix)
                return
            head = target.child_by_field_name("object")
            if emit and head is not None and head.type == "identifier":
                module = self.imports.module_of(self.text(head), "urls")
                if module:
                    self.add_mount(call, prefix, module, "", "django")
            return
        if target.type == "identifier":
            name = self.text(target)
            if name in self.imports.origin:
                if emit:
                    self.add_mount(call, prefix, self.imports.module_of(name, name), "", "django")
            else:
                self.list_prefix.setdefault(name, prefix)

    def drf_register(self, call: tree_sitter.Node, owner: tree_sitter.Node) -> None:
        if "rest_framework" not in self.imports.roots:
            return
        found = self.remember(self.obj(owner))
        if found is not None and found.kind != "drf":
            return
        raw = self.route_text(self.arg(call, 0, "prefix"))
        viewset = self.arg(call, 1, "viewset")
        if raw is None or viewset is None:
            return
        base = join_paths(self.prefix(found) if found is not None else "", _template(raw, "django", "(?P<" in raw))
        handler = self.handler_text(viewset)
        slash = "/"
        if found is not None and found.node is not None:
            trailing = self.arg(found.node, -1, "trailing_slash")
            slash = "" if trailing is not None and self.text(trailing) == "False" else "/"
        # the list and detail routes every router gives a viewset (the lookup field is pk by default)
        self.add_route(call, "*", base.rstrip("/") + slash, handler, "drf")
        self.add_route(call, "*", base.rstrip("/") + "/{pk}" + slash, handler, "drf")

    def aiohttp_call(self, call: tree_sitter.Node, method: str) -> None:
        """``web.get("/x", handler)``, ``web.route("GET", "/x", h)``, ``web.view("/x", View)``."""
        if method == "route":
            word = self.literal(self.arg(call, 0, "method"))
            raw, handler = self.route_text(self.arg(call, 1, "path")), self.arg(call, 2, "handler")
            verbs = [_verb_of(word, "*")]
        else:
            raw, handler = self.route_text(self.arg(call, 0, "path")), self.arg(call, 1, "handler")
            verbs = [method.upper()] if method in _VERBS else ["*"]
        if raw is None:
            return
        prefix = ""
        node = call.parent
        for _ in range(_CLIMB_MAX):
            if node is None:
                break
            if node.type == "call":
                function = node.child_by_field_name("function")
                if (
                    function is not None
                    and function.type == "attribute"
                    and self.text(function.child_by_field_name("attribute")) == "add_routes"
                ):
                    owner = function.child_by_field_name("object")
                    if owner is not None and owner.type == "attribute":
                        owner = owner.child_by_field_name("object")
                    prefix = self.prefix(self.remember(self.obj(owner)))
                break
            node = node.parent
        path = join_paths(prefix, _template(raw, "aiohttp"))
        for word in verbs:
            self.add_route(call, word, path, self.handler_text(handler), "aiohttp")

    def aiohttp_router(self, call: tree_sitter.Node, router: tree_sitter.Node, method: str) -> None:
        """``app.router.add_get("/x", h)``, ``app.router.add_route("GET", "/x", h)``."""
        app = self.remember(self.obj(router.child_by_field_name("object")))
        if app is not None and app.lib != "aiohttp":
            return
        if app is None and "aiohttp" not in self.imports.roots:
            return
        if method == "route":
            word = self.literal(self.arg(call, 0, "method"))
            raw, handler = self.route_text(self.arg(call, 1, "path")), self.arg(call, 2, "handler")
            verbs = [_verb_of(word, "*")]
        else:
            raw, handler = self.route_text(self.arg(call, 0, "path")), self.arg(call, 1, "handler")
            verbs = [method.upper()] if method in _VERBS else ["*"]
        if raw is None:
            return
        path = join_paths(self.prefix(app), _template(raw, "aiohttp"))
        for word in verbs:
            self.add_route(call, word, path, self.handler_text(handler), "aiohttp")

    def add_route_call(self, call: tree_sitter.Node, owner: tree_sitter.Node) -> None:
        """``add_route`` of Sanic (handler, uri), Falcon (uri, resource), Pyramid (name, pattern) and
        Starlette (path, endpoint)."""
        found = self.remember(self.obj(owner))
        if found is not None and found.kind not in _SERVER_KINDS:
            return
        framework = self.framework(found)
        if framework not in ("sanic", "falcon", "pyramid", "starlette", "bottle"):
            return
        positional, keywords, _ = self.arguments(call)
        path_node = keywords.get("uri") or keywords.get("path") or keywords.get("pattern")
        handler: tree_sitter.Node | None = keywords.get("handler") or keywords.get("resource")
        for node in positional[:2]:
            text = self.route_text(node)
            if path_node is None and text is not None and text.startswith("/"):
                path_node = node
            elif handler is None and node.type in ("identifier", "attribute", "call"):
                handler = node
        raw = self.route_text(path_node)
        if raw is None or not raw.startswith("/"):
            return
        name = self.handler_text(handler)
        if handler is not None and handler.type == "call":
            name = self.handler_text(handler.child_by_field_name("function"))
        explicit = keywords.get("methods") or keywords.get("request_method")
        if explicit is not None and explicit.type == "string":
            word = self.literal(explicit)
            verbs = [_verb_of(word, "*")]
        elif explicit is not None:
            verbs = self.methods(explicit, ["*"])
        elif framework == "falcon":
            verbs = [word for word, _ in self.class_verbs(name, on=True) or []] or ["*"]
        elif framework == "sanic":
            verbs = ["GET"]
        elif framework == "starlette":
            served = self.class_verbs(name)
            verbs = [word for word, _ in served] if served else ["GET"] if name[:1].islower() else ["*"]
        else:
            verbs = ["*"]
        path = join_paths(self.prefix(found), _template(raw, framework))
        for word in verbs:
            self.add_route(call, word, path, name, framework)

    def add_resource(self, call: tree_sitter.Node, owner: tree_sitter.Node) -> None:
        """flask-restful / flask-restx ``api.add_resource(Resource, "/a", "/b")``."""
        found = self.remember(self.obj(owner))
        if found is not None and found.kind not in ("restapi", "namespace"):
            return
        if found is None and not {"flask_restful", "flask_restx", "flask_restplus"} & self.imports.roots:
            return
        positional, _, _ = self.arguments(call)
        if len(positional) < 2:
            return
        name = self.handler_text(positional[0])
        served = self.class_verbs(name)
        prefix = self.prefix(found) if found is not None else ""
        framework = self.framework(found)
        for node in positional[1:]:
            raw = self.route_text(node)
            if raw is None:
                continue
            path = join_paths(prefix, _template(raw, "flask"))
            if served:
                for word, child in served:
                    self.add_route(call, word, path, self.defs.qualnames[child], framework)
            else:
                self.add_route(call, "*", path, name, framework)

    def starlette_route(self, call: tree_sitter.Node) -> None:
        raw = self.route_text(self.arg(call, 0, "path"))
        if raw is None:
            return
        endpoint = self.arg(call, 1, "endpoint")
        name = self.handler_text(endpoint)
        explicit = self.arg(call, -1, "methods")
        if explicit is not None:
            verbs = self.methods(explicit, ["GET"])
        else:
            served = self.class_verbs(name.rsplit(".", 1)[-1])
            verbs = [word for word, _ in served] if served else (["GET"] if name[-1:].islower() else ["*"])
        path = join_paths(self.mount_prefix(call), _template(raw, "starlette"))
        for word in verbs:
            self.add_route(call, word, path, name, "starlette")

    def mount_prefix(self, call: tree_sitter.Node) -> str:
        """The prefixes of the Starlette ``Mount("/x", routes=[...])`` calls around ``call``."""
        prefix = ""
        node = call.parent
        for _ in range(_CLIMB_MAX * 2):
            if node is None:
                break
            if node.type == "call" and self.qualify(node.child_by_field_name("function")) == "starlette.routing.Mount":
                prefix = (
                    join_paths(self.route_text(self.arg(node, 0, "path")) or "", prefix)
                    if prefix
                    else (self.route_text(self.arg(node, 0, "path")) or "")
                )
            node = node.parent
        return prefix

    def starlette_mount(self, call: tree_sitter.Node) -> None:
        app = self.arg(call, 1, "app")
        raw = self.route_text(self.arg(call, 0, "path"))
        if app is None or raw is None:
            return
        head = app.child_by_field_name("object") if app.type == "attribute" else app
        if head is None or head.type != "identifier":
            return
        name = self.text(head)
        attribute = self.text(app.child_by_field_name("attribute")) if app.type == "attribute" else ""
        module = self.imports.module_of(name, attribute)
        if module and not module.split(".", 1)[0] in _LIBRARIES:
            path = join_paths(self.mount_prefix(call), _template(raw, "starlette"))
            origin = self.imports.origin.get(name, ("", ""))[1]
            self.add_mount(call, path, module, attribute or origin or name, "starlette")

    def tornado(self, call: tree_sitter.Node, qual: str) -> None:
        if qual == "tornado.web.Application":
            self.tornado_list(self.arg(call, 0, "handlers"))
            return
        raw = self.route_text(self.arg(call, 0, "pattern"))
        if raw is not None:
            self.tornado_route(call, raw, self.arg(call, 1, "handler"))

    def tornado_list(self, node: tree_sitter.Node | None) -> None:
        if node is not None and node.type == "identifier":
            found = self.lookup(self.text(node), node.start_byte)
            node = found[0][0] if found and found[0][1] == "value" else None
        if node is None or node.type not in ("list", "tuple"):
            return
        for item in node.named_children:
            if item.type != "tuple" or item.named_child_count < 2:
                continue
            raw = self.route_text(item.named_child(0))
            if raw is not None and raw.lstrip("^").startswith("/"):
                self.tornado_route(item, raw, item.named_child(1))

    def tornado_route(self, anchor: tree_sitter.Node, raw: str, handler: tree_sitter.Node | None) -> None:
        name = self.handler_text(handler)
        served = self.class_verbs(name.rsplit(".", 1)[-1]) if name else None
        path = _template(raw if raw.endswith("$") else raw + "$", "tornado", regex=True)
        for word in [word for word, _ in served] if served else ["*"]:
            self.add_route(anchor, word, path, name, "tornado")

    # -- HTTP calls ----------------------------------------------------------------------------

    def http_call(self, call: tree_sitter.Node) -> None:
        function = call.child_by_field_name("function")
        if function is None:
            return
        qual = self.qualify(function)
        client = _HTTP_FUNCTIONS.get(qual)
        base: _Obj | None = None
        name = qual.rsplit(".", 1)[-1]
        if client is None:
            if function.type != "attribute":
                return
            name = self.text(function.child_by_field_name("attribute"))
            owner = function.child_by_field_name("object")
            if name in _TEST_METHODS:
                label = self.test_client(owner)
                if label:
                    if name in _TEST_SENDERS[label]:
                        self.test_request(call, label, name)
                    return
            if name not in _VERBS and name not in _CLIENT_METHODS or not self.imports.roots & _HTTP_CLIENT_ROOTS:
                return
            base = self.obj(owner)
            if base is None:
                if self.locust_client(owner):
                    client = "locust"
                else:
                    return
            elif base.kind != "http":
                return
            else:
                client = base.lib
            if name == "urlopen" and client != "urllib3" or name == "fetch" and client != "tornado":
                return
        self.request(call, client, name, base)

    # -- in-process test clients ------------------------------------------------------------------

    def test_client(self, owner: tree_sitter.Node | None) -> str:
        """The label of the in-process test client ``owner`` is ("" when it is none): an object a test
        client constructor or ``app.test_client()`` made, a test case's ``self.client`` (or ``self``
        for the test cases that send requests themselves), a pytest fixture giving one, Sanic's
        ``app.test_client`` property."""
        if owner is None:
            return ""
        if owner.type == "identifier" and self.text(owner) == "self":
            klass = self.class_of_self(owner)
            label, holders = self.test_case(klass) if klass >= 0 else ("", ())
            return label if "self" in holders else ""
        if (
            owner.type == "attribute"
            and self.text(owner.child_by_field_name("attribute")) in ("test_client", "asgi_client")
            and self.imports.roots & {"sanic", "sanic_testing"}
        ):
            app = self.obj(owner.child_by_field_name("object"))
            return "sanic-test" if app is None or app.lib == "sanic" else ""
        found = self.obj(owner)
        return found.lib if found is not None and found.kind == "test" else ""

    def test_case(self, klass: int, depth: int = 0) -> tuple[str, tuple[str, ...]]:
        """(label, attributes holding its client) when the class at ``klass`` is a test case of a web
        framework, through the classes of this file it derives from; ("", ()) otherwise."""
        bases = self.defs.nodes[klass].child_by_field_name("superclasses")
        for base in bases.named_children if bases is not None and depth < 8 else ():
            if base.type not in ("identifier", "attribute"):
                continue
            qual = self.qualify(base)
            found = _TEST_CASES.get(qual)
            if found is not None:
                return found
            if (
                qual
                and self.django_tests
                and qual.rsplit(".", 1)[-1].endswith("TestCase")
                and qual.split(".", 1)[0] not in _LIBRARIES | {"unittest", "pytest"}
            ):
                # a project's own base test case in a file testing Django: Django's is the one with a client
                return _TEST_CASES["django.test.TestCase"]
            if base.type == "identifier" and not self.qualify(base):
                local = self.local_class(self.text(base))
                if 0 <= local < klass:
                    inherited = self.test_case(local, depth + 1)
                    if inherited[0]:
                        return inherited
        return "", ()

    def in_process(self, call: tree_sitter.Node) -> bool:
        """An httpx client wired to an app in this process (``app=``, ``ASGITransport``, ``WSGITransport``)."""
        if self.arg(call, -1, "app") is not None:
            return True
        transport = self.arg(call, -1, "transport")
        made = self.resolve_call(transport, 0) if transport is not None else None
        return made is not None and self.qualify(made.child_by_field_name("function")) in _IN_PROCESS_TRANSPORTS

    def fixtures(self) -> dict[str, list[int]]:
        """The pytest fixtures this file defines: name (``name=`` when given) -> definition indices."""
        if self._fixtures is None:
            self._fixtures = {}
            for index, node in enumerate(self.defs.nodes):
                if self.defs.kinds[index] == "class" or node.parent is None:
                    continue
                if node.parent.type != "decorated_definition":
                    continue
                for decorator in node.parent.named_children:
                    if decorator.type != "decorator" or not decorator.named_child_count:
                        continue
                    expression = decorator.named_child(0)
                    call = expression if expression is not None and expression.type == "call" else None
                    target = call.child_by_field_name("function") if call is not None else expression
                    if self.qualify(target) not in _FIXTURE_DECORATORS:
                        continue
                    name = self.literal(self.arg(call, -1, "name")) if call is not None else None
                    self._fixtures.setdefault(name or self.defs.facts[index].name, []).append(index)
        return self._fixtures

    def fixture(self, parameter: tree_sitter.Node, depth: int) -> _Obj | None:
        """What pytest injects for ``parameter`` of a test or fixture: a fixture of this file, or a
        test-client fixture of a plugin the file shows (pytest-django's ``client``, pytest-aiohttp's
        ``aiohttp_client``)."""
        parameters = parameter.parent
        function = parameters.parent if parameters is not None else None
        if function is None or function.type != "function_definition":
            return None
        name_node = parameter if parameter.type == "identifier" else parameter.child_by_field_name("name")
        if name_node is None or name_node.type != "identifier":
            return None
        name = self.text(name_node)
        index = self.defs.enclosing(function.start_byte)
        fixtures = self.fixtures()
        if index < 0 or not self.pytest_function(index, fixtures):
            return None
        if name in fixtures:
            for fixture in fixtures[name]:
                if fixture != index:
                    found = self.returned_by(fixture, depth, yields=True)
                    if found is not None:
                        return found
            return None
        if name in _DJANGO_FIXTURES and self.django_tests:
            return _Obj("test", "django-test")
        if name == "aiohttp_client" or (name == "test_client" and "aiohttp" in self.imports.roots):
            return _Obj("test-factory", "aiohttp-test")
        return None

    def pytest_function(self, index: int, fixtures: dict[str, list[int]]) -> bool:
        """Whether pytest fills the parameters of the function at ``index``: a test or a fixture."""
        name = self.defs.facts[index].name
        if name.startswith("test") or any(index in indices for indices in fixtures.values()):
            return True
        parent = self.defs.parents[index]
        return parent >= 0 and self.defs.kinds[parent] == "class" and self.defs.facts[parent].name.startswith("Test")

    def test_request(self, call: tree_sitter.Node, label: str, name: str) -> None:
        """A request of an in-process test client: the verb and path as its library's signature
        places them, no host (the lead links it to the service under test)."""
        positional, keywords, _ = self.arguments(call)
        if name in ("request", "generic", "simulate_request", "stream"):
            word = self.literal(self.arg(call, 0, "method"))
            if word is None and name == "simulate_request" and not positional and "method" not in keywords:
                word = "GET"
            path_node = keywords.get("path") or keywords.get("url") or (positional[1] if len(positional) > 1 else None)
        else:
            if name in ("open", "fetch"):
                word = self.literal(keywords["method"]) if "method" in keywords else "GET"
            else:
                word = verb(name.removeprefix("simulate_").removesuffix("_json"))
            path_node = keywords.get("path") or keywords.get("url") or (positional[0] if positional else None)
        method = word.upper() if word and word.upper() in HTTP_METHODS else "*"
        if path_node is None:
            pieces: list[_Piece] = [(True, "/")] if label in _TEST_ROOT_DEFAULT else [(False, "")]
        else:
            pieces = self.parts(path_node)
        path, _, address, computed = self.url(pieces)
        fact = HttpCall(
            method=method,
            path=path,
            line=_ts.line(call),
            symbol=self.symbol(call.start_byte),
            address=address,
            client=label,
            computed=computed,
        )
        self.out.add(self.out.calls, call.start_byte, fact)

    def locust_client(self, owner: tree_sitter.Node | None) -> bool:
        """``self.client`` of a Locust user or task set: an HTTP session."""
        if owner is None or owner.type != "attribute" or "locust" not in self.imports.roots:
            return False
        if self.text(owner.child_by_field_name("attribute")) != "client":
            return False
        user = owner.child_by_field_name("object")
        if user is not None and user.type == "identifier" and self.text(user) not in ("self", "cls"):
            # a task function: def index(l): l.client.get("/")
            found = self.lookup(self.text(user), user.start_byte)
            return bool(found) and found[0][1] == "param"
        klass = self.class_of_self(user)
        if klass < 0:
            return False
        bases = self.defs.nodes[klass].child_by_field_name("superclasses")
        for base in bases.named_children if bases is not None else ():
            if self.qualify(base).startswith("locust."):
                return True
        return False

    def request(self, call: tree_sitter.Node, client: str, name: str, base: _Obj | None) -> None:
        """One request: its verb and URL as the library's signature places them."""
        method = verb(name)
        if name in ("request", "stream") or name == "urlopen" and client == "urllib3":
            # request(method, url): requests, httpx, aiohttp, urllib3, a Locust client
            word = self.literal(self.arg(call, 0, "method"))
            url_node = self.arg(call, 1, "url")
            method = word.upper() if word and word.upper() in HTTP_METHODS else "*"
        elif name == "urlopen":
            url_node, method = self.urlopen(call)
        elif name == "fetch":
            url_node = self.arg(call, 0, "request")
            word = self.literal(self.arg(call, -1, "method"))
            method = _verb_of(word, "GET")
        else:
            url_node = self.arg(call, 0, "url")
        if url_node is not None and self.handoff(call, url_node, client, name, method, base):
            return
        pieces = self.with_base(self.parts(url_node) if url_node is not None else [], base)
        if not pieces:
            pieces = [(False, "")]
        path, host, address, computed = self.url(pieces)
        invoke = _DAPR_INVOKE.match(path)
        if invoke and "{" not in invoke[1]:
            # Dapr's service invocation through the sidecar: the app is the host
            host, path, address = invoke[1].lower(), invoke[2] or "/", ""
        app = self.dapr_app_header(call)
        if app:
            host, address = app, ""
        fact = HttpCall(
            method=method or "*",
            path=path,
            line=_ts.line(call),
            symbol=self.symbol(call.start_byte),
            host=host,
            address=address,
            client=client,
            computed=computed,
        )
        self.out.add(self.out.calls, call.start_byte, fact)
        publish = _DAPR_PUBLISH.match(path)
        if publish:
            topic = publish[2]
            named = _COMPUTED if "{" in topic else (topic, "", False)
            self.add_message(call, MessageRole.PRODUCE, "dapr", "topic", named)

    # -- request wrappers ----------------------------------------------------------------------

    def wrappers(self) -> dict[str, _Wrapper]:
        """The classes, dataclasses and named tuples of this file whose constructor takes fields, by
        name (a name defined twice, or also imported, is left out: its constructions are ambiguous)."""
        if self._wrappers is not None:
            return self._wrappers
        found: dict[str, _Wrapper | None] = {}
        assigned: dict[int, list[tuple[str, list[tuple[tree_sitter.Node, str]]]]] = {}
        for (klass, attribute), values in self.attrs.items():
            assigned.setdefault(klass, []).append((attribute, values))
        for index, kind in enumerate(self.defs.kinds):
            if kind == "class":
                name = self.defs.facts[index].name
                fields = self.class_fields(index, assigned.get(index, []))
                found[name] = None if name in found or fields is None else _Wrapper(name, index, fields)
        for node in self.found.get("assign", ()):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None or left.type != "identifier" or right.type != "call":
                continue
            if self.qualify(right.child_by_field_name("function")) not in _NAMEDTUPLES:
                continue
            name = self.text(left)
            fields = self.tuple_fields(self.arg(right, 1, "field_names") or self.arg(right, 1, "fields"))
            found[name] = None if name in found or fields is None else _Wrapper(name, -1, fields)
        self._wrappers = {
            name: wrapper for name, wrapper in found.items() if wrapper is not None and name not in self.imports.qual
        }
        return self._wrappers

    def class_fields(
        self, index: int, assigned: list[tuple[str, list[tuple[tree_sitter.Node, str]]]]
    ) -> dict[str, _Field] | None:
        """The fields the constructor of the class at ``index`` takes: ``self.f = p`` in its ``__init__``
        for a parameter ``p``, or the annotated fields of a dataclass, named tuple or pydantic model."""
        init = next((c for c in self.defs.children(index) if self.defs.facts[c].name == "__init__"), -1)
        if init >= 0:
            function = self.defs.nodes[init]
            parameters = function.child_by_field_name("parameters")
            taken: dict[str, _Field] = {}
            position, positional = -1, True
            for parameter in parameters.named_children if parameters is not None else ():
                kind = parameter.type
                if kind in ("list_splat_pattern", "keyword_separator"):
                    positional = False
                    continue
                if kind in ("comment", "positional_separator", "dictionary_splat_pattern"):
                    continue
                if kind == "identifier":
                    name_node, default = parameter, None
                elif kind == "typed_parameter":
                    name_node, default = parameter.named_child(0), None
                else:
                    name_node, default = parameter.child_by_field_name("name"), parameter.child_by_field_name("value")
                position += 1
                if position == 0 or name_node is None or name_node.type != "identifier":
                    continue  # self
                name = self.text(name_node)
                taken[name] = _Field(position - 1 if positional else -1, name, default)
            fields: dict[str, _Field] = {}
            for attribute, values in assigned:
                for value, how in values:
                    inside = function.start_byte <= value.start_byte < function.end_byte
                    if how == "value" and inside and value.type == "identifier" and self.text(value) in taken:
                        fields.setdefault(attribute, taken[self.text(value)])
            return fields
        node = self.defs.nodes[index]
        positional = None
        if node.parent is not None and node.parent.type == "decorated_definition":
            for decorator in node.parent.named_children:
                expression = decorator.named_child(0) if decorator.type == "decorator" else None
                if expression is not None and expression.type == "call":
                    expression = expression.child_by_field_name("function")
                if self.qualify(expression) in _DATACLASS_DECORATORS:
                    positional = True
        bases = node.child_by_field_name("superclasses")
        for base in bases.named_children if bases is not None else ():
            if positional is None and self.qualify(base) in _FIELD_BASES:
                positional = _FIELD_BASES[self.qualify(base)]
        body = node.child_by_field_name("body")
        if positional is None or body is None:
            return None
        fields = {}
        position = 0
        for statement in body.named_children:
            assign = statement.named_child(0) if statement.type == "expression_statement" else None
            if assign is None or assign.type != "assignment" or assign.child_by_field_name("type") is None:
                continue
            left = assign.child_by_field_name("left")
            if left is None or left.type != "identifier" or "ClassVar" in self.text(assign.child_by_field_name("type")):
                continue
            default = assign.child_by_field_name("right")
            if default is not None and default.type == "call":
                default = None  # field(default=...), Field(...): not read
            fields[self.text(left)] = _Field(position if positional else -1, self.text(left), default)
            position += 1
        return fields

    def tuple_fields(self, node: tree_sitter.Node | None) -> dict[str, _Field] | None:
        """The fields of ``namedtuple("R", "url headers")`` / ``["url", ...]`` / ``NamedTuple("R", [("url", str)])``."""
        if node is None:
            return None
        names: list[str] = []
        if node.type == "string":
            text = _plain_string(node, self.source)
            if text is None:
                return None
            names = [name for name in re.split(r"[\s,]+", text) if name]
        elif node.type in ("list", "tuple"):
            for item in node.named_children:
                if item.type == "tuple" and item.named_child_count:
                    item = item.named_child(0)
                text = _plain_string(item, self.source) if item is not None else None
                if text is None:
                    return None
                names.append(text)
        else:
            return None
        return {name: _Field(position, name) for position, name in enumerate(names)}

    def instance(self, node: tree_sitter.Node | None, depth: int = 0) -> str:
        """The wrapper (:meth:`wrappers`) whose instance ``node`` is, "" when the file does not show one."""
        if node is None or not self.wrappers():
            return ""
        found: str = self.evaluate("instance", node, depth, self._instance, "")
        return found

    def _instance(self, node: tree_sitter.Node, depth: int) -> str:
        wrappers = self.wrappers()
        kind = node.type
        if kind in ("await", "parenthesized_expression"):
            return self.instance(node.named_child(0) if node.named_child_count else None, depth + 1)
        if kind == "call":
            function = node.child_by_field_name("function")
            name = self.text(function) if function is not None and function.type == "identifier" else ""
            return name if name in wrappers else ""
        if kind == "identifier":
            name = self.text(node)
            if name == "self":
                klass = self.class_of_self(node)
                wrapper = wrappers.get(self.defs.facts[klass].name) if klass >= 0 else None
                return wrapper.name if wrapper is not None and wrapper.klass == klass else ""
            for value, how in self.lookup(name, node.start_byte):
                found = self.instance_of_binding(value, how, depth)
                if found:
                    return found
            return ""
        if kind == "attribute":
            owner = node.child_by_field_name("object")
            attribute = self.text(node.child_by_field_name("attribute"))
            klass = self.class_of_self(owner) if owner is not None and self.text(owner) == "self" else -1
            if klass < 0:
                holder = self.instance(owner, depth + 1)
                klass = wrappers[holder].klass if holder else -1
            if klass < 0:
                return ""
            for value, how in self.attrs.get((klass, attribute), ()):
                found = self.instance_of_binding(value, how, depth)
                if found:
                    return found
        return ""

    def instance_of_binding(self, value: tree_sitter.Node, how: str, depth: int) -> str:
        if how == "value":
            return self.instance(value, depth + 1)
        if how == "type":
            return self.annotated(value)
        if how != "param":
            return ""
        annotation = value.child_by_field_name("type")
        if annotation is not None:
            return self.annotated(annotation)
        default = value.child_by_field_name("value") if value.type.endswith("default_parameter") else None
        if default is not None and default.type != "none":
            return self.instance(default, depth + 1)
        for argument in self.passed(value):
            found = self.instance(argument, depth + 1)
            if found:
                return found
        return ""

    def annotated(self, annotation: tree_sitter.Node) -> str:
        """The wrapper an annotation names (``ApiRequest``, ``Optional[ApiRequest]``, ``"ApiRequest"``)."""
        text = squash(self.text(annotation)).strip("'\"")
        text = re.sub(r"^(?:typing\.)?Optional\[(.*)\]$", r"\1", text)
        text = re.sub(r"\s*\|\s*None$", "", text).strip("'\"")
        return text if text in self.wrappers() else ""

    def handoff(
        self, call: tree_sitter.Node, url: tree_sitter.Node, client: str, name: str, method: str, base: _Obj | None
    ) -> bool:
        """Whether the URL of the request ``call`` is a field of a wrapper the file constructs
        (``requests.get(url=req.url)``): the request is then read where each construction gives the
        URL (:meth:`wrapped_calls`)."""
        while url.type == "parenthesized_expression" and url.named_child_count == 1:
            url = url.named_child(0) or url
        if url.type != "attribute":
            return False
        wrapper = self.instance(url.child_by_field_name("object"))
        field = self.text(url.child_by_field_name("attribute"))
        if not wrapper or field not in self.wrappers()[wrapper].fields or not self.calls_of(wrapper, False):
            return False
        method_field = ""
        if name in ("request", "stream"):
            given = self.arg(call, 0, "method")
            if (
                given is not None
                and given.type == "attribute"
                and self.instance(given.child_by_field_name("object")) == wrapper
                and self.text(given.child_by_field_name("attribute")) in self.wrappers()[wrapper].fields
            ):
                method_field = self.text(given.child_by_field_name("attribute"))
        self.handoffs.append((wrapper, field, _Handoff(client, method or "*", method_field, base)))
        return True

    def wrapped_calls(self) -> None:
        """A request at each construction of a wrapper whose URL field the file hands to a client."""
        grouped: dict[tuple[str, str], list[_Handoff]] = {}
        for wrapper, field, handoff in self.handoffs:
            grouped.setdefault((wrapper, field), []).append(handoff)
        for (wrapper, field), handoffs in grouped.items():
            fields = self.wrappers()[wrapper].fields
            for construction in self.calls_of(wrapper, False):
                methods: list[str] = []
                for handoff in handoffs:
                    word = handoff.method
                    if handoff.method_field:
                        given = self.literal(self.field_arg(construction, fields[handoff.method_field]))
                        word = given.upper() if given and given.upper() in HTTP_METHODS else "*"
                    if word not in methods:
                        methods.append(word)
                url = self.field_arg(construction, fields[field])
                pieces = self.with_base(self.parts(url), handoffs[0].base) if url is not None else []
                path, host, address, computed = self.url(pieces or [(False, "")])
                fact = HttpCall(
                    method=methods[0] if len(methods) == 1 else "*",
                    path=path,
                    line=_ts.line(construction),
                    symbol=self.symbol(construction.start_byte),
                    host=host,
                    address=address,
                    client=handoffs[0].client,
                    computed=computed,
                )
                self.out.add(self.out.calls, construction.start_byte, fact)

    def field_arg(self, call: tree_sitter.Node, field: _Field) -> tree_sitter.Node | None:
        """The argument a construction gives for ``field``, else the field's default (None: unknown)."""
        positional, keywords, splat = self.arguments(call)
        if field.keyword in keywords:
            return keywords[field.keyword]
        if 0 <= field.position < len(positional):
            return positional[field.position]
        return None if splat else field.default

    def with_base(self, pieces: list[_Piece], base: _Obj | None) -> list[_Piece]:
        """``pieces`` after the ``base_url`` of the httpx or aiohttp client ``base`` (unless absolute)."""
        if base is None or base.node is None or base.lib not in ("httpx", "aiohttp"):
            return pieces
        base_node = self.arg(base.node, -1, "base_url")
        head = _merge(pieces)[:1]
        absolute = bool(head) and head[0][0] and _SCHEME.match(head[0][1]) is not None
        if base_node is None or absolute:
            return pieces
        prefix = _merge(self.parts(base_node))
        if prefix and prefix[-1][0] and head and head[0][0]:
            joined = prefix[-1][1].rstrip("/") + "/" + head[0][1].lstrip("/")
            return [*prefix[:-1], (True, joined), *_merge(pieces)[1:]]
        return [*prefix, *pieces]

    def dapr_app_header(self, call: tree_sitter.Node) -> str:
        """The app a ``dapr-app-id`` header names (the sidecar forwards the request to it)."""
        headers = self.arg(call, -1, "headers")
        for _ in range(4):
            if headers is None or headers.type != "identifier":
                break
            found = self.lookup(self.text(headers), headers.start_byte)
            headers = found[0][0] if found and found[0][1] == "value" else None
        if headers is None or headers.type != "dictionary":
            return ""
        for pair in headers.named_children:
            key = self.literal(pair.child_by_field_name("key")) if pair.type == "pair" else None
            if key is not None and key.lower() == "dapr-app-id":
                return (self.literal(pair.child_by_field_name("value")) or "").lower()
        return ""

    def dapr_invoke(self, call: tree_sitter.Node) -> None:
        """``DaprClient().invoke_method(app_id, method_name, data, http_verb=...)``."""
        app, address, unknown = self.name(self.arg(call, 0, "app_id"))
        method_name = self.literal(self.arg(call, 1, "method_name"))
        word = self.literal(self.arg(call, -1, "http_verb"))
        computed = (unknown and not address) or method_name is None
        fact = HttpCall(
            method=word.upper() if word and word.upper() in HTTP_METHODS else "*",
            path="" if method_name is None else "/" + method_name.lstrip("/"),
            line=_ts.line(call),
            symbol=self.symbol(call.start_byte),
            host=app.lower(),
            address=address,
            client="dapr",
            computed=computed,
        )
        self.out.add(self.out.calls, call.start_byte, fact)

    def urlopen(self, call: tree_sitter.Node) -> tuple[tree_sitter.Node | None, str]:
        """The URL and verb of ``urlopen(url | Request(url, method=...), data=...)``."""
        target = self.arg(call, 0, "url")
        data = self.arg(call, 1, "data")
        request = self.resolve_call(target, 0) if target is not None else None
        if request is not None:
            function = request.child_by_field_name("function")
            if self.qualify(function) in ("urllib.request.Request", "urllib2.Request"):
                word = self.literal(self.arg(request, -1, "method"))
                if word:
                    return self.arg(request, 0, "url"), _verb_of(word, "*")
                body = self.arg(request, 1, "data")
                return self.arg(request, 0, "url"), "POST" if body is not None or data is not None else "GET"
        return target, "POST" if data is not None else "GET"

    # -- messaging -----------------------------------------------------------------------------

    def message_call(self, call: tree_sitter.Node) -> None:
        function = call.child_by_field_name("function")
        if function is None:
            return
        qual = self.qualify(function)
        made = _CONSTRUCTORS.get(qual)
        if made is not None and made[0] == "consumer" and made[1] != "confluent-kafka":
            self.kafka_consumer(call, made[1])
            return
        if qual in ("kombu.Consumer",):
            self.kombu_consumer(call, self.arg(call, 1, "queues"))
            return
        if function.type != "attribute":
            return
        method = self.text(function.child_by_field_name("attribute"))
        owner = function.child_by_field_name("object")
        if method in ("basic_publish", "basic_consume", "basic_get", "queue_bind"):
            self.amqp(call, method)
            return
        if not _MESSAGE_ROOTS.get(method, frozenset()) & self.imports.roots:
            return  # no library the file imports has such a method
        found = self.obj(owner)
        if method == "bind" and found is not None and found.kind == "amqp-queue":
            self.aio_bind(call, found)
            return
        kind = found.kind if found is not None else self.guess(owner, method)
        lib = found.lib if found is not None else self.guessed_lib(kind)
        if kind == "producer" and method in ("send", "send_and_wait", "produce", "send_batch"):
            self.add_message(call, MessageRole.PRODUCE, lib, "topic", self.name(self.arg(call, 0, "topic")))
        elif kind == "consumer" and method in ("subscribe", "assign"):
            topics = self.arg(call, 0, "topics")
            pattern = self.arg(call, -1, "pattern")
            if topics is None and pattern is not None:
                self.add_message(call, MessageRole.CONSUME, lib, "topic", _COMPUTED)
            for node, named in self.name_list(topics):
                if node.type == "call":
                    named = self.name(self.arg(node, 0, "topic"))  # assign([TopicPartition("t", 0)])
                self.add_message(call, MessageRole.CONSUME, lib, "topic", named)
        elif kind == "redis" and method in ("publish", "spublish"):
            self.add_message(call, MessageRole.PRODUCE, lib, "channel", self.name(self.arg(call, 0, "channel")))
        elif kind == "redis" and method == "xadd":
            self.add_message(call, MessageRole.PRODUCE, lib, "topic", self.name(self.arg(call, 0, "name")))
        elif kind == "redis" and method in ("xread", "xreadgroup"):
            streams = self.arg(call, 2 if method == "xreadgroup" else 0, "streams")
            if streams is not None and streams.type == "dictionary":
                for pair in streams.named_children:
                    if pair.type == "pair":
                        self.add_message(
                            call, MessageRole.CONSUME, lib, "topic", self.name(pair.child_by_field_name("key"))
                        )
        elif kind == "redis-pubsub" and method in ("subscribe", "psubscribe", "ssubscribe"):
            positional, keywords, _ = self.arguments(call)
            for argument in positional:
                for _, named in self.name_list(argument):
                    # a pattern is no channel name: reported as computed
                    self.add_message(
                        call, MessageRole.CONSUME, lib, "channel", _COMPUTED if method == "psubscribe" else named
                    )
            for keyword in keywords:
                self.add_message(call, MessageRole.CONSUME, lib, "channel", (keyword, "", False))
        elif kind == "nats" and method in ("publish", "request"):
            self.add_message(call, MessageRole.PRODUCE, lib, "subject", self.name(self.arg(call, 0, "subject")))
        elif kind == "nats" and method in ("subscribe", "pull_subscribe"):
            self.add_message(call, MessageRole.CONSUME, lib, "subject", self.name(self.arg(call, 0, "subject")))
        elif kind == "gpublisher" and method == "publish":
            self.add_message(call, MessageRole.PRODUCE, lib, "topic", self.name(self.arg(call, 0, "topic"), "/"))
        elif kind == "gsubscriber" and method in ("subscribe", "pull", "streaming_pull"):
            target = self.arg(call, 0, "subscription")
            if target is not None and target.type == "dictionary":
                target = next(
                    (
                        pair.child_by_field_name("value")
                        for pair in target.named_children
                        if pair.type == "pair" and self.literal(pair.child_by_field_name("key")) == "subscription"
                    ),
                    None,
                )
            self.add_message(call, MessageRole.CONSUME, lib, "queue", self.name(target, "/"))
        elif kind == "dapr" and method in ("invoke_method", "invoke_method_async"):
            self.dapr_invoke(call)
        elif kind == "dapr" and method == "publish_event":
            self.add_message(call, MessageRole.PRODUCE, "dapr", "topic", self.name(self.arg(call, 1, "topic_name")))
        elif kind == "dapr" and method in ("subscribe", "subscribe_with_handler"):
            self.add_message(call, MessageRole.CONSUME, "dapr", "topic", self.name(self.arg(call, 1, "topic")))
        elif kind == "sqs" and method in ("send_message", "send_message_batch"):
            named = self.name(self.arg(call, -1, "QueueUrl"), "/")
            self.add_message(call, MessageRole.PRODUCE, "boto3", "queue", named, "sqs")
        elif kind == "sqs" and method == "receive_message":
            named = self.name(self.arg(call, -1, "QueueUrl"), "/")
            self.add_message(call, MessageRole.CONSUME, "boto3", "queue", named, "sqs")
        elif kind == "sqs-queue" and method in ("send_message", "send_messages", "receive_messages"):
            role = MessageRole.CONSUME if method == "receive_messages" else MessageRole.PRODUCE
            named = self.obj_name(found, "/")
            self.add_message(call, role, "boto3", "queue", named, "sqs")
        elif kind == "sns" and method in ("publish", "publish_batch", "subscribe"):
            role = MessageRole.CONSUME if method == "subscribe" else MessageRole.PRODUCE
            target = self.arg(call, -1, "TopicArn") or self.arg(call, -1, "TargetArn")
            self.add_message(call, role, "boto3", "topic", self.name(target, ":"), "sns")
        elif kind == "sns-topic" and method in ("publish", "subscribe"):
            role = MessageRole.CONSUME if method == "subscribe" else MessageRole.PRODUCE
            self.add_message(call, role, "boto3", "topic", self.obj_name(found, ":"), "sns")
        elif kind == "amqp-exchange" and method == "publish":
            self.aio_publish(call, found)
        elif kind == "amqp-queue" and method in ("consume", "iterator", "get"):
            self.add_message(call, MessageRole.CONSUME, "aio-pika", "queue", self.obj_name(found))
        elif kind == "kombu-producer" and method == "publish":
            self.kombu_publish(call)
        elif kind == "kombu-connection" and method == "Consumer":
            self.kombu_consumer(call, self.arg(call, 0, "queues"))
        elif kind == "kombu-simple" and method in ("put", "get", "get_nowait"):
            role = MessageRole.PRODUCE if method == "put" else MessageRole.CONSUME
            self.add_message(call, role, "kombu", "queue", self.obj_name(found))
        elif method in ("apply_async", "send_task", "set") and (found is None or found.kind == "celery"):
            self.celery_send(call)

    def obj_name(self, found: _Obj | None, last_segment: str = "") -> _Named:
        if found is None or found.name is None:
            return "", "", True
        pieces = _merge(found.name)
        text = _literal_text(pieces)
        if text is not None:
            if last_segment:
                text = _last_segment(text, last_segment)
            return text, "", False
        if len(pieces) == 1 and _is_marker(pieces[0][1]):
            default = _literal_text(self.env_defaults.get(pieces[0][1], [])) or ""
            return (_last_segment(default, last_segment) if last_segment else default), pieces[0][1], False
        return "", "", True

    def guess(self, owner: tree_sitter.Node | None, method: str) -> str:
        """The kind of an object the file does not show being made, from its name and the library the
        file imports (``self._producer`` with kafka imported)."""
        if owner is None:
            return ""
        name = self.last_name(owner).lower() if owner.type in ("identifier", "attribute") else ""
        if not name:
            return ""
        roots = self.imports.roots
        kafka = roots & {"kafka", "confluent_kafka", "aiokafka"}
        if kafka and "producer" in name and method in ("send", "send_and_wait", "produce"):
            return "producer"
        if kafka and "consumer" in name and method in ("subscribe", "assign"):
            return "consumer"
        if roots & {"redis", "aioredis"} and "redis" in name and method in ("publish", "xadd", "xread", "xreadgroup"):
            return "redis"
        if roots & {"redis", "aioredis"} and "pubsub" in name and method in ("subscribe", "psubscribe"):
            return "redis-pubsub"
        if "nats" in roots and (name in ("nc", "js") or "nats" in name or "jetstream" in name):
            return "nats"
        if roots & {"boto3", "aioboto3"} and "sqs" in name:
            return "sqs"
        if roots & {"boto3", "aioboto3"} and "sns" in name:
            return "sns"
        if "google" in roots and "publisher" in name and method == "publish":
            return "gpublisher"
        if "google" in roots and "subscriber" in name and method == "subscribe":
            return "gsubscriber"
        if "dapr" in roots and method == "publish_event":
            return "dapr"
        return ""

    def guessed_lib(self, kind: str) -> str:
        """The library of an object :meth:`guess` named: the one the file imports."""
        if kind in ("producer", "consumer"):
            roots = self.imports.roots
            return next(
                (
                    lib
                    for root, lib in (("aiokafka", "aiokafka"), ("confluent_kafka", "confluent-kafka"))
                    if root in roots
                ),
                "kafka-python",
            )
        if kind in ("redis", "redis-pubsub") and "aioredis" in self.imports.roots and "redis" not in self.imports.roots:
            return "aioredis"
        return _GUESSED_LIB.get(kind, "")

    def kafka_consumer(self, call: tree_sitter.Node, lib: str) -> None:
        """``KafkaConsumer("a", "b", ...)``: each topic given at construction."""
        positional, keywords, _ = self.arguments(call)
        for argument in positional:
            for _, named in self.name_list(argument):
                self.add_message(call, MessageRole.CONSUME, lib, "topic", named)
        if "topics" in keywords:
            for _, named in self.name_list(keywords["topics"]):
                self.add_message(call, MessageRole.CONSUME, lib, "topic", named)

    def amqp(self, call: tree_sitter.Node, method: str) -> None:
        """pika and py-amqp channels: ``basic_publish(exchange, routing_key)`` (py-amqp: message
        first), ``basic_consume(queue)`` (pika 0.x: callback first), ``queue_bind(queue, exchange)``."""
        lib = "pika" if "pika" in self.imports.roots else "amqp" if "amqp" in self.imports.roots else "pika"
        positional, keywords, _ = self.arguments(call)
        if method == "basic_publish":
            if positional and self.name(positional[0])[2] and lib == "amqp":
                positional = positional[1:]
            exchange = keywords.get("exchange") or (positional[0] if positional else None)
            key = keywords.get("routing_key") or (positional[1] if len(positional) > 1 else None)
            exchange_name = self.name(exchange) if exchange is not None else ("", "", False)
            key_name = self.name(key) if key is not None else _COMPUTED
            if exchange is None or self.literal(exchange) == "":
                self.add_message(call, MessageRole.PRODUCE, lib, "queue", key_name)
                return
            self.add_message(call, MessageRole.PRODUCE, lib, "exchange", exchange_name)
            if key_name[0] or key_name[1]:
                self.add_message(call, MessageRole.PRODUCE, lib, "routing_key", key_name)
            return
        if method in ("basic_consume", "basic_get"):
            queue = keywords.get("queue")
            if queue is None:
                for argument in positional[:2]:
                    named = self.name(argument)
                    if not named[2] or argument.type == "string":
                        queue = argument
                        break
            named = self.name(queue)
            if named[2] and queue is not None and squash(self.text(queue)) in self.bound_queues:
                return  # a server-named queue bound to an exchange: the binding is the link
            self.add_message(call, MessageRole.CONSUME, lib, "queue", named)
            return
        exchange = keywords.get("exchange") or (positional[1] if len(positional) > 1 else None)
        if exchange is None:
            return
        named = self.name(exchange)
        if named[0] or named[1]:
            self.add_message(call, MessageRole.CONSUME, lib, "exchange", named)
            key = keywords.get("routing_key") or (positional[2] if len(positional) > 2 else None)
            key_name = self.name(key) if key is not None else _COMPUTED
            if key_name[0] and not any(c in key_name[0] for c in "*#"):
                self.add_message(call, MessageRole.CONSUME, lib, "routing_key", key_name)

    def aio_publish(self, call: tree_sitter.Node, exchange: _Obj | None) -> None:
        key = self.arg(call, 1, "routing_key")
        key_name = self.name(key) if key is not None else _COMPUTED
        named = self.obj_name(exchange)
        if named == ("", "", False):
            self.add_message(call, MessageRole.PRODUCE, "aio-pika", "queue", key_name)
            return
        self.add_message(call, MessageRole.PRODUCE, "aio-pika", "exchange", named)
        if key_name[0] or key_name[1]:
            self.add_message(call, MessageRole.PRODUCE, "aio-pika", "routing_key", key_name)

    def aio_bind(self, call: tree_sitter.Node, queue: _Obj) -> None:
        """``queue.bind(exchange, routing_key=...)``: the queue's consumer consumes the exchange."""
        exchange = self.arg(call, 0, "exchange")
        target = self.obj(exchange)
        named = self.obj_name(target) if target is not None else self.name(exchange)
        if named[0] or named[1]:
            self.add_message(call, MessageRole.CONSUME, "aio-pika", "exchange", named)
            key = self.arg(call, 1, "routing_key")
            key_name = self.name(key) if key is not None else _COMPUTED
            if key_name[0] and not any(c in key_name[0] for c in "*#"):
                self.add_message(call, MessageRole.CONSUME, "aio-pika", "routing_key", key_name)

    def kombu_publish(self, call: tree_sitter.Node) -> None:
        exchange = self.arg(call, -1, "exchange")
        key = self.arg(call, -1, "routing_key")
        target = self.obj(exchange) if exchange is not None else None
        if target is not None and target.kind == "kombu-exchange":
            exchange_name = self.obj_name(target)
        elif exchange is not None:
            exchange_name = self.name(exchange)
        else:
            exchange_name = ("", "", False)
        key_name = self.name(key) if key is not None else _COMPUTED
        if exchange_name == ("", "", False):
            self.add_message(call, MessageRole.PRODUCE, "kombu", "queue", key_name)
            return
        self.add_message(call, MessageRole.PRODUCE, "kombu", "exchange", exchange_name)
        if key_name[0] or key_name[1]:
            self.add_message(call, MessageRole.PRODUCE, "kombu", "routing_key", key_name)

    def kombu_consumer(self, call: tree_sitter.Node, queues: tree_sitter.Node | None) -> None:
        if queues is None:
            return
        target = queues
        if queues.type in ("identifier", "attribute"):
            found = self.obj(queues)
            if found is not None and found.kind == "kombu-queue":
                self.add_message(call, MessageRole.CONSUME, "kombu", "queue", self.obj_name(found))
                return
            bound = self.lookup(self.text(queues), queues.start_byte) if queues.type == "identifier" else []
            if bound and bound[0][1] == "value":
                target = bound[0][0]
        if target.type not in ("list", "tuple"):
            return
        for item in target.named_children:
            found = self.obj(item)
            if found is not None and found.kind == "kombu-queue":
                self.add_message(call, MessageRole.CONSUME, "kombu", "queue", self.obj_name(found))

    def celery_send(self, call: tree_sitter.Node) -> None:
        """``task.apply_async(queue="q")``, ``app.send_task("name", queue="q")``, ``sig.set(queue="q")``:
        a task sent to a named queue (a task sent to the default queue names none)."""
        queue = self.arg(call, -1, "queue")
        if queue is not None:
            self.add_message(call, MessageRole.PRODUCE, "celery", "queue", self.name(queue))

    def celery_task(self, call: tree_sitter.Node) -> None:
        queue = self.arg(call, -1, "queue")
        if queue is not None:
            self.add_message(call, MessageRole.CONSUME, "celery", "queue", self.name(queue))

    def dapr_subscription(self, node: tree_sitter.Node) -> None:
        """Dapr's programmatic subscription: ``{"pubsubname": "p", "topic": "orders", "route": ...}``."""
        keys: dict[str, tree_sitter.Node] = {}
        for pair in node.named_children:
            if pair.type == "pair":
                key = self.literal(pair.child_by_field_name("key"))
                value = pair.child_by_field_name("value")
                if key is not None and value is not None:
                    keys[key] = value
        if "pubsubname" in keys and "topic" in keys:
            self.add_message(node, MessageRole.CONSUME, "dapr", "topic", self.name(keys["topic"]))


#: The library a guessed object kind stands for.
_GUESSED_LIB: Final = {
    "redis": "redis-py",
    "redis-pubsub": "redis-py",
    "nats": "nats-py",
    "sqs": "boto3",
    "sns": "boto3",
    "gpublisher": "google-cloud-pubsub",
    "gsubscriber": "google-cloud-pubsub",
    "dapr": "dapr",
}


def _verb_of(text: str | None, default: str) -> str:
    """The upper-case verb a literal names (``default`` when none is written, ``*`` when it is no word)."""
    if not text:
        return default
    word = text.strip().upper()
    return word if re.fullmatch(r"[A-Z][A-Z0-9_-]*", word) else "*"


def _useful(pieces: Sequence[_Piece]) -> bool:
    """Whether tracing gave more than one unknown expression (a literal piece or a marker)."""
    return any(literal or _is_marker(text) for literal, text in pieces)


def _constant_like(name: str) -> bool:
    """``API_URL``, ``ORDERS``: an upper-case name, as constants are written."""
    return name.isupper() and any(c.isalpha() for c in name)


def _last_segment(text: str, separator: str) -> str:
    text = text.split("?", 1)[0].rstrip(separator if separator != ":" else "")
    return text.rsplit(separator, 1)[-1]
