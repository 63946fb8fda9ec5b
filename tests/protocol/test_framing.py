"""The line splitter: bounded, chunking-independent framing."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from mesh.protocol._framing import OVERSIZED, LineSplitter


def items(splitter: LineSplitter) -> list[object]:
    out = list(splitter.items)
    splitter.items.clear()
    return out


def split(data: bytes, limit: int, cuts: list[int] | None = None) -> list[object]:
    splitter = LineSplitter(limit)
    position = 0
    for cut in sorted(set(cuts or [])):
        if 0 < cut < len(data):
            splitter.feed(data[position:cut])
            position = cut
    if position < len(data):
        splitter.feed(data[position:])
    splitter.feed_eof()
    return items(splitter)


def test_lines_crlf_and_blank_lines_INV_FRAME_3() -> None:
    """INV-FRAME-3."""
    assert split(b"a\r\n\r\n  \t\nb\n\nc", 10) == [b"a", b"b", b"c"]


def test_line_at_the_limit_is_kept_one_over_is_dropped_INV_FRAME_2() -> None:
    """INV-FRAME-2."""
    assert split(b"x" * 8 + b"\n", 8) == [b"x" * 8]
    assert split(b"x" * 8 + b"\r\n", 8) == [b"x" * 8]
    assert split(b"x" * 9 + b"\n", 8) == [OVERSIZED]
    assert split(b"x" * 9 + b"\r\n", 8) == [OVERSIZED]


def test_oversized_line_is_dropped_while_streaming_INV_FRAME_2() -> None:
    """INV-FRAME-2."""
    splitter = LineSplitter(1024)
    splitter.feed(b"ok\n")
    for _ in range(1000):
        splitter.feed(b"y" * 4096)
        assert splitter.tail_bytes <= 1025
    # The marker is queued the moment the line is known to be too long, behind the lines before it.
    assert items(splitter) == [b"ok", OVERSIZED]
    splitter.feed(b"yyy\nnext\n")
    assert items(splitter) == [b"next"]


def test_a_huge_single_chunk_is_never_copied_whole_INV_FRAME_2() -> None:
    """INV-FRAME-2."""
    splitter = LineSplitter(16)
    splitter.feed(b"z" * 10_000 + b"\nafter\n")
    assert items(splitter) == [OVERSIZED, b"after"]
    assert splitter.tail_bytes == 0


def test_unterminated_tail_becomes_the_last_item_at_eof() -> None:
    assert split(b"a\nhalf", 10) == [b"a", b"half"]
    assert split(b"a\nhalf\r", 10) == [b"a", b"half"]


def test_eof_while_skipping_an_oversized_line_adds_nothing() -> None:
    assert split(b"x" * 50, 10) == [OVERSIZED]


def test_marker_has_a_readable_repr() -> None:
    assert repr(OVERSIZED) == "OVERSIZED"


def test_feed_after_eof_is_a_driver_bug() -> None:
    splitter = LineSplitter(10)
    splitter.feed_eof()
    splitter.feed_eof()  # idempotent
    with pytest.raises(RuntimeError):
        splitter.feed(b"x")


@given(
    data=st.lists(st.sampled_from([b"a", b"bb", b"\n", b"\r\n", b" ", b"\r", b"x" * 7, b"{}"]), max_size=40).map(b"".join),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=30),
)
@example(data=b"xxxxxxx\r\n", cuts=[8])
@example(data=b"xxxxxxxx\n", cuts=[4, 8])
def test_any_chunking_gives_the_same_items_INV_FRAME_1(data: bytes, cuts: list[int]) -> None:
    """INV-FRAME-1."""
    assert split(data, 8, cuts) == split(data, 8)
