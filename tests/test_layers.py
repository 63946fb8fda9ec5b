"""The layering rules of ARCHITECTURE.md, checked on every run."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = ROOT / "mesh" / "protocol"
FORBIDDEN = {
    "os", "sys", "io", "time", "datetime", "random", "secrets", "socket", "select", "selectors", "signal",
    "threading", "multiprocessing", "concurrent", "asyncio", "subprocess", "logging", "sqlite3", "pathlib",
    "shutil", "tempfile", "importlib", "uuid",
}  # fmt: skip
FORBIDDEN_CALLS = {"open", "print", "input", "__import__", "id", "hash", "eval", "exec"}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def test_protocol_core_imports_no_io_clock_or_randomness_INV_DET_1() -> None:
    """INV-DET-1."""
    offences = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in sorted(PROTOCOL.glob("*.py"))
        for line, module in imported_modules(path)
        if module.split(".")[0] in FORBIDDEN or (module.startswith("mesh") and not module.startswith("mesh.protocol"))
    ]
    assert offences == []


def test_protocol_core_calls_no_io_or_identity_builtins_INV_DET_1() -> None:
    """INV-DET-1."""
    offences = []
    for path in sorted(PROTOCOL.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS:
                offences.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.func.id}()")
    assert offences == []


def test_import_linter_contracts_hold_INV_DET_1() -> None:
    """INV-DET-1."""
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if lint is None:
        pytest.fail("lint-imports is not installed: install the test extras (pip install -e '.[test]')")
    result = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout
