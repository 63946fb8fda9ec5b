"""Scenarios: one integer seed, one ``random.Random(seed)`` named ``prng``, a whole client session.

Theory of operation
-------------------
``generate(seed)`` draws, in this order and always all of them, so that a prefix of a scenario
never depends on what comes after it: the fault kinds switched on for this seed (swarm testing:
each kind on or off with even odds), the era and the version, the number of steps, then each step.
``steps`` and ``off`` (used by the fuzzer to minimise a failure) only cut the step list and
switch kinds off; they draw nothing. Every draw goes through ``prng.random()`` (``sim/draws.py``):
the one sequence CPython keeps across versions, so a seed gives the same scenario on every
supported Python (INV-DET-4).

Fault kinds added after seeds were recorded (``LATE_FAULTS``) never draw from ``prng``: each draws
from a generator of its own, seeded by its name and the seed, after everything else. Adding one
changes no draw of the seed's ``prng``, so every recorded scenario and digest stays as it was. The
one such kind, ``stall``, is a client that stops reading its output for a few milliseconds at
some steps (``Step.stall_ms``): timing only, so a transcript is the same with it or without it.

A step is what the client does before it waits: bytes to write (split into writes of the drawn
sizes), then either "wait for the answers" (``send``), "close stdin and wait for the exit"
(``eof``) or "kill -9 the server, start a new one" (``kill``). Every step also carries what an
independent model of the protocol says must come back (``Expect``): the oracles hold both targets
to it.

Lockstep holds because a step never has two answers whose order depends on timing: answers the
core gives at once come first, at most one tool call comes last, and frames after it are never
answered (notifications, cancellations).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from typing import Any, Final

import attrs

from .draws import below, between, choice

__all__ = ["FAULTS", "GENERATOR_VERSION", "Expect", "Scenario", "Step", "generate"]

#: Bump when the same seed starts giving another scenario; recorded seeds must then be re-recorded.
#: (4: every draw built on ``prng.random()``, so no Python version is pinned; 5: the ``progress`` kind.)
GENERATOR_VERSION: Final = 5

#: Calls of the real tools over the fixture workspace (``sim/fixture.py``): (tool, arguments, what comes back).
REAL_CALLS: Final[tuple[tuple[str, dict[str, Any], str], ...]] = (
    ("smart_search", {"query": "GetOrder"}, "result"),
    ("smart_search", {"query": r"/func \(s \*\w+\) \w+/", "scope": "inventory"}, "result"),
    ("smart_search", {"query": "Reserve", "mode": "symbol"}, "result"),
    ("smart_search", {"query": "e"}, "result"),
    ("smart_search", {"query": "(a)\\1", "mode": "regex"}, "tool-error"),
    ("smart_search", {"query": "x", "scope": "../outside"}, "tool-error"),
    ("grpc_trace", {"target": "acme.orders.v1.Orders/GetOrder"}, "result"),
    ("grpc_trace", {"target": "Inventory"}, "result"),
    ("grpc_trace", {"target": "Ordrs/GetOrder"}, "tool-error"),
    ("dependents", {"target": "proto/acme/common/v1/money.proto"}, "result"),
    ("dependents", {"target": "orders"}, "result"),
    ("impact_matrix", {"changes": ["proto/acme/orders/v1/orders.proto"]}, "result"),
    ("impact_matrix", {"changes": ["acme.payments.v1.Payments/Charge"]}, "result"),
    ("doc_sections", {}, "result"),
    ("doc_sections", {"heading": "runbook"}, "result"),
    ("doc_sections", {"section_id": "no-such-section"}, "tool-error"),
)

#: Fault kinds a seed switches on or off (swarm testing).
FAULTS: Final = (
    "garbage",  # bytes that are not JSON: -32700
    "invalid",  # JSON that is not a valid request, unknown methods, bad params
    "oversized",  # lines just under, at and far over the frame bound
    "chunking",  # writes down to one byte
    "coalesce",  # several frames in one write
    "notifications",  # notifications and client responses: never answered
    "cancel",  # cancellations before, during and after a call
    "tool_failures",  # isError answers, crashes, bad arguments, unknown tools
    "batches",  # JSON-RPC batches (served in 2025-03-26 only)
    "eof",  # the session ends with EOF in the middle of a frame
    "kill",  # kill -9 at a random point, then a new server
    "stall",  # the client stops reading its output for a while (a late kind: see LATE_FAULTS)
    "progress",  # calls that report progress, with a progressToken or without (a late kind)
)
#: Kinds that draw from a generator of their own (``_late_prng``), never from the seed's ``prng``.
LATE_FAULTS: Final = ("stall", "progress")
#: The kinds drawn from the seed's ``prng``, in this order (changing it changes every scenario).
_PRNG_FAULTS: Final = tuple(kind for kind in FAULTS if kind not in LATE_FAULTS)

HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE: Final = "2025-11-25"
STATELESS_VERSION: Final = "2026-07-28"
MAX_FRAME_BYTES: Final = 1 << 20

#: What must come back for one answered frame: a result, an ``isError`` result, an error code, or
#: (for a batch) the answers inside it.
Outcome = str | int


@attrs.frozen
class Expect:
    id: Any
    outcome: Outcome
    batch: tuple[Expect, ...] = ()


@attrs.frozen
class Step:
    kind: str  # "send" | "eof" | "kill"
    data: bytes
    writes: tuple[int, ...]
    expect: tuple[Expect, ...]
    label: str
    #: The ``stall`` fault: the client reads nothing of its output while it writes this step and
    #: for this long after (the target shrinks the output pipe to a page so that it fills).
    stall_ms: int = 0
    #: Whether the step calls a tool (the ``progress`` kind adds its call only to steps that do not).
    calls_tool: bool = False


@attrs.frozen
class Scenario:
    seed: int
    faults: tuple[str, ...]
    era: str  # "handshake" | "stateless"
    version: str  # asked for in initialize, or the stateless version
    steps: tuple[Step, ...]

    @property
    def negotiated(self) -> str:
        if self.era == "stateless":
            return STATELESS_VERSION
        return self.version if self.version in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE


def generate(seed: int, *, steps: int | None = None, off: Iterable[str] = ()) -> Scenario:
    """The scenario of ``seed``; ``steps`` keeps only that many client steps, ``off`` switches kinds off."""
    prng = random.Random(seed)
    drawn = [kind for kind in _PRNG_FAULTS if prng.random() < 0.5]
    late = {kind: _late_prng(kind, seed) for kind in LATE_FAULTS}
    drawn += [kind for kind in LATE_FAULTS if late[kind].random() < 0.5]
    faults = tuple(kind for kind in FAULTS if kind in drawn and kind not in set(off))
    era = "stateless" if prng.random() < 0.3 else "handshake"
    version = STATELESS_VERSION if era == "stateless" else choice(prng, HANDSHAKE_VERSIONS + ("1999-01-01",))
    count = between(prng, 3, 40)
    if steps is not None:
        count = min(count, steps)
    builder = _Builder(prng, faults, era, version)
    built = builder.build(count)
    if "progress" in faults:
        built = _with_progress(built, late["progress"], faults, builder)
    if "stall" in faults:
        built = _stalled(built, late["stall"])
    return Scenario(seed, faults, era, version, built)


def _late_prng(kind: str, seed: int) -> random.Random:
    """The generator of a late fault kind: seeded by a string (sha512: the same on every Python)."""
    return random.Random(f"mesh-sim {kind} {seed}")


def _stalled(steps: tuple[Step, ...], stall_prng: random.Random) -> tuple[Step, ...]:
    """A stall of 1-20 ms at about a third of the steps, drawn step by step (a prefix keeps its stalls)."""
    return tuple(
        attrs.evolve(step, stall_ms=1 + below(stall_prng, 20)) if stall_prng.random() < 0.3 else step
        for step in steps
    )


def _with_progress(
    steps: tuple[Step, ...], prng: random.Random, faults: tuple[str, ...], builder: _Builder
) -> tuple[Step, ...]:
    """A call of ``sim_progress`` appended to about a quarter of the send steps that call no tool
    (one call in flight at a time: two would answer in either order over a pipe), drawn step by
    step from the kind's own generator (a prefix keeps its calls). Most carry a ``progressToken``
    (a number or a string): the one progress offer comes before the answer; without a token, the
    answer alone. Ids are ``p<n>``, which the builder never draws."""
    out = []
    for number, step in enumerate(steps):
        if step.kind != "send" or step.calls_tool or not step.data.endswith(b"\n") or prng.random() >= 0.25:
            out.append(step)
            continue
        request_id = f"p{number}"
        arguments: dict[str, Any] = {"done": between(prng, 0, 100) if prng.random() < 0.7 else below(prng, 400) / 4}
        if prng.random() < 0.5:
            arguments["total"] = 100
        if prng.random() < 0.5:
            arguments["message"] = f"step {number}"
        shape = prng.random()
        token: Any = None if shape < 0.2 else number * 7 if shape < 0.6 else f"tok-{number}"
        params: dict[str, Any] = {"name": "sim_progress", "arguments": arguments}
        if token is not None:
            params["_meta"] = {"progressToken": token}
        frame = builder.request(request_id, "tools/call", params)
        expect = (Expect(request_id, "result"),) if token is None else (Expect(token, "progress"), Expect(request_id, "result"))
        writes = (len(frame),)
        if "chunking" in faults and prng.random() < 0.7:
            pieces, left = [], len(frame)
            while left:
                pieces.append(min(left, choice(prng, (1, 2, 7, 64, 4096))))
                left -= pieces[-1]
            writes = tuple(pieces)
        out.append(attrs.evolve(step, data=step.data + frame, writes=step.writes + writes,
                                expect=step.expect + expect, label=f"{step.label} + progress"))  # fmt: skip
    return tuple(out)


# --- building ----------------------------------------------------------------------------------


def _frame(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


class _Builder:
    def __init__(self, prng: random.Random, faults: tuple[str, ...], era: str, version: str) -> None:
        self.prng = prng
        self.faults = faults
        self.era = era
        self.version = version
        self.negotiated = (
            STATELESS_VERSION
            if era == "stateless"
            else (version if version in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE)
        )
        self.next_id = 1
        self.answered: list[Any] = []  # ids answered in earlier steps (cancel "after")
        self.reserved: list[Any] = []  # ids announced as cancelled before they are sent

    # ids and frames

    def new_id(self) -> Any:
        if self.reserved and self.prng.random() < 0.5:
            return self.reserved.pop(0)
        self.next_id += 1
        number = self.next_id
        return f"r{number}" if self.prng.random() < 0.2 else number

    def request(self, request_id: Any, method: str, params: dict[str, Any] | None = None) -> bytes:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if self.era == "stateless":
            params = dict(params or {})
            params["_meta"] = {
                **params.get("_meta", {}),
                "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        if params is not None:
            message["params"] = params
        return _frame(message)

    def handshake(self) -> tuple[bytes, tuple[Expect, ...]]:
        if self.era == "stateless":
            return b"", ()
        params = {"protocolVersion": self.version, "capabilities": {}, "clientInfo": {"name": "sim", "version": "1"}}
        data = _frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        data += _frame({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return data, (Expect(0, "result"),)

    # steps

    def build(self, count: int) -> tuple[Step, ...]:
        steps: list[Step] = []
        data, expect = self.handshake()
        if data:
            steps.append(self.step("send", data, expect, "handshake"))
        kill_at = below(self.prng, count) if "kill" in self.faults else -1
        for index in range(count):
            if index == kill_at:
                steps.append(self.kill_step())
                data, expect = self.handshake()
                if data:
                    steps.append(self.step("send", data, expect, "handshake after restart"))
                continue
            steps.append(self.send_step())
        steps.append(self.eof_step())
        return tuple(steps)

    def step(self, kind: str, data: bytes, expect: tuple[Expect, ...], label: str) -> Step:
        return Step(kind, data, self.writes(len(data)), expect, label)

    def writes(self, size: int) -> tuple[int, ...]:
        if size == 0:
            return ()
        if "chunking" not in self.faults or self.prng.random() < 0.3:
            return (size,)
        sizes = []
        left = size
        while left:
            piece = min(left, choice(self.prng, (1, 1, 2, 3, 7, 64, 4096, 1 << 16)))
            sizes.append(piece)
            left -= piece
        return tuple(sizes)

    def send_step(self) -> Step:
        parts: list[tuple[bytes, tuple[Expect, ...], str]] = []
        if "coalesce" in self.faults and self.prng.random() < 0.5:
            for _ in range(between(self.prng, 1, 3)):
                parts.append(self.immediate())
        last = self.prng.random()
        if last < 0.35:
            parts.append(self.tool_call())
        else:
            parts.append(self.immediate())
        data = b"".join(part for part, _, _ in parts)
        expect = tuple(item for _, items, _ in parts for item in items)
        label = " + ".join(label for _, _, label in parts)
        for item in expect:
            if item.id is not None:
                self.answered.append(item.id)
        return attrs.evolve(self.step("send", data, expect, label), calls_tool=last < 0.35)

    def immediate(self) -> tuple[bytes, tuple[Expect, ...], str]:
        """A frame the core answers (or ignores) at once, without a tool."""
        choices = ["ping", "list"]
        for kind in ("garbage", "invalid", "oversized", "notifications", "batches"):
            if kind in self.faults:
                choices.append(kind)
        if "cancel" in self.faults:
            choices += ["cancel-before", "cancel-after"]
        kind = choice(self.prng, choices)
        return getattr(self, "make_" + kind.replace("-", "_"))()

    def make_ping(self) -> tuple[bytes, tuple[Expect, ...], str]:
        request_id = self.new_id()
        outcome: Outcome = -32601 if self.era == "stateless" else "result"
        return self.request(request_id, "ping"), (Expect(request_id, outcome),), "ping"

    def make_list(self) -> tuple[bytes, tuple[Expect, ...], str]:
        request_id = self.new_id()
        if "invalid" in self.faults and self.prng.random() < 0.3:
            frame = self.request(request_id, "tools/list", {"cursor": "bogus"})
            return frame, (Expect(request_id, -32602),), "list bad cursor"
        return self.request(request_id, "tools/list"), (Expect(request_id, "result"),), "list"

    def make_garbage(self) -> tuple[bytes, tuple[Expect, ...], str]:
        letters = "".join(choice(self.prng, "abc{}[]:,\"' 0123456789") for _ in range(between(self.prng, 1, 30)))
        data = choice(
            self.prng,
            (
                b"{" + letters.encode() + b"\x01",  # a raw control byte: never valid JSON
                b"\xff\xfe" + letters.encode(),
                b"NaN",
                b'{"jsonrpc":"2.0","id":1,"method":"ping","x":Infinity}',
                b"[" * between(self.prng, 1100, 5000),
                b"\xef\xbb\xbf{}",
                b'"\\ud800"',
            )
        )
        return data + b"\n", (Expect(None, -32700),), "garbage"

    def make_invalid(self) -> tuple[bytes, tuple[Expect, ...], str]:
        request_id = self.new_id()
        batches_served = self.negotiated == "2025-03-26" and self.era == "handshake"
        options: list[tuple[Any, Expect, str]] = [
            (42, Expect(None, -32600), "non-object"),
            ("text", Expect(None, -32600), "string"),
            ({"jsonrpc": "1.0", "id": request_id, "method": "ping"}, Expect(request_id, -32600), "wrong jsonrpc"),
            ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, Expect(None, -32600), "float id"),
            ({"jsonrpc": "2.0", "id": request_id, "method": 7}, Expect(request_id, -32600), "non-string method"),
            ({"jsonrpc": "2.0", "id": request_id}, Expect(request_id, -32600), "no method"),
            ([], Expect(None, -32600), "empty batch"),
        ]
        if not batches_served:
            options.append(([{"jsonrpc": "2.0", "id": request_id, "method": "ping"}], Expect(None, -32600), "batch"))
        message, expect, label = choice(self.prng, options)
        if label in ("non-object", "string", "float id", "empty batch", "batch"):
            return _frame(message), (expect,), label
        if self.prng.random() < 0.25:
            return self.wrong_era(request_id)
        if self.prng.random() < 0.4:
            frame = self.request(request_id, "no/such/method")
            return frame, (Expect(request_id, -32601),), "unknown method"
        if self.prng.random() < 0.3:
            frame = _frame({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": [1]})
            return frame, (Expect(request_id, -32602),), "array params"
        return _frame(message), (expect,), label

    def wrong_era(self, request_id: Any) -> tuple[bytes, tuple[Expect, ...], str]:
        """Requests the era refuses: a version not served, another era's envelope, a second handshake."""
        envelope = {"io.modelcontextprotocol/clientCapabilities": {}}
        if self.era == "stateless":
            envelope["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"  # never fixes the era
            frame = _frame({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": {"_meta": envelope}})
            return frame, (Expect(request_id, -32022),), "unsupported version"
        if self.prng.random() < 0.5:
            params = {"protocolVersion": self.version, "capabilities": {}}
            frame = _frame({"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params})
            return frame, (Expect(request_id, -32600),), "second initialize"
        envelope["io.modelcontextprotocol/protocolVersion"] = STATELESS_VERSION
        frame = _frame({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": {"_meta": envelope}})
        return frame, (Expect(request_id, -32600),), "envelope on a handshake session"

    def make_oversized(self) -> tuple[bytes, tuple[Expect, ...], str]:
        request_id = self.new_id()
        target = choice(
            self.prng,
            (MAX_FRAME_BYTES - between(self.prng, 0, 8), MAX_FRAME_BYTES, MAX_FRAME_BYTES + between(self.prng, 1, 8),
             3 * MAX_FRAME_BYTES + between(self.prng, 0, 999)),
        )  # fmt: skip
        empty = self.request(request_id, "ping", None).rstrip(b"\n")
        # A ping whose ignored top-level "pad" member brings the line to exactly ``target`` bytes.
        pad = target - len(empty) - len(b',"pad":""')
        line = empty[:-1] + b',"pad":"' + b"p" * pad + b'"}'
        assert len(line) == target
        if target > MAX_FRAME_BYTES:
            return line + b"\n", (Expect(None, -32600),), f"oversized {target}"
        outcome: Outcome = -32601 if self.era == "stateless" else "result"
        return line + b"\n", (Expect(request_id, outcome),), f"line of {target}"

    def make_notifications(self) -> tuple[bytes, tuple[Expect, ...], str]:
        which = below(self.prng, 4)
        if which == 0:
            progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}
            return _frame(progress), (), "notif"
        if which == 1:
            return _frame({"jsonrpc": "2.0", "method": "notifications/whatever"}), (), "notif"
        if which == 2:
            return _frame({"jsonrpc": "2.0", "id": "client-1", "result": {}}), (), "client response"
        return b"\r\n   \n", (), "blank lines"

    def make_batches(self) -> tuple[bytes, tuple[Expect, ...], str]:
        served = self.era == "handshake" and self.negotiated == "2025-03-26"
        first, second = self.new_id(), self.new_id()
        items = [
            self.request(first, "ping").rstrip(b"\n"),
            _frame({"jsonrpc": "2.0", "method": "notifications/progress"}).rstrip(b"\n"),
            self.request(second, "tools/list").rstrip(b"\n"),
        ]
        data = b"[" + b",".join(items) + b"]\n"
        if not served:
            return data, (Expect(None, -32600),), "batch refused"
        inner = (Expect(first, "result"), Expect(second, "result"))
        return data, (Expect(None, "batch", inner),), "batch"

    def make_cancel_before(self) -> tuple[bytes, tuple[Expect, ...], str]:
        self.next_id += 1
        future = self.next_id
        self.reserved.append(future)
        frame = _frame({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": future}})
        return frame, (), "cancel before"

    def make_cancel_after(self) -> tuple[bytes, tuple[Expect, ...], str]:
        target = choice(self.prng, self.answered) if self.answered else 999_999
        frame = _frame({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": target}})
        return frame, (), "cancel after"

    def tool_call(self) -> tuple[bytes, tuple[Expect, ...], str]:
        request_id = self.new_id()

        def call(name: str, arguments: dict[str, Any]) -> bytes:
            return self.request(request_id, "tools/call", {"name": name, "arguments": arguments})

        options = ["echo", "echo", "wait", "real", "real"]
        if "tool_failures" in self.faults:
            options += ["error", "crash", "bad-args", "unknown-tool"]
        if "cancel" in self.faults:
            options += ["cancel-during"]
        kind = choice(self.prng, options)
        if kind == "echo":
            big = self.prng.random() < 0.1
            repeat = between(self.prng, 2000, 3000) if big else between(self.prng, 1, 3)
            arguments = {"text": f"echo {request_id} " + "x" * between(self.prng, 0, 30), "repeat": repeat}
            return call("sim_echo", arguments), (Expect(request_id, "result"),), "echo big" if big else "echo"
        if kind == "real":
            tool, arguments, outcome = choice(self.prng, REAL_CALLS)
            return call(tool, arguments), (Expect(request_id, outcome),), tool
        if kind == "wait":
            return call("sim_wait", {"ms": between(self.prng, 0, 20)}), (Expect(request_id, "result"),), "wait"
        if kind == "error":
            return call("sim_fail", {"how": "error"}), (Expect(request_id, "tool-error"),), "tool error"
        if kind == "crash":
            return call("sim_fail", {"how": "crash"}), (Expect(request_id, -32603),), "crash"
        if kind == "bad-args":
            return call("sim_echo", {"text": 5, "colour": "red"}), (Expect(request_id, "tool-error"),), "bad args"
        if kind == "unknown-tool":
            return call("no_such_tool", {}), (Expect(request_id, -32602),), "unknown tool"
        # cancel during: a call that would wait far longer than any step, cancelled in the same step.
        cancel = _frame({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}})
        return call("sim_wait", {"ms": 20_000}) + cancel, (), "cancel during"

    def kill_step(self) -> Step:
        data, _, label = self.immediate() if self.prng.random() < 0.7 else self.tool_call()
        cut = between(self.prng, 0, len(data))
        return self.step("kill", data[:cut], (), f"kill -9 after {cut} bytes of {label}")

    def eof_step(self) -> Step:
        if "eof" not in self.faults:
            return self.step("eof", b"", (), "eof")
        request_id = self.new_id()
        frame = self.request(request_id, "tools/list").rstrip(b"\n")
        cut = between(self.prng, 1, len(frame))
        data = frame[:cut]
        if cut == len(frame):
            expect: tuple[Expect, ...] = (Expect(request_id, "result"),)  # whole, only the newline missing
        elif data.strip(b" \t"):
            expect = (Expect(None, -32700),)
        else:
            expect = ()
        return self.step("eof", data, expect, f"eof after {cut} of {len(frame)} bytes")
