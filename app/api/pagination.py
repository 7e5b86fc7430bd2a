"""Keyset pagination with signed, opaque cursors.

A list is ordered by a stable key (e.g. `start_date, id`); a cursor carries the last row's key,
the list it belongs to and a fingerprint of its filters, signed so that a tampered, foreign or
re-filtered cursor is refused as `validation` on `cursor`. Each page is one `WHERE key > last
ORDER BY key LIMIT n+1` query, so page N costs what page 1 costs.
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from itsdangerous import BadSignature, URLSafeSerializer
from pydantic import BaseModel
from sqlalchemy import ColumnElement, Integer, Select, and_, bindparam, false, or_
from sqlalchemy.orm import Session

from app.api.problems import validation
from app.contract.common import ListQuery

T = TypeVar("T")


@dataclass(frozen=True)
class SortKey:
    """One column of a keyset order; `descending` walks it from the largest value."""

    column: ColumnElement[Any]
    descending: bool = False


def _encode(value: Any) -> Any:
    if isinstance(value, datetime):
        return {"t": value.astimezone(UTC).isoformat()}  # microseconds kept: keys must be exact
    if isinstance(value, uuid.UUID):
        return {"u": str(value)}
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if "t" in value:
            parsed = datetime.fromisoformat(value["t"])
            if parsed.tzinfo is None:
                raise ValueError("cursor timestamp without offset")
            return parsed.astimezone(UTC)
        if "u" in value:
            return uuid.UUID(value["u"])
    return value


def _fingerprint(query: BaseModel | None) -> str:
    if query is None:
        return ""
    data = query.model_dump(mode="json", exclude={"cursor", "page_size"})
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


class Paginator:
    """Signs and reads cursors for one app (one secret)."""

    def __init__(self, secret: str) -> None:
        self._serializer = URLSafeSerializer(secret, salt="shiftdesk.cursor")

    def cursor_for(self, scope: str, query: BaseModel | None, key: Sequence[Any]) -> str:
        """The opaque cursor continuing after a row whose sort key is `key`."""
        return str(self._serializer.dumps(
            {"s": scope, "f": _fingerprint(query), "k": [_encode(v) for v in key]}
        ))

    def read_cursor(
        self, scope: str, query: BaseModel | None, cursor: str, width: int
    ) -> list[Any]:
        """The sort key inside a cursor, or `validation` on `cursor` when it is not ours."""
        try:
            payload = self._serializer.loads(cursor)
        except BadSignature as exc:
            raise validation("cursor", "the cursor is not valid; start again without it") from exc
        if not isinstance(payload, dict) or payload.get("s") != scope:
            raise validation("cursor", "the cursor belongs to another list")
        if payload.get("f") != _fingerprint(query):
            raise validation("cursor", "the cursor was made with other filters; start again")
        key = payload.get("k")
        if not isinstance(key, list) or len(key) != width:
            raise validation("cursor", "the cursor is not valid; start again without it")
        try:
            return [_decode(v) for v in key]
        except (ValueError, TypeError) as exc:
            raise validation("cursor", "the cursor is not valid; start again without it") from exc

    def page(
        self,
        session: Session,
        statement: Select[Any],
        *,
        scope: str,
        query: ListQuery,
        order: Sequence[SortKey],
        rows: bool = False,
        params: Mapping[str, Any] | None = None,
    ) -> tuple[list[Any], str | None]:
        """One page of `statement`'s rows and the cursor of the next page (None at the end).

        `statement` selects one entity, or with `rows` columns (then each row has the sort
        key's columns under their keys); the last key column must be unique (an id). Rows are
        read on the session's connection, without the ORM's per-statement work (lists are
        read-only, so there is nothing to flush first).

        `statement` may take bound parameters, given in `params`: a list built once and reused
        for many requests (values bound at execution) gets its keyset form built once too,
        which spares SQLAlchemy working out a new statement's compiled form every time. A
        statement is always paged in the same `order`.
        """
        values = {**(params or {}), _LIMIT: query.page_size + 1}
        after: list[Any] | None = None
        if query.cursor:
            after = self.read_cursor(scope, query, query.cursor, len(order))
            values.update((f"{_AFTER}{index}", value) for index, value in enumerate(after))
        connection = session.connection()
        keyset = _keyset(statement, order, after,
                         literal_limit=connection.dialect.name == "postgresql")
        found = (connection.execute(keyset, values, execution_options=_PLAIN_ROWS) if rows
                 else session.scalars(keyset, values).unique())
        items: list[Any] = list(found.all())
        if len(items) <= query.page_size:
            return items, None
        items = items[: query.page_size]
        key = [_value_of(items[-1], k.column) for k in order]
        return items, self.cursor_for(scope, query, key)


_PLAIN_ROWS = {"_result_disable_adapt_to_context": True}
"""Rows of `rows=True` are read by position or by name, never keyed by a statement's column
objects, so they need no result map of those objects. Without this option SQLAlchemy rebuilds
that map whenever the statement object differs from the one its compiled form was cached for
(the same list filtered for another user, or rebuilt for the same one): some hundreds of
microseconds a page. SQLAlchemy's ORM sets it on its own statements; were it ever ignored, the
rows would be the same, only slower to read."""
_LIMIT = "page_limit"
_AFTER = "page_after_"
_KEYSETS: weakref.WeakKeyDictionary[Select[Any], dict[Any, Select[Any]]] = (
    weakref.WeakKeyDictionary())
_KEYSETS_LOCK = threading.Lock()


def _keyset(statement: Select[Any], order: Sequence[SortKey], after: Sequence[Any] | None, *,
            literal_limit: bool) -> Select[Any]:
    """`statement` ordered by `order`, limited, and after a cursor's key when there is one, with
    the limit and the key as bound parameters; kept beside `statement` for as long as it lives.

    The form depends only on which key values are NULL (`_after` tests NULL with IS NULL).
    With `literal_limit` the limit is written into the SQL at execution instead: PostgreSQL
    plans a prepared statement whose LIMIT is a parameter afresh at every execution (a plan
    kept for any limit would have to guess it), and keeps one plan for a limit it can see.
    """
    shape = (literal_limit, None if after is None else tuple(value is None for value in after))
    with _KEYSETS_LOCK:
        kept = _KEYSETS.setdefault(statement, {})
        if shape in kept:
            return kept[shape]
    keyset = statement
    if after is not None:
        keyset = keyset.where(_after(order, [
            None if value is None else bindparam(f"{_AFTER}{index}")
            for index, value in enumerate(after)]))
    keyset = keyset.order_by(*(_order_by(k) for k in order)).limit(
        bindparam(_LIMIT, type_=Integer(), literal_execute=literal_limit))
    with _KEYSETS_LOCK:
        kept[shape] = keyset
    return keyset


def _value_of(row: Any, column: ColumnElement[Any]) -> Any:
    return getattr(row, column.key)  # type: ignore[attr-defined]


def _nullable(column: ColumnElement[Any]) -> bool:
    return bool(getattr(column, "nullable", True))


def _order_by(key: SortKey) -> ColumnElement[Any]:
    """The ORDER BY term; NULL sorts as the largest value on every backend (SQLite and
    PostgreSQL disagree by default), which `_after` relies on."""
    if not _nullable(key.column):
        return key.column.desc() if key.descending else key.column.asc()
    return key.column.desc().nulls_first() if key.descending else key.column.asc().nulls_last()


def _equal(column: ColumnElement[Any], value: Any) -> ColumnElement[bool]:
    return column.is_(None) if value is None else column == value


def _beyond(key: SortKey, value: Any) -> ColumnElement[bool]:
    """Rows after `value` in this key's direction, NULL being the largest value."""
    column = key.column
    if value is None:
        return column.is_not(None) if key.descending else false()
    if key.descending:
        return column < value
    if _nullable(column):
        return or_(column > value, column.is_(None))
    return column > value


def _after(order: Sequence[SortKey], values: Sequence[Any]) -> ColumnElement[bool]:
    """Rows strictly after `values` in the keyset order: (a > x) OR (a = x AND b > y) …"""
    clauses: list[ColumnElement[bool]] = []
    for index, key in enumerate(order):
        equal = [_equal(order[i].column, values[i]) for i in range(index)]
        clauses.append(and_(*equal, _beyond(key, values[index])))
    return or_(*clauses)
