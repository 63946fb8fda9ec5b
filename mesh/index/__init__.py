"""The workspace index: which files, which services, what they define and use.

Names are imported on first use (PEP 562), so a module that needs one query (a tool's) does not
pay for the builder, the parsers' dispatch and the watcher at start-up.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "Config": ".build._workspace",
    "ConfigError": ".build._workspace",
    "Constant": "._facts",
    "Definition": "._facts",
    "Dependency": "._facts",
    "FileEntry": ".build._enumerate",
    "FileFacts": "._facts",
    "GrpcFact": "._facts",
    "GrpcRole": "._facts",
    "HttpCall": "._facts",
    "HttpRoute": "._facts",
    "Import": "._facts",
    "Index": ".build._build",
    "MessageFact": "._facts",
    "Namespace": "._facts",
    "Setting": "._facts",
    "IndexUnavailable": ".store._store",
    "Progress": ".build._build",
    "ProtoField": "._facts",
    "ProtoFile": "._facts",
    "ProtoMessage": "._facts",
    "ProtoMethod": "._facts",
    "ProtoService": "._facts",
    "Reference": "._facts",
    "ReferenceKind": "._facts",
    "Section": "._facts",
    "Service": ".build._workspace",
    "Skipped": ".build._enumerate",
    "Store": ".store._store",
    "Summary": ".build._build",
    "Walk": ".build._enumerate",
    "Watcher": ".build._watch",
    "Workspace": ".build._workspace",
    "discover_services": ".build._workspace",
    "load_config": ".build._workspace",
    "walk": ".build._enumerate",
}

__all__ = [
    "Config",
    "ConfigError",
    "Constant",
    "Definition",
    "Dependency",
    "FileEntry",
    "FileFacts",
    "GrpcFact",
    "GrpcRole",
    "HttpCall",
    "HttpRoute",
    "Import",
    "Index",
    "IndexUnavailable",
    "MessageFact",
    "Namespace",
    "Progress",
    "ProtoField",
    "ProtoFile",
    "ProtoMessage",
    "ProtoMethod",
    "ProtoService",
    "Reference",
    "ReferenceKind",
    "Section",
    "Service",
    "Setting",
    "Skipped",
    "Store",
    "Summary",
    "Walk",
    "Watcher",
    "Workspace",
    "discover_services",
    "load_config",
    "walk",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'mesh.index' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
