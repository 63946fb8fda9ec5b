"""Tree helpers shared by the C-family extractors (JavaScript/TypeScript, C#, C++).

Queries over huge error-recovery nodes cost the square of their width, so :func:`safe_captures`
queries such a node child by child; :class:`Ranges` finds the innermost enclosing node of a span.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from typing import Final

import tree_sitter

from . import _ts

__all__ = ["Ranges", "error_count", "first_error_line", "safe_captures"]

#: ERROR nodes with more children than this are queried child by child (see :func:`safe_captures`)
_WIDE_ERROR: Final = 1000


def safe_captures(query: tree_sitter.Query, root: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
    """``QueryCursor(query).captures(root)``, safe on ERROR nodes with very many children.

    tree-sitter's query cursor is quadratic in the number of children of an ERROR node (a file of
    100,000 ``{`` takes minutes). Such nodes, and the nodes holding them, are not queried whole: the
    query runs on each of their other children. Patterns rooted at a node holding a wide ERROR are
    lost; everything inside it is kept.

    Each list is sorted in document order (outer node first): the binding returns captures in an
    order that can change from one run to the next.
    """
    cursor = tree_sitter.QueryCursor(query)
    expand = _wide_error_paths(root) if root.has_error else set()
    if not expand:
        found = cursor.captures(root)
    else:
        found = {}
        stack = [root]
        while stack:
            node = stack.pop()
            if node.id in expand:
                stack.extend(reversed(node.children))
            elif node.child_count:
                for name, nodes in cursor.captures(node).items():
                    found.setdefault(name, []).extend(nodes)
    for nodes in found.values():
        nodes.sort(key=_document_order)
    return found


def _document_order(node: tree_sitter.Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


def _wide_error_paths(root: tree_sitter.Node) -> set[int]:
    """Ids of the ERROR nodes with more than ``_WIDE_ERROR`` children and of all their ancestors."""
    parents: dict[int, tree_sitter.Node | None] = {root.id: None}
    expand: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        children = node.children
        if node.is_error and len(children) > _WIDE_ERROR:
            current: tree_sitter.Node | None = node
            while current is not None and current.id not in expand:
                expand.add(current.id)
                current = parents[current.id]
        for child in children:
            if child.has_error:
                parents[child.id] = node
                stack.append(child)
    return expand


def first_error_line(root: tree_sitter.Node) -> int:
    """The 1-based line of the first ERROR or MISSING node in document order (``root`` has errors)."""
    node = _ts.first_error(root)
    return _ts.line(node if node is not None else root)


def error_count(root: tree_sitter.Node) -> int:
    """How many ERROR and MISSING nodes the tree holds (walking only the subtrees that have some)."""
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
        stack.extend(child for child in node.children if child.has_error or child.is_missing)
    return count


class Ranges:
    """Nodes nested by byte range (definitions, scopes, classes): innermost enclosing one of a span.

    Built from nodes of one tree, which nest properly; finding the innermost range around a span is a
    bisection then a walk up the enclosing ranges, without touching the tree.
    """

    def __init__(self, nodes: Iterable[tree_sitter.Node]) -> None:
        ordered = sorted(nodes, key=lambda node: (node.start_byte, -node.end_byte))
        self.nodes = ordered
        self.starts = [node.start_byte for node in ordered]
        self.ends = [node.end_byte for node in ordered]
        self.parents: list[int] = []
        stack: list[int] = []
        for index, start in enumerate(self.starts):
            while stack and self.ends[stack[-1]] <= start:
                stack.pop()
            self.parents.append(stack[-1] if stack else -1)
            stack.append(index)

    def innermost(self, start: int, end: int) -> int:
        """Index of the innermost range holding ``[start, end)`` (-1: none)."""
        index = bisect.bisect_right(self.starts, start) - 1
        while index >= 0 and self.ends[index] < end:
            index = self.parents[index]
        return index

    def around(self, node: tree_sitter.Node) -> int:
        """Index of the innermost range strictly around ``node`` (not ``node`` itself)."""
        index = self.innermost(node.start_byte, node.end_byte)
        while index >= 0 and self.nodes[index].id == node.id:
            index = self.parents[index]
        return index

    def chain(self, index: int) -> Iterator[int]:
        while index >= 0:
            yield index
            index = self.parents[index]


# -- syntax helpers ------------------------------------------------------------------------------
