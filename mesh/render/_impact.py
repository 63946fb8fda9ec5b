"""The Markdown of ``impact_matrix``: what changed, a services × kinds-of-impact table, the evidence,
and a one-line verdict.

The first page shows the changes, then the table (:func:`mesh.index.query._graph.impact_of`: one row per
service that changed or holds a dependent, by name, at most ``ROWS_MAX``; cells count files, "–"
for none), then the evidence: dependents grouped by service as ``dependents`` shows them. The
evidence pages like ``dependents`` (a prefix of the sorted list within ``page_bytes``; later pages
show only the evidence); every page ends with the verdict, exactly ``N services impacted, M via
gRPC`` followed by ``, H via HTTP`` and ``, K via messaging`` when there are some (``1 service``;
areas and root files are rows but never counted), then the paging footer when the evidence was
cut. Same graph and arguments, same bytes. :func:`compose_impact` gives the same page as an
:class:`ImpactResult` too, whose ``services`` lists every service the change touches (changed, or
holding a dependent): what a CI job asks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import attrs

from ..index.query._graph import WALK_DEPENDENTS_MAX, Found, Impact, ImpactRow
from ._dependents import (
    DependentFacts,
    ServiceDependents,
    TargetFacts,
    _s,
    carried_by,
    dependent_facts,
    describe_target,
    page_by_service,
    service_counts_of,
    service_name,
    tally_of,
    tally_of_rows,
    target_facts,
)
from ._paging import Page, Paging, Rendered, code, footer_of, page_of
from ._search import PAGE_BYTES

__all__ = ["ImpactResult", "ImpactVerdict", "compose_impact", "render_impact"]

TOOL: Final = "impact_matrix"
#: Rows of the table shown before "and N more services".
ROWS_MAX: Final = 40
#: Changes listed before "and N more", and paths not in the index.
CHANGES_MAX: Final = 10
COLUMNS: Final = (
    "service",
    "changed",
    "direct import or reference",
    "transitive import",
    "calls a changed RPC",
    "uses a changed message",
    "reaches a changed route or topic",
    "tests touching it",
)


@attrs.frozen
class ImpactVerdict:
    """``N services impacted, M via gRPC``...: the services holding a dependent (areas and root files
    never count), and those reached through gRPC, HTTP and messaging."""

    impacted: int
    via_grpc: int
    via_http: int
    via_messaging: int
    #: The services counted in ``impacted``, by name.
    services: list[str]
    #: The counts are lower bounds: the walk was cut (``ImpactResult.cut``).
    at_least: bool = False


@attrs.frozen
class ImpactResult:
    """A page of ``impact_matrix``: the change, the table, the verdict and the evidence shown."""

    #: The range asked for (None for ``changes``) and how many files it changed.
    git_range: str | None
    changed_files: int | None
    #: What changed, as read (the first few), and how many.
    changes: list[TargetFacts]
    changes_total: int
    #: Changed paths the index does not hold (the first few), and how many: not followed.
    missing: list[str]
    missing_total: int
    depth: int
    scope: str | None
    #: Every service the change touches: one that changed or holds a dependent, by name.
    services: list[str]
    #: The table: one row per service that changed or holds a dependent ("" for areas and root
    #: files), by name (the first 40), and how many rows in all.
    rows: list[ImpactRow]
    rows_total: int
    verdict: ImpactVerdict
    #: The evidence: each service's dependents by level, and this page's dependents.
    evidence: list[ServiceDependents]
    dependents: list[DependentFacts]
    page: Page
    #: None when every level up to ``depth`` was walked before this page; else the level the walk
    #: stopped after (INV-TOOL-11): the table, the verdict and the counts are those of the levels
    #: walked (lower bounds), and the cursor ``page.total`` walks every level and shows the whole table.
    cut: int | None = None
    #: On a page past a cut: the level the first pages were cut after (its dependents and those of
    #: the levels before come first in the evidence, then the others).
    ordered_cut: int | None = None


def render_impact(
    found: Found,
    impact: Impact,
    arguments: Mapping[str, object],
    *,
    title: str,
    missing: Sequence[str] = (),
    scope_text: str | None = None,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
) -> str:
    """One page of the impact of ``found.targets``; ``title`` names the change (a range, a list)."""
    return compose_impact(
        found,
        impact,
        arguments,
        title=title,
        missing=missing,
        scope_text=scope_text,
        offset=offset,
        page_bytes=page_bytes,
    ).text


def compose_impact(
    found: Found,
    impact: Impact,
    arguments: Mapping[str, object],
    *,
    title: str,
    missing: Sequence[str] = (),
    scope_text: str | None = None,
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
    git_range: str | None = None,
    changed_files: int | None = None,
) -> Rendered:
    """:func:`render_impact`, with the :class:`ImpactResult` of the same page (``git_range`` and
    ``changed_files``: the range asked for and how many files it changed)."""
    dependents = impact.dependents
    # a first level read a page at a time: its counts are the window's, its rows from window.first
    tally = tally_of(found, None) if found.window is not None else tally_of_rows(dependents)
    total = tally.total
    scoped = f" in scope {code(scope_text)}" if scope_text else ""
    head = f"## Impact of {title}{scoped} within depth {found.depth}\n"
    verdict = f"\n{impact.impacted} service{_s(impact.impacted)} impacted, {impact.via_grpc} via gRPC"
    verdict += f", {impact.via_http} via HTTP" if impact.via_http else ""
    verdict += f", {impact.via_messaging} via messaging" if impact.via_messaging else ""
    cut_note = ""
    if found.cut is not None:
        deeper = f"level {found.depth}" if found.cut + 1 == found.depth else f"levels {found.cut + 1}-{found.depth}"
        verdict += f" (at least: {deeper} not walked yet)"
        cut_note = (
            f"\nAt least: {deeper} not walked yet (the walk stops past {WALK_DEPENDENTS_MAX} dependents), so the"
            f" table counts levels 1-{found.cut} only; the page from cursor `{total}` walks every level and shows"
            " the whole table.\n"
        )
    verdict += "\n"
    # The whole table comes on the first page, and again on the first page past a cut walk's.
    past_cut = found.ordered_cut is not None and offset == sum(1 for d in dependents if d.level <= found.ordered_cut)
    parts = [head]
    if offset == 0 or past_cut:
        parts.append(_changes(found, missing))
        parts.append(_table(impact.rows))
        parts.append(cut_note)
        if past_cut:
            parts.append(f"\n### Evidence (continued past level {found.ordered_cut})\n")
        elif total:
            parts.append("\n### Evidence\n")
        else:
            parts.append("\nNothing depends on the change" + (" in this scope" if scope_text else "") + ".\n")
    else:
        parts.append("\n### Evidence (continued)\n")
    used = sum(len(part.encode()) for part in parts)
    page, shown = page_by_service(
        tally.rows, offset=offset - tally.first, used=used, page_bytes=page_bytes, depth="####",
        per_service=tally.per_service,
    )  # fmt: skip
    parts += page
    parts.append(verdict)
    end = offset + shown
    more = end < total or (found.cut is not None and total > 0)  # a cut walk: the deeper levels follow
    paging = Paging(
        shown=shown, total=total, noun="dependents", next_cursor=str(end) if more else None,
        capped=found.cut is not None, first=offset,
    )  # fmt: skip
    facts = page_of(paging, tool=TOOL, arguments=arguments, paths=[d.path for d in tally.rows],
                    scope_counts=tally.scopes)  # fmt: skip
    footer = footer_of(facts)
    result = ImpactResult(
        git_range=git_range,
        changed_files=changed_files,
        changes=[target_facts(target, found.carriers) for target in found.targets[:CHANGES_MAX]],
        changes_total=len(found.targets),
        missing=list(missing[:CHANGES_MAX]),
        missing_total=len(missing),
        depth=found.depth,
        scope=scope_text,
        services=[row.service for row in impact.rows if row.service],
        rows=list(impact.rows[:ROWS_MAX]),
        rows_total=len(impact.rows),
        verdict=ImpactVerdict(
            impacted=impact.impacted,
            via_grpc=impact.via_grpc,
            via_http=impact.via_http,
            via_messaging=impact.via_messaging,
            services=[service for service in sorted(tally.per_service) if service],
            at_least=found.cut is not None,
        ),
        evidence=service_counts_of(tally.per_service),
        dependents=[dependent_facts(d) for d in tally.rows[offset - tally.first : end - tally.first]],
        page=facts,
        cut=found.cut,
        ordered_cut=found.ordered_cut,
    )
    return Rendered("".join(parts) + ("\n" + footer if footer else ""), result)


def _changes(found: Found, missing: Sequence[str]) -> str:
    targets = found.targets
    lines = ["\nChanged:\n"]
    for target in targets[:CHANGES_MAX]:
        lines.append(f"- {code(target.name)}: {describe_target(target)}{carried_by(target, found.carriers)}\n")
    if len(targets) > CHANGES_MAX:
        lines.append(f"- and {len(targets) - CHANGES_MAX} more\n")
    if not targets:
        lines.append("- nothing in the index\n" if missing else "- nothing: no file changed\n")
    if missing:
        listed = ", ".join(code(path) for path in missing[:CHANGES_MAX])
        more = f" and {len(missing) - CHANGES_MAX} more" if len(missing) > CHANGES_MAX else ""
        lines.append(f"\nNot in the index (deleted, ignored or not indexed yet), so not followed: {listed}{more}.\n")
    return "".join(lines)


def _table(rows: Sequence[ImpactRow]) -> str:
    if not rows:
        return ""
    lines = [
        "\n| " + " | ".join(COLUMNS) + " |\n",
        "| --- | --- | " + " | ".join("---:" for _ in COLUMNS[2:]) + " |\n",
    ]
    for row in rows[:ROWS_MAX]:
        changed = f"changed ({row.changed})" if row.changed else "–"
        cells = [row.direct, row.transitive, row.rpc, row.message, row.link, row.tests]
        lines.append(
            f"| {service_name(row.service)} | {changed} | " + " | ".join(str(c) if c else "–" for c in cells) + " |\n"
        )
    if len(rows) > ROWS_MAX:
        lines.append(f"\n… and {len(rows) - ROWS_MAX} more services: narrow with `scope`.\n")
    lines.append(
        "\nCells count files. Direct (an import, or a resolved reference of a changed symbol) and the RPC,"
        " message and route-or-topic columns are level 1; transitive"
        " is level 2 and beyond, through any edge; serving a changed RPC counts as calling it; a route or topic"
        " is reached by an HTTP request to a changed route or by consuming a changed producer's topic; tests"
        " are the test files among all the dependents.\n"
    )
    return "".join(lines)
