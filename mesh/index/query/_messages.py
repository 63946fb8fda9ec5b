"""Proto messages as the ``.proto`` files of one snapshot define them, and the messages each reaches.

Theory of operation
-------------------
A type written in a ``.proto`` names a definition by protobuf's scoping (:func:`full_names`: the
innermost enclosing scope first). Several files may define the same full name (copies of a
``.proto``): :class:`Messages` takes the definition in the file that writes the type, else one in
its folder, else one of its workspace service, else the first by path and line. Definitions are
read by name as they are needed, and every answer is kept for the life of the object (one
snapshot, one question).

A message *reaches* the messages its fields name (a map's value type too), their fields' messages,
and so on, nested and across files, each once (cycles end), up to ``REACHED_MAX`` messages. The
walk is breadth first over the fields in declaration order, so the first route found to a message
is a shortest one, and among those the one through the earliest fields. ``grpc_trace`` compares
the copies of an RPC over what it reaches (drift); ``dependents`` and ``impact_matrix`` find the
RPCs that reach a changed message, with the route (``CreateInvoiceResponse.items[].price``).
"""

from __future__ import annotations

import posixpath
import sqlite3
from collections import deque
from collections.abc import Iterable
from typing import Final

import attrs

__all__ = [
    "REACHED_MAX",
    "Field",
    "Message",
    "Messages",
    "field_message",
    "full_name",
    "full_names",
    "hop",
    "parse_fields",
]

#: Field types that are no message.
_SCALARS: Final = frozenset({
    "double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64",
    "sfixed32", "sfixed64", "bool", "string", "bytes",
})  # fmt: skip
#: How many messages one rpc's reach is followed to (a safety valve on huge schemas).
REACHED_MAX: Final = 500
#: Values bound per ``IN (...)`` query.
_SQL_PARAMS_MAX: Final = 500


@attrs.frozen
class Field:
    """A message field (or enum value: ``type`` is then "") as the ``.proto`` writes it."""

    name: str
    type: str
    number: int
    #: "" | "repeated" | "optional" | "required" | "map"
    label: str
    line: int

    @property
    def declaration(self) -> str:
        """The field as a ``.proto`` line would declare it (without the ``;``)."""
        if not self.type:
            return f"{self.name} = {self.number}"
        label = f"{self.label} " if self.label in ("repeated", "optional", "required") else ""
        return f"{label}{self.type} {self.name} = {self.number}"

    def identity(self) -> tuple[str, str, int, str]:
        return (self.name, self.type, self.number, self.label)


@attrs.frozen
class Message:
    """A message (or enum) as one copy of the ``.proto`` resolves it."""

    #: The type as the rpc line (or the field) writes it.
    written: str
    #: Its package and (dotted, for a nested message) name, and where it is defined.
    package: str
    name: str
    kind: str
    path: str
    line: int
    fields: tuple[Field, ...]

    def identity(self) -> tuple:
        return (self.kind, tuple(sorted(field.identity() for field in self.fields)))


#: What one message reaches: full name -> (the route of fields from the root, the definition or
#: None when a field names a type the workspace does not define).
Reached = dict[str, tuple[tuple[str, ...], Message | None]]


class Messages:
    """The message definitions the types of some rpcs may name, fetched by name as they are needed.

    ``package`` is the package the rpcs' own types are written in; ``types`` their (request,
    response) pairs, read at once in one query.
    """

    def __init__(self, db: sqlite3.Connection, package: str, types: Iterable[tuple[str, str]] = ()) -> None:
        self.db = db
        self.package = package
        self.rows: dict[str, list[tuple]] = {}
        self.fetched: set[str] = set()
        self.resolved: dict[tuple[str, str | None, int], Message | None] = {}
        self.reached: dict[tuple[str, int], Reached] = {}
        self.identities: dict[tuple[str, int, str], tuple] = {}
        self.edges: dict[tuple[str, int], list[tuple[str, str, Message | None]]] = {}
        self.fetch([full for pair in types for written in pair for full in full_names(written, package)])

    def fetch(self, fulls: Iterable[str]) -> None:
        """Read the definitions of these full names (by every dotted suffix, as the table keys them)."""
        names: set[str] = set()
        for full in fulls:
            if full in self.fetched:  # and so are its suffixes
                continue
            parts = full.split(".")
            names.update(".".join(parts[start:]) for start in range(len(parts)))
        ordered = sorted(names - self.fetched)
        self.fetched.update(ordered)
        for start in range(0, len(ordered), _SQL_PARAMS_MAX):
            chunk = ordered[start : start + _SQL_PARAMS_MAX]
            for row in self.db.execute(
                "SELECT m.file_id, f.path, f.service, m.package, m.name, m.kind, m.line, m.fields"
                f" FROM proto_messages m JOIN files f ON f.id = m.file_id WHERE m.name IN ({', '.join('?' * len(chunk))})"
                " ORDER BY f.path, m.line, m.name",
                chunk,
            ):
                full = f"{row[3]}.{row[4]}" if row[3] else row[4]
                self.rows.setdefault(full, []).append((*row, posixpath.dirname(row[1])))

    def resolve(self, written: str, file_id: int, path: str, owner: str, scope: str | None = None) -> Message | None:
        """The definition ``written`` names from the file at ``path``, inside ``scope`` (the package, or a
        message's full name for its fields): the file's own first, then its folder's, its service's."""
        key = (written, scope, file_id)
        if key not in self.resolved:
            self.resolved[key] = self._resolve(written, file_id, path, owner, scope)
        return self.resolved[key]

    def _resolve(self, written: str, file_id: int, path: str, owner: str, scope: str | None) -> Message | None:
        folder = posixpath.dirname(path)
        fulls = full_names(written, self.package if scope is None else scope)
        self.fetch(fulls)
        for full in fulls:
            rows = self.rows.get(full)
            if not rows:
                continue
            best = min(rows, key=lambda r: (r[0] != file_id, r[8] != folder, r[2] != owner, r[1], r[6]))
            _, where, _, package, name, kind, line, fields, _ = best
            return Message(written, package, name, kind, where, line, parse_fields(fields))
        return None

    def identity(self, message: Message | None) -> tuple | None:
        """``message.identity()``, computed once per definition."""
        if message is None:
            return None
        key = (message.path, message.line, message.name)
        if key not in self.identities:
            self.identities[key] = message.identity()
        return self.identities[key]

    def reach(
        self, roots: list[Message], file_id: int, path: str, owner: str
    ) -> tuple[tuple[str, Message | None], ...]:
        """The messages the fields of ``roots`` reach, at any depth, by full name; the roots left out."""
        found: dict[str, Message | None] = {}
        for root in roots:
            found.update((full, target) for full, (_, target) in self.routes(root, file_id, path, owner).items())
        for root in roots:
            found.pop(full_name(root), None)
        return tuple(sorted(found.items(), key=lambda item: item[0]))

    def routes(self, root: Message, file_id: int, path: str, owner: str) -> Reached:
        """What the fields of ``root`` reach, at any depth, from the file ``file_id`` at ``path`` (whose
        definitions win), each with its first route: the fields from ``root``, as :func:`hop` writes them."""
        key = (full_name(root), file_id)
        if key not in self.reached:
            self.reached[key] = self._reach(root, file_id, path, owner)
        return self.reached[key]

    def _reach(self, root: Message, file_id: int, path: str, owner: str) -> Reached:
        seen = {full_name(root)}
        found: Reached = {}
        queue: deque[tuple[Message, tuple[str, ...]]] = deque([(root, ())])
        while queue and len(found) < REACHED_MAX:
            message, route = queue.popleft()
            for field, full, target in self._edges(message, file_id, path, owner):
                if full in seen:
                    continue
                seen.add(full)
                found[full] = ((*route, field), target)
                if target is not None:
                    queue.append((target, (*route, field)))
        return found

    def _edges(self, message: Message, file_id: int, path: str, owner: str) -> list[tuple[str, str, Message | None]]:
        """(the field as a hop, full name, definition or None) of the message each field of
        ``message`` names, once per file."""
        scope = full_name(message)
        key = (scope, file_id)
        found = self.edges.get(key)
        if found is None:
            found = self.edges[key] = []
            for field in message.fields:
                written = field_message(field)
                if written:
                    target = self.resolve(written, file_id, path, owner, scope)
                    full = full_name(target) if target is not None else _absolute(written, scope)
                    found.append((hop(field), full, target))
        return found


def full_name(message: Message) -> str:
    return f"{message.package}.{message.name}" if message.package else message.name


def hop(field: Field) -> str:
    """A field as one step of a route: ``items[]`` for a repeated field, ``prices{}`` for a map's values."""
    return field.name + ("[]" if field.label == "repeated" else "{}" if field.label == "map" else "")


def field_message(field: Field) -> str:
    """The message type a field names ("" for a scalar or an enum value): a map's value type."""
    written = field.type
    if written.startswith("map<") and written.endswith(">"):
        written = written[4:-1].partition(",")[2].strip()
    return "" if not written or written in _SCALARS else written


def _absolute(written: str, scope: str) -> str:
    """How to name a type no definition was found for: as written when qualified, else in ``scope``'s package."""
    return written.lstrip(".") if "." in written else f"{scope}.{written}" if scope else written


def full_names(written: str, package: str) -> list[str]:
    """The fully qualified names a type may mean, innermost scope first (proto's lookup order)."""
    if written.startswith("."):
        return [written[1:]]
    scopes = package.split(".") if package else []
    return [".".join([*scopes[:end], written]) for end in range(len(scopes), -1, -1)]


def parse_fields(text: str) -> tuple[Field, ...]:
    fields = []
    for line in text.split("\n") if text else ():
        name, kind, number, label, where = line.split("\t")
        fields.append(Field(name, kind, int(number), label, int(where)))
    return tuple(fields)
