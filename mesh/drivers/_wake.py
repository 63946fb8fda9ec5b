"""The wake-up pipe every driver loop sleeps on beside its descriptors."""

from __future__ import annotations

import os

__all__ = ["drain_pipe", "wake_pipe"]


def wake_pipe() -> tuple[int, int]:
    """A non-blocking pipe: a byte written to its write end wakes a ``poll`` on its read end."""
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    os.set_blocking(write_end, False)
    return read_end, write_end


def drain_pipe(fd: int) -> None:
    """Read every wake-up byte waiting in ``fd`` (non-blocking), so the next ``poll`` sleeps."""
    try:
        while os.read(fd, 4096):
            pass
    except BlockingIOError:
        pass
