"""What a file is for: code, test, docs, proto, config or other (``smart_search``'s ``kind``)."""

from __future__ import annotations

import re
from typing import Final

from . import manifest_kind

__all__ = ["KINDS", "kind_of"]

KINDS: Final = ("code", "test", "docs", "proto", "config", "other")

_TEST_DIRS: Final = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing", "testdata", "e2e"})
#: Test source sets and suites named for their kind: Gradle's ``src/integrationTest``, ``src/component-test``,
#: ``src/testFixtures``, ``e2e_tests``, ``api-tests``.
_TEST_DIR_NAME: Final = re.compile(r"(?:[-_]tests?|[a-z]Tests?)$|^test[A-Z-_]")
_TEST_NAME: Final = re.compile(
    r"(^test_.*\.py$|_test\.py$|_test\.go$|\.(test|spec)\.[cm]?[jt]sx?$|(Test|Tests|IT)\.(java|kt|cs)$"
    r"|_spec\.rb$|_test\.rb$|Test\.php$|_test\.(cc|cpp)$|^conftest\.py$)"
)
_DOC_SUFFIXES: Final = (".md", ".markdown", ".rst", ".adoc", ".txt")
_CONFIG_SUFFIXES: Final = (".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".xml", ".properties",
                           ".gradle", ".kts.lock", ".lock", ".env.example", ".editorconfig")  # fmt: skip
_CONFIG_NAMES: Final = frozenset({"Dockerfile", "Makefile", "Jenkinsfile", "Procfile", "CMakeLists.txt", "BUILD",
                                  "BUILD.bazel", "WORKSPACE", "Gemfile", "Rakefile", "mesh.toml"})  # fmt: skip


def kind_of(path: str, language: str) -> str:
    """The kind of a workspace path whose language (by suffix) is ``language`` ("" when none)."""
    name = path.rsplit("/", 1)[-1]
    if language == "proto":
        return "proto"
    if manifest_kind(name) is not None or name in _CONFIG_NAMES or name.endswith(_CONFIG_SUFFIXES):
        return "config"
    if language == "markdown" or name.lower().endswith(_DOC_SUFFIXES):
        return "docs"
    if language:
        folders = path.split("/")[:-1]
        if _TEST_NAME.search(name) or any(folder in _TEST_DIRS or _TEST_DIR_NAME.search(folder) for folder in folders):
            return "test"
        return "code"
    return "other"
