"""The references of one definition: its call sites and uses across the workspace, each resolved
when the code says enough, else marked as a match by name.

Theory of operation: every file's references are stored by name (``refs``: one row a file and a
name, the sites of that name in it). Finding the references of a definition ``D`` (name ``n``,
container ``C``, file ``F``) reads the rows named ``n`` and decides each site from what its file
``G`` can see of ``F`` and from what is written before the name (the qualifier):

- only a file of ``F``'s language family is looked at (JavaScript and TypeScript; Java and
  Kotlin; C and C++; each other language alone): code never names another language's definitions;
- ``G`` sees ``F`` when it is ``F``; when one of its imports resolves to ``F`` or to ``F``'s folder
  (a Go package, an import of a directory), or includes a header that does (C, C++: through up to
  :data:`INCLUDE_DEPTH` headers), or requires a file that does (Ruby); when both sit in one folder
  of a Go package; or, where ``F`` declares a namespace or package (C#, PHP, Java, Kotlin: the
  ``namespaces`` table), when ``G`` is in it (C#: or in one inside it), imports it or its class
  (``using``, a project's ``global using``, ``use A\\B\\Cls``, ``import a.b.*``/``a.b.Cls``), the
  nearest of two copies of a class winning;
- a member of ``C`` (method, field, constant, nested type) is reached by a site qualified
  ``self``/``this``/``cls``/``super``/``static``/``parent`` inside ``C``; qualified by ``C`` itself
  (``OrderService.create``, ``pkg.OrderService.create``) from a file that sees ``F``; unqualified
  inside ``C``'s span; through a receiver the file gives the type ``C`` (a use of ``C`` that binds
  it: ``self.db = UserDb()``, ``OrderService orders``, ``def f(store: Store)``); through a receiver
  named after ``C`` (``orderService``, ``self._orders``) from a file that sees ``F``; or the same
  ways through a class deriving from ``C`` that does not override the member (``class Cart extends
  Page``: ``cart.visit()``, ``this.visit()`` inside ``Cart``), found from the heritage references
  that bind the derived class's name;
- what a namespace holds (C++ ``namespace``, C#, PHP, Ruby ``module``) is reached like a top-level
  definition, or qualified by the namespace (``social::load``, ``Pitstop.Model.Customer``);
- a top-level definition is reached unqualified from ``F``, from a file importing the name from
  ``F`` or every name of it (an ``#include``, a wildcard import), or from the same package or
  namespace; qualified by the module or package alias ``G`` imports ``F`` under
  (``pricing.total``, ``store.New``);

Everything else with the same name is a match ``by name``: listed after the resolved ones, never
counted as resolved. A site resolved for a rival (another definition of the same name that ``G``
sees better) is not a match of ``D`` at all.
"""

from __future__ import annotations

import functools
import posixpath
import re
import sqlite3
from collections.abc import Iterable
from typing import Final, NamedTuple

import attrs

from ..parse import LANGUAGE_FAMILY
from ._symbols import SymbolRow

__all__ = ["BY_NAME", "RefSite", "find_references", "kind_name", "parameter_range", "with_enclosing"]

#: ``refs.sites`` letters (see ``Store``'s ``REFERENCE_KIND_LETTER``).
_KINDS: Final = {"c": "call", "n": "new", "t": "type", "u": "use", "b": "bind"}
#: The kind letter of a site that only gives a receiver its type (never listed).
_BIND: Final = "b"
#: How a site not resolved is marked.
BY_NAME: Final = "by name"
#: Qualifiers that name the enclosing class or instance.
_SELF: Final = frozenset({"self", "this", "cls", "super", "static", "parent", "Self", "$this", "@", "base", "me"})
#: Definitions a type or an instantiation can never name.
_VALUE_KINDS: Final = frozenset({"function", "method", "constant"})
#: Languages whose folder is a package or a namespace: its files see each other without imports.
_FOLDER_PACKAGES: Final = frozenset({"go", "java", "kotlin", "csharp"})
_WORD: Final = re.compile(r"[A-Za-z0-9]+")
_CONSTANT_NAME: Final = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{2,}[0-9]*")
_LAST_PART: Final = re.compile(r"::|[./\\]")


class RefSite(NamedTuple):
    """One site (a tuple: a common name has tens of thousands, made in one pass)."""

    path: str
    service: str
    language: str
    file_kind: str
    line: int
    #: call, new, type or use
    kind: str
    qualifier: str
    #: The innermost definition around the site (``Container.name``), "" at top level.
    enclosing: str
    #: Why it reaches the definition (``same file``, ``imported``, ``self``...), or :data:`BY_NAME`.
    how: str

    @property
    def resolved(self) -> bool:
        return self.how != BY_NAME


def kind_name(letter: str) -> str:
    return _KINDS.get(letter, "use")


@attrs.frozen
class _FileView:
    """What one referring file sees of the definition's file."""

    same_file: bool
    imports_file: bool
    same_package: bool
    #: names the file imports from the definition's file or folder
    names: frozenset[str]
    #: qualifiers the file imports the definition's module or package under
    aliases: frozenset[str]
    #: whether an import brings every top-level name of the definition's file into scope (a C or
    #: C++ ``#include``, directly or through headers; a wildcard ``import a.b.*``, ``from m import *``)
    everything: bool = False
    #: how the file sees the definition's namespace (C#, PHP): ``same namespace``, ``using``,
    #: ``global using``, ``imported``; "" when it does not
    namespace: str = ""

    @property
    def sees(self) -> bool:
        return self.same_file or self.imports_file or self.same_package


def find_references(db: sqlite3.Connection, target: SymbolRow, named: list[SymbolRow] | None = None) -> list[RefSite]:
    """Every site that names ``target``: resolved ones first, then those matching by name alone;
    within each, code before tests, then by service, path and line.

    A handful of queries whatever the number of sites: the rows of the name, the imports that
    resolve to the definition's file or folder, the receivers typed with its class. ``enclosing``
    is filled only where deciding needed it (the definition's own file); :func:`with_enclosing`
    fills it for the sites an answer shows. ``named``: every definition of the name, when the
    caller read them (they are the rivals)."""
    rows = db.execute(
        "SELECT r.file_id, f.path, f.service, f.language, f.kind, r.sites FROM refs r JOIN files f ON f.id = r.file_id"
        " WHERE r.name = ? ORDER BY f.path",
        (target.name,),
    ).fetchall()
    if not rows:
        return []
    target = _with_text(db, target)
    rivals = _rivals(db, target, named)
    own_range = parameter_range(target)
    extension = _extension(target)
    enum_constant = (
        target.language == "java" and target.kind == "constant" and bool(target.container)
        and _kind_of(db, target.file_id, target.container) == "enum"
    )  # fmt: skip
    # Overloads: others of the name in the same class and file taking other arguments (the same
    # parameters again are the one function declared and defined: C++'s ``Pop();`` in the class
    # and ``ClientPool<T>::Pop() {...}`` below it).
    overloads = [bounds for bounds in (parameter_range(rival) for rival in rivals
                 if rival.path == target.path and rival.container == target.container) if bounds != own_range]  # fmt: skip
    rivals_by_path: dict[str, list[SymbolRow]] = {}
    for rival in rivals:
        rivals_by_path.setdefault(rival.path, []).append(rival)
    rival_files = set(rivals_by_path)
    folder = posixpath.dirname(target.path)
    namespace = _namespace(db, target)
    declared = _declared_namespace(db, target)
    sight = _namespace_sight(db, target, declared, rows)
    member = bool(target.container) and not namespace
    owner = _owner(target.container) if member else ""
    importers = _importers(db, target.path, folder, frozenset({target.name, target.container.split(".")[0]} - {""}))
    bound = _bindings(db, owner) if member else {}
    # a constant (``CHICKEN_PRICE``, ``Money.ZERO``'s kind) typed in one file is that type wherever
    # it is used: its name is the workspace's, not a local's
    shared = frozenset(receiver for receivers in bound.values() for receiver in receivers
                       if _CONSTANT_NAME.fullmatch(receiver.rsplit(".", 1)[-1]))  # fmt: skip
    rival_bound = _rival_bindings(db, rivals, owner)
    twins = member and _has_twins(db, target, owner)
    heirs = _heirs(db, owner, rivals, importers if twins else None, folder) if member else {}
    heir_bound = _heir_bindings(db, heirs)
    rival_named = _RivalNamed(rival_bound.get(-1, frozenset()))
    spans: dict[int, list[tuple[int, int, str, str]]] = {}
    out: list[RefSite] = []
    family = _family(target.language)
    for file_id, path, service, language, file_kind, sites in rows:
        if _family(language) != family:
            continue  # code never names another language's definitions, not even by name
        view = _file_view(file_id, path, language, target, folder, importers, sight)
        needs_spans = path == target.path or path in rival_files or file_id in heirs
        if not needs_spans and not _may_resolve(view, member, file_id, sites, bound, shared, heir_bound, declared):
            out.extend(_by_name(sites, path, service, language, file_kind, target.kind in _VALUE_KINDS,
                                rival_bound.get(file_id, frozenset()), rival_named))  # fmt: skip
            continue  # nothing ties this file to the definition: every site is a match by name
        for site in sites.split("\n"):
            number, _, rest = site.partition(" ")
            line = int(number)
            if path == target.path and line == target.line:
                continue  # the declaration's own line (a recursive call there is rare)
            if rest[:1] == _BIND:
                continue  # a receiver typed without the name written: no use of it
            body, _, arity_text = rest[1:].partition("#")
            kind, qualifier = kind_name(rest[:1]), body.partition(">")[0]
            if kind in ("type", "new") and target.kind in _VALUE_KINDS:
                continue  # a type named ``Status`` is not the property or constant named ``Status``
            arity = int(arity_text) if arity_text.isdigit() else -1
            around = ""
            # the definition around the site decides only bare and self-qualified sites, and those
            # of files defining the target, a rival or an heir (thousands of files for ``__init__``)
            if needs_spans and (not qualifier or qualifier in _SELF or file_id in heirs):
                if sites.count("\n") < _SPANS_FROM:
                    around = _enclosing(db, file_id, line)  # a few sites: one indexed lookup each
                else:
                    if file_id not in spans:
                        spans[file_id] = _spans(db, file_id)
                    around = _around(spans[file_id], line)
            if member:
                how = _member(target, owner, qualifier, view, around, bound.get(file_id, frozenset()) | shared, twins)
                if not how and heirs:
                    how = _inherited(language, qualifier, around, heirs.get(file_id, ()), heir_bound, file_id)
                if not how and enum_constant and not qualifier and kind == "use" and view.sees and path not in rival_files:
                    how = "case label"  # Java names an enum's constant bare only in a switch on it
            else:
                how = _top_level(target, qualifier, view, namespace, declared)
            if not how and extension and qualifier and qualifier not in _SELF and view.sees and kind == "call":
                how = "extension"  # an extension method is called on any receiver where it is in scope
            if how and overloads:
                fits = _fits(own_range, arity)
                if fits is False:
                    continue  # a call of another overload: not a reference of this one
                if fits is None or any(_fits(other, arity) is not False for other in overloads):
                    how = ""  # the arguments do not tell the overloads apart
            if how == "receiver" and _rival_typed(rival_bound, file_id, qualifier):
                how = ""  # named like this class, but typed with (or named) another that has the name
            if not how and _rival_reached(rivals_by_path.get(path, ()), qualifier, around):
                continue
            if not how and qualifier and _rival_typed(rival_bound, file_id, qualifier):
                continue  # a receiver the file types with another class that has the name
            out.append(RefSite(path, service, language, file_kind, line, kind, qualifier, around, how or BY_NAME))
    # ``rows`` come by path and each file's sites by line: grouping keeps that order within a group
    groups: dict[tuple[bool, bool, str], list[RefSite]] = {}
    for site in out:
        groups.setdefault((site.how == BY_NAME, site.file_kind != "code", site.service), []).append(site)
    return [site for key in sorted(groups) for site in groups[key]]


def _family(language: str) -> str:
    """The languages whose code names each other's definitions (one compiler or runtime)."""
    return LANGUAGE_FAMILY.get(language, language)


def _may_resolve(
    view: _FileView, member: bool, file_id: int, sites: str, bound: dict[int, frozenset[str]], shared: frozenset[str],
    heir_bound: dict[int, frozenset[str]], declared: str | None,
) -> bool:  # fmt: skip
    """Whether any rule may resolve a site of a file (else all its sites match by name alone): the
    file sees the definition's, or gives a receiver its class's type (or a derived class's), or one
    of its sites names what is known anywhere (a constant typed with the class, a derived class, a
    namespace written whole)."""
    if view.sees or view.names or view.everything or view.namespace:
        return True
    if not member:
        return bool(declared)
    if file_id in bound or file_id in heir_bound:
        return True
    anywhere = heir_bound.get(-1, frozenset())
    if not shared and not anywhere:
        return False
    for site in sites.split("\n"):
        qualifier = site.partition(" ")[2][1:].partition("#")[0].partition(">")[0]
        if qualifier and (_receiver(qualifier) in shared or qualifier.rsplit(".", 1)[-1] in anywhere):
            return True
    return False


class _RivalNamed(dict[str, bool]):
    """qualifier -> whether it names a class holding a rival of the name (:func:`_rival_typed`'s
    part that holds in every file), each qualifier decided once: a common name's by-name sites
    repeat a few qualifiers thousands of times."""

    def __init__(self, named: frozenset[str]) -> None:
        super().__init__()
        self.named = named

    def __missing__(self, qualifier: str) -> bool:
        found = self[qualifier] = bool(self.named) and _receiver(qualifier).rsplit(".", 1)[-1] in self.named
        return found


def _by_name(
    sites: str, path: str, service: str, language: str, file_kind: str, value: bool,
    rival_typed: frozenset[str], rival_named: _RivalNamed,
) -> list[RefSite]:  # fmt: skip
    """The sites of a file nothing ties to the definition, as matches by name: bar a type or an
    instantiation of a value's name, and a receiver typed (``rival_typed``: the file's receivers
    typed with a class holding a rival) or named (``rival_named``) with a rival's class; as
    :func:`_rival_typed` decides."""
    out: list[RefSite] = []
    append, kinds = out.append, _KINDS
    for site in sites.split("\n"):
        number, _, rest = site.partition(" ")
        letter = rest[:1]
        if letter == _BIND or (value and (letter == "t" or letter == "n")):
            continue  # a binding; a type or an instantiation of a value's name
        qualifier = rest[1:].partition("#")[0].partition(">")[0]
        if qualifier and (rival_named[qualifier] or (rival_typed and _receiver(qualifier) in rival_typed)):
            continue
        append(RefSite(path, service, language, file_kind, int(number), kinds.get(letter, "use"), qualifier, "", BY_NAME))
    return out


def _with_text(db: sqlite3.Connection, target: SymbolRow) -> SymbolRow:
    """``target`` with its signature and doc line (a row read without them gets them here)."""
    if target.signature:
        return target
    from ._symbols import COLUMNS, rows_of

    found = rows_of(db, db.execute(f"SELECT {COLUMNS} FROM defs d JOIN files f ON f.id = d.file_id"
                                   " WHERE d.file_id = ? AND d.name = ? AND d.line = ?", (target.file_id, target.name, target.line)))  # fmt: skip
    return next((row for row in found if row.container == target.container and row.kind == target.kind), target)


#: A Kotlin extension function's declaration: ``fun <T> List<T>.second()``, ``fun String?.slug()``.
_KOTLIN_EXTENSION: Final = re.compile(r"\bfun\s+(?:<[^>]*>\s*)?[\w.<>?, ]+\.(\w+)\s*\(")


def _extension(target: SymbolRow) -> bool:
    """Whether ``target`` is called as a method of a type it does not belong to: a C# extension
    method (``static X Name(this Type t)``), a Kotlin extension function (``fun Type.name()``)."""
    if target.language == "csharp":
        return target.kind == "method" and "(this " in target.signature.replace("( this", "(this")
    if target.language == "kotlin":
        named = _KOTLIN_EXTENSION.search(target.signature)
        return named is not None and named.group(1) == target.name
    return False


def _kind_of(db: sqlite3.Connection, file_id: int, qualified: str) -> str:
    """The kind of the definition of the file named ``qualified`` (``Outer.Inner``), "" when none."""
    container, _, name = qualified.rpartition(".")
    row = db.execute("SELECT kind FROM defs WHERE file_id = ? AND name = ? AND container = ? LIMIT 1",
                     (file_id, name, container)).fetchone()  # fmt: skip
    return row[0] if row is not None else ""


def _owner(container: str) -> str:
    """The class a member is reached through: the last part of its container (a Kotlin companion's
    members through the class holding it: ``Registry.Companion`` -> ``Registry``)."""
    parts = container.split(".")
    if len(parts) > 1 and parts[-1] == "Companion":
        return parts[-2]
    return parts[-1]


#: A file with this many sites of the name reads all its definitions once; with fewer, each site
#: looks up the one around it (a rival's file of thousands of definitions has one or two sites).
_SPANS_FROM: Final = 8


def _enclosing(db: sqlite3.Connection, file_id: int, line: int) -> str:
    """The innermost definition of the file holding ``line`` (``Container.name``), "" at top level:
    what :func:`_around` finds in the file's spans, by one lookup of the (file, line) index."""
    found = db.execute(
        "SELECT name, container FROM defs WHERE file_id = ? AND line <= ? AND end_line >= ?"
        " ORDER BY line DESC, end_line ASC LIMIT 1", (file_id, line, line)).fetchone()  # fmt: skip
    return "" if found is None else f"{found[1]}.{found[0]}" if found[1] else found[0]


def with_enclosing(db: sqlite3.Connection, sites: list[RefSite]) -> list[RefSite]:
    """``sites`` with the definition around each filled in (one indexed lookup a site: a file of
    thousands of definitions is not read whole for the few sites a page shows)."""
    file_ids: dict[str, int | None] = {}
    out = []
    for site in sites:
        if site.enclosing:
            out.append(site)
            continue
        if site.path not in file_ids:
            row = db.execute("SELECT id FROM files WHERE path = ?", (site.path,)).fetchone()
            file_ids[site.path] = row[0] if row is not None else None
        file_id = file_ids[site.path]
        out.append(site._replace(enclosing="" if file_id is None else _enclosing(db, file_id, site.line)))
    return out


#: Parameters that are the receiver, not an argument.
_RECEIVERS: Final = frozenset({"self", "cls", "&self", "&mut self", "mut self", "this"})
_VARIADIC: Final = re.compile(r"^\*|\.\.\.|^params\s|^vararg\s|^&?\$?\w*\s*\.\.\.")


def parameter_range(row: SymbolRow) -> tuple[int, int | None] | None:
    """(fewest, most) arguments a call of ``row`` passes, from its signature (most None: variadic;
    None: no parameter list in the signature)."""
    signature = row.signature
    named = re.search(rf"(?<![\w$]){re.escape(row.name)}\s*(?:<[^()]*>|\[[^()]*\])?\s*\(", signature)
    if named is None:
        return None
    opening = named.end() - 1
    depth, closing = 0, -1
    for index in range(opening, len(signature)):
        char = signature[index]
        if char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
            if depth == 0 and char == ")":
                closing = index
                break
    if closing < 0:
        return None
    inner = signature[opening + 1 : closing].strip()
    if not inner:
        return (0, 0)
    params, depth, start = [], 0, 0
    for index, char in enumerate(inner):
        if char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
        elif char == "," and depth == 0:
            params.append(inner[start:index].strip())
            start = index + 1
    params.append(inner[start:].strip())
    params = [param for param in params if param and param not in _RECEIVERS and param not in ("/", "*")]
    if params and params[0].split(":")[0].strip() in _RECEIVERS:
        params = params[1:]
    required = sum(1 for param in params if "=" not in param and "?" not in param.split(":")[0]
                   and not _VARIADIC.search(param))  # fmt: skip
    return (required, None if any(_VARIADIC.search(param) for param in params) else len(params))


def _fits(bounds: tuple[int, int | None] | None, arity: int) -> bool | None:
    """Whether a call passing ``arity`` arguments fits (None: either is unknown)."""
    if bounds is None or arity < 0:
        return None
    low, high = bounds
    return low <= arity and (high is None or arity <= high)


def _rivals(db: sqlite3.Connection, target: SymbolRow, named: list[SymbolRow] | None = None) -> list[SymbolRow]:
    """The other definitions of the same name (``named``: every definition of the name, when the
    caller has them already: ``find_symbols`` of a bare name)."""
    from ._symbols import COLUMNS, rows_of

    if named is None:
        selected = db.execute(
            f"SELECT {COLUMNS} FROM defs d JOIN files f ON f.id = d.file_id WHERE d.name = ? COLLATE NOCASE AND d.name = ?",
            (target.name, target.name),
        )  # the index on names is case-blind: the first term lets the query use it
        named = rows_of(db, selected, text=False)
    # Signatures are read for the overloads only (the target's file): a common name has hundreds of rivals.
    rivals = [row for row in named if row.name == target.name and not (row.path == target.path and row.line == target.line)]
    if any(row.file_id == target.file_id for row in rivals):
        same_file = db.execute(f"SELECT {COLUMNS} FROM defs d JOIN files f ON f.id = d.file_id"
                               " WHERE d.file_id = ? AND d.name = ?", (target.file_id, target.name))  # fmt: skip
        texts = {(row.line, row.container): row for row in rows_of(db, same_file)}
        rivals = [texts.get((row.line, row.container), row) if row.file_id == target.file_id else row for row in rivals]
    return rivals


def _rival_reached(rivals: Iterable[SymbolRow], qualifier: str, around: str) -> bool:
    """Whether a site this definition does not reach is reached by a rival of its file (``rivals``:
    those of the site's file): a method of the class around it, called on ``self``, or a function
    of that file called bare."""
    for rival in rivals:
        if rival.container and qualifier in _SELF and _inside(around, rival.container):
            return True
        if not rival.container and not qualifier:
            return True
    return False


def _member(
    target: SymbolRow, owner: str, qualifier: str, view: _FileView, around: str, bound: frozenset[str], twins: bool
) -> str:
    if qualifier in _SELF:
        return "self" if view.same_file and _inside(around, target.container) else ""
    if not qualifier:
        return "same class" if view.same_file and _inside(around, target.container) else ""
    if qualifier == "~":
        return ""
    visible = view.sees or owner in view.names
    last = qualifier.rsplit(".", 1)[-1]
    if last == owner and visible:
        return "qualified"
    if bound and _receiver(qualifier) in bound and (visible or not twins):
        return "typed"  # a class of the same name elsewhere: only a file that sees this one
    if visible and _named_after(last, owner) and ("." in qualifier or _words(last) > 1):
        return "receiver"  # a field (``self.store``) or a compound name (``orderStore``), not a bare ``data``
    return ""


#: Languages where a member of the class is called bare from its own code (implicit ``this``).
_IMPLICIT_SELF: Final = frozenset({"java", "kotlin", "csharp", "cpp", "ruby"})
#: How many levels of derived classes a member is followed down.
HEIR_DEPTH: Final = 3
_CLASS_KINDS: Final = ("class", "struct", "interface", "trait", "type", "module", "enum")


def _heirs(
    db: sqlite3.Connection, owner: str, rivals: list[SymbolRow], importers: dict[int, list[tuple[str, str]]] | None,
    folder: str,
) -> dict[int, tuple[str, ...]]:  # fmt: skip
    """file id -> the classes it defines that derive from ``owner`` (directly or through up to
    :data:`HEIR_DEPTH` levels) without overriding the member (a class defining its own member of
    the name, a rival, is no heir, nor what derives from it). A derived class names its base in a
    heritage reference that binds the derived class's name (``class Cart extends Page``). With a
    class of the same name elsewhere (``importers`` given), only a file that imports the base's
    file or sits in its folder derives from this one."""
    overriding = {_owner(rival.container) for rival in rivals if rival.container}
    found: dict[int, set[str]] = {}
    frontier, seen = {owner}, {owner}
    for _ in range(HEIR_DEPTH):
        onward: set[str] = set()
        for base in sorted(frontier):
            for file_id, sites in db.execute("SELECT file_id, sites FROM refs WHERE name = ?", (base,)):
                named = {site.partition(">")[2].partition("#")[0] for site in sites.split("\n") if ">" in site}
                named = {name for name in named if name and "." not in name and name not in seen and name not in overriding}
                if not named:
                    continue
                marks = ",".join("?" * len(named))
                classes = {name for (name,) in db.execute(
                    f"SELECT name FROM defs WHERE file_id = ? AND name IN ({marks}) AND kind IN {_CLASS_KINDS}",
                    (file_id, *sorted(named)))}  # fmt: skip
                if importers is not None and base == owner and classes and file_id not in importers:
                    row = db.execute("SELECT path FROM files WHERE id = ?", (file_id,)).fetchone()
                    if row is None or posixpath.dirname(row[0]) != folder:
                        continue
                for name in classes:
                    found.setdefault(file_id, set()).add(name)
                    onward.add(name)
        seen |= onward
        frontier = onward
        if not frontier:
            break
    return {file_id: tuple(sorted(names)) for file_id, names in found.items()}


def _heir_bindings(db: sqlite3.Connection, heirs: dict[int, tuple[str, ...]]) -> dict[int, frozenset[str]]:
    """file id -> the receivers it types with a class deriving from the owner, and those classes' names."""
    names = sorted({name for classes in heirs.values() for name in classes})
    found: dict[int, set[str]] = {}
    for name in names:
        for file_id, receivers in _bindings(db, name).items():
            found.setdefault(file_id, set()).update(receivers)
    named = frozenset(names)
    return {file_id: frozenset(receivers) | named for file_id, receivers in found.items()} | ({-1: named} if named else {})


def _inherited(
    language: str, qualifier: str, around: str, classes: tuple[str, ...], heir_bound: dict[int, frozenset[str]],
    file_id: int,
) -> str:  # fmt: skip
    """How a site reaches a member through a class deriving from its owner ("" when it does not):
    from the derived class's own code (``this.visit()``, bare in Java), through a receiver typed
    with it, or qualified by its name."""
    if classes and any(_inside(around, cls) or around.rsplit(".", 1)[0].endswith(cls) for cls in classes):
        if qualifier in _SELF or (not qualifier and language in _IMPLICIT_SELF):
            return "inherited"
    if not qualifier or qualifier in _SELF:
        return ""
    receiver = _receiver(qualifier)
    if receiver in heir_bound.get(file_id, ()) or receiver.rsplit(".", 1)[-1] in heir_bound.get(-1, ()):
        return "inherited"
    return ""


def _words(name: str) -> int:
    return len(_WORD.findall(re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ")))


@functools.lru_cache(maxsize=4096)
def _receiver(dotted: str) -> str:
    """A receiver as bindings are compared: without ``self.``/``this.``/``@``/``$this.``."""
    for prefix in ("self.", "this.", "$this.", "@", "cls.", "me."):
        if dotted.startswith(prefix):
            return dotted[len(prefix) :]
    return dotted


#: Past this many classes holding a rival of the name, their receivers are not looked up.
RIVAL_OWNERS_MAX: Final = 50


def _rival_bindings(db: sqlite3.Connection, rivals: list[SymbolRow], owner: str) -> dict[int, frozenset[str]]:
    """file id -> the receivers it types with a class (other than ``owner``) holding a rival of the
    name, and those classes' own names (a site qualified by one reaches that class's member)."""
    owners = sorted({rival.container.rsplit(".", 1)[-1] for rival in rivals if rival.container} - {owner, ""})
    if not owners or len(owners) > RIVAL_OWNERS_MAX:
        return {}
    found: dict[int, set[str]] = {}
    for other in owners:
        for file_id, receivers in _bindings(db, other).items():
            found.setdefault(file_id, set()).update(receivers)
    named = frozenset(owners)
    return {file_id: frozenset(receivers) | named for file_id, receivers in found.items()} | {-1: named}


def _has_twins(db: sqlite3.Connection, target: SymbolRow, owner: str) -> bool:
    """Whether a type named ``owner`` is defined in the target's language outside its file too
    (copies of a class in two modules of a repository)."""
    return (
        db.execute(
            "SELECT 1 FROM defs d JOIN files f ON f.id = d.file_id WHERE d.name = ? COLLATE NOCASE AND d.name = ?"
            " AND f.path != ? AND f.language = ? AND d.kind IN ('class', 'struct', 'interface', 'enum', 'trait', 'type',"
            " 'module') LIMIT 1",
            (owner, owner, target.path, target.language),
        ).fetchone()
        is not None
    )


def _rival_typed(rival_bound: dict[int, frozenset[str]], file_id: int, qualifier: str) -> bool:
    receiver = _receiver(qualifier)
    return receiver in rival_bound.get(file_id, ()) or receiver.rsplit(".", 1)[-1] in rival_bound.get(-1, ())


def _bindings(db: sqlite3.Connection, owner: str) -> dict[int, frozenset[str]]:
    """file id -> the variables, fields and parameters a use of ``owner`` gives its type to there."""
    found: dict[int, frozenset[str]] = {}
    for file_id, sites in db.execute("SELECT file_id, sites FROM refs WHERE name = ?", (owner,)):
        bound = frozenset(_receiver(site.partition(">")[2].partition("#")[0]) for site in sites.split("\n") if ">" in site)
        if bound:
            found[file_id] = bound
    return found


#: Languages whose ``module`` definitions are namespaces: what they hold is reached like top-level
#: definitions, bare where the namespace is in scope or qualified by its name (``ns::f``).
_NAMESPACE_LANGUAGES: Final = frozenset({"cpp", "csharp", "php", "ruby"})


def _namespace(db: sqlite3.Connection, target: SymbolRow) -> str:
    """The namespace a definition sits in directly (its last name), "" when its container is no
    namespace (a C++ ``namespace a { namespace b {} }`` nests ``b`` in ``a``; C# and PHP name a
    namespace ``A.B`` whole)."""
    if not target.container or target.language not in _NAMESPACE_LANGUAGES:
        return ""
    parent, _, name = target.container.rpartition(".")
    row = db.execute(
        "SELECT 1 FROM defs WHERE file_id = ? AND kind = 'module'"
        " AND ((name = ? AND container = ?) OR (name = ? AND container = '')) LIMIT 1",
        (target.file_id, name, parent, target.container),
    ).fetchone()
    return name if row is not None else ""


#: Languages whose files declare the namespace or package they belong to -> the family whose
#: files see each other's (a Kotlin file sees the Java classes of its package).
_NAMESPACED: Final = {"csharp": "csharp", "php": "php", "java": "jvm", "kotlin": "jvm"}


def _declared_namespace(db: sqlite3.Connection, target: SymbolRow) -> str | None:
    """The innermost namespace the target's file declares around it (C#, PHP), dotted; None when none."""
    if target.language not in _NAMESPACED:
        return None
    declared = db.execute(
        "SELECT name FROM namespaces WHERE file_id = ? AND line <= ? AND end_line >= ? ORDER BY line DESC LIMIT 1",
        (target.file_id, target.line, target.line),
    ).fetchone()
    return None if declared is None else declared[0]


def _namespace_sight(db: sqlite3.Connection, target: SymbolRow, namespace: str | None, rows: list[tuple]) -> dict[int, str] | None:
    """file id -> how it sees the namespace ``target`` is declared in, for the files of ``rows`` in
    its language family; None when the target's file declares no namespace (folders decide).

    C#: a file in that namespace or one inside it (``A.B.C`` sees ``A.B``), one with ``using A.B;``,
    or one of a project (the folder of a ``.csproj``) where any file says ``global using A.B;``.
    PHP: a file in that very namespace, or one with ``use A\\B\\Cls;`` of the class (or of the
    class holding the member). Java and Kotlin: a file of the same package, or one importing the
    class (a top-level Kotlin function) or the package's ``*``. When another file declares the same
    class in the same namespace (a module copied into another), a file sees the copy nearest it."""
    if namespace is None:
        return None
    family = _NAMESPACED[target.language]
    wanted = {file_id: path for file_id, path, _, language, *_ in rows if _NAMESPACED.get(language) == family}
    cls = target.name if not target.container or _namespace(db, target) else _owner(target.container)
    if family == "jvm":
        sight = _jvm_sight(db, namespace, cls, wanted)
    elif family == "php":
        sight = _php_sight(db, namespace, cls, wanted)
    else:
        sight = _csharp_sight(db, namespace, wanted)
    twins = [path for (path,) in db.execute(
        "SELECT DISTINCT f.path FROM namespaces n JOIN defs d ON d.file_id = n.file_id JOIN files f ON f.id = n.file_id"
        " WHERE n.name = ? AND d.name = ? AND d.container IN ('', ?) AND n.file_id != ?",
        (namespace, cls, namespace, target.file_id))]  # fmt: skip
    # a class in two files of one folder is one class in parts (C#'s ``partial``), not two copies
    twins = [twin for twin in twins if posixpath.dirname(twin) != posixpath.dirname(target.path)]
    if twins:
        nearest = {file_id for file_id in sight if _shared(wanted[file_id], target.path) > max(
            _shared(wanted[file_id], twin) for twin in twins)}  # fmt: skip
        sight = {file_id: how for file_id, how in sight.items() if file_id in nearest}
    return sight


def _shared(a: str, b: str) -> int:
    """How many leading folders two paths share."""
    count = 0
    for left, right in zip(a.split("/")[:-1], b.split("/")[:-1], strict=False):
        if left != right:
            break
        count += 1
    return count


def _in_namespace(db: sqlite3.Connection, namespace: str, wanted: dict[int, str], nested: bool, how: str) -> dict[int, str]:
    inside = "(name = ? OR substr(name, 1, ?) = ?)" if nested else "name = ?"
    args = (namespace, len(namespace) + 1, namespace + ".") if nested else (namespace,)
    return {file_id: how for (file_id,) in db.execute(f"SELECT DISTINCT file_id FROM namespaces WHERE {inside}", args)
            if file_id in wanted}  # fmt: skip


def _jvm_sight(db: sqlite3.Connection, namespace: str, cls: str, wanted: dict[int, str]) -> dict[int, str]:
    sight = _in_namespace(db, namespace, wanted, False, "same package")
    for (file_id,) in db.execute("SELECT file_id FROM imports WHERE module IN (?, ?)", (f"{namespace}.*", f"{namespace}.{cls}")):
        if file_id in wanted:
            sight.setdefault(file_id, "imported")
    return sight


def _php_sight(db: sqlite3.Connection, namespace: str, cls: str, wanted: dict[int, str]) -> dict[int, str]:
    sight = _in_namespace(db, namespace, wanted, False, "same namespace")
    spelled = sorted({f"{namespace}.{cls}".replace(".", "\\"), namespace.replace(".", "\\")})
    marks = ",".join("?" * len(spelled))
    for file_id, module, names in db.execute(f"SELECT file_id, module, names FROM imports WHERE module IN ({marks})", spelled):
        if file_id in wanted and (module.endswith("\\" + cls) or cls in names.split(",")):
            sight.setdefault(file_id, "imported")
    return sight


def _csharp_sight(db: sqlite3.Connection, namespace: str, wanted: dict[int, str]) -> dict[int, str]:
    sight = _in_namespace(db, namespace, wanted, True, "same namespace")
    roots: set[str] = set()
    for file_id, scope, path in db.execute(
        "SELECT i.file_id, i.scope, f.path FROM imports i JOIN files f ON f.id = i.file_id WHERE i.module = ?", (namespace,)
    ):
        if scope == "project":
            roots.add(path)
        elif file_id in wanted:
            sight.setdefault(file_id, "using")
    if roots:
        projects = sorted(posixpath.dirname(path) for (path,) in db.execute("SELECT path FROM files WHERE path LIKE '%.csproj'"))
        global_roots = {_project(path, projects) for path in roots} - {None}
        for file_id, path in wanted.items():
            if file_id not in sight and _project(path, projects) in global_roots:
                sight[file_id] = "global using"
    return sight


def _project(path: str, projects: list[str]) -> str | None:
    """The folder of the nearest ``.csproj`` above ``path`` (None when none)."""
    found = None
    for folder in projects:
        if (not folder or path.startswith(folder + "/")) and (found is None or len(folder) > len(found)):
            found = folder
    return found


def _top_level(target: SymbolRow, qualifier: str, view: _FileView, namespace: str = "", declared: str | None = None) -> str:
    if not qualifier:
        if view.same_file:
            return "same file"
        if target.name in view.names:
            return "imported"
        if view.everything:
            return "included"
        if view.namespace:
            return view.namespace
        if view.same_package:
            return "same package"
        return ""
    if qualifier in view.aliases or qualifier.rsplit(".", 1)[-1] in view.aliases:
        return "qualified"
    if namespace and qualifier.rsplit(".", 1)[-1] == namespace and (view.sees or view.same_file):
        return "qualified"
    if declared and (qualifier == declared or qualifier.endswith("." + declared)):
        return "qualified"  # by its namespace, written whole (``Pitstop.Model.Customer``, ``global::A.B.C``)
    return ""


def _named_after(receiver: str, owner: str) -> bool:
    """Whether a receiver's name says it holds an ``owner`` (``orderService``, ``_orders``,
    ``order_repo`` for ``OrderRepository``, ``store`` for ``Store``)."""
    words = [word.lower() for word in _WORD.findall(re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", receiver))]
    kinds = [word.lower() for word in _WORD.findall(re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", owner))]
    if not words or not kinds:
        return False
    squashed, type_squashed = "".join(words), "".join(kinds)
    if squashed == type_squashed or squashed.rstrip("s") == type_squashed.rstrip("s"):
        return True
    if len(squashed) >= 4 and (type_squashed.startswith(squashed) or type_squashed.endswith(squashed)):
        return True
    return len(kinds) > 1 and words[-1] == kinds[-1] and words[0][:3] == kinds[0][:3]


def _inside(around: str, container: str) -> bool:
    return around == container or around.startswith(container + ".")


def _spans(db: sqlite3.Connection, file_id: int) -> list[tuple[int, int, str, str]]:
    return [
        (line, end_line, f"{container}.{name}" if container else name, kind)
        for line, end_line, name, container, kind in db.execute(
            "SELECT line, end_line, name, container, kind FROM defs WHERE file_id = ? ORDER BY line, end_line DESC",
            (file_id,),
        )
    ]


def _around(spans: list[tuple[int, int, str, str]], line: int) -> str:
    """The innermost definition holding ``line`` (its qualified name), "" at top level."""
    found = ""
    for start, end, qualified, _ in spans:
        if start > line:
            break
        if end >= line:
            found = qualified
    return found


def _importers(
    db: sqlite3.Connection, path: str, folder: str, followed: frozenset[str] | None = None
) -> dict[int, list[tuple[str, str]]]:
    """file id -> (module, names) of each of its imports that resolves to ``path`` or ``folder``,
    or that takes names of them from a file importing them (a barrel re-exporting them: Python's
    ``__init__.py``, TypeScript's ``index.ts``, Rust's ``pub use``), through up to
    :data:`REEXPORT_DEPTH` such files; or that includes a header including them (C and C++),
    through up to :data:`INCLUDE_DEPTH` headers. With ``followed``, only those names are followed
    through barrels (the definition's and its class's: ``from __future__ import annotations`` in
    thousands of files makes none of them a barrel of anything else)."""
    found: dict[int, list[tuple[str, str]]] = {}
    frontier: dict[str, frozenset[str] | None] = {path: None, folder: None}  # None: every name
    seen = set(frontier)
    for depth in range(INCLUDE_DEPTH + 1):
        marks = ",".join("?" * len(frontier))
        onward: dict[str, set[str] | None] = {}
        for file_id, module, names, target_path, importer, language in db.execute(
            "SELECT i.file_id, i.module, i.names, i.target_path, f.path, f.language FROM imports i"
            f" JOIN files f ON f.id = i.file_id WHERE i.target_path IN ({marks}) ORDER BY i.file_id, i.line",
            list(frontier),
        ):
            listed = [name for name in names.split(",") if name]
            allowed = frontier[target_path]
            kept = listed if allowed is None else [name for name in listed if name in allowed]
            includes = language in _INCLUDE_LANGUAGES and not listed
            if allowed is not None and not kept and not includes:
                continue
            entry = (module, names if allowed is None or includes else ",".join(kept))
            if entry not in found.setdefault(file_id, []):
                found[file_id].append(entry)
            if importer in seen:
                continue
            if includes and allowed is None and (_is_header(importer) or language in _LOADING_LANGUAGES):
                onward[importer] = None  # a header including the file: whoever includes it sees it all
                continue
            passed = kept if followed is None else [name for name in kept if name in followed]
            if passed and depth < REEXPORT_DEPTH and onward.get(importer, set()) is not None:
                onward.setdefault(importer, set()).update(passed)  # type: ignore[union-attr]
        frontier = {barrel: None if names is None else frozenset(names) for barrel, names in sorted(onward.items())}
        seen.update(frontier)
        if not frontier:
            break
    return found


def _is_header(path: str) -> bool:
    return posixpath.splitext(path)[1] in _HEADERS


#: How many re-exporting files a name is followed through.
REEXPORT_DEPTH: Final = 2
#: How many headers an ``#include`` is followed through (``main.cpp`` -> ``handler.h`` -> ``pool.h``).
INCLUDE_DEPTH: Final = 4
#: Languages whose import (``#include``, ``require``) brings in every name the file defines.
_INCLUDE_LANGUAGES: Final = frozenset({"c", "cpp", "ruby"})
#: Of those, the ones where a loaded file's own loads come along, whatever the file (Ruby's
#: ``require`` defines constants for the whole program); in C and C++ only a header's do.
_LOADING_LANGUAGES: Final = frozenset({"ruby"})
_HEADERS: Final = frozenset({".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tpp"})


#: The view of a file that neither imports the definition's file nor shares its package.
_UNSEEING: Final = _FileView(False, False, False, frozenset(), frozenset())


def _file_view(
    file_id: int, path: str, language: str, target: SymbolRow, folder: str,
    importers: dict[int, list[tuple[str, str]]], sight: dict[int, str] | None = None,
) -> _FileView:  # fmt: skip
    if path == target.path:
        return _FileView(True, False, False, frozenset(), frozenset())
    if file_id not in importers and (sight is None or file_id not in sight) and (
        sight is not None or language not in _FOLDER_PACKAGES or posixpath.dirname(path) != folder
    ):
        return _UNSEEING  # most files of a common name: nothing ties them to the definition
    names: set[str] = set()
    aliases: set[str] = set()
    imports = importers.get(file_id, [])
    everything = False
    for module, imported in imports:
        listed = [name for name in imported.split(",") if name]
        everything = everything or "*" in listed or (language in _INCLUDE_LANGUAGES and not listed)
        names.update(listed)
        aliases.update(_module_aliases(module, listed))
        # an import of the definition's file naming no names names its last part: a Java, Kotlin
        # or C# import of a class (``com.acme.ledger.Ledger``), a Go package (``store``)
        names.add(_LAST_PART.split(module.strip("./\\:"))[-1])
    if sight is not None:  # the namespaces say (C#, PHP)
        how = sight.get(file_id, "")
        return _FileView(False, bool(imports) or bool(how), False, frozenset(names), frozenset(aliases), everything, how)
    same_package = (
        language == target.language and language in _FOLDER_PACKAGES and posixpath.dirname(path) == folder
    )
    return _FileView(False, bool(imports), same_package, frozenset(names), frozenset(aliases), everything)


def _module_aliases(module: str, names: Iterable[str]) -> set[str]:
    """The qualifiers a module is used under: as written, its last part, a Go alias."""
    spelled = module.replace("::", ".").replace("/", ".").replace("\\", ".").strip(".")
    aliases = {spelled, spelled.rsplit(".", 1)[-1]}
    aliases.update(names)
    return {alias for alias in aliases if alias}

