"""The attacks of issue 13 that held, gathered so that they keep holding.

Issue 13 tried mesh-mcp as an attacker would, and most attacks held. Where a test elsewhere already
is the attack, it is named in the table instead of repeated; this module adds the ones nothing ran.
Each test here makes a real attack and asserts what must not happen: outside content or a machine
path in an answer, a marker file a hostile program would have created, a hang, a crash, a count
that is wrong.

Held, and already attacked by a test elsewhere (attack, then the test that is the attack):

- paths with ``..``, absolute, with a NUL byte or through a link out, in the check every tool shares:
  ``tests/tools/test_view.py::test_paths_leaving_the_workspace_are_refused``; per tool:
  ``tests/tools/test_dependents.py``, ``test_impact.py``, ``test_smart_search.py``,
  ``test_doc_sections.py`` (``FAILURES``), ``test_grpc_trace.py`` (a scope outside)
- a path through a link out, never naming the link's target:
  ``tests/adversarial/test_tool_arguments.py::test_a_refused_symlink_never_names_its_target``
- a file or folder swapped for a link out after the walk (same size, same mtime):
  ``tests/adversarial/test_confinement.py``
- globs with ``..`` or an absolute start:
  ``tests/tools/test_smart_search.py::test_failures_say_what_was_wrong_and_what_to_try``
- ReDoS ``(a+)+$``, back-references and lookaround:
  ``tests/tools/test_smart_search.py::test_a_catastrophic_regex_runs_in_linear_time`` and the test above
- ``git_range`` as an option (``-p..HEAD``), with blanks, with ``$(rm)``:
  ``tests/tools/test_impact.py::test_a_malformed_git_range_is_an_error``
- ``git_range`` in a folder outside (``..:``), or in a service folder linking out:
  ``tests/tools/test_impact.py::test_a_repository_folder_that_is_not_in_the_workspace_is_an_error``,
  ``tests/adversarial/test_git_range.py``
- another uid on the daemon socket:
  ``tests/drivers/test_uds.py::test_a_peer_of_another_uid_is_hung_up_on_before_any_byte``,
  ``tests/journeys/test_daemon.py::test_a_peer_of_another_uid_is_refused`` (as root, a real other uid),
  ``tests/test_sockets.py`` (the socket folder: 0700 and ours alone)
- junk, oversized lines and EOF mid-frame on stdio: ``tests/journeys/test_stdio_raw.py``, the simulator
- kill -9 of a daemon mid-session, and the next session on the index left:
  ``tests/journeys/test_daemon.py::test_a_daemon_killed_mid_session_ends_the_proxy_with_status_1_and_the_next_``
  ``session_reuses_the_index``,
  the simulator's daemon target (INV-DAEMON-2)
- kill -9 of an index writer mid-write:
  ``tests/adversarial/test_index_damage.py::test_after_an_unclean_stop_a_changed_index_is_checked``
- kill -9 of an audit writer: ``tests/test_audit.py::test_a_row_reported_recorded_survives_kill_9_INV_AUDIT_1``
- bytes flipped and pages overwritten in ``index.db``, at rest and while served:
  ``tests/adversarial/test_index_damage.py``
- an ``audit.db`` of garbage or of another schema:
  ``tests/test_audit.py::test_a_damaged_or_foreign_audit_db_is_set_aside_and_recreated_INV_AUDIT_2``

Added here: paths spelled with ``~`` (``HOME`` pointing at secrets), Windows-style, as URLs or
very long, through every path argument of every tool; globs that climb, bomb or run 10,000
characters; more ReDoS patterns; ``git_range`` injections (``--output=``, ``-c core.pager=``,
``$(...)``, ``;``, a repository folder named like an option, ranges naming a folder outside); a
hostile ``.git/config``; junk on the daemon socket; kill -9 of a daemon mid-index and of a
standalone server mid-call (journeys); ``index.db`` and ``audit.db`` truncated or zeroed.

Two attacks did not hold. A regular expression of hundreds of capturing groups took a minute per
250 KB (fixed: ``tests/adversarial/test_leftovers.py``). An ``audit.db`` damaged where its writes
never reach (cut mid-page, or an old page zeroed) was never set aside: every record succeeded and
every read (``mesh-mcp audit``) failed for as long as the file lived (fixed: the log runs SQLite's
``quick_check`` when it opens an existing file, about 20 ms per 100,000 rows).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from mesh.audit import DB_NAME, AuditLog, AuditUnavailable, read_recent
from mesh.index import Index
from mesh.index.build._live import LiveIndex, StaticIndex
from mesh.sockets import END_MARKER, read_hello
from mesh.tools import Registry, ToolOutput, builtin_registry
from mesh.workspace import cache_dir
from tests.adversarial.index_faults import PAGE, checkpoint, many_dependents
from tests.adversarial.test_daemon import InProcess, Site, handshake, in_process, lines_until, site  # noqa: F401
from tests.journeys.conftest import LiveServer, call, tool_text
from tests.support.memory import request
from tests.test_audit import FakeClock, make_row

ROOT: Final = Path(__file__).resolve().parents[2]
#: What the files outside the workspace hold: no answer may ever show it.
MARKER: Final = "OUTSIDE_MARKER_5f1c"
#: Hang detectors, never speed claims: RE2 answers these in milliseconds.
ANSWER_S_MAX: Final = 30.0
TIMEOUT_S: Final = 60.0


def ask(registry: Registry, root: Path, tool: str, arguments: dict[str, Any]) -> ToolOutput:
    """One call as an agent makes it: through the registry (schema, bounds), never raising."""
    return registry.call(tool, arguments, None, workspace=root)


# -- the workspace the tool attacks run against ----------------------------------------------------------


class Attacked:
    """An indexed workspace, an outside folder and a fake home, both holding the marker; links out."""

    def __init__(self, base: Path) -> None:
        self.root = base / "ws"
        self.outside = base / "outside"
        self.home = base / "home"
        for folder in (self.root / "svc" / "docs", self.outside, self.home / ".ssh"):
            folder.mkdir(parents=True)
        (self.root / "svc" / "pyproject.toml").write_text('[project]\nname = "svc"\n')
        (self.root / "svc" / "main.py").write_text("def main():\n    return 'inside'\n")
        (self.root / "svc" / "orders.proto").write_text(
            'syntax = "proto3";\npackage shop.v1;\nmessage Req {}\nservice Orders { rpc Get(Req) returns (Req); }\n'
        )
        (self.root / "svc" / "docs" / "guide.md").write_text("# Guide\n\n## Setup\n\nThe inside words.\n")
        # 5,000 letters then a character no pattern below ends with: exponential for a backtracking engine.
        (self.root / "svc" / "aaaa.txt").write_text("a" * 5000 + "!\n" + ("ab" * 60 + "\n") * 200)
        for folder in (self.outside, self.home):
            (folder / "secret.md").write_text(f"# Secret\n\n{MARKER}\n")
            (folder / "notes.md").write_text(f"# Notes\n\n{MARKER}\n")
        (self.home / ".bashrc").write_text(f"export TOKEN={MARKER}\n")
        (self.home / ".ssh" / "id_rsa").write_text(f"{MARKER}\n")
        (self.root / "out").symlink_to(self.outside, target_is_directory=True)
        (self.root / "leak.md").symlink_to(self.outside / "secret.md")
        (self.root / "environ").symlink_to("/proc/self/environ")
        self.index = Index(self.root, base / "cache", workers=1)
        self.index.refresh()
        self.root = self.index.root
        self.registry = builtin_registry(StaticIndex(self.index))

    def ask(self, tool: str, arguments: dict[str, Any]) -> ToolOutput:
        return ask(self.registry, self.root, tool, arguments)

    def leaks(self, text: str, given: str) -> list[str]:
        """What of the outside a text shows: the marker, or a machine path the caller did not give."""
        found = [MARKER] if MARKER in text else []
        paths = (str(self.outside), str(self.home), str(self.root))
        found += [path for path in paths if path in text and path not in given]
        return found


@pytest.fixture(scope="module")
def attacked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Attacked]:
    made = Attacked(tmp_path_factory.mktemp("held"))
    yield made
    made.index.close()


# -- path arguments ----------------------------------------------------------------------------------------

#: Paths that leave the workspace; ``{outside}``, ``{root}`` and ``{home}`` are filled in.
ESCAPING: Final = {
    "dot-dot": "../outside/secret.md",
    "dot-dot-deep": "svc/" + "../" * 200 + "etc/passwd",
    "dot-dot-after-a-link": "out/../../outside/secret.md",
    "absolute-outside": "{outside}/secret.md",
    "absolute-through-the-root": "{root}/../outside/secret.md",
    "absolute-home": "{home}/.bashrc",
    "double-slash": "//etc/passwd",
    "proc": "/proc/self/environ",
    "nul": "svc\0/../../outside/secret.md",
    "nul-only": "\0",
    "link-to-a-folder-out": "out/secret.md",
    "link-to-a-file-out": "leak.md",
    "link-to-proc": "environ",
}
#: What a refusal of one of them says (the shared check's words).
REFUSALS: Final = ("leaves the workspace", "is outside the workspace", "through a symlink", "contains a NUL byte")
#: Paths that name nothing here, however a shell, Windows or a browser would read them.
ODD: Final = {
    "tilde": "~",
    "tilde-file": "~/notes.md",
    "tilde-ssh": "~/.ssh/id_rsa",
    "tilde-user": "~root/.bashrc",
    "windows-dot-dot": "..\\..\\outside\\secret.md",
    "windows-drive": "C:\\Windows\\win.ini",
    "windows-unc": "\\\\server\\share\\secret.md",
    "windows-mixed": "svc\\..\\..\\outside/secret.md",
    "file-url": "file:///etc/passwd",
    "percent-encoded": "%2e%2e/%2e%2e/outside/secret.md",
    "one-999-character-name": "a" * 999,
    "499-folders": "a/" * 499 + "b",
    "past-the-bound": "x" * 1001,
    "10k-characters": "../" * 3334,
}
#: Each path argument of each tool, with the other arguments a call needs.
SLOTS: Final = {
    "smart_search.scope": ("smart_search", lambda p: {"query": "inside", "scope": p}),
    "dependents.target": ("dependents", lambda p: {"target": p}),
    "dependents.scope": ("dependents", lambda p: {"target": "svc/main.py", "scope": p}),
    "impact_matrix.changes": ("impact_matrix", lambda p: {"changes": [p]}),
    "impact_matrix.scope": ("impact_matrix", lambda p: {"changes": ["svc/main.py"], "scope": p}),
    "grpc_trace.scope": ("grpc_trace", lambda p: {"target": "shop.v1.Orders/Get", "scope": p}),
    "doc_sections.path": ("doc_sections", lambda p: {"path": p}),
    "doc_sections.section_id": ("doc_sections", lambda p: {"section_id": p + "#secret"}),
}


@pytest.mark.parametrize("slot", sorted(SLOTS))
def test_no_path_argument_reaches_outside_the_workspace_INV_TOOL_4_INV_TOOL_3(
    attacked: Attacked, slot: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-TOOL-4, INV-TOOL-3, INV-TOOL-1: ``..``, absolute, NUL, links out, ``~`` (with ``HOME``
    pointing at a folder of secrets), Windows spellings, URLs, names of 999 characters, 499
    folders, 10,000 characters: through every path argument of every tool, each is an ``isError``
    answer that shows nothing of the outside and names no machine path but the one given."""
    monkeypatch.setenv("HOME", str(attacked.home))
    tool, arguments_for = SLOTS[slot]
    for name, spelling in {**ESCAPING, **ODD}.items():
        given = spelling.replace("{outside}", str(attacked.outside)).replace("{root}", str(attacked.root))
        given = given.replace("{home}", str(attacked.home))
        started = time.monotonic()
        output = attacked.ask(tool, arguments_for(given))
        assert time.monotonic() - started < ANSWER_S_MAX, name
        assert output.is_error, (name, output.text[:300])
        assert attacked.leaks(output.text, given) == [], (name, output.text[:300])
        if name in ESCAPING:  # refused by the check itself, not by luck of a later lookup
            assert any(refusal in output.text for refusal in REFUSALS), (name, output.text[:300])


def test_the_same_tools_answer_inside_the_workspace(attacked: Attacked) -> None:
    """The control: the calls above are not refused for their form; inside paths are answered."""
    assert "guide.md#guide/setup" in attacked.ask("doc_sections", {"path": "svc/docs/guide.md"}).text
    assert "The inside words." in attacked.ask("doc_sections", {"section_id": "svc/docs/guide.md#guide"}).text
    assert "inside" in attacked.ask("smart_search", {"query": "inside", "scope": "svc"}).text
    assert not attacked.ask("dependents", {"target": "svc/main.py", "scope": "svc"}).is_error
    assert not attacked.ask("impact_matrix", {"changes": ["svc/main.py"], "scope": "svc"}).is_error
    assert not attacked.ask("grpc_trace", {"target": "shop.v1.Orders/Get"}).is_error


# -- scope globs ---------------------------------------------------------------------------------------------

#: Globs that climb out, expand exponentially in a shell, or cost a naive matcher a lot.
GLOBS: Final = {
    "climb": "**/../**",
    "climb-later": "svc/**/../../**",
    "climb-first": "../*",
    "absolute": "/etc/*",
    "absolute-home": "{home}/*",
    "through-a-link-out": "out/*",
    "through-a-link-out-deep": "out/**",
    "brace-bomb": "*" + "{a,b}" * 30,
    "nested-braces": "*" + "{" * 490 + "}" * 490,
    "999-stars": "*" * 999,
    "star-letter": "*a" * 499,
    "star-question": "*?" * 499,
    "open-brackets": "[" * 999,
    "negations": "[!" * 499,
    "classes": "[[:alpha:]]*" * 80,
    "10k-characters": "*" * 10_000,
}


@pytest.mark.parametrize("name", sorted(GLOBS))
def test_no_scope_glob_climbs_out_blows_up_or_hangs_INV_TOOL_4_INV_TOOL_6(attacked: Attacked, name: str) -> None:
    """INV-TOOL-4, INV-TOOL-6, INV-TOOL-1: a glob with ``..`` or an absolute start is refused; one
    through a link out finds nothing (the walk never entered it); braces are not expanded; 999
    stars or brackets answer at once; 10,000 characters are refused by the schema."""
    glob = GLOBS[name].replace("{home}", str(attacked.home))
    for query in ("inside", "a"):
        started = time.monotonic()
        output = attacked.ask("smart_search", {"query": query, "scope": glob})
        assert time.monotonic() - started < ANSWER_S_MAX
        assert attacked.leaks(output.text, glob) == [], output.text[:300]
        if ".." in glob.split("/") or glob.startswith("/"):
            assert output.is_error and "without `..`" in output.text
        elif len(glob) > 1000:
            assert output.is_error and "at most 1000 characters" in output.text
        elif name.startswith("through-a-link-out"):
            assert not output.is_error and ": 0 matches in 0 files" in output.text


# -- ReDoS ---------------------------------------------------------------------------------------------------

#: Patterns that take a backtracking engine exponential (or huge polynomial) time on ``a`` x 5000 + ``!``.
REDOS: Final = [
    "(a+)+$", "(a|a)*$", "(a|aa)+$", "(a|a?)+$", "(.*a){20}$", "((a*)*)*$", "(a*)*b", "(x+x+)+y",
    "((((a*)*)*)*)*c", "(.*)*(.*)*(.*)*#", "(?:a?){30}a{30}$", "(a{1,30}){1,30}$", "(\\w|\\d|a)+$",
    "^(a|a|a|a|a|a|a|a)*$", "(?i)(a|A)+$", "(.*){999}", "[^x]*" * 150 + "#", "a|" * 400 + "#",
    "(\\pL|\\pN){1000}", "(?s).*" * 100 + "#", "\\b" * 400,
]  # fmt: skip
#: Refused by RE2 before anything is read: back-references, lookaround, repetitions past 1,000.
REFUSED: Final = ["(a*)\\1", "(?=a)", "(?<!a)b", "a{1000}{1000}", "(\\w{100}){100}", "(a{0,999}){0,999}"]


@pytest.mark.parametrize("pattern", REDOS, ids=lambda p: p[:24])
def test_a_redos_pattern_is_answered_within_the_bounds_of_re2_INV_TOOL_6(attacked: Attacked, pattern: str) -> None:
    """INV-TOOL-6: regex mode (and ``/auto/``) runs RE2: no backtracking, so each of these answers
    in time linear in the text, with or without matches; never a crash."""
    for arguments in ({"query": pattern, "mode": "regex"}, {"query": f"/{pattern}/"}):
        started = time.monotonic()
        output = attacked.ask("smart_search", arguments)
        assert time.monotonic() - started < ANSWER_S_MAX, pattern
        assert not output.is_error or "Cannot search for" in output.text, output.text[:300]


@pytest.mark.parametrize("pattern", REFUSED)
def test_what_re2_cannot_run_in_linear_time_is_refused_with_a_clear_answer_INV_TOOL_6(
    attacked: Attacked, pattern: str
) -> None:
    """INV-TOOL-6: a pattern RE2 refuses is an ``isError`` answer saying why and what to do."""
    output = attacked.ask("smart_search", {"query": pattern, "mode": "regex"})
    assert output.is_error and "invalid regular expression" in output.text and "use mode literal" in output.text


# -- git_range injection and a hostile .git/config ----------------------------------------------------------

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


class Repository:
    """A workspace in a git repository of two commits whose ``.git/config`` (with ``.gitattributes``
    and a hooks folder) would run a program creating a file in ``markers`` wherever git consulted it."""

    KEYS: Final = {  # each runs `touch <markers>/<name>` if git ever runs it
        ("core", "fsmonitor"): "fsmonitor",
        ("core", "pager"): "core-pager",
        ("pager", "diff"): "pager-diff",
        ("diff", "external"): "diff-external",
        ("core", "sshCommand"): "ssh-command",
        ("core", "askPass"): "askpass",
        ("core", "editor"): "editor",
        ("gpg", "program"): "gpg",
        ('diff "evil"', "textconv"): "textconv",
        ('filter "evil"', "clean"): "filter-clean",
        ('filter "evil"', "smudge"): "filter-smudge",
        ('filter "evil"', "process"): "filter-process",
    }
    HOOKS: Final = ("post-index-change", "reference-transaction", "post-checkout", "pre-auto-gc", "fsmonitor-watchman")

    def __init__(self, base: Path) -> None:
        self.root = base / "ws"
        self.markers = base / "markers"
        self.markers.mkdir()
        (self.root / "svc").mkdir(parents=True)
        (self.root / "other").mkdir()
        (self.root / "svc" / "pyproject.toml").write_text('[project]\nname = "svc"\n')
        (self.root / "other" / "pyproject.toml").write_text('[project]\nname = "other"\n')
        (self.root / "svc" / "core.py").write_text("def f():\n    return 1\n")
        (self.root / "other" / "use.py").write_text("from svc.core import f\n")
        (self.root / ".gitattributes").write_text("* diff=evil filter=evil\n")
        (self.root / "--output=planted").mkdir()  # a repository folder spelled as an option
        (self.root / "--output=planted" / "x.py").write_text("x = 1\n")
        self.git("init", "-q")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "first")
        (self.root / "svc" / "core.py").write_text("def f():\n    return 2\n")
        (self.root / "--output=planted" / "x.py").write_text("x = 2\n")
        self.git("commit", "-q", "-am", "second")
        hooks = base / "hooks"  # hooks git runs when it writes its index or a ref, or checks out
        hooks.mkdir()
        for hook in self.HOOKS:
            (hooks / hook).write_text(f"#!/bin/sh\ntouch {self.markers / hook}\n")
            (hooks / hook).chmod(0o755)
        with (self.root / ".git" / "config").open("a") as config:
            for (section, key), name in self.KEYS.items():
                config.write(f'[{section}]\n\t{key} = "touch {self.markers / name}; false"\n')
            config.write(f"[core]\n\thooksPath = {hooks}\n")
        self.index = Index(self.root, base / "cache", workers=1)
        self.index.refresh()
        self.root = self.index.root
        self.registry = builtin_registry(StaticIndex(self.index))
        self.names = sorted(path.name for path in self.root.iterdir())

    def git(self, *arguments: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=Mesh Test", "-c", "user.email=mesh@example.invalid", "-c", "commit.gpgsign=false",
             "-c", "init.defaultBranch=main", "-C", str(self.root), *arguments],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip

    def ask(self, arguments: dict[str, Any]) -> ToolOutput:
        return ask(self.registry, self.root, "impact_matrix", arguments)

    def planted(self) -> list[str]:
        """Every file a hostile program created, here or in the workspace."""
        made = sorted(path.name for path in self.markers.iterdir())
        return made + sorted(set(path.name for path in self.root.iterdir()) - set(self.names))


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Repository]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    made = Repository(tmp_path_factory.mktemp("git-held"))
    yield made
    made.index.close()


class GitSpy:
    """Every command line ``impact_matrix`` hands to ``subprocess.run``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import mesh.tools._impact as impact

        self.argv: list[list[str]] = []
        real = impact.subprocess.run

        def spy(command: list[str], *args: Any, **kwargs: Any) -> Any:
            self.argv.append(list(command))
            return real(command, *args, **kwargs)

        monkeypatch.setattr(impact.subprocess, "run", spy)


#: ``git_range`` values that try to become an option, a second command, or a shell's.
INJECTIONS: Final = [
    "--output={m}/o..HEAD", "HEAD~1..--output={m}/o", "-c core.pager=touch {m}/p..HEAD",
    "HEAD~1..HEAD --output={m}/o", "HEAD~1..HEAD -- --output={m}/o", "$(touch {m}/s)..HEAD",
    "`touch {m}/s`..HEAD", "HEAD~1..HEAD;touch {m}/s", "HEAD~1..HEAD && touch {m}/s", "HEAD~1..HEAD|touch {m}/s",
    "HEAD~1..HEAD\ntouch {m}/s", "HEAD~1..HEAD\0--output={m}/o", "-O{m}/o..HEAD", "--no-index..HEAD",
    "HEAD@{{--output={m}/o}}..HEAD", "..--output={m}/o", "HEAD~1..HEAD -c core.fsmonitor=touch", "'HEAD~1'..HEAD",
    "HEAD~1..HEAD -- ../../etc", ">{m}/o..HEAD", "HEAD~1..HEAD>{m}/o", "svc:-c:HEAD~1..HEAD",
]  # fmt: skip
#: Ranges naming a repository folder outside the workspace.
OUTSIDE_RANGES: Final = [
    "/etc:HEAD~1..HEAD", "{base}:HEAD~1..HEAD", "../..:HEAD~1..HEAD", "svc/../..:HEAD~1..HEAD",
    "~:HEAD~1..HEAD", "..\\..:HEAD~1..HEAD", "HEAD:../../etc/passwd..HEAD", "\0:HEAD~1..HEAD",
]  # fmt: skip


@needs_git
def test_no_git_range_becomes_an_option_or_a_command_INV_TOOL_4(
    repository: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-TOOL-4 (no code execution from arguments): each injection is refused before git runs,
    names the form expected, and creates nothing."""
    spy = GitSpy(monkeypatch)
    for template in INJECTIONS:
        given = template.format(m=repository.markers)
        output = repository.ask({"git_range": given})
        assert output.is_error, (given, output.text[:300])
        refusals = ("is not `base..head`", "at most 300 characters", "not a folder of the workspace")
        assert any(refusal in output.text for refusal in refusals), (given, output.text[:300])
    assert spy.argv == []
    assert repository.planted() == []


@needs_git
def test_a_git_range_naming_a_folder_outside_is_refused_before_git_runs_INV_TOOL_4(
    repository: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-TOOL-4: a repository folder that is absolute, climbs with ``..``, or is spelled
    otherwise to leave the workspace never has git run in it; the answer names no path of ours."""
    spy = GitSpy(monkeypatch)
    base = str(repository.root.parent)
    for template in OUTSIDE_RANGES:
        given = template.format(base=base)
        output = repository.ask({"git_range": given})
        assert output.is_error, (given, output.text[:300])
        assert base not in output.text.replace(given.rpartition(":")[0], ""), (given, output.text[:300])
    assert spy.argv == []


@needs_git
def test_a_repository_folder_spelled_like_an_option_stays_a_folder_INV_TOOL_4(
    repository: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-TOOL-4: a folder of the workspace named ``--output=planted`` is passed to git as an
    absolute path after ``-C``, never as an option: git lists its change and writes no file."""
    spy = GitSpy(monkeypatch)
    output = repository.ask({"git_range": "--output=planted:HEAD~1..HEAD"})
    assert not output.is_error, output.text[:300]
    assert "(1 changed file)" in output.text and "`--output=planted/x.py`" in output.text
    [argv] = spy.argv
    assert argv[:3] == ["git", "-C", str(repository.root / "--output=planted")]
    assert all(not part.startswith("--output") for part in argv[3:])
    assert repository.planted() == []


@needs_git
def test_a_hostile_git_config_runs_nothing_when_indexing_or_answering_a_git_range(repository: Repository) -> None:
    """SECURITY.md (no code execution from the workspace): ``core.fsmonitor``, ``core.pager``,
    ``pager.diff``, ``diff.external``, ``core.sshCommand``, a textconv and a filter driver for every
    file, each set to create a marker: none has run after indexing (the fixture indexed) and after
    ``impact_matrix`` over ranges in the repository, in a folder of it, and one git refuses."""
    answered = [repository.ask({"git_range": git_range}) for git_range in ("HEAD~1..HEAD", "HEAD~1...HEAD")]
    assert all(not output.is_error and "(2 changed files)" in output.text for output in answered), answered
    assert "(1 changed file)" in repository.ask({"git_range": "svc:HEAD~1..HEAD"}).text
    assert repository.ask({"git_range": "nope..HEAD"}).is_error
    repository.index.refresh()
    assert repository.planted() == []


@needs_git
def test_the_hostile_config_would_run_if_git_consulted_it(repository: Repository, tmp_path: Path) -> None:
    """The control: the same repository's pager does run when git is asked to page (so the test
    above would see a marker if the tool ever let git consult one)."""
    clone = tmp_path / "clone"
    shutil.copytree(repository.root, clone, symlinks=True)
    config = (clone / ".git" / "config").read_text().replace(str(repository.markers), str(tmp_path))
    config = config.replace(str(repository.root.parent / "hooks"), str(tmp_path / "no-hooks"))  # they touch ours
    (clone / ".git" / "config").write_text(config)
    subprocess.run(["git", "-C", str(clone), "status"], capture_output=True, timeout=60, check=False)
    assert (tmp_path / "fsmonitor").exists()


# -- junk on the daemon socket -----------------------------------------------------------------------------


def junk(seed: int, size: int) -> bytes:
    """``size`` seeded random bytes (one draw of ``prng.random()`` each)."""
    prng = random.Random(seed)
    return bytes(int(prng.random() * 256) for _ in range(size))


def served(daemon: InProcess) -> None:
    """A good client: a handshake and a ping, answered; then EOF, answered with the end marker."""
    client, _ = daemon.connect()
    client.sendall(handshake() + request(2, "ping"))
    answers = [json.loads(line) for line in lines_until(client, 2)[:2]]
    assert [answer["id"] for answer in answers] == [1, 2] and answers[1]["result"] == {}
    client.shutdown(socket.SHUT_WR)
    rest = b""
    while chunk := client.recv(65536):
        rest += chunk
    assert rest.endswith(END_MARKER)
    client.close()


def everything_until_close(client: socket.socket) -> bytes:
    received = b""
    while chunk := client.recv(1 << 20):
        received += chunk
    return received


def test_junk_on_the_daemon_socket_costs_only_its_connection_INV_CLASS_1_INV_FRAME_2(
    in_process: Any,  # noqa: F811 -- the fixture of test_daemon.py
) -> None:
    """INV-CLASS-1, INV-FRAME-2, INV-DRAIN-2: seeded random bytes, half a line then EOF, half a line
    then an abrupt close, a 10 MB line: each connection gets its errors (``id: null``), or nothing,
    and the daemon serves a good client after each, and while a junk client still holds its own
    connection open."""
    daemon = in_process(heartbeat_s=0.0)
    client, _ = daemon.connect()
    client.sendall(junk(7, 64 * 1024))
    client.shutdown(socket.SHUT_WR)
    received = everything_until_close(client)
    assert received.endswith(END_MARKER)  # the session ended having answered everything
    answers = [json.loads(line) for line in received[: -len(END_MARKER)].splitlines()]
    assert len(answers) > 100
    assert all(answer["id"] is None and answer["error"]["code"] in (-32700, -32600) for answer in answers)
    client.close()
    served(daemon)

    half = b'{"jsonrpc":"2.0","id":1,"method":"pi'
    client, _ = daemon.connect()
    client.sendall(half)
    client.shutdown(socket.SHUT_WR)
    received = everything_until_close(client)
    assert received.endswith(END_MARKER)
    [answer] = [json.loads(line) for line in received[: -len(END_MARKER)].splitlines()]
    assert answer["id"] is None and answer["error"]["code"] == -32700
    client.close()
    served(daemon)

    holder, _ = daemon.connect()
    holder.sendall(half)  # and stays open, mid-frame
    abrupt, _ = daemon.connect()
    abrupt.sendall(half)
    abrupt.close()
    served(daemon)

    client, _ = daemon.connect()
    client.settimeout(TIMEOUT_S)
    client.sendall(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"x" * (10 << 20) + b'"}}\n')
    client.sendall(request(2, "ping"))
    first, second = (json.loads(line) for line in lines_until(client, 2)[:2])
    assert (first["id"], first["error"]["code"]) == (None, -32600)
    assert second == {"id": 2, "jsonrpc": "2.0", "result": {}}
    client.close()
    served(daemon)
    holder.close()
    assert daemon.error is None and daemon.thread.is_alive()


# -- kill -9 (journeys) -------------------------------------------------------------------------------------

DEPENDENTS: Final = {"target": "core", "depth": 1}
SEARCH: Final = {"query": "marker_3_7"}


def reference_answers(root: Path, cache: Path) -> dict[str, str]:
    """The right answers, from an index built in this process (a cache of its own)."""
    index = Index(root, cache)
    try:
        index.refresh()
        registry = builtin_registry(StaticIndex(index))
        return {
            name: ask(registry, index.root, tool, arguments).text
            for name, tool, arguments in (("dependents", "dependents", DEPENDENTS), ("search", "smart_search", SEARCH))
        }
    finally:
        index.close()


def answered(server: LiveServer, ids: set[int]) -> dict[int, str]:
    """The text of the answer to each of ``ids``, whatever order they come in."""
    texts: dict[int, str] = {}
    while len(texts) < len(ids):
        answer = server.receive(TIMEOUT_S)
        assert isinstance(answer, dict) and answer["id"] in ids, answer
        texts[answer["id"]] = tool_text(answer)
    return texts


def answers_once_indexed(server: LiveServer, first_id: int) -> dict[str, str]:
    """Ask both questions until the index is there (a server may say "still indexing" first)."""
    request_id = first_id
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        server.send(call(request_id, "dependents", DEPENDENTS), call(request_id + 1, "smart_search", SEARCH))
        texts = answered(server, {request_id, request_id + 1})  # in the order the calls finished
        found = {"dependents": texts[request_id], "search": texts[request_id + 1]}
        partial = ("Still indexing", "_Answered by scanning", "_Answered from the text index")  # INV-INDEX-10
        if not any(text.startswith(partial) or "being rebuilt" in text for text in found.values()):
            return found
        assert time.monotonic() < deadline, found
        request_id += 2
        time.sleep(0.2)


def index_state(path: Path) -> dict[str, Any] | None:
    """The index state a daemon's hello reports, or None while nothing answers at ``path``."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.settimeout(5)
        connection.connect(os.fspath(path))
        hello, _ = read_hello(connection, 5)
        return dict(hello.status.get("index") or {})
    except (OSError, ValueError):
        return None
    finally:
        connection.close()


@pytest.mark.journey
def test_kill_9_of_a_daemon_mid_index_then_the_next_start_answers_right_INV_INDEX_2_INV_DAEMON_2(
    site: Site, tmp_path: Path  # noqa: F811
) -> None:
    """INV-INDEX-2, INV-DAEMON-2, INV-INDEX-8: a daemon killed with SIGKILL while its first build
    runs (seen in its hello: indexing, part done) leaves no index to trust; the next session starts
    a daemon that answers exactly what an index built afresh answers, never a partial count."""
    many_dependents(site.workspace, services=20, per_service=200)  # 4,000 dependents of `core`
    expected = reference_answers(site.workspace.resolve(), tmp_path / "reference")
    assert "4000 dependents" in expected["dependents"]
    daemon = subprocess.Popen(
        (sys.executable, "-m", "mesh", "daemon", "--workspace", str(site.workspace)),
        env=site.env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        killed_mid_index(daemon, site)
    finally:
        if daemon.poll() is None:
            daemon.kill()
        daemon.wait(TIMEOUT_S)

    server = LiveServer(site.proxy())
    try:
        server.send(handshake())
        server.receive_id(1)
        assert answers_once_indexed(server, 10) == expected
        assert site.daemon_pid() != daemon.pid
    finally:
        server.close()


def killed_mid_index(daemon: subprocess.Popen[bytes], site: Site) -> None:  # noqa: F811
    """SIGKILL ``daemon`` once its hello says it is indexing, part done."""
    seen: dict[str, Any] | None = None
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        seen = index_state(site.socket())
        if seen and seen.get("state") == "indexing" and 0 < seen.get("done", 0) < seen.get("total", 0):
            break
        assert daemon.poll() is None and (seen is None or seen.get("state") != "ready"), seen
        time.sleep(0.01)
    else:
        pytest.fail(f"never saw the daemon mid-index: {seen}")
    daemon.send_signal(signal.SIGKILL)
    assert daemon.wait(TIMEOUT_S) == -signal.SIGKILL


@pytest.mark.journey
def test_kill_9_of_a_standalone_server_mid_call_then_the_next_start_answers_right_INV_DRAIN_4_INV_AUDIT_1(
    site: Site, tmp_path: Path  # noqa: F811
) -> None:
    """INV-DRAIN-4, INV-AUDIT-1, INV-INDEX-2: a standalone server killed with SIGKILL while a call
    runs leaves whole frames; the next start answers exactly as before (and as an index built
    afresh), and the audit log holds a row for every answer a client saw, no more, no fewer."""
    many_dependents(site.workspace, services=4, per_service=10)
    expected = reference_answers(site.workspace.resolve(), tmp_path / "reference")
    first = LiveServer(site.proxy("--standalone"))
    try:
        first.send(handshake())
        first.receive_id(1)
        before = answers_once_indexed(first, 10)
        first.send(call(2, "sleep", {"ms": 60_000}))
        time.sleep(0.5)  # the call runs
        first.process.send_signal(signal.SIGKILL)
        assert first.wait(TIMEOUT_S) == -signal.SIGKILL
        seen = first.transcript()  # whole frames only: checked while parsing
    finally:
        first.close()
    assert before == expected and 2 not in seen.ids()
    rows_seen = len([answer for answer in seen.singles if answer["id"] != 1])

    second = LiveServer(site.proxy("--standalone"))
    try:
        second.send(handshake())
        second.receive_id(1)
        assert answers_once_indexed(second, 10) == expected
        second.close_stdin()
        assert second.wait(TIMEOUT_S) == 0
        rows_after = len([answer for answer in second.transcript().singles if answer["id"] != 1])
    finally:
        second.close()
    rows = read_recent(cache_dir(site.workspace.resolve(), site.env), limit=10_000) or []
    assert len(rows) == rows_seen + rows_after
    assert all(row.tool in ("dependents", "smart_search") for row in rows)  # the killed call has none


# -- truncated and zeroed databases ---------------------------------------------------------------------------


def truncate(path: Path, kind: str) -> None:
    """Damage ``path`` at rest as a crash, a full disk or a careless hand would."""
    size = path.stat().st_size
    if kind == "half":
        os.truncate(path, size // 2)
    elif kind == "one-page":
        os.truncate(path, PAGE)
    elif kind == "last-page-cut":
        os.truncate(path, size - PAGE)
    elif kind == "mid-page-cut":
        os.truncate(path, size - PAGE // 2)
    elif kind == "empty":
        os.truncate(path, 0)
    elif kind == "zeroed":
        path.write_bytes(b"\0" * size)
    elif kind == "second-half-zeroed":
        with path.open("r+b") as handle:
            handle.seek(size // 2)
            handle.write(b"\0" * (size - size // 2))
    else:
        raise ValueError(kind)


DAMAGE: Final = ["half", "one-page", "last-page-cut", "mid-page-cut", "empty", "zeroed", "second-half-zeroed"]


@pytest.fixture(scope="module")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """A workspace of 20 dependents of ``core`` (fewer than 32 files: rebuilt without worker
    processes), its index (checkpointed) and the right answer."""
    base = tmp_path_factory.mktemp("truncated")
    root = base / "ws"
    assert many_dependents(root, services=2, per_service=10) == 20
    cache = base / "cache"
    index = Index(root, cache, workers=1)
    index.refresh()
    right = ask(builtin_registry(StaticIndex(index)), index.root, "dependents", DEPENDENTS).text
    index.close()
    checkpoint(cache / "index.db")
    assert "20 dependents" in right
    return root.resolve(), cache, right


#: The writer's notes (``index.state``) damaged too: removed, or zeroed like the index.
NOTES_TOO: Final = [("half", "gone"), ("half", "zeroed"), ("zeroed", "gone"), ("zeroed", "zeroed")]


@pytest.mark.parametrize(("kind", "notes"), [*((kind, "kept") for kind in DAMAGE), *NOTES_TOO])
def test_a_truncated_or_zeroed_index_is_rebuilt_never_miscounted_INV_INDEX_8(
    small_index: tuple[Path, Path, str], tmp_path: Path, kind: str, notes: str
) -> None:
    """INV-INDEX-8, INV-INDEX-2: ``index.db`` cut short or zeroed at rest (and its writer's notes
    kept, removed or zeroed with it): the next server answers right or says the index is being
    rebuilt, never a smaller count; once rebuilt it answers right and the file is set aside."""
    root, pristine, right = small_index
    cache = tmp_path / "cache"
    shutil.copytree(pristine, cache)
    Index(root, cache, workers=1).close()  # as a server that stopped cleanly leaves it
    truncate(cache / "index.db", kind)
    state = cache / "index.state"
    if notes == "gone":
        state.unlink()
    elif notes == "zeroed":
        state.write_bytes(b"\0" * state.stat().st_size)
    live = LiveIndex(root, cache, workers=1, watch=False)
    live.start()
    try:
        first = ask(builtin_registry(live), root, "dependents", DEPENDENTS)
        waiting = ("damaged and is being rebuilt", "Still indexing")
        assert first.text == right or (first.is_error and any(why in first.text for why in waiting)), first.text
        assert live.wait_settled(TIMEOUT_S)
        assert ask(builtin_registry(live), root, "dependents", DEPENDENTS).text == right
    finally:
        live.close()
    assert (cache / "index.db.damaged").exists()




@pytest.fixture(scope="module")
def audit_of_2000_rows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An audit log of 2,000 rows closed cleanly (one transaction: a commit per row costs seconds)."""
    import sqlite3

    from mesh.audit import _INSERT

    folder = tmp_path_factory.mktemp("audit")
    with AuditLog(folder, clock=FakeClock()) as audit:
        assert audit.record(make_row(0))
    rows = [make_row(number) for number in range(1, 2000)]
    with sqlite3.connect(folder / DB_NAME) as connection:
        connection.executemany(_INSERT, [
            (row.time, row.session, row.tool, row.args_digest, row.outcome, float(row.duration_ms),
             int(row.result_bytes), bool(row.truncated), row.trace_id) for row in rows
        ])  # fmt: skip
    connection.close()
    checkpoint(folder / DB_NAME)
    assert len(read_recent(folder, limit=10_000) or []) == 2000
    return folder / DB_NAME


def zero_an_old_page(path: Path) -> None:
    """Zero the page in the middle of the log: a leaf of old rows no insert reaches again."""
    pages = path.stat().st_size // PAGE
    with path.open("r+b") as handle:
        handle.seek((pages // 2 - 1) * PAGE)
        handle.write(b"\0" * PAGE)


@pytest.mark.parametrize("kind", [*DAMAGE, "old-page-zeroed"])
def test_a_truncated_or_zeroed_audit_log_is_set_aside_never_read_in_part_INV_AUDIT_2(
    audit_of_2000_rows: Path, tmp_path: Path, kind: str
) -> None:
    """INV-AUDIT-2: ``audit.db`` cut short or zeroed at rest: reading it gives every row it still
    holds or says it cannot, never a part passed off as the whole; the next records set it aside
    and start a new log (the first may be lost, with a warning), and it reads whole again."""
    shutil.copyfile(audit_of_2000_rows, tmp_path / DB_NAME)
    if kind == "old-page-zeroed":
        zero_an_old_page(tmp_path / DB_NAME)
    else:
        truncate(tmp_path / DB_NAME, kind)
    try:
        rows = read_recent(tmp_path, limit=10_000)
    except AuditUnavailable as exc:
        assert "cannot read the audit log" in str(exc)
    else:
        assert rows in ([], None), len(rows or [])  # an empty file is an empty log: nothing to miscount
    with AuditLog(tmp_path, clock=FakeClock()) as audit:
        recorded = [number for number in (5000, 5001, 5002) if audit.record(make_row(number))]
    assert recorded[-2:] == [5001, 5002]
    expected = [100 + number for number in reversed(recorded)]
    assert [row.result_bytes for row in read_recent(tmp_path, limit=10_000) or []] == expected
