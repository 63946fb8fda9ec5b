"""``doc_sections``' heading search by words: in any order, apart, ranked by how many match.

The fixture answers stay as they were (its golden answers are in ``test_doc_sections.py``); a small
generated workspace holds the titles the fixture lacks.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.index import Index
from mesh.index.query._docs_query import (
    heading_words,
    markdown_file,
    match_headings,
    titles_holding,
    words_in_title,
)
from mesh.tools._args import parse_args
from mesh.tools._doc_sections import Args, answer
from mesh.tools._registry import ToolError
from mesh.tools._view import View

from .conftest import view_of


def call(view: View, **arguments: object) -> str:
    args, _ = parse_args(Args, arguments)
    return answer(args, view)


# -- the words of a heading, and of a title ------------------------------------------------------


def test_heading_words_are_runs_of_letters_and_digits_without_function_words() -> None:
    assert heading_words("redis cache setup") == ("redis", "cache", "setup")
    assert heading_words("How to set up the cache?") == ("set", "up", "cache")
    assert heading_words("cache, Cache (v2)/grpc_gateway") == ("cache", "v2", "grpc", "gateway")
    # nothing but function words: they are the words
    assert heading_words("how to") == ("how", "to")
    assert heading_words("-- ++") == ()
    assert heading_words("Überblick") == ("überblick",)


@pytest.mark.parametrize(
    ("words", "title", "count"),
    [
        (("redis", "cache", "setup"), "set up the cache (redis)", 3),  # any order, apart, across separators
        (("deploy",), "deploying", 1),  # a prefix of a title word
        (("ploy",), "deploying", 0),  # but not the inside of one
        (("setup",), "set upstream", 1),  # across separators, a prefix again
        (("up",), "update", 0),  # a word of one or two letters is a whole word
        (("up",), "set up", 1),
        (("v2", "api"), "api (v2)", 2),
        (("cache", "kafka"), "cache warmup", 1),
        (("cache",), "---", 0),
    ],
)
def test_words_in_title(words: tuple[str, ...], title: str, count: int) -> None:
    assert words_in_title(words, title)[0] == count


def test_the_score_is_the_share_of_the_title_covered() -> None:
    assert words_in_title(("redis", "cache"), "redis cache") == (2, 1.0)
    assert words_in_title(("redis", "cache"), "cache redis setup") == (2, round(10 / 15, 6))


# -- a generated workspace -----------------------------------------------------------------------

DOCS = {
    "docs/ops.md": (
        "# Operations\n\n"
        "## Set up the cache (Redis)\n\nSteps.\n\n"
        "## Cache warmup\n\nWarm.\n\n"
        "## Redis failover\n\nFail over.\n\n"
        "## Deploying\n\nDeploy.\n\n"
        "## Rollback\n\nBack.\n\n"
        "## Kafka topics\n\nProduction topics.\n"
    ),
    "docs/dev.md": (
        "# Development\n\n"
        "## Redis cache setup\n\nLocal.\n\n"
        "## Kafka topics\n\nTopics.\n\n"
        "## Topics for Kafka consumers\n\nConsumers.\n"
    ),
}


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[View]:
    base = tmp_path_factory.mktemp("docs-words")
    root = base / "ws"
    for relative, text in DOCS.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    index = Index(root, base / "cache", workers=1)
    index.refresh()
    with view_of(index) as view:
        yield view
    index.close()


def ranked(view: View, heading: str, file: str = "") -> list[tuple[str, str, int]]:
    """(title, how, words matched) of each match in the workspace, or in ``file``, best first."""
    scope = markdown_file(view.db, file) if file else ""
    assert scope is not None
    return [(m.section.title, m.how, m.words_matched) for m in match_headings(view.db, heading, scope)]


def test_words_in_any_order_and_apart_find_the_title(docs: View) -> None:
    """"redis cache setup" finds "Set up the cache (Redis)": the title holds every word; the title
    holding the whole heading ranks first; titles holding only some are not listed."""
    assert ranked(docs, "redis cache setup") == [
        ("Redis cache setup", "exact", 3),
        ("Set up the cache (Redis)", "words", 3),
    ]
    assert ranked(docs, "cache redis", "docs/ops.md") == [("Set up the cache (Redis)", "words", 2)]
    page = call(docs, heading="cache redis", path="docs/ops.md")
    assert page.startswith(
        "## Set up the cache (Redis) — `docs/ops.md#operations/set-up-the-cache-redis`\n\n"
        "Best match for the heading `cache redis` (title holds every word).\n"
    )


def test_titles_holding_more_words_rank_first_when_none_holds_every_word(docs: View) -> None:
    assert ranked(docs, "redis cache kafka", "docs/ops.md") == [
        ("Set up the cache (Redis)", "words", 2),
        ("Cache warmup", "words", 1),
        ("Kafka topics", "words", 1),
        ("Redis failover", "words", 1),
    ]
    page = call(docs, heading="redis cache kafka", path="docs/ops.md")
    assert "Best match for the heading `redis cache kafka` (title holds 2 of 3 words); also matched: " in page


def test_equal_counts_fall_back_to_the_share_of_the_title(docs: View) -> None:
    """Among titles holding as many words, the current tie-breaks decide: the share of the title
    matched, then path and line; equal ones are listed as candidates."""
    found = match_headings(docs.db, "topics kafka", "")
    assert [(m.section.path, m.section.title, m.words_matched) for m in found] == [
        ("docs/dev.md", "Kafka topics", 2),
        ("docs/ops.md", "Kafka topics", 2),
        ("docs/dev.md", "Topics for Kafka consumers", 2),
    ]
    page = call(docs, heading="topics kafka")
    assert page.startswith("## Headings like `topics kafka`: 3 sections\n\n2 match equally well (title holds every")
    assert "- Kafka topics — `docs/ops.md#operations/kafka-topics` (lines " in page
    # one word each: "failover" covers more of its title than "warmup" does of its own
    assert ranked(docs, "failover warmup") == [("Redis failover", "words", 1), ("Cache warmup", "words", 1)]


def test_function_words_do_not_count(docs: View) -> None:
    """"how to deploy" is "deploy": Deploying wins alone, not every title holding "to"."""
    assert ranked(docs, "how to deploy") == [("Deploying", "words", 1)]
    assert call(docs, heading="how to deploy").startswith("## Deploying — `docs/ops.md#operations/deploying`")


def test_a_heading_whose_words_match_nothing_answers_as_before(docs: View) -> None:
    """No word matching: a close spelling still wins, and when none is close the error names the
    nearest titles."""
    assert ranked(docs, "rollbak") == [("Rollback", "close", 0)]
    with pytest.raises(ToolError, match=r"No heading in the workspace matches `zzqx`\. Try a shorter part"):
        call(docs, heading="zzqx")
    with pytest.raises(ToolError, match=r"matches `deploi stepz`; nearest titles: `Deploying`"):
        call(docs, heading="deploi stepz")


def test_many_titles_holding_a_word(tmp_path: Path) -> None:
    """Titles holding some word are fetched in batches (SQLite bounds a statement's parameters): all
    of them come back, ranked, in a deterministic order."""
    root = tmp_path / "ws"
    root.mkdir()
    chapters = "".join(f"## Chapter {n:04d} notes\n\ntext\n\n" for n in range(1_200))
    (root / "big.md").write_text("# Book\n\n" + chapters, encoding="utf-8")
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    try:
        with view_of(index) as view:
            found = match_headings(view.db, "notes zebra", "")
            assert len(found) == 1_200
            assert [m.section.line for m in found] == sorted(m.section.line for m in found)
            assert {(m.how, m.words_matched, m.words_total) for m in found} == {("words", 1, 2)}
    finally:
        index.close()


# -- the fixture ---------------------------------------------------------------------------------


def test_fixture_headings_by_words(view: View) -> None:
    """On the fixture: words in another order find the title; a word that starts a title's word
    finds it when nothing holds every word."""
    page = call(view, heading="states order")
    assert page.startswith(
        "## Order states — `docs/architecture.md#architecture/services/orders/order-states`\n\n"
        "Best match for the heading `states order` (title holds every word).\n"
    )
    page = call(view, heading="deploy steps")
    assert page.startswith(
        "## Deploying — `docs/runbook.md#runbook/deploying`\n\n"
        "Best match for the heading `deploy steps` (title holds 1 of 2 words).\n"
    )


_TITLE_TEXT = st.text(alphabet=st.sampled_from(list("abcdeß_ -()/:.É0\u0301\n")), max_size=24)


@settings(max_examples=300, deadline=None)
@given(titles=st.lists(_TITLE_TEXT, max_size=8, unique=True), heading=_TITLE_TEXT)
def test_the_bulk_matcher_agrees_with_the_per_title_one(titles: list[str], heading: str) -> None:
    """``titles_holding`` (one scan per word over every title) says what ``words_in_title`` says of
    each title, and names exactly the titles holding a word."""
    folded = list(dict.fromkeys(title.casefold() for title in titles))
    words = heading_words(heading.casefold())
    expected = {title: hit for title in folded if (hit := words_in_title(words, title))[0]}
    assert titles_holding(words, folded) == expected
