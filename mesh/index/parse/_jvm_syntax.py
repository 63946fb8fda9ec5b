"""The Java and Kotlin trees seen alike, for the link pass (:mod:`._jvm_links`).

Both grammars answer the same questions through a :class:`Syntax`: what call a node is (receiver,
name, positional and named arguments, Kotlin trailing lambda, the type an object creation names),
what shape an expression has (a string and its interpolations, a concatenation, a name, a member, a
call, a class literal, an array, a lambda, a reference), what an annotation names and passes, what
a declaration declares. Nothing here asks a node for its parent: tree-sitter finds a parent by
walking down from the root, which makes deep trees quadratic. Pure functions of the tree and the
source bytes; texts are read from the original bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

import attrs
import tree_sitter

from .._facts import Namespace, Reference
from . import _ts
from ._common import squash

__all__ = [
    "WRITTEN_MAX",
    "Ann",
    "Call",
    "Decl",
    "JavaSyntax",
    "KotlinSyntax",
    "Syntax",
    "imported_members",
    "named_nodes",
    "package",
    "parse_bounded",
    "qualify_imported",
    "same",
    "unglue_annotations",
]

_JAVA_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "0": "\0", "s": " "}
_COMMENTS: Final = frozenset({"comment", "line_comment", "block_comment", "multiline_comment"})
#: How many parentheses and casts an expression is looked through.
_UNWRAP_MAX: Final = 8
#: How many parts a dotted type name (``a.b.Request.Builder``) may have.
_DOTTED_MAX: Final = 32
#: How many annotation lines :func:`unglue_annotations` reads before a declaration.
_ANNOTATION_LINES_MAX: Final = 64
#: Expressions longer than this (in bytes) are never compared as written (``RequestEntity``, ``System``...).
WRITTEN_MAX: Final = 200
#: A retry parse may report progress this many times, plus one per this many bytes (a sound parse
#: reports about once per 90 bytes; the grammar's pathological inputs thousands of times more).
_PROGRESS_BASE: Final = 256
_PROGRESS_BYTES: Final = 8
#: Bytes handed to the parser per read of :func:`parse_bounded`.
_CHUNK_BYTES: Final = 256

#: Parsers of :func:`parse_bounded`, one per language (a cancelled parse must not leave state in
#: the shared one of :mod:`._ts`).
_bounded_parsers: dict[str, tree_sitter.Parser] = {}


class Call:
    """A method call or object creation, whatever the grammar."""

    __slots__ = ("anchor", "args", "lam", "name", "named", "new", "node", "receiver")

    def __init__(
        self,
        node: tree_sitter.Node,
        anchor: tree_sitter.Node,
        receiver: tree_sitter.Node | None,
        name: str,
        args: list[tree_sitter.Node],
        named: dict[str, tree_sitter.Node],
        lam: tree_sitter.Node | None,
        new: str,
    ) -> None:
        self.node = node
        #: The name's node (its line is the fact's line).
        self.anchor = anchor
        self.receiver = receiver
        self.name = name
        self.args = args
        self.named = named
        #: A Kotlin trailing lambda (its ``lambda_literal``).
        self.lam = lam
        #: For an object creation, the type as written without type arguments (``Request.Builder``).
        self.new = new

    def arg(self, index: int, name: str = "") -> tree_sitter.Node | None:
        if name and name in self.named:
            return self.named[name]
        return self.args[index] if 0 <= index < len(self.args) else None


class Ann:
    """An annotation (or a Kotlin nested annotation written as a call): name and arguments."""

    __slots__ = ("args", "name", "named", "node")

    def __init__(
        self, node: tree_sitter.Node, name: str, args: list[tree_sitter.Node], named: dict[str, tree_sitter.Node]
    ) -> None:
        self.node = node
        self.name = name
        self.args = args
        self.named = named

    def value(self, *names: str) -> tree_sitter.Node | None:
        """The first of the named arguments given, else the first positional one when ``value`` is asked."""
        for name in names:
            if name in self.named:
                return self.named[name]
        if "value" in names and self.args:
            return self.args[0]
        return None

    def values(self, *names: str) -> list[tree_sitter.Node]:
        """Like :meth:`value`, but every positional argument stands for ``value`` (a Kotlin vararg)."""
        for name in names:
            if name in self.named:
                return [self.named[name]]
        return list(self.args) if "value" in names else []


@attrs.define
class Decl:
    """A declared name: a field, property, local or parameter."""

    name: str
    node: tree_sitter.Node
    type: str
    value: tree_sitter.Node | None
    annotations: list[tree_sitter.Node]
    #: A class-level constant (Java ``static``, an interface field; Kotlin ``const``).
    constant: bool = False
    #: A Kotlin ``val`` (a constant when it belongs to an object, a companion or the file).
    readonly: bool = False
    #: The type arguments of the declared type as written (``("Ticket", "TicketEvent")``).
    arguments: tuple[str, ...] = ()


class Syntax:
    """What the rules ask of a tree; one subclass per grammar."""

    language = ""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self._calls: dict[tuple[int, int, str], Call | None] = {}

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.source)

    def call(self, node: tree_sitter.Node | None) -> Call | None:
        """The call ``node`` is (None: no call), read once per node."""
        if node is None:
            return None
        key = (node.start_byte, node.end_byte, node.type)
        if key not in self._calls:
            self._calls[key] = self._call(node)
        return self._calls[key]

    def _call(self, node: tree_sitter.Node) -> Call | None:
        raise NotImplementedError

    def receiver_of(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The receiver of a captured call node, cheaply (no normalisation); None when none."""
        raise NotImplementedError

    def head(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """For a Kotlin call with a trailing lambda after parentheses, the inner call node it wraps."""
        return None

    def shape(self, node: tree_sitter.Node) -> tuple[str, object, object]:
        """``(tag, a, b)``: ``str``, ``plus`` (left, right), ``elvis`` (left, right), ``name`` (text),
        ``this`` (member), ``member`` (object node, member), ``call``, ``class`` (type), ``array``
        (items), ``lambda`` (body), ``ref`` (text), ``ann``, ``other``."""
        raise NotImplementedError

    def string(self, node: tree_sitter.Node) -> list[str | tree_sitter.Node | tuple[str, int]]:
        """A string literal's pieces: literal text, an interpolated expression node, or a Kotlin
        ``$name`` as ``(name, offset)``."""
        raise NotImplementedError

    def annotation(self, node: tree_sitter.Node) -> Ann | None:
        raise NotImplementedError

    def annotations(self, node: tree_sitter.Node) -> list[tree_sitter.Node]:
        """The annotation nodes among a declaration's modifiers."""
        modifiers = next((child for child in node.children if child.type == "modifiers"), None)
        return [child for child in named_nodes(modifiers) if child.type in ("annotation", "marker_annotation")]

    def declarations(self, node: tree_sitter.Node) -> list[Decl]:
        raise NotImplementedError

    def assignment(self, node: tree_sitter.Node) -> tuple[tree_sitter.Node, tree_sitter.Node] | None:
        raise NotImplementedError

    def package(self, node: tree_sitter.Node) -> str:
        raise NotImplementedError

    def supertypes(self, node: tree_sitter.Node) -> str:
        """The text of a type declaration's supertypes ("" when none)."""
        raise NotImplementedError

    def lambda_statements(self, node: tree_sitter.Node | None) -> list[tree_sitter.Node]:
        """The statements (or the expression) of a lambda's body."""
        raise NotImplementedError


def same(a: tree_sitter.Node | None, b: tree_sitter.Node | None) -> bool:
    """Whether ``a`` and ``b`` are the same node (by span and type)."""
    return (
        a is not None
        and b is not None
        and a.start_byte == b.start_byte
        and a.end_byte == b.end_byte
        and a.type == b.type
    )


def named_nodes(node: tree_sitter.Node | None) -> list[tree_sitter.Node]:
    """The named children of ``node`` but comments ([] for None)."""
    return [child for child in node.named_children if child.type not in _COMMENTS] if node is not None else []


def _unescape_java(text: str) -> str:
    out = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            nxt = text[index + 1]
            out.append(_JAVA_ESCAPES.get(nxt, nxt))
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


class JavaSyntax(Syntax):
    language = "java"

    _TYPES: Final = frozenset(
        {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration",
         "method_declaration", "constructor_declaration"}
    )  # fmt: skip

    def _call(self, node: tree_sitter.Node) -> Call | None:
        if node.type == "method_invocation":
            name = node.child_by_field_name("name")
            if name is None:
                return None
            args = named_nodes(node.child_by_field_name("arguments"))
            return Call(node, name, node.child_by_field_name("object"), self.text(name), args, {}, None, "")
        if node.type == "object_creation_expression":
            kind = node.child_by_field_name("type")
            if kind is None:
                return None
            written = kind.named_children[0] if kind.type == "generic_type" and kind.named_child_count else kind
            new = squash(self.text(written))
            args = named_nodes(node.child_by_field_name("arguments"))
            return Call(node, kind, None, new.rsplit(".", 1)[-1], args, {}, None, new)
        return None

    def receiver_of(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        return node.child_by_field_name("object") if node.type == "method_invocation" else None

    def shape(self, node: tree_sitter.Node) -> tuple[str, object, object]:
        for _ in range(_UNWRAP_MAX):
            kind = node.type
            if kind in ("parenthesized_expression", "cast_expression"):
                inner = (
                    node.child_by_field_name("value") if kind == "cast_expression" else (named_nodes(node) or [None])[0]
                )
                if inner is None:
                    return ("other", None, None)
                node = inner
                continue
            break
        kind = node.type
        if kind == "string_literal":
            return ("str", node, None)
        if kind == "binary_expression":
            operator = node.child_by_field_name("operator")
            if operator is not None and operator.type == "+":
                return ("plus", node.child_by_field_name("left"), node.child_by_field_name("right"))
            return ("other", None, None)
        if kind == "identifier":
            return ("name", self.text(node), None)
        if kind == "field_access":
            owner = node.child_by_field_name("object")
            field = self.text(node.child_by_field_name("field"))
            if owner is not None and owner.type == "this":
                return ("this", field, None)
            return ("member", owner, field)
        if kind == "scoped_identifier":
            owner = node.child_by_field_name("scope")
            return ("member", owner, self.text(node.child_by_field_name("name")))
        if kind in ("method_invocation", "object_creation_expression"):
            return ("call", node, None)
        if kind == "class_literal":
            return ("class", squash(self.text(node.named_children[0])) if node.named_child_count else "", None)
        if kind in ("element_value_array_initializer", "array_initializer"):
            return ("array", named_nodes(node), None)
        if kind == "array_creation_expression":
            value = node.child_by_field_name("value")
            return ("array", named_nodes(value), None) if value is not None else ("other", None, None)
        if kind == "lambda_expression":
            return ("lambda", node.child_by_field_name("body"), None)
        if kind == "method_reference":
            return (
                "ref",
                squash(self.text(node)).replace("::", ".") if node.end_byte - node.start_byte <= WRITTEN_MAX else "",
                None,
            )
        if kind in ("annotation", "marker_annotation"):
            return ("ann", node, None)
        return ("other", None, None)

    def string(self, node: tree_sitter.Node) -> list[str | tree_sitter.Node | tuple[str, int]]:
        out: list[str | tree_sitter.Node | tuple[str, int]] = []
        for child in node.named_children:
            if child.type in ("string_fragment", "multiline_string_fragment"):
                out.append(self.text(child))
            elif child.type == "escape_sequence":
                out.append(_unescape_java(self.text(child)))
            elif child.type == "string_interpolation" and child.named_child_count:
                out.append(child.named_children[0])
        return out

    def annotation(self, node: tree_sitter.Node) -> Ann | None:
        if node.type not in ("annotation", "marker_annotation"):
            return None
        name = node.child_by_field_name("name")
        if name is None:
            return None
        args: list[tree_sitter.Node] = []
        named: dict[str, tree_sitter.Node] = {}
        for child in named_nodes(node.child_by_field_name("arguments")):
            if child.type == "element_value_pair":
                key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
                if key is not None and value is not None:
                    named.setdefault(self.text(key), value)
            else:
                args.append(child)
        return Ann(node, self.text(name).rsplit(".", 1)[-1].strip(), args, named)

    def declarations(self, node: tree_sitter.Node) -> list[Decl]:
        modifiers = next((child for child in node.children if child.type == "modifiers"), None)
        annotations = [child for child in named_nodes(modifiers) if child.type in ("annotation", "marker_annotation")]
        words = {child.type for child in modifiers.children} if modifiers is not None else set()
        written = node.child_by_field_name("type")
        kind = self._type_name(written)
        arguments = self._arguments(written)
        if node.type in ("formal_parameter", "spread_parameter"):
            name = node.child_by_field_name("name")
            if name is None and node.type == "spread_parameter":
                declarator = next((child for child in node.named_children if child.type == "variable_declarator"), None)
                name = declarator.child_by_field_name("name") if declarator is not None else None
            return (
                [Decl(self.text(name), name, kind, None, annotations, arguments=arguments)] if name is not None else []
            )
        constant = node.type == "constant_declaration" or (node.type == "field_declaration" and "static" in words)
        out = []
        for declarator in node.children_by_field_name("declarator"):
            name = declarator.child_by_field_name("name")
            if name is not None:
                value = declarator.child_by_field_name("value")
                out.append(Decl(self.text(name), name, kind, value, annotations, constant, arguments=arguments))
        return out

    def _arguments(self, node: tree_sitter.Node | None) -> tuple[str, ...]:
        if node is None or node.type != "generic_type":
            return ()
        holder = next((child for child in node.named_children if child.type == "type_arguments"), None)
        return tuple(squash(self.text(child)) for child in named_nodes(holder))

    def _type_name(self, node: tree_sitter.Node | None) -> str:
        if node is None:
            return ""
        if node.type == "generic_type" and node.named_child_count:
            node = node.named_children[0]
        text = squash(self.text(node))
        return "" if text == "var" else text

    def assignment(self, node: tree_sitter.Node) -> tuple[tree_sitter.Node, tree_sitter.Node] | None:
        operator = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator is None or operator.type != "=" or left is None or right is None:
            return None
        return left, right

    def package(self, node: tree_sitter.Node) -> str:
        path = next((child for child in node.named_children if child.type in ("scoped_identifier", "identifier")), None)
        return squash(self.text(path))

    def supertypes(self, node: tree_sitter.Node) -> str:
        parts = [node.child_by_field_name("superclass"), node.child_by_field_name("interfaces")]
        parts.extend(child for child in node.children if child.type == "extends_interfaces")
        return " ".join(squash(self.text(part)) for part in parts if part is not None)

    def lambda_statements(self, node: tree_sitter.Node | None) -> list[tree_sitter.Node]:
        if node is None:
            return []
        if node.type == "lambda_expression":
            node = node.child_by_field_name("body")
        if node is None:
            return []
        if node.type == "block":
            return [
                child.named_children[0] if child.type == "expression_statement" and child.named_child_count else child
                for child in named_nodes(node)
            ]
        return [node]


class KotlinSyntax(Syntax):
    language = "kotlin"

    _TYPES: Final = frozenset({"class_declaration", "object_declaration", "function_declaration", "companion_object"})

    def _call(self, node: tree_sitter.Node) -> Call | None:
        if node.type == "binary_expression":
            return self._generic(node)
        if node.type != "call_expression" or not node.named_child_count:
            return None
        children = named_nodes(node)
        lam = None
        whole = node
        if children and children[-1].type == "annotated_lambda":
            lam = next((child for child in children[-1].named_children if child.type == "lambda_literal"), None)
            head = children[0]
            if head.type == "call_expression" and len(children) == 2:
                inner = named_nodes(head)
                if len(inner) == 2 and inner[1].type == "value_arguments":
                    children = inner
                else:
                    children = [head]
            else:
                children = children[:-1]
        if not children:
            return None
        callee = children[0]
        arguments = next((child for child in children[1:] if child.type == "value_arguments"), None)
        if callee.type == "identifier":
            receiver, anchor = None, callee
        elif callee.type == "navigation_expression" and callee.named_child_count == 2 and self._dotted(callee):
            receiver, anchor = callee.named_children[0], callee.named_children[1]
            if anchor.type != "identifier":
                return None
        else:
            return None
        name = self.text(anchor)
        args: list[tree_sitter.Node] = []
        named: dict[str, tree_sitter.Node] = {}
        for argument in named_nodes(arguments):
            if argument.type != "value_argument":
                continue
            parts = named_nodes(argument)
            if not parts:
                continue
            if (
                any(child.type == "=" for child in argument.children)
                and len(parts) >= 2
                and parts[0].type == "identifier"
            ):
                named.setdefault(self.text(parts[0]), parts[-1])
            else:
                args.append(parts[-1])
        new = ""
        if name[:1].isupper():
            prefix = self._dotted_text(receiver) if receiver is not None else ""
            if receiver is None or prefix:
                new = f"{prefix}.{name}" if prefix else name
        return Call(whole, anchor, receiver, name, args, named, lam, new)

    def _generic(self, node: tree_sitter.Node) -> Call | None:
        """``x.m<T>(arg)``, which the pinned grammar reads as ``(x.m < T) > (arg)``."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if (
            left is None
            or right is None
            or left.type != "binary_expression"
            or right.type != "parenthesized_expression"
        ):
            return None
        if not any(child.type == ">" for child in node.children) or not any(
            child.type == "<" for child in left.children
        ):
            return None
        callee, kind = left.child_by_field_name("left"), left.child_by_field_name("right")
        if callee is None or kind is None or kind.type != "identifier" or not self.text(kind)[:1].isupper():
            return None
        args = named_nodes(right)[:1]
        if callee.type == "identifier":
            return Call(node, callee, None, self.text(callee), args, {}, None, "")
        if callee.type == "navigation_expression" and callee.named_child_count == 2 and self._dotted(callee):
            member = callee.named_children[1]
            if member.type == "identifier":
                return Call(node, member, callee.named_children[0], self.text(member), args, {}, None, "")
        return None

    def _dotted(self, node: tree_sitter.Node) -> bool:
        return any(child.type in (".", "?.") for child in node.children)

    def _dotted_text(self, node: tree_sitter.Node | None) -> str:
        """``a.b.C`` for a chain of capitalised plain names (a nested type), else ""."""
        parts: list[str] = []
        for _ in range(_DOTTED_MAX):
            if node is None:
                return ""
            if node.type == "identifier":
                parts.append(self.text(node))
                return ".".join(reversed(parts)) if parts[-1][:1].isupper() else ""
            if node.type != "navigation_expression" or node.named_child_count != 2 or not self._dotted(node):
                return ""
            parts.append(self.text(node.named_children[1]))
            node = node.named_children[0]
        return ""

    def head(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        if node.type != "call_expression" or node.named_child_count != 2:
            return None
        first, second = node.named_children
        return first if first.type == "call_expression" and second.type == "annotated_lambda" else None

    def receiver_of(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        if node.type == "binary_expression":
            call = self.call(node)
            return call.receiver if call is not None else None
        inner = self.head(node)
        callee = (inner or node).named_children[0] if (inner or node).named_child_count else None
        if (
            callee is not None
            and callee.type == "navigation_expression"
            and callee.named_child_count == 2
            and self._dotted(callee)
        ):
            return callee.named_children[0]
        return None

    def shape(self, node: tree_sitter.Node) -> tuple[str, object, object]:
        for _ in range(_UNWRAP_MAX):
            kind = node.type
            if kind in ("parenthesized_expression", "value_argument"):
                inner = named_nodes(node)
                if not inner:
                    return ("other", None, None)
                node = inner[-1]
                continue
            if kind == "as_expression" and node.named_child_count:
                node = node.named_children[0]
                continue
            break
        kind = node.type
        if kind in ("string_literal", "multiline_string_literal"):
            return ("str", node, None)
        if kind == "binary_expression":
            operator = next((child.type for child in node.children if not child.is_named), "")
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if operator == ">" and self.call(node) is not None:
                return ("call", node, None)
            if operator == "+":
                return ("plus", left, right)
            if operator == "?:":
                return ("elvis", left, right)
            return ("other", None, None)
        if kind == "identifier":
            return ("name", self.text(node), None)
        if kind == "navigation_expression" and node.named_child_count == 2:
            owner, member = node.named_children
            if any(child.type == "::" for child in node.children):
                if self.text(member) == "class":
                    return ("class", squash(self.text(owner)), None)
                return ("ref", squash(self.text(node)).replace("::", "."), None)
            if (
                owner.type == "navigation_expression"
                and self.text(member) == "java"
                and any(child.type == "::" for child in owner.children)
            ):
                return ("class", squash(self.text(owner.named_children[0])) if owner.named_child_count else "", None)
            if owner.type == "this_expression":
                return ("this", self.text(member), None)
            return ("member", owner, self.text(member))
        if kind == "call_expression":
            return ("call", node, None)
        if kind == "collection_literal":
            return ("array", named_nodes(node), None)
        if kind in ("lambda_literal", "annotated_lambda"):
            return ("lambda", node, None)
        if kind == "callable_reference":
            return ("ref", squash(self.text(node)).lstrip(":").replace("::", "."), None)
        if kind == "annotation":
            return ("ann", node, None)
        return ("other", None, None)

    def string(self, node: tree_sitter.Node) -> list[str | tree_sitter.Node | tuple[str, int]]:
        out: list[str | tree_sitter.Node | tuple[str, int]] = []
        dollar = False
        for child in node.named_children:
            kind = child.type
            if kind == "string_content":
                text = self.text(child)
                if dollar:
                    dollar = False
                    match = re.match(r"[A-Za-z_]\w*", text)
                    if match:
                        out.append((match.group(), child.start_byte))
                        text = text[match.end() :]
                    else:
                        out.append("$")
                if text == "$":
                    dollar = True
                    continue
                out.append(text)
            elif kind == "interpolation":
                inner = named_nodes(child)
                if inner:
                    out.append(inner[0])
            elif kind == "escape_sequence":
                out.append(_unescape_java(self.text(child)))
        if dollar:
            out.append("$")
        return out

    def annotation(self, node: tree_sitter.Node) -> Ann | None:
        if node.type == "annotation":
            target = next(
                (child for child in node.named_children if child.type in ("user_type", "constructor_invocation")), None
            )
            if target is None:
                return None
            if target.type == "user_type":
                return Ann(node, self._user_type(target), [], {})
            kind = next((child for child in target.named_children if child.type == "user_type"), None)
            arguments = next((child for child in target.named_children if child.type == "value_arguments"), None)
            args, named = self._arguments(arguments)
            return Ann(node, self._user_type(kind), args, named)
        call = self.call(node) if node.type == "call_expression" else None
        if call is not None:
            return Ann(node, call.name, call.args, call.named)
        return None

    def _arguments(
        self, arguments: tree_sitter.Node | None
    ) -> tuple[list[tree_sitter.Node], dict[str, tree_sitter.Node]]:
        args: list[tree_sitter.Node] = []
        named: dict[str, tree_sitter.Node] = {}
        for argument in named_nodes(arguments):
            parts = named_nodes(argument)
            if argument.type != "value_argument" or not parts:
                continue
            if (
                any(child.type == "=" for child in argument.children)
                and len(parts) >= 2
                and parts[0].type == "identifier"
            ):
                named.setdefault(self.text(parts[0]), parts[-1])
            else:
                args.append(parts[-1])
        return args, named

    def _user_type(self, node: tree_sitter.Node | None) -> str:
        if node is None:
            return ""
        names = [self.text(child) for child in node.named_children if child.type == "identifier"]
        return names[-1] if names else ""

    def declarations(self, node: tree_sitter.Node) -> list[Decl]:
        kind = node.type
        modifiers = next((child for child in node.children if child.type == "modifiers"), None)
        annotations = [child for child in named_nodes(modifiers) if child.type == "annotation"]
        if kind == "parameter":
            previous = node.prev_named_sibling
            if previous is not None and previous.type == "parameter_modifiers":
                annotations.extend(child for child in previous.named_children if child.type == "annotation")
            name = next((child for child in node.named_children if child.type == "identifier"), None)
            if name is None:
                return []
            default = None
            following = node.next_sibling
            if following is not None and following.type == "=":
                default = following.next_named_sibling
            return [
                Decl(
                    self.text(name), name, self._type(node), default, annotations, arguments=self._type_arguments(node)
                )
            ]
        if kind == "class_parameter":
            name = next((child for child in node.named_children if child.type == "identifier"), None)
            if name is None:
                return []
            default = None
            seen = False
            for child in node.children:
                if child.type == "=":
                    seen = True
                elif seen and child.is_named:
                    default = child
                    break
            return [
                Decl(
                    self.text(name), name, self._type(node), default, annotations, arguments=self._type_arguments(node)
                )
            ]
        if kind != "property_declaration":
            return []
        variable = next((child for child in node.named_children if child.type == "variable_declaration"), None)
        if variable is None:
            return []
        name = next((child for child in variable.named_children if child.type == "identifier"), None)
        if name is None:
            return []
        value = None
        seen = False
        for child in node.children:
            if child.type == "=":
                seen = True
            elif seen and child.is_named:
                value = child
                break
            elif child.type == "property_delegate":
                value = self._lazy(child)
        words = {self.text(child) for child in named_nodes(modifiers) if child.type == "property_modifier"}
        readonly = any(child.type == "val" for child in node.children)
        arguments = self._type_arguments(variable)
        return [
            Decl(self.text(name), name, self._type(variable), value, annotations, "const" in words, readonly, arguments)
        ]

    def _lazy(self, delegate: tree_sitter.Node) -> tree_sitter.Node | None:
        """The last expression of ``by lazy { ... }``."""
        call = delegate.named_children[0] if delegate.named_child_count else None
        lam = (
            self.call(call).lam
            if call is not None and call.type == "call_expression" and self.call(call) is not None
            else None
        )
        statements = self.lambda_statements(lam)
        return statements[-1] if statements else None

    def _user_type_of(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        kind = next((child for child in node.named_children if child.type in ("user_type", "nullable_type")), None)
        if kind is not None and kind.type == "nullable_type":
            kind = next((child for child in kind.named_children if child.type == "user_type"), None)
        return kind

    def _type(self, node: tree_sitter.Node) -> str:
        kind = self._user_type_of(node)
        if kind is None:
            return ""
        return ".".join(self.text(child) for child in kind.named_children if child.type == "identifier")

    def _type_arguments(self, node: tree_sitter.Node) -> tuple[str, ...]:
        kind = self._user_type_of(node)
        holder = (
            next((child for child in kind.named_children if child.type == "type_arguments"), None) if kind else None
        )
        return tuple(squash(self.text(child)) for child in named_nodes(holder))

    def assignment(self, node: tree_sitter.Node) -> tuple[tree_sitter.Node, tree_sitter.Node] | None:
        operator = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or (operator is not None and operator.type != "="):
            return None
        return left, right

    def package(self, node: tree_sitter.Node) -> str:
        path = next((child for child in node.named_children if child.type == "qualified_identifier"), None)
        if path is None:
            return ""
        return ".".join(self.text(part) for part in path.named_children if part.type == "identifier")

    def supertypes(self, node: tree_sitter.Node) -> str:
        specifiers = next((child for child in node.named_children if child.type == "delegation_specifiers"), None)
        return squash(self.text(specifiers)) if specifiers is not None else ""

    def lambda_statements(self, node: tree_sitter.Node | None) -> list[tree_sitter.Node]:
        if node is None:
            return []
        if node.type == "annotated_lambda":
            node = next((child for child in node.named_children if child.type == "lambda_literal"), None)
            if node is None:
                return []
        statements = next((child for child in node.named_children if child.type == "statements"), None)
        holder = statements if statements is not None else node
        return [child for child in named_nodes(holder) if child.type not in ("lambda_parameters", "label")]


_ANNOTATION_AT: Final = re.compile(rb"(?:^|(?<=[ \t]))@(?=[A-Za-z_])")


def unglue_annotations(source: bytes, root: tree_sitter.Node) -> bytes | None:
    """``source`` with the ``@`` of top-level annotation lines turned into blanks, or None when none.

    The pinned Kotlin grammar reads ``@RequestMapping("/api")`` + newline + ``class A { ... }`` at
    the top of a file as an annotated expression swallowing the class (no ERROR node). Without the
    ``@`` each annotation is a call statement and the declaration parses; the patch keeps every
    offset and line, and :class:`_Engine` reads such statements back as the annotations of the
    declaration that follows them.
    """
    starts = [child.start_byte for child in root.children if child.type == "annotated_expression"]
    if not starts:
        return None
    patched = bytearray(source)
    for start in starts:
        position = start
        for _ in range(_ANNOTATION_LINES_MAX):
            end = source.find(b"\n", position)
            end = len(source) if end < 0 else end
            line = source[position:end]
            if not line.lstrip().startswith(b"@"):
                break
            for match in _ANNOTATION_AT.finditer(line):
                patched[position + match.start()] = 0x20
            position = end + 1
    return bytes(patched) if patched != source else None


def package(root: tree_sitter.Node, source: bytes) -> tuple[Namespace, ...]:
    """The file's ``package a.b.c`` (Java's declaration, Kotlin's header) as the namespace of the
    whole file; none in the default package."""
    for child in root.named_children:
        if child.type in ("package_declaration", "package_header"):
            named = [node for node in child.named_children if node.type in ("scoped_identifier", "qualified_identifier", "identifier")]
            if named:
                name = "".join(_ts.text(named[0], source).split())
                return (Namespace(name, _ts.line(child), max(_ts.end_line(root), _ts.line(child))),)
    return ()


def parse_bounded(language: str, source: bytes) -> tree_sitter.Node | None:
    """The root of ``source``'s tree, or None when parsing it costs more than a sound file of its
    size would: for a retry with patched bytes, which may hit a pathological case of the grammar
    (seconds and gigabytes) where the original bytes did not."""
    parser = _bounded_parsers.get(language)
    if parser is None:
        parser = _bounded_parsers[language] = tree_sitter.Parser(_ts.language(language))
    source = _ts.valid_utf8(source)  # what the final tree is parsed from, so what the budget measures
    budget = _PROGRESS_BASE + len(source) // _PROGRESS_BYTES
    reports = 0

    def progress(*_: object) -> bool:
        nonlocal reports
        reports += 1
        return reports > budget

    try:
        tree = parser.parse(lambda offset, _: source[offset : offset + _CHUNK_BYTES], progress_callback=progress)
    except ValueError:  # cancelled
        parser.reset()
        return None
    if tree is None:
        return None
    # Parsed again from the bytes, now known to parse within the budget (the same bytes cost the
    # same): a tree read through a callback keeps no copy of the source, and a query predicate
    # reading a node's text (``#match?``) on it went through that callback after it was gone and
    # crashed the process (a segmentation fault, hypothesis found it in the links test).
    return parser.parse(source).root_node


def imported_members(modules: Iterable[str]) -> dict[str, str]:
    """name -> the class it is imported from, for each import of a class's member: a static import
    (``import static a.b.Pricing.shipping``), a nested type (``import a.b.Outer.Inner``), a Kotlin
    object's member (``import a.b.Registry.create``). A class is told by its capital (``a.b`` is a
    package); a name imported from two classes (static imports of two overloads) is left out."""
    found: dict[str, str] = {}
    clashes: set[str] = set()
    for module in modules:
        parts = module.split(".")
        if len(parts) < 2 or parts[-1] == "*" or not parts[-2][:1].isupper():
            continue
        if found.setdefault(parts[-1], parts[-2]) != parts[-2]:
            clashes.add(parts[-1])
    return {name: owner for name, owner in found.items() if name not in clashes}


def qualify_imported(
    references: tuple[Reference, ...], members: dict[str, str], declared: frozenset[str]
) -> tuple[Reference, ...]:
    """``references`` with each bare use of an imported member (:func:`imported_members`) written
    as qualified by its class, as the import means it (``shipping(1.5)`` is ``Pricing.shipping``),
    unless the file declares that name itself (a member of its own hides the import)."""
    wanted = {name: owner for name, owner in members.items() if name not in declared}
    if not wanted:
        return references
    return tuple(
        attrs.evolve(reference, qualifier=wanted[reference.name])
        if not reference.qualifier and reference.name in wanted
        else reference
        for reference in references
    )
