"""Building and refreshing the index: walk, compare, parse what changed, write one new snapshot.

Theory of operation
-------------------
A refresh is one pass over the workspace:

1. read ``mesh.toml`` and walk the tree (ignore rules, size cap, secrets...);
2. decide the services (named in ``mesh.toml`` or discovered from the walked paths);
3. inside one write transaction, compare every walked file with the index: the same size and
   mtime means unchanged and is not even read; otherwise the file is read and hashed, and parsed
   only when its hash differs from the one indexed; indexed files no longer walked are deleted
   (a rename is a deletion plus a new file);
4. resolve what needs the whole workspace (gRPC facts to ``package.Service/Method`` keys,
   imports to files and services) and commit: the new generation appears at once.

A watcher calls :meth:`Index.refresh` with the paths it saw change; those are re-checked without a
walk of the whole tree (a periodic full refresh catches what watchers drop).
"""

from __future__ import annotations

import json
import logging
import os
import posixpath
import stat
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

import attrs

from ...workspace import cache_dir
from ._enumerate import GENERATED_RULE, SECRET_CONTENT_REASON, SECRET_RULE, FileEntry, Skipped, Walk, check_paths, walk
from ..parse._kinds import kind_of
from ._pool import DEFAULT_BUDGET_S, WORKER_MODULE, ParsePool, run_inline
from ._memory import check_memory
from ._progress import TEXT_STAGE, Progress
from ._resolve import REACHES, file_tables, manifest_shapes, proto_shapes, reaches, resolve
from ..store._store import DiskFull, FileRecord, IndexUnavailable, Store, Writer
from ._work import Outcome, Task
from ._services import DiscoveryPaths, areas_moved, go_program, structural
from ._workspace import Config, Service, Workspace, discover_workspace, disk_reader, load_config, order_services
from ..parse import fingerprint, language_of

__all__ = ["Index", "Progress", "Summary"]

log = logging.getLogger("mesh.index")

#: Files whose change may change the ignore rules or the services.
STRUCTURAL_NAMES: Final = frozenset({"mesh.toml", ".gitignore", ".meshignore"})
#: The skipped files a walk lists (``s``, its detail ``d``): left out for what their bytes hold
#: (generated code by its marker, a secret), not by their name or size; ``?`` the secret reason.
_LISTED_SKIPPED: Final = (
    "skipped s JOIN skipped_detail d ON d.path = s.path WHERE d.folder = 0"
    " AND ((s.reason = 'generated' AND coalesce(d.marker, '') != '') OR s.reason = ?)"
)
#: Fewer changed files than this are parsed in the calling thread (no time budget), not in worker
#: processes, unless the index keeps its workers.
INLINE_MAX: Final = 32
#: A staged index's first build of more files than this commits their text first (``meta.stage``
#: ``text``), then their facts (``full``): search reads the first snapshot while the rest is parsed.
STAGED_MIN: Final = 1000


def _content_rule(skip_generated: bool, skip_secrets: bool) -> str:
    """``meta.generated_rule``: the rules that left files out for their first bytes, as applied."""
    return (f"{GENERATED_RULE}:{'skip' if skip_generated else 'keep'}"
            f" secrets {SECRET_RULE}:{'skip' if skip_secrets else 'keep'}")  # fmt: skip


def _ranked(service: Service, found: Counter[str]) -> str:
    """A service's languages as the ``services`` table holds them: as configured, else by how many
    of its files each has, most first."""
    ranked = service.languages or tuple(name for name, _ in sorted(found.items(), key=lambda kv: (-kv[1], kv[0])))
    return ",".join(ranked)


def _skipped_rows(workspace: Workspace, skipped: Iterable[Skipped]) -> list[tuple]:
    """The ``skipped`` table's rows of what the walk and the workers left out."""
    return [
        (item.path, item.reason, workspace.service_of(item.path), item.folder, item.size, item.mtime_ns, item.marker)
        for item in skipped
    ]


@attrs.frozen
class Summary:
    generation: int
    services: int
    files: int
    languages: dict[str, int]
    symbols: int
    grpc_services: int
    grpc_methods: int
    grpc_implementations: int
    grpc_clients: int
    parsed: int
    unchanged: int
    deleted: int
    failures: tuple[tuple[str, str], ...]
    skipped: int
    elapsed_s: float
    #: HTTP routes served, HTTP calls made (of which linked to a service, and with a computed URL),
    #: messages produced or consumed.
    http_routes: int = 0
    http_calls: int = 0
    http_calls_linked: int = 0
    http_calls_computed: int = 0
    messages: int = 0
    #: False when the refresh was asked not to count (``refresh(counted=False)``): then every count
    #: of what the index holds (services to messages) is 0, meaning "not counted".
    counted: bool = True


class Index:
    """The index of one workspace: a :class:`Store` kept in step with the files by :meth:`refresh`."""

    def __init__(
        self,
        root: Path,
        folder: Path | None = None,
        *,
        workers: int | None = None,
        budget_s: float = DEFAULT_BUDGET_S,
        worker_module: str = WORKER_MODULE,
        keep_workers: bool = False,
        on_damaged: Callable[[str], None] | None = None,
        staged: bool = False,
    ) -> None:
        """``on_damaged(why)``: told when a refresh found the index damaged and set it aside,
        before it rebuilds it (a server's readers then hear that it is being rebuilt).
        ``staged``: a first build of more than :data:`STAGED_MIN` files commits the text first
        (a snapshot that search can read), then the facts (a server's index: see :meth:`_text_stage`)."""
        self.root = root.resolve()
        self.store = Store(folder if folder is not None else cache_dir(self.root))
        self.on_damaged = on_damaged or (lambda _why: None)
        #: (files, bytes of text) of the last full walk: what a full disk is told the index needs.
        self._walked = (0, 0)
        self.workers = workers
        self.budget_s = budget_s
        self.worker_module = worker_module
        self.staged = staged
        #: A long-lived index (a server with a watcher) keeps its workers: every batch, even of one
        #: file, is then parsed out of process under the time budget, with no start-up cost.
        self._pool = ParsePool(root, workers, budget_s, worker_module) if keep_workers else None
        #: The workspace as of the last full refresh (changed-only refreshes keep its services).
        self._workspace: Workspace | None = None
        #: The files whose bytes the last discovery read (manifests, deployments, Go files...): an
        #: edit of another file that may change the services (a Dockerfile) cannot change them.
        self._discovery_read: frozenset[str] = frozenset()
        #: The paths the last discovery was given, kept with what discovery asks of them (which Go
        #: folders make programs...) and changed by each refresh of some paths: discovering again
        #: after a manifest edit costs the manifests, not every path (None: made from the index).
        self._paths: DiscoveryPaths | None = None
        self._refreshing = threading.Lock()
        #: What the last resolution knew of the files (reused while no file comes or goes).
        self._files = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        self.store.close()

    def refresh(
        self,
        changed: Iterable[str] | None = None,
        progress: Callable[[Progress], None] | None = None,
        *,
        counted: bool = True,
    ) -> Summary:
        """Bring the index in step with the files; ``changed`` limits the check to those paths.
        ``counted=False`` leaves out the counts of what the index holds (``Summary.counted``): a
        count of every fact table costs O(workspace) (55-100 ms at 100,000 files), more than the
        refresh of one saved file, and the watcher reads none of them.

        Refreshes are serialised (the watcher and a caller may both ask); each is one transaction.
        One that meets damage in the index (a query failing with corruption, stored text that no
        longer decodes) sets it aside and rebuilds it from the files (INV-INDEX-8); a full disk
        fails it as a whole with :class:`DiskFull`, saying about how much the index needs.
        """
        with self._refreshing:
            try:
                return self._refresh(changed, progress, counted=counted)
            except DiskFull as exc:
                self._files = self._paths = None
                raise self._needing(exc) from None
            except BaseException as exc:
                self._files = self._paths = None  # they may describe the rolled-back transaction
                if not isinstance(exc, Exception) or isinstance(exc, (IndexUnavailable, OSError)):
                    raise
                why = self.store.damaged(exc)
                if not why:
                    raise
            return self._rebuild(why, progress)

    def prepare_edits(self) -> None:
        """Build the resolver's file tables ahead of the first saved edit (a server's index, once its
        first refresh is done), so that edit resolves its own imports only (INV-INDEX-11) instead of
        building them first. A refresh that built them already, or is running, wins."""
        with self._refreshing:
            if self._files is None and self._workspace is not None:
                with self.store.snapshot() as db:
                    self._files = file_tables(db)

    def rebuild(
        self, why: str, progress: Callable[[Progress], None] | None = None, *, inode: int | None = None
    ) -> Summary:
        """Set the damaged index aside (with ``inode``: only if the file is still that one, not
        already replaced) and build it again from the files."""
        with self._refreshing:
            return self._rebuild(why, progress, inode=inode)

    def _rebuild(self, why: str, progress: Callable[[Progress], None] | None, *, inode: int | None = None) -> Summary:
        if self.store.set_aside_damaged(why, inode=inode):
            self.on_damaged(why)
        self._files = self._paths = None
        self._workspace = None
        try:
            return self._refresh(None, progress)
        except DiskFull as exc:
            raise self._needing(exc) from None
        except BaseException:
            self._files = self._paths = None
            raise

    def _needing(self, exc: DiskFull) -> DiskFull:
        files, text_bytes = self._walked
        return exc.needing(text_bytes, files) if text_bytes and not exc.ahead else exc  # ahead: it says already

    def _refresh(
        self,
        changed: Iterable[str] | None,
        progress: Callable[[Progress], None] | None,
        *,
        counted: bool = True,
    ) -> Summary:
        started = time.monotonic()
        report = progress or (lambda _: None)
        report(Progress("walking", 0, 0))
        only = None if changed is None else sorted(set(changed))
        if only is not None and (self._workspace is None or any(self._rules(path) for path in only)):
            only = None  # the rules may have changed: look at everything
        if only is None:
            tree, workspace = self._walk(load_config(self.root))
        else:
            workspace = self._workspace
            config = workspace.config
            tree = check_paths(
                self.root,
                only,
                max_file_bytes=config.max_file_bytes,
                include_vendored=config.include_vendored,
                include_secrets=config.include_secrets,
                extra_ignores=workspace.ignore_patterns(),
            )  # a folder among them (made, moved in, checked out) is walked: its files are what changed
            gone = self._gone_under(only)  # the files a folder among them, now gone, held
            touched = [*only, *gone, *(entry.path for entry in tree.files)]
            self._discovery_paths().replace(only, (entry.path for entry in tree.files))
            if any(self._rules(path) for path in touched):
                only = None  # a folder came or went with ignore rules
            elif self._services_may_move(touched, tree):
                # a manifest, Dockerfile or deployment changed, came or went: the workspace discovered
                # again over the paths the index keeps; the same services (a dependency added, a build
                # step changed: the usual edit) keep the refresh to these paths, others walk everything
                rediscovered = self._rediscovered()
                if rediscovered is None:
                    only = None
                else:
                    workspace = rediscovered
            elif self._programs_move(only, tree):
                only = None  # a Go program came or went: the services
            if only is None:
                tree, workspace = self._walk(load_config(self.root))
        walked = {entry.path: entry for entry in tree.files}
        if only is None:  # a workspace too large for the machine's memory says so before parsing (INV-INDEX-9)
            check_memory(len(walked), largest=max((entry.size for entry in tree.files), default=0),
                         workers=self.workers, serving=self._pool is not None)  # fmt: skip
        counts = Counter[str]()
        failures: list[tuple[str, str]] = []
        if only is None and self.staged and len(walked) > STAGED_MIN:
            self._text_stage(tree, workspace, walked, report)
        with self.store.transaction() as writer:
            known = writer.known_files(None if only is None else only)
            # which whole-workspace passes (gRPC derivation, links) the files about to change reach as
            # they were: a pass they reach neither so nor as they become is not run (INV-INDEX-11)
            reached_before = REACHES if only is None else reaches(writer.db, [old[0] for old in known.values()])
            # what the .proto files about to change tell import resolution, as they were
            protos_before = {} if only is None else proto_shapes(writer.db, [old[0] for old in known.values()])
            # what the manifests about to change tell import resolution, as they were
            manifests_before = {} if only is None else manifest_shapes(writer.db, [old[0] for old in known.values()])
            # Generated code and secrets found by their first bytes: an unchanged one is not read again,
            # unless a rule (or include_vendored, include_secrets) changed since the last refresh: then
            # every file is read once.
            skip_generated = not workspace.config.include_vendored
            skip_secrets = not workspace.config.include_secrets
            rule = _content_rule(skip_generated, skip_secrets)
            recheck = writer.db.execute("SELECT value FROM meta WHERE key = 'generated_rule'").fetchone() != (rule,)
            # facts of extractors other than these (an upgrade): every file is parsed again
            extractors = fingerprint()
            stale = writer.db.execute("SELECT value FROM meta WHERE key = 'extractors'").fetchone() != (extractors,)
            # the text of every file is stored, none of their facts: each file still as the first stage
            # read it gets its facts only
            facts_due = writer.db.execute("SELECT value FROM meta WHERE key = 'stage'").fetchone() == (TEXT_STAGE,)
            generated = {}  # path -> (size, mtime_ns, marker, reason) of files left out for their content
            for reason, skipping in (("generated", skip_generated), (SECRET_CONTENT_REASON, skip_secrets)):
                if skipping and not recheck:
                    generated |= {path: (*stats, reason) for path, stats in writer.skipped_stats(reason).items()}
            read_skipped: list[Skipped] = []
            if only is None:
                paths = set(walked) | set(known)
            else:
                folders = tuple(path + "/" for path in only)
                paths = set(walked) | {
                    path for path in known if path in walked or path in only or path.startswith(folders)
                }
            # an upgrade's new extractors parse every file again, but a file whose bytes are those its
            # text was stored from keeps its text (and id): only its facts are replaced, so the text
            # index is not rewritten (a file stored with an error, perhaps without text, is read whole)
            errored = {row[0] for row in writer.db.execute("SELECT id FROM files WHERE error != ''")} if stale else set()
            tasks = []
            gone = []
            for path in sorted(paths):
                entry = walked.get(path)
                old = known.get(path)
                if entry is None:
                    if old is not None:
                        writer.delete([old[0]])
                        gone.append(path)
                        counts["deleted"] += 1
                elif path in generated and generated[path][:2] == (entry.size, entry.mtime_ns):
                    read_skipped.append(Skipped(path, generated[path][3], size=entry.size, mtime_ns=entry.mtime_ns,
                                                marker=generated[path][2]))  # fmt: skip
                elif not recheck and not stale and old is not None and (old[1], old[2]) == (entry.size, entry.mtime_ns):
                    counts["unchanged"] += 1
                elif (
                    (facts_due or (stale and not recheck and old is not None and old[0] not in errored))
                    and old is not None and (old[1], old[2]) == (entry.size, entry.mtime_ns)
                ):  # fmt: skip
                    tasks.append(Task(path, None, skip_generated, skip_secrets, facts_of=old[3]))
                else:
                    tasks.append(Task(path, old[3] if old is not None and not stale else None, skip_generated, skip_secrets))
            sizes = {path: entry.size for path, entry in walked.items()}
            writer.check_room(
                self.store.folder,
                sum(sizes.get(task.path, 0) for task in tasks if task.facts_of is None),
                len(tasks),
                facts_only=sum(sizes.get(task.path, 0) for task in tasks if task.facts_of is not None),
            )  # a refresh too large for the disk says so before it writes (INV-INDEX-9)
            total = len(tasks)
            pool = self._pool
            report(Progress("parsing", 0, total, pool.warmup_s(tasks) if pool is not None else 0.0))
            written: list[int] = []

            def on_outcome(outcome: Outcome) -> None:
                if outcome.status == "skipped":  # generated code or a secret, known by its first bytes
                    read_skipped.append(Skipped(outcome.path, outcome.reason, size=outcome.size,
                                                mtime_ns=outcome.mtime_ns, marker=outcome.marker))  # fmt: skip
                    if outcome.path in known:
                        writer.delete([known[outcome.path][0]])
                        gone.append(outcome.path)
                    counts["skipped"] += 1
                else:
                    file_id = self._write(writer, workspace, known, walked, outcome, counts, failures, replacing=stale)
                    if file_id is not None:
                        written.append(file_id)
                done = counts["parsed"] + counts["unchanged_content"] + counts["failed"] + counts["skipped"]
                report(Progress("parsing", done, total, pool.warmup_s() if pool is not None else 0.0))

            bulk = len(tasks) > INLINE_MAX
            cold = bulk and not known  # a first build: an empty index
            # most files' definitions written: the names made again once, not kept file by file
            names_bulk = bulk and (not known or facts_due or 2 * len(tasks) > len(known))
            if bulk:
                writer.bulk_text(True)
            if cold:
                writer.cold_load(True)
            if names_bulk:
                writer.names_bulk(True)
            if self._pool is not None:
                self._pool.run(tasks, on_outcome)
            elif bulk:
                with ParsePool(self.root, self.workers, self.budget_s, self.worker_module) as pool:
                    pool.run(tasks, on_outcome)
            else:
                run_inline(self.root, tasks, on_outcome)
            if bulk:
                writer.bulk_text(False, known=len(known))
            if cold:
                writer.cold_load(False)
            if names_bulk:
                writer.names_bulk(False)
            report(Progress("writing", total, total))
            added = sorted(path for path in walked if path not in known)
            quiet = not written and not gone and self._same_services(writer, workspace)
            skipped_rows = _skipped_rows(workspace, [*tree.skipped, *read_skipped])
            if only is None and quiet:
                writer.put_skipped(skipped_rows)
            elif only is None:
                self._reassign(writer, workspace)
                writer.replace_services(self._service_rows(writer, workspace))
                self._put_workspace(writer, workspace)
                self._files = resolve(writer.db)
                writer.put_skipped(skipped_rows)
            else:
                writer.put_skipped(skipped_rows, only=only)
                workspace = self._areas_moved(writer, workspace, [*only, *added, *gone])
                self._put_workspace(writer, workspace)  # a manifest's wiring may have changed
                self._rank_again(writer, workspace, [*added, *gone])
                self._files = resolve(
                    writer.db, written=written, gone=gone, added=added, known=self._files,
                    reached_before=reached_before, protos_before=protos_before, manifests_before=manifests_before,
                )  # fmt: skip
            if (names_bulk and not facts_due) or (only is None and (written or gone)):
                writer.sample_text()  # what searches ask the text index for is planned by it
            elif only is not None and (added or gone):
                writer.text_drift(len(added) - len(gone))
            writer.set_meta(root=str(self.root), updated_at=f"{time.time():.3f}", generated_rule=rule)
            if only is None:  # every file was looked at: the facts are all of these extractors
                writer.set_meta(extractors=extractors, stage="full")
        self._workspace = workspace
        summary = self._summary(
            self.store.writer_connection(),
            counted=counted,
            parsed=counts["parsed"],
            unchanged=counts["unchanged"] + counts["unchanged_content"],
            deleted=counts["deleted"],
            failures=failures,
            skipped=len(tree.skipped) + len(read_skipped),
            elapsed_s=time.monotonic() - started,
        )
        report(Progress("done", total, total))
        return summary

    def _text_stage(
        self, tree: Walk, workspace: Workspace, walked: dict[str, FileEntry], report: Callable[[Progress], None]
    ) -> None:
        """A first build's first stage: every file read, checked and its text stored and indexed
        for search, nothing extracted, committed as a snapshot of its own (``meta.stage`` ``text``).
        The refresh's own transaction then parses every file still as read here and writes its
        facts only (``Task.facts_of``), and commits ``stage`` ``full``. A build stopped between
        the two leaves the text snapshot: the next refresh parses from there (INV-INDEX-10)."""
        with self.store.transaction() as writer:
            if writer.db.execute("SELECT 1 FROM files LIMIT 1").fetchone() is not None:
                return  # not a first build
            config = workspace.config
            skip_generated, skip_secrets = not config.include_vendored, not config.include_secrets
            rule = _content_rule(skip_generated, skip_secrets)
            tasks = [Task(path, None, skip_generated, skip_secrets, text_only=True) for path in sorted(walked)]
            writer.check_room(self.store.folder, sum(entry.size for entry in walked.values()), len(tasks))
            total = len(tasks)
            report(Progress("reading", 0, total))
            counts = Counter[str]()
            failures: list[tuple[str, str]] = []
            read_skipped: list[Skipped] = []

            def on_outcome(outcome: Outcome) -> None:
                if outcome.status == "skipped":
                    read_skipped.append(Skipped(outcome.path, outcome.reason, size=outcome.size,
                                                mtime_ns=outcome.mtime_ns, marker=outcome.marker))  # fmt: skip
                    counts["skipped"] += 1
                else:
                    self._write(writer, workspace, {}, walked, outcome, counts, failures)
                report(Progress("reading", counts["parsed"] + counts["failed"] + counts["skipped"], total))

            writer.bulk_text(True)
            if self._pool is not None:
                self._pool.run(tasks, on_outcome)
            else:
                with ParsePool(self.root, self.workers, self.budget_s, self.worker_module) as pool:
                    pool.run(tasks, on_outcome)
            writer.bulk_text(False)
            writer.sample_text()
            writer.replace_services(self._service_rows(writer, workspace))
            self._put_workspace(writer, workspace)
            writer.put_skipped(_skipped_rows(workspace, [*tree.skipped, *read_skipped]))
            writer.set_meta(root=str(self.root), updated_at=f"{time.time():.3f}", generated_rule=rule, stage=TEXT_STAGE)
        log.info("text stage: %d files stored for search; parsing them next", counts["parsed"] + counts["failed"])

    @staticmethod
    def _areas_moved(writer: Writer, workspace: Workspace, paths: list[str]) -> Workspace:
        """The workspace with its areas as files coming or going at ``paths`` leave them: a folder
        outside every service that gained its first file, or lost its last (a file the walk lists:
        held, or left out for what its bytes hold), as discovery over every path would find them."""

        def holds(folder: str) -> bool:
            span = (folder + "/", folder + "0")
            return writer.db.execute(
                "SELECT EXISTS (SELECT 1 FROM files WHERE path > ? AND path < ?)"
                f" OR EXISTS (SELECT 1 FROM {_LISTED_SKIPPED} AND s.path > ? AND s.path < ?)",
                (*span, SECRET_CONTENT_REASON, *span),
            ).fetchone() == (1,)

        claimed = [folder for service in workspace.services for folder in (service.path, *service.extra)]
        areas = tuple(areas_moved(workspace.areas, paths, claimed, holds))
        return workspace if areas == workspace.areas else attrs.evolve(workspace, areas=areas)

    @staticmethod
    def _put_workspace(writer: Writer, workspace: Workspace) -> None:
        writer.replace_workspace(
            workspace.areas, workspace.externals, workspace.warnings, workspace.wiring, workspace.hosts
        )

    def _same_services(self, writer: Writer, workspace: Workspace) -> bool:
        """The services the index was last resolved with are these (nothing to reassign or resolve)."""
        stored = writer.db.execute("SELECT name, path, origin, extra FROM services ORDER BY name").fetchall()
        mine = sorted((s.name, s.path, s.origin, json.dumps(list(s.extra))) for s in workspace.services)
        return stored == mine and bool(stored)

    def _programs_move(self, paths: list[str], tree: Walk) -> bool:
        """Whether a folder of these paths' Go files becomes or stops being a Go program (a ``package
        main``, which splits a module into services), from what the index holds to what the disk
        holds. Only a folder where a changed file itself became or stopped being a program's can
        change (an edit of any other Go file reads that file twice, not its folder); for such a
        folder, every Go file in it is read, as held and as on disk."""
        changed = {path for path in paths if path.endswith(".go")}
        changed |= {entry.path for entry in tree.files if entry.path.endswith(".go")}
        with self.store.snapshot() as db:
            for path in paths:  # a folder gone or moved away: the Go files it held
                under = db.execute("SELECT path FROM files WHERE path > ? AND path < ?", (path + "/", path + "0"))
                changed |= {held for (held,) in under if held.endswith(".go")}
            folders = {
                posixpath.dirname(path)
                for path in changed
                if not path.endswith("_test.go") and self._held_program(db, path) != self._disk_program(path)
            }
            for folder in sorted(folders):
                if self._go_program_held(db, folder) != self._go_program_on_disk(folder):
                    return True
        return False

    @staticmethod
    def _held_program(db, path: str) -> bool:
        """Whether the index holds ``path`` as a Go program's file."""
        data = db.execute(
            "SELECT c.data FROM files f JOIN content c ON c.file_id = f.id WHERE f.path = ?", (path,)
        ).fetchone()
        return data is not None and go_program(zlib.decompress(data[0]))

    def _disk_program(self, path: str) -> bool:
        """Whether ``path`` is a Go program's file on disk now (a regular file, read as discovery does)."""
        try:
            if not stat.S_ISREG(os.lstat(self.root / path).st_mode):
                return False
            with open(self.root / path, "rb") as handle:
                return go_program(handle.read(1 << 19))
        except OSError:
            return False

    def _go_program_held(self, db, folder: str) -> bool:
        """Whether the index holds a Go program's file directly in ``folder``."""
        if self._files is not None:  # the resolver's tables, as of the last refresh
            held = self._files.in_folder.get(folder, [])
        elif folder:
            rows = db.execute("SELECT path FROM files WHERE path > ? AND path < ?", (folder + "/", folder + "0"))
            held = [path for (path,) in rows if "/" not in path[len(folder) + 1 :]]
        else:
            held = [path for (path,) in db.execute("SELECT path FROM files WHERE path NOT LIKE '%/%'")]
        return any(
            path.endswith(".go") and not path.endswith("_test.go") and self._held_program(db, path) for path in held
        )

    def _go_program_on_disk(self, folder: str) -> bool:
        """Whether a Go program's file lies directly in ``folder`` now."""
        try:
            entries = sorted(os.scandir(self.root / folder), key=lambda entry: entry.name)
        except OSError:
            return False
        for entry in entries:
            name = entry.name
            if name.endswith(".go") and not name.endswith("_test.go") and entry.is_file(follow_symlinks=False):
                try:
                    with open(entry.path, "rb") as handle:
                        if go_program(handle.read(1 << 19)):  # what discovery reads of it
                            return True
                except OSError:
                    continue
        return False

    def _gone_under(self, paths: list[str]) -> list[str]:
        """The files the index holds under those of ``paths`` that are gone (a folder removed or
        moved away)."""
        gone = [path for path in paths if not os.path.lexists(self.root / path)]
        if not gone:
            return []
        under = "SELECT path FROM files WHERE path > ? AND path < ?"
        with self.store.snapshot() as db:
            return [held for folder in gone for (held,) in db.execute(under, (folder + "/", folder + "0"))]

    def _services_may_move(self, touched: list[str], tree: Walk) -> bool:
        """Whether a change to ``touched`` may change the services: a file that may (a manifest, a
        Dockerfile, a deployment: :meth:`_structural`) came or went, or one whose bytes discovery
        read was edited. A Dockerfile or ``requirements.txt`` edited in place counts for its
        presence alone: it cannot."""
        candidates = sorted({path for path in touched if self._structural(path)})
        if not candidates:
            return False
        on_disk = {entry.path for entry in tree.files}
        with self.store.snapshot() as db:
            marks = ", ".join("?" * len(candidates))
            held = {path for (path,) in db.execute(f"SELECT path FROM files WHERE path IN ({marks})", candidates)}
        return any(path not in held or path not in on_disk or path in self._discovery_read for path in candidates)

    def _discover(self, config: Config, paths: DiscoveryPaths) -> Workspace:
        """The workspace discovered over ``paths``, reading from disk and noting what it read (a
        Go folder whose files did not change since ``paths`` asked is not read again)."""
        disk = disk_reader(self.root)
        read: set[str] = set()

        def reading(path: str) -> bytes | None:
            read.add(path)
            return disk(path)

        workspace = discover_workspace(self.root, config, paths, reading)
        self._discovery_read = frozenset(read)
        return workspace

    def _discovery_paths(self) -> DiscoveryPaths:
        """The paths the last discovery was given (:attr:`_paths`), made from what the index holds
        when a failed refresh dropped them: its files, and those a walk lists that were left out
        for what their bytes hold."""
        if self._paths is None:
            with self.store.snapshot() as db:
                held = [path for (path,) in db.execute("SELECT path FROM files")]
                held += [
                    path
                    for (path,) in db.execute(f"SELECT s.path FROM {_LISTED_SKIPPED}", (SECRET_CONTENT_REASON,))
                ]
            self._paths = DiscoveryPaths(self.root, held)
        return self._paths

    def _rediscovered(self) -> Workspace | None:
        """The workspace discovered again after a change to a file a change to which may change the
        services (a manifest, a Dockerfile, a deployment): over the paths the last walk gave, those
        the refresh looks at replaced by what :func:`check_paths` found of them
        (:meth:`DiscoveryPaths.replace`, done already). None when its services, areas, external
        services, wiring or hosts are not the index's: the files move between services, so a full
        refresh."""
        current = self._workspace
        assert current is not None
        found = self._discover(current.config, self._discovery_paths())
        same = (found.services, found.areas, found.externals, found.wiring, found.hosts) == (
            current.services, current.areas, current.externals, current.wiring, current.hosts
        )
        return found if same else None

    @staticmethod
    def _rules(path: str) -> bool:
        """A change to this path can change which files the workspace holds (its config, ignore files)."""
        return path.rsplit("/", 1)[-1] in STRUCTURAL_NAMES

    def _structural(self, path: str) -> bool:
        """A change to this path can change the services (a manifest, a Dockerfile, a deployment):
        they are discovered again (:meth:`_rediscovered`). A folder is not (its files are walked and asked the same,
        :func:`check_paths`)."""
        name = path.rsplit("/", 1)[-1]
        return name in STRUCTURAL_NAMES or structural(name)

    def _walk(self, config: Config) -> tuple[Walk, Workspace]:
        named = config.services
        services = order_services(named) if named is not None else ()
        workspace = Workspace(self.root, config, services)
        tree = walk(
            self.root,
            max_file_bytes=config.max_file_bytes,
            include_vendored=config.include_vendored,
            include_secrets=config.include_secrets,
            extra_ignores=workspace.ignore_patterns(),
        )
        self._paths = DiscoveryPaths(self.root, (f.path for f in tree.files))
        workspace = self._discover(config, self._paths)
        self._walked = (len(tree.files), sum(entry.size for entry in tree.files))
        for warning in workspace.warnings:
            log.warning("%s:%d: %s", warning.path, warning.line, warning.message)
        return tree, workspace

    def _write(
        self,
        writer: Writer,
        workspace: Workspace,
        known: dict[str, tuple[int, int, int, bytes]],
        walked: dict[str, FileEntry],
        outcome: Outcome,
        counts: Counter[str],
        failures: list[tuple[str, str]],
        *,
        replacing: bool = False,
    ) -> int | None:
        """Write one outcome; the id of the file row written, None when only its stat changed.
        ``replacing``: a file's facts only replace the facts it has (other extractors'), not the
        none a build's text stage left."""
        old = known.get(outcome.path)
        if outcome.status == "unchanged":
            assert old is not None
            writer.touch(old[0], outcome.size, outcome.mtime_ns)
            counts["unchanged_content"] += 1
            return None
        facts = outcome.facts
        if outcome.facts_only and old is not None:  # its text is stored (the first stage): its facts now
            counts["parsed"] += 1
            if facts.error:
                failures.append((outcome.path, facts.error))
            kind = kind_of(outcome.path, facts.language or language_of(outcome.path) or "")
            if replacing:
                writer.drop_facts(old[0])
            writer.put_facts(old[0], facts, outcome.sites, kind=kind, definitions=outcome.definitions)
            return old[0]
        if old is not None:
            writer.delete([old[0]])
        if outcome.status == "failed":
            counts["failed"] += 1
        else:
            counts["parsed"] += 1
        if facts.error:
            failures.append((outcome.path, facts.error))
            log.info("%s: %s", outcome.path, facts.error)
        size, mtime_ns = outcome.size, outcome.mtime_ns
        entry = walked.get(outcome.path)
        if outcome.status == "failed" and entry is not None and not facts.error.startswith("unreadable"):
            # over the budget or crashed its worker: not worth retrying until the file changes
            size, mtime_ns = entry.size, entry.mtime_ns
        record = FileRecord(
            path=outcome.path,
            service=workspace.service_of(outcome.path),
            kind=kind_of(outcome.path, facts.language or language_of(outcome.path) or ""),
            size=size,
            mtime_ns=mtime_ns,
            hash=outcome.hash,
            lines=outcome.lines,
            compressed=outcome.compressed,
            facts=facts,
            sites=outcome.sites,
            definitions=outcome.definitions,
        )
        return writer.put(record, outcome.searchable)

    def _reassign(self, writer: Writer, workspace: Workspace) -> None:
        """Services may have changed (a new manifest, an edited mesh.toml): move files to their owner."""
        rows = writer.db.execute("SELECT id, path, service FROM files").fetchall()
        moves = [
            (owner, file_id) for file_id, path, service in rows if (owner := workspace.service_of(path)) != service
        ]
        writer.db.executemany("UPDATE files SET service = ? WHERE id = ?", moves)

    def _service_rows(self, writer: Writer, workspace: Workspace) -> list[tuple[str, str, str, str, str]]:
        languages: dict[str, Counter[str]] = {}
        for service, language, count in writer.db.execute(
            "SELECT service, language, count(*) FROM files WHERE language != '' GROUP BY service, language"
        ):
            languages.setdefault(service, Counter())[language] = count
        rows = []
        for service in workspace.services:
            ranked = _ranked(service, languages.get(service.name, Counter()))
            rows.append((service.name, service.path, service.origin, ranked, "", service.kind,
                         json.dumps(list(service.evidence)), json.dumps(list(service.extra))))  # fmt: skip
        return rows

    @staticmethod
    def _rank_again(writer: Writer, workspace: Workspace, paths: Iterable[str]) -> None:
        """The languages of the services holding ``paths`` (files added or removed), ranked again
        by their files: the services' other columns stand."""
        for name in sorted({workspace.service_of(path) for path in paths}):
            service = next((s for s in workspace.services if s.name == name), None)
            if service is None:
                continue
            found = Counter[str]({
                language: count for language, count in writer.db.execute(
                    "SELECT language, count(*) FROM files WHERE service = ? AND language != '' GROUP BY language",
                    (name,),
                )
            })  # fmt: skip
            writer.db.execute("UPDATE services SET languages = ? WHERE name = ?", (_ranked(service, found), name))

    def summary(self) -> Summary:
        """Counts of what the index holds now (one snapshot)."""
        with self.store.snapshot() as db:
            return self._summary(db)

    def _summary(self, db, *, counted: bool = True, **extra) -> Summary:
        generation = int(db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])
        if not counted:
            return Summary(
                generation=generation, services=0, files=0, languages={}, symbols=0, grpc_services=0,
                grpc_methods=0, grpc_implementations=0, grpc_clients=0, parsed=extra.get("parsed", 0),
                unchanged=extra.get("unchanged", 0), deleted=extra.get("deleted", 0),
                failures=tuple(sorted(extra.get("failures", ()))), skipped=extra.get("skipped", 0),
                elapsed_s=extra.get("elapsed_s", 0.0), counted=False,
            )  # fmt: skip
        languages = dict(db.execute(
            "SELECT language, count(*) FROM files WHERE language != '' GROUP BY language ORDER BY 2 DESC, 1"
        ).fetchall())  # fmt: skip
        one = lambda sql: db.execute(sql).fetchone()[0]
        return Summary(
            generation=generation,
            services=one("SELECT count(*) FROM services"),
            files=one("SELECT count(*) FROM files"),
            languages=languages,
            symbols=one("SELECT count(*) FROM defs"),
            grpc_services=one("SELECT count(DISTINCT package || '.' || name) FROM proto_services"),
            grpc_methods=one("SELECT count(DISTINCT package || '.' || service || '/' || name) FROM proto_methods"),
            grpc_implementations=one("SELECT count(*) FROM grpc WHERE role = 'handler'"),
            grpc_clients=one("SELECT count(*) FROM grpc WHERE role = 'call'"),
            parsed=extra.get("parsed", 0),
            unchanged=extra.get("unchanged", 0),
            deleted=extra.get("deleted", 0),
            failures=tuple(sorted(extra.get("failures", ()))),
            skipped=extra.get("skipped", 0),
            elapsed_s=extra.get("elapsed_s", 0.0),
            http_routes=one("SELECT count(*) FROM http_routes WHERE hidden = 0 AND mount = ''"),
            http_calls=one("SELECT count(*) FROM http_calls"),
            http_calls_linked=one("SELECT count(*) FROM http_calls WHERE target_kind = 'service'"),
            http_calls_computed=one("SELECT count(*) FROM http_calls WHERE computed != 0"),
            messages=one("SELECT count(*) FROM messages WHERE hidden = 0"),
        )
