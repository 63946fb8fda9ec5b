"""Every extractor, through the dispatcher: total and deterministic on any bytes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesh.index.parse import LANGUAGE_OF_SUFFIX, extract, manifest_kind

SUFFIXES = sorted(LANGUAGE_OF_SUFFIX)
MANIFESTS = ["go.mod", "package.json", "pyproject.toml", "setup.py", "setup.cfg", "pom.xml", "build.gradle",
             "build.gradle.kts", "Cargo.toml", "Gemfile", "composer.json", "requirements.txt", "app.csproj"]  # fmt: skip
SNIPPETS = [
    b"",
    b"\xff\xfe\x00garbage\x00",
    b"(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((" * 50,
    b"{" * 5000,
    b"class A { void f() { g(h(i(j(k(l(m(n(o(p(\n" * 20,
    "caf\u00e9 \u2603 \U0001f600\n".encode() * 10,
    # stray bytes where a query predicate (#match?, #eq?) reads a node's text: it decodes strictly
    b"`\x80`",
    b'fun f\xff() { g\x80(1); "\xfe"; `a\x80b`.c() }\n',
    b"def f\x80(x):\n    return g\xff(x)\n# \x80\n",
]


@pytest.mark.parametrize("name", [f"x{suffix}" for suffix in SUFFIXES] + MANIFESTS)
@pytest.mark.parametrize("source", SNIPPETS, ids=range(len(SNIPPETS)))
def test_hostile_inputs_give_facts_not_exceptions_INV_INDEX_6(name: str, source: bytes) -> None:
    """INV-INDEX-6."""
    facts = extract(f"svc/{name}", source)
    assert facts == extract(f"svc/{name}", source)
    assert not facts.error.startswith("extractor failed"), facts.error


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from([f"x{suffix}" for suffix in SUFFIXES] + MANIFESTS), source=st.binary(max_size=600))
def test_any_bytes_any_language_INV_INDEX_6(name: str, source: bytes) -> None:
    """INV-INDEX-6."""
    first = extract(name, source)
    assert first == extract(name, source)
    assert isinstance(first.error, str)
    assert not first.error.startswith("extractor failed"), first.error
    if manifest_kind(name) is None and name.rsplit(".", 1)[-1] not in ("md", "markdown"):
        assert first.sections == ()


def test_a_bug_in_an_extractor_costs_the_file_its_facts_not_the_run_INV_INDEX_4(monkeypatch) -> None:
    """INV-INDEX-4: the dispatcher is the one place an extractor's exception becomes the file's error."""
    from mesh.index.parse import _go

    def broken(source: bytes):
        raise KeyError("boom")

    monkeypatch.setattr(_go, "extract", broken)
    facts = extract("svc/main.go", b"package main\n")
    assert (facts.language, facts.error, facts.definitions) == ("go", "extractor failed: KeyError: 'boom'", ())


@given(st.binary(max_size=200))
def test_trees_are_parsed_from_valid_utf8_of_the_same_length_INV_INDEX_6(source: bytes) -> None:
    """INV-INDEX-6: stray bytes become ``?`` one for one, so every offset and line a fact carries stays."""
    from mesh.index.parse._ts import valid_utf8

    fixed = valid_utf8(source)
    fixed.decode("utf-8")
    assert len(fixed) == len(source) and fixed.count(b"\n") == source.count(b"\n")
    assert all(a == b or a == ord("?") for a, b in zip(fixed, source, strict=True))
