"""Every draw of the simulator, built on ``prng.random()`` alone.

CPython promises one thing across versions: ``random.Random(seed).random()`` gives the same
sequence. ``choice``, ``randrange``, ``randint``, ``shuffle`` and ``sample`` carry no such promise
(they sit on ``getrandbits`` and may change how they use it), so the simulator never calls them:
a scenario drawn here is the same on every supported Python, and so are the recorded seeds
(INV-DET-4). ``prng`` is the run's one ``random.Random(seed)``, passed explicitly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

__all__ = ["below", "between", "choice"]

T = TypeVar("T")


def below(prng: random.Random, count: int) -> int:
    """An integer in ``range(count)``, each as likely (to within 2**-53)."""
    if count < 1:
        raise ValueError(f"below() needs a count of at least 1, not {count}")
    return min(int(prng.random() * count), count - 1)


def between(prng: random.Random, low: int, high: int) -> int:
    """An integer from ``low`` to ``high``, both included."""
    if high < low:
        raise ValueError(f"between() needs low <= high, not {low} > {high}")
    return low + below(prng, high - low + 1)


def choice(prng: random.Random, options: Sequence[T]) -> T:
    """One of ``options`` (a sequence, never a set: its order must not depend on hashing)."""
    if not options:
        raise ValueError("choice() from no options")
    return options[below(prng, len(options))]
