"""Build manifests: the dependencies each one declares, by one small reader per format.

Theory of operation
-------------------
:func:`extract` picks the reader for a manifest kind (the values of ``manifest_kind()``); a reader
appends :class:`~mesh.index.Dependency` values to a list and returns a problem ("" when none), so
whatever was read before a problem is kept. Nothing is executed or fetched: ``setup.py`` is read
with :mod:`ast`, XML with :mod:`xml.parsers.expat` (DOCTYPE and entity declarations refused), TOML
with :mod:`tomllib`, JSON with a small scanner; the line formats (``go.mod``, requirements,
``setup.cfg``, Gradle, ``Gemfile``) line by line with regular expressions. Names and versions are
kept as written (``""`` when there is no version; a Cargo or Poetry table gives its ``version``).

Lines. expat and :mod:`ast` give them. The JSON scanner is a tokenizer that tracks the open
containers and the key awaiting a value, so a dependency is the ``"name": value`` pair two objects
deep under a dependency key, at the line of its name; the same scanner stops where :mod:`json`
reports a problem, which keeps what came before. For TOML, :mod:`tomllib` gives the values, and a
line scan of the text (table headers ``[a.'b'.c]`` and ``key.sub = `` lines, multi-line strings
skipped) maps each key path to the line that first declares it; a dependency table's entry is found
by its path, an array entry (PEP 621 requirement strings) by searching the quoted string onwards
from the array's key, so repeated names still get their own lines. Dependencies come out sorted by
line, which is source order.

Scopes. "" for a normal dependency, else the manifest's own word: npm ``dev``/``peer``/``optional``;
composer ``dev``; the extra or group name (PEP 621 extras, PEP 735 groups, Poetry groups, with the
legacy ``dev-dependencies`` as ``dev``); setup.py/setup.cfg ``test`` (tests_require) and ``build``
(setup_requires); go ``indirect``; Maven the ``<scope>`` as written, ``managed`` under
dependencyManagement (plugin dependencies are left out); Gradle ``test`` for the test
configurations, "" for implementation/api/compile, else the configuration name (``compileOnly``,
``kapt``...); ``project`` for Gradle ``project(...)`` and MSBuild ProjectReference; Cargo ``dev``,
``build``, ``workspace`` (``[workspace.dependencies]``); Gemfile groups joined by ``,``.
"""

from __future__ import annotations

import ast
import bisect
import json
import re
import tomllib
from collections.abc import Callable, Iterable
from typing import Any, Final
from xml.parsers import expat

from .._facts import Dependency

__all__ = ["extract"]

_Reader = Callable[[str, bytes, list[Dependency]], str]
#: read from the bytes by expat, which also knows UTF-16 (NUL bytes are then no sign of a binary file)
_XML_KINDS: Final = frozenset({"pom.xml", ".csproj"})


def extract(kind: str, source: bytes) -> tuple[tuple[Dependency, ...], str]:
    """The dependencies a manifest of ``kind`` declares, in source order, and a problem ("" when none).

    Never raises: a manifest that cannot be read whole gives what was read before the problem.
    """
    reader = _READERS.get(kind)
    if reader is None:
        return (), f"{kind}: not a known manifest kind"
    if b"\x00" in source and not (kind in _XML_KINDS and source.startswith((b"\xff\xfe", b"\xfe\xff"))):
        return (), f"{kind}: binary content"
    text = source.decode("utf-8", "replace").removeprefix("\ufeff")
    deps: list[Dependency] = []
    try:
        problem = reader(text, source, deps)
    except Exception as exc:  # noqa: BLE001 - a bug here must not stop the indexing of a workspace
        problem = f"internal error: {type(exc).__name__}: {exc}"
    deps.sort(key=lambda dep: dep.line)
    return tuple(deps), f"{kind}: {problem}" if problem else ""


class _Lines:
    """Line numbers of offsets into one text."""

    def __init__(self, text: str) -> None:
        self.newlines = [m.start() for m in re.finditer("\n", text)]

    def at(self, offset: int) -> int:
        return bisect.bisect_left(self.newlines, offset) + 1


# -- Python requirements ---------------------------------------------------------------------------

_PEP508: Final = re.compile(
    r"[ \t]*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)[ \t]*(\[[^\]]*\])?[ \t]*(.*)", re.DOTALL
)
_MARKER_AFTER_URL: Final = re.compile(r"\s;")


def _requirement(text: str) -> tuple[str, str] | None:
    """``(name, version)`` of a PEP 508 requirement: specifiers as written, extras and markers dropped;
    a direct reference (``name @ url``) has the URL as its version."""
    match = _PEP508.match(text)
    if match is None:
        return None
    rest = match.group(3).strip()
    if rest.startswith("@"):
        version = _MARKER_AFTER_URL.split(rest[1:], maxsplit=1)[0].strip()
    else:
        version = rest.split(";", 1)[0].strip()
        if version and version[0] not in "<>=!~(":
            return None
    return match.group(1), version


_REQ_COMMENT: Final = re.compile(r"(?:^|[ \t])#.*")
_REQ_OPTION: Final = re.compile(r"[ \t]--?[A-Za-z].*")
_EGG: Final = re.compile(r"[#&]egg=([^&\s#]+)")
_URL: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _requirements_txt(text: str, _: bytes, deps: list[Dependency]) -> str:
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        number = index + 1
        line = lines[index].rstrip("\r")
        index += 1
        while line.endswith("\\") and index < len(lines):
            line = line[:-1] + lines[index].rstrip("\r")
            index += 1
        line = _REQ_COMMENT.sub("", line).strip()
        if not line or line.startswith("-"):
            continue
        line = _REQ_OPTION.sub("", line).strip()
        if _URL.match(line) or line.startswith((".", "/")):
            egg = _EGG.search(line)
            if egg is not None:
                deps.append(Dependency(egg.group(1), line, "pypi", number))
            continue
        parsed = _requirement(line)
        if parsed is not None:
            deps.append(Dependency(parsed[0], parsed[1], "pypi", number))
    return ""


def _setup_py(text: str, _: bytes, deps: list[Dependency]) -> str:
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return f"invalid Python at line {exc.lineno}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"invalid Python: {exc}"
    assigned: dict[str, ast.expr] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                assigned[target.id] = statement.value
    scopes = {"install_requires": "", "tests_require": "test", "setup_requires": "build"}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not _is_setup(node.func):
            continue
        for keyword in node.keywords:
            if keyword.arg in scopes:
                _python_requirements(keyword.value, scopes[keyword.arg], assigned, deps)
            elif keyword.arg == "extras_require":
                _python_extras(keyword.value, assigned, deps)
    return ""


def _python_extras(node: ast.expr, assigned: dict[str, ast.expr], deps: list[Dependency]) -> None:
    """``extras_require``: a dict literal (or a name bound to one), ``**other`` entries followed."""
    pending = [node]
    for _ in range(64):
        if not pending:
            return
        extras = _resolve(pending.pop(), assigned)
        if not isinstance(extras, ast.Dict):
            continue
        for key, value in zip(extras.keys, extras.values, strict=True):
            if key is None:
                pending.append(value)
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                _python_requirements(value, key.value, assigned, deps)


def _is_setup(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "setup") or (
        isinstance(func, ast.Attribute) and func.attr == "setup"
    )


def _resolve(node: ast.expr, assigned: dict[str, ast.expr]) -> ast.expr:
    for _ in range(8):
        if not isinstance(node, ast.Name) or node.id not in assigned:
            break
        node = assigned[node.id]
    return node


def _python_requirements(node: ast.expr, scope: str, assigned: dict[str, ast.expr], deps: list[Dependency]) -> None:
    pending = [node]
    while pending and len(pending) < 10_000:
        current = _resolve(pending.pop(), assigned)
        if isinstance(current, (ast.List, ast.Tuple, ast.Set)):
            pending.extend(reversed(current.elts))
        elif isinstance(current, ast.BinOp) and isinstance(current.op, ast.Add):
            pending.extend((current.right, current.left))
        elif isinstance(current, ast.Constant) and isinstance(current.value, str):
            spans_lines = current.end_lineno != current.lineno
            for offset, line in enumerate(current.value.split("\n")):
                parsed = _requirement(_REQ_COMMENT.sub("", line).strip())
                if parsed is not None:
                    number = current.lineno + offset if spans_lines else current.lineno
                    deps.append(Dependency(parsed[0], parsed[1], "pypi", number, scope))


_INI_SECTION: Final = re.compile(r"\[([^\]]*)\]")
_SETUP_CFG_SCOPES: Final = {"install_requires": "", "tests_require": "test", "setup_requires": "build"}


def _setup_cfg(text: str, _: bytes, deps: list[Dependency]) -> str:
    section = ""
    scope: str | None = None
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if line[0] in " \t":
            if scope is not None:
                _cfg_requirement(stripped, number, scope, deps)
            continue
        header = _INI_SECTION.match(line)
        if header is not None:
            section, scope = header.group(1).strip().lower(), None
            continue
        cut = min((i for i in (line.find("="), line.find(":")) if i >= 0), default=-1)
        if cut < 0:
            scope = None
            continue
        key, value = line[:cut].strip(), line[cut + 1 :].strip()
        if section == "options":
            scope = _SETUP_CFG_SCOPES.get(key.lower())
        elif section == "options.extras_require":
            scope = key
        else:
            scope = None
        if scope is not None and value and not value.startswith("file:"):
            _cfg_requirement(value, number, scope, deps)
    return ""


def _cfg_requirement(text: str, number: int, scope: str, deps: list[Dependency]) -> None:
    parsed = _requirement(_REQ_COMMENT.sub("", text).strip())
    if parsed is not None:
        deps.append(Dependency(parsed[0], parsed[1], "pypi", number, scope))


# -- TOML: pyproject.toml, Cargo.toml --------------------------------------------------------------

_TOML_KEY: Final = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
_TOML_DOTTED: Final = rf"{_TOML_KEY}(?:[ \t]*\.[ \t]*{_TOML_KEY})*"
_TOML_HEADER: Final = re.compile(rf"[ \t]*\[\[?[ \t]*({_TOML_DOTTED})[ \t]*\]")
_TOML_ASSIGN: Final = re.compile(rf"[ \t]*({_TOML_DOTTED})[ \t]*=")
_TOML_PART: Final = re.compile(_TOML_KEY)
_TOML_WHERE: Final = re.compile(r"\s*\(at (?:line (\d+), column \d+|end of document)\)\s*$")


class _TomlText:
    """Where each key path of a TOML text is first declared (see the module docstring)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = _Lines(text)
        self.found: dict[tuple[str, ...], tuple[int, int]] = {}
        self.cursors: dict[tuple[str, ...], int] = {}
        table: tuple[str, ...] = ()
        offset = 0
        in_string = ""
        for number, line in enumerate(text.split("\n"), 1):
            start, offset = offset, offset + len(line) + 1
            if in_string:
                if line.count(in_string) % 2:
                    in_string = ""
                continue
            header = _TOML_HEADER.match(line)
            if header is not None:
                table = _toml_parts(header.group(1))
                self.found.setdefault(table, (number, start))
                continue
            rest = line
            assign = _TOML_ASSIGN.match(line)
            if assign is not None:
                path = table + _toml_parts(assign.group(1))
                for end in range(len(table) + 1, len(path) + 1):
                    self.found.setdefault(path[:end], (number, start))
                rest = line[assign.end() :]
            for quotes in ('"""', "'''"):
                if rest.count(quotes) % 2:
                    in_string = quotes
                    break

    def where(self, path: tuple[str, ...]) -> tuple[int, int]:
        """``(line, offset of that line)`` of ``path``, else of its nearest declared ancestor, else line 1."""
        while path:
            if path in self.found:
                return self.found[path]
            path = path[:-1]
        return 1, 0

    def line(self, path: tuple[str, ...]) -> int:
        return self.where(path)[0]

    def entry_line(self, path: tuple[str, ...], value: str) -> int:
        """The line of the next quoted ``value`` in the array at ``path`` (the array's line if not found)."""
        line, start = self.where(path)
        start = self.cursors.get(path, start)
        hits = [i for i in (self.text.find(f'"{value}"', start), self.text.find(f"'{value}'", start)) if i >= 0]
        if not hits:
            return line
        self.cursors[path] = min(hits) + len(value) + 2
        return self.lines.at(min(hits))


def _toml_parts(dotted: str) -> tuple[str, ...]:
    parts = []
    for match in _TOML_PART.finditer(dotted):
        part = match.group()
        if part[0] == '"':
            try:
                part = json.loads(part)
            except ValueError:
                part = part[1:-1]
        elif part[0] == "'":
            part = part[1:-1]
        parts.append(part)
    return tuple(parts)


def _load_toml(text: str) -> tuple[dict[str, Any], str]:
    try:
        return tomllib.loads(text), ""
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        where = _TOML_WHERE.search(message)
        line = int(where.group(1)) if where and where.group(1) else 0
        message = message[: where.start()] if where else message
        problem = f"invalid TOML at line {line}: {message}" if line else f"invalid TOML: {message}"
        if line > 1:
            try:
                return tomllib.loads("\n".join(text.split("\n")[: line - 1])), problem
            except (tomllib.TOMLDecodeError, RecursionError):
                pass
        return {}, problem
    except RecursionError:
        return {}, "invalid TOML: nested too deeply"


def _table(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _table_version(spec: object) -> str:
    """The version of a dependency given as a string, a table (its ``version``) or a list of tables."""
    if isinstance(spec, str):
        return spec
    if isinstance(spec, dict):
        version = spec.get("version", "")
        return version if isinstance(version, str) else ""
    if isinstance(spec, list):
        return " || ".join(v for v in map(_table_version, spec) if v)
    return ""


def _pyproject(text: str, _: bytes, deps: list[Dependency]) -> str:
    data, problem = _load_toml(text)
    where = _TomlText(text)
    project = _table(data.get("project"))

    def requirements(path: tuple[str, ...], values: object, scope: str) -> None:
        for value in _strings(values):
            parsed = _requirement(value)
            if parsed is not None:
                deps.append(Dependency(parsed[0], parsed[1], "pypi", where.entry_line(path, value), scope))

    requirements(("project", "dependencies"), project.get("dependencies"), "")
    for extra, values in _table(project.get("optional-dependencies")).items():
        requirements(("project", "optional-dependencies", extra), values, extra)
    for group, values in _table(data.get("dependency-groups")).items():
        requirements(("dependency-groups", group), values, group)
    poetry = _table(_table(data.get("tool")).get("poetry"))
    tables = [(("tool", "poetry", "dependencies"), poetry.get("dependencies"), "")]
    tables.append((("tool", "poetry", "dev-dependencies"), poetry.get("dev-dependencies"), "dev"))
    for group, body in _table(poetry.get("group")).items():
        tables.append((("tool", "poetry", "group", group, "dependencies"), _table(body).get("dependencies"), group))
    for path, table, scope in tables:
        for name, spec in _table(table).items():
            if name.lower() != "python":
                deps.append(Dependency(name, _table_version(spec), "pypi", where.line((*path, name)), scope))
    return problem


_CARGO_TABLES: Final = (
    ("dependencies", ""),
    ("dev-dependencies", "dev"),
    ("dev_dependencies", "dev"),
    ("build-dependencies", "build"),
    ("build_dependencies", "build"),
)


def _cargo_toml(text: str, _: bytes, deps: list[Dependency]) -> str:
    data, problem = _load_toml(text)
    where = _TomlText(text)
    owners: list[tuple[tuple[str, ...], dict[str, Any]]] = [((), data)]
    owners.extend((("target", cfg), _table(body)) for cfg, body in _table(data.get("target")).items())
    for prefix, owner in owners:
        for key, scope in _CARGO_TABLES:
            for name, spec in _table(owner.get(key)).items():
                deps.append(Dependency(name, _table_version(spec), "cargo", where.line((*prefix, key, name)), scope))
    for name, spec in _table(_table(data.get("workspace")).get("dependencies")).items():
        line = where.line(("workspace", "dependencies", name))
        deps.append(Dependency(name, _table_version(spec), "cargo", line, "workspace"))
    return problem


# -- JSON: package.json, composer.json -------------------------------------------------------------

_JSON_TOKEN: Final = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.DOTALL)


def _json_text(token: str) -> str:
    try:
        value = json.loads(token)
    except ValueError:
        return token[1:-1]
    return value if isinstance(value, str) else token


def _in_section(stack: list[tuple[bool, str | None]], sections: dict[str, str]) -> bool:
    return len(stack) == 2 and stack[0][0] and stack[1][0] and stack[1][1] in sections


def _json_pairs(text: str, sections: dict[str, str]) -> Iterable[tuple[str, str, str, int]]:
    """``(section, name, value, offset of the name)`` for each pair two objects deep under a key of
    ``sections``; ``value`` is "" unless it is a string."""
    #: per open container: whether it is an object, and the key it is the value of
    stack: list[tuple[bool, str | None]] = []
    key: str | None = None
    key_offset = 0
    expect_key = False
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        head = token[0]
        if head in "{[":
            if key is not None and _in_section(stack, sections):
                yield stack[1][1], key, "", key_offset
            stack.append((head == "{", key))
            key, expect_key = None, head == "{"
        elif head in "}]":
            if stack:
                stack.pop()
            key, expect_key = None, False
        elif head == ",":
            expect_key = bool(stack) and stack[-1][0]
        elif head == ":":
            continue
        elif expect_key and head == '"':
            key, key_offset, expect_key = _json_text(token), match.start(), False
        else:
            if key is not None and _in_section(stack, sections):
                yield stack[1][1], key, _json_text(token) if head == '"' else "", key_offset
            key = None


def _json_manifest(
    text: str, deps: list[Dependency], ecosystem: str, sections: dict[str, str], keep: Callable[[str], bool]
) -> str:
    problem = ""
    try:
        document = json.loads(text)
        if not isinstance(document, dict):
            return "expected a JSON object"
    except json.JSONDecodeError as exc:
        problem = f"invalid JSON at line {exc.lineno}: {exc.msg}"
        text = text[: exc.pos]
    except RecursionError:
        problem = "invalid JSON: nested too deeply"
    lines = _Lines(text)
    for section, name, version, offset in _json_pairs(text, sections):
        if keep(name):
            deps.append(Dependency(name, version, ecosystem, lines.at(offset), sections[section]))
    return problem


_NPM_SECTIONS: Final = {
    "dependencies": "",
    "devDependencies": "dev",
    "peerDependencies": "peer",
    "optionalDependencies": "optional",
}


def _package_json(text: str, _: bytes, deps: list[Dependency]) -> str:
    return _json_manifest(text, deps, "npm", _NPM_SECTIONS, lambda name: True)


def _composer_json(text: str, _: bytes, deps: list[Dependency]) -> str:
    # Platform packages (php, ext-*, lib-*, composer-plugin-api...) are the names without a vendor.
    return _json_manifest(text, deps, "composer", {"require": "", "require-dev": "dev"}, lambda name: "/" in name)


# -- go.mod -----------------------------------------------------------------------------------------

_GO_INDIRECT: Final = re.compile(r"[ \t]*indirect\b")


def _go_mod(text: str, _: bytes, deps: list[Dependency]) -> str:
    block = ""
    for number, line in enumerate(text.split("\n"), 1):
        code, _, comment = line.partition("//")
        words = code.split()
        if not words:
            continue
        if block:
            if words == [")"]:
                block = ""
            elif block == "require":
                _go_require(words, comment, number, deps)
            continue
        verb, rest = words[0], words[1:]
        if verb.endswith("(") and len(verb) > 1:
            verb, rest = verb[:-1], ["(", *rest]
        if rest == ["("]:
            block = verb
        elif verb == "require":
            _go_require(rest, comment, number, deps)
    return ""


def _go_require(words: list[str], comment: str, number: int, deps: list[Dependency]) -> None:
    if not words:
        return
    name = words[0]
    if len(name) > 1 and name[0] == name[-1] and name[0] in '"`':
        name = name[1:-1]
    scope = "indirect" if _GO_INDIRECT.match(comment) else ""
    deps.append(Dependency(name, words[1] if len(words) > 1 else "", "go", number, scope))


# -- XML: pom.xml, *.csproj ------------------------------------------------------------------------


class _Refused(Exception):
    pass


def _refuse(*_: object) -> None:
    raise _Refused


def _read_xml(
    source: bytes, start: Callable[[str, dict[str, str], int], None], end: Callable[[str], None], text: list[str]
) -> str:
    """Run expat over ``source``: ``start(name, attributes, line)``, ``end(name)``, character data appended
    to ``text``; the problem, or ""."""
    parser = expat.ParserCreate()
    parser.buffer_text = True
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse
    parser.EntityDeclHandler = _refuse
    parser.StartElementHandler = lambda name, attributes: start(name, attributes, parser.CurrentLineNumber)
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text.append
    try:
        parser.Parse(source, True)
    except expat.ExpatError as exc:
        return f"invalid XML at line {exc.lineno}: {expat.ErrorString(exc.code)}"
    except _Refused:
        return f"DOCTYPE and entity declarations are not read (line {parser.CurrentLineNumber})"
    return ""


_POM_FIELDS: Final = frozenset({"groupId", "artifactId", "version", "scope"})


def _pom_xml(_: str, source: bytes, deps: list[Dependency]) -> str:
    stack: list[str] = []
    text: list[str] = []
    #: the <dependency> being read: its depth, line, whether managed, and its fields
    current: list[Any] = []

    def start(name: str, _: dict[str, str], line: int) -> None:
        stack.append(name)
        text.clear()
        if (
            name == "dependency"
            and not current
            and len(stack) >= 2
            and stack[-2] == "dependencies"
            and "plugin" not in stack
        ):
            current.extend((len(stack), line, "dependencyManagement" in stack, {}))

    def end(name: str) -> None:
        if current:
            depth, line, managed, fields = current
            if len(stack) == depth + 1 and name in _POM_FIELDS:
                fields[name] = "".join(text).strip()
            elif len(stack) == depth:
                group, artifact = fields.get("groupId", ""), fields.get("artifactId", "")
                scope = "managed" if managed else fields.get("scope", "")
                full = f"{group}:{artifact}" if group else artifact
                deps.append(Dependency(full, fields.get("version", ""), "maven", line, scope))
                current.clear()
        text.clear()
        if stack:
            stack.pop()

    return _read_xml(source, start, end, text)


def _csproj(_: str, source: bytes, deps: list[Dependency]) -> str:
    text: list[str] = []
    #: the <PackageReference> being read: name, version, line, and whether a <Version> child is open
    current: list[Any] = []

    def start(name: str, attributes: dict[str, str], line: int) -> None:
        text.clear()
        attrs = {key.lower(): value for key, value in attributes.items()}
        if name == "PackageReference":
            current[:] = [attrs.get("include", attrs.get("update", "")), attrs.get("version", ""), line]
        elif name == "ProjectReference":
            deps.append(Dependency(attrs.get("include", ""), "", "nuget", line, "project"))

    def end(name: str) -> None:
        if current:
            if name == "Version":
                current[1] = "".join(text).strip()
            elif name == "PackageReference":
                deps.append(Dependency(current[0], current[1], "nuget", current[2]))
                current.clear()
        text.clear()

    return _read_xml(source, start, end, text)


# -- Gradle ------------------------------------------------------------------------------------------

_GRADLE_CONFIGURATIONS: Final = (
    "implementation", "api", "compile", "compileOnly", "compileOnlyApi", "runtimeOnly", "runtime",
    "testImplementation", "testApi", "testCompile", "testCompileOnly", "testRuntimeOnly", "testRuntime",
    "testFixturesImplementation", "testFixturesApi", "androidTestImplementation", "debugImplementation",
    "releaseImplementation", "kapt", "kaptTest", "ksp", "kspTest", "annotationProcessor", "testAnnotationProcessor",
    "developmentOnly", "classpath", "provided", "coreLibraryDesugaring",
)  # fmt: skip
_GRADLE_CALL: Final = re.compile(
    rf"(?<![\w.$])({'|'.join(sorted(_GRADLE_CONFIGURATIONS, key=len, reverse=True))})\b[ \t]*(?=[(\"'A-Za-z])"
)
_JVM_COMMENT: Final = re.compile(r"""("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|//[^\n]*|/\*.*?(?:\*/|\Z)""", re.DOTALL)
_GRADLE_PROJECT: Final = re.compile(r"""\bproject\s*\(\s*(?:path\s*[:=]\s*)?(["'])(.*?)\1""")
_GRADLE_STRING: Final = re.compile(r""""((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'""")
_GRADLE_CATALOG: Final = re.compile(r"\b(libs\.[\w.]+)")
_GRADLE_ARGS_MAX: Final = 4000


def _gradle_named(args: str, key: str) -> str:
    match = re.search(rf"""\b{key}\s*[:=]\s*(["'])(.*?)\1""", args)
    return match.group(2) if match else ""


def _gradle_scope(configuration: str) -> str:
    if configuration in ("implementation", "api", "compile"):
        return ""
    if configuration.startswith(("test", "androidTest")):
        return "test"
    return configuration


def _gradle_arguments(code: str, start: int) -> str:
    """The arguments after a configuration name: a balanced ``(...)``, else the rest of the line up to ``{``."""
    if code.startswith("(", start):
        depth = 0
        index = start
        limit = min(len(code), start + _GRADLE_ARGS_MAX)
        while index < limit:
            char = code[index]
            if char in "\"'":
                close = code.find(char, index + 1)
                index = close if close > 0 else limit
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    return code[start + 1 : index]
            index += 1
        return code[start + 1 : limit]
    end = code.find("\n", start)
    line = code[start : end if end >= 0 else len(code)]
    return line.split("{", 1)[0]


def _gradle(text: str, _: bytes, deps: list[Dependency]) -> str:
    code = _JVM_COMMENT.sub(lambda m: m.group(1) if m.group(1) is not None else "\n" * m.group().count("\n"), text)
    lines = _Lines(code)
    for call in _GRADLE_CALL.finditer(code):
        line = lines.at(call.start())
        scope = _gradle_scope(call.group(1))
        args = _gradle_arguments(code, call.end())
        project = _GRADLE_PROJECT.search(args)
        if project is not None:
            deps.append(Dependency(project.group(2), "", "gradle", line, "project"))
            continue
        if re.search(r"\bname\s*[:=]", args):
            group, name = _gradle_named(args, "group"), _gradle_named(args, "name")
            if name:
                full = f"{group}:{name}" if group else name
                deps.append(Dependency(full, _gradle_named(args, "version"), "gradle", line, scope))
                continue
        found = False
        for string in _GRADLE_STRING.finditer(args):
            value = string.group(1) if string.group(1) is not None else string.group(2)
            parts = value.split(":")
            if len(parts) >= 2 and parts[0] and parts[1] and not any(c.isspace() for c in value):
                version = parts[2] if len(parts) > 2 else ""
                deps.append(Dependency(f"{parts[0]}:{parts[1]}", version, "gradle", line, scope))
                found = True
        if not found and (catalog := _GRADLE_CATALOG.search(args)) is not None:
            deps.append(Dependency(catalog.group(1), "", "gradle", line, scope))
    return ""


# -- Gemfile -----------------------------------------------------------------------------------------

_RUBY_COMMENT: Final = re.compile(r"""("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|#.*""")
_GEM: Final = re.compile(r"""gem[ \t(]+(["'])([^"'\n]+)\1(.*)""")
_GEM_VERSION: Final = re.compile(r"""[ \t]*,[ \t]*(["'])([^"'\n]*)\1""")
_GEM_GROUP_OPTION: Final = re.compile(r"""(?:\bgroups?:|:groups?\s*=>)\s*\[?([^\]\n]*)""")
_RUBY_NAMES: Final = re.compile(r""":(\w+)|["'](\w+)["']""")
_RUBY_BLOCK_END: Final = re.compile(r"""\bdo[ \t]*(?:\|[^|]*\|)?$""")
_RUBY_OPENER: Final = re.compile(r"""(?:if|unless|case|begin|while|until)\b""")


def _ruby_names(text: str) -> str:
    return ",".join(a or b for a, b in _RUBY_NAMES.findall(text))


def _gemfile(text: str, _: bytes, deps: list[Dependency]) -> str:
    #: one entry per open block: its group scope, or None for a block that is not a group
    blocks: list[str | None] = []
    for number, raw in enumerate(text.split("\n"), 1):
        line = _RUBY_COMMENT.sub(lambda m: m.group(1) or "", raw).strip()
        if not line:
            continue
        if _RUBY_BLOCK_END.search(line):
            blocks.append(_ruby_names(line[5:]) if re.match(r"group\b", line) else None)
            continue
        if _RUBY_OPENER.match(line):
            blocks.append(None)
            continue
        if re.match(r"end\b", line):
            if blocks:
                blocks.pop()
            continue
        gem = _GEM.match(line)
        if gem is None:
            continue
        rest = gem.group(3)
        versions = []
        while (version := _GEM_VERSION.match(rest)) is not None:
            versions.append(version.group(2))
            rest = rest[version.end() :]
        option = _GEM_GROUP_OPTION.search(rest)
        scope = _ruby_names(option.group(1)) if option else next((g for g in reversed(blocks) if g), "")
        deps.append(Dependency(gem.group(2), ", ".join(versions), "rubygems", number, scope))
    return ""


_READERS: Final[dict[str, _Reader]] = {
    "go.mod": _go_mod,
    "package.json": _package_json,
    "pyproject.toml": _pyproject,
    "setup.py": _setup_py,
    "setup.cfg": _setup_cfg,
    "requirements.txt": _requirements_txt,
    "pom.xml": _pom_xml,
    "build.gradle": _gradle,
    "build.gradle.kts": _gradle,
    ".csproj": _csproj,
    "Cargo.toml": _cargo_toml,
    "Gemfile": _gemfile,
    "composer.json": _composer_json,
}
