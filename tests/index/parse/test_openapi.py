"""OpenAPI and Swagger documents (mesh/index/parse/_openapi.py): each operation is a route of the contract."""

from __future__ import annotations

import json
import textwrap

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesh.index._facts import HttpRoute
from mesh.index.parse import _openapi, extract

OPENAPI_3 = textwrap.dedent("""\
    ---
    openapi: 3.0.1
    info:
      title: Orders API
      version: "1.0"
    servers:
      - url: "https://{region}.example.com/{base}"
        variables:
          region: {default: eu}
          base: {default: api/v2}
      - url: http://localhost:8080/
    paths:
      "/orders":
        summary: every order
        parameters:
          - {name: limit, in: query}
        get:
          operationId: listOrders
        post:
          operationId: createOrder
      /orders/{orderId}:
        get:
          operationId: getOrder
        delete: {}
      /health:
        servers:
          - url: /
        get:
          operationId: health
      /admin/reindex:
        post:
          operationId: reindex
          servers:
            - url: http://admin.internal/ops
      /shared:
        $ref: "./shared.yaml#/paths/~1shared"
    components:
      schemas:
        Order: {type: object}
    """)  # fmt: skip


def routes(path: str, text: str) -> tuple[HttpRoute, ...]:
    facts = extract(path, text.encode())
    assert facts.error == ""
    return facts.http_routes


def test_openapi_3_operations_with_the_first_servers_path_as_base() -> None:
    assert routes("contracts/orders.yaml", OPENAPI_3) == (
        HttpRoute("GET", "/api/v2/orders", 17, "listOrders", framework="openapi"),
        HttpRoute("POST", "/api/v2/orders", 19, "createOrder", framework="openapi"),
        HttpRoute("GET", "/api/v2/orders/{orderId}", 22, "getOrder", framework="openapi"),
        HttpRoute("DELETE", "/api/v2/orders/{orderId}", 24, "", framework="openapi"),
        HttpRoute("GET", "/health", 28, "health", framework="openapi"),  # the path's own servers win
        HttpRoute("POST", "/ops/admin/reindex", 31, "reindex", framework="openapi"),  # and an operation's
    )


def test_swagger_2_json_applies_base_path_and_keeps_each_operations_line() -> None:
    document = {
        "swagger": "2.0",
        "info": {"title": "Consumers", "version": "1"},
        "host": "localhost:8081",
        "basePath": "/consumer-api",
        "paths": {
            "/consumers": {"post": {"operationId": "createUsingPOST", "parameters": [{"in": "body", "name": "get"}]}},
            "/consumers/{consumerId}": {"get": {"operationId": "getUsingGET"}, "x-extension": {"get": {}}},
        },
    }
    text = json.dumps(document, indent=2)
    lines = text.splitlines()
    post_line = next(n for n, line in enumerate(lines, 1) if '"post"' in line)
    get_line = next(n for n, line in enumerate(lines, 1) if '"get": {' in line and "operationId" in lines[n])
    assert routes("spec/consumer-service-swagger.json", text) == (
        HttpRoute("POST", "/consumer-api/consumers", post_line, "createUsingPOST", framework="openapi"),
        HttpRoute("GET", "/consumer-api/consumers/{consumerId}", get_line, "getUsingGET", framework="openapi"),
    )


def test_a_base_path_of_slash_and_servers_with_a_host_only_add_nothing() -> None:
    swagger = '{"swagger": "2.0", "basePath": "/", "paths": {"/a": {"get": {}}}}'
    openapi = "openapi: 3.1.0\nservers:\n  - url: https://api.example.com\npaths:\n  /b:\n    put: {}\n"
    assert [r.path for r in routes("a.json", swagger)] == ["/a"]
    assert [(r.method, r.path) for r in routes("b.yml", openapi)] == [("PUT", "/b")]


def test_whatever_the_name_and_only_with_the_key_at_the_top_level() -> None:
    assert routes("docs/anything.yml", "swagger: '2.0'\npaths:\n  /x:\n    get: {}\n")[0].path == "/x"
    # look-alikes: a nested key, a script named openapi, a Kubernetes manifest, a Markdown file
    assert routes("values.yaml", "tools:\n  openapi: 3.0.0\npaths:\n  /x:\n    get: {}\n") == ()
    script = '{"scripts": {"openapi": "openapi-generator ..."}, "paths": {"/x": {"get": {}}}}'
    assert routes("package.json", script) == ()
    assert routes("k8s/app.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: openapi\n") == ()
    assert extract("README.md", b"openapi: 3.0.0\npaths:\n  /x:\n    get: {}\n").http_routes == ()
    assert routes("contract.yaml", "openapi: 3.0.0\ninfo: {title: t}\n") == ()  # no paths: no routes, no error


def test_a_malformed_document_is_an_error_and_keeps_what_came_before_the_problem() -> None:
    broken_yaml = "openapi: 3.0.0\npaths:\n  /x:\n    get: {operationId: [unclosed\n"
    facts = extract("api.yaml", broken_yaml.encode())
    assert facts.http_routes == ()
    assert facts.error.startswith("OpenAPI document cannot be read: line ")
    broken_json = '{"openapi": "3.0.0", "paths": {"/a": {"get": {"operationId": "a"}}, "/b": {"get": {"operationId": !'
    facts = extract("api.json", broken_json.encode())
    assert [(r.path, r.handler) for r in facts.http_routes] == [("/a", "a"), ("/b", "")]  # its key was read
    assert facts.error == "OpenAPI document cannot be read: line 1: unexpected '!'"
    facts = extract("api.json", b'{"openapi": "3.0.0", "paths": ["/a"]}')
    assert (facts.http_routes, facts.error) == ((), "OpenAPI document: paths is not a mapping")


def test_aliases_are_never_expanded_and_the_work_is_bounded(monkeypatch) -> None:
    bomb = "openapi: 3.0.0\nx-a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
        f"x-{n}: &{chr(98 + n)} [{', '.join(['*' + chr(97 + n)] * 10)}]\n" for n in range(8)
    ) + "paths:\n  /x: &op\n    get: {operationId: x}\n  /y: *op\n"
    assert [(r.path, r.handler) for r in routes("bomb.yaml", bomb)] == [("/x", "x"), ("/y", "x")]
    monkeypatch.setattr(_openapi, "OPERATIONS_MAX", 3)
    many = {"openapi": "3.0.0", "paths": {f"/p{n}": {"get": {}} for n in range(10)}}
    facts = extract("many.json", json.dumps(many).encode())
    assert len(facts.http_routes) == 3
    assert facts.error == "OpenAPI document: only the first 3 operations read"


def test_a_document_of_thousands_of_paths_is_read_whole() -> None:
    paths = {f"/items/{n}/{{id}}": {"get": {"operationId": f"get{n}"}, "post": {"operationId": f"post{n}"}}
             for n in range(3000)}  # fmt: skip
    document = json.dumps({"openapi": "3.0.0", "paths": paths}, indent=1)
    facts = extract("big.json", document.encode())
    assert (len(facts.http_routes), facts.error) == (6000, "")
    assert facts.http_routes[-1].path == "/items/2999/{id}"
    yaml_document = "openapi: 3.0.0\npaths:\n" + "".join(f"  /items/{n}:\n    get:\n      operationId: g{n}\n"
                                                          for n in range(3000))  # fmt: skip
    facts = extract("big.yaml", yaml_document.encode())
    assert (len(facts.http_routes), facts.http_routes[-1].line) == (3000, 4 + 3 * 2999)


SNIPPETS = [
    OPENAPI_3.encode(),
    b'{"swagger": "2.0", "basePath": "/v1", "paths": {"/a/{id}": {"get": {"operationId": "a"}}}}',
]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A realistic snippet with a few bytes changed, inserted or removed, or cut short."""
    data = bytearray(draw(st.sampled_from(SNIPPETS)))
    for _ in range(draw(st.integers(0, 6))):
        position = draw(st.integers(0, len(data)))
        operation = draw(st.sampled_from(["replace", "insert", "delete", "cut"]))
        byte = draw(st.sampled_from(b"{}[]:,\"'\n -&*!#\\\x00\xff/"))
        if operation == "replace" and position < len(data):
            data[position] = byte
        elif operation == "insert":
            data.insert(position, byte)
        elif operation == "delete" and position < len(data):
            del data[position]
        elif operation == "cut":
            del data[position:]
    return bytes(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=mutated(), name=st.sampled_from(["api.yaml", "api.json", "openapi.yml"]))
def test_openapi_extraction_is_total_INV_LINKS_1(source: bytes, name: str) -> None:
    """INV-LINKS-1: extractors of links are total: any bytes give facts, never an exception."""
    facts = extract(name, source)
    assert facts == extract(name, source)
    assert not facts.error.startswith("extractor failed")
    assert all(route.path.startswith("/") and route.framework == "openapi" for route in facts.http_routes)
