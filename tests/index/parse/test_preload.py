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
