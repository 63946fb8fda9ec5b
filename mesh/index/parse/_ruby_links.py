"""Ruby links: HTTP routes, HTTP calls, messages and link constants of one file.

Theory of operation: every rule starts from what the file uses (``routes.draw``, ``Sinatra``,
``Grape::API``, ``Hanami::Routes``, ``Net::HTTP``, ``Faraday``, ``Bunny``...), found with ``bytes.find``
before any query runs, so a file using none of them costs nothing but those searches.

Routes: a routes block (``Rails.application.routes.draw do``, a ``Hanami::Routes`` class, a Grape API
class) is read statement by statement with the scope it sets (``namespace``, ``scope``, ``resources``
and their ``member``/``collection`` blocks, ``concern``\\s, Grape's ``prefix``/``version``/``namespace``/
``route_param``): what a query cannot say. ``resources :photos`` gives the seven REST actions as
``rails routes`` prints them (``update`` as PATCH and PUT), filtered by ``only:``/``except:``; a nested
resource hangs under ``/photos/{photo_id}`` (or its own collection when shallow). ``mount X => '/p'``
is a mount of ``X``. Sinatra routes are ``get '/x' do ... end`` calls with a block, under the prefixes
of ``namespace '/api' do`` blocks around them.

Calls and messages: one compiled query finds the calls named like a client or broker method; each is
kept only when its receiver is what the rule needs (``Net::HTTP``, a ``Faraday`` connection, a class
including ``HTTParty``, a Bunny exchange or queue, a Kafka producer or consumer, a Redis or NATS
connection...). :class:`_Values` reads what an expression holds: string literals and interpolations,
``+``, ``format``, ``URI(...)``/``URI.join``, ``ENV[...]``/``ENV.fetch`` (``env:``), ``Settings.x``/
``Rails.configuration.x`` (``config:``), constants (of the file, else ``const:``), and the locals,
instance variables, parameter defaults and memoised accessors they are assigned to, up to a depth.
"""

from __future__ import annotations

import re
from typing import Final

import attrs
import tree_sitter

from .._facts import Constant, HttpRoute, MessageRole
from . import _rrp_links as links
from . import _shared_rrp as rrp
from . import _ts
from ._links import HTTP_METHODS, join_paths, route_template
from ._rrp_links import Evaluator, Found, Handle, Links, Text, Value

__all__ = ["extract"]

_LANG: Final = "ruby"
_NEST: Final = 64

_ROUTE_VERBS: Final = ("get", "post", "put", "patch", "delete", "options", "head")
#: control flow a routes block may wrap routes in
_FLOW: Final = frozenset(
    {
        "body_statement",
        "block_body",
        "begin",
        "if",
        "unless",
        "elsif",
        "else",
        "then",
        "case",
        "when",
        "parenthesized_statements",
        "if_modifier",
        "unless_modifier",
    }
)
_SCOPES: Final = ("method", "singleton_method", "class", "module", "program")
_CLASS_SCOPES: Final = ("class", "module", "program")
_PASS: Final = frozenset(
    {"freeze", "to_s", "to_str", "dup", "strip", "chomp", "presence", "itself", "path", "request_uri", "to_uri"}
)
_UPPER: Final = re.compile(r"^[A-Z][A-Z0-9_]*$")
_FORMAT: Final = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?[sdifgxXbo]|%\{(\w+)\}|%<(\w+)>\w")
_OPTIONAL: Final = re.compile(r"\([^()]*\)")
_SYMBOL_PARAMETER: Final = re.compile(r"(?<![\w}]):(\w+)")

_HTTP_HINTS: Final = (b"Net::HTTP", b"Faraday", b"HTTParty", b"RestClient", b"Excon", b"Typhoeus", b"HTTP.")
_MESSAGE_HINTS: Final = (
    b"Bunny",
    b"bunny",
    b"Sneakers",
    b"Hutch",
    b"Kafka",
    b"kafka",
    b"WaterDrop",
    b"Racecar",
    b"redis",
    b"Redis",
    b"NATS",
    b"nats",
    b"Aws::SQS",
    b"Aws::SNS",
    b"Shoryuken",
    b"shoryuken",
)

_CALLS: Final = """
(call method: (_) @method
  (#any-of? @method
    "get" "post" "put" "patch" "delete" "head" "options" "get_response" "post_form" "get_print"
    "request_get" "request_post" "request_head" "run_request" "new" "execute" "request"
    "publish" "subscribe" "psubscribe" "produce" "produce_sync" "produce_async" "deliver_message"
    "each_message" "bind" "from_queue" "consume" "subscribes_to" "topic" "send_message"
    "send_message_batch" "receive_message" "shoryuken_options" "pop" "queue_subscribe")) @call
"""
_ASSIGNMENTS: Final = """
[(assignment left: [(identifier) (instance_variable) (constant) (class_variable) (global_variable)] @left
  right: (_) @right)
 (operator_assignment left: [(identifier) (instance_variable) (class_variable) (global_variable)] @left
  right: (_) @right)]
"""
_DRAW: Final = """
(call receiver: (_) @routes method: (identifier) @method (#any-of? @method "draw" "prepend" "append")) @call
"""
_HANAMI: Final = """
(class superclass: (superclass (_) @base) body: (_) @body)
(call receiver: (_) @base method: (identifier) @method (#eq? @method "new") block: (_ body: (_) @body))
"""
_SINATRA: Final = """
(call method: (identifier) @method
  (#any-of? @method "get" "post" "put" "patch" "delete" "options" "head" "link" "unlink")
  arguments: (argument_list . [(string) (regex)] @path)
  block: (_)) @call
"""


def extract(
    source: bytes,
    root: tree_sitter.Node,
    methods: dict[str, list[tree_sitter.Node]],
    spans: list[tuple[int, int, str]],
) -> Links:
    """The link facts of one Ruby file (``methods``: the ``def`` nodes of each name; ``spans``: the
    (start, end, dotted name) of its definitions)."""
    found = Found()
    symbols = links.Symbols(spans)
    values = _Values(source, root, methods)
    _constants(source, root, found)
    if any(hint in source for hint in (b"routes", b"Routes", b"Router", b"resource", b"namespace")):
        _RoutesBlocks(source, root, found, symbols).run()
    if b"Grape::API" in source:
        _grape(source, root, found, symbols)
    if b"inatra" in source:
        _sinatra(source, root, found, symbols)
    http = any(hint in source for hint in _HTTP_HINTS)
    messages = any(hint in source for hint in _MESSAGE_HINTS)
    if http or messages:
        _Calls(source, root, found, symbols, values, http=http, messages=messages).run()
    return found.done()


# -- reading nodes ----------------------------------------------------------------------------------


def _text(node: tree_sitter.Node | None, source: bytes) -> str:
    return _ts.text(node, source)


def _arguments(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return []
    return [child for child in arguments.named_children if child.type not in ("comment", "block_argument")]


def _positional(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    return [child for child in _arguments(call) if child.type not in ("pair", "hash_splat_argument")]


def _key(pair: tree_sitter.Node, source: bytes) -> str:
    key = pair.child_by_field_name("key")
    if key is None:
        return ""
    if key.type == "hash_key_symbol":
        return _text(key, source)
    if key.type in ("simple_symbol", "string", "delimited_symbol"):
        return _word(key, source) or ""
    return ""


def _options(call: tree_sitter.Node, source: bytes) -> dict[str, tree_sitter.Node]:
    """``key:``/``:key =>`` options of a call (last one wins), including those of a trailing ``{}`` hash."""
    options: dict[str, tree_sitter.Node] = {}
    for argument in _arguments(call):
        pairs = [argument] if argument.type == "pair" else argument.named_children if argument.type == "hash" else []
        for pair in pairs:
            if pair.type != "pair":
                continue
            value = pair.child_by_field_name("value")
            name = _key(pair, source)
            if name and value is not None:
                options[name] = value
    return options


def _word(node: tree_sitter.Node | None, source: bytes) -> str | None:
    """A plain string or symbol as text (None: not one, or interpolated)."""
    if node is None:
        return None
    kind = node.type
    if kind == "simple_symbol":
        return _text(node, source)[1:]
    if kind in ("string", "delimited_symbol", "bare_string", "bare_symbol"):
        parts = node.named_children
        if not parts:
            return ""
        if all(part.type == "string_content" for part in parts):
            return "".join(_text(part, source) for part in parts)
        return None
    if kind == "hash_key_symbol":
        return _text(node, source)
    return None


def _words(node: tree_sitter.Node | None, source: bytes) -> list[str] | None:
    """A word or an array of words (``:index``, ``[:index, :show]``, ``%i[index show]``)."""
    if node is None:
        return None
    if node.type in ("array", "symbol_array", "string_array"):
        words = [_word(child, source) for child in node.named_children if child.type != "comment"]
        return [word for word in words if word is not None]
    word = _word(node, source)
    return None if word is None else [word]


def _body(call: tree_sitter.Node) -> tree_sitter.Node | None:
    block = call.child_by_field_name("block")
    if block is None:
        return None
    return block.child_by_field_name("body")


def _statements(body: tree_sitter.Node | None) -> list[tree_sitter.Node]:
    """The calls of a block body, through the control flow that may wrap them, in source order."""
    if body is None:
        return []
    out: list[tree_sitter.Node] = []
    stack = [body]
    while stack:
        node = stack.pop()
        for child in reversed(node.named_children):
            if child.type == "call":
                out.append(child)
            elif child.type in _FLOW:
                stack.append(child)
    out.sort(key=lambda node: node.start_byte)
    return out


def _method(call: tree_sitter.Node, source: bytes) -> str:
    return _text(call.child_by_field_name("method"), source)


def _spelled(path: str) -> str:
    """A Rails/Sinatra/Grape path in the one spelling of routes: its optional groups (``(.:format)``,
    ``(/:page)``) dropped, ``:name`` anywhere a parameter (``/@:username``), no trailing ``/``."""
    previous = None
    while previous != path:
        previous, path = path, _OPTIONAL.sub("", path)
    path = _SYMBOL_PARAMETER.sub(lambda match: "{" + match[1] + "}", path)
    return route_template(path.rstrip("/") or "/")


def _template(*pieces: str) -> str:
    path = ""
    for piece in pieces:
        path = join_paths(path, piece) if piece else path
    return _spelled(path)


# -- singular and plural, as far as route names need them ----------------------------------------------


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 3:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "uses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _plural(word: str) -> str:
    if word.endswith("s"):
        return word
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


# -- constants ----------------------------------------------------------------------------------------


_CONSTANT_LINE: Final = re.compile(rb"(?m)^[ \t]*[A-Z][A-Z0-9_]*[ \t]*=[^=~]")


def _constants(source: bytes, root: tree_sitter.Node, found: Found) -> None:
    """``NAME = "value"`` (``.freeze`` too) at the top of a file, class or module whose name says it
    names a link."""
    if not _CONSTANT_LINE.search(source):
        return
    pattern = "(assignment left: (constant) @name right: [(string) (call)] @value)"
    for _, captured in links.matches(_LANG, pattern, root, source):
        left, right = captured["name"][0], captured["value"][0]
        if right.type == "call" and _method(right, source) == "freeze":
            right = right.child_by_field_name("receiver")
        whole = _word(right, source) if right is not None and right.type == "string" else None
        if whole is None:
            continue
        holder = rrp.enclosing(left, ("class", "module", "method", "singleton_method", "block", "do_block"))
        if holder.type in ("method", "singleton_method", "block", "do_block"):
            continue
        owner = ""
        if holder.type in ("class", "module"):
            owner = _text(holder.child_by_field_name("name"), source).split("::")[-1].strip()
        name = _text(left, source)
        if links.is_link_constant(name, owner, whole):
            found.add(left.start_byte, Constant(f"{owner}.{name}" if owner else name, whole, _ts.line(left)))


# -- values -------------------------------------------------------------------------------------------


class _Values(Evaluator):
    """What expressions hold, read from the file's assignments, parameter defaults and accessors."""

    def __init__(self, source: bytes, root: tree_sitter.Node, methods: dict[str, list[tree_sitter.Node]]) -> None:
        super().__init__(source)
        self.root = root
        self.methods = methods
        self._table: dict[tuple[str, int, str], list[tuple[int, tree_sitter.Node]]] | None = None
        #: the start bytes of each key's assignments (made on first use)
        self._starts: dict[tuple[str, int, str], list[int]] = {}

    def assignments(self) -> dict[tuple[str, int, str], list[tuple[int, tree_sitter.Node]]]:
        """(kind, scope start, name) -> [(where, value)] for every assignment and parameter default."""
        if self._table is not None:
            return self._table
        assigned: dict[tuple[str, int, str], list[tuple[int, tree_sitter.Node]]] = {}
        self._table = assigned
        if b"=" in self.source:
            for _, captured in links.matches(_LANG, _ASSIGNMENTS, self.root, self.source):
                left, right = captured["left"][0], captured["right"][0]
                key = self._key(left)
                if key is not None:
                    assigned.setdefault(key, []).append((left.start_byte, right))
        for defs in self.methods.values():
            for method in defs:
                parameters = method.child_by_field_name("parameters")
                if parameters is None:
                    continue
                for parameter in parameters.named_children:
                    if parameter.type in ("optional_parameter", "keyword_parameter"):
                        name = parameter.child_by_field_name("name")
                        value = parameter.child_by_field_name("value")
                        if name is not None and value is not None:
                            key = ("local", method.start_byte, _text(name, self.source))
                            assigned.setdefault(key, []).append((parameter.start_byte, value))
        for values in assigned.values():
            values.sort(key=lambda pair: pair[0])
        return assigned

    def _key(self, left: tree_sitter.Node) -> tuple[str, int, str] | None:
        name = _text(left, self.source)
        kind = left.type
        if kind == "identifier":
            return ("local", rrp.enclosing(left, _SCOPES).start_byte, name)
        if kind in ("instance_variable", "class_variable"):
            return ("ivar", rrp.enclosing(left, _CLASS_SCOPES).start_byte, name)
        if kind == "constant":
            return ("constant", 0, name)
        if kind == "global_variable":
            return ("global", 0, name)
        return None

    def _value(self, node: tree_sitter.Node) -> Value:
        source = self.source
        kind = node.type
        if kind in ("string", "bare_string"):
            return self._string(node)
        if kind == "chained_string":
            out = Text()
            for child in node.named_children:
                out = out + (self.text(child) or Text())
            return out
        if kind in ("simple_symbol", "delimited_symbol"):
            word = _word(node, source)
            return links.literal(word) if word is not None else None
        if kind == "parenthesized_statements":
            inner = [child for child in node.named_children if child.type != "comment"]
            return self.value(inner[-1]) if inner else None
        if kind == "binary":
            return self._binary(node)
        if kind == "element_reference":
            return self._element(node)
        if kind == "call":
            return self._call(node)
        if kind == "identifier":
            return self._identifier(node)
        if kind in ("instance_variable", "class_variable"):
            return self._assigned("ivar", rrp.enclosing(node, _CLASS_SCOPES).start_byte, _text(node, source), node)
        if kind == "global_variable":
            return self._assigned("global", 0, _text(node, source), node)
        if kind == "constant":
            return self._constant("", _text(node, source), node)
        if kind == "scope_resolution":
            owner = node.child_by_field_name("scope")
            name = node.child_by_field_name("name")
            if name is not None and name.type == "constant" and owner is not None:
                return self._constant(_text(owner, source).split("::")[-1].strip(), _text(name, source), node)
        return None

    def _string(self, node: tree_sitter.Node) -> Text:
        out = Text()
        for child in node.named_children:
            kind = child.type
            if kind == "string_content":
                out = out + links.literal(_text(child, self.source))
            elif kind == "escape_sequence":
                out = out + links.literal(_text(child, self.source)[1:])
            elif kind == "interpolation":
                inner = [c for c in child.named_children if c.type != "comment"]
                piece = self.text(inner[-1]) if len(inner) == 1 else None
                out = out + (piece if piece is not None else links.unknown(_text(child, self.source)[2:-1]))
        return out

    def _binary(self, node: tree_sitter.Node) -> Value:
        operator = _text(node.child_by_field_name("operator"), self.source)
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator == "+":
            first, second = self.text(left), self.text(right)
            if first is None or second is None:
                return None
            return first + second
        if operator in ("||", "or"):
            first = self.value(left)
            second = self.value(right)
            if isinstance(first, Text) and first.address and not first.parts and not first.default:
                fallback = second.literal if isinstance(second, Text) else None
                if fallback is not None:
                    return Text((), first.address, fallback)
            if first is None or isinstance(first, Text) and first.literal is None and not first.address:
                return second if second is not None else first
            return first
        if operator == "%" and left is not None and left.type == "string":
            arguments = right.named_children if right is not None and right.type == "array" else [right]
            return self._format(left, [a for a in arguments if a is not None])
        return None

    def _format(self, template: tree_sitter.Node, arguments: list[tree_sitter.Node]) -> Text | None:
        whole = self.text(template)
        if whole is None or len(whole.parts) != 1 or not whole.parts[0][0]:
            return whole
        text = whole.parts[0][1]
        out = Text()
        at = index = 0
        for match in _FORMAT.finditer(text):
            out = out + links.literal(text[at : match.start()])
            name = match[1] or match[2]
            if name:
                out = out + links.unknown(name)
            elif index < len(arguments):
                piece = self.text(arguments[index])
                out = out + (piece if piece is not None else links.unknown(_text(arguments[index], self.source)))
                index += 1
            else:
                out = out + links.unknown("")
            at = match.end()
        return out + links.literal(text[at:])

    def _element(self, node: tree_sitter.Node) -> Value:
        owner = node.child_by_field_name("object")
        keys = [child for child in node.named_children if child != owner and child.type != "comment"]
        key = _word(keys[0], self.source) if len(keys) == 1 else None
        if owner is None or key is None:
            return None
        written = _text(owner, self.source)
        if written in ("ENV", "::ENV"):
            return Text((), f"env:{key}")
        config = self._config(owner)
        if config is not None:
            return Text((), f"{config}.{key}" if config != "config:" else f"config:{key}")
        held = self.value(owner)
        if isinstance(held, Handle) and held.kind == "resource" and held.base is not None:
            return Handle("resource", links.base_join(held.base, links.literal(key)))
        return None

    def _config(self, node: tree_sitter.Node) -> str | None:
        """``config:<key>`` of ``Settings.a.b``, ``Rails.configuration.x.a``, ``Rails.application.config.x.a``
        (``config:`` alone for the root itself), else None."""
        chain: list[str] = []
        while node.type == "call" and node.child_by_field_name("arguments") is None:
            chain.append(_text(node.child_by_field_name("method"), self.source))
            receiver = node.child_by_field_name("receiver")
            if receiver is None:
                return None
            node = receiver
        chain.reverse()
        root = _text(node, self.source)
        if root in ("Settings", "AppConfig", "Config", "Configuration"):
            rest = chain
        elif root == "Rails" and chain[:1] == ["configuration"]:
            rest = chain[1:]
        elif root == "Rails" and chain[:2] == ["application", "config"]:
            rest = chain[2:]
        elif root == "Figaro" and chain[:1] == ["env"] and len(chain) == 2:
            return None
        else:
            return None
        if rest[:1] == ["x"]:
            rest = rest[1:]
        if any(word in ("credentials", "secrets", "secret_key_base") for word in rest):
            return None
        return "config:" + ".".join(rest)

    def _call(self, node: tree_sitter.Node) -> Value:
        source = self.source
        method = _method(node, source)
        receiver = node.child_by_field_name("receiver")
        written = _text(receiver, source) if receiver is not None else ""
        positional = _positional(node)
        if receiver is None:
            if method in ("URI", "String") and positional:
                return self.text(positional[0])
            if method in ("format", "sprintf") and positional and positional[0].type == "string":
                return self._format(positional[0], positional[1:])
            held = self._accessor(method, node, arguments=bool(_arguments(node)))
            return held if isinstance(held, Handle) or not _arguments(node) else None
        if written in ("ENV", "::ENV") and method in ("fetch", "[]") and positional:
            name = _word(positional[0], source)
            if name is None:
                return None
            default = ""
            if len(positional) > 1:
                fallback = self.text(positional[1])
                default = fallback.literal or "" if fallback is not None else ""
            else:
                block = node.child_by_field_name("block")
                body = block.child_by_field_name("body") if block is not None else None
                inner = body.named_children if body is not None else []
                if len(inner) == 1:
                    fallback = self.text(inner[0])
                    default = fallback.literal or "" if fallback is not None else ""
            return Text((), f"env:{name}", default)
        if written == "Figaro.env" and not positional:
            return Text((), f"env:{method.upper()}")
        if written in ("URI", "Kernel") and method in ("parse", "encode", "escape", "format", "sprintf") and positional:
            if method in ("format", "sprintf") and positional[0].type == "string":
                return self._format(positional[0], positional[1:])
            return self.text(positional[0])
        if written == "URI" and method == "join" and positional:
            out = self.text(positional[0])
            for piece in positional[1:]:
                part = self.text(piece)
                if out is None or part is None:
                    return None
                out = links.base_join(out, part, replace_path=True)
            return out
        if written == "File" and method == "join" and positional:
            out = self.text(positional[0])
            for piece in positional[1:]:
                part = self.text(piece)
                if out is None or part is None:
                    return None
                out = out + links.literal("/") + part
            return out
        if method in _PASS and not positional:
            held = self.value(receiver)
            return held if isinstance(held, Text) else None
        config = self._config(node)
        if config is not None and config != "config:":
            return Text((), config)
        if written == "self":
            held = self._accessor(method, node, arguments=bool(positional))
            return held if isinstance(held, Handle) or not positional else None
        return self._constructed(node, method, written, receiver, positional)

    def _constructed(
        self,
        node: tree_sitter.Node,
        method: str,
        written: str,
        receiver: tree_sitter.Node | None,
        positional: list[tree_sitter.Node],
    ) -> Value:
        """The client or broker handle a constructor or a factory method makes."""
        options = _options(node, self.source)
        if method == "new" or method == "connect" or method == "start":
            if written in ("Faraday", "Faraday::Connection"):
                url = options.get("url") or (positional[0] if positional else None)
                return Handle("faraday", self.text(url) if url is not None else None)
            if written == "Net::HTTP" and method in ("new", "start") and positional:
                host = self._host(positional[0])
                return Handle("net_http", host)
            if written in ("Excon", "Excon::Connection") and positional:
                return Handle("excon", self.text(positional[0]))
            if written == "RestClient::Resource" and positional:
                return Handle("resource", self.text(positional[0]))
            if written in ("Redis", "Redis::Namespace", "::Redis"):
                return Handle("redis")
            if written == "NATS" or written.startswith("NATS::"):
                return Handle("nats")
            if written == "Bunny":
                return Handle("bunny")
            if written == "Kafka":
                return Handle("kafka")
            if written in ("Rdkafka::Config", "Rdkafka::Config.new"):
                return Handle("rdkafka")
            if written in ("WaterDrop::Producer",):
                return Handle("producer")
            if written == "Bunny::Queue" and len(positional) >= 2:
                return Handle("queue", self.text(positional[1]))
            if written == "Bunny::Exchange" and len(positional) >= 3:
                return Handle("exchange", self.text(positional[2]))
            return None
        if written in ("Redis",) and method == "current":
            return Handle("redis")
        if written in ("Karafka", "WaterDrop") and method == "producer":
            return Handle("producer")
        if written in ("Kafka",) and method == "new":
            return Handle("kafka")
        if written in ("Aws::SQS::Client",) or written in ("Aws::SNS::Client",):
            return None
        held = self.value(receiver) if receiver is not None else None
        if not isinstance(held, Handle):
            return None
        kind = held.kind
        if kind in ("queue", "exchange") and method == "name":
            return held.base
        if kind == "bunny" and method in ("create_channel", "channel"):
            return Handle("channel")
        if kind == "channel":
            if method == "queue":
                return Handle("queue", self.text(positional[0]) if positional else links.literal(""))
            if method in ("fanout", "direct", "topic", "headers", "exchange") and positional:
                return Handle("exchange", self.text(positional[0]))
            if method == "default_exchange":
                return Handle("exchange", links.literal(""))
        if kind in ("kafka", "rdkafka") and method in ("producer", "async_producer"):
            return Handle("producer")
        if kind in ("kafka", "rdkafka") and method == "consumer":
            return Handle("consumer")
        if method in ("dup", "itself", "tap", "then") or kind == "bunny" and method == "start":
            return held
        return None

    def _host(self, node: tree_sitter.Node) -> Text | None:
        """The base address of ``Net::HTTP.new(host, ...)``: a URI's own text for ``uri.host``."""
        if node.type == "call" and _method(node, self.source) in ("host", "hostname"):
            base = self.text(node.child_by_field_name("receiver"))
            if base is not None and base.literal is not None:
                whole = base.literal
                match = re.match(r"^([a-zA-Z][\w+.-]*://[^/?#]*)", whole)
                return links.literal(match[1]) if match else base
            return base
        host = self.text(node)
        if host is not None and host.literal is not None:
            return links.literal("http://" + host.literal)
        return host

    def _identifier(self, node: tree_sitter.Node) -> Value:
        name = _text(node, self.source)
        scope = rrp.enclosing(node, _SCOPES)
        found = self._assigned("local", scope.start_byte, name, node)
        if found is not None:
            return found
        yielded = self._block_parameter(node, name)
        if yielded is not None:
            return yielded
        return self._accessor(name, node)

    def _block_parameter(self, node: tree_sitter.Node, name: str) -> Value:
        """What a block parameter is handed: ``Net::HTTP.start(...) do |http|``, ``NATS.start do |nc|``."""
        block = node.parent
        while block is not None and block.type not in ("block", "do_block", "method", "singleton_method"):
            block = block.parent
        while block is not None and block.type in ("block", "do_block"):
            parameters = block.child_by_field_name("parameters")
            names = [_text(p, self.source) for p in parameters.named_children] if parameters is not None else []
            if name in names:
                call = block.parent
                if names.index(name) == 0 and call is not None and call.type == "call":
                    held = self._call(call)
                    if isinstance(held, Handle) and held.kind in ("net_http", "nats", "channel", "redis"):
                        return held
                    owner = call.child_by_field_name("receiver")
                    if _method(call, self.source) in ("with_channel",) and owner is not None:
                        return Handle("channel")
                return None
            block = block.parent
            while block is not None and block.type not in ("block", "do_block", "method", "singleton_method"):
                block = block.parent
        return None

    def _accessor(self, name: str, node: tree_sitter.Node, arguments: bool = False) -> Value:
        """The value of a ``def name`` of the file whose last expression gives it (a factory when called
        with ``arguments``: ``connection(url)``), or of ``@name``."""
        scope = rrp.enclosing(node, _CLASS_SCOPES)
        for method in self.methods.get(name, ()):
            if rrp.enclosing(method, _CLASS_SCOPES) != scope:
                continue
            parameters = method.child_by_field_name("parameters")
            if not arguments and parameters is not None and parameters.named_child_count:
                continue
            body = method.child_by_field_name("body")
            if body is not None and body.type == "body_statement":
                inner = [child for child in body.named_children if child.type != "comment"]
                body = inner[-1] if inner else None
            if body is not None and body.type in ("assignment", "operator_assignment"):
                body = body.child_by_field_name("right")
            held = self.value(body)
            if held is not None:
                return held
        if arguments:
            return None
        return self._assigned("ivar", scope.start_byte, "@" + name, node)

    def _assigned(self, kind: str, scope: int, name: str, node: tree_sitter.Node) -> Value:
        candidates = self.assignments().get((kind, scope, name), [])
        if not candidates:
            return None
        if kind == "local":
            key = (kind, scope, name)
            starts = self._starts.get(key)
            if starts is None:
                starts = self._starts[key] = [at for at, _ in candidates]
            index = next(iter(links.latest_before(starts, node.start_byte)), None)
            ordered = [candidates[index][1]] if index is not None else []
        else:
            ordered = [value for _, value in candidates[: links.CANDIDATES_MAX]]
        for value in ordered:
            if value.start_byte <= node.start_byte < value.end_byte:
                continue
            held = self.value(value)
            if held is not None and not (isinstance(held, Text) and held.literal is None and not held.address):
                return held
        return None

    def _constant(self, owner: str, name: str, node: tree_sitter.Node) -> Value:
        candidates = self.assignments().get(("constant", 0, name), [])
        for _, value in candidates[: links.CANDIDATES_MAX]:
            if not (value.start_byte <= node.start_byte < value.end_byte):
                held = self.value(value)
                if held is not None:
                    return held
        if _UPPER.match(name):
            return Text((), f"const:{owner}.{name}" if owner else f"const:{name}")
        return None


# -- routes: Rails and Hanami -------------------------------------------------------------------------


@attrs.frozen
class _Resource:
    controller: str
    collection: str
    member: str
    nested: str
    #: where the member routes go when the resource is shallow
    shallow: str


@attrs.frozen
class _Scope:
    #: prefix of every route, resource nesting included
    path: str = ""
    #: the prefix namespaces and scopes give (where shallow routes hang)
    base: str = ""
    #: controller module (``admin/``)
    module: str = ""
    controller: str = ""
    resource: _Resource | None = None
    #: which part of the resource a block is about: nested, member, collection, new
    where: str = "nested"
    shallow: bool = False


_ACTIONS: Final = ("index", "create", "new", "edit", "show", "update", "destroy")


class _RoutesBlocks:
    """Rails ``routes.draw`` blocks and Hanami route classes, read statement by statement."""

    def __init__(self, source: bytes, root: tree_sitter.Node, found: Found, symbols: links.Symbols) -> None:
        self.source = source
        self.root = root
        self.found = found
        self.symbols = symbols
        self.framework = "rails"
        self.found_block = False
        self.concerns: dict[str, list[tree_sitter.Node]] = {}

    def run(self) -> None:
        source = self.source
        if (b"draw" in source or b"prepend" in source or b"append" in source) and b"Karafka" not in source:
            for _, captured in links.matches(_LANG, _DRAW, self.root, source):
                call, receiver = captured["call"][0], captured["routes"][0]
                written = _text(receiver, source)
                if not (written == "routes" or written.endswith(".routes")) or _positional(call):
                    continue
                self.framework = "rails"
                self.found_block = True
                self.walk(_body(call), _Scope(), 0)
        if not self.found_block and _routes_fragment(self.root, source):
            self.framework = "rails"
            self.walk(self.root, _Scope(), 0)
        if b"Hanami" in source:
            self.framework = "hanami"
            for _, captured in links.matches(_LANG, _HANAMI, self.root, source):
                base = _text(captured["base"][0], source)
                if base.endswith(("Hanami::Routes", "Hanami::Router")):
                    self.walk(captured["body"][0], _Scope(), 0)

    def route(self, call: tree_sitter.Node, method: str, path: str, handler: str) -> None:
        symbol = self.symbols.at(call.start_byte)
        fact = HttpRoute(method, _spelled(path), _ts.line(call), handler, symbol, self.framework)
        self.found.add(call.start_byte, fact)

    def walk(self, body: tree_sitter.Node | None, scope: _Scope, depth: int) -> None:
        if depth > _NEST:
            return
        for call in _statements(body):
            if call.child_by_field_name("receiver") is not None:
                continue
            self.statement(call, _method(call, self.source), scope, depth)

    def statement(self, call: tree_sitter.Node, name: str, scope: _Scope, depth: int) -> None:
        source = self.source
        options = _options(call, source)
        positional = _positional(call)
        if name in _ROUTE_VERBS or name == "match":
            self.verb(call, name, scope, options, positional)
        elif name == "root":
            target = options.get("to") or (positional[0] if positional else None)
            handler = self.handler(_word(target, source), scope, options)
            prefix = scope.path if scope.resource is None else scope.resource.collection
            self.route(call, "GET", prefix or "/", handler)
        elif name in ("resources", "resource"):
            for node in positional:
                word = _word(node, source)
                if word:
                    self.resources(call, word, name == "resources", scope, options, depth)
        elif name in ("namespace", "scope", "slice", "controller"):
            self.scoped(call, name, scope, options, positional, depth)
        elif name in ("member", "collection", "new"):
            if scope.resource is not None:
                self.walk(_body(call), attrs.evolve(scope, where=name), depth + 1)
        elif name == "shallow":
            self.walk(_body(call), attrs.evolve(scope, shallow=True), depth + 1)
        elif name == "concern" and positional:
            word = _word(positional[0], source)
            body = _body(call)
            if word and body is not None:
                self.concerns.setdefault(word, []).append(body)
        elif name == "concerns":
            for node in positional:
                self.concern(_word(node, source), scope, depth)
        elif name == "mount":
            self.mount(call, scope, options, positional)
        elif name == "draw" and positional and scope.path:
            # ``draw :admin`` reads config/routes/admin.rb under the current scope
            word = _word(positional[0], source)
            if word:
                fact = HttpRoute("*", _spelled(scope.path), _ts.line(call), "", "", self.framework, f"routes/{word}")
                self.found.add(call.start_byte, fact)
        elif call.child_by_field_name("block") is not None and name not in ("draw", "direct", "resolve"):
            self.walk(_body(call), scope, depth + 1)

    def concern(self, name: str | None, scope: _Scope, depth: int) -> None:
        for body in self.concerns.get(name or "", ()):
            self.walk(body, scope, depth + 1)

    def handler(self, target: str | None, scope: _Scope, options: dict[str, tree_sitter.Node]) -> str:
        source = self.source
        if target and self.framework == "hanami":
            return target
        if target and "#" in target:
            return scope.module + target
        controller = _word(options.get("controller"), source) or target or scope.controller
        action = _word(options.get("action"), source)
        if controller and action:
            return f"{scope.module}{controller}#{action}"
        return ""

    def verb(
        self,
        call: tree_sitter.Node,
        name: str,
        scope: _Scope,
        options: dict[str, tree_sitter.Node],
        positional: list[tree_sitter.Node],
    ) -> None:
        source = self.source
        path_node = positional[0] if positional else None
        target: str | None = None
        arguments = _arguments(call)
        if path_node is None:
            # ``get 'photos' => 'photos#index'``
            rocket = next((a for a in arguments if a.type == "pair"), None)
            key = rocket.child_by_field_name("key") if rocket is not None else None
            if key is not None and key.type in ("string", "simple_symbol"):
                path_node = key
                target = _word(rocket.child_by_field_name("value"), source)
        raw = _word(path_node, source)
        if raw is None:
            if path_node is not None or "to" not in options:
                return
            raw = ""
        if target is None:
            target = _word(options.get("to"), source)
            if "to" in options and target is None:
                target = ""
        if name == "match":
            via = _words(options.get("via"), source) or []
            methods = ["*"] if not via or "all" in via else [v.upper() for v in via]
        else:
            methods = [name.upper()]
        where = _word(options.get("on"), source) or scope.where
        resource = scope.resource
        prefix = scope.path
        if resource is not None:
            if where == "member":
                prefix = resource.shallow if scope.shallow and resource.shallow else resource.member
            elif where == "collection":
                prefix = resource.collection
            elif where == "new":
                prefix = resource.collection + "/new"
            else:
                prefix = resource.nested
        if self.framework == "hanami":
            handler = target or ""
        elif target is not None:
            handler = self.handler(target, scope, options) if target else ""
        else:
            action = _word(options.get("action"), source)
            word = raw.strip("/")
            if action is None and re.fullmatch(r"\w+", word):
                action = word
            controller = _word(options.get("controller"), source) or scope.controller
            if controller and action:
                handler = f"{scope.module}{controller}#{action}"
            elif re.fullmatch(r"\w+/\w+", word) and not scope.controller:
                handler = scope.module + word.replace("/", "#")
            else:
                handler = ""
        path = join_paths(prefix, raw) if raw else prefix or "/"
        for method in methods:
            self.route(call, method, path, handler)

    def scoped(
        self,
        call: tree_sitter.Node,
        name: str,
        scope: _Scope,
        options: dict[str, tree_sitter.Node],
        positional: list[tree_sitter.Node],
        depth: int,
    ) -> None:
        source = self.source
        words = [w for w in (_word(node, source) for node in positional) if w is not None]
        path = module = ""
        controller = scope.controller
        if name == "namespace":
            if not words:
                return
            path = _word(options.get("path"), source) if "path" in options else words[0]
            module = (_word(options.get("module"), source) or words[0]) + "/"
        elif name == "slice":
            path = _word(options.get("at"), source) or ""
        elif name == "controller":
            controller = words[0] if words else controller
            path = _word(options.get("path"), source) or ""
        else:
            path = "/".join(words) or _word(options.get("path"), source) or ""
            module = ((_word(options.get("module"), source) or "") + "/") if "module" in options else ""
            controller = _word(options.get("controller"), source) or controller
        path = path or ""
        inner = attrs.evolve(
            scope,
            path=join_paths(scope.path, path) if path else scope.path,
            base=join_paths(scope.base, path) if path else scope.base,
            module=scope.module + (module if module != "/" else ""),
            controller=controller,
            shallow=scope.shallow or _truthy(options.get("shallow"), source),
        )
        self.walk(_body(call), inner, depth + 1)

    def resources(
        self,
        call: tree_sitter.Node,
        word: str,
        plural: bool,
        scope: _Scope,
        options: dict[str, tree_sitter.Node],
        depth: int,
    ) -> None:
        source = self.source
        segment = _word(options.get("path"), source) or word
        param = ":" + (_word(options.get("param"), source) or "id")
        controller = _word(options.get("controller"), source) or (word if plural else _plural(word))
        module = scope.module + ((_word(options.get("module"), source) or "") + "/" if "module" in options else "")
        parent = scope.resource
        prefix = scope.path
        if parent is not None:
            prefix = {"member": parent.member, "collection": parent.collection}.get(scope.where, parent.nested)
        shallow = scope.shallow and parent is not None
        collection = join_paths(prefix, segment)
        if plural:
            member = join_paths(collection, param)
            nested = join_paths(collection, ":" + _singular(word) + "_" + param[1:])
            shallow_member = join_paths(join_paths(scope.base, segment), param)
        else:
            member = nested = shallow_member = collection
        names = _path_names(options.get("path_names"), source)
        actions = list(_ACTIONS if plural else _ACTIONS[1:])
        only = _words(options.get("only"), source)
        except_ = _words(options.get("except"), source)
        if only is not None:
            actions = [a for a in actions if a in only]
        if except_ is not None:
            actions = [a for a in actions if a not in except_]
        member_at = shallow_member if shallow else member
        handler = f"{module}{controller}#"
        table = {
            "index": [("GET", collection)],
            "create": [("POST", collection)],
            "new": [("GET", join_paths(collection, names.get("new", "new")))],
            "edit": [("GET", join_paths(member_at, names.get("edit", "edit")))],
            "show": [("GET", member_at)],
            "update": [("PATCH", member_at), ("PUT", member_at)],
            "destroy": [("DELETE", member_at)],
        }
        order = ("index", "create", "new", "edit", "show", "update", "destroy") if plural else (
            "new", "edit", "show", "update", "destroy", "create"
        )
        for action in order:
            if action in actions:
                for method, path in table[action]:
                    self.route(call, method, path, handler + action)
        resource = _Resource(controller, collection, member, nested, shallow_member if shallow else "")
        inner = _Scope(
            path=nested,
            base=scope.base,
            module=module,
            controller=controller,
            resource=resource,
            where="nested",
            shallow=scope.shallow or _truthy(options.get("shallow"), source),
        )
        if inner.shallow and resource.shallow == "" and plural:
            resource = attrs.evolve(resource, shallow="")
        for concern in _words(options.get("concerns"), source) or []:
            self.concern(concern, inner, depth)
        self.walk(_body(call), inner, depth + 1)

    def mount(
        self,
        call: tree_sitter.Node,
        scope: _Scope,
        options: dict[str, tree_sitter.Node],
        positional: list[tree_sitter.Node],
    ) -> None:
        source = self.source
        app: tree_sitter.Node | None = positional[0] if positional else None
        at = _word(options.get("at"), source)
        if app is None:
            rocket = next((a for a in _arguments(call) if a.type == "pair"), None)
            key = rocket.child_by_field_name("key") if rocket is not None else None
            if key is not None and key.type in ("constant", "scope_resolution", "call"):
                app = key
                at = _word(rocket.child_by_field_name("value"), source)
        if app is None or at is None:
            return
        written = "".join(_text(app, source).split())
        path = join_paths(scope.path, at)
        fact = HttpRoute("*", _spelled(path), _ts.line(call), "", self.symbols.at(call.start_byte), self.framework, written)
        self.found.add(call.start_byte, fact)


#: what a Rails routes file says at its top level
_RAILS_DSL: Final = frozenset(
    {
        *_ROUTE_VERBS,
        "match",
        "root",
        "resources",
        "resource",
        "namespace",
        "scope",
        "concern",
        "concerns",
        "constraints",
        "defaults",
        "controller",
        "mount",
        "direct",
        "resolve",
        "draw",
        "devise_for",
        "devise_scope",
        "authenticate",
        "authenticated",
        "unauthenticated",
        "shallow",
        "use_doorkeeper",
    }
)
_RAILS_STRUCTURE: Final = frozenset({"resources", "resource", "namespace", "scope", "concern", "constraints"})


def _routes_fragment(root: tree_sitter.Node, source: bytes) -> bool:
    """Whether a whole file is routes DSL (``config/routes/*.rb`` read by ``draw :name``): only routes
    statements at its top level, among them a resource, namespace or scope block."""
    if b"resource" not in source and b"namespace" not in source and b"scope" not in source:
        return False
    structure = False
    for child in root.named_children:
        if child.type == "comment":
            continue
        if child.type != "call" or child.child_by_field_name("receiver") is not None:
            return False
        name = _method(child, source)
        if name not in _RAILS_DSL:
            return False
        structure = structure or name in _RAILS_STRUCTURE
    return structure


def _truthy(node: tree_sitter.Node | None, source: bytes) -> bool:
    return node is not None and _text(node, source) == "true"


def _path_names(node: tree_sitter.Node | None, source: bytes) -> dict[str, str]:
    names: dict[str, str] = {}
    if node is None or node.type != "hash":
        return names
    for pair in node.named_children:
        if pair.type == "pair":
            word = _word(pair.child_by_field_name("value"), source)
            if word:
                names[_key(pair, source)] = word
    return names


# -- routes: Grape ------------------------------------------------------------------------------------


_GRAPE_NAMESPACES: Final = frozenset({"namespace", "resource", "resources", "group", "segment"})


def _grape(source: bytes, root: tree_sitter.Node, found: Found, symbols: links.Symbols) -> None:
    pattern = "(class superclass: (superclass (_) @base) body: (_) @body) @class"
    for _, captured in links.matches(_LANG, pattern, root, source):
        base = _text(captured["base"][0], source)
        if base.endswith(("Grape::API", "Grape::API::Instance")):
            _Grape(source, found, symbols).walk(captured["body"][0], "", 0)


class _Grape:
    def __init__(self, source: bytes, found: Found, symbols: links.Symbols) -> None:
        self.source = source
        self.found = found
        self.symbols = symbols
        self.prefix = ""
        self.version = ""

    def walk(self, body: tree_sitter.Node | None, path: str, depth: int) -> None:
        if depth > _NEST:
            return
        source = self.source
        for call in _statements(body):
            if call.child_by_field_name("receiver") is not None:
                continue
            name = _method(call, source)
            positional = _positional(call)
            options = _options(call, source)
            first = _word(positional[0], source) if positional else None
            if name == "prefix" and first is not None:
                self.prefix = first
            elif name == "version" and first is not None:
                using = _word(options.get("using"), source)
                if using in (None, "path"):
                    self.version = first
            elif name in _GRAPE_NAMESPACES:
                self.walk(_body(call), join_paths(path, first) if first else path, depth + 1)
            elif name == "route_param" and first is not None:
                self.walk(_body(call), join_paths(path, ":" + first), depth + 1)
            elif name in _ROUTE_VERBS or name == "route":
                if name == "route":
                    verbs = _words(positional[0], source) if positional else None
                    if not verbs:
                        continue
                    methods = ["*" if v.lower() == "any" else v.upper() for v in verbs]
                    raw = _word(positional[1], source) if len(positional) > 1 else ""
                else:
                    methods = [name.upper()]
                    raw = first if first is not None else ("" if not positional else None)
                if raw is None:
                    continue
                whole = _template(self.prefix, self.version, path, raw)
                for method in methods:
                    fact = HttpRoute(method, whole, _ts.line(call), "", self.symbols.at(call.start_byte), "grape")
                    self.found.add(call.start_byte, fact)
            elif name == "mount":
                self.mount(call, path, positional)
            elif name in ("params", "desc", "helpers", "before", "after", "rescue_from"):
                continue

    def mount(self, call: tree_sitter.Node, path: str, positional: list[tree_sitter.Node]) -> None:
        source = self.source
        app, at = (positional[0] if positional else None), ""
        if app is None:
            rocket = next((a for a in _arguments(call) if a.type == "pair"), None)
            if rocket is None:
                return
            app = rocket.child_by_field_name("key")
            at = _word(rocket.child_by_field_name("value"), source) or ""
        if app is None or app.type not in ("constant", "scope_resolution"):
            return
        whole = _template(self.prefix, self.version, path, at)
        fact = HttpRoute("*", whole, _ts.line(call), "", self.symbols.at(call.start_byte), "grape", _text(app, source))
        self.found.add(call.start_byte, fact)


# -- routes: Sinatra ----------------------------------------------------------------------------------


def _sinatra(source: bytes, root: tree_sitter.Node, found: Found, symbols: links.Symbols) -> None:
    """``get '/x' do ... end`` in a file using Sinatra, under its ``namespace '/p' do`` blocks."""
    if not (b"require 'sinatra" in source or b'require "sinatra' in source or b"Sinatra::" in source):
        return
    for _, captured in links.matches(_LANG, _SINATRA, root, source):
        call, path = captured["call"][0], captured["path"][0]
        receiver = call.child_by_field_name("receiver")
        method = rrp.enclosing(call, ("method", "singleton_method", "program"))
        if method.type != "program":
            # routes live in a class body or a block; in a method, only an extension's ``app.get``
            name = _text(method.child_by_field_name("name"), source)
            if receiver is None or receiver.type != "identifier" or name != "registered":
                continue
        elif receiver is not None and receiver.type != "self":
            continue
        raw = _word(path, source)
        if raw is None or path.type == "regex":
            continue
        prefixes = []
        node = call.parent
        while node is not None:
            if node.type == "call" and _method(node, source) == "namespace":
                positional = _positional(node)
                word = _word(positional[0], source) if positional else None
                if word is not None:
                    prefixes.append(word)
            node = node.parent
        whole = _template(*reversed(prefixes), raw)
        method = _method(call, source).upper()
        fact = HttpRoute(method, whole, _ts.line(call), "", symbols.at(call.start_byte), "sinatra")
        found.add(call.start_byte, fact)


# -- calls and messages -------------------------------------------------------------------------------


_NET_HTTP_CLASSES: Final = {
    "Get": "GET",
    "Post": "POST",
    "Put": "PUT",
    "Patch": "PATCH",
    "Delete": "DELETE",
    "Head": "HEAD",
    "Options": "OPTIONS",
}
_NET_HTTP_MODULE: Final = {
    "get": "GET",
    "get_response": "GET",
    "get_print": "GET",
    "post": "POST",
    "post_form": "POST",
    "put": "PUT",
    "patch": "PATCH",
    "delete": "DELETE",
}
_INSTANCE_VERBS: Final = {
    "get": "GET",
    "post": "POST",
    "put": "PUT",
    "patch": "PATCH",
    "delete": "DELETE",
    "head": "HEAD",
    "options": "OPTIONS",
    "request_get": "GET",
    "request_post": "POST",
    "request_head": "HEAD",
}
_SHORT_VERBS: Final = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})
_MODULE_CLIENTS: Final = {
    "Faraday": "faraday",
    "HTTParty": "httparty",
    "RestClient": "rest-client",
    "HTTP": "http.rb",
    "Excon": "excon",
    "Typhoeus": "typhoeus",
}


class _Calls:
    def __init__(
        self,
        source: bytes,
        root: tree_sitter.Node,
        found: Found,
        symbols: links.Symbols,
        values: _Values,
        *,
        http: bool,
        messages: bool,
    ) -> None:
        self.source = source
        self.root = root
        self.found = found
        self.symbols = symbols
        self.values = values
        self.http = http
        self.messages = messages
        self.kafka = any(hint in source for hint in (b"Kafka", b"kafka", b"WaterDrop", b"Karafka", b"Racecar"))
        self.bunny = b"unny" in source
        self.redis = b"edis" in source
        self.nats = b"NATS" in source or b"nats" in source
        #: class start byte -> base_uri of an HTTParty class (None when it has none)
        self.httparty: dict[int, Text | None] = {}
        #: class name -> start byte of the HTTParty class
        self.httparty_names: dict[str, int] = {}
        if b"HTTParty" in source:
            self.httparty_classes()

    def run(self) -> None:
        for _, captured in links.matches(_LANG, _CALLS, self.root, self.source):
            call = captured["call"][0]
            name = _text(captured["method"][0], self.source)
            if self.http:
                self.http_call(call, name)
            if self.messages:
                self.message(call, name)

    def line_symbol(self, node: tree_sitter.Node) -> tuple[int, str]:
        return _ts.line(node), self.symbols.at(node.start_byte)

    def add_call(self, call: tree_sitter.Node, method: str, url: Text, client: str) -> None:
        line, symbol = self.line_symbol(call)
        self.found.add(call.start_byte, links.http_call(method, url, line, symbol, client))

    # -- HTTP ---------------------------------------------------------------------------------------

    def httparty_classes(self) -> None:
        pattern = (
            '(call method: (identifier) @m (#eq? @m "include")'
            ' arguments: (argument_list (constant) @c (#eq? @c "HTTParty"))) @call'
        )
        for _, captured in links.matches(_LANG, pattern, self.root, self.source):
            holder = rrp.enclosing(captured["call"][0], ("class", "module"))
            if holder.type not in ("class", "module"):
                continue
            base: Text | None = None
            body = holder.child_by_field_name("body")
            for call in _statements(body):
                if _method(call, self.source) == "base_uri" and call.child_by_field_name("receiver") is None:
                    positional = _positional(call)
                    if positional:
                        base = self.values.text(positional[0])
            self.httparty[holder.start_byte] = base
            name = _text(holder.child_by_field_name("name"), self.source).rsplit("::", 1)[-1]
            self.httparty_names.setdefault(name, holder.start_byte)

    def url(self, node: tree_sitter.Node | None) -> Text:
        if node is None:
            return Text()
        return self.values.text(node) or links.unknown(_text(node, self.source))

    def http_call(self, call: tree_sitter.Node, name: str) -> None:
        source = self.source
        receiver = call.child_by_field_name("receiver")
        positional = _positional(call)
        options = _options(call, source)
        written = "".join(_text(receiver, source).split()) if receiver is not None else ""
        if written == "Net::HTTP" and name in _NET_HTTP_MODULE and positional:
            first = positional[0]
            if len(positional) >= 2 and name in ("get", "get_response", "get_print") and first.type == "string":
                host = self.values.text(first)
                url = (links.literal("http://") + host + self.url(positional[1])) if host is not None else Text()
            else:
                url = self.url(first)
            self.add_call(call, _NET_HTTP_MODULE[name], url, "net/http")
            return
        if name == "new" and written.startswith("Net::HTTP::") and written[11:] in _NET_HTTP_CLASSES:
            target = self.url(positional[0]) if positional else Text()
            base = self.net_http_base(call)
            self.add_call(call, _NET_HTTP_CLASSES[written[11:]], links.base_join(base, target), "net/http")
            return
        if name == "new" and written == "Typhoeus::Request" and positional:
            method = (_word(options.get("method"), source) or "get").upper()
            self.add_call(call, method if method in HTTP_METHODS else "*", self.url(positional[0]), "typhoeus")
            return
        if name == "execute" and written == "RestClient::Request":
            method = (_word(options.get("method"), source) or "").upper()
            self.add_call(call, method if method in HTTP_METHODS else "*", self.url(options.get("url")), "rest-client")
            return
        verb = _INSTANCE_VERBS.get(name)
        if name in ("run_request", "request") and positional:
            word = _word(positional[0], source)
            verb = word.upper() if word and word.upper() in HTTP_METHODS else None
            positional = positional[1:]
        if verb is None:
            return
        if receiver is None or receiver.type == "self" or written == "self.class":
            self.httparty_call(call, verb, positional)
            return
        held = self.values.value(receiver)
        module = _MODULE_CLIENTS.get(_root_constant(receiver, source))
        if not isinstance(held, Handle) and module is not None and name in _SHORT_VERBS:
            # ``Faraday.get(url)``, ``HTTP.headers(...).get(url)``: a module's own request functions
            if positional and not written.startswith("Net::"):
                self.add_call(call, verb, self.url(positional[0]), module)
            return
        if not isinstance(held, Handle):
            holder = self.httparty_of_constant(written)
            if holder is not None:
                self.httparty_call(call, verb, positional, holder)
            return
        if held.kind == "faraday":
            path = self.url(positional[0]) if positional else self.block_url(call)
            self.add_call(call, verb, links.base_join(held.base, path, replace_path=True), "faraday")
        elif held.kind == "net_http" and name in _INSTANCE_VERBS and positional:
            self.add_call(call, verb, links.base_join(held.base, self.url(positional[0])), "net/http")
        elif held.kind == "excon":
            path = options.get("path")
            url = links.base_join(held.base, self.url(path), replace_path=True) if path is not None else held.base
            self.add_call(call, verb, url or Text(), "excon")
        elif held.kind == "resource" and not positional or held.kind == "resource" and name in ("post", "put", "patch"):
            self.add_call(call, verb, held.base or Text(), "rest-client")

    def block_url(self, call: tree_sitter.Node) -> Text:
        """``conn.get do |req| req.url '/x' end``: the path the block sets, else unknown."""
        for inner in _statements(_body(call)):
            if _method(inner, self.source) == "url" and inner.child_by_field_name("receiver") is not None:
                positional = _positional(inner)
                if positional:
                    return self.url(positional[0])
        return Text()

    def net_http_base(self, call: tree_sitter.Node) -> Text | None:
        """The base of the ``Net::HTTP`` object a request is sent with: the ``Net::HTTP.start`` block
        around it, else the one ``Net::HTTP.new``/``start`` of its method."""
        node = call.parent
        while node is not None and node.type not in ("method", "singleton_method", "program"):
            if node.type == "call" and _text(node.child_by_field_name("receiver"), self.source) == "Net::HTTP":
                if _method(node, self.source) == "start" and node.child_by_field_name("block") is not None:
                    held = self.values.value(node)
                    return held.base if isinstance(held, Handle) else None
            node = node.parent
        scope = node if node is not None else self.root
        bases = []
        for key, assigned in self.values.assignments().items():
            if key[0] == "local" and key[1] == scope.start_byte:
                for _, value in assigned:
                    if value.type == "call" and _text(value.child_by_field_name("receiver"), self.source) == "Net::HTTP":
                        held = self.values.value(value)
                        if isinstance(held, Handle):
                            bases.append(held.base)
        return bases[0] if len(bases) == 1 else None

    def httparty_of_constant(self, written: str) -> int | None:
        """The HTTParty class of this file named ``written`` (``OrdersClient.get(...)``)."""
        return self.httparty_names.get(written.rsplit("::", 1)[-1]) if written else None

    def httparty_call(
        self, call: tree_sitter.Node, verb: str, positional: list[tree_sitter.Node], holder: int | None = None
    ) -> None:
        if not self.httparty or not positional:
            return
        if holder is None:
            owner = rrp.enclosing(call, ("class", "module"))
            holder = owner.start_byte if owner.type in ("class", "module") else None
        if holder is None or holder not in self.httparty:
            return
        base = self.httparty[holder]
        self.add_call(call, verb, links.base_join(base, self.url(positional[0])), "httparty")

    # -- messages -----------------------------------------------------------------------------------

    def add_message(
        self, node: tree_sitter.Node, role: str, broker: str, name: Text | None, kind: str, client: str
    ) -> None:
        line, symbol = self.line_symbol(node)
        self.found.add(node.start_byte, links.message(role, broker, name, line, kind, symbol, client))

    def message(self, call: tree_sitter.Node, name: str) -> None:
        source = self.source
        receiver = call.child_by_field_name("receiver")
        positional = _positional(call)
        options = _options(call, source)
        written = "".join(_text(receiver, source).split()) if receiver is not None else ""
        held = self.values.value(receiver) if receiver is not None else None
        kind = held.kind if isinstance(held, Handle) else ""
        produce, consume = MessageRole.PRODUCE, MessageRole.CONSUME
        if name == "publish":
            if kind == "exchange" and held is not None:
                exchange = held.base
                if exchange is not None and exchange.literal == "":
                    self.add_message(call, produce, "rabbitmq", self.text(options.get("routing_key")), "queue", "bunny")
                else:
                    self.add_message(call, produce, "rabbitmq", exchange, "exchange", "bunny")
            elif written in ("Sneakers", "Sneakers::Publisher.new") or "to_queue" in options and b"Sneakers" in source:
                self.add_message(call, produce, "rabbitmq", self.text(options.get("to_queue")), "queue", "sneakers")
            elif written == "Hutch" and positional:
                self.add_message(call, produce, "rabbitmq", self.text(positional[0]), "routing_key", "hutch")
            elif positional and (kind == "redis" or kind == "" and self.redis and _names(written, "redis")):
                self.add_message(call, produce, "redis", self.text(positional[0]), "channel", "redis")
            elif positional and (kind == "nats" or kind == "" and self.nats and _names(written, "nats", "nc")):
                self.add_message(call, produce, "nats", self.text(positional[0]), "subject", "nats")
            elif "topic_arn" in options and b"SNS" in source:
                arn = self.text(options.get("topic_arn"))
                self.add_message(call, produce, "sns", links.last_segment(arn, "arn"), "topic", "aws-sdk")
        elif name in ("subscribe", "psubscribe", "queue_subscribe"):
            if kind == "queue" and held is not None:
                self.add_message(call, consume, "rabbitmq", held.base, "queue", "bunny")
            elif kind == "consumer" or kind == "" and self.kafka and _names(written, "consumer"):
                for topic in positional:
                    self.add_message(topic, consume, "kafka", self.text(topic), "topic", "kafka")
            elif kind == "redis" or kind == "" and self.redis and _names(written, "redis"):
                for channel in positional:
                    self.add_message(channel, consume, "redis", self.text(channel), "channel", "redis")
            elif positional and (kind == "nats" or kind == "" and self.nats and _names(written, "nats", "nc")):
                self.add_message(call, consume, "nats", self.text(positional[0]), "subject", "nats")
        elif name == "pop" and kind == "queue" and held is not None:
            self.add_message(call, consume, "rabbitmq", held.base, "queue", "bunny")
        elif name == "bind" and kind == "queue" and positional:
            exchange = self.values.value(positional[0])
            target = exchange.base if isinstance(exchange, Handle) and exchange.kind == "exchange" else None
            if target is None and isinstance(exchange, Text):
                target = exchange
            if target is not None and target.literal != "":
                self.add_message(call, consume, "rabbitmq", target, "exchange", "bunny")
        elif name in ("produce", "produce_sync", "produce_async", "deliver_message") and self.kafka:
            if "topic" in options and (receiver is not None or name == "deliver_message"):
                self.add_message(call, produce, "kafka", self.text(options["topic"]), "topic", "kafka")
        elif name == "each_message" and self.kafka and "topic" in options and kind in ("kafka", ""):
            self.add_message(call, consume, "kafka", self.text(options["topic"]), "topic", "kafka")
        elif receiver is None and name == "from_queue" and b"Sneakers" in source and positional:
            self.add_message(call, consume, "rabbitmq", self.text(positional[0]), "queue", "sneakers")
        elif receiver is None and name == "consume" and b"Hutch" in source and positional:
            self.add_message(call, consume, "rabbitmq", self.text(positional[0]), "routing_key", "hutch")
        elif receiver is None and name == "subscribes_to" and b"Racecar" in source:
            for topic in positional:
                self.add_message(topic, consume, "kafka", self.text(topic), "topic", "racecar")
        elif receiver is None and name == "topic" and b"Karafka" in source and positional:
            body = _body(call)
            if body is not None and any(_method(c, source) == "consumer" for c in _statements(body)):
                self.add_message(call, consume, "kafka", self.text(positional[0]), "topic", "karafka")
        elif name in ("send_message", "send_message_batch", "receive_message") and b"SQS" in source:
            url = self.text(options.get("queue_url")) if "queue_url" in options else None
            role = consume if name == "receive_message" else produce
            self.add_message(call, role, "sqs", links.last_segment(url, "url"), "queue", "aws-sdk")
        elif receiver is None and name == "shoryuken_options" and "queue" in options:
            self.add_message(call, consume, "sqs", self.text(options["queue"]), "queue", "shoryuken")

    def text(self, node: tree_sitter.Node | None) -> Text | None:
        return self.values.text(node) if node is not None else None


def _root_constant(node: tree_sitter.Node, source: bytes) -> str:
    """The constant a receiver chain starts from (``HTTP`` of ``HTTP.headers(...).timeout(3)``)."""
    while node.type == "call":
        receiver = node.child_by_field_name("receiver")
        if receiver is None:
            return ""
        node = receiver
    return "".join(_text(node, source).split()) if node.type in ("constant", "scope_resolution") else ""


def _names(written: str, *words: str) -> bool:
    """Whether a receiver as written names one of ``words`` (``@redis``, ``$redis``, ``redis_client``)."""
    parts = [part for part in re.split(r"[^a-z0-9]+", written.lower()) if part]
    return any(word in parts or len(word) > 3 and any(word in part for part in parts) for word in words)
