"""Which files of a workspace are indexed: ignore rules, size cap, binaries, secrets, symlinks.

Theory of operation
-------------------
The walk is iterative and sorted (the same tree always gives the same order). Each folder may add
ignore rules (``.gitignore`` and ``.meshignore``, gitignore syntax, matched by ``pathspec``)
relative to itself; a path is decided by the deepest folder whose rules say anything about it, so a
deeper ``!pattern`` can take back what a shallower file ignored, as git does. Folders that are
never source (``.git``, ``node_modules``, vendored and build output) are skipped unless the
configuration lets vendored trees in. A symlink is followed only when its target resolves inside
the workspace, and a folder is entered once (by device and inode), so loops and escapes end
quietly. What is left out is reported with its reason, never silently.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

import attrs
import pathspec

__all__ = ["FileEntry", "Skipped", "Walk", "check_paths", "walk"]

#: Folders that are never source, at any depth.
ALWAYS_SKIPPED_DIRS: Final = frozenset({".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache",
                                         ".tox", ".venv", "venv", ".idea", ".vscode"})  # fmt: skip
#: Vendored or generated trees: skipped unless ``include_vendored``.
VENDORED_DIRS: Final = frozenset({"node_modules", "vendor", "third_party", "bower_components", "dist", "build",
                                  "target", "out", "bin", "obj", ".gradle", ".next", "generated", "gen"})  # fmt: skip
#: Generated code recognised by name (protobuf and gRPC stubs): the ``.proto`` is the source.
GENERATED_SUFFIXES: Final = ("_pb2.py", "_pb2_grpc.py", "_pb2.pyi", ".pb.go", "_grpc.pb.go", ".pb.cc", ".pb.h",
                             ".grpc.pb.cc", ".grpc.pb.h", "_pb.js", "_grpc_pb.js", ".pb.swift", ".min.js")  # fmt: skip
BINARY_SUFFIXES: Final = frozenset({".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".pdf", ".zip", ".gz", ".tgz", ".bz2",
                                    ".xz", ".7z", ".jar", ".war", ".class", ".so", ".dylib", ".dll", ".exe", ".o", ".a", ".pyc",
                                    ".pyo", ".whl", ".egg", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".mov", ".avi",
                                    ".wav", ".sqlite", ".db", ".bin"})  # fmt: skip
#: Files that hold secrets: never indexed unless the workspace opts in.
SECRET_NAMES: Final = frozenset({".env", ".netrc", ".npmrc", ".pypirc", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519",
                                 "credentials", "credentials.json", ".htpasswd"})  # fmt: skip
SECRET_SUFFIXES: Final = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx")
IGNORE_FILES: Final = (".gitignore", ".meshignore")


@attrs.frozen
class FileEntry:
    #: Path relative to the workspace root, with ``/`` separators.
    path: str
    size: int
    mtime_ns: int


@attrs.frozen
class Skipped:
    path: str
    reason: str


@attrs.define
class Walk:
    """The outcome of one walk: the files to index, in a stable order, and what was left out."""

    files: list[FileEntry] = attrs.field(factory=list)
    skipped: list[Skipped] = attrs.field(factory=list)


def walk(
    root: Path,
    *,
    max_file_bytes: int = 1 << 20,
    include_vendored: bool = False,
    include_secrets: bool = False,
    extra_ignores: tuple[str, ...] = (),
) -> Walk:
    """Every indexable file under ``root`` (resolved), and every file or folder left out, with why."""
    root = root.resolve()
    result = Walk()
    base_rules = [("", pathspec.GitIgnoreSpec.from_lines(extra_ignores))] if extra_ignores else []
    visited: set[tuple[int, int]] = set()
    # A stack of (folder relative to root, its real path, the ignore rules in force there).
    stack: list[tuple[str, Path, list[tuple[str, pathspec.GitIgnoreSpec]]]] = [("", root, base_rules)]
    while stack:
        rel_dir, real_dir, rules = stack.pop()
        try:
            status = real_dir.stat()
        except OSError as exc:
            result.skipped.append(Skipped(rel_dir or ".", f"unreadable folder: {exc.strerror}"))
            continue
        if (status.st_dev, status.st_ino) in visited:
            result.skipped.append(Skipped(rel_dir, "folder already walked (symlink loop or alias)"))
            continue
        visited.add((status.st_dev, status.st_ino))
        rules = rules + _rules_in(real_dir, rel_dir, result)
        try:
            entries = sorted(os.scandir(real_dir), key=lambda entry: entry.name)
        except OSError as exc:
            result.skipped.append(Skipped(rel_dir or ".", f"unreadable folder: {exc.strerror}"))
            continue
        folders = []
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            decision = _decide(entry, rel, root, rules, max_file_bytes, include_vendored, include_secrets)
            if isinstance(decision, Skipped):
                result.skipped.append(decision)
            elif isinstance(decision, Path):
                folders.append((rel, decision, rules))
            elif decision is not None:
                result.files.append(decision)
        stack.extend(reversed(folders))  # depth first, in name order
    result.files.sort(key=lambda entry: entry.path)
    return result


def _rules_in(real_dir: Path, rel_dir: str, result: Walk) -> list[tuple[str, pathspec.GitIgnoreSpec]]:
    rules = []
    for name in IGNORE_FILES:
        path = real_dir / name
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except FileNotFoundError:
            continue
        except OSError as exc:
            result.skipped.append(Skipped(f"{rel_dir}/{name}" if rel_dir else name, f"unreadable: {exc.strerror}"))
            continue
        rules.append((rel_dir, pathspec.GitIgnoreSpec.from_lines(lines)))
    return rules


def _ignored(rel: str, is_dir: bool, rules: list[tuple[str, pathspec.GitIgnoreSpec]]) -> bool:
    """The deepest rule file that says anything about ``rel`` decides (later lines win inside one)."""
    for base, spec in reversed(rules):
        local = rel[len(base) + 1 :] if base else rel
        check = spec.check_file(local + "/" if is_dir else local)
        if check.include is not None:
            return check.include
    return False


def _decide(
    entry: os.DirEntry[str],
    rel: str,
    root: Path,
    rules: list[tuple[str, pathspec.GitIgnoreSpec]],
    max_file_bytes: int,
    include_vendored: bool,
    include_secrets: bool,
) -> FileEntry | Skipped | Path | None:
    name = entry.name
    try:
        is_link = entry.is_symlink()
        status = entry.stat(follow_symlinks=True)
    except OSError as exc:
        return Skipped(rel, "broken symlink" if entry.is_symlink() else f"unreadable: {exc.strerror}")
    target = None  # a Path only where needed: building one per file costs more than the stat
    if is_link:
        try:
            target = Path(entry.path).resolve(strict=True)
        except (OSError, RuntimeError):
            return Skipped(rel, "broken symlink")
        if not target.is_relative_to(root):
            return Skipped(rel, "symlink out of the workspace")
    if stat.S_ISDIR(status.st_mode):
        if name in ALWAYS_SKIPPED_DIRS:
            return None  # never source, not worth a report line
        if name in VENDORED_DIRS and not include_vendored:
            return Skipped(rel, "vendored or generated folder")
        if _ignored(rel, True, rules):
            return Skipped(rel, "ignored")
        return target if target is not None else Path(entry.path)
    if not stat.S_ISREG(status.st_mode):
        return Skipped(rel, "not a regular file")
    if name in IGNORE_FILES:
        return None
    if _ignored(rel, False, rules):
        return Skipped(rel, "ignored")
    lower = name.lower()
    if not include_secrets and (lower in SECRET_NAMES or lower.startswith(".env.") or lower.endswith(SECRET_SUFFIXES)):
        return Skipped(rel, "may hold secrets")
    if lower.endswith(GENERATED_SUFFIXES) and not include_vendored:
        return Skipped(rel, "generated")
    if os.path.splitext(lower)[1] in BINARY_SUFFIXES:
        return Skipped(rel, "binary")
    if status.st_size > max_file_bytes:
        return Skipped(rel, f"larger than {max_file_bytes} bytes")
    return FileEntry(rel, status.st_size, status.st_mtime_ns)


def check_paths(
    root: Path,
    paths: list[str],
    *,
    max_file_bytes: int = 1 << 20,
    include_vendored: bool = False,
    include_secrets: bool = False,
    extra_ignores: tuple[str, ...] = (),
) -> Walk:
    """What :func:`walk` would say of just these paths (a watcher's few), without walking the tree.

    Each path's folders are checked from the root down with the same rules (ignore files read once
    per folder); a path that is gone, or whose folder a walk would not enter, is simply absent
    from the result, so the caller treats it as deleted. Folders among ``paths`` are not expanded.
    """
    root = root.resolve()
    result = Walk()
    base_rules = [("", pathspec.GitIgnoreSpec.from_lines(extra_ignores))] if extra_ignores else []
    rules_of: dict[str, list[tuple[str, pathspec.GitIgnoreSpec]] | None] = {}

    def folder_rules(rel_dir: str) -> list[tuple[str, pathspec.GitIgnoreSpec]] | None:
        """The rules in force inside ``rel_dir``, or None when a walk would not enter it."""
        if rel_dir in rules_of:
            return rules_of[rel_dir]
        if not rel_dir:
            found: list | None = base_rules + _rules_in(root, "", result)
        else:
            parent_rel = rel_dir.rsplit("/", 1)[0] if "/" in rel_dir else ""
            parent = folder_rules(parent_rel)
            found = None
            if parent is not None:
                entry = _entry(root / parent_rel, rel_dir.rsplit("/", 1)[-1])
                if entry is not None:
                    decision = _decide(entry, rel_dir, root, parent, max_file_bytes, include_vendored, include_secrets)
                    if isinstance(decision, Path):
                        found = parent + _rules_in(decision, rel_dir, result)
        rules_of[rel_dir] = found
        return found

    for rel in sorted(set(paths)):
        rel_dir, _, name = rel.rpartition("/")
        rules = folder_rules(rel_dir)
        if rules is None:
            continue
        entry = _entry(root / rel_dir, name)
        if entry is None:
            continue
        decision = _decide(entry, rel, root, rules, max_file_bytes, include_vendored, include_secrets)
        if isinstance(decision, FileEntry):
            result.files.append(decision)
        elif isinstance(decision, Skipped):
            result.skipped.append(decision)
    return result


def _entry(folder: Path, name: str) -> os.DirEntry[str] | None:
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name == name:
                    return entry
    except OSError:
        return None
    return None
