"""Helpers shared by the Python, Go, Java and Kotlin extractors.

Theory of operation: each extractor parses once, runs a few compiled queries over the tree and
touches only the captured nodes. Definitions arrive in document order; :class:`Definitions`
keeps them with their byte spans and a parent index, so the enclosing definition of any byte
offset (a fact's ``symbol``, a variable's scope) is a bisection plus a short climb, never a tree
walk. Compiled queries are cached per process (the only global state); everything else lives in
one call of ``extract``.
"""

from __future__ import annotations

import bisect
import re
import signal
from typing import Final

import tree_sitter

from .._facts import Definition, GrpcFact
from . import _navigation, _ts
from ._ts import syntax_error

__all__ = [
    "JVM_IMPL_BASE_SUFFIXES",
    "JVM_GRPC_HINTS",
    "JVM_OBJECT_METHODS",
    "JVM_STUB_CONFIG",
    "JVM_STUB_FACTORIES",
    "JVM_STUB_METHODS",
    "JVM_STUB_SUFFIXES",
    "Bindings",
    "Definitions",
    "GrpcFacts",
    "JvmImports",
    "MATCH_LIMIT",
    "Stub",
    "captures",
    "jvm_standard_service",
    "matches",
    "query",
    "squash",
    "strip_affixes",
    "syntax_error",
    "too_broken",
]

_queries: dict[tuple[str, str], tree_sitter.Query] = {}

#: A safety valve for pathological input: a query stops after this many in-progress matches.
MATCH_LIMIT: Final = 1 << 16


def query(language: str, pattern: str) -> tree_sitter.Query:
    """The compiled query for ``pattern`` in ``language`` (compiled once per process)."""
    key = (language, pattern)
    compiled = _queries.get(key)
    if compiled is None:
        compiled = _queries[key] = _compile(language, pattern)
    return compiled


def _compile(language: str, pattern: str) -> tree_sitter.Query:
    """Compile a query with the file's time budget stopped: a parse worker's budget is a real-time
    timer (``ITIMER_REAL``), and compiling a query (0.1-0.7 s, seconds on a loaded machine, once a
    process) is no part of parsing the file; an alarm arriving inside the compilation also broke it
    (a regular expression "error"). Where no timer runs, nothing changes."""
    try:
        left = signal.setitimer(signal.ITIMER_REAL, 0)[0]
    except (ValueError, OSError):  # no timers here
        left = 0.0
    try:
        return tree_sitter.Query(_ts.language(language), pattern)
    finally:
        if left > 0:
            signal.setitimer(signal.ITIMER_REAL, left)


def matches(compiled: tree_sitter.Query, node: tree_sitter.Node) -> list[tuple[int, dict[str, list[tree_sitter.Node]]]]:
    """All matches of ``compiled`` under ``node``: ``(pattern index, captures)`` pairs."""
    cursor = tree_sitter.QueryCursor(compiled, match_limit=MATCH_LIMIT)
    return cursor.matches(node)


def captures(compiled: tree_sitter.Query, node: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
    """The nodes each capture of ``compiled`` names under ``node``, each list in document order."""
    cursor = tree_sitter.QueryCursor(compiled, match_limit=MATCH_LIMIT)
    found = cursor.captures(node)
    for nodes in found.values():
        nodes.sort(key=_start)
    return found


def _start(node: tree_sitter.Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


def strip_affixes(name: str, prefix: str, suffix: str) -> str:
    """``name`` without ``prefix`` and ``suffix``, or "" when it lacks either or nothing is left."""
    if len(name) > len(prefix) + len(suffix) and name.startswith(prefix) and name.endswith(suffix):
        return name[len(prefix) : len(name) - len(suffix)]
    return ""


class Definitions:
    """Definitions met in document order, with their nesting, spans and qualified names.

    ``parent_of(start)`` must be called for each new definition before ``add``: it closes the
    definitions that end before ``start`` and answers the index of the enclosing one (-1: none).
    """

    def __init__(self, language: str = "", source: bytes = b"") -> None:
        #: With a language and the source, each definition gets its signature and doc line.
        self._language = language
        self._source = source
        self.facts: list[Definition] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.parents: list[int] = []
        self.qualnames: list[str] = []
        self.kinds: list[str] = []
        self.nodes: list[tree_sitter.Node] = []
        self._open: list[int] = []
        self._children: dict[int, list[int]] | None = None

    def parent_of(self, start: int) -> int:
        """The index of the open definition enclosing byte ``start`` (-1 at top level)."""
        stack = self._open
        while stack and self.ends[stack[-1]] <= start:
            stack.pop()
        return stack[-1] if stack else -1

    def add(
        self,
        node: tree_sitter.Node,
        name: str,
        kind: str,
        parent: int,
        container: str | None = None,
        line: int | None = None,
    ) -> int:
        """Record the definition ``node`` named ``name`` inside ``parent``; its index.

        ``container`` overrides the dotted path of ``parent`` (a Go method's receiver type);
        ``line`` overrides the first line of ``node`` (to leave out annotations above a declaration).
        """
        if container is None:
            container = self.qualnames[parent] if parent >= 0 else ""
        if line is None:
            line = node.start_point[0] + 1
        index = len(self.facts)
        signature, doc = _navigation.details(self._language, node, self._source) if self._language else ("", "")
        self.facts.append(Definition(name, kind, container, line, node.end_point[0] + 1, signature, doc))
        self.starts.append(node.start_byte)
        self.ends.append(node.end_byte)
        self.parents.append(parent)
        self.qualnames.append(f"{container}.{name}" if container else name)
        self.kinds.append(kind)
        self.nodes.append(node)
        self._open.append(index)
        return index

    def enclosing(self, offset: int) -> int:
        """The index of the innermost definition whose span holds byte ``offset`` (-1: none)."""
        index = bisect.bisect_right(self.starts, offset) - 1
        while index >= 0 and self.ends[index] <= offset:
            index = self.parents[index]
        return index

    def symbol(self, offset: int) -> str:
        """The qualified name of the innermost definition holding byte ``offset`` ("" if none)."""
        index = self.enclosing(offset)
        return self.qualnames[index] if index >= 0 else ""

    def merged(self, extra: list[tuple[int, Definition]]) -> tuple[Definition, ...]:
        """The definitions with ``extra`` ``(start byte, definition)`` among them, in source order
        (constants kept out of the spans, which the gRPC and link passes read as scopes)."""
        if not extra:
            return tuple(self.facts)
        placed = [*zip(self.starts, self.facts, strict=True), *extra]
        placed.sort(key=lambda item: item[0])
        return tuple(fact for _, fact in placed)

    def children(self, parent: int) -> list[int]:
        """Indices of the definitions directly inside ``parent``, in document order (once all are added)."""
        if self._children is None:
            self._children = {}
            for index, owner in enumerate(self.parents):
                self._children.setdefault(owner, []).append(index)
        return self._children.get(parent, [])


class GrpcFacts:
    """Collects gRPC facts keyed by the byte offset of their anchor; ``done`` sorts and dedups."""

    def __init__(self, definitions: Definitions) -> None:
        self._definitions = definitions
        self._facts: dict[tuple[int, str, str, str], GrpcFact] = {}

    def add(self, role: str, service: str, method: str, node: tree_sitter.Node, namespace: str = "") -> None:
        """A fact anchored at ``node`` (its line, and the definition enclosing it as ``symbol``)."""
        key = (node.start_byte, role, service, method)
        if service and key not in self._facts:
            symbol = self._definitions.symbol(node.start_byte)
            self._facts[key] = GrpcFact(role, service, method, node.start_point[0] + 1, symbol, namespace)

    def done(self) -> tuple[GrpcFact, ...]:
        """The facts in source order."""
        return tuple(self._facts[key] for key in sorted(self._facts))


_SPACE: Final = re.compile(r"\s+")


def squash(text: str) -> str:
    """``text`` without any white space (a dotted name broken over lines)."""
    return _SPACE.sub("", text)


# -- pathological trees --------------------------------------------------------------------------

#: Error recovery can leave ERROR nodes with thousands of direct children (``{{{{...``, binary
#: junk); a query visiting them costs the square of their width (the cursor scans the later
#: siblings at every step), so a tree whose ERROR widths squared sum past this is not queried.
_ERROR_WIDTH_COST_MAX: Final = 25_000_000
#: ... nor one whose paths to errors hold more nodes than this: it is not source code.
_ERROR_NODES_MAX: Final = 500_000


def too_broken(root: tree_sitter.Node) -> bool:
    """Whether the errors under ``root`` would make a query over it take quadratic time.

    Walks only the children of nodes that contain an error, so a sound tree costs nothing.
    """
    if not root.has_error:
        return False
    cost = seen = 0
    stack = [root]
    while stack:
        node = stack.pop()
        width = node.child_count
        seen += width
        if node.is_error:
            cost += width * width
        if cost > _ERROR_WIDTH_COST_MAX or seen > _ERROR_NODES_MAX:
            return True
        stack.extend(child for child in node.children if child.has_error)
    return False


# -- data flow -------------------------------------------------------------------------------------

#: A stub or client: its service and namespace.
Stub = tuple[str, str]


class Bindings:
    """What names hold, per scope: a definition index, or -1 for the file.

    A name bound in a scope holds a stub there, or None when declared as something else (which
    hides a stub of the same name in an outer scope). The analysis is flow-insensitive: once a
    name holds a stub in a scope it keeps it, whatever else is assigned to it.
    """

    def __init__(self, definitions: Definitions) -> None:
        self.definitions = definitions
        self.names: dict[tuple[int, str], Stub | None] = {}

    def bind(self, scope: int, name: str, stub: Stub | None) -> bool:
        """Declare ``name`` in ``scope``, holding ``stub`` if it is one; whether that stub is new there."""
        key = (scope, name)
        if self.names.get(key) is not None:
            return False
        self.names[key] = stub
        return stub is not None

    def declaring(self, name: str, offset: int) -> int | None:
        """The innermost scope around byte ``offset`` that declares ``name`` (None: none does)."""
        scope = self.definitions.enclosing(offset)
        while (scope, name) not in self.names:
            if scope < 0:
                return None
            scope = self.definitions.parents[scope]
        return scope

    def lookup(self, name: str, offset: int) -> Stub | None:
        """What ``name`` holds at byte ``offset``: the innermost scope declaring it decides."""
        scope = self.declaring(name, offset)
        return None if scope is None else self.names[(scope, name)]

    def stub_names(self) -> frozenset[str]:
        """Every name that holds a stub in some scope (a quick filter before a lookup)."""
        return frozenset(name for (_, name), stub in self.names.items() if stub is not None)


# -- grpc-java and grpc-kotlin generated names -------------------------------------------------------

#: Stub classes nested in ``<Svc>Grpc`` / ``<Svc>GrpcKt``, longest suffix first.
JVM_STUB_SUFFIXES: Final = ("CoroutineStub", "BlockingV2Stub", "BlockingStub", "FutureStub", "Stub")
#: Server base classes nested in ``<Svc>Grpc`` / ``<Svc>GrpcKt``.
JVM_IMPL_BASE_SUFFIXES: Final = ("CoroutineImplBase", "ImplBase")
#: The static factories of ``<Svc>Grpc`` that create a stub.
JVM_STUB_FACTORIES: Final = frozenset({"newStub", "newBlockingStub", "newFutureStub", "newBlockingV2Stub"})
#: Methods every stub has that are not RPCs (besides the ``with...`` ones).
JVM_STUB_METHODS: Final = frozenset({"getChannel", "getCallOptions", "build"})
#: ``with`` + an upper-case letter: the ``AbstractStub`` configuration calls, which return a stub.
JVM_STUB_CONFIG: Final = re.compile(r"with[A-Z]")
#: Public methods of a service class that are never RPC handlers.
JVM_OBJECT_METHODS: Final = frozenset({"toString", "equals", "hashCode", "finalize", "bindService"})


#: Bytes without any of these cannot hold grpc-java or grpc-kotlin evidence.
JVM_GRPC_HINTS: Final = (b"Grpc", b"Stub", b"ImplBase", b"ProtoReflectionService", b"getHealthService")

#: The runtime's standard services as grpc-java's own classes make them: (receiver, method) ->
#: (service, namespace); a receiver of "" stands for any.
_JVM_STANDARD: Final = {
    ("ProtoReflectionService", "newInstance"): ("ServerReflection", "io.grpc.reflection.v1alpha"),
    ("ProtoReflectionServiceV1", "newInstance"): ("ServerReflection", "io.grpc.reflection.v1"),
    ("", "getHealthService"): ("Health", "io.grpc.health.v1"),
}


def jvm_standard_service(receiver: str, method: str) -> Stub | None:
    """(service, namespace) of the standard service ``receiver.method(...)`` makes for a server
    (``ProtoReflectionService.newInstance()``, ``healthStatusManager.getHealthService()``), or None."""
    owner = receiver.rsplit(".", 1)[-1]
    return _JVM_STANDARD.get((owner, method)) or _JVM_STANDARD.get(("", method))


def _jvm_owners(service: str) -> tuple[str, str]:
    return service + "Grpc", service + "GrpcKt"


def _jvm_services(name: str, suffixes: tuple[str, ...]) -> list[str]:
    """The services ``name`` can be the generated class of, one per matching suffix."""
    return [name[: -len(suffix)] for suffix in suffixes if len(name) > len(suffix) and name.endswith(suffix)]


class JvmImports:
    """The imports of a Java or Kotlin file, to tell generated gRPC names from look-alikes.

    A bare ``OrdersBlockingStub`` or ``newBlockingStub`` is generated code only when an import
    brings it from ``OrdersGrpc`` (or ``OrdersGrpcKt``), by name, by alias or with a wildcard.
    """

    def __init__(self) -> None:
        #: local name -> the parts of the imported path
        self.paths: dict[str, list[str]] = {}
        #: the parts of each wildcard import's owner (``a.b.OrdersGrpc`` for ``a.b.OrdersGrpc.*``)
        self.wildcards: list[list[str]] = []

    def add(self, parts: list[str], wildcard: bool = False, alias: str = "") -> None:
        """Note the import of ``parts`` (``a.b.C``), as ``alias`` if given, or of all of it."""
        if wildcard:
            self.wildcards.append(parts)
        elif parts:
            self.paths[alias or parts[-1]] = parts

    def generated(self, parts: list[str], suffixes: tuple[str, ...]) -> Stub | None:
        """(service, namespace) when ``parts`` spell ``[<ns>.]<Svc>Grpc[Kt].<Svc><suffix>``.

        A bare name counts when an import brings ``<Svc><suffix>`` from ``<Svc>Grpc[Kt]``; its
        namespace is "", the namespace being what the use site writes before ``<Svc>Grpc``.
        """
        if len(parts) >= 2:
            name = parts[-1]
            for service in _jvm_services(name, suffixes):
                if parts[-2] in _jvm_owners(service):
                    return service, ".".join(parts[:-2])
            return None
        if not parts:
            return None
        path = self.paths.get(parts[0])
        if path is not None and len(path) >= 2:
            found = self.generated(path[-2:], suffixes)
            return (found[0], "") if found is not None else None
        owners = {wildcard[-1] for wildcard in self.wildcards if wildcard}
        for service in _jvm_services(parts[0], suffixes):
            if owners.intersection(_jvm_owners(service)):
                return service, ""
        return None

    def factory(self, receiver: list[str] | None, name: str) -> Stub | None:
        """The stub ``[<ns>.]<Svc>Grpc.new...Stub(...)`` creates; with no receiver, a factory imported statically."""
        if receiver:
            if name not in JVM_STUB_FACTORIES:
                return None
            owner, namespace = receiver[-1], ".".join(receiver[:-1])
        else:
            path = self.paths.get(name)
            if path is not None and len(path) >= 2 and path[-1] in JVM_STUB_FACTORIES:
                owner = path[-2]
            elif name in JVM_STUB_FACTORIES:
                owners = [wildcard[-1] for wildcard in self.wildcards if wildcard and wildcard[-1].endswith("Grpc")]
                if len(owners) != 1:
                    return None
                owner = owners[0]
            else:
                return None
            namespace = ""
        if len(owner) > 4 and owner.endswith("Grpc"):
            return owner[:-4], namespace
        return None
