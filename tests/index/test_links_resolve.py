"""Resolution of HTTP calls and topics over a whole snapshot (``mesh/index/build/_links.py``).

Each test writes facts straight into a store (as extractors and discovery would), resolves, and
reads the targets back, so the order of evidence is tested apart from any extractor.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.index._facts import path_shape, route_matches
from mesh.index.query._links import ShapeTrie
from mesh.index.build._links import resolve_links
from mesh.index.store._store import Store


class _Facts:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.ids: dict[str, int] = {}

    def file(self, path: str, service: str, *, kind: str = "code", language: str = "python") -> int:
        cursor = self.db.execute(
            "INSERT INTO files(path, service, language, kind, size, mtime_ns, hash, lines, error)"
            " VALUES (?, ?, ?, ?, 0, 0, x'', 1, '')",
            (path, service, language, kind),
        )
        self.ids[path] = cursor.lastrowid
        return cursor.lastrowid

    def service(self, name: str, path: str) -> None:
        self.db.execute("INSERT INTO services(name, path, origin, languages) VALUES (?, ?, 'deployment', '')", (name, path))

    def route(self, path: str, method: str, route: str, line: int = 1, *, mount: str = "") -> None:
        self.db.execute(
            "INSERT INTO http_routes(file_id, method, path, line, handler, symbol, framework, mount, shape)"
            " VALUES (?, ?, ?, ?, '', '', 'test', ?, ?)",
            (self.ids[path], method, route, line, mount, path_shape(route)),
        )

    def call(self, path: str, method: str, url_path: str, line: int = 1, *, host: str = "", address: str = "",
             computed: bool = False) -> None:  # fmt: skip
        self.db.execute(
            "INSERT INTO http_calls(file_id, method, path, line, symbol, host, address, client, computed, shape)"
            " VALUES (?, ?, ?, ?, '', ?, ?, 'test', ?, ?)",
            (self.ids[path], method, url_path, line, host, address, int(computed), path_shape(url_path) if url_path else ""),
        )

    def targets(self) -> list[tuple[str, str, str, str]]:
        return self.db.execute(
            "SELECT f.path, c.target, c.target_kind, c.confidence FROM http_calls c JOIN files f ON f.id = c.file_id"
            " ORDER BY c.rowid"
        ).fetchall()


@pytest.fixture
def facts(tmp_path: Path):
    store = Store(tmp_path / "cache")
    with store.transaction() as writer:
        found = _Facts(writer.db)
        found.service("frontend", "frontend")
        found.service("billing", "billing")
        found.service("ledger", "ledger")
        found.file("frontend/app.py", "frontend")
        found.file("billing/api.py", "billing")
        found.file("ledger/api.py", "ledger")
        found.file("frontend/test_app.py", "frontend", kind="test")
        yield found
    store.close()


def _resolve(facts: _Facts, target_of=lambda language, module, importer: None) -> list[tuple[str, str, str, str]]:
    resolve_links(facts.db, target_of)
    return facts.targets()


def test_a_literal_host_named_by_a_deployment_reaches_its_service(facts: _Facts) -> None:
    facts.db.execute("INSERT INTO hosts VALUES ('billing-svc', 'billing')")
    facts.call("frontend/app.py", "GET", "/invoices", host="billing-svc")
    facts.call("frontend/app.py", "GET", "/x", host="api.github.com")
    facts.call("frontend/app.py", "GET", "/x", host="localhost")
    assert _resolve(facts) == [
        ("frontend/app.py", "billing", "service", "host"),
        ("frontend/app.py", "api.github.com", "outside", "host"),
        ("frontend/app.py", "", "", ""),
    ]


def test_an_env_var_follows_the_callers_own_deployment_first(facts: _Facts) -> None:
    """INV-LINKS-4: the caller's own deployment decides before any other evidence."""
    facts.db.executemany(
        "INSERT INTO wiring VALUES (?, ?, ?, ?, ?, ?)",
        [("frontend", "LEDGER_ADDR", "ledger", "", "k8s/frontend.yaml", 12),
         ("billing", "LEDGER_ADDR", "billing", "", "k8s/billing.yaml", 9)],
    )  # fmt: skip
    facts.call("frontend/app.py", "GET", "/entries", address="env:LEDGER_ADDR")
    (row,) = _resolve(facts)
    assert row == ("frontend/app.py", "ledger", "service", "env")
    evidence = facts.db.execute("SELECT evidence FROM http_calls").fetchone()[0]
    assert "LEDGER_ADDR" in evidence and "k8s/frontend.yaml:12" in evidence


def test_a_setting_gives_the_host_and_the_base_path(facts: _Facts) -> None:
    config = facts.file("frontend/application.yml", "frontend", kind="config", language="")
    facts.db.execute("INSERT INTO settings VALUES (?, 'services.billing.url', 3, 'billing', '', '/api')", (config,))
    facts.call("frontend/app.py", "POST", "/invoices", address="config:services.billing.url")
    assert _resolve(facts) == [("frontend/app.py", "billing", "service", "config")]
    assert facts.db.execute("SELECT full_path FROM http_calls").fetchone()[0] == "/api/invoices"


def test_a_route_served_by_one_other_service_links_a_call_without_host(facts: _Facts) -> None:
    facts.route("billing/api.py", "GET", "/invoices/{id}")
    facts.route("ledger/api.py", "GET", "/entries")
    facts.route("billing/api.py", "GET", "/health")
    facts.route("ledger/api.py", "GET", "/health")
    facts.call("frontend/app.py", "GET", "/invoices/{invoice_id}")
    facts.call("frontend/app.py", "GET", "/health")  # two services serve it: ambiguous, no link
    facts.call("frontend/app.py", "DELETE", "/entries")  # no route of that method
    assert _resolve(facts) == [
        ("frontend/app.py", "billing", "service", "route"),
        ("frontend/app.py", "", "", ""),
        ("frontend/app.py", "", "", ""),
    ]


def test_a_computed_url_is_never_linked(facts: _Facts) -> None:
    """INV-LINKS-2: a URL built at run time reaches nothing, whatever else would match."""
    facts.db.execute("INSERT INTO wiring VALUES ('frontend', 'BILLING_URL', 'billing', '', 'c.yml', 1)")
    facts.route("billing/api.py", "*", "/{*rest}")
    facts.call("frontend/app.py", "GET", "", computed=True)
    facts.call("frontend/app.py", "GET", "", address="env:BILLING_URL", computed=True)
    assert [row[1] for row in _resolve(facts)] == ["", ""]


def test_a_variable_named_after_a_service_links_with_the_lowest_confidence(facts: _Facts) -> None:
    facts.call("frontend/app.py", "GET", "/entries", address="env:LEDGER_SERVICE_ADDR")
    facts.call("frontend/app.py", "GET", "/x", address="env:NOTHING_URL")
    facts.call("frontend/app.py", "GET", "/entries", address="client:LedgerClient")  # a typed client of ledger's
    facts.db.execute("INSERT INTO externals VALUES ('mobile-bff', 'yarp', '[]')")
    facts.call("frontend/app.py", "GET", "/api/items", address="const:MauiProgram.MobileBffHost")  # an external's
    assert _resolve(facts) == [
        ("frontend/app.py", "ledger", "service", "name"),
        ("frontend/app.py", "", "", ""),
        ("frontend/app.py", "ledger", "service", "name"),
        ("frontend/app.py", "mobile-bff", "external", "name"),
    ]


def test_a_constant_of_another_file_gives_a_host(facts: _Facts) -> None:
    holder = facts.file("frontend/urls.py", "frontend")
    facts.db.execute("INSERT INTO constants VALUES (?, 'Urls.LEDGER_URL', 'http://ledger:8080/v1', 2)", (holder,))
    facts.call("frontend/app.py", "GET", "/entries", address="const:Urls.LEDGER_URL")
    assert _resolve(facts) == [("frontend/app.py", "ledger", "service", "const")]
    assert facts.db.execute("SELECT full_path FROM http_calls").fetchone()[0] == "/v1/entries"


def test_mounts_prefix_the_routes_of_the_mounted_file_and_hide_the_bare_ones(facts: _Facts) -> None:
    facts.file("billing/routes.py", "billing")
    facts.route("billing/routes.py", "GET", "/invoices")
    facts.route("billing/api.py", "*", "/api/v1", mount="routes")
    resolve_links(facts.db, lambda language, module, importer: "billing/routes.py" if module == "routes" else None)
    visible = facts.db.execute(
        "SELECT f.path, r.path, r.via FROM http_routes r JOIN files f ON f.id = r.file_id WHERE r.hidden = 0"
    ).fetchall()
    assert visible == [("billing/routes.py", "/api/v1/invoices", "billing/api.py:1")]
    # resolving again gives the same rows, not a second copy
    resolve_links(facts.db, lambda language, module, importer: "billing/routes.py" if module == "routes" else None)
    assert facts.db.execute("SELECT count(*) FROM http_routes WHERE via != ''").fetchone()[0] == 1


def test_topics_named_by_constants_are_read(facts: _Facts) -> None:
    holder = facts.file("billing/topics.py", "billing")
    facts.db.execute("INSERT INTO constants VALUES (?, 'Topics.INVOICES', 'invoices.created', 4)", (holder,))
    facts.db.execute(
        "INSERT INTO messages(file_id, role, broker, name, line, kind, symbol, address, client, computed)"
        " VALUES (?, 'produce', 'kafka', '', 7, 'topic', '', 'const:Topics.INVOICES', 'kafka-python', 0)",
        (facts.ids["billing/api.py"],),
    )
    resolve_links(facts.db, lambda *_: None)
    topic, via = facts.db.execute("SELECT topic, topic_via FROM messages").fetchone()
    assert topic == "invoices.created" and "Topics.INVOICES" in via and "billing/topics.py:4" in via


def test_a_call_to_a_route_of_its_own_service_reaches_it(facts: _Facts) -> None:
    """A test requesting the app under test (or a page its server) reaches its own service, even
    where another service serves the same path; server code's relative URL does not."""
    facts.route("frontend/app.py", "GET", "/home")
    facts.route("billing/api.py", "GET", "/home")
    facts.call("frontend/test_app.py", "GET", "/home")
    # a call with a base address of its own that nothing resolves goes elsewhere: never to itself
    facts.call("frontend/app.py", "GET", "/home", address="config:unknown.url")
    # and a relative URL in server code is a forward (a gateway's), not a call of itself
    facts.call("frontend/app.py", "GET", "/home")
    assert _resolve(facts) == [
        ("frontend/test_app.py", "frontend", "service", "route"),
        ("frontend/app.py", "billing", "service", "route"),
        ("frontend/app.py", "billing", "service", "route"),
    ]


def test_an_event_handler_class_and_its_subscription_are_one_consumer(facts: _Facts) -> None:
    def consume(path: str, line: int, symbol: str, name: str = "OrderPlaced") -> None:
        facts.db.execute(
            "INSERT INTO messages(file_id, role, broker, name, line, kind, symbol, address, client, computed)"
            " VALUES (?, 'consume', 'eventbus', ?, ?, 'event', ?, '', '', 0)",
            (facts.ids[path], name, line, symbol),
        )

    facts.file("billing/handler.py", "billing")
    consume("billing/handler.py", 3, "OrderPlacedHandler")  # the class handling it
    consume("billing/api.py", 20, "Startup.add_subscriptions")  # the registration
    consume("ledger/api.py", 5, "OrderPlacedHandler")  # another service: only its class
    consume("billing/handler.py", 9, "RefundHandler", "Refunded")  # no registration: the class stands
    facts.file("ledger/program.py", "ledger")
    consume("ledger/program.py", 2, "", "Refunded")  # a registration in top-level statements
    consume("ledger/api.py", 7, "RefundHandler", "Refunded")
    resolve_links(facts.db, lambda *_: None)
    visible = facts.db.execute(
        "SELECT f.path, m.line FROM messages m JOIN files f ON f.id = m.file_id WHERE m.hidden = 0 ORDER BY f.path, m.line"
    ).fetchall()
    assert visible == [("billing/api.py", 20), ("billing/handler.py", 9), ("ledger/api.py", 5), ("ledger/program.py", 2)]


def test_a_tests_localhost_reaches_the_app_under_test(facts: _Facts) -> None:
    """A test requesting ``http://localhost:{port}/home`` calls the app it tests; server code's
    localhost reaches nothing (a developer's default, not a link)."""
    facts.route("frontend/app.py", "GET", "/home")
    facts.route("billing/api.py", "GET", "/invoices")
    facts.call("frontend/test_app.py", "GET", "/home", host="localhost")
    facts.call("frontend/test_app.py", "GET", "/invoices", host="127.0.0.1")  # a stub of billing's
    facts.call("frontend/app.py", "GET", "/invoices", host="localhost")
    assert _resolve(facts) == [
        ("frontend/test_app.py", "frontend", "service", "route"),
        ("frontend/test_app.py", "billing", "service", "route"),
        ("frontend/app.py", "", "", ""),
    ]


def test_a_typed_clients_base_address_held_by_a_member(facts: _Facts) -> None:
    """A typed client whose base address is a member (``BaseAddress = new(MobileBffHost)``): the
    member's value when it names a host, else its name as the weakest evidence."""
    facts.service("mobile-bff", "mobile-bff")
    config = facts.file("frontend/program.cs", "frontend", language="csharp")
    facts.db.execute(
        "INSERT INTO settings VALUES (?, 'client:CatalogService', 3, '', 'const:Program.MobileBffHost', '')", (config,)
    )
    facts.db.execute(
        "INSERT INTO settings VALUES (?, 'client:LedgerClient', 4, '', 'const:Urls.Ledger', '')", (config,)
    )
    holder = facts.file("frontend/urls.cs", "frontend", language="csharp")
    facts.db.execute("INSERT INTO constants VALUES (?, 'Urls.Ledger', 'http://ledger:8080/v1', 2)", (holder,))
    facts.call("frontend/app.py", "GET", "/api/catalog/items", address="client:CatalogService")
    facts.call("frontend/app.py", "GET", "/entries", address="client:LedgerClient")
    assert _resolve(facts) == [
        ("frontend/app.py", "mobile-bff", "service", "name"),
        ("frontend/app.py", "ledger", "service", "const"),
    ]
    evidence = [row[0] for row in facts.db.execute("SELECT evidence FROM http_calls ORDER BY rowid")]
    assert "typed client CatalogService" in evidence[0] and "MobileBffHost" in evidence[0]
    assert facts.db.execute("SELECT full_path FROM http_calls ORDER BY rowid").fetchall()[1][0] == "/v1/entries"


def _message(facts: _Facts, path: str, line: int, symbol: str, name: str, address: str = "") -> None:
    facts.db.execute(
        "INSERT INTO messages(file_id, role, broker, name, line, kind, symbol, address, client, computed)"
        " VALUES (?, 'produce', '', ?, ?, 'channel', ?, ?, 'eventuate-tram', 0)",
        (facts.ids[path], name, line, symbol, address),
    )


def test_calls_of_a_publisher_class_take_its_topic_and_stand_for_it(facts: _Facts) -> None:
    """A publisher class names its topic where it is declared; a call through it that cannot read
    the topic takes the class's, and the calls, not the class, are the producers of its service."""
    facts.file("billing/publisher.java", "billing", language="java")
    facts.file("ledger/publisher.java", "ledger", language="java")
    _message(facts, "billing/publisher.java", 7, "InvoicePublisher", "acme.billing.Invoice")
    _message(facts, "ledger/publisher.java", 5, "EntryPublisher", "acme.ledger.Entry")  # never called
    _message(facts, "billing/api.py", 40, "InvoiceService.pay", "", "client:InvoicePublisher")
    _message(facts, "billing/api.py", 50, "InvoiceService.open", "acme.billing.Invoice", "client:InvoicePublisher")
    _message(facts, "frontend/app.py", 9, "Checkout.run", "", "client:Unknown")  # no such class: no topic
    resolve_links(facts.db, lambda *_: None)
    rows = facts.db.execute(
        "SELECT f.path, m.line, m.topic, m.topic_via, m.hidden FROM messages m JOIN files f ON f.id = m.file_id"
        " ORDER BY f.path, m.line"
    ).fetchall()
    assert [(path, line, topic, hidden) for path, line, topic, _, hidden in rows] == [
        ("billing/api.py", 40, "acme.billing.Invoice", 0),
        ("billing/api.py", 50, "acme.billing.Invoice", 0),
        ("billing/publisher.java", 7, "acme.billing.Invoice", 1),
        ("frontend/app.py", 9, "", 0),
        ("ledger/publisher.java", 5, "acme.ledger.Entry", 0),
    ]
    assert rows[0][3] == "publisher InvoicePublisher (billing/publisher.java:7)"


def test_a_root_catch_all_is_no_evidence_of_another_service(facts: _Facts) -> None:
    """A route serving every path (an SPA's fallback, a proxy's ``/{proxy+}``) does not make its
    service "the only one serving" a call; a test of that very service still reaches it."""
    facts.route("billing/api.py", "*", "/{*proxy}")
    facts.route("frontend/app.py", "GET", "/{*}")
    facts.call("frontend/app.py", "GET", "/entries")
    facts.call("frontend/test_app.py", "GET", "/anything")
    assert _resolve(facts) == [("frontend/app.py", "", "", ""), ("frontend/test_app.py", "frontend", "service", "route")]


def test_a_generated_clients_operation_takes_the_openapi_operations_method_and_path(facts: _Facts) -> None:
    """``ordersApi.createOrder(...)`` of an OpenAPI Generator client: the one operation of that id
    in the workspace's OpenAPI documents gives the method and path; then the route links it. An id
    declared twice with different paths, or nowhere, leaves the call without a path."""
    spec = facts.file("billing/openapi.yml", "billing", kind="config", language="")

    def operation(method: str, path: str, line: int, operation_id: str) -> None:
        facts.db.execute(
            "INSERT INTO http_routes(file_id, method, path, line, handler, symbol, framework, mount, shape)"
            " VALUES (?, ?, ?, ?, ?, '', 'openapi', '', ?)",
            (spec, method, path, line, operation_id, path_shape(path)),
        )

    operation("POST", "/invoices", 12, "createInvoice")
    operation("GET", "/invoices/{id}", 20, "getInvoice")
    operation("GET", "/ledger/{id}", 30, "getInvoice")  # the same id twice: ambiguous
    for line, operation_id in ((3, "create_invoice"), (4, "GetInvoice"), (5, "unknownOperation")):
        facts.db.execute(
            "INSERT INTO http_calls(file_id, method, path, line, symbol, host, address, client, computed, shape,"
            " operation) VALUES (?, '*', '', ?, '', '', 'client:InvoicesApi', 'openapi-generator', 0, '', ?)",
            (facts.ids["frontend/app.py"], line, operation_id),
        )
    for _ in range(2):  # resolving again gives the same answer
        resolve_links(facts.db, lambda *_: None)
        rows = facts.db.execute("SELECT method, full_path, target, evidence FROM http_calls ORDER BY rowid").fetchall()
        assert [row[:3] for row in rows] == [("POST", "/invoices", "billing"), ("*", "", ""), ("*", "", "")]
        assert rows[0][3].startswith("operation create_invoice (billing/openapi.yml:12); only billing serves")


@pytest.mark.parametrize("reverse", [False, True])
def test_the_first_setting_and_constant_are_the_first_by_path_never_by_file_id_INV_LINKS_4(
    tmp_path: Path, reverse: bool
) -> None:
    """INV-LINKS-4 (and INV-INDEX-12): a cold build numbers files in the order the parse workers
    finish them, so where two files of a service give a key or a constant, the one that decides is
    the first by path, whichever was numbered first."""
    store = Store(tmp_path / "cache")
    with store.transaction() as writer:
        facts = _Facts(writer.db)
        facts.service("frontend", "frontend")
        facts.service("billing", "billing")
        facts.service("ledger", "ledger")
        configs = ["frontend/appsettings.Production.json", "frontend/appsettings.json"]
        holders = ["frontend/a_topics.py", "frontend/b_topics.py"]
        for path in reversed(configs + holders) if reverse else configs + holders:
            facts.file(path, "frontend", kind="config" if path.endswith(".json") else "code",
                       language="" if path.endswith(".json") else "python")  # fmt: skip
        facts.file("frontend/app.py", "frontend")
        for path, host in zip(configs, ["billing", "ledger"]):
            facts.db.execute("INSERT INTO settings VALUES (?, 'Api.Url', 3, ?, '', '')", (facts.ids[path], host))
        for path in holders:
            facts.db.execute("INSERT INTO constants VALUES (?, 'Topics.ORDERS', 'orders', 7)", (facts.ids[path],))
        facts.call("frontend/app.py", "GET", "/x", address="config:Api.Url")
        facts.db.execute(
            "INSERT INTO messages(file_id, role, broker, name, line, kind, symbol, address, client, computed)"
            " VALUES (?, 'produce', 'kafka', '', 9, 'topic', '', 'const:Topics.ORDERS', 'test', 0)",
            (facts.ids["frontend/app.py"],),
        )
        resolve_links(facts.db, lambda language, module, importer: None)
        assert facts.targets() == [("frontend/app.py", "billing", "service", "config")]
        evidence = facts.db.execute("SELECT evidence FROM http_calls").fetchone()[0]
        assert "frontend/appsettings.Production.json:3" in evidence, evidence
        topic, via = facts.db.execute("SELECT topic, topic_via FROM messages").fetchone()
        assert (topic, via) == ("orders", "constant Topics.ORDERS (frontend/a_topics.py:7)")
    store.close()


_SHAPES = st.lists(st.sampled_from(["v1", "orders", "{}", "{*}", "", "items"]), max_size=4).map(
    lambda segments: "/" + "/".join(segments)
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(routes=st.lists(_SHAPES, max_size=12), calls=st.lists(_SHAPES, min_size=1, max_size=6))
def test_the_routes_a_call_reaches_are_found_segment_by_segment(routes: list[str], calls: list[str]) -> None:
    """A call finds through the shapes' trie exactly the routes ``route_matches`` accepts, in order
    (a route's ``{}`` any one segment, ``{*}`` the rest or none, ``/`` only ``/``), whatever the
    routes' first segments share."""
    trie = ShapeTrie(routes)
    for call in calls:
        assert trie.matching(call) == [index for index, route in enumerate(routes) if route_matches(route, call)], call
