"""``impact_matrix``: which services a change reaches, and how.

The change is either ``changes`` (each a file or folder path, a symbol, a proto entity such as
``acme.orders.v1.Orders/GetOrder``, ``acme.common.v1.Money`` or ``Orders``, or anything else
``dependents`` takes) or ``git_range``: ``base..head`` (or ``base...head``, git's merge-base form)
in the git repository holding the workspace folder, or ``repo:base..head`` where ``repo`` is a
service name or a folder of the workspace: the repository holding that folder, and only the changes
under it. The changed paths come from ``git -C <folder> diff --name-only -z --no-renames
--relative <range> --`` (no shell, a timeout, the caller's environment without ``GIT_DIR`` and the
like); a renamed file counts as deleted and added. Paths the index does not hold (deleted, ignored)
are listed and not followed. Every message and service of a changed ``.proto`` counts as changed.

The dependents of all the changes together are found as ``dependents`` finds them (up to ``depth``,
default 2) and tabled per service by :func:`mesh.index.query._graph.impact_of`; the answer ends with the
verdict ``N services impacted, M via gRPC``. ``scope`` limits the table and the evidence to a
service or a path prefix; ``cursor`` pages through the evidence. The walk is bounded as
``dependents``' is (INV-TOOL-11): past :data:`WALK_DEPENDENTS_MAX` dependents it stops at the end of
a level, the table and the verdict count the levels walked and say "at least", and the cursor past
them walks every level and shows the whole table again before the rest of the evidence.

Running git is the one thing this tool does besides reading the snapshot: the working tree may be
ahead of the index, which answers as of its snapshot.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Final

import attrs

from ..index.query._graph import (
    WALK_DEPENDENTS_MAX,
    GraphError,
    Target,
    impact_of,
    resolve_file,
    resolve_target,
)
from ..render._impact import ImpactResult, compose_impact
from ..render._paging import Rendered, code
from ._args import describe
from ._dependents import PAGE_DEPENDENTS, first_found, page_offset, read_more, scope_of_text, wanted_offset
from ._registry import ToolError
from ._view import CURSOR_CHARS_MAX, View, arguments_of, workspace_path

__all__ = ["DESCRIPTION", "GIT_TIMEOUT_S", "NAME", "TITLE", "Args", "Result", "answer", "changed_paths", "run"]

NAME: Final = "impact_matrix"
TITLE: Final = "Impact of a change across services"
DESCRIPTION: Final = (
    "Which services a change (`changes` or a `git_range`) reaches and how: services × kinds of impact, "
    "with evidence and a verdict."
)
GIT_TIMEOUT_S: Final = 10.0
#: The structured result (``outputSchema``): the same page as the Markdown, and every service touched.
Result = ImpactResult
#: A revision as git spells one: no blanks, no option, nothing a shell or git would read otherwise.
_REVISION: Final = re.compile(r"[A-Za-z0-9_@][A-Za-z0-9_./~^@{}+-]*")
#: An absolute path in a message of git's (not inside a word or a relative path).
_ABSOLUTE: Final = re.compile(r"(?<![\w.~-])/[^\s'\"`:]+")
#: Variables that would point git at another repository than the folder it is given.
_GIT_LOCATION: Final = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
                        "GIT_NAMESPACE")  # fmt: skip


@attrs.frozen(kw_only=True)
class Args:
    changes: list[str] | None = attrs.field(
        default=None,
        metadata=describe(
            "Paths, symbols or proto entities",
            min_length=1,
            max_length=1000,
        ),
    )
    git_range: str | None = attrs.field(
        default=None,
        metadata=describe(
            "`base..head`, or `repo:base..head`",
            min_length=1,
            max_length=300,
        ),
    )
    depth: int = attrs.field(
        default=2, metadata=describe("Hops", minimum=1, maximum=5)
    )
    scope: str | None = attrs.field(
        default=None,
        metadata=describe("Service or path prefix", max_length=1000),
    )
    cursor: str | None = attrs.field(
        default=None,
        metadata=describe("Next page", max_length=CURSOR_CHARS_MAX),
    )


def answer(args: Args, view: View) -> str:
    """The Markdown of :func:`run`."""
    return run(args, view).text


def run(args: Args, view: View) -> Rendered:
    """One page of the impact, as Markdown and as a :class:`Result`; :class:`ToolError` for failures."""
    if (args.changes is None) == (args.git_range is None):
        both = "both" if args.changes is not None else "neither"
        raise ToolError(
            f"Give exactly one of `changes` and `git_range` (got {both}): `changes` lists files, symbols or proto "
            'entities (`{"changes": ["orders/app/service.py"]}`), `git_range` names commits '
            '(`{"git_range": "main..HEAD"}`).'
        )
    missing: list[str] = []
    changed_files: int | None = None
    try:
        if args.changes is not None:
            targets = _targets_of_changes(view, args.changes)
            title = _title_of_changes(targets)
        else:
            paths, label = changed_paths(view, args.git_range or "")
            targets = []
            for path in paths:
                target = resolve_file(view.db, path)
                if target is None:
                    missing.append(path)
                else:
                    targets.append(target)
            title = f"{code(label)} ({len(paths)} changed file{'s' if len(paths) != 1 else ''})"
            changed_files = len(paths)
        scope = scope_of_text(view, args.scope)
        size = PAGE_DEPENDENTS
        while True:
            found = first_found(view.db, targets, args.depth, scope, wanted_offset(args.cursor), size,
                                budget=WALK_DEPENDENTS_MAX)  # fmt: skip
            impact = impact_of(found, scope)
            offset = page_offset(args, found, scope, tool=NAME)
            rendered = compose_impact(
                found,
                impact,
                arguments_of(args),
                title=title,
                missing=missing,
                scope_text=None if scope is None else scope.text,
                offset=offset,
                git_range=None if args.git_range is None else args.git_range.strip(),
                changed_files=changed_files,
            )
            if not read_more(found, rendered.result.page):
                return rendered
            size *= 4
    except GraphError as exc:
        raise ToolError(str(exc)) from None


def _targets_of_changes(view: View, changes: list[str]) -> list[Target]:
    targets: dict[tuple[str, str], Target] = {}
    for text in changes:
        path = workspace_path(view.root, text, what="change")
        try:
            target = resolve_target(view.db, text, path)
        except GraphError as exc:
            raise GraphError(f"In `changes`, {code(text)}: {exc}") from None
        targets.setdefault((target.kind, target.name), target)
    return [targets[key] for key in sorted(targets, key=lambda key: (key[1], key[0]))]


def _title_of_changes(targets: list[Target]) -> str:
    if len(targets) == 1:
        return code(targets[0].name)
    return f"{len(targets)} changes"


def changed_paths(view: View, text: str) -> tuple[list[str], str]:
    """The workspace paths a ``git_range`` changed (sorted), and the range as shown; :class:`ToolError`
    for a malformed range, a folder outside any repository, a revision git cannot resolve."""
    raw = text.strip()
    repo, _, spec = raw.rpartition(":") if ":" in raw else ("", "", raw)
    dots = "..." if "..." in spec else ".."
    base, sep, head = spec.partition(dots)
    if not sep or not _REVISION.fullmatch(base) or not _REVISION.fullmatch(head):
        raise ToolError(
            f"The git_range {code(raw)} is not `base..head`: give two revisions (branches, tags, commits, `HEAD~3`) "
            "joined by `..`, optionally after a repository folder or service name and a colon "
            "(`orders:main..HEAD`)."
        )
    folder = _repo_folder(view, repo) if repo else ""
    # The folder git runs in is confined here, whatever named it (a service's path from the index
    # may have become a link out since it was indexed): git never reads another repository.
    where = Path(os.path.realpath(view.root / folder)) if folder else view.root
    if where != view.root and not where.is_relative_to(view.root):
        raise ToolError(
            f"The repository folder {code(repo)} leads through a symlink to what {code(folder)} points at, outside "
            "the workspace; name a folder inside it, or give the changed files as `changes`."
        )
    if not where.is_dir():
        raise ToolError(f"The repository folder {code(repo)} is not a folder of the workspace.")
    command = ["git", "-C", str(where), "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", "--relative", spec, "--"]
    environment = {key: value for key, value in os.environ.items() if key not in _GIT_LOCATION}
    environment.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
            env=environment,
        )
    except FileNotFoundError:
        raise ToolError("git is not installed where the server runs: give the changed files as `changes`.") from None
    except subprocess.TimeoutExpired:
        raise ToolError(
            f"git took longer than {GIT_TIMEOUT_S:g} s to list the changes of {code(raw)}: give a shorter range, "
            "or the changed files as `changes`."
        ) from None
    except OSError as exc:
        raise ToolError(f"git could not be run ({exc.strerror}): give the changed files as `changes`.") from None
    if done.returncode != 0:
        raise ToolError(_git_failure(_relative(done.stderr.decode("utf-8", "replace"), where), raw, folder))
    relative = [name.decode("utf-8", "replace") for name in done.stdout.split(b"\0") if name]
    paths = sorted({f"{folder}/{name}" if folder else name for name in relative})
    return paths, raw


def _repo_folder(view: View, repo: str) -> str:
    row = view.db.execute("SELECT path FROM services WHERE name = ?", (repo,)).fetchone()
    if row is not None:
        return row[0]
    return workspace_path(view.root, repo, what="repository folder")


def _relative(message: str, where: Path) -> str:
    """git's ``message`` naming no absolute path (INV-TOOL-3): the folder git ran in as ``.``, any
    other absolute path (a parent repository, a resolved link) as ``…``."""
    message = message.replace(f"{where}{os.sep}", "").replace(str(where), ".")
    return _ABSOLUTE.sub("…", message)


def _git_failure(stderr: str, raw: str, folder: str) -> str:
    first = next((line.strip() for line in stderr.splitlines() if line.strip()), "no message")
    first = first if len(first) <= 300 else first[:299] + "…"
    where = code(folder or ".")
    if "not a git repository" in stderr.lower():
        return (
            f"The folder {where} is not in a git repository ({first}). Name a folder that is, as "
            "`folder:base..head`, or give the changed files as `changes`."
        )
    return (
        f"git cannot list the changes of {code(raw)} in {where}: {first}. Check the revisions "
        "(`git log --oneline` in that folder), or give the changed files as `changes`."
    )
