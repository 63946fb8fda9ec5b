"""``impact_matrix`` over the fixture workspace and a git repository made from it: goldens, the
verdict, failures an agent can act on, paging and determinism.

The goldens were checked by eye against FIXTURE.md; the tests below restate the facts they rest on.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mesh.index import Index
from mesh.tools import ToolError, parse_args, schema_of
from mesh.tools._impact import NAME, Args, answer
from mesh.tools._view import View

from .conftest import FIXTURE, assert_golden, view_of

VERDICT = re.compile(r"^(\d+) services? impacted, (\d+) via gRPC(?:, \d+ via HTTP)?(?:, \d+ via messaging)?$", re.MULTILINE)


def ask(view: View, **arguments) -> str:
    args, _ = parse_args(Args, arguments)
    return answer(args, view)


def verdict(text: str) -> tuple[int, int]:
    (found,) = VERDICT.findall(text)
    return int(found[0]), int(found[1])


def row(text: str, service: str) -> list[str]:
    """The cells of the table row of ``service`` ("" for the row of the files of no service)."""
    name = f"`{re.escape(service)}`" if service else re.escape("(no service: areas and root files)")
    match = re.search(rf"^\| {name} \| (.*) \|$", text, re.MULTILINE)
    assert match, f"no row for {service}"
    return [cell.strip() for cell in match.group(1).split("|")]


#: Twenty files of six services (a change touching many places at once).
TWENTY = [
    "gateway/src/config.ts",
    "gateway/src/orders.ts",
    "gateway/src/payments.ts",
    "gateway/src/routes.ts",
    "inventory/internal/orders/client.go",
    "inventory/internal/server/server.go",
    "inventory/internal/store/store.go",
    "notifications/EmailSender.cs",
    "notifications/OrderWatcher.cs",
    "orders/orders/inventory.py",
    "orders/orders/service.py",
    "orders/orders/store.py",
    "payments/src/main/java/com/acme/payments/PaymentsService.java",
    "payments/src/main/java/com/acme/payments/ledger/Ledger.java",
    "payments/src/main/java/com/acme/payments/orders/OrderLookup.java",
    "proto/acme/common/v1/money.proto",
    "proto/acme/inventory/v1/inventory.proto",
    "shipping/src/inventory.rs",
    "shipping/src/label.rs",
    "shipping/src/orders.rs",
]

GOLDEN_CASES = {
    "files": {"changes": ["orders/orders/store.py", "gateway/src/config.ts"]},
    "symbol": {"changes": ["Ledger"]},
    "proto_message": {"changes": ["acme.payments.v1.ChargeRequest"], "depth": 1},
    "proto_method": {"changes": ["acme.inventory.v1.Inventory/Release"]},
    "proto_file": {"changes": ["proto/acme/common/v1/money.proto"], "depth": 1},
    "twenty_files": {"changes": TWENTY, "depth": 1},
    "scope": {"changes": ["proto/acme/common/v1/money.proto"], "depth": 3, "scope": "payments"},
}


@pytest.mark.parametrize("case", sorted(GOLDEN_CASES))
def test_golden_answers(view: View, case: str) -> None:
    """Each kind of change on the fixture gives its reviewed answer, byte for byte."""
    text = ask(view, **GOLDEN_CASES[case])
    assert VERDICT.search(text)
    assert_golden(NAME, case, text)


def test_a_changed_rpc_impacts_its_callers_through_grpc_and_areas_are_never_counted_INV_WS_3(view: View) -> None:
    """Release is called only at orders/orders/inventory.py:38 and implemented nowhere (FIXTURE.md);
    the changed proto lies in the area proto/, which the verdict never counts (INV-WS-3)."""
    text = ask(view, changes=["acme.inventory.v1.Inventory/Release"], depth=1)
    assert verdict(text) == (1, 1)
    assert row(text, "orders") == ["–", "–", "–", "1", "–", "–", "–"]
    assert "- L1 `orders/orders/inventory.py:38` calls `acme.inventory.v1.Inventory/Release`" in text
    # the changed proto is in the area proto/: a row of the table, but no service the verdict counts
    assert row(text, "")[0] == "changed (1)"
    assert text.index("| `orders` |") < text.index("| (no service: areas and root files) |")


def test_a_changed_message_is_used_by_code_naming_it_and_rpc_callers(view: View) -> None:
    """ChargeRequest: named by PaymentsService.java:5 and PaymentsServiceTest.java:7 (their import of
    PaymentsGrpc, generated from the same file, is no use of it) and by orders/orders/service.py:52
    (`payments_pb2.ChargeRequest(`); taken by Charge, which gateway/src/payments.ts:25 and
    orders/orders/service.py:58 call and PaymentsService implements. orders/tests/test_service.py
    imports payments_pb2 but names only ChargeResponse: not a dependent."""
    text = ask(view, changes=["acme.payments.v1.ChargeRequest"], depth=1)
    assert row(text, "gateway") == ["–", "–", "–", "–", "1", "–", "–"]
    assert row(text, "orders") == ["–", "–", "–", "–", "1", "–", "–"]
    assert row(text, "payments") == ["–", "–", "–", "–", "2", "–", "1"]
    assert "`orders/orders/service.py:52` names `payments_pb2.ChargeRequest`" in text
    assert "test_service.py" not in text
    assert verdict(text) == (3, 3)


def test_the_changed_files_own_service_is_a_row_marked_changed(view: View) -> None:
    """A change with no dependents still shows its service as changed; nothing is impacted."""
    text = ask(view, changes=["shipping/build.rs"])
    assert row(text, "shipping") == ["changed (1)", "–", "–", "–", "–", "–", "–"]
    assert "Nothing depends on the change." in text
    assert verdict(text) == (0, 0)


def test_a_changed_route_impacts_its_callers_and_a_changed_producer_its_consumers(view: View) -> None:
    """FIXTURE.md, "HTTP and messaging links": notifications asks the gateway for GET /orders/{id}
    (routes.ts:19) and consumes orders.placed, which orders/orders/events.py produces. The verdict
    names each kind."""
    text = ask(view, changes=["gateway/src/routes.ts"], depth=1)
    assert row(text, "notifications") == ["–", "–", "–", "–", "–", "1", "–"]
    assert "- L1 `notifications/OrderEvents.cs:23` sends `GET /orders/{id}`\n" in text
    assert "services impacted, 0 via gRPC, 1 via HTTP\n" in text
    text = ask(view, changes=["orders/orders/events.py"], depth=1)
    assert row(text, "notifications") == ["–", "–", "–", "–", "–", "1", "–"]
    assert "- L1 `notifications/OrderEvents.cs:19` consumes topic `orders.placed`\n" in text
    assert text.rstrip().endswith("1 service impacted, 0 via gRPC, 1 via messaging")


def test_the_table_has_the_columns_of_the_contract(view: View) -> None:
    """The table's columns are those of the contract, and the table, evidence and verdict come in that order."""
    text = ask(view, changes=["orders/orders/store.py"])
    assert (
        "| service | changed | direct import or reference | transitive import | calls a changed RPC | uses a changed message"
        " | reaches a changed route or topic | tests touching it |" in text
    )
    assert text.index("| service |") < text.index("### Evidence") < text.index(" impacted, ")


def test_twenty_files_list_ten_and_count_the_rest(view: View) -> None:
    """Twenty changes: ten are described, the rest counted; a changed file is never its own dependent
    (notifications changed both its files with gRPC facts; its test reaches the change only at level
    2, through `using Acme.Orders.V1` of the changed orders proto; its OrderEvents.cs asks the changed
    gateway/src/routes.ts for an order over HTTP); gRPC reaches inventory (main.go
    serves the changed inventory.proto's service) and payments (GrpcOrderLookup calls Orders,
    served by the changed orders/orders/service.py)."""
    text = ask(view, changes=TWENTY, depth=2)
    assert text.startswith("## Impact of 20 changes within depth 2")
    assert "- and 10 more" in text
    assert row(text, "notifications") == ["changed (2)", "–", "1", "–", "–", "1", "1"]
    assert row(text, "inventory")[3] == "2" and row(text, "payments")[3] == "2"
    assert verdict(text) == (6, 2)  # the six services; the changed files of docs/ and proto/ are in areas


def test_duplicate_changes_count_once(view: View) -> None:
    """A file named twice is one change: the verdict is unchanged. A symbol it defines adds the
    files referring to it (its references), never fewer services."""
    once = ask(view, changes=["orders/orders/store.py"])
    twice = ask(view, changes=["orders/orders/store.py", "./orders/orders/store.py"])
    assert verdict(once) == verdict(twice)
    with_symbol = ask(view, changes=["orders/orders/store.py", "OrderStore"])
    assert verdict(with_symbol)[0] >= verdict(once)[0]


def test_the_schema_has_both_ways_of_naming_a_change_and_a_bounded_depth() -> None:
    """`changes` (at least one) and `git_range` are both optional in the schema; `depth` is 1 to 5."""
    properties = schema_of(Args)["properties"]
    assert set(properties) == {"changes", "git_range", "depth", "scope", "cursor"}
    assert properties["changes"]["type"] == "array" and properties["changes"]["minItems"] == 1
    assert (properties["depth"]["minimum"], properties["depth"]["maximum"]) == (1, 5)
    assert "required" not in schema_of(Args)


# -- failures --------------------------------------------------------------------------------------


def test_neither_changes_nor_git_range_is_an_error(view: View) -> None:
    """A call naming no change is refused with both ways of naming one."""
    with pytest.raises(ToolError, match=r"exactly one of `changes` and `git_range` \(got neither\)"):
        ask(view)


def test_both_changes_and_git_range_is_an_error(view: View) -> None:
    """A call naming the change twice is refused."""
    with pytest.raises(ToolError, match=r"\(got both\)"):
        ask(view, changes=["orders/orders/store.py"], git_range="main..HEAD")


def test_an_unknown_change_says_which_one(view: View) -> None:
    """Among several changes, the one that names nothing is named in the error."""
    with pytest.raises(ToolError) as caught:
        ask(view, changes=["orders/orders/store.py", "NoSuchThing"])
    assert str(caught.value).startswith("In `changes`, `NoSuchThing`: Nothing in the index is named `NoSuchThing`")


def test_an_ambiguous_change_lists_the_candidates(view: View) -> None:
    """A symbol defined in two files is refused with both candidates."""
    with pytest.raises(ToolError) as caught:
        ask(view, changes=["Reserve"])
    assert "`Server.Reserve`" in str(caught.value) and "`Store.Reserve`" in str(caught.value)


@pytest.mark.parametrize("change", ["../x.py", "/etc/passwd"])
def test_a_change_outside_the_workspace_is_refused(view: View, change: str) -> None:
    """`..` above the root and absolute paths outside it are refused."""
    with pytest.raises(ToolError, match="workspace"):
        ask(view, changes=[change])


@pytest.mark.parametrize("git_range", ["HEAD", "..HEAD", "main..", "-p..HEAD", "a b..c", "main..$(rm)", "x:"])
def test_a_malformed_git_range_is_an_error(view: View, git_range: str) -> None:
    """Anything but two revisions joined by `..` (no options, blanks or shell syntax) is refused before git runs."""
    with pytest.raises(ToolError, match=r"is not `base\.\.head`"):
        ask(view, git_range=git_range)


# -- git ranges ------------------------------------------------------------------------------------

GIT_ENV = {
    **{key: value for key, value in os.environ.items() if not key.startswith("GIT_")},
    "GIT_AUTHOR_NAME": "Mesh Test",
    "GIT_AUTHOR_EMAIL": "mesh@example.invalid",
    "GIT_COMMITTER_NAME": "Mesh Test",
    "GIT_COMMITTER_EMAIL": "mesh@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(root: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Mesh Test", "-c", "user.email=mesh@example.invalid", "-c", "commit.gpgsign=false",
         "-c", "init.defaultBranch=main", *arguments],
        cwd=root, env=GIT_ENV, check=True, capture_output=True, timeout=60,
    )  # fmt: skip


@pytest.fixture(scope="module")
def git_workspace(tmp_path_factory: pytest.TempPathFactory):
    """The fixture in a git repository of two commits: the second edits orders/orders/store.py and
    money.proto and deletes shipping/build.rs. Indexed as of the second."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("git") / "ws"
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    with (root / "orders" / "orders" / "store.py").open("a") as handle:
        handle.write("\n# a trailing comment\n")
    with (root / "proto" / "acme" / "common" / "v1" / "money.proto").open("a") as handle:
        handle.write("\n// a trailing comment\n")
    (root / "shipping" / "build.rs").unlink()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "second")
    index = Index(root, tmp_path_factory.mktemp("git-cache"), workers=1)
    assert index.refresh().failures == ()
    yield index
    index.close()


def test_git_range_golden(git_workspace: Index) -> None:
    """The two changed files are followed, the deleted one is listed as not in the index."""
    with view_of(git_workspace) as view:
        text = ask(view, git_range="HEAD~1..HEAD", depth=1)
    assert "## Impact of `HEAD~1..HEAD` (3 changed files) within depth 1" in text
    assert "Not in the index (deleted, ignored or not indexed yet), so not followed: `shipping/build.rs`." in text
    assert_golden(NAME, "git_range", text)


def test_git_range_in_a_folder_sees_only_the_changes_under_it(git_workspace: Index) -> None:
    """`orders:` names the service's folder: only orders/orders/store.py changed under it."""
    with view_of(git_workspace) as view:
        text = ask(view, git_range="orders:HEAD~1..HEAD", depth=1)
        assert "(1 changed file)" in text and "- `orders/orders/store.py`: File in service `orders`" in text
        assert "money.proto`:" not in text
        same = ask(view, changes=["orders/orders/store.py"], depth=1)
    assert text.split("### Evidence", 1)[1] == same.split("### Evidence", 1)[1]


def test_git_range_whose_only_change_left_the_index_impacts_nothing(git_workspace: Index) -> None:
    """Under `shipping/` only build.rs changed, and it was deleted: listed, not followed."""
    with view_of(git_workspace) as view:
        text = ask(view, git_range="shipping:HEAD~1..HEAD")
    assert "- nothing in the index" in text and "`shipping/build.rs`" in text
    assert verdict(text) == (0, 0)


def test_git_range_three_dots_is_the_merge_base_form(git_workspace: Index) -> None:
    """`base...head` is passed to git as is (the merge-base form)."""
    with view_of(git_workspace) as view:
        assert "(3 changed files)" in ask(view, git_range="HEAD~1...HEAD", depth=1)


def test_an_unknown_revision_is_an_error_saying_what_git_said(git_workspace: Index) -> None:
    """A revision git cannot resolve: the error quotes git and says how to check the revisions."""
    with view_of(git_workspace) as view, pytest.raises(ToolError) as caught:
        ask(view, git_range="nope..HEAD")
    message = str(caught.value)
    assert message.startswith("git cannot list the changes of `nope..HEAD` in `.`:")
    assert "nope" in message.split(":", 1)[1] and "git log" in message


def test_a_repository_folder_that_is_not_in_the_workspace_is_an_error(git_workspace: Index) -> None:
    """A `repo:` prefix naming no folder, or leaving the workspace, is refused."""
    with view_of(git_workspace) as view:
        with pytest.raises(ToolError, match="not a folder of the workspace"):
            ask(view, git_range="nowhere:HEAD~1..HEAD")
        with pytest.raises(ToolError, match="leaves the workspace"):
            ask(view, git_range="..:HEAD~1..HEAD")


def test_a_workspace_outside_any_repository_is_an_error(many_importers: Index, monkeypatch) -> None:
    """No repository above the workspace (git stops at its parent): the error says so and what to do."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(many_importers.root.parent))
    with view_of(many_importers) as view, pytest.raises(ToolError) as caught:
        ask(view, git_range="main..HEAD")
    assert "is not in a git repository" in str(caught.value) and "`changes`" in str(caught.value)


# -- paging ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def many_importers(tmp_path_factory: pytest.TempPathFactory):
    """A workspace (no git) where 230 files in two services import one module."""
    root = tmp_path_factory.mktemp("many-impact")
    (root / "core").mkdir()
    (root / "core" / "lib.py").write_text("def thing():\n    return 1\n")
    for service, count in {"alpha": 180, "beta": 50}.items():
        folder = root / service / "mods"
        folder.mkdir(parents=True)
        for number in range(count):
            (folder / f"m_{number:03d}.py").write_text("from core.lib import thing\n")
    index = Index(root, tmp_path_factory.mktemp("many-impact-cache"), workers=2)
    index.refresh()
    yield index
    index.close()


def test_the_evidence_pages_and_the_verdict_is_on_every_page(many_importers: Index) -> None:
    """The table is on the first page only; every page has the verdict; the footer narrows to the
    busiest scope and gives the next cursor; following it shows each dependent once."""
    seen: list[str] = []
    cursor = None
    pages = []
    with view_of(many_importers) as view:
        while True:
            text = ask(view, changes=["core/lib.py"], depth=1, **({"cursor": cursor} if cursor else {}))
            pages.append(text)
            assert verdict(text) == (2, 0)
            assert len(text.encode()) < 12 * 1024
            seen += re.findall(r"- L1 `([^`:]+):1`", text)
            match = re.search(r'"cursor":"(\d+)"', text)
            if match is None:
                break
            cursor = match.group(1)
    assert len(pages) >= 2
    assert "| `alpha` | – | 180 |" in pages[0] and all("| service |" not in page for page in pages[1:])
    assert "Busiest scopes: `alpha/mods` (180), `beta/mods` (50)." in pages[0]
    assert (
        'Narrow to the busiest: `impact_matrix` `{"changes":["core/lib.py"],"depth":1,"scope":"alpha/mods"}`'
        in (pages[0])
    )
    assert sorted(seen) == sorted(
        [f"alpha/mods/m_{n:03d}.py" for n in range(180)] + [f"beta/mods/m_{n:03d}.py" for n in range(50)]
    )
    assert len(seen) == len(set(seen))


# -- determinism -----------------------------------------------------------------------------------


def test_the_same_question_gives_the_same_bytes(view: View) -> None:
    """Asking twice in one process gives the same bytes for every golden case."""
    for arguments in GOLDEN_CASES.values():
        assert ask(view, **arguments) == ask(view, **arguments)
