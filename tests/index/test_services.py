"""Services as they are deployed (mesh/index/build/_services.py): evidence, names, areas, externals."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.index.build._workspace import Config, discover_workspace, load_config


def workspace(root: Path, files: dict[str, str]):
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return discover_workspace(root, load_config(root), sorted(files))


def services(found) -> list[tuple[str, str, str]]:
    return sorted((s.name, s.path, s.kind) for s in found.services)


def test_compose_names_the_folders_it_builds_and_images_it_only_runs_are_external(tmp_path: Path) -> None:
    found = workspace(tmp_path, {
        "docker-compose.yml": "services:\n  orders-api:\n    build:\n      context: ./orders/src\n"
                              "  broker:\n    image: rabbitmq:3-management\n",
        "orders/src/Orders.csproj": "<Project />",
        "orders/src/Program.cs": "class P {}",
        "orders/tests/Orders.Tests.csproj": '<Project><ItemGroup><ProjectReference Include="../src/Orders.csproj" />'
                                            "</ItemGroup></Project>",
        "orders/tests/T.cs": "class T {}",
        "docs/index.md": "# Docs\n",
    })  # fmt: skip
    assert services(found) == [("orders-api", "orders/src", "deployed")]
    (orders,) = found.services
    assert orders.extra == ("orders/tests",)  # the test project belongs to what it tests
    assert found.service_of("orders/tests/T.cs") == "orders-api"
    assert orders.evidence[0] == "docker-compose.yml:2: Compose service orders-api builds orders/src"
    assert [(e.name, e.what) for e in found.externals] == [("broker", "rabbitmq:3-management")]
    assert [(a.path, a.reason) for a in found.areas] == [("docs", "docs")]


def test_a_compose_service_is_placed_at_its_own_key_not_where_another_depends_on_it(tmp_path: Path) -> None:
    """The evidence's line is the service's own key, not an earlier ``depends_on`` entry (or any
    other key) spelling the same name (found so before, and searched for once per service)."""
    found = workspace(tmp_path, {
        "docker-compose.yml": "services:\n  web:\n    build: ./web\n    depends_on:\n      api:\n"
                              "        condition: service_started\n      cache:\n        condition: service_started\n"
                              "  api:\n    build: ./api\n  cache:\n    image: redis:7\n",
        "web/package.json": '{"name": "web"}',
        "web/index.js": "",
        "api/package.json": '{"name": "api"}',
        "api/index.js": "",
    })  # fmt: skip
    evidence = {service.name: service.evidence[0] for service in found.services}
    assert evidence["web"] == "docker-compose.yml:2: Compose service web builds web"
    assert evidence["api"] == "docker-compose.yml:9: Compose service api builds api"
    (cache,) = found.externals
    assert cache.evidence == ("docker-compose.yml:11: Compose service cache, image redis:7",)


def test_without_a_deployment_a_generic_folder_name_walks_up(tmp_path: Path) -> None:
    found = workspace(tmp_path, {
        "billing/src/Billing.csproj": "<Project />", "billing/src/A.cs": "class A {}",
        "search/app/package.json": "{}", "search/app/index.js": "x()\n",
    })  # fmt: skip
    assert services(found) == [("billing", "billing/src", "library"), ("search", "search/app", "library")]


def test_kubernetes_workloads_tie_to_folders_through_skaffold_and_image_names(tmp_path: Path) -> None:
    found = workspace(tmp_path, {
        "skaffold.yaml": "apiVersion: skaffold/v4beta1\nkind: Config\nbuild:\n  artifacts:\n"
                         "  - image: shop-frontend\n    context: src/frontend\n",
        "k8s/frontend.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n"
                             "    spec:\n      containers:\n      - name: web\n        image: shop-frontend:v1\n",
        "k8s/cart.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: carts\nspec:\n  template:\n"
                         "    spec:\n      containers:\n      - name: c\n        image: example.com/shop/cart:2\n"
                         "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: cache\nspec:\n  template:\n"
                         "    spec:\n      containers:\n      - name: r\n        image: redis:7\n",
        "src/frontend/go.mod": "module x\n", "src/frontend/main.go": "package main\n\nfunc main() {}\n",
        "src/cart/pom.xml": "<project />", "src/cart/src/main/java/A.java": "class A {}",
    })  # fmt: skip
    assert services(found) == [("carts", "src/cart", "deployed"), ("web", "src/frontend", "deployed")]
    assert [e.name for e in found.externals] == ["cache"]
    assert [(a.path, a.reason) for a in found.areas] == [("k8s", "manifests")]


def test_aspire_app_hosts_name_their_projects_and_add_infrastructure(tmp_path: Path) -> None:
    found = workspace(tmp_path, {
        "src/AppHost/AppHost.csproj": "<Project />",
        "src/AppHost/Program.cs": 'var builder = DistributedApplication.CreateBuilder(args);\n'
                                  'var redis = builder.AddRedis("redis");\n'
                                  'builder.AddProject<Projects.Basket_API>("basket-api").WithReference(redis);\n'
                                  'builder.AddYarp("mobile-bff").WithConfiguration(ConfigureRoutes);\n',
        "src/Basket.API/Basket.API.csproj": "<Project />", "src/Basket.API/Program.cs": "class P {}",
        "tests/Basket.UnitTests/Basket.UnitTests.csproj": "<Project />", "tests/Basket.UnitTests/T.cs": "class T {}",
    })  # fmt: skip
    assert services(found) == [("AppHost", "src/AppHost", "library"), ("basket-api", "src/Basket.API", "deployed")]
    assert dict((s.name, s.extra) for s in found.services)["basket-api"] == ("tests/Basket.UnitTests",)
    # a YARP reverse proxy (Aspire.Hosting.Yarp) is a container of its own: an external service
    assert [(e.name, e.what) for e in found.externals] == [("mobile-bff", "yarp"), ("redis", "redis")]


def test_a_multi_project_build_root_is_no_service_and_its_modules_are(tmp_path: Path) -> None:
    found = workspace(tmp_path, {
        "settings.gradle": "include 'orders-service', 'orders-api', 'end-to-end-tests'\n",
        "build.gradle": "plugins {}\n",
        "orders-service/build.gradle": "", "orders-service/src/main/java/A.java": "class A {}",
        "orders-api/src/main/java/B.java": "class B {}",
        "end-to-end-tests/build.gradle": "", "end-to-end-tests/src/test/java/E.java": "class E {}",
    })  # fmt: skip
    assert services(found) == [("orders-api", "orders-api", "library"), ("orders-service", "orders-service", "library")]
    assert [(a.path, a.reason) for a in found.areas] == [("end-to-end-tests", "tests")]


def test_a_go_module_of_several_programs_is_split_into_them(tmp_path: Path) -> None:
    main = "package main\n\nfunc main() {}\n"
    found = workspace(tmp_path, {
        "go.mod": "module example.com/x\n",
        "greeter/server/main.go": main, "greeter/client/main.go": main, "echo/main.go": main,
        "shared/util.go": "package shared\n", "proto/echo.proto": 'syntax = "proto3";\n',
    })  # fmt: skip
    assert services(found) == [
        ("echo", "echo", "tool"),
        ("greeter/client", "greeter/client", "tool"),  # both would be "greeter": both take their paths
        ("greeter/server", "greeter/server", "tool"),
        ("shared", "shared", "library"),
    ]
    assert [(a.path, a.reason) for a in found.areas] == [("proto", "protos")]


def test_an_entrypoint_naming_a_program_makes_it_a_service_of_its_own(tmp_path: Path) -> None:
    main = "package main\n\nfunc main() {}\n"
    found = workspace(tmp_path, {
        "compose.yaml": "services:\n  web:\n    image: acme/shop-web:1\n"
                        "  bot:\n    image: acme/shop-web:1\n    entrypoint: shop-vote-bot\n",
        "go.mod": "module example.com/x\n",
        "shop-web/cmd/server/main.go": main, "shop-web/cmd/vote-bot/main.go": main, "shop-web/api/api.go": "package api\n",
    })  # fmt: skip
    assert services(found) == [("bot", "shop-web/cmd/vote-bot", "deployed"), ("web", "shop-web", "deployed")]


def test_a_manifest_that_does_not_parse_or_names_a_missing_context_is_a_warning_INV_WS_2(tmp_path: Path) -> None:
    """INV-WS-2."""
    found = workspace(tmp_path, {
        "compose.yaml": "services:\n  web:\n    build: ./nowhere\n",
        "deploy/bad.yaml": "apiVersion: v1\nkind: Deployment\nmetadata: [unclosed\n",
        "web/package.json": "{}", "web/index.js": "x()\n",
    })  # fmt: skip
    assert [(w.path, w.line) for w in found.warnings] == [("compose.yaml", 2), ("deploy/bad.yaml", 4)]
    assert "build context './nowhere' is not a folder of the workspace" in found.warnings[0].message
    assert services(found) == [("web", "web", "library")]  # the index goes on with what it has


def test_mesh_toml_always_wins_over_what_the_deployments_say_INV_WS_1(tmp_path: Path) -> None:
    """INV-WS-1."""
    (tmp_path / "mesh.toml").write_text('[[services]]\nname = "storefront"\npath = "web"\n')
    (tmp_path / "web").mkdir()
    found = workspace(tmp_path, {
        "compose.yaml": "services:\n  web:\n    build: ./web\n  db:\n    image: postgres:16\n",
        "web/package.json": "{}",
    })  # fmt: skip
    assert [(s.name, s.path, s.origin) for s in found.services] == [("storefront", "web", "mesh.toml")]
    assert [e.name for e in found.externals] == ["db"]


def test_yaml_bombs_and_odd_tags_are_read_safely_INV_WS_2(tmp_path: Path) -> None:
    """INV-WS-2."""
    bomb = "a: &a [x, x]\n" + "".join(f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
    found = workspace(tmp_path, {
        "compose.yaml": "services:\n  web:\n    build: ./web\n    ports: !reset []\n",
        "k8s/bomb.yaml": "apiVersion: v1\nkind: ConfigMap\n" + bomb,
        "web/package.json": "{}",
    })  # fmt: skip
    assert services(found) == [("web", "web", "deployed")] and found.warnings == ()


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks here")
def test_a_manifest_linked_from_outside_is_not_read_INV_WS_2(tmp_path: Path) -> None:
    """INV-WS-2."""
    outside = tmp_path / "outside.yml"
    outside.write_text("services:\n  secret:\n    image: evil:1\n")
    root = tmp_path / "ws"
    (root / "web").mkdir(parents=True)
    (root / "web" / "package.json").write_text("{}")
    (root / "compose.yml").symlink_to(outside)
    found = discover_workspace(root, Config(), ["compose.yml", "web/package.json"])
    assert found.externals == () and services(found) == [("web", "web", "library")]


def test_a_build_context_leaving_the_workspace_is_a_warning_and_no_service_INV_WS_2(tmp_path: Path) -> None:
    """INV-WS-2."""
    found = workspace(tmp_path / "ws", {
        "compose.yaml": "services:\n  evil:\n    build: ../../etc\n",
        "web/package.json": "{}",
    })  # fmt: skip
    assert services(found) == [("web", "web", "library")]
    assert [(w.path, w.line) for w in found.warnings] == [("compose.yaml", 2)]
    assert "/etc" not in found.warnings[0].message.replace("../../etc", "")


def test_a_go_program_is_told_by_its_package_clause_not_by_text_further_down() -> None:
    from mesh.index.build._services import go_program

    header = "// Copyright.\n//go:build linux\n\n/* a block\n   comment */\n"
    assert go_program(f"{header}package main\n\nimport \"fmt\"\n\nfunc main() {{ fmt.Println() }}\n".encode())
    assert go_program(b"package  main // the tool\nfunc helper() {}\nfunc main () {}\n")
    assert not go_program(b"package main\n\nfunc helper() {}\n")  # no func main: a library of main
    assert not go_program(b"package mainly\n\nfunc main() {}\n")
    # a generator's template holds a program's text: the file itself is of package gen
    template = 'package gen\n\nconst program = `\npackage main\n\nfunc main() {}\n`\n'
    assert not go_program(template.encode())
    assert not go_program(b"")


def _areas_by_definition(folders: list[str], services: list[str]) -> list[tuple[str, str]]:
    """areas_of as its docstring defines it, one service at a time (what it computed before it
    used the folders above every service)."""
    from mesh.index.build._services import _area_reason

    def within(path: str, folder: str) -> bool:
        return not folder or path == folder or path.startswith(folder + "/")

    if "" in services:
        return []
    found = []
    for folder in sorted(set(folders)):
        parent = folder.rsplit("/", 1)[0] if "/" in folder else ""
        if not folder or not (parent == "" or any(within(s, parent) for s in services)):
            continue
        if any(within(folder, s) or within(s, folder) for s in services):
            continue
        found.append((folder, _area_reason(folder)))
    return found


_FOLDER = st.lists(st.sampled_from(["a", "b", "docs", "src", "a-b", "test"]), min_size=1, max_size=4).map("/".join)


@settings(max_examples=300, deadline=None)
@given(folders=st.lists(_FOLDER, max_size=25), services=st.lists(_FOLDER, max_size=6), root=st.booleans())
def test_areas_are_the_outermost_folders_neither_holding_nor_in_a_service(
    folders: list[str], services: list[str], root: bool
) -> None:
    from mesh.index.build._services import areas_of

    every = {"/".join(f.split("/")[:n]) for f in folders for n in range(1, f.count("/") + 2)}
    claimed = [*services, ""] if root and not services else services
    got = [(area.path, area.reason) for area in areas_of(every, claimed)]
    assert got == _areas_by_definition(sorted(every), claimed)


def _every_folder(paths: set[str]) -> set[str]:
    """The folders above the files at ``paths``, as discovery lists them."""
    folders = {path.rsplit("/", 1)[0] for path in paths if "/" in path}
    return folders | {"/".join(f.split("/")[:n]) for f in folders for n in range(1, f.count("/") + 1)}


@settings(max_examples=300, deadline=None)
@given(
    before=st.sets(_FOLDER.map(lambda folder: folder + "/f.txt"), max_size=20),
    added=st.sets(_FOLDER.map(lambda folder: folder + "/g.txt"), max_size=5),
    removed=st.lists(st.integers(0, 19), max_size=5),
    services=st.lists(_FOLDER, max_size=4),
)
def test_inv_index_11_areas_moved_by_files_that_come_or_go_are_those_of_every_path(
    before: set[str], added: set[str], removed: list[int], services: list[str]
) -> None:
    """INV-INDEX-11: the areas after files came or went, found from the old areas, the changed paths
    and whether a file lies under a folder, are those of a discovery over every path."""
    from mesh.index.build._services import areas_moved, areas_of

    ordered = sorted(before)
    gone = {ordered[at] for at in removed if at < len(ordered)}
    after = (before - gone) | added
    old = areas_of(_every_folder(before), services)

    def holds(folder: str) -> bool:
        return any(path.startswith(folder + "/") for path in after)

    got = areas_moved(old, sorted(gone | added), services, holds)
    assert got == areas_of(_every_folder(after), services)
