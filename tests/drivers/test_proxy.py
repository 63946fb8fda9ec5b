"""The proxy's relay in-process: the daemon's bytes pass whole, its control records never do."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mesh.drivers.proxy import _Relay
from mesh.sockets import CONTROL_BYTES_MAX, END_MARKER, HEARTBEAT

FRAMES = st.lists(
    st.binary(max_size=40).map(lambda raw: raw.replace(b"\0", b"").replace(b"\n", b"") + b"\n"), max_size=8
)


def relayed(chunks: list[bytes]) -> tuple[bytes, _Relay]:
    relay = _Relay()
    return b"".join(relay.feed(chunk) for chunk in chunks), relay


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


@given(FRAMES, st.lists(st.integers(min_value=0, max_value=8), max_size=4), st.lists(st.integers(min_value=0), max_size=6))
def test_heartbeats_between_frames_are_stripped_however_they_are_chunked(
    frames: list[bytes], beats_at: list[int], cuts: list[int]
) -> None:
    """INV-PROXY-1: the heartbeat is the daemon's, never the client's."""
    stream = b""
    for index, frame in enumerate([*frames, b""]):
        stream += HEARTBEAT * beats_at.count(index) + frame
    out, relay = relayed(split(stream + END_MARKER, cuts))
    assert out == b"".join(frames)
    assert relay.ended and relay.beats == len([at for at in beats_at if at <= len(frames)])


def test_frames_are_never_held_back_waiting_for_a_marker() -> None:
    relay = _Relay()
    assert relay.feed(b'{"id":1}\n' + END_MARKER[:3]) == b'{"id":1}\n'  # what may be a record waits
    assert relay.held == END_MARKER[:3] and not relay.ended
    assert relay.feed(END_MARKER[3:]) == b"" and relay.ended


def test_a_cut_marker_at_the_end_is_no_end() -> None:
    out, relay = relayed([b'{"id":1}\n', END_MARKER[:-1]])
    assert out == b'{"id":1}\n' and not relay.ended


def test_unknown_records_and_stray_nuls_are_dropped_and_never_held_without_bound() -> None:
    out, relay = relayed([b"\0meshd:future\n", b'{"id":1}\n', b"\0" + b"x" * (2 * CONTROL_BYTES_MAX), b'{"id":2}\n'])
    assert b'{"id":1}\n' in out and b'{"id":2}\n' in out and b"\0" not in out
    assert len(relay.held) < CONTROL_BYTES_MAX


def test_bytes_after_the_end_marker_are_dropped() -> None:
    out, relay = relayed([b'{"id":1}\n' + END_MARKER + b'{"id":2}\n', b'{"id":3}\n'])
    assert out == b'{"id":1}\n' and relay.ended
