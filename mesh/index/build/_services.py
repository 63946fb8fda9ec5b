"""Services as they are deployed: which folders are services, what they are called, what is not one.

Theory of operation
-------------------
Without ``[[services]]`` in ``mesh.toml``, :func:`discover` decides the services of a workspace
from its walked files, strongest evidence first:

1. **Units** are folders built on their own: build manifests (``go.mod``, ``package.json``,
   ``pom.xml``, ``*.csproj``, ``CMakeLists.txt``...), the members that a multi-project build
   declares (Gradle ``include``, Maven ``<modules>``, npm workspaces, Cargo workspaces,
   ``go.work``, solutions; the aggregating folder itself is no unit), and folders holding a
   Dockerfile beside code. A manifest nested in a unit of the same build (a Maven module of a
   non-aggregating parent, a test folder's ``requirements.txt``) stays part of it; one of another
   build (a ``package.json`` inside a Go service) is a unit of its own.
2. **Deployments** name units and make them *deployed*: Compose services (``build`` context and
   Dockerfile, or an image built elsewhere in the workspace), Kubernetes workloads and skaffold
   artifacts (tied to a folder by the image: an artifact's or a Compose build's image, else a
   folder named like the image), .NET Aspire app hosts (``AddProject<Projects.X>("name")``). A
   deployment that runs a unit's image with an entrypoint naming one of its programs (a Go
   ``package main`` folder) makes that program a service of its own. What a deployment runs that
   is built nowhere in the workspace (brokers, caches, databases, proxies) is an *external
   service*.
3. A Go module with several programs and no deployment of its own is split: each program folder
   is a service (a tool), each other package folder a library.
4. Test projects (``Basket.UnitTests``, ``orders-tests``) belong to the unit they reference or are
   named after; a test suite of no single unit (end-to-end tests) is an area.
5. The root is a service only when it is deployed, holds code of its own outside test folders, or
   is the only unit. Units under top-level dot-folders (``.github``...) are never services.

Names: the deployment's name (Compose and Aspire before Kubernetes before skaffold; a unit
deployed under several names of equal rank keeps its folder's name); else the folder's name,
walking up past generic ones (``src``, ``app``, ``server``...); two equal names both take their
relative paths. *Areas* are the outermost folders that neither hold nor lie in a service: their
files are indexed but belong to no service. Every decision keeps its evidence (file and line), and
a manifest that cannot be read is a warning naming it, never a failure.

Wiring (6.): what each deployment's environment says about other services' hosts, and which host
names reach which service, read from the manifests already read for the steps above (each is read
once): Compose ``environment`` and ``env_file`` (``${VAR}``, ``${VAR:-default}``... interpolated
from the ``.env`` beside the Compose file, which is read for that alone, never indexed nor shown),
service keys, container names, host names, network and ``links`` aliases; Kubernetes ``env``
(values, ``configMapKeyRef``), ``envFrom`` ConfigMaps, and ``Service`` selectors over pod labels;
Helm templates' ``{{ .Values.x }}`` variables over the chart's ``values.yaml`` (and an umbrella
chart's values for its ``file://`` subcharts); Aspire ``WithReference``/``WithEnvironment``. A
deployment lands in a folder (its build context or the folder its image ties to) or on an external
service; :func:`link_workspace` turns folders into the services holding them once the services are
known (discovered, or named by ``mesh.toml``). A value is reduced to its host and path at once
(:func:`mesh.index.parse._config.addresses`): nothing else of it is kept, and variables with
secret-looking names are never read.
"""

from __future__ import annotations

import bisect
import logging
import posixpath
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Final

import attrs

from ..parse import language_of, manifest_kind
from ..parse import _deploy as deploy
from ..parse._config import addresses, connection_string_name, host_named, listening, read_yaml_nodes, scalar
from ..parse._config import pairs as yaml_pairs

__all__ = [
    "Area", "Discovery", "DiscoveryPaths", "External", "ManifestWarning", "Wiring", "discover", "link_workspace",
    "structural",
]  # fmt: skip

log = logging.getLogger("mesh.index")

GENERIC_NAMES: Final = frozenset(
    {"src", "app", "server", "service", "cmd", "main", "lib", "tests", "test", "client", "api", "internal", "pkg",
     "source", "sources", "code", "backend", "frontend-src"}
)  # fmt: skip
_EXTRA_MANIFESTS: Final = {
    "CMakeLists.txt": "cpp", "meson.build": "cpp", "build.sbt": "jvm", "mix.exs": "elixir", "Makefile": "make",
    "settings.gradle": "jvm", "settings.gradle.kts": "jvm",
}  # fmt: skip
_ECOSYSTEM: Final = {
    "go.mod": "go", "package.json": "npm", "pyproject.toml": "python", "setup.py": "python", "setup.cfg": "python",
    "requirements.txt": "python", "pom.xml": "jvm", "build.gradle": "jvm", "build.gradle.kts": "jvm",
    "Cargo.toml": "rust", "Gemfile": "ruby", "composer.json": "php", ".csproj": "dotnet",
}  # fmt: skip
_LAYOUT_FILES: Final = frozenset({"settings.gradle", "settings.gradle.kts", "pom.xml", "package.json", "Cargo.toml",
                                  "go.work"})  # fmt: skip
_TEST_FOLDER: Final = re.compile(
    r"(^|[._-])(unit|functional|integration|e2e|end-to-end|acceptance|system|component)?[._-]?tests?$"
    r"|(Unit|Functional|Integration|E2E|Acceptance)?Tests?$|^e2e$|^spec$",
)
_DOCKERFILE: Final = re.compile(r"^(Dockerfile([.-][\w.-]+)?|[\w.-]+\.Dockerfile|Containerfile)$")
_YAML: Final = (".yaml", ".yml")
#: Folders whose nested manifests are copies of other people's packages, not units of this workspace.
_BUNDLED: Final = frozenset({"lib", "libs", "wwwroot", "third_party", "thirdparty", "external", "externals", "deps"})
#: A Go file's package clause (the first line that opens with ``package``: comments come before it).
_GO_PACKAGE: Final = re.compile(rb"^package\s+(\w+)", re.M)
_GO_FUNC_MAIN: Final = re.compile(rb"^func\s+main\s*\(", re.M)
_READ_MAX: Final = 512 * 1024


def go_program(data: bytes) -> bool:
    """Whether a Go file's bytes make its folder a program (``package main`` with ``func main``):
    a program comes or goes, the services may change. The search stops at the package clause, near
    the top of the file: a file of another package costs its first lines, not its whole text (this
    runs on every Go file of a full discovery: 1.9 CPU-s for the 19,654 of a 100,000-file tree
    when it searched the whole text of each)."""
    data = data[:_READ_MAX]
    package = _GO_PACKAGE.search(data)
    return package is not None and package[1] == b"main" and _GO_FUNC_MAIN.search(data, package.end()) is not None
_WIRING_NAMES: Final = frozenset({".env", "Chart.yaml", "values.yaml", "values.yml"})
_RANK: Final = {"compose": 0, "aspire": 0, "kubernetes": 1, "skaffold": 2, "dockerfile": 3}


@attrs.frozen
class ManifestWarning:
    path: str
    line: int
    message: str


@attrs.frozen
class Area:
    path: str
    #: Why it holds no service: "docs", "ci", "infrastructure", "manifests", "protos", "tests", "other".
    reason: str


@attrs.frozen
class External:
    name: str
    #: What it is, as far as the manifests say: the image (``rabbitmq:3``) or the Aspire resource kind.
    what: str
    evidence: tuple[str, ...]


@attrs.frozen
class Wiring:
    """An environment variable of a deployed service whose value names a host."""

    #: The workspace service (its final name) the deployment runs.
    service: str
    #: The environment variable (``services:x`` / ``ConnectionStrings:x`` for an Aspire reference).
    var: str
    #: The host its value names, lower-case, no scheme or port ("" if none).
    host: str
    #: The path of a URL value ("" when none).
    path: str
    #: The manifest where the value is written (workspace-relative) and its line.
    file: str
    line: int


#: Where a deployment lands: ("folder", path) until services are known, or ("external", name).
Target = tuple[str, str]


@attrs.frozen
class Discovery:
    #: (name, folder, origin, kind, evidence, extra folders), by folder.
    units: tuple[tuple[str, str, str, str, tuple[str, ...], tuple[str, ...]], ...]
    externals: tuple[External, ...]
    warnings: tuple[ManifestWarning, ...]
    #: (target, var, host, path, file, line) of every variable naming a host, targets unresolved.
    wiring: tuple[tuple[Target, str, str, str, str, int], ...] = ()
    #: (host name, target) of every name a manifest gives a deployment.
    hosts: tuple[tuple[str, Target], ...] = ()


def structural(name: str) -> bool:
    """A file of this name can change which folders are services, or what the deployments wire (the
    ``.env`` a Compose file is interpolated from, a Helm chart's values): its change needs a full refresh."""
    return (
        name in _WIRING_NAMES
        or name.endswith(".env")  # an ``env_file``
        or manifest_kind(name) is not None
        or name in _EXTRA_MANIFESTS
        or name == "go.work"
        or name.endswith((".sln", ".slnx", ".gemspec"))
        or bool(_DOCKERFILE.match(name))
        or deploy.is_compose_name(name)
        or deploy.is_skaffold_name(name)
    )


@attrs.define
class _Unit:
    folder: str
    ecosystems: set[str] = attrs.field(factory=set)
    kind: str = "library"
    deployed: bool = False
    names: list[tuple[int, str]] = attrs.field(factory=list)
    evidence: list[str] = attrs.field(factory=list)
    extra: list[str] = attrs.field(factory=list)
    member: bool = False
    git: bool = False
    folder_only: bool = False


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _within(path: str, folder: str) -> bool:
    return not folder or path == folder or path.startswith(folder + "/")


def _join(folder: str, relative: str) -> str | None:
    """``relative`` (as a manifest writes it) from ``folder``; None when it leaves the workspace."""
    joined = posixpath.normpath(posixpath.join(folder or ".", relative.strip() or "."))
    if joined.startswith("..") or joined.startswith("/"):
        return None
    return "" if joined == "." else joined


def _image_key(image: str) -> tuple[str, str]:
    """(repository without tag or digest, its last segment) of an image reference."""
    image = image.split("@", 1)[0]
    last = image.rsplit("/", 1)[-1]
    if ":" in last:
        image = image[: len(image) - len(last)] + last.split(":", 1)[0]
    return image, image.rsplit("/", 1)[-1]


class _Reader:
    def __init__(self, read: Callable[[str], bytes | None]) -> None:
        self.raw = read

    def text(self, path: str) -> str | None:
        data = self.raw(path)
        if data is None or len(data) > _READ_MAX or b"\x00" in data[:4096]:
            return None
        return data.decode("utf-8", "replace").removeprefix("\ufeff")


def discover(root: Path, paths: Iterable[str] | DiscoveryPaths, read: Callable[[str], bytes | None],
             named: bool = False) -> Discovery:  # fmt: skip
    """The services, external services and warnings of a workspace from its walked ``paths`` (or
    the :class:`DiscoveryPaths` of them an index keeps); ``read`` gives a file's bytes (None when
    it cannot). With ``named`` (``mesh.toml`` names the services) only the external services and
    warnings are worked out."""
    held = paths if isinstance(paths, DiscoveryPaths) else DiscoveryPaths(root, paths)
    return _Discoverer(root, held, _Reader(read)).run(named)


#: The paths discovery reads or looks for, by role (each role a superset of what its loop keeps).
_UNITS, _DOCKERFILES, _DEPLOYMENTS, _PROJECTS, _GO_MODULES = "units", "dockerfiles", "deployments", "projects", "go.mod"
_ROLES: Final = (_UNITS, _DOCKERFILES, _DEPLOYMENTS, _PROJECTS, _GO_MODULES)


def _roles(path: str) -> tuple[str, ...]:
    """The roles of ``path`` in discovery: the loops of :class:`_Discoverer` over paths of a role."""
    name = path.rsplit("/", 1)[-1]
    roles = []
    if (
        name in _LAYOUT_FILES
        or name.endswith((".sln", ".slnx", ".gemspec"))
        or name in _EXTRA_MANIFESTS
        or _ECOSYSTEM.get(manifest_kind(name) or "") is not None
    ):
        roles.append(_UNITS)
    if _DOCKERFILE.match(name):
        roles.append(_DOCKERFILES)
    if (
        deploy.is_compose_name(name)
        or deploy.is_skaffold_name(name)
        or (name.endswith(_YAML) and not path.startswith(".") and "/." not in path)
        or (name.endswith(".cs") and ("AppHost" in path or name == "Program.cs"))
    ):
        roles.append(_DEPLOYMENTS)
    if name.endswith(".csproj"):
        roles.append(_PROJECTS)
    if name == "go.mod":
        roles.append(_GO_MODULES)
    return tuple(roles)


class DiscoveryPaths:
    """A workspace's walked paths as discovery asks of them, kept by an index between discoveries
    and changed by the paths a refresh looked at (:meth:`replace`): discovering again after a
    manifest edit then costs the manifests and deployments, not every path (INV-INDEX-11).

    It holds the paths in order, every folder holding one (``""`` included) with how many paths
    are under it, each folder's file names, the paths of each role discovery reads (manifests,
    Dockerfiles, deployments, ``.csproj``, ``go.mod``), each folder's Go files (tests apart) with
    whether they make a program (``package main`` with ``func main``: asked of a folder's files
    when discovery first needs it, asked again when one of them changes), and the folders that are
    git repositories (a ``.git`` looked for when a folder first comes: one made later in a folder
    the index knows is seen by the next walk of everything)."""

    def __init__(self, root: Path, paths: Iterable[str]) -> None:
        self.root = root
        self.paths: list[str] = sorted(set(paths))
        self.folders: set[str] = {""}
        self.files_in: dict[str, set[str]] = defaultdict(set)
        self._under: Counter[str] = Counter()
        self._by_role: dict[str, list[str]] = {role: [] for role in _ROLES}
        self._go: dict[str, set[str]] = defaultdict(set)  # folder -> its Go files, but tests
        self._go_any: Counter[str] = Counter()  # folder -> its Go files, tests included
        self._programs: set[str] = set()  # folders whose Go files make a program, of those asked
        self._unasked: set[str] = set()  # folders holding Go files not asked since they changed
        self._git: set[str] | None = None  # git repositories (once asked)
        for path in self.paths:  # in order: each role's list stays sorted as it is appended to
            self._count(path, 1)
            for role in _roles(path):
                self._by_role[role].append(path)

    def role(self, role: str) -> list[str]:
        """The paths of ``role``, in order."""
        return self._by_role[role]

    def go_folders(self) -> Iterator[str]:
        """The folders holding Go files (tests too), in order."""
        return iter(sorted(self._go_any))

    def program_folders(self, read: Callable[[str], bytes | None]) -> list[str]:
        """The folders whose Go files (tests aside) make a program, in order; ``read`` gives a
        file's bytes, asked only of folders not yet known, file by file until one is a program."""
        for folder in sorted(self._unasked):
            prefix = f"{folder}/" if folder else ""
            names = sorted(self._go.get(folder, ()))
            if any((data := read(prefix + name)) is not None and go_program(data) for name in names):
                self._programs.add(folder)
        self._unasked.clear()
        return sorted(self._programs)

    def git_repositories(self) -> list[str]:
        """The folders (never the root) holding a ``.git``, in order."""
        if self._git is None:
            self._git = {folder for folder in self.folders if folder and (self.root / folder / ".git").exists()}
        return sorted(self._git)

    def replace(self, looked_at: Iterable[str], found: Iterable[str]) -> None:
        """The paths after a refresh of ``looked_at`` (files, or folders: every path under one
        too) found ``found`` there: those looked at go, those found come."""
        for path in sorted(set(looked_at)):
            start = bisect.bisect_left(self.paths, path)
            end = bisect.bisect_left(self.paths, path + "0", start)  # ``path``, then ``path/...`` (``/`` < ``0``)
            gone = [held for held in self.paths[start:end] if held == path or held.startswith(path + "/")]
            for held in gone:
                self._remove(held)
        for path in sorted(set(found)):
            at = bisect.bisect_left(self.paths, path)
            if at < len(self.paths) and self.paths[at] == path:
                self._remove(path)
            self._add(path)

    def _add(self, path: str) -> None:
        bisect.insort(self.paths, path)
        self._count(path, 1)
        for role in _roles(path):
            bisect.insort(self._by_role[role], path)

    def _remove(self, path: str) -> None:
        del self.paths[bisect.bisect_left(self.paths, path)]
        self._count(path, -1)
        for role in _roles(path):
            held = self._by_role[role]
            del held[bisect.bisect_left(held, path)]

    def _count(self, path: str, step: int) -> None:
        folder, name = _parent(path), path.rsplit("/", 1)[-1]
        if step > 0:
            self.files_in[folder].add(name)
        else:
            self.files_in[folder].discard(name)
            if not self.files_in[folder]:
                del self.files_in[folder]
        if name.endswith(".go"):
            self._programs.discard(folder)
            self._unasked.add(folder)
            self._go_any[folder] += step
            if not self._go_any[folder]:
                del self._go_any[folder]
            if not name.endswith("_test.go"):
                if step > 0:
                    self._go[folder].add(name)
                else:
                    self._go[folder].discard(name)
                    if not self._go[folder]:
                        del self._go[folder]
        while folder:
            self._under[folder] += step
            if self._under[folder] == 0:
                del self._under[folder]
                self.folders.discard(folder)
                if self._git is not None:
                    self._git.discard(folder)
            elif step > 0 and self._under[folder] == 1:
                self.folders.add(folder)
                if self._git is not None and (self.root / folder / ".git").exists():
                    self._git.add(folder)
            folder = _parent(folder)


class _Discoverer:
    def __init__(self, root: Path, paths: DiscoveryPaths, reader: _Reader) -> None:
        self.root = root
        self.root_name = root.name or "workspace"
        self.held = paths
        self.paths = paths.paths
        self.reader = reader
        self.folders = paths.folders
        self.files_in = paths.files_in
        self.units: dict[str, _Unit] = {}
        self.warnings: list[ManifestWarning] = []
        self.externals: dict[str, External] = {}
        self.images: dict[str, str] = {}  # image repository -> folder that builds it
        self.programs: dict[str, list[str]] = {}  # Go module folder -> its program folders
        # -- what the wiring needs, kept from the one read of each manifest
        self.targets: dict[tuple[str, str], Target] = {}  # (manifest:line, name) -> where it lands
        self.kube: list[tuple[str, deploy.KubeObjects]] = []
        self.aspire_wiring: list[tuple[str, deploy.AspireWiring]] = []
        self.charts: dict[str, dict] = {}  # chart folder -> name, dependencies, values, templates' env

    # -- 1. units -------------------------------------------------------------------------------

    def _unit(self, folder: str) -> _Unit:
        unit = self.units.get(folder)
        if unit is None:
            unit = self.units[folder] = _Unit(folder)
        return unit

    def _has_code(self, folder: str) -> bool:
        return any(_is_code(name) for name in self.files_in.get(folder, ()))

    def _build_units(self) -> None:
        aggregators: set[str] = set()
        members: set[str] = set()
        for path in self.held.role(_UNITS):
            folder, name = _parent(path), path.rsplit("/", 1)[-1]
            if name in _LAYOUT_FILES or name.endswith((".sln", ".slnx")):
                text = self.reader.text(path)
                declared = deploy.layout_members(name, text) if text is not None else None
                if declared is not None:
                    aggregators.add(folder)
                    for member in declared:
                        joined = _join(folder, member)
                        if joined is not None and "*" not in joined and joined in self.folders and joined != folder:
                            members.add(joined)
                        elif joined is not None and "*" in joined:
                            members.update(f for f in self.folders if _glob_match(f, joined))
            kind = manifest_kind(name)
            ecosystem = _ECOSYSTEM.get(kind or "") or _EXTRA_MANIFESTS.get(name)
            if name.endswith(".gemspec"):
                ecosystem = "ruby"
            if ecosystem == "make" and not self._has_code(folder):
                continue
            if ecosystem is not None and not name.startswith("settings.gradle"):
                unit = self._unit(folder)
                unit.ecosystems.add(ecosystem)
                unit.evidence.append(path)
        for folder in aggregators:
            keep = self._has_code(folder) or (f"{folder}/src/main" if folder else "src/main") in self.folders
            if folder in self.units and not keep:
                del self.units[folder]
        for folder in members:
            unit = self._unit(folder)
            unit.member = True
            if not unit.evidence:
                unit.evidence.append(f"{folder}: a member of a multi-project build")
        for path in self.held.role(_DOCKERFILES):
            name = path.rsplit("/", 1)[-1]
            folder = _parent(path)
            if _DOCKERFILE.match(name) and folder and (self._has_code(folder) or folder in self.units):
                unit = self._unit(folder)
                unit.ecosystems.add("docker")
                unit.evidence.append(f"{path}: a Dockerfile")
                unit.deployed = True
                unit.names.append((_RANK["dockerfile"], ""))
        # nested manifests of the same build stay part of the unit around them
        for folder in sorted(self.units, key=len):
            unit = self.units.get(folder)
            if unit is None or unit.member:
                continue
            outer = self._owner(folder, exclude=folder)
            if outer is None:
                continue
            same = not (unit.ecosystems - {"make", "docker"}) or unit.ecosystems - {"docker"} <= outer.ecosystems
            bundled = any(part.lower() in _BUNDLED for part in folder[len(outer.folder):].split("/"))
            if (same and not (unit.deployed and "docker" in unit.ecosystems)) or _is_test(folder) or bundled:
                del self.units[folder]

    def _owner(self, path: str, exclude: str | None = None) -> _Unit | None:
        best = None
        for folder, unit in self.units.items():
            if folder != exclude and _within(path, folder) and (best is None or len(folder) > len(best.folder)):
                best = unit
        return best

    # -- 2. deployments ---------------------------------------------------------------------------

    def _read_deployments(self) -> tuple[list, list, list]:
        composes, workloads, aspire = [], [], []
        for path in self.held.role(_DEPLOYMENTS):
            name = path.rsplit("/", 1)[-1]
            folder = _parent(path)
            if deploy.is_compose_name(name):
                text = self.reader.text(path)
                if text is None:
                    continue
                services, problem = deploy.compose(text)
                self._problem(path, problem)
                composes += [(path, folder, service) for service in services]
            elif deploy.is_skaffold_name(name):
                text = self.reader.text(path)
                if text is None:
                    continue
                artifacts, problem = deploy.skaffold(text)
                self._problem(path, problem)
                for artifact in artifacts:
                    target = _join(folder, artifact.context)
                    inner = artifact.project or (_parent(artifact.dockerfile) if "/" in artifact.dockerfile else "")
                    if target is not None and inner and _join(target, inner) in self.folders:
                        target = _join(target, inner)
                    if target is None or target not in self.folders:
                        self.warnings.append(ManifestWarning(path, artifact.line, f"artifact {artifact.image}: context "
                                                     f"{artifact.context!r} is not a folder of the workspace"))
                        continue
                    self.images.setdefault(_image_key(artifact.image)[0], target)
                    self._deploy(target, "skaffold", _image_key(artifact.image)[1], f"{path}:{artifact.line}: "
                                 f"skaffold artifact {artifact.image}")  # fmt: skip
            elif name.endswith(_YAML) and not path.startswith(".") and "/." not in path:
                text = self.reader.text(path)
                if text is None:
                    continue
                chart = self._chart_of(path)
                if chart is not None:
                    self._read_chart(chart, path, name, text)
                if "kind:" not in text or "apiVersion" not in text:
                    continue
                objects, problem = deploy.kubernetes_objects(text)
                found = objects.workloads
                if found or "\nkind:" in text:
                    self._problem(path, problem)
                workloads += [(path, workload) for workload in found]
                if objects.workloads or objects.services or objects.config_maps:
                    self.kube.append((path, objects))
            elif name.endswith(".cs") and ("AppHost" in path or name == "Program.cs"):
                text = self.reader.text(path)
                if text is not None:
                    aspire += [(path, resource) for resource in deploy.aspire(text)]
                    wiring = deploy.aspire_wiring(text)
                    if wiring.links or wiring.parents:
                        self.aspire_wiring.append((path, wiring))
        return composes, workloads, aspire

    def _chart_of(self, path: str) -> str | None:
        """The Helm chart folder ``path`` belongs to as its ``Chart.yaml``, its ``values.yaml`` or a
        template (None when it is none of these)."""
        folder, name = _parent(path), path.rsplit("/", 1)[-1]
        if name in ("Chart.yaml", "values.yaml", "values.yml"):
            return folder if "Chart.yaml" in self.files_in.get(folder, ()) else None
        parts = path.split("/")
        for index in range(len(parts) - 2, -1, -1):
            if parts[index] == "templates":
                chart = "/".join(parts[:index])
                if "Chart.yaml" in self.files_in.get(chart, ()):
                    return chart
        return None

    def _read_chart(self, chart: str, path: str, name: str, text: str) -> None:
        entry = self.charts.setdefault(chart, {"name": "", "dependencies": [], "values": {}, "env": []})
        if name == "Chart.yaml":
            chart_name, entry["dependencies"], problem = deploy.helm_chart(text)
            entry["name"] = chart_name
            self._problem(path, problem)
        elif name in ("values.yaml", "values.yml"):
            entry["values"], problem = _values(text, path)
            self._problem(path, problem)
        elif "{{" in text:
            entry["env"] += [(path, env) for env in deploy.helm_env(text)]

    def _problem(self, path: str, problem: str) -> None:
        if problem:
            match = re.match(r"line (\d+): (.*)", problem)
            line, message = (int(match[1]), match[2]) if match else (1, problem)
            warning = ManifestWarning(path, line, f"cannot be read as YAML: {message}")
            if warning not in self.warnings:  # a chart's values file may be read as a manifest too
                self.warnings.append(warning)

    def _deploy(self, folder: str, source: str, name: str, evidence: str, entrypoint: str = "") -> str:
        """Make the unit in ``folder`` (or its program an entrypoint names) deployed; its folder."""
        target = self._program_for(folder, entrypoint) if entrypoint else None
        unit = self._unit(target if target is not None else folder)
        unit.deployed = True
        unit.names.append((_RANK[source], name))
        unit.evidence.append(evidence)
        return unit.folder

    def _program_for(self, folder: str, entrypoint: str) -> str | None:
        """The program folder inside ``folder`` that an entrypoint names (``emojivoto-vote-bot`` ->
        ``cmd/vote-bot``), if exactly one does."""
        candidates = [
            program
            for programs in self.programs.values()
            for program in programs
            if _within(program, folder) and program != folder
            and (entrypoint == (base := program.rsplit("/", 1)[-1]) or entrypoint.endswith(("-" + base, "_" + base)))
        ]  # fmt: skip
        return candidates[0] if len(candidates) == 1 else None

    def _tie_image(self, image: str) -> str | None:
        """The folder whose build produces ``image``."""
        repository, short = _image_key(image)
        if not image or "$" in repository or "{" in repository:
            return None
        if repository in self.images:
            return self.images[repository]
        for built, folder in sorted(self.images.items()):
            if _image_key(built)[1] == short:
                return folder
        candidates = sorted(f for f in self.units if (f.rsplit("/", 1)[-1] if f else self.root_name) == short)
        if len(candidates) == 1:
            return candidates[0]
        named = sorted(
            (f.count("/"), f) for f in self.folders
            if f and f.rsplit("/", 1)[-1] == short and not f.startswith(".")
            and (f in self.units or self._owner(f) is None or self._owner(f).folder == "")
        )  # fmt: skip
        if named and (len(named) == 1 or named[0][0] < named[1][0]):
            return named[0][1]
        suffixed = [f for f in self.units if f and short.endswith(("-" + f.rsplit("/", 1)[-1], "_" + f.rsplit("/", 1)[-1]))]
        return suffixed[0] if len(suffixed) == 1 else None

    def _apply_deployments(self, composes: list, workloads: list, aspire: list) -> None:
        pending = []
        for path, folder, service in composes:
            where = f"{path}:{service.line}"
            if service.context is not None:
                context = _join(folder, service.context)
                if context is None or context not in self.folders:
                    self.warnings.append(ManifestWarning(path, service.line, f"service {service.name}: build context "
                                                 f"{service.context!r} is not a folder of the workspace"))  # fmt: skip
                    continue
                target = context
                if "/" in service.dockerfile:
                    inner = _join(context, _parent(service.dockerfile))
                    target = inner if inner is not None and inner in self.folders else context
                if service.image:
                    self.images.setdefault(_image_key(service.image)[0], target)
                landed = self._deploy(target, "compose", service.name, f"{where}: Compose service {service.name} "
                                      f"builds {target or '.'}", service.entrypoint)  # fmt: skip
                self.targets[(where, service.name)] = ("folder", landed)
            else:
                pending.append(("compose", "", where, service.name, (service.image,), (service.entrypoint,)))
        for path, workload in workloads:
            pending.append(("kubernetes", workload.kind, f"{path}:{workload.line}", workload.name, workload.images,
                            workload.entrypoints or ("",)))  # fmt: skip
        projects = {}
        for path in self.held.role(_PROJECTS):
            if path.endswith(".csproj"):
                stem = path.rsplit("/", 1)[-1][: -len(".csproj")]
                projects[re.sub(r"[.\-]", "_", stem)] = _parent(path)
        for path, resource in aspire:
            where = f"{path}:{resource.line}"
            if resource.kind == "project":
                folder = projects.get(resource.target)
                if folder is not None:
                    landed = self._deploy(folder, "aspire", resource.name, f"{where}: Aspire project {resource.name}")
                    self.targets[(path, resource.name)] = ("folder", landed)
            else:
                what = resource.target or resource.kind
                self._external(resource.name, what, f"{where}: Aspire {resource.kind} {resource.name}")
                self.targets[(path, resource.name)] = ("external", resource.name)
        for source, kind, where, name, images, entrypoints in pending:
            tied = [(folder, image) for image in images if image and (folder := self._tie_image(image)) is not None]
            if tied:
                folder, image = tied[0]
                landed = self._deploy(folder, source, name, f"{where}: {_TITLE[source]} {name} runs image {image}",
                                      entrypoints[0] if entrypoints else "")  # fmt: skip
                self.targets[(where, name)] = ("folder", landed)
            elif images and any(images) and kind not in ("Job", "CronJob", "Pod"):
                image = next(i for i in images if i)
                if "$" in _image_key(image)[0] or "{" in image:
                    continue
                self._external(name, image, f"{where}: {_TITLE[source]} {name}, image {image}")
                self.targets[(where, name)] = ("external", name)

    def _external(self, name: str, what: str, evidence: str) -> None:
        known = self.externals.get(name)
        if known is None:
            self.externals[name] = External(name, what, (evidence,))
        elif evidence not in known.evidence:
            self.externals[name] = attrs.evolve(known, evidence=(*known.evidence, evidence))

    # -- 3. Go programs ---------------------------------------------------------------------------

    def _find_programs(self) -> None:
        modules = [_parent(p) for p in self.held.role(_GO_MODULES)]
        if not modules:
            return
        found: dict[str, set[str]] = defaultdict(set)
        for folder in self.held.program_folders(self.reader.raw):
            module = max((m for m in modules if _within(folder, m)), key=len, default=None)
            if module is not None:
                found[module].add(folder)
        self.programs = {module: sorted(folders) for module, folders in found.items()}

    def _split_go_modules(self) -> None:
        for module, programs in self.programs.items():
            unit = self.units.get(module)
            if unit is None or unit.deployed:
                continue
            free = [p for p in programs if not any(u.deployed and _within(p, f) for f, u in self.units.items() if f != module)]
            if len(free) < 2:
                continue
            for program in free:
                split = self._unit(program)
                split.kind = "tool"
                split.ecosystems.add("go")
                split.evidence.append(f"{program}: a Go program (package main) of the module in {module or '.'}")
            packages = [folder for folder in self.held.go_folders() if _within(folder, module)]
            for folder in packages:
                if folder == module or self._owner(folder, exclude=module) is not None:
                    continue
                if not any(_within(folder, other) for other in self.units if other != module):
                    library = self._unit(folder)
                    library.ecosystems.add("go")
                    library.evidence.append(f"{folder}: a Go package of the module in {module or '.'}")
            if not self._has_code(module) or module == "":
                del self.units[module]

    # -- 4. tests, root, dot-folders ----------------------------------------------------------------

    def _attach_tests(self) -> None:
        references: dict[str, list[str]] = {}
        for path in self.held.role(_PROJECTS):
            if path.endswith(".csproj"):
                text = self.reader.text(path)
                refs = deploy.project_references(text) if text else []
                references[_parent(path)] = [r for ref in refs if (r := _join(_parent(path), _parent(ref))) is not None]
        for folder in sorted(self.units):
            unit = self.units.get(folder)
            if unit is None or not _is_test(folder) or any(rank < _RANK["dockerfile"] for rank, _ in unit.names):
                continue
            owner = self._tested_by(folder, references.get(folder, []))
            del self.units[folder]
            if owner is not None:
                owner.extra.append(folder)
                owner.evidence.append(f"{folder}: its tests")

    def _tested_by(self, folder: str, refs: list[str]) -> _Unit | None:
        referenced = [self.units[r] for r in refs if r in self.units and r != folder]
        preferred = [u for u in referenced if u.deployed or u.kind == "tool"] or referenced
        if len(preferred) == 1:
            return preferred[0]
        base = re.sub(_TEST_FOLDER, "", folder.rsplit("/", 1)[-1]).rstrip("._-").lower()
        if not base:
            return None
        candidates = [
            u for f, u in self.units.items()
            if f != folder and (f.rsplit("/", 1)[-1].lower() == base
                                or re.match(re.escape(base) + r"[._-]", f.rsplit("/", 1)[-1].lower()))
        ]  # fmt: skip
        pick = [u for u in candidates if u in preferred] or candidates
        return pick[0] if len(pick) == 1 else None

    def _add_git_repositories(self) -> None:
        """A git repository holding no unit and in none is a unit of its own."""
        for folder in self.held.git_repositories():
            if self._owner(folder) is None and not any(_within(f, folder) for f in self.units):
                unit = self._unit(folder)
                unit.git = True
                unit.evidence.append(f"{folder}/.git: a git repository")

    def _top_level_code_folders(self) -> None:
        """With no evidence of any unit, each top-level folder holding code is a service (a workspace
        of plain folders of scripts); folders of docs, protos or config alone stay areas."""
        tops = sorted({p.split("/", 1)[0] for p in self.paths if "/" in p and _is_code(p) and not p.startswith(".")})
        for top in tops:
            unit = self._unit(top)
            unit.folder_only = True
            unit.evidence.append(f"{top}: a top-level folder holding code (no build or deployment manifest anywhere)")

    def _prune(self) -> None:
        for folder in list(self.units):
            if folder.startswith(".") or "/." in folder:
                del self.units[folder]
        root = self.units.get("")
        if root is not None and not root.deployed and len(self.units) > 1 and not self._root_has_code(root):
            del self.units[""]

    def _root_has_code(self, root: _Unit) -> bool:
        """Code of the root's own build outside every other unit, test folder and dot-folder."""
        languages = {language for ecosystem in root.ecosystems for language in _LANGUAGES.get(ecosystem, ())}
        for path in self.paths:
            folder = _parent(path)
            if not folder or self._owner(path, exclude="") is not None:
                continue
            top = folder.split("/", 1)[0]
            if top.startswith(".") or any(_is_test(part) for part in folder.split("/")):
                continue
            if language_of(path) in languages:
                return True
        return False

    # -- 5. names ---------------------------------------------------------------------------------

    def _names(self) -> dict[str, str]:
        chosen: dict[str, str] = {}
        for folder, unit in self.units.items():
            ranked = sorted({(rank, name) for rank, name in unit.names if name})
            best = [name for rank, name in ranked if rank == ranked[0][0]] if ranked else []
            chosen[folder] = best[0] if len(best) == 1 else self._folder_name(folder)
        counts = Counter(chosen.values())
        return {f: (f if counts[name] > 1 and f else name) for f, name in chosen.items()}

    def _folder_name(self, folder: str) -> str:
        parts = folder.split("/") if folder else []
        while parts and parts[-1].lower() in GENERIC_NAMES:
            parts.pop()
        return parts[-1] if parts else self.root_name

    # -------------------------------------------------------------------------------------------

    def run(self, named: bool) -> Discovery:
        self._build_units()
        self._find_programs()
        composes, workloads, aspire = self._read_deployments()
        self._apply_deployments(composes, workloads, aspire)
        wiring, hosts = _Wirer(self, composes).run()
        if named:
            return Discovery((), tuple(sorted(self.externals.values(), key=lambda e: e.name)),
                             tuple(sorted(self.warnings, key=lambda w: (w.path, w.line, w.message))),
                             wiring, hosts)  # fmt: skip
        self._split_go_modules()
        self._attach_tests()
        self._add_git_repositories()
        self._prune()
        if not self.units:
            self._top_level_code_folders()
        names = self._names()
        units = []
        for folder, unit in sorted(self.units.items()):
            kind = "deployed" if unit.deployed else unit.kind
            evidence = tuple(sorted(dict.fromkeys(unit.evidence), key=_evidence_rank))
            origin = (
                "git" if unit.git else "folder" if unit.folder_only else "root" if not folder
                else "deployment" if unit.deployed else "manifest"
            )  # fmt: skip
            units.append((names[folder], folder, origin, kind, evidence, tuple(sorted(unit.extra))))
        built = {folder for _, folder, *_ in units}
        externals = [e for e in self.externals.values() if e.name not in {name for name, *_ in units} or not built]
        return Discovery(
            tuple(units),
            tuple(sorted(externals, key=lambda e: e.name)),
            tuple(sorted(self.warnings, key=lambda w: (w.path, w.line, w.message))),
            wiring,
            hosts,
        )


# -- 6. wiring -------------------------------------------------------------------------------------

#: Host names a Kubernetes Service answers to besides its name (``{0}`` name, ``{1}`` namespace).
_SERVICE_DNS: Final = ("{0}.{1}", "{0}.{1}.svc", "{0}.{1}.svc.cluster.local")
#: Values of a Helm chart read (keys), and variables a deployment may set in all.
_VALUES_MAX: Final = 5000
_WIRING_MAX: Final = 50_000


def _values(text: str, path: str) -> tuple[dict[str, tuple[str, str, int]], str]:
    """The scalar leaves of a Helm ``values.yaml`` (dotted key -> (value, file, line)) and a problem."""
    docs, problem = read_yaml_nodes(text)
    found: dict[str, tuple[str, str, int]] = {}
    stack = [(docs[0], "", 0)] if docs else []
    visited = 0
    while stack and visited < _VALUES_MAX * 4 and len(found) < _VALUES_MAX:
        node, prefix, depth = stack.pop()
        visited += 1
        for key, line, child in reversed(yaml_pairs(node)):
            dotted = f"{prefix}.{key}" if prefix else key
            value = scalar(child)
            if value is not None:
                found.setdefault(dotted, (value, path, line))
            elif depth < 32:
                stack.append((child, dotted, depth + 1))
    return found, problem


class _Wirer:
    """Step 6: the wiring and host names of every deployment the discoverer read."""

    def __init__(self, discoverer: _Discoverer, composes: list) -> None:
        self.d = discoverer
        self.composes = composes
        self.wiring: list[tuple[Target, str, str, str, str, int]] = []
        self.hosts: list[tuple[str, Target]] = []
        self.dotenvs: dict[str, dict[str, str]] = {}

    def run(self) -> tuple[tuple, tuple]:
        self._compose()
        self._kubernetes()
        self._helm()
        self._aspire()
        wiring = sorted(set(self.wiring[:_WIRING_MAX]), key=lambda w: (w[0], w[1], w[2], w[3], w[4], w[5]))
        hosts = sorted({(host.lower().rstrip("."), target) for host, target in self.hosts if host.strip()})
        return tuple(wiring), tuple(hosts)

    def _wire(self, target: Target | None, var: str, value: str, file: str, line: int) -> None:
        """Wire ``var`` of the deployment landing on ``target`` when ``value`` names hosts."""
        if target is None or target[0] != "folder" or not var or listening(var):
            return  # an external's own environment wires nothing of the workspace, nor a listening address
        for host, path in addresses(value, bare=host_named(var), single=connection_string_name(var)):
            self.wiring.append((target, var, host, path, file, line))

    # -- Compose -----------------------------------------------------------------------------------

    def _dotenv(self, folder: str, name: str = ".env") -> dict[str, str]:
        """The variables of a dotenv file (the ``.env`` beside a Compose file, an ``env_file``); read
        only for interpolation and wiring, through the workspace's reader, never indexed nor shown."""
        path = _join(folder, name)
        if path is None:
            return {}
        if path not in self.dotenvs:
            data = self.d.reader.raw(path)
            readable = data is not None and b"\x00" not in data[:4096]
            text = data[: deploy.DOTENV_BYTES_MAX].decode("utf-8", "replace") if readable else ""
            self.dotenvs[path] = {name: value for name, value, _ in deploy.dotenv(text)}
        return self.dotenvs[path]

    def _compose(self) -> None:
        targets = self.d.targets
        by_name: dict[str, list[tuple[str, Target]]] = defaultdict(list)
        for path, folder, service in self.composes:
            target = targets.get((f"{path}:{service.line}", service.name))
            if target is not None:
                by_name[service.name].append((folder, target))
        for path, folder, service in self.composes:
            target = targets.get((f"{path}:{service.line}", service.name))
            target = target or _same_service(by_name, folder, service.name)
            for linked, alias in service.links:
                reached = _same_service(by_name, folder, linked)
                if reached is not None:
                    self.hosts.append((alias, reached))
            if target is None:
                continue
            self.hosts += [(host, target) for host in (service.name, *service.aliases)]
            env = self._dotenv(folder)
            written = {entry.name for entry in service.env}
            for entry in service.env:
                self._wire(target, entry.name, deploy.interpolate(entry.value, env), path, entry.line)
            for env_file, line in service.env_files:
                for name, value in self._dotenv(folder, env_file).items():
                    if name not in written:  # ``environment`` wins over ``env_file``
                        self._wire(target, name, deploy.interpolate(value, env), path, line)

    # -- Kubernetes --------------------------------------------------------------------------------

    def _kubernetes(self) -> None:
        config_maps: dict[str, list[tuple[str, deploy.ConfigMap]]] = defaultdict(list)
        workloads = []
        for path, objects in self.d.kube:
            for config_map in objects.config_maps:
                config_maps[config_map.name].append((path, config_map))
            for workload in objects.workloads:
                target = self.d.targets.get((f"{path}:{workload.line}", workload.name))
                if target is not None:
                    workloads.append((path, workload, target))
                    self.hosts.append((workload.name, target))

        def maps(name: str, namespace: str, near: str) -> list[tuple[str, deploy.ConfigMap]]:
            """The ConfigMaps ``name`` may mean, nearest to the manifest ``near`` first (a copy of the
            manifests for another environment defines its own)."""
            found = [(p, m) for p, m in config_maps.get(name, []) if _namespaces_meet(namespace, m.namespace)]
            closeness = [_shared(_parent(p), _parent(near)) for p, _ in found]
            best = max(closeness, default=0)
            return [entry for entry, close in zip(found, closeness) if close == best]

        for path, workload, target in workloads:
            known: dict[str, str] = {}
            for entry in workload.env:
                if entry.config_map:
                    for map_path, config_map in maps(entry.config_map, workload.namespace, path):
                        for data in config_map.data:
                            if data.name == entry.key:
                                self._wire(target, entry.name, data.value, map_path, data.line)
                    continue
                value = re.sub(r"\$\(([A-Za-z_][\w.-]*)\)", lambda m: known.get(m[1], deploy.UNKNOWN), entry.value)
                known[entry.name] = value
                self._wire(target, entry.name, value, path, entry.line)
            for name, prefix, _ in workload.env_from:
                for map_path, config_map in maps(name, workload.namespace, path):
                    for data in config_map.data:
                        self._wire(target, prefix + data.name, data.value, map_path, data.line)
        for path, objects in self.d.kube:
            for service in objects.services:
                selector = set(service.selector)
                if not selector:
                    continue
                reached = [target for _, workload, target in workloads if selector <= set(workload.labels)
                           and _namespaces_meet(service.namespace, workload.namespace)]  # fmt: skip
                namespace = service.namespace or "default"
                for target in dict.fromkeys(reached):
                    self.hosts.append((service.name, target))
                    self.hosts += [(form.format(service.name, namespace), target) for form in _SERVICE_DNS]

    # -- Helm --------------------------------------------------------------------------------------

    def _helm(self) -> None:
        charts = self.d.charts
        overlays: dict[str, list[tuple[str, dict]]] = defaultdict(list)  # subchart -> [(alias, parent values)]
        for folder, chart in sorted(charts.items()):
            for alias, relative in chart["dependencies"]:
                sub = _join(folder, relative)
                if sub is not None and sub in charts:
                    overlays[sub].append((alias, chart["values"]))
        for folder, chart in sorted(charts.items()):
            values = dict(chart["values"])
            for alias, parent in overlays.get(folder, []):
                for key, entry in parent.items():
                    if key.startswith(alias + "."):
                        values[key[len(alias) + 1 :]] = entry
                    elif key.startswith("global."):
                        values[key] = entry
            target = self._chart_target(folder, chart, values)
            override = values.get("fullnameOverride")
            if override and override[0].strip():
                self.hosts.append((override[0].strip(), target))
            for template, env in chart["env"]:
                value = values.get(env.values_key)
                if value is not None:
                    self._wire(target, env.name, value[0], value[1], value[2])
                elif env.default:
                    self._wire(target, env.name, env.default, template, env.line)

    def _chart_target(self, folder: str, chart: dict, values: dict) -> Target:
        """Where a chart's deployment lands: the folder its image is built in, else the unit holding
        the chart, else the folder its name ties to, else the chart's folder itself."""
        repository = values.get("image.repository")
        if repository and (tied := self.d._tie_image(repository[0])) is not None:
            return ("folder", tied)
        owner = self.d._owner(folder)
        if owner is not None and owner.folder:
            return ("folder", owner.folder)
        if chart["name"] and (tied := self.d._tie_image(chart["name"])) is not None:
            return ("folder", tied)
        return ("folder", folder)

    # -- Aspire ------------------------------------------------------------------------------------

    def _aspire(self) -> None:
        for path, wiring in self.d.aspire_wiring:
            target_of = {name: target for (where, name), target in self.d.targets.items() if where == path}
            for name, target in target_of.items():
                self.hosts.append((name, target))
            for child, parent in wiring.parents:
                if parent in target_of:
                    self.hosts.append((child, target_of[parent]))
            for link in wiring.links:
                source = target_of.get(link.source)
                if link.target:
                    if source is not None and source[0] == "folder":
                        self.wiring.append((source, link.var, link.target.lower(), "", path, link.line))
                elif link.value:
                    self._wire(source, link.var, link.value, path, link.line)


def _namespaces_meet(a: str, b: str) -> bool:
    """Two objects may meet: same namespace, or one of them names none (applied where the other is)."""
    return not a or not b or a == b


def _shared(a: str, b: str) -> int:
    """How many leading folders two folders share."""
    count = 0
    for x, y in zip(a.split("/") if a else [], b.split("/") if b else []):
        if x != y:
            break
        count += 1
    return count


def _same_service(by_name: dict[str, list[tuple[str, Target]]], folder: str, name: str) -> Target | None:
    """Where the Compose service ``name`` lands, as another Compose file defines it (an override file
    names a service without building it): the one beside ``folder`` first, else the only one."""
    found = by_name.get(name, [])
    beside = [target for where, target in found if where == folder]
    if beside:
        return beside[0]
    distinct = list(dict.fromkeys(target for _, target in found))
    return distinct[0] if len(distinct) == 1 else None


def link_workspace(found: Discovery, service_of: Callable[[str], str], service_paths: Iterable[str]
                   ) -> tuple[tuple[Wiring, ...], tuple[tuple[str, str], ...]]:  # fmt: skip
    """The wiring and host names of a discovery, each folder a deployment lands in turned into the
    service holding it (the one service inside it when none holds it), externals kept by name;
    what reaches no service is dropped. Sorted, deterministic."""
    paths = sorted(set(service_paths))

    def name_of(target: Target) -> str:
        kind, value = target
        if kind == "external":
            return value
        held = service_of(value)
        if held or any(p == "" for p in paths):
            return held
        inside = [p for p in paths if _within(p, value)]
        return service_of(inside[0]) if len(inside) == 1 else ""

    wiring = set()
    for target, var, host, path, file, line in found.wiring:
        if target[0] != "folder":
            continue
        service = name_of(target)
        if service:
            wiring.add(Wiring(service, var, host, path, file, line))
    hosts = {(host, name) for host, target in found.hosts if (name := name_of(target))}
    ordered = sorted(wiring, key=lambda w: (w.service, w.var, w.host, w.path, w.file, w.line))
    return tuple(ordered), tuple(sorted(hosts))


_LANGUAGES: Final = {
    "go": ("go",), "npm": ("javascript", "typescript", "tsx"), "python": ("python",), "jvm": ("java", "kotlin"),
    "dotnet": ("csharp",), "rust": ("rust",), "ruby": ("ruby",), "php": ("php",), "cpp": ("cpp",),
}  # fmt: skip
_TITLE: Final = {"compose": "Compose service", "kubernetes": "Kubernetes workload", "skaffold": "skaffold artifact"}


def _evidence_rank(evidence: str) -> int:
    """Deployments first, then Dockerfiles, then build manifests and the rest (stable otherwise)."""
    if any(word in evidence for word in ("Compose service", "Kubernetes workload", "skaffold artifact", "Aspire")):
        return 0
    return 1 if "Dockerfile" in evidence else 2


def _is_code(path: str) -> bool:
    return language_of(path) not in (None, "markdown", "proto")


def _is_test(folder: str) -> bool:
    return bool(_TEST_FOLDER.search(folder.rsplit("/", 1)[-1]))


def _glob_match(folder: str, pattern: str) -> bool:
    regex = "^" + re.escape(pattern).replace(r"\*\*", ".*").replace(r"\*", "[^/]*") + "$"
    return bool(re.match(regex, folder))


def areas_of(folders: Iterable[str], service_folders: Iterable[str]) -> list[Area]:
    """The outermost folders that neither hold nor lie in a service folder, with a reason each."""
    services = set(service_folders)
    if "" in services:
        return []
    holding = _holding(services)
    return [Area(folder, _area_reason(folder)) for folder in sorted(set(folders)) if _is_area(folder, services, holding)]


def areas_moved(
    areas: Iterable[Area], paths: Iterable[str], service_folders: Iterable[str], holds: Callable[[str], bool]
) -> list[Area]:
    """The areas after files came or went at ``paths`` (the services as they were): each folder above
    one of them (or the path itself, a folder) that :func:`areas_of` would take is an area exactly
    when ``holds(folder)``, a file lying under it now; the other areas stand."""
    services = set(service_folders)
    if "" in services:
        return []
    holding = _holding(services)
    found = {area.path: area for area in areas}
    for path in sorted(set(paths)):
        for folder in (path, *_ancestors(path)):
            if not _is_area(folder, services, holding):
                continue
            if holds(folder):
                found.setdefault(folder, Area(folder, _area_reason(folder)))
            else:
                found.pop(folder, None)
    return [found[folder] for folder in sorted(found)]


def _holding(services: set[str]) -> set[str]:
    """The service folders and every folder above one (those a service lies within)."""
    holding: set[str] = set()
    for service in services:
        while service and service not in holding:
            holding.add(service)
            service = _parent(service)
    return holding


def _is_area(folder: str, services: set[str], holding: set[str]) -> bool:
    """Whether ``folder``, if it holds files, is an area: outermost (its parent is the root or holds
    a service), holding no service itself and lying in none."""
    if not folder:
        return False
    parent = _parent(folder)
    if parent and parent not in holding:
        return False  # no service below its parent: the area is the parent's (or further up)
    if folder in holding:
        return False  # it is a service's folder, or holds one
    return not any(ancestor in services for ancestor in _ancestors(folder))  # else it lies within a service


def _ancestors(folder: str) -> Iterator[str]:
    """The folders above ``folder``, innermost first (the workspace's root, "", not among them)."""
    while "/" in folder:
        folder = folder.rsplit("/", 1)[0]
        yield folder


def _area_reason(folder: str) -> str:
    name = folder.rsplit("/", 1)[-1].lower()
    if name in {"docs", "doc", "documentation", "img", "images", "assets", "site"}:
        return "docs"
    if name in {".github", ".circleci", ".gitlab", ".buildkite", "ci", ".ci", ".devcontainer", "scripts", "build"}:
        return "ci"
    if name in {"terraform", "iac", "infra", "infrastructure", "pulumi", "ansible", "cdk"}:
        return "infrastructure"
    if name in {"kubernetes-manifests", "k8s", "kubernetes", "kustomize", "helm", "helm-chart", "charts", "deploy",
                "deployment", "deployments", "manifests", "release", "istio-manifests"}:  # fmt: skip
        return "manifests"
    if "proto" in name:
        return "protos"
    if _is_test(name):
        return "tests"
    return "other"
