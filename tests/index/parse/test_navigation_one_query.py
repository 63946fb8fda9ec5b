"""References come from one query per file: the references patterns with the directives' patterns
(``;; declares:``, ``;; inside:``) after them, each pattern's captures planned once. These tests
hold that shortcut to what the patterns say when each query runs alone and every capture is
tested on every match (the path a file past the match limit still takes)."""

from __future__ import annotations

import types
from pathlib import Path

import pytest
import tree_sitter

from mesh.index.parse import _common, _navigation, _ts, language_of

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
LANGUAGES = ("python", "go", "java", "kotlin", "javascript", "typescript", "tsx", "csharp", "cpp", "rust", "ruby", "php")

#: A file of each language, broken on purpose, on top of the fixtures: error recovery makes odd trees.
_BROKEN = {
    "python": b"class A(B, :\n  def f(self, x: list[Order] = (\n    import os\n  y = Foo(*a, **k)\n",
    "go": b"package p\nfunc f(x ...int {\n  y := New(a...)\n",
    "java": b"class A extends B { void f(List<Order> o) { new Cart(.submit(); verify(orders).create(",
    "kotlin": b"class A : B( { fun f(vararg x: Int) { val c = Cart(*x) ",
    "javascript": b"class A extends B { f(...a) { new Cart(...a).submit( ",
    "typescript": b"class A extends B { f(o: Order[]) { const c = new Cart(...o); ",
    "tsx": b"const A = () => <Cart items={f(...a)} />; class B extends (",
    "csharp": b"class A : B { void F(params int[] x) { var c = new Cart(x).Submit( ",
    "cpp": b"class A : public B { void f(std::vector<Order> o) { auto c = pool->Pop(; ",
    "rust": b"fn f(o: Vec<Order>) { let c = Cart::new(o..); m!(x ",
    "ruby": b"class A < B\n def f(*a)\n c = Cart.new(*a\n",
    "php": b"<?php class A extends B { function f(...$a) { $c = new Cart(...$a); ",
}

#: Capitals where a name may or may not begin (the capitalised names' patterns are found by a scan
#: of the text, not by the query engine): after ``$``, a digit, a letter outside ASCII, ``_``, in
#: camel case, in strings and comments, a one-letter name, ``Self``, at the very start and end.
_CAPITALS = {
    "python": "A = éB + _C + x1D + 2E + fooBar(F)  # G\ns = 'H' f'{I}' \"\"\"J\"\"\"\nclass K(L.M): N: O = P[Q]\nR",
    "go": "package p\n// A\nfunc f(b B) C { d := éE + F{G: 1}; return H.I(\"J\", 2K) }\nL",
    "java": "class A extends B<C> { D e = F.G; // H\n String s = \"I\"; int j = 1K + éL + _M + nO; }\nP",
    "kotlin": "class A : B() { val c = D.E + éF + `G` + 1H; // I\n val s = \"J${K}\" }\nL",
    "javascript": "const a = $B + éC + _D + E.F + {G, h: I}; // J\nconst s = `K${L}` + 'M'; 2N\nO",
    "typescript": "let a: B<C> = $D + éE + {F, g: H}; /* I */ const s = `J${K}`; type L = M.N;\nO",
    "tsx": "const A = () => <B c={D} e={$F} g={{H, i: J}}>K</B>; // L\nM",
    "csharp": "class A : B { C d = E.F; // G\n string s = \"H\"; int i = éJ + _K + 1L; }\nM",
    "cpp": "class A : public B { C d = E::F; // G\n const char* s = \"H\"; int i = _K + 1L; };\nM",
    "rust": "struct A; impl B for A { fn c(&self) -> Self { Self::D(E, éF, r#G, 1H) } } // I\nconst S: &str = \"J\";\nK",
    "ruby": "class A < B\n C = D::E + éF + @G + $H # I\n s = \"J#{K}\"\nend\nL",
    "php": "<?php class A extends B { function c() { $D = E::F + $éG + \\H\\I::J; // K\n $s = \"L{$M}\"; } }\nN",
}


def _scanned_kinds(language: str, scan: dict[int, tuple]) -> list[str]:
    """The node types whose capitalised names' pattern is scanned for (``scan`` is by symbol id)."""
    grammar = _ts.language(language)
    return sorted({grammar.node_kind_for_id(symbol) for symbol in scan})


def _sources(language: str) -> list[bytes]:
    found = [
        path.read_bytes()
        for path in sorted(FIXTURES.rglob("*"))
        if path.is_file() and language_of(path.name) == language
    ]
    return [*found, _BROKEN[language], _CAPITALS[language].encode("utf-8"), b""]


class _Exceeded:
    """A query cursor whose run reports the match limit exceeded (for the combined query only)."""

    def __init__(self, query: tree_sitter.Query, match_limit: int) -> None:
        self._cursor = tree_sitter.QueryCursor(query, match_limit=match_limit)
        self.did_exceed_match_limit = True

    def matches(self, node: tree_sitter.Node) -> list:
        return self._cursor.matches(node)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_directives_patterns_come_after_every_references_pattern(language: str) -> None:
    combined, first, plans, scan = _navigation._combined(language)
    kinds = _scanned_kinds(language, scan)
    text = _navigation.query_text(language, "references")
    alone = _common.query(language, text)
    assert first == alone.pattern_count - len(kinds) == len(plans)
    assert combined.pattern_count > first  # every language declares names
    # every references pattern at its own offset, but the scanned ones, which are made comments
    starts = [combined.start_byte_for_pattern(index) for index in range(first)]
    written = [alone.start_byte_for_pattern(index) for index in range(alone.pattern_count)]
    encoded = text.encode("utf-8")
    scanned = [start for start in written if start not in starts]
    assert set(starts) <= set(written) and len(scanned) == len(kinds)
    assert sorted(encoded[start : encoded.index(b"\n", start)].split(b")", 1)[0].lstrip(b"(") for start in scanned) == sorted(
        kind.encode() for kind in kinds
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_one_query_gives_the_references_of_each_query_alone(language: str, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = _sources(language)
    fast = [_navigation.references(language, _ts.parse(language, source).root_node, source) for source in sources]
    monkeypatch.setattr(_navigation, "tree_sitter", types.SimpleNamespace(QueryCursor=_Exceeded))
    slow = [_navigation.references(language, _ts.parse(language, source).root_node, source) for source in sources]
    assert fast == slow
    assert any(fast), f"no {language} references in the fixtures: nothing compared"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_patterns_plan_holds_every_capture_a_match_of_it_makes(language: str) -> None:
    combined, first, plans, _ = _navigation._combined(language)
    seen = 0
    for source in _sources(language):
        cursor = tree_sitter.QueryCursor(combined, match_limit=_common.MATCH_LIMIT)
        for index, captured in cursor.matches(_ts.parse(language, source).root_node):
            if index >= first:
                assert captured.keys() <= {"declared", "inside"}
                continue
            may_element, may_hold, may_be, may_know, may_qualify, may_bind = plans[index]
            planned = {capture for capture, _ in may_hold} | {capture for capture, _, _ in may_be}
            planned |= {name for name, may in (("element", may_element), ("known", may_know),
                                               ("qualifier", may_qualify), ("binds", may_bind)) if may}  # fmt: skip
            tested = {"element", "known", "qualifier", "binds", *(c for c, _ in _navigation._HOLDERS_ITEMS),
                      *(c for c, _, _ in _navigation._KIND_CAPTURES)}  # fmt: skip
            assert (captured.keys() & tested) <= planned, (index, sorted(captured))
            seen += 1
    assert seen


def test_a_qualifiers_node_is_asked_its_type_only_where_a_type_can_be_stated() -> None:
    assert not _navigation._states_types("python")
    assert _navigation._states_types("java")  # new Cart().submit(), verify(orders).create()
    assert _navigation._states_types("typescript")
    source = b"class T { void f() { new Cart().submit(); verify(orders).create(); } }"
    found = _navigation.references("java", _ts.parse("java", source).root_node, source)
    assert {(ref.name, ref.qualifier) for ref in found} >= {("submit", "Cart"), ("create", "orders")}


def test_preload_compiles_the_references_query_once_as_part_of_the_one_query() -> None:
    """A worker compiles a language's queries before its first file's budget starts; the references
    patterns are compiled once, inside the one query (compiling them alone as well doubled the
    slowest languages' start: C# 1.3 to 2.4 s, enough for a loaded worker to be taken as hung)."""
    import subprocess
    import sys

    script = (
        "import tree_sitter\n"
        "from mesh.index.parse import _navigation, preload\n"
        "real, sizes = tree_sitter.Query, []\n"
        "def counted(grammar, text):\n"
        "    sizes.append(text)\n"
        "    return real(grammar, text)\n"
        "tree_sitter.Query = counted\n"
        "preload('a.cs')\n"
        "head = _navigation.query_text('csharp', 'references')\n"
        "print(sum(1 for text in sizes if text.startswith(head)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=300)
    assert done.stdout.strip() == "1", done.stdout + done.stderr


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_scan_finds_the_nodes_a_capitalised_names_pattern_matches(language: str) -> None:
    """Each pattern taken out of the query (:data:`_navigation._CAPITALISED`) and found by a scan of
    the text instead: the scan gives every node the pattern alone matches, and no other."""
    _, _, _, scan = _navigation._combined(language)
    text = _navigation.query_text(language, "references")
    kinds = _scanned_kinds(language, scan)
    patterns = [found for found in _navigation._CAPITALISED.finditer(text) if found.group(1) in kinds]
    if language in ("go", "cpp", "csharp", "ruby"):
        assert not scan  # none of their patterns is of that shape
        return
    assert len(patterns) == len(kinds)
    compared = 0
    for source in _sources(language):
        root = _ts.parse(language, source).root_node
        scanned = sorted((node.start_byte, node.end_byte, node.type) for _, captured in
                         _navigation._capitalised(root, _ts.valid_utf8(source), scan) for node in captured["name"])  # fmt: skip
        matched = sorted(
            (node.start_byte, node.end_byte, node.type)
            for found in patterns
            for _, captured in _common.matches(_common.query(language, found.group(0)), root)
            for node in captured["name"]
        )
        assert scanned == matched
        compared += len(matched)
    assert compared


def test_the_scan_finds_a_scanned_type_with_children_through_the_leaf_beginning_it() -> None:
    """Every scanned type is a leaf in today's grammars; a type with children is still found from
    the innermost node beginning at the capital (a ``call`` here, reached from its function's name)."""
    grammar = _ts.language("python")
    calls = {symbol: ((), "reference.call", frozenset()) for symbol in range(grammar.node_kind_count)
             if grammar.node_kind_is_named(symbol) and grammar.node_kind_for_id(symbol) == "call"}  # fmt: skip
    source = b"Foo(1)\nbar(Baz)\nx = Qux.make()\n"
    root = _ts.parse("python", source).root_node
    found = [captured["name"][0] for _, captured in _navigation._capitalised(root, source, calls)]
    assert [(node.type, node.text) for node in found] == [("call", b"Foo(1)"), ("call", b"Qux.make()")]
