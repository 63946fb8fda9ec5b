"""The HTML service graph in a real browser: the page draws every service and edge itself, offline.

Headless Chromium (Debian's ``chromium``; ``.ci/run`` installs it) loads the page from a file and
dumps the DOM after its scripts ran, so the SVG elements counted here were made by the page's own
JavaScript from the embedded JSON, not written by Python. Two witnesses say the page fetched
nothing: Chromium's network log holds no request from the page, and its console reports no
Content-Security-Policy violation and no script error; a control page shows that each witness
does see a request when there is one.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mesh.index.query._service_graph import ServiceGraph
from mesh.render._graph import graph_html
from tests.test_graph import FIXTURE, HOSTILE, graph_of, hostile_graph, platform_graph

pytestmark = pytest.mark.journey

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: Chromium's own background traffic (updates, sync...) off: the log should hold the page's only.
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
    "--disable-default-apps", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000",
    "--window-size=1400,900",
)  # fmt: skip
BROWSER_TIMEOUT_S = 120


def browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(f"no Chromium found on PATH (looked for {', '.join(BROWSERS)}); .ci/run installs Debian's chromium")


class _Dom(HTMLParser):
    """The elements of a dumped DOM, as (tag, attributes) with the attributes decoded."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {key: value or "" for key, value in attrs}))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def with_class(self, name: str) -> list[dict[str, str]]:
        return [attributes for _, attributes in self.elements if name in attributes.get("class", "").split()]


class Loaded:
    """What Chromium saw: the DOM after the scripts ran, its console, the page's own requests."""

    def __init__(self, page: Path, work: Path) -> None:
        netlog = work / "netlog.json"
        result = subprocess.run(
            [browser(), *FLAGS, f"--user-data-dir={work / 'profile'}", f"--log-net-log={netlog}", "--dump-dom",
             page.as_uri()],
            capture_output=True, timeout=BROWSER_TIMEOUT_S, check=False,
        )  # fmt: skip
        self.stderr = result.stderr.decode(errors="replace")
        assert result.returncode == 0, self.stderr[-3000:]
        self.html = result.stdout.decode()
        self.dom = _Dom()
        self.dom.feed(self.html)
        self.requests = _page_requests(json.loads(netlog.read_text()))

    @property
    def console(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if ":CONSOLE" in line]


def _page_requests(netlog: dict) -> list[str]:
    """URLs the page asked for. The page is a file, so its requests carry a ``file://`` network
    isolation key; Chromium's own requests (component updates and the like) do not."""
    start = netlog["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return sorted(
        event["params"]["url"]
        for event in netlog["events"]
        if event["type"] == start
        and "url" in event.get("params", {})
        and "file://" in event["params"].get("network_isolation_key", "")
    )


def _render(graph: ServiceGraph, tmp_path: Path) -> Loaded:
    page = tmp_path / "graph.html"
    page.write_text(graph_html(graph), encoding="utf-8")
    return Loaded(page, tmp_path)


def _check_drawn(loaded: Loaded, graph: ServiceGraph) -> None:
    """Every service a box, every edge a curve with its kind, no request, no error."""
    nodes = loaded.dom.with_class("node")
    assert sorted(node["data-service"] for node in nodes) == sorted(node.name for node in graph.nodes)
    edges = loaded.dom.with_class("edge")
    assert sorted((e["data-source"], e["data-target"], e["data-kind"]) for e in edges) == sorted(
        (edge.source, edge.target, edge.kind) for edge in graph.edges
    )
    drawn = [e for e in loaded.dom.with_class("edge-line") if e.get("d", "").startswith("M")]
    assert len(drawn) == len(graph.edges)
    assert len([e for e in loaded.dom.with_class("edge-label")]) == len(graph.edges)
    assert [tag for tag, _ in loaded.dom.elements].count("script") == 2  # no name became a script
    assert ("body", {"data-rendered": str(len(graph.nodes))}) in loaded.dom.elements
    assert loaded.requests == []
    assert not [line for line in loaded.console if "Content Security Policy" in line or "Uncaught" in line]


def test_the_fixture_graph_draws_itself_offline(tmp_path: Path) -> None:
    graph = graph_of(FIXTURE, tmp_path / "index")
    loaded = _render(graph, tmp_path)
    _check_drawn(loaded, graph)
    # six services, the area proto/ and the broker kafka; 9 gRPC, 5 import, 1 HTTP and 3 messaging edges
    assert len(graph.nodes) == 8 and len(graph.edges) == 18
    areas = [node for node in loaded.dom.with_class("node") if "area" in node["class"].split()]
    assert [node["data-service"] for node in areas] == ["proto/"]
    externals = [node for node in loaded.dom.with_class("node") if "external" in node["class"].split()]
    assert [node["data-service"] for node in externals] == ["kafka"]
    for kind, count in (("grpc", 9), ("http", 1), ("messaging", 3)):
        drawn = [e for e in loaded.dom.with_class("edge") if e["data-kind"] == kind]
        assert len(drawn) == count and all(kind in e["class"].split() for e in drawn), kind
    assert "Service graph <span" in loaded.html and ">workspace</span>" in loaded.html


def test_fifty_services_and_hostile_names_draw_whole(tmp_path: Path) -> None:
    """A platform of fifty services plus every hostile name: each is drawn under its own name."""
    platform, hostile = platform_graph(random.Random(3)), hostile_graph()
    graph = ServiceGraph(
        hostile.workspace,
        tuple(sorted(platform.nodes + hostile.nodes, key=lambda node: node.name)),
        tuple(sorted(platform.edges + hostile.edges, key=lambda edge: edge.order())),
    )
    loaded = _render(graph, tmp_path)
    _check_drawn(loaded, graph)
    assert set(HOSTILE) <= {node["data-service"] for node in loaded.dom.with_class("node")}


CONTROL = """<!DOCTYPE html>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src http://127.0.0.1:9; script-src 'unsafe-inline'">
<img src="http://127.0.0.1:9/allowed.png">
<script>fetch("http://127.0.0.1:9/blocked").catch(function () {});</script>
"""


def test_the_witnesses_see_a_page_that_fetches(tmp_path: Path) -> None:
    """The control: a request the policy allows shows in the network log, one it blocks shows in
    the console (so an empty log and a quiet console mean something)."""
    page = tmp_path / "control.html"
    page.write_text(CONTROL)
    loaded = Loaded(page, tmp_path)
    assert loaded.requests == ["http://127.0.0.1:9/allowed.png"]
    assert any("Content Security Policy" in line and "/blocked" in line for line in loaded.console), loaded.console
