"""``smart_search`` finds the JavaScript and TypeScript functions that are not declarations: methods of
named object literals, class fields holding functions, CommonJS exports."""

from __future__ import annotations

from pathlib import Path

from mesh.index import Index
from mesh.tools import parse_args
from mesh.tools._smart_search import Args, answer

from .conftest import view_of

FILES = {
    "web/package.json": '{"name": "web"}\n',
    "web/src/gateway.ts": (
        "export const gateway = {\n"
        "  async getInvoice(id: string) {\n"
        "    return id;\n"
        "  },\n"
        "  listInvoices: async () => [],\n"
        "};\n"
    ),
    "web/src/handlers.ts": (
        "export class Handlers {\n"
        "  handleInvoice = async (req: unknown) => {};\n"
        "  static make = () => new Handlers();\n"
        "}\n"
    ),
    "web/src/legacy.js": (
        "module.exports.getInvoice = function (id) {\n  return id;\n};\nexports.voidInvoice = () => {};\n"
    ),
}


def test_symbol_search_finds_object_methods_function_fields_and_exports(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for relative, text in FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    try:
        with view_of(index) as view:

            def ask(**arguments: object) -> str:
                args, _ = parse_args(Args, arguments)
                return answer(args, view)

            found = ask(query="Invoice", mode="symbol")
            assert found.startswith("## `Invoice`: 5 definitions in 3 files\n")
            for row in (
                "- 2: method `gateway.getInvoice`",
                "- 5: method `gateway.listInvoices`",
                "- 2: method `Handlers.handleInvoice`",
                "- 1: function `getInvoice`",
                "- 4: function `voidInvoice`",
            ):
                assert row in found
            assert "- 3: method `Handlers.make`" in ask(query="make", mode="symbol")
            # a line inside an object's method names the method as its enclosing definition
            assert "- 3: `return id;` — in `gateway.getInvoice`" in ask(query="return id", scope="web/src/gateway.ts")
    finally:
        index.close()
