"""Wiring from deployments (mesh/index/build/_services.py, readers in parse/_deploy.py): which host each
deployed service's environment names, and which host names reach which service."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesh.index.build._services import structural
from mesh.index.build._workspace import Config, Wiring, discover_workspace, load_config


def workspace(root: Path, files: dict[str, str], hidden: dict[str, str] | None = None):
    """The workspace of ``files``; ``hidden`` files are written but left out of the walk, as the walk
    leaves ``.env`` files out."""
    for path, text in {**files, **(hidden or {})}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return discover_workspace(root, load_config(root), sorted(files))


def wires(found) -> list[tuple[str, str, str, str, str]]:
    return [(w.service, w.var, w.host, w.path, f"{w.file}:{w.line}") for w in found.wiring]


COMPOSE = """\
services:
  web:
    build: ./web
    container_name: shop-web
    environment:
      - ORDERS_URL=http://${ORDERS_HOST:-orders}:8080/api/v1
      - CATALOG_ADDR=${CATALOG_HOST}:9090
      - PAYMENT_URL=${PAYMENT_URL-http://payments:1/x}
      - DB_PASSWORD=hunter2
      - DATABASE_URL=postgres://shop:${DB_PASSWORD}@db:5432/shop
      - LOG_LEVEL=info
      - RETRY=3
      - LISTEN_ADDR=0.0.0.0:8080
      - PASSTHROUGH
    env_file:
      - ./web/web.env
    links:
      - "db:database"
  orders:
    build:
      context: ./orders
    hostname: orders-host
    networks:
      back:
        aliases: [orders.internal, ORDERS-ALIAS]
    environment:
      BROKER_URL: amqp://rabbitmq:5672
      KAFKA_BROKERS: "kafka-1:9092,kafka-2:9092"
      ORDERS_DB_HOST: db
      PORT: 8080
  db:
    image: postgres:16
    environment:
      POSTGRES_HOST: db
  rabbitmq:
    image: rabbitmq:3-management
"""


def test_compose_environment_interpolated_from_the_env_file_beside_it(tmp_path: Path) -> None:
    """INV-LINKS-3: the ``.env`` is read to interpolate, never kept; secret-looking variables are not read."""
    found = workspace(tmp_path, {
        "docker-compose.yml": COMPOSE,
        "web/package.json": "{}", "web/index.js": "x()\n",
        "orders/go.mod": "module orders\n", "orders/main.go": "package main\n\nfunc main() {}\n",
    }, hidden={
        ".env": "ORDERS_HOST=orders-api\nexport CATALOG_HOST='catalog'\nDB_PASSWORD=s3cr3t-from-dotenv\n",
        "web/web.env": "SEARCH_URL=http://search:9200\nLOG_LEVEL=debug\nAPI_TOKEN=tok-123\n# SKIP_URL=http://no:1\n",
    })  # fmt: skip
    assert wires(found) == [
        ("orders", "BROKER_URL", "rabbitmq", "", "docker-compose.yml:27"),
        ("orders", "KAFKA_BROKERS", "kafka-1", "", "docker-compose.yml:28"),
        ("orders", "KAFKA_BROKERS", "kafka-2", "", "docker-compose.yml:28"),
        ("orders", "ORDERS_DB_HOST", "db", "", "docker-compose.yml:29"),
        ("web", "CATALOG_ADDR", "catalog", "", "docker-compose.yml:7"),
        ("web", "DATABASE_URL", "db", "/shop", "docker-compose.yml:10"),  # the password never read
        ("web", "ORDERS_URL", "orders-api", "/api/v1", "docker-compose.yml:6"),
        ("web", "PAYMENT_URL", "payments", "/x", "docker-compose.yml:8"),
        ("web", "SEARCH_URL", "search", "", "docker-compose.yml:16"),  # from env_file, at its entry
    ]
    assert found.hosts == (
        ("database", "db"), ("db", "db"),
        ("orders", "orders"), ("orders-alias", "orders"), ("orders-host", "orders"), ("orders.internal", "orders"),
        ("rabbitmq", "rabbitmq"),
        ("shop-web", "web"), ("web", "web"),
    )  # fmt: skip
    shown = repr(found)
    assert not any(secret in shown for secret in ("hunter2", "s3cr3t", "tok-123", "shop:"))
    assert found.warnings == ()


def test_without_an_env_file_unset_variables_wire_nothing_and_defaults_apply(tmp_path: Path) -> None:
    found = workspace(tmp_path, {
        "compose.yaml": "services:\n  web:\n    build: .\n    environment:\n"
                        "      A_URL: http://${A_HOST}:1\n      B_URL: http://${B_HOST:-b}:1\n      C_URL: $${NOT}\n",
        "package.json": "{}", "index.js": "x()\n",
    })  # fmt: skip
    assert wires(found) == [("web", "B_URL", "b", "", "compose.yaml:6")]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks here")
def test_an_env_file_linked_from_outside_is_never_read(tmp_path: Path) -> None:
    """INV-READ-1: the ``.env`` and ``env_file`` are read through the workspace's reader, never a link out."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "evil.env").write_text("ORDERS_HOST=evil\nX_URL=http://evil:1\n")
    root = tmp_path / "ws"
    root.mkdir()
    os.symlink(outside / "evil.env", root / ".env")
    os.symlink(outside / "evil.env", root / "linked.env")
    found = workspace(root, {
        "compose.yaml": "services:\n  web:\n    build: .\n    env_file: [linked.env, ../outside/evil.env]\n"
                        "    environment:\n      ORDERS_URL: http://${ORDERS_HOST:-orders}:1\n",
        "package.json": "{}", "index.js": "x()\n",
    })  # fmt: skip
    assert wires(found) == [("web", "ORDERS_URL", "orders", "", "compose.yaml:6")]


def test_an_override_file_wires_the_service_another_compose_file_builds(tmp_path: Path) -> None:
    found = workspace(tmp_path, {
        "ui/docker-compose.yml": "services:\n  ui:\n    build: .\n    hostname: storefront\n",
        "ui/pom.xml": "<project />", "ui/src/main/java/A.java": "class A {}",
        "app/compose.override.yaml": "services:\n  ui:\n    environment:\n      - CATALOG_URL=http://catalog:8080\n"
                                     "    ports: !override []\n",
        "app/docker-compose.tracing.yml": "x-otel: &otel\n  OTEL_EXPORTER_OTLP_ENDPOINT: http://otel:4318\n"
                                          "services:\n  ui:\n    environment:\n      <<: *otel\n",
    })  # fmt: skip
    assert wires(found) == [
        ("ui", "CATALOG_URL", "catalog", "", "app/compose.override.yaml:4"),
        ("ui", "OTEL_EXPORTER_OTLP_ENDPOINT", "otel", "", "app/docker-compose.tracing.yml:2"),
    ]
    assert ("storefront", "ui") in found.hosts


K8S_CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: service-api-config
data:
  TRANSACTIONS_API_ADDR: "ledgerwriter:8080"
  BALANCES_API_ADDR: balancereader:8080
  DEMO_LOGIN_PASSWORD: "hunter2"
  LOCAL_ROUTING_NUM: "883745000"
---
apiVersion: v1
data:
  DB_URI: postgresql://admin:pw@ledger-db:5432/ledger
kind: ConfigMap
metadata:
  name: ledger-db-config
"""
K8S_FRONTEND = """\
apiVersion: v1
kind: Service
metadata:
  name: frontend
  namespace: bank
spec:
  selector:
    app: frontend
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: frontend
  namespace: bank
spec:
  template:
    metadata:
      labels: {app: frontend, tier: web}
    spec:
      containers:
        - name: front
          image: example.com/bank/frontend:v1
          env:
            - name: LEDGER_HOST
              value: ledgerwriter
            - name: LEDGER_URL
              value: http://$(LEDGER_HOST):8080/api
            - name: DB_URL
              valueFrom:
                configMapKeyRef: {name: ledger-db-config, key: DB_URI}
            - name: JWT_KEY
              valueFrom:
                secretKeyRef: {name: jwt, key: jwtRS256.key}
            - name: POD_IP
              valueFrom:
                fieldRef: {fieldPath: status.podIP}
          envFrom:
            - configMapRef: {name: service-api-config}
              prefix: UPSTREAM_
            - secretRef: {name: creds}
"""
K8S_LEDGER = """\
apiVersion: v1
kind: Service
metadata:
  name: ledgerwriter
spec:
  selector: {app: ledger}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: ledger-writer
spec:
  template:
    metadata:
      labels: {app: ledger}
    spec:
      containers:
        - name: w
          image: example.com/bank/ledgerwriter:v1
---
apiVersion: v1
kind: Service
metadata:
  name: cache
spec:
  selector: {app: redis}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: redis
spec:
  template:
    metadata:
      labels: {app: redis}
    spec:
      containers:
        - name: r
          image: redis:7
"""


def test_kubernetes_env_config_maps_and_services_reaching_workloads(tmp_path: Path) -> None:
    found = workspace(tmp_path, {
        "k8s/config.yaml": K8S_CONFIG, "k8s/frontend.yaml": K8S_FRONTEND, "k8s/ledger.yaml": K8S_LEDGER,
        "src/frontend/package.json": "{}", "src/frontend/index.js": "x()\n",
        "src/ledgerwriter/pom.xml": "<project />", "src/ledgerwriter/src/main/java/A.java": "class A {}",
    })  # fmt: skip
    assert wires(found) == [
        ("frontend", "DB_URL", "ledger-db", "/ledger", "k8s/config.yaml:13"),  # the value's line, in the ConfigMap
        ("frontend", "LEDGER_HOST", "ledgerwriter", "", "k8s/frontend.yaml:24"),
        ("frontend", "LEDGER_URL", "ledgerwriter", "/api", "k8s/frontend.yaml:26"),
        ("frontend", "UPSTREAM_BALANCES_API_ADDR", "balancereader", "", "k8s/config.yaml:7"),
        ("frontend", "UPSTREAM_TRANSACTIONS_API_ADDR", "ledgerwriter", "", "k8s/config.yaml:6"),
    ]
    assert found.hosts == (
        ("cache", "redis"), ("cache.default", "redis"), ("cache.default.svc", "redis"),
        ("cache.default.svc.cluster.local", "redis"),
        ("frontend", "frontend"), ("frontend.bank", "frontend"), ("frontend.bank.svc", "frontend"),
        ("frontend.bank.svc.cluster.local", "frontend"),
        ("ledger-writer", "ledger-writer"),  # a workload's own name reaches it (and names the service)
        ("ledgerwriter", "ledger-writer"), ("ledgerwriter.default", "ledger-writer"),
        ("ledgerwriter.default.svc", "ledger-writer"), ("ledgerwriter.default.svc.cluster.local", "ledger-writer"),
        ("redis", "redis"),
    )  # fmt: skip
    assert [e.name for e in found.externals] == ["redis"]
    assert "hunter2" not in repr(found) and "admin:pw" not in repr(found)


URLS = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: urls\ndata:\n"


def test_a_config_map_defined_again_for_another_environment_wires_its_own_copy(tmp_path: Path) -> None:
    deployment = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
                  "      containers:\n        - name: w\n          image: shop/web:1\n"
                  "          envFrom:\n            - configMapRef: {name: urls}\n")  # fmt: skip
    found = workspace(tmp_path, {
        "deploy/dev/web.yaml": deployment,
        "deploy/dev/urls.yaml": f"{URLS}  API_URL: http://api-dev\n",
        "deploy/prod/urls.yaml": f"{URLS}  API_URL: http://api\n",
        "web/package.json": "{}", "web/index.js": "x()\n",
    })  # fmt: skip
    assert wires(found) == [("web", "API_URL", "api-dev", "", "deploy/dev/urls.yaml:6")]


def test_helm_values_reach_templates_and_an_umbrella_chart_sets_its_subcharts(tmp_path: Path) -> None:
    template = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \"ui.fullname\" . }}\n"
                "spec:\n  template:\n    spec:\n      containers:\n        - name: ui\n"
                "          image: \"{{ .Values.image.repository }}:{{ .Values.image.tag }}\"\n"
                "          env:\n"
                "            - name: CATALOG_URL\n              value: {{ .Values.app.endpoints.catalog | quote }}\n"
                "            - name: CARTS_URL\n              value: \"{{ .Values.app.endpoints.carts }}\"\n"
                "            - name: SEARCH_URL\n"
                "              value: {{ .Values.app.search.url | default \"http://search:9200\" }}\n"
                "            - name: API_KEY\n              value: {{ .Values.app.key }}\n")  # fmt: skip
    found = workspace(tmp_path, {
        "src/ui/pom.xml": "<project />", "src/ui/src/main/java/A.java": "class A {}",
        "src/ui/chart/Chart.yaml": "apiVersion: v2\nname: ui-chart\nversion: 1.0.0\n",
        "src/ui/chart/values.yaml": "image:\n  repository: example.com/shop-ui\napp:\n  endpoints:\n"
                                    "    catalog: http://catalog:80\n  key: http://secret-host:1\n",
        "src/ui/chart/templates/deployment.yaml": template,
        "src/ui/chart/templates/configmap.yml": "kind: ConfigMap\ndata:\n"
                                                "  ORDERS_URL: {{ .Values.app.endpoints.orders }}\n",
        "deploy/chart/Chart.yaml": "apiVersion: v2\nname: shop\ndependencies:\n  - name: ui-chart\n    alias: ui\n"
                                   "    repository: file://../../src/ui/chart\n",
        "deploy/chart/values.yaml": "ui:\n  fullnameOverride: storefront\n  app:\n    endpoints:\n"
                                    "      carts: http://carts:80\n      orders: http://orders/api\n",
    })  # fmt: skip
    assert wires(found) == [
        ("ui", "CARTS_URL", "carts", "", "deploy/chart/values.yaml:5"),
        ("ui", "CATALOG_URL", "catalog", "", "src/ui/chart/values.yaml:5"),
        ("ui", "ORDERS_URL", "orders", "/api", "deploy/chart/values.yaml:6"),
        ("ui", "SEARCH_URL", "search", "", "src/ui/chart/templates/deployment.yaml:16"),
    ]
    assert ("storefront", "ui") in found.hosts
    assert found.warnings == ()


ASPIRE = """\
var builder = DistributedApplication.CreateBuilder(args);
var redis = builder.AddRedis("redis");
var rabbitMq = builder.AddRabbitMQ("eventbus")
    .WithLifetime(ContainerLifetime.Persistent);
var postgres = builder.AddPostgres("postgres");
var catalogDb = postgres.AddDatabase("catalogdb");
// builder.AddProject<Projects.Old_API>("old-api").WithReference(redis);
var identityApi = builder.AddProject<Projects.Identity_API>("identity-api", launchProfileName);
var identityEndpoint = identityApi.GetEndpoint(launchProfileName);
var catalogApi = builder.AddProject<Projects.Catalog_API>("catalog-api")
    .WithReference(rabbitMq).WaitFor(rabbitMq)
    .WithReference(catalogDb)
    .WithEnvironment("Identity__Url", identityEndpoint)
    .WithEnvironment("Search__Url", "http://search:9200/v1");
if (useWeb)
{
    builder.AddProject<Projects.WebApp>("webapp")
        .WithReference(catalogApi)
        .WithEnvironment("Basket__Url", identityApi.GetEndpoint("http"));
}
"""


def test_aspire_references_and_environment(tmp_path: Path) -> None:
    found = workspace(tmp_path, {
        "src/AppHost/AppHost.csproj": "<Project />", "src/AppHost/Program.cs": ASPIRE,
        **{f"src/{p}/{p}.csproj": "<Project />" for p in ("Identity.API", "Catalog.API", "WebApp")},
        **{f"src/{p}/Program.cs": "class P {}" for p in ("Identity.API", "Catalog.API", "WebApp")},
    })  # fmt: skip
    assert wires(found) == [
        ("catalog-api", "ConnectionStrings:catalogdb", "catalogdb", "", "src/AppHost/Program.cs:12"),
        ("catalog-api", "ConnectionStrings:eventbus", "eventbus", "", "src/AppHost/Program.cs:11"),
        ("catalog-api", "Identity__Url", "identity-api", "", "src/AppHost/Program.cs:13"),
        ("catalog-api", "Search__Url", "search", "/v1", "src/AppHost/Program.cs:14"),
        ("webapp", "Basket__Url", "identity-api", "", "src/AppHost/Program.cs:19"),
        ("webapp", "services:catalog-api", "catalog-api", "", "src/AppHost/Program.cs:18"),
    ]
    assert found.hosts == (
        ("catalog-api", "catalog-api"), ("catalogdb", "postgres"), ("eventbus", "eventbus"),
        ("identity-api", "identity-api"), ("postgres", "postgres"), ("redis", "redis"), ("webapp", "webapp"),
    )  # fmt: skip


def test_with_services_named_in_mesh_toml_the_service_holding_the_folder_is_wired(tmp_path: Path) -> None:
    """INV-WS-1: the deployment's build context lands in a folder; the named service holding it is the one."""
    (tmp_path / "mesh.toml").write_text('[[services]]\nname = "storefront"\npath = "apps"\n')
    found = workspace(tmp_path, {
        "compose.yaml": "services:\n  web:\n    build: ./apps/web\n    environment:\n"
                        "      ORDERS_URL: http://orders:8080\n  orders:\n    image: acme/orders:1\n",
        "apps/web/package.json": "{}", "apps/web/index.js": "x()\n",
    })  # fmt: skip
    assert [s.name for s in found.services] == ["storefront"]
    assert wires(found) == [("storefront", "ORDERS_URL", "orders", "", "compose.yaml:5")]
    assert found.hosts == (("orders", "orders"), ("web", "storefront"))


def test_a_malformed_manifest_is_a_warning_and_the_others_still_wire_INV_WS_2(tmp_path: Path) -> None:
    """INV-WS-2."""
    found = workspace(tmp_path, {
        "compose.yaml": "services:\n  web:\n    build: ./web\n    environment: {A_URL: http://a:1}\n",
        "k8s/bad.yaml": "apiVersion: v1\nkind: Deployment\nmetadata: [unclosed\n",
        "k8s/odd.yaml": "apiVersion: v1\nkind: Deployment\nmetadata: {name: web}\nspec: {template: {spec: {containers:"
                        " [{image: acme/web, env: [{name: 7}, {value: x}, 5, {name: B_URL, value: [1]}],"
                        " envFrom: [{configMapRef: [1]}]}]}}}\n",
        "web/package.json": "{}", "web/index.js": "x()\n",
    })  # fmt: skip
    assert [(w.path, w.line) for w in found.warnings] == [("k8s/bad.yaml", 4)]
    assert wires(found) == [("web", "A_URL", "a", "", "compose.yaml:4")]


def test_a_malformed_chart_or_values_file_is_a_warning_naming_its_line(tmp_path: Path) -> None:
    found = workspace(tmp_path, {
        "chart/Chart.yaml": "apiVersion: v2\nname: [unclosed\n",
        "chart/values.yaml": "app:\n  url: http://a:1\n bad: indent\n",
        "chart/templates/d.yaml": "env:\n  - name: A_URL\n    value: {{ .Values.app.url }}\n",
    })  # fmt: skip
    assert [(w.path, w.line) for w in found.warnings] == [("chart/Chart.yaml", 3), ("chart/values.yaml", 3)]
    assert all(w.message.startswith("cannot be read as YAML") for w in found.warnings)


@pytest.mark.parametrize(("name", "full"), [
    (".env", True), ("Chart.yaml", True), ("values.yaml", True), ("docker-compose.yml", True),
    ("web.env", True), ("values-prod.yaml", False), ("deployment.yaml", False), ("app.py", False),
])  # fmt: skip
def test_a_change_to_what_wiring_reads_refreshes_the_whole_workspace(name: str, full: bool) -> None:
    assert structural(name) is full


def test_wiring_is_sorted_and_the_same_whatever_the_order_of_the_walk(tmp_path: Path) -> None:
    files = {
        "compose.yaml": COMPOSE, "k8s/config.yaml": K8S_CONFIG, "k8s/frontend.yaml": K8S_FRONTEND,
        "web/package.json": "{}", "orders/go.mod": "module orders\n", "src/frontend/package.json": "{}",
    }  # fmt: skip
    first = workspace(tmp_path, files)
    again = discover_workspace(tmp_path, Config(), sorted(files, reverse=True))
    assert (first.wiring, first.hosts) == (again.wiring, again.hosts)
    assert list(first.wiring) == sorted(first.wiring, key=lambda w: (w.service, w.var, w.host, w.path, w.file, w.line))
    assert all(isinstance(w, Wiring) for w in first.wiring)


MANIFESTS = {
    "compose.yaml": COMPOSE.encode(),
    "k8s/frontend.yaml": K8S_FRONTEND.encode(),
    "k8s/config.yaml": K8S_CONFIG.encode(),
    "src/AppHost/Program.cs": ASPIRE.encode(),
    "chart/values.yaml": b"app:\n  url: http://a:1\nfullnameOverride: x\n",
    "chart/templates/d.yaml": b"env:\n  - name: A_URL\n    value: {{ .Values.app.url }}\n",
}
OTHERS = {"chart/Chart.yaml": b"apiVersion: v2\nname: c\n", "web/package.json": b"{}", ".env": b"ORDERS_HOST=o\n"}


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    """One manifest with a few bytes changed, inserted or removed, or cut short."""
    path = draw(st.sampled_from(sorted(MANIFESTS)))
    data = bytearray(MANIFESTS[path])
    for _ in range(draw(st.integers(1, 6))):
        position = draw(st.integers(0, len(data)))
        byte = draw(st.sampled_from(b"{}[]:,\"'\n -$&*!#<>()=;\x00\xff"))
        operation = draw(st.sampled_from(["replace", "insert", "delete", "cut"]))
        if operation == "replace" and position < len(data):
            data[position] = byte
        elif operation == "insert":
            data.insert(position, byte)
        elif operation == "delete" and position < len(data):
            del data[position]
        elif operation == "cut":
            del data[position:]
    return path, bytes(data)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=mutated())
def test_discovery_of_wiring_is_total_INV_LINKS_1(case: tuple[str, bytes]) -> None:
    """INV-LINKS-1: extractors of links are total: any bytes give facts, never an exception (here the
    readers of deployment manifests, through discovery)."""
    path, data = case
    files = {**MANIFESTS, **OTHERS, path: data}

    def read(name: str) -> bytes | None:
        return files.get(name)

    root, walked = Path("/nonexistent-workspace"), sorted(set(files) - {".env"})
    first = discover_workspace(root, Config(), walked, read)
    again = discover_workspace(root, Config(), walked, read)
    assert (again.wiring, again.hosts, again.warnings) == (first.wiring, first.hosts, first.warnings)
    assert all(w.service and w.host == w.host.lower() and w.line >= 1 for w in first.wiring)
