"""Markdown rendering shared by the tools: bounded, deterministic output."""

from ._bound import TOOL_TEXT_BYTES_MAX, Bounded, bound_markdown
from ._paging import Paging, busiest_scopes, call_text, paging_footer, scope_of

__all__ = [
    "TOOL_TEXT_BYTES_MAX",
    "Bounded",
    "Paging",
    "bound_markdown",
    "busiest_scopes",
    "call_text",
    "paging_footer",
    "scope_of",
]
