"""Python facts: definitions, imports and grpcio evidence, from one tree-sitter parse.

Theory of operation: one query finds every ``def``/``class`` and import statement; definitions
arrive in document order and :class:`~._common.Definitions` nests them by span (a ``def`` whose
nearest enclosing definition is a class is a method; a decorated one starts at ``def``). When the
bytes mention ``Stub``, ``Servicer`` or ``_to_server``, the same traversal also captures every call,
assignment, parameter list and ``return``, and the gRPC pass reads them.

Generated code is recognised by shape: ``<ns>.<Svc>Stub(...)`` (CLIENT),
``<ns>.add_<Svc>Servicer_to_server(...)`` (SERVER) and ``class X(<ns>.<Svc>Servicer)`` (SERVER, and a
HANDLER per method not starting with ``_``). A bare ``<Svc>Stub``/``<Svc>Servicer``/``add_...``
counts only when imported from a module whose last part mentions ``grpc``
(``from x_pb2_grpc import OrdersStub``). The namespace is the qualifier written at the use site
("" for a bare name). A class of the file registered with ``add_<Svc>Servicer_to_server(X(), s)``
(or a name assigned ``X()`` in the same scope) serves ``Svc`` too; a class serving several services
gives the methods a standard service declares (``Check``, ``Watch`` of ``Health``) to that service
alone, the others to the rest. Handlers through a base class of another file are the resolver's.

Stubs are followed by a flow-insensitive data flow run to a fixed point: a name holds a stub when
it is assigned one or annotated ``<ns>.<Svc>Stub`` (also ``Optional[...]``, ``| None``, quoted),
with Python's scoping (parameters and locals shadow outer names, class bodies are not visible to
methods) and, inside one scope, the latest assignment before a use winning; ``self.<attr>`` holds
one when assigned one anywhere in the class (or in the class body); a function or method returning
a stub, or annotated ``-> <ns>.<Svc>Stub``, is a factory (``make()``, ``self.make()``, a
``@property``). A call ``x.M(...)``, ``x.M.future(...)`` or ``x.M.with_call(...)`` on a stub is a
CALL of ``M``; nothing else is.
"""

from __future__ import annotations

import re
from typing import Final

import tree_sitter

from .._facts import Definition, FileFacts, GrpcRole, Import, method_spelling, well_known_methods
from . import _navigation, _python_links, _ts
from ._common import Definitions, GrpcFacts, captures, query, squash, strip_affixes, syntax_error, too_broken

__all__ = ["extract"]

_LANGUAGE: Final = "python"

#: Definitions and imports (``queries/python/outline.scm``).
_OUTLINE: Final = _navigation.query_text(_LANGUAGE, "outline")

#: The outline plus what the gRPC pass reads, in one traversal of the tree.
_OUTLINE_AND_GRPC: Final = (
    _OUTLINE
    + """
[(call) (assignment) (parameters) (return_statement)] @node
"""
)

#: Bytes without any of these cannot hold grpcio evidence.
_GRPC_HINTS: Final = (b"Stub", b"Servicer", b"_to_server")

#: Expressions that can evaluate to a stub (anything else is never followed).
_MAYBE_STUB: Final = frozenset(
    {"identifier", "attribute", "call", "parenthesized_expression", "conditional_expression", "boolean_operator"}
)

#: Attributes of a stub's method that still call it.
_CALL_FORMS: Final = frozenset({"future", "with_call"})

#: How deep a stub expression is followed through parentheses and conditionals.
_DEPTH_MAX: Final = 16

#: Passes of the data flow (each pass lets a stub travel one more assignment).
_PASSES_MAX: Final = 6

_OPTIONAL: Final = re.compile(r"(?:typing\.)?Optional\[(.+)\]")
_STUB_TYPE: Final = re.compile(r"(?:([A-Za-z_][\w.]*)\.)?([A-Za-z_]\w*)")

#: A stub's service and namespace.
_Stub = tuple[str, str]


def extract(source: bytes) -> FileFacts:
    """Definitions, imports and gRPC facts of a Python file (a bug raises; ``parse.extract`` records it as the file's error)."""
    root = _ts.parse(_LANGUAGE, source).root_node
    if too_broken(root):
        return FileFacts(language=_LANGUAGE, error=syntax_error(root))
    definitions = Definitions(_LANGUAGE, source)
    imports: list[Import] = []
    grpc_names: dict[str, str] = {}
    grpc_hint = any(hint in source for hint in _GRPC_HINTS)
    found = captures(query(_LANGUAGE, _OUTLINE_AND_GRPC if grpc_hint else _OUTLINE), root)
    for node in found.get("def", ()):
        name = node.child_by_field_name("name")
        if name is None:
            continue
        parent = definitions.parent_of(node.start_byte)
        if node.type == "class_definition":
            kind = "class"
        else:
            kind = "method" if parent >= 0 and definitions.kinds[parent] == "class" else "function"
        definitions.add(node, _ts.text(name, source), kind, parent)
    aliases: dict[str, str] = {}
    for node in found.get("import", ()):
        _import(node, source, imports, grpc_names, aliases)
    grpc = ()
    if grpc_hint:
        grpc = _Grpc(source, definitions, grpc_names).run(found.get("node", []))
    links = _python_links.extract(root, source, definitions, found.get("import", ()))
    return FileFacts(
        language=_LANGUAGE,
        definitions=_with_constants(definitions, found.get("constant", ()), source),
        imports=tuple(imports),
        grpc=grpc,
        http_routes=links.routes,
        http_calls=links.calls,
        messages=links.messages,
        constants=links.constants,
        references=_navigation.references(_LANGUAGE, root, source, _known(definitions, imports) | aliases.keys(), aliases),
        error=syntax_error(root),
    )


def _known(definitions: Definitions, imports: list[Import]) -> frozenset[str]:
    """Names a bare identifier passed as a value may mean: the file's top-level definitions and the
    names it imports."""
    top = (fact.name for fact, parent in zip(definitions.facts, definitions.parents, strict=True) if parent < 0)
    return frozenset([*top, *(name for item in imports for name in item.names)])


def _with_constants(
    definitions: Definitions, constants: list[tree_sitter.Node], source: bytes
) -> tuple[Definition, ...]:
    """The definitions with the module's and classes' constants among them, in source order.

    Constants are kept out of ``definitions`` itself: the gRPC and link passes read its spans as
    scopes, and an assignment is none."""
    placed: list[tuple[int, Definition]] = []
    for node in constants:
        name = node.child_by_field_name("left")
        if name is None:
            continue
        signature, doc = _navigation.details(_LANGUAGE, node, source)
        container = definitions.symbol(node.start_byte)
        fact = Definition(_ts.text(name, source), "constant", container, _ts.line(node), _ts.end_line(node), signature, doc)
        placed.append((node.start_byte, fact))
    return definitions.merged(placed)


def _import(
    node: tree_sitter.Node, source: bytes, imports: list[Import], grpc_names: dict[str, str], aliases: dict[str, str]
) -> None:
    """One import statement's :class:`Import`; ``aliases`` gains ``local -> imported`` for each
    ``as`` (``import x.y as z``: ``z -> x.y``; ``from m import a as b``: ``b -> a``)."""
    line = node.start_point[0] + 1
    if node.type == "import_statement":
        for name in node.children_by_field_name("name"):
            alias = None
            if name.type == "aliased_import":
                alias = name.child_by_field_name("alias")
                name = name.child_by_field_name("name")
            if name is not None:
                module = squash(_ts.text(name, source))
                imports.append(Import(module, line))
                if alias is not None:
                    aliases[_ts.text(alias, source)] = module
        return
    if node.type == "future_import_statement":
        module = "__future__"
    else:
        module = squash(_ts.text(node.child_by_field_name("module_name"), source))
        if not module:
            return
    names: list[str] = []
    from_grpc = "grpc" in module.rsplit(".", 1)[-1]
    for child in node.children_by_field_name("name"):
        alias = None
        if child.type == "aliased_import":
            alias = child.child_by_field_name("alias")
            child = child.child_by_field_name("name")
        if child is None:
            continue
        name = squash(_ts.text(child, source))
        names.append(name)
        if alias is not None:
            aliases[_ts.text(alias, source)] = name
        if from_grpc:
            grpc_names[_ts.text(alias, source) if alias is not None else name] = name
    if not names and any(child.type == "wildcard_import" for child in node.children):
        names.append("*")
    imports.append(Import(module, line, tuple(names)))


def _parameters(node: tree_sitter.Node) -> list[tuple[tree_sitter.Node, tree_sitter.Node | None]]:
    """(name, annotation or None) of each parameter a ``def`` declares."""
    found = []
    for parameter in node.named_children:
        kind = parameter.type
        if kind == "identifier":
            found.append((parameter, None))
        elif kind in ("typed_parameter", "list_splat_pattern", "dictionary_splat_pattern"):
            name = parameter.named_child(0)
            if name is not None and name.type == "identifier":
                found.append((name, parameter.child_by_field_name("type")))
        elif kind in ("default_parameter", "typed_default_parameter"):
            name = parameter.child_by_field_name("name")
            if name is not None and name.type == "identifier":
                found.append((name, parameter.child_by_field_name("type")))
    return found


class _Grpc:
    """The gRPC pass over one file (see the module docstring)."""

    def __init__(self, source: bytes, definitions: Definitions, grpc_names: dict[str, str]) -> None:
        self.source = source
        self.defs = definitions
        self.grpc_names = grpc_names
        self.facts = GrpcFacts(definitions)
        #: (scope index, name) -> [(offset, stub or None)] in source order; scope -1 is the module
        self.names: dict[tuple[int, str], list[tuple[int, _Stub | None]]] = {}
        #: (class index, attribute) -> stub
        self.attrs: dict[tuple[int, str], _Stub] = {}
        #: definition index -> the stub it returns
        self.factories: dict[int, _Stub] = {}
        #: whether the file constructs a stub
        self.created = False
        #: names and attribute names that hold a stub somewhere (a quick first test for lookups)
        self.stub_names: set[str] = set()
        self.stub_members: set[str] = set()
        #: class index -> the (service, namespace) it serves, by its bases or by a registration
        self.served: dict[int, list[_Stub]] = {}
        #: (service, namespace, servicer argument) of each ``add_<Svc>Servicer_to_server(servicer, server)``
        self.registered: list[tuple[str, str, tree_sitter.Node]] = []

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.source)

    def run(self, nodes: list[tree_sitter.Node]) -> tuple:
        assigns: list[tuple[tree_sitter.Node, tree_sitter.Node]] = []
        params: list[tuple[tree_sitter.Node, tree_sitter.Node | None]] = []
        returns: list[tree_sitter.Node] = []
        calls: list[tuple[tree_sitter.Node, tree_sitter.Node]] = []
        for node in nodes:
            kind = node.type
            if kind == "call":
                function = node.child_by_field_name("function")
                if function is None:
                    continue
                if function.type == "identifier":
                    if self.text(function) in self.grpc_names:
                        self.generated_call(function, function)
                elif function.type == "attribute":
                    obj = function.child_by_field_name("object")
                    method = function.child_by_field_name("attribute")
                    if obj is None or method is None:
                        continue
                    name = self.text(method)
                    if name.endswith(("Stub", "_to_server")):
                        self.generated_call(function, method)
                    calls.append((obj, method))
            elif kind == "assignment":
                left = node.child_by_field_name("left")
                if left is not None:
                    assigns.append((node, left))
            elif kind == "return_statement":
                if node.named_child_count:
                    returns.append(node.named_child(0))
            else:
                params.extend(_parameters(node))
        for index, definition in enumerate(self.defs.nodes):
            if self.defs.kinds[index] == "class":
                self.servicer(index, definition)
        for service, namespace, servicer in self.registered:
            klass = self.instance_of(servicer, assigns)
            if klass >= 0 and (service, namespace) not in self.served.setdefault(klass, []):
                self.served[klass].append((service, namespace))
        self.handlers()
        if self.flow(assigns, params, returns):
            for obj, method in calls:
                self.call(obj, method)
        return self.facts.done()

    # -- generated-code shapes -------------------------------------------------------------------

    def generated(self, node: tree_sitter.Node, suffix: str, prefix: str = "") -> _Stub | None:
        """(service, namespace) when ``node`` names ``[<ns>.]<prefix><Svc><suffix>`` of generated code."""
        if node.type == "identifier":
            original = self.grpc_names.get(self.text(node))
            service = strip_affixes(original, prefix, suffix) if original else ""
            return (service, "") if service else None
        if node.type == "attribute":
            service = strip_affixes(self.text(node.child_by_field_name("attribute")), prefix, suffix)
            if service:
                return service, squash(self.text(node.child_by_field_name("object")))
        return None

    def constructed(self, function: tree_sitter.Node | None) -> _Stub | None:
        return self.generated(function, "Stub") if function is not None else None

    def generated_call(self, function: tree_sitter.Node | None, name: tree_sitter.Node) -> None:
        """CLIENT for ``<ns>.<Svc>Stub(...)``, SERVER for ``<ns>.add_<Svc>Servicer_to_server(...)``."""
        if function is None:
            return
        stub = self.constructed(function)
        if stub is not None:
            self.facts.add(GrpcRole.CLIENT, stub[0], "", name, stub[1])
            self.created = True
            return
        found = self.generated(function, "Servicer_to_server", "add_")
        if found is not None:
            self.facts.add(GrpcRole.SERVER, found[0], "", name, found[1])
            arguments = function.parent.child_by_field_name("arguments") if function.parent is not None else None
            servicer = arguments.named_child(0) if arguments is not None and arguments.named_child_count else None
            if servicer is not None:
                self.registered.append((found[0], found[1], servicer))

    def servicer(self, index: int, klass: tree_sitter.Node) -> None:
        """SERVER for a class deriving from ``<ns>.<Svc>Servicer`` (its HANDLERs come with :meth:`handlers`)."""
        bases = klass.child_by_field_name("superclasses")
        if bases is None:
            return
        for base in bases.named_children:
            found = self.generated(base, "Servicer") if base.type in ("identifier", "attribute") else None
            if found is None:
                continue
            self.facts.add(GrpcRole.SERVER, found[0], "", klass, found[1])
            if found not in self.served.setdefault(index, []):
                self.served[index].append(found)

    def handlers(self) -> None:
        """A HANDLER per public method of each class that serves a service. A class serving several
        (``OrdersServicer`` and ``health_pb2_grpc.HealthServicer``, or registered as both) gives the
        methods a standard service declares (``Check``, ``Watch``) to that service alone."""
        for index, services in self.served.items():
            standard = {service: well_known_methods(service) for service, _ in services}
            for child in self.defs.children(index):
                name = self.defs.facts[child].name
                if self.defs.kinds[child] != "method" or name.startswith("_"):
                    continue
                spelling = method_spelling(name)
                owners = [item for item in services if spelling in standard[item[0]]]
                if not owners and len(services) > 1:
                    owners = [item for item in services if not standard[item[0]]]
                for service, namespace in owners or services:
                    self.facts.add(GrpcRole.HANDLER, service, name, self.defs.nodes[child], namespace)

    def instance_of(
        self, node: tree_sitter.Node, assigns: list[tuple[tree_sitter.Node, tree_sitter.Node]], depth: int = 0
    ) -> int:
        """The class of this file that ``node`` is an instance of (``Svc()``, ``mod.Svc()``, a name
        assigned one in the same scope), or -1."""
        if node.type == "call":
            function = node.child_by_field_name("function")
            if function is not None and function.type == "attribute":
                function = function.child_by_field_name("attribute")
            if function is None or function.type != "identifier":
                return -1
            name = self.text(function)
            return next(
                (i for i, fact in enumerate(self.defs.facts) if fact.name == name and self.defs.kinds[i] == "class"), -1
            )
        if node.type == "identifier" and depth < _DEPTH_MAX:
            scope = self.defs.enclosing(node.start_byte)
            name = self.text(node)
            for assign, left in reversed(assigns):
                if left.type == "identifier" and self.text(left) == name and left.start_byte < node.start_byte:
                    if self.defs.enclosing(left.start_byte) == scope:
                        right = assign.child_by_field_name("right")
                        return self.instance_of(right, assigns, depth + 1) if right is not None else -1
        return -1

    # -- data flow -----------------------------------------------------------------------------

    def annotated(self, annotation: tree_sitter.Node | None) -> _Stub | None:
        """The stub an annotation declares: ``<ns>.<Svc>Stub``, optionally Optional/``| None``/quoted."""
        if annotation is None:
            return None
        text = squash(self.text(annotation)).replace('"', "").replace("'", "")
        optional = _OPTIONAL.fullmatch(text)
        if optional:
            text = optional.group(1)
        parts = [part for part in text.split("|") if part != "None"]
        if len(parts) != 1:
            return None
        written = _STUB_TYPE.fullmatch(parts[0])
        if written is None:
            return None
        namespace, name = written.group(1), written.group(2)
        if namespace is None:
            original = self.grpc_names.get(name)
            service = strip_affixes(original, "", "Stub") if original else ""
            return (service, "") if service else None
        service = strip_affixes(name, "", "Stub")
        return (service, namespace) if service else None

    def flow(
        self,
        assigns: list[tuple[tree_sitter.Node, tree_sitter.Node]],
        params: list[tuple[tree_sitter.Node, tree_sitter.Node | None]],
        returns: list[tree_sitter.Node],
    ) -> bool:
        """Bind stubs to names, attributes and factories; False when the file holds no stub at all."""
        fixed: list[tuple[tuple[int, str], int, _Stub | None]] = []
        for name, annotation in params:
            scope = self.defs.enclosing(name.start_byte)
            fixed.append(((scope, self.text(name)), name.start_byte, self.annotated(annotation)))
        fixed_attrs: dict[tuple[int, str], _Stub] = {}
        #: (name key or None, attribute key or None, offset, right side) of assignments worth evaluating
        dynamic: list[tuple[tuple[int, str] | None, tuple[int, str] | None, int, tree_sitter.Node]] = []
        for assign, left in assigns:
            right = assign.child_by_field_name("right")
            while right is not None and right.type == "assignment":
                right = right.child_by_field_name("right")
            declared = self.annotated(assign.child_by_field_name("type"))
            key = attr = None
            if left.type == "identifier":
                scope = self.defs.enclosing(left.start_byte)
                key = (scope, self.text(left))
                if scope >= 0 and self.defs.kinds[scope] == "class":
                    attr = key
            elif left.type == "attribute":
                klass = self.class_of_self(left.child_by_field_name("object"))
                if klass < 0:
                    continue
                attr = (klass, self.text(left.child_by_field_name("attribute")))
            else:
                continue
            if right is not None and right.type == "call":
                declared = self.constructed(right.child_by_field_name("function")) or declared
            if declared is None and right is not None and right.type in _MAYBE_STUB:
                dynamic.append((key, attr, left.start_byte, right))
                continue
            if key is not None:
                fixed.append((key, left.start_byte, declared))
            if attr is not None and declared is not None:
                fixed_attrs.setdefault(attr, declared)
        base: dict[tuple[int, str], list[tuple[int, _Stub | None]]] = {}
        for key, offset, stub in fixed:
            base.setdefault(key, []).append((offset, stub))
        for records in base.values():
            records.sort(key=lambda record: record[0])
        declared_factories: dict[int, _Stub] = {}
        for index, node in enumerate(self.defs.nodes):
            if self.defs.kinds[index] != "class":
                stub = self.annotated(node.child_by_field_name("return_type"))
                if stub is not None:
                    declared_factories[index] = stub
        base_names = {name for (_, name), records in base.items() if any(stub for _, stub in records)}
        self.publish(base, dict(fixed_attrs), dict(declared_factories), base_names)
        if not (self.created or fixed_attrs or declared_factories or base_names):
            return False
        previous: list[_Stub | None] | None = None
        for _ in range(_PASSES_MAX):
            values = [self.stub_of(right) for _, _, _, right in dynamic]
            values += [self.stub_of(value) for value in returns]
            if values == previous:
                break
            previous = values
            added: dict[tuple[int, str], list[tuple[int, _Stub | None]]] = {}
            attrs = dict(fixed_attrs)
            for (key, attr, offset, _), stub in zip(dynamic, values, strict=False):
                if key is not None:
                    added.setdefault(key, []).append((offset, stub))
                if attr is not None and stub is not None:
                    attrs.setdefault(attr, stub)
            names = dict(base)
            stub_names = set(base_names)
            for key, records in added.items():
                names[key] = sorted(base.get(key, []) + records, key=lambda record: record[0])
                if any(stub for _, stub in records):
                    stub_names.add(key[1])
            factories = dict(declared_factories)
            for value, stub in zip(returns, values[len(dynamic) :], strict=True):
                function = self.function_of(value.start_byte)
                if stub is not None and function >= 0:
                    factories.setdefault(function, stub)
            self.publish(names, attrs, factories, stub_names)
        return True

    def publish(
        self,
        names: dict[tuple[int, str], list[tuple[int, _Stub | None]]],
        attrs: dict[tuple[int, str], _Stub],
        factories: dict[int, _Stub],
        stub_names: set[str],
    ) -> None:
        """Make one pass's bindings the ones lookups see."""
        self.names, self.attrs, self.factories, self.stub_names = names, attrs, factories, stub_names
        self.stub_members = {name for _, name in attrs} | {self.defs.facts[index].name for index in factories}

    def function_of(self, offset: int) -> int:
        index = self.defs.enclosing(offset)
        return index if index >= 0 and self.defs.kinds[index] != "class" else -1

    def class_of_self(self, obj: tree_sitter.Node | None) -> int:
        """The class whose instance ``obj`` is (``self``, ``cls`` or the class's own name), or -1."""
        if obj is None or obj.type != "identifier":
            return -1
        name = self.text(obj)
        index = self.defs.enclosing(obj.start_byte)
        while index >= 0:
            if self.defs.kinds[index] == "class" and (name in ("self", "cls") or self.defs.facts[index].name == name):
                return index
            index = self.defs.parents[index]
        return -1

    def lookup(self, name: str, offset: int) -> _Stub | None:
        """What ``name`` holds at ``offset`` under Python's scoping (None: not a stub)."""
        scope = self.defs.enclosing(offset)
        first = True
        while True:
            if first or scope < 0 or self.defs.kinds[scope] != "class":
                records = self.names.get((scope, name))
                if records:
                    if not first:
                        return next((stub for _, stub in reversed(records) if stub is not None), None)
                    before = [stub for start, stub in records if start < offset]
                    if before:
                        return before[-1]
                    return next((stub for _, stub in records if stub is not None), None)
            if scope < 0:
                return None
            first = False
            scope = self.defs.parents[scope]

    def member(self, klass: int, name: str) -> _Stub | None:
        """The stub attribute ``name`` of class ``klass`` holds (or a property/method returning one)."""
        stub = self.attrs.get((klass, name))
        if stub is not None:
            return stub
        for child in self.defs.children(klass):
            if self.defs.facts[child].name == name and child in self.factories:
                return self.factories[child]
        return None

    def stub_of(self, node: tree_sitter.Node | None, depth: int = 0) -> _Stub | None:
        """The stub the expression ``node`` evaluates to, if the file shows it is one."""
        if node is None or depth > _DEPTH_MAX:
            return None
        kind = node.type
        if kind == "identifier":
            name = self.text(node)
            return self.lookup(name, node.start_byte) if name in self.stub_names else None
        if kind == "attribute":
            name = self.text(node.child_by_field_name("attribute"))
            if name not in self.stub_members:
                return None
            klass = self.class_of_self(node.child_by_field_name("object"))
            return self.member(klass, name) if klass >= 0 else None
        if kind == "call":
            function = node.child_by_field_name("function")
            if function is None:
                return None
            if function.type == "identifier":
                name = self.text(function)
                if name in self.grpc_names:
                    return self.constructed(function)
                if name in self.stub_members:
                    for index, stub in self.factories.items():
                        if self.defs.facts[index].name == name and self.defs.kinds[index] == "function":
                            return stub
                return None
            if function.type == "attribute":
                name = self.text(function.child_by_field_name("attribute"))
                if name.endswith("Stub"):
                    return self.constructed(function)
                klass = self.class_of_self(function.child_by_field_name("object")) if name in self.stub_members else -1
                if klass >= 0:
                    return self.member(klass, name)
            return None
        if kind in ("parenthesized_expression", "conditional_expression", "boolean_operator"):
            for child in node.named_children:
                stub = self.stub_of(child, depth + 1)
                if stub is not None:
                    return stub
        return None

    def call(self, obj: tree_sitter.Node, method: tree_sitter.Node) -> None:
        name = self.text(method)
        if name in _CALL_FORMS and obj.type == "attribute":
            rpc = obj.child_by_field_name("attribute")
            stub = self.stub_of(obj.child_by_field_name("object"))
            if stub is not None and rpc is not None:
                self.facts.add(GrpcRole.CALL, stub[0], self.text(rpc), rpc, stub[1])
                return
        if name.startswith("_"):
            return
        stub = self.stub_of(obj)
        if stub is not None:
            self.facts.add(GrpcRole.CALL, stub[0], name, method, stub[1])
