"""The same input gives the same bytes, in another process, under another hash seed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import hashlib, sys
from tests.support.memory import initialize, notification, request, run, stateless
from mesh.protocol import SessionConfig

parts = [initialize("2025-03-26"), b"garbage\n", b'{"jsonrpc":"2.0","id":1.5,"method":"x"}\n', b"x" * 300 + b"\n"]
for i in range(50):
    parts.append(request(i, "tools/call", {"name": ["echo", "crash", "nope"][i % 3], "arguments": {"k" + str(i): i, "z": [i]}}))
    parts.append(request("s" + str(i), "tools/list"))
    parts.append(notification("notifications/cancelled", {"requestId": i - 1}))
parts.append(b'[' + request(99, "ping").rstrip() + b',' + request(98, "tools/call", {"name": "echo"}).rstrip() + b']\n')
parts.append(stateless(7, "server/discover"))
out = run(b"".join(parts), SessionConfig(max_frame_bytes=256), chunks=[7, 1, 64])
sys.stdout.write(hashlib.sha256(out).hexdigest() + " " + str(len(out.splitlines())))
"""


def digest_under(seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_same_bytes_under_different_hash_seeds_INV_DET_2() -> None:
    """INV-DET-2."""
    digests = {seed: digest_under(seed) for seed in ("0", "1", "4242")}
    assert len(set(digests.values())) == 1, digests
    assert int(next(iter(digests.values())).split()[1]) > 100
