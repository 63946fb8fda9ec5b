"""Rust links: HTTP routes, HTTP calls, messages and link constants of one file.

Theory of operation: rules run only when the file names their crate (``actix_web``, ``axum``,
``rocket``, ``warp``, ``reqwest``, ``hyper``, ``surf``, ``ureq``, ``rdkafka``, ``lapin``, ``nats``,
``redis``), found with ``bytes.find``; each rule is one compiled query over the tree already parsed.

Routes: attribute routes (``#[get("/x")]`` of actix-web and Rocket, ``#[route("/x", method = "GET")]``),
actix-web builders (``web::resource("/x").route(web::get().to(h))``, ``.route("/x", web::post().to(h))``),
axum method routers (``.route("/x", get(h).post(h2))``) and warp's ``path!`` (best effort). A route's
prefixes are found by climbing from it: inside the arguments of a ``.service(...)``/``.configure(...)``
of a ``web::scope("/p")`` chain, or of a ``.nest("/p", ...)``, the prefix applies; a route built in a
``fn`` or a ``let`` of the file that is nested elsewhere in the file takes that nest's prefix (and the
prefixes around it); a handler function listed in ``.service(h)`` or Rocket's ``mount("/p",
routes![h])`` takes theirs. What is nested or mounted from another module (``.nest("/p",
users::router())``, ``routes![users::list]``) is a mount of that module, spelled through the file's
``use`` declarations.

Calls and messages: :class:`_Values` reads what an expression holds: string literals, ``format!``,
``+``, ``env::var``/``env!`` (``env:``, with the ``unwrap_or`` default), configuration fields
(``config.orders_url``: ``config:``), constants (of the file, else ``const:``), ``let`` bindings,
struct fields initialised in the file, and the typed parameters, fields and ``let``\\s that hold a
client or a broker connection.
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

__all__ = ["extract"]

_LANG: Final = "rust"
_NEST: Final = 16
#: At most this many prefixes for one route (a router nested in many places).
_PREFIXES_MAX: Final = 16

_VERBS: Final = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "trace", "connect"})
_PASS: Final = frozenset(
    {
        "to_string",
        "to_owned",
        "into",
        "as_str",
        "as_ref",
        "clone",
        "unwrap",
        "expect",
        "borrow",
        "as_deref",
        "trim",
        "trim_end_matches",
        "to_lowercase",
        "parse",
    }
)
_WRAPPERS: Final = frozenset({"reference_expression", "try_expression", "await_expression", "parenthesized_expression"})
_UPPER: Final = re.compile(r"^[A-Z][A-Z0-9_]*$")
_FORMAT: Final = re.compile(r"\{\{|\}\}|\{([^{}:]*)(?::[^{}]*)?\}")
_CONFIG_ROOTS: Final = frozenset({"config", "cfg", "conf", "settings", "app_config", "CONFIG", "SETTINGS", "CFG"})
_TEST_ATTRIBUTES: Final = re.compile(rb"#\[\s*(?:[\w:]+::)?test\b|#\[\s*cfg\s*\(\s*test\s*\)")

_HTTP_HINTS: Final = (b"reqwest", b"hyper", b"surf", b"ureq", b"awc", b"isahc", b"attohttpc", b"http::Request")
_MESSAGE_HINTS: Final = (b"rdkafka", b"kafka", b"lapin", b"nats", b"redis")
_ROUTE_HINTS: Final = (b"actix", b"axum", b"rocket", b"warp", b"Router", b"web::")

_ATTRIBUTES: Final = """
(attribute_item (attribute [(identifier) (scoped_identifier)] @name arguments: (token_tree) @arguments)) @item
"""
_BUILDERS: Final = """
(call_expression function: (field_expression field: (field_identifier) @method
   (#any-of? @method "route" "nest" "nest_service" "route_service" "mount" "service" "configure"))
   arguments: (arguments) @arguments) @call
(call_expression function: [(scoped_identifier name: (identifier) @method) (identifier) @method]
   (#any-of? @method "resource" "scope")
   arguments: (arguments . [(string_literal) (raw_string_literal)]) @arguments) @call
(macro_invocation macro: [(scoped_identifier name: (identifier) @method) (identifier) @method]
   (#eq? @method "path") (token_tree) @arguments) @call
"""
_CALLS: Final = """
(call_expression function: [(field_expression field: (field_identifier) @method)
                            (scoped_identifier name: (identifier) @method)
                            (generic_function function: (field_expression field: (field_identifier) @method))]
  (#any-of? @method "get" "post" "put" "patch" "delete" "head" "request" "uri" "to" "subscribe" "publish"
    "queue_subscribe" "basic_publish" "basic_consume" "queue_bind" "from_value" "from_key_value" "with_topic"
    "send_message" "receive_message")
  arguments: (arguments) @arguments) @call
"""
_WARP_FILTERS: Final = "(call_expression function: (scoped_identifier path: (identifier) @crate name: (identifier) @verb)) @call"
_BINDINGS: Final = """
[(let_declaration pattern: (identifier) @name type: (_)? @type value: (_)? @value) @site
 (const_item name: (identifier) @name value: (_) @value) @site
 (static_item name: (identifier) @name value: (_) @value) @site
 (parameter pattern: (identifier) @name type: (_) @type) @site
 (field_declaration name: (field_identifier) @name type: (_) @type) @site
 (field_initializer field: (field_identifier) @name value: (_) @value) @site
 (shorthand_field_initializer (identifier) @name) @site]
"""


def extract(
    source: bytes, root: tree_sitter.Node, uses: list[tuple[str, str]], spans: list[tuple[int, int, str]]
) -> Links:
    """The link facts of one Rust file (``uses``: the (path, alias) pairs its ``use``\\s bring in;
    ``spans``: the (start, end, dotted name) of its items)."""
    found = Found()
    symbols = links.Symbols(spans)
    http = any(hint in source for hint in _HTTP_HINTS)
    messages = any(hint in source for hint in _MESSAGE_HINTS)
    routes = any(hint in source for hint in _ROUTE_HINTS)
    constants = b"const " in source or b"static " in source
    if not (http or messages or routes or constants):
        return found.done()
    values = _Values(source, root, uses)
    if constants:
        _constants(source, found, values)
    if routes:
        _Routes(source, root, found, symbols, uses).run()
    if http or messages:
        _Calls(source, root, found, symbols, values).run()
    return found.done()


def _text(node: tree_sitter.Node | None, source: bytes) -> str:
    return _ts.text(node, source)


def _squash(text: str) -> str:
    return "".join(text.split())


def _arguments(node: tree_sitter.Node | None) -> list[tree_sitter.Node]:
    if node is None:
        return []
    return [child for child in node.named_children if child.type not in ("line_comment", "block_comment", "attribute_item")]


def _call_arguments(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    return _arguments(call.child_by_field_name("arguments"))


def _string(node: tree_sitter.Node | None, source: bytes) -> str | None:
    """A plain string literal's text (None: not one)."""
    while node is not None and node.type in _WRAPPERS:
        inner = node.named_children
        node = inner[-1] if inner else None
    if node is None or node.type not in ("string_literal", "raw_string_literal"):
        return None
    return "".join(_text(part, source) for part in node.named_children if part.type == "string_content")


def _segments(path: str) -> list[str]:
    return [segment for segment in re.sub(r"<[^<>]*>", "", path).split("::") if segment]


def _callee(call: tree_sitter.Node, source: bytes) -> str:
    """``a::b::f`` of ``a::b::f(...)`` / ``a::b::f::<T>(...)``, "" for a method call."""
    function = call.child_by_field_name("function")
    if function is not None and function.type == "generic_function":
        function = function.child_by_field_name("function")
    if function is None or function.type not in ("identifier", "scoped_identifier"):
        return ""
    return _squash(_text(function, source))


def _method_of(call: tree_sitter.Node, source: bytes) -> tuple[str, tree_sitter.Node | None]:
    """(method, receiver) of ``receiver.method(...)``; ("", None) otherwise."""
    function = call.child_by_field_name("function")
    if function is not None and function.type == "generic_function":
        function = function.child_by_field_name("function")
    if function is None or function.type != "field_expression":
        return "", None
    return _text(function.child_by_field_name("field"), source), function.child_by_field_name("value")


def _chain_root(node: tree_sitter.Node, source: bytes) -> tree_sitter.Node:
    """The start of a method chain (``web::scope("/p")`` of ``web::scope("/p").service(a).service(b)``)."""
    while True:
        if node.type in _WRAPPERS and node.named_child_count:
            node = node.named_children[0]
            continue
        if node.type != "call_expression":
            return node
        method, receiver = _method_of(node, source)
        if receiver is None:
            return node
        node = receiver


def _in_test(node: tree_sitter.Node, source: bytes) -> bool:
    """Whether ``node`` is in a ``#[test]`` function or a ``#[cfg(test)]`` module."""
    parent = node.parent
    while parent is not None:
        if parent.type in ("function_item", "mod_item"):
            sibling = parent.prev_named_sibling
            while sibling is not None and sibling.type in ("attribute_item", "line_comment", "block_comment"):
                if sibling.type == "attribute_item" and _TEST_ATTRIBUTES.search(source[sibling.start_byte : sibling.end_byte]):
                    return True
                sibling = sibling.prev_named_sibling
        parent = parent.parent
    return False


# -- constants ----------------------------------------------------------------------------------------


def _constants(source: bytes, found: Found, values: _Values) -> None:
    """``const``/``static`` string items of a module (``NAME``) or an ``impl`` (``Type.NAME``) whose name
    says they name a link; those of a function body are its own."""
    for site, name, value in values.items():
        if site.type not in ("const_item", "static_item"):
            continue
        whole = _string(value, source)
        parent = site.parent
        if whole is None or parent is None:
            continue
        owner = ""
        if parent.type == "declaration_list":
            holder = parent.parent
            if holder is not None and holder.type == "impl_item":
                owner = _type_name(holder.child_by_field_name("type"), source)
            elif holder is None or holder.type != "mod_item":
                continue
        elif parent.type != "source_file":
            continue
        text = _text(name, source)
        if links.is_link_constant(text, owner, whole):
            found.add(site.start_byte, Constant(f"{owner}.{text}" if owner else text, whole, _ts.line(site)))


def _type_name(node: tree_sitter.Node | None, source: bytes) -> str:
    """``Api`` of ``Api``, ``a::Api<T>``."""
    parts = _segments(_squash(_text(node, source)))
    return parts[-1] if parts else ""


# -- values -------------------------------------------------------------------------------------------



#: type names (last path segment) that hold a handle of each kind, when the file names its crate
_TYPES: Final = {
    "reqwest": ("Client", "ClientWithMiddleware"),
    "hyper": ("Client",),
    "surf": ("Client",),
    "ureq": ("Agent",),
    "nats": ("Client", "Connection", "Context"),
    "redis": ("Connection", "MultiplexedConnection", "ConnectionManager", "PubSub", "Client", "AsyncConnection"),
    "kafka": ("StreamConsumer", "BaseConsumer", "FutureProducer", "BaseProducer", "ThreadedProducer", "Consumer"),
}


class _Values(Evaluator):
    """What expressions hold, read from the file's ``let``\\s, constants, typed parameters and fields."""

    def __init__(self, source: bytes, root: tree_sitter.Node, uses: list[tuple[str, str]]) -> None:
        super().__init__(source)
        self.root = root
        #: local name -> the full path a ``use`` gives it
        self.uses: dict[str, str] = {}
        for path, alias in uses:
            parts = _segments(path)
            if parts and parts[-1] not in ("*", "self"):
                self.uses[alias or parts[-1]] = "::".join(parts)
        self._items: list[tuple[tree_sitter.Node, tree_sitter.Node, tree_sitter.Node | None]] | None = None
        self._types: dict[tuple[int, int], Handle | None] = {}
        self._fields: dict[str, Value] = {}
        self._by_name: dict[str, list[tuple[tree_sitter.Node, tree_sitter.Node | None, tree_sitter.Node | None]]] = {}
        #: local name -> (start bytes, (site, value, type)) of its ``let``\s and parameters, in source order
        self._locals: dict[
            str, tuple[list[int], list[tuple[tree_sitter.Node, tree_sitter.Node | None, tree_sitter.Node | None]]]
        ] = {}

    def items(self) -> list[tuple[tree_sitter.Node, tree_sitter.Node, tree_sitter.Node | None]]:
        """(site, name, value) of every binding of the file."""
        if self._items is None:
            self._items = []
            for _, captured in links.matches(_LANG, _BINDINGS, self.root, self.source):
                site, name = captured["site"][0], captured["name"][0]
                value = captured["value"][0] if "value" in captured else None
                typed = captured["type"][0] if "type" in captured else None
                if site.type == "shorthand_field_initializer":
                    value = name
                self._items.append((site, name, value))
                written = _text(name, self.source)
                self._by_name.setdefault(written, []).append((site, value, typed))
                if site.type in ("let_declaration", "parameter"):
                    starts, entries = self._locals.setdefault(written, ([], []))
                    starts.append(site.start_byte)
                    entries.append((site, value, typed))
        return self._items

    def crate(self, written: str) -> str:
        """The full path of a name as written, through the file's ``use``\\s."""
        parts = _segments(_squash(written))
        if parts and parts[0] in self.uses:
            return "::".join([self.uses[parts[0]], *parts[1:]])
        return "::".join(parts)

    def _value(self, node: tree_sitter.Node) -> Value:
        source = self.source
        kind = node.type
        if kind in _WRAPPERS:
            inner = node.child_by_field_name("value") if kind == "reference_expression" else None
            if inner is None and node.named_child_count:
                inner = node.named_children[0]
            return self.value(inner)
        if kind in ("string_literal", "raw_string_literal"):
            return links.literal(_string(node, source) or "")
        if kind == "macro_invocation":
            return self._macro(node)
        if kind == "binary_expression":
            if _text(node.child_by_field_name("operator"), source) != "+":
                return None
            first, second = self.text(node.child_by_field_name("left")), self.text(node.child_by_field_name("right"))
            return first + second if first is not None and second is not None else None
        if kind == "identifier":
            return self._name(_text(node, source), node)
        if kind == "scoped_identifier":
            return self._scoped(node)
        if kind == "field_expression":
            return self._field(node)
        if kind == "call_expression":
            return self._call(node)
        if kind == "block":
            inner = [c for c in node.named_children if c.type not in ("line_comment", "block_comment")]
            return self.value(inner[-1]) if inner and inner[-1].type != "expression_statement" else None
        if kind == "closure_expression":
            return self.value(node.child_by_field_name("body"))
        return None

    def _macro(self, node: tree_sitter.Node) -> Value:
        source = self.source
        name = _squash(_text(node.child_by_field_name("macro"), source)).rsplit("::", 1)[-1]
        tree = next((c for c in node.named_children if c.type == "token_tree"), None)
        groups = self._groups(tree)
        if name in ("env", "option_env") and groups:
            key = _string(groups[0][0], source) if len(groups[0]) == 1 else None
            return Text((), f"env:{key}") if key else None
        if name in ("format", "concat") and groups:
            if name == "concat":
                out = Text()
                for group in groups:
                    out = out + (self._group(group) or Text())
                return out
            template = _string(groups[0][0], source) if len(groups[0]) == 1 else None
            if template is None:
                return None
            return self._format(template, groups[1:], node)
        return None

    def _groups(self, tree: tree_sitter.Node | None) -> list[list[tree_sitter.Node]]:
        """The comma-separated token groups of a macro's token tree."""
        if tree is None:
            return []
        groups: list[list[tree_sitter.Node]] = [[]]
        for child in tree.children[1:-1]:
            if child.type == ",":
                groups.append([])
            elif child.type not in ("line_comment", "block_comment"):
                groups[-1].append(child)
        return [group for group in groups if group]

    def _group(self, group: list[tree_sitter.Node]) -> Text | None:
        """A macro argument given as tokens: a literal, a name, ``self.field`` or ``a::B``."""
        source = self.source
        written = _squash(source[group[0].start_byte : group[-1].end_byte].decode("utf-8", "replace"))
        written = written.lstrip("&")
        if len(group) == 1 and group[0].type in ("string_literal", "raw_string_literal"):
            return links.literal(_string(group[0], source) or "")
        held: Value = None
        if re.fullmatch(r"[A-Za-z_]\w*", written):
            held = self._name(written, group[0])
        elif re.fullmatch(r"self\.\w+", written):
            held = self._self_field(written[5:])
        elif re.fullmatch(r"(?:\w+::)+[A-Z][A-Z0-9_]*", written):
            held = self._constant_path(written, group[0])
        elif re.fullmatch(r"[A-Za-z_]\w*(?:\.\w+)+", written):
            held = self._config_path(written.split("."))
        if isinstance(held, Text):
            return held
        return links.unknown(written)

    def _format(self, template: str, groups: list[list[tree_sitter.Node]], node: tree_sitter.Node) -> Text:
        named: dict[str, list[tree_sitter.Node]] = {}
        positional: list[list[tree_sitter.Node]] = []
        for group in groups:
            if len(group) >= 3 and group[0].type == "identifier" and group[1].type == "=":
                named[_text(group[0], self.source)] = group[2:]
            else:
                positional.append(group)
        out = Text()
        at = index = 0
        for match in _FORMAT.finditer(template):
            out = out + links.literal(template[at : match.start()])
            at = match.end()
            whole = match[0]
            if whole in ("{{", "}}"):
                out = out + links.literal(whole[0])
                continue
            key = (match[1] or "").strip()
            if key.isdigit():
                group = positional[int(key)] if int(key) < len(positional) else None
            elif key:
                group = named.get(key)
                if group is None:
                    held = self._name(key, node)
                    out = out + (held if isinstance(held, Text) else links.unknown(key))
                    continue
            else:
                group = positional[index] if index < len(positional) else None
                index += 1
            out = out + ((self._group(group) or Text()) if group else links.unknown(key))
        return out + links.literal(template[at:])

    def _name(self, name: str, node: tree_sitter.Node) -> Value:
        """A local, a parameter or a constant named ``name`` as seen from ``node``: the latest ``let`` or
        parameter before it in a function around it, else a constant of the file, else ``const:``."""
        self.items()
        local: tuple[tree_sitter.Node, tree_sitter.Node | None, tree_sitter.Node | None] | None = None
        sites = self._locals.get(name)
        if sites is not None:
            starts, entries = sites
            for index in links.latest_before(starts, node.start_byte):
                site, value, typed = entries[index]
                owner = rrp.enclosing(site, ("function_item", "closure_expression", "source_file"))
                if owner.start_byte <= node.start_byte < owner.end_byte and not (value is not None and _contains(value, node)):
                    local = (site, value, typed)
                    break
        constant = next(
            (value for site, value, _ in self._by_name.get(name, []) if site.type in ("const_item", "static_item")),
            None,
        )
        if local is not None:
            site, value, typed = local
            held = self._typed(typed) if typed is not None else None
            return held if held is not None else self.value(value)
        if constant is not None:
            return self.value(constant)
        return Text((), f"const:{name}") if _UPPER.match(name) else None

    def _typed(self, typed: tree_sitter.Node) -> Handle | None:
        """The handle a declared type holds (``&reqwest::Client``, ``Arc<redis::Client>``)."""
        key = (typed.start_byte, typed.end_byte)
        if key not in self._types:
            self._types[key] = self._read_type(typed)
        return self._types[key]

    def _read_type(self, typed: tree_sitter.Node) -> Handle | None:
        written = re.sub(r"[&*]|mut\b|dyn\b|'\w+", "", _squash(_text(typed, self.source)).replace("mut", "mut "))
        for wrapper in ("Arc<", "Rc<", "Option<", "Box<", "Mutex<", "RwLock<"):
            if written.startswith(wrapper) and written.endswith(">"):
                written = written[len(wrapper) : -1]
        written = re.sub(r"<.*>$", "", written.strip())
        full = self.crate(written)
        last = full.rsplit("::", 1)[-1]
        crate = full.split("::", 1)[0] if "::" in full else ""
        for kind, names in _TYPES.items():
            if last not in names:
                continue
            if crate == kind or crate == "async_nats" and kind == "nats" or crate == "rdkafka" and kind == "kafka":
                return Handle(kind)
        return None

    def _self_field(self, field: str) -> Value:
        """``self.<field>``: the type it is declared with, else what the file initialises it to."""
        if field not in self._fields:
            self._fields[field] = None
            self._fields[field] = self._read_field(field)
        return self._fields[field]

    def _read_field(self, field: str) -> Value:
        self.items()
        candidates = self._by_name.get(field, [])[: links.CANDIDATES_MAX]
        for site, _, typed in candidates:
            if site.type == "field_declaration" and typed is not None:
                held = self._typed(typed)
                if held is not None:
                    return held
        for site, value, _ in candidates:
            if site.type in ("field_initializer", "shorthand_field_initializer") and value is not None:
                held = self.value(value) if site.type == "field_initializer" else self._name(field, value)
                if held is not None:
                    return held
        return None

    def _field(self, node: tree_sitter.Node) -> Value:
        source = self.source
        owner = node.child_by_field_name("value")
        field = _text(node.child_by_field_name("field"), source)
        if owner is not None and owner.type == "self":
            return self._self_field(field)
        chain = [field]
        while owner is not None and owner.type == "field_expression":
            chain.append(_text(owner.child_by_field_name("field"), source))
            owner = owner.child_by_field_name("value")
        if owner is None or owner.type not in ("identifier", "self"):
            return None
        chain.append(_text(owner, source))
        chain.reverse()
        if chain[0] == "self":
            chain = chain[1:]
        return self._config_path(chain)

    def _config_path(self, chain: list[str]) -> Value:
        for index, word in enumerate(chain):
            if word in _CONFIG_ROOTS and index < len(chain) - 1:
                rest = chain[index + 1 :]
                if any(re.search(r"(?i)secret|password|token|key", part) for part in rest):
                    return None
                return Text((), "config:" + ".".join(rest))
        return None

    def _scoped(self, node: tree_sitter.Node) -> Value:
        return self._constant_path(_squash(_text(node, self.source)), node)

    def _constant_path(self, written: str, node: tree_sitter.Node) -> Value:
        parts = _segments(written)
        if len(parts) < 2 or not _UPPER.match(parts[-1]):
            return None
        name, owner = parts[-1], parts[-2]
        self.items()
        for site, value, _ in self._by_name.get(name, [])[: links.CANDIDATES_MAX]:
            if site.type in ("const_item", "static_item"):
                holder = site.parent.parent if site.parent is not None else None
                typed = holder.child_by_field_name("type") if holder is not None and holder.type == "impl_item" else None
                if owner in ("Self", "self", "crate", "super") or typed is not None and _type_name(typed, self.source) == owner:
                    return self.value(value)
        if owner[:1].isupper() and owner != "Self":
            return Text((), f"const:{owner}.{name}")
        return Text((), f"const:{name}")

    def _call(self, node: tree_sitter.Node) -> Value:
        source = self.source
        arguments = _call_arguments(node)
        callee = _callee(node, source)
        if callee:
            full = self.crate(callee)
            last = full.rsplit("::", 1)[-1]
            if last in ("var", "var_os") and full.rsplit("::", 1)[0].endswith(("env", "dotenv", "dotenvy")) and arguments:
                key = _string(arguments[0], source)
                return Text((), f"env:{key}") if key else None
            if full in ("String::from", "std::string::String::from", "Url::parse", "url::Url::parse", "Uri::from_static", "Url::from", "PathBuf::from") and arguments:
                return self.value(arguments[0])
            return self._constructor(full, arguments)
        method, receiver = _method_of(node, source)
        if receiver is None:
            return None
        if method in _PASS:
            return self.value(receiver)
        if method in ("unwrap_or", "unwrap_or_else", "or", "unwrap_or_default", "ok", "map_err", "context", "with_context"):
            held = self.value(receiver)
            if isinstance(held, Text) and held.address and not held.parts and not held.default and arguments:
                fallback = self.value(arguments[0])
                if method in ("unwrap_or", "unwrap_or_else") and isinstance(fallback, Text) and fallback.literal:
                    return Text((), held.address, fallback.literal)
            return held
        if method == "join" and arguments:
            base, path = self.text(receiver), self.text(arguments[0])
            if base is not None and path is not None and isinstance(self.value(receiver), Text):
                return links.base_join(base, path, replace_path=True)
            return None
        if method in ("get_string", "get_str", "get") and arguments and _string(arguments[0], source) is not None:
            root = _chain_root(receiver, source)
            if root.type == "identifier" and _text(root, source) in _CONFIG_ROOTS:
                return Text((), "config:" + (_string(arguments[0], source) or ""))
        held = self.value(receiver)
        if isinstance(held, Handle):
            if held.kind == "redis" and method in (
                "get_connection",
                "get_async_connection",
                "get_multiplexed_async_connection",
                "get_multiplexed_tokio_connection",
                "get_connection_manager",
                "get_async_pubsub",
                "as_pubsub",
                "into_pubsub",
            ):
                return held
            if method in ("build", "create", "unwrap", "expect", "clone", "timeout", "default_headers"):
                return held
        return None

    def _constructor(self, full: str, arguments: list[tree_sitter.Node]) -> Value:
        parts = full.split("::")
        last = parts[-1]
        owner = parts[-2] if len(parts) >= 2 else ""
        crate = parts[0]
        if crate == "reqwest" or owner in ("Client", "ClientBuilder") and self.crate(owner).startswith("reqwest"):
            if last in ("new", "builder", "default"):
                return Handle("reqwest")
        if (crate == "hyper" or crate == "hyper_util") and last in ("new", "builder") and "Client" in parts:
            return Handle("hyper")
        if crate == "surf" and last in ("new", "client"):
            return Handle("surf")
        if crate == "ureq" and last in ("agent", "new", "build"):
            return Handle("ureq")
        if crate in ("async_nats", "nats") and last in ("connect", "connect_with_options"):
            return Handle("nats")
        if crate == "redis" and last == "open" or owner == "Client" and self.crate(owner).startswith("redis") and last == "open":
            return Handle("redis")
        if owner == "ClientConfig" and last == "new":
            return Handle("kafka")
        return None


# -- routes -------------------------------------------------------------------------------------------


_METHOD_FILTERS: Final = frozenset({"layer", "with_state", "route_layer", "guard", "wrap", "name", "app_data", "boxed"})


class _Routes:
    def __init__(
        self, source: bytes, root: tree_sitter.Node, found: Found, symbols: links.Symbols, uses: list[tuple[str, str]]
    ) -> None:
        self.source = source
        self.root = root
        self.found = found
        self.symbols = symbols
        self.framework = (
            "axum"
            if b"axum" in source
            else "rocket"
            if b"rocket" in source
            else "actix-web"
            if b"actix" in source
            else "warp"
            if b"warp" in source
            else ""
        )
        self.uses: dict[str, str] = {}
        for path, alias in uses:
            parts = _segments(path)
            if parts and parts[-1] not in ("*", "self"):
                self.uses[alias or parts[-1]] = "::".join(parts)
            elif len(parts) > 1 and parts[-1] == "self":
                self.uses[alias or parts[-2]] = "::".join(parts[:-1])
        #: name of a fn or a let of the file -> (prefix, the node placing it) of each nest/service/mount
        self.placed: dict[str, list[tuple[str, tree_sitter.Node]]] = {}
        self._prefixes: dict[tuple[int, int, str], list[str]] = {}

    def run(self) -> None:
        source = self.source
        builders = links.matches(_LANG, _BUILDERS, self.root, source)
        for _, captured in builders:
            call = captured["call"][0]
            method = _text(captured["method"][0], source)
            if call.type == "call_expression" and method in ("nest", "service", "configure", "mount", "nest_service"):
                self.placement(call, method)
        for _, captured in builders:
            call = captured["call"][0]
            method = _text(captured["method"][0], source)
            if call.type == "macro_invocation":
                self.warp(call)
            elif method == "resource":
                self.resource(call)
            elif method == "route":
                self.route(call)
            elif method in ("nest_service", "route_service"):
                arguments = _call_arguments(call)
                path = _string(arguments[0], source) if arguments else None
                if path is not None:
                    self.emit(arguments[0], "*", path, "", call)
        if b"#[" in source:
            for _, captured in links.matches(_LANG, _ATTRIBUTES, self.root, source):
                self.attribute(captured["item"][0], captured["name"][0], captured["arguments"][0])

    # -- where routes are placed ---------------------------------------------------------------------

    def placement(self, call: tree_sitter.Node, method: str) -> None:
        """Note what a ``.nest("/p", x)`` / ``.service(x)`` / ``.configure(x)`` / ``.mount("/p", routes![..])``
        places under which prefix: a fn or let of the file, else a mount of another module."""
        source = self.source
        arguments = _call_arguments(call)
        if method in ("nest", "mount", "nest_service"):
            if len(arguments) < 2:
                return
            prefix = _string(arguments[0], source)
            target = arguments[1]
        else:
            if not arguments:
                return
            prefix = self.scope_prefix(call)
            target = arguments[0]
        if prefix is None:
            return
        if target.type == "macro_invocation" and _text(target.child_by_field_name("macro"), source).endswith("routes"):
            tree = next((c for c in target.named_children if c.type == "token_tree"), None)
            modules: list[str] = []
            for group in _Values(source, self.root, [])._groups(tree):
                written = _squash(source[group[0].start_byte : group[-1].end_byte].decode("utf-8", "replace"))
                self.place(written, prefix, call, modules)
            for module in modules:
                self.mount(call, prefix, module)
            return
        if method == "nest_service":
            return
        while target.type in _WRAPPERS and target.named_child_count:
            target = target.named_children[0]
        if target.type == "call_expression" and not _call_arguments(target):
            callee = _callee(target, source)
            if callee:
                modules = []
                self.place(callee, prefix, call, modules)
                for module in modules:
                    self.mount(call, prefix, module)
        elif target.type in ("identifier", "scoped_identifier"):
            modules = []
            self.place(_squash(_text(target, source)), prefix, call, modules)
            for module in modules:
                self.mount(call, prefix, module)

    def place(self, written: str, prefix: str, call: tree_sitter.Node, modules: list[str]) -> None:
        parts = _segments(written)
        if not parts:
            return
        if len(parts) == 1 and parts[0] not in self.uses:
            self.placed.setdefault(parts[0], []).append((prefix, call))
            return
        if not prefix:
            return
        full = parts
        if parts[0] in self.uses:
            full = _segments(self.uses[parts[0]]) + parts[1:]
        module = "::".join(full[:-1])
        if module and module not in modules:
            modules.append(module)

    def mount(self, call: tree_sitter.Node, prefix: str, module: str) -> None:
        arguments = _call_arguments(call)
        anchor = arguments[0] if arguments else call
        for outer in self.prefixes(call):
            path = route_template(join_paths(outer, prefix))
            fact = HttpRoute("*", path, _ts.line(anchor), "", self.symbols.at(call.start_byte), self.framework, module)
            self.found.add(anchor.start_byte, fact)

    def scope_prefix(self, call: tree_sitter.Node) -> str | None:
        """The path of the ``web::scope("/p")`` a ``.service``/``.configure`` chain starts from ("" for
        ``App::new()`` and the like)."""
        method, receiver = _method_of(call, self.source)
        if receiver is None:
            return None
        root = _chain_root(receiver, self.source)
        if root.type == "call_expression":
            callee = _callee(root, self.source).rsplit("::", 1)[-1]
            arguments = _call_arguments(root)
            if callee in ("scope", "new") and arguments:
                path = _string(arguments[0], self.source)
                if path is not None and (callee == "scope" or "Scope" in _callee(root, self.source)):
                    return path
        return ""

    def prefixes(self, node: tree_sitter.Node, depth: int = 0) -> list[str]:
        """Every prefix the place of ``node`` gives it (several when it is nested in several places);
        each node's are found once (a router nested in itself reads as nested nowhere)."""
        key = (node.start_byte, node.end_byte, node.type)
        known = self._prefixes.get(key)
        if known is not None:
            return known
        if depth > _NEST:
            return [""]
        self._prefixes[key] = [""]
        found = self._prefixes[key] = self._find_prefixes(node, depth)
        return found

    def _find_prefixes(self, node: tree_sitter.Node, depth: int) -> list[str]:
        source = self.source
        if node.type == "function_item":
            places = self.placed.get(_text(node.child_by_field_name("name"), source), [])
            return self.placed_prefixes(places, depth) if places else [""]
        child, parent = node, node.parent
        while parent is not None:
            if parent.type == "arguments" and parent.parent is not None and parent.parent.type == "call_expression":
                call = parent.parent
                method, _ = _method_of(call, source)
                arguments = _call_arguments(call)
                prefix: str | None = None
                if method in ("nest",) and len(arguments) >= 2 and arguments[0] != child:
                    prefix = _string(arguments[0], source)
                elif method in ("service", "configure"):
                    prefix = self.scope_prefix(call)
                if prefix:
                    return [join_paths(outer, prefix) for outer in self.prefixes(call, depth + 1)]
            elif parent.type == "let_declaration":
                pattern = parent.child_by_field_name("pattern")
                value = parent.child_by_field_name("value")
                if pattern is not None and pattern.type == "identifier" and value is not None and _contains(value, child):
                    places = self.placed.get(_text(pattern, source), [])
                    if places:
                        return self.placed_prefixes(places, depth)
            elif parent.type == "function_item":
                name = _text(parent.child_by_field_name("name"), source)
                places = self.placed.get(name, [])
                if places:
                    return self.placed_prefixes(places, depth)
                return [""]
            child, parent = parent, parent.parent
        return [""]

    def placed_prefixes(self, places: list[tuple[str, tree_sitter.Node]], depth: int) -> list[str]:
        """The prefixes of a fn or let placed at ``places`` (at most :data:`_PREFIXES_MAX`)."""
        out: list[str] = []
        for prefix, call in places[:_PREFIXES_MAX]:
            for outer in self.prefixes(call, depth + 1):
                whole = join_paths(outer, prefix)
                if whole not in out and len(out) < _PREFIXES_MAX:
                    out.append(whole)
        return out or [""]

    def emit(self, anchor: tree_sitter.Node, method: str, path: str, handler: str, symbol_at: tree_sitter.Node | None = None) -> None:
        symbol = self.symbols.at((symbol_at or anchor).start_byte)
        for prefix in self.prefixes(symbol_at or anchor):
            whole = route_template(join_paths(prefix, path.split("?", 1)[0]))
            self.found.add(anchor.start_byte, HttpRoute(method, whole, _ts.line(anchor), handler, symbol, self.framework))

    # -- builders -------------------------------------------------------------------------------------

    def handlers(self, node: tree_sitter.Node | None) -> list[tuple[str, str]]:
        """(verb, handler) pairs of a method router: ``get(h).post(h2)``, ``web::get().to(h)``, ``any(h)``."""
        source = self.source
        pairs: list[tuple[str, str]] = []
        depth = 0
        while node is not None and node.type == "call_expression" and depth < 64:
            depth += 1
            arguments = _call_arguments(node)
            first = _handler(arguments[0], source) if arguments else ""
            callee = _callee(node, source)
            if callee:
                name = callee.rsplit("::", 1)[-1]
                if name in _VERBS:
                    pairs.append((name.upper(), first))
                elif name in ("get_service", "post_service"):
                    pairs.append((name[:-8].upper(), ""))
                elif name in ("any", "route", "any_service"):
                    pairs.append(("*", first))
                elif name == "on" and len(arguments) >= 2:
                    verb = _text(arguments[0], source).rsplit(":", 1)[-1].upper()
                    pairs.append((verb if verb in HTTP_METHODS else "*", _handler(arguments[1], source)))
                elif name == "method" and arguments:
                    verb = _text(arguments[0], source).rsplit(":", 1)[-1].upper()
                    pairs.append((verb if verb in HTTP_METHODS else "*", ""))
                break
            method, receiver = _method_of(node, source)
            if method == "to":
                inner = self.handlers(receiver)
                return [(verb, first) for verb, _ in inner] + pairs
            if method in _VERBS:
                pairs.append((method.upper(), first))
            elif method not in _METHOD_FILTERS and method not in ("method",):
                return pairs[::-1] if pairs else []
            node = receiver
        return pairs[::-1]

    def route(self, call: tree_sitter.Node) -> None:
        """``.route("/x", get(h))`` (axum, actix ``App``/``Scope``), or ``.route(web::get().to(h))`` of a resource."""
        source = self.source
        arguments = _call_arguments(call)
        if len(arguments) == 2:
            path = _string(arguments[0], source)
            if path is None:
                return
            own = self.scope_prefix(call) or ""
            for verb, handler in self.handlers(arguments[1]):
                self.emit(arguments[0], verb, join_paths(own, path) if own else path, handler, call)
        elif len(arguments) == 1:
            return  # a resource's route: read from the resource

    def resource(self, call: tree_sitter.Node) -> None:
        """``web::resource("/x").route(web::get().to(h)).to(h2)``: a route per method router of the chain."""
        source = self.source
        callee = _callee(call, source)
        if callee.rsplit("::", 1)[-1] != "resource" or not (callee.startswith("web::") or callee == "resource"):
            if not callee.endswith("Resource::new"):
                return
        arguments = _call_arguments(call)
        path = _string(arguments[0], source) if arguments else None
        if path is None:
            return
        pairs: list[tuple[str, str]] = []
        node = call
        while node.parent is not None and node.parent.type == "field_expression":
            field = _text(node.parent.child_by_field_name("field"), source)
            outer = node.parent.parent
            if outer is None or outer.type != "call_expression":
                break
            inner = _call_arguments(outer)
            if field == "route" and inner:
                pairs.extend(self.handlers(inner[0]))
            elif field == "to" and inner:
                pairs.append(("*", _handler(inner[0], source)))
            elif field in _VERBS and inner:
                pairs.append((field.upper(), _handler(inner[0], source)))
            node = outer
        for verb, handler in pairs:
            self.emit(call, verb, path, handler, node)

    def attribute(self, item: tree_sitter.Node, name: tree_sitter.Node, arguments: tree_sitter.Node) -> None:
        """``#[get("/x")]`` (actix-web, Rocket), ``#[route("/x", method = "GET", method = "POST")]``."""
        source = self.source
        word = _squash(_text(name, source)).rsplit("::", 1)[-1]
        if word not in _VERBS and word != "route":
            return
        function = item.next_named_sibling
        while function is not None and function.type in ("attribute_item", "line_comment", "block_comment"):
            function = function.next_named_sibling
        if function is None or function.type != "function_item":
            return
        tokens = [child for child in arguments.children[1:-1]]
        literal = next((t for t in tokens if t.type in ("string_literal", "raw_string_literal")), None)
        path = _string(literal, source) if literal is not None else None
        if path is None:
            return
        if word == "route":
            methods = []
            for index, token in enumerate(tokens):
                if token.type == "identifier" and _text(token, source) == "method" and index + 2 < len(tokens):
                    value = _string(tokens[index + 2], source) or _text(tokens[index + 2], source)
                    if value.upper() in HTTP_METHODS:
                        methods.append(value.upper())
            methods = methods or ["*"]
        else:
            methods = [word.upper()]
        handler = _text(function.child_by_field_name("name"), source)
        for method in methods:
            self.emit(item, method, path, handler, function)

    def warp(self, macro: tree_sitter.Node) -> None:
        """``warp::path!("a" / u32 / "b")`` with the method filter of its ``and`` chain (``*`` when none)."""
        source = self.source
        if b"warp" not in source:
            return
        written = _squash(_text(macro.child_by_field_name("macro"), source))
        if written not in ("warp::path", "path") or (written == "path" and b"warp::path" not in source and b"use warp" not in source):
            return
        tree = next((c for c in macro.named_children if c.type == "token_tree"), None)
        if tree is None:
            return
        segments: list[str] = []
        for child in tree.children[1:-1]:
            if child.type in ("string_literal", "raw_string_literal"):
                segments.append(_string(child, source) or "")
            elif child.is_named and child.type in ("identifier", "primitive_type", "type_identifier", "scoped_identifier"):
                segments.append("{}")
            elif child.type == "..":
                break
        if not segments:
            return
        node = macro
        while node.parent is not None:
            parent = node.parent
            if parent.type == "field_expression" and _text(parent.child_by_field_name("field"), source) != "or":
                node = parent.parent if parent.parent is not None else parent
            elif parent.type == "arguments" and parent.parent is not None:
                method, _ = _method_of(parent.parent, source)
                if method != "and":
                    break
                node = parent.parent
            else:
                break
        verb = "*"
        for _, captured in links.matches(_LANG, _WARP_FILTERS, node, source):
            if _text(captured["crate"][0], source) == "warp" and _text(captured["verb"][0], source) in _VERBS:
                verb = _text(captured["verb"][0], source).upper()
                break
        path = "/" + "/".join(segments)
        symbol = self.symbols.at(macro.start_byte)
        self.found.add(macro.start_byte, HttpRoute(verb, route_template(path), _ts.line(macro), "", symbol, "warp"))


def _handler(node: tree_sitter.Node, source: bytes) -> str:
    """A handler as written; "" for an inline closure or block."""
    if node.type in ("closure_expression", "async_block", "block"):
        return ""
    return _squash(_text(node, source))


def _contains(outer: tree_sitter.Node, inner: tree_sitter.Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


# -- calls and messages -------------------------------------------------------------------------------


_MODULE_CLIENTS: Final = {
    "reqwest": "reqwest",
    "reqwest::blocking": "reqwest",
    "surf": "surf",
    "ureq": "ureq",
    "isahc": "isahc",
    "attohttpc": "attohttpc",
}
_SENDS: Final = frozenset({"send", "call", "send_json", "send_string", "send_form", "send_bytes", "recv_json", "recv_string"})


class _Calls:
    def __init__(
        self, source: bytes, root: tree_sitter.Node, found: Found, symbols: links.Symbols, values: _Values
    ) -> None:
        self.source = source
        self.root = root
        self.found = found
        self.symbols = symbols
        self.values = values
        self.nats = b"nats" in source
        self.redis = b"redis" in source
        self.kafka = b"kafka" in source
        self.lapin = b"lapin" in source or b"basic_publish" in source

    def run(self) -> None:
        for _, captured in links.matches(_LANG, _CALLS, self.root, self.source):
            call = captured["call"][0]
            method = _text(captured["method"][0], self.source)
            self.http(call, method)
            self.message(call, method)

    def add_call(self, call: tree_sitter.Node, method: str, url: Text, client: str) -> None:
        line, symbol = _ts.line(call), self.symbols.at(call.start_byte)
        self.found.add(call.start_byte, links.http_call(method, url, line, symbol, client))

    def url(self, node: tree_sitter.Node | None) -> Text:
        if node is None:
            return Text()
        return self.values.text(node) or links.unknown(_text(node, self.source))

    def http(self, call: tree_sitter.Node, method: str) -> None:
        source = self.source
        arguments = _call_arguments(call)
        callee = _callee(call, source)
        if callee:
            full = self.values.crate(callee)
            module, _, name = full.rpartition("::")
            client = _MODULE_CLIENTS.get(module)
            if client is not None and name in _VERBS and arguments:
                self.add_call(call, name.upper(), self.url(arguments[0]), client)
            elif client is not None and name == "request" and len(arguments) >= 2:
                self.add_call(call, _verb(arguments[0], source), self.url(arguments[1]), client)
            elif full.endswith("Request::builder") or full.endswith("Request::new"):
                return
            elif module.rsplit("::", 1)[-1] == "Request" and name in _VERBS and arguments:
                if not _in_test(call, source) and (b"hyper" in source or b"http::" in source):
                    self.add_call(call, name.upper(), self.url(arguments[0]), "hyper")
            return
        name, receiver = _method_of(call, source)
        if receiver is None:
            return
        if name == "uri" and arguments:
            root = _chain_root(receiver, source)
            if root.type == "call_expression" and _callee(root, source).endswith("Request::builder"):
                if _in_test(call, source) or not (b"hyper" in source or b"http::" in source):
                    return
                self.add_call(root, self.builder_verb(root, call), self.url(arguments[0]), "hyper")
            return
        if name not in _VERBS and name != "request" or not arguments:
            return
        held = self.values.value(receiver)
        kind = held.kind if isinstance(held, Handle) else ""
        if kind not in ("reqwest", "surf", "ureq", "hyper") and not self.sent(call):
            return
        if kind == "" and not any(hint in source for hint in (b"reqwest", b"surf", b"ureq", b"awc", b"isahc", b"attohttpc")):
            return
        client = kind or next(
            (c for c, hint in (("reqwest", b"reqwest"), ("awc", b"awc"), ("surf", b"surf"), ("ureq", b"ureq")) if hint in source),
            "reqwest",
        )
        if name == "request":
            if len(arguments) < 2:
                return
            self.add_call(call, _verb(arguments[0], source), self.url(arguments[1]), client)
        else:
            base = held.base if isinstance(held, Handle) else None
            self.add_call(call, name.upper(), links.base_join(base, self.url(arguments[0])), client)

    def sent(self, call: tree_sitter.Node) -> bool:
        """Whether a request built by ``call`` is sent in the same chain (``.send()``, ``.call()``...)."""
        node = call
        for _ in range(16):
            parent = node.parent
            if parent is None:
                return False
            if parent.type in _WRAPPERS:
                node = parent
                continue
            if parent.type != "field_expression":
                return False
            field = _text(parent.child_by_field_name("field"), self.source)
            outer = parent.parent
            if outer is None or outer.type != "call_expression":
                return False
            if field in _SENDS:
                # reqwest's and awc's ``send()`` take nothing (a channel's ``send(msg)`` is no request)
                return field != "send" or not _call_arguments(outer)
            node = outer
        return False

    def builder_verb(self, root: tree_sitter.Node, end: tree_sitter.Node) -> str:
        node: tree_sitter.Node | None = end
        while node is not None and node != root:
            method, receiver = _method_of(node, self.source) if node.type == "call_expression" else ("", None)
            if method == "method":
                arguments = _call_arguments(node)
                if arguments:
                    return _verb(arguments[0], self.source)
            node = receiver
        node = end.parent
        while node is not None and node.type in ("field_expression", "call_expression") + tuple(_WRAPPERS):
            if node.type == "call_expression":
                method, _ = _method_of(node, self.source)
                if method == "method":
                    arguments = _call_arguments(node)
                    return _verb(arguments[0], self.source) if arguments else "*"
            node = node.parent
        return "GET"

    def add_message(self, node: tree_sitter.Node, role: str, broker: str, name: Text | None, kind: str, client: str) -> None:
        line, symbol = _ts.line(node), self.symbols.at(node.start_byte)
        self.found.add(node.start_byte, links.message(role, broker, name, line, kind, symbol, client))

    def message(self, call: tree_sitter.Node, method: str) -> None:
        source = self.source
        arguments = _call_arguments(call)
        produce, consume = MessageRole.PRODUCE, MessageRole.CONSUME
        callee = _callee(call, source)
        if callee:
            owner = callee.rsplit("::", 2)[-2] if "::" in callee else ""
            if method == "to" and owner in ("FutureRecord", "BaseRecord") and arguments and self.kafka:
                self.add_message(call, produce, "kafka", self.text(arguments[0]), "topic", "rdkafka")
            elif method in ("from_value", "from_key_value") and owner == "Record" and arguments and self.kafka:
                self.add_message(call, produce, "kafka", self.text(arguments[0]), "topic", "kafka")
            return
        name, receiver = _method_of(call, source)
        if receiver is None:
            return
        held = self.values.value(receiver)
        kind = held.kind if isinstance(held, Handle) else ""
        if name == "basic_publish" and len(arguments) >= 2 and self.lapin:
            exchange = self.text(arguments[0])
            if exchange is not None and exchange.literal == "":
                self.add_message(call, produce, "rabbitmq", self.text(arguments[1]), "queue", "lapin")
            else:
                self.add_message(call, produce, "rabbitmq", exchange, "exchange", "lapin")
        elif name == "basic_consume" and arguments and self.lapin:
            self.add_message(call, consume, "rabbitmq", self.text(arguments[0]), "queue", "lapin")
        elif name == "queue_bind" and len(arguments) >= 2 and self.lapin:
            self.add_message(call, consume, "rabbitmq", self.text(arguments[1]), "exchange", "lapin")
        elif name == "with_topic" and arguments and self.kafka:
            self.add_message(call, consume, "kafka", self.text(arguments[0]), "topic", "kafka")
        elif name == "subscribe" and arguments and (kind == "kafka" or kind == "" and self.kafka and _array(arguments[0])):
            for topic in _array_items(arguments[0]):
                self.add_message(topic, consume, "kafka", self.text(topic), "topic", "rdkafka")
        elif name in ("publish", "subscribe", "queue_subscribe", "request") and arguments:
            broker = self.broker(kind, receiver)
            if broker == "":
                return
            if name == "request" and broker != "nats":
                return
            role = produce if name in ("publish", "request") else consume
            kind_of = "subject" if broker == "nats" else "channel"
            self.add_message(call, role, broker, self.text(arguments[0]), kind_of, "async-nats" if broker == "nats" else "redis")

    def broker(self, kind: str, receiver: tree_sitter.Node) -> str:
        if kind in ("nats", "redis"):
            return kind
        if kind:
            return ""
        written = _text(receiver, self.source).lower()
        if self.nats and not self.redis:
            return "nats" if re.search(r"nats|\bnc\b|client|jetstream|\bjs\b", written) else ""
        if self.redis and not self.nats:
            return "redis" if re.search(r"redis|pubsub|con|conn", written) else ""
        if self.nats and "nats" in written:
            return "nats"
        if self.redis and ("redis" in written or "pubsub" in written):
            return "redis"
        return ""

    def text(self, node: tree_sitter.Node | None) -> Text | None:
        return self.values.text(node) if node is not None else None


def _verb(node: tree_sitter.Node, source: bytes) -> str:
    written = _string(node, source) or _text(node, source).rsplit(":", 1)[-1]
    verb = written.upper()
    return verb if verb in HTTP_METHODS else "*"


def _array(node: tree_sitter.Node) -> bool:
    while node.type in _WRAPPERS and node.named_child_count:
        node = node.child_by_field_name("value") or node.named_children[0]
    return node.type in ("array_expression", "macro_invocation")


def _array_items(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    while node.type in _WRAPPERS and node.named_child_count:
        node = node.child_by_field_name("value") or node.named_children[0]
    if node.type == "array_expression":
        return [child for child in node.named_children if child.type not in ("line_comment", "block_comment")]
    if node.type == "macro_invocation":
        tree = next((c for c in node.named_children if c.type == "token_tree"), None)
        return [c for c in (tree.named_children if tree is not None else []) if c.type in ("string_literal", "identifier")]
    return [node]
