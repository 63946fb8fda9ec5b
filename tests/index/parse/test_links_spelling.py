"""One spelling of routes and URLs for every extractor (``mesh/index/parse/_links.py``) and the
comparisons the resolver makes with it (``path_shape``, ``route_matches``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mesh.index._facts import path_shape, route_matches
from mesh.index.parse._links import join_paths, route_template, url_parts, verb


@pytest.mark.parametrize(
    ("raw", "template"),
    [
        ("/users/:id", "/users/{id}"),  # Express, gin, echo
        ("/users/:id?", "/users/{id}"),
        ("/a/:id(\\d+)", "/a/{id}"),
        ("/u/<int:id>", "/u/{id}"),  # Flask
        ("/u/<id>", "/u/{id}"),
        ("/files/<path..>", "/files/{*path}"),  # Rocket
        ("/x/{id:int}", "/x/{id}"),  # ASP.NET constraint
        ("/x/{id?}", "/x/{id}"),
        ("/x/{*rest}", "/x/{*rest}"),
        ("/x/{**rest}", "/x/{*rest}"),
        ("/api/{**catch-all}", "/api/{*catch-all}"),  # YARP
        ("items/{id...}", "/items/{*id}"),  # Go 1.22
        ("/{proxy+}", "/{*proxy}"),  # API Gateway's greedy parameter (Serverless, SAM)
        ("/static/*filepath", "/static/{*filepath}"),  # gin
        ("/orders/**", "/orders/{*}"),  # Ant patterns (Spring, Spring Cloud Gateway)
        ("/a/**/b", "/a/**/b"),  # not at the end: kept as written
        ("^api/(?P<pk>[0-9]+)/$", "/api/{pk}/"),  # Django re_path
        ("api/orders/", "/api/orders/"),
        ("//a//b", "/a/b"),
        ("", "/"),
    ],
)
def test_route_template_gives_one_spelling(raw: str, template: str) -> None:
    assert route_template(raw) == template


@pytest.mark.parametrize(
    ("parts", "host", "base", "path", "computed"),
    [
        ([(True, "http://billing:8080/orders/"), (False, "account_id")], "billing", "", "/orders/{account_id}", False),
        ([(True, "https://API.github.com/users?x=1")], "api.github.com", "", "/users", False),
        ([(False, "BASE"), (True, "/orders")], "", "BASE", "/orders", False),
        ([(False, "self.url"), (True, "/"), (False, "user.id")], "", "self.url", "/{}", False),
        ([(True, "http://"), (False, "host"), (True, ":8080/x")], "", "host", "/x", False),
        ([(False, "url")], "", "url", "", True),
        ([(True, "/api/list")], "", "", "/api/list", False),
        ([(True, "balancereader:8080/balances")], "balancereader", "", "/balances", False),
        ([(True, "http://user:pw@db:5432/x")], "db", "", "/x", False),
        ([(True, "http://[::1]:80/x")], "::1", "", "/x", False),
        ([(True, "http://billing")], "billing", "", "/", False),
        ([(True, "relative/path")], "", "", "", True),
        ([], "", "", "", True),
    ],
)
def test_url_parts_reads_host_base_and_path(parts, host, base, path, computed) -> None:
    found = url_parts(parts)
    assert (found.host, found.base, found.path, found.computed) == (host, base, path, computed)


def test_url_parts_never_keeps_credentials_or_query() -> None:
    found = url_parts([(True, "https://alice:s3cret@api.example.com/v1/items?token=abc#frag")])
    assert "s3cret" not in repr(found) and "token" not in repr(found) and found.path == "/v1/items"


@pytest.mark.parametrize(
    ("name", "method"),
    [("get", "GET"), ("MapPost", "POST"), ("GetMapping", "GET"), ("HttpDelete", "DELETE"), ("fetch", ""),
     ("DeleteAsync", "DELETE"), ("handle", "")],
)  # fmt: skip
def test_verb(name: str, method: str) -> None:
    assert verb(name) == method


def test_join_paths() -> None:
    assert join_paths("/api/", "/orders") == "/api/orders"
    assert join_paths("api", "orders") == "/api/orders"
    assert join_paths("", "orders") == "/orders"
    assert join_paths("/api", "") == "/api"
    assert join_paths("/", "/") == "/"


def test_path_shape_ignores_parameter_names_case_and_trailing_slash() -> None:
    assert path_shape("/api/Orders/{orderId}/") == path_shape("/api/orders/{id}") == "/api/orders/{}"
    assert path_shape("/files/{*rest}") == "/files/{*}"
    assert path_shape("/") == "/"


@pytest.mark.parametrize(
    ("route", "call", "reaches"),
    [
        ("/orders/{}", "/orders/{}", True),
        ("/orders/{}", "/orders/42", True),  # a literal call to a template route
        ("/orders/by-date", "/orders/{}", False),  # a call's parameter is no literal segment
        ("/files/{*}", "/files/a/b/c", True),
        ("/orders", "/orders/{}", False),
        ("/", "/", True),
        ("/a/{}/b", "/a/x/c", False),
    ],
)
def test_route_matches(route: str, call: str, reaches: bool) -> None:
    assert route_matches(route, call) is reaches


@given(st.lists(st.tuples(st.booleans(), st.text(max_size=30)), max_size=6))
def test_url_parts_is_total(parts) -> None:
    """INV-LINKS-1: reading a URL never raises, whatever the pieces."""
    found = url_parts(parts)
    assert found.computed or found.path.startswith("/")


@given(st.text(max_size=60))
def test_route_template_is_total(raw: str) -> None:
    """INV-LINKS-1: a route of any spelling gives a template starting with ``/``."""
    assert route_template(raw).startswith("/")


@pytest.mark.parametrize(
    ("parts", "host", "base", "path"),
    [
        ([(True, "http://"), (False, "host"), (True, ":"), (False, "port"), (True, "/x")], "", "host", "/x"),
        ([(False, "BASE"), (True, ":"), (False, "PORT"), (True, "/x/"), (False, "id")], "", "BASE", "/x/{id}"),
        ([(False, "proto"), (True, "://"), (False, "host"), (True, "/x")], "", "host", "/x"),
        ([(False, "proto"), (True, "://billing:8080/x")], "billing", "", "/x"),
        ([(True, "http://billing:"), (False, "port"), (True, "/x")], "billing", "", "/x"),
        ([(True, "http://bil"), (True, "ling/x")], "billing", "", "/x"),
    ],
)
def test_url_parts_reads_past_a_scheme_or_port_written_as_an_expression(parts, host, base, path) -> None:
    found = url_parts(parts)
    assert (found.host, found.base, found.path, found.computed) == (host, base, path, False)


@pytest.mark.parametrize(
    ("parts", "path"),
    [
        ([(False, "base"), (True, "chat/submit")], "/chat/submit"),  # a base address ending with "/"
        ([(False, "base"), (True, "orders?x=1")], "/orders"),
        ([(False, "host"), (True, ":8080/x")], "/x"),  # a host goes on with a port,
        ([(False, "host"), (True, ".svc.cluster.local/x")], "/x"),  # a domain,
        ([(False, "host"), (True, "-orders/x")], "/x"),  # or more of its name
        ([(True, "http://"), (False, "host"), (True, "chat/x")], "/x"),  # after a scheme: a host
    ],
)
def test_a_path_after_a_base_expression(parts: list[tuple[bool, str]], path: str) -> None:
    assert url_parts(parts).path == path
