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

import os
import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

import attrs

from .._files import open_inside, read_inside
from ._services import Area, DiscoveryPaths, External, ManifestWarning, Wiring, areas_of, discover, link_workspace

__all__ = [
    "Area",
    "Config",
    "ConfigError",
    "External",
    "Service",
    "ManifestWarning",
    "Wiring",
    "Workspace",
    "discover_services",
    "discover_workspace",
    "ignore_patterns",
    "load_config",
]

CONFIG_FILE: Final = "mesh.toml"
DEFAULT_MAX_FILE_BYTES: Final = 1 << 20
#: A larger mesh.toml is refused unread (the largest real one seen is ~50 KB).
CONFIG_BYTES_MAX: Final = 1 << 20
#: ``[audit] retention_days`` beyond this (a century) is refused: no date is that far back.
AUDIT_RETENTION_DAYS_MAX: Final = 36_500
#: The largest integer any setting takes (SQLite's, and far past any size or count that makes sense).
INT_MAX: Final = (1 << 63) - 1
#: How much of a value a ConfigError quotes.
_SHOWN_CHARS_MAX: Final = 60


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
    #: What each deployed service's environment says about other services' hosts, sorted.
    wiring: tuple[Wiring, ...] = ()
    #: (host name, service or external service it reaches), sorted: every name the manifests give.
    hosts: tuple[tuple[str, str], ...] = ()
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
        return ignore_patterns(self.config.ignore, self.services)


def ignore_patterns(ignore: Iterable[str], services: Iterable[Service]) -> tuple[str, ...]:
    """``ignore`` plus the excludes of ``services``, as root-relative patterns: what the walk
    leaves out (the index's and, before it exists, the scan's)."""
    patterns = list(ignore)
    for service in services:
        for pattern in service.excludes:
            anchored = pattern.lstrip("/")
            patterns.append(f"/{service.path}/{anchored}" if service.path else f"/{anchored}")
    return tuple(patterns)


def load_config(root: Path) -> Config:
    """Read ``mesh.toml`` at ``root`` (defaults when there is none). Raises :class:`ConfigError`,
    and nothing else, whatever the file holds (INV-CONFIG-1): the message names the file."""
    path = root / CONFIG_FILE
    raw = _read_config(root)
    if raw is None:
        return Config()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: arrays or tables nested too deeply to read") from None
    except (ValueError, MemoryError) as exc:  # an integer of thousands of digits (int()'s limit)...
        raise ConfigError(f"{path}: cannot be read as TOML: {_clip(str(exc))}") from None
    unknown = sorted(set(data) - {"index", "services", "audit", "daemon"})
    if unknown:
        raise ConfigError(
            f"{path}: unknown top-level key(s) {', '.join(map(_clip, unknown[:5]))}; "
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


def _read_config(root: Path) -> bytes | None:
    """The bytes of mesh.toml at ``root`` (None when there is none): a regular file of at most
    ``CONFIG_BYTES_MAX`` bytes, read through the one reader of workspace files (INV-READ-1: never
    through a symlink out of the workspace, never waiting on a FIFO or a device)."""
    path = root / CONFIG_FILE
    try:
        descriptor = open_inside(root, CONFIG_FILE)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        chunks, size = [], 0
        while size <= CONFIG_BYTES_MAX and (chunk := os.read(descriptor, CONFIG_BYTES_MAX + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    finally:
        os.close(descriptor)
    raw = b"".join(chunks)
    if len(raw) > CONFIG_BYTES_MAX:
        raise ConfigError(f"{path}: larger than {CONFIG_BYTES_MAX:,} bytes; a mesh.toml is a few KB")
    return raw


def _shown(value: object) -> str:
    """``value`` as a ConfigError quotes it: the repr of a scalar, cut; the type of anything else
    (a table nested thousands deep has no repr)."""
    if isinstance(value, (str, int, float, bool)) and not (isinstance(value, int) and value.bit_length() > 64):
        return _clip(repr(value))
    return f"a {type(value).__name__}"


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN_CHARS_MAX else text[: _SHOWN_CHARS_MAX - 1] + "…"


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
            raise ConfigError(f"{path}: [index] has no key {_shown(key)}; known keys: {', '.join(sorted(known))}")
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ConfigError(f"{path}: [index] {key} must be {expected.__name__}, not {type(value).__name__}")
        if key == "ignore":
            value = _strings(value, f"[index] {key}", path)
        if key == "max_file_bytes" and not 0 < value <= INT_MAX:
            raise ConfigError(f"{path}: [index] max_file_bytes must be positive, at most {INT_MAX}")
        options[key] = value
    return options


def _audit_options(audit: dict, path: Path) -> dict:
    options: dict = {}
    for key, value in audit.items():
        if key == "retention_rows":
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= INT_MAX:
                raise ConfigError(
                    f"{path}: [audit] retention_rows must be a positive integer, at most {INT_MAX}, not {_shown(value)}"
                )
            options["audit_retention_rows"] = value
        elif key == "retention_days":
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not 0 < value <= AUDIT_RETENTION_DAYS_MAX
            ):
                raise ConfigError(
                    f"{path}: [audit] retention_days must be a positive number of days, at most "
                    f"{AUDIT_RETENTION_DAYS_MAX} (a century), not {_shown(value)}"
                )
            options["audit_retention_days"] = float(value)
        else:
            raise ConfigError(f"{path}: [audit] has no key {_shown(key)}; known keys: retention_days, retention_rows")
    return options


def _daemon_options(daemon: dict, path: Path) -> dict:
    options: dict = {}
    for key, value in daemon.items():
        if key != "idle_exit_s":
            raise ConfigError(f"{path}: [daemon] has no key {_shown(key)}; known keys: idle_exit_s")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= INT_MAX:
            raise ConfigError(
                f"{path}: [daemon] idle_exit_s must be a number of seconds, 0 or more (0: never), not {_shown(value)}"
            )
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
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(map(_clip, unknown[:5]))}; known: name, path, languages, exclude"
        )
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
        raise ConfigError(f"{where} ({_clip(name)}): path {_shown(folder)} must stay inside the workspace")
    if folder and not _inside(root, root / folder):
        raise ConfigError(
            f"{where} ({_clip(name)}): path {_shown(folder)} leads outside the workspace through a symlink; "
            "name the folder inside the workspace the link points to, or copy it in"
        )
    if folder and not (root / folder).is_dir():
        raise ConfigError(f"{where} ({_clip(name)}): path {_shown(folder)} is not a folder of the workspace")
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
    root: Path,
    config: Config,
    paths: Iterable[str] | DiscoveryPaths,
    read: Callable[[str], bytes | None] | None = None,
) -> Workspace:
    """The workspace of ``config`` over its walked ``paths`` (or the :class:`DiscoveryPaths` of
    them an index keeps): named or discovered services, areas, external services and the warnings
    of manifests that could not be used. ``read`` gives a file's bytes (default: :func:`disk_reader`)."""
    read = read or disk_reader(root)
    named = config.services
    held = paths if isinstance(paths, DiscoveryPaths) else DiscoveryPaths(root, paths)
    found = discover(root, held, read, named=named is not None)
    if named is not None:
        services = order_services(named)
        warnings = found.warnings
    else:
        services = order_services(
            Service(name=name, path=folder, origin=origin, kind=kind, evidence=evidence, extra=extra)
            for name, folder, origin, kind, evidence, extra in found.units
        )  # fmt: skip
        if not services and held.paths:
            services = (Service(name=root.name or "workspace", path="", origin="root", kind="library"),)
        warnings = found.warnings
    folders = held.folders - {""}
    claimed = [folder for s in services for folder in (s.path, *s.extra)]
    areas = tuple(areas_of(folders, claimed))
    workspace = Workspace(root, config, services, areas, found.externals, warnings)
    wiring, hosts = link_workspace(found, workspace.service_of, (s.path for s in services))
    return attrs.evolve(workspace, wiring=wiring, hosts=hosts)


def disk_reader(root: Path) -> Callable[[str], bytes | None]:
    """Read a manifest's first MiB under ``root``, never through a symlink (a manifest that is a
    link names nothing; a folder on its way may link only inside); None when it cannot be read."""

    def read(path: str) -> bytes | None:
        if (root / path).is_symlink():
            return None  # a link swapped in later is followed only inside the workspace
        try:
            return read_inside(root, path, 1 << 20)[0]
        except OSError:
            return None

    return read


def _inside(root: Path, path: Path) -> bool:
    """Whether ``path``, every symlink followed, is inside ``root`` (itself resolved here)."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def _within(path: str, folder: str) -> bool:
    return not folder or path == folder or path.startswith(folder + "/")


def order_services(services) -> tuple[Service, ...]:
    """Longest path first (the owner of a path is the first that holds it), then by name."""
    return tuple(sorted(services, key=lambda service: (-len(service.path), service.path, service.name)))
