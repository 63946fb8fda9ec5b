"""JavaScript and TypeScript extraction, shared by ``_javascript`` and ``_typescript``.

Theory of operation. One compiled query per grammar (``queries/javascript/outline.scm``, plus
``queries/typescript/outline.scm`` for the TypeScript grammars) finds every definition and import in
a single pass over the tree. Its nodes come back grouped by capture name; they are merged in document order
and a stack of the definitions still open gives each one its container. Class members are read from
the class bodies the query finds: methods, and fields holding a function (``handle = async () =>
{}``, ``static make = () => {}``).

Functions held by named objects are definitions too, contained by the object's name (nested objects
add their keys): the methods and function-valued properties of an object literal bound to a
variable or a class field (``const gateway = { getInvoice(id) {}, list: async () => {} }``:
``gateway.getInvoice``, ``gateway.list``), and functions or objects assigned to a member chain
(``Foo.prototype.bar = function () {}``: ``Foo.bar``). ``module.exports`` and ``exports`` add no
name (``exports.f = () => {}`` and ``module.exports = { f() {} }`` define ``f``, a function). Other
member assignments count only as statements of the program itself (``obj.onload = ...`` inside a
function wires a callback, it defines nothing), and ``this.x = ...`` never does. An object literal
that is not named (an argument, a returned value) holds no definitions.

gRPC evidence is looked for only when the bytes can hold some: an ``addService`` call, a
``loadPackageDefinition`` call, a client constructor factory, a ``make...Request`` call, channel
credentials, an ``addToServer`` call, or an import of generated code. A second query then collects the
file's bindings (imports, declarations, parameters, class fields, assignments) into scopes: the
program and every function, nested by their byte ranges (never by walking parents, which costs a
walk from the root each time). Small resolvers follow those bindings, depth-limited and memoised:

* ``origin`` traces an expression back through assignments and member access to a
  ``loadPackageDefinition(...)`` result or to a ``require``/``import`` of a module;
* ``client`` says whether an expression holds a generated client, and of which service.

Client heuristic (there is no type checker, so names and origins decide):

* ``new X.Svc(...)`` is a client when ``X`` traces back to a ``loadPackageDefinition`` result; the
  namespace is ``X`` as written.
* ``new X.SvcClient(...)`` is a client when ``X`` traces back to a generated module; ``new
  SvcClient(...)`` when ``SvcClient`` is imported or destructured from one. ``new X.Svc`` on a
  generated module is not (``new messages.GetOrderRequest()`` builds a message).
* ``new C(...)`` is a client when ``C`` holds ``[grpc.]makeClientConstructor(definition, 'Svc')``
  (or ``makeGenericClientConstructor``): the service comes from the definition it is given
  (``def['acme.orders.v1.Orders']``: namespace ``acme.orders.v1``), else from the name.
* Out of sight of its origin (a package definition loaded in another file), ``new X.Svc(address,
  credentials)`` or ``new SvcClient(address, credentials)`` is a client when its second argument is
  channel credentials (an expression naming ``credentials``, or a name bound to one).
* A generated module is one whose last path segment ends in ``_pb``, ``_grpc_pb``, ``_grpc``,
  ``-grpc`` or ``.grpc`` (extensions aside), or whose path has a segment ``generated``,
  ``__generated__``, ``gen``, ``proto``, ``protos``, ``pb``, ``grpc`` or ``stubs``; the ``@grpc/*``
  runtime packages are not.
* A holder is a variable, parameter, ``this.x`` field or class field bound to a client, or declared
  (TypeScript) with a generated client type. Any method named on a holder is a call (also
  ``promisify(holder.m)`` and ``holder.m.bind(...)``), bar the ``grpc.Client`` base methods
  (``close``, ``waitForReady``...).
* A reflection-free dynamic stub calls a method by its path:
  ``client.makeUnaryRequest('/acme.orders.v1.Orders/GetOrder', ...)`` (and the stream variants) is a
  CALL of that method, whatever the receiver.

Servers are ``addService``/``addProtoService`` registrations whose service argument reads
``X.Svc.service`` or ``[X.]SvcService``, and TypeScript classes implementing a generated
``ISvcServer``/``SvcServer`` interface. Handlers are the keys of the implementation object, or the
public methods of the implementing class; a handler is reported once per service, method and line,
at the function's definition when the file has it (a function, a method of an object literal or a
class). A handler imported from another module is reported on its property, and
:func:`imported_handlers` tells the resolver where to find it. ``new ReflectionService(def)
.addToServer(server)`` (``@grpc/reflection``), grpc-health-check's ``HealthImplementation`` and its
``health.service`` are SERVERs of the runtime's standard ``ServerReflection`` and ``Health``.
Facts are in source order: by the position of what each one is about (a handler: its definition).

Each definition carries its signature (as written up to its body, decorators left out; a function
held by a variable, field or property up to the function's body) and the first line of the comment
block above it (above ``export`` and decorators too). References (calls, ``new`` and JSX elements,
types, values read) come from ``queries/<grammar>/references.scm`` through :mod:`._navigation`, TSX
sharing TypeScript's patterns; a tree too broken to query whole has none.

HTTP routes, HTTP calls, messaging facts, link constants and client settings come from
:mod:`._ecmascript_links`, which reads the same tree and the bindings of :meth:`_Extraction.scan`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final

import attrs
import tree_sitter

from .._facts import SIGNATURE_CHARS_MAX, Definition, FileFacts, GrpcFact, GrpcRole, Import, Reference
from . import _navigation, _ts
from ._common import too_broken
from ._tree import Ranges, error_count, first_error_line, safe_captures

__all__ = ["Ranges", "error_count", "extract", "first_error_line", "generated_module", "safe_captures"]

#: Definitions and imports: ``queries/javascript/outline.scm``, with ``queries/typescript/outline.scm``
#: added for the TypeScript grammars.
_OUTLINE: Final = _navigation.query_text("javascript", "outline")
_TS_OUTLINE: Final = _navigation.query_text("typescript", "outline")

_GRPC_PATTERNS: Final = """
[(function_declaration) (generator_function_declaration) (function_expression) (generator_function)
 (arrow_function) (method_definition)] @function
[(class_declaration) (class)] @class
(variable_declarator) @declarator
(assignment_expression) @assignment
(new_expression) @new
(call_expression function: (member_expression)) @member_call
(call_expression arguments: (arguments . (member_expression) @argument_member))
"""

_JS_GRPC_PATTERNS: Final = """
(field_definition) @field
"""

_TS_GRPC_PATTERNS: Final = """
(abstract_class_declaration) @class
(public_field_definition) @field
(class_heritage (implements_clause) @implements)
"""

#: capture name -> definition kind
_DEF_KINDS: Final = {
    "function": "function",
    "signature": "function",
    "class": "class",
    "class_expr": "class",
    "var_function": "function",
    "var_class": "class",
    "interface": "interface",
    "type": "type",
    "enum": "enum",
    "module": "module",
}
_FIELDS: Final = frozenset({"field_definition", "public_field_definition"})
#: Values that make a module-level ``const`` a constant whatever its name (and an object property one).
_LITERALS: Final = frozenset(
    {"number", "string", "template_string", "true", "false", "null", "regex", "unary_expression", "array"}
)
#: A name written in capitals (``MAX_ITEMS``, ``API_V2``): a constant by convention.
_CAPITALS: Final = re.compile(r"[A-Z][A-Z0-9_]+")
_FUNCTION_TYPES: Final = frozenset({"arrow_function", "function_expression", "generator_function"})
_WRAPPERS: Final = frozenset(
    {"parenthesized_expression", "await_expression", "as_expression", "satisfies_expression", "non_null_expression"}
)
#: methods every ``grpc.Client`` has: calling them is not an RPC
_CLIENT_BASE_METHODS: Final = frozenset(
    {
        "close",
        "getChannel",
        "waitForReady",
        "makeUnaryRequest",
        "makeClientStreamRequest",
        "makeServerStreamRequest",
        "makeBidiStreamRequest",
        "constructor",
    }
)
#: Bytes without any of these (nor an import of generated code) cannot hold grpc-js evidence.
_GRPC_HINTS: Final = (
    b"addService", b"addProtoService", b"loadPackageDefinition", b"ClientConstructor", b"Request(", b"addToServer",
    b"redentials",
)  # fmt: skip
#: ``grpc.Client`` methods that call a method named by its path (``'/acme.orders.v1.Orders/Get'``)
_DYNAMIC_CALLS: Final = frozenset(
    {"makeUnaryRequest", "makeClientStreamRequest", "makeServerStreamRequest", "makeBidiStreamRequest"}
)
_METHOD_PATH: Final = re.compile(r"/?(?:([A-Za-z_][\w.]*)\.)?([A-Za-z_]\w*)/([A-Za-z_]\w*)")
#: Classes built with credentials that are no generated client.
_NOT_CLIENTS: Final = frozenset({"Client", "Server", "Channel", "Metadata", "Error", "URL", "Map", "Set", "Promise"})
#: grpc-js's client constructor factories: ``makeClientConstructor(methods, 'Orders')``
_CONSTRUCTOR_FACTORIES: Final = frozenset({"makeClientConstructor", "makeGenericClientConstructor"})
#: The runtime's standard services as their npm packages serve them: module -> class -> (service, namespace)
_STANDARD_CLASSES: Final = {
    "@grpc/reflection": {"ReflectionService": ("ServerReflection", "grpc.reflection.v1alpha")},
    "grpc-health-check": {"HealthImplementation": ("Health", "grpc.health.v1")},
}
_GENERATED_SEGMENTS: Final = frozenset({"generated", "__generated__", "gen", "proto", "protos", "pb", "grpc", "stubs"})
_GENERATED_STEM: Final = re.compile(r"(?:_pb|_grpc_pb|_grpc|-grpc|\.grpc)$")
_SOURCE_SUFFIX: Final = re.compile(r"(?:\.d)?\.[cm]?[jt]sx?$")
_JSX_HINT: Final = re.compile(rb"<[A-Za-z]")
_DEPTH_MAX: Final = 24
#: how deep objects nested in a named object are read for definitions (``api.orders.v1.get``)
_OBJECT_DEPTH_MAX: Final = 8
#: the module objects of CommonJS: assigning to them names nothing (``exports.f`` defines ``f``)
_EXPORT_CHAINS: Final = (("module", "exports"), ("exports",))

#: A definition found by the query, before its container is known: (start byte, minus end byte,
#: kind, node, name, the names between its enclosing definition and itself ("" for none), whether
#: it is a member function of a class)
_Found = tuple[int, int, str, tree_sitter.Node, str, str, bool]

_queries: dict[tuple[str, str], tree_sitter.Query] = {}


def _query(grammar: str, part: str) -> tree_sitter.Query:
    key = (grammar, part)
    query = _queries.get(key)
    if query is None:
        typescript = grammar != "javascript"
        if part == "definitions":
            patterns = _OUTLINE + (_TS_OUTLINE if typescript else "")
        else:
            patterns = _GRPC_PATTERNS + (_TS_GRPC_PATTERNS if typescript else _JS_GRPC_PATTERNS)
        query = _queries[key] = tree_sitter.Query(_ts.language(grammar), patterns)
    return query


def extract(grammar: str, source: bytes, path: str = "") -> FileFacts:
    """Every fact of a JavaScript (``grammar`` "javascript") or TypeScript ("typescript") file at
    workspace path ``path`` (which gives a Next.js route its path).

    For TypeScript the source is parsed as plain TypeScript first; when that fails and the bytes
    look like JSX, it is parsed again as TSX and the tree with fewer errors wins.
    """
    language = "javascript" if grammar == "javascript" else "typescript"
    return _extraction(grammar, source).facts(language, path)


def _extraction(grammar: str, source: bytes) -> _Extraction:
    tree = _ts.parse(grammar, source)
    if grammar == "typescript" and tree.root_node.has_error and _JSX_HINT.search(source):
        tsx = _ts.parse("tsx", source)
        if error_count(tsx.root_node) < error_count(tree.root_node):
            tree, grammar = tsx, "tsx"
    return _Extraction(source, grammar, tree.root_node)


@attrs.frozen
class ImportedHandler:
    """A handler registered with ``addService`` whose function another file defines."""

    #: The line of the HANDLER fact this file holds (the property naming it), or of the SERVER
    #: fact when the whole implementation is imported (``method`` is then "").
    line: int
    service: str
    namespace: str
    #: The RPC as the implementation object spells it ("" for a whole implementation).
    method: str
    #: The import as written, and the name it brings (``default``, or ``*`` for the module itself).
    module: str
    name: str


def imported_handlers(grammar: str, source: bytes) -> tuple[ImportedHandler, ...]:
    """The handlers of ``addService`` registrations that the file imports, to be found where they
    are defined (``{ reserve }`` after ``const { reserve } = require('./handlers')``,
    ``addService(svc, handlers)``, ``addService(svc, new InventoryService())``)."""
    extraction = _extraction(grammar, source)
    extraction.facts("javascript" if grammar == "javascript" else "typescript")
    return tuple(extraction.imported)


# -- tree helpers (grammar-independent) ------------------------------------------------------------


def _string_value(node: tree_sitter.Node | None, source: bytes) -> str | None:
    if node is None or node.type not in ("string", "template_string"):
        return None
    if node.type == "template_string" and any(c.type == "template_substitution" for c in node.named_children):
        return None
    return _ts.text(node, source)[1:-1]


def _key_text(node: tree_sitter.Node | None, source: bytes) -> str:
    if node is None:
        return ""
    if node.type == "string":
        return _ts.text(node, source)[1:-1]
    if node.type in ("property_identifier", "identifier", "shorthand_property_identifier", "type_identifier"):
        return _ts.text(node, source)
    return ""


def _pattern_keys(pattern: tree_sitter.Node, source: bytes) -> list[tuple[str, str]]:
    """(key, local name) of each property an object pattern destructures."""
    keys = []
    for child in pattern.named_children:
        if child.type == "shorthand_property_identifier_pattern":
            name = _ts.text(child, source)
            keys.append((name, name))
        elif child.type == "pair_pattern":
            value = child.child_by_field_name("value")
            if value is not None and value.type == "assignment_pattern":
                value = value.child_by_field_name("left")
            local = _ts.text(value, source) if value is not None and value.type == "identifier" else ""
            keys.append((_key_text(child.child_by_field_name("key"), source), local))
        elif child.type == "object_assignment_pattern":
            name = _ts.text(child.child_by_field_name("left"), source)
            keys.append((name, name))
    return keys


def _named(node: tree_sitter.Node | None, index: int) -> tree_sitter.Node | None:
    """The ``index``-th named child of ``node``, None when there is none."""
    if node is None or not 0 <= index < node.named_child_count:
        return None
    return node.named_child(index)


def _unwrap(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    for _ in range(_DEPTH_MAX):
        if node is None:
            return None
        if node.type in _WRAPPERS:
            node = _named(node, 0)
        elif node.type == "type_assertion":
            node = _named(node, node.named_child_count - 1)
        else:
            return node
    return node


def _frozen(node: tree_sitter.Node | None, source: bytes) -> tree_sitter.Node | None:
    """``node`` unwrapped (parentheses, ``as const``...), and for ``Object.freeze(x)`` ``x`` unwrapped."""
    node = _unwrap(node)
    if node is not None and node.type == "call_expression":
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is not None and arguments is not None and arguments.named_child_count == 1:
            if _ts.text(function, source).replace(" ", "") == "Object.freeze":
                return _unwrap(arguments.named_child(0))
    return node


def _spelled(module: str) -> str:
    """An import path as the resolver spells a module it qualifies (``./lib/pricing.js`` ->
    ``lib.pricing.js``)."""
    return module.replace("\\", "/").replace("/", ".").strip(".")


def _this_member(node: tree_sitter.Node) -> bool:
    if node.type != "member_expression":
        return False
    obj = node.child_by_field_name("object")
    return obj is not None and obj.type == "this"


def generated_module(module: str) -> bool:
    """Whether an import path looks like grpc-generated code (see the module docstring)."""
    if module.startswith("@grpc/") or module in ("grpc", "google-protobuf"):
        return False
    segments = module.split("/")
    if _GENERATED_STEM.search(_SOURCE_SUFFIX.sub("", segments[-1])):
        return True
    return any(segment.lower() in _GENERATED_SEGMENTS for segment in segments)


def _strip_suffix(name: str, suffix: str) -> str:
    """``name`` without ``suffix`` ("" when it does not end so, or is nothing but the suffix)."""
    return name[: -len(suffix)] if name.endswith(suffix) and len(name) > len(suffix) else ""


#: The fields holding the value of a definition that is a variable, a field, a property or an assignment.
_VALUE_FIELDS: Final = ("value", "right")
_SPACES: Final = re.compile(r"\s+")
_TRAILER: Final = re.compile(r"\s*(?:\{|=>|=)\s*$")
_OPENING: Final = re.compile(r"([(\[]) ")
_CLOSING: Final = re.compile(r"(?:,? )([)\]])")


def _signature(anchor: tree_sitter.Node, node: tree_sitter.Node, source: bytes) -> str:
    """The declaration ``node`` as written up to its body, decorators left out, on one line, bounded.

    A function or class held by a variable, a field, a property or a member assignment ends where the
    value's body starts; one held by a variable starts at its declaration (``anchor``: ``const handle =
    async (req: Request)``). A declaration without a body (a type alias, an overload) ends with itself.
    """
    value = None
    for field in _VALUE_FIELDS:
        value = _unwrap(node.child_by_field_name(field))
        if value is not None:
            break
    body = value.child_by_field_name("body") if value is not None else None
    if body is None:
        anchor, body = node, node.child_by_field_name("body")
        if body is None:
            return _tidy(_navigation.signature(node, source))
    start = _undecorated_start(anchor)
    text = source[start : min(body.start_byte, start + 4 * SIGNATURE_CHARS_MAX)].decode("utf-8", "replace")
    text = _TRAILER.sub("", _tidy(_SPACES.sub(" ", text).strip()))
    return text if len(text) <= SIGNATURE_CHARS_MAX else text[: SIGNATURE_CHARS_MAX - 1].rstrip() + "…"


def _tidy(text: str) -> str:
    """A parameter list written one parameter a line, read on one line: ``f(a, b)``, not ``f( a, b, )``."""
    return _CLOSING.sub(r"\1", _OPENING.sub(r"\1", text))


def _undecorated_start(node: tree_sitter.Node) -> int:
    """Where ``node`` starts once the decorators and comments that open it are left out."""
    for child in node.children:
        if child.type not in ("decorator", "comment"):
            return child.start_byte
    return node.start_byte


@attrs.frozen
class _Binding:
    """What one name is bound to: a value, a declared type, or an import."""

    value: tree_sitter.Node | None = None
    type: tree_sitter.Node | None = None
    #: the module of an import binding (None for anything else)
    module: str | None = None
    #: the imported or destructured property name ("" for a plain binding)
    key: str = ""


@attrs.frozen
class _Origin:
    #: "pkgdef" for a ``loadPackageDefinition`` result, else "module"
    kind: str
    module: str = ""


_PKGDEF: Final = _Origin("pkgdef")
_NO_RANGES: Final = Ranges(())


@attrs.define
class _Extraction:
    """The state of one file's extraction (private to one call of :func:`extract`)."""

    source: bytes
    grammar: str
    root: tree_sitter.Node
    definitions: list[Definition] = attrs.field(factory=list)
    #: the definition nodes, in the order of ``definitions`` (both sorted by start, outer first)
    def_ranges: Ranges = _NO_RANGES
    #: the dotted name of each definition (container and name)
    paths: list[str] = attrs.field(factory=list)
    #: class node id -> dotted path (a class bound to a variable has the variable's path)
    class_paths: dict[int, str] = attrs.field(factory=dict)
    #: dotted class path -> (method name, line, start byte, method node) of each member function
    methods: dict[str, list[tuple[str, int, int, tree_sitter.Node]]] = attrs.field(factory=dict)
    public_methods: dict[str, list[tuple[str, int, int]]] = attrs.field(factory=dict)
    import_nodes: list[tree_sitter.Node] = attrs.field(factory=list)
    #: the ``require("x")`` and ``import("x")`` calls
    require_nodes: list[tree_sitter.Node] = attrs.field(factory=list)
    imports: list[Import] = attrs.field(factory=list)
    scopes: Ranges = _NO_RANGES
    classes: Ranges = _NO_RANGES
    #: scope index (-1: the program) -> name -> bindings
    bindings: dict[int, dict[str, list[_Binding]]] = attrs.field(factory=dict)
    #: class index -> field name -> bindings
    fields: dict[int, dict[str, list[_Binding]]] = attrs.field(factory=dict)
    #: name -> its bindings in every scope
    by_name: dict[str, list[_Binding]] = attrs.field(factory=dict)
    origins: dict[int, _Origin | None] = attrs.field(factory=dict)
    clients: dict[int, tuple[str, str] | None] = attrs.field(factory=dict)
    client_names: dict[str, bool] = attrs.field(factory=dict)
    grpc: list[tuple[int, int, GrpcFact]] = attrs.field(factory=list)
    handler_keys: set[tuple[str, str, int]] = attrs.field(factory=set)
    #: position of an implementation's property -> (module, name) of the function it imports
    imported_values: dict[int, tuple[str, str]] = attrs.field(factory=dict)
    imported: list[ImportedHandler] = attrs.field(factory=list)
    #: the captures of the bindings query, once :meth:`scan` has run
    scanned: dict[str, list[tree_sitter.Node]] | None = None

    def facts(self, language: str, path: str = "") -> FileFacts:
        from ._ecmascript_links import links  # noqa: PLC0415 - it reads this module's helpers

        self._definitions_and_imports()
        if any(hint in self.source for hint in _GRPC_HINTS) or any(generated_module(i.module) for i in self.imports):
            self._grpc()
            self.grpc.sort(key=lambda item: (item[0], item[1]))
        found = links(self, path)
        error = f"syntax error at line {first_error_line(self.root)}" if self.root.has_error else ""
        # A tree too broken to query whole (see _common.too_broken) keeps its other facts, without references.
        references = () if too_broken(self.root) else self._references()
        return FileFacts(
            language=language,
            definitions=tuple(self.definitions),
            imports=tuple(self.imports),
            grpc=tuple(fact for _, _, fact in self.grpc),
            http_routes=found.routes,
            http_calls=found.calls,
            messages=found.messages,
            settings=found.settings,
            constants=found.constants,
            references=references,
            error=error,
        )

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.source)

    def _references(self) -> tuple[Reference, ...]:
        """The file's references; a bare lower-case name passed as a value counts when it names a
        top-level definition of the file or a name it imports (else it is most likely a variable)."""
        known = {definition.name for definition in self.definitions if not definition.container}
        known.update(name for imported in self.imports for name in imported.names)
        aliases = self._aliases()
        known.update(aliases)
        return _navigation.references(self.grammar, self.root, self.source, frozenset(known), aliases)

    def _aliases(self) -> dict[str, str]:
        """``local -> imported`` of the file's imports under another name: ``import { shipping as
        shipCost }`` and ``const { shipping: shipCost } = require(...)`` (``shipCost -> shipping``);
        ``import * as pricing from "./pricing.js"``, ``import pricing = require(...)`` and ``const
        pricing = require(...)`` (``pricing -> pricing.js``: the module as the resolver spells it, with
        ``.`` for ``/``)."""
        aliases: dict[str, str] = {}
        for node in self.import_nodes:
            module = _string_value(node.child_by_field_name("source"), self.source)
            for child in node.named_children:
                if child.type == "import_require_clause":
                    required = _string_value(child.child_by_field_name("source"), self.source)
                    local = _named(child, 0)
                    if required is not None and local is not None and local.type == "identifier":
                        aliases[self.text(local)] = _spelled(required)
                if child.type != "import_clause" or module is None:
                    continue
                for part in child.named_children:
                    if part.type == "namespace_import":
                        local = _named(part, 0)
                        if local is not None:
                            aliases[self.text(local)] = _spelled(module)
                    elif part.type == "named_imports":
                        for spec in part.named_children:
                            alias = spec.child_by_field_name("alias")
                            key = _key_text(spec.child_by_field_name("name"), self.source)
                            if spec.type == "import_specifier" and alias is not None and key and key != "default":
                                aliases[self.text(alias)] = key
        for node in self.require_nodes:
            holder = node.parent
            if holder is not None and holder.type == "await_expression":
                holder = holder.parent
            if holder is None or holder.type != "variable_declarator":
                continue
            module = _string_value(_named(node.child_by_field_name("arguments"), 0), self.source)
            pattern = holder.child_by_field_name("name")
            if module is None or pattern is None:
                continue
            if pattern.type == "identifier":
                aliases[self.text(pattern)] = _spelled(module)
            elif pattern.type == "object_pattern":
                for key, local in _pattern_keys(pattern, self.source):
                    if key and local and key != local:
                        aliases[local] = key
        return aliases

    # -- definitions and imports -------------------------------------------------------------

    def _definitions_and_imports(self) -> None:
        captures = safe_captures(_query(self.grammar, "definitions"), self.root)
        bound_classes = {node.id for node in captures.get("class_value", ())}
        found: list[_Found] = []
        for capture, nodes in captures.items():
            if capture in _DEF_KINDS:
                for node in nodes:
                    if capture == "class_expr" and node.id in bound_classes:
                        continue
                    name = self.text(node.child_by_field_name("name"))
                    found.append((node.start_byte, -node.end_byte, _DEF_KINDS[capture], node, name, "", False))
        for body in captures.get("class_body", ()):
            found.extend(self._members(body))
        for body in captures.get("enum_body", ()):
            found.extend(self._enum_members(body))
        for body in captures.get("interface_body", ()):
            found.extend(self._interface_members(body))
        constant_objects: set[int] = set()
        for node in captures.get("module_const", ()):
            found.extend(self._module_constants(node, constant_objects))
        for node in captures.get("var_object", ()):
            if node.id in constant_objects:
                continue
            name = self.text(node.child_by_field_name("name"))
            found.extend(self._object_members(node.child_by_field_name("value"), name, 0))
        for node in captures.get("assign_member", ()):
            found.extend(self._assigned(node))
        found.sort(key=lambda item: (item[0], item[1]))
        stack: list[tuple[int, str]] = []
        nodes: list[tree_sitter.Node] = []
        for start, _, kind, node, name, prefix, member in found:
            if node.type in ("function_signature", "method_signature") and self._overloaded(node, name):
                continue
            while stack and stack[-1][0] <= start:
                stack.pop()
            container = stack[-1][1] if stack else ""
            if prefix:
                container = f"{container}.{prefix}" if container else prefix
            path = f"{container}.{name}" if container else name
            stack.append((node.end_byte, path))
            signature, doc = self._details(node)
            self.definitions.append(
                Definition(name, kind, container, _ts.line(node), _ts.end_line(node), signature, doc)
            )
            self.paths.append(path)
            nodes.append(node)
            if kind == "class":
                value = node.child_by_field_name("value") if node.type == "variable_declarator" else node
                if value is not None:
                    self.class_paths[value.id] = path
            elif member:
                self.methods.setdefault(container, []).append((name, _ts.line(node), node.start_byte, node))
        self.def_ranges = Ranges(nodes)
        imports: list[tuple[int, Import]] = []
        for node in captures.get("import", ()):
            self.import_nodes.append(node)
            imports.append((node.start_byte, self._import_statement(node)))
        for node in captures.get("export", ()):
            imports.append((node.start_byte, self._export_statement(node)))
        for node in captures.get("require", ()):
            self.require_nodes.append(node)
            imports.append((node.start_byte, self._require(node)))
        imports.sort(key=lambda item: item[0])
        self.imports = [imported for _, imported in imports if imported is not None]

    def _details(self, node: tree_sitter.Node) -> tuple[str, str]:
        """(signature, doc line) of a definition node (see :func:`_signature`); the doc comment of a
        declared variable sits above its declaration (``/** ... */ export const f = () => {}``)."""
        anchor = node
        parent = node.parent
        if node.type == "variable_declarator" and parent is not None and parent.named_children[0].id == node.id:
            anchor = parent
        return _signature(anchor, node, self.source), _navigation.doc_line(self.grammar, anchor, self.source)

    def _members(self, body: tree_sitter.Node) -> Iterator[_Found]:
        """The member functions of a class body: methods, abstract methods, fields holding functions;
        and the functions of an object a field holds (``handlers = { onClose() {} }``)."""
        for member in body.named_children:
            kind = member.type
            name = None
            if kind in ("method_definition", "abstract_method_signature", "method_signature"):
                name = member.child_by_field_name("name")
            elif kind in _FIELDS:
                field = member.child_by_field_name("property") or member.child_by_field_name("name")
                value = member.child_by_field_name("value")
                if value is not None and value.type in _FUNCTION_TYPES:
                    name = field
                elif field is not None and self._class_constant(member, field):
                    yield member.start_byte, -member.end_byte, "constant", member, self.text(field), "", False
                    yield from self._object_members(_frozen(value, self.source), "", 0, constants=True)
                elif field is not None:
                    yield from self._object_members(value, self.text(field), 0)
            if name is not None:
                yield member.start_byte, -member.end_byte, "method", member, self.text(name), "", True

    def _class_constant(self, member: tree_sitter.Node, field: tree_sitter.Node) -> bool:
        """Whether a class field is a constant: ``static readonly`` (TypeScript), or static and named
        in capitals (``static MAX_SIZE = 10``: JavaScript has no ``readonly``)."""
        modifiers = {child.type for child in member.children if not child.is_named}
        if "static" not in modifiers or field.type != "property_identifier":
            return False
        return "readonly" in modifiers or bool(_CAPITALS.fullmatch(self.text(field)))

    def _enum_members(self, body: tree_sitter.Node) -> Iterator[_Found]:
        """The members of an enum: constants of the enum (``Paid``, ``Paid = "paid"``)."""
        for member in body.named_children:
            name = member if member.type == "property_identifier" else None
            if member.type == "enum_assignment":
                name = member.child_by_field_name("name")
            if name is not None and name.type == "property_identifier":
                yield member.start_byte, -member.end_byte, "constant", member, self.text(name), "", False

    def _interface_members(self, body: tree_sitter.Node) -> Iterator[_Found]:
        """The method signatures of an interface: methods of the interface (what an agent looks up to
        learn what its implementations and callers share)."""
        for member in body.named_children:
            if member.type == "method_signature":
                name = member.child_by_field_name("name")
                if name is not None and name.type == "property_identifier":
                    yield member.start_byte, -member.end_byte, "method", member, self.text(name), "", False

    def _module_constants(self, declaration: tree_sitter.Node, objects: set[int]) -> Iterator[_Found]:
        """The constants of a module-level ``const``: a literal value (``TAX_RATE = 0.2``, ``"x"``,
        ``[1, 2]``), any value under a name in capitals (``API_URL = process.env.API ?? "/"``), or any
        value exported (``export const toaster = createToaster()``: the module's API); an
        object (plain, frozen with ``Object.freeze``, or ``as const``) under a capitalised name is an
        enum-like constant whose literal properties are its constants (``Status.PAID``). Functions and
        classes held by a const are functions and classes, not constants. ``objects`` gains each
        declarator read here as an object (its methods are read here, not as a plain object's)."""
        kind = declaration.child_by_field_name("kind")
        if kind is None or kind.type != "const":
            return
        exported = declaration.parent is not None and declaration.parent.type == "export_statement"
        for declarator in declaration.named_children:
            if declarator.type != "variable_declarator":
                continue
            name_node = declarator.child_by_field_name("name")
            value = _frozen(declarator.child_by_field_name("value"), self.source)
            if name_node is None or name_node.type != "identifier" or value is None:
                continue
            name = self.text(name_node)
            if value.type in _FUNCTION_TYPES or value.type == "class" or self._require_call(value):
                continue  # a function, a class, a module: not constants
            if value.type == "object":
                if not name[:1].isupper():
                    continue  # a lower-case object: the container of its functions (``api.get``)
                objects.add(declarator.id)
                yield declarator.start_byte, -declarator.end_byte, "constant", declarator, name, "", False
                yield from self._object_members(value, "", 0, constants=True)
            elif value.type in _LITERALS or _CAPITALS.fullmatch(name) or exported:
                yield declarator.start_byte, -declarator.end_byte, "constant", declarator, name, "", False

    def _require_call(self, node: tree_sitter.Node) -> bool:
        function = node.child_by_field_name("function") if node.type == "call_expression" else None
        return function is not None and function.type in ("identifier", "import") and self.text(function) in ("require", "import")

    def _object_members(
        self, value: tree_sitter.Node | None, prefix: str, depth: int, *, constants: bool = False
    ) -> Iterator[_Found]:
        """The functions an object literal holds as methods or property values, and those of the
        objects it nests, each named under ``prefix`` (the object's name; "" for the module's exports).

        ``constants``: the object is a constant one (its definition encloses it: ``prefix`` is ""), its
        functions are methods and its literal properties constants."""
        obj = _unwrap(value)
        if obj is None or obj.type != "object" or depth > _OBJECT_DEPTH_MAX:
            return
        kind = "method" if prefix or constants else "function"
        for member in obj.named_children:
            if member.type == "method_definition":
                name = _key_text(member.child_by_field_name("name"), self.source)
                if name:
                    yield member.start_byte, -member.end_byte, kind, member, name, prefix, False
            elif member.type == "pair":
                name = _key_text(member.child_by_field_name("key"), self.source)
                inner = _unwrap(member.child_by_field_name("value"))
                if not name or inner is None:
                    continue
                if inner.type in _FUNCTION_TYPES:
                    yield member.start_byte, -member.end_byte, kind, member, name, prefix, False
                elif constants and inner.type in _LITERALS and inner.type not in ("array", "object"):
                    yield member.start_byte, -member.end_byte, "constant", member, name, prefix, False
                elif inner.type == "object":
                    nested = f"{prefix}.{name}" if prefix else name
                    yield from self._object_members(inner, nested, depth + 1, constants=constants)

    def _assigned(self, node: tree_sitter.Node) -> Iterator[_Found]:
        """The definitions of an assignment to a member chain (see the module docstring)."""
        chain = self._member_chain(node.child_by_field_name("left"))
        value = _unwrap(node.child_by_field_name("right"))
        if not chain or value is None:
            return
        for exported in _EXPORT_CHAINS:
            if tuple(chain[: len(exported)]) == exported:
                chain = chain[len(exported) :]
                break
        else:
            statement = node.parent
            if statement is None or statement.type != "expression_statement" or statement.parent is None:
                return
            if statement.parent.type != "program":
                return
        chain = [part for part in chain if part != "prototype"]
        if value.type in _FUNCTION_TYPES and chain:
            prefix = ".".join(chain[:-1])
            yield node.start_byte, -node.end_byte, "method" if prefix else "function", node, chain[-1], prefix, False
        elif value.type == "object":
            yield from self._object_members(value, ".".join(chain), 0)

    def _member_chain(self, node: tree_sitter.Node | None) -> list[str]:
        """``["Foo", "prototype", "bar"]`` for ``Foo.prototype.bar``; [] unless every part is a plain name."""
        parts: list[str] = []
        for _ in range(_DEPTH_MAX):
            if node is None:
                return []
            if node.type == "identifier":
                parts.append(self.text(node))
                return parts[::-1]
            if node.type != "member_expression":
                return []
            prop = node.child_by_field_name("property")
            if prop is None or prop.type != "property_identifier":
                return []
            parts.append(self.text(prop))
            node = node.child_by_field_name("object")
        return []

    def _overloaded(self, node: tree_sitter.Node, name: str) -> bool:
        """Whether a signature is an overload followed by more of the same name (only the last counts)."""
        parent = node.parent
        outer = parent if parent is not None and parent.type == "export_statement" else node
        sibling = outer.next_named_sibling
        while sibling is not None and sibling.type in ("comment", "decorator"):
            sibling = sibling.next_named_sibling
        if sibling is not None and sibling.type == "export_statement":
            sibling = sibling.child_by_field_name("declaration")
        if sibling is None or sibling.type not in (
            "function_declaration",
            "function_signature",
            "method_definition",
            "method_signature",
        ):
            return False
        return self.text(sibling.child_by_field_name("name")) == name

    def _import_statement(self, node: tree_sitter.Node) -> Import | None:
        source_node = node.child_by_field_name("source")
        names: list[str] = []
        for child in node.named_children:
            if child.type == "import_clause":
                for part in child.named_children:
                    if part.type == "named_imports":
                        names.extend(
                            _key_text(spec.child_by_field_name("name"), self.source)
                            for spec in part.named_children
                            if spec.type == "import_specifier"
                        )
            elif child.type == "import_require_clause":
                source_node = child.child_by_field_name("source")
        module = _string_value(source_node, self.source)
        return None if module is None else Import(module, _ts.line(node), tuple(names))

    def _export_statement(self, node: tree_sitter.Node) -> Import | None:
        module = _string_value(node.child_by_field_name("source"), self.source)
        if module is None:
            return None
        names: list[str] = []
        for child in node.named_children:
            if child.type == "export_clause":
                names.extend(
                    _key_text(spec.child_by_field_name("name"), self.source)
                    for spec in child.named_children
                    if spec.type == "export_specifier"
                )
        return Import(module, _ts.line(node), tuple(names))

    def _require(self, node: tree_sitter.Node) -> Import | None:
        arguments = node.child_by_field_name("arguments")
        module = _string_value(_named(arguments, 0), self.source)
        if module is None:
            return None
        names: tuple[str, ...] = ()
        holder = node.parent
        if holder is not None and holder.type == "await_expression":
            holder = holder.parent
        if holder is not None and holder.type == "variable_declarator":
            pattern = holder.child_by_field_name("name")
            if pattern is not None and pattern.type == "object_pattern":
                names = tuple(key for key, _ in _pattern_keys(pattern, self.source) if key)
        return Import(module, _ts.line(node), names)

    # -- gRPC: bindings ---------------------------------------------------------------------

    def scan(self) -> dict[str, list[tree_sitter.Node]]:
        """The captures of the bindings query; scopes, classes and bindings are built on the first call."""
        if self.scanned is None:
            captures = self.scanned = safe_captures(_query(self.grammar, "grpc"), self.root)
            self.scopes = Ranges(captures.get("function", ()))
            self.classes = Ranges(captures.get("class", ()))
            self._bind(captures)
        return self.scanned

    def _grpc(self) -> None:
        captures = self.scan()
        for node in captures.get("implements", ()):
            self._implementation(node)
        for node in captures.get("member_call", ()):
            function = node.child_by_field_name("function")
            prop = self.text(function.child_by_field_name("property"))
            if prop in ("addService", "addProtoService"):
                self._registration(node, function)
            elif prop in _DYNAMIC_CALLS:
                self._dynamic_call(node)
            elif prop == "addToServer":
                self._standard_registration(function)
        for node in captures.get("new", ()):
            client = self._client(node, 0)
            if client is not None:
                self._fact(node.start_byte, GrpcRole.CLIENT, client[0], "", _ts.line(node), client[1])
        seen: set[int] = set()
        for node in captures.get("member_call", ()):
            target = node.child_by_field_name("function")
            if self.text(target.child_by_field_name("property")) in ("bind", "call", "apply"):
                inner = _unwrap(target.child_by_field_name("object"))
                if inner is not None and inner.type == "member_expression":
                    target = inner
            self._call(target, seen)
        for node in captures.get("argument_member", ()):
            self._call(node, seen)

    def _add(self, scope: int, name: str, binding: _Binding) -> None:
        if name:
            self.bindings.setdefault(scope, {}).setdefault(name, []).append(binding)
            self.by_name.setdefault(name, []).append(binding)

    def _add_field(self, klass: int, name: str, binding: _Binding) -> None:
        if klass >= 0 and name:
            self.fields.setdefault(klass, {}).setdefault(name, []).append(binding)

    def _bind(self, captures: dict[str, list[tree_sitter.Node]]) -> None:
        for node in self.import_nodes:
            self._bind_import(node)
        for node in captures.get("declarator", ()):
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            if name is None:
                continue
            scope = self.scopes.around(node)
            if name.type == "identifier":
                self._add(scope, self.text(name), _Binding(value, node.child_by_field_name("type")))
            elif name.type == "object_pattern":
                for key, local in _pattern_keys(name, self.source):
                    self._add(scope, local, _Binding(value, key=key))
        for index, function in enumerate(self.scopes.nodes):
            self._bind_parameters(index, function)
        for node in captures.get("field", ()):
            name = node.child_by_field_name("property") or node.child_by_field_name("name")
            binding = _Binding(node.child_by_field_name("value"), node.child_by_field_name("type"))
            self._add_field(self.classes.around(node), self.text(name), binding)
        for node in captures.get("assignment", ()):
            self._bind_assignment(node)

    def _bind_import(self, node: tree_sitter.Node) -> None:
        source_node = node.child_by_field_name("source")
        for child in node.named_children:
            if child.type == "import_require_clause":
                module = _string_value(child.child_by_field_name("source"), self.source)
                name = _named(child, 0)
                if module is not None and name is not None:
                    self._add(-1, self.text(name), _Binding(module=module, key="*"))
            elif child.type == "import_clause":
                module = _string_value(source_node, self.source)
                if module is None:
                    continue
                for part in child.named_children:
                    if part.type == "identifier":
                        self._add(-1, self.text(part), _Binding(module=module, key="default"))
                    elif part.type == "namespace_import":
                        self._add(-1, self.text(_named(part, 0)), _Binding(module=module, key="*"))
                    elif part.type == "named_imports":
                        for spec in part.named_children:
                            if spec.type == "import_specifier":
                                key = _key_text(spec.child_by_field_name("name"), self.source)
                                alias = spec.child_by_field_name("alias")
                                local = self.text(alias) if alias is not None else key
                                self._add(-1, local, _Binding(module=module, key=key))

    def _bind_parameters(self, scope: int, function: tree_sitter.Node) -> None:
        single = function.child_by_field_name("parameter")
        if single is not None:
            self._add(scope, self.text(single), _Binding())
            return
        parameters = function.child_by_field_name("parameters")
        if parameters is None:
            return
        klass = -2
        for parameter in parameters.named_children:
            kind = parameter.type
            if kind == "identifier":
                self._add(scope, self.text(parameter), _Binding())
            elif kind == "assignment_pattern":
                left = parameter.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    self._add(scope, self.text(left), _Binding(parameter.child_by_field_name("right")))
            elif kind == "rest_pattern":
                inner = _named(parameter, 0)
                if inner is not None and inner.type == "identifier":
                    self._add(scope, self.text(inner), _Binding())
            elif kind in ("required_parameter", "optional_parameter"):
                pattern = parameter.child_by_field_name("pattern")
                if pattern is None or pattern.type != "identifier":
                    continue
                name = self.text(pattern)
                binding = _Binding(parameter.child_by_field_name("value"), parameter.child_by_field_name("type"))
                self._add(scope, name, binding)
                if any(
                    c.type in ("accessibility_modifier", "readonly", "override_modifier") for c in parameter.children
                ):
                    if klass == -2:
                        klass = self.classes.around(function)
                    self._add_field(klass, name, binding)

    def _bind_assignment(self, node: tree_sitter.Node) -> None:
        left = _unwrap(node.child_by_field_name("left"))
        right = node.child_by_field_name("right")
        if left is None:
            return
        if left.type == "identifier":
            name = self.text(left)
            declared = -1
            for scope in self.scopes.chain(self.scopes.innermost(node.start_byte, node.end_byte)):
                if name in self.bindings.get(scope, {}):
                    declared = scope
                    break
            self._add(declared, name, _Binding(right))
        elif _this_member(left):
            klass = self.classes.innermost(node.start_byte, node.end_byte)
            self._add_field(klass, self.text(left.child_by_field_name("property")), _Binding(right))

    def _lookup(self, node: tree_sitter.Node, name: str) -> list[_Binding]:
        for scope in self.scopes.chain(self.scopes.innermost(node.start_byte, node.end_byte)):
            names = self.bindings.get(scope)
            if names is not None and name in names:
                return names[name]
        return self.bindings.get(-1, {}).get(name, [])

    def _field(self, member: tree_sitter.Node) -> list[_Binding]:
        klass = self.classes.innermost(member.start_byte, member.end_byte)
        name = self.text(member.child_by_field_name("property"))
        return self.fields.get(klass, {}).get(name, []) if klass >= 0 else []

    # -- gRPC: resolvers --------------------------------------------------------------------

    def _origin(self, node: tree_sitter.Node | None, depth: int) -> _Origin | None:
        node = _unwrap(node)
        if node is None or depth > _DEPTH_MAX:
            return None
        if node.id in self.origins:
            return self.origins[node.id]
        self.origins[node.id] = None
        origin = self.origins[node.id] = self._origin_of(node, depth)
        return origin

    def _origin_of(self, node: tree_sitter.Node, depth: int) -> _Origin | None:
        kind = node.type
        if kind == "call_expression":
            function = node.child_by_field_name("function")
            if function is None:
                return None
            if function.type == "import" or (function.type == "identifier" and self.text(function) == "require"):
                arguments = node.child_by_field_name("arguments")
                module = _string_value(_named(arguments, 0), self.source)
                return _Origin("module", module) if module is not None else None
            name = function if function.type == "identifier" else function.child_by_field_name("property")
            return _PKGDEF if self.text(name) == "loadPackageDefinition" else None
        if kind in ("member_expression", "subscript_expression"):
            if _this_member(node):
                return self._first(self._origin(b.value, depth + 1) for b in self._field(node))
            return self._origin(node.child_by_field_name("object"), depth + 1)
        if kind == "identifier":
            for binding in self._lookup(node, self.text(node)):
                if binding.module is not None:
                    return _Origin("module", binding.module)
                origin = self._origin(binding.value, depth + 1)
                if origin is not None:
                    return origin
        return None

    @staticmethod
    def _first(candidates: Iterable[object]) -> object:
        return next((candidate for candidate in candidates if candidate is not None), None)

    def _client(self, node: tree_sitter.Node | None, depth: int) -> tuple[str, str] | None:
        """(service, namespace) when ``node`` evaluates to a generated client."""
        node = _unwrap(node)
        if node is None or depth > _DEPTH_MAX:
            return None
        if node.id in self.clients:
            return self.clients[node.id]
        self.clients[node.id] = None
        client = self.clients[node.id] = self._client_of(node, depth)
        return client

    def _client_of(self, node: tree_sitter.Node, depth: int) -> tuple[str, str] | None:
        kind = node.type
        if kind == "new_expression":
            constructor = node.child_by_field_name("constructor")
            client = self._constructed(constructor, depth)
            if client is None and self._credentials(_named(node.child_by_field_name("arguments"), 1), depth):
                client = self._named_client(constructor)
            return client
        if kind == "identifier":
            if not self._maybe_client_name(self.text(node)):
                return None
            bindings = self._lookup(node, self.text(node))
        elif _this_member(node):
            bindings = self._field(node)
        else:
            return None
        for binding in bindings:
            if not binding.key:
                client = self._client(binding.value, depth + 1) or self._client_type(binding.type, node, depth + 1)
                if client is not None:
                    return client
        return None

    def _maybe_client_name(self, name: str) -> bool:
        """A cheap pre-check: does any binding of ``name`` anywhere in the file hold a client?"""
        known = self.client_names.get(name)
        if known is None:
            self.client_names[name] = False
            known = self.client_names[name] = any(
                self._client(binding.value, 1) is not None
                or self._client_type(binding.type, binding.type, 1) is not None
                for binding in self.by_name.get(name, ())
                if not binding.key and (binding.value is not None or binding.type is not None)
            )
        return known

    def _constructed(self, constructor: tree_sitter.Node | None, depth: int) -> tuple[str, str] | None:
        constructor = _unwrap(constructor)
        if constructor is None or depth > _DEPTH_MAX:
            return None
        if constructor.type == "member_expression":
            obj = constructor.child_by_field_name("object")
            name = self.text(constructor.child_by_field_name("property"))
            origin = self._origin(obj, depth + 1)
            if origin is _PKGDEF:
                return name, self.text(obj)
            if origin is not None and generated_module(origin.module) and _strip_suffix(name, "Client"):
                return _strip_suffix(name, "Client"), self.text(obj)
            return None
        if constructor.type != "identifier":
            return None
        name = self.text(constructor)
        for binding in self._lookup(constructor, name):
            if binding.module is not None:
                key = name if binding.key in ("default", "*") else binding.key
                if generated_module(binding.module) and _strip_suffix(key, "Client"):
                    return _strip_suffix(key, "Client"), ""
            elif binding.key:
                origin = self._origin(binding.value, depth + 1)
                if origin is _PKGDEF:
                    return binding.key, self.text(_unwrap(binding.value))
                if origin is not None and generated_module(origin.module) and _strip_suffix(binding.key, "Client"):
                    return _strip_suffix(binding.key, "Client"), ""
            else:
                value = _unwrap(binding.value)
                if value is not None and value.type == "member_expression":
                    client = self._constructed(value, depth + 1)
                    if client is not None:
                        return client
                elif value is not None and value.type == "call_expression":
                    client = self._client_constructor(value)
                    if client is not None:
                        return client
        return None

    def _client_constructor(self, call: tree_sitter.Node) -> tuple[str, str] | None:
        """(service, namespace) of the class ``[grpc.]makeClientConstructor(methods, 'Svc')`` makes:
        from the definition it is given (``def['acme.orders.v1.Orders']``, ``pkg.acme.orders.v1.Orders``),
        else from the service name."""
        function = _unwrap(call.child_by_field_name("function"))
        if function is not None and function.type == "member_expression":
            function = function.child_by_field_name("property")
        if function is None or self.text(function) not in _CONSTRUCTOR_FACTORIES:
            return None
        arguments = call.child_by_field_name("arguments")
        first = _unwrap(_named(arguments, 0))
        full = ""
        if first is not None and first.type == "subscript_expression":
            full = _string_value(_unwrap(first.child_by_field_name("index")), self.source) or ""
        elif first is not None and first.type == "member_expression" and self._origin(first, 1) is _PKGDEF:
            full = self.text(first).removesuffix(".service")
            full = full.split(").", 1)[1] if ")." in full else full.split(".", 1)[-1]
        if not full:
            full = _string_value(_unwrap(_named(arguments, 1)), self.source) or ""
        namespace, _, service = full.rpartition(".")
        return (service, namespace) if re.fullmatch(r"[A-Za-z_]\w*", service) else None

    def _named_client(self, constructor: tree_sitter.Node | None) -> tuple[str, str] | None:
        """(service, namespace) a ``new X.Svc(address, credentials)`` or ``new SvcClient(...)`` names when
        its origin is out of sight (a package definition loaded in another file)."""
        constructor = _unwrap(constructor)
        if constructor is None:
            return None
        namespace = ""
        if constructor.type == "member_expression":
            namespace = self.text(constructor.child_by_field_name("object"))
            constructor = constructor.child_by_field_name("property")
        elif constructor.type != "identifier":
            return None
        name = self.text(constructor)
        if not name[:1].isupper() or name in _NOT_CLIENTS:
            return None
        return _strip_suffix(name, "Client") or name, namespace

    def _credentials(self, node: tree_sitter.Node | None, depth: int) -> bool:
        """Whether a constructor argument is channel credentials (``grpc.credentials.createInsecure()``)."""
        node = _unwrap(node)
        if node is None or depth > _DEPTH_MAX:
            return False
        if b"redentials" in self.source[node.start_byte : node.end_byte]:
            return True
        if node.type == "identifier":
            return any(
                binding.value is not None and not binding.key and self._credentials(binding.value, depth + 1)
                for binding in self._lookup(node, self.text(node))
            )
        return False

    def _dynamic_call(self, call: tree_sitter.Node) -> None:
        """``client.makeUnaryRequest('/acme.orders.v1.Orders/Get', ...)``: a CALL of the method the path names."""
        argument = _named(call.child_by_field_name("arguments"), 0)
        path = _string_value(argument, self.source)
        found = _METHOD_PATH.fullmatch(path) if path else None
        if found is not None:
            namespace, service, method = found.group(1) or "", found.group(2), found.group(3)
            self._fact(argument.start_byte, GrpcRole.CALL, service, method, _ts.line(argument), namespace)

    def _standard_registration(self, function: tree_sitter.Node) -> None:
        """``new ReflectionService(pkgDef).addToServer(server)`` and grpc-health-check's
        ``HealthImplementation``: a SERVER of the runtime's standard service."""
        holder = _unwrap(function.child_by_field_name("object"))
        if holder is not None and holder.type == "identifier":
            values = [b.value for b in self._lookup(holder, self.text(holder)) if b.value is not None and not b.key]
            holder = _unwrap(values[0]) if values else None
        if holder is None or holder.type != "new_expression":
            return
        constructor = _unwrap(holder.child_by_field_name("constructor"))
        found = None
        if constructor is not None and constructor.type == "member_expression":
            origin = self._origin(constructor.child_by_field_name("object"), 1)
            if origin is not None and origin.kind == "module":
                name = self.text(constructor.child_by_field_name("property"))
                found = _STANDARD_CLASSES.get(origin.module, {}).get(name)
        elif constructor is not None and constructor.type == "identifier":
            name = self.text(constructor)
            for binding in self._lookup(constructor, name):
                module = binding.module
                if module is None and binding.key:
                    origin = self._origin(binding.value, 1)
                    module = origin.module if origin is not None and origin.kind == "module" else None
                key = name if binding.key in ("", "default", "*") else binding.key
                found = found or _STANDARD_CLASSES.get(module or "", {}).get(key)
        if found is not None:
            prop = function.child_by_field_name("property")
            self._fact(prop.start_byte, GrpcRole.SERVER, found[0], "", _ts.line(prop), found[1])

    def _client_type(self, node: tree_sitter.Node | None, at: tree_sitter.Node, depth: int) -> tuple[str, str] | None:
        """(service, namespace) when a TypeScript type annotation names a generated client."""
        if node is None or depth > _DEPTH_MAX:
            return None
        kind = node.type
        if kind in ("type_annotation", "parenthesized_type", "union_type"):
            for child in node.named_children:
                client = self._client_type(child, at, depth + 1)
                if client is not None:
                    return client
            return None
        if kind == "type_identifier":
            name = self.text(node)
            for binding in self._lookup(at, name):
                key = name if binding.key in ("", "default", "*") else binding.key
                if binding.module is not None and generated_module(binding.module) and _strip_suffix(key, "Client"):
                    return _strip_suffix(key, "Client"), ""
            return None
        if kind == "nested_type_identifier":
            module = node.child_by_field_name("module")
            service = _strip_suffix(self.text(node.child_by_field_name("name")), "Client")
            if service and self._generated_namespace(module):
                return service, self.text(module)
        return None

    def _generated_namespace(self, module: tree_sitter.Node | None) -> bool:
        """Whether the qualifier of a TypeScript type (``svc`` in ``svc.OrdersClient``) is a generated module."""
        root = module
        while root is not None and root.type == "nested_identifier":
            root = root.child_by_field_name("object")
        origin = self._origin(root, 1) if root is not None else None
        return origin is not None and origin.kind == "module" and generated_module(origin.module)

    # -- gRPC: facts ------------------------------------------------------------------------

    def _fact(self, position: int, role: str, service: str, method: str, line: int, namespace: str) -> None:
        """Record a fact found at byte ``position`` (which orders the facts and gives the symbol)."""
        index = self.def_ranges.innermost(position, position + 1)
        symbol = self.paths[index] if index >= 0 else ""
        self.grpc.append((position, len(self.grpc), GrpcFact(role, service, method, line, symbol, namespace)))

    def _call(self, member: tree_sitter.Node, seen: set[int]) -> None:
        prop = member.child_by_field_name("property")
        if prop is None or prop.type != "property_identifier" or prop.id in seen:
            return
        method = self.text(prop)
        holder = _unwrap(member.child_by_field_name("object"))
        if method in _CLIENT_BASE_METHODS or holder is None:
            return
        if holder.type not in ("identifier", "member_expression", "new_expression"):
            return
        client = self._client(holder, 0)
        if client is not None:
            seen.add(prop.id)
            self._fact(prop.start_byte, GrpcRole.CALL, client[0], method, _ts.line(prop), client[1])

    def _service(self, node: tree_sitter.Node | None, depth: int) -> tuple[str, str] | None:
        """(service, namespace) of the service definition handed to ``addService``."""
        node = _unwrap(node)
        if node is None or depth > _DEPTH_MAX:
            return None
        if node.type == "member_expression":
            obj = _unwrap(node.child_by_field_name("object"))
            name = self.text(node.child_by_field_name("property"))
            if name == "service" and obj is not None:
                if obj.type == "member_expression":
                    return self.text(obj.child_by_field_name("property")), self.text(obj.child_by_field_name("object"))
                origin = self._origin(obj, depth + 1) if obj.type == "identifier" else None
                if origin is not None and origin.kind == "module" and origin.module == "grpc-health-check":
                    return "Health", "grpc.health.v1"  # the package's own ``service`` definition
                return (self.text(obj), "") if obj.type == "identifier" else None
            service = _strip_suffix(name, "Service")
            return (service, self.text(obj)) if service else None
        if node.type == "identifier":
            name = self.text(node)
            for binding in self._lookup(node, name):
                if binding.value is not None and not binding.key:
                    service = self._service(binding.value, depth + 1)
                    if service is not None:
                        return service
            service = _strip_suffix(name, "Service")
            return (service, "") if service else None
        return None

    def _registration(self, call: tree_sitter.Node, function: tree_sitter.Node) -> None:
        arguments = call.child_by_field_name("arguments")
        if arguments is None or arguments.named_child_count < 1:
            return
        service = self._service(_named(arguments, 0), 0)
        if service is None:
            return
        prop = function.child_by_field_name("property")
        self._fact(prop.start_byte, GrpcRole.SERVER, service[0], "", _ts.line(prop), service[1])
        if arguments.named_child_count > 1:
            implementation = _named(arguments, 1)
            handlers = self._handlers(implementation, 0)
            for method, line, position in handlers or ():
                self._handler(service, method, line, position)
                if position in self.imported_values:
                    module, name = self.imported_values[position]
                    self.imported.append(ImportedHandler(line, service[0], service[1], method, module, name))
            whole = self._imported(implementation) if handlers is None else None
            if whole is not None:
                self.imported.append(ImportedHandler(_ts.line(prop), service[0], service[1], "", *whole))

    def _imported(self, node: tree_sitter.Node | None) -> tuple[str, str] | None:
        """(module, name) when ``node`` is a binding imported from another module, a member of an imported
        module, or a ``new`` of an imported class."""
        node = _unwrap(node)
        if node is None:
            return None
        if node.type == "new_expression":
            return self._imported(node.child_by_field_name("constructor"))
        if node.type == "member_expression":
            origin = self._origin(node.child_by_field_name("object"), 1)
            obj = _unwrap(node.child_by_field_name("object"))
            if origin is not None and origin.kind == "module" and obj is not None and obj.type == "identifier":
                return origin.module, self.text(node.child_by_field_name("property"))
            return None
        if node.type not in ("identifier", "shorthand_property_identifier"):
            return None
        for binding in self._lookup(node, self.text(node)):
            if binding.module is not None:
                return binding.module, binding.key or "*"
            if binding.key:
                origin = self._origin(binding.value, 1)
                if origin is not None and origin.kind == "module":
                    return origin.module, binding.key
            elif binding.value is not None:
                value = _unwrap(binding.value)
                if value is not None and value.type == "call_expression":
                    origin = self._origin(value, 1)
                    if origin is not None and origin.kind == "module":
                        return origin.module, "*"
        return None

    def _handler(self, service: tuple[str, str], method: str, line: int, position: int) -> None:
        key = (service[0], method, line)
        if key not in self.handler_keys:
            self.handler_keys.add(key)
            self._fact(position, GrpcRole.HANDLER, service[0], method, line, service[1])

    def _implementation(self, clause: tree_sitter.Node) -> None:
        index = self.classes.innermost(clause.start_byte, clause.end_byte)
        if index < 0:
            return
        klass = self.classes.nodes[index]
        path = self.class_paths.get(klass.id)
        if path is None:
            return
        for interface in clause.named_children:
            service = self._implemented_service(interface)
            if service is not None:
                self._fact(klass.start_byte, GrpcRole.SERVER, service[0], "", _ts.line(klass), service[1])
                for method, line, position in self._class_methods(path):
                    self._handler(service, method, line, position)

    def _implemented_service(self, node: tree_sitter.Node) -> tuple[str, str] | None:
        """(service, namespace) when an implemented interface is a generated ``ISvcServer``/``SvcServer``."""
        if node.type == "generic_type":
            node = node.child_by_field_name("name") or node
        namespace = ""
        if node.type == "nested_type_identifier":
            module = node.child_by_field_name("module")
            if not self._generated_namespace(module):
                return None
            namespace = self.text(module)
            name = self.text(node.child_by_field_name("name"))
        elif node.type == "type_identifier":
            name = self.text(node)
            bindings = [b for b in self._lookup(node, name) if b.module is not None and generated_module(b.module)]
            if not bindings:
                return None
            name = next((b.key for b in bindings if b.key not in ("default", "*")), name)
        else:
            return None
        service = _strip_suffix(name, "Server")
        if len(service) > 1 and service[0] == "I" and service[1].isupper():
            service = service[1:]
        return (service, namespace) if service else None

    def _function(self, name: str) -> tuple[int, int] | None:
        """(line, start byte) of the function named ``name`` (a top-level one first)."""
        best = None
        for index, definition in enumerate(self.definitions):
            if definition.name == name and definition.kind == "function":
                found = definition.line, self.def_ranges.starts[index]
                if not definition.container:
                    return found
                best = best or found
        return best

    def _class_methods(self, path: str) -> list[tuple[str, int, int]]:
        """(name, line, start byte) of each method of the class at ``path`` that can serve an RPC."""
        found = self.public_methods.get(path)
        if found is None:
            found = self.public_methods[path] = [
                (name, line, start) for name, line, start, node in self.methods.get(path, ()) if self._public(node)
            ]
        return found

    def _public(self, node: tree_sitter.Node) -> bool:
        name = node.child_by_field_name("name") or node.child_by_field_name("property")
        if name is None or name.type == "private_property_identifier" or self.text(name) == "constructor":
            return False
        for child in node.children:
            if child.type in ("static", "get", "set"):
                return False
            if child.type == "accessibility_modifier" and self.text(child) != "public":
                return False
        return True

    def _class_path(self, name: str) -> str | None:
        for definition, path in zip(self.definitions, self.paths, strict=True):
            if definition.kind == "class" and definition.name == name:
                return path
        return None

    def _method(self, holder: tree_sitter.Node | None, method: str) -> tuple[int, int] | None:
        """(line, start byte) of ``method`` on ``this`` or on an instance of a class of this file."""
        holder = _unwrap(holder)
        path = None
        if holder is None:
            return None
        if holder.type == "this":
            index = self.classes.innermost(holder.start_byte, holder.end_byte)
            path = self.class_paths.get(self.classes.nodes[index].id) if index >= 0 else None
        elif holder.type == "identifier":
            for binding in self._lookup(holder, self.text(holder)):
                value = _unwrap(binding.value)
                if value is not None and value.type == "new_expression" and not binding.key:
                    path = self._class_path(self.text(_unwrap(value.child_by_field_name("constructor"))))
                    break
        for name, line, start in self._class_methods(path) if path else ():
            if name == method:
                return line, start
        if holder.type == "identifier":  # a function of an object literal (``impl.reserve``)
            container = self.text(holder)
            for index, definition in enumerate(self.definitions):
                if definition.name == method and definition.container == container:
                    return definition.line, self.def_ranges.starts[index]
        return None

    def _handlers(self, node: tree_sitter.Node | None, depth: int) -> list[tuple[str, int, int]] | None:
        """(method, line, start byte) of each handler an implementation expression provides."""
        node = _unwrap(node)
        if node is None or depth > _DEPTH_MAX:
            return None
        if node.type == "object":
            return [handler for child in node.named_children if (handler := self._property_handler(child))]
        if node.type == "new_expression":
            path = self._class_path(self.text(_unwrap(node.child_by_field_name("constructor"))))
            return self._class_methods(path) if path else None
        bindings: list[_Binding] = []
        if node.type == "identifier":
            bindings = self._lookup(node, self.text(node))
        elif _this_member(node):
            bindings = self._field(node)
        for binding in bindings:
            if binding.value is not None and not binding.key:
                handlers = self._handlers(binding.value, depth + 1)
                if handlers is not None:
                    return handlers
        return None

    def _property_handler(self, node: tree_sitter.Node) -> tuple[str, int, int] | None:
        """(method, line, start byte) of one property of an implementation object."""
        kind = node.type
        if kind == "method_definition":
            name = _key_text(node.child_by_field_name("name"), self.source)
            return (name, _ts.line(node), node.start_byte) if name else None
        if kind == "shorthand_property_identifier":
            name = self.text(node)
            found = self._function(name)
            if not found:
                self._note_imported(node, node)
            return (name, *found) if found else (name, _ts.line(node), node.start_byte)
        if kind != "pair":
            return None
        name = _key_text(node.child_by_field_name("key"), self.source)
        if not name:
            return None
        value = _unwrap(node.child_by_field_name("value"))
        function = value.child_by_field_name("function") if value is not None else None
        if (
            function is not None
            and function.type == "member_expression"
            and self.text(function.child_by_field_name("property")) == "bind"
        ):
            value = _unwrap(function.child_by_field_name("object"))
        found = None
        if value is not None and value.type == "identifier":
            found = self._function(self.text(value))
        elif value is not None and value.type == "member_expression":
            found = self._method(value.child_by_field_name("object"), self.text(value.child_by_field_name("property")))
        if not found and value is not None:
            self._note_imported(node, value)
        return (name, *found) if found else (name, _ts.line(node), node.start_byte)

    def _note_imported(self, prop: tree_sitter.Node, value: tree_sitter.Node) -> None:
        imported = self._imported(value)
        if imported is not None:
            self.imported_values[prop.start_byte] = imported
