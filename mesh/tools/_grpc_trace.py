"""``grpc_trace``: one gRPC method or service, from its ``.proto`` copies to the code that serves and calls it."""

from __future__ import annotations

from typing import Final

import attrs

from ..index.query._grpc_query import FORMS, GrpcTargetError, trace
from ..render._grpc import GrpcResult, compose_grpc, listed_sites
from ..render._paging import Rendered, busiest_scopes, call_text, code
from ._args import describe
from ._registry import ToolError
from ._view import CURSOR_CHARS_MAX, View, arguments_of, cursor_offset, workspace_path

__all__ = ["DESCRIPTION", "NAME", "TITLE", "Args", "Result", "answer", "run"]

NAME: Final = "grpc_trace"
TITLE: Final = "Trace a gRPC method or service"
DESCRIPTION: Final = (
    "A gRPC method or service from its .proto copies to every handler, server and call site, with a diagram "
    "and the gaps (never implemented, never called)."
)
#: The structured result (``outputSchema``): the same page as the Markdown.
Result = GrpcResult


@attrs.frozen(kw_only=True)
class Args:
    target: str = attrs.field(
        metadata=describe(
            "`pkg.Service/Method`, `Service/Method` or `Service`",
            min_length=1,
            max_length=300,
        )
    )
    scope: str | None = attrs.field(
        default=None,
        metadata=describe(
            "Path prefix of the sites listed",
            max_length=1000,
        ),
    )
    cursor: str | None = attrs.field(
        default=None,
        metadata=describe("Next page", max_length=CURSOR_CHARS_MAX),
    )


def answer(args: Args, view: View) -> str:
    """The trace of ``args.target`` in the snapshot ``view`` reads, one page of its code sites."""
    return run(args, view).text


def run(args: Args, view: View) -> Rendered:
    """:func:`answer` as Markdown and as a :class:`Result`; :class:`ToolError` for failures."""
    try:
        found = trace(view.db, args.target)
    except GrpcTargetError as exc:
        raise ToolError(_failure(exc)) from None
    scope = workspace_path(view.root, args.scope, what="scope") if args.scope else ""
    listed = listed_sites(found, scope)
    if scope and not listed:
        raise ToolError(_nothing_under(found.key, scope, [item.site.path for item in listed_sites(found)], args))
    offset = cursor_offset(args.cursor, len(listed), tool=NAME, args=args, noun="code sites")
    return compose_grpc(found, arguments_of(args), scope=scope, offset=offset)


def _failure(exc: GrpcTargetError) -> str:
    text = exc.message
    if exc.suggestions:
        names = ", ".join(code(name) for name in exc.suggestions)
        text += f" Did you mean {names}? Try {call_text(NAME, {'target': exc.suggestions[0]})}."
    elif FORMS not in text:
        text += f" Give a method or service as {FORMS}; `smart_search` finds names in the `.proto` files."
    return text


def _nothing_under(key: str, scope: str, paths: list[str], args: Args) -> str:
    text = f"No code site of {code(key)} is under {code(scope)}."
    scopes = busiest_scopes(paths)
    if scopes:
        listed = ", ".join(f"{code(name)} ({count})" for name, count in scopes)
        arguments = {name: value for name, value in arguments_of(args).items() if name not in ("scope", "cursor")}
        text += f" Its sites are under {listed}. Try {call_text(NAME, {**arguments, 'scope': scopes[0][0]})}"
        text += f" or the whole trace: {call_text(NAME, arguments)}."
    else:
        text += " It has no code site anywhere: call without `scope` for its proto definition and gaps."
    return text
