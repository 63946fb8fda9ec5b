"""The workspace index: which files, which services, what they define and use."""

from ._build import Index, Progress, Summary
from ._enumerate import FileEntry, Skipped, Walk, walk
from ._facts import (
    Definition,
    Dependency,
    FileFacts,
    GrpcFact,
    GrpcRole,
    Import,
    ProtoField,
    ProtoFile,
    ProtoMessage,
    ProtoMethod,
    ProtoService,
    Section,
)
from ._store import IndexUnavailable, Store
from ._watch import Watcher
from ._workspace import Config, ConfigError, Service, Workspace, discover_services, load_config

__all__ = [
    "Config",
    "ConfigError",
    "Definition",
    "Dependency",
    "FileEntry",
    "FileFacts",
    "GrpcFact",
    "GrpcRole",
    "Import",
    "Index",
    "IndexUnavailable",
    "Progress",
    "ProtoField",
    "ProtoFile",
    "ProtoMessage",
    "ProtoMethod",
    "ProtoService",
    "Section",
    "Service",
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
