"""The one JSON codec of the protocol: strict decoding, canonical encoding.

Decoding accepts strict JSON only (RFC 8259 over UTF-8): invalid UTF-8, a byte order mark,
``NaN``/``Infinity``, lone surrogates and nesting deeper than the decoder's fixed depth limit are
all a :class:`DecodeError`, never another exception and never a recursion error.

Encoding is canonical: keys sorted, no insignificant white space, UTF-8 output. Two equal values
always encode to the same bytes, so transcripts can be compared byte for byte. A value JSON cannot
carry raises ``TypeError``.

These are orjson's own functions, bound once: they sit on the per-frame hot path.
"""

from __future__ import annotations

import functools
from typing import Any

import orjson

__all__ = ["DecodeError", "Fragment", "decode", "encode_fragment", "encode_frame"]

#: The bytes are not strict JSON (a ``ValueError``).
DecodeError = orjson.JSONDecodeError
#: Already-encoded canonical JSON, spliced verbatim into a frame by :func:`encode_frame`.
Fragment = orjson.Fragment

#: Parse one frame (``bytes``); raises :class:`DecodeError` for anything that is not strict JSON.
decode = orjson.loads
#: Serialize one outgoing message as a newline-terminated canonical frame.
encode_frame = functools.partial(orjson.dumps, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE)
_encode = functools.partial(orjson.dumps, option=orjson.OPT_SORT_KEYS)


def encode_fragment(value: Any) -> Fragment:
    """Encode ``value`` once, canonically, for reuse inside many frames."""
    return orjson.Fragment(_encode(value))
