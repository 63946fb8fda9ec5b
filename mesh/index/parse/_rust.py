"""Rust: items, ``use``/``extern crate`` imports, and tonic gRPC evidence (HTTP routes, calls, messages
and link constants: :mod:`._rust_links`).

Theory of operation: items live in item lists (the file, ``mod``/``impl``/``trait``/``extern`` bodies,
and the top level of ``fn`` bodies), so :class:`_Items` walks those lists with an explicit stack and
never enters an expression: a few hundred nodes instead of the whole tree. Each item's container is the
dotted path of the items around it, an ``impl`` block counting as its type (``S`` for
``impl Display for a::S<T>``). A ``fn`` is a method when its list is an ``impl`` or ``trait`` body; an
enum's variants are constants of the enum, a ``macro_rules!`` a function (``m!()`` is its call).

gRPC runs only when the file mentions ``_server``, ``_client`` or ``tonic``, and starts from the words
that can name generated code (``...Client``, ``...Server``, ``use`` aliases), found with ``bytes.find``
and looked up in the tree. A path is expanded through the file's ``use`` declarations
(``OrdersClient`` -> ``pb::orders_client::OrdersClient``) and recognised by tonic's generated shape:
``<ns>::<svc>_server::<Svc>`` (the server trait), ``<ns>::<svc>_server::<Svc>Server`` (the service
wrapper), ``<ns>::<svc>_client::<Svc>Client``; a bare ``<Svc>Client``/``<Svc>Server`` also counts when
the file mentions ``tonic``. Clients are then followed as a worklist: from a constructor call or a
``self.<field>``/local holding a client, :meth:`_Grpc.flow` climbs the few parents above it. A method
called there is a CALL (``clone``/``unwrap``/builder methods pass the client through); a ``let``, a
struct field initialiser or a typed parameter/field/``let`` holding it becomes a new name, whose
occurrences are looked up in turn (a later ``let`` of the same name shadows it).
"""

from __future__ import annotations

import re
from typing import Final

import attrs
import tree_sitter

from .._facts import (
    DOC_CHARS_MAX,
    SIGNATURE_CHARS_MAX,
    Definition,
    FileFacts,
    GrpcFact,
    GrpcRole,
    Import,
    Reference,
    ReferenceKind,
)
from . import _navigation, _rust_links, _ts
from . import _shared_rrp as rrp
from ._common import too_broken

__all__ = ["extract"]

_LANG: Final = "rust"

#: item node type -> definition kind
_KINDS: Final = {
    "function_item": "function",
    "function_signature_item": "function",
    "struct_item": "struct",
    "union_item": "struct",
    "enum_item": "enum",
    "trait_item": "trait",
    "type_item": "type",
    "associated_type": "type",
    "mod_item": "module",
    "const_item": "constant",
    "static_item": "constant",
}
#: items whose body holds more items
_BODIES: Final = frozenset({"function_item", "mod_item", "trait_item"})

_CLIENT_CTORS: Final = frozenset({"new", "connect", "connect_lazy", "with_interceptor", "with_origin"})
_SERVER_CTORS: Final = frozenset({"new", "with_interceptor", "from_arc"})
_ROLE_ORDER: Final = {GrpcRole.SERVER: 0, GrpcRole.HANDLER: 1, GrpcRole.CLIENT: 2, GrpcRole.CALL: 3}
_NAMES: Final = frozenset({"identifier", "type_identifier"})
_SCOPED: Final = frozenset({"scoped_identifier", "scoped_type_identifier"})
#: Methods that hand back the client itself (or a handle on it) rather than calling an RPC.
_PASS_THROUGH: Final = frozenset(
    {
        "clone",
        "unwrap",
        "expect",
        "as_mut",
        "as_ref",
        "to_owned",
        "send_compressed",
        "accept_compressed",
        "send_gzip",
        "accept_gzip",
        "max_decoding_message_size",
        "max_encoding_message_size",
    }
)
#: Generic holders looked through to the client they hold.
_HOLDERS: Final = frozenset({"Option", "Arc", "Rc", "Box"})
_WRAPPERS: Final = frozenset({"await_expression", "try_expression", "parenthesized_expression", "reference_expression"})
_GENERIC_ARGS: Final = re.compile(r"<[^<>]*>")
_SPACE: Final = re.compile(r"\s+")


def extract(source: bytes) -> FileFacts:
    """Definitions, imports and tonic gRPC facts of one Rust file."""
    tree = _ts.parse(_LANG, source)
    root = tree.root_node
    items = _Items(source, root)
    grpc: tuple[GrpcFact, ...] = ()
    if b"_server" in source or b"_client" in source or b"tonic" in source:
        grpc = _Grpc(source, root, items).run()
    links = _rust_links.extract(source, root, items.uses, items.spans)
    # a tree broken past use would cost the references query quadratic time: its items are enough
    references: tuple[Reference, ...] = ()
    if not too_broken(root):
        references = _unambiguous(_navigation.references(_LANG, root, source))
    line = rrp.first_error_line(root)
    return FileFacts(
        language=_LANG,
        definitions=tuple(d for _, d in sorted(items.definitions, key=lambda pair: pair[0])),
        imports=tuple(i for _, i in sorted(items.imports, key=lambda pair: pair[0])),
        grpc=grpc,
        http_routes=links.routes,
        http_calls=links.calls,
        messages=links.messages,
        constants=links.constants,
        references=references,
        error=f"syntax error at line {line}" if line else "",
    )


def _unambiguous(references: tuple[Reference, ...]) -> tuple[Reference, ...]:
    """``references`` without what a name binds when the file gives that name two types: bindings
    are compared per file at query time, and ``client`` typed two ways in two functions says
    nothing sure of ``client.get()``."""
    types: dict[str, set[str]] = {}
    for reference in references:
        if reference.binds:
            types.setdefault(reference.binds, set()).add(reference.name)
    if all(len(names) == 1 for names in types.values()):
        return references
    return tuple(
        attrs.evolve(reference, binds="") if reference.binds and len(types[reference.binds]) > 1 else reference
        for reference in references
        if not (reference.kind == ReferenceKind.BIND and len(types[reference.binds]) > 1)  # no use: nothing left
    )


class _Items:
    """Items and imports, found by walking item lists only (never into expressions)."""

    def __init__(self, source: bytes, root: tree_sitter.Node) -> None:
        self.definitions: list[tuple[int, Definition]] = []
        self.imports: list[tuple[int, Import]] = []
        #: the (path, alias) pairs each ``use`` brings in
        self.uses: list[tuple[str, str]] = []
        self.impls: list[tree_sitter.Node] = []
        #: (start, end, dotted name) of every definition and ``impl`` block
        self.spans: list[tuple[int, int, str]] = []
        #: (item list, container path, whether the list is the body of an impl or a trait)
        stack: list[tuple[tree_sitter.Node, str, bool]] = [(root, "", False)]
        while stack:
            body, container, in_impl = stack.pop()
            for child in body.named_children:
                kind = child.type
                definition = _KINDS.get(kind)
                if definition is not None:
                    name = child.child_by_field_name("name")
                    if name is None:
                        continue
                    text = _ts.text(name, source)
                    if definition == "function" and in_impl:
                        definition = "method"
                    start, end = child.start_byte, child.end_byte
                    line, end_line = _ts.line(child), _ts.end_line(child)
                    signature = _navigation.signature(child, source)
                    doc = _doc(child, source)
                    self.definitions.append(
                        (start, Definition(text, definition, container, line, end_line, signature, doc))
                    )
                    dotted = f"{container}.{text}" if container else text
                    self.spans.append((start, end, dotted))
                    if kind == "enum_item":
                        self.variants(child, dotted, source)
                    if kind in _BODIES:
                        inner = child.child_by_field_name("body")
                        if inner is not None:
                            stack.append((inner, dotted, kind == "trait_item"))
                elif kind == "impl_item":
                    self.impls.append(child)
                    typed = child.child_by_field_name("type")
                    inner = child.child_by_field_name("body")
                    segment = _type_name(typed, source) if typed is not None else ""
                    dotted = f"{container}.{segment}" if container and segment else container or segment
                    self.spans.append((child.start_byte, child.end_byte, dotted))
                    if inner is not None:
                        stack.append((inner, dotted, True))
                elif kind == "use_declaration":
                    argument = child.child_by_field_name("argument")
                    if argument is not None:
                        module, names, leaves = _use(argument, source)
                        self.imports.append((child.start_byte, Import(module, _ts.line(child), names)))
                        self.uses.extend(leaves)
                elif kind == "extern_crate_declaration":
                    name = child.child_by_field_name("name")
                    if name is not None:
                        self.imports.append((child.start_byte, Import(_ts.text(name, source), _ts.line(child))))
                elif kind == "foreign_mod_item":
                    inner = child.child_by_field_name("body")
                    if inner is not None:
                        stack.append((inner, container, False))
                elif kind == "macro_definition":
                    name = child.child_by_field_name("name")
                    if name is not None:
                        text = _ts.text(name, source)
                        self.definitions.append((child.start_byte, Definition(
                            text, "function", container, _ts.line(child), _ts.end_line(child),
                            f"macro_rules! {text}", _doc(child, source),
                        )))  # fmt: skip
                elif kind == "ERROR":
                    stack.append((child, container, in_impl))

    def variants(self, enum: tree_sitter.Node, dotted: str, source: bytes) -> None:
        """An enum's variants: constants, their container the enum (``Status::Paid`` is ``Status.Paid``)."""
        body = enum.child_by_field_name("body")
        for variant in body.named_children if body is not None else ():
            name = variant.child_by_field_name("name") if variant.type == "enum_variant" else None
            if name is not None:
                self.definitions.append((variant.start_byte, Definition(
                    _ts.text(name, source), "constant", dotted, _ts.line(variant), _ts.end_line(variant),
                    _variant_signature(variant, source), _doc(variant, source),
                )))  # fmt: skip


def _variant_signature(variant: tree_sitter.Node, source: bytes) -> str:
    """A variant as written (``Held(String)``, ``Green = 2``), a struct variant up to its fields."""
    body = variant.child_by_field_name("body")
    if body is not None and body.type == "field_declaration_list":
        return _navigation.signature(variant, source)
    text = _SPACE.sub(" ", _ts.text(variant, source)).strip()
    return text if len(text) <= SIGNATURE_CHARS_MAX else text[: SIGNATURE_CHARS_MAX - 1].rstrip() + "…"


_COMMENTS: Final = frozenset({"line_comment", "block_comment"})
#: The marks of a Rust comment line: ``///``, ``//!``, ``//``, ``/**``, ``/*!``, ``/*``, ``*``, ``*/``.
_COMMENT_MARKS: Final = re.compile(r"^\s*(?:/\*[*!]?|\*+/?|//[/!]?)?\s?")
#: A line of punctuation only (``// ------``) says nothing.
_RULE: Final = re.compile(r"^[\W_]*$")


def _doc(item: tree_sitter.Node, source: bytes) -> str:
    """The first line of the comments right above ``item`` (``///``, ``/** */`` or plain), attributes
    between them skipped; a module with none gets the ``//!`` (``/*! */``) its body starts with.

    An inner doc comment (``//!``) documents the module holding it, never the item below it, and a
    comment after code on its line documents that code.
    """
    above = item.prev_named_sibling
    row = item.start_point[0]
    while above is not None and above.type == "attribute_item":
        row = above.start_point[0]
        above = above.prev_named_sibling
    block: list[tree_sitter.Node] = []
    while above is not None and above.type in _COMMENTS and not _inner(above):
        last_row = above.end_point[0] - (above.end_point[1] == 0)  # a line comment holds its newline
        line_start = source.rfind(b"\n", 0, above.start_byte) + 1
        if last_row < row - 1 or (last_row == above.start_point[0] and source[line_start : above.start_byte].strip()):
            break
        block.append(above)
        row = above.start_point[0]
        above = above.prev_named_sibling
    block.reverse()
    if not block and item.type == "mod_item":
        body = item.child_by_field_name("body")
        for child in body.named_children if body is not None else ():
            if child.type not in _COMMENTS or not _inner(child):
                break
            block.append(child)
    for comment in block:
        for line in _ts.text(comment, source).splitlines():
            line = _COMMENT_MARKS.sub("", line, count=1).removesuffix("*/").strip()
            if line and not _RULE.match(line):
                line = _SPACE.sub(" ", line)
                return line if len(line) <= DOC_CHARS_MAX else line[: DOC_CHARS_MAX - 1].rstrip() + "…"
    return ""


def _inner(comment: tree_sitter.Node) -> bool:
    """Whether a comment is an inner doc comment (``//!``, ``/*! */``)."""
    return comment.child_by_field_name("inner") is not None


def _path(node: tree_sitter.Node | None, source: bytes) -> str:
    return _SPACE.sub("", _ts.text(node, source))


def _use(argument: tree_sitter.Node, source: bytes) -> tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(module, names, leaves) of a ``use`` argument; leaves are the full (path, alias) pairs it brings in."""
    kind = argument.type
    if kind == "use_as_clause":
        path = _path(argument.child_by_field_name("path"), source)
        return path, (), ((path, _path(argument.child_by_field_name("alias"), source)),)
    if kind == "use_wildcard":
        inner = argument.named_children
        module = _path(inner[0], source) if inner else ""
        return module, ("*",), ((f"{module}::*", ""),)
    if kind in ("scoped_use_list", "use_list"):
        prefix = _path(argument.child_by_field_name("path"), source) if kind == "scoped_use_list" else ""
        listed = argument.child_by_field_name("list") if kind == "scoped_use_list" else argument
        pairs = _use_list(listed, source)
        names = tuple(path for path, _ in pairs)
        return prefix, names, tuple((f"{prefix}::{path}" if prefix else path, alias) for path, alias in pairs)
    path = _path(argument, source)
    return path, (), ((path, ""),)


def _use_list(listed: tree_sitter.Node | None, source: bytes) -> list[tuple[str, str]]:
    """The (path, alias) pairs of a ``{...}`` list in source order, nested lists flattened to ``a::b`` paths."""
    pairs: list[tuple[str, str]] = []
    stack = [("", child) for child in reversed(listed.named_children)] if listed is not None else []
    while stack:
        prefix, node = stack.pop()
        kind = node.type
        if kind == "scoped_use_list":
            inner = node.child_by_field_name("list")
            if inner is not None:
                deeper = prefix + _path(node.child_by_field_name("path"), source) + "::"
                stack.extend((deeper, child) for child in reversed(inner.named_children))
        elif kind == "use_list":
            stack.extend((prefix, child) for child in reversed(node.named_children))
        elif kind == "use_wildcard":
            inner = node.named_children
            pairs.append((prefix + (_path(inner[0], source) + "::*" if inner else "*"), ""))
        elif kind == "use_as_clause":
            path = _path(node.child_by_field_name("path"), source)
            pairs.append((prefix + path, _path(node.child_by_field_name("alias"), source)))
        elif kind in ("identifier", "scoped_identifier", "self", "crate", "super", "metavariable"):
            pairs.append((prefix + _path(node, source), ""))
    return pairs


def _type_name(node: tree_sitter.Node, source: bytes) -> str:
    """The plain name of an ``impl`` type: ``S`` for ``S<T>``, ``a::S``, ``&'a S`` or ``*const S``."""
    while True:
        kind = node.type
        if kind in ("generic_type", "reference_type", "pointer_type"):
            inner = node.child_by_field_name("type")
        elif kind == "scoped_type_identifier":
            inner = node.child_by_field_name("name")
        else:
            return _path(node, source)
        if inner is None:
            return _path(node, source)
        node = inner


def _segments(path: str) -> list[str]:
    """``a::b::C<T>::new`` -> ``["a", "b", "C", "new"]`` (generic arguments and a leading ``::`` dropped)."""
    previous = None
    while previous != path:
        previous, path = path, _GENERIC_ARGS.sub("", path)
    return [s for s in path.split("::") if s and s != "<" and s != ">"]


def _squash(name: str) -> str:
    return name.replace("_", "").lower()


class _Grpc:
    """The tonic facts of one file, found from the places the generated names occur (never a tree walk)."""

    def __init__(self, source: bytes, root: tree_sitter.Node, items: _Items) -> None:
        self.source = source
        self.root = root
        self.impls = items.impls
        self.tonic = b"tonic" in source
        #: local name -> full path segments, from every ``use`` of the file
        self.aliases: dict[str, list[str]] = {}
        #: modules glob-imported (``use pb::orders_client::*``), as segments
        self.globs: list[list[str]] = []
        for path, alias in items.uses:
            segments = _segments(path)
            if not segments:
                continue
            if segments[-1] == "*":
                if len(segments) > 1 and segments[-2].endswith(("_server", "_client")):
                    self.globs.append(segments[:-1])
            elif alias and alias != "_":
                self.aliases[alias] = segments
            elif segments[-1] != "self":
                self.aliases[segments[-1]] = segments
            elif len(segments) > 1:
                self.aliases[segments[-2]] = segments[:-1]
        self.symbols = rrp.Symbols(items.spans)
        #: path as written -> what :meth:`resolve` made of it
        self.resolved: dict[str, tuple[str, str, str] | None] = {}
        #: (start byte of the node a fact is about, role order) -> the fact: one fact per site and role
        self.facts: dict[tuple[int, int], GrpcFact] = {}
        #: struct field name -> (service, namespace) of the client it holds
        self.fields: dict[str, tuple[str, str]] = {}
        #: local name -> [(visible from, visible until, client or None when a later ``let`` shadows it)]
        self.bindings: dict[str, list[tuple[int, int, tuple[str, str] | None]]] = {}
        #: names still to follow: (name, from, until); until < 0 for a struct field
        self.pending: list[tuple[str, int, int]] = []

    def run(self) -> tuple[GrpcFact, ...]:
        """Every gRPC fact of the file, in source order."""
        for impl in self.impls:
            self.impl(impl)
        for node in self.generated_names():
            self.site(node)
        while self.pending:
            name, start, end = self.pending.pop()
            if end < 0:
                self.follow_field(name)
            else:
                self.follow_local(name, start, end)
        return tuple(fact for _, fact in sorted(self.facts.items(), key=lambda item: item[0]))

    def fact(self, role: str, service: str, method: str, node: tree_sitter.Node, namespace: str) -> None:
        symbol = self.symbols.at(node.start_byte)
        key = (node.start_byte, _ROLE_ORDER[role])
        self.facts[key] = GrpcFact(role, service, method, _ts.line(node), symbol, namespace)

    def resolve(self, path: str) -> tuple[str, str, str] | None:
        """(kind, service, namespace) of a generated type path as written; kind is trait, server or client."""
        if path not in self.resolved:
            self.resolved[path] = self._resolve(_segments(path))
        return self.resolved[path]

    def _resolve(self, segments: list[str]) -> tuple[str, str, str] | None:
        if not segments:
            return None
        expanded = segments
        head = self.aliases.get(segments[0])
        if head is not None:
            expanded = head + segments[1:]
        found = _generated(expanded)
        if found is not None:
            return found
        if len(segments) == 1:
            for glob in self.globs:
                found = _generated(glob + segments)
                if found is not None:
                    return found
        last = expanded[-1]
        if self.tonic and len(last) > 6 and last[0].isupper():
            namespace = "::".join(expanded[:-1])
            if last.endswith("Client"):
                return "client", last[:-6], namespace
            if last.endswith("Server"):
                return "server", last[:-6], namespace
        return None

    def impl(self, impl: tree_sitter.Node) -> None:
        """SERVER for an ``impl <svc>_server::<Svc> for T``, and a HANDLER per ``fn`` in it."""
        trait = impl.child_by_field_name("trait")
        body = impl.child_by_field_name("body")
        if trait is None or body is None:
            return
        found = self.resolve(_path(trait, self.source))
        if found is not None and found[0] == "trait":
            service, namespace = found[1], found[2]
        elif trait.type == "type_identifier" and _tonic_attribute(impl, self.source):
            service, namespace = _ts.text(trait, self.source), ""
        else:
            return
        self.fact(GrpcRole.SERVER, service, "", impl, namespace)
        for child in body.named_children:
            if child.type == "function_item":
                name = child.child_by_field_name("name")
                if name is not None:
                    self.fact(GrpcRole.HANDLER, service, _ts.text(name, self.source), child, namespace)

    def generated_names(self) -> list[tree_sitter.Node]:
        """The identifier nodes of every word that may name a generated client or service wrapper."""
        source = self.source
        spans: set[tuple[int, int]] = set()
        for suffix in (b"Client", b"Server"):
            for start, end in rrp.find_words(source, suffix, suffix=True):
                spans.add((start, end))
        for name in self.aliases:
            found = None if name.endswith(("Client", "Server")) else self.resolve(name)
            if found is not None and found[0] != "trait":
                spans.update(rrp.find_words(source, name.encode()))
        nodes = []
        for start, end in sorted(spans):
            node = self.root.descendant_for_byte_range(start, end)
            if node is not None and node.start_byte == start and node.end_byte == end and node.type in _NAMES:
                nodes.append(node)
        return nodes

    def site(self, node: tree_sitter.Node) -> None:
        """What a generated name does where it stands: construct, register, or type a field/parameter/let."""
        path = node
        parent = path.parent
        while parent is not None and parent.type in _SCOPED and parent.child_by_field_name("name") == path:
            path, parent = parent, parent.parent
        found = self.resolve(_path(path, self.source))
        if found is None or found[0] == "trait" or parent is None:
            return
        kind, service, namespace = found
        client = (service, namespace)
        if parent.type == "generic_type" and parent.child_by_field_name("type") == path:
            path, parent = parent, parent.parent
            if parent is None:
                return
        if parent.type == "scoped_identifier" and parent.child_by_field_name("path") == path:
            call = parent.parent
            method = _ts.text(parent.child_by_field_name("name"), self.source)
            if call is None or call.type != "call_expression" or call.child_by_field_name("function") != parent:
                return
            if kind == "client" and method in _CLIENT_CTORS:
                self.fact(GrpcRole.CLIENT, service, "", call, namespace)
                self.flow(call, client)
            elif kind == "server" and method in _SERVER_CTORS:
                self.fact(GrpcRole.SERVER, service, "", call, namespace)
            return
        if kind != "client":
            return
        while parent is not None and (
            parent.type == "reference_type"
            or parent.type == "type_arguments"
            and _ts.text(parent.parent.child_by_field_name("type") if parent.parent else None, self.source) in _HOLDERS
            or parent.type == "generic_type"
            and parent.child_by_field_name("type_arguments") == path
        ):
            path, parent = parent, parent.parent
        if parent is None or parent.child_by_field_name("type") != path:
            return
        if parent.type == "field_declaration":
            self.add_field(_ts.text(parent.child_by_field_name("name"), self.source), client)
        elif parent.type == "parameter":
            pattern = parent.child_by_field_name("pattern")
            function = parent.parent.parent if parent.parent is not None else None
            if (
                pattern is not None
                and pattern.type == "identifier"
                and function is not None
                and function.type == "function_item"
            ):
                self.bind(_ts.text(pattern, self.source), parent.end_byte, function.end_byte, client)
        elif parent.type == "let_declaration":
            self.let(parent, client)

    def add_field(self, name: str, client: tuple[str, str]) -> None:
        if name and name not in self.fields:
            self.fields[name] = client
            self.pending.append((name, 0, -1))

    def bind(self, name: str, start: int, end: int, client: tuple[str, str] | None) -> None:
        """Record a binding once per site; a shadow met first is upgraded when a client flows into it."""
        known = self.bindings.setdefault(name, [])
        for index, (at, _, held) in enumerate(known):
            if at == start:
                if held is not None or client is None:
                    return
                del known[index]
                break
        known.append((start, end, client))
        if client is not None:
            self.pending.append((name, start, end))

    def let(self, let: tree_sitter.Node, client: tuple[str, str] | None) -> None:
        """Bind the name a ``let`` introduces (to a client, or to None: a shadow) until its block ends."""
        pattern = let.child_by_field_name("pattern")
        if pattern is None or pattern.type != "identifier":
            return
        block = let.parent
        while block is not None and block.type not in ("block", "source_file"):
            block = block.parent
        end = block.end_byte if block is not None else len(self.source)
        self.bind(_ts.text(pattern, self.source), let.end_byte, end, client)

    def follow_local(self, name: str, start: int, end: int) -> None:
        """Follow every use of a local client binding inside its scope, stopping at shadowing ``let``s."""
        for node in self.occurrences(name, start, end, "identifier"):
            parent = node.parent
            if (
                parent is not None
                and parent.type == "let_declaration"
                and parent.child_by_field_name("pattern") == node
            ):
                self.let(parent, self.classify(parent))
                continue
            client = self.lookup(name, node.start_byte)
            if client is not None:
                self.flow(node, client)

    def follow_field(self, name: str) -> None:
        """Follow every ``self.<field>`` of a field holding a client."""
        client = self.fields[name]
        for node in self.occurrences(name, 0, len(self.source), "field_identifier"):
            parent = node.parent
            if parent is not None and parent.type == "field_expression":
                value = parent.child_by_field_name("value")
                if value is not None and value.type == "self":
                    self.flow(parent, client)

    def occurrences(self, name: str, start: int, end: int, kind: str) -> list[tree_sitter.Node]:
        nodes = []
        for word_start, word_end in rrp.find_words(self.source, name.encode(), start, end):
            node = self.root.descendant_for_byte_range(word_start, word_end)
            if node is not None and node.type == kind:
                nodes.append(node)
        return nodes

    def lookup(self, name: str, at: int) -> tuple[str, str] | None:
        best: tuple[int, tuple[str, str] | None] | None = None
        for start, end, client in self.bindings.get(name, ()):
            if start <= at < end and (best is None or start >= best[0]):
                best = (start, client)
        return best[1] if best is not None else None

    def classify(self, let: tree_sitter.Node) -> tuple[str, str] | None:
        """The client a ``let`` binds, read from its value (its type was handled where the type is written)."""
        node = let.child_by_field_name("value")
        source = self.source
        while node is not None:
            kind = node.type
            if kind in _WRAPPERS:
                inner = node.named_children
                node = (inner[-1] if kind == "reference_expression" else inner[0]) if inner else None
            elif kind == "call_expression":
                function = node.child_by_field_name("function")
                if function is None or function.type != "field_expression":
                    return None
                if _ts.text(function.child_by_field_name("field"), source) not in _PASS_THROUGH:
                    return None
                node = function.child_by_field_name("value")
            elif kind == "identifier":
                return self.lookup(_ts.text(node, source), let.start_byte)
            elif kind == "field_expression":
                value = node.child_by_field_name("value")
                if value is None or value.type != "self":
                    return None
                return self.fields.get(_ts.text(node.child_by_field_name("field"), source))
            else:
                return None
        return None

    def flow(self, node: tree_sitter.Node, client: tuple[str, str]) -> None:
        """Climb from an expression holding a client: a method called on it is a CALL; a ``let`` or a struct
        field it is stored into holds the client too."""
        source = self.source
        while True:
            parent = node.parent
            if parent is None:
                return
            kind = parent.type
            if kind in _WRAPPERS:
                node = parent
            elif kind == "field_expression":
                field = parent.child_by_field_name("field")
                call = parent.parent
                if field is None or call is None or call.type != "call_expression":
                    return
                if call.child_by_field_name("function") != parent:
                    return
                method = _ts.text(field, source)
                if method not in _PASS_THROUGH:
                    self.fact(GrpcRole.CALL, client[0], method, field, client[1])
                    return
                node = call
            elif kind == "let_declaration":
                if parent.child_by_field_name("value") == node:
                    self.let(parent, client)
                return
            elif kind == "field_initializer":
                if parent.child_by_field_name("value") == node:
                    self.add_field(_ts.text(parent.child_by_field_name("field"), source), client)
                return
            elif kind == "shorthand_field_initializer":
                self.add_field(_ts.text(node, source), client)
                return
            else:
                return


def _generated(segments: list[str]) -> tuple[str, str, str] | None:
    """(kind, service, namespace) when a full path has tonic's generated shape."""
    if len(segments) < 2:
        return None
    module, last = segments[-2], segments[-1]
    namespace = "::".join(segments[:-2])
    if module.endswith("_server"):
        svc = _squash(module[:-7])
        if _squash(last) == svc:
            return "trait", last, namespace
        if last.endswith("Server") and _squash(last[:-6]) == svc:
            return "server", last[:-6], namespace
    elif module.endswith("_client") and last.endswith("Client") and _squash(last[:-6]) == _squash(module[:-7]):
        return "client", last[:-6], namespace
    return None


def _tonic_attribute(item: tree_sitter.Node, source: bytes) -> bool:
    sibling = item.prev_named_sibling
    while sibling is not None and sibling.type in ("attribute_item", "line_comment", "block_comment"):
        if sibling.type == "attribute_item" and b"tonic" in source[sibling.start_byte : sibling.end_byte]:
            return True
        sibling = sibling.prev_named_sibling
    return False
