"""Markdown rendering shared by the tools: bounded, deterministic output."""

from ._bound import TOOL_TEXT_BYTES_MAX, Bounded, bound_markdown

__all__ = ["TOOL_TEXT_BYTES_MAX", "Bounded", "bound_markdown"]
