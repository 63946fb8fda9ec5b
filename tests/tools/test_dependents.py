"""``dependents`` over the fixture workspace (goldens), its failures, paging and determinism.

The goldens were checked by eye against FIXTURE.md ("Imports between modules", the RPC and the
servers-and-clients tables); a test here states the facts each one rests on, so that a golden
rewritten by mistake fails a plain assertion too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mesh.index import Index
from mesh.index.query._graph import type_names
from mesh.tools import ToolError, parse_args, schema_of
from mesh.tools._dependents import NAME, Args, answer
from mesh.tools._view import View

from .conftest import FIXTURE, assert_golden, view_of

ROOT = Path(__file__).resolve().parents[2]


def ask(view: View, **arguments) -> str:
    args, _ = parse_args(Args, arguments)
    return answer(args, view)


# -- goldens: one per kind of target --------------------------------------------------------------

GOLDEN_CASES = {
    "file": {"target": "orders/orders/store.py"},
    "folder": {"target": "inventory/internal"},
    "module_go": {"target": "github.com/acme/inventory/internal/store"},
    "module_third_party": {"target": "grpc", "depth": 1},
    "symbol": {"target": "OrderStore"},
    "symbol_in_container": {"target": "Store.Reserve", "depth": 1},
    "proto_message": {"target": "acme.common.v1.Money", "depth": 1},
    "proto_message_short": {"target": "Money", "depth": 1},
    "proto_service": {"target": "acme.orders.v1.Orders", "depth": 1},
    "rpc": {"target": "acme.orders.v1.Orders/GetOrder", "depth": 1},
    "proto_package": {"target": "acme.orders.v1", "depth": 1},
    "service": {"target": "payments"},
    "depth_1": {"target": "payments/src/main/java/com/acme/payments/ledger/Ledger.java", "depth": 1},
    "depth_3": {"target": "payments/src/main/java/com/acme/payments/ledger/Ledger.java", "depth": 3},
    "scope_service": {"target": "acme.orders.v1", "depth": 3, "scope": "gateway"},
    "scope_path": {"target": "orders/orders/store.py", "scope": "orders/tests"},
    "scope_empty": {"target": "orders/orders/store.py", "depth": 1, "scope": "shipping"},
    "nothing": {"target": "shipping/build.rs"},
}


@pytest.mark.parametrize("case", sorted(GOLDEN_CASES))
def test_golden_answers(view: View, case: str) -> None:
    """Each kind of target on the fixture gives its reviewed answer, byte for byte."""
    assert_golden(NAME, case, ask(view, **GOLDEN_CASES[case]))


def test_a_file_has_its_importers_at_level_1_and_the_grpc_callers_of_its_importers_at_level_2(view: View) -> None:
    """FIXTURE.md: server.py, service.py and the test import `.store`/`orders.store`; service.py serves
    Orders, so every Orders caller depends on it (level 2)."""
    text = ask(view, target="orders/orders/store.py")
    level_1 = re.findall(r"- L1 `([^`:]+):(\d+)`", text)
    assert level_1 == [("orders/orders/server.py", "13"), ("orders/orders/service.py", "12"),
                       ("orders/tests/test_service.py", "12")]  # fmt: skip
    level_2 = sorted(path for path, _ in re.findall(r"- L2 `([^`:]+):(\d+)`", text))
    assert level_2 == sorted(
        [
            "gateway/src/orders.ts",
            "inventory/internal/orders/client.go",
            "notifications/OrderWatcher.cs",
            "payments/src/main/java/com/acme/payments/orders/GrpcOrderLookup.java",
            "shipping/src/orders.rs",
        ]
    )


def test_an_rpc_has_its_calls_and_handlers(view: View) -> None:
    """The RPC table of FIXTURE.md: GetOrder is implemented at service.py:22 and called at four sites."""
    text = ask(view, target="acme.orders.v1.Orders/GetOrder", depth=1)
    sites = sorted(re.findall(r"- L1 `([^`]+)`", text))
    assert sites == sorted(
        [
            "orders/orders/service.py:22",
            "gateway/src/orders.ts:45",
            "inventory/internal/orders/client.go:33",
            "payments/src/main/java/com/acme/payments/orders/GrpcOrderLookup.java:21",
            "shipping/src/orders.rs:25",
        ]
    )


def test_a_proto_message_is_used_by_fields_rpcs_carrying_it_and_code_naming_it(view: View) -> None:
    """Money: a field of Order (`total`), Order.Item (three copies of orders.proto), ChargeRequest
    and RefundRequest (`amount`), so GetOrder, PlaceOrder and CancelOrder (returning Order) and
    Charge and Refund carry it: their declarations, calls and handlers use it; Ledger.java and
    PaymentsServiceTest.java import it by name and name it."""
    text = ask(view, target="acme.common.v1.Money", depth=1)
    assert re.findall(r"- L1 `([^`]+)`", text) == [
        "gateway/protos/orders.proto:14",
        "gateway/src/orders.ts:45",
        "gateway/src/payments.ts:25",
        "inventory/internal/orders/client.go:33",
        "orders/orders/service.py:22",
        "orders/protos/orders.proto:14",
        "payments/src/main/java/com/acme/payments/PaymentsService.java:24",
        "payments/src/main/java/com/acme/payments/ledger/Ledger.java:3",
        "payments/src/main/java/com/acme/payments/orders/GrpcOrderLookup.java:21",
        "payments/src/test/java/com/acme/payments/PaymentsServiceTest.java:5",
        "shipping/src/orders.rs:25",
        "proto/acme/orders/v1/orders.proto:14",
        "proto/acme/payments/v1/payments.proto:15",
    ]
    assert "rpc `Orders/GetOrder` returns `acme.common.v1.Money` in `Order.total` (also lines 15, 16, 33, 40)" in text
    charge = "calls `acme.payments.v1.Payments/Charge`, which carries `acme.common.v1.Money` in `ChargeRequest.amount`"
    assert charge in text
    assert "Carried by 5 RPCs" in text and "`acme.payments.v1.Payments/Refund` (request `RefundRequest.amount`)" in text
    # 13 files, two of them in the area proto/: five services, never six (INV-WS-3)
    assert "13 dependents (11 in 5 services, 2 in no service: areas, root files)" in text


def test_a_short_proto_name_that_is_also_a_code_symbol_says_so(view: View) -> None:
    """`Money` is the proto message; the TypeScript interface of the same name is pointed at."""
    text = ask(view, target="Money", depth=1)
    assert text.startswith("## Dependents of `acme.common.v1.Money`")
    assert "`gateway/src/orders.ts:17`" in text


def test_a_service_target_lists_only_dependents_outside_it(view: View) -> None:
    """The `payments` service: nothing under payments/ is listed; the Payments callers are."""
    text = ask(view, target="payments")
    listed = re.findall(r"- L\d `([^`:]+):\d+`", text)
    assert listed and not any(path.startswith("payments/") for path in listed)
    assert "gateway/src/payments.ts" in listed and "orders/orders/service.py" in listed


def test_nothing_depending_is_an_answer_not_an_error(view: View) -> None:
    """A file nothing imports: a normal answer that says so."""
    text = ask(view, target="shipping/build.rs")
    assert "Nothing depends on `shipping/build.rs` within depth 2." in text


def test_proto_type_names_follow_protobuf_scoping() -> None:
    """A type written inside a message may name a nested type, a sibling, or a full name."""
    assert type_names("Item", "acme.orders.v1", "Order") == [
        "acme.orders.v1.Order.Item",
        "acme.orders.v1.Item",
        "acme.orders.Item",
        "acme.Item",
        "Item",
    ]
    assert type_names(".acme.common.v1.Money", "acme.orders.v1", "Order") == ["acme.common.v1.Money"]
    assert type_names("map<string,Money>", "p", "") == ["p.Money", "Money"]
    assert type_names("stream OrderEvent", "p", "") == ["p.OrderEvent", "OrderEvent"]


# -- failures an agent can act on ----------------------------------------------------------------


def test_an_unknown_target_is_an_error_with_near_names(view: View) -> None:
    """A typo: the error says nothing matched and suggests the near name and the services."""
    with pytest.raises(ToolError) as caught:
        ask(view, target="OrderStor")
    message = str(caught.value)
    assert "Nothing in the index is named `OrderStor`" in message
    assert "`OrderStore`" in message and "`orders`" in message


def test_an_unknown_path_suggests_files_with_the_same_name(view: View) -> None:
    """A path in the wrong folder: the files with that name are suggested."""
    with pytest.raises(ToolError, match=r"`orders/orders/store\.py`"):
        ask(view, target="orders/store.py")


def test_an_ambiguous_symbol_lists_the_candidates_and_how_to_pick(view: View) -> None:
    """`Reserve` is a method of Server and of Store (FIXTURE.md, "Not evidence")."""
    with pytest.raises(ToolError) as caught:
        ask(view, target="Reserve")
    assert str(caught.value) == (
        "The target `Reserve` is ambiguous: it names 2 definitions in different files:\n"
        "- method `Server.Reserve` at `inventory/internal/server/server.go:31`\n"
        "- method `Store.Reserve` at `inventory/internal/store/store.go:59`\n"
        "Pick one: give the file path as the target, or `Container.name` (e.g. `Server.Reserve`)."
    )


@pytest.mark.parametrize("target", ["../outside.py", "orders/../../outside", "/etc/passwd"])
def test_a_path_leaving_the_workspace_is_refused(view: View, target: str) -> None:
    """`..` above the root and absolute paths outside it are refused before any lookup."""
    with pytest.raises(ToolError, match="workspace"):
        ask(view, target=target)


def test_a_symlink_escaping_the_workspace_is_refused(tmp_path: Path) -> None:
    """A link inside the workspace pointing outside it cannot be used as a target or a scope."""
    root = tmp_path / "ws"
    (root / "app").mkdir(parents=True)
    (root / "app" / "main.py").write_text("import os\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("X = 1\n")
    (root / "escape").symlink_to(outside, target_is_directory=True)
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    try:
        with view_of(index) as view:
            with pytest.raises(ToolError, match="symlink"):
                ask(view, target="escape/secret.py")
            with pytest.raises(ToolError, match="symlink"):
                ask(view, target="app/main.py", scope="escape")
    finally:
        index.close()


_PROTO = """syntax = "proto3";
package {package};
message Money {{ int64 units = 1; }}
service Pay {{ rpc Get(Money) returns (Money); }}
"""


def test_a_short_proto_name_or_rpc_in_two_packages_is_ambiguous(tmp_path: Path) -> None:
    """`Money` and `Pay/Get` exist in packages a.v1 and b.v1: the error lists both full names and
    says to give one; the full names are answered."""
    root = tmp_path / "ws"
    for package in ("a", "b"):
        folder = root / package / "v1"
        folder.mkdir(parents=True)
        (folder / "money.proto").write_text(_PROTO.format(package=f"{package}.v1"))
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    try:
        with view_of(index) as view:
            with pytest.raises(ToolError) as caught:
                ask(view, target="Money")
            assert str(caught.value) == (
                "The target `Money` is ambiguous: it names 2 proto entities:\n"
                "- proto message `a.v1.Money` at `a/v1/money.proto:3`\n"
                "- proto message `b.v1.Money` at `b/v1/money.proto:3`\n"
                "Pick one: give the full name with its package (`package.Name`)."
            )
            with pytest.raises(ToolError, match=r"2 RPCs:\n- `a\.v1\.Pay/Get` at `a/v1/money\.proto:4`"):
                ask(view, target="Pay/Get")
            assert "Nothing depends on `a.v1.Money`" in ask(view, target="a.v1.Money")
            assert "Nothing depends on `b.v1.Pay/Get`" in ask(view, target="b.v1.Pay/Get")
    finally:
        index.close()


def test_the_whole_workspace_is_not_a_target(view: View) -> None:
    """The workspace root is no target: the error says what to name instead."""
    with pytest.raises(ToolError, match="whole workspace"):
        ask(view, target=".")


def test_an_unknown_scope_is_an_error_naming_the_services(view: View) -> None:
    """A scope must be a service or an indexed path prefix."""
    with pytest.raises(ToolError) as caught:
        ask(view, target="orders/orders/store.py", scope="nowhere")
    assert "neither a service nor a file or folder" in str(caught.value) and "`payments`" in str(caught.value)


@pytest.mark.parametrize("cursor", ["x", "-1", "999", "1.5", "²"])
def test_a_cursor_this_tool_did_not_print_is_an_error(view: View, cursor: str) -> None:
    """A cursor that is not a count this answer could have printed is refused, saying how to start over."""
    with pytest.raises(ToolError, match="start from the first page: `dependents`"):
        ask(view, target="orders/orders/store.py", cursor=cursor)


def test_depth_is_bounded_by_the_schema() -> None:
    """`depth` is 1 to 5; the schema says so and parsing enforces it."""
    schema = schema_of(Args)
    assert schema["properties"]["depth"] == {
        "type": "integer",
        "description": schema["properties"]["depth"]["description"],
        "minimum": 1,
        "maximum": 5,
    }
    assert schema["required"] == ["target"]
    assert set(schema["properties"]) == {"target", "depth", "scope", "cursor"}
    with pytest.raises(ValueError, match="depth"):
        parse_args(Args, {"target": "x", "depth": 6})


# -- paging ----------------------------------------------------------------------------------------

IMPORTERS = {"alpha": 260, "beta": 60, "gamma": 30}


@pytest.fixture(scope="module")
def many_importers(tmp_path_factory: pytest.TempPathFactory):
    """A workspace where 350 files in three services import one module."""
    root = tmp_path_factory.mktemp("many")
    (root / "core").mkdir()
    (root / "core" / "lib.py").write_text("def thing():\n    return 1\n")
    for service, count in IMPORTERS.items():
        folder = root / service / "mods"
        folder.mkdir(parents=True)
        for number in range(count):
            (folder / f"m_{number:03d}.py").write_text("from core.lib import thing\n\nVALUE = thing()\n")
    index = Index(root, tmp_path_factory.mktemp("many-cache"), workers=2)
    index.refresh()
    yield index
    index.close()


def test_a_long_answer_pages_names_the_busiest_scope_and_following_cursors_shows_each_once(many_importers) -> None:
    """Pages stay near 8 KB; the footer counts, names the busiest scopes, gives the narrowing call
    and the next cursor; following the cursors lists every importer exactly once."""
    seen: list[str] = []
    cursor = None
    pages = 0
    with view_of(many_importers) as view:
        while True:
            arguments = {"target": "core/lib.py", "depth": 1} | ({"cursor": cursor} if cursor else {})
            text = ask(view, **arguments)
            pages += 1
            assert len(text.encode()) < 10 * 1024
            assert text.count("```") % 2 == 0
            seen += re.findall(r"- L1 `([^`:]+):1`", text)
            if pages == 1:
                assert "Shown " in text and " of 350 dependents." in text
                assert "Busiest scopes: `alpha/mods` (260), `beta/mods` (60), `gamma/mods` (30)." in text
                assert (
                    'Narrow to the busiest: `dependents` `{"depth":1,"scope":"alpha/mods","target":"core/lib.py"}`'
                    in text
                )
            match = re.search(r"Next page: `dependents` `(\{.*\})`", text)
            if match is None:
                break
            cursor = re.search(r'"cursor":"(\d+)"', match.group(1)).group(1)
    assert pages >= 3
    expected = sorted(f"{service}/mods/m_{n:03d}.py" for service, count in IMPORTERS.items() for n in range(count))
    assert sorted(seen) == expected and len(seen) == len(set(seen))


def test_the_narrowing_call_shows_only_the_busiest_scope(many_importers) -> None:
    """The footer's narrowing call answers only the busiest scope and says how many are outside it."""
    with view_of(many_importers) as view:
        text = ask(view, target="core/lib.py", depth=1, scope="alpha/mods")
    listed = re.findall(r"- L1 `([^`:]+):1`", text)
    assert listed and all(path.startswith("alpha/mods/") for path in listed)
    assert "in scope `alpha/mods` (90 more outside it)" in text


# -- determinism -----------------------------------------------------------------------------------


def test_the_same_question_gives_the_same_bytes(view: View) -> None:
    """Asking twice in one process gives the same bytes for every golden case."""
    for arguments in GOLDEN_CASES.values():
        assert ask(view, **arguments) == ask(view, **arguments)


_SCRIPT = """
import json, sys
from pathlib import Path
from mesh.index import Index
from mesh.tools._view import View
from mesh.tools import parse_args
import mesh.tools._dependents as dependents
import mesh.tools._impact as impact
index = Index(Path(sys.argv[1]), Path(sys.argv[2]), workers=1)
index.refresh()
out = []
with index.store.snapshot() as db:
    view = View(db, index.root)
    for target in ("orders/orders/store.py", "acme.orders.v1", "payments", "Money"):
        out.append(dependents.answer(parse_args(dependents.Args, {"target": target, "depth": 3})[0], view))
    changes = ["orders/orders/store.py", "acme.common.v1.Money", "acme.inventory.v1.Inventory/Release"]
    out.append(impact.answer(parse_args(impact.Args, {"changes": changes, "depth": 3})[0], view))
index.close()
sys.stdout.write(json.dumps(out))
"""


def test_answers_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    """Two interpreters with different PYTHONHASHSEEDs give the same bytes (no set order leaks)."""
    outputs = []
    for seed in ("1", "2"):
        environment = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", _SCRIPT, str(FIXTURE), str(tmp_path / f"cache-{seed}")],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            env=environment,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]


# -- bounded walks (INV-TOOL-11) -------------------------------------------------------------------

MIDDLE = {"alpha": 12, "beta": 8}


@pytest.fixture(scope="module")
def two_levels(tmp_path_factory: pytest.TempPathFactory):
    """``core/lib.py`` imported by 20 files in two services (level 1), each imported by three
    others (level 2: 60 files, some in a service that sorts before both)."""
    root = tmp_path_factory.mktemp("levels")
    (root / "core").mkdir()
    (root / "core" / "lib.py").write_text("def thing():\n    return 1\n")
    for service, count in MIDDLE.items():
        (root / service / "mods").mkdir(parents=True)
        for number in range(count):
            (root / service / "mods" / f"m_{number:03d}.py").write_text("from core.lib import thing\n")
            for user, folder in enumerate(("aaa/uses", f"{service}/uses", "zzz/uses")):
                (root / folder).mkdir(parents=True, exist_ok=True)
                (root / folder / f"{service}_{number:03d}_{user}.py").write_text(
                    f"from {service}.mods.m_{number:03d} import thing\n"
                )
    index = Index(root, tmp_path_factory.mktemp("levels-cache"), workers=2)
    index.refresh()
    yield index
    index.close()


def _pages(view: View, **arguments) -> list[str]:
    texts, cursor = [], None
    while True:
        texts.append(ask(view, **arguments | ({"cursor": cursor} if cursor else {})))
        match = re.search(r'Next page: `dependents` `\{.*"cursor":"(\d+)".*\}`', texts[-1])
        if match is None:
            return texts
        cursor = match.group(1)


def test_a_walk_past_its_budget_stops_at_a_level_and_marks_its_total_as_a_lower_bound(two_levels, monkeypatch) -> None:
    """INV-TOOL-11: past the budget the walk stops at the end of a level; the answer counts the
    walked levels as "at least", says which levels were not walked and gives the cursor that walks them."""
    monkeypatch.setattr("mesh.tools._dependents.WALK_DEPENDENTS_MAX", 10)
    monkeypatch.setattr("mesh.render._dependents.WALK_DEPENDENTS_MAX", 10)
    from mesh.tools._dependents import run

    with view_of(two_levels) as view:
        rendered = run(parse_args(Args, {"target": "core/lib.py"})[0], view)
    text, result = rendered.text, rendered.result
    assert "At least 20 dependents in 2 services within depth 2: 20 at level 1; level 2 not walked yet" in text
    assert "from cursor `20`, which walks them" in text
    assert re.findall(r"- L(\d) ", text) == ["1"] * 20
    assert "Shown 20 of at least 20 dependents." in text
    assert 'Next page: `dependents` `{"cursor":"20","target":"core/lib.py"}`' in text
    assert (result.cut, result.total, result.page.capped, result.page.next_cursor) == (1, 20, True, "20")
    assert [(level.level, level.count) for level in result.levels] == [(1, 20)]


def test_following_the_cursors_past_a_cut_shows_every_dependent_once(two_levels, monkeypatch) -> None:
    """INV-TOOL-11: the pages of a cut walk and then of the whole walk (the walked levels first)
    show each dependent of the whole walk exactly once, and the last page's total is exact."""
    with view_of(two_levels) as view:
        whole = _pages(view, target="core/lib.py")
        monkeypatch.setattr("mesh.tools._dependents.WALK_DEPENDENTS_MAX", 10)
        monkeypatch.setattr("mesh.render._dependents.WALK_DEPENDENTS_MAX", 10)
        cut = _pages(view, target="core/lib.py")
        assert cut == _pages(view, target="core/lib.py")  # the same calls give the same bytes
    listed = [found for text in cut for found in re.findall(r"- L(\d) `([^`:]+):1`", text)]
    expected = [found for text in whole for found in re.findall(r"- L(\d) `([^`:]+):1`", text)]
    assert len(expected) == 80 and len(set(expected)) == 80
    assert sorted(listed) == sorted(expected) and len(listed) == len(set(listed))
    assert [level for level, _ in listed] == ["1"] * 20 + ["2"] * 60  # the walked level first
    assert [level for level, _ in expected] != [level for level, _ in listed]  # a whole walk: by service first
    assert "80 dependents" in cut[-1] and "Level 1 comes first" in cut[-1] and "at least" not in cut[-1]


@pytest.fixture(scope="module")
def one_level(tmp_path_factory: pytest.TempPathFactory):
    """``core/lib.py`` imported by 20 files that nothing imports: a walk cut after level 1 finds
    nothing deeper."""
    root = tmp_path_factory.mktemp("one-level")
    (root / "core").mkdir()
    (root / "core" / "lib.py").write_text("def thing():\n    return 1\n")
    (root / "alpha" / "mods").mkdir(parents=True)
    for number in range(20):
        (root / "alpha" / "mods" / f"m_{number:03d}.py").write_text("from core.lib import thing\n")
    index = Index(root, tmp_path_factory.mktemp("one-level-cache"), workers=1)
    index.refresh()
    yield index
    index.close()


def test_the_cursor_past_a_cut_with_nothing_deeper_ends_the_pages(one_level, monkeypatch) -> None:
    """INV-TOOL-11: the cursor a cut walk's page gives answers even when no level past the cut holds a
    dependent: the pages before showed them all (not "past the last"), and it offers no next page;
    the same for ``impact_matrix``."""
    from mesh.tools import _impact
    from mesh.tools._dependents import run

    monkeypatch.setattr("mesh.tools._dependents.WALK_DEPENDENTS_MAX", 10)
    monkeypatch.setattr("mesh.render._dependents.WALK_DEPENDENTS_MAX", 10)
    monkeypatch.setattr("mesh.tools._impact.WALK_DEPENDENTS_MAX", 10)
    monkeypatch.setattr("mesh.render._impact.WALK_DEPENDENTS_MAX", 10)
    with view_of(one_level) as view:
        first = run(parse_args(Args, {"target": "core/lib.py"})[0], view)
        assert first.result.cut == 1 and first.result.page.next_cursor == "20"
        last = run(parse_args(Args, {"target": "core/lib.py", "cursor": "20"})[0], view)
        assert "Nothing depends on them past level 1: the pages before showed every dependent." in last.text
        assert "Shown no more dependents: all 20 were on the pages before." in last.text
        assert last.result.page.next_cursor is None and last.result.total == 20 and not last.result.page.capped
        assert not re.findall(r"- L\d ", last.text)
        impact = _impact.run(parse_args(_impact.Args, {"changes": ["core/lib.py"], "cursor": "20"})[0], view)
        assert impact.result.page.next_cursor is None and not impact.result.dependents
        with pytest.raises(ToolError, match="past the last of 20 dependents"):
            run(parse_args(Args, {"target": "core/lib.py", "cursor": "21"})[0], view)


def test_impact_matrix_cut_says_at_least_and_the_page_past_it_shows_the_whole_table(two_levels, monkeypatch) -> None:
    """INV-TOOL-11 for ``impact_matrix``: a cut walk's table and verdict count the walked levels and
    say "at least"; the cursor past them walks every level and shows the whole table again; every
    dependent is shown once across the pages."""
    from mesh.tools import _impact

    def pages() -> list:
        rendered, cursor = [], None
        while True:
            arguments = {"changes": ["core/lib.py"]} | ({"cursor": cursor} if cursor else {})
            rendered.append(_impact.run(parse_args(_impact.Args, arguments)[0], view))
            cursor = rendered[-1].result.page.next_cursor
            if cursor is None:
                return rendered

    with view_of(two_levels) as view:
        whole = pages()
        monkeypatch.setattr("mesh.tools._impact.WALK_DEPENDENTS_MAX", 10)
        monkeypatch.setattr("mesh.render._impact.WALK_DEPENDENTS_MAX", 10)
        cut = pages()
    first = cut[0]
    assert first.result.cut == 1 and first.result.verdict.at_least and first.result.page.capped
    assert "(at least: level 2 not walked yet)" in first.text
    assert "the page from cursor `20` walks every level and shows the whole table" in first.text
    assert all(row.transitive == 0 for row in first.result.rows)
    past = next(page for page in cut if page.result.page.first == 20)
    assert past.result.rows == whole[0].result.rows and past.result.verdict == whole[0].result.verdict
    assert "Evidence (continued past level 1)" in past.text
    listed = [(d.level, d.path) for page in cut for d in page.result.dependents]
    expected = [(d.level, d.path) for page in whole for d in page.result.dependents]
    assert len(listed) == len(set(listed)) == 80 and sorted(listed) == sorted(expected)


def test_link_edges_are_found_as_when_every_route_and_call_is_loaded(view: View, monkeypatch) -> None:
    """The first hop reads every route and call only when a route or a produced topic may be the
    target's (``_may_link``): for every file and folder of the fixture, the link edges found are
    those found by loading them all, and the fixture has targets of both kinds."""
    from mesh.index.query import _graph

    paths = [path for (path,) in view.db.execute("SELECT path FROM files ORDER BY path")]
    folders = sorted({path.rsplit("/", 1)[0] for path in paths if "/" in path})
    targets = [_graph.resolve_target(view.db, path, path) for path in paths + folders]
    decided: list[bool] = []
    may_link = _graph._may_link
    with monkeypatch.context() as patch:
        patch.setattr(_graph, "_may_link", lambda *args: decided.append(may_link(*args)) or decided[-1])
        quick = [_graph._link_hits(view.db, [target]) for target in targets]
    with monkeypatch.context() as patch:
        patch.setattr(_graph, "_may_link", lambda *args: True)
        loaded = [_graph._link_hits(view.db, [target]) for target in targets]
    assert quick == loaded
    assert sum(map(bool, loaded)) >= 3 and decided.count(False) >= len(targets) // 2
