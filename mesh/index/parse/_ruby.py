"""Ruby: modules, classes and methods, ``require``/``require_relative``/``load``, and grpc gem evidence
(HTTP routes, calls, messages and link constants: :mod:`._ruby_links`).

Theory of operation: definitions and ``require`` calls are statements, so :class:`_Statements` walks
statement lists only (the program, class/module/method bodies, and the statements nested in
``begin``/``if``/``rescue``/``do ... end`` blocks) with an explicit stack, never entering an
expression. A ``def`` is a method when the nearest enclosing scope is a class, a module or
``class << self``, and a function otherwise; ``def self.x`` is always a method. Containers are dotted
(``class A::B::C`` inside ``module M`` is ``C`` in ``M.A.B``); ``NAME = ...`` is a constant. Each
definition gets its signature and the first line of the ``#`` comments above it (above ``private`` of
``private def x``); references come from ``queries/ruby/references.scm`` (:mod:`._navigation`).

gRPC: a class whose superclass is ``<Ns>::<Svc>::Service`` is a SERVER with a HANDLER per public
instance method (``private``/``protected`` sections, ``private def`` and ``private :name`` followed;
``initialize`` excluded); ``server.handle(X)`` / ``server.handle(X.new)`` of such a class in the file is
another SERVER. Stubs start at each ``<Ns>::<Svc>::Stub.new(...)`` (found with ``bytes.find`` on
``Stub``, then looked up in the tree) and are followed as a worklist: :meth:`_Grpc.flow` climbs from an
expression holding a stub; a method called on it is a CALL; assigning it makes a local (scoped to its
``def``), an ``@ivar`` (scoped to its class), or a constant (the file) hold the stub; passing it to a
``def`` of the file makes the matching parameter hold it; and a ``def`` whose last expression it is
(``def stub; @stub ||= ...; end``) becomes an accessor. The occurrences of
each such name are looked up in turn.
"""

from __future__ import annotations

import re
from typing import Final

import tree_sitter

from .._facts import (
    SIGNATURE_CHARS_MAX,
    Definition,
    FileFacts,
    GrpcFact,
    GrpcRole,
    Import,
    Reference,
    ReferenceKind,
)
from . import _navigation, _ruby_links, _ts
from . import _shared_rrp as rrp
from ._common import too_broken

__all__ = ["extract"]

_LANG: Final = "ruby"

_IMPORTS: Final = frozenset({"require", "require_relative", "load"})
#: Calls in a class body that define reader methods (``attr_reader :status`` defines ``status``; a
#: writer ``status=`` is never called by name, so ``attr_writer`` defines nothing navigation reads).
_READERS: Final = frozenset({"attr_reader", "attr_accessor"})
#: statement containers walked through without changing the scope
_TRANSPARENT: Final = frozenset(
    {
        "body_statement",
        "begin",
        "rescue",
        "else",
        "ensure",
        "if",
        "unless",
        "elsif",
        "then",
        "if_modifier",
        "unless_modifier",
        "while",
        "until",
        "while_modifier",
        "until_modifier",
        "rescue_modifier",
        "case",
        "when",
        "for",
        "do",
        "do_block",
        "block",
        "block_body",
        "parenthesized_statements",
        "begin_block",
        "end_block",
        "argument_list",
        "ERROR",
    }
)
#: References are read of trees nesting at most this deep (real code: under 40 levels).
REFERENCE_DEPTH_MAX: Final = 128
_ROLE_ORDER: Final = {GrpcRole.SERVER: 0, GrpcRole.HANDLER: 1, GrpcRole.CLIENT: 2, GrpcRole.CALL: 3}
#: methods that hand the stub itself back
_PASS_THROUGH: Final = frozenset({"dup", "clone", "freeze", "itself"})
#: methods every object has: never an RPC
_OBJECT_METHODS: Final = frozenset(
    {
        "nil?",
        "is_a?",
        "kind_of?",
        "instance_of?",
        "respond_to?",
        "class",
        "inspect",
        "to_s",
        "frozen?",
        "send",
        "public_send",
        "method",
        "methods",
        "object_id",
        "hash",
        "instance_variable_get",
        "instance_variable_set",
        "==",
        "!=",
        "equal?",
        "eql?",
    }
)
#: where a local variable lives until
_LOCAL_SCOPES: Final = ("method", "singleton_method", "class", "module", "program")
#: where an instance variable or a ``def`` is visible
_CLASS_SCOPES: Final = ("class", "module", "program")


def extract(source: bytes) -> FileFacts:
    """Definitions, imports and grpc gem facts of one Ruby file."""
    tree = _ts.parse(_LANG, source)
    root = tree.root_node
    statements = _Statements(source, root)
    grpc: tuple[GrpcFact, ...] = ()
    if b"Stub" in source or b"Service" in source:
        grpc = _Grpc(source, root, statements).run()
    links = _ruby_links.extract(source, root, statements.methods, statements.spans)
    line = rrp.first_error_line(root)
    return FileFacts(
        language=_LANG,
        definitions=tuple(d for _, d in sorted(statements.definitions, key=lambda pair: pair[0])),
        imports=tuple(i for _, i in sorted(statements.imports, key=lambda pair: pair[0])),
        grpc=grpc,
        http_routes=links.routes,
        http_calls=links.calls,
        messages=links.messages,
        constants=links.constants,
        references=_references(source, root, statements.scoped_names),
        error=f"syntax error at line {line}" if line else "",
    )


def _references(
    source: bytes, root: tree_sitter.Node, scoped: frozenset[tuple[int, str, str]]
) -> tuple[Reference, ...]:
    """The references of ``queries/ruby/references.scm``, less the last part of a ``class A::B`` name
    (a query cannot tell that ``scope_resolution`` from a use); none of a tree too broken or too deep
    to query in linear time (its other facts are kept)."""
    if too_broken(root) or rrp.deeper_than(root, REFERENCE_DEPTH_MAX):
        return ()
    found = _navigation.references(_LANG, root, source, aliases=_constant_aliases(source, root))
    bare = [ref for ref in found if ref.kind == ReferenceKind.CALL and not ref.qualifier and ref.arity < 0]
    if bare:
        locals_at = _Locals(source, root)
        found = tuple(ref for ref in found if ref not in bare or not locals_at.holds(ref.line, ref.name))
    if not scoped:
        return found
    return tuple(
        ref for ref in found if ref.kind != ReferenceKind.USE or (ref.line, ref.name, ref.qualifier) not in scoped
    )


#: A constant set to another constant: ``Rules = Pricing`` makes ``Rules.shipping`` a call of Pricing's.
_ALIAS_QUERY: Final = "(assignment left: (constant) @alias right: [(constant) (scope_resolution)] @target)"


def _constant_aliases(source: bytes, root: tree_sitter.Node) -> dict[str, str]:
    """``alias -> constant`` of the file's ``Alias = Module`` assignments (an alias set twice, to
    two constants, says nothing sure and is left out)."""
    from ._common import matches, query

    found: dict[str, set[str]] = {}
    for _, captured in matches(query(_LANG, _ALIAS_QUERY), root):
        alias = _ts.text(captured["alias"][0], source)
        target = _ts.text(captured["target"][0], source).replace("::", ".").lstrip(".")
        if _MODULE_NAME.fullmatch(alias) and _MODULE_NAME.fullmatch(target.rsplit(".", 1)[-1]):
            found.setdefault(alias, set()).add(target)  # MAX = LIMIT is a value, not another name for one
    return {alias: next(iter(targets)) for alias, targets in found.items() if len(targets) == 1}


#: A class's or module's name (``Pricing``), not a constant's (``MAX_ITEMS``).
_MODULE_NAME: Final = re.compile(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*")


#: What declares a local variable of the method around it (or of the file's top level).
_LOCALS_QUERY: Final = """
[(method) (singleton_method)] @scope
(assignment left: (identifier) @local)
(operator_assignment left: (identifier) @local)
(left_assignment_list (identifier) @local)
(rest_assignment (identifier) @local)
(destructured_left_assignment (identifier) @local)
(method_parameters (identifier) @local)
(lambda_parameters (identifier) @local)
(block_parameters (identifier) @local)
(destructured_parameter (identifier) @local)
(optional_parameter name: (identifier) @local)
(keyword_parameter name: (identifier) @local)
(splat_parameter name: (identifier) @local)
(hash_splat_parameter name: (identifier) @local)
(block_parameter name: (identifier) @local)
(for pattern: (identifier) @local)
(exception_variable (identifier) @local)
"""


class _Locals:
    """The local variables of each method of a file (Ruby's locals are the method's, blocks
    included) and of its top level: a bare ``total`` read where one of them is named ``total`` is
    that local, else a call of the method."""

    def __init__(self, source: bytes, root: tree_sitter.Node) -> None:
        scopes: list[tuple[int, int]] = []
        names: list[tuple[int, str]] = []
        for _, captured in _common_matches(root):
            if "scope" in captured:
                node = captured["scope"][0]
                scopes.append((node.start_point[0] + 1, node.end_point[0] + 1))
            elif "local" in captured:
                node = captured["local"][0]
                names.append((node.start_point[0] + 1, _ts.text(node, source)))
        self._scopes = sorted(scopes)
        self._by_scope: dict[tuple[int, int] | None, set[str]] = {}
        for line, name in names:
            self._by_scope.setdefault(self._innermost(line), set()).add(name)

    def _innermost(self, line: int) -> tuple[int, int] | None:
        found = None
        for start, end in self._scopes:
            if start > line:
                break
            if end >= line and (found is None or start >= found[0]):
                found = (start, end)
        return found

    def holds(self, line: int, name: str) -> bool:
        return name in self._by_scope.get(self._innermost(line), ())


def _common_matches(root: tree_sitter.Node):  # noqa: ANN202 - the engine's own iterator
    from ._common import matches, query

    return matches(query(_LANG, _LOCALS_QUERY), root)


def _signature(node: tree_sitter.Node, source: bytes) -> str:
    """The declaration up to its body; the comments before the first statement of a class, module or
    method (or in an empty one) are children of the declaration, ahead of its body, and end it."""
    body = node.child_by_field_name("body")
    comment = next((c for c in node.children if c.type == "comment"), None)
    if comment is None or (body is not None and comment.start_byte > body.start_byte):
        return _navigation.signature(node, source)
    text = " ".join(source[node.start_byte : comment.start_byte].decode("utf-8", "replace").split())
    return text if len(text) <= SIGNATURE_CHARS_MAX else text[: SIGNATURE_CHARS_MAX - 1].rstrip() + "…"


def _join(container: str, name: str) -> str:
    return f"{container}.{name}" if container and name else container or name


def _constant_path(node: tree_sitter.Node | None, source: bytes) -> list[str]:
    """``::Acme::Orders`` -> ``["Acme", "Orders"]``."""
    return [part for part in "".join(_ts.text(node, source).split()).split("::") if part]


class _Statements:
    """Definitions and imports, found by walking statement lists only."""

    def __init__(self, source: bytes, root: tree_sitter.Node) -> None:
        self.source = source
        self.definitions: list[tuple[int, Definition]] = []
        self.imports: list[tuple[int, Import]] = []
        #: (line, name, qualifier) of the last part of every ``class A::B`` / ``module A::B`` name
        self.scoped_names: frozenset[tuple[int, str, str]] = frozenset()
        scoped: set[tuple[int, str, str]] = set()
        #: (start, end, dotted name) of every definition
        self.spans: list[tuple[int, int, str]] = []
        #: (class node, dotted name, superclass node) of every class with a superclass
        self.classes: list[tuple[tree_sitter.Node, str, tree_sitter.Node]] = []
        #: method name -> the ``def`` nodes of that name
        self.methods: dict[str, list[tree_sitter.Node]] = {}
        #: (statement list, container path, whether the nearest scope is a class or module)
        stack: list[tuple[tree_sitter.Node, str, bool]] = [(root, "", False)]
        while stack:
            body, container, in_class = stack.pop()
            for child in body.named_children:
                kind = child.type
                if kind in ("class", "module"):
                    written = child.child_by_field_name("name")
                    path = _constant_path(written, source)
                    if not path:
                        continue
                    if written is not None and written.type == "scope_resolution" and len(path) > 1:
                        scoped.add((_ts.line(written), path[-1], ".".join(path[:-1])))
                    outer = _join(container, ".".join(path[:-1]))
                    dotted = self.define(child, path[-1], kind, outer)
                    superclass = child.child_by_field_name("superclass")
                    if superclass is not None:
                        self.classes.append((child, dotted, superclass))
                    self.push(stack, child, dotted, True)
                elif kind == "method" or kind == "singleton_method":
                    name = child.child_by_field_name("name")
                    if name is None:
                        continue
                    method = "method" if in_class or kind == "singleton_method" else "function"
                    text = _ts.text(name, source)
                    self.methods.setdefault(text, []).append(child)
                    dotted = self.define(child, text, method, container)
                    self.push(stack, child, dotted, False)
                elif kind == "singleton_class":
                    self.push(stack, child, container, True)
                elif kind == "call":
                    if child.child_by_field_name("receiver") is None:
                        self.require(child, source)
                        if in_class:
                            self.readers(child, source, container)
                    arguments = child.child_by_field_name("arguments")
                    if arguments is not None:
                        stack.append((arguments, container, in_class))
                    block = child.child_by_field_name("block")
                    if block is not None:
                        stack.append((block, container, in_class))
                elif kind in ("assignment", "operator_assignment"):
                    left = child.child_by_field_name("left")
                    if left is not None and left.type == "constant":
                        self.define(child, _ts.text(left, source), "constant", container, span=False)
                    value = child.child_by_field_name("right")
                    block = value.child_by_field_name("block") if value is not None and value.type == "call" else None
                    if block is not None:
                        stack.append((block, container, in_class))
                elif kind in _TRANSPARENT:
                    stack.append((child, container, in_class))
        self.scoped_names = frozenset(scoped)

    def define(self, node: tree_sitter.Node, name: str, kind: str, container: str, *, span: bool = True) -> str:
        signature = _signature(node, self.source)
        documented = node
        parent = node.parent
        if parent is not None and parent.type == "argument_list" and parent.parent is not None:
            documented = parent.parent  # ``private def x``: the comment sits above the call
        doc = _navigation.doc_line(_LANG, documented, self.source)
        line = _ts.line(node)
        self.definitions.append(
            (node.start_byte, Definition(name, kind, container, line, _ts.end_line(node), signature, doc))
        )
        dotted = _join(container, name)
        if span:
            self.spans.append((node.start_byte, node.end_byte, dotted))
        return dotted

    @staticmethod
    def push(stack: list[tuple[tree_sitter.Node, str, bool]], node: tree_sitter.Node, dotted: str, scope: bool) -> None:
        body = node.child_by_field_name("body")
        if body is not None and body.type == "body_statement":
            stack.append((body, dotted, scope))

    def readers(self, call: tree_sitter.Node, source: bytes, container: str) -> None:
        """A method for each symbol of ``attr_reader :number, :status`` / ``attr_accessor :x``."""
        method = call.child_by_field_name("method")
        arguments = call.child_by_field_name("arguments")
        if method is None or arguments is None or _ts.text(method, source) not in _READERS:
            return
        for argument in arguments.named_children:
            name = _ts.text(argument, source)[1:] if argument.type == "simple_symbol" else ""
            if name:
                self.define(call, name, "method", container, span=False)

    def require(self, call: tree_sitter.Node, source: bytes) -> None:
        """An Import for ``require "x"`` / ``require_relative "x"`` / ``load "x"`` with a plain string."""
        method = call.child_by_field_name("method")
        if method is None or _ts.text(method, source) not in _IMPORTS:
            return
        arguments = call.child_by_field_name("arguments")
        first = arguments.named_children[0] if arguments is not None and arguments.named_child_count else None
        if first is None or first.type != "string":
            return
        parts = first.named_children
        if len(parts) == 1 and parts[0].type == "string_content":
            self.imports.append((call.start_byte, Import(_ts.text(parts[0], source), _ts.line(call))))


class _Grpc:
    """The grpc facts of one file, found from the places ``Stub``/``handle`` and followed names occur."""

    def __init__(self, source: bytes, root: tree_sitter.Node, statements: _Statements) -> None:
        self.source = source
        self.root = root
        self.classes = statements.classes
        self.methods = statements.methods
        self.symbols = rrp.Symbols(statements.spans)
        #: (start byte of the node a fact is about, role order) -> the fact: one fact per site and role
        self.facts: dict[tuple[int, int], GrpcFact] = {}
        #: (kind, name, from, until) -> the stub held; kind is local, ivar, constant or accessor
        self.holders: dict[tuple[str, str, int, int], tuple[str, str]] = {}
        #: local name -> [(visible from, visible until, stub or None once reassigned to something else)]
        self.locals: dict[str, list[tuple[int, int, tuple[str, str] | None]]] = {}
        self.pending: list[tuple[str, str, int, int]] = []

    def run(self) -> tuple[GrpcFact, ...]:
        """Every gRPC fact of the file, in source order."""
        services: dict[str, tuple[str, str]] = {}
        for node, dotted, superclass in self.classes:
            base = _constant_path(superclass.named_children[0] if superclass.named_child_count else None, self.source)
            if len(base) >= 2 and base[-1] == "Service":
                service = (base[-2], "::".join(base[:-2]))
                services[dotted.rsplit(".", 1)[-1]] = service
                self.server(node, service)
        if b"Stub" in self.source:
            for start, end in rrp.find_words(self.source, b"Stub"):
                self.stub(start, end)
        if services and b"handle" in self.source:
            for start, end in rrp.find_words(self.source, b"handle"):
                self.handle(start, end, services)
        while self.pending:
            self.follow(*self.pending.pop())
        return tuple(fact for _, fact in sorted(self.facts.items(), key=lambda item: item[0]))

    def fact(self, role: str, service: tuple[str, str], method: str, node: tree_sitter.Node) -> None:
        symbol = self.symbols.at(node.start_byte)
        key = (node.start_byte, _ROLE_ORDER[role])
        self.facts[key] = GrpcFact(role, service[0], method, _ts.line(node), symbol, service[1])

    def server(self, node: tree_sitter.Node, service: tuple[str, str]) -> None:
        """SERVER for a service class, and a HANDLER per public instance method it defines."""
        self.fact(GrpcRole.SERVER, service, "", node)
        body = node.child_by_field_name("body")
        if body is None:
            return
        source = self.source
        public = True
        methods: list[tuple[str, tree_sitter.Node]] = []
        hidden: set[str] = set()
        for child in body.named_children:
            kind = child.type
            if kind == "identifier" and _ts.text(child, source) in ("private", "protected", "public"):
                public = _ts.text(child, source) == "public"
            elif kind == "method" and public:
                methods.append((_ts.text(child.child_by_field_name("name"), source), child))
            elif kind == "call" and child.child_by_field_name("receiver") is None:
                visibility = _ts.text(child.child_by_field_name("method"), source)
                arguments = child.child_by_field_name("arguments")
                if visibility not in ("private", "protected", "public") or arguments is None:
                    continue
                for argument in arguments.named_children:
                    if argument.type == "method":
                        name = _ts.text(argument.child_by_field_name("name"), source)
                        if visibility == "public":
                            methods.append((name, argument))
                    elif argument.type in ("simple_symbol", "string") and visibility != "public":
                        hidden.add(_ts.text(argument, source).lstrip(":").strip("\"'"))
        for name, method in methods:
            if name not in hidden and name != "initialize":
                self.fact(GrpcRole.HANDLER, service, name, method)

    def stub(self, start: int, end: int) -> None:
        """CLIENT for ``<Ns>::<Svc>::Stub.new(...)``, followed to wherever the stub goes."""
        node = self.root.descendant_for_byte_range(start, end)
        if node is None or node.type != "constant":
            return
        scoped = node.parent
        if scoped is None or scoped.type != "scope_resolution" or scoped.child_by_field_name("name") != node:
            return
        path = _constant_path(scoped.child_by_field_name("scope"), self.source)
        call = scoped.parent
        if not path or call is None or call.type != "call" or call.child_by_field_name("receiver") != scoped:
            return
        if _ts.text(call.child_by_field_name("method"), self.source) != "new":
            return
        service = (path[-1], "::".join(path[:-1]))
        self.fact(GrpcRole.CLIENT, service, "", call)
        self.flow(call, service)

    def handle(self, start: int, end: int, services: dict[str, tuple[str, str]]) -> None:
        """SERVER for ``server.handle(X)`` / ``server.handle(X.new(...))`` of a service class of the file."""
        node = self.root.descendant_for_byte_range(start, end)
        call = node.parent if node is not None and node.type == "identifier" else None
        if call is None or call.type != "call" or call.child_by_field_name("method") != node:
            return
        arguments = call.child_by_field_name("arguments")
        if call.child_by_field_name("receiver") is None or arguments is None or not arguments.named_child_count:
            return
        argument = arguments.named_children[0]
        if argument.type == "call" and _ts.text(argument.child_by_field_name("method"), self.source) == "new":
            argument = argument.child_by_field_name("receiver")
        if argument is None or argument.type not in ("constant", "scope_resolution"):
            return
        path = _constant_path(argument, self.source)
        service = services.get(path[-1]) if path else None
        if service is not None:
            self.fact(GrpcRole.SERVER, service, "", call)

    def hold(self, kind: str, name: str, start: int, end: int, service: tuple[str, str]) -> None:
        key = (kind, name, start, end)
        if key not in self.holders:
            self.holders[key] = service
            if kind == "local":
                self.locals.setdefault(name, []).append((start, end, service))
            self.pending.append(key)

    def flow(self, node: tree_sitter.Node, service: tuple[str, str]) -> None:
        """Climb from an expression holding a stub: a call on it is a CALL; an assignment or a ``def``
        returning it makes a new holder."""
        source = self.source
        while True:
            parent = node.parent
            if parent is None:
                return
            kind = parent.type
            if kind == "parenthesized_statements":
                node = parent
            elif kind == "call" and parent.child_by_field_name("receiver") == node:
                method = parent.child_by_field_name("method")
                name = _ts.text(method, source)
                if method is None or name in _OBJECT_METHODS:
                    return
                if name not in _PASS_THROUGH:
                    self.fact(GrpcRole.CALL, service, name, method)
                    return
                node = parent
            elif kind in ("assignment", "operator_assignment") and parent.child_by_field_name("right") == node:
                self.assigned(parent, service)
                self.returned(parent, service)
                return
            elif kind == "argument_list" or (kind == "pair" and parent.child_by_field_name("value") == node):
                self.passed(node, parent, service)
                return
            else:
                self.returned(node, service)
                return

    def assigned(self, assignment: tree_sitter.Node, service: tuple[str, str]) -> None:
        left = assignment.child_by_field_name("left")
        if left is None:
            return
        name = _ts.text(left, self.source)
        if left.type == "identifier":
            scope = rrp.enclosing(assignment, _LOCAL_SCOPES)
            self.hold("local", name, assignment.end_byte, scope.end_byte, service)
        elif left.type == "instance_variable":
            scope = rrp.enclosing(assignment, _CLASS_SCOPES)
            self.hold("ivar", name, scope.start_byte, scope.end_byte, service)
        elif left.type == "constant":
            self.hold("constant", name, 0, len(self.source), service)

    def passed(self, node: tree_sitter.Node, parent: tree_sitter.Node, service: tuple[str, str]) -> None:
        """A stub passed to a ``def`` of this file (by position or keyword) makes that parameter a stub."""
        keyword = ""
        if parent.type == "pair":
            keyword = _ts.text(parent.child_by_field_name("key"), self.source).rstrip(":").lstrip(":")
            node, parent = parent, parent.parent
            if parent is None or parent.type != "argument_list":
                return
        call = parent.parent
        if call is None or call.type != "call":
            return
        receiver = call.child_by_field_name("receiver")
        if receiver is not None and receiver.type != "self":
            return
        position = [child for child in parent.named_children if child.type != "comment"].index(node)
        for method in self.methods.get(_ts.text(call.child_by_field_name("method"), self.source), ()):
            parameters = method.child_by_field_name("parameters")
            if parameters is None:
                continue
            listed = [child for child in parameters.named_children if child.type != "comment"]
            if keyword:
                names = [p.child_by_field_name("name") for p in listed if p.type == "keyword_parameter"]
                matched = next((n for n in names if n is not None and _ts.text(n, self.source) == keyword), None)
            elif position < len(listed) and listed[position].type in ("identifier", "optional_parameter"):
                matched = listed[position]
                if matched.type == "optional_parameter":
                    matched = matched.child_by_field_name("name")
            else:
                matched = None
            if matched is not None:
                name = _ts.text(matched, self.source)
                self.hold("local", name, parameters.end_byte, method.end_byte, service)

    def returned(self, node: tree_sitter.Node, service: tuple[str, str]) -> None:
        """Make a ``def`` an accessor when ``node`` is its last expression."""
        parent = node.parent
        if parent is not None and parent.type == "body_statement":
            last = [child for child in parent.named_children if child.type != "comment"]
            parent = parent.parent if last and last[-1] == node else None
        if parent is None or parent.type != "method":
            return
        name = _ts.text(parent.child_by_field_name("name"), self.source)
        scope = rrp.enclosing(parent, _CLASS_SCOPES)
        self.hold("accessor", name, scope.start_byte, scope.end_byte, service)

    def follow(self, kind: str, name: str, start: int, end: int) -> None:
        """Follow every use of a holder inside its scope."""
        service = self.holders[(kind, name, start, end)]
        wanted = {"local": "identifier", "ivar": "instance_variable", "constant": "constant"}.get(kind, "identifier")
        for word_start, word_end in rrp.find_words(self.source, name.encode(), start, end):
            node = self.root.descendant_for_byte_range(word_start, word_end)
            if node is None or node.type != wanted:
                continue
            parent = node.parent
            if parent is None:
                continue
            if parent.type in ("assignment", "operator_assignment") and parent.child_by_field_name("left") == node:
                if kind == "local":
                    self.reassigned(name, parent)
                continue
            if kind == "local":
                held = self.local(name, node.start_byte)
                if held is not None:
                    self.flow(node, held)
            elif kind == "accessor":
                self.accessed(node, parent, service)
            elif parent.type == "scope_resolution" and parent.child_by_field_name("name") == node:
                self.flow(parent, service)
            else:
                self.flow(node, service)

    def accessed(self, node: tree_sitter.Node, parent: tree_sitter.Node, service: tuple[str, str]) -> None:
        if parent.type == "method":
            return
        if parent.type == "call" and parent.child_by_field_name("method") == node:
            receiver = parent.child_by_field_name("receiver")
            if receiver is not None and receiver.type == "self":
                self.flow(parent, service)
            return
        self.flow(node, service)

    def reassigned(self, name: str, assignment: tree_sitter.Node) -> None:
        """A local assigned again: it holds a stub only if something else makes it one (via :meth:`flow`)."""
        scope = rrp.enclosing(assignment, _LOCAL_SCOPES)
        start = assignment.end_byte
        known = self.locals.setdefault(name, [])
        if not any(at == start for at, _, _ in known):
            known.append((start, scope.end_byte, None))

    def local(self, name: str, at: int) -> tuple[str, str] | None:
        best: tuple[int, tuple[str, str] | None] | None = None
        for start, end, service in self.locals.get(name, ()):
            if start <= at < end and (best is None or start > best[0] or start == best[0] and service is not None):
                best = (start, service)
        return best[1] if best is not None else None
