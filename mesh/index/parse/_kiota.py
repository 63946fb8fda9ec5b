"""Kiota request builders read where the request is made, in TypeScript/JavaScript, Go and Python.

Theory of operation. A client that Microsoft Kiota generates from an OpenAPI document is a tree of
request builders: each navigation step is a path segment (``client.catalog.products`` in TypeScript
and Python, ``client.Catalog().Products()`` in Go), an indexer names a path parameter
(``byProductId(id)``, ``ByProductId(id)``, ``by_product_id(id)``: ``{productId}``, ``{product_id}``)
and the last call sends the request, its name the verb (``get()``, ``Post(ctx, body, nil)``). The
generated code is left out of the index as generated, so the request is read at its call site: the
chain is walked back from the verb to its root, and the root must be a Kiota client the file shows:

- made by Kiota's factory or constructor given the request adapter alone
  (``createPostsClient(adapter)``, ``posts.NewPostsClient(adapter)``, ``PostsClient(request_adapter)``;
  ``new PostsClient(adapter)`` of Kiota before 1.0 in a file importing Kiota), by a function of the
  file declared to return one, or declared (``api: PostsClient``, ``client *posts.PostsClient``), and
  followed through names, ``this``/``self`` fields and struct fields;
- of a class imported from a module that is no library the extractors know (in TypeScript, a module
  of the workspace: a relative or aliased path), named like a client (``...Client``, Kiota's
  ``clientClassName``) unless the file imports Kiota itself (``@microsoft/kiota-*``,
  ``github.com/microsoft/kiota-*``, ``kiota_*``), which also lifts the one-argument rule.

Every step and the verb must have the shape Kiota generates: a navigation takes no argument, an
indexer exactly one, a verb only what Kiota's take (TypeScript ``get(requestConfiguration?)``,
``post(body?, requestConfiguration?)`` with a configuration of ``headers``/``queryParameters``/
``options``; Go ``Get(ctx, config)``, ``Post(ctx, body, config)`` with ``nil`` or a
``&...RequestConfiguration{}``; Python ``get(request_configuration=...)``, ``post(body, ...)``), so
``map.get(k)``, a cache's ``items.get()``, an ORM's ``user.delete({ where })`` or a clientset's
``Pods(ns).Get(ctx, name, opts)`` is never taken. A call gets ``client="kiota"`` and
``address="client:<RootType>"``; a builder given a raw URL (``withUrl(url)``) makes a computed call.
In TypeScript, ``adapter.baseUrl = ...`` for the adapter a factory is given is the setting
``client:<RootType>`` (the base address of that client's requests).

The language-neutral part (:func:`request`, :func:`parameter`, :func:`segment`) spells the method
and path; :func:`ecmascript_calls`, :func:`go_calls` and :func:`python_calls` read the chains with
the resolvers of each language's link extractor, on the tree that extractor already parsed. Every
walk is bounded (steps, depth, bindings per name) and memoised per node: any tree gives facts, the
same bytes the same facts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import tree_sitter

from .._facts import HttpCall
from . import _ts

if TYPE_CHECKING:
    from ._ecmascript_links import _Links as _EcmaLinks
    from ._go_links import _Links as _GoLinks
    from ._python_links import _File as _PyFile

__all__ = [
    "VERBS",
    "ecmascript_calls",
    "ecmascript_wanted",
    "go_calls",
    "go_wanted",
    "parameter",
    "python_calls",
    "python_wanted",
    "request",
    "segment",
]

#: The request methods of a request builder, by name (Go's are these capitalised).
VERBS: Final = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE"}
#: Verbs that take a request body.
_BODY_VERBS: Final = frozenset({"POST", "PUT", "PATCH"})
_GO_VERBS: Final = {name.capitalize(): method for name, method in VERBS.items()}
#: An indexer step, per spelling: TypeScript ``byPostId``, Go ``ByPostId``, Python ``by_post_id``.
_INDEXER: Final = {
    "ecmascript": re.compile(r"^by([A-Z]\w*)$"),
    "go": re.compile(r"^By([A-Z]\w*)$"),
    "python": re.compile(r"^by_([a-z0-9]\w*)$"),
}
#: The step that gives a builder a raw URL: the path is then computed.
_RAW_URL: Final = frozenset({"withUrl", "WithUrl", "with_url"})
#: Keys of a TypeScript request configuration object.
_CONFIG_KEYS: Final = frozenset({"headers", "queryParameters", "options"})
#: An argument named like a request configuration.
_CONFIG_NAME: Final = re.compile(r"(?i)config|option")
_CLIENT_NAME: Final = re.compile(r"[A-Za-z0-9]Client$")
_GO_CONFIG_NAME: Final = re.compile(r"(?i)conf|cfg|opt")
#: Steps followed back from a verb, and names or assignments followed to a root's type.
_STEPS_MAX: Final = 32
_DEPTH_MAX: Final = 6
#: Bindings of one name read for a root's type (a client is bound once or twice; a name bound at every
#: line of a long function is no client's).
_BINDINGS_MAX: Final = 4
#: Cheap tests on a file's bytes before any chain is read.
_GO_HINT: Final = re.compile(rb"\)\s*\.\s*(?:Get|Post|Put|Patch|Delete)\s*\(")
_PYTHON_HINT: Final = re.compile(rb"\.\s*(?:get|post|put|patch|delete)\s*\(")
_PYTHON_CLIENT: Final = re.compile(r"(?i)client")
_ECMASCRIPT_LOCAL: Final = re.compile(r"^(?:\.|/|@/|~/|#)")
#: ``adapter.baseUrl = ...`` and ``createPostsClient(adapter)``: where a client's base address is set
_ECMA_BASE_URL: Final = re.compile(rb"\b([A-Za-z_$][\w$]*)\s*\.\s*(baseUrl)\s*=(?!=)")
_ECMA_FACTORY: Final = re.compile(rb"\b(create[A-Z][\w$]*)\s*\(\s*([A-Za-z_$][\w$]*)\s*\)")

#: A step of a chain: (indexer?, name as the step spells it).
Step = tuple[bool, str]


# -- language-neutral ------------------------------------------------------------------------------


def parameter(name: str, language: str) -> str | None:
    """The path parameter an indexer step names (``byPostId`` -> ``postId``, ``ByPostId`` -> ``postId``,
    ``by_post_id`` -> ``post_id``); None when ``name`` is no indexer of ``language``."""
    match = _INDEXER[language].match(name)
    if match is None:
        return None
    rest = match[1]
    return rest if language == "python" else rest[:1].lower() + rest[1:]


def segment(name: str, language: str) -> str:
    """The path segment a navigation step names: as spelled, Go's exported name in lower camel case."""
    return name[:1].lower() + name[1:] if language == "go" else name


def request(steps: Sequence[Step], verb_name: str) -> tuple[str, str]:
    """(method, path template) of a chain of ``steps`` (segments and parameters, root first) sent
    with the verb method ``verb_name`` (``get``, ``Post``...)."""
    path = "/" + "/".join("{" + name + "}" if indexer else name for indexer, name in steps)
    return VERBS[verb_name.lower()], path


def _client_type(name: str, kiota: bool) -> bool:
    """Whether a root's type may be a Kiota client: any class when the file imports Kiota, else one
    named like a client."""
    return bool(name) and (kiota or bool(_CLIENT_NAME.search(name)))


def _call(method: str, path: str, raw: bool, anchor: tree_sitter.Node, symbol: str, root_type: str) -> HttpCall:
    return HttpCall(
        method, "" if raw else path, _ts.line(anchor), symbol, "", "client:" + root_type, "kiota", raw
    )


# -- TypeScript and JavaScript ----------------------------------------------------------------------


def ecmascript_wanted(imports: Sequence) -> bool:
    """Whether a file's imports may give it a Kiota client: a Kiota package, or a name of a client
    (``createPostsClient``, ``PostsClient``) from a module of the workspace."""
    return any(
        i.module.startswith("@microsoft/kiota-")
        or (_ECMASCRIPT_LOCAL.match(i.module) and any(_CLIENT_NAME.search(name) for name in i.names))
        for i in imports
    )


def ecmascript_calls(links: _EcmaLinks, member_calls: Sequence[tree_sitter.Node]) -> None:
    """Add the Kiota requests among ``member_calls`` (calls of a member) to ``links``."""
    _EcmaScript(links).run(member_calls)


class _EcmaScript:
    def __init__(self, links: _EcmaLinks) -> None:
        from ._ecmascript_links import _MODULES  # noqa: PLC0415 - that module imports this one

        self.links = links
        self.x = links.x
        self.known = _MODULES
        self.kiota = any(i.module.startswith("@microsoft/kiota-") for i in self.x.imports)
        self.types: dict[int, str] = {}

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.x.source)

    def run(self, member_calls: Sequence[tree_sitter.Node]) -> None:
        for call in member_calls:
            function = call.child_by_field_name("function")
            prop = function.child_by_field_name("property") if function is not None else None
            name = self.text(prop)
            if name not in VERBS or not self.fits(name, _ecma_arguments(call)):
                continue
            steps, root, raw = self.chain(function.child_by_field_name("object"))
            if root is None or not steps:
                continue
            root_type = self.root_type(root, 0)
            if not root_type:
                continue
            method, path = request(steps, name)
            symbol = self.links.symbol(prop.start_byte)
            self.links.add(prop.start_byte, _call(method, path, raw, prop, symbol, root_type))
        self.base_urls()

    def base_urls(self) -> None:
        """``adapter.baseUrl = process.env.POSTS_URL`` with ``createPostsClient(adapter)`` in the file: the
        setting ``client:PostsClient`` giving the base address of that client's requests."""
        from ._ecmascript import _unwrap  # noqa: PLC0415

        source = self.x.source
        if b"baseUrl" not in source:
            return
        values: dict[str, list[tree_sitter.Node]] = {}
        for match in _ECMA_BASE_URL.finditer(source):
            prop = self.x.root.descendant_for_byte_range(match.start(2), match.end(2))
            member = prop.parent if prop is not None else None
            assignment = member.parent if member is not None else None
            if assignment is None or assignment.type != "assignment_expression":
                continue
            if assignment.child_by_field_name("left") != member:
                continue
            value = assignment.child_by_field_name("right")
            if value is not None:
                values.setdefault(match[1].decode("utf-8", "replace"), []).append(value)
        seen: set[str] = set()
        for match in _ECMA_FACTORY.finditer(source):
            adapter = match[2].decode("utf-8", "replace")
            function = self.x.root.descendant_for_byte_range(match.start(1), match.end(1))
            if adapter not in values or function is None or function.type != "identifier":
                continue
            call = function.parent
            if call is None or call.type != "call_expression":
                continue
            if _unwrap(call.child_by_field_name("function")) != function:
                continue
            root_type = self.made(call, 0)
            if not root_type or root_type in seen:
                continue
            for value in values[adapter]:
                setting = self.links._setting("client:" + root_type, value, call)  # noqa: SLF001
                if setting is not None:
                    seen.add(root_type)
                    self.links.settings.append((call.start_byte, len(self.links.settings), setting))
                    break

    def fits(self, name: str, arguments: list[tree_sitter.Node]) -> bool:
        """Whether a verb's arguments are what Kiota's take: ``(requestConfiguration?)``, or for a verb
        with a body ``(body?, requestConfiguration?)``."""
        if VERBS[name] in _BODY_VERBS:
            return len(arguments) <= 2 and (len(arguments) < 2 or self.configuration(arguments[1]))
        return not arguments or (len(arguments) == 1 and self.configuration(arguments[0]))

    def configuration(self, node: tree_sitter.Node) -> bool:
        from ._ecmascript import _key_text, _unwrap  # noqa: PLC0415

        node = _unwrap(node)
        if node is None:
            return False
        if node.type == "object":
            keys = [_key_text(pair.child_by_field_name("key"), self.x.source) if pair.type == "pair" else
                    self.text(pair) for pair in node.named_children if pair.type != "comment"]  # fmt: skip
            return all(key in _CONFIG_KEYS for key in keys)
        if node.type in ("identifier", "member_expression"):
            return bool(_CONFIG_NAME.search(self.text(node).rsplit(".", 1)[-1]))
        return node.type in ("undefined", "null")

    def chain(self, node: tree_sitter.Node | None) -> tuple[list[Step], tree_sitter.Node | None, bool]:
        """The steps from a root to the builder ``node`` (root first), the root, and whether a raw URL
        was given on the way; no root when a step is not of Kiota's shape."""
        from ._ecmascript import _this_member, _unwrap  # noqa: PLC0415

        steps: list[Step] = []
        raw = False
        for _ in range(_STEPS_MAX):
            node = _unwrap(node)
            if node is None:
                return [], None, False
            if node.type == "identifier" or _this_member(node):
                steps.reverse()
                return steps, node, raw
            if node.type == "member_expression":
                prop = node.child_by_field_name("property")
                if prop is None or prop.type != "property_identifier":
                    return [], None, False
                steps.append((False, segment(self.text(prop), "ecmascript")))
                node = node.child_by_field_name("object")
                continue
            if node.type != "call_expression":
                return [], None, False
            function = _unwrap(node.child_by_field_name("function"))
            if function is not None and function.type == "identifier":  # createPostsClient(adapter).posts
                steps.reverse()
                return steps, node, raw
            if function is None or function.type != "member_expression" or _this_member(function):
                return [], None, False
            name = self.text(function.child_by_field_name("property"))
            arguments = _ecma_arguments(node)
            named = parameter(name, "ecmascript")
            if len(arguments) != 1 or (named is None and name not in _RAW_URL):
                return [], None, False
            raw = raw or named is None
            steps.append((True, named or name))
            node = function.child_by_field_name("object")
        return [], None, False

    def root_type(self, node: tree_sitter.Node, depth: int) -> str:
        """The Kiota client class a root name or ``this`` field holds, "" when the file does not show one."""
        from ._ecmascript import _this_member  # noqa: PLC0415

        if depth > _DEPTH_MAX:
            return ""
        if node.type == "call_expression":
            return self.made(node, depth)
        known = self.types.get(node.id)
        if known is not None:
            return known
        self.types[node.id] = ""
        if node.type == "identifier":
            bindings = self.x._lookup(node, self.text(node))  # noqa: SLF001 - the extractor's own resolver
        elif _this_member(node):
            bindings = self.x._field(node)  # noqa: SLF001
        else:
            bindings = []
        found = ""
        for binding in bindings[:_BINDINGS_MAX]:
            if binding.module is not None or binding.key:
                break  # imported or destructured: its type is out of sight
            if binding.type is not None:
                found = self.declared(binding.type, node)
            if not found and binding.value is not None:
                found = self.made(binding.value, depth)
            if found:
                break
        self.types[node.id] = found
        return found

    def made(self, value: tree_sitter.Node, depth: int) -> str:
        """The client class a value is made as: ``createPostsClient(adapter)`` (the factory given the
        request adapter alone, unless the file imports Kiota), ``new ApiClient(adapter)`` (in a file
        importing Kiota), or another name holding one."""
        from ._ecmascript import _this_member, _unwrap  # noqa: PLC0415

        value = _unwrap(value)
        if value is None:
            return ""
        if value.type == "identifier" or _this_member(value):
            return self.root_type(value, depth + 1)
        if value.type == "call_expression":
            function = _unwrap(value.child_by_field_name("function"))
            name = self.text(function) if function is not None and function.type == "identifier" else ""
            if not name.startswith("create") or not name[6:7].isupper():
                return ""
            if not self.kiota and len(_ecma_arguments(value)) != 1:
                return ""  # Kiota's factory takes the request adapter alone
            return name[6:] if self.imported(function, name[6:]) else ""
        if value.type == "new_expression" and self.kiota:  # a class: Kiota's clients before 1.0
            constructor = _unwrap(value.child_by_field_name("constructor"))
            if constructor is not None and constructor.type == "identifier":
                name = self.text(constructor)
                return name if self.imported(constructor, name) else ""
        return ""

    def declared(self, annotation: tree_sitter.Node, at: tree_sitter.Node) -> str:
        """The client class a TypeScript annotation declares (``api: PostsClient``)."""
        node: tree_sitter.Node | None = annotation
        for _ in range(4):
            if node is None or node.type not in ("type_annotation", "generic_type"):
                break
            node = node.child_by_field_name("name") if node.type == "generic_type" else node.named_child(0)
        if node is None or node.type != "type_identifier":
            return ""
        name = self.text(node)
        return name if self.imported(at, name, name) else ""

    def imported(self, at: tree_sitter.Node, type_name: str, name: str = "") -> bool:
        """Whether the name ``name`` (the factory or class at ``at`` when not given) is imported from a
        module that may hold a Kiota client of class ``type_name``."""
        name = name or self.text(at)
        modules = [
            b.module if b.module is not None else self.links._required(b.value)[0]  # noqa: SLF001
            for b in self.x._lookup(at, name)  # noqa: SLF001
            if b.module is not None or b.key  # import { x } from 'm', const { x } = require('m')
        ]
        module = next((m for m in modules if m is not None), None)
        if module is None or not _client_type(type_name, self.kiota):
            return False
        if module in self.known:
            return False
        return bool(_ECMASCRIPT_LOCAL.match(module)) or self.kiota


def _ecma_arguments(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    arguments = call.child_by_field_name("arguments")
    if arguments is None or arguments.type != "arguments":
        return []
    return [child for child in arguments.named_children if child.type != "comment"]


# -- Go -------------------------------------------------------------------------------------------


def go_wanted(packages: dict[str, str], source: bytes) -> bool:
    """Whether a Go file may send a Kiota request: it imports Kiota, or a package of no library and
    calls a verb on a builder (``).Get(``)."""
    if any(path.startswith("github.com/microsoft/kiota-") for path in packages.values()):
        return True
    return bool(_GO_HINT.search(source)) and any("." in path.split("/", 1)[0] or "/" in path
                                                 for path in packages.values())  # fmt: skip


def go_calls(links: _GoLinks, calls: Sequence[tree_sitter.Node]) -> None:
    """Add the Kiota requests among ``calls`` to ``links``."""
    if not go_wanted(links.packages, links.source):
        return
    _Go(links).run(calls)


class _MemoRoots:
    """What the Go and Python readers share: a root's client type, read once per node."""

    types: dict[tuple[int, int, str], str]

    def _root_type(self, node: tree_sitter.Node, depth: int) -> str:
        raise NotImplementedError

    def root_type(self, node: tree_sitter.Node, depth: int) -> str:
        """:meth:`_root_type`, once per node (a name bound many times, or in a cycle, is read once)."""
        key = (node.start_byte, node.end_byte, node.type)
        if key not in self.types:
            self.types[key] = ""
            self.types[key] = self._root_type(node, depth)
        return self.types[key]


class _Go(_MemoRoots):
    def __init__(self, links: _GoLinks) -> None:
        self.links = links
        self.kiota = any(path.startswith("github.com/microsoft/kiota-") for path in links.packages.values())
        self.types: dict[tuple[int, int, str], str] = {}

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.links.source)

    def run(self, calls: Sequence[tree_sitter.Node]) -> None:
        for call in calls:
            function = call.child_by_field_name("function")
            if function is None or function.type != "selector_expression":
                continue
            field = function.child_by_field_name("field")
            name = self.text(field)
            if name not in _GO_VERBS or not self.fits(name, _go_arguments(call)):
                continue
            steps, root, raw = self.chain(function.child_by_field_name("operand"))
            if root is None or not steps:
                continue
            root_type = self.root_type(root, 0)
            if not root_type:
                continue
            method, path = request(steps, name)
            fact = _call(method, path, raw, field, self.links.defs.symbol(field.start_byte), root_type)
            self.links.calls.setdefault((field.start_byte, fact.method, fact.path), (field.start_byte, fact))

    def fits(self, name: str, arguments: list[tree_sitter.Node]) -> bool:
        """``Get(ctx, config)``, ``Delete(ctx, config)``; ``Post(ctx, body, config)`` (or ``(ctx, config)``
        without a body): the context first, never a literal."""
        count = (2, 3) if _GO_VERBS[name] in _BODY_VERBS else (2,)
        if len(arguments) not in count:
            return False
        first, last = arguments[0], _go_strip(arguments[-1])
        if first.type not in ("identifier", "call_expression", "selector_expression") or last is None:
            return False
        if last.type == "nil":
            return True
        if last.type == "unary_expression":  # &posts.PostsRequestBuilderGetRequestConfiguration{...}
            literal = last.child_by_field_name("operand")
            kind = literal.child_by_field_name("type") if literal is not None else None
            return kind is not None and self.text(kind).endswith("RequestConfiguration")
        return last.type in ("identifier", "selector_expression") and bool(_GO_CONFIG_NAME.search(self.text(last)))

    def chain(self, node: tree_sitter.Node | None) -> tuple[list[Step], tree_sitter.Node | None, bool]:
        steps: list[Step] = []
        raw = False
        for _ in range(_STEPS_MAX):
            node = _go_strip(node)
            if node is None:
                return [], None, False
            if node.type in ("identifier", "selector_expression"):
                steps.reverse()
                return steps, node, raw
            if node.type != "call_expression":
                return [], None, False
            function = node.child_by_field_name("function")
            if function is not None and (function.type == "identifier" or self.constructor(function)):
                steps.reverse()  # posts.NewPostsClient(adapter).Posts(), newPosts().Posts()
                return steps, node, raw
            if function is None or function.type != "selector_expression":
                return [], None, False
            name = self.text(function.child_by_field_name("field"))
            arguments = _go_arguments(node)
            named = parameter(name, "go")
            if not arguments and name[:1].isupper() and name not in _GO_VERBS and named is None:
                steps.append((False, segment(name, "go")))
            elif len(arguments) == 1 and (named is not None or name in _RAW_URL):
                raw = raw or named is None
                steps.append((True, named or name))
            else:
                return [], None, False
            node = function.child_by_field_name("operand")
        return [], None, False

    def constructor(self, function: tree_sitter.Node) -> bool:
        """Whether a called selector is a constructor of an imported package (``posts.NewPostsClient``)."""
        package = function.child_by_field_name("operand")
        name = self.text(function.child_by_field_name("field"))
        return (
            package is not None and package.type == "identifier" and self.text(package) in self.links.packages
            and name.startswith("New") and name[3:4].isupper()
        )  # fmt: skip

    def _root_type(self, node: tree_sitter.Node, depth: int) -> str:
        """The Kiota client type a root variable or field holds, "" when the file does not show one."""
        links = self.links
        if depth > _DEPTH_MAX:
            return ""
        if node.type == "call_expression":
            return self.made(node, depth)
        if node.type == "selector_expression":
            field = self.text(node.child_by_field_name("field"))
            for value in links.field_values.get(field, [])[:_BINDINGS_MAX]:
                found = self.made(value, depth)
                if found:
                    return found
            return self.declared(links.field_types.get(field))
        name = self.text(node)
        offset = node.start_byte
        scope = links.scope(offset)
        for key in ((scope, name), (-1, name)) if scope >= 0 else ((-1, name),):
            records = links.assigns.get(key)
            if records:
                before = [record for record in records if record[0] < offset] or records
                for _, value, position in before[::-1][:_BINDINGS_MAX]:
                    if position in (-1, 0):
                        found = self.made(value, depth)
                        if found:
                            return found
                return ""
            if key in links.params:
                return self.declared(links.params[key][2])
            if key in links.var_types:
                return self.declared(links.var_types[key])
        return ""

    def made(self, value: tree_sitter.Node, depth: int) -> str:
        """The client type ``pkg.NewPostsClient(adapter)`` makes, or that another name holds."""
        value = _go_strip(value)
        if value is None:
            return ""
        if value.type in ("identifier", "selector_expression"):
            return self.root_type(value, depth + 1)
        if value.type != "call_expression":
            return ""
        function = value.child_by_field_name("function")
        if function is not None and function.type == "identifier":
            return self.returned(self.text(function))
        if function is None or function.type != "selector_expression":
            return ""
        package = function.child_by_field_name("operand")
        name = self.text(function.child_by_field_name("field"))
        if package is None or package.type != "identifier" or not name.startswith("New") or not name[3:4].isupper():
            return ""
        if not self.kiota and len(_go_arguments(value)) != 1:
            return ""  # Kiota's constructor takes the request adapter alone
        return name[3:] if self.foreign(self.text(package), name[3:]) else ""

    def returned(self, name: str) -> str:
        """The client type a function of the file declares it returns first (``func newCatalog()
        *catalog.CatalogClient``)."""
        links = self.links
        for index in links.functions.get(name, ()):
            node = links.defs.nodes[index]
            result = node.child_by_field_name("result") if node.type == "function_declaration" else None
            if result is not None and result.type == "parameter_list":
                first = result.named_child(0) if result.named_child_count else None
                result = first.child_by_field_name("type") if first is not None else None
            found = self.declared(result)
            if found:
                return found
        return ""

    def declared(self, node: tree_sitter.Node | None) -> str:
        """The client type of a declaration: ``*posts.PostsClient``, ``posts.PostsClient``."""
        for _ in range(4):
            if node is None or node.type != "pointer_type":
                break
            node = node.named_child(0)
        if node is None or node.type != "qualified_type":
            return ""
        name = self.text(node.child_by_field_name("name"))
        return name if self.foreign(self.text(node.child_by_field_name("package")), name) else ""

    def foreign(self, package: str, type_name: str) -> bool:
        """Whether ``package`` is imported from a package of no library known here (a generated client
        of the workspace), and ``type_name`` may be a Kiota client."""
        from ._go_links import _lib_of, _standard  # noqa: PLC0415 - that module imports this one

        path = self.links.packages.get(package)
        if not path or _standard(path) or _lib_of(path) is not None:
            return False
        return _client_type(type_name, self.kiota)


def _go_arguments(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return []
    return [argument for argument in arguments.named_children if argument.type != "comment"]


def _go_strip(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    for _ in range(_DEPTH_MAX):
        if node is None or node.type != "parenthesized_expression":
            break
        node = node.named_child(0)
    return node


# -- Python ----------------------------------------------------------------------------------------


def python_wanted(roots: set[str], names: dict[str, str], source: bytes) -> bool:
    """Whether a Python file may send a Kiota request: it imports Kiota (``kiota_*``), or a client
    (``PostsClient``, a module ``posts_client``; ``names`` maps local names to what they import), and
    calls a verb."""
    if any(root.startswith("kiota_") for root in roots):
        return True
    return any(_PYTHON_CLIENT.search(qual) for qual in names.values()) and bool(_PYTHON_HINT.search(source))


def python_calls(file: _PyFile) -> None:
    """Add the Kiota requests among the calls of ``file`` to its facts."""
    if not python_wanted(file.imports.roots, file.imports.qual, file.source):
        return
    _Python(file).run()


class _Python(_MemoRoots):
    def __init__(self, file: _PyFile) -> None:
        self.file = file
        self.kiota = any(root.startswith("kiota_") for root in file.imports.roots)
        self.types: dict[tuple[int, int, str], str] = {}

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.file.source)

    def run(self) -> None:
        file = self.file
        for call in file.found.get("call", ()):
            function = call.child_by_field_name("function")
            if function is None or function.type != "attribute":
                continue
            attribute = function.child_by_field_name("attribute")
            name = self.text(attribute)
            if name not in VERBS or not self.fits(name, call):
                continue
            steps, root, raw = self.chain(function.child_by_field_name("object"))
            if root is None or not steps:
                continue
            root_type = self.root_type(root, 0)
            if not root_type:
                continue
            method, path = request(steps, name)
            fact = _call(method, path, raw, attribute, file.symbol(attribute.start_byte), root_type)
            file.out.add(file.out.calls, attribute.start_byte, fact)

    def fits(self, name: str, call: tree_sitter.Node) -> bool:
        """``get(request_configuration=None)``; ``post(body, request_configuration=None)``."""
        arguments = call.child_by_field_name("arguments")
        if arguments is None or arguments.type != "argument_list":
            return False
        positional, keywords = [], []
        for argument in arguments.named_children:
            if argument.type == "comment":
                continue
            if argument.type == "keyword_argument":
                keywords.append(self.text(argument.child_by_field_name("name")))
            elif argument.type in ("list_splat", "dictionary_splat"):
                return False
            else:
                positional.append(argument)
        if VERBS[name] in _BODY_VERBS:
            allowed, most = {"body", "request_configuration"}, 2 - len(keywords)
        else:
            allowed, most = {"request_configuration"}, 0 if keywords else 1
        if not set(keywords) <= allowed or len(positional) > most:
            return False
        configuration = positional[1:] if VERBS[name] in _BODY_VERBS else positional
        return all(_CONFIG_NAME.search(self.text(node)) for node in configuration)

    def chain(self, node: tree_sitter.Node | None) -> tuple[list[Step], tree_sitter.Node | None, bool]:
        steps: list[Step] = []
        raw = False
        for _ in range(_STEPS_MAX):
            if node is None:
                return [], None, False
            if node.type == "parenthesized_expression":
                node = node.named_child(0)
                continue
            if node.type == "identifier" or self.self_attribute(node):
                steps.reverse()
                return steps, node, raw
            if node.type == "attribute":
                steps.append((False, segment(self.text(node.child_by_field_name("attribute")), "python")))
                node = node.child_by_field_name("object")
                continue
            if node.type != "call":
                return [], None, False
            function = node.child_by_field_name("function")
            if function is not None and (function.type == "identifier" or self.file.qualify(function)):
                steps.reverse()  # PostsClient(adapter).posts, posts_client.PostsClient(adapter).posts
                return steps, node, raw
            arguments = node.child_by_field_name("arguments")
            listed = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
            if function is None or function.type != "attribute" or len(listed) != 1:
                return [], None, False
            if listed[0].type in ("keyword_argument", "list_splat", "dictionary_splat"):
                return [], None, False
            name = self.text(function.child_by_field_name("attribute"))
            named = parameter(name, "python")
            if named is None and name not in _RAW_URL:
                return [], None, False
            raw = raw or named is None
            steps.append((True, named or name))
            node = function.child_by_field_name("object")
        return [], None, False

    def self_attribute(self, node: tree_sitter.Node) -> bool:
        return node.type == "attribute" and self.file.class_of_self(node.child_by_field_name("object")) >= 0

    def _root_type(self, node: tree_sitter.Node, depth: int) -> str:
        """The Kiota client class a root name or ``self`` attribute holds, "" when the file does not show one."""
        file = self.file
        if depth > _DEPTH_MAX:
            return ""
        if node.type == "call":
            return self.made(node, depth)
        if node.type == "identifier":
            bindings = file.lookup(self.text(node), node.start_byte)
        else:
            klass = file.class_of_self(node.child_by_field_name("object"))
            bindings = file.class_attrs(klass, self.text(node.child_by_field_name("attribute")))
        for value, how in bindings[:_BINDINGS_MAX]:
            found = ""
            if how == "value":
                found = self.made(value, depth)
            elif how == "type":
                found = self.declared(value)
            elif how == "param":
                annotation = value.child_by_field_name("type")
                found = self.declared(annotation) if annotation is not None else ""
            if found:
                return found
        return ""

    def made(self, value: tree_sitter.Node, depth: int) -> str:
        """The client class ``PostsClient(request_adapter)`` makes, or that another name holds."""
        while value.type in ("await", "parenthesized_expression") and value.named_child_count:
            value = value.named_child(0)
        if value.type == "identifier" or self.self_attribute(value):
            return self.root_type(value, depth + 1)
        if value.type != "call":
            return ""
        function = value.child_by_field_name("function")
        local = function is not None and function.type == "identifier" and self.text(function)
        if local and local not in self.file.imports.qual:
            return self.returned(local)  # a function of the file
        arguments = value.child_by_field_name("arguments")
        listed = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
        if not self.kiota and (len(listed) != 1 or listed[0].type in ("keyword_argument", "list_splat",
                                                                     "dictionary_splat")):  # fmt: skip
            return ""  # Kiota's client takes the request adapter alone
        return self.client_class(value.child_by_field_name("function"))

    def returned(self, name: str) -> str:
        """The client class a function of the file is annotated to return (``def catalog() -> CatalogClient``)."""
        for index in self.file.named_defs(name):
            node = self.file.defs.nodes[index]
            annotation = node.child_by_field_name("return_type") if node.type == "function_definition" else None
            found = self.declared(annotation) if annotation is not None else ""
            if found:
                return found
        return ""

    def declared(self, annotation: tree_sitter.Node) -> str:
        """The client class an annotation declares: ``PostsClient``, ``Optional[PostsClient]``,
        ``PostsClient | None``, ``"PostsClient"``."""
        node: tree_sitter.Node | None = annotation
        for _ in range(_DEPTH_MAX):
            if node is None:
                return ""
            if node.type == "type" and node.named_child_count:
                node = node.named_child(0)
            elif node.type in ("generic_type", "subscript"):
                inner = [c for c in node.named_children if c.type in ("type_parameter", "type")]
                node = inner[0].named_child(0) if inner and inner[0].named_child_count else node.child_by_field_name(
                    "subscript"
                )
            elif node.type == "binary_operator":
                node = node.child_by_field_name("left")
            elif node.type == "string":
                text = self.text(node).strip("\"'")
                return text if re.fullmatch(r"\w+", text) and self.imported(text, text) else ""
            else:
                return self.client_class(node)
        return ""

    def client_class(self, node: tree_sitter.Node | None) -> str:
        """The name of the class an identifier or ``module.Class`` names, when imported from a module that
        may hold a Kiota client."""
        if node is None or node.type not in ("identifier", "attribute"):
            return ""
        name = self.text(node.child_by_field_name("attribute") if node.type == "attribute" else node)
        head = node
        while head.type == "attribute":
            head = head.child_by_field_name("object")
            if head is None:
                return ""
        if head.type != "identifier":
            return ""
        return name if self.imported(self.text(head), name) else ""

    def imported(self, local: str, type_name: str) -> bool:
        from ._python_links import _LIBRARIES  # noqa: PLC0415 - that module imports this one

        qual = self.file.imports.qual.get(local, "")
        if not qual or qual.split(".", 1)[0] in _LIBRARIES:
            return False
        return _client_type(type_name, self.kiota)
