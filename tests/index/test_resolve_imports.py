"""Imports resolved as each language's own tools resolve them (issue 11, item 4).

TypeScript and JavaScript through tsconfig.json/jsconfig.json and package.json, Java and Kotlin
imports of the classes protoc generates, Go imports of generated packages, C# namespaces of
generated code: each to the file (or ``.proto``) it names.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest

from mesh.index import Index, Store
from mesh.index.build._resolve import _best_key, _camel, _jsonc

from .test_enumerate import make


def index_of(root: Path, cache: Path) -> Index:
    index = Index(root, cache)
    index.refresh()
    return index


def targets(index: Index, importer: str) -> dict[str, str | None]:
    """module -> the file or folder it resolved to, for every import of ``importer``."""
    with index.store.snapshot() as db:
        rows = db.execute(
            "SELECT i.module, i.target_path FROM imports i JOIN files f ON f.id = i.file_id WHERE f.path = ?",
            (importer,),
        ).fetchall()
    assert rows, f"{importer} has no imports"
    return dict(rows)


def resolved(tmp_path: Path, files: dict[str, str], importer: str) -> dict[str, str | None]:
    root = tmp_path / "ws"
    make(root, files)
    return targets(index_of(root, tmp_path / "cache"), importer)


# -- TypeScript and JavaScript --------------------------------------------------------------------

WEB = {
    "web/package.json": '{"name": "web", "private": true}\n',
    "web/src/gateways/Api.ts": "export const api = 1;\n",
    "web/src/lib/format.ts": "export const f = 1;\n",
    "web/src/lib/index.ts": "export * from './format';\n",
    "web/src/shared/legacy.js": "module.exports = {};\n",
}


def test_tsconfig_paths_aliases_with_comments_and_trailing_commas(tmp_path: Path) -> None:
    files = {
        **WEB,
        "web/tsconfig.json": """{
          // comments, trailing commas and a "//" inside a string are all allowed
          "compilerOptions": {
            "baseUrl": ".",
            /* the aliases */
            "paths": {
              "@/*": ["src/*",],
              "@lib": ["src/lib",],
              "@lib/*": ["src/lib/*"],
              "~docs/*": ["http://example.com//*"],
            },
          },
        }""",
        "web/src/app.ts": (
            'import { api } from "@/gateways/Api";\n'
            'import { f } from "@lib";\n'
            'import { g } from "@lib/format";\n'
            'import { h } from "@/shared/legacy";\n'
            'import express from "express";\n'
        ),
    }
    assert resolved(tmp_path, files, "web/src/app.ts") == {
        "@/gateways/Api": "web/src/gateways/Api.ts",
        "@lib": "web/src/lib/index.ts",  # the exact key wins over the pattern, a folder is its index
        "@lib/format": "web/src/lib/format.ts",  # the longest prefix wins over "@/*"... which would not match
        "@/shared/legacy": "web/src/shared/legacy.js",
        "express": None,
    }


def test_paths_without_base_url_are_relative_to_the_config_that_sets_them_and_fall_back_in_order(
    tmp_path: Path,
) -> None:
    files = {
        **WEB,
        "tsconfig.base.json": '{"compilerOptions": {"paths": {"#gw/*": ["web/missing/*", "web/src/gateways/*"]}}}',
        "web/tsconfig.json": '{"extends": "../tsconfig.base", "compilerOptions": {"strict": true}}',
        "web/src/app.ts": 'import { api } from "#gw/Api";\n',
    }
    # ``extends`` without ``.json``; the base's paths are relative to the base's folder (the root);
    # the first substitution names no file, the second does
    assert resolved(tmp_path, files, "web/src/app.ts") == {"#gw/Api": "web/src/gateways/Api.ts"}


def test_extends_chains_merge_base_url_and_paths_the_nearer_config_winning(tmp_path: Path) -> None:
    files = {
        **WEB,
        "configs/tsconfig.root.json": json.dumps(
            {"compilerOptions": {"baseUrl": "../web/src", "paths": {"@x/*": ["nowhere/*"]}}}
        ),
        "configs/tsconfig.mid.json": json.dumps(
            {"extends": "./tsconfig.root.json", "compilerOptions": {"paths": {"@/*": ["*"]}}}
        ),
        "web/tsconfig.json": '{"extends": ["../configs/tsconfig.mid.json"]}',
        "web/src/app.ts": 'import "@/gateways/Api";\nimport "lib/format";\nimport "@x/lib/format";\n',
    }
    # paths come from the mid config, relative to the root config's baseUrl; baseUrl alone also works
    assert resolved(tmp_path, files, "web/src/app.ts") == {
        "@/gateways/Api": "web/src/gateways/Api.ts",
        "lib/format": "web/src/lib/format.ts",
        "@x/lib/format": None,  # the mid config's paths replace the root's
    }


def test_base_url_alone_and_jsconfig_for_javascript(tmp_path: Path) -> None:
    files = {
        "js/jsconfig.json": '{"compilerOptions": {"baseUrl": "src"}}',
        "js/src/util/dates.js": "export const d = 1;\n",
        "js/src/main.js": 'import { d } from "util/dates";\nconst fs = require("node:fs");\n',
    }
    assert resolved(tmp_path, files, "js/src/main.js") == {"util/dates": "js/src/util/dates.js", "node:fs": None}


def test_the_nearest_config_applies_and_a_solution_config_hands_over_to_its_projects(tmp_path: Path) -> None:
    files = {
        **WEB,
        "web/tsconfig.json": json.dumps(
            {"files": [], "references": [{"path": "./tsconfig.node.json"}, {"path": "./tsconfig.app.json"}]}
        ),
        "web/tsconfig.node.json": '{"include": ["vite.config.ts"], "compilerOptions": {"paths": {"@/*": ["nope/*"]}}}',
        "web/tsconfig.app.json": '{"include": ["src/**/*.ts"], "compilerOptions": {"paths": {"@/*": ["./src/*"]}}}',
        "web/src/app.ts": 'import "@/gateways/Api";\n',
        "web/src/nested/tsconfig.json": '{"compilerOptions": {"paths": {"@/*": ["../lib/*"]}}}',
        "web/src/nested/deep/page.ts": 'import "@/format";\n',
    }
    root = tmp_path / "ws"
    make(root, files)
    index = index_of(root, tmp_path / "cache")
    assert targets(index, "web/src/app.ts") == {"@/gateways/Api": "web/src/gateways/Api.ts"}
    assert targets(index, "web/src/nested/deep/page.ts") == {"@/format": "web/src/lib/format.ts"}


def test_a_broken_or_missing_config_is_a_warning_and_resolution_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    files = {
        **WEB,
        "web/tsconfig.json": '{"compilerOptions": {"paths": {"@/*": ["src/*"]}',  # never closed
        "web/src/app.ts": 'import "@/gateways/Api";\nimport "./lib/format";\n',
        "other/tsconfig.json": json.dumps(
            {
                "extends": ["./missing.json", "@tsconfig/node20/tsconfig.json", "./tsconfig.json"],
                "compilerOptions": {"paths": {"@/*": ["src/*"]}},
            }
        ),
        "other/src/a.ts": "export const a = 1;\n",
        "other/src/main.ts": 'import "@/a";\n',
        "loop/tsconfig.json": '{"extends": "./b.tsconfig.json", "compilerOptions": {"baseUrl": "."}}',
        "loop/b.tsconfig.json": '{"extends": "./tsconfig.json"}',
        "loop/x.ts": "export const x = 1;\n",
        "loop/main.ts": 'import "x";\n',
        # relative to the workspace's parent, "esc/src/*" is not this workspace's esc/src
        "esc/tsconfig.json": '{"compilerOptions": {"baseUrl": "../..", "paths": {"@/*": ["esc/src/*"]}}}',
        "esc/src/a.ts": "export const a = 1;\n",
        "esc/main.ts": 'import "@/a";\n',
    }
    with caplog.at_level(logging.WARNING, logger="mesh.index"):
        root = tmp_path / "ws"
        make(root, files)
        index = index_of(root, tmp_path / "cache")
    assert targets(index, "web/src/app.ts") == {"@/gateways/Api": None, "./lib/format": "web/src/lib/format.ts"}
    assert targets(index, "other/src/main.ts") == {"@/a": "other/src/a.ts"}  # its own paths still count
    assert targets(index, "loop/main.ts") == {"x": "loop/x.ts"}
    assert targets(index, "esc/main.ts") == {"@/a": None}
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "json" in r.getMessage()]
    assert any(w.startswith("web/tsconfig.json: not valid JSON") for w in warnings), warnings
    assert any(w.startswith("other/tsconfig.json: extends './missing.json'") for w in warnings), warnings
    assert any("extends it in turn" in w for w in warnings), warnings
    assert "esc/tsconfig.json: baseUrl '../..' leaves the workspace; it and paths are ignored" in warnings
    assert not any("@tsconfig/node20" in w for w in warnings)  # a package's config is not looked for
    assert not any(str(tmp_path) in w for w in warnings)  # workspace-relative paths only


def test_package_json_imports_with_conditions(tmp_path: Path) -> None:
    files = {
        "svc/package.json": json.dumps(
            {
                "name": "svc",
                "imports": {
                    "#internal/*": {"types": "./types/*.d.ts", "import": "./src/internal/*.js"},
                    "#config": "./src/config.ts",
                    "#dep": "ui-kit",
                    "#nothing": None,
                },
            }
        ),
        "svc/src/internal/db.ts": "export const db = 1;\n",
        "svc/src/config.ts": "export const c = 1;\n",
        "svc/src/main.ts": (
            'import { db } from "#internal/db";\nimport "#config";\nimport "#dep";\n'
            'import "#nothing";\nimport "#other";\n'
        ),
        "kit/package.json": '{"name": "ui-kit", "main": "index.js"}',
        "kit/index.js": "module.exports = 1;\n",
    }
    assert resolved(tmp_path, files, "svc/src/main.ts") == {
        "#internal/db": "svc/src/internal/db.ts",  # no .d.ts there; the emitted .js name is the .ts source
        "#config": "svc/src/config.ts",
        "#dep": "kit/index.js",  # a bare package name as the target
        "#nothing": None,
        "#other": None,
    }


def test_workspace_packages_resolve_to_their_entry_and_subpaths(tmp_path: Path) -> None:
    files = {
        "package.json": '{"name": "root", "private": true, "workspaces": ["packages/*", "apps/**"]}',
        "packages/ui/package.json": json.dumps(
            {
                "name": "@acme/ui",
                "main": "dist/index.js",
                "exports": {".": "./dist/index.js", "./forms/*": "./src/f/*.tsx"},
            }
        ),
        "packages/ui/src/index.ts": "export * from './button';\n",
        "packages/ui/src/button.ts": "export const Button = 1;\n",
        "packages/ui/src/f/Field.tsx": "export const Field = 1;\n",
        "packages/util/package.json": '{"name": "@acme/util", "types": "lib/main.d.ts"}',
        "packages/util/lib/main.d.ts": "export declare const u: number;\n",
        "packages/bare/package.json": '{"name": "bare"}',
        "examples/ui-copy/package.json": '{"name": "@acme/ui", "main": "index.js"}',  # not a member
        "examples/ui-copy/index.js": "module.exports = 1;\n",
        "apps/shop/web/package.json": '{"name": "shop-web"}',
        "apps/shop/web/src/app.ts": (
            'import { Button } from "@acme/ui";\n'
            'import "@acme/ui/button";\n'
            'import "@acme/ui/forms/Field";\n'
            'import "@acme/util";\n'
            'import "bare";\n'
            'import "react";\n'
        ),
    }
    assert resolved(tmp_path, files, "apps/shop/web/src/app.ts") == {
        "@acme/ui": "packages/ui/src/index.ts",  # dist/ is build output: src/index
        "@acme/ui/button": "packages/ui/src/button.ts",
        "@acme/ui/forms/Field": "packages/ui/src/f/Field.tsx",  # through exports' pattern
        "@acme/util": "packages/util/lib/main.d.ts",
        "bare": "packages/bare/package.json",  # no entry file: the package itself
        "react": None,
    }


def test_editing_a_tsconfig_re_resolves_every_import_it_shapes(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make(root, {**WEB, "web/tsconfig.json": '{"compilerOptions": {"paths": {"@/*": ["src/lib/*"]}}}',
                "web/src/app.ts": 'import "@/gateways/Api";\n'})  # fmt: skip
    index = index_of(root, tmp_path / "cache")
    assert targets(index, "web/src/app.ts") == {"@/gateways/Api": None}
    (root / "web/tsconfig.json").write_text('{"compilerOptions": {"paths": {"@/*": ["./src/*"]}}}')
    index.refresh(changed=["web/tsconfig.json"])
    assert targets(index, "web/src/app.ts") == {"@/gateways/Api": "web/src/gateways/Api.ts"}
    (root / "web/tsconfig.json").unlink()
    index.refresh(changed=["web/tsconfig.json"])
    assert targets(index, "web/src/app.ts") == {"@/gateways/Api": None}


def test_jsonc_and_pattern_keys() -> None:
    assert _jsonc('\ufeff{"a": "x//y", /* c */ "b": [1, 2,], // d\n}') == {"a": "x//y", "b": [1, 2]}
    with pytest.raises(ValueError):
        _jsonc('{"a": 1 /* never closed }')
    with pytest.raises(ValueError):
        _jsonc("[" * 100_000 + "]" * 100_000)
    keys = {"*": [], "@/*": [], "@/lib/*": [], "@/lib/*.js": [], "a*b*": [], "exact": []}
    assert _best_key(keys, "@/lib/x.js") == ("@/lib/*.js", "x")
    assert _best_key(keys, "@/lib/x") == ("@/lib/*", "x")
    assert _best_key(keys, "@/x") == ("@/*", "x")
    assert _best_key(keys, "exact") == ("exact", "")
    assert _best_key(keys, "react") == ("*", "react")
    assert _best_key({"@/*": []}, "react") is None


# -- Java and Kotlin --------------------------------------------------------------------------------


def test_java_and_kotlin_imports_of_generated_outer_classes_resolve_to_their_proto(tmp_path: Path) -> None:
    files = {
        # proto package and java_package differ; the outer class is named
        "protos/orders.proto": (
            'syntax = "proto3";\npackage shop.orders;\noption java_package = "com.acme.orders.v1";\n'
            'option java_outer_classname = "OrdersProto";\n'
            "message Order {}\nservice Orders { rpc Get(Order) returns (Order); }\n"
        ),
        # no java_package: the proto package; the file name in CamelCase, clashing with a message
        "protos/api.proto": 'syntax = "proto3";\npackage com.acme;\nmessage Invoice { message Api {} }\n',
        "protos/billing_v2.proto": (
            'syntax = "proto3";\npackage acme.billing;\noption java_package = "com.acme.billing";\n'
            "option java_multiple_files = true;\nmessage Receipt {}\nenum Kind { KIND_UNSPECIFIED = 0; }\n"
        ),
        "app/pom.xml": "<project/>\n",
        "app/src/main/java/com/acme/app/Main.java": (
            "package com.acme.app;\n"
            "import com.acme.orders.v1.OrdersProto.*;\n"
            "import com.acme.orders.v1.OrdersProto.Order;\n"
            "import com.acme.orders.v1.OrdersGrpc;\n"
            "import static com.acme.ApiOuterClass.Invoice.newBuilder;\n"
            "import com.acme.billing.Receipt;\n"
            "import com.acme.billing.Kind;\n"
            "import com.acme.billing.BillingV2;\n"
            "import com.acme.billing.*;\n"
            "import com.acme.app.util.Helper;\n"
            "import com.acme.orders.v1.Order;\n"
            "class Main {}\n"
        ),
        "app/src/main/java/com/acme/app/util/Helper.java": "package com.acme.app.util;\nclass Helper {}\n",
        "app/src/main/kotlin/com/acme/app/Client.kt": (
            "package com.acme.app\n"
            "import com.acme.orders.v1.OrdersGrpcKt\n"
            "import com.acme.billing.receipt\n"
            "import com.acme.billing.ReceiptKt\n"
            "class Client\n"
        ),
    }
    root = tmp_path / "ws"
    make(root, files)
    index = index_of(root, tmp_path / "cache")
    assert targets(index, "app/src/main/java/com/acme/app/Main.java") == {
        "com.acme.orders.v1.OrdersProto.*": "protos/orders.proto",
        "com.acme.orders.v1.OrdersProto.Order": "protos/orders.proto",
        "com.acme.orders.v1.OrdersGrpc": "protos/orders.proto",
        "com.acme.ApiOuterClass.Invoice.newBuilder": "protos/api.proto",  # (static)
        "com.acme.billing.Receipt": "protos/billing_v2.proto",
        "com.acme.billing.Kind": "protos/billing_v2.proto",
        "com.acme.billing.BillingV2": "protos/billing_v2.proto",
        "com.acme.billing.*": "protos/billing_v2.proto",
        "com.acme.app.util.Helper": "app/src/main/java/com/acme/app/util/Helper.java",  # source wins
        # without java_multiple_files, Order is nested in OrdersProto: no class of that name
        "com.acme.orders.v1.Order": None,
    }
    assert targets(index, "app/src/main/kotlin/com/acme/app/Client.kt") == {
        "com.acme.orders.v1.OrdersGrpcKt": "protos/orders.proto",
        "com.acme.billing.receipt": "protos/billing_v2.proto",  # Kotlin's DSL builder
        "com.acme.billing.ReceiptKt": "protos/billing_v2.proto",
    }


def test_protoc_names_outer_classes_from_file_names() -> None:
    assert _camel("orders") == "Orders"
    assert _camel("orders_service") == "OrdersService"
    assert _camel("api-v2") == "ApiV2"
    assert _camel("foo2bar") == "Foo2Bar"
    assert _camel("HTTPRoutes") == "HTTPRoutes"


# -- Go ---------------------------------------------------------------------------------------------


def test_go_imports_of_generated_packages_resolve_to_their_proto(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        # go_package; the generated code lives under gen/ (skipped) or is not in the workspace
        "protos/orders.proto": 'package acme.o;\noption go_package = "example.com/shop/gen/orders;ordersv1";\n',
        "gen/orders/orders.pb.go": "package ordersv1\n",
        "protos/remote.proto": 'package acme.r;\noption go_package = "github.com/other/remote/v2";\n',
        # no go_package: the proto's own folder, its .pb.go skipped as generated
        "api/payments/payments.proto": 'syntax = "proto3";\npackage acme.p;\n',
        "api/payments/payments.pb.go": "package payments\n",
        # a folder of Go source is still the folder
        "internal/store/store.go": "package store\n",
        "cmd/main.go": (
            "package main\n"
            "import (\n"
            '  pb "example.com/shop/gen/orders"\n'
            '  "github.com/other/remote/v2"\n'
            '  "example.com/shop/api/payments"\n'
            '  "example.com/shop/internal/store"\n'
            '  "example.com/shop/internal/missing"\n'
            ")\n"
        ),
    }
    assert resolved(tmp_path, files, "cmd/main.go") == {
        "example.com/shop/gen/orders": "protos/orders.proto",
        "github.com/other/remote/v2": "protos/remote.proto",
        "example.com/shop/api/payments": "api/payments/payments.proto",
        "example.com/shop/internal/store": "internal/store",
        "example.com/shop/internal/missing": None,  # no proto makes a package of that name
    }


def test_a_go_package_generated_from_several_protos_at_build_time_picks_the_one_it_names(tmp_path: Path) -> None:
    """``protoc ../proto/*.proto --go_out=./gen``: the package exists only after a build."""
    files = {
        "go.mod": "module example.com/votes\n",
        "proto/Emoji.proto": 'syntax = "proto3";\noption go_package = "example.com/votes/proto";\npackage e.v1;\n',
        "proto/Voting.proto": 'syntax = "proto3";\noption go_package = "example.com/votes/proto";\npackage e.v1;\n',
        "voting-svc/api/api.go": 'package api\nimport pb "example.com/votes/voting-svc/gen/proto"\n',
        "web/web.go": 'package web\nimport pb "example.com/votes/web/gen/proto"\n',
    }
    root = tmp_path / "ws"
    make(root, files)
    index = index_of(root, tmp_path / "cache")
    assert targets(index, "voting-svc/api/api.go") == {"example.com/votes/voting-svc/gen/proto": "proto/Voting.proto"}
    assert targets(index, "web/web.go") == {"example.com/votes/web/gen/proto": "proto/Emoji.proto"}


def test_editing_go_package_re_resolves_the_importers(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    proto = 'syntax = "proto3";\npackage acme.o;\noption go_package = "example.com/a/%s";\n'
    make(root, {"protos/o.proto": proto % "old", "svc/go.mod": "module example.com/svc\n",
                "svc/main.go": 'package main\nimport "example.com/a/new"\n'})  # fmt: skip
    index = index_of(root, tmp_path / "cache")
    assert targets(index, "svc/main.go") == {"example.com/a/new": None}
    (root / "protos/o.proto").write_text(proto % "new")
    index.refresh(changed=["protos/o.proto"])
    assert targets(index, "svc/main.go") == {"example.com/a/new": "protos/o.proto"}


# -- C# ---------------------------------------------------------------------------------------------


def test_csharp_namespaces_of_generated_code_resolve_to_their_proto(tmp_path: Path) -> None:
    files = {
        "Basket/Proto/basket.proto": 'option csharp_namespace = "Shop.Basket.Grpc";\npackage BasketApi;\n',
        "Web/Web.csproj": "<Project />\n",
        "Web/BasketService.cs": (
            "using Shop.Basket.Grpc;\nusing Shop.Basket.Grpc.BasketItem;\nusing System.Linq;\nclass B {}\n"
        ),
    }
    assert resolved(tmp_path, files, "Web/BasketService.cs") == {
        "Shop.Basket.Grpc": "Basket/Proto/basket.proto",
        "Shop.Basket.Grpc.BasketItem": "Basket/Proto/basket.proto",
        "System.Linq": None,
    }


# -- the store --------------------------------------------------------------------------------------


def test_proto_options_are_stored_and_an_index_without_their_table_gets_it(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make(root, {"a.proto": 'syntax = "proto3";\noption go_package = "x/y";\npackage a;\n'})
    index = index_of(root, tmp_path / "cache")
    with index.store.snapshot() as db:
        assert db.execute("SELECT name, value FROM proto_options").fetchall() == [("go_package", "x/y")]
    index.close()
    db = sqlite3.connect(tmp_path / "cache" / "index.db")
    db.execute("DROP TABLE proto_options")
    db.commit()
    db.close()
    store = Store(tmp_path / "cache")
    with store.snapshot() as db:
        assert db.execute("SELECT count(*) FROM proto_options").fetchone() == (0,)
    store.close()
