"""Run one :class:`ServerSession` over a pair of file descriptors, tools on a worker pool.

Theory of operation
-------------------
One thread, the **loop** (the caller of :meth:`ConnectionPump.run`), owns the session and both
descriptors. It sleeps in ``poll`` on three things: the input (only while the session says
``NEED_DATA``: a paused session reads nothing, so backpressure reaches the client's pipe), the
output (only while frames wait to be written) and a wake-up pipe. Nothing else touches the
output, and no byte of it is written by anyone but the loop.

**Workers** run tool calls; each appends its outcome to a queue and writes one byte to the wake-up
pipe. :meth:`ConnectionPump.request_stop` does the same, and the stdio driver points
``signal.set_wakeup_fd`` at that pipe too, so a signal wakes the loop whichever thread the kernel
handed it to.

Writes never block the loop: the driver hands over a non-blocking output descriptor (a pipe or a
socket; a terminal or a regular file never blocks for long), the loop writes what the client will
take right away and polls for the rest. So a client that stops reading stalls its own answers,
never the loop, and a stop request is still acted on.

Output is bounded both ways (INV-BOUND-4). Past ``out_bytes_max`` bytes of answers waiting for the
client, the loop neither reads input nor hands the session more of what it read, so a client that
writes without reading is held back by its own pipe, never by the server's memory. A read is
handed to the session in slices of ``FEED_BYTES``: one request of a few bytes can have an answer of
kilobytes (``tools/list``), and a whole read's worth of them would be answered at once. What is
held is at most the bound, plus the answers of one slice, plus the calls in flight.

A pump given a ``client_log`` (:mod:`._client_log`) subscribes to the server's own warnings and
errors: any thread's record is queued and wakes the loop, which hands it to the session with the
time (``ServerSession.log``), and wakes again at ``session.timer()`` for the rate limit.

A tool reports progress through its ``CallContext.progress``: the offer joins the same queue as
the outcomes, behind nothing the call did later, so the loop hands it to the session
(``ServerSession.progress``, which sends it only when the client asked) before the call's
answer. Offers closer together than ``PROGRESS_INTERVAL_S`` are dropped, and so is any made once
the call returned: a tool cannot flood the loop, nor speak after its answer.

A pump given a ``heartbeat`` (the daemon's connections) writes it between frames whenever it has
written nothing for ``heartbeat_s``: the loop, not a tool, writes it, so a peer can tell a slow
tool (heartbeats go on) from a process that stopped or hung (they stop).

A pump given a **control channel** (:meth:`ConnectionPump.rebind`: the daemon serving a client's
own descriptors, passed by its proxy) writes the heartbeat there instead, every ``heartbeat_s``
whatever the output does, and hands what it reads there to ``on_control`` (``b""`` at its end):
the daemon turns it into :meth:`request_stop`.

EOF on the input: the session answers everything already accepted, then reports
``SessionClosed``; the loop writes out every frame and returns 0 (the drain barrier). A stop
request ends the input the same way, tells running tools to stop, answers calls not yet started
with an ``isError`` "shutting down" result, and returns within ``shutdown_grace_s`` even if a tool
ignores its cancellation. A second stop request returns at once. Either way it returns 1 when
it gave up on a call still running or on answers the client did not take (their answers are lost,
and a lost answer must not look like success), else 0.
"""

from __future__ import annotations

import logging
import math
import os
import select
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

from ..audit import AuditLog, AuditRow, canonical_digest
from ..protocol import (
    CallCancelled,
    RequestId,
    ServerSession,
    SessionClosed,
    ToolCallRequested,
    ToolCrashed,
    ToolOutcome,
    ToolResult,
    Wait,
)
from ..tools import Registry, trace_id_of
from ._client_log import ClientLogEntry, ClientLogHandler, ServerWord
from ._wake import drain_pipe, wake_pipe
from ._workers import WorkerPool

__all__ = ["ConnectionPump", "audit_row", "call_tool", "run_tool", "simulated_progress"]

log = logging.getLogger("mesh.server")

SHUTTING_DOWN: Final = "The server is shutting down; this call was not run. Call it again once the server restarts."
READ_CHUNK_BYTES: Final = 64 * 1024
#: Input is handed to the session this much at a time (see the module docstring).
FEED_BYTES: Final = 4 * 1024
#: Answers waiting for a client past which the loop reads nothing more from it (INV-BOUND-4).
OUT_BYTES_MAX: Final = 1024 * 1024
#: Output still unwritten after a stop is abandoned after this long (the client is not reading).
FLUSH_S_MAX: Final = 2.0
#: Log entries waiting for the loop; past this the oldest are dropped (the session rate-limits anyway).
LOGS_QUEUED_MAX: Final = 1024
#: A call's progress offers closer together than this are dropped (the first always passes).
PROGRESS_INTERVAL_S: Final = 0.25

_IN: Final = select.POLLIN | select.POLLPRI
_BROKEN: Final = select.POLLERR | select.POLLHUP | select.POLLNVAL


class ConnectionPump:
    def __init__(
        self,
        *,
        session: ServerSession,
        registry: Registry,
        workspace: Path,
        in_fd: int,
        out_fd: int,
        workers: WorkerPool,
        name: str = "stdio",
        shutdown_grace_s: float = 5.0,
        audit: AuditLog | None = None,
        session_id: str = "",
        out_bytes_max: int = OUT_BYTES_MAX,
        heartbeat: bytes = b"",
        heartbeat_s: float = 0.0,
        client_log: ClientLogHandler | None = None,
    ) -> None:
        """``heartbeat`` (bytes that are no frame, written between frames after ``heartbeat_s``
        without output) is off unless both are given."""
        if out_bytes_max < 1:
            raise ValueError(f"out_bytes_max must be at least 1, not {out_bytes_max}")
        self._session = session
        self._registry = registry
        self._workspace = workspace
        self._in_fd = in_fd
        self._out_fd = out_fd
        self._workers = workers
        self._name = name
        self._grace_s = shutdown_grace_s
        self._audit = audit
        self._session_id = session_id
        self._out_bytes_max = out_bytes_max
        self._heartbeat = heartbeat if heartbeat_s > 0 else b""
        self._heartbeat_s = heartbeat_s
        self._client_log = client_log
        self._client_log_token: int | None = None
        self._logs: deque[ClientLogEntry] = deque(maxlen=LOGS_QUEUED_MAX)
        self._wake_r, self._wake_w = wake_pipe()
        # Reentrant: a signal handler (request_stop) may run on the main thread while it holds it.
        self._wake_lock = threading.RLock()
        self._wake_closed = False
        #: Finished calls, and progress offers of running ones, in the order they happened.
        self._done: deque[tuple[RequestId, ToolOutcome | _Progress]] = deque()
        self._stops: deque[str] = deque()
        self._cancel_flags: dict[RequestId, threading.Event] = {}
        self._out = bytearray()
        #: Input read but not yet handed to the session, from ``_unfed_at`` on.
        self._unfed = b""
        self._unfed_at = 0
        #: The input ended (EOF, or a stop) and the session is told once it has all of ``_unfed``.
        self._eof_pending = False
        #: The most answer bytes waiting for the client at any one time (INV-BOUND-4).
        self.out_bytes_peak = 0
        #: Calls still running when the pump returned (their threads may outlive it).
        self.abandoned = 0
        #: The session closed with every answer written: nothing accepted was lost.
        self.drained = False
        #: The control channel (-1: none) and what reads it (see :meth:`rebind`).
        self._control_fd = -1
        self._on_control: Callable[[bytes], None] | None = None

    def rebind(self, *, in_fd: int, out_fd: int, control_fd: int, on_control: Callable[[bytes], None]) -> None:
        """Before :meth:`run`: serve ``in_fd``/``out_fd`` (a client's own descriptors) instead,
        heartbeats going to ``control_fd`` and what it carries to ``on_control`` (on the loop's
        thread; ``b""`` once it ends). The caller still owns every descriptor."""
        self._in_fd, self._out_fd = in_fd, out_fd
        self._control_fd, self._on_control = control_fd, on_control

    def preload(self, data: bytes) -> None:
        """Before :meth:`run`: input the caller read already, handed to the session first."""
        self._unfed, self._unfed_at = data, 0

    @property
    def wake_read_fd(self) -> int:
        """The read end of the wake-up pipe: readable once a stop is requested before :meth:`run`
        (for a caller waiting on something else first; never read it)."""
        return self._wake_r

    @property
    def name(self) -> str:
        """The session's name in logs (``stdio``, ``meshd-<pid>-<n>``)."""
        return self._name

    @property
    def wake_fd(self) -> int:
        """The write end of the wake-up pipe (for ``signal.set_wakeup_fd``)."""
        return self._wake_w

    def request_stop(self, reason: str) -> None:
        """Thread- and signal-safe: stop reading, finish or cancel what runs, return promptly."""
        self._stops.append(reason)
        self._wake()

    def close(self) -> None:
        """Release the wake-up pipe (after :meth:`run` returned). A tool finishing later (one that
        ignored its cancellation) finds it gone and writes nowhere: never into a reused descriptor."""
        if self._client_log is not None and self._client_log_token is not None:
            self._client_log.unsubscribe(self._client_log_token)
        with self._wake_lock:
            self._wake_closed = True
            for fd in (self._wake_r, self._wake_w):
                os.close(fd)

    def run(self) -> int:
        """Serve until the input ends and everything is answered; the exit code: 0 when every
        answer was written, 1 when one was lost (the client stopped taking them, or a stop gave
        up on a call that ignored its cancellation)."""
        session = self._session
        poller = select.poll()
        poller.register(self._wake_r, select.POLLIN)
        input_ended = stopping = closed = False
        reading = writing = False
        deadline: float | None = None
        wrote_at = beat_at = time.monotonic()
        control_fd = self._control_fd
        beat_to_control = control_fd >= 0 and bool(self._heartbeat)
        beat_in_output = control_fd < 0 and bool(self._heartbeat)  # never into a client's own stdout
        if control_fd >= 0:
            poller.register(control_fd, _IN)
        if self._client_log is not None:
            self._client_log_token, recent = self._client_log.subscribe(self._post_log, threading.get_ident())
            for entry in recent:
                session.log(entry.level, entry.logger, entry.data, wrote_at)
        while True:
            want_read = held_back = False
            while not closed:
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
                    closed = True
                else:
                    self._out += session.data_to_send()
                    if event is not Wait.NEED_DATA:
                        break  # paused: no input until a call completes
                    if len(self._out) >= self._out_bytes_max:
                        held_back = True  # answers wait past the bound: so does the input
                        break
                    if self._feed():
                        continue
                    want_read = not input_ended
                    break
            self._out += session.data_to_send()
            self.out_bytes_peak = max(self.out_bytes_peak, len(self._out))
            if self._out:
                if not self._write():
                    for flag in self._cancel_flags.values():
                        flag.set()
                    self.abandoned = len(self._cancel_flags)
                    return 1
                wrote_at = time.monotonic()
                if held_back and len(self._out) < self._out_bytes_max:
                    continue  # the client took enough: hand the session more before sleeping
            if closed and not self._out:
                self.drained = True
                return 0
            if want_read != reading:
                reading = want_read
                if reading:
                    poller.register(self._in_fd, _IN)
                else:
                    poller.unregister(self._in_fd)
            if bool(self._out) != writing:
                writing = bool(self._out)
                if writing:
                    poller.register(self._out_fd, select.POLLOUT)
                else:
                    poller.unregister(self._out_fd)
            if stopping and closed:
                # Everything is answered; the client has FLUSH_S_MAX to take the last frames.
                deadline = min(deadline or float("inf"), time.monotonic() + FLUSH_S_MAX)
            wake_at = deadline
            if beat_to_control:
                wake_at = min(wake_at or float("inf"), beat_at + self._heartbeat_s)
            elif beat_in_output and not writing:
                wake_at = min(wake_at or float("inf"), wrote_at + self._heartbeat_s)
            log_at = session.timer()
            if log_at is not None:
                wake_at = min(wake_at or float("inf"), log_at)
            timeout_ms = None if wake_at is None else max(0, int((wake_at - time.monotonic()) * 1000) + 1)
            ready = dict(poller.poll(timeout_ms))
            now = time.monotonic()
            if not ready and deadline is not None and now >= deadline:
                return self._give_up()
            session.handle_timer(now)
            if beat_to_control:
                if now >= beat_at + self._heartbeat_s:
                    beat_at = now
                    beat_to_control = self._beat(control_fd)
            elif beat_in_output and not self._out and now >= wrote_at + self._heartbeat_s:
                self._out += self._heartbeat  # between frames: _out holds whole frames only
            if control_fd >= 0 and control_fd in ready:
                if not self._control(control_fd):
                    poller.unregister(control_fd)
                    control_fd = -1
                    beat_to_control = False
            if self._wake_r in ready or self._stops:  # a stop the control channel just asked for
                drain_pipe(self._wake_r)
                while self._logs:  # before the answers: a call's log comes before its answer
                    entry = self._logs.popleft()
                    session.log(entry.level, entry.logger, entry.data, now)
                while self._done:
                    request_id, outcome = self._done.popleft()
                    if isinstance(outcome, _Progress):
                        session.progress(request_id, outcome.done, outcome.total, outcome.message or None)
                        continue
                    self._cancel_flags.pop(request_id, None)
                    session.complete(request_id, outcome)
                while self._stops:
                    reason = self._stops.popleft()
                    if stopping:
                        log.warning("%s: second stop request (%s); exiting now", self._name, reason)
                        return self._give_up()
                    stopping = True
                    log.info("%s: %s: stopping; %d call(s) in flight", self._name, reason, len(self._cancel_flags))
                    deadline = time.monotonic() + self._grace_s
                    for flag in self._cancel_flags.values():
                        flag.set()
                    if not input_ended:
                        # Nothing more is read; what was read is still answered (calls refused).
                        input_ended = self._eof_pending = True
            if reading and not input_ended and self._in_fd in ready:
                data = self._read()
                if data is not None:
                    if data:
                        self._unfed, self._unfed_at = data, 0
                    else:
                        input_ended = self._eof_pending = True

    # --- helpers -----------------------------------------------------------------------------

    def _feed(self) -> bool:
        """Hand the session the next slice of what was read, or the end of input; False when
        there is nothing to hand over (read more)."""
        unfed, at = self._unfed, self._unfed_at
        if at < len(unfed):
            if at == 0 and len(unfed) <= FEED_BYTES:
                piece = unfed
            else:
                piece = unfed[at : at + FEED_BYTES]
            self._unfed_at = at + len(piece)
            if self._unfed_at >= len(unfed):
                self._unfed, self._unfed_at = b"", 0
            self._session.receive_data(piece)
            return True
        if self._eof_pending:
            self._eof_pending = False
            self._session.receive_eof()
            return True
        return False

    def _read(self) -> bytes | None:
        """The next chunk; b"" at EOF; None when nothing can be read after all (a non-blocking
        input, such as a socket sharing its flags with the output, that poll woke spuriously)."""
        try:
            return os.read(self._in_fd, READ_CHUNK_BYTES)
        except BlockingIOError:
            return None
        except OSError as exc:
            log.warning("%s: read failed (%s); treating it as EOF", self._name, exc)
            return b""

    def _write(self) -> bool:
        """Write what the client takes now; False when it can no longer take anything."""
        try:
            while self._out:
                written = os.write(self._out_fd, self._out)
                del self._out[:written]
        except BlockingIOError:
            pass  # the rest waits for POLLOUT
        except OSError as exc:
            log.warning("%s: cannot write to the client (%s); stopping", self._name, exc)
            return False
        return True

    def _beat(self, control_fd: int) -> bool:
        """Write the heartbeat on the control channel; False once it is gone (no more beats)."""
        try:
            os.write(control_fd, self._heartbeat)
        except BlockingIOError:
            pass  # the peer has not read the last ones: it is alive or will find out
        except OSError:
            return False
        return True

    def _control(self, control_fd: int) -> bool:
        """Hand what the control channel carries to ``on_control``; False once it ended."""
        try:
            data = os.read(control_fd, 4096)
        except BlockingIOError:
            return True
        except OSError as exc:
            log.info("%s: control channel failed (%s)", self._name, exc)
            data = b""
        assert self._on_control is not None
        self._on_control(data)
        return bool(data)

    def _give_up(self) -> int:
        """Return without the calls still running and the answers still unwritten: 1 when that
        loses an answer (INV-DRAIN-5: a loss never looks like success), else 0."""
        self.abandoned = len(self._cancel_flags)
        if self.abandoned:
            log.warning(
                "%s: %d call(s) did not stop in time; exiting without them: their answers are lost",
                self._name,
                self.abandoned,
            )
        if self._out:
            log.warning("%s: %d byte(s) of answers not taken by the client are lost", self._name, len(self._out))
        return 1 if self.abandoned or self._out else 0

    def _post_log(self, entry: ClientLogEntry) -> None:
        """Any thread: a log entry for the session (see :mod:`._client_log`)."""
        self._logs.append(entry)
        self._wake()

    def _wake(self) -> None:
        with self._wake_lock:
            if self._wake_closed:
                return
            try:
                os.write(self._wake_w, b"\0")
            except BlockingIOError:
                pass  # the pipe is full of wake-ups already: the loop will run

    def _start(self, event: ToolCallRequested) -> None:
        flag = threading.Event()
        self._cancel_flags[event.request_id] = flag
        if self._client_log is None or self._client_log_token is None:
            self._workers.submit(self._run_tool, event, flag)
        else:
            self._workers.submit(self._run_tool_serving, event, flag)

    def _run_tool_serving(self, event: ToolCallRequested, cancelled: threading.Event) -> None:
        """:meth:`_run_tool`, what it logs meant for this session only (a crash, say)."""
        with self._client_log.serving(self._client_log_token):  # type: ignore[union-attr, arg-type]
            self._run_tool(event, cancelled)

    def _run_tool(self, event: ToolCallRequested, cancelled: threading.Event) -> None:
        audit = self._audit
        reporter = _Reporter(event.request_id, self._post_progress)
        try:
            if audit is None:
                outcome, _ = call_tool(self._registry, event, self._workspace, cancelled, reporter)
            else:
                when, started = audit.now(), time.monotonic()
                outcome, truncated = call_tool(self._registry, event, self._workspace, cancelled, reporter)
        finally:
            reporter.close()  # nothing the tool offers from now on reaches the client
        if audit is not None:
            # INV-AUDIT-1: the row is committed before the answer reaches the session (and so the
            # client); the audit log never raises (INV-AUDIT-2).
            audit.record(audit_row(event, outcome, truncated, self._session_id, when, time.monotonic() - started))
        self._done.append((event.request_id, outcome))
        self._wake()

    def _post_progress(self, request_id: RequestId, offer: _Progress) -> None:
        """A worker: a running call's progress offer (see :class:`_Reporter`)."""
        self._done.append((request_id, offer))
        self._wake()


class _Progress:
    """One progress offer of a running call, on its way to the loop."""

    __slots__ = ("done", "message", "total")

    def __init__(self, done: float, total: float | None, message: str) -> None:
        self.done, self.total, self.message = done, total, message


class _Reporter:
    """``CallContext.progress`` of one call: offers at most one per ``PROGRESS_INTERVAL_S`` of
    ``clock`` (the simulator's stands still: the first offer of a call alone passes), none once the
    call returned (:meth:`close`), none that is not a finite number."""

    def __init__(
        self, request_id: RequestId, post: Callable[[RequestId, _Progress], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:  # fmt: skip
        self._request_id = request_id
        self._post = post
        self._clock = clock
        self._last_at: float | None = None
        self._lock = threading.Lock()
        self._closed = False

    def close(self) -> None:
        """The call returned: later offers (from a thread the tool left behind) go nowhere."""
        with self._lock:
            self._closed = True

    def __call__(self, done: float, total: float | None = None, message: str = "") -> None:
        if done.__class__ not in (int, float) or (total is not None and total.__class__ not in (int, float)):
            return
        if not math.isfinite(done) or (total is not None and not (math.isfinite(total) and total >= 0)):
            return
        with self._lock:
            now = self._clock()
            if self._closed or (self._last_at is not None and now - self._last_at < PROGRESS_INTERVAL_S):
                return
            self._last_at = now
            self._post(self._request_id, _Progress(done, total, message))


def simulated_progress(
    request_id: RequestId, offer: Callable[[RequestId, float, float | None, str], None]
) -> Callable[[float, float | None, str], None]:
    """``CallContext.progress`` for a driver in simulated time (the simulator's in-process
    targets): the pump's own rules on a clock that stands still, so that of a call's offers the
    first alone reaches ``offer``, as it does over a pipe when they come together."""
    return _Reporter(request_id, lambda rid, p: offer(rid, p.done, p.total, p.message or None), clock=lambda: 0.0)


def run_tool(
    registry: Registry,
    event: ToolCallRequested,
    workspace: Path,
    cancelled: threading.Event,
    progress: Callable[[float, float | None, str], None] | None = None,
) -> ToolOutcome:
    """Run one call and turn what happened into the outcome the session expects."""
    return call_tool(registry, event, workspace, cancelled, progress)[0]


def call_tool(
    registry: Registry,
    event: ToolCallRequested,
    workspace: Path,
    cancelled: threading.Event,
    progress: Callable[[float, float | None, str], None] | None = None,
) -> tuple[ToolOutcome, bool]:
    """:func:`run_tool`, and whether the answer was cut to the bound."""
    try:
        output = registry.call(
            event.name, event.arguments, event.meta, workspace=workspace, cancelled=cancelled, progress=progress
        )
    except Exception as exc:  # a crashed tool must not take the server down
        # a tool that ran is registered: its name is the server's own word, which the client hears
        log.exception("tool %s crashed (request %r)", ServerWord(event.name) if event.name in registry else event.name,
                      event.request_id)  # fmt: skip
        return ToolCrashed(f"{type(exc).__name__}: {exc}"), False
    return ToolResult(output.text, output.is_error, output.structured), output.truncated


def audit_row(
    event: ToolCallRequested, outcome: ToolOutcome, truncated: bool, session: str, when: str, elapsed_s: float
) -> AuditRow:
    """The audit log's row for one finished call."""
    meta = event.meta or event.arguments.get("_meta")
    traceparent = meta.get("traceparent") if isinstance(meta, Mapping) else None
    crashed = isinstance(outcome, ToolCrashed)
    return AuditRow(
        time=when,
        session=session,
        tool=event.name,
        args_digest=canonical_digest(event.arguments),
        outcome="crash" if crashed else "tool_error" if outcome.is_error else "ok",
        duration_ms=round(elapsed_s * 1000, 3),
        result_bytes=0 if crashed else len(outcome.text.encode("utf-8", "surrogatepass")),
        truncated=truncated,
        trace_id=trace_id_of(traceparent),
    )
