"""Go facts: definitions, imports and grpc-go evidence, from one tree-sitter parse.

Theory of operation: one query finds functions, methods (container: the receiver type, pointer or
not), type specs (struct, interface, other), the methods a named interface declares (container: the
interface), constants and import specs. References are ``queries/go/references.scm``'s, what each
binds made exact by :func:`_references`. When the bytes mention
``Server`` or ``Client``, the same traversal also captures what the gRPC pass reads: calls, struct
fields, parameters, ``var`` specs, assignments and keyed composite-literal elements.

Generated code is recognised by shape and arity: ``<ns>.Register<Svc>Server(s, impl)`` (two
arguments) is a SERVER, ``<ns>.New<Svc>Client(conn)`` (one argument, not a context) a CLIENT, which
keeps out the ``NewXClient(ctx, opts...)`` constructors of other libraries. Clients
(``<ns>.<Svc>Client`` values, never pointers; ``<ns>.<Svc>_<Method>Client`` is a method's stream, no
client) are followed by a flow-insensitive data flow run to a fixed point: a variable holds one when
assigned one (``:=``, ``=``, ``var``) or declared with that type, function scopes over package
scope, the latest assignment before a use winning; a struct field holds one when declared
``<ns>.<Svc>Client``, assigned one or set in a composite literal. A selector ``x.f`` is resolved
through the type of ``x`` when the file shows it (a receiver, parameter or variable of a struct type
declared here), else conservatively by field name. A call ``c.M(ctx, ...)`` of an exported method
with arguments on a client is a CALL of ``M``. Implementing types are structs embedding
``<ns>.Unimplemented<Svc>Server``/``Unsafe<Svc>Server`` and the types of the values passed to
``Register<Svc>Server`` (``&T{}``, ``T{}``, a local ``newT()`` declared returning ``*T``, a variable
holding one); each gets a SERVER fact per service it serves and one HANDLER per exported method with
that receiver shaped as the generated ``<Svc>Server`` interface shapes an RPC (the file rarely shows
which methods the service declares, but never one of another shape: ``M(ctx context.Context, req)
(resp, error)``, or ``error`` from a method whose last of one or two parameters is a stream
``<ns>.<Svc>_<M>Server`` / ``grpc.*StreamingServer[...]``; ``Close()``, ``Run() error`` are not
RPCs): a type serving a standard service too (``healthpb.RegisterHealthServer(s, srv)`` with the
main server) gives the methods that service declares (``Check``, ``Watch``) to it alone, the others
to the rest. ``reflection.Register(s)`` of grpc-go's reflection package is a SERVER of the runtime's
``ServerReflection``. Methods in other files of the package and structs embedding a server type are
the resolver's.
"""

from __future__ import annotations

import re
from typing import Final

import attrs
import tree_sitter

from .._facts import (
    SIGNATURE_CHARS_MAX,
    Definition,
    FileFacts,
    GrpcRole,
    Import,
    Reference,
    ReferenceKind,
    method_spelling,
    well_known_methods,
)
from . import _navigation, _ts
from ._common import Definitions, GrpcFacts, captures, query, strip_affixes, syntax_error, too_broken
from ._go_links import extract_links, link_constants

__all__ = ["extract"]

_LANGUAGE: Final = "go"

#: Definitions and imports (``queries/go/outline.scm``).
_OUTLINE: Final = _navigation.query_text(_LANGUAGE, "outline")

#: The outline plus what the gRPC pass reads (``queries/go/grpc.scm``), in one traversal of the tree.
_OUTLINE_AND_GRPC: Final = _OUTLINE + _navigation.query_text(_LANGUAGE, "grpc")

#: Bytes without any of these cannot hold grpc-go evidence.
_GRPC_HINTS: Final = (b"Server", b"Client")

_TYPE_KINDS: Final = {"struct_type": "struct", "interface_type": "interface"}

#: A lone argument that says ``New<X>Client(...)`` is not grpc-go's generated constructor.
_CONTEXTS: Final = frozenset({"ctx", "context.Background()", "context.TODO()"})

#: Expressions that can evaluate to a client (anything else is never followed).
_MAYBE_CLIENT: Final = frozenset({"identifier", "selector_expression", "call_expression", "parenthesized_expression"})

#: ``<Svc>_<Method>``: the generated stream of a method (``Echo_BidirectionalStreamingEchoClient``), no client.
_STREAM: Final = re.compile(r"_[A-Z]")

#: How deep an expression is followed through parentheses.
_DEPTH_MAX: Final = 16

#: Passes of the data flow (each pass lets a client travel one more assignment).
_PASSES_MAX: Final = 6

#: A client's service and namespace.
_Client = tuple[str, str]

#: grpc-go's reflection package, and its registration functions with the namespace each implies.
_REFLECTION_PACKAGE: Final = "google.golang.org/grpc/reflection"
_REFLECTION_REGISTERS: Final = {"Register": "reflection", "RegisterV1": "reflection.v1"}


def extract(source: bytes) -> FileFacts:
    """Definitions, imports and gRPC facts of a Go file (a bug raises; ``parse.extract`` records it as the file's error)."""
    root = _ts.parse(_LANGUAGE, source).root_node
    if too_broken(root):
        return FileFacts(language=_LANGUAGE, error=syntax_error(root))
    definitions = Definitions()  # signatures and doc lines: _details, once all are found
    imports: list[Import] = []
    grpc_hint = any(hint in source for hint in _GRPC_HINTS)
    found = captures(query(_LANGUAGE, _OUTLINE_AND_GRPC if grpc_hint else _OUTLINE), root)
    for node in found.get("def", ()):
        if node.type == "const_spec":
            parent = definitions.parent_of(node.start_byte)
            for name_node in _names(node):
                definitions.add(node, _ts.text(name_node, source), "constant", parent)
            continue
        name_node = node.child_by_field_name("name")
        if name_node is None:
            continue
        name = _ts.text(name_node, source)
        parent = definitions.parent_of(node.start_byte)
        if node.type == "method_elem":
            if parent >= 0 and _interface_of(node) == definitions.nodes[parent]:
                definitions.add(node, name, "method", parent)  # a named interface's: container the interface
            continue
        if node.type == "function_declaration":
            definitions.add(node, name, "function", parent)
        elif node.type == "method_declaration":
            receiver = _receiver(node)
            definitions.add(node, name, "method", parent, _ts.text(receiver[1], source) if receiver else "")
        elif node.type == "type_spec":
            kind = node.child_by_field_name("type")
            definitions.add(node, name, _TYPE_KINDS.get(kind.type, "type") if kind is not None else "type", parent)
        else:
            definitions.add(node, name, "type", parent)
    for index, node in enumerate(definitions.nodes):
        fact = definitions.facts[index]
        signature, doc = _details(node, source)
        definitions.facts[index] = Definition(
            fact.name, fact.kind, fact.container, fact.line, fact.end_line, signature, doc
        )
    for node in found.get("import", ()):
        _import(node, source, imports)
    grpc = ()
    if grpc_hint:
        grpc = _Grpc(source, definitions, imports).run(found.get("node", []))
    # HTTP routes and calls, messaging, and the constants naming them: mesh/index/parse/_go_links.py
    aliases = [(spec.module, "".join(spec.names)) for spec in imports]
    routes, calls, messages = extract_links(root, source, definitions, aliases)
    return FileFacts(
        language=_LANGUAGE,
        definitions=tuple(definitions.facts),
        imports=tuple(imports),
        grpc=grpc,
        http_routes=routes,
        http_calls=calls,
        messages=messages,
        constants=link_constants(definitions, source),
        references=_references(root, source, definitions),
        error=syntax_error(root),
    )


#: The keyword a spec's declaration starts with.
_SPEC_KEYWORDS: Final = {"type_spec": "type", "type_alias": "type", "const_spec": "const"}

#: A directive to the tool chain (``//go:generate ...``, ``//nolint:errcheck``), not documentation.
_DIRECTIVE: Final = re.compile(r"^[a-z0-9]+:\S")
_SPACES: Final = re.compile(r"\s+")


def _details(node: tree_sitter.Node, source: bytes) -> tuple[str, str]:
    """(signature, doc line) of a function, method or spec: a spec reads as a declaration of its own
    (``type Order[T any] struct``, ``const MaxSize = 10``), documented by the comment above it, or
    above its ``type``/``const`` keyword when it is that declaration's only spec, unparenthesised."""
    keyword = _SPEC_KEYWORDS.get(node.type)
    if keyword is None:
        signature, doc = _navigation.details(_LANGUAGE, node, source)
    else:
        body = node.child_by_field_name("type")
        if body is not None and body.type in ("struct_type", "interface_type"):
            brace = next((child for child in body.children if child.type in ("{", "field_declaration_list")), None)
            end = brace.start_byte if brace is not None else body.end_byte
            head = source[node.start_byte : end].decode("utf-8", "replace")
            signature = _one_line(f"{keyword} {head}")
        else:
            text = source[node.start_byte : min(node.end_byte, node.start_byte + 4 * SIGNATURE_CHARS_MAX)]
            signature = _one_line(f"{keyword} {text.decode('utf-8', 'replace')}")
        anchor = node
        declaration = node.parent
        if declaration is not None and declaration.named_child_count == 1 and declaration.child(1) == node:
            anchor = declaration  # ``type T struct``: the comment sits above ``type``
        doc = _navigation.doc_line(_LANGUAGE, anchor, source)
    return signature, "" if _DIRECTIVE.match(doc) else doc


def _interface_of(method: tree_sitter.Node) -> tree_sitter.Node | None:
    """The type spec of the interface declaring ``method`` (None: an interface without a name)."""
    interface = method.parent
    spec = interface.parent if interface is not None else None
    return spec if spec is not None and spec.type == "type_spec" else None


def _references(root: tree_sitter.Node, source: bytes, definitions: Definitions) -> tuple[Reference, ...]:
    """The file's references (``queries/go/references.scm``), with what each binds made exact.

    A struct field binds ``<receiver>.<field>`` (the receiver the file's methods of that struct
    name, when they all name it alike: ``s.store`` is how the field is read), else nothing. A name
    given two types in the file binds neither: bindings are compared per file at query time, and a
    receiver ``s`` of two types, or a parameter ``req`` of several, says nothing sure of its calls.
    """
    known = frozenset(d.name for d in definitions.facts if not d.container and d.kind in ("constant", "function"))
    found = _navigation.references(_LANGUAGE, root, source, known)
    if known:
        found = _unshadowed(found, _locals(root, source, known))
    if not any(reference.binds for reference in found):
        return found
    fields = _field_binds(definitions, source)
    rebound: list[Reference] = []
    types: dict[str, set[str]] = {}
    for reference in found:
        binds = reference.binds
        if binds:
            binds = fields.get((reference.line, binds), binds)
            binds = "" if binds == "_" else binds
            if binds:
                types.setdefault(binds, set()).add(reference.name)
            if binds != reference.binds:
                reference = attrs.evolve(reference, binds=binds)
        rebound.append(reference)
    out: list[Reference] = []
    for reference in rebound:
        if reference.binds and len(types[reference.binds]) > 1:
            reference = attrs.evolve(reference, binds="")
        if reference.kind == ReferenceKind.BIND and not reference.binds:
            continue  # an element's class (``for _, o := range orders``) is no use: nothing left to bind
        out.append(reference)
    return tuple(out)


#: Names a function declares for itself: parameters, results, ``:=``, ``var``, ``const``, ``range``.
_LOCALS: Final = """
(parameter_declaration name: (identifier) @local)
(variadic_parameter_declaration name: (identifier) @local)
(short_var_declaration left: (expression_list (identifier) @local))
(range_clause left: (expression_list (identifier) @local))
(var_spec name: (identifier) @local)
(const_spec name: (identifier) @local)
"""
_FUNCTIONS: Final = frozenset({"function_declaration", "method_declaration", "func_literal"})


def _locals(root: tree_sitter.Node, source: bytes, known: frozenset[str]) -> dict[str, list[tuple[int, int]]]:
    """name -> the line spans of the functions that declare a local of a top-level name of the file
    (a parameter ``discount`` shadows the function ``discount`` in its function)."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for node in captures(query(_LANGUAGE, _LOCALS), root).get("local", ()):
        name = _ts.text(node, source)
        if name not in known:
            continue
        scope = node.parent
        while scope is not None and scope.type not in _FUNCTIONS:
            scope = scope.parent
        if scope is not None:  # a top-level var or const is the definition itself
            spans.setdefault(name, []).append((_ts.line(scope), _ts.end_line(scope)))
    return spans


def _unshadowed(found: tuple[Reference, ...], shadowed: dict[str, list[tuple[int, int]]]) -> tuple[Reference, ...]:
    """``found`` without the bare uses of a lower-case name inside a function declaring it locally."""
    if not shadowed:
        return found
    return tuple(
        reference for reference in found
        if not (reference.kind == "use" and not reference.qualifier and reference.name in shadowed
                and any(start <= reference.line <= end for start, end in shadowed[reference.name]))
    )  # fmt: skip


def _field_binds(definitions: Definitions, source: bytes) -> dict[tuple[int, str], str]:
    """(line, field) -> what a field of a struct declared in the file binds: ``<receiver>.<field>``,
    or "" when the file's methods of the struct name no receiver or name it two ways."""
    receivers: dict[str, set[str]] = {}
    structs: list[tuple[str, tree_sitter.Node]] = []
    for index, node in enumerate(definitions.nodes):
        if node.type == "method_declaration":
            receiver = _receiver(node)
            if receiver is not None:
                name = _ts.text(receiver[0], source) if receiver[0] is not None else ""
                receivers.setdefault(_ts.text(receiver[1], source), set()).add(name)
        elif node.type == "type_spec" and definitions.kinds[index] == "struct":
            structs.append((definitions.facts[index].name, node))
    out: dict[tuple[int, str], str] = {}
    for struct, node in structs:
        named = receivers.get(struct, set())
        receiver = next(iter(named)) if len(named) == 1 else ""
        body = node.child_by_field_name("type")
        fields = next((child for child in body.named_children if child.type == "field_declaration_list"), None)
        for declaration in fields.named_children if fields is not None else ():
            if declaration.type != "field_declaration":
                continue
            for name in _names(declaration):
                field = _ts.text(name, source)
                usable = receiver and receiver != "_"
                out[(name.start_point[0] + 1, field)] = f"{receiver}.{field}" if usable else ""
    return out


def _one_line(text: str) -> str:
    text = _SPACES.sub(" ", text).strip()
    return text if len(text) <= SIGNATURE_CHARS_MAX else text[: SIGNATURE_CHARS_MAX - 1].rstrip() + "…"


def _import(node: tree_sitter.Node, source: bytes, imports: list[Import]) -> None:
    path = _ts.text(node.child_by_field_name("path"), source)
    if len(path) >= 2 and path[0] in '"`' and path[-1] == path[0]:
        path = path[1:-1]
    if not path:
        return
    alias = node.child_by_field_name("name")
    names = (_ts.text(alias, source),) if alias is not None else ()
    imports.append(Import(path, node.start_point[0] + 1, names))


def _named_type(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The ``type_identifier`` of ``T``, ``*T``, ``T[X]`` or ``*T[X]`` (None for anything else)."""
    if node is not None and node.type == "pointer_type":
        node = node.named_child(0)
    if node is not None and node.type == "generic_type":
        node = node.child_by_field_name("type")
    return node if node is not None and node.type == "type_identifier" else None


def _receiver(method: tree_sitter.Node) -> tuple[tree_sitter.Node | None, tree_sitter.Node] | None:
    """(receiver name, receiver type identifier) of a method declaration."""
    receivers = method.child_by_field_name("receiver")
    if receivers is None:
        return None
    for declaration in receivers.named_children:
        if declaration.type == "parameter_declaration":
            named = _named_type(declaration.child_by_field_name("type"))
            if named is not None:
                return declaration.child_by_field_name("name"), named
    return None


def _names(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The ``name`` children of a declaration (the grammar files the commas between them there too)."""
    return [name for name in node.children_by_field_name("name") if name.is_named]


def _arguments(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The arguments of a call expression, comments left out."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return []
    return [argument for argument in arguments.named_children if argument.type != "comment"]


class _Grpc:
    """The gRPC pass over one file (see the module docstring)."""

    def __init__(self, source: bytes, definitions: Definitions, imports: list[Import] = ()) -> None:
        self.source = source
        self.defs = definitions
        self.facts = GrpcFacts(definitions)
        #: the local names of grpc-go's reflection package (``reflection.Register(s)``)
        self.reflection = {
            (i.names[0] if i.names else "reflection") for i in imports if i.module == _REFLECTION_PACKAGE
        }
        #: type name -> definition index (structs and other types declared in the file)
        self.types: dict[str, int] = {}
        #: receiver type -> method definition indices
        self.methods: dict[str, list[int]] = {}
        #: function name -> (type it returns, client it returns)
        self.functions: dict[str, tuple[str, _Client | None]] = {}
        #: struct -> names of its declared fields
        self.declared: dict[str, set[str]] = {}
        #: (struct, field) -> client; ("", field) when the struct is not known
        self.fields: dict[tuple[str, str], _Client] = {}
        #: (scope, name) -> [(offset, client or None)] in source order; scope -1 is the package
        self.vars: dict[tuple[int, str], list[tuple[int, _Client | None]]] = {}
        #: (scope, name) -> the struct type a variable holds (receivers, parameters, variables)
        self.var_types: dict[tuple[int, str], str] = {}
        #: implementing type -> the (service, namespace) it serves, in the order found
        self.servers: dict[str, list[_Client]] = {}
        #: whether the file calls ``<ns>.New<Svc>Client``
        self.generated_clients = False
        #: (value passed as the implementation, service, namespace) of each registration
        self.registered: list[tuple[tree_sitter.Node, str, str]] = []
        for index, fact in enumerate(definitions.facts):
            node = definitions.nodes[index]
            if node.type == "type_spec":
                self.types.setdefault(fact.name, index)
            elif node.type == "method_declaration":
                self.methods.setdefault(fact.container, []).append(index)
            elif node.type == "function_declaration" and fact.container == "":
                result = node.child_by_field_name("result")
                named = _named_type(result)
                self.functions[fact.name] = (self.text(named) if named is not None else "", self.client_type(result))

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.source)

    def run(self, nodes: list[tree_sitter.Node]) -> tuple:
        generated: list[tuple[tree_sitter.Node, tree_sitter.Node, tree_sitter.Node]] = []
        params: list[tree_sitter.Node] = []
        bindings: list[tree_sitter.Node] = []
        keyed: list[tuple[tree_sitter.Node, tree_sitter.Node, tree_sitter.Node]] = []
        calls: list[tuple[tree_sitter.Node, tree_sitter.Node, tree_sitter.Node]] = []
        for node in nodes:
            kind = node.type
            if kind == "call_expression":
                function = node.child_by_field_name("function")
                if function is None or function.type != "selector_expression":
                    continue
                operand = function.child_by_field_name("operand")
                field = function.child_by_field_name("field")
                name = self.text(field)
                if not name[:1].isupper() or operand is None or field is None:
                    continue
                if operand.type == "identifier" and name.startswith(("Register", "New")):
                    generated.append((node, operand, field))
                calls.append((node, operand, field))
            elif kind == "field_declaration":
                self.field(node)
            elif kind == "parameter_declaration":
                params.append(node)
            elif kind == "keyed_element":
                key = node.child_by_field_name("key")
                value = node.child_by_field_name("value")
                if key is not None and value is not None and key.named_child_count and value.named_child_count:
                    key, value = key.named_child(0), value.named_child(0)
                    if key.type == "identifier":
                        keyed.append((node, key, value))
            else:
                bindings.append(node)
        for call, namespace, name in generated:
            self.generated(call, namespace, name)
        if not self.flow(params, bindings, keyed):
            calls = []
        for value, service, namespace in self.registered:
            implementation = self.type_of(value)
            if implementation:
                self.serve(implementation, service, namespace)
        for call, obj, method in calls:
            if not _arguments(call):
                continue
            client = self.client_of(obj)
            if client is not None:
                self.facts.add(GrpcRole.CALL, client[0], self.text(method), method, client[1])
        for type_name, services in self.servers.items():
            index = self.types.get(type_name)
            if index is None:
                continue
            standard = {service: well_known_methods(service) for service, _ in services}
            for service, namespace in services:
                self.facts.add(GrpcRole.SERVER, service, "", self.defs.nodes[index], namespace)
            for method in self.methods.get(type_name, ()):
                name = self.defs.facts[method].name
                if not name[:1].isupper() or not self.rpc_shaped(self.defs.nodes[method]):
                    continue
                # a type serving a standard service too (health on the main server) gives it its methods
                spelling = method_spelling(name)
                owners = [item for item in services if spelling in standard[item[0]]]
                if not owners and len(services) > 1:
                    owners = [item for item in services if not standard[item[0]]]
                for service, namespace in owners or services:
                    self.facts.add(GrpcRole.HANDLER, service, name, self.defs.nodes[method], namespace)
        return self.facts.done()

    def serve(self, type_name: str, service: str, namespace: str) -> None:
        services = self.servers.setdefault(type_name, [])
        if all(known != service for known, _ in services):
            services.append((service, namespace))

    # -- declarations ----------------------------------------------------------------------------

    def client_type(self, node: tree_sitter.Node | None) -> _Client | None:
        """(service, namespace) when ``node`` is the type ``<ns>.<Svc>Client``."""
        if node is None or node.type != "qualified_type":
            return None
        service = strip_affixes(self.text(node.child_by_field_name("name")), "", "Client")
        if not service or _STREAM.search(service):
            return None
        return service, self.text(node.child_by_field_name("package"))

    def rpc_shaped(self, method: tree_sitter.Node) -> bool:
        """Whether a method has a shape grpc-go's generated ``<Svc>Server`` interface gives its methods:
        ``M(ctx context.Context, req *Req) (*Resp, error)``, or ``error`` from a stream's handler whose
        last parameter is a stream (``pb.Svc_MServer``, ``grpc.BidiStreamingServer[Req, Resp]``)."""
        parameters = method.child_by_field_name("parameters")
        kinds: list[tree_sitter.Node | None] = []
        for declaration in parameters.named_children if parameters is not None else ():
            if declaration.type != "parameter_declaration":
                return False  # variadic (or junk)
            kinds += [declaration.child_by_field_name("type")] * max(1, len(_names(declaration)))
        result = method.child_by_field_name("result")
        if result is not None and result.type == "parameter_list":
            results = [declaration.child_by_field_name("type") for declaration in result.named_children]
        else:
            results = [result] if result is not None else []
        if not results or self.type_name(results[-1]) != "error" or not 1 <= len(kinds) <= 2:
            return False
        if len(results) == 2:
            return len(kinds) == 2 and self.type_name(kinds[0]) == "Context"
        return len(results) == 1 and self.type_name(kinds[-1]).endswith("Server")

    def type_name(self, node: tree_sitter.Node | None) -> str:
        """The name of a type as written, without its package, pointer or type arguments."""
        if node is not None and node.type == "pointer_type":
            node = node.named_child(0)
        if node is not None and node.type == "generic_type":
            node = node.child_by_field_name("type")
        if node is not None and node.type == "qualified_type":
            node = node.child_by_field_name("name")
        return self.text(node) if node is not None and node.type == "type_identifier" else ""

    def field(self, declaration: tree_sitter.Node) -> None:
        struct = self.struct_of(declaration)
        kind = declaration.child_by_field_name("type")
        names = _names(declaration)
        if not names:
            if kind is not None and kind.type == "qualified_type":
                name = self.text(kind.child_by_field_name("name"))
                service = strip_affixes(name, "Unimplemented", "Server") or strip_affixes(name, "Unsafe", "Server")
                if service and struct:
                    self.serve(struct, service, self.text(kind.child_by_field_name("package")))
            return
        client = self.client_type(kind)
        for name in names:
            field = self.text(name)
            self.declared.setdefault(struct, set()).add(field)
            if client is not None:
                self.fields.setdefault((struct, field), client)
                self.fields.setdefault(("", field), client)

    def struct_of(self, declaration: tree_sitter.Node) -> str:
        """The name of the type spec whose struct declares this field ("" for an anonymous struct)."""
        body = declaration.parent
        struct = body.parent if body is not None else None
        spec = struct.parent if struct is not None else None
        if spec is not None and spec.type == "type_spec":
            return self.text(spec.child_by_field_name("name"))
        return ""

    def generated(self, call: tree_sitter.Node, namespace: tree_sitter.Node, name: tree_sitter.Node) -> None:
        """CLIENT for ``<ns>.New<Svc>Client(conn)``, SERVER for ``<ns>.Register<Svc>Server(s, impl)``.

        The generated functions take exactly one and two arguments; counting them keeps out the
        many ``NewXClient(ctx, opts...)`` constructors of other libraries.
        """
        function = self.text(name)
        ns = self.text(namespace)
        arguments = _arguments(call)
        if ns in self.reflection and function in _REFLECTION_REGISTERS and len(arguments) == 1:
            # the runtime's reflection service, registered by its library
            self.facts.add(GrpcRole.SERVER, "ServerReflection", "", name, _REFLECTION_REGISTERS[function])
            return
        service = strip_affixes(function, "New", "Client")
        if service and len(arguments) == 1 and self.text(arguments[0]) not in _CONTEXTS:
            self.facts.add(GrpcRole.CLIENT, service, "", name, ns)
            self.generated_clients = True
            return
        service = strip_affixes(function, "Register", "Server")
        if service and len(arguments) == 2:
            self.facts.add(GrpcRole.SERVER, service, "", name, ns)
            self.registered.append((arguments[1], service, ns))

    # -- data flow -----------------------------------------------------------------------------

    def function_of(self, offset: int) -> int:
        """The innermost function or method holding ``offset`` (-1: package level)."""
        index = self.defs.enclosing(offset)
        while index >= 0 and self.defs.kinds[index] not in ("function", "method"):
            index = self.defs.parents[index]
        return index

    def flow(
        self,
        params: list[tree_sitter.Node],
        bindings: list[tree_sitter.Node],
        keyed: list[tuple[tree_sitter.Node, tree_sitter.Node, tree_sitter.Node]],
    ) -> bool:
        """Bind clients to variables and fields; False when the file holds no client at all."""
        fixed: list[tuple[tuple[int, str], int, _Client | None]] = []
        for declaration in params:
            scope = self.function_of(declaration.start_byte)
            kind = declaration.child_by_field_name("type")
            client = self.client_type(kind)
            named = _named_type(kind)
            for name in _names(declaration):
                key = (scope, self.text(name))
                fixed.append((key, name.start_byte, client))
                if named is not None:
                    self.var_types[key] = self.text(named)
        #: (variable key or None, field name, left, right worth evaluating)
        dynamic: list[tuple[tuple[int, str] | None, str, tree_sitter.Node, tree_sitter.Node]] = []
        for binding in bindings:
            for left, right, kind in self.pairs(binding):
                key = None
                if left.type == "identifier":
                    key = (self.function_of(left.start_byte), self.text(left))
                    struct = self.type_of(right) if right is not None else ""
                    if struct:
                        self.var_types.setdefault(key, struct)
                elif left.type != "selector_expression":
                    continue
                static = self.client_type(kind)
                if static is None and right is not None and right.type in _MAYBE_CLIENT:
                    dynamic.append(
                        (key, self.text(left.child_by_field_name("field")) if key is None else "", left, right)
                    )
                elif key is not None:
                    fixed.append((key, left.start_byte, static))
        sources = self.fields or self.generated_clients or any(client for _, _, client in fixed)
        sources = sources or any(client for _, client in self.functions.values())
        self.vars = {}
        for key, offset, client in fixed:
            self.vars.setdefault(key, []).append((offset, client))
        if not sources:
            return False
        declared = dict(self.fields)
        base = {key: sorted(records) for key, records in self.vars.items()}
        previous: list[_Client | None] | None = None
        for _ in range(_PASSES_MAX):
            values = [self.client_of(right) for _, _, _, right in dynamic]
            values += [self.client_of(value) for _, _, value in keyed]
            if values == previous:
                break
            previous = values
            variables = {key: list(records) for key, records in base.items()}
            fields = dict(declared)
            for (key, field, left, _), client in zip(dynamic, values, strict=False):
                if key is not None:
                    variables.setdefault(key, []).append((left.start_byte, client))
                elif client is not None:
                    struct = self.type_of(left.child_by_field_name("operand"))
                    fields.setdefault((struct, field), client)
                    fields.setdefault(("", field), client)
            for (element, key, _), client in zip(keyed, values[len(dynamic) :], strict=True):
                if client is not None:
                    fields.setdefault((self.literal_type(element), self.text(key)), client)
                    fields.setdefault(("", self.text(key)), client)
            for records in variables.values():
                records.sort(key=lambda record: record[0])
            self.vars, self.fields = variables, fields
        return True

    def pairs(
        self, binding: tree_sitter.Node
    ) -> list[tuple[tree_sitter.Node, tree_sitter.Node | None, tree_sitter.Node | None]]:
        """(left, right, declared type) for each name a var spec or assignment binds."""
        if binding.type == "var_spec":
            lefts = _names(binding)
            values = binding.child_by_field_name("value")
            kind = binding.child_by_field_name("type")
        else:
            if binding.type == "assignment_statement" and self.text(binding.child_by_field_name("operator")) != "=":
                return []
            left = binding.child_by_field_name("left")
            lefts = left.named_children if left is not None else []
            values = binding.child_by_field_name("right")
            kind = None
        rights = values.named_children if values is not None else []
        if len(rights) != len(lefts):
            rights = []
        return [(left, rights[index] if rights else None, kind) for index, left in enumerate(lefts)]

    def literal_type(self, element: tree_sitter.Node) -> str:
        """The struct type of the composite literal holding a keyed element ("" if unnamed)."""
        body = element.parent
        literal = body.parent if body is not None else None
        if literal is None or literal.type != "composite_literal":
            return ""
        named = _named_type(literal.child_by_field_name("type"))
        return self.text(named) if named is not None else ""

    def type_of(self, node: tree_sitter.Node | None, depth: int = 0) -> str:
        """The struct type declared in this file that ``node`` evaluates to ("" when unknown)."""
        while node is not None and node.type in ("parenthesized_expression", "unary_expression") and depth < _DEPTH_MAX:
            node = (
                node.named_child(0) if node.type == "parenthesized_expression" else node.child_by_field_name("operand")
            )
            depth += 1
        if node is None:
            return ""
        if node.type == "composite_literal":
            named = _named_type(node.child_by_field_name("type"))
            return self.text(named) if named is not None else ""
        if node.type == "call_expression":
            function = node.child_by_field_name("function")
            if function is not None and function.type == "identifier":
                return self.functions.get(self.text(function), ("", None))[0]
            return ""
        if node.type == "identifier":
            name = self.text(node)
            scope = self.function_of(node.start_byte)
            if scope >= 0 and self.defs.kinds[scope] == "method":
                receiver = _receiver(self.defs.nodes[scope])
                if receiver is not None and receiver[0] is not None and self.text(receiver[0]) == name:
                    return self.text(receiver[1])
            return self.var_types.get((scope, name)) or self.var_types.get((-1, name), "")
        return ""

    def lookup(self, name: str, offset: int) -> _Client | None:
        scope = self.function_of(offset)
        records = self.vars.get((scope, name))
        if records:
            before = [client for start, client in records if start < offset]
            if before:
                return before[-1]
            return next((client for _, client in records if client is not None), None)
        if scope >= 0:
            records = self.vars.get((-1, name))
            if records:
                return next((client for _, client in reversed(records) if client is not None), None)
        return None

    def client_of(self, node: tree_sitter.Node | None, depth: int = 0) -> _Client | None:
        """The client the expression ``node`` evaluates to, if the file shows it is one."""
        while node is not None and node.type == "parenthesized_expression" and depth < _DEPTH_MAX:
            node = node.named_child(0)
            depth += 1
        if node is None:
            return None
        if node.type == "identifier":
            return self.lookup(self.text(node), node.start_byte)
        if node.type == "call_expression":
            function = node.child_by_field_name("function")
            if function is None:
                return None
            if function.type == "selector_expression":
                operand = function.child_by_field_name("operand")
                service = strip_affixes(self.text(function.child_by_field_name("field")), "New", "Client")
                if service and operand is not None and operand.type == "identifier" and len(_arguments(node)) == 1:
                    return service, self.text(operand)
            elif function.type == "identifier":
                return self.functions.get(self.text(function), ("", None))[1]
            return None
        if node.type == "selector_expression":
            field = self.text(node.child_by_field_name("field"))
            struct = self.type_of(node.child_by_field_name("operand"))
            if struct and struct in self.types:
                client = self.fields.get((struct, field))
                if client is not None or field in self.declared.get(struct, ()):
                    return client
            return self.fields.get(("", field))
        return None
