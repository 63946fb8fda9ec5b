"""The built-in tools bound to an index: before the first snapshot, failures, determinism."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from mesh.index import Index, Progress
from mesh.index.build._live import NotReady, StaticIndex
from mesh.tools import builtin_registry

from .conftest import FIXTURE, GOLDEN

NAMES = ("smart_search", "dependents", "grpc_trace", "impact_matrix", "doc_sections")
#: One call per tool that answers without error on the fixture.
CALLS = {
    "smart_search": {"query": "Reserve"},
    "dependents": {"target": "proto/acme/common/v1/money.proto"},
    "grpc_trace": {"target": "acme.orders.v1.Orders/GetOrder"},
    "impact_matrix": {"changes": ["proto/acme/orders/v1/orders.proto"]},
    "doc_sections": {"heading": "runbook"},
}


class Building:
    """A source whose first build is still running (or failed)."""

    root = FIXTURE

    def __init__(self, error: NotReady) -> None:
        self.error = error

    @contextmanager
    def snapshot(self):
        raise self.error
        yield


@pytest.mark.parametrize("name", NAMES)
def test_before_the_first_snapshot_every_tool_says_still_indexing(name: str) -> None:
    """INV-INDEX-7: files done of total, and when to try again (once the wait for the first
    snapshot is over: tests/drivers/test_first_call.py; a text search scans instead, a symbol
    search needs the index)."""
    registry = builtin_registry(Building(NotReady(Progress("parsing", 1234, 5000))), wait_s=0)
    arguments = {**CALLS[name], "mode": "symbol"} if name == "smart_search" else CALLS[name]
    output = registry.call(name, arguments, None, workspace=FIXTURE)
    assert output.is_error
    assert output.text == "Still indexing the workspace: 1,234 of 5,000 files parsed. Try again in a few seconds."


def test_an_index_that_cannot_be_built_says_why_and_what_to_do() -> None:
    failed = NotReady(Progress("starting", 0, 0), "mesh.toml: [index] has no key 'x'", retrying=True)
    output = builtin_registry(Building(failed)).call("grpc_trace", {"target": "Orders"}, None, workspace=FIXTURE)
    assert output.is_error
    assert output.text == (
        "The workspace index is not available: mesh.toml: [index] has no key 'x'. "
        "The server tries again after the next change to a file in the workspace."
    )


def test_every_tool_answers_on_the_fixture(fixture_index: Index) -> None:
    registry = builtin_registry(StaticIndex(fixture_index))
    for name, arguments in CALLS.items():
        output = registry.call(name, arguments, None, workspace=FIXTURE)
        assert not output.is_error, (name, output.text)
        assert output.text.startswith("#"), name


_DUMP = """
import sys
from pathlib import Path
from mesh.index import Index
from mesh.index.build._live import StaticIndex
from mesh.tools import builtin_registry
calls = {calls!r}
index = Index(Path({fixture!r}), Path(sys.argv[1]), workers=1)
index.refresh()
registry = builtin_registry(StaticIndex(index))
for name, arguments in calls:
    sys.stdout.write(registry.call(name, arguments, None, workspace=index.root).text)
"""
#: The calls compared across processes: one per tool, and answers that overflow a page (footers, busiest
#: scopes and their ties, next-page calls) where an order taken from a set or a hash would show.
DETERMINISM_CALLS = [
    *CALLS.items(),
    ("smart_search", {"query": "e"}),
    ("smart_search", {"query": "e", "cursor": "20"}),
    ("smart_search", {"query": "Order", "mode": "symbol"}),
    ("dependents", {"target": "orders", "depth": 3}),
    ("impact_matrix", {"changes": ["acme.payments.v1.Payments/Charge"]}),
    ("grpc_trace", {"target": "Inventory"}),
    ("doc_sections", {}),
]


def test_answers_are_the_same_bytes_in_other_processes_and_hash_seeds(tmp_path: Path, fixture_index: Index) -> None:
    """INV-TOOL-3: a fresh index in a fresh process, under two PYTHONHASHSEEDs, answers the same bytes."""
    registry = builtin_registry(StaticIndex(fixture_index))
    here = "".join(registry.call(name, args, None, workspace=FIXTURE).text for name, args in DETERMINISM_CALLS)
    assert "Busiest scopes" in here and "Next page" in here  # pages whose order a hash could change
    script = _DUMP.format(calls=DETERMINISM_CALLS, fixture=str(FIXTURE))
    for seed in ("0", "4242"):
        result = subprocess.run(
            [sys.executable, "-c", script, str(tmp_path / f"cache-{seed}")],
            capture_output=True,
            timeout=300,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert result.stdout.decode() == here


def test_no_golden_answer_names_a_machine_path() -> None:
    """INV-TOOL-3: answers hold workspace-relative paths, so they are the same on every machine."""
    for golden in sorted(GOLDEN.rglob("*.md")):
        text = golden.read_text()
        for marker in (str(FIXTURE), "/tmp/", "/home/", "/root/", "/work/"):
            assert marker not in text, f"{golden} names {marker}"


def test_ties_are_ordered_by_name_in_every_process_INV_TOOL_3(tmp_path: Path) -> None:
    """INV-TOOL-3: thirty scopes with the same count (and matches with the same rank): whatever breaks a tie
    must be the same under every PYTHONHASHSEED, or the busiest scopes and the pages differ between processes."""
    workspace = tmp_path / "ws"
    for number in range(30):
        folder = workspace / f"s{number:02}" / "pkg"
        folder.mkdir(parents=True)
        (folder / "m.py").write_text("".join(f"tie_{line} = 'needle'\n" for line in range(10)))
    calls = [("smart_search", {"query": "needle"}), ("smart_search", {"query": "needle", "cursor": "50"})]
    script = _DUMP.format(calls=calls, fixture=str(workspace))
    answers = []
    for seed in ("0", "4242", "777"):
        result = subprocess.run(
            [sys.executable, "-c", script, str(tmp_path / f"cache-{seed}")],
            capture_output=True,
            timeout=300,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        answers.append(result.stdout.decode())
    assert "Busiest scopes: `s00/pkg` (10), `s01/pkg` (10), `s02/pkg` (10)." in answers[0]
    assert answers[0] == answers[1] == answers[2]
