"""Routes declared by deployment descriptors: the Serverless Framework and AWS SAM.

Theory of operation
-------------------
A function deployed behind API Gateway serves the routes its descriptor declares, not routes
written in its code. Two descriptors are read:

- **Serverless Framework** (``serverless.yml``, ``serverless.yaml``, ``serverless.json``, and
  ``serverless.<stage>.yml`` or ``serverless-<x>.yml`` given with ``--config``; the key
  ``functions:`` at the top level): each function's ``events`` entries ``http`` (REST API) and
  ``httpApi`` (HTTP API), written as a mapping (``path``, ``method``; ``cors``, ``private``,
  ``authorizer``... ignored) or as a string (``GET users/{id}``; ``httpApi: '*'`` is the catch-all of
  every method and path). The handler is the function's ``handler``. A provider other than ``aws``
  (OpenWhisk, Azure, Google) gives its events other meanings: no routes are read.
- **AWS SAM templates** (any YAML or JSON file whose top-level ``Transform`` names
  ``AWS::Serverless-...``: ``template.yaml`` by default): the events of ``Type: Api`` and
  ``Type: HttpApi`` of each ``AWS::Serverless::Function`` (and ``StateMachine``), with their
  ``Path`` and ``Method``; an ``HttpApi`` event without either is the API's default route, the
  catch-all. The handler is the function's ``Handler`` (else ``Globals.Function.Handler``, or the
  first word of an image function's ``ImageConfig.Command``). SAM's build copy of a template
  (under ``.aws-sam/``) is no second declaration: it gives nothing.

Each event is an :class:`~mesh.index.HttpRoute`: the verb (``ANY``, ``any``, ``*`` give ``*``),
the path through :func:`._links.route_template` (``restaurants/{id}`` -> ``/restaurants/{id}``; API
Gateway's greedy ``{proxy+}`` -> ``{*proxy}``), the line of its ``path`` key (of the event when the
event is a string), framework ``serverless`` or ``sam``. A path or a method that is computed (a
``${...}`` variable, an intrinsic function such as ``!Sub``) is never guessed: that event gives no
route. Nothing else of a descriptor is kept: its values (environment, credentials) are never read.

A descriptor that cannot be read gives an error naming the problem and the routes read before it,
never an exception. YAML is read as a node tree (lines kept, aliases never expanded, CloudFormation
tags such as ``!Ref`` kept as tags); at most :data:`EVENTS_MAX` events are visited per file.
"""

from __future__ import annotations

import re
from typing import Any, Final

import yaml

from .._facts import HttpRoute
from ._config import items, pairs, read_json, read_yaml_nodes, scalar
from ._links import HTTP_METHODS, route_template

__all__ = ["EVENTS_MAX", "extract", "looks_like"]

#: Events visited per file (an alias may repeat a list of events under many functions).
EVENTS_MAX: Final = 20_000
_PATH_CHARS_MAX: Final = 2048
_HANDLER_CHARS_MAX: Final = 200
_SUFFIXES: Final = (".yaml", ".yml", ".json")
_SERVERLESS_NAME: Final = re.compile(r"^serverless(?:[.-][\w.-]+)?\.(?:ya?ml|json)$")
_FUNCTIONS_KEY: Final = re.compile(r"^[\"']?functions[\"']?[ \t]*:|\"functions\"\s*:", re.MULTILINE)
_TRANSFORM_KEY: Final = re.compile(r"^[\"']?Transform[\"']?[ \t]*:|\"Transform\"\s*:", re.MULTILINE)
_SAM_TRANSFORM: Final = "AWS::Serverless-"
#: Folders holding copies of a descriptor made by a build (``sam build``).
_BUILD_COPIES: Final = frozenset({".aws-sam"})
_ANY_METHODS: Final = frozenset({"*", "ANY", "X-AMAZON-APIGATEWAY-ANY-METHOD"})
#: What a literal path of API Gateway may hold (parameters ``{id}``, greedy ``{proxy+}``).
_LITERAL_PATH: Final = re.compile(r"^[\w\-.~/{}+%:@]*$")
_GREEDY: Final = re.compile(r"\{([\w.-]*)\+\}")
#: The path of a catch-all route (``httpApi: '*'``, SAM's default route).
_CATCH_ALL: Final = "/{*}"
_SAM_FUNCTIONS: Final = frozenset({"AWS::Serverless::Function", "AWS::Serverless::StateMachine"})


def looks_like(path: str, text: str) -> str:
    """``serverless`` or ``sam`` when ``path`` may be such a descriptor (its name, and its text naming
    the key that makes it one where it can be top-level), else ""; :func:`extract` decides."""
    lower = path.lower()
    if not lower.endswith(_SUFFIXES):
        return ""
    folders = path.split("/")[:-1]
    if any(folder in _BUILD_COPIES for folder in folders):
        return ""
    name = path.rsplit("/", 1)[-1]
    if _SERVERLESS_NAME.match(name) and _FUNCTIONS_KEY.search(text):
        return "serverless"
    if _SAM_TRANSFORM in text and _TRANSFORM_KEY.search(text):
        return "sam"
    return ""


def extract(kind: str, text: str) -> tuple[tuple[HttpRoute, ...], str]:
    """The routes of a descriptor of ``kind`` (:func:`looks_like`) and a problem ("" when none)."""
    is_json = text.lstrip()[:1] == "{"
    if is_json:
        root, problem = read_json(text)
        docs = [root] if root is not None else []
    else:
        docs, problem = read_yaml_nodes(text)
    what = "Serverless descriptor" if kind == "serverless" else "SAM template"
    error = f"{what} cannot be read: {problem}" if problem else ""
    reader = _Reader()
    for doc in docs:
        top = _fields(doc)
        if kind == "serverless" and "functions" in top:
            reader.serverless(top)
            break
        if kind == "sam" and _is_sam(top.get("Transform")):
            reader.sam(top)
            break
    if reader.cut:
        error = error or f"{what}: only the first {EVENTS_MAX} events read"
    return tuple(reader.routes), error


def _fields(node: Any) -> dict[str, Any]:
    """The keys of a mapping node, the first of duplicates winning."""
    return {key: value for key, _, value in reversed(pairs(node))}


def _text(node: Any) -> str | None:
    """The text of a plain scalar; None for anything else, and for a tagged one (``!Sub '/x/${A}'``,
    ``!Ref Path``): its value is computed by CloudFormation."""
    if isinstance(node, yaml.ScalarNode) and not node.tag.startswith("tag:yaml.org,2002:"):
        return None
    return scalar(node)


def _is_sam(transform: Any) -> bool:
    """Whether a ``Transform`` value (a name, or a list of names) names the SAM transform."""
    names = [_text(node) for _, node in items(transform)] if items(transform) else [_text(transform)]
    return any(name is not None and name.strip().startswith(_SAM_TRANSFORM) for name in names)


def _method(raw: str | None) -> str:
    """The verb of a descriptor's method (``get``, ``ANY``, ``*``), "" when it is none or computed."""
    if raw is None:
        return ""
    word = raw.strip().upper()
    if word in _ANY_METHODS:
        return "*"
    return word if word in HTTP_METHODS else ""


def _path(raw: str | None) -> str:
    """The route template of a descriptor's path, "" when it is computed or no path."""
    if raw is None:
        return ""
    raw = raw.strip()
    if len(raw) > _PATH_CHARS_MAX or not _LITERAL_PATH.match(raw):
        return ""  # a variable (``${self:custom.base}/x``), blanks, a stage variable...
    return route_template(_GREEDY.sub(lambda m: "{*" + m[1] + "}", raw))


class _Reader:
    """The routes of one descriptor, counting the events visited."""

    def __init__(self) -> None:
        self.routes: list[HttpRoute] = []
        self.visited = 0
        self.cut = False

    def visit(self) -> bool:
        """Count one event; False once :data:`EVENTS_MAX` were visited."""
        self.visited += 1
        if self.visited > EVENTS_MAX:
            self.cut = True
            return False
        return True

    def add(self, method: str, path: str, line: int, handler: str, framework: str) -> None:
        if method and path:
            self.routes.append(HttpRoute(method, path, line, handler.strip()[:_HANDLER_CHARS_MAX], framework=framework))

    # -- Serverless Framework ----------------------------------------------------------------------

    def serverless(self, top: dict[str, Any]) -> None:
        provider = top.get("provider")
        name = _text(_fields(provider).get("name")) if pairs(provider) else _text(provider)
        if name is not None and name.strip() and "${" not in name and name.strip().lower() != "aws":
            return  # another cloud's events (OpenWhisk, Azure, Google) mean other things
        functions = top.get("functions")
        # a mapping of functions, or a list of such mappings (merged by the framework)
        groups = [node for _, node in items(functions)] if items(functions) else [functions]
        for group in groups:
            for _, _, function in pairs(group):
                fields = _fields(function)
                handler = _text(fields.get("handler")) or ""
                for _, event in items(fields.get("events")):
                    if not self.visit():
                        return
                    for key, line, spec in pairs(event):
                        if key in ("http", "httpApi"):
                            self.serverless_event(key, line, spec, handler)

    def serverless_event(self, key: str, line: int, spec: Any, handler: str) -> None:
        text = _text(spec)
        if text is not None:  # "GET users/{id}", httpApi's "*" and "PATCH /x"
            words = text.split()
            if key == "httpApi" and words == ["*"]:
                self.add("*", _CATCH_ALL, line, handler, "serverless")
            elif len(words) == 2:
                self.add(_method(words[0]), _path(words[1]), line, handler, "serverless")
            return
        found = {name: (value, at) for name, at, value in reversed(pairs(spec))}
        if "path" not in found or "method" not in found:
            return  # a REST event needs both; an HTTP API event without a path is not one
        path_node, path_line = found["path"]
        self.add(_method(_text(found["method"][0])), _path(_text(path_node)), path_line, handler, "serverless")

    # -- AWS SAM -----------------------------------------------------------------------------------

    def sam(self, top: dict[str, Any]) -> None:
        globals_handler = _text(_fields(_fields(top.get("Globals")).get("Function")).get("Handler")) or ""
        for _, _, resource in pairs(top.get("Resources")):
            fields = _fields(resource)
            if (_text(fields.get("Type")) or "").strip() not in _SAM_FUNCTIONS:
                continue
            properties = _fields(fields.get("Properties"))
            handler = _text(properties.get("Handler"))
            if handler is None and (_text(properties.get("PackageType")) or "").strip() == "Image":
                command = items(_fields(properties.get("ImageConfig")).get("Command"))
                handler = _text(command[0][1]) if command else None
            elif handler is None and (_text(fields.get("Type")) or "").strip() == "AWS::Serverless::Function":
                handler = globals_handler
            for _, line, event in pairs(properties.get("Events")):
                if not self.visit():
                    return
                self.sam_event(line, _fields(event), handler or "")

    def sam_event(self, line: int, event: dict[str, Any], handler: str) -> None:
        kind = (_text(event.get("Type")) or "").strip()
        if kind not in ("Api", "HttpApi"):
            return
        found = {name: (value, at) for name, at, value in reversed(pairs(event.get("Properties")))}
        if kind == "HttpApi" and "Path" not in found and "Method" not in found:
            self.add("*", _CATCH_ALL, line, handler, "sam")  # the API's default route
            return
        if "Path" not in found or "Method" not in found:
            return
        path_node, path_line = found["Path"]
        raw = _text(path_node)
        path = _CATCH_ALL if kind == "HttpApi" and raw is not None and raw.strip() == "$default" else _path(raw)
        self.add(_method(_text(found["Method"][0])), path, path_line, handler, "sam")
