"""C++ facts: definitions, ``#include`` directives and grpc++ evidence, from one parse.

Theory of operation: one flat query (``queries/cpp/outline.scm``) finds namespaces, classes,
structs, enums (with a body), function definitions, member function declarations and prototypes,
and ``#include`` lines; definitions arrive in document order and a stack of the open ones gives
each its dotted container (``acme::orders`` nests as ``acme.orders``). A function is a ``method``
when it is declared or defined in a class body, or defined out of line under a qualifier that is
not a namespace of this file (``void Orders::Impl::Get()`` is the method ``Get`` of
``Orders.Impl``). A prototype outside any class counts only when the file does not define the
function. An anonymous namespace is no container; ``namespace a::b {`` is the module ``a.b``. A
template's definition starts where the class or function does, after ``template<>``. Enumerators,
``const``/``constexpr`` variables at namespace level and ``static const``/``constexpr`` members are
``constant`` definitions, type aliases (``using X = ...;``, ``typedef``) ``type`` ones, object-like
macros with a value ``constant`` and function-like ones ``function``: members, never the scope a
gRPC fact is found in (line: the name's).

gRPC work runs only when the bytes mention a generated name (``::NewStub``, ``::Stub``,
``::Service``...) or a switch of a standard service (``grpc::EnableDefaultHealthCheckService(true)``
and ``InitProtoReflectionServerBuilderPlugin()`` are SERVERs of the runtime's ``Health`` and
``ServerReflection``). Generated names are recognised by shape; the qualifier written before the
service is the namespace (``acme::orders``, "" when none):

* a class deriving from ``[ns::]Svc::Service`` (or ``CallbackService``, ``AsyncService``, a
  ``Svc::With...Method_X<...>`` wrapper) is a SERVER; each method it declares or defines with
  ``override`` (constructors and destructors aside) is a HANDLER, and so is each out-of-line
  definition of one of those in the file;
* ``[ns::]Svc::NewStub(channel)``, ``make_unique``/``make_shared<Svc::Stub>`` and ``new
  Svc::Stub(...)`` are CLIENTs, and so is a variable declared ``Svc::Stub stub(channel)``;
* a local, parameter, global or member declared with a stub type (``Svc::Stub``,
  ``Svc::StubInterface``, held raw or in a ``unique_ptr``/``shared_ptr``) or assigned a stub
  (``auto stub = ...``, ``stub_ = ...``, a constructor's ``stub_(...)`` initializer) holds one; a
  method called on a holder (``stub->M``, ``stub.M``, ``this->stub_->M``, ``stub->async()->M``)
  is a CALL of ``M`` as written, bar the smart pointer's own (``get``, ``reset``...).

Holders are looked up by scope: function and lambda bodies nested by byte range, then the members
of the class the code belongs to (the enclosing class, or the qualifier of an out-of-line method,
so a member declared in a header is still found from its initializer), then file-level variables.

Code navigation: each definition's signature is the declaration up to its body, after its
``template<...>`` header; its doc line is the first line of the comments above it (``//``, ``///``,
``/** */``, Doxygen's ``@brief``), above the template header when there is one. References come from
``queries/cpp/references.scm``, bar the last name of a qualified declarator (``void Orders::Get()``
declares ``Get``) and what a using declaration names, which the outline query finds. Names are then
read through the file's own aliases: a qualifier that is a namespace alias is the namespace, an
unqualified name a ``using a::b::N;`` brought in is qualified ``a.b`` (not where a function
declares a parameter or local of that name, nor when the file defines the name), and a use of a
type alias is also one of the type it names (with what it binds). ``T x(y);`` in a body parses
as a prototype: ``y`` is then an argument, not a type.
"""

from __future__ import annotations

import re
from typing import Final

import attrs
import tree_sitter

from .._facts import SIGNATURE_CHARS_MAX, Definition, FileFacts, GrpcFact, GrpcRole, Import, Reference, ReferenceKind
from . import _navigation, _ts
from ._common import too_broken
from ._tree import Ranges, first_error_line, safe_captures

__all__ = ["extract"]

_LANGUAGE: Final = "cpp"

#: Definitions, ``#include`` lines and qualified declarators (``queries/cpp/outline.scm``).
_DEFINITIONS: Final = _navigation.query_text(_LANGUAGE, "outline")

_GRPC: Final = """
[(function_definition) (lambda_expression)] @scope
(declaration) @declaration
(field_declaration) @field
[(parameter_declaration) (optional_parameter_declaration)] @parameter
(field_initializer) @initializer
(assignment_expression) @assignment
(call_expression) @call
(new_expression) @new
(base_class_clause) @bases
"""

_GRPC_HINT: Final = re.compile(
    rb"::(?:NewStub|Stub|StubInterface|Service|CallbackService|AsyncService|ExperimentalCallbackService)\b"
    rb"|::With\w+Method_|EnableDefaultHealthCheckService|InitProtoReflectionServerBuilderPlugin"
)
#: grpc++'s switches for the runtime's standard services: function -> (service, namespace)
_STANDARD_SWITCHES: Final = {
    "EnableDefaultHealthCheckService": ("Health", "grpc.health.v1"),
    "InitProtoReflectionServerBuilderPlugin": ("ServerReflection", "grpc.reflection.v1alpha"),
}
_SERVICE_BASES: Final = frozenset(
    {"Service", "CallbackService", "AsyncService", "ExperimentalCallbackService", "StreamedUnaryService",
     "SplitStreamedService", "StreamedService"}
)  # fmt: skip
_STUB_TYPES: Final = frozenset({"Stub", "StubInterface"})
#: methods of the smart pointer or of the stub's own plumbing: calling them is no RPC
_NOT_RPCS: Final = frozenset({"async", "experimental_async", "get", "reset", "release", "swap"})
_WRAPPING_DECLARATORS: Final = frozenset(
    {"pointer_declarator", "reference_declarator", "attributed_declarator", "parenthesized_declarator"}
)
_WRAPPERS: Final = frozenset({"parenthesized_expression", "pointer_expression"})
_DEPTH_MAX: Final = 24
_SPACES: Final = re.compile(r"\s+")

_queries: dict[str, tree_sitter.Query] = {}


#: The parameters and locals of functions (read only when a using declaration may be shadowed).
_LOCALS: Final = """
[(parameter_declaration declarator: (_) @declared) (optional_parameter_declaration declarator: (_) @declared)
 (init_declarator declarator: (_) @declared) (declaration declarator: (identifier) @declared)]
"""


def _query(part: str) -> tree_sitter.Query:
    query = _queries.get(part)
    if query is None:
        text = {"defs": _DEFINITIONS, "locals": _LOCALS}.get(part, _GRPC)
        query = _queries[part] = tree_sitter.Query(_ts.language(_LANGUAGE), text)
    return query


def extract(source: bytes) -> FileFacts:
    """Definitions, includes and gRPC facts of a C++ file."""
    root = _ts.parse(_LANGUAGE, source).root_node
    return _Extraction(source, root).facts()


def _signature(node: tree_sitter.Node, source: bytes) -> str:
    """The declaration up to its body, after its ``template<...>`` header when it has one."""
    signature = _navigation.signature(node, source)
    parent = node.parent
    if parent is None or parent.type != "template_declaration":
        return signature
    parameters = parent.child_by_field_name("parameters")
    if parameters is None:
        return signature
    header = _SPACES.sub(" ", source[parent.start_byte : parameters.end_byte].decode("utf-8", "replace"))
    text = f"{header} {signature}"
    return text if len(text) <= SIGNATURE_CHARS_MAX else text[: SIGNATURE_CHARS_MAX - 1].rstrip() + "…"


#: Outline captures that are members, not scopes (see ``queries/cpp/outline.scm``).
_MEMBER_CAPTURES: Final = frozenset({"enumerator", "constant", "constant_member", "alias", "macro", "function_macro"})
#: Where a declaration is at namespace level (the preprocessor's conditionals looked through).
_NAMESPACE_LEVEL: Final = frozenset(
    {"translation_unit", "declaration_list", "template_declaration", "linkage_specification"}
)


_VALUE_NAME: Final = re.compile(r"^(?:k[A-Z]|[A-Z])")


def _constructor_argument(reference: Reference) -> Reference | None:
    """What the grammar read as a parameter type in ``T x(y);`` is an argument: a value read when
    capitalised or spelled as a constant (as elsewhere), else a local (no reference)."""
    if reference.kind != ReferenceKind.TYPE:
        return reference
    return attrs.evolve(reference, kind=ReferenceKind.USE) if _VALUE_NAME.match(reference.name) else None


#: How far up a parameter or local is looked for the function declaring it.
_SCOPE_DEPTH_MAX: Final = 256


def _once(meanings: dict, name: str, meaning: object) -> None:
    """Record what ``name`` means; a name given two meanings means nothing certain (None)."""
    if name in meanings and meanings[name] != meaning:
        meanings[name] = None
    else:
        meanings[name] = meaning


def _last_name(node: tree_sitter.Node) -> tree_sitter.Node:
    """The last name of a (qualified) name."""
    for _ in range(_SCOPE_DEPTH_MAX):
        inner = node.child_by_field_name("name") if node.type == "qualified_identifier" else None
        if inner is None:
            break
        node = inner
    return node


def _ancestor(node: tree_sitter.Node, levels: int) -> tree_sitter.Node | None:
    for _ in range(levels):
        if node.parent is None:
            return None
        node = node.parent
    return node


def _namespace_level(node: tree_sitter.Node) -> bool:
    parent = node.parent
    for _ in range(_DEPTH_MAX):
        if parent is None or not parent.type.startswith("preproc_"):
            break
        parent = parent.parent
    return parent is not None and parent.type in _NAMESPACE_LEVEL


def _unwrap_declarator(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The declarator under pointer/reference wrappers (``int* f()`` -> the ``f()`` declarator)."""
    for _ in range(_DEPTH_MAX):
        if node is None or node.type not in _WRAPPING_DECLARATORS:
            return node
        inner = node.child_by_field_name("declarator")
        if inner is None:
            named = [c for c in node.named_children if c.type not in ("type_qualifier", "attribute_declaration")]
            inner = named[-1] if named else None
        node = inner
    return None


def _function_name(declarator: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The name node of a function declarator (possibly wrapped), else None."""
    node = _unwrap_declarator(declarator)
    if node is None or node.type != "function_declarator":
        return None
    return node.child_by_field_name("declarator")


@attrs.frozen
class _Binding:
    """What a name holds: its declared type and/or the value it is initialised or assigned with."""

    type: tree_sitter.Node | None = None
    value: tree_sitter.Node | None = None


@attrs.define
class _Extraction:
    """The state of one file's extraction (private to one call of :func:`extract`)."""

    source: bytes
    root: tree_sitter.Node
    definitions: list[Definition] = attrs.field(factory=list)
    paths: list[str] = attrs.field(factory=list)
    def_nodes: list[tree_sitter.Node] = attrs.field(factory=list)
    def_ranges: Ranges = attrs.field(factory=lambda: Ranges(()))
    #: dotted container -> indices of the definitions it contains
    by_container: dict[str, list[int]] = attrs.field(factory=dict)
    imports: list[Import] = attrs.field(factory=list)
    scopes: Ranges = attrs.field(factory=lambda: Ranges(()))
    locals: dict[int, dict[str, list[_Binding]]] = attrs.field(factory=dict)
    #: dotted class path -> member name -> bindings
    members: dict[str, dict[str, list[_Binding]]] = attrs.field(factory=dict)
    #: name -> its bindings in every scope and class
    by_name: dict[str, list[_Binding]] = attrs.field(factory=dict)
    stub_names: dict[str, bool] = attrs.field(factory=dict)
    memo: dict[int, tuple[str, str] | None] = attrs.field(factory=dict)
    grpc: list[tuple[int, int, GrpcFact]] = attrs.field(factory=list)
    #: (line, name) of the last name of each qualified declarator (``void Orders::Get()``)
    declared: set[tuple[int, str]] = attrs.field(factory=set)
    #: the lines of the using declarations (``using acme::Order;``)
    using_lines: set[int] = attrs.field(factory=set)
    #: (line, name) of the arguments of ``T x(y);`` in a body, which the grammar reads as parameter types
    vexing: set[tuple[int, str]] = attrs.field(factory=set)
    #: name -> the namespace a using declaration takes it from (``using acme::Order;``), and its line
    using_names: dict[str, tuple[str, int] | None] = attrs.field(factory=dict)
    #: namespace alias -> the namespace, dotted (``namespace pr = acme::pricing;``)
    namespace_aliases: dict[str, str | None] = attrs.field(factory=dict)
    #: type alias -> (type, its namespace dotted) (``using Bill = acme::Invoice;``, ``typedef``)
    type_aliases: dict[str, tuple[str, str] | None] = attrs.field(factory=dict)
    #: every definition in document order: :attr:`definitions` (the scopes the gRPC pass reads)
    #: and the members that are no scope (enumerators, constants, type aliases, macros)
    outline: list[Definition] = attrs.field(factory=list)

    def _using_declaration(self, node: tree_sitter.Node) -> None:
        """Note ``using a::b::N;`` (not ``using namespace``) at namespace level."""
        if any(child.type == "namespace" for child in node.children) or not _namespace_level(node):
            return
        named = [c for c in node.named_children if c.type == "qualified_identifier"]
        parts = self.segments(named[0]) if named else []
        if len(parts) >= 2 and parts[-1]:
            _once(self.using_names, parts[-1], (".".join(filter(None, parts[:-1])), _ts.line(node)))

    def _through_aliases(self, found: tuple[Reference, ...]) -> tuple[Reference, ...]:
        """References read through the file's aliases: a qualifier starting with a namespace alias
        is the namespace (``pr::shipping`` is ``acme::pricing::shipping``); an unqualified name a
        using declaration brought in is qualified by its namespace, unless the file defines the
        name or a function around it declares it (a parameter or local of that name); a use of a
        type alias is also one of the type it names (``Bill invoice`` uses ``acme::Invoice``, and
        binds ``invoice`` to it). An alias given two meanings in the file is left alone."""
        defined = {definition.name for definition in self.outline}
        using = {
            name: meaning for name, meaning in self.using_names.items() if meaning is not None and name not in defined
        }
        shadows = self._shadows(frozenset(using)) if using else {}
        out: list[Reference] = []
        for reference in found:
            qualifier = reference.qualifier
            if qualifier and qualifier != _navigation.EXPRESSION:
                first, dot, rest = qualifier.partition(".")
                target = self.namespace_aliases.get(first)
                if target:
                    reference = attrs.evolve(reference, qualifier=target + dot + rest)
            elif not qualifier and reference.name in using:
                namespace, line = using[reference.name]
                if (
                    namespace
                    and reference.line > line
                    and not any(start <= reference.line <= end for start, end in shadows.get(reference.name, ()))
                ):
                    reference = attrs.evolve(reference, qualifier=namespace)
            out.append(reference)
            aliased = self.type_aliases.get(reference.name) if not reference.qualifier else None
            if aliased is not None:
                out.append(attrs.evolve(reference, name=aliased[0], qualifier=aliased[1]))
        return tuple(out)

    def _shadows(self, names: frozenset[str]) -> dict[str, list[tuple[int, int]]]:
        """name -> the line spans of the functions (and lambdas) that declare a parameter or local of that name."""
        found: dict[str, list[tuple[int, int]]] = {}
        for node in safe_captures(_query("locals"), self.root).get("declared", ()):
            name = _unwrap_declarator(node)
            if name is None or name.type != "identifier" or self.text(name) not in names:
                continue
            scope = node.parent
            for _ in range(_SCOPE_DEPTH_MAX):
                if scope is None or scope.type in ("function_definition", "lambda_expression"):
                    break
                scope = scope.parent
            if scope is not None and scope.type in ("function_definition", "lambda_expression"):
                found.setdefault(self.text(name), []).append((_ts.line(scope), _ts.end_line(scope)))
        return found

    def _members(self, capture: str, node: tree_sitter.Node, outer: str, outer_kind: str) -> list[Definition]:
        """The definitions a member capture makes (none when it is no constant: a local, an
        instance member, a function prototype)."""
        if capture == "enumerator":
            name = node.child_by_field_name("name")
            return [self._member(name, "constant", outer, node, self.text(node))]
        if capture in ("macro", "function_macro"):
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            end = node.end_byte if value is None else value.end_byte if capture == "macro" else value.start_byte
            text = self.source[node.start_byte : end].decode("utf-8", "replace")
            kind = "constant" if capture == "macro" else "function"
            return [self._member(name, kind, outer, node, text, value if value is not None else node)]
        if capture == "alias":
            name = node.child_by_field_name("name") if node.type == "alias_declaration" else None
            target = node.child_by_field_name("type")
            if target is not None and target.type == "type_descriptor":
                target = target.child_by_field_name("type")
            names = [name] if name is not None else [
                d for d in map(_unwrap_declarator, node.children_by_field_name("declarator"))
                if d is not None and d.type == "type_identifier"
            ]  # fmt: skip
            parts = (
                self.segments(target)
                if target is not None and target.type in ("type_identifier", "qualified_identifier")
                else []
            )
            for alias in names:
                if parts and parts[-1] and target is not None and _last_name(target).type == "type_identifier":
                    _once(self.type_aliases, self.text(alias), (parts[-1], ".".join(filter(None, parts[:-1]))))
            return [self._member(n, "type", outer, node, _navigation.signature(node, self.source)) for n in names]
        qualifiers = {self.text(c) for c in node.children if c.type in ("type_qualifier", "storage_class_specifier")}
        if capture == "constant_member":
            if outer_kind not in ("class", "struct") or not (
                "constexpr" in qualifiers or ("static" in qualifiers and "const" in qualifiers)
            ):
                return []
        elif not ({"const", "constexpr"} & qualifiers) or not _namespace_level(node):
            return []
        out = []
        declarators = node.children_by_field_name("declarator")
        head_end = declarators[0].start_byte if declarators else node.start_byte
        head = self.source[node.start_byte : head_end].decode("utf-8", "replace")
        for declarator in declarators:
            inner = declarator.child_by_field_name("declarator") if declarator.type == "init_declarator" else declarator
            name = _unwrap_declarator(inner)
            if name is None or name.type not in ("identifier", "field_identifier"):
                continue  # a function, an out-of-line definition (Orders::kMax), an array
            text = head + self.source[
                declarator.start_byte : node.end_byte if declarator == declarators[-1] else declarator.end_byte
            ].decode("utf-8", "replace")
            out.append(self._member(name, "constant", outer, node, text))
        return out

    def _member(
        self, name: tree_sitter.Node | None, kind: str, outer: str, node: tree_sitter.Node, text: str,
        last: tree_sitter.Node | None = None,
    ) -> Definition:  # fmt: skip
        """A member definition: its line is its name's, its signature ``text`` on one line, bounded."""
        signature = _SPACES.sub(" ", text[: 4 * SIGNATURE_CHARS_MAX]).strip().removesuffix(";").rstrip()
        if len(signature) > SIGNATURE_CHARS_MAX:
            signature = signature[: SIGNATURE_CHARS_MAX - 1].rstrip() + "…"
        doc = _navigation.doc_line(_LANGUAGE, node, self.source)
        anchor = name if name is not None else node
        end_line = _ts.end_line(last if last is not None else node)
        return Definition(self.text(name), kind, outer, _ts.line(anchor), end_line, signature, doc)

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.source)

    def _declared_name(self, node: tree_sitter.Node) -> tuple[int, str]:
        """(line, name) of the last name of a qualified declarator."""
        for _ in range(64):
            name = node.child_by_field_name("name")
            if node.type != "qualified_identifier" or name is None:
                break
            node = name
        return _ts.line(node), self.text(node)

    def _references(self) -> tuple[Reference, ...]:
        """The file's references, bar the names that qualified declarators declare (a query
        cannot tell ``Orders::Get`` declared from ``Orders::Get`` read: both end as ``a::(b::c)``)
        and what using declarations name."""
        if too_broken(self.root):
            return ()
        found = _navigation.references(_LANGUAGE, self.root, self.source)
        if self.using_names or self.namespace_aliases or self.type_aliases:
            found = self._through_aliases(found)
        if self.vexing:
            found = tuple(_constructor_argument(r) if (r.line, r.name) in self.vexing else r for r in found)
            found = tuple(r for r in found if r is not None)
        if not self.declared and not self.using_lines:
            return found
        return tuple(
            r
            for r in found
            if r.line not in self.using_lines and (r.kind != ReferenceKind.USE or (r.line, r.name) not in self.declared)
        )

    def facts(self) -> FileFacts:
        self._definitions_and_includes()
        if _GRPC_HINT.search(self.source):
            self._grpc()
            self.grpc.sort(key=lambda item: (item[0], item[1]))
        return FileFacts(
            language=_LANGUAGE,
            definitions=tuple(self.outline),
            imports=tuple(self.imports),
            grpc=tuple(fact for _, _, fact in self.grpc),
            references=self._references(),
            error=f"syntax error at line {first_error_line(self.root)}" if self.root.has_error else "",
        )

    def segments(self, node: tree_sitter.Node | None) -> list[str]:
        """The parts of a (qualified) name: ``a::b::C`` -> ``["a", "b", "C"]`` (template arguments dropped)."""
        parts = []
        for _ in range(64):
            if node is None or node.type not in ("qualified_identifier", "nested_namespace_specifier"):
                break
            if node.type == "nested_namespace_specifier":
                parts.extend(self.text(c) for c in node.named_children)
                return parts
            scope = node.child_by_field_name("scope")
            if scope is not None:
                parts.append(self.text(scope.child_by_field_name("name") if scope.type == "template_type" else scope))
            node = node.child_by_field_name("name")
        if node is not None:
            if node.type in ("template_type", "template_function"):
                node = node.child_by_field_name("name")
            parts.append(self.text(node))
        return parts

    # -- definitions and includes ------------------------------------------------------------

    def _definitions_and_includes(self) -> None:
        captures = safe_captures(_query("defs"), self.root)
        found: list[tuple[int, int, str, tree_sitter.Node]] = []
        for capture, nodes in captures.items():
            if capture == "out_of_line":
                self.declared.update(self._declared_name(node) for node in nodes)
            elif capture == "using":
                self.using_lines.update(
                    line for node in nodes for line in range(_ts.line(node), _ts.end_line(node) + 1)
                )
                for node in nodes:
                    self._using_declaration(node)
            elif capture == "namespace_alias":
                for node in nodes:
                    name = self.text(node.child_by_field_name("name"))
                    target = [c for c in node.named_children if c != node.child_by_field_name("name")]
                    if target:
                        dotted = ".".join(filter(None, self.segments(target[-1]))) or self.text(target[-1])
                        _once(self.namespace_aliases, name, dotted)
            elif capture == "vexing":
                for node in nodes:
                    declaration = _ancestor(node, 4)
                    if declaration is not None and not _namespace_level(declaration):
                        self.vexing.add((_ts.line(node), self.text(node)))
            elif capture in _MEMBER_CAPTURES:
                unique = {(node.start_byte, node.end_byte): node for node in nodes}
                found.extend((node.start_byte, -node.end_byte, capture, node) for node in unique.values())
            elif capture != "include":
                found.extend((node.start_byte, -node.end_byte, capture, node) for node in nodes)
        found.sort(key=lambda item: (item[0], item[1]))
        members: list[tuple[int, Definition]] = []
        namespaces: set[str] = set()
        prototypes: list[int] = []
        defined: set[tuple[str, str]] = set()
        #: (end byte, dotted path, kind) of the definitions still open
        stack: list[tuple[int, str, str]] = []
        for start, _, capture, node in found:
            while stack and stack[-1][0] <= start:
                stack.pop()
            outer, outer_kind = (stack[-1][1], stack[-1][2]) if stack else ("", "")
            in_class = outer_kind in ("class", "struct")
            if capture in _MEMBER_CAPTURES:
                members.extend((node.start_byte, d) for d in self._members(capture, node, outer, outer_kind))
                continue
            if capture == "module":
                parts = [".".join(self.segments(node.child_by_field_name("name")))]
                kind = capture
            elif capture in ("class", "struct", "enum"):
                parts = self.segments(node.child_by_field_name("name"))
                kind = capture
            else:
                if capture == "prototype" and outer_kind not in ("", "module", "class", "struct"):
                    continue
                name = _function_name(node.child_by_field_name("declarator"))
                if name is None or name.type == "operator_cast":
                    continue
                parts = self.segments(name)
                if name.type == "qualified_identifier":
                    self.declared.add(self._declared_name(name))
                qualifier = ".".join(p for p in parts[:-1] if p)
                out_of_line = bool(qualifier) and ".".join(filter(None, (outer, qualifier))) not in namespaces
                kind = "method" if in_class or capture == "member" or out_of_line else "function"
            parts = [p for p in parts if p]
            if not parts:
                continue
            container = ".".join(filter(None, [outer, *parts[:-1]]))
            path = f"{container}.{parts[-1]}" if container else parts[-1]
            if kind == "module":
                namespaces.add(path)
            elif capture == "prototype" and kind == "function":
                prototypes.append(len(self.definitions))
            elif capture == "function":
                defined.add((container, parts[-1]))
            stack.append((node.end_byte, path, kind))
            signature, doc = _signature(node, self.source), _navigation.doc_line(_LANGUAGE, node, self.source)
            self.definitions.append(
                Definition(parts[-1], kind, container, _ts.line(node), _ts.end_line(node), signature, doc)
            )
            self.paths.append(path)
            self.def_nodes.append(node)
        dropped = {i for i in prototypes if (self.definitions[i].container, self.definitions[i].name) in defined}
        if dropped:
            keep = [i for i in range(len(self.definitions)) if i not in dropped]
            self.definitions = [self.definitions[i] for i in keep]
            self.paths = [self.paths[i] for i in keep]
            self.def_nodes = [self.def_nodes[i] for i in keep]
        self.def_ranges = Ranges(self.def_nodes)
        for position, definition in enumerate(self.definitions):
            self.by_container.setdefault(definition.container, []).append(position)
        if members:
            starts = [node.start_byte for node in self.def_nodes]
            merged = sorted([*zip(starts, self.definitions), *members], key=lambda item: item[0])
            self.outline = [definition for _, definition in merged]
        else:
            self.outline = self.definitions
        for node in captures.get("include", ()):
            path = node.child_by_field_name("path")
            written = self.text(path).strip()
            if path is not None and path.type in ("string_literal", "system_lib_string") and len(written) >= 2:
                written = written[1:-1]
            if written:
                self.imports.append(Import(written, _ts.line(node)))

    # -- gRPC: bindings ---------------------------------------------------------------------

    def _grpc(self) -> None:
        captures = safe_captures(_query("grpc"), self.root)
        self.scopes = Ranges(captures.get("scope", ()))
        self._bind(captures)
        for node in captures.get("bases", ()):
            self._server(node)
        for node in captures.get("call", ()):
            self._call(node)
        for node in captures.get("new", ()):
            stub = self._stub_type(node.child_by_field_name("type"))
            if stub is not None:
                self._fact(node.start_byte, GrpcRole.CLIENT, stub, "", _ts.line(node))

    def _class_context(self, position: int) -> str | None:
        """The dotted class whose members code at ``position`` sees (None outside any class)."""
        for index in self.def_ranges.chain(self.def_ranges.innermost(position, position + 1)):
            kind = self.definitions[index].kind
            if kind in ("class", "struct"):
                return self.paths[index]
            if kind == "method":
                return self.definitions[index].container
        return None

    def _declarators(
        self, node: tree_sitter.Node, in_body: bool = False
    ) -> list[tuple[str, tree_sitter.Node | None, bool]]:
        """(name, initial value, constructed with arguments) of each variable a declaration declares.

        In a function body, ``T x(y);`` parses as a function declarator (the most vexing parse): there
        it is read as the variable ``x`` constructed from arguments.
        """
        found = []
        for declarator in node.children_by_field_name("declarator"):
            value = None
            constructed = False
            if in_body and declarator.type == "function_declarator":
                name = declarator.child_by_field_name("declarator")
                if name is not None and name.type == "identifier":
                    found.append((self.text(name), None, True))
                continue
            if declarator.type == "init_declarator":
                value = declarator.child_by_field_name("value")
                constructed = value is not None and value.type in ("argument_list", "initializer_list")
                if constructed and value.named_child_count:
                    value = value.named_child(0)
                declarator = declarator.child_by_field_name("declarator")
            declarator = _unwrap_declarator(declarator)
            if declarator is not None and declarator.type in ("identifier", "field_identifier"):
                found.append((self.text(declarator), value, constructed))
        default = node.child_by_field_name("default_value")
        if default is not None and len(found) == 1:
            found[0] = (found[0][0], default, False)
        return found

    def _bind_local(self, at: tree_sitter.Node, name: str, binding: _Binding) -> None:
        scope = self.scopes.innermost(at.start_byte, at.end_byte)
        self.locals.setdefault(scope, {}).setdefault(name, []).append(binding)
        self.by_name.setdefault(name, []).append(binding)

    def _bind_member(self, klass: str | None, name: str, binding: _Binding) -> None:
        if klass and name:
            self.members.setdefault(klass, {}).setdefault(name, []).append(binding)
            self.by_name.setdefault(name, []).append(binding)

    def _bind(self, captures: dict[str, list[tree_sitter.Node]]) -> None:
        for node in captures.get("declaration", ()):
            declared = node.child_by_field_name("type")
            in_body = self.scopes.innermost(node.start_byte, node.end_byte) >= 0
            for name, value, constructed in self._declarators(node, in_body):
                self._bind_local(node, name, _Binding(declared, value))
                stub = self._stub_type(declared) if constructed else None
                if stub is not None:
                    self._fact(node.start_byte, GrpcRole.CLIENT, stub, "", _ts.line(node))
        for node in captures.get("field", ()):
            declared = node.child_by_field_name("type")
            klass = self._class_context(node.start_byte)
            for name, value, _ in self._declarators(node):
                self._bind_member(klass, name, _Binding(declared, value))
        for node in captures.get("parameter", ()):
            scope = self.scopes.innermost(node.start_byte, node.end_byte)
            declarator = _unwrap_declarator(node.child_by_field_name("declarator"))
            if scope >= 0 and declarator is not None and declarator.type == "identifier":
                self._bind_local(node, self.text(declarator), _Binding(node.child_by_field_name("type")))
        for node in captures.get("initializer", ()):
            name = next((c for c in node.named_children if c.type == "field_identifier"), None)
            arguments = next((c for c in node.named_children if c.type in ("argument_list", "initializer_list")), None)
            if name is not None and arguments is not None and arguments.named_child_count:
                value = _Binding(None, arguments.named_child(0))
                self._bind_member(self._class_context(node.start_byte), self.text(name), value)
        for node in captures.get("assignment", ()):
            self._bind_assignment(node)

    def _bind_assignment(self, node: tree_sitter.Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is None or right is None:
            return
        binding = _Binding(None, right)
        if left.type == "identifier":
            bindings = self._lookup(left)
            if bindings:
                bindings.append(binding)
                self.by_name.setdefault(self.text(left), []).append(binding)
            else:
                self._bind_member(self._class_context(node.start_byte), self.text(left), binding)
        elif self._this_member(left):
            self._bind_member(
                self._class_context(node.start_byte), self.text(left.child_by_field_name("field")), binding
            )

    def _this_member(self, node: tree_sitter.Node) -> bool:
        if node.type != "field_expression":
            return False
        argument = node.child_by_field_name("argument")
        return argument is not None and argument.type == "this"

    def _lookup(self, identifier: tree_sitter.Node) -> list[_Binding]:
        name = self.text(identifier)
        start, end = identifier.start_byte, identifier.end_byte
        for scope in self.scopes.chain(self.scopes.innermost(start, end)):
            names = self.locals.get(scope)
            if names is not None and name in names:
                return names[name]
        klass = self._class_context(start)
        if klass is not None:
            members = self.members.get(klass)
            if members is not None and name in members:
                return members[name]
        return self.locals.get(-1, {}).get(name, [])

    # -- gRPC: resolvers --------------------------------------------------------------------

    def _generated(self, node: tree_sitter.Node | None, names: frozenset[str]) -> tuple[str, str] | None:
        """(service, namespace) of a generated name ``[ns::]Svc::<one of names>``."""
        if node is None or node.type != "qualified_identifier":
            return None
        parts = self.segments(node)
        if len(parts) < 2 or parts[-1] not in names or not parts[-2]:
            return None
        return parts[-2], "::".join(parts[:-2]).lstrip(":")

    def _stub_type(self, node: tree_sitter.Node | None, depth: int = 0) -> tuple[str, str] | None:
        """(service, namespace) when a type is a stub, raw or held in a smart pointer."""
        if node is None or depth > _DEPTH_MAX:
            return None
        if node.type == "type_descriptor":
            return self._stub_type(node.child_by_field_name("type"), depth + 1)
        if node.type == "qualified_identifier":
            stub = self._generated(node, _STUB_TYPES)
            if stub is not None:
                return stub
            name = node
            while name is not None and name.type == "qualified_identifier":
                name = name.child_by_field_name("name")
            return self._stub_type(name, depth + 1) if name is not None and name.type == "template_type" else None
        if node.type == "template_type":
            arguments = node.child_by_field_name("arguments")
            for argument in arguments.named_children if arguments is not None else ():
                stub = self._stub_type(argument, depth + 1)
                if stub is not None:
                    return stub
        return None

    def _created(self, node: tree_sitter.Node) -> tuple[str, str] | None:
        """(service, namespace) when a call creates a stub: ``Svc::NewStub(...)``, ``make_unique<Svc::Stub>``."""
        function = node.child_by_field_name("function")
        if function is None:
            return None
        stub = self._generated(function, frozenset({"NewStub"}))
        if stub is not None:
            return stub
        name = function
        while name is not None and name.type == "qualified_identifier":
            name = name.child_by_field_name("name")
        if (
            name is not None
            and name.type == "template_function"
            and self.text(name.child_by_field_name("name")) in ("make_unique", "make_shared")
        ):
            arguments = name.child_by_field_name("arguments")
            first = arguments.named_child(0) if arguments is not None and arguments.named_child_count else None
            return self._stub_type(first)
        return None

    def _stub(self, node: tree_sitter.Node | None, depth: int) -> tuple[str, str] | None:
        """(service, namespace) when an expression evaluates to a stub (or a pointer to one)."""
        while node is not None and node.type in _WRAPPERS:
            node = node.child_by_field_name("argument") or (node.named_child(0) if node.named_child_count else None)
        if node is None or depth > _DEPTH_MAX:
            return None
        if node.id in self.memo:
            return self.memo[node.id]
        self.memo[node.id] = None
        stub = self.memo[node.id] = self._stub_of(node, depth)
        return stub

    def _stub_of(self, node: tree_sitter.Node, depth: int) -> tuple[str, str] | None:
        kind = node.type
        if kind == "call_expression":
            created = self._created(node)
            if created is not None:
                return created
            function = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if function is not None and self.text(function) in ("std::move", "move") and arguments is not None:
                return self._stub(arguments.named_child(0) if arguments.named_child_count else None, depth + 1)
            return None
        if kind == "new_expression":
            return self._stub_type(node.child_by_field_name("type"))
        if kind == "identifier":
            if not self._maybe_stub_name(self.text(node)):
                return None
            bindings = self._lookup(node)
        elif self._this_member(node):
            if not self._maybe_stub_name(self.text(node.child_by_field_name("field"))):
                return None
            klass = self._class_context(node.start_byte)
            bindings = (
                self.members.get(klass, {}).get(self.text(node.child_by_field_name("field")), []) if klass else []
            )
        else:
            return None
        for binding in bindings:
            stub = self._stub_type(binding.type) or self._stub(binding.value, depth + 1)
            if stub is not None:
                return stub
        return None

    def _maybe_stub_name(self, name: str) -> bool:
        """A cheap pre-check: is any variable or member of this name, anywhere in the file, a stub?"""
        known = self.stub_names.get(name)
        if known is None:
            self.stub_names[name] = False
            known = self.stub_names[name] = any(
                self._stub_type(binding.type) is not None or self._stub(binding.value, 1) is not None
                for binding in self.by_name.get(name, ())
            )
        return known

    # -- gRPC: facts ------------------------------------------------------------------------

    def _fact(self, position: int, role: str, service: tuple[str, str], method: str, line: int) -> None:
        """Record a fact found at byte ``position`` (which orders the facts and gives the symbol)."""
        index = self.def_ranges.innermost(position, position + 1)
        symbol = self.paths[index] if index >= 0 else ""
        self.grpc.append((position, len(self.grpc), GrpcFact(role, service[0], method, line, symbol, service[1])))

    def _server(self, bases: tree_sitter.Node) -> None:
        klass = bases.parent
        if klass is None:
            return
        index = self.def_ranges.innermost(klass.start_byte, klass.end_byte)
        if index < 0 or self.def_nodes[index].id != klass.id:
            return
        service = None
        for base in bases.named_children:
            service = self._generated(base, _SERVICE_BASES)
            if service is None and base.type == "qualified_identifier":
                parts = self.segments(base)
                if len(parts) >= 2 and parts[-1].startswith("With") and "Method_" in parts[-1] and parts[-2]:
                    service = parts[-2], "::".join(parts[:-2]).lstrip(":")
            if service is not None:
                break
        if service is None:
            return
        path = self.paths[index]
        self._fact(klass.start_byte, GrpcRole.SERVER, service, "", self.definitions[index].line)
        overridden: set[str] = set()
        for position in self.by_container.get(path, ()):
            definition, node = self.definitions[position], self.def_nodes[position]
            if definition.kind != "method" or definition.name.startswith("~"):
                continue
            if node.start_byte >= klass.start_byte and node.end_byte <= klass.end_byte:
                if self._overrides(node) and definition.name != definition.container.rsplit(".", 1)[-1]:
                    overridden.add(definition.name)
                    self._fact(node.start_byte, GrpcRole.HANDLER, service, definition.name, definition.line)
            elif definition.name in overridden:
                self._fact(node.start_byte, GrpcRole.HANDLER, service, definition.name, definition.line)

    def _overrides(self, node: tree_sitter.Node) -> bool:
        """Whether a member function is declared ``override``."""
        declarator = _unwrap_declarator(node.child_by_field_name("declarator"))
        if declarator is None or declarator.type != "function_declarator":
            return False
        return any(c.type == "virtual_specifier" and self.text(c) == "override" for c in declarator.children)

    def _call(self, node: tree_sitter.Node) -> None:
        function = node.child_by_field_name("function")
        if function is None:
            return
        name = function
        while name is not None and name.type == "qualified_identifier":
            name = name.child_by_field_name("name")
        standard = _STANDARD_SWITCHES.get(self.text(name)) if name is not None else None
        if standard is not None:  # grpc::EnableDefaultHealthCheckService(true)
            self._fact(node.start_byte, GrpcRole.SERVER, standard, "", _ts.line(node))
            return
        if function.type != "field_expression":
            created = self._created(node)
            if created is not None:
                self._fact(node.start_byte, GrpcRole.CLIENT, created, "", _ts.line(node))
            return
        field = function.child_by_field_name("field")
        holder = function.child_by_field_name("argument")
        if field is None or holder is None or field.type != "field_identifier":
            return
        method = self.text(field)
        if method in _NOT_RPCS:
            return
        if holder.type == "call_expression":
            inner = holder.child_by_field_name("function")
            if inner is not None and inner.type == "field_expression":
                name = self.text(inner.child_by_field_name("field"))
                if name in ("async", "experimental_async"):
                    holder = inner.child_by_field_name("argument")
        stub = self._stub(holder, 0)
        if stub is not None:
            self._fact(field.start_byte, GrpcRole.CALL, stub, method, _ts.line(field))
