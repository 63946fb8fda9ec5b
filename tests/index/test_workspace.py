"""The workspace model: mesh.toml, service discovery, which service holds a path."""

from __future__ import annotations

from pathlib import Path

import pytest

from mesh.index import ConfigError, Service, discover_services, load_config
from mesh.index.build._workspace import Workspace
from mesh.workspace import cache_dir, cache_root, workspace_id

from .test_enumerate import make


def names(services) -> list[tuple[str, str, str]]:
    return [(service.name, service.path, service.origin) for service in services]


def test_manifest_folders_are_services_nested_manifests_stay_inside_and_the_rest_are_areas(tmp_path: Path) -> None:
    paths = [
        "README.md",
        "services/orders/pyproject.toml",
        "services/orders/orders/server.py",
        "services/orders/tests/requirements.txt",
        "services/inventory/go.mod",
        "services/inventory/main.go",
        "payments/pom.xml",
        "payments/core/pom.xml",
        "payments/core/src/main/java/A.java",
        "proto/acme/orders.proto",
        "tools/gen.sh",
    ]
    assert names(discover_services(tmp_path, paths)) == [
        ("inventory", "services/inventory", "manifest"),
        ("orders", "services/orders", "manifest"),
        ("payments", "payments", "manifest"),
    ]
    from mesh.index.build._workspace import discover_workspace

    areas = discover_workspace(tmp_path, load_config(tmp_path), paths).areas
    assert [(area.path, area.reason) for area in areas] == [("proto", "protos"), ("tools", "other")]


def test_git_repositories_without_manifests_are_services(tmp_path: Path) -> None:
    make(tmp_path, {"legacy/.git/HEAD": "ref", "legacy/src/app.rb": "x", "web/package.json": "{}"})
    paths = ["legacy/src/app.rb", "web/package.json"]
    assert names(discover_services(tmp_path, paths)) == [
        ("legacy", "legacy", "git"),
        ("web", "web", "manifest"),
    ]


def test_a_root_manifest_claims_what_no_service_holds(tmp_path: Path) -> None:
    root = tmp_path / "mono"
    root.mkdir()
    paths = ["go.mod", "cmd/main.go", "internal/x.go", "web/package.json", "web/index.js"]
    assert names(discover_services(root, paths)) == [("web", "web", "manifest"), ("mono", "", "root")]


def test_generic_names_walk_up_and_same_names_fall_back_to_paths(tmp_path: Path) -> None:
    paths = ["a/api/go.mod", "b/api/go.mod", "c/web/go.mod", "d/web/go.mod", "orders/src/Orders.csproj"]
    assert names(discover_services(tmp_path, paths)) == [
        ("orders", "orders/src", "manifest"),
        ("a", "a/api", "manifest"),
        ("b", "b/api", "manifest"),
        ("c/web", "c/web", "manifest"),
        ("d/web", "d/web", "manifest"),
    ]


def test_the_longest_service_path_owns_a_file(tmp_path: Path) -> None:
    services = (
        Service("outer", "svc", "mesh.toml"),
        Service("inner", "svc/inner", "mesh.toml"),
    )
    from mesh.index.build._workspace import Config, order_services

    workspace = Workspace(tmp_path, Config(), order_services(services))
    assert workspace.service_of("svc/inner/x.py") == "inner"
    assert workspace.service_of("svc/innerx.py") == "outer"
    assert workspace.service_of("svc/x.py") == "outer"
    assert workspace.service_of("README.md") == ""


def test_mesh_toml_names_services_and_index_options(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "mesh.toml": """
[index]
max_file_bytes = 2048
include_vendored = true
ignore = ["*.snap"]

[[services]]
name = "orders"
path = "svc/orders/"
languages = ["python"]
exclude = ["legacy/"]

[[services]]
name = "docs"
""",
            "svc/orders/x.py": "",
            "docs/a.md": "",
        },
    )
    config = load_config(tmp_path)
    assert config.max_file_bytes == 2048
    assert config.include_vendored is True
    assert config.ignore == ("*.snap",)
    assert config.services == (
        Service("orders", "svc/orders", "mesh.toml", ("python",), ("legacy/",)),
        Service("docs", "docs", "mesh.toml"),
    )
    workspace = Workspace(tmp_path, config, config.services)
    assert workspace.ignore_patterns() == ("*.snap", "/svc/orders/legacy/")


def test_no_mesh_toml_means_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config.services is None
    assert config.max_file_bytes == 1 << 20


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[index\n", "mesh.toml: Expected ']'"),
        ("colour = 1\n", "unknown top-level key(s) colour"),
        ("[index]\nmax_file_bytes = 'big'\n", "max_file_bytes must be int, not str"),
        ("[index]\nmax_file_bytes = 0\n", "max_file_bytes must be positive"),
        ("[index]\nfollow = true\n", "[index] has no key 'follow'"),
        ("[index]\nignore = [1]\n", "[index] ignore must be a list of strings"),
        ("services = 3\n", "services must be an array of tables"),
        ("[[services]]\npath = 'x'\n", "services #1: name must be a non-empty string"),
        ("[[services]]\nname = 'x'\npath = '../elsewhere'\n", "must stay inside the workspace"),
        ("[[services]]\nname = 'x'\npath = 'missing'\n", "path 'missing' is not a folder of the workspace"),
        ("[[services]]\nname = 'x'\ncolour = 1\n", "unknown key(s) colour"),
        ("[[services]]\nname = 'a'\npath = ''\n[[services]]\nname = 'a'\npath = ''\n", "used twice: a"),
    ],
)
def test_a_bad_mesh_toml_says_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "mesh.toml").write_text(text)
    with pytest.raises(ConfigError, match=None) as caught:
        load_config(tmp_path)
    assert message in str(caught.value)
    assert str(tmp_path / "mesh.toml") in str(caught.value)


def test_a_mesh_toml_that_is_not_utf8_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "mesh.toml").write_bytes(b"[index]\n\xff = 1\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(tmp_path)


def test_cache_folder_follows_the_environment(tmp_path: Path) -> None:
    assert cache_root({"MESH_CACHE_DIR": "/c"}) == Path("/c")
    assert cache_root({"XDG_CACHE_HOME": "/x", "HOME": "/h"}) == Path("/x/mesh")
    assert cache_root({"HOME": "/h"}) == Path("/h/.cache/mesh")
    identity = workspace_id(tmp_path)
    assert len(identity) == 16 and int(identity, 16) >= 0
    assert workspace_id(tmp_path / ".") == identity
    assert cache_dir(tmp_path, {"MESH_CACHE_DIR": "/c"}) == Path("/c") / identity
