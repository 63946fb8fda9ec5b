"""Routes declared by deployment descriptors (mesh/index/parse/_serverless.py): the Serverless
Framework's ``serverless.yml`` and AWS SAM templates."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mesh.index import Index
from mesh.index._facts import HttpRoute
from mesh.index.parse import _serverless, extract, language_of, manifest_kind
from mesh.index.parse._kinds import kind_of

from ..test_enumerate import make

#: A Lambda service deployed by the Serverless Framework, as the Java ones of the corpus are written.
SERVERLESS = textwrap.dedent("""\
    service: kitchen-lambda

    provider:
      name: aws
      runtime: java17
      environment:
        KITCHEN_DB_URL: ${env:KITCHEN_DB_URL}
        KITCHEN_DB_PASSWORD: ${env:KITCHEN_DB_PASSWORD}
        BILLING_URL: http://billing:8080/api

    functions:
      create-ticket:
        handler: com.example.kitchen.lambda.CreateTicketHandler
        events:
          - http:
              path: tickets
              method: post
              cors: true
              private: true
      find-ticket:
        handler: com.example.kitchen.lambda.FindTicketHandler
        events:
          - http:
              method: GET
              path: tickets/{ticketId}
          - sqs:
              arn: arn:aws:sqs:eu-west-1:123456789012:tickets
    """)  # fmt: skip

HANDLER_CREATE = "com.example.kitchen.lambda.CreateTicketHandler"
HANDLER_FIND = "com.example.kitchen.lambda.FindTicketHandler"


def routes(path: str, text: str) -> tuple[HttpRoute, ...]:
    facts = extract(path, text.encode())
    assert facts.error == ""
    return facts.http_routes


def shapes(path: str, text: str) -> list[tuple[str, str, int, str]]:
    return [(r.method, r.path, r.line, r.handler) for r in routes(path, text)]


# -- Serverless Framework ------------------------------------------------------------------------


def test_http_events_are_routes_of_the_functions_handler_and_nothing_else_is_kept() -> None:
    facts = extract("kitchen-lambda/serverless.yml", SERVERLESS.encode())
    assert facts.error == ""
    assert facts.http_routes == (
        HttpRoute("POST", "/tickets", 16, HANDLER_CREATE, framework="serverless"),  # the line of `path`
        HttpRoute("GET", "/tickets/{ticketId}", 25, HANDLER_FIND, framework="serverless"),
    )
    # the environment holds addresses and secrets: a descriptor gives routes, never settings
    assert (facts.settings, facts.constants, facts.http_calls, facts.messages) == ((), (), (), ())


def test_string_forms_catch_alls_any_methods_and_greedy_parameters() -> None:
    text = textwrap.dedent("""\
        service: api
        provider: {name: aws, runtime: nodejs20.x}
        functions:
          hello:
            handler: handler.hello
            events:
              - http: GET hello
              - http: 'post users/{id}/avatar'
              - http:
                  path: /{proxy+}
                  method: any
          v2:
            handler: src/v2.main
            events:
              - httpApi: 'PATCH /elo'
              - httpApi: '*'
              - httpApi:
                  method: '*'
                  path: /any/method
              - httpApi: '* /files/{path+}'
        """)  # fmt: skip
    assert shapes("serverless.yaml", text) == [
        ("GET", "/hello", 7, "handler.hello"),
        ("POST", "/users/{id}/avatar", 8, "handler.hello"),
        ("*", "/{*proxy}", 10, "handler.hello"),
        ("PATCH", "/elo", 15, "src/v2.main"),
        ("*", "/{*}", 16, "src/v2.main"),  # every method and path: the HTTP API's catch-all
        ("*", "/any/method", 19, "src/v2.main"),
        ("*", "/files/{*path}", 20, "src/v2.main"),
    ]


def test_functions_as_a_list_json_descriptors_and_a_stage_config_name() -> None:
    listed = textwrap.dedent("""\
        service: users
        provider:
          name: aws
        functions:
          - list:
              handler: users.list
              events: [{httpApi: 'GET /users'}]
          - get:
              handler: users.get
              events: [{httpApi: {method: get, path: '/users/{id}'}}]
        """)  # fmt: skip
    assert shapes("users/serverless.dev.yml", listed) == [
        ("GET", "/users", 7, "users.list"),
        ("GET", "/users/{id}", 10, "users.get"),
    ]
    document = {
        "service": "orders",
        "provider": {"name": "aws"},
        "functions": {
            "create": {"handler": "orders.create", "events": [{"http": {"path": "orders", "method": "post"}}]}
        },
    }
    assert shapes("orders/serverless.json", json.dumps(document, indent=2)) == [
        ("POST", "/orders", 12, "orders.create")
    ]


def test_serverless_look_alikes_give_no_routes() -> None:
    functions = "functions:\n  f:\n    handler: h.f\n    events:\n      - http: GET hello\n"
    # another cloud's provider: its http events are other things (Azure's `http: true`, OpenWhisk's prefixes)
    assert routes("serverless.yml", "service: s\nprovider:\n  name: openwhisk\n" + functions) == ()
    assert routes("serverless.yml", "service: s\nprovider: azure\n" + functions) == ()
    # the same keys in a file no Serverless CLI reads (no `serverless` name), or nested
    assert routes("deploy/functions.yml", "provider:\n  name: aws\n" + functions) == ()
    nested = "service: s\ncustom:\n  " + functions.replace("\n", "\n  ")
    assert routes("serverless.yml", nested) == ()
    # functions kept in another file, events that are no HTTP route, values computed at deploy time
    assert routes("serverless.yml", "service: s\nfunctions: ${file(./functions.yml)}\n") == ()
    others = textwrap.dedent("""\
        service: s
        provider: {name: aws}
        functions:
          f:
            handler: h.f
            events:
              - schedule: rate(10 minutes)
              - sqs: {arn: 'arn:aws:sqs:region:1:q'}
              - websocket: {route: $connect}
              - alb: {listenerArn: arn, priority: 1, conditions: {path: /x}}
              - http: true
              - http: GET
              - http: 'GET /a extra'
              - http: {path: '${self:custom.base}/x', method: get}
              - http: {path: /x, method: '${self:custom.method}'}
              - http: {path: /x, method: fetch}
              - http: {path: /x}
              - httpApi: {method: get}
              - http: {path: !Sub '/x', method: get}
        """)  # fmt: skip
    assert routes("serverless.yml", others) == ()
    assert routes("serverless.yml", "service: s\nprovider: {name: aws}\n") == ()  # no functions: no routes, no error
    assert extract("serverless.md", ("service: s\n" + functions).encode()).http_routes == ()


def test_a_provider_named_by_a_variable_is_read_as_aws() -> None:
    text = "service: s\nprovider:\n  name: ${self:custom.cloud}\nfunctions:\n  f:\n    handler: h.f\n    events:\n"
    text += "      - http: GET a\n"
    assert shapes("serverless.yml", text) == [("GET", "/a", 8, "h.f")]


# -- AWS SAM -------------------------------------------------------------------------------------

SAM = textwrap.dedent("""\
    AWSTemplateFormatVersion: '2010-09-09'
    Transform: AWS::Serverless-2016-10-31
    Description: orders

    Globals:
      Function:
        Handler: app.lambda_handler
        Runtime: python3.12

    Resources:
      OrdersFunction:
        Type: AWS::Serverless::Function
        Properties:
          CodeUri: orders/
          Environment:
            Variables:
              TABLE_NAME: !Ref OrdersTable
              PAYMENTS_URL: http://payments:8080
          Events:
            ListOrders:
              Type: Api
              Properties:
                Path: /orders
                Method: get
            Proxy:
              Type: Api
              Properties:
                RestApiId: !Ref OrdersApi
                Method: ANY
                Path: /orders/{proxy+}
            Staged:
              Type: Api
              Properties:
                Path: !Sub /${Stage}/orders
                Method: get
            Changes:
              Type: SQS
              Properties:
                Queue: !GetAtt OrdersQueue.Arn
      PaymentsFunction:
        Type: AWS::Serverless::Function
        Properties:
          Handler: payments.handler
          Events:
            Pay:
              Type: HttpApi
              Properties:
                Path: /payments/{id}
                Method: POST
            Default:
              Type: HttpApi
      ImageFunction:
        Type: AWS::Serverless::Function
        Properties:
          PackageType: Image
          ImageConfig:
            Command: ["report.main"]
          Events:
            Report:
              Type: HttpApi
              Properties: {Path: $default, Method: any}
      Flow:
        Type: AWS::Serverless::StateMachine
        Properties:
          Events:
            Start:
              Type: Api
              Properties: {Path: /flows, Method: post}
      OrdersTable:
        Type: AWS::Serverless::SimpleTable
    """)  # fmt: skip


def test_sam_api_and_http_api_events_of_functions_and_state_machines() -> None:
    facts = extract("template.yaml", SAM.encode())
    assert facts.error == ""
    assert facts.http_routes == (
        HttpRoute("GET", "/orders", 23, "app.lambda_handler", framework="sam"),  # Globals' handler
        HttpRoute("*", "/orders/{*proxy}", 30, "app.lambda_handler", framework="sam"),
        HttpRoute("POST", "/payments/{id}", 48, "payments.handler", framework="sam"),
        HttpRoute("*", "/{*}", 50, "payments.handler", framework="sam"),  # no path nor method: the default route
        HttpRoute("*", "/{*}", 61, "report.main", framework="sam"),  # `$default`; an image's command
        HttpRoute("POST", "/flows", 68, "", framework="sam"),
    )
    assert (facts.settings, facts.constants) == ((), ())


def test_a_sam_template_whatever_its_name_json_and_a_list_of_transforms() -> None:
    document = {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Transform": ["AWS::LanguageExtensions", "AWS::Serverless-2016-10-31"],
        "Resources": {
            "Fn": {
                "Type": "AWS::Serverless::Function",
                "Properties": {
                    "Handler": "index.handler",
                    "Events": {
                        "Get": {"Type": "Api", "Properties": {"Path": "/items/{id}", "Method": "get"}},
                        "Sub": {"Type": "Api", "Properties": {"Path": {"Fn::Sub": "/${A}"}, "Method": "get"}},
                    },
                },
            }
        },
    }
    text = json.dumps(document, indent=2)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if '"/items/{id}"' in row)
    assert shapes("infra/template.json", text) == [("GET", "/items/{id}", line, "index.handler")]
    yaml_text = "Transform:\n  - AWS::Serverless-2016-10-31\nResources:\n  Fn:\n    Type: AWS::Serverless::Function\n" \
                "    Properties:\n      Handler: a.b\n      Events:\n        E:\n          Type: HttpApi\n" \
                "          Properties: {Path: /x, Method: delete}\n"  # fmt: skip
    assert shapes("stacks/api-stack.yml", yaml_text) == [("DELETE", "/x", 11, "a.b")]


def test_sam_look_alikes_give_no_routes_and_a_build_copy_is_no_second_declaration() -> None:
    function = textwrap.dedent("""\
        Resources:
          Fn:
            Type: AWS::Serverless::Function
            Properties:
              Handler: a.b
              Events:
                E:
                  Type: Api
                  Properties: {Path: /x, Method: get}
        """)  # fmt: skip
    assert shapes("template.yaml", "Transform: AWS::Serverless-2016-10-31\n" + function)[0][:2] == ("GET", "/x")
    # no transform, another transform, a nested key, the transform only in a comment or a value
    assert routes("template.yaml", function) == ()
    assert routes("template.yaml", "Transform: AWS::Include\n" + function) == ()
    assert routes("template.yaml", "Metadata:\n  Transform: AWS::Serverless-2016-10-31\n" + function) == ()
    assert routes("template.yaml", "# Transform: AWS::Serverless-2016-10-31\n" + function) == ()
    assert routes("notes.yaml", "Description: uses Transform AWS::Serverless-2016-10-31\n" + function) == ()
    # a plain CloudFormation API, a function without events, events of other kinds
    cloudformation = textwrap.dedent("""\
        Transform: AWS::Serverless-2016-10-31
        Resources:
          Method:
            Type: AWS::ApiGateway::Method
            Properties: {HttpMethod: GET, ResourceId: !Ref R}
          Quiet:
            Type: AWS::Serverless::Function
            Properties: {Handler: q.h}
          Worker:
            Type: AWS::Serverless::Function
            Properties:
              Handler: w.h
              Events:
                Tick: {Type: Schedule, Properties: {Schedule: rate(1 minute), Path: /x, Method: get}}
                Half: {Type: Api, Properties: {Path: /only-path}}
                Bad: {Type: Api, Properties: {Path: /x, Method: fetch}}
                Ref: {Type: Api, Properties: {Path: !Ref P, Method: get}}
        """)  # fmt: skip
    assert routes("template.yaml", cloudformation) == ()
    # `sam build` copies the template: the source declares the routes, once
    assert routes(".aws-sam/build/template.yaml", "Transform: AWS::Serverless-2016-10-31\n" + function) == ()


def test_a_descriptor_in_a_configuration_files_place_still_gives_no_settings() -> None:
    # node-config reads config/production.yml for addresses; a SAM template there is a descriptor
    text = SAM.replace("Description: orders", "Description: orders\nOrdersUrl: http://orders:8080/api")
    facts = extract("config/production.yml", text.encode())
    assert facts.settings == ()
    assert [r.path for r in facts.http_routes][:2] == ["/orders", "/orders/{*proxy}"]


# -- bad input -----------------------------------------------------------------------------------


def test_a_malformed_descriptor_is_an_error_naming_the_problem_never_an_exception() -> None:
    facts = extract("serverless.yml", b"service: s\nfunctions:\n  f:\n    events: [unclosed\n")
    assert facts.http_routes == ()
    assert facts.error.startswith("Serverless descriptor cannot be read: line ")
    broken = (
        '{"Transform": "AWS::Serverless-2016-10-31", "Resources": {"A": {"Type": "AWS::Serverless::Function",'
        ' "Properties": {"Events": {"E": {"Type": "Api", "Properties": {"Path": "/a", "Method": "get"}}}}}, !'
    )
    facts = extract("template.json", broken.encode())
    assert [(r.method, r.path) for r in facts.http_routes] == [("GET", "/a")]  # what was read before the problem
    assert facts.error == "SAM template cannot be read: line 1: a key must be a string, not '!'"
    facts = extract("template.yaml", b"Transform: AWS::Serverless-2016-10-31\nResources: [\n")
    assert facts.error.startswith("SAM template cannot be read: line ")
    # shapes that are wrong, not broken: no routes, no error
    for text in ("service: s\nfunctions: 3\n", "service: s\nfunctions:\n  f: 1\n  g: {events: {http: GET a}}\n",
                 "service: s\nfunctions:\n  f:\n    events: [1, [2], {http: [GET, a]}]\n"):  # fmt: skip
        assert extract("serverless.yml", text.encode()) == extract("serverless.yml", text.encode())
        assert routes("serverless.yml", text) == ()


def test_aliases_are_never_expanded_and_the_events_visited_are_bounded(monkeypatch) -> None:
    bomb = (
        "service: s\nx-a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
        + "".join(f"x-{n}: &{chr(98 + n)} [{', '.join(['*' + chr(97 + n)] * 10)}]\n" for n in range(8))
        + "functions:\n  f: &fn\n    handler: h.f\n    events:\n      - http: GET a\n  g: *fn\n"
    )
    assert shapes("serverless.yml", bomb) == [("GET", "/a", 15, "h.f"), ("GET", "/a", 15, "h.f")]
    monkeypatch.setattr(_serverless, "EVENTS_MAX", 3)
    many = "service: s\nfunctions:\n  f:\n    handler: h.f\n    events:\n" + "".join(
        f"      - http: GET p{n}\n" for n in range(10)
    )
    facts = extract("serverless.yml", many.encode())
    assert [r.path for r in facts.http_routes] == ["/p0", "/p1", "/p2"]
    assert facts.error == "Serverless descriptor: only the first 3 events read"


SNIPPETS = [SERVERLESS.encode(), SAM.encode(), b'{"Transform": "AWS::Serverless-2016-10-31", "Resources": {}}']


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A realistic descriptor with a few bytes changed, inserted or removed, or cut short."""
    data = bytearray(draw(st.sampled_from(SNIPPETS)))
    for _ in range(draw(st.integers(0, 6))):
        position = draw(st.integers(0, len(data)))
        operation = draw(st.sampled_from(["replace", "insert", "delete", "cut"]))
        byte = draw(st.sampled_from(b"{}[]:,\"'\n -&*!#\\$+\x00\xff/"))
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
@given(source=mutated(), name=st.sampled_from(["serverless.yml", "template.yaml", "template.json"]))
@example(source=SERVERLESS.encode(), name="serverless.yml")
@example(source=SAM.encode(), name="template.yaml")
def test_descriptor_extraction_is_total_INV_LINKS_1(source: bytes, name: str) -> None:
    """INV-LINKS-1: extractors of links are total: any bytes give facts, never an exception."""
    facts = extract(name, source)
    if (source, name) == (SNIPPETS[0], "serverless.yml") or source == SNIPPETS[1]:
        assert facts.http_routes  # the snippets unchanged are descriptors (a SAM template by its content)
    assert facts == extract(name, source)
    assert not facts.error.startswith("extractor failed")
    assert facts.settings == ()
    assert all(route.path.startswith("/") and route.framework in ("serverless", "sam") for route in facts.http_routes)


# -- in the index --------------------------------------------------------------------------------


def test_a_descriptor_is_configuration_that_reaches_the_index_and_serves_its_routes(tmp_path: Path) -> None:
    assert (language_of("kitchen-lambda/serverless.yml"), manifest_kind("serverless.yml")) == (None, None)
    assert kind_of("kitchen-lambda/serverless.yml", "") == kind_of("template.yaml", "") == "config"
    root = tmp_path / "ws"
    make(root, {
        "kitchen-lambda/build.gradle": "plugins { id 'java' }\n",
        "kitchen-lambda/serverless.yml": SERVERLESS,
        "kitchen-lambda/src/main/java/com/example/kitchen/lambda/FindTicketHandler.java":
            "package com.example.kitchen.lambda;\n\npublic class FindTicketHandler {}\n",
        "reports/template.yaml": "Transform: AWS::Serverless-2016-10-31\nResources: [\n",
        "reports/app.py": "def handler(event, context):\n    return {}\n",
    })  # fmt: skip
    index = Index(root, tmp_path / "cache")
    summary = index.refresh()
    with index.store.snapshot() as db:
        found = db.execute(
            "SELECT f.path, f.service, r.method, r.path, r.framework FROM http_routes r"
            " JOIN files f ON f.id = r.file_id ORDER BY r.line"
        ).fetchall()
    assert found == [
        ("kitchen-lambda/serverless.yml", "kitchen-lambda", "POST", "/tickets", "serverless"),
        ("kitchen-lambda/serverless.yml", "kitchen-lambda", "GET", "/tickets/{ticketId}", "serverless"),
    ]
    # a malformed template is a warning naming the file; the index is built all the same
    assert dict(summary.failures)["reports/template.yaml"].startswith("SAM template cannot be read: line ")
