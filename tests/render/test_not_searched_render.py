"""The "not searched" part of a search answer: counts by reason, a few paths, the setting, the budget."""

from __future__ import annotations

from mesh.index.query._search import Found, LeftOut, Match, NotSearched
from mesh.render._search import ScopeReading, render_search


def match(path: str, line: int) -> Match:
    return Match(path, line, f"needle {line}", "svc", "python", "code")


LEFT = NotSearched(
    (
        LeftOut("generated", 7, 0, ("a/gen1.ts", "a/gen2.ts", "a/gen3.ts")),
        LeftOut("vendored", 0, 1, ("web/node_modules",)),
        LeftOut("too large", 1, 0, ("data/dump.json",), "larger than 4096 bytes"),
        LeftOut("ignored", 2, 1, ("build", "x.log", "y.log")),
    ),
    generated_matches=9,
    generated_matched=tuple((f"a/gen{n}.ts", 9 - n) for n in range(1, 6)),
    generated_files_matched=6,
    generated_uncounted=1,
)


def test_a_page_with_results_lists_what_was_left_out_but_not_what_the_workspace_ignores() -> None:
    text = render_search(Found((match("svc/a.py", 1),), 1, False), {"query": "needle"}, not_searched=LEFT)
    assert text.endswith(
        "\nNot searched here (left out of the index):\n"
        "- 7 generated files: `a/gen1.ts`, `a/gen2.ts`, `a/gen3.ts` and 4 more; the query matches 9 lines there:"
        " `a/gen1.ts` (8), `a/gen2.ts` (7), `a/gen3.ts` (6), `a/gen4.ts` (5), `a/gen5.ts` (4) and 1 more"
        " (1 file not read: changed since indexed, or over the read budget);"
        " to index: `include_vendored = true` in `mesh.toml` `[index]`\n"
        "- 1 vendored or generated folder: `web/node_modules`; to index: `include_vendored = true` in `mesh.toml`"
        " `[index]`\n"
        "- 1 file larger than 4096 bytes: `data/dump.json`; to index: a larger `max_file_bytes` in `mesh.toml`"
        " `[index]`\n"
    )


def test_with_no_result_the_ignored_paths_are_listed_too() -> None:
    text = render_search(Found((), 0, False), {"query": "needle"}, not_searched=LEFT)
    assert text.startswith("## `needle`: 0 matches in 0 files\n\nNothing in the indexed files, but the query matches")
    assert "- 2 ignored files and 1 ignored folder: `build`, `x.log`, `y.log`; to index: a `!pattern` line" in text


def test_the_note_counts_against_the_page_budget_and_sits_above_the_footer() -> None:
    found = Found(tuple(match(f"svc/m{n:02}.py", 1) for n in range(40)), 40, False)
    bare = render_search(found, {"query": "needle"}, page_bytes=1500)
    noted = render_search(found, {"query": "needle"}, page_bytes=1500, not_searched=LEFT)
    assert bare.count("\n- 1: ") > noted.count("\n- 1: ") > 0
    assert noted.index("Not searched here") < noted.index("\n---\n")


def test_nothing_left_out_adds_nothing() -> None:
    found = Found((match("svc/a.py", 1),), 1, False)
    assert render_search(found, {"query": "needle"}, not_searched=NotSearched()) == render_search(
        found, {"query": "needle"}
    )


def test_the_scope_reading_comes_first_and_keeps_the_other_arguments() -> None:
    text = render_search(
        Found((match("orders/src/a.py", 1),), 1, False),
        {"query": "needle", "scope": "src", "cursor": "0", "kind": "code"},
        scope=ScopeReading("src", "service", "orders/src", "src/"),
    )
    assert text.startswith(
        "## `needle`: 1 matches in 1 file\n\n"
        "Scope `src` read as the service `src` (folder `orders/src`), not the folder `src/`; to search the folder:"
        ' `smart_search` `{"kind":"code","query":"needle","scope":"src/"}`\n'
    )
