"""``smart_search`` on the fixture workspace: golden answers, modes, scopes, paging, failures."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from mesh.index import Index
from mesh.tools import ToolError, parse_args
from mesh.tools._smart_search import Args, answer
from mesh.tools._view import View

from .conftest import assert_golden, view_of


def ask(view: View, **arguments) -> str:
    args, _ = parse_args(Args, arguments)
    return answer(args, view)


GOLDEN_CASES = {
    "literal": {"query": "GetOrder"},
    "symbol": {"query": "GetOrder", "mode": "symbol"},
    "symbol_prefix": {"query": "Reserv", "mode": "symbol", "kind": "code"},
    "regex_auto": {"query": r"/def \w+\(/", "scope": "orders"},
    "regex_scope_prefix": {"query": r"func \(s \*\w+\) \w+", "mode": "regex", "scope": "inventory/internal"},
    "glob": {"query": "reserve", "scope": "inventory/*_test.go"},
    "proto_kind": {"query": "Money", "kind": "proto"},
    "case_sensitive": {"query": "getOrder", "case_sensitive": True},
    "language": {"query": "order", "language": "rust"},
    "no_match": {"query": "no such text anywhere"},
    "overflow": {"query": "e"},
    "overflow_page_2": {"query": "e", "cursor": "88"},
}


@pytest.mark.parametrize("case", sorted(GOLDEN_CASES))
def test_golden_answers(view: View, case: str) -> None:
    """Every answer on the fixture is byte for byte the reviewed one."""
    assert_golden("smart_search", case, ask(view, **GOLDEN_CASES[case]))


def test_definitions_rank_above_uses_and_code_above_tests_and_docs(view: View) -> None:
    text = ask(view, query="GetOrder")
    files = re.findall(r"^`([^`]+)` \(", text, flags=re.MULTILINE)
    kinds = re.findall(r"^`[^`]+` \([^,]+, [^,]+, (\w+)\)", text, flags=re.MULTILINE)
    assert files[0] == "gateway/src/orders.ts"  # holds a definition
    order = {"code": 0, "proto": 1, "test": 2, "config": 3, "docs": 4}
    rest = [order[kind] for kind in kinds[5:]]  # after the files holding definitions
    assert rest == sorted(rest)


def test_an_overflowing_query_says_what_was_shown_and_how_to_narrow(view: View) -> None:
    """INV-TOOL-5: the footer says shown of total, the three busiest scopes, a narrowing call, the next page."""
    text = ask(view, query="e")
    assert len(text.encode()) < 10_000
    footer = text.split("\n---\n", 1)[1]
    shown, total = map(int, re.search(r"Shown (\d+) of (?:at least )?(\d+) matches", footer).groups())
    assert 0 < shown < total
    assert footer.count("` (") == 3  # three busiest scopes with counts
    assert 'Narrow to the busiest: `smart_search` `{"query":"e","scope":"' in footer
    assert f'Next page: `smart_search` `{{"cursor":"{shown}","query":"e"}}`' in footer


def test_following_cursors_shows_every_match_once(view: View) -> None:
    """INV-TOOL-5: pages are consecutive slices of the ranked list."""
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        arguments = {"query": "order"} | ({"cursor": cursor} if cursor else {})
        text = ask(view, **arguments)
        pages += 1
        path = ""
        for line in text.splitlines():
            if line.startswith("`") and "(" in line:
                path = line.split("`")[1]
            elif line.startswith("- "):
                seen.append(f"{path}:{line.split(':')[0][2:]}")
        found = re.search(r'Next page: `smart_search` `\{"cursor":"(\d+)"', text)
        if not found:
            break
        cursor = found.group(1)
    total = int(re.search(r": (\d+) matches in", text).group(1))
    assert pages > 2
    assert len(seen) == len(set(seen)) == total


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"query": "(a)\\1", "mode": "regex"}, "invalid regular expression: invalid escape sequence: \\1"),
        ({"query": "(?<=a)b", "mode": "regex"}, "no back-references or lookaround"),
        ({"query": "(", "mode": "regex"}, "missing )"),
        ({"query": "x", "scope": "../etc"}, "leaves the workspace"),
        ({"query": "x", "scope": "/etc"}, "outside the workspace"),
        ({"query": "x", "scope": "/etc/*.conf"}, "relative to the workspace"),
        ({"query": "x", "scope": "nowhere/at/all"}, "No indexed file is under `nowhere/at/all`"),
        ({"query": "x", "language": "cobol"}, "No indexed file is in the language `cobol`"),
        ({"query": "x", "cursor": "next"}, "not one this tool gave"),
        ({"query": "GetOrder", "cursor": "9999"}, "past the last of 29 matches; start from the first page"),
    ],
)
def test_failures_say_what_was_wrong_and_what_to_try(view: View, arguments: dict, expected: str) -> None:
    with pytest.raises(ToolError, match=re.escape(expected)):
        ask(view, **arguments)


def test_a_symlink_scope_leaving_the_workspace_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    (root / "out").symlink_to(tmp_path)
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    with view_of(index) as view, pytest.raises(ToolError, match="through a symlink to .*outside the workspace"):
        ask(view, query="x", scope="out")
    index.close()


def test_a_catastrophic_regex_runs_in_linear_time(tmp_path: Path) -> None:
    """INV-TOOL-6: RE2; a pattern that backtracks exponentially in Python's engine costs nothing here."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a" * 5000 + "!\n")
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    started = time.monotonic()
    with view_of(index) as view:
        text = ask(view, query="(a+)+$", mode="regex")
    assert "0 matches" in text
    assert time.monotonic() - started < 30  # Python's re would take longer than the universe's age
    index.close()


def test_secrets_are_never_searched(tmp_path: Path) -> None:
    """INV-TOOL-4: secret-looking files are not indexed, so no query shows them (unless mesh.toml opts in)."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".env").write_text("API_TOKEN=hunter2\n")
    (root / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nhunter2\n")
    (root / "credentials.json").write_text('{"secret": "hunter2"}\n')
    (root / "app.py").write_text("print('hello')\n")
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    with view_of(index) as view:
        assert "0 matches" in ask(view, query="hunter2")
    index.close()


def test_a_cancelled_search_stops(view: View) -> None:
    """INV-TOOL-6: a cancelled call stops reading files."""
    view.cancelled.set()
    with pytest.raises(ToolError, match="cancelled"):
        ask(view, query="order")


def test_same_arguments_same_bytes(view: View) -> None:
    """INV-TOOL-3 (in one process; test_builtin checks it across processes and hash seeds)."""
    assert ask(view, query="order", mode="regex") == ask(view, query="order", mode="regex")


def test_a_file_changed_on_disk_is_searched_as_the_snapshot_has_it(tmp_path: Path) -> None:
    """Until the index catches up, the answer is the snapshot's: the stored copy, not the new text."""
    root = tmp_path / "ws"
    root.mkdir()
    target = root / "a.py"
    target.write_text("needle = 1\n")
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    target.write_text("other = 2\n")
    os.utime(target, ns=(1, 1))
    with view_of(index) as view:
        assert "- 1: `needle = 1`" in ask(view, query="needle")
    index.close()


# -- reading as far as the page needs (INV-SEARCH-3) -----------------------------------------------


def _search_pages(view: View, **arguments) -> list:
    from mesh.tools._smart_search import run

    pages, cursor = [], None
    while True:
        args, _ = parse_args(Args, arguments | ({"cursor": cursor} if cursor else {}))
        pages.append(run(args, view))
        cursor = pages[-1].result.page.next_cursor
        if cursor is None:
            return pages


@pytest.mark.parametrize(
    "arguments",
    [{"query": r"\w+\(", "mode": "regex"}, {"query": "order"}, {"query": r"[a-z]+\.[a-z]+\(", "mode": "regex"}],
)
def test_a_search_stopped_early_pages_on_through_the_same_ranked_list(view: View, arguments: dict) -> None:
    """INV-SEARCH-3: the first page stops reading once it is known, says what it has not read and
    marks its counts; following the cursors gives every match of the whole ranked list exactly once,
    in its order (definitions first, then code, protos, tests...), and the last page's counts are exact."""
    from mesh.index.query._search import search

    whole = search(view.db, arguments["query"], regex=arguments.get("mode") == "regex", root=view.root)
    pages = _search_pages(view, **arguments)
    first = pages[0].result
    assert len(pages) > 1 and first.unread > 0 and first.capped and first.page.capped
    assert f"{first.unread:,} of {first.candidates:,} candidate files not yet read" in pages[0].text
    assert f"About {first.estimate:,} matches in {first.estimate_files:,} files" in pages[0].text
    assert f" of at least {first.total} matches." in pages[0].text
    shown = [(match.path, match.line, match.definition) for page in pages for match in page.result.matches]
    assert shown == [(match.path, match.line, match.definition) for match in whole.matches]
    last = pages[-1].result
    assert (last.unread, last.capped, last.total, last.files) == (0, False, len(whole.matches), whole.files)
    assert last.estimate == last.total and last.estimate_files == last.files


def test_a_search_stopped_early_gives_the_same_bytes_twice(view: View) -> None:
    """INV-SEARCH-3 with INV-TOOL-3: where reading stops, and so the estimate, is the same every time."""
    for cursor in (None, "40"):
        arguments = {"query": r"\w+\(", "mode": "regex"} | ({"cursor": cursor} if cursor else {})
        assert ask(view, **arguments) == ask(view, **arguments)


def test_a_cursor_past_the_last_match_of_an_early_stopped_search_is_refused(view: View) -> None:
    """A cursor past the end is refused even though the first page did not read every file."""
    with pytest.raises(ToolError, match="past the last of"):
        ask(view, query=r"\w+\(", mode="regex", cursor="999999")


def test_definitions_the_query_matches_come_first_even_in_files_read_last(view: View) -> None:
    """INV-SEARCH-3: a definition is found in the ``defs`` table before any text is read, so one
    in a file that sorts last still heads the first page."""
    from mesh.index.query._search import search

    whole = search(view.db, "Order", root=view.root)
    definitions = [(m.path, m.line) for m in whole.matches if m.definition]
    assert definitions and not whole.matches[len(definitions)].definition
    first = _search_pages(view, query="Order")[0].result
    assert first.unread > 0
    assert [(m.path, m.line) for m in first.matches[: len(definitions)]] == definitions


@pytest.mark.parametrize(
    ("query", "regex"),
    [("Order", False), ("getorder", False), (r"^\s*def \w+", True), (r"Reserve|Release", True), ("zzz_nothing", False)],
)
def test_definitions_are_found_alike_through_the_kept_names_or_file_by_file(
    view: View, monkeypatch, query: str, regex: bool
) -> None:
    """INV-SEARCH-3: past a few candidates the definitions are looked for in the snapshot's names
    kept in memory; the files it finds, and so the answer, are those the file-by-file lookup finds."""
    from mesh.index.query import _search

    pattern, formula = _search.compile_query(query, regex=regex, case_sensitive=False)
    ids = [row[0] for row in view.db.execute("SELECT id FROM files ORDER BY id")]
    by_file = _search._defining_files(view.db, ids, pattern, formula.needles())
    first_page = ask(view, query=query, mode="regex" if regex else "literal")
    monkeypatch.setattr(_search, "_DEFS_BY_FILE_MAX", 0)
    assert _search._defining_files(view.db, ids, pattern, formula.needles()) == by_file
    assert _search._defining_files(view.db, ids, pattern, formula.needles()) == by_file  # kept, asked again
    assert ask(view, query=query, mode="regex" if regex else "literal") == first_page
    assert bool(by_file) == (query in ("Order", "getorder", "Reserve|Release"))  # no name holds "def "
