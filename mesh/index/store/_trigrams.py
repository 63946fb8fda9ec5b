"""Which substrings a regular expression needs: the query planner of the workspace text index.

Theory of operation
-------------------
The text index keeps, for every file, the trigrams (three-character windows) of its *folded*
content. :func:`fold` maps each character to one representative of its case-insensitive class as
Python's ``re`` defines that class (simple lower case, then the extra equivalences of
``re._casefix``, such as ``ı``/``i``, ``ſ``/``s``, ``ς``/``σ``). Folding is one character for one
character, so a match at ``text[a:b]`` appears, folded, at ``fold(text)[a:b]``; a case-sensitive
match is also a case-insensitive one, so one folded index serves both kinds of query.

:func:`plan` reads the pattern with ``re._parser`` (sre_parse) and works out, bottom-up, what
every match of each sub-expression must look like (the method of Russ Cox's codesearch): whether
it can be empty; the exact set of (folded) strings it matches, while that set is small; otherwise
the strings its matches must begin and end with; and a :class:`Query`, a boolean formula over
substrings that every text holding a match contains. A sequence ANDs its parts and crosses exact
sets (``import (os|sys)`` needs ``"import os"`` or ``"import sys"``), an alternation ORs its
branches, a junction between two inexact parts contributes the strings spanning it. Wildcards,
large classes, back-references and anything else the analysis does not model contribute nothing:
the formula can only get weaker, down to :data:`ALL` (scan every file), never wrong. Strings
shorter than three characters say nothing to a trigram index and are dropped.

The contract, checked by a Hypothesis property in ``tests/index/test_trigrams.py``: if
``re.search(pattern, text, flags)`` matches, then ``plan(pattern, flags).matches(fold(text))``;
and ``matches`` implies ``matches_trigrams(trigrams(fold(text)))``. The caller turns the formula
into index lookups (:meth:`Query.fts5` for SQLite FTS5) and verifies the candidates with ``re``;
:meth:`Query.needles` names strings to look for with ``str.find`` in a folded candidate, so that
only the lines holding one are given to ``re``. docs/textindex.md measures the whole scheme.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from re import _constants as sre  # sre_constants
from re import _parser  # sre_parse
from re._casefix import _EXTRA_CASES
from typing import Final, Literal

import attrs

__all__ = ["ALL", "GRAM", "NONE", "Query", "fold", "indexed", "plan", "plan_literal", "trigrams"]

#: Length of the index's grams.
GRAM: Final = 3
#: An exact set with more strings than this is recorded in the formula and reduced to its ends.
MAX_EXACT: Final = 16
#: A prefix or suffix set with more strings than this is shortened further.
MAX_SET: Final = 16
#: The strings spanning a junction are required only when there are at most this many.
MAX_JUNCTION: Final = 64
#: A counted repeat is unrolled at most this many times.
MAX_UNROLL: Final = 8
#: A character class with more members than this is treated as any character.
MAX_CLASS: Final = 8


def _canon_table() -> dict[int, str]:
    """Each member of an ``re`` extra case class (already lower case) to the least member of its class."""
    classes: dict[int, frozenset[int]] = {}
    for code, others in _EXTRA_CASES.items():
        members = {code, *others}
        for member in tuple(members):
            members |= classes.get(member, frozenset())
        for member in members:
            classes[member] = frozenset(members)
    return {code: chr(min(members)) for code, members in sorted(classes.items()) if min(members) != code}


_CANON: Final = _canon_table()
_CANON_PAIRS: Final = tuple((chr(code), representative) for code, representative in _CANON.items())


def fold(text: str) -> str:
    """``text`` with every character replaced by the representative of its ``re`` case-insensitive class.

    Same length as ``text``. ASCII text is simply lower-cased. Elsewhere: ``str.lower`` (whose only
    one-to-many mapping, U+0130, is replaced first by its simple lower case ``i``; its final-sigma
    rule is undone by the canonical table, where ``σ`` and ``ς`` are one class), then the extra
    classes of ``re._casefix``.
    """
    if text.isascii():
        return text.lower()
    text = text.replace("\u0130", "i").lower()
    for member, representative in _CANON_PAIRS:  # a few scans beat str.translate's per-character lookups
        if member in text:
            text = text.replace(member, representative)
    return text


def indexed(text: str) -> str:
    """The form of a file's text the trigram index holds: folded, and NUL (where FTS5 stops reading a
    text) replaced by U+FFFD. Same length as ``text``, so positions carry over."""
    return fold(text).replace("\x00", "\ufffd")


def trigrams(folded: str) -> frozenset[str]:
    """The set of :data:`GRAM`-character windows of ``folded`` (what the index stores for a file)."""
    return frozenset(map("".join, zip(folded, folded[1:], folded[2:])))  # GRAM windows, joined: twice as fast


@attrs.frozen
class Query:
    """A formula over substrings a folded text must contain; build with :func:`plan`, not directly.

    ``op`` is ``"all"`` (no requirement: every text), ``"none"`` (no text), ``"and"`` (every string
    and every sub-query) or ``"or"`` (some string or some sub-query). Strings are folded and at least
    :data:`GRAM` long; a single requirement is an ``"and"`` of one string. Formulas are kept
    normalised (flat, without ALL/NONE inside, without strings implied by other strings, sorted),
    so equal formulas compare equal.
    """

    op: Literal["all", "none", "and", "or"]
    strings: tuple[str, ...] = ()
    subs: tuple[Query, ...] = ()

    def matches(self, folded: str) -> bool:
        """Whether the folded text ``folded`` satisfies the formula (each string as a substring)."""
        return self._eval(lambda s: s in folded)

    def matches_trigrams(self, grams: AbstractSet[str]) -> bool:
        """Whether a text whose trigram set is ``grams`` may satisfy it (what a trigram index can decide)."""
        return self._eval(lambda s: all(s[i : i + GRAM] in grams for i in range(len(s) - GRAM + 1)))

    def _eval(self, has: Callable[[str], bool]) -> bool:
        if self.op == "all":
            return True
        if self.op == "none":
            return False
        if self.op == "and":
            return all(map(has, self.strings)) and all(sub._eval(has) for sub in self.subs)
        return any(map(has, self.strings)) or any(sub._eval(has) for sub in self.subs)

    def grams(self) -> frozenset[str]:
        """Every trigram the formula mentions (for diagnostics and for choosing what to look up)."""
        found = {g for s in self.strings for g in trigrams(s)}
        for sub in self.subs:
            found |= sub.grams()
        return frozenset(found)

    def needles(self) -> tuple[str, ...] | None:
        """Strings one of which every text satisfying the formula contains; None when there are none (ALL).

        A verifier's pre-filter: only the lines holding a needle (found with ``str.find`` in the folded
        text) can match, so only those need ``re``. An AND gives its longest string (or the needles of
        its smallest OR), an OR the needles of every alternative, NONE no needle at all.
        """
        if self.op == "all":
            return None
        if self.op == "none":
            return ()
        if self.op == "and":
            if self.strings:
                return (max(self.strings, key=lambda s: (len(s), s)),)
            options = [n for n in (sub.needles() for sub in self.subs) if n is not None]
            return min(options, key=len) if options else None
        found = list(self.strings)
        for sub in self.subs:
            sub_needles = sub.needles()
            if sub_needles is None:
                return None
            found.extend(sub_needles)
        return tuple(sorted(set(found)))

    def fts5(self, *, phrases: bool, keep: Callable[[list[str]], list[str]] | None = None) -> str | None:
        """An FTS5 ``MATCH`` expression for a trigram table holding folded text, or None for :data:`ALL`.

        With ``phrases`` (tables with ``detail=full``) each string is one quoted phrase, which FTS5
        checks position by position. Without (``detail=none`` or ``column``, where FTS5 refuses
        phrases longer than one token) each string becomes the AND of its trigrams, or of those
        ``keep`` keeps of them (sorted, never none): fewer trigrams select more files, never fewer,
        and the caller reads the files to decide. :data:`NONE` has no expression: the caller
        answers "no match" without asking (ValueError).
        """
        if self.op == "all":
            return None
        if self.op == "none":
            raise ValueError("the NONE query matches no text: answer without querying the index")
        return self._fts5(phrases, keep)

    def _fts5(self, phrases: bool, keep: Callable[[list[str]], list[str]] | None = None) -> str:
        def quote(token: str) -> str:
            # the index holds a NUL as U+FFFD (:func:`indexed`); SQLite would end the string at it
            return '"' + token.replace('"', '""').replace("\x00", "\ufffd") + '"'

        def terms(strings: Iterable[str]) -> list[str]:
            if phrases:
                return [quote(s) for s in strings]
            grams = sorted({g for s in strings for g in trigrams(s)})
            if keep is not None and len(grams) > 1:
                grams = sorted(keep(grams)) or grams
            return [quote(g) for g in grams]

        subs = [f"({sub._fts5(phrases, keep)})" for sub in self.subs]
        if self.op == "and":
            return " AND ".join(terms(self.strings) + subs)
        alternatives = []
        for s in self.strings:
            one = terms([s])
            alternatives.append(one[0] if len(one) == 1 else "(" + " AND ".join(one) + ")")
        return " OR ".join(alternatives + subs)

    def __str__(self) -> str:
        if self.op in ("all", "none"):
            return self.op.upper()
        parts = [repr(s) for s in self.strings] + [f"({sub})" for sub in self.subs]
        return (" & " if self.op == "and" else " | ").join(parts)


#: Every text satisfies it: the index cannot narrow the search (scan everything).
ALL: Final = Query("all")
#: No text satisfies it.
NONE: Final = Query("none")


def _string(s: str) -> Query:
    return Query("and", (s,)) if len(s) >= GRAM else ALL


def _and(queries: Iterable[Query]) -> Query:
    strings: set[str] = set()
    subs: list[Query] = []
    for q in queries:
        if q.op == "none":
            return NONE
        if q.op == "and":
            strings.update(q.strings)
            subs.extend(q.subs)
        elif q.op == "or":
            subs.append(q)
    # A string inside a longer required string is implied by it.
    kept = tuple(sorted(s for s in strings if not any(s != t and s in t for t in strings)))
    # An OR with a branch implied by a required string is satisfied already; so is one implied by
    # another OR of strings (each of whose alternatives contains one of its alternatives).
    ors = [q for q in dict.fromkeys(subs) if not any(s in t for s in q.strings for t in kept)]
    ors = [q for q in ors if not any(p != q and _implies(p, q) for p in ors)]
    if not kept and not ors:
        return ALL
    if not kept and len(ors) == 1:
        return ors[0]
    return Query("and", kept, tuple(sorted(ors, key=str)))


def _implies(p: Query, q: Query) -> bool:
    """Whether the OR of strings ``p`` implies the OR ``q`` (a sufficient test, not a complete one)."""
    return not p.subs and all(any(s in t for s in q.strings) for t in p.strings)


def _or(queries: Iterable[Query]) -> Query:
    strings: set[str] = set()
    subs: list[Query] = []
    for q in queries:
        if q.op == "all":
            return ALL
        if q.op == "or":
            strings.update(q.strings)
            subs.extend(q.subs)
        elif q.op == "and" and len(q.strings) == 1 and not q.subs:
            strings.add(q.strings[0])
        elif q.op == "and":
            subs.append(q)
    # A string containing another alternative string implies it: the shorter one is the weaker need.
    kept = tuple(sorted(t for t in strings if not any(s != t and s in t for s in strings)))
    # An AND that requires a string containing one of the alternatives implies that alternative.
    ands = [q for q in dict.fromkeys(subs) if not any(s in t for s in kept for t in q.strings)]
    if not kept and not ands:
        return NONE
    if len(kept) + len(ands) == 1:
        return _string(kept[0]) if kept else ands[0]
    return Query("or", kept, tuple(sorted(ands, key=str)))


def _any_of(strings: Iterable[str]) -> Query:
    """Some string of ``strings`` is present (ALL when one is too short to look up; NONE when empty)."""
    strings = tuple(strings)
    if any(len(s) < GRAM for s in strings):
        return ALL
    return _or(_string(s) for s in strings)


@attrs.frozen
class _Info:
    """What every match of a sub-expression looks like (folded)."""

    #: It can match the empty string.
    empty: bool
    #: Every match is one of these strings (None: unknown or too many).
    exact: frozenset[str] | None
    #: When inexact: every match begins with one of these (``""`` when it may begin with anything).
    prefix: frozenset[str]
    #: When inexact: every match ends with one of these.
    suffix: frozenset[str]
    #: Every text holding a match satisfies this.
    match: Query

    @property
    def starts(self) -> frozenset[str]:
        return self.exact if self.exact is not None else self.prefix

    @property
    def ends(self) -> frozenset[str]:
        return self.exact if self.exact is not None else self.suffix

    def final(self) -> Query:
        return _and([self.match, _any_of(self.exact)]) if self.exact is not None else self.match


_NO_STRINGS: Final[frozenset[str]] = frozenset()
_ANYWHERE: Final = frozenset({""})


def _exact(strings: Iterable[str], match: Query = ALL) -> _Info:
    strings = frozenset(strings)
    return _Info("" in strings, strings, _NO_STRINGS, _NO_STRINGS, match)


_EMPTY: Final = _exact({""})
_ANY_CHAR: Final = _Info(False, None, _ANYWHERE, _ANYWHERE, ALL)
_ANYTHING: Final = _Info(True, None, _ANYWHERE, _ANYWHERE, ALL)


def _cross(left: Iterable[str], right: Iterable[str]) -> frozenset[str]:
    right = tuple(right)
    return frozenset(a + b for a in left for b in right)


def _shorten(strings: frozenset[str], *, at_end: bool) -> frozenset[str]:
    """``strings`` if few, else their ends that can still join a neighbour into a trigram (fewer if still many)."""
    if len(strings) <= MAX_SET:
        return strings
    for keep in range(GRAM - 1, -1, -1):
        out = frozenset((s[len(s) - keep :] if keep else "") if at_end else s[:keep] for s in strings)
        if len(out) <= MAX_SET:
            return out
    raise AssertionError("unreachable: keeping nothing leaves at most one string")


def _inexact(info: _Info) -> _Info:
    """``info`` with its exact set (if any) recorded in the formula and reduced to short ends."""
    if info.exact is not None:
        info = _Info(info.empty, None, info.exact, info.exact, _and([info.match, _any_of(info.exact)]))
    match = _and([info.match, _any_of(info.prefix), _any_of(info.suffix)])
    return _Info(info.empty, None, _shorten(info.prefix, at_end=False), _shorten(info.suffix, at_end=True), match)


def _simplify(info: _Info) -> _Info:
    if info.exact is not None and len(info.exact) <= MAX_EXACT:
        return info
    return _inexact(info)


def _concat(x: _Info, y: _Info) -> _Info:
    if x.exact is not None and y.exact is not None and len(x.exact) * len(y.exact) > MAX_EXACT:
        x, y = _inexact(x), _inexact(y)
    match = _and([x.match, y.match])
    if x.exact is not None and y.exact is not None:
        return _simplify(_exact(_cross(x.exact, y.exact), match))
    if x.exact is None and y.exact is None and len(x.suffix) * len(y.prefix) <= MAX_JUNCTION:
        # The strings spanning the junction: some x-suffix followed by some y-prefix.
        match = _and([match, _any_of(_cross(x.suffix, y.prefix))])
    prefix = _cross(x.exact, y.prefix) if x.exact is not None else x.prefix | (y.starts if x.empty else _NO_STRINGS)
    suffix = _cross(x.suffix, y.exact) if y.exact is not None else y.suffix | (x.ends if y.empty else _NO_STRINGS)
    return _simplify(_Info(x.empty and y.empty, None, prefix, suffix, match))


def _alternate(x: _Info, y: _Info) -> _Info:
    if x.exact is not None and y.exact is not None:
        return _simplify(_exact(x.exact | y.exact, _or([x.match, y.match])))
    match = _or([x.final(), y.final()])
    return _simplify(_Info(x.empty or y.empty, None, x.starts | y.starts, x.ends | y.ends, match))


def _plus(x: _Info) -> _Info:
    """One or more repetitions: they begin like ``x`` and end like ``x``, whatever lies between."""
    if x.exact is None:
        return x
    return _simplify(_Info(x.empty, None, x.exact, x.exact, x.match))


def _repeat(x: _Info, low: int, high: int) -> _Info:
    if high == 0:
        return _EMPTY
    if low == 0:
        return _alternate(x, _EMPTY) if high == 1 else _ANYTHING
    # A single string repeated is unrolled (a few times: x{low,high} lies within x{k-1} x+ for any
    # k <= low); anything else is "one or more", which begins and ends like x.
    unroll = min(low, MAX_UNROLL) if x.exact is not None and len(x.exact) == 1 else 1
    if low == high == unroll:
        return functools.reduce(_concat, [x] * low)
    return functools.reduce(_concat, [x] * (unroll - 1) + [_plus(x)])


def _class(items: list[tuple[object, object]], flags: int) -> _Info:
    """A positive class of a few listed characters is an exact set; anything else is any character."""
    ignore_case = bool(flags & sre.SRE_FLAG_IGNORECASE)
    members: set[str] = set()
    for op, av in items:
        if op is sre.LITERAL:
            codes: Iterable[int] = (av,)  # type: ignore[assignment]
        elif op is sre.RANGE and av[1] - av[0] < MAX_CLASS:  # type: ignore[index]
            codes = range(av[0], av[1] + 1)  # type: ignore[index]
        else:  # NEGATE, CATEGORY (\w, \d, \s), a wide range
            return _ANY_CHAR
        for code in codes:
            # Under IGNORECASE ``re`` tests non-ASCII class members with rules of its own (upper case
            # of the lower case, outside the BMP): do not model them.
            if ignore_case and code >= 0x80:
                return _ANY_CHAR
            members.add(fold(chr(code)))
        if len(members) > MAX_CLASS:
            return _ANY_CHAR
    return _exact(members)


def _sequence(items: Iterable[tuple[object, object]], flags: int) -> _Info:
    info = _EMPTY
    for op, av in items:
        info = _concat(info, _node(op, av, flags))
    return info


def _node(op: object, av: object, flags: int) -> _Info:
    if op is sre.LITERAL:
        return _exact({fold(chr(av))})  # type: ignore[arg-type]
    if op is sre.NOT_LITERAL or op is sre.ANY:
        return _ANY_CHAR
    if op is sre.IN:
        return _class(av, flags)  # type: ignore[arg-type]
    if op is sre.BRANCH:
        return functools.reduce(_alternate, (_sequence(branch, flags) for branch in av[1]))  # type: ignore[index]
    if op is sre.SUBPATTERN:
        _group, add_flags, del_flags, sub = av  # type: ignore[misc]
        return _sequence(sub, (flags | add_flags) & ~del_flags)
    if op is sre.ATOMIC_GROUP:
        return _sequence(av, flags)  # type: ignore[arg-type]
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, high, sub = av  # type: ignore[misc]
        return _repeat(_sequence(sub, flags), low, high)
    if op is sre.AT or op is sre.ASSERT_NOT:
        return _EMPTY
    if op is sre.ASSERT:
        # Zero width, but what the look-around matched is in the text too.
        _direction, sub = av  # type: ignore[misc]
        return _exact({""}, _sequence(sub, flags).final())
    if op is sre.GROUPREF_EXISTS:
        _group, yes, no = av  # type: ignore[misc]
        return _alternate(_sequence(yes, flags), _sequence(no, flags) if no is not None else _EMPTY)
    return _ANYTHING  # GROUPREF and anything this planner does not model: no information, never a wrong one


def plan(pattern: str, flags: int = 0) -> Query:
    """The formula every text holding a match of ``re.compile(pattern, flags)`` satisfies, once folded.

    Raises ``re.error`` for an invalid pattern and TypeError for a bytes pattern. The formula is in
    folded strings whatever the case flags say (a case-sensitive match is a case-insensitive one), so
    it is checked against an index of :func:`fold`-ed text; verify the candidates with ``re``.
    """
    if not isinstance(pattern, str):
        raise TypeError(f"plan() takes a str pattern, not {type(pattern).__name__}")
    parsed = _parser.parse(pattern, flags)
    return _sequence(parsed, parsed.state.flags).final()


def plan_literal(text: str) -> Query:
    """The formula for a literal search of ``text``, case-sensitive or not (the same as ``plan(re.escape(text))``)."""
    return _string(fold(text))
