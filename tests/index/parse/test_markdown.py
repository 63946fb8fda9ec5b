"""The Markdown extractor: the section tree of realistic documents and the relative links they hold."""

from __future__ import annotations

import textwrap

from hypothesis import example, given
from hypothesis import strategies as st

from mesh.index._facts import FileFacts, Import, Section
from mesh.index.parse import _markdown, extract


def facts(source: str) -> FileFacts:
    return _markdown.extract(textwrap.dedent(source).lstrip("\n").encode())


README = """
    ---
    title: "# not a heading"
    tags: [docs]
    ---
    # Orders service

    The [API reference](../api/orders.md#get-order) and [![build](badge.svg)](./ci/status.md)
    are not [external](https://example.com/x.md), [anchors](#install) or [mail](mailto:a@b.c).

    ## Install

    ```bash
    # install the tools
    make tools
    ```

    ~~~~markdown
    ```
    # still inside the outer fence
    ~~~
    ## also inside
    ~~~~

    ## Install

    Usage notes
    ===========

    <!--
    # commented out
    -->

    ### Deep `code` and *emphasis* [link](<docs/deep dive.md> "title")

        # indented code is not a heading

    - list item
    ---
    Two lines of
    setext text
    -----------

    #### Level four ####
    ## C# &amp; __init__
    #
    #hashtag is text

    [ref]: ./reference.md#top
"""


def test_a_readme() -> None:
    result = facts(README)
    assert result.sections == (
        Section("orders-service", "Orders service", 1, "", 5, 25),
        Section("orders-service/install", "Install", 2, "orders-service", 10, 23),
        Section("orders-service/install-2", "Install", 2, "orders-service", 24, 25),
        Section("usage-notes", "Usage notes", 1, "", 26, 44),
        Section("usage-notes/deep-code-and-emphasis-link", "Deep code and emphasis link", 3, "usage-notes", 33, 38),
        Section("usage-notes/two-lines-of-setext-text", "Two lines of setext text", 2, "usage-notes", 39, 43),
        Section(
            "usage-notes/two-lines-of-setext-text/level-four",
            "Level four",
            4,
            "usage-notes/two-lines-of-setext-text",
            43,
            43,
        ),
        Section("usage-notes/c--init", "C# & init", 2, "usage-notes", 44, 44),
        Section("section", "", 1, "", 45, 48),
    )
    assert result.imports == (
        Import("../api/orders.md", 7),
        Import("./ci/status.md", 7),
        Import("docs/deep dive.md", 33),
        Import("./reference.md", 48),
    )
    assert result.definitions == ()
    assert result.language == "markdown"
    assert result.error == ""


def test_dispatch_by_suffix() -> None:
    source = textwrap.dedent(README).lstrip("\n").encode()
    assert extract("docs/README.md", source) == _markdown.extract(source)
    assert extract("docs/notes.markdown", source) == _markdown.extract(source)


def test_parents_skip_levels_and_ends_stop_at_same_or_higher_levels() -> None:
    result = facts(
        """
        # A
        ### A3
        ## A2
        text
        ### A2b
        # B
        ## B2
        ## B2
        ## B2
        """
    )
    assert result.sections == (
        Section("a", "A", 1, "", 1, 5),
        Section("a/a3", "A3", 3, "a", 2, 2),
        Section("a/a2", "A2", 2, "a", 3, 5),
        Section("a/a2/a2b", "A2b", 3, "a/a2", 5, 5),
        Section("b", "B", 1, "", 6, 9),
        Section("b/b2", "B2", 2, "b", 7, 7),
        Section("b/b2-2", "B2", 2, "b", 8, 8),
        Section("b/b2-3", "B2", 2, "b", 9, 9),
    )


def test_duplicate_slugs_never_collide() -> None:
    result = facts("# x\n# x-2\n# x\n# X\n")
    assert [s.section_id for s in result.sections] == ["x", "x-2", "x-3", "x-4"]


def test_a_document_starting_below_level_one_and_without_a_final_newline() -> None:
    result = _markdown.extract(b"intro\n\n## Two\nbody\n### Three\nlast")
    assert result.sections == (
        Section("two", "Two", 2, "", 3, 6),
        Section("two/three", "Three", 3, "two", 5, 6),
    )


def test_fences_need_the_same_character_and_at_least_the_opening_length() -> None:
    result = facts(
        """
        ````
        ```
        # inside
        ~~~~
        # inside
        ````
        # Outside
        ```python
        # unclosed fence runs to the end
        """
    )
    assert result.sections == (Section("outside", "Outside", 1, "", 7, 9),)


def test_setext_only_under_a_paragraph() -> None:
    result = facts(
        """
        ---

        ===
        > quoted
        ---
        - item
        ===
        lazy continuation of the item
        ---

        para
          continued
        ==
        *   *   *
        Title
        -
        """
    )
    assert result.sections == (
        Section("para-continued", "para continued", 1, "", 11, 16),
        Section("para-continued/title", "Title", 2, "para-continued", 15, 16),
    )


def test_front_matter_only_at_the_top_and_only_when_closed() -> None:
    assert [s.title for s in facts("---\n# not closed front matter\n").sections] == ["not closed front matter"]
    assert facts("+++\ntitle = 1\n# toml\n+++\n# After\n").sections == (Section("after", "After", 1, "", 5, 5),)
    assert [s.title for s in _markdown.extract(b"\n---\n# x\n---\n").sections] == ["x"]


def test_html_blocks_and_indented_code() -> None:
    result = facts(
        """
        <pre>
        # in pre
        </pre>
        <!-- # one-line comment -->
        # Real
            # indented code
        text
            # paragraph continuation, not code
        """
    )
    assert result.sections == (Section("real", "Real", 1, "", 5, 8),)


def test_heading_markup_is_reduced_to_text() -> None:
    titles = [
        s.title
        for s in facts(
            """
            # `a  b` and ``x ` y``
            # **bold** _em_ snake_case __init__ ~~gone~~
            # [text](url) ![alt](img.png) [ref][r] <https://x.io>
            # a <span class="x">tag</span> \\*not em\\* &lt;3 &amp;
            # closing hashes ###
            # C#
            """
        ).sections
    ]
    assert titles == [
        "a  b and x ` y",
        "bold em snake_case init gone",
        "text alt ref https://x.io",
        "a tag *not em* <3 &",
        "closing hashes",
        "C#",
    ]
    assert [_markdown.slug(t) for t in titles] == [
        "a--b-and-x--y",
        "bold-em-snake_case-init-gone",
        "text-alt-ref-httpsxio",
        "a-tag-not-em-3-",
        "closing-hashes",
        "c",
    ]
    assert _markdown.slug("Ünïcode — Straße 2") == "ünïcode--straße-2"
    assert _markdown.slug("!!!") == "section"


def test_links_relative_only_outside_code() -> None:
    result = facts(
        """
        [a](a.md) [b](../b/c.md?plain=1#L3) [c](/rooted.md) [d](//host/x.md) [e](HTTP://x) [f](#frag)
        `[code](code.md)` and ``[more](more.md)``
        [g](g(1).md) [h]( spaced.md ) ![img](pic.png)
        ```
        [fenced](fenced.md)
        ```
        <!-- [commented](commented.md) -->
        [i]: <i dir/i.md> "title"
        [j]: https://example.com
        """
    )
    assert result.imports == (
        Import("a.md", 1),
        Import("../b/c.md", 1),
        Import("g(1).md", 3),
        Import("spaced.md", 3),
        Import("i dir/i.md", 8),
    )


def test_crlf_bom_and_invalid_utf8() -> None:
    result = _markdown.extract(b"\xef\xbb\xbf# One\r\ntext \xff\r\n\r\nTwo\r\n---\r\n")
    assert result.sections == (Section("one", "One", 1, "", 1, 5), Section("one/two", "Two", 2, "one", 4, 5))
    result = _markdown.extract(b"text \xff\r\nTwo\r\n---\r\n")
    assert result.sections == (Section("text--two", "text \ufffd Two", 2, "", 1, 3),)


def test_empty_and_hostile_inputs() -> None:
    assert _markdown.extract(b"") == FileFacts(language="markdown")
    for source in (
        b"# " + b"*a _b " * 50_000,
        b"](x.md)" * 50_000,
        b"`" * 100_000,
        b"#" * 100_000,
        b"> " * 100_000,
        b"[" * 100_000 + b"](a.md)",
    ):
        result = _markdown.extract(source)
        assert result.error == ""


_PIECES = st.sampled_from(
    [
        "#", "##", "###", " ", "\n", "\n\n", "===", "---", "```", "~~~", "````", "    ", "\t", "-", "*", "_",
        ">", "1.", "<!--", "-->", "<pre>", "</pre>", "[", "]", "(", ")", "![", "](", "x.md", "http://y", "#a",
        "`", "\\", "&amp;", "text", "Title", "é", "\r", "+++", "...",
    ]
)  # fmt: skip


def check_invariants(result: FileFacts, source: bytes) -> None:
    assert result.error == ""
    text = source.decode("utf-8", "replace").removeprefix("\ufeff")
    last = len(text.split("\n")) - (1 if text.endswith("\n") else 0)
    ids = [s.section_id for s in result.sections]
    assert len(set(ids)) == len(ids)
    previous = 0
    for section in result.sections:
        assert previous <= section.line <= section.end_line <= last
        assert 1 <= section.level <= 6
        assert section.parent_id == "" or section.parent_id in ids
        previous = section.line
    assert all(1 <= i.line <= last for i in result.imports)
    assert result == _markdown.extract(source)


@given(st.binary(max_size=500))
@example(b"a\n===\n")
def test_never_raises_on_bytes(source: bytes) -> None:
    check_invariants(_markdown.extract(source), source)


@given(st.lists(_PIECES, max_size=80).map("".join))
@example("---\n---\n# a\n```\n# b")
def test_never_raises_on_markdown_soup(text: str) -> None:
    source = text.encode()
    check_invariants(_markdown.extract(source), source)
