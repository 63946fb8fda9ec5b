"""Room in memory for a build: a workspace too large for the machine says so before it is parsed.

Theory of operation
-------------------
A build's memory grows with the workspace's files: the walk's entries, the files already indexed,
the resolver's tables of every file and import are held whole (about 2-3 KB a file), and each parse
worker (a fresh interpreter with the grammars loaded) holds what its largest files take. Once the
walk has listed the files, :func:`check_memory` compares what a build of that many files takes
(:func:`build_need`, or :func:`serve_need` for a server that builds and then serves) with what
the machine has left (:func:`available`): when the estimate exceeds it, the build stops with
:class:`MemoryShort` before any file is read or parsed, naming both numbers, instead of swapping
the machine to a halt.

The model (bench/memory.py; docs/performance.md, "Memory"), in MiB, for ``F`` thousand files,
``W`` parse workers and the largest file of ``L`` MiB::

    build = 56 + 64 + 3.0 F + W (54 + 58 L)     serve = build + 3.2 F

The building process grows with the files (measured 58 MiB at 2,000 files, 67 at 8,000, 116 at
25,000, 109 at 26,611 and 331 at 100,000: about 3 KB a file over a 56 MiB start), plus the page
cache a cold build's writer may fill (64 MiB, ``COLD_CACHE_KIB``: added after those figures were
measured, counted whole); a worker grows with the largest file it parses, not with the workspace
(58 MiB with a 130 KB file, 62 with 190 KB, 69 with 335 KB, 108 with 1 MiB; a daemon's kept
worker 64 with 190 KB: 54 MiB and 58 bytes a byte). A server holds more once it answers under load
(the daemon's peak, 626 MiB at 100,000 files, less the build's 331: 3 KB a file). Every worker
is counted at its largest file at the same moment as the building process at its peak, so the
estimate is an upper bound: the largest sums of the whole tree of processes measured were 153,
160, 177 and 226 MiB where it says 185, 209, 275 and 358 (21-58% over), and of a daemon that
built 8,000 files 195 MiB where ``serve`` says 234 (bench/memory.py). It refuses only a
workspace that would not fit; an estimate a little high costs nothing while the machine has room,
and ``MESH_MEMORY_CHECK=off`` is there for a user who knows better.

What is available is the smaller of ``MemAvailable`` (``/proc/meminfo``) and the room a memory
cgroup leaves (v2 ``memory.max`` less ``memory.current``; v1 ``memory.limit_in_bytes`` less
``memory.usage_in_bytes``; the page cache the cgroup may drop, ``inactive_file``, counted as
room). What this process holds already (``VmRSS``) is out of both and part of the need, so it is
taken off the need: a server re-scanning a workspace it already holds is not refused for the
memory it has. A machine that says none of this (no ``/proc``, another OS) is never refused.
``MESH_MEMORY_CHECK=off`` (also ``0``, ``no``, ``false``) skips the check.

The files are read through ``read`` (a path to its text, None when absent), so tests fake a small
machine without touching the real ``/proc`` (or replace :func:`read_text`, which every reader
here looks up when it runs).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from typing import Final

import attrs

from ..store._store import COLD_CACHE_KIB, IndexUnavailable, _human

__all__ = [
    "MemoryShort", "Room", "available", "build_need", "check_memory", "held", "serve_need", "switched_off",
    "worker_need",
]

log = logging.getLogger("mesh.index")

MIB: Final = 1 << 20
#: The variable that turns the check off (``off``, ``0``, ``no`` or ``false``).
CHECK_VARIABLE: Final = "MESH_MEMORY_CHECK"
_OFF: Final = frozenset({"off", "0", "no", "false"})

# The model, in bytes (see the module's docstring for where the numbers come from).
#: The building process's fixed part: the interpreter, the extractors, SQLite.
BUILD_BASE: Final = 56 * MIB
#: The page cache a cold build's writer may fill on top of that (``Writer.cold_load``).
BUILD_COLD_CACHE: Final = COLD_CACHE_KIB * 1024
#: The walk's entries, the known files and the resolver's tables, per file of the workspace.
BUILD_PER_FILE: Final = 3 * 1024
#: One parse worker: an interpreter with every grammar loaded...
WORKER_BASE: Final = 54 * MIB
#: ... and the trees and facts of the largest file it parses, per byte of that file.
WORKER_PER_BYTE: Final = 58
#: A serving daemon beyond its build, per file: what it holds between calls and answers under load.
SERVE_PER_FILE: Final = 3 * 1024 + 200
#: cgroup limits from here up mean "no limit" (v1 writes 2^63 rounded down to a page).
_NO_LIMIT: Final = 1 << 60


def worker_need(largest: int) -> int:
    """About the most memory (bytes) one parse worker takes when the largest file it may parse
    is ``largest`` bytes."""
    return WORKER_BASE + WORKER_PER_BYTE * largest


def build_need(files: int, *, workers: int, largest: int) -> int:
    """About the most memory (bytes) a cold build of ``files`` files, the largest of ``largest``
    bytes, with ``workers`` parse workers takes: the building process and its workers together,
    each worker counted at its largest file."""
    return BUILD_BASE + BUILD_COLD_CACHE + BUILD_PER_FILE * files + max(1, workers) * worker_need(largest)


def serve_need(files: int, *, workers: int, largest: int) -> int:
    """About the most memory (bytes) a server takes that builds the index of ``files`` files, then
    answers tools on it under load."""
    return build_need(files, workers=workers, largest=largest) + SERVE_PER_FILE * files


@attrs.frozen
class Room:
    """How much memory the machine has left, and what said so."""

    bytes: int
    #: ``MemAvailable`` or the cgroup's limit, for the message.
    source: str


class MemoryShort(IndexUnavailable):
    """The machine has less memory left than a build of the workspace takes: said before any file
    is parsed, with both numbers (INV-INDEX-9)."""

    def __init__(self, *, files: int, largest: int, need_bytes: int, room: Room, held_bytes: int = 0) -> None:
        self.files = files
        self.largest = largest
        self.need_bytes = need_bytes
        self.available_bytes = room.bytes
        self.source = room.source
        self.held_bytes = held_bytes
        held = f", of which this process holds {_human(held_bytes)} already" if held_bytes else ""
        super().__init__(
            f"this machine has too little memory to index this workspace: a build of its {files:,} files (the"
            f" largest {_human(largest)}) needs"
            f" about {_human(need_bytes)}{held}, and {_human(room.bytes)} is available ({room.source}); free"
            f" memory, leave folders out ([index] ignore in mesh.toml), or set {CHECK_VARIABLE}=off to try anyway"
        )


def read_text(path: str) -> str | None:
    """The text of a small file of ``/proc`` or ``/sys``; None when it cannot be read."""
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _fields(text: str | None) -> dict[str, int]:
    """``key: value [kB]`` or ``key value`` lines as bytes (``kB`` values times 1024)."""
    found: dict[str, int] = {}
    for line in (text or "").splitlines():
        parts = line.replace(":", " ").split()
        if len(parts) < 2 or not parts[1].isdigit():
            continue
        found[parts[0]] = int(parts[1]) * (1024 if parts[2:3] == ["kB"] else 1)
    return found


def _number(text: str | None) -> int | None:
    word = (text or "").strip()
    return int(word) if word.isdigit() else None


def _cgroup_room(read: Callable[[str], str | None]) -> Room | None:
    """What a memory cgroup leaves: its limit less its usage (the page cache it may drop counted as
    room); None without a limit."""
    for limit_file, usage_file, stat_file, cache_key, name in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current", "/sys/fs/cgroup/memory.stat",
         "inactive_file", "the cgroup's memory.max"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes",
         "/sys/fs/cgroup/memory/memory.stat", "total_inactive_file", "the cgroup's memory.limit_in_bytes"),
    ):  # fmt: skip
        limit = _number(read(limit_file))  # v2 says "max" for no limit
        if limit is None or limit >= _NO_LIMIT:
            continue
        usage = _number(read(usage_file))
        if usage is None:
            continue
        cache = _fields(read(stat_file)).get(cache_key, 0)
        return Room(max(0, limit - max(0, usage - cache)), name)
    return None


def available(read: Callable[[str], str | None] | None = None) -> Room | None:
    """The memory the machine has left: the smaller of ``MemAvailable`` and a cgroup's room;
    None when neither is known."""
    read = read or read_text
    rooms = []
    meminfo = _fields(read("/proc/meminfo"))
    if "MemAvailable" in meminfo:
        rooms.append(Room(meminfo["MemAvailable"], "MemAvailable"))
    cgroup = _cgroup_room(read)
    if cgroup is not None:
        rooms.append(cgroup)
    return min(rooms, key=lambda room: room.bytes, default=None)


def held(read: Callable[[str], str | None] | None = None, pid: int | str = "self") -> int:
    """What a process (this one by default) holds already (``VmRSS``), 0 when unknown."""
    read = read or read_text
    return _fields(read(f"/proc/{pid}/status")).get("VmRSS", 0)


def switched_off(environ: Mapping[str, str]) -> bool:
    """``MESH_MEMORY_CHECK`` says to try anyway."""
    return environ.get(CHECK_VARIABLE, "").strip().lower() in _OFF


def check_memory(
    files: int,
    *,
    largest: int,
    workers: int | None,
    serving: bool,
    environ: Mapping[str, str] | None = None,
    read: Callable[[str], str | None] | None = None,
) -> None:
    """Raise :class:`MemoryShort` when a build of ``files`` files, the largest ``largest`` bytes
    (``serving``: then served), needs
    more memory than the machine has left; nothing when it fits, when the machine does not say, or
    when ``MESH_MEMORY_CHECK`` is ``off``."""
    environ = os.environ if environ is None else environ
    if switched_off(environ):
        return
    room = available(read)
    if room is None:
        return  # another OS, no /proc: no check rather than a false refusal
    count = max(1, workers or os.cpu_count() or 1)
    need = (serve_need if serving else build_need)(files, workers=count, largest=largest)
    holding = held(read)
    if need - holding > room.bytes:
        raise MemoryShort(files=files, largest=largest, need_bytes=need, room=room, held_bytes=holding)
    log.debug("memory: %s needed for %d files, %s held, %s available (%s)", _human(need), files,
              _human(holding), _human(room.bytes), room.source)  # fmt: skip
