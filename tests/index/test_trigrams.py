"""The text index's query planner: folding, formulas, FTS5 rendering, and the planner never losing a match."""

from __future__ import annotations

import _sre
import functools
import re
import sqlite3
import sys
import warnings
from re import _constants as sre  # the planner's private dependencies, pinned at the end
from re import _parser
from typing import Any

import pytest
import re2
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mesh.index.query._search import SearchError, compile_query
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
# The contract: the planner never loses a match that search would report
#
# smart_search matches a regular expression with RE2 and a literal with ``re`` (``compile_query``), and asks the index
# with the formula ``compile_query`` plans. So the reference of the properties below is the pattern ``compile_query``
# compiles, RE2 for a regex: a text it matches must satisfy the formula. ``plan``'s own contract (``re`` semantics,
# look-arounds and back-references that RE2 refuses) is checked too, with ``re`` as the reference.


ALPHABET = "abcxyz_ ().-\niIsSkKıİſ\u212aσΣςµμß0"
SHARED_ATOMS = [".", r"\w", r"\W", r"\d", r"\s", "[ab]", "[a-c]", "[^a]", "[İı]", "[A-Z]", "[sS_]", "[ſ\u212a]",
                "[σς]", "[0-9]", "[Ii]", "[xX][yY]", "\\Σ"]  # fmt: skip
#: Syntax RE2 reads and ``re`` reads otherwise or not at all (the planner must then ask for nothing it cannot prove).
RE2_ONLY_ATOMS = [r"\pL", r"\p{Greek}", r"\PL", "[[:alpha:]]", "[[:^digit:]]", r"\Qa.b\E", r"\x{3c3}", r"\C", r"\z",
                  "(?U:a+)", "x{,2}", "(?<n>ab)"]  # fmt: skip
ATOMS = st.one_of(
    st.sampled_from(ALPHABET).map(re.escape),
    st.text(ALPHABET, min_size=2, max_size=5).map(re.escape),
    st.sampled_from(SHARED_ATOMS),
)
RE2_ATOMS = ATOMS | st.sampled_from(RE2_ONLY_ATOMS)
ANCHORS = st.sampled_from(["^", "$", r"\b", r"\B", r"\A", r"\Z"])
RE2_ANCHORS = st.sampled_from(["^", "$", r"\b", r"\B", r"\A", r"\z"])
SUFFIXES = st.sampled_from(["*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}", "{0}", "{1}", "*?", "+?", "??", "*+", "++"])
RE2_SUFFIXES = st.sampled_from(["*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}", "{0}", "{1}", "*?", "+?", "??", "{,2}"])


def extend_common(children: st.SearchStrategy[str], suffixes: st.SearchStrategy[str]) -> list[st.SearchStrategy[str]]:
    return [
        st.lists(children, min_size=1, max_size=4).map("".join),
        st.lists(children, min_size=2, max_size=3).map(lambda xs: "(?:" + "|".join(xs) + ")"),
        st.tuples(children, suffixes).map(lambda t: f"(?:{t[0]}){t[1]}"),
        children.map(lambda x: f"({x})"),
        children.map(lambda x: f"(?i:{x})"),
        children.map(lambda x: f"(?-i:{x})"),
    ]


def extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        *extend_common(children, SUFFIXES),
        children.map(lambda x: f"(?>{x})"),
        children.map(lambda x: f"(?={x})"),
        children.map(lambda x: f"(?!{x})"),
        st.text(ALPHABET, min_size=1, max_size=3).map(lambda x: f"(?<={re.escape(x)})"),
        st.text(ALPHABET, min_size=1, max_size=3).map(lambda x: f"(?<!{re.escape(x)})"),
        children.map(lambda x: f"(?P<g>{x})(?P=g)"),
        st.tuples(children, children).map(lambda t: f"(?P<c>x)?(?(c){t[0]}|{t[1]})"),
        ANCHORS,
    )


def extend_re2(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(*extend_common(children, RE2_SUFFIXES), children.map(lambda x: f"(?s:{x})"), RE2_ANCHORS)


PATTERNS = st.recursive(ATOMS, extend, max_leaves=10)
RE2_PATTERNS = st.recursive(RE2_ATOMS, extend_re2, max_leaves=10)
FLAGS = st.sampled_from([0, re.IGNORECASE, re.IGNORECASE | re.ASCII, re.MULTILINE, re.DOTALL, re.VERBOSE,
                         re.IGNORECASE | re.MULTILINE | re.DOTALL])  # fmt: skip


def compiled(pattern: str, flags: int) -> re.Pattern[str]:
    try:
        return re.compile(pattern, flags)
    except re.error:
        assume(False)
        raise AssertionError("unreachable") from None


def searched(pattern: str, case_sensitive: bool) -> tuple[Any, Query]:
    """What smart_search matches a regex with (RE2) and the formula it asks the index, from ``compile_query``."""
    try:
        return compile_query(pattern, regex=True, case_sensitive=case_sensitive)
    except SearchError:  # not RE2 syntax: search refuses it before reading anything
        assume(False)
        raise AssertionError("unreachable") from None


def texts_for(pattern: str, case_sensitive: bool) -> st.SearchStrategy[str]:
    """Texts likely to hold a match: drawn from the pattern as ``re`` reads it (where it can), or from the alphabet."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # "possible nested set": RE2's [[:alpha:]]
            rx = re.compile(pattern, 0 if case_sensitive else re.IGNORECASE)
    except re.error:
        return st.text(ALPHABET, max_size=12)
    return st.from_regex(rx) | st.text(ALPHABET, max_size=12)


def case_variant(data: st.DataObject, text: str) -> str:
    """``text`` with some characters swapped for others ``re`` may treat as the same ignoring case."""
    out = []
    for ch in text:
        variants = fold_classes().get(ch)
        out.append(data.draw(st.sampled_from(variants)) if variants and data.draw(st.booleans()) else ch)
    return "".join(out)


def assert_formula_keeps(what: str, q: Query, found: bool, text: str) -> None:
    """A text in which the engine found a match satisfies the formula, its trigrams too, and holds a needle."""
    if not found:
        return
    folded = fold(text)
    assert q.matches(folded), f"{what} matches {text!r} but the plan {q} does not"
    assert q.matches_trigrams(trigrams(folded))
    needles = q.needles()
    assert needles is None or any(n in folded for n in needles), (what, text, needles)


def assert_plan_keeps(pattern: str, flags: int, rx: re.Pattern[str], text: str) -> None:
    assert_formula_keeps(f"re {pattern!r} {flags}", plan(pattern, flags), rx.search(text) is not None, text)


def assert_search_keeps(pattern: str, case_sensitive: bool, text: str) -> None:
    rx, q = searched(pattern, case_sensitive)
    what = f"RE2 {pattern!r} case_sensitive={case_sensitive}"
    assert_formula_keeps(what, q, rx.search(text) is not None, text)


#: ``re`` (and Hypothesis's reading of a pattern) warn of "[[" as a possible nested set: RE2's POSIX classes.
NESTED_SET_WARNING = pytest.mark.filterwarnings("ignore:Possible nested set:FutureWarning")


@NESTED_SET_WARNING
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(RE2_PATTERNS, st.booleans(), st.data())
def test_the_planner_never_loses_a_match_search_finds_with_re2(
    pattern: str, case_sensitive: bool, data: st.DataObject
) -> None:
    """The reference is the engine search matches with: RE2, compiled as ``compile_query`` compiles it."""
    searched(pattern, case_sensitive)
    text = data.draw(texts_for(pattern, case_sensitive), label="text")
    assert_search_keeps(pattern, case_sensitive, text)
    assert_search_keeps(pattern, case_sensitive, case_variant(data, text))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(PATTERNS, FLAGS, st.data())
def test_the_planner_never_loses_a_match_of_re(pattern: str, flags: int, data: st.DataObject) -> None:
    """``plan``'s own contract, in ``re`` terms (look-arounds, back-references, conditionals...)."""
    rx = compiled(pattern, flags)
    text = data.draw(st.from_regex(rx) | st.text(ALPHABET, max_size=12), label="text")
    assert_plan_keeps(pattern, flags, rx, text)
    assert_plan_keeps(pattern, flags, rx, case_variant(data, text))


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"[[:alpha:]]xyz", "bxyz"),  # a POSIX class (re would read a class of "[:alph" and a literal "]xyz")
        (r"[[:^digit:]]abc", "_abc"),
        (r"\Qa.b\E", "a.b"),
        (r"\pLxyz", "σxyz"),
        (r"\x{3c3}abc", "σabc"),
        (r"(?U:a+)bcd", "aabcd"),
        (r"x{,2}yz", "x{,2}yz"),  # re reads a repeat, RE2 a literal
        (r"(?<n>abc)d", "abcd"),
        (r"\Cabc", "ıabc"),
    ],
)
def test_re2_only_syntax_never_loses_a_match(pattern: str, text: str) -> None:
    for case_sensitive in (True, False):
        rx, q = searched(pattern, case_sensitive)
        assert rx.search(text) is not None, (pattern, text)
        assert_search_keeps(pattern, case_sensitive, text)


@pytest.mark.parametrize(
    "pattern", [r"(?i)import", r"(?i)[a-z]ey", r"(?i)string", r"(?i)σας", r"(?i)MICRO µ", "ımport"]
)
@pytest.mark.parametrize("text", ["import os", "ımport", "İMPORT", "\u212aey", "ſtring", "ΣΑΣ", "micro Μ", "ıMPORT"])
def test_case_variants_re_matches_are_kept(pattern: str, text: str) -> None:
    assert_plan_keeps(pattern, 0, re.compile(pattern), text)
    for case_sensitive in (True, False):
        assert_search_keeps(pattern, case_sensitive, text)


@settings(max_examples=300, deadline=None)
@given(st.text(ALPHABET + "Ab\"'*%", max_size=10), st.text(ALPHABET, max_size=20), st.text(ALPHABET, max_size=20))
def test_literal_plans_never_lose_a_match(literal: str, before: str, after: str) -> None:
    """A literal search matches with ``re`` (``compile_query``): its formula keeps every match."""
    text = before + literal + after
    for case_sensitive in (True, False):
        rx, q = compile_query(literal, regex=False, case_sensitive=case_sensitive)
        assert_formula_keeps(f"literal {literal!r}", q, rx.search(text) is not None, text)
        assert rx.search(text) is not None
    assert plan_literal(literal).matches(fold(text))


@settings(max_examples=300)
@given(st.text(ALPHABET, min_size=1, max_size=4), st.text(ALPHABET, max_size=12), st.data())
def test_a_case_insensitive_literal_matches_where_its_fold_is_a_substring_of_the_fold(
    literal: str, text: str, data: st.DataObject
) -> None:
    """What lets a verifier find case-insensitive literals with ``str.find`` in folded text instead of ``re``."""
    for hay in (text, text + case_variant(data, literal) + text):
        assert (re.search(re.escape(literal), hay, re.IGNORECASE) is not None) == (fold(literal) in fold(hay))


def re2_ignoring_case(pattern: str) -> Any:
    options = re2.Options()
    options.case_sensitive = False
    return re2.compile(pattern, options)


def test_re2_matches_characters_ignoring_case_only_when_they_fold_alike() -> None:
    """Search matches a case-insensitive regex with RE2, whose case classes are Unicode's simple folding: every
    character RE2 takes for another ignoring case has the same fold, so the folded index finds it."""
    classes = fold_classes()
    cased = [
        ch
        for ch, up in zip(all_characters(), map(str.upper, all_characters()), strict=True)
        if up != ch or ch.lower() != ch or ch in classes
    ]
    mismatched = []
    for ch in cased:
        pattern = re2_ignoring_case(r"\x{%x}" % ord(ch))
        variants = {ch.lower(), ch.upper(), ch.title(), *classes.get(ch, ())}
        for other in (v for v in variants if len(v) == 1 and v != ch):
            if pattern.fullmatch(other) is not None and fold(other) != fold(ch):
                mismatched.append((hex(ord(ch)), hex(ord(other))))
    assert mismatched == []
    # And no character outside those has RE2 case partners among them: the closure of the cased set is itself.
    closure = re2_ignoring_case("[" + "".join(r"\x{%x}" % ord(ch) for ch in cased) + "]")
    known = set(cased)
    outside = "".join(ch for ch in all_characters() if ch not in known and ch != "\n")
    assert [hex(ord(m.group())) for m in closure.finditer(outside)] == []


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
@NESTED_SET_WARNING
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(RE2_PATTERNS, st.booleans(), st.data())
def test_fts5_candidates_include_every_match(pattern: str, case_sensitive: bool, data: st.DataObject) -> None:
    rx, q = searched(pattern, case_sensitive)
    # SQLite's FTS5 reads a text up to its first NUL: the index is never given one (a NUL makes a file binary).
    text = texts_for(pattern, case_sensitive).map(lambda t: t.replace("\x00", " "))
    texts = data.draw(st.lists(text, min_size=1, max_size=4))
    texts += [case_variant(data, t) for t in texts]
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


# ---------------------------------------------------------------------------------------------------------------------
# CPython's private regular-expression parser, as the planner reads it
#
# ``plan`` walks the tree of ``re._parser.parse`` with the opcodes of ``re._constants``, and ``fold`` takes the extra
# case classes of ``re._casefix``: none of them is a public API. These tests pin every shape the planner reads, on
# every Python CI runs the quick tier with (3.11, 3.12, 3.13): a change in a new Python fails here, by name, before
# it can make a plan wrong. ``_node`` treats an opcode it does not know as "no information", never a wrong one.


def shape(node: object) -> object:
    """A parse tree as plain data: opcodes by name, sub-patterns as lists."""
    if isinstance(node, (_parser.SubPattern, list)):
        return [shape(item) for item in node]
    if isinstance(node, tuple):
        return tuple(shape(item) for item in node)
    if isinstance(node, sre._NamedIntConstant):
        return node.name
    return node


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("a", [("LITERAL", 97)]),
        ("[ab]", [("IN", [("LITERAL", 97), ("LITERAL", 98)])]),
        ("[a-c]", [("IN", [("RANGE", (97, 99))])]),
        ("[^a]", [("NOT_LITERAL", 97)]),
        ("[^ab]", [("IN", [("NEGATE", None), ("LITERAL", 97), ("LITERAL", 98)])]),
        (r"\d", [("IN", [("CATEGORY", "CATEGORY_DIGIT")])]),
        (".", [("ANY", None)]),
        ("ab|cd", [("BRANCH", (None, [[("LITERAL", 97), ("LITERAL", 98)], [("LITERAL", 99), ("LITERAL", 100)]]))]),
        ("(a)", [("SUBPATTERN", (1, 0, 0, [("LITERAL", 97)]))]),
        ("(?i:a)", [("SUBPATTERN", (None, re.IGNORECASE, 0, [("LITERAL", 97)]))]),
        ("(?-i:a)", [("SUBPATTERN", (None, 0, re.IGNORECASE, [("LITERAL", 97)]))]),
        ("(?>a)", [("ATOMIC_GROUP", [("LITERAL", 97)])]),
        ("a*", [("MAX_REPEAT", (0, "MAXREPEAT", [("LITERAL", 97)]))]),
        ("a{2,5}?", [("MIN_REPEAT", (2, 5, [("LITERAL", 97)]))]),
        ("a++", [("POSSESSIVE_REPEAT", (1, "MAXREPEAT", [("LITERAL", 97)]))]),
        ("^", [("AT", "AT_BEGINNING")]),
        ("(?=a)", [("ASSERT", (1, [("LITERAL", 97)]))]),
        ("(?<=a)", [("ASSERT", (-1, [("LITERAL", 97)]))]),
        ("(?!a)", [("ASSERT_NOT", (1, [("LITERAL", 97)]))]),
        (r"(a)\1", [("SUBPATTERN", (1, 0, 0, [("LITERAL", 97)])), ("GROUPREF", 1)]),
        ("(a)(?(1)b|c)", [("SUBPATTERN", (1, 0, 0, [("LITERAL", 97)])),
                          ("GROUPREF_EXISTS", (1, [("LITERAL", 98)], [("LITERAL", 99)]))]),
        ("(a)(?(1)b)", [("SUBPATTERN", (1, 0, 0, [("LITERAL", 97)])),
                        ("GROUPREF_EXISTS", (1, [("LITERAL", 98)], None))]),
    ],
)  # fmt: skip
def test_the_private_parser_gives_the_shapes_the_planner_reads(pattern: str, expected: list) -> None:
    assert shape(_parser.parse(pattern)) == expected


def test_the_private_parser_flags_repeat_bound_and_errors_are_as_the_planner_expects() -> None:
    assert sre.SRE_FLAG_IGNORECASE == re.IGNORECASE
    assert _parser.parse("(?i)a").state.flags & sre.SRE_FLAG_IGNORECASE
    assert not _parser.parse("a").state.flags & sre.SRE_FLAG_IGNORECASE
    assert _parser.parse("a", re.IGNORECASE).state.flags & sre.SRE_FLAG_IGNORECASE
    assert int(sre.MAXREPEAT) >= 2**16  # "unbounded" compares as a large number
    with pytest.raises(re.error):
        _parser.parse("(unclosed")
    # The opcodes ``_node`` and ``_class`` compare against, by identity.
    for name in ("LITERAL", "NOT_LITERAL", "ANY", "IN", "BRANCH", "SUBPATTERN", "ATOMIC_GROUP", "MAX_REPEAT",
                 "MIN_REPEAT", "POSSESSIVE_REPEAT", "AT", "ASSERT", "ASSERT_NOT", "GROUPREF_EXISTS",
                 "RANGE"):  # fmt: skip
        assert isinstance(getattr(sre, name), sre._NamedIntConstant), name


def test_the_private_extra_case_classes_are_a_table_of_code_points() -> None:
    from re._casefix import _EXTRA_CASES

    assert all(isinstance(k, int) and isinstance(v, tuple) and all(isinstance(x, int) for x in v)
               for k, v in _EXTRA_CASES.items())  # fmt: skip
    # The classes fold's docstring names, both ways.
    for one, other in ((0x69, 0x131), (0x73, 0x17F), (0x3C3, 0x3C2), (0xB5, 0x3BC), (0x3B2, 0x3D0)):
        assert other in _EXTRA_CASES[one] and one in _EXTRA_CASES[other], (hex(one), hex(other))


def test_an_opcode_the_planner_does_not_know_asks_for_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were a new Python to add an opcode, ``_node`` answers "no information" (every file a candidate)."""
    from mesh.index.store import _trigrams

    monkeypatch.setattr(_trigrams.sre, "LITERAL", object())  # LITERAL is now unknown to the planner
    assert plan("abcdef") == ALL
