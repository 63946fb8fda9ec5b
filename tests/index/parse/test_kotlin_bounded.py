"""A malformed Kotlin file that drives the pinned grammar into a pathological parse (gigabytes of
memory, then a crash) costs the file its facts, never the index worker or the machine."""

from __future__ import annotations

import subprocess
import sys

#: Found by fuzzing the JVM link extractor: plain tree-sitter-kotlin 1.1.0 takes over 15 GB on it.
BOOM = (
    b'{{}\n""\n      ]    .post("http://payments/charges") { setBody("x") }\n            }\n'
    b'            route("/{id}/items", HttpMethod.Put) { handle { } }\n        }\n    }\n}\n\n'
    b'fun Route.customerRoutes() {\n    route(route("/static/*").handler(StaticHandler.create());\n'
    b'        WebClient client = WebClient.create(vertx);\n        client.get(8080, "catalog", "/items").send();\n'
    b'        client.postAbs(""/customers") {\n        delete("{id}") { }\n    }\n}\n'
)

CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))  # a regression fails here, not the machine
from mesh.index.parse import extract
facts = extract("boom.kt", sys.stdin.buffer.read())
print(facts.error)
"""


def test_a_pathological_kotlin_file_is_given_up_within_bounds_INV_INDEX_6() -> None:
    """INV-INDEX-6: extraction is total: the grammar's runaway parse is cut by a progress budget and
    the file's error says why."""
    done = subprocess.run([sys.executable, "-c", CHILD], input=BOOM, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert "the Kotlin grammar gave up on this file" in done.stdout.decode()
