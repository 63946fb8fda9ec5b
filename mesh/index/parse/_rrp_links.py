"""Plumbing shared by the Ruby, Rust and PHP extractors of links: traced strings, calls, messages, constants.

Theory of operation: each language's link module reads an expression into a :class:`Text`, the string
it stands for as literal pieces and expressions (``("http://orders:8080/x/", id)``). A text may start at
a traced *address*: a base whose value the code reads at run time from an environment variable, a
configuration key or a constant of another file (``env:ORDERS_URL``), with the literal default written
beside it when there is one. :func:`http_call` and :func:`message` turn texts into facts with the
spelling helpers of :mod:`._links`, so the three languages spell URLs, hosts and names alike.

:class:`Evaluator` is the frame of each language's reader of expressions: every node is read once
(memoised, a cycle reads as unknown), to a bounded depth and a bounded number of reads per file, so
hostile input stays linear. :func:`matches` runs a compiled query safely on any bytes (tree-sitter
raises on predicates over text that is not UTF-8). :class:`Symbols` names the definition around a
byte; :class:`Found` keeps the facts of one file keyed by the byte offset of their anchor, so they
come out in source order whatever order the rules met them in.
"""

from __future__ import annotations

import bisect
import re
from typing import Final

import attrs
import tree_sitter

from .._facts import Constant, HttpCall, HttpRoute, MessageFact
from . import _common, _ts
from ._links import url_parts
from ._config import secret_name

__all__ = [
    "CANDIDATES_MAX",
    "Evaluator",
    "Found",
    "Handle",
    "Links",
    "Symbols",
    "Text",
    "base_join",
    "http_call",
    "is_link_constant",
    "last_segment",
    "latest_before",
    "literal",
    "matches",
    "message",
    "resource_name",
    "unknown",
]

#: Kinds of piece in a :class:`Text`: literal text, or an expression as written.
LITERAL: Final = True
EXPRESSION: Final = False


@attrs.frozen
class Text:
    """A string as the code builds it: ``parts`` are ``(literal?, text)`` pairs in order.

    ``address`` (``env:X``, ``config:a.b``, ``const:Owner.NAME``) is a traced base the parts follow;
    ``default`` is the literal written beside it as a fallback (``ENV.fetch("X", "http://x:80")``).
    """

    parts: tuple[tuple[bool, str], ...] = ()
    address: str = ""
    default: str = ""

    @property
    def literal(self) -> str | None:
        """The whole text when it is one literal without an address, else None."""
        if self.address or any(not literal for literal, _ in self.parts):
            return None
        return "".join(text for _, text in self.parts)

    def __add__(self, other: Text) -> Text:
        """This text followed by ``other`` (whose own address, in the middle of a string, is unknown)."""
        if not self.parts and not self.address:
            return other
        tail = other.parts
        if other.address:
            tail = ((EXPRESSION, other.address), *tail)
        return Text(self.parts + tail, self.address, self.default)


def unknown(written: str) -> Text:
    """An expression the extractor could not read, as written (a variable's sigil dropped: ``$id``,
    ``@id`` read as ``id``)."""
    return Text(((EXPRESSION, _SIGIL.sub("", written.strip())),))


def literal(text: str) -> Text:
    """The literal ``text`` (no parts at all when empty, so that what follows may be a base)."""
    return Text(((LITERAL, text),)) if text else Text()


_SCHEME: Final = re.compile(r"^[a-zA-Z][\w+.-]*://")
_SIGIL: Final = re.compile(r"^(?:@@?|\$)(?=[A-Za-z_]\w*$)")


def base_join(base: Text | None, path: Text, *, replace_path: bool = False) -> Text:
    """The URL a client with base address ``base`` requests for ``path``.

    An absolute ``path`` (a scheme) ignores the base. With ``replace_path`` (URI resolution, as Faraday
    and Guzzle do), a path starting with ``/`` replaces the base's own path when the base is literal.
    """
    first = path.parts[0] if path.parts else None
    if base is None or path.address or (first is not None and first[0] and _SCHEME.match(first[1])):
        return path
    if first is not None and not first[0] and not base.parts and not base.address:
        return path
    head = base
    if replace_path and first is not None and first[0] and first[1].startswith("/"):
        whole = base.literal
        if whole is not None:
            scheme = _SCHEME.match(whole)
            if scheme:
                cut = whole.find("/", scheme.end())
                head = literal(whole if cut < 0 else whole[:cut])
    if first is not None and first[0] and not first[1].startswith(("/", "?")):
        ends = head.parts[-1][1].endswith("/") if head.parts and head.parts[-1][0] else False
        if not ends:
            head = head + literal("/")
    elif first is not None and first[0] and head.parts and head.parts[-1][0] and head.parts[-1][1].endswith("/"):
        path = Text(((LITERAL, first[1].lstrip("/")), *path.parts[1:]))
    return head + path


def http_call(method: str, url: Text, line: int, symbol: str, client: str) -> HttpCall:
    """The call of ``method`` (upper-case or ``*``) to ``url``."""
    if url.address:
        parts = url_parts([(EXPRESSION, "BASE"), *url.parts])
        host = url_parts([(LITERAL, url.default)]).host if url.default else ""
        path = parts.path if not parts.computed else ""
        return HttpCall(method, path, line, symbol, host, url.address, client, parts.computed)
    parts = url_parts(list(url.parts))
    path = parts.path if not parts.computed else ""
    return HttpCall(method, path, line, symbol, parts.host, "", client, parts.computed)


def message(
    role: str, broker: str, name: Text | None, line: int, kind: str, symbol: str, client: str
) -> MessageFact:
    """A message fact named by ``name``: a literal, a traced address (with its default), else computed."""
    if name is None:
        return MessageFact(role, broker, "", line, kind, symbol, "", client, True)
    whole = name.literal
    if whole is not None:
        return MessageFact(role, broker, whole, line, kind, symbol, "", client, not whole)
    if name.address and not name.parts:
        return MessageFact(role, broker, name.default, line, kind, symbol, name.address, client, False)
    return MessageFact(role, broker, "", line, kind, symbol, "", client, True)


def resource_name(url: str, kind: str) -> str:
    """The queue of an SQS queue URL, the topic of an SNS ARN (the last segment), else ``url``."""
    if kind == "arn":
        return url.rsplit(":", 1)[-1]
    return url.rstrip("/").rsplit("/", 1)[-1]


def last_segment(text: Text | None, kind: str) -> Text | None:
    """``text`` (an SQS queue URL or an SNS ARN) reduced to the queue or topic it names."""
    if text is None:
        return None
    whole = text.literal
    if whole is not None:
        return literal(resource_name(whole, kind))
    if text.address and not text.parts:
        return Text((), text.address, resource_name(text.default, kind) if text.default else "")
    return None


# -- queries -------------------------------------------------------------------------------------------

_PREDICATE: Final = re.compile(r'\(#(eq|any-of|match)\?\s+@(\w+)((?:\s+"(?:[^"\\]|\\.)*")+)\s*\)')
_QUOTED: Final = re.compile(r'"((?:[^"\\]|\\.)*)"')
_Predicates = list[tuple[str, str, tuple[str, ...]]]
_plain: dict[tuple[str, str], tuple[str, list[_Predicates]]] = {}


def matches(
    language: str, pattern: str, node: tree_sitter.Node, source: bytes
) -> list[tuple[int, dict[str, list[tree_sitter.Node]]]]:
    """:func:`._common.matches` of ``pattern`` under ``node``, safe on any bytes.

    tree-sitter decodes the text a predicate (``#eq?``, ``#any-of?``, ``#match?``) looks at as UTF-8
    and raises on invalid bytes; for a source that is not plain ASCII the predicates are taken out of
    the pattern and checked here on the text decoded with replacement characters.
    """
    if source.isascii() or "(#" not in pattern:
        return _common.matches(_common.query(language, pattern), node)
    stripped, predicates = _without_predicates(language, pattern)
    found = []
    for index, captured in _common.matches(_common.query(language, stripped), node):
        if all(_holds(kind, captured.get(name, []), values, source) for kind, name, values in predicates[index]):
            found.append((index, captured))
    return found


def _without_predicates(language: str, pattern: str) -> tuple[str, list[_Predicates]]:
    """``pattern`` without its text predicates, and the predicates of each of its top-level patterns."""
    key = (language, pattern)
    if key not in _plain:
        per_pattern: list[_Predicates] = []
        depth = 0
        quoted = False
        starts: list[int] = []
        for at, char in enumerate(pattern):
            if quoted:
                quoted = char != '"' or pattern[at - 1] == "\\"
            elif char == '"':
                quoted = True
            elif char in "([":
                if depth == 0:
                    starts.append(at)
                depth += 1
            elif char in ")]":
                depth -= 1
        # a top-level pattern runs up to the next one (its captures written after it included)
        pieces = [pattern[start:end] for start, end in zip(starts, [*starts[1:], len(pattern)])]
        out = []
        for piece in pieces:
            found = [
                (kind, name, tuple(re.sub(r"\\(.)", r"\1", value) for value in _QUOTED.findall(values)))
                for kind, name, values in _PREDICATE.findall(piece)
            ]
            per_pattern.append(found)
            out.append(_PREDICATE.sub("", piece))
        _plain[key] = ("\n".join(out), per_pattern)
    return _plain[key]


def _holds(kind: str, nodes: list[tree_sitter.Node], values: tuple[str, ...], source: bytes) -> bool:
    for node in nodes:
        text = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        if kind == "eq" and text != values[0]:
            return False
        if kind == "any-of" and text not in values:
            return False
        if kind == "match" and not re.search(values[0], text):
            return False
    return True


# -- evaluating expressions ---------------------------------------------------------------------------


@attrs.frozen
class Handle:
    """A client or broker connection an expression holds: its ``kind`` (``faraday``, ``reqwest``,
    ``guzzle``, ``redis``, ``exchange``...) and its base address or name when known."""

    kind: str
    base: Text | None = None


Value = Text | Handle | None

#: How deep one expression is followed (a variable assigned a variable assigned a call...).
DEPTH_MAX: Final = 12
#: How many expressions one file's evaluator reads at most: hostile input stays linear.
READS_MAX: Final = 20_000
#: How many assignments of one name are looked at for one use (the latest ones before it).
CANDIDATES_MAX: Final = 64


def latest_before(starts: list[int], offset: int) -> range:
    """Indices into ``starts`` (sorted) of the latest :data:`CANDIDATES_MAX` entries before ``offset``,
    latest first."""
    end = bisect.bisect_left(starts, offset)
    return range(end - 1, max(end - CANDIDATES_MAX, 0) - 1, -1)


class Evaluator:
    """What expressions hold, each read once (a cycle, or too deep a chain, reads as unknown).

    A language's evaluator implements :meth:`_value`; results are kept per node, so every rule
    asking about the same expression costs one read.
    """

    def __init__(self, source: bytes) -> None:
        self.source = source
        self._memo: dict[tuple[int, int, str], Value] = {}
        self._depth = 0
        self._reads = READS_MAX

    def value(self, node: tree_sitter.Node | None) -> Value:
        """What ``node`` holds: a :class:`Text`, a :class:`Handle`, or None when unknown."""
        if node is None:
            return None
        key = (node.start_byte, node.end_byte, node.type)
        if key in self._memo:
            return self._memo[key]
        if self._depth >= DEPTH_MAX or self._reads <= 0:
            return None
        self._reads -= 1
        self._memo[key] = None
        self._depth += 1
        try:
            held = self._value(node)
        finally:
            self._depth -= 1
        self._memo[key] = held
        return held

    def text(self, node: tree_sitter.Node | None) -> Text | None:
        """The string ``node`` holds (the expression as written when it cannot be read; None for a handle)."""
        if node is None:
            return None
        held = self.value(node)
        if isinstance(held, Text):
            return held
        if isinstance(held, Handle):
            return None
        return unknown(_ts.text(node, self.source))

    def _value(self, node: tree_sitter.Node) -> Value:
        raise NotImplementedError


# -- enclosing definitions ------------------------------------------------------------------------------


class Symbols:
    """The innermost definition holding a byte offset, as a dotted name: a bisection and a climb through
    the enclosing definitions (never a scan of the definitions before it)."""

    def __init__(self, spans: list[tuple[int, int, str]]) -> None:
        """``spans`` are (start byte, end byte, dotted name); nested spans lie inside their parents."""
        ordered = sorted(spans, key=lambda span: (span[0], -span[1]))
        self._starts = [start for start, _, _ in ordered]
        self._ends = [end for _, end, _ in ordered]
        self._names = [name for _, _, name in ordered]
        self._parents: list[int] = []
        open_: list[int] = []
        for index, (start, end, _) in enumerate(ordered):
            while open_ and self._ends[open_[-1]] <= start:
                open_.pop()
            self._parents.append(open_[-1] if open_ else -1)
            open_.append(index)

    def at(self, offset: int) -> str:
        """The dotted name of the innermost span holding ``offset`` ("" when none does)."""
        index = bisect.bisect_right(self._starts, offset) - 1
        while index >= 0 and self._ends[index] <= offset:
            index = self._parents[index]
        return self._names[index] if index >= 0 else ""


# -- constants --------------------------------------------------------------------------------------

_LINK_WORDS: Final = frozenset(
    {
        "topic",
        "queue",
        "channel",
        "exchange",
        "subject",
        "stream",
        "event",
        "destination",
        "route",
        "path",
        "url",
        "uri",
        "endpoint",
        "address",
        "host",
    }
)
_SECRET_WORDS: Final = frozenset({"key", "keys", "token", "tokens", "secret", "secrets", "password", "passwords"})
_WORDS: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_USERINFO: Final = re.compile(r"^[a-zA-Z][\w+.-]*://[^/@\s]*:[^/@\s]*@")


def _words(name: str) -> list[str]:
    return [word.lower() for word in _WORDS.findall(name)]


def _names_link(word: str) -> bool:
    return (
        word in _LINK_WORDS
        or word.endswith("s")
        and word[:-1] in _LINK_WORDS
        or word.endswith("es")
        and word[:-2] in _LINK_WORDS
    )


def is_link_constant(name: str, owner: str, value: str) -> bool:
    """Whether a string constant may be kept as a :class:`Constant` (see its docstring)."""
    if not value or len(value) > 200 or any(c.isspace() for c in value) or _USERINFO.match(value):
        return False
    words = _words(name)
    if secret_name(name) or secret_name(owner) or any(word in _SECRET_WORDS for word in words):
        return False
    return any(_names_link(word) for word in words) or any(_names_link(word) for word in _words(owner))


# -- collecting ---------------------------------------------------------------------------------------


@attrs.frozen
class Links:
    routes: tuple[HttpRoute, ...] = ()
    calls: tuple[HttpCall, ...] = ()
    messages: tuple[MessageFact, ...] = ()
    constants: tuple[Constant, ...] = ()


class Found:
    """The link facts of one file, each keyed by the byte offset of what it is about."""

    def __init__(self) -> None:
        #: (offset, fact) -> the order it was added in (dict order, never hashes, decides nothing)
        self._facts: dict[tuple[int, HttpRoute | HttpCall | MessageFact | Constant], int] = {}

    def add(self, offset: int, fact: HttpRoute | HttpCall | MessageFact | Constant) -> None:
        """Keep ``fact`` (anchored at byte ``offset``); the same fact at the same place is kept once."""
        self._facts.setdefault((offset, fact), len(self._facts))

    def done(self) -> Links:
        """The facts in source order (ties: the order they were added)."""
        ordered = sorted(self._facts.items(), key=lambda item: (item[0][0], item[1]))
        facts = [fact for (_, fact), _ in ordered]
        return Links(
            tuple(f for f in facts if isinstance(f, HttpRoute)),
            tuple(f for f in facts if isinstance(f, HttpCall)),
            tuple(f for f in facts if isinstance(f, MessageFact)),
            tuple(f for f in facts if isinstance(f, Constant)),
        )
