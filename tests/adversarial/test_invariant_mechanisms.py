"""Invariants tested by their mechanism, not in name only (issue 13, item 18).

Each test here fails when the mechanism behind its invariant is taken out (each was tried so: the
mechanism removed, the test seen failing, the mechanism put back):

- INV-INDEX-3's "not read again": without the size+mtime shortcut every file is read and hashed;
  the summary cannot tell (re-hashed and skipped files are both "unchanged"), but a content swap
  that keeps the size and the mtime can: a file read again shows its new content.
- INV-INDEX-1's "or not at all": no test made a refresh fail after it had written; one that
  commits what it wrote before failing passed every test.
- INV-INDEX-6's "no input makes one raise": the dispatcher turns an extractor's exception into the
  file's error, so tests through it pass with an extractor that raises on every input. These call
  every extractor module directly.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesh.index import FileFacts, Index
from mesh.index.parse import _EXTRACTORS, LANGUAGE_OF_SUFFIX

from ..index.test_enumerate import make

ROOT = Path(__file__).resolve().parents[2]


def defs(index: Index, path: str) -> list[str]:
    with index.store.snapshot() as db:
        rows = db.execute(
            "SELECT name FROM defs JOIN files ON files.id = defs.file_id WHERE path = ? ORDER BY name", (path,)
        )
        return [name for (name,) in rows]


# -- INV-INDEX-1: one new generation, or none ---------------------------------------------------------


def test_a_refresh_that_fails_half_way_installs_nothing_INV_INDEX_1(tmp_path: Path) -> None:
    """INV-INDEX-1: a refresh that raises after writing some files leaves the previous generation whole:
    no new file, no changed fact, the same generation (a failed transaction is rolled back, never committed)."""
    from mesh.index import Progress

    root = tmp_path / "ws"
    make(root, {"app/a.py": "def alpha():\n    pass\n"})
    index = Index(root, tmp_path / "cache")
    try:
        generation = index.refresh().generation
        make(root, {f"app/new_{i}.py": f"def new_{i}():\n    pass\n" for i in range(6)})
        (root / "app/a.py").write_text("def changed():\n    pass\n")

        def fail_half_way(progress: Progress) -> None:
            if progress.phase == "parsing" and progress.done == 4:
                raise RuntimeError("the disk went away")

        with pytest.raises(RuntimeError, match="the disk went away"):
            index.refresh(progress=fail_half_way)
        assert index.store.generation() == generation
        with index.store.snapshot() as db:
            assert db.execute("SELECT path FROM files").fetchall() == [("app/a.py",)]
        assert defs(index, "app/a.py") == ["alpha"]
        assert index.refresh().generation == generation + 1  # and the next refresh goes on
        assert defs(index, "app/a.py") == ["changed"]
    finally:
        index.close()


# -- INV-INDEX-3: the size+mtime shortcut -----------------------------------------------------------


def test_a_file_of_unchanged_size_and_mtime_is_not_read_again_INV_INDEX_3(tmp_path: Path) -> None:
    """INV-INDEX-3: same size and mtime, so not read: new bytes behind them are not seen by a refresh
    (the file is not opened), and are as soon as the mtime moves."""
    root = tmp_path / "ws"
    make(root, {"app/a.py": "def alpha():\n    pass\n", "app/b.py": "def beta():\n    pass\n"})
    index = Index(root, tmp_path / "cache")
    try:
        index.refresh()
        path = root / "app/a.py"
        before = path.stat()
        path.write_text("def gamma():\n    pass\n")  # the same length
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert path.stat().st_size == before.st_size
        summary = index.refresh()
        assert (summary.parsed, summary.unchanged) == (0, 2)
        assert defs(index, "app/a.py") == ["alpha"]  # not read: the index still holds what it read before
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
        summary = index.refresh()
        assert summary.parsed == 1 and defs(index, "app/a.py") == ["gamma"]
    finally:
        index.close()


def test_a_touched_file_is_read_but_equal_content_is_not_parsed_again_INV_INDEX_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-INDEX-3: a new mtime makes the file read and hashed; the same hash means no parse."""
    from mesh.index import parse as parse_package
    from mesh.index.build import _work

    root = tmp_path / "ws"
    make(root, {"app/a.py": "def alpha():\n    pass\n"})
    index = Index(root, tmp_path / "cache")
    try:
        index.refresh()
        parsed: list[str] = []
        real = parse_package.extract

        def counting(path: str, source: bytes) -> FileFacts:
            parsed.append(path)
            return real(path, source)

        monkeypatch.setattr(_work, "extract", counting)
        os.utime(root / "app/a.py", ns=(1, 1))
        summary = index.refresh()
        assert (summary.parsed, summary.unchanged, parsed) == (0, 1, [])
        (root / "app/a.py").write_text("def alpha():\n    return 1\n")
        assert index.refresh().parsed == 1 and parsed == ["app/a.py"]
    finally:
        index.close()


# -- INV-INDEX-6: every extractor, called directly ---------------------------------------------------

MODULES = sorted(set(_EXTRACTORS.values()))
HOSTILE = [
    b"",
    b"\xff\xfe\x00garbage\x00",
    b"(" * 4500,
    b"{" * 5000,
    b"class A { void f() { g(h(i(j(k(l(m(n(o(p(\n" * 20,
    "caf\u00e9 \u2603 \U0001f600\n".encode() * 10,
    b"\n".join([b"def f():", b"  " * 2000 + b"return 1"]),
    b"#" * 3000 + b"\n" + b"- " * 2000 + b"\n" + b"> " * 2000,
    b"service S { rpc M(stream stream stream) returns (returns); }\nmessage { message { message {",
    b"\r\r\r\x00\x00\x1b[31m\xc0\x80\xed\xa0\x80",
]


def extractor(module_name: str):  # type: ignore[no-untyped-def]
    return importlib.import_module(f"mesh.index.parse.{module_name}").extract


def in_source_order(facts: FileFacts) -> bool:
    return all(
        [item.line for item in items] == sorted(item.line for item in items)
        for items in (facts.definitions, facts.imports, facts.grpc, facts.sections)
    )


@pytest.mark.parametrize("module_name", MODULES)
@pytest.mark.parametrize("source", HOSTILE, ids=range(len(HOSTILE)))
def test_each_extractor_itself_is_total_on_hostile_bytes_INV_INDEX_6(module_name: str, source: bytes) -> None:
    """INV-INDEX-6: the extractor module, not the dispatcher (which would catch its exception)."""
    extract = extractor(module_name)
    facts = extract(source)
    assert isinstance(facts, FileFacts)
    assert facts == extract(source)
    assert in_source_order(facts)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module_name=st.sampled_from(MODULES), source=st.binary(max_size=600) | st.text(max_size=300).map(str.encode))
def test_each_extractor_itself_is_total_on_any_bytes_INV_INDEX_6(module_name: str, source: bytes) -> None:
    """INV-INDEX-6: any bytes, each extractor directly: facts, the same twice, in source order."""
    extract = extractor(module_name)
    facts = extract(source)
    assert isinstance(facts, FileFacts) and facts == extract(source)
    assert in_source_order(facts)


def fixture_sources() -> list[tuple[str, str]]:
    """(extractor module, fixture file) for every file of the fixture workspaces an extractor reads."""
    found = []
    for path in sorted((ROOT / "tests" / "fixtures").rglob("*")):
        language = LANGUAGE_OF_SUFFIX.get(path.suffix.lower())
        if path.is_file() and language is not None:
            found.append((_EXTRACTORS[language], str(path.relative_to(ROOT))))
    return found


@pytest.mark.parametrize(("module_name", "path"), fixture_sources())
def test_each_extractor_gives_facts_in_source_order_on_real_code_INV_INDEX_6(module_name: str, path: str) -> None:
    """INV-INDEX-6: real code, where facts exist to be ordered: pure (twice the same) and in source order."""
    source = (ROOT / path).read_bytes()
    extract = extractor(module_name)
    facts = extract(source)
    assert facts == extract(source)
    assert in_source_order(facts), path
