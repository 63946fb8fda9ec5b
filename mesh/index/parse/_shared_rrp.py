"""Plumbing shared by the Rust, Ruby and PHP extractors: words, enclosing definitions, syntax errors.

Theory of operation: those extractors never walk a whole tree from Python. Definitions and imports are
statements, so each extractor walks statement lists only (a few hundred nodes for a 2,000-line file);
gRPC evidence always involves a recognisable word (``...Client``, ``Stub``, a followed variable name), so
:func:`find_words` locates the words with ``bytes.find`` and the extractor looks each one up in the tree
(``descendant_for_byte_range``) and climbs the few parents above it. Both are far cheaper than running a
tree-sitter query, which visits every node of the tree. :class:`Symbols` answers "which definition
encloses this byte?" by bisection over the definitions' byte spans.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable

import tree_sitter

from . import _ts

__all__ = ["Symbols", "deeper_than", "enclosing", "find_words", "first_error_line"]


def first_error_line(root: tree_sitter.Node) -> int:
    """The 1-based line of the first ERROR or MISSING node in document order, 0 when the tree is clean."""
    node = _ts.first_error(root)
    return 0 if node is None else _ts.line(node)


def _is_word_byte(byte: int) -> bool:
    return byte == 95 or 48 <= byte <= 57 or 65 <= byte <= 90 or 97 <= byte <= 122 or byte >= 128


def find_words(
    source: bytes, word: bytes, start: int = 0, end: int = -1, *, suffix: bool = False
) -> list[tuple[int, int]]:
    """The (start, end) byte spans of ``word`` as a whole word in ``source[start:end]``.

    With ``suffix``, ``word`` may also end a longer word, and the span is the whole word
    (``OrdersClient`` for ``Client``).
    """
    if end < 0:
        end = len(source)
    spans = []
    size = len(source)
    at = source.find(word, start, end)
    while at >= 0:
        stop = at + len(word)
        if stop >= size or not _is_word_byte(source[stop]):
            begin = at
            if suffix:
                while begin > 0 and _is_word_byte(source[begin - 1]):
                    begin -= 1
            if suffix or begin == 0 or not _is_word_byte(source[begin - 1]):
                spans.append((begin, stop))
        at = source.find(word, stop, end)
    return spans


def enclosing(node: tree_sitter.Node, kinds: Collection[str]) -> tree_sitter.Node:
    """The nearest ancestor of ``node`` whose type is one of ``kinds`` (the root when none is)."""
    parent = node.parent
    last = node
    while parent is not None:
        if parent.type in kinds:
            return parent
        last, parent = parent, parent.parent
    return last


class Symbols:
    """The innermost enclosing definition of a byte offset, as a dotted name."""

    def __init__(self, spans: Iterable[tuple[int, int, str]]) -> None:
        """``spans`` are (start byte, end byte, dotted name); nested spans lie inside their parents."""
        self._spans = sorted(spans, key=lambda s: (s[0], -s[1]))
        self._starts = [s[0] for s in self._spans]

    def at(self, offset: int) -> str:
        """The dotted name of the innermost span holding ``offset`` ("" when none does)."""
        i = bisect.bisect_right(self._starts, offset) - 1
        while i >= 0:
            start, end, name = self._spans[i]
            if start <= offset < end:
                return name
            i -= 1
        return ""


def deeper_than(root: tree_sitter.Node, depth_max: int) -> bool:
    """Whether the tree under ``root`` nests more than ``depth_max`` levels (a chain of thousands of
    calls, operators or brackets), where a tree-sitter query over it takes quadratic time.

    Enters only children whose descendants could reach that depth, so ordinary code costs a few
    nodes: the ones holding more than ``depth_max`` others.
    """
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > depth_max:
            return True
        for child in node.children:
            if depth + child.descendant_count > depth_max:
                stack.append((child, depth + 1))
    return False
