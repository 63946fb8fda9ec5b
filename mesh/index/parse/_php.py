"""PHP: namespaces, classes, interfaces, traits, enums, functions and methods; ``use`` and
``require``/``include``; grpc (``Grpc\\BaseStub`` clients, spiral/roadrunner servers); HTTP routes, calls,
messages and link constants (:mod:`._php_links`).

Theory of operation: declarations and ``require``/``include`` are statements, so :class:`_Statements`
walks statement lists only (the program, namespace/class/function bodies and the blocks of
``if``/``try``/loops, for the ``if (!function_exists(...)) { function ... }`` idiom) with an explicit
stack, never entering an expression. ``namespace A\\B;`` applies to the statements after it, ``namespace
A\\B { ... }`` to its block; both are a ``module`` definition named ``A.B`` that contains what it declares.
Each definition (constants and enum cases too) gets its signature and the first line of the PHPDoc
or comment above it; references come from ``queries/php/references.scm`` (:mod:`._navigation`), a
name used through a ``use ... as`` alias written as the name it stands for.

gRPC: generated names are found with ``bytes.find`` (``...Client``, ``...Interface``) and looked up in the
tree. A class name ending in ``Client`` counts when it is imported by ``use`` from a namespace, written
qualified, or a class of the file extending ``\\Grpc\\BaseStub``; ``new <it>($host, $opts)`` is a CLIENT,
and so is an unqualified ``new XClient($host, [...ChannelCredentials...])``. Clients are followed as a
worklist: :meth:`_Grpc.flow` climbs from an expression holding one; a method called on it is a CALL;
assigning it to ``$var`` or ``$this->prop``, passing it to a function or ``$this`` method of the file, or
typing a parameter, a property, a promoted constructor parameter or a method's return with the client
class makes a new holder whose occurrences are looked up in turn. A class implementing an imported or
qualified ``<Svc>Interface`` (not from a well-known framework vendor, unless its methods take a
``ContextInterface``) is a SERVER with a HANDLER per public, non-static, non-magic method.
"""

from __future__ import annotations

from typing import Final

import tree_sitter

from .._facts import Definition, FileFacts, GrpcFact, GrpcRole, Import, Namespace, Reference
from . import _navigation, _php_links, _ts
from . import _shared_rrp as rrp
from ._common import too_broken

__all__ = ["extract"]

_LANG: Final = "php"

_CLASSES: Final = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "trait_declaration": "trait",
    "enum_declaration": "enum",
}
_REQUIRES: Final = frozenset(
    {"require_expression", "require_once_expression", "include_expression", "include_once_expression"}
)
#: statement containers walked through without changing the scope
_TRANSPARENT: Final = frozenset(
    {
        "compound_statement",
        "if_statement",
        "else_clause",
        "else_if_clause",
        "colon_block",
        "try_statement",
        "catch_clause",
        "finally_clause",
        "while_statement",
        "do_statement",
        "for_statement",
        "foreach_statement",
        "switch_statement",
        "switch_block",
        "case_statement",
        "default_statement",
        "declare_statement",
        "ERROR",
    }
)
#: References are read of trees nesting at most this deep (real code: under 40 levels).
REFERENCE_DEPTH_MAX: Final = 128
_ROLE_ORDER: Final = {GrpcRole.SERVER: 0, GrpcRole.HANDLER: 1, GrpcRole.CLIENT: 2, GrpcRole.CALL: 3}
#: methods of ``Grpc\BaseStub`` that are not RPCs
_STUB_METHODS: Final = frozenset(
    {
        "close",
        "getTarget",
        "getConnectivityState",
        "waitForReady",
        "_simpleRequest",
        "_clientStreamRequest",
        "_serverStreamRequest",
        "_bidiRequest",
    }
)
#: vendors whose ``...Client`` / ``...Interface`` classes are never generated gRPC code
_NOT_GRPC: Final = frozenset(
    {
        "Algolia",
        "Aws",
        "Carbon",
        "Composer",
        "Doctrine",
        "Elastic",
        "Elasticsearch",
        "GuzzleHttp",
        "Http",
        "Illuminate",
        "Laminas",
        "Laravel",
        "League",
        "MongoDB",
        "Monolog",
        "OpenAI",
        "PHPUnit",
        "Predis",
        "Psr",
        "Ramsey",
        "Sentry",
        "Spiral",
        "Stripe",
        "Symfony",
        "Twig",
        "Twilio",
        "Zend",
    }
)
_FUNCTIONS: Final = frozenset({"function_definition", "method_declaration", "anonymous_function", "arrow_function"})
_CLASS_SCOPES: Final = frozenset({"class_declaration", "trait_declaration", "enum_declaration", "program"})


def extract(source: bytes) -> FileFacts:
    """Definitions, imports and grpc facts of one PHP file."""
    tree = _ts.parse(_LANG, source)
    root = tree.root_node
    statements = _Statements(source, root)
    grpc: tuple[GrpcFact, ...] = ()
    if b"Client" in source or b"Interface" in source:
        grpc = _Grpc(source, root, statements).run()
    links = _php_links.extract(source, root, statements.aliases, statements.spans)
    line = rrp.first_error_line(root)
    return FileFacts(
        language=_LANG,
        definitions=tuple(d for _, d in sorted(statements.definitions, key=lambda pair: pair[0])),
        imports=tuple(i for _, i in sorted(statements.imports, key=lambda pair: pair[0])),
        namespaces=tuple(sorted(statements.declared, key=lambda n: (n.line, -n.end_line))),
        grpc=grpc,
        http_routes=links.routes,
        http_calls=links.calls,
        messages=links.messages,
        constants=links.constants,
        references=_references(source, root, statements.renamed),
        error=f"syntax error at line {line}" if line else "",
    )


def _references(source: bytes, root: tree_sitter.Node, renamed: dict[str, str]) -> tuple[Reference, ...]:
    """The references of ``queries/php/references.scm``; none of a tree too broken or too deep to query
    in linear time (its other facts are kept)."""
    if too_broken(root) or rrp.deeper_than(root, REFERENCE_DEPTH_MAX):
        return ()
    return _navigation.references(_LANG, root, source, aliases=renamed)


def _name(node: tree_sitter.Node | None, source: bytes) -> str:
    """A name as written, whitespace and comments aside (``\\Acme\\Orders``)."""
    return "".join(_ts.text(node, source).split())


def _join(container: str, name: str) -> str:
    return f"{container}.{name}" if container and name else container or name


class _Statements:
    """Definitions, imports and ``use`` aliases, found by walking statement lists only."""

    def __init__(self, source: bytes, root: tree_sitter.Node) -> None:
        self.source = source
        self.definitions: list[tuple[int, Definition]] = []
        self.imports: list[tuple[int, Import]] = []
        #: (start, end, dotted name) of every definition but namespaces
        self.spans: list[tuple[int, int, str]] = []
        #: class-like declaration -> (dotted name, PHP namespace it is declared in)
        self.classes: list[tuple[tree_sitter.Node, str, str]] = []
        #: function or method name -> its declarations in this file
        self.functions: dict[str, list[tree_sitter.Node]] = {}
        #: (start byte, alias or last name, fully qualified name) of every class ``use``
        self.aliases: list[tuple[int, str, str]] = []
        #: (start byte, PHP namespace) where each namespace begins
        self.namespaces: list[tuple[int, str]] = [(0, "")]
        #: the namespaces declared, dotted, with their lines
        self.declared: list[Namespace] = []
        #: local name -> the name it stands for, of each ``use ... as`` (``Rules`` -> ``Pricing``)
        self.renamed: dict[str, str] = {}
        #: (statement list, container path, PHP namespace)
        stack: list[tuple[tree_sitter.Node, str, str]] = [(root, "", "")]
        while stack:
            body, container, namespace = stack.pop()
            open_namespace: tuple[tree_sitter.Node, str] | None = None
            last: tree_sitter.Node | None = None
            for child in body.named_children:
                kind = child.type
                if kind == "namespace_definition":
                    self.close(open_namespace, last)
                    open_namespace = None
                    written = _name(child.child_by_field_name("name"), source).lstrip("\\")
                    dotted = written.replace("\\", ".")
                    inner = child.child_by_field_name("body")
                    self.namespaces.append((child.start_byte, written))
                    if inner is not None:
                        if dotted:
                            self.define(child, dotted, "module", "", span=False)
                            self.declared.append(Namespace(dotted, _ts.line(child), _ts.end_line(child)))
                        stack.append((inner, dotted, written))
                        self.namespaces.append((child.end_byte, ""))
                    else:
                        open_namespace = (child, dotted)
                        container, namespace = dotted, written
                elif kind in _CLASSES:
                    name = child.child_by_field_name("name")
                    inner = child.child_by_field_name("body")
                    if name is not None:
                        dotted = self.define(child, _ts.text(name, source), _CLASSES[kind], container)
                        self.classes.append((child, dotted, namespace))
                        if inner is not None:
                            stack.append((inner, dotted, namespace))
                elif kind in ("function_definition", "method_declaration"):
                    name = child.child_by_field_name("name")
                    inner = child.child_by_field_name("body")
                    if name is not None:
                        kind_of = "function" if kind == "function_definition" else "method"
                        text = _ts.text(name, source)
                        self.functions.setdefault(text, []).append(child)
                        dotted = self.define(child, text, kind_of, container)
                        if inner is not None:
                            stack.append((inner, dotted, namespace))
                elif kind == "const_declaration":
                    for element in child.named_children:
                        name = element.named_children[0] if element.type == "const_element" else None
                        if name is not None and name.type == "name":
                            self.define(
                                element, _ts.text(name, source), "constant", container, span=False, described=child
                            )
                elif kind == "enum_case":
                    name = child.child_by_field_name("name")
                    if name is not None:
                        self.define(child, _ts.text(name, source), "constant", container, span=False)
                elif kind == "namespace_use_declaration":
                    self.use(child)
                elif kind in ("expression_statement", "return_statement"):
                    inner = child.named_children[0] if child.named_child_count else None
                    if inner is not None and inner.type == "assignment_expression":
                        inner = inner.child_by_field_name("right")
                    if inner is not None and inner.type in _REQUIRES:
                        self.require(inner)
                elif kind in _TRANSPARENT:
                    stack.append((child, container, namespace))
                last = child
            self.close(open_namespace, last)

    def define(
        self,
        node: tree_sitter.Node,
        name: str,
        kind: str,
        container: str,
        *,
        span: bool = True,
        described: tree_sitter.Node | None = None,
    ) -> str:
        """Record a definition; ``described``: the declaration its signature and doc are of (``const A = 1,
        B = 2;`` for ``B``), else ``node`` itself."""
        line = _ts.line(node)
        signature, doc = _navigation.details(_LANG, described or node, self.source)
        definition = Definition(name, kind, container, line, _ts.end_line(node), signature, doc)
        self.definitions.append((node.start_byte, definition))
        dotted = _join(container, name)
        if span:
            self.spans.append((node.start_byte, node.end_byte, dotted))
        return dotted

    def close(self, namespace: tuple[tree_sitter.Node, str] | None, last: tree_sitter.Node | None) -> None:
        """Define an unbraced ``namespace X;`` once its extent (up to the last statement it covers) is known."""
        if namespace is None:
            return
        node, dotted = namespace
        if not dotted:
            return
        end = last if last is not None and last.end_byte > node.end_byte else node
        signature, doc = _navigation.details(_LANG, node, self.source)
        definition = Definition(dotted, "module", "", _ts.line(node), _ts.end_line(end), signature, doc)
        self.definitions.append((node.start_byte, definition))
        self.declared.append(Namespace(dotted, definition.line, definition.end_line))

    def use(self, node: tree_sitter.Node) -> None:
        """``use A\\B\\C;`` and ``use A\\{B, C};`` (and ``use function``/``use const``)."""
        source = self.source
        line = _ts.line(node)
        group = node.child_by_field_name("body")
        kind = node.child_by_field_name("type")
        is_class = kind is None
        if group is not None:
            prefixes = [child for child in node.named_children if child.type in ("namespace_name", "name")]
            prefix = _name(prefixes[0], source) if prefixes else ""
            names = []
            for clause in group.named_children:
                if clause.type != "namespace_use_clause":
                    continue
                path, alias = self.clause(clause)
                names.append(path)
                clause_is_class = is_class and clause.child_by_field_name("type") is None
                if clause_is_class:
                    self.aliases.append((node.start_byte, alias, f"{prefix}\\{path}".lstrip("\\")))
            self.imports.append((node.start_byte, Import(prefix, line, tuple(names))))
            return
        for clause in node.named_children:
            if clause.type != "namespace_use_clause":
                continue
            path, alias = self.clause(clause)
            self.imports.append((clause.start_byte, Import(path, line)))
            if is_class and clause.child_by_field_name("type") is None:
                self.aliases.append((node.start_byte, alias, path.lstrip("\\")))

    def clause(self, clause: tree_sitter.Node) -> tuple[str, str]:
        """(path as written, the local name it is known by) of one ``use`` clause."""
        alias = clause.child_by_field_name("alias")
        named = [child for child in clause.named_children if child.type in ("qualified_name", "name")]
        path = _name(named[0], self.source) if named else ""
        last = path.rsplit("\\", 1)[-1]
        local = _ts.text(alias, self.source) if alias is not None else last
        if local != last and local and last:
            self.renamed.setdefault(local, last)
        return path, local

    def require(self, node: tree_sitter.Node) -> None:
        """``require``/``include`` (``_once`` too) of a plain string literal."""
        argument = node.named_children[0] if node.named_child_count else None
        while argument is not None and argument.type == "parenthesized_expression":
            argument = argument.named_children[0] if argument.named_child_count else None
        if argument is None or argument.type not in ("string", "encapsed_string"):
            return
        parts = argument.named_children
        if parts and all(part.type == "string_content" for part in parts):
            text = "".join(_ts.text(part, self.source) for part in parts)
            self.imports.append((node.start_byte, Import(text, _ts.line(node))))


class _Grpc:
    """The grpc facts of one file, found from the places generated names and followed names occur."""

    def __init__(self, source: bytes, root: tree_sitter.Node, statements: _Statements) -> None:
        self.source = source
        self.root = root
        self.classes = statements.classes
        self.functions = statements.functions
        self.symbols = rrp.Symbols(statements.spans)
        self.namespaces = sorted(statements.namespaces)
        #: local name -> fully qualified name, for ``use`` of classes
        self.aliases = {alias: full for _, alias, full in statements.aliases}
        #: names of the classes of this file that extend ``Grpc\BaseStub``
        self.stubs: dict[str, str] = {}
        for node, _, namespace in self.classes:
            base = next((c for c in node.named_children if c.type == "base_clause"), None)
            if base is not None and _name(base, source).endswith("BaseStub"):
                self.stubs[_ts.text(node.child_by_field_name("name"), source)] = namespace
        self.facts: dict[tuple[int, int], GrpcFact] = {}
        #: (kind, name, from, until) -> (service, namespace); kind is local, property or accessor
        self.holders: dict[tuple[str, str, int, int], tuple[str, str]] = {}
        #: variable name -> [(visible from, visible until, client or None once reassigned)]
        self.locals: dict[str, list[tuple[int, int, tuple[str, str] | None]]] = {}
        self.pending: list[tuple[str, str, int, int]] = []

    def run(self) -> tuple[GrpcFact, ...]:
        """Every gRPC fact of the file, in source order."""
        if b"Interface" in self.source:
            for node, _, _ in self.classes:
                if node.type == "class_declaration":
                    self.server(node)
        if b"Client" in self.source:
            for start, end in rrp.find_words(self.source, b"Client", suffix=True):
                self.client_name(start, end)
            for alias, full in self.aliases.items():
                if full.endswith("Client") and not alias.endswith("Client"):
                    for start, end in rrp.find_words(self.source, alias.encode()):
                        self.client_name(start, end)
        while self.pending:
            self.follow(*self.pending.pop())
        return tuple(fact for _, fact in sorted(self.facts.items(), key=lambda item: item[0]))

    def fact(self, role: str, client: tuple[str, str], method: str, node: tree_sitter.Node) -> None:
        symbol = self.symbols.at(node.start_byte)
        key = (node.start_byte, _ROLE_ORDER[role])
        self.facts[key] = GrpcFact(role, client[0], method, _ts.line(node), symbol, client[1])

    def namespace_at(self, offset: int) -> str:
        current = ""
        for start, namespace in self.namespaces:
            if start > offset:
                break
            current = namespace
        return current

    def qualify(self, written: str, suffix: str) -> tuple[str, str] | None:
        """(service, namespace) of a generated class name as written, when it is imported or qualified."""
        if "\\" in written:
            full = written.lstrip("\\")
        else:
            full = self.aliases.get(written, "")
            if "\\" not in full:
                return None
        namespace, _, last = full.rpartition("\\")
        if not namespace or not last.endswith(suffix) or len(last) <= len(suffix):
            return None
        return last[: -len(suffix)], namespace

    def server(self, node: tree_sitter.Node) -> None:
        """SERVER for a class implementing ``<Svc>Interface``, and a HANDLER per public method."""
        source = self.source
        clause = next((c for c in node.named_children if c.type == "class_interface_clause"), None)
        body = node.child_by_field_name("body")
        if clause is None or body is None:
            return
        methods = [m for m in body.named_children if m.type == "method_declaration"]
        for interface in clause.named_children:
            service = self.qualify(_name(interface, source), "Interface")
            if service is None:
                continue
            vendor = _vendor(service)
            context = any(b"ContextInterface" in _bytes(m, source) for m in methods)
            if vendor == "Spiral" or (vendor in _NOT_GRPC and not context):
                continue
            self.fact(GrpcRole.SERVER, service, "", node)
            for method in methods:
                name = _ts.text(method.child_by_field_name("name"), source)
                if name.startswith("__") or not _public(method, source):
                    continue
                self.fact(GrpcRole.HANDLER, service, name, method)

    def client_name(self, start: int, end: int) -> None:
        """What a ``...Client`` class name does where it stands: ``new`` it, or type a holder with it."""
        node = self.root.descendant_for_byte_range(start, end)
        if node is None or node.type != "name":
            return
        path = node
        parent = node.parent
        if parent is not None and parent.type == "qualified_name":
            path, parent = parent, parent.parent
        if parent is None:
            return
        written = _name(path, self.source)
        client = self.qualify(written, "Client")
        if client is None and written in self.stubs and len(written) > 6:
            client = (written[:-6], self.stubs[written])
        if parent.type == "object_creation_expression":
            arguments = next((c for c in parent.named_children if c.type == "arguments"), None)
            if arguments is None or arguments.named_child_count < 2:
                return
            unknown = client is None and "\\" not in written and len(written) > 6
            if unknown and b"ChannelCredentials" in _bytes(arguments, self.source):
                client = (written[:-6], self.namespace_at(start))
            if client is not None and _vendor(client) not in _NOT_GRPC:
                self.fact(GrpcRole.CLIENT, client, "", parent)
                self.flow(parent, client)
            return
        if client is None or parent.type != "named_type" or _vendor(client) in _NOT_GRPC:
            return
        holder = parent.parent
        if holder is not None and holder.type == "optional_type":
            holder = holder.parent
        if holder is None:
            return
        if holder.type == "property_declaration":
            for element in holder.named_children:
                if element.type == "property_element":
                    self.hold_property(element.child_by_field_name("name"), holder, client)
        elif holder.type == "property_promotion_parameter":
            self.hold_property(holder.child_by_field_name("name"), holder, client)
        elif holder.type == "simple_parameter":
            function = rrp.enclosing(holder, _FUNCTIONS)
            variable = holder.child_by_field_name("name")
            if variable is not None:
                self.hold("local", _ts.text(variable, self.source), holder.end_byte, function.end_byte, client)
        elif holder.type in ("method_declaration", "function_definition"):
            name = _ts.text(holder.child_by_field_name("name"), self.source)
            scope = rrp.enclosing(holder, _CLASS_SCOPES) if holder.type == "method_declaration" else self.root
            self.hold("accessor", name, scope.start_byte, scope.end_byte, client)

    def hold_property(self, variable: tree_sitter.Node | None, node: tree_sitter.Node, client: tuple[str, str]) -> None:
        if variable is not None:
            scope = rrp.enclosing(node, _CLASS_SCOPES)
            self.hold("property", _ts.text(variable, self.source).lstrip("$"), scope.start_byte, scope.end_byte, client)

    def hold(self, kind: str, name: str, start: int, end: int, client: tuple[str, str]) -> None:
        key = (kind, name, start, end)
        if key not in self.holders:
            self.holders[key] = client
            if kind == "local":
                self.locals.setdefault(name, []).append((start, end, client))
            self.pending.append(key)

    def flow(self, node: tree_sitter.Node, client: tuple[str, str]) -> None:
        """Climb from an expression holding a client: a call on it is a CALL; storing it makes a holder."""
        source = self.source
        while True:
            parent = node.parent
            if parent is None:
                return
            kind = parent.type
            if kind == "parenthesized_expression":
                node = parent
            elif kind in ("member_call_expression", "nullsafe_member_call_expression"):
                method = parent.child_by_field_name("name")
                if parent.child_by_field_name("object") != node or method is None:
                    return
                if _ts.text(method, source) not in _STUB_METHODS:
                    self.fact(GrpcRole.CALL, client, _ts.text(method, source), method)
                return
            elif kind in ("assignment_expression", "augmented_assignment_expression"):
                if parent.child_by_field_name("right") == node:
                    self.assigned(parent, client)
                    node = parent
                else:
                    return
            elif kind == "argument":
                self.passed(parent, client)
                return
            elif kind == "return_statement":
                function = rrp.enclosing(parent, _FUNCTIONS)
                if function.type in ("method_declaration", "function_definition"):
                    name = _ts.text(function.child_by_field_name("name"), source)
                    scope = (
                        rrp.enclosing(function, _CLASS_SCOPES) if function.type == "method_declaration" else self.root
                    )
                    self.hold("accessor", name, scope.start_byte, scope.end_byte, client)
                return
            else:
                return

    def passed(self, argument: tree_sitter.Node, client: tuple[str, str]) -> None:
        """A client passed to a function or ``$this``/``self::`` method of this file (by position or name)
        makes the matching parameter hold it."""
        source = self.source
        arguments = argument.parent
        call = arguments.parent if arguments is not None else None
        if call is None:
            return
        if call.type == "function_call_expression":
            callee, wanted = call.child_by_field_name("function"), "function_definition"
        elif _method_call_on_self(call, source):
            callee, wanted = call.child_by_field_name("name"), "method_declaration"
        else:
            return
        named = argument.child_by_field_name("name")
        keyword = "$" + _ts.text(named, source) if named is not None else ""
        position = [child for child in arguments.named_children if child.type == "argument"].index(argument)
        for function in self.functions.get(_ts.text(callee, source), ()):
            parameters = function.child_by_field_name("parameters")
            if function.type != wanted or parameters is None:
                continue
            listed = [p.child_by_field_name("name") for p in parameters.named_children if p.type.endswith("parameter")]
            names = [_ts.text(p, source) for p in listed]
            name = keyword if keyword in names else names[position] if not keyword and position < len(names) else ""
            if name:
                self.hold("local", name, parameters.end_byte, function.end_byte, client)

    def assigned(self, assignment: tree_sitter.Node, client: tuple[str, str]) -> None:
        left = assignment.child_by_field_name("left")
        if left is None:
            return
        if left.type == "variable_name":
            function = rrp.enclosing(assignment, _FUNCTIONS)
            self.hold("local", _ts.text(left, self.source), assignment.end_byte, function.end_byte, client)
        elif left.type in ("member_access_expression", "nullsafe_member_access_expression"):
            owner = left.child_by_field_name("object")
            name = left.child_by_field_name("name")
            if owner is not None and name is not None and _ts.text(owner, self.source) == "$this":
                scope = rrp.enclosing(assignment, _CLASS_SCOPES)
                self.hold("property", _ts.text(name, self.source), scope.start_byte, scope.end_byte, client)

    def follow(self, kind: str, name: str, start: int, end: int) -> None:
        """Follow every use of a holder inside its scope."""
        client = self.holders[(kind, name, start, end)]
        word = name.lstrip("$").encode()
        for word_start, word_end in rrp.find_words(self.source, word, start, end):
            node = self.root.descendant_for_byte_range(word_start, word_end)
            parent = node.parent if node is not None else None
            if parent is None or node.type != "name":
                continue
            if kind == "local":
                if parent.type != "variable_name":
                    continue
                self.variable(name, parent)
            elif parent.type in ("member_access_expression", "nullsafe_member_access_expression"):
                if kind == "property" and parent.child_by_field_name("name") == node and _this(parent, self.source):
                    self.flow(parent, client)
            elif parent.type in ("member_call_expression", "nullsafe_member_call_expression"):
                if kind == "accessor" and parent.child_by_field_name("name") == node and _this(parent, self.source):
                    self.flow(parent, client)
            elif parent.type == "function_call_expression" and kind == "accessor":
                self.flow(parent, client)

    def variable(self, name: str, variable: tree_sitter.Node) -> None:
        """A use of a local: follow it, or end the binding where it is assigned something else."""
        parent = variable.parent
        if (
            parent is not None
            and parent.type == "assignment_expression"
            and parent.child_by_field_name("left") == variable
        ):
            function = rrp.enclosing(parent, _FUNCTIONS)
            known = self.locals.setdefault(name, [])
            if not any(at == parent.end_byte for at, _, _ in known):
                known.append((parent.end_byte, function.end_byte, None))
            return
        best: tuple[int, tuple[str, str] | None] | None = None
        at = variable.start_byte
        for start, end, client in self.locals.get(name, ()):
            if start <= at < end and (best is None or start > best[0] or start == best[0] and client is not None):
                best = (start, client)
        if best is not None and best[1] is not None:
            self.flow(variable, best[1])


def _vendor(client: tuple[str, str]) -> str:
    return client[1].split("\\", 1)[0]


def _bytes(node: tree_sitter.Node, source: bytes) -> bytes:
    return source[node.start_byte : node.end_byte]


def _this(access: tree_sitter.Node, source: bytes) -> bool:
    owner = access.child_by_field_name("object")
    return owner is not None and _ts.text(owner, source) == "$this"


def _method_call_on_self(call: tree_sitter.Node, source: bytes) -> bool:
    """``$this->m(...)``, ``$this?->m(...)``, ``self::m(...)`` or ``static::m(...)``."""
    if call.type in ("member_call_expression", "nullsafe_member_call_expression"):
        return _this(call, source)
    return call.type == "scoped_call_expression" and _ts.text(call.child_by_field_name("scope"), source) in (
        "self",
        "static",
    )


def _public(method: tree_sitter.Node, source: bytes) -> bool:
    """Whether a method is public and not static (no visibility modifier means public)."""
    for child in method.named_children:
        if child.type == "visibility_modifier" and _ts.text(child, source) != "public":
            return False
        if child.type == "static_modifier":
            return False
    return True
