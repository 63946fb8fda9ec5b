"""A first level too large to read whole, read a page at a time (INV-TOOL-12).

A workspace built here has three hubs: ``core/lib.py``, imported by Python files in four
services, a folder of no service and tests; its folder ``core`` (the same importers, through an
index range); and ``protos/acme/common/v1/money.proto``, imported by ``.proto`` files of which some
also use ``Money`` in a field (a message edge besides the import) and some only import it. With
the walk budget lowered below their importers, ``first_level_page`` reads them a page at a time; each page must be the page of the bounded walk that reads the level
whole: same dependents in the same order, same exact counts, same bytes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import attrs
import pytest

from mesh.index import Index
from mesh.index.query._graph import EdgeKind, find_dependents, first_level_page, resolve_target
from mesh.render._paging import call_text, scope_of
from mesh.tools import parse_args
from mesh.tools import _dependents as dependents
from mesh.tools import _impact as impact
from mesh.tools._view import View

from .conftest import view_of

BUDGET = 10
#: Enough importers (230 of each hub) for a page of ``dependents`` (8 KB) to leave some for the next.
#: (service folder, importers of core/lib.py in it); "tools" is a folder of no service.
IMPORTERS = {"alpha": 70, "beta": 40, "svc/gamma": 60, "zeta": 30, "tools": 30}
HUBS = ("core/lib.py", "protos/acme/common/v1/money.proto", "core")


def _files() -> dict[str, str]:
    names = ("alpha", "beta", "gamma", "zeta")
    paths = {"alpha": "alpha", "beta": "beta", "gamma": "svc/gamma", "zeta": "zeta"}
    files = {
        "mesh.toml": "".join(f'[[services]]\nname = "{name}"\npath = "{paths[name]}"\n\n' for name in names),
        "core/lib.py": "def thing():\n    return 1\n",
        "protos/acme/common/v1/money.proto": 'syntax = "proto3";\npackage acme.common.v1;\n\nmessage Money {\n'
        "  int64 units = 1;\n}\n",
    }
    for number in range(3):  # level 2: importers of an importer (of each hub)
        files[f"zeta/uses/u_{number}.py"] = "from alpha.mods.m_02 import thing\n"
        files[f"zeta/uses/u_{number}.proto"] = (
            f'syntax = "proto3";\npackage acme.uses.v{number};\nimport "alpha/proto/p_02.proto";\n'
        )
    for folder, count in IMPORTERS.items():
        for number in range(count):
            # the first of each folder imports twice (two lines, one dependent), the second is a test
            name = f"test_m_{number:02d}.py" if number == 1 else f"m_{number:02d}.py"
            twice = "import core.lib\n" if number == 0 else ""
            files[f"{folder}/mods/{name}"] = f"from core.lib import thing\n{twice}"
        for number in range(count):  # protos: even ones use Money (an import and a message edge)
            use = "  acme.common.v1.Money price = 1;\n" if number % 2 == 0 else "  string name = 1;\n"
            files[f"{folder}/proto/p_{number:02d}.proto"] = (
                f'syntax = "proto3";\npackage acme.{folder.replace("/", ".")}.v{number};\n'
                f'import "acme/common/v1/money.proto";\n\nmessage Item {{\n{use}}}\n'
            )
    return files


@pytest.fixture(scope="module")
def hubs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    root = tmp_path_factory.mktemp("hubs")
    for path, text in _files().items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    index = Index(root, tmp_path_factory.mktemp("hubs-cache"), workers=2)
    index.refresh()
    yield index
    index.close()


@pytest.fixture
def low_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("mesh.tools._dependents", "mesh.render._dependents", "mesh.tools._impact", "mesh.render._impact"):
        monkeypatch.setattr(f"{module}.WALK_DEPENDENTS_MAX", BUDGET)


def _whole(view: View, path: str):
    target = resolve_target(view.db, path, path)
    return target, find_dependents(view.db, [target], 1)


@pytest.mark.parametrize("hub", HUBS)
def test_a_page_of_a_first_level_is_that_part_of_the_whole_level_and_its_counts_are_exact(hubs, hub) -> None:
    """INV-TOOL-12: from every offset, the page holds the dependents the whole level holds there
    (same edges, same order: by service, no service last, then path); the window counts every
    dependent, each service's and its tests, and each sub-scope exactly; only ``size`` are read."""
    with view_of(hubs) as view:
        target, whole = _whole(view, hub)
        everyone = whole.dependents
        assert len(everyone) > BUDGET
        for offset in range(len(everyone)):
            found = first_level_page(view.db, [target], 2, budget=BUDGET, offset=offset, size=4)
            assert found is not None and found.window is not None
            assert found.dependents == everyone[offset : offset + 4]
            assert (found.cut, found.window.first, found.window.total) == (1, offset, len(everyone))
        window = found.window
        services = Counter(d.service for d in everyone)
        tests = Counter(d.service for d in everyone if d.kind == "test")
        assert window.services == tuple((s, services[s], tests[s]) for s in dict.fromkeys(d.service for d in everyone))
        assert window.services[-1][0] == ""  # the folder of no service last
        assert dict(window.scopes) == Counter(scope_of(d.path) for d in everyone)
        others = tuple(d for d in everyone if any(edge.kind != EdgeKind.IMPORT for edge in d.edges))
        assert window.others == others
        assert first_level_page(view.db, [target], 1, budget=BUDGET, offset=0, size=4).cut is None


def test_the_hubs_exercise_imports_twice_tests_and_dependents_with_two_kinds_of_edge(hubs) -> None:
    """The fixture holds what the merge must get right: a file importing the hub on two lines, test
    files, and ``.proto`` files that both import ``money.proto`` and use ``Money``."""
    with view_of(hubs) as view:
        _, lib = _whole(view, "core/lib.py")
        _, money = _whole(view, "protos/acme/common/v1/money.proto")
    assert len(lib.dependents) == sum(IMPORTERS.values())
    assert any(len(d.edges) == 2 for d in lib.dependents) and any(d.kind == "test" for d in lib.dependents)
    both = [d for d in money.dependents if {e.kind for e in d.edges} == {EdgeKind.IMPORT, EdgeKind.MESSAGE}]
    alone = [d for d in money.dependents if {e.kind for e in d.edges} == {EdgeKind.IMPORT}]
    assert len(both) == sum((count + 1) // 2 for count in IMPORTERS.values()) and len(alone) > BUDGET // 2


def test_a_first_level_within_the_budget_or_of_another_kind_of_target_is_walked_as_before(hubs) -> None:
    """INV-TOOL-12: at most ``budget`` dependents, or a target neither files nor a folder (a service,
    a module, a symbol), is left to the walk."""
    with view_of(hubs) as view:
        target, whole = _whole(view, "core/lib.py")
        assert first_level_page(view.db, [target], 2, budget=len(whole.dependents), offset=0, size=4) is None
        service = resolve_target(view.db, "alpha", "alpha")
        assert service.kind == "service"
        assert first_level_page(view.db, [service], 2, budget=0, offset=0, size=4) is None
        module = resolve_target(view.db, "core.lib", "core.lib")
        assert module.kind == "module"
        assert first_level_page(view.db, [module], 2, budget=0, offset=0, size=4) is None


def _pages(view: View, tool, arguments: dict) -> list:
    pages, cursor = [], None
    while True:
        pages.append(tool.run(parse_args(tool.Args, arguments | ({"cursor": cursor} if cursor else {}))[0], view))
        cursor = pages[-1].result.page.next_cursor
        if cursor is None:
            return pages


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> list:
    """The windows the tools read (a page at a time), in order: proof that they did."""
    read: list = []

    def spy(*args, **kwargs):
        found = first_level_page(*args, **kwargs)
        read.append(None if found is None else found.window)
        return found

    monkeypatch.setattr("mesh.tools._dependents.first_level_page", spy)
    return read


def _without_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mesh.tools._dependents.first_level_page", lambda *args, **kwargs: None)


@pytest.mark.parametrize("hub", HUBS)
@pytest.mark.parametrize("depth", [1, 2])
def test_following_the_cursors_gives_the_bytes_of_the_walk_that_reads_the_level_whole(
    hubs, low_budget, windows, monkeypatch, hub, depth
) -> None:
    """INV-TOOL-12 and INV-TOOL-11: every page (and the cut note, the "at least" total, the cursor
    naming the next call) is the bounded walk's, byte for byte and field for field."""
    with view_of(hubs) as view:
        paged = _pages(view, dependents, {"target": hub, "depth": depth})
        with monkeypatch.context() as patch:
            _without_pages(patch)
            walked = _pages(view, dependents, {"target": hub, "depth": depth})
    assert [page.text for page in paged] == [page.text for page in walked]
    assert [page.result for page in paged] == [page.result for page in walked]
    # every page read a window: those of level 1, and the one past it (which then walks every level)
    assert [window.first for window in windows if window is not None] == [
        page.result.page.first for page in paged if page.result.page.first <= paged[0].result.total
    ]
    first = paged[0]
    total = first.result.total
    if depth == 2:
        assert f"At least {total} dependents" in first.text and "level 2 not walked yet" in first.text
        assert first.result.cut == 1 and first.result.page.capped
    else:
        assert first.result.cut is None and f"{total} dependents" in first.text
    following = {"target": hub, "cursor": str(first.result.page.shown)} | ({"depth": 1} if depth == 1 else {})
    assert f"Next page: {call_text('dependents', following)}" in first.text
    assert len(paged) > 1 and paged[-1].result.page.next_cursor is None


def test_a_page_with_room_for_more_than_were_read_reads_more(hubs, low_budget, windows, monkeypatch) -> None:
    """A page is cut by bytes, not by the number read: with two read at a time, a page still holds
    as many dependents as the walk's page."""
    monkeypatch.setattr("mesh.tools._dependents.PAGE_DEPENDENTS", 2)
    with view_of(hubs) as view:
        paged = dependents.run(parse_args(dependents.Args, {"target": "core/lib.py"})[0], view)
        with monkeypatch.context() as patch:
            _without_pages(patch)
            walked = dependents.run(parse_args(dependents.Args, {"target": "core/lib.py"})[0], view)
    assert paged.result.page.shown == walked.result.page.shown > 2
    assert paged.text == walked.text
    assert len(windows) == 5 and None not in windows  # 2, 8, 32 and 128 read, then 512: the page holds 160


@pytest.mark.parametrize("changes", [["core/lib.py"], list(HUBS[:2]), ["core"]])
def test_impact_matrix_of_a_hub_read_a_page_at_a_time_is_the_bounded_walks(
    hubs, low_budget, windows, monkeypatch, changes
) -> None:
    """INV-TOOL-12 for ``impact_matrix``: the table (direct, message and test columns), the verdict
    and every page of evidence equal the bounded walk's."""
    with view_of(hubs) as view:
        paged = _pages(view, impact, {"changes": changes})
        with monkeypatch.context() as patch:
            _without_pages(patch)
            walked = _pages(view, impact, {"changes": changes})
    assert [page.text for page in paged] == [page.text for page in walked]
    assert [page.result for page in paged] == [page.result for page in walked]
    assert paged[0].result.verdict.at_least and any(row.tests for row in paged[0].result.rows)
    assert windows[0] is not None and windows[0].first == 0


def test_a_hubs_counts_are_kept_for_its_next_page_of_the_same_snapshot_only_INV_TOOL_13(
    tmp_path, monkeypatch
) -> None:
    """INV-TOOL-13: the counts of a hub's first level are read once per snapshot (the next page, or
    the same call again, reads only its page), and never answer for another snapshot: after an edit
    that adds an importer, the next call counts again and shows it, as a walk would."""
    from mesh.index.query import _graph

    counted: list = []
    count_level = _graph._count_level

    def spy(*args, **kwargs):
        counted.append(args[1])
        return count_level(*args, **kwargs)

    monkeypatch.setattr(_graph, "_count_level", spy)
    root = tmp_path / "ws"
    for path, text in _files().items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    index = Index(root, tmp_path / "cache", workers=1)
    try:
        index.refresh()
        with view_of(index) as view:
            target, whole = _whole(view, "core/lib.py")
            pages = [
                first_level_page(view.db, [target], 2, budget=BUDGET, offset=offset, size=4) for offset in (0, 4, 0)
            ]
        assert len(counted) == 1
        assert [page.dependents for page in pages] == [whole.dependents[:4], whole.dependents[4:8], whole.dependents[:4]]
        assert pages[0].window == attrs.evolve(pages[1].window, first=0)  # the same counts for every page
        with view_of(index) as view:  # another snapshot of the same generation: still the kept counts
            assert first_level_page(view.db, [target], 2, budget=BUDGET, offset=0, size=4) == pages[0]
        assert len(counted) == 1
        (root / "alpha/mods/m_new.py").write_text("from core.lib import thing\n")
        index.refresh(changed=["alpha/mods/m_new.py"])
        with view_of(index) as view:
            target, whole = _whole(view, "core/lib.py")
            fresh = first_level_page(view.db, [target], 2, budget=BUDGET, offset=0, size=4)
        assert len(counted) == 2
        assert fresh.window.total == pages[0].window.total + 1 == len(whole.dependents)
        assert dict((s, n) for s, n, _ in fresh.window.services)["alpha"] == IMPORTERS["alpha"] + 1
        assert fresh.dependents == whole.dependents[:4]
    finally:
        index.close()

