"""Taking the process's stdout for the protocol, away from everything else that writes there."""

from __future__ import annotations

import os
import sys

__all__ = ["claim_stdout"]


def claim_stdout() -> int:
    """Take fd 1 for the protocol writer; leave fd 1 and ``sys.stdout`` pointing at stderr.

    Call it before anything else can write: importing a plugin may already print. The returned
    descriptor is non-blocking (unless it is a terminal, which other processes share), so the
    pump's loop is never stuck in a write to a client that stopped reading.
    """
    sys.stdout.flush()
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if not os.isatty(out_fd):
        os.set_blocking(out_fd, False)
    return out_fd
