"""The proxy in-process: the relay of a copied session (the daemon's bytes pass whole, its control
records never do) and the control channel of a session whose descriptors the daemon holds."""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mesh import __version__
from mesh.drivers import proxy
from mesh.drivers.proxy import Link, _Relay, run_proxy
from mesh.sockets import (
    CONTROL_BYTES_MAX,
    COPY_RECORD,
    END_MARKER,
    EXIT_RECORD,
    FDS_RECORD,
    HEARTBEAT,
    ControlReader,
    Hello,
    exit_record,
    parse_exit_record,
    read_hello,
    stop_record,
)

TIMEOUT_S: Final = 30.0  # a hang detector

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


# --- the control channel: a daemon that takes the client's descriptors ---------------------------

PING_ANSWER: Final = b'{"id":2,"jsonrpc":"2.0","result":{}}\n'
PING: Final = b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n'


class FdsDaemon:
    """One connection of a scripted daemon whose hello accepts descriptors (a socket pair: the
    test plays the daemon on ``server``, the proxy gets the other end)."""

    def __init__(self, heartbeat_s: float = 0.0, *, fds: bool = True) -> None:
        self.server, client = socket.socketpair()
        hello = Hello(__version__, os.getpid(), "/ws", "/var/log/meshd.log", (), {}, heartbeat_s, fds=fds)
        self.server.sendall(hello.encode())
        parsed, leftover = read_hello(client, 5)
        self.link = Link(client, parsed, leftover, Path("/ws.sock"))
        self.server.settimeout(TIMEOUT_S)

    def take_descriptors(self) -> tuple[bytes, list[int]]:
        """The proxy's first message: its record and the descriptors attached to it."""
        data, fds, _flags, _ = socket.recv_fds(self.server, 4096, 4)
        return data, fds

    def control(self, count: int) -> list[bytes]:
        """The next ``count`` control records the proxy sends (fewer when it hangs up)."""
        reader, records = ControlReader(), []
        while len(records) < count and (chunk := self.server.recv(4096)):
            records += reader.feed(chunk)
        return records


class ProxyRun:
    """``run_proxy`` on this (main) thread over pipes: the client's side is the test's."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.in_r, self.in_w = os.pipe()
        self.out_r, self.out_w = os.pipe()

    def run(self, environ: dict[str, str] | None = None) -> int:
        try:
            return run_proxy(self.link, out_fd=self.out_w, in_fd=self.in_r, environ=environ or {})
        finally:
            os.close(self.out_w)
            os.close(self.in_r)

    def output(self) -> bytes:
        """What the client's stdout carried (every writer closed first: the proxy and the fake daemon)."""
        received = b""
        while chunk := os.read(self.out_r, 65536):
            received += chunk
        os.close(self.out_r)
        os.close(self.in_w)
        return received


def in_thread(target: Callable[[], None]) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def answer_on_the_clients_pipes(fake: FdsDaemon, code: int = 0, **exit_options: bool) -> list[bytes]:
    """The daemon's side of a session: read the request from the client's stdin, answer on its
    stdout, say the exit code; returns what the proxy sent first."""
    seen: list[bytes] = []
    data, fds = fake.take_descriptors()
    seen.append(data)
    client_in, client_out = fds
    assert os.read(client_in, 4096) == PING
    os.write(client_out, PING_ANSWER)
    for fd in fds:
        os.close(fd)
    fake.server.sendall(HEARTBEAT + exit_record(code, **exit_options))
    return seen


def test_the_daemon_gets_the_clients_own_descriptors_and_says_the_exit_code() -> None:
    """INV-PROXY-1, INV-PROXY-4: the answers reach the client through the descriptors the proxy passed (it never
    reads them: the fake daemon writes on the pipe itself), and the proxy exits with the code the
    daemon's session ended with."""
    fake = FdsDaemon()
    run = ProxyRun(fake.link)
    os.write(run.in_w, PING)
    seen: list[bytes] = []
    thread = in_thread(lambda: seen.extend(answer_on_the_clients_pipes(fake)))
    assert run.run() == 0
    thread.join(TIMEOUT_S)
    assert seen == [FDS_RECORD]
    assert run.output() == PING_ANSWER


def test_a_session_that_lost_answers_ends_the_proxy_with_1_saying_so(caplog: pytest.LogCaptureFixture) -> None:
    """INV-DRAIN-5 through the daemon: the standalone server's 1, and its reason, on the proxy's stderr."""
    fake = FdsDaemon()
    run = ProxyRun(fake.link)
    os.write(run.in_w, PING)
    thread = in_thread(lambda: answer_on_the_clients_pipes(fake, 1))
    with caplog.at_level(logging.ERROR, logger="mesh.proxy"):
        assert run.run() == 1
    thread.join(TIMEOUT_S)
    assert "answers lost" in caplog.text and "/var/log/meshd.log" in caplog.text
    assert run.output() == PING_ANSWER


def test_a_daemon_that_stops_by_itself_ends_the_proxy_with_1_as_before(caplog: pytest.LogCaptureFixture) -> None:
    """INV-PROXY-2: the daemon stopping (SIGTERM to it) is no end the client asked for."""
    fake = FdsDaemon()
    run = ProxyRun(fake.link)
    os.write(run.in_w, PING)
    thread = in_thread(lambda: answer_on_the_clients_pipes(fake, 0, stopping=True))
    with caplog.at_level(logging.ERROR, logger="mesh.proxy"):
        assert run.run() == 1
    thread.join(TIMEOUT_S)
    assert f"meshd (pid {os.getpid()}) ended this session, having answered everything" in caplog.text


def sigterm_self() -> None:
    os.kill(os.getpid(), signal.SIGTERM)


@pytest.mark.parametrize(("signals", "code"), [(1, 0), (2, 1)])
def test_stop_signals_reach_the_daemons_session_and_its_code_is_the_proxys(signals: int, code: int) -> None:
    """INV-PROXY-2: each SIGTERM to the proxy becomes a stop record on the control channel (the
    stdio driver's request_stop, in the daemon), and the proxy exits with what the session ended
    with: 0 for a first stop that lost nothing, 1 for a second that abandoned a call."""
    fake = FdsDaemon()
    run = ProxyRun(fake.link)
    records: list[bytes] = []

    def daemon() -> None:
        _, fds = fake.take_descriptors()
        for _ in range(signals):
            sigterm_self()  # the proxy's loop runs by now: its handler takes it
            records.extend(fake.control(1))
        for fd in fds:
            os.close(fd)
        fake.server.sendall(exit_record(code))

    thread = in_thread(daemon)
    started = time.monotonic()
    assert run.run() == code
    assert time.monotonic() - started < 5.0
    thread.join(TIMEOUT_S)
    assert records == [stop_record("SIGTERM")] * signals


def test_a_daemon_silent_after_a_second_stop_is_given_a_second_then_1(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second signal returns at once, as standalone does: the daemon's answer is awaited only
    ``SECOND_STOP_WAIT_S``."""
    monkeypatch.setattr(proxy, "SECOND_STOP_WAIT_S", 0.3)
    fake = FdsDaemon()
    run = ProxyRun(fake.link)

    def daemon() -> None:
        fake.take_descriptors()
        sigterm_self()
        fake.control(1)
        sigterm_self()
        fake.control(1)  # and never says how it ended

    thread = in_thread(daemon)
    started = time.monotonic()
    assert run.run() == 1
    assert time.monotonic() - started < 3.0
    thread.join(TIMEOUT_S)
    fake.server.close()


def test_a_daemon_closing_the_control_channel_without_the_exit_line_is_a_loss(caplog: pytest.LogCaptureFixture) -> None:
    """INV-PROXY-2: the end of the channel without the exit record (a daemon killed, or dropping
    the session) ends the proxy with 1, naming the cause and the log."""
    fake = FdsDaemon()
    run = ProxyRun(fake.link)

    def daemon() -> None:
        _, fds = fake.take_descriptors()
        for fd in fds:
            os.close(fd)
        fake.server.sendall(HEARTBEAT + b"\0meshd:ex")  # cut inside a record, then gone
        fake.server.close()

    thread = in_thread(daemon)
    with caplog.at_level(logging.ERROR, logger="mesh.proxy"):
        assert run.run() == 1
    thread.join(TIMEOUT_S)
    assert "closed the connection before answering everything" in caplog.text
    assert "/var/log/meshd.log" in caplog.text


def test_a_daemon_that_falls_silent_on_the_control_channel_ends_the_proxy_with_1_INV_PROXY_3(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """INV-PROXY-3: with the descriptors passed, the heartbeat is the control channel's."""
    fake = FdsDaemon(heartbeat_s=0.05)
    run = ProxyRun(fake.link)

    def daemon() -> None:
        fake.take_descriptors()
        fake.server.sendall(HEARTBEAT)  # alive once, then silent

    in_thread(daemon)
    started = time.monotonic()
    with caplog.at_level(logging.ERROR, logger="mesh.proxy"):
        assert run.run() == 1
    assert 0.4 < time.monotonic() - started < 5.0
    assert "not even its heartbeat" in caplog.text and f"meshd (pid {os.getpid()}) is hung" in caplog.text
    fake.server.close()


def test_heartbeats_keep_a_long_session_alive_on_the_control_channel_INV_PROXY_3() -> None:
    """Three silence limits of a slow session, beating: waited for, and its code is the proxy's."""
    fake = FdsDaemon(heartbeat_s=0.05)
    run = ProxyRun(fake.link)

    def daemon() -> None:
        _, fds = fake.take_descriptors()
        for _ in range(30):
            fake.server.sendall(HEARTBEAT)
            time.sleep(0.05)
        for fd in fds:
            os.close(fd)
        fake.server.sendall(exit_record(0))

    thread = in_thread(daemon)
    started = time.monotonic()
    assert run.run() == 0
    assert time.monotonic() - started >= 1.4
    thread.join(TIMEOUT_S)


def test_a_daemon_that_could_not_take_the_descriptors_is_copied_to_instead(caplog: pytest.LogCaptureFixture) -> None:
    """INV-PROXY-4: the COPY record (the daemon out of descriptors): the proxy falls back to copying bytes on
    the same connection, and the client gets every answer."""
    fake = FdsDaemon()
    run = ProxyRun(fake.link)

    def daemon() -> None:
        _, fds = fake.take_descriptors()
        for fd in fds:
            os.close(fd)  # as if they never arrived
        fake.server.sendall(HEARTBEAT + COPY_RECORD)
        received = b""
        while chunk := fake.server.recv(4096):  # the requests, copied; then the proxy's EOF
            received += chunk
        assert received == PING
        fake.server.sendall(PING_ANSWER + END_MARKER)
        fake.server.close()

    thread = in_thread(daemon)
    os.write(run.in_w, PING)
    os.close(run.in_w)
    with caplog.at_level(logging.WARNING, logger="mesh.proxy"):
        assert run.run() == 0
    thread.join(TIMEOUT_S)
    assert "could not take the client's descriptors: copying bytes" in caplog.text
    received = b""
    while chunk := os.read(run.out_r, 65536):
        received += chunk
    os.close(run.out_r)
    assert received == PING_ANSWER


@pytest.mark.parametrize("why", ["old daemon", "MESH_PROXY_FDS=0"])
def test_a_daemon_without_descriptors_or_a_proxy_told_not_to_copies_bytes(why: str) -> None:
    """INV-PROXY-4, the fallback: a hello without ``fds`` (a daemon of another version), or ``MESH_PROXY_FDS=0``
    (measurements): no descriptor is sent, the bytes are copied as before."""
    fake = FdsDaemon(fds=why != "old daemon")
    run = ProxyRun(fake.link)

    def daemon() -> None:
        received = b""
        while chunk := fake.server.recv(4096):
            received += chunk
        assert received == PING  # bytes, no record, no descriptor
        fake.server.sendall(PING_ANSWER + END_MARKER)
        fake.server.close()

    thread = in_thread(daemon)
    os.write(run.in_w, PING)
    os.close(run.in_w)
    assert run.run({"MESH_PROXY_FDS": "0"} if why != "old daemon" else None) == 0
    thread.join(TIMEOUT_S)
    received = b""
    while chunk := os.read(run.out_r, 65536):
        received += chunk
    os.close(run.out_r)
    assert received == PING_ANSWER


@given(st.lists(st.sampled_from([HEARTBEAT, exit_record(0), exit_record(1, stopping=True), stop_record("SIGINT")]),
                max_size=6), st.lists(st.integers(min_value=0), max_size=6))  # fmt: skip
def test_control_records_come_out_whole_however_they_are_chunked(records: list[bytes], cuts: list[int]) -> None:
    reader = ControlReader()
    stream = b"".join(records)
    out = [record for chunk in split(stream, cuts) for record in reader.feed(chunk)]
    assert out == records and reader.held == b""
    assert [parse_exit_record(record) for record in out if record.startswith(EXIT_RECORD)] == [
        (0, False) if record == exit_record(0) else (1, True) for record in records if record.startswith(EXIT_RECORD)
    ]
