"""Ids and timestamps read as the wire's text, written by the database itself.

The busiest reads (the shift and appointment lists) answer hundreds of ids and timestamps per
page. Read the usual way, each value is parsed into a `uuid.UUID` or an aware `datetime` and then
formatted back into text for JSON, a few microseconds each way in Python. `wire_id(column)` and
`wire_time(column)` select that text directly: the database formats the value while it reads the
row, and the driver hands over a plain `str` (or None for NULL). The one exception is an id on
SQLite, which has no cheap way to insert the hyphens: it arrives as its 32 stored hex digits and
is hyphenated in Python, which costs a third of what five `substr` calls cost the database.

They read exactly what the contract writes (`str(uuid.UUID)`, `format_timestamp`): lower-case
hyphenated ids, and `YYYY-MM-DDThh:mm:ss+0000` in UTC with the fraction of a second dropped.
SQLite stores ids as 32 hex digits and instants as UTC text (`YYYY-MM-DD hh:mm:ss.ffffff`, see
`app.api.db`); PostgreSQL has `uuid` and `timestamptz`. Use them for reading only, never in a
WHERE or ORDER BY, where the typed column keeps its index.

`among(column, name)` picks the rows of a list of ids bound as one parameter (JSON text read by
`json_each` on SQLite, an array on PostgreSQL). The usual `IN` with an expanding parameter is
rewritten for every execution to as many placeholders as there are ids, which costs the busiest
reads more than running the statement does.
"""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Callable, Collection
from typing import Any

from sqlalchemy import BindParameter, ColumnElement, String, TypeDecorator, bindparam
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.sql.sqltypes import NullType

Document = dict[str, Any]
"""A JSON object already in its wire form (camelCase members, ids and timestamps as text)."""


@functools.lru_cache(maxsize=1 << 16)  # a page repeats its providers', roles' and labels' ids
def _hyphenated(hex_digits: str | None) -> str | None:
    if hex_digits is None:
        return None
    h = hex_digits
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def id_text(text: str) -> str:
    """The wire form of an id read as plain text from either database (say, from a list the
    database joined into one string): SQLite's 32 hex digits are hyphenated, PostgreSQL's text
    is already the wire's."""
    return _hyphenated(text) if len(text) == 32 else text  # type: ignore[return-value]


class _IdText(String):
    """Text of an id: on SQLite the stored hex digits, hyphenated on the way out."""

    def result_processor(self, dialect: Dialect, coltype: object) -> Callable[[Any], Any] | None:
        return _hyphenated if dialect.name == "sqlite" else None


class wire_id(FunctionElement[str]):
    """The text of a UUID column as the wire writes it: `0f8fad5b-d9cb-469f-a165-70867728950e`."""

    type = _IdText()
    inherit_cache = True


class wire_time(FunctionElement[str]):
    """The text of a UTC instant column as the wire writes it: `2024-05-01T09:00:00+0000`."""

    type = String()
    inherit_cache = True


def _argument(element: FunctionElement[Any], compiler: SQLCompiler, **kw: Any) -> str:
    (column,) = element.clauses
    return compiler.process(column, **kw)


@compiles(wire_id)
def _id_text(element: wire_id, compiler: SQLCompiler, **kw: Any) -> str:
    # PostgreSQL's uuid casts to its canonical lower-case hyphenated text.
    return f"CAST({_argument(element, compiler, **kw)} AS TEXT)"


@compiles(wire_id, "sqlite")
def _id_text_sqlite(element: wire_id, compiler: SQLCompiler, **kw: Any) -> str:
    return _argument(element, compiler, **kw)  # the stored hex digits: see `_IdText`


@compiles(wire_time)
def _time_text(element: wire_time, compiler: SQLCompiler, **kw: Any) -> str:
    instant = _argument(element, compiler, **kw)
    return f"""to_char({instant} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+0000"')"""


@compiles(wire_time, "sqlite")
def _time_text_sqlite(element: wire_time, compiler: SQLCompiler, **kw: Any) -> str:
    instant = _argument(element, compiler, **kw)
    return f"substr({instant}, 1, 10) || 'T' || substr({instant}, 12, 8) || '+0000'"


class _IdList(TypeDecorator[Collection[uuid.UUID | str]]):
    """Ids bound as one text value: a `uuid[]` literal on PostgreSQL (cast by `among`), JSON of
    their stored hex digits on SQLite.

    Text rather than a list of `uuid.UUID` for the driver to dump one by one: a slot search
    binds hundreds of candidates, and psycopg's array dumper spent a few microseconds on each.
    Each id is a `uuid.UUID` or its canonical text (the wire form, as `wire_id` reads it back):
    ids read as text are bound as they came, without being parsed first. Text that is not an id
    fails the cast, as a bad UUID would.
    """

    impl = String
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> Any:
        if dialect.name == "sqlite":
            return dialect.type_descriptor(String())
        # Untyped: a VARCHAR bind cast would make the planner see a run-time cast of unknown
        # result instead of the literal array (a plan for any number of ids, not these).
        return NullType()

    def process_bind_param(self, value: Collection[uuid.UUID | str] | None,
                           dialect: Dialect) -> Any:
        if value is None:
            raise ValueError("a list of ids is required")
        if dialect.name == "sqlite":
            return json.dumps([id_.hex if isinstance(id_, uuid.UUID) else id_.replace("-", "")
                               for id_ in value])
        return "{" + ",".join(map(str, value)) + "}"


class among(FunctionElement[bool]):
    """`column` is one of the ids bound as the parameter `name` (a collection of `uuid.UUID`,
    or of their canonical text)."""

    # Untyped: a Boolean would be compared with 1 on SQLite, which keeps it from the index.
    type = NullType()
    inherit_cache = True

    def __init__(self, column: ColumnElement[uuid.UUID], name: str) -> None:
        ids: BindParameter[Collection[uuid.UUID | str]] = bindparam(name, type_=_IdList())
        super().__init__(column, ids)


@compiles(among)
def _among(element: among, compiler: SQLCompiler, **kw: Any) -> str:
    column, ids = (compiler.process(clause, **kw) for clause in element.clauses)
    return f"{column} = ANY(CAST({ids} AS UUID[]))"


@compiles(among, "sqlite")
def _among_sqlite(element: among, compiler: SQLCompiler, **kw: Any) -> str:
    column, ids = (compiler.process(clause, **kw) for clause in element.clauses)
    return f"{column} IN (SELECT value FROM json_each({ids}))"
