"""The footer of a partial answer: counts, the busiest scopes, follow-up calls an agent can make."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mesh.render import Paging, busiest_scopes, call_text, paging_footer, scope_of

PATHS = [
    "services/orders/api.py",
    "services/orders/store.py",
    "services/orders/deep/x.py",
    "gateway/src/a.ts",
    "gateway/src/b.ts",
    "docs/guide.md",
    "README.md",
]


def test_a_scope_is_the_first_two_path_components() -> None:
    assert [scope_of(path) for path in PATHS] == [
        "services/orders",
        "services/orders",
        "services/orders",
        "gateway/src",
        "gateway/src",
        "docs",
        "README.md",
    ]


def test_the_busiest_scopes_come_first_ties_by_name() -> None:
    assert busiest_scopes(PATHS) == [("services/orders", 3), ("gateway/src", 2), ("README.md", 1)]
    assert busiest_scopes([]) == []


def test_a_partial_answer_says_what_was_shown_and_what_to_call_next() -> None:
    footer = paging_footer(
        Paging(shown=40, total=200, noun="matches", next_cursor="40"),
        tool="smart_search",
        arguments={"query": "GetOrder", "kind": "code"},
        paths=PATHS,
    )
    assert footer == (
        "---\n"
        "Shown 40 of 200 matches.\n"
        "Busiest scopes: `services/orders` (3), `gateway/src` (2), `README.md` (1).\n"
        'Narrow to the busiest: `smart_search` `{"kind":"code","query":"GetOrder","scope":"services/orders"}`\n'
        'Next page: `smart_search` `{"cursor":"40","kind":"code","query":"GetOrder"}`\n'
    )


def test_a_capped_count_is_a_lower_bound_and_an_already_narrow_call_is_not_narrowed_again() -> None:
    footer = paging_footer(
        Paging(shown=10, total=10_000, noun="matches", capped=True),
        tool="smart_search",
        arguments={"query": "x", "scope": "services/orders", "cursor": "10"},
        paths=["services/orders/a.py"],
    )
    assert footer == "---\nShown 10 of at least 10000 matches.\nBusiest scopes: `services/orders` (1).\n"


def test_a_complete_answer_has_no_footer() -> None:
    paging = Paging(shown=3, total=3, noun="matches")
    assert paging_footer(paging, tool="t", arguments={}, paths=PATHS) == ""


@given(st.dictionaries(st.text(max_size=5), st.one_of(st.text(max_size=5), st.integers(), st.booleans()), max_size=4))
def test_follow_up_calls_are_the_same_bytes_whatever_the_argument_order(arguments: dict) -> None:
    assert call_text("t", arguments) == call_text("t", dict(reversed(list(arguments.items()))))


def test_backticks_in_arguments_cannot_break_out_of_the_code_span() -> None:
    from mesh.render._paging import code

    assert code("plain") == "`plain`"
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    assert call_text("smart_search", {"query": "``x``"}) == '`smart_search` ```{"query":"``x``"}```'


def test_a_later_page_says_which_results_it_shows() -> None:
    footer = paging_footer(
        Paging(shown=40, total=100, noun="matches", next_cursor="80", first=40),
        tool="smart_search",
        arguments={"query": "x", "cursor": "40"},
        paths=["a/b/c.py"],
    )
    assert footer.splitlines()[1] == "Shown matches 41-80 of 100."
    assert footer.splitlines()[-1] == 'Next page: `smart_search` `{"cursor":"80","query":"x"}`'
    last = paging_footer(Paging(shown=20, total=100, noun="matches", first=80), tool="t", arguments={}, paths=[])
    assert last == "---\nShown matches 81-100 of 100.\n"
