"""Protocol Buffers (``.proto``) facts: package, imports, messages, enums and services, by a hand-written parser.

Theory of operation
-------------------
A regular-expression tokenizer turns the text into identifiers (a dotted name is one token),
numbers, strings and single punctuation characters, each with its line; whitespace and ``//`` /
``/* */`` comments are dropped. A recursive-descent parser walks the tokens. Only real nesting
(messages, enums and groups inside messages) recurses, at most :data:`MAX_DEPTH` levels; what is
merely skipped (options and their aggregate values, field options, ``extend`` blocks, ``reserved``
and ``extensions`` ranges, rpc option bodies) is skipped by counting brackets, without recursion;
a file-level option with a plain value (``option go_package = "...";``) is kept, as resolution ties
generated code to its ``.proto`` by ``go_package``, ``java_package`` and the like.

A block (message, enum, service, rpc) is recorded when its body opens, so messages and definitions
come out in source order, outer before inner, and it gets its ``end_line`` when its ``}`` (or the
rpc's ``;``) is read. Oneof fields are plain fields of their message; a group is a field (named by
the lower-cased group name, typed by the group name) plus a nested message.

A problem raises :class:`_Syntax` up to the top level, which records ``line N: expected ...`` and
resynchronises: it skips tokens, counting braces and closing the blocks still open as their ``}``
go by, until a ``message``, ``enum`` or ``service`` keyword at brace depth 0. Everything read
before the problem is kept; a block never closed ends at the last line of the file.
"""

from __future__ import annotations

import re
from typing import Final

from .._facts import Definition, FileFacts, Import, ProtoField, ProtoFile, ProtoMessage, ProtoMethod, ProtoService

__all__ = ["MAX_DEPTH", "MAX_ERRORS", "extract"]

#: Messages nested deeper than this are a syntax error (the parser recurses once per level).
MAX_DEPTH: Final = 64
#: Problems recorded per file; later ones are dropped (a binary file would otherwise list thousands).
MAX_ERRORS: Final = 50

#: Each match: the whitespace and comments before a token (an unclosed ``/*`` runs to the end), then the
#: token: a (dotted) identifier, a number, a string (maybe unterminated), any other character, or "" at the end.
_TOKEN: Final = re.compile(
    r"""((?:[ \t\r\n\f\v]+|//[^\n]*|/\*.*?(?:\*/|\Z))*)"""
    r"""([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"""
    r"""|0[xX][0-9A-Fa-f]+|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"""
    r"""|"(?:[^"\\\n]|\\[^\n])*"?|'(?:[^'\\\n]|\\[^\n])*'?"""
    r"""|.|\Z)""",
    re.DOTALL,
)
_STRING: Final = re.compile(r""""(?:[^"\\\n]|\\[^\n])*"|'(?:[^'\\\n]|\\[^\n])*'""")
_COMMENT: Final = re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)", re.DOTALL)
#: token kind by first character ("." starts a number or is punctuation; quotes may be unterminated)
_KIND_OF_FIRST: Final = {
    **dict.fromkeys("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_", "ident"),
    **dict.fromkeys("0123456789", "number"),
    "'": "string",
    '"': "string",
    ".": ".",
}
#: EOF tokens at the end, so that looking a few tokens ahead never needs a bounds check
_LOOKAHEAD: Final = 8
_ESCAPE: Final = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", re.DOTALL)
_SIMPLE_ESCAPES: Final = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_LABELS: Final = frozenset({"repeated", "optional", "required"})
_OPENERS: Final = frozenset("([{")
_CLOSERS: Final = frozenset(")]}")

#: (kind, text, line); kind is ident (maybe dotted), number, string, badstring, punct or eof.
_Token = tuple[str, str, int]


class _Syntax(Exception):
    """A parse problem, already worded as ``line N: ...``."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


class _Block:
    """A message, enum, service or rpc being read; ``items`` holds fields, or the rpc's signature."""

    __slots__ = ("container", "end_line", "items", "kind", "line", "name")

    def __init__(self, kind: str, name: str, container: str, line: int) -> None:
        self.kind = kind
        self.name = name
        self.container = container
        self.line = line
        self.end_line = 0
        self.items: list = []

    @property
    def dotted(self) -> str:
        return f"{self.container}.{self.name}" if self.container else self.name


def extract(source: bytes) -> FileFacts:
    """The facts of one ``.proto`` file. Never raises: problems land in ``ProtoFile.errors``."""
    text = source.decode("utf-8", "replace").removeprefix("\ufeff")
    try:
        parser = _Parser(text)
        parser.parse()
        return parser.facts()
    except Exception as exc:  # noqa: BLE001 - a bug here must not stop the indexing of a workspace
        error = f"internal error: {type(exc).__name__}: {exc}"
        return FileFacts(language="proto", proto=ProtoFile("", (), (), (), (error,)), error=error)


def _tokenize(text: str) -> tuple[list[_Token], list[tuple[int, str]]]:
    tokens: list[_Token] = []
    problems: list[tuple[int, str]] = []
    line = 1
    for skipped, token in _TOKEN.findall(text):
        if skipped:
            if not token and "/*" in skipped:
                problems.extend(_unclosed_comment(skipped, line))
            line += skipped.count("\n")
        if not token:
            break
        kind = _KIND_OF_FIRST.get(token[0], "punct")
        if kind == "string":
            if not _STRING.fullmatch(token):
                kind = "badstring"
        elif kind == ".":
            kind = "number" if len(token) > 1 else "punct"
        tokens.append((kind, token, line))
    end = ("eof", "", max(1, line - 1 if text.endswith("\n") else line))
    tokens.extend([end] * _LOOKAHEAD)
    return tokens, problems


def _unclosed_comment(skipped: str, line: int) -> list[tuple[int, str]]:
    """The problem of a ``/*`` never closed, if the whitespace and comments ending the file hold one."""
    comments = list(_COMMENT.finditer(skipped))
    if not comments:
        return []
    comment = comments[-1]
    if not comment.group().startswith("/*") or comment.group().endswith("*/", 2):
        return []
    line += skipped.count("\n", 0, comment.start())
    return [(line, f"line {line}: expected '*/' to close the comment, got end of file")]


def _unquote(token: str) -> str:
    body = token[1:-1]
    if "\\" not in body:
        return body
    return _ESCAPE.sub(_unescape, body)


def _unescape(match: re.Match[str]) -> str:
    escape = match.group(1)
    head = escape[0]
    try:
        if head == "x":
            return chr(int(escape[1:], 16))
        if head in "uU" and len(escape) > 1:
            return chr(int(escape[1:], 16))
        if head.isdigit() and head < "8":
            return chr(int(escape, 8))
    except ValueError:
        return match.group()
    return _SIMPLE_ESCAPES.get(head, head)


def _integer(text: str) -> int | None:
    try:
        if text[:2] in ("0x", "0X"):
            return int(text, 16)
        if len(text) > 1 and text[0] == "0":
            return int(text, 8)
        return int(text)
    except ValueError:
        return None


def _describe(token: _Token) -> str:
    if token[0] == "eof":
        return "end of file"
    text = token[1] if len(token[1]) <= 40 else token[1][:37] + "..."
    return text if token[0] in ("string", "badstring") else f"'{text}'"


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens, self.problems = _tokenize(text)
        self.last = len(self.tokens) - _LOOKAHEAD
        self.i = 0
        self.package = ""
        self.imports: list[Import] = []
        #: file-level options with a plain value, the first of each name
        self.options: dict[str, str] = {}
        #: every block in the order it opened
        self.blocks: list[_Block] = []
        #: blocks whose ``{`` was read and ``}`` not yet (None for a oneof)
        self.open: list[_Block | None] = []

    # -- tokens ---------------------------------------------------------------------------------

    def peek(self, ahead: int = 0) -> _Token:
        return self.tokens[self.i + ahead]

    def advance(self) -> _Token:
        token = self.tokens[self.i]
        if self.i < self.last:
            self.i += 1
        return token

    def fail(self, expected: str) -> _Syntax:
        token = self.tokens[self.i]
        return _Syntax(token[2], f"line {token[2]}: expected {expected}, got {_describe(token)}")

    def expect(self, text: str, context: str = "") -> _Token:
        token = self.tokens[self.i]
        if token[1] != text or token[0] in ("string", "badstring"):
            raise self.fail(f"'{text}'{context}")
        return self.advance()

    def name(self, what: str) -> str:
        token = self.tokens[self.i]
        if token[0] != "ident" or "." in token[1]:
            raise self.fail(what)
        self.advance()
        return token[1]

    def type_name(self, what: str) -> str:
        """A type or package name as written: dotted, maybe with a leading ``.``, spaces around dots dropped."""
        parts = []
        if self.peek()[1] == ".":
            self.advance()
            parts.append("")
        if self.peek()[0] != "ident":
            raise self.fail(what)
        parts.append(self.advance()[1])
        while self.peek()[1] == "." and self.peek(1)[0] == "ident":
            self.advance()
            parts.append(self.advance()[1])
        return ".".join(parts)

    def string(self, what: str) -> str:
        if self.peek()[0] != "string":
            raise self.fail(what)
        value = _unquote(self.advance()[1])
        while self.peek()[0] == "string":
            value += _unquote(self.advance()[1])
        return value

    def number(self, what: str, *, signed: bool = False) -> int:
        negative = signed and self.peek()[1] == "-"
        if negative:
            self.advance()
        token = self.peek()
        value = _integer(token[1]) if token[0] == "number" else None
        if value is None:
            raise self.fail(what)
        self.advance()
        return -value if negative else value

    # -- skipping -------------------------------------------------------------------------------

    def skip_statement(self) -> None:
        """Skip to the ``;`` ending the statement (brackets balanced, aggregate values included)."""
        depth = 0
        while True:
            kind, text, _ = self.tokens[self.i]
            if kind == "eof":
                raise self.fail("';'")
            if kind == "punct":
                if text in _OPENERS:
                    depth += 1
                elif text in _CLOSERS:
                    if depth == 0:
                        raise self.fail("';'")
                    depth -= 1
                elif text == ";" and depth == 0:
                    self.advance()
                    return
            self.advance()

    def skip_balanced(self, closer: str) -> int:
        """Skip a bracketed group whose opener was just read; the line of its closer."""
        depth = 1
        while True:
            kind, text, line = self.tokens[self.i]
            if kind == "eof":
                raise self.fail(f"'{closer}'")
            if kind == "punct":
                if text in _OPENERS:
                    depth += 1
                elif text in _CLOSERS:
                    depth -= 1
                    if depth == 0:
                        self.advance()
                        return line
            self.advance()

    def field_options(self) -> None:
        if self.peek()[1] == "[":
            self.advance()
            self.skip_balanced("]")

    # -- blocks ---------------------------------------------------------------------------------

    def open_block(self, kind: str, name: str, container: str, line: int, depth: int) -> _Block:
        if depth > MAX_DEPTH:
            raise _Syntax(line, f"line {line}: expected at most {MAX_DEPTH} levels of nesting, got more")
        self.expect("{", f" to open {kind} {name}")
        block = _Block(kind, name, container, line)
        self.blocks.append(block)
        self.open.append(block)
        return block

    def close(self, block: _Block | None) -> None:
        line = self.advance()[2]
        if block is not None:
            block.end_line = line
        self.open.pop()

    # -- grammar --------------------------------------------------------------------------------

    def parse(self) -> None:
        while True:
            try:
                self.top_level()
                return
            except _Syntax as problem:
                self.problems.append((problem.line, str(problem)))
                self.resynchronise()

    def resynchronise(self) -> None:
        depth = len(self.open)
        while True:
            kind, text, line = self.tokens[self.i]
            if kind == "eof" or (depth == 0 and text in ("message", "enum", "service") and kind == "ident"):
                return
            if kind == "punct":
                if text == "{":
                    depth += 1
                elif text == "}" and depth > 0:
                    depth -= 1
                    if depth < len(self.open):
                        block = self.open.pop()
                        if block is not None:
                            block.end_line = line
            self.advance()

    def top_level(self) -> None:
        while True:
            kind, text, line = self.peek()
            if kind == "eof":
                return
            if kind == "ident" and text in ("message", "enum", "service"):
                self.advance()
                if text == "message":
                    self.message("", line, 1)
                elif text == "enum":
                    self.enum("", line, 1)
                else:
                    self.service(line)
            elif text == "import":
                self.advance()
                if self.peek()[1] in ("public", "weak", "option") and self.peek(1)[0] == "string":
                    self.advance()
                path = self.string("an import path")
                self.imports.append(Import(module=path, line=line))
                self.expect(";")
            elif text == "package":
                self.advance()
                package = self.type_name("a package name")
                self.package = self.package or package
                self.expect(";")
            elif text in ("syntax", "edition"):
                self.advance()
                self.expect("=")
                self.string(f"a quoted {text}")
                self.expect(";")
            elif text == "option":
                self.advance()
                self.option()
            elif text == "extend":
                self.advance()
                self.extend()
            elif text == ";":
                self.advance()
            else:
                raise self.fail("'message', 'enum', 'service' or another top-level declaration")

    def option(self) -> None:
        """``option name = value;`` with a string, identifier or number: kept; anything else skipped."""
        kind, name, _ = self.peek()
        value_kind = self.peek(2)[0]
        plain = value_kind == "string" or (value_kind in ("ident", "number") and self.peek(3)[1] == ";")
        if kind == "ident" and self.peek(1)[1] == "=" and self.peek(1)[0] == "punct" and plain:
            self.advance()
            self.advance()
            value = self.string("a value") if value_kind == "string" else self.advance()[1]
            if self.peek()[1] == ";" and self.peek()[0] == "punct":
                self.advance()
                self.options.setdefault(name, value)
                return
        self.skip_statement()

    def extend(self) -> None:
        self.type_name("the extended message")
        self.expect("{")
        self.skip_balanced("}")

    def message(self, container: str, line: int, depth: int) -> None:
        name = self.name("a message name")
        block = self.open_block("message", name, container, line, depth)
        self.message_body(block, depth)

    def message_body(self, block: _Block, depth: int) -> None:
        while True:
            kind, text, line = self.peek()
            if text == "}" and kind == "punct":
                self.close(block)
                return
            if kind == "eof":
                raise self.fail(f"'}}' to close message {block.dotted}")
            if text == ";":
                self.advance()
                continue
            following = self.peek(1)[1]
            if kind == "ident" and text in ("message", "enum", "oneof") and self.peek(2)[1] == "{":
                self.advance()
                if text == "message":
                    self.message(block.dotted, line, depth + 1)
                elif text == "enum":
                    self.enum(block.dotted, line, depth + 1)
                else:
                    self.oneof(block, depth)
            elif kind == "ident" and text == "extend" and following != "=":
                self.advance()
                self.extend()
            elif kind == "ident" and text in ("option", "reserved", "extensions") and following != "=":
                self.advance()
                self.skip_statement()
            else:
                self.field(block, depth)

    def oneof(self, block: _Block, depth: int) -> None:
        name = self.name("a oneof name")
        self.expect("{", f" to open oneof {name}")
        self.open.append(None)
        while True:
            kind, text, _ = self.peek()
            if text == "}" and kind == "punct":
                self.close(None)
                return
            if kind == "eof":
                raise self.fail(f"'}}' to close oneof {name}")
            if text == ";":
                self.advance()
            elif text == "option" and self.peek(1)[1] != "=":
                self.advance()
                self.skip_statement()
            else:
                self.field(block, depth)

    def field(self, block: _Block, depth: int) -> None:
        tokens = self.tokens
        start = self.i
        line = tokens[start][2]
        label = ""
        # The common shape first: [label] type name = number ;
        at = start + 1 if tokens[start][1] in _LABELS else start
        quick = tokens[at : at + 5]
        if (
            quick[0][0] == "ident"
            and quick[1][0] == "ident"
            and quick[2][1] == "="
            and quick[3][0] == "number"
            and quick[4][1] == ";"
            and quick[0][1] not in ("group", "map")
            and "." not in quick[1][1]
        ):
            value = _integer(quick[3][1])
            if value is not None:
                label = tokens[start][1] if at > start else ""
                block.items.append(ProtoField(name=quick[1][1], type=quick[0][1], number=value, label=label, line=line))
                self.i = at + 5
                return
        if self.peek()[1] in _LABELS and self.peek(1)[1] != "=":
            label = self.advance()[1]
        if self.peek()[1] == "map" and self.peek(1)[1] == "<":
            self.advance()
            self.advance()
            key = self.type_name("a map key type")
            self.expect(",")
            value = self.type_name("a map value type")
            self.expect(">")
            type_, label = f"map<{key},{value}>", "map"
        else:
            type_ = self.type_name("a field type or '}'")
        name = self.name("a field name")
        self.expect("=", f" after field {name}")
        number = self.number(f"a number for field {name}")
        self.field_options()
        if type_ == "group" and self.peek()[1] == "{":
            block.items.append(ProtoField(name=name.lower(), type=name, number=number, label=label, line=line))
            group = self.open_block("message", name, block.dotted, line, depth + 1)
            self.message_body(group, depth + 1)
            return
        block.items.append(ProtoField(name=name, type=type_, number=number, label=label, line=line))
        self.expect(";", f" after field {name}")

    def enum(self, container: str, line: int, depth: int) -> None:
        name = self.name("an enum name")
        block = self.open_block("enum", name, container, line, depth)
        while True:
            kind, text, value_line = self.peek()
            if text == "}" and kind == "punct":
                self.close(block)
                return
            if kind == "eof":
                raise self.fail(f"'}}' to close enum {block.dotted}")
            if text == ";":
                self.advance()
            elif text in ("option", "reserved") and self.peek(1)[1] != "=":
                self.advance()
                self.skip_statement()
            else:
                value = self.name("an enum value name or '}'")
                self.expect("=", f" after enum value {value}")
                number = self.number(f"a number for enum value {value}", signed=True)
                block.items.append(ProtoField(name=value, type="", number=number, label="", line=value_line))
                self.field_options()
                self.expect(";", f" after enum value {value}")

    def service(self, line: int) -> None:
        name = self.name("a service name")
        block = self.open_block("service", name, "", line, 1)
        while True:
            kind, text, _ = self.peek()
            if text == "}" and kind == "punct":
                self.close(block)
                return
            if kind == "eof":
                raise self.fail(f"'}}' to close service {name}")
            if text == ";":
                self.advance()
            elif text in ("option", "stream") and kind == "ident":
                self.advance()
                self.skip_statement()
            elif text == "rpc" and kind == "ident":
                self.rpc(block)
            else:
                raise self.fail(f"'rpc', 'option' or '}}' in service {name}")

    def rpc(self, service: _Block) -> None:
        line = self.advance()[2]
        name = self.name("a method name")
        self.expect("(", f" after rpc {name}")
        client_streaming, request = self.rpc_type()
        self.expect(")")
        self.expect("returns", f" in rpc {name}")
        self.expect("(")
        server_streaming, response = self.rpc_type()
        self.expect(")")
        method = _Block("method", name, service.name, line)
        method.items = [request, response, client_streaming, server_streaming]
        self.blocks.append(method)
        service.items.append(method)
        if self.peek()[1] == "{":
            self.advance()
            method.end_line = self.skip_balanced("}")
        else:
            method.end_line = self.expect(";", f" or '{{' after rpc {name}")[2]

    def rpc_type(self) -> tuple[bool, str]:
        kind, text, _ = self.peek()
        following = self.peek(1)
        streaming = kind == "ident" and text == "stream" and (following[0] == "ident" or following[1] == ".")
        if streaming:
            self.advance()
        return streaming, self.type_name("a message type")

    # -- results --------------------------------------------------------------------------------

    def facts(self) -> FileFacts:
        last_line = self.tokens[self.last][2]
        for block in self.blocks:
            if not block.end_line:
                block.end_line = last_line
        messages = tuple(
            ProtoMessage(name=b.dotted, kind=b.kind, fields=tuple(b.items), line=b.line, end_line=b.end_line)
            for b in self.blocks
            if b.kind in ("message", "enum")
        )
        services = tuple(
            ProtoService(
                name=b.name,
                methods=tuple(
                    ProtoMethod(
                        name=m.name,
                        request=m.items[0],
                        response=m.items[1],
                        client_streaming=m.items[2],
                        server_streaming=m.items[3],
                        line=m.line,
                    )
                    for m in b.items
                ),
                line=b.line,
                end_line=b.end_line,
            )
            for b in self.blocks
            if b.kind == "service"
        )
        definitions = tuple(
            Definition(name=b.name, kind=b.kind, container=b.container, line=b.line, end_line=b.end_line)
            for b in self.blocks
        )
        self.problems.sort(key=lambda problem: problem[0])
        errors = tuple(message for _, message in self.problems[:MAX_ERRORS])
        proto = ProtoFile(
            package=self.package,
            imports=tuple(i.module for i in self.imports),
            services=services,
            messages=messages,
            errors=errors,
            options=tuple(self.options.items()),
        )
        return FileFacts(
            language="proto",
            definitions=definitions,
            imports=tuple(self.imports),
            proto=proto,
            error=errors[0] if errors else "",
        )
