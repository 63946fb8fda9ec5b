"""A saved edit costs the edit, not the workspace (INV-INDEX-11).

An edit of existing files that reach nothing else (no gRPC or link fact, no server type's name,
package folder, service or registration in reach, before or after) resolves only its own imports;
an edit reaching only the links (a route, a call, a setting, a constant) runs the links but not the
gRPC derivation, and one reaching only the gRPC derivation runs it but not the links. Any other
change runs both over the whole workspace. Either way the index it leaves holds exactly the facts of
a build from scratch of the same files.
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesh.index import Index
from mesh.index.build import _build, _resolve

from ._compare import assert_as_from_scratch, count_file_tables
from .test_grpc_derivation import CHAINS, INVENTORY_PROTO, write

PLAIN = "def helper():\n    return 1\n"

WORKSPACE = {
    **CHAINS,
    "py/app/extra.py": PLAIN,
    "py/app/plain.py": PLAIN,
    "go/server/util.go": "package server\n\nfunc helper() int { return 1 }\n",
    "cs/Util.cs": "namespace Cs;\npublic class Util { }\n",
    "node/package.json": '{"name": "node"}\n',
    "node/inventory.proto": INVENTORY_PROTO,
    "node/src/server.js": (
        "const grpc = require('@grpc/grpc-js');\n"
        "const protoLoader = require('@grpc/proto-loader');\n"
        "const pkg = grpc.loadPackageDefinition(protoLoader.loadSync('inventory.proto')).acme.inventory.v1;\n"
        "const { StockKeeper } = require('./keeper');\n"
        "const server = new grpc.Server();\n"
        "server.addService(pkg.Third.service, new StockKeeper());\n"
    ),
    "node/src/keeper.js": "class StockKeeper {\n}\nmodule.exports = { StockKeeper };\n",
    "web/requirements.txt": "flask\n",
    "web/app.py": (
        'from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.route("/orders")\ndef orders():\n    return ""\n'
    ),
    "web/util.py": PLAIN,
    "web/NOTES.md": "# Notes\n\nThe web app.\n",
    "web/urls.py": 'BILLING_URL = "http://billing:8080"\n',
    "web/client.py": (
        "import requests\n\nfrom urls import BILLING_URL\n\n\n"
        "def invoices():\n    return requests.get(f\"{BILLING_URL}/invoices\")\n"
    ),
    "billing/requirements.txt": "flask\n",
    "billing/app.py": (
        'from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.route("/invoices")\ndef invoices():\n'
        '    return ""\n'
    ),
}

#: The whole-workspace passes an edit runs: none (a quiet edit), one of them, or both.
QUIET: tuple[str, ...] = ()
DERIVE = ("derive",)
LINKS = ("links",)

#: (path, new text, the passes it runs): each applied in turn, the index compared with a build from
#: scratch after each.
EDITS = [
    ("py/app/plain.py", PLAIN + "\n\ndef more():\n    return 2\n", QUIET),
    # now subclasses a server type in sight (same folder): derived SERVER and HANDLER facts appear
    ("py/app/extra.py", "from .base import BaseInventory\n\n\nclass Extra(BaseInventory):\n"
                        "    def Reserve(self, request, context):\n        return None\n", DERIVE),  # fmt: skip
    # and no longer does: they go (the file stops being loud)
    ("py/app/extra.py", PLAIN, DERIVE),
    ("py/app/extra.py", PLAIN + "\n\ndef again():\n    return 3\n", QUIET),
    # the middle of a chain two levels deep no longer derives from the base: its subclass's handlers go
    ("py/app/impl.py", CHAINS["py/app/impl.py"].replace("class Middle(BaseInventory)", "class Middle(object)"),
     DERIVE),  # fmt: skip
    ("py/app/impl.py", CHAINS["py/app/impl.py"], DERIVE),
    # a method of the Go server type in another file of its package
    ("go/server/util.go", "package server\n\nfunc (s *Server) Release(ctx context.Context, r *pb.R) (*pb.R, error)"
                          " { return nil, nil }\n", DERIVE),  # fmt: skip
    # another part of a C# partial server class
    ("cs/Util.cs", "namespace Cs;\npublic partial class Impl {\n"
                   "  public override Task<R> Release(R r, ServerCallContext c) => null;\n}\n", DERIVE),  # fmt: skip
    # the implementation a Node registration imports gets the method its service declares
    ("node/src/keeper.js", "class StockKeeper {\n  reserve(call, cb) {}\n}\nmodule.exports = { StockKeeper };\n",
     DERIVE),  # fmt: skip
    # a route's line moves; a route appears in a plain file; the first one goes
    ("web/app.py", "# moved\n" + WORKSPACE["web/app.py"], LINKS),
    ("web/util.py", 'from app import app\n\n\n@app.route("/health")\ndef health():\n    return ""\n', LINKS),
    ("web/app.py", "from flask import Flask\n\napp = Flask(__name__)\n", LINKS),
    # a constant of one file moves the call of another to a host outside the workspace, and back
    ("web/urls.py", 'BILLING_URL = "http://billing.example.com"\n', LINKS),
    ("web/urls.py", WORKSPACE["web/urls.py"], LINKS),
    # the call's own file: its path no longer meets the route
    ("web/client.py", WORKSPACE["web/client.py"].replace("/invoices", "/refunds"), LINKS),
    # the route the call reaches goes, then comes back
    ("billing/app.py", "from flask import Flask\n\napp = Flask(__name__)\n", LINKS),
    ("billing/app.py", WORKSPACE["billing/app.py"], LINKS),
    # the base stops being a server type; a plain file subclasses it meanwhile (quiet: no server type
    # of that name); the base is one again: the plain file's subclass derives from it like the others
    ("py/app/base.py", CHAINS["py/app/base.py"].replace("(inventory_pb2_grpc.InventoryServicer)", ""), DERIVE),
    ("py/app/plain.py", "from .base import BaseInventory\n\n\nclass Later(BaseInventory):\n"
                        "    def Release(self, request, context):\n        return None\n", QUIET),  # fmt: skip
    ("py/app/base.py", CHAINS["py/app/base.py"], DERIVE),
    ("web/NOTES.md", "# Notes\n\nThe web app, and /orders.\n", QUIET),
    ("py/app/plain.py", PLAIN, DERIVE),  # its subclass goes
]


@pytest.fixture(autouse=True)
def inline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_build, "INLINE_MAX", 1000)  # every build parsed in this process: no worker start-up


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Names of the whole-workspace passes run by resolves (the derivation, the links) in this
    thread (not in one another test left running in the same worker)."""
    runs: list[str] = []
    derive, links = _resolve._Derivation.run, _resolve._links
    mine = threading.get_ident()

    def run(self) -> None:
        if threading.get_ident() == mine:
            runs.append("derive")
        derive(self)

    def linked(db, files) -> None:
        if threading.get_ident() == mine:
            runs.append("links")
        links(db, files)

    monkeypatch.setattr(_resolve._Derivation, "run", run)
    monkeypatch.setattr(_resolve, "_links", linked)
    yield runs


def test_inv_index_11_an_edit_leaves_the_facts_of_a_build_from_scratch(tmp_path: Path, counted: list[str]) -> None:
    """INV-INDEX-11: after every edit, quiet or not, the index equals a fresh build of the same
    files; each edit ran only the whole-workspace passes it reaches (none for the quiet ones)."""
    root = tmp_path / "ws"
    write(root, WORKSPACE)
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    try:
        for number, (path, text, passes) in enumerate(EDITS):
            (root / path).write_text(text)
            counted.clear()
            index.refresh(changed=[path])
            assert tuple(counted) == passes, (number, path, counted)
            assert_as_from_scratch(index, tmp_path / f"fresh-{number}", path)
    finally:
        index.close()


def test_inv_index_11_the_loud_edits_change_derived_facts(tmp_path: Path) -> None:
    """The comparison above is not vacuous: each edit said to reach the workspace changes a derived
    gRPC fact or a resolved link, which a resolve of the edited file's imports alone would miss."""
    root = tmp_path / "ws"
    write(root, WORKSPACE)
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()

    def derived() -> list[tuple]:
        with index.store.snapshot() as db:
            return sorted(
                db.execute(
                    "SELECT f.path, g.role, g.line, g.symbol, g.via FROM grpc g JOIN files f ON f.id = g.file_id"
                    " WHERE g.via != '' OR g.service_key IS NULL"
                )
            ) + sorted(db.execute("SELECT f.path, r.path, r.line, r.hidden, r.via FROM http_routes r"
                                  " JOIN files f ON f.id = r.file_id")) + sorted(  # fmt: skip
                db.execute(
                    "SELECT f.path, c.target, c.target_kind, c.evidence FROM http_calls c"
                    " JOIN files f ON f.id = c.file_id"
                )
            )

    try:
        for path, text, passes in EDITS:
            before = derived()
            (root / path).write_text(text)
            index.refresh(changed=[path])
            if passes and path not in ("web/util.py", "web/client.py"):  # their own route, their own call
                assert derived() != before, path
            if not passes:
                assert derived() == before, path
    finally:
        index.close()


#: What each file may become in the randomised sequences: its first text and every text EDITS
#: gives it, so that any of them may follow any other, one file or two at a time.
VARIANTS: dict[str, list[str]] = {}
for _path, _text, _ in EDITS:
    VARIANTS.setdefault(_path, [WORKSPACE[_path]])
    if _text not in VARIANTS[_path]:
        VARIANTS[_path].append(_text)
_PATHS = sorted(VARIANTS)
_STEP = st.lists(
    st.tuples(st.sampled_from(_PATHS), st.integers(min_value=0, max_value=8)),
    min_size=1, max_size=2, unique_by=lambda edit: edit[0],
)  # fmt: skip


@settings(
    max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(_STEP, min_size=1, max_size=6))
def test_inv_index_11_random_sequences_of_loud_and_quiet_edits_leave_a_build_from_scratch(
    steps: list[list[tuple[str, int]]],
) -> None:
    """INV-INDEX-11: a sequence of edits (one file or two at once) drawn from the texts above, in
    any order, each refresh running only the passes its files reach: after every one the index
    equals a build from scratch of the same files (derandomized: the same sequences on every run)."""
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        root = work / "ws"
        write(root, WORKSPACE)
        index = Index(root, work / "cache", workers=1)
        index.refresh()
        try:
            for number, step in enumerate(steps):
                for path, choice in step:
                    (root / path).write_text(VARIANTS[path][choice % len(VARIANTS[path])])
                index.refresh(changed=[path for path, _ in step])
                assert_as_from_scratch(index, work / f"fresh-{number}", (number, step))
        finally:
            index.close()


def test_inv_index_11_a_server_builds_the_resolver_tables_before_the_first_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watched index builds the tables an edit resolves imports against once its first refresh is
    done: the first saved edit, like every later one, does not build them."""
    from mesh.index.build._live import LiveIndex

    root = tmp_path / "ws"
    write(root, WORKSPACE)
    built = count_file_tables(monkeypatch)
    live = LiveIndex(root, tmp_path / "cache", workers=1, reconcile_s=3600)
    live.start()
    try:
        assert live.wait_settled(300)  # returns once settled; a loaded machine may take long
        deadline = time.monotonic() + 30
        while live.index is None or live.index._files is None:
            assert time.monotonic() < deadline, "the tables were never built ahead"
            time.sleep(0.02)
        before = len(built)
        (root / "py/app/plain.py").write_text(PLAIN + "\n\ndef ahead():\n    return 3\n")
        live.index.refresh(changed=["py/app/plain.py"])
        assert len(built) == before
        with live.index.store.snapshot() as db:
            assert db.execute("SELECT 1 FROM defs WHERE name = 'ahead'").fetchone()
    finally:
        live.close()


def test_inv_index_11_the_watcher_counts_no_table_after_an_edit(tmp_path: Path) -> None:
    """INV-INDEX-11: the watcher's refresh of a saved file asks for no count of what the index
    holds (a ``count(*)`` of every fact table is O(workspace)); a caller that asks gets them."""
    from mesh.index.build._watch import Watcher

    root = tmp_path / "ws"
    write(root, WORKSPACE)
    index = Index(root, tmp_path / "cache", workers=1)
    full = index.refresh()
    assert full.counted and full.symbols > 0 and full.files == len(WORKSPACE)
    statements: list[str] = []
    index.store.writer_connection().set_trace_callback(statements.append)
    seen: list = []
    watcher = Watcher(index, reconcile_s=600, on_refresh=seen.append)
    try:
        (root / "py/app/plain.py").write_text(PLAIN + "\n\ndef watched():\n    return 4\n")
        assert watcher._refresh(["py/app/plain.py"])
        (summary,) = seen
        assert not summary.counted and summary.parsed == 1 and summary.generation == full.generation + 1
        assert statements, "the trace saw the refresh's statements"
        assert not [sql for sql in statements if "count(" in sql.lower()], statements
        statements.clear()
        again = index.refresh(changed=["py/app/plain.py"])  # nothing changed, but a caller's refresh counts
        assert again.counted and again.symbols == full.symbols + 1
        assert any("count(" in sql.lower() for sql in statements)
    finally:
        index.store.writer_connection().set_trace_callback(None)
        index.close()
