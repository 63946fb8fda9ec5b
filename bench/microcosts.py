"""In-process costs of the pieces a mesh-mcp request goes through (diagnostic for bench/run.py).

    PYTHONPATH=. .venv/bin/python bench/microcosts.py

Prints one JSON object: microseconds per operation (median of several repetitions), for the
sans-IO session alone, the tool registry alone, the stdio driver's tool hand-off, and the bare
loop's equivalent work. Needs ``tests.support.tools`` importable (PYTHONPATH=repo root).
"""

from __future__ import annotations

import os
import queue
import select
import statistics
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson

from mesh.drivers.stdio import catalogue
from mesh.protocol import ServerSession, SessionConfig, ToolResult
from mesh.tools import builtin_registry, load_plugins

PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
LIST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'
CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}\n'
INIT = (b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        b'"capabilities":{},"clientInfo":{"name":"b","version":"0"}}}\n')


def per_op_us(fn: Callable[[], object], n: int, reps: int = 5) -> float:
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter_ns() - t0) / n / 1000)
    return statistics.median(samples)


def main() -> None:
    registry = builtin_registry()
    load_plugins(registry, ["tests.support.tools"])
    session = ServerSession(SessionConfig(), catalogue(registry))
    session.receive_data(INIT)
    session.next_event()
    session.data_to_send()
    workspace = Path.cwd()

    def frame(data: bytes) -> bytes:
        session.receive_data(data)
        session.next_event()
        return session.data_to_send()

    def call_without_tool() -> bytes:
        session.receive_data(CALL)
        event = session.next_event()
        session.next_event()
        session.complete(event.request_id, ToolResult("hello"))  # type: ignore[union-attr]
        return session.data_to_send()

    tools_answer = orjson.loads(frame(LIST))["result"]
    out: dict[str, float] = {}
    out["session: ping frame in, answer out"] = per_op_us(lambda: frame(PING), 20_000)
    out["session: tools/list frame in, answer out"] = per_op_us(lambda: frame(LIST), 20_000)
    out["session: tools/call frame in, complete, answer out (no tool run)"] = per_op_us(call_without_tool, 20_000)
    out["registry.call('echo') (parse args, run, bound the text)"] = per_op_us(
        lambda: registry.call("echo", {"text": "hello"}, {}, workspace=workspace), 20_000)
    out["bare: loads + dumps a ping"] = per_op_us(
        lambda: orjson.dumps({"jsonrpc": "2.0", "id": orjson.loads(PING)["id"], "result": {}}), 50_000)
    out["bare: dumps the prebuilt tools/list answer"] = per_op_us(
        lambda: orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": tools_answer}), 50_000)
    out["dumps the tools/list answer with OPT_SORT_KEYS"] = per_op_us(
        lambda: orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": tools_answer}, option=orjson.OPT_SORT_KEYS), 50_000)
    out["threading.Event() construction (one per tools/call)"] = per_op_us(threading.Event, 50_000)

    # The tool hand-off as the stdio driver's pump does it (mesh/drivers/_pump.py): submit to a
    # 4-worker ThreadPoolExecutor; the worker appends the outcome to a deque and writes one byte
    # to a wake-up pipe; the loop wakes in poll(), drains the pipe and pops the outcome.
    executor = ThreadPoolExecutor(max_workers=4)
    done: deque[object] = deque()
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    poller = select.poll()
    poller.register(wake_r, select.POLLIN)

    def work() -> None:
        done.append(1)
        os.write(wake_w, b"\0")

    def pool_round_trip() -> None:
        executor.submit(work)
        while not done:
            poller.poll()
            try:
                os.read(wake_r, 4096)
            except BlockingIOError:
                pass
        done.popleft()

    out["tool hand-off: executor.submit, deque + wake pipe, poll, round trip"] = per_op_us(pool_round_trip, 10_000)
    executor.shutdown()

    # For scale: the cheapest cross-thread round trip CPython offers (C SimpleQueue both ways).
    q_in: queue.SimpleQueue[object] = queue.SimpleQueue()
    q_out: queue.SimpleQueue[object] = queue.SimpleQueue()

    def bounce() -> None:
        while (item := q_in.get()) is not None:
            q_out.put(item)

    helper = threading.Thread(target=bounce, daemon=True)
    helper.start()

    def queue_round_trip() -> None:
        q_in.put(1)
        q_out.get()

    out["for scale: SimpleQueue round trip between 2 threads"] = per_op_us(queue_round_trip, 10_000)
    q_in.put(None)
    helper.join()

    # The pump's per-frame system calls when idle between requests (poll + read, poll + write).
    r, w = os.pipe()
    sink_r, sink_w = os.pipe()
    p2 = select.poll()
    p2.register(r, select.POLLIN)

    def syscalls() -> None:
        os.write(w, b"x")
        p2.poll()
        os.read(r, 65536)
        os.write(sink_w, b"y")
        os.read(sink_r, 65536)

    out["syscalls alone: write, poll, read on a pipe + write, read"] = per_op_us(syscalls, 20_000)
    sys.stdout.write(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n")


if __name__ == "__main__":
    main()
