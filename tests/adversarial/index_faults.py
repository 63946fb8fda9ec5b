"""Faults for an index's files, drawn from a seed: damaged bytes, damaged pages, a disk that fills.

Every draw comes from one ``random.Random(seed)`` through ``prng.random()``, so a seed names the
same damage on every supported Python. Pages are counted from 1 as SQLite counts them; page 1
(the file header and the root of the schema) is left alone unless asked, as damage there is the
"not a database" case the index has always set aside.
"""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "PAGE",
    "checkpoint",
    "damage_page",
    "flip_bytes",
    "many_dependents",
    "overwrite",
    "root_page",
    "small_disk",
]

#: The page size of an index (SQLite's default).
PAGE = 4096


def flip_bytes(path: Path, seed: int, count: int = 8, *, skip: int = PAGE) -> list[int]:
    """Flip ``count`` bytes of ``path`` in place (each XORed with a non-zero mask) at offsets drawn
    past its first ``skip`` bytes; the file keeps its size. Returns the offsets, in draw order."""
    prng = random.Random(seed)
    offsets = []
    with open(path, "r+b") as handle:
        size = os.fstat(handle.fileno()).st_size
        assert size > skip, f"{path} holds only {size} bytes"
        for _ in range(count):
            offset = skip + int(prng.random() * (size - skip))
            mask = 1 + int(prng.random() * 255)
            handle.seek(offset)
            old = handle.read(1)[0]
            handle.seek(offset)
            handle.write(bytes([old ^ mask]))
            offsets.append(offset)
    return offsets


def overwrite(path: Path, needle: bytes, replacement: bytes, *, start: int = PAGE) -> int:
    """Replace every occurrence of ``needle`` past ``start`` by ``replacement`` (same length), in
    place; the number replaced."""
    assert len(needle) == len(replacement)
    data = bytearray(path.read_bytes())
    found = 0
    at = data.find(needle, start)
    while at >= 0:
        data[at : at + len(needle)] = replacement
        found += 1
        at = data.find(needle, at + len(needle))
    with open(path, "r+b") as handle:
        handle.write(data)
    return found


def root_page(path: Path, table: str) -> int:
    """The page number of ``table``'s root in the database at ``path``."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    finally:
        connection.close()
    assert row is not None and row[0] > 1, f"no table {table} in {path}"
    return int(row[0])


def damage_page(path: Path, page: int, seed: int = 0) -> None:
    """Overwrite page ``page`` (from 1) of ``path`` with seeded noise: its b-tree is then unreadable."""
    prng = random.Random(seed)
    with open(path, "r+b") as handle:
        handle.seek((page - 1) * PAGE)
        handle.write(bytes(int(prng.random() * 256) for _ in range(PAGE)))


def checkpoint(path: Path) -> None:
    """Copy every committed page of the WAL into the database file (so damage to the file reaches
    what readers read), with a connection of its own."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        busy, _, _ = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    finally:
        connection.close()
    assert busy == 0, f"the WAL of {path} could not be checkpointed"


def many_dependents(root: Path, services: int = 10, per_service: int = 30) -> int:
    """A workspace where ``services`` services of ``per_service`` Python files each import the
    service ``core``: ``dependents core`` is ``services * per_service`` files. Returns that number."""
    files = {
        "core/pyproject.toml": '[project]\nname = "core"\n',
        "core/core/__init__.py": "def f():\n    return 1\n",
        "README.md": "# Workspace\n\n## Services\n\nEvery service uses core.\n",
    }
    for s in range(services):
        files[f"svc{s}/pyproject.toml"] = f'[project]\nname = "svc{s}"\n'
        files[f"svc{s}/svc{s}/__init__.py"] = ""
        for j in range(per_service):
            files[f"svc{s}/svc{s}/m{j}.py"] = (
                f"from core import f\n\n\ndef g{j}():\n    return f() + {j}  # marker_{s}_{j}\n"
            )
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return services * per_service


@contextlib.contextmanager
def small_disk(folder: Path, size: str = "1m") -> Iterator[Path | None]:
    """A tmpfs of ``size`` mounted on ``folder`` (a disk that fills), unmounted after; None where
    mounting is not permitted (not root, no tmpfs): the caller skips."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(folder)],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        yield None
        return
    if done.returncode != 0:
        yield None
        return
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30)
