"""One file's work, as a worker process does it: read, check, hash, extract, compress.

Everything a file can do wrong ends here as a message in the result, never as an exception: it
cannot be read, it is binary under a source name, it is not UTF-8, it is minified, it breaks the
parser or the time budget. The text is still indexed for search whenever it is text.

Generated code is decided here, where the bytes are in hand: a marker in the first
:data:`~._enumerate.GENERATED_HEAD_BYTES` (:func:`~._enumerate.generated_marker`) makes the outcome
``skipped`` (reason "generated"), like the stubs the walk leaves out by name. So are secrets: a
private key or a cloud credential in the first :data:`~._enumerate.SECRET_HEAD_BYTES`
(:func:`~._enumerate.secret_signature`) makes it ``skipped`` with the reason
:data:`~._enumerate.SECRET_CONTENT_REASON`; none of its text is kept, only its size and mtime (so
that an unchanged one is not read again) and the kind of secret found.

The file is read through :func:`~mesh.index._files.read_inside`: never through a symlink out of the
workspace, whatever replaced the file or a folder on its way since the walk.
"""

from __future__ import annotations

import hashlib
import zlib
from pathlib import Path
from typing import Final

import attrs

from .._facts import FileFacts
from .._files import read_inside
from ..store._store import definition_rows, reference_rows
from ..store._trigrams import indexed
from ..parse import extract, language_of
from ._enumerate import (
    GENERATED_HEAD_BYTES,
    SECRET_CONTENT_REASON,
    SECRET_HEAD_BYTES,
    generated_marker,
    secret_signature,
)

__all__ = ["Outcome", "Task", "process"]

BINARY_PROBE_BYTES: Final = 8192
#: A line this long, in a file whose lines average over MINIFIED_MEAN_LINE, marks minified code.
MINIFIED_LINE: Final = 5000
MINIFIED_MEAN_LINE: Final = 300


@attrs.frozen
class Task:
    path: str
    #: The content hash already indexed for this path; equal content is not parsed again.
    known_hash: bytes | None = None
    #: Leave generated code out (the workspace does not include vendored and generated code).
    skip_generated: bool = True
    #: Leave out a file whose first bytes hold a private key or a credential (no ``include_secrets``).
    skip_secrets: bool = True
    #: A build's first stage: the text only (read, checked, hashed, compressed), nothing extracted.
    text_only: bool = False
    #: A build's second stage: the hash of the text its first stage stored; a file still of that
    #: content gets its facts only (``Outcome.facts_only``), one that changed meanwhile everything.
    facts_of: bytes | None = None


@attrs.frozen
class Outcome:
    path: str
    size: int
    mtime_ns: int
    hash: bytes
    #: "parsed", "unchanged" (same hash as known: nothing else is filled), "failed" (see facts.error)
    #: or "skipped" (left out of the index: see ``reason`` and ``marker``).
    status: str
    lines: int = 0
    #: The text as the trigram index holds it (:func:`~mesh.index.store._trigrams.indexed`).
    searchable: str = ""
    compressed: bytes = b""
    facts: FileFacts = attrs.field(factory=lambda: FileFacts(language=""))
    #: The references of ``facts``, already as the rows the index stores (``facts.references`` is
    #: then empty): made here, in the worker, the writer only stores them.
    sites: tuple[tuple[str, str], ...] | None = None
    #: The definitions of ``facts`` as the ``defs`` rows and ``def_text`` the index stores
    #: (``facts.definitions`` is then empty), made here like ``sites``.
    definitions: tuple[tuple[tuple, ...], bytes] | None = None
    #: Only the facts of a file whose text is stored already (``Task.facts_of``): no text here.
    facts_only: bool = False
    #: Why a skipped file is left out ("generated", or the secret content reason) and what said so
    #: (a generated file's marker line; what kind of secret, never the secret itself).
    reason: str = ""
    marker: str = ""


def content_hash(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def process(root: Path, task: Task) -> Outcome:
    """Read and extract one file; the caller decides what a failure means for the index."""
    path = task.path
    try:
        data, status = read_inside(root, path)  # never through a link out, whatever changed since the walk
    except OSError as exc:
        return Outcome(path, 0, 0, b"", "failed", facts=FileFacts(language="", error=f"unreadable: {exc.strerror}"))
    if task.skip_secrets:
        found = secret_signature(data[:SECRET_HEAD_BYTES])
        if found is not None:
            return Outcome(path, status.st_size, status.st_mtime_ns, b"", "skipped", reason=SECRET_CONTENT_REASON,
                           marker=found)  # fmt: skip
    if task.skip_generated:
        marker = generated_marker(path, data[:GENERATED_HEAD_BYTES])
        if marker is not None:
            return Outcome(path, status.st_size, status.st_mtime_ns, b"", "skipped", reason="generated", marker=marker)
    digest = content_hash(data)
    if task.known_hash == digest:
        return Outcome(path, status.st_size, status.st_mtime_ns, digest, "unchanged")
    return parsed(
        path, data, status.st_size, status.st_mtime_ns, digest,
        facts=not task.text_only, text=task.facts_of != digest,
    )  # fmt: skip


def parsed(
    path: str, data: bytes, size: int, mtime_ns: int, digest: bytes, *, facts: bool = True, text: bool = True
) -> Outcome:
    """The outcome of a file read: its text for the trigram index and the store (unless ``text``
    is false: stored already), its facts (unless ``facts`` is false: a build's text stage)."""
    language = language_of(path) or ""
    nul = data.find(b"\0", 0, BINARY_PROBE_BYTES)
    if nul >= 0:
        binary = FileFacts(language=language, error=f"binary content (NUL byte at offset {nul}); not indexed")
        return Outcome(path, size, mtime_ns, digest, "parsed", facts=binary)
    note = ""
    try:
        content = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        content = data.decode("utf-8", "replace")
        note = f"invalid UTF-8 at byte {exc.start}; indexed with replacement characters"
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    found = FileFacts(language=language, error=note)
    sites = definitions = None
    if facts:
        longest = max(map(len, content.split("\n"))) if content else 0
        if longest > MINIFIED_LINE and len(content) / max(lines, 1) > MINIFIED_MEAN_LINE:
            found = FileFacts(
                language=language, error=f"minified (a line of {longest} characters); text indexed, not parsed"
            )
        else:
            found = extract(path, data)  # total: an extractor's bug comes back as the file's error
            if note and not found.error:
                found = attrs.evolve(found, error=note)
        sites = tuple(reference_rows(found))
        definitions = definition_rows(found)
        # rows are a fraction of the objects to send and read back
        found = attrs.evolve(found, references=(), definitions=())
    if not text:
        return Outcome(path, size, mtime_ns, digest, "parsed", lines, facts=found, sites=sites,
                       definitions=definitions, facts_only=True)  # fmt: skip
    compressed = zlib.compress(content.encode("utf-8"), 6)
    return Outcome(path, size, mtime_ns, digest, "parsed", lines, indexed(content), compressed, found, sites=sites,
                   definitions=definitions)  # fmt: skip
