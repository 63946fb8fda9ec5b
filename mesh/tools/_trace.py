"""W3C Trace Context: the trace id of a ``traceparent`` header value."""

from __future__ import annotations

import re
from typing import Final

__all__ = ["trace_id_of"]

# version "-" trace-id "-" parent-id "-" trace-flags, lowercase hex (W3C Trace Context, level 1).
_TRACEPARENT: Final = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?")


def trace_id_of(traceparent: object) -> str | None:
    """The 32-hex-char trace id of a valid ``traceparent``, else ``None``.

    Invalid: not a string, wrong shape, uppercase hex, version ``ff``, an all-zero trace id or
    parent id, or (for version ``00``) anything after the flags.
    """
    if not isinstance(traceparent, str) or len(traceparent) > 512:
        return None
    match = _TRACEPARENT.fullmatch(traceparent.strip(" \t"))
    if match is None:
        return None
    version, trace_id, parent_id, _flags, rest = match.groups()
    if version == "ff" or (version == "00" and rest):
        return None
    if trace_id == "0" * 32 or parent_id == "0" * 16:
        return None
    return trace_id
