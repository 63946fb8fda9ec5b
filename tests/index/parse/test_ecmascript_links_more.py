"""More JavaScript and TypeScript calls: a path written after a base address that ends with ``/``."""

from __future__ import annotations

import textwrap

from mesh.index._facts import HttpCall
from mesh.index.parse import extract


def calls(path: str, text: str) -> list[HttpCall]:
    return list(extract(path, textwrap.dedent(text).lstrip("\n").encode()).http_calls)


def fetch(method: str, path: str, line: int, symbol: str, computed: bool = False) -> HttpCall:
    return HttpCall(method, path, line, symbol, "", "", "fetch", computed)


def test_a_path_after_a_base_address_keeps_its_first_segment() -> None:
    # retail-store-sample-app's chat page: `${this.contextPath}chat/submit` is /chat/submit, not /submit
    assert calls(
        "static/js/chat.js",
        """
        const ChatUI = {
          async fetchBotResponse(message) {
            return await fetch(`${this.contextPath}chat/submit`, { method: "POST" });
          },
        };
        export function more(base, api, id) {
          fetch(base + "api/orders");
          fetch(`${api}orders`);
          fetch(`${base}orders/${id}/items?x=1`);
        }
        """,
    ) == [
        fetch("POST", "/chat/submit", 3, "ChatUI.fetchBotResponse"),
        fetch("GET", "/api/orders", 7, "more"),
        fetch("GET", "", 8, "more", computed=True),  # no "/" after the word: a host's rest or a path's, unknown
        fetch("GET", "/orders/{id}/items", 9, "more"),
    ]
    # a port, a domain, a dash or a slash after the expression: the host's rest, read as before
    assert calls(
        "src/hosts.js",
        """
        export function hosts(host, base, api, path) {
          fetch(`${host}:8080/orders`);
          fetch(`${host}.svc.cluster.local/orders`);
          fetch(`${base}/orders`);
          fetch(`${base}?q=1`);
          fetch(`${api}-orders/x`);
          fetch(`${api}${path}`);
        }
        """,
    ) == [
        fetch("GET", "/orders", 2, "hosts"),
        fetch("GET", "/orders", 3, "hosts"),
        fetch("GET", "/orders", 4, "hosts"),
        fetch("GET", "/", 5, "hosts"),
        fetch("GET", "/x", 6, "hosts"),
        fetch("GET", "", 7, "hosts", computed=True),
    ]
