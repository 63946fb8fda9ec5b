"""Settings of configuration files (mesh/index/parse/_config.py): keys whose values name a host or an
environment variable, and nothing else of any value."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesh.index._facts import Setting
from mesh.index.parse import _config, extract


def found(path: str, text: str) -> tuple[Setting, ...]:
    facts = extract(path, textwrap.dedent(text).lstrip("\n").encode())
    assert facts.error == ""
    return facts.settings


def test_spring_yaml_urls_hosts_and_placeholders() -> None:
    assert found("orders/src/main/resources/application.yml", """
        spring:
          application:
            name: orders                      # a plain word under a key that is no address
          rabbitmq:
            host: rabbitmq                    # a bare host: the key says it is an address
            port: 5672
          datasource:
            url: jdbc:postgresql://orders-db:5432/orders?sslmode=disable
            password: ${DB_PASSWORD:changeme}
        server:
          port: ${PORT:8080}
        clients:
          billing:
            url: ${BILLING_URL:http://billing:8080/api/v1}
          inventory:
            base-url: ${inventory.host}/stock
          peers:
            - http://peer-a:9000
            - peer-b:9000
        otel.exporter.otlp.endpoint: http://otel-collector:4318/
        """) == (
        Setting("spring.rabbitmq.host", 5, host="rabbitmq"),
        Setting("spring.datasource.url", 8, host="orders-db", path="/orders"),
        Setting("server.port", 11, env="PORT"),
        Setting("clients.billing.url", 14, host="billing", env="BILLING_URL", path="/api/v1"),
        Setting("clients.peers[0]", 18, host="peer-a"),
        Setting("clients.peers[1]", 19, host="peer-b"),
        Setting("otel.exporter.otlp.endpoint", 20, host="otel-collector"),
    )


def test_spring_profiles_are_documents_and_bootstrap_files_count() -> None:
    assert found("src/main/resources/bootstrap-k8s.yaml", """
        eureka:
          client:
            serviceUrl:
              defaultZone: http://eureka:8761/eureka/
        ---
        spring:
          config:
            activate:
              on-profile: docker
        eureka.client.serviceUrl.defaultZone: http://registry:8761/eureka/
        """) == (
        Setting("eureka.client.serviceUrl.defaultZone", 4, host="eureka", path="/eureka/"),
        Setting("eureka.client.serviceUrl.defaultZone", 10, host="registry", path="/eureka/"),
    )


def test_properties_with_continuations_separators_and_escapes() -> None:
    assert found("src/main/resources/application-docker.properties", r"""
        # a comment: http://commented:1/x
        ! another
        orders.service.url=http://orders:8080
        kafka.bootstrap-servers : kafka-1:9092,kafka-2:9092
        spring.data.mongodb.uri mongodb://user:pw@mongo:27017/orders
        long.url = http://\
            long-host:80/a
        escaped\:peer.url=http://escaped:1
        eventuatelocal.zookeeper.connection.string=${DOCKER_HOST_IP:localhost}:2181
        aws.secret.access.key=${AWS_SECRET:abc}
        """) == (
        Setting("orders.service.url", 3, host="orders"),
        Setting("kafka.bootstrap-servers", 4, host="kafka-1"),
        Setting("spring.data.mongodb.uri", 5, host="mongo", path="/orders"),
        Setting("long.url", 6, host="long-host", path="/a"),
        Setting("escaped:peer.url", 8, host="escaped"),
        Setting("eventuatelocal.zookeeper.connection.string", 9, host="localhost", env="DOCKER_HOST_IP"),
    )


def test_dotnet_appsettings_with_comments_connection_strings_and_service_discovery() -> None:
    assert found("src/WebApp/appsettings.Development.json", """
        {
          // .NET reads comments and trailing commas
          "ConnectionStrings": {
            "EventBus": "amqp://rabbitmq:5672/vhost",
            "Redis": "redis:6379",
            "CatalogDb": "Host=db;Database=catalog;Username=sa;Password=Pass@word",
            "Cache": "redis:6379,password=hunter2,ssl=true",
          },
          "services": {
            "catalog-api": { "http": [ "http://localhost:5222" ], },
          },
          "services:basket-api:https:0": "https://basket-api",
          "Identity": { "Url": "http://identity-api/connect", "ClientSecret": "http://leak:1" },
          /* "Disabled": "http://commented:1" */
          "APIServiceLocations": { "CustomerManagementAPI": "customermanagementapi:5100" },
          "Logging": { "LogLevel": { "Default": "Information" } },
          "AllowedHosts": "*",
          "Kestrel": { "Endpoints": { "Http": { "Url": "http://0.0.0.0:5000" } } },
        }
        """) == (
        Setting("ConnectionStrings.EventBus", 4, host="rabbitmq"),  # a connection string: the host alone
        Setting("ConnectionStrings.Redis", 5, host="redis"),
        Setting("services.catalog-api.http.0", 10, host="localhost"),
        Setting("services.basket-api.https.0", 12, host="basket-api"),
        Setting("Identity.Url", 13, host="identity-api", path="/connect"),
        Setting("APIServiceLocations.CustomerManagementAPI", 15, host="customermanagementapi"),
    )


def test_node_config_files_and_their_environment_variable_map() -> None:
    assert found("api/config/default.json", '{"orders": {"url": "http://orders:3000/v1"}, "port": 3000}') == (
        Setting("orders.url", 1, host="orders", path="/v1"),
    )
    assert found("api/config/custom-environment-variables.yaml", """
        orders:
          url: ORDERS_URL
        db:
          password: DB_PASSWORD
        """) == (Setting("orders.url", 2, env="ORDERS_URL"),)


@pytest.mark.parametrize("path", ["values.yaml", "chart/templates/app.yaml", "app.json", "config.yml",
                                  "docker-compose.yml", "src/settings.json", "tsconfig.json"])  # fmt: skip
def test_files_that_are_no_configuration_give_no_settings(path: str) -> None:
    assert extract(path, b"orders:\n  url: http://orders:8080\n").settings == ()
    assert _config.config_kind(path) is None


def test_secrets_are_never_kept_nor_anything_of_a_value_but_its_host_and_path() -> None:
    """INV-LINKS-3: of a setting, the key, the host and the path of a URL; never credentials, query
    strings or a path that may hold a token; secret-looking keys not at all."""
    text = textwrap.dedent("""
        spring.datasource.url=jdbc:postgresql://admin:S3cretPw@db:5432/orders?password=Other1
        spring.datasource.password=S3cretPw
        app.api-key=http://key-host:1
        app.auth.token-url=http://tokens:1/issue
        app.webhook.url=https://hooks.example.com/services/T0000000/B0000000/XXXXXXXXXXXXXXXXXXXXXXXX1
        app.private.url=https://user:PaSsW0rd@private.example.com/x
        """).encode()
    facts = extract("src/main/resources/application.properties", text)
    assert facts.settings == (
        Setting("spring.datasource.url", 2, host="db", path="/orders"),
        Setting("app.webhook.url", 6, host="hooks.example.com"),  # a path segment like a token: no path
        Setting("app.private.url", 7, host="private.example.com", path="/x"),
    )
    shown = repr(facts)
    assert not any(secret in shown for secret in ("S3cretPw", "Other1", "PaSsW0rd", "XXXXXXXX", "key-host", "tokens"))


@pytest.mark.parametrize(("value", "bare", "single", "expected"), [
    ("http://Orders:8080/api/", False, False, [("orders", "/api/")]),
    ("orders:8080", False, False, [("orders", "")]),
    ("orders", False, False, []),
    ("orders", True, False, [("orders", "")]),
    ("true", True, False, []),
    ("v1.2.3", True, False, []),
    ("12:30", False, False, []),
    ("10.0.0.7:80", False, False, [("10.0.0.7", "")]),
    ("[::1]:80", False, False, [("::1", "")]),
    ("PLAINTEXT://kafka:9092,PLAINTEXT_HOST://localhost:29092", False, False, [("kafka", ""), ("localhost", "")]),
    ("mongodb://a:27017,b:27017/db", False, True, [("a", "")]),
    ("http://${HOST}:8080", False, False, []),
    ("http://{}/x", False, False, []),
    ("-XX:MaxRAMPercentage=75.0 -Dx=http://a:1", False, False, []),
    ("Server=tcp:sql,1433;Password=x", False, True, []),
    ("http://0.0.0.0:80", False, False, []),
    ("file:///etc/config", False, False, []),
])  # fmt: skip
def test_what_a_value_says_about_an_address(value: str, bare: bool, single: bool, expected: list) -> None:
    assert _config.addresses(value, bare=bare, single=single) == expected


@pytest.mark.parametrize(("name", "secret", "host"), [
    ("DB_PASSWORD", True, False), ("apiKey", True, False), ("AWS_SECRET_ACCESS_KEY", True, False),
    ("RABBITMQ_DEFAULT_PASS", True, False), ("client_credentials", True, False), ("KEYCLOAK_URL", False, True),
    ("ORDERS_SERVICE_ADDR", False, True), ("spring.rabbitmq.host", False, True), ("KAFKA_BROKERS", False, True),
    ("OTEL_SERVICE_NAME", False, False), ("MONGO_HOST_NAME", False, True), ("LOG_LEVEL", False, False),
])  # fmt: skip
def test_names_that_look_secret_and_names_of_addresses(name: str, secret: bool, host: bool) -> None:
    assert (_config.secret_name(name), _config.host_named(name)) == (secret, host)


def test_the_json_reader_keeps_lines_and_reports_where_it_broke() -> None:
    root, problem = _config.read_json('{\n  "a": [1, {"b": "x"}],\n  "c": "\\u00e9"\n}')
    assert problem == ""
    assert [(key, line) for key, line, _ in root] == [("a", 2), ("c", 3)]
    assert root[1][2] == "é"
    for broken, message in [
        ('{"a": 1', "line 1: the document ends inside an object"),
        ('{"a" 1}', "line 1: ':' expected after a key"),
        ("[1, 2]]", "line 1: unexpected ']'"),
        ("", "empty document"),
        ('{"a": "\\x"}', "line 1: an invalid escape in a string"),
        ("{} {}", "line 1: more than one value"),
        ("{1: 2}", "line 1: a key must be a string, not '1'"),
        ("{/* never closed", "line 1: the document ends inside an object"),
    ]:
        assert _config.read_json(broken)[1] == message


SNIPPETS = [
    b"spring:\n  datasource:\n    url: ${DB_URL:jdbc:mysql://db:3306/x}\n  rabbitmq:\n    host: rabbit\n",
    b'{\n  // c\n  "ConnectionStrings": {"Bus": "amqp://bus"},\n  "services": {"x": {"http": ["http://x"]}},\n}\n',
    b"a.url=http://a:1/x\\\n  y\nb.host : b\n",
]


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    """A realistic configuration file with a few bytes changed, inserted or removed, or cut short."""
    index = draw(st.integers(0, len(SNIPPETS) - 1))
    data = bytearray(SNIPPETS[index])
    for _ in range(draw(st.integers(0, 6))):
        position = draw(st.integers(0, len(data)))
        byte = draw(st.sampled_from(b"{}[]:,\"'\n $\\=#&*!/\x00\xff"))
        operation = draw(st.sampled_from(["replace", "insert", "delete", "cut"]))
        if operation == "replace" and position < len(data):
            data[position] = byte
        elif operation == "insert":
            data.insert(position, byte)
        elif operation == "delete" and position < len(data):
            del data[position]
        elif operation == "cut":
            del data[position:]
    return ["application.yml", "appsettings.json", "application.properties"][index], bytes(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=mutated())
def test_settings_extraction_is_total_INV_LINKS_1(case: tuple[str, bytes]) -> None:
    """INV-LINKS-1: extractors of links are total: any bytes give facts, never an exception."""
    name, source = case
    facts = extract(f"svc/{name}", source)
    assert facts == extract(f"svc/{name}", source)
    assert not facts.error.startswith("extractor failed")
    assert all(setting.host or setting.env for setting in facts.settings)
