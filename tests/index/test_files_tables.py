"""Files added and removed: the resolver's path tables follow them, as a fresh read would give them,
at the cost of those files (INV-INDEX-11).

A changed-paths refresh that adds or removes files (none a ``.proto``, manifest or project config)
updates the tables it resolved the last refresh against (:meth:`_Files.change`) instead of reading
every path again; after every refresh they must equal :func:`file_tables` read from the index, and
the index must hold exactly the imports a build from scratch gives.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesh.index.build import _resolve

from ._compare import assert_as_from_scratch, count_file_tables, prepared_index, put
from .test_grpc_derivation import write

BASE = {
    "py/app/__init__.py": "",
    "py/app/main.py": "from .util import helper\nfrom app.models import Order\n\n\ndef run():\n    return helper()\n",
    "py/app/util.py": "def helper():\n    return 1\n",
    "go/go.mod": "module example.com/shop\n\ngo 1.21\n",
    "go/cmd/main.go": 'package main\n\nimport "example.com/shop/store"\n\nfunc main() { store.Open() }\n',
    "go/store/store.go": "package store\n\nfunc Open() {}\n",
    "web/src/index.ts": "import { price } from './price';\nexport const total = price(1);\n",
}

#: files that may come and go: some are what BASE's imports name (they resolve, then stop resolving)
CANDIDATES = {
    "py/app/models.py": "class Order:\n    pass\n",
    "py/app/models/__init__.py": "class Order:\n    pass\n",
    "py/app/util.py": "def helper():\n    return 2\n",
    "py/app/deep/more.py": "from ..util import helper\n",
    "go/store/extra.go": "package store\n\nfunc Close() {}\n",
    "go/store/a_first.go": "package store\n\nfunc First() {}\n",
    "go/store/notes.md": "# Notes\n",
    "go/cmd/main.go": 'package main\n\nimport "example.com/shop/store"\n\nfunc main() { store.Open() }\n',
    "web/src/price.ts": "export function price(n: number) { return n; }\n",
    "web/src/price/index.ts": "export function price(n: number) { return n * 2; }\n",
    "web/src/A.ts": "export const a = 1;\n",
    "top.py": "import app.util\n",
}

changes = st.lists(
    st.lists(st.tuples(st.sampled_from(sorted(CANDIDATES)), st.booleans()), min_size=1, max_size=3),
    min_size=1,
    max_size=4,
)


def _tables(files: _resolve._Files) -> dict[str, object]:
    return {
        name: dict(getattr(files, name)) if isinstance(getattr(files, name), dict) else getattr(files, name)
        for name in ("service", "language", "in_folder", "by_tail", "folder_service", "folders", "go_folders",
                     "folder_suffix")
    }  # fmt: skip


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=changes)
def test_inv_index_11_added_and_removed_files_keep_the_tables_as_a_fresh_read(
    tmp_path_factory, batches: list[list[tuple[str, bool]]]
) -> None:
    tmp = tmp_path_factory.mktemp("tables")
    root = tmp / "ws"
    with prepared_index(root, tmp / "cache", BASE) as index:
        for batch in batches:
            changed = []
            for path, present in batch:
                put(root, path, CANDIDATES[path] if present else None)
                changed.append(path)
            index.refresh(changed=changed)
            kept = index._files
            assert kept is not None
            with index.store.snapshot() as db:
                assert _tables(kept) == _tables(_resolve.file_tables(db))
        assert_as_from_scratch(index, tmp / "scratch")


def test_inv_index_11_adding_a_file_reads_no_other_path(tmp_path: Path, monkeypatch) -> None:
    """The point: an added file does not make the resolver read every path of the workspace again."""
    root = tmp_path / "ws"
    with prepared_index(root, tmp_path / "cache", BASE) as index:

        def target() -> str | None:
            with index.store.snapshot() as db:
                return db.execute("SELECT target_path FROM imports WHERE module = 'app.models'").fetchone()[0]

        built = count_file_tables(monkeypatch)
        before = target()
        write(root, {"py/app/models.py": CANDIDATES["py/app/models.py"]})
        index.refresh(changed=["py/app/models.py"])
        assert target() == "py/app/models.py"
        (root / "py/app/models.py").unlink()
        index.refresh(changed=["py/app/models.py"])
        assert target() == before != "py/app/models.py"
        assert built == []
