"""Text index candidates for ``smart_search``, built and queried side by side on one tree (docs/textindex.md).

    .venv/bin/python bench/textindex.py --tree /root/.pyenv/versions/3.11.7/lib/python3.11 \\
        --exclude site-packages --exclude __pycache__

Variants: (a) SQLite FTS5 trigram, ``detail=full``, content in the FTS table, queried with one phrase per required
string (and, for literals, ``LIKE``); (b) FTS5 trigram, contentless, ``detail=none``, over folded text, with the content
zlib-compressed per file in a plain table; (c) tantivy, 3-gram tokenizer, doc ids only ("basic"), over folded text,
with the same zlib content table; (d) no index: scan the zlib content. Every candidate file is verified with ``re``
line by line (a literal by ``str``-level search, a regex on each line), so all variants must report the same
(file, line) list: the parent asserts it.

Theory of operation
-------------------
The parent walks the tree once (text files only: no NUL byte, checked in the first 8 KiB and then in the whole file
since SQLite's FTS5 reads a text up to its first NUL; at most 1 MiB), numbers the files, writes the list, and reads
every file once so that the page cache is warm for every variant alike. It then starts one worker process per variant
(each peak RSS is that variant's own) and drives them over stdin/stdout, one JSON object a line. Builds run one at a
time, so each has the machine. Queries run round-robin: every repetition of a query visits every variant in turn, in
a rotating order, so the noise of a shared machine falls on all of them alike; a warm-up round comes first; a cell
stops after ``--reps`` repetitions, or earlier once it has ``--min-reps`` and has used ``--budget-s`` (full scans
of the large tree), and reports how many it ran. Last, each worker applies single-file edits (delete, insert,
commit; tantivy also reloads its reader) and checks that the edit is found. Results go to ``bench/results/``
(git-ignored) as JSON, and a summary table is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import heapq
import importlib.metadata
import itertools
import json
import os
import platform
import queue
import re
import resource
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mesh.index.store._trigrams import Query, fold, plan, plan_literal

RESULTS = Path(__file__).resolve().parent / "results"
MAX_FILE_BYTES = 1 << 20
BINARY_PROBE_BYTES = 8192
ZLIB_LEVEL = 6
COMMIT_EVERY_FILES = 2000
BATCH_FILES = 64
TANTIVY_HEAP_BYTES = 128 << 20
TANTIVY_THREADS = 2

LABELS = {
    "a": "FTS5 trigram detail=full, content in FTS (MATCH phrases)",
    "a-like": "the same table, literal as LIKE '%...%'",
    "b-disk": "(b)'s index, candidates verified by reading the files themselves",
    "d-disk": "no index: scan the files themselves",
    "b": "FTS5 trigram contentless detail=none + zlib content table",
    "b2": "(b) in two shard files built by two threads",
    "c": "tantivy 3-gram (basic) + zlib content table",
    "d": "no index: scan zlib content table",
}

#: (name, pattern, literal, ignore_case)
QUERIES: list[tuple[str, str, bool, bool]] = [
    ("rare identifier", "PyCF_ONLY_AST", True, False),
    ("common word", "return", True, False),
    ("3 chars", "pid", True, False),
    ("2 chars", "os", True, False),
    ("spaces+punctuation", 'if __name__ == "__main__":', True, False),
    ("ci literal", "deprecationwarning", True, True),
    ("ci literal utf-8", "UTF-8", True, True),
    ("regex handler", r"def \w+_handler\(", False, False),
    ("regex Error class", r"class \w+Error", False, False),
    ("regex import line", r"^import (os|sys)$", False, False),
    ("ci regex alternation", r"\b(todo|fixme|xxx)\b", False, True),
    ("regex .* (no literal)", r".*", False, False),
]
LIMITS = (None, 100)


# ---------------------------------------------------------------------------------------------------------------------
# The tree


def walk_tree(root: Path, excludes: set[str]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The text files under ``root`` in a stable order, and counts of what was skipped."""
    files: list[dict[str, Any]] = []
    skipped = {"binary_head": 0, "binary_nul_later": 0, "too_large": 0, "unreadable": 0}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in excludes)
        for name in sorted(filenames):
            path = Path(dirpath, name)
            if path.is_symlink() or not path.is_file():
                continue
            try:
                size = path.stat().st_size
                if size > MAX_FILE_BYTES:
                    skipped["too_large"] += 1
                    continue
                data = path.read_bytes()
            except OSError:
                skipped["unreadable"] += 1
                continue
            if b"\0" in data[:BINARY_PROBE_BYTES]:
                skipped["binary_head"] += 1
            elif b"\0" in data:
                skipped["binary_nul_later"] += 1
            else:
                files.append(
                    {"id": len(files) + 1, "path": str(path.relative_to(root)), "abs": str(path), "size": size}
                )
    return files, skipped


def read_text(path: str) -> str:
    return Path(path).read_bytes().decode("utf-8", errors="replace")


def produce(
    files: list[dict[str, Any]], *, folded: bool, compressed: bool
) -> Iterator[list[tuple[int, str, str, str | None, bytes | None]]]:
    """Batches of (id, path, text, folded text, zlib bytes), prepared on a second thread (zlib and I/O drop the GIL)."""
    out: queue.Queue[list[Any] | None | Exception] = queue.Queue(maxsize=8)

    def work() -> None:
        try:
            for start in range(0, len(files), BATCH_FILES):
                batch = []
                for f in files[start : start + BATCH_FILES]:
                    raw = Path(f["abs"]).read_bytes()
                    text = raw.decode("utf-8", errors="replace")
                    z = zlib.compress(text.encode(), ZLIB_LEVEL) if compressed else None
                    batch.append((f["id"], f["path"], text, fold(text) if folded else None, z))
                out.put(batch)
            out.put(None)
        except Exception as exc:  # noqa: BLE001 - re-raised by the consumer
            out.put(exc)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    while (item := out.get()) is not None:
        if isinstance(item, Exception):
            raise item
        yield item
    thread.join()


# ---------------------------------------------------------------------------------------------------------------------
# Verification: the same for every variant


def literal_lines(text: str, needle: str, ignore_case: bool) -> list[int]:
    """1-based numbers of the lines holding ``needle``: ``str.find`` over the text (folded when ignoring case).

    Same answer as ``re.search(re.escape(needle), line, flags)`` line by line: a literal holds no newline, and a
    case-insensitive ``re`` literal matches exactly where the folded needle is in the folded text.
    """
    if ignore_case:
        text, needle = fold(text), fold(needle)
    if not needle:
        return list(range(1, text.count("\n") + 2))
    lines: list[int] = []
    line, last = 1, 0
    pos = text.find(needle)
    while pos >= 0:
        line += text.count("\n", last, pos)
        last = pos
        lines.append(line)
        end = text.find("\n", pos)
        if end < 0:
            break
        pos = text.find(needle, end + 1)
    return lines


def regex_lines(text: str, rx: re.Pattern[str], needles: tuple[str, ...] | None) -> list[int]:
    """1-based numbers of the lines (split on ``\\n``) where ``rx.search(line)`` matches.

    With needles (``Query.needles``: every matching line holds one, folded), only the lines holding a needle are
    given to ``re``; without, every line is.
    """
    if needles is None:
        return list(itertools.compress(itertools.count(1), map(rx.search, text.split("\n"))))
    folded = fold(text)
    starts: set[int] = set()
    for needle in needles:
        pos = folded.find(needle)
        while pos >= 0:
            starts.add(folded.rfind("\n", 0, pos) + 1)
            end = folded.find("\n", pos)
            if end < 0:
                break
            pos = folded.find(needle, end + 1)
    lines: list[int] = []
    line, last = 1, 0
    for start in sorted(starts):
        line += text.count("\n", last, start)
        last = start
        end = text.find("\n", start)
        # A slice, not search(text, pos, endpos): "^", "\\A" and look-behinds must see the line alone.
        if rx.search(text[start : end if end >= 0 else None]):
            lines.append(line)
    return lines


# ---------------------------------------------------------------------------------------------------------------------
# Variants (inside a worker)


def connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA auto_vacuum = INCREMENTAL")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    return db


def sqlite_sizes(db: sqlite3.Connection, path: Path) -> dict[str, Any]:
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = db.execute("PRAGMA page_size").fetchone()[0]
    used = (db.execute("PRAGMA page_count").fetchone()[0] - db.execute("PRAGMA freelist_count").fetchone()[0]) * page
    by_table: dict[str, int] = {}
    for name, size in db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
        key = "fts" if name.startswith("text_fts") else "files"
        by_table[key] = by_table.get(key, 0) + size
    wal = path.with_name(path.name + "-wal")
    return {
        "file_bytes": path.stat().st_size + (wal.stat().st_size if wal.exists() else 0),
        "used_bytes": used,
        "fts_bytes": by_table.get("fts", 0),
        "content_bytes": by_table.get("files", 0),
    }


def cold_build_settings(db: sqlite3.Connection) -> None:
    """No merging while the cold build inserts (one 'optimize' at the end), and a small pending-terms buffer.

    Both measured faster than FTS5's defaults (automerge=4, hashsize=1 MiB) on this machine; the build restores
    automerge=4 for the edits that follow.
    """
    db.execute("INSERT INTO text_fts(text_fts, rank) VALUES ('automerge', 0)")
    db.execute("INSERT INTO text_fts(text_fts, rank) VALUES ('hashsize', ?)", (256 << 10,))


def probe_sqlite() -> dict[str, Any]:
    """What this SQLite offers: FTS5, trigram, LIKE/GLOB through the trigram index, phrases under detail=none."""
    out: dict[str, Any] = {"version": sqlite3.sqlite_version}
    db = sqlite3.connect(":memory:")
    out["fts5"] = any("FTS5" in o for (o,) in db.execute("PRAGMA compile_options"))

    def attempt(sql: str, *params: Any) -> Any:
        try:
            return [row[0] for row in db.execute(sql, params)]
        except sqlite3.Error as exc:
            return f"error: {exc}"

    def query_plan(sql: str) -> str:
        """How SQLite runs ``sql``: "INDEX 0:L0" / "G0" means the LIKE / GLOB went to FTS5, "INDEX 0:" a scan."""
        return " / ".join(row[3] for row in db.execute("EXPLAIN QUERY PLAN " + sql))

    for detail in ("full", "none"):
        for case_sensitive in (0, 1):
            t = f"t_{detail}_{case_sensitive}"
            created = attempt(
                f"CREATE VIRTUAL TABLE {t} USING fts5(body, tokenize='trigram case_sensitive {case_sensitive}', "
                f"detail={detail})"
            )
            if isinstance(created, str):
                out[t] = created
                continue
            db.executemany(f"INSERT INTO {t}(rowid, body) VALUES (?, ?)", [(1, "import os"), (2, "Import sys")])
            out[t] = {
                "like plan": query_plan(f"SELECT rowid FROM {t} WHERE body LIKE '%port o%'"),
                "glob plan": query_plan(f"SELECT rowid FROM {t} WHERE body GLOB '*port o*'"),
                "like '%port o%'": attempt(f"SELECT rowid FROM {t} WHERE body LIKE '%port o%'"),
                "like '%os%' (2 chars)": attempt(f"SELECT rowid FROM {t} WHERE body LIKE '%os%'"),
                "match phrase 'port o'": attempt(f"SELECT rowid FROM {t} WHERE {t} MATCH ?", '"port o"'),
                "match 'ort' (1 trigram)": attempt(f"SELECT rowid FROM {t} WHERE {t} MATCH ?", '"ort"'),
                "match 'os' (2 chars)": attempt(f"SELECT rowid FROM {t} WHERE {t} MATCH ?", '"os"'),
            }
    db.execute("CREATE VIRTUAL TABLE t_contentless USING fts5(body, tokenize='trigram', detail=none, content='')")
    db.execute("INSERT INTO t_contentless(rowid, body) VALUES (1, 'import os')")
    out["contentless like '%port o%'"] = attempt("SELECT rowid FROM t_contentless WHERE body LIKE '%port o%'")
    out["contentless match trigrams AND"] = attempt(
        "SELECT rowid FROM t_contentless WHERE t_contentless MATCH ?", '"por" AND "ort" AND "rt " AND "t o"'
    )
    return out


class ContentStore:
    """The plain table of paths and zlib-compressed content (variants b, c, d)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        db.execute("CREATE TABLE IF NOT EXISTS files(id INTEGER PRIMARY KEY, path TEXT NOT NULL, z BLOB NOT NULL)")

    def add(self, batch: list[tuple[int, str, str, str | None, bytes | None]]) -> None:
        self.db.executemany("INSERT INTO files(id, path, z) VALUES (?, ?, ?)", [(i, p, z) for i, p, _, _, z in batch])

    def all(self) -> Iterator[tuple[int, str]]:
        for fid, z in self.db.execute("SELECT id, z FROM files ORDER BY id"):
            yield fid, zlib.decompress(z).decode()

    def some(self, ids: list[int], chunk: int = 256) -> Iterator[tuple[int, str]]:
        for start in range(0, len(ids), chunk):
            part = ids[start : start + chunk]
            marks = ",".join("?" * len(part))
            for fid, z in self.db.execute(f"SELECT id, z FROM files WHERE id IN ({marks}) ORDER BY id", part):
                yield fid, zlib.decompress(z).decode()

    def text(self, fid: int) -> str:
        return zlib.decompress(self.db.execute("SELECT z FROM files WHERE id = ?", (fid,)).fetchone()[0]).decode()

    def replace(self, fid: int, text: str) -> None:
        self.db.execute("UPDATE files SET z = ? WHERE id = ?", (zlib.compress(text.encode(), ZLIB_LEVEL), fid))


class Variant:
    name = "?"

    def __init__(self, workdir: Path, paths: dict[int, str] | None = None) -> None:
        self.workdir = workdir
        #: Absolute path by file id: the "disk" engine verifies the files themselves instead of stored content.
        self.paths = paths or {}

    def from_disk(self, ids: Iterator[int]) -> Iterator[tuple[int, str]]:
        for fid in ids:
            yield fid, read_text(self.paths[fid])

    def build(self, files: list[dict[str, Any]]) -> dict[str, Any]:
        raise NotImplementedError

    def candidates(self, q: Query, literal: str | None, engine: str) -> Iterator[tuple[int, str]]:
        raise NotImplementedError

    def update(self, fid: int, text: str) -> None:
        raise NotImplementedError

    def text(self, fid: int) -> str:
        raise NotImplementedError

    def sizes(self) -> dict[str, Any]:
        raise NotImplementedError


class FtsFull(Variant):
    """(a) FTS5 trigram, detail=full, original content stored in the FTS table, FTS5's own case folding."""

    name = "a"

    def build(self, files: list[dict[str, Any]]) -> dict[str, Any]:
        self.path = self.workdir / "a.sqlite"
        db = self.db = connect(self.path)
        db.execute("CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL)")
        db.execute("CREATE VIRTUAL TABLE text_fts USING fts5(body, tokenize='trigram', detail=full)")
        cold_build_settings(db)
        t_insert = timed_inserts(db, files, folded=False, compressed=False, insert=self._insert)
        t0 = time.perf_counter()
        db.execute("INSERT INTO text_fts(text_fts) VALUES ('optimize')")
        db.execute("INSERT INTO text_fts(text_fts, rank) VALUES ('automerge', 4)")
        db.execute("PRAGMA incremental_vacuum").fetchall()
        return {"insert_s": t_insert, "finish_s": time.perf_counter() - t0}

    def _insert(self, batch: list[tuple[int, str, str, str | None, bytes | None]]) -> None:
        self.db.executemany("INSERT INTO files(id, path) VALUES (?, ?)", [(i, p) for i, p, *_ in batch])
        self.db.executemany("INSERT INTO text_fts(rowid, body) VALUES (?, ?)", [(i, t) for i, _, t, *_ in batch])

    def candidates(self, q: Query, literal: str | None, engine: str) -> Iterator[tuple[int, str]]:
        if engine == "like":
            # No ESCAPE clause: FTS5 only takes a plain two-argument LIKE to its trigrams. A literal "_" then
            # matches any character: more candidates, which the line check removes.
            assert literal is not None and "%" not in literal
            yield from self.db.execute(
                "SELECT rowid, body FROM text_fts WHERE body LIKE ? ORDER BY rowid", (f"%{literal}%",)
            )
            return
        if q.op == "all":
            yield from self.db.execute("SELECT rowid, body FROM text_fts ORDER BY rowid")
            return
        expression = q.fts5(phrases=True)
        yield from self.db.execute(
            "SELECT rowid, body FROM text_fts WHERE text_fts MATCH ? ORDER BY rowid", (expression,)
        )

    def update(self, fid: int, text: str) -> None:
        self.db.execute("BEGIN")
        self.db.execute("DELETE FROM text_fts WHERE rowid = ?", (fid,))
        self.db.execute("INSERT INTO text_fts(rowid, body) VALUES (?, ?)", (fid, text))
        self.db.execute("COMMIT")

    def text(self, fid: int) -> str:
        return self.db.execute("SELECT body FROM text_fts WHERE rowid = ?", (fid,)).fetchone()[0]

    def sizes(self) -> dict[str, Any]:
        return sqlite_sizes(self.db, self.path)


class FtsNone(Variant):
    """(b) FTS5 trigram, contentless, detail=none, over folded text; content zlib-compressed in ``files``."""

    name = "b"

    def build(self, files: list[dict[str, Any]]) -> dict[str, Any]:
        self.path = self.workdir / f"{self.name}.sqlite"
        db = self.db = connect(self.path)
        self.store = ContentStore(db)
        db.execute(
            "CREATE VIRTUAL TABLE text_fts USING fts5(body, tokenize='trigram case_sensitive 1', detail=none, content='')"
        )
        cold_build_settings(db)
        t_insert = timed_inserts(db, files, folded=True, compressed=True, insert=self._insert)
        t0 = time.perf_counter()
        db.execute("INSERT INTO text_fts(text_fts) VALUES ('optimize')")
        db.execute("INSERT INTO text_fts(text_fts, rank) VALUES ('automerge', 4)")
        db.execute("PRAGMA incremental_vacuum").fetchall()
        return {"insert_s": t_insert, "finish_s": time.perf_counter() - t0}

    def _insert(self, batch: list[tuple[int, str, str, str | None, bytes | None]]) -> None:
        self.store.add(batch)
        self.db.executemany("INSERT INTO text_fts(rowid, body) VALUES (?, ?)", [(i, f) for i, _, _, f, _ in batch])

    def candidates(self, q: Query, literal: str | None, engine: str) -> Iterator[tuple[int, str]]:
        if engine == "disk":
            if q.op == "all":
                yield from self.from_disk(iter(sorted(self.paths)))
            else:
                sql = "SELECT rowid FROM text_fts WHERE text_fts MATCH ? ORDER BY rowid"
                yield from self.from_disk(fid for (fid,) in self.db.execute(sql, (q.fts5(phrases=False),)))
            return
        if q.op == "all":
            yield from self.store.all()
            return
        rows = self.db.execute(
            "SELECT id, z FROM files WHERE id IN (SELECT rowid FROM text_fts WHERE text_fts MATCH ?) ORDER BY id",
            (q.fts5(phrases=False),),
        )
        for fid, z in rows:
            yield fid, zlib.decompress(z).decode()

    def update(self, fid: int, text: str) -> None:
        old = self.store.text(fid)
        self.db.execute("BEGIN")
        # Contentless (SQLite < 3.43 has no contentless_delete): a delete names the tokens it removes.
        self.db.execute("INSERT INTO text_fts(text_fts, rowid, body) VALUES ('delete', ?, ?)", (fid, fold(old)))
        self.store.replace(fid, text)
        self.db.execute("INSERT INTO text_fts(rowid, body) VALUES (?, ?)", (fid, fold(text)))
        self.db.execute("COMMIT")

    def text(self, fid: int) -> str:
        return self.store.text(fid)

    def sizes(self) -> dict[str, Any]:
        return sqlite_sizes(self.db, self.path)


class FtsNoneShards(Variant):
    """(b2) variant (b) split in two SQLite files by file id, built by two threads at once (two cores)."""

    name = "b2"
    shards = 2

    def build(self, files: list[dict[str, Any]]) -> dict[str, Any]:
        self.parts = []
        for k in range(self.shards):
            part = FtsNone(self.workdir, self.paths)
            part.name = f"b2-{k}"
            self.parts.append(part)
        stats: list[dict[str, Any]] = [{} for _ in self.parts]

        def build_part(k: int) -> None:
            stats[k] = self.parts[k].build(files[k :: self.shards])

        threads = [threading.Thread(target=build_part, args=(k,)) for k in range(self.shards)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if not all(stats):
            raise RuntimeError("a shard failed to build: see the traceback above")
        return {"insert_s": max(st["insert_s"] for st in stats), "finish_s": max(st["finish_s"] for st in stats)}

    def part(self, fid: int) -> FtsNone:
        return self.parts[(fid - 1) % self.shards]  # ids are 1, 2, ... in the order files[k::shards] split

    def candidates(self, q: Query, literal: str | None, engine: str) -> Iterator[tuple[int, str]]:
        streams = [part.candidates(q, literal, engine) for part in self.parts]
        try:
            yield from heapq.merge(*streams, key=lambda item: item[0])
        finally:
            for stream in streams:
                stream.close()

    def update(self, fid: int, text: str) -> None:
        self.part(fid).update(fid, text)

    def text(self, fid: int) -> str:
        return self.part(fid).text(fid)

    def sizes(self) -> dict[str, Any]:
        total: dict[str, Any] = {}
        for part in self.parts:
            for key, value in part.sizes().items():
                total[key] = total.get(key, 0) + value
        return total


class Tantivy(Variant):
    """(c) tantivy, 3-gram tokenizer over folded text, doc ids only; content zlib-compressed in SQLite."""

    name = "c"

    def build(self, files: list[dict[str, Any]]) -> dict[str, Any]:
        import tantivy

        self.tv = tantivy
        self.path = self.workdir / "c.sqlite"
        self.dir = self.workdir / "c.tantivy"
        self.dir.mkdir()
        db = self.db = connect(self.path)
        self.store = ContentStore(db)
        builder = tantivy.SchemaBuilder()
        builder.add_integer_field("id", stored=False, indexed=True, fast=True)
        builder.add_text_field("body", stored=False, tokenizer_name="ngram3", index_option="basic")
        self.schema = builder.build()
        self.index = tantivy.Index(self.schema, path=str(self.dir))
        self.index.register_tokenizer(
            "ngram3", tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.ngram(3, 3, False)).build()
        )
        self.writer = self.index.writer(TANTIVY_HEAP_BYTES, TANTIVY_THREADS)
        t_insert = timed_inserts(db, files, folded=True, compressed=True, insert=self._insert)
        t0 = time.perf_counter()
        self.writer.commit()
        self.writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()
        finish = time.perf_counter() - t0
        self.writer = self.index.writer(15_000_000, 1)  # for the edits, after the build's timing
        return {"insert_s": t_insert, "finish_s": finish, "segments": self.searcher.num_segments}

    def _insert(self, batch: list[tuple[int, str, str, str | None, bytes | None]]) -> None:
        self.store.add(batch)
        for i, _, _, f, _ in batch:
            self.writer.add_document(self.tv.Document(id=i, body=f))

    def _query(self, q: Query) -> Any:
        tv = self.tv

        def term(g: str) -> Any:
            return tv.Query.term_query(self.schema, "body", g)

        def string(s: str) -> Any:
            grams = sorted({s[i : i + 3] for i in range(len(s) - 2)})
            return (
                term(grams[0]) if len(grams) == 1 else tv.Query.boolean_query([(tv.Occur.Must, term(g)) for g in grams])
            )

        if q.op == "and":
            grams = sorted({s[i : i + 3] for s in q.strings for i in range(len(s) - 2)})
            clauses = [(tv.Occur.Must, term(g)) for g in grams] + [(tv.Occur.Must, self._query(s)) for s in q.subs]
        else:
            clauses = [(tv.Occur.Should, string(s)) for s in q.strings]
            clauses += [(tv.Occur.Should, self._query(s)) for s in q.subs]
        return tv.Query.boolean_query(clauses)

    def candidates(self, q: Query, literal: str | None, engine: str) -> Iterator[tuple[int, str]]:
        if q.op == "all":
            yield from self.store.all()
            return
        found = self.searcher.search(
            self._query(q), limit=max(1, self.searcher.num_docs), count=False, order_by_field="id",
            order=self.tv.Order.Asc,
        )  # fmt: skip
        yield from self.store.some([fid for fid, _ in found.hits])

    def update(self, fid: int, text: str) -> None:
        self.db.execute("BEGIN")
        self.store.replace(fid, text)
        self.db.execute("COMMIT")
        self.writer.delete_documents_by_term("id", fid)
        self.writer.add_document(self.tv.Document(id=fid, body=fold(text)))
        self.writer.commit()
        self.index.reload()
        self.searcher = self.index.searcher()

    def text(self, fid: int) -> str:
        return self.store.text(fid)

    def sizes(self) -> dict[str, Any]:
        out = sqlite_sizes(self.db, self.path)
        tantivy_bytes = sum(p.stat().st_size for p in self.dir.rglob("*") if p.is_file())
        out["fts_bytes"] = tantivy_bytes  # the text index, here tantivy's directory
        out["file_bytes"] += tantivy_bytes
        out["used_bytes"] += tantivy_bytes
        return out


class Scan(Variant):
    """(d) no index: every query decompresses and checks every file."""

    name = "d"

    def build(self, files: list[dict[str, Any]]) -> dict[str, Any]:
        self.path = self.workdir / "d.sqlite"
        self.db = connect(self.path)
        self.store = ContentStore(self.db)
        return {"insert_s": timed_inserts(self.db, files, folded=False, compressed=True, insert=self.store.add)}

    def candidates(self, q: Query, literal: str | None, engine: str) -> Iterator[tuple[int, str]]:
        if engine == "disk":
            yield from self.from_disk(iter(sorted(self.paths)))
        else:
            yield from self.store.all()

    def update(self, fid: int, text: str) -> None:
        self.db.execute("BEGIN")
        self.store.replace(fid, text)
        self.db.execute("COMMIT")

    def text(self, fid: int) -> str:
        return self.store.text(fid)

    def sizes(self) -> dict[str, Any]:
        return sqlite_sizes(self.db, self.path)


VARIANTS: dict[str, type[Variant]] = {"a": FtsFull, "b": FtsNone, "b2": FtsNoneShards, "c": Tantivy, "d": Scan}


def timed_inserts(
    db: sqlite3.Connection, files: list[dict[str, Any]], *, folded: bool, compressed: bool,
    insert: Callable[[list[Any]], None],
) -> float:  # fmt: skip
    """Feed every file to ``insert`` in transactions of about COMMIT_EVERY_FILES files; seconds taken."""
    t0 = time.perf_counter()
    done = 0
    db.execute("BEGIN")
    for batch in produce(files, folded=folded, compressed=compressed):
        insert(batch)
        done += len(batch)
        if done % COMMIT_EVERY_FILES < BATCH_FILES:
            db.execute("COMMIT")
            db.execute("BEGIN")
    db.execute("COMMIT")
    return time.perf_counter() - t0


def search(variant: Variant, spec: dict[str, Any]) -> dict[str, Any]:
    """One smart_search: plan, candidates, line verification; (file id, line) hits in order, up to the limit.

    The hits are not kept: their count and a digest of the list are (all variants must agree on both).
    """
    t0 = time.perf_counter_ns()
    literal, ignore_case, limit = spec["literal"], spec["ignore_case"], spec["limit"]
    if literal:
        q = plan_literal(spec["pattern"])
    else:
        rx = re.compile(spec["pattern"], re.IGNORECASE if ignore_case else 0)
        q = plan(spec["pattern"], rx.flags)
        needles = q.needles()
    digest = hashlib.sha1()
    count = n_candidates = n_files = 0
    if q.op != "none":
        candidates = variant.candidates(q, spec["pattern"] if literal else None, spec.get("engine", "match"))
        with contextlib.closing(candidates):
            for fid, text in candidates:
                n_candidates += 1
                lines = literal_lines(text, spec["pattern"], ignore_case) if literal else regex_lines(text, rx, needles)
                if not lines:
                    continue
                if limit is not None:
                    lines = lines[: limit - count]
                n_files += 1
                count += len(lines)
                digest.update("".join(f"{fid}:{n}\n" for n in lines).encode())
                if limit is not None and count >= limit:
                    break
    elapsed_ms = (time.perf_counter_ns() - t0) / 1e6
    return {"ms": elapsed_ms, "count": count, "digest": digest.hexdigest()[:16], "candidates": n_candidates,
            "files": n_files, "plan": str(q)[:200]}  # fmt: skip


def peak_rss_kib() -> int:
    """This process's own peak RSS (VmHWM); ``ru_maxrss`` would inherit the parent's across fork and exec."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def worker(name: str, workdir: Path) -> None:
    """Serve the parent's commands on stdin, one JSON object a line, answering on stdout."""
    files = json.loads((workdir / "files.json").read_text())
    variant = VARIANTS[name](workdir, {f["id"]: f["abs"] for f in files})
    out = sys.stdout
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["cmd"] == "build":
            c0, t0 = time.process_time(), time.perf_counter()
            stats = variant.build(files)
            stats.update(wall_s=time.perf_counter() - t0, cpu_s=time.process_time() - c0)
            stats.update(variant.sizes())
            stats["rss_after_build_kib"] = peak_rss_kib()
            reply: dict[str, Any] = stats
        elif cmd["cmd"] == "query":
            reply = search(variant, cmd["spec"])
        elif cmd["cmd"] == "update":
            reply = edits(variant, files, cmd["n"])
        elif cmd["cmd"] == "exit":
            reply = {"peak_rss_kib": peak_rss_kib(), **variant.sizes()}
        else:
            raise ValueError(f"unknown command {cmd!r}")
        out.write(json.dumps(reply) + "\n")
        out.flush()
        if cmd["cmd"] == "exit":
            return


def edits(variant: Variant, files: list[dict[str, Any]], n: int) -> dict[str, Any]:
    """Edit ``n`` files spread over the tree, one commit each; each edit must then be found by a search."""
    step = max(1, len(files) // n)
    times = []
    for k, f in enumerate(files[::step][:n]):
        text = variant.text(f["id"]) + f"\n# textindex-edit-marker-{k:04d}\n"
        t0 = time.perf_counter_ns()
        variant.update(f["id"], text)
        times.append((time.perf_counter_ns() - t0) / 1e6)
        spec = {"pattern": f"textindex-edit-marker-{k:04d}", "literal": True, "ignore_case": False, "limit": None}
        found = search(variant, spec)
        assert found["count"] == 1 and found["files"] == 1, (variant.name, k, found)
    return {"ms": times, "p50_ms": statistics.median(times), "max_ms": max(times)}


# ---------------------------------------------------------------------------------------------------------------------
# The parent


class Worker:
    def __init__(self, name: str, workdir: Path, log: Path) -> None:
        self.name = name
        self.log = log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", name, "--workdir", str(workdir)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True, bufsize=1,
        )  # fmt: skip

    def call(self, **cmd: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"worker {self.name} died: see {self.log.name}")
        return json.loads(line)

    def close(self) -> dict[str, Any]:
        reply = self.call(cmd="exit")
        self.proc.wait(timeout=60)
        self.log.close()
        return reply


def machine_busy_s() -> float:
    """CPU seconds the whole machine has been busy (every CPU, every process), from /proc/stat (Linux)."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    except OSError:
        return float("nan")
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, help="the tree to index")
    parser.add_argument("--exclude", action="append", default=[], help="a folder name to skip at any depth")
    parser.add_argument("--variants", default="a,b,b2,c,d", help="the indexes to build")
    parser.add_argument(
        "--query",
        default="a,a:like,b,b:disk,c,d,d:disk",
        help="the columns to query: variant[:engine], engine like (a only) or disk (verify the files themselves)",
    )
    parser.add_argument("--workdir-root", type=Path, help="where the indexes are built (default: the temp folder)")
    parser.add_argument("--reps", type=int, default=20, help="timed repetitions per query and variant")
    parser.add_argument("--min-reps", type=int, default=3)
    parser.add_argument(
        "--budget-s", type=float, default=3.0, help="time per cell after which min-reps suffice (1 if slower)"
    )
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--out", type=Path, help="JSON results (default bench/results/textindex-<time>.json)")
    parser.add_argument("--markdown", type=Path, help="print the tables of a results file and stop")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.workdir)
        return
    if args.markdown:
        print(markdown(json.loads(args.markdown.read_text())))
        return
    if args.tree is None:
        parser.error("--tree is required")
    run(args)


def run(args: argparse.Namespace) -> None:
    started = time.strftime("%Y%m%d-%H%M%S")
    RESULTS.mkdir(exist_ok=True)
    out_path = args.out or RESULTS / f"textindex-{started}.json"
    names = args.variants.split(",")
    t_walk = time.perf_counter()
    files, skipped = walk_tree(args.tree.resolve(), set(args.exclude))
    source_bytes = sum(f["size"] for f in files)
    walk_s = time.perf_counter() - t_walk
    env = {
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "tantivy": importlib.metadata.version("tantivy"),
        "cpus": os.cpu_count(),
        "loadavg_start": os.getloadavg(),
    }
    tree = {
        "root": str(args.tree),
        "exclude": args.exclude,
        "files": len(files),
        "bytes": source_bytes,
        "skipped": skipped,
        "walk_and_read_s": walk_s,
    }
    report: dict[str, Any] = {
        "command": shlex.join([".venv/bin/python", "bench/textindex.py", *sys.argv[1:]]),
        "started": started,
        "env": env,
        "tree": tree,
        "builds": {},
        "queries": [],
        "edits": {},
        "final": {},
        "mismatches": [],
        "sqlite_probe": probe_sqlite(),
        "reps": args.reps,
    }
    print(f"tree {args.tree}: {len(files)} text files, {source_bytes / 1e6:.1f} MB; skipped {skipped}", flush=True)
    workdir = Path(tempfile.mkdtemp(prefix="textindex-", dir=args.workdir_root))
    try:
        (workdir / "files.json").write_text(json.dumps(files))
        workers: dict[str, Worker] = {}
        for name in names:  # one at a time: each build has the machine
            workers[name] = Worker(name, workdir, RESULTS / f"textindex-{started}-{name}.stderr")
            busy = machine_busy_s()
            stats = workers[name].call(cmd="build")
            # What the rest of the machine used meanwhile: the noise this build ran in.
            stats["others_cpu_s"] = machine_busy_s() - busy - stats["cpu_s"]
            stats["loadavg"] = os.getloadavg()[0]
            stats["files_per_s"] = len(files) / stats["wall_s"]
            stats["mb_per_s"] = source_bytes / 1e6 / stats["wall_s"]
            stats["ratio_used"] = stats["used_bytes"] / source_bytes
            report["builds"][name] = stats
            print(f"built {name}: {stats['wall_s']:.1f} s wall, {stats['cpu_s']:.1f} s cpu "
                  f"(others {stats['others_cpu_s']:.1f} s), "
                  f"{stats['files_per_s']:.0f} files/s, used {stats['ratio_used']:.3f}x source", flush=True)  # fmt: skip
        busy, t_queries = machine_busy_s(), time.perf_counter()
        columns = [(c.split(":")[0], c.split(":")[1] if ":" in c else "match") for c in args.query.split(",")]
        columns = [(n, e) for n, e in columns if n in names]
        for qname, pattern, literal, ignore_case in QUERIES if columns else ():
            for limit in LIMITS:
                spec = {"pattern": pattern, "literal": literal, "ignore_case": ignore_case, "limit": limit}
                cells = [(n, e) for n, e in columns if e != "like" or literal]
                report["queries"].append(measure(args, workers, cells, qname, spec, report["mismatches"]))
        report["query_phase"] = {"wall_s": time.perf_counter() - t_queries, "machine_busy_s": machine_busy_s() - busy}
        for name in names:
            report["edits"][name] = workers[name].call(cmd="update", n=args.edits)
            print(f"edits {name}: p50 {report['edits'][name]['p50_ms']:.1f} ms", flush=True)
        for name in names:
            report["final"][name] = workers[name].close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        report["env"]["loadavg_end"] = os.getloadavg()
        out_path.write_text(json.dumps(report, indent=1))
    print("\n" + markdown(report))
    print(f"\nresults: {out_path}")
    if report["mismatches"]:
        raise SystemExit(f"variants disagree on {len(report['mismatches'])} queries: {report['mismatches']}")


def measure(
    args: argparse.Namespace, workers: dict[str, Worker], cells: list[tuple[str, str]], qname: str,
    spec: dict[str, Any], mismatches: list[Any],
) -> dict[str, Any]:  # fmt: skip
    """Round-robin repetitions of one query over every variant; the agreement of all of them is checked."""
    samples: dict[str, list[float]] = {}
    first: dict[str, dict[str, Any]] = {}
    for name, engine in cells:  # warm-up, and the answers compared
        key = name if engine == "match" else f"{name}-{engine}"
        first[key] = workers[name].call(cmd="query", spec={**spec, "engine": engine})
        samples[key] = []
    answers = {(r["count"], r["digest"]) for r in first.values()}
    if len(answers) != 1:
        mismatches.append(
            {"query": qname, "limit": spec["limit"], "answers": {k: r["count"] for k, r in first.items()}}
        )
    # A cell whose single run outlasts the budget (a full scan of the large tree) is timed once more only.
    min_reps = {k: 1 if r["ms"] > args.budget_s * 1000 else args.min_reps for k, r in first.items()}
    for round_no in itertools.count():
        pending = [
            (name, engine) for name, engine in cells
            if len(s := samples[k := name if engine == "match" else f"{name}-{engine}"]) < args.reps
            and not (len(s) >= min_reps[k] and sum(s) > args.budget_s * 1000)
        ]  # fmt: skip
        if not pending:
            break
        shift = round_no % len(pending)
        for name, engine in pending[shift:] + pending[:shift]:
            key = name if engine == "match" else f"{name}-{engine}"
            samples[key].append(workers[name].call(cmd="query", spec={**spec, "engine": engine})["ms"])
    result = {"query": qname, **spec, "cells": {}}
    for key, s in samples.items():
        result["cells"][key] = {"n": len(s), "p50_ms": statistics.median(s), "p99_ms": percentile(s, 0.99),
                                "count": first[key]["count"], "files": first[key]["files"],
                                "candidates": first[key]["candidates"], "plan": first[key]["plan"]}  # fmt: skip
    line = "  ".join(f"{k} {c['p50_ms']:.1f}/{c['p99_ms']:.1f}" for k, c in result["cells"].items())
    print(f"{qname:24} limit={spec['limit']!s:4} count={first[cells[0][0]]['count']:<7} {line}", flush=True)
    return result


def markdown(report: dict[str, Any]) -> str:
    """The tables of docs/textindex.md, from one results file."""
    tree, source = report["tree"], report["tree"]["bytes"]
    load = report["env"]["loadavg_start"][0], report["env"]["loadavg_end"][0]
    lines = [
        (
            f"`{report['command']}`: {tree['files']} text files, {source / 1e6:.1f} MB "
            f"(skipped {tree['skipped']}); load average {load[0]:.1f} at the start, {load[1]:.1f} at the end."
        ),
        "",
        (
            "| variant | build wall s | build CPU s | others' CPU s | files/s | MB/s | text index MB | content MB "
            "| on disk / source | peak RSS MB | edit p50 / max ms |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, b in report["builds"].items():
        final, edit = report["final"].get(name, {}), report["edits"].get(name, {})
        lines.append(
            f"| {name} | {b['wall_s']:.1f} | {b['cpu_s']:.1f} | {b['others_cpu_s']:.1f} | {b['files_per_s']:.0f} "
            f"| {b['mb_per_s']:.1f} | {b['fts_bytes'] / 1e6:.1f} | {b['content_bytes'] / 1e6:.1f} "
            f"| {b['used_bytes'] / source:.3f} | {final.get('peak_rss_kib', 0) / 1024:.0f} "
            f"| {edit.get('p50_ms', float('nan')):.1f} / {edit.get('max_ms', float('nan')):.1f} |"
        )
    columns = list(dict.fromkeys(k for q in report["queries"] for k in q["cells"]))
    for limit in LIMITS if columns else ():
        what = "every matching line" if limit is None else f"the first {limit} matching lines (what the tool returns)"
        lines += [
            "",
            f"Queries, {what}: p50 / p99 ms over 20 runs (n = fewer runs, see the method).",
            "",
            "| query | lines (files) | " + " | ".join(columns) + " |",
            "|---|---|" + "---|" * len(columns),
        ]
        for q in (q for q in report["queries"] if q["limit"] == limit):
            first = next(iter(q["cells"].values()))
            cells = []
            for key in columns:
                cell = q["cells"].get(key)
                if cell is None:
                    cells.append("-")
                    continue
                runs = f" (n={cell['n']})" if cell["n"] < report.get("reps", 20) else ""
                cells.append(f"{cell['p50_ms']:.1f} / {cell['p99_ms']:.1f}{runs}")
            pattern = q["pattern"].replace("|", "\\|")
            label = f"{q['query']}: `{pattern}`" + (" (ignore case)" if q["ignore_case"] else "")
            lines.append(f"| {label} | {first['count']} ({first['files']}) | " + " | ".join(cells) + " |")
    lines += ["", "Candidate files handed to the verifier (every line): " + "; ".join(
        f"{q['query']} " + " ".join(f"{k} {c['candidates']}" for k, c in q["cells"].items() if "-" not in k)
        for q in report["queries"] if q["limit"] is None
    )]  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    main()
