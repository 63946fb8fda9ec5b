"""``endpoint_trace``: an HTTP route, a message topic or a service, with every link that reaches it."""

from __future__ import annotations

from typing import Final

import attrs

from ..index.query._links import LinkTargetError, trace_endpoint
from ..render._endpoint import EndpointResult, compose_endpoint, items_of
from ..render._paging import Rendered, call_text, code
from ._args import describe
from ._registry import ToolError
from ._view import CURSOR_CHARS_MAX, View, arguments_of, cursor_offset

__all__ = ["DESCRIPTION", "NAME", "TITLE", "Args", "Result", "answer", "run"]

NAME: Final = "endpoint_trace"
TITLE: Final = "Trace an HTTP route, a message topic or a service's links"
DESCRIPTION: Final = (
    "An HTTP route's servers and callers with address evidence, a topic's producers and consumers, or a "
    "service's every link (HTTP, messaging, gRPC), with the gaps."
)
#: The structured result (``outputSchema``): the same page as the Markdown.
Result = EndpointResult


@attrs.frozen(kw_only=True)
class Args:
    target: str = attrs.field(
        metadata=describe(
            "`GET /orders/{id}`, a topic or a service",
            min_length=1,
            max_length=500,
        )
    )
    cursor: str | None = attrs.field(
        default=None,
        metadata=describe("Next page", max_length=CURSOR_CHARS_MAX),
    )


def answer(args: Args, view: View) -> str:
    """The trace of ``args.target`` in the snapshot ``view`` reads, one page of its sites."""
    return run(args, view).text


def run(args: Args, view: View) -> Rendered:
    """:func:`answer` as Markdown and as a :class:`Result`; :class:`ToolError` for failures."""
    try:
        found = trace_endpoint(view.db, args.target)
    except LinkTargetError as exc:
        text = exc.message
        if exc.suggestions:
            names = ", ".join(code(name) for name in exc.suggestions)
            text += f" Did you mean {names}? Try {call_text(NAME, {'target': exc.suggestions[0]})}."
        else:
            text += " Give a route (`GET /path`), a topic or a service name; `smart_search` finds names in the code."
        raise ToolError(text) from None
    offset = cursor_offset(args.cursor, len(items_of(found)), tool=NAME, args=args, noun="sites")
    return compose_endpoint(found, arguments_of(args), offset=offset)
