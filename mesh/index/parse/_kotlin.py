"""Kotlin facts: definitions, imports and grpc-java / grpc-kotlin evidence, from one tree-sitter parse.

Theory of operation: one query (``queries/kotlin/outline.scm``) finds every class, interface,
object, companion object, function, type alias and import; definitions arrive in document order and
:class:`~._common.Definitions` nests them by span (a function whose nearest enclosing definition
is a class, object or companion, or that sits in an anonymous object's body, is a method). A
declaration's line is its name's line (annotations above it do not count).

The pinned grammar rejects a class body whose last member shares its line with the closing brace
(``object O { val x = 1 }``). When a parse has errors, the bytes are parsed once more with each
blank before a ``}`` turned into ``;`` (same length, so offsets and lines do not move) and the
tree that gets further without an error is kept; text is always read from the original bytes. It
also reads ``@Ann("x")`` + newline + ``class A { ... }`` at the top of a file as one expression
(no error, no class): the ``@`` of such annotation lines is blanked and the bytes parsed again
(:func:`~._jvm_syntax.unglue_annotations`).

Each definition carries its signature and KDoc line, and the file its references
(``queries/kotlin/references.scm``), for code navigation (:mod:`._navigation`). Constants (enum
entries, ``const val``, and upper-case ``val`` of the file, an object or a companion: kind
``constant``) are definitions too, added once the passes that read the definitions' spans as
scopes are done. A use through an import alias (``import a.b.Status as S``) is a use of what it
stands for, and a bare use of a member imported from a class or object (``import a.b.Registry.create``)
is qualified by it (:func:`~._jvm_syntax.qualify_imported`). In an unglued tree
the annotation lines are statements: a top-level declaration's doc line is read above them, and
the name each starts with is a type reference, as in a tree the grammar read right.

The same traversal captures calls, properties, parameters and assignments, read by the link pass
(:mod:`._jvm_links`) and, when the bytes mention ``Grpc``, ``Stub`` or ``ImplBase``, by the gRPC
pass. Generated names are recognised
by shape (:class:`~._common.JvmImports`): ``<Svc>Grpc.<Svc>ImplBase`` /
``<Svc>GrpcKt.<Svc>CoroutineImplBase`` supertypes (SERVER, and a HANDLER per ``override fun``
of the class), ``<Svc>Grpc.new[Blocking|Future]Stub(ch)`` and ``<Svc>GrpcKt.<Svc>CoroutineStub(ch)``
(CLIENT), ``ProtoReflectionService.newInstance()`` and ``health.getHealthService()`` (SERVER of the
runtime's standard ``ServerReflection`` and ``Health``). Stubs are followed by a flow-insensitive data flow run to a fixed point over scopes
(functions, classes, objects; :class:`~._common.Bindings`): a property, constructor property,
parameter or local holds a stub when its declared type is a generated stub type or a stub is
assigned to it (``by lazy { ... }`` included); ``with...(...)`` calls on a stub give the stub
back; a stub in a companion object is visible in its class; a name declared in an inner scope
with another type hides an outer stub. A call ``x.m(...)`` or ``x?.m(...)`` on a stub (``x``,
``this.x``, ``Obj.x``, or a chain ending in a stub) is a CALL of ``m``. The namespace is the
qualifier written before ``<Svc>Grpc``/``<Svc>GrpcKt`` at the use site ("" when none).

Only single-node patterns are queried for expressions (a pattern constraining a child after a deep
subtree costs quadratic time on long chains), and a tree that error recovery left with huge ERROR
nodes is not queried at all (:func:`~._common.too_broken`).
"""

from __future__ import annotations

import re
from typing import Final

import attrs
import tree_sitter

from .._facts import Definition, FileFacts, GrpcRole, Import, Reference, ReferenceKind
from . import _jvm_links, _jvm_syntax, _navigation, _ts
from ._common import (
    JVM_GRPC_HINTS,
    JVM_IMPL_BASE_SUFFIXES,
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
    syntax_error,
    too_broken,
)

__all__ = ["extract"]

_LANGUAGE: Final = "kotlin"

#: Definitions and imports (``queries/kotlin/outline.scm``).
_OUTLINE: Final = _navigation.query_text(_LANGUAGE, "outline")

_GRPC: Final = """
(call_expression) @call
(property_declaration) @property
(class_parameter) @param
(parameter) @param
(assignment) @assign
"""

#: One traversal of the tree for the outline, the gRPC pass and the link pass (:mod:`._jvm_links`
#: reads the gRPC captures and its own).
_OUTLINE_AND_LINKS: Final = _OUTLINE + _GRPC + _jvm_links.KOTLIN_CAPTURES

#: Nesting (named nodes) past which code navigation's query turns quadratic (a call's pattern stays
#: open across its receiver, which in a chain holds every earlier link: 4,000 links cost 3 to 6
#: times what 2,000 do): a tree that deep (a generated chain of thousands of calls) gets no references.
_NESTING_MAX: Final = 256
_DEEPER: Final = "(_ " * _NESTING_MAX + "(_) @deep" + ")" * _NESTING_MAX

#: Bytes without any of these cannot hold grpc-java or grpc-kotlin evidence.
_GRPC_HINTS: Final = JVM_GRPC_HINTS

#: An ``@`` (of an annotation, perhaps blanked for the parse) and the last name of the annotation after it.
_AT: Final = re.compile(rb"@")
_ANNOTATION_NAME: Final = re.compile(rb"(?:[A-Za-z_]\w*\s*\.\s*)*([A-Za-z_]\w*)")
#: What the name of an unglued annotation reads as.
_UNGLUED_KINDS: Final = frozenset({ReferenceKind.CALL, ReferenceKind.USE})

#: A blank before a closing brace: the spot the one-line-body retry turns into ``;``.
_BLANK_BEFORE_BRACE: Final = re.compile(rb"[ \t]\}")

_CLASS_KINDS: Final = frozenset({"class", "interface", "enum"})
_OBJECTS: Final = frozenset({"object_declaration", "companion_object"})

#: Expressions that can evaluate to a stub (anything else is not followed).
_STUB_EXPRESSIONS: Final = frozenset(
    {"identifier", "navigation_expression", "call_expression", "parenthesized_expression"}
)
#: How many links of a chain (parentheses, ``with...`` calls) a stub is followed through.
_DEPTH_MAX: Final = 32
#: Passes of the data flow (each pass lets a stub travel one more assignment).
_PASSES_MAX: Final = 6


def extract(source: bytes) -> FileFacts:
    """Definitions, imports and gRPC facts of a Kotlin file (a bug raises; ``parse.extract`` records it as the file's error)."""
    parsed_root = _parse(source)
    if parsed_root is None:  # no bug: the grammar's runaway parse was cut, and the file says why
        return FileFacts(language=_LANGUAGE, error=GAVE_UP)
    root, parsed = parsed_root
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
        name_node = captures["name"][0] if "name" in captures else node.child_by_field_name("name")
        name = _ts.text(name_node, source) if name_node is not None else "Companion"
        line = (name_node or node).start_point[0] + 1
        parent = definitions.parent_of(node.start_byte)
        definitions.add(node, name, _kind(node, definitions, parent), parent, line=line)
    grpc = _Grpc(source, definitions, grpc_imports).run(found) if wanted else ()
    links = _jvm_links.extract(_LANGUAGE, source, definitions, imports, found)
    constants = _constants(definitions, [match[1] for match in found if "constant" in match[1]], source)
    references: tuple[Reference, ...] = ()
    if not _too_deep(root):
        references = _navigation.references(_LANGUAGE, root, source, aliases=_aliases(imports))
    unglued = _unglued_ats(source, parsed)
    if unglued:
        references = _unglued_navigation(source, unglued, definitions, references)
    declared = frozenset([*(fact.name for fact in definitions.facts), *(fact.name for _, fact in constants)])
    members = _jvm_syntax.imported_members(item.module for item in imports)
    references = _jvm_syntax.qualify_imported(references, members, declared)
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


#: The error of a file whose parse cost more than any sound file of its size.
GAVE_UP: Final = "the Kotlin grammar gave up on this file: parsing it costs more than any sound file"


def _parse(source: bytes) -> tuple[tree_sitter.Node, bytes] | None:
    """The root of the best tree and the bytes it was parsed from: the source's (its top-level
    annotations unglued), or the one-line-body retry's when that gets further. A parse that costs
    more than a sound file of its size is given up (:func:`~._jvm_syntax.parse_bounded`): the first
    gives None (the file keeps its text, not its facts), a retry is dropped."""
    root = _jvm_syntax.parse_bounded(_LANGUAGE, source)
    if root is None:
        # the grammar has pathological inputs (gigabytes, then a crash, on some malformed files)
        return None
    unglued = _jvm_syntax.unglue_annotations(source, root)
    retry = _jvm_syntax.parse_bounded(_LANGUAGE, unglued) if unglued is not None else None
    if retry is not None and _first_error(retry) >= _first_error(root):
        root, source = retry, unglued  # type: ignore[assignment]
    if not root.has_error:
        return root, source
    patched = _BLANK_BEFORE_BRACE.sub(b";}", source)
    if patched == source:
        return root, source
    retry = _jvm_syntax.parse_bounded(_LANGUAGE, patched)
    if retry is not None and (not retry.has_error or _first_error(retry) > _first_error(root)):
        return retry, patched
    return root, source


def _unglued_ats(source: bytes, parsed: bytes) -> list[int]:
    """The offsets of the ``@`` that :func:`~._jvm_syntax.unglue_annotations` blanked for the tree."""
    if parsed is source:
        return []
    return [match.start() for match in _AT.finditer(source) if parsed[match.start()] == 0x20]


def _unglued_navigation(
    source: bytes, ats: list[int], definitions: Definitions, references: tuple[Reference, ...]
) -> tuple[Reference, ...]:
    """Navigation facts as if the unglued annotation lines were annotations again: the doc line of a
    top-level declaration sits above them, and the names they start with are types (``@Service``,
    ``@RequestMapping("/api")``) rather than a value read or a call. Answers the references."""
    rows = {source.count(b"\n", 0, at) for at in ats}
    for index, node in enumerate(definitions.nodes):
        if definitions.facts[index].doc or node.parent is None or node.parent.parent is not None:
            continue
        first = None
        previous = node.prev_named_sibling
        while previous is not None and previous.start_point[0] in rows:
            first, previous = previous, previous.prev_named_sibling
        if first is not None:
            doc = _navigation.doc_line(_LANGUAGE, first, source)
            definitions.facts[index] = attrs.evolve(definitions.facts[index], doc=doc)
    names = set()
    for at in ats:
        match = _ANNOTATION_NAME.match(source, at + 1)
        if match is not None:
            names.add((source.count(b"\n", 0, at) + 1, match.group(1).decode("utf-8", "replace")))
    return tuple(
        attrs.evolve(reference, kind=ReferenceKind.TYPE)
        if reference.kind in _UNGLUED_KINDS and (reference.line, reference.name) in names
        else reference
        for reference in references
    )


def _aliases(imports: list[Import]) -> dict[str, str]:
    """alias -> the name it stands for, for each ``import a.b.Name as Alias``."""
    return {
        item.names[0]: item.module.rsplit(".", 1)[-1]
        for item in imports
        if item.names and not item.module.endswith(".*")
    }


#: How the Kotlin style guide names a constant (``MAX_ITEMS``, ``DEFAULT``).
_CONSTANT_NAME: Final = re.compile(r"[A-Z][A-Z0-9_]*")


def _constants(
    definitions: Definitions, captured: list[dict[str, list[tree_sitter.Node]]], source: bytes
) -> list[tuple[int, Definition]]:
    """(start, definition) of each constant (kind ``constant``, its container the class, object or
    enum around it): an enum entry, a ``const val``, and a ``val`` of the file, an object or a
    companion object named as a constant without a getter of its own.

    They are kept out of ``definitions`` itself: the gRPC and link passes read its spans as scopes
    (a stub held by an object's property is the object's), and a property is none."""
    out: list[tuple[int, Definition]] = []
    for captures in captured:
        node, name = captures["constant"][0], captures["name"][0]
        if node.type == "property_declaration" and not _constant_property(node, name, definitions, source):
            continue
        signature, doc = _navigation.details(_LANGUAGE, node, source)
        fact = Definition(_ts.text(name, source), "constant", definitions.symbol(node.start_byte),
                          name.start_point[0] + 1, node.end_point[0] + 1, signature, doc)  # fmt: skip
        out.append((name.start_byte, fact))
    return out


def _constant_property(node: tree_sitter.Node, name: tree_sitter.Node, definitions: Definitions, source: bytes) -> bool:
    modifiers = next((child for child in node.children if child.type == "modifiers"), None)
    if modifiers is not None and any(
        child.type == "property_modifier" and _ts.text(child, source) == "const" for child in modifiers.children
    ):
        return True
    if not _CONSTANT_NAME.fullmatch(_ts.text(name, source)):
        return False
    if not any(child.type == "val" for child in node.children) or any(
        child.type == "getter" for child in node.children
    ):
        return False
    holder = definitions.enclosing(node.start_byte)
    return holder < 0 or definitions.nodes[holder].type in _OBJECTS


def _first_error(root: tree_sitter.Node) -> int:
    """The byte offset of the first ERROR or MISSING node in document order (the end if none)."""
    node = _ts.first_error(root)
    return root.end_byte if node is None else node.start_byte


def _kind(node: tree_sitter.Node, definitions: Definitions, parent: int) -> str:
    kind = node.type
    if kind == "class_declaration":
        if any(child.type == "interface" for child in node.children):
            return "interface"
        modifiers = next((child for child in node.children if child.type == "modifiers"), None)
        if modifiers is not None and any(
            modifier.type == "class_modifier" and modifier.text == b"enum" for modifier in modifiers.children
        ):
            return "enum"
        return "class"
    if kind in _OBJECTS:
        return "class"
    if kind == "type_alias":
        return "type"
    if parent >= 0 and definitions.kinds[parent] in _CLASS_KINDS:
        return "method"
    holder = node.parent
    if holder is not None and holder.type == "class_body":
        return "method"
    return "function"


def _import(node: tree_sitter.Node, source: bytes, imports: list[Import], grpc_imports: JvmImports) -> None:
    path = next((child for child in node.named_children if child.type == "qualified_identifier"), None)
    if path is None:
        return
    parts = [_ts.text(part, source) for part in path.named_children if part.type == "identifier"]
    module = ".".join(parts)
    wildcard = False
    alias = ""
    seen_as = False
    for child in node.children:
        if child.type == "*":
            wildcard = True
        elif child.type == "as":
            seen_as = True
        elif seen_as and child.type == "identifier":
            alias = _ts.text(child, source)
    grpc_imports.add(parts, wildcard, alias)
    imports.append(Import(module + ".*" if wildcard else module, node.start_point[0] + 1, (alias,) if alias else ()))


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
        #: object/companion name -> definition index, for ``Obj.stub``
        self.objects = {
            fact.name: index
            for index, fact in enumerate(definitions.facts)
            if definitions.nodes[index].type in _OBJECTS
        }

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.source)

    def run(self, found: list[tuple[int, dict[str, list[tree_sitter.Node]]]]) -> tuple:
        """The facts, from the matches of :data:`_OUTLINE_AND_LINKS` (other captures are skipped)."""
        calls: list[tree_sitter.Node] = []
        #: (scope, name, value) of declarations whose value may hold a stub
        values: list[tuple[int, str, tree_sitter.Node]] = []
        assigns: list[tuple[tree_sitter.Node, tree_sitter.Node]] = []
        for _, captures in found:
            if "call" in captures:
                calls.append(captures["call"][0])
            elif "assign" in captures:
                assign = captures["assign"][0]
                operator = assign.child_by_field_name("operator")
                left, right = assign.child_by_field_name("left"), assign.child_by_field_name("right")
                if left is None or right is None or (operator is not None and operator.type != "="):
                    continue
                if right.type in _STUB_EXPRESSIONS:
                    assigns.append((left, right))
            elif "property" in captures or "param" in captures:
                self.declare((captures.get("property") or captures["param"])[0], values)
        for index, node in enumerate(self.defs.nodes):
            if node.type == "class_declaration" or node.type == "object_declaration":
                self.server(index, node)
        for _ in range(_PASSES_MAX):
            changed = False
            for scope, name, value in values:
                if self.bindings.names.get((scope, name)) is None:
                    changed = self.bind(scope, name, self.stub_of(value)) or changed
            for left, right in assigns:
                changed = self.assign(left, right) or changed
            if not changed:
                break
        self.stub_names = self.bindings.stub_names()
        for call in calls:
            self.call(call)
        return self.facts.done()

    # -- generated-code shapes -------------------------------------------------------------------

    def dotted(self, node: tree_sitter.Node | None) -> list[str] | None:
        """``a.b.C`` as ``["a", "b", "C"]`` for a chain of plain names (None otherwise)."""
        parts: list[str] = []
        while node is not None:
            if node.type == "identifier":
                parts.append(self.text(node))
                parts.reverse()
                return parts
            if node.type != "navigation_expression" or node.named_child_count != 2:
                return None
            if not any(child.type == "." for child in node.children):
                return None
            last = node.named_children[1]
            if last.type != "identifier":
                return None
            parts.append(self.text(last))
            node = node.named_children[0]
        return None

    def type_stub(self, node: tree_sitter.Node | None) -> Stub | None:
        """The stub a declared type names (``OrdersGrpc.OrdersBlockingStub``, nullable or not)."""
        if node is None or not self.text(node).rstrip("? \t").endswith("Stub"):
            return None
        if node.type == "nullable_type" and node.named_child_count:
            node = node.named_children[0]
        if node.type != "user_type":
            return None
        parts = [self.text(child) for child in node.named_children if child.type == "identifier"]
        return self.imports.generated(parts, JVM_STUB_SUFFIXES)

    def created(self, call: tree_sitter.Node) -> tuple[Stub, tree_sitter.Node] | None:
        """The stub a call creates and the name node to anchor it at, for a generated constructor or factory."""
        if not call.named_child_count:
            return None
        callee = call.named_children[0]
        parts = self.dotted(callee)
        if not parts:
            return None
        anchor = callee if callee.type == "identifier" else callee.named_children[1]
        stub = self.imports.generated(parts, ("CoroutineStub",))
        if stub is None:
            stub = self.imports.factory(parts[:-1], parts[-1])
        return (stub, anchor) if stub is not None else None

    def server(self, index: int, node: tree_sitter.Node) -> None:
        """SERVER and HANDLER facts for a class or object extending a generated ``ImplBase``."""
        specifiers = next((child for child in node.named_children if child.type == "delegation_specifiers"), None)
        if specifiers is None:
            return
        for specifier in specifiers.named_children:
            base = specifier.named_children[0] if specifier.named_child_count else None
            if base is not None and base.type == "constructor_invocation" and base.named_child_count:
                base = base.named_children[0]
            if base is None or base.type != "user_type":
                continue
            parts = [self.text(child) for child in base.named_children if child.type == "identifier"]
            found = self.imports.generated(parts, JVM_IMPL_BASE_SUFFIXES)
            if found is None:
                continue
            service, namespace = found
            self.facts.add(GrpcRole.SERVER, service, "", node.child_by_field_name("name") or node, namespace)
            for child in self.defs.children(index):
                method = self.defs.facts[child]
                function = self.defs.nodes[child]
                if method.kind == "method" and method.name not in JVM_OBJECT_METHODS and _overrides(function):
                    anchor = function.child_by_field_name("name") or function
                    self.facts.add(GrpcRole.HANDLER, service, method.name, anchor, namespace)

    # -- data flow -----------------------------------------------------------------------------

    def declare(self, node: tree_sitter.Node, values: list[tuple[int, str, tree_sitter.Node]]) -> None:
        """Bind the name a property or parameter declares; queue a value that may hold a stub."""
        name_node = None
        declared = None
        value = None
        if node.type == "property_declaration":
            variable = next((child for child in node.named_children if child.type == "variable_declaration"), None)
            if variable is None or not variable.named_child_count:
                return
            name_node = variable.named_children[0]
            if variable.named_child_count > 1:
                declared = variable.named_children[1]
            value = _value_of(node)
        else:
            for child in node.named_children:
                if child.type == "identifier" and name_node is None:
                    name_node = child
                elif child.type in ("user_type", "nullable_type"):
                    declared = child
        if name_node is None or name_node.type != "identifier":
            return
        stub = self.type_stub(declared)
        scope = self.defs.enclosing(node.start_byte)
        name = self.text(name_node)
        self.bind(scope, name, stub)
        if stub is None and value is not None and value.type in _STUB_EXPRESSIONS:
            values.append((scope, name, value))

    def bind(self, scope: int, name: str, stub: Stub | None) -> bool:
        """:meth:`Bindings.bind`; a stub in a companion object is also visible in the class owning it."""
        changed = self.bindings.bind(scope, name, stub)
        if changed and scope >= 0 and self.defs.nodes[scope].type == "companion_object":
            owner = self.defs.parents[scope]
            if owner >= 0:
                self.bindings.bind(owner, name, stub)
        return changed

    def assign(self, left: tree_sitter.Node, right: tree_sitter.Node) -> bool:
        """Bind what an assignment of a stub assigns to; whether anything changed."""
        stub = self.stub_of(right)
        if stub is None:
            return False
        if left.type == "identifier":
            name = self.text(left)
            scope = self.bindings.declaring(name, left.start_byte)
            return self.bind(self.class_of(left.start_byte) if scope is None else scope, name, stub)
        if left.type == "navigation_expression" and left.named_child_count == 2:
            owner, member = left.named_children
            if owner.type == "this_expression" and member.type == "identifier":
                klass = self.class_of(left.start_byte)
                if klass >= 0:
                    return self.bind(klass, self.text(member), stub)
        return False

    def class_of(self, offset: int) -> int:
        """The innermost class, object or companion holding ``offset`` (-1: none)."""
        index = self.defs.enclosing(offset)
        while index >= 0 and self.defs.kinds[index] not in _CLASS_KINDS:
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
            if kind == "navigation_expression" and node.named_child_count == 2:
                owner, member = node.named_children
                if member.type != "identifier" or not any(child.type in (".", "?.") for child in node.children):
                    return None
                if owner.type == "this_expression":
                    klass = self.class_of(node.start_byte)
                    return self.bindings.names.get((klass, self.text(member))) if klass >= 0 else None
                if owner.type == "identifier" and self.text(owner) in self.objects:
                    return self.bindings.names.get((self.objects[self.text(owner)], self.text(member)))
                return None
            if kind == "call_expression" and node.named_child_count:
                created = self.created(node)
                if created is not None:
                    return created[0]
                callee = node.named_children[0]
                if callee.type != "navigation_expression" or callee.named_child_count != 2:
                    return None
                owner, member = callee.named_children
                if not JVM_STUB_CONFIG.match(self.text(member)):
                    return None
                node = owner
                continue
            return None
        return None

    def call(self, call: tree_sitter.Node) -> None:
        callee = call.named_children[0] if call.named_child_count else None
        if callee is None:
            return
        if callee.type == "identifier":
            name = self.text(callee)
        elif callee.type == "navigation_expression" and callee.named_child_count == 2:
            name = self.text(callee.named_children[1])
        else:
            return
        owner_text = self.text(callee.named_children[0]) if callee.type == "navigation_expression" else ""
        standard = jvm_standard_service(owner_text, name)
        if standard is not None:
            self.facts.add(GrpcRole.SERVER, standard[0], "", callee.named_children[-1], standard[1])
            return
        if name in JVM_STUB_FACTORIES or name.endswith("Stub") or callee.type == "identifier":
            created = self.created(call)
            if created is not None:
                stub, anchor = created
                self.facts.add(GrpcRole.CLIENT, stub[0], "", anchor, stub[1])
            return
        if name in JVM_STUB_METHODS or JVM_STUB_CONFIG.match(name):
            return
        if not any(child.type in (".", "?.") for child in callee.children):
            return
        owner, member = callee.named_children
        if member.type != "identifier":
            return
        if owner.type == "identifier" and self.text(owner) not in self.stub_names:
            return
        stub = self.stub_of(owner)
        if stub is not None:
            self.facts.add(GrpcRole.CALL, stub[0], name, member, stub[1])


def _value_of(property_node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The initial value of a property: what follows ``=``, or the last expression of ``by lazy { ... }``."""
    seen_equals = False
    for child in property_node.children:
        if child.type == "=":
            seen_equals = True
        elif seen_equals and child.is_named:
            return child
        elif child.type == "property_delegate":
            call = child.named_children[0] if child.named_child_count else None
            if call is None or call.type != "call_expression":
                return None
            lambda_ = next(
                (
                    grand
                    for part in call.named_children
                    for grand in part.named_children
                    if grand.type == "lambda_literal"
                ),
                None,
            )
            if lambda_ is not None and lambda_.named_child_count:
                return lambda_.named_children[-1]
            return None
    return None


def _overrides(function: tree_sitter.Node) -> bool:
    modifiers = next((child for child in function.children if child.type == "modifiers"), None)
    return modifiers is not None and any(
        modifier.type == "member_modifier" and modifier.text == b"override" for modifier in modifiers.children
    )
