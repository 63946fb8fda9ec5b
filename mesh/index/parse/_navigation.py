"""What code navigation reads from a tree: a definition's signature and doc line, and references.

Theory of operation: the patterns are data. Each language has ``queries/<language>/references.scm``
(tree-sitter's query language, evaluated in C by its query engine), in the convention of the
grammars' own ``tags.scm``: a match captures the name node as ``@name``, the whole use as
``@reference.<kind>`` (``call``, ``new``, ``type``, ``use``: :class:`~mesh.index.ReferenceKind`)
and, when something is written before the name (a receiver, a module, a class), that as
``@qualifier``; when the use gives its type to a variable, field or parameter
(``self.db = UserDb()``, ``OrderService orders``), that name as ``@binds``. :func:`references` runs the file's query once and keeps one reference per name
node, the strongest kind first (``new`` > ``call`` > ``type`` > ``use``), in source order.

Broad patterns (every capitalised identifier is a use) would also catch the names a declaration
introduces; two directives in the ``.scm`` file, comments to tree-sitter, say where a name is
declared rather than used, so the patterns can stay broad:

- ``;; declares: class_definition.name assignment.left parameters``: a name node that is that
  field of a parent of that type (or any child of it, without a field) is not a reference;
- ``;; inside: import_statement``: nor is a name node inside such a construct (each name is a
  bisection over their spans).

The directives' patterns run in the same query as the references' (after them, :func:`_combined`):
walking the tree is most of what a query costs, so one walk finds the uses, the declared names and
the spans. A match is then tested only for the captures its pattern names (:data:`_Plan`), and a
name already kept with a stronger kind is dropped before its text is read. One shape of pattern
leaves the query: a node type alone kept when its name is capitalised (``((identifier) @name
@reference.use (#match? @name "^[A-Z]"))``), which the engine tries on every identifier of the file
and whose predicate is checked outside it, match by match. Its matches are found from the text
instead (:func:`_capitalised`: each capital that may begin a name, the node beginning there) and
read after the query's; the references are the same (the query alone still runs as written for a
file past the match limit).

Signatures and doc lines need no query: :func:`details` reads a definition node the extractor
already holds. The signature is the declaration as written up to its body (its ``body`` field, else
its last child of a body type), white space squashed; the doc line is the first line of a Python
docstring, else of the block of comments right above the declaration (attributes, decorators and
annotations between them skipped; an ``export`` or ``template`` wrapper looked through).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Mapping
from importlib import resources
from typing import Final

import attrs
import tree_sitter

from .._facts import DOC_CHARS_MAX, SIGNATURE_CHARS_MAX, Reference, ReferenceKind
from . import _common, _ts  # a module reference: _common's Definitions calls details() of this one

__all__ = ["details", "doc_line", "query_text", "references", "signature"]

#: Languages whose patterns are another's (the TSX grammar is TypeScript's with JSX added).
_SHARED: Final = {"tsx": "typescript"}

#: The kinds of reference, strongest first: one name node used two ways keeps the first.
_KIND_ORDER: Final = (ReferenceKind.NEW, ReferenceKind.CALL, ReferenceKind.TYPE, ReferenceKind.USE)
_RANK: Final = {kind: rank for rank, kind in enumerate(_KIND_ORDER)}
_CAPTURE_KIND: Final = {f"reference.{kind}": kind for kind in _KIND_ORDER}
#: ``(capture, kind, rank)``, strongest first.
_KIND_CAPTURES: Final = tuple((capture, kind, _RANK[kind]) for capture, kind in _CAPTURE_KIND.items())

#: At most this many references are kept of one file (a generated table of calls is not code to navigate).
REFERENCES_MAX: Final = 20_000
#: Names longer than this, or not spelled like identifiers, are not references.
_NAME_CHARS_MAX: Final = 120
#: (Ruby's method names may end in ``?`` or ``!``: ``local?``, ``save!``.)
_NAME: Final = re.compile(r"[^\W\d][\w$]*[?!]?|\$[\w$]*", re.UNICODE)
#: A qualifier kept as written: identifiers joined by ``.``, ``::``, ``->``, ``\\`` or ``?.``.
_DOTTED: Final = re.compile(r"[@$]{0,2}[^\W\d][\w$]*(?:\s*(?:\?\.|\.|::|->|\\)\s*[$]?[^\W\d][\w$]*)*", re.UNICODE)
_SEPARATOR: Final = re.compile(r"\s*(?:\?\.|::|->|\\|\.)\s*")
_QUALIFIER_CHARS_MAX: Final = 100
#: What :attr:`Reference.qualifier` says of an expression.
EXPRESSION: Final = "~"


def query_text(language: str, part: str) -> str:
    """The text of ``queries/<language>/<part>.scm`` ("" when the language has none)."""
    return _query_text(shared_queries(language), part)


def shared_queries(language: str) -> str:
    """The folder of ``queries/`` a language's queries are in (``tsx`` shares ``typescript``'s)."""
    return _SHARED.get(language, language)


@functools.cache
def _query_text(language: str, part: str) -> str:
    resource = resources.files(__package__).joinpath("queries", language, f"{part}.scm")
    try:
        return resource.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


@attrs.frozen
class _Rules:
    """The directives of a ``references.scm``."""

    #: parent type -> its fields that declare a name ("" : every child)
    declares: dict[str, frozenset[str]]
    inside: frozenset[str]

    def declared_nodes(self, language: str, root: tree_sitter.Node) -> frozenset[tuple[int, int, str]]:
        """The nodes ``;; declares:`` names in the tree (span and type: a wrapper of the same span is
        another node), found by one query (C-side:
        asking each name for its parent costs the depth of the tree, so deep nesting would make
        that quadratic)."""
        pattern = _declares_pattern(language, self)
        if not pattern:
            return frozenset()
        found = _common.captures(_common.query(language, pattern), root).get("declared", [])
        return frozenset((node.start_byte, node.end_byte, node.type) for node in found)

    def spans_of_kinds(self, language: str) -> bool:
        """Whether :meth:`spans` finds anything to look for in ``language``'s grammar."""
        return bool(_known_kinds(language, self.inside))

    def spans(self, language: str, root: tree_sitter.Node) -> _Spans | None:
        """The spans of every ``;; inside:`` construct of the tree, found by one query (C-side)."""
        kinds = _known_kinds(language, self.inside)
        if not kinds:
            return None
        pattern = "[" + " ".join(f"({kind})" for kind in kinds) + "] @inside"
        found = _common.captures(_common.query(language, pattern), root).get("inside", [])
        return _Spans([(node.start_byte, node.end_byte) for node in found])


def _declares_pattern(language: str, rules: _Rules) -> str:
    return _declares_text(language, tuple(sorted((parent, tuple(sorted(fields))) for parent, fields in rules.declares.items())))


@functools.cache
def _declares_text(language: str, declares: tuple[tuple[str, tuple[str, ...]], ...]) -> str:
    """The query capturing every node a ``;; declares:`` entry names (entries the grammar lacks left out)."""
    grammar = _ts.language(language)
    patterns = []
    for parent, fields in declares:
        if grammar.id_for_node_kind(parent, True) is None:
            continue
        for field in fields:
            if not field:
                patterns.append(f"({parent} (_) @declared)")
            elif grammar.field_id_for_name(field) is not None:
                patterns.append(f"({parent} {field}: (_) @declared)")
    return "\n".join(pattern for pattern in patterns if _compiles(grammar, pattern))


def _compiles(grammar: tree_sitter.Language, pattern: str) -> bool:
    """Whether ``pattern`` is a query of ``grammar`` (a field the node type never has is refused):
    one wrong directive entry costs that entry, not the language's references."""
    try:
        tree_sitter.Query(grammar, pattern)
    except Exception:  # noqa: BLE001 - the binding raises QueryError (and NameError-like errors) for it
        return False
    return True


@functools.cache
def _known_kinds(language: str, kinds: frozenset[str]) -> tuple[str, ...]:
    """The named node types of ``kinds`` the grammar has (TSX shares TypeScript's patterns, and
    only one of them has JSX nodes)."""
    grammar = _ts.language(language)
    return tuple(kind for kind in sorted(kinds) if grammar.id_for_node_kind(kind, True) is not None)


class _Spans:
    """Byte spans, asked whether any holds an offset (a bisection on starts, ends as running maxima)."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        spans.sort()
        self.starts = [start for start, _ in spans]
        self.reach: list[int] = []
        furthest = -1
        for _, end in spans:
            furthest = max(furthest, end)
            self.reach.append(furthest)

    def holds(self, offset: int) -> bool:
        index = bisect.bisect_right(self.starts, offset) - 1
        return index >= 0 and self.reach[index] > offset


@functools.cache
def _combined(language: str) -> tuple[tree_sitter.Query, int, list[_Plan], _Scan]:
    """The references query with the directives' patterns after it (the ``;; declares:`` nodes as
    ``@declared``, the ``;; inside:`` constructs as ``@inside``), the index of the first of those
    (one walk of the tree, not three: the walk is most of what a query costs), each reference
    pattern's :data:`_Plan`, and the capitalised names' patterns taken out of the query to be
    found by :func:`_capitalised` instead (:data:`_Scan`)."""
    text, scan = _scanned(language, query_text(language, "references"))
    rules = _rules(_SHARED.get(language, language))
    extra = [_declares_pattern(language, rules)]
    kinds = _known_kinds(language, rules.inside)
    if kinds:
        extra.append("[" + " ".join(f"({kind})" for kind in kinds) + "] @inside")
    written = "\n".join([text, *extra])
    combined = _common.query(language, written)
    end = len(text.encode("utf-8"))
    first = next((index for index in range(combined.pattern_count) if combined.start_byte_for_pattern(index) >= end), combined.pattern_count)
    encoded = written.encode("utf-8")
    plans = [
        _plan(_capture_names(encoded[combined.start_byte_for_pattern(index) : combined.end_byte_for_pattern(index)].decode("utf-8")))
        for index in range(first)
    ]
    return combined, first, plans, scan


#: A pattern of one node type alone, kept when its text starts with a capital letter and is none
#: of some names: ``((identifier) @name @reference.use (#match? @name "^[A-Z]"))``, a line of its own.
_CAPITALISED: Final = re.compile(
    r'^\(\((\w+)\) @name @(reference\.\w+) \(#match\? @name "\^\[A-Z\]"\)((?: \(#not-eq\? @name "\w+"\))*)\)[ \t]*$',
    re.MULTILINE,
)
_NOT_EQ: Final = re.compile(r'#not-eq\? @name "(\w+)"')
#: node type's id (every named symbol of the name) -> the plan of its pattern, the kind's capture,
#: the names it does not keep
_Scan = dict[int, tuple["_Plan", str, frozenset[str]]]
#: Where a capitalised name may begin: a capital not right after a letter or ``_`` (no identifier
#: begins inside a word; a node found is still checked to begin there). The capital is matched
#: first and what is before it looked at after: twice as fast as the other way round.
_CAPITAL: Final = re.compile(rb"[A-Z](?<![A-Za-z_][A-Z])")


def _scanned(language: str, text: str) -> tuple[str, _Scan]:
    """``text`` with its :data:`_CAPITALISED` patterns made comments (every other pattern at the
    same offset), and what they matched, for :func:`_capitalised`. Such a pattern is tried on every
    node of its type (every identifier of a file) and its predicate is checked outside the query
    engine, match by match: in Python's one query it was 40% of the matching. One node type is
    scanned for at most one pattern; a second stays in the query."""
    grammar = _ts.language(language)
    scan: _Scan = {}
    kept: list[str] = []
    at = 0
    for found in _CAPITALISED.finditer(text):
        kind, capture, excluded = found.group(1), found.group(2), found.group(3)
        ids = [i for i in range(grammar.node_kind_count) if grammar.node_kind_is_named(i) and grammar.node_kind_for_id(i) == kind]
        if not ids or any(i in scan for i in ids) or capture not in _CAPTURE_KIND:
            continue
        taken = (_plan(_capture_names(found.group(0))), capture, frozenset(_NOT_EQ.findall(excluded)))
        scan.update(dict.fromkeys(ids, taken))
        kept += [text[at : found.start()], ";"]
        at = found.start() + 1
    kept.append(text[at:])
    return "".join(kept), scan


def _capitalised(root: tree_sitter.Node, source: bytes, scan: _Scan) -> list[tuple[_Plan, dict[str, list[tree_sitter.Node]]]]:
    """The matches :data:`_CAPITALISED` patterns would make, found from the text: each capital that
    may begin a name, the innermost node of a scanned type beginning there (the smallest node
    spanning it, or an ancestor beginning at the same byte). The same nodes the query engine
    matched, for a third of the cost: most of a file's identifiers are never looked at."""
    found = []
    for capital in _CAPITAL.finditer(source):
        at = capital.start()
        node = root.descendant_for_byte_range(at, at + 1)
        while node is not None and node.start_byte == at:
            taken = scan.get(node.kind_id)
            if taken is not None:
                plan, capture, excluded = taken
                if not excluded or source[at : node.end_byte].decode("utf-8", "replace") not in excluded:
                    found.append((plan, {"name": [node], capture: [node]}))
                break
            node = node.parent
    return found


#: What one pattern's matches may capture (any capture it names in its text; a capture in one
#: branch of an alternation may be missing from a match): ``@element``, the holder captures, the
#: kind captures (strongest first, with kind and rank), ``@known``, ``@qualifier``, ``@binds``.
_Plan = tuple[bool, tuple[tuple[str, str], ...], tuple[tuple[str, ReferenceKind, int], ...], bool, bool, bool]
_CAPTURE: Final = re.compile(r"@([\w.-]+)")


def _capture_names(pattern: str) -> set[str]:
    """Every capture ``pattern`` names (more when a comment inside it looks like one: harmless)."""
    found = set(_CAPTURE.findall(pattern))
    return found | {name.rstrip(".-") for name in found}


def _plan(names: set[str]) -> _Plan:
    return (
        "element" in names,
        tuple(item for item in _HOLDERS_ITEMS if item[0] in names),
        tuple(item for item in _KIND_CAPTURES if item[0] in names),
        "known" in names,
        "qualifier" in names,
        "binds" in names,
    )


def _directed(
    matched: list[tuple[int, dict[str, list[tree_sitter.Node]]]], first_directive: int, *, inside: bool
) -> tuple[_Spans | None, frozenset[tuple[int, int, str]]]:
    """What the directives' patterns of :func:`_combined`'s query found: the ``;; inside:`` spans
    (None when the language declares none the grammar has) and the declared nodes (as
    :meth:`_Rules.declared_nodes` gives them)."""
    spans: list[tuple[int, int]] = []
    declared = []
    for index, captured in matched:
        if index < first_directive:
            continue
        for node in captured.get("declared", ()):
            declared.append((node.start_byte, node.end_byte, node.type))
        for node in captured.get("inside", ()):
            spans.append((node.start_byte, node.end_byte))
    return (_Spans(spans) if inside else None), frozenset(declared)


_DIRECTIVE: Final = re.compile(r"^;;\s*(declares|inside):(.*)$", re.MULTILINE)


@functools.cache
def _rules(language: str) -> _Rules:
    declares: dict[str, set[str]] = {}
    inside: set[str] = set()
    for directive, words in _DIRECTIVE.findall(query_text(language, "references")):
        for word in words.split():
            if directive == "inside":
                inside.add(word)
            else:
                parent, _, field = word.partition(".")
                declares.setdefault(parent, set()).add(field)
    return _Rules({parent: frozenset(fields) for parent, fields in declares.items()}, frozenset(inside))


def references(
    language: str,
    root: tree_sitter.Node,
    source: bytes,
    known_names: frozenset[str] = frozenset(),
    aliases: Mapping[str, str] | None = None,
) -> tuple[Reference, ...]:
    """The references of one tree, by the language's ``references.scm``, in source order.

    A match that also captures ``@known`` is kept only when the name is in ``known_names`` (the names the
    file imports or defines): a lower-case name passed as a value is a function only when it is one
    of those, else it is most likely a local variable.

    ``aliases`` (``local -> imported``, from the file's ``import ... as``) writes a use through an
    alias as a use of what it stands for: ``ship_cost()`` of ``from pricing import shipping as
    ship_cost`` is a call of ``shipping``; ``sp.total()`` of ``import shop.pricing as sp`` is
    qualified ``shop.pricing``."""
    text = query_text(language, "references")
    if not text:
        return ()
    rules = _rules(_SHARED.get(language, language))
    combined, first_directive, plans, scan = _combined(language)
    cursor = tree_sitter.QueryCursor(combined, match_limit=_common.MATCH_LIMIT)
    matched = cursor.matches(root)
    if cursor.did_exceed_match_limit:  # pathological: each query alone, as the patterns were written
        inside = rules.spans(language, root)
        declared = rules.declared_nodes(language, root)
        alone = _common.query(language, text)
        matched = _common.matches(alone, root)
        first_directive, plans, scan = alone.pattern_count, [_ANY_PLAN] * alone.pattern_count, {}
    else:
        inside, declared = _directed(matched, first_directive, inside=rules.spans_of_kinds(language))
    planned = [(plans[index], captured) for index, captured in matched if index < first_directive]
    if scan:  # after the query's: where two patterns keep a name node with the same kind, the query's wins
        planned += _capitalised(root, source, scan)
    # Each skip test below only drops a match, so the cheapest run first: a name node already kept
    # with a stronger kind costs two lookups, not its text, its qualifier and its arity.
    declared_starts = {start for start, _, _ in declared}
    inside_starts, inside_reach = (inside.starts, inside.reach) if inside is not None else ([], [])
    texts = _Texts(source, _states_types(language))
    arguments_field = _field_id(language, "arguments")
    arities: dict[tree_sitter.Node, int] = {}
    #: name node's start -> (rank, the reference's fields), made into references once all are met
    best: dict[int, tuple[int, tuple]] = {}
    holders: dict[str, set[str]] = {}
    elements: list[tuple[str, str, int]] = []
    for plan, captured in planned:
        may_element, may_hold, may_be, may_know, may_qualify, may_bind = plan
        if may_element and "element" in captured:
            for of_capture, suffix in _ELEMENT_OF_ITEMS:
                if of_capture in captured:
                    element = captured["element"][0]
                    key = texts.qualifier(captured[of_capture][0]) + suffix
                    elements.append((texts.qualifier(element), key, element.start_point[0] + 1))
                    break
            continue
        for holds_capture, suffix in may_hold:
            if holds_capture in captured:
                held = texts.name(captured["name"][0]) if "name" in captured else None
                if held is not None:
                    key = texts.qualifier(captured[holds_capture][0]) + suffix
                    holders.setdefault(key, set()).add(held)
                break
        else:
            names = captured.get("name")
            if not names:
                continue
            for capture, kind, rank in may_be:  # strongest first: the first present is the kind
                if capture in captured:
                    break
            else:
                continue
            node = names[0]
            start = node.start_byte
            known = best.get(start)
            if known is not None and known[0] < rank:
                continue
            if inside_starts:  # _Spans.holds, inline
                at = bisect.bisect_right(inside_starts, start) - 1
                if at >= 0 and inside_reach[at] > start:
                    continue
            if start in declared_starts and (start, node.end_byte, node.type) in declared:
                continue
            name = texts.name(node)
            if name is None or (may_know and "known" in captured and name not in known_names):
                continue
            qualifiers = captured.get("qualifier") if may_qualify else None
            qualifier = texts.qualifier(qualifiers[0]) if qualifiers else ""
            if aliases:
                name, qualifier = _unaliased(name, qualifier, aliases)
            bound = captured.get("binds") if may_bind else None
            binds = texts.qualifier(bound[0]) if bound else ""
            binds = "" if binds == EXPRESSION else binds
            if known is not None and known[0] == rank and (not binds or known[1][4]):
                continue  # the same use met again: the first match, or the one that says what it binds, wins
            if kind is ReferenceKind.CALL or kind is ReferenceKind.NEW:
                call = captured[capture][0]  # met again when a pattern adds what it binds
                arity = arities.get(call)
                if arity is None:
                    arity = arities[call] = _arity(call, arguments_field)
            else:
                arity = -1
            if arity < 0 and known is not None and known[0] == rank:
                arity = known[1][5]  # a pattern that adds what is bound may capture the assignment, not the call
            best[start] = (rank, (name, node.start_point[0] + 1, kind, qualifier, binds, arity))
            if len(best) >= REFERENCES_MAX:
                break
    found = [Reference(*best[start][1]) for start in sorted(best)]
    if elements and holders:
        found = sorted(found + _elements_bound(holders, elements), key=lambda reference: reference.line)
    return tuple(found)


#: Marks a map's values: a map holder (``@holds_values``: ``std::map<K, Order> byId``) is keyed
#: ``byId{}``, and only a read of its values (``@values_of``: ``byId[k]``, ``for (k, v) in byId``)
#: looks it up so; an element read the list way (``for e in byId``: a key or a pair) finds nothing.
_VALUES: Final = "{}"
#: Marks what a function of the file returns: ``func setup() *Injector`` (``@returns_of`` and the
#: type as ``@name``) is keyed ``setup()``, looked up by ``e := setup(t)`` (``@returned_by``).
_RETURNS: Final = "()"
#: The captures of a holder, and of what an element is read from, with the suffix of their key.
_HOLDERS: Final = {"holds": "", "holds_values": _VALUES, "returns_of": _RETURNS}
_ELEMENT_OF: Final = {"container": "", "values_of": _VALUES, "returned_by": _RETURNS}
_HOLDERS_ITEMS: Final = tuple(_HOLDERS.items())
#: The plan of a pattern whose captures are not known: every test made.
_ANY_PLAN: Final = (True, _HOLDERS_ITEMS, _KIND_CAPTURES, True, True, True)
_ELEMENT_OF_ITEMS: Final = tuple(_ELEMENT_OF.items())


def _elements_bound(holders: Mapping[str, set[str]], elements: list[tuple[str, str, int]]) -> list[Reference]:
    """A variable set to an element of a container the file types with one class (``auto c =
    pool->Pop()``, ``for (auto& o : orders)`` of a ``ClientPool<Client> *pool``, a
    ``std::vector<Order> orders``), or to one of the values of a map typed so, takes that class: a
    ``bind`` reference of it (not a use); so does a variable set to what a function of the file
    returns (``e := setup(t)`` of ``func setup(...) *Injector``). The captures, in a language's
    ``references.scm``: ``@holds`` (a list-like container), ``@holds_values`` (a map) or
    ``@returns_of`` (a function) with ``@name`` (the class), and ``@element`` with ``@container``
    (an element read), ``@values_of`` (a value read) or ``@returned_by`` (a call's function)."""
    out = []
    for element, container, line in elements:
        held = holders.get(container) or holders.get(_self_less(container))
        if held is not None and len(held) == 1 and element not in (EXPRESSION, "") and "." not in element:
            out.append(Reference(next(iter(held)), line, ReferenceKind.BIND, "", element))
    classes: dict[str, set[str]] = {}
    for reference in out:
        classes.setdefault(reference.binds, set()).add(reference.name)
    # ``auto pooled`` in two functions, of two pools: nothing sure of ``pooled->GetClient()``
    return [reference for reference in out if len(classes[reference.binds]) == 1]


def _self_less(dotted: str) -> str:
    """A member written through the instance (``this.pool``, ``self.pool``) as its bare name."""
    head, _, rest = dotted.partition(".")
    return rest if head in ("this", "self") and rest else dotted


#: Node types that hold a call's arguments, and those that make their number unknowable.
_ARGUMENT_LISTS: Final = frozenset({"argument_list", "arguments", "value_arguments"})
_SPREADS: Final = ("splat", "spread", "unpacking", "variadic")


def _arity(call: tree_sitter.Node, arguments: int | None = -1) -> int:
    """How many arguments ``call`` passes (-1: none found, or a spread): looked for one or two
    levels down (Kotlin keeps them in ``call_suffix``), a trailing lambda or block counted.
    ``arguments`` is the grammar's id of the field ``arguments`` (None: it has none; -1: look it up)."""
    found: tree_sitter.Node | None
    if arguments == -1:
        found = call.child_by_field_name("arguments")
    else:
        found = call.child_by_field_id(arguments) if arguments is not None else None
    if found is None or found.type not in _ARGUMENT_LISTS:
        found = None
        for child in call.named_children:
            if child.type in _ARGUMENT_LISTS:
                found = child
                break
            for grandchild in child.named_children if child.type in ("call_suffix",) else ():
                if grandchild.type in _ARGUMENT_LISTS:
                    found = grandchild
                    break
    if found is None:
        return -1
    count = 0
    for argument in found.named_children:
        kind = argument.type
        if "comment" in kind:
            continue
        spread = _SPREAD_TYPES.get(kind)
        if spread is None:
            spread = _spread_type(kind)
        if spread:
            return -1
        if argument.named_child_count:
            for child in argument.named_children:
                kind = child.type
                spread = _SPREAD_TYPES.get(kind)
                if spread is None:
                    spread = _spread_type(kind)
                if spread:
                    return -1
        count += 1
    return count


#: node type -> whether it names a spread (filled as types are met: a grammar has a few hundred)
_SPREAD_TYPES: dict[str, bool] = {}


def _spread_type(kind: str) -> bool:
    spread = _SPREAD_TYPES[kind] = any(part in kind for part in _SPREADS)
    return spread


def _unaliased(name: str, qualifier: str, aliases: Mapping[str, str]) -> tuple[str, str]:
    """``(name, qualifier)`` with an import alias replaced by what it stands for."""
    if not qualifier:
        original = aliases.get(name)
        if original is not None and "." not in original:
            return original, qualifier
        return name, qualifier
    first, dot, rest = qualifier.partition(".")
    original = aliases.get(first)
    if original is not None:
        return name, original + dot + rest
    return name, qualifier


class _Texts:
    """One file's names and qualifiers (:func:`_name`, :func:`_qualifier`), each distinct text
    decoded and matched once: a file names the same few identifiers and receivers over and over."""

    def __init__(self, source: bytes, stated: bool = True) -> None:
        self.source = source
        #: whether the grammar has a node :func:`_stated` looks into (else no node is asked its type)
        self.stated = stated
        self.names: dict[bytes, str | None] = {}
        self.dotted: dict[bytes, str] = {}

    def name(self, node: tree_sitter.Node) -> str | None:
        start, end = node.start_byte, node.end_byte
        if end - start > _NAME_CHARS_MAX:
            return None
        raw = self.source[start:end]
        try:
            return self.names[raw]
        except KeyError:
            name = raw.decode("utf-8", "replace")
            found = self.names[raw] = name if _NAME.fullmatch(name) else None
            return found

    def qualifier(self, node: tree_sitter.Node) -> str:
        if self.stated:
            stated = _stated(node)
            if stated is not None:
                node = stated
        start, end = node.start_byte, node.end_byte
        if end - start > _QUALIFIER_CHARS_MAX:
            return EXPRESSION
        raw = self.source[start:end]
        try:
            return self.dotted[raw]
        except KeyError:
            found = self.dotted[raw] = _dotted(raw)
            return found


def _name(node: tree_sitter.Node, source: bytes) -> str | None:
    if node.end_byte - node.start_byte > _NAME_CHARS_MAX:
        return None
    name = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
    return name if _NAME.fullmatch(name) else None


#: Expressions whose value is a new instance of the type they name: field holding the type.
_CREATIONS: Final = {"new_expression": "constructor", "object_creation_expression": "type"}
#: Mockito's ``verify(mock)`` and ``when(mock)`` (``doThrow(e).when(mock)``) return the mock itself.
_MOCK_RETURNING: Final = frozenset({b"verify", b"when"})


def _qualifier(node: tree_sitter.Node, source: bytes) -> str:
    """What is written before a name, dotted; a receiver that states its own type stands for that
    type (``new Cart().submit()`` is qualified ``Cart``; Java's ``verify(orders).create()`` is
    qualified ``orders``)."""
    stated = _stated(node)
    if stated is not None:
        node = stated
    if node.end_byte - node.start_byte > _QUALIFIER_CHARS_MAX:
        return EXPRESSION
    return _dotted(source[node.start_byte : node.end_byte])


def _dotted(raw: bytes) -> str:
    """A qualifier's text as written, separators made ``.``, or :data:`EXPRESSION`."""
    text = raw.decode("utf-8", "replace").strip()
    if not _DOTTED.fullmatch(text):
        return EXPRESSION
    return _SEPARATOR.sub(".", text)


@functools.cache
def _field_id(language: str, field: str) -> int | None:
    """The grammar's id of ``field`` (None: it has no such field); asking a node by id skips the
    look-up of the name every time."""
    return _ts.language(language).field_id_for_name(field)


@functools.cache
def _states_types(language: str) -> bool:
    """Whether ``language``'s grammar has a node type :func:`_stated` reads."""
    grammar = _ts.language(language)
    return any(grammar.id_for_node_kind(kind, True) is not None for kind in (*_CREATIONS, "method_invocation"))


def _stated(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The type a ``new`` expression names (generic arguments aside), or the mock a Mockito
    ``verify``/``when`` call returns; None for any other node."""
    field = _CREATIONS.get(node.type)
    if field is not None:
        named = node.child_by_field_name(field)
        while named is not None and named.type in ("generic_type", "generic_name"):
            named = named.named_children[0] if named.named_children else None
        return named
    if node.type == "method_invocation":
        name, arguments = node.child_by_field_name("name"), node.child_by_field_name("arguments")
        if name is not None and name.text in _MOCK_RETURNING and arguments is not None and arguments.named_child_count == 1:
            only = arguments.named_children[0]
            return only if only.type == "identifier" else None
    return None


# -- signature and doc line -------------------------------------------------------------------------

#: Node types that hold a declaration's body when the grammar gives it no ``body`` field.
_BODY_TYPES: Final = frozenset(
    {
        "block", "body_statement", "class_body", "compound_statement", "declaration_list", "enum_body",
        "enum_class_body", "enum_member_declaration_list", "enum_variant_list", "field_declaration_list",
        "function_body", "interface_body", "statement_block", "annotation_type_body", "record_declaration_body",
        "template_body", "object_literal", "class_declaration_body", "ordered_field_declaration_list",
    }
)  # fmt: skip
#: Node types between a comment and the declaration it documents.
_BETWEEN: Final = frozenset(
    {"attribute_item", "decorator", "annotation", "attribute_list", "marker_annotation", "modifiers",
     "template_parameter_list"}
)  # fmt: skip
#: Nodes that wrap a declaration (its doc comment sits above the wrapper). Ruby's ``body_statement``:
#: the comments above a class's first statement are children of the class, not of its body.
_WRAPPERS: Final = frozenset(
    {"export_statement", "decorated_definition", "template_declaration", "ambient_declaration", "expression_statement",
     "body_statement"}
)  # fmt: skip
_SPACES: Final = re.compile(r"\s+")
_TRAILER: Final = re.compile(r"\s*(?:\{|:|=>|=|\bdo|\bwhere)\s*$")
#: A comment's marker, and Doxygen's ``@brief`` / ``\brief`` after it.
_COMMENT_MARKS: Final = re.compile(r"^\s*(?:/\*\*+|/\*!?|\*+/|\*(?!/)|///?!?|#+!?|--|=begin|=end)?\s?(?:[@\\]brief\b\s*)?")
_QUOTES: Final = re.compile(r"^[rRuUbBfF]{0,2}(\"\"\"|'''|\"|')")
_RULE: Final = re.compile(r"^[\W_]*$")


def details(language: str, node: tree_sitter.Node, source: bytes) -> tuple[str, str]:
    """``(signature, doc line)`` of the definition ``node`` (either "" when there is none)."""
    return signature(node, source), doc_line(language, node, source)


def signature(node: tree_sitter.Node, source: bytes) -> str:
    """The declaration ``node`` as written up to its body, on one line, bounded."""
    body = node.child_by_field_name("body")
    if body is None:
        for child in reversed(node.children):
            if child.type in _BODY_TYPES:
                body = child
                break
    end = body.start_byte if body is not None else node.end_byte
    start = _after_annotations(node)
    raw = source[start : min(end, start + 4 * SIGNATURE_CHARS_MAX)]
    text = raw.decode("utf-8", "replace")
    if body is None:
        text = _head(text)
    text = _TRAILER.sub("", _SPACES.sub(" ", text).strip())
    return _bounded(text, SIGNATURE_CHARS_MAX)


#: What a declaration may start with that says nothing of its shape: annotations, attributes, decorators.
_ANNOTATIONS: Final = frozenset(
    {"annotation", "marker_annotation", "attribute_list", "attribute_item", "attributes", "decorator", "comment",
     "line_comment", "block_comment"}
)  # fmt: skip


def _after_annotations(node: tree_sitter.Node) -> int:
    """Where the declaration ``node`` starts once its leading annotations are skipped (a Java
    ``@Query(...)``, a C# ``[HttpGet]``, a TypeScript ``@Injectable()``), modifiers kept."""
    start = node.start_byte
    for child in node.children:
        if child.type in _ANNOTATIONS:
            continue
        if child.type == "modifiers":
            for modifier in child.children:
                if modifier.type not in _ANNOTATIONS:
                    return modifier.start_byte
            continue
        return child.start_byte
    return start


def _head(text: str) -> str:
    """A declaration without a body: up to its end (``;``) or its first line once brackets close."""
    depth = 0
    for index, char in enumerate(text):
        if char in "([<{":
            depth += 1
        elif char in ")]>}":
            depth = max(0, depth - 1)
        elif char == ";" and depth == 0:
            return text[:index]
        elif char == "\n" and depth == 0:
            return text[:index]
    return text


def doc_line(language: str, node: tree_sitter.Node, source: bytes) -> str:
    """The first line of the docstring (Python) or of the comments right above ``node``."""
    if language == "python":
        line = _docstring(node, source)
        if line:
            return line
    anchor = node
    while True:
        previous = anchor.prev_named_sibling
        start_row = anchor.start_point[0]
        while previous is not None and previous.type in _BETWEEN:
            start_row = previous.start_point[0]
            previous = previous.prev_named_sibling
        if previous is None and anchor.parent is not None and anchor.parent.type in _WRAPPERS:
            anchor = anchor.parent  # the doc sits above ``export``, ``@decorator``, ``template<...>``
            continue
        break
    block: list[tree_sitter.Node] = []
    while previous is not None and "comment" in previous.type and previous.end_point[0] >= start_row - 1:
        if previous.end_point[0] == previous.start_point[0] and _trailing(previous, source):
            break  # a comment ending an earlier line of code documents that line
        block.append(previous)
        start_row = previous.start_point[0]
        previous = previous.prev_named_sibling
    for comment in reversed(block):
        line = _first_line(source[comment.start_byte : comment.end_byte].decode("utf-8", "replace"), comments=True)
        if line:
            return line
    return ""


def _trailing(comment: tree_sitter.Node, source: bytes) -> bool:
    """Whether code precedes ``comment`` on its line."""
    line_start = source.rfind(b"\n", 0, comment.start_byte) + 1
    return bool(source[line_start : comment.start_byte].strip())


def _docstring(node: tree_sitter.Node, source: bytes) -> str:
    body = node.child_by_field_name("body")
    if body is None or body.named_child_count == 0:
        return ""
    first = body.named_child(0)  # not named_children: a class body lists every method
    if first is None or first.type != "expression_statement" or first.named_child_count != 1:
        return ""
    string = first.named_child(0)
    if string is None:
        return ""
    if string.type != "string":
        return ""
    text = source[string.start_byte : string.end_byte].decode("utf-8", "replace")
    quote = _QUOTES.match(text)
    if quote is not None:
        text = text[quote.end() :]
        if text.endswith(quote.group(1)):
            text = text[: -len(quote.group(1))]
    return _first_line(text, comments=False)


def _first_line(text: str, *, comments: bool) -> str:
    for line in text.splitlines():
        if comments:
            line = _COMMENT_MARKS.sub("", line, count=1)
            line = line.removesuffix("*/")
        line = line.strip()
        if not line or _RULE.match(line) or (comments and line.startswith("@")):
            continue
        return _bounded(_SPACES.sub(" ", line), DOC_CHARS_MAX)
    return ""


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
