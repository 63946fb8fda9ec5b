"""The resolver's indexed lookups answer as their plain definitions do.

Resolving every import of a large workspace (a cold build, a ``.proto`` whose package changed)
asks, for each import, which proto package its module holds and which Go module it lies in. Both
are answered through tables keyed by a package's first part and by a module path; here they are
compared with the definitions they replace, written as plainly as possible: every package tried at
every position of the module (the first position it occurs at decides), every go.mod's module path
tried as a prefix (the longest wins).
"""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.index.build import _resolve

WORDS = ["acme", "Acme", "orders", "v1", "V1", "api", "pb", "x", "github.com", "shop"]


def _files(packages: list[tuple[str, ...]], modules: list[str]) -> _resolve._Files:
    """A :class:`_Files` holding just these proto packages (one file each) and Go modules."""
    files = _resolve._Files.__new__(_resolve._Files)
    files.service = {}
    files.proto_package = {}
    files.proto_packages = defaultdict(list)
    for number, package in enumerate(packages):
        path = f"p{number}/{'/'.join(package)}/f{number}.proto"
        files.proto_packages[package].append(path)
        files.proto_package[path] = ".".join(package)
    files.proto_packages_by_first = defaultdict(list)
    for number, (parts, paths) in enumerate(files.proto_packages.items()):
        folded = tuple(part.lower() for part in parts)
        files.proto_packages_by_first[folded[0]].append((number, folded, paths))
    files.packages = {(module, "go.mod"): f"mod{number}" for number, module in enumerate(modules)}
    files.go_modules = {declared: folder for (declared, _), folder in files.packages.items()}
    return files


def _plain_generated(files: _resolve._Files, module: str, importer: str) -> str | None:
    parts = tuple(part.lower() for part in _resolve._SEPARATORS.split(module) if part)
    candidates: list[str] = []
    for package, paths in files.proto_packages.items():
        width = len(package)
        folded = tuple(part.lower() for part in package)
        for start in range(len(parts) - width + 1):
            if parts[start : start + width] == folded:
                if width >= 2 or len(parts) - start - width <= 1:
                    candidates += paths
                break
    return files.best_proto(candidates, importer)


def _plain_go_folder(files: _resolve._Files, module: str) -> str | None:
    best = None
    for (declared, manifest), folder in files.packages.items():
        inside = module == declared or module.startswith(declared + "/")
        if manifest == "go.mod" and inside and (best is None or len(declared) > len(best[0])):
            best = (declared, folder)
    if best is None:
        return None
    rest = module[len(best[0]) :].strip("/")
    return "/".join(part for part in (best[1], rest) if part)


_PACKAGE = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(tuple)


@settings(max_examples=400, deadline=None)
@given(
    packages=st.lists(_PACKAGE, min_size=1, max_size=6),
    module=st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6), st.sampled_from([".", "/", "::", "\\"])),
)
def test_a_module_finds_the_proto_packages_it_holds_as_plainly_defined(
    packages: list[tuple[str, ...]], module: tuple[list[str], str]
) -> None:
    parts, separator = module
    files = _files(packages, [])
    text = separator.join(parts)
    assert _resolve._generated(files, text, "svc/main.go") == _plain_generated(files, text, "svc/main.go")


@settings(max_examples=400, deadline=None)
@given(
    modules=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map("/".join), max_size=5, unique=True),
    module=st.lists(st.sampled_from([*WORDS, ""]), min_size=1, max_size=5).map("/".join),
)
def test_a_go_import_lies_in_the_longest_module_it_starts_with(modules: list[str], module: str) -> None:
    files = _files([], modules)
    assert _resolve._go_folder(files, module) == _plain_go_folder(files, module)
