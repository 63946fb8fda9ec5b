"""The one JSON codec of the protocol: strict decoding, canonical encoding.

Decoding accepts strict JSON only (RFC 8259 over UTF-8): invalid UTF-8, a byte order mark,
``NaN``/``Infinity``, lone surrogates and nesting deeper than the decoder's fixed depth limit are
all a :class:`DecodeError`, never another exception and never a recursion error.

Encoding is canonical: keys sorted, no insignificant white space, UTF-8 output. Two equal values
always encode to the same bytes, so transcripts can be compared byte for byte.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["DecodeError", "Fragment", "decode", "encode_fragment", "encode_frame"]

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE

#: Already-encoded canonical JSON, spliced verbatim into a frame by :func:`encode_frame`.
Fragment = orjson.Fragment


class DecodeError(ValueError):
    """The bytes are not strict JSON."""


def decode(line: bytes) -> Any:
    """Parse one frame. Raises :class:`DecodeError` for anything that is not strict JSON."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise DecodeError(str(exc)) from None


def encode_fragment(value: Any) -> Fragment:
    """Encode ``value`` once, canonically, for reuse inside many frames.

    Raises ``TypeError`` for a value JSON cannot carry.
    """
    try:
        return orjson.Fragment(orjson.dumps(value, option=orjson.OPT_SORT_KEYS))
    except orjson.JSONEncodeError as exc:
        raise TypeError(str(exc)) from None


def encode_frame(message: dict[str, Any] | list[dict[str, Any]]) -> bytes:
    """Serialize one outgoing message as a newline-terminated frame.

    Raises ``TypeError`` for a value JSON cannot carry (the session turns that into ``-32603``).
    """
    try:
        return orjson.dumps(message, option=_OPTIONS)
    except orjson.JSONEncodeError as exc:
        raise TypeError(str(exc)) from None
