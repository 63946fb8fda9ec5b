"""Facts that need the whole workspace: gRPC evidence keyed by the proto, imports tied to files.

Theory of operation
-------------------
gRPC: extractors report a service and a method as the generated code spells them. Here they are
matched to the services and methods the ``.proto`` files define: the service by name (among
same-named services of different packages, the one whose package shares the most words with the
namespace the code used, then the one defined in the same service folder), the method by
comparing spellings with case and underscores removed (``GetOrder`` = ``getOrder`` =
``get_order``), also without C#'s ``Async`` suffix and C++'s ``Async``/``PrepareAsync`` prefixes.
A fact that matches no proto keeps NULL keys: it is still evidence, just not tied to a method.

Imports: each language says where a module path may live (relative to the importing file, or
anywhere by path suffix, or in the service whose manifest declares that package name); the
candidate in the importer's own service wins, then the shortest path, then the first by name.
Both passes are recomputed on every refresh, inside its transaction.
"""

from __future__ import annotations

import json
import posixpath
import re
import sqlite3
import zlib
from collections import defaultdict
from typing import Final

from .._facts import method_spelling, method_variants

__all__ = ["resolve"]

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
) -> _Files:
    """Recompute derived keys and import targets in the open transaction of ``db``.

    Returns the file tables it resolved against; pass them back as ``known`` to a later call whose
    changes neither add nor remove files nor touch a ``.proto`` (the common case of a saved edit),
    which then skips rebuilding them.

    With ``written`` (the file ids just written), only what those changes can affect is redone:
    their own imports, imports that pointed at a ``gone`` path, and imports whose module names an
    ``added`` file's stem or folder (they may now resolve to it, or to it rather than its package).
    gRPC keys are always recomputed (they are few).
    """
    _resolve_grpc(db)
    if written is None:
        files = _Files(db)
        _resolve_imports(db, files, "")
        return files
    db.execute("CREATE TEMP TABLE IF NOT EXISTS touched(file_id INTEGER PRIMARY KEY)")
    db.execute("DELETE FROM touched")
    db.executemany("INSERT OR IGNORE INTO touched VALUES (?)", [(file_id,) for file_id in written])
    db.execute("CREATE TEMP TABLE IF NOT EXISTS gone(path TEXT PRIMARY KEY)")
    db.execute("DELETE FROM gone")
    db.executemany("INSERT OR IGNORE INTO gone VALUES (?)", [(path,) for path in gone])
    db.execute("CREATE TEMP TABLE IF NOT EXISTS stems(stem TEXT PRIMARY KEY)")
    db.execute("DELETE FROM stems")
    stems = set()
    for path in added:
        folder, _, name = path.rpartition("/")
        stems.add(name.split(".", 1)[0])
        stems.add(folder.rsplit("/", 1)[-1])
    db.executemany("INSERT INTO stems VALUES (?)", [(stem,) for stem in sorted(stems) if stem])
    where = (
        " WHERE i.file_id IN (SELECT file_id FROM touched) OR i.target_path IN (SELECT path FROM gone)"
        " OR EXISTS (SELECT 1 FROM stems WHERE instr(i.module, stems.stem) > 0)"
    )
    files = known if known is not None and not gone and not added else _Files(db)
    _resolve_imports(db, files, where)
    return files


def _resolve_grpc(db: sqlite3.Connection) -> None:
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
    updates = []
    for rowid, service, method, namespace, owner in db.execute(
        "SELECT g.rowid, g.service, g.method, g.namespace, f.service FROM grpc g JOIN files f ON f.id = g.file_id"
    ):
        package = _choose_package(services.get(service, []), namespace, owner)
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


def _choose_package(candidates: list[tuple[str, str]], namespace: str, owner: str) -> str | None:
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


# -- imports ------------------------------------------------------------------------------------

_JS_SUFFIXES: Final = (".ts", ".tsx", ".js", ".mjs", ".cjs", ".jsx", ".d.ts")


class _Files:
    """Every indexed path, looked up exactly, by folder, by suffix, and by declared package name."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.service: dict[str, str] = {}
        self.language: dict[str, str] = {}
        for path, service, language in db.execute("SELECT path, service, language FROM files"):
            self.service[path] = service
            self.language[path] = language
        #: a folder (a Go package, a Java wildcard import) -> the service of its first file
        self.folder_service: dict[str, str] = {}
        for path in sorted(self.service):
            self.folder_service.setdefault(posixpath.dirname(path), self.service[path])
        self.folders = set(self.folder_service)
        self.by_suffix: dict[str, list[str]] = defaultdict(list)
        for path in sorted(self.service):
            parts = path.split("/")
            for start in range(len(parts)):
                self.by_suffix["/".join(parts[start:])].append(path)
        self.folder_suffix: dict[str, list[str]] = defaultdict(list)
        for folder in sorted(self.folders):
            parts = folder.split("/") if folder else []
            for start in range(len(parts)):
                self.folder_suffix["/".join(parts[start:])].append(folder)
        self.packages = _declared_packages(db)
        #: proto package (as dotted parts) -> the proto files declaring it
        self.proto_packages: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for path, package in db.execute(
            "SELECT f.path, p.package FROM proto_files p JOIN files f ON f.id = p.file_id WHERE p.package != ''"
            " ORDER BY f.path"
        ):
            self.proto_packages[tuple(package.split("."))].append(path)

    def best(self, candidates: list[str], importer: str) -> str | None:
        if not candidates:
            return None
        own = self.service.get(importer)
        return min(candidates, key=lambda path: (self.service.get(path) != own, path.count("/"), len(path), path))

    def exact(self, *paths: str) -> str | None:
        for path in paths:
            if path in self.service:
                return path
        return None

    def suffix(self, importer: str, *suffixes: str) -> str | None:
        found: list[str] = []
        for suffix in suffixes:
            found += self.by_suffix.get(suffix, [])
        return self.best(found, importer)

    def folder(self, importer: str, suffix: str) -> str | None:
        if suffix in self.folders:
            return suffix
        return self.best(self.folder_suffix.get(suffix, []), importer)


def _declared_packages(db: sqlite3.Connection) -> dict[str, tuple[str, str]]:
    """Package name a manifest declares -> (its folder, ecosystem): go module, npm name, crate..."""
    found: dict[str, tuple[str, str]] = {}
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
        declared = None
        if name == "go.mod":
            match = re.search(r"^module\s+(\S+)", text, re.MULTILINE)
            declared = match and match.group(1).strip('"')
        elif name == "package.json":
            try:
                value = json.loads(text)
            except ValueError:
                continue
            declared = value.get("name") if isinstance(value, dict) and isinstance(value.get("name"), str) else None
        else:
            match = re.search(r'^\[(?:package|project)\][^\[]*?^name\s*=\s*"([^"]+)"', text, re.MULTILINE | re.DOTALL)
            declared = match and match.group(1)
        if declared:
            found.setdefault(declared, (folder, name))
    return found


def _resolve_imports(db: sqlite3.Connection, files: _Files, where: str) -> None:
    updates = []
    for rowid, module, names, path, language in db.execute(
        "SELECT i.rowid, i.module, i.names, f.path, f.language FROM imports i JOIN files f ON f.id = i.file_id" + where
    ):
        target = _target(files, language, module, names, path)
        owner = None
        if target is not None:
            owner = files.service.get(target, files.folder_service.get(target))
        updates.append((target, owner, rowid))
    db.executemany("UPDATE imports SET target_path = ?, target_service = ? WHERE rowid = ?", updates)


def _target(files: _Files, language: str, module: str, names: str, importer: str) -> str | None:
    found = _in_source(files, language, module, names, importer)
    if found is None and language not in ("proto", "markdown") and not module.startswith("."):
        found = _generated(files, module, importer)
    return found


_SEPARATORS: Final = re.compile(r"[./:\\]+")


def _generated(files: _Files, module: str, importer: str) -> str | None:
    """Code generated from a .proto, imported by its package (``acme.orders.v1``, ``.../acme/orders/v1``,
    ``com.acme.orders.v1.OrdersGrpc``): the proto file declaring that package."""
    # Case-insensitively: C# and PHP namespaces are the package in PascalCase (Acme.Orders.V1).
    parts = tuple(part.lower() for part in _SEPARATORS.split(module) if part)
    candidates: list[tuple[str, str]] = []
    for package, paths in files.proto_packages.items():
        width = len(package)
        folded = tuple(part.lower() for part in package)
        for start in range(len(parts) - width + 1):
            if parts[start : start + width] == folded:
                trailing = len(parts) - start - width
                if width >= 2 or trailing <= 1:
                    candidates += [(path, "/".join(package)) for path in paths]
                break
    if not candidates:
        return None
    own = files.service.get(importer)

    def rank(candidate: tuple[str, str]) -> tuple[bool, bool, int, str]:
        # the importer's own copy, else one laid out as protoc expects (acme/orders/v1/x.proto)
        path, layout = candidate
        return (files.service.get(path) != own, posixpath.dirname(path).endswith(layout) is False, len(path), path)

    return min(candidates, key=rank)[0]


def _in_source(files: _Files, language: str, module: str, names: str, importer: str) -> str | None:
    here = posixpath.dirname(importer)
    if language == "python":
        return _python(files, module, names, here, importer)
    if language == "go":
        return _go(files, module, importer)
    if language in ("javascript", "typescript", "tsx"):
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


def _go(files: _Files, module: str, importer: str) -> str | None:
    best = None
    for declared, (folder, manifest) in files.packages.items():
        inside = module == declared or module.startswith(declared + "/")
        if manifest == "go.mod" and inside and (best is None or len(declared) > len(best[0])):
            best = (declared, folder)
    if best is None:
        return None
    rest = module[len(best[0]) :].strip("/")
    folder = "/".join(part for part in (best[1], rest) if part)
    return folder if folder in files.folders else None


def _ecmascript(files: _Files, module: str, here: str, importer: str) -> str | None:
    if module.startswith("."):
        stem = _join(here, module)
        if not stem:
            return None
        candidates = [stem, *(stem + suffix for suffix in _JS_SUFFIXES)]
        candidates += [f"{stem}/index{suffix}" for suffix in _JS_SUFFIXES]
        if stem.endswith(".js"):  # TypeScript sources imported by their emitted name
            candidates += [stem[:-3] + ".ts", stem[:-3] + ".tsx"]
        return files.exact(*candidates)
    parts = module.split("/")
    name = "/".join(parts[:2]) if module.startswith("@") else parts[0]
    declared = files.packages.get(name)
    if declared is None or declared[1] != "package.json":
        return None
    return files.exact(f"{declared[0]}/package.json" if declared[0] else "package.json")


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
    declared = files.packages.get(parts[0]) or files.packages.get(parts[0].replace("_", "-"))
    if declared is None or declared[1] != "Cargo.toml":
        return None
    src = f"{declared[0]}/src" if declared[0] else "src"
    for end in range(len(parts) - 1, 0, -1):
        rel = "/".join(parts[1 : end + 1])
        found = files.exact(f"{src}/{rel}.rs", f"{src}/{rel}/mod.rs")
        if found is not None:
            return found
    return files.exact(f"{src}/lib.rs", f"{declared[0]}/Cargo.toml" if declared[0] else "Cargo.toml")
