"""bench/gen_workspace.py: the same seed and size give the same bytes, and mesh finds in the tree
what the generator put there (its services by their Compose names, each RPC's server and clients,
the importers of a hub module).

The generator is run as a script (bench/ is no package of the suite); what it should have written
is read back from the tree itself (the Compose file and the root README), not from its code.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from mesh.index import Index
from mesh.tools._dependents import Args as DependentsArgs
from mesh.tools._dependents import run as dependents
from mesh.tools._grpc_trace import Args as TraceArgs
from mesh.tools._grpc_trace import run as grpc_trace
from mesh.tools._view import View

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "bench" / "gen_workspace.py"


def generate(out: Path, files: int, seed: int, hash_seed: str = "0") -> None:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    subprocess.run(
        [sys.executable, str(GENERATOR), "--files", str(files), "--seed", str(seed), str(out)],
        env=env, check=True, capture_output=True,
    )  # fmt: skip


def digest(root: Path) -> tuple[int, str]:
    """(file count, sha256 over every relative path and its bytes, in path order)."""
    paths = sorted(path for path in root.rglob("*") if path.is_file())
    total = hashlib.sha256()
    for path in paths:
        total.update(path.relative_to(root).as_posix().encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return len(paths), total.hexdigest()


def test_same_seed_and_size_give_a_byte_identical_tree(tmp_path: Path) -> None:
    generate(tmp_path / "a", 1200, 7, hash_seed="1")
    generate(tmp_path / "b", 1200, 7, hash_seed="2")
    generate(tmp_path / "c", 1200, 8)
    count_a, digest_a = digest(tmp_path / "a")
    count_b, digest_b = digest(tmp_path / "b")
    count_c, digest_c = digest(tmp_path / "c")
    assert count_a == count_b == count_c == 1200
    assert digest_a == digest_b
    assert digest_c != digest_a


def test_sizes_are_long_tailed_around_five_kilobytes(tmp_path: Path) -> None:
    generate(tmp_path / "w", 3000, 3)
    sizes = sorted(path.stat().st_size for path in (tmp_path / "w").rglob("*") if path.is_file())
    median = sizes[len(sizes) // 2]
    assert 3500 <= median <= 6500, median
    assert sizes[-1] >= 100_000  # a heavy tail: with sigma 1.05, ~4 of 3,000 files
    assert sizes[int(len(sizes) * 0.9)] >= 3 * median


def test_bad_usage_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--files", "50", "--seed", "1", str(tmp_path / "small")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "at least 200" in done.stderr
    assert not (tmp_path / "small").exists()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--files", "300", "--seed", "1", str(tmp_path / "full")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "not empty" in done.stderr
    assert [path.name for path in (tmp_path / "full").iterdir()] == ["keep.txt"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Index]]:
    tree = tmp_path_factory.mktemp("generated") / "ws"
    generate(tree, 400, 11)
    index = Index(tree, tmp_path_factory.mktemp("generated-index"), workers=1)
    summary = index.refresh()
    assert summary.failures == ()
    yield tree, index
    index.close()


def planned(tree: Path) -> dict[str, dict]:
    """name -> language, gRPC service key, the services whose Compose environment dials it."""
    services = {
        name: {"language": language, "grpc": grpc, "callers": set()}
        for name, language, grpc in re.findall(r"^- `([a-z-]+)` \((\w+)\): \w+, `([\w.]+)`$",
                                               (tree / "README.md").read_text(), re.M)
    }  # fmt: skip
    by_env = {name.upper().replace("-", "_"): name for name in services}
    caller = ""
    for line in (tree / "docker-compose.yml").read_text().splitlines():
        if re.fullmatch(r"  [a-z-]+:", line):
            caller = line.strip(" :")
        found = re.fullmatch(r"      (\w+)_ADDR: .*", line)
        if found and found.group(1) in by_env:
            services[by_env[found.group(1)]]["callers"].add(caller)
    return services


def test_mesh_discovers_the_services_by_their_compose_names(generated: tuple[Path, Index]) -> None:
    tree, index = generated
    plan = planned(tree)
    assert sorted(spec["language"] for spec in plan.values()) == ["go", "java", "python", "rust", "typescript"]
    with index.store.snapshot() as db:
        found = dict(db.execute("SELECT name, path FROM services"))
    for name in plan:
        assert found.get(name) == f"services/{name}"
    assert not {"src", "services", "internal", "app"} & set(found)


def test_grpc_trace_of_a_generated_method_finds_its_server_and_every_client(generated: tuple[Path, Index]) -> None:
    tree, index = generated
    plan = planned(tree)
    assert sum(len(spec["callers"]) for spec in plan.values()) == 2 * len(plan)
    with index.store.snapshot() as db:
        view = View(db, index.root)
        for name, spec in plan.items():
            proto = (tree / "proto" / "acme" / name.replace("-", "") / "v1" / f"{name.replace('-', '')}.proto").read_text()
            (method,) = re.findall(r"rpc (Get\w+)\(", proto)
            result = attrs.asdict(grpc_trace(TraceArgs(target=f"{spec['grpc']}/{method}"), view).result)
            assert [row["scope"] for row in result["implementers"]] == [name], (name, spec["language"])
            assert {row["scope"] for row in result["callers"]} == spec["callers"], (name, spec["language"])
            assert result["gaps"] == []


def test_dependents_of_a_hub_module_lists_its_importers(generated: tuple[Path, Index]) -> None:
    tree, index = generated
    hub = "libs/go/platform/log"
    importers = sorted(
        path.relative_to(tree).as_posix()
        for path in tree.rglob("*.go")
        if '"github.com/acme/platform/log"' in path.read_text()
    )
    assert len(importers) > 20
    with index.store.snapshot() as db:
        result = attrs.asdict(dependents(DependentsArgs(target=hub, depth=1), View(db, index.root)).result)
    assert result["total"] == len(importers)
    shown = sorted(row["path"] for row in result["dependents"])
    assert set(shown) <= set(importers) and shown
