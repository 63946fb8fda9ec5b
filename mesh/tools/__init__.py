"""The tool framework: registry, argument classes with derived JSON Schema, bounded answers.

The code-intelligence tools themselves (``smart_search``, ``dependents``, ``grpc_trace``,
``impact_matrix``, ``doc_sections``) are in :func:`builtin_registry`, bound to a workspace index;
plugins (``MESH_TOOL_PLUGINS``) and tests may register more.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from ._args import ArgumentError, Meta, describe, parse_args, schema_of
from ._builtin import builtin_registry
from ._registry import CallContext, Registry, Tool, ToolError, ToolOutput
from ._trace import trace_id_of

__all__ = [
    "ArgumentError",
    "CallContext",
    "Meta",
    "Registry",
    "Tool",
    "ToolError",
    "ToolOutput",
    "builtin_registry",
    "describe",
    "load_plugins",
    "parse_args",
    "schema_of",
    "trace_id_of",
]


def load_plugins(registry: Registry, modules: Iterable[str]) -> None:
    """Import each module and call its ``register(registry)``.

    Raises ``ImportError`` or ``AttributeError`` naming the module that could not be loaded.
    """
    for name in modules:
        module = importlib.import_module(name)
        register = getattr(module, "register", None)
        if not callable(register):
            raise AttributeError(f"tool plugin {name!r} has no register(registry) function")  # noqa: TRY004 - documented
        register(registry)
