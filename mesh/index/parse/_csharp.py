"""C# facts: definitions, ``using`` directives and Grpc.Core / Grpc.Net evidence, from one parse.

Theory of operation: one flat query finds block namespaces, classes, structs, interfaces, records,
enums, methods, constructors (kind ``method``, named as the class), local functions and ``using``
directives; definitions arrive in document order and a stack of the open ones gives each its dotted
container. A block ``namespace A.B { }`` is a ``module`` definition containing what it declares; a
file-scoped ``namespace A.B;`` is a package-like declaration, neither a definition nor a container.
A declaration's line is the first line after its attribute lists.

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
"""

from __future__ import annotations

import re
from typing import Final

import attrs
import tree_sitter

from .._facts import Definition, FileFacts, GrpcFact, GrpcRole, Import
from . import _csharp_links, _ts
from ._tree import Ranges, first_error_line, safe_captures

__all__ = ["extract"]

_LANGUAGE: Final = "csharp"

_DEFINITIONS: Final = """
(namespace_declaration name: (_)) @module
(class_declaration name: (_)) @class
(struct_declaration name: (_)) @struct
(interface_declaration name: (_)) @interface
(record_declaration name: (_)) @record
(enum_declaration name: (_)) @enum
(method_declaration name: (_)) @method
(constructor_declaration name: (_)) @method
(local_function_statement name: (_)) @function
(using_directive) @using
"""

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
            grpc=tuple(fact for _, _, fact in self.grpc),
            http_routes=links.routes,
            http_calls=links.calls,
            messages=links.messages,
            settings=links.settings,
            constants=links.constants,
            error=f"syntax error at line {first_error_line(self.root)}" if self.root.has_error else "",
        )

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
            self.definitions.append(Definition(name, kind, container, _declaration_line(node), _ts.end_line(node)))
            self.paths.append(path)
            nodes.append(node)
            if kind in ("class", "struct", "interface"):
                self.classes_by_id[node.id] = path
                self.classes_by_name.setdefault(name, node)
            elif kind == "method":
                self.methods.setdefault(container, []).append((node, len(self.definitions) - 1))
        self.def_ranges = Ranges(nodes)
        for node in captures.get("using", ()):
            target = [c for c in node.named_children if c.type != "comment" and c != node.child_by_field_name("name")]
            if target:
                self.imports.append(Import(self.text(target[-1]), _ts.line(node)))
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
