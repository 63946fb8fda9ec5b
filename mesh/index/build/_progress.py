"""How far a refresh got (its own module: a server reports it without importing the builder)."""

from __future__ import annotations

import attrs

__all__ = ["Progress"]


@attrs.frozen
class Progress:
    #: "starting", "walking", "parsing", "writing" or "done".
    phase: str
    done: int
    total: int
