"""The pump's half of logging to the client, in-process: a record logged on any thread reaches
the session with the time, the pump wakes at the session's timer to send a rate-limit count with
no input, a session that starts later hears the recent warnings, and the stdio and daemon drivers
install the handler."""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

from mesh.drivers._client_log import ClientLogHandler
from mesh.drivers._pump import ConnectionPump
from mesh.drivers._workers import WorkerPool
from mesh.drivers.stdio import catalogue
from mesh.protocol import ServerSession, SessionConfig
from mesh.tools import Registry, load_plugins
from tests.drivers.test_pump import Pipe, finish, run_pump
from tests.support.memory import initialize, request

MESSAGE = "notifications/message"


def logged(pipe: Pipe) -> list[dict]:
    return [answer["params"] for answer in pipe.answers() if answer.get("method") == MESSAGE]


def wait_until(predicate, timeout_s: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def pump_with(handler: ClientLogHandler, pipe: Pipe, **config: int) -> tuple[ConnectionPump, WorkerPool]:
    registry = Registry()
    load_plugins(registry, ["tests.support.tools"])
    workers = WorkerPool(2)
    pump = ConnectionPump(
        session=ServerSession(SessionConfig(**config), catalogue(registry)),
        registry=registry,
        workspace=Path("."),
        in_fd=pipe.in_r,
        out_fd=pipe.out_w,
        workers=workers,
        name="test",
        client_log=handler,
    )
    return pump, workers


def test_a_record_on_any_thread_reaches_the_client_and_the_timer_sends_the_count_INV_LOG_3() -> None:
    """INV-LOG-3, INV-LOG-4: through a real pump: the index thread's warnings go out at once up to
    the limit; the count goes out when the window ends, with no input to wake the loop; a session
    that subscribes later is handed the recent warnings."""
    handler = ClientLogHandler()
    logger = logging.getLogger("mesh.index.test-pump")
    logger.addHandler(handler)
    logger.propagate = False
    # its own level: another test of this process may have set its ancestors' (MESH_LOG=error)
    level = logger.level
    logger.setLevel(logging.DEBUG)
    pipe = Pipe()
    pump, workers = pump_with(handler, pipe, log_messages_max=2, log_window_ms=1000)
    thread, result = run_pump(pump)
    try:
        pipe.put(initialize() + request(1, "logging/setLevel", {"level": "warning"}))
        wait_until(lambda: any(answer.get("id") == 1 for answer in pipe.answers()))

        def storm() -> None:
            for n in range(5):
                logger.warning("parsing %s: failed (%s)", f"svc/file{n}.go", "free text")

        worker = threading.Thread(target=storm)
        worker.start()
        worker.join()
        # Two go out, the rest are counted; the count comes when the window ends, no input needed.
        # (Under load the storm may straddle a window: whatever the split, none is lost.)
        wait_until(lambda: sum(item.get("data", {}).get("suppressed", 0) for item in logged(pipe)) + sum(
            1 for item in logged(pipe) if item["logger"] != "mesh") == 5)  # fmt: skip
        sent = [item for item in logged(pipe) if item["logger"] != "mesh"]
        assert 2 <= len(sent) < 5
        assert sent[0]["data"] == {
            "message": "parsing svc/file0.go: failed (<redacted>)",
            "args": ["svc/file0.go", None],
        }
        assert sent[1]["data"]["args"][0] == "svc/file1.go"
        later = Pipe()
        other, other_workers = pump_with(handler, later)
        other_thread, other_result = run_pump(other)
        later.put(initialize() + request(1, "logging/setLevel", {"level": "warning"}))
        wait_until(lambda: len(logged(later)) == 5)  # the 5 distinct recent ones, though logged before
        later.put(b"")
        finish(other_thread, other_workers, later)
        other.close()
        assert other_result == [0]
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
        logger.setLevel(level)
        pipe.put(b"")
        finish(thread, workers, pipe)
        pump.close()
    assert result == [0]
    assert handler._subscribers == {} and handler._threads == {}  # both pumps let go at close


def test_both_drivers_install_the_handler_on_the_mesh_logger_INV_LOG_4(tmp_path: Path) -> None:
    """INV-LOG-4: the daemon's sessions share the process's handler (uds.Daemon installs it)."""
    import socket

    from mesh.drivers._client_log import install
    from mesh.drivers.uds import Daemon

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(os.fspath(tmp_path / "s.sock"))
    daemon = Daemon(
        listener=listener,
        registry=Registry(),
        workspace=tmp_path,
        config=SessionConfig(),
        hello=lambda sessions, refused: b"hello\n",
    )
    try:
        assert daemon._client_log is install()
        assert install() in logging.getLogger("mesh").handlers
    finally:
        daemon.close()
        listener.close()


def test_a_crashed_tool_is_named_to_the_client_INV_LOG_4() -> None:
    """INV-LOG-4: a tool's crash reaches its session naming the tool (a registered name is the
    server's own word), with the exception's class and never its message."""
    from mesh.drivers import _pump

    handler = ClientLogHandler()
    _pump.log.addHandler(handler)
    # its own level: another test of this process may have set its ancestors' (MESH_LOG=critical)
    level = _pump.log.level
    _pump.log.setLevel(logging.DEBUG)
    pipe = Pipe()
    pump, workers = pump_with(handler, pipe)
    thread, result = run_pump(pump)
    try:
        pipe.put(initialize() + request(1, "logging/setLevel", {"level": "error"})
                 + request(2, "tools/call", {"name": "fail"}))  # fmt: skip
        wait_until(lambda: any(answer.get("id") == 2 for answer in pipe.answers()) and logged(pipe))
        crashed = [item for item in logged(pipe) if "crashed" in item["data"]["message"]]
        assert crashed and crashed[0]["data"]["message"] == "tool fail crashed (request 2)"
        assert crashed[0]["data"]["exception"] == "RuntimeError" and "simulated" not in str(crashed[0])
    finally:
        _pump.log.removeHandler(handler)
        _pump.log.setLevel(level)
        pipe.put(b"")
        finish(thread, workers, pipe)
        pump.close()
    assert result == [0]
