"""Java facts: definitions, imports and grpc-java evidence, from one tree-sitter parse.

Theory of operation: one query (``queries/java/outline.scm``) finds every class, interface, enum,
record, annotation type, method and constructor (kind ``method``) and import; definitions arrive in document order and
:class:`~._common.Definitions` nests them by span, so a nested or local class, or a method of an
anonymous class, gets the dotted path of what encloses it as its container. A declaration's line
is its name's line (annotations above it do not count). An import's module is the path as written
without ``import``, ``static`` and ``;`` (``com.acme.*`` for a wildcard). Each definition carries
its signature and Javadoc line, and the file its references (``queries/java/references.scm``), for
code navigation (:mod:`._navigation`). Constants (static final fields, static fields named as constants, interface fields, enum
constants: kind ``constant``) are definitions too, added once the passes that read the definitions'
spans as scopes are done. A bare use of a member a single import takes from a class (``import
static a.b.Pricing.shipping``, ``import a.b.Outer.Inner``) is a use qualified by that class
(:func:`~._jvm_syntax.qualify_imported`), unless the file declares the name itself.

The same traversal captures method invocations, field/local declarations, parameters and
assignments, read by the link pass (:mod:`._jvm_links`: HTTP routes and calls, messaging) and, when
the bytes mention ``Grpc``, ``Stub`` or ``ImplBase``, by the gRPC pass.
Generated names are recognised by shape (:class:`~._common.JvmImports`): a class extending
``<Svc>Grpc.<Svc>ImplBase`` (or implementing ``<Svc>Grpc.AsyncService``) is a SERVER with a
HANDLER per public non-static method it defines; ``<Svc>Grpc.new[Blocking|Future]Stub(ch)`` is a
CLIENT; ``ProtoReflectionService.newInstance()`` and ``healthStatusManager.getHealthService()`` are
SERVERs of the runtime's standard ``ServerReflection`` and ``Health``. Stubs are followed by a flow-insensitive data flow run to a fixed point over scopes
(methods, classes; :class:`~._common.Bindings`): a field, local or parameter holds a stub when
declared with a generated stub type (``<Svc>Grpc.<Svc>BlockingStub``...) or assigned one; a
``with...(...)`` call on a stub gives the stub back; a name declared in an inner scope with another
type hides an outer stub. A call ``x.m(...)`` on a stub (``x``, ``this.x``, ``Owner.X``, a cast to
a stub type, or a chain such as ``OrdersGrpc.newBlockingStub(ch).withDeadlineAfter(...).m(...)``
broken over lines) is a CALL of ``m``. The namespace is the qualifier written before
``<Svc>Grpc`` at the use site ("" when none).

Only single-node patterns are queried for expressions: a pattern constraining a child that comes
after a deep subtree (the name after a long call chain) keeps a match in progress across it, which
costs quadratic time; and a tree that error recovery left with huge ERROR nodes is not queried at
all (:func:`~._common.too_broken`).
"""

from __future__ import annotations

import re
from typing import Final

import tree_sitter

from .._facts import Definition, FileFacts, GrpcRole, Import, Reference
from . import _jvm_links, _jvm_syntax, _navigation, _ts
from ._common import (
    JVM_GRPC_HINTS,
    JVM_OBJECT_METHODS,
    JVM_STUB_CONFIG,
    JVM_STUB_FACTORIES,
    JVM_STUB_METHODS,
    JVM_STUB_SUFFIXES,
    Bindings,
    Definitions,
    GrpcFacts,
    JvmImports,
    Stub,
    jvm_standard_service,
    matches,
    query,
    squash,
    syntax_error,
    too_broken,
)

__all__ = ["extract"]

_LANGUAGE: Final = "java"

#: Definitions and imports (``queries/java/outline.scm``).
_OUTLINE: Final = _navigation.query_text(_LANGUAGE, "outline")

_GRPC: Final = """
(method_invocation) @call
(field_declaration) @declaration
(local_variable_declaration) @declaration
(formal_parameter) @param
(assignment_expression) @assign
"""

#: One traversal of the tree for the outline, the gRPC pass and the link pass (:mod:`._jvm_links`
#: reads the gRPC captures and its own).
_OUTLINE_AND_LINKS: Final = _OUTLINE + _GRPC + _jvm_links.JAVA_CAPTURES

#: Nesting (named nodes) past which code navigation's query turns quadratic (a call's pattern stays
#: open across its receiver, which in a chain holds every earlier link: 4,000 links cost 3 to 6
#: times what 2,000 do): a tree that deep (a generated chain of thousands of calls) gets no references.
_NESTING_MAX: Final = 256
_DEEPER: Final = "(_ " * _NESTING_MAX + "(_) @deep" + ")" * _NESTING_MAX

#: Bytes without any of these cannot hold grpc-java evidence.
_GRPC_HINTS: Final = JVM_GRPC_HINTS

_KINDS: Final = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "record_declaration": "class",
    "annotation_type_declaration": "interface",
}

#: Expressions that can evaluate to a stub (anything else is not followed).
_STUB_EXPRESSIONS: Final = frozenset(
    {"identifier", "field_access", "method_invocation", "parenthesized_expression", "cast_expression"}
)
#: How many links of a chain (casts, parentheses, ``with...`` calls) a stub is followed through.
_DEPTH_MAX: Final = 32
#: Passes of the data flow (each pass lets a stub travel one more assignment).
_PASSES_MAX: Final = 6


def extract(source: bytes) -> FileFacts:
    """Definitions, imports and gRPC facts of a Java file (a bug raises; ``parse.extract`` records it as the file's error)."""
    root = _ts.parse(_LANGUAGE, source).root_node
    if too_broken(root):
        return FileFacts(language=_LANGUAGE, error=syntax_error(root))
    definitions = Definitions(_LANGUAGE, source)
    imports: list[Import] = []
    grpc_imports = JvmImports()
    wanted = any(hint in source for hint in _GRPC_HINTS)
    found = matches(query(_LANGUAGE, _OUTLINE_AND_LINKS), root)
    outline = [match for match in found if "def" in match[1] or "import" in match[1]]
    outline.sort(key=lambda match: (match[1].get("def") or match[1]["import"])[0].start_byte)
    for _, captures in outline:
        if "import" in captures:
            _import(captures["import"][0], source, imports, grpc_imports)
            continue
        node = captures["def"][0]
        name = captures["name"][0]
        parent = definitions.parent_of(node.start_byte)
        kind = _KINDS.get(node.type, "method")
        definitions.add(node, _ts.text(name, source), kind, parent, line=name.start_point[0] + 1)
    grpc = _Grpc(source, definitions, grpc_imports).run(found) if wanted else ()
    links = _jvm_links.extract(_LANGUAGE, source, definitions, imports, found)
    constants = _constants(definitions, [match[1] for match in found if "constant" in match[1]], source)
    references: tuple[Reference, ...] = ()
    if not _too_deep(root):
        members = _jvm_syntax.imported_members(item.module for item in imports)
        declared = frozenset([*(fact.name for fact in definitions.facts), *(fact.name for _, fact in constants)])
        references = _jvm_syntax.qualify_imported(_navigation.references(_LANGUAGE, root, source), members, declared)
    return FileFacts(
        language=_LANGUAGE,
        definitions=definitions.merged(constants),
        imports=tuple(imports),
        namespaces=_jvm_syntax.package(root, source),
        grpc=grpc,
        http_routes=links.http_routes,
        http_calls=links.http_calls,
        messages=links.messages,
        settings=links.settings,
        constants=links.constants,
        references=references,
        error=syntax_error(root),
    )


def _constants(
    definitions: Definitions, captured: list[dict[str, list[tree_sitter.Node]]], source: bytes
) -> list[tuple[int, Definition]]:
    """(start, definition) of each constant: a static final field, a static field named as a
    constant (``ZERO``), an interface field, an enum constant (kind ``constant``, its container the
    class, interface or enum around it).

    They are kept out of ``definitions`` itself: the gRPC and link passes read its spans as scopes
    (a stub held in a ``static final`` field is the class's), and a field is none."""
    out: list[tuple[int, Definition]] = []
    for captures in captured:
        node = captures["constant"][0]
        if node.type == "enum_constant":
            names = captures["name"]
        else:
            modifiers = _modifiers(node) if node.type == "field_declaration" else {"static", "final"}
            if "static" not in modifiers:
                continue
            names = [name for declarator in node.children_by_field_name("declarator")
                     if (name := declarator.child_by_field_name("name")) is not None]  # fmt: skip
            if "final" not in modifiers:  # a constant by its name alone (``public static Money ZERO``)
                names = [name for name in names if _CONSTANT_NAME.fullmatch(_ts.text(name, source))]
        if not names:
            continue
        signature, doc = _navigation.details(_LANGUAGE, node, source)
        container = definitions.symbol(node.start_byte)
        for name in names:
            fact = Definition(_ts.text(name, source), "constant", container, name.start_point[0] + 1,
                              node.end_point[0] + 1, signature, doc)  # fmt: skip
            out.append((name.start_byte, fact))
    return out


#: A field named as a constant (``MAX_SIZE``, ``ZERO``): one holding a value, even when not final.
_CONSTANT_NAME: Final = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")


def _modifiers(node: tree_sitter.Node) -> set[str]:
    modifiers = next((child for child in node.children if child.type == "modifiers"), None)
    return {child.type for child in modifiers.children} if modifiers is not None else set()


def _import(node: tree_sitter.Node, source: bytes, imports: list[Import], grpc_imports: JvmImports) -> None:
    path = next((child for child in node.named_children if child.type in ("scoped_identifier", "identifier")), None)
    if path is None:
        return
    module = squash(_ts.text(path, source))
    wildcard = any(child.type == "asterisk" for child in node.children)
    grpc_imports.add(module.split("."), wildcard)
    imports.append(Import(module + ".*" if wildcard else module, node.start_point[0] + 1))


def _too_deep(root: tree_sitter.Node) -> bool:
    """Whether the tree nests deeper than :data:`_NESTING_MAX` (one linear pass of the query engine)."""
    cursor = tree_sitter.QueryCursor(query(_LANGUAGE, _DEEPER), match_limit=1)
    cursor.set_max_start_depth(0)
    return bool(cursor.matches(root))


class _Grpc:
    """The gRPC pass over one file (see the module docstring)."""

    def __init__(self, source: bytes, definitions: Definitions, grpc_imports: JvmImports) -> None:
        self.source = source
        self.defs = definitions
        self.imports = grpc_imports
        self.facts = GrpcFacts(definitions)
        self.bindings = Bindings(definitions)
        self.stub_names: frozenset[str] = frozenset()
        #: type name -> definition index, for ``Owner.STUB``
        self.types = {fact.name: index for index, fact in enumerate(definitions.facts) if fact.kind != "method"}

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.source)

    def run(self, found: list[tuple[int, dict[str, list[tree_sitter.Node]]]]) -> tuple:
        """The facts, from the matches of :data:`_OUTLINE_AND_LINKS` (other captures are skipped)."""
        calls: list[tuple[tree_sitter.Node, tree_sitter.Node]] = []
        #: (scope, name, value) of declarations whose value may hold a stub
        values: list[tuple[int, str, tree_sitter.Node]] = []
        assigns: list[tuple[tree_sitter.Node, tree_sitter.Node]] = []
        for _, captures in found:
            if "call" in captures:
                call = captures["call"][0]
                method = call.child_by_field_name("name")
                if method is not None:
                    calls.append((call, method))
            elif "assign" in captures:
                assign = captures["assign"][0]
                left, right = assign.child_by_field_name("left"), assign.child_by_field_name("right")
                if left is not None and right is not None and right.type in _STUB_EXPRESSIONS:
                    assigns.append((left, right))
            elif "param" in captures:
                self.parameter(captures["param"][0])
            elif "declaration" in captures:
                self.declare(captures["declaration"][0], values)
        for index, node in enumerate(self.defs.nodes):
            if node.type == "class_declaration":
                self.server(index, node)
        for _ in range(_PASSES_MAX):
            changed = False
            for scope, name, value in values:
                if self.bindings.names.get((scope, name)) is None:
                    changed = self.bindings.bind(scope, name, self.stub_of(value)) or changed
            for left, right in assigns:
                changed = self.assign(left, right) or changed
            if not changed:
                break
        self.stub_names = self.bindings.stub_names()
        for call, method in calls:
            self.call(call, method)
        return self.facts.done()

    # -- generated-code shapes -------------------------------------------------------------------

    def type_parts(self, node: tree_sitter.Node | None) -> list[str] | None:
        """A written type (``a.b.OrdersGrpc.OrdersStub``) as its parts; None for generic or odd types."""
        if node is None or node.type not in ("type_identifier", "scoped_type_identifier"):
            return None
        parts = squash(self.text(node)).split(".")
        return parts if all(parts) else None

    def type_stub(self, node: tree_sitter.Node | None) -> Stub | None:
        """The stub a declared type names (``OrdersGrpc.OrdersBlockingStub``), if it names one."""
        if node is None or node.type not in ("type_identifier", "scoped_type_identifier"):
            return None
        text = self.text(node)
        if not text.endswith("Stub"):
            return None
        parts = squash(text).split(".")
        return self.imports.generated(parts, JVM_STUB_SUFFIXES) if all(parts) else None

    def dotted(self, node: tree_sitter.Node | None) -> list[str] | None:
        """``a.b.C`` as ``["a", "b", "C"]`` for a chain of plain names (None otherwise)."""
        parts: list[str] = []
        while node is not None:
            if node.type == "identifier":
                parts.append(self.text(node))
                parts.reverse()
                return parts
            if node.type != "field_access":
                return None
            parts.append(self.text(node.child_by_field_name("field")))
            node = node.child_by_field_name("object")
        return None

    def created(self, call: tree_sitter.Node) -> Stub | None:
        """The stub ``<ns>.<Svc>Grpc.new...Stub(...)`` (or a statically imported factory) creates."""
        name = self.text(call.child_by_field_name("name"))
        receiver = call.child_by_field_name("object")
        if receiver is None:
            return self.imports.factory(None, name)
        if name not in JVM_STUB_FACTORIES:
            return None
        parts = self.dotted(receiver)
        return self.imports.factory(parts, name) if parts else None

    def server(self, index: int, node: tree_sitter.Node) -> None:
        """SERVER and HANDLER facts for a class extending ``ImplBase`` or implementing ``AsyncService``."""
        bases: list[tree_sitter.Node] = []
        superclass = node.child_by_field_name("superclass")
        if superclass is not None:
            bases.extend(superclass.named_children)
        interfaces = node.child_by_field_name("interfaces")
        if interfaces is not None:
            for child in interfaces.named_children:
                bases.extend(child.named_children if child.type == "type_list" else [child])
        for base in bases:
            parts = self.type_parts(base)
            if not parts:
                continue
            found = self.imports.generated(parts, ("ImplBase",))
            if found is None and parts[-1] == "AsyncService":
                owners = parts[:-1] or self.imports.paths.get("AsyncService", [])[:-1]
                owner = owners[-1] if owners else ""
                if len(owner) > 4 and owner.endswith("Grpc"):
                    found = owner[:-4], ".".join(parts[:-2])
            if found is None:
                continue
            service, namespace = found
            self.facts.add(GrpcRole.SERVER, service, "", node.child_by_field_name("name") or node, namespace)
            for child in self.defs.children(index):
                method = self.defs.nodes[child]
                name = self.defs.facts[child].name
                if method.type == "method_declaration" and name not in JVM_OBJECT_METHODS and _public(method):
                    anchor = method.child_by_field_name("name") or method
                    self.facts.add(GrpcRole.HANDLER, service, name, anchor, namespace)

    # -- data flow -----------------------------------------------------------------------------

    def parameter(self, node: tree_sitter.Node) -> None:
        name = node.child_by_field_name("name")
        if name is not None:
            stub = self.type_stub(node.child_by_field_name("type"))
            self.bindings.bind(self.defs.enclosing(node.start_byte), self.text(name), stub)

    def declare(self, node: tree_sitter.Node, values: list[tuple[int, str, tree_sitter.Node]]) -> None:
        """Bind the names a field/local declaration declares; queue the values that may hold a stub."""
        declared = self.type_stub(node.child_by_field_name("type"))
        scope = self.defs.enclosing(node.start_byte)
        for declarator in node.children_by_field_name("declarator"):
            name_node = declarator.child_by_field_name("name")
            if name_node is None:
                continue
            name = self.text(name_node)
            self.bindings.bind(scope, name, declared)
            value = declarator.child_by_field_name("value")
            if declared is None and value is not None and value.type in _STUB_EXPRESSIONS:
                values.append((scope, name, value))

    def assign(self, left: tree_sitter.Node, right: tree_sitter.Node) -> bool:
        """Bind what an assignment of a stub assigns to; whether anything changed."""
        stub = self.stub_of(right)
        if stub is None:
            return False
        if left.type == "identifier":
            name = self.text(left)
            scope = self.bindings.declaring(name, left.start_byte)
            return self.bindings.bind(self.class_of(left.start_byte) if scope is None else scope, name, stub)
        if left.type == "field_access":
            owner = left.child_by_field_name("object")
            field = left.child_by_field_name("field")
            if owner is not None and owner.type == "this" and field is not None:
                klass = self.class_of(left.start_byte)
                if klass >= 0:
                    return self.bindings.bind(klass, self.text(field), stub)
        return False

    def class_of(self, offset: int) -> int:
        """The innermost class, interface, enum or record holding ``offset`` (-1: none)."""
        index = self.defs.enclosing(offset)
        while index >= 0 and self.defs.kinds[index] == "method":
            index = self.defs.parents[index]
        return index

    def stub_of(self, node: tree_sitter.Node | None) -> Stub | None:
        """The stub the expression ``node`` evaluates to, if the file shows it is one."""
        for _ in range(_DEPTH_MAX):
            if node is None:
                return None
            kind = node.type
            if kind == "identifier":
                return self.bindings.lookup(self.text(node), node.start_byte)
            if kind == "parenthesized_expression":
                node = node.named_children[0] if node.named_child_count else None
                continue
            if kind == "cast_expression":
                return self.type_stub(node.child_by_field_name("type"))
            if kind == "field_access":
                owner = node.child_by_field_name("object")
                field = self.text(node.child_by_field_name("field"))
                if owner is not None and owner.type == "this":
                    klass = self.class_of(node.start_byte)
                    return self.bindings.names.get((klass, field)) if klass >= 0 else None
                if owner is not None and owner.type == "identifier" and self.text(owner) in self.types:
                    return self.bindings.names.get((self.types[self.text(owner)], field))
                return None
            if kind == "method_invocation":
                stub = self.created(node)
                if stub is not None:
                    return stub
                if not JVM_STUB_CONFIG.match(self.text(node.child_by_field_name("name"))):
                    return None
                node = node.child_by_field_name("object")
                continue
            return None
        return None

    def call(self, call: tree_sitter.Node, name_node: tree_sitter.Node) -> None:
        method = self.text(name_node)
        receiver = call.child_by_field_name("object")
        standard = jvm_standard_service(self.text(receiver) if receiver is not None else "", method)
        if standard is not None:
            self.facts.add(GrpcRole.SERVER, standard[0], "", name_node, standard[1])
            return
        if method in JVM_STUB_FACTORIES or receiver is None:
            stub = self.created(call)
            if stub is not None:
                self.facts.add(GrpcRole.CLIENT, stub[0], "", name_node, stub[1])
            return
        if method in JVM_STUB_METHODS or JVM_STUB_CONFIG.match(method):
            return
        if receiver.type == "identifier" and self.text(receiver) not in self.stub_names:
            return
        stub = self.stub_of(receiver)
        if stub is not None:
            self.facts.add(GrpcRole.CALL, stub[0], method, name_node, stub[1])


def _public(method: tree_sitter.Node) -> bool:
    """Whether a method is declared ``public`` and not ``static``."""
    modifiers = next((child for child in method.children if child.type == "modifiers"), None)
    if modifiers is None:
        return False
    words = {child.type for child in modifiers.children}
    return "public" in words and "static" not in words
