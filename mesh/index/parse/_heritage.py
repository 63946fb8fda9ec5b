"""What each class, struct or object of a file derives from: its base classes, interfaces and embedded types.

The resolver asks for this on the few files that may extend a gRPC server type (a class deriving
from a generated servicer, a Go struct embedding the generated ``Unimplemented...Server``), to find
the handlers an inheritance chain or an embedding hides from a per-file extractor:
``class Impl(Base)`` in one file, ``class Base(pb2_grpc.OrdersServicer)`` in another.

Theory of operation: one flat query per grammar finds the class-like nodes; each node's bases are
read from its own fields (a Python argument list, a Java ``superclass``/``interfaces``, a Kotlin
delegation specifier, a C# or C++ base list, a TypeScript ``class_heritage``, a Go struct's fields
without a name, a Ruby ``superclass``, a PHP ``base_clause``/``class_interface_clause``). A base is
reported as its dotted name as written, without generic arguments, pointers or constructor
arguments (``pkg.Base<T>`` and ``*pkg.Base`` are ``pkg.Base``; ``a::b::C`` and ``\\A\\B`` are
``a.b.C`` and ``A.B``). Rust has no inheritance: a trait impl is the extractor's own business.
"""

from __future__ import annotations

import re
from typing import Final

import attrs
import tree_sitter

from . import LANGUAGE_FAMILY, _ts
from ._common import captures, query, too_broken

__all__ = ["Heritage", "heritage"]

_CLASSES: Final = {
    "python": "(class_definition) @class",
    "java": "[(class_declaration) (record_declaration) (enum_declaration)] @class",
    "kotlin": "[(class_declaration) (object_declaration)] @class",
    "csharp": "[(class_declaration) (record_declaration) (struct_declaration)] @class",
    "javascript": "[(class_declaration) (class)] @class",
    "typescript": "[(class_declaration) (abstract_class_declaration) (class)] @class",
    "tsx": "[(class_declaration) (abstract_class_declaration) (class)] @class",
    "go": "(type_spec type: (struct_type)) @class",
    "cpp": "[(class_specifier body: (_)) (struct_specifier body: (_))] @class",
    "ruby": "(class superclass: (_)) @class",
    "php": "(class_declaration) @class",
}

#: The first dotted name of a base as written (generic arguments, pointers and calls left out).
_DOTTED: Final = re.compile(r"[A-Za-z_$][\w$]*(?:\s*(?:\.|::|\\)\s*[A-Za-z_$][\w$]*)*")
_SEPARATOR: Final = re.compile(r"\s*(?:\.|::|\\)\s*")


@attrs.frozen
class Heritage:
    """A class-like definition and what it derives from."""

    name: str
    #: The lines of the whole definition (the extractor's definition of it starts within them).
    line: int
    end_line: int
    #: Dotted, as written: ``pb2_grpc.OrdersServicer``, ``Base``, ``a.b.C``.
    bases: tuple[str, ...]


def heritage(language: str, source: bytes) -> tuple[Heritage, ...]:
    """Every class-like definition of ``source`` that derives from something, in source order."""
    pattern = _CLASSES.get(language)
    if pattern is None:
        return ()
    root = _ts.parse(language, source).root_node
    if too_broken(root):
        return ()
    found = []
    for node in captures(query(language, pattern), root).get("class", ()):
        name = _name(language, node, source)
        bases = tuple(dict.fromkeys(base for base in (_dotted(b, source) for b in _bases(language, node)) if base))
        if name and bases:
            anchor = node.parent if node.type == "class" and node.parent is not None else node
            row, column = anchor.end_point  # a node ending with its newline (Ruby's) ends on the line before
            end_line = row + 1 if column or row == anchor.start_point[0] else row
            found.append(Heritage(name, _ts.line(anchor), end_line, bases))
    return tuple(found)


def _name(language: str, node: tree_sitter.Node, source: bytes) -> str:
    name = node.child_by_field_name("name")
    if name is None and node.type == "class":  # ``const C = class extends D {}``
        parent = node.parent
        if parent is not None and parent.type == "variable_declarator":
            name = parent.child_by_field_name("name")
    if name is None:
        return ""
    text = _ts.text(name, source)
    return _SEPARATOR.split(text)[-1] if language in ("ruby", "cpp") else text


def _bases(language: str, node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The nodes naming what ``node`` derives from."""
    if language == "python":
        bases = node.child_by_field_name("superclasses")
        return [b for b in bases.named_children if b.type in ("identifier", "attribute")] if bases else []
    if language == "java":
        found = []
        superclass = node.child_by_field_name("superclass")
        if superclass is not None:
            found += superclass.named_children
        interfaces = node.child_by_field_name("interfaces")
        for child in interfaces.named_children if interfaces is not None else ():
            found += child.named_children if child.type == "type_list" else [child]
        return found
    if language == "kotlin":
        found = []
        for child in node.named_children:
            if child.type != "delegation_specifiers":
                continue
            for specifier in child.named_children:
                for part in specifier.named_children:
                    if part.type in ("constructor_invocation", "explicit_delegation"):
                        part = next((c for c in part.named_children if c.type == "user_type"), None)
                    if part is not None and part.type == "user_type":
                        found.append(part)
        return found
    if language == "csharp":
        bases = next((child for child in node.named_children if child.type == "base_list"), None)
        return [b for b in bases.named_children if b.type != "argument_list"] if bases is not None else []
    if language in ("javascript", "typescript", "tsx"):
        heritage = next((child for child in node.named_children if child.type == "class_heritage"), None)
        if heritage is None:
            return []
        if language == "javascript":
            return heritage.named_children[:1]
        found = []
        for clause in heritage.named_children:
            if clause.type == "extends_clause":
                value = clause.child_by_field_name("value")
                found += [value] if value is not None else []
            elif clause.type == "implements_clause":
                found += clause.named_children
        return found
    if language == "go":
        fields = node.child_by_field_name("type")
        body = next((child for child in fields.named_children if child.type == "field_declaration_list"), None)
        found = []
        for field in body.named_children if body is not None else ():
            if field.type == "field_declaration" and field.child_by_field_name("name") is None:
                kind = field.child_by_field_name("type")
                if kind is not None and kind.type == "generic_type":
                    kind = kind.child_by_field_name("type")
                if kind is not None:
                    found.append(kind)
        return found
    if language == "cpp":
        bases = next((child for child in node.named_children if child.type == "base_class_clause"), None)
        return [b for b in bases.named_children if b.type != "access_specifier"] if bases is not None else []
    if language == "ruby":
        superclass = node.child_by_field_name("superclass")
        return superclass.named_children[:1] if superclass is not None else []
    if language == "php":
        found = []
        for child in node.named_children:
            if child.type in ("base_clause", "class_interface_clause"):
                found += child.named_children
        return found
    return []


def _dotted(node: tree_sitter.Node, source: bytes) -> str:
    """The dotted name a base node writes ("" when it writes none)."""
    text = _ts.text(node, source).lstrip("\\*& \t\r\n")
    match = _DOTTED.match(text)
    if match is None:
        return ""
    return ".".join(part for part in _SEPARATOR.split(match.group(0)) if part)
