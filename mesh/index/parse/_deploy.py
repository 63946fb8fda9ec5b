"""Deployment and build-layout manifests: what they say about which folders are services.

Theory of operation
-------------------
Each reader takes a manifest's text and returns plain values, never raising: a manifest that does
not parse gives what could be read and a problem naming the line. Nothing is executed or fetched.

- Compose (``compose*.y*ml``, ``docker-compose*.y*ml``): each service's name, build context and
  Dockerfile, image, entrypoint/command.
- Kubernetes (any YAML with ``apiVersion`` and ``kind``): workloads (Deployment, StatefulSet,
  DaemonSet, Job, CronJob, Pod...) with their names, container images and commands. Helm templates
  (``{{ ... }}``) are not YAML and are passed over quietly.
- skaffold (``skaffold*.y*ml``): build artifacts, image to context folder.
- .NET Aspire app hosts (C#): ``AddProject<Projects.X>("name")`` and the infrastructure they add.
- Multi-project builds: Gradle ``settings.gradle`` includes, Maven ``<modules>``, npm workspaces,
  Cargo ``[workspace]``, ``go.work``, solution files; MSBuild ``ProjectReference``.

YAML is read with PyYAML's safe loader (no tags, no code); files are bounded by the walk's size cap
and the readers look only at the keys they need, so aliases cannot make them walk without end.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any, Final

import attrs
import yaml

__all__ = [
    "Artifact",
    "AspireResource",
    "ComposeService",
    "Workload",
    "aspire",
    "compose",
    "is_compose_name",
    "is_skaffold_name",
    "kubernetes",
    "layout_members",
    "project_references",
    "skaffold",
]

class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader, reading unknown tags (Compose's ``!reset``, ``!override``; CloudFormation's
    ``!Ref``) as the plain value they tag."""


def _untagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(node)


_Loader.add_multi_constructor("!", _untagged)
_LOADER: Final = _Loader
_WORKLOADS: Final = frozenset(
    {"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "Pod", "ReplicaSet", "Rollout", "DeploymentConfig"}
)
_COMPOSE_NAME: Final = re.compile(r"^(docker-)?compose([.-][\w.-]+)?\.ya?ml$")
_SKAFFOLD_NAME: Final = re.compile(r"^skaffold([.-][\w.-]+)?\.ya?ml$")


@attrs.frozen
class ComposeService:
    name: str
    line: int
    #: Build context relative to the Compose file's folder ("" when the service is not built here).
    context: str | None = None
    dockerfile: str = ""
    image: str = ""
    #: First word of the entrypoint or command, when one is given.
    entrypoint: str = ""


@attrs.frozen
class Workload:
    kind: str
    name: str
    line: int
    images: tuple[str, ...] = ()
    entrypoints: tuple[str, ...] = ()


@attrs.frozen
class Artifact:
    image: str
    context: str
    dockerfile: str
    line: int
    #: A Jib or Buildpacks project folder inside the context ("" when none).
    project: str = ""


@attrs.frozen
class AspireResource:
    #: "project" (``AddProject<Projects.X>``), or the infrastructure added: "redis", "rabbitmq"...
    kind: str
    name: str
    line: int
    #: For a project, the generated identifier (``Basket_API``); for a container, its image.
    target: str = ""


def is_compose_name(name: str) -> bool:
    return bool(_COMPOSE_NAME.match(name))


def is_skaffold_name(name: str) -> bool:
    return bool(_SKAFFOLD_NAME.match(name))


def _documents(text: str) -> tuple[list[Any], str]:
    """Every YAML document of ``text`` that loaded, and the first problem ("" when none)."""
    docs: list[Any] = []
    try:
        for doc in yaml.load_all(text, Loader=_LOADER):
            docs.append(doc)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        return docs, f"{where}{getattr(exc, 'problem', None) or type(exc).__name__}"
    except (RecursionError, ValueError, TypeError, OverflowError) as exc:
        return docs, f"cannot be read: {type(exc).__name__}"
    return docs, ""


def _line_of(text: str, key: str, start: int = 0) -> int:
    """The 1-based line where ``key:`` is first written at or after character ``start`` (1 when never)."""
    match = re.compile(rf"^[ \t]*-?[ \t]*[\"']?{re.escape(key)}[\"']?[ \t]*:", re.M).search(text, start)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def _first_word(value: Any) -> str:
    if isinstance(value, list) and value:
        value = value[0]
    if isinstance(value, str) and value.strip():
        return value.split()[0].rsplit("/", 1)[-1]
    return ""


def compose(text: str) -> tuple[list[ComposeService], str]:
    """The services of a Compose file and a problem ("" when none)."""
    docs, problem = _documents(text)
    services = docs[0].get("services") if docs and isinstance(docs[0], dict) else None
    if not isinstance(services, dict):
        included = docs and isinstance(docs[0], dict) and "include" in docs[0]
        return [], problem or ("" if not docs or included else "no services")
    block = re.search(r"^services[ \t]*:", text, re.M)
    found = []
    for name, spec in services.items():
        if not isinstance(name, str) or not isinstance(spec, dict):
            continue
        build = spec.get("build")
        context, dockerfile = None, ""
        if isinstance(build, str):
            context = build
        elif isinstance(build, dict):
            context = build.get("context", ".") if isinstance(build.get("context", "."), str) else "."
            dockerfile = build.get("dockerfile", "") if isinstance(build.get("dockerfile", ""), str) else ""
        image = spec.get("image", "")
        found.append(
            ComposeService(
                name=name,
                line=_line_of(text, name, block.end() if block else 0),
                context=context,
                dockerfile=dockerfile,
                image=image if isinstance(image, str) else "",
                entrypoint=_first_word(spec.get("entrypoint")) or _first_word(spec.get("command")),
            )
        )
    return found, problem


def kubernetes(text: str) -> tuple[list[Workload], str]:
    """The workloads of a Kubernetes manifest (any number of documents) and a problem."""
    if "{{" in text:  # a Helm or other template: not YAML until rendered
        return [], ""
    docs, problem = _documents(text)
    found = []
    offset = 0
    for doc in docs:
        items = doc.get("items") if isinstance(doc, dict) and doc.get("kind") == "List" else [doc]
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict) or item.get("kind") not in _WORKLOADS:
                continue
            meta = item.get("metadata")
            name = meta.get("name") if isinstance(meta, dict) else None
            if not isinstance(name, str):
                continue
            containers = _containers(item)
            kind_at = re.compile(rf"^kind:[ \t]*{re.escape(item['kind'])}\b", re.M).search(text, offset)
            line = text.count("\n", 0, kind_at.start()) + 1 if kind_at else 1
            if kind_at:
                offset = kind_at.end()
            found.append(
                Workload(
                    kind=item["kind"],
                    name=name,
                    line=line,
                    images=tuple(c["image"] for c in containers if isinstance(c.get("image"), str)),
                    entrypoints=tuple(
                        word for c in containers if (word := _first_word(c.get("command")) or _first_word(c.get("args")))
                    ),
                )
            )
    return found, problem


def _containers(item: dict) -> list[dict]:
    """The containers of a workload (``spec.template.spec``, ``spec.jobTemplate...``, a Pod's ``spec``)."""
    spec = item.get("spec")
    for _ in range(4):  # Pod spec, template spec, jobTemplate spec, its template spec
        if not isinstance(spec, dict):
            return []
        containers = spec.get("containers")
        if isinstance(containers, list):
            return [c for c in containers + list(spec.get("initContainers") or []) if isinstance(c, dict)][:64]
        nested = spec.get("template") or spec.get("jobTemplate")
        spec = nested.get("spec") if isinstance(nested, dict) else None
    return []


def skaffold(text: str) -> tuple[list[Artifact], str]:
    """The build artifacts of a skaffold file (every configuration and profile in it)."""
    docs, problem = _documents(text)
    found: list[Artifact] = []
    seen: set[tuple[str, str]] = set()
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        builds = [doc.get("build")]
        profiles = doc.get("profiles")
        builds += [p.get("build") for p in profiles if isinstance(p, dict)] if isinstance(profiles, list) else []
        for build in builds:
            artifacts = build.get("artifacts") if isinstance(build, dict) else None
            for artifact in artifacts if isinstance(artifacts, list) else []:
                if not isinstance(artifact, dict) or not isinstance(artifact.get("image"), str):
                    continue
                context = artifact.get("context", ".")
                docker = artifact.get("docker")
                dockerfile = docker.get("dockerfile", "") if isinstance(docker, dict) else ""
                key = (artifact["image"], str(context))
                if key in seen or not isinstance(context, str):
                    continue
                seen.add(key)
                dockerfile = dockerfile if isinstance(dockerfile, str) else ""
                jib = artifact.get("jib")
                project = jib.get("project", "") if isinstance(jib, dict) else ""
                project = project if isinstance(project, str) and ":" not in project else ""
                line = _image_line(text, artifact["image"])
                found.append(Artifact(artifact["image"], context, dockerfile, line, project))
    return found, problem


def _image_line(text: str, image: str) -> int:
    match = re.search(rf"image:[ \t]*[\"']?{re.escape(image)}\b", text)
    return text.count("\n", 0, match.start()) + 1 if match else 1


_ASPIRE_PROJECT: Final = re.compile(r"\.AddProject<\s*Projects\.([\w]+)\s*>\s*\(\s*\"([^\"]+)\"")
_ASPIRE_INFRA: Final = re.compile(
    r"\.Add(Redis|RabbitMQ|Postgres|SqlServer|MySql|MongoDB|Kafka|Nats|Elasticsearch|Garnet|Valkey|Qdrant|Milvus"
    r"|Ollama|AzureServiceBus|AzureStorage|AzureCosmosDB|Seq|Keycloak|OpenAI|AzureOpenAI|Oracle|Dapr|Nginx)\w*"
    r"\s*\(\s*\"([^\"]+)\""
)
_ASPIRE_CONTAINER: Final = re.compile(r"\.AddContainer\s*\(\s*\"([^\"]+)\"\s*,\s*\"([^\"]+)\"")


def aspire(text: str) -> list[AspireResource]:
    """The resources a .NET Aspire app host adds (nothing for other C#)."""
    if "DistributedApplication" not in text:
        return []
    line = lambda match: text.count("\n", 0, match.start()) + 1  # noqa: E731
    found = [AspireResource("project", m[2], line(m), m[1]) for m in _ASPIRE_PROJECT.finditer(text)]
    found += [AspireResource(m[1].lower(), m[2], line(m)) for m in _ASPIRE_INFRA.finditer(text)]
    found += [AspireResource("container", m[1], line(m), m[2]) for m in _ASPIRE_CONTAINER.finditer(text)]
    return sorted(found, key=lambda r: (r.line, r.name))


_GRADLE_INCLUDE: Final = re.compile(r"^\s*include\b(.*)$", re.M)
_GRADLE_PROJECT_DIR: Final = re.compile(r"project\(\s*['\"]:?([^'\"]+)['\"]\s*\)\.projectDir\s*=\s*(?:new\s+File|file)\(\s*[^'\"]*['\"]([^'\"]+)['\"]")
_QUOTED: Final = re.compile(r"['\"]([^'\"]+)['\"]")
_MAVEN_MODULE: Final = re.compile(r"<module>\s*([^<\s]+)\s*</module>")
_SLN_PROJECT: Final = re.compile(r"(?:Project\([^)]*\)\s*=\s*\"[^\"]*\",\s*\"|<Project\s+Path=\")([^\"]+\.\w+proj)\"")


def layout_members(name: str, text: str) -> list[str] | None:
    """The member folders (relative, ``/``-separated) a multi-project build file declares, or None
    when the file declares no multi-project build."""
    members: list[str] | None = None
    if name in ("settings.gradle", "settings.gradle.kts"):
        members = []
        for match in _GRADLE_INCLUDE.finditer(text):
            members += [m.strip(":").replace(":", "/") for m in _QUOTED.findall(match[1])]
        renamed = {m[1].replace(":", "/"): m[2] for m in _GRADLE_PROJECT_DIR.finditer(text)}
        members = [renamed.get(member, member) for member in members] or None
    elif name == "pom.xml":
        found = _MAVEN_MODULE.findall(text)
        members = found or None
    elif name == "package.json":
        try:
            data = json.loads(text)
        except ValueError:
            return None
        spaces = data.get("workspaces") if isinstance(data, dict) else None
        if isinstance(spaces, dict):
            spaces = spaces.get("packages")
        if isinstance(spaces, list):
            members = [s for s in spaces if isinstance(s, str)]
    elif name == "Cargo.toml":
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, ValueError):
            return None
        space = data.get("workspace")
        if isinstance(space, dict) and "package" not in data:
            members = [m for m in space.get("members", []) if isinstance(m, str)]
    elif name == "go.work":
        members = re.findall(r"^\s*(?:use\s+)?(\./[^\s)]+|\.)\s*$", text, re.M) or None
    elif name.endswith((".sln", ".slnx")):
        members = [p.replace("\\", "/").rsplit("/", 1)[0] if "/" in p.replace("\\", "/") else "."
                   for p in _SLN_PROJECT.findall(text)]  # fmt: skip
    if members is None:
        return None
    return [m.strip().strip("/").removeprefix("./") for m in members if m.strip() and ".." not in m.split("/")]


_PROJECT_REFERENCE: Final = re.compile(r"<ProjectReference\s+Include=\"([^\"]+)\"", re.I)


def project_references(text: str) -> list[str]:
    """The project files an MSBuild project references, as written (``\\`` made ``/``)."""
    return [ref.replace("\\", "/") for ref in _PROJECT_REFERENCE.findall(text)]
