"""PHP links: HTTP routes, HTTP calls, messages and link constants of one file.

Theory of operation: rules run only when the file names what they need (``Route::``, ``->group(``,
``#[Route``/``@Route``, ``GuzzleHttp``, ``HttpClient``, ``Http::``, ``curl_``, ``file_get_contents``,
``basic_publish``, ``RdKafka``, ``onQueue``...), found with ``bytes.find``; each is one compiled query
over the tree already parsed.

Routes: Laravel/Lumen registrations (``Route::get('/x', [C::class, 'm'])``, ``$router->post(...)``,
``Route::resource``/``apiResource`` with ``only``/``except``, ``Route::match``/``any``) under the
prefixes of the groups around them (``Route::prefix('api')->group(function () {...})``,
``Route::group(['prefix' => 'api'], ...)``, ``$router->group(...)``), found by climbing from the
registration through the closures it sits in; Slim and FastRoute (``$app->get('/x', handler)``,
``$app->group('/api', function ($group) {...})``, ``$r->addRoute('GET', '/x', h)``: kept only when the
second argument is a handler: a closure, a callable array or string, a class); Symfony ``#[Route]``
attributes and ``@Route`` annotations on a class (the prefix) and its methods; route-attribute
packages' ``#[Get('/x')]``/``#[Prefix('api')]``. A group of another file
(``Route::prefix('api')->group(base_path('routes/api.php'))``, Laravel 11's ``withRouting(api: ...)``)
is a mount of that file.

Calls and messages: :class:`_Values` reads what an expression holds: strings and interpolations,
``.``, ``sprintf``, ``getenv``/``$_ENV``/``$_SERVER``/``env()`` (``env:``, with the default beside it),
``config('a.b')``/``$this->getParameter('x')`` (``config:``), ``#[Autowire(env: 'X')]`` parameters,
constants (of the file, else ``const:``), and the variables, properties and parameter defaults they
are assigned to, up to a depth; and which client or connection a variable or property holds (``new
Client([...'base_uri' => ...])``, ``HttpClient::create()``, a typed property or promoted parameter).
"""

from __future__ import annotations

import re
from typing import Final

import tree_sitter

from .._facts import Constant, HttpRoute, MessageRole
from . import _rrp_links as links
from . import _shared_rrp as rrp
from . import _ts
from ._links import HTTP_METHODS, join_paths, route_template
from ._rrp_links import Evaluator, Found, Handle, Links, Text, Value
from ._config import secret_name

__all__ = ["extract"]

_LANG: Final = "php"
_NEST: Final = 32

_VERBS: Final = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})
_FUNCTIONS: Final = ("function_definition", "method_declaration", "anonymous_function", "arrow_function", "program")
_CLASSES: Final = ("class_declaration", "trait_declaration", "enum_declaration", "program")
_UPPER: Final = re.compile(r"^[A-Z][A-Z0-9_]*$")
_FORMAT: Final = re.compile(r"%(?:\d+\$)?[-+ 0]*\d*(?:\.\d+)?[sdufFxXbcoeEgG]|%%")
_ANNOTATION: Final = re.compile(r"@([\w\\]*\\)?(Route|Get|Post|Put|Patch|Delete|Head|Options)\s*\(([^)]*)\)")
#: namespaces whose route-like attributes and annotations document an API (OpenAPI) rather than serve it
_DOCUMENTING: Final = ("OA\\", "SWG\\", "OpenApi\\", "Swagger\\")
_ANNOTATION_PATH: Final = re.compile(r'^\s*"([^"]*)"|\bpath\s*=\s*"([^"]*)"')
_ANNOTATION_METHODS: Final = re.compile(r'\bmethods\s*=\s*(?:\{([^}]*)\}|"([^"]*)")')
_ROUTE_ATTRIBUTES: Final = frozenset({"Route", "Get", "Post", "Put", "Patch", "Delete", "Head", "Options", "Any"})

_CONSTANT_WORD: Final = re.compile(rb"\bconst\s|\bdefine\s*\(")
_ROUTE_HINTS: Final = (b"Route", b"route", b"->get(", b"->post(", b"->group(", b"addRoute", b"->map(", b"withRouting")
_HTTP_HINTS: Final = (b"GuzzleHttp", b"HttpClient", b"Http::", b"curl_", b"file_get_contents", b"Psr7", b"ClientInterface")
_MESSAGE_HINTS: Final = (
    b"basic_publish",
    b"basic_consume",
    b"queue_bind",
    b"RdKafka",
    b"onQueue",
    b"pushOn",
    b"Redis",
    b"redis",
    b"Predis",
    b"Aws\\Sqs",
    b"Aws\\Sns",
    b"SqsClient",
    b"SnsClient",
)

#: the method names any rule reads (route registrations, client requests, broker calls)
_METHODS: Final = (
    '"get" "post" "put" "patch" "delete" "head" "options" "any" "match" "map" "addRoute" "resource" '
    '"apiResource" "resources" "apiResources" "view" "redirect" "permanentRedirect" "group" "withRouting" '
    '"request" "getAsync" "postAsync" "putAsync" "patchAsync" "deleteAsync" "headAsync" "optionsAsync" '
    '"requestAsync" "basic_publish" "basic_consume" "queue_bind" "newTopic" "subscribe" "publish" '
    '"sendMessage" "sendMessageBatch" "receiveMessage" "onQueue" "pushOn"'
)
_CALLS: Final = f"""
(member_call_expression name: (name) @method (#any-of? @method {_METHODS}) arguments: (arguments) @arguments) @call
(nullsafe_member_call_expression name: (name) @method (#any-of? @method {_METHODS})
  arguments: (arguments) @arguments) @call
(scoped_call_expression name: (name) @method (#any-of? @method {_METHODS}) arguments: (arguments) @arguments) @call
(function_call_expression function: [(name) (qualified_name)] @method
  (#any-of? @method "file_get_contents" "curl_init" "\\\\file_get_contents" "\\\\curl_init")
  arguments: (arguments) @arguments) @call
(object_creation_expression [(name) (qualified_name)] @method (#match? @method "Request$") (arguments) @arguments) @call
"""
_CURL_OPTIONS: Final = """
(function_call_expression function: (name) @f (#any-of? @f "curl_setopt" "curl_setopt_array") arguments: (arguments) @a) @c
"""
_ASSIGNMENTS: Final = """
(assignment_expression left: [(variable_name) (member_access_expression)] @left right: (_) @right) @site
(simple_parameter name: (variable_name) @left) @site
(property_promotion_parameter name: (variable_name) @left) @site
(property_element name: (variable_name) @left) @site
(const_element (name) @left) @site
"""


def extract(
    source: bytes,
    root: tree_sitter.Node,
    aliases: list[tuple[int, str, str]],
    spans: list[tuple[int, int, str]],
) -> Links:
    """The link facts of one PHP file (``aliases``: its class ``use``\\s as (where, alias, full name);
    ``spans``: the (start, end, dotted name) of its definitions)."""
    found = Found()
    symbols = links.Symbols(spans)
    routes = any(hint in source for hint in _ROUTE_HINTS)
    http = any(hint in source for hint in _HTTP_HINTS)
    messages = any(hint in source for hint in _MESSAGE_HINTS)
    constants = _CONSTANT_WORD.search(source) is not None
    if not (routes or http or messages or constants):
        return found.done()
    values = _Values(source, root, {alias: full for _, alias, full in aliases})
    if constants:
        _constants(source, root, found)
    if routes or http or messages:
        calls = _Calls(source, root, found, symbols, values)
        calls.run(routes=routes, http=http, messages=messages)
    if b"Route" in source or b"#[" in source:
        _attributes(source, root, found, symbols, values)
    return found.done()


def _text(node: tree_sitter.Node | None, source: bytes) -> str:
    return _ts.text(node, source)


def _squash(text: str) -> str:
    return "".join(text.split())


def _arguments(node: tree_sitter.Node | None) -> list[tree_sitter.Node]:
    """The argument nodes of an ``arguments`` list (each an ``argument``)."""
    if node is None:
        return []
    return [child for child in node.named_children if child.type == "argument"]


def _value_of(argument: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The expression of an ``argument`` (past its ``name:`` and a spread)."""
    if argument is None:
        return None
    inner = [child for child in argument.named_children if child != argument.child_by_field_name("name")]
    inner = [child for child in inner if child.type not in ("comment",)]
    return inner[-1] if inner else None


def _split(arguments: list[tree_sitter.Node], source: bytes) -> tuple[list[tree_sitter.Node], dict[str, tree_sitter.Node]]:
    """(positional expressions, named expressions) of a call's arguments."""
    positional: list[tree_sitter.Node] = []
    named: dict[str, tree_sitter.Node] = {}
    for argument in arguments:
        value = _value_of(argument)
        if value is None:
            continue
        name = argument.child_by_field_name("name")
        if name is not None:
            named[_text(name, source)] = value
        else:
            positional.append(value)
    return positional, named


def _string(node: tree_sitter.Node | None, source: bytes) -> str | None:
    """A plain string literal's text (None: not one, or interpolated)."""
    if node is None or node.type not in ("string", "encapsed_string"):
        return None
    parts = node.named_children
    if any(part.type not in ("string_content", "escape_sequence") for part in parts):
        return None
    return "".join(_text(part, source) for part in parts)


def _array(node: tree_sitter.Node | None, source: bytes) -> dict[str, tree_sitter.Node] | None:
    """The string-keyed entries of an array literal (None: not an array)."""
    if node is None or node.type != "array_creation_expression":
        return None
    entries: dict[str, tree_sitter.Node] = {}
    for element in node.named_children:
        if element.type != "array_element_initializer":
            continue
        inner = [child for child in element.named_children if child.type != "comment"]
        if len(inner) == 2:
            key = _string(inner[0], source)
            if key is not None:
                entries[key] = inner[1]
    return entries


def _list(node: tree_sitter.Node | None, source: bytes) -> list[tree_sitter.Node]:
    """The values of a list-like array literal (``['a', 'b']``), else ``[node]``."""
    if node is None:
        return []
    if node.type != "array_creation_expression":
        return [node]
    out = []
    for element in node.named_children:
        if element.type == "array_element_initializer":
            inner = [child for child in element.named_children if child.type != "comment"]
            if len(inner) == 1:
                out.append(inner[0])
    return out


def _strings(node: tree_sitter.Node | None, source: bytes) -> list[str]:
    return [s for s in (_string(item, source) for item in _list(node, source)) if s is not None]


def _class_name(node: tree_sitter.Node | None, source: bytes) -> str:
    """``C`` of ``C::class``, ``App\\C::class`` or ``'App\\C'``; "" otherwise."""
    if node is None:
        return ""
    if node.type == "class_constant_access_expression":
        parts = node.named_children
        if len(parts) == 2 and _text(parts[1], source) == "class":
            return _squash(_text(parts[0], source)).lstrip("\\").rsplit("\\", 1)[-1]
    return ""


def _handler(node: tree_sitter.Node | None, source: bytes) -> str | None:
    """A route handler as written (``C@m``, ``C::m``, ``C``), "" for a closure; None: not a handler."""
    if node is None:
        return None
    kind = node.type
    if kind in ("anonymous_function", "arrow_function"):
        return ""
    if kind == "class_constant_access_expression":
        name = _class_name(node, source)
        return name or None
    if kind in ("string", "encapsed_string"):
        written = _string(node, source)
        if written and re.fullmatch(r"[\w\\]+(?:[@:]{1,2}\w+)?", written):
            return written.lstrip("\\").rsplit("\\", 1)[-1] if "@" not in written else written.rsplit("\\", 1)[-1]
        return None
    if kind == "array_creation_expression":
        items = _list(node, source)
        entries = _array(node, source) or {}
        if len(items) == 2 and "uses" not in entries:
            owner = _class_name(items[0], source) or (_string(items[0], source) or "").rsplit("\\", 1)[-1]
            method = _string(items[1], source)
            if owner and method:
                return f"{owner}@{method}"
            return None
        if "uses" in entries:
            return _handler(entries["uses"], source)
        closures = [i for i in items if i.type in ("anonymous_function", "arrow_function")]
        return "" if closures else None
    if kind == "binary_expression":
        left = _class_name(node.child_by_field_name("left"), source)
        right = _string(node.child_by_field_name("right"), source)
        if left and right and right.startswith(":"):
            return left + right
        return None
    return None


def _receiver(call: tree_sitter.Node) -> tree_sitter.Node | None:
    return call.child_by_field_name("object") or call.child_by_field_name("scope")


def _chain_root(node: tree_sitter.Node) -> tree_sitter.Node:
    """The start of a call chain (``Route::prefix('x')`` of ``Route::prefix('x')->middleware('y')->group(...)``)."""
    while node.type in ("member_call_expression", "nullsafe_member_call_expression"):
        inner = node.child_by_field_name("object")
        if inner is None or inner.type not in ("member_call_expression", "nullsafe_member_call_expression", "scoped_call_expression"):
            return inner if inner is not None and inner.type == "scoped_call_expression" else node
        node = inner
    return node


def _chain(node: tree_sitter.Node, source: bytes) -> list[tuple[str, tree_sitter.Node]]:
    """(method, call) of each call of a chain, from its start (``Route::prefix``) to ``node``."""
    calls: list[tuple[str, tree_sitter.Node]] = []
    while node.type in ("member_call_expression", "nullsafe_member_call_expression", "scoped_call_expression"):
        calls.append((_text(node.child_by_field_name("name"), source), node))
        inner = _receiver(node)
        if inner is None or node.type == "scoped_call_expression":
            break
        node = inner
    calls.reverse()
    return calls


# -- constants ----------------------------------------------------------------------------------------


_CONSTANTS: Final = """
(const_element (name) @name . (_) @value) @site
(function_call_expression function: (name) @f (#eq? @f "define")
  arguments: (arguments . (argument (string) @name) . (argument (_) @value))) @site
"""


def _constants(source: bytes, root: tree_sitter.Node, found: Found) -> None:
    """``const NAME = 'v'`` (of a class: ``Owner.NAME``) and ``define('NAME', 'v')`` whose name says
    they name a link."""
    for _, captured in links.matches(_LANG, _CONSTANTS, root, source):
        site, name_node, value = captured["site"][0], captured["name"][0], captured["value"][0]
        whole = _string(value, source)
        name = _string(name_node, source) if name_node.type == "string" else _text(name_node, source)
        if whole is None or not name:
            continue
        holder = rrp.enclosing(
            site,
            (
                "class_declaration",
                "interface_declaration",
                "trait_declaration",
                "enum_declaration",
                "function_definition",
                "method_declaration",
            ),
        )
        owner = ""
        if holder.type in ("class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"):
            owner = _text(holder.child_by_field_name("name"), source)
        elif holder.type in ("function_definition", "method_declaration") and site.type != "function_call_expression":
            continue
        if links.is_link_constant(name, owner, whole):
            found.add(site.start_byte, Constant(f"{owner}.{name}" if owner else name, whole, _ts.line(site)))


# -- values -------------------------------------------------------------------------------------------



#: class (last name) -> handle kind, when imported from the vendor (or written fully qualified)
_HANDLE_CLASSES: Final = {
    ("GuzzleHttp", "Client"): "guzzle",
    ("GuzzleHttp", "ClientInterface"): "guzzle",
    ("Psr\\Http\\Client", "ClientInterface"): "guzzle",
    ("Symfony\\Contracts\\HttpClient", "HttpClientInterface"): "symfony",
    ("Symfony\\Component\\HttpClient", "HttpClient"): "symfony",
    ("Symfony\\Component\\HttpClient", "CurlHttpClient"): "symfony",
    ("Symfony\\Component\\HttpClient", "NativeHttpClient"): "symfony",
    ("RdKafka", "Producer"): "producer",
    ("RdKafka", "KafkaConsumer"): "consumer",
    ("RdKafka", "Consumer"): "consumer",
    ("Predis", "Client"): "redis",
    ("", "Redis"): "redis",
    ("Aws\\Sqs", "SqsClient"): "sqs",
    ("Aws\\Sns", "SnsClient"): "sns",
}


class _Values(Evaluator):
    """What expressions hold, read from the file's assignments, defaults, properties and constants."""

    def __init__(self, source: bytes, root: tree_sitter.Node, aliases: dict[str, str]) -> None:
        super().__init__(source)
        self.root = root
        self.aliases = aliases
        self._by_name: dict[str, list[tuple[tree_sitter.Node, tree_sitter.Node | None]]] | None = None
        #: variable name -> the start bytes of its sites, sorted (made on first use)
        self._starts: dict[str, list[int]] = {}

    def table(self) -> dict[str, list[tuple[tree_sitter.Node, tree_sitter.Node | None]]]:
        """name -> [(site, value)]: ``$x`` for variables, ``->x`` for properties, ``::X`` for constants."""
        if self._by_name is not None:
            return self._by_name
        table: dict[str, list[tuple[tree_sitter.Node, tree_sitter.Node | None]]] = {}
        self._by_name = table
        source = self.source
        for _, captured in links.matches(_LANG, _ASSIGNMENTS, self.root, source):
            site, left = captured["site"][0], captured["left"][0]
            right = captured["right"][0] if "right" in captured else None
            kind = site.type
            if kind == "assignment_expression":
                if left.type == "variable_name":
                    table.setdefault(_text(left, source), []).append((site, right))
                else:
                    owner = left.child_by_field_name("object")
                    name = left.child_by_field_name("name")
                    if owner is not None and _text(owner, source) == "$this" and name is not None:
                        table.setdefault("->" + _text(name, source), []).append((site, right))
            elif kind == "simple_parameter":
                table.setdefault(_text(left, source), []).append((site, site.child_by_field_name("default_value")))
            elif kind == "property_promotion_parameter":
                table.setdefault(_text(left, source), []).append((site, site.child_by_field_name("default_value")))
                table.setdefault("->" + _text(left, source)[1:], []).append((site, site.child_by_field_name("default_value")))
            elif kind == "property_element":
                default = site.child_by_field_name("default_value")
                table.setdefault("->" + _text(left, source)[1:], []).append((site, default))
            elif kind == "const_element":
                value = next((c for c in site.named_children if c != left and c.type != "comment"), None)
                if value is not None:
                    table.setdefault("::" + _text(left, source), []).append((site, value))
        if b"define" in source:
            for index, captured in links.matches(_LANG, _CONSTANTS, self.root, source):
                name = _string(captured["name"][0], source) if index == 1 else None
                if name:
                    table.setdefault("::" + name, []).append((captured["site"][0], captured["value"][0]))
        return table

    def full(self, written: str) -> str:
        """A class name as written, fully qualified through the file's ``use``\\s."""
        written = written.strip()
        if written.startswith("\\"):
            return written[1:]
        head, _, rest = written.partition("\\")
        if head in self.aliases:
            return self.aliases[head] + ("\\" + rest if rest else "")
        return written

    def facade(self, written: str) -> bool:
        """Whether a class as written is Laravel's ``Http`` facade."""
        return written == "Http" or self.full(written) == "Illuminate\\Support\\Facades\\Http"

    def handle(self, written: str) -> str:
        """The handle kind of a class as written (``Client`` imported from GuzzleHttp: guzzle)."""
        full = self.full(written)
        vendor, _, last = full.rpartition("\\")
        for (prefix, name), kind in _HANDLE_CLASSES.items():
            if last == name and (vendor == prefix or prefix and vendor.startswith(prefix + "\\") or not prefix and not vendor):
                return kind
        return ""

    def _value(self, node: tree_sitter.Node) -> Value:
        source = self.source
        kind = node.type
        if kind in ("string", "encapsed_string"):
            return self._string(node)
        if kind == "parenthesized_expression":
            return self.value(node.named_children[0]) if node.named_child_count else None
        if kind == "binary_expression":
            operator = _text(node.child_by_field_name("operator"), source)
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if operator == ".":
                first, second = self.text(left), self.text(right)
                return first + second if first is not None and second is not None else None
            if operator in ("??", "?:", "||", "or"):
                first, second = self.value(left), self.value(right)
                if isinstance(first, Text) and first.address and not first.parts and not first.default:
                    fallback = second.literal if isinstance(second, Text) else None
                    if fallback:
                        return Text((), first.address, fallback)
                return first if first is not None else second
            return None
        if kind == "variable_name":
            return self._variable(node)
        if kind in ("member_access_expression", "nullsafe_member_access_expression"):
            owner = node.child_by_field_name("object")
            name = node.child_by_field_name("name")
            if owner is not None and _text(owner, source) == "$this" and name is not None:
                return self._property(_text(name, source), node)
            return None
        if kind == "subscript_expression":
            inner = node.named_children
            if len(inner) == 2 and _text(inner[0], source) in ("$_ENV", "$_SERVER"):
                key = _string(inner[1], source)
                return Text((), f"env:{key}") if key else None
            return None
        if kind == "class_constant_access_expression":
            parts = node.named_children
            if len(parts) == 2:
                return self._constant(_squash(_text(parts[0], source)), _text(parts[1], source), node)
            return None
        if kind == "name":
            written = _text(node, source)
            return self._constant("", written, node) if _UPPER.match(written) else None
        if kind in ("function_call_expression", "scoped_call_expression", "member_call_expression", "object_creation_expression"):
            return self._call(node)
        return None

    def _string(self, node: tree_sitter.Node) -> Text:
        out = Text()
        for child in node.named_children:
            kind = child.type
            if kind == "string_content":
                out = out + links.literal(_text(child, self.source))
            elif kind == "escape_sequence":
                out = out + links.literal(_text(child, self.source)[1:])
            else:
                piece = self.text(child)
                out = out + (piece if piece is not None else links.unknown(_text(child, self.source)))
        return out

    def _variable(self, node: tree_sitter.Node) -> Value:
        name = _text(node, self.source)
        if name == "$this":
            return None
        function = rrp.enclosing(node, _FUNCTIONS)
        sites = self.table().get(name, [])
        starts = self._starts.get(name)
        if starts is None:
            sites.sort(key=lambda pair: pair[0].start_byte)
            starts = self._starts[name] = [site.start_byte for site, _ in sites]
        for index in links.latest_before(starts, node.start_byte):
            site, value = sites[index]
            if rrp.enclosing(site, _FUNCTIONS) != function and not (
                site.type in ("simple_parameter", "property_promotion_parameter")
                and site.parent is not None
                and site.parent.parent == function
            ):
                continue
            if value is not None and _contains(value, node):
                continue
            return self._site(site, value)
        return None

    def _site(self, site: tree_sitter.Node, value: tree_sitter.Node | None) -> Value:
        """What a binding site gives: its value, else its type's handle, else an ``#[Autowire]``."""
        held = self.value(value)
        if held is not None:
            return held
        if site.type in ("simple_parameter", "property_promotion_parameter", "property_declaration", "property_element"):
            holder = site.parent if site.type == "property_element" else site
            typed = holder.child_by_field_name("type") if holder is not None else None
            if typed is not None:
                kind = self.handle(_squash(_text(typed, self.source)).lstrip("?"))
                if kind:
                    return Handle(kind)
            return self._autowire(holder)
        return None

    def _autowire(self, holder: tree_sitter.Node | None) -> Text | None:
        """``#[Autowire(env: 'X')]`` (``env:X``), ``#[Autowire(param: 'x')]`` / ``'%x%'`` (``config:x``)."""
        attributes = holder.child_by_field_name("attributes") if holder is not None else None
        if attributes is None:
            return None
        for group in attributes.named_children:
            for attribute in group.named_children:
                if attribute.type != "attribute" or not _text(attribute.named_children[0], self.source).endswith("Autowire"):
                    continue
                positional, named = _split(_arguments(attribute.child_by_field_name("parameters")), self.source)
                if "env" in named:
                    key = _string(named["env"], self.source)
                    return Text((), f"env:{key}") if key else None
                if "param" in named:
                    key = _string(named["param"], self.source)
                    return Text((), f"config:{key}") if key else None
                written = _string(positional[0] if positional else named.get("value"), self.source) or ""
                match = re.fullmatch(r"%env\((?:\w+:)*(\w+)\)%|%([\w.]+)%", written)
                if match:
                    return Text((), f"env:{match[1]}") if match[1] else Text((), f"config:{match[2]}")
        return None

    def _property(self, name: str, node: tree_sitter.Node) -> Value:
        """``$this->name``: what the class assigns to it (a default, the constructor), else its type."""
        klass = rrp.enclosing(node, _CLASSES)
        sites = [
            (site, value)
            for site, value in self.table().get("->" + name, [])[: links.CANDIDATES_MAX]
            if rrp.enclosing(site, _CLASSES) == klass and not (value is not None and _contains(value, node))
        ]
        for site, value in sorted(sites, key=lambda pair: pair[1] is None):
            held = self._site(site, value)
            if held is not None:
                return held
        return None

    def _constant(self, owner: str, name: str, node: tree_sitter.Node) -> Value:
        short = owner.lstrip("\\").rsplit("\\", 1)[-1]
        klass = rrp.enclosing(node, _CLASSES)
        for site, value in self.table().get("::" + name, [])[: links.CANDIDATES_MAX]:
            holder = rrp.enclosing(site, _CLASSES)
            holder_name = _text(holder.child_by_field_name("name"), self.source) if holder.type != "program" else ""
            if owner in ("self", "static") and holder == klass or owner in ("", holder_name) or short == holder_name:
                return self.value(value)
        if owner in ("self", "static"):
            return None
        return Text((), f"const:{short}.{name}" if short else f"const:{name}")

    def _call(self, node: tree_sitter.Node) -> Value:
        source = self.source
        kind = node.type
        arguments = node.child_by_field_name("arguments") or next((c for c in node.named_children if c.type == "arguments"), None)
        positional, named = _split(_arguments(arguments), source)
        if kind == "function_call_expression":
            function = _squash(_text(node.child_by_field_name("function"), source)).lstrip("\\")
            if function in ("getenv", "env") and positional:
                key = _string(positional[0], source)
                if not key:
                    return None
                default = ""
                if len(positional) > 1:
                    fallback = self.value(positional[1])
                    default = fallback.literal or "" if isinstance(fallback, Text) else ""
                return Text((), f"env:{key}", default)
            if function == "config" and positional:
                key = _string(positional[0], source)
                return Text((), f"config:{key}") if key and not _secret(key) else None
            if function in ("sprintf", "vsprintf") and positional:
                return self._format(positional[0], positional[1:])
            if function in ("rtrim", "trim", "strval", "urldecode") and positional:
                return self.value(positional[0])
            if function == "base_path" and positional:
                return self.value(positional[0])
            return None
        if kind == "object_creation_expression":
            written = _squash(_text(node.named_children[0], source)) if node.named_child_count else ""
            handle = self.handle(written)
            if handle == "guzzle":
                options = _array(positional[0], source) if positional else None
                base = (options or {}).get("base_uri") or (options or {}).get("base_url")
                return Handle("guzzle", self.text(base) if base is not None else None)
            if handle:
                return Handle(handle)
            return None
        method = _text(node.child_by_field_name("name"), source)
        receiver = _receiver(node)
        written = _squash(_text(receiver, source)) if receiver is not None else ""
        if kind == "scoped_call_expression":
            handle = self.handle(written)
            if handle == "symfony" and method in ("create", "createForBaseUri"):
                base = positional[0] if method == "createForBaseUri" and positional else None
                return Handle("symfony", self.text(base) if base is not None else None)
            if written.endswith("Config") and method == "get" and positional:
                key = _string(positional[0], source)
                return Text((), f"config:{key}") if key and not _secret(key) else None
            if self.facade(written):
                return Handle("laravel", self.text(positional[0]) if method == "baseUrl" and positional else None)
            return None
        if method in ("getParameter", "get") and written in ("$this", "$this->params", "$this->parameterBag", "$params", "$parameterBag", "$this->container") and positional:
            key = _string(positional[0], source)
            if key and (method == "getParameter" or "param" in written.lower()):
                return Text((), f"config:{key}") if not _secret(key) else None
        if written == "$this" and kind == "member_call_expression":
            return self._returned(method, node)
        held = self.value(receiver) if receiver is not None else None
        if isinstance(held, Handle):
            if held.kind == "laravel":
                if method == "baseUrl" and positional:
                    return Handle("laravel", self.text(positional[0]))
                return held
            if held.kind == "symfony" and method == "withOptions" and positional:
                options = _array(positional[0], source) or {}
                base = options.get("base_uri")
                return Handle("symfony", self.text(base) if base is not None else held.base)
        return None

    def _returned(self, name: str, node: tree_sitter.Node) -> Value:
        """What ``$this->name(...)`` returns: the last ``return`` of that method of the class."""
        klass = rrp.enclosing(node, _CLASSES)
        body = klass.child_by_field_name("body") if klass.type != "program" else None
        for method in body.named_children if body is not None else []:
            if method.type != "method_declaration" or _text(method.child_by_field_name("name"), self.source) != name:
                continue
            block = method.child_by_field_name("body")
            returns = [c for c in (block.named_children if block is not None else []) if c.type == "return_statement"]
            if returns and returns[-1].named_child_count:
                return self.value(returns[-1].named_children[0])
        return None

    def _format(self, template: tree_sitter.Node, arguments: list[tree_sitter.Node]) -> Text | None:
        whole = _string(template, self.source)
        if whole is None:
            return None
        out = Text()
        at = index = 0
        for match in _FORMAT.finditer(whole):
            out = out + links.literal(whole[at : match.start()])
            at = match.end()
            if match[0] == "%%":
                out = out + links.literal("%")
            elif index < len(arguments):
                piece = self.text(arguments[index])
                out = out + (piece if piece is not None else links.unknown(""))
                index += 1
            else:
                out = out + links.unknown("")
        return out + links.literal(whole[at:])


def _secret(key: str) -> bool:
    return secret_name(key) or bool(re.search(r"(?i)secret|password|token|key|credential", key))


# -- routes: attributes and annotations ---------------------------------------------------------------


def _attributes(source: bytes, root: tree_sitter.Node, found: Found, symbols: links.Symbols, values: _Values) -> None:
    """``#[Route]`` (Symfony), ``#[Get]``/``#[Prefix]`` (route-attribute packages) and ``@Route``
    annotations on classes and their methods (OpenAPI's ``#[OA\\Get]`` documents a route: none)."""
    pattern = "(class_declaration body: (declaration_list) @body) @class"
    for _, captured in links.matches(_LANG, pattern, root, source):
        klass, body = captured["class"][0], captured["body"][0]
        prefixes = _routes_of(klass, source, values, prefix=True) or [("*", "", "")]
        name = _text(klass.child_by_field_name("name"), source)
        for method in body.named_children:
            if method.type != "method_declaration":
                continue
            method_name = _text(method.child_by_field_name("name"), source)
            handler = f"{name}::{method_name}"
            symbol = symbols.at(method.start_byte)
            own = _routes_of(method, source, values, prefix=False)
            if not own and method_name == "__invoke":
                # an invokable controller: the class's route is the method's
                own = [(verb, "", anchor, framework) for verb, _, anchor, framework in _routes_of(klass, source, values, prefix=False)]
            for verb, path, anchor, framework in own:
                for _, prefix, *_ in prefixes:
                    whole = route_template(join_paths(prefix, path) if path else prefix or "/")
                    found.add(anchor.start_byte, HttpRoute(verb, whole, _ts.line(anchor), handler, symbol, framework))


def _routes_of(node: tree_sitter.Node, source: bytes, values: _Values, *, prefix: bool) -> list:
    """(verb, path, anchor, framework) of each route attribute or annotation of a class or method (for
    a class's ``prefix``, its first one)."""
    out: list = []
    attributes = node.child_by_field_name("attributes")
    for group in attributes.named_children if attributes is not None else []:
        for attribute in group.named_children:
            if attribute.type != "attribute" or not attribute.named_child_count:
                continue
            written = _squash(_text(attribute.named_children[0], source))
            full = values.full(written)
            name = full.rsplit("\\", 1)[-1]
            if full.startswith(_DOCUMENTING) or written.startswith(_DOCUMENTING):
                continue
            framework = "laravel" if full.startswith("Spatie\\") else "symfony"
            if prefix and name == "Prefix":
                positional, _ = _split(_arguments(attribute.child_by_field_name("parameters")), source)
                path = _string(positional[0], source) if positional else None
                if path is not None:
                    out.append(("*", path, attribute, framework))
                continue
            if name not in _ROUTE_ATTRIBUTES:
                continue
            positional, named = _split(_arguments(attribute.child_by_field_name("parameters")), source)
            path_node = named.get("path") or named.get("uri") or (positional[0] if positional else None)
            path = _string(path_node, source)
            if path is None:
                if path_node is not None and path_node.type == "array_creation_expression":
                    continue  # localized paths
                path = ""
            if name == "Route":
                methods = [m.upper() for m in _strings(named.get("methods"), source)] or ["*"]
            else:
                methods = ["*" if name == "Any" else name.upper()]
            for verb in methods:
                out.append((verb, path, attribute, framework))
    comment = node.prev_named_sibling
    while comment is not None and comment.type == "attribute_list":
        comment = comment.prev_named_sibling
    if comment is not None and comment.type == "comment" and _text(comment, source).startswith("/**") and not out:
        text = _text(comment, source)
        for match in _ANNOTATION.finditer(text):
            namespace, name, body = match[1] or "", match[2], match[3]
            if namespace.startswith(_DOCUMENTING):
                continue
            found = _ANNOTATION_PATH.search(body)
            path = (found[1] if found[1] is not None else found[2]) if found else ""
            if name == "Route":
                listed = _ANNOTATION_METHODS.search(body)
                raw = (listed[1] or listed[2] or "") if listed else ""
                methods = [m.strip().strip('"').upper() for m in raw.split(",") if m.strip().strip('"')] or ["*"]
            else:
                methods = [name.upper()]
            for verb in methods:
                out.append((verb, path, comment, "symfony"))
    if prefix:
        return out[:1]
    return out


# -- calls: routes, HTTP and messages -----------------------------------------------------------------


_LARAVEL_RESOURCE: Final = (
    ("index", "GET", ""),
    ("create", "GET", "/create"),
    ("store", "POST", ""),
    ("show", "GET", "/{}"),
    ("edit", "GET", "/{}/edit"),
    ("update", "PUT", "/{}"),
    ("update", "PATCH", "/{}"),
    ("destroy", "DELETE", "/{}"),
)


class _Calls:
    def __init__(self, source: bytes, root: tree_sitter.Node, found: Found, symbols: links.Symbols, values: _Values) -> None:
        self.source = source
        self.root = root
        self.found = found
        self.symbols = symbols
        self.values = values
        self.router_file = any(
            hint in source for hint in (b"Slim\\", b"AppFactory", b"RouteCollector", b"Lumen", b"$router->", b"FastRoute")
        )

    def run(self, *, routes: bool, http: bool, messages: bool) -> None:
        for _, captured in links.matches(_LANG, _CALLS, self.root, self.source):
            call = captured["call"][0]
            method = _squash(_text(captured["method"][0], self.source))
            arguments = _arguments(captured["arguments"][0])
            if routes:
                self.route(call, method, arguments)
            if http:
                self.http(call, method, arguments)
            if messages:
                self.message(call, method, arguments)

    # -- routes ---------------------------------------------------------------------------------------

    def emit(
        self,
        anchor: tree_sitter.Node,
        verb: str,
        path: str,
        handler: str,
        framework: str,
        mount: str = "",
        call: tree_sitter.Node | None = None,
    ) -> None:
        """A route at ``anchor``, under the groups around it and the ``prefix()`` of its own chain
        (``Route::prefix('x')->get(...)``, ``call``)."""
        own = self.group_prefix(call) if call is not None and framework == "laravel" else ""
        for prefix in self.prefixes(anchor):
            prefix = join_paths(prefix, own) if own else prefix
            whole = route_template(join_paths(prefix, path) if path and path != "/" else prefix or "/")
            fact = HttpRoute(verb, whole, _ts.line(anchor), handler, self.symbols.at(anchor.start_byte), framework, mount)
            self.found.add(anchor.start_byte, fact)

    def is_router(self, call: tree_sitter.Node) -> str:
        """The framework a registration call is made on: ``laravel`` (``Route::``), ``lumen``/``slim``
        (a variable), else ""."""
        receiver = _receiver(call)
        if receiver is None:
            return ""
        if call.type == "scoped_call_expression":
            written = _squash(_text(receiver, self.source)).lstrip("\\")
            return "laravel" if written in ("Route", "Illuminate\\Support\\Facades\\Route") else ""
        root = _chain_root(receiver) if receiver.type != "variable_name" else receiver
        if root.type == "scoped_call_expression":
            return "laravel" if _squash(_text(_receiver(root), self.source)).lstrip("\\").endswith("Route") else ""
        if root.type in ("variable_name", "member_access_expression") and self.router_file:
            return "lumen" if b"$router" in self.source or b"Lumen" in self.source else "slim"
        return ""

    def route(self, call: tree_sitter.Node, method: str, arguments: list[tree_sitter.Node]) -> None:
        source = self.source
        if call.type not in ("member_call_expression", "scoped_call_expression"):
            return
        lower = method.lower()
        positional, named = _split(arguments, source)
        if lower == "withrouting" and call.type == "member_call_expression":
            self.with_routing(call, named)
            return
        if lower == "group":
            self.group_mount(call, positional)
            return
        framework = self.is_router(call)
        if not framework:
            return
        if lower in _VERBS or lower in ("any", "view", "redirect", "permanentredirect"):
            if len(positional) < 2:
                return
            path = _string(positional[0], source)
            handler = _handler(positional[1], source) if lower not in ("view", "redirect", "permanentredirect") else ""
            if path is None or handler is None or not self.plausible(framework, path, positional[1]):
                return
            verb = "GET" if lower == "view" else "*" if lower in ("any", "redirect", "permanentredirect") else lower.upper()
            self.emit(call, verb, path, self.controller(call, handler), framework, call=call)
        elif lower in ("match", "map", "addroute"):
            if len(positional) < 3:
                return
            verbs = [v.upper() for v in _strings(positional[0], source)]
            if not verbs and lower == "addroute":
                single = _string(positional[0], source)
                verbs = [single.upper()] if single else []
            path = _string(positional[1], source)
            handler = _handler(positional[2], source)
            if not verbs or path is None or handler is None or not self.plausible(framework, path, positional[2]):
                return
            for verb in verbs:
                self.emit(call, verb if verb in HTTP_METHODS else "*", path, self.controller(call, handler), framework, call=call)
        elif lower in ("resource", "apiresource") and framework == "laravel":
            self.resource(call, positional, lower == "apiresource")
        elif lower in ("resources", "apiresources") and framework == "laravel" and positional:
            entries = _array(positional[0], source) or {}
            for name, controller in entries.items():
                self.resource(call, [positional[0], controller], lower == "apiresources", name, controller.parent)

    def plausible(self, framework: str, path: str, handler: tree_sitter.Node) -> bool:
        """A registration on a variable (``$app``, ``$router``) looks like one: a path starting with
        ``/``, or a handler that can only be one (a closure, ``C@m``, ``C:m``, ``[C::class, 'm']``)."""
        written = _string(handler, self.source)
        if framework == "laravel" or written is None:
            return True
        return "@" in written or ":" in written or re.match(r"\\?[A-Z]", written) is not None and path.startswith("/")

    def controller(self, call: tree_sitter.Node, handler: str) -> str:
        """A method-only handler under ``Route::controller(C::class)->group(...)``: ``C@m``."""
        if not handler or "@" in handler or "::" in handler or ":" in handler:
            return handler
        node = call.parent
        while node is not None:
            if node.type in ("anonymous_function", "arrow_function"):
                group = _group_call(node)
                if group is not None:
                    for name, link in _chain(group, self.source):
                        if name == "controller":
                            positional, _ = _split(_arguments(link.child_by_field_name("arguments")), self.source)
                            owner = _class_name(positional[0], self.source) if positional else ""
                            if owner:
                                return f"{owner}@{handler}"
            node = node.parent
        return handler

    def resource(
        self,
        call: tree_sitter.Node,
        positional: list[tree_sitter.Node],
        api: bool,
        name: str | None = None,
        anchor: tree_sitter.Node | None = None,
    ) -> None:
        source = self.source
        if name is None:
            if len(positional) < 2:
                return
            name = _string(positional[0], source)
            controller = _class_name(positional[1], source) or (_string(positional[1], source) or "")
        else:
            controller = _class_name(positional[1], source) or (_string(positional[1], source) or "")
        if not name:
            return
        actions = [a for a, _, _ in _LARAVEL_RESOURCE if not api or a not in ("create", "edit")]
        #: only/except as an option array or chained (``->only(['index'])``, ``->except('update', 'destroy')``)
        chosen: dict[str, list[str]] = {}
        options = _array(positional[2], source) if len(positional) > 2 else None
        for key, value in (options or {}).items():
            if key in ("only", "except"):
                chosen[key] = _strings(value, source)
        node = call
        while node.parent is not None and node.parent.type == "member_call_expression" and node.parent.child_by_field_name("object") == node:
            node = node.parent
            link = _text(node.child_by_field_name("name"), source)
            if link in ("only", "except"):
                listed = _split(_arguments(node.child_by_field_name("arguments")), source)[0]
                chosen[link] = [word for item in listed for word in _strings(item, source)]
        if "only" in chosen:
            actions = [a for a in actions if a in chosen["only"]]
        if "except" in chosen:
            actions = [a for a in actions if a not in chosen["except"]]
        segments = name.split(".")
        path = ""
        for segment in segments[:-1]:
            path = join_paths(path, f"{segment}/{{{_singular(segment)}}}")
        path = join_paths(path, segments[-1])
        param = "{" + _singular(segments[-1]).replace("-", "_") + "}"
        for action, verb, suffix in _LARAVEL_RESOURCE:
            if action in actions:
                handler = f"{controller}@{action}" if controller else ""
                self.emit(anchor or call, verb, path + suffix.replace("{}", param), handler, "laravel", call=call)

    def prefixes(self, anchor: tree_sitter.Node) -> list[str]:
        """The prefixes of the groups whose closures hold ``anchor`` (outermost first, joined)."""
        prefix = ""
        node = anchor.parent
        depth = 0
        pieces: list[str] = []
        while node is not None and depth < _NEST:
            if node.type in ("anonymous_function", "arrow_function"):
                group = _group_call(node)
                if group is not None:
                    depth += 1
                    piece = self.group_prefix(group)
                    if piece:
                        pieces.append(piece)
            node = node.parent
        for piece in reversed(pieces):
            prefix = join_paths(prefix, piece)
        return [prefix]

    def group_prefix(self, group: tree_sitter.Node) -> str:
        """The prefix a ``->group(...)`` call gives: ``Route::prefix('x')``, ``['prefix' => 'x']``, Slim's
        ``$app->group('/x', ...)``."""
        source = self.source
        prefix = ""
        for name, link in _chain(group, source):
            positional, _ = _split(_arguments(link.child_by_field_name("arguments")), source)
            if name == "prefix" and positional:
                prefix = join_paths(prefix, _string(positional[0], source) or "")
            elif name in ("group", "addGroup") and positional:
                first = positional[0]
                entries = _array(first, source)
                if entries is not None and "prefix" in entries:
                    prefix = join_paths(prefix, _string(entries["prefix"], source) or "")
                elif _string(first, source) is not None and len(positional) >= 2:
                    prefix = join_paths(prefix, _string(first, source) or "")
        return prefix

    def group_mount(self, call: tree_sitter.Node, positional: list[tree_sitter.Node]) -> None:
        """``Route::prefix('api')->group(base_path('routes/api.php'))``: the routes of that file under the prefix."""
        if not positional or positional[-1].type in ("anonymous_function", "arrow_function"):
            return
        target = self.values.text(positional[-1])
        whole = target.literal if target is not None else None
        if target is not None and whole is None and target.parts and target.parts[-1][0]:
            whole = target.parts[-1][1]
        if not whole or not whole.endswith(".php"):
            return
        prefix = self.group_prefix(call)
        if prefix:
            self.emit(positional[-1], "*", prefix, "", "laravel", whole.lstrip("/"))

    def with_routing(self, call: tree_sitter.Node, named: dict[str, tree_sitter.Node]) -> None:
        """Laravel 11 ``->withRouting(api: __DIR__.'/../routes/api.php', apiPrefix: 'api')``."""
        target = named.get("api")
        if target is None:
            return
        written = self.values.text(target)
        whole = written.parts[-1][1] if written is not None and written.parts and written.parts[-1][0] else ""
        if not whole.endswith(".php"):
            return
        prefix = _string(named.get("apiPrefix"), self.source) if "apiPrefix" in named else "api"
        self.emit(target, "*", prefix or "/", "", "laravel", whole.lstrip("/"))

    # -- HTTP -----------------------------------------------------------------------------------------

    def add_call(self, anchor: tree_sitter.Node, verb: str, url: Text, client: str) -> None:
        line, symbol = _ts.line(anchor), self.symbols.at(anchor.start_byte)
        self.found.add(anchor.start_byte, links.http_call(verb, url, line, symbol, client))

    def url(self, node: tree_sitter.Node | None) -> Text:
        if node is None:
            return Text()
        return self.values.text(node) or links.unknown(_text(node, self.source))

    def http(self, call: tree_sitter.Node, method: str, arguments: list[tree_sitter.Node]) -> None:
        source = self.source
        positional, named = _split(arguments, source)
        lower = method.lower()
        if call.type == "function_call_expression":
            name = method.lstrip("\\")
            if name == "file_get_contents" and positional:
                url = self.url(positional[0])
                if _is_url(url):
                    self.add_call(call, self.context_verb(positional[2] if len(positional) > 2 else None), url, "file_get_contents")
            elif name == "curl_init":
                self.curl(call, positional[0] if positional else None)
            return
        if call.type == "object_creation_expression":
            written = _squash(_text(call.named_children[0], source)) if call.named_child_count else ""
            full = self.values.full(written)
            if full in ("GuzzleHttp\\Psr7\\Request", "Nyholm\\Psr7\\Request", "Laminas\\Diactoros\\Request") and len(positional) >= 2:
                verb = (_string(positional[0], source) or "").upper()
                self.add_call(call, verb if verb in HTTP_METHODS else "*", self.url(positional[1]), "guzzle")
            return
        receiver = _receiver(call)
        if receiver is None:
            return
        laravel = call.type == "scoped_call_expression" and self.values.facade(_squash(_text(receiver, source)))
        if lower.endswith("async") and lower != "async":
            lower = lower[:-5]
        if lower == "request":
            if len(positional) < 2:
                return
            verb_text = _string(positional[0], source)
            verb = verb_text.upper() if verb_text and verb_text.upper() in HTTP_METHODS else "*"
            path = positional[1]
        elif lower in _VERBS:
            if not positional:
                return
            verb, path = lower.upper(), positional[0]
        else:
            return
        held = Handle("laravel") if laravel else self.values.value(receiver)
        if not isinstance(held, Handle) or held.kind not in ("guzzle", "symfony", "laravel"):
            return
        client = {"guzzle": "guzzle", "symfony": "symfony/http-client", "laravel": "laravel-http"}[held.kind]
        self.add_call(call, verb, links.base_join(held.base, self.url(path), replace_path=held.kind != "laravel"), client)

    def context_verb(self, node: tree_sitter.Node | None) -> str:
        """The method of a ``stream_context_create(['http' => ['method' => 'POST']])`` context (GET when none)."""
        source = self.source
        for _ in range(4):
            if node is None:
                return "GET"
            if node.type == "variable_name":
                found = self.values.table().get(_text(node, source), [])
                node = found[-1][1] if found else None
                continue
            break
        if node is None or node.type != "function_call_expression":
            return "GET"
        positional, _ = _split(_arguments(node.child_by_field_name("arguments")), source)
        options = _array(positional[0], source) if positional else None
        http = _array((options or {}).get("http"), source) or {}
        verb = (_string(http.get("method"), source) or "GET").upper()
        return verb if verb in HTTP_METHODS else "*"

    def curl(self, call: tree_sitter.Node, url: tree_sitter.Node | None) -> None:
        """``curl_init($url)`` with the ``CURLOPT_URL``/``CURLOPT_POST``/``CURLOPT_CUSTOMREQUEST`` set on
        its handle in the same function."""
        source = self.source
        assignment = call.parent
        handle = ""
        if assignment is not None and assignment.type == "assignment_expression":
            handle = _text(assignment.child_by_field_name("left"), source)
        function = rrp.enclosing(call, _FUNCTIONS)
        verb = "GET"
        if handle:
            for _, captured in links.matches(_LANG, _CURL_OPTIONS, function, source):
                positional, _ = _split(_arguments(captured["a"][0]), source)
                if not positional or _text(positional[0], source) != handle or captured["c"][0].start_byte < call.start_byte:
                    continue
                pairs: list[tuple[str, tree_sitter.Node]] = []
                if _text(captured["f"][0], source) == "curl_setopt" and len(positional) >= 3:
                    pairs.append((_text(positional[1], source), positional[2]))
                elif len(positional) >= 2 and positional[1].type == "array_creation_expression":
                    for element in positional[1].named_children:
                        inner = [c for c in element.named_children if c.type != "comment"]
                        if len(inner) == 2:
                            pairs.append((_text(inner[0], source), inner[1]))
                for option, value in pairs:
                    if option == "CURLOPT_URL" and url is None:
                        url = value
                    elif option == "CURLOPT_POST" and _text(value, source).lower() in ("true", "1"):
                        verb = "POST"
                    elif option == "CURLOPT_CUSTOMREQUEST":
                        written = (_string(value, source) or "").upper()
                        verb = written if written in HTTP_METHODS else "*"
                    elif option == "CURLOPT_NOBODY" and _text(value, source).lower() in ("true", "1"):
                        verb = "HEAD"
        if url is None:
            return
        self.add_call(call, verb, self.url(url), "curl")

    # -- messages -------------------------------------------------------------------------------------

    def add_message(self, anchor: tree_sitter.Node, role: str, broker: str, name: Text | None, kind: str, client: str) -> None:
        line, symbol = _ts.line(anchor), self.symbols.at(anchor.start_byte)
        self.found.add(anchor.start_byte, links.message(role, broker, name, line, kind, symbol, client))

    def text(self, node: tree_sitter.Node | None) -> Text | None:
        return self.values.text(node) if node is not None else None

    def message(self, call: tree_sitter.Node, method: str, arguments: list[tree_sitter.Node]) -> None:
        source = self.source
        positional, named = _split(arguments, source)
        produce, consume = MessageRole.PRODUCE, MessageRole.CONSUME
        if call.type not in ("member_call_expression", "nullsafe_member_call_expression", "scoped_call_expression"):
            return
        receiver = _receiver(call)
        written = _squash(_text(receiver, source)) if receiver is not None else ""
        if method == "basic_publish" and positional:
            exchange = self.text(named.get("exchange") or (positional[1] if len(positional) > 1 else None))
            key = self.text(named.get("routing_key") or (positional[2] if len(positional) > 2 else None))
            if exchange is None or exchange.literal == "":
                self.add_message(call, produce, "rabbitmq", key, "queue", "php-amqplib")
            else:
                self.add_message(call, produce, "rabbitmq", exchange, "exchange", "php-amqplib")
        elif method == "basic_consume" and (positional or "queue" in named):
            self.add_message(call, consume, "rabbitmq", self.text(named.get("queue") or positional[0]), "queue", "php-amqplib")
        elif method == "queue_bind" and len(positional) >= 2:
            self.add_message(call, consume, "rabbitmq", self.text(positional[1]), "exchange", "php-amqplib")
        elif method == "newTopic" and positional and b"RdKafka" in source:
            role = self.kafka_role(call, receiver)
            if role:
                self.add_message(call, role, "kafka", self.text(positional[0]), "topic", "php-rdkafka")
        elif method == "subscribe" and positional:
            held = self.values.value(receiver) if receiver is not None else None
            kind = held.kind if isinstance(held, Handle) else ""
            if kind == "consumer" or kind == "" and b"RdKafka" in source and "consumer" in written.lower():
                for topic in _list(positional[0], source):
                    self.add_message(topic, consume, "kafka", self.text(topic), "topic", "php-rdkafka")
            elif kind == "redis" or kind == "" and (written == "Redis" or "redis" in written.lower()):
                for channel in _list(positional[0], source):
                    self.add_message(channel, consume, "redis", self.text(channel), "channel", "redis")
        elif method in ("publish",) and positional:
            held = self.values.value(receiver) if receiver is not None else None
            kind = held.kind if isinstance(held, Handle) else ""
            if kind == "redis" or kind == "" and (written == "Redis" or "redis" in written.lower()):
                self.add_message(call, produce, "redis", self.text(positional[0]), "channel", "redis")
            elif kind == "sns" or kind == "" and "sns" in written.lower():
                entries = _array(positional[0], source) or {}
                if "TopicArn" in entries:
                    self.add_message(call, produce, "sns", links.last_segment(self.text(entries["TopicArn"]), "arn"), "topic", "aws-sdk-php")
        elif method in ("sendMessage", "sendMessageBatch", "receiveMessage") and positional:
            held = self.values.value(receiver) if receiver is not None else None
            kind = held.kind if isinstance(held, Handle) else ""
            entries = _array(positional[0], source) or {}
            if "QueueUrl" in entries and (kind == "sqs" or kind == "" and "sqs" in written.lower() or b"Aws\\Sqs" in source):
                role = consume if method == "receiveMessage" else produce
                self.add_message(call, role, "sqs", links.last_segment(self.text(entries["QueueUrl"]), "url"), "queue", "aws-sdk-php")
        elif method in ("onQueue", "pushOn") and positional:
            name = self.text(positional[0])
            if name is not None and name.literal is not None or name is not None and name.address:
                broker = self.connection(call)
                self.add_message(call, produce, broker, name, "queue", "laravel")

    def kafka_role(self, call: tree_sitter.Node, receiver: tree_sitter.Node | None) -> str:
        held = self.values.value(receiver) if receiver is not None else None
        kind = held.kind if isinstance(held, Handle) else ""
        written = _text(receiver, self.source).lower() if receiver is not None else ""
        if kind == "producer" or not kind and "producer" in written:
            return MessageRole.PRODUCE
        if kind == "consumer" or not kind and "consumer" in written:
            return MessageRole.CONSUME
        return ""

    def connection(self, call: tree_sitter.Node) -> str:
        """The broker of ``->onConnection('sqs')`` in the same chain ("" when none is named)."""
        top = call
        while top.parent is not None and top.parent.type == "member_call_expression" and _receiver(top.parent) == top:
            top = top.parent
        for name, link in _chain(top, self.source):
            if name == "onConnection":
                positional, _ = _split(_arguments(link.child_by_field_name("arguments")), self.source)
                written = _string(positional[0], self.source) if positional else ""
                return written if written in ("sqs", "redis", "rabbitmq", "kafka", "beanstalkd") else ""
        return ""


def _group_call(closure: tree_sitter.Node) -> tree_sitter.Node | None:
    """The ``->group(...)``/``::group(...)``/``->addGroup(...)`` call a closure is an argument of."""
    argument = closure.parent
    if argument is None or argument.type != "argument":
        return None
    arguments = argument.parent
    call = arguments.parent if arguments is not None else None
    if call is None or call.type not in ("member_call_expression", "scoped_call_expression"):
        return None
    name = call.child_by_field_name("name")
    return call if name is not None and name.type == "name" and name.text in (b"group", b"addGroup") else None


def _contains(outer: tree_sitter.Node, inner: tree_sitter.Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 3:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "uses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _is_url(url: Text) -> bool:
    """Whether a ``file_get_contents`` argument is an HTTP URL (not a local file)."""
    first = url.parts[0] if url.parts else None
    if first is not None and first[0] and re.match(r"(?i)https?://", first[1]):
        return True
    if url.address:
        return bool(re.search(r"(?i)url|uri|host|endpoint|api|service|base", url.address)) or bool(
            re.match(r"(?i)https?://", url.default)
        )
    return False
