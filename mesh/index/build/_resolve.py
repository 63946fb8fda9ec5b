"""Facts that need the whole workspace: gRPC evidence keyed by the proto, imports tied to files.

Theory of operation
-------------------
gRPC: extractors report a service and a method as the generated code spells them. Here they are
matched to the services and methods the ``.proto`` files define: the service by name (among
same-named services of different packages, the one whose package shares the most words with the
namespace the code used, then the one defined in the same service folder), the method by
comparing spellings with case and underscores removed (``GetOrder`` = ``getOrder`` =
``get_order``), also without C#'s ``Async`` suffix and C++'s ``Async``/``PrepareAsync`` prefixes.
A fact that matches no proto keeps NULL keys: it is still evidence, just not tied to a method;
but the runtime's standard services (``Health``, ``ServerReflection``) are known by name without
their ``.proto`` (``grpc.health.v1.Health``). Then :class:`_Derivation` adds what no single file
shows: the handlers of subclasses and embedding structs of a server type, of a type's methods in
other files, and of Node handlers imported from another file.

Imports: each language says where a module path may live (relative to the importing file, or
anywhere by path suffix, or in the service whose manifest declares that package name); the
candidate in the importer's own service wins, then the shortest path, then the first by name.
JavaScript and TypeScript names go through the project's tsconfig.json/jsconfig.json (``paths``,
``baseUrl``, ``extends``) and package.json (``imports``, the packages of the workspace and their
entry files), read from the index's stored text as go.mod is. Code generated from a ``.proto`` is
tied to that ``.proto`` by the options protoc reads (``java_package``, ``java_outer_classname``,
``java_multiple_files``, ``go_package``, ``csharp_namespace``), else by its package: a Go package
whose ``.pb.go`` files are skipped or not in the workspace still resolves to its ``.proto``.
Both passes run inside the refresh's transaction. A saved edit re-resolves the edited files'
imports; a change to a project config the non-relative imports of its projects' files.

What an edit recomputes (INV-INDEX-11): the members of an npm workspace changed recompute the
gRPC keys, the derivation and the links over the whole workspace, and every import. A manifest
declaring a package whose name, entries or subpath imports changed, added or removed, moves only
the imports naming what it declared or declares and the ``#`` imports (:func:`_manifest_words`), as
an added file does; a project config (or a file one extends), the non-relative imports of the
TypeScript and JavaScript files under the projects reading it
(:meth:`_EcmaScript.projects_reading`); the manifest tables are read again, not every path. A
``.proto`` written
or removed runs the gRPC pass, and moves only the imports naming what it was or is when its package,
options or type names changed (:func:`proto_shapes`).
Any other change runs only the passes its files reach, as they were or as they are, or through an
import or a mount that moved (:func:`reaches`, :meth:`_Named.mounts`): ``grpc`` (the keying of every
gRPC fact and the derivation, both over the whole workspace: a few hundred gRPC facts; each server
type name's subclass candidates kept between refreshes and brought up to date for the written and
removed files alone, :attr:`_Files.candidates`; their heritage parsed again only when their stored
text changed, :data:`_PARSED`) and ``links`` (over every link fact, reading only the files that hold
one). A pass that neither reaches stands as it was: the links read no gRPC fact, definition, import
row or text; the derivation reads no link fact. The imports resolved again are the written files',
those that led to a removed file, and those of the files whose text names an added one
(:class:`_Named`). A quiet change reaches neither pass: its cost is that of its files and of the
files naming them, not of the workspace.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import logging
import posixpath
import re
import sqlite3
import zlib
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Final

import attrs

from .._facts import WELL_KNOWN_SERVICES, method_spelling, method_variants, well_known_package
from ..parse._ecmascript import ImportedHandler, imported_handlers
from ..parse import LANGUAGE_FAMILY
from ..parse._heritage import Heritage, heritage
from ..store._trigrams import indexed, trigrams
from ._links import resolve_links

__all__ = ["REACHES", "file_tables", "manifest_shapes", "proto_shapes", "reaches", "reaches_workspace", "resolve"]

log = logging.getLogger("mesh.index")

_WORD: Final = re.compile(r"[A-Za-z][a-z0-9]*|[0-9]+")


def _words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text)} - {"pb", "pb2", "grpc", "proto", "v1", "v2", "v3"}


def resolve(
    db: sqlite3.Connection,
    *,
    written: list[int] | None = None,
    gone: list[str] = (),
    added: list[str] = (),
    known: _Files | None = None,
    reached_before: bool | frozenset[str] = True,
    protos_before: dict[str, tuple] | None = None,
    manifests_before: dict[str, str] | None = None,
) -> _Files:
    """Recompute derived keys and import targets in the open transaction of ``db``.

    Returns the file tables it resolved against; pass them back as ``known`` to a later call whose
    changes touch no ``.proto``, project config or manifest (the common case of a saved edit), which
    then skips rebuilding them: files added or gone update them (:meth:`_Files.change`).

    With ``written`` (the file ids just written), only what those changes can affect is redone:
    their own imports, imports that led to a ``gone`` path or its folder, and imports that may now
    lead to an ``added`` file (:class:`_Named`); then only the whole-workspace passes reached
    (:func:`reaches`) by the written files, by the files whose imports moved, or by a mount that may
    lead to an added or removed file, or by the former rows of the written and removed files
    (``reached_before``: the passes those rows reached, ``True`` for both): the gRPC keys with the
    derived gRPC facts, the links. A *quiet* change reaches neither: the work is that of the change,
    not of the workspace (INV-INDEX-11). A ``.proto`` among them runs the gRPC pass and moves the
    imports naming it (``protos_before``: the shapes of the written ones as they were); a manifest
    written with the shape it had (``manifests_before``: :func:`manifest_shapes` of the written
    ones as they were) resolves as any other file; one with a new shape, added or removed, moves
    only the imports naming what it declared or declares and the ``#`` imports, its tables read
    again (:meth:`_Files.read_manifests`); a project config, the non-relative imports of its
    projects' files; a package.json whose ``workspaces`` changed, also the imports naming a package
    declared in a folder that joined or left the workspace.
    """
    if written is None:
        methods = _resolve_grpc(db)
        files = _Files(db)
        _resolve_imports(db, files, "")
        _Derivation(db, methods, files.candidates).run()  # after the imports: it follows them
        _links(db, files)
        return files
    db.execute("CREATE TEMP TABLE IF NOT EXISTS touched(file_id INTEGER PRIMARY KEY)")
    db.execute("DELETE FROM touched")
    db.executemany("INSERT OR IGNORE INTO touched VALUES (?)", [(file_id,) for file_id in written])
    paths = [path for (path,) in db.execute("SELECT path FROM files WHERE id IN (SELECT file_id FROM touched)")]
    paths += [*gone, *added]
    # a .proto written again with the package, options and type names it had (a method, a field, a
    # comment) leads no import elsewhere: only the gRPC pass reads what changed
    # A .proto leads imports by its package, options and type names (its shape): one written again
    # with the shape it had (a method, a field, a comment) moves no import; one whose shape changed,
    # added or removed moves only the imports that name what it was or is (:class:`_Named`).
    before = protos_before or {}
    shapes = proto_shapes(db, written)
    protos = sorted({*shapes, *(path for path in gone if path.endswith(".proto"))})  # written or removed
    moved = [(path, before.get(path), shapes.get(path)) for path in protos if before.get(path) != shapes.get(path)]
    paths = [path for path in paths if not path.endswith(".proto")]
    before = manifests_before or {}  # a manifest with the shape it had (a dependency added) moves no import
    now = manifest_shapes(db, written)
    same = {path for path, shape in now.items() if before.get(path, shape + "?") == shape}
    paths = [path for path in paths if path not in same]
    # A manifest declaring a package with a new shape (its name, entries or subpath imports), added or
    # removed, moves only the imports that name what it declared or declares, and the ``#`` imports; a
    # project config (or a file one extends) only the non-relative imports of the projects reading it:
    # the manifest tables are read again, not the workspace's paths. A change to an npm workspace's
    # members (``workspaces``) moves the imports naming a package declared in a folder that joined
    # or left it (a member is preferred among folders declaring one name).
    manifests = {path: (before.get(path), now.get(path)) for path in paths if posixpath.basename(path) in _DECLARING}
    configs = [path for path in paths if path not in manifests and _reshapes_imports(path, known)]
    projects: set[str] = set()
    members: set[str] = set()  # the names declared in folders that joined or left an npm workspace
    if known is not None:
        paths = [path for path in paths if path not in manifests and path not in configs]
    else:
        manifests, configs = {}, []
    reshaped = any(_reshapes_imports(path, known) for path in paths)
    files = known if known is not None and not reshaped else _Files(db)
    if files is known and (manifests or configs):
        projects = known.ecmascript.projects_reading(configs)  # as they were...
        was = known.ecmascript
        known.read_manifests(db)
        projects |= known.ecmascript.projects_reading(configs)  # ... and as they are
        if any(_members_move(*shapes) for shapes in manifests.values()):
            flipped = was.members ^ known.ecmascript.members
            members = was.names_of(flipped) | known.ecmascript.names_of(flipped)
    where = " WHERE i.file_id IN (SELECT file_id FROM touched)"
    named = _Named(None, (), ())
    if (gone or added or moved or manifests or projects) and not reshaped:  # what they come or go by
        named = _Named(known, added, gone, files, moved, manifests, projects, members)
        where += named.imports(db)
    if files is known and (gone or added):  # files come or go: the tables follow them (INV-INDEX-11)
        known.change(db, added, gone)
    if files is known and moved:
        known.read_protos(db)
    reshaped = reshaped or any(_reshapes_imports(path, files) for path in paths)
    changed = _resolve_imports(db, files, "" if reshaped else where)
    if reshaped:
        parts = REACHES
    else:  # only the passes the files reach: as they were, as they are, or through imports that moved
        parts = _parts(reached_before) | reaches(db, [*written, *changed]) | named.mounts(db)
        if protos:  # their services and methods key the gRPC facts
            parts |= {"grpc"}
    if files is known and files.candidates:
        if "grpc" in parts:
            _written_candidates(db, files.candidates, written, gone)
        else:  # not a candidate of any server type's name, as they were nor as they are: see below
            _forget_candidates(files.candidates, _server_names(db))
    if "grpc" in parts:
        methods = _resolve_grpc(db)
        _Derivation(db, methods, files.candidates).run()  # after the imports: it follows them
    if "links" in parts:
        _links(db, files)
    return files


#: File stems an import may reach through its folder's name alone (``import pkg``, ``crate::pkg``)
_ENTRY_STEMS: Final = frozenset({"__init__", "index", "lib", "main", "mod"})
#: Entry files no import spells (``import pkg.__init__``): found by their folder's name alone
_UNSPELLED: Final = frozenset({"__init__.py", "__init__.pyi", "mod.rs"})
#: File stems an import made of dots alone reaches (``from . import x``, ``import '..'``)
_DOT_ENTRY_STEMS: Final = frozenset({"__init__", "index"})


def _names_file(folder: str, target: str, path: str) -> bool:
    """Whether ``target`` (of a package's entry, a ``paths`` alias, relative to ``folder``) may name
    ``path``: the file, it with a suffix, a file of that folder, or its TypeScript source. A target
    with a star names what its module holds in place of the star: never the file alone."""
    if "*" in target:
        return False
    named = _within(folder, target)
    if named is None:
        return False
    bare = posixpath.splitext(named)[0]
    return not named or path == named or path.startswith((named + ".", named + "/", bare + "."))


def _proto_words(path: str, shape: tuple | None) -> set[str]:
    """Words (folded) that a module leading to code generated from the ``.proto`` at ``path`` holds,
    by its ``shape`` (:func:`proto_shapes`; None: it was or is not there): the longest part of its
    package, of its ``java_package`` and ``csharp_namespace``, its ``go_package``'s name and last
    element, its folder's name (a Go package of ``.proto`` files) and its own name (a ``.proto``
    importing it)."""
    folder, _, name = path.rpartition("/")
    words = {name.removesuffix(".proto"), folder.rpartition("/")[2]}
    if shape is not None:
        package, options = shape[0][0] if shape[0] else "", dict(reversed(shape[1]))
        dotted = [package, options.get("java_package", ""), options.get("csharp_namespace", "")]
        words |= {max(value.split("."), key=len) for value in dotted if value}
        import_path, _, go_name = options.get("go_package", "").partition(";")
        words |= {go_name, import_path.rpartition("/")[2]}
    return {indexed(word) for word in words if word}


def _entry_of(manifest: dict, folder: str, path: str) -> bool:
    """Whether ``path`` may be the entry of the package.json ``manifest`` at ``folder`` (its
    ``exports``, ``types``, ``module``, ``main``): a module naming the package alone may lead to it."""
    entries = [manifest.get(field) for field in ("types", "typings", "module", "main")]
    entries += list(_targets(manifest.get("exports")))
    return any(_names_file(folder, entry, path) for entry in entries if isinstance(entry, str) and entry)


class _Named:
    """What names files added or removed in an import's module or names (INV-INDEX-11): the imports
    that may now lead to an added file are those a refresh resolves again besides its own files'
    (with those that led to a removed file or its folder: nothing else can move when a file goes,
    every rule taking the first or best file it finds).

    Every rule of :func:`_target` finds a file by a module that holds its stem, or its folder's name
    (a Go or JVM package new with it; an entry file such as ``__init__.py``, ``index.ts``,
    ``mod.rs``), or a package name a manifest around it declares, or a TypeScript ``paths`` alias or
    package ``imports`` key whose target is the file; or, for ``__init__`` and ``index``, by dots
    alone from the folder's subtree. Those words are looked up in the text index (the importing
    file's text holds them), so the imports read are those of the files naming them, not the
    workspace's; a word too short for a trigram reads every import. A superset: an import resolved
    again to the same target costs its resolution, never a stale target. The mounts of the links
    (resolved like imports) are asked the same of added and removed files alike.

    The same holds for what else may move imports without reading every one: a ``.proto`` with a new
    shape (``protos``: the words of its package and types, folded), a manifest with a new shape
    (``manifests``: the names it declared and declares, and every ``#`` import when it is a
    package.json), a project config (``projects``: the non-relative imports of the TypeScript and
    JavaScript files under the projects reading it), an npm workspace's members changed
    (``packages``: the names declared in the folders that joined or left it)."""

    def __init__(
        self,
        before: _Files | None,
        added: Iterable[str],
        gone: Iterable[str],
        files: _Files | None = None,
        protos: Iterable[tuple[str, tuple | None, tuple | None]] = (),
        manifests: dict[str, tuple[str | None, str | None]] | None = None,
        projects: Iterable[str] = (),
        packages: Iterable[str] = (),
    ) -> None:
        #: the words an import naming an added file holds; and those of removed files too (mounts)
        self.words: set[str] = set()
        #: the words, folded, that an import of code generated from a moved ``.proto`` holds, in any
        #: case (C# and PHP spell a package in PascalCase): of its shape before and after
        self.folded: set[str] = set()
        for path, *shapes in protos:
            for shape in shapes:
                self.folded |= _proto_words(path, shape)
        self.mount_words: set[str] = set()
        #: folders an added ``__init__``/``index`` file makes reachable by dots from their subtree
        self.subtrees: set[str] = set()
        #: removed files and their folders: what the imports that led to them target
        self.gone = sorted({*gone, *(posixpath.dirname(path) for path in gone)})
        for path in sorted(set(added)):
            self.words |= self._words(path, before, files or before, adding=True)
        for path in sorted(set(gone)):
            self.mount_words |= self._words(path, before, files or before, adding=False)
        #: whether a package.json with a new shape may lead any ``#`` import elsewhere (its ``imports``, or
        #: the nearest package.json of the importers below it; a target of one may be a package's name)
        self.subpath_imports = False
        for path, shapes in sorted((manifests or {}).items()):
            for shape in shapes:
                self.words |= _manifest_words(path, shape)
            self.subpath_imports |= posixpath.basename(path) == "package.json"
        self.words |= set(packages)
        #: folders of the TypeScript/JavaScript projects whose config changed: their files' non-relative
        #: imports (``paths``, ``baseUrl``) may lead elsewhere
        self.projects = sorted(set(projects))
        self.mount_words |= self.words

    def _words(self, path: str, before: _Files | None, files: _Files | None, *, adding: bool) -> set[str]:
        folder, _, name = path.rpartition("/")
        stem = next((part for part in name.split(".") if part), "")
        words = {stem} if stem and name not in _UNSPELLED else set()
        entry = stem in _ENTRY_STEMS
        new_go = not adding or before is None or (path.endswith(".go") and folder not in before.go_folders)
        new_folder = not adding or before is None or folder not in before.folders
        folder_name = folder.rpartition("/")[2]
        if folder_name and (entry or new_folder or new_go):
            words.add(folder_name)
        if adding and stem in _DOT_ENTRY_STEMS:
            self.subtrees.add(folder)
        if files is None:
            return words
        for (declared, manifest), where in sorted(files.packages.items()):  # a Go module's root holds its go.mod
            if manifest == "Cargo.toml" and entry and (not where or path.startswith(where + "/")):
                words.update((declared, declared.replace("-", "_")))  # ``use my_crate`` is its lib.rs
        ecmascript = files.ecmascript
        for where, manifest in sorted(ecmascript.manifests.items()):
            if where and not path.startswith(where + "/"):
                continue
            subpaths = manifest.get("imports")
            if isinstance(subpaths, dict):
                words.update(key.replace("*", "") for key in subpaths if isinstance(key, str))
            named = manifest.get("name")
            if isinstance(named, str) and named and (entry or _entry_of(manifest, where, path)):
                words.add(named)
        for config in ecmascript.configs.values():
            if config is None:
                continue
            base = config.base_url if config.base_url is not None else config.paths_base
            for key, targets in sorted(config.paths.items()):
                if any(_names_file(base, target, path) for target in targets if isinstance(target, str)):
                    words.add(key)
        return words

    def imports(self, db: sqlite3.Connection) -> str:
        """The condition (after the refresh's own files') on ``imports i`` of those to resolve again,
        its temporary tables filled."""
        for table in ("named_words(word TEXT PRIMARY KEY)", "named_files(file_id INTEGER PRIMARY KEY)",
                      "named_subtrees(file_id INTEGER PRIMARY KEY)", "named_gone(path TEXT PRIMARY KEY)",
                      "named_folded(word TEXT PRIMARY KEY)",
                      "named_projects(file_id INTEGER PRIMARY KEY)"):  # fmt: skip
            db.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table}")
            db.execute(f"DELETE FROM {table.split('(', 1)[0]}")
        words = sorted(word for word in self.words if word)
        db.executemany("INSERT INTO named_words VALUES (?)", [(word,) for word in words])
        db.executemany("INSERT OR IGNORE INTO named_gone VALUES (?)", [(path,) for path in self.gone])
        where = " OR i.target_path IN (SELECT path FROM named_gone)" if self.gone else ""
        db.executemany("INSERT OR IGNORE INTO named_folded VALUES (?)", [(word,) for word in sorted(self.folded)])
        held = (
            "(EXISTS (SELECT 1 FROM named_words w WHERE instr(i.module, w.word) > 0 OR instr(i.names, w.word) > 0)"
            " OR EXISTS (SELECT 1 FROM named_folded w WHERE instr(lower(i.module), w.word) > 0))"
        )
        matches = [_match(word) for word in [*words, *sorted(self.folded)]]
        if None in matches:  # a word too short to narrow: every import is read
            where += f" OR {held}"
        elif matches:
            for match in matches:
                db.execute("INSERT OR IGNORE INTO named_files SELECT rowid FROM text WHERE text MATCH ?", (match,))
            where += f" OR (i.file_id IN (SELECT file_id FROM named_files) AND {held})"
        for folder in sorted(self.subtrees):
            if folder:
                db.execute("INSERT OR IGNORE INTO named_subtrees SELECT id FROM files WHERE path > ? AND path < ?",
                           (folder + "/", folder + "0"))  # fmt: skip
            else:
                db.execute("INSERT OR IGNORE INTO named_subtrees SELECT id FROM files")
        if self.subtrees:
            where += " OR (i.file_id IN (SELECT file_id FROM named_subtrees) AND trim(i.module, './') = '')"
        if self.subpath_imports:
            where += " OR substr(i.module, 1, 1) = '#'"
        scripts = "INSERT OR IGNORE INTO named_projects SELECT id FROM files WHERE language IN ({})".format(
            ", ".join(f"'{language}'" for language in _SCRIPTS)
        )
        for folder in self.projects:
            if folder:
                db.execute(f"{scripts} AND path > ? AND path < ?", (folder + "/", folder + "0"))
            else:
                db.execute(scripts)
        if self.projects:
            where += " OR (i.file_id IN (SELECT file_id FROM named_projects) AND substr(i.module, 1, 1) != '.')"
        return where

    def mounts(self, db: sqlite3.Connection) -> frozenset[str]:
        """``links`` when a mount's module (resolved like an import) may lead to an added or removed
        file, or away from it; else none."""
        if not self.mount_words and not self.gone:
            return frozenset()
        for (module,) in db.execute("SELECT DISTINCT mount FROM http_routes WHERE mount != '' ORDER BY mount"):
            if not module.strip("./") or any(word in module for word in self.mount_words):
                return frozenset({"links"})
        return frozenset()


def _written_candidates(
    db: sqlite3.Connection, kept: dict[tuple[str, str], list[tuple[str, int]]], written: list[int], gone: list[str] = ()
) -> None:
    """Bring the kept subclass candidates up to date for the ``written`` files and the ``gone``
    ones: each leaves every list (by its path), and a written one joins those whose query it now meets, asked
    of the text index with the very query of :meth:`_Derivation.candidates` narrowed to it. A list
    that reaches the cap is dropped (which files the cap keeps is asked again)."""
    if not kept:
        return
    rows = db.execute(
        f"SELECT id, path, language FROM files WHERE id IN ({', '.join('?' * len(written))}) ORDER BY path",
        sorted(set(written)),
    ).fetchall()
    paths = {path for _, path, _ in rows} | set(gone)  # a written file may have a new id: known by its path
    for key in sorted(kept):
        family, name = key
        found = [entry for entry in kept[key] if entry[0] not in paths]
        languages = _family_languages(family)
        match = _match(name)
        for file_id, path, language in rows:
            if language not in languages:
                continue
            if match is None or db.execute(
                "SELECT 1 FROM text WHERE text MATCH ? AND rowid = ?", (match, file_id)
            ).fetchone():
                found.append((path, file_id))
        found.sort()
        if len(found) < _CANDIDATES_MAX:
            kept[key] = found
        else:
            del kept[key]


def _forget_candidates(kept: dict[tuple[str, str], list[tuple[str, int]]], names: dict[str, set[str]]) -> None:
    """After an edit that reaches no gRPC pass (:func:`reaches`): its files were and are no candidate
    of the name of any server type, so those names' lists stand. A kept list of a name that is no
    server type's now (it was, when asked) may miss such a file: dropped, asked again if the name
    comes back."""
    for family, name in sorted(kept):
        if name not in names.get(family, ()):
            del kept[family, name]


def _family_languages(family: str) -> list[str]:
    return sorted(language for language, of in LANGUAGE_FAMILY.items() if of == family)


def _match(name: str) -> str | None:
    """The text index query of the files whose text holds every trigram of ``name`` (None: too short
    to narrow, every file matches)."""
    grams = sorted(trigrams(indexed(name)))
    if not grams:
        return None
    return " AND ".join('"' + gram.replace('"', '""') + '"' for gram in grams)


def _parts(reached: bool | frozenset[str]) -> frozenset[str]:
    """The whole-workspace passes a ``reached_before`` names (``True``: both, ``False``: none)."""
    if isinstance(reached, bool):
        return REACHES if reached else frozenset()
    return frozenset(reached)


#: The whole-workspace passes an edit may reach: the gRPC derivation (with the keying of every gRPC
#: fact) and the links.
REACHES: Final = frozenset({"grpc", "links"})
#: The tables of facts whose rows the links read besides the files and the workspace's wiring.
_LINK_FACTS: Final = ("http_routes", "http_calls", "messages", "constants", "settings")


def reaches_workspace(db: sqlite3.Connection, file_ids: Iterable[int]) -> bool:
    """Whether a change to these files can change a derived gRPC fact or a resolved link elsewhere
    (:func:`reaches` names which)."""
    return bool(reaches(db, file_ids))


def reaches(db: sqlite3.Connection, file_ids: Iterable[int]) -> frozenset[str]:
    """Which whole-workspace passes a change to these files can change the outcome of: ``grpc``
    (the derived gRPC facts) and ``links`` (the resolved links); none for a quiet edit.

    The links read no gRPC fact, definition, import row or text, only the link facts (routes,
    calls, messages, constants, settings), the files' paths and services and the workspace's wiring:
    a file reaches them when it holds a link fact. The derivation reads no link fact: a file reaches
    it when it holds a gRPC fact (extracted or derived), or is in reach of a server type
    (:class:`_Derivation`): a subclass candidate of one of its language family (its text holds every
    trigram of the type's name, as :meth:`_Derivation.candidates` asks; a Go method's receiver and a
    C# partial class's part name the type too), or a file that a file registering a service imports
    (Node handlers defined there). Asked of an edit's files before they are written and after: a
    pass that neither reaches is not run, and what it derived from the rest of the workspace stands
    (INV-INDEX-11). A superset of what can matter: a file wrongly said to reach costs that pass over
    the whole workspace, never a stale fact."""
    ids = sorted(set(file_ids))
    if not ids:
        return frozenset()
    db.execute("CREATE TEMP TABLE IF NOT EXISTS reach(file_id INTEGER PRIMARY KEY)")
    db.execute("DELETE FROM reach")
    db.executemany("INSERT INTO reach VALUES (?)", [(file_id,) for file_id in ids])
    found = set()
    for table in _LINK_FACTS:
        if db.execute(f"SELECT 1 FROM {table} WHERE file_id IN (SELECT file_id FROM reach) LIMIT 1").fetchone():
            found.add("links")
            break
    if _reaches_grpc(db):
        found.add("grpc")
    return frozenset(found)


def _reaches_grpc(db: sqlite3.Connection) -> bool:
    """Whether a file of the temporary table ``reach`` is in reach of the gRPC derivation."""
    if db.execute("SELECT 1 FROM grpc WHERE file_id IN (SELECT file_id FROM reach) LIMIT 1").fetchone():
        return True
    if db.execute(
        "SELECT 1 FROM imports i JOIN files f ON f.path = i.target_path WHERE f.id IN (SELECT file_id FROM reach)"
        " AND EXISTS (SELECT 1 FROM grpc g WHERE g.file_id = i.file_id AND g.role = 'server') LIMIT 1"
    ).fetchone():
        return True
    names = _server_names(db)
    grams = {family: [(name, trigrams(indexed(name))) for name in sorted(found)] for family, found in names.items()}
    for language, data in db.execute(
        "SELECT f.language, c.data FROM files f LEFT JOIN content c ON c.file_id = f.id"
        " WHERE f.id IN (SELECT file_id FROM reach)"
    ):
        wanted = grams.get(LANGUAGE_FAMILY.get(language, ""))
        if not wanted or data is None:
            continue
        if any(not needed for _, needed in wanted):  # a name too short to narrow: every file is a candidate
            return True
        try:
            text = zlib.decompress(data).decode("utf-8", "replace")
        except zlib.error:
            return True
        if any(name in text for name, _ in wanted):  # the common case, without the text's trigrams
            return True
        held = trigrams(indexed(text))
        if any(needed <= held for _, needed in wanted):
            return True
    return False


def _server_names(db: sqlite3.Connection) -> dict[str, set[str]]:
    """Language family -> the short names of its server types (SERVER facts, extracted or derived,
    on a class or struct): the names whose subclass candidates the derivation asks for."""
    names: dict[str, set[str]] = defaultdict(set)  # family -> short names of server types
    marks = ", ".join("?" * len(_TYPE_KINDS))
    for file_id, symbol, language in db.execute(
        "SELECT DISTINCT g.file_id, g.symbol, f.language FROM grpc g JOIN files f ON f.id = g.file_id"
        " WHERE g.role = 'server' AND g.symbol != '' ORDER BY g.file_id, g.symbol"
    ).fetchall():
        container, _, name = symbol.rpartition(".")
        if not db.execute(
            f"SELECT 1 FROM defs WHERE file_id = ? AND name = ? AND container = ? AND kind IN ({marks}) LIMIT 1",
            (file_id, name, container, *_TYPE_KINDS),
        ).fetchone():
            continue  # a function registering a service (``serve``, ``main``): no type to derive from
        family = LANGUAGE_FAMILY.get(language)
        if family is not None:
            names[family].add(name)
    return names


def file_tables(db: sqlite3.Connection) -> _Files:
    """The tables :func:`resolve` resolves imports against, built from ``db`` (pass as ``known``)."""
    return _Files(db)


def _links(db: sqlite3.Connection, files: _Files) -> None:
    """HTTP calls and messages, resolved with the import rules (a mount names a module)."""
    resolve_links(db, lambda language, module, importer: _target(files, language, module, "", importer))


def _resolve_grpc(db: sqlite3.Connection) -> dict[tuple[str, str], dict[str, str]]:
    """Key every extracted gRPC fact; the methods of each service, (package, service) -> spelling -> name."""
    db.execute("DELETE FROM grpc WHERE via != ''")  # derived by the last resolve: derived again after the imports
    services: dict[str, list[tuple[str, str]]] = defaultdict(list)  # name -> [(package, service folder)]
    for package, name, owner in db.execute(
        "SELECT DISTINCT ps.package, ps.name, f.service FROM proto_services ps JOIN files f ON f.id = ps.file_id"
        " ORDER BY ps.package, ps.name, f.service"
    ):
        services[name].append((package, owner))
    methods: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)  # (package, service) -> spelling -> name
    for package, service, name in db.execute(
        "SELECT DISTINCT package, service, name FROM proto_methods ORDER BY package, service, name"
    ):
        methods[package, service].setdefault(method_spelling(name), name)
    for package, known in WELL_KNOWN_SERVICES.items():
        if (package, known.name) not in methods:
            methods[package, known.name] = {method_spelling(method.name): method.name for method in known.methods}
    updates = []
    for rowid, service, method, namespace, owner in db.execute(
        "SELECT g.rowid, g.service, g.method, g.namespace, f.service FROM grpc g JOIN files f ON f.id = g.file_id"
    ):
        package = _choose_package(services.get(service, []), namespace, owner, service)
        if package is None:
            updates.append((None, None, rowid))
            continue
        service_key = f"{package}.{service}" if package else service
        method_key = None
        if method:
            spellings = methods.get((package, service), {})
            for variant in method_variants(method):
                if variant in spellings:
                    method_key = f"{service_key}/{spellings[variant]}"
                    break
        updates.append((service_key, method_key, rowid))
    db.executemany("UPDATE grpc SET service_key = ?, method_key = ? WHERE rowid = ?", updates)
    return methods


def _choose_package(candidates: list[tuple[str, str]], namespace: str, owner: str, service: str = "") -> str | None:
    standard = _standard_package(candidates, namespace, service)
    if standard is not None:
        return standard
    if not candidates:
        return None
    packages = sorted({package for package, _ in candidates})
    if len(packages) == 1:
        return packages[0]
    hint = _words(namespace)

    def score(package: str) -> tuple[int, int, str]:
        overlap = len(hint & _words(package))
        local = any(p == package and folder == owner for p, folder in candidates)
        return (-overlap, 0 if local else 1, package)

    return min(packages, key=score)


def _standard_package(candidates: list[tuple[str, str]], namespace: str, service: str) -> str | None:
    """The package of the runtime's standard service a fact names (``Health``, ``ServerReflection``):
    when no ``.proto`` of the workspace defines a service of that name, or when the namespace names
    the runtime's (``healthpb.RegisterHealthServer``) and no workspace package of that word does."""
    standard = well_known_package(service, namespace)
    if standard is None or not candidates:
        return standard
    word = _STANDARD_HINTS[service]
    if word in namespace.lower() and not any(p == standard or word in _words(p) for p, _ in candidates):
        return standard
    return None


#: The word a namespace holds when it names the runtime's own standard service.
_STANDARD_HINTS: Final = {"Health": "health", "ServerReflection": "reflection"}

# -- gRPC through inheritance, embedding and types spread over files ---------------------------

#: Definition kinds that can implement a service.
_TYPE_KINDS: Final = ("class", "struct", "type")
#: How many candidate files one server type's subclasses are looked for in (a safety valve).
_CANDIDATES_MAX: Final = 2000
#: How long an inheritance chain is followed.
_CHAIN_MAX: Final = 16
#: Languages whose classes are in sight of each other without an import (namespaces, autoloading).
_UNIMPORTED_LANGUAGES: Final = frozenset({"csharp", "ruby", "php"})


@attrs.frozen
class _ServerType:
    """A class or struct that implements a service: found by an extractor, or derived here."""

    file_id: int
    path: str
    language: str
    owner: str
    qualname: str
    service: str
    namespace: str
    service_key: str
    #: Found by an extractor (its handlers in its own file are facts already).
    extracted: bool
    #: What its derived facts come through: the base it inherits the service from (itself, when extracted).
    via: str


class _Derivation:
    """gRPC facts an extractor cannot see from one file, derived from the resolved ones.

    A type that implements a service (a SERVER fact on a class or struct) passes it on to:

    * its subclasses and the structs embedding it, in any file of its language family (found by
      their text, then by :func:`~mesh.index.parse._heritage.heritage`): each gets a SERVER fact,
      and a HANDLER for each of its methods that the service declares;
    * its own methods declared in other files: a Go type's methods in the other files of its
      package, a C# partial class's other parts.

    Among same-named server types, a base is the one in the subclass's own file, else the one its
    file imports, else the one in its folder, else in its workspace service; a tie derives nothing.
    An unqualified Go base is in the same package.

    A JavaScript or TypeScript ``addService`` registration whose handlers are imported
    (:func:`~mesh.index.parse._ecmascript.imported_handlers`) gets its HANDLERs where the functions
    are defined, and the facts on its object's properties lose their keys.

    Derived rows carry ``via``: the qualified name of the type they come through, or the path of
    the registering file; the next resolve deletes and derives them again. Lists are sorted, so
    the same index derives the same rows.
    """

    def __init__(
        self,
        db: sqlite3.Connection,
        methods: dict[tuple[str, str], dict[str, str]],
        kept: dict[tuple[str, str], list[tuple[str, int]]] | None = None,
    ) -> None:
        self.db = db
        self.methods = methods
        #: the subclass candidates of each type name asked before (:attr:`_Files.candidates`)
        self.kept = {} if kept is None else kept
        self.rows: list[tuple] = []
        #: (file_id, role, symbol or line, service_key, method_key) of every fact, to add none twice
        self.known: set[tuple] = set()
        for file_id, role, line, symbol, service_key, method_key in db.execute(
            "SELECT file_id, role, line, symbol, service_key, method_key FROM grpc WHERE service_key IS NOT NULL"
        ):
            self.known.add((file_id, role, symbol if role == "server" else line, service_key, method_key))
        self.heritages: dict[int, tuple] = {}
        self.files: dict[int, tuple[str, str, str]] = {}

    def run(self) -> None:
        self.imported_handlers()
        queue = self.seeds()
        by_name: dict[tuple[str, str], list[_ServerType]] = defaultdict(list)
        for found in queue:
            by_name[LANGUAGE_FAMILY.get(found.language, ""), found.qualname.rsplit(".", 1)[-1]].append(found)
        done: set[tuple[int, str, str]] = set()
        for _ in range(_CHAIN_MAX):
            following: list[_ServerType] = []
            for server in queue:
                key = (server.file_id, server.qualname, server.service_key)
                if key in done:
                    continue
                done.add(key)
                self.handlers(server)
                for sub in self.subtypes(server, by_name):
                    following.append(sub)
                    by_name[LANGUAGE_FAMILY.get(sub.language, ""), sub.qualname.rsplit(".", 1)[-1]].append(sub)
            if not following:
                break
            queue = following
        self.write()

    def write(self) -> None:
        self.db.executemany(
            "INSERT INTO grpc(file_id, role, service, method, line, symbol, namespace, service_key, method_key, via)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            sorted(self.rows, key=lambda row: (row[0], row[4], row[1], row[7], row[8] or "")),
        )

    def seeds(self) -> list[_ServerType]:
        """The server types the extractors found: SERVER facts whose symbol is a class or struct."""
        found = []
        for file_id, path, language, owner, service, namespace, service_key, symbol in self.db.execute(
            "SELECT g.file_id, f.path, f.language, f.service, g.service, g.namespace, g.service_key, g.symbol"
            " FROM grpc g JOIN files f ON f.id = g.file_id WHERE g.role = 'server' AND g.service_key IS NOT NULL"
            " AND g.symbol != '' ORDER BY f.path, g.line, g.service_key"
        ):
            container, _, name = symbol.rpartition(".")
            typed = self.db.execute(
                f"SELECT 1 FROM defs WHERE file_id = ? AND name = ? AND container = ?"
                f" AND kind IN ({', '.join('?' * len(_TYPE_KINDS))}) LIMIT 1",
                (file_id, name, container, *_TYPE_KINDS),
            ).fetchone()
            if typed is not None:
                found.append(
                    _ServerType(file_id, path, language, owner, symbol, service, namespace, service_key, True, symbol)
                )
        return found

    # -- Node handlers defined in another file ------------------------------------------------------

    def imported_handlers(self) -> None:
        """The handlers a JavaScript or TypeScript ``addService`` registration imports: a HANDLER where
        the function is defined, in place of the one on the registration's property (whose keys are
        cleared: it stays a fact of its file, tied to nothing)."""
        superseded = []
        for file_id, path, language, data in self.db.execute(
            "SELECT f.id, f.path, f.language, c.data FROM files f JOIN content c ON c.file_id = f.id"
            " WHERE f.language IN ('javascript', 'typescript', 'tsx') AND f.id IN (SELECT g.file_id FROM grpc g"
            " WHERE g.role = 'server' AND g.service_key IS NOT NULL AND g.via = '')"
            " ORDER BY f.path"
        ).fetchall():
            try:
                found = _parsed(imported_handlers, language, data)
            except (zlib.error, ValueError):
                continue
            for item in found:
                target = self.db.execute(
                    "SELECT f.id, f.path FROM imports i JOIN files f ON f.path = i.target_path"
                    " WHERE i.file_id = ? AND i.module = ? ORDER BY i.line LIMIT 1",
                    (file_id, item.module),
                ).fetchone()
                if target is None:
                    continue
                if item.method:
                    superseded += self.imported_handler(file_id, item, *target)
                else:
                    self.imported_implementation(file_id, item, *target)
        self.db.executemany("UPDATE grpc SET service_key = NULL, method_key = NULL WHERE rowid = ?", superseded)

    def imported_handler(self, file_id: int, item: ImportedHandler, target_id: int, target: str) -> list[tuple[int]]:
        """The HANDLER of one imported function; the rowid of the fact it replaces."""
        row = self.db.execute(
            "SELECT rowid, service_key, method_key, namespace FROM grpc WHERE file_id = ? AND role = 'handler'"
            " AND line = ? AND method = ? AND service = ? AND service_key IS NOT NULL AND via = ''",
            (file_id, item.line, item.method, item.service),
        ).fetchone()
        if row is None or item.name in ("*", "default"):
            return []
        rowid, service_key, method_key, namespace = row
        definition = self.db.execute(
            "SELECT line, container FROM defs WHERE file_id = ? AND name = ? AND kind IN ('function', 'method')"
            " ORDER BY container != '', line LIMIT 1",
            (target_id, item.name),
        ).fetchone()
        if definition is None:
            return []
        line, container = definition
        symbol = f"{container}.{item.name}" if container else item.name
        self.rows.append((target_id, "handler", item.service, item.method, line, symbol, namespace, service_key,
                          method_key, self.file(file_id)[0]))  # fmt: skip
        return [(rowid,)]

    def imported_implementation(self, file_id: int, item: ImportedHandler, target_id: int, target: str) -> None:
        """HANDLERs for the functions of an imported implementation (a module, an object, a class) that
        the service declares."""
        row = self.db.execute(
            "SELECT service_key, namespace FROM grpc WHERE file_id = ? AND role = 'server' AND line = ?"
            " AND service = ? AND service_key IS NOT NULL AND via = '' LIMIT 1",
            (file_id, item.line, item.service),
        ).fetchone()
        if row is None:
            return
        service_key, namespace = row
        package, _, name = service_key.rpartition(".")
        spellings = self.methods.get((package, name), {})
        container = "" if item.name in ("*", "default") else item.name
        for line, method, owner in self.db.execute(
            "SELECT line, name, container FROM defs WHERE file_id = ? AND container = ?"
            " AND kind IN ('function', 'method') ORDER BY line",
            (target_id, container),
        ).fetchall():
            for variant in method_variants(method):
                if variant in spellings:
                    symbol = f"{owner}.{method}" if owner else method
                    key = (target_id, "handler", line, service_key, f"{service_key}/{spellings[variant]}")
                    if key not in self.known:
                        self.known.add(key)
                        self.rows.append((target_id, "handler", item.service, method, line, symbol, namespace,
                                          service_key, key[4], self.file(file_id)[0]))  # fmt: skip
                    break

    # -- handlers ----------------------------------------------------------------------------------

    def handlers(self, server: _ServerType) -> None:
        """HANDLERs for the methods of ``server`` that its service declares (those no extractor saw)."""
        package, _, name = server.service_key.rpartition(".")
        spellings = self.methods.get((package, name), {})
        if not spellings:
            return
        for file_id, line, method, container in self.members(server):
            if server.extracted and file_id == server.file_id:
                continue
            for variant in method_variants(method):
                if variant in spellings:
                    method_key = f"{server.service_key}/{spellings[variant]}"
                    self.add(file_id, "handler", server, method, line, f"{container}.{method}", method_key, server.via)
                    break

    def members(self, server: _ServerType) -> list[tuple[int, int, str, str]]:
        """(file_id, line, name, container) of each method of ``server``, wherever the language puts them."""
        sql = "SELECT d.file_id, d.line, d.name, d.container FROM defs d"
        if server.language == "go":  # methods of a type live in any file of its package (folder)
            folder = posixpath.dirname(server.path)
            # the files under the folder, by a range of the paths' index (LIKE would scan every file)
            low = f"{folder}/" if folder else ""
            high = f"{folder}0" if folder else "\U0010ffff"  # "0" follows "/"
            rows = self.db.execute(
                "SELECT d.file_id, d.line, d.name, d.container, f.path FROM files f JOIN defs d ON d.file_id = f.id"
                " WHERE f.path >= ? AND f.path < ? AND f.language = 'go' AND d.kind = 'method' AND d.container = ?"
                " ORDER BY f.path, d.line",
                (low, high, server.qualname),
            ).fetchall()
            return [row[:4] for row in rows if posixpath.dirname(row[4]) == folder]
        if server.language == "csharp":  # a partial class's parts share its qualified name
            container, _, name = server.qualname.rpartition(".")
            return self.db.execute(
                sql + " JOIN files f ON f.id = d.file_id WHERE d.kind = 'method' AND d.container = ?"
                " AND f.service = ? AND f.language = 'csharp' AND EXISTS (SELECT 1 FROM defs p WHERE"
                " p.file_id = d.file_id AND p.name = ? AND p.container = ? AND p.kind IN ('class', 'struct'))"
                " ORDER BY f.path, d.line",
                (server.qualname, server.owner, name, container),
            ).fetchall()
        return self.db.execute(
            sql + " WHERE d.file_id = ? AND d.container = ? AND d.kind IN ('method', 'function') ORDER BY d.line",
            (server.file_id, server.qualname),
        ).fetchall()

    def file(self, file_id: int) -> tuple[str, str, str]:
        """(path, language, workspace service) of a file."""
        found = self.files.get(file_id)
        if found is None:
            found = self.files[file_id] = self.db.execute(
                "SELECT path, language, service FROM files WHERE id = ?", (file_id,)
            ).fetchone()
        return found

    def add(
        self,
        file_id: int,
        role: str,
        server: _ServerType,
        method: str,
        line: int,
        symbol: str,
        method_key: str | None,
        via: str,
    ) -> bool:
        key = (file_id, role, symbol if role == "server" else line, server.service_key, method_key)
        if key in self.known:
            return False
        self.known.add(key)
        self.rows.append((file_id, role, server.service, method, line, symbol, server.namespace, server.service_key,
                          method_key, via))  # fmt: skip
        return True

    # -- subtypes ----------------------------------------------------------------------------------

    def subtypes(self, server: _ServerType, by_name: dict[tuple[str, str], list[_ServerType]]) -> list[_ServerType]:
        """The classes deriving from ``server`` and the structs embedding it, as new server types."""
        family = LANGUAGE_FAMILY.get(server.language)
        name = server.qualname.rsplit(".", 1)[-1]
        if family is None:
            return []
        found = []
        for file_id in self.candidates(family, name):
            path, language, owner = self.file(file_id)
            for heritage in self.heritage(file_id, language):
                bases = [base for base in heritage.bases if base.rsplit(".", 1)[-1] == name]
                if not bases or self.base_of(file_id, path, language, bases[0], by_name[family, name]) != server:
                    continue
                qualname, line = self.definition(file_id, heritage)
                if not qualname:
                    continue
                sub = _ServerType(file_id, path, language, owner, qualname, server.service, server.namespace,
                                  server.service_key, False, server.qualname)  # fmt: skip
                if self.add(file_id, "server", server, "", line, qualname, None, server.qualname):
                    found.append(sub)
        return found

    def candidates(self, family: str, name: str) -> list[int]:
        """Files of the language family whose text names ``name``, by path (kept between refreshes
        in ``self.kept`` while fewer than the cap)."""
        found = self.kept.get((family, name))
        if found is None:
            languages = _family_languages(family)
            marks = ", ".join("?" * len(languages))
            match = _match(name)
            if match is not None:
                rows = self.db.execute(
                    "SELECT f.path, f.id FROM text CROSS JOIN files f ON f.id = text.rowid WHERE text MATCH ?"
                    f" AND f.language IN ({marks}) ORDER BY f.path LIMIT ?",
                    (match, *languages, _CANDIDATES_MAX),
                ).fetchall()
            else:
                rows = self.db.execute(
                    f"SELECT path, id FROM files WHERE language IN ({marks}) ORDER BY path LIMIT ?",
                    (*languages, _CANDIDATES_MAX),
                ).fetchall()
            found = [(path, file_id) for path, file_id in rows]
            if len(found) < _CANDIDATES_MAX:
                self.kept[family, name] = found
        return [file_id for _, file_id in found]

    def heritage(self, file_id: int, language: str) -> tuple:
        found = self.heritages.get(file_id)
        if found is None:
            row = self.db.execute("SELECT data FROM content WHERE file_id = ?", (file_id,)).fetchone()
            found = ()
            if row is not None:
                try:
                    found = _parsed(heritage, language, row[0])
                except (zlib.error, ValueError):
                    found = ()
            self.heritages[file_id] = found
        return found

    def base_of(
        self, file_id: int, path: str, language: str, base: str, named: list[_ServerType]
    ) -> _ServerType | None:
        """The server type a base written as ``base`` in the file at ``path`` names (None: none, or no telling).

        The type must be in sight of the file: in it, in its folder, in a file or folder it imports
        (``from .base import Base``, ``import com.acme.Base``, ``#include "base.h"``), or, where
        classes are found without imports (C# namespaces, Ruby's autoloading), in its workspace
        service. An unqualified Go type is in the same package.
        """
        folder = posixpath.dirname(path)
        if language == "go" and "." not in base:
            named = [server for server in named if posixpath.dirname(server.path) == folder]
        imported = {
            target
            for (target,) in self.db.execute(
                "SELECT target_path FROM imports WHERE file_id = ? AND target_path IS NOT NULL", (file_id,)
            )
        }
        owner = self.file(file_id)[2]

        def rank(server: _ServerType) -> tuple[bool, bool, bool, bool]:
            return (
                server.file_id != file_id,
                server.path not in imported and posixpath.dirname(server.path) not in imported,
                posixpath.dirname(server.path) != folder,
                server.owner != owner or language not in _UNIMPORTED_LANGUAGES,
            )

        ranked = sorted(
            (server for server in named if not all(rank(server))),
            key=lambda server: (rank(server), server.path, server.qualname, server.service_key),
        )
        if not ranked:
            return None
        tied = [server for server in ranked if rank(server) == rank(ranked[0])]
        return ranked[0] if len({(server.path, server.qualname) for server in tied}) == 1 else None

    def definition(self, file_id: int, heritage: Heritage) -> tuple[str, int]:
        """(qualified name, line) of the definition the extractor made of ``heritage`` ("" when none)."""
        marks = ", ".join("?" * len(_TYPE_KINDS))
        row = self.db.execute(
            f"SELECT container, line FROM defs WHERE file_id = ? AND name = ? AND kind IN ({marks})"
            " AND line BETWEEN ? AND ? ORDER BY line LIMIT 1",
            (file_id, heritage.name, *_TYPE_KINDS, heritage.line, heritage.end_line),
        ).fetchone()
        if row is None:
            return "", 0
        container, line = row
        return (f"{container}.{heritage.name}" if container else heritage.name), line


#: Parses of stored text that each run of the derivation asks again (a candidate's heritage, a
#: registration's imported handlers), by parser, language and digest of the stored bytes: a pure
#: function of those, kept across refreshes so that a loud edit parses again only the text that
#: changed. Emptied whole when full (what is found never depends on what is kept).
_PARSED: dict[tuple[str, str, bytes], tuple] = {}
_PARSED_MAX: Final = 50_000


def _parsed(parse, language: str, data: bytes) -> tuple:
    """``parse(language, text)`` of the compressed stored ``data``, as a tuple, from :data:`_PARSED`
    when that text was parsed before (raises as the decompression or the parser does)."""
    key = (parse.__qualname__, language, hashlib.blake2b(data, digest_size=16).digest())
    found = _PARSED.get(key)
    if found is None:
        found = tuple(parse(language, zlib.decompress(data)))
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[key] = found
    return found


# -- imports ------------------------------------------------------------------------------------

_JS_SUFFIXES: Final = (".ts", ".tsx", ".js", ".mjs", ".cjs", ".jsx", ".d.ts", ".mts", ".cts")
#: an emitted JavaScript name -> the TypeScript sources it is compiled from (``./api.js`` is ``./api.ts``)
_JS_EMITTED: Final = {".js": (".ts", ".tsx"), ".mjs": (".mts",), ".cjs": (".cts",), ".jsx": (".tsx",)}
#: the project configs TypeScript looks for in each folder up from a file, in this order
_JS_CONFIGS: Final = ("tsconfig.json", "jsconfig.json")
#: how deep an ``extends`` chain or a nest of package.json conditions is followed
_JS_DEPTH_MAX: Final = 16


class _Files:
    """Every indexed path, looked up exactly, by folder, by suffix, and by declared package name."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.service: dict[str, str] = {}
        self.language: dict[str, str] = {}
        for path, service, language in db.execute("SELECT path, service, language FROM files"):
            self.service[path] = service
            self.language[path] = language
        #: a folder -> its own files (not its subfolders'), sorted
        self.in_folder: dict[str, list[str]] = defaultdict(list)
        #: the last one and the last two parts of a path -> the paths ending so, sorted: every suffix
        #: is found through them (not each suffix a key: that was most of a daemon's memory)
        self.by_tail: dict[str, list[str]] = defaultdict(list)
        for path in sorted(self.service):
            self.in_folder[posixpath.dirname(path)].append(path)
            for tail in _tails(path):
                self.by_tail[tail].append(path)
        #: a folder (a Go package, a Java wildcard import) -> the service of its first file
        self.folder_service = {folder: self.service[paths[0]] for folder, paths in self.in_folder.items()}
        self.folders = set(self.folder_service)
        #: folders holding Go source (a generated package whose .pb.go files were skipped holds none)
        self.go_folders = {posixpath.dirname(path) for path, language in self.language.items() if language == "go"}
        #: every trailing run of a folder's parts -> the folders ending so, sorted
        self.folder_suffix: dict[str, list[str]] = defaultdict(list)
        for folder in sorted(self.folders):
            for suffix in _folder_suffixes(folder):
                self.folder_suffix[suffix].append(folder)
        self.read_protos(db)
        self.read_manifests(db)
        #: (language family, type name) -> [(path, file id)] of its subclass candidates, sorted by path
        #: (:meth:`_Derivation.candidates`): brought up to date for the files each refresh writes or
        #: removes (:func:`_written_candidates`)
        self.candidates: dict[tuple[str, str], list[tuple[str, int]]] = {}

    def read_manifests(self, db: sqlite3.Connection) -> None:
        """(Re)read what the manifests and project configs tell import resolution: the packages they
        declare, Go modules, the package.json and tsconfig tables (a few rows a manifest)."""
        self.packages = _declared_packages(db)
        #: Go module path -> the folder of its go.mod
        self.go_modules = {
            declared: folder for (declared, manifest), folder in self.packages.items() if manifest == "go.mod"
        }
        self.ecmascript = _EcmaScript(db, self)

    def read_protos(self, db: sqlite3.Connection) -> None:
        """(Re)read what the ``.proto`` files tell import resolution: their packages and folders,
        and where protoc puts the code generated from them (a few rows a ``.proto``)."""
        #: proto package (as dotted parts) -> the proto files declaring it
        self.proto_packages: dict[tuple[str, ...], list[str]] = defaultdict(list)
        #: proto file -> its package; folder -> its proto files
        self.proto_package: dict[str, str] = {}
        self.protos_in: dict[str, list[str]] = defaultdict(list)
        for path, package in db.execute(
            "SELECT f.path, p.package FROM proto_files p JOIN files f ON f.id = p.file_id ORDER BY f.path"
        ):
            self.proto_package[path] = package
            self.protos_in[posixpath.dirname(path)].append(path)
            if package:
                self.proto_packages[tuple(package.split("."))].append(path)
        #: the proto packages by their first part, folded: (their order above, folded parts, files)
        self.proto_packages_by_first: dict[str, list[tuple[int, tuple[str, ...], list[str]]]] = defaultdict(list)
        for number, (parts, paths) in enumerate(self.proto_packages.items()):
            folded = tuple(part.lower() for part in parts)
            self.proto_packages_by_first[folded[0]].append((number, folded, paths))
        self.generated = _Generated(db, self.proto_package)

    def change(self, db: sqlite3.Connection, added: Iterable[str], gone: Iterable[str]) -> None:
        """Bring the path tables in step with files added and gone (``db`` already holds them), as a
        new :class:`_Files` would read them, at the cost of those files, not of the workspace.

        Only for files that reshape nothing (:func:`_reshapes_imports`: no ``.proto``, project
        config or manifest): the package, proto and project tables stand as they are."""
        touched: set[str] = set()
        for path in sorted(set(gone)):
            if self.service.pop(path, None) is None:
                continue
            del self.language[path]
            folder = posixpath.dirname(path)
            touched.add(folder)
            _drop(self.in_folder, folder, path)
            for tail in _tails(path):
                _drop(self.by_tail, tail, path)
        rows = [db.execute("SELECT path, service, language FROM files WHERE path = ?", (path,)).fetchone()
                for path in sorted(set(added))]  # fmt: skip
        for path, service, language in filter(None, rows):
            if path in self.service:  # written again: its service or language may be new
                self.service[path] = service
                self.language[path] = language
                touched.add(posixpath.dirname(path))
                continue
            self.service[path] = service
            self.language[path] = language
            folder = posixpath.dirname(path)
            touched.add(folder)
            bisect.insort(self.in_folder[folder], path)
            for tail in _tails(path):
                bisect.insort(self.by_tail[tail], path)
        for folder in sorted(touched):
            paths = self.in_folder.get(folder)
            if paths:
                self.folder_service[folder] = self.service[paths[0]]
                if any(self.language[path] == "go" for path in paths):
                    self.go_folders.add(folder)
                else:
                    self.go_folders.discard(folder)
                if folder not in self.folders:
                    self.folders.add(folder)
                    for suffix in _folder_suffixes(folder):
                        bisect.insort(self.folder_suffix[suffix], folder)
            elif folder in self.folders:
                del self.folder_service[folder]
                self.folders.discard(folder)
                self.go_folders.discard(folder)
                for suffix in _folder_suffixes(folder):
                    _drop(self.folder_suffix, suffix, folder)

    def best(self, candidates: list[str], importer: str) -> str | None:
        if not candidates:
            return None
        own = self.service.get(importer)
        return min(candidates, key=lambda path: (self.service.get(path) != own, path.count("/"), len(path), path))

    def best_proto(self, candidates: Iterable[str], importer: str, hint: str = "") -> str | None:
        """Among the ``.proto`` files generated code may come from: the one whose name is a word of
        ``hint`` (a Go package generated from several), then the importer's own copy, then one laid
        out as protoc expects (``acme/orders/v1/orders.proto`` for ``package acme.orders.v1``), then
        the shortest path."""
        own = self.service.get(importer)
        words = {word.lower() for word in re.findall(r"[A-Za-z0-9]+", hint)}

        def rank(path: str) -> tuple[bool, bool, bool, int, str]:
            layout = self.proto_package.get(path, "").replace(".", "/")
            laid_out = bool(layout) and posixpath.dirname(path).endswith(layout)
            named = re.sub(r"[^a-z0-9]", "", posixpath.basename(path).removesuffix(".proto").lower()) in words
            return (not named, self.service.get(path) != own, not laid_out, len(path), path)

        return min(candidates, key=rank, default=None)

    def exact(self, *paths: str) -> str | None:
        for path in paths:
            if path in self.service:
                return path
        return None

    def suffix(self, importer: str, *suffixes: str) -> str | None:
        found: list[str] = []
        for suffix in suffixes:
            tail = "/".join(suffix.rsplit("/", 2)[-2:])
            held = self.by_tail.get(tail, [])
            found += held if tail == suffix else [path for path in held if path.endswith("/" + suffix) or path == suffix]
        return self.best(found, importer)

    def folder(self, importer: str, suffix: str) -> str | None:
        if suffix in self.folders:
            return suffix
        return self.best(self.folder_suffix.get(suffix, []), importer)


def _tails(path: str) -> tuple[str, ...]:
    """The keys of ``path`` in :attr:`_Files.by_tail`: its name, and its folder's name with it."""
    name = path.rpartition("/")[2]
    folder = path[: len(path) - len(name) - 1]
    return (name, folder.rpartition("/")[2] + "/" + name) if folder else (name,)


def _folder_suffixes(folder: str) -> list[str]:
    """The keys of ``folder`` in :attr:`_Files.folder_suffix`: every trailing run of its parts."""
    parts = folder.split("/") if folder else []
    return ["/".join(parts[start:]) for start in range(len(parts))]


def _drop(table: dict[str, list[str]], key: str, value: str) -> None:
    """Remove ``value`` from the sorted list at ``key``, and the key with its last value."""
    values = table.get(key)
    if values is None:
        return
    at = bisect.bisect_left(values, value)
    if at < len(values) and values[at] == value:
        del values[at]
    if not values:
        del table[key]


#: Manifests whose text may say where imports lead: the package names they declare (and a
#: package.json's entries, subpath imports and workspaces).
_DECLARING: Final = ("package.json", "go.mod", "Cargo.toml", "pyproject.toml")
#: The languages whose imports resolve as TypeScript and Node do (through tsconfig.json, package.json).
_SCRIPTS: Final = ("javascript", "typescript", "tsx")
#: What import resolution reads of a package.json (:func:`_entry_of`, :class:`_Ecmascript`).
_PACKAGE_FIELDS: Final = ("name", "main", "module", "types", "typings", "exports", "imports", "workspaces")


def _declared(name: str, text: str) -> str | None:
    """The package name the manifest named ``name`` declares in ``text``: a Go module's path, an npm
    package's name, a crate's or a Python project's name."""
    if name == "go.mod":
        match = re.search(r"^module\s+(\S+)", text, re.MULTILINE)
        return match.group(1).strip('"') if match else None
    if name == "package.json":
        value = _json_object(text)
        return value.get("name") if value is not None and isinstance(value.get("name"), str) else None
    match = re.search(r'^\[(?:package|project)\][^\[]*?^name\s*=\s*"([^"]+)"', text, re.MULTILINE | re.DOTALL)
    return match.group(1) if match else None


def _json_object(text: str) -> dict | None:
    """The JSON object ``text`` holds; None when it holds none (not JSON, nested too deep, another value)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def manifest_shapes(db: sqlite3.Connection, file_ids: Iterable[int]) -> dict[str, str]:
    """path -> what import resolution reads of each manifest declaring a package among these files
    (a package.json's name, entries, subpath imports and workspaces; the name a ``go.mod``,
    ``Cargo.toml`` or ``pyproject.toml`` declares): one edited with the same shape (a dependency,
    a script, a version) leads every import where it led."""
    ids = sorted(set(file_ids))
    rows = db.execute(
        f"SELECT id, path FROM files WHERE id IN ({', '.join('?' * len(ids))}) ORDER BY path", ids
    ).fetchall() if ids else []  # fmt: skip
    shapes: dict[str, str] = {}
    for file_id, path in rows:
        name = posixpath.basename(path)
        if name not in _DECLARING:
            continue
        data = db.execute("SELECT data FROM content WHERE file_id = ?", (file_id,)).fetchone()
        try:
            text = zlib.decompress(data[0]).decode("utf-8", "replace") if data is not None else ""
        except zlib.error:
            text = ""
        if name == "package.json":
            value = _json_object(text)
            read = None if value is None else [value.get(field) for field in _PACKAGE_FIELDS]
            shapes[path] = json.dumps(read, sort_keys=True)
        else:
            shapes[path] = json.dumps(_declared(name, text))
    return shapes


def _shape_fields(shape: str | None) -> list:
    """A package.json's shape (:func:`manifest_shapes`) as the list of its fields (empty: none read)."""
    fields = json.loads(shape) if shape is not None else None
    return fields if isinstance(fields, list) else []


def _manifest_words(path: str, shape: str | None) -> set[str]:
    """The words an import leading into the package a manifest declares holds, by its shape
    (:func:`manifest_shapes`): the name (an npm package, a Go module's path, a crate's, also with
    underscores as ``use`` spells it, a Python project's)."""
    if shape is None:
        return set()
    if posixpath.basename(path) == "package.json":
        fields = _shape_fields(shape)
        name = fields[0] if fields else None
    else:
        name = json.loads(shape)
    return {name, name.replace("-", "_")} if isinstance(name, str) and name else set()


def _members_move(before: str | None, after: str | None) -> bool:
    """Whether a package.json's new shape changes the members of an npm workspace (``workspaces``)."""
    def members(shape: str | None) -> object:
        fields = _shape_fields(shape)
        return fields[_PACKAGE_FIELDS.index("workspaces")] if fields else None

    return members(before) != members(after)


def _declared_packages(db: sqlite3.Connection) -> dict[tuple[str, str], str]:
    """(package name a manifest declares, the manifest's file name) -> its folder: go module, npm
    name, crate... (one name may be a Python project and a Rust crate of the same workspace)."""
    found: dict[tuple[str, str], str] = {}
    rows = db.execute(
        "SELECT f.path, c.data FROM files f JOIN content c ON c.file_id = f.id WHERE f.kind = 'config'"
        " AND (f.path = 'go.mod' OR f.path LIKE '%/go.mod' OR f.path = 'package.json' OR f.path LIKE '%/package.json'"
        " OR f.path = 'Cargo.toml' OR f.path LIKE '%/Cargo.toml' OR f.path = 'pyproject.toml'"
        " OR f.path LIKE '%/pyproject.toml') ORDER BY f.path"
    )
    for path, data in rows:
        try:
            text = zlib.decompress(data).decode("utf-8", "replace")
        except zlib.error:
            continue
        folder = posixpath.dirname(path)
        name = posixpath.basename(path)
        declared = _declared(name, text)
        if declared:
            found.setdefault((declared, name), folder)
    return found


def _stored_text(db: sqlite3.Connection, where: str, params: tuple = ()) -> Iterator[tuple[str, str]]:
    """(path, text) of the indexed files matching ``where`` (over ``f``), from the index's stored copy."""
    for path, data in db.execute(
        f"SELECT f.path, c.data FROM files f JOIN content c ON c.file_id = f.id WHERE {where} ORDER BY f.path", params
    ):
        try:
            yield path, zlib.decompress(data).decode("utf-8", "replace")
        except zlib.error:
            continue


def _resolve_imports(db: sqlite3.Connection, files: _Files, where: str) -> list[int]:
    """Resolve the imports matching ``where`` (over ``i``, joined to their file ``f``); the ids of
    the files an import of which now leads elsewhere (sorted)."""
    updates = []
    moved: set[int] = set()
    for rowid, file_id, module, names, path, language, was, was_owner in db.execute(
        "SELECT i.rowid, i.file_id, i.module, i.names, f.path, f.language, i.target_path, i.target_service"
        " FROM imports i JOIN files f ON f.id = i.file_id" + where
    ):
        target = _target(files, language, module, names, path)
        owner = None
        if target is not None:
            owner = files.service.get(target, files.folder_service.get(target))
        if (target, owner) != (was, was_owner):
            updates.append((target, owner, rowid))
            moved.add(file_id)
    db.executemany("UPDATE imports SET target_path = ?, target_service = ? WHERE rowid = ?", updates)
    return sorted(moved)


def proto_shapes(db: sqlite3.Connection, file_ids: Iterable[int]) -> dict[str, tuple]:
    """path -> what :class:`_Files` reads of each ``.proto`` among these files to resolve imports
    (its package, its options, the names and kinds of its messages, enums and services in order):
    a ``.proto`` edited with the same shape leads every import where it led."""
    shapes: dict[str, tuple] = {}
    ids = sorted(set(file_ids))
    rows = db.execute(
        f"SELECT id, path FROM files WHERE id IN ({', '.join('?' * len(ids))}) AND path LIKE '%.proto' ORDER BY path",
        ids,
    ).fetchall() if ids else []  # fmt: skip
    for file_id, path in rows:
        package = db.execute("SELECT package FROM proto_files WHERE file_id = ?", (file_id,)).fetchone()
        options = db.execute("SELECT name, value FROM proto_options WHERE file_id = ? ORDER BY rowid", (file_id,))
        shapes[path] = (
            package,
            tuple(options.fetchall()),
            tuple(db.execute(
                "SELECT name, kind FROM proto_messages WHERE file_id = ? ORDER BY line, rowid", (file_id,)
            )),  # fmt: skip
            tuple(db.execute("SELECT name FROM proto_services WHERE file_id = ? ORDER BY line, rowid", (file_id,))),
        )
    return shapes


def _reshapes_imports(path: str, known: _Files | None) -> bool:
    """A change to this file may change where any file's imports lead: a project config or manifest,
    or a file some tsconfig ``extends`` (a ``.proto`` moves only the imports naming it: :class:`_Named`)."""
    name = posixpath.basename(path)
    if name in ("package.json", "go.mod", "Cargo.toml", "pyproject.toml"):  # the names packages declare
        return True
    if name.endswith(".json") and name.startswith(("tsconfig", "jsconfig")):
        return True
    return known is not None and path in known.ecmascript.read


def _target(files: _Files, language: str, module: str, names: str, importer: str) -> str | None:
    found = _in_source(files, language, module, names, importer)
    if found is None and language not in ("proto", "markdown") and not module.startswith("."):
        found = files.generated.lookup(files, language, module, importer)
        if found is None and not files.generated.decides(language, module):
            found = _generated(files, module, importer)
        if found is None and language == "go":
            found = _go_absent(files, module, importer)
    return found


_SEPARATORS: Final = re.compile(r"[./:\\]+")


def _generated(files: _Files, module: str, importer: str) -> str | None:
    """Code generated from a .proto, imported by its package (``acme.orders.v1``, ``.../acme/orders/v1``,
    ``com.acme.orders.v1.OrdersGrpc``): the proto file declaring that package."""
    # Case-insensitively: C# and PHP namespaces are the package in PascalCase (Acme.Orders.V1).
    parts = tuple(part.lower() for part in _SEPARATORS.split(module) if part)
    first: dict[int, tuple[int, int, list[str]]] = {}  # a package -> where it first occurs, its width, files
    for start, part in enumerate(parts):
        for number, folded, paths in files.proto_packages_by_first.get(part, ()):
            if number not in first and parts[start : start + len(folded)] == folded:
                first[number] = (start, len(folded), paths)
    candidates: list[str] = []
    for _, (start, width, paths) in sorted(first.items()):
        if width >= 2 or len(parts) - start - width <= 1:  # a one-part package only near the module's end
            candidates += paths
    return files.best_proto(candidates, importer)


class _Generated:
    """Where protoc puts the code it generates from each ``.proto``, by the file's options.

    - Java and Kotlin: the outer class ``java_package.OuterClass`` (``java_outer_classname``, else the
      file name in CamelCase, with ``OuterClass`` added when a message, enum or service has that
      name), and with ``java_multiple_files`` each top-level message, enum and service as a class
      of its own; gRPC's ``<Service>Grpc``/``<Service>GrpcKt`` and Kotlin's ``<Message>Kt`` always.
      Without ``java_package``, the proto package.
    - Go: the import path of ``go_package`` (before any ``;name``).
    - C#: the ``csharp_namespace``.
    """

    def __init__(self, db: sqlite3.Connection, packages: dict[str, str]) -> None:
        options: dict[str, dict[str, str]] = defaultdict(dict)
        try:
            for path, name, value in db.execute(
                "SELECT f.path, o.name, o.value FROM proto_options o JOIN files f ON f.id = o.file_id ORDER BY f.path"
            ):
                options[path].setdefault(name, value)
        except sqlite3.OperationalError:  # an index written before options were kept
            pass
        types: dict[str, list[tuple[str, str]]] = defaultdict(list)  # proto file -> [(dotted name, kind)]
        for path, name, kind in db.execute(
            "SELECT f.path, m.name, m.kind FROM proto_messages m JOIN files f ON f.id = m.file_id"
            " ORDER BY f.path, m.line"
        ):
            types[path].append((name, kind))
        for path, name in db.execute(
            "SELECT f.path, s.name FROM proto_services s JOIN files f ON f.id = s.file_id ORDER BY f.path, s.line"
        ):
            types[path].append((name, "service"))
        #: Java/Kotlin class (a prefix of an import) -> the .proto files generating it
        self.java_classes: dict[str, list[str]] = defaultdict(list)
        #: Java/Kotlin names only ever imported whole (Kotlin's DSL builder ``order``) -> .proto files
        self.java_names: dict[str, list[str]] = defaultdict(list)
        #: Java package (``import pkg.*``) -> .proto files
        self.java_packages: dict[str, list[str]] = defaultdict(list)
        #: Go import path -> .proto files
        self.go_packages: dict[str, list[str]] = defaultdict(list)
        #: C# namespace -> .proto files
        self.csharp_namespaces: dict[str, list[str]] = defaultdict(list)
        #: Go package name (``;name``, else the last element of go_package, else of the proto's
        #: folder) -> (import path or folder, .proto file)
        self.go_names: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for path, package in sorted(packages.items()):
            own = options.get(path, {})
            self._java(path, package, own, types.get(path, []))
            go_package = own.get("go_package", "")
            import_path, _, go_name = go_package.partition(";")
            if import_path:
                self.go_packages[import_path].append(path)
            where = import_path or posixpath.dirname(path)
            for name in dict.fromkeys((go_name, where.rsplit("/", 1)[-1])):
                if name:
                    self.go_names[name].append((where, path))
            if own.get("csharp_namespace"):
                self.csharp_namespaces[own["csharp_namespace"]].append(path)

    def _java(self, path: str, package: str, options: dict[str, str], types: list[tuple[str, str]]) -> None:
        java_package = options.get("java_package", package)
        prefix = f"{java_package}." if java_package else ""
        if java_package:
            self.java_packages[java_package].append(path)
        outer = options.get("java_outer_classname", "")
        if not outer:
            outer = _camel(posixpath.basename(path).removesuffix(".proto"))
            if outer in {name.rsplit(".", 1)[-1] for name, _ in types}:
                outer += "OuterClass"
        classes = [outer] if outer else []
        multiple = options.get("java_multiple_files") == "true"
        for name, kind in types:
            if "." in name:
                continue
            if kind == "service":
                classes += [f"{name}Grpc", f"{name}GrpcKt"]
                continue
            if multiple:
                classes += [name, f"{name}OrBuilder"] if kind == "message" else [name]
            if kind == "message":
                classes.append(f"{name}Kt")
                self.java_names[prefix + name[:1].lower() + name[1:]].append(path)
        for name in dict.fromkeys(classes):
            self.java_classes[prefix + name].append(path)

    def lookup(self, files: _Files, language: str, module: str, importer: str) -> str | None:
        if language in ("java", "kotlin"):
            module = module.removeprefix("static ").strip()
            if module in self.java_names:
                return files.best_proto(self.java_names[module], importer)
            parts = module.split(".")
            if parts[-1] == "*":
                parts.pop()
                if ".".join(parts) in self.java_packages:
                    return files.best_proto(self.java_packages[".".join(parts)], importer)
            for end in range(len(parts), 0, -1):
                found = self.java_classes.get(".".join(parts[:end]))
                if found:
                    return files.best_proto(found, importer)
        elif language == "csharp":
            module = module.removeprefix("static ").strip()
            parts = module.rsplit("=", 1)[-1].strip().split(".")
            for end in range(len(parts), 0, -1):
                found = self.csharp_namespaces.get(".".join(parts[:end]))
                if found:
                    return files.best_proto(found, importer)
        return None

    def decides(self, language: str, module: str) -> bool:
        """Whether :meth:`lookup` knows every class of the Java package ``module`` is in, so that a
        miss is a miss (``com.acme.orders.v1.Order`` of a file without ``java_multiple_files``)."""
        if language not in ("java", "kotlin"):
            return False
        parts = module.removeprefix("static ").strip().split(".")
        return any(".".join(parts[:end]) in self.java_packages for end in range(1, len(parts)))


def _camel(name: str) -> str:
    """A ``.proto`` file name as protoc's Java generator names its outer class (``orders_api`` -> ``OrdersApi``)."""
    out = []
    upper = True
    for char in name:
        if "a" <= char <= "z":
            out.append(char.upper() if upper else char)
            upper = False
        elif "A" <= char <= "Z":
            out.append(char)
            upper = False
        elif "0" <= char <= "9":
            out.append(char)
            upper = True
        else:
            upper = True
    return "".join(out)


def _in_source(files: _Files, language: str, module: str, names: str, importer: str) -> str | None:
    here = posixpath.dirname(importer)
    if language == "python":
        return _python(files, module, names, here, importer)
    if language == "go":
        return _go(files, module, importer)
    if language in _SCRIPTS:
        return _ecmascript(files, module, here, importer)
    if language in ("java", "kotlin"):
        return _jvm(files, module, importer)
    if language == "cpp":
        return files.exact(_join(here, module)) or files.suffix(importer, module)
    if language == "rust":
        return _rust(files, module, importer)
    if language == "ruby":
        relative = _join(here, module if module.endswith(".rb") else module + ".rb")
        return files.exact(relative) or files.suffix(importer, f"lib/{module}.rb", f"{module}.rb")
    if language == "php":
        parts = module.replace("\\", "/").strip("/").split("/")
        return files.suffix(importer, *("/".join(parts[start:]) + ".php" for start in range(len(parts) - 1)))
    if language in ("proto", "markdown"):
        if language == "markdown" and module.startswith("/"):
            return files.exact(module.lstrip("/"))
        return files.exact(_join(here, module)) or (files.suffix(importer, module) if language == "proto" else None)
    return None


def _join(folder: str, relative: str) -> str:
    joined = posixpath.normpath(posixpath.join(folder, relative))
    return "" if joined.startswith("..") or joined == "." else joined


def _within(folder: str, relative: str) -> str | None:
    """``relative`` (to ``folder``) as a workspace path: "" for the root, None when it leaves the workspace."""
    if relative.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(folder, relative))
    if joined == ".":
        return ""
    return None if joined == ".." or joined.startswith("../") else joined


def _python(files: _Files, module: str, names: str, here: str, importer: str) -> str | None:
    level = len(module) - len(module.lstrip("."))
    dotted = module[level:]
    # ``from X import name`` names a submodule when X/name.py exists: that file, not X/__init__.py.
    first = names.split(",")[0].strip() if names else ""
    if level:
        base = here
        for _ in range(level - 1):
            base = posixpath.dirname(base)
        rel = dotted.replace(".", "/")
        stem = _join(base, rel) if rel else base
        found = None
        if first and first != "*":
            found = files.exact(_join(stem, f"{first}.py"), _join(stem, f"{first}/__init__.py"))
        return found or files.exact(f"{stem}.py", f"{stem}/__init__.py")
    parts = dotted.split(".")
    if first and first != "*":
        rel = "/".join([*parts, first])
        found = files.suffix(importer, f"{rel}.py", f"{rel}/__init__.py")
        if found is not None:
            return found
    for end in range(len(parts), 0, -1):
        rel = "/".join(parts[:end])
        found = files.suffix(importer, f"{rel}.py", f"{rel}/__init__.py", f"{rel}.pyi")
        if found is not None:
            return found
    return None


def _go_folder(files: _Files, module: str) -> str | None:
    """The workspace folder of a Go import path inside a module some ``go.mod`` declares (maybe absent):
    in the longest module path it starts with."""
    declared = module
    while declared not in files.go_modules:
        cut = declared.rfind("/")
        if cut < 0:
            return None
        declared = declared[:cut]
    rest = module[len(declared) :].strip("/")
    return "/".join(part for part in (files.go_modules[declared], rest) if part)


def _go(files: _Files, module: str, importer: str) -> str | None:
    """A package of the workspace's Go modules: its folder; a generated one (no Go source there): its
    ``.proto``, by ``go_package``, else the ``.proto`` in that folder."""
    folder = _go_folder(files, module)
    if folder is not None and folder in files.go_folders:
        return folder
    by_option = files.generated.go_packages.get(module)
    if by_option:
        return files.best_proto(by_option, importer, f"{module} {importer}")
    if folder is None or folder not in files.folders:
        return None
    return files.best_proto(files.protos_in.get(folder, ()), importer, f"{module} {importer}") or folder


def _go_absent(files: _Files, module: str, importer: str) -> str | None:
    """A package of a workspace module that is not in the workspace at all (generated at build time,
    ``protoc --go_out=gen/proto``): the ``.proto`` files whose Go package has its name, those sharing
    the most trailing path elements first."""
    folder = _go_folder(files, module)
    if folder is None or folder in files.folders:
        return None
    parts = module.split("/")
    best: list[str] = []
    most = 0
    for where, path in files.generated.go_names.get(parts[-1], ()):
        theirs = where.split("/")
        shared = 0
        while shared < min(len(parts), len(theirs)) and parts[-1 - shared] == theirs[-1 - shared]:
            shared += 1
        shared = max(shared, 1)  # a `;name` suffix names the package whatever the path ends with
        if shared > most:
            best, most = [path], shared
        elif shared == most:
            best.append(path)
    return files.best_proto(best, importer, f"{module} {importer}")


# -- JavaScript and TypeScript ---------------------------------------------------------------------


class _TsConfig:
    """What one tsconfig.json/jsconfig.json says about module names, its ``extends`` applied."""

    __slots__ = ("base_url", "covers", "paths", "paths_base", "references")

    def __init__(self) -> None:
        #: the folder non-relative names are also looked up in (None: no baseUrl)
        self.base_url: str | None = None
        #: ``compilerOptions.paths`` as written, and the folder its substitutions are relative to
        self.paths: dict[str, list[str]] = {}
        self.paths_base = ""
        #: the project's files: folders (include patterns up to their first wildcard) and files;
        #: None for everything under the config's folder
        self.covers: tuple[str, ...] | None = None
        #: the configs named by ``references`` (a solution-style tsconfig.json names its projects)
        self.references: tuple[str, ...] = ()

    def holds(self, path: str) -> bool:
        return self.covers is None or any(path == c or path.startswith(c + "/") or not c for c in self.covers)


class _EcmaScript:
    """Module names as TypeScript and Node resolve them, from the tsconfig.json, jsconfig.json and
    package.json files of the index (their stored text, as go.mod is read).

    TypeScript: the nearest tsconfig.json (else jsconfig.json) up from the importing file, or when
    it sets neither ``paths`` nor ``baseUrl`` the first project it ``references`` that holds the file;
    ``extends`` is followed through relative files (a package's config is not looked for). Node:
    ``#name`` through the ``imports`` of the nearest package.json; a package's name through the
    package.json declaring it (a workspace member first), then its ``exports``, ``types``,
    ``module``, ``main``, else ``src/index`` or ``index``. A config that cannot be read is a
    warning in the log and is ignored: resolution goes on without it.
    """

    def __init__(self, db: sqlite3.Connection, files: _Files) -> None:
        self.files = files
        #: the text of every tsconfig*.json, jsconfig*.json and package.json (None: not in the index)
        self.texts: dict[str, str | None] = {}
        for path, text in _stored_text(
            db,
            "f.path LIKE '%.json' AND (f.path LIKE '%tsconfig%' OR f.path LIKE '%jsconfig%'"
            " OR f.path LIKE '%package.json')",
        ):
            name = posixpath.basename(path)
            if name.startswith(("tsconfig", "jsconfig")) or name == "package.json":
                self.texts[path] = text
        #: every file read to resolve imports: a change to one of them re-resolves them all
        self.read: set[str] = set()
        #: package.json by folder, the folders declaring each name, and the workspace members
        self.manifests: dict[str, dict] = {}
        self.npm: dict[str, list[str]] = defaultdict(list)
        workspaces: list[tuple[str, list[str]]] = []
        for path, text in sorted(self.texts.items()):
            if posixpath.basename(path) != "package.json" or text is None:
                continue
            self.read.add(path)
            try:
                manifest = json.loads(text)
            except (ValueError, RecursionError):
                continue  # a manifest that does not parse is reported where manifests are read
            if not isinstance(manifest, dict):
                continue
            folder = posixpath.dirname(path)
            self.manifests[folder] = manifest
            if isinstance(manifest.get("name"), str) and manifest["name"]:
                self.npm[manifest["name"]].append(folder)
            globs = manifest.get("workspaces")
            if isinstance(globs, dict):
                globs = globs.get("packages")
            if isinstance(globs, list):
                workspaces.append((folder, [glob for glob in globs if isinstance(glob, str)]))
        self.members = {
            folder for folder in self.manifests if any(_member(root, globs, folder) for root, globs in workspaces)
        }
        #: every project config, its extends applied (None: it cannot be read); read now, while the
        #: snapshot being resolved is open
        self.configs: dict[str, _TsConfig | None] = {}
        #: every config read -> the files it was read from: itself and what it ``extends``, followed
        #: (those that are not in the index too: they may come)
        self.sources: dict[str, frozenset[str]] = {}
        self._db = db
        for path in sorted(self.texts):
            if posixpath.basename(path) in _JS_CONFIGS:
                config = self.config(path)
                for reference in config.references if config is not None else ():
                    if self._text(reference) is not None:
                        self.config(reference)
        self._db = None
        #: folder -> the config of the nearest project up from it
        self.nearest: dict[str, _TsConfig | None] = {}

    # -- tsconfig -------------------------------------------------------------------------------

    def _text(self, path: str) -> str | None:
        if path not in self.texts and self._db is not None:
            rows = list(_stored_text(self._db, "f.path = ?", (path,)))
            self.texts[path] = rows[0][1] if rows else None
        return self.texts.get(path)

    def config(self, path: str, chain: tuple[str, ...] = ()) -> _TsConfig | None:
        """The config at ``path`` with its ``extends`` applied; None when it cannot be read."""
        if path in self.configs:
            return self.configs[path]
        self.read.add(path)
        sources = {path}
        found = None
        try:
            data = _jsonc(self._text(path) or "")
        except ValueError as exc:
            log.warning("%s: not valid JSON (%s); its paths and baseUrl are ignored", path, exc)
        else:
            if isinstance(data, dict):
                found = self._apply(path, data, chain, sources)
            else:
                log.warning("%s: not a JSON object; it is ignored", path)
        self.configs[path] = found
        self.sources[path] = frozenset(sources)
        return found

    def projects_reading(self, changed: Iterable[str]) -> set[str]:
        """The folders of the projects whose imports a change to these files may lead elsewhere: each
        project config (tsconfig.json, jsconfig.json) that reads one of them (itself, through
        ``extends``, or through a project it ``references``), and each project config among them
        (added or removed: the files below it have another nearest config)."""
        changed = set(changed)
        folders = {posixpath.dirname(path) for path in changed if posixpath.basename(path) in _JS_CONFIGS}
        for path in sorted(self.configs):
            if posixpath.basename(path) in _JS_CONFIGS and self._reads(path, changed, 0):
                folders.add(posixpath.dirname(path))
        return folders

    def _reads(self, path: str, changed: set[str], depth: int) -> bool:
        if self.sources.get(path, frozenset((path,))) & changed:
            return True
        config = self.configs.get(path)
        if config is None or depth >= _JS_DEPTH_MAX:
            return False
        return any(self._reads(reference, changed, depth + 1) for reference in config.references)

    def _apply(self, path: str, data: dict, chain: tuple[str, ...], sources: set[str]) -> _TsConfig:
        folder = posixpath.dirname(path)
        merged = _TsConfig()
        extends = data.get("extends")
        for base in [extends] if isinstance(extends, str) else extends if isinstance(extends, list) else []:
            if not isinstance(base, str) or not base.startswith("."):
                continue  # a package's config (node_modules) is not looked for
            target = _within(folder, base)
            if target is not None and self._text(target) is None and not target.endswith(".json"):
                self.read.add(target)  # may appear later
                sources.add(target)
                target += ".json"
            if target is not None:
                sources.add(target)
            if target is None or self._text(target) is None:
                self.read.update([target] if target is not None else [])
                log.warning("%s: extends %r, which is not in the workspace's index; it is ignored", path, base)
                continue
            if target == path or target in chain or len(chain) >= _JS_DEPTH_MAX:
                log.warning("%s: extends %r, which extends it in turn; the loop is cut there", path, base)
                continue
            parent = self.config(target, (*chain, path))
            sources.update(self.sources.get(target, ()))
            if parent is None:
                continue
            if parent.base_url is not None:
                merged.base_url = parent.base_url
            if parent.paths:
                merged.paths, merged.paths_base = parent.paths, parent.paths_base
            if parent.covers is not None:
                merged.covers = parent.covers
        options = data.get("compilerOptions")
        if isinstance(options, dict):
            paths = options.get("paths")
            if isinstance(paths, dict):
                merged.paths = {
                    key: [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)]
                    for key, value in paths.items()
                    if isinstance(value, (str, list))
                }
                merged.paths_base = folder
            if isinstance(options.get("baseUrl"), str):
                merged.base_url = _within(folder, options["baseUrl"] or ".")
                if merged.base_url is None:
                    base_url = options["baseUrl"]
                    log.warning("%s: baseUrl %r leaves the workspace; it and paths are ignored", path, base_url)
                    merged.paths = {}
        include, listed = data.get("include"), data.get("files")
        if isinstance(include, list) or isinstance(listed, list):
            covers = []
            for pattern in include if isinstance(include, list) else []:
                if isinstance(pattern, str):
                    static = re.split(r"[*?\[{]", pattern, maxsplit=1)[0]
                    static = static if static == pattern else static.rpartition("/")[0]
                    covers.append(_within(folder, static or "."))
            for name in listed if isinstance(listed, list) else []:
                if isinstance(name, str):
                    covers.append(_within(folder, name))
            merged.covers = tuple(c for c in covers if c is not None)
        references = data.get("references")
        found = []
        for reference in references if isinstance(references, list) else []:
            where = reference.get("path") if isinstance(reference, dict) else None
            target = _within(folder, where) if isinstance(where, str) else None
            if target is not None:
                found.append(target if target.endswith(".json") else posixpath.join(target, "tsconfig.json"))
        merged.references = tuple(found)
        return merged

    def project(self, importer: str) -> _TsConfig | None:
        """The config TypeScript applies to ``importer``."""
        folder = posixpath.dirname(importer)
        climbed = []
        while folder not in self.nearest:
            climbed.append(folder)
            here = [self.configs[p] for p in (posixpath.join(folder, n) for n in _JS_CONFIGS) if p in self.configs]
            if here:
                self.nearest[folder] = here[0]
            elif not folder:
                self.nearest[folder] = None
            else:
                folder = posixpath.dirname(folder)
        for seen in climbed:
            self.nearest[seen] = self.nearest[folder]
        config = self.nearest[folder]
        if config is not None and not config.paths and config.base_url is None:
            for reference in config.references:
                project = self.configs.get(reference)
                if project is not None and (project.paths or project.base_url is not None) and project.holds(importer):
                    return project
        return config

    def aliased(self, module: str, importer: str) -> str | None:
        """``paths`` and ``baseUrl`` of the importer's project."""
        config = self.project(importer)
        if config is None:
            return None
        match = _best_key(config.paths, module)
        if match is not None:
            key, star = match
            base = config.base_url if config.base_url is not None else config.paths_base
            for target in config.paths[key]:
                found = _js_file(self.files, _within(base, target.replace("*", star, 1)))
                if found is not None:
                    return found
        if config.base_url is not None:
            return _js_file(self.files, _within(config.base_url, module))
        return None

    # -- package.json ---------------------------------------------------------------------------

    def subpath_import(self, module: str, importer: str) -> str | None:
        """``#name`` through the ``imports`` of the nearest package.json."""
        folder = posixpath.dirname(importer)
        while folder not in self.manifests:
            if not folder:
                return None
            folder = posixpath.dirname(folder)
        imports = self.manifests[folder].get("imports")
        match = _best_key(imports, module) if isinstance(imports, dict) else None
        if match is None:
            return None
        key, star = match
        for target in _targets(imports[key]):
            target = target.replace("*", star)
            if target.startswith("./"):
                found = _js_file(self.files, _within(folder, target))
            else:
                found = self.package(target, importer) if not target.startswith((".", "/", "#")) else None
            if found is not None:
                return found
        return None

    def names_of(self, folders: Iterable[str]) -> set[str]:
        """The package names the package.json of these folders declare."""
        manifests = (self.manifests.get(folder) for folder in folders)
        return {name for manifest in manifests if manifest and isinstance(name := manifest.get("name"), str) and name}

    def package(self, module: str, importer: str) -> str | None:
        """A package of the workspace by its name (``@acme/ui``, ``@acme/ui/button``): its entry or that file."""
        parts = module.split("/")
        width = 2 if module.startswith("@") else 1
        name, subpath = "/".join(parts[:width]), "/".join(parts[width:])
        folders = self.npm.get(name)
        if not folders:
            return None
        own = self.files.service.get(importer)
        folder = min(
            folders,
            key=lambda f: (f not in self.members, self.files.service.get(_manifest(f)) != own, f.count("/"), f),
        )
        exports = self.manifests[folder].get("exports")
        conditions = isinstance(exports, dict) and not any(key.startswith(".") for key in exports)
        if conditions or isinstance(exports, (str, list)):
            exports = {".": exports}  # the package's entry alone
        match = _best_key(exports, f"./{subpath}" if subpath else ".") if isinstance(exports, dict) else None
        if match is not None:
            key, star = match
            for target in _targets(exports[key]):
                found = _js_file(self.files, _within(folder, target.replace("*", star)))
                if found is not None:
                    return found
        if subpath:
            found = _js_file(self.files, _within(folder, subpath)) or _js_file(
                self.files, _within(folder, f"src/{subpath}")
            )
        else:
            manifest = self.manifests[folder]
            entries = [manifest.get(field) for field in ("types", "typings", "module", "main")]
            found = None
            for entry in [e for e in entries if isinstance(e, str) and e] + ["src/index", "index"]:
                found = _js_file(self.files, _within(folder, entry))
                if found is not None:
                    break
        return found or self.files.exact(_manifest(folder))


def _manifest(folder: str) -> str:
    return f"{folder}/package.json" if folder else "package.json"


def _member(root: str, globs: list[str], folder: str) -> bool:
    """Whether ``folder`` is a member of the npm/yarn workspace at ``root`` with these ``workspaces`` globs."""
    if folder == root or not (folder.startswith(root + "/") or not root):
        return False
    relative = folder[len(root) + 1 :] if root else folder
    inside = False
    for glob in globs:
        negated = glob.startswith("!")
        if _glob(glob.lstrip("!")).fullmatch(relative):
            inside = not negated
    return inside


def _glob(pattern: str) -> re.Pattern[str]:
    pattern = pattern.strip().removeprefix("./").strip("/")
    out = []
    for part in re.split(r"(\*\*/?|\*|\?)", pattern):
        if part.startswith("**"):
            out.append("(?:.*/)?" if part.endswith("/") else ".*")
        elif part == "*":
            out.append("[^/]*")
        elif part == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(part))
    return re.compile("".join(out))


_JSONC_NOISE: Final = re.compile(r'("(?:[^"\\\n]|\\.)*")|//[^\n]*|/\*.*?\*/', re.DOTALL)
_JSONC_TRAILING_COMMA: Final = re.compile(r'("(?:[^"\\\n]|\\.)*")|,(\s*[}\]])')


def _jsonc(text: str) -> object:
    """JSON with comments and trailing commas, as tsconfig.json allows; ValueError when it is not."""
    text = _JSONC_NOISE.sub(lambda m: m.group(1) or " ", text.removeprefix("\ufeff"))
    text = _JSONC_TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2), text)
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _best_key(mapping: object, name: str) -> tuple[str, str] | None:
    """The key of a ``paths``/``imports``/``exports`` map that ``name`` matches, and what its ``*``
    stands for: an exact key, else the pattern with the longest text before its one ``*``."""
    if not isinstance(mapping, dict):
        return None
    if name in mapping and "*" not in name:
        return name, ""
    best: tuple[tuple[int, int], str, str] | None = None
    for key in mapping:
        if not isinstance(key, str) or key.count("*") != 1:
            continue
        prefix, suffix = key.split("*")
        if len(name) >= len(prefix) + len(suffix) and name.startswith(prefix) and name.endswith(suffix):
            rank = (len(prefix), len(key))
            if best is None or rank > best[0]:
                best = (rank, key, name[len(prefix) : len(name) - len(suffix)])
    return None if best is None else (best[1], best[2])


def _targets(value: object, depth: int = 0) -> Iterator[str]:
    """The paths of a package.json ``exports``/``imports`` value in the order Node tries them, every
    condition (``types``, ``import``, ``require``, ``default``...) taken in turn."""
    if depth > _JS_DEPTH_MAX:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _targets(item, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _targets(item, depth + 1)


def _js_file(files: _Files, stem: str | None) -> str | None:
    """The file a module path names, as TypeScript and bundlers complete it: as written, with an
    extension, as a folder's ``index``, or an emitted ``.js`` name as its TypeScript source."""
    if stem is None:
        return None
    if not stem:
        return files.exact(*(f"index{suffix}" for suffix in _JS_SUFFIXES))
    candidates = [stem, *(stem + suffix for suffix in _JS_SUFFIXES)]
    candidates += [f"{stem}/index{suffix}" for suffix in _JS_SUFFIXES]
    base, extension = posixpath.splitext(stem)
    candidates += [base + source for source in _JS_EMITTED.get(extension, ())]
    return files.exact(*candidates)


def _ecmascript(files: _Files, module: str, here: str, importer: str) -> str | None:
    if module.startswith("."):
        stem = _join(here, module)
        return _js_file(files, stem) if stem else None
    if module.startswith("/") or ":" in module.split("/", 1)[0]:  # absolute, or node:fs, https://...
        return None
    found = files.ecmascript.aliased(module, importer)  # TypeScript's paths come before Node's rules
    if found is None and module.startswith("#"):
        return files.ecmascript.subpath_import(module, importer)
    return found or files.ecmascript.package(module, importer)


def _jvm(files: _Files, module: str, importer: str) -> str | None:
    module = module.removeprefix("static ").strip()
    parts = module.split(".")
    if parts[-1] == "*":
        return files.folder(importer, "/".join(parts[:-1]))
    for end in range(len(parts), 1, -1):
        rel = "/".join(parts[:end])
        found = files.suffix(importer, f"{rel}.java", f"{rel}.kt")
        if found is not None:
            return found
    return None


def _rust(files: _Files, module: str, importer: str) -> str | None:
    parts = [part for part in module.split("::") if part]
    if not parts:
        return None
    if parts[0] in ("crate", "self", "super"):
        src = importer.split("/src/", 1)[0] + "/src" if "/src/" in importer else posixpath.dirname(importer)
        if importer.startswith("src/"):
            src = "src"
        rest = parts[1:]
        if parts[0] != "crate":
            src = posixpath.dirname(importer)
            if parts[0] == "super":
                src = posixpath.dirname(src)
        for end in range(len(rest), 0, -1):
            rel = "/".join(rest[:end])
            found = files.exact(f"{src}/{rel}.rs", f"{src}/{rel}/mod.rs")
            if found is not None:
                return found
        return None
    crate = files.packages.get((parts[0], "Cargo.toml")) or files.packages.get((parts[0].replace("_", "-"), "Cargo.toml"))
    declared = None if crate is None else (crate, "Cargo.toml")
    if declared is None:
        # Rust 2018: a path may start with a module of the importer's own module (``mod pricing;``
        # then ``pub use pricing::{shipping};`` in lib.rs), its folder that of lib.rs, main.rs,
        # mod.rs, else ``<folder>/<stem>``
        stem = posixpath.splitext(posixpath.basename(importer))[0]
        here = posixpath.dirname(importer)
        if stem not in ("lib", "main", "mod"):
            here = f"{here}/{stem}" if here else stem
        for end in range(len(parts), 0, -1):
            rel = "/".join(([here] if here else []) + parts[:end])
            found = files.exact(f"{rel}.rs", f"{rel}/mod.rs")
            if found is not None:
                return found
        return None
    src = f"{declared[0]}/src" if declared[0] else "src"
    for end in range(len(parts) - 1, 0, -1):
        rel = "/".join(parts[1 : end + 1])
        found = files.exact(f"{src}/{rel}.rs", f"{src}/{rel}/mod.rs")
        if found is not None:
            return found
    return files.exact(f"{src}/lib.rs", f"{declared[0]}/Cargo.toml" if declared[0] else "Cargo.toml")
