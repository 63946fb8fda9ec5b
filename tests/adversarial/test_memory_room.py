"""A workspace too large for the machine's memory says so before it is parsed (INV-INDEX-9).

The machine is faked: ``mesh.index.build._memory.read_text`` (the reader of ``/proc`` and
``/sys``) is replaced by a table of file texts, so no test depends on the real machine's memory.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from mesh.index import Index, IndexUnavailable
from mesh.index.build import _build, _memory
from mesh.index.build._live import LiveIndex, NotReady
from mesh.index.build._memory import (
    MIB, MemoryShort, Room, available, build_need, check_memory, serve_need, worker_need,
)
from mesh.tools import builtin_registry
from mesh.tools._builtin import not_ready_text

from .index_faults import many_dependents

WAIT_S = 60.0


def machine(
    available_mib: int | None,
    *,
    rss_mib: int = 40,
    cgroup_v2: tuple[str, int, int] | None = None,
    cgroup_v1: tuple[int, int, int] | None = None,
) -> Callable[[str], str | None]:
    """A reader of a faked machine: ``MemAvailable`` (None: no /proc/meminfo), this process's
    ``VmRSS``, and a cgroup v2 (``memory.max`` text, ``memory.current``, ``inactive_file``) or v1
    (limit, usage, ``total_inactive_file``), in MiB."""
    files: dict[str, str] = {}
    if available_mib is not None:
        files["/proc/meminfo"] = f"MemTotal: {64 << 20} kB\nMemFree: 1024 kB\nMemAvailable: {available_mib << 10} kB\n"
        files["/proc/self/status"] = f"Name:\tpython\nVmHWM:\t{rss_mib << 10} kB\nVmRSS:\t{rss_mib << 10} kB\n"
    if cgroup_v2 is not None:
        limit, current, inactive = cgroup_v2
        files["/sys/fs/cgroup/memory.max"] = limit + "\n"
        files["/sys/fs/cgroup/memory.current"] = f"{current * MIB}\n"
        files["/sys/fs/cgroup/memory.stat"] = f"anon 1\nfile 2\ninactive_file {inactive * MIB}\n"
    if cgroup_v1 is not None:
        limit_v1, usage, inactive = cgroup_v1
        files["/sys/fs/cgroup/memory/memory.limit_in_bytes"] = f"{limit_v1}\n"
        files["/sys/fs/cgroup/memory/memory.usage_in_bytes"] = f"{usage * MIB}\n"
        files["/sys/fs/cgroup/memory/memory.stat"] = f"cache 1\ntotal_inactive_file {inactive * MIB}\n"
    return files.get


def small(monkeypatch: pytest.MonkeyPatch, reader: Callable[[str], str | None]) -> None:
    monkeypatch.setattr(_memory, "read_text", reader)
    monkeypatch.delenv(_memory.CHECK_VARIABLE, raising=False)


# -- what the machine has left -------------------------------------------------------------------


def test_available_is_memavailable_or_the_smaller_cgroup_room() -> None:
    assert available(machine(3000)) == Room(3000 * MIB, "MemAvailable")
    # v2: 1 GiB limit, 900 MiB used of which 300 MiB is page cache it may drop: 424 MiB of room
    assert available(machine(3000, cgroup_v2=("1073741824", 900, 300))) == Room(424 * MIB, "the cgroup's memory.max")
    assert available(machine(3000, cgroup_v2=("max", 900, 300))) == Room(3000 * MIB, "MemAvailable")
    # v1 without a limit writes 2^63 rounded down to a page: no limit
    assert available(machine(3000, cgroup_v1=(9223372036854771712, 900, 0))) == Room(3000 * MIB, "MemAvailable")
    v1 = Room(112 * MIB, "the cgroup's memory.limit_in_bytes")
    assert available(machine(3000, cgroup_v1=(512 * MIB, 600, 200))) == v1
    # a cgroup over its limit leaves nothing, not a negative room
    assert available(machine(3000, cgroup_v2=(str(100 * MIB), 150, 0))) == Room(0, "the cgroup's memory.max")


def test_the_model_is_over_every_peak_it_was_fitted_on() -> None:
    """The figures measured (docs/performance.md, "Memory"; bench/memory.py): the whole tree of
    processes of a cold build with two workers, and the building process alone, never over the
    estimate; a worker grows with the largest file, the build with the files."""
    kib = 1024
    measured = ((2000, 133162, 153), (8000, 193867, 160), (25_000, 343097, 177), (26611, 1048384, 226))
    for files, largest, tree_mib in measured:
        assert build_need(files, workers=2, largest=largest) >= tree_mib * MIB
    for files, main_mib in ((25_000, 116), (26611, 109), (100_000, 331)):  # the building process alone
        assert build_need(files, workers=2, largest=0) - 2 * worker_need(0) >= main_mib * MIB
    assert serve_need(100_000, workers=2, largest=342 * kib) >= 626 * MIB  # the daemon's peak under load
    assert serve_need(8000, workers=2, largest=193867) >= 195 * MIB  # a daemon and its kept workers (--daemon)
    assert worker_need(193867) >= 64 * MIB  # a daemon's kept worker
    assert worker_need(1048384) >= 108 * MIB and worker_need(343097) >= 69 * MIB and worker_need(133162) >= 58 * MIB
    assert build_need(1000, workers=4, largest=kib) - build_need(1000, workers=2, largest=kib) == 2 * worker_need(kib)
    assert build_need(2000, workers=2, largest=kib) > build_need(1000, workers=2, largest=kib)
    assert serve_need(10, workers=1, largest=kib) > build_need(10, workers=1, largest=kib)


# -- the build ------------------------------------------------------------------------------------


def test_a_small_machine_refuses_the_build_before_any_file_is_parsed_and_writes_nothing_INV_INDEX_9(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-INDEX-9: a faked machine with less memory left than the estimate: the refresh raises
    MemoryShort (an IndexUnavailable) naming the files, the need and what is available, before any
    file is read or parsed; the index stays as it was (nothing written); with room it builds."""
    root = tmp_path / "ws"
    many_dependents(root, services=2, per_service=20)  # more than INLINE_MAX: worker processes
    sizes = [path.stat().st_size for path in root.rglob("*") if path.is_file()]
    files, largest = len(sizes), max(sizes)
    need = build_need(files, workers=1, largest=largest)
    small(monkeypatch, machine(need // MIB - 60, rss_mib=40))  # 20 MiB short, counting what is held
    parsed: list[str] = []

    def no_parse(*_args: object, **_kwargs: object) -> None:
        parsed.append("parse")
        raise AssertionError("a file was parsed")

    monkeypatch.setattr(_build, "run_inline", no_parse)
    monkeypatch.setattr(_build.ParsePool, "run", no_parse)
    phases: list[str] = []
    index = Index(root, tmp_path / "cache", workers=1)
    try:
        before = index.store.generation()
        with pytest.raises(IndexUnavailable) as caught:
            index.refresh(progress=lambda progress: phases.append(progress.phase))
        short = caught.value
        assert isinstance(short, MemoryShort)
        message = str(short)
        assert message.startswith("this machine has too little memory to index this workspace"), message
        assert f"its {files} files (the largest {largest} bytes) needs about {need / MIB:.1f} MB" in message, message
        assert f"{(need // MIB - 60):.1f} MB is available (MemAvailable)" in message, message
        assert "MESH_MEMORY_CHECK=off" in message and "[index] ignore" in message
        assert (short.files, short.largest, short.need_bytes) == (files, largest, need)
        assert short.available_bytes == (need // MIB - 60) * MIB
        assert parsed == [] and phases == ["walking"]
        assert index.store.generation() == before
        with index.store.snapshot() as db:
            assert db.execute("SELECT count(*) FROM files").fetchone()[0] == 0
            assert db.execute("SELECT count(*) FROM content").fetchone()[0] == 0
    finally:
        index.close()
    assert not (tmp_path / "cache" / "index.db.damaged").exists()


def test_a_machine_that_does_not_say_never_refuses_INV_INDEX_9(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """INV-INDEX-9: no /proc/meminfo and no cgroup (another OS): no check, the build goes on."""
    root = tmp_path / "ws"
    many_dependents(root, services=1, per_service=5)
    small(monkeypatch, machine(None))
    assert available() is None
    check_memory(10**9, largest=1 << 20, workers=64, serving=True)  # a billion files: unknown is not short
    index = Index(root, tmp_path / "cache", workers=1)
    try:
        assert index.refresh().files > 5
    finally:
        index.close()


def test_the_override_and_what_the_process_holds_already_INV_INDEX_9(monkeypatch: pytest.MonkeyPatch) -> None:
    """INV-INDEX-9: MESH_MEMORY_CHECK=off tries anyway; what this process holds already (VmRSS, a
    server re-scanning the workspace it serves) counts as room."""
    need = serve_need(50_000, workers=2, largest=100_000)
    small(monkeypatch, machine(need // MIB - 100, rss_mib=40))
    with pytest.raises(MemoryShort):
        check_memory(50_000, largest=100_000, workers=2, serving=True)
    check_memory(50_000, largest=100_000, workers=2, serving=True, environ={"MESH_MEMORY_CHECK": "off"})
    check_memory(50_000, largest=100_000, workers=2, serving=False)  # the build alone fits: not the server's extra
    small(monkeypatch, machine(need // MIB - 100, rss_mib=150))  # it holds 150 MiB of the need already
    check_memory(50_000, largest=100_000, workers=2, serving=True)


def test_mesh_mcp_index_on_a_small_machine_exits_1_with_both_numbers_INV_INDEX_9(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-INDEX-9: ``mesh-mcp index`` says it on stderr and exits 1, no traceback, nothing built."""
    from mesh.commands.index import run_index

    root = tmp_path / "ws"
    many_dependents(root, services=1, per_service=5)
    monkeypatch.setenv("MESH_CACHE_DIR", str(tmp_path / "cache"))
    small(monkeypatch, machine(16))
    out, err = io.StringIO(), io.StringIO()
    assert run_index(root, as_json=False, workers=1, stdout=out, stderr=err) == 1
    assert out.getvalue() == ""
    said = err.getvalue().splitlines()[-1]
    assert said.startswith("mesh-mcp index: this machine has too little memory to index this workspace"), said
    assert "16.0 MB is available (MemAvailable)" in said and "needs about" in said


def test_a_server_on_a_small_machine_says_it_through_its_tools_INV_INDEX_9(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-INDEX-9: a server's first build refused for memory is its failure, as a full disk is:
    readers hear it (NotReady.failure) and every tool answers it with what to do."""
    root = tmp_path / "ws"
    many_dependents(root, services=1, per_service=5)
    small(monkeypatch, machine(16))
    live = LiveIndex(root, tmp_path / "cache", workers=1)
    live.start()
    try:
        assert live.wait_settled(WAIT_S)
        with pytest.raises(NotReady) as caught, live.snapshot():
            pass
        failure = caught.value.failure
        assert failure.startswith("this machine has too little memory to index this workspace"), failure
        text = not_ready_text(caught.value)
        assert text.startswith("The workspace index is not available: this machine has too little memory"), text
        assert "MESH_MEMORY_CHECK=off" in text and "16.0 MB is available" in text
        # a tool says it at once (no wait for a snapshot that will not come, no scan instead)
        output = builtin_registry(live, wait_s=5).call("smart_search", {"query": "core"}, None, workspace=root)
        assert output.is_error and output.text.startswith("The workspace index is not available: this machine has")
        assert "16.0 MB is available (MemAvailable)" in output.text, output.text
    finally:
        live.close()
