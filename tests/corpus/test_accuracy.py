"""The index against facts read by hand from real workspaces (see README.md beside this file).

Targets (issue "Right on real workspaces"): every service list exact; gRPC servers and calls, pooled
over the workspaces, recall >= 95% and precision >= 98% (issue "Every link between services": HTTP
routes, HTTP calls with their targets and messages, recall >= 90% and precision >= 95% per kind). The figures of every workspace and fact
kind are in docs/accuracy.md (``python -m tests.corpus.accuracy --markdown``).
"""

from __future__ import annotations

from typing import Final

import pytest

from .accuracy import corpus_dir, expected_files, measure

pytestmark = pytest.mark.skipif(
    not corpus_dir().is_dir(),
    reason=f"no corpus of real workspaces at {corpus_dir()} (../shared/corpus beside the checkout, or $MESH_CORPUS)",
)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict:
    scratch = tmp_path_factory.mktemp("corpus")
    found = {}
    for facts in expected_files():
        if (corpus_dir() / f"{facts.stem}.tar.gz").exists():
            found[facts.stem] = measure(facts, scratch)
    assert found, "the corpus folder holds none of the workspaces that tests/corpus describes"
    return found


@pytest.mark.parametrize("name", [path.stem for path in expected_files()])
def test_services_are_the_deployed_and_built_units_exactly(reports: dict, name: str) -> None:
    if name not in reports:
        pytest.skip(f"{name}.tar.gz is not in {corpus_dir()}")
    score = reports[name].score("services")
    assert (score.missing, score.extra) == ((), ())


@pytest.mark.parametrize("kind", ["gRPC servers", "gRPC calls"])
def test_grpc_recall_and_precision_meet_the_targets(reports: dict, kind: str) -> None:
    scores = [report.score(kind) for report in reports.values()]
    expected = sum(s.expected for s in scores)
    found = sum(s.found for s in scores)
    recall = sum(s.matched_expected for s in scores) / expected
    precision = sum(s.matched_found for s in scores) / found
    details = [item for s in scores for item in (*s.missing, *s.extra)]
    assert recall >= 0.95, (recall, details)
    assert precision >= 0.98, (precision, details)



#: Issue "Every link between services" asks, per link kind and pooled, recall >= 90% and precision
#: >= 95% (docs/accuracy.md has the figures and what the misses are).
TARGET: Final = (0.90, 0.95)
LINK_KINDS: Final = ("HTTP routes", "HTTP calls", "messages")


def _pooled(reports: dict, kind: str) -> tuple[float, float, list[str]]:
    scores = [score for report in reports.values() for score in report.scores if score.kind == kind]
    expected = sum(s.expected for s in scores)
    found = sum(s.found for s in scores)
    recall = sum(s.matched_expected for s in scores) / expected if expected else 1.0
    precision = sum(s.matched_found for s in scores) / found if found else 1.0
    return recall, precision, [item for s in scores for item in (*s.missing, *s.extra)]


@pytest.mark.parametrize("kind", LINK_KINDS)
def test_link_recall_and_precision_meet_the_targets(reports: dict, kind: str) -> None:
    """Per link kind, pooled: recall >= 90% and precision >= 95%."""
    recall, precision, details = _pooled(reports, kind)
    assert recall >= TARGET[0] and precision >= TARGET[1], (recall, precision, details[:60])
