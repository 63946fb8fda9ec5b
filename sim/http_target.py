"""The HTTP target: a scenario's frames as Streamable HTTP requests to the server's MCP endpoint.

Theory of operation
-------------------
:class:`HttpTarget` drives the endpoint the ``mesh-mcp http`` server runs
(``mesh/drivers/_http_endpoint.py``, the part that decides which session a request belongs to and
where each answer goes) in this process, with every session it opens a sans-IO
:class:`~mesh.protocol.ServerSession` run the way the memory target runs its one: tools complete
at once, ``sim_wait`` at the end of its step, in simulated time (the endpoint's clock is the step
number and its timers never fire). Nothing here reads a clock, draws a random number or depends
on thread timing, so a transcript is the same bytes every run.

The client side is what a Streamable HTTP client would send for each frame of a step:

* every line of a step is one ``POST`` (``Accept: application/json, text/event-stream``,
  ``Content-Type: application/json``) whose body is the line; in the handshake era the first
  ``initialize`` opens the session and its ``Mcp-Session-Id`` goes on every later request, with
  ``MCP-Protocol-Version`` from 2025-06-18 on; in 2026-07-28 every request carries the mirrored
  ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` headers;
* the JSON-RPC messages of each response (a JSON body, or each event of an SSE stream) are the
  step's frames, in the order the responses produced them; a ``202`` adds none;
* ``eof`` ends a handshake session with ``DELETE``; ``kill`` throws the endpoint and all its
  sessions away unanswered (the server died) and starts a new one, as the pipe target restarts
  its process; the client then opens a new session (the scenario's handshake after the restart);
* a ``notifications/cancelled`` in 2026-07-28 is the client closing the response stream of the
  request it names when that request is still waiting (the revision's only cancellation), else
  the POST of the notification.

Every fault kind is mapped, or switched off where it has no HTTP form (:func:`http_form`):

* ``chunking`` (writes down to one byte) and ``stall`` (a client that stops reading): an HTTP
  body reaches the endpoint whole; both stay in the scenario and change nothing;
* ``coalesce``: one POST per line, in order; blank lines are no message, so no request (the
  session ignores them too, INV-FRAME-3);
* ``garbage``: a body that is not JSON gets the HTTP layer's 400, whose JSON-RPC error is the
  session's own ``-32700``; ``eof``: the frame cut short by the end of input is POSTed as it
  is (the client sends what it has), then the session is deleted;
* ``batches`` in a handshake session: served in 2025-03-26; refused elsewhere with the
  session's own ``-32600``; in 2026-07-28 a batch is a 400 of the HTTP layer's own (a stateless
  POST carries one object), so the kind is **switched off** in that era;
* ``notifications`` in 2026-07-28: a client's JSON-RPC response is a 400 of the HTTP layer's
  own (a stateless server asked nothing), so the kind is **switched off** in that era;
* ``invalid`` (non-objects, a wrong ``jsonrpc``, another era's envelope...): refused by the HTTP
  layer with messages of its own, or routed as another era's request: **switched off**;
* ``oversized``: a body past 1 MiB is the HTTP server's 413 before the endpoint sees it (the
  in-process endpoint has no body bound to mirror): **switched off**;
* ``kill`` and ``cancel``: as above (a new server; a closed response stream in 2026-07-28).

A scenario's HTTP form is the scenario generated with those kinds switched off (``generate``
draws the same values with a kind off, it only leaves its frames out); its HTTP transcript must
be byte-identical to the memory target's transcript of the same scenario (INV-SIMHTTP-1). A
recorded seed none of whose kinds is switched off is its own HTTP form: its HTTP transcript must
have the recorded digest (INV-SIMHTTP-2).
"""

from __future__ import annotations

import base64
import itertools
import threading
from collections.abc import Sequence
from typing import Any, Final

import orjson

from mesh.drivers._http_endpoint import Endpoint, EndpointConfig, HttpRequest
from mesh.drivers._http_rules import METHOD_HEADER, NAME_HEADER, SESSION_HEADER, VERSION_HEADER
from mesh.drivers._pump import run_tool, simulated_progress
from mesh.drivers.stdio import catalogue
from mesh.protocol import CallCancelled, ServerSession, SessionClosed, ToolCallRequested
from mesh.tools import Registry

from . import fixture
from .fixture import FIXTURE
from .scenario import STATELESS_VERSION, Scenario, generate
from .targets import Transcript, _config

__all__ = ["NO_HTTP_FORM", "NO_STATELESS_FORM", "HttpTarget", "http_form", "off_for_http"]

#: Fault kinds whose frames the HTTP layer answers itself, in every revision.
NO_HTTP_FORM: Final = ("invalid", "oversized")
#: Fault kinds with no HTTP form in 2026-07-28 only.
NO_STATELESS_FORM: Final = ("batches", "notifications")
#: Revisions whose clients send ``MCP-Protocol-Version`` on every request after ``initialize``.
_VERSION_HEADER_FROM: Final = "2025-06-18"
_ACCEPT: Final = "application/json, text/event-stream"
_NAME_PARAM: Final = {"tools/call": "name", "resources/read": "uri", "prompts/get": "name"}


def off_for_http(scenario: Scenario) -> tuple[str, ...]:
    """The fault kinds of ``scenario`` that have no HTTP form (see the module docstring)."""
    formless = NO_HTTP_FORM + (NO_STATELESS_FORM if scenario.era == "stateless" else ())
    return tuple(kind for kind in scenario.faults if kind in formless)


def http_form(seed: int, steps: int | None = None, off: Sequence[str] = ()) -> Scenario:
    """The HTTP form of a seed: its scenario with the kinds that have no HTTP form switched off."""
    scenario = generate(seed, steps=steps, off=off)
    extra = off_for_http(scenario)
    return generate(seed, steps=steps, off=(*off, *extra)) if extra else scenario


class _Elapsed(threading.Event):
    """A cancellation flag whose waits end at once: simulated time (as in the memory target)."""

    def wait(self, timeout: float | None = None) -> bool:
        return self.is_set()


class _Session:
    """One backend of the endpoint: a sans-IO session fed the lines the endpoint sends it."""

    def __init__(self, registry: Registry, number: int) -> None:
        self.registry = registry
        self.number = number
        self.session = ServerSession(_config(), catalogue(registry))
        self.inbox: list[bytes] = []
        self.ended = False
        self.closed = False
        self.held: dict[Any, tuple[ToolCallRequested, _Elapsed]] = {}

    # Backend
    def send(self, line: bytes) -> None:
        self.inbox.append(line)

    def end(self) -> None:
        self.ended = True

    def run(self, *, release_held: bool) -> list[bytes]:
        """Feed what came in, run the tools it asked for; the frames it wrote (no line endings)."""
        for line in self.inbox:
            self.session.receive_data(line)
            self._pump()
        self.inbox.clear()
        if release_held:
            for request_id, (waiting, flag) in list(self.held.items()):
                del self.held[request_id]
                self.session.complete(request_id, run_tool(self.registry, waiting, FIXTURE, flag))
        if self.ended and not self.closed:
            self.session.receive_eof()
            self._pump()
        return self.session.data_to_send().split(b"\n")[:-1]

    def _pump(self) -> None:
        while True:
            event = self.session.next_event()
            if isinstance(event, ToolCallRequested):
                flag = _Elapsed()
                if event.name == "sim_wait":
                    self.held[event.request_id] = (event, flag)
                else:
                    progress = simulated_progress(event.request_id, self.session.progress)
                    self.session.complete(event.request_id, run_tool(self.registry, event, FIXTURE, flag, progress))
            elif isinstance(event, CallCancelled):
                if event.request_id in self.held:
                    waiting, flag = self.held.pop(event.request_id)
                    flag.set()
                    self.session.complete(event.request_id, run_tool(self.registry, waiting, FIXTURE, flag))
            elif isinstance(event, SessionClosed):
                self.closed = True
                return
            else:
                return


class _Reply:
    """Where one response goes: the JSON-RPC messages in it are appended to the step's frames."""

    def __init__(self, out: list[bytes], problems: list[str], what: str) -> None:
        self.out = out
        self.problems = problems
        self.what = what
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.done = False

    def respond(self, status: int, headers: Sequence[tuple[str, str]], body: bytes) -> None:
        self.status = status
        self.headers = dict(headers)
        self.done = True
        if body:
            self._message(body)
        if status >= 500:
            self.problems.append(f"{self.what}: HTTP {status}")

    def start_stream(self, headers: Sequence[tuple[str, str]]) -> None:
        self.status = 200
        self.headers = dict(headers)

    def send(self, data: bytes, *, droppable: bool = False) -> None:
        for line in data.split(b"\n"):
            if line.startswith(b"data: "):
                self._message(line[len(b"data: ") :])

    def end_stream(self) -> None:
        self.done = True

    def _message(self, data: bytes) -> None:
        self.out.append(data + b"\n")


class _Client:
    """One simulated server (an endpoint and its sessions) and the client talking to it."""

    def __init__(self, scenario: Scenario, registry: Registry, problems: list[str]) -> None:
        self.scenario = scenario
        self.registry = registry
        self.problems = problems
        self.now = 0.0
        self.sessions: list[_Session] = []
        self._numbers = itertools.count(1)
        self._ids = itertools.count(1)
        self.endpoint = Endpoint(
            EndpointConfig(), open_backend=self._open, new_session_id=lambda: f"sim-session-{next(self._ids)}"
        )
        self.session_id: str | None = None
        self.version: str | None = None
        #: 2026-07-28 requests still waiting for their answer, by JSON-RPC id.
        self.waiting: dict[Any, _Reply] = {}

    def _open(self, kind: str) -> _Session:
        backend = _Session(self.registry, next(self._numbers))
        self.sessions.append(backend)
        return backend

    def settle(self, *, release_held: bool = False) -> None:
        """Run every session until none has anything more to say (frames may send new lines)."""
        while True:
            moved = False
            for backend in list(self.sessions):
                if not (backend.inbox or (backend.ended and not backend.closed) or (release_held and backend.held)):
                    continue
                moved = True
                for frame in backend.run(release_held=release_held):
                    self.endpoint.frame(backend, frame, self.now)
                if backend.closed:
                    self.sessions.remove(backend)
                    self.endpoint.backend_lost(backend, self.now)
            if not moved:
                return

    def post(self, line: bytes, out: list[bytes], index: int) -> None:
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            message = None
        headers = [("accept", _ACCEPT), ("content-type", "application/json")]
        method = message.get("method") if isinstance(message, dict) else None
        if self.scenario.era == "stateless":
            if method == "notifications/cancelled":
                params = message.get("params") if isinstance(message, dict) else None
                target = params.get("requestId") if isinstance(params, dict) else None
                reply = self.waiting.pop(target, None) if isinstance(target, (str, int)) else None
                if reply is not None and not reply.done:
                    self.endpoint.sink_closed(reply, self.now)  # 2026-07-28: closing the stream cancels
                    self.settle()
                    return
            headers.append((VERSION_HEADER, STATELESS_VERSION))
            if isinstance(method, str):
                headers.append((METHOD_HEADER, method))
                key = _NAME_PARAM.get(method)
                params = message.get("params") if isinstance(message, dict) else None
                if key is not None and isinstance(params, dict) and isinstance(params.get(key), str):
                    headers.append((NAME_HEADER, _header_value(params[key])))
        else:
            if self.session_id is not None:
                headers.append((SESSION_HEADER, self.session_id))
            if self.version is not None and self.version >= _VERSION_HEADER_FROM:
                headers.append((VERSION_HEADER, self.version))
        what = f"step {index} POST {method or 'message'}"
        reply = _Reply(out, self.problems, what)
        self.endpoint.handle(HttpRequest("POST", "/mcp", tuple(headers), line), reply, self.now)
        request_id = message.get("id") if isinstance(message, dict) else None
        if isinstance(request_id, (str, int)) and not reply.done:
            self.waiting[request_id] = reply
        self.settle()
        if method == "initialize" and self.session_id is None and reply.done and reply.status == 200:
            self.session_id = reply.headers.get(SESSION_HEADER)
            result = orjson.loads(out[-1]).get("result") if out else None
            self.version = result.get("protocolVersion") if isinstance(result, dict) else None

    def delete(self, out: list[bytes], index: int) -> None:
        if self.session_id is None:
            return
        reply = _Reply(out, self.problems, f"step {index} DELETE")
        self.endpoint.handle(HttpRequest("DELETE", "/mcp", ((SESSION_HEADER, self.session_id),)), reply, self.now)
        self.settle()
        if reply.status != 200:
            self.problems.append(f"step {index}: DELETE of the session answered {reply.status}")

    def end_step(self) -> None:
        self.settle(release_held=True)
        self.waiting = {key: reply for key, reply in self.waiting.items() if not reply.done}

    def left_waiting(self) -> list[str]:
        return [f"request {key!r} was never answered" for key, reply in self.waiting.items() if not reply.done]


def _header_value(value: str) -> str:
    """A header value as a 2026-07-28 client sends it: visible ASCII as is, else the ``=?base64?…?=``
    form (the endpoint decodes it: ``decode_header_value``)."""
    if value.isascii() and value.isprintable() and value == value.strip():
        return value
    return "=?base64?" + base64.b64encode(value.encode()).decode() + "?="


class HttpTarget:
    """A scenario's frames as Streamable HTTP requests to the MCP endpoint: see the module docstring.

    Run it on a scenario's HTTP form (:func:`http_form`); a frame with no HTTP form is sent all the
    same and its answer (the HTTP layer's refusal) then differs from the memory target's."""

    name = "http"

    def run(self, scenario: Scenario) -> Transcript:
        registry = fixture.registry()
        problems: list[str] = []
        steps: list[tuple[bytes, ...] | None] = []
        client = _Client(scenario, registry, problems)
        end = "no eof"
        for index, step in enumerate(scenario.steps):
            client.now = float(index)
            out: list[bytes] = []
            if step.kind == "kill":
                steps.append(None)  # the server dies with everything it held; a new one starts
                client = _Client(scenario, registry, problems)
                continue
            for line in step.data.split(b"\n"):
                if line.strip(b" \t\r"):
                    client.post(line, out, index)
            client.end_step()
            if step.kind == "eof":
                client.delete(out, index)
                problems += client.left_waiting()
                end = "exit 0"
                steps.append(tuple(out))
                break
            steps.append(tuple(out))
        return Transcript(self.name, tuple(steps), end, tuple(problems))
