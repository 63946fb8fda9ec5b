"""Links other than gRPC, resolved over the whole workspace: which service an HTTP call reaches, and
the name of each message's topic.

Theory of operation
-------------------
Extractors report, per file, the routes a server declares, the requests a client makes (a literal
host, or where its base address comes from: ``env:NAME``, ``config:key``, ``const:Owner.NAME``,
``client:Type``), the messages produced and consumed, string constants naming links, and the
settings of configuration files. Discovery reports the wiring of deployments (each service's
environment variables that name a host) and the host names that reach each service. Here, inside
the refresh's transaction and recomputed on each one:

1. **Mounts** (Django ``include``, Express ``app.use('/api', router)``...): the routes of a mounted
   file are copied under the mount's prefix (``via`` names the mount) and the unprefixed ones hidden.
2. **Messages**: a name given by a constant or a setting is looked up (``topic``, and ``topic_via``
   saying how); an event's handler class is hidden where its service subscribes it in code (one
   consumer, not two). A call through a publisher class (``client:OrderPublisher``) whose topic the
   call site cannot read takes the one topic the class names where it is declared, and the class's
   own fact is hidden in a service that calls it (the calls are the producers).
3. **Calls**, in order of evidence, each call's first answer wins:
   a literal host that a deployment names (``host``); an environment variable set by the caller's own
   deployment (``env``), or by every deployment that sets it, to one host; a configuration key of the
   caller's service whose value names a host or such a variable (``config``); the base address of a
   typed client (``client``: a host, a configuration key, a variable, or a member holding it,
   followed like the others and named by the member as the weakest evidence); a constant holding a
   URL (``const``); for a call whose host is not known, a route its own service serves when the call
   is a test's relative or localhost URL or a page's relative URL (the app under test, the page's own
   server), else one that exactly one other service serves
   (``route``); last, a variable named after a
   service (``BILLING_ADDR`` -> ``billing``: ``name``, the weakest). A call whose host is outside the
   workspace is ``outside``; a computed URL is never linked.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from typing import Final

from .._facts import path_shape, route_matches
from ..parse._links import join_paths, url_parts

__all__ = ["resolve_links"]

log = logging.getLogger("mesh.index")

#: How deep mounts of mounts are followed.
_MOUNT_DEPTH: Final = 6
#: Variable-name endings that say "the address of": stripped to guess the service a name means.
_ADDRESS_WORDS: Final = ("addr", "address", "url", "uri", "host", "hostname", "endpoint", "base", "baseurl",
                         "service", "svc", "api", "server", "http", "https", "port", "location", "target", "client")  # fmt: skip
#: Languages whose relative URLs are the page's own origin.
_BROWSER_LANGUAGES: Final = frozenset({"javascript", "typescript", "tsx"})
_LOCAL_HOSTS: Final = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "host.docker.internal"})


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _head(shape: str) -> str:
    """The first segment of a path shape (``/orders/{}`` -> ``orders``; ``/`` -> "")."""
    return shape.lstrip("/").split("/", 1)[0]


def _bound_variables(key: str) -> list[str]:
    """The environment variables that set the configuration ``key`` (Spring, .NET), most likely first."""
    spring = re.sub(r"[.\[\]]+", "_", key.replace("-", "")).strip("_").upper()
    dotnet = re.sub(r"[.:]", "__", key)
    return list(dict.fromkeys([spring, dotnet, key]))


def _methods_meet(route: str, call: str) -> bool:
    return route == "*" or call == "*" or route == call


class _FileRows:
    """(path, service, language, kind) of the files the links ask about: read at once for every file
    holding a link fact (what is asked, but for the odd file holding none, read when asked), never
    for every file of the workspace, so that the links of a large workspace with few link facts
    cost their facts, not the workspace's files."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.rows: dict[int, tuple[str, str, str, str] | None] = {
            file_id: (path, service, language, kind)
            for file_id, path, service, language, kind in db.execute(
                "SELECT id, path, service, language, kind FROM files WHERE id IN (SELECT file_id FROM settings"
                f" UNION {' UNION '.join(f'SELECT file_id FROM {table}' for table in _LINK_TABLES)})"
            )
        }

    def row(self, file_id: int) -> tuple[str, str, str, str] | None:
        if file_id not in self.rows:
            self.rows[file_id] = self.db.execute(
                "SELECT path, service, language, kind FROM files WHERE id = ?", (file_id,)
            ).fetchone()
        return self.rows[file_id]


class _FileColumn:
    """One column of :class:`_FileRows`, asked like a dict's ``get``."""

    def __init__(self, rows: _FileRows, column: int) -> None:
        self.rows = rows
        self.column = column

    def get(self, file_id: int, default: str | None = None) -> str | None:
        row = self.rows.row(file_id)
        return default if row is None else row[self.column]


#: The tables of link facts besides the settings (each row's file is asked about).
_LINK_TABLES: Final = ("constants", "http_routes", "http_calls", "messages")


class _Links:
    def __init__(self, db: sqlite3.Connection, target_of) -> None:
        self.db = db
        self.target_of = target_of
        rows = _FileRows(db)
        self.path_of = _FileColumn(rows, 0)
        self.service_of = _FileColumn(rows, 1)
        self.language_of = _FileColumn(rows, 2)
        self.kind_of = _FileColumn(rows, 3)
        self.services = {name for (name,) in db.execute("SELECT name FROM services")}
        self.externals = {name for (name,) in db.execute("SELECT name FROM externals")}
        self.hosts: dict[str, str] = {}
        for host, target in db.execute("SELECT host, target FROM hosts ORDER BY host, target"):
            self.hosts.setdefault(host.lower(), target)
        #: service -> var -> [(host, path, file, line)]
        self.wiring: dict[str, dict[str, list[tuple[str, str, str, int]]]] = defaultdict(lambda: defaultdict(list))
        #: var -> {host}
        self.wired_hosts: dict[str, set[str]] = defaultdict(set)
        for service, var, host, path, file, line in db.execute(
            "SELECT service, var, host, path, file, line FROM wiring ORDER BY service, var, file, line"
        ):
            self.wiring[service][var].append((host, path, file, line))
            if host:
                self.wired_hosts[var].add(host.lower())
        #: service -> normalised key -> [(key, host, env, path, file, line)]
        self.settings: dict[str, dict[str, list[tuple]]] = defaultdict(lambda: defaultdict(list))
        # Ordered by the file's path, never its id: a cold build numbers files in the order the
        # parse workers finish them, and the first of a key's entries wins (:meth:`setting`).
        for file_id, key, line, host, env, path in self._by_path(
            db.execute("SELECT file_id, key, line, host, env, path FROM settings"), line=2
        ):
            service = self.service_of.get(file_id, "")
            self.settings[service][_norm(key)].append((key, host, env, path, self.path_of.get(file_id, ""), line))
        #: constant name (``Owner.NAME`` and ``NAME``) -> [(value, service, file, line)]
        self._publishers: dict[str, list[tuple[int, str, str, str, int]]] | None = None
        self.constants: dict[str, list[tuple[str, str, str, int]]] = defaultdict(list)
        for file_id, name, value, line in self._by_path(
            db.execute("SELECT file_id, name, value, line FROM constants"), line=3
        ):
            entry = (value, self.service_of.get(file_id, ""), self.path_of.get(file_id, ""), line)
            self.constants[name].append(entry)
            if "." in name:
                self.constants[name.rsplit(".", 1)[-1]].append(entry)

    def _by_path(self, rows: Iterable[tuple], *, line: int, file_id: int = 0, rowid: int | None = None) -> list[tuple]:
        """``rows`` in the order of their file's path, then their line (then rowid: a file's rows
        are written together, in the order its extractor found them). Never the order of file ids,
        which a build gives in the order the parse workers finish (INV-INDEX-12)."""
        path_of = self.path_of
        if rowid is None:
            return sorted(rows, key=lambda row: (path_of.get(row[file_id], ""), row[line]))
        return sorted(rows, key=lambda row: (path_of.get(row[file_id], ""), row[line], row[rowid]))

    # -- where a name is --------------------------------------------------------------------------

    def host_target(self, host: str) -> tuple[str, str]:
        """(target, kind) a host name reaches: a service, an external, or ("", "") when unknown."""
        host = host.lower().rstrip(".")
        for candidate in (host, host.split(".", 1)[0]):
            target = self.hosts.get(candidate)
            if target is not None:
                return target, "service" if target in self.services else "external"
            if candidate in self.services:
                return candidate, "service"
            if candidate in self.externals:
                return candidate, "external"
        return "", ""

    def constant(self, name: str, service: str) -> tuple[str, str] | None:
        """(value, where) of the constant ``name``: the caller's service's own first, else the one value."""
        found = self.constants.get(name, [])
        own = [entry for entry in found if entry[1] == service]
        chosen = own or found
        values = {entry[0] for entry in chosen}
        if len(values) != 1:
            return None
        value, _, file, line = chosen[0]
        return value, f"{file}:{line}"

    def setting(self, key: str, service: str) -> tuple | None:
        entries = self.settings.get(service, {}).get(_norm(key)) or self.settings.get("", {}).get(_norm(key))
        if not entries:
            # .NET reads ``Section:Key``, Spring relaxes ``orders.url`` vs ``ORDERS_URL``: try the tail
            tail = _norm(key.replace(":", ".").rsplit(".", 1)[-1]) if "." in key or ":" in key else ""
            entries = self.settings.get(service, {}).get(tail) if tail else None
        return entries[0] if entries else None

    # -- 1. mounts --------------------------------------------------------------------------------

    def mounts(self) -> None:
        db = self.db
        db.execute("DELETE FROM http_routes WHERE via != ''")
        db.execute("UPDATE http_routes SET hidden = 0 WHERE hidden != 0")
        db.execute("UPDATE http_routes SET hidden = 1 WHERE mount != ''")
        mounts = self._by_path(
            db.execute("SELECT rowid, file_id, path, line, mount FROM http_routes WHERE mount != ''"),
            file_id=1, line=3, rowid=0,
        )  # fmt: skip
        if not mounts:
            return
        #: mounted file -> [(prefix, via)]
        prefixes: dict[int, list[tuple[str, str]]] = defaultdict(list)
        edges: list[tuple[int, int, str, str]] = []
        for _, file_id, prefix, line, module in mounts:
            importer = self.path_of.get(file_id, "")
            target = self.target_of(self.language_of.get(file_id, ""), module, importer)
            found = db.execute("SELECT id FROM files WHERE path = ?", (target,)).fetchone() if target else None
            target_id = found[0] if found else None
            if target_id is None or target_id == file_id:
                continue
            edges.append((file_id, target_id, prefix, f"{importer}:{line}"))
        # the prefixes a file gets: its mounts', composed with those of the files mounting it
        mounted = {target for _, target, _, _ in edges}
        frontier = [(target, prefix, via) for source, target, prefix, via in edges if source not in mounted]
        frontier += [(target, prefix, via) for source, target, prefix, via in edges if source in mounted and source == target]
        seen: set[tuple[int, str]] = set()
        for _ in range(_MOUNT_DEPTH):
            following = []
            for target, prefix, via in frontier:
                if (target, prefix) in seen:
                    continue
                seen.add((target, prefix))
                prefixes[target].append((prefix, via))
                following += [(t, join_paths(prefix, p), v) for s, t, p, v in edges if s == target]
            frontier = following
            if not frontier:
                break
        rows = []
        for target, entries in sorted(prefixes.items(), key=lambda item: self.path_of.get(item[0], "")):
            routes = db.execute(
                "SELECT method, path, line, handler, symbol, framework FROM http_routes"
                " WHERE file_id = ? AND mount = '' AND via = '' ORDER BY line, rowid",
                (target,),
            ).fetchall()
            for prefix, via in entries:
                for method, path, line, handler, symbol, framework in routes:
                    full = join_paths(prefix, path) if path != "/" else (prefix if prefix.startswith("/") else "/" + prefix)
                    rows.append((target, method, full, line, handler, symbol, framework, "", path_shape(full), via))
        db.executemany(
            "INSERT INTO http_routes(file_id, method, path, line, handler, symbol, framework, mount, shape, via)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        db.executemany(
            "UPDATE http_routes SET hidden = 1 WHERE file_id = ? AND via = '' AND mount = ''",
            [(target,) for target in sorted(prefixes)],
        )

    # -- 2. topics --------------------------------------------------------------------------------

    def topics(self) -> None:
        rows = []
        for rowid, file_id, name, address in self.db.execute(
            "SELECT rowid, file_id, name, address FROM messages ORDER BY rowid"
        ).fetchall():
            service = self.service_of.get(file_id, "")
            topic, via = name, ""
            if address.startswith("const:"):
                found = self.constant(address[6:], service)
                if found is not None:
                    topic, via = found[0], f"constant {address[6:]} ({found[1]})"
            elif address.startswith("config:"):
                found = self.setting(address[7:], service)
                if found is not None and found[3]:
                    topic, via = found[3].strip("/"), f"setting {found[0]} ({found[4]}:{found[5]})"
            elif address.startswith("env:") and name:
                via = f"default of ${address[4:]}"
            elif address.startswith("client:") and not name:
                found = self.publisher_topic(address[7:], service)
                if found is not None:
                    topic, via = found
            rows.append((topic, via, rowid))
        self.db.executemany("UPDATE messages SET topic = ?, topic_via = ? WHERE rowid = ?", rows)
        self.db.execute("UPDATE messages SET hidden = 0 WHERE hidden != 0")
        self.same_consumers()
        self.same_publishers()

    def publisher_classes(self) -> dict[str, list[tuple[int, str, str, str, int]]]:
        """Publisher classes that name their topic where they are declared (``class OrderPublisher
        extends AbstractAggregateDomainEventPublisher<Order, ...>``): simple class name ->
        [(rowid, topic, service, file, line)] of their class-level produce facts."""
        if self._publishers is None:
            publishers: dict[str, list[tuple[int, str, str, str, int]]] = defaultdict(list)
            for rowid, file_id, name, symbol, line in self._by_path(
                self.db.execute(
                    "SELECT rowid, file_id, name, symbol, line FROM messages WHERE role = 'produce' AND address = ''"
                    " AND name != '' AND symbol != '' AND instr(symbol, '.') = 0"
                ),
                file_id=1, line=4, rowid=0,
            ):  # fmt: skip
                entry = (rowid, name, self.service_of.get(file_id, ""), self.path_of.get(file_id, ""), line)
                publishers[symbol].append(entry)
            self._publishers = dict(publishers)
        return self._publishers

    def publisher_topic(self, publisher: str, service: str) -> tuple[str, str] | None:
        """(topic, via) of a call to the publisher class ``publisher`` whose call site could not read
        the topic: the one topic the class names, its own service's class first."""
        found = self.publisher_classes().get(publisher, [])
        chosen = [entry for entry in found if entry[2] == service] or found
        if len({entry[1] for entry in chosen}) != 1:
            return None
        _, topic, _, file, line = chosen[0]
        return topic, f"publisher {publisher} ({file}:{line})"

    def same_publishers(self) -> None:
        """A publisher class and the calls publishing through it are one producer, counted where
        the calls are: the class-level fact is hidden in a service that calls it."""
        calling = {
            (self.service_of.get(file_id, ""), address[7:])
            for file_id, address in self.db.execute(
                "SELECT file_id, address FROM messages WHERE role = 'produce' AND address LIKE 'client:%'"
            )
        }
        self.db.executemany(
            "UPDATE messages SET hidden = 1 WHERE rowid = ?",
            [
                (rowid,)
                for publisher, entries in sorted(self.publisher_classes().items())
                for rowid, _, service, _, _ in entries
                if (service, publisher) in calling
            ],
        )

    def same_consumers(self) -> None:
        """An event's handler class and the registration subscribing it are one consumer: in a
        service that subscribes an event in code (a fact inside a method or in top-level
        statements), the class-level facts of that event (``class XHandler :
        IIntegrationEventHandler<X>``) are hidden."""
        registered: set[tuple[str, str]] = set()
        classes: list[tuple[int, str, str]] = []
        for rowid, file_id, topic, symbol in self.db.execute(
            "SELECT rowid, file_id, topic, symbol FROM messages WHERE role = 'consume' AND kind = 'event' AND topic != ''"
            " ORDER BY rowid"
        ).fetchall():
            key = (self.service_of.get(file_id, ""), topic.lower())
            if symbol and "." not in symbol:
                classes.append((rowid, *key))  # a class's own fact: the symbol is the class
            else:
                registered.add(key)  # in a method, or in top-level statements
        self.db.executemany(
            "UPDATE messages SET hidden = 1 WHERE rowid = ?",
            [(rowid,) for rowid, service, topic in classes if (service, topic) in registered],
        )

    # -- 3. calls ---------------------------------------------------------------------------------

    def calls(self) -> None:
        all_routes = []
        for file_id, method, shape in self.db.execute(
            "SELECT file_id, method, shape FROM http_routes WHERE hidden = 0 AND mount = ''"
        ):
            service = self.service_of.get(file_id, "")
            all_routes.append((shape, method, service))
        #: (shape, method, service) of every visible route, by the first segment of the shape (a
        #: parameter's routes under "{}"): a call is compared with the few that can fit it
        self.routes: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
        for route in sorted(set(all_routes)):
            self.routes[_head(route[0])].append(route)
        #: operationId (as :func:`_norm` spells it) -> {(method, path, "file:line")} of the OpenAPI operations
        operations: dict[str, set[tuple[str, str, str]]] = defaultdict(set)
        for file_id, method, path, line, handler in self.db.execute(
            "SELECT file_id, method, path, line, handler FROM http_routes"
            " WHERE hidden = 0 AND mount = '' AND framework = 'openapi' AND handler != ''"
        ):
            operations[_norm(handler)].add((method, path, f"{self.path_of.get(file_id, '')}:{line}"))
        updates = []
        for row in self.db.execute(
            "SELECT rowid, file_id, method, path, host, address, computed, shape, operation FROM http_calls"
            " ORDER BY rowid"
        ).fetchall():
            rowid, file_id, method, path, host, address, computed, shape, operation = row
            service = self.service_of.get(file_id, "")
            if computed:  # INV-LINKS-2: a URL built at run time reaches nothing
                updates.append(("", "", "", "", "", method, rowid))
                continue
            via_operation = ""
            if operation and not path:
                # a generated client's method: the one OpenAPI operation of that id gives method and path
                # (the method column keeps what this gives; the call site said "*")
                method = "*"
                declared = operations.get(_norm(operation), set())  # createOrder, create_order, CreateOrder
                if len({(m, p) for m, p, _ in declared}) == 1:
                    method, path, where = min(declared)
                    via_operation = f"operation {operation} ({where})"
            target, kind, confidence, evidence, prefix = self.call_target(service, host, address)
            full = join_paths(prefix, path) if prefix and path else path
            full_shape = path_shape(full) if full else ""
            test = self.kind_of.get(file_id) == "test"
            if not target and full and (not host or (test and host in _LOCAL_HOSTS)):
                # a relative URL reaches its own service from a test (the app under test) or a page
                # (same origin), and so does a test's localhost; from server code it is a forward or
                # a base address not read
                own = not address and (test or self.language_of.get(file_id) in _BROWSER_LANGUAGES)
                target, kind, confidence, evidence = self.by_route(service, method, full_shape, own=own)
            if not target and address:
                target, kind, confidence, evidence = self.by_name(address)
            if via_operation:
                evidence = f"{via_operation}; {evidence}" if evidence else via_operation
            updates.append((target, kind, confidence, evidence, full if full != path or via_operation else "", method, rowid))
        self.db.executemany(
            "UPDATE http_calls SET target = ?, target_kind = ?, confidence = ?, evidence = ?, full_path = ?, method = ?"
            " WHERE rowid = ?",
            updates,
        )

    def call_target(self, service: str, host: str, address: str) -> tuple[str, str, str, str, str]:
        """(target, kind, confidence, evidence, path prefix) of a call by its host or address."""
        if host:
            if host in _LOCAL_HOSTS:
                return "", "", "", "", ""
            target, kind = self.host_target(host)
            if target:
                return target, kind, "host", host, ""
            return host, "outside", "host", f"{host}, deployed nowhere in the workspace", ""
        scheme, _, name = address.partition(":")
        if scheme == "env":
            return self.by_env(service, name)
        if scheme == "config":
            found = self.setting(name, service)
            if found is None:
                # Spring's relaxed binding (``orders.url`` <- ``ORDERS_URL``) and .NET's
                # (``Orders:Url`` <- ``Orders__Url``): an environment variable sets the key
                for var in _bound_variables(name):
                    target, kind, _, evidence, prefix = self.by_env(service, var)
                    if target:
                        return target, kind, "config", f"{name} is set by {evidence}", prefix
                return "", "", "", "", ""
            key, value_host, env, path, file, line = found
            where = f"setting {key} ({file}:{line})"
            if value_host:
                target, kind = self.host_target(value_host)
                if target:
                    return target, kind, "config", f"{where} names host {value_host}", path
                if value_host in _LOCAL_HOSTS:
                    return "", "", "", where, path
                return value_host, "outside", "config", f"{where} names host {value_host}", path
            if env:
                target, kind, confidence, evidence, prefix = self.by_env(service, env)
                if target:
                    return target, kind, "config", f"{where} reads ${env}; {evidence}", prefix or path
            return "", "", "", "", path
        if scheme == "client":
            found = self.setting(f"client:{name}", service) or self._any_setting(f"client:{name}")
            if found is None:
                return "", "", "", "", ""
            key, value_host, env, path, file, line = found
            where = f"typed client {name} ({file}:{line})"
            if value_host:
                target, kind = self.host_target(value_host)
                if target:
                    return target, kind, "client", f"{where}: base address host {value_host}", path
            if env.startswith("config:"):
                return self.call_target(service, "", env)[:4] + (path,)
            if env.startswith("const:"):
                # a member holding the base address: its value's host, else (weakest) its name
                found_const = self.call_target(service, "", env)
                if found_const[0]:
                    return found_const[:4] + (path or found_const[4],)
                target, kind, confidence, evidence = self.by_name(env)
                return target, kind, confidence, f"{where}: {evidence}" if target else "", path
            if env:
                return self.by_env(service, env)
            return "", "", "", "", path
        if scheme == "const":
            found = self.constant(name, service)
            if found is None:
                return "", "", "", "", ""
            value, where = found
            parts = url_parts([(True, value)])
            if parts.host:
                target, kind = self.host_target(parts.host)
                if target:
                    return target, kind, "const", f"constant {name} ({where}) names host {parts.host}", parts.path
            return "", "", "", "", parts.path if not parts.computed and parts.path != "/" else ""
        return "", "", "", "", ""

    def _any_setting(self, key: str) -> tuple | None:
        found = [entries[0] for by_key in self.settings.values() if (entries := by_key.get(_norm(key)))]
        return found[0] if len(found) == 1 else None

    def by_env(self, service: str, var: str) -> tuple[str, str, str, str, str]:
        own = self.wiring.get(service, {}).get(var, [])
        for host, path, file, line in own:
            if not host:
                continue
            target, kind = self.host_target(host)
            if target:
                return target, kind, "env", f"${var} = {host} ({file}:{line})", path
        hosts = self.wired_hosts.get(var, set())
        if len(hosts) == 1:
            host = next(iter(hosts))
            target, kind = self.host_target(host)
            if target:
                entries = [e for by_var in self.wiring.values() for e in by_var.get(var, []) if e[0].lower() == host]
                file, line = entries[0][2], entries[0][3]
                return target, kind, "env", f"${var} = {host} ({file}:{line}, another deployment)", entries[0][1]
        return "", "", "", "", ""

    def by_route(self, service: str, method: str, shape: str, *, own: bool) -> tuple[str, str, str, str]:
        """The service a call reaches by its path alone. With ``own`` (a relative URL of a test or a
        page), its own service first: the app under test, the page's own server; any other call
        goes elsewhere (a gateway's forward, a base address that could not be read)."""
        candidates = [*self.routes.get(_head(shape), ()), *self.routes.get("{}", ()), *self.routes.get("{*}", ())]
        serving = sorted({
            s for route, m, s in candidates
            # a root catch-all (an SPA's fallback, a proxy's) serves any path: no evidence of another service
            if _methods_meet(m, method) and route_matches(route, shape) and (route != "/{*}" or (own and s == service))
        })  # fmt: skip
        if own and service and service in serving:
            return service, "service", "route", f"{service} itself serves {method} {shape}"
        serving = [s for s in serving if s and s != service]
        if len(serving) == 1:
            return serving[0], "service", "route", f"only {serving[0]} serves {method} {shape}"
        return "", "", "", ""

    def by_name(self, address: str) -> tuple[str, str, str, str]:
        _, _, name = address.partition(":")
        words = [w for w in re.split(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])", name.rsplit(".", 1)[-1]) if w]
        while words and words[-1].lower() in _ADDRESS_WORDS:
            words.pop()
        if not words:
            return "", "", "", ""
        guess = _norm("".join(words))
        names = (guess, guess + "service", guess + "svc", guess + "api")
        matches = sorted({s for s in self.services | self.externals if _norm(s) in names})
        if len(matches) == 1:
            kind = "service" if matches[0] in self.services else "external"
            return matches[0], kind, "name", f"{name} is named after {matches[0]} (no deployment sets it)"
        return "", "", "", ""


def resolve_links(db: sqlite3.Connection, target_of) -> None:
    """Recompute mounts, topic names and call targets in the open transaction of ``db``.

    ``target_of(language, module, importer)`` resolves a mount's module like an import."""
    links = _Links(db, target_of)
    links.mounts()
    links.topics()
    links.calls()
    if log.isEnabledFor(logging.DEBUG):
        log.debug("links resolved: %d calls", db.execute("SELECT count(*) FROM http_calls").fetchone()[0])
