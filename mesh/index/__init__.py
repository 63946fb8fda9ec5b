"""The workspace index: which files, which services, what they define and use (in progress)."""

from ._enumerate import FileEntry, Skipped, Walk, walk

__all__ = ["FileEntry", "Skipped", "Walk", "walk"]
