"""Attacks on workspace confinement through symlinks (issue 13 items 1 and 9).

Item 1: an indexed file, or a folder holding one, is swapped for a symlink to something outside the
workspace with the same size and mtime after the walk; no read of workspace text may follow it.
Item 9: a symlink to a folder inside the workspace must not shadow the real folder.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import mesh.index.build._workspace as workspace_module
from mesh.index import Index, walk
from mesh.index._files import read_inside
from mesh.index.build._enumerate import check_paths
from mesh.index.build._work import Task, process
from mesh.index.query._search import file_text
from mesh.tools import parse_args
from mesh.tools._doc_sections import Args as DocArgs
from mesh.tools._doc_sections import answer as doc_answer
from mesh.tools._smart_search import Args as SearchArgs
from mesh.tools._smart_search import answer as search_answer
from mesh.tools._view import View

INSIDE_DOC = "# Guide\n\nThe inside words.\n"
OUTSIDE_DOC = "# Guide\n\nLEAKED FROM OUTER\n"  # the same size: the swap keeps size and mtime
INSIDE_CODE = "value = 'inside code'\n"
OUTSIDE_CODE = "value = 'LEAKED byte'\n"
assert len(INSIDE_DOC) == len(OUTSIDE_DOC) and len(INSIDE_CODE) == len(OUTSIDE_CODE)


def search(view: View, **arguments: object) -> str:
    args, _ = parse_args(SearchArgs, arguments)
    return search_answer(args, view)


def docs(view: View, **arguments: object) -> str:
    args, _ = parse_args(DocArgs, arguments)
    return doc_answer(args, view)


def leaked(text: str) -> bool:
    return "LEAKED FROM" in text or "LEAKED byte" in text


def swap_for_link(path: Path, target: Path) -> None:
    """Replace ``path`` by a symlink to ``target``, which is given ``path``'s size and mtime."""
    status = path.lstat()
    assert target.stat().st_size == status.st_size
    os.utime(target, ns=(status.st_atime_ns, status.st_mtime_ns))
    if path.is_dir():
        for child in path.iterdir():
            child_status = child.stat()
            os.utime(target / child.name, ns=(child_status.st_atime_ns, child_status.st_mtime_ns))
            child.unlink()
        path.rmdir()
    else:
        path.unlink()
    path.symlink_to(target, target_is_directory=target.is_dir())


@pytest.fixture
def indexed(tmp_path: Path) -> Iterator[tuple[Index, Path, Path]]:
    """An indexed workspace (a Markdown guide, a Python file) and a folder outside it."""
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "guide.md").write_text(INSIDE_DOC)
    (root / "app.py").write_text(INSIDE_CODE)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "guide.md").write_text(OUTSIDE_DOC)
    (outside / "app.py").write_text(OUTSIDE_CODE)
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    yield index, index.root, outside
    index.close()


def test_INV_READ_1_a_file_swapped_for_a_link_out_is_never_shown(indexed: tuple[Index, Path, Path]) -> None:
    """INV-READ-1, INV-TOOL-4: smart_search and doc_sections show the snapshot's text, never the outside
    file a same-size, same-mtime symlink now points to."""
    index, root, outside = indexed
    swap_for_link(root / "docs" / "guide.md", outside / "guide.md")
    swap_for_link(root / "app.py", outside / "app.py")
    with index.store.snapshot() as db:
        view = View(db, root)
        assert "0 matches" in search(view, query="LEAKED")
        found = search(view, query="inside")
        assert "The inside words." in found and "inside code" in found and not leaked(found)
        section = docs(view, heading="Guide")  # found by heading: the path itself is refused as a link out
        assert "The inside words." in section and not leaked(section)


def test_INV_READ_1_a_folder_swapped_for_a_link_out_is_never_shown(indexed: tuple[Index, Path, Path]) -> None:
    """INV-READ-1: the same through a parent folder swapped for a link to an outside folder."""
    index, root, outside = indexed
    swap_for_link(root / "docs", outside)
    with index.store.snapshot() as db:
        view = View(db, root)
        assert "0 matches" in search(view, query="LEAKED")
        assert "The inside words." in search(view, query="inside words")
        section = docs(view, heading="Guide")  # found by heading: the path itself is refused as a link out
        assert "The inside words." in section and not leaked(section)


def test_INV_READ_1_file_text_reads_the_stored_copy_after_a_swap(indexed: tuple[Index, Path, Path]) -> None:
    """INV-READ-1: search's one file reader (also doc_sections') never follows the link out."""
    index, root, outside = indexed
    swap_for_link(root / "app.py", outside / "app.py")
    with index.store.snapshot() as db:
        file_id, size, mtime_ns = db.execute("SELECT id, size, mtime_ns FROM files WHERE path = 'app.py'").fetchone()
        assert file_text(db, root, file_id, "app.py", size, mtime_ns) == INSIDE_CODE


def test_INV_READ_1_the_parse_worker_refuses_a_file_swapped_after_the_walk(tmp_path: Path) -> None:
    """INV-READ-1: the walk saw a regular file; the worker, reading it later, finds a link out (or a
    folder on its path swapped for one) and records it as unreadable, reading nothing outside."""
    root = tmp_path / "ws"
    (root / "svc").mkdir(parents=True)
    (root / "svc" / "main.py").write_text(INSIDE_CODE)
    (root / "app.py").write_text(INSIDE_CODE)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "app.py").write_text(OUTSIDE_CODE)
    (outside / "main.py").write_text(OUTSIDE_CODE)
    assert [entry.path for entry in walk(root).files] == ["app.py", "svc/main.py"]
    swap_for_link(root / "app.py", outside / "app.py")
    swap_for_link(root / "svc", outside)
    for path in ("app.py", "svc/main.py"):
        outcome = process(root.resolve(), Task(path))
        assert outcome.status == "failed" and outcome.compressed == b"" and outcome.searchable == ""
        assert outcome.facts.error.startswith("unreadable:") and "outside the workspace" in outcome.facts.error
        assert str(outside) not in outcome.facts.error


def test_INV_READ_1_a_link_inside_the_workspace_is_still_read(tmp_path: Path) -> None:
    """INV-READ-1: confinement is not a ban on links: a file linked to another inside is read, and so
    is one reached through a linked folder whose target is inside (relative or absolute links)."""
    root = tmp_path / "ws"
    (root / "real").mkdir(parents=True)
    (root / "real" / "a.py").write_text(INSIDE_CODE)
    (root / "alias.py").symlink_to("real/a.py")
    (root / "real" / "up.py").symlink_to("../alias.py")
    (root / "abs.py").symlink_to(root / "real" / "a.py")
    (root / "loop.py").symlink_to("loop.py")
    for path in ("alias.py", "real/up.py", "abs.py"):
        outcome = process(root.resolve(), Task(path))
        assert outcome.status == "parsed", outcome.facts.error
        assert outcome.compressed
    looped = process(root.resolve(), Task("loop.py"))
    assert looped.status == "failed" and looped.facts.error.startswith("unreadable:")


def test_INV_READ_1_the_reader_resolves_links_by_hand_and_only_inside(tmp_path: Path) -> None:
    """INV-READ-1: relative and absolute links, chains, `..` in a link or in the path, loops; the root
    may be named through a link of its own (an absolute link may spell either name)."""
    root = tmp_path / "ws"
    (root / "real" / "deep").mkdir(parents=True)
    (root / "real" / "a.py").write_text(INSIDE_CODE)
    (tmp_path / "outside.py").write_text(OUTSIDE_CODE)
    links = {
        "up.py": "../outside.py",
        "abs-out.py": str(tmp_path / "outside.py"),
        "real/deep/escape.py": "../../../outside.py",
        "abs-in.py": str(root / "real" / "a.py"),
        "chain.py": "abs-in.py",
        "real/deep/back.py": "../a.py",
        "loop.py": "loop.py",
        "folder": "real",
    }
    for link, target in links.items():
        (root / link).symlink_to(target)
    (tmp_path / "named").symlink_to(root, target_is_directory=True)
    for base in (root, tmp_path / "named"):
        for path in ("abs-in.py", "chain.py", "real/deep/back.py", "real/deep/../a.py", "folder/a.py"):
            assert read_inside(base, path)[0] == INSIDE_CODE.encode(), path
        for path in ("up.py", "abs-out.py", "real/deep/escape.py", "../outside.py", "real/../../outside.py"):
            with pytest.raises(OSError, match="outside the workspace"):
                read_inside(base, path)
        with pytest.raises(OSError, match="symbolic links"):
            read_inside(base, "loop.py")
        for path in ("real", "folder", "", "real/.."):
            with pytest.raises(IsADirectoryError):
                read_inside(base, path)
        with pytest.raises(FileNotFoundError):
            read_inside(base, "real/none.py")


def test_INV_READ_1_the_manifest_reader_is_not_raced_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """INV-READ-1, INV-WS-2: the workspace model's manifest reader cannot be raced: the compose file is
    swapped for a link out between any check and the open, and its outside content is never read."""
    root = tmp_path / "ws"
    root.mkdir()
    compose = root / "compose.yml"
    compose.write_text("services:\n  web:\n    build: .\n")
    outside = tmp_path / "evil.yml"
    outside.write_text("services:\n  evil:\n    image: evil:1\n")
    real_resolve = Path.resolve

    def racing_resolve(self: Path, strict: bool = False) -> Path:
        found = real_resolve(self, strict=strict)
        if self == compose and not compose.is_symlink():
            compose.unlink()
            compose.symlink_to(outside)  # the attacker wins the race, right after the check
        return found

    read = workspace_module.disk_reader(root.resolve())
    monkeypatch.setattr(Path, "resolve", racing_resolve)
    data = read("compose.yml")
    if not compose.is_symlink():  # the reader made no check to race: swap now, read again
        compose.unlink()
        compose.symlink_to(outside)
        data = read("compose.yml")
    assert data is None or b"evil" not in data


def test_INV_READ_1_ignore_files_are_read_without_following_a_link_out(tmp_path: Path) -> None:
    """INV-READ-1: a `.gitignore` that links out is not read (its rules would tell what lies outside)."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("")
    (root / "b.py").write_text("")
    outside = tmp_path / "rules"
    outside.write_text("a.py\n")
    (root / ".gitignore").symlink_to(outside)
    result = walk(root)
    assert [entry.path for entry in result.files] == ["a.py", "b.py"]
    assert (".gitignore", "unreadable: leads outside the workspace through a symlink") in [
        (item.path, item.reason) for item in result.skipped
    ]


def test_INV_READ_1_a_file_swapped_for_a_fifo_never_hangs_a_reader(indexed: tuple[Index, Path, Path]) -> None:
    """INV-READ-1: only regular files are opened for reading (a FIFO with no writer would block an
    open forever): the search answers from the stored copy at once, and the worker says why."""
    index, root, _ = indexed
    (root / "app.py").unlink()
    os.mkfifo(root / "app.py")
    answers: list[str] = []
    with index.store.snapshot() as db:
        view = View(db, root)
        reader = threading.Thread(target=lambda: answers.append(search(view, query="inside code")), daemon=True)
        reader.start()
        reader.join(10)
        if reader.is_alive():  # let it go: open the FIFO's other end
            os.close(os.open(root / "app.py", os.O_WRONLY | os.O_NONBLOCK))
            reader.join(10)
            pytest.fail("a search blocked on a FIFO in the workspace")
    assert "inside code" in answers[0]
    outcome = process(root, Task("app.py"))
    assert (outcome.status, outcome.facts.error) == ("failed", "unreadable: not a regular file")


# -- item 9: a link to a folder inside does not shadow the real folder --------------------------------


def test_INV_WALK_1_the_real_folder_wins_over_a_link_to_it_whatever_the_order(tmp_path: Path) -> None:
    """INV-WALK-1: `a-link -> zeta` sorts (and is walked) before `zeta`; the real paths are indexed and
    the link is left out, by the walk and by a watcher's check alike."""
    root = tmp_path / "ws"
    (root / "zeta").mkdir(parents=True)
    (root / "zeta" / "main.go").write_text("package main\n")
    (root / "a-link").symlink_to("zeta", target_is_directory=True)
    (root / "zeta" / "self").symlink_to("..", target_is_directory=True)
    result = walk(root)
    assert [entry.path for entry in result.files] == ["zeta/main.go"]
    reasons = {item.path: item.reason for item in result.skipped}
    assert reasons == {
        "a-link": "symlink to a folder inside the workspace",
        "zeta/self": "symlink to a folder inside the workspace",
    }
    checked = check_paths(root, ["a-link/main.go", "zeta/main.go", "zeta/self/zeta/main.go"])
    assert [entry.path for entry in checked.files] == ["zeta/main.go"]


def test_INV_WALK_1_a_service_never_takes_the_name_of_a_link(tmp_path: Path) -> None:
    """INV-WALK-1: the service is named after its real folder, its files are indexed under their real
    paths, and nothing is indexed under the link."""
    root = tmp_path / "ws"
    (root / "orders").mkdir(parents=True)
    (root / "orders" / "go.mod").write_text("module example.com/orders\n\ngo 1.21\n")
    (root / "orders" / "main.go").write_text("package main\n\nfunc main() {}\n")
    (root / "alias").symlink_to("orders", target_is_directory=True)
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    with index.store.snapshot() as db:
        services = db.execute("SELECT name, path FROM services ORDER BY name").fetchall()
        paths = [path for (path,) in db.execute("SELECT path FROM files ORDER BY path")]
    index.close()
    assert services == [("orders", "orders")]
    assert paths == ["orders/go.mod", "orders/main.go"]
