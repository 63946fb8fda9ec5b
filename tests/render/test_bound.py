"""The 48 KB bound on every tool text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.render import TOOL_TEXT_BYTES_MAX, bound_markdown


def fences_balanced(text: str) -> bool:
    open_fence = None
    for line in text.splitlines():
        match = re.match(r"^ {0,3}(`{3,}|~{3,})(.*)$", line)
        if not match:
            continue
        marker, info = match.groups()
        if open_fence is None:
            if not (marker[0] == "`" and "`" in info):  # CommonMark: no backtick in a backtick fence's info
                open_fence = marker
        elif marker[0] == open_fence[0] and len(marker) >= len(open_fence) and not info.strip():
            open_fence = None
    return open_fence is None


def test_small_text_is_untouched() -> None:
    bounded = bound_markdown("# hi\n")
    assert (bounded.text, bounded.truncated, bounded.original_bytes) == ("# hi\n", False, 5)


def test_default_bound_is_48_kib_INV_BOUND_2() -> None:
    """INV-BOUND-2."""
    text = "".join(f"line {i}\n" for i in range(20_000))
    bounded = bound_markdown(text)
    assert TOOL_TEXT_BYTES_MAX == 49_152
    assert bounded.truncated and len(bounded.text.encode()) <= TOOL_TEXT_BYTES_MAX
    assert f"of {len(text.encode()):,} bytes" in bounded.text
    assert "of 20,000 lines" in bounded.text
    assert bounded.text.startswith("line 0\nline 1\n")


def test_open_fence_is_closed_INV_BOUND_2() -> None:
    """INV-BOUND-2."""
    text = "Intro\n\n````python\n" + "x = 1\n" * 1000 + "````\nafter\n"
    bounded = bound_markdown(text, limit=1000, hint="Call `smart_search` with `scope`.")
    assert bounded.truncated and len(bounded.text.encode()) <= 1000
    assert "````\n\n_Truncated" in bounded.text
    assert fences_balanced(bounded.text)
    assert bounded.text.rstrip().endswith("Call `smart_search` with `scope`.")


def test_inner_shorter_fence_does_not_close_INV_BOUND_2() -> None:
    """INV-BOUND-2."""
    text = "~~~~\n```\n" + "y\n" * 500
    bounded = bound_markdown(text, limit=300)
    assert fences_balanced(bounded.text) and "~~~~\n\n_Truncated" in bounded.text


def test_one_giant_line_is_cut_inside_at_a_character_boundary() -> None:
    bounded = bound_markdown("é" * 10_000, limit=1000)
    assert bounded.truncated and len(bounded.text.encode()) <= 1000
    bounded.text.encode("utf-8")  # still valid text


def test_limit_too_small_is_refused() -> None:
    with pytest.raises(ValueError):
        bound_markdown("x" * 1000, limit=100)


lines = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=80),
    st.sampled_from(["```", "```py", "~~~", "````", "   ```", "    ```", "``` `x`", "~~~~~"]),
)


@settings(max_examples=300)
@given(body=st.lists(lines, max_size=200).map("\n".join), limit=st.integers(300, 3000))
def test_any_cut_fits_and_closes_its_fences_INV_BOUND_2(body: str, limit: int) -> None:
    """INV-BOUND-2."""
    bounded = bound_markdown(body, limit=limit)
    assert len(bounded.text.encode()) <= limit
    if bounded.truncated:
        assert "_Truncated: showed" in bounded.text
        assert fences_balanced(bounded.text.split("\n_Truncated")[0])
    else:
        assert bounded.text == body
