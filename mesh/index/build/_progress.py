"""How far a refresh got (its own module: a server reports it without importing the builder)."""

from __future__ import annotations

from typing import Final

import attrs

__all__ = ["TEXT_STAGE", "Progress"]

#: ``meta.stage`` of a snapshot holding the text of every file and no facts yet (a first build's
#: first stage; ``full`` once the facts are written).
TEXT_STAGE: Final = "text"


@attrs.frozen
class Progress:
    #: "starting", "walking", "reading" (a first build's text stage), "parsing", "writing" or "done".
    phase: str
    done: int
    total: int
    #: While parsing: about how long the parse workers still take to start and to compile the
    #: queries of the languages left (``ParsePool.warmup_s``), before they only parse; 0 when unknown
    #: (a build without kept workers). An estimate for the first call's wait, in no output.
    warmup_s: float = 0.0
