"""The Markdown of a gRPC trace: proto copies, messages, implementations, callers, diagram, gaps.

An answer has a fixed part (the heading and summary; on the first page also the proto copies and
messages or the method table before the code sites, the diagram and the gaps after them) and a
paged part: the code sites, grouped by section (implementations, callers: the call sites only,
stubs: where clients of the service are made, sites that name no declared method), then by
workspace service and language. A page is a prefix of the sites from
``offset`` that fits in ``page_bytes`` together with the fixed part (at least one site), so
following the cursors shows every site once; a partial page ends with the footer of
:mod:`._paging`. ``scope`` keeps only the sites under a path; the counts, diagram and gaps always
describe the whole trace. Same trace and arguments, same bytes. :func:`compose_grpc` gives the
same page as a :class:`GrpcResult` too (with the fixed part on every page).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Final, Literal

import attrs

from ..index.query._grpc_query import (
    Copy,
    Message,
    MethodRow,
    MethodTrace,
    ServiceTrace,
    Site,
    Trace,
    UnresolvedTrace,
)
from ._paging import Page, Paging, Rendered, ScopeCount, call_text, code, footer_of, page_of

__all__ = ["PAGE_BYTES", "TOOL", "GrpcResult", "Listed", "compose_grpc", "listed_sites", "render_grpc"]

#: About what one page may take.
PAGE_BYTES: Final = 8 * 1024
TOOL: Final = "grpc_trace"
#: Limits that keep the fixed part of an answer small whatever the service.
FIELDS_MAX: Final = 60
COPIES_MAX: Final = 30
METHODS_MAX: Final = 100
DIAGRAM_NODES_MAX: Final = 24
NAMES_MAX: Final = 12
SITES_IN_GAPS_MAX: Final = 5


@attrs.frozen
class Listed:
    """One site as the paged part lists it."""

    section: str
    #: (workspace service, language)
    group: tuple[str, str]
    site: Site
    text: str


@attrs.frozen
class MessageShown:
    """The request or response of a method, as the answer shows it."""

    role: Literal["request", "response"]
    #: The type as the rpc line writes it.
    written: str
    #: ``workspace`` (defined by a ``.proto`` here: ``name``, ``path``, ``line``, ``fields``),
    #: ``runtime`` (a standard service's, defined by the gRPC runtime) or ``nowhere``.
    defined: Literal["workspace", "runtime", "nowhere"]
    name: str
    kind: str
    path: str
    line: int
    #: Its fields as declared (the first 60), and how many.
    fields: list[str]
    fields_total: int


@attrs.frozen
class MethodShown:
    """One row of a service's method table."""

    method: MethodRow
    handlers: int
    calls: int
    #: Every call site of the method is in a test.
    called_only_from_tests: bool


@attrs.frozen
class SiteShown:
    """One code site of the paged part, under its section."""

    section: Literal["Implementations", "Callers", "Stubs", "Not in the proto"]
    site: Site


@attrs.frozen
class Gap:
    #: What kind of gap, as the answer names it (``Never called``, ``Drifted copies``...).
    kind: str
    #: The answer's sentence (Markdown).
    text: str


@attrs.frozen
class GrpcResult:
    """A page of ``grpc_trace``: the definition, the counts, the code sites shown, the gaps."""

    key: str
    #: A method, a whole service, or a service the code names but no ``.proto`` here defines.
    kind: Literal["method", "service", "unresolved"]
    #: A standard service of the gRPC runtime (health, reflection) with no ``.proto`` here.
    standard: bool
    #: For a method: ``rpc Name(Request) returns (Response)``.
    signature: str | None
    handlers: int
    servers: int
    calls: int
    clients: int
    #: Call sites and handlers by workspace service, busiest first.
    callers: list[ScopeCount]
    implementers: list[ScopeCount]
    #: The ``.proto`` copies defining it (the first 30), how many, and whether they differ.
    copies: list[Copy]
    copies_total: int
    copies_differ: bool
    #: For a method: its request and response.
    messages: list[MessageShown]
    #: For a service: its methods (the first 100), and how many.
    methods: list[MethodShown]
    methods_total: int
    gaps: list[Gap]
    #: Only the code sites under this path are listed (counts and gaps stay whole).
    scope: str | None
    sites: list[SiteShown]
    page: Page


# -- the paged part ------------------------------------------------------------------------------

_SECTIONS: Final = (
    ("Implementations", "No handler found."),
    ("Callers", "No call site found."),
    ("Stubs", ""),
    ("Not in the proto", ""),
)


def listed_sites(trace: Trace, scope: str = "") -> list[Listed]:
    """The sites the paged part shows, in order, only those under ``scope`` when given."""
    with_method = isinstance(trace, (ServiceTrace, UnresolvedTrace))
    if isinstance(trace, MethodTrace):
        # the servers of the service where the method is handled (or, for a standard service, where
        # the runtime's own implementation is registered), and its stubs where the method is called
        handling = {(site.owner, site.language) for site in trace.handlers}
        calling = {(site.owner, site.language) for site in trace.calls}
        runtime = _runtime(trace)
        servers = [s for s in trace.servers if runtime or (s.owner, s.language) in handling]
        implementations = [*trace.handlers, *servers]
        stubs = [site for site in trace.clients if (site.owner, site.language) in calling]
        strays: Sequence[Site] = ()
    else:
        implementations = [*trace.handlers, *trace.servers]
        stubs = list(trace.clients)
        strays = trace.strays if isinstance(trace, ServiceTrace) else ()
    listed = []
    for (section, _), sites in zip(_SECTIONS, (implementations, trace.calls, stubs, strays), strict=True):
        for site in sorted(sites, key=Site.order):
            if scope and site.path != scope and not site.path.startswith(scope + "/"):
                continue
            listed.append(Listed(section, (site.owner, site.language), site, _site_line(site, with_method)))
    return listed


def _site_line(site: Site, with_method: bool) -> str:
    where = f"in {code(site.symbol)}" if site.symbol else "at module level"
    if site.role == "server":
        label = "server: "
    elif site.role == "client":
        label = ""  # listed under Stubs
    elif with_method:
        label = f"{code(site.method)}: " if site.method else ""
    else:
        label = ""
    test = " (test)" if site.test else ""
    return f"  - {label}{code(f'{site.path}:{site.line}')} {where}{test}\n"


def _page(listed: Sequence[Listed], offset: int, used: int, page_bytes: int, scope: str) -> tuple[str, int]:
    """The sites of one page from ``offset`` (``used`` bytes already taken) and how many it shows."""
    parts: list[str] = []
    shown = 0
    index = 0
    stopped = False
    for section, empty in _SECTIONS:
        items = [item for item in listed if item.section == section]
        if not items:
            # an empty section is shown once, on the page that reaches its place in the list
            if empty and not stopped and (index > offset or offset == 0):
                parts.append(f"\n### {section}\n\n{f'None under {code(scope)}.' if scope else empty}\n")
            continue
        started = False
        group: tuple[str, str] | None = None
        for item in items:
            if index < offset:
                index += 1
                continue
            if stopped:
                break
            piece = "" if started else f"\n### {section}\n\n"
            if item.group != group:
                piece += f"- **{item.group[0]}** ({item.group[1]})\n"
            piece += item.text
            cost = len(piece.encode("utf-8"))
            if shown and used + cost > page_bytes:
                stopped = True
                break
            parts.append(piece)
            used += cost
            shown += 1
            index += 1
            started, group = True, item.group
    return "".join(parts), shown


# -- the whole answer ----------------------------------------------------------------------------


def render_grpc(
    trace: Trace,
    arguments: Mapping[str, object],
    *,
    scope: str = "",
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
) -> str:
    """One page of ``trace`` from ``offset``; ``arguments`` are the call's (for the follow-up calls)."""
    return compose_grpc(trace, arguments, scope=scope, offset=offset, page_bytes=page_bytes).text


def compose_grpc(
    trace: Trace,
    arguments: Mapping[str, object],
    *,
    scope: str = "",
    offset: int = 0,
    page_bytes: int = PAGE_BYTES,
) -> Rendered:
    """:func:`render_grpc`, with the :class:`GrpcResult` of the same page."""
    listed = listed_sites(trace, scope)
    head = f"## {code(trace.key)}\n\n{_summary(trace)}\n"
    if scope:
        head += f"\nCode sites under {code(scope)} only.\n"
    if offset:
        top = bottom = ""
    else:
        top = _top(trace)
        bottom = _diagram(trace) + _gaps(trace)
    used = len((head + top + bottom).encode("utf-8"))
    middle, shown = _page(listed, offset, used, page_bytes, scope)
    end = offset + shown
    paging = Paging(
        shown=shown,
        total=len(listed),
        noun="code sites",
        next_cursor=str(end) if end < len(listed) else None,
        first=offset,
    )
    facts = page_of(paging, tool=TOOL, arguments=arguments, paths=[item.site.path for item in listed])
    footer = footer_of(facts)
    text = head + top + middle + bottom + ("\n" + footer if footer else "")
    return Rendered(text, _result(trace, listed[offset:end], scope, facts))


def _result(trace: Trace, shown: Sequence[Listed], scope: str, page: Page) -> GrpcResult:
    copies: Sequence[Copy] = () if isinstance(trace, UnresolvedTrace) else trace.copies
    messages: list[MessageShown] = []
    methods: list[MethodShown] = []
    if isinstance(trace, MethodTrace):
        kind: Literal["method", "service", "unresolved"] = "method"
        signature: str | None = trace.method.signature
        for role, written, message in (
            ("request", trace.method.request, trace.request),
            ("response", trace.method.response, trace.response),
        ):
            messages.append(_message_shown(role, written, message, trace.standard))
    elif isinstance(trace, ServiceTrace):
        kind, signature = "service", None
        for row in trace.methods[:METHODS_MAX]:
            calls = trace.calls_of(row.name)
            only_tests = bool(calls) and all(site.test for site in calls)
            methods.append(MethodShown(row, len(trace.handlers_of(row.name)), len(calls), only_tests))
    else:
        kind, signature = "unresolved", None
    return GrpcResult(
        key=trace.key,
        kind=kind,
        standard=not isinstance(trace, UnresolvedTrace) and trace.standard,
        signature=signature,
        handlers=len(trace.handlers),
        servers=len(trace.servers),
        calls=len(trace.calls),
        clients=len(trace.clients),
        callers=_by_owner(trace.calls),
        implementers=_by_owner(trace.handlers),
        copies=list(copies[:COPIES_MAX]),
        copies_total=len(copies),
        copies_differ=any(copy.differences for copy in copies),
        messages=messages,
        methods=methods,
        methods_total=len(trace.methods) if isinstance(trace, ServiceTrace) else 0,
        gaps=[_gap(text) for text in _gap_list(trace)],
        scope=scope or None,
        sites=[SiteShown(item.section, item.site) for item in shown],  # type: ignore[arg-type]
        page=page,
    )


def _message_shown(role: str, written: str, message: Message | None, standard: bool) -> MessageShown:
    if message is None:
        defined: Literal["workspace", "runtime", "nowhere"] = "runtime" if standard else "nowhere"
        return MessageShown(role, written, defined, "", "", "", 0, [], 0)  # type: ignore[arg-type]
    fields = [field.declaration for field in message.fields]
    return MessageShown(
        role,  # type: ignore[arg-type]
        written,
        "workspace",
        f"{message.package}.{message.name}" if message.package else message.name,
        message.kind,
        message.path,
        message.line,
        fields[:FIELDS_MAX],
        len(fields),
    )


def _by_owner(sites: Sequence[Site]) -> list[ScopeCount]:
    counts = Counter(site.owner for site in sites)
    return [ScopeCount(owner, count) for owner, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


_GAP: Final = re.compile(r"\*\*(.+?)\*\*: (.*)", re.DOTALL)


def _gap(text: str) -> Gap:
    """A gap's line (``**Kind**: sentence``) as its kind and sentence."""
    match = _GAP.fullmatch(text)
    return Gap(match.group(1), match.group(2)) if match else Gap("", text)


def _count(number: int, noun: str, plural: str | None = None) -> str:
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def _owners(sites: Iterable[Site]) -> list[str]:
    return sorted({site.owner for site in sites})


def _summary(trace: Trace) -> str:
    if isinstance(trace, UnresolvedTrace):
        sites = [*trace.handlers, *trace.servers, *trace.calls, *trace.clients]
        return (
            f"No `.proto` in the workspace defines a service {code(trace.service)}, so its methods and messages"
            f" are unknown; the code names it at {_count(len(sites), 'site')}."
        )
    copies = _count(len(trace.copies), "`.proto` copy", "`.proto` copies")
    if trace.standard:
        copies = "a standard service of the gRPC runtime (its `.proto` is not in the workspace)"
    if len(trace.copies) > 1:
        copies += ", which differ" if any(copy.differences for copy in trace.copies) else ", all the same"
    calls = _spread(trace.calls, "call site")
    handlers = _spread(trace.handlers, "handler")
    if isinstance(trace, MethodTrace):
        return f"{code(trace.method.signature)}: {copies}; {handlers}; {calls}."
    stubs = f"{_count(len(trace.servers), 'server')} and {_count(len(trace.clients), 'stub')}"
    where = "of" if trace.standard else "in"
    return f"{_count(len(trace.methods), 'method')} {where} {copies}; {handlers}; {calls}; {stubs}."


def _spread(sites: Sequence[Site], noun: str) -> str:
    if not sites:
        return f"no {noun}"
    return f"{_count(len(sites), noun)} in {_count(len(_owners(sites)), 'service')}"


def _top(trace: Trace) -> str:
    if isinstance(trace, UnresolvedTrace):
        return ""
    lines = ["", "### Defined in", ""]
    if trace.standard:
        key = trace.service_key if isinstance(trace, MethodTrace) else trace.key
        lines.append(
            f"- the gRPC runtime: {code(key)} ships with every gRPC library, and no `.proto` of the"
            " workspace defines it."
        )
    for copy in trace.copies[:COPIES_MAX]:
        lines.append(f"- {_copy_line(copy, several=len(trace.copies) > 1)}")
    if len(trace.copies) > COPIES_MAX:
        rest = trace.copies[COPIES_MAX:]
        drifted = sum(1 for copy in rest if copy.differences)
        lines.append(f"- and {_count(len(rest), 'more copy', 'more copies')} ({drifted} of them differ)")
    text = "\n".join(lines) + "\n"
    if isinstance(trace, MethodTrace):
        return text + _messages(trace)
    return text + _methods(trace)


def _copy_line(copy: Copy, *, several: bool) -> str:
    owner = copy.owner or "no service: an area or the root"
    line = f"{code(f'{copy.path}:{copy.line}')} ({owner})"
    if copy.differences:
        return f"{line}: differs: {'; '.join(copy.differences)}"
    if copy.reference and several:
        return f"{line}: the reference"
    return line


def _messages(trace: MethodTrace) -> str:
    parts = ["\n### Messages\n"]
    same = trace.method.request == trace.method.response
    for what, written, message in (
        ("Request", trace.method.request, trace.request),
        ("Response", trace.method.response, trace.response),
    ):
        if message is None and trace.standard:
            parts.append(f"\n{what} {code(written)}: defined by the gRPC runtime ({code(trace.package)}).\n")
        elif message is None:
            parts.append(f"\n{what} {code(written)}: not defined in the workspace.\n")
        elif what == "Response" and same:
            parts.append(f"\n{what} {code(written)}: the same message.\n")
        else:
            parts.append(f"\n{what} {code(written)}, {code(f'{message.path}:{message.line}')}:\n{_message(message)}")
    return "".join(parts)


def _message(message: Message) -> str:
    name = message.name.rsplit(".", 1)[-1]
    lines = ["```proto", f"{message.kind} {name} {{"]
    for field in message.fields[:FIELDS_MAX]:
        lines.append(f"  {field.declaration};")
    if len(message.fields) > FIELDS_MAX:
        lines.append(f"  // {len(message.fields) - FIELDS_MAX} more fields")
    lines += ["}", "```"]
    return "\n".join(lines) + "\n"


def _methods(trace: ServiceTrace) -> str:
    several = len(trace.copies) > 1
    lines = ["", "### Methods", ""]
    if not trace.methods:
        return "\n".join([*lines, "It declares no method."]) + "\n"
    header = "| method | request | response | handlers | call sites |" + (" copies |" if several else "")
    lines += [header, "| --- | --- | --- | ---: | ---: |" + (" --- |" if several else "")]
    for row in trace.methods[:METHODS_MAX]:
        calls = trace.calls_of(row.name)
        called = str(len(calls)) + (" (tests)" if calls and all(site.test for site in calls) else "")
        request = ("stream " if row.client_streaming else "") + code(row.request)
        response = ("stream " if row.server_streaming else "") + code(row.response)
        cells = [code(row.name), request, response, str(len(trace.handlers_of(row.name))), called]
        if several:
            cells.append("differ" if row.differs else "agree")
        lines.append("| " + " | ".join(cells) + " |")
    if len(trace.methods) > METHODS_MAX:
        rest = trace.methods[METHODS_MAX:]
        lines.append("")
        lines.append(f"And {len(rest)} more: {_names([row.name for row in rest])}.")
    first = trace.methods[0].name
    lines += ["", f"Trace one method: {call_text(TOOL, {'target': f'{trace.key}/{first}'})}"]
    return "\n".join(lines) + "\n"


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(code(name) for name in names[:NAMES_MAX])
    return shown + (f" and {len(names) - NAMES_MAX} more" if len(names) > NAMES_MAX else "")


# -- the diagram ---------------------------------------------------------------------------------


def _label(text: str) -> str:
    """A Mermaid label: quoted, with the characters that would end or break it escaped."""
    escaped = text.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")
    return f'"{escaped}"'


def _diagram(trace: Trace) -> str:
    calls_by: dict[str, list[Site]] = {}
    for site in trace.calls:
        calls_by.setdefault(site.owner, []).append(site)
    stub_only = [owner for owner in _owners(trace.clients) if owner not in calls_by]
    handlers_by: dict[str, list[Site]] = {}
    for site in trace.handlers:
        handlers_by.setdefault(site.owner, []).append(site)
    server_only = [owner for owner in _owners(trace.servers) if owner not in handlers_by]
    runtime = _runtime(trace)
    if isinstance(trace, MethodTrace):  # a method answer draws who calls and who implements it
        stub_only, server_only = [], server_only if runtime else []
    callers = sorted(calls_by, key=lambda owner: (-len(calls_by[owner]), owner))
    kept = callers[:DIAGRAM_NODES_MAX]
    dropped = callers[DIAGRAM_NODES_MAX:]
    stub_only = stub_only[:DIAGRAM_NODES_MAX]
    implementers = sorted(handlers_by)[:DIAGRAM_NODES_MAX]
    server_only = server_only[:DIAGRAM_NODES_MAX]
    owners = sorted({*kept, *stub_only, *implementers, *server_only})
    ids = {owner: f"s{number}" for number, owner in enumerate(owners, 1)}
    lines = ["", "### Diagram", "", "```mermaid", "flowchart LR", f"  t[{_label(trace.key)}]"]
    lines += [f"  {ids[owner]}[{_label(owner)}]" for owner in owners]
    with_method = not isinstance(trace, MethodTrace)
    for owner in kept:
        lines.append(f"  {ids[owner]} -->|{_label(_edge(calls_by[owner], with_method))}| t")
    if dropped:
        count = sum(len(calls_by[owner]) for owner in dropped)
        lines.append(f"  more[{_label(f'{len(dropped)} more services')}] -->|{_label(_count(count, 'call'))}| t")
    for owner in stub_only:
        lines.append(f"  {ids[owner]} -.->|{_label('stub, no call')}| t")
    for owner in implementers:
        label = _edge(handlers_by[owner], with_method) if with_method else "implemented in"
        lines.append(f"  t -.->|{_label(label)}| {ids[owner]}")
    for owner in server_only:
        label = "the runtime's implementation" if runtime else "server, no handler"
        lines.append(f"  t -.->|{_label(label)}| {ids[owner]}")
    if not trace.handlers and not runtime:
        lines.append(f"  t -.- none[{_label('no implementation')}]")
    if not trace.calls:
        lines.append(f"  nobody[{_label('no caller')}] -.- t")
    lines.append("```")
    return "\n".join(lines) + "\n"


def _runtime(trace: Trace) -> bool:
    """Whether the servers of a standard service register the runtime's own implementation (no handler of ours)."""
    standard = isinstance(trace, (MethodTrace, ServiceTrace)) and trace.standard
    return standard and not trace.handlers and bool(trace.servers)


def _edge(sites: Sequence[Site], with_method: bool) -> str:
    if not with_method:
        return _count(len(sites), "call")
    names: list[str] = []
    for site in sites:
        if site.method not in names:
            names.append(site.method)
    shown = ", ".join(sorted(names)[:3])
    return shown + (f" +{len(names) - 3}" if len(names) > 3 else "")


# -- the gaps ------------------------------------------------------------------------------------


def _gaps(trace: Trace) -> str:
    found = _gap_list(trace)
    body = "\n".join(f"- {gap}" for gap in found) if found else "None found."
    return f"\n### Gaps\n\n{body}\n"


def _gap_list(trace: Trace) -> list[str]:
    """The gaps of a trace, each ``**Kind**: sentence``."""
    if isinstance(trace, MethodTrace):
        return _method_gaps(trace)
    if isinstance(trace, ServiceTrace):
        return _service_gaps(trace)
    return [
        f"**No `.proto`**: add the `.proto` that defines {code(trace.service)} to the workspace to tie this"
        + " evidence to its methods and messages."
    ]


def _sites_text(sites: Sequence[Site]) -> str:
    shown = ", ".join(code(f"{site.path}:{site.line}") for site in sites[:SITES_IN_GAPS_MAX])
    return shown + (f" and {len(sites) - SITES_IN_GAPS_MAX} more" if len(sites) > SITES_IN_GAPS_MAX else "")


def _method_gaps(trace: MethodTrace) -> list[str]:
    found = []
    name = code(trace.method.name)
    if not trace.handlers and not _runtime(trace):
        servers = (
            f"; the servers of {code(trace.service_key)} ({_sites_text(trace.servers)}) do not define it"
            if trace.servers
            else f"; nothing in the workspace serves {code(trace.service_key)} either"
        )
        if trace.calls:
            found.append(
                f"**Called, never implemented**: {name} is called from {_count(len(trace.calls), 'call site')},"
                f" but no handler implements it{servers}, so those calls get UNIMPLEMENTED."
            )
        else:
            found.append(f"**Neither implemented nor called**: no handler implements {name}{servers}.")
    if trace.handlers and not trace.calls and not trace.standard:  # probes call a standard service from outside
        stubs = (
            f"; stubs of {code(trace.service_key)} are made in {', '.join(_owners(trace.clients))}"
            f" ({call_text(TOOL, {'target': trace.service_key})})"
            if trace.clients
            else ""
        )
        found.append(f"**Never called**: no call site in the workspace calls {name}{stubs}.")
    if trace.calls and all(site.test for site in trace.calls):
        found.append(f"**Called only from tests**: {_sites_text(trace.calls)}.")
    found += _drift(trace.copies)
    return found


def _service_gaps(trace: ServiceTrace) -> list[str]:
    found = []
    unimplemented, uncalled = () if _runtime(trace) else trace.unimplemented, trace.uncalled
    broken = [name for name in unimplemented if name not in uncalled]
    idle = [name for name in unimplemented if name in uncalled]
    # probes call a standard service from outside the workspace: no call site is no news
    unused = [] if trace.standard else [name for name in uncalled if name not in unimplemented]
    tests = [
        row.name
        for row in trace.methods
        if row.name not in uncalled and all(site.test for site in trace.calls_of(row.name))
    ]
    if broken:
        found.append(f"**Called, never implemented**: {_names(broken)}: their calls get UNIMPLEMENTED.")
    if idle:
        found.append(f"**Neither implemented nor called**: {_names(idle)}.")
    if unused:
        found.append(f"**Never called**: {_names(unused)}.")
    if tests:
        found.append(f"**Called only from tests**: {_names(tests)}.")
    if trace.strays:
        found.append(
            f"**Not in the proto**: {_count(len(trace.strays), 'handler or call', 'handlers and calls')}"
            f" {'names' if len(trace.strays) == 1 else 'name'} a method no copy of the `.proto` declares"
            " (listed under Not in the proto)."
        )
    if not trace.servers and not trace.handlers:
        found.append(f"**No server**: nothing in the workspace serves {code(trace.key)}.")
    found += _drift(trace.copies)
    return found


def _drift(copies: Sequence[Copy]) -> list[str]:
    drifted = [copy for copy in copies if copy.differences]
    if not drifted:
        return []
    reference = next((copy for copy in copies if copy.reference), None)
    against = f" from the reference {code(reference.path)}" if reference is not None else ""
    paths = ", ".join(code(copy.path) for copy in drifted)
    verb = "differs" if len(drifted) == 1 else "differ"
    return [f"**Drifted copies**: {paths} {verb}{against} (see Defined in)."]
