"""Journey: the official MCP conformance suite against a real ``mesh-mcp http``.

Theory of operation
-------------------
``tests/journeys/conformance/`` pins ``@modelcontextprotocol/conformance`` (``package.json`` and
its ``package-lock.json``): 0.1.13, the newest release that runs on Node 20 (0.1.14 and later
import ``fs.globSync``, Node 22). :func:`conformance_suite` installs it (``npm ci``) once per lock
file into the user's cache, as ``node_sdk.py`` installs the TypeScript SDK; without node and npm,
or without a registry, the journey is skipped and says why.

The server is ``mesh-mcp http --port 0`` on the fixture workspace, with a cache of its own, in
both ways it runs: standalone, and on the workspace's daemon (a socket folder of the test's own,
the daemon stopped afterwards). The suite runs every server scenario it has (``--suite all``),
writing one ``checks.json`` per scenario; each is judged against :data:`EXPECTED`, the one table
of what mesh must pass and of what it is excused from, by name, with the reason (README, "Proof by
clients nobody here wrote", shows the same table):

* ``pass``: every check ``SUCCESS`` or ``INFO``, at least one ``SUCCESS``;
* ``info``: the suite applies no verdict to this server (every check ``INFO``), none fails;
* an exception: the scenario must fail, and for the reason given (an error naming the missing
  method or the suite's own tool), so that the table cannot outlive what it excuses.

A scenario the pinned suite has and the table does not name fails the journey: a new pin needs a
decision for each new scenario (INV-CONF-1).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from .conftest import REPO_ROOT

pytestmark = [pytest.mark.journey, pytest.mark.timeout(300)]

SOURCE: Final = Path(__file__).resolve().parent / "conformance"
FILES: Final = ("package.json", "package-lock.json")
PACKAGE: Final = Path("node_modules") / "@modelcontextprotocol" / "conformance"
INSTALL_TIMEOUT_S: Final = 300.0
#: Hang detectors, never speed claims.
START_TIMEOUT_S: Final = 30.0
SUITE_TIMEOUT_S: Final = 180.0
STOP_TIMEOUT_S: Final = 15.0
FIXTURE: Final = REPO_ROOT / "tests" / "fixtures" / "workspace"

PASS: Final = "pass"
INFO: Final = "info"
#: Why a scenario does not apply, and what its failure must say (a regular expression).
NO_METHOD: Final = "mesh serves no {what} (no `{capability}` capability): the request is -32601"
SUITE_TOOL: Final = "calls the suite's own test tool `{tool}`, served by its reference server only"


def _no_method(what: str, capability: str, method: str) -> tuple[str, str]:
    return NO_METHOD.format(what=what, capability=capability), rf"-32601.*method not found: '{re.escape(method)}'"


def _suite_tool(tool: str) -> tuple[str, str]:
    return SUITE_TOOL.format(tool=tool), rf"(unknown tool '{tool}'|Tool '{tool}' not found)"


#: Every server scenario of the pinned suite: PASS, INFO, or (reason, what its failure says).
EXPECTED: Final[dict[str, str | tuple[str, str]]] = {
    "server-initialize": PASS,
    "ping": PASS,
    "tools-list": PASS,
    "logging-set-level": PASS,
    "server-sse-multiple-streams": PASS,
    "dns-rebinding-protection": PASS,
    # Its checks look at the SSE priming events of a POST answered as a stream; mesh answers a
    # quick call as application/json, so the suite reports INFO and gives no verdict.
    "server-sse-polling": INFO,
    "completion-complete": _no_method("completions", "completions", "completion/complete"),
    "resources-list": _no_method("resources", "resources", "resources/list"),
    "resources-read-text": _no_method("resources", "resources", "resources/read"),
    "resources-read-binary": _no_method("resources", "resources", "resources/read"),
    "resources-templates-read": _no_method("resources", "resources", "resources/read"),
    "resources-subscribe": _no_method("resources", "resources", "resources/subscribe"),
    "resources-unsubscribe": _no_method("resources", "resources", "resources/subscribe"),
    "prompts-list": _no_method("prompts", "prompts", "prompts/list"),
    "prompts-get-simple": _no_method("prompts", "prompts", "prompts/get"),
    "prompts-get-with-args": _no_method("prompts", "prompts", "prompts/get"),
    "prompts-get-embedded-resource": _no_method("prompts", "prompts", "prompts/get"),
    "prompts-get-with-image": _no_method("prompts", "prompts", "prompts/get"),
    "tools-call-simple-text": _suite_tool("test_simple_text"),
    "tools-call-image": _suite_tool("test_image_content"),
    "tools-call-audio": _suite_tool("test_audio_content"),
    "tools-call-embedded-resource": _suite_tool("test_embedded_resource"),
    "tools-call-mixed-content": _suite_tool("test_multiple_content_types"),
    "tools-call-with-logging": _suite_tool("test_tool_with_logging"),
    "tools-call-error": _suite_tool("test_error_handling"),
    "tools-call-with-progress": _suite_tool("test_tool_with_progress"),
    "tools-call-sampling": _suite_tool("test_sampling"),
    "tools-call-elicitation": _suite_tool("test_elicitation"),
    "json-schema-2020-12": _suite_tool("json_schema_2020_12_tool"),
    "elicitation-sep1034-defaults": _suite_tool("test_elicitation_sep1034_defaults"),
    "elicitation-sep1330-enums": _suite_tool("test_elicitation_sep1330_enums"),
}


def conformance_suite() -> Path:
    """The suite's entry point (``dist/index.js``), installed on first use into the user's cache."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed: the MCP conformance suite cannot run")
    digest = hashlib.sha256(b"".join((SOURCE / name).read_bytes() for name in FILES)).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = cache / "mesh-tests" / f"conformance-{digest}"
    entry = folder / PACKAGE / "dist" / "index.js"
    if entry.is_file():
        return entry
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        for name in FILES:
            shutil.copy(SOURCE / name, staging / name)
        try:
            done = subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund", "--silent"],
                cwd=staging, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            pytest.skip(f"npm ci of the conformance suite took over {INSTALL_TIMEOUT_S:g}s (no registry?)")
        if done.returncode != 0:
            pytest.skip(f"npm ci of the conformance suite failed (exit {done.returncode}): {done.stderr[-500:]}")
        try:
            staging.rename(folder)
        except OSError:  # another worker installed it first
            pass
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return entry


class HttpServer:
    """``mesh-mcp http --port 0`` on the fixture workspace, with a cache (and a socket folder) of its own."""

    def __init__(self, *, standalone: bool) -> None:
        self.standalone = standalone
        self.scratch = Path(tempfile.mkdtemp(prefix="mesh-conformance-"))
        self.env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
            "MESH_CACHE_DIR": str(self.scratch / "cache"),
            "XDG_RUNTIME_DIR": str(self.scratch / "run"),
            "MESH_TOOL_PLUGINS": "",
        }
        self.env.pop("MESH_SOCKET_PATH", None)
        self.env.pop("MESH_LOG", None)
        (self.scratch / "run").mkdir(mode=0o700)
        argv = [sys.executable, "-m", "mesh", "http", "--workspace", str(FIXTURE), "--port", "0"]
        if standalone:
            argv.append("--standalone")
        setpriv = shutil.which("setpriv")
        if setpriv:  # the server dies with the test process, even one killed mid-test
            argv = [setpriv, "--pdeathsig", "TERM", *argv]
        self.errors = self.scratch / "server.err"
        with self.errors.open("wb") as errors:
            self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errors, env=self.env, cwd=REPO_ROOT)
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], START_TIMEOUT_S)
        line = self.process.stdout.readline().decode().strip() if ready else ""
        assert line.startswith("http://127.0.0.1:") and line.endswith("/mcp"), f"no URL ({line!r}): {self.stderr}"
        self.url = line

    @property
    def stderr(self) -> str:
        return self.errors.read_text(errors="replace")[-3000:]

    def daemon_pids(self) -> list[int]:
        """The pids in the daemon lock files of this server's socket folder."""
        texts = [lock.read_text().strip() for lock in sorted((self.scratch / "run").rglob("*.lock"))]
        return [int(text) for text in texts if text.isdigit()]

    def stop(self) -> int | None:
        """SIGTERM the server (and the daemon it started, if any); its exit status."""
        code: int | None = None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for pid in self.daemon_pids():
            _stop_pid(pid)
        shutil.rmtree(self.scratch, ignore_errors=True)
        return code


def _stop_pid(pid: int) -> None:
    """Stop a daemon this test started (its pid from its lock file): SIGTERM, then SIGKILL."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_suite(suite: Path, url: str, out: Path) -> dict[str, list[dict[str, Any]]]:
    """Every server scenario against ``url``: its checks, by scenario name."""
    result = subprocess.run(
        ["node", str(suite), "server", "--url", url, "--suite", "all", "--output-dir", str(out)],
        capture_output=True, text=True, timeout=SUITE_TIMEOUT_S, check=False,
    )  # fmt: skip
    checks: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(out.glob("server-*/checks.json")):
        name = re.sub(r"-\d{4}-\d\d-\d\dT[\d-]+Z$", "", path.parent.name).removeprefix("server-")
        checks[name] = json.loads(path.read_text())
    assert checks, (
        f"the suite wrote no results (exit {result.returncode}):\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
    )
    return checks


def server_scenarios(suite: Path) -> list[str]:
    listed = subprocess.run(
        ["node", str(suite), "list", "--server"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    return [line.strip()[2:] for line in listed.splitlines() if line.strip().startswith("- ")]


def judge(name: str, checks: list[dict[str, Any]]) -> str | None:
    """What is wrong with a scenario's checks against :data:`EXPECTED`, or None."""
    statuses = sorted({check.get("status", "?") for check in checks})
    failures = [
        f"{check.get('id')}: {check.get('errorMessage')}"
        for check in checks
        if check.get("status") not in ("SUCCESS", "INFO")
    ]
    expected = EXPECTED.get(name)
    if expected is None:
        return f"{name}: not in EXPECTED (a new scenario of the pinned suite: pass it or except it with a reason)"
    if expected == PASS:
        if failures or "SUCCESS" not in statuses:
            return f"{name}: must pass, got {statuses}: {failures[:3]}"
        return None
    if expected == INFO:
        if failures:
            return f"{name}: must not fail, got {failures[:3]}"
        return None
    reason, pattern = expected
    messages = " | ".join(str(check.get("errorMessage")) for check in checks if check.get("status") == "FAILURE")
    if not re.search(pattern, messages):
        return f"{name}: excepted ({reason}) but it did not fail that way: {statuses} {messages[:300]!r}"
    return None


@pytest.fixture(scope="module")
def suite() -> Path:
    return conformance_suite()


@pytest.fixture(params=["standalone", "daemon"])
def server(request: pytest.FixtureRequest) -> Iterator[HttpServer]:
    running = HttpServer(standalone=request.param == "standalone")
    try:
        yield running
    finally:
        running.stop()


def test_the_table_names_every_server_scenario_of_the_pinned_suite_INV_CONF_1(suite: Path) -> None:
    assert sorted(server_scenarios(suite)) == sorted(EXPECTED)


def test_every_applicable_scenario_passes_and_every_exception_fails_for_its_reason_INV_CONF_1(
    suite: Path, server: HttpServer, tmp_path: Path
) -> None:
    checks = run_suite(suite, server.url, tmp_path / "results")
    problems = [problem for name in sorted(checks) if (problem := judge(name, checks[name]))]
    problems += [f"{name}: the suite ran it but wrote no result" for name in sorted(set(EXPECTED) - set(checks))]
    assert not problems, "\n".join(problems) + f"\nserver stderr:\n{server.stderr}"
    assert server.process.poll() is None, "the server died under the suite"
    if not server.standalone:  # the sessions ran on a daemon, not in a standalone fallback
        assert server.daemon_pids(), f"no daemon served the sessions:\n{server.stderr}"
        assert "standalone" not in server.stderr.lower(), server.stderr
    rebinding = {check["id"]: check for check in checks["dns-rebinding-protection"]}
    assert rebinding["localhost-host-rebinding-rejected"]["details"]["statusCode"] == 403


def test_the_judge_fails_what_it_must() -> None:
    """The table's verdicts can fail: a failed check of an applicable scenario, an excepted one
    that passes or fails for another reason, an unknown scenario."""
    ok = {"id": "x", "status": "SUCCESS"}
    bad = {"id": "x", "status": "FAILURE", "errorMessage": "boom"}
    info = {"id": "x", "status": "INFO"}
    assert judge("ping", [ok]) is None
    assert judge("ping", [ok, bad])
    assert judge("ping", [info])  # no verdict is no pass
    assert judge("server-sse-polling", [info]) is None
    assert judge("server-sse-polling", [info, {"id": "y", "status": "WARNING"}])
    assert judge("prompts-list", [ok])
    assert judge("prompts-list", [bad])
    assert (
        judge("prompts-list", [{**bad, "errorMessage": "MCP error -32601: method not found: 'prompts/list'"}]) is None
    )
    assert judge("tools-call-image", [{**bad, "errorMessage": "unknown tool 'test_image_content'; tools: ..."}]) is None
    assert judge("tools-call-image", [{**bad, "errorMessage": "unknown tool 'smart_search'"}])
    assert judge("no-such-scenario", [ok])
