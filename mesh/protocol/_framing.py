"""Newline-delimited framing with a hard bound enforced while bytes stream in.

Theory of operation
-------------------
Bytes arrive in chunks of any size, split at any point. The splitter turns them into an ordered
queue of *items*: a complete line (``bytes``, without its ``\\n`` and an optional ``\\r``) or the
:data:`OVERSIZED` marker. Blank lines (only spaces and tabs) produce nothing.

The partial line at the tail is the only state that grows with the input, and it never grows past
``max_frame_bytes + 1`` bytes (the ``+ 1`` leaves room for the ``\\r`` of a ``\\r\\n`` ending).
The moment a partial line is known to be too long, its bytes are dropped, the marker is queued in
its place and the splitter *skips* until the next newline, discarding bytes as they arrive. So the
memory held for one line is bounded by the limit, not by the line, and the marker sits in the queue
exactly where the line would have been: the item sequence does not depend on how the input was
chunked.

At EOF an unterminated tail becomes a final item like any other line, so a client that closes its
end after a last frame without a newline is still answered.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Final

import attrs

__all__ = ["OVERSIZED", "LineSplitter"]


class _Oversized:
    """The marker queued in place of a line longer than the bound."""

    def __repr__(self) -> str:
        return "OVERSIZED"


#: Stands in the item queue where a line over the bound was dropped.
OVERSIZED: Final = _Oversized()

_BLANK: Final = b" \t"
_CR: Final = ord("\r")


@attrs.define
class LineSplitter:
    """Splits a byte stream into bounded lines; see the module docstring."""

    max_frame_bytes: int
    #: Complete items, oldest first: lines (``bytes``) and :data:`OVERSIZED` markers.
    items: deque[bytes | _Oversized] = attrs.field(init=False, factory=deque)
    _tail: bytearray = attrs.field(init=False, factory=bytearray)
    _skipping: bool = attrs.field(init=False, default=False)
    _eof: bool = attrs.field(init=False, default=False)

    @property
    def tail_bytes(self) -> int:
        """Bytes held for the partial line at the tail (bounded by ``max_frame_bytes + 1``)."""
        return len(self._tail)

    @property
    def eof(self) -> bool:
        return self._eof

    def feed(self, data: bytes) -> None:
        """Consume one chunk. Raises ``RuntimeError`` after :meth:`feed_eof`."""
        if self._eof:
            raise RuntimeError("data received after EOF")
        start = 0
        if self._skipping or self._tail:
            # Finish the line already under way first.
            newline = data.find(b"\n")
            if newline < 0:
                if not self._skipping:
                    self._extend_tail(memoryview(data))
                return
            if self._skipping:
                self._skipping = False
            else:
                self._extend_tail(memoryview(data)[:newline])
                if self._skipping:
                    self._skipping = False  # the limit was crossed by this very line, now ended
                else:
                    self._push_lines((bytes(self._tail),))
            self._tail.clear()
            start = newline + 1
        last = data.rfind(b"\n", start)
        if last >= start:
            # Whole lines in one C-level split; the chunk is copied at most once.
            self._push_lines(data[start:last].split(b"\n"))
            start = last + 1
        if start < len(data):
            self._extend_tail(memoryview(data)[start:])

    def feed_eof(self) -> None:
        """Mark the end of input; an unterminated tail becomes the last item."""
        if self._eof:
            return
        self._eof = True
        if self._tail:
            self._push_lines((bytes(self._tail),))
            self._tail.clear()
        self._skipping = False

    def _extend_tail(self, part: memoryview) -> None:
        if len(self._tail) + len(part) > self.max_frame_bytes + 1:
            self._tail.clear()
            self.items.append(OVERSIZED)
            self._skipping = True
            return
        self._tail += part

    def _push_lines(self, lines: Iterable[bytes]) -> None:
        append = self.items.append
        limit = self.max_frame_bytes
        for line in lines:
            if not line:
                continue
            if line[-1] == _CR:
                line = line[:-1]
            if len(line) > limit:
                append(OVERSIZED)
            elif line and (line[0] not in _BLANK or line.strip(_BLANK)):
                append(line)
