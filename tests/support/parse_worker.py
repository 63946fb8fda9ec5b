"""A parse worker for tests: files named ``hang*`` never finish, ``crash*`` kill the worker."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from mesh.index.build._pool import worker_main
from mesh.index.build._work import Outcome, Task, process


def misbehaving(root: Path, task: Task) -> Outcome:
    name = task.path.rsplit("/", 1)[-1]
    if name.startswith("hang"):
        while True:  # Python-level work: the budget timer interrupts it
            time.sleep(0.01)
    if name.startswith("crash"):
        os.kill(os.getpid(), signal.SIGKILL)
    return process(root, task)


if __name__ == "__main__":
    worker_main(misbehaving)
