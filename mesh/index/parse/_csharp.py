"""C# facts: definitions, ``using`` directives and Grpc.Core / Grpc.Net evidence, from one parse.

Theory of operation: one flat query (``queries/csharp/outline.scm``) finds block namespaces,
classes, structs, interfaces, records, enums, methods, constructors (kind ``method``, named as the
class), local functions, enum members and ``const`` / ``static readonly`` fields (kind ``constant``),
properties (kind ``method``: a property is its accessors), delegates (kind ``type``) and ``using``
directives; definitions arrive in document order and a stack
of the open ones gives each its dotted container. A block ``namespace A.B { }`` is a ``module``
definition containing what it declares; a file-scoped ``namespace A.B;`` is a package-like
declaration, neither a definition nor a container; both are the file's ``Namespace`` facts (what
a ``using`` elsewhere names to see its types), and a ``global using`` holds in the whole project
(its scope ``project``). A declaration's line is the first line after its
attribute lists (a member's: its name's line). Members are no scope: the gRPC and links passes
name what they find after the class or method around it, as before. Instance fields are no
definition (no kind of ``Definition`` fits a variable).

gRPC work runs only when the bytes hold a generated-looking name (``X.XClient``, ``X.XBase``),
``MapGrpcService``, ``AddGrpcClient``, ``CreateClient``, a ``using static`` or a ``using`` alias.
Generated names are recognised by shape, the qualifier written before them being the namespace (""
when none); a bare ``SvcClient``/``SvcBase`` counts after ``using static Ns.Svc;``, and a ``using``
alias stands for what it names (``using C = Ns.Svc.SvcClient;`` makes ``C`` a client type, ``using
S = Ns.Svc;`` makes ``S.SvcClient`` one, ``using P = Ns;`` makes ``P.Svc.SvcClient`` one of ``Ns``):

* a class whose base list names ``[Ns.]Svc.SvcBase`` is a SERVER, with a HANDLER per ``public
  override`` method; ``app.MapGrpcService<X>()`` is a SERVER of X's service when X is such a class
  of this file (else no fact); ``MapGrpcHealthChecksService()`` and ``MapGrpcReflectionService()``
  are SERVERs of the runtime's standard ``Health`` and ``ServerReflection``;
* ``new [Ns.]Svc.SvcClient(channel)``, a target-typed ``new(channel)`` whose target is declared
  with that type, ``AddGrpcClient<Svc.SvcClient>`` and ``CreateClient<Svc.SvcClient>`` are CLIENTs
  (``AddGrpcClient`` registers the client with dependency injection and returns a builder: what is
  called on it is configuration, never a CALL);
* a local, field, property, parameter or primary-constructor parameter declared with the client
  type, or assigned a client, holds one, as does a call of a method or local function of the class
  declared to return one (``GetClient().M()``, ``Task<Svc.SvcClient>`` awaited too); any method
  called on a holder (``x.M()``, ``this.x.M()``, ``x?.M()``) is a CALL of ``M`` as written, bar
  ``object``'s own methods.

Holders are looked up by scope: method-like scopes (methods, constructors, accessors, local
functions, lambdas) nested by byte range, then the fields of the enclosing classes.

Code navigation: each definition's signature is the declaration from its first line after the
attribute lists up to its body; its doc line is the first line of the ``<summary>`` of the ``///``
XML comment above it (tags dropped, ``<see cref="X"/>`` read as ``X``), else of the comments above
it. References come from ``queries/csharp/references.scm``, bar what a using directive's line holds.
"""

from __future__ import annotations

import re
from typing import Final

import attrs
import tree_sitter

from .._facts import (
    DOC_CHARS_MAX, SIGNATURE_CHARS_MAX, Definition, FileFacts, GrpcFact, GrpcRole, Import, Namespace, Reference,
)  # fmt: skip
from . import _csharp_links, _navigation, _ts
from ._common import too_broken
from ._tree import Ranges, first_error_line, safe_captures

__all__ = ["extract"]

_LANGUAGE: Final = "csharp"

#: Definitions and using directives (``queries/csharp/outline.scm``).
_DEFINITIONS: Final = _navigation.query_text(_LANGUAGE, "outline")

# Flat patterns only: a parent pattern waiting for a child keeps a cursor state alive across the
# parent's whole subtree, which is quadratic on deeply nested code.
_GRPC: Final = """
[(class_declaration) (struct_declaration) (record_declaration) (interface_declaration)] @class
[(method_declaration) (constructor_declaration) (local_function_statement) (lambda_expression)
 (accessor_declaration) (anonymous_method_expression) (destructor_declaration) (operator_declaration)] @scope
(field_declaration) @field
(local_declaration_statement) @local
(property_declaration) @property
(parameter) @parameter
(assignment_expression) @assignment
(object_creation_expression) @new
(implicit_object_creation_expression) @implicit_new
(invocation_expression) @invocation
(base_list) @bases
"""

_KINDS: Final = {
    "constant": "constant",
    "property": "method",
    "delegate": "type",
    "module": "module",
    "class": "class",
    "struct": "struct",
    "interface": "interface",
    "enum": "enum",
    "method": "method",
    "function": "function",
}
_GRPC_HINT: Final = re.compile(
    rb"\b(\w+)\.\1(?:Client|Base)\b|MapGrpc|AddGrpcClient|CreateClient|using\s+(?:static\b|\w+\s*=)"
)
#: Awaitables whose result a method returning a client hands over (``Task<Svc.SvcClient>``).
_AWAITABLES: Final = frozenset({"Task", "ValueTask"})
#: ASP.NET Core's registrations of the runtime's standard services: method -> (service, namespace)
_STANDARD_REGISTRATIONS: Final = {
    "MapGrpcHealthChecksService": ("Health", "Grpc.Health.V1"),
    "MapGrpcReflectionService": ("ServerReflection", "Grpc.Reflection.V1Alpha"),
}
#: ``object``'s methods: calling them on a client is no RPC
_OBJECT_METHODS: Final = frozenset({"Equals", "GetHashCode", "ToString", "GetType"})
_WRAPPERS: Final = frozenset({"parenthesized_expression", "await_expression", "postfix_unary_expression"})
_DEPTH_MAX: Final = 24

_queries: dict[str, tree_sitter.Query] = {}


def _query(part: str) -> tree_sitter.Query:
    query = _queries.get(part)
    if query is None:
        query = _queries[part] = tree_sitter.Query(_ts.language(_LANGUAGE), _DEFINITIONS if part == "defs" else _GRPC)
    return query


def extract(source: bytes) -> FileFacts:
    """Definitions, imports and gRPC facts of a C# file."""
    root = _ts.parse(_LANGUAGE, source).root_node
    return _Extraction(source, root).facts()


def _last_segment(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The rightmost identifier of a (possibly qualified) name."""
    while node is not None and node.type in ("qualified_name", "alias_qualified_name"):
        node = node.child_by_field_name("name")
    return node


def _declaration_line(node: tree_sitter.Node) -> int:
    """The first line of a declaration after its attribute lists."""
    for child in node.children:
        if child.type != "attribute_list":
            return _ts.line(child)
    return _ts.line(node)


# -- signature and doc line --------------------------------------------------------------------

_SPACES: Final = re.compile(r"\s+")
#: ``/// <see cref="Order"/>``, ``<paramref name="id"/>``: the name they point at stands for them.
_XML_REFERENCE: Final = re.compile(r"""<(?:see|seealso|paramref|typeparamref)\s+\w+\s*=\s*["']([^"']*)["']\s*/?>""")
#: Elements that describe something else than the declaration as a whole.
_XML_DETAILS: Final = re.compile(
    r"<(param|typeparam|returns|exception|example|seealso|value|permission)\b[^>]*?(?:/>|>.*?</\1\s*>)", re.DOTALL
)
_XML_SUMMARY: Final = re.compile(r"<summary\b[^>]*>(.*?)(?:</summary\s*>|$)", re.DOTALL)
_XML_TAG: Final = re.compile(r"</?[A-Za-z][^<>]*>")
_XML_ENTITIES: Final = {"&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'", "&amp;": "&"}
_XML_ENTITY: Final = re.compile("|".join(_XML_ENTITIES))


def _signature(node: tree_sitter.Node, source: bytes) -> str:
    """The declaration as written from its first line after the attribute lists up to its body
    (``public async Task<Order> Get(int id, [FromServices] IClock clock)``), on one line, bounded."""
    start = next((child.start_byte for child in node.children if child.type != "attribute_list"), node.start_byte)
    if start == node.start_byte:
        return _navigation.signature(node, source)
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None else node.end_byte
    text = source[start : min(end, start + 4 * SIGNATURE_CHARS_MAX)].decode("utf-8", "replace")
    return _bounded(_SPACES.sub(" ", text).strip().removesuffix(";").rstrip(), SIGNATURE_CHARS_MAX)


def _doc(node: tree_sitter.Node, source: bytes) -> str:
    """The first line of the ``<summary>`` of the ``///`` XML comment right above ``node``, else
    the first line of the comments above it (``//``, ``/* */``)."""
    lines: list[str] = []
    row = node.start_point[0]
    previous = node.prev_named_sibling
    while previous is not None and previous.type == "comment" and previous.end_point[0] >= row - 1:
        text = source[previous.start_byte : previous.end_byte].decode("utf-8", "replace")
        line_start = source.rfind(b"\n", 0, previous.start_byte) + 1
        if not text.startswith("///") or source[line_start : previous.start_byte].strip():
            break
        lines.append(text[3:])
        row = previous.start_point[0]
        previous = previous.prev_named_sibling
    if not lines or not any("<" in line for line in lines):
        return _navigation.doc_line(_LANGUAGE, node, source)
    xml = "\n".join(reversed(lines))
    summary = _XML_SUMMARY.search(xml)
    text = summary.group(1) if summary is not None else _XML_DETAILS.sub("", xml)
    text = _XML_TAG.sub("", _XML_REFERENCE.sub(lambda match: match.group(1).rsplit(":", 1)[-1], text))
    for line in text.splitlines():
        line = _XML_ENTITY.sub(lambda match: _XML_ENTITIES[match.group(0)], _SPACES.sub(" ", line).strip())
        if line:
            return _bounded(line, DOC_CHARS_MAX)
    return ""


#: Definitions that are members, not scopes: enum members, constant fields' declarators, properties, delegates.
_MEMBER_TYPES: Final = frozenset(
    {"enum_member_declaration", "variable_declarator", "property_declaration", "delegate_declaration"}
)


def _constant_field(node: tree_sitter.Node, source: bytes) -> bool:
    """Whether a field declaration declares constants: ``const``, or ``static readonly``."""
    modifiers = {_ts.text(child, source) for child in node.named_children if child.type == "modifier"}
    return "const" in modifiers or {"static", "readonly"} <= modifiers


def _declarators(field: tree_sitter.Node) -> list[tree_sitter.Node]:
    declaration = next((c for c in field.named_children if c.type == "variable_declaration"), None)
    if declaration is None:
        return []
    return [c for c in declaration.named_children if c.type == "variable_declarator" and c.child_by_field_name("name")]


def _member_details(node: tree_sitter.Node, source: bytes) -> tuple[str, str, int]:
    """(signature, doc line, line) of a member definition. A constant's signature is its field's
    declaration with its own declarator (``public const int MaxItems = 50``); a property's stops
    before its initializer or expression body, and keeps its accessors when none has a body
    (``public int Number { get; private set; }``); an enum member is written as declared."""
    declaration = node
    if node.type == "variable_declarator":
        field = node.parent.parent if node.parent is not None else None
        declaration = field if field is not None else node
        first = next((c for c in node.parent.named_children if c.type == "variable_declarator"), node)
        start = next((c.start_byte for c in declaration.children if c.type != "attribute_list"), declaration.start_byte)
        head = source[start : first.start_byte] if first.start_byte >= start else b""
        text = (head + source[node.start_byte : min(node.end_byte, node.start_byte + 4 * SIGNATURE_CHARS_MAX)]).decode(
            "utf-8", "replace"
        )
    else:
        start = next((c.start_byte for c in node.children if c.type != "attribute_list"), node.start_byte)
        end = node.end_byte
        if node.type == "property_declaration":
            accessors = node.child_by_field_name("accessors")
            value = node.child_by_field_name("value")
            if accessors is not None and any(a.child_by_field_name("body") for a in accessors.named_children):
                end = accessors.start_byte
            elif accessors is not None:
                end = accessors.end_byte
            elif value is not None:
                end = value.start_byte
        text = source[start : min(end, start + 4 * SIGNATURE_CHARS_MAX)].decode("utf-8", "replace")
    signature = _bounded(
        _SPACES.sub(" ", text).strip().removesuffix(";").rstrip().removesuffix(","), SIGNATURE_CHARS_MAX
    )
    name = node.child_by_field_name("name")
    return signature, _doc(declaration, source), _ts.line(name if name is not None else node)


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@attrs.frozen
class _Binding:
    """What a name holds: its declared type and/or the value assigned to it."""

    type: tree_sitter.Node | None = None
    value: tree_sitter.Node | None = None


@attrs.define
class _Extraction:
    """The state of one file's extraction (private to one call of :func:`extract`)."""

    source: bytes
    root: tree_sitter.Node
    definitions: list[Definition] = attrs.field(factory=list)
    paths: list[str] = attrs.field(factory=list)
    def_ranges: Ranges = attrs.field(factory=lambda: Ranges(()))
    #: class node id -> dotted path
    classes_by_id: dict[int, str] = attrs.field(factory=dict)
    #: simple class name -> class node (the first declared)
    classes_by_name: dict[str, tree_sitter.Node] = attrs.field(factory=dict)
    #: dotted class path -> (method or constructor node, index in ``definitions``) of its members
    methods: dict[str, list[tuple[tree_sitter.Node, int]]] = attrs.field(factory=dict)
    imports: list[Import] = attrs.field(factory=list)
    namespaces: list[Namespace] = attrs.field(factory=list)
    #: the last segment of each ``using static`` (``Orders`` for ``using static Acme.Orders.Orders;``)
    static_services: set[str] = attrs.field(factory=set)
    #: ``using`` alias -> the name it stands for (``C`` -> ``Acme.Orders.OrdersClient`` node)
    aliases: dict[str, tree_sitter.Node] = attrs.field(factory=dict)
    #: method or local function name -> (declaration, client) of those of that name declared to return a client
    returns: dict[str, list[tuple[tree_sitter.Node, tuple[str, str]]]] = attrs.field(factory=dict)
    scopes: Ranges = attrs.field(factory=lambda: Ranges(()))
    classes: Ranges = attrs.field(factory=lambda: Ranges(()))
    locals: dict[int, dict[str, list[_Binding]]] = attrs.field(factory=dict)
    fields: dict[int, dict[str, list[_Binding]]] = attrs.field(factory=dict)
    #: name -> its bindings in every scope and class
    by_name: dict[str, list[_Binding]] = attrs.field(factory=dict)
    client_names: dict[str, bool] = attrs.field(factory=dict)
    memo: dict[int, tuple[str, str] | None] = attrs.field(factory=dict)
    servers: dict[int, tuple[str, str] | None] = attrs.field(factory=dict)
    grpc: list[tuple[int, int, GrpcFact]] = attrs.field(factory=list)

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.source)

    def facts(self) -> FileFacts:
        self._definitions_and_imports()
        if _GRPC_HINT.search(self.source):
            self._grpc()
            self.grpc.sort(key=lambda item: (item[0], item[1]))
        links = _csharp_links.extract(self.source, self.root, self._symbol, (i.module for i in self.imports))
        return FileFacts(
            language=_LANGUAGE,
            definitions=tuple(self.definitions),
            imports=tuple(self.imports),
            namespaces=tuple(sorted(self.namespaces, key=lambda n: (n.line, -n.end_line))),
            grpc=tuple(fact for _, _, fact in self.grpc),
            http_routes=links.routes,
            http_calls=links.calls,
            messages=links.messages,
            settings=links.settings,
            constants=links.constants,
            references=self._references(),
            error=f"syntax error at line {first_error_line(self.root)}" if self.root.has_error else "",
        )

    def _references(self) -> tuple[Reference, ...]:
        """The file's references, bar what its using directives name (``using Order = Acme.Order;``
        writes a type the query cannot tell from one in code)."""
        if too_broken(self.root):
            return ()
        # a using alias is the last name of what it stands for: ``Rules.Shipping()`` of ``using Rules =
        # Shop.Pricing.PriceRules;`` is qualified ``PriceRules``, and ``Rules`` alone names ``PriceRules``
        aliases = {alias: self.text(target).split("<", 1)[0].rsplit(".", 1)[-1].rsplit("::", 1)[-1]
                   for alias, target in self.aliases.items()}  # fmt: skip
        found = _navigation.references(_LANGUAGE, self.root, self.source, aliases=aliases)
        using_lines = {item.line for item in self.imports}
        return tuple(r for r in found if r.line not in using_lines) if using_lines else found

    def _symbol(self, offset: int) -> str:
        """The dotted path of the innermost definition holding byte ``offset`` ("" when none)."""
        index = self.def_ranges.innermost(offset, offset + 1)
        return self.paths[index] if index >= 0 else ""

    # -- definitions and imports -------------------------------------------------------------

    def _definitions_and_imports(self) -> None:
        captures = safe_captures(_query("defs"), self.root)
        found: list[tuple[int, int, str, tree_sitter.Node]] = []
        for capture, nodes in captures.items():
            if capture == "record":
                for node in nodes:
                    kind = "struct" if any(c.type == "struct" for c in node.children) else "class"
                    found.append((node.start_byte, -node.end_byte, kind, node))
            elif capture == "field":
                for node in nodes:
                    if _constant_field(node, self.source):
                        found.extend((d.start_byte, -d.end_byte, "constant", d) for d in _declarators(node))
            elif capture in _KINDS:
                found.extend((node.start_byte, -node.end_byte, _KINDS[capture], node) for node in nodes)
        found.sort(key=lambda item: (item[0], item[1]))
        stack: list[tuple[int, str]] = []
        nodes: list[tree_sitter.Node] = []
        for start, _, kind, node in found:
            name = self.text(node.child_by_field_name("name"))
            while stack and stack[-1][0] <= start:
                stack.pop()
            container = stack[-1][1] if stack else ""
            path = f"{container}.{name}" if container else name
            stack.append((node.end_byte, path))
            if kind == "module":
                self.namespaces.append(Namespace(path, _ts.line(node), _ts.end_line(node)))
            if node.type in _MEMBER_TYPES:
                # members: definitions, but not containers of what the gRPC and links passes find
                signature, doc, line = _member_details(node, self.source)
                self.definitions.append(Definition(name, kind, container, line, _ts.end_line(node), signature, doc))
                continue
            signature, doc = _signature(node, self.source), _doc(node, self.source)
            line = _declaration_line(node)
            self.definitions.append(Definition(name, kind, container, line, _ts.end_line(node), signature, doc))
            self.paths.append(path)
            nodes.append(node)
            if kind in ("class", "struct", "interface"):
                self.classes_by_id[node.id] = path
                self.classes_by_name.setdefault(name, node)
            elif kind == "method":
                self.methods.setdefault(container, []).append((node, len(self.definitions) - 1))
        self.def_ranges = Ranges(nodes)
        for node in captures.get("file_namespace", ()):
            self.namespaces.append(Namespace(self.text(node), _ts.line(node), _ts.end_line(self.root)))
        for node in captures.get("using", ()):
            target = [c for c in node.named_children if c.type != "comment" and c != node.child_by_field_name("name")]
            if target:
                scope = Import.PROJECT if any(c.type == "global" for c in node.children) else ""
                self.imports.append(Import(self.text(target[-1]), _ts.line(node), scope=scope))
                if any(c.type == "static" for c in node.children):
                    self.static_services.add(self.text(_last_segment(target[-1])))
                elif node.child_by_field_name("name") is not None:
                    self.aliases.setdefault(self.text(node.child_by_field_name("name")), target[-1])

    # -- gRPC: bindings ---------------------------------------------------------------------

    def _grpc(self) -> None:
        captures = safe_captures(_query("grpc"), self.root)
        self.scopes = Ranges(captures.get("scope", ()))
        self.classes = Ranges(captures.get("class", ()))
        for node in captures.get("scope", ()):
            if node.type in ("method_declaration", "local_function_statement"):
                returned = node.child_by_field_name("returns" if node.type == "method_declaration" else "type")
                client = self._client_type(self._awaited(returned))
                if client is not None:
                    self.returns.setdefault(self.text(node.child_by_field_name("name")), []).append((node, client))
        self._bind(captures)
        for node in captures.get("bases", ()):
            self._server(node)
        for node in captures.get("new", ()):
            client = self._client_type(node.child_by_field_name("type"))
            if client is not None:
                self._fact(node.start_byte, GrpcRole.CLIENT, client, "", _ts.line(node))
        for node in captures.get("implicit_new", ()):
            client = self._target_type(node)
            if client is not None:
                self._fact(node.start_byte, GrpcRole.CLIENT, client, "", _ts.line(node))
        for node in captures.get("invocation", ()):
            self._invocation(node)

    def _add_local(self, at: tree_sitter.Node, name: str, binding: _Binding) -> None:
        """Bind a local or parameter in its scope (a primary-constructor parameter: in its class)."""
        scope = self.scopes.innermost(at.start_byte, at.end_byte)
        if scope < 0 and at.type == "parameter":
            klass = self.classes.innermost(at.start_byte, at.end_byte)
            if klass >= 0:
                self._add_field(klass, name, binding)
                return
        if name:
            self.locals.setdefault(scope, {}).setdefault(name, []).append(binding)
            self.by_name.setdefault(name, []).append(binding)

    def _add_field(self, klass: int, name: str, binding: _Binding) -> None:
        if klass >= 0 and name:
            self.fields.setdefault(klass, {}).setdefault(name, []).append(binding)
            self.by_name.setdefault(name, []).append(binding)

    def _declarators(self, declaration: tree_sitter.Node | None):
        """(name, value) of each declarator of a ``variable_declaration``, with its declared type."""
        if declaration is None:
            return None, []
        declared = declaration.child_by_field_name("type")
        pairs = []
        for declarator in declaration.named_children:
            if declarator.type != "variable_declarator":
                continue
            name = declarator.child_by_field_name("name")
            values = [c for c in declarator.named_children if c.id != (name.id if name is not None else -1)]
            pairs.append((self.text(name), values[-1] if values else None))
        return (None if declared is not None and declared.type == "implicit_type" else declared), pairs

    def _bind(self, captures: dict[str, list[tree_sitter.Node]]) -> None:
        for node in captures.get("field", ()):
            declaration = next((c for c in node.named_children if c.type == "variable_declaration"), None)
            declared, pairs = self._declarators(declaration)
            klass = self.classes.around(node)
            for name, value in pairs:
                self._add_field(klass, name, _Binding(declared, value))
        for node in captures.get("property", ()):
            binding = _Binding(node.child_by_field_name("type"), node.child_by_field_name("value"))
            self._add_field(self.classes.around(node), self.text(node.child_by_field_name("name")), binding)
        for node in captures.get("local", ()):
            declaration = next((c for c in node.named_children if c.type == "variable_declaration"), None)
            declared, pairs = self._declarators(declaration)
            for name, value in pairs:
                self._add_local(node, name, _Binding(declared, value))
        for node in captures.get("parameter", ()):
            declared = node.child_by_field_name("type")
            self._add_local(node, self.text(node.child_by_field_name("name")), _Binding(declared))
        for node in captures.get("assignment", ()):
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if left is None or right is None:
                continue
            if left.type == "identifier":
                bindings = self._lookup(left)
                if bindings:
                    bindings.append(_Binding(None, right))
                    self.by_name.setdefault(self.text(left), []).append(bindings[-1])
            elif self._this_member(left):
                klass = self.classes.innermost(left.start_byte, left.end_byte)
                self._add_field(klass, self.text(left.child_by_field_name("name")), _Binding(None, right))

    def _this_member(self, node: tree_sitter.Node) -> bool:
        if node.type != "member_access_expression":
            return False
        obj = node.child_by_field_name("expression")
        return obj is not None and obj.type in ("this", "this_expression")

    def _lookup(self, identifier: tree_sitter.Node) -> list[_Binding]:
        name = self.text(identifier)
        start, end = identifier.start_byte, identifier.end_byte
        for scope in self.scopes.chain(self.scopes.innermost(start, end)):
            names = self.locals.get(scope)
            if names is not None and name in names:
                return names[name]
        innermost = self.classes.innermost(start, end)
        if innermost < 0:
            return self.locals.get(-1, {}).get(name, [])
        for klass in self.classes.chain(innermost):
            names = self.fields.get(klass)
            if names is not None and name in names:
                return names[name]
        return []

    # -- gRPC: resolvers --------------------------------------------------------------------

    def _client_type(self, node: tree_sitter.Node | None) -> tuple[str, str] | None:
        """(service, namespace) when a type is a generated client, ``[Ns.]Svc.SvcClient``."""
        if node is not None and node.type == "nullable_type":
            node = node.child_by_field_name("type")
        return self._generated(node, "Client")

    def _generated(self, node: tree_sitter.Node | None, suffix: str, aliased: bool = True) -> tuple[str, str] | None:
        """(service, namespace) of a qualified generated name ``[Ns.]Svc.Svc<suffix>``, ``using``
        aliases followed (``aliased``: the names of an alias's target are never aliases themselves)."""
        if node is not None and node.type == "identifier":
            target = self.aliases.get(self.text(node)) if aliased else None
            if target is not None:
                return self._generated(target, suffix, aliased=False)
            service = self.text(node)[: -len(suffix)]
            if self.text(node) == service + suffix and service in self.static_services:
                return service, ""
            return None
        if node is None or node.type != "qualified_name":
            return None
        name = self.text(node.child_by_field_name("name"))
        qualifier = node.child_by_field_name("qualifier")
        if qualifier is None:
            return None
        if aliased and qualifier.type == "identifier" and self.text(qualifier) in self.aliases:
            qualifier = self.aliases[self.text(qualifier)]  # ``S.SvcClient`` after ``using S = Ns.Svc;``
        service = self.text(_last_segment(qualifier))
        if name != service + suffix or not service:
            return None
        outer = qualifier.child_by_field_name("qualifier") if qualifier.type == "qualified_name" else None
        if qualifier.type == "alias_qualified_name":
            outer = qualifier.child_by_field_name("alias")
            return service, f"{self.text(outer)}::" if outer is not None else ""
        if aliased and outer is not None and outer.type == "identifier" and self.text(outer) in self.aliases:
            outer = self.aliases[self.text(outer)]  # ``P.Svc.SvcClient`` after ``using P = Ns;``
        return service, self.text(outer)

    def _client(self, node: tree_sitter.Node | None, depth: int) -> tuple[str, str] | None:
        """(service, namespace) when an expression evaluates to a generated client."""
        while node is not None and node.type in _WRAPPERS:
            node = node.named_child(0) if node.named_child_count else None
        if node is None or depth > _DEPTH_MAX:
            return None
        if node.id in self.memo:
            return self.memo[node.id]
        self.memo[node.id] = None
        client = self.memo[node.id] = self._client_of(node, depth)
        return client

    def _client_of(self, node: tree_sitter.Node, depth: int) -> tuple[str, str] | None:
        kind = node.type
        if kind == "object_creation_expression":
            return self._client_type(node.child_by_field_name("type"))
        if kind == "cast_expression":
            return self._client_type(node.child_by_field_name("type"))
        if kind == "invocation_expression":
            return self._factory_client(node, ("CreateClient",)) or self._returned_client(node)
        if kind == "identifier":
            if not self._maybe_client_name(self.text(node)):
                return None
            bindings = self._lookup(node)
        elif self._this_member(node):
            if not self._maybe_client_name(self.text(node.child_by_field_name("name"))):
                return None
            klass = self.classes.innermost(node.start_byte, node.end_byte)
            bindings = self.fields.get(klass, {}).get(self.text(node.child_by_field_name("name")), [])
        else:
            return None
        for binding in bindings:
            client = self._client_type(binding.type) or self._client(binding.value, depth + 1)
            if client is not None:
                return client
        return None

    def _maybe_client_name(self, name: str) -> bool:
        """A cheap pre-check: is any local, field or property of this name, anywhere in the file, a client?"""
        known = self.client_names.get(name)
        if known is None:
            self.client_names[name] = False
            known = self.client_names[name] = any(
                self._client_type(binding.type) is not None or self._client(binding.value, 1) is not None
                for binding in self.by_name.get(name, ())
            )
        return known

    def _factory_client(
        self, node: tree_sitter.Node, factories: tuple[str, ...] = ("CreateClient", "AddGrpcClient")
    ) -> tuple[str, str] | None:
        """(service, namespace) of ``CreateClient<Svc.SvcClient>(...)`` / ``AddGrpcClient<...>(...)``."""
        function = node.child_by_field_name("function")
        if function is not None and function.type == "member_access_expression":
            function = function.child_by_field_name("name")
        if function is None or function.type != "generic_name":
            return None
        name = self.text(function.named_child(0))
        if name not in factories:
            return None
        arguments = next((c for c in function.named_children if c.type == "type_argument_list"), None)
        first = arguments.named_child(0) if arguments is not None and arguments.named_child_count else None
        return self._client_type(first)

    def _returned_client(self, node: tree_sitter.Node) -> tuple[str, str] | None:
        """(service, namespace) of ``M()`` / ``this.M()`` when ``M`` is a method or local function of
        the calling class (or of the top-level statements) declared to return a client."""
        function = node.child_by_field_name("function")
        if function is not None and self._this_member(function):
            function = function.child_by_field_name("name")
        if function is None or function.type != "identifier":
            return None
        declared = self.returns.get(self.text(function))
        if not declared:
            return None
        chain = set(self.classes.chain(self.classes.innermost(node.start_byte, node.end_byte)))
        for method, client in declared:
            klass = self.classes.innermost(method.start_byte, method.end_byte)
            if klass in chain or (klass < 0 and not chain):
                return client
        return None

    def _awaited(self, node: tree_sitter.Node | None) -> tree_sitter.Node | None:
        """``T`` of ``Task<T>`` / ``ValueTask<T>``, else the type itself."""
        if node is None or node.type != "generic_name" or self.text(node.named_child(0)) not in _AWAITABLES:
            return node
        arguments = next((c for c in node.named_children if c.type == "type_argument_list"), None)
        return arguments.named_child(0) if arguments is not None and arguments.named_child_count == 1 else None

    def _target_type(self, node: tree_sitter.Node) -> tuple[str, str] | None:
        """(service, namespace) of a target-typed ``new(...)`` whose target is declared as a client."""
        parent = node.parent
        if parent is None:
            return None
        if parent.type == "variable_declarator":
            declaration = parent.parent
            return self._client_type(declaration.child_by_field_name("type")) if declaration is not None else None
        if parent.type == "property_declaration":
            return self._client_type(parent.child_by_field_name("type"))
        if parent.type == "assignment_expression":
            left = parent.child_by_field_name("left")
            if left is None:
                return None
            if left.type == "identifier":
                bindings = self._lookup(left)
            elif self._this_member(left):
                klass = self.classes.innermost(left.start_byte, left.end_byte)
                bindings = self.fields.get(klass, {}).get(self.text(left.child_by_field_name("name")), [])
            else:
                return None
            return next(filter(None, (self._client_type(b.type) for b in bindings)), None)
        return None

    def _class_service(self, klass: tree_sitter.Node) -> tuple[str, str] | None:
        """(service, namespace) when a class derives from a generated ``Svc.SvcBase``."""
        if klass.id not in self.servers:
            found = None
            for child in klass.named_children:
                if child.type == "base_list":
                    found = next(filter(None, (self._generated(base, "Base") for base in child.named_children)), None)
                    break
            self.servers[klass.id] = found
        return self.servers[klass.id]

    # -- gRPC: facts ------------------------------------------------------------------------

    def _fact(self, position: int, role: str, service: tuple[str, str], method: str, line: int) -> None:
        """Record a fact found at byte ``position`` (which orders the facts and gives the symbol)."""
        index = self.def_ranges.innermost(position, position + 1)
        symbol = self.paths[index] if index >= 0 else ""
        fact = GrpcFact(role, service[0], method, line, symbol, service[1])
        self.grpc.append((position, len(self.grpc), fact))

    def _server(self, bases: tree_sitter.Node) -> None:
        index = self.classes.innermost(bases.start_byte, bases.end_byte)
        if index < 0:
            return
        klass = self.classes.nodes[index]
        service = self._class_service(klass)
        path = self.classes_by_id.get(klass.id)
        if service is None or path is None:
            return
        self._fact(klass.start_byte, GrpcRole.SERVER, service, "", _declaration_line(klass))
        for method, definition in self.methods.get(path, ()):
            if method.type != "method_declaration":
                continue
            modifiers = {self.text(c) for c in method.children if c.type == "modifier"}
            if "override" in modifiers and "public" in modifiers:
                line = self.definitions[definition].line
                self._fact(method.start_byte, GrpcRole.HANDLER, service, self.definitions[definition].name, line)

    def _invocation(self, node: tree_sitter.Node) -> None:
        function = node.child_by_field_name("function")
        if function is None:
            return
        if function.type == "member_access_expression":
            holder = function.child_by_field_name("expression")
            name = function.child_by_field_name("name")
        elif function.type == "conditional_access_expression":
            holder = function.child_by_field_name("condition")
            binding = next((c for c in function.named_children if c.type == "member_binding_expression"), None)
            name = binding.child_by_field_name("name") if binding is not None else None
        else:
            return
        if name is None or holder is None:
            return
        if name.type == "generic_name":
            method = self.text(name.named_child(0))
            if method == "MapGrpcService":
                self._registration(node, name)
            elif method in ("AddGrpcClient", "CreateClient"):
                client = self._factory_client(node)
                if client is not None:
                    self._fact(name.start_byte, GrpcRole.CLIENT, client, "", _ts.line(name))
            return
        method = self.text(name)
        if method in _OBJECT_METHODS:
            return
        if method in _STANDARD_REGISTRATIONS:
            self._fact(name.start_byte, GrpcRole.SERVER, _STANDARD_REGISTRATIONS[method], "", _ts.line(name))
            return
        client = self._client(holder, 0)
        if client is not None:
            self._fact(name.start_byte, GrpcRole.CALL, client, method, _ts.line(name))

    def _registration(self, node: tree_sitter.Node, name: tree_sitter.Node) -> None:
        arguments = next((c for c in name.named_children if c.type == "type_argument_list"), None)
        argument = arguments.named_child(0) if arguments is not None and arguments.named_child_count else None
        klass = self.classes_by_name.get(self.text(_last_segment(argument)))
        service = self._class_service(klass) if klass is not None else None
        if service is not None:
            self._fact(name.start_byte, GrpcRole.SERVER, service, "", _ts.line(name))
