"""``endpoint_trace``: golden answers on the fixture workspace, misses, paging, and a workspace wired by
its deployments.

The goldens were checked by eye against "HTTP and messaging links" of
``tests/fixtures/workspace/FIXTURE.md``; after that they are compared byte for byte. What the fixture
lacks (addresses from a Compose file, a computed URL in a service, many call sites) is built here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mesh.index import Index
from mesh.render._endpoint import render_endpoint
from mesh.index.query._links import trace_endpoint
from mesh.tools import ToolError, parse_args
from mesh.tools._endpoint_trace import NAME, Args, answer
from mesh.tools._view import View

from .conftest import assert_golden, view_of


def trace_text(view: View, **arguments: str) -> str:
    args, _ = parse_args(Args, arguments)
    return answer(args, view)


def failure(view: View, **arguments: str) -> str:
    with pytest.raises(ToolError) as caught:
        trace_text(view, **arguments)
    return str(caught.value)


GOLDEN_CASES = {
    "route_with_method": {"target": "GET /orders/{id}"},
    "route_path_only": {"target": "/orders"},
    "route_literal_path": {"target": "/orders/42/pay"},
    "topic": {"target": "orders.placed"},
    "service_notifications": {"target": "notifications"},
    "service_gateway": {"target": "gateway"},
    "service_orders": {"target": "orders"},
}


@pytest.mark.parametrize("case", sorted(GOLDEN_CASES))
def test_golden_answers(view: View, case: str) -> None:
    assert_golden(NAME, case, trace_text(view, **GOLDEN_CASES[case]))


def test_a_route_names_its_server_handler_mount_and_callers(view: View) -> None:
    """FIXTURE.md: GET /orders/{id} is served at gateway/src/routes.ts:19 under the mount of index.ts:11;
    notifications calls it at OrderEvents.cs:23 through the literal host gateway."""
    text = trace_text(view, target="GET /orders/{id}")
    assert "**gateway** `gateway/src/routes.ts:19` in `ordersRouter` (express, mounted at `gateway/src/index.ts:11`)" in text
    assert "**notifications** `notifications/OrderEvents.cs:23` in `OrderEvents.RunAsync`" in text
    assert "by host: `gateway`" in text
    assert "n_notifications -->|\"GET /orders/{id}\"| n_gateway" in text


def test_a_route_served_but_never_called_is_a_gap(view: View) -> None:
    text = trace_text(view, target="POST /orders")
    assert "### Gaps" in text and "is served but never called inside the workspace" in text


def test_a_topic_names_its_broker_producers_and_consumers(view: View) -> None:
    text = trace_text(view, target="orders.placed")
    assert "produced by orders; consumed by notifications" in text
    assert "`orders/orders/events.py:18` in `OrderEvents.placed` [kafka-python]" in text
    assert "`notifications/OrderEvents.cs:19` in `OrderEvents.RunAsync` [Confluent.Kafka]" in text


def test_a_service_lists_every_link_of_every_kind(view: View) -> None:
    text = trace_text(view, target="notifications")
    assert "makes 1 HTTP call to gateway" in text and "consumes 1 message" in text
    assert "gRPC: calls orders" in text


def test_a_miss_suggests_the_closest_names(view: View) -> None:
    text = failure(view, target="orders.plaecd")
    assert "No route, service or topic is named `orders.plaecd`." in text
    assert "`orders.placed`" in text and '{"target":"orders.placed"}' in text
    text = failure(view, target="GET /nowhere")
    assert "No route of the workspace fits `GET /nowhere`" in text


def test_a_bad_cursor_names_the_first_page(view: View) -> None:
    assert '`endpoint_trace` `{"target":"gateway"}`' in failure(view, target="gateway", cursor="999")
    assert "not one this tool gave" in failure(view, target="gateway", cursor="x")


def test_the_same_index_gives_the_same_bytes(view: View) -> None:
    """INV-LINKS-4: one snapshot, one answer."""
    assert trace_text(view, target="gateway") == trace_text(view, target="gateway")


# -- a workspace wired by its Compose file ---------------------------------------------------------

COMPOSE = """services:
  web:
    build: ./web
    environment:
      - BILLING_URL=http://billing:8080
      - API_TOKEN=s3cret-do-not-show
  billing:
    build: ./billing
"""
WEB = """import os

import requests

BILLING = os.environ["BILLING_URL"]


def invoice(invoice_id):
    return requests.get(f"{BILLING}/invoices/{invoice_id}").json()


def anything(url):
    return requests.get(url).json()
"""
BILLING = """from flask import Flask

app = Flask(__name__)


@app.route("/invoices/<int:invoice_id>")
def get_invoice(invoice_id):
    return {"id": invoice_id}


@app.post("/invoices")
def create_invoice():
    return {}
"""


@pytest.fixture(scope="module")
def wired(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("wired")
    (root / "docker-compose.yml").write_text(COMPOSE)
    for name, text in (("web/app.py", WEB), ("billing/app.py", BILLING)):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "web" / "requirements.txt").write_text("requests\n")
    (root / "billing" / "requirements.txt").write_text("flask\n")
    (root / "web" / "Dockerfile").write_text("FROM python:3.12\n")
    (root / "billing" / "Dockerfile").write_text("FROM python:3.12\n")
    index = Index(root, tmp_path_factory.mktemp("wired-cache"), workers=1)
    index.refresh()
    yield index
    index.close()


def test_an_address_from_the_deployment_links_the_call_and_shows_the_variable_never_other_values(wired) -> None:
    """INV-LINKS-3: the evidence names the variable, the host and the manifest line, never a value
    that is not a host (API_TOKEN's value appears nowhere)."""
    with view_of(wired) as view:
        text = trace_text(view, target="GET /invoices/{id}")
        assert "**web** `web/app.py:9` in `invoice`" in text
        assert "by its deployment's environment: `$BILLING_URL = billing (docker-compose.yml:5)`" in text
        service = trace_text(view, target="web")
        assert "1 call with a computed URL in web" in service
        for answer_text in (text, service, trace_text(view, target="billing")):
            assert "s3cret" not in answer_text and "API_TOKEN" not in answer_text
        stored = "\n".join(map(str, view.db.execute("SELECT * FROM wiring").fetchall()))
        assert "s3cret" not in stored


def test_a_computed_url_is_reported_and_never_linked(wired) -> None:
    """INV-LINKS-2: web's `requests.get(url)` reaches no route, even the catch-all of a workspace."""
    with view_of(wired) as view:
        links = view.db.execute("SELECT target, computed FROM http_calls ORDER BY line").fetchall()
        assert links == [("billing", 0), ("", 1)]


def test_pages_show_every_site_once(wired) -> None:
    with view_of(wired) as view:
        found = trace_endpoint(view.db, "billing")
        whole = render_endpoint(found, {"target": "billing"}, page_bytes=1 << 20)
        first = render_endpoint(found, {"target": "billing"}, page_bytes=600)
        assert "Next page:" in first and '"scope"' not in first
        shown = int(first.split('"cursor":"', 1)[1].split('"', 1)[0])
        assert 1 <= shown < 3
        second = render_endpoint(found, {"target": "billing"}, offset=shown, page_bytes=1 << 20)
        sites = [line for line in whole.splitlines() if line.startswith(("- ", "  - "))]
        paged = [line for text in (first, second) for line in text.splitlines() if line.startswith(("- ", "  - "))]
        assert paged == sites and len(sites) == 3  # two routes, one caller


def test_dependents_of_a_handler_file_are_its_routes_callers(wired, tmp_path: Path) -> None:
    with view_of(wired) as view:
        from mesh.tools._dependents import Args as DependentsArgs
        from mesh.tools._dependents import answer as dependents

        args, _ = parse_args(DependentsArgs, {"target": "billing/app.py"})
        text = dependents(args, view)
        assert "`web/app.py:9` sends `GET /invoices/{invoice_id}`" in text


def test_a_route_only_tests_call_is_a_gap_said_as_such(tmp_path: Path) -> None:
    """A route whose only callers are tests is listed with them, and the gap says "outside tests"
    (not "inside the workspace", which its own list would contradict)."""
    root = tmp_path / "ws"
    for name, text in (
        ("billing/app.py", BILLING),
        ("billing/requirements.txt", "flask\n"),
        ("billing/tests/test_app.py", "from app import app\n\n\ndef test_create():\n"
                                      "    app.test_client().post('/invoices')\n"),
    ):  # fmt: skip
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    index = Index(root, tmp_path / "cache", workers=1)
    try:
        index.refresh()
        with view_of(index) as view:
            text = trace_text(view, target="POST /invoices")
    finally:
        index.close()
    assert "billing/tests/test_app.py:5" in text
    assert "`POST /invoices` (billing) is served but never called outside tests" in text
