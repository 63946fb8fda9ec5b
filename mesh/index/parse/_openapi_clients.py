"""Calls through clients generated from an OpenAPI document, read where an operation is called.

Theory of operation. A client that OpenAPI Generator, Swagger Codegen, NSwag, oapi-codegen or
openapi-python-client generates has one method (or function) per operation, named after its
``operationId``: ``ordersApi.createOrder(order)``, ``api.get_pet_by_id(1)``,
``client.PetAPI.GetPetById(ctx, 1).Execute()``, ``c.FindPetsWithResponse(ctx, params)``. The generated
code is left out of the index as generated, so the call names an operation, not a path: it becomes an
:class:`~mesh.index.HttpCall` with ``method="*"``, ``path=""`` and ``operation`` set, and the resolver
takes method and path from the one OpenAPI operation of that id in the workspace.

A call is taken only when the file shows the receiver is an API class of a generated client
(precision first):

- its type (declared, or the class it is constructed from) is named as OpenAPI Generator names API
  classes (``<Tag>Api``, ``DefaultApi``; Go's ``<Tag>Api``/``<Tag>API`` fields of an ``APIClient``
  and its ``<Tag>APIService`` types; Java's ``apiClient.buildClient(PetApi.class)``), is not declared
  in the file (a hand-written ``UserApi`` making its own requests is no generated
  client: its requests are the real calls), and is imported from a module of the workspace, not a
  library the extractors know, whose path looks generated (a segment ``generated``, ``api``,
  ``client(s)``, ``openapi``, ``sdk``...) or beside which the file imports the generator's runtime
  (``Configuration``, ``ApiClient``, ``ApiException``...; ``@openapitools/...``,
  ``org.openapitools.client``, ``io.swagger.client``); a class named otherwise (NSwag's
  ``<Tag>Client``, typescript-angular's ``<Tag>Service``) only from a module whose path says it is
  generated (``generated``, ``openapi``, ``swagger``, ``codegen``...);
- oapi-codegen's ``ClientWithResponses`` (made by ``NewClientWithResponses``) of a package of the
  workspace, its plain ``Client`` only from a package whose path says it is generated or in a file
  importing oapi-codegen's runtime; openapi-python-client's endpoint modules
  (``from x.api.pets import get_pet``) called as documented (``get_pet.sync(client=c, ...)``);
- the method is an operation, not the class's own plumbing (``withMiddleware``, ``setApiClient``,
  ``api_client``, ``...RequestConfig``...). What a generator adds to the operation's name is
  stripped (:func:`operation`): ``WithHttpInfo``; ``Raw`` (typescript-fetch); ``Async`` (Java's
  okhttp-gson); ``_with_http_info`` and ``_without_preload_content`` (Python); ``WithResponse`` and
  ``With...Body`` (oapi-codegen).

The base address given where the client is made (``new OrdersApi(endpoint)``, ``new PetApi(new
Configuration({ basePath }))``, ``ApiClient().setBasePath(url)``, ``Configuration(host=...)``,
``createConfiguration({ baseServer: new ServerConfiguration(url) })``, ``NewClientWithResponses(server)``,
``cfg.Servers = ServerConfigurations{{URL: ...}}``) is traced with each language's own resolvers into
``host`` or ``address``; when the file does not show it, the address is ``client:<ApiClass>`` (Go and
openapi-python-client, whose client classes name no service: ""), the base address registered for
that class: a file making such a client with a base address it shows gives that setting (JVM,
TypeScript). The line of a call is the
line of the operation's name. Every walk is bounded (depth, bindings per name) and memoised per node,
on the tree each language's link extractor already parsed: any bytes give facts, the same bytes the
same facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Final

import tree_sitter

from .._facts import HttpCall, Setting
from . import _ts
from ._links import url_parts

if TYPE_CHECKING:
    from ._ecmascript_links import _Links as _EcmaLinks
    from ._go_links import _Links as _GoLinks
    from ._jvm_links import _Engine
    from ._python_links import _File as _PyFile

__all__ = [
    "API_CLASS",
    "ecmascript_calls",
    "ecmascript_wanted",
    "generated_path",
    "go_calls",
    "go_wanted",
    "jvm_calls",
    "operation",
    "python_calls",
    "python_wanted",
]

#: The generator a call is attributed to (``HttpCall.client``).
OPENAPI_GENERATOR: Final = "openapi-generator"
SWAGGER_CODEGEN: Final = "swagger-codegen"
NSWAG: Final = "nswag"
OAPI_CODEGEN: Final = "oapi-codegen"
OPENAPI_PYTHON_CLIENT: Final = "openapi-python-client"

#: OpenAPI Generator's (and Swagger Codegen's) name of an API class: ``PetApi``, ``DefaultApi``, ``PetAPI``.
API_CLASS: Final = re.compile(r"^[A-Z][A-Za-z0-9]*?[a-z0-9](?:Api|API)$")
#: Names of generated classes that other generators use: NSwag's ``PetClient``, typescript-angular's ``PetService``.
_OTHER_CLASS: Final = re.compile(r"^[A-Z][A-Za-z0-9]*?[a-z0-9](Client|Service)$")
#: Path words (``/``, ``.``, ``-`` and ``_`` separate them) of a module that may hold a generated client.
_GENERATED_WORDS: Final = frozenset(
    {"generated", "gen", "autogen", "client", "clients", "api", "apis", "openapi", "openapitools", "swagger",
     "sdk", "sdks", "codegen", "oas", "apiclient", "apiclients", "stub", "stubs", "nswag", "oapi"}
)  # fmt: skip
#: Path words that say the module is generated, whatever it holds.
_STRONG_WORDS: Final = frozenset(
    {"generated", "__generated__", "gen", "autogen", "openapi", "openapitools", "swagger", "codegen", "oas", "nswag",
     "oapi", "oapigen", "openapigen"}
)  # fmt: skip
_STRONG_SUBSTRINGS: Final = ("openapi", "swagger", "generated", "codegen")
_WORD_SPLIT: Final = re.compile(r"[/.\-_@]+")

#: Methods of a generated API class that are not operations, per language family.
_PLUMBING: Final = {
    "ecmascript": frozenset(
        {"withMiddleware", "withPreMiddleware", "withPostMiddleware", "configuration", "setDefaultAuthentication",
         "setApiKey", "addInterceptor", "basePath", "defaultHeaders", "useQuerystring", "request", "createFetchParams",
         "isJsonMime", "clone", "axios", "setBasePath", "getBasePath", "setAccessToken", "accessToken", "username",
         "password", "constructor", "toString", "then", "catch", "finally", "bind", "call", "apply", "hasOwnProperty",
         "setDefaultHeader", "valueOf"}
    ),
    "jvm": frozenset(
        {"getApiClient", "setApiClient", "getHostIndex", "setHostIndex", "getCustomBaseUrl", "setCustomBaseUrl",
         "getBasePath", "setBasePath", "toString", "hashCode", "equals", "getClass", "wait", "notify", "notifyAll",
         "getObjectMapper", "getWebClient", "getRestTemplate", "getHttpClient", "setHttpClient", "client", "baseUrl",
         "defaultBasePath", "also", "apply", "let", "run", "takeIf", "takeUnless", "with", "copy", "getResponseHeaders",
         "getStatusCode", "getData", "updateBaseUri", "setRequestInterceptor", "setResponseInterceptor",
         "setAsyncResponseInterceptor", "getRequestInterceptor", "getResponseInterceptor"}
    ),
    "python": frozenset({"api_client"}),
    "go": frozenset(),
}  # fmt: skip
#: Suffixes a generator adds to an operation's method, per language family.
_SUFFIXES: Final = {
    "ecmascript": ("WithHttpInfo", "Raw"),
    "jvm": ("WithHttpInfo", "Async"),
    "python": ("_with_http_info", "_without_preload_content"),
    "go": (),
}
#: oapi-codegen's variants of an operation: ``FindPetsWithResponse``, ``AddPetWithBody``, ``AddPetWithFormdataBodyWithResponse``.
_OAPI_SUFFIX: Final = re.compile(r"(?:With[A-Za-z0-9]*Body)?(?:WithResponse)?$")

#: Names a file imports beside an API class when it uses a generated client's runtime.
_RUNTIME_NAMES: Final = frozenset(
    {"Configuration", "ConfigurationParameters", "BaseAPI", "ResponseError", "RequiredError", "Middleware",
     "createConfiguration", "ServerConfiguration", "ApiException", "ApiClient", "HttpError", "ObjectSerializer",
     "RequestContext", "ResponseContext", "ApiResponse"}
)  # fmt: skip
#: How deep names and constructions are followed, and how many bindings of one name are read.
_DEPTH_MAX: Final = 6
_BINDINGS_MAX: Final = 4
#: Arguments of a construction read for its base address.
_BASE_ARGUMENTS: Final = 3


# -- language-neutral ------------------------------------------------------------------------------


def operation(name: str, family: str) -> str:
    """The operation a method of a generated API class stands for (``getPetByIdWithHttpInfo`` ->
    ``getPetById``), "" when ``name`` is the class's own plumbing or no operation of ``family``
    (``ecmascript``, ``jvm``, ``python``, ``go``)."""
    if not name or name.startswith("_") or name in _PLUMBING[family]:
        return ""
    if family == "jvm" and name.endswith(("RequestConfig", "RequestBuilder", "Call")) and name[:1].islower():
        return ""  # Kotlin's ``getPetByIdRequestConfig``, Java's builders: no request is sent
    if family == "go" and (not name[:1].isupper() or name.endswith("Execute")):
        return ""
    for suffix in _SUFFIXES[family]:
        if name.endswith(suffix) and len(name) > len(suffix):
            stem = name[: -len(suffix)]
            if suffix == "Raw" and not stem[-1:].isalnum():
                continue
            return stem
    return name


def oapi_operation(name: str) -> str:
    """The operation of an oapi-codegen client method (``AddPetWithBodyWithResponse`` -> ``AddPet``)."""
    if not name[:1].isupper():
        return ""
    stem = _OAPI_SUFFIX.sub("", name)
    return stem if stem and stem[:1].isupper() else ""


def _words(module: str) -> list[str]:
    return [word.lower() for word in _WORD_SPLIT.split(module) if word]


def generated_path(module: str, strong: bool = False) -> bool:
    """Whether an import path may hold a generated client (``../clients/orders/api``,
    ``orders_client.api.orders_api``); with ``strong``, whether it says it is generated
    (``../generated``, ``./openapi``)."""
    words = _words(module)
    if any(word in _STRONG_WORDS or any(part in word for part in _STRONG_SUBSTRINGS) for word in words):
        return True
    return not strong and any(word in _GENERATED_WORDS for word in words)


def _call(line: int, symbol: str, host: str, address: str, client: str, name: str) -> HttpCall:
    return HttpCall("*", "", line, symbol, host, address, client, False, name)


# -- TypeScript and JavaScript ----------------------------------------------------------------------

_ECMA_LOCAL: Final = re.compile(r"^(?:\.|/|@/|~/|#)")
_ECMA_RUNTIME_SCOPE: Final = "@openapitools/"


def ecmascript_wanted(imports: Sequence) -> bool:
    """Whether a file's imports may give it a generated client: an API class (or its factory), or
    anything from a module whose path says it is generated or from a generator's runtime."""
    for item in imports:
        module = item.module
        if module.startswith(_ECMA_RUNTIME_SCOPE):
            return True
        local = bool(_ECMA_LOCAL.match(module))
        if generated_path(module, strong=True) and (local or not item.names):
            return True
        if local and (not item.names or any(API_CLASS.match(name.removesuffix("Factory")) for name in item.names)):
            return True
    return False


def ecmascript_calls(links: _EcmaLinks) -> None:
    """Add the operations called on generated API classes of the file (and the ``client:`` settings of
    the ones it makes with a base address) to ``links``."""
    _EcmaScript(links).run()


class _EcmaScript:
    def __init__(self, links: _EcmaLinks) -> None:
        from ._ecmascript_links import _MODULES  # noqa: PLC0415 - that module imports this one

        self.links = links
        self.x = links.x
        self.known = _MODULES
        self.kiota = any(i.module.startswith("@microsoft/kiota-") for i in self.x.imports)
        #: module -> names the file imports from it
        self.imported: dict[str, set[str]] = {}
        for item in self.x.imports:
            self.imported.setdefault(item.module, set()).update(item.names)
        self.memo: dict[int, tuple[str, str, tree_sitter.Node | None] | None] = {}
        self.classes: dict[tuple[str, str], str] = {}

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.x.source)

    def run(self) -> None:
        from ._ecmascript import _unwrap  # noqa: PLC0415

        scan = self.x.scan()
        for call in scan.get("member_call", ()):
            function = call.child_by_field_name("function")
            prop = function.child_by_field_name("property") if function is not None else None
            if prop is None or prop.type != "property_identifier":
                continue
            name = operation(self.text(prop), "ecmascript")
            if not name:
                continue
            found = self.instance(_unwrap(function.child_by_field_name("object")), 0)
            if found is None:
                continue
            klass, generator, made = found
            host, address = self.base(made) if made is not None else ("", "")
            if not host and not address:
                address = "client:" + klass
            fact = _call(_ts.line(prop), self.links.symbol(prop.start_byte), host, address, generator, name)
            self.links.add(prop.start_byte, fact)
        self.settings(scan.get("new", ()))

    def settings(self, made: Iterable[tree_sitter.Node]) -> None:
        """``new PetApi(new Configuration({ basePath: process.env.PETS_URL }))``: the setting
        ``client:PetApi`` (the base address of that class's requests in the files using it)."""
        seen = {(setting.key, setting.line) for _, _, setting in self.links.settings}
        for node in made:
            found = self.made(node, 0)
            if found is None:
                continue
            klass = found[0]
            for value in self.base_values(node):
                setting = self.links._setting("client:" + klass, value, node)  # noqa: SLF001
                if setting is None:
                    address, _ = self.links.address(value)
                    if address.startswith(("config:", "const:")):
                        setting = Setting("client:" + klass, _ts.line(node), env=address)
                if setting is not None:
                    if (setting.key, setting.line) not in seen:
                        seen.add((setting.key, setting.line))
                        self.links.settings.append((node.start_byte, len(self.links.settings), setting))
                    break

    def instance(self, node: tree_sitter.Node | None, depth: int) -> tuple[str, str, tree_sitter.Node | None] | None:
        """(API class, generator, the expression making it or None) of what ``node`` holds."""
        from ._ecmascript import _this_member, _unwrap  # noqa: PLC0415

        node = _unwrap(node)
        if node is None or depth > _DEPTH_MAX:
            return None
        if node.type in ("new_expression", "call_expression"):
            return self.made(node, depth)
        if node.type != "identifier" and not _this_member(node):
            return None
        if node.id in self.memo:
            return self.memo[node.id]
        self.memo[node.id] = None
        if node.type == "identifier":
            bindings = self.x._lookup(node, self.text(node))  # noqa: SLF001 - the extractor's own resolver
        else:
            bindings = self.x._field(node)  # noqa: SLF001
        declared = None
        found = None
        for binding in bindings[:_BINDINGS_MAX]:
            if binding.module is not None or binding.key:
                break  # imported or destructured: the class itself, or out of sight
            if binding.value is not None:
                found = self.made(binding.value, depth + 1)
                if found is not None:
                    break
            if binding.type is not None and declared is None:
                declared = self.declared(binding.type, node)
        result = found or declared
        self.memo[node.id] = result
        return result

    def made(self, value: tree_sitter.Node, depth: int) -> tuple[str, str, tree_sitter.Node | None] | None:
        """``new PetApi(config)``, ``new petstore.PetApi()``, ``PetApiFactory(config)``, or a name holding one."""
        from ._ecmascript import _this_member, _unwrap  # noqa: PLC0415

        value = _unwrap(value)
        if value is None or depth > _DEPTH_MAX:
            return None
        if value.type == "identifier" or _this_member(value):
            return self.instance(value, depth + 1)
        if value.type == "new_expression":
            klass, generator = self.api_class(value.child_by_field_name("constructor"))
            return (klass, generator, value) if generator else None
        if value.type == "call_expression":
            function = _unwrap(value.child_by_field_name("function"))
            if function is not None and function.type == "identifier":
                name = self.text(function)
                if name.endswith("ApiFactory") and API_CLASS.match(name[:-7]):
                    _, generator = self.api_class(function, name[:-7])
                    return (name[:-7], generator, value) if generator else None
        return None

    def declared(self, annotation: tree_sitter.Node, at: tree_sitter.Node) -> tuple[str, str, None] | None:
        """The API class a TypeScript annotation declares (``api: PetApi``, ``api?: PetApi | undefined``)."""
        node: tree_sitter.Node | None = annotation
        for _ in range(_DEPTH_MAX):
            if node is None:
                return None
            if node.type == "type_annotation":
                node = node.named_child(0) if node.named_child_count else None
            elif node.type == "union_type":
                kept = [c for c in node.named_children if self.text(c) not in ("undefined", "null")]
                node = kept[0] if len(kept) == 1 else None
            else:
                break
        if node is None or node.type not in ("type_identifier", "nested_type_identifier"):
            return None
        klass, generator = self.api_class(node)
        return (klass, generator, None) if generator else None

    def api_class(self, node: tree_sitter.Node | None, name: str = "") -> tuple[str, str]:
        """(class name, generator) of a constructor or type expression naming a generated API class
        (generator "" when it is none)."""
        from ._ecmascript import _unwrap  # noqa: PLC0415

        node = _unwrap(node)
        if node is None:
            return "", ""
        head = node
        if node.type in ("member_expression", "nested_type_identifier"):
            field = "property" if node.type == "member_expression" else "name"
            name = name or self.text(node.child_by_field_name(field))
            head = _unwrap(node.child_by_field_name("object" if node.type == "member_expression" else "module"))
            if head is None or head.type != "identifier":
                return "", ""
            module, _ = self.module_of(head, self.text(head), namespace=True)
        elif node.type in ("identifier", "type_identifier"):
            local = self.text(node)
            module, imported = self.module_of(node, local)
            name = name or (imported if imported not in ("", "default", "*") else local)
        else:
            return "", ""
        if module is None or name in self.links.defined("class"):
            return name, ""
        key = (module, name)
        if key not in self.classes:
            self.classes[key] = self.gate(module, name)
        return name, self.classes[key]

    def module_of(self, at: tree_sitter.Node, name: str, namespace: bool = False) -> tuple[str | None, str]:
        """The module ``name`` is imported (or required) from, and the name it is imported as there
        (``import { PetApi as Pets }``: ``PetApi``); with ``namespace``, only a whole module (``import * as
        api``, a default import, ``const api = require(...)``)."""
        for binding in self.x._lookup(at, name):  # noqa: SLF001
            if binding.module is not None:
                if namespace and binding.key not in ("*", "default"):
                    return None, ""
                return binding.module, binding.key
            module = self.links._required(binding.value)[0]  # noqa: SLF001
            if module is not None and bool(binding.key) != namespace:
                return module, binding.key
            return None, ""
        return None, ""

    def gate(self, module: str, name: str) -> str:
        if module in self.known:
            return ""
        local = bool(_ECMA_LOCAL.match(module))
        if API_CLASS.match(name):
            if module.startswith(_ECMA_RUNTIME_SCOPE):
                return OPENAPI_GENERATOR
            if local and (generated_path(module) or self.imported.get(module, set()) & _RUNTIME_NAMES):
                return OPENAPI_GENERATOR
            return OPENAPI_GENERATOR if not local and generated_path(module, strong=True) else ""
        other = _OTHER_CLASS.match(name)
        if other and not self.kiota and generated_path(module, strong=True):
            return NSWAG if other[1] == "Client" else OPENAPI_GENERATOR
        return ""

    def base_values(self, made: tree_sitter.Node) -> list[tree_sitter.Node]:
        """The expressions that may give a construction its base address: a configuration's
        ``basePath`` (``new Configuration({ basePath })``, an options object), else an argument."""
        from ._ecmascript import _key_text, _named, _unwrap  # noqa: PLC0415
        from ._ecmascript_links import _BASE_KEY, _arguments  # noqa: PLC0415

        out: list[tree_sitter.Node] = []
        for argument in _arguments(made)[:_BASE_ARGUMENTS]:
            value = _unwrap(argument)
            if value is None:
                continue
            options = self.configuration(value, 0)
            if options is not None:
                for pair in options.named_children:
                    if pair.type == "pair" and _BASE_KEY.search(
                        _key_text(pair.child_by_field_name("key"), self.x.source)
                    ):
                        inner = _unwrap(pair.child_by_field_name("value"))
                        if inner is not None and inner.type == "new_expression":  # new ServerConfiguration(url, {})
                            inner = _unwrap(_named(inner.child_by_field_name("arguments"), 0))
                        if inner is not None:
                            out.append(inner)
                continue
            if value.type in ("identifier", "member_expression", "string", "template_string", "binary_expression"):
                out.append(value)
        return out

    def configuration(self, value: tree_sitter.Node, depth: int) -> tree_sitter.Node | None:
        """The options object of a configuration: an object literal, ``new Configuration({...})``, or a
        name holding one."""
        from ._ecmascript import _named, _unwrap  # noqa: PLC0415

        value = _unwrap(value)
        if value is None or depth > _DEPTH_MAX:
            return None
        if value.type == "object":
            return value
        if value.type in ("new_expression", "call_expression"):
            # new Configuration({ basePath }), the typescript generator's createConfiguration({ baseServer })
            named = "constructor" if value.type == "new_expression" else "function"
            maker = self.text(value.child_by_field_name(named)).rsplit(".", 1)[-1]
            if maker.endswith("Configuration") and maker[:1].isupper() == (value.type == "new_expression"):
                inner = self.configuration(_named(value.child_by_field_name("arguments"), 0), depth + 1)
                return inner if inner is not None and inner.type == "object" else None
            return None
        if value.type == "identifier":
            values = self.links._values(value, 0)  # noqa: SLF001
            if len(values) == 1 and values[0].type in ("object", "new_expression", "call_expression"):
                return self.configuration(values[0], depth + 1)
        return None

    def base(self, made: tree_sitter.Node) -> tuple[str, str]:
        """(host, address) of the base address a construction is given, ("", "") when unseen."""
        for value in self.base_values(made):
            host, address = self.base_of(value)
            if host or address:
                return host, address
        return "", ""

    def base_of(self, value: tree_sitter.Node) -> tuple[str, str]:
        from ._ecmascript_links import _ports  # noqa: PLC0415

        parts = _ports(self.links.parts(value))
        read = url_parts([(literal, text) for literal, text, _ in parts])
        if read.host:
            return read.host, ""
        if not read.base:
            return "", ""
        node = next((node for literal, text, node in parts if not literal and text == read.base), None)
        if node is None:
            return "", ""
        address, default = self.links.address(node)
        host = url_parts([(True, "".join(text for _, text, _ in default))]).host if default else ""
        return host, address


# -- Python ----------------------------------------------------------------------------------------

#: Packages that ship a generated client of a public API (libraries, whatever their names say).
_PY_SDKS: Final = frozenset(
    {"kubernetes", "openshift", "datadog_api_client", "hubspot", "plaid", "docusign_esign", "ory_client",
     "ory_kratos_client", "ory_hydra_client", "openfga_sdk", "launchdarkly_api", "mailchimp_marketing",
     "sib_api_v3_sdk", "brevo_python", "asana", "xero_python", "onfido", "argo_workflows", "airflow_client",
     "influxdb_client", "pinecone", "qdrant_client", "weaviate", "lakefs_client", "lakefs_sdk", "akeyless",
     "hvac", "jira", "gitlab", "github", "twilio", "stripe", "docker"}
)  # fmt: skip
#: openapi-python-client's functions of an endpoint module.
_PY_ENDPOINT_FUNCTIONS: Final = frozenset({"sync", "sync_detailed", "asyncio", "asyncio_detailed"})
_PY_HINT: Final = re.compile(rb"[A-Za-z0-9](?:Api|API)\b|\.(?:sync|asyncio)(?:_detailed)?\s*\(")


def python_wanted(roots: set[str], names: dict[str, str], source: bytes) -> bool:
    """Whether a Python file may call a generated client: it imports an API class or an endpoint
    module of a package that is no library (``names`` maps local names to what they import)."""
    from ._python_links import _LIBRARIES  # noqa: PLC0415 - that module imports this one

    for qual in names.values():  # before the hint: searching the whole source costs more than the imports
        if qual.split(".", 1)[0] in _LIBRARIES or qual.split(".", 1)[0] in _PY_SDKS:
            continue
        last = qual.rsplit(".", 1)[-1]
        if API_CLASS.match(last) or generated_path(qual):
            return bool(_PY_HINT.search(source))
    return False


def python_calls(file: _PyFile) -> None:
    """Add the operations called through generated clients among the calls of ``file``."""
    if not python_wanted(file.imports.roots, file.imports.qual, file.source):
        return
    _Python(file).run()


class _Python:
    def __init__(self, file: _PyFile) -> None:
        from ._python_links import _LIBRARIES  # noqa: PLC0415

        self.file = file
        self.libraries = _LIBRARIES | _PY_SDKS
        self.memo: dict[tuple[int, int, str], tuple[str, str, tree_sitter.Node | None] | None] = {}
        #: roots of the packages from which the file imports a generated client's runtime
        self.runtime = {qual.split(".", 1)[0] for local, qual in file.imports.qual.items() if local in _RUNTIME_NAMES}

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.file.source)

    def run(self) -> None:
        file = self.file
        for call in file.found.get("call", ()):
            function = call.child_by_field_name("function")
            if function is None or function.type != "attribute":
                continue
            attribute = function.child_by_field_name("attribute")
            method = self.text(attribute)
            receiver = function.child_by_field_name("object")
            if receiver is None:
                continue
            if method in _PY_ENDPOINT_FUNCTIONS and self.endpoint(call, receiver, attribute):
                continue
            name = operation(method, "python")
            if not name:
                continue
            found = self.instance(receiver, 0)
            if found is None:
                continue
            klass, generator, made = found
            host, address = self.base(made) if made is not None else ("", "")
            if not host and not address:
                address = "client:" + klass
            fact = _call(_ts.line(attribute), file.symbol(attribute.start_byte), host, address, generator, name)
            file.out.add(file.out.calls, attribute.start_byte, fact)

    def endpoint(self, call: tree_sitter.Node, receiver: tree_sitter.Node, anchor: tree_sitter.Node) -> bool:
        """openapi-python-client: ``get_pet.sync(client=client, pet_id=1)`` with ``get_pet`` imported
        from ``<package>.api.<tag>``: the operation ``get_pet``."""
        file = self.file
        if receiver.type != "identifier":
            return False
        qual = file.imports.qual.get(self.text(receiver), "")
        parts = qual.split(".")
        if len(parts) < 3 or parts[0] in self.libraries or "api" not in parts[1:-1]:
            return False
        if file.lookup(self.text(receiver), receiver.start_byte):
            return False  # shadowed by a binding of the file
        _, keywords, _ = file.arguments(call)
        client = keywords.get("client")
        if client is None:
            return False  # every endpoint function takes its client by keyword
        host, address = "", ""
        made = self.client_made(client, 0)
        if made is not None:
            host, address = self.url_of(file.arg(made, 0, "base_url"))
        fact = _call(_ts.line(anchor), file.symbol(anchor.start_byte), host, address, OPENAPI_PYTHON_CLIENT, parts[-1])
        file.out.add(file.out.calls, anchor.start_byte, fact)
        return True

    def client_made(self, node: tree_sitter.Node, depth: int) -> tree_sitter.Node | None:
        """The ``Client(base_url=...)`` / ``AuthenticatedClient(...)`` call a name holds."""
        if depth > _DEPTH_MAX:
            return None
        if node.type == "call":
            function = node.child_by_field_name("function")
            last = self.text(function).rsplit(".", 1)[-1]
            return node if last in ("Client", "AuthenticatedClient") else None
        if node.type == "identifier":
            for value, how in self.file.lookup(self.text(node), node.start_byte)[:_BINDINGS_MAX]:
                if how == "value":
                    return self.client_made(value, depth + 1)
        return None

    def instance(self, node: tree_sitter.Node, depth: int) -> tuple[str, str, tree_sitter.Node | None] | None:
        """(API class, generator, the call making it or None) of what ``node`` holds."""
        while node.type in ("await", "parenthesized_expression") and node.named_child_count:
            node = node.named_child(0)
        if depth > _DEPTH_MAX:
            return None
        if node.type == "call":
            return self.made(node)
        key = (node.start_byte, node.end_byte, node.type)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = None
        file = self.file
        if node.type == "identifier":
            bindings = file.lookup(self.text(node), node.start_byte)
        elif node.type == "attribute" and file.class_of_self(node.child_by_field_name("object")) >= 0:
            klass = file.class_of_self(node.child_by_field_name("object"))
            bindings = file.class_attrs(klass, self.text(node.child_by_field_name("attribute")))
        else:
            bindings = []
        found = None
        for value, how in bindings[:_BINDINGS_MAX]:
            if how == "value":
                found = self.instance(value, depth + 1)
            elif how == "type":
                found = self.declared(value)
            elif how == "param":
                annotation = value.child_by_field_name("type")
                found = self.declared(annotation) if annotation is not None else None
            if found is not None:
                break
        self.memo[key] = found
        return found

    def made(self, call: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
        klass, generator = self.api_class(call.child_by_field_name("function"))
        return (klass, generator, call) if generator else None

    def declared(self, annotation: tree_sitter.Node | None) -> tuple[str, str, None] | None:
        """The API class an annotation declares: ``PetApi``, ``Optional[PetApi]``, ``PetApi | None``."""
        node = annotation
        for _ in range(_DEPTH_MAX):
            if node is None:
                return None
            if node.type == "type" and node.named_child_count:
                node = node.named_child(0)
            elif node.type in ("generic_type", "subscript"):
                inner = [c for c in node.named_children if c.type in ("type_parameter", "type")]
                node = (
                    inner[0].named_child(0)
                    if inner and inner[0].named_child_count
                    else node.child_by_field_name("subscript")
                )
            elif node.type == "binary_operator":
                node = node.child_by_field_name("left")
            else:
                break
        klass, generator = self.api_class(node)
        return (klass, generator, None) if generator else None

    def api_class(self, node: tree_sitter.Node | None) -> tuple[str, str]:
        """(class, generator) of an identifier or ``module.Class`` naming a generated API class."""
        if node is None or node.type not in ("identifier", "attribute"):
            return "", ""
        qual = self.file.qualify(node)
        if not qual:
            return "", ""
        root, _, _ = qual.partition(".")
        name = qual.rsplit(".", 1)[-1]
        if root in self.libraries or not API_CLASS.match(name) or self.file.local_class(name) >= 0:
            return name, ""
        module = qual.rsplit(".", 1)[0] if "." in qual else ""
        if generated_path(module) or root in self.runtime:
            return name, SWAGGER_CODEGEN if root == "swagger_client" else OPENAPI_GENERATOR
        return name, ""

    def base(self, made: tree_sitter.Node) -> tuple[str, str]:
        """``PetApi(ApiClient(Configuration(host=url)))``, through the names holding each."""
        client = self.holder(self.file.arg(made, 0, "api_client"), "ApiClient", 0)
        if client is None:
            return "", ""
        configuration = self.holder(self.file.arg(client, 0, "configuration"), "Configuration", 0)
        if configuration is None:
            return "", ""
        return self.url_of(self.file.arg(configuration, 0, "host"))

    def holder(self, node: tree_sitter.Node | None, class_name: str, depth: int) -> tree_sitter.Node | None:
        """The call constructing ``class_name`` that ``node`` is or a name holds."""
        if node is None or depth > _DEPTH_MAX:
            return None
        if node.type == "call":
            function = node.child_by_field_name("function")
            return node if self.text(function).rsplit(".", 1)[-1] == class_name else None
        if node.type == "identifier":
            for value, how in self.file.lookup(self.text(node), node.start_byte)[:_BINDINGS_MAX]:
                if how == "value":
                    found = self.holder(value, class_name, depth + 1)
                    if found is not None:
                        return found
        return None

    def url_of(self, node: tree_sitter.Node | None) -> tuple[str, str]:
        if node is None:
            return "", ""
        _, host, address, _ = self.file.url(self.file.parts(node))
        return host, address


# -- Java and Kotlin --------------------------------------------------------------------------------

#: Packages of generators' runtimes (their default invoker packages).
_JVM_RUNTIME: Final = ("org.openapitools.client", "io.swagger.client")
#: Libraries beside the extractors' own whose classes are named like API classes (springdoc's ``GroupedOpenApi``,
#: gitlab4j's ``GitLabApi``) or that ship a generated client of a public API (Datadog, Ory, Twitter...).
_JVM_LIBRARIES: Final = (
    "org.springdoc.", "springfox.", "org.openapitools.jackson.", "com.github.tomakehurst.", "org.gitlab4j.",
    "com.datadog.", "sh.ory.", "com.twitter.", "com.docusign.", "com.plaid.", "com.hubspot.", "io.argoproj.",
    "dev.openfga.", "com.launchdarkly.", "com.mailchimp.", "com.xero.", "com.onfido.",
)  # fmt: skip
#: Classes of a generated client's runtime, imported from a package of the workspace.
_JVM_RUNTIME_CLASSES: Final = frozenset(
    {"ApiClient", "ApiException", "ApiResponse", "ClientException", "ServerException"}
)
_JVM_BASE_SETTERS: Final = frozenset({"setBasePath", "updateBaseUri"})
#: ``apiClient.buildClient(PetApi.class)`` (the feign library), ``apiClient.createService(PetApi.class)`` (retrofit2).
_JVM_FACTORIES: Final = frozenset({"buildClient", "createService"})


def jvm_calls(engine: _Engine, calls: Sequence[tree_sitter.Node]) -> None:
    """Add the operations called on generated API classes among ``calls`` (and the ``client:``
    settings of the ones the file makes with a base address) to ``engine``."""
    from ._jvm_fluent import LIBRARY_ROOTS  # noqa: PLC0415 - that module imports the engine's

    libraries = LIBRARY_ROOTS + _JVM_LIBRARIES
    modules = engine.modules
    runtime = any(
        module.startswith(_JVM_RUNTIME)
        or (module.rsplit(".", 1)[-1] in _JVM_RUNTIME_CLASSES and not module.startswith(libraries))
        for module in modules
    )
    wildcards = [
        module[:-2] for module in modules
        if module.endswith(".*") and generated_path(module[:-2]) and _jvm_foreign(module, libraries)
    ]  # fmt: skip
    candidates = {
        module.rsplit(".", 1)[-1]: module for module in modules
        if API_CLASS.match(module.rsplit(".", 1)[-1]) and _jvm_foreign(module, libraries)
    }  # fmt: skip
    if not candidates and not wildcards and not runtime:
        return
    _Jvm(engine, candidates, bool(wildcards) or runtime, runtime).run(calls)


def _jvm_foreign(module: str, libraries: tuple[str, ...]) -> bool:
    """Whether an import is of a package that is no library (Swagger Codegen's default package is one)."""
    return module.startswith(_JVM_RUNTIME) or not module.startswith(libraries)


class _Jvm:
    def __init__(self, engine: _Engine, candidates: dict[str, str], unimported: bool, runtime: bool) -> None:
        self.engine = engine
        self.candidates = candidates
        self.unimported = unimported
        self.runtime = runtime
        self.gates: dict[str, str] = {}
        #: receiver as written -> arguments of its ``setBasePath(url)`` calls
        self.setters: dict[str, list[tree_sitter.Node]] = {}

    def gate(self, kind: str) -> str:
        if kind not in self.gates:
            self.gates[kind] = self._gate(kind)
        return self.gates[kind]

    def _gate(self, kind: str) -> str:
        engine = self.engine
        if not API_CLASS.match(kind) or kind in engine.type_index:
            return ""  # declared here: a hand-written class
        module = self.candidates.get(kind)
        if module is not None:
            if not generated_path(module.rsplit(".", 1)[0]) and not self.runtime:
                return ""
            return SWAGGER_CODEGEN if module.startswith("io.swagger.client.") else OPENAPI_GENERATOR
        if any(item.rsplit(".", 1)[-1] == kind for item in engine.modules):
            return ""  # imported from a library
        return OPENAPI_GENERATOR if self.unimported else ""

    def run(self, calls: Sequence[tree_sitter.Node]) -> None:
        engine = self.engine
        normalized = []
        for node in calls:
            name = engine.call_name(node)
            if not name:
                continue
            if name in _JVM_BASE_SETTERS:
                call = engine.s.call(node)
                if call is not None and call.receiver is not None and call.args:
                    self.setters.setdefault(engine.written(call.receiver), []).append(call.args[0])
                continue
            if name[:1].isupper():
                if self.gate(name):
                    normalized.append((node, name))
                continue
            if operation(name, "jvm") or name in _JVM_FACTORIES:
                normalized.append((node, name))
        for node, name in normalized:
            call = engine.s.call(node)
            if call is None:
                continue
            if call.new or name in _JVM_FACTORIES:
                self.setting(call)
                continue
            op = operation(name, "jvm")
            if call.receiver is None:
                continue
            tag, inner, _ = engine.s.shape(call.receiver)
            made = engine.s.call(inner) if tag == "call" else None  # type: ignore[arg-type]
            if tag not in ("name", "this") and (made is None or not made.new):
                continue  # the result of another call (a builder's) is no API instance
            kind = engine.type_of(call.receiver)
            if not self.gate(kind):  # ``var api = apiClient.buildClient(PetApi.class)``
                kind = next((found for value in self.values(call.receiver) if (found := self.factory(value)[0])), "")
            generator = self.gate(kind)
            if not generator:
                continue
            host, address = self.receiver_base(call.receiver, kind)
            if not host and not address:
                address = "client:" + kind
            line = call.anchor.start_point[0] + 1
            engine.add(call.anchor, _call(line, engine.symbol(call.anchor), host, address, generator, op))

    def factory(self, node: tree_sitter.Node) -> tuple[str, object]:
        """(API class, the factory call) of ``apiClient.buildClient(PetApi.class)``; ("", None) otherwise."""
        engine = self.engine
        tag, inner, _ = engine.s.shape(node)
        call = engine.s.call(inner) if tag == "call" else None  # type: ignore[arg-type]
        if call is None or call.name not in _JVM_FACTORIES or len(call.args) != 1:
            return "", None
        kind, type_name, _ = engine.s.shape(call.args[0])
        if kind != "class" or not type_name:
            return "", None
        name = str(type_name).rsplit(".", 1)[-1]
        return (name, call) if self.gate(name) else ("", None)

    def values(self, receiver: tree_sitter.Node) -> list[tree_sitter.Node]:
        """What a receiver may hold: itself when it is a call, else the values its declaration is given."""
        engine = self.engine
        tag, a, _ = engine.s.shape(receiver)
        if tag == "call":
            return [receiver]
        key = None
        if tag == "name":
            key = engine.lookup(a, receiver.start_byte)  # type: ignore[arg-type]
        elif tag == "this":
            klass = engine.class_of(receiver.start_byte)
            key = engine.member_key(klass, a) if klass >= 0 else None  # type: ignore[arg-type]
        return list(engine.values.get(key, ()))[:_BINDINGS_MAX] if key is not None else []

    def setting(self, made) -> None:
        """``new PetApi(apiClient)``, ``apiClient.buildClient(PetApi.class)`` with the client's base address
        shown: the setting ``client:PetApi``."""
        if made.new:
            kind = made.new.rsplit(".", 1)[-1]
            host, address, path = self.base(made)
        else:
            kind = self.factory(made.node)[0]
            found = self.read(self.client_base(made.receiver, 0) or []) if kind and made.receiver is not None else None
            host, address, path = found or ("", "", "")
        if not host and not address:
            return
        env = address.removeprefix("env:")
        if env.startswith("client:"):
            return
        self.engine.add(made.anchor, Setting("client:" + kind, made.anchor.start_point[0] + 1, host, env, path))

    def receiver_base(self, receiver: tree_sitter.Node, kind: str) -> tuple[str, str]:
        """(host, address) of the base address where the receiver is made in this file."""
        engine = self.engine
        for value in self.values(receiver):
            inner = engine.s.call(value) if engine.s.shape(value)[0] == "call" else None
            if inner is None:
                continue
            if inner.new.rsplit(".", 1)[-1] == kind:
                host, address, _ = self.base(inner)
            elif self.factory(value)[0] == kind and inner.receiver is not None:
                host, address, _ = self.read(self.client_base(inner.receiver, 0) or []) or ("", "", "")
            else:
                continue
            if host or address:
                return host, address
        return "", ""

    def base(self, made) -> tuple[str, str, str]:
        """(host, address, path) of the base address a construction is given: a URL argument
        (Kotlin's ``PetApi(basePath)``), or an ``ApiClient`` whose base path is set."""
        engine = self.engine
        arguments = [made.named[key] for key in ("basePath", "baseUrl") if key in made.named] + list(made.args[:2])
        for argument in arguments:
            pieces = self.client_base(argument, 0)
            if pieces is None:
                pieces = engine.value(argument)
            found = self.read(pieces)
            if found is not None:
                return found
        return "", "", ""

    def client_base(self, node: tree_sitter.Node, depth: int) -> list | None:
        """The pieces of the base path set on the ``ApiClient`` that ``node`` is or a name holds."""
        engine = self.engine
        if depth > _DEPTH_MAX:
            return None
        tag, a, _ = engine.s.shape(node)
        if tag == "call":
            call = engine.s.call(a)  # type: ignore[arg-type]
            if call is None:
                return None
            if call.name in _JVM_BASE_SETTERS and call.args:  # new ApiClient().setBasePath(url)
                return engine.value(call.args[0])
            if call.new and call.new.rsplit(".", 1)[-1] == "ApiClient":
                for key in ("basePath", "baseUrl"):
                    if key in call.named:
                        return engine.value(call.named[key])
            return None
        if tag in ("name", "this"):
            written = engine.written(node)
            for argument in self.setters.get(written, ())[:_BINDINGS_MAX]:
                return engine.value(argument)
            key = engine.lookup(a, node.start_byte) if tag == "name" else None  # type: ignore[arg-type]
            for value in engine.values.get(key, ())[:_BINDINGS_MAX] if key is not None else ():
                found = self.client_base(value, depth + 1)
                if found is not None:
                    return found
        return None

    def read(self, pieces: list) -> tuple[str, str, str] | None:
        from ._jvm_links import _ADDRESS, _split, _strip_port  # noqa: PLC0415

        parts = url_parts(_strip_port(list(pieces)))
        path = "" if parts.computed or parts.path == "/" else parts.path.rstrip("/")
        if parts.host:
            return parts.host, "", path
        if _ADDRESS.match(parts.base):
            return "", _split(parts.base)[0], path
        return None


# -- Go ---------------------------------------------------------------------------------------------

_GO_HINT: Final = re.compile(
    rb"NewAPIClient|APIClient|(?:Api|API)Service\b|ClientWithResponses|NewClient\s*\(|\*\s*\w+\.Client\b"
)
#: oapi-codegen's runtime: a file importing it uses a generated client.
_OAPI_RUNTIME: Final = ("github.com/oapi-codegen/", "github.com/deepmap/oapi-codegen")
_GO_CONTEXT: Final = re.compile(r"(?i)ctx|context")
#: oapi-codegen's client types and their constructors: name -> whether any package of the workspace may hold it
_OAPI_TYPES: Final = {"ClientWithResponses": True, "ClientWithResponsesInterface": True, "Client": False,
                      "ClientInterface": False}  # fmt: skip
_OAPI_CONSTRUCTORS: Final = {"NewClientWithResponses": "ClientWithResponses", "NewClient": "Client"}


def go_wanted(packages: dict[str, str], source: bytes) -> bool:
    """Whether a Go file may call a generated client: it imports a package of no library and makes or
    declares an OpenAPI Generator ``APIClient`` or an oapi-codegen client."""
    from ._go_links import _lib_of, _standard  # noqa: PLC0415 - that module imports this one

    if not _GO_HINT.search(source):
        return False
    return any(not _standard(path) and _lib_of(path) is None for path in packages.values())


def go_calls(links: _GoLinks, calls: Sequence[tree_sitter.Node]) -> None:
    """Add the operations called through generated clients among ``calls`` to ``links``."""
    if not go_wanted(links.packages, links.source):
        return
    _Go(links).run(calls)


class _Go:
    def __init__(self, links: _GoLinks) -> None:
        self.links = links
        self.oapi = any(path.startswith(_OAPI_RUNTIME) for path in links.packages.values())
        self.memo: dict[tuple[int, int, str], tuple[str, str, tree_sitter.Node | None] | None] = {}

    def text(self, node: tree_sitter.Node | None) -> str:
        return _ts.text(node, self.links.source)

    def run(self, calls: Sequence[tree_sitter.Node]) -> None:
        from ._go_links import _arguments, _strip  # noqa: PLC0415

        links = self.links
        for call in calls:
            function = call.child_by_field_name("function")
            if function is None or function.type != "selector_expression":
                continue
            field = function.child_by_field_name("field")
            method = self.text(field)
            arguments = _arguments(call)
            if not method[:1].isupper() or not arguments or not _GO_CONTEXT.search(self.text(arguments[0])):
                continue  # every generated operation takes its context first
            operand = _strip(function.child_by_field_name("operand"))
            if operand is None:
                continue
            found = self.service(operand)
            name = operation(method, "go") if found is not None else ""
            if found is None:
                found = self.oapi_client(operand, 0)
                name = oapi_operation(method) if found is not None else ""
            if found is None or not name:
                continue
            generator, made = found
            host, address = self.base(generator, made) if made is not None else ("", "")
            fact = _call(field.start_point[0] + 1, links.defs.symbol(field.start_byte), host, address, generator, name)
            links.calls.setdefault((field.start_byte, fact.method, fact.path), (field.start_byte, fact))

    def service(self, operand: tree_sitter.Node) -> tuple[str, tree_sitter.Node | None] | None:
        """OpenAPI Generator: ``client.PetApi`` (``client.PetAPI``) of an ``APIClient`` made or declared here,
        or a name declared as one of its services (``*pkg.PetAPIService``)."""
        if operand.type in ("identifier", "selector_expression"):  # svc *pkg.PetAPIService
            found = self.typed(operand, 0)
            if found is not None and found[0] == "service":
                return OPENAPI_GENERATOR, None
        if operand.type != "selector_expression":
            return None
        if not API_CLASS.match(self.text(operand.child_by_field_name("field"))):
            return None
        from ._go_links import _strip  # noqa: PLC0415

        root = _strip(operand.child_by_field_name("operand"))
        if root is None:
            return None
        found = self.typed(root, 0)
        if found is None or found[0] != "APIClient":
            return None
        return OPENAPI_GENERATOR, found[1]

    def oapi_client(self, operand: tree_sitter.Node, depth: int) -> tuple[str, tree_sitter.Node | None] | None:
        found = self.typed(operand, depth)
        if found is None or found[0] not in _OAPI_TYPES:
            return None
        return OAPI_CODEGEN, found[1]

    def typed(self, node: tree_sitter.Node, depth: int) -> tuple[str, tree_sitter.Node | None] | None:
        """(generated type, the call making it or None) of what an expression holds, memoised."""
        key = (node.start_byte, node.end_byte, node.type)
        if key not in self.memo:
            self.memo[key] = None
            self.memo[key] = self._typed(node, depth)  # type: ignore[assignment]
        return self.memo[key]  # type: ignore[return-value]

    def _typed(self, node: tree_sitter.Node, depth: int) -> tuple[str, tree_sitter.Node | None] | None:
        from ._go_links import _strip  # noqa: PLC0415

        links = self.links
        node = _strip(node)
        if node is None or depth > _DEPTH_MAX:
            return None
        if node.type == "call_expression":
            return self.made(node)
        if node.type == "selector_expression":
            field = self.text(node.child_by_field_name("field"))
            for value in links.field_values.get(field, [])[:_BINDINGS_MAX]:
                found = self.made(_strip(value))
                if found is not None:
                    return found
            return self.declared(links.field_types.get(field))
        if node.type != "identifier":
            return None
        name = self.text(node)
        offset = node.start_byte
        scope = links.scope(offset)
        for key in ((scope, name), (-1, name)) if scope >= 0 else ((-1, name),):
            records = links.assigns.get(key)
            if records:
                before = [record for record in records if record[0] < offset] or records
                for _, value, position in before[::-1][:_BINDINGS_MAX]:
                    if position in (-1, 0):
                        value = _strip(value)
                        if value is not None and value.type in ("identifier", "selector_expression"):
                            found = self.typed(value, depth + 1)
                        else:
                            found = self.made(value)
                        if found is not None:
                            return found
                return None
            if key in links.params:
                return self.declared(links.params[key][2])
            if key in links.var_types:
                return self.declared(links.var_types[key])
        return None

    def made(self, value: tree_sitter.Node | None) -> tuple[str, tree_sitter.Node | None] | None:
        """``pkg.NewAPIClient(cfg)``, ``pkg.NewClientWithResponses(server)``, ``pkg.NewClient(server)``."""
        if value is None or value.type != "call_expression":
            return None
        function = value.child_by_field_name("function")
        if function is None or function.type != "selector_expression":
            return None
        package = function.child_by_field_name("operand")
        name = self.text(function.child_by_field_name("field"))
        if package is None or package.type != "identifier":
            return None
        if name == "NewAPIClient":
            return ("APIClient", value) if self.workspace(self.text(package), strong=False) else None
        kind = _OAPI_CONSTRUCTORS.get(name)
        if kind is None or not self.workspace(self.text(package), strong=not _OAPI_TYPES[kind]):
            return None
        return kind, value

    def declared(self, node: tree_sitter.Node | None) -> tuple[str, None] | None:
        """``*pkg.APIClient``, ``*pkg.ClientWithResponses``, ``pkg.ClientWithResponsesInterface``."""
        for _ in range(4):
            if node is None or node.type != "pointer_type":
                break
            node = node.named_child(0)
        if node is None or node.type != "qualified_type":
            return None
        name = self.text(node.child_by_field_name("name"))
        package = self.text(node.child_by_field_name("package"))
        if name == "APIClient":
            return (name, None) if self.workspace(package, strong=False) else None
        if name.endswith("Service") and API_CLASS.match(name[:-7]):  # a service of an APIClient: *pkg.PetAPIService
            return ("service", None) if self.workspace(package, strong=False) else None
        if name in _OAPI_TYPES and self.workspace(package, strong=not _OAPI_TYPES[name]):
            return name, None
        return None

    def workspace(self, package: str, strong: bool) -> bool:
        """Whether ``package`` is imported from a package of no library known here; with ``strong``,
        one whose path says it is generated (or the file imports oapi-codegen's runtime)."""
        from ._go_links import _lib_of, _standard  # noqa: PLC0415

        path = self.links.packages.get(package)
        if not path or _standard(path) or _lib_of(path) is not None:
            return False
        return not strong or self.oapi or generated_path(path + "/" + package, strong=True)

    def base(self, generator: str, made: tree_sitter.Node) -> tuple[str, str]:
        """(host, address): oapi-codegen's server argument; OpenAPI Generator's configuration servers
        (``cfg.Servers = pkg.ServerConfigurations{{URL: url}}``)."""
        from ._go_links import _arguments  # noqa: PLC0415

        arguments = _arguments(made)
        if not arguments:
            return "", ""
        if generator == OAPI_CODEGEN:
            return self.url_of(arguments[0])
        servers = [
            value
            for value in self.links.field_values.get("Servers", [])
            if value.type == "composite_literal"
            and "ServerConfiguration" in self.text(value.child_by_field_name("type"))
        ]
        url = self.keyed(servers[0], "URL", 0) if len(servers) == 1 else None  # two: whose is whose is unseen
        return self.url_of(url) if url is not None else ("", "")

    def keyed(self, literal: tree_sitter.Node, key: str, depth: int) -> tree_sitter.Node | None:
        """The first value keyed ``key`` in a (nested) composite literal."""
        if depth > 3:
            return None
        body = literal.child_by_field_name("body") if literal.type == "composite_literal" else literal
        for element in body.named_children if body is not None else ():
            if element.type == "keyed_element":
                found_key, value = self.links.keyed(element)
                if found_key is not None and self.text(found_key) == key:
                    return value
            elif element.type in ("literal_element", "literal_value", "composite_literal"):
                inner = (
                    element.named_child(0)
                    if element.type == "literal_element" and element.named_child_count
                    else element
                )
                if inner is not None and inner.type in ("literal_value", "composite_literal"):
                    found = self.keyed(inner, key, depth + 1)
                    if found is not None:
                        return found
        return None

    def url_of(self, node: tree_sitter.Node) -> tuple[str, str]:
        from ._go_links import _drop_ports, _merge  # noqa: PLC0415

        pieces = _drop_ports(_merge(self.links.pieces_or_expression(node)))
        parts = url_parts([(literal, text) for literal, text, _ in pieces])
        if parts.host:
            return parts.host, ""
        address = pieces[0][2] if pieces and pieces[0][2] else ""
        if not address and parts.base:
            address = next((a for literal, text, a in pieces if not literal and text == parts.base and a), "")
        return "", address
