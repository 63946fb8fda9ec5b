"""Badly behaved tools for the journeys, loaded with MESH_TOOL_PLUGINS=tests.journeys.noisy_tools.

``noisy`` writes to stdout every way a tool (or a library it calls) might: ``print``, the
interpreter's original ``sys.__stdout__``, the raw file descriptor 1, and a child process that
inherits it. ``stubborn`` ignores its cancellation. With NOISY_TOOLS_IMPORT_NOISE=1 the module
also prints while it is imported, as some libraries do.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import attrs

from mesh.tools import CallContext, Registry, Tool, describe

#: Each string one way of writing to stdout; all must end up on stderr.
NOISE = ("print-noise", "dunder-stdout-noise", "raw noise", "child-noise")
IMPORT_NOISE = "import-noise"

if os.environ.get("NOISY_TOOLS_IMPORT_NOISE") == "1":
    print(IMPORT_NOISE)


@attrs.frozen(kw_only=True)
class NoArgs:
    pass


@attrs.frozen(kw_only=True)
class StubbornArgs:
    ms: int = attrs.field(metadata=describe("How long to wait, whatever happens", minimum=0, maximum=60_000))


def _noisy(args: NoArgs, ctx: CallContext) -> str:
    print(NOISE[0])
    print(NOISE[1], file=sys.__stdout__, flush=True)
    os.write(1, NOISE[2].encode() + b"\n")
    subprocess.run(["echo", NOISE[3]], check=True, timeout=10)
    return "made some noise"


def _stubborn(args: StubbornArgs, ctx: CallContext) -> str:
    time.sleep(args.ms / 1000)  # never looks at ctx.cancelled
    return f"slept {args.ms} ms"


TOOLS = (
    Tool("noisy", "Write to stdout in every way there is.", NoArgs, _noisy),
    Tool("stubborn", "Wait, ignoring cancellation.", StubbornArgs, _stubborn),
)


def register(registry: Registry) -> None:
    for tool in TOOLS:
        registry.register(tool)
