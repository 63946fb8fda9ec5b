"""The service graph as Mermaid, as JSON, and as one self-contained HTML page.

Theory of operation
-------------------
All three read a :class:`~mesh.index.query._service_graph.ServiceGraph` and nothing else, and are pure:
the same graph gives the same bytes (no clock, no randomness, no set order, no absolute path).

**Mermaid** is a ``flowchart LR``: a node per service under an id made from its name
(``svc_`` + letters, digits and ``_``; a number is added when two names fold to one id), an arrow
from the service that depends to the one it depends on. Import edges are ``-->`` labelled with
their count, gRPC edges ``==>`` labelled with the methods called, an edge to the owner of a
contract nobody implements ``-.->``. Labels are quoted and every character Mermaid could read as
syntax is written as its ``#code;`` entity.

**JSON** is the graph as data: ``version`` (:data:`JSON_VERSION`, bumped when a field changes
meaning), ``workspace``, ``nodes``, ``edges``; keys sorted, indented, newline-terminated.

**HTML** is one file that needs no network: the JSON document plus a layout is embedded in a
``<script type="application/json">`` element (``<``, ``>``, ``&`` and the JavaScript line
separators written as ``\\u`` escapes, so no name can close the element), and an inline script
draws it as SVG, with inline CSS. A Content-Security-Policy meta tag forbids every fetch, so
even a mistake could not reach out. The script inserts data only through ``textContent`` and
``setAttribute``, never as markup, and finds the SVG namespace from the page's own ``<svg>``.

The layout is computed here, where it can be tested, as a layered drawing (Sugiyama's method):
callers on the left, what they depend on to the right.

1. Cycles are broken by the greedy vertex order of Eades, Lin and Smyth (an edge against the
   order is drawn right to left).
2. Layers are assigned from the right, each at most :func:`_rows_max` services tall, so that
   fifty services make a drawing about as wide as a screen rather than one long column; a sink
   then moves left, next to its nearest caller.
3. Services stand in even columns; an edge crosses the odd and even columns between its ends
   through items of its own: its label first, beside its source (sized to the text while the
   graph has at most :data:`LABELS_RESERVED_MAX` edges, so no label covers another or a box),
   then points shared with every edge of its kind going to the same target (edge concentration:
   the imports of one shared library become one trunk).
4. Barycentre sweeps order each column, keeping the order with the fewest crossings; centres are
   then pulled towards their neighbours, columns packed in order by least squares
   (pool-adjacent-violators), so boxes and labels never overlap.
5. Routes go through their items; the ends on one side of a box are spread along it by the height
   they go to. Services without edges sit in rows under the drawing.

The script only draws: boxes, curves through the routes' points, labels with a backing, and it
pans, zooms, focuses a service on hover and shows the evidence of what is clicked.
"""

from __future__ import annotations

import bisect
import html
import itertools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, Final

import attrs
import orjson

from ..index.query._service_graph import EdgeKind, ServiceEdge, ServiceGraph

__all__ = [
    "FORMATS",
    "JSON_VERSION",
    "LABELS_RESERVED_MAX",
    "Box",
    "Layout",
    "Route",
    "edge_label",
    "graph_html",
    "graph_json",
    "graph_mermaid",
    "layout",
    "render_graph",
    "short_method",
]

#: The formats of ``mesh-mcp graph``, the default first.
FORMATS: Final = ("mermaid", "json", "html")
#: The version of the JSON document (and of the data embedded in the HTML page).
JSON_VERSION: Final = 1
#: Methods named on one edge label before "+N more".
METHODS_SHOWN: Final = 3
#: Characters of a service name shown in a box (the whole name is in the tooltip and the data).
NAME_CHARS_MAX: Final = 30

# -- the document ---------------------------------------------------------------------------------


def _document(graph: ServiceGraph) -> dict[str, Any]:
    return {
        "version": JSON_VERSION,
        "workspace": graph.workspace,
        "nodes": [
            {"name": n.name, "kind": n.kind, "path": n.path, "languages": list(n.languages), "files": n.files}
            for n in graph.nodes
        ],
        "edges": [
            {
                "source": e.source,
                "target": e.target,
                "kind": e.kind,
                "count": e.count,
                "files": e.files,
                "methods": list(e.methods),
                "services": list(e.services),
                "unimplemented": e.unimplemented,
                "evidence": list(e.evidence),
            }
            for e in graph.edges
        ],
    }


def graph_json(graph: ServiceGraph) -> str:
    """The graph as a JSON document (sorted keys, two-space indent, a final newline)."""
    return orjson.dumps(_document(graph), option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2).decode() + "\n"


# -- labels shared by Mermaid and HTML -------------------------------------------------------------


def short_method(key: str) -> str:
    """``acme.orders.v1.Orders/GetOrder`` -> ``Orders/GetOrder`` (and a service key to its name)."""
    service, slash, method = key.partition("/")
    return service.rsplit(".", 1)[-1] + slash + method


def edge_label(edge: ServiceEdge) -> list[str]:
    """The lines written on an edge: its import count, or the methods it calls."""
    if edge.kind == EdgeKind.IMPORT:
        text = f"{edge.count} import{'s' if edge.count != 1 else ''}"
        return [text + (f" in {edge.files} files" if edge.files not in (1, edge.count) else "")]
    if edge.kind in (EdgeKind.HTTP, EdgeKind.MESSAGING):
        names = list(edge.methods) or ["HTTP" if edge.kind == EdgeKind.HTTP else "messages"]
        if edge.kind == EdgeKind.MESSAGING:
            names = [f"topic {name}" for name in names]
        lines = names[:METHODS_SHOWN]
        return lines + ([f"+{len(names) - METHODS_SHOWN} more"] if len(names) > METHODS_SHOWN else [])
    names = [short_method(key) for key in edge.methods]
    names = names or [f"{short_method(key)} (client)" for key in edge.services] or ["gRPC"]
    lines = names[:METHODS_SHOWN]
    if len(names) > METHODS_SHOWN:
        lines.append(f"+{len(names) - METHODS_SHOWN} more")
    return ["unimplemented", *lines] if edge.unimplemented else lines


# -- Mermaid --------------------------------------------------------------------------------------

#: Characters written as Mermaid entities (``#35;``) inside a quoted label.
_MERMAID_SPECIAL: Final = frozenset('#"&<>|`[](){};:\\%')


def _mermaid_text(text: str) -> str:
    return "".join(
        f"#{ord(char)};" if char in _MERMAID_SPECIAL else " " if not char.isprintable() else char for char in text
    )


def _mermaid_ids(names: Iterable[str]) -> dict[str, str]:
    ids: dict[str, str] = {}
    taken: set[str] = set()
    for name in names:
        base = "svc_" + re.sub(r"[^A-Za-z0-9_]", "_", name)
        found, number = base, 2
        while found in taken:
            found, number = f"{base}_{number}", number + 1
        ids[name] = found
        taken.add(found)
    return ids


def node_counts(graph: ServiceGraph) -> str:
    """"5 services", "5 services, 1 area" (areas: folders holding no service that one depends on),
    ", 2 external" (infrastructure a link reaches: a broker, a host deployed but not built here)."""
    areas = sum(1 for node in graph.nodes if node.kind == "area")
    externals = sum(1 for node in graph.nodes if node.kind == "external")
    services = len(graph.nodes) - areas - externals
    text = f"{services} service{'' if services == 1 else 's'}"
    text += f", {areas} area{'' if areas == 1 else 's'}" if areas else ""
    return text + (f", {externals} external" if externals else "")


def edge_counts(graph: ServiceGraph) -> str:
    """"2 gRPC and 3 import edges", with HTTP and messaging edges named when there are some."""
    count = Counter(edge.kind for edge in graph.edges)
    text = f"{count[EdgeKind.GRPC]} gRPC"
    text += f", {count[EdgeKind.HTTP]} HTTP" if count[EdgeKind.HTTP] else ""
    text += f", {count[EdgeKind.MESSAGING]} messaging" if count[EdgeKind.MESSAGING] else ""
    return f"{text} and {count[EdgeKind.IMPORT]} import edges"


_ARROWS: Final = {EdgeKind.IMPORT: "-->", EdgeKind.HTTP: "--o", EdgeKind.MESSAGING: "-.-o"}


def graph_mermaid(graph: ServiceGraph) -> str:
    """The graph as a Mermaid ``flowchart LR`` (a final newline)."""
    name = _mermaid_text(graph.workspace) or "the workspace"
    counts = f"{node_counts(graph)}, {edge_counts(graph)}"
    lines = [
        "flowchart LR",
        f"  %% Service graph of {name}: {counts}",
        "  %% A --> B: A imports B; A ==> B: A calls B over gRPC; A -.-> B: B owns a contract nobody implements",
    ]
    if any(edge.kind in (EdgeKind.HTTP, EdgeKind.MESSAGING) for edge in graph.edges):
        lines.append("  %% A --o B: A sends HTTP requests to B; A -.-o B: B consumes what A produces, or B is A's broker")
    ids = _mermaid_ids(node.name for node in graph.nodes)
    lines += [
        f'  {ids[node.name]}[/"{_mermaid_text(node.name)}"/]'  # an area: a parallelogram
        if node.kind == "area"
        else f'  {ids[node.name]}[("{_mermaid_text(node.name)}")]'  # an external service: a cylinder
        if node.kind == "external"
        else f'  {ids[node.name]}["{_mermaid_text(node.name)}"]'
        for node in graph.nodes
    ]
    styles: dict[str, list[int]] = defaultdict(list)
    for number, edge in enumerate(graph.edges):
        arrow = _ARROWS.get(edge.kind, "-.->" if edge.unimplemented else "==>")
        label = "<br/>".join(_mermaid_text(line) for line in edge_label(edge))
        lines.append(f'  {ids[edge.source]} {arrow}|"{label}"| {ids[edge.target]}')
        styles["unimplemented" if edge.unimplemented else edge.kind].append(number)
    for kind, style in (
        (EdgeKind.IMPORT, "stroke:#6b7a90"),
        (EdgeKind.GRPC, "stroke:#d9480f"),
        ("unimplemented", "stroke:#c92a2a"),
        (EdgeKind.HTTP, "stroke:#2b8a3e"),
        (EdgeKind.MESSAGING, "stroke:#7048e8"),
    ):
        if styles[kind]:
            lines.append(f"  linkStyle {','.join(map(str, styles[kind]))} {style}")
    return "\n".join(lines) + "\n"


# -- layout ---------------------------------------------------------------------------------------

#: Box height, and the vertical gap between two boxes of a column.
BOX_H: Final = 46
ROW_GAP: Final = 22
#: The vertical gap beside an edge's point or label, the horizontal gap between two columns.
POINT_GAP: Final = 8
COL_GAP: Final = 44
#: Box width bounds; the width follows the name.
BOX_W_MIN: Final = 120
BOX_W_MAX: Final = 270
MARGIN: Final = 40
#: With more edges than this, labels get no space of their own (the page shows them on focus).
LABELS_RESERVED_MAX: Final = 80
#: A label's line height, and the width of a label column holding no label.
LABEL_LINE_H: Final = 13
POINT_COLUMN_W: Final = 16
#: Ordering sweeps, and rounds of vertical relaxation.
_SWEEPS: Final = 12
_ROUNDS: Final = 8


@attrs.frozen
class Box:
    """Where a service is drawn (integers: the page's bytes do not depend on float formatting)."""

    x: int
    y: int
    w: int
    h: int
    #: The name as shown (cut to ``NAME_CHARS_MAX``) and the line under it.
    label: str
    detail: str


@attrs.frozen
class Route:
    """How an edge is drawn: through ``points`` (from its source's side to its target's), each
    joined to the next by a curve leaving and arriving horizontally; its label is centred at
    ``label_x``, ``label_y``."""

    points: tuple[tuple[int, int], ...]
    label_x: int
    label_y: int


@attrs.frozen
class Layout:
    width: int
    height: int
    boxes: dict[str, Box]
    #: One per edge, in the graph's edge order.
    routes: tuple[Route, ...]
    #: Every label has room of its own (small graphs); else labels may overlap and show on focus.
    labels_reserved: bool


def _shown_name(name: str) -> str:
    return name if len(name) <= NAME_CHARS_MAX else name[: NAME_CHARS_MAX - 1] + "…"


def _detail(languages: Sequence[str]) -> str:
    text = " · ".join(languages)
    return text if len(text) <= 36 else text[:35] + "…"


def _box_width(label: str, detail: str) -> int:
    # about 7.8 px per character of the 13 px bold name, 6.3 px of the 11 px detail line
    return max(BOX_W_MIN, min(BOX_W_MAX, math.ceil(max(len(label) * 7.8, len(detail) * 6.3)) + 28))


def _label_size(lines: Sequence[str]) -> tuple[int, int]:
    return math.ceil(max(len(line) for line in lines) * 6.4) + 12, len(lines) * LABEL_LINE_H + 4


def _rows_max(nodes: int) -> int:
    """Services per layer at most: about 1.6 x sqrt(services), and at least 6. With boxes about 70 px
    apart and layers about 280 px, the drawing is then nearly twice as wide as tall, like a screen."""
    return max(6, math.ceil(1.6 * math.sqrt(nodes)))


def _eades_order(nodes: Sequence[str], succ: dict[str, set[str]], pred: dict[str, set[str]]) -> list[str]:
    """A vertex order leaving few edges pointing backwards (Eades, Lin and Smyth's greedy heuristic)."""
    remaining = set(nodes)
    head: list[str] = []
    tail: list[str] = []
    while remaining:
        moved = True
        while moved:
            moved = False
            for name in sorted(remaining):
                if not succ[name] & remaining:
                    tail.append(name)
                    remaining.discard(name)
                    moved = True
                elif not pred[name] & remaining:
                    head.append(name)
                    remaining.discard(name)
                    moved = True
        if remaining:
            best = min(remaining, key=lambda n: (len(pred[n] & remaining) - len(succ[n] & remaining), n))
            head.append(best)
            remaining.discard(best)
    return head + tail[::-1]


def _layer_of(linked: Sequence[str], after: dict[str, set[str]], before: dict[str, set[str]]) -> dict[str, int]:
    """Layers counted from the left, at most :func:`_rows_max` services each: services are placed
    from the right (what nothing depends on last), each as far right as its successors allow and
    its layer's room permits; then each sink moves left, next to its nearest predecessor."""
    rows_max = _rows_max(len(linked))
    from_right: dict[str, int] = {}
    used: Counter[int] = Counter()
    pending = set(linked)
    while pending:
        ready = [name for name in pending if after[name] <= from_right.keys()]
        need = {name: max((from_right[s] + 1 for s in after[name]), default=0) for name in ready}
        name = min(ready, key=lambda n: (need[n], n))
        layer = need[name]
        while used[layer] >= rows_max:
            layer += 1
        from_right[name] = layer
        used[layer] += 1
        pending.discard(name)
    for name in sorted(linked):
        if not after[name] and before[name]:
            for layer in range(min(from_right[p] for p in before[name]) - 1, from_right[name], -1):
                if used[layer] < rows_max:
                    used[from_right[name]] -= 1
                    used[layer] += 1
                    from_right[name] = layer
                    break
    last = max(from_right.values(), default=0)
    return {name: last - layer for name, layer in from_right.items()}


@attrs.define
class _Item:
    """One thing stacked in a column: a service's box, an edge's label, or a point an edge passes."""

    column: int
    w: float
    h: float
    node: str = ""
    y: float = 0.0


def _crossings(columns: list[list[int]], links: list[list[tuple[int, int]]]) -> int:
    total = 0
    for c, pairs in enumerate(links):
        upper = {item: i for i, item in enumerate(columns[c])}
        lower = {item: i for i, item in enumerate(columns[c + 1])}
        seen: list[int] = []
        for a, b in sorted(pairs, key=lambda pair: (upper[pair[0]], lower[pair[1]])):
            position = lower[b]
            total += len(seen) - bisect.bisect_right(seen, position)
            bisect.insort(seen, position)
    return total


def _order_columns(columns: list[list[int]], links: list[list[tuple[int, int]]]) -> list[list[int]]:
    """Barycentre sweeps, left to right then back, keeping the order with the fewest crossings."""
    best, fewest = [list(column) for column in columns], _crossings(columns, links)
    for sweep in range(_SWEEPS):
        forward = sweep % 2 == 0
        for c in range(1, len(columns)) if forward else range(len(columns) - 2, -1, -1):
            other = {item: i for i, item in enumerate(columns[c - 1 if forward else c + 1])}
            pairs = links[c - 1] if forward else links[c]
            near: dict[int, list[int]] = defaultdict(list)
            for a, b in pairs:
                mine, theirs = (b, a) if forward else (a, b)
                near[mine].append(other[theirs])
            here = columns[c]
            mean = {item: sum(near[item]) / len(near[item]) if near[item] else float(i) for i, item in enumerate(here)}
            here[:] = [item for _, _, item in sorted((mean[item], i, item) for i, item in enumerate(here))]
        count = _crossings(columns, links)
        if count < fewest:
            best, fewest = [list(column) for column in columns], count
    return best


def _pack(desired: Sequence[float], gaps: Sequence[float]) -> list[float]:
    """Centres as near ``desired`` as possible (least squares) keeping item i+1 at least ``gaps[i]``
    below item i, in order: isotonic regression by pool-adjacent-violators."""
    offsets = [0.0]
    for gap in gaps:
        offsets.append(offsets[-1] + gap)
    blocks: list[list[float]] = []  # [sum, count]
    for want, offset in zip(desired, offsets, strict=True):
        blocks.append([want - offset, 1])
        while len(blocks) > 1 and blocks[-2][0] * blocks[-1][1] > blocks[-1][0] * blocks[-2][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    values = [total / count for total, count in blocks for _ in range(int(count))]
    return [value + offset for value, offset in zip(values, offsets, strict=True)]


def _gap(a: _Item, b: _Item) -> float:
    return (a.h + b.h) / 2 + (ROW_GAP if a.node and b.node else POINT_GAP)


def _place_rows(items: list[_Item], columns: list[list[int]], links: list[list[tuple[int, int]]]) -> None:
    """Vertical centres: stacked, then pulled towards their neighbours a few times (order kept)."""
    left: dict[int, list[int]] = defaultdict(list)
    right: dict[int, list[int]] = defaultdict(list)
    for pairs in links:
        for a, b in pairs:
            right[a].append(b)
            left[b].append(a)
    for column in columns:
        y = 0.0
        for i, item in enumerate(column):
            y += _gap(items[column[i - 1]], items[item]) if i else 0.0
            items[item].y = y
    for number in range(_ROUNDS):
        forward = number % 2 == 0
        for column in columns if forward else columns[::-1]:
            desired = []
            for item in column:
                near = left[item] + right[item] if number == _ROUNDS - 1 else left[item] if forward else right[item]
                desired.append(sum(items[n].y for n in near) / len(near) if near else items[item].y)
            gaps = [_gap(items[a], items[b]) for a, b in itertools.pairwise(column)]
            for item, y in zip(column, _pack(desired, gaps), strict=True):
                items[item].y = y


def _orient(graph: ServiceGraph) -> dict[str, int]:
    """The layer of each service with an edge: edges oriented by Eades' order, then layered."""
    pairs = sorted({(e.source, e.target) for e in graph.edges if e.source != e.target})
    linked = sorted({name for pair in pairs for name in pair})
    succ: dict[str, set[str]] = {name: set() for name in linked}
    pred: dict[str, set[str]] = {name: set() for name in linked}
    for source, target in pairs:
        succ[source].add(target)
        pred[target].add(source)
    rank = {name: i for i, name in enumerate(_eades_order(linked, succ, pred))}
    after: dict[str, set[str]] = {name: set() for name in linked}  # the edges, all pointing forward
    before: dict[str, set[str]] = {name: set() for name in linked}
    for source, target in pairs:
        a, b = (source, target) if rank[source] < rank[target] else (target, source)
        after[a].add(b)
        before[b].add(a)
    return _layer_of(linked, after, before)


@attrs.define
class _Chains:
    """The layered drawing before coordinates: items in columns, and each edge's items."""

    items: list[_Item]
    #: Per edge: its items from its left end to its right end (empty for a loop).
    chains: list[list[int]]
    #: Per edge: its source is its right end (the edge is drawn right to left).
    flipped: list[bool]
    #: Per edge: the item its label is drawn on.
    labels: list[int]


def _chains(graph: ServiceGraph, layer: dict[str, int], texts: dict[str, tuple[str, str]], reserved: bool) -> _Chains:
    """Services sit in the even columns (``2 x layer``); an edge passes the columns between its ends
    through items of its own: first its label, next to its source, then points it shares with the
    other edges of its kind going to the same target (edge concentration: fifty imports of one
    shared library become one trunk that the importers join)."""
    linked = sorted(layer)
    items = [_Item(2 * layer[name], _box_width(*texts[name]), BOX_H, name) for name in linked]
    index = {name: i for i, name in enumerate(linked)}
    trunks: dict[tuple[int, str, str], int] = {}
    found = _Chains(items, [], [], [])
    for edge in graph.edges:
        if edge.source == edge.target:  # the query never makes one; drawn as a loop
            found.chains.append([])
            found.flipped.append(False)
            found.labels.append(-1)
            continue
        flip = layer[edge.source] > layer[edge.target]
        start, end = 2 * layer[edge.source], 2 * layer[edge.target]
        step = -1 if flip else 1
        chain = [index[edge.source]]
        for column in range(start + step, end, step):
            if column == start + step:
                w, h = _label_size(edge_label(edge)) if reserved else (0, 2)
                found.labels.append(len(items))
                items.append(_Item(column, w, h))
                chain.append(len(items) - 1)
                continue
            key = (column, edge.target, _kind_class(edge))
            if key not in trunks:
                trunks[key] = len(items)
                items.append(_Item(column, 0, 2))
            chain.append(trunks[key])
        chain.append(index[edge.target])
        found.chains.append(chain[::-1] if flip else chain)
        found.flipped.append(flip)
    return found


def _kind_class(edge: ServiceEdge) -> str:
    return "unimplemented" if edge.unimplemented else edge.kind


def layout(graph: ServiceGraph) -> Layout:
    """Where each service and edge is drawn, and the drawing's size (see the module doc)."""
    reserved = len(graph.edges) <= LABELS_RESERVED_MAX
    layer = _orient(graph)
    texts = {node.name: (_shown_name(node.name), _detail(node.languages)) for node in graph.nodes}
    drawing = _chains(graph, layer, texts, reserved)
    items = drawing.items
    columns: list[list[int]] = [[] for _ in range(2 * max(layer.values()) + 1 if layer else 0)]
    for i, item in enumerate(items):
        columns[item.column].append(i)
    linked: list[set[tuple[int, int]]] = [set() for _ in range(max(0, len(columns) - 1))]
    for chain in drawing.chains:
        for a, b in itertools.pairwise(chain):
            linked[items[a].column].add((a, b))
    links = [sorted(pairs) for pairs in linked]
    columns = _order_columns(columns, links)
    _place_rows(items, columns, links)
    # x: columns side by side; y: the whole drawing moved down to the margin
    lefts, rights, x = [], [], float(MARGIN)
    for column in columns:
        lefts.append(x)
        x += max((items[i].w for i in column), default=0) or POINT_COLUMN_W
        rights.append(x)
        x += COL_GAP
    shift = MARGIN - min((item.y - item.h / 2 for item in items), default=0.0)
    boxes = {}
    for item in items:
        if item.node:
            box_x = round((lefts[item.column] + rights[item.column] - item.w) / 2)
            boxes[item.node] = Box(box_x, round(item.y + shift - item.h / 2), round(item.w), BOX_H, *texts[item.node])
    drawn = _routes(drawing, boxes, lefts, rights, shift)
    width = round(x - COL_GAP + MARGIN) if columns else 0
    height = max([box.y + box.h for box in boxes.values()] + [y for r in drawn if r for _, y in r.points], default=0)
    isolated = [node.name for node in graph.nodes if node.name not in boxes]
    width, height = _place_isolated(isolated, texts, boxes, width, height + MARGIN)
    routes = tuple(route or _loop(boxes[edge.source]) for route, edge in zip(drawn, graph.edges, strict=True))
    width = max([width, 2 * MARGIN, *(route.label_x + 2 * MARGIN for route in routes)])
    return Layout(width, max(height, 2 * MARGIN), boxes, routes, reserved)


def _routes(
    drawing: _Chains, boxes: dict[str, Box], lefts: list[float], rights: list[float], shift: float
) -> list[Route | None]:
    """Each edge's points (None for a loop, drawn once every box is placed). The ends on one side of
    a box are spread along it, ordered by the height of the item each goes to, so that they do not
    cross there; edges going to one item (a trunk) share their end."""
    items = drawing.items
    ends: dict[tuple[str, str], set[tuple[float, int]]] = defaultdict(set)
    for chain in drawing.chains:
        if chain:
            ends[items[chain[0]].node, "right"].add((items[chain[1]].y, chain[1]))
            ends[items[chain[-1]].node, "left"].add((items[chain[-2]].y, chain[-2]))
    port: dict[tuple[str, str, int], int] = {}
    for (name, side), found in ends.items():
        box = boxes[name]
        for i, (_, item) in enumerate(sorted(found)):
            port[name, side, item] = round(box.y + box.h * (i + 1) / (len(found) + 1))
    routes: list[Route | None] = []
    for chain, flipped, label in zip(drawing.chains, drawing.flipped, drawing.labels, strict=True):
        if not chain:
            routes.append(None)
            continue
        a, b = items[chain[0]].node, items[chain[-1]].node
        points = [(boxes[a].x + boxes[a].w, port[a, "right", chain[1]])]
        for i in chain[1:-1]:
            y = round(items[i].y + shift)
            points += [(round(lefts[items[i].column]), y), (round(rights[items[i].column]), y)]
        points.append((boxes[b].x, port[b, "left", chain[-2]]))
        if flipped:
            points.reverse()
        item = items[label]
        routes.append(
            Route(tuple(points), round((lefts[item.column] + rights[item.column]) / 2), round(item.y + shift))
        )
    return routes


def _loop(box: Box) -> Route:
    """A service depending on itself: a loop on the right of its box."""
    right, middle = box.x + box.w, box.y + box.h // 2
    points = ((right, middle - 8), (right + 26, middle - 8), (right + 26, middle + 8), (right, middle + 8))
    return Route(points, right + 40, middle)


def _place_isolated(
    isolated: list[str], texts: dict[str, tuple[str, str]], boxes: dict[str, Box], width: int, height: int
) -> tuple[int, int]:
    """Services without edges, in rows under the drawing; the new width and height."""
    if not isolated:
        return width, height
    row_w = max(width, 900)
    x, y = MARGIN, height if boxes else MARGIN
    right = width
    for name in isolated:
        w = _box_width(*texts[name])
        if x > MARGIN and x + w > row_w - MARGIN:
            x, y = MARGIN, y + BOX_H + ROW_GAP
        boxes[name] = Box(x, y, w, BOX_H, *texts[name])
        right = max(right, x + w + MARGIN)
        x += w + ROW_GAP
    return right, y + BOX_H + MARGIN


# -- HTML -----------------------------------------------------------------------------------------

#: The page may fetch nothing: no script, style, font, image or frame from anywhere.
CSP: Final = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
)

_PLACEHOLDER: Final = re.compile(r"\{\{([A-Z]+)\}\}")
_JSON_IN_SCRIPT: Final = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                                        "\u2029": "\\u2029"})  # fmt: skip


def _page_data(graph: ServiceGraph) -> str:
    """The JSON document plus what the page draws: boxes, routes and label lines."""
    drawn = layout(graph)
    document = _document(graph)
    document["layout"] = {
        "width": drawn.width,
        "height": drawn.height,
        "labels_reserved": drawn.labels_reserved,
        "boxes": {name: attrs.asdict(box) for name, box in drawn.boxes.items()},
        "routes": [attrs.asdict(route) for route in drawn.routes],
        "labels": [edge_label(edge) for edge in graph.edges],
    }
    return orjson.dumps(document, option=orjson.OPT_SORT_KEYS).decode().translate(_JSON_IN_SCRIPT)


def graph_html(graph: ServiceGraph) -> str:
    """The graph as one HTML page that draws itself, fetches nothing and works offline."""
    name = html.escape(graph.workspace or "workspace")
    count = Counter(edge.kind for edge in graph.edges)
    summary = f"{node_counts(graph).replace(', ', ' · ')} · {count[EdgeKind.GRPC]} gRPC edges"
    summary += f" · {count[EdgeKind.HTTP]} HTTP edges" if count[EdgeKind.HTTP] else ""
    summary += f" · {count[EdgeKind.MESSAGING]} messaging edges" if count[EdgeKind.MESSAGING] else ""
    summary += f" · {count[EdgeKind.IMPORT]} import edges"
    values = {
        "CSP": CSP,
        "TITLE": name,
        "SUMMARY": html.escape(summary),
        "STYLE": _STYLE.strip(),
        "SCRIPT": _SCRIPT.strip(),
        "DATA": _page_data(graph),
    }
    # one pass: a placeholder spelled inside a value (a workspace named "{{DATA}}") stays text
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], _PAGE)


def render_graph(graph: ServiceGraph, fmt: str) -> str:
    """The graph in one of :data:`FORMATS`."""
    renderers = {"mermaid": graph_mermaid, "json": graph_json, "html": graph_html}
    return renderers[fmt](graph)


_PAGE: Final = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="mesh-mcp graph">
<title>Service graph: {{TITLE}}</title>
<style>
{{STYLE}}
</style>
</head>
<body>
<header>
<div id="bar">
<h1>Service graph <span id="workspace">{{TITLE}}</span></h1>
<p id="summary">{{SUMMARY}}</p>
<div id="tools">
<button type="button" id="zoom-in" title="Zoom in">+</button>
<button type="button" id="zoom-out" title="Zoom out">&minus;</button>
<button type="button" id="fit" title="Fit the graph to the window">Fit</button>
<button type="button" id="toggle-labels" title="Show or hide the edge labels">Labels</button>
<button type="button" id="toggle-imports" title="Show or hide the import edges">Imports</button>
</div>
</div>
<div id="legend">
<span><svg width="36" height="10"><line x1="1" y1="5" x2="35" y2="5" class="edge-line import"/></svg>imports (how many)</span>
<span><svg width="36" height="10"><line x1="1" y1="5" x2="35" y2="5" class="edge-line grpc"/></svg>gRPC calls (the methods)</span>
<span><svg width="36" height="10"><line x1="1" y1="5" x2="35" y2="5" class="edge-line grpc unimplemented"/></svg>gRPC nobody implements: to the owner of its .proto</span>
<span><svg width="36" height="10"><line x1="1" y1="5" x2="35" y2="5" class="edge-line http"/></svg>HTTP requests (the routes)</span>
<span><svg width="36" height="10"><line x1="1" y1="5" x2="35" y2="5" class="edge-line messaging"/></svg>messages (the topics), producer to consumer or broker</span>
<span class="hint">Arrows point at what a service depends on. Hover a service to focus it, click a service or an edge for its evidence; drag to pan, wheel to zoom.</span>
</div>
</header>
<main>
<svg id="canvas" role="img" aria-labelledby="workspace">
<defs>
<marker id="arrow-import" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="head-import"/></marker>
<marker id="arrow-http" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="11" markerHeight="11" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="head-http"/></marker>
<marker id="arrow-messaging" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="11" markerHeight="11" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="head-messaging"/></marker>
<marker id="arrow-grpc" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="11" markerHeight="11" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="head-grpc"/></marker>
<marker id="arrow-unimplemented" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="11" markerHeight="11" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="head-unimplemented"/></marker>
</defs>
<g id="viewport"><g id="edges"></g><g id="nodes"></g><g id="labels"></g></g>
</svg>
<aside id="details" hidden><button type="button" id="close-details" title="Close">&times;</button><div id="details-body"></div></aside>
</main>
<noscript><p class="noscript">This page draws the graph with JavaScript; the graph itself is in the JSON below.</p></noscript>
<script type="application/json" id="graph-data">{{DATA}}</script>
<script>
{{SCRIPT}}
</script>
</body>
</html>
"""

_STYLE: Final = """
:root { --ink: #1d2433; --muted: #5c6577; --line: #c9d1de; --import: #6b7a90; --grpc: #d9480f;
  --http: #2b8a3e; --messaging: #7048e8; --unimplemented: #c92a2a; --paper: #f6f8fb; --box: #ffffff; --accent: #1c7ed6; }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: var(--paper); display: flex; flex-direction: column; overflow: hidden; }
header { padding: 8px 16px 6px; background: #fff; border-bottom: 1px solid var(--line); flex: none; }
#bar { display: flex; align-items: baseline; gap: 16px; }
h1 { font-size: 17px; margin: 0; font-weight: 600; }
h1 #workspace { color: var(--accent); margin-left: 4px; }
#summary { margin: 0; color: var(--muted); }
#tools { margin-left: auto; display: flex; gap: 6px; }
#tools button { font: inherit; min-width: 34px; padding: 3px 10px; border: 1px solid var(--line);
  border-radius: 6px; background: #fff; cursor: pointer; }
#tools button:hover { border-color: var(--accent); }
#tools button[aria-pressed="false"] { color: var(--muted); text-decoration: line-through; }
#tools button[aria-pressed="true"] { background: #e7f1fb; }
main { position: relative; flex: 1; min-height: 0; }
#canvas { width: 100%; height: 100%; display: block; cursor: grab; user-select: none; }
#canvas.dragging { cursor: grabbing; }
.node { cursor: pointer; }
.node rect { fill: var(--box); stroke: #8a96ab; stroke-width: 1.2; }
.node .name { font-weight: 600; font-size: 13px; fill: var(--ink); }
.node .detail { font-size: 11px; fill: var(--muted); }
.node:hover rect, .node.selected rect { stroke: var(--accent); stroke-width: 2.2; }
.node.area rect { stroke-dasharray: 5 3; }
.edge { cursor: pointer; }
.edge-line { fill: none; stroke-width: 1.4; }
.edge-line.import { stroke: var(--import); }
.edge-line.grpc { stroke: var(--grpc); stroke-width: 2.6; }
.edge-line.http { stroke: var(--http); stroke-width: 2.2; }
.edge-line.messaging { stroke: var(--messaging); stroke-width: 2.2; stroke-dasharray: 2 4; }
.head-http { fill: var(--http); } .head-messaging { fill: var(--messaging); }
.node.external rect { stroke-dasharray: 2 2; fill: #f1f3f5; }
.edge-label.http text { fill: #2b8a3e; } .edge-label.messaging text { fill: #5f3dc4; }
.edge-line.unimplemented { stroke: var(--unimplemented); stroke-dasharray: 7 5; }
.edge-hit { fill: none; stroke: transparent; stroke-width: 12; }
.edge:hover .edge-line, .edge.selected .edge-line { stroke-width: 3.6; }
.head-import { fill: var(--import); } .head-grpc { fill: var(--grpc); } .head-unimplemented { fill: var(--unimplemented); }
.edge-label { font-size: 11px; pointer-events: none; }
.edge-label rect { fill: var(--paper); fill-opacity: 0.92; }
.edge-label.import text { fill: #3d4a5c; } .edge-label.grpc text { fill: #a33a0a; }
.edge-label.unimplemented text { fill: var(--unimplemented); }
.no-labels .edge-label { display: none; }
.no-labels .edge-label.hot { display: inline; }
.no-imports .edge.import, .no-imports .edge-label.import { display: none; }
.focus .edge:not(.hot), .focus .edge-label:not(.hot) { opacity: 0.1; }
.focus .node:not(.hot) { opacity: 0.3; }
#legend { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 18px; margin-top: 4px; font-size: 12px; }
#legend span { display: inline-flex; align-items: center; gap: 6px; }
#legend .hint { color: var(--muted); }
#details { position: absolute; right: 12px; top: 12px; max-height: calc(100% - 24px); width: 380px; overflow: auto;
  background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px;
  box-shadow: 0 4px 18px rgba(29, 36, 51, 0.12); }
#details[hidden] { display: none; }
#details h2 { font-size: 15px; margin: 0 28px 6px 0; word-break: break-all; }
#details h3 { font-size: 12px; margin: 12px 0 4px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
#details ul { margin: 0; padding-left: 18px; }
#details li, #details code { word-break: break-all; }
#details code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
#details .more { color: var(--muted); }
#details a { color: var(--accent); cursor: pointer; text-decoration: underline; }
#close-details { position: absolute; right: 8px; top: 6px; border: 0; background: none; font-size: 20px; cursor: pointer; }
.noscript, .empty { padding: 16px; position: absolute; top: 0; left: 0; margin: 0; color: var(--muted); }
"""

_SCRIPT: Final = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var svg = document.getElementById("canvas");
  var NS = svg.namespaceURI;  // the SVG namespace, taken from the page itself
  var viewport = document.getElementById("viewport");
  var edgeLayer = document.getElementById("edges");
  var nodeLayer = document.getElementById("nodes");
  var labelLayer = document.getElementById("labels");
  var details = document.getElementById("details");
  var detailsBody = document.getElementById("details-body");
  var boxes = data.layout.boxes;
  var LINE = 13;

  function make(tag, attributes, parent) {
    var element = document.createElementNS(NS, tag);
    Object.keys(attributes).forEach(function (key) { element.setAttribute(key, String(attributes[key])); });
    if (parent) { parent.appendChild(element); }
    return element;
  }
  function edgeClass(edge) {
    if (edge.kind === "http" || edge.kind === "messaging") { return edge.kind; }
    return edge.kind === "grpc" ? (edge.unimplemented ? "grpc unimplemented" : "grpc") : "import";
  }

  // -- nodes ---------------------------------------------------------------------------------
  var nodeElements = {};
  data.nodes.forEach(function (node) {
    var box = boxes[node.name];
    var group = make("g", {"class": node.kind === "area" || node.kind === "external" ? "node " + node.kind : "node", "data-service": node.name,
      transform: "translate(" + box.x + "," + box.y + ")"}, nodeLayer);
    make("title", {}, group).textContent = node.name + (node.path ? "\n" + node.path + "/" : "") +
      "\n" + node.files + " files" + (node.languages.length ? ": " + node.languages.join(", ") : "");
    make("rect", {width: box.w, height: box.h, rx: 7, ry: 7}, group);
    make("text", {"class": "name", x: box.w / 2, y: box.detail ? 19 : 28, "text-anchor": "middle"}, group)
      .textContent = box.label;
    if (box.detail) {
      make("text", {"class": "detail", x: box.w / 2, y: 35, "text-anchor": "middle"}, group).textContent = box.detail;
    }
    nodeElements[node.name] = group;
  });

  // -- edges: through the points laid out, each step a curve leaving and arriving horizontally ---
  var edgeElements = [], labelElements = [];
  data.edges.forEach(function (edge, index) {
    var route = data.layout.routes[index], points = route.points;
    var d = "M" + points[0][0] + "," + points[0][1];
    for (var i = 1; i < points.length; i++) {
      var a = points[i - 1], b = points[i], middle = (a[0] + b[0]) / 2;
      d += a[1] === b[1] ? " L" + b[0] + "," + b[1] :
        " C" + middle + "," + a[1] + " " + middle + "," + b[1] + " " + b[0] + "," + b[1];
    }
    var kind = edgeClass(edge);
    var group = make("g", {"class": "edge " + kind, "data-source": edge.source, "data-target": edge.target,
      "data-kind": edge.kind}, edgeLayer);
    var tip = edge.source + " \u2192 " + edge.target + " (" + ({grpc: "gRPC", http: "HTTP", messaging: "messaging"}[edge.kind] || "imports") + ")";
    if (edge.methods.length) { tip += "\n" + edge.methods.join("\n"); }
    if (edge.evidence.length) {
      tip += "\n\n" + edge.evidence.join("\n") + (edge.count > edge.evidence.length ? "\n\u2026" : "");
    }
    make("title", {}, group).textContent = tip;
    make("path", {"class": "edge-hit", d: d}, group);
    make("path", {"class": "edge-line " + kind, d: d,
      "marker-end": "url(#arrow-" + (kind === "import" || kind === "http" || kind === "messaging" ? kind : edge.unimplemented ? "unimplemented" : "grpc") + ")"}, group);
    var lines = data.layout.labels[index];
    var label = make("g", {"class": "edge-label " + kind}, labelLayer);
    var text = make("text", {x: route.label_x, y: route.label_y - (lines.length - 1) * LINE / 2 + 4,
      "text-anchor": "middle"}, label);
    lines.forEach(function (line, i) {
      make("tspan", {x: route.label_x, dy: i === 0 ? 0 : LINE}, text).textContent = line;
    });
    group.addEventListener("click", function (event) { event.stopPropagation(); select({edge: index}); });
    edgeElements.push(group);
    labelElements.push(label);
  });

  // every text first, then every measure, then every background: one layout, not one per label
  var sizes = labelElements.map(function (label) { return label.firstChild.getBBox(); });
  labelElements.forEach(function (label, index) {
    var box = sizes[index];
    label.insertBefore(make("rect", {x: box.x - 3, y: box.y - 1, width: box.width + 6, height: box.height + 2,
      rx: 3, ry: 3}), label.firstChild);
  });

  // -- focus and details ------------------------------------------------------------------------
  var selected = null;
  function focus(target) {
    svg.classList.toggle("focus", target !== null);
    Object.keys(nodeElements).forEach(function (name) {
      nodeElements[name].classList.remove("hot");
      nodeElements[name].classList.remove("selected");
    });
    edgeElements.forEach(function (element, index) {
      var edge = data.edges[index];
      var hot = target !== null && (target.edge === index ||
        (target.node !== undefined && (edge.source === target.node || edge.target === target.node)));
      element.classList.toggle("hot", hot);
      element.classList.toggle("selected", target !== null && target.edge === index);
      labelElements[index].classList.toggle("hot", hot);
      if (hot) {
        nodeElements[edge.source].classList.add("hot");
        nodeElements[edge.target].classList.add("hot");
      }
    });
    if (target !== null && target.node !== undefined) {
      nodeElements[target.node].classList.add("hot");
      nodeElements[target.node].classList.add("selected");
    }
  }
  function add(parent, tag, text, className) {
    var element = document.createElement(tag);
    if (text !== undefined) { element.textContent = text; }
    if (className) { element.className = className; }
    parent.appendChild(element);
    return element;
  }
  function list(parent, title, items, total) {
    if (!items.length) { return; }
    add(parent, "h3", title);
    var ul = add(parent, "ul");
    items.forEach(function (item) {
      var li = add(ul, "li");
      if (typeof item === "function") { item(li); } else { add(li, "code", item); }
    });
    if (total > items.length) { add(ul, "li", "and " + (total - items.length) + " more", "more"); }
  }
  function edgeLink(index, other) {
    return function (li) {
      var edge = data.edges[index];
      var a = add(li, "a", other);
      a.addEventListener("click", function () { select({edge: index}); });
      add(li, "span", " \u2014 " + data.layout.labels[index].join(", "), edge.unimplemented ? "more" : "");
    };
  }
  function showDetails(target) {
    detailsBody.textContent = "";
    if (target.node !== undefined) {
      var node = data.nodes.filter(function (n) { return n.name === target.node; })[0];
      add(detailsBody, "h2", node.name);
      add(detailsBody, "div", (node.path || ".") + "/ \u00b7 " + node.files + " files" +
        (node.languages.length ? " \u00b7 " + node.languages.join(", ") : ""), "more");
      var out = [], inc = [];
      data.edges.forEach(function (edge, index) {
        if (edge.source === node.name) { out.push(edgeLink(index, edge.target)); }
        if (edge.target === node.name) { inc.push(edgeLink(index, edge.source)); }
      });
      list(detailsBody, "Depends on", out, out.length);
      list(detailsBody, "Used by", inc, inc.length);
      if (!out.length && !inc.length) { add(detailsBody, "p", "No import or gRPC edge.", "more"); }
    } else {
      var edge = data.edges[target.edge];
      add(detailsBody, "h2", edge.source + " \u2192 " + edge.target);
      var what = edge.kind === "grpc" ? (edge.unimplemented ?
        "gRPC: nobody in the workspace implements it; " + edge.target + " owns the .proto" : "gRPC calls") :
        edge.kind === "http" ? "HTTP requests" : edge.kind === "messaging" ? "messages" : "imports";
      add(detailsBody, "div", what + " \u00b7 " + edge.count + (edge.kind === "import" ? " imports" : " sites") +
        " in " + edge.files + (edge.files === 1 ? " file" : " files"), "more");
      list(detailsBody, "Methods", edge.methods, edge.methods.length);
      list(detailsBody, "gRPC services", edge.methods.length ? [] : edge.services, edge.services.length);
      list(detailsBody, "Evidence", edge.evidence, edge.count);
    }
    details.hidden = false;
  }
  function select(target) {
    selected = target;
    focus(target);
    if (target === null) { details.hidden = true; } else { showDetails(target); }
  }
  Object.keys(nodeElements).forEach(function (name) {
    var element = nodeElements[name];
    element.addEventListener("mouseenter", function () { if (selected === null) { focus({node: name}); } });
    element.addEventListener("mouseleave", function () { if (selected === null) { focus(null); } });
    element.addEventListener("click", function (event) { event.stopPropagation(); select({node: name}); });
  });
  document.getElementById("close-details").addEventListener("click", function () { select(null); });

  // -- pan and zoom -----------------------------------------------------------------------------
  var view = {k: 1, x: 0, y: 0};
  function apply() { viewport.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.k + ")"); }
  function zoomAt(factor, cx, cy) {
    var k = Math.min(4, Math.max(0.08, view.k * factor));
    view.x = cx - (cx - view.x) * (k / view.k);
    view.y = cy - (cy - view.y) * (k / view.k);
    view.k = k;
    apply();
  }
  function fit() {
    var width = svg.clientWidth || 1200, height = svg.clientHeight || 800;
    var k = Math.min(1.4, width / data.layout.width, height / data.layout.height);
    view = {k: k, x: (width - data.layout.width * k) / 2, y: (height - data.layout.height * k) / 2};
    apply();
  }
  svg.addEventListener("wheel", function (event) {
    event.preventDefault();
    var rect = svg.getBoundingClientRect();
    zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - rect.left, event.clientY - rect.top);
  }, {passive: false});
  var drag = null, dragged = false;
  // the click that ends a drag selects nothing (registered first: it runs before the others)
  svg.addEventListener("click", function (event) {
    if (dragged) { dragged = false; event.stopImmediatePropagation(); }
  }, true);
  svg.addEventListener("pointerdown", function (event) {
    dragged = false;
    drag = {x: event.clientX, y: event.clientY, vx: view.x, vy: view.y, moved: false, id: event.pointerId};
  });
  svg.addEventListener("pointermove", function (event) {
    if (drag === null) { return; }
    var dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) { return; }
    if (!drag.moved) { drag.moved = true; svg.setPointerCapture(drag.id); svg.classList.add("dragging"); }
    view.x = drag.vx + dx;
    view.y = drag.vy + dy;
    apply();
  });
  function endDrag() {
    if (drag !== null && drag.moved) {
      svg.classList.remove("dragging");
      dragged = true;
    }
    drag = null;
  }
  svg.addEventListener("pointerup", endDrag);
  svg.addEventListener("pointercancel", endDrag);
  svg.addEventListener("click", function () { select(null); });
  function center() { return {x: svg.clientWidth / 2, y: svg.clientHeight / 2}; }
  document.getElementById("zoom-in").addEventListener("click", function () { var c = center(); zoomAt(1.25, c.x, c.y); });
  document.getElementById("zoom-out").addEventListener("click", function () { var c = center(); zoomAt(0.8, c.x, c.y); });
  document.getElementById("fit").addEventListener("click", fit);
  var labelsButton = document.getElementById("toggle-labels");
  function showLabels(on) {
    svg.classList.toggle("no-labels", !on);
    labelsButton.setAttribute("aria-pressed", on ? "true" : "false");
  }
  labelsButton.addEventListener("click", function () { showLabels(svg.classList.contains("no-labels")); });
  showLabels(data.layout.labels_reserved);
  var importsButton = document.getElementById("toggle-imports");
  importsButton.setAttribute("aria-pressed", "true");
  importsButton.addEventListener("click", function () {
    var hidden = svg.classList.toggle("no-imports");
    importsButton.setAttribute("aria-pressed", hidden ? "false" : "true");
  });
  window.addEventListener("resize", fit);
  fit();
  if (!data.nodes.length) { add(document.querySelector("main"), "p", "The index holds no service.", "empty"); }
  document.body.setAttribute("data-rendered", String(data.nodes.length));
})();
"""
