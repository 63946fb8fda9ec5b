"""What a file is for (``mesh/index/parse/_kinds.py``): tests by their folders and names."""

from __future__ import annotations

import pytest

from mesh.index.parse._kinds import kind_of


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("svc/src/test/java/a/OrderTest.java", "test"),
        ("svc/src/component-test/java/a/Steps.java", "test"),  # Gradle source sets named for the suite
        ("svc/src/integrationTest/java/a/Steps.java", "test"),
        ("svc/src/integration-test/java/a/Base.java", "test"),
        ("svc/src/testFixtures/java/a/Mother.java", "test"),
        ("e2e_tests/checkout.py", "test"),
        ("api-tests/orders.js", "test"),
        ("svc/src/main/java/a/Order.java", "code"),
        ("latest/app.py", "code"),  # words ending in "test" are no suites
        ("contest/app.py", "code"),
        ("attestation/verify.go", "code"),
        ("svc/orders_test.go", "test"),
        ("docs/testing.md", "docs"),
    ],
)
def test_tests_are_known_by_their_folders_and_names(path: str, kind: str) -> None:
    language = "markdown" if path.endswith(".md") else path.rsplit(".", 1)[-1]
    assert kind_of(path, language) == kind
