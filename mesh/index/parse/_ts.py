"""tree-sitter plumbing shared by the language extractors: one parser per language per process.

Grammars are the pinned ``tree-sitter-<lang>`` wheels from PyPI; nothing is downloaded at run time.
Node positions are byte offsets into the source bytes; rows are 0-based, our lines 1-based.
"""

from __future__ import annotations

import importlib
import re
from typing import Final

import tree_sitter

__all__ = ["GRAMMARS", "end_line", "first_error", "line", "parse", "syntax_error", "text", "valid_utf8"]

#: language -> (module, function returning the grammar pointer)
GRAMMARS: Final = {
    "python": ("tree_sitter_python", "language"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
}

_parsers: dict[str, tree_sitter.Parser] = {}


def language(name: str) -> tree_sitter.Language:
    module, function = GRAMMARS[name]
    return tree_sitter.Language(getattr(importlib.import_module(module), function)())


def parse(name: str, source: bytes) -> tree_sitter.Tree:
    """Parse ``source`` with the grammar of ``name`` (a key of :data:`GRAMMARS`)."""
    parser = _parsers.get(name)
    if parser is None:
        parser = _parsers[name] = tree_sitter.Parser(language(name))
    return parser.parse(valid_utf8(source))


_LONE_BYTE: Final = re.compile("[\udc80-\udcff]")


def valid_utf8(source: bytes) -> bytes:
    """``source`` with every byte that is not UTF-8 replaced by ``?``, one for one, so every offset
    and line stays where it was. The tree is parsed from these bytes: a query predicate reading a
    node's text (``#match?``, ``#eq?``) decodes it strictly and raised on a stray byte."""
    try:
        source.decode("utf-8")
    except UnicodeDecodeError:
        return _LONE_BYTE.sub("?", source.decode("utf-8", "surrogateescape")).encode("utf-8")
    return source


def text(node: tree_sitter.Node | None, source: bytes) -> str:
    """The source text of ``node`` ("" for None), invalid UTF-8 replaced."""
    if node is None:
        return ""
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def line(node: tree_sitter.Node) -> int:
    return node.start_point[0] + 1


def end_line(node: tree_sitter.Node) -> int:
    return node.end_point[0] + 1


def first_error(root: tree_sitter.Node) -> tree_sitter.Node | None:
    """The first ERROR or MISSING node in document order, None when the tree has none.

    Walks down only through nodes that contain an error, without recursion (hostile input nests
    deeply).
    """
    if not root.has_error:
        return None
    node = root
    while not (node.is_error or node.is_missing):
        for child in node.children:
            if child.is_error or child.is_missing or child.has_error:
                node = child
                break
        else:
            return node
    return node


def syntax_error(root: tree_sitter.Node) -> str:
    """``"syntax error at line N"`` for the tree's first ERROR or MISSING node, "" when there is none."""
    node = first_error(root)
    return "" if node is None else f"syntax error at line {line(node)}"
