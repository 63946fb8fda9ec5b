"""A parse worker imports what a file needs before the file's time budget starts
(``mesh.index.parse.preload``): compiling a module is no part of parsing a file, and on a loaded
machine, with no bytecode kept, it took longer than the budget and cost the file its facts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_PROBE = """
import json, sys
from mesh.index.parse import preload
before = set(sys.modules)
preload(sys.argv[1])
after = {name.rsplit(".", 1)[-1] for name in set(sys.modules) - before if name.startswith("mesh.index.parse.")}
print(json.dumps(sorted(after)))
"""


def _loaded_by(path: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", _PROBE, path], capture_output=True, text=True, check=True, timeout=60)
    return set(json.loads(done.stdout))


@pytest.mark.parametrize(
    ("path", "needed"),
    [
        # the links module the JS/TS extractor imports only when it first runs
        ("web/src/app.ts", {"_typescript", "_ecmascript", "_ecmascript_links", "_kiota", "_openapi_clients"}),
        ("web/src/app.js", {"_javascript", "_ecmascript_links"}),
        # a file of no language: configuration, OpenAPI documents, deployment descriptors
        ("orders/src/main/resources/application.yml", {"_config", "_deploy", "_openapi", "_serverless"}),
        ("orders/openapi.json", {"_config", "_openapi", "_serverless"}),
        ("web/package.json", {"_manifests", "_config", "_openapi"}),
        ("web/Pages/Index.cshtml", {"_razor"}),
        ("orders/Main.java", {"_java", "_jvm_links", "_jvm_fluent"}),
    ],
)
def test_what_a_file_needs_is_imported_before_its_budget(path: str, needed: set[str]) -> None:
    assert needed <= _loaded_by(path)


_COMPILES = """
import json, sys
from mesh.index.parse import _common, extract, preload
preload(sys.argv[1])
before = len(_common._queries)
extract(sys.argv[1], sys.stdin.buffer.read())
print(json.dumps(len(_common._queries) - before))
"""

_SOURCES = {
    "svc/Orders.cs": b"using Rules = A.B;\n"
    b"class Orders { List<Order> items; void M() { foreach (var o in items) o.Ship(); } }\n",
    "svc/orders.py": b"import os\nclass Orders:\n    items: list[int]\n"
    b"    def m(self):\n        return [i for i in self.items]\n",
    "svc/orders.rs": b"struct Orders { items: Vec<Order> }\n"
    b"impl Orders { fn m(&self) { for o in &self.items { o.ship(); } } }\n",
    "svc/orders.cpp": b"#include <vector>\n"
    b"class Orders { std::vector<Order> items; void M() { for (auto& o : items) o.Ship(); } };\n",
    "web/src/app.tsx": b"export const App = (p: {items: Order[]}) => <div>{p.items.map(o => o.id)}</div>;\n",
}


@pytest.mark.parametrize("path", sorted(_SOURCES))
def test_the_queries_a_file_needs_are_compiled_before_its_budget(path: str) -> None:
    """Compiling a query takes 0.1-0.7 s (seconds on a loaded machine): preload compiles the
    language's, so that parsing the file compiles none under its budget."""
    done = subprocess.run([sys.executable, "-c", _COMPILES, path], input=_SOURCES[path], capture_output=True,
                          check=True, timeout=60)  # fmt: skip
    assert json.loads(done.stdout) == 0


_ALARM = """
import signal, sys, time
from mesh.index.parse import _common, _navigation

def over(*_):
    raise TimeoutError("the budget ran out")

signal.signal(signal.SIGALRM, over)
text = _navigation.query_text("csharp", "references") + "\\n; again"
# A budget this compilation outlasts (0.66 s, quiet), read and called so that nothing but the call
# runs on it before the compilation stops it: 0.05 s, with the query's text read inside it, once ran
# out before the compilation began on a loaded machine.
signal.setitimer(signal.ITIMER_REAL, 0.25)
_common.query("csharp", text)
left = signal.getitimer(signal.ITIMER_REAL)[0]
assert 0 < left <= 0.25, left
try:
    time.sleep(1)
except TimeoutError:
    print("fired after")
"""


def test_a_query_compiles_with_the_budget_stopped() -> None:
    """INV-INDEX-4. The rest (Kotlin's and Ruby's own queries, any later one): compiling a query stops the
    budget's timer and starts it again with what was left, so the alarm fires after, not inside."""
    done = subprocess.run([sys.executable, "-c", _ALARM], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "fired after"


@pytest.mark.parametrize("path", ["api/orders.proto", "docs/README.md", "deploy/values.yaml", "Dockerfile"])
def test_files_read_without_tree_sitter_preload_too(path: str) -> None:
    """A ``.proto`` or a Markdown file has no tree-sitter grammar: its preload compiles nothing
    and raises nothing (the file would otherwise lose its facts)."""
    from mesh.index.parse import preload

    preload(path)
