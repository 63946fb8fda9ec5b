"""The proxy's relay in-process: the daemon's bytes pass whole, the end marker never does."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from mesh.drivers.proxy import _Relay
from mesh.sockets import END_MARKER

FRAMES = st.lists(
    st.binary(max_size=40).map(lambda raw: raw.replace(b"\0", b"").replace(b"\n", b"") + b"\n"), max_size=8
)


def relayed(chunks: list[bytes]) -> tuple[bytes, _Relay]:
    read_end, write_end = os.pipe()
    relay = _Relay(write_end)
    try:
        for chunk in chunks:
            assert relay.feed(chunk)
    finally:
        os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        return pipe.read(), relay


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({cut % (len(data) + 1) for cut in cuts})
    return [data[start:end] for start, end in zip([0, *points], [*points, len(data)], strict=True)]


@given(FRAMES, st.lists(st.integers(min_value=0), max_size=6), st.booleans())
def test_frames_pass_whole_and_the_marker_is_stripped_however_it_is_chunked(
    frames: list[bytes], cuts: list[int], ended: bool
) -> None:
    stream = b"".join(frames) + (END_MARKER if ended else b"")
    out, relay = relayed(split(stream, cuts))
    assert out == b"".join(frames)
    assert relay.ended is ended


def test_frames_are_never_held_back_waiting_for_a_marker() -> None:
    read_end, write_end = os.pipe()
    relay = _Relay(write_end)
    relay.feed(b'{"id":1}\n')
    relay.feed(END_MARKER[:3])  # what may be the marker waits; the frame before it does not
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        assert pipe.read() == b'{"id":1}\n'
    assert relay.held == END_MARKER[:3] and not relay.ended


def test_a_cut_marker_at_the_end_is_no_end() -> None:
    out, relay = relayed([b'{"id":1}\n', END_MARKER[:-1]])
    assert out == b'{"id":1}\n' and not relay.ended
