"""A saved edit until it is visible, on a kept scale cache, with the mesh of any checkout: before and
after a change side by side, without a cold build.

Run by hand (never in CI), after ``bench/scale.py`` left its trees and caches in ``--work``::

    git worktree add /tmp/mesh-before <commit>
    for checkout in /tmp/mesh-before .; do
        .venv/bin/python bench/edit_visible.py --checkout $checkout --files 100000 --work /tmp/mesh-scale
    done

The checkout's ``mesh`` is imported (its own index code, reading and writing the kept cache);
the loop is this bench's ``index.timed_edits`` (a marker function appended ``--edits`` times to the
median and to the largest Python file, each timed until a snapshot defines it) with the watcher
running, after a refresh and, when the checkout has it, ``Index.prepare_edits`` (what a server does
once its first refresh is done). The index is refreshed again at the end: the file's bytes are
back, so is the index. One JSON line per run on stdout: the first edit, the median of all, and the
median of all but the first, per file. ``--adds N`` also writes a new file beside the median one N
times (timed until a snapshot defines it) and removes it (timed until the index no longer lists it);
``--only-adds`` skips the edits; ``--add-name utils`` adds ``utils.py`` (a stem many imports may
name) instead of a file of a name nobody imports. ``--folders N`` makes and removes a new folder of
three Python files N times, ``--protos N`` edits the first ``.proto`` N times (a comment; with
``--proto-shape`` a new message), ``--manifests N`` edits the first ``--manifest-name`` (default
``package.json``: a key added) N times, each timed through ``Index.refresh(changed=[...])`` directly;
``--manifest-set PATH KEY=VALUE`` sets a key of that JSON manifest (a package's ``name``, a
tsconfig's ``compilerOptions.baseUrl``) and puts it back, ``--manifests`` times (at least once), each
rewrite timed the same way.

``--loud`` times, instead of the median and the largest file, *loud* edits (INV-INDEX-11): of the
first Python file by path holding a gRPC server type (``grpc``), of the first holding an HTTP route
and no gRPC fact (``http``), and of the median Python file of that server type's folder with the
type's name added in a comment (``names``: a subclass candidate of it). ``--tree``/``--cache`` name
a tree and a cache root other than ``bench/scale.py``'s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkout", type=Path, required=True, help="the mesh-mcp checkout whose index code runs")
    parser.add_argument("--files", type=int, required=True, help="the size of the scale tree (bench/scale.py)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=Path, required=True, help="bench/scale.py's --work")
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--adds", type=int, default=0, help="also add and remove a new file this many times")
    parser.add_argument("--only-adds", action="store_true", help="no edits of existing files")
    parser.add_argument("--add-name", default="", help="the added file's stem (utils, __init__); else a unique one")
    parser.add_argument("--folders", type=int, default=0, help="also make and remove a new folder this many times")
    parser.add_argument("--protos", type=int, default=0, help="also edit the first .proto this many times")
    parser.add_argument("--proto-shape", action="store_true", help="the .proto edits add a message (a new shape)")
    parser.add_argument("--manifests", type=int, default=0, help="also edit a manifest this many times")
    parser.add_argument("--manifest-name", default="package.json", help="which manifest (go.mod, Dockerfile...)")
    parser.add_argument("--manifest-set", nargs=2, metavar=("PATH", "KEY=VALUE"),
                        help="also set a key of this JSON manifest (name=@acme/x, compilerOptions.baseUrl=src) and "
                        "put it back, --manifests times each")  # fmt: skip
    parser.add_argument("--loud", action="store_true", help="time loud edits (gRPC, HTTP, a server type's name)")
    parser.add_argument("--tree", type=Path, help="the tree (default: --work's ws-FILES-sSEED)")
    parser.add_argument("--cache", type=Path, help="the cache root (default: --work's cache-FILES-sSEED)")
    args = parser.parse_args()
    sys.path.insert(0, str(args.checkout.resolve()))
    sys.path.insert(1, str(BENCH))
    import index as bench_index  # noqa: PLC0415  this bench's timed_edits

    from mesh.index import Index  # noqa: PLC0415  the checkout's
    from mesh.workspace import cache_dir  # noqa: PLC0415

    tree = args.tree or args.work / f"ws-{args.files}-s{args.seed}"
    cache_root = args.cache or args.work / f"cache-{args.files}-s{args.seed}"
    cache = cache_dir(tree, {"MESH_CACHE_DIR": str(cache_root)})
    if not (cache / "index.db").exists():
        parser.error(f"no index in {cache}: run bench/scale.py --sizes {args.files} --work {args.work} first")
    index = Index(tree, cache, keep_workers=True)
    try:
        started = time.perf_counter()
        index.refresh()
        out: dict = {"checkout": str(args.checkout), "mesh": str(Path(sys.modules["mesh"].__file__).parent),
                     "files": args.files, "refresh_s": time.perf_counter() - started}  # fmt: skip
        started = time.perf_counter()
        if hasattr(index, "prepare_edits"):
            index.prepare_edits()
        out["prepare_s"] = time.perf_counter() - started
        picks = _loud_picks(index, tree) if args.loud else {"median": (None, ""), "largest": (None, "")}
        for pick, (victim, extra) in () if args.only_adds else picks.items():
            latencies, path, size = bench_index.timed_edits(
                index, tree, args.edits, pick, limit_s=120, path=victim, extra=extra
            )
            out[pick] = {
                "file": path, "bytes": size, "first_ms": latencies[0] * 1000,
                "p50_ms": statistics.median(latencies) * 1000, "p50_after_first_ms": statistics.median(latencies[1:]) * 1000,
            }  # fmt: skip
        if args.adds and hasattr(bench_index, "timed_adds"):
            shown, gone, folder = bench_index.timed_adds(index, tree, args.adds, limit_s=120, name=args.add_name)
            out["added"] = {"folder": folder, "p50_ms": statistics.median(shown) * 1000,
                            "first_ms": shown[0] * 1000, "max_ms": max(shown) * 1000}  # fmt: skip
            out["removed"] = {"p50_ms": statistics.median(gone) * 1000, "first_ms": gone[0] * 1000,
                              "max_ms": max(gone) * 1000}  # fmt: skip
        if args.folders and hasattr(bench_index, "timed_folders"):
            made, gone, folder = bench_index.timed_folders(index, tree, args.folders)
            out["folder_made"] = {"folder": folder, "ms": [round(x * 1000, 1) for x in made],
                                  "p50_after_first_ms": statistics.median(made[1:] or made) * 1000}  # fmt: skip
            out["folder_gone"] = {"ms": [round(x * 1000, 1) for x in gone], "p50_ms": statistics.median(gone) * 1000}
        if args.protos:
            took, proto = bench_index.timed_proto_edits(index, tree, args.protos, shape=args.proto_shape)
            out["proto_edit"] = {"file": proto, "shape": args.proto_shape, "ms": [round(x * 1000, 1) for x in took],
                                 "p50_after_first_ms": statistics.median(took[1:] or took) * 1000}  # fmt: skip
        if args.manifests and hasattr(bench_index, "timed_manifest_edits"):
            took, manifest = bench_index.timed_manifest_edits(index, tree, args.manifests, args.manifest_name)
            out["manifest_edit"] = {"file": manifest, "ms": [round(x * 1000, 1) for x in took],
                                    "p50_after_first_ms": statistics.median(took[1:] or took) * 1000}  # fmt: skip
        if args.manifest_set and hasattr(bench_index, "timed_manifest_sets"):
            relative, assignment = args.manifest_set
            key, _, value = assignment.partition("=")
            took = bench_index.timed_manifest_sets(index, tree, max(args.manifests, 1), relative, key, value)
            out["manifest_set"] = {"file": relative, "set": assignment,
                                   "set_ms": [round(x * 1000, 1) for x in took[::2]],
                                   "restore_ms": [round(x * 1000, 1) for x in took[1::2]]}  # fmt: skip
        index.refresh()
    finally:
        index.close()
    print(json.dumps(out))
    return 0


def _loud_picks(index, tree: Path) -> dict[str, tuple[str, str]]:
    """pick -> (the file, the text added before each marker) of the loud edits (see the docstring)."""
    with index.store.snapshot() as db:
        path, symbol = db.execute(
            "SELECT f.path, g.symbol FROM grpc g JOIN files f ON f.id = g.file_id WHERE g.role = 'server'"
            " AND g.via = '' AND g.symbol != '' AND f.language = 'python' ORDER BY f.path LIMIT 1"
        ).fetchone()
        (http,) = db.execute(
            "SELECT f.path FROM http_routes r JOIN files f ON f.id = r.file_id WHERE f.language = 'python'"
            " AND NOT EXISTS (SELECT 1 FROM grpc g WHERE g.file_id = f.id) ORDER BY f.path LIMIT 1"
        ).fetchone()
        folder = path.rsplit("/", 1)[0]
        plain = [
            found
            for (found,) in db.execute(
                "SELECT path FROM files f WHERE language = 'python' AND error = '' AND path LIKE ? AND NOT EXISTS"
                " (SELECT 1 FROM grpc g WHERE g.file_id = f.id) AND NOT EXISTS (SELECT 1 FROM http_routes r"
                " WHERE r.file_id = f.id) AND NOT EXISTS (SELECT 1 FROM http_calls c WHERE c.file_id = f.id)"
                " ORDER BY size, path",
                (f"{folder}/%",),
            )
        ]
    name = symbol.rsplit(".", 1)[-1]
    return {"grpc": (path, ""), "http": (http, ""), "names": (plain[len(plain) // 2], f"\n# like {name}\n")}


if __name__ == "__main__":
    raise SystemExit(main())
