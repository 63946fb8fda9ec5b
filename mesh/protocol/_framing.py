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


@attrs.define
class LineSplitter:
    """Splits a byte stream into bounded lines; see the module docstring."""

    max_frame_bytes: int
    _items: deque[bytes | _Oversized] = attrs.field(init=False, factory=deque)
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
        end = len(data)
        if not self._skipping and not self._tail and data.endswith(b"\n") and data.find(b"\n") == end - 1:
            # The common case, one whole frame per chunk: no scanning, no copying into the tail.
            if end - 1 > self.max_frame_bytes + 1:
                self._items.append(OVERSIZED)
            else:
                self._push_line(data[:-1])
            return
        view = memoryview(data)
        while start < end:
            newline = data.find(b"\n", start)
            if self._skipping:
                if newline < 0:
                    return
                self._skipping = False
                start = newline + 1
                continue
            if newline < 0:
                self._extend_tail(view[start:end])
                return
            if self._tail:
                self._extend_tail(view[start:newline])
                if self._skipping:
                    # The limit was crossed just now; the rest of this line is already consumed.
                    self._skipping = False
                else:
                    self._push_line(bytes(self._tail))
                self._tail.clear()
            elif newline - start > self.max_frame_bytes + 1:
                self._items.append(OVERSIZED)  # never copy a line already known to be too long
            else:
                self._push_line(data[start:newline])
            start = newline + 1

    def feed_eof(self) -> None:
        """Mark the end of input; an unterminated tail becomes the last item."""
        if self._eof:
            return
        self._eof = True
        if self._tail:
            self._push_line(bytes(self._tail))
            self._tail.clear()
        self._skipping = False

    def next_item(self) -> bytes | _Oversized | None:
        """The next queued item, or ``None`` when nothing complete is queued."""
        if self._items:
            return self._items.popleft()
        return None

    def _extend_tail(self, part: memoryview) -> None:
        if len(self._tail) + len(part) > self.max_frame_bytes + 1:
            self._tail.clear()
            self._items.append(OVERSIZED)
            self._skipping = True
            return
        self._tail += part

    def _push_line(self, line: bytes) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        if len(line) > self.max_frame_bytes:
            self._items.append(OVERSIZED)
        elif line.strip(_BLANK):
            self._items.append(line)
