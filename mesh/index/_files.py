"""The one way to read a workspace file: never through a symlink that leads out of the workspace.

Theory of operation
-------------------
The walk decides which files are indexed, but a file is read later (by a parse worker, by a search,
by the workspace model), and by then the file, or any folder on its way, may have been swapped for
a symlink to something outside the workspace, with the same size and mtime. So no reader trusts
the walk, nor a check made before opening (a check and an open are two steps an attacker can get
between). :func:`open_inside` walks the path itself, ``openat``-style: from a descriptor of the
root, each component is opened relative to the folder before it with ``O_NOFOLLOW``. A component
that is a symlink is never opened: its text is read (``readlink``) and resolved the same way, from
the root for an absolute target (which must name a path under the root) or from the current
folder for a relative one; ``..`` steps back up the folders already opened, never above the root.
The descriptor returned is of a regular file reached only through folders of the workspace, and
nothing outside the workspace is ever opened (not even a FIFO or a device: opening one can block
or act). Symlinks whose targets stay inside are followed, as the walk follows them.

Failures are ``OSError`` whose ``strerror`` is fit for an answer (no path in it): a link out is
:data:`OUTSIDE`, a folder is "Is a directory", a FIFO or a device "not a regular file".
"""

from __future__ import annotations

import errno
import functools
import os
import stat
from pathlib import Path
from typing import Final

__all__ = ["OUTSIDE", "open_folder_inside", "open_inside", "read_if_unchanged", "read_inside"]

#: The ``strerror`` of a path that leads out of the workspace.
OUTSIDE: Final = "leads outside the workspace through a symlink"
#: Symlinks followed for one path before giving up (the kernel's own limit is 40).
LINKS_MAX: Final = 40

_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
_FOLDER_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_FILE_FLAGS: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | _CLOEXEC
#: What opening a symlink with O_NOFOLLOW gives (Linux: ELOOP; FreeBSD: EMLINK; O_DIRECTORY: ENOTDIR).
_LINK_ERRNOS: Final = frozenset({errno.ELOOP, errno.EMLINK, errno.ENOTDIR})


def open_inside(root: Path | str, path: str) -> int:
    """A read-only descriptor of the regular file ``path`` (relative, ``/``-separated) under ``root``,
    reached without following any symlink out of ``root``; the caller closes it. Raises ``OSError``.
    """
    return _open(root, path, folder=False)


def open_folder_inside(root: Path | str, path: str) -> int:
    """A descriptor of the folder ``path`` under ``root`` ("" for the root itself), reached as
    :func:`open_inside` reaches a file; for ``os.scandir`` and ``dir_fd``. Raises ``OSError``."""
    return _open(root, path, folder=True)


def _open(root: Path | str, path: str, *, folder: bool) -> int:
    roots = _root_spellings(root)
    pending = _components(path)[::-1]  # a stack: the next component last
    if not pending and not folder:
        raise OSError(errno.EISDIR, os.strerror(errno.EISDIR))
    folders = [os.open(roots[0], os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)]
    links = 0
    try:
        while pending:
            name = pending.pop()
            if name == "..":
                if len(folders) == 1:
                    raise OSError(errno.EXDEV, OUTSIDE)
                os.close(folders.pop())
                continue
            last = not pending
            try:
                handle = os.open(name, _FILE_FLAGS if last and not folder else _FOLDER_FLAGS, dir_fd=folders[-1])
            except OSError as exc:
                if exc.errno not in _LINK_ERRNOS:
                    raise
                try:
                    target = os.readlink(name, dir_fd=folders[-1])
                except OSError:
                    raise exc from None  # not a link: a file where a folder was expected
                links += 1
                if links > LINKS_MAX:
                    raise OSError(errno.ELOOP, "too many levels of symbolic links") from None
                if target.startswith("/"):
                    inside = _under(target, roots)
                    if inside is None:
                        raise OSError(errno.EXDEV, OUTSIDE) from None
                    for opened in folders[1:]:
                        os.close(opened)
                    del folders[1:]
                    target = inside
                pending.extend(_components(target)[::-1])
                continue
            if not last or folder:
                folders.append(handle)
                continue
            mode = os.fstat(handle).st_mode
            if not stat.S_ISREG(mode):
                os.close(handle)
                if stat.S_ISDIR(mode):
                    raise OSError(errno.EISDIR, os.strerror(errno.EISDIR))
                raise OSError(errno.EINVAL, "not a regular file")
            return handle
        if folder:
            return folders.pop()  # the folder reached, kept open for the caller
    finally:
        for opened in folders:
            os.close(opened)
    raise OSError(errno.EISDIR, os.strerror(errno.EISDIR))  # the path resolved to a folder (``a/..``)


def read_inside(root: Path | str, path: str, limit: int | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes of ``path`` under ``root`` (at most ``limit``) and its status, read through
    :func:`open_inside`. Raises ``OSError``."""
    with open(open_inside(root, path), "rb") as handle:
        status = os.fstat(handle.fileno())
        return (handle.read() if limit is None else handle.read(limit)), status


def read_if_unchanged(root: Path | str, path: str, size: int, mtime_ns: int) -> bytes | None:
    """The bytes of ``path`` when it is still a regular file inside ``root`` with this size and mtime
    (as a snapshot recorded it), else None."""
    try:
        with open(open_inside(root, path), "rb") as handle:
            status = os.fstat(handle.fileno())
            if (status.st_size, status.st_mtime_ns) != (size, mtime_ns):
                return None
            return handle.read()
    except OSError:
        return None


def _components(path: str) -> list[str]:
    return [part for part in path.split("/") if part not in ("", ".")]


def _root_spellings(root: Path | str) -> tuple[str, ...]:
    """The root as given and as resolved: an absolute link may name either."""
    given = os.path.abspath(root)
    real = _realpath(given)
    return (given,) if real == given else (given, real)


@functools.lru_cache(maxsize=16)
def _realpath(path: str) -> str:
    return os.path.realpath(path)


def _under(target: str, roots: tuple[str, ...]) -> str | None:
    """``target`` (absolute) relative to the root it lies under, judged by its spelling; None when
    it names no path under a root."""
    for root in roots:
        if target == root or target.startswith(root.rstrip("/") + "/"):
            return target[len(root) :]
    return None
