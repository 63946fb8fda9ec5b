"""The Markdown of an endpoint trace: a route, a topic, or every link of a service.

An answer has a fixed part (heading and summary; on the first page the diagram and the gaps after
the sites) and a paged part: the sites, by section (servers, callers, producers...), each a line
``file:line`` with its enclosing definition, its service and, for a call, how its target was known
(the address evidence). A page is a prefix of the sites from ``offset`` that fits ``page_bytes``
with the fixed part (at least one site); a partial page ends with the footer of :mod:`._paging`.
Same trace and arguments, same bytes. :func:`compose_endpoint` gives the same page as an
:class:`EndpointResult` too (with the diagram's edges and the gaps on every page).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Final, Literal

import attrs

from ..index.query._links import Call, Message, Route, RouteTrace, ServiceLinks, TopicTrace
from ._paging import Page, Paging, Rendered, code, footer_of, page_of

__all__ = ["PAGE_BYTES", "TOOL", "EndpointResult", "Item", "compose_endpoint", "items_of", "render_endpoint"]

PAGE_BYTES: Final = 8 * 1024
TOOL: Final = "endpoint_trace"
DIAGRAM_EDGES_MAX: Final = 24
GAPS_MAX: Final = 12

Trace = RouteTrace | TopicTrace | ServiceLinks

#: What a call's ``confidence`` says, before its evidence.
_HOW: Final = {
    "host": "by host",
    "env": "by its deployment's environment",
    "config": "by a setting",
    "client": "by its typed client",
    "const": "by a constant",
    "route": "by path alone",
    "name": "by a variable's name alone (low confidence)",
}


@attrs.frozen
class Item:
    section: str
    path: str
    text: str
    #: The fact the line shows (exactly one of the three), the broker's node for a message, and
    #: whether a call is listed under the route it reaches.
    route: Route | None = None
    call: Call | None = None
    message: Message | None = None
    broker: str = ""
    caller: bool = False


@attrs.frozen
class EndpointSite:
    """One site of the paged part, under its section: a route served, a call made, a message."""

    section: str
    kind: Literal["route", "call", "message"]
    #: The route or call as the answer writes it (``GET /orders/{id}``), or the topic ("" when computed).
    label: str
    #: A call listed under the route it reaches.
    caller: bool
    route: Route | None
    call: Call | None
    message: Message | None
    #: For a message: the node standing for its broker.
    broker: str


@attrs.frozen
class LinkEdge:
    """An edge of the answer's diagram: ``count`` links from ``source`` to ``target``."""

    source: str
    target: str
    label: str
    count: int


@attrs.frozen
class EndpointResult:
    """A page of ``endpoint_trace``: what was traced, the diagram's edges, the gaps and the sites shown."""

    kind: Literal["route", "topic", "service"]
    #: The route (``GET /orders/{id}``, or a path for any method), the topic, or the service.
    target: str
    #: The answer's summary sentence (Markdown).
    summary: str
    #: The diagram's edges (the first 24), and how many.
    edges: list[LinkEdge]
    edges_total: int
    #: The gaps (the first 12, as sentences in Markdown), and how many.
    gaps: list[str]
    gaps_total: int
    sites: list[EndpointSite]
    page: Page


def _where(path: str, line: int, symbol: str) -> str:
    inside = f" in {code(symbol)}" if symbol else ""
    return f"{code(f'{path}:{line}')}{inside}"


def _service(name: str) -> str:
    return f"**{name}**" if name else "**(no service)**"


def _test(flag: bool) -> str:
    return " (test)" if flag else ""


def _route_line(route: Route) -> str:
    handler = f" → {code(route.handler)}" if route.handler else ""
    via = f", mounted at {code(route.via)}" if route.via else ""
    framework = f" ({route.framework}{via})" if route.framework else ""
    return f"- {code(route.label)}{handler}: {_service(route.service)} {_where(route.file, route.line, route.symbol)}{framework}{_test(route.test)}\n"


def _call_line(call: Call, *, target: bool = True) -> str:
    reached = ""
    if target and call.target:
        reached = f" → {_service(call.target)}" + (" (outside the workspace)" if call.target_kind == "outside" else "")
    evidence = ""
    if call.confidence:
        evidence = f"; {_HOW.get(call.confidence, call.confidence)}: {code(call.evidence)}" if call.evidence else ""
    elif call.address:
        evidence = f"; address {code(call.address)} not resolved"
    client = f" [{call.client}]" if call.client else ""
    return (
        f"- {code(call.label)}{reached}: {_service(call.service)} {_where(call.file, call.line, call.symbol)}"
        f"{client}{evidence}{_test(call.test)}\n"
    )


def _message_line(message: Message, broker: str) -> str:
    kind = f" {message.kind}" if message.kind else ""
    via = f"; name from {code(message.via)}" if message.via else ""
    if message.computed or not message.topic:
        name = "(computed name)"
    else:
        name = code(message.topic)
    client = f" [{message.client}]" if message.client else ""
    return (
        f"- {message.role} {name}{kind} on {broker}: {_service(message.service)}"
        f" {_where(message.file, message.line, message.symbol)}{client}{via}{_test(message.test)}\n"
    )


def items_of(trace: Trace) -> list[Item]:
    """The sites the paged part lists, in order."""
    brokers = dict(trace.brokers) if isinstance(trace, ServiceLinks) else {}
    items: list[Item] = []
    if isinstance(trace, RouteTrace):
        for route, callers in zip(trace.routes, trace.callers, strict=True):
            kind = "contract (OpenAPI)" if route.framework == "openapi" else "served"
            section = f"{code(route.label)}, {kind} by {route.service or '(no service)'}"
            items.append(Item(section, route.file, _route_line(route), route=route))
            for call in callers:
                items.append(Item(section, call.file, "  " + _call_line(call), call=call, caller=True))
        for call in trace.unserved:
            items.append(Item("Called, served nowhere in the workspace", call.file, _call_line(call), call=call))
    elif isinstance(trace, TopicTrace):
        names = dict(trace.brokers)
        for section, messages in (("Producers", trace.producers), ("Consumers", trace.consumers)):
            for message in messages:
                broker = names.get(message.broker, message.broker)
                items.append(
                    Item(section, message.file, _message_line(message, broker), message=message, broker=broker)
                )
    else:
        for route, callers in trace.served:
            items.append(Item("Inbound HTTP: routes served", route.file, _route_line(route), route=route))
            for call in callers:
                items.append(
                    Item("Inbound HTTP: routes served", call.file, "  " + _call_line(call), call=call, caller=True)
                )
        for call in trace.calls:
            items.append(Item("Outbound HTTP: calls made", call.file, _call_line(call), call=call))
        for section, messages in (("Messages produced", trace.produced), ("Messages consumed", trace.consumed)):
            for message in messages:
                broker = brokers.get(message.broker, message.broker)
                items.append(
                    Item(section, message.file, _message_line(message, broker), message=message, broker=broker)
                )
    return items


def _count(number: int, noun: str, plural: str | None = None) -> str:
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def _summary(trace: Trace) -> str:
    if isinstance(trace, RouteTrace):
        servers = sorted({r.service for r in trace.routes if r.framework != "openapi" and not r.test})
        callers = sorted({c.service for group in trace.callers for c in group if not c.test})
        asked = f"{trace.method} {trace.path}" if trace.method != "*" else trace.path
        sites = sum(len(g) for g in trace.callers)
        called = f"{_count(sites, 'call site')} from {_count(len(callers), 'service')}" if sites else "no call site"
        text = (
            f"{code(asked)}: {_count(len(trace.routes), 'route')} {'fits' if len(trace.routes) == 1 else 'fit'}"
            f"{' (served by ' + ', '.join(servers) + ')' if servers else ''}; {called}"
        )
        if trace.unserved:
            one = len(trace.unserved) == 1
            text += (
                f"; {_count(len(trace.unserved), 'call')} {'fits' if one else 'fit'} the path but"
                f" {'reaches' if one else 'reach'} no declared route"
            )
        return text + "."
    if isinstance(trace, TopicTrace):
        brokers = ", ".join(node for _, node in trace.brokers) or "an unknown broker"
        producers = sorted({m.service for m in trace.producers})
        consumers = sorted({m.service for m in trace.consumers})
        kinds = f" ({', '.join(trace.kinds)})" if trace.kinds else ""
        return (
            f"{code(trace.topic)}{kinds} on {brokers}: produced by {', '.join(producers) or 'nobody in the workspace'};"
            f" consumed by {', '.join(consumers) or 'nobody in the workspace'}."
        )
    calls = [c for c in trace.calls if not c.test]
    computed = sum(1 for c in calls if c.computed)
    targets = sorted({c.target for c in calls if c.target and c.target != trace.service})
    inbound = sorted({c.service for _, callers in trace.served for c in callers if not c.test})
    text = (
        f"{_service(trace.service)} serves {_count(len(trace.served), 'route')}"
        f"{' called by ' + ', '.join(inbound) if inbound else ''}; makes {_count(len(calls), 'HTTP call')}"
        f"{' to ' + ', '.join(targets) if targets else ''}"
    )
    if computed:
        text += f" ({_count(computed, 'call')} with a computed URL in {trace.service})"
    text += f"; produces {_count(len(trace.produced), 'message')} and consumes {_count(len(trace.consumed), 'message')}."
    grpc_out = sorted({other for kind, way, other in trace.grpc if kind == "grpc" and way == "out"})
    grpc_in = sorted({other for kind, way, other in trace.grpc if kind == "grpc" and way == "in"})
    if grpc_out or grpc_in:
        text += f" gRPC: calls {', '.join(grpc_out) or 'none'}; called by {', '.join(grpc_in) or 'none'}."
    return text


def _mermaid_id(name: str) -> str:
    return "n_" + "".join(ch if ch.isalnum() else "_" for ch in name)


def _diagram(trace: Trace) -> str:
    edges = _edges(trace)
    if not edges:
        return ""
    lines = ["", "### Diagram", "", "```mermaid", "flowchart LR"]
    names = sorted({name for source, target, _ in edges for name in (source, target)})
    for name in names:
        lines.append(f'  {_mermaid_id(name)}["{name}"]')
    shown = sorted(edges.items())[:DIAGRAM_EDGES_MAX]
    for (source, target, label), count in shown:
        text = label.replace('"', "'").replace("|", "/")
        suffix = f" ×{count}" if count > 1 else ""
        lines.append(f'  {_mermaid_id(source)} -->|"{text}{suffix}"| {_mermaid_id(target)}')
    lines.append("```")
    if len(edges) > DIAGRAM_EDGES_MAX:
        lines.append(f"({len(edges) - DIAGRAM_EDGES_MAX} more edges not drawn.)")
    return "\n".join(lines) + "\n"


def _edges(trace: Trace) -> Counter[tuple[str, str, str]]:
    """The diagram's edges: (source, target, label) -> how many links."""
    edges: Counter[tuple[str, str, str]] = Counter()
    if isinstance(trace, RouteTrace):
        for route, callers in zip(trace.routes, trace.callers, strict=True):
            for call in callers:
                if not call.test:
                    edges[(call.service or "(no service)", route.service or "(no service)", route.label)] += 1
    elif isinstance(trace, TopicTrace):
        broker = trace.brokers[0][1] if trace.brokers else "broker"
        for message in trace.producers:
            edges[(message.service or "(no service)", broker, trace.topic)] += 1
        for message in trace.consumers:
            edges[(broker, message.service or "(no service)", trace.topic)] += 1
    else:
        for route, callers in trace.served:
            for call in callers:
                if not call.test:
                    edges[(call.service or "(no service)", trace.service, "HTTP")] += 1
        for call in trace.calls:
            if call.target and not call.test and call.target != trace.service:
                edges[(trace.service, call.target, "HTTP")] += 1
        for topic, others in trace.peers:
            for other in others:
                produced = any(m.topic == topic for m in trace.produced)
                source, target = (trace.service, other) if produced else (other, trace.service)
                edges[(source, target, topic)] += 1
        for kind, way, other in trace.grpc:
            if kind == "grpc":
                edges[(trace.service, other, "gRPC") if way == "out" else (other, trace.service, "gRPC")] += 1
    return edges


def _gaps(trace: Trace) -> str:
    gaps = _gap_list(trace)
    if not gaps:
        return ""
    lines = ["", "### Gaps", ""] + [f"- {gap}" for gap in gaps[:GAPS_MAX]]
    if len(gaps) > GAPS_MAX:
        lines.append(f"- and {len(gaps) - GAPS_MAX} more")
    return "\n".join(lines) + "\n"


def _gap_list(trace: Trace) -> list[str]:
    gaps: list[str] = []
    if isinstance(trace, RouteTrace):
        for route, callers in zip(trace.routes, trace.callers, strict=True):
            if not any(not c.test for c in callers) and route.framework != "openapi":
                where = "outside tests" if callers else "inside the workspace"
                gaps.append(f"{code(route.label)} ({route.service}) is served but never called {where}")
        for call in trace.unserved:
            gaps.append(f"{code(call.label)} is called at {code(f'{call.file}:{call.line}')} but served nowhere in the workspace")
        if trace.computed:
            spread = ", ".join(f"{count} in {service or '(no service)'}" for service, count in trace.computed)
            gaps.append(f"calls with a computed URL, which may reach it: {spread}")
    elif isinstance(trace, TopicTrace):
        if not trace.consumers:
            gaps.append("produced but never consumed inside the workspace")
        if not trace.producers:
            gaps.append("consumed but never produced inside the workspace")
    else:
        unresolved = [c for c in trace.calls if not c.target and not c.computed and not c.test]
        if unresolved:
            gaps.append(f"{_count(len(unresolved), 'call')} whose target is unknown (no host, no wiring, no single route)")
        computed = [c for c in trace.calls if c.computed and not c.test]
        if computed:
            gaps.append(f"{_count(len(computed), 'call')} with a computed URL in {trace.service}: never linked")
        for topic, others in trace.peers:
            if not others:
                gaps.append(f"topic {code(topic)} has no counterpart service in the workspace")
    return gaps


def _heading(trace: Trace) -> str:
    if isinstance(trace, RouteTrace):
        return f"## Route {code(_target(trace))}"
    if isinstance(trace, TopicTrace):
        return f"## Topic {code(trace.topic)}"
    return f"## Links of {code(trace.service)}"


def render_endpoint(
    trace: Trace,
    arguments: Mapping[str, object],
    *,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
) -> str:
    """One page of ``trace`` from ``offset``; ``arguments`` are the call's (for follow-up calls)."""
    return compose_endpoint(trace, arguments, offset=offset, page_bytes=page_bytes).text


def compose_endpoint(
    trace: Trace,
    arguments: Mapping[str, object],
    *,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
) -> Rendered:
    """:func:`render_endpoint`, with the :class:`EndpointResult` of the same page."""
    items = items_of(trace)
    summary = _summary(trace)
    head = f"{_heading(trace)}\n\n{summary}\n"
    bottom = "" if offset else _diagram(trace) + _gaps(trace)
    used = len((head + bottom).encode("utf-8"))
    middle, shown = _page(items, offset, used, page_bytes)
    if not items and not offset:
        middle = "\nNo site.\n"
    end = offset + shown
    paging = Paging(shown=shown, total=len(items), noun="sites", next_cursor=str(end) if end < len(items) else None,
                    first=offset)  # fmt: skip
    facts = page_of(paging, tool=TOOL, arguments=arguments, paths=())  # no scope to narrow to
    footer = footer_of(facts)
    edges = sorted(_edges(trace).items())
    gaps = _gap_list(trace)
    result = EndpointResult(
        kind="route" if isinstance(trace, RouteTrace) else "topic" if isinstance(trace, TopicTrace) else "service",
        target=_target(trace),
        summary=summary,
        edges=[LinkEdge(source, target, label, count) for (source, target, label), count in edges[:DIAGRAM_EDGES_MAX]],
        edges_total=len(edges),
        gaps=gaps[:GAPS_MAX],
        gaps_total=len(gaps),
        sites=[_site(item) for item in items[offset:end]],
        page=facts,
    )
    return Rendered(head + middle + bottom + ("\n" + footer if footer else ""), result)


def _target(trace: Trace) -> str:
    if isinstance(trace, RouteTrace):
        return f"{trace.method} {trace.path}" if trace.method != "*" else trace.path
    if isinstance(trace, TopicTrace):
        return trace.topic
    return trace.service


def _site(item: Item) -> EndpointSite:
    if item.route is not None:
        kind: Literal["route", "call", "message"] = "route"
        label = item.route.label
    elif item.call is not None:
        kind, label = "call", item.call.label
    else:
        assert item.message is not None
        kind, label = "message", "" if item.message.computed else item.message.topic
    return EndpointSite(item.section, kind, label, item.caller, item.route, item.call, item.message, item.broker)


def _page(items: Sequence[Item], offset: int, used: int, page_bytes: int) -> tuple[str, int]:
    parts: list[str] = []
    section = ""
    shown = 0
    for item in items[offset:]:
        piece = "" if item.section == section else f"\n### {item.section}\n\n"
        piece += item.text
        cost = len(piece.encode("utf-8"))
        if shown and used + cost > page_bytes:
            break
        parts.append(piece)
        used += cost
        shown += 1
        section = item.section
    return "".join(parts), shown
