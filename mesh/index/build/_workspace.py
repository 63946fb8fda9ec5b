"""The workspace model: its configuration (``mesh.toml``) and the services that hold its files.

Theory of operation
-------------------
``mesh.toml`` at the workspace root is optional. It may set how the walk behaves (``[index]``) and
name the services (``[[services]]`` with ``name``, ``path``, ``languages``, ``exclude``); named
services are the services, whatever the deployments say. Without them, services are discovered
from what deploys and builds them (:mod:`._services`: Compose, Kubernetes, skaffold, Aspire,
Dockerfiles, build manifests and multi-project builds, Go programs, test projects).

Each file belongs to the service with the longest folder (its own or one of its test folders)
that contains it; a file in no service's folder belongs to an *area* or the root (``""``) and no
verdict counts it. External services (infrastructure deployed without source here) and the
warnings of manifests that could not be read travel with the workspace.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Final

import attrs

from ._services import Area, External, ManifestWarning, areas_of, discover

__all__ = [
    "Area",
    "Config",
    "ConfigError",
    "External",
    "Service",
    "ManifestWarning",
    "Workspace",
    "discover_services",
    "discover_workspace",
    "load_config",
]

CONFIG_FILE: Final = "mesh.toml"
DEFAULT_MAX_FILE_BYTES: Final = 1 << 20


class ConfigError(Exception):
    """``mesh.toml`` cannot be used; the message says which key and what was expected."""


@attrs.frozen
class Service:
    name: str
    #: Folder relative to the workspace root, ``/`` separated; "" for the root itself.
    path: str
    #: "mesh.toml", "deployment", "manifest", "git", "folder" or "root".
    origin: str
    #: Language hints from ``mesh.toml`` (discovered services have none; the index counts them).
    languages: tuple[str, ...] = ()
    #: gitignore-style patterns, relative to the service folder, left out of the index.
    excludes: tuple[str, ...] = ()
    #: "deployed", "library" or "tool" ("" when ``mesh.toml`` named it).
    kind: str = ""
    #: Where the decision came from: ``file:line: what it says``, strongest first.
    evidence: tuple[str, ...] = ()
    #: Other folders that belong to it (its test projects).
    extra: tuple[str, ...] = ()

    def holds(self, path: str) -> bool:
        return any(_within(path, folder) for folder in (self.path, *self.extra))


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
    #: Outermost folders holding no service.
    areas: tuple[Area, ...] = ()
    externals: tuple[External, ...] = ()
    warnings: tuple[ManifestWarning, ...] = ()
    #: (folder, service name), longest folder first: the first that holds a path owns it.
    _claims: tuple[tuple[str, str], ...] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        claims = [(folder, s.name) for s in self.services for folder in (s.path, *s.extra)]
        object.__setattr__(self, "_claims", tuple(sorted(claims, key=lambda c: (-len(c[0]), c[0], c[1]))))

    def service_of(self, path: str) -> str:
        """The name of the service holding ``path`` ("" when only the workspace itself holds it)."""
        for folder, name in self._claims:
            if _within(path, folder):
                return name
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
    return discover_workspace(root, Config(), paths).services


def discover_workspace(
    root: Path, config: Config, paths: list[str], read: Callable[[str], bytes | None] | None = None
) -> Workspace:
    """The workspace of ``config`` over its walked ``paths``: named or discovered services, areas,
    external services and the warnings of manifests that could not be used. ``read`` gives a
    file's bytes (default: read it under ``root``, without following a link out)."""
    read = read or _disk_reader(root)
    named = config.services
    found = discover(root, paths, read, named=named is not None)
    if named is not None:
        services = order_services(named)
        warnings = found.warnings
    else:
        services = order_services(
            Service(name=name, path=folder, origin=origin, kind=kind, evidence=evidence, extra=extra)
            for name, folder, origin, kind, evidence, extra in found.units
        )  # fmt: skip
        if not services and paths:
            services = (Service(name=root.name or "workspace", path="", origin="root", kind="library"),)
        warnings = found.warnings
    folders = {path.rsplit("/", 1)[0] for path in paths if "/" in path}
    folders |= {"/".join(f.split("/")[:n]) for f in folders for n in range(1, f.count("/") + 1)}
    claimed = [folder for s in services for folder in (s.path, *s.extra)]
    areas = tuple(areas_of(folders, claimed))
    return Workspace(root, config, services, areas, found.externals, warnings)


def _disk_reader(root: Path) -> Callable[[str], bytes | None]:
    def read(path: str) -> bytes | None:
        target = root / path
        try:
            if target.is_symlink() or not target.resolve().is_relative_to(root.resolve()):
                return None
            with open(target, "rb") as handle:
                return handle.read(1 << 20)
        except OSError:
            return None

    return read


def _within(path: str, folder: str) -> bool:
    return not folder or path == folder or path.startswith(folder + "/")


def order_services(services) -> tuple[Service, ...]:
    """Longest path first (the owner of a path is the first that holds it), then by name."""
    return tuple(sorted(services, key=lambda service: (-len(service.path), service.path, service.name)))
