"""Per-file extraction: which language a path is, and the facts its bytes hold.

``extract(path, source)`` is pure (bytes in, :class:`~mesh.index.FileFacts` out) so it can run in
any worker process. Each language has its own module with ``extract(source) -> FileFacts``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.metadata
from importlib import resources
from pathlib import Path
from typing import Final

import attrs

from .._facts import FileFacts
from ._ts import GRAMMARS

__all__ = ["LANGUAGE_FAMILY", "LANGUAGE_OF_SUFFIX", "extract", "fingerprint", "language_of", "manifest_kind", "preload"]

#: Languages whose code uses one another's definitions: a Kotlin class derives from a Java one, a
#: TypeScript file calls a JavaScript function (one compiler or runtime).
LANGUAGE_FAMILY: Final = {
    "python": "python",
    "go": "go",
    "java": "jvm",
    "kotlin": "jvm",
    "csharp": "csharp",
    "javascript": "ecmascript",
    "typescript": "ecmascript",
    "tsx": "ecmascript",
    "cpp": "cpp",
    "ruby": "ruby",
    "php": "php",
}

LANGUAGE_OF_SUFFIX: Final = {
    ".py": "python", ".pyi": "python",
    ".go": "go",
    ".java": "java",
    ".kt": "kotlin", ".kts": "kotlin",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".cs": "csharp",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".h": "cpp",
    ".rs": "rust",
    ".rb": "ruby",
    ".php": "php",
    ".proto": "proto",
    ".md": "markdown", ".markdown": "markdown",
}  # fmt: skip

#: module holding ``extract(source) -> FileFacts`` for each language
_EXTRACTORS: Final = {
    "python": "_python", "go": "_go", "java": "_java", "kotlin": "_kotlin",
    "javascript": "_javascript", "typescript": "_typescript", "tsx": "_typescript",
    "csharp": "_csharp", "cpp": "_cpp", "rust": "_rust", "ruby": "_ruby", "php": "_php",
    "proto": "_proto", "markdown": "_markdown",
}  # fmt: skip

#: languages whose extractor also reads the file's workspace path (Next.js routes come from it)
_PATH_AWARE: Final = frozenset({"javascript", "typescript", "tsx"})

_MANIFEST_NAMES: Final = {
    "go.mod": "go.mod",
    "package.json": "package.json",
    "pyproject.toml": "pyproject.toml",
    "setup.py": "setup.py",
    "setup.cfg": "setup.cfg",
    "pom.xml": "pom.xml",
    "build.gradle": "build.gradle",
    "build.gradle.kts": "build.gradle.kts",
    "Cargo.toml": "Cargo.toml",
    "Gemfile": "Gemfile",
    "composer.json": "composer.json",
}


def manifest_kind(name: str) -> str | None:
    """The manifest kind of a file name (``requirements-dev.txt`` -> ``requirements.txt``), or None."""
    if name in _MANIFEST_NAMES:
        return _MANIFEST_NAMES[name]
    if name.endswith(".csproj"):
        return ".csproj"
    if name.startswith("requirements") and name.endswith(".txt"):
        return "requirements.txt"
    return None


def language_of(path: str) -> str | None:
    """The language of a workspace path, by suffix (None: text only, or a manifest)."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    if dot <= 0 and not name.startswith("."):
        return None
    return LANGUAGE_OF_SUFFIX.get(name[dot:].lower())


#: Modules an extractor imports only when it first runs (to break an import cycle).
_LAZY: Final = {language: ("_ecmascript_links",) for language in ("javascript", "typescript", "tsx")}
#: What a file of no language is read with: configuration, OpenAPI and deployment descriptors.
_CONTRACT_MODULES: Final = ("_config", "_deploy", "_openapi", "_serverless")


def preload(path: str) -> None:
    """Import every module that reading ``path`` will need now: a parse worker does, before the
    file's time budget starts, since compiling a module (once per process, from source where no
    bytecode is kept) is no part of parsing a file, and on a loaded machine it can take seconds."""
    name = path.rsplit("/", 1)[-1]
    language = language_of(path)
    modules: list[str] = []
    if language is not None:
        modules += [_EXTRACTORS[language], *_LAZY.get(language, ())]
    if manifest_kind(name) is not None:
        modules.append("_manifests")
    if language is None and name.lower().endswith((".yaml", ".yml", ".json", ".properties")):
        modules += _CONTRACT_MODULES
    if language is None and name.lower().endswith((".razor", ".cshtml")):
        modules.append("_razor")
    for module in modules:
        importlib.import_module(f".{module}", __name__)
    if language is not None and language in GRAMMARS:  # markdown and proto are read without tree-sitter
        _compile_queries(language)


@functools.cache
def _compile_queries(language: str) -> None:
    """Compile the language's queries (``queries/<language>/*.scm``, and the rules the references
    query declares) once in this process: compiling one takes 0.1-0.7 s, seconds on a loaded
    machine, and no part of it is the file's parse (under the budget, a worker killed for it
    compiled it again for the next file, and an alarm arriving inside a compilation broke it)."""
    from . import _common, _navigation, _ts

    _navigation.references(language, _ts.parse(language, b"").root_node, b"")
    folder = resources.files(__name__).joinpath("queries", _navigation.shared_queries(language))
    parts = sorted(entry.name[: -len(".scm")] for entry in folder.iterdir() if entry.name.endswith(".scm"))
    for part in parts:
        if part == "references":
            continue  # compiled just above, with the directives' patterns, as one query (``_combined``)
        with contextlib.suppress(Exception):  # an extractor that cannot use it says so when it runs
            _common.query(language, _navigation.query_text(language, part))


def extract(path: str, source: bytes) -> FileFacts:
    """Every fact of one file. Raises nothing, whatever the bytes: problems, and a bug in an
    extractor, land in ``FileFacts.error``."""
    name = path.rsplit("/", 1)[-1]
    language = language_of(path)
    facts = FileFacts(language=language or "")
    if language is not None:
        module = importlib.import_module(f".{_EXTRACTORS[language]}", __name__)
        try:
            facts = module.extract(source, path) if language in _PATH_AWARE else module.extract(source)
        except Exception as exc:  # noqa: BLE001 - an extractor bug costs this file its facts, not the run
            facts = FileFacts(language=language, error=f"extractor failed: {type(exc).__name__}: {exc}"[:300])
    kind = manifest_kind(name)
    if kind is not None:
        from . import _manifests

        deps, error = _manifests.extract(kind, source)
        facts = attrs.evolve(facts, dependencies=deps, error=facts.error or error)
    if language is None and name.lower().endswith((".yaml", ".yml", ".json", ".properties")):
        facts = _contracts(path, source, facts)
    if language is None and name.lower().endswith((".razor", ".cshtml")):
        facts = _razor_routes(path, source, facts)
    return facts


def _razor_routes(path: str, source: bytes, facts: FileFacts) -> FileFacts:
    """The routes of a Blazor component or a Razor page (no language: markup), never raising."""
    from . import _razor

    try:
        return attrs.evolve(facts, http_routes=_razor.routes(path, source))
    except Exception as exc:  # noqa: BLE001 - a bug costs this file its routes, not the run
        return attrs.evolve(facts, error=facts.error or f"extractor failed: {type(exc).__name__}: {exc}"[:300])


def _contracts(path: str, source: bytes, facts: FileFacts) -> FileFacts:
    """The routes of an OpenAPI document or of a deployment descriptor (Serverless, SAM) and the
    settings of a configuration file, never raising."""
    from . import _config, _openapi, _serverless

    try:
        error = ""
        text = source.decode("utf-8", "replace").removeprefix("\ufeff")
        descriptor = _serverless.looks_like(path, text)
        if descriptor:  # its routes only: a descriptor's values (environment, credentials) are never kept
            routes, error = _serverless.extract(descriptor, text)
            return attrs.evolve(facts, http_routes=routes, error=facts.error or error)
        if _config.config_kind(path) is not None:
            settings, error = _config.settings(path, source)
            facts = attrs.evolve(facts, settings=settings)
        if _openapi.looks_like(path, text):
            routes, problem = _openapi.extract(text)
            facts, error = attrs.evolve(facts, http_routes=routes), problem or error
    except Exception as exc:  # noqa: BLE001 - a bug costs this file its contract facts, not the run
        error = f"extractor failed: {type(exc).__name__}: {exc}"[:300]
    return attrs.evolve(facts, error=facts.error or error) if error else facts


@functools.cache
def fingerprint() -> str:
    """What a file's facts depend on besides its bytes: the extractors' code and queries, the shape
    of the facts and the grammars' versions. An index built under another fingerprint parses every
    file again at its next full refresh (an upgrade of mesh-mcp must not keep the old facts)."""
    digest = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for path in sorted([*here.rglob("*.py"), *here.rglob("*.scm"), here.parent / "_facts.py"]):
        digest.update(path.relative_to(here.parent).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    
    for module in sorted({module for module, _ in GRAMMARS.values()} | {"tree_sitter"}):
        try:
            digest.update(f"{module}={importlib.metadata.version(module.replace('_', '-'))}".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(module.encode())
    return digest.hexdigest()[:16]
