"""Spelling of HTTP routes and URLs, shared by every extractor of HTTP facts.

Frameworks write a path parameter as ``:id``, ``{id}``, ``<int:id>``, ``{id:int}``, ``(?P<id>...)``
or ``{id...}``; :func:`route_template` gives them one spelling (``{id}``, a catch-all ``{*rest}``) so
a route declared in Go matches a call written in Python. :func:`url_parts` reads a URL that the code
assembles from literal pieces and expressions (an f-string, a template literal, a concatenation) into
its host, the expression giving its base address, and its path. Pure functions of strings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

import attrs

__all__ = ["HTTP_METHODS", "UrlParts", "join_paths", "route_template", "url_parts", "verb"]

#: The verbs a route or a call may name, upper-case.
HTTP_METHODS: Final = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT"})

_DJANGO_GROUP: Final = re.compile(r"\(\?P<(\w+)>[^()]*(?:\([^()]*\)[^()]*)*\)")
_UNNAMED_GROUP: Final = re.compile(r"\((?!\?P<)[^()]*\)")
_ANGLE: Final = re.compile(r"<(?:[\w.]+:)?(\w+)(\.\.)?>")  # Flask/Werkzeug <int:id>, Rocket <id..>
_BRACE: Final = re.compile(r"\{\s*(\*{0,2})\s*([\w-]*)\s*(\.\.\.|\+)?\s*(?:[:=?][^{}]*(?:\{[^{}]*\}[^{}]*)*)?\}")
_COLON: Final = re.compile(r"(?<=/):(\w+)[?*+]?(?:\([^()]*\))?")  # Express :id, :id?, :id(\d+)
_STAR: Final = re.compile(r"(?<=/)\*{1,2}(\w*)$")  # gin/echo/chi */ *filepath, Ant/Spring /** at the end
_SCHEME: Final = re.compile(r"^[a-zA-Z][\w+.-]*://")


def verb(name: str) -> str:
    """The HTTP verb a method or function name stands for (``get`` -> ``GET``, ``MapPost`` -> ``POST``),
    "" when none."""
    word = name.upper()
    for prefix in ("MAP", "HTTP", "HANDLE"):
        if word.startswith(prefix) and word[len(prefix) :] in HTTP_METHODS:
            return word[len(prefix) :]
    for suffix in ("MAPPING", "ASYNC"):
        if word.endswith(suffix) and word[: -len(suffix)] in HTTP_METHODS:
            return word[: -len(suffix)]
    return word if word in HTTP_METHODS else ""


def route_template(raw: str) -> str:
    """``raw`` (a route as a framework writes it) with one spelling of parameters, starting with ``/``.

    Regex anchors and unnamed groups of Django-style patterns are dropped; a regex that says more
    than a parameter (alternatives, classes outside a group) is kept as written after the anchors.
    """
    path = raw.strip()
    if path.startswith("^") or path.endswith("$") or "(?P<" in path:
        path = path.lstrip("^").rstrip("$")
        path = _DJANGO_GROUP.sub(lambda m: "{" + m[1] + "}", path)
        path = _UNNAMED_GROUP.sub("{}", path)
        path = path.replace("\\.", ".").replace("\\-", "-").replace("/?", "/")
        path = path.rstrip("?")
    path = _ANGLE.sub(lambda m: "{*" + m[1] + "}" if m[2] else "{" + m[1] + "}", path)
    path = _BRACE.sub(_brace, path)
    path = _COLON.sub(lambda m: "{" + m[1] + "}", path)
    path = _STAR.sub(lambda m: "{*" + m[1] + "}", path)
    path = re.sub(r"/{2,}", "/", path)
    if not path.startswith("/"):
        path = "/" + path
    return path


def _brace(match: re.Match[str]) -> str:
    star, name, dots = match[1], match[2], match[3]
    return "{*" + name + "}" if star or dots else "{" + name + "}"


def join_paths(prefix: str, path: str) -> str:
    """``prefix`` and ``path`` joined by exactly one ``/`` (an empty side adds nothing)."""
    if not prefix or prefix == "/":
        return path if path.startswith("/") else "/" + path
    if not path or path == "/":
        return prefix if prefix.startswith("/") else "/" + prefix
    joined = prefix.rstrip("/") + "/" + path.lstrip("/")
    return joined if joined.startswith("/") else "/" + joined


@attrs.frozen
class UrlParts:
    #: Literal host (lower-case, no scheme or port), "" when none.
    host: str
    #: The expression the URL starts with when that expression is its base address (``BASE`` of
    #: ``f"{BASE}/orders"``), for the extractor to trace to an environment variable or a setting.
    base: str
    #: The path template (``{name}`` for an interpolated identifier, ``{}`` for any other
    #: expression), query string and fragment dropped; "" when computed.
    path: str
    #: True when no path can be read (the whole URL is one expression, or the path is).
    computed: bool


def url_parts(parts: Sequence[tuple[bool, str]]) -> UrlParts:
    """Read a URL assembled from ``parts``: ``(True, text)`` for literal text, ``(False, expr)`` for an
    interpolated expression as written (``account_id``, ``self.base``, ``user.id``).

    ``["http://billing:8080/orders/", account_id]`` -> host ``billing``, path ``/orders/{account_id}``;
    ``[BASE, "/orders"]`` -> base ``BASE``, path ``/orders``; ``[url]`` -> computed. A scheme or a port
    written as an expression (``f"{proto}://{host}:{port}/x"``) is read past: the host expression is
    the base.
    """
    pieces = _merged(parts)
    if not pieces:
        return UrlParts("", "", "", True)
    if len(pieces) >= 2 and not pieces[0][0] and pieces[1][0] and pieces[1][1].startswith("://"):
        # the scheme is an expression: what follows "://" is the host
        rest = pieces[1][1][3:]
        pieces = ([(True, "http://" + rest)] if rest else [(True, "http://")]) + list(pieces[2:])
    host, base = "", ""
    first_literal, first = pieces[0]
    if first_literal:
        text = first
        scheme = _SCHEME.match(text)
        if scheme:
            rest = text[scheme.end() :]
            authority, slash, remainder = rest.partition("/")
            if not authority and not slash and len(pieces) > 1:
                # "http://" + host + "/x": the host is an expression, so it is the base
                return _after_base(pieces, 1, pieces[1][1], host_only=True)
            host = authority.rsplit("@", 1)[-1].split(":", 1)[0].lower()
            if authority.startswith("["):
                host = authority.split("]", 1)[0].lstrip("[").lower()
            if not slash and authority.endswith(":") and len(pieces) > 2 and not pieces[1][0]:
                # "http://billing:" + port + "/x": the port is an expression
                return _path_of(list(pieces[2:]), host, "")
            pieces = [(True, slash + remainder), *pieces[1:]]
        elif not text.startswith("/") and re.match(r"^[\w.-]+(:\d+)?(/|$)", text) and "." not in text.split("/", 1)[0][-4:]:
            # "billing:8080/x" or "billing/x" with no scheme: a host only when a port says so
            authority, slash, remainder = text.partition("/")
            if ":" in authority:
                host = authority.split(":", 1)[0].lower()
                pieces = [(True, slash + remainder), *pieces[1:]]
    else:
        base = first
        if len(pieces) == 1:
            return UrlParts("", base, "", True)
        return _after_base(pieces, 0, base)
    return _path_of(pieces, host, base)


def _merged(parts: Sequence[tuple[bool, str]]) -> list[tuple[bool, str]]:
    """``parts`` without empty literals, adjacent literals joined."""
    pieces: list[tuple[bool, str]] = []
    for literal, text in parts:
        if literal and not text:
            continue
        if literal and pieces and pieces[-1][0]:
            pieces[-1] = (True, pieces[-1][1] + text)
        else:
            pieces.append((literal, text))
    return pieces


#: A literal going on with a path segment right after a base expression (no ``.``, ``:`` or ``-`` first).
_BASE_RELATIVE: Final = re.compile(r"^[A-Za-z0-9_~][\w~%-]*[/?#]")


def _after_base(pieces: Sequence[tuple[bool, str]], start: int, base: str, *, host_only: bool = False) -> UrlParts:
    """The path after the base expression at ``pieces[start]``, past a port (``":8080"`` or ``":" + port``).

    With ``host_only`` (a scheme was written before it), or past a port, the expression is a host
    alone: nothing after it is the path ``/``."""
    rest = list(pieces[start + 1 :])
    if rest and rest[0][0] and not rest[0][1].startswith(("/", "?")):
        head = rest[0][1]
        if re.fullmatch(r":\d*", head) and len(rest) > 1 and not rest[1][0]:
            rest, host_only = rest[2:], True  # ":" + port: the path follows the port's expression
        elif re.fullmatch(r":\d+", head):
            rest, host_only = [], True
        elif not host_only and _BASE_RELATIVE.match(head):
            # ``${base}chat/submit``: a path after a base address that ends with "/" (a host never goes
            # on with a plain word: ``${host}.svc``, ``${host}:8080``, ``${host}-orders`` do)
            rest[0] = (True, "/" + head)
        else:
            slash = head.find("/")
            if slash < 0:
                return UrlParts("", base, "", True)
            rest[0] = (True, head[slash:])
            host_only = True
    if not rest:
        return UrlParts("", base, "/", False) if host_only else UrlParts("", base, "", True)
    return _path_of(rest, "", base)


def _path_of(pieces: Sequence[tuple[bool, str]], host: str, base: str) -> UrlParts:
    out: list[str] = []
    for literal, text in pieces:
        if literal:
            cut = min((i for i in (text.find("?"), text.find("#")) if i >= 0), default=-1)
            if cut >= 0:
                out.append(text[:cut])
                break
            out.append(text)
        else:
            name = text.strip()
            out.append("{" + name + "}" if re.fullmatch(r"[A-Za-z_]\w*", name) else "{}")
    path = "".join(out)
    if not path:
        return UrlParts(host, base, "/" if host or base else "", not (host or base))
    if not path.startswith("/"):
        if path.startswith("{"):
            # the path is an expression: nothing of it can be read
            return UrlParts(host, base, "", True)
        return UrlParts(host, base, "", True)
    return UrlParts(host, base, re.sub(r"/{2,}", "/", path), False)
