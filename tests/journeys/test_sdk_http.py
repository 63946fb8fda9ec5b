"""Journey: the official TypeScript SDK's Streamable HTTP client against a real ``mesh-mcp http``.

``node/sdk_http_client.mjs`` (installed with the pinned ``@modelcontextprotocol/sdk`` by
:mod:`.node_sdk`) connects a ``Client`` over ``StreamableHTTPClientTransport`` to ``mesh-mcp http
--port 0 --standalone`` serving the fixture workspace (its index built beforehand, so every call
is an ordinary answer). The SDK speaks the handshake era only; its ``Client`` always asks for its
latest revision, so the script rewrites the ``protocolVersion`` of ``initialize`` (and nothing
else) to negotiate each revision the SDK supports: the SDK itself checks the answer, then sends
the negotiated version and the session id on every request. In each revision it lists the tools,
calls every built-in tool (the SDK validates ``structuredContent`` against the ``outputSchema``
with ajv, and throws on a success without one, from 2025-06-18 on; earlier revisions see neither),
sets the log level and hears the server's error about a crashing test tool as
``notifications/message`` on the GET stream, ends the session with DELETE, and finds the old
session id refused (404) by a fresh transport that reuses it.

Skipped, saying why, without node and npm or when the SDK cannot be installed (no registry).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from .conftest import BUILTIN_TOOL_NAMES, INTERNAL_ERROR, REPO_ROOT, SERVED_TOOL_NAMES, server_env
from .node_sdk import node_sdk_client
from .test_http_journey import Server

pytestmark = [pytest.mark.journey, pytest.mark.timeout(60)]

FIXTURE: Final = REPO_ROOT / "tests" / "fixtures" / "workspace"
#: Deadline for one whole SDK session (a hang detector: one takes under a second).
SESSION_TIMEOUT_S: Final = 30.0
#: How long the script waits for the log message after the crash it reports (a hang detector).
LOG_WAIT_MS: Final = 10_000
#: One call per built-in tool that answers (no ``isError``) on the fixture workspace, then one that
#: is an ``isError`` answer (which carries no structuredContent, and the SDK accepts as it is).
BUILTIN_CALLS: Final[list[list[Any]]] = [
    ["smart_search", {"query": "Reserve"}],
    ["dependents", {"target": "acme.common.v1.Money", "depth": 3}],
    ["grpc_trace", {"target": "acme.orders.v1.Orders/GetOrder"}],
    ["endpoint_trace", {"target": "GET /orders/{id}"}],
    ["impact_matrix", {"changes": ["proto/acme/orders/v1/orders.proto"]}],
    ["doc_sections", {"heading": "runbook"}],
    ["outline", {"path": "orders/orders/store.py"}],
    ["symbol", {"name": "OrderStore.put"}],
    ["references", {"name": "OrderStore"}],
    ["files", {"pattern": "**/*.proto"}],
    ["grpc_trace", {"target": "Nothing.v1.Here/Not"}],
]
#: Revisions with ``outputSchema`` and ``structuredContent`` (INV-TOOL-9).
STRUCTURED_VERSIONS: Final = ("2025-06-18", "2025-11-25")
#: (what ``initialize`` asks for, what is negotiated): each handshake revision mesh serves, and
#: 2024-10-07, which the SDK supports and mesh does not: the server offers its latest instead.
NEGOTIATIONS: Final = [
    pytest.param("2024-11-05", "2024-11-05", id="2024-11-05"),
    pytest.param("2025-03-26", "2025-03-26", id="2025-03-26"),
    pytest.param("2025-06-18", "2025-06-18", id="2025-06-18"),
    pytest.param("2025-11-25", "2025-11-25", id="2025-11-25"),
    pytest.param("2024-10-07", "2025-11-25", id="2024-10-07-counter-offered"),
]


@pytest.fixture(scope="module")
def sdk_folder() -> Path:
    return node_sdk_client()


@pytest.fixture(scope="module")
def server(sdk_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``mesh-mcp http`` on the fixture workspace, over a cache holding its index."""
    cache = tmp_path_factory.mktemp("sdk-http-cache")
    built = subprocess.run(
        [sys.executable, "-m", "mesh", "index", str(FIXTURE)],
        env=server_env(extra={"MESH_CACHE_DIR": str(cache)}),
        cwd=REPO_ROOT,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert built.returncode == 0, built.stderr.decode(errors="replace")
    started = Server(env={"MESH_CACHE_DIR": str(cache), "MESH_HTTP_KEEPALIVE_S": "5"}, workspace=FIXTURE)
    yield started
    started.close()


def run_sdk_client(folder: Path, url: str, version: str) -> dict[str, Any]:
    plan = {
        "version": version,
        "calls": BUILTIN_CALLS,
        "logLevel": "warning",
        "logTrigger": ["fail", {"how": "crash"}],
        "waitMs": LOG_WAIT_MS,
    }
    done = subprocess.run(
        ["node", str(folder / "sdk_http_client.mjs"), url, json.dumps(plan)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=SESSION_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize(("asked", "version"), NEGOTIATIONS)
def test_the_typescript_sdk_http_client_in_every_handshake_version_INV_CONF_2(
    sdk_folder: Path, server: Server, asked: str, version: str
) -> None:
    """INV-CONF-2 (INV-HTTP-2, INV-TOOL-8, INV-TOOL-9, INV-LOG-2, INV-LOG-4 seen by this client)."""
    out = run_sdk_client(sdk_folder, server.url, asked)
    assert out["asked"] == asked and out["version"] == version
    assert out["errors"] == [], "the client reported no error while the session lasted"
    assert "logging" in out["capabilities"] and "tools" in out["capabilities"]

    # The session id came with initialize's answer and went with every later request, with the
    # negotiated version; the GET stream opened.
    session = out["sessionId"]
    assert isinstance(session, str) and session
    main = [exchange for exchange in out["exchanges"] if exchange["transport"] == "main"]
    first, *rest = main
    assert (first["method"], first["status"], first["session"]) == ("POST", 200, None)
    assert all(exchange["session"] == session for exchange in rest), rest
    assert all(exchange["protocolVersion"] == version for exchange in rest), rest
    assert any(
        (exchange["method"], exchange["status"], exchange["contentType"]) == ("GET", 200, "text/event-stream")
        for exchange in rest
    ), rest

    # Every tool listed; every built-in tool called and its result accepted by the SDK.
    assert list(out["tools"]) == list(SERVED_TOOL_NAMES)
    structured = version in STRUCTURED_VERSIONS
    for name in BUILTIN_TOOL_NAMES:
        schema = out["tools"][name]
        assert (schema is not None and schema["type"] == "object") if structured else schema is None, name
    *answers, error = out["calls"]
    assert [answer["name"] for answer in answers] == list(BUILTIN_TOOL_NAMES)
    for answer in answers:
        assert "thrown" not in answer, answer
        assert not answer["isError"], (answer["name"], answer["text"])
        assert answer["text"].startswith("#"), answer["name"]
        if structured:
            assert set(answer["structured"]) == set(out["tools"][answer["name"]]["required"]), answer["name"]
        else:
            assert answer["structured"] is None, answer["name"]
    assert error.get("isError") is True and error["structured"] is None, error

    # logging/setLevel, then the crash: its answer is -32603, the server's error comes as a log
    # message, in the server's own words only.
    assert out["setLevel"] == {}
    assert out["trigger"]["thrown"]["code"] == INTERNAL_ERROR
    crashes = [log for log in out["logs"] if log["logger"] == "mesh.server" and log["level"] == "error"]
    assert crashes, out["logs"]
    assert crashes[0]["data"]["exception"] == "RuntimeError"
    assert all(log["level"] in ("warning", "error", "critical", "alert", "emergency") for log in out["logs"])
    assert "simulated crash" not in json.dumps(out["logs"])

    # DELETE ended the session; the old id is refused afterwards.
    deletes = [exchange for exchange in main if exchange["method"] == "DELETE"]
    assert [(exchange["status"], exchange["session"]) for exchange in deletes] == [(200, session)]
    assert out["sessionAfterDelete"] is None
    stale = [exchange for exchange in out["exchanges"] if exchange["transport"] == "stale"]
    assert [(exchange["method"], exchange["status"], exchange["session"]) for exchange in stale] == [
        ("POST", 404, session)
    ]
    assert out["afterDelete"]["thrown"]["code"] == 404
    # stderr shows each crash whole, and no other traceback.
    assert server.stderr.count("Traceback") == server.stderr.count("RuntimeError: simulated crash")
