"""HTTP and messaging links of one snapshot: routes, calls, topics, and who reaches whom.

Theory of operation
-------------------
The build resolved each call's target (``http_calls.target``, with its ``confidence`` and
``evidence``) and each message's topic (``messages.topic``); here they are read and joined:

* a **call meets a route** when the methods agree (``*`` meets any) and the call's path (with the
  base path its address gave, ``full_path``) fits the route's template (:func:`route_matches`); a
  call whose target service is known meets only that service's routes;
* a **topic** joins its producers and consumers by name, compared without case; the **broker** is
  the external service the deployments name for that kind of broker (``rabbitmq`` for RabbitMQ, an
  image holding ``kafka`` or ``redpanda`` for Kafka...), else the broker's own word;
* calls in test files are evidence of nothing deployed: they are listed, never drawn as edges.

Everything is sorted (by path, line), so one snapshot gives one answer.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Final

import attrs

from .._facts import path_shape, route_matches

__all__ = [
    "BROKER_WORDS",
    "Call",
    "Links",
    "Message",
    "LinkTargetError",
    "Route",
    "RouteTrace",
    "ServiceLinks",
    "TopicTrace",
    "broker_nodes",
    "by_topic",
    "load_links",
    "parse_route",
    "trace_endpoint",
]

#: Words in an external service's name or image that say which broker it is.
BROKER_WORDS: Final = {
    "kafka": ("kafka", "redpanda", "cp-server"),
    "rabbitmq": ("rabbitmq", "rabbit", "amqp"),
    "nats": ("nats",),
    "redis": ("redis", "valkey", "keydb"),
    "sqs": ("sqs", "localstack", "elasticmq"),
    "sns": ("sns", "localstack"),
    "pubsub": ("pubsub",),
    "eventbus": ("rabbitmq", "eventbus", "servicebus", "kafka"),
}
_VERB: Final = re.compile(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|TRACE|CONNECT|\*)\s+(\S+)$", re.I)


@attrs.frozen
class Route:
    method: str
    path: str
    shape: str
    file: str
    line: int
    service: str
    handler: str = ""
    symbol: str = ""
    framework: str = ""
    #: ``path:line`` of the mount that prefixed it ("" when declared whole).
    via: str = ""
    test: bool = False

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"


@attrs.frozen
class Call:
    method: str
    #: As the code writes it (``full_path`` adds the base path an address gave).
    path: str
    full_path: str
    file: str
    line: int
    service: str
    symbol: str = ""
    host: str = ""
    address: str = ""
    client: str = ""
    computed: bool = False
    #: The service (or external, or outside host) reached; "" when unknown.
    target: str = ""
    #: "service" | "external" | "outside" | "".
    target_kind: str = ""
    #: host | env | config | client | const | route | name ("" when no target).
    confidence: str = ""
    evidence: str = ""
    test: bool = False

    @property
    def shape(self) -> str:
        return path_shape(self.full_path or self.path) if (self.full_path or self.path) else ""

    @property
    def label(self) -> str:
        return f"{self.method} {self.full_path or self.path}" if not self.computed else f"{self.method} (computed URL)"


@attrs.frozen
class Message:
    role: str
    broker: str
    #: The topic as resolved (a constant's value...), "" when computed.
    topic: str
    file: str
    line: int
    service: str
    kind: str = ""
    symbol: str = ""
    address: str = ""
    client: str = ""
    computed: bool = False
    #: How the topic was read when not literal ("constant X (file:line)").
    via: str = ""
    test: bool = False


@attrs.frozen(slots=False)
class Links:
    routes: tuple[Route, ...]
    calls: tuple[Call, ...]
    messages: tuple[Message, ...]
    #: broker word -> the node that stands for it (an external's name, else the word).
    brokers: dict[str, str]

    @functools.cached_property
    def _by_segments(self) -> ShapeTrie:
        """The routes' shapes segment by segment: a call finds the routes it reaches by walking its
        own, not by trying every route (``/v1/...`` APIs share their first segment)."""
        return ShapeTrie([route.shape for route in self.routes])

    @functools.cached_property
    def _reached(self) -> dict[int, tuple[int, ...]]:
        """Call index -> the indexes of the routes it reaches (computed once per answer)."""
        found = {}
        for index, call in enumerate(self.calls):
            found[index] = tuple(self._fitting(call))
        return found

    @functools.cached_property
    def _callers(self) -> dict[int, tuple[int, ...]]:
        """Route index -> the indexes of the calls reaching it, with the rule of :meth:`callers_of`."""
        found: dict[int, list[int]] = defaultdict(list)
        for index, reached in self._reached.items():
            call = self.calls[index]
            for route_index in reached:
                route = self.routes[route_index]
                if call.target == route.service or (not call.target and call.service != route.service):
                    found[route_index].append(index)
        return {key: tuple(value) for key, value in found.items()}

    def _fitting(self, call: Call) -> list[int]:
        shape = call.shape
        if call.computed or not shape or call.target_kind == "outside":
            return []
        return [
            index
            for index in self._by_segments.matching(shape)  # exactly those route_matches accepts
            if ((route := self.routes[index]).method == "*" or call.method == "*" or route.method == call.method)
            and not route.test
            and (not call.target or call.target_kind != "service" or route.service == call.target)
        ]

    @functools.cached_property
    def _call_index(self) -> dict[Call, int]:
        return {call: index for index, call in reversed(list(enumerate(self.calls)))}

    @functools.cached_property
    def _route_index(self) -> dict[Route, int]:
        return {route: index for index, route in reversed(list(enumerate(self.routes)))}

    def routes_of(self, call: Call) -> list[Route]:
        """The routes ``call`` reaches: of its target service when known, else of any service."""
        index = self._call_index.get(call)
        if index is None:
            return [self.routes[i] for i in self._fitting(call)]
        return [self.routes[i] for i in self._reached[index]]

    def callers_of(self, route: Route) -> list[Call]:
        """Calls reaching ``route``: those whose target is its service, and those of another service
        whose target is unknown (the route may be one of several that fit)."""
        index = self._route_index.get(route)
        return [] if index is None else [self.calls[i] for i in self._callers.get(index, ())]

    def broker_of(self, message: Message) -> str:
        return self.brokers.get(message.broker, message.broker or "broker")


class ShapeTrie:
    """Route shapes (:func:`~mesh.index._facts.path_shape`) by segment, to find the ones a call's
    shape reaches as :func:`~mesh.index._facts.route_matches` decides, in time with the call's
    segments and the routes that share them, not with every route."""

    def __init__(self, shapes: Sequence[str]) -> None:
        #: node: (children by segment, routes ending here, routes with ``{*}`` at this depth)
        self._root = self._node()
        for index, shape in enumerate(shapes):
            node = self._root
            for segment in _segments(shape):
                if segment == "{*}":
                    node[2].append(index)
                    break
                node = node[0].setdefault(segment, self._node())
            else:
                node[1].append(index)

    @staticmethod
    def _node() -> tuple[dict, list[int], list[int]]:
        return ({}, [], [])

    def matching(self, call_shape: str) -> list[int]:
        """The indexes of the shapes a call to ``call_shape`` reaches, in order: a route's ``{}``
        takes any one segment, ``{*}`` the rest (or none); a call's ``{}`` only a route's ``{}``."""
        call = _segments(call_shape)
        found: list[int] = []
        stack = [(self._root, 0)]
        while stack:
            (children, ending, rest), depth = stack.pop()
            found += rest
            if depth == len(call):
                found += ending
                continue
            for segment in {call[depth], "{}"}:
                child = children.get(segment)
                if child is not None:
                    stack.append((child, depth + 1))
        return sorted(set(found))


def _segments(shape: str) -> list[str]:
    """A shape's segments as :func:`~mesh.index._facts.route_matches` splits it."""
    return shape.strip("/").split("/") if shape != "/" else []


def parse_route(text: str) -> tuple[str, str] | None:
    """``"POST /invoices"`` -> ("POST", "/invoices"); ``"/invoices"`` -> ("*", "/invoices"); None when
    ``text`` is not a route."""
    text = text.strip()
    match = _VERB.match(text)
    if match:
        return match[1].upper(), match[2] if match[2].startswith("/") else "/" + match[2]
    if text.startswith("/") and " " not in text:
        return "*", text
    return None


def broker_nodes(db: sqlite3.Connection, brokers: Iterable[str]) -> dict[str, str]:
    """For each broker word, the external service that stands for it (by name, then by image)."""
    externals = db.execute("SELECT name, what FROM externals ORDER BY name").fetchall()
    found = {}
    for broker in sorted(set(brokers)):
        words = BROKER_WORDS.get(broker, (broker,)) if broker else ()
        chosen = next((name for name, _ in externals for word in words if word in name.lower()), None)
        chosen = chosen or next((name for name, what in externals for word in words if word in what.lower()), None)
        found[broker] = chosen or (broker or "broker")
    return found


def load_links(db: sqlite3.Connection) -> Links:
    """Every route, call and message of the snapshot ``db``."""
    routes = tuple(
        Route(method, path, shape, file, line, service, handler, symbol, framework, via, kind == "test")
        for method, path, shape, file, line, service, handler, symbol, framework, via, kind in db.execute(
            "SELECT r.method, r.path, r.shape, f.path, r.line, f.service, r.handler, r.symbol, r.framework, r.via,"
            " f.kind FROM http_routes r JOIN files f ON f.id = r.file_id WHERE r.hidden = 0 AND r.mount = ''"
            " ORDER BY f.path, r.line, r.path, r.method"
        )
    )
    calls = tuple(
        Call(method, path, full, file, line, service, symbol, host, address, client, bool(computed), target,
             target_kind, confidence, evidence, kind == "test")  # fmt: skip
        for method, path, full, file, line, service, symbol, host, address, client, computed, target, target_kind,
        confidence, evidence, kind in db.execute(
            "SELECT c.method, c.path, c.full_path, f.path, c.line, f.service, c.symbol, c.host, c.address, c.client,"
            " c.computed, c.target, c.target_kind, c.confidence, c.evidence, f.kind FROM http_calls c"
            " JOIN files f ON f.id = c.file_id ORDER BY f.path, c.line, c.path"
        )
    )
    messages = tuple(
        Message(role, broker, topic, file, line, service, kind, symbol, address, client, bool(computed), via,
                file_kind == "test")  # fmt: skip
        for role, broker, topic, file, line, service, kind, symbol, address, client, computed, via, file_kind
        in db.execute(
            "SELECT m.role, m.broker, m.topic, f.path, m.line, f.service, m.kind, m.symbol, m.address, m.client,"
            " m.computed, m.topic_via, f.kind FROM messages m JOIN files f ON f.id = m.file_id"
            " WHERE m.hidden = 0 ORDER BY f.path, m.line, m.topic"
        )
    )
    return Links(routes, calls, messages, broker_nodes(db, {m.broker for m in messages}))


def topic_key(topic: str) -> str:
    return topic.lower()


def by_topic(messages: Sequence[Message]) -> dict[str, list[Message]]:
    """Messages with a readable topic, by :func:`topic_key`."""
    found: dict[str, list[Message]] = defaultdict(list)
    for message in messages:
        if message.topic:
            found[topic_key(message.topic)].append(message)
    return dict(sorted(found.items()))


# -- endpoint_trace -------------------------------------------------------------------------------

#: Names suggested for a target that names nothing.
SUGGESTIONS_MAX: Final = 6


class LinkTargetError(ValueError):
    def __init__(self, message: str, suggestions: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.suggestions = tuple(suggestions)


@attrs.frozen
class RouteTrace:
    """A route (``method``, ``path`` as asked): the routes that fit it and who calls them."""

    method: str
    path: str
    #: Declared routes that fit, by file and line (contracts of OpenAPI documents among them).
    routes: tuple[Route, ...]
    #: route index -> its callers.
    callers: tuple[tuple[Call, ...], ...]
    #: Calls that fit the path but reach no declared route (served nowhere in the workspace).
    unserved: tuple[Call, ...]
    #: service -> how many calls it makes whose URL is computed (they may reach it, unknown).
    computed: tuple[tuple[str, int], ...]


@attrs.frozen
class TopicTrace:
    topic: str
    #: Broker words and the nodes standing for them.
    brokers: tuple[tuple[str, str], ...]
    producers: tuple[Message, ...]
    consumers: tuple[Message, ...]
    #: Other names given as the topic's kind (``exchange``, ``queue``...), sorted.
    kinds: tuple[str, ...]


@attrs.frozen
class ServiceLinks:
    service: str
    #: Routes it serves, each with its callers from other services.
    served: tuple[tuple[Route, tuple[Call, ...]], ...]
    #: Calls it makes (with their targets, computed ones included).
    calls: tuple[Call, ...]
    produced: tuple[Message, ...]
    consumed: tuple[Message, ...]
    #: topic -> the other services at the other end (consumers of what it produces, producers of
    #: what it consumes).
    peers: tuple[tuple[str, tuple[str, ...]], ...]
    #: (kind, direction, other service): gRPC and import edges from the service graph.
    grpc: tuple[tuple[str, str, str], ...]
    #: Broker words and the nodes standing for them.
    brokers: tuple[tuple[str, str], ...] = ()


def trace_endpoint(db: sqlite3.Connection, text: str) -> RouteTrace | TopicTrace | ServiceLinks:
    """What ``text`` names: a route (``POST /invoices``, ``/invoices/{id}``), a service, or a topic."""
    text = text.strip()
    links = load_links(db)
    route = parse_route(text)
    if route is not None:
        return _route_trace(links, *route)
    services = [name for (name,) in db.execute("SELECT name FROM services ORDER BY name")]
    if text in services:
        return _service_links(db, links, text)
    topics = by_topic(links.messages)
    if topic_key(text) in topics:
        return _topic_trace(links, topics[topic_key(text)])
    lowered = {name.lower(): name for name in services}
    if text.lower() in lowered:
        return _service_links(db, links, lowered[text.lower()])
    raise LinkTargetError(
        f"No route, service or topic is named `{text}`.",
        _suggest(text, [*services, *(m[0].topic for m in topics.values()), *sorted({r.path for r in links.routes})]),
    )


def _suggest(text: str, names: Sequence[str]) -> list[str]:
    """The names closest to ``text`` (by difflib's ratio, without case), best first, ties by name."""
    import difflib

    lowered = text.lower()
    scored = []
    for name in sorted(set(names)):
        ratio = difflib.SequenceMatcher(None, lowered, name.lower()).ratio()
        if ratio >= 0.5 or lowered in name.lower():
            scored.append((-ratio, name))
    return [name for _, name in sorted(scored)[:SUGGESTIONS_MAX]]


def _route_trace(links: Links, method: str, path: str) -> RouteTrace:
    asked = path_shape(path)
    methods = [route for route in links.routes if method == "*" or route.method in ("*", method)]
    # the routes that serve what was asked (a template covering it); only when none does, those a
    # template asked for covers (``/orders/{id}`` asked, ``/orders/by-date`` declared)
    routes = [route for route in methods if route_matches(route.shape, asked)]
    routes = routes or [route for route in methods if route_matches(asked, route.shape)]
    callers = tuple(tuple(links.callers_of(route)) for route in routes)
    reached = {(c.file, c.line) for group in callers for c in group}
    unserved = tuple(
        call
        for call in links.calls
        if (call.file, call.line) not in reached
        and call.shape
        and (method == "*" or call.method in ("*", method))
        and (route_matches(asked, call.shape) or call.shape == asked)
        and not links.routes_of(call)
    )
    if not routes and not unserved:
        paths = sorted({r.label for r in links.routes} | {c.label for c in links.calls if c.shape})
        raise LinkTargetError(
            f"No route of the workspace fits `{method} {path}`, and no call reaches it."
            if method != "*"
            else f"No route of the workspace fits `{path}`, and no call reaches it.",
            _suggest(path, [p.split(" ", 1)[1] for p in paths]),
        )
    computed: dict[str, int] = defaultdict(int)
    for call in links.calls:
        if call.computed and not call.test:
            computed[call.service] += 1
    return RouteTrace(method, path, tuple(routes), callers, unserved, tuple(sorted(computed.items())))


def _topic_trace(links: Links, messages: Sequence[Message]) -> TopicTrace:
    brokers = sorted({(m.broker, links.broker_of(m)) for m in messages})
    return TopicTrace(
        topic=messages[0].topic,
        brokers=tuple(brokers),
        producers=tuple(m for m in messages if m.role == "produce"),
        consumers=tuple(m for m in messages if m.role == "consume"),
        kinds=tuple(sorted({m.kind for m in messages if m.kind})),
    )


def _service_links(db: sqlite3.Connection, links: Links, service: str) -> ServiceLinks:
    from ._service_graph import service_graph

    served = tuple(
        (route, tuple(c for c in links.callers_of(route) if c.service != service))
        for route in links.routes
        if route.service == service
    )
    calls = tuple(call for call in links.calls if call.service == service)
    produced = tuple(m for m in links.messages if m.service == service and m.role == "produce")
    consumed = tuple(m for m in links.messages if m.service == service and m.role == "consume")
    topics = by_topic(links.messages)
    peers = []
    for message in (*produced, *consumed):
        if not message.topic:
            continue
        other_role = "consume" if message.role == "produce" else "produce"
        others = sorted({m.service for m in topics.get(topic_key(message.topic), []) if m.role == other_role
                         and m.service != service and not m.test})  # fmt: skip
        peers.append((message.topic, tuple(others)))
    grpc = []
    for edge in service_graph(db).edges:
        if edge.kind not in ("grpc", "import"):
            continue
        if edge.source == service:
            grpc.append((edge.kind, "out", edge.target))
        elif edge.target == service:
            grpc.append((edge.kind, "in", edge.source))
    return ServiceLinks(
        service, served, calls, produced, consumed, tuple(sorted(set(peers))), tuple(sorted(set(grpc))),
        tuple(sorted(links.brokers.items())),
    )  # fmt: skip
