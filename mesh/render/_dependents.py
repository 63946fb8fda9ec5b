"""The Markdown of ``dependents``: what the target was read as, then its dependents by service.

A message or enum is followed by the RPCs carrying it (in the request or response, at any depth,
with the route of fields to it). The count of dependents names the services holding them; files of
no service (areas, root files) are counted apart, never as a service.

Dependents come sorted by service, level and path (:func:`mesh.index.query._graph.find_dependents`).
A page is a prefix of that list from ``offset`` that stays within ``page_bytes`` (at least one
dependent), so following the cursors shows each dependent exactly once. Each service opens with a
heading that counts all its dependents (not only those on the page); each dependent is one line:
its level, ``path:line`` of its first piece of evidence (the last hop of its chain), what that line
does, the file it goes through when it is two or more hops away, and the other lines holding
evidence. A partial page ends with the footer of :mod:`._paging`. Same graph and arguments, same
bytes. :func:`compose_dependents` gives the same page as a :class:`DependentsResult` too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Final

import attrs

from ..index.query._graph import (
    WALK_DEPENDENTS_MAX,
    Carrier,
    Dependent,
    Edge,
    EdgeKind,
    Found,
    Location,
    Scope,
    Target,
)
from ._paging import Page, Paging, Rendered, code, footer_of, page_of
from ._search import PAGE_BYTES

__all__ = [
    "DependentFacts",
    "DependentsResult",
    "LevelCount",
    "ServiceDependents",
    "Tally",
    "TargetFacts",
    "carried_by",
    "compose_dependents",
    "dependent_facts",
    "dependent_line",
    "describe_target",
    "render_dependents",
    "service_counts",
    "service_counts_of",
    "service_heading",
    "tally_of",
    "tally_of_rows",
    "target_facts",
]

TOOL: Final = "dependents"
#: A module or name longer than this is shown cut, with an ellipsis.
WHAT_CHARS_MAX: Final = 120
#: Locations listed for a target before "and N more".
LOCATIONS_MAX: Final = 5
#: Further evidence lines listed after the first.
MORE_LINES_MAX: Final = 5
#: RPCs carrying a message listed before "and N more".
CARRIERS_MAX: Final = 10


@attrs.frozen
class OwnerCount:
    service: str
    count: int


@attrs.frozen
class TargetFacts:
    """What the target was read as, as the answer describes it (lists cut as the answer cuts them)."""

    name: str
    #: file | folder | service | module | symbol | proto message | proto enum | proto service | rpc |
    #: proto package
    kind: str
    detail: str
    #: Where it is defined or what it resolves to (the first few), and how many places in all.
    defined: list[Location]
    defined_total: int
    #: The services holding its files, with how many.
    owners: list[OwnerCount]
    #: The area (a folder of no service) holding it, "" when none.
    area: str
    #: Other readings of the same text.
    also: list[str]
    #: Modules imported but resolved to nothing in the workspace (the first few), and how many.
    modules: list[str]
    modules_total: int
    #: For a message or enum: the RPCs carrying it in their request or response (the first few), and how many.
    carried_by: list[Carrier]
    carried_by_total: int


@attrs.frozen
class DependentFacts:
    """One dependent as its line shows it: the first piece of evidence and the other lines holding some."""

    path: str
    service: str
    #: ``code``, ``test``, ``proto``, ``docs``, ``config`` or ``other``.
    kind: str
    level: int
    #: The first edge (the last hop of its chain): ``line`` is the ``path:line`` shown.
    edge: Edge
    #: The other lines holding evidence (the first few), and how many.
    also_lines: list[int]
    also_lines_total: int


@attrs.frozen
class LevelCount:
    level: int
    count: int


@attrs.frozen
class ServiceDependents:
    """A service's dependents (all of them, not only those on the page), by level ("" for no service)."""

    service: str
    total: int
    levels: list[LevelCount]


@attrs.frozen
class DependentsResult:
    """A page of ``dependents``: the target, the counts, and the dependents shown."""

    target: TargetFacts
    depth: int
    #: The scope as given (None for none), and the dependents outside it.
    scope: str | None
    outside_scope: int
    #: Every dependent in scope, by level and by service (of the levels walked: see ``cut``).
    total: int
    levels: list[LevelCount]
    services: list[ServiceDependents]
    #: This page's dependents, sorted by service, level and path (after a cut, the walked levels'
    #: dependents first: see ``cut``).
    dependents: list[DependentFacts]
    page: Page
    #: None when every level up to ``depth`` was walked before this page. Else the level the walk
    #: stopped after (it had found more than enough for a page): the counts are those of levels 1 to
    #: ``cut``, ``total`` a lower bound (``page.capped``); the deeper levels follow them, from the
    #: cursor ``total``, which walks them.
    cut: int | None = None
    #: On a page past a cut: the level the first pages were cut after; its dependents and those of
    #: the levels before come first in this order, then the others (by service, level and path).
    ordered_cut: int | None = None


def render_dependents(
    found: Found,
    arguments: Mapping[str, object],
    *,
    scope: Scope | None = None,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
) -> str:
    """One page of the dependents of ``found.targets[0]`` from ``offset``, limited to ``scope``."""
    return compose_dependents(found, arguments, scope=scope, offset=offset, page_bytes=page_bytes).text


def compose_dependents(
    found: Found,
    arguments: Mapping[str, object],
    *,
    scope: Scope | None = None,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
) -> Rendered:
    """:func:`render_dependents`, with the :class:`DependentsResult` of the same page."""
    target = found.targets[0]
    tally = tally_of(found, scope)
    total = tally.total
    head = f"## Dependents of {code(target.name)}\n\n{describe_target(target)}{carried_by(target, found.carriers)}\n"
    head += _summary(found, tally, scope)
    page: list[str] = []
    shown = 0
    if total:
        page, shown = page_by_service(
            tally.rows, offset=offset - tally.first, used=len(head.encode()), page_bytes=page_bytes,
            per_service=tally.per_service,
        )  # fmt: skip
    end = offset + shown
    more = end < total or (found.cut is not None and total > 0)  # a cut walk: the deeper levels follow
    paging = Paging(
        shown=shown, total=total, noun="dependents", next_cursor=str(end) if more else None,
        capped=found.cut is not None, first=offset,
    )  # fmt: skip
    facts = page_of(paging, tool=TOOL, arguments=arguments, paths=[d.path for d in tally.rows],
                    scope_counts=tally.scopes)  # fmt: skip
    levels = tally.levels
    result = DependentsResult(
        target=target_facts(target, found.carriers),
        depth=found.depth,
        scope=None if scope is None else scope.text,
        outside_scope=tally.outside,
        total=total,
        levels=[LevelCount(level, levels[level]) for level in sorted(levels)],
        services=service_counts_of(tally.per_service),
        dependents=[dependent_facts(d) for d in tally.rows[offset - tally.first : end - tally.first]],
        page=facts,
        cut=found.cut,
        ordered_cut=found.ordered_cut,
    )
    if total == 0:
        return Rendered(head, result)
    footer = footer_of(facts)
    return Rendered("".join([head, *page]) + ("\n" + footer if footer else ""), result)


def target_facts(target: Target, carriers: Sequence[Carrier]) -> TargetFacts:
    """The structured form of :func:`describe_target` and :func:`carried_by`."""
    mine = [c for c in carriers if c.message == target.name] if target.kind in ("proto message", "proto enum") else []
    return TargetFacts(
        name=target.name,
        kind=target.kind,
        detail=target.detail,
        defined=list(target.defined[:LOCATIONS_MAX]),
        defined_total=len(target.defined),
        owners=[OwnerCount(service, count) for service, count in target.owners],
        area=target.area,
        also=list(target.also),
        modules=list(target.modules[:LOCATIONS_MAX]) if target.kind == "module" else [],
        modules_total=len(target.modules) if target.kind == "module" else 0,
        carried_by=[attrs.evolve(c, path=_cut(c.path)) for c in mine[:CARRIERS_MAX]],
        carried_by_total=len(mine),
    )


def dependent_facts(dependent: Dependent) -> DependentFacts:
    """The structured form of :func:`dependent_line`."""
    edge = dependent.edges[0]
    others = sorted({other.line for other in dependent.edges} - {edge.line})
    return DependentFacts(
        path=dependent.path,
        service=dependent.service,
        kind=dependent.kind,
        level=dependent.level,
        edge=attrs.evolve(edge, what=_cut(edge.what), path=_cut(edge.path)),
        also_lines=others[:MORE_LINES_MAX],
        also_lines_total=len(others),
    )


def service_counts(dependents: Sequence[Dependent]) -> list[ServiceDependents]:
    """Each service's dependents by level, as the service headings count them, in order."""
    return service_counts_of(_per_service(dependents))


def service_counts_of(per_service: Mapping[str, Counter[int]]) -> list[ServiceDependents]:
    """:func:`service_counts` from each service's dependents by level."""
    return [
        ServiceDependents(service, sum(levels.values()), [LevelCount(level, levels[level]) for level in sorted(levels)])
        for service, levels in per_service.items()
    ]


@attrs.frozen
class Tally:
    """The counts of an answer's dependents (in scope), and those of them it read."""

    total: int
    #: Each service's dependents by level, services in the order of the dependents.
    per_service: dict[str, Counter[int]]
    levels: Counter[int]
    #: Dependents outside the scope.
    outside: int
    #: The dependents read, from the ``first`` of them on (all of them unless only a page was read).
    rows: Sequence[Dependent]
    first: int = 0
    #: (sub-scope, dependents) when only a page was read, else None (the rows' paths say).
    scopes: tuple[tuple[str, int], ...] | None = None


def tally_of(found: Found, scope: Scope | None) -> Tally:
    """The counts of ``found``'s dependents in ``scope``: from :class:`Window` when only a page of
    the first level was read (never with a scope), else from the dependents themselves."""
    window = found.window
    if window is not None:
        assert scope is None, "a first level read a page at a time has no scope"
        per_service = {service: Counter({1: count}) for service, count, _ in window.services}
        return Tally(window.total, per_service, Counter({1: window.total}), 0, found.dependents, window.first,
                     window.scopes)  # fmt: skip
    rows = tuple(d for d in found.dependents if scope is None or scope.holds(d.path, d.service))
    return tally_of_rows(rows, outside=len(found.dependents) - len(rows))


def tally_of_rows(rows: Sequence[Dependent], *, outside: int = 0) -> Tally:
    """The counts of ``rows``, every dependent of an answer."""
    return Tally(len(rows), _per_service(rows), Counter(d.level for d in rows), outside, rows)


def _summary(found: Found, tally: Tally, scope: Scope | None) -> str:
    name = code(found.targets[0].name)
    within = f"within depth {found.depth}"
    dependents = tally.total
    if scope is not None:
        outside = tally.outside
        if not dependents:
            return (
                f"\nNothing in scope {code(scope.text)} depends on {name} {within}"
                f" ({outside} dependent{_s(outside)} outside it: call again without `scope`).\n"
            )
        where = f" in scope {code(scope.text)} ({outside} more outside it)"
    else:
        if not dependents:
            return f"\nNothing depends on {name} {within}.\n"
        where = ""
    levels = tally.levels
    by_level = ", ".join(f"{levels[level]} at level {level}" for level in sorted(levels))
    if found.cut is not None:
        deeper = f"level {found.depth}" if found.cut + 1 == found.depth else f"levels {found.cut + 1}-{found.depth}"
        return (
            f"\nAt least {_counted(tally)}{where} {within}: {by_level}; {deeper} not walked yet"
            f" (the walk stops past {WALK_DEPENDENTS_MAX} dependents). They follow these, from cursor"
            f" `{dependents}`, which walks them.\n"
        )
    text = f"\n{_counted(tally)}{where} {within}: {by_level}.\n"
    if found.ordered_cut is not None and max(levels, default=0) <= found.ordered_cut:
        walked = "level 1" if found.ordered_cut == 1 else f"levels 1-{found.ordered_cut}"
        text += f"Nothing depends on them past {walked}: the pages before showed every dependent.\n"
    elif found.ordered_cut is not None:
        first = "Level 1 comes" if found.ordered_cut == 1 else f"Levels 1-{found.ordered_cut} come"
        text += (
            f"{first} first (the first pages were answered before the deeper levels"
            " were walked), then the deeper ones.\n"
        )
    return text


def _counted(tally: Tally) -> str:
    """``N dependents in K services``; those of no service (areas, root files) are counted apart,
    never as a service."""
    services = sum(1 for service in tally.per_service if service)
    outside = sum(tally.per_service.get("", Counter()).values())
    total = f"{tally.total} dependent{_s(tally.total)}"
    if not outside:
        return f"{total} in {services} service{_s(services)}"
    if not services:
        return f"{total} in no service (areas, root files)"
    inside = tally.total - outside
    return f"{total} ({inside} in {services} service{_s(services)}, {outside} in no service: areas, root files)"


def _per_service(dependents: Sequence[Dependent]) -> dict[str, Counter[int]]:
    pairs = Counter((dependent.service, dependent.level) for dependent in dependents)
    counts: dict[str, Counter[int]] = {}
    for dependent in dependents:  # services in the order of the dependents, as the headings come
        if dependent.service not in counts:
            counts[dependent.service] = Counter()
    for (service, level), count in sorted(pairs.items()):
        counts[service][level] = count
    return counts


def page_by_service(
    dependents: Sequence[Dependent], *, offset: int, used: int, page_bytes: int, depth: str = "###",
    per_service: Mapping[str, Counter[int]] | None = None,
) -> tuple[list[str], int]:
    """The lines of as many dependents from ``offset`` as fit ``page_bytes`` after ``used`` bytes
    (at least one), a service's heading (counting all its dependents: ``per_service``, else those
    of ``dependents``) before its first; and how many."""
    per_service = _per_service(dependents) if per_service is None else per_service
    parts: list[str] = []
    current = None
    shown = 0
    for dependent in dependents[offset:]:
        heading = ""
        if dependent.service != current:
            heading = service_heading(dependent.service, per_service[dependent.service], depth=depth)
        line = dependent_line(dependent)
        cost = len(heading.encode()) + len(line.encode())
        if shown and used + cost > page_bytes:
            break
        parts.append(heading + line)
        current = dependent.service
        used += cost
        shown += 1
    return parts, shown


def service_heading(service: str, levels: Counter[int], depth: str = "###") -> str:
    """The heading of one service's dependents, counting them all by level."""
    total = sum(levels.values())
    by_level = ", ".join(f"L{level}: {levels[level]}" for level in sorted(levels))
    return f"\n{depth} {service_name(service)}: {total} dependent{_s(total)} ({by_level})\n"


def service_name(service: str) -> str:
    return code(service) if service else "(no service: areas and root files)"


def dependent_line(dependent: Dependent) -> str:
    """One dependent: level, ``path:line``, what its first edge does, and where else it depends."""
    edge = dependent.edges[0]
    tag = f" ({dependent.kind})" if dependent.kind != "code" else ""
    via = f", via {code(edge.via)}" if dependent.level > 1 and edge.via else ""
    others = sorted({other.line for other in dependent.edges} - {edge.line})
    more = ""
    if others:
        lines = ", ".join(str(line) for line in others[:MORE_LINES_MAX]) + ("…" if len(others) > MORE_LINES_MAX else "")
        more = f" (also line{_s(len(others))} {lines})"
    return f"- L{dependent.level} {code(f'{dependent.path}:{edge.line}')}{tag} {phrase(edge)}{via}{more}\n"


def phrase(edge: Edge) -> str:
    """What the line of ``edge`` does, in a few words."""
    what = code(_cut(edge.what))
    about = code(edge.about) if edge.about else ""
    text = {
        "import": f"imports {what}",
        "client": f"creates a client of {what}",
        "call": f"calls {what}",
        "server": f"serves {what}",
        "handler": f"implements {what}",
        "field": f"field {what} has type {about}",
        "request": f"rpc {what} takes {about}",
        "response": f"rpc {what} returns {about}",
        "use": f"names {what}, generated from {about}",
        "sends": f"sends {what}",
        "consumes": f"consumes topic {what}",
        "instantiates": f"instantiates {what}",
        "type": f"names the type {what}",
        "reads": f"reads {what}",
    }.get(edge.role, f"{edge.role} {what}")
    inside = f" in {code(_cut(edge.path))}" if edge.path else ""
    if edge.kind == EdgeKind.MESSAGE and edge.role == "import":
        text += f", naming {about}"
    elif edge.kind == EdgeKind.MESSAGE and edge.role in ("call", "handler"):
        text += f", which carries {about}{inside}" if inside else f", which takes or returns {about}"
    elif edge.kind == EdgeKind.MESSAGE and edge.role in ("request", "response"):
        text += inside
    return text


def describe_target(target: Target) -> str:
    """A sentence saying what the target was read as and where it is (without its name)."""
    kind = target.kind
    where = _locations(target.defined)
    owners = ", ".join(service_name(service) for service, _ in target.owners)
    if kind == "file" and target.area:
        text = f"File in area {code(target.area)}, which holds no service ({target.detail})."
    elif kind == "file":
        text = f"File in service {owners} ({target.detail})."
    elif kind == "folder" and target.area:
        text = f"Folder with {target.detail} in area {code(target.area)}, which holds no service; dependents are outside it."
    elif kind == "folder":
        text = f"Folder with {target.detail} in service{_s(len(target.owners))} {owners}; dependents are outside it."
    elif kind == "service":
        text = f"Service ({target.detail}); dependents are outside it."
    elif kind == "module":
        resolves = f", resolving to {where}" if target.defined else ""
        if target.modules:
            listed = ", ".join(code(module) for module in target.modules[:LOCATIONS_MAX])
            more = len(target.modules) - LOCATIONS_MAX
            listed += f" and {more} more" if more > 0 else ""
            resolves += f"; {listed} resolve{'s' if len(target.modules) == 1 else ''} to nothing in the workspace"
            resolves += ": " if target.defined else ", "
            resolves += "their importers are listed" if len(target.modules) > 1 else "its importers are listed"
        text = f"Module as imported ({target.detail}){resolves}."
    elif kind == "symbol":
        text = f"Symbol ({target.detail}) defined at {where}; dependents refer to it (resolved references), then import those."
    elif kind == "rpc":
        text = f"RPC declared at {where}; dependents call or implement it."
    elif kind == "proto service":
        text = f"Proto service defined at {where}; dependents are its clients and servers."
    elif kind == "proto package":
        text = f"Proto package ({target.detail}): {where}."
    else:
        text = f"{kind[0].upper()}{kind[1:]} defined at {where}."
    notes = "".join(f" Note: {note}." for note in target.also)
    return f"{text}{notes}"


def carried_by(target: Target, carriers: Sequence[Carrier]) -> str:
    """For a message or enum: the RPCs whose request or response holds it, at any depth, each with
    the route of fields to it (a sentence starting with a space), else ""."""
    if target.kind not in ("proto message", "proto enum"):
        return ""
    mine = [carrier for carrier in carriers if carrier.message == target.name]
    if not mine:
        return " No RPC takes or returns it, at any depth."
    listed = ", ".join(f"{code(c.rpc)} ({c.role} {code(_cut(c.path))})" for c in mine[:CARRIERS_MAX])
    more = len(mine) - CARRIERS_MAX
    listed += f" and {more} more" if more > 0 else ""
    return f" Carried by {len(mine)} RPC{_s(len(mine))}, in the request or response at any depth: {listed}."


def _locations(locations: Sequence[Location]) -> str:
    shown = [code(f"{loc.path}:{loc.line}" if loc.line else loc.path) for loc in locations[:LOCATIONS_MAX]]
    more = len(locations) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def _cut(text: str) -> str:
    return text if len(text) <= WHAT_CHARS_MAX else text[: WHAT_CHARS_MAX - 1] + "…"


def _s(count: int) -> str:
    return "" if count == 1 else "s"
