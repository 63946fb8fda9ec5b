"""The text index's query planner: folding, formulas, FTS5 rendering, and the planner never losing a match."""

from __future__ import annotations

import _sre
import functools
import re
import sqlite3
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mesh.index.store._trigrams import ALL, GRAM, NONE, Query, fold, plan, plan_literal, trigrams

# ---------------------------------------------------------------------------------------------------------------------
# Folding


def reference_fold(chars: str) -> str:
    """Per character: simple lower case as ``re`` applies it, then the least member of ``re``'s extra case class."""
    from re._casefix import _EXTRA_CASES

    lowered = "".join(map(chr, map(_sre.unicode_tolower, map(ord, chars))))
    return lowered.translate({code: min(code, *others) for code, others in _EXTRA_CASES.items()})


@functools.cache
def all_characters() -> str:
    return "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)


@functools.cache
def fold_classes() -> dict[str, tuple[str, ...]]:
    """Every character's fold class (when it has other members), over all of Unicode."""
    classes: dict[str, list[str]] = {}
    for ch, folded in zip(all_characters(), fold(all_characters()), strict=True):
        classes.setdefault(folded, []).append(ch)
    return {ch: tuple(cls) for cls in classes.values() if len(cls) > 1 for ch in cls}


def test_fold_lower_cases_ascii() -> None:
    assert fold("Hello, WORLD_42\n") == "hello, world_42\n"


def test_fold_maps_the_extra_case_classes_of_re_to_one_representative() -> None:
    assert fold("ıİiI") == "iiii"
    assert fold("ſSs") == "sss"
    assert fold("\u212aKk") == "kkk"  # KELVIN SIGN
    assert fold("ΣσςΑΣ") == "ςςςας"  # final sigma or not, one class
    assert fold("µΜμ") == "µµµ"  # MICRO SIGN and mu
    assert fold("ß") == "ß"  # no one-to-many folding: re does not match "ß" to "SS" either


def test_fold_of_every_character_is_re_simple_lower_case_then_the_extra_class() -> None:
    chars = all_characters()
    folded, expected = fold(chars), reference_fold(chars)
    assert len(folded) == len(chars)
    assert [hex(ord(ch)) for ch, f, e in zip(chars, folded, expected, strict=True) if f != e] == []


def test_fold_of_a_string_is_the_fold_of_each_character() -> None:
    text = "".join(all_characters()[:0x3000]) + "ΑΣ ΣΑ İstanbul ſtring \u212aey"
    assert fold(text) == "".join(map(fold, text))


def test_characters_match_case_insensitively_exactly_when_they_fold_alike() -> None:
    # Among the characters whose case matters: against their case mappings and every other member of their class.
    classes = fold_classes()
    cased = [
        ch
        for ch, up in zip(all_characters(), map(str.upper, all_characters()), strict=True)
        if up != ch or ch in classes
    ]
    for ch in cased:
        pattern = re.compile(re.escape(ch), re.IGNORECASE)
        variants = {ch.lower(), ch.upper(), ch.title(), *classes.get(ch, ())}
        for other in (v for v in variants if len(v) == 1):
            assert bool(pattern.fullmatch(other)) == (fold(other) == fold(ch)), (hex(ord(ch)), hex(ord(other)))


@given(st.text())
def test_fold_keeps_length_and_is_idempotent(text: str) -> None:
    folded = fold(text)
    assert len(folded) == len(text)
    assert fold(folded) == folded
    assert folded == "".join(map(fold, text))


def test_trigrams_are_the_windows_of_the_text() -> None:
    assert trigrams("abcab") == {"abc", "bca", "cab"}
    assert trigrams("ab") == frozenset()
    assert trigrams("") == frozenset()
    assert GRAM == 3


# ---------------------------------------------------------------------------------------------------------------------
# Plans: what the planner asks of the index, pattern by pattern


def s(*strings: str) -> Query:
    """The AND of the strings (a single requirement when one)."""
    return Query("and", tuple(sorted(strings)))


def any_of(*strings: str) -> Query:
    return Query("or", tuple(sorted(strings)))


@pytest.mark.parametrize(
    ("pattern", "flags", "expected"),
    [
        # Literals: one substring, folded, whatever the case flags say.
        ("return", 0, s("return")),
        ("_siftdown_max", 0, s("_siftdown_max")),
        ("DeprecationWarning", re.IGNORECASE, s("deprecationwarning")),
        ("DeprecationWarning", 0, s("deprecationwarning")),
        ("(?i)İstanbul", 0, s("istanbul")),
        ('if __name__ == "__main__":', 0, s('if __name__ == "__main__":')),
        ("def", 0, s("def")),
        # Below the gram size: nothing to look up, scan everything.
        ("os", 0, ALL),
        ("", 0, ALL),
        ("a.b", 0, ALL),
        # Runs of literals either side of a wildcard: AND.
        (r"def \w+_handler\(", 0, s("def ", "_handler(")),
        (r"class \w+Error", 0, s("class ", "error")),
        (r"a\w+bcd\s+xyz", 0, s("bcd", "xyz")),
        (r"foo.*bar.*baz", re.DOTALL, s("foo", "bar", "baz")),
        # Alternation: OR, with the literal around crossed in.
        (r"^import (os|sys)$", 0, any_of("import os", "import sys")),
        (r"\b(TODO|FIXME|XXX)\b", 0, Query("or", ("fixme", "todo", "xxx"))),
        (r"(abc|abcd)e", 0, any_of("abce", "abcde")),
        (r"abc|abcd", 0, s("abc")),  # "abcd" contains "abc": the weaker need suffices
        (r"abc|.", 0, ALL),
        (r"(foo|bar)+baz", 0, any_of("barbaz", "foobaz")),
        (r"(a|b|c|d|e)(f|g|h|i)xyz", 0, any_of("fxyz", "gxyz", "hxyz", "ixyz")),
        # Small classes are exact sets; large, negated or category classes are any character.
        (r"[Hh]ello [Ww]orld", 0, s("hello world")),
        (r"x[ab]yz", 0, any_of("xayz", "xbyz")),
        (r"x[a-c]y", 0, Query("or", ("xay", "xby", "xcy"))),
        (r"x[a-z]yz", 0, ALL),
        (r"x[^a]yzw", 0, s("yzw")),
        (r"\d+\.\d+\.\d+", 0, ALL),
        (r"(?i)[ab]cd", 0, any_of("acd", "bcd")),
        (r"(?i)[ıx]cd", 0, ALL),  # non-ASCII class members under IGNORECASE are not modelled
        (r"(?i)[ı]cd", 0, s("icd")),  # a one-member class is a literal to the parser
        (r"[ı]cd", 0, s("icd")),
        # Wildcards and repeats.
        (r".*", 0, ALL),
        (r"(?s).*", 0, ALL),
        (r"x*", 0, ALL),
        (r"(abc)*", 0, ALL),
        (r"(abc)?d", 0, ALL),
        (r"(abc)?def", 0, s("def")),  # "abcdef" contains "def": the weaker need suffices
        (r"(abc)+", 0, s("abc")),
        (r"(abc)+?", 0, s("abc")),
        (r"(abc)*+x", 0, ALL),
        (r"x{3}yz", 0, s("xxxyz")),
        (r"(ab){2}", 0, s("abab")),
        (r"(ab){2,}", 0, s("abab")),
        (r"(abc){0}def", 0, s("def")),
        (r"(abc){1,3}", 0, s("abc")),
        (r"(abc|xyz){20}", 0, any_of("abc", "xyz")),
        # Zero-width assertions add nothing to the span, but a look-around's text must be there.
        (r"^abc$", 0, s("abc")),
        (r"\babc\B", 0, s("abc")),
        (r"(?=abcd)\w+", 0, s("abcd")),
        (r"(?<=abc)def", 0, s("abc", "def")),
        (r"(?!abc)def", 0, s("def")),
        (r"(?>abc)d", 0, s("abcd")),
        # Back-references and conditionals.
        (r"(abc)\1", 0, s("abc")),
        (r"(a)?(?(1)bcd|xyz)", 0, any_of("bcd", "xyz")),
        # Inline flags are honoured per group.
        (r"(?i:[ab])cd", 0, any_of("acd", "bcd")),
        (r"(?-i:[ab])cd", re.IGNORECASE, any_of("acd", "bcd")),
    ],
)
def test_plan(pattern: str, flags: int, expected: Query) -> None:
    assert plan(pattern, flags) == expected, str(plan(pattern, flags))


def test_plan_literal_is_plan_of_the_escaped_text() -> None:
    for text in ["return", "os", "a.b*c", 'if __name__ == "__main__":', "İstanbul", ""]:
        assert plan_literal(text) == plan(re.escape(text))


def test_plan_rejects_invalid_patterns_and_bytes() -> None:
    with pytest.raises(re.error):
        plan("(unclosed")
    with pytest.raises(TypeError):
        plan(b"abc")  # type: ignore[arg-type]


def test_huge_repeat_counts_stay_cheap() -> None:
    assert plan("a{65535}") == s("aaaaaaaa")
    assert plan("(abc|xyz){1000}") == any_of("abc", "xyz")


def test_class_products_and_alternations_stay_bounded() -> None:
    assert len(str(plan("[abcdefgh]" * 12))) < 5000
    q = plan("(" + "|".join(f"word{i:03d}" for i in range(200)) + ")")
    assert str(q).startswith("('000' | '001' | ") and str(q).endswith("| '199') & ('word0' | 'word1')")
    assert q.matches("a word123 b") and not q.matches("a word b")


# ---------------------------------------------------------------------------------------------------------------------
# Formulas


def test_formulas_are_normalised() -> None:
    assert plan("abc|abc") == s("abc")
    assert plan("(abc|xyz)(abc|xyz)") == any_of("abcabc", "abcxyz", "xyzabc", "xyzxyz")
    assert plan("(?:abc|xyz)(?:abc|xyz)") == plan("(abc|xyz)(abc|xyz)")  # groups change nothing
    assert str(ALL) == "ALL" and str(NONE) == "NONE"
    assert str(plan("(abc|xyz)def")) == "'abcdef' | 'xyzdef'"
    assert str(plan(r"abc\w+(de|fg)h")) == "'abc' & ('deh' | 'fgh')"


def test_matches_checks_substrings_and_trigrams() -> None:
    q = plan(r"^import (os|sys)$")
    assert q.matches(fold("import sys"))
    assert not q.matches(fold("import re"))
    assert q.matches_trigrams(trigrams("import sys"))
    # Trigrams cannot see order: a false positive the caller's re check removes.
    assert q.matches_trigrams(trigrams("import t sys"))
    assert not q.matches(fold("import t sys"))
    assert ALL.matches("") and not NONE.matches("anything")
    assert ALL.matches_trigrams(frozenset()) and not NONE.matches_trigrams(frozenset({"abc"}))


def test_grams_lists_every_trigram_the_formula_mentions() -> None:
    assert plan(r"^import (os|sys)$").grams() >= {"imp", " os", " sy", "sys"}
    assert ALL.grams() == frozenset()


def test_needles() -> None:
    assert plan(r"class \w+Error").needles() == ("class ",)
    assert plan(r"^import (os|sys)$").needles() == ("import os", "import sys")
    assert plan(r"abc\w+(de|fg)h").needles() == ("abc",)
    assert plan(r"(abc|xyz)\w+(de|fg)h").needles() in {("abc", "xyz"), ("deh", "fgh")}
    assert plan(r"(a|b)c(ab|cde)\w*(abc|defg)").needles() is not None
    assert plan_literal("return").needles() == ("return",)
    assert ALL.needles() is None and NONE.needles() == ()


def test_fts5_expression() -> None:
    q = plan(r"^import (os|sys)$")
    assert q.fts5(phrases=True) == '"import os" OR "import sys"'
    assert q.fts5(phrases=False) == (
        '(" os" AND "imp" AND "mpo" AND "ort" AND "por" AND "rt " AND "t o") OR '
        '(" sy" AND "imp" AND "mpo" AND "ort" AND "por" AND "rt " AND "sys" AND "t s")'
    )
    assert plan("return").fts5(phrases=False) == '"etu" AND "ret" AND "tur" AND "urn"'
    assert plan('say "hi"').fts5(phrases=True) == '"say ""hi"""'
    assert plan(r"abc\w+(de|fg)h").fts5(phrases=True) == '"abc" AND ("deh" OR "fgh")'
    assert plan("abc").fts5(phrases=False) == '"abc"'
    assert ALL.fts5(phrases=True) is None
    with pytest.raises(ValueError, match="NONE"):
        NONE.fts5(phrases=False)


# ---------------------------------------------------------------------------------------------------------------------
# The contract: the planner never loses a match


ALPHABET = "abcxyz_ ().-\niIsSkKıİſ\u212aσΣςµμß0"
ATOMS = st.one_of(
    st.sampled_from(ALPHABET).map(re.escape),
    st.text(ALPHABET, min_size=2, max_size=5).map(re.escape),
    st.sampled_from([".", r"\w", r"\W", r"\d", r"\s", "[ab]", "[a-c]", "[^a]", "[İı]", "[A-Z]", "[sS_]", "[ſ\u212a]",
                     "[σς]", "[0-9]", "[Ii]", "[xX][yY]", "\\Σ"]),
)  # fmt: skip
ANCHORS = st.sampled_from(["^", "$", r"\b", r"\B", r"\A", r"\Z"])
SUFFIXES = st.sampled_from(["*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}", "{0}", "{1}", "*?", "+?", "??", "*+", "++"])


def extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.lists(children, min_size=1, max_size=4).map("".join),
        st.lists(children, min_size=2, max_size=3).map(lambda xs: "(?:" + "|".join(xs) + ")"),
        st.tuples(children, SUFFIXES).map(lambda t: f"(?:{t[0]}){t[1]}"),
        children.map(lambda x: f"({x})"),
        children.map(lambda x: f"(?i:{x})"),
        children.map(lambda x: f"(?-i:{x})"),
        children.map(lambda x: f"(?>{x})"),
        children.map(lambda x: f"(?={x})"),
        children.map(lambda x: f"(?!{x})"),
        st.text(ALPHABET, min_size=1, max_size=3).map(lambda x: f"(?<={re.escape(x)})"),
        st.text(ALPHABET, min_size=1, max_size=3).map(lambda x: f"(?<!{re.escape(x)})"),
        children.map(lambda x: f"(?P<g>{x})(?P=g)"),
        st.tuples(children, children).map(lambda t: f"(?P<c>x)?(?(c){t[0]}|{t[1]})"),
        ANCHORS,
    )


PATTERNS = st.recursive(ATOMS, extend, max_leaves=10)
FLAGS = st.sampled_from([0, re.IGNORECASE, re.IGNORECASE | re.ASCII, re.MULTILINE, re.DOTALL, re.VERBOSE,
                         re.IGNORECASE | re.MULTILINE | re.DOTALL])  # fmt: skip


def compiled(pattern: str, flags: int) -> re.Pattern[str]:
    try:
        return re.compile(pattern, flags)
    except re.error:
        assume(False)
        raise AssertionError("unreachable") from None


def case_variant(data: st.DataObject, text: str) -> str:
    """``text`` with some characters swapped for others ``re`` may treat as the same ignoring case."""
    out = []
    for ch in text:
        variants = fold_classes().get(ch)
        out.append(data.draw(st.sampled_from(variants)) if variants and data.draw(st.booleans()) else ch)
    return "".join(out)


def assert_plan_keeps(pattern: str, flags: int, rx: re.Pattern[str], text: str) -> None:
    if rx.search(text) is None:
        return
    q = plan(pattern, flags)
    folded = fold(text)
    assert q.matches(folded), f"{pattern!r} {flags} matches {text!r} but the plan {q} does not"
    assert q.matches_trigrams(trigrams(folded))
    needles = q.needles()
    assert needles is None or any(n in folded for n in needles), (pattern, text, needles)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(PATTERNS, FLAGS, st.data())
def test_the_planner_never_loses_a_match(pattern: str, flags: int, data: st.DataObject) -> None:
    rx = compiled(pattern, flags)
    text = data.draw(st.from_regex(rx) | st.text(ALPHABET, max_size=12), label="text")
    assert_plan_keeps(pattern, flags, rx, text)
    assert_plan_keeps(pattern, flags, rx, case_variant(data, text))


@pytest.mark.parametrize(
    "pattern", [r"(?i)import", r"(?i)[a-z]ey", r"(?i)string", r"(?i)σας", r"(?i)MICRO µ", "ımport"]
)
@pytest.mark.parametrize("text", ["import os", "ımport", "İMPORT", "\u212aey", "ſtring", "ΣΑΣ", "micro Μ", "ıMPORT"])
def test_case_variants_re_matches_are_kept(pattern: str, text: str) -> None:
    assert_plan_keeps(pattern, 0, re.compile(pattern), text)


@settings(max_examples=300, deadline=None)
@given(st.text(ALPHABET + "Ab\"'*%", max_size=10), st.text(ALPHABET, max_size=20), st.text(ALPHABET, max_size=20))
def test_literal_plans_never_lose_a_match(literal: str, before: str, after: str) -> None:
    text = before + literal + after
    for flags in (0, re.IGNORECASE):
        assert_plan_keeps(re.escape(literal), flags, re.compile(re.escape(literal), flags), text)
    assert plan_literal(literal).matches(fold(text))


@settings(max_examples=300)
@given(st.text(ALPHABET, min_size=1, max_size=4), st.text(ALPHABET, max_size=12), st.data())
def test_a_case_insensitive_literal_matches_where_its_fold_is_a_substring_of_the_fold(
    literal: str, text: str, data: st.DataObject
) -> None:
    """What lets a verifier find case-insensitive literals with ``str.find`` in folded text instead of ``re``."""
    for hay in (text, text + case_variant(data, literal) + text):
        assert (re.search(re.escape(literal), hay, re.IGNORECASE) is not None) == (fold(literal) in fold(hay))


# ---------------------------------------------------------------------------------------------------------------------
# The FTS5 expression, run by SQLite: the candidates include every text with a match


def fts5_trigram_available() -> bool:
    try:
        sqlite3.connect(":memory:").execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')")
    except sqlite3.OperationalError:
        return False
    return True


needs_fts5 = pytest.mark.skipif(not fts5_trigram_available(), reason="SQLite without FTS5 trigram (needs >= 3.34)")


@needs_fts5
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(PATTERNS, FLAGS, st.data())
def test_fts5_candidates_include_every_match(pattern: str, flags: int, data: st.DataObject) -> None:
    rx = compiled(pattern, flags)
    # SQLite's FTS5 reads a text up to its first NUL: the index is never given one (a NUL makes a file binary).
    text = (st.from_regex(rx) | st.text(ALPHABET, max_size=12)).map(lambda t: t.replace("\x00", " "))
    texts = data.draw(st.lists(text, min_size=1, max_size=4))
    texts += [case_variant(data, t) for t in texts]
    q = plan(pattern, flags)
    db = sqlite3.connect(":memory:")
    for detail, phrases in (("full", True), ("none", False)):
        db.execute(
            f"CREATE VIRTUAL TABLE t_{detail} USING fts5(body, tokenize='trigram case_sensitive 1', detail={detail})"
        )
        db.executemany(
            f"INSERT INTO t_{detail}(rowid, body) VALUES (?, ?)", [(i, fold(t)) for i, t in enumerate(texts)]
        )
        expression = q.fts5(phrases=phrases) if q.op != "none" else None
        if q.op == "none":
            candidates: set[int] = set()
        elif expression is None:
            candidates = set(range(len(texts)))
        else:
            rows = db.execute(f"SELECT rowid FROM t_{detail} WHERE t_{detail} MATCH ?", (expression,))
            candidates = {rowid for (rowid,) in rows}
        matching = {i for i, t in enumerate(texts) if rx.search(t)}
        assert matching <= candidates, (detail, expression, [texts[i] for i in matching - candidates])
        # And the candidates are exactly the texts that satisfy the formula (FTS5 evaluates what we mean).
        decide = q.matches if phrases else lambda f: q.matches_trigrams(trigrams(f))
        assert candidates == {i for i, t in enumerate(texts) if decide(fold(t))}, (detail, expression)
