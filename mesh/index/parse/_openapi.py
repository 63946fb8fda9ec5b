"""OpenAPI and Swagger documents: the routes a contract declares.

Theory of operation
-------------------
A YAML or JSON file whose top level has an ``openapi:`` (3.x) or ``swagger:`` (2.0) key is a
contract, whatever its name. Each operation (``get``, ``post``... under ``paths``) is an
:class:`~mesh.index.HttpRoute`: the method, the path with the base applied (Swagger 2's
``basePath``; OpenAPI 3's first ``servers[].url``, its variables given their defaults, a path's or
an operation's own ``servers`` winning), the ``operationId`` as handler, framework ``openapi``, and
the line of the operation's key. A document that cannot be read gives an error (and whatever
routes were read before the problem), never an exception.

:func:`looks_like` is the cheap test the dispatcher runs on every YAML/JSON file (a regex over the
text); only a file that passes is parsed, and the top-level key is then checked for real. YAML is
read as a node tree by PyYAML's safe C loader (lines kept, no object built, aliases never
expanded); JSON by :func:`._config.read_json`. At most :data:`OPERATIONS_MAX` operations are read.
"""

from __future__ import annotations

import re
from typing import Any, Final

from .._facts import HttpRoute
from ._config import JsonObject, items, pairs, read_json, read_yaml_nodes, scalar
from ._links import join_paths, route_template

__all__ = ["OPERATIONS_MAX", "extract", "looks_like"]

OPERATIONS_MAX: Final = 20_000
_PATH_CHARS_MAX: Final = 2048
_METHODS: Final = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_YAML_KEY: Final = re.compile(r"^[\"']?(?:openapi|swagger)[\"']?[ \t]*:", re.M)
_JSON_KEY: Final = re.compile(r"\"(?:openapi|swagger)\"\s*:\s*\"")
_SUFFIXES: Final = (".yaml", ".yml", ".json")


def looks_like(path: str, text: str) -> bool:
    """Whether ``path`` may be an OpenAPI/Swagger document (its text names the key where it can be
    top-level); :func:`extract` decides."""
    if not path.lower().endswith(_SUFFIXES):
        return False
    return bool(_JSON_KEY.search(text) if text.lstrip()[:1] == "{" else _YAML_KEY.search(text))


def extract(text: str) -> tuple[tuple[HttpRoute, ...], str]:
    """The routes of an OpenAPI/Swagger document and a problem ("" when none); ((), "") for a file
    that is no such document."""
    is_json = text.lstrip()[:1] == "{"
    if is_json:
        root, problem = read_json(text)
        docs = [root] if root is not None else []
    else:
        docs, problem = read_yaml_nodes(text)
    top: dict[str, Any] = {}
    for doc in docs:
        keys = {key: value for key, _, value in reversed(pairs(doc))}
        if "openapi" in keys or "swagger" in keys:
            top = keys
            break
    if not top:
        # a YAML document that broke before its first key was read: the key at column 0 says enough
        broken = problem and not is_json and not docs and _YAML_KEY.search(text)
        return (), (f"OpenAPI document cannot be read: {problem}" if broken else "")
    base = _base(top)
    routes: list[HttpRoute] = []
    error = f"OpenAPI document cannot be read: {problem}" if problem else ""
    paths = top.get("paths")
    path_items = pairs(paths)
    if not path_items and not _empty(paths):
        return (), error or "OpenAPI document: paths is not a mapping"
    for path, _, item in path_items:
        if not isinstance(path, str) or len(path) > _PATH_CHARS_MAX:
            continue
        item_pairs = pairs(item)
        item_base = _servers_base(dict((k, v) for k, _, v in item_pairs))
        item_base = base if item_base is None else item_base
        for method, line, operation in item_pairs:
            if method.lower() not in _METHODS:
                continue
            fields = {key: value for key, _, value in reversed(pairs(operation))}
            handler = scalar(fields.get("operationId")) or ""
            prefix = _servers_base(fields)
            prefix = item_base if prefix is None else prefix
            routes.append(HttpRoute(
                method=method.upper(),
                path=route_template(join_paths(prefix, path.strip())),
                line=line,
                handler=handler.strip()[:200],
                framework="openapi",
            ))  # fmt: skip
            if len(routes) >= OPERATIONS_MAX:
                return tuple(routes), error or f"OpenAPI document: only the first {OPERATIONS_MAX} operations read"
    return tuple(routes), error


def _empty(node: Any) -> bool:
    """No paths at all: absent, null, or an empty mapping."""
    if node is None or isinstance(node, JsonObject):
        return not node
    return scalar(node) in ("", "~", "null") or getattr(node, "value", None) == []


def _base(top: dict[str, Any]) -> str:
    """The base path of every operation: Swagger 2's ``basePath``, OpenAPI 3's first server's path."""
    if "swagger" in top:
        base = scalar(top.get("basePath")) or ""
        return base.strip() if base.strip().startswith("/") else ""
    return _servers_base(top) or ""


def _servers_base(fields: dict[str, Any]) -> str | None:
    """The path of the first of ``servers`` ("" for none), None when ``fields`` has no servers."""
    servers = fields.get("servers")
    if servers is None or not items(servers):
        return None
    for _, server in items(servers)[:1]:
        spec = {key: value for key, _, value in reversed(pairs(server))}
        url = scalar(spec.get("url")) or ""
        defaults = {}
        for name, _, variable in pairs(spec.get("variables")):
            default = scalar({k: v for k, _, v in reversed(pairs(variable))}.get("default"))
            if default is not None:
                defaults[name] = default
        url = re.sub(r"\{([^{}]*)\}", lambda m: defaults.get(m[1], m[0]), url.strip())
        return _url_path(url)
    return ""


def _url_path(url: str) -> str:
    """The path of a server URL (``https://api.example.com/v1`` -> ``/v1``; ``/v1``; ``v1`` -> ``/v1``)."""
    url = re.split(r"[?#]", url, maxsplit=1)[0]
    scheme = re.match(r"^(?:[A-Za-z][\w+.-]*:)?//[^/]*", url)
    if scheme:
        url = url[scheme.end() :]
    elif not url.startswith("/"):
        first, _, rest = url.partition("/")
        url = "/" + rest if ":" in first or "." in first else "/" + url
    url = url.rstrip("/")
    return url if url.startswith("/") else ""
