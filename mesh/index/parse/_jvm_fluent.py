"""Indirect HTTP clients of Java and Kotlin, for the link pass (:mod:`._jvm_links`).

Theory of operation: these rules read calls whose URL is not written where the request is made, or
is written in a way no single call shows; each is a function of the link pass's engine and a call
(or of the engine alone), registered in :data:`._jvm_links._CALL_RULES` like the engine's own rules.

- **Kiota** request builders (``client.catalog().products().byId(id).get()``): each navigation call
  is a path segment spelled as its method, ``byXxx(arg)`` the parameter ``{xxx}``, the last call the
  verb; the base address is the one registered for the client type (``client:CatalogClient``). The
  generated builders are left out of the index, so the call site is all there is. Taken only when
  the chain starts from a name whose declared type is a type of the workspace named like a client
  (``...Client``) or the file imports Kiota, and every link has a builder's shape: look-alikes
  (``Optional.get()``, ``map.get(k)``, streams, builders) never are.
- **REST Assured** (``given()...when().post(url)``, the static ``get(url)``, its MockMvc module) and
  **MockMvc** request builders (``perform(get("/x"))``, Kotlin's ``mockMvc.get("/x") { }``): requests
  of a test to the application under test, told by the file's imports.
- **URL helpers**: a method of the file that returns a string built from its parameters (``String
  baseUrl(String path) { return "http://localhost:" + port + path; }``) is expanded where it is
  called, its parameters bound to the arguments; one level deep (a helper called by a helper is not
  expanded), and only a helper with one readable ``return`` at the end of its body. A Java
  ``StringBuilder`` local reads as what it was created with and its ``append`` calls in order (one
  in a branch or a loop is unreadable, but a loop over the vararg of the helper being expanded is
  unrolled over the arguments given).
- **Configuration-properties beans**: a class annotated ``@ConfigurationProperties("order.destinations")``
  gives a :class:`~.._facts.Setting` ``client:OrderDestinations.orderServiceUrl`` per String
  property, whose ``env`` is the configuration key ``config:order.destinations.orderServiceUrl``;
  a URL starting with a property of a value whose declared type is a type of the workspace
  (``destinations.getOrderServiceUrl()``, ``props.orderServiceUrl``) has that bean property as its
  base address, followed by the resolver through the setting to the key and the variable setting it.
  Such a property is a piece of its own (:data:`BEAN`): an address of a URL's base only, so a topic
  read from a bean stays computed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

import tree_sitter

from .._facts import Setting
from ._config import secret_name
from ._jvm_syntax import Call, named_nodes
from ._links import HTTP_METHODS

if TYPE_CHECKING:
    from ._jvm_links import Piece, _Engine

__all__ = [
    "BEAN",
    "KIOTA_VERBS",
    "MOCK_MVC_NAMES",
    "REST_ASSURED_NAMES",
    "Indirect",
    "bean_address",
    "bean_member",
    "builder_value",
    "call_value",
    "configuration_properties",
    "kiota",
    "mock_mvc",
    "rest_assured",
]

#: Kiota's request methods and how many arguments each takes at most (a body, a configuration lambda).
KIOTA_VERBS: Final = {"get": 1, "delete": 1, "post": 2, "put": 2, "patch": 2}
#: Method names that are no Kiota navigation (a getter, a builder, a stream, a future, an action).
_NOT_SEGMENT: Final = re.compile(
    r"^(?:get|set|is|has|with|to|as|build|builder|new|create|of|from|stream|parallelStream|map|flatMap|filter|"
    r"collect|forEach|reduce|sorted|distinct|limit|skip|peek|find|anyMatch|allMatch|noneMatch|orElse|or|and|"
    r"ifPresent|block|subscribe|then|join|iterator|entrySet|keySet|values|next|send|execute|fetch|invoke|call|"
    r"retrieve|exchange|async|load|apply|also|let|run|use|copy|clone|close|equals|hashCode|toString|wait|"
    r"notify|post|put|patch|delete|head|options|request)(?:[A-Z_0-9]|$)"
)
_BY: Final = re.compile(r"^by([A-Z]\w*)$")

#: REST Assured's request methods.
REST_ASSURED_NAMES: Final = ("get", "post", "put", "delete", "patch", "head", "options", "request")
_REST_ASSURED: Final = ("io.restassured", "com.jayway.restassured")
#: The classes whose static methods start or send a REST Assured request.
_REST_ASSURED_CLASSES: Final = frozenset({"RestAssured", "RestAssuredMockMvc", "RestAssuredWebTestClient"})
#: Declared types of a REST Assured request being built.
_REST_ASSURED_SPECS: Final = frozenset(
    {"RequestSpecification", "RequestSender", "MockMvcRequestSpecification", "MockMvcRequestSender",
     "WebTestClientRequestSpecification", "WebTestClientRequestSender", "RequestSpecBuilder"}
)  # fmt: skip
#: The Kotlin extensions of REST Assured (``Given { } When { get("/x") } Then { }``).
_REST_ASSURED_KOTLIN: Final = ("io.restassured.module.kotlin.extensions",)

#: MockMvc's request builders (static methods, and Kotlin's ``MockMvc`` DSL of the same names).
MOCK_MVC_NAMES: Final = ("get", "post", "put", "patch", "delete", "head", "options", "request", "multipart")
_MOCK_MVC_BUILDERS: Final = frozenset(
    {"MockMvcRequestBuilders", "RestDocumentationRequestBuilders", "MockMvcRequestBuilderUtils"}
)
_MOCK_MVC: Final = ("org.springframework.test.web.servlet", "org.springframework.restdocs")
_MOCK_MVC_DSL: Final = ("org.springframework.test.web.servlet",)

#: Types every Java or Kotlin file sees without an import: never a type of the workspace.
_PLATFORM_TYPES: Final = frozenset(
    {"String", "Object", "Integer", "Long", "Short", "Byte", "Boolean", "Double", "Float", "Character", "Number",
     "Math", "System", "Thread", "Class", "Iterable", "StringBuilder", "StringBuffer", "CharSequence", "Runtime",
     "Process", "Record", "Enum", "Exception", "RuntimeException", "Throwable", "Error", "Void", "Comparable",
     "Any", "Int", "Unit", "Nothing", "List", "MutableList", "Map", "MutableMap", "Set", "MutableSet", "Array",
     "Pair", "Triple", "Sequence", "Collection", "Lazy", "Result", "Regex", "Char"}
)  # fmt: skip
#: Packages of libraries: a type imported from one is no type of the workspace, and a wildcard import
#: of one names no application type (unless the file's
#: own package shares three parts with it: ``io.dapr.quickstarts`` importing its own types).
LIBRARY_ROOTS: Final = (
    "java.", "javax.", "jakarta.", "kotlin.", "kotlinx.", "android.", "androidx.", "org.springframework.",
    "io.micronaut.", "io.quarkus.", "io.vertx.", "io.ktor.", "reactor.", "io.reactivex.", "rx.", "okhttp3.",
    "okio.", "retrofit2.", "feign.", "com.fasterxml.", "com.google.", "org.apache.", "org.eclipse.", "io.netty.",
    "io.grpc.", "com.microsoft.", "software.amazon.", "com.amazonaws.", "com.azure.", "io.dapr.", "io.restassured.",
    "com.jayway.", "org.junit.", "org.mockito.", "org.slf4j.", "io.lettuce.", "redis.clients.", "org.hibernate.",
    "lombok.", "com.squareup.", "io.opentelemetry.", "io.github.resilience4j.", "org.elasticsearch.", "co.elastic.",
    "com.mongodb.", "org.mongodb.", "io.nats.", "com.rabbitmq.", "org.testcontainers.", "io.eventuate.",
    "io.temporal.", "io.kubernetes.", "io.fabric8.", "com.stripe.", "com.twilio.", "org.jboss.", "io.smallrye.",
    "io.helidon.", "com.hazelcast.", "org.redisson.", "org.json.", "org.bson.", "com.netflix.", "io.swagger.",
    "org.assertj.", "org.hamcrest.", "io.cucumber.", "cucumber.",
)  # fmt: skip

#: A piece holding a bean property (``bean:Type.property``): a URL's base address (``client:Type.property``),
#: but no address of anything else (a topic name read from a bean stays computed).
BEAN: Final = "bean:"
#: Declared types of a configuration-properties bean's properties that can hold an address.
_ADDRESS_TYPES: Final = frozenset({"String", "URI", "URL", "java.net.URI", "java.net.URL", "java.lang.String"})
#: Words of a property name that says it holds an address (a record's accessor is read only then).
_ADDRESS_WORDS: Final = frozenset({"url", "uri", "host", "endpoint", "address", "base", "destination", "location"})
_WORD: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

#: Statement nodes that return from a helper, and nodes whose returns are their own (lambdas, classes).
_RETURNS: Final = frozenset({"return_statement", "return_expression", "jump_expression"})
_OWN_RETURNS: Final = frozenset(
    {"lambda_expression", "lambda_literal", "annotated_lambda", "anonymous_function", "class_body", "object_literal"}
)
#: Nodes of a helper's body looked at before it is given up as unreadable.
_BODY_NODES_MAX: Final = 4096
#: Boxed numbers, whose ``toString(n)``/``valueOf(n)`` is the number itself.
_NUMBERS: Final = frozenset({"Long", "Integer", "Short", "String", "java.lang.Long", "java.lang.Integer"})
#: Return types of a helper that can be a URL (Kotlin may declare none).
_URL_TYPES: Final = frozenset({"String", "URI", "URL", "CharSequence", "java.net.URI", "java.lang.String"})


class Indirect:
    """The per-file state of these rules: the helpers of the file and whether one is being expanded."""

    def __init__(self) -> None:
        self.expanding = False
        #: method name -> indices of the file's methods and functions of that name
        self.methods: dict[str, list[int]] | None = None
        #: helper index -> (parameter names, last is a vararg, returned expression), None when unreadable
        self.bodies: dict[int, tuple[list[str], bool, tree_sitter.Node] | None] = {}
        #: a vararg parameter of the helper being expanded -> the pieces of each argument it was given
        self.spread: dict[tuple[int, str], list[list[Piece]]] = {}
        #: (classes, method name) -> whether the file imports that static method
        self.statics: dict[tuple[frozenset[str], str], bool] = {}


# -- types of the workspace --------------------------------------------------------------------------


def _shared(module: str, package: str) -> int:
    count = 0
    for left, right in zip(module.split("."), package.split(".")):
        if left != right:
            break
        count += 1
    return count


def workspace_type(engine: _Engine, name: str) -> bool:
    """Whether the type ``name`` (simple, as :meth:`~._jvm_links._Engine.type_of` gives it) is one of
    the workspace: declared in this file, in its package (not imported), or imported from a package
    that is not a library's."""
    if not name or not name[:1].isupper() or "." in name or name in _PLATFORM_TYPES:
        return False
    if name in engine.type_index:
        return True
    module = next((module for module in engine.modules if module.rsplit(".", 1)[-1] == name), None)
    if module is None:
        return True
    if engine.package and _shared(module, engine.package) >= 3:
        return True
    return not module.startswith(LIBRARY_ROOTS)


# -- Kiota ---------------------------------------------------------------------------------------------


def kiota(engine: _Engine, call: Call) -> None:
    """``client.catalog().products().byId(id).get()``: ``GET /catalog/products/{id}`` of ``client:Type``."""
    if call.receiver is None or call.new or len(call.args) > KIOTA_VERBS[call.name]:
        return
    lambdas = [arg for arg in call.args if engine.s.shape(arg)[0] in ("lambda", "ref")]
    if call.name in ("get", "delete"):
        if call.args and not lambdas:
            return
    elif len(call.args) == 2 and engine.s.shape(call.args[1])[0] not in ("lambda", "ref"):
        return
    if call.named or engine.s.shape(call.receiver)[0] != "call":
        return
    root = engine.root(call)  # memoised along a chain: a long one costs no walk per link
    if root.receiver is None or root.new or engine.s.shape(root.receiver)[0] not in ("name", "this"):
        return
    kind = engine.type_of(root.receiver)
    if not workspace_type(engine, kind) or not (kind.endswith("Client") or engine.uses("com.microsoft.kiota")):
        return
    links = engine.chain_down(call)
    if links[-1] is not root:
        return  # longer than a chain is followed
    segments: list[Piece] = []
    raw = False
    for link in reversed(links[1:]):
        if link.lam is not None or link.named:
            return
        by = _BY.match(link.name)
        if by and len(link.args) == 1:
            segments.append((True, "/{" + by.group(1)[:1].lower() + by.group(1)[1:] + "}"))
        elif link.name == "withUrl" and len(link.args) == 1:
            raw = True  # a raw URL replaces the path built so far
            segments = [*engine.value(link.args[0])]
        elif link.args or by or _NOT_SEGMENT.match(link.name) or not link.name[:1].islower():
            return
        else:
            segments.append((True, "/" + link.name))
    pieces = segments if raw else [(False, f"client:{kind}"), *segments]
    engine.http_call(call.anchor, call.name.upper(), pieces, "kiota")


# -- test clients --------------------------------------------------------------------------------------


def _static_import(engine: _Engine, classes: frozenset[str], name: str) -> bool:
    """Whether the file imports the static method ``name`` of one of ``classes`` (or all of one's)."""
    memo = engine.indirect.statics
    found = memo.get((classes, name))
    if found is None:
        found = memo[(classes, name)] = any(
            member in (name, "*") and owner.rsplit(".", 1)[-1] in classes
            for owner, _, member in (module.rpartition(".") for module in engine.modules)
        )
    return found


def rest_assured(engine: _Engine, call: Call) -> None:
    """REST Assured: ``given().body(x).when().post("/orders")``, ``RestAssured.get(url)``, the static
    ``get(url)``, a ``RequestSpecification``'s ``get``, its MockMvc module's ``given().standaloneSetup(c)
    .when().get("/orders/1")`` (a request to the application under test) and Kotlin's ``When { get() }``;
    a ``baseUri``/``basePath`` of the chain is the URL's base."""
    if not call.args or call.new or not engine.uses(*_REST_ASSURED):
        return
    args = list(call.args)
    if call.name == "request":
        if len(args) < 2:
            return
        verb = _verb(engine, args[0])
        if not verb:
            return
        args = args[1:]
    else:
        verb = call.name.upper()
    base: list[Piece] = []
    if call.receiver is None:
        if not (
            _static_import(engine, _REST_ASSURED_CLASSES, call.name)
            or (engine.s.language == "kotlin" and engine.uses(*_REST_ASSURED_KOTLIN))
        ):
            return
    elif engine.written(call.receiver) not in _REST_ASSURED_CLASSES:
        tag = engine.s.shape(call.receiver)[0]
        if tag == "call":
            links = engine.chain_down(call)[1:]
            root = links[-1]
            if not _rest_assured_root(engine, root):
                return
            base = _rest_assured_base(engine, links)
        elif tag not in ("name", "this") or engine.type_of(call.receiver) not in _REST_ASSURED_SPECS:
            return
    pieces = engine.value(args[0])
    engine.http_call(call.anchor, verb, pieces, "rest-assured", base or None)


def _rest_assured_root(engine: _Engine, root: Call) -> bool:
    """Whether a chain starting with ``root`` builds a REST Assured request."""
    if root.receiver is None:
        if root.name == "given" or (root.name in ("when", "with") and not root.args):
            return _static_import(engine, _REST_ASSURED_CLASSES, root.name)
        return False
    if engine.written(root.receiver) in _REST_ASSURED_CLASSES:
        return root.name in ("given", "when", "with")
    return engine.s.shape(root.receiver)[0] in ("name", "this") and (
        engine.type_of(root.receiver) in _REST_ASSURED_SPECS
    )


def _rest_assured_base(engine: _Engine, links: list[Call]) -> list[Piece]:
    """The ``baseUri(...)`` and ``basePath(...)`` a REST Assured chain sets (``links``: its calls before the request)."""
    uri: list[Piece] = []
    path: list[Piece] = []
    for link in links:
        if link.name == "baseUri" and len(link.args) == 1 and not uri:
            uri = list(engine.value(link.args[0]))
        elif link.name == "basePath" and len(link.args) == 1 and not path:
            path = list(engine.value(link.args[0]))
    return [*uri, *path] if uri else path


def mock_mvc(engine: _Engine, call: Call) -> None:
    """MockMvc: ``mockMvc.perform(get("/orders/{id}", id))`` with the static request builders of
    ``MockMvcRequestBuilders``, and Kotlin's ``mockMvc.post("/orders") { }``: requests to the
    application under test."""
    if not call.args or call.new or not engine.uses(*_MOCK_MVC):
        return
    args = list(call.args)
    if call.name == "request" or (call.name == "multipart" and len(args) >= 2 and _verb(engine, args[0])):
        verb = _verb(engine, args[0])
        args = args[1:]
        if not verb or not args:
            return
    else:
        verb = "POST" if call.name == "multipart" else call.name.upper()
    if call.receiver is None:
        if not _static_import(engine, _MOCK_MVC_BUILDERS, call.name):
            return
        if _static_import(engine, _REST_ASSURED_CLASSES, call.name):
            return  # REST Assured's own static method (read by its rule)
    elif engine.written(call.receiver).rsplit(".", 1)[-1] not in _MOCK_MVC_BUILDERS and (
        engine.type_of(call.receiver) != "MockMvc" or not engine.uses(*_MOCK_MVC_DSL)
    ):
        return
    engine.http_call(call.anchor, verb, engine.value(args[0]), "MockMvc")


def _verb(engine: _Engine, node: tree_sitter.Node) -> str:
    """``GET`` of ``HttpMethod.GET``, ``Method.POST``, ``"post"``; "" when none."""
    tag = engine.s.shape(node)[0]
    text = engine.written(node) if tag in ("member", "name") else ""
    if tag == "str":
        pieces = engine.value(node)
        text = pieces[0][1] if len(pieces) == 1 and pieces[0][0] else ""
    word = text.rsplit(".", 1)[-1].strip().upper()
    return word if word in HTTP_METHODS else ""


# -- values: URL helpers and bean properties ---------------------------------------------------------


def call_value(engine: _Engine, call: Call, depth: int) -> list[Piece] | None:
    """What a call the engine does not know evaluates to: a URL helper of the file expanded, or a bean
    property read by its getter (``destinations.getOrderServiceUrl()``); None when neither."""
    found = helper_value(engine, call, depth)
    if found is not None:
        return found
    if (
        call.name in ("toString", "valueOf")
        and len(call.args) == 1
        and call.receiver is not None
        and engine.written(call.receiver) in _NUMBERS
    ):
        return engine.value(call.args[0], depth + 1)  # Long.toString(id): the id
    if call.args or call.receiver is None or call.new or call.named or call.lam is not None:
        return None
    name = call.name
    if len(name) > 3 and name.startswith("get") and name[3].isupper():
        prop = name[3:] if len(name) > 4 and name[4].isupper() else name[3].lower() + name[4:]
    elif name[:1].islower() and _address_word(name):
        prop = name  # a record's accessor
    else:
        return None
    return _bean(engine, call.receiver, prop)


def bean_member(engine: _Engine, owner: tree_sitter.Node, member: str) -> list[Piece] | None:
    """``props.orderServiceUrl`` (a Kotlin property, a Java field) of a value of a workspace type."""
    if not member[:1].islower():
        return None
    return _bean(engine, owner, member)


def _bean(engine: _Engine, receiver: tree_sitter.Node, prop: str) -> list[Piece] | None:
    if engine.s.shape(receiver)[0] not in ("name", "this"):
        return None
    kind = engine.type_of(receiver)
    if not workspace_type(engine, kind) or secret_name(prop):
        return None
    return [(False, f"{BEAN}{kind}.{prop}")]


def bean_address(base: str) -> str:
    """The address of a URL whose base is a bean property (``client:Type.property``), else ""."""
    return "client:" + base[len(BEAN) :] if base.startswith(BEAN) else ""


def _address_word(name: str) -> bool:
    return any(word.lower() in _ADDRESS_WORDS for word in _WORD.findall(name))


def helper_value(engine: _Engine, call: Call, depth: int) -> list[Piece] | None:
    """The value of a call to a URL helper of the file, its parameters bound to the call's arguments;
    None when the call is no such helper's (or a helper is being expanded already: one level)."""
    state: Indirect = engine.indirect
    if state.expanding or call.new or call.lam is not None:
        return None
    if call.receiver is not None and call.receiver.type not in ("this", "this_expression"):
        return None
    index = _helper(engine, call)
    if index is None:
        return None
    params, varargs, expression = state.bodies[index]  # type: ignore[misc]
    bound: dict[tuple[int, str], list[Piece]] = {}
    spread: dict[tuple[int, str], list[list[Piece]]] = {}
    for position, name in enumerate(params):
        if varargs and position == len(params) - 1:
            bound[(index, name)] = [(False, "?")]
            spread[(index, name)] = [engine.value(arg, depth + 1) for arg in call.args[position:]]
        elif name in call.named:
            bound[(index, name)] = engine.value(call.named[name], depth + 1)
        elif position < len(call.args):
            bound[(index, name)] = engine.value(call.args[position], depth + 1)
    saved = engine.cache
    engine.cache = dict(bound)
    state.expanding = True
    state.spread = spread
    try:
        return engine.value(expression, depth + 1)
    finally:
        state.expanding = False
        state.spread = {}
        engine.cache = saved


def _helper(engine: _Engine, call: Call) -> int | None:
    """The one method of the file (of a class around the call, or top-level) that ``call`` calls."""
    state: Indirect = engine.indirect
    if state.methods is None:
        state.methods = {}
        for index, kind in enumerate(engine.defs.kinds):
            if kind in ("method", "function"):
                state.methods.setdefault(engine.defs.facts[index].name, []).append(index)
    candidates = state.methods.get(call.name)
    if not candidates:
        return None
    around: list[int] = []
    scope = engine.defs.enclosing(call.node.start_byte)
    for _ in range(64):
        around.append(scope)
        around.extend(engine.companions.get(scope, ()))
        if scope < 0:
            break
        scope = engine.defs.parents[scope]
    fitting = []
    for index in candidates:
        if index in around or engine.defs.parents[index] not in around:
            continue  # a helper calling itself, or one of a class the call is not in
        if index not in state.bodies:
            state.bodies[index] = _body(engine, index)
        body = state.bodies[index]
        if body is None:
            continue
        params, varargs, _ = body
        given = len(call.args) + len(call.named)
        if varargs:
            fits = given >= len(params) - 1
        elif engine.s.language == "kotlin":
            fits = given <= len(params)
        else:
            fits = given == len(params)
        if fits:
            fitting.append(index)
    return fitting[0] if len(fitting) == 1 else None


def _body(engine: _Engine, index: int) -> tuple[list[str], bool, tree_sitter.Node] | None:
    """(parameter names, last is a vararg, the returned expression) of a helper returning a URL."""
    node = engine.defs.nodes[index]
    text = engine.text
    params: list[str] = []
    varargs = False
    if node.type == "method_declaration":
        returned = node.child_by_field_name("type")
        if returned is None or text(returned).replace(" ", "") not in _URL_TYPES:
            return None
        for param in named_nodes(node.child_by_field_name("parameters")):
            if param.type == "formal_parameter":
                name = param.child_by_field_name("name")
            elif param.type == "spread_parameter":
                declarator = next(
                    (child for child in param.named_children if child.type == "variable_declarator"), None
                )
                name = declarator.child_by_field_name("name") if declarator is not None else None
                varargs = True
            else:
                continue
            if name is None:
                return None
            params.append(text(name))
        block = node.child_by_field_name("body")
        statements = named_nodes(block)
    elif node.type == "function_declaration":
        returned = next((child for child in node.named_children if child.type in ("user_type", "nullable_type")), None)
        if returned is not None and text(returned).rstrip("?").replace(" ", "") not in _URL_TYPES:
            return None
        holder = next((child for child in node.named_children if child.type == "function_value_parameters"), None)
        for param in named_nodes(holder):
            if param.type == "parameter_modifiers":
                varargs = varargs or "vararg" in text(param).split()
                continue
            if param.type != "parameter":
                continue
            name = next((child for child in param.named_children if child.type == "identifier"), None)
            if name is None:
                return None
            params.append(text(name))
        body = next((child for child in node.named_children if child.type == "function_body"), None)
        inner = named_nodes(body)
        if len(inner) == 1 and inner[0].type != "block":
            return params, varargs, inner[0]  # fun url(path: String) = "..." + path
        block = inner[0] if inner else None
        statements = named_nodes(block)
        if len(statements) == 1 and statements[0].type == "statements":
            statements = named_nodes(statements[0])
    else:
        return None
    if not statements:
        return None
    last = statements[-1]
    if last.type not in _RETURNS or not text(last).startswith("return") or _returns_in(engine, statements[:-1]):
        return None
    value = named_nodes(last)
    if len(value) != 1:
        return None
    return params, varargs, value[0]


def builder_value(engine: _Engine, call: Call, depth: int) -> list[Piece] | None:
    """``sb.toString()`` of a ``StringBuilder`` local of a Java method: what it was created with and
    each ``append`` before, in order (one in a loop or a branch is unreadable, but a loop over a
    vararg of the helper being expanded, unrolled); None when the builder is not read so."""
    if engine.s.language != "java" or call.receiver is None or engine.s.shape(call.receiver)[0] != "name":
        return None
    name = engine.text(call.receiver)
    key = engine.lookup(name, call.receiver.start_byte)
    if key is None or key[0] < 0 or engine.defs.kinds[key[0]] not in ("method", "function"):
        return None
    values = engine.values.get(key, [])
    created = engine.s.call(values[0]) if len(values) == 1 and values[0].type in _CREATIONS else None
    if created is None or created.new not in ("StringBuilder", "StringBuffer") or len(created.args) > 1:
        return None
    pieces: list[Piece] = []
    if created.args and engine.s.shape(created.args[0])[0] != "other":  # not a capacity
        pieces.extend(engine.value(created.args[0], depth + 1))
    body = engine.defs.nodes[key[0]].child_by_field_name("body")
    appends = _appends(engine, body, key, call.node.start_byte)
    if appends is None:
        return None
    spread = engine.indirect.spread
    position = 0
    while position < len(appends):
        arg, loop = appends[position]
        position += 1
        if loop is None:
            pieces.extend(engine.value(arg, depth + 1))
            continue
        _, variable, iterable = loop
        if iterable is None:  # in a branch or a loop: maybe, maybe not, maybe many times
            text = engine.value(arg, depth + 1)
            if not (len(text) == 1 and text[0][0] and text[0][1].startswith(("?", "&", "#"))):
                pieces.append((False, "?"))  # (a query string added or not leaves the path as it is)
            continue
        body = [arg]  # the appends of one loop over a vararg, unrolled over its arguments
        while position < len(appends) and appends[position][1] == loop:
            body.append(appends[position][0])
            position += 1
        for element in spread.get(iterable, []):
            for step in body:
                pieces.extend(element if engine.text(step) == variable else engine.value(step, depth + 1))
    from ._jvm_links import _merge  # (here: that module imports this one)

    return _merge(pieces)


_CREATIONS: Final = frozenset({"object_creation_expression"})
#: Calls that read a ``StringBuilder`` without changing it.
_BUILDER_READS: Final = frozenset({"toString", "length", "charAt", "indexOf", "lastIndexOf", "substring", "isEmpty"})
#: Statements whose parts run maybe, or many times: an ``append`` inside one is no plain step.
_BRANCHES: Final = frozenset(
    {"if_statement", "for_statement", "while_statement", "do_statement", "switch_expression", "switch_block",
     "try_statement", "catch_clause", "ternary_expression", "lambda_expression", "class_body"}
)  # fmt: skip


#: Where an ``append`` is: None (a plain step), or (start of its loop or branch, the loop's variable,
#: the vararg of the helper being expanded it loops over, None for any other loop or branch).
_Loop = tuple[int, str, tuple[int, str] | None] | None


def _appends(
    engine: _Engine, body: tree_sitter.Node | None, key: tuple[int, str], before: int
) -> list[tuple[tree_sitter.Node, _Loop]] | None:
    """The ``append`` arguments given to the builder ``key`` in ``body`` before byte ``before``, in
    order, each with where it is (:data:`_Loop`). None when the builder is changed otherwise
    (``insert``, ``setLength``...)."""
    if body is None:
        return None
    found: list[tuple[tree_sitter.Node, _Loop]] = []
    stack: list[tuple[tree_sitter.Node, _Loop]] = [(body, None)]
    seen = 0
    while stack:
        node, loop = stack.pop()
        seen += 1
        if seen > _BODY_NODES_MAX:
            return None
        if node.start_byte >= before:
            continue
        if node.type == "method_invocation":
            links = engine.chain_down(engine.s.call(node)) if engine.s.call(node) is not None else []
            root = links[-1] if links else None
            target = root.receiver if root is not None else None
            if (
                target is not None
                and target.type == "identifier"
                and engine.lookup(engine.text(target), target.start_byte) == key
            ):
                for link in reversed(links):
                    if link.name == "append" and len(link.args) == 1:
                        found.append((link.args[0], loop))
                    elif link.name not in _BUILDER_READS:
                        return None  # the builder is changed otherwise (``insert``, ``setLength``...)
                continue
        inner = loop
        if node.type == "enhanced_for_statement":
            variable = node.child_by_field_name("name")
            iterable = node.child_by_field_name("value")
            spread = (key[0], engine.text(iterable)) if iterable is not None and iterable.type == "identifier" else None
            if spread not in engine.indirect.spread or loop is not None:
                spread = None
            inner = (node.start_byte, engine.text(variable), spread)
        elif node.type in _BRANCHES:
            inner = (node.start_byte, "", None)
        stack.extend((child, inner) for child in reversed(node.named_children))
    return found


def _returns_in(engine: _Engine, nodes: list[tree_sitter.Node]) -> bool:
    """Whether a return of the helper is among ``nodes`` (or they are too large to tell)."""
    stack = list(nodes)
    seen = 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > _BODY_NODES_MAX:
            return True
        if node.type in _RETURNS and engine.text(node).startswith("return"):  # (Kotlin's ``throw`` is a jump)
            return True
        if node.type not in _OWN_RETURNS:
            stack.extend(node.children)
    return False


# -- configuration-properties beans ------------------------------------------------------------------


def configuration_properties(engine: _Engine) -> None:
    """``@ConfigurationProperties("order.destinations") class OrderDestinations { String orderServiceUrl; }``:
    a setting ``client:OrderDestinations.orderServiceUrl`` -> ``config:order.destinations.orderServiceUrl``
    per String property (fields, setters, record components, Kotlin properties)."""
    for index, anns in engine.anns.items():
        if engine.defs.kinds[index] in ("method", "function"):
            continue
        ann = next((ann for ann in anns if ann.name == "ConfigurationProperties"), None)
        if ann is None:
            continue
        node = ann.value("prefix", "value")
        pieces = engine.value(node) if node is not None else []
        prefix = "".join(text for _, text in pieces) if pieces and all(literal for literal, _ in pieces) else None
        if not prefix or not re.fullmatch(r"[\w.\-\[\]]+", prefix):
            continue
        owner = engine.defs.facts[index].name
        seen: dict[str, bool] = {}
        for name, anchor in _properties(engine, engine.defs.nodes[index]):
            if name in seen or secret_name(name) or _secret_word(name):
                continue
            seen[name] = True
            engine.add(
                anchor,
                Setting(f"client:{owner}.{name}", anchor.start_point[0] + 1, env=f"config:{prefix}.{name}"),
            )


def _secret_word(name: str) -> bool:
    from ._jvm_links import _looks_secret  # the link pass's own policy (here: it imports this module)

    return _looks_secret(name, "")


def _properties(engine: _Engine, node: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
    """(name, name node) of each property of a type that can hold an address, in source order."""
    found: list[tuple[str, tree_sitter.Node]] = []
    syntax = engine.s
    if node.type in ("class_declaration", "record_declaration") and syntax.language == "java":
        for param in named_nodes(node.child_by_field_name("parameters")):  # a record's components
            for decl in syntax.declarations(param) if param.type == "formal_parameter" else []:
                if decl.type in _ADDRESS_TYPES:
                    found.append((decl.name, decl.node))
        setters: list[tuple[str, tree_sitter.Node]] = []
        for member in named_nodes(node.child_by_field_name("body")):
            if member.type == "field_declaration":
                for decl in syntax.declarations(member):
                    if not decl.constant and decl.type in _ADDRESS_TYPES:
                        found.append((decl.name, decl.node))
            elif member.type == "method_declaration":
                setter = _setter(engine, member)
                if setter is not None:
                    setters.append(setter)
        names = {name for name, _ in found}
        found.extend(setter for setter in setters if setter[0] not in names)
    elif node.type == "class_declaration":
        for child in node.named_children:
            if child.type == "primary_constructor":
                holder = next((part for part in child.named_children if part.type == "class_parameters"), None)
                for param in named_nodes(holder):
                    if param.type != "class_parameter" or not any(
                        part.type in ("val", "var") for part in param.children
                    ):
                        continue
                    for decl in syntax.declarations(param):
                        if decl.type in _ADDRESS_TYPES:
                            found.append((decl.name, decl.node))
            elif child.type == "class_body":
                for member in named_nodes(child):
                    if member.type == "property_declaration":
                        for decl in syntax.declarations(member):
                            if decl.type in _ADDRESS_TYPES:
                                found.append((decl.name, decl.node))
    return found


def _setter(engine: _Engine, method: tree_sitter.Node) -> tuple[str, tree_sitter.Node] | None:
    """(property, name node) of ``void setOrderServiceUrl(String url)``; None for any other method."""
    name = method.child_by_field_name("name")
    text = engine.text(name)
    params = [child for child in named_nodes(method.child_by_field_name("parameters"))]
    if name is None or not re.fullmatch(r"set[A-Z]\w*", text) or len(params) != 1:
        return None
    kind = params[0].child_by_field_name("type")
    if kind is None or engine.text(kind).replace(" ", "") not in _ADDRESS_TYPES:
        return None
    prop = text[3:] if len(text) > 4 and text[4].isupper() else text[3].lower() + text[4:]
    return prop, name
