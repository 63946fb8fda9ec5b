"""tree-sitter plumbing shared by the language extractors: one parser per language per process.

Grammars are the pinned ``tree-sitter-<lang>`` wheels from PyPI; nothing is downloaded at run time.
Node positions are byte offsets into the source bytes; rows are 0-based, our lines 1-based.
"""

from __future__ import annotations

import importlib
from typing import Final

import tree_sitter

__all__ = ["GRAMMARS", "end_line", "line", "parse", "text"]

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
    return parser.parse(source)


def text(node: tree_sitter.Node | None, source: bytes) -> str:
    """The source text of ``node`` ("" for None), invalid UTF-8 replaced."""
    if node is None:
        return ""
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def line(node: tree_sitter.Node) -> int:
    return node.start_point[0] + 1


def end_line(node: tree_sitter.Node) -> int:
    return node.end_point[0] + 1
