"""One gRPC method or service across the workspace: its proto copies, messages, servers and callers.

Theory of operation
-------------------
A target is read as ``package.Service/Method``, ``Service/Method``, ``Service.Method`` or
``[package.]Service`` (a leading ``/``, as in a gRPC path, is allowed). A dotted target without a
slash has two readings, ``package.Service`` and ``[package.]Service.Method``; the first that names a
service some ``.proto`` defines wins. Names are looked up exactly first (``proto_services_name``),
then without case; a method also by the spelling the resolver compares (no case, no underscores),
so ``get_order`` finds ``GetOrder``. A service name defined in several packages is ambiguous
unless the method settles it. A name no ``.proto`` defines may still be named by the code
(``Health`` registered from a proto outside the workspace): its unresolved gRPC facts are the
answer. Anything else is a :class:`GrpcTargetError` with the nearest known names.

The copies of a definition (the same ``package.Service`` in several ``.proto`` files) are compared
by signature (request, response, streaming) and by the fields (name, type, number, label; not
lines, not order) of the request and response messages each copy resolves in its own file first.
The reference is the largest group of equal copies (ties: the copy laid out as protoc expects,
``acme/orders/v1/x.proto``, then the first path); every other copy says how it differs from it.

Evidence comes from the resolved ``grpc`` rows through their indexed keys: handlers and calls by
``method_key``, servers and stubs by ``service_key``. Every list is sorted on all of its columns,
so the same snapshot gives the same trace.
"""

from __future__ import annotations

import difflib
import posixpath
import re
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final

import attrs

from .._facts import WELL_KNOWN_SERVICES, method_spelling, method_variants
from ._messages import Field, Message
from ._messages import Messages as _Messages

__all__ = [
    "Copy",
    "Field",
    "GrpcTargetError",
    "Message",
    "MethodRow",
    "MethodTrace",
    "Reading",
    "ServiceTrace",
    "Site",
    "Trace",
    "UnresolvedTrace",
    "parse_target",
    "trace",
]

#: How many nearest names an error suggests.
SUGGESTIONS_MAX: Final = 5
#: How many of a service's methods an unknown-method error lists.
LISTED_MAX: Final = 30
#: How many fields or methods one difference between copies names.
LISTED_DIFFERENCES_MAX: Final = 5
_IDENT: Final = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED: Final = re.compile(rf"{_IDENT}(?:\.{_IDENT})*")
_SQL_PARAMS_MAX: Final = 500


class GrpcTargetError(ValueError):
    """The target is malformed, names nothing, or names more than one thing.

    ``suggestions`` are whole targets to try instead, nearest first.
    """

    def __init__(self, message: str, suggestions: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.suggestions = tuple(suggestions)


# -- the data model ------------------------------------------------------------------------------


@attrs.frozen
class Copy:
    """One ``.proto`` file's definition of the method (or the service)."""

    path: str
    #: The workspace service the file belongs to.
    owner: str
    line: int
    #: The copy the others are compared with (its messages are the ones shown).
    reference: bool
    #: How this copy differs from the reference, one phrase each; empty when it does not.
    differences: tuple[str, ...] = ()


@attrs.frozen
class Site:
    """A piece of gRPC evidence in the code: a handler, a server, a call or a stub."""

    #: "handler" | "server" | "call" | "client"
    role: str
    path: str
    line: int
    #: The enclosing definition ("" at module level).
    symbol: str
    #: The workspace service and language of the file.
    owner: str
    language: str
    #: The file is a test.
    test: bool
    #: The proto method (handlers and calls tied to one), else "".
    method: str = ""
    #: The method as the code spells it ("" for servers and stubs).
    spelled: str = ""

    def order(self) -> tuple:
        return (self.owner, self.language, _ROLE_ORDER[self.role], self.path, self.line, self.symbol, self.method)


_ROLE_ORDER: Final = {"handler": 0, "server": 1, "call": 2, "client": 3}


@attrs.frozen
class MethodRow:
    """One method of a service, as its reference copy declares it."""

    name: str
    request: str
    response: str
    client_streaming: bool
    server_streaming: bool
    #: Not every copy of the service declares it the same way (or at all).
    differs: bool = False

    @property
    def signature(self) -> str:
        request = f"stream {self.request}" if self.client_streaming else self.request
        response = f"stream {self.response}" if self.server_streaming else self.response
        return f"rpc {self.name}({request}) returns ({response})"


@attrs.frozen
class MethodTrace:
    """One method: ``package.Service/Method``."""

    package: str
    service: str
    method: MethodRow
    copies: tuple[Copy, ...]
    #: As the reference copy resolves them; None when no ``.proto`` in the workspace defines it.
    request: Message | None
    response: Message | None
    #: Handlers and calls of the method, servers and stubs of its service (each by ``Site.order``).
    handlers: tuple[Site, ...]
    servers: tuple[Site, ...]
    calls: tuple[Site, ...]
    clients: tuple[Site, ...]
    #: A standard service of the gRPC runtime (health, reflection) that no ``.proto`` of the
    #: workspace defines: its methods come from the runtime, ``copies`` is empty.
    standard: bool = False

    @property
    def service_key(self) -> str:
        return f"{self.package}.{self.service}" if self.package else self.service

    @property
    def key(self) -> str:
        return f"{self.service_key}/{self.method.name}"


@attrs.frozen
class ServiceTrace:
    """A whole service: ``package.Service``."""

    package: str
    service: str
    copies: tuple[Copy, ...]
    #: In the reference copy's order; methods only other copies declare come last.
    methods: tuple[MethodRow, ...]
    handlers: tuple[Site, ...]
    servers: tuple[Site, ...]
    calls: tuple[Site, ...]
    clients: tuple[Site, ...]
    #: Handlers and calls of the service whose method no copy of the ``.proto`` declares.
    strays: tuple[Site, ...] = ()
    #: As :attr:`MethodTrace.standard`.
    standard: bool = False

    @property
    def key(self) -> str:
        return f"{self.package}.{self.service}" if self.package else self.service

    def handlers_of(self, method: str) -> tuple[Site, ...]:
        return tuple(site for site in self.handlers if site.method == method)

    def calls_of(self, method: str) -> tuple[Site, ...]:
        return tuple(site for site in self.calls if site.method == method)

    @property
    def unimplemented(self) -> tuple[str, ...]:
        """Methods no handler implements, in the order of ``methods``."""
        implemented = {site.method for site in self.handlers}
        return tuple(row.name for row in self.methods if row.name not in implemented)

    @property
    def uncalled(self) -> tuple[str, ...]:
        """Methods no call site calls, in the order of ``methods``."""
        called = {site.method for site in self.calls}
        return tuple(row.name for row in self.methods if row.name not in called)


@attrs.frozen
class UnresolvedTrace:
    """A service (and maybe a method) that the code names but no ``.proto`` in the workspace defines."""

    #: As the target wrote them (the package, if given, cannot be checked).
    package: str
    service: str
    method: str
    handlers: tuple[Site, ...]
    servers: tuple[Site, ...]
    calls: tuple[Site, ...]
    clients: tuple[Site, ...]

    @property
    def key(self) -> str:
        service = f"{self.package}.{self.service}" if self.package else self.service
        return f"{service}/{self.method}" if self.method else service


Trace = MethodTrace | ServiceTrace | UnresolvedTrace


# -- reading the target --------------------------------------------------------------------------


@attrs.frozen
class Reading:
    """One way to read the target text."""

    package: str | None
    service: str
    method: str | None


FORMS: Final = "`package.Service/Method`, `Service/Method`, `Service.Method` or `Service`"


def parse_target(text: str) -> tuple[Reading, ...]:
    """The readings of ``text``, most likely first; :class:`GrpcTargetError` when it has none."""
    raw = text.strip()
    body = raw.removeprefix("/")
    problem = None
    if not body:
        problem = "is empty"
    elif any(char.isspace() for char in body):
        problem = "contains white space"
    elif body.count("/") > 1:
        problem = "has more than one `/`"
    if problem is None:
        left, slash, method = body.partition("/")
        if not _DOTTED.fullmatch(left) or (slash and not re.fullmatch(_IDENT, method)):
            problem = "is not made of proto identifiers joined by `.` and one `/`"
    if problem is not None:
        shown = (raw if len(raw) <= 80 else raw[:77] + "...").replace("`", "'")
        raise GrpcTargetError(f"The target `{shown}` {problem}. Give a gRPC method or service as {FORMS}.")
    left, slash, method = body.partition("/")
    package, _, service = left.rpartition(".")
    if slash:
        return (Reading(package or None, service, method),)
    readings = [Reading(package or None, service, None)]
    if package:
        outer, _, owner = package.rpartition(".")
        readings.append(Reading(outer or None, owner, service))
    return tuple(readings)


# -- the query -----------------------------------------------------------------------------------


def trace(db: sqlite3.Connection, target: str) -> Trace:
    """What the snapshot ``db`` knows of ``target``; see the module doc."""
    readings = parse_target(target)
    for exact in (True, False):
        for reading in readings:
            packages = _services(db, reading, exact=exact)
            if packages:
                return _trace_defined(db, reading, packages)
    for reading in readings:
        unresolved = _unresolved(db, reading)
        if unresolved is not None:
            return unresolved
    raise _unknown_service(db, target.strip(), readings)


def _services(db: sqlite3.Connection, reading: Reading, *, exact: bool) -> list[tuple[str, str]]:
    """(package, name) of the services the reading may name, sorted; a standard service of the gRPC
    runtime counts when the code names it and no ``.proto`` of the workspace defines it."""
    if exact:
        rows = db.execute(
            "SELECT DISTINCT package, name FROM proto_services WHERE name = ? ORDER BY package, name",
            (reading.service,),
        ).fetchall()
        rows += [(package, name) for package, name in _standard_services(db) if name == reading.service]
        return sorted(
            (package, name) for package, name in rows if reading.package is None or package == reading.package
        )
    wanted_package = None if reading.package is None else reading.package.lower()
    return [
        (package, name)
        for package, name in sorted([*_all_services(db), *_standard_services(db)])
        if name.lower() == reading.service.lower() and (wanted_package is None or package.lower() == wanted_package)
    ]


def _standard_services(db: sqlite3.Connection) -> list[tuple[str, str]]:
    """(package, name) of the runtime's standard services that the code names and no ``.proto`` defines."""
    found = []
    for package, service in WELL_KNOWN_SERVICES.items():
        defined = db.execute(
            "SELECT 1 FROM proto_services WHERE name = ? AND package = ? LIMIT 1", (service.name, package)
        ).fetchone()
        named = db.execute("SELECT 1 FROM grpc WHERE service_key = ? LIMIT 1", (_key(package, service.name),))
        if defined is None and named.fetchone() is not None:
            found.append((package, service.name))
    return sorted(found)


def _standard(db: sqlite3.Connection, package: str, service: str) -> bool:
    """Whether ``package.service`` is a standard service that no ``.proto`` of the workspace defines."""
    known = WELL_KNOWN_SERVICES.get(package)
    if known is None or known.name != service:
        return False
    defined = db.execute("SELECT 1 FROM proto_services WHERE name = ? AND package = ? LIMIT 1", (service, package))
    return defined.fetchone() is None


def _all_services(db: sqlite3.Connection) -> list[tuple[str, str]]:
    return db.execute("SELECT DISTINCT package, name FROM proto_services ORDER BY package, name").fetchall()


def _key(package: str, service: str, method: str | None = None) -> str:
    key = f"{package}.{service}" if package else service
    return f"{key}/{method}" if method else key


def _methods(db: sqlite3.Connection, package: str, service: str) -> list[str]:
    rows = db.execute(
        "SELECT DISTINCT name FROM proto_methods WHERE service = ? AND package = ? ORDER BY name", (service, package)
    )
    names = [name for (name,) in rows]
    if not names and _standard(db, package, service):
        names = sorted(method.name for method in WELL_KNOWN_SERVICES[package].methods)
    return names


def _match_method(names: list[str], wanted: str) -> list[str]:
    if wanted in names:
        return [wanted]
    spellings = set(method_variants(wanted))
    return [name for name in names if method_spelling(name) in spellings]


def _trace_defined(db: sqlite3.Connection, reading: Reading, services: list[tuple[str, str]]) -> Trace:
    if reading.method is None:
        if len(services) > 1:
            keys = [_key(package, name) for package, name in services]
            raise GrpcTargetError(
                f"`{reading.service}` is ambiguous: {len(keys)} packages define a service of that name.", keys
            )
        package, name = services[0]
        return _service_trace(db, package, name)
    found: list[tuple[str, str, str]] = []
    for package, name in services:
        found += [(package, name, method) for method in _match_method(_methods(db, package, name), reading.method)]
    if len(found) == 1:
        return _method_trace(db, *found[0])
    if found:
        keys = [_key(*item) for item in found]
        raise GrpcTargetError(f"`{reading.method}` is ambiguous: it could be any of {len(keys)} methods.", keys)
    if len(services) > 1:
        keys = [_key(package, name) for package, name in services]
        raise GrpcTargetError(
            f"No service named `{reading.service}` declares a method `{reading.method}`"
            f" ({len(keys)} packages define `{reading.service}`).",
            keys,
        )
    package, name = services[0]
    methods = _methods(db, package, name)
    nearest = _nearest(reading.method, methods)
    listed = ", ".join(f"`{method}`" for method in methods[:LISTED_MAX])
    more = f" and {len(methods) - LISTED_MAX} more" if len(methods) > LISTED_MAX else ""
    declared = f"Its methods: {listed}{more}." if methods else "It declares no method."
    raise GrpcTargetError(
        f"`{_key(package, name)}` has no method `{reading.method}`. {declared}",
        [_key(package, name, method) for method in nearest] or [_key(package, name)],
    )


def _nearest(word: str, names: Iterable[str]) -> list[str]:
    """The names nearest ``word``, ignoring case: nearest first, ties by name."""
    by_folded: dict[str, list[str]] = {}
    for name in sorted(set(names)):
        by_folded.setdefault(name.lower(), []).append(name)
    folded = word.lower()
    close = difflib.get_close_matches(folded, sorted(by_folded), n=SUGGESTIONS_MAX, cutoff=0.6)
    contained = [name for name in sorted(by_folded) if folded in name and name not in close] if len(folded) > 2 else []
    result: list[str] = []
    for name in [*close, *contained]:
        result += by_folded[name]
    return result[:SUGGESTIONS_MAX]


def _unknown_service(db: sqlite3.Connection, text: str, readings: tuple[Reading, ...]) -> GrpcTargetError:
    services = _all_services(db)
    suggestions: list[str] = []

    def add(key: str) -> None:
        if key not in suggestions:
            suggestions.append(key)

    body = text.removeprefix("/").lower()
    for package, name in services:  # a package named alone: its services
        if package.lower() == body:
            add(_key(package, name))
    if suggestions:
        return GrpcTargetError(
            f"`{text}` is a package, not a service: it defines {_plural(len(suggestions), 'service')}.", suggestions
        )
    method_named = ""
    for reading in readings:  # a method named alone, or with a service that does not declare it
        bare = reading.method if reading.method is not None else reading.service
        for row in db.execute(
            "SELECT DISTINCT package, service, name FROM proto_methods WHERE lower(name) = ?"
            " ORDER BY package, service, name",
            (bare.lower(),),
        ):
            method_named = method_named or row[2]
            add(_key(*row))
    if suggestions and "/" not in text:
        return GrpcTargetError(
            f"No service is named `{text}`, but a method `{method_named}` is declared in"
            f" {_plural(len(suggestions), 'service')}: give the service too.",
            suggestions[:SUGGESTIONS_MAX],
        )
    named = [*services, *_standard_services(db)]
    for reading in readings:  # services of a like name (with the method, when they declare it)
        for near in _nearest(reading.service, [name for _, name in named]):
            for package, name in named:
                if name != near:
                    continue
                matched = _match_method(_methods(db, package, name), reading.method) if reading.method else []
                add(_key(package, name, matched[0]) if len(matched) == 1 else _key(package, name))
    unresolved = [name for (name,) in db.execute(
        _UNRESOLVED_SERVICES
    )]  # fmt: skip
    for reading in readings:  # services the code names but no .proto defines
        for near in _nearest(reading.service, unresolved):
            add(near)
    known = _plural(len(services), "service") if services else "none"
    return GrpcTargetError(
        f"No gRPC service matches `{text}`: no `.proto` in the workspace defines it ({known} defined),"
        " and no gRPC code names it.",
        suggestions[:SUGGESTIONS_MAX],
    )


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


# -- a defined method or service -----------------------------------------------------------------


@attrs.frozen
class _Declared:
    """A method as one ``.proto`` file declares it, with the messages that file resolves."""

    file_id: int
    path: str
    owner: str
    line: int
    row: MethodRow
    request: Message | None
    response: Message | None
    #: The other messages the request and response reach through their fields, nested and
    #: imported, at any depth, by full name (None: named by a field, not defined in the workspace).
    reached: tuple[tuple[str, Message | None], ...] = ()
    #: What copies are compared on (signature, and the fields of every message reached), computed once.
    shape: tuple = ()

    def identity(self) -> tuple:
        return self.shape


def _declarations(db: sqlite3.Connection, package: str, service: str, method: str | None) -> list[_Declared]:
    """Every declaration of the service's methods (or of one), by path, line and name."""
    sql = (
        "SELECT m.file_id, f.path, f.service, m.line, m.name, m.request, m.response, m.client_streaming,"
        " m.server_streaming FROM proto_methods m JOIN files f ON f.id = m.file_id"
        " WHERE m.service = ? AND m.package = ?"
    )
    params: list = [service, package]
    if method is not None:
        sql += " AND m.name = ?"
        params.append(method)
    rows = db.execute(sql + " ORDER BY f.path, m.line, m.name", params).fetchall()
    seen: set[tuple[int, str]] = set()
    kept = []
    for file_id, path, owner, line, name, request, response, client_streaming, server_streaming in rows:
        if (file_id, name) in seen:  # an rpc declared twice in one file: the first counts
            continue
        seen.add((file_id, name))
        kept.append((file_id, path, owner, line, MethodRow(name, request, response, bool(client_streaming),
                                                           bool(server_streaming))))  # fmt: skip
    messages = _Messages(db, package, [(row.request, row.response) for *_, row in kept])
    declared = []
    for file_id, path, owner, line, row in kept:
        request = messages.resolve(row.request, file_id, path, owner)
        response = messages.resolve(row.response, file_id, path, owner)
        reached = messages.reach([m for m in (request, response) if m is not None], file_id, path, owner)
        shape = (
            row.request,
            row.response,
            row.client_streaming,
            row.server_streaming,
            messages.identity(request),
            messages.identity(response),
            tuple((full, messages.identity(message)) for full, message in reached),
        )
        declared.append(_Declared(file_id, path, owner, line, row, request, response, reached, shape))
    return declared


def _protoc_layout(path: str, package: str) -> bool:
    return bool(package) and posixpath.dirname(path).endswith(package.replace(".", "/"))


def _reference(copies: dict[str, tuple], package: str) -> str:
    """The path of the reference copy: largest group of equal copies, then protoc's layout, then path."""
    sizes = Counter(copies.values())
    return min(copies, key=lambda path: (-sizes[copies[path]], not _protoc_layout(path, package), path))


def _method_differences(copy: _Declared, reference: _Declared) -> tuple[str, ...]:
    found: list[str] = []
    mine, theirs = copy.row, reference.row
    for what, a, b in (("request", mine.request, theirs.request), ("response", mine.response, theirs.response)):
        if a != b:
            found.append(f"{what} is `{a}`, not `{b}`")
    for what, a, b in (
        ("requests", mine.client_streaming, theirs.client_streaming),
        ("responses", mine.server_streaming, theirs.server_streaming),
    ):
        if a != b:
            found.append(f"{'streams' if a else 'does not stream'} {what}")
    for what, written, a, b in (
        ("request", mine.request, copy.request, reference.request),
        ("response", mine.response, copy.response, reference.response),
    ):
        if a is None and b is not None:
            found.append(f"{what} `{written}` is not defined in the workspace")
        elif a is not None and b is None:
            found.append(f"{what} `{written}` is defined (`{a.path}:{a.line}`)")
        elif a is not None and b is not None and a.identity() != b.identity():
            found.append(f"{what} `{written}` {_field_differences(a, b)}")
    found += _reached_differences(copy, reference)
    return tuple(found)


def _reached_differences(copy: _Declared, reference: _Declared) -> list[str]:
    """How the messages both copies reach through fields differ (a message only one copy reaches
    comes from a field that differs, which its own message already says)."""
    mine, theirs = dict(copy.reached), dict(reference.reached)
    root = reference.request or reference.response
    package = root.package if root is not None else ""
    found = []
    for full in sorted(mine.keys() & theirs.keys()):
        a, b = mine[full], theirs[full]
        name = full.removeprefix(f"{package}.") if package else full
        if a is None and b is not None:
            found.append(f"message `{name}` is not defined in the workspace")
        elif a is not None and b is None:
            found.append(f"message `{name}` is defined (`{a.path}:{a.line}`)")
        elif a is not None and b is not None and a.identity() != b.identity():
            found.append(f"message `{name}` {_field_differences(a, b)}")
    if len(found) > LISTED_DIFFERENCES_MAX:
        found[LISTED_DIFFERENCES_MAX:] = [f"{len(found) - LISTED_DIFFERENCES_MAX} more messages differ"]
    return found


def _field_differences(mine: Message, theirs: Message) -> str:
    if mine.kind != theirs.kind:
        return f"is an {mine.kind}, not a {theirs.kind}" if mine.kind == "enum" else f"is a {mine.kind}, not an enum"
    by_name = {field.name: field for field in theirs.fields}
    own = {field.name: field for field in mine.fields}
    parts = []
    added = [field for field in mine.fields if field.name not in by_name]
    lacking = [field for field in theirs.fields if field.name not in own]
    changed = [
        (own[field.name], field)
        for field in theirs.fields
        if field.name in own and own[field.name].identity() != field.identity()
    ]
    if added:
        parts.append("adds " + _few(f"`{field.declaration}`" for field in added))
    if lacking:
        parts.append("lacks " + _few(f"`{field.declaration}`" for field in lacking))
    if changed:
        parts.append("changes " + _few(f"`{b.declaration}` to `{a.declaration}`" for a, b in changed))
    return ", ".join(parts)


def _few(phrases: Iterable[str]) -> str:
    """At most ``LISTED_DIFFERENCES_MAX`` phrases, and how many more there are."""
    listed = list(phrases)
    shown = ", ".join(listed[:LISTED_DIFFERENCES_MAX])
    more = len(listed) - LISTED_DIFFERENCES_MAX
    return shown + (f" and {more} more" if more > 0 else "")


def _method_trace(db: sqlite3.Connection, package: str, service: str, method: str) -> MethodTrace:
    declared = _declarations(db, package, service, method)
    if not declared and _standard(db, package, service):
        return _standard_method_trace(db, package, service, method)
    by_path: dict[str, _Declared] = {}
    for item in declared:
        by_path.setdefault(item.path, item)
    reference_path = _reference({path: item.identity() for path, item in by_path.items()}, package)
    reference = by_path[reference_path]
    copies = [
        Copy(item.path, item.owner, item.line, item.path == reference_path,
             () if item.path == reference_path else _method_differences(item, reference))
        for item in by_path.values()
    ]  # fmt: skip
    copies += [
        Copy(path, owner, line, False, (f"does not declare `{method}`",))
        for path, (owner, line) in _service_copies(db, package, service).items()
        if path not in by_path
    ]
    copies.sort(key=lambda copy: (copy.path, copy.line))
    row = attrs.evolve(reference.row, differs=any(copy.differences for copy in copies))
    service_key = _key(package, service)
    method_sites = _sites(db, "g.method_key = ?", (f"{service_key}/{method}",))
    service_sites = _sites(db, "g.service_key = ? AND g.role IN ('server', 'client')", (service_key,))
    return MethodTrace(
        package=package,
        service=service,
        method=row,
        copies=tuple(copies),
        request=reference.request,
        response=reference.response,
        handlers=_of_role(method_sites, "handler"),
        servers=_of_role(service_sites, "server"),
        calls=_of_role(method_sites, "call"),
        clients=_of_role(service_sites, "client"),
    )


def _service_copies(db: sqlite3.Connection, package: str, service: str) -> dict[str, tuple[str, int]]:
    """path -> (workspace service, line) of every ``.proto`` file defining the service, by path."""
    rows = db.execute(
        "SELECT f.path, f.service, min(s.line) FROM proto_services s JOIN files f ON f.id = s.file_id"
        " WHERE s.name = ? AND s.package = ? GROUP BY f.path, f.service ORDER BY f.path, f.service",
        (service, package),
    ).fetchall()
    found: dict[str, tuple[str, int]] = {}
    for path, owner, line in rows:
        found.setdefault(path, (owner, line))
    return found


def _service_trace(db: sqlite3.Connection, package: str, service: str) -> ServiceTrace:
    declared = _declarations(db, package, service, None)
    if not declared and _standard(db, package, service):
        return _standard_service_trace(db, package, service)
    files: dict[str, dict[str, _Declared]] = {}
    for item in declared:
        files.setdefault(item.path, {}).setdefault(item.row.name, item)
    defined = _service_copies(db, package, service)
    for path in defined:
        files.setdefault(path, {})
    identities = {
        path: tuple(sorted((name, item.identity()) for name, item in items.items())) for path, items in files.items()
    }
    reference_path = _reference(identities, package)
    reference = files[reference_path]
    # a method differs when some copy lacks it or declares it otherwise
    shapes: dict[str, set[tuple]] = {}
    for items in files.values():
        for name, item in items.items():
            shapes.setdefault(name, set()).add(item.identity())
    differs = {
        name for name, found in shapes.items() if len(found) > 1 or any(name not in items for items in files.values())
    }
    copies = []
    for path, items in sorted(files.items()):
        owner, line = defined.get(path) or (next(iter(items.values())).owner, min(i.line for i in items.values()))
        differences = () if path == reference_path else _service_differences(items, reference)
        copies.append(Copy(path, owner, line, path == reference_path, differences))
    ordered = sorted(reference.values(), key=lambda item: (item.line, item.row.name))
    others: dict[str, MethodRow] = {}
    for item in declared:
        if item.row.name not in reference:
            others.setdefault(item.row.name, item.row)
    methods = [attrs.evolve(item.row, differs=item.row.name in differs) for item in ordered]
    methods += [attrs.evolve(others[name], differs=True) for name in sorted(others)]
    sites = _sites(db, "g.service_key = ?", (_key(package, service),))
    known = {row.name for row in methods}
    tied = tuple(site for site in sites if site.role in ("server", "client") or site.method in known)
    return ServiceTrace(
        package=package,
        service=service,
        copies=tuple(copies),
        methods=tuple(methods),
        handlers=_of_role(tied, "handler"),
        servers=_of_role(tied, "server"),
        calls=_of_role(tied, "call"),
        clients=_of_role(tied, "client"),
        strays=_strays(db, package, service, [site for site in sites if site not in tied]),
    )


def _standard_row(package: str, method: str) -> MethodRow:
    found = next(m for m in WELL_KNOWN_SERVICES[package].methods if m.name == method)
    return MethodRow(found.name, found.request, found.response, found.client_streaming, found.server_streaming)


def _standard_method_trace(db: sqlite3.Connection, package: str, service: str, method: str) -> MethodTrace:
    service_key = _key(package, service)
    method_sites = _sites(db, "g.method_key = ?", (f"{service_key}/{method}",))
    service_sites = _sites(db, "g.service_key = ? AND g.role IN ('server', 'client')", (service_key,))
    return MethodTrace(
        package=package,
        service=service,
        method=_standard_row(package, method),
        copies=(),
        request=None,
        response=None,
        handlers=_of_role(method_sites, "handler"),
        servers=_of_role(service_sites, "server"),
        calls=_of_role(method_sites, "call"),
        clients=_of_role(service_sites, "client"),
        standard=True,
    )


def _standard_service_trace(db: sqlite3.Connection, package: str, service: str) -> ServiceTrace:
    methods = tuple(_standard_row(package, method.name) for method in WELL_KNOWN_SERVICES[package].methods)
    sites = _sites(db, "g.service_key = ?", (_key(package, service),))
    known = {row.name for row in methods}
    tied = tuple(site for site in sites if site.role in ("server", "client") or site.method in known)
    return ServiceTrace(
        package=package,
        service=service,
        copies=(),
        methods=methods,
        handlers=_of_role(tied, "handler"),
        servers=_of_role(tied, "server"),
        calls=_of_role(tied, "call"),
        clients=_of_role(tied, "client"),
        strays=_strays(db, package, service, [site for site in sites if site not in tied]),
        standard=True,
    )


def _strays(db: sqlite3.Connection, package: str, service: str, sites: list[Site]) -> tuple[Site, ...]:
    """The ``sites`` that no other service claims: a handler that implements a method of another
    service (a struct serving ``Inventory`` and ``grpc.health.v1.Health``) is not a stray of this one."""
    handlers = sorted({site.path for site in sites if site.role == "handler"})
    claimed: set[tuple[str, int]] = set()
    for start in range(0, len(handlers), _SQL_PARAMS_MAX):
        chunk = handlers[start : start + _SQL_PARAMS_MAX]
        claimed.update(
            db.execute(
                "SELECT f.path, g.line FROM grpc g JOIN files f ON f.id = g.file_id WHERE g.role = 'handler'"
                f" AND g.method_key IS NOT NULL AND g.service_key != ? AND f.path IN ({', '.join('?' * len(chunk))})",
                (_key(package, service), *chunk),
            ).fetchall()
        )
    return tuple(site for site in sites if site.role != "handler" or (site.path, site.line) not in claimed)


def _service_differences(mine: dict[str, _Declared], reference: dict[str, _Declared]) -> tuple[str, ...]:
    if not mine:
        return ("declares no method",)
    in_order = [name for name, _ in sorted(reference.items(), key=lambda kv: (kv[1].line, kv[0]))]
    added = sorted(name for name in mine if name not in reference)
    lacking = [name for name in in_order if name not in mine]
    changed = [name for name in in_order if name in mine and mine[name].identity() != reference[name].identity()]
    found = []
    if added:
        found.append("adds " + _few(f"`{name}`" for name in added))
    if lacking:
        found.append("lacks " + _few(f"`{name}`" for name in lacking))
    why: dict[str, list[str]] = {}  # the same drift often shows in several methods: say it once
    for name in changed:
        why.setdefault("; ".join(_method_differences(mine[name], reference[name])), []).append(name)
    for phrase, names in why.items():
        found.append(_few(f"`{name}`" for name in names) + f" ({phrase})")
    return tuple(found)


def _sites(db: sqlite3.Connection, where: str, params: tuple) -> tuple[Site, ...]:
    rows = db.execute(
        "SELECT g.role, f.path, g.line, g.symbol, f.service, f.language, f.kind, g.method, g.method_key"
        f" FROM grpc g JOIN files f ON f.id = g.file_id WHERE {where}"
        " ORDER BY f.service, f.language, f.path, g.line, g.role, g.symbol, g.method",
        params,
    ).fetchall()
    sites = [
        Site(role, path, line, symbol, owner, language, kind == "test",
             method_key.rpartition("/")[2] if method_key else (spelled if role in ("handler", "call") else ""),
             spelled if role in ("handler", "call") else "")
        for role, path, line, symbol, owner, language, kind, spelled, method_key in rows
    ]  # fmt: skip
    return tuple(sorted(sites, key=Site.order))


def _of_role(sites: Iterable[Site], role: str) -> tuple[Site, ...]:
    return tuple(site for site in sites if site.role == role)


# -- named by the code only ----------------------------------------------------------------------

#: The services the code names that no ``.proto`` defines (a fact of a defined service without keys
#: is one the resolver replaced: a Node handler found in the file defining it).
_UNRESOLVED_SERVICES: Final = (
    "SELECT DISTINCT service FROM grpc WHERE service_key IS NULL"
    " AND service NOT IN (SELECT name FROM proto_services) ORDER BY service"
)


def _unresolved(db: sqlite3.Connection, reading: Reading) -> UnresolvedTrace | None:
    names = [name for (name,) in db.execute(
        _UNRESOLVED_SERVICES
    )]  # fmt: skip
    matched = [name for name in names if name == reading.service] or [
        name for name in names if name.lower() == reading.service.lower()
    ]
    if len(matched) != 1:
        return None
    service = matched[0]
    sites = _sites(db, "g.service_key IS NULL AND g.service = ?", (service,))
    method = reading.method or ""
    if method:
        spellings = set(method_variants(method))
        sites = tuple(
            site
            for site in sites
            if site.role in ("server", "client") or spellings & set(method_variants(site.spelled))
        )
    if not sites:
        return None
    return UnresolvedTrace(
        package=reading.package or "",
        service=service,
        method=method,
        handlers=_of_role(sites, "handler"),
        servers=_of_role(sites, "server"),
        calls=_of_role(sites, "call"),
        clients=_of_role(sites, "client"),
    )
