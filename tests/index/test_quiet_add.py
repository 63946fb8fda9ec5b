"""A file added or removed costs the files it touches, not the workspace (INV-INDEX-11).

Adding or removing a file (none a ``.proto``, manifest or project config) resolves again only the
imports that may lead to it, or led to it: those of files whose text names it (its stem, its
folder's name when the folder or Go package is new, a package entry, a ``paths`` alias, an entry
reached by dots). The whole-workspace passes run only when the file reaches them, as it was or as it
is, or when an import or mount that moved reaches them: an added plain file runs neither. After
every change the index equals a build from scratch of the same files, including the cases where
an import without the file's stem in its module leads to it (``from . import helper``,
``import '.'``, ``import '@acme/lib'``, a ``paths`` alias, ``use my_crate``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesh.index import Index

from ._compare import assert_as_from_scratch, count_file_tables, counted_reads, prepared_index, put
from .test_grpc_derivation import write
from .test_quiet_edit import DERIVE, LINKS, PLAIN, QUIET, WORKSPACE, counted, inline  # noqa: F401 (fixtures)

ROUTES = (
    'const { Router } = require("express");\nconst router = Router();\n'
    'router.get("/items", (req, res) => res.json([]));\nmodule.exports = router;\n'
)

BASE = {
    **WORKSPACE,
    # imports that reach a file by something other than its stem
    "py/pkg/__init__.py": "from . import helper\n",
    "py/pkg/main.py": "from .. import top\nfrom . import helper\n",
    "web2/package.json": '{"name": "web2", "workspaces": ["packages/*"]}\n',
    "web2/packages/lib/package.json": '{"name": "@acme/lib", "main": "src/entry.js"}\n',
    "web2/tsconfig.json": '{"compilerOptions": {"paths": {"@cfg": ["src/config/settings.ts"]}}}\n',
    "web2/app/a.js": "import lib from '@acme/lib';\nimport here from '.';\nexport const a = [lib, here];\n",
    "web2/src/use.ts": "import { s } from '@cfg';\nexport const t = s;\n",
    "gomod/go.mod": "module example.com/m\n\ngo 1.21\n",
    "gomod/cmd/main.go": 'package main\n\nimport "example.com/m/extra"\n\nfunc main() { extra.Run() }\n',
    "rs/Cargo.toml": '[package]\nname = "my-crate"\nversion = "0.1.0"\n',
    "rs/src/main.rs": "use my_crate;\n\nfn main() {}\n",
    # an Express app mounting ./routes: routes/index.js now, routes.js first once it exists
    "node/app/server.js": (
        'const express = require("express");\nconst routes = require("./routes");\n\n'
        'const app = express();\napp.use("/api", routes);\n'
    ),
    "node/app/routes/index.js": ROUTES,
    # a subclass of a server type that it sees through an import by suffix: a nearer base.py hides it
    "py/lib/impl2.py": (
        "from base import BaseInventory\n\n\nclass Impl2(BaseInventory):\n"
        "    def Release(self, request, context):\n        return None\n"
    ),
    # Django: a URLconf included by its module's name (no import), nearer shop/urls.py files win
    "dj/requirements.txt": "django\n",
    "dj/site/urls.py": 'from django.urls import include, path\n\nurlpatterns = [path("shop/", include("shop.urls"))]\n',
    "dj/deep/shop/urls.py": (
        'from django.urls import path\n\nfrom . import views\n\nurlpatterns = [path("items/", views.items)]\n'
    ),
}

#: Files that come and go, each with its text.
FILES = {
    "py/app/plain2.py": PLAIN,
    "py/pkg/helper.py": "X = 1\n",
    "py/top.py": "T = 1\n",
    "web2/app/index.js": "export default 2;\n",
    "web2/packages/lib/src/entry.js": "export default 1;\n",
    "web2/src/config/settings.ts": "export const s = 1;\n",
    "gomod/extra/run.go": "package extra\n\nfunc Run() {}\n",
    "py/base.py": PLAIN,
    "dj/shop/urls.py": "# no routes yet\n",
    "rs/src/lib.rs": "pub fn f() {}\n",
    "node/app/routes.js": "module.exports = function routes(req, res, next) { next(); };\n",
    "node/src/keeper.js": WORKSPACE["node/src/keeper.js"],
    "py/app/sub.py": (
        "from .base import BaseInventory\n\n\nclass Sub(BaseInventory):\n"
        "    def Reserve(self, request, context):\n        return None\n"
    ),
    "web/health.py": 'from app import app\n\n\n@app.route("/health")\ndef health():\n    return ""\n',
    "web/NOTES2.md": "# More notes\n",
}

#: (path, added (else removed), the whole-workspace passes it runs): in turn, each compared with a
#: build from scratch.
CHANGES = [
    ("py/app/plain2.py", True, QUIET),
    ("py/pkg/helper.py", True, QUIET),  # from . import helper: the module is a dot
    ("py/top.py", True, QUIET),  # from .. import top
    ("web2/app/index.js", True, QUIET),  # import '.'
    ("web2/packages/lib/src/entry.js", True, QUIET),  # the package's main
    ("web2/src/config/settings.ts", True, QUIET),  # a paths alias without a star
    ("gomod/extra/run.go", True, QUIET),  # a new Go package
    ("rs/src/lib.rs", True, QUIET),  # use my_crate
    ("web/NOTES2.md", True, QUIET),
    ("node/app/routes.js", True, LINKS),  # the mount now leads here, not to routes/index.js
    ("node/app/routes.js", False, LINKS),
    ("node/src/keeper.js", False, DERIVE),  # the implementation a registration imports
    ("node/src/keeper.js", True, DERIVE),
    ("py/app/sub.py", True, DERIVE),  # a subclass of a server type
    ("py/app/sub.py", False, DERIVE),
    ("web/health.py", True, LINKS),  # a route
    ("web/health.py", False, LINKS),
    ("py/base.py", True, DERIVE),  # Impl2's import now leads here: its base is no server type in sight
    ("py/base.py", False, DERIVE),
    ("dj/shop/urls.py", True, LINKS),  # the include now mounts this file, not dj/deep/shop/urls.py
    ("dj/shop/urls.py", False, LINKS),
    ("py/pkg/helper.py", False, QUIET),
    ("py/top.py", False, QUIET),
    ("web2/app/index.js", False, QUIET),
    ("web2/packages/lib/src/entry.js", False, QUIET),
    ("web2/src/config/settings.ts", False, QUIET),
    ("gomod/extra/run.go", False, QUIET),
    ("rs/src/lib.rs", False, QUIET),
    ("py/app/plain2.py", False, QUIET),
]


def _targets_of(index: Index, where: str) -> dict[str, str | None]:
    """module -> target path of the imports of the files ``where`` selects (over ``f``, ``i``)."""
    with index.store.snapshot() as db:
        return dict(db.execute(
            "SELECT i.module, i.target_path FROM imports i JOIN files f ON f.id = i.file_id WHERE " + where
        ))  # fmt: skip


def _apply(root: Path, path: str, present: bool) -> None:
    put(root, path, FILES[path] if present else None)


def _targets(index: Index) -> list[tuple]:
    with index.store.snapshot() as db:
        return sorted(
            db.execute("SELECT f.path, i.module, i.target_path FROM imports i JOIN files f ON f.id = i.file_id")
        )


def test_inv_index_11_added_and_removed_files_run_only_the_passes_they_reach(
    tmp_path: Path, counted: list[str]
) -> None:
    """INV-INDEX-11: after each file added or removed the index equals a build from scratch; each
    ran only the whole-workspace passes it reaches (none for the quiet ones)."""
    root = tmp_path / "ws"
    with prepared_index(root, tmp_path / "cache", BASE) as index:
        for number, (path, present, passes) in enumerate(CHANGES):
            _apply(root, path, present)
            counted.clear()
            index.refresh(changed=[path])
            assert tuple(counted) == passes, (number, path, present, counted)
            assert_as_from_scratch(index, tmp_path / f"fresh-{number}", (number, path, present))


@pytest.mark.parametrize("path", [path for path, present, _ in CHANGES[1:8]])
def test_the_quiet_adds_move_an_import_that_does_not_spell_their_stem(tmp_path: Path, path: str) -> None:
    """The comparison above is not vacuous: each of those added files is what an import in another
    file now leads to, though no module there spells its name whole."""
    root = tmp_path / "ws"
    with prepared_index(root, tmp_path / "cache", BASE) as index:
        before = _targets(index)
        _apply(root, path, True)
        index.refresh(changed=[path])
        after = _targets(index)
        moved = sorted(set(after) - set(before))
        assert any(target == path or target == path.rpartition("/")[0] for _, _, target in moved), moved
        assert all(importer != path for importer, _, _ in moved), moved  # another file's import moved


@settings(
    max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    steps=st.lists(
        st.lists(st.tuples(st.sampled_from(sorted(FILES)), st.booleans()), min_size=1, max_size=3,
                 unique_by=lambda change: change[0]),  # fmt: skip
        min_size=1,
        max_size=5,
    )
)
def test_inv_index_11_random_adds_and_removes_leave_a_build_from_scratch(steps: list[list[tuple[str, bool]]]) -> None:
    """INV-INDEX-11: files added and removed a few at a time, in any order, with the server's tables
    kept between refreshes: after every refresh the index equals a build from scratch."""
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        root = work / "ws"
        with prepared_index(root, work / "cache", BASE) as index:
            for number, step in enumerate(steps):
                for path, present in step:
                    _apply(root, path, present)
                index.refresh(changed=[path for path, _ in step])
                assert_as_from_scratch(index, work / f"fresh-{number}", (number, step))


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The roots of the whole-workspace walks refreshes make from now on in this test."""
    from mesh.index.build import _build

    seen: list[Path] = []
    real_walk = _build.walk

    def counted_walk(where: Path, **kwargs):
        seen.append(where)
        return real_walk(where, **kwargs)

    monkeypatch.setattr(_build, "walk", counted_walk)
    return seen


def test_inv_index_11_a_folder_made_moved_or_removed_is_walked_alone(tmp_path: Path, walks: list[Path]) -> None:
    """INV-INDEX-11: a folder among the changed paths (made, moved in, checked out) is walked by
    itself, with the ignore rules a whole walk would apply there, not the workspace; its files are
    added as any added file is (a folder gone takes its files with it). A folder bringing or taking
    a manifest changes the services: that one refresh walks everything. Each time the index equals a build
    from scratch."""
    root = tmp_path / "ws"

    def same_as_scratch(label: str) -> None:
        assert_as_from_scratch(index, tmp_path / f"fresh-{label}", label)
        walks.clear()  # the build from scratch walks, of course

    with prepared_index(root, tmp_path / "cache", BASE) as index:
        walks.clear()  # the first build's
        write(root, {
            "py/feature/__init__.py": "from . import helper\n",
            "py/feature/helper.py": "from app.util import helper as util\n",
            "py/feature/deep/more.py": "from ..helper import util\n",
            "py/feature/node_modules/dep/index.js": "module.exports = 1;\n",  # a walk does not enter it
            "py/feature/.gitignore": "*.tmp\n",
            "py/feature/scratch.tmp": "ignored by the folder's own rules\n",
        })  # fmt: skip
        index.refresh(changed=["py/feature"])
        assert walks == []
        with index.store.snapshot() as db:
            held = sorted(path for (path,) in db.execute("SELECT path FROM files WHERE path LIKE 'py/feature/%'"))
        assert held == ["py/feature/__init__.py", "py/feature/deep/more.py", "py/feature/helper.py"]
        same_as_scratch("made")

        (root / "py/feature").rename(root / "py/moved")
        index.refresh(changed=["py/feature", "py/moved"])
        assert walks == []
        same_as_scratch("moved")

        for path in sorted((root / "py/moved").rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        (root / "py/moved").rmdir()
        index.refresh(changed=["py/moved"])
        assert walks == []
        same_as_scratch("removed")

        write(root, {"svc/package.json": '{"name": "svc"}\n', "svc/src/index.js": "export const x = 1;\n"})
        index.refresh(changed=["svc"])
        assert walks == [root.resolve()] or walks == [root]  # a manifest: the services may change
        same_as_scratch("service")

        for path in sorted((root / "svc").rglob("*"), reverse=True):  # and it goes, with its manifest
            path.unlink() if path.is_file() else path.rmdir()
        (root / "svc").rmdir()
        index.refresh(changed=["svc"])
        assert walks == [root.resolve()] or walks == [root]
        same_as_scratch("service gone")


COMPOSE = (
    "services:\n  web:\n    build: ./web\n    environment:\n      BILLING_URL: http://billing:5000\n"
    "  billing:\n    build: ./billing\n"
)
#: (path, its new text or None to remove it, whether the services change: a whole walk)
MANIFEST_STEPS = (
    ("node/package.json", '{"name": "node", "dependencies": {"express": "^4"}}\n', False),  # a dependency
    ("web/requirements.txt", "flask\nrequests\n", False),
    ("gomod/go.mod", "module example.com/m\n\ngo 1.22\n", False),
    ("web2/packages/lib/src/other.js", "export default 3;\n", False),  # a plain add, for the next step
    # the package's entry moves: `import lib from '@acme/lib'` leads to the new one (imports resolved again)
    ("web2/packages/lib/package.json", '{"name": "@acme/lib", "main": "src/other.js"}\n', False),
    ("rs/Cargo.toml", '[package]\nname = "other-crate"\nversion = "0.1.0"\n', None),  # `use my_crate` leads nowhere
    ("web/Dockerfile", "FROM python:3.12\nCOPY . /app\n", True),  # web is deployed now
    ("web/Dockerfile", "FROM python:3.12\nCOPY . /srv\n", False),  # a build step
    ("node/package.json", '{"name": "storefront"}\n', None),  # the package's name
    ("docker-compose.yml", COMPOSE, True),  # deployments, and what they wire
    ("docker-compose.yml", COMPOSE.replace("./billing\n", "./billing\n    restart: always\n"), False),
    ("docker-compose.yml", COMPOSE.replace(":5000", ":5001"), False),  # a port: the same services wired
    ("docker-compose.yml", COMPOSE.replace("URL: http://billing", "URL: http://web"), True),  # the wiring
    ("web/Dockerfile", None, True),
)


def test_inv_index_11_a_manifest_edit_that_keeps_the_services_is_refreshed_alone(
    tmp_path: Path, walks: list[Path]
) -> None:
    """INV-INDEX-11: a manifest, Dockerfile or deployment edited, added or removed has the workspace
    discovered again over the paths the index holds; when the services, areas, external services,
    wiring and hosts stay as they were (a dependency added, a build step changed), the refresh
    touches the changed paths alone (no walk), imports the manifest leads resolved again. When they
    change, that refresh walks everything. Each time the index equals a build from scratch."""
    root = tmp_path / "ws"
    with prepared_index(root, tmp_path / "cache", BASE) as index:
        walks.clear()  # the first build's
        for number, (path, text, moves) in enumerate(MANIFEST_STEPS):
            put(root, path, text)
            index.refresh(changed=[path])
            if moves is not None:
                assert bool(walks) == moves, (number, path)
            assert_as_from_scratch(index, tmp_path / f"fresh-{number}", (number, path))
            walks.clear()
        with index.store.snapshot() as db:
            lib = db.execute(
                "SELECT i.target_path FROM imports i JOIN files f ON f.id = i.file_id"
                " WHERE f.path = 'web2/app/a.js' AND i.module = '@acme/lib'"
            ).fetchone()
        assert lib == ("web2/packages/lib/src/other.js",)  # the entry the edited package.json names


def test_discovery_reads_again_only_what_may_change_the_services(
    tmp_path: Path, walks: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Dockerfile edited in place counts for its presence alone: the services are not discovered
    again (no file read for it). A Compose file edited is, over the index's paths, reading the
    deployments again but no Go file that has not changed (whether each makes a program is kept)."""
    root = tmp_path / "ws"
    read = counted_reads(monkeypatch)
    files = {**BASE, "web/Dockerfile": "FROM python:3.12\n", "docker-compose.yml": COMPOSE}
    with prepared_index(root, tmp_path / "cache", files) as index:
        assert "gomod/cmd/main.go" in read  # the first build's discovery read it
        walks.clear()
        read.clear()
        put(root, "web/Dockerfile", "FROM python:3.12\nCOPY . /srv\n")
        index.refresh(changed=["web/Dockerfile"])
        assert read == [] and walks == []
        put(root, "docker-compose.yml", COMPOSE.replace("./billing\n", "./billing\n    restart: always\n"))
        index.refresh(changed=["docker-compose.yml"])
        assert "docker-compose.yml" in read and not [path for path in read if path.endswith(".go")]
        assert walks == []
        assert_as_from_scratch(index, tmp_path / "fresh", "compose")

#: What a refresh reads again for a manifest edit: nothing (its shape as it was), the manifest tables
#: (a new shape: the imports naming what it declared or declares move, or a package in a folder that
#: joined or left an npm workspace; a project config: the imports of its projects move), every path
#: (a unit gone: the services moved).
NONE, MANIFESTS, CONFIGS, ALL = "none", "manifests", "configs", "all"


@pytest.mark.parametrize(
    ("path", "text", "reads"),
    [
        ("node/package.json", '{"name": "node", "version": "2.0.0", "scripts": {"start": "node ."}}\n', NONE),
        ("web2/packages/lib/package.json", '{"name": "@acme/lib", "main": "src/entry.js", "private": true}\n', NONE),
        ("web2/packages/lib/package.json", '{"name": "@acme/lib", "main": "src/other.js"}\n', MANIFESTS),  # its entry
        ("web2/packages/lib/package.json", '{"name": "@acme/lib2", "main": "src/entry.js"}\n', MANIFESTS),  # its name
        ("web2/packages/lib/package.json", None, ALL),  # a unit gone: the services change, all is walked
        ("node/package.json", '{"name": "storefront"}\n', MANIFESTS),  # the name imports use
        ("node/package.json", "{not json\n", MANIFESTS),  # it no longer declares anything
        ("web2/package.json", '{"name": "web2", "workspaces": ["libs/*"]}\n', MANIFESTS),  # the members
        ("gomod/go.mod", "module example.com/m\n\ngo 1.22\n\nrequire example.com/x v1.0.0\n", NONE),
        ("gomod/go.mod", "module example.com/renamed\n\ngo 1.21\n", MANIFESTS),
        ("rs/Cargo.toml", '[package]\nname = "my-crate"\nversion = "0.2.0"\n\n[dependencies]\nserde = "1"\n', NONE),
        ("rs/Cargo.toml", '[package]\nname = "other-crate"\nversion = "0.1.0"\n', MANIFESTS),  # use my_crate
        ("web2/tsconfig.json", '{"compilerOptions": {"paths": {"@cfg": ["src/other.ts"]}}}\n', CONFIGS),
    ],
)
def test_a_manifest_edited_moves_only_the_imports_naming_what_it_declares(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str, text: str | None, reads: str
) -> None:
    """INV-INDEX-11: a manifest declaring a package, edited with what import resolution reads of it
    unchanged (a dependency, a version, a script: its name, entries, subpath imports, workspaces as
    they were) leads every import where it led: nothing is read again. One whose name or entry
    changed reads the manifest tables again (not every path) and resolves only the imports that
    name what it declared or declares, and the ``#`` imports; a project config only the
    non-relative imports of its projects' files; one that moves the members of an npm workspace
    also the imports naming a package declared in a folder that joined or left it. Either way the
    index equals a build from scratch."""
    from mesh.index.build import _resolve

    root = tmp_path / "ws"
    with prepared_index(root, tmp_path / "cache", BASE) as index:
        manifests_read: list[int] = []
        tables = _resolve._Files  # the class of the tables the index holds
        read_manifests = tables.read_manifests

        def counted_read(self, db) -> None:
            manifests_read.append(1)
            read_manifests(self, db)

        monkeypatch.setattr(tables, "read_manifests", counted_read)
        built = count_file_tables(monkeypatch)
        resolved = _resolving(index, path, text)
        expected = {NONE: (0, 0), MANIFESTS: (0, 1), CONFIGS: (0, 1), ALL: (1, 1)}[reads]
        assert (len(built), len(manifests_read)) == expected
        assert len(resolved) == 1
        assert ("WHERE" not in resolved[0]) == (reads == ALL), resolved  # every import, or the named ones
        assert ("named_words" in resolved[0]) == (reads == MANIFESTS), resolved
        assert ("named_projects" in resolved[0]) == (reads == CONFIGS), resolved
        assert_as_from_scratch(index, tmp_path / "fresh", path)


def _resolving(index: Index, path: str, text: str | None) -> list[str]:
    """``path`` written with ``text`` (None: removed) and refreshed alone: the statements that
    selected the imports to resolve."""
    statements: list[str] = []
    index.store.writer_connection().set_trace_callback(statements.append)
    try:
        put(index.root, path, text)
        index.refresh(changed=[path])
    finally:
        index.store.writer_connection().set_trace_callback(None)
    return [sql for sql in statements if sql.startswith("SELECT i.rowid, i.file_id, i.module")]


#: Two folders declaring one package name: the npm workspace's member is the one imports lead to.
MEMBERS = {
    "mono/package.json": '{"name": "mono", "workspaces": ["packages/*"]}\n',
    "mono/packages/ui/package.json": '{"name": "@acme/ui", "main": "index.js"}\n',
    "mono/packages/ui/index.js": "export default 1;\n",
    "mono/shared/ui/package.json": '{"name": "@acme/ui", "main": "index.js"}\n',
    "mono/shared/ui/index.js": "export default 2;\n",
    "mono/app/main.js": "import ui from '@acme/ui';\nimport other from './other';\nexport default [ui, other];\n",
    "mono/app/other.js": "export default 3;\n",
}


@pytest.mark.parametrize(
    ("workspaces", "target"),
    [('["shared/*"]', "mono/shared/ui/index.js"), ('["packages/*", "shared/*"]', "mono/packages/ui/index.js"),
     ("[]", "mono/packages/ui/index.js")],
)  # fmt: skip
def test_an_npm_workspace_whose_members_change_moves_the_imports_of_their_packages(
    tmp_path: Path, workspaces: str, target: str
) -> None:
    """INV-INDEX-11: a member of an npm workspace is what an import of a name two folders declare
    leads to. The members changed (``workspaces``), the refresh reads the manifest tables again,
    not every path, and resolves again the imports naming a package declared in a folder that
    joined or left the workspace, not every import; the index equals a build from scratch."""
    root = tmp_path / "ws"
    with prepared_index(root, tmp_path / "cache", {**BASE, **MEMBERS}) as index:
        main = "f.path = 'mono/app/main.js'"
        assert _targets_of(index, main) == {"@acme/ui": "mono/packages/ui/index.js", "./other": "mono/app/other.js"}
        resolved = _resolving(index, "mono/package.json", '{"name": "mono", "workspaces": %s}\n' % workspaces)
        assert len(resolved) == 1 and "named_words" in resolved[0], resolved
        assert _targets_of(index, main) == {"@acme/ui": target, "./other": "mono/app/other.js"}
        assert_as_from_scratch(index, tmp_path / "fresh", workspaces)


#: A package with subpath imports and an import of another package through one, and two importers.
SUBPATHS = {
    "shop/package.json": '{"name": "@acme/shop", "imports": {"#db": "./src/db.js", "#ui/*": "@acme/ui/*"}}\n',
    "shop/src/db.js": "export const db = 1;\n",
    "shop/src/db2.js": "export const db = 2;\n",
    "shop/src/app.js": "import { db } from '#db';\nimport button from '#ui/button';\nexport default [db, button];\n",
    "ui/package.json": '{"name": "@acme/ui"}\n',
    "ui/button.js": "export default 1;\n",
    "ui2/button.js": "export default 2;\n",
    "web/main.js": "import shop from '@acme/shop';\nimport ui from '@acme/ui/button';\nexport default [shop, ui];\n",
}
#: (path, its new text or None to remove it, the target of shop/src/app.js's and web/main.js's imports after)
SUBPATH_STEPS = [
    ("shop/package.json", '{"name": "@acme/shop", "imports": {"#db": "./src/db2.js", "#ui/*": "@acme/ui/*"}}\n',
     {"#db": "shop/src/db2.js", "#ui/button": "ui/button.js", "@acme/ui/button": "ui/button.js"}),
    ("ui/package.json", '{"name": "@acme/widgets"}\n',  # '#ui/*' and '@acme/ui/button' lead nowhere
     {"#db": "shop/src/db2.js", "#ui/button": None, "@acme/ui/button": None}),
    ("ui2/package.json", '{"name": "@acme/ui"}\n',  # a new package of the old name: both lead there
     {"#db": "shop/src/db2.js", "#ui/button": "ui2/button.js", "@acme/ui/button": "ui2/button.js"}),
    ("shop/src/package.json", '{"name": "inner", "imports": {"#db": "./db.js"}}\n',  # nearer to app.js
     {"#db": "shop/src/db.js", "#ui/button": None, "@acme/ui/button": "ui2/button.js"}),
    ("shop/src/package.json", None,
     {"#db": "shop/src/db2.js", "#ui/button": "ui2/button.js", "@acme/ui/button": "ui2/button.js"}),
    ("ui2/package.json", None, {"#db": "shop/src/db2.js", "#ui/button": None, "@acme/ui/button": None}),
]


def test_inv_index_11_subpath_imports_and_package_names_follow_their_manifests(tmp_path: Path) -> None:
    """INV-INDEX-11: package.json files edited, added and removed, each refreshed alone: ``#``
    imports follow the ``imports`` of their nearest package.json (even one whose target is another
    package's name), an import of a package by name follows its renames; each time equal to a build
    from scratch."""
    root = tmp_path / "ws"
    with prepared_index(root, tmp_path / "cache", SUBPATHS) as index:
        for number, (path, text, targets) in enumerate(SUBPATH_STEPS):
            put(root, path, text)
            index.refresh(changed=[path])
            got = _targets_of(index, "f.path IN ('shop/src/app.js', 'web/main.js') AND i.module != '@acme/shop'")
            assert got == targets, (number, path)
            assert_as_from_scratch(index, tmp_path / f"fresh-{number}", (number, path))


#: TypeScript projects: one extending a shared config, a solution naming its project by ``references``.
PROJECTS = {
    "configs/base.json": '{"compilerOptions": {"paths": {"@lib/*": ["../lib/*"]}}}\n',
    "app/tsconfig.json": '{"extends": "../configs/base.json"}\n',
    "app/src/main.ts": (
        "import { u } from '@lib/util';\nimport { v } from 'shared/v';\nimport { w } from './w';\nexport const m = [u, v, w];\n"
    ),
    "app/src/w.ts": "export const w = 1;\n",
    "app/src/shared/v.ts": "export const v = 1;\n",
    "lib/util.ts": "export const u = 1;\n",
    "lib2/util.ts": "export const u = 2;\n",
    "sol/tsconfig.json": '{"files": [], "references": [{"path": "./pkg"}]}\n',
    "sol/pkg/tsconfig.json": '{"compilerOptions": {"paths": {"@x": ["./x.ts"]}}}\n',
    "sol/pkg/x.ts": "export const x = 1;\n",
    "sol/pkg/y.ts": "export const x = 2;\n",
    "sol/src/use.ts": "import { x } from '@x';\nexport const y = x;\n",
    "py/app.py": "import json\n",
}
#: (path, its new text or None to remove it, the targets of the TypeScript imports after)
PROJECT_STEPS = [
    ("configs/base.json", '{"compilerOptions": {"paths": {"@lib/*": ["../lib2/*"]}}}\n',  # what app extends
     {"@lib/util": "lib2/util.ts", "shared/v": None, "./w": "app/src/w.ts", "@x": "sol/pkg/x.ts"}),
    ("app/src/tsconfig.json", '{"compilerOptions": {"baseUrl": "."}}\n',  # nearer to main.ts
     {"@lib/util": None, "shared/v": "app/src/shared/v.ts", "./w": "app/src/w.ts", "@x": "sol/pkg/x.ts"}),
    ("app/src/tsconfig.json", None,
     {"@lib/util": "lib2/util.ts", "shared/v": None, "./w": "app/src/w.ts", "@x": "sol/pkg/x.ts"}),
    ("sol/pkg/tsconfig.json", '{"compilerOptions": {"paths": {"@x": ["./y.ts"]}}}\n',  # a project the solution names
     {"@lib/util": "lib2/util.ts", "shared/v": None, "./w": "app/src/w.ts", "@x": "sol/pkg/y.ts"}),
    ("configs/base.json", "{oops\n",  # cannot be read: ignored
     {"@lib/util": None, "shared/v": None, "./w": "app/src/w.ts", "@x": "sol/pkg/y.ts"}),
    ("configs/base.json", None, {"@lib/util": None, "shared/v": None, "./w": "app/src/w.ts", "@x": "sol/pkg/y.ts"}),
    ("configs/base.json", PROJECTS["configs/base.json"],  # what app extends comes (back)
     {"@lib/util": "lib/util.ts", "shared/v": None, "./w": "app/src/w.ts", "@x": "sol/pkg/y.ts"}),
]


def test_inv_index_11_a_project_config_moves_only_its_projects_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-INDEX-11: a tsconfig.json edited, added or removed, or a config one extends (edited,
    unreadable, removed, back), each refreshed alone, resolves again only the non-relative imports of
    the TypeScript and JavaScript files under the projects reading it (through ``extends`` or a
    solution's ``references``), without reading every path; each time equal to a build from scratch,
    the imports leading where TypeScript would take them."""
    root = tmp_path / "ws"
    with prepared_index(root, tmp_path / "cache", PROJECTS) as index:
        built = count_file_tables(monkeypatch)
        for number, (path, text, targets) in enumerate(PROJECT_STEPS):
            built.clear()  # the last build from scratch read them, of course
            put(root, path, text)
            statements: list[str] = []
            index.store.writer_connection().set_trace_callback(statements.append)
            index.refresh(changed=[path])
            index.store.writer_connection().set_trace_callback(None)
            assert built == [], (number, path)
            resolved = [sql for sql in statements if sql.startswith("SELECT i.rowid, i.file_id, i.module")]
            assert len(resolved) == 1 and "named_projects" in resolved[0], (number, resolved)
            assert _targets_of(index, "f.language = 'typescript'") == targets, (number, path)
            assert_as_from_scratch(index, tmp_path / f"fresh-{number}", (number, path))


def test_inv_index_11_a_folder_outside_every_service_is_an_area_while_it_holds_a_file(tmp_path: Path) -> None:
    """INV-INDEX-11: a file added in a folder outside every service makes that folder an area; the
    last file of an area removed unmakes it; a file the walk lists but leaves out for its bytes
    (generated code) counts as a file, as in a build from scratch; each change refreshed alone."""
    root = tmp_path / "ws"
    generated = "// Code generated by a tool. DO NOT EDIT.\nexport const x = 1;\n"
    #: (path, its text or None to remove it, the area it decides, whether that area is there after)
    steps = [
        ("newtop/notes.json", "{}\n", "newtop", True),
        ("newtop/deep/more.py", "X = 1\n", "newtop", True),
        ("newtop/notes.json", None, "newtop", True),
        ("newtop/deep/more.py", None, "newtop", False),
        ("tools/client.js", generated, "tools", True),  # left out for its bytes, listed by the walk
        ("tools/client.js", None, "tools", False),
    ]
    with prepared_index(root, tmp_path / "cache", BASE) as index:
        for number, (path, text, area, there) in enumerate(steps):
            put(root, path, text)
            index.refresh(changed=[path])
            with index.store.snapshot() as db:
                now = {folder for (folder,) in db.execute("SELECT path FROM areas")}
            assert (area in now) == there, (number, path, now)
            assert_as_from_scratch(index, tmp_path / f"fresh-{number}", (number, path))
        with index.store.snapshot() as db:
            assert db.execute("SELECT count(*) FROM skipped WHERE path = 'tools/client.js'").fetchone() == (0,)


PROTO = "proto/acme/inventory/v1/inventory.proto"
#: both copies of the package, edited together: a method gone from both is gone
PROTOS = (PROTO, "node/inventory.proto")
#: (the .proto's new text, whether it keeps its shape (package, options, type names))
PROTO_EDITS = [
    (BASE[PROTO] + "// a comment\n", True),
    (BASE[PROTO].replace("  rpc Reserve(R) returns (R);\n", ""), True),  # a method goes: its keys
    (BASE[PROTO].replace("service Inventory {\n", "service Inventory {\n  rpc Count(R) returns (R);\n"), True),
    (BASE[PROTO] + 'option java_package = "com.acme.inventory";\n', False),
    (BASE[PROTO].replace("message R {", "message Stock { string id = 1; }\nmessage R {"), False),
    (BASE[PROTO].replace("package acme.inventory.v1;", "package acme.stock.v1;"), False),
    (BASE[PROTO], False),
]


def test_inv_index_11_a_proto_edited_moves_only_the_imports_naming_it(
    tmp_path: Path, counted: list[str], monkeypatch
) -> None:
    """INV-INDEX-11: ``.proto`` files edited run the gRPC pass (their services and methods key the
    gRPC facts) without reading the workspace's paths again. Edited with the package, options and
    type names they had (a comment, a method), they resolve no import elsewhere; with a new shape
    (an option, a message, a package), only the imports of the files naming what they were or are.
    Each time the index equals a build from scratch, and a method's keys follow it."""
    root = tmp_path / "ws"
    keyed: list[list[tuple]] = []
    with prepared_index(root, tmp_path / "cache", BASE) as index:
        built = count_file_tables(monkeypatch)
        for number, (text, same) in enumerate(PROTO_EDITS):
            built.clear()  # the last build from scratch read them, of course
            for path in PROTOS:
                (root / path).write_text(text)
            counted.clear()
            statements: list[str] = []
            index.store.writer_connection().set_trace_callback(statements.append)
            index.refresh(changed=list(PROTOS))
            index.store.writer_connection().set_trace_callback(None)
            assert tuple(counted) == DERIVE, (number, counted)
            assert built == [], number
            resolved = [sql for sql in statements if sql.startswith("SELECT i.rowid, i.file_id, i.module")]
            assert len(resolved) == 1 and ("named_folded" in resolved[0]) == (not same), (number, resolved)
            assert_as_from_scratch(index, tmp_path / f"fresh-{number}", number)
            with index.store.snapshot() as db:
                keyed.append(sorted(db.execute(
                    "SELECT f.path, g.line, g.role, g.method_key, g.via FROM grpc g JOIN files f ON f.id = g.file_id"
                )))  # fmt: skip
    assert keyed[1] != keyed[0] and keyed[-1] == keyed[0], "a method gone, then back: its facts keyed so"


def test_a_go_program_that_comes_or_goes_changes_the_services(tmp_path: Path, walks: list[Path]) -> None:
    """A Go file that makes its folder a program (``package main`` with ``func main``), or stops
    making it one, splits or joins its module's services: that refresh walks everything, and the
    index equals a build from scratch. A Go file that leaves the folder's program status as it was
    (a second program's file beside one, or one of two that stops being one) is an edit like any
    other (no walk)."""
    root = tmp_path / "ws"
    program = "package main\n\nfunc main() {}\n"
    steps = [
        ("gomod/tool/main.go", program, True),  # a second program: the module splits
        ("gomod/cmd/flags.go", "package main\n\nvar verbose bool\n", False),  # cmd was a program already
        ("gomod/tool/main.go", "package tool\n\nfunc Run() {}\n", True),  # no longer a program
        ("gomod/tool/main.go", program, True),
        ("gomod/tool/main.go", None, True),  # the program's file goes
        ("gomod/cmd/main_other.go", program, False),  # a program's file where one is already: the same program
        ("gomod/cmd/main_other.go", "package main\n\nvar other bool\n", False),  # main.go still makes one
        ("gomod/cmd/main_other.go", None, False),
        ("gomod/cmd/flags.go", None, False),
    ]
    with prepared_index(root, tmp_path / "cache", BASE) as index:
        walks.clear()  # the first build's
        for number, (path, text, full) in enumerate(steps):
            put(root, path, text)
            index.refresh(changed=[path])
            assert bool(walks) == full, (number, path)
            assert_as_from_scratch(index, tmp_path / f"fresh-{number}", (number, path))
            walks.clear()
        with index.store.snapshot() as db:
            services = {path: service for path, service in db.execute("SELECT path, service FROM files")}
        assert services["gomod/cmd/main.go"] == services["gomod/go.mod"]  # one program again: one service


def test_a_go_edit_reads_its_folder_only_when_the_file_itself_became_or_stopped_being_a_program(
    tmp_path: Path, walks: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether a Go edit changes the services costs the edited file, not its folder: the folder's
    other Go files are read only when the edited file became or stopped being a program's."""
    from mesh.index.build import _build

    root = tmp_path / "ws"
    files = dict(BASE)
    files.update({f"gomod/cmd/part{n}.go": f"package main\n\nvar part{n} = {n}\n" for n in range(8)})
    asked: list[int] = []
    real = _build.go_program
    monkeypatch.setattr(_build, "go_program", lambda data: asked.append(1) or real(data))
    with prepared_index(root, tmp_path / "cache", files) as index:
        walks.clear()
        put(root, "gomod/cmd/part3.go", "package main\n\nvar part3 = 33\n")
        asked.clear()
        index.refresh(changed=["gomod/cmd/part3.go"])
        assert len(asked) == 2 and not walks  # the file as held and as on disk, nothing else
        put(root, "gomod/cmd/part3.go", "package main\n\nfunc main() {}\n")  # a second main: same program
        asked.clear()
        index.refresh(changed=["gomod/cmd/part3.go"])
        assert len(asked) > 2 and not walks  # its folder read, as held and on disk: still one program
        assert_as_from_scratch(index, tmp_path / "fresh", "part3")
