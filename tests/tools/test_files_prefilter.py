"""``files`` reads only the paths its pattern may select, and answers as if it had read them all
(INV-TOOL-14).

The prefilter is SQL (``LIKE`` on the literal runs, a name's characters in order); the choice is
the tool's own matching. Whatever the paths and the pattern (case, non-ASCII letters whose case
folds to ASCII, ``LIKE``'s own wildcards, ``**/`` standing for no folder), the rows chosen after
the prefilter are the rows chosen from every path.
"""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.render._navigation import FileRow
from mesh.tools._files import choose, glob_regex, prefilter
from mesh.tools._registry import ToolError

#: letters whose case matters to LIKE or to Python (the Kelvin sign folds to k, the long s to s,
#: sharp s to ss), LIKE's own wildcards and escape, and the glob's characters
_PATH_CHARS = "aAbBkKsS_%\\.-/\té\u212a\u017fß"
_PATTERN_CHARS = _PATH_CHARS + "*?[]!"

paths = st.lists(
    st.text(alphabet=_PATH_CHARS, min_size=1, max_size=12).map(lambda text: text.strip("/") or "a"),
    min_size=1,
    max_size=40,
    unique=True,
)
patterns = st.one_of(
    st.text(alphabet=_PATTERN_CHARS, min_size=1, max_size=8),
    st.builds(lambda tail: "**/" + tail, st.text(alphabet=_PATTERN_CHARS, min_size=1, max_size=6)),
).map(str.strip).filter(bool)


def _rows(db: sqlite3.Connection, where: str, params: list[str]) -> list[FileRow]:
    return [
        FileRow(path, "", "", 0, 0, "", [])
        for (path,) in db.execute(f"SELECT path FROM files{where.format(path='path')} ORDER BY path", params)
    ]


@settings(max_examples=400, deadline=None)
@given(paths=paths, pattern=patterns)
def test_inv_tool_14_the_prefilter_keeps_every_path_the_pattern_selects(paths: list[str], pattern: str) -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE files(path TEXT PRIMARY KEY)")
    db.executemany("INSERT INTO files VALUES (?)", [(path,) for path in paths])
    everything = _rows(db, "", [])
    try:
        expected = choose(everything, pattern)
    except ToolError:  # a class's range upside down: said the same way, whatever was read
        with pytest.raises(ToolError):
            choose(_rows(db, *prefilter(pattern)), pattern)
        return
    assert choose(_rows(db, *prefilter(pattern)), pattern) == expected


def test_inv_tool_14_the_prefilter_narrows() -> None:
    """The point of it: a glob's literal run, or a name's letters, leave other paths unread."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE files(path TEXT PRIMARY KEY)")
    paths = ("orders/api.proto", "orders/store.py", "Orders/Store_Test.py", "gateway/go.mod", "docs/ré.md")
    db.executemany("INSERT INTO files VALUES (?)", [(path,) for path in paths])
    kept = {row.path for row in _rows(db, *prefilter("**/*test*"))}
    assert kept == {"Orders/Store_Test.py", "docs/ré.md"}  # a non-ASCII path is always kept
    assert {row.path for row in _rows(db, *prefilter("**/*.proto"))} == {"orders/api.proto", "docs/ré.md"}
    by_name = {row.path for row in _rows(db, *prefilter("ordstore"))}
    assert by_name == {"orders/store.py", "Orders/Store_Test.py", "docs/ré.md"}
    assert [row.path for row in choose(_rows(db, *prefilter("**/*test*")), "**/*test*")] == ["Orders/Store_Test.py"]
    assert prefilter("**") == ("", [])  # nothing literal: every path is read


def test_a_glob_class_reads_as_fnmatch_and_a_bad_one_is_said() -> None:
    """``[!]`` is a literal (the ``]`` right after ``[!`` would be the class's), ``[!]]`` a class
    (not ``]``), and a range upside down is a clear error, never a crash."""
    assert glob_regex("[!]").fullmatch("[!]")
    assert glob_regex("a[!]]").fullmatch("ab") and not glob_regex("a[!]]").fullmatch("a]")
    assert glob_regex("[]]x").fullmatch("]x")
    with pytest.raises(ToolError, match="not valid"):
        glob_regex("src/[z-a].py")
