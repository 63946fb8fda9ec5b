"""Settings of configuration files, and what a configured value says about an address.

Theory of operation
-------------------
A configuration file wires services when a key's value names a host (``http://orders:8080/api``,
``orders:8080``) or an environment variable (``${ORDERS_URL:http://localhost:8080}``). Such a key
is a :class:`~mesh.index.Setting` holding the key (dotted), the host, the path and the variable;
nothing else of the value is ever kept: a value may be a secret. Keys that look secret (key, token,
secret, password, credential...) are skipped whole, and connection strings are kept only when their
whole value is one URL or ``host:port`` (then only the host).

Files read (by name, in any folder):

- Spring, Micronaut, Quarkus, Helidon: ``application*.yml|yaml|properties``, ``bootstrap*`` (every
  YAML document: profiles are documents), with Spring's ``${NAME:default}`` placeholders;
- .NET: ``appsettings*.json`` (comments and trailing commas allowed, as .NET reads them; ``:`` in a
  key and JSON nesting become ``.``; array items are ``.0``, ``.1``... as .NET numbers them, so
  Aspire's ``services:catalog-api:http:0`` is ``services.catalog-api.http.0``);
- node-config: ``config/default|production|development|staging|local*.json|yml|yaml`` and
  ``config/custom-environment-variables.*`` (whose values are the names of environment variables).

The address helpers (:func:`addresses`, :func:`secret_name`, :func:`host_named`) are shared with the
deployment wiring (:mod:`mesh.index.build._services`), so a value reads the same wherever it is
written. :func:`read_json` is a JSON reader that keeps the line of every key (used for OpenAPI too).
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

import yaml

from .._facts import Setting

__all__ = [
    "JsonArray",
    "JsonObject",
    "addresses",
    "config_kind",
    "connection_string_name",
    "host_named",
    "host_of",
    "items",
    "listening",
    "pairs",
    "read_json",
    "read_yaml_nodes",
    "scalar",
    "secret_name",
    "settings",
    "spring_placeholders",
    "words",
]

#: Settings kept per file, and YAML/JSON nodes visited per file (aliases are shared nodes: bounded).
SETTINGS_MAX: Final = 2000
NODES_MAX: Final = 200_000
DEPTH_MAX: Final = 64
#: Host names an address list may give (``a:9092,b:9092``).
HOSTS_PER_VALUE_MAX: Final = 16

_SPRING: Final = re.compile(r"^(application|bootstrap)([-._][\w.-]*)?\.(ya?ml|properties)$")
_DOTNET: Final = re.compile(r"^appsettings([-._][\w.-]*)?\.json$", re.I)
_NODE_CONFIG: Final = re.compile(
    r"(^|/)config/(default|production|development|staging|local|custom-environment-variables)([-._][\w.-]*)?"
    r"\.(json|ya?ml)$"
)


def config_kind(path: str) -> str | None:
    """``spring``, ``dotnet``, ``node-config`` or ``node-env`` for a configuration file read here, else None."""
    name = path.rsplit("/", 1)[-1]
    if _SPRING.match(name):
        return "spring"
    if _DOTNET.match(name):
        return "dotnet"
    match = _NODE_CONFIG.search(path)
    if match:
        return "node-env" if match[2] == "custom-environment-variables" else "node-config"
    return None


# -- what a value says ---------------------------------------------------------------------------

_WORD: Final = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SECRET_WORDS: Final = frozenset({
    "key", "keys", "secret", "secrets", "token", "tokens", "password", "passwords", "passwd", "pwd", "pass",
    "passphrase", "credential", "credentials", "creds", "apikey", "privatekey", "signature", "salt", "cert",
    "certificate", "pem", "jwt", "bearer", "sas",
})  # fmt: skip
_SECRET_PARTS: Final = ("password", "passwd", "secret", "token", "credential", "apikey", "api_key", "privatekey",
                        "private_key", "accesskey", "access_key")  # fmt: skip
#: Last words of a name whose value may be a bare host (``DB_HOST=db``, ``spring.rabbitmq.host``).
_HOST_WORDS: Final = frozenset({
    "host", "hosts", "hostname", "addr", "address", "addresses", "server", "servers", "endpoint", "endpoints",
    "url", "urls", "uri", "uris", "broker", "brokers", "bootstrap", "authority",
})  # fmt: skip
_NOT_HOSTS: Final = frozenset({"true", "false", "yes", "no", "on", "off", "none", "null", "nil", "undefined", "enabled",
                               "disabled", "default", "auto", "any", "all"})  # fmt: skip
_URL: Final = re.compile(
    r"^(?:[A-Za-z][\w+.-]*:){1,3}//(?P<authority>[^/?#\s;]*)(?P<path>/[^?#\s;,]*)?(?P<rest>.*)$", re.S
)
_HOST_PORT: Final = re.compile(
    r"^(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_][\w.-]*):(?P<port>\d{1,5})(?P<path>/[^?#\s;,]*)?$"
)
_HOST: Final = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*$")
_IPV4: Final = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
_VERSION: Final = re.compile(r"^v?\d[\d.]*(?:[-+][\w.]*)?$")
#: A path segment that may be a credential (a webhook's token, a key in a URL): the path is dropped.
_TOKEN_SEGMENT: Final = re.compile(r"^(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{20,}$|^[\w-]{40,}$")


def words(name: str) -> list[str]:
    """The words of a name, lower-case (``ORDERS_API_URL``, ``ordersApiUrl``, ``orders.api-url``)."""
    return [word.lower() for word in _WORD.findall(name)]


def secret_name(name: str) -> bool:
    """Whether a key or variable name looks like it holds a secret (never read nor kept)."""
    lower = name.lower()
    if any(part in lower for part in _SECRET_PARTS):
        return True
    return any(word in _SECRET_WORDS for word in words(name))


def connection_string_name(name: str) -> bool:
    """Whether a name is a connection string's (``ConnectionStrings:Orders``, ``ZK_CONNECTION_STRING``)."""
    return "connectionstring" in re.sub(r"[^a-z]", "", name.lower())


def host_named(name: str) -> bool:
    """Whether a name says its value is an address (``DB_HOST``, ``ordersUrl``, ``KAFKA_BROKERS``)."""
    found = words(name)
    if not found:
        return False
    if found[-1] in _HOST_WORDS:
        return True
    return len(found) > 1 and found[-1] == "name" and found[-2] == "host"


#: Words of a name whose value is where the process itself listens, never a peer.
_LISTEN_WORDS: Final = frozenset({"listen", "listens", "listener", "listeners", "bind", "binding", "bindings"})
#: Hosts that name every interface of the process itself, never a peer.
_ANY_HOSTS: Final = frozenset({"0.0.0.0", "::", "*"})


def listening(name: str) -> bool:
    """Whether a name says its value is the process's own listening address (``LISTEN_ADDR``)."""
    return any(word in _LISTEN_WORDS for word in words(name))


def host_of(authority: str) -> str:
    """The host of an authority (``user:pw@Orders:8080`` -> ``orders``), "" when it is not one."""
    authority = authority.rsplit("@", 1)[-1].strip()
    if authority.startswith("["):
        host = authority[1:].split("]", 1)[0].lower()
        return host if re.fullmatch(r"[0-9a-f:.]+", host) else ""
    host = authority.split(":", 1)[0].lower().rstrip(".")
    if not host or host in _ANY_HOSTS or not _HOST.match(host):
        return ""
    if not re.search(r"[a-z]", host) and not _IPV4.match(host):
        return ""  # a number is no host (``12:30``)
    return host


def _clean_path(path: str) -> str:
    path = re.sub(r"/{2,}", "/", path or "")
    if path in ("", "/") or "{}" in path:
        return ""
    if any(_TOKEN_SEGMENT.match(segment) for segment in path.split("/")):
        return ""  # a segment that may be a credential (a webhook's token): no path is worth that
    return path


def addresses(value: str, *, bare: bool = False, single: bool = False) -> list[tuple[str, str]]:
    """The (host, path) pairs a configured value names: a URL (``http://orders:8080/api``, also
    ``jdbc:mysql://db/x``, ``mongodb://h1,h2/db``), a ``host:port[/path]``, a comma-separated list
    of them; a bare host only when ``bare`` (the name says the value is an address). With ``single``
    (a connection string) the whole value must be one URL or ``host:port``, and only hosts are kept.
    Credentials, ports, query strings and fragments are never kept."""
    value = value.strip().strip("\"'").strip()
    if not value or len(value) > 2000 or any(c.isspace() for c in value):
        return []
    items = [value] if single else [item.strip() for item in value.split(",")][:HOSTS_PER_VALUE_MAX]
    found: list[tuple[str, str]] = []
    for item in items:
        for host, path in _address(item, bare=bare, single=single):
            if host and (host, path) not in found:
                found.append((host, "" if single else path))
        if single and len(found) > 1:
            return found[:1]
    return found


def _address(item: str, *, bare: bool, single: bool) -> list[tuple[str, str]]:
    url = _URL.match(item)
    if url:
        if single and url["rest"] and not url["rest"].startswith(("?", "#")):
            return []
        hosts = [host_of(part) for part in url["authority"].split(",")][:HOSTS_PER_VALUE_MAX]
        return [(host, _clean_path(url["path"] or "")) for host in hosts if host]
    pair = _HOST_PORT.match(item)
    if pair:
        host = host_of(pair["host"] + ":" + pair["port"])
        return [(host, _clean_path(pair["path"] or ""))] if host else []
    if bare and not single and "/" not in item and ":" not in item:
        lower = item.lower()
        if lower in _NOT_HOSTS or _VERSION.match(lower) or lower.endswith((".json", ".yaml", ".yml", ".xml", ".conf")):
            return []
        host = host_of(item)
        return [(host, "")] if host else []
    return []


_PLACEHOLDER: Final = re.compile(r"\$\{([^{}]*)\}")
_PLACEHOLDER_NAME: Final = re.compile(r"\$\{([A-Za-z_][\w.-]*)")


def spring_placeholders(value: str) -> tuple[str, str]:
    """``value`` with each ``${name:default}`` replaced by its default (``{}`` when it has none),
    and the first environment variable it names ("" when none: ``${orders.url}`` names a property)."""
    env = next((name for name in _PLACEHOLDER_NAME.findall(value) if "." not in name), "")
    for _ in range(8):  # nested placeholders, innermost first
        replaced = _PLACEHOLDER.sub(lambda m: m[1].split(":", 1)[1] if ":" in m[1] else "{}", value)
        if replaced == value:
            break
        value = replaced
    return value, env


# -- readers that keep lines ---------------------------------------------------------------------


class JsonObject(list):
    """A JSON object as ``[(key, line, value), ...]`` in source order (duplicates kept)."""


class JsonArray(list):
    """A JSON array as ``[(line, value), ...]``."""


_JSON_TOKEN: Final = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|[{}\[\],:]|//[^\n]*|/\*(?:[^*]|\*(?!/))*(?:\*/|\Z)|[^\s{}\[\],:"/]+|\S'
)
_LITERALS: Final = {"true": True, "false": False, "null": None}


def read_json(text: str) -> tuple[Any, str]:
    """JSON as .NET reads configuration (``//`` and ``/* */`` comments, trailing commas), objects
    as :class:`JsonObject` and arrays as :class:`JsonArray` keeping each key's line; the problem
    ("" when none, else ``line N: ...``) and what was read before it."""
    root: Any = None
    done = False
    stack: list[Any] = []
    key: str | None = None
    key_line = 0
    colon = False
    line, seen = 1, 0
    nodes = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        start = match.start()
        line += text.count("\n", seen, start)
        seen = start
        first = token[0]
        if first == "/" and token[:2] in ("//", "/*"):
            continue
        nodes += 1
        if nodes > NODES_MAX * 5:
            return root, f"line {line}: more than {NODES_MAX * 5} tokens; the rest is not read"
        top = stack[-1] if stack else None
        if first in "}]":
            if top is None or (first == "}") != isinstance(top, JsonObject) or key is not None:
                return root, f"line {line}: unexpected {token!r}"
            stack.pop()
            continue
        if first == ",":
            if isinstance(top, JsonObject) and key is not None:
                return root, f"line {line}: a key without a value"
            continue
        if first == ":":
            if not isinstance(top, JsonObject) or key is None or colon:
                return root, f"line {line}: unexpected ':'"
            colon = True
            continue
        if isinstance(top, JsonObject) and key is None:
            if first != '"':
                return root, f"line {line}: a key must be a string, not {token[:20]!r}"
            key, key_line, colon = _string(token), line, False
            if key is None:
                return root, f"line {line}: an invalid escape in a string"
            continue
        if isinstance(top, JsonObject) and not colon:
            return root, f"line {line}: ':' expected after a key"
        if first == "{" or first == "[":
            value: Any = JsonObject() if first == "{" else JsonArray()
            if len(stack) >= DEPTH_MAX * 8:
                return root, f"line {line}: nested more than {DEPTH_MAX * 8} deep"
        elif first == '"':
            value = _string(token)
            if value is None:
                return root, f"line {line}: an invalid escape in a string"
        elif token in _LITERALS:
            value = _LITERALS[token]
        elif re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", token):
            value = token
        else:
            return root, f"line {line}: unexpected {token[:20]!r}"
        if top is None:
            if done:
                return root, f"line {line}: more than one value"
            root, done = value, True
        elif isinstance(top, JsonObject):
            top.append((key, key_line, value))
            key, colon = None, False
        else:
            top.append((line, value))
        if isinstance(value, (JsonObject, JsonArray)):
            stack.append(value)
    if stack:
        inside = "an object" if isinstance(stack[-1], JsonObject) else "an array"
        return root, f"line {line}: the document ends inside {inside}"
    if not done:
        return root, "empty document"
    return root, ""


def _string(token: str) -> str | None:
    if "\\" not in token:
        return token[1:-1]
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def read_yaml_nodes(text: str) -> tuple[list[yaml.Node], str]:
    """The node tree of every YAML document of ``text`` (lines kept in the marks) and the problem."""
    from ._deploy import _LOADER  # the project's safe loader (``_deploy`` imports this module)

    docs: list[yaml.Node] = []
    try:
        for node in yaml.compose_all(text, Loader=_LOADER):
            if node is not None:
                docs.append(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        return docs, f"{where}{getattr(exc, 'problem', None) or type(exc).__name__}"
    except (RecursionError, ValueError, TypeError, OverflowError) as exc:
        return docs, f"cannot be read: {type(exc).__name__}"
    return docs, ""


def pairs(node: Any) -> list[tuple[str, int, Any]]:
    """(key, line, value) of a mapping, a YAML node's or a :class:`JsonObject`'s ([] for anything else);
    YAML merge keys (``<<: *base``) are followed one level."""
    if isinstance(node, JsonObject):
        return [(k, line, v) for k, line, v in node if isinstance(k, str)]
    if not isinstance(node, yaml.MappingNode):
        return []
    found = []
    for key, value in node.value:
        if key.tag == "tag:yaml.org,2002:merge":
            merged = value.value if isinstance(value, yaml.SequenceNode) else [value]
            for base in merged:
                if isinstance(base, yaml.MappingNode):
                    found += [(k.value, k.start_mark.line + 1, v) for k, v in base.value
                              if isinstance(k, yaml.ScalarNode)]  # fmt: skip
        elif isinstance(key, yaml.ScalarNode):
            found.append((key.value, key.start_mark.line + 1, value))
    return found


def items(node: Any) -> list[tuple[int, Any]]:
    """(line, value) of a sequence ([] for anything else)."""
    if isinstance(node, JsonArray):
        return list(node)
    if isinstance(node, yaml.SequenceNode):
        return [(item.start_mark.line + 1, item) for item in node.value]
    return []


def scalar(node: Any) -> str | None:
    """The text of a scalar (a YAML scalar as written, a JSON string or number), None for the rest."""
    if isinstance(node, yaml.ScalarNode):
        return node.value
    if isinstance(node, str):
        return node
    return None


# -- settings ------------------------------------------------------------------------------------


def settings(path: str, source: bytes) -> tuple[tuple[Setting, ...], str]:
    """The settings of a configuration file (see the module docstring) and a problem ("" when none)."""
    kind = config_kind(path)
    if kind is None:
        return (), ""
    text = source.decode("utf-8", "replace").removeprefix("\ufeff")
    leaves: list[tuple[str, int, str]] = []
    problem = ""
    if path.endswith(".properties"):
        leaves = _properties(text)
    elif path.lower().endswith(".json"):
        root, problem = read_json(text)
        _walk(root, "", leaves, kind == "dotnet" or kind.startswith("node"), [0])
    else:
        docs, problem = read_yaml_nodes(text)
        for doc in docs:
            _walk(doc, "", leaves, False, [0])
    found: list[Setting] = []
    for key, line, value in leaves:
        setting = _setting(key, line, value, kind)
        if setting is not None:
            found.append(setting)
            if len(found) >= SETTINGS_MAX:
                problem = problem or f"only the first {SETTINGS_MAX} settings kept"
                break
    return tuple(found), (f"configuration cannot be read: {problem}" if problem else "")


def _walk(node: Any, prefix: str, out: list[tuple[str, int, str]], dotted_items: bool, count: list[int],
          line: int = 0, depth: int = 0) -> None:  # fmt: skip
    count[0] += 1
    if count[0] > NODES_MAX or depth > DEPTH_MAX:
        return
    value = scalar(node)
    if value is not None:
        if prefix:
            out.append((prefix, line, value))
        return
    for key, key_line, child in pairs(node):
        key = key.replace(":", ".") if dotted_items else key
        _walk(child, f"{prefix}.{key}" if prefix else key, out, dotted_items, count, key_line, depth + 1)
    for index, (item_line, child) in enumerate(items(node)):
        name = f"{prefix}.{index}" if dotted_items else f"{prefix}[{index}]"
        _walk(child, name, out, dotted_items, count, item_line, depth + 1)


_PROPERTY: Final = re.compile(r"^[ \t\f]*((?:[^\s:=\\]|\\.)+)[ \t\f]*[:=]?[ \t\f]*(.*)$", re.S)


def _properties(text: str) -> list[tuple[str, int, str]]:
    """(key, line, value) of a ``.properties`` file (continuation lines joined, escapes read)."""
    found = []
    lines = text.split("\n")
    number = 0
    while number < len(lines) and len(found) < NODES_MAX:
        start = number
        parts = [lines[number].rstrip("\r")]
        number += 1
        # a line ending in an odd number of backslashes goes on on the next one
        while (len(parts[-1]) - len(parts[-1].rstrip("\\"))) % 2 == 1 and number < len(lines):
            parts[-1] = parts[-1][:-1]
            parts.append(lines[number].rstrip("\r").lstrip(" \t\f"))
            number += 1
        logical = "".join(parts)
        stripped = logical.lstrip()
        if not stripped or stripped[0] in "#!":
            continue
        match = _PROPERTY.match(logical)
        if match:
            key = re.sub(r"\\(.)", r"\1", match[1])
            found.append((key, start + 1, match[2].strip()))
    return found


def _setting(key: str, line: int, value: str, kind: str) -> Setting | None:
    if secret_name(key) or listening(key):
        return None
    if kind == "node-env":  # custom-environment-variables: the value is a variable's name
        name = value.strip()
        return Setting(key, line, env=name) if re.fullmatch(r"[A-Za-z_]\w{0,127}", name) else None
    value, env = spring_placeholders(value) if kind == "spring" else (value, "")
    single = connection_string_name(key)
    found = addresses(value, bare=host_named(key), single=single)
    host, path = found[0] if found else ("", "")
    if not host and not env:
        return None
    return Setting(key, line, host=host, env=env, path=path)
