"""``doc_sections``: section trees and section text of the workspace's Markdown, paged and bounded.

The golden answers are over the fixture workspace (its docs and READMEs, see ``FIXTURE.md``, "Docs
section trees"). A generated workspace holds what the fixture is too small for: a section long
enough to page (with code fences cut across pages), a file with hundreds of headings, and more
than a hundred docs, so that trees and heading candidates page too.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mesh.index.build._build as build
import mesh.index.query._docs_query as docs_query
from mesh.index import Index
from mesh.index.query._docs_query import DocFile, DocSection, Outline
from mesh.index.parse._markdown import extract as extract_markdown
from mesh.render import TOOL_TEXT_BYTES_MAX
from mesh.render._docs import PAGE_BYTES, parse_cursor, render_section
from mesh.tools._args import ArgumentError, parse_args, schema_of
from mesh.tools._doc_sections import DESCRIPTION, NAME, Args, answer
from mesh.tools._registry import Registry, Tool, ToolError
from mesh.tools._view import View

from .conftest import FIXTURE, assert_golden, file_scans, view_of

_NEXT_PAGE = re.compile(r"^Next page: `doc_sections` `(\{.*\})`$", re.MULTILINE)
_FENCE_LINE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_PROSE = re.compile(r"^L[0-9]{4} .*$", re.MULTILINE)
#: What a page may take beyond its budget: the footer and the closing notes.
_SLACK_BYTES = 1024


def call(view: View, **arguments: object) -> str:
    args, _ = parse_args(Args, arguments)
    return answer(args, view)


def pages(view: View, **arguments: object) -> list[str]:
    """Every page of an answer, following the "Next page" calls until there is none."""
    found = [call(view, **arguments)]
    while match := _NEXT_PAGE.search(found[-1]):
        assert len(found) < 100, "the cursors do not end"
        found.append(call(view, **json.loads(match.group(1))))
    return found


def fences_left_open(text: str) -> int:
    """How many fence lines of ``text`` opened or closed a code fence; odd means one is left open."""
    fence = None
    transitions = 0
    for line in text.split("\n"):
        match = _FENCE_LINE.fullmatch(line)
        if match is None:
            continue
        marker, info = match.groups()
        if fence is None and not (marker[0] == "`" and "`" in info):
            fence, transitions = marker, transitions + 1
        elif fence is not None and marker[0] == fence[0] and len(marker) >= len(fence) and not info.strip():
            fence, transitions = None, transitions + 1
    return transitions


# -- the fixture: goldens ------------------------------------------------------------------------

GOLDEN_CASES = {
    "tree_workspace": {},
    "tree_file": {"path": "docs/runbook.md"},
    "tree_folder": {"path": "docs"},
    "tree_folder_depth_1": {"path": "docs", "depth": 1},
    "tree_file_depth_2": {"path": "docs/architecture.md", "depth": 2},
    "heading_exact": {"heading": "Order states"},
    "heading_substring": {"heading": "stuck"},
    "heading_typo": {"heading": "rollbak"},
    "heading_tie": {"heading": "Verify"},
    "heading_in_file": {"heading": "symptoms", "path": "docs/runbook.md"},
    "section_text": {"section_id": "docs/runbook.md#runbook/incidents/payments-charges-failing"},
    "section_fence": {"section_id": "docs/architecture.md#architecture/overview"},
    "section_depth_1": {"section_id": "docs/runbook.md#runbook/incidents", "depth": 1},
    "section_root": {"section_id": "README.md#acme-shop/getting-started"},
}


@pytest.mark.parametrize("case", sorted(GOLDEN_CASES))
def test_golden(view: View, case: str) -> None:
    """Each answer over the fixture is the reviewed golden answer, byte for byte."""
    assert_golden(NAME, case, call(view, **GOLDEN_CASES[case]))


def test_bare_id_within_a_file_is_the_qualified_id(view: View) -> None:
    """A bare id with the file as ``path``, and a bare id unique in the workspace, name the same section."""
    qualified = call(view, section_id="docs/runbook.md#runbook/deploying/verify-2")
    assert call(view, path="docs/runbook.md", section_id="runbook/deploying/verify-2") == qualified
    assert call(view, section_id="runbook/deploying/verify-2") == qualified
    assert call(view, path="docs", section_id="runbook/deploying/verify-2") == qualified


def test_every_printed_id_reads_its_section(view: View) -> None:
    """Each id a tree prints, passed back as ``section_id``, answers with that section (its title first)."""
    ids = re.findall(r"— `([^`]+#[^`]+)` \(lines", call(view, depth=6))
    assert len(ids) == len(set(ids)) == 61
    for section_id in ids:
        first_line = call(view, section_id=section_id).split("\n", 1)[0]
        assert first_line.startswith("## ") and first_line.endswith(f" — `{section_id}`")


def test_absolute_path_inside_the_workspace(view: View) -> None:
    """An absolute path inside the workspace is the same as the relative one."""
    assert call(view, path=str(FIXTURE / "docs" / "runbook.md")) == call(view, path="docs/runbook.md")


def test_the_tree_reads_the_markdown_files_rows_only(view: View) -> None:
    """The tree of every document finds the Markdown files through the index of a language's
    files, not by reading every file's row."""
    text, scans = file_scans(view.db, lambda: answer(parse_args(Args, {})[0], view))
    assert "README" in str(text)
    assert not scans, scans


def test_tree_reads_no_text(view: View, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trees and heading candidates come from the index alone: no document's text is read."""

    def refuse(*_: object) -> str:
        raise AssertionError("read a document's text")

    monkeypatch.setattr(docs_query, "file_text", refuse)
    call(view)
    call(view, path="docs", depth=6)
    call(view, path="docs/runbook.md")
    call(view, heading="Verify")


# -- the fixture: failures -----------------------------------------------------------------------

FAILURES = {
    "unknown_qualified_id": (
        {"section_id": "docs/runbook.md#runbook/deploy"},
        (
            r"`docs/runbook.md` has no section `runbook/deploy`.*Close ones: `docs/runbook.md#runbook/deploying` "
            r"\(Deploying\).*`doc_sections` `\{\"path\":\"docs/runbook.md\"\}`"
        ),
    ),
    "unknown_bare_id": (
        {"section_id": "rollout"},
        (
            r"No Markdown file in the workspace has a section `rollout`\. Close ones: "
            r"`docs/runbook.md#runbook/deploying/rollout` \(Rollout\)"
        ),
    ),
    "id_in_a_file_outside_path": (
        {"section_id": "docs/runbook.md#runbook", "path": "orders"},
        r"is in `docs/runbook.md`, which is not under `path` `orders`",
    ),
    "id_of_a_folder": (
        {"section_id": "docs#runbook"},
        r"`docs` in the section id `docs#runbook` is a folder.*`doc_sections` `\{\"path\":\"docs\"\}`",
    ),
    "id_of_a_file_not_markdown": (
        {"section_id": "orders/pyproject.toml#x"},
        r"`orders/pyproject.toml` is a config file, not Markdown",
    ),
    "no_heading_match": (
        # no word of it starts a word of a title ("deploy steps" finds Deploying by its first word)
        {"heading": "deploi stepz"},
        r"No heading in the workspace matches `deploi stepz`; nearest titles: `Deploying`",
    ),
    "no_heading_match_anywhere_near": (
        {"heading": "zzqx", "path": "docs"},
        (
            r"No heading in `docs` matches `zzqx`\. Try a shorter part of the title\. List the titles: "
            r"`doc_sections` `\{\"path\":\"docs\"\}`"
        ),
    ),
    "dot_dot": ({"path": "docs/../../etc"}, r"leaves the workspace"),
    "absolute_outside": ({"path": "/etc/passwd"}, r"outside the workspace"),
    "dot_dot_in_an_id": ({"section_id": "../secret.md#x"}, r"The section id's file `../secret.md` leaves"),
    "not_markdown": ({"path": "orders/pyproject.toml"}, r"is a config file, not Markdown: `doc_sections` reads"),
    "folder_without_docs": ({"path": "orders/orders"}, r"The folder `orders/orders` holds no Markdown files"),
    "unknown_path": ({"path": "runbook.md"}, r"neither an indexed Markdown file nor a folder.*`docs/runbook.md`"),
    "id_given_as_path": ({"path": "docs/runbook.md#runbook"}, r"looks like a section id: `doc_sections`"),
    "both_id_and_heading": ({"section_id": "README.md#acme-shop", "heading": "x"}, r"not both"),
    "garbage_cursor": ({"cursor": "page 2"}, r"The cursor `page 2` does not fit this call"),
    "cursor_of_another_answer": ({"path": "docs/runbook.md", "cursor": "file:1"}, r"does not fit"),
    "cursor_past_the_end": ({"path": "docs", "cursor": "file:2"}, r"does not fit"),
    "line_cursor_outside_the_section": (
        {"section_id": "docs/runbook.md#runbook/contacts", "cursor": "line:3"},
        r"does not fit",
    ),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_failures_say_what_to_try(view: View, case: str) -> None:
    """Each failure is a ToolError that names what was wrong and what to pass instead."""
    arguments, message = FAILURES[case]
    with pytest.raises(ToolError, match=message):
        call(view, **arguments)


def test_arguments_are_checked() -> None:
    """``depth`` is 1-6, ``heading`` and ``section_id`` are not empty, unknown fields are refused."""
    schema = schema_of(Args)
    assert set(schema["properties"]) == {"path", "heading", "section_id", "depth", "cursor"}
    assert schema["properties"]["depth"]["minimum"] == 1 and schema["properties"]["depth"]["maximum"] == 6
    assert "required" not in schema
    for bad in ({"depth": 0}, {"depth": 7}, {"heading": ""}, {"section_id": ""}, {"scope": "docs"}):
        with pytest.raises(ArgumentError):
            parse_args(Args, bad)
    assert NAME == "doc_sections" and DESCRIPTION.endswith(".") and len(DESCRIPTION) < 300


def test_through_the_registry(view: View) -> None:
    """Registered, the tool takes JSON arguments, answers within the bound untouched, and its
    failures come back as ``isError`` results with the message."""
    registry = Registry()
    registry.register(Tool(NAME, DESCRIPTION, Args, lambda args, _: answer(args, view), title="Doc sections"))
    done = registry.call(NAME, {"depth": 6}, None, workspace=FIXTURE)
    assert not done.is_error and not done.truncated and done.text == call(view, depth=6)
    failed = registry.call(NAME, {"section_id": "README.md#nope"}, None, workspace=FIXTURE)
    assert failed.is_error and "`README.md` has no section `nope`" in failed.text
    refused = registry.call(NAME, {"depth": 9}, None, workspace=FIXTURE)
    assert refused.is_error and "depth" in refused.text


# -- determinism ---------------------------------------------------------------------------------

_DIGEST_CALLS = [{}, *GOLDEN_CASES.values(), {"heading": "Orders"}, {"section_id": "README.md#acme-shop"}]


def _digest(view: View) -> str:
    digest = hashlib.sha256()
    for arguments in _DIGEST_CALLS:
        digest.update(call(view, **arguments).encode())
    return digest.hexdigest()


def test_same_answers_from_another_index_and_another_hash_seed(view: View, tmp_path: Path) -> None:
    """Another index of the same files, in another process with another PYTHONHASHSEED, answers the
    same bytes."""
    script = (
        "import sys, pathlib\n"
        "from mesh.index import Index\n"
        "from tests.tools import test_doc_sections as t\n"
        "from tests.tools.conftest import view_of\n"
        "index = Index(t.FIXTURE, pathlib.Path(sys.argv[1]), workers=1)\n"
        "index.refresh()\n"
        "with view_of(index) as view:\n"
        "    print(t._digest(view))\n"
        "index.close()\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "cache")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout.strip() == _digest(view)


# -- a generated workspace: paging ---------------------------------------------------------------

#: The prose lines of ``big/long.md`` (each says its own number, so a repeat or a gap shows).
LONG_PROSE = 1553
SCOPES = (("services/alpha", 50), ("services/beta", 30), ("guides", 25))


def _write_workspace(root: Path) -> None:
    def put(relative: str, text: str) -> None:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    lines = ["# Long", ""]
    count = 0

    def prose(n: int) -> None:
        nonlocal count
        for _ in range(n):
            count += 1
            lines.append(f"L{count:04d} a line of prose that is long enough to fill pages quickly.")

    prose(100)
    lines.append("```python")
    prose(400)
    lines.append("```")
    prose(200)
    lines.append("~~~~")
    prose(300)
    lines.append("~~~~")
    prose(100)
    lines.append("````markdown")  # holds ``` lines that do not close it
    for _ in range(50):
        lines.append("```")
        prose(5)
        lines.append("```")
    lines.append("````")
    prose(200)
    lines += ["", "## Appendix", ""]
    prose(3)
    assert count == LONG_PROSE
    put("big/long.md", "\n".join(lines) + "\n")
    outline = ["# Outline", ""]
    for i in range(300):
        outline += [f"## Chapter {i:03d}", "", "text", "", f"### Part {i:03d}", "", "more", ""]
    put("big/outline.md", "\n".join(outline))
    for scope, n in SCOPES:
        for i in range(n):
            put(
                f"{scope}/doc{i:02d}.md",
                f"# Overview\n\nAbout {scope} {i}.\n\n## Setup\n\nSteps.\n\n### Details\n\nMore.\n",
            )
    filler = "".join(f"filler {i:03d}\n" for i in range(200))  # short lines: not taken for minified
    put("big/wide.md", "# Wide\n\n" + "x" * 40_000 + "\n\nafter\n" + filler)
    put("odd/minified.md", "# Minified\n" + "x" * 40_000 + "\n")
    put("empty/notes.md", "no headings here\njust text\n")
    put("code/app.py", "def main():\n    return 1\n")
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.md").write_text("# Secret\n", encoding="utf-8")
    (root / "link").symlink_to(outside, target_is_directory=True)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[View]:
    """A view of the generated workspace (built once per test process; parsed inline, no workers)."""
    base = tmp_path_factory.mktemp("docs-workspace")
    root = base / "ws"
    _write_workspace(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(build, "INLINE_MAX", 10_000)
        index = Index(root, base / "cache", workers=1)
        assert [path for path, _ in index.refresh().failures] == ["odd/minified.md"]
    with view_of(index) as view:
        yield view
    index.close()


def _within_budget(page: str) -> None:
    size = len(page.encode())
    assert size <= PAGE_BYTES + _SLACK_BYTES and size <= TOOL_TEXT_BYTES_MAX


def test_long_section_pages_without_open_fences(generated: View) -> None:
    """A long section pages on line boundaries: no page leaves a fence open (fence lines pair up), a
    fence cut by a page is opened again on the next, and every line is shown exactly once."""
    found = pages(generated, section_id="big/long.md#long")
    assert len(found) >= 4
    seen: Counter[str] = Counter()
    for page in found:
        _within_budget(page)
        assert fences_left_open(page) % 2 == 0, page[-400:]
        seen.update(_PROSE.findall(page))
    assert sum("inside a code block opened at line" in page for page in found) >= 2
    assert [line[:5] for line in sorted(seen)] == [f"L{n:04d}" for n in range(1, LONG_PROSE + 1)]
    assert set(seen.values()) == {1}


def test_a_heading_that_one_title_holds_best_wins(generated: View) -> None:
    """Among titles holding the heading, the one it fills the most of wins: its text, the rest named."""
    page = call(generated, heading="e")
    assert page.startswith("## Wide — `big/wide.md#wide`\n\nBest match for the heading `e` (title holds it); also")


def test_long_section_by_heading_pages_the_same(generated: View) -> None:
    """Found by heading, the section pages the same way (the cursor keeps the heading)."""
    by_heading = pages(generated, heading="long")
    by_id = pages(generated, section_id="big/long.md#long")
    assert len(by_heading) == len(by_id)
    assert [_PROSE.findall(page) for page in by_heading] == [_PROSE.findall(page) for page in by_id]


def test_depth_leaves_subsections_out_of_the_text(generated: View) -> None:
    """At depth 1 the text stops before its subsection, which a marker names with its id."""
    found = pages(generated, section_id="big/long.md#long", depth=1)
    prose = [line for page in found for line in _PROSE.findall(page)]
    assert len(prose) == LONG_PROSE - 3
    assert "`big/long.md#long/appendix` (lines " in found[-1] and "is left out at depth 1" in found[-1]


def test_a_line_longer_than_a_page_is_shown_cut_once(generated: View) -> None:
    """A single line longer than a page is shown cut, alone on its page; the next page goes on after it."""
    found = pages(generated, section_id="big/wide.md#wide")
    assert len(found) == 3
    for page in found:
        _within_budget(page)
    assert "x" * 1000 not in found[0] and "(line cut: 40,000 bytes)" in found[1] and "x" * 1000 in found[1]
    assert "x" * 1000 not in found[2]
    text = "".join(found)
    assert text.count("line cut") == 1 and text.count("\nafter\n") == 1
    assert sorted(re.findall(r"^filler [0-9]{3}$", text, re.MULTILINE)) == [f"filler {i:03d}" for i in range(200)]


def test_tree_pages_by_file_and_names_the_busiest_scope(generated: View) -> None:
    """The workspace tree pages by whole files (one cut file aside), shows each file once, and its
    footer names the busiest scopes with the call that narrows to the first."""
    found = pages(generated)
    assert len(found) >= 3
    files: Counter[str] = Counter()
    for page in found:
        _within_budget(page)
        files.update(re.findall(r"^`([^`]+\.md)`: ", page, re.MULTILINE))
    expected = {"big/long.md", "big/outline.md", "big/wide.md", "empty/notes.md", "odd/minified.md"}
    expected |= {f"{scope}/doc{i:02d}.md" for scope, n in SCOPES for i in range(n)}
    assert set(files) == expected and set(files.values()) == {1}
    assert "Busiest scopes: `services/alpha` (50), `services/beta` (30), `guides` (25)." in found[0]
    assert 'Narrow to the busiest: `doc_sections` `{"path":"services/alpha"}`' in found[0]
    assert "`empty/notes.md`: 2 lines, no headings" in "".join(found)
    assert "`odd/minified.md`: not parsed (minified (a line of 40000 characters)" in "".join(found)


def test_a_file_too_big_for_a_page_is_cut_with_the_call_for_the_rest(generated: View) -> None:
    """In a folder's tree, a file whose tree overflows a page is cut; the call printed for the rest
    pages through that file, and together they show each of its sections once."""
    found = pages(generated, path="big")
    assert len(found) == 3  # long.md; outline.md alone (cut); wide.md
    page = next(page for page in found if "big/outline.md" in page)
    cut = re.search(r"^- … [0-9,]+ more sections: `doc_sections` `(\{.*\})`$", page, re.MULTILINE)
    assert cut is not None
    shown = re.findall(r"`(big/outline\.md#[^`]+)` \(lines", page)
    for rest in pages(generated, **json.loads(cut.group(1))):
        shown += re.findall(r"`(big/outline\.md#[^`]+)` \(lines", rest)
    assert len(shown) == 301 and len(set(shown)) == 301


def test_one_file_tree_pages_by_section(generated: View) -> None:
    """A file with hundreds of headings pages by section; each id appears once across the pages."""
    found = pages(generated, path="big/outline.md")
    assert len(found) >= 2
    ids: Counter[str] = Counter()
    for page in found:
        _within_budget(page)
        ids.update(re.findall(r"`(big/outline\.md#[^`]+)` \(lines", page))
    assert len(ids) == 601 and set(ids.values()) == {1}
    assert "Busiest sections: `big/outline.md#outline/chapter-000` (1 subsection)" in found[0]


def test_heading_candidates_page(generated: View) -> None:
    """A heading many titles hold lists them all, ranked, a page at a time, each once."""
    found = pages(generated, heading="t")
    assert len(found) >= 3
    ids: Counter[str] = Counter()
    for page in found:
        _within_budget(page)
        ids.update(re.findall(r"^- .* — `([^`]+)` \(lines", page, re.MULTILINE))
    # Setup and Details in each of the 105 small docs, Outline, and 300 chapters with a part each.
    assert len(ids) == 811 and set(ids.values()) == {1}
    assert "105 match equally well (title holds it)" in found[0]
    assert found[0].split("\n- ", 2)[1].startswith("Setup — ")  # the shortest title holding it ranks first


def test_generated_failures(generated: View) -> None:
    """A symlink out of the workspace, an id in many files, a file without headings or not parsed, code."""
    with pytest.raises(ToolError, match=r"through a symlink to .*, outside the workspace"):
        call(generated, path="link")
    with pytest.raises(ToolError, match=r"through a symlink to .*, outside the workspace"):
        call(generated, section_id="link/secret.md#secret")
    with pytest.raises(ToolError, match=r"105 files in the workspace have a section `overview`: `guides/doc00.md"):
        call(generated, section_id="overview")
    with pytest.raises(ToolError, match=r"`empty/notes.md` has no headings \(2 lines\).*\{\"path\":\"empty\"\}"):
        call(generated, path="empty/notes.md")
    with pytest.raises(ToolError, match=r"`odd/minified.md` could not be parsed \(minified"):
        call(generated, path="odd/minified.md")
    with pytest.raises(ToolError, match=r"`code/app.py` is a python file, not Markdown"):
        call(generated, path="code/app.py")


def test_a_workspace_without_docs(tmp_path: Path) -> None:
    """With no Markdown file indexed, the tree is a ToolError that says so."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "app.py").write_text("x = 1\n", encoding="utf-8")
    index = Index(tmp_path / "ws", tmp_path / "cache", workers=1)
    index.refresh()
    try:
        with view_of(index) as view, pytest.raises(ToolError, match=r"no Markdown files"):
            call(view)
    finally:
        index.close()


# -- any document: the paging invariant -----------------------------------------------------------

_KINDS = ["prose", "prose", "prose", "long", "blank", "h1", "h2", "h3", "```", "```py", "~~~", "````", "  ~~~~~"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kinds=st.lists(st.sampled_from(_KINDS), max_size=80),
    page_bytes=st.integers(min_value=300, max_value=3000),
    depth=st.none() | st.integers(min_value=1, max_value=3),
)
def test_any_section_pages_every_line_once_and_closes_its_fences(
    kinds: list[str], page_bytes: int, depth: int | None
) -> None:
    """For any Markdown (headings, fences of every kind, blank, short and over-long lines), any page
    budget and depth: following the cursors through any section shows each of its lines at most once
    (exactly once without ``depth``), in order, and no page leaves a fence open."""
    lines = []
    for number, kind in enumerate(kinds, 1):
        if kind == "prose":
            lines.append(f"p{number} words")
        elif kind == "long":
            lines.append(f"p{number} " + "w" * 600)
        elif kind == "blank":
            lines.append("")
        elif kind[0] == "h":
            lines.append("#" * int(kind[1]) + f" Title {number}")
        else:
            lines.append(kind)
    facts = extract_markdown(("\n".join(lines) + "\n").encode())
    file = DocFile(1, "d.md", "", len(lines), 0, 0, "")
    outline = Outline.of(file, (DocSection("d.md", *attrs_of(section)) for section in facts.sections))
    for section in outline.sections:
        start = None
        seen: list[str] = []
        for _ in range(len(lines) + 2):
            arguments = {"section_id": section.qualified}
            page = render_section(
                outline, section, lines, arguments=arguments, depth=depth, start=start, page_bytes=page_bytes
            )
            assert fences_left_open(page) % 2 == 0, page
            seen += re.findall(r"^(p[0-9]+) ", page, re.MULTILINE)
            next_page = _NEXT_PAGE.search(page)
            if next_page is None:
                break
            start = parse_cursor(json.loads(next_page.group(1))["cursor"]).number
        else:
            raise AssertionError("the cursors do not end")
        numbers = [int(name[1:]) for name in seen]
        assert numbers == sorted(set(numbers))
        assert all(section.line <= number <= section.end_line for number in numbers)
        if depth is None:
            wanted = [n for n in range(section.line, section.end_line + 1) if lines[n - 1].startswith("p")]
            assert numbers == wanted


def attrs_of(section: object) -> tuple:
    """A parsed section's fields, in the order :class:`DocSection` takes them after its path."""
    return tuple(getattr(section, name) for name in ("section_id", "title", "level", "parent_id", "line", "end_line"))
