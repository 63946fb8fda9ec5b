"""JavaScript (``.js``, ``.mjs``, ``.cjs``, ``.jsx``): the shared ECMAScript extraction with the JavaScript grammar."""

from __future__ import annotations

from .._facts import FileFacts
from . import _ecmascript

__all__ = ["extract"]


def extract(source: bytes, path: str = "") -> FileFacts:
    """Definitions (with signatures and doc lines), imports, references, gRPC evidence and links of one
    JavaScript file (see :mod:`._ecmascript`)."""
    return _ecmascript.extract("javascript", source, path)
