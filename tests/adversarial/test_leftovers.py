"""What issue 13 left over, and what gathering its held attacks found; each test failed before its fix.

- ``mesh.toml`` was opened following a symlink: a workspace whose ``mesh.toml`` links out made the
  index read a file outside it as its configuration (INV-CONFIG-1, INV-READ-1).
- README listed the ``[audit]`` and ``[daemon]`` keys without the limits the code enforces (the
  36,500 days of ``retention_days`` among them).
- A standalone server that abandoned a call at a stop signal (one that ignored its cancellation,
  past the grace period or at a second signal) exited 0: an answer lost looked like success
  (INV-DRAIN-5, the standalone twin of INV-PROXY-2).
- A regular expression of hundreds of capturing groups cost that many span decodings per match in
  the RE2 wrapper: ``(`` x 490, ``a``, ``)`` x 490 took a minute over 250 KB of text. Search uses
  where a match starts, never a group: patterns compile with ``never_capture`` (INV-TOOL-6).
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import signal
import time
from pathlib import Path
from typing import Any, Final

import pytest

from mesh.index import ConfigError, load_config
from mesh.index.build._workspace import AUDIT_RETENTION_DAYS_MAX, INT_MAX
from mesh.index.query._search import _regex_lines, compile_query
from tests.drivers.test_pump import RELEASE, Pipe, finish, make_pump, run_pump, wait_for_answer
from tests.journeys.conftest import NOISY_TOOLS, TEST_TOOLS, LiveServer, call, handshake, request, spawn
from tests.support.memory import initialize
from tests.support.memory import request as memory_request

REPO_ROOT: Final = Path(__file__).resolve().parents[2]
README: Final = REPO_ROOT / "README.md"


# -- mesh.toml through a symlink ----------------------------------------------------------------------


def workspace_with_link(tmp_path: Path, target: str | Path) -> tuple[Path, Path]:
    """A workspace whose mesh.toml is a symlink to ``target``, and a config outside it naming a
    service ``evil`` (what the index would have taken for the workspace's configuration)."""
    root = tmp_path / "ws"
    (root / "svc").mkdir(parents=True)
    (root / "svc" / "main.py").write_text("print('hello')\n")
    outside = tmp_path / "elsewhere" / "mesh.toml"
    outside.parent.mkdir()
    outside.write_text('[[services]]\nname = "evil"\npath = "svc"\n')
    (root / "mesh.toml").symlink_to(target)
    return root.resolve(), outside


@pytest.mark.parametrize("spelling", ["relative", "absolute", "through a folder link"])
def test_a_mesh_toml_linking_out_of_the_workspace_is_refused_unread_INV_CONFIG_1_INV_READ_1(
    tmp_path: Path, spelling: str
) -> None:
    """INV-CONFIG-1, INV-READ-1: mesh.toml is read through the one reader of workspace files; a
    link out (relative, absolute, or through a folder that links out) is a ConfigError naming
    mesh.toml and saying why, never the outside file's services, and never where the link leads."""
    if spelling == "relative":
        root, outside = workspace_with_link(tmp_path, "../elsewhere/mesh.toml")
    elif spelling == "absolute":
        root, outside = workspace_with_link(tmp_path, tmp_path / "elsewhere" / "mesh.toml")
    else:
        root, outside = workspace_with_link(tmp_path, "conf/mesh.toml")
        (root / "conf").symlink_to(outside.parent, target_is_directory=True)
    with pytest.raises(ConfigError) as caught:
        load_config(root)
    message = str(caught.value)
    assert message == f"{root / 'mesh.toml'}: cannot read: leads outside the workspace through a symlink"
    assert str(outside.parent) not in message


def test_a_mesh_toml_linking_inside_the_workspace_is_read(tmp_path: Path) -> None:
    """Confinement is no ban on links: a mesh.toml linked to a file inside the workspace is read."""
    root = tmp_path / "ws"
    (root / "config").mkdir(parents=True)
    (root / "config" / "mesh.toml").write_text('[[services]]\nname = "app"\npath = "config"\n')
    (root / "mesh.toml").symlink_to("config/mesh.toml")
    assert [service.name for service in load_config(root).services or ()] == ["app"]


def test_a_mesh_toml_linking_out_fails_the_index_not_the_server_INV_CONFIG_1(tmp_path: Path) -> None:
    """INV-CONFIG-1: ``mesh-mcp index`` says so in one line and exits 2 (nothing was indexed with
    the outside file's services)."""
    import io

    from mesh.commands.index import run_index

    root, _ = workspace_with_link(tmp_path, "../elsewhere/mesh.toml")
    out, err = io.StringIO(), io.StringIO()
    assert run_index(root, as_json=False, workers=1, stdout=out, stderr=err) == 2
    assert err.getvalue().strip().endswith("mesh.toml: cannot read: leads outside the workspace through a symlink")
    assert "evil" not in out.getvalue() + err.getvalue()


# -- README: the limits of [audit] and [daemon] ----------------------------------------------------------

#: Each mesh.toml key README lists: a value at each end of its range (accepted) and one past each
#: end (refused), as ``load_config`` enforces them.
LIMITS: Final[dict[str, tuple[str, list[Any], list[Any]]]] = {
    "retention_rows": ("audit", [1, INT_MAX], [0, INT_MAX + 1, 1.5, True]),
    "retention_days": ("audit", [0.01, AUDIT_RETENTION_DAYS_MAX], [0, AUDIT_RETENTION_DAYS_MAX + 0.5, "inf"]),
    "idle_exit_s": ("daemon", [0, INT_MAX], [-1, float(INT_MAX) * 2, "inf"]),
}


def toml_value(value: Any) -> str:
    return str(value).lower() if isinstance(value, (bool, str)) else repr(value)


@pytest.mark.parametrize("key", sorted(LIMITS))
def test_the_code_enforces_the_limits_readme_states_INV_CONFIG_1(tmp_path: Path, key: str) -> None:
    """INV-CONFIG-1: each end of each range is accepted, one step past it refused with a ConfigError."""
    table, accepted, refused = LIMITS[key]
    (tmp_path / "mesh.toml").touch()
    for value in accepted:
        (tmp_path / "mesh.toml").write_text(f"[{table}]\n{key} = {toml_value(value)}\n")
        load_config(tmp_path)
    for value in refused:
        (tmp_path / "mesh.toml").write_text(f"[{table}]\n{key} = {toml_value(value)}\n")
        with pytest.raises(ConfigError, match=key):
            load_config(tmp_path)


def readme_line(key: str) -> str:
    lines = [line for line in README.read_text().splitlines() if re.search(rf"\b{key}\b", line)]
    assert lines, f"README does not list {key}"
    return " ".join(lines)


def test_readme_states_the_limits_of_every_audit_and_daemon_key() -> None:
    """README said ``retention_days = 30  # the default`` and nothing of the 36,500 days past which
    mesh.toml is refused; each key now states its range where README lists it."""
    assert "36,500" in readme_line("retention_days") and "above 0" in readme_line("retention_days")
    assert "at least 1" in readme_line("retention_rows")
    assert "2^63" in readme_line("retention_rows") and "2^63" in readme_line("idle_exit_s")
    idle = readme_line("idle_exit_s")
    assert "0 (never) or more" in idle and "no `inf`" in idle
    assert f"{AUDIT_RETENTION_DAYS_MAX:,}" == "36,500" and INT_MAX == 2**63 - 1  # the code says the same


# -- a stop signal that abandons a call ---------------------------------------------------------------------


def test_a_stop_that_abandons_a_call_returns_1_naming_the_loss_INV_DRAIN_5(caplog: pytest.LogCaptureFixture) -> None:
    """INV-DRAIN-5: past the grace period a call that ignored its cancellation is abandoned; its
    answer is lost, and the pump says so and returns 1 (it returned 0)."""
    pipe = Pipe()
    pump, executor = make_pump(pipe)
    RELEASE.clear()
    thread, result = run_pump(pump)
    pipe.chunks.put(initialize() + memory_request(1, "tools/call", {"name": "stubborn"}))
    wait_for_answer(pipe, 0)
    with caplog.at_level(logging.WARNING, logger="mesh.server"):
        pump.request_stop("SIGTERM")
        thread.join(5)
    assert result == [1] and pump.abandoned == 1
    assert "1 call(s) did not stop in time" in caplog.text and "answers are lost" in caplog.text
    RELEASE.set()
    finish(thread, executor, pipe)
    assert [answer["id"] for answer in pipe.answers()] == [0]


def test_a_stop_with_nothing_in_flight_or_every_call_stopped_returns_0_INV_DRAIN_5() -> None:
    """INV-DRAIN-5: a stop that loses nothing is a success: idle, or with a call that honoured its
    cancellation (answered "cancelled")."""
    for arguments in (None, {"name": "sleep", "arguments": {"ms": 30_000}}):
        pipe = Pipe()
        pump, executor = make_pump(pipe)
        thread, result = run_pump(pump)
        opening = initialize() + (memory_request(1, "tools/call", arguments) if arguments else b"")
        pipe.chunks.put(opening)
        wait_for_answer(pipe, 0)
        pump.request_stop("SIGTERM")
        finish(thread, executor, pipe)
        assert result == [0] and pump.abandoned == 0 and pump.drained
        assert len(pipe.answers()) == (2 if arguments else 1)


def test_answers_the_client_never_took_at_a_stop_return_1_INV_DRAIN_5(caplog: pytest.LogCaptureFixture) -> None:
    """INV-DRAIN-5: a client that stopped reading leaves answers unwritten when the pump gives up
    on it after a stop: those answers are lost too."""
    stalled_r, stalled_w = full_pipe()
    pipe = Pipe()
    pump, executor = make_pump(pipe)
    pump._out_fd = stalled_w  # the client's end: full, and never read
    pump._out_bytes_max = 1 << 30  # nothing holds the input back: the answers pile up unwritten
    thread, result = run_pump(pump)
    try:
        pipe.chunks.put(initialize() + b"".join(memory_request(n, "tools/list") for n in range(1, 200)))
        deadline = time.monotonic() + 10
        while not pump.out_bytes_peak and time.monotonic() < deadline:
            time.sleep(0.01)
        with caplog.at_level(logging.WARNING, logger="mesh.server"):
            pump.request_stop("SIGTERM")
            pump.request_stop("SIGTERM")  # a second signal: give up at once
            thread.join(5)
        assert result == [1] and pump.abandoned == 0 and not pump.drained
        assert "not taken by the client are lost" in caplog.text
    finally:
        executor.shutdown()
        pipe.done()
        for fd in (stalled_r, stalled_w):
            os.close(fd)


def full_pipe() -> tuple[int, int]:
    """A pipe whose non-blocking write end is full: a client that stopped reading."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)  # a small pipe fills at once
    try:
        while True:
            os.write(write_end, b"x" * 4096)
    except BlockingIOError:
        pass
    return read_end, write_end


@pytest.mark.journey
def test_a_standalone_server_that_abandons_a_call_exits_1_with_the_cause_INV_DRAIN_5() -> None:
    """INV-DRAIN-5, end to end: SIGTERM, then SIGTERM again, with a call ignoring its cancellation:
    the server exits at once with 1 and says on stderr which answers were lost (it exited 0)."""
    server = LiveServer(spawn((TEST_TOOLS, NOISY_TOOLS)))
    try:
        server.send(handshake(), call(2, "stubborn", {"ms": 30_000}), request(3, "ping"))
        server.receive_id(3)
        time.sleep(0.3)  # the loop is parked in poll
        server.process.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        server.process.send_signal(signal.SIGTERM)
        assert server.wait(10) == 1
        assert "1 call(s) did not stop in time" in server.stderr and "answers are lost" in server.stderr
        assert server.transcript().ids() == [1, 3]
    finally:
        server.close()


@pytest.mark.journey
def test_a_standalone_server_stopped_with_nothing_in_flight_exits_0_INV_DRAIN_5() -> None:
    """INV-DRAIN-5: nothing lost, nothing to say: exit 0."""
    server = LiveServer(spawn())
    try:
        server.send(handshake(), request(2, "ping"))
        server.receive_id(2)
        time.sleep(0.3)
        server.process.send_signal(signal.SIGTERM)
        assert server.wait(10) == 0
        assert "lost" not in server.stderr
    finally:
        server.close()


# -- a regular expression of many capturing groups ------------------------------------------------------


def test_capturing_groups_cost_nothing_per_match_INV_TOOL_6() -> None:
    """INV-TOOL-6: 490 nested groups around one letter, over 35,000 matches: every match decoded 491
    spans in the wrapper (a minute for 250 KB, hours for a large workspace). Search needs where a
    match starts, so its patterns capture nothing."""
    query = "(" * 490 + "a" + ")" * 490
    pattern, _ = compile_query(query, regex=True, case_sensitive=False)
    assert pattern.groups == 0
    text = "a" * 5000 + "!\n" + ("abcdefgh" * 30 + "\n") * 1000
    started = time.monotonic()
    lines = _regex_lines(text, pattern)
    assert len(lines) == 1001
    assert time.monotonic() - started < 5.0  # 30 to 60 s with the groups captured
