"""The workspace model: its configuration (``mesh.toml``) and the services that hold its files.

Theory of operation
-------------------
``mesh.toml`` at the workspace root is optional. It may set how the walk behaves (``[index]``) and
name the services (``[[services]]`` with ``name``, ``path``, ``languages``, ``exclude``). Without
named services they are discovered from the walked files, in this order:

1. every folder holding a build manifest (``go.mod``, ``package.json``, ``pyproject.toml``...) is
   a candidate; the outermost candidates below the root are services, so a Maven module or a
   test folder with its own ``requirements.txt`` stays part of the service around it;
2. a git repository (a folder with ``.git``) holding no such service is a service;
3. files still unclaimed belong to the root when the root has a manifest of its own (a service
   named after the root folder), else to the top-level folder they live in (each such folder
   becomes a service); loose files at the root then belong to no service (``""``).

Each file belongs to the service with the longest path that contains it. Names are the folder
names; when two services would share a name, both take their relative path instead.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Final

import attrs

from ..parse import manifest_kind

__all__ = ["Config", "ConfigError", "Service", "Workspace", "discover_services", "load_config"]

CONFIG_FILE: Final = "mesh.toml"
DEFAULT_MAX_FILE_BYTES: Final = 1 << 20


class ConfigError(Exception):
    """``mesh.toml`` cannot be used; the message says which key and what was expected."""


@attrs.frozen
class Service:
    name: str
    #: Folder relative to the workspace root, ``/`` separated; "" for the root itself.
    path: str
    #: "mesh.toml", "manifest", "git", "folder" or "root".
    origin: str
    #: Language hints from ``mesh.toml`` (discovered services have none; the index counts them).
    languages: tuple[str, ...] = ()
    #: gitignore-style patterns, relative to the service folder, left out of the index.
    excludes: tuple[str, ...] = ()

    def holds(self, path: str) -> bool:
        return not self.path or path == self.path or path.startswith(self.path + "/")


@attrs.frozen
class Config:
    #: Services named in ``mesh.toml``; None when they are to be discovered.
    services: tuple[Service, ...] | None = None
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    include_vendored: bool = False
    include_secrets: bool = False
    #: Extra gitignore-style patterns, relative to the workspace root.
    ignore: tuple[str, ...] = ()
    #: ``[audit]``: how many rows the audit log keeps, and for how many days (None: the log's defaults).
    audit_retention_rows: int | None = None
    audit_retention_days: float | None = None
    #: ``[daemon]``: seconds without a client after which ``meshd`` exits (None: its default; 0: never).
    daemon_idle_exit_s: float | None = None


@attrs.frozen
class Workspace:
    root: Path
    config: Config
    #: Longest path first, so the first service that holds a path is its owner.
    services: tuple[Service, ...]

    def service_of(self, path: str) -> str:
        """The name of the service holding ``path`` ("" when only the workspace itself holds it)."""
        for service in self.services:
            if service.holds(path):
                return service.name
        return ""

    def ignore_patterns(self) -> tuple[str, ...]:
        """The configured ignores plus every service's excludes, as root-relative patterns."""
        patterns = list(self.config.ignore)
        for service in self.services:
            for pattern in service.excludes:
                anchored = pattern.lstrip("/")
                patterns.append(f"/{service.path}/{anchored}" if service.path else f"/{anchored}")
        return tuple(patterns)


def load_config(root: Path) -> Config:
    """Read ``mesh.toml`` at ``root`` (defaults when there is none). Raises :class:`ConfigError`."""
    path = root / CONFIG_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    unknown = sorted(set(data) - {"index", "services", "audit", "daemon"})
    if unknown:
        raise ConfigError(
            f"{path}: unknown top-level key(s) {', '.join(unknown)}; "
            "expected [index], [[services]], [audit] and [daemon]"
        )
    index = _table(data, "index", path)
    options = (
        _index_options(index, path)
        | _audit_options(_table(data, "audit", path), path)
        | _daemon_options(_table(data, "daemon", path), path)
    )
    services = None
    if "services" in data:
        entries = data["services"]
        if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
            raise ConfigError(f'{path}: services must be an array of tables ([[services]] with name = "...")')
        services = tuple(_service(entry, number, path, root) for number, entry in enumerate(entries, 1))
        names = [service.name for service in services]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ConfigError(f"{path}: service name(s) used twice: {', '.join(duplicates)}")
    return Config(services=services, **options)


def _table(data: dict, key: str, path: Path) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: [{key}] must be a table")
    return value


def _index_options(index: dict, path: Path) -> dict:
    known = {"max_file_bytes": int, "include_vendored": bool, "include_secrets": bool, "ignore": list}
    options: dict = {}
    for key, value in index.items():
        expected = known.get(key)
        if expected is None:
            raise ConfigError(f"{path}: [index] has no key {key!r}; known keys: {', '.join(sorted(known))}")
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ConfigError(f"{path}: [index] {key} must be {expected.__name__}, not {type(value).__name__}")
        if key == "ignore":
            value = _strings(value, f"[index] {key}", path)
        if key == "max_file_bytes" and value <= 0:
            raise ConfigError(f"{path}: [index] max_file_bytes must be positive")
        options[key] = value
    return options


def _audit_options(audit: dict, path: Path) -> dict:
    options: dict = {}
    for key, value in audit.items():
        if key == "retention_rows":
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{path}: [audit] retention_rows must be a positive integer, not {value!r}")
            options["audit_retention_rows"] = value
        elif key == "retention_days":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ConfigError(f"{path}: [audit] retention_days must be a positive number, not {value!r}")
            options["audit_retention_days"] = float(value)
        else:
            raise ConfigError(f"{path}: [audit] has no key {key!r}; known keys: retention_days, retention_rows")
    return options


def _daemon_options(daemon: dict, path: Path) -> dict:
    options: dict = {}
    for key, value in daemon.items():
        if key != "idle_exit_s":
            raise ConfigError(f"{path}: [daemon] has no key {key!r}; known keys: idle_exit_s")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ConfigError(f"{path}: [daemon] idle_exit_s must be a number of seconds, 0 or more, not {value!r}")
        options["daemon_idle_exit_s"] = float(value)
    return options


def _strings(value: object, what: str, path: Path) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{path}: {what} must be a list of strings")
    return tuple(value)


def _service(entry: dict, number: int, path: Path, root: Path) -> Service:
    where = f"{path}: services #{number}"
    unknown = sorted(set(entry) - {"name", "path", "languages", "exclude"})
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known: name, path, languages, exclude")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{where}: name must be a non-empty string")
    folder = entry.get("path", name)
    if not isinstance(folder, str):
        raise ConfigError(f"{where} ({name}): path must be a string")
    folder = folder.strip().strip("/")
    if folder in (".", ""):
        folder = ""
    parts = folder.split("/") if folder else []
    if Path(folder).is_absolute() or ".." in parts:
        raise ConfigError(f"{where} ({name}): path {folder!r} must stay inside the workspace")
    if folder and not (root / folder).is_dir():
        raise ConfigError(f"{where} ({name}): path {folder!r} is not a folder of the workspace")
    return Service(
        name=name.strip(),
        path=folder,
        origin="mesh.toml",
        languages=_strings(entry.get("languages", []), f"services #{number} languages", path),
        excludes=_strings(entry.get("exclude", []), f"services #{number} exclude", path),
    )


def discover_services(root: Path, paths: list[str]) -> tuple[Service, ...]:
    """The services of a workspace without named services, from its walked file ``paths``."""
    folders = sorted({path.rsplit("/", 1)[0] if "/" in path else "" for path in paths})
    manifests = sorted({_parent(path) for path in paths if manifest_kind(path.rsplit("/", 1)[-1]) is not None})
    chosen: list[tuple[str, str]] = [(folder, "manifest") for folder in _outermost(f for f in manifests if f)]
    repos = [folder for folder in _ancestors_of(folders) if folder and (root / folder / ".git").exists()]
    for folder in _outermost(repos):
        if not any(_within(folder, other) or _within(other, folder) for other, _ in chosen):
            chosen.append((folder, "git"))
    unclaimed = [path for path in paths if not any(_within(_parent(path), folder) for folder, _ in chosen)]
    if "" in manifests:
        if unclaimed:
            chosen.append(("", "root"))
    else:
        tops = sorted({path.split("/", 1)[0] for path in unclaimed if "/" in path})
        chosen.extend((top, "folder") for top in tops)
    return _named(chosen, root.name or "workspace")


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _within(path: str, folder: str) -> bool:
    return not folder or path == folder or path.startswith(folder + "/")


def _outermost(folders) -> list[str]:
    kept: list[str] = []
    for folder in sorted(folders):  # a parent sorts before its children
        if not any(_within(folder, outer) for outer in kept):
            kept.append(folder)
    return kept


def _ancestors_of(folders: list[str]) -> list[str]:
    seen = set()
    for folder in folders:
        parts = folder.split("/") if folder else []
        for end in range(1, len(parts) + 1):
            seen.add("/".join(parts[:end]))
    return sorted(seen)


def _named(chosen: list[tuple[str, str]], root_name: str) -> tuple[Service, ...]:
    base = [folder.rsplit("/", 1)[-1] if folder else root_name for folder, _ in chosen]
    services = []
    for (folder, origin), name in zip(chosen, base, strict=True):
        if base.count(name) > 1 and folder:
            name = folder
        services.append(Service(name=name, path=folder, origin=origin))
    return order_services(services)


def order_services(services) -> tuple[Service, ...]:
    """Longest path first (the owner of a path is the first that holds it), then by name."""
    return tuple(sorted(services, key=lambda service: (-len(service.path), service.path, service.name)))
