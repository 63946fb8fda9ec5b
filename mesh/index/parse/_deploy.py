"""Deployment and build-layout manifests: what they say about which folders are services.

Theory of operation
-------------------
Each reader takes a manifest's text and returns plain values, never raising: a manifest that does
not parse gives what could be read and a problem naming the line. Nothing is executed or fetched.

- Compose (``compose*.y*ml``, ``docker-compose*.y*ml``): each service's name, build context and
  Dockerfile, image, entrypoint/command, and what wires it: ``environment`` (list or map form),
  ``env_file`` entries, and its other host names (``container_name``, ``hostname``, network
  aliases, ``links`` aliases).
- Kubernetes (any YAML with ``apiVersion`` and ``kind``): workloads (Deployment, StatefulSet,
  DaemonSet, Job, CronJob, Pod...) with their names, container images and commands, namespace, pod
  labels, ``env`` (values and ``configMapKeyRef``) and ``envFrom`` ConfigMaps; ``Service`` objects
  (name, namespace, selector) and ``ConfigMap`` data. Helm templates (``{{ ... }}``) are not YAML
  and are passed over quietly; :func:`helm_env` reads their ``env`` blocks with regexes instead.
- skaffold (``skaffold*.y*ml``): build artifacts, image to context folder.
- .NET Aspire app hosts (C#): ``AddProject<Projects.X>("name")`` and the infrastructure they add;
  :func:`aspire_wiring` reads ``.WithReference(x)`` and ``.WithEnvironment("NAME", x)``.

Values of environment variables are read here as written and reduced to a host and a path by the
caller; a variable whose name looks secret (:func:`._config.secret_name`) is never read at all, nor
is a ``secretKeyRef`` or a ``secretRef``.
- Multi-project builds: Gradle ``settings.gradle`` includes, Maven ``<modules>``, npm workspaces,
  Cargo ``[workspace]``, ``go.work``, solution files; MSBuild ``ProjectReference``.

YAML is read with PyYAML's safe loader (no tags, no code); files are bounded by the walk's size cap
and the readers look only at the keys they need, so aliases cannot make them walk without end.
"""

from __future__ import annotations

import bisect
import json
import re
import tomllib
from typing import Any, Final

import attrs
import yaml

from ._config import secret_name

__all__ = [
    "Artifact",
    "AspireLink",
    "AspireResource",
    "AspireWiring",
    "ComposeService",
    "ConfigMap",
    "EnvEntry",
    "HelmEnv",
    "KubeObjects",
    "KubeService",
    "Workload",
    "aspire",
    "aspire_wiring",
    "compose",
    "dotenv",
    "helm_chart",
    "helm_env",
    "interpolate",
    "is_compose_name",
    "is_skaffold_name",
    "kubernetes",
    "kubernetes_objects",
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


#: Environment entries read per service or workload, and data keys per ConfigMap.
ENV_MAX: Final = 500


@attrs.frozen
class EnvEntry:
    """An environment variable a deployment sets (or a ConfigMap key)."""

    name: str
    #: The value as written (uninterpolated); "" for a reference. The caller keeps only its host
    #: (and the value is never shown, not even in a repr).
    value: str = attrs.field(repr=False)
    line: int = 0
    #: ``valueFrom.configMapKeyRef``: the ConfigMap's name and key ("" otherwise).
    config_map: str = ""
    key: str = ""


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
    #: ``environment``, in file order, secret-looking names left out.
    env: tuple[EnvEntry, ...] = ()
    #: ``env_file`` paths as written (relative to the Compose file's folder), with their lines.
    env_files: tuple[tuple[str, int], ...] = ()
    #: Other host names: ``container_name``, ``hostname``, ``networks.*.aliases``.
    aliases: tuple[str, ...] = ()
    #: ``links``: (service, the alias it is reached by from this one).
    links: tuple[tuple[str, str], ...] = ()


@attrs.frozen
class Workload:
    kind: str
    name: str
    line: int
    images: tuple[str, ...] = ()
    entrypoints: tuple[str, ...] = ()
    namespace: str = ""
    #: The pod template's labels (what a Service's selector matches), sorted.
    labels: tuple[tuple[str, str], ...] = ()
    #: Every container's ``env``, in file order, secret-looking names and secret references left out.
    env: tuple[EnvEntry, ...] = ()
    #: ``envFrom.configMapRef``: (ConfigMap, prefix, line).
    env_from: tuple[tuple[str, str, int], ...] = ()


@attrs.frozen
class KubeService:
    """A Kubernetes ``Service``: its name (and DNS forms) reach the pods its selector matches."""

    name: str
    namespace: str
    line: int
    selector: tuple[tuple[str, str], ...] = ()


@attrs.frozen
class ConfigMap:
    name: str
    namespace: str
    line: int
    #: The ``data`` keys, secret-looking ones left out.
    data: tuple[EnvEntry, ...] = ()


@attrs.frozen
class KubeObjects:
    workloads: tuple[Workload, ...] = ()
    services: tuple[KubeService, ...] = ()
    config_maps: tuple[ConfigMap, ...] = ()


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
    loaded, problem = _load(text)
    return [doc for doc, _ in loaded], problem


def _load(text: str) -> tuple[list[tuple[Any, yaml.Node | None]], str]:
    """Every YAML document of ``text`` that loaded, as (value, node): one parse gives both the value
    the readers look into and the node tree that knows each key's line."""
    docs: list[tuple[Any, yaml.Node | None]] = []
    loader = _LOADER(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            docs.append((loader.construct_document(node), node))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        return docs, f"{where}{getattr(exc, 'problem', None) or type(exc).__name__}"
    except (RecursionError, ValueError, TypeError, OverflowError) as exc:
        return docs, f"cannot be read: {type(exc).__name__}"
    finally:
        loader.dispose()
    return docs, ""


def _node_pairs(node: Any) -> list[tuple[str, yaml.Node, yaml.Node]]:
    """(key, key node, value node) of a mapping node, merge keys (``<<: *base``) followed one level."""
    if not isinstance(node, yaml.MappingNode):
        return []
    found: list[tuple[str, yaml.Node, yaml.Node]] = []
    for key, value in node.value:
        if key.tag == "tag:yaml.org,2002:merge":
            for base in value.value if isinstance(value, yaml.SequenceNode) else [value]:
                if isinstance(base, yaml.MappingNode):
                    found += [(k.value, k, v) for k, v in base.value if isinstance(k, yaml.ScalarNode)]
        elif isinstance(key, yaml.ScalarNode):
            found.append((key.value, key, value))
    return found


def _node_get(node: Any, *path: str | int) -> Any:
    """The node at ``path`` (mapping keys, sequence indexes) under ``node``; None when absent."""
    for step in path:
        if isinstance(step, int):
            node = node.value[step] if isinstance(node, yaml.SequenceNode) and step < len(node.value) else None
        else:
            node = next((v for k, _, v in reversed(_node_pairs(node)) if k == step), None)
        if node is None:
            return None
    return node


def _scalar(node: Any) -> str | None:
    """A scalar's text as written (None for a null, a mapping or a sequence)."""
    if not isinstance(node, yaml.ScalarNode) or node.tag == "tag:yaml.org,2002:null":
        return None
    return node.value


def _line(node: Any) -> int:
    return node.start_mark.line + 1 if node is not None else 1


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
    loaded, problem = _load(text)
    docs = [doc for doc, _ in loaded]
    services = docs[0].get("services") if docs and isinstance(docs[0], dict) else None
    if not isinstance(services, dict):
        included = docs and isinstance(docs[0], dict) and "include" in docs[0]
        return [], problem or ("" if not docs or included else "no services")
    block = re.search(r"^services[ \t]*:", text, re.M)
    pairs = _node_pairs(_node_get(loaded[0][1], "services"))
    nodes = {key: value for key, _, value in pairs}
    keys = {key: key_node for key, key_node, _ in pairs}  # where each service is named
    found = []
    for name, spec in services.items():
        if not isinstance(name, str) or not isinstance(spec, dict):
            continue
        node = nodes.get(name)
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
                line=_line(keys[name]) if name in keys else _line_of(text, name, block.end() if block else 0),
                context=context,
                dockerfile=dockerfile,
                image=image if isinstance(image, str) else "",
                entrypoint=_first_word(spec.get("entrypoint")) or _first_word(spec.get("command")),
                env=_compose_env(_node_get(node, "environment")),
                env_files=_env_files(_node_get(node, "env_file")),
                aliases=_compose_aliases(spec),
                links=_compose_links(spec.get("links")),
            )
        )
    return found, problem


#: Variables read from a ``.env`` or ``env_file``, and the bytes of it looked at.
DOTENV_MAX: Final = 2000
DOTENV_BYTES_MAX: Final = 64 * 1024
_DOTENV_LINE: Final = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_][\w.-]*)[ \t]*=(.*)$")


def dotenv(text: str) -> list[tuple[str, str, int]]:
    """(name, value, line) of a ``.env`` file as Compose reads it (``export`` allowed, quotes removed,
    ``#`` comments after an unquoted value dropped). Secret-looking names are left out unread."""
    found = []
    for number, raw in enumerate(text[:DOTENV_BYTES_MAX].split("\n"), 1):
        match = _DOTENV_LINE.match(raw.rstrip("\r"))
        if match is None or secret_name(match[1]):
            continue
        value = match[2].strip(" \t")
        if value[:1] in ("'", '"') and value.find(value[0], 1) > 0:
            quote, end = value[0], value.find(value[0], 1)
            value = value[1:end]
            if quote == '"':
                value = value.replace("\\n", "\n").replace('\\"', '"')
        else:
            value = re.split(r"[ \t]+#", value, maxsplit=1)[0].strip()
        found.append((match[1], value, number))
        if len(found) >= DOTENV_MAX:
            break
    return found


#: What an interpolation that cannot be known becomes: no host or path can hold it.
UNKNOWN: Final = "{}"
_BRACED: Final = re.compile(r"\$\{([A-Za-z_]\w*)(?:(:?[-?+])([^{}]*))?\}")
_BARE: Final = re.compile(r"\$([A-Za-z_]\w*)")


def interpolate(value: str, env: dict[str, str]) -> str:
    """``value`` with ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}``, ``${VAR:?err}``,
    ``${VAR:+alt}`` and ``$VAR`` read as Compose reads them, from ``env`` (the ``.env`` beside the
    Compose file; the shell is unknown here, so an unset variable without a default is
    :data:`UNKNOWN`); a secret-looking variable is always :data:`UNKNOWN`; ``$$`` is a ``$``."""
    value = value.replace("$$", "\x00")

    def braced(match: re.Match[str]) -> str:
        name, operator, word = match[1], match[2] or "", match[3] or ""
        if secret_name(name):
            return UNKNOWN
        known = name in env
        present = known and (env[name] != "" or ":" not in operator)
        if operator in ("", "?", ":?"):
            return env[name] if present or (known and not operator) else UNKNOWN
        if operator in ("-", ":-"):
            return env[name] if present else word
        return word if present else ""  # ``+`` / ``:+``

    for _ in range(8):  # nested defaults, innermost first
        replaced = _BRACED.sub(braced, value)
        if replaced == value:
            break
        value = replaced
    value = _BARE.sub(lambda m: UNKNOWN if secret_name(m[1]) else env.get(m[1], UNKNOWN), value)
    return value.replace("\x00", "$")


def _compose_env(node: Any) -> tuple[EnvEntry, ...]:
    """A Compose ``environment``: ``- NAME=value`` items or a ``NAME: value`` mapping (a name alone,
    passed through from the shell, says nothing)."""
    found: list[EnvEntry] = []
    if isinstance(node, yaml.SequenceNode):
        for item in node.value[:ENV_MAX]:
            text = _scalar(item)
            if text is not None and "=" in text:
                name, value = text.split("=", 1)
                found.append(EnvEntry(name.strip(), value, _line(item)))
    else:
        for name, key, value in _node_pairs(node)[:ENV_MAX]:
            text = _scalar(value)
            if text is not None:
                found.append(EnvEntry(name.strip(), text, _line(key)))
    return tuple(entry for entry in found if entry.name and not secret_name(entry.name))


def _env_files(node: Any) -> tuple[tuple[str, int], ...]:
    items = node.value if isinstance(node, yaml.SequenceNode) else [node] if node is not None else []
    found = []
    for item in items[:32]:
        path = _scalar(item) if isinstance(item, yaml.ScalarNode) else _scalar(_node_get(item, "path"))
        if path and path.strip():
            found.append((path.strip(), _line(item)))
    return tuple(found)


def _compose_aliases(spec: dict) -> tuple[str, ...]:
    names = [spec.get("container_name"), spec.get("hostname")]
    networks = spec.get("networks")
    if isinstance(networks, dict):
        for network in networks.values():
            aliases = network.get("aliases") if isinstance(network, dict) else None
            names += aliases if isinstance(aliases, list) else []
    return tuple(dict.fromkeys(n.strip() for n in names if isinstance(n, str) and n.strip()))


def _compose_links(links: Any) -> tuple[tuple[str, str], ...]:
    found = []
    for link in links if isinstance(links, list) else []:
        if isinstance(link, str) and link.strip():
            service, _, alias = link.strip().partition(":")
            found.append((service, alias or service))
    return tuple(found)


def kubernetes(text: str) -> tuple[list[Workload], str]:
    """The workloads of a Kubernetes manifest (any number of documents) and a problem."""
    objects, problem = kubernetes_objects(text)
    return list(objects.workloads), problem


def kubernetes_objects(text: str) -> tuple[KubeObjects, str]:
    """The workloads, Services and ConfigMaps of a Kubernetes manifest, and a problem."""
    if "{{" in text:  # a Helm or other template: not YAML until rendered
        return KubeObjects(), ""
    loaded, problem = _load(text)
    workloads, services, config_maps = [], [], []
    offset = 0
    for doc, node in loaded:
        listed = isinstance(doc, dict) and doc.get("kind") == "List"
        items = doc.get("items") if listed else [doc]
        for index, item in enumerate(items if isinstance(items, list) else []):
            item_node = _node_get(node, "items", index) if listed else node
            kind = item.get("kind") if isinstance(item, dict) else None
            meta = item.get("metadata") if isinstance(item, dict) else None
            name = meta.get("name") if isinstance(meta, dict) else None
            if not isinstance(name, str) or not isinstance(kind, str):
                continue
            namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else ""
            if kind == "Service":
                spec = item.get("spec")
                selector = spec.get("selector") if isinstance(spec, dict) else None
                services.append(KubeService(name, namespace, _line(_node_get(item_node, "metadata", "name")),
                                            _labels(selector)))  # fmt: skip
                continue
            if kind == "ConfigMap":
                data = [
                    EnvEntry(key, text_value, _line(key_node))
                    for key, key_node, value in _node_pairs(_node_get(item_node, "data"))[:ENV_MAX]
                    if (text_value := _scalar(value)) is not None and not secret_name(key)
                ]
                config_maps.append(ConfigMap(name, namespace, _line(_node_get(item_node, "metadata", "name")),
                                             tuple(data)))  # fmt: skip
                continue
            if kind not in _WORKLOADS:
                continue
            containers = _containers(item)
            kind_at = re.compile(rf"^kind:[ \t]*{re.escape(kind)}\b", re.M).search(text, offset)
            line = text.count("\n", 0, kind_at.start()) + 1 if kind_at else 1
            if kind_at:
                offset = kind_at.end()
            env, env_from = _workload_env(item_node)
            workloads.append(
                Workload(
                    kind=kind,
                    name=name,
                    line=line,
                    images=tuple(c["image"] for c in containers if isinstance(c.get("image"), str)),
                    entrypoints=tuple(
                        word for c in containers if (word := _first_word(c.get("command")) or _first_word(c.get("args")))
                    ),
                    namespace=namespace,
                    labels=_labels(_pod_labels(item)),
                    env=env,
                    env_from=env_from,
                )
            )
    return KubeObjects(tuple(workloads), tuple(services), tuple(config_maps)), problem


def _labels(labels: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(labels, dict):
        return ()
    return tuple(sorted((str(k), str(v)) for k, v in labels.items() if isinstance(k, (str, int, float, bool))
                        and isinstance(v, (str, int, float, bool))))  # fmt: skip


def _pod_labels(item: dict) -> Any:
    """The labels of the pods a workload runs (a Pod's own, else its template's)."""
    if item.get("kind") == "Pod":
        meta = item.get("metadata")
        return meta.get("labels") if isinstance(meta, dict) else None
    spec = item.get("spec")
    for _ in range(3):
        if not isinstance(spec, dict):
            return None
        template = spec.get("template")
        if isinstance(template, dict):
            meta = template.get("metadata")
            return meta.get("labels") if isinstance(meta, dict) else None
        job = spec.get("jobTemplate")
        spec = job.get("spec") if isinstance(job, dict) else None
    return None


def _container_nodes(node: Any) -> list[Any]:
    """The container nodes of a workload node (as :func:`_containers` finds them)."""
    spec = _node_get(node, "spec")
    for _ in range(4):
        if spec is None:
            return []
        containers = _node_get(spec, "containers")
        if isinstance(containers, yaml.SequenceNode):
            init = _node_get(spec, "initContainers")
            extra = init.value if isinstance(init, yaml.SequenceNode) else []
            return [c for c in containers.value + extra if isinstance(c, yaml.MappingNode)][:64]
        nested = _node_get(spec, "template") or _node_get(spec, "jobTemplate")
        spec = _node_get(nested, "spec")
    return []


def _workload_env(node: Any) -> tuple[tuple[EnvEntry, ...], tuple[tuple[str, str, int], ...]]:
    env: list[EnvEntry] = []
    env_from: list[tuple[str, str, int]] = []
    for container in _container_nodes(node):
        items = _node_get(container, "env")
        for item in items.value[:ENV_MAX] if isinstance(items, yaml.SequenceNode) else []:
            name = _scalar(_node_get(item, "name"))
            if not name or secret_name(name):
                continue
            value = _scalar(_node_get(item, "value"))
            if value is not None:
                env.append(EnvEntry(name, value, _line(item)))
                continue
            ref = _node_get(item, "valueFrom", "configMapKeyRef")
            config_map, key = _scalar(_node_get(ref, "name")), _scalar(_node_get(ref, "key"))
            if config_map and key and not secret_name(key):
                env.append(EnvEntry(name, "", _line(item), config_map, key))
        sources = _node_get(container, "envFrom")
        for item in sources.value[:64] if isinstance(sources, yaml.SequenceNode) else []:
            config_map = _scalar(_node_get(item, "configMapRef", "name"))
            if config_map:
                env_from.append((config_map, _scalar(_node_get(item, "prefix")) or "", _line(item)))
    return tuple(env[:ENV_MAX]), tuple(env_from)


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
    r"|Ollama|AzureServiceBus|AzureStorage|AzureCosmosDB|Seq|Keycloak|OpenAI|AzureOpenAI|Oracle|Dapr|Nginx|Yarp)\w*"
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


@attrs.frozen
class AspireLink:
    """What an Aspire app host gives a resource: a reference to another resource, or a variable."""

    #: The resource that receives it (a project's name).
    source: str
    #: ``services:x`` for a reference to a resource with endpoints (a project), ``ConnectionStrings:x``
    #: for one with a connection string (a database, a cache, a broker), else the variable's name
    #: (``WithEnvironment("Identity__Url", ...)``).
    var: str
    #: The resource referenced ("" when the value is a literal).
    target: str
    line: int
    #: A literal value given (``WithEnvironment("X", "http://...")``), "" otherwise (never in a repr).
    value: str = attrs.field(default="", repr=False)


@attrs.frozen
class AspireWiring:
    links: tuple[AspireLink, ...] = ()
    #: (child, parent) resources: ``postgres.AddDatabase("catalogdb")`` is reached through ``postgres``.
    parents: tuple[tuple[str, str], ...] = ()


_CS_COMMENT: Final = re.compile(r'("(?:[^"\\\n]|\\.)*")|//[^\n]*|/\*[\s\S]*?(?:\*/|\Z)')
_ASSIGN: Final = re.compile(r"^\s*(?:var\s+|[\w<>.?]+\s+)?(\w+)\s*=(?!=)\s*([\s\S]*)$")
_ADD: Final = re.compile(r"^\s*(\w+)\s*\.\s*(Add\w*)\s*(?:<\s*([\w.]+)\s*>)?\s*\(\s*\"([^\"]+)\"")
_RECEIVER: Final = re.compile(r"^\s*(\w+)\s*\.")
_ENDPOINT: Final = re.compile(r"^\s*(\w+)\s*\.\s*GetEndpoint\s*\(")
#: Aspire resources reached through service discovery (``services__x__http__0``); a reference to any
#: other resource (a database, a cache, a broker) gives its connection string (``ConnectionStrings__x``).
_ASPIRE_ENDPOINTS: Final = frozenset({
    "AddProject", "AddContainer", "AddNpmApp", "AddNodeApp", "AddExecutable", "AddPythonApp", "AddUvicornApp",
    "AddYarp", "AddDockerfile", "AddViteApp",
})  # fmt: skip
_BLOCK_PREFIX: Final = re.compile(r"(?:\s+|[{}]|else\b|(?:if|for|foreach|while|using)\s*\((?:[^()]|\([^()]*\))*\))*")
_WITH: Final = re.compile(r"\.\s*(WithReference|WithEnvironment)\s*\(")


def aspire_wiring(text: str) -> AspireWiring:
    """The references and variables an Aspire app host gives its resources (nothing for other C#).

    Statements are read one by one (``var x = builder.AddProject<...>("name")...;``,
    ``x.WithEnvironment(...);``): a variable holds a resource or one of its endpoints; each
    ``.WithReference(y)`` and ``.WithEnvironment("NAME", y)`` of a statement applies to the resource
    the statement adds or starts from."""
    if "DistributedApplication" not in text:
        return AspireWiring()
    code = _CS_COMMENT.sub(lambda m: m[1] or re.sub(r"[^\n]", " ", m[0]), text)
    newlines = [match.start() for match in re.finditer("\n", code)]
    resources: dict[str, str] = {}  # variable -> resource name (an endpoint variable too)
    kinds: dict[str, str] = {}  # resource name -> the Add method that made it
    links: list[AspireLink] = []
    parents: list[tuple[str, str]] = []
    start = 0
    for statement in code.split(";")[:5000]:
        offset, start = start, start + len(statement) + 1
        statement = statement[_BLOCK_PREFIX.match(statement).end() :]  # ``}``, ``if (...) {`` before it
        offset = start - 1 - len(statement)
        assign = _ASSIGN.match(statement)
        target_var, rhs = (assign[1], assign[2]) if assign else ("", statement)
        subject = ""
        add = _ADD.match(rhs)
        if add:
            subject = add[4]
            kinds.setdefault(subject, add[2])
            if add[1] in resources and add[2] != "AddProject":
                parents.append((subject, resources[add[1]]))
        elif (endpoint := _ENDPOINT.match(rhs)) and endpoint[1] in resources:
            if target_var:
                resources[target_var] = resources[endpoint[1]]
            continue
        elif (receiver := _RECEIVER.match(rhs)) and receiver[1] in resources:
            subject = resources[receiver[1]]
        if not subject:
            continue
        if target_var:
            resources[target_var] = subject
        for call in _WITH.finditer(rhs):
            args = _arguments(rhs, call.end())
            line = bisect.bisect_left(newlines, offset + len(statement) - len(rhs) + call.start()) + 1
            if call[1] == "WithReference" and len(args) >= 1:
                referenced = _resource_of(args[0], resources)
                if referenced:
                    links.append(AspireLink(subject, "", referenced, line))
            elif call[1] == "WithEnvironment" and len(args) >= 2:
                name = re.fullmatch(r'\s*"([^"]+)"\s*', args[0])
                if not name:
                    continue
                literal = re.fullmatch(r'\s*"([^"]*)"\s*', args[1])
                referenced = _resource_of(args[1], resources)
                if literal or referenced:
                    links.append(AspireLink(subject, name[1], referenced, line, literal[1] if literal else ""))
    named = []
    for link in links:
        if not link.var:
            served = kinds.get(link.target) in _ASPIRE_ENDPOINTS
            link = attrs.evolve(link, var=f"{'services' if served else 'ConnectionStrings'}:{link.target}")
        named.append(link)
    return AspireWiring(tuple(named), tuple(dict.fromkeys(parents)))


def _arguments(text: str, start: int) -> list[str]:
    """The comma-separated arguments of a call whose ``(`` ends at ``start`` (nesting respected)."""
    depth, args, current = 0, [], start
    for index in range(start, min(len(text), start + 2000)):
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                args.append(text[current:index])
                return args
            depth -= 1
        elif char == "," and depth == 0:
            args.append(text[current:index])
            current = index + 1
    return []


def _resource_of(expression: str, resources: dict[str, str]) -> str:
    """The resource an argument names: a variable holding it or its endpoint, or ``x.GetEndpoint(...)``."""
    match = re.match(r"^\s*(\w+)\s*(?:\.\s*GetEndpoint\s*\([^()]*\)\s*)?$", expression)
    return resources.get(match[1], "") if match else ""


@attrs.frozen
class HelmEnv:
    """An environment variable a Helm template sets from the chart's values."""

    name: str
    #: The values key (``app.endpoints.catalog`` of ``{{ .Values.app.endpoints.catalog }}``).
    values_key: str
    line: int
    #: The template's ``| default "..."``, "" when none.
    default: str = ""


#: ``{{ .Values.a.b }}``, ``"{{ .Values.a.b | quote }}"``, ``{{- .Values.a.b | default "x" -}}``: one line, no
#: two runs of the same characters side by side (linear on any line).
_HELM_VALUE: Final = r"[\"']?\{\{-?[ \t]*\.Values\.([\w.]+)[ \t]*(\|[^}\n]*)?-?\}\}[\"']?[ \t]*$"
_HELM_DEFAULT: Final = re.compile(r"\bdefault[ \t]+\"([^\"]*)\"")
_HELM_ENV: Final = re.compile(r"^[ \t]*-[ \t]*name:[ \t]*[\"']?([A-Za-z_][\w.-]*)[\"']?[ \t]*\r?\n[ \t]*value:[ \t]*"
                              + _HELM_VALUE, re.M)  # fmt: skip
_HELM_DATA: Final = re.compile(r"^[ \t]+([A-Z][A-Z0-9_]*)[ \t]*:[ \t]*" + _HELM_VALUE, re.M)


def helm_env(text: str) -> list[HelmEnv]:
    """The variables a Helm template sets from values: ``- name: X`` / ``value: {{ .Values.a.b }}``
    in an ``env`` block, and ``X: {{ .Values.a.b }}`` in a ConfigMap's data (best effort: a template
    is not YAML until rendered). Secret-looking names are left out."""
    found = []
    text = text[:_HELM_TEXT_MAX]
    newlines = [match.start() for match in re.finditer("\n", text)]
    for pattern in (_HELM_ENV, _HELM_DATA):
        for match in pattern.finditer(text):
            if not secret_name(match[1]):
                line = bisect.bisect_left(newlines, match.start(1)) + 1
                default = _HELM_DEFAULT.search(match[3] or "")
                found.append(HelmEnv(match[1], match[2], line, default[1] if default else ""))
    return sorted(found, key=lambda e: e.line)[:ENV_MAX]


_HELM_TEXT_MAX: Final = 256 * 1024


def helm_chart(text: str) -> tuple[str, list[tuple[str, str]], str]:
    """A ``Chart.yaml``'s name, its local subcharts ((alias or name, folder after ``file://``)) and a problem."""
    docs, problem = _documents(text)
    chart = docs[0] if docs and isinstance(docs[0], dict) else {}
    name = chart.get("name")
    return (name if isinstance(name, str) else ""), _dependencies(chart), problem


def _dependencies(chart: dict) -> list[tuple[str, str]]:
    """The local subcharts a chart depends on: (alias or name, folder as written after ``file://``)."""
    found = []
    dependencies = chart.get("dependencies")
    for dependency in dependencies if isinstance(dependencies, list) else []:
        if not isinstance(dependency, dict):
            continue
        repository, name = dependency.get("repository"), dependency.get("alias") or dependency.get("name")
        if isinstance(repository, str) and repository.startswith("file://") and isinstance(name, str):
            found.append((name, repository[len("file://") :]))
    return found


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
