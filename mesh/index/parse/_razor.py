"""Razor routes: Blazor components (``.razor``) and Razor Pages (``.cshtml``) of one file.

Razor files are markup with C# islands, no language of the index (the C# grammar would choke on
them): only their routing directives are read, line by line, after ``@* ... *@`` comments are blanked
(lines kept). Pure: the workspace path and the bytes in, routes out, never an exception.

* **Blazor components**: each ``@page "/item/{itemId:int}"`` directive (and ``@attribute
  [Route("...")]`` with a literal) is a GET route of framework ``blazor``, its handler the component
  (the file's name, as Razor names the class).
* **Razor Pages**: the first ``@page`` directive of a ``.cshtml`` file makes it a page. Its route is
  the file's path under the ``Pages`` folder (``Areas/<area>/Pages`` adds ``/<area>``) without the
  extension, ``Index`` standing for its folder; a template after ``@page`` is appended to that path
  (``Pages/Orders/Details.cshtml`` + ``@page "{id:int}"`` -> ``/Orders/Details/{id}``), or replaces it
  when it starts with ``/`` or ``~/``. A page serves every verb (its ``OnGet``/``OnPost`` handlers
  live in its code-behind); framework ``razorpages``, handler the ``@model`` (the page model) when
  written. A page outside any ``Pages`` folder has a root this file cannot see: only an absolute
  template gives it a route.
"""

from __future__ import annotations

import re
from typing import Final

from .._facts import HttpRoute
from ._csharp_links import aspnet_route
from ._links import join_paths

__all__ = ["routes"]


_COMMENT: Final = re.compile(r"@\*.*?(?:\*@|\Z)", re.DOTALL)
_PAGE: Final = re.compile(r'^[ \t]*@page(?![\w-])[ \t]*(?:"([^"\r\n]*)"|@"([^"\r\n]*)")?[ \t]*\r?$', re.MULTILINE)
_ROUTE_ATTRIBUTE: Final = re.compile(
    r"^[ \t]*@attribute[ \t]+\[[ \t]*(?:global::)?(?:Microsoft\.AspNetCore\.Components\.)?Route(?:Attribute)?"
    r'[ \t]*\([ \t]*"([^"\r\n]*)"[ \t]*\)[ \t]*\]',
    re.MULTILINE,
)
_MODEL: Final = re.compile(r"^[ \t]*@model[ \t]+([\w.]+)[ \t]*\r?$", re.MULTILINE)
#: Bytes without this hold no route (a plain substring test, cheaper than a decode).
_HINT: Final = b"@"


def routes(path: str, source: bytes) -> tuple[HttpRoute, ...]:
    """The routes a ``.razor`` or ``.cshtml`` file declares (``path`` workspace-relative, ``/``-separated)."""
    if _HINT not in source:
        return ()
    text = source.decode("utf-8", "replace").removeprefix("\ufeff")
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), text)
    name = path.rsplit("/", 1)[-1]
    if name.lower().endswith(".razor"):
        return _component(name[: -len(".razor")], text)
    if name.lower().endswith(".cshtml"):
        return _page(path, text)
    return ()


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _component(component: str, text: str) -> tuple[HttpRoute, ...]:
    found: list[tuple[int, HttpRoute]] = []
    for match in _PAGE.finditer(text):
        template = match[1] if match[1] is not None else match[2]
        if template is None:
            continue  # a component's @page needs a template
        at = match.start() + len(match[0]) - len(match[0].lstrip())
        found.append((at, HttpRoute("GET", aspnet_route(template), _line(text, at), component, "", "blazor")))
    for match in _ROUTE_ATTRIBUTE.finditer(text):
        at = match.start() + len(match[0]) - len(match[0].lstrip())
        found.append((at, HttpRoute("GET", aspnet_route(match[1]), _line(text, at), component, "", "blazor")))
    found.sort(key=lambda item: item[0])
    return tuple(route for _, route in found)


def _page(path: str, text: str) -> tuple[HttpRoute, ...]:
    match = _PAGE.search(text)
    if match is None:
        return ()
    template = match[1] if match[1] is not None else match[2]
    model = _MODEL.search(text)
    handler = model[1] if model is not None else ""
    at = match.start() + len(match[0]) - len(match[0].lstrip())
    if template and template.startswith(("/", "~/")):
        route = template.lstrip("~")
    else:
        base = _page_path(path)
        if base is None:
            return ()
        route = join_paths(base, template) if template else base
    return (HttpRoute("*", aspnet_route(route), _line(text, at), handler, "", "razorpages"),)


def _page_path(path: str) -> str | None:
    """The route of a page by its path under ``Pages`` (None: in no ``Pages`` folder)."""
    parts = path.split("/")
    roots = [index for index, part in enumerate(parts[:-1]) if part == "Pages"]
    if not roots:
        return None
    root = roots[-1]
    area = parts[root - 1] if root >= 2 and parts[root - 2] == "Areas" else ""
    stem = parts[-1][: -len(".cshtml")]
    segments = [*parts[root + 1 : -1], stem]
    if segments[-1].lower() == "index":
        segments = segments[:-1]
    return "/" + "/".join(([area] if area else []) + segments)
