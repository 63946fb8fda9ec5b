"""A deterministic multi-service workspace of N files, for measuring mesh at scale.

    .venv/bin/python bench/gen_workspace.py --files 250000 --seed 1 /tmp/ws-250k

Same ``--files`` and ``--seed`` give a byte-identical tree (paths and bytes; mtimes are the
writer's). The tree is streamed to disk service by service: only one service's plan (its module
names) is in memory at a time, never the text of more than one file.

Shape (one service per 1,000 files, at least five so that every language is there; every count
derived from N and the seed):

- ``docker-compose.yml`` names every service (``build: ./services/<name>``) with its gRPC and HTTP
  addresses of the services it calls (``LEDGER_API_ADDR``, ``LEDGER_API_URL``), plus postgres and
  redis as external services; ``README.md`` and ``docs/`` at the root.
- ``proto/acme/<ident>/v1/<ident>.proto``: one gRPC service per workload service (Get/List/Create/
  Update/Delete and a server-streaming Watch of its entity), with the ``go_package``,
  ``java_package`` and ``csharp_namespace`` options protoc's plugins read.
- ``libs/<language>/``: one platform library per language (log, config, errors, metrics, tracing,
  httpx...), the hub modules: ``log`` is imported by ~85% of the code files of its language,
  ``config`` by ~45%, ``errors`` by ~30%, the rest by fewer.
- ``services/<name>/``: Python (pyproject.toml, grpcio, FastAPI), Go (go.mod, grpc-go, net/http),
  Java (pom.xml, grpc-java, Spring), TypeScript (package.json, @grpc/grpc-js with grpc-tools stubs,
  Express) or Rust (Cargo.toml, tonic, axum), in turn. Each has its build manifest, a Dockerfile, a
  README and docs, a gRPC server of its proto service in the shape protoc's generated code imposes
  (``add_XServicer_to_server``, ``pb.UnimplementedXServer`` + ``pb.RegisterXServer``,
  ``XGrpc.XImplBase``, ``addService(XService, ...)``, ``impl x_server::X for ...``), gRPC clients of
  two other services through their generated stubs, HTTP routes of its entity and HTTP calls to a
  third service's routes through the address Compose sets, and packages of ordinary modules that
  import the hub modules and each other with the language's own import syntax (resolvable inside
  the workspace), with about one test file per ten modules.

File sizes: the code modules' sizes are drawn from a log-normal distribution with median 5 KB and
sigma 1.05, clipped to [300 B, 640 KB]: measured source trees are log-normal in the body with a
heavy right tail (most files a few KB, a few generated-looking or legacy files of hundreds of KB);
with sigma 1.05 the mean is ~8.7 KB and about 1 module in 460 is over 100 KB (at 25,000 files, seed
1: median 5.0 KB, p90 19 KB, p99 57 KB, 33 files over 100 KB, the largest 342 KB; the 1 MiB default
``max_file_bytes`` of mesh is never reached, so every file is indexed). Manifests, protos, servers,
clients and docs have their natural sizes (1-6 KB).

Every random draw goes through :class:`Draw`, built on ``random.Random.random()`` alone (the one
sequence CPython promises across versions), seeded by a string of the seed and the service or path.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

SIZE_MEDIAN_BYTES = 5000
SIZE_SIGMA = 1.05
SIZE_MIN_BYTES = 300
SIZE_MAX_BYTES = 640_000
FILES_PER_SERVICE = 1000
LANGUAGES = ("python", "go", "java", "typescript", "rust")
HUBS = ("log", "config", "errors", "metrics", "tracing", "httpx", "cache", "retry")
#: share of a language's code modules that import each hub module
HUB_SHARE = {"log": 0.85, "config": 0.45, "errors": 0.30, "metrics": 0.15, "tracing": 0.08, "httpx": 0.05,
             "cache": 0.04, "retry": 0.03}  # fmt: skip

DOMAINS = (
    "billing", "ledger", "orders", "payments", "inventory", "shipping", "catalog", "pricing", "search",
    "accounts", "identity", "sessions", "profiles", "reviews", "ratings", "carts", "checkout", "refunds",
    "invoices", "taxes", "coupons", "loyalty", "rewards", "notifications", "emails", "sms", "pushes",
    "media", "images", "videos", "uploads", "reports", "analytics", "metrics", "audits", "fraud", "risk",
    "compliance", "kyc", "onboarding", "support", "tickets", "chats", "feeds", "timelines", "friends",
    "groups", "events", "bookings", "calendars", "venues", "routes", "fleets", "drivers", "trips", "maps",
    "geo", "weather", "forecasts", "warehouses", "suppliers", "contracts", "quotes", "leads", "campaigns",
    "ads", "bids", "auctions", "wallets", "transfers", "fx", "statements", "payroll", "employees",
)  # fmt: skip
ROLES = ("api", "svc", "worker", "gateway", "engine", "sync", "store", "hub")
ENTITIES = (
    "invoice", "entry", "order", "payment", "item", "shipment", "product", "price", "query", "account",
    "user", "session", "profile", "review", "rating", "cart", "receipt", "refund", "tax", "coupon",
    "member", "reward", "message", "email", "push", "asset", "image", "video", "upload", "report",
    "metric", "audit", "alert", "case", "check", "ticket", "chat", "post", "friend", "group", "event",
    "booking", "slot", "venue", "route", "vehicle", "driver", "trip", "tile", "station", "forecast",
    "bin", "supplier", "contract", "quote", "lead", "campaign", "ad", "bid", "lot", "wallet",
    "transfer", "rate", "statement", "payslip", "employee",
)  # fmt: skip
WORDS = (
    "account", "adapter", "address", "amount", "archive", "balance", "batch", "bucket", "buffer", "cache",
    "channel", "checksum", "client", "codec", "column", "config", "context", "counter", "cursor", "delta",
    "digest", "encoder", "entry", "envelope", "filter", "format", "gauge", "handler", "header", "index",
    "journal", "key", "label", "ledger", "limit", "loader", "marker", "matcher", "merge", "meter", "mapper",
    "notice", "offset", "option", "owner", "page", "parser", "patch", "payload", "planner", "policy", "pool",
    "prefix", "printer", "queue", "quota", "reader", "record", "region", "registry", "report", "request",
    "resolver", "result", "router", "rule", "sample", "scanner", "schema", "scope", "selector", "sender",
    "shard", "signal", "slice", "snapshot", "source", "span", "state", "status", "store", "stream", "summary",
    "table", "tag", "task", "template", "tenant", "token", "tracker", "update", "usage", "validator", "value",
    "vector", "version", "view", "window", "worker", "writer", "zone",
)  # fmt: skip
VERBS = (
    "apply", "build", "check", "collect", "compute", "convert", "count", "decode", "encode", "ensure",
    "expand", "fetch", "find", "flush", "format", "load", "lookup", "merge", "normalize", "parse", "prepare",
    "process", "read", "record", "refresh", "render", "resolve", "route", "sanitize", "save", "scan",
    "select", "split", "store", "summarize", "sync", "track", "transform", "update", "validate", "write",
)  # fmt: skip
SENTENCES = (
    "Keeps the hot path free of allocations where it can.",
    "Callers must hold the tenant's lease before calling this.",
    "The result is cached for the rest of the request.",
    "Returns early when the input is empty, as most callers expect.",
    "Mirrors the behaviour of the previous implementation, bugs included.",
    "Retries are the caller's business: this never retries.",
    "Values outside the documented range are clamped, not rejected.",
    "Logged at debug level only: this runs once per record.",
    "The order of the output follows the order of the input.",
    "Safe to call from several goroutines or threads at once.",
)


class Draw:
    """Seeded draws built on ``random.Random.random()`` only (stable across CPython versions)."""

    def __init__(self, *key: object) -> None:
        self.prng = random.Random("/".join(str(part) for part in key))

    def random(self) -> float:
        return self.prng.random()

    def below(self, n: int) -> int:
        return min(n - 1, int(self.prng.random() * n))

    def pick(self, seq):  # noqa: ANN001, ANN201 - any sequence
        return seq[self.below(len(seq))]

    def chance(self, p: float) -> bool:
        return self.prng.random() < p

    def sample(self, seq, k: int) -> list:  # noqa: ANN001
        pool = list(seq)
        out = []
        for _ in range(min(k, len(pool))):
            out.append(pool.pop(self.below(len(pool))))
        return out

    def lognormal_bytes(self) -> int:
        u1 = max(self.prng.random(), 1e-12)
        u2 = self.prng.random()
        z = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)
        size = SIZE_MEDIAN_BYTES * math.exp(SIZE_SIGMA * z)
        return int(min(SIZE_MAX_BYTES, max(SIZE_MIN_BYTES, size)))


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_") if part)


def lower_camel(name: str) -> str:
    text = camel(name)
    return text[:1].lower() + text[1:]


def snake(name: str) -> str:
    out = []
    for number, char in enumerate(name):
        if char.isupper() and number:
            out.append("_")
        out.append(char.lower())
    return "".join(out).replace("-", "_")


def plural(word: str) -> str:
    if word.endswith(("s", "x", "sh", "ch")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


# -- the plan: services and their names ---------------------------------------------------------


class Service:
    """One workload service: its names in every spelling its code needs."""

    def __init__(self, number: int, name: str, language: str, entity: str) -> None:
        self.number = number
        self.name = name  # billing-api
        self.language = language
        self.entity = entity  # invoice
        self.ident = name.replace("-", "")  # billingapi: proto package word, Java/Go package word
        self.py = name.replace("-", "_")  # billing_api: Python package, Rust crate
        self.proto_service = camel(name)  # BillingApi
        self.proto_package = f"acme.{self.ident}.v1"
        self.proto_path = f"proto/acme/{self.ident}/v1/{self.ident}.proto"
        self.go_package = f"github.com/acme/protos/go/acme/{self.ident}/v1"
        self.java_package = f"com.acme.{self.ident}.v1"
        self.env = name.upper().replace("-", "_")  # BILLING_API
        self.root = f"services/{name}"
        self.callees_grpc: list[Service] = []
        self.callee_http: Service | None = None

    @property
    def entity_camel(self) -> str:
        return camel(self.entity)

    @property
    def methods(self) -> list[tuple[str, str, str, bool]]:
        """(rpc, request message, response message, server-streaming) of the proto service."""
        e, es = camel(self.entity), camel(plural(self.entity))
        return [
            (f"Get{e}", f"Get{e}Request", e, False),
            (f"List{es}", f"List{es}Request", f"List{es}Response", False),
            (f"Create{e}", f"Create{e}Request", e, False),
            (f"Update{e}", f"Update{e}Request", e, False),
            (f"Delete{e}", f"Delete{e}Request", f"Delete{e}Response", False),
            (f"Watch{es}", f"Watch{es}Request", f"{e}Event", True),
        ]

    @property
    def http_base(self) -> str:
        return f"/v1/{plural(self.entity)}"


def plan_services(files: int, seed: int) -> list[Service]:
    count = max(len(LANGUAGES), files // FILES_PER_SERVICE)  # every language at any size
    draw = Draw(seed, "services")
    names = [f"{domain}-{role}" for domain in DOMAINS for role in ROLES]
    chosen = draw.sample(names, min(count, len(names)))
    while len(chosen) < count:  # past the word lists: numbered names
        chosen.append(f"{draw.pick(DOMAINS)}-{draw.pick(ROLES)}-{len(chosen)}")
    services = [
        Service(number, name, LANGUAGES[number % len(LANGUAGES)], draw.pick(ENTITIES))
        for number, name in enumerate(chosen)
    ]
    for service in services:
        others = [other for other in services if other is not service]
        picked = draw.sample(others, 3)
        service.callees_grpc = picked[:2]
        service.callee_http = picked[2] if len(picked) > 2 else picked[0]
    return services


# -- writing ------------------------------------------------------------------------------------


def write_file(out: Path, relative: str, text: str) -> int:
    path = out / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode()
    path.write_bytes(data)
    return len(data)


def _grow(head: str, blocks: Iterator[str], target: int, tail: str = "") -> str:
    """``head`` then blocks until the text reaches ``target`` bytes (at least one block)."""
    parts = [head]
    size = len(head) + len(tail)
    for block in blocks:
        parts.append(block)
        size += len(block)
        if size >= target:
            break
    parts.append(tail)
    return "".join(parts)


# -- proto, compose, docs -----------------------------------------------------------------------


def proto_text(service: Service) -> str:
    e = service.entity_camel
    lines = [
        'syntax = "proto3";',
        "",
        f"package {service.proto_package};",
        "",
        'import "acme/common/v1/common.proto";',
        "",
        f'option go_package = "{service.go_package};{service.ident}v1";',
        f'option java_package = "{service.java_package}";',
        "option java_multiple_files = true;",
        f'option csharp_namespace = "Acme.{camel(service.name)}.V1";',
        "",
        f"// {service.proto_service} owns the {plural(service.entity)} of the {service.name} service.",
        f"service {service.proto_service} {{",
    ]
    for rpc, request, response, stream in service.methods:
        lines.append(f"  rpc {rpc}({request}) returns ({'stream ' if stream else ''}{response});")
    lines += [
        "}",
        "",
        f"message {e} {{",
        "  string id = 1;",
        "  string tenant_id = 2;",
        "  acme.common.v1.Money amount = 3;",
        "  int64 created_at_unix_ms = 4;",
        "  map<string, string> labels = 5;",
        "}",
        "",
        f"message {e}Event {{",
        f"  {e} {service.entity} = 1;",
        '  string kind = 2;  // "created", "updated", "deleted"',
        "}",
        "",
    ]
    for rpc, request, response, _ in service.methods:
        lines.append(f"message {request} {{")
        if rpc.startswith("List") or rpc.startswith("Watch"):
            lines += ["  string tenant_id = 1;", "  int32 page_size = 2;", "  string page_token = 3;"]
        elif rpc.startswith("Create"):
            lines += [f"  {e} {service.entity} = 1;", "  string request_id = 2;"]
        elif rpc.startswith("Update"):
            lines += [f"  {e} {service.entity} = 1;", "  repeated string update_mask = 2;"]
        else:
            lines += [f"  string {service.entity}_id = 1;"]
        lines += ["}", ""]
    es = camel(plural(service.entity))
    lines += [f"message List{es}Response {{", f"  repeated {e} {plural(service.entity)} = 1;",
              "  string next_page_token = 2;", "}", "", f"message Delete{e}Response {{", "  bool deleted = 1;", "}", ""]  # fmt: skip
    return "\n".join(lines)


COMMON_PROTO = """syntax = "proto3";

package acme.common.v1;

option go_package = "github.com/acme/protos/go/acme/common/v1;commonv1";
option java_package = "com.acme.common.v1";
option java_multiple_files = true;

// An amount of money in one currency, in minor units.
message Money {
  string currency_code = 1;
  int64 units = 2;
}

// One page of a listing.
message PageInfo {
  string next_page_token = 1;
  int32 total = 2;
}
"""


def compose_text(services: list[Service]) -> str:
    lines = ["# Every service of the platform, as the integration environment runs it.", "services:"]
    for service in services:
        lines += [
            f"  {service.name}:",
            f"    build: ./services/{service.name}",
            "    ports:",
            f'      - "{50051 + service.number}:50051"',
            "    environment:",
            f"      SERVICE_NAME: {service.name}",
            "      DATABASE_URL: postgres://app@postgres:5432/app",
            "      REDIS_ADDR: redis:6379",
        ]
        for callee in service.callees_grpc:
            lines.append(f"      {callee.env}_ADDR: {callee.name}:50051")
        assert service.callee_http is not None
        lines.append(f"      {service.callee_http.env}_URL: http://{service.callee_http.name}:8080")
        lines += ["    depends_on:", "      - postgres", "      - redis"]
    lines += [
        "  postgres:",
        "    image: postgres:16",
        "    environment:",
        "      POSTGRES_USER: app",
        "  redis:",
        "    image: redis:7",
        "",
    ]
    return "\n".join(lines)


def markdown_text(title: str, draw: Draw, target: int, service: Service | None = None) -> str:
    head = f"# {title}\n\n{draw.pick(SENTENCES)}\n\n"
    if service is not None:
        head += (
            f"The `{service.name}` service serves `{service.proto_package}.{service.proto_service}` "
            f"(see `{service.proto_path}`) and the HTTP routes under `{service.http_base}`.\n\n"
        )

    def blocks() -> Iterator[str]:
        number = 0
        while True:
            number += 1
            word = draw.pick(WORDS)
            yield (
                f"## {camel(word)} {number}\n\n{draw.pick(SENTENCES)} {draw.pick(SENTENCES)}\n\n"
                f"- `{draw.pick(VERBS)}_{word}` {draw.pick(SENTENCES).lower()}\n"
                f"- {draw.pick(SENTENCES)}\n\n```sh\nmake {draw.pick(VERBS)}-{word}\n```\n\n"
            )

    return _grow(head, blocks(), target)


# -- the platform libraries (hub modules) -------------------------------------------------------


def hub_files(language: str) -> Iterator[tuple[str, str]]:
    """The platform library of a language: its manifest and one module per hub."""
    if language == "python":
        root = "libs/python/acme-platform"
        yield f"{root}/pyproject.toml", '[project]\nname = "acme-platform"\nversion = "3.2.0"\nrequires-python = ">=3.11"\n'
        yield f"{root}/acme_platform/__init__.py", '"""The platform library every Python service imports."""\n'
        for hub in HUBS:
            yield f"{root}/acme_platform/{hub}.py", (
                f'"""The platform\'s {hub} helpers."""\n\nimport os\n\n\n'
                f"class {camel(hub)}Client:\n    def __init__(self, name):\n        self.name = name\n\n"
                f"    def get(self, key, default=None):\n        return os.environ.get(key, default)\n\n\n"
                f"def {hub}_for(name):\n    return {camel(hub)}Client(name)\n\n\n"
                f"def debug(message, *args):\n    return message % args if args else message\n"
            )
    elif language == "go":
        root = "libs/go/platform"
        yield f"{root}/go.mod", "module github.com/acme/platform\n\ngo 1.22\n"
        for hub in HUBS:
            yield f"{root}/{hub}/{hub}.go", (
                f"// Package {hub} is the platform's {hub} helper.\npackage {hub}\n\n"
                'import "context"\n\n'
                f"// Debug records a {hub} event.\nfunc Debug(ctx context.Context, msg string, args ...any) {{}}\n\n"
                f"// Get returns the {hub} value of key.\nfunc Get(key string, fallback int) int {{ return fallback }}\n"
            )
    elif language == "java":
        root = "libs/java/platform"
        yield f"{root}/pom.xml", _pom("platform", [])
        for hub in HUBS:
            yield f"{root}/src/main/java/com/acme/platform/{camel(hub)}.java", (
                "package com.acme.platform;\n\n"
                f"/** The platform's {hub} helper. */\npublic final class {camel(hub)} {{\n"
                f"    private {camel(hub)}() {{}}\n\n"
                "    public static void debug(String message, Object... args) {}\n\n"
                "    public static int get(String key, int fallback) { return fallback; }\n}\n"
            )
    elif language == "typescript":
        root = "libs/ts/platform"
        yield f"{root}/package.json", json.dumps(
            {"name": "@acme/platform", "version": "3.2.0", "main": "src/index.ts", "types": "src/index.ts"}, indent=2
        ) + "\n"
        yield f"{root}/src/index.ts", "".join(f'export * as {hub} from "./{hub}";\n' for hub in HUBS)
        for hub in HUBS:
            yield f"{root}/src/{hub}.ts", (
                f"/** The platform's {hub} helper. */\n"
                "export function debug(message: string, ...args: unknown[]): void {}\n\n"
                "export function get(key: string, fallback: number): number {\n  return fallback;\n}\n"
            )
    else:
        root = "libs/rust/acme-platform"
        yield f"{root}/Cargo.toml", '[package]\nname = "acme-platform"\nversion = "3.2.0"\nedition = "2021"\n'
        yield f"{root}/src/lib.rs", "//! The platform library every Rust service uses.\n\n" + "".join(
            f"pub mod {hub};\n" for hub in HUBS
        )
        for hub in HUBS:
            yield f"{root}/src/{hub}.rs", (
                f"//! The platform's {hub} helper.\n\n"
                "pub fn debug(message: &str) {\n    let _ = message;\n}\n\n"
                "pub fn get(key: &str, fallback: i64) -> i64 {\n    let _ = key;\n    fallback\n}\n"
            )


def _pom(artifact: str, extra: list[str]) -> str:
    deps = "".join(
        f"    <dependency>\n      <groupId>{group}</groupId>\n      <artifactId>{art}</artifactId>\n    </dependency>\n"
        for group, art in [("io.grpc", "grpc-stub"), ("io.grpc", "grpc-protobuf"), *[tuple(e.split(":")) for e in extra]]
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
        "  <modelVersion>4.0.0</modelVersion>\n  <groupId>com.acme</groupId>\n"
        f"  <artifactId>{artifact}</artifactId>\n  <version>1.0.0</version>\n  <dependencies>\n{deps}"
        "  </dependencies>\n</project>\n"
    )


#: per language: the locals a function body starts with, and the statements it is made of
#: ({w}: the parameter, {n}: a number, {s}: a sentence; {i}: one level of indentation)
BODIES = {
    "python": ("{i}items, total = [], 0\n", (
        "{i}# {s}\n",
        '{i}items.append(f"{{{w}}}-{{total}}")\n',
        "{i}total += len(str({w})) * {n}\n",
        "{i}if total > {n}:\n{i}    total -= limit\n",
        "{i}for index, entry in enumerate(items[:{n}]):\n{i}    total += index + len(entry)\n",
    )),
    "go": ("{i}items := []string{{}}\n{i}total := 0\n", (
        "{i}// {s}\n",
        '{i}items = append(items, fmt.Sprintf("%s-%d", {w}, total))\n',
        "{i}total += len({w}) * {n}\n",
        "{i}if total > {n} {{\n{i}\ttotal -= limit\n{i}}}\n",
        "{i}for index, entry := range items {{\n{i}\ttotal += index + len(entry)\n{i}}}\n",
    )),
    "java": ("{i}List<Object> items = new ArrayList<>();\n{i}long total = 0;\n", (
        "{i}// {s}\n",
        '{i}items.add({w} + "-" + total);\n',
        "{i}total += {w}.length() * {n}L;\n",
        "{i}if (total > {n}) {{\n{i}    total -= limit;\n{i}}}\n",
        "{i}for (Object entry : items) {{\n{i}    total += entry.toString().length() % {n};\n{i}}}\n",
    )),
    "typescript": ("{i}const items: unknown[] = [];\n{i}let total = 0;\n", (
        "{i}// {s}\n",
        "{i}items.push(`${{{w}}}-${{total}}`);\n",
        "{i}total += {w}.length * {n};\n",
        "{i}if (total > {n}) {{\n{i}  total -= limit;\n{i}}}\n",
        "{i}for (const entry of items) {{\n{i}  total += String(entry).length % {n};\n{i}}}\n",
    )),
    "rust": ("{i}let mut items: Vec<String> = Vec::new();\n{i}let mut total: i64 = 0;\n", (
        "{i}// {s}\n",
        '{i}items.push(format!("{{}}-{{}}", {w}, total));\n',
        "{i}total += {w}.len() as i64 * {n};\n",
        "{i}if total > {n} {{\n{i}    total -= limit;\n{i}}}\n",
        "{i}for entry in &items {{\n{i}    total += entry.len() as i64 % {n};\n{i}}}\n",
    )),
}  # fmt: skip

#: statements per function: MIN + a draw below SPREAD (Java and Rust spend more bytes on each signature)
STATEMENTS_MIN = {"python": 4, "go": 4, "typescript": 4, "java": 2, "rust": 2}
STATEMENTS_SPREAD = {"python": 20, "go": 20, "typescript": 20, "java": 12, "rust": 12}


def body(language: str, draw: Draw, word: str, indent: str) -> str:
    """The middle of a function: its locals, then statements (about 1.7 lines each), so that
    definitions are about as far apart as in real code (CPython's library: ~780 bytes of source per
    function or class; here ~600-1,000 depending on the language's own boilerplate)."""
    start, statements = BODIES[language]
    parts = [start.format(i=indent)]
    for _ in range(STATEMENTS_MIN[language] + draw.below(STATEMENTS_SPREAD[language])):
        template = draw.pick(statements)
        parts.append(template.format(i=indent, w=word, n=1 + draw.below(97), s=draw.pick(SENTENCES)))
    return "".join(parts)


# -- one service --------------------------------------------------------------------------------


class Module:
    """One ordinary code module of a service: its package, name and main symbol."""

    def __init__(self, package: str, name: str, test: bool) -> None:
        self.package = package
        self.name = name  # snake_case
        self.symbol = camel(name)  # its main class or type
        self.test = test


def plan_modules(service: Service, slots: int, seed: int) -> list[Module]:
    """``slots`` modules in packages of ~40; every tenth one a test of the module before it."""
    draw = Draw(seed, service.name, "modules")
    packages_n = max(1, slots // 40)
    packages: list[str] = []
    taken: set[str] = set()
    while len(packages) < packages_n:
        word = draw.pick(WORDS)
        name = word if word not in taken else f"{word}{len(packages)}"
        if name in ("config", "log", "errors", "test", "tests", "server", "clients", "httpapi", "main", "mod"):
            name = f"{name}x"
        if name not in taken:
            taken.add(name)
            packages.append(name)
    modules: list[Module] = []
    names: set[tuple[str, str]] = set()
    for number in range(slots):
        package = packages[number * packages_n // max(1, slots)]
        if number % 10 == 9 and modules and not modules[-1].test:
            modules.append(Module(modules[-1].package, modules[-1].name, True))
            continue
        name = f"{draw.pick(WORDS)}_{draw.pick(WORDS)}"
        while (package, name) in names or name.split("_")[0] == name.split("_")[1]:
            name = f"{draw.pick(WORDS)}_{draw.pick(WORDS)}{draw.below(100)}"
        names.add((package, name))
        modules.append(Module(package, name, False))
    return modules


def _fixed_python(s: Service) -> Iterator[tuple[str, str]]:
    pkg, root = s.py, s.root
    yield f"{root}/pyproject.toml", (
        f'[project]\nname = "{s.name}"\nversion = "1.0.0"\nrequires-python = ">=3.11"\n'
        'dependencies = ["grpcio>=1.62", "protobuf>=4.25", "fastapi>=0.110", "httpx>=0.27", "acme-platform"]\n\n'
        f'[project.scripts]\n{s.name} = "{pkg}.main:main"\n'
    )
    yield f"{root}/{pkg}/__init__.py", f'"""The {s.name} service."""\n'
    p, svc = s.ident, s.proto_service
    handlers = []
    for rpc, request, response, stream in s.methods:
        body = (f"        for item in self.store.scan(request.tenant_id):\n            yield {p}_pb2.{response}()\n"
                if stream else f"        log.debug(\"{rpc} %s\", request)\n        return {p}_pb2.{response}()\n")  # fmt: skip
        handlers.append(f"    def {rpc}(self, request, context):\n{body}\n")
    yield f"{root}/{pkg}/server.py", (
        f'"""Serves {s.proto_package}.{svc} over gRPC."""\n\nfrom concurrent import futures\n\nimport grpc\n'
        f"from acme.{p}.v1 import {p}_pb2, {p}_pb2_grpc\nfrom acme_platform import log\n\n\n"
        f"class {svc}Servicer({p}_pb2_grpc.{svc}Servicer):\n    def __init__(self, store):\n        self.store = store\n\n"
        + "".join(handlers)
        + "\ndef serve(store, listen=\"[::]:50051\"):\n"
        "    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))\n"
        f"    {p}_pb2_grpc.add_{svc}Servicer_to_server({svc}Servicer(store), server)\n"
        "    server.add_insecure_port(listen)\n    server.start()\n    return server\n"
    )
    for callee in s.callees_grpc:
        c, rpc, request = callee.ident, callee.methods[0][0], callee.methods[0][1]
        yield f"{root}/{pkg}/clients/{callee.py}.py", (
            f'"""Client of {callee.proto_package}.{callee.proto_service}."""\n\nimport os\n\nimport grpc\n'
            f"from acme.{c}.v1 import {c}_pb2, {c}_pb2_grpc\n\n"
            f'ADDR = os.environ.get("{callee.env}_ADDR", "{callee.name}:50051")\n\n\n'
            f"def {snake(rpc)}(item_id, timeout=3.0):\n"
            f"    stub = {c}_pb2_grpc.{callee.proto_service}Stub(grpc.insecure_channel(ADDR))\n"
            f"    return stub.{rpc}({c}_pb2.{request}({callee.entity}_id=item_id), timeout=timeout)\n"
        )
    yield f"{root}/{pkg}/clients/__init__.py", ""
    http = s.callee_http
    assert http is not None
    yield f"{root}/{pkg}/api.py", (
        f'"""The HTTP API of {s.name}."""\n\nimport os\n\nimport httpx\nfrom fastapi import APIRouter\n\n'
        f'router = APIRouter()\n{http.env}_URL = os.environ.get("{http.env}_URL", "http://{http.name}:8080")\n\n\n'
        f'@router.get("{s.http_base}/{{item_id}}")\nasync def get_{s.entity}(item_id: str):\n    return {{"id": item_id}}\n\n\n'
        f'@router.get("{s.http_base}")\nasync def list_{plural(s.entity)}():\n    return []\n\n\n'
        f'@router.post("{s.http_base}")\nasync def create_{s.entity}(body: dict):\n'
        f'    other = httpx.get(f"{{{http.env}_URL}}{http.http_base}/{{body[\'ref\']}}")\n'
        '    return {"id": body.get("id"), "ref": other.json()}\n'
    )
    yield f"{root}/{pkg}/main.py", (
        f'"""Entry point of {s.name}."""\n\nfrom .server import serve\n\n\n'
        "def main():\n    serve(None).wait_for_termination()\n\n\nif __name__ == \"__main__\":\n    main()\n"
    )


def _module_python(s: Service, m: Module, deps: list[Module], hubs: list[str], draw: Draw, target: int) -> tuple[str, str]:
    pkg = s.py
    if m.test:
        path = f"{s.root}/tests/{m.package}/test_{m.name}.py"
        head = f'"""Tests of {pkg}.{m.package}.{m.name}."""\n\nfrom {pkg}.{m.package}.{m.name} import {m.symbol}\n\n\n'
        blocks = (f"def test_{draw.pick(VERBS)}_{n}():\n    subject = {m.symbol}(None)\n"
                  f"    assert subject.{draw.pick(VERBS)}_{draw.pick(WORDS)}({n}) is not None\n\n\n" for n in range(10**6))  # fmt: skip
        return path, _grow(head, blocks, target)
    path = f"{s.root}/{pkg}/{m.package}/{m.name}.py"
    imports = ["from __future__ import annotations", "", "import os", ""]
    imports += [f"from acme_platform import {hub}" for hub in hubs]
    imports += [f"from {pkg}.{d.package}.{d.name} import {d.symbol}" if d.package != m.package
                else f"from .{d.name} import {d.symbol}" for d in deps]  # fmt: skip
    head = f'"""{camel(m.name)}: {draw.pick(SENTENCES)}"""\n\n' + "\n".join(imports) + "\n\n\n"
    head += f"class {m.symbol}:\n    \"\"\"{draw.pick(SENTENCES)}\"\"\"\n\n    def __init__(self, source):\n        self.source = source\n\n"
    uses = [f"{d.symbol}(self.source)" for d in deps] or ["None"]

    def blocks() -> Iterator[str]:
        for n in range(10**6):
            verb, word = draw.pick(VERBS), draw.pick(WORDS)
            hub = draw.pick(hubs)
            yield (
                f"    def {verb}_{word}(self, {word}, limit={draw.below(1000)}):\n"
                f'        """{draw.pick(SENTENCES)}"""\n'
                f'        {hub}.debug("{verb} {word} %s", {word})\n'
                f"        if {word} is None or limit < {n}:\n            return None\n"
                f"        helper = {draw.pick(uses)}\n"
                + body("python", draw, word, "        ")
                + f'        return [{word}, helper, items, total, os.environ.get("{word.upper()}_{n}", limit)]\n\n'
            )

    return path, _grow(head, blocks(), target)


def _fixed_go(s: Service) -> Iterator[tuple[str, str]]:
    root, mod = s.root, f"github.com/acme/{s.name}"
    yield f"{root}/go.mod", (
        f"module {mod}\n\ngo 1.22\n\nrequire (\n\tgithub.com/acme/platform v3.2.0\n\tgithub.com/acme/protos v0.9.0\n"
        "\tgoogle.golang.org/grpc v1.64.0\n\tgoogle.golang.org/protobuf v1.34.1\n)\n"
    )
    svc = s.proto_service
    handlers = []
    for rpc, request, response, stream in s.methods:
        if stream:
            handlers.append(f"func (s *Server) {rpc}(req *pb.{request}, stream pb.{svc}_{rpc}Server) error {{\n"
                            f"\tlog.Debug(stream.Context(), \"{rpc}\")\n\treturn stream.Send(&pb.{response}{{}})\n}}\n\n")  # fmt: skip
        else:
            handlers.append(f"func (s *Server) {rpc}(ctx context.Context, req *pb.{request}) (*pb.{response}, error) {{\n"
                            f"\tlog.Debug(ctx, \"{rpc}\")\n\treturn &pb.{response}{{}}, nil\n}}\n\n")  # fmt: skip
    yield f"{root}/internal/server/server.go", (
        f"// Package server implements {s.proto_package}.{svc}.\npackage server\n\nimport (\n\t\"context\"\n\n"
        f'\tpb "{s.go_package}"\n\t"google.golang.org/grpc"\n\n\t"github.com/acme/platform/log"\n)\n\n'
        f"// Server serves {svc}.\ntype Server struct {{\n\tpb.Unimplemented{svc}Server\n}}\n\n"
        f"// Register adds the service to s.\nfunc Register(g *grpc.Server) {{\n\tpb.Register{svc}Server(g, &Server{{}})\n}}\n\n"
        + "".join(handlers)
    )
    for callee in s.callees_grpc:
        c, rpc, request = callee.proto_service, callee.methods[0][0], callee.methods[0][1]
        yield f"{root}/internal/clients/{callee.py}.go", (
            f"package clients\n\nimport (\n\t\"context\"\n\t\"os\"\n\n\tpb \"{callee.go_package}\"\n"
            '\t"google.golang.org/grpc"\n\t"google.golang.org/grpc/credentials/insecure"\n)\n\n'
            f"// {rpc} asks {callee.name}.\nfunc {rpc}(ctx context.Context, id string) (*pb.{callee.methods[0][2]}, error) {{\n"
            f'\tconn, err := grpc.NewClient(os.Getenv("{callee.env}_ADDR"), grpc.WithTransportCredentials(insecure.NewCredentials()))\n'
            "\tif err != nil {\n\t\treturn nil, err\n\t}\n\tdefer conn.Close()\n"
            f"\tclient := pb.New{c}Client(conn)\n"
            f"\treturn client.{rpc}(ctx, &pb.{request}{{{camel(callee.entity)}Id: id}})\n}}\n"
        )
    http = s.callee_http
    assert http is not None
    yield f"{root}/internal/httpapi/routes.go", (
        "// Package httpapi serves the HTTP API.\npackage httpapi\n\nimport (\n\t\"net/http\"\n\t\"os\"\n)\n\n"
        "// Routes registers the handlers.\nfunc Routes(mux *http.ServeMux) {\n"
        f'\tmux.HandleFunc("GET {s.http_base}/{{id}}", get{s.entity_camel})\n'
        f'\tmux.HandleFunc("GET {s.http_base}", list{s.entity_camel})\n'
        f'\tmux.HandleFunc("POST {s.http_base}", create{s.entity_camel})\n}}\n\n'
        f"func get{s.entity_camel}(w http.ResponseWriter, r *http.Request) {{ w.WriteHeader(http.StatusOK) }}\n\n"
        f"func list{s.entity_camel}(w http.ResponseWriter, r *http.Request) {{ w.WriteHeader(http.StatusOK) }}\n\n"
        f"func create{s.entity_camel}(w http.ResponseWriter, r *http.Request) {{\n"
        f'\tresp, err := http.Get(os.Getenv("{http.env}_URL") + "{http.http_base}/" + r.URL.Query().Get("ref"))\n'
        "\tif err != nil {\n\t\tw.WriteHeader(http.StatusBadGateway)\n\t\treturn\n\t}\n\tdefer resp.Body.Close()\n"
        "\tw.WriteHeader(http.StatusCreated)\n}\n"
    )
    yield f"{root}/cmd/{s.name}/main.go", (
        "package main\n\nimport (\n\t\"net\"\n\t\"net/http\"\n\n\t\"google.golang.org/grpc\"\n\n"
        f'\t"{mod}/internal/httpapi"\n\t"{mod}/internal/server"\n)\n\n'
        "func main() {\n\tg := grpc.NewServer()\n\tserver.Register(g)\n\tlis, _ := net.Listen(\"tcp\", \":50051\")\n"
        "\tgo g.Serve(lis)\n\tmux := http.NewServeMux()\n\thttpapi.Routes(mux)\n\t_ = http.ListenAndServe(\":8080\", mux)\n}\n"
    )


def _module_go(s: Service, m: Module, deps: list[Module], hubs: list[str], draw: Draw, target: int) -> tuple[str, str]:
    mod = f"github.com/acme/{s.name}"
    if m.test:
        path = f"{s.root}/internal/{m.package}/{m.name}_test.go"
        head = f'package {m.package}\n\nimport "testing"\n\n'
        blocks = (f"func Test{m.symbol}{camel(draw.pick(VERBS))}{n}(t *testing.T) {{\n"
                  f"\tif got := New{m.symbol}(); got == nil {{\n"
                  "\t\tt.Fatal(\"nil\")\n\t}\n}\n\n" for n in range(10**6))  # fmt: skip
        return path, _grow(head, blocks, target)
    path = f"{s.root}/internal/{m.package}/{m.name}.go"
    other = sorted({d.package for d in deps if d.package != m.package})
    lines = ['\t"context"', '\t"fmt"', ""] + [f'\t"github.com/acme/platform/{hub}"' for hub in hubs]
    lines += [f'\t"{mod}/internal/{p}"' for p in other]
    head = (f"// Package {m.package}: {draw.pick(SENTENCES)}\npackage {m.package}\n\nimport (\n" + "\n".join(lines)
            + f"\n)\n\n// {m.symbol} {draw.pick(SENTENCES)}\ntype {m.symbol} struct {{\n\tName string\n\tLimit int\n}}\n\n"
            f"// New{m.symbol} returns an empty {m.symbol}.\nfunc New{m.symbol}() *{m.symbol} {{\n\treturn &{m.symbol}{{}}\n}}\n\n")  # fmt: skip
    uses = [f"{d.package}.{d.symbol}{{}}" if d.package != m.package else f"{d.symbol}{{}}" for d in deps]
    uses = uses or [f"{m.symbol}{{}}"]
    tail_uses = "".join(f"var _ = {u}\n" for u in uses) + "".join(f"var _ = {hub}.Get\n" for hub in hubs)

    def blocks() -> Iterator[str]:
        for n in range(10**6):
            verb, word = camel(draw.pick(VERBS)), draw.pick(WORDS)
            hub = draw.pick(hubs)
            yield (
                f"// {m.symbol}{verb} {draw.pick(SENTENCES)}\n"
                f"func {m.symbol}{verb}{n}(ctx context.Context, {word} string, limit int) string {{\n"
                f'\t{hub}.Debug(ctx, "{verb} {word}", {word})\n'
                f"\tif limit < {draw.below(1000)} {{\n\t\treturn \"\"\n\t}}\n"
                + body("go", draw, word, "\t")
                + f'\treturn fmt.Sprintf("%v/%s/%d/%d/%d", {draw.pick(uses)}, {word}, limit, total, len(items))\n}}\n\n'
            )

    return path, _grow(head, blocks(), target, tail_uses)


def _fixed_java(s: Service) -> Iterator[tuple[str, str]]:
    root = s.root
    base = f"{root}/src/main/java/com/acme/{s.ident}"
    svc = s.proto_service
    yield f"{root}/pom.xml", _pom(s.name, ["org.springframework.boot:spring-boot-starter-web", "com.acme:platform"])
    handlers = []
    for rpc, request, response, _ in s.methods:
        handlers.append(
            f"    @Override\n    public void {lower_camel(rpc)}({request} request, StreamObserver<{response}> responseObserver) {{\n"
            f'        Log.debug("{rpc} {{}}", request);\n        responseObserver.onNext({response}.getDefaultInstance());\n'
            "        responseObserver.onCompleted();\n    }\n\n"
        )
    imports = "".join(sorted({f"import {s.java_package}.{name};\n" for _, a, b, _ in s.methods for name in (a, b)}))
    yield f"{base}/grpc/{svc}Service.java", (
        f"package com.acme.{s.ident}.grpc;\n\nimport com.acme.platform.Log;\n{imports}"
        f"import {s.java_package}.{svc}Grpc;\nimport io.grpc.stub.StreamObserver;\n\n"
        f"/** Implements {s.proto_package}.{svc}. */\npublic class {svc}Service extends {svc}Grpc.{svc}ImplBase {{\n"
        + "".join(handlers) + "}\n"
    )
    for callee in s.callees_grpc:
        c, rpc, request = callee.proto_service, callee.methods[0][0], callee.methods[0][1]
        yield f"{base}/clients/{c}Client.java", (
            f"package com.acme.{s.ident}.clients;\n\nimport {callee.java_package}.{c}Grpc;\n"
            f"import {callee.java_package}.{request};\nimport {callee.java_package}.{callee.methods[0][2]};\n"
            "import io.grpc.ManagedChannel;\nimport io.grpc.ManagedChannelBuilder;\n\n"
            f"/** Asks {callee.name}. */\npublic class {c}Client {{\n    private final {c}Grpc.{c}BlockingStub stub;\n\n"
            f"    public {c}Client() {{\n        ManagedChannel channel = ManagedChannelBuilder.forTarget(System.getenv(\"{callee.env}_ADDR\")).usePlaintext().build();\n"
            f"        this.stub = {c}Grpc.newBlockingStub(channel);\n    }}\n\n"
            f"    public {callee.methods[0][2]} {lower_camel(rpc)}(String id) {{\n"
            f"        return stub.{lower_camel(rpc)}({request}.newBuilder().set{camel(callee.entity)}Id(id).build());\n    }}\n}}\n"
        )
    http = s.callee_http
    assert http is not None
    e = s.entity_camel
    yield f"{base}/web/{e}Controller.java", (
        f"package com.acme.{s.ident}.web;\n\nimport java.util.List;\nimport java.util.Map;\n"
        "import org.springframework.web.bind.annotation.*;\nimport org.springframework.web.client.RestTemplate;\n\n"
        f'@RestController\n@RequestMapping("{s.http_base}")\npublic class {e}Controller {{\n'
        "    private final RestTemplate rest = new RestTemplate();\n"
        f'    private final String {lower_camel(http.name)}Url = System.getenv("{http.env}_URL");\n\n'
        f'    @GetMapping("/{{id}}")\n    public Map<String, String> get(@PathVariable String id) {{\n        return Map.of("id", id);\n    }}\n\n'
        "    @GetMapping\n    public List<String> list() {\n        return List.of();\n    }\n\n"
        "    @PostMapping\n    public Map<String, Object> create(@RequestBody Map<String, String> body) {\n"
        f'        Object ref = rest.getForObject({lower_camel(http.name)}Url + "{http.http_base}/" + body.get("ref"), Map.class);\n'
        '        return Map.of("ref", ref);\n    }\n}\n'
    )
    yield f"{base}/Application.java", (
        f"package com.acme.{s.ident};\n\nimport org.springframework.boot.SpringApplication;\n"
        "import org.springframework.boot.autoconfigure.SpringBootApplication;\n\n@SpringBootApplication\n"
        "public class Application {\n    public static void main(String[] args) {\n"
        "        SpringApplication.run(Application.class, args);\n    }\n}\n"
    )


def _module_java(s: Service, m: Module, deps: list[Module], hubs: list[str], draw: Draw, target: int) -> tuple[str, str]:
    package = f"com.acme.{s.ident}.{m.package}"
    if m.test:
        path = f"{s.root}/src/test/java/com/acme/{s.ident}/{m.package}/{m.symbol}Test.java"
        head = (f"package {package};\n\nimport static org.junit.jupiter.api.Assertions.assertNotNull;\n\n"
                f"import org.junit.jupiter.api.Test;\n\nclass {m.symbol}Test {{\n")  # fmt: skip
        blocks = (f"    @Test\n    void {draw.pick(VERBS)}{n}() {{\n        assertNotNull(new {m.symbol}(\"{draw.pick(WORDS)}\"));\n    }}\n\n"
                  for n in range(10**6))  # fmt: skip
        return path, _grow(head, blocks, target, "}\n")
    path = f"{s.root}/src/main/java/com/acme/{s.ident}/{m.package}/{m.symbol}.java"
    imports = [f"import com.acme.platform.{camel(hub)};" for hub in hubs]
    imports += [f"import com.acme.{s.ident}.{d.package}.{d.symbol};" for d in deps if d.package != m.package]
    head = (f"package {package};\n\n" + "\n".join(imports) + "\nimport java.util.ArrayList;\nimport java.util.List;\n\n"
            f"/** {draw.pick(SENTENCES)} */\npublic class {m.symbol} {{\n    private final String source;\n\n"
            f"    public {m.symbol}(String source) {{\n        this.source = source;\n    }}\n\n")  # fmt: skip
    uses = [f'new {d.symbol}("{d.name}")' for d in deps] or ["this"]

    def blocks() -> Iterator[str]:
        for n in range(10**6):
            verb, word = draw.pick(VERBS), draw.pick(WORDS)
            hub = camel(draw.pick(hubs))
            yield (
                f"    /** {draw.pick(SENTENCES)} */\n"
                f"    public List<Object> {verb}{camel(word)}{n}(String {word}, int limit) {{\n"
                f'        {hub}.debug("{verb} {word} {{}}", {word});\n'
                f"        if (limit < {draw.below(1000)}) {{\n            return List.of();\n        }}\n"
                + body("java", draw, word, "        ")
                + f"        return List.of({word}, {draw.pick(uses)}, source, items, total);\n    }}\n\n"
            )

    return path, _grow(head, blocks(), target, "}\n")


def _fixed_typescript(s: Service) -> Iterator[tuple[str, str]]:
    root = s.root
    yield f"{root}/package.json", json.dumps({
        "name": f"@acme/{s.name}", "version": "1.0.0", "private": True, "main": "dist/index.js",
        "scripts": {"build": "tsc -p .", "test": "vitest run"},
        "dependencies": {"@acme/platform": "3.2.0", "@grpc/grpc-js": "^1.10.8", "express": "^4.19.2"},
        "devDependencies": {"grpc-tools": "^1.12.4", "typescript": "^5.4.5", "vitest": "^1.6.0"},
    }, indent=2) + "\n"  # fmt: skip
    yield f"{root}/tsconfig.json", json.dumps({"compilerOptions": {"target": "ES2022", "module": "commonjs",
        "strict": True, "outDir": "dist", "rootDir": "src"}, "include": ["src"]}, indent=2) + "\n"  # fmt: skip
    svc, p = s.proto_service, s.ident
    handlers = "".join(
        f"  {lower_camel(rpc)}(call: grpc.{'ServerWritableStream' if stream else 'ServerUnaryCall'}<pb.{req}, pb.{resp}>"
        + ("" if stream else f", callback: grpc.sendUnaryData<pb.{resp}>")
        + f"): void {{\n    log.debug(\"{rpc}\");\n    "
        + ("call.end();" if stream else f"callback(null, new pb.{resp}());")
        + "\n  }\n\n"
        for rpc, req, resp, stream in s.methods
    )
    yield f"{root}/src/server.ts", (
        'import * as grpc from "@grpc/grpc-js";\nimport { log } from "@acme/platform";\n\n'
        f'import {{ {svc}Service, I{svc}Server }} from "./gen/acme/{p}/v1/{p}_grpc_pb";\n'
        f'import * as pb from "./gen/acme/{p}/v1/{p}_pb";\n\n'
        f"/** Implements {s.proto_package}.{svc}. */\nexport class {svc}Impl implements I{svc}Server {{\n"
        "  [name: string]: grpc.UntypedHandleCall;\n\n" + handlers + "}\n\n"
        "export function serve(): grpc.Server {\n  const server = new grpc.Server();\n"
        f"  server.addService({svc}Service, new {svc}Impl());\n  return server;\n}}\n"
    )
    for callee in s.callees_grpc:
        c, q, rpc, request = callee.proto_service, callee.ident, callee.methods[0][0], callee.methods[0][1]
        yield f"{root}/src/clients/{callee.py}.ts", (
            'import * as grpc from "@grpc/grpc-js";\n\n'
            f'import {{ {c}Client }} from "../gen/acme/{q}/v1/{q}_grpc_pb";\n'
            f'import {{ {request} }} from "../gen/acme/{q}/v1/{q}_pb";\n\n'
            f'const client = new {c}Client(process.env.{callee.env}_ADDR ?? "{callee.name}:50051", grpc.credentials.createInsecure());\n\n'
            f"export function {lower_camel(rpc)}(id: string): Promise<unknown> {{\n"
            f"  const request = new {request}();\n  request.set{camel(callee.entity)}Id(id);\n"
            f"  return new Promise((resolve, reject) => {{\n    client.{lower_camel(rpc)}(request, (err, reply) => (err ? reject(err) : resolve(reply)));\n  }});\n}}\n"
        )
    http = s.callee_http
    assert http is not None
    yield f"{root}/src/routes.ts", (
        'import { Request, Response, Router } from "express";\n\n'
        f'const {lower_camel(http.name)}Url = process.env.{http.env}_URL ?? "http://{http.name}:8080";\n\n'
        "export function routes(): Router {\n  const router = Router();\n"
        f'  router.get("{s.http_base}/:id", (req: Request, res: Response) => {{\n    res.json({{ id: req.params.id }});\n  }});\n'
        f'  router.get("{s.http_base}", (_req: Request, res: Response) => {{\n    res.json([]);\n  }});\n'
        f'  router.post("{s.http_base}", async (req: Request, res: Response) => {{\n'
        f"    const other = await fetch(`${{{lower_camel(http.name)}Url}}{http.http_base}/${{req.body.ref}}`);\n"
        "    res.status(201).json(await other.json());\n  });\n  return router;\n}\n"
    )
    yield f"{root}/src/index.ts", (
        'import express from "express";\nimport * as grpc from "@grpc/grpc-js";\n\n'
        'import { routes } from "./routes";\nimport { serve } from "./server";\n\n'
        "const app = express();\napp.use(express.json());\napp.use(routes());\napp.listen(8080);\n"
        'serve().bindAsync("0.0.0.0:50051", grpc.ServerCredentials.createInsecure(), () => undefined);\n'
    )


def _module_typescript(s: Service, m: Module, deps: list[Module], hubs: list[str], draw: Draw, target: int) -> tuple[str, str]:
    if m.test:
        path = f"{s.root}/test/{m.package}/{m.name}.test.ts"
        head = (f'import {{ describe, expect, it }} from "vitest";\n\nimport {{ {m.symbol} }} from "../../src/{m.package}/{m.name}";\n\n'
                f'describe("{m.symbol}", () => {{\n')  # fmt: skip
        blocks = (f'  it("{draw.pick(VERBS)}s {draw.pick(WORDS)} {n}", () => {{\n    expect(new {m.symbol}("{n}")).toBeDefined();\n  }});\n\n'
                  for n in range(10**6))  # fmt: skip
        return path, _grow(head, blocks, target, "});\n")
    path = f"{s.root}/src/{m.package}/{m.name}.ts"
    imports = [f'import {{ {", ".join(hubs)} }} from "@acme/platform";']
    imports += [f'import {{ {d.symbol} }} from "{"./" if d.package == m.package else "../" + d.package + "/"}{d.name}";' for d in deps]
    head = ("\n".join(imports) + f"\n\n/** {draw.pick(SENTENCES)} */\nexport class {m.symbol} {{\n"
            "  constructor(private readonly source: string) {}\n\n")  # fmt: skip
    uses = [f'new {d.symbol}("{d.name}")' for d in deps] or ["this"]

    def blocks() -> Iterator[str]:
        for n in range(10**6):
            verb, word = draw.pick(VERBS), draw.pick(WORDS)
            yield (
                f"  /** {draw.pick(SENTENCES)} */\n"
                f"  {verb}{camel(word)}{n}({word}: string, limit = {draw.below(1000)}): unknown[] {{\n"
                f'    {draw.pick(hubs)}.debug("{verb} {word}", {word});\n'
                f"    if (limit < {n}) {{\n      return [];\n    }}\n"
                + body("typescript", draw, word, "    ")
                + f"    return [{word}, {draw.pick(uses)}, this.source, items, total];\n  }}\n\n"
            )

    return path, _grow(head, blocks(), target, "}\n")


def _fixed_rust(s: Service, packages: list[str]) -> Iterator[tuple[str, str]]:
    root = s.root
    yield f"{root}/Cargo.toml", (
        f'[package]\nname = "{s.name}"\nversion = "1.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\n'
        'acme-platform = { path = "../../libs/rust/acme-platform" }\naxum = "0.7"\nprost = "0.13"\nreqwest = "0.12"\n'
        'tokio = { version = "1.38", features = ["macros", "rt-multi-thread"] }\ntonic = "0.12"\n\n'
        '[build-dependencies]\ntonic-build = "0.12"\n'
    )
    protos = [s, *s.callees_grpc]
    yield f"{root}/build.rs", "fn main() -> Result<(), Box<dyn std::error::Error>> {\n" + "".join(
        f'    tonic_build::compile_protos("../../{p.proto_path}")?;\n' for p in protos
    ) + "    Ok(())\n}\n"
    yield f"{root}/src/pb.rs", "//! The generated messages, clients and servers.\n\npub mod acme {\n" + "".join(
        f"    pub mod {p.ident} {{\n        pub mod v1 {{\n            tonic::include_proto!(\"{p.proto_package}\");\n        }}\n    }}\n"
        for p in sorted(protos, key=lambda p: p.ident)
    ) + "}\n"
    svc, p = s.proto_service, s.ident
    trait = f"{snake(svc)}_server"
    handlers = []
    for rpc, request, response, stream in s.methods:
        if stream:
            handlers.append(
                f"    type {rpc}Stream = tokio_stream::wrappers::ReceiverStream<Result<{response}, Status>>;\n\n"
                f"    async fn {snake(rpc)}(&self, request: Request<{request}>) -> Result<Response<Self::{rpc}Stream>, Status> {{\n"
                f'        log::debug("{rpc}");\n        let (_tx, rx) = tokio::sync::mpsc::channel(4);\n'
                "        let _ = request;\n        Ok(Response::new(tokio_stream::wrappers::ReceiverStream::new(rx)))\n    }\n\n"
            )
        else:
            handlers.append(
                f"    async fn {snake(rpc)}(&self, request: Request<{request}>) -> Result<Response<{response}>, Status> {{\n"
                f'        log::debug("{rpc}");\n        let _ = request;\n        Ok(Response::new({response}::default()))\n    }}\n\n'
            )
    names = ", ".join(sorted({n for _, a, b, _ in s.methods for n in (a, b)}))
    yield f"{root}/src/server.rs", (
        f"//! Serves {s.proto_package}.{svc}.\n\nuse acme_platform::log;\nuse tonic::{{Request, Response, Status}};\n\n"
        f"use crate::pb::acme::{p}::v1::{trait}::{{{svc}, {svc}Server}};\nuse crate::pb::acme::{p}::v1::{{{names}}};\n\n"
        f"#[derive(Default)]\npub struct {svc}Service;\n\n#[tonic::async_trait]\nimpl {svc} for {svc}Service {{\n"
        + "".join(handlers) + "}\n\n"
        f"pub fn service() -> {svc}Server<{svc}Service> {{\n    {svc}Server::new({svc}Service::default())\n}}\n"
    )
    for callee in s.callees_grpc:
        c, q, rpc, request = callee.proto_service, callee.ident, callee.methods[0][0], callee.methods[0][1]
        yield f"{root}/src/clients/{callee.py}.rs", (
            f"//! Asks {callee.name}.\n\nuse tonic::transport::Channel;\n\n"
            f"use crate::pb::acme::{q}::v1::{snake(c)}_client::{c}Client;\nuse crate::pb::acme::{q}::v1::{request};\n\n"
            f"pub async fn {snake(rpc)}(id: String) -> Result<(), Box<dyn std::error::Error>> {{\n"
            f'    let addr = std::env::var("{callee.env}_ADDR")?;\n'
            f"    let mut client: {c}Client<Channel> = {c}Client::connect(format!(\"http://{{addr}}\")).await?;\n"
            f"    client.{snake(rpc)}({request} {{ {callee.entity}_id: id }}).await?;\n    Ok(())\n}}\n"
        )
    yield f"{root}/src/clients/mod.rs", "".join(f"pub mod {c.py};\n" for c in s.callees_grpc)
    http = s.callee_http
    assert http is not None
    yield f"{root}/src/routes.rs", (
        "//! The HTTP API.\n\nuse axum::extract::Path;\nuse axum::routing::get;\nuse axum::{Json, Router};\n\n"
        "pub fn router() -> Router {\n    Router::new()\n"
        f'        .route("{s.http_base}/:id", get(get_{s.entity}))\n'
        f'        .route("{s.http_base}", get(list_{plural(s.entity)}).post(create_{s.entity}))\n}}\n\n'
        f"async fn get_{s.entity}(Path(id): Path<String>) -> Json<String> {{\n    Json(id)\n}}\n\n"
        f"async fn list_{plural(s.entity)}() -> Json<Vec<String>> {{\n    Json(Vec::new())\n}}\n\n"
        f"async fn create_{s.entity}(Json(body): Json<String>) -> Json<String> {{\n"
        f'    let base = std::env::var("{http.env}_URL").unwrap_or_default();\n'
        f'    let other = reqwest::get(format!("{{base}}{http.http_base}/{{body}}")).await.ok();\n'
        "    Json(format!(\"{other:?}\"))\n}\n"
    )
    yield f"{root}/src/main.rs", (
        "mod clients;\nmod pb;\nmod routes;\nmod server;\n" + "".join(f"mod {pkg};\n" for pkg in packages)
        + "\n#[tokio::main]\nasync fn main() -> Result<(), Box<dyn std::error::Error>> {\n"
        "    let grpc = tonic::transport::Server::builder().add_service(server::service());\n"
        "    tokio::spawn(grpc.serve(\"0.0.0.0:50051\".parse()?));\n"
        '    let listener = tokio::net::TcpListener::bind("0.0.0.0:8080").await?;\n'
        "    axum::serve(listener, routes::router()).await?;\n    Ok(())\n}\n"
    )


def _module_rust(s: Service, m: Module, deps: list[Module], hubs: list[str], draw: Draw, target: int) -> tuple[str, str]:
    if m.test:
        path = f"{s.root}/tests/{m.package}_{m.name}.rs"
        head = f"//! Tests of {m.package}::{m.name}.\n\n"
        blocks = (f"#[test]\nfn {draw.pick(VERBS)}_{draw.pick(WORDS)}_{n}() {{\n    assert_eq!({n} + 1, {n + 1});\n}}\n\n"
                  for n in range(10**6))  # fmt: skip
        return path, _grow(head, blocks, target)
    path = f"{s.root}/src/{m.package}/{m.name}.rs"
    imports = [f"use acme_platform::{hub};" for hub in hubs]
    imports += [f"use crate::{d.package}::{d.name}::{d.symbol};" for d in deps]
    head = (f"//! {draw.pick(SENTENCES)}\n\n" + "\n".join(imports)
            + f"\n\n/// {draw.pick(SENTENCES)}\n#[derive(Debug, Default, Clone)]\npub struct {m.symbol} {{\n"
            f"    pub source: String,\n}}\n\nimpl {m.symbol} {{\n")  # fmt: skip
    uses = [f"{d.symbol}::default()" for d in deps] or ["Self::default()"]

    def blocks() -> Iterator[str]:
        for n in range(10**6):
            verb, word = draw.pick(VERBS), draw.pick(WORDS)
            yield (
                f"    /// {draw.pick(SENTENCES)}\n"
                f"    pub fn {verb}_{word}_{n}(&self, {word}: &str, limit: i64) -> Option<String> {{\n"
                f'        {draw.pick(hubs)}::debug("{verb} {word}");\n'
                f"        if limit < {draw.below(1000)} {{\n            return None;\n        }}\n"
                + body("rust", draw, word, "        ")
                + f'        Some(format!("{{:?}}/{{}}/{{}}/{{}}/{{}}", {draw.pick(uses)}, {word}, self.source, total, items.len()))\n    }}\n\n'
            )

    return path, _grow(head, blocks(), target, "}\n")


MODULE_WRITERS = {
    "python": _module_python, "go": _module_go, "java": _module_java, "typescript": _module_typescript,
    "rust": _module_rust,
}  # fmt: skip

DOCKERFILES = {
    "python": "FROM python:3.12-slim\nWORKDIR /app\nCOPY . .\nRUN pip install .\nCMD [\"{name}\"]\n",
    "go": "FROM golang:1.22 AS build\nWORKDIR /src\nCOPY . .\nRUN go build -o /out/{name} ./cmd/{name}\n\nFROM gcr.io/distroless/base\nCOPY --from=build /out/{name} /{name}\nCMD [\"/{name}\"]\n",
    "java": "FROM maven:3.9-eclipse-temurin-21 AS build\nWORKDIR /src\nCOPY . .\nRUN mvn -q package\n\nFROM eclipse-temurin:21-jre\nCOPY --from=build /src/target/*.jar /app.jar\nCMD [\"java\", \"-jar\", \"/app.jar\"]\n",
    "typescript": "FROM node:20-slim\nWORKDIR /app\nCOPY . .\nRUN npm ci && npm run build\nCMD [\"node\", \"dist/index.js\"]\n",
    "rust": "FROM rust:1.79 AS build\nWORKDIR /src\nCOPY . .\nRUN cargo build --release\n\nFROM debian:bookworm-slim\nCOPY --from=build /src/target/release/{name} /{name}\nCMD [\"/{name}\"]\n",
}  # fmt: skip


def service_files(service: Service, budget: int, seed: int) -> Iterator[tuple[str, str]]:
    """Every file of one service: exactly ``budget`` of them (fixed ones first, then modules)."""
    s = service
    docs_n = max(1, budget // 80)
    fixed_guess = {"python": 8, "go": 5, "java": 5, "typescript": 6, "rust": 8}[s.language] + len(s.callees_grpc)
    slots = max(0, budget - 2 - docs_n - fixed_guess)  # 2: Dockerfile, README.md
    # packages need a file of their own in Python (__init__.py) and Rust (mod.rs)
    per_package = 41 if s.language in ("python", "rust") else 40
    packages_n = max(1, slots // per_package) if s.language in ("python", "rust") else 0
    modules = plan_modules(s, slots - packages_n, seed)
    packages = sorted({m.package for m in modules})
    fixed = list(_fixed_rust(s, packages) if s.language == "rust" else
                 {"python": _fixed_python, "go": _fixed_go, "java": _fixed_java, "typescript": _fixed_typescript}[s.language](s))  # fmt: skip
    draw = Draw(seed, s.name, "docs")
    files: list[tuple[str, str]] = [
        (f"{s.root}/Dockerfile", DOCKERFILES[s.language].format(name=s.name)),
        (f"{s.root}/README.md", markdown_text(s.name, draw, 2500, s)),
    ]
    yield from files
    yield from fixed
    for number in range(docs_n):
        topic = f"{draw.pick(WORDS)}-{number}"
        yield f"{s.root}/docs/{topic}.md", markdown_text(camel(topic), draw, 1500 + draw.below(5000), s)
    if s.language == "python":
        for package in packages:
            yield f"{s.root}/{s.py}/{package}/__init__.py", f'"""The {package} package of {s.name}."""\n'
    elif s.language == "rust":
        for package in packages:
            names = sorted({m.name for m in modules if m.package == package and not m.test})
            yield f"{s.root}/src/{package}/mod.rs", "".join(f"pub mod {name};\n" for name in names)
    written = len(files) + len(fixed) + docs_n + (len(packages) if s.language in ("python", "rust") else 0)
    writer = MODULE_WRITERS[s.language]
    code = [m for m in modules if not m.test]
    remaining = budget - written
    for number, module in enumerate(modules[: max(0, remaining)]):
        draw = Draw(seed, s.name, module.package, module.name, module.test)
        deps: list[Module] = []
        if not module.test:
            for _ in range(1 + draw.below(3)):
                dep = code[draw.below(len(code))]
                if dep is not module and dep not in deps and (s.language != "go" or dep.package != module.package):
                    deps.append(dep)
        hubs = [hub for hub in HUBS if draw.chance(HUB_SHARE[hub])] or ["log"]
        yield writer(s, module, deps, hubs, draw, draw.lognormal_bytes())
        written += 1
    filler = 0
    while written < budget:  # few fixed files: top up with docs so that the count is exact
        yield f"{s.root}/docs/notes-{filler}.md", markdown_text(f"Notes {filler}", draw, 1200, s)
        filler += 1
        written += 1


def generate(out: Path, files: int, seed: int, *, progress: bool = False) -> dict:
    """Write the workspace of ``files`` files for ``seed`` under ``out`` (which must not exist or be
    empty); returns a summary with the sha256 of every (path, bytes) in path order."""
    if files < 200:
        raise ValueError(f"--files must be at least 200 (got {files}): each service needs room for its fixed files")
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"{out} is not empty: generate into a new folder")
    out.mkdir(parents=True, exist_ok=True)
    services = plan_services(files, seed)
    started = time.monotonic()
    total_bytes = 0
    written = 0
    global_files: list[tuple[str, str]] = [
        ("docker-compose.yml", compose_text(services)),
        ("README.md", "# The acme platform\n\n" + "".join(
            f"- `{s.name}` ({s.language}): {plural(s.entity)}, `{s.proto_package}.{s.proto_service}`\n" for s in services)),
        (COMMON_PROTO_PATH, COMMON_PROTO),
    ]  # fmt: skip
    for language in LANGUAGES:
        global_files += list(hub_files(language))
    global_files += [(s.proto_path, proto_text(s)) for s in services]
    draw = Draw(seed, "docs")
    root_docs = max(2, files // 5000)
    global_files += [(f"docs/{draw.pick(WORDS)}-{n}.md", markdown_text(f"Platform {n}", draw, 3000 + draw.below(6000)))
                     for n in range(root_docs)]  # fmt: skip
    for path, text in global_files:
        total_bytes += write_file(out, path, text)
        written += 1
    budget = files - written
    if budget < 60 * len(services):
        raise ValueError(f"--files {files} leaves too few files per service")
    for number, service in enumerate(services):
        share = budget // len(services) + (1 if number < budget % len(services) else 0)
        for path, text in service_files(service, share, seed):
            total_bytes += write_file(out, path, text)
            written += 1
        if progress and (number % 10 == 9 or number == len(services) - 1):
            print(f"  {written:,}/{files:,} files, {total_bytes / 1e6:,.0f} MB, "
                  f"{time.monotonic() - started:.0f} s", file=sys.stderr)  # fmt: skip
    return {
        "files": written,
        "bytes": total_bytes,
        "services": [{"name": s.name, "language": s.language, "proto": s.proto_path,
                      "grpc": f"{s.proto_package}.{s.proto_service}"} for s in services],  # fmt: skip
        "seconds": time.monotonic() - started,
    }


COMMON_PROTO_PATH = "proto/acme/common/v1/common.proto"


def tree_digest(root: Path) -> str:
    """sha256 over every file's relative path and bytes, in path order (the tree's identity)."""
    digest = hashlib.sha256()
    paths = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in names:
            paths.append(os.path.relpath(os.path.join(folder, name), root))
    for rel in sorted(paths):
        digest.update(rel.encode() + b"\0")
        digest.update(hashlib.sha256((root / rel).read_bytes()).digest())
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, required=True, help="how many files to write (at least 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--digest", action="store_true", help="print the tree's sha256 at the end")
    parser.add_argument("out", type=Path, help="a new (or empty) folder")
    args = parser.parse_args(argv)
    try:
        summary = generate(args.out, args.files, args.seed, progress=True)
    except ValueError as error:
        print(f"gen_workspace: {error}", file=sys.stderr)
        return 2
    print(f"wrote {summary['files']:,} files, {summary['bytes'] / 1e6:,.1f} MB, {len(summary['services'])} services "
          f"in {summary['seconds']:.1f} s to {args.out}", file=sys.stderr)  # fmt: skip
    if args.digest:
        print(tree_digest(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
