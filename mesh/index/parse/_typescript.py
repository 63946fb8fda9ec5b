"""TypeScript (``.ts``, ``.mts``, ``.cts``, ``.tsx``): the shared ECMAScript extraction with the TypeScript grammars.

The dispatcher sends ``.ts`` and ``.tsx`` files alike, without the dialect: the source is parsed as TypeScript,
then again as TSX when that fails on bytes that look like JSX, and the tree with fewer errors is kept.
"""

from __future__ import annotations

from .._facts import FileFacts
from . import _ecmascript

__all__ = ["extract"]


def extract(source: bytes, path: str = "") -> FileFacts:
    """Definitions (with signatures and doc lines), imports, references, gRPC evidence and links of one
    TypeScript or TSX file (see :mod:`._ecmascript`)."""
    return _ecmascript.extract("typescript", source, path)
