"""The official TypeScript MCP SDK for the journeys: installed once per lock file, run with node.

``tests/journeys/node/`` pins the SDK (``package.json`` and its ``package-lock.json``) and holds
the clients written with it: ``sdk_client.mjs`` (stdio) and ``sdk_http_client.mjs`` (Streamable
HTTP). :func:`node_sdk_client` installs them (``npm ci``) into a folder of the user's cache named
by a digest of these files, so a second run (or a
second xdist worker) finds it ready; the install happens in a temporary folder renamed into place.
Without node and npm, or when the install fails (no registry), the test using it is skipped and
says why.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Final

import pytest

SOURCE: Final = Path(__file__).resolve().parent / "node"
FILES: Final = ("package.json", "package-lock.json", "sdk_client.mjs", "sdk_http_client.mjs")
INSTALL_TIMEOUT_S: Final = 300.0


def node_sdk_client() -> Path:
    """The folder holding the client scripts and their ``node_modules`` (installed on first use)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed: the TypeScript SDK client cannot run")
    digest = hashlib.sha256(b"".join((SOURCE / name).read_bytes() for name in FILES)).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = cache / "mesh-tests" / f"node-sdk-{digest}"
    if (folder / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        for name in FILES:
            shutil.copy(SOURCE / name, staging / name)
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--silent"],
            cwd=staging,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
            check=False,
        )
        if done.returncode != 0:
            pytest.skip(f"npm ci of the TypeScript SDK failed (exit {done.returncode}): {done.stderr[-500:]}")
        try:
            staging.rename(folder)
        except OSError:  # another worker installed it first
            pass
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder
