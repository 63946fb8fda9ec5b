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
from typing import Final

import tree_sitter

from .._facts import Definition, GrpcFact
from . import _ts

__all__ = [
    "Definitions",
    "GrpcFacts",
    "captures",
    "matches",
    "query",
    "squash",
    "strip_affixes",
    "syntax_error",
]

_queries: dict[tuple[str, str], tree_sitter.Query] = {}

#: A safety valve for pathological input: a query stops after this many in-progress matches.
_MATCH_LIMIT: Final = 1 << 16


def query(language: str, pattern: str) -> tree_sitter.Query:
    """The compiled query for ``pattern`` in ``language`` (compiled once per process)."""
    key = (language, pattern)
    compiled = _queries.get(key)
    if compiled is None:
        compiled = _queries[key] = tree_sitter.Query(_ts.language(language), pattern)
    return compiled


def matches(compiled: tree_sitter.Query, node: tree_sitter.Node) -> list[tuple[int, dict[str, list[tree_sitter.Node]]]]:
    """All matches of ``compiled`` under ``node``: ``(pattern index, captures)`` pairs."""
    cursor = tree_sitter.QueryCursor(compiled, match_limit=_MATCH_LIMIT)
    return cursor.matches(node)


def captures(compiled: tree_sitter.Query, node: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
    """The nodes each capture of ``compiled`` names under ``node``, each list in document order."""
    cursor = tree_sitter.QueryCursor(compiled, match_limit=_MATCH_LIMIT)
    found = cursor.captures(node)
    for nodes in found.values():
        nodes.sort(key=_start)
    return found


def _start(node: tree_sitter.Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


def syntax_error(root: tree_sitter.Node) -> str:
    """``"syntax error at line N"`` for the first ERROR or MISSING node in document order, else ""."""
    if not root.has_error:
        return ""
    node = root
    while True:
        for child in node.children:
            if child.is_error or child.is_missing:
                return f"syntax error at line {child.start_point[0] + 1}"
            if child.has_error:
                node = child
                break
        else:
            return f"syntax error at line {node.start_point[0] + 1}"


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

    def __init__(self) -> None:
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
        self.facts.append(Definition(name, kind, container, line, node.end_point[0] + 1))
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
