"""Run one :class:`ServerSession` over a byte source and a byte sink, with tools on a worker pool.

Theory of operation
-------------------
Four kinds of thread, one owner each:

* the **loop** (the caller of :meth:`ConnectionPump.run`) owns the session: it alone feeds it,
  pulls its events and completes its calls, taking one message at a time from ``inbox``;
* the **reader** reads one chunk only when the loop grants it (the session said ``NEED_DATA``):
  input is pulled, never pushed, so a paused session reads nothing more;
* **workers** run tool calls and post their outcomes to ``inbox``;
* the **writer** alone owns the sink and writes whole frames, in order, as the loop hands them over.

EOF from the reader: the session answers everything already accepted, then reports
``SessionClosed``; the loop waits for the writer to flush it all and returns 0 (the drain
barrier). A stop request (SIGTERM/SIGINT in the stdio driver) ends the input the same way, tells
running tools to stop, answers calls not yet started with an ``isError`` "shutting down" result, and
returns after at most ``shutdown_grace_s`` even if a tool ignores its cancellation.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path
from typing import Final

import attrs

from ..protocol import (
    CallCancelled,
    ServerSession,
    SessionClosed,
    ToolCallRequested,
    ToolCrashed,
    ToolOutcome,
    ToolResult,
    Wait,
)
from ..tools import Registry

__all__ = ["ConnectionPump"]

log = logging.getLogger("mesh.server")

SHUTTING_DOWN: Final = "The server is shutting down; this call was not run. Call it again once the server restarts."


@attrs.frozen
class _Chunk:
    data: bytes  # b"" is EOF


@attrs.frozen
class _Done:
    request_id: str | int
    outcome: ToolOutcome


@attrs.frozen
class _Stop:
    reason: str


@attrs.frozen
class _WriteFailed:
    error: str


_Message = _Chunk | _Done | _Stop | _WriteFailed


class ConnectionPump:
    def __init__(
        self,
        *,
        session: ServerSession,
        registry: Registry,
        workspace: Path,
        read: Callable[[], bytes],
        write: Callable[[bytes], None],
        executor: Executor,
        name: str = "stdio",
        shutdown_grace_s: float = 5.0,
    ) -> None:
        self._session = session
        self._registry = registry
        self._workspace = workspace
        self._read = read
        self._write = write
        self._executor = executor
        self._name = name
        self._grace_s = shutdown_grace_s
        self._inbox: queue.SimpleQueue[_Message] = queue.SimpleQueue()
        self._may_read = threading.Event()
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._written = threading.Event()
        self._cancel_flags: dict[str | int, threading.Event] = {}
        #: Calls still running when the pump returned (their threads may outlive it).
        self.abandoned = 0

    def request_stop(self, reason: str) -> None:
        """Thread- and signal-safe: stop reading, finish or cancel what runs, return promptly."""
        self._inbox.put(_Stop(reason))

    def run(self) -> int:
        """Serve until the input ends and everything is answered; the exit code (0 or 1)."""
        threading.Thread(target=self._reader, name=f"{self._name}-reader", daemon=True).start()
        threading.Thread(target=self._writer, name=f"{self._name}-writer", daemon=True).start()
        session = self._session
        input_ended = reading = stopping = False
        deadline: float | None = None
        while True:
            while True:
                event = session.next_event()
                if isinstance(event, ToolCallRequested):
                    if stopping:
                        session.complete(event.request_id, ToolResult(SHUTTING_DOWN, is_error=True))
                    else:
                        self._start(event)
                elif isinstance(event, CallCancelled):
                    flag = self._cancel_flags.get(event.request_id)
                    if flag is not None:
                        flag.set()
                elif isinstance(event, SessionClosed):
                    self._outbox.put(session.data_to_send())
                    return self._finish(0)
                else:
                    if event is Wait.NEED_DATA and not reading and not input_ended:
                        reading = True
                        self._may_read.set()
                    break
            out = session.data_to_send()
            if out:
                self._outbox.put(out)
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                message = self._inbox.get(timeout=timeout)
            except queue.Empty:
                self.abandoned = len(self._cancel_flags)
                log.warning("%s: %d call(s) did not stop within %.1fs; exiting without them",
                            self._name, self.abandoned, self._grace_s)
                return self._finish(0)
            if isinstance(message, _Chunk):
                reading = False
                if input_ended:
                    continue
                if message.data:
                    session.receive_data(message.data)
                else:
                    input_ended = True
                    session.receive_eof()
            elif isinstance(message, _Done):
                self._cancel_flags.pop(message.request_id, None)
                session.complete(message.request_id, message.outcome)
            elif isinstance(message, _Stop):
                if stopping:
                    log.warning("%s: second stop request (%s); exiting now", self._name, message.reason)
                    self.abandoned = len(self._cancel_flags)
                    return self._finish(0, flush_s=0.5)
                log.info("%s: %s: stopping; %d call(s) in flight", self._name, message.reason, len(self._cancel_flags))
                stopping = True
                deadline = time.monotonic() + self._grace_s
                for flag in self._cancel_flags.values():
                    flag.set()
                if not input_ended:
                    input_ended = True
                    session.receive_eof()
            else:
                log.warning("%s: cannot write to the client (%s); stopping", self._name, message.error)
                for flag in self._cancel_flags.values():
                    flag.set()
                self.abandoned = len(self._cancel_flags)
                return 1

    # --- helpers -----------------------------------------------------------------------------

    def _start(self, event: ToolCallRequested) -> None:
        flag = threading.Event()
        self._cancel_flags[event.request_id] = flag
        self._executor.submit(self._run_tool, event, flag)

    def _run_tool(self, event: ToolCallRequested, cancelled: threading.Event) -> None:
        outcome: ToolOutcome
        try:
            output = self._registry.call(
                event.name, event.arguments, event.meta, workspace=self._workspace, cancelled=cancelled
            )
            outcome = ToolResult(output.text, output.is_error, output.structured)
        except Exception as exc:  # a crashed tool must not take the server down
            log.exception("tool %s crashed (request %r)", event.name, event.request_id)
            outcome = ToolCrashed(f"{type(exc).__name__}: {exc}")
        self._inbox.put(_Done(event.request_id, outcome))

    def _reader(self) -> None:
        while True:
            self._may_read.wait()
            self._may_read.clear()
            try:
                data = self._read()
            except OSError as exc:
                log.warning("%s: read failed (%s); treating it as EOF", self._name, exc)
                data = b""
            self._inbox.put(_Chunk(data))
            if not data:
                return

    def _writer(self) -> None:
        failed = False
        while True:
            data = self._outbox.get()
            if data is None:
                self._written.set()
                return
            if failed or not data:
                continue
            try:
                self._write(data)
            except OSError as exc:
                failed = True
                self._inbox.put(_WriteFailed(str(exc)))

    def _finish(self, code: int, flush_s: float = 10.0) -> int:
        self._outbox.put(None)
        if not self._written.wait(flush_s):
            log.warning("%s: output not flushed within %.1fs", self._name, flush_s)
            return 1
        return code
